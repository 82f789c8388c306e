//! What the `tsfile-chimp` family generates beyond the shared categories.
//! The writers choose each value's control from the series, so a random
//! series reaches some reader states rarely or never: a ring slot never
//! written, a `01` whose significant count is 0 (all W bits), `10` after a
//! `01`, periods longer than the ring. `control-forms` writes streams
//! control by control with every field drawn from what the reader accepts,
//! and `ring-periods` writes series that repeat with periods around the
//! ring's size through the reference encoder.

use crate::engine::CaseRng;
use crate::engine::SliceDraw;

use crossdec_reference::tsfile::{chimp, BitWriter};

use super::generate::{series, Shape};
use super::{DataType, Encoding, StopMode, TsInput, Values};

/// Streams written control by control ([`control_forms`]).
pub const CONTROL_FORMS: (&str, f64) = ("control-forms", 1.0);
/// Periodic series through the reference encoder ([`ring_periods`]).
pub const RING_PERIODS: (&str, f64) = ("ring-periods", 0.5);

/// Leading zeros of each 3-bit code.
const LEADING: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];

fn width(dtype: DataType) -> u32 {
    match dtype {
        DataType::Int32 | DataType::Float => 32,
        _ => 64,
    }
}

fn terminator(dtype: DataType) -> u64 {
    match dtype {
        DataType::Int32 => u64::from(chimp::TERMINATOR_I32),
        DataType::Int64 => chimp::TERMINATOR_I64,
        DataType::Float => u64::from(chimp::TERMINATOR_F32),
        _ => chimp::TERMINATOR_F64,
    }
}

/// The page the writers write for `values` (ended by the terminator and
/// the flush byte), and whether a value equals the terminator.
pub fn page(values: &Values) -> (Vec<u8>, bool) {
    match values {
        Values::Int32(v) => {
            let bits: Vec<u32> = v.iter().map(|&x| x as u32).collect();
            (
                chimp::encode32(&bits, Some(chimp::TERMINATOR_I32)),
                bits.contains(&chimp::TERMINATOR_I32),
            )
        }
        Values::Float(v) => (
            chimp::encode32(v, Some(chimp::TERMINATOR_F32)),
            v.contains(&chimp::TERMINATOR_F32),
        ),
        Values::Int64(v) => {
            let bits: Vec<u64> = v.iter().map(|&x| x as u64).collect();
            (
                chimp::encode64(&bits, Some(chimp::TERMINATOR_I64)),
                bits.contains(&chimp::TERMINATOR_I64),
            )
        }
        Values::Double(v) => (
            chimp::encode64(v, Some(chimp::TERMINATOR_F64)),
            v.contains(&chimp::TERMINATOR_F64),
        ),
        _ => unreachable!("CHIMP types only"),
    }
}

/// A control the reader must refuse, placed somewhere in a written stream.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// `10` before any `11` or `01` set the leading zeros.
    NoWindow,
    /// `01` whose leading zeros and significant count add up past W.
    BadWindow,
}

/// A stream of `len` values written control by control: the raw first
/// value, then random controls with every field the reader accepts (any
/// slot, any code, any significant count that fits, `10` only after a
/// `11` or `01`), optionally one refused control, and, with `end`, the
/// terminator and the flush byte.
fn written(rng: &mut CaseRng, w: u32, len: usize, refusal: Option<Refusal>, end: Option<u64>) -> Vec<u8> {
    let (slot_bits, sig_bits) = if w == 32 { (6u32, 5u32) } else { (7, 6) };
    let mask = if w == 32 { u64::from(u32::MAX) } else { u64::MAX };
    let random_bits = |rng: &mut CaseRng, n: u32| {
        if n == 64 {
            rng.gen::<u64>()
        } else {
            rng.gen::<u64>() & ((1u64 << n) - 1)
        }
    };
    let mut out = BitWriter::default();
    let first = rng.gen::<u64>() & mask;
    out.bits(first, w);
    let mut ring = [0u64; 128];
    ring[0] = first;
    let mut current = 0usize;
    let mut prev = first;
    let mut stored_lz: Option<u32> = None;
    // Where the refused control goes (before any window for NoWindow).
    let refuse_at = refusal.map(|r| match r {
        Refusal::NoWindow => 0,
        Refusal::BadWindow => rng.gen_range(0..len.max(1)),
    });
    for i in 1..len {
        if refuse_at == Some(i - 1) {
            match refusal {
                Some(Refusal::NoWindow) => out.bits(0b10, 2),
                _ => {
                    // Code 1..7 (8..24 leading zeros) with a count of 0 (W)
                    // or one that passes W.
                    let code = rng.gen_range(1..8u32);
                    let lz = LEADING[code as usize];
                    let sig = if rng.gen_bool(0.5) {
                        0
                    } else {
                        rng.gen_range(w - lz + 1..=(1 << sig_bits) - 1)
                    };
                    out.bits(0b01, 2);
                    out.bits(rng.gen_range(0..1u64 << slot_bits), slot_bits);
                    out.bits(u64::from(code), 3);
                    out.bits(u64::from(sig), sig_bits);
                }
            }
            // Junk after it: the readers stop at the refused control.
            out.bits(rng.gen(), 64);
            return out.bytes;
        }
        let control = loop {
            let c = rng.gen_range(0..4u8);
            if c != 0b10 || stored_lz.is_some() {
                break c;
            }
        };
        let value = match control {
            0b00 => {
                let slot = rng.gen_range(0..1usize << slot_bits);
                out.bits(0b00, 2);
                out.bits(slot as u64, slot_bits);
                ring[slot]
            }
            0b01 => {
                let slot = rng.gen_range(0..1usize << slot_bits);
                let code = rng.gen_range(0..8usize);
                let lz = LEADING[code];
                // 0 stands for W, which only fits with no leading zeros.
                let sig = if lz == 0 && rng.gen_bool(0.3) {
                    0
                } else {
                    rng.gen_range(1..=(w - lz).min((1 << sig_bits) - 1))
                };
                let real = if sig == 0 { w } else { sig };
                let bits = random_bits(rng, real);
                out.bits(0b01, 2);
                out.bits(slot as u64, slot_bits);
                out.bits(code as u64, 3);
                out.bits(u64::from(sig), sig_bits);
                out.bits(bits, real);
                stored_lz = Some(lz);
                ring[slot] ^ (bits << (w - lz - real))
            }
            0b10 => {
                let sig = w - stored_lz.expect("10 only after a window");
                let bits = random_bits(rng, sig);
                out.bits(0b10, 2);
                out.bits(bits, sig);
                prev ^ bits
            }
            _ => {
                let code = rng.gen_range(0..8usize);
                let sig = w - LEADING[code];
                let bits = random_bits(rng, sig);
                out.bits(0b11, 2);
                out.bits(code as u64, 3);
                out.bits(bits, sig);
                stored_lz = Some(LEADING[code]);
                prev ^ bits
            }
        };
        current = (current + 1) % (1 << slot_bits);
        ring[current] = value;
        prev = value;
    }
    if let Some(t) = end {
        // The terminator as `11` with no leading zeros, then the flush byte.
        out.bits(0b11, 2);
        out.bits(0, 3);
        out.bits(prev ^ t, w);
        out.bytes.push(0);
    }
    out.bytes
}

/// The `control-forms` category: a stream of random legal controls, read
/// by count (or, with the terminator written after it, to the terminator);
/// in 30% of them one refused control.
pub fn control_forms(rng: &mut CaseRng) -> TsInput {
    let dtype = *[DataType::Int32, DataType::Int64, DataType::Float, DataType::Double]
        .choose(rng)
        .unwrap();
    let len = rng.gen_range(1..300);
    let refusal = rng
        .gen_bool(0.3)
        .then(|| *[Refusal::NoWindow, Refusal::BadWindow].choose(rng).unwrap());
    let counted = rng.gen_bool(0.5);
    let end = (!counted).then(|| terminator(dtype));
    let page = written(rng, width(dtype), len, refusal, end);
    TsInput {
        encoding: Encoding::Chimp,
        dtype,
        stop: if counted {
            StopMode::Count(len as u32)
        } else {
            StopMode::AtTerminator
        },
        writer: Default::default(),
        max_values: len as u32 + rng.gen_range(0..3),
        page,
    }
}

/// The `ring-periods` category: a random block of values repeated with a
/// period around the ring's size (1..=3, 60..=70, 125..=131, 250..=260), with
/// a few values changed, so the writer's ring references (`00`, `01`) reach
/// every slot and fall out of the ring.
pub fn ring_periods(rng: &mut CaseRng) -> Values {
    let dtype = *[DataType::Int32, DataType::Int64, DataType::Float, DataType::Double]
        .choose(rng)
        .unwrap();
    let period = *[
        rng.gen_range(1..=3usize),
        rng.gen_range(60..=70),
        rng.gen_range(125..=131),
        rng.gen_range(250..=260),
    ]
    .choose(rng)
    .unwrap();
    let len = rng.gen_range(period..period * 4 + 10);
    let shape = *[Shape::FullRange, Shape::RandomWalk, Shape::Edges].choose(rng).unwrap();
    let block = series(rng, dtype, shape, period);
    // Mostly the block again; now and then a value changed (MAX: changed).
    let indices: Vec<usize> = (0..len)
        .map(|i| {
            if i >= period && rng.gen_bool(0.05) {
                usize::MAX
            } else {
                i % period
            }
        })
        .collect();
    macro_rules! repeat {
        ($v:expr, $variant:ident, $flip:expr) => {
            Values::$variant(
                indices
                    .iter()
                    .enumerate()
                    .map(|(i, &k)| {
                        if k == usize::MAX {
                            $flip($v[i % period])
                        } else {
                            $v[k]
                        }
                    })
                    .collect(),
            )
        };
    }
    match &block {
        Values::Int32(v) => repeat!(v, Int32, |x: i32| x ^ 0x10),
        Values::Int64(v) => repeat!(v, Int64, |x: i64| x ^ 0x1000),
        Values::Float(v) => repeat!(v, Float, |x: u32| x ^ 0x10),
        Values::Double(v) => repeat!(v, Double, |x: u64| x ^ 0x1000),
        _ => unreachable!("CHIMP types only"),
    }
}

/// Targeted damage: the stream after the first value rewritten with a
/// refused control (`10` before any window, a `01` past W), or a written
/// stream whose flush byte is missing.
pub fn corrupt(rng: &mut CaseRng, input: &mut TsInput) {
    let w = width(input.dtype);
    let len = rng.gen_range(1..40);
    match rng.gen_range(0..3) {
        0 => input.page = written(rng, w, len, Some(Refusal::NoWindow), None),
        1 => input.page = written(rng, w, len, Some(Refusal::BadWindow), None),
        _ => {
            let mut page = written(rng, w, len, None, Some(terminator(input.dtype)));
            page.pop();
            input.page = page;
            input.stop = StopMode::AtTerminator;
        }
    }
    input.max_values = input.max_values.max(len as u32);
}
