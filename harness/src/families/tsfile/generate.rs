//! Case generators for the TsFile families: value series per type go through
//! the reference encoders (block boundaries hit exactly, terminators appended
//! as the writers do); malformed pages are valid ones damaged on purpose.

use crate::engine::SliceDraw;
use crossdec_reference::tsfile::{camel, gorilla, plain, rlbe, rle, sprintz, ts2diff};

use super::{DataType, Encoding, StopMode, TsInput, Values, Writer, FUZZ_MAX_VALUES, MAX_VALUES_CAP};
use crate::engine::{bytes, size_limit, Case, CaseRng};

/// Every TsFile family has the same categories.
pub const CATEGORIES: &[(&str, f64)] = &[
    ("constant", 0.5),
    ("monotone", 0.5),
    ("random-walk", 0.5),
    ("full-range", 0.5),
    ("edges", 1.0),
    ("block-boundaries", 0.5),
    ("malformed-truncation", 0.05),
    ("malformed-corrupt", 1.0),
    ("malformed-counts", 0.5),
    ("reuse", 0.25),
    ("large", 0.02),
];

/// Categories too big for a fuzz execution ([`Category::large`](crate::engine::Category::large)):
/// `large` covers the `max_values` that [`FUZZ_MAX_VALUES`] cuts off.
pub const LARGE: &[&str] = &["large"];

/// Series shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Constant,
    Monotone,
    RandomWalk,
    FullRange,
    Edges,
}

/// Lengths around every block, group and run boundary.
pub const BOUNDARY_LENGTHS: &[usize] = &[
    0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 130, 131, 257, 258, 259, 503, 504, 505, 512, 513,
];

fn random_len(rng: &mut CaseRng) -> usize {
    size_limit::apply(match rng.gen_range(0..20) {
        0 => rng.gen_range(1000..3000),
        1..=5 => rng.gen_range(100..1000),
        _ => rng.gen_range(0..100),
    })
}

const I32_EDGES: &[i32] = &[i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX];
const I64_EDGES: &[i64] = &[
    i64::MIN,
    i64::MIN + 1,
    -1,
    0,
    1,
    i64::MAX - 1,
    i64::MAX,
    i32::MIN as i64,
    i32::MAX as i64,
];
const F32_EDGES: &[u32] = &[
    0x7FC0_0000, // the GORILLA terminator, canonical NaN
    0x7FC0_0001,
    0xFFC0_0000,
    0x7F80_0001, // signalling NaN
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x8000_0000, // -0.0
    0x0000_0000,
    0x0000_0001, // smallest subnormal
    0x007F_FFFF, // largest subnormal
    0x0080_0000, // smallest normal
    0x7F7F_FFFF, // MAX
    0xFF7F_FFFF, // MIN
    0x3F80_0000, // 1.0
];
const F64_EDGES: &[u64] = &[
    0x7FF8_0000_0000_0000, // the GORILLA terminator, canonical NaN
    0x7FF8_0000_0000_0001,
    0xFFF8_0000_0000_0000,
    0x7FF0_0000_0000_0001,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x8000_0000_0000_0000,
    0,
    1,
    0x000F_FFFF_FFFF_FFFF,
    0x0010_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
    0xFFEF_FFFF_FFFF_FFFF,
    0x3FF0_0000_0000_0000,
];

/// A series of `len` values of `dtype` with the given shape.
pub fn series(rng: &mut CaseRng, dtype: DataType, shape: Shape, len: usize) -> Values {
    let ints = |rng: &mut CaseRng, bits: u32| -> Vec<i64> {
        let lim = if bits == 32 { i32::MAX as i64 } else { i64::MAX };
        let start: i64 = rng.gen_range(-1000..1000) * if rng.gen_bool(0.3) { lim / 1000 } else { 1 };
        let step_max: i64 = *[1i64, 10, 1000, 1 << 20, 1 << 40].choose(rng).unwrap();
        let step_max = step_max.min(lim);
        let mut v = start;
        (0..len)
            .map(|_| {
                let out = v;
                match shape {
                    Shape::Constant => {}
                    Shape::Monotone => v = v.wrapping_add(rng.gen_range(0..=step_max)),
                    Shape::RandomWalk => v = v.wrapping_add(rng.gen_range(-step_max..=step_max)),
                    Shape::FullRange => v = rng.gen(),
                    Shape::Edges => {
                        v = if bits == 32 {
                            *I32_EDGES.choose(rng).unwrap() as i64
                        } else {
                            *I64_EDGES.choose(rng).unwrap()
                        }
                    }
                }
                out
            })
            .collect()
    };
    match dtype {
        DataType::Int32 => Values::Int32(ints(rng, 32).into_iter().map(|v| v as i32).collect()),
        DataType::Int64 => Values::Int64(ints(rng, 64)),
        DataType::Float | DataType::Double => {
            let start: f64 = rng.gen_range(-1e6..1e6);
            let step: f64 = *[0.5f64, 0.01, 1.0, 1e-9, 1e9].choose(rng).unwrap();
            let mut x = start;
            let mut bits: Vec<u64> = Vec::with_capacity(len);
            for _ in 0..len {
                let b = match shape {
                    Shape::Constant => start.to_bits(),
                    Shape::Monotone => {
                        x += step * rng.gen_range(0.0..2.0);
                        x.to_bits()
                    }
                    Shape::RandomWalk => {
                        x += step * rng.gen_range(-1.0..1.0);
                        x.to_bits()
                    }
                    Shape::FullRange => rng.gen(),
                    Shape::Edges => {
                        if dtype == DataType::Float {
                            *F32_EDGES.choose(rng).unwrap() as u64
                        } else {
                            *F64_EDGES.choose(rng).unwrap()
                        }
                    }
                };
                bits.push(b);
            }
            if dtype == DataType::Float {
                Values::Float(
                    bits.into_iter()
                        .map(|b| match shape {
                            Shape::FullRange | Shape::Edges => b as u32,
                            _ => (f64::from_bits(b) as f32).to_bits(),
                        })
                        .collect(),
                )
            } else {
                Values::Double(bits)
            }
        }
        DataType::Boolean => {
            let first: bool = rng.gen();
            let mut cur = first;
            Values::Boolean(
                (0..len)
                    .map(|i| match shape {
                        Shape::Constant => first,
                        Shape::Monotone => i >= len / 2,
                        Shape::RandomWalk => {
                            if rng.gen_bool(0.1) {
                                cur = !cur;
                            }
                            cur
                        }
                        Shape::FullRange => rng.gen(),
                        Shape::Edges => i % 2 == 0,
                    })
                    .collect(),
            )
        }
        DataType::Text => {
            let fixed: Vec<u8> = (0..rng.gen_range(0..12)).map(|_| rng.gen()).collect();
            Values::Text(
                (0..len)
                    .map(|i| match shape {
                        Shape::Constant => fixed.clone(),
                        Shape::Monotone => format!("row-{i:06}").into_bytes(),
                        Shape::Edges => match i % 3 {
                            0 => Vec::new(),
                            1 => vec![0xFF; 64],
                            _ => vec![0; rng.gen_range(127..130)],
                        },
                        _ => (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect(),
                    })
                    .collect(),
            )
        }
    }
}

/// Encode `values` as a page of `encoding`, with the writer-side choices
/// (block size, padding, run style, stop mode) drawn from `rng`.
pub fn encode(rng: &mut CaseRng, encoding: Encoding, values: &Values) -> TsInput {
    let len = values.len();
    let mut stop = StopMode::AtTerminator;
    // Mostly the Java writer's variant, where the two differ.
    let writer = if Writer::matters(encoding, values.dtype()) && rng.gen_bool(0.3) {
        Writer::Cpp
    } else {
        Writer::Java
    };
    let top = |rng: &mut CaseRng| {
        if rng.gen_bool(0.8) {
            rlbe::TopBit::Cleared
        } else {
            rlbe::TopBit::Set
        }
    };
    let rlbe_flavour = match writer {
        Writer::Java => rlbe::Flavour::JavaFloatDiffs,
        Writer::Cpp => rlbe::Flavour::CppBits,
    };
    let page = match (encoding, values) {
        (Encoding::Ts2Diff | Encoding::Rle, v @ (Values::Float(_) | Values::Double(_))) => {
            super::float_scaled::page(rng, encoding, v)
        }
        (Encoding::Ts2Diff, Values::Int32(v)) => ts2diff::encode_i32(v, block_size(rng), rng.gen()),
        (Encoding::Ts2Diff, Values::Int64(v)) => ts2diff::encode_i64(v, block_size(rng), rng.gen()),
        (Encoding::Gorilla, v) => {
            let (page, contains_terminator) = match v {
                Values::Int32(v) => {
                    let bits: Vec<u32> = v.iter().map(|&x| x as u32).collect();
                    (
                        gorilla::encode32(&bits, Some(gorilla::TERMINATOR_I32)),
                        bits.contains(&gorilla::TERMINATOR_I32),
                    )
                }
                Values::Float(v) => (
                    gorilla::encode32(v, Some(gorilla::TERMINATOR_F32)),
                    v.contains(&gorilla::TERMINATOR_F32),
                ),
                Values::Int64(v) => {
                    let bits: Vec<u64> = v.iter().map(|&x| x as u64).collect();
                    (
                        gorilla::encode64(&bits, Some(gorilla::TERMINATOR_I64)),
                        bits.contains(&gorilla::TERMINATOR_I64),
                    )
                }
                Values::Double(v) => (
                    gorilla::encode64(v, Some(gorilla::TERMINATOR_F64)),
                    v.contains(&gorilla::TERMINATOR_F64),
                ),
                _ => unreachable!("GORILLA types only"),
            };
            // A value equal to the terminator: mostly counted (the newer
            // readers), sometimes the classic stop (which ends early).
            if (contains_terminator && rng.gen_bool(0.8)) || rng.gen_bool(0.4) {
                stop = StopMode::Count(len as u32);
            }
            page
        }
        (Encoding::Plain, Values::Boolean(v)) => plain::encode_bool(v),
        (Encoding::Plain, Values::Int32(v)) => plain::encode_i32(v),
        (Encoding::Plain, Values::Int64(v)) => plain::encode_i64(v),
        (Encoding::Plain, Values::Float(v)) => {
            plain::encode_f32(&v.iter().map(|&b| f32::from_bits(b)).collect::<Vec<_>>())
        }
        (Encoding::Plain, Values::Double(v)) => {
            plain::encode_f64(&v.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>())
        }
        (Encoding::Plain, Values::Text(v)) => plain::encode_binary(v),
        (Encoding::Zigzag, v) => super::zigzag::page(rng, v),
        (Encoding::Dictionary, v) => super::dictionary::page(rng, v),
        (Encoding::Chimp, v) => {
            let (page, contains_terminator) = super::chimp::page(v);
            // As for GORILLA: counted, or the classic stop at the terminator.
            if (contains_terminator && rng.gen_bool(0.8)) || rng.gen_bool(0.4) {
                stop = StopMode::Count(len as u32);
            }
            page
        }
        (Encoding::Rle, v) => {
            let (bits, big_endian): (Vec<u64>, bool) = match v {
                Values::Boolean(v) => (v.iter().map(|&b| b as u64).collect(), false),
                Values::Int32(v) => (v.iter().map(|&x| x as u32 as u64).collect(), false),
                Values::Int64(v) => (v.iter().map(|&x| x as u64).collect(), true),
                _ => unreachable!("RLE types only"),
            };
            rle_page(rng, &bits, big_endian)
        }
        (Encoding::Sprintz, Values::Int32(v)) => sprintz::encode_i32(v),
        (Encoding::Sprintz, Values::Int64(v)) => sprintz::encode_i64(v),
        (Encoding::Sprintz, Values::Float(v)) => sprintz::encode_f32(&floats(v)),
        (Encoding::Sprintz, Values::Double(v)) => sprintz::encode_f64(&doubles(v)),
        (Encoding::Rlbe, Values::Int32(v)) => rlbe::encode_i32(v, top(rng)),
        (Encoding::Rlbe, Values::Int64(v)) => rlbe::encode_i64(v, top(rng)),
        (Encoding::Rlbe, Values::Float(v)) => rlbe::encode_f32(&floats(v), rlbe_flavour, top(rng)),
        (Encoding::Rlbe, Values::Double(v)) => rlbe::encode_f64(&doubles(v), rlbe_flavour, top(rng)),
        (Encoding::Camel, Values::Double(v)) => camel::encode(&doubles(v)),
        (Encoding::Regular, v) => super::regular::page(rng, v),
        (e, v) => unreachable!("{e:?} does not encode {:?}", v.dtype()),
    };
    // A REGULAR page of a series that is not regular gives back another
    // number of values.
    let len = if encoding == Encoding::Regular {
        super::regular::decoded_len(&page, values.dtype())
    } else {
        len
    };
    let max_values = if rng.gen_bool(0.8) {
        len
    } else {
        len + rng.gen_range(1..20)
    };
    TsInput {
        encoding,
        dtype: values.dtype(),
        stop,
        writer,
        max_values: max_values as u32,
        page,
    }
}

fn floats(bits: &[u32]) -> Vec<f32> {
    bits.iter().map(|&b| f32::from_bits(b)).collect()
}

fn doubles(bits: &[u64]) -> Vec<f64> {
    bits.iter().map(|&b| f64::from_bits(b)).collect()
}

fn block_size(rng: &mut CaseRng) -> usize {
    if rng.gen_bool(0.7) {
        ts2diff::DEFAULT_BLOCK
    } else {
        *[1usize, 2, 7, 8, 64, 200, 1000].choose(rng).unwrap()
    }
}

/// One or more RLE packages, Java-style runs or bit-packed only.
fn rle_page(rng: &mut CaseRng, bits: &[u64], big_endian: bool) -> Vec<u8> {
    if bits.is_empty() {
        return Vec::new();
    }
    let packages = if rng.gen_bool(0.2) { rng.gen_range(2..4) } else { 1 };
    let per = bits.len().div_ceil(packages);
    let mut page = Vec::new();
    for part in bits.chunks(per) {
        let runs = if rng.gen_bool(0.5) {
            rle::plan_java(part)
        } else {
            rle::plan_packed(part)
        };
        let width = rle::bit_width_of(part);
        // Sometimes a wider bit width than needed (the writers never do, the format allows it).
        let max = if big_endian { 64 } else { 32 };
        let width = if rng.gen_bool(0.1) {
            rng.gen_range(width..=max)
        } else {
            width
        };
        page.extend(rle::encode_package(width, &runs, big_endian));
    }
    page
}

fn random_type(rng: &mut CaseRng, encoding: Encoding) -> DataType {
    *encoding.types().choose(rng).unwrap()
}

fn random_shape(rng: &mut CaseRng) -> Shape {
    *[
        Shape::Constant,
        Shape::Monotone,
        Shape::RandomWalk,
        Shape::FullRange,
        Shape::Edges,
    ]
    .choose(rng)
    .unwrap()
}

/// A valid page of a random type and shape.
pub fn valid(rng: &mut CaseRng, encoding: Encoding, len: usize) -> TsInput {
    let dtype = random_type(rng, encoding);
    let shape = random_shape(rng);
    let values = series(rng, dtype, shape, len);
    encode(rng, encoding, &values)
}

/// A damaged page: targeted field corruption or random bit flips.
fn corrupt(rng: &mut CaseRng, encoding: Encoding) -> TsInput {
    let len = rng.gen_range(1..60);
    let mut input = valid(rng, encoding, len);
    if input.page.is_empty() {
        input.page.extend((0..rng.gen_range(1..8)).map(|_| rng.gen::<u8>()));
        return input;
    }
    let targeted = rng.gen_bool(0.6);
    if encoding == Encoding::Zigzag && targeted {
        super::zigzag::corrupt(rng, &mut input);
        return input;
    }
    if encoding == Encoding::Chimp && targeted {
        super::chimp::corrupt(rng, &mut input);
        return input;
    }
    if encoding == Encoding::Dictionary && targeted {
        super::dictionary::corrupt(rng, &mut input);
        return input;
    }
    if encoding == Encoding::Regular && targeted {
        super::regular::corrupt(rng, &mut input);
        return input;
    }
    if super::float_scaled::applies(encoding, input.dtype) && targeted {
        super::float_scaled::corrupt(rng, &mut input);
        return input;
    }
    if super::block_headers::applies(encoding) && targeted {
        super::block_headers::corrupt(rng, &mut input);
        return input;
    }
    let page = &mut input.page;
    match encoding {
        Encoding::Ts2Diff if targeted && page.len() >= 8 => {
            // A block header field: writeIndex or bitWidth.
            let word = if input.dtype == DataType::Int32 { 4 } else { 8 };
            let header = 8 + 2 * word;
            let blocks: Vec<usize> = block_offsets(page, header);
            let at = *blocks.choose(rng).unwrap();
            let (field, value): (usize, i32) = match rng.gen_range(0..4) {
                0 => (4, rng.gen_range(33..=70)),
                1 => (4, -rng.gen_range(1..5)),
                2 => (
                    0,
                    *[-1, i32::MIN, i32::MAX, 1 << 16, (1 << 16) + 1, rng.gen_range(0..300)]
                        .choose(rng)
                        .unwrap(),
                ),
                _ => (4, rng.gen_range(0..=64)),
            };
            if at + field + 4 <= page.len() {
                page[at + field..at + field + 4].copy_from_slice(&value.to_be_bytes());
            }
        }
        Encoding::Rle if targeted => {
            match rng.gen_range(0..5) {
                // Bit width beyond the type.
                0 if page.len() > 1 => page[1] = rng.gen_range(33..=255),
                // A length beyond the page.
                1 => page[0] = page[0].wrapping_add(rng.gen_range(1..4)),
                // Zero groups / zero-length run / lastBitPackedNum > 8.
                2 if page.len() > 2 => page[2] = *[0x00u8, 0x01].choose(rng).unwrap(),
                3 if page.len() > 3 => page[3] = rng.gen_range(9..=255),
                _ => {
                    let at = rng.gen_range(0..page.len());
                    page[at] = rng.gen();
                }
            }
        }
        Encoding::Plain if targeted => match input.dtype {
            DataType::Boolean => {
                let at = rng.gen_range(0..page.len());
                page[at] = rng.gen_range(2..=255);
            }
            DataType::Int32 | DataType::Text => {
                // Over-long varints, or a negative text length.
                let at = rng.gen_range(0..=page.len());
                let junk: Vec<u8> = match rng.gen_range(0..3) {
                    0 => vec![0xFF; rng.gen_range(1..8)],
                    1 => vec![0xFF, 0xFF, 0xFF, 0xFF, rng.gen_range(0x10..0x80)],
                    _ => vec![rng.gen_range(0..0x40) * 2 + 1],
                };
                page.splice(at..at, junk);
            }
            _ => page.truncate(page.len() - rng.gen_range(1..=page.len().min(7))),
        },
        _ => {
            for _ in 0..rng.gen_range(1..4) {
                let bit = rng.gen_range(0..page.len() * 8);
                page[bit / 8] ^= 0x80 >> (bit % 8);
            }
        }
    }
    input
}

/// Offsets of the TS_2DIFF blocks of a valid page.
fn block_offsets(page: &[u8], header: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + header <= page.len() {
        out.push(at);
        let wi = u32::from_be_bytes(page[at..at + 4].try_into().unwrap()) as usize;
        let bw = u32::from_be_bytes(page[at + 4..at + 8].try_into().unwrap()) as usize;
        at += header + (wi * bw).div_ceil(8);
    }
    if out.is_empty() {
        out.push(0);
    }
    out
}

/// Counts that do not fit: fewer values allowed than the page holds, GORILLA
/// counts beyond the page, RLE runs claiming far more than the page backs.
fn bad_counts(rng: &mut CaseRng, encoding: Encoding) -> TsInput {
    let len = rng.gen_range(1..300);
    let mut input = valid(rng, encoding, len);
    if super::float_scaled::applies(encoding, input.dtype) && rng.gen_bool(0.5) {
        super::float_scaled::bad_counts(rng, &mut input);
        return input;
    }
    match rng.gen_range(0..3) {
        0 => input.max_values = rng.gen_range(0..len as u32),
        1 if matches!(encoding, Encoding::Gorilla | Encoding::Chimp) => {
            let n = len as u32 + rng.gen_range(1..50);
            input.stop = StopMode::Count(n);
            input.max_values = if rng.gen_bool(0.5) { n } else { n - 1 };
        }
        1 if encoding == Encoding::Rle && rng.gen_bool(0.5) => {
            // A huge RLE run in a tiny package.
            let count: u32 = rng.gen_range(1 << 20..1 << 30);
            let runs = [rle::Run::Repeat { count, value: 1 }];
            input.page = rle::encode_package(8, &runs, input.dtype == DataType::Int64);
            input.max_values = rng.gen_range(0..1000);
        }
        1 if encoding == Encoding::Rle => {
            input.page = wrapping_packed_run(rng);
            input.max_values = rng.gen_range(0..1000);
        }
        1 if encoding == Encoding::Zigzag => super::zigzag::bad_counts(rng, &mut input),
        1 if encoding == Encoding::Regular => super::regular::bad_counts(rng, &mut input),
        1 if encoding == Encoding::Dictionary => input = super::dictionary::huge_run(rng),
        1 if encoding == Encoding::Ts2Diff => {
            // writeIndex up to the cap with width 0: 24 bytes claiming 65537 values.
            let mut page = Vec::new();
            let word = if input.dtype == DataType::Int32 { 4 } else { 8 };
            page.extend_from_slice(&(rng.gen_range(60_000..=70_000u32)).to_be_bytes());
            page.extend_from_slice(&0u32.to_be_bytes());
            page.extend(std::iter::repeat_n(0u8, 2 * word));
            input.page = page;
            input.max_values = rng.gen_range(0..2000);
        }
        _ => {
            // Allowed exactly as many as the page holds, plus trailing junk.
            input.page.extend((0..rng.gen_range(1..6)).map(|_| rng.gen::<u8>()));
        }
    }
    input
}

/// An RLE package of one bit-packed run declaring 2^29 + k groups, whose
/// value count (2^32 + 8(k - 1) + last) and byte length ((2^29 + k) x width)
/// wrap to a few values and bytes in a 32-bit `usize`; the bytes that
/// wrapped length names follow, so arithmetic that wraps decodes a short
/// page where the format's count is far past any buffer.
fn wrapping_packed_run(rng: &mut CaseRng) -> Vec<u8> {
    let k: u64 = rng.gen_range(1..4);
    let width: u64 = *[8u64, 16, 24, 32].choose(rng).expect("widths");
    let mut body = vec![width as u8];
    crossdec_reference::tsfile::write_uvarint(&mut body, ((1u64 << 29) + k) << 1 | 1);
    body.push(rng.gen_range(1..=8u8));
    body.extend((0..k * width + rng.gen_range(0..4)).map(|_| rng.gen::<u8>()));
    let mut page = Vec::new();
    crossdec_reference::tsfile::write_uvarint(&mut page, body.len() as u64);
    page.extend_from_slice(&body);
    page
}

/// Counts past what fuzz mode allows ([`FUZZ_MAX_VALUES`]), up to
/// [`MAX_VALUES_CAP`]: call 0 just past the fuzz cap, call 1 at the cap of
/// parsed inputs, later calls anywhere between. Three cases: a series of
/// that many values (the caller's `max_values` a little above, equal or a
/// little below), a short page with that many values allowed, and (RLE,
/// TS_2DIFF) a page of a few bytes that declares that many values.
fn large(rng: &mut CaseRng, encoding: Encoding, index: u64) -> Vec<Case<TsInput>> {
    let past = FUZZ_MAX_VALUES as usize + 1;
    let len = match index {
        0 => past + rng.gen_range(0..64),
        1 => MAX_VALUES_CAP as usize,
        _ => rng.gen_range(past..=MAX_VALUES_CAP as usize),
    };
    let dtype = random_type(rng, encoding);
    // Shapes whose pages stay small per value (TEXT: a few bytes per row).
    let shapes: &[Shape] = if dtype == DataType::Text {
        &[Shape::Constant, Shape::Monotone]
    } else {
        &[Shape::Constant, Shape::Monotone, Shape::RandomWalk]
    };
    let shape = *shapes.choose(rng).unwrap();
    // DICTIONARY pages name few entries (and the reference encoder looks
    // each value up in a list: a million distinct ones would take hours).
    let values = if encoding == Encoding::Dictionary {
        super::dictionary::few_entries(rng, len)
    } else {
        series(rng, dtype, shape, len)
    };
    let mut many = encode(rng, encoding, &values);
    many.max_values = match rng.gen_range(0..3) {
        0 => len as u32,
        1 => (len + rng.gen_range(1..20)).min(MAX_VALUES_CAP as usize) as u32,
        _ => (len - rng.gen_range(1..20)) as u32,
    };
    let short_len = rng.gen_range(0..100);
    let mut short = valid(rng, encoding, short_len);
    short.max_values = len as u32;
    let mut out = vec![Case::one(many), Case::one(short)];
    let word = |dtype: DataType| if dtype == DataType::Int32 { 4 } else { 8 };
    // A page built field by field that holds exactly `len` values.
    let whole = |dtype, page| {
        Case::one(TsInput {
            encoding,
            dtype,
            stop: StopMode::AtTerminator,
            writer: Default::default(),
            max_values: len as u32,
            page,
        })
    };
    match encoding {
        Encoding::Rle => {
            let dtype = *[DataType::Boolean, DataType::Int32, DataType::Int64]
                .choose(rng)
                .unwrap();
            let runs = [rle::Run::Repeat {
                count: len as u32 + rng.gen_range(0..2),
                value: 1,
            }];
            let page = rle::encode_package(1, &runs, dtype == DataType::Int64);
            out.push(whole(dtype, page));
        }
        Encoding::Ts2Diff => {
            // Blocks of width 0 (every delta the minimum), 65536 values each.
            let dtype = *[DataType::Int32, DataType::Int64].choose(rng).unwrap();
            let mut page = Vec::new();
            let mut left = len;
            while left > 0 {
                let n = left.min(1 << 16);
                page.extend_from_slice(&(n as u32 - 1).to_be_bytes());
                page.extend_from_slice(&0u32.to_be_bytes());
                page.extend(std::iter::repeat_n(0u8, word(dtype)));
                page.extend(std::iter::repeat_n(rng.gen::<u8>(), word(dtype)));
                left -= n;
            }
            out.push(whole(dtype, page));
        }
        Encoding::Gorilla
        | Encoding::Plain
        | Encoding::Zigzag
        | Encoding::Chimp
        | Encoding::Dictionary
        | Encoding::Sprintz
        | Encoding::Rlbe
        | Encoding::Camel => {}
        Encoding::Regular => {
            // Blocks without missing points, up to 2^20 values each in 13 or
            // 21 bytes.
            let dtype = *[DataType::Int32, DataType::Int64].choose(rng).unwrap();
            let mut page = Vec::new();
            let mut left = len;
            while left > 0 {
                let n = left.min(rng.gen_range(1..=1 << 20));
                crossdec_reference::tsfile::regular::write_block(
                    &mut page,
                    word(dtype),
                    None,
                    n as i32,
                    rng.gen(),
                    rng.gen(),
                );
                left -= n;
            }
            out.push(whole(dtype, page));
        }
    }
    out
}

pub fn generate(encoding: Encoding, category: &str, index: u64, rng: &mut CaseRng) -> Vec<Case<TsInput>> {
    let shaped = |rng: &mut CaseRng, shape: Shape| {
        let dtype = random_type(rng, encoding);
        let len = random_len(rng);
        let values = series(rng, dtype, shape, len);
        vec![Case::one(encode(rng, encoding, &values))]
    };
    match category {
        "constant" => shaped(rng, Shape::Constant),
        "monotone" => shaped(rng, Shape::Monotone),
        "random-walk" => shaped(rng, Shape::RandomWalk),
        "full-range" => shaped(rng, Shape::FullRange),
        "edges" => shaped(rng, Shape::Edges),
        "block-boundaries" => {
            let len = BOUNDARY_LENGTHS[(index as usize) % BOUNDARY_LENGTHS.len()];
            let dtype = encoding.types()[(index as usize / BOUNDARY_LENGTHS.len()) % encoding.types().len()];
            let shape = random_shape(rng);
            let values = series(rng, dtype, shape, len);
            vec![Case::one(encode(rng, encoding, &values))]
        }
        "malformed-truncation" => {
            let len = rng.gen_range(1..40);
            bytes::truncations(&valid(rng, encoding, len))
        }
        "malformed-corrupt" => vec![Case::one(corrupt(rng, encoding))],
        "malformed-counts" => vec![Case::one(bad_counts(rng, encoding))],
        "varint-edges" => vec![Case::one(super::varint_edges::generate(encoding, rng))],
        "varint-forms" => vec![Case::one(super::zigzag::varint_forms(rng))],
        "near-word-size" => vec![Case::one(super::word_size::generate(encoding, rng))],
        "low-cardinality" => {
            let values = super::dictionary::low_cardinality(rng);
            vec![Case::one(encode(rng, encoding, &values))]
        }
        "extremes-in-blocks" => {
            let dtype = random_type(rng, encoding);
            vec![Case::one(super::sprintz_extremes::generate(rng, encoding, dtype))]
        }
        "missing-points" => vec![Case::one(super::regular::missing_points(rng))],
        "irregular" => vec![Case::one(super::regular::irregular(rng))],
        "wrapping-deltas" => vec![Case::one(super::regular::wrapping_deltas(rng))],
        "control-forms" => vec![Case::one(super::chimp::control_forms(rng))],
        "ring-periods" => {
            let values = super::chimp::ring_periods(rng);
            vec![Case::one(encode(rng, encoding, &values))]
        }
        "reuse" => {
            // Big then small then big, valid and broken mixed: buffers must
            // grow and shrink without stale values leaking through.
            let steps = (0..rng.gen_range(2..5))
                .map(|k| match rng.gen_range(0..4) {
                    0 => corrupt(rng, encoding),
                    _ => {
                        let len = if k % 2 == 0 {
                            size_limit::apply(rng.gen_range(200..1500))
                        } else {
                            rng.gen_range(0..20)
                        };
                        valid(rng, encoding, len)
                    }
                })
                .collect();
            vec![Case { steps }]
        }
        "large" => large(rng, encoding, index),
        other => panic!("unknown category {other}"),
    }
}
