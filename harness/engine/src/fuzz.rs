//! Structured fuzzing: cases built from fuzzer bytes.

use crate::canonical::Canonical;
use crate::spec::{case_rng, Case, Spec};

/// The default [`Spec::arbitrary_case`]: the bytes pick a category (not a
/// [`large`](crate::Category::large) one), a call index and a seed for the
/// spec's generators, then up to three byte-level mutations of one step's
/// canonical bytes.
pub fn generated_case<S: Spec + ?Sized>(
    spec: &S,
    u: &mut arbitrary::Unstructured<'_>,
) -> arbitrary::Result<Case<S::Input>> {
    let categories: Vec<_> = spec.categories().into_iter().filter(|c| !c.large).collect();
    let category = u.choose(&categories)?;
    let index = u.int_in_range(0..=10_000u64)?;
    let seed: u64 = u.arbitrary()?;
    let cases = category.generate(index, &mut case_rng(seed, spec.name(), category.name, index));
    let mut case = u.choose(&cases)?.clone();
    for _ in 0..u.int_in_range(0..=3u8)? {
        let step = u.choose_index(case.steps.len())?;
        let mut bytes = case.steps[step].to_canonical();
        mutate_bytes(u, &mut bytes)?;
        if let Some(input) = spec.parse(&bytes) {
            case.steps[step] = input;
        }
    }
    Ok(case)
}

/// One byte-level mutation chosen by the fuzzer: flip a bit, set a byte,
/// truncate, or insert a byte.
pub fn mutate_bytes(u: &mut arbitrary::Unstructured<'_>, bytes: &mut Vec<u8>) -> arbitrary::Result<()> {
    if bytes.is_empty() {
        bytes.push(u.arbitrary()?);
        return Ok(());
    }
    let at = u.choose_index(bytes.len())?;
    match u.int_in_range(0..=3u8)? {
        0 => bytes[at] ^= 1 << u.int_in_range(0..=7u8)?,
        1 => bytes[at] = u.arbitrary()?,
        2 => bytes.truncate(at),
        _ => bytes.insert(at, u.arbitrary()?),
    }
    Ok(())
}
