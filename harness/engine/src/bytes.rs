//! Helpers for inputs that carry a byte payload (a page, a column, a text):
//! minimizing, every truncation, bit flips. A family implements
//! [`BytePayload`] and writes only its format-specific generators.
//!
//! Random draws go through fixed-width integers (`u64`), never `usize`, so
//! the same seed gives the same cases on 32- and 64-bit hosts.

use std::fmt::Debug;

use crate::canonical::{Canonical, FromCanonical};
use crate::spec::{Case, CaseRng, Category, Outcome, Parse, Spec};

/// An input whose interesting part is a byte payload.
pub trait BytePayload: Clone {
    /// The payload.
    fn payload(&self) -> &[u8];
    /// The same input with another payload.
    fn with_payload(&self, payload: Vec<u8>) -> Self;
}

/// At most this many positions are tried per span length, and at most this
/// many bytes are lowered, so a long payload gives O(log n) candidates, not
/// O(n): every candidate costs the minimizer one re-run of its budget.
const MAX_POSITIONS: usize = 64;

/// Smaller variants for minimizing, simplest first, each strictly smaller
/// than the input (shorter, or as long and lexicographically smaller), so
/// greedy minimization ends: the empty payload; spans deleted, longest first
/// ([`spans`]: prefixes and suffixes kept, then spans of n/2, n/4, ..., 1
/// bytes removed at aligned offsets); then bytes lowered toward zero
/// ([`lower`]: every byte to 0 first, then each byte halfway, a quarter,
/// ... down to one less).
pub fn shrink<I: BytePayload>(input: &I) -> Vec<I> {
    let bytes = input.payload();
    let mut out: Vec<I> = spans(bytes).into_iter().map(|b| input.with_payload(b)).collect();
    let positions = spread(bytes.len());
    // Zeroing first: the greedy minimizer restarts at the head of the list
    // after every success, and a zero is the simplest value a byte can take.
    for &at in &positions {
        if bytes[at] != 0 {
            let mut v = bytes.to_vec();
            v[at] = 0;
            out.push(input.with_payload(v));
        }
    }
    for &at in &positions {
        for lower in lower(u64::from(bytes[at])).into_iter().skip(1) {
            let mut v = bytes.to_vec();
            v[at] = lower as u8;
            out.push(input.with_payload(v));
        }
    }
    out
}

/// Shorter versions of a sequence (bytes, rows, values, pages), most
/// deleted first: empty; the first and the last n/2, n/4, ..., 1 items
/// kept; then spans of n/2, n/4, ..., 1 items deleted at offsets that are
/// multiples of the span (at most 64 of them per length,
/// spread over the sequence), plus the last span of each length. Each
/// deleted range appears once.
pub fn spans<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    let n = items.len();
    // Deleted ranges [from, to).
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    if n == 0 {
        return Vec::new();
    }
    ranges.push((0, n));
    let mut keep = n / 2;
    while keep > 0 {
        ranges.push((keep, n));
        ranges.push((0, n - keep));
        keep /= 2;
    }
    let mut size = n / 2;
    while size > 0 {
        let starts = n.div_ceil(size);
        let step = starts.div_ceil(MAX_POSITIONS);
        for k in (0..starts).step_by(step) {
            ranges.push((k * size, (k * size + size).min(n)));
        }
        ranges.push((n - size, n));
        size /= 2;
    }
    // Longest deletion first; among equals, the earliest.
    ranges.sort_by_key(|&(from, to)| (std::cmp::Reverse(to - from), from));
    ranges.dedup();
    ranges
        .into_iter()
        .map(|(from, to)| {
            let mut v = Vec::with_capacity(n - (to - from));
            v.extend_from_slice(&items[..from]);
            v.extend_from_slice(&items[to..]);
            v
        })
        .collect()
}

/// Smaller values than `v`, simplest first: 0, then `v` less a half, a
/// quarter, ... of itself, down to `v - 1`. A greedy minimizer taking the
/// first that still fails finds the smallest failing value of a threshold
/// in O(log² v) steps instead of `v`.
pub fn lower(v: u64) -> Vec<u64> {
    let mut out = Vec::new();
    if v == 0 {
        return out;
    }
    out.push(0);
    for shift in 1..64 {
        let candidate = v - (v >> shift);
        if candidate == v {
            break;
        }
        if out.last() != Some(&candidate) {
            out.push(candidate);
        }
    }
    if out.last() != Some(&(v - 1)) {
        out.push(v - 1);
    }
    out
}

/// Signed values closer to zero than `v`, simplest first: 0, the
/// magnitudes of [`lower`] with `v`'s sign, and for a negative `v` its
/// positive magnitude (a sign is a complication too).
pub fn lower_signed(v: i64) -> Vec<i64> {
    let magnitude = v.unsigned_abs();
    let mut out: Vec<i64> = Vec::new();
    for m in lower(magnitude) {
        // `m < |v| <= 2^63`, so it fits an i64.
        let m = m as i64;
        out.push(if v < 0 { -m } else { m });
        if v < 0 && m != 0 {
            out.push(m);
        }
    }
    if v < 0 && v != i64::MIN {
        out.push(-v);
    }
    out
}

/// Up to [`MAX_POSITIONS`] positions of `0..len`, evenly spread.
fn spread(len: usize) -> Vec<usize> {
    let step = len.div_ceil(MAX_POSITIONS).max(1);
    (0..len).step_by(step).collect()
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

/// Arbitrary bytes (feature `fuzz`), so that
/// [`Category::from_arbitrary`](crate::Category::from_arbitrary) and fuzz
/// targets can build payloads.
#[cfg(feature = "fuzz")]
impl<'a> arbitrary::Arbitrary<'a> for Payload {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Vec::arbitrary(u).map(Payload)
    }

    fn arbitrary_take_rest(u: arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Payload(u.take_rest().to_vec()))
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

/// The whole [`Spec`] of a format whose decoders take a byte slice: the
/// input is a [`Payload`], the reference is a function of its bytes,
/// failures are minimized with [`shrink`], and the categories are given.
/// A decoder author's differential test is then this, a kernel and one
/// call; a format whose decoders take more than bytes (a requested count,
/// a header beside a page) implements [`Spec`] for an input of its own.
///
/// ```
/// use crossdec_engine::bytes::{ByteSpec, Payload};
/// use crossdec_engine::{Campaign, Case, Category, RunOptions};
///
/// /// Little-endian `u16`s; a lone last byte is an error at its offset.
/// fn words(bytes: &[u8]) -> Result<Vec<u16>, usize> {
///     let pairs = bytes.chunks_exact(2);
///     if !pairs.remainder().is_empty() {
///         return Err(bytes.len() - 1);
///     }
///     Ok(pairs.map(|p| u16::from_le_bytes([p[0], p[1]])).collect())
/// }
/// fn words_obvious(bytes: &[u8]) -> Result<Vec<u16>, usize> {
///     let mut values = Vec::new();
///     for at in (0..bytes.len()).step_by(2) {
///         let Some(&high) = bytes.get(at + 1) else { return Err(at) };
///         values.push(u16::from(bytes[at]) | u16::from(high) << 8);
///     }
///     Ok(values)
/// }
///
/// let random = Category::new("random", 1.0, |_, rng| {
///     vec![Case::one(Payload((0..rng.gen_range(0..9)).map(|_| rng.gen()).collect()))]
/// });
/// let campaign = Campaign::new(ByteSpec::new("words", words_obvious, vec![random]))
///     .kernel_fn("chunks", |input: &Payload| words(&input.0));
/// campaign.assert_agrees(&RunOptions { cases: 100, ..RunOptions::default() });
/// campaign.replay_hex("chunks", &["010203"]).unwrap();
/// ```
pub struct ByteSpec<O, E> {
    name: &'static str,
    reference: ByteDecoder<O, E>,
    categories: Vec<Category<Payload>>,
}

type ByteDecoder<O, E> = Box<dyn Fn(&[u8]) -> Result<O, E> + Send + Sync>;

impl<O, E> ByteSpec<O, E> {
    /// The spec named `name` (as `--family` and reports name it), whose
    /// reference decoder is `reference` and whose cases `categories`
    /// generate, in order.
    pub fn new(
        name: &'static str,
        reference: impl Fn(&[u8]) -> Result<O, E> + Send + Sync + 'static,
        categories: Vec<Category<Payload>>,
    ) -> Self {
        ByteSpec {
            name,
            reference: Box::new(reference),
            categories,
        }
    }
}

impl<O, E> Spec for ByteSpec<O, E>
where
    O: Canonical + FromCanonical + Clone + Debug + PartialEq + Send + 'static,
    E: Canonical + FromCanonical + Clone + Debug + PartialEq + Send + 'static,
{
    type Input = Payload;
    type Output = O;
    type Error = E;
    fn name(&self) -> &'static str {
        self.name
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        self.categories.clone()
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        (self.reference)(&input.0)
    }
    fn shrink(&self, input: &Payload) -> Vec<Payload> {
        shrink(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::case_rng;

    /// The total order every candidate must go down in: shorter, or as
    /// long and lexicographically smaller. Greedy minimization ends because
    /// of it.
    fn smaller(a: &[u8], b: &[u8]) -> bool {
        a.len() < b.len() || (a.len() == b.len() && a < b)
    }

    /// Greedy minimization as the engine's minimizer does it: the first
    /// smaller variant that still fails, from the head of the list again.
    fn minimize(start: &[u8], fails: impl Fn(&[u8]) -> bool) -> (Vec<u8>, usize) {
        let mut current = Payload(start.to_vec());
        let mut tries = 0;
        'outer: loop {
            for candidate in shrink(&current) {
                tries += 1;
                if fails(&candidate.0) {
                    current = candidate;
                    continue 'outer;
                }
            }
            return (current.0, tries);
        }
    }

    fn random_payload(index: u64) -> Vec<u8> {
        let mut rng = case_rng(3, "bytes", "shrink", index);
        let len = rng.gen_range(0..300u64);
        (0..len).map(|_| rng.gen_range(0..256u64) as u8).collect()
    }

    #[test]
    fn every_candidate_is_strictly_smaller_and_their_count_is_bounded() {
        for index in 0..200 {
            let bytes = random_payload(index);
            let variants = shrink(&Payload(bytes.clone()));
            for v in &variants {
                assert!(smaller(&v.0, &bytes), "{:?} from {bytes:?}", v.0);
            }
            // Spans: 3 per halving of the length, MAX_POSITIONS + 1 per span
            // length; bytes: at most 9 lowerings each of MAX_POSITIONS.
            let log = (usize::BITS - bytes.len().leading_zeros()) as usize;
            assert!(variants.len() <= 1 + log * (3 + MAX_POSITIONS + 1) + 9 * MAX_POSITIONS);
        }
        assert!(shrink(&Payload::default()).is_empty());
        // A long payload: still bounded.
        assert!(shrink(&Payload(vec![0xAB; 1 << 20])).len() < 2000);
    }

    #[test]
    fn the_simplest_candidates_come_first() {
        let variants: Vec<Vec<u8>> = shrink(&Payload(vec![1, 2, 3, 4])).into_iter().map(|p| p.0).collect();
        assert_eq!(variants[0], []);
        // Most deleted first: single bytes kept at each end, then halves.
        assert_eq!(variants[1..5], [vec![4], vec![1], vec![3, 4], vec![1, 2]]);
        // Then a middle half deleted, then each single byte.
        assert!(variants.contains(&vec![2, 3, 4]));
        assert!(variants.contains(&vec![1, 2, 3]));
        assert!(variants.contains(&vec![1, 3, 4]));
        // Lowered: every byte zeroed before any halving.
        let zero = variants.iter().position(|v| v == &[0, 2, 3, 4]).unwrap();
        let last_zero = variants.iter().position(|v| v == &[1, 2, 3, 0]).unwrap();
        let half = variants.iter().position(|v| v == &[1, 2, 3, 2]).unwrap();
        assert!(zero < last_zero && last_zero < half);
        assert!(variants.iter().skip(zero).all(|v| v.len() == 4));
        // Every candidate once.
        let unique: std::collections::BTreeSet<_> = variants.iter().collect();
        assert_eq!(unique.len(), variants.len());
    }

    #[test]
    fn spans_delete_halves_down_to_single_items_once_each() {
        let items: Vec<u32> = (0..8).collect();
        let v = spans(&items);
        assert_eq!(v[0], Vec::<u32>::new());
        assert!(v.contains(&vec![0, 1, 2, 3]) && v.contains(&vec![4, 5, 6, 7]));
        assert!(v.contains(&vec![0, 1, 4, 5, 6, 7]), "a middle quarter");
        for at in 0..8 {
            let mut one = items.clone();
            one.remove(at);
            assert!(v.contains(&one), "{at}");
        }
        let lengths: Vec<usize> = v.iter().map(Vec::len).collect();
        assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
        let unique: std::collections::BTreeSet<_> = v.iter().collect();
        assert_eq!(unique.len(), v.len());
        assert!(spans::<u8>(&[]).is_empty());
        assert_eq!(spans(&[5]), [Vec::<i32>::new()]);
    }

    #[test]
    fn values_go_toward_zero() {
        assert_eq!(lower(0), Vec::<u64>::new());
        assert_eq!(lower(1), [0]);
        assert_eq!(lower(255), [0, 128, 192, 224, 240, 248, 252, 254]);
        assert!(lower(u64::MAX).iter().all(|&v| v < u64::MAX));
        assert_eq!(lower_signed(0), Vec::<i64>::new());
        assert_eq!(lower_signed(-3), [0, -2, 2, 3]);
        assert_eq!(lower_signed(3), [0, 2]);
        assert!(lower_signed(i64::MIN).iter().all(|&v| v.unsigned_abs() < 1 << 63));
    }

    type Predicate = dyn Fn(&[u8]) -> bool;

    /// The predicates a planted bug tends to have: a byte anywhere, two
    /// bytes next to each other, a value over a threshold, a length.
    #[test]
    fn minimization_reaches_the_smallest_failing_payload() {
        for index in 0..40 {
            let mut start = random_payload(index);
            start.extend_from_slice(&[0x10, 0xFF, 0xFF, 0x99, 0xC8]);
            let cases: [(&Predicate, &[u8]); 5] = [
                (&|b| b.contains(&0xFF), &[0xFF]),
                (&|b| b.len() >= 2 && b[..2] == [0xFF, 0xFF], &[0xFF, 0xFF]),
                (&|b| b.windows(2).any(|w| w == [0xFF, 0xFF]), &[0xFF, 0xFF]),
                (&|b| b.iter().any(|&x| x >= 0xC8), &[0xC8]),
                (&|b| b.len() >= 3, &[0, 0, 0]),
            ];
            for (k, (fails, smallest)) in cases.into_iter().enumerate() {
                if !fails(&start) {
                    continue;
                }
                let (found, tries) = minimize(&start, fails);
                assert_eq!(found, smallest, "predicate {k} from {start:?}");
                // Within the engine's default budget.
                assert!(tries <= 2000, "predicate {k}: {tries} tries");
            }
        }
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

    /// The spec's own parts reach the run: its name, its categories, its
    /// reference on the payload's bytes, and minimizing by [`shrink`] (a
    /// spec without it would report the input as generated).
    #[test]
    fn a_byte_spec_runs_its_reference_and_shrinks_its_failures() {
        use crate::{Campaign, RunOptions};
        let long = Category::new("long", 1.0, |_, rng| {
            vec![Case::one(Payload((0..40).map(|_| rng.gen()).collect()))]
        });
        let sum = |bytes: &[u8]| Ok::<u64, ()>(bytes.iter().map(|&b| u64::from(b)).sum());
        // Wrong on every byte from 0x80 up: its smallest input is one 0x80.
        let broken = |input: &Payload| Ok(input.0.iter().map(|&b| u64::from(b & 0x7f)).sum());
        let report = Campaign::new(ByteSpec::new("sums", sum, vec![long]))
            .kernel_fn("masked", broken)
            .run(&RunOptions {
                cases: 20,
                ..RunOptions::default()
            });
        assert_eq!(report.family, "sums");
        assert_eq!(report.categories[0].name, "long");
        assert_eq!(report.categories[0].cases, 20);
        assert!(report.failures.iter().all(|f| f.input_hex[0].len() == 80));
        assert!(report.failures.iter().any(|f| f.minimized_hex == ["80"]), "{report:#?}");
    }

    #[test]
    fn payloads_are_their_own_canonical_form() {
        assert_eq!(Payload(vec![1, 2]).to_canonical(), [1, 2]);
        assert_eq!(Payload::parse(&[3]), Some(Payload(vec![3])));
    }
}
