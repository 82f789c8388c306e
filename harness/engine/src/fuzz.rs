//! Structured fuzzing: cases built from fuzzer bytes.

use crate::canonical::Canonical;
use crate::spec::{case_rng, Case, Spec};

/// The longest series, literal or table a generator builds for one
/// structured fuzz execution ([`crate::size_limit`]); campaign categories
/// keep their full lengths.
pub const FUZZ_SIZE_LIMIT: usize = 512;

/// The default [`Spec::arbitrary_case`]: the bytes pick a category (not a
/// [`large`](crate::Category::large) one), a call index and a seed for the
/// spec's generators (lengths capped at [`FUZZ_SIZE_LIMIT`]), then up to three byte-level mutations of one step's
/// canonical bytes.
pub fn generated_case<S: Spec + ?Sized>(
    spec: &S,
    u: &mut arbitrary::Unstructured<'_>,
) -> arbitrary::Result<Case<S::Input>> {
    let categories: Vec<_> = spec.categories().into_iter().filter(|c| !c.large).collect();
    let category = u.choose(&categories)?;
    let index = u.int_in_range(0..=10_000u64)?;
    let seed: u64 = u.arbitrary()?;
    let cases = crate::size_limit::scoped(FUZZ_SIZE_LIMIT, || {
        category.generate(index, &mut case_rng(seed, spec.name(), category.name, index))
    });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Payload;
    use crate::{Category, Outcome};

    /// Every call draws a literal of 10,000 bytes through the size limit.
    struct Long;
    impl Spec for Long {
        type Input = Payload;
        type Output = usize;
        type Error = ();
        fn name(&self) -> &'static str {
            "long"
        }
        fn categories(&self) -> Vec<Category<Payload>> {
            vec![Category::new("long", 1.0, |_, _| {
                vec![Case::one(Payload(vec![7; crate::size_limit::apply(10_000)]))]
            })]
        }
        fn reference(&self, input: &Payload) -> Outcome<Self> {
            Ok(input.0.len())
        }
    }

    #[test]
    fn structured_cases_are_generated_within_the_size_limit_and_campaigns_are_not() {
        let bytes = [0u8; 64];
        let case = generated_case(&Long, &mut arbitrary::Unstructured::new(&bytes)).expect("a case");
        assert_eq!(case.steps[0].0.len(), FUZZ_SIZE_LIMIT);
        let category = &Long.categories()[0];
        let campaign = category.generate(0, &mut case_rng(1, "long", "long", 0));
        assert_eq!(campaign[0].steps[0].0.len(), 10_000);
    }
}
