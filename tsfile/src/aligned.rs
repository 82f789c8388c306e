//! Aligned devices (every table-model device, and aligned tree-model ones)
//! scanned under a filter by crossdec's aligned chunk scanners
//! (`crossdec_kernels::tsfile::aligned`, and the reference one to check it).
//!
//! [`TsFileReader::aligned_device`] finds a device's chunk groups in the
//! index: each group's time chunk with the statistics the index gives it,
//! and each column's value chunk in that group (or none: the measurement is
//! missing there). [`TsFileReader::read_group`] reads one group's time chunk
//! and the value chunks a scan involves, as the file stores them
//! (compressed, one page without statistics or many with). The scanners
//! decompress through [`Codecs`], only the pages their plan decodes.
//!
//! [`TsFileReader::scan_aligned`] does the whole device: groups whose time
//! statistics no row of the filter can meet are not read at all; offset
//! and limit run across groups (a group that only eats the offset is
//! counted by a scan that reads its time pages alone); blocks never span
//! two groups. [`TsFileReader::scan_aligned_reference`] does the same with
//! the reference scanner.
//!
//! ```no_run
//! use crossdec_kernels::tsfile::aligned::{Filter, Request, ScanOptions, TimeFilter, Writer};
//! use crossdec_tsfile::TsFileReader;
//!
//! let mut reader = TsFileReader::open("data.tsfile")?;
//! let device = reader.metadata().map_err(Clone::clone)?.devices[0].0.clone();
//! let layout = reader.aligned_device(&device)?;
//! let request = Request {
//!     filter: Filter { time: Some(TimeFilter::Between(1_000, 1_999)), field: None },
//!     offset: 0,
//!     limit: None,
//!     columns: (0..layout.columns.len()).collect(),
//!     block_rows: 4096,
//!     writer: Writer::Cpp, // the file's writer, where the layouts differ
//! };
//! let scan = reader.scan_aligned(&layout, &request, ScanOptions::default())?;
//! println!("{} rows; {:?}", scan.rows, scan.stats);
//! # Ok::<(), crossdec_tsfile::ReadError>(())
//! ```

use std::io::{Read, Seek};

use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;

use crate::chunk::PageStatistics;
use crate::compression::decompress;
use crate::error::ReadError;
use crate::limits::Limits;
use crate::metadata::DeviceId;
use crate::reader::{RawChunk, TsFileReader};
use crate::types::{Compression, DataType, Encoding};

/// A value column of an aligned device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignedColumn {
    pub name: String,
    pub data_type: DataType,
}

/// Where one chunk group of an aligned device is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupLocation {
    /// File offset of the time chunk's header.
    pub time_chunk: u64,
    /// The time chunk's statistics from the index.
    pub statistics: PageStatistics,
    /// Per column of [`AlignedDevice::columns`]: its chunk's header offset
    /// in this group, `None` when the measurement is missing from it.
    pub value_chunks: Vec<Option<u64>>,
}

/// An aligned device as the index describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignedDevice {
    pub device: DeviceId,
    /// In the index's order; requests name columns by position here.
    pub columns: Vec<AlignedColumn>,
    /// In file order.
    pub groups: Vec<GroupLocation>,
}

/// One chunk group's chunks as the file stores them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignedGroup {
    pub time: RawChunk,
    /// Per column of the device: the chunk, if the scan involves the column
    /// and the group has it.
    pub values: Vec<Option<RawChunk>>,
}

/// The streaming reader's page codecs, for both scanners.
#[derive(Debug, Clone, Copy, Default)]
pub struct Codecs {
    pub limits: Limits,
}

impl Codecs {
    fn run(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        let Some(c) = Compression::from_id(compression) else {
            return Err(format!("unknown compression id {compression}"));
        };
        decompress(c, body, size as u64, 0, &self.limits).map_err(|e| e.to_string())
    }
}

impl Codecs {
    /// A page's rows are bounded as its values are: `max_page_values`.
    fn max_rows(&self) -> usize {
        usize::try_from(self.limits.max_page_values).unwrap_or(usize::MAX)
    }
}

impl k::Decompress for Codecs {
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        self.run(compression, body, size)
    }
    fn max_page_rows(&self) -> usize {
        self.max_rows()
    }
}

impl r::Decompress for Codecs {
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        self.run(compression, body, size)
    }
    fn max_page_rows(&self) -> usize {
        self.max_rows()
    }
}

/// A whole device's scan.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceScan<B> {
    /// Blocks of at most the request's `block_rows` rows, group by group.
    pub blocks: Vec<B>,
    pub rows: u64,
    pub stats: DeviceStats,
}

/// What a device scan did, group by group and page by page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceStats {
    pub groups: usize,
    /// Groups not read: their time statistics cannot meet the filter.
    pub groups_pruned: usize,
    /// Groups not read: the limit was reached before them.
    pub groups_not_reached: usize,
    /// Groups whose time pages were read only to count rows the offset
    /// drops.
    pub groups_counted: usize,
    /// The kernel scanner's page statistics, summed over the groups whose
    /// rows it returned, their plans one after the other (empty for the
    /// reference scanner).
    pub pages: k::ScanStats,
}

fn kernel_type(t: DataType) -> Option<k::ColumnType> {
    Some(match t {
        DataType::Boolean => k::ColumnType::Boolean,
        DataType::Int32 => k::ColumnType::Int32,
        DataType::Int64 => k::ColumnType::Int64,
        DataType::Float => k::ColumnType::Float,
        DataType::Double => k::ColumnType::Double,
        DataType::Timestamp => k::ColumnType::Timestamp,
        DataType::Date => k::ColumnType::Date,
        DataType::Text => k::ColumnType::Text,
        DataType::String => k::ColumnType::String,
        DataType::Blob => k::ColumnType::Blob,
        DataType::Vector => return None,
    })
}

fn reference_type(t: DataType) -> Option<r::ColumnType> {
    Some(match t {
        DataType::Boolean => r::ColumnType::Boolean,
        DataType::Int32 => r::ColumnType::Int32,
        DataType::Int64 => r::ColumnType::Int64,
        DataType::Float => r::ColumnType::Float,
        DataType::Double => r::ColumnType::Double,
        DataType::Timestamp => r::ColumnType::Timestamp,
        DataType::Date => r::ColumnType::Date,
        DataType::Text => r::ColumnType::Text,
        DataType::String => r::ColumnType::String,
        DataType::Blob => r::ColumnType::Blob,
        DataType::Vector => return None,
    })
}

fn kernel_encoding(e: Encoding) -> Option<k::Encoding> {
    Some(match e {
        Encoding::Plain => k::Encoding::Plain,
        Encoding::Ts2Diff => k::Encoding::Ts2Diff,
        Encoding::Gorilla => k::Encoding::Gorilla,
        Encoding::Rle => k::Encoding::Rle,
        Encoding::Zigzag => k::Encoding::Zigzag,
        Encoding::Chimp => k::Encoding::Chimp,
        Encoding::Dictionary => k::Encoding::Dictionary,
        Encoding::Sprintz => k::Encoding::Sprintz,
        Encoding::Rlbe => k::Encoding::Rlbe,
        Encoding::Camel => k::Encoding::Camel,
        Encoding::Regular => k::Encoding::Regular,
        _ => return None,
    })
}

fn reference_encoding(e: Encoding) -> Option<r::Encoding> {
    Some(match e {
        Encoding::Plain => r::Encoding::Plain,
        Encoding::Ts2Diff => r::Encoding::Ts2Diff,
        Encoding::Gorilla => r::Encoding::Gorilla,
        Encoding::Rle => r::Encoding::Rle,
        Encoding::Zigzag => r::Encoding::Zigzag,
        Encoding::Chimp => r::Encoding::Chimp,
        Encoding::Dictionary => r::Encoding::Dictionary,
        Encoding::Sprintz => r::Encoding::Sprintz,
        Encoding::Rlbe => r::Encoding::Rlbe,
        Encoding::Camel => r::Encoding::Camel,
        Encoding::Regular => r::Encoding::Regular,
        _ => return None,
    })
}

/// A chunk's type and encoding as a scanner names them, or why not.
fn chunk_ids<T, E>(
    chunk: &RawChunk,
    time: bool,
    to_type: fn(DataType) -> Option<T>,
    to_encoding: fn(Encoding) -> Option<E>,
) -> Result<(T, E), ReadError> {
    let h = &chunk.header;
    let unsupported = |what, value| ReadError::Unsupported {
        what,
        value,
        offset: h.offset,
    };
    // The time chunk's own type is VECTOR; its cells are INT64.
    let data_type = if time { Some(DataType::Int64) } else { h.data_type() };
    let t = data_type
        .and_then(to_type)
        .ok_or(unsupported("aligned scan data type", h.data_type_id))?;
    let e = h
        .encoding()
        .and_then(to_encoding)
        .ok_or(unsupported("aligned scan encoding", h.encoding_id))?;
    Ok((t, e))
}

impl AlignedGroup {
    /// The group as the kernel scanner takes it.
    pub fn kernel_group(&self) -> Result<k::Group<'_>, ReadError> {
        fn chunk(c: &RawChunk, time: bool) -> Result<k::Chunk<'_>, ReadError> {
            let (data_type, encoding) = chunk_ids(c, time, kernel_type, kernel_encoding)?;
            Ok(k::Chunk {
                data_type,
                encoding,
                compression: c.header.compression_id,
                page_statistics: !c.header.single_page(),
                data: &c.data,
            })
        }
        Ok(k::Group {
            time: chunk(&self.time, true)?,
            values: self
                .values
                .iter()
                .map(|c| c.as_ref().map(|c| chunk(c, false)).transpose())
                .collect::<Result<_, ReadError>>()?,
        })
    }

    /// The group as the reference scanner takes it.
    pub fn reference_group(&self) -> Result<r::Group<'_>, ReadError> {
        fn chunk(c: &RawChunk, time: bool) -> Result<r::Chunk<'_>, ReadError> {
            let (data_type, encoding) = chunk_ids(c, time, reference_type, reference_encoding)?;
            Ok(r::Chunk {
                data_type,
                encoding,
                compression: c.header.compression_id,
                page_statistics: !c.header.single_page(),
                data: &c.data,
            })
        }
        Ok(r::Group {
            time: chunk(&self.time, true)?,
            values: self
                .values
                .iter()
                .map(|c| c.as_ref().map(|c| chunk(c, false)).transpose())
                .collect::<Result<_, ReadError>>()?,
        })
    }

    /// A scan error placed in the file: the chunk's header offset plus its
    /// data offset.
    fn placed(&self, chunk: Option<usize>, page: usize, offset: usize, kind: String) -> ReadError {
        let c = match chunk {
            None => Some(&self.time),
            Some(i) => self.values.get(i).and_then(Option::as_ref),
        };
        let (name, at) = match c {
            Some(c) => (c.header.measurement.clone(), c.data_offset + offset as u64),
            None => (String::new(), self.time.header.offset),
        };
        ReadError::Malformed {
            what: format!(
                "aligned scan: {kind} in {} chunk, page {page}",
                if chunk.is_none() {
                    "the time".to_string()
                } else {
                    format!("`{name}`'s")
                }
            ),
            offset: at,
        }
    }

    /// A data type / encoding pair the scanners do not read.
    fn unsupported(&self, chunk: Option<usize>) -> ReadError {
        let c = match chunk {
            None => Some(&self.time),
            Some(i) => self.values.get(i).and_then(Option::as_ref),
        };
        let (value, offset) = c.map_or((0, self.time.header.offset), |c| {
            (c.header.encoding_id, c.header.offset)
        });
        ReadError::Unsupported {
            what: "aligned scan encoding for this data type",
            value,
            offset,
        }
    }

    fn kernel_error(&self, e: &k::ScanError) -> ReadError {
        let chunk = match e.chunk {
            k::ChunkId::Time => None,
            k::ChunkId::Value(i) => Some(i),
        };
        if e.kind == k::ErrorKind::Unsupported {
            return self.unsupported(chunk);
        }
        if let (None, k::ErrorKind::Decode(detail)) = (chunk, &e.kind) {
            if let Some(limit) = self.row_limit(detail, e.offset) {
                return limit;
            }
        }
        self.placed(chunk, e.page, e.offset, format!("{:?}", e.kind))
    }

    fn reference_error(&self, e: &r::ScanError) -> ReadError {
        let chunk = match e.chunk {
            r::ChunkId::Time => None,
            r::ChunkId::Value(i) => Some(i),
        };
        if e.kind == r::ErrorKind::Unsupported {
            return self.unsupported(chunk);
        }
        if let (None, r::ErrorKind::Decode(detail)) = (chunk, &e.kind) {
            if let Some(limit) = self.row_limit(detail, e.offset) {
                return limit;
            }
        }
        self.placed(chunk, e.page, e.offset, format!("{:?}", e.kind))
    }

    /// A time page of more rows than the scan's bound (the codec's
    /// `max_page_rows`, which is `Limits::max_page_values`): the decoders'
    /// `TooManyValues` there is that limit, reported as the reader
    /// reports it (one line naming the limit to raise).
    fn row_limit(&self, detail: &str, offset: usize) -> Option<ReadError> {
        let max: u64 = detail
            .strip_prefix("TooManyValues { max: ")?
            .split(',')
            .next()?
            .parse()
            .ok()?;
        Some(ReadError::LimitExceeded {
            limit: "max_page_values",
            value: max.saturating_add(1),
            max,
            offset: self.time.data_offset + offset as u64,
        })
    }
}

impl<R: Read + Seek> TsFileReader<R> {
    /// Where `device`'s chunk groups are, from the index. An error when the
    /// index cannot be read or the device is not aligned.
    pub fn aligned_device(&self, device: &DeviceId) -> Result<AlignedDevice, ReadError> {
        let meta = self.metadata().map_err(Clone::clone)?;
        let not_found = |what: String| ReadError::Malformed {
            what,
            offset: meta.meta_offset,
        };
        let (_, series) = meta
            .devices
            .iter()
            .find(|(d, _)| d == device)
            .ok_or_else(|| not_found(format!("no device {device} in the index")))?;
        let time = series
            .iter()
            .find(|s| s.is_aligned_time())
            .ok_or_else(|| not_found(format!("device {device} is not aligned (no time column)")))?;
        let values: Vec<_> = series.iter().filter(|s| !s.is_aligned_time()).collect();
        let mut groups: Vec<GroupLocation> = time
            .chunk_offsets
            .iter()
            .zip(&time.chunk_statistics)
            .map(|(&time_chunk, &statistics)| GroupLocation {
                time_chunk,
                statistics,
                value_chunks: vec![None; values.len()],
            })
            .collect();
        groups.sort_by_key(|g| g.time_chunk);
        for (c, s) in values.iter().enumerate() {
            for &at in &s.chunk_offsets {
                // A value chunk belongs to the group whose time chunk is the
                // last one before it.
                let g = groups.partition_point(|g| g.time_chunk < at);
                let Some(group) = g.checked_sub(1).map(|g| &mut groups[g]) else {
                    return Err(ReadError::Malformed {
                        what: format!("value chunk of `{}` before any time chunk of {device}", s.measurement),
                        offset: at,
                    });
                };
                if group.value_chunks[c].replace(at).is_some() {
                    return Err(ReadError::Malformed {
                        what: format!("two chunks of `{}` in one chunk group of {device}", s.measurement),
                        offset: at,
                    });
                }
            }
        }
        Ok(AlignedDevice {
            device: device.clone(),
            columns: values
                .iter()
                .map(|s| {
                    Ok(AlignedColumn {
                        name: s.measurement.clone(),
                        data_type: s.data_type().ok_or(ReadError::Unsupported {
                            what: "data type",
                            value: s.data_type_id,
                            offset: meta.meta_offset,
                        })?,
                    })
                })
                .collect::<Result<_, ReadError>>()?,
            groups,
        })
    }

    /// Read group `g` of `device`: its time chunk and the value chunks of
    /// `columns` (positions in [`AlignedDevice::columns`]; the rest `None`).
    pub fn read_group(
        &mut self,
        device: &AlignedDevice,
        g: usize,
        columns: &[usize],
    ) -> Result<AlignedGroup, ReadError> {
        let location = &device.groups[g];
        let time = self.chunk_at(location.time_chunk, device.device.clone())?;
        let mut values = vec![None; device.columns.len()];
        for &c in columns {
            if let (Some(Some(at)), Some(slot)) = (location.value_chunks.get(c), values.get_mut(c)) {
                if slot.is_none() {
                    *slot = Some(self.chunk_at(*at, device.device.clone())?);
                }
            }
        }
        Ok(AlignedGroup { time, values })
    }

    /// Can the scanners read column `c` of `device`? Its chunk in the
    /// first group that has one is checked (type, encoding), nothing
    /// decoded. `Ok` for a column without any chunk.
    pub fn aligned_column_readable(&mut self, device: &AlignedDevice, c: usize) -> Result<(), ReadError> {
        let Some(g) = device
            .groups
            .iter()
            .position(|g| g.value_chunks.get(c).is_some_and(Option::is_some))
        else {
            return Ok(());
        };
        let group = self.read_group(device, g, &[c])?;
        let kernel = group.kernel_group()?;
        // A filter no time meets: the kernel checks every involved chunk's
        // type and encoding, then skips every page.
        let nothing = k::Request {
            filter: k::Filter {
                time: Some(k::TimeFilter::In(Vec::new())),
                field: None,
            },
            offset: 0,
            limit: None,
            columns: vec![c],
            block_rows: 1,
            writer: k::Writer::default(),
        };
        let out = k::scan(&kernel, &nothing, k::ScanOptions::default());
        match out.result {
            Err(e) if e.kind == k::ErrorKind::Unsupported => Err(group.kernel_error(&e)),
            _ => Ok(()),
        }
    }

    /// Hand a group's chunk buffers back for the next groups read (see
    /// [`TsFileReader::recycle`]).
    pub fn recycle_group(&mut self, group: AlignedGroup) {
        self.recycle(group.time);
        for chunk in group.values.into_iter().flatten() {
            self.recycle(chunk);
        }
    }

    /// Scan `device` with the kernel scanner (see the module's notes).
    pub fn scan_aligned(
        &mut self,
        device: &AlignedDevice,
        request: &k::Request,
        options: k::ScanOptions,
    ) -> Result<DeviceScan<k::Block>, ReadError> {
        self.scan_aligned_reusing(device, request, options, &mut k::BlockPool::new())
    }

    /// [`scan_aligned`](Self::scan_aligned), its blocks filled from `pool`
    /// where it has any: a caller that scans again and hands the blocks it
    /// is done with back (`pool.recycle(scan.blocks)`) allocates no new
    /// block memory, which for large blocks is most of a scan's cost.
    pub fn scan_aligned_reusing(
        &mut self,
        device: &AlignedDevice,
        request: &k::Request,
        options: k::ScanOptions,
        pool: &mut k::BlockPool,
    ) -> Result<DeviceScan<k::Block>, ReadError> {
        let codecs = Codecs {
            limits: self.options().limits,
        };
        across_groups(self, device, request, true, |group, q| {
            let g = group.kernel_group()?;
            let out = k::scan_reusing(&g, q, options, &codecs, pool);
            let blocks = out.result.map_err(|e| group.kernel_error(&e))?;
            Ok((blocks.iter().map(|b| b.rows() as u64).sum(), blocks, Some(out.stats)))
        })
    }

    /// Scan `device` with the reference scanner, group by group as
    /// [`scan_aligned`](Self::scan_aligned) does, except that every group
    /// is read (the reference decides nothing from statistics).
    pub fn scan_aligned_reference(
        &mut self,
        device: &AlignedDevice,
        request: &r::Request,
    ) -> Result<DeviceScan<r::Block>, ReadError> {
        let codecs = Codecs {
            limits: self.options().limits,
        };
        // The walk over groups only needs the sizes of the request.
        let sizes = k::Request {
            filter: k::Filter::default(),
            offset: request.offset,
            limit: request.limit,
            columns: request.columns.clone(),
            block_rows: request.block_rows,
            writer: k::Writer::default(),
        };
        let involved_field = request.filter.field.as_ref().map(|f| f.column);
        across_groups_with(self, device, &sizes, involved_field, None, |group, q| {
            let g = group.reference_group()?;
            let rq = r::Request {
                filter: request.filter.clone(),
                offset: q.offset,
                limit: q.limit,
                columns: q.columns.clone(),
                block_rows: q.block_rows,
                writer: request.writer,
            };
            let blocks = r::scan_with(&g, &rq, &codecs).map_err(|e| group.reference_error(&e))?;
            Ok((blocks.iter().map(|b| b.times.len() as u64).sum(), blocks, None))
        })
    }
}

/// What one group's scan gives: rows, blocks, the kernel's page statistics.
type GroupResult<B> = Result<(u64, Vec<B>, Option<k::ScanStats>), ReadError>;

fn across_groups<R: Read + Seek, B>(
    reader: &mut TsFileReader<R>,
    device: &AlignedDevice,
    request: &k::Request,
    prune: bool,
    scan: impl FnMut(&AlignedGroup, &k::Request) -> GroupResult<B>,
) -> Result<DeviceScan<B>, ReadError> {
    let field = request.filter.field.as_ref().map(|f| f.column);
    let time = request.filter.time.as_ref().filter(|_| prune);
    across_groups_with(reader, device, request, field, time.map(Some), scan)
}

/// Offset and limit across groups. `prune_by`: `Some(filter)` skips groups
/// whose time statistics it cannot meet (`Some(None)`: no time filter).
fn across_groups_with<R: Read + Seek, B>(
    reader: &mut TsFileReader<R>,
    device: &AlignedDevice,
    request: &k::Request,
    field_column: Option<usize>,
    prune_by: Option<Option<&k::TimeFilter>>,
    mut scan: impl FnMut(&AlignedGroup, &k::Request) -> GroupResult<B>,
) -> Result<DeviceScan<B>, ReadError> {
    let mut involved = request.columns.clone();
    involved.extend(field_column);
    let mut out = DeviceScan {
        blocks: Vec::new(),
        rows: 0,
        stats: DeviceStats::default(),
    };
    let (mut offset_left, mut limit_left) = (request.offset, request.limit);
    for (g, location) in device.groups.iter().enumerate() {
        out.stats.groups += 1;
        if limit_left == Some(0) {
            out.stats.groups_not_reached += 1;
            continue;
        }
        if let Some(filter) = prune_by {
            let s = &location.statistics;
            if filter.is_some_and(|f| !f.may_match(s.start_time, s.end_time)) {
                out.stats.groups_pruned += 1;
                continue;
            }
        }
        let group = reader.read_group(device, g, &involved)?;
        if offset_left > 0 {
            // How many of the offset's rows this group holds: its time
            // pages (and a FIELD filter's column) alone.
            let count = k::Request {
                offset: 0,
                limit: Some(offset_left),
                columns: Vec::new(),
                ..request.clone()
            };
            let (n, _, _) = scan(&group, &count)?;
            if n < offset_left {
                offset_left -= n;
                out.stats.groups_counted += 1;
                reader.recycle_group(group);
                continue;
            }
        }
        let q = k::Request {
            offset: offset_left,
            limit: limit_left,
            ..request.clone()
        };
        let (n, blocks, pages) = scan(&group, &q)?;
        reader.recycle_group(group);
        offset_left = 0;
        limit_left = limit_left.map(|l| l.saturating_sub(n));
        out.rows += n;
        out.blocks.extend(blocks);
        if let Some(p) = pages {
            let t = &mut out.stats.pages;
            t.pages_skipped += p.pages_skipped;
            t.pages_full_pass += p.pages_full_pass;
            t.boundary_bulk += p.boundary_bulk;
            t.boundary_row_by_row += p.boundary_row_by_row;
            t.pages_in_place += p.pages_in_place;
            t.pages_not_reached += p.pages_not_reached;
            t.pages_offset_skipped += p.pages_offset_skipped;
            t.skipped_by_value_statistics += p.skipped_by_value_statistics;
            t.plan.extend(p.plan);
        }
    }
    Ok(out)
}
