//! Page decoders: the reference decoders (every encoding the official
//! writers write), crossdec's kernels (where a kernel exists), or both with
//! the kernel first ([`Fastest`]). [`PageDecoder`] is the seam: a caller can
//! bring its own, as `crossdec tsfile` does to run every registry kernel.

use std::fmt;

use crossdec_kernels::tsfile as kernel;
use crossdec_reference::tsfile as reference;

use crate::types::{DataType, Encoding, Physical};

/// A column's decoded values (the non-null ones, in row order).
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Boolean(Vec<bool>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    Binary(Vec<Vec<u8>>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Boolean(v) => v.len(),
            Values::Int32(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Double(v) => v.len(),
            Values::Binary(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Equal cell for cell, floats by their bits (so NaN payloads count).
    pub fn same_bits(&self, other: &Values) -> bool {
        match (self, other) {
            (Values::Float(a), Values::Float(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (Values::Double(a), Values::Double(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            _ => self == other,
        }
    }
}

/// How many values a page must decode to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// Exactly this many (a value column: the rows, or the non-null rows).
    Exactly(usize),
    /// As many as the page holds, at most this many (a time column, whose
    /// page says its own count).
    AtMost(usize),
}

impl Count {
    fn bound(self) -> usize {
        match self {
            Count::Exactly(n) | Count::AtMost(n) => n,
        }
    }
}

/// One page column to decode.
#[derive(Debug, Clone, Copy)]
pub struct EncodedPage<'a> {
    pub encoding: Encoding,
    pub data_type: DataType,
    pub bytes: &'a [u8],
    pub count: Count,
}

/// Why a decoder refused a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageFault {
    /// The reference decoder's error (positions are offsets in the page's
    /// column bytes).
    Reference(reference::DecodeError),
    /// A kernel's error.
    Kernel(kernel::DecodeError),
    /// This decoder has nothing for the pair.
    NoDecoder { encoding: Encoding, data_type: DataType },
    /// The page held another number of values than its rows say.
    WrongCount { expected: usize, decoded: usize },
    /// The values ended before the column's bytes did.
    Trailing { consumed: usize, len: usize },
}

impl fmt::Display for PageFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PageFault::Reference(e) => write!(f, "reference decoder: {e}"),
            PageFault::Kernel(e) => write!(f, "kernel: {e}"),
            PageFault::NoDecoder { encoding, data_type } => write!(f, "no decoder for {encoding} {data_type}"),
            PageFault::WrongCount { expected, decoded } => {
                write!(f, "{decoded} values decoded where the page has {expected} rows")
            }
            PageFault::Trailing { consumed, len } => {
                write!(f, "values end at byte {consumed} of the column's {len} bytes")
            }
        }
    }
}

/// Decodes one page column.
pub trait PageDecoder {
    /// A name for reports.
    fn name(&self) -> String;
    /// Decode `page`; the result is checked against `page.count` by the
    /// caller ([`check`]).
    fn decode(&mut self, page: &EncodedPage<'_>) -> Result<Decoded, PageFault>;
}

/// Values and the column bytes they took.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub values: Values,
    pub consumed: usize,
}

/// Hold a decoder's result to the page: the exact count where it is known;
/// every byte consumed, except by GORILLA and CHIMP decoding a counted page
/// (the terminator and flush byte follow the last value's bits).
pub fn check(page: &EncodedPage<'_>, decoded: Decoded) -> Result<Values, PageFault> {
    if let Count::Exactly(n) = page.count {
        if decoded.values.len() != n {
            return Err(PageFault::WrongCount {
                expected: n,
                decoded: decoded.values.len(),
            });
        }
    }
    let counted_bits =
        matches!(page.encoding, Encoding::Gorilla | Encoding::Chimp) && matches!(page.count, Count::Exactly(_));
    if !counted_bits && decoded.consumed != page.bytes.len() {
        return Err(PageFault::Trailing {
            consumed: decoded.consumed,
            len: page.bytes.len(),
        });
    }
    Ok(decoded.values)
}

/// Which official writer wrote the file. Two encodings differ between them
/// and nothing in a page says which (`docs/reference/tsfile-encodings.md`): RLBE on
/// FLOAT / DOUBLE (Java encodes float differences, C++ the values' bits)
/// and SPRINTZ on INT64 / DOUBLE (the predictor's product in 64 or 128 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Writer {
    /// The C++ library (the PyPI `tsfile` package, the C and Python APIs).
    #[default]
    Cpp,
    /// The Java library (IoTDB, the Java API).
    Java,
}

/// The reference decoders, for every encoding and type the official writers
/// write.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference {
    pub writer: Writer,
}

impl Reference {
    fn rlbe_flavour(&self) -> reference::rlbe::Flavour {
        match self.writer {
            Writer::Cpp => reference::rlbe::Flavour::CppBits,
            Writer::Java => reference::rlbe::Flavour::JavaFloatDiffs,
        }
    }
    fn sprintz_writer(&self) -> reference::sprintz::Writer {
        match self.writer {
            Writer::Cpp => reference::sprintz::Writer::Cpp,
            Writer::Java => reference::sprintz::Writer::Java,
        }
    }
}

fn ok<T>(
    r: Result<reference::Decoded<T>, reference::DecodeError>,
    wrap: fn(Vec<T>) -> Values,
) -> Result<Decoded, PageFault> {
    r.map(|d| Decoded {
        values: wrap(d.values),
        consumed: d.consumed,
    })
    .map_err(PageFault::Reference)
}

fn gorilla_stop(count: Count) -> reference::gorilla::Stop {
    match count {
        Count::Exactly(n) => reference::gorilla::Stop::Count(n),
        Count::AtMost(_) => reference::gorilla::Stop::AtTerminator,
    }
}

impl PageDecoder for Reference {
    fn name(&self) -> String {
        "reference".into()
    }

    fn decode(&mut self, page: &EncodedPage<'_>) -> Result<Decoded, PageFault> {
        use reference::{
            camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, zigzag,
        };
        let (p, max) = (page.bytes, page.count.bound());
        let none = PageFault::NoDecoder {
            encoding: page.encoding,
            data_type: page.data_type,
        };
        let physical = page.data_type.physical().ok_or(none.clone())?;
        let stop = gorilla_stop(page.count);
        let bits32 = |v: Vec<u32>| Values::Int32(v.into_iter().map(|x| x as i32).collect());
        let bits64 = |v: Vec<u64>| Values::Int64(v.into_iter().map(|x| x as i64).collect());
        let f32s = |v: Vec<u32>| Values::Float(v.into_iter().map(f32::from_bits).collect());
        let f64s = |v: Vec<u64>| Values::Double(v.into_iter().map(f64::from_bits).collect());
        use Encoding as E;
        use Physical as P;
        match (page.encoding, physical) {
            (E::Plain, P::Boolean) => ok(plain::decode_bool(p, max), Values::Boolean),
            (E::Plain, P::Int32) => ok(plain::decode_i32(p, max), Values::Int32),
            (E::Plain, P::Int64) => ok(plain::decode_i64(p, max), Values::Int64),
            (E::Plain, P::Float) => ok(plain::decode_f32(p, max), Values::Float),
            (E::Plain, P::Double) => ok(plain::decode_f64(p, max), Values::Double),
            (E::Plain, P::Binary) => ok(plain::decode_binary(p, max), Values::Binary),
            (E::Dictionary, P::Binary) => ok(dictionary::decode(p, max), Values::Binary),
            (E::Rle, P::Boolean) => ok(rle::decode_bool(p, max), Values::Boolean),
            (E::Rle, P::Int32) => ok(rle::decode_i32(p, max), Values::Int32),
            (E::Rle, P::Int64) => ok(rle::decode_i64(p, max), Values::Int64),
            (E::Rle, P::Float) => ok(
                float_scaled::decode_f32(p, float_scaled::Inner::Rle, max),
                Values::Float,
            ),
            (E::Rle, P::Double) => ok(
                float_scaled::decode_f64(p, float_scaled::Inner::Rle, max),
                Values::Double,
            ),
            (E::Ts2Diff, P::Int32) => ok(ts2diff::decode_i32(p, max), Values::Int32),
            (E::Ts2Diff, P::Int64) => ok(ts2diff::decode_i64(p, max), Values::Int64),
            (E::Ts2Diff, P::Float) => ok(
                float_scaled::decode_f32(p, float_scaled::Inner::Ts2Diff, max),
                Values::Float,
            ),
            (E::Ts2Diff, P::Double) => ok(
                float_scaled::decode_f64(p, float_scaled::Inner::Ts2Diff, max),
                Values::Double,
            ),
            (E::Gorilla, P::Int32) => ok(gorilla::decode32(p, i32::MIN as u32, stop, max), bits32),
            (E::Gorilla, P::Int64) => ok(gorilla::decode64(p, i64::MIN as u64, stop, max), bits64),
            (E::Gorilla, P::Float) => ok(gorilla::decode32(p, 0x7FC0_0000, stop, max), f32s),
            (E::Gorilla, P::Double) => ok(gorilla::decode64(p, 0x7FF8_0000_0000_0000, stop, max), f64s),
            (E::Zigzag, P::Int32) => ok(zigzag::decode_i32(p, max), Values::Int32),
            (E::Zigzag, P::Int64) => ok(zigzag::decode_i64(p, max), Values::Int64),
            (E::Regular, P::Int32) => ok(regular::decode_i32(p, max), Values::Int32),
            (E::Regular, P::Int64) => ok(regular::decode_i64(p, max), Values::Int64),
            (E::Chimp, P::Int32) => ok(chimp::decode32(p, i32::MIN as u32, stop, max), bits32),
            (E::Chimp, P::Int64) => ok(chimp::decode64(p, i64::MIN as u64, stop, max), bits64),
            (E::Chimp, P::Float) => ok(chimp::decode32(p, 0x7FC0_0000, stop, max), f32s),
            (E::Chimp, P::Double) => ok(chimp::decode64(p, 0x7FF8_0000_0000_0000, stop, max), f64s),
            (E::Sprintz, P::Int32) => ok(sprintz::decode_i32_from(p, self.sprintz_writer(), max), Values::Int32),
            (E::Sprintz, P::Int64) => ok(sprintz::decode_i64_from(p, self.sprintz_writer(), max), Values::Int64),
            (E::Sprintz, P::Float) => ok(sprintz::decode_f32_from(p, self.sprintz_writer(), max), Values::Float),
            (E::Sprintz, P::Double) => ok(sprintz::decode_f64_from(p, self.sprintz_writer(), max), Values::Double),
            (E::Rlbe, P::Int32) => ok(rlbe::decode_i32(p, max), Values::Int32),
            (E::Rlbe, P::Int64) => ok(rlbe::decode_i64(p, max), Values::Int64),
            (E::Rlbe, P::Float) => ok(rlbe::decode_f32(p, self.rlbe_flavour(), max), Values::Float),
            (E::Rlbe, P::Double) => ok(rlbe::decode_f64(p, self.rlbe_flavour(), max), Values::Double),
            (E::Camel, P::Double) => ok(camel::decode(p, max), Values::Double),
            _ => Err(none),
        }
    }
}

/// crossdec's kernels (each registry's best entry for this CPU), for every
/// encoding and type the official writers write. Anything else is
/// [`PageFault::NoDecoder`].
#[derive(Debug, Default)]
pub struct Kernels {
    /// Which writer's layout to assume where the writers differ (SPRINTZ
    /// INT64 / DOUBLE, RLBE FLOAT / DOUBLE), as [`Reference::writer`].
    pub writer: Writer,
}

/// Run a kernel into a buffer of `n` values and keep what it wrote.
fn into<T: Default + Clone>(
    n: usize,
    f: impl FnOnce(&mut [T]) -> Result<kernel::Done, kernel::DecodeError>,
) -> Result<(Vec<T>, usize), PageFault> {
    let mut out = vec![T::default(); n];
    let done = f(&mut out).map_err(PageFault::Kernel)?;
    out.truncate(done.values);
    Ok((out, done.consumed))
}

impl PageDecoder for Kernels {
    fn name(&self) -> String {
        "kernels".into()
    }

    fn decode(&mut self, page: &EncodedPage<'_>) -> Result<Decoded, PageFault> {
        let none = PageFault::NoDecoder {
            encoding: page.encoding,
            data_type: page.data_type,
        };
        let physical = page.data_type.physical().ok_or(none.clone())?;
        let p = page.bytes;
        // The buffer: the rows where they are known; for a time column, what
        // the page itself can hold, so no buffer is sized by a count the
        // page does not back: TS_2DIFF's block headers, PLAIN's length,
        // ZIGZAG's bytes (one a value at least), GORILLA's and CHIMP's bits
        // (one a value after the first at least). RLE, SPRINTZ and RLBE runs
        // and REGULAR blocks hold any number of values in a few bytes: their
        // buffer starts at the bits' bound and doubles while the kernel runs
        // out of room, up to the page's most values.
        let bits = p.len().saturating_mul(8).saturating_add(1);
        let (mut n, grows) = match page.count {
            Count::Exactly(n) => (n, false),
            Count::AtMost(max) => match (page.encoding, physical) {
                (Encoding::Ts2Diff, Physical::Int64) => {
                    (kernel::ts2diff::count::<i64>(p, max).map_err(PageFault::Kernel)?, false)
                }
                (Encoding::Plain, Physical::Int64) => ((p.len() / 8).min(max), false),
                (Encoding::Zigzag, Physical::Int64) => (p.len().min(max), false),
                (Encoding::Gorilla | Encoding::Chimp, Physical::Int64) => (bits.min(max), false),
                (Encoding::Rle | Encoding::Sprintz | Encoding::Rlbe | Encoding::Regular, Physical::Int64) => {
                    (bits.min(max), true)
                }
                _ => return Err(none),
            },
        };
        loop {
            match self.decode_into(page, physical, n) {
                Err(PageFault::Kernel(kernel::DecodeError::TooManyValues { .. }))
                    if grows && n < page.count.bound() =>
                {
                    n = n.saturating_mul(2).min(page.count.bound());
                }
                done => return done,
            }
        }
    }
}

impl Kernels {
    /// Decode `page` into a buffer of `n` values.
    fn decode_into(&mut self, page: &EncodedPage<'_>, physical: Physical, n: usize) -> Result<Decoded, PageFault> {
        use kernel::{
            camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, zigzag,
        };
        let p = page.bytes;
        let (sprintz_writer, rlbe_flavour) = match self.writer {
            Writer::Cpp => (sprintz::Writer::Cpp, rlbe::Flavour::CppBits),
            Writer::Java => (sprintz::Writer::Java, rlbe::Flavour::JavaFloatDiffs),
        };
        let none = PageFault::NoDecoder {
            encoding: page.encoding,
            data_type: page.data_type,
        };
        let stop = match page.count {
            Count::Exactly(n) => gorilla::Stop::Count(n),
            Count::AtMost(_) => gorilla::Stop::AtTerminator,
        };
        let wrap = |r: Result<(Values, usize), PageFault>| r.map(|(values, consumed)| Decoded { values, consumed });
        use Encoding as E;
        use Physical as P;
        wrap(match (page.encoding, physical) {
            (E::Ts2Diff, P::Int32) => into(n, |o| ts2diff::decode_i32_into(p, o)).map(|(v, c)| (Values::Int32(v), c)),
            (E::Ts2Diff, P::Int64) => into(n, |o| ts2diff::decode_i64_into(p, o)).map(|(v, c)| (Values::Int64(v), c)),
            (E::Rle, P::Int32) => into(n, |o| rle::decode_i32_into(p, o)).map(|(v, c)| (Values::Int32(v), c)),
            (E::Rle, P::Int64) => into(n, |o| rle::decode_i64_into(p, o)).map(|(v, c)| (Values::Int64(v), c)),
            (E::Rle, P::Boolean) => into(n, |o| rle::decode_bool_into(p, o)).map(|(v, c)| (Values::Boolean(v), c)),
            (E::Gorilla, P::Int32) => {
                into(n, |o| gorilla::decode_i32_into(p, stop, o)).map(|(v, c)| (Values::Int32(v), c))
            }
            (E::Gorilla, P::Int64) => {
                into(n, |o| gorilla::decode_i64_into(p, stop, o)).map(|(v, c)| (Values::Int64(v), c))
            }
            (E::Gorilla, P::Float) => {
                into(n, |o| gorilla::decode_f32_into(p, stop, o)).map(|(v, c)| (Values::Float(v), c))
            }
            (E::Gorilla, P::Double) => {
                into(n, |o| gorilla::decode_f64_into(p, stop, o)).map(|(v, c)| (Values::Double(v), c))
            }
            (E::Plain, P::Boolean) => into(n, |o| plain::decode_bool_into(p, o)).map(|(v, c)| (Values::Boolean(v), c)),
            (E::Plain, P::Int32) => into(n, |o| plain::decode_i32_into(p, o)).map(|(v, c)| (Values::Int32(v), c)),
            (E::Plain, P::Int64) => {
                into(n, |o| plain::decode_be64_into::<i64>(p, o)).map(|(v, c)| (Values::Int64(v), c))
            }
            (E::Plain, P::Float) => {
                into(n, |o| plain::decode_be32_into::<f32>(p, o)).map(|(v, c)| (Values::Float(v), c))
            }
            (E::Plain, P::Double) => {
                into(n, |o| plain::decode_be64_into::<f64>(p, o)).map(|(v, c)| (Values::Double(v), c))
            }
            (E::Plain, P::Binary) => plain::decode_binary(p, n)
                .map(|(v, c)| (Values::Binary(v.into_iter().map(<[u8]>::to_vec).collect()), c))
                .map_err(PageFault::Kernel),
            (E::Ts2Diff, P::Float) => {
                into(n, |o| float_scaled::ts2diff_f32_into(p, o)).map(|(v, c)| (Values::Float(v), c))
            }
            (E::Ts2Diff, P::Double) => {
                into(n, |o| float_scaled::ts2diff_f64_into(p, o)).map(|(v, c)| (Values::Double(v), c))
            }
            (E::Rle, P::Float) => into(n, |o| float_scaled::rle_f32_into(p, o)).map(|(v, c)| (Values::Float(v), c)),
            (E::Rle, P::Double) => into(n, |o| float_scaled::rle_f64_into(p, o)).map(|(v, c)| (Values::Double(v), c)),
            (E::Zigzag, P::Int32) => into(n, |o| zigzag::decode_i32_into(p, o)).map(|(v, c)| (Values::Int32(v), c)),
            (E::Zigzag, P::Int64) => into(n, |o| zigzag::decode_i64_into(p, o)).map(|(v, c)| (Values::Int64(v), c)),
            (E::Regular, P::Int32) => into(n, |o| regular::decode_i32_into(p, o)).map(|(v, c)| (Values::Int32(v), c)),
            (E::Regular, P::Int64) => into(n, |o| regular::decode_i64_into(p, o)).map(|(v, c)| (Values::Int64(v), c)),
            (E::Chimp, P::Int32) => into(n, |o| chimp::decode_i32_into(p, stop, o)).map(|(v, c)| (Values::Int32(v), c)),
            (E::Chimp, P::Int64) => into(n, |o| chimp::decode_i64_into(p, stop, o)).map(|(v, c)| (Values::Int64(v), c)),
            (E::Chimp, P::Float) => into(n, |o| chimp::decode_f32_into(p, stop, o)).map(|(v, c)| (Values::Float(v), c)),
            (E::Chimp, P::Double) => {
                into(n, |o| chimp::decode_f64_into(p, stop, o)).map(|(v, c)| (Values::Double(v), c))
            }
            (E::Sprintz, P::Int32) => {
                into(n, |o| sprintz::decode_i32_into(p, sprintz_writer, o)).map(|(v, c)| (Values::Int32(v), c))
            }
            (E::Sprintz, P::Int64) => {
                into(n, |o| sprintz::decode_i64_into(p, sprintz_writer, o)).map(|(v, c)| (Values::Int64(v), c))
            }
            (E::Sprintz, P::Float) => {
                into(n, |o| sprintz::decode_f32_into(p, sprintz_writer, o)).map(|(v, c)| (Values::Float(v), c))
            }
            (E::Sprintz, P::Double) => {
                into(n, |o| sprintz::decode_f64_into(p, sprintz_writer, o)).map(|(v, c)| (Values::Double(v), c))
            }
            (E::Rlbe, P::Int32) => into(n, |o| rlbe::decode_i32_into(p, o)).map(|(v, c)| (Values::Int32(v), c)),
            (E::Rlbe, P::Int64) => into(n, |o| rlbe::decode_i64_into(p, o)).map(|(v, c)| (Values::Int64(v), c)),
            (E::Rlbe, P::Float) => {
                into(n, |o| rlbe::decode_f32_into(p, rlbe_flavour, o)).map(|(v, c)| (Values::Float(v), c))
            }
            (E::Rlbe, P::Double) => {
                into(n, |o| rlbe::decode_f64_into(p, rlbe_flavour, o)).map(|(v, c)| (Values::Double(v), c))
            }
            (E::Camel, P::Double) => into(n, |o| camel::decode_into(p, o)).map(|(v, c)| (Values::Double(v), c)),
            (E::Dictionary, P::Binary) => {
                let mut entries = Vec::new();
                into(n, |o| dictionary::decode_into(p, &mut entries, o)).map(|(keys, c)| {
                    let values = keys.iter().map(|&k| entries[k as usize].to_vec()).collect();
                    (Values::Binary(values), c)
                })
            }
            _ => return Err(none),
        })
    }
}

/// A kernel where one exists, else the reference decoder: what the reader
/// uses unless told otherwise.
#[derive(Debug, Default)]
pub struct Fastest {
    pub kernels: Kernels,
    pub reference: Reference,
}

impl Fastest {
    /// Kernels and reference both reading `writer`'s layouts.
    pub fn for_writer(writer: Writer) -> Self {
        Fastest {
            kernels: Kernels { writer },
            reference: Reference { writer },
        }
    }
}

impl PageDecoder for Fastest {
    fn name(&self) -> String {
        "fastest".into()
    }

    fn decode(&mut self, page: &EncodedPage<'_>) -> Result<Decoded, PageFault> {
        match self.kernels.decode(page) {
            Err(PageFault::NoDecoder { .. }) => self.reference.decode(page),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossdec_reference::tsfile::aligned::write::time_body;
    use crossdec_reference::tsfile::aligned::{Encoding as R, Writer as W};

    fn time_page(encoding: Encoding, bytes: &[u8], max: usize) -> EncodedPage<'_> {
        EncodedPage {
            encoding,
            data_type: DataType::Int64,
            bytes,
            count: Count::AtMost(max),
        }
    }

    /// Time columns in every INT64 encoding decode with the kernels as with
    /// the reference: the page's own times, up to the most allowed.
    #[test]
    fn kernels_read_time_pages_in_every_int64_encoding() {
        let times: Vec<i64> = [-3, 0, 5, 1000, 1001].into_iter().chain(2000..2100).collect();
        for (e, r) in [
            (Encoding::Plain, R::Plain),
            (Encoding::Ts2Diff, R::Ts2Diff),
            (Encoding::Gorilla, R::Gorilla),
            (Encoding::Rle, R::Rle),
            (Encoding::Zigzag, R::Zigzag),
            (Encoding::Chimp, R::Chimp),
            (Encoding::Sprintz, R::Sprintz),
            (Encoding::Rlbe, R::Rlbe),
            (Encoding::Regular, R::Regular),
        ] {
            let body = time_body(&times, r, W::Java);
            let page = time_page(e, &body, 1 << 20);
            let mut kernels = Kernels { writer: Writer::Java };
            let got = kernels.decode(&page).and_then(|d| check(&page, d));
            assert_eq!(got, Ok(Values::Int64(times.clone())), "{e}");
            let reference = Reference { writer: Writer::Java }
                .decode(&page)
                .and_then(|d| check(&page, d));
            assert_eq!(got, reference, "{e}");
        }
    }

    /// An RLE run holds more times than the page has bits: the kernels'
    /// buffer grows to it, and no further than the most allowed.
    #[test]
    fn kernels_grow_a_time_buffer_up_to_the_most_allowed() {
        // One run of 100 sevens.
        let run = [0x04, 0x03, 0xc8, 0x01, 0x07];
        let got = Kernels::default().decode(&time_page(Encoding::Rle, &run, 1000));
        assert_eq!(got.map(|d| d.values), Ok(Values::Int64(vec![7; 100])));
        for max in [99, 50] {
            let page = time_page(Encoding::Rle, &run, max);
            let got = Kernels::default().decode(&page);
            assert!(
                matches!(got, Err(PageFault::Kernel(kernel::DecodeError::TooManyValues { max: m, .. })) if m == max),
                "{got:?}"
            );
        }
    }
}
