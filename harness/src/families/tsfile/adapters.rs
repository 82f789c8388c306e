//! Registry kernels driven through caller-owned output buffers that the
//! adapter keeps across steps (like a reader reusing one decoder across
//! pages), filled with a canary before every call.

use std::fmt::Debug;

use crossdec_kernels::tsfile::{self as kernel, gorilla, plain, rle, ts2diff, Done};

use super::{DataType, Encoding, StopMode, TsFamily, TsFault, TsInput, TsValue, Values};
use crate::canary;
use crate::engine::{Decoded, Implementation, Role};

/// Canary-filled slack past `max_values`: a write past the end of the output
/// slice the kernel was given would have to land here (it cannot: the slice
/// bounds it), and a write past the values it reports lands in the rest.
const SLACK: usize = 9;

#[derive(Default)]
struct Buffers {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    u32s: Vec<u32>,
    u64s: Vec<u64>,
    bools: Vec<bool>,
    scratch: Vec<u32>,
}

/// Fill `buf` with `canary`, let `f` decode into its first `max` lanes, then
/// check that nothing past the values reported (past `max` on an error)
/// changed.
fn guarded<T: Copy + PartialEq + Debug>(
    buf: &mut Vec<T>,
    max: usize,
    canary_value: T,
    faults: &mut Vec<String>,
    f: impl FnOnce(&mut [T]) -> Result<Done, kernel::DecodeError>,
) -> Result<(Vec<T>, usize), TsFault> {
    if buf.len() < max + SLACK {
        buf.resize(max + SLACK, canary_value);
    }
    buf.fill(canary_value);
    let result = f(&mut buf[..max]);
    let written = match &result {
        Ok(d) => d.values,
        Err(_) => max,
    };
    faults.extend(canary::untouched_after(
        "values",
        buf,
        written,
        canary_value,
    ));
    result
        .map(|d| (buf[..d.values].to_vec(), d.consumed))
        .map_err(TsFault::from)
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
    bufs: Buffers,
}

impl Adapter {
    fn decode(&mut self, input: &TsInput, c: u8) -> Decoded<TsFamily> {
        let max = input.max_values as usize;
        let page = &input.page[..];
        let mut faults = Vec::new();
        let b = &mut self.bufs;
        let (c32, c64) = (i32::from_ne_bytes([c; 4]), canary::i64_canary(c));
        let (u32c, u64c, bc) = (c32 as u32, c64 as u64, canary::bool_canary(c));
        let name = self.name;
        let f = &mut faults;
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
        let outcome = match (self.encoding, input.dtype) {
            (Encoding::Ts2Diff, DataType::Int32) => {
                let imp = crossdec_kernels::by_name(ts2diff::IMPLEMENTATIONS_I32, name)
                    .expect("registered");
                out!(
                    guarded(&mut b.i32s, max, c32, f, |o| (imp.func)(page, o)),
                    Int32
                )
            }
            (Encoding::Ts2Diff, DataType::Int64) => {
                let imp = crossdec_kernels::by_name(ts2diff::IMPLEMENTATIONS_I64, name)
                    .expect("registered");
                out!(
                    guarded(&mut b.i64s, max, c64, f, |o| (imp.func)(page, o)),
                    Int64
                )
            }
            (Encoding::Gorilla, DataType::Int32 | DataType::Float) => {
                let imp = crossdec_kernels::by_name(gorilla::IMPLEMENTATIONS_32, name)
                    .expect("registered");
                let (term, float) = if input.dtype == DataType::Float {
                    (gorilla::TERMINATOR_F32, true)
                } else {
                    (gorilla::TERMINATOR_I32, false)
                };
                let r = guarded(&mut b.u32s, max, u32c, f, |o| {
                    (imp.func)(page, term, stop_of(input), o)
                });
                if float {
                    out!(r, Float)
                } else {
                    out!(r, Int32, |v| v as i32)
                }
            }
            (Encoding::Gorilla, DataType::Int64 | DataType::Double) => {
                let imp = crossdec_kernels::by_name(gorilla::IMPLEMENTATIONS_64, name)
                    .expect("registered");
                let (term, float) = if input.dtype == DataType::Double {
                    (gorilla::TERMINATOR_F64, true)
                } else {
                    (gorilla::TERMINATOR_I64, false)
                };
                let r = guarded(&mut b.u64s, max, u64c, f, |o| {
                    (imp.func)(page, term, stop_of(input), o)
                });
                if float {
                    out!(r, Double)
                } else {
                    out!(r, Int64, |v| v as i64)
                }
            }
            (Encoding::Plain, DataType::Boolean) => {
                out!(
                    guarded(&mut b.bools, max, bc, f, |o| plain::decode_bool_into(
                        page, o
                    )),
                    Boolean
                )
            }
            (Encoding::Plain, DataType::Int32) => {
                out!(
                    guarded(&mut b.i32s, max, c32, f, |o| plain::decode_i32_into(
                        page, o
                    )),
                    Int32
                )
            }
            (Encoding::Plain, DataType::Int64 | DataType::Double) => {
                let imp = crossdec_kernels::by_name(plain::IMPLEMENTATIONS_BE64, name)
                    .expect("registered");
                let r = guarded(&mut b.u64s, max, u64c, f, |o| (imp.func)(page, o));
                if input.dtype == DataType::Double {
                    out!(r, Double)
                } else {
                    out!(r, Int64, |v| v as i64)
                }
            }
            (Encoding::Plain, DataType::Float) => {
                out!(
                    guarded(&mut b.u32s, max, u32c, f, |o| plain::decode_be32_into(
                        page, o
                    )),
                    Float
                )
            }
            (Encoding::Plain, DataType::Text) => plain::decode_binary(page, max)
                .map(|(v, consumed)| TsValue {
                    values: Values::Text(v.into_iter().map(<[u8]>::to_vec).collect()),
                    consumed,
                })
                .map_err(TsFault::from),
            (Encoding::Rle, DataType::Boolean) => {
                let scratch = &mut b.scratch;
                out!(
                    guarded(&mut b.bools, max, bc, f, |o| rle::decode_bool_into(
                        page, scratch, o
                    )),
                    Boolean
                )
            }
            (Encoding::Rle, DataType::Int32) => {
                let imp =
                    crossdec_kernels::by_name(rle::IMPLEMENTATIONS_I32, name).expect("registered");
                out!(
                    guarded(&mut b.i32s, max, c32, f, |o| (imp.func)(page, o)),
                    Int32
                )
            }
            (Encoding::Rle, DataType::Int64) => {
                let imp =
                    crossdec_kernels::by_name(rle::IMPLEMENTATIONS_I64, name).expect("registered");
                out!(
                    guarded(&mut b.i64s, max, c64, f, |o| (imp.func)(page, o)),
                    Int64
                )
            }
            (e, t) => unreachable!("{e:?} does not decode {t:?}"),
        };
        Decoded {
            outcome,
            buffer_faults: faults,
        }
    }
}

/// The kernel entries of one family: (name, available).
pub fn kernel_names(encoding: Encoding) -> Vec<(&'static str, bool)> {
    fn list<F: Copy>(
        r: &'static [crossdec_kernels::Implementation<F>],
    ) -> Vec<(&'static str, bool)> {
        r.iter().map(|i| (i.name, (i.is_available)())).collect()
    }
    match encoding {
        Encoding::Ts2Diff => list(ts2diff::IMPLEMENTATIONS_I64),
        Encoding::Gorilla => list(gorilla::IMPLEMENTATIONS_64),
        Encoding::Plain => list(plain::IMPLEMENTATIONS_BE64),
        Encoding::Rle => list(rle::IMPLEMENTATIONS_I64),
    }
}

/// Decode with the named kernel outside the engine (the file walker's path).
pub fn decode_with(
    encoding: Encoding,
    name: &'static str,
    input: &TsInput,
) -> Result<TsValue, TsFault> {
    Adapter {
        encoding,
        name,
        bufs: Buffers::default(),
    }
    .decode(input, 0xA5)
    .outcome
}

pub fn implementations(encoding: Encoding) -> Vec<Implementation<TsFamily>> {
    kernel_names(encoding)
        .into_iter()
        .map(|(name, available)| {
            Implementation::new(name, Role::Kernel, available, move || {
                let mut adapter = Adapter {
                    encoding,
                    name,
                    bufs: Buffers::default(),
                };
                move |input: &TsInput, c: u8| adapter.decode(input, c)
            })
        })
        .collect()
}
