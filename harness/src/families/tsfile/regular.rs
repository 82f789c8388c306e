//! What the `tsfile-regular` family generates beyond the shared categories.
//! REGULAR is for timestamps at a fixed interval with points missing; the
//! shared shapes (random walks, full-range values) are mostly series the
//! Java writer cannot write or writes lossily. So pages are the writer's
//! blocks where it can write them and a block of the same values' first
//! value and first delta where it cannot (`encode_*_readable`); `missing-points` writes realistic timestamp series with gaps,
//! `irregular` the series the writer turns into odd bitmaps and count-1 and
//! count-2 blocks, `wrapping-deltas` series whose steps wrap around the type.
//! The targeted damage rewrites one block's header fields and bitmap bits.

use crate::engine::{CaseRng, SliceDraw};

use crossdec_reference::tsfile::regular;

use super::{DataType, Encoding, StopMode, TsInput, Values};

/// Regular series with missing points ([`missing_points`]).
pub const MISSING_POINTS: (&str, f64) = ("missing-points", 1.0);
/// Series that are not regular ([`irregular`]).
pub const IRREGULAR: (&str, f64) = ("irregular", 1.0);
/// Steps that wrap around the type ([`wrapping_deltas`]).
pub const WRAPPING_DELTAS: (&str, f64) = ("wrapping-deltas", 0.5);

fn word(dtype: DataType) -> usize {
    if dtype == DataType::Int32 {
        4
    } else {
        8
    }
}

/// A page of `values`: mostly the Java writer's 128-value blocks, sometimes
/// other block sizes (the writer's constructor takes one).
pub fn page(rng: &mut CaseRng, values: &Values) -> Vec<u8> {
    let block_size = if rng.gen_bool(0.7) {
        regular::DEFAULT_BLOCK
    } else {
        *[1usize, 2, 3, 8, 64, 200, 1000].choose(rng).unwrap()
    };
    match values {
        Values::Int32(v) => regular::encode_i32_readable(v, block_size),
        Values::Int64(v) => regular::encode_i64_readable(v, block_size),
        _ => unreachable!("REGULAR types only"),
    }
}

/// How many values the reference reads from a page [`page`] wrote (a lossy
/// block may give more or fewer values than were written).
pub fn decoded_len(page: &[u8], dtype: DataType) -> usize {
    match dtype {
        DataType::Int32 => regular::decode_i32(page, usize::MAX).map_or(0, |d| d.values.len()),
        _ => regular::decode_i64(page, usize::MAX).map_or(0, |d| d.values.len()),
    }
}

fn input(dtype: DataType, page: Vec<u8>) -> TsInput {
    let max_values = decoded_len(&page, dtype) as u32;
    TsInput {
        encoding: Encoding::Regular,
        dtype,
        stop: StopMode::AtTerminator,
        writer: Default::default(),
        max_values,
        page,
    }
}

fn values_of(dtype: DataType, v: Vec<i64>) -> Values {
    match dtype {
        DataType::Int32 => Values::Int32(v.into_iter().map(|x| x as i32).collect()),
        _ => Values::Int64(v),
    }
}

/// Timestamps at a fixed interval (milliseconds, seconds, a minute in ms,
/// nanoseconds, huge or negative steps) starting anywhere (epoch ms, near
/// the type's edges), with single points or runs missing: gaps of 1, 2, 4
/// or 8 intervals (every block exact), or of any length (blocks whose
/// smallest gap does not divide the others: the writer's lossy bitmaps).
pub fn missing_points(rng: &mut CaseRng) -> TsInput {
    let dtype = *[DataType::Int32, DataType::Int64].choose(rng).unwrap();
    let len = match rng.gen_range(0..10) {
        0 => rng.gen_range(500..3000),
        1..=4 => rng.gen_range(100..500),
        _ => rng.gen_range(1..100),
    };
    let (lim, step): (i64, i64) = if dtype == DataType::Int32 {
        (i32::MAX as i64, *[1i64, 2, 10, 60, 1000, 86_400].choose(rng).unwrap())
    } else {
        (
            i64::MAX,
            *[1i64, 10, 1000, 60_000, 1_000_000_000, 1 << 40].choose(rng).unwrap(),
        )
    };
    let step = if rng.gen_bool(0.15) { -step } else { step };
    let start: i64 = match rng.gen_range(0..4) {
        0 if dtype == DataType::Int64 => 1_700_000_000_000 + rng.gen_range(0..1_000_000),
        1 => lim - rng.gen_range(0..1000) * step.abs(),
        2 => -lim + rng.gen_range(0..1000) * step.abs(),
        _ => rng.gen_range(-1_000_000..1_000_000),
    };
    let exact = rng.gen_bool(0.7);
    let missing_rate = *[0.0, 0.01, 0.1, 0.5].choose(rng).unwrap();
    let mut v = Vec::with_capacity(len);
    let mut x = start;
    for _ in 0..len {
        v.push(x);
        let gap: i64 = if !rng.gen_bool(missing_rate) {
            1
        } else if exact {
            1 << rng.gen_range(1..4)
        } else {
            rng.gen_range(2..40)
        };
        x = x.wrapping_add(step.wrapping_mul(gap));
    }
    let values = values_of(dtype, v);
    input(dtype, page(rng, &values))
}

/// Series that are not regular: random positive steps (the writer clears
/// `d / interval - 1` positions per gap, reading back other values),
/// falling ones (a negative interval: counts of 2, 1 or 0), steps of both
/// signs, repeated values with other steps (the writer throws), steps
/// around a multiple of the interval.
pub fn irregular(rng: &mut CaseRng) -> TsInput {
    let dtype = *[DataType::Int32, DataType::Int64].choose(rng).unwrap();
    let len = rng.gen_range(2..300);
    let base: i64 = *[1i64, 3, 10, 1000].choose(rng).unwrap();
    let mode = rng.gen_range(0..5);
    let mut v = Vec::with_capacity(len);
    let mut x: i64 = rng.gen_range(-10_000..10_000);
    for _ in 0..len {
        v.push(x);
        let step = match mode {
            0 => rng.gen_range(base..4 * base),
            1 => -rng.gen_range(base..4 * base),
            2 => rng.gen_range(-4 * base..4 * base),
            3 => *[0, base].choose(rng).unwrap(),
            _ => base * rng.gen_range(1..5) + rng.gen_range(-1..=1),
        };
        x = x.wrapping_add(step);
    }
    let values = values_of(dtype, v);
    input(dtype, page(rng, &values))
}

/// Steps that wrap: a regular series crossing the type's maximum, a step of
/// the type's minimum, steps near half the range, and a step so large the
/// span wraps (INT64 spans whose quotient keeps only its low 32 bits).
pub fn wrapping_deltas(rng: &mut CaseRng) -> TsInput {
    let dtype = *[DataType::Int32, DataType::Int64].choose(rng).unwrap();
    let (min, max) = if dtype == DataType::Int32 {
        (i32::MIN as i64, i32::MAX as i64)
    } else {
        (i64::MIN, i64::MAX)
    };
    let len = rng.gen_range(1..260);
    let (start, step) = match rng.gen_range(0..4) {
        0 => (max - rng.gen_range(0..len as i64), rng.gen_range(1..4)),
        1 => (rng.gen_range(-5..5), min),
        2 => (rng.gen_range(-5..5), max / 2 + rng.gen_range(-2..3)),
        _ => (min + rng.gen_range(0..10), max - rng.gen_range(0..10)),
    };
    let gaps = rng.gen_bool(0.3);
    let mut v = Vec::with_capacity(len);
    let mut x = start;
    for _ in 0..len {
        v.push(x);
        let gap = if gaps && rng.gen_bool(0.2) { 2 } else { 1 };
        x = x.wrapping_add(step.wrapping_mul(gap));
        if dtype == DataType::Int32 {
            x = x as i32 as i64;
        }
    }
    let values = values_of(dtype, v);
    input(dtype, page(rng, &values))
}

/// A block's fields: (start, bitmap start and length if missing points,
/// count offset).
struct BlockAt {
    start: usize,
    bitmap: Option<(usize, usize)>,
    count_at: usize,
}

/// The blocks of a valid page (as far as its headers can be followed).
fn blocks(page: &[u8], word: usize) -> Vec<BlockAt> {
    let be32 = |at: usize| page.get(at..at + 4).map(|b| i32::from_be_bytes(b.try_into().unwrap()));
    let mut out = Vec::new();
    let mut at = 0;
    while at < page.len() {
        let mut pos = at + 1;
        let mut bitmap = None;
        if page[at] == 1 {
            let Some(len) = be32(pos) else { break };
            bitmap = Some((pos + 4, len.max(0) as usize));
            pos += 4 + len.max(0) as usize;
        }
        out.push(BlockAt {
            start: at,
            bitmap,
            count_at: pos,
        });
        at = pos + 4 + 2 * word;
    }
    out
}

/// Targeted damage to one block of a valid page: the missing byte (another
/// value, or 0 and 1 swapped so every later field moves), the bitmap length
/// (negative, one off, past the page), the count (0, negative, one off,
/// `i32::MAX`), the bitmap's position 0, last position or padding bits.
pub fn corrupt(rng: &mut CaseRng, input: &mut TsInput) {
    let word = word(input.dtype);
    let found = blocks(&input.page, word);
    let Some(b) = found.choose(rng) else {
        return;
    };
    let page = &mut input.page;
    let put32 = |page: &mut Vec<u8>, at: usize, v: i32| {
        if at + 4 <= page.len() {
            page[at..at + 4].copy_from_slice(&v.to_be_bytes());
        }
    };
    let count = page
        .get(b.count_at..b.count_at + 4)
        .map_or(1, |c| i32::from_be_bytes(c.try_into().unwrap()));
    match (rng.gen_range(0..7), b.bitmap) {
        (0, _) => page[b.start] = rng.gen_range(2..=255),
        (1, _) => page[b.start] ^= 1,
        (2, _) => {
            let v = *[0, -1, i32::MIN, count - 1, count + 1, i32::MAX].choose(rng).unwrap();
            put32(page, b.count_at, v);
        }
        (3, Some((at, len))) => {
            let v = *[-1, i32::MIN, len as i32 - 1, len as i32 + 1, 1 << 30]
                .choose(rng)
                .unwrap();
            put32(page, at - 4, v);
        }
        (4, Some((at, len))) if len > 0 => page[at] &= 0xFE,
        (5, Some((at, len))) if len > 0 && count > 0 => {
            let last = count as usize - 1;
            if last / 8 < len {
                page[at + last / 8] &= !(1 << (last % 8));
            }
        }
        (6, Some((at, len))) if len > 0 && count > 0 && count % 8 != 0 => {
            let pad = rng.gen_range(count as usize % 8..8);
            page[at + len - 1] |= 1 << pad;
        }
        _ => {
            // A bit flip in the header or bitmap of the chosen block.
            let end = (b.count_at + 4 + 2 * word).min(page.len());
            let bit = rng.gen_range(b.start * 8..end * 8);
            page[bit / 8] ^= 0x80 >> (bit % 8);
        }
    }
}

/// Counts the page cannot back: a block claiming up to 2^31 - 1 values in
/// 13 or 21 bytes, or several blocks of which a later one passes
/// `max_values`.
pub fn bad_counts(rng: &mut CaseRng, input: &mut TsInput) {
    let word = word(input.dtype);
    if rng.gen_bool(0.5) {
        let mut page = Vec::new();
        let count = rng.gen_range(1 << 16..=i32::MAX);
        regular::write_block(&mut page, word, None, count, rng.gen(), rng.gen());
        input.page = page;
        input.max_values = rng.gen_range(0..1000);
    } else {
        let mut with_gaps = missing_points(rng);
        while with_gaps.dtype != input.dtype || blocks(&with_gaps.page, word).len() < 2 {
            with_gaps = missing_points(rng);
        }
        input.max_values = rng.gen_range(0..with_gaps.max_values);
        input.page = with_gaps.page;
    }
}
