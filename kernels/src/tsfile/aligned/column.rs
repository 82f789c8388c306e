//! Typed column buffers: the output blocks, the per-page staging buffers,
//! and the decode of a page's non-null values into a range of one.

use super::{ColumnType, Encoding, Value, Writer};
use crate::tsfile::minmax::min_max;
use crate::tsfile::{
    camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, zigzag, DecodeError,
    Done,
};

/// A column's values, one slot per row (a null row holds the type's default).
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    Bool(Vec<bool>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bytes(Vec<Vec<u8>>),
}

/// Apply `$body` to the vector inside any `Data` variant.
macro_rules! each {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::Bool($v) => $body,
            Data::I32($v) => $body,
            Data::I64($v) => $body,
            Data::F32($v) => $body,
            Data::F64($v) => $body,
            Data::Bytes($v) => $body,
        }
    };
}

impl Data {
    /// An empty vector of the variant `t` reads into (a missing
    /// measurement, `None`, reads as INT64 nulls).
    pub(crate) fn for_type(t: Option<ColumnType>) -> Data {
        match t {
            Some(ColumnType::Boolean) => Data::Bool(Vec::new()),
            Some(ColumnType::Int32 | ColumnType::Date) => Data::I32(Vec::new()),
            Some(ColumnType::Int64 | ColumnType::Timestamp) | None => Data::I64(Vec::new()),
            Some(ColumnType::Float) => Data::F32(Vec::new()),
            Some(ColumnType::Double) => Data::F64(Vec::new()),
            Some(ColumnType::Text | ColumnType::String | ColumnType::Blob) => Data::Bytes(Vec::new()),
        }
    }
    pub fn len(&self) -> usize {
        each!(self, v => v.len())
    }
    /// The variant's name, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Data::Bool(_) => "Bool",
            Data::I32(_) => "I32",
            Data::I64(_) => "I64",
            Data::F32(_) => "F32",
            Data::F64(_) => "F64",
            Data::Bytes(_) => "Bytes",
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub(crate) fn clear(&mut self) {
        each!(self, v => v.clear())
    }
    pub(crate) fn reserve(&mut self, additional: usize) {
        each!(self, v => v.reserve(additional))
    }
    pub(crate) fn resize_default(&mut self, n: usize) {
        each!(self, v => v.resize(n, Default::default()))
    }
    /// `n` slots of the type's default, as `clear` then `resize_default`,
    /// but a binary column keeps its values' buffers: a page decoded into
    /// it again overwrites them in place instead of allocating one per
    /// value.
    pub(crate) fn reset(&mut self, n: usize) {
        match self {
            Data::Bytes(v) => {
                v.resize_with(n, Vec::new);
                v.iter_mut().for_each(Vec::clear);
            }
            _ => {
                self.clear();
                self.resize_default(n);
            }
        }
    }
    fn value(&self, r: usize) -> Value {
        match self {
            Data::Bool(v) => Value::Bool(v[r]),
            Data::I32(v) => Value::I32(v[r]),
            Data::I64(v) => Value::I64(v[r]),
            Data::F32(v) => Value::F32(v[r].to_bits()),
            Data::F64(v) => Value::F64(v[r].to_bits()),
            Data::Bytes(v) => Value::Bytes(v[r].clone()),
        }
    }
    /// Append `src[range]` (same variant).
    pub(crate) fn extend_from(&mut self, src: &Data, range: std::ops::Range<usize>) {
        match (self, src) {
            (Data::Bool(d), Data::Bool(s)) => d.extend_from_slice(&s[range]),
            (Data::I32(d), Data::I32(s)) => d.extend_from_slice(&s[range]),
            (Data::I64(d), Data::I64(s)) => d.extend_from_slice(&s[range]),
            (Data::F32(d), Data::F32(s)) => d.extend_from_slice(&s[range]),
            (Data::F64(d), Data::F64(s)) => d.extend_from_slice(&s[range]),
            (Data::Bytes(d), Data::Bytes(s)) => d.extend_from_slice(&s[range]),
            _ => unreachable!("staging and output columns are built from the same type"),
        }
    }
    /// Do a value page's stored min and max (`page::PageRef::min` / `max`)
    /// hold for its non-null values, here at `range`? As the writers
    /// compute them: the first value sets both, a later one replaces min
    /// when `v < min` and max when `v > max` (so a first NaN is both bounds
    /// and later NaNs are passed over), compared numerically. A C++ FLOAT /
    /// DOUBLE page holding NaN is not checked (its batch path, SSE min /
    /// max, gives other bounds), nor a page whose encoding does not store
    /// the values as given ([`Encoding::stores_values_as_given`]); BOOLEAN
    /// and binary pages store none.
    pub(crate) fn bounds_hold(
        &self,
        range: std::ops::Range<usize>,
        e: Encoding,
        writer: Writer,
        min: u64,
        max: u64,
    ) -> bool {
        fn floats(x: impl Iterator<Item = f64>, writer: Writer, min: f64, max: f64) -> bool {
            let mut x = x.peekable();
            let Some(&first) = x.peek() else { return true };
            let (mut lo, mut hi, mut nan) = (first, first, false);
            for v in x {
                nan |= v.is_nan();
                lo = if v < lo { v } else { lo };
                hi = if v > hi { v } else { hi };
            }
            if nan && writer == Writer::Cpp {
                return true;
            }
            if lo.is_nan() {
                return min.is_nan() && max.is_nan();
            }
            lo == min && hi == max
        }
        if !e.stores_values_as_given(matches!(self, Data::F32(_) | Data::F64(_))) {
            return true;
        }
        match self {
            Data::I32(v) => min_max(&v[range]) == Some((min as u32 as i32, max as u32 as i32)),
            Data::I64(v) => min_max(&v[range]) == Some((min as i64, max as i64)),
            Data::F32(v) => floats(
                v[range].iter().map(|&x| x as f64),
                writer,
                f32::from_bits(min as u32) as f64,
                f32::from_bits(max as u32) as f64,
            ),
            Data::F64(v) => floats(
                v[range].iter().copied(),
                writer,
                f64::from_bits(min),
                f64::from_bits(max),
            ),
            Data::Bool(_) | Data::Bytes(_) => true,
        }
    }

    /// Move the `non_null` values at the front of `self[base..]` to their
    /// rows in `self[base..base + present.len()]`, defaults at null rows.
    /// In place, from the back: a value only ever moves to a higher index.
    pub(crate) fn expand(&mut self, base: usize, non_null: usize, present: impl DoubleEndedIterator<Item = bool>) {
        each!(self, v => {
            let mut k = base + non_null;
            let mut r = v.len();
            for p in present.rev() {
                r -= 1;
                if p {
                    k -= 1;
                    v.swap(r, k);
                } else {
                    v[r] = Default::default();
                }
            }
        })
    }
}

/// One output column: values and validity (`valid[r]` false: null).
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub data: Data,
    pub valid: Vec<bool>,
}

impl Column {
    pub(crate) fn new(t: Option<ColumnType>) -> Column {
        Column::with_capacity(t, 0)
    }
    pub(crate) fn with_capacity(t: Option<ColumnType>, rows: usize) -> Column {
        let mut data = Data::for_type(t);
        data.reserve(rows);
        Column {
            data,
            valid: Vec::with_capacity(rows),
        }
    }
    /// The canonical cells: `None` for null.
    pub fn cells(&self) -> Vec<Option<Value>> {
        (0..self.valid.len())
            .map(|r| self.valid[r].then(|| self.data.value(r)))
            .collect()
    }
    pub(crate) fn cell(&self, r: usize) -> Option<Value> {
        self.valid[r].then(|| self.data.value(r))
    }
}

/// A block of at most `block_rows` rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub times: Vec<i64>,
    pub columns: Vec<Column>,
}

impl Block {
    pub fn rows(&self) -> usize {
        self.times.len()
    }
    /// The canonical, architecture-independent form: times and one cell per
    /// row per column (the shape of the reference scanner's blocks).
    pub fn canonical(&self) -> (Vec<i64>, Vec<Vec<Option<Value>>>) {
        (self.times.clone(), self.columns.iter().map(Column::cells).collect())
    }
}

/// Decode exactly the values of a page into `out[rows]` (`out` already
/// that long), with the kernels' page decoders. Returns how many values the
/// page held (at most `rows.len()`: more is the decoder's TooManyValues).
/// Where the official writers' layouts differ (SPRINTZ INT64 / DOUBLE, RLBE
/// FLOAT / DOUBLE), the page is read as `writer` writes it.
pub(crate) fn decode_into(
    t: ColumnType,
    e: Encoding,
    writer: Writer,
    body: &[u8],
    out: &mut Data,
    rows: std::ops::Range<usize>,
    scratch: &mut Vec<u32>,
) -> Result<usize, DecodeError> {
    use ColumnType::*;
    let n = rows.len();
    let r = rows;
    let (sprintz_writer, rlbe_flavour) = layouts(writer);
    let done: Done = match (t, e, out) {
        (Boolean, Encoding::Plain, Data::Bool(v)) => plain::decode_bool_into(body, &mut v[r])?,
        (Boolean, Encoding::Rle, Data::Bool(v)) => rle::decode_bool_into(body, &mut v[r])?,
        (Int32 | Date, Encoding::Plain, Data::I32(v)) => plain::decode_i32_into(body, &mut v[r])?,
        (Int32 | Date, Encoding::Rle, Data::I32(v)) => rle::decode_i32_into(body, &mut v[r])?,
        (Int32 | Date, Encoding::Ts2Diff, Data::I32(v)) => ts2diff::decode_i32_into(body, &mut v[r])?,
        (Int32 | Date, Encoding::Gorilla, Data::I32(v)) => {
            gorilla::decode_i32_into(body, gorilla::Stop::Count(n), &mut v[r])?
        }
        (Int64 | Timestamp, Encoding::Plain, Data::I64(v)) => plain::decode_be64_into(body, &mut v[r])?,
        (Int64 | Timestamp, Encoding::Rle, Data::I64(v)) => rle::decode_i64_into(body, &mut v[r])?,
        (Int64 | Timestamp, Encoding::Ts2Diff, Data::I64(v)) => ts2diff::decode_i64_into(body, &mut v[r])?,
        (Int64 | Timestamp, Encoding::Gorilla, Data::I64(v)) => {
            gorilla::decode_i64_into(body, gorilla::Stop::Count(n), &mut v[r])?
        }
        (Float, Encoding::Plain, Data::F32(v)) => plain::decode_be32_into(body, &mut v[r])?,
        (Float, Encoding::Gorilla, Data::F32(v)) => gorilla::decode_f32_into(body, gorilla::Stop::Count(n), &mut v[r])?,
        (Double, Encoding::Plain, Data::F64(v)) => plain::decode_be64_into(body, &mut v[r])?,
        (Double, Encoding::Gorilla, Data::F64(v)) => {
            gorilla::decode_f64_into(body, gorilla::Stop::Count(n), &mut v[r])?
        }
        (Text | String | Blob, Encoding::Plain, Data::Bytes(v)) => {
            let (values, consumed) = plain::decode_binary(body, n)?;
            let count = values.len();
            for (slot, value) in v[r].iter_mut().zip(values) {
                slot.clear();
                slot.extend_from_slice(value);
            }
            Done {
                values: count,
                consumed,
            }
        }
        (Int32 | Date, Encoding::Zigzag, Data::I32(v)) => zigzag::decode_i32_into(body, &mut v[r])?,
        (Int64 | Timestamp, Encoding::Zigzag, Data::I64(v)) => zigzag::decode_i64_into(body, &mut v[r])?,
        (Int32 | Date, Encoding::Regular, Data::I32(v)) => regular::decode_i32_into(body, &mut v[r])?,
        (Int64 | Timestamp, Encoding::Regular, Data::I64(v)) => regular::decode_i64_into(body, &mut v[r])?,
        (Int32 | Date, Encoding::Chimp, Data::I32(v)) => {
            chimp::decode_i32_into(body, chimp::Stop::Count(n), &mut v[r])?
        }
        (Int64 | Timestamp, Encoding::Chimp, Data::I64(v)) => {
            chimp::decode_i64_into(body, chimp::Stop::Count(n), &mut v[r])?
        }
        (Float, Encoding::Chimp, Data::F32(v)) => chimp::decode_f32_into(body, chimp::Stop::Count(n), &mut v[r])?,
        (Double, Encoding::Chimp, Data::F64(v)) => chimp::decode_f64_into(body, chimp::Stop::Count(n), &mut v[r])?,
        (Text | String, Encoding::Dictionary, Data::Bytes(v)) => {
            scratch.clear();
            scratch.resize(n, 0);
            let mut entries = Vec::new();
            let done = dictionary::decode_into(body, &mut entries, scratch)?;
            for (slot, &key) in v[r].iter_mut().zip(&scratch[..done.values]) {
                slot.clear();
                slot.extend_from_slice(entries[key as usize]);
            }
            done
        }
        (Float, Encoding::Ts2Diff, Data::F32(v)) => float_scaled::ts2diff_f32_into(body, &mut v[r])?,
        (Double, Encoding::Ts2Diff, Data::F64(v)) => float_scaled::ts2diff_f64_into(body, &mut v[r])?,
        (Float, Encoding::Rle, Data::F32(v)) => float_scaled::rle_f32_into(body, &mut v[r])?,
        (Double, Encoding::Rle, Data::F64(v)) => float_scaled::rle_f64_into(body, &mut v[r])?,
        (Int32 | Date, Encoding::Sprintz, Data::I32(v)) => sprintz::decode_i32_into(body, sprintz_writer, &mut v[r])?,
        (Int64 | Timestamp, Encoding::Sprintz, Data::I64(v)) => {
            sprintz::decode_i64_into(body, sprintz_writer, &mut v[r])?
        }
        (Float, Encoding::Sprintz, Data::F32(v)) => sprintz::decode_f32_into(body, sprintz_writer, &mut v[r])?,
        (Double, Encoding::Sprintz, Data::F64(v)) => sprintz::decode_f64_into(body, sprintz_writer, &mut v[r])?,
        (Int32 | Date, Encoding::Rlbe, Data::I32(v)) => rlbe::decode_i32_into(body, &mut v[r])?,
        (Int64 | Timestamp, Encoding::Rlbe, Data::I64(v)) => rlbe::decode_i64_into(body, &mut v[r])?,
        (Float, Encoding::Rlbe, Data::F32(v)) => rlbe::decode_f32_into(body, rlbe_flavour, &mut v[r])?,
        (Double, Encoding::Rlbe, Data::F64(v)) => rlbe::decode_f64_into(body, rlbe_flavour, &mut v[r])?,
        (Double, Encoding::Camel, Data::F64(v)) => camel::decode_into(body, &mut v[r])?,
        _ => unreachable!("pairs checked by page::supported, buffers built from the type"),
    };
    Ok(done.values)
}

/// The page kernels' names for `writer`'s SPRINTZ predictor and RLBE float
/// layout.
pub(crate) fn layouts(writer: Writer) -> (sprintz::Writer, rlbe::Flavour) {
    match writer {
        Writer::Cpp => (sprintz::Writer::Cpp, rlbe::Flavour::CppBits),
        Writer::Java => (sprintz::Writer::Java, rlbe::Flavour::JavaFloatDiffs),
    }
}
