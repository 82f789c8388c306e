//! Builders for aligned chunks: pages written as the format notes describe,
//! with statistics computed from the values or given by the caller (to make
//! them lie). For tests and generators.

use super::{ColumnType, Encoding, Value, Writer};
use crate::tsfile::{
    camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, write_uvarint, zigzag,
};

/// Statistics of a page header: count, start time, end time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub count: u32,
    pub start: i64,
    pub end: i64,
}

impl Stats {
    /// The truthful statistics of a time page (`times` non-empty).
    pub fn of(times: &[i64]) -> Stats {
        Stats {
            count: times.len() as u32,
            start: times[0],
            end: times[times.len() - 1],
        }
    }
}

/// Encode a time page body (INT64, in any encoding `page::supported`
/// takes for INT64), as `writer` writes it: an INT64 value page's
/// encoding, without a bitmap.
pub fn time_body(times: &[i64], encoding: Encoding, writer: Writer) -> Vec<u8> {
    let values: Vec<Value> = times.iter().map(|&t| Value::I64(t)).collect();
    values_body(ColumnType::Int64, encoding, &values, writer)
}

/// A whole time page: header with `stats`, then `body`.
pub fn time_page(body: &[u8], stats: Stats) -> Vec<u8> {
    let mut out = Vec::new();
    write_uvarint(&mut out, body.len() as u64);
    write_uvarint(&mut out, body.len() as u64);
    write_common(&mut out, stats);
    out.extend_from_slice(body);
    out
}

fn write_common(out: &mut Vec<u8>, stats: Stats) {
    write_uvarint(out, stats.count as u64);
    out.extend_from_slice(&stats.start.to_be_bytes());
    out.extend_from_slice(&stats.end.to_be_bytes());
}

/// Encode the non-null values of a value page, as `writer` writes them
/// where the official writers differ: RLBE FLOAT / DOUBLE as the integer
/// RLBE of the bits (C++) or as float differences (Java), top bit of
/// full-width values cleared; TS_2DIFF FLOAT / DOUBLE with maxPointNumber 2
/// (both). SPRINTZ INT64 / DOUBLE pages are written with Java's predictor
/// for both writers (the only SPRINTZ encoder the reference has): read with
/// the C++ predictor, such a page gives back the written values unless a
/// prediction's product `alpha * delta` passes 2^63.
pub fn values_body(t: ColumnType, e: Encoding, values: &[Value], writer: Writer) -> Vec<u8> {
    use ColumnType::*;
    let i32s = || {
        values
            .iter()
            .map(|v| if let Value::I32(x) = v { *x } else { 0 })
            .collect::<Vec<_>>()
    };
    let i64s = || {
        values
            .iter()
            .map(|v| if let Value::I64(x) = v { *x } else { 0 })
            .collect::<Vec<_>>()
    };
    let bools = || {
        values
            .iter()
            .map(|v| matches!(v, Value::Bool(true)))
            .collect::<Vec<_>>()
    };
    let f32s = || {
        values
            .iter()
            .map(|v| if let Value::F32(x) = v { *x } else { 0 })
            .collect::<Vec<u32>>()
    };
    let f64s = || {
        values
            .iter()
            .map(|v| if let Value::F64(x) = v { *x } else { 0 })
            .collect::<Vec<u64>>()
    };
    let floats = |bits: Vec<u32>| bits.into_iter().map(f32::from_bits).collect::<Vec<_>>();
    let doubles = |bits: Vec<u64>| bits.into_iter().map(f64::from_bits).collect::<Vec<_>>();
    let rlbe_flavour = super::page::rlbe_flavour;
    match (t, e) {
        (Int32 | Date, Encoding::Zigzag) => zigzag::encode_i32(&i32s()),
        (Int64 | Timestamp, Encoding::Zigzag) => zigzag::encode_i64(&i64s()),
        // The Java writer's blocks where it writes one a reader takes.
        (Int32 | Date, Encoding::Regular) => regular::encode_i32_readable(&i32s(), regular::DEFAULT_BLOCK),
        (Int64 | Timestamp, Encoding::Regular) => regular::encode_i64_readable(&i64s(), regular::DEFAULT_BLOCK),
        (Int32 | Date, Encoding::Chimp) => {
            let v: Vec<u32> = i32s().into_iter().map(|x| x as u32).collect();
            chimp::encode32(&v, Some(chimp::TERMINATOR_I32))
        }
        (Int64 | Timestamp, Encoding::Chimp) => {
            let v: Vec<u64> = i64s().into_iter().map(|x| x as u64).collect();
            chimp::encode64(&v, Some(chimp::TERMINATOR_I64))
        }
        (Float, Encoding::Chimp) => chimp::encode32(&f32s(), Some(chimp::TERMINATOR_F32)),
        (Int32 | Date, Encoding::Sprintz) => sprintz::encode_i32(&i32s()),
        (Int64 | Timestamp, Encoding::Sprintz) => sprintz::encode_i64(&i64s()),
        (Float, Encoding::Sprintz) => sprintz::encode_f32(&floats(f32s())),
        (Double, Encoding::Sprintz) => sprintz::encode_f64(&doubles(f64s())),
        (Int32 | Date, Encoding::Rlbe) => rlbe::encode_i32(&i32s(), rlbe::TopBit::Cleared),
        (Int64 | Timestamp, Encoding::Rlbe) => rlbe::encode_i64(&i64s(), rlbe::TopBit::Cleared),
        (Float, Encoding::Rlbe) => rlbe::encode_f32(&floats(f32s()), rlbe_flavour(writer), rlbe::TopBit::Cleared),
        (Double, Encoding::Rlbe) => rlbe::encode_f64(&doubles(f64s()), rlbe_flavour(writer), rlbe::TopBit::Cleared),
        (Double, Encoding::Camel) => camel::encode(&doubles(f64s())),
        // maxPointNumber 2, the C++ writer's (and Java's default).
        (Float, Encoding::Ts2Diff | Encoding::Rle) => float_scaled::encode_f32(
            &floats(f32s()),
            super::page::scaled_inner(e),
            float_scaled::DEFAULT_MAX_POINT_NUMBER,
        ),
        (Double, Encoding::Ts2Diff | Encoding::Rle) => float_scaled::encode_f64(
            &doubles(f64s()),
            super::page::scaled_inner(e),
            float_scaled::DEFAULT_MAX_POINT_NUMBER,
        ),
        (Double, Encoding::Chimp) => chimp::encode64(&f64s(), Some(chimp::TERMINATOR_F64)),
        (Text | String | Blob, Encoding::Dictionary) => {
            let v: Vec<Vec<u8>> = values
                .iter()
                .map(|v| if let Value::Bytes(b) = v { b.clone() } else { Vec::new() })
                .collect();
            dictionary::encode(&v, true)
        }
        (Boolean, Encoding::Rle) => rle::encode_bool(&bools(), true),
        (Boolean, _) => plain::encode_bool(&bools()),
        (Int32 | Date, Encoding::Rle) => rle::encode_i32(&i32s(), true),
        (Int32 | Date, Encoding::Ts2Diff) => ts2diff::encode_i32(&i32s(), ts2diff::DEFAULT_BLOCK, false),
        (Int32 | Date, Encoding::Gorilla) => {
            let v: Vec<u32> = i32s().into_iter().map(|x| x as u32).collect();
            gorilla::encode32(&v, Some(gorilla::TERMINATOR_I32))
        }
        (Int32 | Date, _) => plain::encode_i32(&i32s()),
        (Int64 | Timestamp, Encoding::Rle) => rle::encode_i64(&i64s(), true),
        (Int64 | Timestamp, Encoding::Ts2Diff) => ts2diff::encode_i64(&i64s(), ts2diff::DEFAULT_BLOCK, false),
        (Int64 | Timestamp, Encoding::Gorilla) => {
            let v: Vec<u64> = i64s().into_iter().map(|x| x as u64).collect();
            gorilla::encode64(&v, Some(gorilla::TERMINATOR_I64))
        }
        (Int64 | Timestamp, _) => plain::encode_i64(&i64s()),
        (Float, Encoding::Gorilla) => gorilla::encode32(&f32s(), Some(gorilla::TERMINATOR_F32)),
        (Float, _) => plain::encode_f32(&floats(f32s())),
        (Double, Encoding::Gorilla) => gorilla::encode64(&f64s(), Some(gorilla::TERMINATOR_F64)),
        (Double, _) => plain::encode_f64(&doubles(f64s())),
        (Text | String | Blob, _) => {
            let v: Vec<Vec<u8>> = values
                .iter()
                .map(|v| if let Value::Bytes(b) = v { b.clone() } else { Vec::new() })
                .collect();
            plain::encode_binary(&v)
        }
    }
}

/// A value page body: row count, null bitmap, encoded non-null values.
pub fn value_body(t: ColumnType, e: Encoding, cells: &[Option<Value>], writer: Writer) -> Vec<u8> {
    let mut out = (cells.len() as i32).to_be_bytes().to_vec();
    let mut bitmap = vec![0u8; cells.len().div_ceil(8)];
    for (r, c) in cells.iter().enumerate() {
        if c.is_some() {
            bitmap[r / 8] |= 0x80 >> (r % 8);
        }
    }
    out.extend_from_slice(&bitmap);
    let present: Vec<Value> = cells.iter().flatten().cloned().collect();
    out.extend(values_body(t, e, &present, writer));
    out
}

/// A whole value page: header (statistics: `stats`, then a per-type part
/// of zeros of the right length), body. Zeros are truthful only for a page
/// of no value or numbers whose min and max are 0: for the others use
/// [`value_page_typed`] with [`typed_stats`].
pub fn value_page(t: ColumnType, body: &[u8], stats: Stats) -> Vec<u8> {
    let typed = match t {
        ColumnType::Boolean => 10,
        ColumnType::Int32 | ColumnType::Date | ColumnType::Float => 24,
        ColumnType::Int64 | ColumnType::Timestamp | ColumnType::Double => 40,
        // Strings (first, last; STRING adds min, max) of length zero.
        ColumnType::Text => 2 * 4,
        ColumnType::String => 4 * 4,
        ColumnType::Blob => 0,
    };
    value_page_typed(body, stats, &vec![0u8; typed])
}

/// A whole value page: header (`stats`, then the per-type part `typed`
/// as given), body.
pub fn value_page_typed(body: &[u8], stats: Stats, typed: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_uvarint(&mut out, body.len() as u64);
    write_uvarint(&mut out, body.len() as u64);
    write_common(&mut out, stats);
    out.extend_from_slice(typed);
    out.extend_from_slice(body);
    out
}

/// The per-type part of a value page's statistics for its non-null
/// `values`, as both official writers compute it one value at a time
/// (`docs/families/tsfile-aligned.md`, "Value page statistics"): min, max, first,
/// last, sum for the numeric types (the first value sets min and max, a
/// later one replaces them when `v < min` / `v > max`, so a first NaN stays
/// and later NaNs are passed over; sum i64 for INT32 / DATE / BOOLEAN, f64
/// for the others); BOOLEAN first, last, sum; TEXT first, last; STRING
/// first, last, min, max (bytes, lexicographic); BLOB nothing. No value:
/// zeros (and empty strings).
pub fn typed_stats(t: ColumnType, values: &[Value]) -> Vec<u8> {
    use ColumnType::*;
    let mut out = Vec::new();
    let i64s = || -> Vec<i64> {
        values
            .iter()
            .map(|v| match v {
                Value::I32(x) => *x as i64,
                Value::I64(x) => *x,
                _ => 0,
            })
            .collect()
    };
    // The values' own bits: a NaN converted between f32 and f64 (or made
    // by arithmetic) has a payload that differs between architectures,
    // and these bytes are hashed and compared across them.
    let f32s = || -> Vec<f32> {
        values
            .iter()
            .map(|v| if let Value::F32(x) = v { f32::from_bits(*x) } else { 0.0 })
            .collect()
    };
    let f64s = || -> Vec<f64> {
        values
            .iter()
            .map(|v| if let Value::F64(x) = v { f64::from_bits(*x) } else { 0.0 })
            .collect()
    };
    // A sum that is NaN as Java writes it (`Double.doubleToLongBits`: the
    // one canonical NaN).
    let sum = |x: f64| if x.is_nan() { f64::NAN } else { x };
    // min, max, first, last by the writers' loop.
    fn bounds<T: Copy + PartialOrd>(x: &[T], zero: T) -> [T; 4] {
        let Some(&first) = x.first() else { return [zero; 4] };
        let (mut lo, mut hi) = (first, first);
        for &v in &x[1..] {
            if v < lo {
                lo = v;
            }
            if v > hi {
                hi = v;
            }
        }
        [lo, hi, first, x[x.len() - 1]]
    }
    let string = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as i32).to_be_bytes());
        out.extend_from_slice(b);
    };
    let bytes: Vec<&[u8]> = values
        .iter()
        .map(|v| if let Value::Bytes(b) = v { &b[..] } else { &[][..] })
        .collect();
    match t {
        Boolean => {
            let b: Vec<bool> = values.iter().map(|v| matches!(v, Value::Bool(true))).collect();
            out.push(b.first().copied().unwrap_or(false) as u8);
            out.push(b.last().copied().unwrap_or(false) as u8);
            out.extend_from_slice(&(b.iter().filter(|&&x| x).count() as i64).to_be_bytes());
        }
        Int32 | Date => {
            let x = i64s();
            for v in bounds(&x, 0) {
                out.extend_from_slice(&(v as i32).to_be_bytes());
            }
            out.extend_from_slice(&x.iter().fold(0i64, |a, &v| a.wrapping_add(v)).to_be_bytes());
        }
        Int64 | Timestamp => {
            let x = i64s();
            for v in bounds(&x, 0) {
                out.extend_from_slice(&v.to_be_bytes());
            }
            out.extend_from_slice(&x.iter().fold(0.0, |a, &v| a + v as f64).to_be_bytes());
        }
        Float => {
            let x = f32s();
            for v in bounds(&x, 0.0) {
                out.extend_from_slice(&v.to_be_bytes());
            }
            out.extend_from_slice(&sum(x.iter().fold(0.0, |a, &v| a + v as f64)).to_be_bytes());
        }
        Double => {
            let x = f64s();
            for v in bounds(&x, 0.0) {
                out.extend_from_slice(&v.to_be_bytes());
            }
            out.extend_from_slice(&sum(x.iter().fold(0.0, |a, v| a + v)).to_be_bytes());
        }
        Text | String => {
            string(&mut out, bytes.first().copied().unwrap_or(&[]));
            string(&mut out, bytes.last().copied().unwrap_or(&[]));
            if t == String {
                string(&mut out, bytes.iter().min().copied().unwrap_or(&[]));
                string(&mut out, bytes.iter().max().copied().unwrap_or(&[]));
            }
        }
        Blob => {}
    }
    out
}

/// An empty value page: every row null, a zero size and nothing else.
pub fn empty_value_page() -> Vec<u8> {
    vec![0]
}

/// A value page for `cells` at `times` with truthful statistics (of the
/// values the page reads back as; all null and `empty_when_all_null`: the
/// empty page).
pub fn value_page_for(
    t: ColumnType,
    e: Encoding,
    times: &[i64],
    cells: &[Option<Value>],
    empty_when_all_null: bool,
    writer: Writer,
) -> Vec<u8> {
    let non_null = cells.iter().flatten().count();
    if non_null == 0 && empty_when_all_null {
        return empty_value_page();
    }
    let stats = Stats {
        count: non_null as u32,
        ..Stats::of(times)
    };
    // The statistics of the values the page reads back as (a SPRINTZ
    // INT64 / DOUBLE page labelled C++ may read back other values than
    // were written, see `values_body`; a real writer's page reads back its
    // own).
    let present: Vec<Value> = cells.iter().flatten().cloned().collect();
    let encoded = values_body(t, e, &present, writer);
    let read = super::page::decode_values(&encoded, t, e, writer, present.len());
    let typed = match read {
        Ok(read) => typed_stats(t, &read),
        Err(_) => typed_stats(t, &present),
    };
    value_page_typed(&value_body(t, e, cells, writer), stats, &typed)
}

/// A chunk's pages stored another way: each body through `compress` (which
/// returns the stored bytes; the header keeps the uncompressed size), and
/// without statistics in the headers when `keep_statistics` is false (a
/// chunk of one page). `data` is an uncompressed chunk with statistics, as
/// the builders above write it; `value_type` is `None` for a time chunk.
pub fn restore_chunk(
    data: &[u8],
    value_type: Option<ColumnType>,
    compress: &dyn Fn(&[u8]) -> Vec<u8>,
    keep_statistics: bool,
) -> Result<Vec<u8>, super::ScanError> {
    let pages = super::page::directory(data, super::ChunkId::Time, value_type, false, true)?;
    let mut out = Vec::new();
    for page in pages {
        if page.empty {
            out.extend(empty_value_page());
            continue;
        }
        let body = &data[page.body_at..page.body_at + page.body_len];
        let stored = compress(body);
        write_uvarint(&mut out, body.len() as u64);
        write_uvarint(&mut out, stored.len() as u64);
        if keep_statistics {
            // Everything between the two sizes and the body.
            let mut sizes = Vec::new();
            write_uvarint(&mut sizes, body.len() as u64);
            write_uvarint(&mut sizes, body.len() as u64);
            out.extend_from_slice(&data[page.header_at + sizes.len()..page.body_at]);
        }
        out.extend(stored);
    }
    Ok(out)
}
