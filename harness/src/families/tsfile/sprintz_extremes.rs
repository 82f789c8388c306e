//! `extremes-in-blocks` (SPRINTZ): a slow walk with the type's extremes
//! (±inf, NaNs with and without payloads, MAX, MIN, subnormals, -0.0; the
//! integer types' MIN / MAX / 0) put before a block (as its raw first
//! value), inside it, as its last value and in the tail, and the steps whose
//! FIRE error is exactly -2^30 (-2^62), the mapped error `MIN` that the Java
//! and C++ readers read differently. Either writer's reading (the engine
//! draws it with the page). Where a reading is wrong for both decoders alike
//! (a misreading the reference and the kernels share), only the official
//! library's files catch it: `harness/tests/tsfile_oracle.rs`.

use super::generate::{self, Shape};
use super::{DataType, Encoding, TsInput, Values};
use crate::engine::{CaseRng, SliceDraw};

pub const EXTREMES_IN_BLOCKS: (&str, f64) = ("extremes-in-blocks", 1.0);

const F32_EXTREMES: &[u32] = &[
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // canonical NaN
    0x7FC0_0100, // NaN with a payload
    0xFF80_0001, // negative signalling NaN
    0x7F7F_FFFF, // MAX
    0xFF7F_FFFF, // MIN
    0x0000_0001, // smallest subnormal
    0x807F_FFFF, // negative subnormal
    0x8000_0000, // -0.0
    0x0000_0000,
];
const F64_EXTREMES: &[u64] = &[
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0000,
    0x7FF8_0020_0000_0000,
    0xFFF0_0000_0000_0001,
    0x7FEF_FFFF_FFFF_FFFF,
    0xFFEF_FFFF_FFFF_FFFF,
    1,
    0x800F_FFFF_FFFF_FFFF,
    0x8000_0000_0000_0000,
    0,
];

/// One value of width 32 or 64 as a bit pattern (the integer types as
/// two's complement).
fn extreme(rng: &mut CaseRng, dtype: DataType) -> u64 {
    match dtype {
        DataType::Float => *F32_EXTREMES.choose(rng).unwrap() as u64,
        DataType::Double => *F64_EXTREMES.choose(rng).unwrap(),
        DataType::Int32 => *[i32::MIN, i32::MAX, 0, -1, i32::MIN + 1].choose(rng).unwrap() as u32 as u64,
        _ => *[i64::MIN, i64::MAX, 0, -1, i64::MIN + 1].choose(rng).unwrap() as u64,
    }
}

/// A page of `dtype` (INT32, INT64, FLOAT, DOUBLE) for `encoding`.
pub fn generate(rng: &mut CaseRng, encoding: Encoding, dtype: DataType) -> TsInput {
    let blocks = rng.gen_range(1..8usize);
    let tail = rng.gen_range(0..9usize);
    let len = blocks * 9 + tail;
    let wide = matches!(dtype, DataType::Int64 | DataType::Double);
    let mut bits: Vec<u64> = match generate::series(rng, dtype, Shape::RandomWalk, len) {
        Values::Int32(v) => v.into_iter().map(|x| x as u32 as u64).collect(),
        Values::Int64(v) => v.into_iter().map(|x| x as u64).collect(),
        Values::Float(v) => v.into_iter().map(u64::from).collect(),
        Values::Double(v) => v,
        other => unreachable!("SPRINTZ types only, not {:?}", other.dtype()),
    };
    for _ in 0..rng.gen_range(1..6) {
        // Before a block, its second value, inside, its last, or the tail.
        let block = rng.gen_range(0..blocks);
        let at = match rng.gen_range(0..5) {
            0 => block * 9,
            1 => block * 9 + 1,
            2 => block * 9 + rng.gen_range(2..8),
            3 => block * 9 + 8,
            _ => blocks * 9 + rng.gen_range(0..tail.max(1)),
        }
        .min(len - 1);
        bits[at] = extreme(rng, dtype);
        if rng.gen_bool(0.3) && at + 1 < len {
            // An error of exactly -2^30 (-2^62) right after it: the first
            // error after a block's first value is the value's difference.
            let step = if wide { 1u64 << 62 } else { 1 << 30 };
            let next = bits[at].wrapping_sub(step);
            bits[at + 1] = if wide { next } else { next & 0xFFFF_FFFF };
        }
    }
    let values = match dtype {
        DataType::Int32 => Values::Int32(bits.into_iter().map(|b| b as u32 as i32).collect()),
        DataType::Int64 => Values::Int64(bits.into_iter().map(|b| b as i64).collect()),
        DataType::Float => Values::Float(bits.into_iter().map(|b| b as u32).collect()),
        _ => Values::Double(bits),
    };
    generate::encode(rng, encoding, &values)
}
