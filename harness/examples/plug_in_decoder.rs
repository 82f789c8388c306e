//! A decoder author plugs their own decoder pair into crossdec's engine.
//!
//! The format: a sequence of unsigned LEB128 varints (u64). The "reference"
//! decodes one byte at a time; the "fast" one (the code under test) takes a
//! shortcut for single-byte varints. The engine generates cases, compares the
//! whole outcome (values, bytes consumed, error kind and position), and
//! minimizes any failure.
//!
//! Run: `cargo run --example plug_in_decoder` (add `-- broken` to see a
//! deliberately broken fast decoder get caught).

use crossdec_harness::engine::{run_family, Case, CaseRng, Category, Decoded, Implementation, Role, RunOptions};
use crossdec_harness::{report, Family, Outcome};
use rand::Rng;

#[derive(Debug, Clone, PartialEq)]
enum VarintError {
    /// A varint starting at `offset` runs past the end.
    Truncated { offset: usize },
    /// A varint starting at `offset` has more than 64 bits.
    Overflow { offset: usize },
}

fn reference(bytes: &[u8]) -> Result<(Vec<u64>, usize), VarintError> {
    let (mut out, mut pos) = (Vec::new(), 0);
    while pos < bytes.len() {
        let (start, mut value, mut shift) = (pos, 0u64, 0u32);
        loop {
            let b = *bytes.get(pos).ok_or(VarintError::Truncated { offset: start })?;
            pos += 1;
            if shift == 63 && b > 1 || shift > 63 {
                return Err(VarintError::Overflow { offset: start });
            }
            value |= ((b & 0x7f) as u64) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        out.push(value);
    }
    Ok((out, pos))
}

/// The decoder under test: one- and two-byte varints in fast paths. The
/// broken variant forgets that a 10th byte may only carry one bit.
fn fast(bytes: &[u8], broken: bool) -> Result<(Vec<u64>, usize), VarintError> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut pos = 0;
    while let Some(&b0) = bytes.get(pos) {
        if b0 < 0x80 {
            out.push(b0 as u64);
            pos += 1;
            continue;
        }
        if let Some(&b1) = bytes.get(pos + 1).filter(|b| **b < 0x80) {
            out.push((b0 & 0x7f) as u64 | (b1 as u64) << 7);
            pos += 2;
            continue;
        }
        let start = pos;
        let mut value = 0u64;
        for k in 0..10 {
            let b = *bytes.get(pos).ok_or(VarintError::Truncated { offset: start })?;
            pos += 1;
            if k == 9 && (b > 1 && !broken) {
                return Err(VarintError::Overflow { offset: start });
            }
            value |= ((b & 0x7f) as u64).wrapping_shl(7 * k);
            if b & 0x80 == 0 {
                break;
            }
            if k == 9 {
                return Err(VarintError::Overflow { offset: start });
            }
        }
        out.push(value);
    }
    Ok((out, pos))
}

struct Varints {
    broken: bool,
}

impl Family for Varints {
    type Input = Vec<u8>;
    type Value = (Vec<u64>, usize);
    type Error = VarintError;

    fn name(&self) -> &'static str {
        "leb128"
    }
    fn categories(&self) -> Vec<Category> {
        vec![Category { name: "valid", scale: 1.0 }, Category { name: "random-bytes", scale: 1.0 }]
    }
    fn generate(&self, category: &str, _index: u64, rng: &mut CaseRng) -> Vec<Case<Vec<u8>>> {
        let mut bytes = Vec::new();
        if category == "valid" {
            for _ in 0..rng.gen_range(0..20) {
                let mut v: u64 = rng.gen::<u64>() >> rng.gen_range(0..64);
                while v >= 0x80 {
                    bytes.push(v as u8 | 0x80);
                    v >>= 7;
                }
                bytes.push(v as u8);
            }
        } else {
            // Mostly continuation bytes, so long and overlong varints appear.
            bytes = (0..rng.gen_range(0..30)).map(|_| if rng.gen_bool(0.8) { rng.gen::<u8>() | 0x80 } else { rng.gen() }).collect();
        }
        vec![Case::one(bytes)]
    }
    fn reference(&self, input: &Vec<u8>) -> Outcome<Self> {
        reference(input)
    }
    fn implementations(&self) -> Vec<Implementation<Self>> {
        let broken = self.broken;
        vec![Implementation::new("fast", Role::Kernel, true, move || {
            move |input: &Vec<u8>, _canary: u8| Decoded::clean(fast(input, broken))
        })]
    }
    fn write_input(&self, input: &Vec<u8>, out: &mut Vec<u8>) {
        out.extend_from_slice(input);
    }
    fn parse_input(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        Some(bytes.to_vec())
    }
    fn write_outcome(&self, outcome: &Outcome<Self>, out: &mut Vec<u8>) {
        out.extend_from_slice(format!("{outcome:?}").as_bytes());
    }
    fn shrink(&self, input: &Vec<u8>) -> Vec<Vec<u8>> {
        (0..input.len()).map(|k| [&input[..k], &input[k + 1..]].concat()).collect()
    }
}

fn main() {
    let broken = std::env::args().any(|a| a == "broken");
    let result = run_family(&Varints { broken }, &RunOptions { cases: 500, seed: 1, ..RunOptions::default() });
    print!("{}", report::summary(std::slice::from_ref(&result)));
    std::process::exit(if result.failure_count == 0 { 0 } else { 1 });
}
