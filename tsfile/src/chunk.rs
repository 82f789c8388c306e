//! Chunk headers, page headers and page bodies (`formats/tsfile.md`,
//! "Chunks and pages").

use crate::compression::decompress;
use crate::cursor::Cursor;
use crate::error::ReadError;
use crate::limits::Limits;
use crate::types::{Compression, DataType, Encoding};

/// What a chunk holds, from its marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// A series of its own: every page has its times and values.
    NonAligned,
    /// The time column of an aligned chunk group.
    AlignedTime,
    /// A value column of an aligned chunk group: rows, a null bitmap, values.
    AlignedValue,
}

/// A chunk header, with the raw ids (an id this reader does not know is
/// still reported, and the chunk skipped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkHeader {
    /// File offset of the marker byte.
    pub offset: u64,
    pub marker: u8,
    pub measurement: String,
    /// Bytes of page headers and bodies after the header.
    pub data_size: u64,
    pub data_type_id: u8,
    pub compression_id: u8,
    pub encoding_id: u8,
}

impl ChunkHeader {
    /// Whether `marker` starts a chunk.
    pub fn is_chunk_marker(marker: u8) -> bool {
        matches!(marker, 0x01 | 0x05 | 0x41 | 0x45 | 0x81 | 0x85)
    }

    pub fn kind(&self) -> ChunkKind {
        match self.marker & 0xC0 {
            0x80 => ChunkKind::AlignedTime,
            0x40 => ChunkKind::AlignedValue,
            _ => ChunkKind::NonAligned,
        }
    }

    /// A chunk of one page writes no page statistics.
    pub fn single_page(&self) -> bool {
        self.marker & 0x04 != 0
    }

    pub fn data_type(&self) -> Option<DataType> {
        DataType::from_id(self.data_type_id)
    }

    pub fn encoding(&self) -> Option<Encoding> {
        Encoding::from_id(self.encoding_id)
    }

    pub fn compression(&self) -> Option<Compression> {
        Compression::from_id(self.compression_id)
    }

    /// Read the header after its marker byte (`c` is just past it).
    pub(crate) fn read(c: &mut Cursor<'_>, marker: u8, offset: u64) -> Result<Self, ReadError> {
        let measurement = c.var_string("measurement id")?.unwrap_or_default();
        let data_size = c.uvarint_len("chunk data size")?;
        Ok(ChunkHeader {
            offset,
            marker,
            measurement,
            data_size,
            data_type_id: c.u8("chunk data type")?,
            compression_id: c.u8("chunk compression")?,
            encoding_id: c.u8("chunk encoding")?,
        })
    }
}

/// A page's statistics as far as every type shares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageStatistics {
    pub count: u64,
    pub start_time: i64,
    pub end_time: i64,
}

/// One page of a chunk, decompressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// File offset of the page header.
    pub offset: u64,
    /// `None` for a chunk of one page (no statistics written).
    pub statistics: Option<PageStatistics>,
    pub compressed_size: u64,
    /// The page body after decompression; empty with `empty` set for an
    /// aligned value page whose rows are all null.
    pub body: Vec<u8>,
    pub empty: bool,
}

/// A page body split into its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageBody<'a> {
    /// A non-aligned page: the time column's bytes and the value column's.
    NonAligned { times: &'a [u8], values: &'a [u8] },
    /// An aligned time page: the time encoder's output only.
    Times(&'a [u8]),
    /// An aligned value page: `rows` rows, MSB-first bitmap (1 = not null),
    /// the non-null values' bytes.
    Values {
        rows: usize,
        bitmap: &'a [u8],
        values: &'a [u8],
    },
    /// An aligned value page with no value at all (uncompressed size 0).
    AllNull,
}

impl PageBody<'_> {
    /// Whether row `i` of a value page holds a value.
    pub fn present(bitmap: &[u8], i: usize) -> bool {
        bitmap[i / 8] & (0x80 >> (i % 8)) != 0
    }
}

impl Page {
    /// Split the body as a page of `kind` lays it out.
    pub fn parts(&self, kind: ChunkKind) -> Result<PageBody<'_>, ReadError> {
        if self.empty {
            return Ok(PageBody::AllNull);
        }
        let body_offset = self.offset;
        let mut c = Cursor::new(&self.body, body_offset);
        Ok(match kind {
            ChunkKind::AlignedTime => PageBody::Times(&self.body),
            ChunkKind::NonAligned => {
                let len = c.uvarint_len("time column length")?;
                let times = c.take(len as usize, "time column")?;
                PageBody::NonAligned {
                    times,
                    values: c.rest(),
                }
            }
            ChunkKind::AlignedValue => {
                let at = c.offset();
                let rows = c.i32_be("row count")?;
                if rows < 0 {
                    return Err(ReadError::Malformed {
                        what: format!("row count {rows}"),
                        offset: at,
                    });
                }
                let rows = rows as usize;
                let bitmap = c.take(rows.div_ceil(8), "null bitmap")?;
                PageBody::Values {
                    rows,
                    bitmap,
                    values: c.rest(),
                }
            }
        })
    }
}

/// Bytes of the typed part of a page's statistics (after count, start and
/// end time), for fixed-width types; `None` for the binary types, whose
/// strings are read one by one.
fn typed_statistics_width(data_type: DataType) -> Option<usize> {
    Some(match data_type {
        DataType::Boolean => 1 + 1 + 8,
        DataType::Int32 | DataType::Date => 4 * 4 + 8,
        DataType::Int64 | DataType::Timestamp => 4 * 8 + 8,
        DataType::Float => 4 * 4 + 8,
        DataType::Double => 5 * 8,
        DataType::Vector | DataType::Blob => 0,
        DataType::Text | DataType::String => return None,
    })
}

/// Read (and skip the typed part of) one statistics record: uvarint count,
/// start and end time, then the type's own fields.
pub(crate) fn read_statistics(c: &mut Cursor<'_>, data_type: DataType) -> Result<PageStatistics, ReadError> {
    let count = c.uvarint("statistics count")?;
    let start_time = c.i64_be("statistics start time")?;
    let end_time = c.i64_be("statistics end time")?;
    match typed_statistics_width(data_type) {
        Some(width) => {
            c.take(width, "statistics")?;
        }
        None => {
            // TEXT: first, last; STRING: first, last, min, max.
            let strings = if data_type == DataType::Text { 2 } else { 4 };
            for _ in 0..strings {
                let at = c.offset();
                let len = c.i32_be("statistics string length")?;
                if len < 0 {
                    return Err(ReadError::Malformed {
                        what: format!("statistics string length {len}"),
                        offset: at,
                    });
                }
                c.take(len as usize, "statistics string")?;
            }
        }
    }
    Ok(PageStatistics {
        count,
        start_time,
        end_time,
    })
}

/// Split a chunk's data (`data`, starting at file offset `base`) into pages
/// and decompress each.
pub(crate) fn read_pages(
    header: &ChunkHeader,
    data: &[u8],
    base: u64,
    limits: &Limits,
) -> Result<Vec<Page>, ReadError> {
    let data_type = header.data_type().ok_or(ReadError::Unsupported {
        what: "data type",
        value: header.data_type_id,
        offset: header.offset,
    })?;
    let compression = header.compression().ok_or(ReadError::Unsupported {
        what: "compression",
        value: header.compression_id,
        offset: header.offset,
    })?;
    let mut c = Cursor::new(data, base);
    let mut pages = Vec::new();
    while !c.is_empty() {
        let offset = c.offset();
        let uncompressed = c.uvarint_len("page uncompressed size")?;
        if header.kind() == ChunkKind::AlignedValue && uncompressed == 0 {
            pages.push(Page {
                offset,
                statistics: None,
                compressed_size: 0,
                body: Vec::new(),
                empty: true,
            });
            continue;
        }
        let compressed = c.uvarint_len("page compressed size")?;
        let statistics = if header.single_page() {
            None
        } else {
            Some(read_statistics(&mut c, data_type)?)
        };
        let body = c.take(compressed as usize, "page body")?;
        pages.push(Page {
            offset,
            statistics,
            compressed_size: compressed,
            body: decompress(compression, body, uncompressed, offset, limits)?,
            empty: false,
        });
    }
    Ok(pages)
}
