//! Page headers of an aligned chunk (`formats/tsfile.md`, "Chunks and
//! pages"): the page directory the planner works from, and the fixed part
//! of a value page body (row count, null bitmap).

use super::{ChunkId, ColumnType, Encoding, ErrorKind, ScanError};
use crate::tsfile::uvarint32;

/// One page: header position, body, statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageRef {
    pub header_at: usize,
    pub body_at: usize,
    /// Stored bytes of the body, and its size decompressed.
    pub body_len: usize,
    pub size: usize,
    /// An empty (all-null) value page: size 0 and nothing else.
    pub empty: bool,
    /// `count`, `start`, `end` are from the header (else 0).
    pub has_statistics: bool,
    pub count: u32,
    pub start: i64,
    pub end: i64,
    /// A numeric value page's min and max statistics as stored (INT32 /
    /// DATE / FLOAT: the 4 bytes BE in the low bits; INT64 / TIMESTAMP /
    /// DOUBLE: 8), else 0.
    pub min: u64,
    pub max: u64,
}

fn fail(kind: ErrorKind, chunk: ChunkId, page: usize, offset: usize) -> ScanError {
    ScanError {
        kind,
        chunk,
        page,
        offset,
    }
}

/// A value page's per-type statistics after count / start / end: fixed
/// bytes, or a number of length-prefixed strings (TEXT: first, last;
/// STRING: first, last, min, max; BLOB keeps none).
fn typed_stats(t: ColumnType) -> Result<usize, usize> {
    match t {
        ColumnType::Boolean => Ok(10),
        ColumnType::Int32 | ColumnType::Date | ColumnType::Float => Ok(24),
        ColumnType::Int64 | ColumnType::Timestamp | ColumnType::Double => Ok(40),
        ColumnType::Blob => Ok(0),
        ColumnType::Text => Err(2),
        ColumnType::String => Err(4),
    }
}

/// Walk a chunk's page headers (`value_type` `None` for the time chunk;
/// `compressed`: the sizes may differ; `statistics`: headers carry them).
pub(crate) fn directory(
    data: &[u8],
    chunk: ChunkId,
    value_type: Option<ColumnType>,
    compressed: bool,
    statistics: bool,
) -> Result<Vec<PageRef>, ScanError> {
    let mut pages = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let page = pages.len();
        let truncated = |at: usize| fail(ErrorKind::TruncatedHeader, chunk, page, at);
        // Varint errors (cut or too long) are both a header that cannot be read.
        let varint = |at: usize| uvarint32(data, at, crate::tsfile::Field::Varint).map_err(|_| truncated(at));
        let header_at = pos;
        let (size, k) = varint(pos)?;
        pos += k;
        if size == 0 {
            if value_type.is_none() {
                return Err(fail(ErrorKind::BadPageSize, chunk, page, header_at));
            }
            pages.push(PageRef {
                header_at,
                body_at: pos,
                body_len: 0,
                size: 0,
                empty: true,
                has_statistics: false,
                count: 0,
                start: 0,
                end: 0,
                min: 0,
                max: 0,
            });
            continue;
        }
        let (stored, k) = varint(pos)?;
        if !compressed && stored != size {
            return Err(fail(ErrorKind::BadPageSize, chunk, page, pos));
        }
        pos += k;
        let (mut count, mut start, mut end) = (0, 0, 0);
        if statistics {
            let k;
            (count, k) = varint(pos)?;
            pos += k;
            start = crate::tsfile::be_u64(data, pos).ok_or(truncated(pos))? as i64;
            pos += 8;
            end = crate::tsfile::be_u64(data, pos).ok_or(truncated(pos))? as i64;
            pos += 8;
        }
        let (mut min, mut max) = (0, 0);
        if let Some(t) = value_type.filter(|_| statistics) {
            match typed_stats(t) {
                Ok(n) => {
                    if data.len() - pos < n {
                        return Err(truncated(pos));
                    }
                    // min, max first (both writers' order).
                    let word = |at: usize, w: usize| data[at..at + w].iter().fold(0u64, |x, &b| (x << 8) | b as u64);
                    match n {
                        24 => (min, max) = (word(pos, 4), word(pos + 4, 4)),
                        40 => (min, max) = (word(pos, 8), word(pos + 8, 8)),
                        _ => {}
                    }
                    pos += n;
                }
                Err(strings) => {
                    for _ in 0..strings {
                        let len = crate::tsfile::be_u32(data, pos).ok_or(truncated(pos))? as i32;
                        let Ok(len) = usize::try_from(len) else {
                            return Err(truncated(pos));
                        };
                        if data.len() - pos - 4 < len {
                            return Err(truncated(pos + 4));
                        }
                        pos += 4 + len;
                    }
                }
            }
        }
        let stored = stored as usize;
        if data.len() - pos < stored {
            return Err(fail(ErrorKind::TruncatedPage, chunk, page, pos));
        }
        pages.push(PageRef {
            header_at,
            body_at: pos,
            body_len: stored,
            size: size as usize,
            empty: false,
            has_statistics: statistics,
            count,
            start,
            end,
            min,
            max,
        });
        pos += stored;
    }
    Ok(pages)
}

/// The data type / encoding pairs the scanner reads: every pair the C++
/// writer (PyPI `tsfile` 2.5) accepts, and RLE on FLOAT / DOUBLE, which the
/// Java writer writes (its scaled-integer wrapper); DATE read as INT32 and
/// TIMESTAMP as INT64 throughout.
pub(crate) fn supported(t: ColumnType, e: Encoding) -> bool {
    use ColumnType::*;
    match e {
        Encoding::Plain => true,
        Encoding::Rle => matches!(t, Boolean | Int32 | Date | Int64 | Timestamp | Float | Double),
        Encoding::Ts2Diff | Encoding::Gorilla | Encoding::Chimp | Encoding::Sprintz | Encoding::Rlbe => {
            matches!(t, Int32 | Date | Int64 | Timestamp | Float | Double)
        }
        Encoding::Zigzag | Encoding::Regular => matches!(t, Int32 | Date | Int64 | Timestamp),
        Encoding::Dictionary => matches!(t, Text | String),
        Encoding::Camel => t == Double,
    }
}

/// A value page body split into its null bitmap and its encoded values.
pub(crate) struct ValuePage<'a> {
    pub bitmap: &'a [u8],
    pub values: &'a [u8],
    /// Where `values` starts in the chunk (a compressed page: where its
    /// body starts).
    pub values_at: usize,
    pub non_null: usize,
}

impl ValuePage<'_> {
    #[inline]
    pub fn present(&self, r: usize) -> bool {
        self.bitmap[r / 8] & (0x80 >> (r % 8)) != 0
    }
}

/// Check a non-empty value page's row count and bitmap against `rows`.
/// `body` is the page's body (decompressed when `compressed`).
pub(crate) fn value_page<'a>(
    body: &'a [u8],
    compressed: bool,
    page: &PageRef,
    chunk: ChunkId,
    p: usize,
    rows: usize,
) -> Result<ValuePage<'a>, ScanError> {
    let inside = |offset: usize| {
        if compressed {
            page.body_at
        } else {
            page.body_at + offset
        }
    };
    let row_count =
        crate::tsfile::be_u32(body, 0).ok_or(fail(ErrorKind::TruncatedPage, chunk, p, page.body_at))? as i32;
    if usize::try_from(row_count).ok() != Some(rows) {
        return Err(fail(ErrorKind::RowCountMismatch, chunk, p, page.body_at));
    }
    let bitmap_len = rows.div_ceil(8);
    if body.len() - 4 < bitmap_len {
        return Err(fail(ErrorKind::BitmapTruncated, chunk, p, inside(4)));
    }
    let bitmap = &body[4..4 + bitmap_len];
    // Whole bytes by popcount, eight at a time (without a POPCNT
    // instruction, a u64's count costs about what one byte's does); the
    // last byte's unused low bits do not count.
    let words = bitmap.chunks_exact(8);
    let tail: usize = words.remainder().iter().map(|b| b.count_ones() as usize).sum();
    let mut non_null = tail
        + words
            .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")).count_ones() as usize)
            .sum::<usize>();
    if !rows.is_multiple_of(8) {
        let spare = bitmap[bitmap_len - 1] & (0xFF >> (rows % 8));
        non_null -= spare.count_ones() as usize;
    }
    Ok(ValuePage {
        bitmap,
        values: &body[4 + bitmap_len..],
        values_at: inside(4 + bitmap_len),
        non_null,
    })
}
