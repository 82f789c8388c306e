//! The file's tail: `TsFileMetadata` (table index roots, table schemas, the
//! metadata offset, bloom filter, properties) and the metadata index tree it
//! roots, down to every series' chunk offsets. Written from the Java sources
//! (`file/metadata/TsFileMetadata.java`, `MetadataIndexNode.java`,
//! `TimeseriesMetadata.java`, `ChunkMetadata.java`, `TableSchema.java`,
//! `StringArrayDeviceID.java`; see `docs/reference/tsfile-reader.md`) and checked on
//! files the official C++ writer (PyPI `tsfile` 2.5) wrote.

use std::collections::BTreeMap;

use crate::chunk::{read_statistics, PageStatistics};
use crate::cursor::Cursor;
use crate::error::ReadError;
use crate::types::DataType;

/// A device: its id's segments (`root.d0` is `root` + `d0`; a table's
/// device is the table name + its tag values, `None` for a null tag).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceId(pub Vec<Option<String>>);

impl DeviceId {
    pub(crate) fn read(c: &mut Cursor<'_>) -> Result<Self, ReadError> {
        let at = c.offset();
        let n = c.uvarint("device id segment count")?;
        if n > c.remaining() as u64 {
            return Err(ReadError::Malformed {
                what: format!("{n} device id segments in {} bytes", c.remaining()),
                offset: at,
            });
        }
        let mut segments = Vec::with_capacity(n as usize);
        for _ in 0..n {
            segments.push(c.var_string("device id segment")?);
        }
        Ok(DeviceId(segments))
    }
}

impl std::fmt::Display for DeviceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(s.as_deref().unwrap_or("null"))?;
        }
        Ok(())
    }
}

/// One series (or an aligned device's time column) as the index lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesIndex {
    /// Empty for an aligned device's time column.
    pub measurement: String,
    pub data_type_id: u8,
    /// The metadata type byte: the low six bits nonzero when the series has
    /// more than one chunk; Java also sets 0x80 on an aligned time column
    /// and 0x40 on an aligned value column (the C++ writer does not).
    pub flags: u8,
    pub statistics: PageStatistics,
    /// File offsets of the series' chunk headers, in file order.
    pub chunk_offsets: Vec<u64>,
    /// Each chunk's statistics (a series of one chunk: the series').
    pub chunk_statistics: Vec<PageStatistics>,
}

impl SeriesIndex {
    pub fn data_type(&self) -> Option<DataType> {
        DataType::from_id(self.data_type_id)
    }
    /// The time column of an aligned device: the Java writer flags it
    /// (0x80), the C++ writer only gives it the VECTOR type and no name.
    pub fn is_aligned_time(&self) -> bool {
        self.flags & 0x80 != 0 || self.data_type_id == DataType::Vector.id()
    }
}

/// A table column's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSchema {
    pub name: String,
    pub data_type_id: u8,
    pub encoding_id: u8,
    pub compression_id: u8,
    /// 0 = TAG, 1 = FIELD, 2 = ATTRIBUTE (Java `ColumnCategory` ordinal).
    pub category: i32,
}

/// What the file's tail says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileMetadata {
    /// Devices in index order, each with its series.
    pub devices: Vec<(DeviceId, Vec<SeriesIndex>)>,
    /// Table name to its columns (table-model files).
    pub tables: BTreeMap<String, Vec<ColumnSchema>>,
    /// Where the index starts (the chunk data ends before it).
    pub meta_offset: u64,
    pub properties: BTreeMap<String, Option<String>>,
}

/// The node types of the index tree.
const INTERNAL_DEVICE: u8 = 0;
const LEAF_DEVICE: u8 = 1;
const INTERNAL_MEASUREMENT: u8 = 2;
const LEAF_MEASUREMENT: u8 = 3;

/// Deepest index tree followed: far more levels than any file of 2^64
/// series needs, so a corrupt self-referencing node cannot recurse forever.
const MAX_DEPTH: usize = 64;

struct Index<'a> {
    /// The bytes between the chunk data and `TsFileMetadata`.
    bytes: &'a [u8],
    /// File offset of `bytes[0]`.
    base: u64,
}

impl<'a> Index<'a> {
    /// A cursor over `[start, end)` (file offsets), which must lie in the index.
    fn range(&self, start: u64, end: u64, what: &'static str) -> Result<Cursor<'a>, ReadError> {
        let top = self.base + self.bytes.len() as u64;
        if start < self.base || end < start || end > top {
            return Err(ReadError::Malformed {
                what: format!("{what} at [{start}, {end}) outside the index [{}, {top})", self.base),
                offset: start,
            });
        }
        let (s, e) = ((start - self.base) as usize, (end - self.base) as usize);
        Ok(Cursor::new(&self.bytes[s..e], start))
    }
}

enum Entry {
    Device(DeviceId, u64),
    Measurement(u64),
}

/// One index node: entries, end offset, type. `device_level` says how the
/// entries are written (the type byte comes after them).
fn read_node(c: &mut Cursor<'_>, device_level: bool) -> Result<(Vec<Entry>, u64, u8), ReadError> {
    let at = c.offset();
    let n = c.uvarint("index node child count")?;
    // Every entry takes at least nine bytes (an offset and a length).
    if n > (c.remaining() / 9) as u64 {
        return Err(ReadError::Malformed {
            what: format!("{n} index entries in {} bytes", c.remaining()),
            offset: at,
        });
    }
    let mut entries = Vec::with_capacity(n as usize);
    for _ in 0..n {
        if device_level {
            let device = DeviceId::read(c)?;
            entries.push(Entry::Device(device, offset(c)?));
        } else {
            c.var_string("index entry measurement")?;
            entries.push(Entry::Measurement(offset(c)?));
        }
    }
    let end = offset(c)?;
    let type_at = c.offset();
    let node_type = c.u8("index node type")?;
    let expected: &[u8] = if device_level {
        &[INTERNAL_DEVICE, LEAF_DEVICE]
    } else {
        &[INTERNAL_MEASUREMENT, LEAF_MEASUREMENT]
    };
    if !expected.contains(&node_type) {
        return Err(ReadError::Malformed {
            what: format!("index node type {node_type} where {expected:?} belong"),
            offset: type_at,
        });
    }
    Ok((entries, end, node_type))
}

fn offset(c: &mut Cursor<'_>) -> Result<u64, ReadError> {
    let at = c.offset();
    let v = c.i64_be("index offset")?;
    u64::try_from(v).map_err(|_| ReadError::Malformed {
        what: format!("negative offset {v}"),
        offset: at,
    })
}

fn entry_offset(e: &Entry) -> u64 {
    match e {
        Entry::Device(_, o) | Entry::Measurement(o) => *o,
    }
}

/// The children's ranges: each from its offset to the next one's (the last
/// to the node's end).
fn spans(entries: &[Entry], end: u64) -> impl Iterator<Item = (&Entry, u64, u64)> + '_ {
    entries.iter().enumerate().map(move |(i, e)| {
        let stop = entries.get(i + 1).map_or(end, entry_offset);
        (e, entry_offset(e), stop)
    })
}

fn walk_devices(
    index: &Index<'_>,
    start: u64,
    end: u64,
    depth: usize,
    out: &mut Vec<(DeviceId, Vec<SeriesIndex>)>,
) -> Result<(), ReadError> {
    let mut c = index.range(start, end, "device index node")?;
    let (entries, node_end, node_type) = read_node(&mut c, true)?;
    if depth > MAX_DEPTH {
        return Err(ReadError::Malformed {
            what: "index tree deeper than 64 levels".into(),
            offset: start,
        });
    }
    for (entry, s, e) in spans(&entries, node_end) {
        let Entry::Device(device, _) = entry else {
            unreachable!("device level")
        };
        if node_type == INTERNAL_DEVICE {
            walk_devices(index, s, e, depth + 1, out)?;
        } else {
            let mut series = Vec::new();
            walk_measurements(index, s, e, depth + 1, &mut series)?;
            out.push((device.clone(), series));
        }
    }
    Ok(())
}

fn walk_measurements(
    index: &Index<'_>,
    start: u64,
    end: u64,
    depth: usize,
    out: &mut Vec<SeriesIndex>,
) -> Result<(), ReadError> {
    if depth > MAX_DEPTH {
        return Err(ReadError::Malformed {
            what: "index tree deeper than 64 levels".into(),
            offset: start,
        });
    }
    let mut c = index.range(start, end, "measurement index node")?;
    let (entries, node_end, node_type) = read_node(&mut c, false)?;
    for (_, s, e) in spans(&entries, node_end) {
        if node_type == INTERNAL_MEASUREMENT {
            walk_measurements(index, s, e, depth + 1, out)?;
        } else {
            let mut c = index.range(s, e, "timeseries metadata")?;
            while !c.is_empty() {
                out.push(read_series(&mut c)?);
            }
        }
    }
    Ok(())
}

fn read_series(c: &mut Cursor<'_>) -> Result<SeriesIndex, ReadError> {
    let flags = c.u8("timeseries metadata type")?;
    let measurement = c.var_string("timeseries measurement id")?.unwrap_or_default();
    let type_at = c.offset();
    let data_type_id = c.u8("timeseries data type")?;
    let data_type = DataType::from_id(data_type_id).ok_or(ReadError::Unsupported {
        what: "data type",
        value: data_type_id,
        offset: type_at,
    })?;
    let list_size = c.uvarint_len("chunk metadata list size")?;
    let statistics = read_statistics(c, data_type)?;
    let list_at = c.offset();
    let list = c.take(list_size as usize, "chunk metadata list")?;
    let mut l = Cursor::new(list, list_at);
    let mut chunk_offsets = Vec::new();
    let mut chunk_statistics = Vec::new();
    while !l.is_empty() {
        chunk_offsets.push(offset(&mut l)?);
        // A series of one chunk writes no chunk statistics: the series'
        // stand for them.
        chunk_statistics.push(if flags & 0x3F != 0 {
            read_statistics(&mut l, data_type)?
        } else {
            statistics
        });
    }
    Ok(SeriesIndex {
        measurement,
        data_type_id,
        flags,
        statistics,
        chunk_offsets,
        chunk_statistics,
    })
}

/// `TsFileMetadata` read, its index not followed yet.
pub(crate) struct Tail {
    roots: Vec<(Vec<Entry>, u64, u8, u64)>,
    metadata: FileMetadata,
}

impl Tail {
    /// Where the index starts (it ends where `TsFileMetadata` starts).
    pub fn meta_offset(&self) -> u64 {
        self.metadata.meta_offset
    }

    /// Follow the index (`index`, the bytes from file offset `index_at` up
    /// to `TsFileMetadata`) down to every series' chunk offsets.
    pub fn resolve(self, index: &[u8], index_at: u64) -> Result<FileMetadata, ReadError> {
        let index = Index {
            bytes: index,
            base: index_at,
        };
        let mut out = self.metadata;
        for (entries, end, node_type, node_at) in self.roots {
            // The root is read from TsFileMetadata itself; its children live
            // in the index.
            for (entry, s, e) in spans(&entries, end) {
                let Entry::Device(device, _) = entry else {
                    unreachable!("device level")
                };
                match node_type {
                    INTERNAL_DEVICE => walk_devices(&index, s, e, 1, &mut out.devices)?,
                    LEAF_DEVICE => {
                        let mut series = Vec::new();
                        walk_measurements(&index, s, e, 1, &mut series)?;
                        out.devices.push((device.clone(), series));
                    }
                    other => {
                        return Err(ReadError::Malformed {
                            what: format!("root index node of type {other}"),
                            offset: node_at,
                        })
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Read `TsFileMetadata` (`meta`, at file offset `meta_at`).
pub(crate) fn read_tail(meta: &[u8], meta_at: u64) -> Result<Tail, ReadError> {
    let mut c = Cursor::new(meta, meta_at);
    let mut out = FileMetadata::default();
    let at = c.offset();
    let roots = c.uvarint("table index count")?;
    if roots > c.remaining() as u64 {
        return Err(ReadError::Malformed {
            what: format!("{roots} table indexes"),
            offset: at,
        });
    }
    let mut root_nodes = Vec::new();
    for _ in 0..roots {
        c.var_string("table name")?;
        let node_at = c.offset();
        let (entries, end, node_type) = read_node(&mut c, true)?;
        root_nodes.push((entries, end, node_type, node_at));
    }
    let at = c.offset();
    let schemas = c.uvarint("table schema count")?;
    if schemas > c.remaining() as u64 {
        return Err(ReadError::Malformed {
            what: format!("{schemas} table schemas"),
            offset: at,
        });
    }
    for _ in 0..schemas {
        let name = c.var_string("table name")?.unwrap_or_default();
        let at = c.offset();
        let n = c.uvarint("table column count")?;
        if n > c.remaining() as u64 {
            return Err(ReadError::Malformed {
                what: format!("{n} table columns"),
                offset: at,
            });
        }
        let mut columns = Vec::new();
        for _ in 0..n {
            let name = c.i32_string("column name")?.unwrap_or_default();
            let data_type_id = c.u8("column data type")?;
            let encoding_id = c.u8("column encoding")?;
            let compression_id = c.u8("column compression")?;
            let at = c.offset();
            let props = c.i32_be("column property count")?;
            if props < 0 || props as usize > c.remaining() {
                return Err(ReadError::Malformed {
                    what: format!("{props} column properties"),
                    offset: at,
                });
            }
            for _ in 0..props {
                c.i32_string("column property key")?;
                c.i32_string("column property value")?;
            }
            columns.push(ColumnSchema {
                name,
                data_type_id,
                encoding_id,
                compression_id,
                category: c.i32_be("column category")?,
            });
        }
        out.tables.insert(name, columns);
    }
    out.meta_offset = offset(&mut c)?;
    // Bloom filter and properties: optional, and nothing here needs the
    // filter; properties are kept when present.
    if !c.is_empty() {
        let at = c.offset();
        let len = c.uvarint_len("bloom filter length")?;
        c.take(len as usize, "bloom filter")?;
        if len != 0 {
            c.uvarint("bloom filter size")?;
            c.uvarint("bloom filter hash functions")?;
        }
        let _ = at;
        if !c.is_empty() {
            let at = c.offset();
            let n = c.zigzag32("property count")?;
            if n < 0 || n as usize > c.remaining() {
                return Err(ReadError::Malformed {
                    what: format!("{n} properties"),
                    offset: at,
                });
            }
            for _ in 0..n {
                let k = c.var_string("property key")?.unwrap_or_default();
                let v = c.var_string("property value")?;
                out.properties.insert(k, v);
            }
        }
    }
    Ok(Tail {
        roots: root_nodes,
        metadata: out,
    })
}
