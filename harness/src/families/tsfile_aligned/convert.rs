//! The family's canonical types to and from each scanner's own types. The
//! two scanners have the same shapes but no shared code (the reference is
//! written from the format notes, the kernel never calls it), so each gets
//! its own conversion here.

use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;
use crossdec_tsfile::filter as text;

use super::types::{
    AlignedInput, Block, Cell, Fault, FieldFilter, FieldOp, Request, Scanned, TimeFilter, Unread, WRITER_CPP,
    WRITER_JAVA,
};
use super::AlignedFamily;
use crate::engine::Outcome;

/// TsFile's data type ids, in the order of `ColumnType`'s variants.
pub const TYPE_IDS: [u8; 10] = [0, 1, 2, 3, 4, 8, 9, 5, 11, 10];
/// TsFile's encoding ids: PLAIN, TS_2DIFF, GORILLA, RLE, ZIGZAG, CHIMP,
/// DICTIONARY, SPRINTZ, RLBE, CAMEL.
pub const ENCODING_IDS: [u8; 11] = [0, 4, 8, 2, 9, 11, 1, 12, 13, 14, 7];

const R_TYPES: [r::ColumnType; 10] = [
    r::ColumnType::Boolean,
    r::ColumnType::Int32,
    r::ColumnType::Int64,
    r::ColumnType::Float,
    r::ColumnType::Double,
    r::ColumnType::Timestamp,
    r::ColumnType::Date,
    r::ColumnType::Text,
    r::ColumnType::String,
    r::ColumnType::Blob,
];
const K_TYPES: [k::ColumnType; 10] = [
    k::ColumnType::Boolean,
    k::ColumnType::Int32,
    k::ColumnType::Int64,
    k::ColumnType::Float,
    k::ColumnType::Double,
    k::ColumnType::Timestamp,
    k::ColumnType::Date,
    k::ColumnType::Text,
    k::ColumnType::String,
    k::ColumnType::Blob,
];
const R_ENCODINGS: [r::Encoding; 11] = [
    r::Encoding::Plain,
    r::Encoding::Ts2Diff,
    r::Encoding::Gorilla,
    r::Encoding::Rle,
    r::Encoding::Zigzag,
    r::Encoding::Chimp,
    r::Encoding::Dictionary,
    r::Encoding::Sprintz,
    r::Encoding::Rlbe,
    r::Encoding::Camel,
    r::Encoding::Regular,
];
const K_ENCODINGS: [k::Encoding; 11] = [
    k::Encoding::Plain,
    k::Encoding::Ts2Diff,
    k::Encoding::Gorilla,
    k::Encoding::Rle,
    k::Encoding::Zigzag,
    k::Encoding::Chimp,
    k::Encoding::Dictionary,
    k::Encoding::Sprintz,
    k::Encoding::Rlbe,
    k::Encoding::Camel,
    k::Encoding::Regular,
];

/// Page decompression for both scanners: the streaming reader's codecs
/// (the codecs are not what this family verifies; both scanners get the
/// same bytes from them).
pub struct Codecs;

impl Codecs {
    fn decompress(compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        let Some(c) = crossdec_tsfile::Compression::from_id(compression) else {
            return Err(format!("unknown compression id {compression}"));
        };
        crossdec_tsfile::decompress(c, body, size as u64, 0, &crossdec_tsfile::Limits::default())
            .map_err(|e| e.to_string())
    }
}

/// The most rows a generated page may decode to: the family's pages are
/// small, and a damaged one (a run length changed, say) must not make a
/// case take gigabytes; the scanners' default is the format's u32::MAX.
pub const MAX_PAGE_ROWS: usize = 1 << 20;

impl r::Decompress for Codecs {
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        Codecs::decompress(compression, body, size)
    }
    fn max_page_rows(&self) -> usize {
        MAX_PAGE_ROWS
    }
}

impl k::Decompress for Codecs {
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        Codecs::decompress(compression, body, size)
    }
    fn max_page_rows(&self) -> usize {
        MAX_PAGE_ROWS
    }
}

fn position(ids: &[u8], id: u8) -> Option<usize> {
    ids.iter().position(|&x| x == id)
}

/// The TsFile id of a reference data type.
pub fn type_id(t: r::ColumnType) -> u8 {
    TYPE_IDS[R_TYPES.iter().position(|&x| x == t).expect("every type has an id")]
}

/// The TsFile id of a reference encoding.
pub fn encoding_id(e: r::Encoding) -> u8 {
    ENCODING_IDS[R_ENCODINGS
        .iter()
        .position(|&x| x == e)
        .expect("every encoding has an id")]
}

/// The reference's group (`None`: a type or encoding id it does not know).
pub fn reference_group(input: &AlignedInput) -> Option<r::Group<'_>> {
    let chunk = |i: usize, t: u8, e: u8, data| {
        let (compression, page_statistics) = input.stored_as(i);
        Some(r::Chunk {
            data_type: R_TYPES[position(&TYPE_IDS, t)?],
            encoding: R_ENCODINGS[position(&ENCODING_IDS, e)?],
            compression,
            page_statistics,
            data,
        })
    };
    Some(r::Group {
        time: chunk(0, 2, input.time_encoding, &input.time)?,
        values: input
            .values
            .iter()
            .enumerate()
            .map(|(i, c)| match c {
                None => Some(None),
                Some(c) => chunk(1 + i, c.data_type, c.encoding, &c.data).map(Some),
            })
            .collect::<Option<_>>()?,
    })
}

/// The kernel's group (`None`: a type or encoding id it does not know).
pub fn kernel_group(input: &AlignedInput) -> Option<k::Group<'_>> {
    let chunk = |i: usize, t: u8, e: u8, data| {
        let (compression, page_statistics) = input.stored_as(i);
        Some(k::Chunk {
            data_type: K_TYPES[position(&TYPE_IDS, t)?],
            encoding: K_ENCODINGS[position(&ENCODING_IDS, e)?],
            compression,
            page_statistics,
            data,
        })
    };
    Some(k::Group {
        time: chunk(0, 2, input.time_encoding, &input.time)?,
        values: input
            .values
            .iter()
            .enumerate()
            .map(|(i, c)| match c {
                None => Some(None),
                Some(c) => chunk(1 + i, c.data_type, c.encoding, &c.data).map(Some),
            })
            .collect::<Option<_>>()?,
    })
}

fn r_time(f: &TimeFilter) -> r::TimeFilter {
    use TimeFilter::*;
    let b = |f: &TimeFilter| Box::new(r_time(f));
    match f {
        Gt(v) => r::TimeFilter::Gt(*v),
        GtEq(v) => r::TimeFilter::GtEq(*v),
        Lt(v) => r::TimeFilter::Lt(*v),
        LtEq(v) => r::TimeFilter::LtEq(*v),
        Eq(v) => r::TimeFilter::Eq(*v),
        NotEq(v) => r::TimeFilter::NotEq(*v),
        Between(a, c) => r::TimeFilter::Between(*a, *c),
        NotBetween(a, c) => r::TimeFilter::NotBetween(*a, *c),
        In(v) => r::TimeFilter::In(v.clone()),
        NotIn(v) => r::TimeFilter::NotIn(v.clone()),
        And(a, c) => r::TimeFilter::And(b(a), b(c)),
        Or(a, c) => r::TimeFilter::Or(b(a), b(c)),
        Not(a) => r::TimeFilter::Not(b(a)),
    }
}

fn k_time(f: &TimeFilter) -> k::TimeFilter {
    use TimeFilter::*;
    let b = |f: &TimeFilter| Box::new(k_time(f));
    match f {
        Gt(v) => k::TimeFilter::Gt(*v),
        GtEq(v) => k::TimeFilter::GtEq(*v),
        Lt(v) => k::TimeFilter::Lt(*v),
        LtEq(v) => k::TimeFilter::LtEq(*v),
        Eq(v) => k::TimeFilter::Eq(*v),
        NotEq(v) => k::TimeFilter::NotEq(*v),
        Between(a, c) => k::TimeFilter::Between(*a, *c),
        NotBetween(a, c) => k::TimeFilter::NotBetween(*a, *c),
        In(v) => k::TimeFilter::In(v.clone()),
        NotIn(v) => k::TimeFilter::NotIn(v.clone()),
        And(a, c) => k::TimeFilter::And(b(a), b(c)),
        Or(a, c) => k::TimeFilter::Or(b(a), b(c)),
        Not(a) => k::TimeFilter::Not(b(a)),
    }
}

fn r_value(c: &Cell) -> r::Value {
    match c {
        Cell::Bool(x) => r::Value::Bool(*x),
        Cell::I32(x) => r::Value::I32(*x),
        Cell::I64(x) => r::Value::I64(*x),
        Cell::F32(x) => r::Value::F32(*x),
        Cell::F64(x) => r::Value::F64(*x),
        Cell::Bytes(x) => r::Value::Bytes(x.clone()),
    }
}

fn k_value(c: &Cell) -> k::Value {
    match c {
        Cell::Bool(x) => k::Value::Bool(*x),
        Cell::I32(x) => k::Value::I32(*x),
        Cell::I64(x) => k::Value::I64(*x),
        Cell::F32(x) => k::Value::F32(*x),
        Cell::F64(x) => k::Value::F64(*x),
        Cell::Bytes(x) => k::Value::Bytes(x.clone()),
    }
}

/// The family's cell of a reference value.
pub fn cell_of_reference(v: &r::Value) -> Cell {
    match v {
        r::Value::Bool(x) => Cell::Bool(*x),
        r::Value::I32(x) => Cell::I32(*x),
        r::Value::I64(x) => Cell::I64(*x),
        r::Value::F32(x) => Cell::F32(*x),
        r::Value::F64(x) => Cell::F64(*x),
        r::Value::Bytes(x) => Cell::Bytes(x.clone()),
    }
}

fn cell_of_kernel(v: &k::Value) -> Cell {
    match v {
        k::Value::Bool(x) => Cell::Bool(*x),
        k::Value::I32(x) => Cell::I32(*x),
        k::Value::I64(x) => Cell::I64(*x),
        k::Value::F32(x) => Cell::F32(*x),
        k::Value::F64(x) => Cell::F64(*x),
        k::Value::Bytes(x) => Cell::Bytes(x.clone()),
    }
}

/// Sizes as the host's `usize` (`None` past it: a 32-bit host).
fn sizes(q: &Request) -> Option<(Vec<usize>, usize, Option<usize>)> {
    let columns = q
        .columns
        .iter()
        .map(|&c| usize::try_from(c).ok())
        .collect::<Option<_>>()?;
    // A block longer than a `usize` can count is one no scan fills: the
    // same request on every host (a 32-bit one included) as the longest.
    let block_rows = usize::try_from(q.block_rows).unwrap_or(usize::MAX);
    let field_column = match &q.field {
        Some(f) => Some(usize::try_from(f.column).ok()?),
        None => None,
    };
    Some((columns, block_rows, field_column))
}

const R_OPS: [r::CmpOp; 6] = [
    r::CmpOp::Lt,
    r::CmpOp::LtEq,
    r::CmpOp::Gt,
    r::CmpOp::GtEq,
    r::CmpOp::Eq,
    r::CmpOp::NotEq,
];
const K_OPS: [k::CmpOp; 6] = [
    k::CmpOp::Lt,
    k::CmpOp::LtEq,
    k::CmpOp::Gt,
    k::CmpOp::GtEq,
    k::CmpOp::Eq,
    k::CmpOp::NotEq,
];

/// A filter read by `crossdec_tsfile`'s parser as the family's time tree
/// and FIELD filter (`None`: a column index past `u32`).
pub fn filter_of_text(filter: &text::Filter) -> Option<(Option<TimeFilter>, Option<FieldFilter>)> {
    fn time(f: &text::TimeFilter) -> TimeFilter {
        use text::TimeFilter::*;
        let b = |f: &text::TimeFilter| Box::new(time(f));
        match f {
            Gt(v) => TimeFilter::Gt(*v),
            GtEq(v) => TimeFilter::GtEq(*v),
            Lt(v) => TimeFilter::Lt(*v),
            LtEq(v) => TimeFilter::LtEq(*v),
            Eq(v) => TimeFilter::Eq(*v),
            NotEq(v) => TimeFilter::NotEq(*v),
            Between(a, c) => TimeFilter::Between(*a, *c),
            NotBetween(a, c) => TimeFilter::NotBetween(*a, *c),
            In(v) => TimeFilter::In(v.clone()),
            NotIn(v) => TimeFilter::NotIn(v.clone()),
            And(a, c) => TimeFilter::And(b(a), b(c)),
            Or(a, c) => TimeFilter::Or(b(a), b(c)),
            Not(a) => TimeFilter::Not(b(a)),
        }
    }
    let field = match &filter.field {
        None => None,
        Some(f) => Some(FieldFilter {
            column: u32::try_from(f.column).ok()?,
            op: match &f.op {
                text::FieldOp::IsNull => FieldOp::IsNull,
                text::FieldOp::IsNotNull => FieldOp::IsNotNull,
                text::FieldOp::Cmp(op, v) => FieldOp::Cmp(
                    // The family's operator numbers, `K_OPS` / `R_OPS`.
                    match op {
                        text::CmpOp::Lt => 0,
                        text::CmpOp::LtEq => 1,
                        text::CmpOp::Gt => 2,
                        text::CmpOp::GtEq => 3,
                        text::CmpOp::Eq => 4,
                        text::CmpOp::NotEq => 5,
                    },
                    match v {
                        text::Literal::Bool(x) => Cell::Bool(*x),
                        text::Literal::I32(x) => Cell::I32(*x),
                        text::Literal::I64(x) => Cell::I64(*x),
                        text::Literal::F32(x) => Cell::F32(*x),
                        text::Literal::F64(x) => Cell::F64(*x),
                        text::Literal::Bytes(x) => Cell::Bytes(x.clone()),
                    },
                ),
            },
        }),
    };
    Some((filter.time.as_ref().map(time), field))
}

/// The reference's request for chunks `writer` wrote (`None`: a size past
/// `usize`, an unknown comparison operator or writer).
pub fn reference_request(q: &Request, writer: u8) -> Option<r::Request> {
    let (columns, block_rows, field_column) = sizes(q)?;
    let field = match (&q.field, field_column) {
        (Some(f), Some(column)) => Some(r::FieldFilter {
            column,
            op: match &f.op {
                FieldOp::IsNull => r::FieldOp::IsNull,
                FieldOp::IsNotNull => r::FieldOp::IsNotNull,
                FieldOp::Cmp(op, v) => r::FieldOp::Cmp(*R_OPS.get(usize::from(*op))?, r_value(v)),
            },
        }),
        _ => None,
    };
    Some(r::Request {
        filter: r::Filter {
            time: q.time.as_ref().map(r_time),
            field,
        },
        offset: q.offset,
        limit: q.limit,
        columns,
        block_rows,
        writer: match writer {
            WRITER_CPP => r::Writer::Cpp,
            WRITER_JAVA => r::Writer::Java,
            _ => return None,
        },
    })
}

/// The kernel's request (`None` as for [`reference_request`]).
pub fn kernel_request(q: &Request, writer: u8) -> Option<k::Request> {
    let (columns, block_rows, field_column) = sizes(q)?;
    let field = match (&q.field, field_column) {
        (Some(f), Some(column)) => Some(k::FieldFilter {
            column,
            op: match &f.op {
                FieldOp::IsNull => k::FieldOp::IsNull,
                FieldOp::IsNotNull => k::FieldOp::IsNotNull,
                FieldOp::Cmp(op, v) => k::FieldOp::Cmp(*K_OPS.get(usize::from(*op))?, k_value(v)),
            },
        }),
        _ => None,
    };
    Some(k::Request {
        filter: k::Filter {
            time: q.time.as_ref().map(k_time),
            field,
        },
        offset: q.offset,
        limit: q.limit,
        columns,
        block_rows,
        writer: match writer {
            WRITER_CPP => k::Writer::Cpp,
            WRITER_JAVA => k::Writer::Java,
            _ => return None,
        },
    })
}

impl Block {
    pub fn from_reference(b: &r::Block) -> Block {
        Block {
            times: b.times.clone(),
            columns: b
                .columns
                .iter()
                .map(|c| c.iter().map(|v| v.as_ref().map(cell_of_reference)).collect())
                .collect(),
        }
    }

    pub fn from_kernel(b: &k::Block) -> Block {
        let (times, columns) = b.canonical();
        Block {
            times,
            columns: columns
                .iter()
                .map(|c| c.iter().map(|v| v.as_ref().map(cell_of_kernel)).collect())
                .collect(),
        }
    }
}

impl Fault {
    pub fn from_reference(e: &r::ScanError) -> Fault {
        use r::ErrorKind::*;
        let (kind, detail) = match &e.kind {
            BadRequest => (1, ""),
            Unsupported => (2, ""),
            TruncatedHeader => (3, ""),
            BadPageSize => (4, ""),
            TruncatedPage => (5, ""),
            PageCountMismatch => (6, ""),
            RowCountMismatch => (7, ""),
            BitmapTruncated => (8, ""),
            ValueCountMismatch => (9, ""),
            StatisticsLie => (10, ""),
            TimesNotIncreasing => (11, ""),
            Decode(d) => (12, d.as_str()),
            Decompress(d) => (13, d.as_str()),
        };
        Fault {
            kind,
            detail: Some(detail.to_string()),
            chunk: match e.chunk {
                r::ChunkId::Time => -1,
                r::ChunkId::Value(i) => i as i64,
            },
            page: e.page as u64,
            offset: e.offset as u64,
            unread: Unread::default(),
        }
    }

    fn from_kernel(e: &k::ScanError, unread: Unread) -> Fault {
        use k::ErrorKind::*;
        let (kind, detail) = match &e.kind {
            BadRequest => (1, ""),
            Unsupported => (2, ""),
            TruncatedHeader => (3, ""),
            BadPageSize => (4, ""),
            TruncatedPage => (5, ""),
            PageCountMismatch => (6, ""),
            RowCountMismatch => (7, ""),
            BitmapTruncated => (8, ""),
            ValueCountMismatch => (9, ""),
            StatisticsLie => (10, ""),
            TimesNotIncreasing => (11, ""),
            Decode(d) => (12, d.as_str()),
            Decompress(d) => (13, d.as_str()),
        };
        Fault {
            kind,
            detail: Some(detail.to_string()),
            chunk: match e.chunk {
                k::ChunkId::Time => -1,
                k::ChunkId::Value(i) => i as i64,
            },
            page: e.page as u64,
            offset: e.offset as u64,
            unread,
        }
    }
}

/// The pages the kernel's plan says it did not read (SKIP by the time or
/// the FIELD filter, dropped by the offset, past the limit: no chunk's
/// page; NoMatch: the value pages).
fn unread_of(stats: &k::ScanStats) -> Unread {
    Unread(
        stats
            .plan
            .iter()
            .enumerate()
            .filter_map(|(p, a)| match a {
                k::PageAction::Skip
                | k::PageAction::NotReached
                | k::PageAction::OffsetSkip
                | k::PageAction::ValueSkip => Some((p as u64, 0)),
                k::PageAction::NoMatch => Some((p as u64, 1)),
                k::PageAction::FullPass { .. } | k::PageAction::Boundary { .. } => None,
            })
            .collect(),
    )
}

/// The kernel's outcome in the family's terms, with the pages it did not
/// read.
pub fn scanned_from_kernel(out: &k::ScanOutput) -> Outcome<AlignedFamily> {
    let unread = unread_of(&out.stats);
    match &out.result {
        Ok(blocks) => Ok(Scanned {
            blocks: blocks.iter().map(Block::from_kernel).collect(),
            unread,
        }),
        Err(e) => Err(Fault::from_kernel(e, unread)),
    }
}

/// The kernel's blocks through Arrow: each block made a record batch (TEXT
/// and STRING as Binary, so damaged text the reference returns as bytes
/// stays comparable; UTF-8 checking has its own unit tests) and read back
/// cell by cell. Holds the Arrow output's types, values and validity to the
/// reference on every case.
pub fn scanned_through_arrow(input: &AlignedInput, out: &k::ScanOutput) -> Outcome<AlignedFamily> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type, TimestampMillisecondType};
    use arrow_array::Array;
    use arrow_schema::{DataType, TimeUnit};
    use k::arrow::{schema, OutputColumn};

    let mut scanned = scanned_from_kernel(out)?;
    let Ok(blocks) = &out.result else {
        unreachable!("an error returned above")
    };
    let columns: Vec<OutputColumn> = input
        .request
        .columns
        .iter()
        .map(|&c| OutputColumn {
            name: format!("c{c}"),
            data_type: input.values[c as usize]
                .as_ref()
                .map(|v| K_TYPES[position(&TYPE_IDS, v.data_type).expect("the scan accepted the type")]),
        })
        .map(|mut c| {
            if matches!(c.data_type, Some(k::ColumnType::Text | k::ColumnType::String)) {
                c.data_type = Some(k::ColumnType::Blob);
            }
            c
        })
        .collect();
    let schema = schema(TimeUnit::Millisecond, &columns);
    scanned.blocks = Vec::with_capacity(blocks.len());
    for block in blocks {
        let batch = block.to_record_batch(&schema).map_err(|e| Fault {
            kind: 200,
            detail: Some(e.to_string()),
            ..Fault::default()
        })?;
        let times = batch
            .column(0)
            .as_primitive::<TimestampMillisecondType>()
            .values()
            .to_vec();
        let cells = batch.columns()[1..]
            .iter()
            .map(|a| {
                (0..a.len())
                    .map(|r| {
                        a.is_valid(r).then(|| match a.data_type() {
                            DataType::Boolean => Cell::Bool(a.as_boolean().value(r)),
                            DataType::Int32 => Cell::I32(a.as_primitive::<Int32Type>().value(r)),
                            DataType::Int64 => Cell::I64(a.as_primitive::<Int64Type>().value(r)),
                            DataType::Timestamp(..) => Cell::I64(a.as_primitive::<TimestampMillisecondType>().value(r)),
                            DataType::Float32 => Cell::F32(a.as_primitive::<Float32Type>().value(r).to_bits()),
                            DataType::Float64 => Cell::F64(a.as_primitive::<Float64Type>().value(r).to_bits()),
                            _ => Cell::Bytes(a.as_binary::<i32>().value(r).to_vec()),
                        })
                    })
                    .collect()
            })
            .collect();
        scanned.blocks.push(Block { times, columns: cells });
    }
    Ok(scanned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Canonical, FromCanonical};
    use crate::families::tsfile_aligned::MAX_FILTER_DEPTH;
    use crossdec_tsfile::{AlignedColumn, DataType};

    fn columns() -> Vec<AlignedColumn> {
        [
            ("b", DataType::Boolean),
            ("i", DataType::Int32),
            ("d", DataType::Double),
        ]
        .into_iter()
        .map(|(name, data_type)| AlignedColumn {
            name: name.into(),
            data_type,
        })
        .collect()
    }

    fn request_of(text: &str) -> Request {
        let filter = text::Filter::parse(text, &columns()).unwrap_or_else(|e| panic!("{text}: {e}"));
        let (time, field) = filter_of_text(&filter).expect("small column indices");
        Request {
            time,
            field,
            offset: 0,
            limit: None,
            columns: vec![0, 1, 2],
            block_rows: 8,
        }
    }

    /// The family's request of a parsed filter holds, for each scanner,
    /// the filter the reader's own conversion makes of it.
    #[test]
    fn a_parsed_filter_maps_to_the_scanners_filters_as_the_reader_converts_it() {
        for text in [
            "",
            "time > 5 and b = true",
            "not (time between 1 and 9 or time in (3, 4)) and i is not null",
            "time != 0 and time not in () and i is null",
            "d < 1.5",
            "d <= -inf",
            "i > 3",
            "i >= 3",
            "i == 3",
            "i <> 3",
        ] {
            let filter = text::Filter::parse(text, &columns()).unwrap();
            let q = request_of(text);
            let kq = kernel_request(&q, WRITER_CPP).expect("a kernel request");
            assert_eq!(kq.filter, k::Filter::from(&filter), "{text}");
            let rq = reference_request(&q, WRITER_CPP).expect("a reference request");
            assert_eq!(rq.filter, r::Filter::from(&filter), "{text}");
        }
    }

    /// The reader's depth limit is the one the canonical reader enforces:
    /// every filter the parser accepts reads back from a reproducer.
    #[test]
    fn a_parsed_filter_at_the_depth_limit_reads_back_from_canonical_bytes() {
        let limit = MAX_FILTER_DEPTH as usize;
        let at_limit = request_of(&format!("{}time = 3", "not ".repeat(limit - 1)));
        let tree = at_limit.time.expect("a time filter");
        assert_eq!(tree.depth(), MAX_FILTER_DEPTH);
        let bytes = tree.to_canonical();
        assert_eq!(TimeFilter::read(&mut bytes.as_slice()), Some(tree.clone()));
        let deeper = TimeFilter::Not(Box::new(tree)).to_canonical();
        assert_eq!(TimeFilter::read(&mut deeper.as_slice()), None);
        let text = format!("{}time = 3", "not ".repeat(limit));
        assert!(text::Filter::parse(&text, &columns()).is_err());
    }
}
