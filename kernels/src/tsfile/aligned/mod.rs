//! The aligned chunk scanner (`docs/families/tsfile-aligned.md`): one time chunk plus
//! N value chunks of a TsFile aligned chunk group, read under a filter with
//! offset / limit into blocks of at most `block_rows` rows, the way the
//! official C++ `AlignedChunkReader` does (seed `002_8cb3312a337eb4c4`):
//!
//! - a **page plan** from each time page's statistics: SKIP (no row can
//!   match, nothing decoded), FULL_PASS (every row matches), BOUNDARY (the
//!   time page is decoded and narrowed to a retained row range
//!   `[row_begin, row_end)`);
//! - **bulk copy** of a BOUNDARY page's retained range when the time filter
//!   is *contiguous* (one interval, no In / NotIn / negation) and there is no
//!   FIELD filter: every row of the range matches;
//! - **direct (in-place) decode** of FULL_PASS pages at the front of an
//!   output block: the value decoders write straight into the block's column
//!   buffers (no staging), when there is no FIELD filter, every requested
//!   column is fixed-width, no offset is left to skip, and the whole page
//!   fits in the current block and the limit.
//!
//! - **value pruning**: with a FIELD filter, a page no row of which can
//!   match by the filtered column's value page header (non-null count,
//!   numeric min / max, an empty page, a missing measurement) is skipped,
//!   its time page undecoded too ([`PageAction::ValueSkip`]).
//!
//! [`ScanOptions::baseline`] switches the optimizations off (the time plan
//! stays). Every scan returns [`ScanStats`]: what the plan did with each page.
//!
//! Compressed chunks are decompressed page by page through a caller's
//! [`Decompress`], only where the plan decodes; a chunk of one page (no
//! statistics in its header) is planned from its decoded times.
//!
//! **Statistics are trusted to skip, checked wherever a page is decoded.**
//! Every header is checked (count >= 1, start <= end, start after the
//! previous page's end); every time page the scan decodes is checked
//! against its statistics (count, first and last time) and for strictly
//! increasing times, with the same typed errors as the reference scanner
//! (`crossdec_reference::tsfile::aligned`); every value page it decodes
//! against its non-null count, and in the FIELD filter's column, the one
//! whose bounds can prune, against numeric min / max as the writers compute
//! them. A page the plan SKIPs (by either filter) is not
//! read: if its statistics lie, its rows are silently missing. Never a panic.

#[cfg(feature = "tsfile-arrow")]
pub mod arrow;
mod column;
pub mod filter;
mod page;
mod pool;
mod scan;

pub use column::{Block, Column, Data};
pub use filter::{CmpOp, FieldFilter, FieldOp, Filter, TimeFilter};
pub use pool::BlockPool;
pub use scan::{scan, scan_reusing, scan_with};

/// The most rows one page may hold unless the caller says otherwise
/// ([`Decompress::max_page_rows`], as for the reference): the format's own
/// bound, a page's point count being a `uint32` in the C++ writer.
pub const DEFAULT_MAX_PAGE_ROWS: usize = u32::MAX as usize;

/// TsFile data types a value column may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnType {
    Boolean,
    Int32,
    Int64,
    Float,
    Double,
    Timestamp,
    Date,
    Text,
    String,
    Blob,
}

impl ColumnType {
    /// Everything but TEXT / STRING / BLOB.
    pub fn fixed_width(self) -> bool {
        !matches!(self, ColumnType::Text | ColumnType::String | ColumnType::Blob)
    }
}

/// Page encodings read (which types each takes: `page::supported`; RLE on
/// FLOAT / DOUBLE, a Java-only pair, is not wired in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Plain,
    Ts2Diff,
    Gorilla,
    Rle,
    Zigzag,
    Chimp,
    Dictionary,
    /// SPRINTZ; INT64 / DOUBLE pages read with the predictor of the
    /// request's [`Writer`].
    Sprintz,
    /// RLBE; FLOAT / DOUBLE pages read in the layout of the request's
    /// [`Writer`] (C++: the integer RLBE of the values' bits; Java: float
    /// differences).
    Rlbe,
    /// CAMEL (DOUBLE only).
    Camel,
    /// REGULAR (INT32 / DATE / INT64 / TIMESTAMP, the Java writer's).
    Regular,
}

impl Encoding {
    /// Does a page in this encoding hold exactly the values its writer was
    /// given? Its statistics are of the values given, so only then can
    /// they be checked against the page or prune it. Not so for FLOAT /
    /// DOUBLE as scaled integers (TS_2DIFF, RLE: rounded), nor for SPRINTZ
    /// and CAMEL, whose C++ encoders give back other values for some
    /// inputs (docs/families/tsfile-aligned.md, "Value page statistics"; the Java
    /// writer's are treated alike, unverified).
    pub(crate) fn stores_values_as_given(self, float: bool) -> bool {
        match self {
            Encoding::Ts2Diff | Encoding::Rle => !float,
            Encoding::Sprintz | Encoding::Camel => false,
            _ => true,
        }
    }
}

/// One chunk's page area as the file stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub data_type: ColumnType,
    pub encoding: Encoding,
    /// The chunk header's compression id (0: UNCOMPRESSED); other ids are
    /// decompressed page by page, only for pages the plan decodes, through
    /// the scan's [`Decompress`].
    pub compression: u8,
    /// Page headers carry statistics. `false` for a chunk the file marks as
    /// holding one page: such a page is planned from its decoded times
    /// (the caller prunes whole chunks by the chunk metadata's statistics).
    pub page_statistics: bool,
    pub data: &'a [u8],
}

impl<'a> Chunk<'a> {
    /// An uncompressed chunk whose page headers carry statistics.
    pub fn plain(data_type: ColumnType, encoding: Encoding, data: &'a [u8]) -> Self {
        Chunk {
            data_type,
            encoding,
            compression: 0,
            page_statistics: true,
            data,
        }
    }
}

/// Page bodies' decompression, supplied by the caller, so the kernels carry
/// no codec (`crossdec-tsfile` implements it with every codec the official
/// writers use).
pub trait Decompress {
    /// Decompress one page body of a chunk with compression id
    /// `compression` into its `size` bytes (the page header's number).
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String>;
    /// The most rows one page may decode to (a time page's body does not
    /// say how many it holds): the memory the caller lets one page take.
    /// The reference scanner asks its codec the same.
    fn max_page_rows(&self) -> usize {
        DEFAULT_MAX_PAGE_ROWS
    }
}

/// No codec: every compressed page is an error.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDecompress;

impl Decompress for NoDecompress {
    fn decompress(&self, compression: u8, _: &[u8], _: usize) -> Result<Vec<u8>, String> {
        Err(format!("no decompressor for compression id {compression}"))
    }
}

/// The time chunk (INT64: PLAIN, TS_2DIFF, GORILLA, RLE, ZIGZAG, CHIMP,
/// SPRINTZ or RLBE) and one entry per measurement (`None`: missing from the
/// group, all null).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<'a> {
    pub time: Chunk<'a>,
    pub values: Vec<Option<Chunk<'a>>>,
}

/// What to read.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub filter: Filter,
    pub offset: u64,
    pub limit: Option<u64>,
    /// Indices into [`Group::values`], in output order.
    pub columns: Vec<usize>,
    /// At least 1.
    pub block_rows: usize,
    /// Whose layouts to read where the official writers' differ.
    pub writer: Writer,
}

/// Which official writer wrote the chunks. Two encodings differ between
/// them and nothing in a page says which (`docs/reference/tsfile-encodings.md`):
/// RLBE on FLOAT / DOUBLE (Java encodes float differences, C++ the values'
/// bits) and SPRINTZ on INT64 / DOUBLE, a time column's included (the
/// predictor's product wrapped in 64 bits by Java, taken in 128 by C++).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Writer {
    /// The C++ library (the PyPI `tsfile` package, the C and Python APIs).
    #[default]
    Cpp,
    /// The Java library (IoTDB, the Java API).
    Java,
}

/// Switches for the two optimizations (both on by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanOptions {
    /// Copy a BOUNDARY page's retained range as a block under a contiguous
    /// time filter (else row by row).
    pub bulk_copy: bool,
    /// Decode a FULL_PASS page straight into the block when the whole page
    /// fits the block's room.
    pub direct_decode: bool,
    /// Skip, undecoded, a FULL_PASS page whose row count (from its
    /// statistics) the remaining offset swallows whole (no FIELD filter).
    pub offset_pushdown: bool,
    /// Skip, undecoded, a page no row of which can match the FIELD filter
    /// by its value page's header: statistics (non-null count, min / max),
    /// an empty page, a missing measurement ([`PageAction::ValueSkip`]).
    pub value_pruning: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            bulk_copy: true,
            direct_decode: true,
            offset_pushdown: true,
            value_pruning: true,
        }
    }
}

impl ScanOptions {
    /// The page plan alone: no bulk copy of BOUNDARY pages, no in-place
    /// decode (what the seed measured its -13% against), every page the
    /// offset drops decoded, no page skipped by the FIELD filter.
    pub fn baseline() -> Self {
        ScanOptions {
            bulk_copy: false,
            direct_decode: false,
            offset_pushdown: false,
            value_pruning: false,
        }
    }
}

/// What the scan did with one page (index = page index in the chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageAction {
    /// Statistics: no row can match. Nothing decoded.
    Skip,
    /// BOUNDARY by statistics; the time page was decoded and no row
    /// matched. Value pages not decoded.
    NoMatch,
    /// Every row matches the time filter. `in_place`: decoded straight
    /// into the block; else staged and copied (or, with a FIELD filter,
    /// appended row by row).
    FullPass { in_place: bool },
    /// Some rows may match: rows `[row_begin, row_end)` hold the first to
    /// the last matching time; `bulk`: copied as a block, else row by row.
    Boundary {
        row_begin: usize,
        row_end: usize,
        bulk: bool,
    },
    /// The limit was reached before this page; nothing decoded.
    NotReached,
    /// FULL_PASS by statistics and wholly inside the offset: its rows (the
    /// statistics' count) dropped, nothing decoded.
    OffsetSkip,
    /// No row can match the FIELD filter by the filtered column's value
    /// page header (`docs/families/tsfile-aligned.md`, "The kernel's plan"): its
    /// statistics' non-null count or min / max, or the page is empty or the
    /// measurement missing. Nothing decoded, the time page neither.
    ValueSkip,
}

impl PageAction {
    /// Did the scan decode this page of `chunk`?
    pub fn decoded(self, chunk: ChunkId) -> bool {
        match self {
            PageAction::Skip | PageAction::NotReached | PageAction::OffsetSkip | PageAction::ValueSkip => false,
            PageAction::NoMatch => chunk == ChunkId::Time,
            PageAction::FullPass { .. } | PageAction::Boundary { .. } => true,
        }
    }
}

/// The scan statistics: counts per plan class, and the plan itself.
/// `pages_skipped` counts [`PageAction::Skip`] and [`PageAction::NoMatch`];
/// `pages_in_place` is a subset of `pages_full_pass`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Pages dropped whole by the offset ([`PageAction::OffsetSkip`]).
    pub pages_offset_skipped: usize,
    pub pages_skipped: usize,
    pub pages_full_pass: usize,
    pub boundary_bulk: usize,
    pub boundary_row_by_row: usize,
    pub pages_in_place: usize,
    pub pages_not_reached: usize,
    /// Pages skipped by the FIELD filter ([`PageAction::ValueSkip`]; not
    /// in `pages_skipped`, which counts the time filter's).
    pub skipped_by_value_statistics: usize,
    /// One entry per page the scan got to (on an error, up to and including
    /// the page that failed).
    pub plan: Vec<PageAction>,
}

/// A scan's whole outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanOutput {
    pub result: Result<Vec<Block>, ScanError>,
    pub stats: ScanStats,
}

/// A value in the canonical form (floats as bit patterns).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    Bytes(Vec<u8>),
}

/// Which chunk an error is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkId {
    Time,
    Value(usize),
}

/// What went wrong (the reference's kinds, one for one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    BadRequest,
    Unsupported,
    TruncatedHeader,
    BadPageSize,
    TruncatedPage,
    PageCountMismatch,
    RowCountMismatch,
    BitmapTruncated,
    ValueCountMismatch,
    StatisticsLie,
    TimesNotIncreasing,
    /// The page decoder's error, as its `Debug` text.
    Decode(String),
    /// A compressed page body that did not decompress to its header's size.
    Decompress(String),
}

/// A typed error: chunk, page index, byte offset in the chunk's data (an
/// error inside a compressed page's body: the body's start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    pub kind: ErrorKind,
    pub chunk: ChunkId,
    pub page: usize,
    pub offset: usize,
}

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} in {:?} chunk, page {}, byte {}",
            self.kind, self.chunk, self.page, self.offset
        )
    }
}

impl std::error::Error for ScanError {}

#[cfg(test)]
mod malformed;
#[cfg(test)]
mod naive_oracle;
#[cfg(test)]
mod tests;
