//! Family `cube-columnar`: Cube JSON results (row objects, compact and
//! columnar batches) decoded into Arrow record batches. Semantics: docs/families/cube.md.

/// The files this family is made of (see [`super::Registration`]).
pub const SOURCES: &[&str] = &[
    "kernels/src/cube/",
    "reference/src/cube.rs",
    "harness/src/families/cube/",
    "harness/tests/integration/cube_campaign.rs",
    "harness/tests/integration/cube_spec.rs",
];

pub mod generate;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float64Type, Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use crossdec_kernels::cube as kernel;
use crossdec_reference::cube as reference;

use crate::engine::bytes::{self, BytePayload};
use crate::engine::{canonical_enum, canonical_struct, Buffers, Campaign, Canonical, Category, Outcome, Parse, Spec};

/// The shape of the JSON `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Rows,
    Compact,
    Columnar,
}

/// A field type, including types the decoders must reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Utf8,
    Int64,
    Float64,
    Boolean,
    /// 0 = ms, 1 = us, 2 = ns.
    Timestamp(u8),
    Decimal(u8, i8),
    /// 0 = Int32, 1 = Timestamp(s), 2 = Timestamp(ms, UTC), 3 = LargeUtf8, 4 = Date32.
    Unsupported(u8),
}

impl Ty {
    pub fn data_type(self) -> DataType {
        match self {
            Ty::Utf8 => DataType::Utf8,
            Ty::Int64 => DataType::Int64,
            Ty::Float64 => DataType::Float64,
            Ty::Boolean => DataType::Boolean,
            Ty::Timestamp(0) => DataType::Timestamp(TimeUnit::Millisecond, None),
            Ty::Timestamp(1) => DataType::Timestamp(TimeUnit::Microsecond, None),
            Ty::Timestamp(_) => DataType::Timestamp(TimeUnit::Nanosecond, None),
            Ty::Decimal(p, s) => DataType::Decimal128(p, s),
            Ty::Unsupported(0) => DataType::Int32,
            Ty::Unsupported(1) => DataType::Timestamp(TimeUnit::Second, None),
            Ty::Unsupported(2) => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            Ty::Unsupported(3) => DataType::LargeUtf8,
            Ty::Unsupported(_) => DataType::Date32,
        }
    }

    fn write(self, out: &mut Vec<u8>) {
        match self {
            Ty::Utf8 => out.push(0),
            Ty::Int64 => out.push(1),
            Ty::Float64 => out.push(2),
            Ty::Boolean => out.push(3),
            Ty::Timestamp(u) => out.extend_from_slice(&[4, u]),
            Ty::Decimal(p, s) => out.extend_from_slice(&[5, p, s as u8]),
            Ty::Unsupported(k) => out.extend_from_slice(&[6, k]),
        }
    }
}

/// One schema field: its name (= the member it reads) and, for a literal
/// field, the literal's JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDesc {
    pub name: String,
    pub ty: Ty,
    pub literal: Option<String>,
}

/// One decode call's input.
#[derive(Debug, Clone)]
pub struct CubeInput {
    pub json: Vec<u8>,
    pub shape: Shape,
    pub fields: Vec<FieldDesc>,
    pub limit: Option<i64>,
    /// Built from `fields`.
    pub schema: SchemaRef,
}

impl CubeInput {
    pub fn new(json: Vec<u8>, shape: Shape, fields: Vec<FieldDesc>, limit: Option<i64>) -> Self {
        let schema = Arc::new(Schema::new(
            fields
                .iter()
                .map(|f| {
                    let field = Field::new(&f.name, f.ty.data_type(), true);
                    match &f.literal {
                        Some(text) => field.with_metadata(
                            [(reference::LITERAL_KEY.to_string(), text.clone())]
                                .into_iter()
                                .collect(),
                        ),
                        None => field,
                    }
                })
                .collect::<Vec<_>>(),
        ));
        CubeInput {
            json,
            shape,
            fields,
            limit,
            schema,
        }
    }
}

/// A decoded column in comparable form (values are 0 under nulls; floats by
/// bit pattern so NaN compares equal to itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Values {
    Str(Vec<String>),
    I64(Vec<i64>),
    F64Bits(Vec<u64>),
    Bool(Vec<bool>),
    I128(Vec<i128>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub ty: String,
    pub validity: Vec<bool>,
    pub values: Values,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub rows: usize,
    pub columns: Vec<Column>,
}

/// A decode error in comparable form (messages and value texts are not
/// compared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CubeFault {
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
    },
    Overflow {
        member: String,
        row: u64,
        ty: String,
    },
    TooLarge {
        field: usize,
    },
    /// The batch's schema is not the requested one.
    SchemaMismatch,
}

macro_rules! fault_from {
    ($e:ty) => {
        impl From<$e> for CubeFault {
            fn from(e: $e) -> Self {
                type E = $e;
                match e {
                    E::UnsupportedType { field } => CubeFault::UnsupportedType { field },
                    E::BadLiteral { field } => CubeFault::BadLiteral { field },
                    E::BadLimit { limit } => CubeFault::BadLimit { limit },
                    E::InvalidJson { offset, .. } => CubeFault::InvalidJson { offset },
                    E::BadShape { path } => CubeFault::BadShape { path },
                    E::DuplicateMember { member } => CubeFault::DuplicateMember { member },
                    E::ColumnCount { members, columns } => CubeFault::ColumnCount { members, columns },
                    E::Ragged {
                        index,
                        expected,
                        found,
                    } => CubeFault::Ragged {
                        index,
                        expected,
                        found,
                    },
                    E::UnknownMember { member } => CubeFault::UnknownMember { member },
                    E::Unmappable { member, row, ty, .. } => CubeFault::Unmappable { member, row, ty },
                    E::Overflow { member, row, ty, .. } => CubeFault::Overflow { member, row, ty },
                    E::TooLarge { field } => CubeFault::TooLarge { field },
                }
            }
        }
    };
}
fault_from!(reference::CubeError);
fault_from!(kernel::CubeError);

/// A RecordBatch in comparable form; checks it carries the requested schema.
pub fn batch_of(batch: &RecordBatch, schema: &SchemaRef) -> Result<Batch, CubeFault> {
    if batch.schema() != *schema {
        return Err(CubeFault::SchemaMismatch);
    }
    let mut columns = Vec::new();
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        if array.data_type() != field.data_type() || array.len() != batch.num_rows() {
            return Err(CubeFault::SchemaMismatch);
        }
        let validity: Vec<bool> = (0..array.len()).map(|i| array.is_valid(i)).collect();
        let v = |i: usize| validity[i];
        let values = match array.data_type() {
            DataType::Utf8 => {
                let a = array.as_string::<i32>();
                Values::Str(
                    (0..a.len())
                        .map(|i| if v(i) { a.value(i).to_string() } else { String::new() })
                        .collect(),
                )
            }
            DataType::Int64 => {
                let a = array.as_primitive::<Int64Type>();
                Values::I64((0..a.len()).map(|i| if v(i) { a.value(i) } else { 0 }).collect())
            }
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                let a = array.as_primitive::<TimestampMillisecondType>();
                Values::I64((0..a.len()).map(|i| if v(i) { a.value(i) } else { 0 }).collect())
            }
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                let a = array.as_primitive::<TimestampMicrosecondType>();
                Values::I64((0..a.len()).map(|i| if v(i) { a.value(i) } else { 0 }).collect())
            }
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                let a = array.as_primitive::<TimestampNanosecondType>();
                Values::I64((0..a.len()).map(|i| if v(i) { a.value(i) } else { 0 }).collect())
            }
            DataType::Float64 => {
                let a = array.as_primitive::<Float64Type>();
                Values::F64Bits(
                    (0..a.len())
                        .map(|i| if v(i) { a.value(i).to_bits() } else { 0 })
                        .collect(),
                )
            }
            DataType::Boolean => {
                let a = array.as_boolean();
                Values::Bool((0..a.len()).map(|i| v(i) && a.value(i)).collect())
            }
            DataType::Decimal128(..) => {
                let a = array.as_primitive::<Decimal128Type>();
                Values::I128((0..a.len()).map(|i| if v(i) { a.value(i) } else { 0 }).collect())
            }
            _ => return Err(CubeFault::SchemaMismatch),
        };
        columns.push(Column {
            name: field.name().clone(),
            ty: field.data_type().to_string(),
            validity,
            values,
        });
    }
    Ok(Batch {
        rows: batch.num_rows(),
        columns,
    })
}

fn reference_shape(s: Shape) -> reference::Shape {
    match s {
        Shape::Rows => reference::Shape::Rows,
        Shape::Compact => reference::Shape::Compact,
        Shape::Columnar => reference::Shape::Columnar,
    }
}

fn kernel_shape(s: Shape) -> kernel::Shape {
    match s {
        Shape::Rows => kernel::Shape::Rows,
        Shape::Compact => kernel::Shape::Compact,
        Shape::Columnar => kernel::Shape::Columnar,
    }
}

/// Decode with the reference (the old `Value`-tree path, any shape).
pub fn run_reference(input: &CubeInput) -> Result<Batch, CubeFault> {
    reference::decode(&input.json, reference_shape(input.shape), &input.schema, input.limit)
        .map_err(CubeFault::from)
        .and_then(|b| batch_of(&b, &input.schema))
}

/// The `cube-columnar` spec.
pub struct CubeColumnar;

/// The largest member-less limit a fuzz target asks for
/// ([`Spec::cap_for_fuzzing`]).
pub const FUZZ_MAX_LIMIT: i64 = 4096;

canonical_enum!(Values {
    Str(v) = 0,
    I64(v) = 1,
    F64Bits(v) = 2,
    Bool(v) = 3,
    I128(v) = 4,
});
canonical_struct!(Column {
    name,
    ty,
    validity,
    values
});
canonical_struct!(Batch { rows, columns });
canonical_enum!(CubeFault {
    UnsupportedType { field } = 0,
    BadLiteral { field } = 1,
    BadLimit { limit } = 2,
    InvalidJson { offset } = 3,
    BadShape { path } = 4,
    DuplicateMember { member } = 5,
    ColumnCount { members, columns } = 6,
    Ragged { index, expected, found } = 7,
    UnknownMember { member } = 8,
    Unmappable { member, row, ty } = 9,
    Overflow { member, row, ty } = 10,
    TooLarge { field } = 11,
    SchemaMismatch = 12,
});

/// Canonical form: `CUBE`, the shape, the limit, the fields (name, type,
/// literal), then the JSON document.
impl Canonical for CubeInput {
    fn encode(&self, out: &mut Vec<u8>) {
        let input = self;
        out.extend_from_slice(b"CUBE");
        out.push(match input.shape {
            Shape::Rows => 0,
            Shape::Compact => 1,
            Shape::Columnar => 2,
        });
        match input.limit {
            None => out.push(0),
            Some(l) => {
                out.push(1);
                out.extend_from_slice(&l.to_le_bytes());
            }
        }
        out.extend_from_slice(&(input.fields.len() as u32).to_le_bytes());
        for f in &input.fields {
            out.extend_from_slice(&(f.name.len() as u32).to_le_bytes());
            out.extend_from_slice(f.name.as_bytes());
            f.ty.write(out);
            match &f.literal {
                None => out.push(0),
                Some(text) => {
                    out.push(1);
                    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                    out.extend_from_slice(text.as_bytes());
                }
            }
        }
        out.extend_from_slice(&input.json);
    }
}

impl Parse for CubeInput {
    fn parse(bytes: &[u8]) -> Option<Self> {
        let mut r = Reader(bytes);
        if r.take(4)? != b"CUBE" {
            return None;
        }
        let shape = match r.u8()? {
            0 => Shape::Rows,
            1 => Shape::Compact,
            2 => Shape::Columnar,
            _ => return None,
        };
        let limit = match r.u8()? {
            0 => None,
            1 => Some(i64::from_le_bytes(r.take(8)?.try_into().ok()?)),
            _ => return None,
        };
        let count = r.u32()? as usize;
        if count > 4096 {
            return None;
        }
        let mut fields = Vec::new();
        for _ in 0..count {
            let len = r.u32()? as usize;
            let name = String::from_utf8(r.take(len)?.to_vec()).ok()?;
            let ty = match r.u8()? {
                0 => Ty::Utf8,
                1 => Ty::Int64,
                2 => Ty::Float64,
                3 => Ty::Boolean,
                4 => Ty::Timestamp(r.u8()?.min(2)),
                5 => Ty::Decimal(r.u8()?, r.u8()? as i8),
                6 => Ty::Unsupported(r.u8()?.min(4)),
                _ => return None,
            };
            let literal = match r.u8()? {
                0 => None,
                1 => {
                    let len = r.u32()? as usize;
                    Some(String::from_utf8(r.take(len)?.to_vec()).ok()?)
                }
                _ => return None,
            };
            fields.push(FieldDesc { name, ty, literal });
        }
        Some(CubeInput::new(r.0.to_vec(), shape, fields, limit))
    }
}

impl BytePayload for CubeInput {
    fn payload(&self) -> &[u8] {
        &self.json
    }
    fn with_payload(&self, json: Vec<u8>) -> Self {
        CubeInput::new(json, self.shape, self.fields.clone(), self.limit)
    }
}

/// A kernel with one `CubeDecoder` kept across steps, like a client decoding
/// batch after batch: the adapter every `cube-columnar` kernel runs through.
pub fn kernel_decoder(func: kernel::DecodeFn) -> impl FnMut(&CubeInput, &mut Buffers) -> Outcome<CubeColumnar> + Send {
    let mut decoder = kernel::CubeDecoder::new();
    move |input, _| {
        func(
            &mut decoder,
            &input.json,
            kernel_shape(input.shape),
            &input.schema,
            input.limit,
        )
        .map_err(CubeFault::from)
        .and_then(|b| batch_of(&b, &input.schema))
    }
}

/// The `cube-columnar` family: every registry kernel through
/// [`kernel_decoder`], against the reference.
pub fn campaign() -> Campaign<CubeColumnar> {
    kernel::IMPLEMENTATIONS
        .iter()
        .fold(Campaign::new(CubeColumnar), |campaign, imp| {
            campaign.kernel(imp.name, imp.is_available(), move || {
                kernel_decoder(super::runnable(imp))
            })
        })
}

impl Spec for CubeColumnar {
    type Input = CubeInput;
    type Output = Batch;
    type Error = CubeFault;

    fn name(&self) -> &'static str {
        "cube-columnar"
    }

    fn categories(&self) -> Vec<Category<CubeInput>> {
        super::with_large(
            super::named_categories(generate::CATEGORIES, generate::generate),
            generate::LARGE,
        )
    }

    fn reference(&self, input: &CubeInput) -> Outcome<Self> {
        run_reference(input)
    }

    /// Member-less limits past [`FUZZ_MAX_LIMIT`] rows are cut below it: a
    /// million-row literal column costs a second per execution under
    /// fuzzing instrumentation and starved the fuzzer (18 exec/s, libFuzzer
    /// timeouts). The `literals-limits` category covers the MAX_LIMIT edge
    /// in campaigns.
    fn cap_for_fuzzing(&self, input: &mut CubeInput) {
        if let Some(limit) = input.limit.filter(|&l| l > FUZZ_MAX_LIMIT) {
            input.limit = Some(limit % (FUZZ_MAX_LIMIT + 1));
        }
    }

    /// Smaller batches, simplest first: the JSON by its structure
    /// ([`json_shrink`]); spans of fields deleted; the limit dropped, then lowered
    /// toward zero; each field's literal dropped and its name shortened;
    /// then the JSON's bytes ([`bytes::shrink`]). Only
    /// candidates below the input in [`shrink_key`]'s order are kept, so
    /// minimizing ends.
    fn shrink(&self, input: &CubeInput) -> Vec<CubeInput> {
        let with =
            |fields: Vec<FieldDesc>, limit: Option<i64>| CubeInput::new(input.json.clone(), input.shape, fields, limit);
        // The JSON's structure first: a field deleted alone leaves its key
        // in every row, which both sides reject, and a name shortened still
        // fails where its member then lands nowhere; each such candidate
        // spends the minimizer's budget, again after every step it takes.
        let mut out = json_shrink(input);
        out.extend(
            bytes::spans(&input.fields)
                .into_iter()
                .map(|fields| with(fields, input.limit)),
        );
        if let Some(limit) = input.limit {
            out.push(with(input.fields.clone(), None));
            for lower in bytes::lower_signed(limit) {
                out.push(with(input.fields.clone(), Some(lower)));
            }
        }
        for (at, field) in input.fields.iter().enumerate() {
            let mut edit = |f: &dyn Fn(&mut FieldDesc)| {
                let mut fields = input.fields.clone();
                f(&mut fields[at]);
                out.push(with(fields, input.limit));
            };
            if field.literal.is_some() {
                edit(&|f| f.literal = None);
            }
            // Names are matched against the JSON's keys: shortening one is
            // a change of meaning the minimizer judges by re-running.
            for name in bytes::spans(field.name.as_bytes()) {
                if let Ok(name) = String::from_utf8(name) {
                    edit(&|f| f.name = name.clone());
                }
            }
        }
        out.extend(bytes::shrink(input));
        let key = shrink_key(input);
        out.retain(|v| shrink_key(v) < key);
        out
    }
}

/// One array element or object member of the JSON: its bytes, and for a
/// member its key's (a JSON string, quotes included).
#[derive(Debug, Clone, Copy)]
struct Member {
    start: usize,
    end: usize,
    key: Option<(usize, usize)>,
}

/// The members of every array and object in `json`, outermost first, or
/// `None` when it is not one well-formed JSON value (then only bytes are
/// shrunk). Scalars are taken as they stand: the decoders judge them.
fn json_containers(json: &[u8]) -> Option<Vec<Vec<Member>>> {
    fn ws(b: &[u8], mut i: usize) -> usize {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    }
    fn string(b: &[u8], mut i: usize) -> Option<usize> {
        i += 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }
    fn value(b: &[u8], i: usize, out: &mut Vec<Vec<Member>>, depth: usize) -> Option<usize> {
        let i = ws(b, i);
        let (open, close) = match b.get(i)? {
            b'"' => return string(b, i),
            b'[' => (b'[', b']'),
            b'{' => (b'{', b'}'),
            _ => {
                let end = b[i..]
                    .iter()
                    .position(|c| b",]} \t\r\n".contains(c))
                    .map_or(b.len(), |p| i + p);
                return (end > i).then_some(end);
            }
        };
        if depth > 64 {
            return None;
        }
        let slot = out.len();
        out.push(Vec::new());
        let mut members = Vec::new();
        let mut j = ws(b, i + 1);
        if b.get(j) == Some(&close) {
            return Some(j + 1);
        }
        loop {
            let start = ws(b, j);
            let mut key = None;
            let mut k = start;
            if open == b'{' {
                let key_end = string(b, k).filter(|_| b.get(k) == Some(&b'"'))?;
                key = Some((k, key_end));
                k = ws(b, key_end);
                if b.get(k) != Some(&b':') {
                    return None;
                }
                k += 1;
            }
            let end = value(b, k, out, depth + 1)?;
            members.push(Member { start, end, key });
            j = ws(b, end);
            match b.get(j)? {
                b',' => j += 1,
                c if *c == close => break,
                _ => return None,
            }
        }
        out[slot] = members;
        Some(j + 1)
    }
    let mut out = Vec::new();
    let end = value(json, 0, &mut out, 0)?;
    (ws(json, end) == json.len()).then_some(out)
}

/// `json` without the cut members (each cut: a container's members and a
/// range of indices into them), commas mended.
fn without(json: &[u8], cuts: &[(&[Member], usize, usize)]) -> Vec<u8> {
    let mut spans: Vec<(usize, usize)> = cuts
        .iter()
        .map(|&(members, from, to)| {
            if to < members.len() {
                (members[from].start, members[to].start)
            } else if from > 0 {
                (members[from - 1].end, members[to - 1].end)
            } else {
                (members[from].start, members[to - 1].end)
            }
        })
        .collect();
    spans.sort_unstable();
    let mut out = Vec::with_capacity(json.len());
    let mut at = 0;
    for (from, to) in spans {
        // A cut inside one already made (a member of a deleted member).
        if from < at {
            continue;
        }
        out.extend_from_slice(&json[at..from]);
        at = to;
    }
    out.extend_from_slice(&json[at..]);
    out
}

/// Containers whose members are shrunk at most: each gives O(log n)
/// candidates, and each candidate costs the minimizer a re-run.
const SHRINK_CONTAINERS: usize = 16;

/// Smaller batches by the JSON's structure, keeping the keys' order (a bug
/// may need it): spans of the outermost container's members deleted
/// ([`bytes::spans`]); each field deleted together with every object member
/// of its name; then spans of the other containers' members.
fn json_shrink(input: &CubeInput) -> Vec<CubeInput> {
    let json = &input.json;
    let Some(containers) = json_containers(json) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let spans = |members: &Vec<Member>, out: &mut Vec<CubeInput>| {
        let indices: Vec<usize> = (0..members.len()).collect();
        for kept in bytes::spans(&indices) {
            // A span: the kept indices are all but one contiguous range.
            let from = (0..members.len()).find(|k| kept.get(*k) != Some(k)).unwrap_or(0);
            let to = from + members.len() - kept.len();
            let json = without(json, &[(members.as_slice(), from, to)]);
            out.push(CubeInput::new(json, input.shape, input.fields.clone(), input.limit));
        }
    };
    // The outermost container first (the rows, or the columns): the
    // biggest bites.
    if let Some(outer) = containers.first() {
        spans(outer, &mut out);
    }
    for (at, field) in input.fields.iter().enumerate() {
        let cuts: Vec<(&[Member], usize, usize)> = containers
            .iter()
            .flat_map(|members| {
                members.iter().enumerate().filter_map(move |(k, m)| {
                    let (from, to) = m.key?;
                    let key: String = serde_json::from_slice(&json[from..to]).ok()?;
                    (key == field.name).then_some((members.as_slice(), k, k + 1))
                })
            })
            .collect();
        let mut fields = input.fields.clone();
        fields.remove(at);
        out.push(CubeInput::new(without(json, &cuts), input.shape, fields, input.limit));
    }
    for members in containers
        .iter()
        .skip(1)
        .filter(|m| !m.is_empty())
        .take(SHRINK_CONTAINERS)
    {
        spans(members, &mut out);
    }
    out
}

/// The order shrinking goes down in: canonical length, then the JSON's
/// bytes, then the limit's magnitude (a negative one above the positive).
/// Among inputs of one length there are finitely many, so every chain of
/// ever smaller inputs ends.
fn shrink_key(input: &CubeInput) -> (usize, &[u8], Option<(u64, bool)>) {
    (
        input.to_canonical().len(),
        &input.json,
        input.limit.map(|l| (l.unsigned_abs(), l < 0)),
    )
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod shrink_tests {
    use super::*;

    /// Fields go, the limit goes toward zero as far as the bug allows,
    /// literals go and names shorten.
    #[test]
    fn batches_shrink_to_what_the_bug_needs() {
        let field = |name: &str| FieldDesc {
            name: name.to_string(),
            ty: Ty::Int64,
            literal: Some("7".to_string()),
        };
        let json = br#"{"data":[{"a":1}]}"#.to_vec();
        let mut current = CubeInput::new(
            json.clone(),
            Shape::Rows,
            vec![field("alpha"), field("beta")],
            Some(-300),
        );
        // Wrong on a negative limit below -5 with one field or more.
        let fails = |i: &CubeInput| i.limit.is_some_and(|l| l < -5) && !i.fields.is_empty();
        'outer: loop {
            for candidate in CubeColumnar.shrink(&current) {
                assert!(shrink_key(&candidate) < shrink_key(&current));
                if fails(&candidate) {
                    current = candidate;
                    continue 'outer;
                }
            }
            break;
        }
        assert_eq!(current.limit, Some(-6));
        assert_eq!(current.fields.len(), 1);
        assert_eq!(
            (current.fields[0].name.as_str(), &current.fields[0].literal),
            ("", &None)
        );
        assert!(current.json.is_empty());
    }

    /// JSON shrinks by its structure: a field goes with its members, rows
    /// and members go in spans, and the keys keep their order.
    #[test]
    fn json_shrinks_by_rows_and_members_in_order() {
        let field = |name: &str| FieldDesc {
            name: name.to_string(),
            ty: Ty::Int64,
            literal: None,
        };
        let json = br#"[{"a":1,"b":2,"c":7}, {"b":3,"a":4,"c":8},{"a":5,"b":6}]"#.to_vec();
        let mut current = CubeInput::new(json, Shape::Rows, vec![field("a"), field("b"), field("c")], None);
        // Wrong on a row whose first key is "b".
        let fails = |i: &CubeInput| json_containers(&i.json).is_some() && i.json.windows(4).any(|w| w == br#"{"b""#);
        'outer: loop {
            for candidate in CubeColumnar.shrink(&current) {
                if fails(&candidate) {
                    current = candidate;
                    continue 'outer;
                }
            }
            break;
        }
        // One row, one member; its value lowered to a zero byte (the
        // scanner leaves scalars to the decoders).
        assert_eq!(current.json, b"[{\"b\":\0}]");
        let cut = json_shrink(&CubeInput::new(
            br#"[{"a":1,"b":2},{"b":3,"a":4}]"#.to_vec(),
            Shape::Rows,
            vec![field("a"), field("b")],
            None,
        ));
        // Rows first (none, then one of each), then field "a" with its members.
        assert_eq!(String::from_utf8_lossy(&cut[0].json), "[]");
        let field_a = cut.iter().find(|c| c.fields.len() == 1).unwrap();
        assert_eq!(String::from_utf8_lossy(&field_a.json), r#"[{"b":2},{"b":3}]"#);
        assert_eq!(field_a.fields[0].name, "b");
        assert!(json_containers(b"[1,").is_none());
    }
}
