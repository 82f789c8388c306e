//! Page headers and bodies of an aligned chunk ("Chunks and pages" in
//! `formats/tsfile.md`), read one byte at a time.
//!
//! Header: uvarint uncompressed size (0: an empty, all-null value page and
//! nothing else), uvarint compressed size, statistics (uvarint count, start
//! i64 BE, end i64 BE, then the per-type part of a value page; absent in a
//! chunk of one page), the body (compressed size bytes).

use super::{ChunkId, ColumnType, Encoding, ErrorKind, ScanError, Value, Writer};
use crate::tsfile::{
    camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, zigzag,
};

/// One page as its header describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRef {
    /// Where the header starts in the chunk's data.
    pub header_at: usize,
    /// Where the body starts, and its stored length (0 for an empty page).
    pub body_at: usize,
    pub body_len: usize,
    /// The body's length after decompression (the header's first size).
    pub size: usize,
    /// An empty (all-null) value page.
    pub empty: bool,
    /// The header carries statistics (not in a chunk of one page).
    pub has_statistics: bool,
    /// Statistics: count, start time, end time (0 when absent).
    pub count: u32,
    pub start: i64,
    pub end: i64,
    /// Where a value page's per-type statistics start in the chunk's data
    /// (its header; 0 when the header has none).
    pub typed_at: usize,
}

/// A byte cursor over a chunk's data that reports errors at its position.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    chunk: ChunkId,
    page: usize,
}

impl Cursor<'_> {
    fn err(&self, kind: ErrorKind, offset: usize) -> ScanError {
        ScanError {
            kind,
            chunk: self.chunk,
            page: self.page,
            offset,
        }
    }
    fn byte(&mut self, field_at: usize) -> Result<u8, ScanError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or(self.err(ErrorKind::TruncatedHeader, field_at))?;
        self.pos += 1;
        Ok(b)
    }
    /// Unsigned LEB128 holding a u32 (at most 5 bytes).
    fn uvarint(&mut self) -> Result<u32, ScanError> {
        let at = self.pos;
        let mut v: u64 = 0;
        for i in 0..5 {
            let b = self.byte(at)?;
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(v).map_err(|_| self.err(ErrorKind::TruncatedHeader, at));
            }
        }
        Err(self.err(ErrorKind::TruncatedHeader, at))
    }
    fn skip(&mut self, n: usize) -> Result<(), ScanError> {
        let at = self.pos;
        for _ in 0..n {
            self.byte(at)?;
        }
        Ok(())
    }
    fn be_i64(&mut self) -> Result<i64, ScanError> {
        let at = self.pos;
        let mut v: u64 = 0;
        for _ in 0..8 {
            // The low byte is zero after the shift: adding is setting it.
            v = (v << 8) + self.byte(at)? as u64;
        }
        Ok(v as i64)
    }
    fn be_i32(&mut self) -> Result<i32, ScanError> {
        let at = self.pos;
        let mut v: u32 = 0;
        for _ in 0..4 {
            v = (v << 8) + self.byte(at)? as u32;
        }
        Ok(v as i32)
    }
}

/// The per-type part of a value page's statistics after count / start /
/// end: so many fixed bytes, or so many i32-BE-length-prefixed strings.
enum TypedStats {
    Bytes(usize),
    Strings(usize),
}

fn typed_stats(t: ColumnType) -> TypedStats {
    match t {
        ColumnType::Boolean => TypedStats::Bytes(1 + 1 + 8),
        ColumnType::Int32 | ColumnType::Date => TypedStats::Bytes(4 * 4 + 8),
        ColumnType::Int64 | ColumnType::Timestamp => TypedStats::Bytes(4 * 8 + 8),
        ColumnType::Float => TypedStats::Bytes(4 * 4 + 8),
        ColumnType::Double => TypedStats::Bytes(5 * 8),
        // TEXT: first, last; STRING: first, last, min, max; BLOB: nothing.
        ColumnType::Text => TypedStats::Strings(2),
        ColumnType::String => TypedStats::Strings(4),
        ColumnType::Blob => TypedStats::Bytes(0),
    }
}

/// Walk every page header of a chunk. `value_type` is `None` for the time
/// chunk; `compressed`: the chunk's compression is not UNCOMPRESSED (else
/// the two sizes must be equal); `statistics`: headers carry them. A
/// negative binary-statistics length counts as a truncated header.
pub fn directory(
    data: &[u8],
    chunk: ChunkId,
    value_type: Option<ColumnType>,
    compressed: bool,
    statistics: bool,
) -> Result<Vec<PageRef>, ScanError> {
    let mut pages = Vec::new();
    let mut c = Cursor {
        data,
        pos: 0,
        chunk,
        page: 0,
    };
    while c.pos < data.len() {
        c.page = pages.len();
        let header_at = c.pos;
        let size = c.uvarint()?;
        if size == 0 {
            if value_type.is_none() {
                return Err(c.err(ErrorKind::BadPageSize, header_at));
            }
            pages.push(PageRef {
                header_at,
                body_at: c.pos,
                body_len: 0,
                size: 0,
                empty: true,
                has_statistics: false,
                count: 0,
                start: 0,
                end: 0,
                typed_at: 0,
            });
            continue;
        }
        let compressed_at = c.pos;
        let stored = c.uvarint()?;
        if !compressed && stored != size {
            return Err(c.err(ErrorKind::BadPageSize, compressed_at));
        }
        let (mut count, mut start, mut end) = (0, 0, 0);
        if statistics {
            count = c.uvarint()?;
            start = c.be_i64()?;
            end = c.be_i64()?;
        }
        let mut typed_at = 0;
        if let Some(t) = value_type.filter(|_| statistics) {
            typed_at = c.pos;
            match typed_stats(t) {
                TypedStats::Bytes(n) => c.skip(n)?,
                TypedStats::Strings(n) => {
                    for _ in 0..n {
                        let at = c.pos;
                        let len = c.be_i32()?;
                        if len < 0 {
                            return Err(c.err(ErrorKind::TruncatedHeader, at));
                        }
                        c.skip(len as usize)?;
                    }
                }
            }
        }
        let body_at = c.pos;
        if data.len() - body_at < stored as usize {
            return Err(c.err(ErrorKind::TruncatedPage, body_at));
        }
        c.pos = body_at + stored as usize;
        pages.push(PageRef {
            header_at,
            body_at,
            body_len: stored as usize,
            size: size as usize,
            empty: false,
            has_statistics: statistics,
            count,
            start,
            end,
            typed_at,
        });
    }
    Ok(pages)
}

/// Do a value page's statistics hold for its decoded non-null `values`, as
/// far as they are checked (`docs/families/tsfile-aligned.md`, "Value page
/// statistics")? `typed` is the per-type part of the header (its length
/// checked by [`directory`]). The count is the non-null count; min and max
/// (the first two fields of INT32 / DATE / FLOAT: 4 bytes BE each, of
/// INT64 / TIMESTAMP / DOUBLE: 8) are those both official writers compute:
/// the first value sets min and max, each later one replaces min when
/// `v < min` and max when `v > max` (Java `*Statistics.updateStats`, C++
/// `NUM_VALUE_STAT_UPDATE`). For FLOAT / DOUBLE that makes a first NaN the
/// min and max (no comparison with it is true) and later NaNs invisible:
/// what the Java writer writes, checked as such (numerically, so either
/// zero stands for the other). The C++ writer's batch path
/// (`update_batch`, SSE `min_pd` / `max_pd` with `ENABLE_SIMD`) gives other
/// bounds when NaN is among the values, so a C++ page holding NaN has its
/// bounds unchecked. FLOAT / DOUBLE in TS_2DIFF or RLE (scaled integers)
/// hold the values rounded to `maxPointNumber` decimals while the bounds
/// are of the values the writer was given (seen in the C++ writer's
/// fixtures): unchecked. So are SPRINTZ and CAMEL pages: the C++ 2.5
/// encoders give back other values than they were given for some inputs
/// (large INT32 / INT64 / FLOAT under SPRINTZ, DOUBLE under CAMEL), and the
/// bounds are of the values given. BOOLEAN, TEXT, STRING, BLOB: the count
/// alone.
pub fn value_statistics_hold(
    t: ColumnType,
    e: Encoding,
    writer: Writer,
    count: u32,
    typed: &[u8],
    values: &[Value],
) -> bool {
    if count as usize != values.len() {
        return false;
    }
    if values.is_empty() {
        // No value: min and max are whatever the writer reset them to.
        return true;
    }
    // The statistics are of the values given to the writer. Some
    // encodings store others: FLOAT / DOUBLE as scaled integers
    // (maxPointNumber) round them; the C++ SPRINTZ and CAMEL encoders
    // change some values (the Java ones are taken alike).
    let float = matches!(t, ColumnType::Float | ColumnType::Double);
    let rounded = float && matches!(e, Encoding::Ts2Diff | Encoding::Rle);
    if rounded || matches!(e, Encoding::Sprintz | Encoding::Camel) {
        return true;
    }
    let word = |at: usize, n: usize| typed[at..at + n].iter().fold(0u64, |w, &b| (w << 8) | b as u64);
    let ints = |x: &[i64], min: i64, max: i64| x.iter().min() == Some(&min) && x.iter().max() == Some(&max);
    // The writers' loop over doubles (FLOAT widened exactly).
    let floats = |x: &[f64], min: f64, max: f64| {
        if x.iter().any(|v| v.is_nan()) && writer == Writer::Cpp {
            return true;
        }
        let (mut lo, mut hi) = (x[0], x[0]);
        for &v in &x[1..] {
            if v < lo {
                lo = v;
            }
            if v > hi {
                hi = v;
            }
        }
        if lo.is_nan() {
            min.is_nan() && max.is_nan()
        } else {
            lo == min && hi == max
        }
    };
    match t {
        ColumnType::Int32 | ColumnType::Date => {
            let x: Vec<i64> = values
                .iter()
                .map(|v| if let Value::I32(x) = v { *x as i64 } else { 0 })
                .collect();
            ints(&x, word(0, 4) as u32 as i32 as i64, word(4, 4) as u32 as i32 as i64)
        }
        ColumnType::Int64 | ColumnType::Timestamp => {
            let x: Vec<i64> = values
                .iter()
                .map(|v| if let Value::I64(x) = v { *x } else { 0 })
                .collect();
            ints(&x, word(0, 8) as i64, word(8, 8) as i64)
        }
        ColumnType::Float => {
            let bits = |v: &Value| if let Value::F32(x) = v { *x } else { 0 };
            let x: Vec<f64> = values.iter().map(|v| f32::from_bits(bits(v)) as f64).collect();
            let f = |w: u64| f32::from_bits(w as u32) as f64;
            floats(&x, f(word(0, 4)), f(word(4, 4)))
        }
        ColumnType::Double => {
            let x: Vec<f64> = values
                .iter()
                .map(|v| if let Value::F64(x) = v { f64::from_bits(*x) } else { 0.0 })
                .collect();
            floats(&x, f64::from_bits(word(0, 8)), f64::from_bits(word(8, 8)))
        }
        ColumnType::Boolean | ColumnType::Text | ColumnType::String | ColumnType::Blob => true,
    }
}

/// Is this data type / encoding pair one the scanner reads? Every pair the
/// C++ writer (PyPI `tsfile` 2.5) accepts, and RLE on FLOAT / DOUBLE, which
/// the Java writer writes (`FloatEncoder` around an RLE integer stream);
/// DATE read as INT32 and TIMESTAMP as INT64 throughout
/// (`docs/reference/tsfile-encodings.md`).
pub fn supported(t: ColumnType, e: Encoding) -> bool {
    use ColumnType::*;
    match e {
        Encoding::Plain => true,
        Encoding::Rle => matches!(t, Boolean | Int32 | Date | Int64 | Timestamp | Float | Double),
        Encoding::Ts2Diff | Encoding::Gorilla | Encoding::Chimp | Encoding::Sprintz | Encoding::Rlbe => {
            matches!(t, Int32 | Date | Int64 | Timestamp | Float | Double)
        }
        Encoding::Zigzag | Encoding::Regular => matches!(t, Int32 | Date | Int64 | Timestamp),
        Encoding::Dictionary => matches!(t, Text | String),
        Encoding::Camel => t == Double,
    }
}

/// Decode a time page body: INT64 in any encoding [`supported`] takes for
/// INT64, at most `max` times (the caller's [`super::Decompress::max_page_rows`]). GORILLA and CHIMP pages
/// hold `count` times (the header's statistics, as a value page's bitmap
/// counts its values; a time equal to the terminator is a time), or without
/// statistics (`None`) as many as come before the terminator; every other
/// encoding is read to the body's end.
pub fn decode_times(
    body: &[u8],
    encoding: Encoding,
    writer: Writer,
    count: Option<u32>,
    max: usize,
) -> Result<Vec<i64>, String> {
    let stop = match count {
        Some(n) => gorilla::Stop::Count(n as usize),
        None => gorilla::Stop::AtTerminator,
    };
    let as_i64 = |d: crate::tsfile::Decoded<u64>| d.values.into_iter().map(|v| v as i64).collect::<Vec<_>>();
    let err = |e: crate::tsfile::DecodeError| format!("{e:?}");
    Ok(match encoding {
        Encoding::Ts2Diff => ts2diff::decode_i64(body, max).map_err(err)?.values,
        Encoding::Plain => plain::decode_i64(body, max).map_err(err)?.values,
        Encoding::Gorilla => as_i64(gorilla::decode64(body, gorilla::TERMINATOR_I64, stop, max).map_err(err)?),
        Encoding::Chimp => as_i64(chimp::decode64(body, chimp::TERMINATOR_I64, stop, max).map_err(err)?),
        Encoding::Rle => rle::decode_i64(body, max).map_err(err)?.values,
        Encoding::Zigzag => zigzag::decode_i64(body, max).map_err(err)?.values,
        Encoding::Sprintz => {
            sprintz::decode_i64_from(body, sprintz_writer(writer), max)
                .map_err(err)?
                .values
        }
        Encoding::Rlbe => rlbe::decode_i64(body, max).map_err(err)?.values,
        Encoding::Regular => regular::decode_i64(body, max).map_err(err)?.values,
        Encoding::Dictionary | Encoding::Camel => unreachable!("no INT64 pages: refused by supported"),
    })
}

/// The SPRINTZ reader of `writer`'s library.
fn sprintz_writer(writer: Writer) -> sprintz::Writer {
    match writer {
        Writer::Cpp => sprintz::Writer::Cpp,
        Writer::Java => sprintz::Writer::Java,
    }
}

/// The RLBE FLOAT / DOUBLE layout `writer` writes.
pub(crate) fn rlbe_flavour(writer: Writer) -> rlbe::Flavour {
    match writer {
        Writer::Cpp => rlbe::Flavour::CppBits,
        Writer::Java => rlbe::Flavour::JavaFloatDiffs,
    }
}

/// The integer stream inside a scaled FLOAT / DOUBLE page: TS_2DIFF or RLE.
pub(crate) fn scaled_inner(e: Encoding) -> float_scaled::Inner {
    match e {
        Encoding::Rle => float_scaled::Inner::Rle,
        _ => float_scaled::Inner::Ts2Diff,
    }
}

/// Decode exactly `n` non-null values of a value page. Where the official
/// writers' layouts differ (SPRINTZ INT64 / DOUBLE, RLBE FLOAT / DOUBLE),
/// the page is read as `writer` writes it.
pub fn decode_values(body: &[u8], t: ColumnType, e: Encoding, writer: Writer, n: usize) -> Result<Vec<Value>, String> {
    use ColumnType::*;
    let err = |e: crate::tsfile::DecodeError| format!("{e:?}");
    let values: Vec<Value> = match (t, e) {
        (Boolean, Encoding::Plain) => plain::decode_bool(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::Bool)
            .collect(),
        (Boolean, Encoding::Rle) => rle::decode_bool(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::Bool)
            .collect(),
        (Int32 | Date, Encoding::Plain) => plain::decode_i32(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I32)
            .collect(),
        (Int32 | Date, Encoding::Rle) => rle::decode_i32(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I32)
            .collect(),
        (Int32 | Date, Encoding::Ts2Diff) => ts2diff::decode_i32(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I32)
            .collect(),
        (Int32 | Date, Encoding::Gorilla) => {
            gorilla::decode32(body, gorilla::TERMINATOR_I32, gorilla::Stop::Count(n), n)
                .map_err(err)?
                .values
                .into_iter()
                .map(|v| Value::I32(v as i32))
                .collect()
        }
        (Int64 | Timestamp, Encoding::Plain) => plain::decode_i64(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I64)
            .collect(),
        (Int64 | Timestamp, Encoding::Rle) => rle::decode_i64(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I64)
            .collect(),
        (Int64 | Timestamp, Encoding::Ts2Diff) => ts2diff::decode_i64(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I64)
            .collect(),
        (Int64 | Timestamp, Encoding::Gorilla) => {
            gorilla::decode64(body, gorilla::TERMINATOR_I64, gorilla::Stop::Count(n), n)
                .map_err(err)?
                .values
                .into_iter()
                .map(|v| Value::I64(v as i64))
                .collect()
        }
        (Float, Encoding::Plain) => plain::decode_f32(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F32(v.to_bits()))
            .collect(),
        (Float, Encoding::Gorilla) => gorilla::decode32(body, gorilla::TERMINATOR_F32, gorilla::Stop::Count(n), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::F32)
            .collect(),
        (Double, Encoding::Plain) => plain::decode_f64(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F64(v.to_bits()))
            .collect(),
        (Double, Encoding::Gorilla) => gorilla::decode64(body, gorilla::TERMINATOR_F64, gorilla::Stop::Count(n), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::F64)
            .collect(),
        (Text | String | Blob, Encoding::Plain) => plain::decode_binary(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::Bytes)
            .collect(),
        (Int32 | Date, Encoding::Zigzag) => zigzag::decode_i32(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I32)
            .collect(),
        (Int64 | Timestamp, Encoding::Zigzag) => zigzag::decode_i64(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I64)
            .collect(),
        (Int32 | Date, Encoding::Chimp) => chimp::decode32(body, chimp::TERMINATOR_I32, chimp::Stop::Count(n), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::I32(v as i32))
            .collect(),
        (Int64 | Timestamp, Encoding::Chimp) => chimp::decode64(body, chimp::TERMINATOR_I64, chimp::Stop::Count(n), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::I64(v as i64))
            .collect(),
        (Float, Encoding::Chimp) => chimp::decode32(body, chimp::TERMINATOR_F32, chimp::Stop::Count(n), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::F32)
            .collect(),
        (Double, Encoding::Chimp) => chimp::decode64(body, chimp::TERMINATOR_F64, chimp::Stop::Count(n), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::F64)
            .collect(),
        (Text | String, Encoding::Dictionary) => dictionary::decode(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::Bytes)
            .collect(),
        // TS_2DIFF and RLE (the Java writer's) on floats: the scaled-integer
        // wrapper (maxPointNumber and bitmaps in the page), every value to
        // the page's end.
        (Float, Encoding::Ts2Diff | Encoding::Rle) => float_scaled::decode_f32(body, scaled_inner(e), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F32(v.to_bits()))
            .collect(),
        (Double, Encoding::Ts2Diff | Encoding::Rle) => float_scaled::decode_f64(body, scaled_inner(e), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F64(v.to_bits()))
            .collect(),
        // SPRINTZ: blocks until the page ends, read as the writer's
        // library reads them.
        (Int32 | Date, Encoding::Sprintz) => sprintz::decode_i32_from(body, sprintz_writer(writer), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I32)
            .collect(),
        (Int64 | Timestamp, Encoding::Sprintz) => sprintz::decode_i64_from(body, sprintz_writer(writer), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I64)
            .collect(),
        (Float, Encoding::Sprintz) => sprintz::decode_f32_from(body, sprintz_writer(writer), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F32(v.to_bits()))
            .collect(),
        (Double, Encoding::Sprintz) => sprintz::decode_f64_from(body, sprintz_writer(writer), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F64(v.to_bits()))
            .collect(),
        // REGULAR: blocks until the page ends.
        (Int32 | Date, Encoding::Regular) => regular::decode_i32(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I32)
            .collect(),
        (Int64 | Timestamp, Encoding::Regular) => regular::decode_i64(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I64)
            .collect(),
        // RLBE: blocks until the page ends; FLOAT / DOUBLE in the writer's
        // layout.
        (Int32 | Date, Encoding::Rlbe) => rlbe::decode_i32(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I32)
            .collect(),
        (Int64 | Timestamp, Encoding::Rlbe) => rlbe::decode_i64(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(Value::I64)
            .collect(),
        (Float, Encoding::Rlbe) => rlbe::decode_f32(body, rlbe_flavour(writer), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F32(v.to_bits()))
            .collect(),
        (Double, Encoding::Rlbe) => rlbe::decode_f64(body, rlbe_flavour(writer), n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F64(v.to_bits()))
            .collect(),
        // CAMEL: blocks until the page ends.
        (Double, Encoding::Camel) => camel::decode(body, n)
            .map_err(err)?
            .values
            .into_iter()
            .map(|v| Value::F64(v.to_bits()))
            .collect(),
        _ => unreachable!("checked by supported"),
    };
    Ok(values)
}
