//! Cube JSON results (row, compact, columnar) straight into an Arrow
//! `RecordBatch`, without an intermediate `serde_json::Value` tree.
//!
//! A streaming `serde` visitor walks the document once with
//! `serde_json::Deserializer` and converts every cell, as it is read, into
//! the typed column buffers of the fields that read its member (Cube's
//! string-encoded numbers and timestamps are parsed on the fly). Row objects
//! are pivoted into columns on the fly, keeping every key seen in any row.
//!
//! Semantics, errors and their order are specified in `docs/families/cube.md`. To
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

mod columns;
mod convert;
mod scan;
mod state;
mod visit;

use columns::*;
use convert::*;
use state::*;
use visit::*;

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

/// Every way decoding can fail (see `docs/families/cube.md`).
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
pub static IMPLEMENTATIONS: &[Implementation<DecodeFn>] = &[
    Implementation::portable("cube/columnar-scan", decode_scanned),
    Implementation::portable("cube/serde-stream", decode_with),
];

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

// The driver: one or two passes over the document, then the batch.

enum Source {
    Member,
    Literal(Scalar),
}

/// What phase 0 makes of the schema and the limit, for one decode.
pub(super) struct Plan {
    sources: Vec<Source>,
    limit_rows: Option<u64>,
    by_name: HashMap<Arc<str>, Vec<usize>>,
    cols: Vec<Col>,
}

impl Plan {
    /// Phase 0: schema, then limit.
    fn new(schema: &SchemaRef, limit: Option<i64>) -> Result<Plan, CubeError> {
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
        Ok(Plan {
            sources,
            limit_rows,
            by_name,
            cols,
        })
    }

    /// A fresh decoding state over empty columns.
    fn state<'k>(&self, shape: Shape, decoder: &'k mut CubeDecoder) -> State<'k> {
        // A reused key table must not outgrow what one call can learn.
        if decoder.names.len() > MAX_KEPT_KEYS {
            decoder.names.clear();
            decoder.keys.clear();
        }
        State {
            shape,
            cols: self.cols.iter().map(|c| Col::new(c.conv, c.member.clone())).collect(),
            targets: Vec::new(),
            by_name: self.by_name.clone(),
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
        }
    }
}

/// The `columnar-scan` kernel: a columnar document in the form Cube's
/// server writes goes through a byte scanner (`scan.rs`); every other
/// shape, and any document the scanner gives up on, through the serde
/// stream, which owns every error and its position.
pub fn decode_scanned(
    decoder: &mut CubeDecoder,
    json: &[u8],
    shape: Shape,
    schema: &SchemaRef,
    limit: Option<i64>,
) -> Result<RecordBatch, CubeError> {
    decode_routed(decoder, json, shape, schema, limit).0
}

/// The way a document went through `cube/columnar-scan`: both give the
/// same result, so only this tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Scanned,
    Streamed,
}

/// [`decode_scanned`], and the way it went.
fn decode_routed(
    decoder: &mut CubeDecoder,
    json: &[u8],
    shape: Shape,
    schema: &SchemaRef,
    limit: Option<i64>,
) -> (Result<RecordBatch, CubeError>, Route) {
    if shape != Shape::Columnar {
        return (decode_with(decoder, json, shape, schema, limit), Route::Streamed);
    }
    let plan = match Plan::new(schema, limit) {
        Ok(plan) => plan,
        Err(e) => return (Err(e), Route::Streamed),
    };
    let mut st = plan.state(shape, decoder);
    if scan::columnar(json, &mut st).is_ok() {
        return (finish(st, &plan, shape, schema), Route::Scanned);
    }
    let mut st = plan.state(shape, decoder);
    let result = stream(json, &mut st).and_then(|()| finish(st, &plan, shape, schema));
    (result, Route::Streamed)
}

/// The `serde-stream` kernel.
pub fn decode_with(
    decoder: &mut CubeDecoder,
    json: &[u8],
    shape: Shape,
    schema: &SchemaRef,
    limit: Option<i64>,
) -> Result<RecordBatch, CubeError> {
    let plan = Plan::new(schema, limit)?;
    let mut st = plan.state(shape, decoder);
    stream(json, &mut st)?;
    finish(st, &plan, shape, schema)
}

/// Phase 1: one pass over the document with the serde visitors, two when
/// `members` comes after the data.
fn stream(json: &[u8], st: &mut State<'_>) -> Result<(), CubeError> {
    let shape = st.shape;
    parse(json, st)?;
    // `members_after_data` implies a data key was seen (data_occurrences >= 1).
    if shape != Shape::Rows && st.members_after_data {
        st.second_pass = true;
        st.last_data = st.data_occurrences - 1;
        st.data_occurrences = 0;
        parse(json, st)?;
    }
    Ok(())
}

/// Phases 2-5: the shape, member and cell errors in their order, then the
/// batch.
fn finish(mut st: State<'_>, plan: &Plan, shape: Shape, schema: &SchemaRef) -> Result<RecordBatch, CubeError> {
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
    let rows = plan.limit_rows.unwrap_or(rows_in_data);

    // Phase 5: the first cell error, by field then row; then the columns.
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(st.cols.len());
    for (index, (col, source)) in st.cols.drain(..).zip(&plan.sources).enumerate() {
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
mod tests;
