//! What the `tsfile-dictionary` family generates beyond the shared
//! categories. The shared TEXT series are mostly all-distinct, which makes a
//! dictionary as long as the page; real dictionary pages name a few entries
//! many times. `low-cardinality` writes those (runs long enough for the Java
//! writer's RLE runs, empty and 127-130-byte entries); the targeted damage
//! rewrites the dictionary's varints and the index stream field by field.

use crate::engine::CaseRng;
use std::collections::HashSet;

use crate::engine::SliceDraw;

use crossdec_reference::tsfile::{dictionary, rle, write_zigzag32};

use super::{DataType, Encoding, StopMode, TsInput, Values};
use crate::engine::size_limit;

/// Pages of few distinct values ([`low_cardinality`]).
pub const LOW_CARDINALITY: (&str, f64) = ("low-cardinality", 1.0);

/// The page the writers write: Java's run plan (RLE runs for 8+ repeats)
/// or C++'s (bit-packed runs only).
pub fn page(rng: &mut CaseRng, values: &Values) -> Vec<u8> {
    let Values::Text(v) = values else {
        unreachable!("DICTIONARY types only")
    };
    dictionary::encode(v, rng.gen_bool(0.5))
}

/// `k` distinct entries: empty, short, long (127-130 bytes, around a
/// varint's second byte), 0xFF-filled.
fn distinct(rng: &mut CaseRng, k: usize) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(k);
    let mut seen = HashSet::with_capacity(k);
    while out.len() < k {
        let entry = match rng.gen_range(0..5) {
            0 => Vec::new(),
            1 => vec![0xFF; rng.gen_range(1..70)],
            2 => (0..rng.gen_range(127..=130)).map(|_| rng.gen()).collect(),
            _ => format!("v{}-{}", out.len(), rng.gen::<u16>()).into_bytes(),
        };
        if seen.insert(entry.clone()) {
            out.push(entry);
        }
    }
    out
}

/// Values from `entries`, in runs (one long run, runs of 1-20, or no runs).
fn from_entries(rng: &mut CaseRng, entries: &[Vec<u8>], len: usize) -> Vec<Vec<u8>> {
    let run_max = *[1usize, 8, 20, len.max(1)].choose(rng).unwrap();
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let entry = entries.choose(rng).unwrap();
        let run = rng.gen_range(1..=run_max).min(len - out.len());
        out.extend(std::iter::repeat_n(entry.clone(), run));
    }
    out
}

/// The `low-cardinality` category: 1 to 300 distinct entries (rarely up to
/// 2000) named by up to 3000 values, through the reference encoder.
pub fn low_cardinality(rng: &mut CaseRng) -> Values {
    let k = size_limit::apply(if rng.gen_bool(0.1) {
        rng.gen_range(300..2000)
    } else {
        rng.gen_range(1..300)
    });
    let entries = distinct(rng, k);
    let len = size_limit::apply(rng.gen_range(1..3000));
    Values::Text(from_entries(rng, &entries, len))
}

/// `len` values naming at most 40 distinct entries (the `large` category).
pub fn few_entries(rng: &mut CaseRng, len: usize) -> Values {
    let k = rng.gen_range(1..40);
    let entries = distinct(rng, k);
    Values::Text(from_entries(rng, &entries, len))
}

/// A page from its parts: the count and entry lengths as written (any
/// value, for damage), the entries' bytes, the index stream.
fn assemble(count: i32, entries: &[(i32, &[u8])], stream: &[u8]) -> Vec<u8> {
    let mut page = Vec::new();
    write_zigzag32(&mut page, count);
    for (len, bytes) in entries {
        write_zigzag32(&mut page, *len);
        page.extend_from_slice(bytes);
    }
    page.extend_from_slice(stream);
    page
}

/// An index stream: one bit-packed package of `keys` (any width).
fn stream(keys: &[u64]) -> Vec<u8> {
    if keys.is_empty() {
        return Vec::new();
    }
    rle::encode_package(rle::bit_width_of(keys), &rle::plan_packed(keys), false)
}

/// Targeted damage, each to a page built from parts: a negative count,
/// more entries than bytes, a negative entry length, an entry past the
/// page, an index naming no entry (just past the dictionary, or a negative
/// i32), an index stream with a bit width above 32.
pub fn corrupt(rng: &mut CaseRng, input: &mut TsInput) {
    let k = rng.gen_range(1..8);
    let entries = distinct(rng, k);
    let len = rng.gen_range(1..40);
    let mut keys: Vec<u64> = (0..len).map(|_| rng.gen_range(0..entries.len() as u64)).collect();
    let mut lens: Vec<(i32, &[u8])> = entries.iter().map(|e| (e.len() as i32, e.as_slice())).collect();
    let mut count = entries.len() as i32;
    let mut tail = Vec::new();
    match rng.gen_range(0..7) {
        0 => count = -rng.gen_range(1..1000),
        1 => count += rng.gen_range(1000..100_000),
        2 => {
            let i = rng.gen_range(0..lens.len());
            lens[i].0 = -rng.gen_range(1..200);
        }
        3 => {
            // The last entry longer than what follows it.
            let i = lens.len() - 1;
            lens[i].0 += rng.gen_range(1..50);
            keys.clear();
        }
        4 => {
            let i = rng.gen_range(0..keys.len());
            keys[i] = entries.len() as u64 + rng.gen_range(0..3);
        }
        5 => {
            let i = rng.gen_range(0..keys.len());
            keys[i] = u64::from(rng.gen_range(0x8000_0000..=u32::MAX));
        }
        _ => tail = vec![2, rng.gen_range(33..=255), 2],
    }
    let mut index_stream = stream(&keys);
    index_stream.extend(tail);
    input.page = assemble(count, &lens, &index_stream);
    input.max_values = input.max_values.max(len as u32);
}

/// Counts the page cannot back: an RLE run of index 0 claiming up to 2^30
/// values after a one-entry dictionary.
pub fn huge_run(rng: &mut CaseRng) -> TsInput {
    let count: u32 = rng.gen_range(1 << 16..1 << 30);
    let run = rle::encode_package(1, &[rle::Run::Repeat { count, value: 0 }], false);
    TsInput {
        encoding: Encoding::Dictionary,
        dtype: DataType::Text,
        stop: StopMode::AtTerminator,
        writer: Default::default(),
        max_values: rng.gen_range(0..1000),
        page: assemble(1, &[(1, b"x")], &run),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::case_rng;

    fn text(values: Values) -> Vec<Vec<u8>> {
        let Values::Text(v) = values else {
            unreachable!("text values")
        };
        v
    }

    #[test]
    fn low_cardinality_pages_keep_to_the_fuzz_size_limit() {
        let mut longest_free = 0;
        for seed in 0..100 {
            let limited = text(size_limit::scoped(64, || {
                low_cardinality(&mut case_rng(seed, "d", "l", 0))
            }));
            assert!((1..=64).contains(&limited.len()), "{} values", limited.len());
            longest_free = longest_free.max(text(low_cardinality(&mut case_rng(seed, "d", "l", 0))).len());
        }
        assert!(longest_free > 1000, "campaign pages stay long: {longest_free}");
    }
}
