//! Cube JSON results (row, compact, columnar) straight into an Arrow
//! `RecordBatch`, without an intermediate `serde_json::Value` tree.
//!
//! A streaming `serde` visitor walks the document once with
//! `serde_json::Deserializer` and converts every cell, as it is read, into
//! the typed column buffers of the fields that read its member (Cube's
//! string-encoded numbers and timestamps are parsed on the fly). Row objects
//! are pivoted into columns on the fly, keeping every key seen in any row.
//!
//! Semantics, errors and their order are specified in `docs/cube.md`. To
//! meet "a syntax error anywhere beats every later-phase error" without a
//! `Value` tree, the visitor never aborts on a semantic error: it records the
//! first one of each kind and keeps consuming the document the way
//! `serde_json`'s `Value` parser does (`deserialize_any` everywhere), so a
//! syntax error is found at the same position as the reference finds it.
//!
//! When `members` follows `columns`/`dataset` (or repeats after it) a second
//! pass over the document decodes the data with the final member list.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow_array::types::{
    Decimal128Type, Float64Type, Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{ArrayRef, BooleanArray, PrimitiveArray, RecordBatch, RecordBatchOptions, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::Implementation;

/// Metadata key marking a literal field; its value is one JSON scalar.
pub const LITERAL_KEY: &str = "cube.literal";
/// The largest limit a member-less query may ask for.
pub const MAX_LIMIT: i64 = 1_000_000;
/// A reused decoder forgets its row keys once it knows more than this many.
pub const MAX_KEPT_KEYS: usize = 4096;

/// The three shapes of a result's `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Rows,
    Compact,
    Columnar,
}

/// Every way decoding can fail (see `docs/cube.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CubeError {
    UnsupportedType {
        field: usize,
    },
    BadLiteral {
        field: usize,
    },
    BadLimit {
        limit: i64,
    },
    InvalidJson {
        offset: u64,
        message: String,
    },
    BadShape {
        path: String,
    },
    DuplicateMember {
        member: String,
    },
    ColumnCount {
        members: u64,
        columns: u64,
    },
    Ragged {
        index: u64,
        expected: u64,
        found: u64,
    },
    UnknownMember {
        member: String,
    },
    Unmappable {
        member: String,
        row: u64,
        ty: String,
        value: String,
    },
    Overflow {
        member: String,
        row: u64,
        ty: String,
        value: String,
    },
    TooLarge {
        field: usize,
    },
}

impl fmt::Display for CubeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CubeError::UnsupportedType { field } => write!(f, "field {field}: unsupported type"),
            CubeError::BadLiteral { field } => write!(f, "field {field}: literal does not map to its type"),
            CubeError::BadLimit { limit } => write!(f, "limit {limit} is outside 0..={MAX_LIMIT}"),
            CubeError::InvalidJson { offset, message } => write!(f, "invalid JSON at byte {offset}: {message}"),
            CubeError::BadShape { path } => write!(f, "unexpected JSON shape at '{path}'"),
            CubeError::DuplicateMember { member } => write!(f, "member '{member}' listed twice"),
            CubeError::ColumnCount { members, columns } => write!(f, "{members} members but {columns} columns"),
            CubeError::Ragged { index, expected, found } => {
                write!(f, "ragged data: entry {index} has {found} values, expected {expected}")
            }
            CubeError::UnknownMember { member } => write!(f, "member '{member}' is not in the schema"),
            CubeError::Unmappable { member, row, ty, value } => {
                write!(f, "Unable to map value {value} to {ty} (member '{member}', row {row})")
            }
            CubeError::Overflow { member, row, ty, value } => {
                write!(f, "value {value} overflows {ty} (member '{member}', row {row})")
            }
            CubeError::TooLarge { field } => write!(f, "field {field}: string column exceeds i32 offsets"),
        }
    }
}

impl std::error::Error for CubeError {}

/// Whether a string column of `bytes` bytes fits Arrow's i32 offsets.
#[inline]
fn fits_i32_offsets(bytes: u128) -> bool {
    bytes <= i32::MAX as u128
}

/// The bytes of a literal string column: the text once per row.
fn literal_bytes(text_len: usize, rows: u64) -> u128 {
    text_len as u128 * u128::from(rows)
}

/// The signature every registry entry shares.
pub type DecodeFn = fn(&mut CubeDecoder, &[u8], Shape, &SchemaRef, Option<i64>) -> Result<RecordBatch, CubeError>;

/// Every implementation, best first; the last is portable.
pub static IMPLEMENTATIONS: &[Implementation<DecodeFn>] = &[Implementation::portable("cube/serde-stream", decode_with)];

/// Decode with the best available implementation and a fresh decoder.
pub fn decode(json: &[u8], shape: Shape, schema: &SchemaRef, limit: Option<i64>) -> Result<RecordBatch, CubeError> {
    static BEST: crate::Best<DecodeFn> = crate::Best::new(IMPLEMENTATIONS);
    BEST.get()(&mut CubeDecoder::new(), json, shape, schema, limit)
}

/// A reusable decoder: keeps the row pivot's key table between calls, so a
/// stream of batches with the same keys skips re-learning them.
#[derive(Default)]
pub struct CubeDecoder {
    keys: HashMap<Box<str>, usize>,
    names: Vec<Box<str>>,
}

impl CubeDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many row keys the decoder knows (kept between calls).
    pub fn known_keys(&self) -> usize {
        self.names.len()
    }
}

/// Byte offset of a serde_json error: start of line `line` plus `column`.
pub fn json_error_offset(input: &[u8], line: usize, column: usize) -> u64 {
    let mut start = 0usize;
    let mut remaining = line.saturating_sub(1);
    if remaining > 0 {
        for (i, &b) in input.iter().enumerate() {
            if b == b'\n' {
                remaining -= 1;
                if remaining == 0 {
                    start = i + 1;
                    break;
                }
            }
        }
    }
    (start + column).saturating_sub(1) as u64
}

// ---------------------------------------------------------------------------
// Cells and conversion

/// One JSON value as the visitor sees it.
#[derive(Clone, Copy)]
enum Cell<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'a str),
    Array,
    Object,
}

impl Cell<'_> {
    /// The value's JSON text for messages (nested values abbreviated).
    fn text(&self) -> String {
        match *self {
            Cell::Null => "null".into(),
            Cell::Bool(b) => b.to_string(),
            Cell::U64(u) => u.to_string(),
            Cell::I64(i) => i.to_string(),
            Cell::F64(f) => number_text(f),
            Cell::Str(s) => serde_json::to_string(s).unwrap_or_default(),
            Cell::Array => "[...]".into(),
            Cell::Object => "{...}".into(),
        }
    }
}

/// serde_json's text of an f64 number.
fn number_text(f: f64) -> String {
    serde_json::Number::from_f64(f)
        .map(|n| n.to_string())
        .unwrap_or_default()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MapError {
    Unmappable,
    Overflow,
}

#[derive(Debug, Clone, Copy)]
enum Conv {
    Utf8,
    Int64,
    Float64,
    Boolean,
    /// Timestamp; the unit's ticks per second's digit count (3, 6, 9).
    Timestamp(u32),
    Decimal {
        precision: u8,
        scale: u8,
    },
}

fn conv_of(ty: &DataType) -> Option<Conv> {
    Some(match ty {
        DataType::Utf8 => Conv::Utf8,
        DataType::Int64 => Conv::Int64,
        DataType::Float64 => Conv::Float64,
        DataType::Boolean => Conv::Boolean,
        DataType::Timestamp(TimeUnit::Millisecond, None) => Conv::Timestamp(3),
        DataType::Timestamp(TimeUnit::Microsecond, None) => Conv::Timestamp(6),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => Conv::Timestamp(9),
        DataType::Decimal128(p, s) if (1..=38).contains(p) && *s >= 0 && (*s as u8) <= *p => Conv::Decimal {
            precision: *p,
            scale: *s as u8,
        },
        _ => return None,
    })
}

/// `[+-]?[0-9]+` to i64.
#[inline]
fn parse_i64(s: &[u8]) -> Result<i64, MapError> {
    let (negative, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(MapError::Unmappable);
    }
    // Accumulate negatively so i64::MIN fits.
    let mut acc: i64 = 0;
    let mut overflow = false;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return Err(MapError::Unmappable);
        }
        if !overflow {
            match acc.checked_mul(10).and_then(|v| v.checked_sub(i64::from(d))) {
                Some(v) => acc = v,
                None => overflow = true,
            }
        }
    }
    if overflow {
        return Err(MapError::Overflow);
    }
    if negative {
        Ok(acc)
    } else {
        acc.checked_neg().ok_or(MapError::Overflow)
    }
}

#[inline]
fn two(b: &[u8], at: usize) -> Option<i64> {
    let (x, y) = (b[at].wrapping_sub(b'0'), b[at + 1].wrapping_sub(b'0'));
    if x > 9 || y > 9 {
        None
    } else {
        Some(i64::from(x) * 10 + i64::from(y))
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// days_from_civil).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}][Z]` to ticks of 10^-`digits` seconds.
fn parse_timestamp(s: &[u8], digits: u32) -> Result<i64, MapError> {
    const BAD: MapError = MapError::Unmappable;
    if s.len() < 19 || s[4] != b'-' || s[7] != b'-' || s[10] != b'T' || s[13] != b':' || s[16] != b':' {
        return Err(BAD);
    }
    let year = two(s, 0).ok_or(BAD)? * 100 + two(s, 2).ok_or(BAD)?;
    let month = two(s, 5).ok_or(BAD)?;
    let day = two(s, 8).ok_or(BAD)?;
    let hour = two(s, 11).ok_or(BAD)?;
    let minute = two(s, 14).ok_or(BAD)?;
    let second = two(s, 17).ok_or(BAD)?;
    let mut at = 19;
    let mut fraction: i64 = 0; // in nanoseconds
    if s.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        let mut scale = 100_000_000i64;
        while at < s.len() && s[at].is_ascii_digit() {
            if at - start == 9 {
                return Err(BAD);
            }
            fraction += i64::from(s[at] - b'0') * scale;
            scale /= 10;
            at += 1;
        }
        if at == start {
            return Err(BAD);
        }
    }
    if s.get(at) == Some(&b'Z') {
        at += 1;
    }
    if at != s.len() {
        return Err(BAD);
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let max_day = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 => 28 + i64::from(leap),
        _ => return Err(BAD),
    };
    if day < 1 || day > max_day || hour > 23 || minute > 59 || second > 59 {
        return Err(BAD);
    }
    let nanos_per_tick = 10i64.pow(9 - digits);
    if fraction % nanos_per_tick != 0 {
        return Err(BAD);
    }
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
    let ticks_per_sec = 10i64.pow(digits);
    // The seconds alone may pass i64 at the lower ns edge even though the
    // value with its fraction fits: add in i128.
    let ticks = i128::from(secs) * i128::from(ticks_per_sec) + i128::from(fraction / nanos_per_tick);
    i64::try_from(ticks).map_err(|_| MapError::Overflow)
}

/// `[+-]?D*(.D*)?` (at least one digit) to an unscaled i128.
fn parse_decimal(s: &[u8], precision: u8, scale: u8) -> Result<i128, MapError> {
    let (negative, body) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac_part) = match body.iter().position(|&c| c == b'.') {
        Some(p) => (&body[..p], &body[p + 1..]),
        None => (body, &body[body.len()..]),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(MapError::Unmappable);
    }
    let scale = usize::from(scale);
    // Grammar first: every byte a digit, excess fraction digits all zero.
    if !int_part.iter().all(u8::is_ascii_digit) || !frac_part.iter().all(u8::is_ascii_digit) {
        return Err(MapError::Unmappable);
    }
    if frac_part
        .get(scale..)
        .is_some_and(|excess| excess.iter().any(|&c| c != b'0'))
    {
        return Err(MapError::Unmappable);
    }
    let mut v: Option<i128> = Some(0);
    for &c in int_part.iter().chain(frac_part.iter().take(scale)) {
        v = v
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(i128::from(c - b'0')));
    }
    for _ in frac_part.len().min(scale)..scale {
        v = v.and_then(|v| v.checked_mul(10));
    }
    let v = v.ok_or(MapError::Overflow)?;
    if v >= 10i128.pow(u32::from(precision)) {
        return Err(MapError::Overflow);
    }
    Ok(if negative { -v } else { v })
}

fn decimal_of(cell: Cell<'_>, precision: u8, scale: u8) -> Result<i128, MapError> {
    match cell {
        Cell::Str(s) => parse_decimal(s.as_bytes(), precision, scale),
        Cell::U64(u) => parse_decimal(u.to_string().as_bytes(), precision, scale),
        Cell::I64(i) => parse_decimal(i.to_string().as_bytes(), precision, scale),
        Cell::F64(f) => parse_decimal(format!("{f}").as_bytes(), precision, scale),
        _ => Err(MapError::Unmappable),
    }
}

// ---------------------------------------------------------------------------
// Column buffers

enum Data {
    Str { offsets: Vec<i32>, bytes: Vec<u8> },
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    I128(Vec<i128>),
}

struct Col {
    conv: Conv,
    member: Arc<str>,
    data: Data,
    valid: Vec<bool>,
    /// The first cell error of this field: (row, error).
    err: Option<(u64, CubeError)>,
}

impl Col {
    fn new(conv: Conv, member: Arc<str>) -> Self {
        let data = match conv {
            Conv::Utf8 => Data::Str {
                offsets: vec![0],
                bytes: Vec::new(),
            },
            Conv::Int64 | Conv::Timestamp(_) => Data::I64(Vec::new()),
            Conv::Float64 => Data::F64(Vec::new()),
            Conv::Boolean => Data::Bool(Vec::new()),
            Conv::Decimal { .. } => Data::I128(Vec::new()),
        };
        Col {
            conv,
            member,
            data,
            valid: Vec::new(),
            err: None,
        }
    }

    fn len(&self) -> usize {
        self.valid.len()
    }

    fn push_null(&mut self) {
        self.valid.push(false);
        match &mut self.data {
            Data::Str { offsets, bytes } => offsets.push(bytes.len() as i32),
            Data::I64(v) => v.push(0),
            Data::F64(v) => v.push(0.0),
            Data::Bool(v) => v.push(false),
            Data::I128(v) => v.push(0),
        }
    }

    fn pop(&mut self) {
        self.valid.pop();
        match &mut self.data {
            Data::Str { offsets, bytes } => {
                offsets.pop();
                bytes.truncate(*offsets.last().expect("offsets start with 0") as usize);
            }
            Data::I64(v) => drop(v.pop()),
            Data::F64(v) => drop(v.pop()),
            Data::Bool(v) => drop(v.pop()),
            Data::I128(v) => drop(v.pop()),
        }
    }

    fn push_str(&mut self, s: &str) -> Result<(), ()> {
        let Data::Str { offsets, bytes } = &mut self.data else {
            unreachable!("Utf8 column")
        };
        let end = bytes.len() + s.len();
        if !fits_i32_offsets(end as u128) {
            return Err(());
        }
        bytes.extend_from_slice(s.as_bytes());
        offsets.push(end as i32);
        self.valid.push(true);
        Ok(())
    }

    /// Append `cell` at `row` (the column is padded with nulls up to `row`).
    /// A value this row already has is replaced: a key repeated in a row
    /// object, last one wins. Only a repeat reaches a row twice, since each
    /// key feeds its own fields (a repeated member is an error anyway).
    #[inline]
    fn put(&mut self, field: usize, row: u64, cell: Cell<'_>) {
        if let Some((at, _)) = &self.err {
            // The first error stands, unless it is this row's, being replaced.
            if *at != row {
                return;
            }
            self.err = None;
        }
        let r = row as usize;
        if self.len() == r + 1 {
            self.pop();
        }
        while self.len() < r {
            self.push_null();
        }
        if let Err(e) = self.append(cell) {
            let (member, ty, value) = (self.member.to_string(), self.ty_text(), cell.text());
            let error = match e {
                Some(MapError::Unmappable) => CubeError::Unmappable { member, row, ty, value },
                Some(MapError::Overflow) => CubeError::Overflow { member, row, ty, value },
                None => CubeError::TooLarge { field },
            };
            self.err = Some((row, error));
        }
    }

    fn ty_text(&self) -> String {
        data_type(self.conv).to_string()
    }

    /// Convert and append; `Err(None)` is a string column over i32 offsets.
    #[inline]
    fn append(&mut self, cell: Cell<'_>) -> Result<(), Option<MapError>> {
        use MapError::{Overflow as O, Unmappable as U};
        if let Cell::Null = cell {
            self.push_null();
            return Ok(());
        }
        match (&mut self.data, self.conv) {
            (Data::Str { .. }, _) => {
                let r = match cell {
                    Cell::Str(s) => self.push_str(s),
                    Cell::Bool(b) => self.push_str(if b { "true" } else { "false" }),
                    Cell::U64(u) => self.push_str(&u.to_string()),
                    Cell::I64(i) => self.push_str(&i.to_string()),
                    Cell::F64(f) => self.push_str(&number_text(f)),
                    _ => return Err(Some(U)),
                };
                return r.map_err(|_| None);
            }
            (Data::I64(v), Conv::Int64) => v.push(match cell {
                Cell::Str(s) => parse_i64(s.as_bytes()).map_err(Some)?,
                Cell::I64(i) => i,
                Cell::U64(u) => i64::try_from(u).map_err(|_| Some(O))?,
                _ => return Err(Some(U)),
            }),
            (Data::I64(v), Conv::Timestamp(digits)) => v.push(match cell {
                Cell::Str(s) => parse_timestamp(s.as_bytes(), digits).map_err(Some)?,
                Cell::I64(i) => i,
                Cell::U64(u) => i64::try_from(u).map_err(|_| Some(O))?,
                _ => return Err(Some(U)),
            }),
            (Data::F64(v), _) => v.push(match cell {
                Cell::Str(s) => s.parse::<f64>().map_err(|_| Some(U))?,
                Cell::I64(i) => i as f64,
                Cell::U64(u) => u as f64,
                Cell::F64(f) => f,
                _ => return Err(Some(U)),
            }),
            (Data::Bool(v), _) => v.push(match cell {
                Cell::Bool(b) => b,
                Cell::Str("true" | "1") => true,
                Cell::Str("false" | "0") => false,
                _ => return Err(Some(U)),
            }),
            (Data::I128(v), Conv::Decimal { precision, scale }) => {
                v.push(decimal_of(cell, precision, scale).map_err(Some)?)
            }
            _ => unreachable!("column data matches its conversion"),
        }
        self.valid.push(true);
        Ok(())
    }

    fn finish(self, rows: usize, ty: &DataType) -> ArrayRef {
        let mut col = self;
        while col.len() < rows {
            col.push_null();
        }
        let nulls = if col.valid.iter().all(|v| *v) {
            None
        } else {
            Some(NullBuffer::from(col.valid))
        };
        match col.data {
            Data::Str { offsets, bytes } => {
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                // SAFETY: `bytes` is a concatenation of `&str` values, so it is
                // valid UTF-8 and every offset (pushed after each value, and
                // checked to fit i32) lies on a char boundary; offsets start
                // at 0, never decrease and end at `bytes.len()`; there is one
                // more offset than validity entries.
                Arc::new(unsafe { StringArray::new_unchecked(offsets, Buffer::from_vec(bytes), nulls) })
            }
            Data::I64(v) => match ty {
                DataType::Int64 => Arc::new(PrimitiveArray::<Int64Type>::new(v.into(), nulls)),
                DataType::Timestamp(TimeUnit::Millisecond, _) => {
                    Arc::new(PrimitiveArray::<TimestampMillisecondType>::new(v.into(), nulls))
                }
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    Arc::new(PrimitiveArray::<TimestampMicrosecondType>::new(v.into(), nulls))
                }
                _ => Arc::new(PrimitiveArray::<TimestampNanosecondType>::new(v.into(), nulls)),
            },
            Data::F64(v) => Arc::new(PrimitiveArray::<Float64Type>::new(v.into(), nulls)),
            Data::Bool(v) => Arc::new(BooleanArray::new(v.into(), nulls)),
            Data::I128(v) => {
                let Conv::Decimal { precision, scale } = col.conv else {
                    unreachable!("decimal column")
                };
                Arc::new(
                    PrimitiveArray::<Decimal128Type>::new(v.into(), nulls)
                        .with_precision_and_scale(precision, scale as i8)
                        .expect("precision and scale checked up front"),
                )
            }
        }
    }
}

fn data_type(conv: Conv) -> DataType {
    match conv {
        Conv::Utf8 => DataType::Utf8,
        Conv::Int64 => DataType::Int64,
        Conv::Float64 => DataType::Float64,
        Conv::Boolean => DataType::Boolean,
        Conv::Timestamp(3) => DataType::Timestamp(TimeUnit::Millisecond, None),
        Conv::Timestamp(6) => DataType::Timestamp(TimeUnit::Microsecond, None),
        Conv::Timestamp(_) => DataType::Timestamp(TimeUnit::Nanosecond, None),
        Conv::Decimal { precision, scale } => DataType::Decimal128(precision, scale as i8),
    }
}

// ---------------------------------------------------------------------------
// Decoding state

/// An owned JSON scalar (literal fields).
#[derive(Clone)]
enum Scalar {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    Nested,
}

impl Scalar {
    fn cell(&self) -> Cell<'_> {
        match self {
            Scalar::Null => Cell::Null,
            Scalar::Bool(b) => Cell::Bool(*b),
            Scalar::U64(u) => Cell::U64(*u),
            Scalar::I64(i) => Cell::I64(*i),
            Scalar::F64(f) => Cell::F64(*f),
            Scalar::Str(s) => Cell::Str(s),
            Scalar::Nested => Cell::Array,
        }
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::U64(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::I64(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::F64(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Str(v.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(Scalar::Nested)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(Scalar::Nested)
    }
}

/// Parse a literal field's text into a scalar, if it is one.
fn parse_literal(text: &str) -> Option<Scalar> {
    let mut de = serde_json::Deserializer::from_str(text);
    let scalar = de.deserialize_any(ScalarVisitor).ok()?;
    de.end().ok()?;
    match scalar {
        Scalar::Nested => None,
        s => Some(s),
    }
}

/// What the members list of a compact/columnar document turned out to be.
#[derive(Default)]
enum MembersState {
    /// No members array: the key is absent or its value is not an array
    /// (the same error either way).
    #[default]
    Missing,
    /// Names, first non-string index, first repeated name.
    List {
        names: Vec<Arc<str>>,
        non_string: Option<usize>,
        duplicate: Option<String>,
    },
}

#[derive(Default)]
enum DataState {
    /// No data array: the key is absent or its value is not an array.
    #[default]
    Missing,
    Array,
}

struct State<'k> {
    shape: Shape,
    cols: Vec<Col>,
    /// Field indices reading each slot (member index or pivot key slot).
    targets: Vec<Vec<usize>>,
    /// Field indices by member name (member fields only).
    by_name: HashMap<Arc<str>, Vec<usize>>,
    // Rows.
    top_bad: bool,
    first_bad_entry: Option<u64>,
    rows: u64,
    unknown_row_key: Option<(u64, String)>,
    keys: &'k mut HashMap<Box<str>, usize>,
    names: &'k mut Vec<Box<str>>,
    /// Slot order of the previous row, to predict keys without hashing.
    order: Vec<usize>,
    // Compact / columnar.
    members: MembersState,
    data: DataState,
    lengths: Vec<u64>,
    first_ragged: Option<(u64, u64)>,
    data_seen: bool,
    members_after_data: bool,
    data_occurrences: usize,
    second_pass: bool,
    last_data: usize,
}

impl State<'_> {
    /// Forget decoded data (a data key seen again: the last one wins).
    fn reset_data(&mut self) {
        for col in &mut self.cols {
            *col = Col::new(col.conv, col.member.clone());
        }
        self.lengths.clear();
        self.first_ragged = None;
        self.first_bad_entry = None;
        self.rows = 0;
        self.data = DataState::Missing;
    }

    /// Point member slots at the fields that read them.
    fn bind_members(&mut self) {
        self.targets.clear();
        if let MembersState::List { names, .. } = &self.members {
            for name in names {
                self.targets.push(self.by_name.get(name).cloned().unwrap_or_default());
            }
        }
    }

    #[inline]
    fn cell(&mut self, slot: usize, row: u64, cell: Cell<'_>) {
        if let Some(fields) = self.targets.get(slot) {
            for &f in fields {
                self.cols[f].put(f, row, cell);
            }
        }
    }

    /// The pivot slot of a row key, learning new keys.
    #[inline]
    fn slot_of(&mut self, key: &str, predicted: Option<usize>) -> usize {
        if let Some(predicted) = predicted {
            if &*self.names[predicted] == key {
                return predicted;
            }
        }
        if let Some(&slot) = self.keys.get(key) {
            return slot;
        }
        let slot = self.names.len();
        self.names.push(key.into());
        self.keys.insert(key.into(), slot);
        slot
    }

    /// Make sure `targets` covers every known pivot slot.
    fn bind_slots(&mut self) {
        while self.targets.len() < self.names.len() {
            let name = &self.names[self.targets.len()];
            self.targets
                .push(self.by_name.get(&**name).cloned().unwrap_or_default());
        }
    }
}

// ---------------------------------------------------------------------------
// Visitors

/// Consume any value exactly as serde_json's `Value` parser would.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

/// Implements the scalar visits of a visitor that expects a container: the
/// value is recorded as the wrong shape via `self.wrong()`.
macro_rules! wrong_scalars {
    () => {
        fn visit_unit<E>(self) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
    };
}

/// Skip a container's content after recording it as the wrong shape.
macro_rules! wrong_seq {
    () => {
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
            self.wrong();
            SkipVisitor.visit_seq(seq)
        }
    };
}
macro_rules! wrong_map {
    () => {
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            self.wrong();
            SkipVisitor.visit_map(map)
        }
    };
}

macro_rules! expecting {
    () => {
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a Cube result")
        }
    };
}

/// One cell, delivered to the fields reading `slot`.
struct CellSeed<'s, 'k> {
    st: &'s mut State<'k>,
    slot: usize,
    row: u64,
}

impl<'de> DeserializeSeed<'de> for CellSeed<'_, '_> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl CellSeed<'_, '_> {
    #[inline]
    fn put(self, cell: Cell<'_>) {
        self.st.cell(self.slot, self.row, cell);
    }
}

impl<'de> Visitor<'de> for CellSeed<'_, '_> {
    type Value = ();
    expecting!();
    fn visit_unit<E>(self) -> Result<(), E> {
        self.put(Cell::Null);
        Ok(())
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.put(Cell::Bool(v));
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.put(Cell::U64(v));
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.put(Cell::I64(v));
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.put(Cell::F64(v));
        Ok(())
    }
    #[inline]
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.put(Cell::Str(v));
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        SkipVisitor.visit_seq(seq)?;
        self.put(Cell::Array);
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        SkipVisitor.visit_map(map)?;
        self.put(Cell::Object);
        Ok(())
    }
}

// ---- rows

struct RowsTop<'s, 'k>(&'s mut State<'k>);

impl RowsTop<'_, '_> {
    fn wrong(self) {
        self.0.top_bad = true;
    }
}

impl<'de> Visitor<'de> for RowsTop<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.0;
        loop {
            let row = st.rows;
            if seq.next_element_seed(RowSeed { st: &mut *st, row })?.is_none() {
                break;
            }
            st.rows += 1;
        }
        Ok(())
    }
}

struct RowSeed<'s, 'k> {
    st: &'s mut State<'k>,
    row: u64,
}

impl RowSeed<'_, '_> {
    fn wrong(self) {
        if self.st.first_bad_entry.is_none() {
            self.st.first_bad_entry = Some(self.row);
        }
    }
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_seq!();
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let st = self.st;
        let row = self.row;
        let previous = std::mem::take(&mut st.order);
        let mut current: Vec<usize> = Vec::with_capacity(previous.len());
        loop {
            let predicted = previous.get(current.len()).copied();
            let Some(slot) = map.next_key_seed(KeySeed {
                st: &mut *st,
                predicted,
            })?
            else {
                break;
            };
            st.bind_slots();
            if st.targets[slot].is_empty() {
                let name = &st.names[slot];
                // The first row with an unknown key names its smallest one.
                let first = match st.unknown_row_key.take() {
                    None => (row, name.to_string()),
                    Some((r, n)) if r == row => (r, std::cmp::min(n, name.to_string())),
                    Some(earlier) => earlier,
                };
                st.unknown_row_key = Some(first);
            }
            map.next_value_seed(CellSeed {
                st: &mut *st,
                slot,
                row,
            })?;
            current.push(slot);
        }
        st.order = current;
        Ok(())
    }
}

/// A row key, resolved to its pivot slot.
struct KeySeed<'s, 'k> {
    st: &'s mut State<'k>,
    predicted: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_, '_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    #[inline]
    fn visit_str<E>(self, v: &str) -> Result<usize, E> {
        Ok(self.st.slot_of(v, self.predicted))
    }
}

// ---- compact and columnar

enum TopKey {
    Members,
    Data,
    Other,
}

struct TopKeySeed(&'static str);

impl<'de> DeserializeSeed<'de> for TopKeySeed {
    type Value = TopKey;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TopKey, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TopKeySeed {
    type Value = TopKey;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> Result<TopKey, E> {
        Ok(if v == "members" {
            TopKey::Members
        } else if v == self.0 {
            TopKey::Data
        } else {
            TopKey::Other
        })
    }
}

struct ObjectTop<'s, 'k>(&'s mut State<'k>);

impl ObjectTop<'_, '_> {
    fn wrong(self) {
        self.0.top_bad = true;
    }
}

impl<'de> Visitor<'de> for ObjectTop<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_seq!();
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let st = self.0;
        let data_key = if st.shape == Shape::Compact {
            "dataset"
        } else {
            "columns"
        };
        while let Some(key) = map.next_key_seed(TopKeySeed(data_key))? {
            match key {
                TopKey::Members if !st.second_pass => {
                    if st.data_seen {
                        st.members_after_data = true;
                    }
                    // Each members key replaces the one before; a value
                    // that is not an array leaves none.
                    st.members = MembersState::Missing;
                    map.next_value_seed(MembersSeed(&mut *st))?;
                }
                TopKey::Data => {
                    let k = st.data_occurrences;
                    st.data_occurrences += 1;
                    st.data_seen = true;
                    // A bad members list is an error whatever the data
                    // holds, so its data is decoded anyway (and thrown away).
                    let process = !st.second_pass || k == st.last_data;
                    if process {
                        st.reset_data();
                        st.bind_members();
                        map.next_value_seed(DataSeed(&mut *st))?;
                    } else {
                        map.next_value_seed(Skip)?;
                    }
                }
                _ => map.next_value_seed(Skip)?,
            }
        }
        Ok(())
    }
}

struct MembersSeed<'s, 'k>(&'s mut State<'k>);

impl MembersSeed<'_, '_> {
    /// Nothing to record: the caller set the members to missing before
    /// visiting, and a value of the wrong shape leaves them so.
    fn wrong(self) {}
}

impl<'de> DeserializeSeed<'de> for MembersSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MembersSeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut names: Vec<Arc<str>> = Vec::new();
        let mut non_string = None;
        let mut duplicate = None;
        let mut seen: std::collections::HashSet<Arc<str>> = std::collections::HashSet::new();
        let mut index = 0;
        while let Some(scalar) = seq.next_element_seed(ScalarSeed)? {
            match scalar {
                Scalar::Str(s) => {
                    let name: Arc<str> = s.into();
                    if !seen.insert(name.clone()) && duplicate.is_none() {
                        duplicate = Some(name.to_string());
                    }
                    names.push(name);
                }
                _ => {
                    if non_string.is_none() {
                        non_string = Some(index);
                    }
                }
            }
            index += 1;
        }
        self.0.members = MembersState::List {
            names,
            non_string,
            duplicate,
        };
        Ok(())
    }
}

struct ScalarSeed;

impl<'de> DeserializeSeed<'de> for ScalarSeed {
    type Value = Scalar;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct DataSeed<'s, 'k>(&'s mut State<'k>);

impl DataSeed<'_, '_> {
    /// Nothing to record: `reset_data` set the data to missing before
    /// visiting, and a value of the wrong shape leaves it so.
    fn wrong(self) {}
}

impl<'de> DeserializeSeed<'de> for DataSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DataSeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.0;
        st.data = DataState::Array;
        let mut index = 0u64;
        while seq.next_element_seed(EntrySeed { st: &mut *st, index })?.is_some() {
            index += 1;
        }
        st.rows = index;
        Ok(())
    }
}

/// One column (columnar) or one row (compact) of the data array.
struct EntrySeed<'s, 'k> {
    st: &'s mut State<'k>,
    index: u64,
}

impl EntrySeed<'_, '_> {
    fn wrong(self) {
        if self.st.first_bad_entry.is_none() {
            self.st.first_bad_entry = Some(self.index);
        }
        self.st.lengths.push(0);
    }
}

impl<'de> DeserializeSeed<'de> for EntrySeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.st;
        let mut n = 0u64;
        if st.shape == Shape::Columnar {
            let slot = self.index as usize;
            while seq
                .next_element_seed(CellSeed {
                    st: &mut *st,
                    slot,
                    row: n,
                })?
                .is_some()
            {
                n += 1;
            }
            st.lengths.push(n);
        } else {
            let row = self.index;
            loop {
                let slot = n as usize;
                if seq
                    .next_element_seed(CellSeed {
                        st: &mut *st,
                        slot,
                        row,
                    })?
                    .is_none()
                {
                    break;
                }
                n += 1;
            }
            let expected = st.targets.len() as u64;
            if n != expected && st.first_ragged.is_none() {
                st.first_ragged = Some((row, n));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Driver

enum Source {
    Member,
    Literal(Scalar),
}

/// The `serde-stream` kernel.
pub fn decode_with(
    decoder: &mut CubeDecoder,
    json: &[u8],
    shape: Shape,
    schema: &SchemaRef,
    limit: Option<i64>,
) -> Result<RecordBatch, CubeError> {
    // Phase 0: schema, then limit.
    let mut convs = Vec::with_capacity(schema.fields().len());
    let mut sources = Vec::with_capacity(schema.fields().len());
    for (index, field) in schema.fields().iter().enumerate() {
        // Columns are built nullable: a non-nullable field is unsupported.
        let conv = conv_of(field.data_type())
            .filter(|_| field.is_nullable())
            .ok_or(CubeError::UnsupportedType { field: index })?;
        convs.push(conv);
        match field.metadata().get(LITERAL_KEY) {
            None => sources.push(Source::Member),
            Some(text) => {
                let scalar = parse_literal(text).ok_or(CubeError::BadLiteral { field: index })?;
                let mut probe = Col::new(conv, "".into());
                if probe.append(scalar.cell()).is_err() {
                    return Err(CubeError::BadLiteral { field: index });
                }
                sources.push(Source::Literal(scalar));
            }
        }
    }
    let has_member_field = sources.iter().any(|s| matches!(s, Source::Member));
    let limit_rows = match (has_member_field, limit) {
        (false, Some(l)) => {
            if !(0..=MAX_LIMIT).contains(&l) {
                return Err(CubeError::BadLimit { limit: l });
            }
            Some(l as u64)
        }
        _ => None,
    };

    let mut by_name: HashMap<Arc<str>, Vec<usize>> = HashMap::new();
    let mut cols = Vec::with_capacity(convs.len());
    for (index, (field, conv)) in schema.fields().iter().zip(&convs).enumerate() {
        let name: Arc<str> = field.name().as_str().into();
        if matches!(sources[index], Source::Member) {
            by_name.entry(name.clone()).or_default().push(index);
        }
        cols.push(Col::new(*conv, name));
    }
    // A reused key table must not outgrow what one call can learn.
    if decoder.names.len() > MAX_KEPT_KEYS {
        decoder.names.clear();
        decoder.keys.clear();
    }
    let mut st = State {
        shape,
        cols,
        targets: Vec::new(),
        by_name,
        top_bad: false,
        first_bad_entry: None,
        rows: 0,
        unknown_row_key: None,
        keys: &mut decoder.keys,
        names: &mut decoder.names,
        order: Vec::new(),
        members: MembersState::Missing,
        data: DataState::Missing,
        lengths: Vec::new(),
        first_ragged: None,
        data_seen: false,
        members_after_data: false,
        data_occurrences: 0,
        second_pass: false,
        last_data: 0,
    };

    // Phase 1 (and the data, streamed).
    parse(json, &mut st)?;
    // `members_after_data` implies a data key was seen (data_occurrences >= 1).
    if shape != Shape::Rows && st.members_after_data {
        st.second_pass = true;
        st.last_data = st.data_occurrences - 1;
        st.data_occurrences = 0;
        parse(json, &mut st)?;
    }

    // Phases 2-4.
    let bad = |path: String| Err(CubeError::BadShape { path });
    if st.top_bad {
        return bad(String::new());
    }
    let rows_in_data;
    match shape {
        Shape::Rows => {
            if let Some(i) = st.first_bad_entry {
                return bad(format!("/{i}"));
            }
            if let Some((_, member)) = st.unknown_row_key.take() {
                return Err(CubeError::UnknownMember { member });
            }
            rows_in_data = st.rows;
        }
        Shape::Compact | Shape::Columnar => {
            let key = if shape == Shape::Compact { "dataset" } else { "columns" };
            let names = match &st.members {
                MembersState::Missing => return bad("/members".into()),
                MembersState::List {
                    non_string: Some(i), ..
                } => return bad(format!("/members/{i}")),
                MembersState::List {
                    duplicate: Some(member),
                    ..
                } => return Err(CubeError::DuplicateMember { member: member.clone() }),
                MembersState::List { names, .. } => names.clone(),
            };
            match st.data {
                DataState::Missing => return bad(format!("/{key}")),
                DataState::Array => {}
            }
            if let Some(i) = st.first_bad_entry {
                return bad(format!("/{key}/{i}"));
            }
            if shape == Shape::Columnar {
                let columns = st.lengths.len() as u64;
                if columns != names.len() as u64 {
                    return Err(CubeError::ColumnCount {
                        members: names.len() as u64,
                        columns,
                    });
                }
                if let Some(&first) = st.lengths.first() {
                    if let Some(j) = st.lengths.iter().position(|&l| l != first) {
                        return Err(CubeError::Ragged {
                            index: j as u64,
                            expected: first,
                            found: st.lengths[j],
                        });
                    }
                }
                rows_in_data = st.lengths.first().copied().unwrap_or(0);
            } else {
                if let Some((index, found)) = st.first_ragged {
                    return Err(CubeError::Ragged {
                        index,
                        expected: names.len() as u64,
                        found,
                    });
                }
                rows_in_data = st.rows;
            }
            if let Some(j) = st.targets.iter().position(Vec::is_empty) {
                return Err(CubeError::UnknownMember {
                    member: names[j].to_string(),
                });
            }
        }
    }
    let rows = limit_rows.unwrap_or(rows_in_data);

    // Phase 5: the first cell error, by field then row; then the columns.
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(st.cols.len());
    for (index, (col, source)) in st.cols.drain(..).zip(&sources).enumerate() {
        let ty = schema.field(index).data_type();
        match source {
            Source::Literal(scalar) => {
                if let Scalar::Str(s) = scalar {
                    if !fits_i32_offsets(literal_bytes(s.len(), rows)) {
                        return Err(CubeError::TooLarge { field: index });
                    }
                }
                columns.push(literal_column(col.conv, scalar, rows as usize, ty));
            }
            Source::Member => {
                if let Some((_, error)) = col.err {
                    return Err(error);
                }
                columns.push(col.finish(rows as usize, ty));
            }
        }
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows as usize));
    Ok(RecordBatch::try_new_with_options(schema.clone(), columns, &options)
        .expect("columns are built from the schema's own types"))
}

fn literal_column(conv: Conv, scalar: &Scalar, rows: usize, ty: &DataType) -> ArrayRef {
    let mut col = Col::new(conv, "".into());
    let cell = scalar.cell();
    if !matches!(cell, Cell::Null) {
        for _ in 0..rows {
            // Checked in phase 0 (mapping) and just above (string size).
            let _ = col.append(cell);
        }
    }
    col.finish(rows, ty)
}

fn parse(json: &[u8], st: &mut State<'_>) -> Result<(), CubeError> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let result = match st.shape {
        Shape::Rows => de.deserialize_any(RowsTop(st)),
        _ => de.deserialize_any(ObjectTop(st)),
    }
    .and_then(|()| de.end());
    result.map_err(|e| CubeError::InvalidJson {
        offset: json_error_offset(json, e.line(), e.column()),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_match_known_epochs() {
        assert_eq!(parse_timestamp(b"1970-01-01T00:00:00.000", 3), Ok(0));
        assert_eq!(parse_timestamp(b"2024-01-01T00:00:00.000", 3), Ok(1_704_067_200_000));
        assert_eq!(parse_timestamp(b"1969-12-31T23:59:59.999999999Z", 9), Ok(-1));
        assert_eq!(parse_timestamp(b"2262-04-11T23:47:16.854775807", 9), Ok(i64::MAX));
        assert_eq!(
            parse_timestamp(b"2262-04-11T23:47:16.854775808", 9),
            Err(MapError::Overflow)
        );
        assert_eq!(parse_timestamp(b"1677-09-21T00:12:43.145224192", 9), Ok(i64::MIN));
        assert_eq!(
            parse_timestamp(b"1677-09-21T00:12:43.145224191", 9),
            Err(MapError::Overflow)
        );
        assert_eq!(parse_timestamp(b"2023-02-29T00:00:00", 3), Err(MapError::Unmappable));
        // Leap years: every fourth, but not centuries unless divisible by 400.
        assert_eq!(parse_timestamp(b"2024-02-29T00:00:00", 3), Ok(1_709_164_800_000));
        assert_eq!(parse_timestamp(b"2000-02-29T00:00:00", 3), Ok(951_782_400_000));
        assert_eq!(parse_timestamp(b"1600-02-29T00:00:00", 3), Ok(-11_670_998_400_000));
        assert_eq!(parse_timestamp(b"1900-02-29T00:00:00", 3), Err(MapError::Unmappable));
        assert_eq!(parse_timestamp(b"2100-02-29T00:00:00", 3), Err(MapError::Unmappable));
        assert_eq!(
            parse_timestamp(b"2024-01-01T00:00:00.0001", 3),
            Err(MapError::Unmappable)
        );
        assert_eq!(parse_timestamp(b"2024-01-01T00:00:00.0000", 3), Ok(1_704_067_200_000));
    }

    /// The messages users read: every variant says what failed and where.
    #[test]
    fn every_error_has_its_message() {
        let cell = |member: &str| (member.to_string(), 7u64, "Int64".to_string(), "\"x\"".to_string());
        let (member, row, ty, value) = cell("m");
        let cases = [
            (CubeError::UnsupportedType { field: 2 }, "field 2: unsupported type"),
            (
                CubeError::BadLiteral { field: 1 },
                "field 1: literal does not map to its type",
            ),
            (CubeError::BadLimit { limit: -1 }, "limit -1 is outside 0..=1000000"),
            (
                CubeError::InvalidJson {
                    offset: 9,
                    message: "EOF".into(),
                },
                "invalid JSON at byte 9: EOF",
            ),
            (
                CubeError::BadShape {
                    path: "/members/0".into(),
                },
                "unexpected JSON shape at '/members/0'",
            ),
            (
                CubeError::DuplicateMember { member: "a".into() },
                "member 'a' listed twice",
            ),
            (
                CubeError::ColumnCount { members: 2, columns: 3 },
                "2 members but 3 columns",
            ),
            (
                CubeError::Ragged {
                    index: 4,
                    expected: 2,
                    found: 1,
                },
                "ragged data: entry 4 has 1 values, expected 2",
            ),
            (
                CubeError::UnknownMember { member: "z".into() },
                "member 'z' is not in the schema",
            ),
            (
                CubeError::Unmappable {
                    member: member.clone(),
                    row,
                    ty: ty.clone(),
                    value: value.clone(),
                },
                "Unable to map value \"x\" to Int64 (member 'm', row 7)",
            ),
            (
                CubeError::Overflow { member, row, ty, value },
                "value \"x\" overflows Int64 (member 'm', row 7)",
            ),
            (
                CubeError::TooLarge { field: 3 },
                "field 3: string column exceeds i32 offsets",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    fn int_schema(names: impl IntoIterator<Item = String>) -> SchemaRef {
        let fields: Vec<_> = names
            .into_iter()
            .map(|n| arrow_schema::Field::new(n, DataType::Int64, true))
            .collect();
        Arc::new(arrow_schema::Schema::new(fields))
    }

    fn ints(batch: &RecordBatch, name: &str) -> Vec<Option<i64>> {
        let col = batch.column_by_name(name).expect("column");
        let col = col.as_any().downcast_ref::<PrimitiveArray<Int64Type>>().expect("Int64");
        col.iter().collect()
    }

    #[test]
    fn string_columns_fit_i32_offsets_up_to_the_last_byte() {
        assert!(fits_i32_offsets(i32::MAX as u128));
        assert!(!fits_i32_offsets(i32::MAX as u128 + 1));
        assert!(fits_i32_offsets(0));
        assert_eq!(literal_bytes(4096, 1_000_000), 4_096_000_000);
        assert_eq!(literal_bytes(3, 7), 21);
        assert_eq!(
            literal_bytes(usize::MAX, u64::MAX),
            usize::MAX as u128 * u64::MAX as u128
        );
    }

    /// A repeated key replaces its earlier value (even an unmappable one),
    /// in rows wider than 64 keys too.
    #[test]
    fn wide_rows_keep_the_last_of_a_repeated_key() {
        let names: Vec<String> = (0..70).map(|k| format!("k{k}")).collect();
        let schema = int_schema(names.clone());
        let row = |order: &mut dyn Iterator<Item = usize>| {
            let cells: Vec<String> = order.map(|k| format!("\"k{k}\":{k}")).collect();
            format!(
                "{{{},\"k65\":650,\"k3\":\"x\",\"k3\":30,\"k64\":null}}",
                cells.join(",")
            )
        };
        let json = format!("[{},{}]", row(&mut (0..70)), row(&mut (0..70).rev()));
        let batch = decode(json.as_bytes(), Shape::Rows, &schema, None).unwrap();
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(ints(&batch, "k65"), [Some(650), Some(650)]);
        assert_eq!(ints(&batch, "k3"), [Some(30), Some(30)]);
        assert_eq!(ints(&batch, "k64"), [None, None]);
        assert_eq!(ints(&batch, "k69"), [Some(69), Some(69)]);
        assert_eq!(ints(&batch, "k0"), [Some(0), Some(0)]);
    }

    /// The key table survives between calls (that is its point) and is
    /// dropped once it holds more than `MAX_KEPT_KEYS` keys.
    #[test]
    fn a_reused_decoder_keeps_its_keys_until_it_knows_too_many() {
        let schema = int_schema(["a".to_string(), "b".to_string()]);
        let mut decoder = CubeDecoder::new();
        let run = |d: &mut CubeDecoder, json: &str| decode_with(d, json.as_bytes(), Shape::Rows, &schema, None);
        assert_eq!(ints(&run(&mut decoder, "[{\"a\":1}]").unwrap(), "a"), [Some(1)]);
        assert_eq!(decoder.known_keys(), 1);
        assert_eq!(
            ints(&run(&mut decoder, "[{\"b\":2},{\"a\":3}]").unwrap(), "a"),
            [None, Some(3)]
        );
        assert_eq!(decoder.known_keys(), 2);

        // Exactly MAX_KEPT_KEYS keys are kept; one more and the next call starts afresh.
        let wide = |n: usize| {
            let cells: Vec<String> = (0..n).map(|k| format!("\"w{k}\":{k}")).collect();
            format!("[{{{}}}]", cells.join(","))
        };
        let mut decoder = CubeDecoder::new();
        assert!(matches!(
            run(&mut decoder, &wide(MAX_KEPT_KEYS)),
            Err(CubeError::UnknownMember { .. })
        ));
        assert_eq!(decoder.known_keys(), MAX_KEPT_KEYS);
        run(&mut decoder, "[{\"a\":1}]").unwrap();
        assert_eq!(decoder.known_keys(), MAX_KEPT_KEYS + 1);
        run(&mut decoder, "[{\"b\":1}]").unwrap();
        assert_eq!(decoder.known_keys(), 1);
    }

    /// A cell error quotes the value as JSON text, whatever its kind.
    #[test]
    fn cell_errors_quote_the_value() {
        let schema = |ty: DataType| Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new("a", ty, true)]));
        let cases = [
            (DataType::Int64, "\"x\"", "\"x\""),
            (DataType::Int64, "1.5", "1.5"),
            (DataType::Int64, "true", "true"),
            (DataType::Int64, "[1,[2]]", "[...]"),
            (DataType::Int64, "{\"b\":1}", "{...}"),
            (DataType::Int64, "18446744073709551615", "18446744073709551615"),
            (DataType::Boolean, "-5", "-5"),
            (DataType::Boolean, "7", "7"),
        ];
        for (ty, cell, text) in cases {
            let json = format!("[{{\"a\":null}},{{\"a\":{cell}}}]");
            let got = decode(json.as_bytes(), Shape::Rows, &schema(ty.clone()), None);
            match got {
                Err(CubeError::Unmappable { member, row, value, .. })
                | Err(CubeError::Overflow { member, row, value, .. }) => {
                    assert_eq!((member.as_str(), row, value.as_str()), ("a", 1, text), "{cell} as {ty}")
                }
                other => panic!("{cell} as {ty}: {other:?}"),
            }
        }
    }

    #[test]
    fn integers_and_decimals() {
        assert_eq!(parse_i64(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), Err(MapError::Overflow));
        assert_eq!(parse_i64(b"99999999999999999999x"), Err(MapError::Unmappable));
        assert_eq!(parse_decimal(b"-12.340", 5, 2), Ok(-1234));
        assert_eq!(parse_decimal(b"1234.5", 5, 2), Err(MapError::Overflow));
        assert_eq!(parse_decimal(b"1.235", 5, 2), Err(MapError::Unmappable));
        assert_eq!(parse_decimal(b".", 5, 2), Err(MapError::Unmappable));
    }
}
