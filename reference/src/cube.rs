//! Reference decoder for Cube JSON results (row, compact and columnar
//! shapes) into an Arrow `RecordBatch` — the old path: parse the whole
//! document into a `serde_json::Value`, then for each field and each row look
//! the value up by member name and append it, cell by cell.
//!
//! The semantics (value mapping, row count, errors and their order) are
//! specified in `docs/cube.md`; this module follows that text step by step.

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

/// Every way decoding can fail (see `docs/cube.md`, "Errors and their order").
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
                if value.is_array() || value.is_object() {
                    return Err(CubeError::BadLiteral { field: index });
                }
                // Map it once into a scratch column to check it.
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
                    if s.len() as u128 * rows as u128 > i32::MAX as u128 {
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
                if self.string_bytes + text.len() as u64 > i32::MAX as u64 {
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
    let mut digits = 0;
    let mut in_fraction = false;
    let mut fraction_digits = 0u32;
    for c in chars {
        if c == '.' && !in_fraction {
            in_fraction = true;
            continue;
        }
        let d = c.to_digit(10).ok_or(MapError::Unmappable)?;
        digits += 1;
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
    if digits == 0 {
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
