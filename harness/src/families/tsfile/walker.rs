//! A TsFile reader that goes exactly far enough to feed every page to our
//! decoders: file magic and version, chunk group headers (device ids), chunk
//! headers (non-aligned, aligned time and aligned value chunks, multi- or
//! single-page), page headers with their statistics, decompression
//! (UNCOMPRESSED, SNAPPY, LZ4, ZSTD), and page bodies (time and value parts,
//! row counts and null bitmaps). It stops at the metadata separator.
//!
//! The page decoder is a parameter, so the same walk runs over the reference
//! and over every kernel. The time column of non-aligned chunks is TS_2DIFF,
//! the writers' (unrecorded) default.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

use super::{DataType, Encoding, StopMode, TsFault, TsInput, TsValue, Values, MAX_VALUES_CAP};

/// One decoded cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Boolean(bool),
    Int32(i32),
    Int64(i64),
    /// IEEE bits.
    Float(u32),
    Double(u64),
    Text(Vec<u8>),
}

/// Every point of one series found in the file, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    pub device: String,
    pub measurement: String,
    pub data_type: u8,
    pub encoding: u8,
    pub compression: u8,
    pub aligned: bool,
    pub points: Vec<(i64, Option<Cell>)>,
    /// Pages decoded for this series.
    pub pages: usize,
}

/// Why a file could not be walked.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkError {
    BadMagic,
    Truncated {
        what: &'static str,
        offset: usize,
    },
    UnknownMarker {
        marker: u8,
        offset: usize,
    },
    Unsupported {
        what: &'static str,
        value: u8,
        offset: usize,
    },
    Decompress {
        compression: u8,
        offset: usize,
        message: String,
    },
    Decode {
        column: &'static str,
        measurement: String,
        page_offset: usize,
        fault: TsFault,
    },
    Inconsistent {
        what: String,
        offset: usize,
    },
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for WalkError {}

/// How pages are decoded: the reference, or a kernel.
pub type PageDecoder<'a> = &'a dyn Fn(&TsInput) -> Result<TsValue, TsFault>;

/// Largest uncompressed page accepted (the header's number is untrusted).
const MAX_PAGE: usize = 64 << 20;

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn u8(&mut self, what: &'static str) -> Result<u8, WalkError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or(WalkError::Truncated { what, offset: self.pos })?;
        self.pos += 1;
        Ok(b)
    }
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], WalkError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or(WalkError::Truncated { what, offset: self.pos })?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn uvarint(&mut self, what: &'static str) -> Result<u64, WalkError> {
        let start = self.pos;
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.u8(what)?;
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(WalkError::Inconsistent {
            what: format!("{what}: varint too long"),
            offset: start,
        })
    }
    fn zigzag(&mut self, what: &'static str) -> Result<i64, WalkError> {
        let u = self.uvarint(what)? as u32;
        Ok(((u >> 1) as i32 ^ -((u & 1) as i32)) as i64)
    }
    fn i32_be(&mut self, what: &'static str) -> Result<i32, WalkError> {
        Ok(i32::from_be_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }
    /// A zigzag-varint length then UTF-8 bytes (`None` for length -1).
    fn string(&mut self, what: &'static str) -> Result<Option<String>, WalkError> {
        let at = self.pos;
        let len = self.zigzag(what)?;
        if len < 0 {
            return Ok(None);
        }
        let bytes = self.take(len as usize, what)?;
        String::from_utf8(bytes.to_vec())
            .map(Some)
            .map_err(|_| WalkError::Inconsistent {
                what: format!("{what}: not UTF-8"),
                offset: at,
            })
    }
}

/// Bytes of a page's typed statistics after count, start and end time.
fn skip_typed_statistics(c: &mut Cursor<'_>, data_type: u8) -> Result<(), WalkError> {
    let fixed = match data_type {
        0 => 1 + 1 + 8,
        1 | 9 => 4 * 4 + 8,
        2 | 8 => 4 * 8 + 8,
        3 => 4 * 4 + 8,
        4 => 5 * 8,
        6 | 10 => 0,
        5 | 11 => {
            // TEXT: first, last; STRING: first, last, min, max (i32 BE length + bytes).
            for _ in 0..if data_type == 5 { 2 } else { 4 } {
                let len = c.i32_be("statistics string length")?;
                if len < 0 {
                    return Err(WalkError::Inconsistent {
                        what: "negative statistics length".into(),
                        offset: c.pos,
                    });
                }
                c.take(len as usize, "statistics string")?;
            }
            0
        }
        other => {
            return Err(WalkError::Unsupported {
                what: "data type",
                value: other,
                offset: c.pos,
            })
        }
    };
    c.take(fixed, "statistics")?;
    Ok(())
}

fn decompress(compression: u8, body: &[u8], size: usize, offset: usize) -> Result<Vec<u8>, WalkError> {
    let fail = |message: String| WalkError::Decompress {
        compression,
        offset,
        message,
    };
    if size > MAX_PAGE {
        return Err(fail(format!("uncompressed size {size} above {MAX_PAGE}")));
    }
    let out = match compression {
        0 => body.to_vec(),
        1 => snap::raw::Decoder::new()
            .decompress_vec(body)
            .map_err(|e| fail(e.to_string()))?,
        7 => {
            if size > body.len().saturating_mul(255) + 16 {
                return Err(fail(format!(
                    "uncompressed size {size} impossible for {} LZ4 bytes",
                    body.len()
                )));
            }
            lz4_flex::block::decompress(body, size).map_err(|e| fail(e.to_string()))?
        }
        8 => {
            let mut out = Vec::new();
            let mut decoder = ruzstd::decoding::StreamingDecoder::new(body).map_err(|e| fail(e.to_string()))?;
            decoder
                .by_ref()
                .take(MAX_PAGE as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| fail(e.to_string()))?;
            out
        }
        other => {
            return Err(WalkError::Unsupported {
                what: "compression",
                value: other,
                offset,
            })
        }
    };
    if out.len() != size {
        return Err(fail(format!("{} bytes, header says {size}", out.len())));
    }
    Ok(out)
}

/// One page of a chunk: its body (decompressed) and where it started.
struct Page {
    body: Option<Vec<u8>>,
    offset: usize,
}

struct ChunkHeader {
    marker: u8,
    measurement: String,
    data_type: u8,
    compression: u8,
    encoding: u8,
    offset: usize,
}

fn read_pages(c: &mut Cursor<'_>, h: &ChunkHeader, size: usize) -> Result<Vec<Page>, WalkError> {
    let data = c.take(size, "chunk data")?;
    let base = c.pos - size;
    let mut p = Cursor { data, pos: 0 };
    let single = h.marker & 0x04 != 0;
    let value_chunk = h.marker & 0x40 != 0;
    let mut pages = Vec::new();
    while p.pos < data.len() {
        let offset = base + p.pos;
        let uncompressed = p.uvarint("page uncompressed size")? as usize;
        if value_chunk && uncompressed == 0 {
            pages.push(Page { body: None, offset });
            continue;
        }
        let compressed = p.uvarint("page compressed size")? as usize;
        if !single {
            p.uvarint("statistics count")?;
            p.take(16, "statistics times")?;
            skip_typed_statistics(&mut p, h.data_type)?;
        }
        let body = p.take(compressed, "page body")?;
        pages.push(Page {
            body: Some(decompress(h.compression, body, uncompressed, offset)?),
            offset,
        });
    }
    Ok(pages)
}

/// Values in a TS_2DIFF INT64 page, from its block headers.
fn ts2diff_count(page: &[u8]) -> usize {
    let mut at = 0;
    let mut n = 0usize;
    while at + 24 <= page.len() {
        let wi = u32::from_be_bytes(page[at..at + 4].try_into().expect("4")) as usize;
        let bw = u32::from_be_bytes(page[at + 4..at + 8].try_into().expect("4")) as usize;
        n = n.saturating_add(wi.saturating_add(1));
        at = at.saturating_add(24).saturating_add(wi.saturating_mul(bw).div_ceil(8));
    }
    n.min(MAX_VALUES_CAP as usize)
}

fn decode_times(
    decode: PageDecoder<'_>,
    encoding: u8,
    bytes: &[u8],
    h: &ChunkHeader,
    page: usize,
) -> Result<Vec<i64>, WalkError> {
    let (encoding, max) = match encoding {
        4 => (Encoding::Ts2Diff, ts2diff_count(bytes)),
        0 => (Encoding::Plain, bytes.len() / 8),
        other => {
            return Err(WalkError::Unsupported {
                what: "time encoding",
                value: other,
                offset: page,
            })
        }
    };
    let input = TsInput {
        encoding,
        dtype: DataType::Int64,
        stop: StopMode::AtTerminator,
        max_values: max as u32,
        page: bytes.to_vec(),
    };
    match decode(&input) {
        Ok(TsValue {
            values: Values::Int64(v),
            consumed,
        }) if consumed == bytes.len() => Ok(v),
        Ok(other) => Err(WalkError::Inconsistent {
            what: format!("time page decoded to {other:?}"),
            offset: page,
        }),
        Err(fault) => Err(WalkError::Decode {
            column: "time",
            measurement: h.measurement.clone(),
            page_offset: page,
            fault,
        }),
    }
}

fn decode_values(
    decode: PageDecoder<'_>,
    h: &ChunkHeader,
    bytes: &[u8],
    count: usize,
    page: usize,
) -> Result<Vec<Cell>, WalkError> {
    let encoding = Encoding::from_id(h.encoding).ok_or(WalkError::Unsupported {
        what: "encoding",
        value: h.encoding,
        offset: h.offset,
    })?;
    let dtype = DataType::from_id(h.data_type).ok_or(WalkError::Unsupported {
        what: "data type",
        value: h.data_type,
        offset: h.offset,
    })?;
    if !encoding.types().contains(&dtype) {
        return Err(WalkError::Unsupported {
            what: "encoding for this data type",
            value: h.encoding,
            offset: h.offset,
        });
    }
    let input = TsInput {
        encoding,
        dtype,
        stop: StopMode::Count(count as u32),
        max_values: count as u32,
        page: bytes.to_vec(),
    };
    let out = decode(&input).map_err(|fault| WalkError::Decode {
        column: "value",
        measurement: h.measurement.clone(),
        page_offset: page,
        fault,
    })?;
    if encoding != Encoding::Gorilla && out.consumed != bytes.len() {
        return Err(WalkError::Inconsistent {
            what: format!(
                "{}: {} of {} value bytes consumed",
                h.measurement,
                out.consumed,
                bytes.len()
            ),
            offset: page,
        });
    }
    if encoding == Encoding::Gorilla {
        // The classic reader's way must agree on real pages: up to the
        // terminator (unless a value equals it), then the flush byte, which
        // ends the page.
        let classic = decode(&TsInput {
            stop: StopMode::AtTerminator,
            ..input.clone()
        });
        let holds_terminator = match &out.values {
            Values::Int32(v) => v.contains(&i32::MIN),
            Values::Int64(v) => v.contains(&i64::MIN),
            Values::Float(v) => v.contains(&0x7FC0_0000),
            Values::Double(v) => v.contains(&0x7FF8_0000_0000_0000),
            _ => false,
        };
        match classic {
            Ok(c) if holds_terminator || (c.values == out.values && c.consumed == bytes.len()) => {}
            other => {
                return Err(WalkError::Inconsistent {
                    what: format!("{}: GORILLA to the terminator gave {other:?}", h.measurement),
                    offset: page,
                })
            }
        }
    }
    let cells: Vec<Cell> = match out.values {
        Values::Boolean(v) => v.into_iter().map(Cell::Boolean).collect(),
        Values::Int32(v) => v.into_iter().map(Cell::Int32).collect(),
        Values::Int64(v) => v.into_iter().map(Cell::Int64).collect(),
        Values::Float(v) => v.into_iter().map(Cell::Float).collect(),
        Values::Double(v) => v.into_iter().map(Cell::Double).collect(),
        Values::Text(v) => v.into_iter().map(Cell::Text).collect(),
    };
    if cells.len() != count {
        return Err(WalkError::Inconsistent {
            what: format!("{}: {} values for {count} rows", h.measurement, cells.len()),
            offset: page,
        });
    }
    Ok(cells)
}

/// Walk a whole file; series are keyed by (device, measurement).
pub fn walk(file: &[u8], decode: PageDecoder<'_>) -> Result<Vec<Series>, WalkError> {
    if file.len() < 7 || &file[..6] != b"TsFile" {
        return Err(WalkError::BadMagic);
    }
    // A whole file ends with its metadata and the magic again: without it the
    // file was cut short, and the chunks it still holds are not all there is.
    if file.len() < 13 || !file.ends_with(b"TsFile") {
        return Err(WalkError::Truncated {
            what: "tail magic",
            offset: file.len(),
        });
    }
    let mut c = Cursor { data: file, pos: 6 };
    let version = c.u8("version")?;
    if version != 3 && version != 4 {
        return Err(WalkError::Unsupported {
            what: "version",
            value: version,
            offset: 6,
        });
    }
    let mut series: BTreeMap<(String, String), Series> = BTreeMap::new();
    let mut device: Option<String> = None;
    // The current aligned group's time pages.
    let mut times: Vec<Vec<i64>> = Vec::new();
    loop {
        let offset = c.pos;
        let marker = c.u8("marker")?;
        match marker {
            0x00 => {
                let n = c.uvarint("device segment count")?;
                if n > (file.len() - c.pos) as u64 {
                    return Err(WalkError::Inconsistent {
                        what: format!("{n} device segments"),
                        offset,
                    });
                }
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(c.string("device segment")?.unwrap_or_else(|| "null".into()));
                }
                device = Some(parts.join("."));
                times.clear();
            }
            0x02 => break,
            0x01 | 0x05 | 0x41 | 0x45 | 0x81 | 0x85 => {
                let dev = device.clone().ok_or(WalkError::Inconsistent {
                    what: "chunk before any chunk group".into(),
                    offset,
                })?;
                let measurement = c.string("measurement id")?.unwrap_or_default();
                let size = c.uvarint("chunk data size")? as usize;
                let h = ChunkHeader {
                    marker,
                    measurement,
                    data_type: c.u8("data type")?,
                    compression: c.u8("compression")?,
                    encoding: c.u8("encoding")?,
                    offset,
                };
                let pages = read_pages(&mut c, &h, size)?;
                if marker & 0x80 != 0 {
                    times = pages
                        .iter()
                        .map(|p| decode_times(decode, h.encoding, p.body.as_deref().unwrap_or(&[]), &h, p.offset))
                        .collect::<Result<_, _>>()?;
                    continue;
                }
                let aligned = marker & 0x40 != 0;
                let s = series
                    .entry((dev.clone(), h.measurement.clone()))
                    .or_insert_with(|| Series {
                        device: dev.clone(),
                        measurement: h.measurement.clone(),
                        data_type: h.data_type,
                        encoding: h.encoding,
                        compression: h.compression,
                        aligned,
                        points: Vec::new(),
                        pages: 0,
                    });
                if aligned && pages.len() != times.len() {
                    return Err(WalkError::Inconsistent {
                        what: format!(
                            "{}: {} value pages for {} time pages",
                            h.measurement,
                            pages.len(),
                            times.len()
                        ),
                        offset,
                    });
                }
                for (k, page) in pages.iter().enumerate() {
                    s.pages += 1;
                    if !aligned {
                        let body = page.body.as_deref().unwrap_or(&[]);
                        let mut b = Cursor { data: body, pos: 0 };
                        let time_len = b.uvarint("time length")? as usize;
                        let time_bytes = b.take(time_len, "time bytes")?;
                        let t = decode_times(decode, 4, time_bytes, &h, page.offset)?;
                        let v = decode_values(decode, &h, &body[b.pos..], t.len(), page.offset)?;
                        s.points.extend(t.into_iter().zip(v.into_iter().map(Some)));
                        continue;
                    }
                    let t = &times[k];
                    let Some(body) = &page.body else {
                        s.points.extend(t.iter().map(|&t| (t, None)));
                        continue;
                    };
                    let mut b = Cursor { data: body, pos: 0 };
                    let rows = b.i32_be("row count")?;
                    if rows < 0 || rows as usize != t.len() {
                        return Err(WalkError::Inconsistent {
                            what: format!("{}: value page of {rows} rows, time page of {}", h.measurement, t.len()),
                            offset: page.offset,
                        });
                    }
                    let bitmap = b.take(t.len().div_ceil(8), "bitmap")?;
                    let present = |i: usize| bitmap[i / 8] & (0x80 >> (i % 8)) != 0;
                    let dense = (0..t.len()).filter(|&i| present(i)).count();
                    let mut v = decode_values(decode, &h, &body[b.pos..], dense, page.offset)?.into_iter();
                    for (i, &time) in t.iter().enumerate() {
                        s.points.push((time, if present(i) { v.next() } else { None }));
                    }
                }
            }
            0x04 => {
                // Operation index range (two i64), written by some Java versions.
                c.take(16, "operation index range")?;
            }
            other => return Err(WalkError::UnknownMarker { marker: other, offset }),
        }
    }
    Ok(series.into_values().collect())
}

/// What [`verify`] checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verified {
    pub series: usize,
    pub pages: usize,
    pub points: usize,
}

fn cell_from_json(data_type: u8, v: &serde_json::Value) -> Result<Option<Cell>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let int = || v.as_i64().ok_or_else(|| format!("not an integer: {v}"));
    let uint = || v.as_u64().ok_or_else(|| format!("not an unsigned integer: {v}"));
    Ok(Some(match data_type {
        0 => Cell::Boolean(int()? != 0),
        1 | 9 => Cell::Int32(int()? as i32),
        2 | 8 => Cell::Int64(int()?),
        3 => Cell::Float(uint()? as u32),
        4 => Cell::Double(uint()?),
        5 | 10 | 11 => {
            let s = v.as_str().ok_or_else(|| format!("not a hex string: {v}"))?;
            Cell::Text(hex::decode(s).map_err(|e| e.to_string())?)
        }
        other => return Err(format!("data type {other}")),
    }))
}

/// Walk `file` with `decode` and hold every series against the generator's
/// JSON (`ci/tsfile/generate.py`): the same series, headers saying the data
/// type, encoding and compression the generator asked for, and every point
/// (time and value, nulls included) equal.
pub fn verify(file: &[u8], json: &str, decode: PageDecoder<'_>) -> Result<Verified, String> {
    let meta: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("bad JSON: {e}"))?;
    let walked = walk(file, decode).map_err(|e| format!("walk failed: {e}"))?;
    let mut found: BTreeMap<(String, String), Series> = walked
        .into_iter()
        .map(|s| ((s.device.clone(), s.measurement.clone()), s))
        .collect();
    let mut done = Verified::default();
    for want in meta["series"].as_array().ok_or("no series in JSON")? {
        let device = want["device"].as_str().ok_or("device")?.to_string();
        let measurement = want["measurement"].as_str().ok_or("measurement")?.to_string();
        let data_type = want["dtype"].as_u64().ok_or("dtype")? as u8;
        let points: Vec<(i64, Option<Cell>)> = want["points"]
            .as_array()
            .ok_or("points")?
            .iter()
            .map(|p| Ok((p[0].as_i64().ok_or("time")?, cell_from_json(data_type, &p[1])?)))
            .collect::<Result<_, String>>()?;
        let Some(got) = found.remove(&(device.clone(), measurement.clone())) else {
            if points.iter().all(|p| p.1.is_none()) {
                // A column the writer had nothing to write for.
                continue;
            }
            return Err(format!("{device}.{measurement}: not in the file"));
        };
        let header = (got.data_type, got.encoding, got.compression);
        let asked = (
            data_type,
            want["encoding"].as_u64().ok_or("encoding")? as u8,
            want["compression"].as_u64().ok_or("compression")? as u8,
        );
        if header != asked {
            return Err(format!(
                "{device}.{measurement}: chunk header (type, encoding, compression) {header:?}, asked for {asked:?}"
            ));
        }
        if got.points.len() != points.len() {
            return Err(format!(
                "{device}.{measurement}: {} points decoded, {} written",
                got.points.len(),
                points.len()
            ));
        }
        if let Some(i) = (0..points.len()).find(|&i| got.points[i] != points[i]) {
            return Err(format!(
                "{device}.{measurement}: point {i} decoded as {:?}, written as {:?} ({:?} encoding {})",
                got.points[i], points[i], got.data_type, got.encoding
            ));
        }
        done.series += 1;
        done.pages += got.pages;
        done.points += points.len();
    }
    if let Some(((d, m), _)) = found.into_iter().next() {
        return Err(format!("{d}.{m}: in the file but not written by the generator"));
    }
    Ok(done)
}
