//! Helpers for inputs that carry a byte payload (a page, a column, a text):
//! minimizing, every truncation, bit flips. A family implements
//! [`BytePayload`] and writes only its format-specific generators.
//!
//! Random draws go through fixed-width integers (`u64`), never `usize`, so
//! the same seed gives the same cases on 32- and 64-bit hosts.

use crate::canonical::Canonical;
use crate::spec::{Case, CaseRng, Parse};

/// An input whose interesting part is a byte payload.
pub trait BytePayload: Clone {
    /// The payload.
    fn payload(&self) -> &[u8];
    /// The same input with another payload.
    fn with_payload(&self, payload: Vec<u8>) -> Self;
}

/// Smaller variants for minimizing, most aggressive first: the first half,
/// all but the last byte, then single bytes removed at up to 16 positions
/// spread over the payload.
pub fn shrink<I: BytePayload>(input: &I) -> Vec<I> {
    let bytes = input.payload();
    let len = bytes.len();
    let mut out = Vec::new();
    for keep in [len / 2, len.saturating_sub(1)] {
        if keep < len {
            out.push(input.with_payload(bytes[..keep].to_vec()));
        }
    }
    let step = (len / 16).max(1);
    for at in (0..len).step_by(step) {
        let mut smaller = bytes.to_vec();
        smaller.remove(at);
        out.push(input.with_payload(smaller));
    }
    out
}

/// Every strict prefix of the payload, shortest first, one case each.
pub fn truncations<I: BytePayload>(input: &I) -> Vec<Case<I>> {
    let bytes = input.payload();
    (0..bytes.len())
        .map(|keep| Case::one(input.with_payload(bytes[..keep].to_vec())))
        .collect()
}

/// The payload with 1 to `max_flips` random bits flipped (an empty payload is
/// returned as it is).
pub fn flip_bits<I: BytePayload>(input: &I, rng: &mut CaseRng, max_flips: u32) -> I {
    let mut bytes = input.payload().to_vec();
    if bytes.is_empty() {
        return input.clone();
    }
    let flips = rng.gen_range(1..=max_flips.max(1) as u64);
    for _ in 0..flips {
        let bit = rng.gen_range(0..bytes.len() as u64 * 8);
        bytes[(bit / 8) as usize] ^= 1 << (bit % 8);
    }
    input.with_payload(bytes)
}

/// An input that is nothing but bytes: its canonical form is the bytes
/// themselves (no length prefix), so corpus files are plain payloads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Payload(pub Vec<u8>);

impl Canonical for Payload {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0);
    }
}

impl Parse for Payload {
    fn parse(bytes: &[u8]) -> Option<Self> {
        Some(Payload(bytes.to_vec()))
    }
}

impl BytePayload for Payload {
    fn payload(&self) -> &[u8] {
        &self.0
    }
    fn with_payload(&self, payload: Vec<u8>) -> Self {
        Payload(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::case_rng;

    #[test]
    fn shrink_halves_drops_the_last_byte_and_removes_spread_bytes() {
        let input = Payload((0..40).collect());
        let variants = shrink(&input);
        assert_eq!(variants[0].0, (0..20).collect::<Vec<u8>>());
        assert_eq!(variants[1].0, (0..39).collect::<Vec<u8>>());
        // 40 / 16 = 2: every other position.
        assert_eq!(variants.len(), 2 + 20);
        assert_eq!(variants[2].0, (1..40).collect::<Vec<u8>>());
        assert_eq!(variants[3].0, (0..2).chain(3..40).collect::<Vec<u8>>());
        assert!(variants.iter().all(|v| v.0.len() == 39 || v.0.len() == 20));
        assert!(shrink(&Payload::default()).is_empty());
    }

    #[test]
    fn truncations_are_every_strict_prefix() {
        let cases = truncations(&Payload(vec![7, 8, 9]));
        let prefixes: Vec<Vec<u8>> = cases.into_iter().map(|c| c.steps[0].0.clone()).collect();
        assert_eq!(prefixes, vec![vec![], vec![7], vec![7, 8]]);
    }

    #[test]
    fn flips_change_between_one_and_max_bits() {
        let mut changed = 0;
        for index in 0..50 {
            let mut rng = case_rng(1, "f", "c", index);
            let flipped = flip_bits(&Payload(vec![0; 9]), &mut rng, 3).0;
            let bits: u32 = flipped.iter().map(|b| b.count_ones()).sum();
            // Two flips of the same bit cancel, so an odd count of 1 or 3
            // flips leaves at least one bit set, two flips zero or two.
            assert!(bits <= 3, "{flipped:?}");
            assert_eq!(flipped.len(), 9);
            changed += usize::from(bits > 0);
        }
        // Only an even count of flips on one bit can leave the payload as it was.
        assert!(changed >= 40, "{changed} of 50 changed");
        let mut rng = case_rng(1, "f", "c", 0);
        assert_eq!(flip_bits(&Payload::default(), &mut rng, 3), Payload::default());
    }

    #[test]
    fn flips_reach_every_bit_and_really_flip() {
        let mut reached = [0u8; 9];
        for index in 0..400 {
            let mut rng = case_rng(2, "f", "c", index);
            // Ones: a flip must clear a bit (an OR would leave them all set).
            let flipped = flip_bits(&Payload(vec![0xFF; 9]), &mut rng, 1).0;
            let cleared: Vec<(usize, u8)> = flipped
                .iter()
                .enumerate()
                .filter(|(_, b)| **b != 0xFF)
                .map(|(k, b)| (k, !b))
                .collect();
            assert_eq!(cleared.len(), 1, "one flip, one byte: {flipped:?}");
            assert_eq!(cleared[0].1.count_ones(), 1, "{flipped:?}");
            reached[cleared[0].0] |= cleared[0].1;
        }
        assert_eq!(reached, [0xFF; 9], "every bit of every byte can be flipped");
    }

    #[test]
    fn payloads_are_their_own_canonical_form() {
        assert_eq!(Payload(vec![1, 2]).to_canonical(), [1, 2]);
        assert_eq!(Payload::parse(&[3]), Some(Payload(vec![3])));
    }
}
