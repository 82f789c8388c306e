//! What the `tsfile-zigzag` family generates beyond the shared categories.
//! The writers put one group of minimal varints in a page; the Java reader
//! also takes several groups and non-minimal varints, and a damaged page
//! can say anything in its two header varints. So pages are written here
//! field by field: groups of any split, every varint in a chosen form,
//! header fields set to the values that must be refused.

use crate::engine::CaseRng;
use crate::engine::SliceDraw;

use crossdec_reference::tsfile::zigzag;

use super::generate::{series, Shape};
use super::{DataType, Encoding, StopMode, TsInput, Values};

/// The category that writes groups and varints in every accepted and
/// refused form (see [`varint_forms`]).
pub const VARINT_FORMS: (&str, f64) = ("varint-forms", 1.0);

/// A value's zigzag pattern (as an unsigned LEB128 payload).
fn zigzag_patterns(values: &Values) -> (Vec<u64>, u32) {
    match values {
        Values::Int32(v) => (v.iter().map(|&x| ((x << 1) ^ (x >> 31)) as u32 as u64).collect(), 32),
        Values::Int64(v) => (v.iter().map(|&x| ((x << 1) ^ (x >> 63)) as u64).collect(), 64),
        _ => unreachable!("ZIGZAG types only"),
    }
}

fn minimal_len(v: u64) -> usize {
    (64 - v.leading_zeros()).div_ceil(7).max(1) as usize
}

/// `v` as LEB128 in exactly `len` bytes (at least its minimal length): the
/// value's groups followed by zero groups, each but the last with the
/// continuation bit.
fn write_len(out: &mut Vec<u8>, v: u64, len: usize) {
    let len = len.max(minimal_len(v));
    for i in 0..len {
        let group = if 7 * i < 64 { (v >> (7 * i)) as u8 & 0x7F } else { 0 };
        out.push(if i + 1 < len { group | 0x80 } else { group });
    }
}

/// The most bytes a reader of `width`-bit patterns accepts.
fn most_bytes(width: u32) -> usize {
    if width == 32 {
        5
    } else {
        10
    }
}

/// A varint of `width` bits that must be refused (`BadVarint` at its start).
fn refused(out: &mut Vec<u8>, v: u64, width: u32, rng: &mut CaseRng) {
    let most = most_bytes(width);
    match rng.gen_range(0..3) {
        // One continuation byte too many.
        0 => {
            write_len(out, v, most);
            let last = out.len() - 1;
            out[last] |= 0x80;
            out.push(rng.gen_range(0..0x80));
        }
        // The last byte holds bits above the type.
        1 => {
            write_len(out, v, most);
            let last = out.len() - 1;
            out[last] |= if width == 32 {
                rng.gen_range(1..8u8) << 4
            } else {
                rng.gen_range(1..64u8) << 1
            };
        }
        // Nothing but continuation bytes for as long as the reader reads.
        _ => out.extend(std::iter::repeat_n(0x80 | rng.gen_range(0..0x80u8), most + 2)),
    }
}

/// How the varints of a written page look.
#[derive(Clone, Copy)]
struct Forms {
    /// Chance that a varint (value or header) is padded past its minimal length.
    pad: f64,
    /// Index of the value written in a refused form, if any.
    refuse: Option<usize>,
}

/// Pages of `patterns` in groups (`splits` values each, in order), every
/// varint in the form `forms` picks.
fn write_groups(rng: &mut CaseRng, patterns: &[u64], width: u32, splits: &[usize], forms: Forms) -> Vec<u8> {
    let mut page = Vec::new();
    let mut at = 0;
    let pad = |rng: &mut CaseRng, v: u64, most: usize| {
        if rng.gen_bool(forms.pad) {
            rng.gen_range(minimal_len(v)..=most)
        } else {
            minimal_len(v)
        }
    };
    for &count in splits {
        let mut body = Vec::new();
        for (i, &p) in patterns[at..at + count].iter().enumerate() {
            if forms.refuse == Some(at + i) {
                refused(&mut body, p, width, rng);
            } else {
                let len = pad(rng, p, most_bytes(width));
                write_len(&mut body, p, len);
            }
        }
        let len = body.len() as u64;
        let n = pad(rng, len, 5);
        write_len(&mut page, len, n);
        let n = pad(rng, count as u64, 5);
        write_len(&mut page, count as u64, n);
        page.extend(body);
        at += count;
    }
    page
}

/// `len` split into 1 to 4 non-empty groups.
fn random_splits(rng: &mut CaseRng, len: usize) -> Vec<usize> {
    if len == 0 {
        return Vec::new();
    }
    let groups = rng.gen_range(1..=4.min(len));
    let mut cuts: Vec<usize> = (1..len).collect();
    cuts.shuffle(rng);
    let mut cuts: Vec<usize> = cuts.into_iter().take(groups - 1).collect();
    cuts.sort_unstable();
    cuts.push(len);
    let mut last = 0;
    cuts.into_iter()
        .map(|c| {
            let n = c - last;
            last = c;
            n
        })
        .collect()
}

/// A valid page: mostly what the writers write (the reference encoder),
/// sometimes several groups with padded varints (what the Java reader also
/// accepts).
pub fn page(rng: &mut CaseRng, values: &Values) -> Vec<u8> {
    if rng.gen_bool(0.75) {
        return match values {
            Values::Int32(v) => zigzag::encode_i32(v),
            Values::Int64(v) => zigzag::encode_i64(v),
            _ => unreachable!("ZIGZAG types only"),
        };
    }
    let (patterns, width) = zigzag_patterns(values);
    let splits = random_splits(rng, patterns.len());
    write_groups(rng, &patterns, width, &splits, Forms { pad: 0.3, refuse: None })
}

/// Values whose signs alternate (`k, -k, k+1, ...` and the extremes), the
/// zigzag map's whole point: small magnitudes of either sign take one byte.
fn alternating(rng: &mut CaseRng, dtype: DataType, len: usize) -> Values {
    let start: i64 = rng.gen_range(0..100);
    let big = rng.gen_bool(0.3);
    let value = |i: usize| -> i64 {
        let magnitude = if big {
            i64::MAX - i as i64
        } else {
            start + (i / 2) as i64
        };
        if i.is_multiple_of(2) {
            magnitude
        } else {
            -magnitude - 1
        }
    };
    match dtype {
        DataType::Int32 => Values::Int32(
            (0..len)
                .map(|i| if big { value(i) >> 32 } else { value(i) } as i32)
                .collect(),
        ),
        _ => Values::Int64((0..len).map(value).collect()),
    }
}

/// The `varint-forms` category: alternating signs, edges or random values
/// in 1 to 4 groups with padded varints and headers, and in 30% of pages one
/// value in a refused form (too long, bits above the type).
pub fn varint_forms(rng: &mut CaseRng) -> TsInput {
    let dtype = *[DataType::Int32, DataType::Int64].choose(rng).unwrap();
    let len = rng.gen_range(1..300);
    let values = match rng.gen_range(0..3) {
        0 => alternating(rng, dtype, len),
        1 => series(rng, dtype, Shape::Edges, len),
        _ => series(rng, dtype, Shape::FullRange, len),
    };
    let (patterns, width) = zigzag_patterns(&values);
    let splits = random_splits(rng, len);
    let refuse = rng.gen_bool(0.3).then(|| rng.gen_range(0..len));
    let pad = *[0.0, 0.2, 1.0].choose(rng).unwrap();
    TsInput {
        encoding: Encoding::Zigzag,
        dtype,
        stop: StopMode::AtTerminator,
        writer: Default::default(),
        max_values: len as u32,
        page: write_groups(rng, &patterns, width, &splits, Forms { pad, refuse }),
    }
}

/// The first group's header: (byte length, count, offset of the count,
/// offset of the values).
fn header(page: &[u8]) -> Option<(u64, u64, usize, usize)> {
    let read = |at: &mut usize| {
        let mut v = 0u64;
        for i in 0..5 {
            let b = *page.get(*at)?;
            *at += 1;
            v |= u64::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let mut at = 0;
    let len = read(&mut at)?;
    let count_at = at;
    let count = read(&mut at)?;
    Some((len, count, count_at, at))
}

/// Targeted damage to a valid page's first group: its byte length beyond
/// the page or short of its values, a count of 0, above the byte length or
/// one off, a header varint too long, a value varint too long.
pub fn corrupt(rng: &mut CaseRng, input: &mut TsInput) {
    let Some((len, count, count_at, body)) = header(&input.page) else {
        return;
    };
    let width = if input.dtype == DataType::Int32 { 32 } else { 64 };
    let rest = input.page[body..].to_vec();
    let (mut new_len, mut new_count) = (len, count);
    let mut values = rest.clone();
    match rng.gen_range(0..7) {
        0 => new_len = len + rng.gen_range(1..4),
        1 => new_len = len.saturating_sub(rng.gen_range(1..4)),
        2 => new_count = 0,
        3 => new_count = len + rng.gen_range(1..1000),
        4 => new_count = if rng.gen_bool(0.5) { count + 1 } else { count - 1 },
        5 => {
            // A header varint of six bytes, or one past u32::MAX.
            let mut page = Vec::new();
            refused(&mut page, len, 32, rng);
            page.extend(&input.page[count_at..]);
            input.page = page;
            return;
        }
        _ => {
            // The first value's varint rewritten too long; the length follows.
            let first = rest.iter().position(|b| b & 0x80 == 0).map_or(rest.len(), |i| i + 1);
            let mut v = 0u64;
            for (i, b) in rest[..first].iter().enumerate() {
                v |= u64::from(b & 0x7F) << (7 * i);
            }
            values = Vec::new();
            refused(&mut values, v, width, rng);
            values.extend(&rest[first..]);
            new_len = values.len() as u64;
        }
    }
    let mut page = Vec::new();
    write_len(&mut page, new_len, 1);
    write_len(&mut page, new_count, 1);
    page.extend(values);
    input.page = page;
}

/// Counts the page cannot back: a group claiming up to 2^31 values (and as
/// many bytes) in a small page, or several groups of which a later one
/// passes `max_values`.
pub fn bad_counts(rng: &mut CaseRng, input: &mut TsInput) {
    let len = rng.gen_range(2..200);
    let values = series(rng, input.dtype, Shape::RandomWalk, len);
    let (patterns, width) = zigzag_patterns(&values);
    if rng.gen_bool(0.5) {
        let huge: u64 = rng.gen_range(1 << 16..1 << 31);
        let mut page = Vec::new();
        write_len(&mut page, huge + rng.gen_range(0..2), 1);
        write_len(&mut page, huge, 1);
        for &p in &patterns {
            write_len(&mut page, p, 1);
        }
        input.page = page;
        input.max_values = rng.gen_range(0..1000);
    } else {
        let splits = random_splits(rng, patterns.len());
        input.page = write_groups(rng, &patterns, width, &splits, Forms { pad: 0.0, refuse: None });
        // Past the first group (a later group does not fit), or anywhere
        // below the count when there is only one.
        let lowest = if splits.len() > 1 { splits[0] } else { 0 };
        input.max_values = rng.gen_range(lowest..patterns.len()) as u32;
    }
}
