//! The `near-word-size` category: pages whose counts, lengths and widths
//! claim sizes at the edges of a 32-bit word (2^31 - 1, 2^31, 2^32 - 1 and
//! a few either side) over a few real bytes. Every host must refuse them
//! with the same typed error; arithmetic done in a 32-bit `usize` (a
//! length added to a position, a count times a width) wraps exactly there
//! and reads such a page as a short valid one. Random pages never claim
//! these sizes, and a real page of 2^32 values cannot be built in a test,
//! so this category is what lets the 32-bit campaign see such a wrap.

use crate::engine::CaseRng;
use crate::engine::SliceDraw;

use crossdec_reference::tsfile::{write_uvarint, write_zigzag32};

use super::{DataType, Encoding, StopMode, TsInput, Writer, MAX_VALUES_CAP};

pub const NEAR_WORD_SIZE: (&str, f64) = ("near-word-size", 0.5);

/// The encodings whose pages hold a count or length field.
pub fn applies(encoding: Encoding) -> bool {
    matches!(
        encoding,
        Encoding::Zigzag | Encoding::Ts2Diff | Encoding::Rle | Encoding::Plain
    )
}

/// A value at a 32-bit edge: 2^32 - 1 down to 2^32 - 16 (a length that
/// wraps a position of up to 16 bytes past zero), or 2^31 - 1 / 2^31 and
/// a few either side (the sign bit of an `i32`).
fn near_edge(rng: &mut CaseRng) -> u64 {
    let k = rng.gen_range(0..16u64);
    match rng.gen_range(0..3) {
        0 => u64::from(u32::MAX) - k,
        1 => (1u64 << 31) - 1 - k.min(3),
        _ => (1u64 << 31) + k.min(3),
    }
}

fn tail(rng: &mut CaseRng, out: &mut Vec<u8>) {
    let n = rng.gen_range(0..24);
    out.extend((0..n).map(|_| rng.gen::<u8>()));
}

/// One page of `encoding` with one field (or two) at a word edge.
pub fn generate(encoding: Encoding, rng: &mut CaseRng) -> TsInput {
    // The integer types: a FLOAT / DOUBLE page of TS_2DIFF or RLE starts
    // with the scaled header, not with these fields.
    let integers: Vec<DataType> = encoding
        .types()
        .iter()
        .copied()
        .filter(|t| matches!(t, DataType::Int32 | DataType::Int64))
        .collect();
    let mut dtype = *integers.choose(rng).expect("an integer type");
    let mut page = Vec::new();
    match encoding {
        Encoding::Zigzag => {
            // A group: its byte length, its value count, then varints.
            let (len, count) = match rng.gen_range(0..3) {
                0 => (near_edge(rng), rng.gen_range(1..8)),
                1 => (rng.gen_range(1..24), near_edge(rng)),
                _ => (near_edge(rng), near_edge(rng)),
            };
            write_uvarint(&mut page, len);
            write_uvarint(&mut page, count);
            tail(rng, &mut page);
        }
        Encoding::Ts2Diff => {
            // A block header: count, width (both 32-bit big-endian), then
            // the minimum delta and the first value in the type's width.
            let word = if dtype == DataType::Int32 { 4 } else { 8 };
            let (count, width) = if rng.gen_bool(0.6) {
                (near_edge(rng), rng.gen_range(0..=word as u64 * 8))
            } else {
                (rng.gen_range(1..200), near_edge(rng))
            };
            page.extend_from_slice(&(count as u32).to_be_bytes());
            page.extend_from_slice(&(width as u32).to_be_bytes());
            page.extend((0..2 * word).map(|_| rng.gen::<u8>()));
            tail(rng, &mut page);
        }
        Encoding::Rle => {
            // A package length at the edge, or a short package whose run
            // header claims an edge count (a repeat run) or group count
            // (a bit-packed run: eight values a group).
            let width = rng.gen_range(1..=32u8);
            if rng.gen_bool(0.4) {
                write_uvarint(&mut page, near_edge(rng));
                page.push(width);
                tail(rng, &mut page);
            } else {
                let mut body = vec![width];
                let bit_packed = rng.gen_bool(0.5);
                write_uvarint(&mut body, near_edge(rng) << 1 | u64::from(bit_packed));
                tail(rng, &mut body);
                write_uvarint(&mut page, body.len() as u64);
                page.extend_from_slice(&body);
            }
        }
        Encoding::Plain => {
            // A TEXT value whose length is an i32 edge.
            dtype = DataType::Text;
            let len = (1u64 << 31) - 1 - rng.gen_range(0..4u64);
            write_zigzag32(&mut page, len as i32);
            tail(rng, &mut page);
        }
        _ => unreachable!("{encoding:?} has no count field here: see applies"),
    }
    TsInput {
        encoding,
        dtype,
        stop: StopMode::AtTerminator,
        writer: Writer::Java,
        max_values: if rng.gen_bool(0.5) {
            MAX_VALUES_CAP
        } else {
            rng.gen_range(1..1000)
        },
        page,
    }
}
