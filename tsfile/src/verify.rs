//! Hold a file's decoded series to the JSON `ci/tsfile/generate.py` writes
//! beside it: every series, its header's type, encoding and compression,
//! and every point (time, value or null) as the official reader returned it
//! (`official`), or as it was written (`points`) where the JSON has no
//! read-back. Used by this crate's fixture tests and by crossdec's oracle
//! test on fresh files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::{ColumnChunk, Item, PageDecoder, TsFileReader, Values};

/// What a verification covered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verified {
    pub series: usize,
    pub pages: usize,
    pub points: usize,
    pub nulls: usize,
    pub encodings: BTreeSet<String>,
    pub compressions: BTreeSet<String>,
    /// Points (nulls included) compared per "TYPE ENCODING COMPRESSION".
    pub by_pair: BTreeMap<String, usize>,
}

impl Verified {
    pub fn add(&mut self, other: &Verified) {
        self.series += other.series;
        self.pages += other.pages;
        self.points += other.points;
        self.nulls += other.nulls;
        self.encodings.extend(other.encodings.iter().cloned());
        self.compressions.extend(other.compressions.iter().cloned());
        for (pair, n) in &other.by_pair {
            *self.by_pair.entry(pair.clone()).or_default() += n;
        }
    }
}

/// One cell as the JSON writes it: integers for BOOLEAN (0 / 1) and the
/// integer types, IEEE bits for FLOAT / DOUBLE, hex for bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cell {
    Int(i64),
    Bits(u64),
    Bytes(String),
}

/// A row: its time and its cell (`None` for a null).
type Point = (i64, Option<Cell>);

fn cells(c: &ColumnChunk) -> Vec<Option<Cell>> {
    let dense: Vec<Cell> = match &c.values {
        Values::Boolean(v) => v.iter().map(|&b| Cell::Int(b as i64)).collect(),
        Values::Int32(v) => v.iter().map(|&x| Cell::Int(x as i64)).collect(),
        Values::Int64(v) => v.iter().map(|&x| Cell::Int(x)).collect(),
        Values::Float(v) => v.iter().map(|x| Cell::Bits(x.to_bits() as u64)).collect(),
        Values::Double(v) => v.iter().map(|x| Cell::Bits(x.to_bits())).collect(),
        Values::Binary(v) => v.iter().map(|b| Cell::Bytes(hex(b))).collect(),
    };
    let mut it = dense.into_iter();
    (0..c.times.len())
        .map(|i| match &c.validity {
            Some(v) if !v[i] => None,
            _ => it.next(),
        })
        .collect()
}

pub(crate) fn quiet_f32(c: Cell) -> Cell {
    match c {
        Cell::Bits(b) if f32::from_bits(b as u32).is_nan() => Cell::Bits(b | 0x0040_0000),
        other => other,
    }
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub(crate) fn cell_of(dtype: u64, v: &serde_json::Value) -> Result<Option<Cell>, String> {
    if v.is_null() {
        return Ok(None);
    }
    Ok(Some(match dtype {
        0 | 1 | 2 | 8 | 9 => Cell::Int(v.as_i64().ok_or_else(|| format!("not an integer: {v}"))?),
        3 | 4 => Cell::Bits(v.as_u64().ok_or_else(|| format!("not IEEE bits: {v}"))?),
        _ => Cell::Bytes(v.as_str().ok_or_else(|| format!("not hex: {v}"))?.to_string()),
    }))
}

/// Read `path` with decoders from `decoder` and hold it to `json`.
pub fn verify_file<D: PageDecoder>(path: &Path, json: &str, decoder: impl Fn() -> D) -> Result<Verified, String> {
    let meta: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("bad JSON: {e}"))?;
    let mut reader = TsFileReader::open(path).map_err(|e| e.to_string())?;
    let mut found: BTreeMap<(String, String), (Vec<Point>, ColumnChunk)> = BTreeMap::new();
    for item in reader.columns(decoder()) {
        match item.map_err(|e| e.to_string())? {
            Item::Column(c) => {
                let key = (c.device.to_string(), c.measurement.clone());
                let points: Vec<Point> = c.times.iter().copied().zip(cells(&c)).collect();
                match found.get_mut(&key) {
                    Some((have, first)) => {
                        have.extend(points);
                        first.pages += c.pages;
                    }
                    None => {
                        found.insert(key, (points, c));
                    }
                }
            }
            Item::Skipped(s) => return Err(format!("{}.{} skipped: {}", s.device, s.measurement, s.reason)),
        }
    }
    let mut done = Verified::default();
    for want in meta["series"].as_array().ok_or("no series in JSON")? {
        let device = want["device"].as_str().ok_or("device")?.to_string();
        let measurement = want["measurement"].as_str().ok_or("measurement")?.to_string();
        let dtype = want["dtype"].as_u64().ok_or("dtype")?;
        let list = if want["official"].is_array() {
            &want["official"]
        } else {
            &want["points"]
        };
        let points: Vec<Point> = list
            .as_array()
            .ok_or("points")?
            .iter()
            .map(|p| Ok((p[0].as_i64().ok_or("time")?, cell_of(dtype, &p[1])?)))
            .collect::<Result<_, String>>()?;
        let Some((got, chunk)) = found.remove(&(device.clone(), measurement.clone())) else {
            if points.iter().all(|p| p.1.is_none()) {
                continue;
            }
            return Err(format!("{device}.{measurement}: not in the file"));
        };
        let header = (
            chunk.data_type.id() as u64,
            chunk.encoding.id() as u64,
            chunk.compression.id() as u64,
        );
        let asked = (
            dtype,
            want["encoding"].as_u64().ok_or("encoding")?,
            want["compression"].as_u64().ok_or("compression")?,
        );
        if header != asked {
            return Err(format!(
                "{device}.{measurement}: header (type, encoding, compression) {header:?}, asked for {asked:?}"
            ));
        }
        // The Python binding hands a FLOAT to Python as a double, and that
        // conversion sets the quiet bit of a signalling NaN: compare FLOAT
        // NaNs the official reader returned as the binding shows them.
        let got: Vec<_> = if dtype == 3 && want["official"].is_array() {
            got.into_iter().map(|(t, c)| (t, c.map(quiet_f32))).collect()
        } else {
            got
        };
        // The official reader leaves out rows where a tree series has no
        // value; the table reader returns every row, nulls included.
        let got: Vec<_> = if chunk.aligned {
            got
        } else {
            got.into_iter().filter(|p| p.1.is_some()).collect()
        };
        if got.len() != points.len() {
            return Err(format!(
                "{device}.{measurement}: {} points decoded, official {}",
                got.len(),
                points.len()
            ));
        }
        if let Some(i) = (0..points.len()).find(|&i| got[i] != points[i]) {
            return Err(format!(
                "{device}.{measurement} ({} {}): point {i} decoded as {:?}, official {:?}",
                chunk.data_type, chunk.encoding, got[i], points[i]
            ));
        }
        done.series += 1;
        done.pages += chunk.pages;
        done.points += points.len();
        done.nulls += points.iter().filter(|p| p.1.is_none()).count();
        done.encodings.insert(chunk.encoding.name().to_string());
        done.compressions.insert(chunk.compression.name().to_string());
        *done
            .by_pair
            .entry(format!(
                "{} {} {}",
                chunk.data_type,
                chunk.encoding.name(),
                chunk.compression.name()
            ))
            .or_default() += points.len();
    }
    if let Some(((d, m), _)) = found.into_iter().next() {
        return Err(format!("{d}.{m}: in the file but not in the JSON"));
    }
    Ok(done)
}
