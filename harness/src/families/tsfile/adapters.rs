//! Registry kernels driven through caller-owned output buffers that the
//! adapter keeps across steps (like a reader reusing one decoder across
//! pages), filled with a canary before every call.

use crossdec_kernels::tsfile::{
    self as kernel, camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff,
    zigzag, Done,
};

use super::{DataType, Encoding, StopMode, TsFamily, TsFault, TsInput, TsValue, Values, Writer};
use crate::engine::{Buffers, Element, Implementation, Role, CANARIES};

/// Decode into the caller buffer `values`, whose range holds `max` elements
/// (the engine fills and checks it): nothing past the values reported (past
/// `max` on an error) may change. Every TsFile kernel runs through it.
pub fn decode_values<T: Element>(
    buffers: &mut Buffers,
    max: usize,
    f: impl FnOnce(&mut [T]) -> Result<Done, kernel::DecodeError>,
) -> Result<(Vec<T>, usize), TsFault> {
    let mut out = buffers.take::<T>("values", max);
    let result = f(out.range());
    let written = match &result {
        Ok(d) => d.values,
        Err(_) => max,
    };
    let values = buffers.finish(out, written);
    result.map(|d| (values, d.consumed)).map_err(TsFault::from)
}

/// What every kernel's report passes through before the adapter reads it:
/// the decoder's call number (0 on its first call) and the kernel's
/// [`Done`]. The registry's kernels pass it unchanged; tests plant, through
/// the real adapter, a kernel that misreports its consumed bytes or goes
/// wrong only when its decoder is reused.
pub type Report = fn(call: u64, done: &mut Done);

fn unchanged(_: u64, _: &mut Done) {}

/// [`decode_values`], with the kernel's [`Done`] passed through `report`.
fn reported<T: Element>(
    buffers: &mut Buffers,
    max: usize,
    report: &dyn Fn(&mut Done),
    f: impl FnOnce(&mut [T]) -> Result<Done, kernel::DecodeError>,
) -> Result<(Vec<T>, usize), TsFault> {
    decode_values(buffers, max, |out| {
        f(out).map(|mut done| {
            report(&mut done);
            done
        })
    })
}

fn stop_of(input: &TsInput) -> gorilla::Stop {
    match input.stop {
        StopMode::AtTerminator => gorilla::Stop::AtTerminator,
        StopMode::Count(n) => gorilla::Stop::Count(n as usize),
    }
}

struct Adapter {
    encoding: Encoding,
    name: &'static str,
    report: Report,
    /// Calls so far: a decoder is one adapter, kept across a case's steps.
    calls: u64,
}

impl Adapter {
    fn decode(&mut self, input: &TsInput, b: &mut Buffers) -> Result<TsValue, TsFault> {
        let max = input.max_values as usize;
        let page = &input.page[..];
        let name = self.name;
        let (report, call) = (self.report, self.calls);
        self.calls += 1;
        let tell = |done: &mut Done| report(call, done);
        let tell = &tell;
        macro_rules! out {
            ($r:expr, $variant:ident) => {
                $r.map(|(v, consumed)| TsValue {
                    values: Values::$variant(v),
                    consumed,
                })
            };
            ($r:expr, $variant:ident, $map:expr) => {
                $r.map(|(v, consumed)| TsValue {
                    values: Values::$variant(v.into_iter().map($map).collect()),
                    consumed,
                })
            };
        }
        match (self.encoding, input.dtype) {
            (Encoding::Ts2Diff, DataType::Int32) => {
                let imp = crossdec_kernels::by_name(ts2diff::IMPLEMENTATIONS_I32, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int32)
            }
            (Encoding::Ts2Diff, DataType::Int64) => {
                let imp = crossdec_kernels::by_name(ts2diff::IMPLEMENTATIONS_I64, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int64)
            }
            (Encoding::Ts2Diff, DataType::Float) => {
                let inner = crossdec_kernels::by_name(ts2diff::IMPLEMENTATIONS_I32, name).expect("registered");
                let r = reported(b, max, tell, |o| float_scaled::decode_f32_into(page, inner, o));
                out!(r, Float, f32::to_bits)
            }
            (Encoding::Ts2Diff, DataType::Double) => {
                let inner = crossdec_kernels::by_name(ts2diff::IMPLEMENTATIONS_I64, name).expect("registered");
                let r = reported(b, max, tell, |o| float_scaled::decode_f64_into(page, inner, o));
                out!(r, Double, f64::to_bits)
            }
            (Encoding::Rle, DataType::Float) => {
                let inner = crossdec_kernels::by_name(rle::IMPLEMENTATIONS_I32, name).expect("registered");
                let r = reported(b, max, tell, |o| float_scaled::decode_f32_into(page, inner, o));
                out!(r, Float, f32::to_bits)
            }
            (Encoding::Rle, DataType::Double) => {
                let inner = crossdec_kernels::by_name(rle::IMPLEMENTATIONS_I64, name).expect("registered");
                let r = reported(b, max, tell, |o| float_scaled::decode_f64_into(page, inner, o));
                out!(r, Double, f64::to_bits)
            }
            (Encoding::Gorilla, DataType::Int32 | DataType::Float) => {
                let imp = crossdec_kernels::by_name(gorilla::IMPLEMENTATIONS_32, name).expect("registered");
                let (term, float) = if input.dtype == DataType::Float {
                    (gorilla::TERMINATOR_F32, true)
                } else {
                    (gorilla::TERMINATOR_I32, false)
                };
                let r = reported(b, max, tell, |o| imp(page, term, stop_of(input), o));
                if float {
                    out!(r, Float)
                } else {
                    out!(r, Int32, |v| v as i32)
                }
            }
            (Encoding::Gorilla, DataType::Int64 | DataType::Double) => {
                let imp = crossdec_kernels::by_name(gorilla::IMPLEMENTATIONS_64, name).expect("registered");
                let (term, float) = if input.dtype == DataType::Double {
                    (gorilla::TERMINATOR_F64, true)
                } else {
                    (gorilla::TERMINATOR_I64, false)
                };
                let r = reported(b, max, tell, |o| imp(page, term, stop_of(input), o));
                if float {
                    out!(r, Double)
                } else {
                    out!(r, Int64, |v| v as i64)
                }
            }
            (Encoding::Plain, DataType::Boolean) => {
                out!(reported(b, max, tell, |o| plain::decode_bool_into(page, o)), Boolean)
            }
            (Encoding::Plain, DataType::Int32) => {
                out!(reported(b, max, tell, |o| plain::decode_i32_into(page, o)), Int32)
            }
            (Encoding::Plain, DataType::Int64 | DataType::Double) => {
                let imp = crossdec_kernels::by_name(plain::IMPLEMENTATIONS_BE64, name).expect("registered");
                let r = reported(b, max, tell, |o| imp(page, o));
                if input.dtype == DataType::Double {
                    out!(r, Double)
                } else {
                    out!(r, Int64, |v| v as i64)
                }
            }
            (Encoding::Plain, DataType::Float) => {
                out!(reported(b, max, tell, |o| plain::decode_be32_into(page, o)), Float)
            }
            (Encoding::Plain, DataType::Text) => plain::decode_binary(page, max)
                .map(|(v, consumed)| {
                    let mut done = Done {
                        values: v.len(),
                        consumed,
                    };
                    tell(&mut done);
                    TsValue {
                        values: Values::Text(v.into_iter().map(<[u8]>::to_vec).collect()),
                        consumed: done.consumed,
                    }
                })
                .map_err(TsFault::from),
            (Encoding::Rle, DataType::Boolean) => {
                out!(reported(b, max, tell, |o| rle::decode_bool_into(page, o)), Boolean)
            }
            (Encoding::Rle, DataType::Int32) => {
                let imp = crossdec_kernels::by_name(rle::IMPLEMENTATIONS_I32, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int32)
            }
            (Encoding::Rle, DataType::Int64) => {
                let imp = crossdec_kernels::by_name(rle::IMPLEMENTATIONS_I64, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int64)
            }
            (Encoding::Zigzag, DataType::Int32) => {
                let imp = crossdec_kernels::by_name(zigzag::IMPLEMENTATIONS_I32, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int32)
            }
            (Encoding::Zigzag, DataType::Int64) => {
                let imp = crossdec_kernels::by_name(zigzag::IMPLEMENTATIONS_I64, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int64)
            }
            (Encoding::Chimp, DataType::Int32 | DataType::Float) => {
                let imp = crossdec_kernels::by_name(chimp::IMPLEMENTATIONS_32, name).expect("registered");
                let float = input.dtype == DataType::Float;
                let term = if float {
                    chimp::TERMINATOR_F32
                } else {
                    chimp::TERMINATOR_I32
                };
                let r = reported(b, max, tell, |o| imp(page, term, stop_of(input), o));
                if float {
                    out!(r, Float)
                } else {
                    out!(r, Int32, |v| v as i32)
                }
            }
            (Encoding::Chimp, DataType::Int64 | DataType::Double) => {
                let imp = crossdec_kernels::by_name(chimp::IMPLEMENTATIONS_64, name).expect("registered");
                let float = input.dtype == DataType::Double;
                let term = if float {
                    chimp::TERMINATOR_F64
                } else {
                    chimp::TERMINATOR_I64
                };
                let r = reported(b, max, tell, |o| imp(page, term, stop_of(input), o));
                if float {
                    out!(r, Double)
                } else {
                    out!(r, Int64, |v| v as i64)
                }
            }
            (Encoding::Dictionary, DataType::Text) => {
                let imp = crossdec_kernels::by_name(dictionary::IMPLEMENTATIONS, name).expect("registered");
                let mut entries = Vec::new();
                let r = reported::<u32>(b, max, tell, |keys| imp(page, &mut entries, keys));
                r.map(|(keys, consumed)| TsValue {
                    values: Values::Text(keys.iter().map(|&k| entries[k as usize].to_vec()).collect()),
                    consumed,
                })
            }
            (Encoding::Sprintz, DataType::Int32 | DataType::Float) => {
                let imp = crossdec_kernels::by_name(sprintz::IMPLEMENTATIONS_32, name).expect("registered");
                let float = input.dtype == DataType::Float;
                let writer = match input.writer {
                    Writer::Java => sprintz::Writer::Java,
                    Writer::Cpp => sprintz::Writer::Cpp,
                };
                let r = reported(b, max, tell, |o| imp(page, float, writer, o));
                if float {
                    out!(r, Float)
                } else {
                    out!(r, Int32, |v| v as i32)
                }
            }
            (Encoding::Sprintz, DataType::Int64 | DataType::Double) => {
                let imp = crossdec_kernels::by_name(sprintz::IMPLEMENTATIONS_64, name).expect("registered");
                let float = input.dtype == DataType::Double;
                let writer = match input.writer {
                    Writer::Java => sprintz::Writer::Java,
                    Writer::Cpp => sprintz::Writer::Cpp,
                };
                let r = reported(b, max, tell, |o| imp(page, float, writer, o));
                if float {
                    out!(r, Double)
                } else {
                    out!(r, Int64, |v| v as i64)
                }
            }
            (Encoding::Rlbe, DataType::Int32 | DataType::Float) => {
                let imp = crossdec_kernels::by_name(rlbe::IMPLEMENTATIONS_32, name).expect("registered");
                let float = input.dtype == DataType::Float;
                let r = reported(b, max, tell, |o| imp(page, rlbe_sum(input), o));
                if float {
                    out!(r, Float)
                } else {
                    out!(r, Int32, |v| v as i32)
                }
            }
            (Encoding::Rlbe, DataType::Int64 | DataType::Double) => {
                let imp = crossdec_kernels::by_name(rlbe::IMPLEMENTATIONS_64, name).expect("registered");
                let float = input.dtype == DataType::Double;
                let r = reported(b, max, tell, |o| imp(page, rlbe_sum(input), o));
                if float {
                    out!(r, Double)
                } else {
                    out!(r, Int64, |v| v as i64)
                }
            }
            (Encoding::Camel, DataType::Double) => {
                let imp = crossdec_kernels::by_name(camel::IMPLEMENTATIONS, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Double)
            }
            (Encoding::Regular, DataType::Int32) => {
                let imp = crossdec_kernels::by_name(regular::IMPLEMENTATIONS_I32, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int32)
            }
            (Encoding::Regular, DataType::Int64) => {
                let imp = crossdec_kernels::by_name(regular::IMPLEMENTATIONS_I64, name).expect("registered");
                out!(reported(b, max, tell, |o| imp(page, o)), Int64)
            }
            (e, t) => unreachable!("{e:?} does not decode {t:?}"),
        }
    }
}

/// RLBE's sum: integer deltas, except a Java FLOAT / DOUBLE page's float
/// differences.
fn rlbe_sum(input: &TsInput) -> rlbe::Sum {
    let float = matches!(input.dtype, DataType::Float | DataType::Double);
    if float && input.writer == Writer::Java {
        rlbe::Sum::FloatDiffs
    } else {
        rlbe::Sum::Int
    }
}

/// The kernel entries of one family: (name, available).
pub fn kernel_names(encoding: Encoding) -> Vec<(&'static str, bool)> {
    fn list<F: Copy>(r: &'static [crossdec_kernels::Implementation<F>]) -> Vec<(&'static str, bool)> {
        r.iter().map(|i| (i.name, i.is_available())).collect()
    }
    match encoding {
        Encoding::Ts2Diff => list(ts2diff::IMPLEMENTATIONS_I64),
        Encoding::Gorilla => list(gorilla::IMPLEMENTATIONS_64),
        Encoding::Plain => list(plain::IMPLEMENTATIONS_BE64),
        Encoding::Rle => list(rle::IMPLEMENTATIONS_I64),
        Encoding::Zigzag => list(zigzag::IMPLEMENTATIONS_I64),
        Encoding::Chimp => list(chimp::IMPLEMENTATIONS_64),
        Encoding::Dictionary => list(dictionary::IMPLEMENTATIONS),
        Encoding::Sprintz => list(sprintz::IMPLEMENTATIONS_64),
        Encoding::Rlbe => list(rlbe::IMPLEMENTATIONS_64),
        Encoding::Camel => list(camel::IMPLEMENTATIONS),
        Encoding::Regular => list(regular::IMPLEMENTATIONS_I64),
    }
}

/// Decode with the named kernel outside the engine (`crossdec tsfile`'s path),
/// still holding it to the buffer contract: a broken promise panics, which
/// `crossdec tsfile` reports as a disagreement of that kernel.
pub fn decode_with(encoding: Encoding, name: &'static str, input: &TsInput) -> Result<TsValue, TsFault> {
    let mut buffers = Buffers::new(CANARIES[0]);
    let outcome = Adapter {
        encoding,
        name,
        report: unchanged,
        calls: 0,
    }
    .decode(input, &mut buffers);
    match buffers.end_call().first() {
        Some(fault) => panic!("{name} broke its buffer contract: {fault}"),
        None => outcome,
    }
}

pub fn implementations(encoding: Encoding) -> Vec<Implementation<TsFamily>> {
    kernel_names(encoding)
        .into_iter()
        .map(|(name, available)| implementation_reporting(encoding, name, available, unchanged))
        .collect()
}

/// The registry kernel `name` of `encoding` through the family's adapter,
/// each call's [`Done`] passed through `report` before the adapter reads it.
/// One decoder (one adapter and its call count) serves every step
/// of a case, as one reader decodes page after page.
pub fn implementation_reporting(
    encoding: Encoding,
    name: &'static str,
    available: bool,
    report: Report,
) -> Implementation<TsFamily> {
    Implementation::new(name, Role::Kernel, available, move || {
        let mut adapter = Adapter {
            encoding,
            name,
            report,
            calls: 0,
        };
        move |input: &TsInput, buffers: &mut Buffers| adapter.decode(input, buffers)
    })
}
