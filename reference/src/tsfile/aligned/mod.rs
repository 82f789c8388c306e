//! The reference aligned chunk scanner (`docs/families/tsfile-aligned.md`): one time
//! chunk plus N value chunks, a filter, offset / limit, the requested columns
//! and a block size. Written from `formats/tsfile.md` ("Chunks and pages")
//! and issue 19, never from kernel code.
//!
//! Obvious on purpose: it walks every page header of the chunks the scan
//! involves, decodes every page of them with the reference page decoders,
//! checks each page's statistics against its decoded times, evaluates the
//! filter on every row, applies offset / limit and appends rows one at a
//! time into blocks. Statistics are only *checked*, never used to decide
//! which rows to read; the one number taken from them is a GORILLA or
//! CHIMP time page's count, which is how many times such a page holds (as
//! a value page's bitmap says how many values it holds).

pub mod filter;
pub mod page;
pub mod scan;
pub mod write;

pub use filter::{CmpOp, FieldFilter, FieldOp, Filter, TimeFilter};
pub use scan::{scan, scan_with};

/// The most rows one page may hold. A time page's row count is not in its
/// body (only in its statistics, which may lie), so decoding is bounded by
/// this cap: a small hostile page cannot make the scanner produce millions
/// of rows.
///
/// The bound is the caller's ([`Decompress::max_page_rows`], the memory
/// it lets one page take); by default the format's own: a page's point
/// count is a `uint32` in the C++ writer, so no valid page holds more
/// than [`DEFAULT_MAX_PAGE_ROWS`].
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

/// Page encodings the aligned scanner reads (which types each takes:
/// [`page::supported`]). RLE on FLOAT / DOUBLE (a Java-only pair) is not
/// wired in.
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
    /// RLBE; FLOAT / DOUBLE pages read in the request's [`Writer`]'s layout.
    Rlbe,
    /// CAMEL (DOUBLE only).
    Camel,
    /// REGULAR (INT32 / DATE / INT64 / TIMESTAMP, the Java writer's).
    Regular,
}

/// One chunk's page area as the file stores it: page header, page body,
/// page header, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub data_type: ColumnType,
    pub encoding: Encoding,
    /// The chunk header's compression id (0: UNCOMPRESSED). Other ids are
    /// decompressed page by page through the scan's [`Decompress`].
    pub compression: u8,
    /// Page headers carry statistics. `false` for a chunk the file marks as
    /// holding one page (chunk marker 5): its header has sizes only.
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

/// Page bodies' decompression, supplied by the caller: the scanner knows
/// no codec (the streaming reader in `crossdec-tsfile` implements this with
/// every codec the official writers use).
pub trait Decompress {
    /// Decompress one page body of a chunk with compression id
    /// `compression` into its `size` bytes (the page header's number).
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String>;
    /// The most rows one page may decode to (a time page's body does not
    /// say how many it holds): the memory the caller lets one page take.
    fn max_page_rows(&self) -> usize {
        DEFAULT_MAX_PAGE_ROWS
    }
}

/// No codec at all: every compressed page is an error.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDecompress;

impl Decompress for NoDecompress {
    fn decompress(&self, compression: u8, _: &[u8], _: usize) -> Result<Vec<u8>, String> {
        Err(format!("no decompressor for compression id {compression}"))
    }
}

/// An aligned chunk group: the time chunk (INT64 times, in any encoding
/// [`page::supported`] takes for INT64) and one entry per measurement;
/// `None` is a measurement missing from the group (every row of it is
/// null).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<'a> {
    pub time: Chunk<'a>,
    pub values: Vec<Option<Chunk<'a>>>,
}

/// What to read.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub filter: Filter,
    /// Matching rows to drop before the first one returned.
    pub offset: u64,
    /// The most rows returned (`None`: all).
    pub limit: Option<u64>,
    /// Indices into [`Group::values`], in output order (repeats allowed).
    pub columns: Vec<usize>,
    /// The most rows per block (at least 1).
    pub block_rows: usize,
    /// Whose layouts to read where the official writers' differ.
    pub writer: Writer,
}

/// Which official writer wrote the chunks. Nothing in a page says so, and
/// two encodings differ between them (`formats/tsfile.md`,
/// `docs/reference/tsfile-encodings.md`): RLBE on FLOAT / DOUBLE (Java codes the
/// differences of the float values, C++ the integer RLBE of their bits)
/// and SPRINTZ on INT64 / DOUBLE, time columns included (Java wraps the
/// predictor's product in 64 bits, C++ takes it in 128).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Writer {
    /// The C++ library (PyPI `tsfile`, the C and Python APIs).
    #[default]
    Cpp,
    /// The Java library (IoTDB, the Java API).
    Java,
}

/// One value. Floats are kept as their bit patterns so that equality is
/// exact and the same on every architecture.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    Bytes(Vec<u8>),
}

/// A block of rows: `times[r]` and `columns[c][r]` (one column per requested
/// index, `None` for null).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Block {
    pub times: Vec<i64>,
    pub columns: Vec<Vec<Option<Value>>>,
}

/// Which chunk an error is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkId {
    Time,
    /// Index into [`Group::values`].
    Value(usize),
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// block_rows 0, a column index out of range, a FIELD filter on a
    /// column that does not exist (position: chunk Time, page 0, offset 0).
    BadRequest,
    /// A data type / encoding pair the scanner does not read.
    Unsupported,
    /// A page header runs past the chunk's end.
    TruncatedHeader,
    /// A header's compressed size differs from its uncompressed size in an
    /// uncompressed chunk, or a time page is empty.
    BadPageSize,
    /// A page body runs past the chunk's end.
    TruncatedPage,
    /// A value chunk has a different number of pages than the time chunk
    /// (position: the value chunk's end, page = the time chunk's page count).
    PageCountMismatch,
    /// A value page's row count differs from its time page's.
    RowCountMismatch,
    /// A value page's null bitmap is shorter than its row count needs.
    BitmapTruncated,
    /// A value page holds fewer values than its bitmap's non-null rows.
    ValueCountMismatch,
    /// A page's statistics contradict the chunk: count 0, start after end,
    /// or a start not after the previous page's end (header checks), or
    /// times that differ from the decoded page (count, first, last).
    StatisticsLie,
    /// A time page whose times do not strictly increase.
    TimesNotIncreasing,
    /// The page decoder rejected the body; offsets inside `detail` are from
    /// the start of the encoded values.
    Decode(String),
    /// A compressed page body that did not decompress to its header's size
    /// (the decompressor's words, or the size it gave).
    Decompress(String),
}

/// A typed error with its position: the chunk, the page index in it, and
/// the byte offset from the start of the chunk's data. An error inside a
/// compressed page's body is at the body's start (its bytes after
/// decompression have no place in the chunk).
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

/// Is a value of this type fixed-width (everything but TEXT / STRING / BLOB)?
pub fn fixed_width(t: ColumnType) -> bool {
    !matches!(t, ColumnType::Text | ColumnType::String | ColumnType::Blob)
}

#[cfg(test)]
mod tests;
