//! [`TsFileReader`]: open a file, read its tail (metadata index), then
//! stream its chunk groups and chunks one chunk in memory at a time, or
//! jump to a chunk the index names.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::chunk::{read_pages, ChunkHeader, Page};
use crate::cursor::Cursor;
use crate::error::ReadError;
use crate::limits::Limits;
use crate::metadata::{self, DeviceId, FileMetadata};
use crate::types::Encoding;

const MAGIC: &[u8; 6] = b"TsFile";

/// How to read a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    pub limits: Limits,
    /// The time column's encoding in non-aligned chunks, which the file does
    /// not record: the writers' setting, TS_2DIFF unless changed.
    pub time_encoding: Encoding,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            limits: Limits::default(),
            time_encoding: Encoding::Ts2Diff,
        }
    }
}

/// A chunk as the file holds it: header and (still compressed) page data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawChunk {
    pub device: DeviceId,
    pub header: ChunkHeader,
    /// File offset of `data[0]`.
    pub data_offset: u64,
    pub data: Vec<u8>,
}

impl RawChunk {
    /// Split into pages and decompress them.
    pub fn pages(&self, limits: &Limits) -> Result<Vec<Page>, ReadError> {
        read_pages(&self.header, &self.data, self.data_offset, limits)
    }
}

/// A streaming TsFile reader over any `Read + Seek`.
pub struct TsFileReader<R> {
    input: R,
    len: u64,
    version: u8,
    options: ReadOptions,
    metadata: Result<FileMetadata, ReadError>,
    /// Next byte of the chunk stream, and the device its chunks belong to.
    pos: u64,
    device: Option<DeviceId>,
    finished: bool,
    /// Chunk buffers handed back by [`TsFileReader::recycle`], filled again
    /// by the next [`TsFileReader::chunk_at`]: a scan that reads group
    /// after group, or the same groups again, allocates (and the system
    /// zero-fills) no new memory for them.
    spare: Vec<Vec<u8>>,
}

/// The most chunk buffers a reader keeps for reuse: a chunk group's time
/// column and value columns, for devices of up to this many columns less
/// one.
const SPARE_BUFFERS: usize = 64;

impl TsFileReader<BufReader<File>> {
    /// Open the file at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let file = File::open(path).map_err(|e| ReadError::io(0, e))?;
        TsFileReader::new(BufReader::new(file), ReadOptions::default())
    }
}

impl<R: Read + Seek> TsFileReader<R> {
    /// Check the head magic and version, and read the tail: the metadata
    /// (a file cut short or with a damaged tail still streams its chunks;
    /// [`metadata`](Self::metadata) then says what is wrong).
    pub fn new(mut input: R, options: ReadOptions) -> Result<Self, ReadError> {
        let len = input.seek(SeekFrom::End(0)).map_err(|e| ReadError::io(0, e))?;
        let head = read_at(&mut input, 0, 7.min(len) as usize)?;
        if head.len() < 7 || &head[..6] != MAGIC {
            return Err(ReadError::BadMagic { offset: 0 });
        }
        let version = head[6];
        if version != 3 && version != 4 {
            return Err(ReadError::UnsupportedVersion { version });
        }
        let metadata = read_tail(&mut input, len);
        Ok(TsFileReader {
            input,
            len,
            version,
            options,
            metadata,
            pos: 7,
            device: None,
            finished: false,
            spare: Vec::new(),
        })
    }

    pub fn version(&self) -> u8 {
        self.version
    }

    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The file's metadata index, or why it could not be read.
    pub fn metadata(&self) -> Result<&FileMetadata, &ReadError> {
        self.metadata.as_ref()
    }

    /// The next chunk in file order (chunk group headers are followed to
    /// know each chunk's device), `None` after the data section's end
    /// marker. One chunk's bytes are read at a time.
    pub fn next_chunk(&mut self) -> Result<Option<RawChunk>, ReadError> {
        if self.finished {
            return Ok(None);
        }
        let result = self.advance();
        if !matches!(result, Ok(Some(_))) {
            self.finished = true;
        }
        result
    }

    fn advance(&mut self) -> Result<Option<RawChunk>, ReadError> {
        loop {
            let offset = self.pos;
            let marker = self.header_bytes(offset, |c| c.u8("marker"))?;
            match marker {
                0x00 => {
                    self.device = Some(self.header_bytes(offset + 1, DeviceId::read)?);
                }
                0x02 => return Ok(None),
                0x04 => {
                    // Operation index range (two i64), written by some Java versions.
                    self.header_bytes(offset + 1, |c| c.take(16, "operation index range").map(|_| ()))?;
                }
                m if ChunkHeader::is_chunk_marker(m) => {
                    let device = self.device.clone().ok_or(ReadError::Malformed {
                        what: "chunk before any chunk group header".into(),
                        offset,
                    })?;
                    let header = self.header_bytes(offset + 1, |c| ChunkHeader::read(c, m, offset))?;
                    let data_offset = self.pos;
                    if header.data_size > self.len - data_offset {
                        return Err(ReadError::Truncated {
                            what: "chunk data",
                            offset: data_offset,
                        });
                    }
                    let data = read_at(&mut self.input, data_offset, header.data_size as usize)?;
                    self.pos = data_offset + header.data_size;
                    return Ok(Some(RawChunk {
                        device,
                        header,
                        data_offset,
                        data,
                    }));
                }
                other => return Err(ReadError::UnknownMarker { marker: other, offset }),
            }
        }
    }

    /// Parse a header starting at `at` from a window of the file, growing
    /// the window while the header runs past it; moves the stream position
    /// past what was parsed.
    fn header_bytes<T>(
        &mut self,
        at: u64,
        parse: impl Fn(&mut Cursor<'_>) -> Result<T, ReadError>,
    ) -> Result<T, ReadError> {
        let mut window = 256u64;
        loop {
            let n = window.min(self.len.saturating_sub(at));
            let bytes = read_at(&mut self.input, at, n as usize)?;
            let mut c = Cursor::new(&bytes, at);
            match parse(&mut c) {
                Err(ReadError::Truncated { .. }) if at + n < self.len => window *= 4,
                Ok(v) => {
                    self.pos = at + c.pos() as u64;
                    return Ok(v);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The chunk whose header starts at `offset` (from the index), with
    /// `device` as its device.
    pub fn chunk_at(&mut self, offset: u64, device: DeviceId) -> Result<RawChunk, ReadError> {
        let saved = (self.pos, self.finished);
        let marker = self.header_bytes(offset, |c| c.u8("chunk marker"))?;
        if !ChunkHeader::is_chunk_marker(marker) {
            self.pos = saved.0;
            return Err(ReadError::UnknownMarker { marker, offset });
        }
        let header = self.header_bytes(offset + 1, |c| ChunkHeader::read(c, marker, offset))?;
        let data_offset = self.pos;
        self.pos = saved.0;
        self.finished = saved.1;
        if header.data_size > self.len - data_offset {
            return Err(ReadError::Truncated {
                what: "chunk data",
                offset: data_offset,
            });
        }
        let mut data = self.spare.pop().unwrap_or_default();
        read_into(&mut self.input, data_offset, header.data_size as usize, &mut data)?;
        Ok(RawChunk {
            device,
            header,
            data_offset,
            data,
        })
    }

    /// Hand `chunk`'s buffer back for the next [`chunk_at`](Self::chunk_at)
    /// to fill (up to a few dozen are kept).
    pub fn recycle(&mut self, chunk: RawChunk) {
        if self.spare.len() < SPARE_BUFFERS {
            self.spare.push(chunk.data);
        }
    }
}

/// Read exactly `n` bytes at `offset` (`n` is never more than the file holds
/// past `offset`: callers check it against the file's length).
fn read_at<R: Read + Seek>(input: &mut R, offset: u64, n: usize) -> Result<Vec<u8>, ReadError> {
    let mut buf = Vec::new();
    read_into(input, offset, n, &mut buf)?;
    Ok(buf)
}

/// [`read_at`] into `buf` (its old contents dropped, its memory reused).
fn read_into<R: Read + Seek>(input: &mut R, offset: u64, n: usize, buf: &mut Vec<u8>) -> Result<(), ReadError> {
    input
        .seek(SeekFrom::Start(offset))
        .map_err(|e| ReadError::io(offset, e))?;
    buf.clear();
    // Sized once: grown by `read_to_end` from empty, a chunk of megabytes
    // would be copied at every doubling.
    buf.reserve_exact(n);
    input
        .by_ref()
        .take(n as u64)
        .read_to_end(buf)
        .map_err(|e| ReadError::io(offset, e))?;
    if buf.len() != n {
        return Err(ReadError::Truncated {
            what: "file",
            offset: offset + buf.len() as u64,
        });
    }
    Ok(())
}

/// The tail: `... index | TsFileMetadata | i32 BE its size | TsFile`.
fn read_tail<R: Read + Seek>(input: &mut R, len: u64) -> Result<FileMetadata, ReadError> {
    if len < 7 + 4 + 6 {
        return Err(ReadError::Truncated {
            what: "file tail",
            offset: len,
        });
    }
    let tail = read_at(input, len - 10, 10)?;
    if &tail[4..] != MAGIC {
        return Err(ReadError::BadMagic { offset: len - 6 });
    }
    let size = i32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let size_at = len - 10;
    if size < 0 || size as u64 > size_at - 7 {
        return Err(ReadError::Malformed {
            what: format!("metadata size {size} in a file of {len} bytes"),
            offset: size_at,
        });
    }
    let meta_at = size_at - size as u64;
    let meta = read_at(input, meta_at, size as usize)?;
    // The index sits between the chunk data and TsFileMetadata, from the
    // metadata offset TsFileMetadata ends with.
    let tail = metadata::read_tail(&meta, meta_at)?;
    let index_at = tail.meta_offset();
    if index_at < 7 || index_at > meta_at {
        return Err(ReadError::Malformed {
            what: format!("metadata offset {index_at} outside the file's data"),
            offset: meta_at,
        });
    }
    let index = read_at(input, index_at, (meta_at - index_at) as usize)?;
    tail.resolve(&index, index_at)
}
