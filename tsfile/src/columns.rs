//! Decoded columns, one chunk at a time: [`TsFileReader::columns`] decodes
//! every page of every chunk with a [`PageDecoder`] and yields each
//! series chunk's times and values (nulls included), or says why a chunk
//! was skipped and goes on with the rest of the file.

use std::io::{Read, Seek};
use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, BooleanBuilder, Float32Builder, Float64Builder, Int32Builder, Int64Builder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{Field, Schema};

use crate::chunk::{ChunkKind, Page, PageBody};
use crate::decode::{check, Count, EncodedPage, PageDecoder, PageFault, Values};
use crate::error::{Column, ReadError};
use crate::metadata::DeviceId;
use crate::reader::{RawChunk, TsFileReader};
use crate::types::{Compression, DataType, Encoding, Physical};

/// One series chunk, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnChunk {
    pub device: DeviceId,
    pub measurement: String,
    pub data_type: DataType,
    pub encoding: Encoding,
    pub compression: Compression,
    /// Part of an aligned chunk group (its times are the group's time column).
    pub aligned: bool,
    pub pages: usize,
    /// One time per row.
    pub times: Vec<i64>,
    /// The non-null values, in row order.
    pub values: Values,
    /// Per row, whether it holds a value; `None` when every row does.
    pub validity: Option<Vec<bool>>,
}

/// A chunk the reader could not decode, and why; the rest of the file is
/// still read.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedChunk {
    pub device: DeviceId,
    pub measurement: String,
    /// File offset of the chunk header.
    pub offset: u64,
    pub reason: ReadError,
}

/// What [`Columns`] yields.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Column(ColumnChunk),
    Skipped(SkippedChunk),
}

impl ColumnChunk {
    /// The values as an Arrow array with one slot per row (nulls where the
    /// row has no value): INT32 / DATE as Int32, INT64 / TIMESTAMP as Int64,
    /// TEXT / STRING / BLOB as Binary.
    pub fn values_array(&self) -> ArrayRef {
        let rows = self.times.len();
        let present = |i: usize| self.validity.as_ref().is_none_or(|v| v[i]);
        macro_rules! build {
            ($builder:ty, $values:expr, $map:expr) => {{
                let mut b = <$builder>::with_capacity(rows);
                let mut it = $values.iter();
                for i in 0..rows {
                    if present(i) {
                        let v = it.next().expect("one value per present row");
                        b.append_value($map(v));
                    } else {
                        b.append_null();
                    }
                }
                Arc::new(b.finish()) as ArrayRef
            }};
        }
        match &self.values {
            Values::Boolean(v) => build!(BooleanBuilder, v, |x: &bool| *x),
            Values::Int32(v) => build!(Int32Builder, v, |x: &i32| *x),
            Values::Int64(v) => build!(Int64Builder, v, |x: &i64| *x),
            Values::Float(v) => build!(Float32Builder, v, |x: &f32| *x),
            Values::Double(v) => build!(Float64Builder, v, |x: &f64| *x),
            Values::Binary(v) => {
                let mut b = BinaryBuilder::with_capacity(rows, v.iter().map(Vec::len).sum());
                let mut it = v.iter();
                for i in 0..rows {
                    if present(i) {
                        b.append_value(it.next().expect("one value per present row"));
                    } else {
                        b.append_null();
                    }
                }
                Arc::new(b.finish())
            }
        }
    }

    /// `time` (Int64) and the measurement's column, as one batch.
    pub fn record_batch(&self) -> RecordBatch {
        let values = self.values_array();
        let schema = Schema::new(vec![
            Field::new("time", arrow_schema::DataType::Int64, false),
            Field::new(&self.measurement, values.data_type().clone(), true),
        ]);
        let times: ArrayRef = Arc::new(Int64Array::from(self.times.clone()));
        RecordBatch::try_new(Arc::new(schema), vec![times, values]).expect("columns of equal length")
    }
}

/// The decoded chunks of a file, in file order. A file whose tail (the
/// metadata) is damaged or missing ends with that error after its chunks.
pub struct Columns<'r, R, D> {
    reader: &'r mut TsFileReader<R>,
    decoder: D,
    /// The current aligned group's time pages, or why they failed.
    times: Result<Vec<Vec<i64>>, ReadError>,
    /// The device of `times`.
    times_device: Option<DeviceId>,
    /// Why the file's tail (metadata) could not be read, if it could not.
    tail_error: Option<ReadError>,
}

impl<R: Read + Seek> TsFileReader<R> {
    /// Decode every chunk with `decoder`, one chunk in memory at a time.
    pub fn columns<D: PageDecoder>(&mut self, decoder: D) -> Columns<'_, R, D> {
        let tail_error = self.metadata().err().cloned();
        Columns {
            tail_error,
            reader: self,
            decoder,
            times: Ok(Vec::new()),
            times_device: None,
        }
    }
}

impl<R: Read + Seek> TsFileReader<R> {
    /// One series' chunks, found through the metadata index and read
    /// directly (no scan of the rest of the file), decoded with `decoder`.
    /// An aligned value chunk is read with its chunk group's time chunk.
    pub fn read_series<D: PageDecoder>(
        &mut self,
        device: &DeviceId,
        measurement: &str,
        decoder: D,
    ) -> Result<Vec<ColumnChunk>, ReadError> {
        let meta = self.metadata().map_err(Clone::clone)?;
        let Some((_, series)) = meta.devices.iter().find(|(d, _)| d == device) else {
            return Err(ReadError::Malformed {
                what: format!("no device {device} in the index"),
                offset: meta.meta_offset,
            });
        };
        let Some(wanted) = series
            .iter()
            .find(|s| s.measurement == measurement && !s.is_aligned_time())
        else {
            return Err(ReadError::Malformed {
                what: format!("no series {device}.{measurement} in the index"),
                offset: meta.meta_offset,
            });
        };
        let offsets = wanted.chunk_offsets.clone();
        let mut time_offsets: Vec<u64> = series
            .iter()
            .filter(|s| s.is_aligned_time())
            .flat_map(|s| s.chunk_offsets.iter().copied())
            .collect();
        time_offsets.sort_unstable();
        let mut columns = self.columns(decoder);
        let mut out = Vec::with_capacity(offsets.len());
        for offset in offsets {
            let chunk = columns.reader.chunk_at(offset, device.clone())?;
            out.push(match chunk.header.kind() {
                ChunkKind::NonAligned => columns.non_aligned_chunk(&chunk)?,
                ChunkKind::AlignedValue => {
                    // The group's time chunk is the last one before it.
                    let Some(&at) = time_offsets.iter().rev().find(|&&t| t < offset) else {
                        return Err(ReadError::Malformed {
                            what: "aligned value chunk without a time chunk before it".into(),
                            offset,
                        });
                    };
                    let time_chunk = columns.reader.chunk_at(at, device.clone())?;
                    let times = columns.time_pages(&time_chunk)?;
                    columns.value_chunk(&chunk, &times)?
                }
                ChunkKind::AlignedTime => {
                    return Err(ReadError::Malformed {
                        what: format!("the index names a time chunk for {device}.{measurement}"),
                        offset,
                    })
                }
            });
        }
        Ok(out)
    }
}

impl<R: Read + Seek, D: PageDecoder> Iterator for Columns<'_, R, D> {
    type Item = Result<Item, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let chunk = match self.reader.next_chunk() {
                Ok(Some(c)) => c,
                // Every chunk was read; a damaged tail is still said, once.
                Ok(None) => return self.tail_error.take().map(Err),
                Err(e) => return Some(Err(e)),
            };
            let kind = chunk.header.kind();
            if kind == ChunkKind::AlignedTime {
                self.times = self.time_pages(&chunk);
                self.times_device = Some(chunk.device.clone());
                continue;
            }
            let skipped = |reason| {
                Some(Ok(Item::Skipped(SkippedChunk {
                    device: chunk.device.clone(),
                    measurement: chunk.header.measurement.clone(),
                    offset: chunk.header.offset,
                    reason,
                })))
            };
            let result = if kind == ChunkKind::AlignedValue {
                if self.times_device.as_ref() != Some(&chunk.device) {
                    return Some(Err(ReadError::Malformed {
                        what: "aligned value chunk without its group's time chunk".into(),
                        offset: chunk.header.offset,
                    }));
                }
                match &self.times {
                    Ok(times) => {
                        let times = times.clone();
                        self.value_chunk(&chunk, &times)
                    }
                    Err(e) => Err(e.clone()),
                }
            } else {
                self.non_aligned_chunk(&chunk)
            };
            return match result {
                Ok(column) => Some(Ok(Item::Column(column))),
                Err(reason) => skipped(reason),
            };
        }
    }
}

impl<R: Read + Seek, D: PageDecoder> Columns<'_, R, D> {
    fn decode(
        &mut self,
        column: Column,
        encoding: Encoding,
        data_type: DataType,
        bytes: &[u8],
        count: Count,
        page: &Page,
    ) -> Result<Values, ReadError> {
        let p = EncodedPage {
            encoding,
            data_type,
            bytes,
            count,
        };
        let limit = self.reader.options().limits.max_page_values;
        self.decoder
            .decode(&p)
            .and_then(|d| check(&p, d))
            .map_err(|fault| match (fault, count) {
                (
                    PageFault::Reference(crossdec_reference::tsfile::DecodeError::TooManyValues { .. })
                    | PageFault::Kernel(crossdec_kernels::tsfile::DecodeError::TooManyValues { .. }),
                    Count::AtMost(_),
                ) => ReadError::LimitExceeded {
                    limit: "max_page_values",
                    value: limit + 1,
                    max: limit,
                    offset: page.offset,
                },
                (fault, _) => ReadError::Decode {
                    column,
                    encoding,
                    data_type,
                    page_offset: page.offset,
                    fault,
                },
            })
    }

    fn time_page(&mut self, bytes: &[u8], page: &Page, encoding: Encoding) -> Result<Vec<i64>, ReadError> {
        let max = usize::try_from(self.reader.options().limits.max_page_values).unwrap_or(usize::MAX);
        match self.decode(Column::Time, encoding, DataType::Int64, bytes, Count::AtMost(max), page)? {
            Values::Int64(t) => Ok(t),
            other => unreachable!("an INT64 page decoded to {other:?}"),
        }
    }

    fn time_pages(&mut self, chunk: &RawChunk) -> Result<Vec<Vec<i64>>, ReadError> {
        let encoding = chunk.header.encoding().ok_or(ReadError::Unsupported {
            what: "time encoding",
            value: chunk.header.encoding_id,
            offset: chunk.header.offset,
        })?;
        let limits = self.reader.options().limits;
        let pages = chunk.pages(&limits)?;
        let mut out = Vec::with_capacity(pages.len());
        for page in &pages {
            let PageBody::Times(bytes) = page.parts(ChunkKind::AlignedTime)? else {
                unreachable!("a time chunk's pages are time pages")
            };
            out.push(self.time_page(bytes, page, encoding)?);
        }
        Ok(out)
    }

    fn header_ids(chunk: &RawChunk) -> Result<(DataType, Encoding, Compression), ReadError> {
        let h = &chunk.header;
        let unsupported = |what, value| ReadError::Unsupported {
            what,
            value,
            offset: h.offset,
        };
        Ok((
            h.data_type().ok_or(unsupported("data type", h.data_type_id))?,
            h.encoding().ok_or(unsupported("encoding", h.encoding_id))?,
            h.compression().ok_or(unsupported("compression", h.compression_id))?,
        ))
    }

    fn non_aligned_chunk(&mut self, chunk: &RawChunk) -> Result<ColumnChunk, ReadError> {
        let (data_type, encoding, compression) = Self::header_ids(chunk)?;
        let limits = self.reader.options().limits;
        let time_encoding = self.reader.options().time_encoding;
        let pages = chunk.pages(&limits)?;
        let mut times = Vec::new();
        let mut values: Option<Values> = None;
        for page in &pages {
            let PageBody::NonAligned { times: t, values: v } = page.parts(ChunkKind::NonAligned)? else {
                unreachable!("a non-aligned chunk's pages hold times and values")
            };
            let t = self.time_page(t, page, time_encoding)?;
            let v = self.decode(Column::Value, encoding, data_type, v, Count::Exactly(t.len()), page)?;
            times.extend(t);
            append(&mut values, v);
        }
        Ok(ColumnChunk {
            device: chunk.device.clone(),
            measurement: chunk.header.measurement.clone(),
            data_type,
            encoding,
            compression,
            aligned: false,
            pages: pages.len(),
            times,
            values: values.unwrap_or_else(|| empty(data_type)),
            validity: None,
        })
    }

    fn value_chunk(&mut self, chunk: &RawChunk, time_pages: &[Vec<i64>]) -> Result<ColumnChunk, ReadError> {
        let (data_type, encoding, compression) = Self::header_ids(chunk)?;
        let limits = self.reader.options().limits;
        let pages = chunk.pages(&limits)?;
        if pages.len() != time_pages.len() {
            return Err(ReadError::Malformed {
                what: format!("{} value pages for {} time pages", pages.len(), time_pages.len()),
                offset: chunk.header.offset,
            });
        }
        let mut times = Vec::new();
        let mut validity = Vec::new();
        let mut values: Option<Values> = None;
        for (page, t) in pages.iter().zip(time_pages) {
            times.extend_from_slice(t);
            match page.parts(ChunkKind::AlignedValue)? {
                PageBody::AllNull => validity.extend(std::iter::repeat_n(false, t.len())),
                PageBody::Values {
                    rows,
                    bitmap,
                    values: v,
                } => {
                    if rows != t.len() {
                        return Err(ReadError::Malformed {
                            what: format!("value page of {rows} rows, time page of {}", t.len()),
                            offset: page.offset,
                        });
                    }
                    let before = validity.len();
                    validity.extend((0..rows).map(|i| PageBody::present(bitmap, i)));
                    let dense = validity[before..].iter().filter(|&&p| p).count();
                    let v = self.decode(Column::Value, encoding, data_type, v, Count::Exactly(dense), page)?;
                    append(&mut values, v);
                }
                other => unreachable!("a value chunk's page split as {other:?}"),
            }
        }
        let all = validity.iter().all(|&p| p);
        Ok(ColumnChunk {
            device: chunk.device.clone(),
            measurement: chunk.header.measurement.clone(),
            data_type,
            encoding,
            compression,
            aligned: true,
            pages: pages.len(),
            times,
            values: values.unwrap_or_else(|| empty(data_type)),
            validity: if all { None } else { Some(validity) },
        })
    }
}

fn empty(data_type: DataType) -> Values {
    match data_type.physical() {
        Some(Physical::Boolean) => Values::Boolean(Vec::new()),
        Some(Physical::Int32) => Values::Int32(Vec::new()),
        Some(Physical::Int64) | None => Values::Int64(Vec::new()),
        Some(Physical::Float) => Values::Float(Vec::new()),
        Some(Physical::Double) => Values::Double(Vec::new()),
        Some(Physical::Binary) => Values::Binary(Vec::new()),
    }
}

fn append(into: &mut Option<Values>, more: Values) {
    let Some(have) = into else {
        *into = Some(more);
        return;
    };
    match (have, more) {
        (Values::Boolean(a), Values::Boolean(b)) => a.extend(b),
        (Values::Int32(a), Values::Int32(b)) => a.extend(b),
        (Values::Int64(a), Values::Int64(b)) => a.extend(b),
        (Values::Float(a), Values::Float(b)) => a.extend(b),
        (Values::Double(a), Values::Double(b)) => a.extend(b),
        (Values::Binary(a), Values::Binary(b)) => a.extend(b),
        (a, b) => unreachable!("one chunk's pages decoded to {a:?} and {b:?}"),
    }
}
