//! Reference decoder for Cube JSON results (row, compact and columnar
//! shapes) into an Arrow `RecordBatch` — the obvious path: parse the whole
//! document into a `serde_json::Value`, then for each field and each row look
//! the value up by member name and append it, cell by cell.
//!
//! The semantics (value mapping, row count, errors and their order) are
//! specified in `docs/families/cube.md`; this module follows that text step by step.

use std::fmt;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::types::{Decimal128Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType};
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, SchemaRef, TimeUnit};
use serde_json::{Map, Value};

/// Metadata key marking a literal field; its value is one JSON scalar.
pub const LITERAL_KEY: &str = "cube.literal";
/// The largest limit a member-less query may ask for.
pub const MAX_LIMIT: i64 = 1_000_000;

/// The three shapes of a result's `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Rows,
    Compact,
    Columnar,
}

/// Every way decoding can fail (see `docs/families/cube.md`, "Errors and their order").
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
            CubeError::ColumnCount { members, columns } => {
                write!(f, "{members} members but {columns} columns")
            }
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

/// Byte offset of a serde_json error: start of line `line` plus `column`.
pub fn json_error_offset(input: &[u8], line: usize, column: usize) -> u64 {
    let mut current_line = 1;
    let mut start = 0;
    for (i, b) in input.iter().enumerate() {
        if current_line == line {
            break;
        }
        if *b == b'\n' {
            current_line += 1;
            start = i + 1;
        }
    }
    (start + column).saturating_sub(1) as u64
}

/// What a field reads.
enum Source {
    Member,
    Literal(Value),
}

/// Decode `json` of the given shape into a batch of `schema`.
pub fn decode(json: &[u8], shape: Shape, schema: &SchemaRef, limit: Option<i64>) -> Result<RecordBatch, CubeError> {
    // Phase 0: the schema, field by field, then the limit.
    let mut sources = Vec::new();
    for (index, field) in schema.fields().iter().enumerate() {
        if !supported(field.data_type()) || !field.is_nullable() {
            return Err(CubeError::UnsupportedType { field: index });
        }
        match field.metadata().get(LITERAL_KEY) {
            None => sources.push(Source::Member),
            Some(text) => {
                let value: Value = match serde_json::from_str(text) {
                    Ok(v) => v,
                    Err(_) => return Err(CubeError::BadLiteral { field: index }),
                };
                // Map it once into a scratch column to check it. Arrays and
                // objects map to no type, so this also refuses a literal that
                // is not a scalar.
                let mut scratch = ColumnBuilder::new(field.data_type(), 1);
                if scratch.append(&value, field.data_type()).is_err() {
                    return Err(CubeError::BadLiteral { field: index });
                }
                sources.push(Source::Literal(value));
            }
        }
    }
    let has_member_field = sources.iter().any(|s| matches!(s, Source::Member));
    let limit_rows = match (has_member_field, limit) {
        (false, Some(l)) => {
            if !(0..=MAX_LIMIT).contains(&l) {
                return Err(CubeError::BadLimit { limit: l });
            }
            Some(l as usize)
        }
        _ => None,
    };

    // Phase 1: the whole document must be JSON.
    let document: Value = serde_json::from_slice(json).map_err(|e| CubeError::InvalidJson {
        offset: json_error_offset(json, e.line(), e.column()),
        message: e.to_string(),
    })?;

    // Phases 2-4: shape, counts, unknown members. The result is a table view
    // that answers "the value of member m in row r".
    let table = Table::new(&document, shape)?;
    for member in table.members() {
        let read = schema
            .fields()
            .iter()
            .zip(&sources)
            .any(|(f, s)| matches!(s, Source::Member) && f.name() == &member);
        if !read {
            return Err(CubeError::UnknownMember { member });
        }
    }
    let rows = limit_rows.unwrap_or(table.row_count());

    // Phase 5: for each field, for each row, look the value up and append.
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (index, (field, source)) in schema.fields().iter().zip(&sources).enumerate() {
        let ty = field.data_type();
        let column = match source {
            Source::Literal(value) => {
                if let Value::String(s) = value {
                    if !fits_i32_offsets(s.len() as u128 * rows as u128) {
                        return Err(CubeError::TooLarge { field: index });
                    }
                }
                let mut builder = ColumnBuilder::new(ty, rows);
                for _ in 0..rows {
                    builder.append(value, ty).expect("literal checked in phase 0");
                }
                builder.finish(ty)
            }
            Source::Member => {
                let mut builder = ColumnBuilder::new(ty, rows);
                for row in 0..rows {
                    let value = table.get(field.name(), row);
                    let null = Value::Null;
                    let value = value.unwrap_or(&null);
                    if let Err(kind) = builder.append(value, ty) {
                        let (member, row, ty, value) =
                            (field.name().clone(), row as u64, ty.to_string(), value.to_string());
                        return Err(match kind {
                            MapError::Unmappable => CubeError::Unmappable { member, row, ty, value },
                            MapError::Overflow => CubeError::Overflow { member, row, ty, value },
                            MapError::TooLarge => CubeError::TooLarge { field: index },
                        });
                    }
                }
                builder.finish(ty)
            }
        };
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(schema.clone(), columns, &options)
        .expect("columns are built from the schema's own types"))
}

/// Whether a string column of `bytes` bytes in all fits Arrow's i32 offsets.
fn fits_i32_offsets(bytes: u128) -> bool {
    bytes <= i32::MAX as u128
}

fn supported(ty: &DataType) -> bool {
    match ty {
        DataType::Utf8 | DataType::Int64 | DataType::Float64 | DataType::Boolean => true,
        DataType::Timestamp(TimeUnit::Millisecond | TimeUnit::Microsecond | TimeUnit::Nanosecond, None) => true,
        DataType::Decimal128(p, s) => (1..=38).contains(p) && *s >= 0 && (*s as u8) <= *p,
        _ => false,
    }
}

/// A checked view of the document: which members exist and how to find a
/// member's value in a row.
enum Table<'a> {
    Rows(&'a [Value]),
    Columns { members: Vec<String>, columns: &'a [Value] },
    Dataset { members: Vec<String>, dataset: &'a [Value] },
}

impl<'a> Table<'a> {
    fn new(document: &'a Value, shape: Shape) -> Result<Table<'a>, CubeError> {
        let bad = |path: String| CubeError::BadShape { path };
        match shape {
            Shape::Rows => {
                let rows = document.as_array().ok_or_else(|| bad(String::new()))?;
                for (i, row) in rows.iter().enumerate() {
                    if !row.is_object() {
                        return Err(bad(format!("/{i}")));
                    }
                }
                let table = Table::Rows(rows);
                // Phase 4 is checked by the caller over `members()`.
                Ok(table)
            }
            Shape::Compact | Shape::Columnar => {
                let object = document.as_object().ok_or_else(|| bad(String::new()))?;
                let members = member_list(object)?;
                let key = if shape == Shape::Compact { "dataset" } else { "columns" };
                let data = object
                    .get(key)
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad(format!("/{key}")))?;
                for (i, entry) in data.iter().enumerate() {
                    if !entry.is_array() {
                        return Err(bad(format!("/{key}/{i}")));
                    }
                }
                let len = |v: &Value| v.as_array().map_or(0, Vec::len) as u64;
                if shape == Shape::Columnar {
                    if data.len() != members.len() {
                        return Err(CubeError::ColumnCount {
                            members: members.len() as u64,
                            columns: data.len() as u64,
                        });
                    }
                    if let Some(first) = data.first() {
                        for (j, column) in data.iter().enumerate() {
                            if len(column) != len(first) {
                                return Err(CubeError::Ragged {
                                    index: j as u64,
                                    expected: len(first),
                                    found: len(column),
                                });
                            }
                        }
                    }
                    Ok(Table::Columns { members, columns: data })
                } else {
                    for (i, row) in data.iter().enumerate() {
                        if len(row) != members.len() as u64 {
                            return Err(CubeError::Ragged {
                                index: i as u64,
                                expected: members.len() as u64,
                                found: len(row),
                            });
                        }
                    }
                    Ok(Table::Dataset { members, dataset: data })
                }
            }
        }
    }

    /// Members in the data, in the order phase 4 checks them.
    fn members(&self) -> Vec<String> {
        match self {
            Table::Rows(rows) => {
                let mut seen: Vec<String> = Vec::new();
                let mut known = std::collections::BTreeSet::new();
                for row in rows.iter() {
                    // `Map` iterates keys in sorted order: within a row the
                    // smallest name comes first, as the spec asks.
                    for key in row.as_object().expect("checked").keys() {
                        if known.insert(key.as_str()) {
                            seen.push(key.clone());
                        }
                    }
                }
                seen
            }
            Table::Columns { members, .. } | Table::Dataset { members, .. } => members.clone(),
        }
    }

    fn row_count(&self) -> usize {
        match self {
            Table::Rows(rows) => rows.len(),
            Table::Columns { columns, .. } => columns.first().and_then(Value::as_array).map_or(0, Vec::len),
            Table::Dataset { dataset, .. } => dataset.len(),
        }
    }

    /// The value of `member` in `row`, `None` when the member is absent.
    fn get(&self, member: &str, row: usize) -> Option<&'a Value> {
        match self {
            Table::Rows(rows) => rows[row].as_object().expect("checked").get(member),
            Table::Columns { members, columns } => {
                let j = members.iter().position(|m| m == member)?;
                columns[j].as_array().expect("checked").get(row)
            }
            Table::Dataset { members, dataset } => {
                let j = members.iter().position(|m| m == member)?;
                dataset[row].as_array().expect("checked").get(j)
            }
        }
    }
}

fn member_list(object: &Map<String, Value>) -> Result<Vec<String>, CubeError> {
    let list = object
        .get("members")
        .and_then(Value::as_array)
        .ok_or_else(|| CubeError::BadShape {
            path: "/members".into(),
        })?;
    let mut members: Vec<String> = Vec::new();
    for (i, m) in list.iter().enumerate() {
        let name = m.as_str().ok_or_else(|| CubeError::BadShape {
            path: format!("/members/{i}"),
        })?;
        members.push(name.to_string());
    }
    for (i, name) in members.iter().enumerate() {
        if members[..i].contains(name) {
            return Err(CubeError::DuplicateMember { member: name.clone() });
        }
    }
    Ok(members)
}

/// Why a value did not go into a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MapError {
    Unmappable,
    Overflow,
    /// The string column would pass i32 offsets.
    TooLarge,
}

/// One Arrow builder per supported type.
struct ColumnBuilder {
    kind: Kind,
    string_bytes: u64,
}

enum Kind {
    Utf8(StringBuilder),
    Int64(Int64Builder),
    Float64(Float64Builder),
    Boolean(BooleanBuilder),
    /// Timestamps and decimals: plain values plus validity, typed at the end.
    I64(Vec<Option<i64>>),
    I128(Vec<Option<i128>>),
}

impl ColumnBuilder {
    fn new(ty: &DataType, rows: usize) -> Self {
        let kind = match ty {
            DataType::Utf8 => Kind::Utf8(StringBuilder::with_capacity(rows, 0)),
            DataType::Int64 => Kind::Int64(Int64Builder::with_capacity(rows)),
            DataType::Float64 => Kind::Float64(Float64Builder::with_capacity(rows)),
            DataType::Boolean => Kind::Boolean(BooleanBuilder::with_capacity(rows)),
            DataType::Timestamp(..) => Kind::I64(Vec::with_capacity(rows)),
            _ => Kind::I128(Vec::with_capacity(rows)),
        };
        ColumnBuilder { kind, string_bytes: 0 }
    }

    /// Append one JSON value mapped to `ty`; on error nothing is appended.
    fn append(&mut self, value: &Value, ty: &DataType) -> Result<(), MapError> {
        match &mut self.kind {
            Kind::Utf8(b) => {
                let text = match value {
                    Value::Null => {
                        b.append_null();
                        return Ok(());
                    }
                    Value::String(s) => s.clone(),
                    Value::Bool(v) => v.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return Err(MapError::Unmappable),
                };
                if !fits_i32_offsets(u128::from(self.string_bytes) + text.len() as u128) {
                    return Err(MapError::TooLarge);
                }
                self.string_bytes += text.len() as u64;
                b.append_value(text);
            }
            Kind::Int64(b) => match value {
                Value::Null => b.append_null(),
                _ => b.append_value(to_int64(value)?),
            },
            Kind::Float64(b) => match value {
                Value::Null => b.append_null(),
                Value::Number(n) => {
                    let v = if let Some(u) = n.as_u64() {
                        u as f64
                    } else if let Some(i) = n.as_i64() {
                        i as f64
                    } else {
                        n.as_f64().ok_or(MapError::Unmappable)?
                    };
                    b.append_value(v)
                }
                Value::String(s) => b.append_value(s.parse::<f64>().map_err(|_| MapError::Unmappable)?),
                _ => return Err(MapError::Unmappable),
            },
            Kind::Boolean(b) => match value {
                Value::Null => b.append_null(),
                Value::Bool(v) => b.append_value(*v),
                Value::String(s) if s == "true" || s == "1" => b.append_value(true),
                Value::String(s) if s == "false" || s == "0" => b.append_value(false),
                _ => return Err(MapError::Unmappable),
            },
            Kind::I64(v) => match value {
                Value::Null => v.push(None),
                _ => {
                    let DataType::Timestamp(unit, _) = ty else {
                        unreachable!("I64 kind is for timestamps")
                    };
                    v.push(Some(to_timestamp(value, *unit)?))
                }
            },
            Kind::I128(v) => match value {
                Value::Null => v.push(None),
                _ => {
                    let DataType::Decimal128(p, s) = ty else {
                        unreachable!("I128 kind is for decimals")
                    };
                    v.push(Some(to_decimal(value, *p, *s as u8)?))
                }
            },
        }
        Ok(())
    }

    fn finish(self, ty: &DataType) -> ArrayRef {
        match self.kind {
            Kind::Utf8(mut b) => Arc::new(b.finish()),
            Kind::Int64(mut b) => Arc::new(b.finish()),
            Kind::Float64(mut b) => Arc::new(b.finish()),
            Kind::Boolean(mut b) => Arc::new(b.finish()),
            Kind::I64(v) => match ty {
                DataType::Timestamp(TimeUnit::Millisecond, _) => {
                    Arc::new(PrimitiveArray::<TimestampMillisecondType>::from(v))
                }
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    Arc::new(PrimitiveArray::<TimestampMicrosecondType>::from(v))
                }
                _ => Arc::new(PrimitiveArray::<TimestampNanosecondType>::from(v)),
            },
            Kind::I128(v) => {
                let DataType::Decimal128(p, s) = ty else {
                    unreachable!("I128 kind is for decimals")
                };
                Arc::new(
                    PrimitiveArray::<Decimal128Type>::from(v)
                        .with_precision_and_scale(*p, *s)
                        .expect("precision and scale checked in phase 0"),
                )
            }
        }
    }
}

/// `[+-]?[0-9]+` to i64, one digit at a time.
fn digits_to_i64(s: &str) -> Result<i64, MapError> {
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(MapError::Unmappable);
    }
    let mut value: i128 = 0;
    for c in digits.bytes() {
        value = value * 10 + i128::from(c - b'0');
        if value > i128::from(i64::MAX) + 1 {
            return Err(MapError::Overflow);
        }
    }
    let value = if negative { -value } else { value };
    i64::try_from(value).map_err(|_| MapError::Overflow)
}

fn to_int64(value: &Value) -> Result<i64, MapError> {
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i)
            } else if n.as_u64().is_some() {
                Err(MapError::Overflow)
            } else {
                Err(MapError::Unmappable)
            }
        }
        Value::String(s) => digits_to_i64(s),
        _ => Err(MapError::Unmappable),
    }
}

fn to_timestamp(value: &Value, unit: TimeUnit) -> Result<i64, MapError> {
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i)
            } else if n.as_u64().is_some() {
                Err(MapError::Overflow)
            } else {
                Err(MapError::Unmappable)
            }
        }
        Value::String(s) => parse_timestamp(s, unit),
        _ => Err(MapError::Unmappable),
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}][Z]` to a count of `unit` since the epoch.
fn parse_timestamp(s: &str, unit: TimeUnit) -> Result<i64, MapError> {
    let chars: Vec<char> = s.chars().collect();
    let number = |from: usize, len: usize| -> Result<i64, MapError> {
        let mut v = 0i64;
        for k in from..from + len {
            let c = *chars.get(k).ok_or(MapError::Unmappable)?;
            let d = c.to_digit(10).ok_or(MapError::Unmappable)?;
            v = v * 10 + i64::from(d);
        }
        Ok(v)
    };
    let expect = |at: usize, want: char| -> Result<(), MapError> {
        if chars.get(at) == Some(&want) {
            Ok(())
        } else {
            Err(MapError::Unmappable)
        }
    };
    let year = number(0, 4)?;
    expect(4, '-')?;
    let month = number(5, 2)?;
    expect(7, '-')?;
    let day = number(8, 2)?;
    expect(10, 'T')?;
    let hour = number(11, 2)?;
    expect(13, ':')?;
    let minute = number(14, 2)?;
    expect(16, ':')?;
    let second = number(17, 2)?;
    let mut at = 19;
    // Fraction as nanoseconds, digit by digit.
    let mut nanos = 0i64;
    if chars.get(at) == Some(&'.') {
        at += 1;
        let mut count = 0;
        while let Some(d) = chars.get(at).and_then(|c| c.to_digit(10)) {
            count += 1;
            if count > 9 {
                return Err(MapError::Unmappable);
            }
            nanos += i64::from(d) * 10i64.pow(9 - count);
            at += 1;
        }
        if count == 0 {
            return Err(MapError::Unmappable);
        }
    }
    if chars.get(at) == Some(&'Z') {
        at += 1;
    }
    if at != chars.len() {
        return Err(MapError::Unmappable);
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&month) || day < 1 || day > month_days[month as usize - 1] {
        return Err(MapError::Unmappable);
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(MapError::Unmappable);
    }
    // Days since 1970-01-01: whole 400-year Gregorian cycles (146,097 days
    // each, whatever year they start in), then the remaining years one by
    // one, then months, then days. Counting every year from 1970 made a
    // far-future literal repeated over a million rows take tens of seconds.
    let cycles = (year - 1970).div_euclid(400);
    let mut days: i64 = cycles * 146_097;
    for y in 1970 + cycles * 400..year {
        days += if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
            366
        } else {
            365
        };
    }
    days += month_days[..month as usize - 1].iter().sum::<i64>();
    days += day - 1;
    let seconds = i128::from(days) * 86_400 + i128::from(hour * 3600 + minute * 60 + second);
    let per_second: i128 = match unit {
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        _ => 1_000_000_000,
    };
    let nanos_per_tick = 1_000_000_000 / per_second as i64;
    if nanos % nanos_per_tick != 0 {
        // Digits finer than the unit that are not zero.
        return Err(MapError::Unmappable);
    }
    let total = seconds * per_second + i128::from(nanos / nanos_per_tick);
    i64::try_from(total).map_err(|_| MapError::Overflow)
}

fn to_decimal(value: &Value, precision: u8, scale: u8) -> Result<i128, MapError> {
    let text = match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                format!("{}", n.as_f64().ok_or(MapError::Unmappable)?)
            }
        }
        Value::String(s) => s.clone(),
        _ => return Err(MapError::Unmappable),
    };
    parse_decimal(&text, precision, scale)
}

/// `[+-]?D*(.D*)?` with at least one digit, to an unscaled i128.
fn parse_decimal(s: &str, precision: u8, scale: u8) -> Result<i128, MapError> {
    let mut chars = s.chars().peekable();
    let negative = match chars.peek() {
        Some('-') => {
            chars.next();
            true
        }
        Some('+') => {
            chars.next();
            false
        }
        _ => false,
    };
    let mut unscaled: Option<i128> = Some(0);
    let mut any_digit = false;
    let mut in_fraction = false;
    let mut fraction_digits = 0u32;
    for c in chars {
        if c == '.' && !in_fraction {
            in_fraction = true;
            continue;
        }
        let d = c.to_digit(10).ok_or(MapError::Unmappable)?;
        any_digit = true;
        if in_fraction {
            fraction_digits += 1;
            if fraction_digits > u32::from(scale) {
                if d != 0 {
                    return Err(MapError::Unmappable);
                }
                continue;
            }
        }
        unscaled = unscaled
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(i128::from(d)));
    }
    if !any_digit {
        return Err(MapError::Unmappable);
    }
    for _ in fraction_digits.min(u32::from(scale))..u32::from(scale) {
        unscaled = unscaled.and_then(|v| v.checked_mul(10));
    }
    let unscaled = unscaled.ok_or(MapError::Overflow)?;
    if unscaled >= 10i128.pow(u32::from(precision)) {
        return Err(MapError::Overflow);
    }
    Ok(if negative { -unscaled } else { unscaled })
}

/// A schema field reading member `name` (helper for tests and generators).
pub fn member_field(name: &str, ty: DataType) -> Field {
    Field::new(name, ty, true)
}

/// A literal field whose value is the JSON scalar `literal`.
pub fn literal_field(name: &str, ty: DataType, literal: &str) -> Field {
    Field::new(name, ty, true).with_metadata([(LITERAL_KEY.to_string(), literal.to_string())].into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type};
    use arrow_array::Array;
    use arrow_schema::Schema;

    fn run(json: &str, shape: Shape, fields: Vec<Field>, limit: Option<i64>) -> Result<RecordBatch, CubeError> {
        decode(json.as_bytes(), shape, &Arc::new(Schema::new(fields)), limit)
    }

    /// One member `v` of type `ty` holding `values` (JSON text, comma-separated), as a column.
    fn column(values: &str, ty: DataType) -> Result<ArrayRef, CubeError> {
        let json = format!(r#"{{"members":["v"],"columns":[[{values}]]}}"#);
        run(&json, Shape::Columnar, vec![member_field("v", ty)], None).map(|b| b.column(0).clone())
    }

    fn ints(a: &ArrayRef) -> Vec<Option<i64>> {
        a.as_primitive::<Int64Type>().iter().collect()
    }

    /// The error of a value in row 1 (row 0 is null), as (kind, row), checking the member and type named.
    fn cell_error(value: &str, ty: DataType) -> (&'static str, u64) {
        let shown = ty.to_string();
        match column(&format!("null,{value}"), ty).expect_err(value) {
            CubeError::Unmappable { member, row, ty, .. } if member == "v" && ty == shown => ("unmappable", row),
            CubeError::Overflow { member, row, ty, .. } if member == "v" && ty == shown => ("overflow", row),
            other => panic!("{value}: {other:?}"),
        }
    }

    fn unmappable(value: &str, ty: DataType) {
        assert_eq!(cell_error(value, ty.clone()), ("unmappable", 1), "{value} as {ty}");
    }

    fn overflow(value: &str, ty: DataType) {
        assert_eq!(cell_error(value, ty.clone()), ("overflow", 1), "{value} as {ty}");
    }

    #[test]
    fn int64_cells() {
        let a = column(
            r#"null,5,-9223372036854775808,9223372036854775807,"+12","-0","0042","-9223372036854775808""#,
            DataType::Int64,
        )
        .unwrap();
        assert_eq!(
            ints(&a),
            [
                None,
                Some(5),
                Some(i64::MIN),
                Some(i64::MAX),
                Some(12),
                Some(0),
                Some(42),
                Some(i64::MIN)
            ]
        );
        for v in [
            "9223372036854775808",
            r#""9223372036854775808""#,
            r#""-9223372036854775809""#,
            r#""99999999999999999999999""#,
        ] {
            overflow(v, DataType::Int64);
        }
        for v in [
            "1.5", "1e2", "true", "[1]", "{}", r#"" 1""#, r#""""#, r#""-""#, r#""+""#, r#""1a""#, r#""1.0""#,
        ] {
            unmappable(v, DataType::Int64);
        }
    }

    #[test]
    fn float64_cells() {
        let a = column(
            r#"null,1,-2,18446744073709551615,0.5,"1e5","-0.25","inf""#,
            DataType::Float64,
        )
        .unwrap();
        let v: Vec<Option<f64>> = a.as_primitive::<Float64Type>().iter().collect();
        assert_eq!(
            v,
            [
                None,
                Some(1.0),
                Some(-2.0),
                Some(18446744073709551615.0),
                Some(0.5),
                Some(1e5),
                Some(-0.25),
                Some(f64::INFINITY)
            ]
        );
        let nan = column(r#""NaN""#, DataType::Float64).unwrap();
        assert!(nan.as_primitive::<Float64Type>().value(0).is_nan());
        for v in ["true", r#""x""#, "[]", "{}"] {
            unmappable(v, DataType::Float64);
        }
    }

    #[test]
    fn boolean_and_utf8_cells() {
        let a = column(r#"null,true,false,"true","1","false","0""#, DataType::Boolean).unwrap();
        let v: Vec<Option<bool>> = a.as_boolean().iter().collect();
        assert_eq!(
            v,
            [
                None,
                Some(true),
                Some(false),
                Some(true),
                Some(true),
                Some(false),
                Some(false)
            ]
        );
        for v in ["1", "0", r#""yes""#, r#""TRUE""#, "[]"] {
            unmappable(v, DataType::Boolean);
        }
        let a = column(r#"null,"a",true,false,12,-3,1.5,"""#, DataType::Utf8).unwrap();
        let v: Vec<Option<&str>> = a.as_string::<i32>().iter().collect();
        assert_eq!(
            v,
            [
                None,
                Some("a"),
                Some("true"),
                Some("false"),
                Some("12"),
                Some("-3"),
                Some("1.5"),
                Some("")
            ]
        );
        for v in ["[]", "{}", r#"["a"]"#] {
            unmappable(v, DataType::Utf8);
        }
    }

    fn stamps(values: &str, unit: TimeUnit) -> Vec<Option<i64>> {
        let ty = DataType::Timestamp(unit, None);
        let a = column(values, ty).unwrap();
        let raw = a.to_data();
        let values: &[i64] = raw.buffer::<i64>(0);
        (0..a.len()).map(|i| a.is_valid(i).then(|| values[i])).collect()
    }

    #[test]
    fn timestamp_cells() {
        use TimeUnit::*;
        let ms = DataType::Timestamp(Millisecond, None);
        assert_eq!(
            stamps(
                r#"null,12345,"1970-01-01T00:00:01Z","1970-01-01T00:00:00.5","1970-01-01T00:00:00.123","1970-01-01T00:00:00.1230","2000-02-29T00:00:00","1970-04-30T23:59:59","1970-01-02T01:02:03""#,
                Millisecond
            ),
            [
                None,
                Some(12345),
                Some(1000),
                Some(500),
                Some(123),
                Some(123),
                Some(951_782_400_000),
                Some(10_367_999_000),
                Some(90_123_000)
            ]
        );
        assert_eq!(
            stamps(r#""1970-01-01T00:00:00.000001","1970-03-01T00:00:00""#, Microsecond),
            [Some(1), Some(5_097_600_000_000)]
        );
        // Leap years by the rule of four, of 400, and not of 100.
        assert_eq!(
            stamps(r#""2024-02-29T00:00:00","1600-02-29T00:00:00""#, Millisecond),
            [Some(1_709_164_800_000), Some(-11_670_998_400_000)]
        );
        unmappable(r#""2023-02-29T00:00:00""#, ms.clone());
        unmappable(r#""2100-02-29T00:00:00""#, ms.clone());
        assert_eq!(
            stamps(
                r#""1970-01-01T00:00:00.123456789Z","2262-04-11T23:47:16.854775807","1677-09-21T00:12:43.145224192""#,
                Nanosecond
            ),
            [Some(123_456_789), Some(i64::MAX), Some(i64::MIN)]
        );
        overflow(
            r#""2262-04-11T23:47:16.854775808""#,
            DataType::Timestamp(Nanosecond, None),
        );
        overflow("18446744073709551615", ms.clone());
        for v in [
            "1.5",
            "true",
            r#""1970-01-01T00:00:00.1234""#,
            r#""1970-01-01T00:00:00.""#,
            r#""1970-01-01T00:00:00.1234567890""#,
            r#""1970-13-01T00:00:00""#,
            r#""1970-00-01T00:00:00""#,
            r#""1970-01-00T00:00:00""#,
            r#""1970-01-32T00:00:00""#,
            r#""1970-02-29T00:00:00""#,
            r#""1900-02-29T00:00:00""#,
            r#""1970-04-31T00:00:00""#,
            r#""1970-01-01T24:00:00""#,
            r#""1970-01-01T23:60:00""#,
            r#""1970-01-01T23:59:60""#,
            r#""1970x01-01T00:00:00""#,
            r#""1970-01x01T00:00:00""#,
            r#""1970-01-01x00:00:00""#,
            r#""1970-01-01T00x00:00""#,
            r#""1970-01-01T00:00x00""#,
            r#""1970-01-01T00:00:0""#,
            r#""197a-01-01T00:00:00""#,
            r#""1970-01-01T00:00:00ZZ""#,
            r#""1970-01-01T00:00:00 ""#,
        ] {
            unmappable(v, ms.clone());
        }
        unmappable(
            r#""1970-01-01T00:00:00.0000015""#,
            DataType::Timestamp(Microsecond, None),
        );
        // Nanoseconds take every one of nine fraction digits, and no tenth.
        unmappable(
            r#""1970-01-01T00:00:00.0000000001""#,
            DataType::Timestamp(Nanosecond, None),
        );
        assert_eq!(stamps(r#""1970-01-01T00:00:00.000000001""#, Nanosecond), [Some(1)]);
    }

    #[test]
    fn decimal_cells() {
        let d = |p, s| DataType::Decimal128(p, s);
        let values = |text: &str, ty| -> Vec<Option<i128>> {
            column(text, ty)
                .unwrap()
                .as_primitive::<Decimal128Type>()
                .iter()
                .collect()
        };
        assert_eq!(
            values(
                r#"null,1,"1.5","-1.25","+.5","5.","1.250",1.5,"999.99",-7,"0""#,
                d(5, 2)
            ),
            [
                None,
                Some(100),
                Some(150),
                Some(-125),
                Some(50),
                Some(500),
                Some(125),
                Some(150),
                Some(99999),
                Some(-700),
                Some(0)
            ]
        );
        assert_eq!(values("18446744073709551615", d(38, 0)), [Some(18446744073709551615)]);
        assert_eq!(values("1e-7", d(10, 7)), [Some(1)]);
        for v in [
            r#""1000""#,
            r#""-1000.00""#,
            "1000",
            r#""1e40""#.replace("1e40", &"9".repeat(40)).as_str(),
        ] {
            overflow(v, d(5, 2));
        }
        overflow(&format!("\"1{}\"", "0".repeat(40)), d(38, 0));
        overflow("1e300", d(38, 0));
        for v in [
            r#""1.251""#,
            r#"".""#,
            r#""""#,
            r#""-""#,
            r#""1e2""#,
            r#"" 1""#,
            r#""1.2.3""#,
            "true",
            "[]",
            "1e-7",
        ] {
            unmappable(v, d(5, 2));
        }
    }

    #[test]
    fn the_supported_types_and_nothing_else() {
        for ty in [
            DataType::Utf8,
            DataType::Int64,
            DataType::Float64,
            DataType::Boolean,
            DataType::Timestamp(TimeUnit::Millisecond, None),
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Timestamp(TimeUnit::Nanosecond, None),
            DataType::Decimal128(1, 0),
            DataType::Decimal128(38, 38),
            DataType::Decimal128(5, 5),
        ] {
            assert!(
                run("[]", Shape::Rows, vec![member_field("a", ty.clone())], None).is_ok(),
                "{ty}"
            );
        }
        for ty in [
            DataType::Int32,
            DataType::LargeUtf8,
            DataType::Timestamp(TimeUnit::Second, None),
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            DataType::Decimal128(0, 0),
            DataType::Decimal128(39, 0),
            DataType::Decimal128(5, -1),
            DataType::Decimal128(5, 6),
        ] {
            let fields = vec![member_field("a", DataType::Int64), member_field("b", ty.clone())];
            assert_eq!(
                run("[]", Shape::Rows, fields, None).unwrap_err(),
                CubeError::UnsupportedType { field: 1 },
                "{ty}"
            );
        }
        let fixed = Field::new("a", DataType::Int64, false);
        assert_eq!(
            run("[]", Shape::Rows, vec![fixed], None).unwrap_err(),
            CubeError::UnsupportedType { field: 0 }
        );
    }

    #[test]
    fn literals_and_limits() {
        let int = |text: &str| literal_field("l", DataType::Int64, text);
        // A literal repeats on every row of the data.
        let b = run(
            r#"[{"a":1},{"a":2},{}]"#,
            Shape::Rows,
            vec![member_field("a", DataType::Int64), int("7")],
            None,
        )
        .unwrap();
        assert_eq!(b.num_rows(), 3);
        assert_eq!(ints(b.column(0)), [Some(1), Some(2), None]);
        assert_eq!(ints(b.column(1)), [Some(7); 3]);
        let b = run("[{},{}]", Shape::Rows, vec![int("null")], None).unwrap();
        assert_eq!(ints(b.column(0)), [None, None]);
        for bad in ["x", "[1]", r#"{"a":1}"#, r#""abc""#, "1.5"] {
            let fields = vec![member_field("a", DataType::Int64), int(bad)];
            assert_eq!(
                run("[]", Shape::Rows, fields, None).unwrap_err(),
                CubeError::BadLiteral { field: 1 },
                "{bad}"
            );
        }
        // Schema errors come field by field, before the limit.
        let fields = vec![int("x"), member_field("b", DataType::Int32)];
        assert_eq!(
            run("[]", Shape::Rows, fields, Some(-1)).unwrap_err(),
            CubeError::BadLiteral { field: 0 }
        );
        let fields = vec![int("1"), member_field("b", DataType::Int32)];
        assert_eq!(
            run("[]", Shape::Rows, fields, Some(-1)).unwrap_err(),
            CubeError::UnsupportedType { field: 1 }
        );
        // A member-less query takes its row count from the limit, which must be in 0..=MAX_LIMIT.
        for limit in [-1, MAX_LIMIT + 1, i64::MIN, i64::MAX] {
            assert_eq!(
                run("[]", Shape::Rows, vec![int("1")], Some(limit)).unwrap_err(),
                CubeError::BadLimit { limit }
            );
        }
        assert_eq!(run("[{}]", Shape::Rows, vec![int("1")], Some(0)).unwrap().num_rows(), 0);
        assert_eq!(run("[{},{}]", Shape::Rows, vec![int("1")], None).unwrap().num_rows(), 2);
        // With a member field the limit is ignored, even an absurd one.
        let fields = vec![member_field("a", DataType::Int64), int("1")];
        assert_eq!(
            run(r#"[{"a":1}]"#, Shape::Rows, fields, Some(-5)).unwrap().num_rows(),
            1
        );
        // A literal string times the row count past i32 offsets is refused before anything is built.
        let long = |n: usize| literal_field("s", DataType::Utf8, &format!("\"{}\"", "a".repeat(n)));
        assert_eq!(
            run("[]", Shape::Rows, vec![long(2148)], Some(MAX_LIMIT)).unwrap_err(),
            CubeError::TooLarge { field: 0 }
        );
        let b = run("[]", Shape::Rows, vec![long(2148)], Some(1000)).unwrap();
        assert_eq!(b.column(0).as_string::<i32>().value(999).len(), 2148);
    }

    #[test]
    // MAX_LIMIT rows: minutes under Miri, and the same code as the small
    // limits of literals_and_limits.
    #[cfg_attr(miri, ignore = "MAX_LIMIT rows: minutes under Miri")]
    fn a_member_less_query_of_max_limit_rows() {
        let b = run(
            "[]",
            Shape::Rows,
            vec![literal_field("t", DataType::Boolean, "true")],
            Some(MAX_LIMIT),
        )
        .unwrap();
        assert_eq!(
            (b.num_rows(), b.column(0).as_boolean().true_count()),
            (MAX_LIMIT as usize, MAX_LIMIT as usize)
        );
    }

    #[test]
    fn invalid_json_at_its_byte() {
        let at = |json: &str| match run(json, Shape::Rows, vec![], None) {
            Err(CubeError::InvalidJson { offset, .. }) => offset,
            other => panic!("{json}: {other:?}"),
        };
        let json = "[\n  {\"a\": 1},\n  x]";
        assert_eq!(at(json), json.find('x').unwrap() as u64);
        assert_eq!(at("[1,\n2,\n\n  ]"), 10);
        assert_eq!(at("[] x"), 3);
        assert_eq!(at("[1,"), 2);
        assert_eq!(json_error_offset(b"ab\ncd\nef", 2, 1), 3);
        assert_eq!(json_error_offset(b"ab\ncd\nef", 3, 2), 7);
        assert_eq!(json_error_offset(b"ab", 1, 0), 0);
        // Invalid JSON beats every later phase (here a bad shape).
        assert!(matches!(
            run("{} x", Shape::Rows, vec![], None),
            Err(CubeError::InvalidJson { offset: 3, .. })
        ));
    }

    #[test]
    fn shape_and_count_errors_in_order() {
        let shape = |json: &str, s: Shape| run(json, s, vec![member_field("a", DataType::Int64)], None).unwrap_err();
        let bad = |p: &str| CubeError::BadShape { path: p.into() };
        assert_eq!(shape("{}", Shape::Rows), bad(""));
        assert_eq!(shape("[{}, {}, 1, 2]", Shape::Rows), bad("/2"));
        for (s, key) in [(Shape::Compact, "dataset"), (Shape::Columnar, "columns")] {
            assert_eq!(shape("[]", s), bad(""));
            assert_eq!(shape(&format!(r#"{{"{key}":[]}}"#), s), bad("/members"));
            assert_eq!(shape(&format!(r#"{{"members":1,"{key}":[]}}"#), s), bad("/members"));
            assert_eq!(
                shape(&format!(r#"{{"members":["a",1,2],"{key}":[]}}"#), s),
                bad("/members/1")
            );
            assert_eq!(
                shape(&format!(r#"{{"members":["a","b","a"],"{key}":[]}}"#), s),
                CubeError::DuplicateMember { member: "a".into() }
            );
            assert_eq!(shape(r#"{"members":["a"]}"#, s), bad(&format!("/{key}")));
            assert_eq!(
                shape(&format!(r#"{{"members":["a"],"{key}":{{}}}}"#), s),
                bad(&format!("/{key}"))
            );
            assert_eq!(
                shape(&format!(r#"{{"members":["a"],"{key}":[[1],2,3]}}"#), s),
                bad(&format!("/{key}/1"))
            );
        }
        assert_eq!(
            shape(r#"{"members":["a","b"],"columns":[[1]]}"#, Shape::Columnar),
            CubeError::ColumnCount { members: 2, columns: 1 }
        );
        assert_eq!(
            shape(
                r#"{"members":["a","b","c"],"columns":[[1,2],[1,2],[1],[]]}"#,
                Shape::Columnar
            ),
            CubeError::ColumnCount { members: 3, columns: 4 }
        );
        assert_eq!(
            shape(
                r#"{"members":["a","b","c"],"columns":[[1,2],[1,2],[1]]}"#,
                Shape::Columnar
            ),
            CubeError::Ragged {
                index: 2,
                expected: 2,
                found: 1
            }
        );
        assert_eq!(
            shape(r#"{"members":["a","b"],"columns":[[1],[1,2,3]]}"#, Shape::Columnar),
            CubeError::Ragged {
                index: 1,
                expected: 1,
                found: 3
            }
        );
        assert_eq!(
            shape(r#"{"members":["a","b"],"dataset":[[1,2],[1],[1,2,3]]}"#, Shape::Compact),
            CubeError::Ragged {
                index: 1,
                expected: 2,
                found: 1
            }
        );
        assert_eq!(
            shape(r#"{"members":["a"],"dataset":[[1],[1,2]]}"#, Shape::Compact),
            CubeError::Ragged {
                index: 1,
                expected: 1,
                found: 2
            }
        );
    }

    #[test]
    fn unknown_members_and_where_values_come_from() {
        let fields = || vec![member_field("a", DataType::Int64), member_field("b", DataType::Int64)];
        let unknown = |json: &str, s: Shape| match run(json, s, fields(), None) {
            Err(CubeError::UnknownMember { member }) => member,
            other => panic!("{json}: {other:?}"),
        };
        assert_eq!(
            unknown(r#"{"members":["a","z","y"],"dataset":[]}"#, Shape::Compact),
            "z"
        );
        assert_eq!(
            unknown(r#"{"members":["z","y","b"],"columns":[[],[],[]]}"#, Shape::Columnar),
            "z"
        );
        assert_eq!(unknown(r#"[{"a":1},{"d":1,"c":1},{"b":1,"a":2}]"#, Shape::Rows), "c");
        // A literal field does not read the member of its name.
        let fields = vec![
            literal_field("a", DataType::Int64, "1"),
            member_field("b", DataType::Int64),
        ];
        assert_eq!(
            run(r#"[{"a":1}]"#, Shape::Rows, fields, None).unwrap_err(),
            CubeError::UnknownMember { member: "a".into() }
        );
        // Every shape gives each field its own member's values; an absent member is all null.
        let fields = vec![
            member_field("b", DataType::Int64),
            member_field("a", DataType::Int64),
            member_field("x", DataType::Int64),
        ];
        for (json, s) in [
            (r#"[{"a":1,"b":2},{"b":4,"a":3}]"#, Shape::Rows),
            (r#"{"members":["a","b"],"dataset":[[1,2],[3,4]]}"#, Shape::Compact),
            (r#"{"members":["a","b"],"columns":[[1,3],[2,4]]}"#, Shape::Columnar),
        ] {
            let b = run(json, s, fields.clone(), None).unwrap();
            assert_eq!(b.num_rows(), 2, "{json}");
            assert_eq!(ints(b.column(0)), [Some(2), Some(4)], "{json}");
            assert_eq!(ints(b.column(1)), [Some(1), Some(3)], "{json}");
            assert_eq!(ints(b.column(2)), [None, None], "{json}");
        }
        // Row counts of empty data in each shape.
        let lit = || vec![literal_field("l", DataType::Int64, "1")];
        assert_eq!(
            run(r#"{"members":[],"columns":[]}"#, Shape::Columnar, lit(), None)
                .unwrap()
                .num_rows(),
            0
        );
        assert_eq!(
            run(r#"{"members":[],"dataset":[[],[],[]]}"#, Shape::Compact, lit(), None)
                .unwrap()
                .num_rows(),
            3
        );
    }

    #[test]
    fn cells_fail_field_by_field_then_row_by_row() {
        let fields = vec![member_field("x", DataType::Int64), member_field("y", DataType::Int64)];
        let e = run(r#"[{"x":1,"y":"no"},{"x":true,"y":1}]"#, Shape::Rows, fields, None).unwrap_err();
        assert_eq!(
            e,
            CubeError::Unmappable {
                member: "x".into(),
                row: 1,
                ty: "Int64".into(),
                value: "true".into()
            }
        );
        let fields = vec![member_field("x", DataType::Int64)];
        let e = run(
            r#"[{"x":"1"},{"x":"99999999999999999999"},{"x":"bad"}]"#,
            Shape::Rows,
            fields,
            None,
        )
        .unwrap_err();
        assert!(matches!(e, CubeError::Overflow { row: 1, .. }), "{e:?}");
    }

    #[test]
    fn string_columns_stop_at_i32_offsets() {
        assert!(fits_i32_offsets(i32::MAX as u128));
        assert!(!fits_i32_offsets(i32::MAX as u128 + 1));
        // A builder that already holds i32::MAX - 2 bytes takes two more, and then no more.
        let mut b = ColumnBuilder::new(&DataType::Utf8, 3);
        b.string_bytes = i32::MAX as u64 - 2;
        assert_eq!(
            b.append(&Value::String("abc".into()), &DataType::Utf8),
            Err(MapError::TooLarge)
        );
        assert_eq!(b.append(&Value::String("ab".into()), &DataType::Utf8), Ok(()));
        assert_eq!(b.append(&Value::Bool(true), &DataType::Utf8), Err(MapError::TooLarge));
        assert_eq!(b.append(&Value::Null, &DataType::Utf8), Ok(()));
        assert_eq!(b.append(&Value::String(String::new()), &DataType::Utf8), Ok(()));
        assert_eq!(b.finish(&DataType::Utf8).len(), 3);
    }

    #[test]
    fn every_error_says_what_and_where() {
        let cases = [
            (CubeError::UnsupportedType { field: 3 }, vec!["field 3", "unsupported"]),
            (CubeError::BadLiteral { field: 4 }, vec!["field 4", "literal"]),
            (CubeError::BadLimit { limit: -7 }, vec!["-7", "1000000"]),
            (
                CubeError::InvalidJson {
                    offset: 12,
                    message: "eof".into(),
                },
                vec!["12", "eof"],
            ),
            (
                CubeError::BadShape {
                    path: "/members/2".into(),
                },
                vec!["/members/2"],
            ),
            (CubeError::DuplicateMember { member: "m1".into() }, vec!["m1", "twice"]),
            (
                CubeError::ColumnCount { members: 5, columns: 6 },
                vec!["5 members", "6 columns"],
            ),
            (
                CubeError::Ragged {
                    index: 7,
                    expected: 8,
                    found: 9,
                },
                vec!["entry 7", "9 values", "expected 8"],
            ),
            (
                CubeError::UnknownMember { member: "m2".into() },
                vec!["m2", "not in the schema"],
            ),
            (
                CubeError::Unmappable {
                    member: "m3".into(),
                    row: 10,
                    ty: "Int64".into(),
                    value: "true".into(),
                },
                vec!["Unable to map value true to Int64", "m3", "row 10"],
            ),
            (
                CubeError::Overflow {
                    member: "m4".into(),
                    row: 11,
                    ty: "Int64".into(),
                    value: "1e99".into(),
                },
                vec!["1e99", "overflows Int64", "m4", "row 11"],
            ),
            (CubeError::TooLarge { field: 13 }, vec!["field 13", "i32"]),
        ];
        for (e, parts) in cases {
            let text = e.to_string();
            for part in parts {
                assert!(text.contains(part), "{text:?} lacks {part:?}");
            }
        }
    }

    #[test]
    fn timestamps_across_the_whole_four_digit_range() {
        let seconds = |s: &str| parse_timestamp(s, TimeUnit::Millisecond).map(|ms| ms / 1000);
        assert_eq!(seconds("1970-01-01T00:00:00"), Ok(0));
        assert_eq!(seconds("2000-03-01T00:00:00"), Ok(951_868_800));
        assert_eq!(seconds("2369-12-31T23:59:59"), Ok(12_622_780_799));
        assert_eq!(seconds("2370-01-01T00:00:00"), Ok(12_622_780_800));
        assert_eq!(seconds("9999-12-31T23:59:59"), Ok(253_402_300_799));
        assert_eq!(seconds("1969-12-31T23:59:59"), Ok(-1));
        assert_eq!(seconds("1570-01-01T00:00:00"), Ok(-12_622_780_800));
        assert_eq!(seconds("0001-01-01T00:00:00"), Ok(-62_135_596_800));
        assert_eq!(seconds("0000-02-29T00:00:00"), Ok(-62_162_121_600));
    }
}
