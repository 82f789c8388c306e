//! Hold a file's decoded series to the JSON `ci/tsfile/generate.py` writes
//! beside it: every series, its header's type, encoding and compression,
//! and every point (time, value or null) as the official reader returned it
//! (`official`), or as it was written (`points`) where the JSON has no
//! read-back. Used by this crate's fixture tests and by crossdec's oracle
//! test on fresh files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::{ChunkKind, ColumnChunk, Item, PageDecoder, PageStatistics, TsFileReader, Values};

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
    /// The statistics layouts seen and held to the official values, as
    /// [`verify_file`]'s statistics check names them ("value chunk of one
    /// page", "series of several chunks", ...).
    pub statistics: BTreeSet<String>,
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
        self.statistics.extend(other.statistics.iter().cloned());
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

/// Every way a header says whether statistics follow: a chunk's marker
/// (one page: no page statistics), an aligned value page's size (0: all
/// null, no statistics), a series' index flags (one chunk: no chunk
/// statistics), in the tree and the table model.
pub const STATISTICS_LAYOUTS: &[&str] = &[
    "series chunk of one page",
    "series chunk of pages",
    "time chunk of one page",
    "time chunk of pages",
    "value chunk of one page",
    "value chunk of pages",
    "all-null page in a value chunk of one page",
    "all-null page in a value chunk of pages",
    "series of one chunk (no chunk statistics)",
    "series of several chunks",
    "series statistics from the official reader",
    "index flags of an aligned column (Java's 0x80 / 0x40)",
];

/// Read `path` with decoders from `decoder` and hold it to `json`.
pub fn verify_file<D: PageDecoder>(path: &Path, json: &str, decoder: impl Fn() -> D) -> Result<Verified, String> {
    let meta: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("bad JSON: {e}"))?;
    let mut reader = TsFileReader::open(path).map_err(|e| e.to_string())?;
    let mut found: BTreeMap<(String, String), (Vec<Point>, ColumnChunk)> = BTreeMap::new();
    // Each decoded chunk's times, in file order.
    let mut decoded: Vec<Vec<i64>> = Vec::new();
    for item in reader.columns(decoder()) {
        match item.map_err(|e| e.to_string())? {
            Item::Column(c) => {
                decoded.push(c.times.clone());
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
    check_statistics(path, &meta, &decoded, &mut done)?;
    Ok(done)
}

/// A row of the official answer: its time, and whether it holds a value.
type Row = (i64, bool);

/// Count, first and last time of the rows holding a value, as statistics
/// state them.
fn stated(rows: &[Row]) -> (u64, Option<i64>, Option<i64>) {
    let mut present = rows.iter().filter(|r| r.1).map(|r| r.0);
    let first = present.next();
    let mut n = u64::from(first.is_some());
    let mut last = first;
    for t in present {
        n += 1;
        last = Some(t);
    }
    (n, first, last)
}

/// Statistics `what` must state `rows`: their count, and when there is
/// one, the first and last time holding a value.
fn same(what: &str, s: &PageStatistics, rows: &[Row]) -> Result<(), String> {
    let (n, first, last) = stated(rows);
    if s.count != n || (n > 0 && (Some(s.start_time) != first || Some(s.end_time) != last)) {
        return Err(format!(
            "{what}: statistics say {} values from {} to {}, the official reader has {n} from {first:?} to {last:?}",
            s.count, s.start_time, s.end_time
        ));
    }
    Ok(())
}

/// Hold every statistics record the file has where its headers say it has
/// one (the index's series and chunk statistics, the pages' of a chunk of
/// several pages) to the rows the official reader returned, and hold the
/// reader to reading none where they say there is none (a chunk of one
/// page, an all-null value page, a series of one chunk); and, where the
/// JSON has them (`official_statistics`, `generate.py
/// --official-statistics`), the index's series statistics to the
/// official reader's. Names every layout seen in `done.statistics`.
/// `decoded`: the times of each chunk the reader decoded (a value
/// chunk's: its group's), in file order, so that how many rows a chunk
/// holds is never taken from the statistics under test.
fn check_statistics(
    path: &Path,
    meta: &serde_json::Value,
    decoded: &[Vec<i64>],
    done: &mut Verified,
) -> Result<(), String> {
    let mut reader = TsFileReader::open(path).map_err(|e| e.to_string())?;
    let index = reader.metadata().map_err(|e| e.to_string())?.clone();
    let seen = &mut done.statistics;
    // Every chunk's statistics in the index, by its header's offset.
    let mut by_offset: BTreeMap<u64, (String, PageStatistics)> = BTreeMap::new();
    for (device, series) in &index.devices {
        for s in series {
            let name = format!("{device}.{}", s.measurement);
            if s.chunk_statistics.len() != s.chunk_offsets.len() {
                return Err(format!(
                    "{name}: {} chunks, {} chunk statistics",
                    s.chunk_offsets.len(),
                    s.chunk_statistics.len()
                ));
            }
            if s.flags & 0xC0 != 0 {
                seen.insert("index flags of an aligned column (Java's 0x80 / 0x40)".to_string());
            }
            seen.insert(if s.flags & 0x3F == 0 {
                "series of one chunk (no chunk statistics)".to_string()
            } else {
                "series of several chunks".to_string()
            });
            if s.flags & 0x3F == 0 && s.chunk_offsets.len() != 1 {
                return Err(format!(
                    "{name}: one chunk by its flags, {} in its list",
                    s.chunk_offsets.len()
                ));
            }
            for (&at, &st) in s.chunk_offsets.iter().zip(&s.chunk_statistics) {
                by_offset.insert(at, (name.clone(), st));
            }
        }
    }
    // The official rows of every series, and of every table device (its
    // field series share its times).
    let mut rows: BTreeMap<(String, String), Vec<Row>> = BTreeMap::new();
    for want in meta["series"].as_array().ok_or("no series in JSON")? {
        let device = want["device"].as_str().ok_or("device")?.to_string();
        let measurement = want["measurement"].as_str().ok_or("measurement")?.to_string();
        let list = if want["official"].is_array() {
            &want["official"]
        } else {
            &want["points"]
        };
        let r: Vec<Row> = list
            .as_array()
            .ok_or("points")?
            .iter()
            .map(|p| Ok((p[0].as_i64().ok_or("time")?, !p[1].is_null())))
            .collect::<Result<_, String>>()?;
        rows.entry((device.clone(), String::new()))
            .or_insert_with(|| r.iter().map(|&(t, _)| (t, true)).collect());
        rows.insert((device, measurement), r);
    }
    // Where each series' next chunk starts in its rows; each device's
    // current chunk group's time pages (their rows).
    let mut next: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut group_pages: BTreeMap<String, Vec<Vec<i64>>> = BTreeMap::new();
    let mut decoded = decoded.iter();
    let limits = *reader.options();
    while let Some(chunk) = reader.next_chunk().map_err(|e| e.to_string())? {
        let h = &chunk.header;
        let device = chunk.device.to_string();
        let name = format!("{device}.{} (chunk at {})", h.measurement, h.offset);
        let Some((indexed, st)) = by_offset.get(&h.offset) else {
            return Err(format!("{name}: not in the index"));
        };
        if *indexed != format!("{device}.{}", h.measurement) {
            return Err(format!("{name}: the index has {indexed} there"));
        }
        let pages = chunk.pages(&limits.limits).map_err(|e| e.to_string())?;
        let kind = match h.kind() {
            ChunkKind::NonAligned => "series chunk",
            ChunkKind::AlignedTime => "time chunk",
            ChunkKind::AlignedValue => "value chunk",
        };
        seen.insert(format!(
            "{kind} of {}",
            if h.single_page() { "one page" } else { "pages" }
        ));
        if h.single_page() && pages.len() != 1 {
            return Err(format!("{name}: one page by its marker, {} read", pages.len()));
        }
        for (p, page) in pages.iter().enumerate() {
            if page.statistics.is_some() == (h.single_page() || page.empty) {
                return Err(format!(
                    "{name}: page {p} read {} statistics where its headers say {}",
                    if page.statistics.is_some() { "with" } else { "without" },
                    if page.statistics.is_some() { "none" } else { "some" }
                ));
            }
        }
        let key = (device.clone(), h.measurement.clone());
        let all = rows
            .get(&key)
            .ok_or_else(|| format!("{name}: no such series in the JSON"))?;
        let from = next.get(&key).copied().unwrap_or(0);
        // The chunk's rows are the times it decoded to (a time chunk's, its
        // group's first value chunk's).
        let chunk_times = match h.kind() {
            ChunkKind::AlignedTime => decoded.clone().next(),
            _ => decoded.next(),
        }
        .ok_or_else(|| format!("{name}: not decoded"))?;
        let times: Option<Vec<Vec<i64>>> = if h.kind() == ChunkKind::AlignedValue {
            Some(
                group_pages
                    .get(&device)
                    .cloned()
                    .ok_or_else(|| format!("{name}: no time chunk before it"))?,
            )
        } else {
            None
        };
        let n = chunk_times.len();
        let mine = all.get(from..from + n).ok_or_else(|| {
            format!(
                "{name}: {n} rows from row {from}, the official reader has {}",
                all.len()
            )
        })?;
        if mine.iter().map(|r| r.0).ne(chunk_times.iter().copied()) {
            return Err(format!(
                "{name}: its rows are not the official reader's from row {from}"
            ));
        }
        next.insert(key, from + n);
        same(&format!("{name}: the index"), st, mine)?;
        // Each page's rows.
        let mut page_rows: Vec<&[Row]> = Vec::new();
        match &times {
            Some(t) => {
                if t.len() != pages.len() {
                    return Err(format!("{name}: {} pages, its time chunk {}", pages.len(), t.len()));
                }
                let mut at = 0;
                for (p, tp) in t.iter().enumerate() {
                    let r = &mine[at..at + tp.len()];
                    if r.iter().map(|x| x.0).ne(tp.iter().copied()) {
                        return Err(format!("{name}: page {p}'s rows are not its time page's"));
                    }
                    page_rows.push(r);
                    at += tp.len();
                }
            }
            None if h.single_page() => page_rows.push(mine),
            None => {
                let mut at = 0;
                for (p, page) in pages.iter().enumerate() {
                    let count = page.statistics.map_or(0, |s| s.count as usize);
                    page_rows.push(
                        mine.get(at..at + count)
                            .ok_or_else(|| format!("{name}: page {p} runs past its chunk's rows"))?,
                    );
                    at += count;
                }
                if at != mine.len() {
                    return Err(format!(
                        "{name}: its pages count {at} rows, its statistics {}",
                        mine.len()
                    ));
                }
            }
        }
        for (p, (page, r)) in pages.iter().zip(&page_rows).enumerate() {
            if page.empty {
                seen.insert(format!(
                    "all-null page in a value chunk of {}",
                    if h.single_page() { "one page" } else { "pages" }
                ));
                if r.iter().any(|x| x.1) {
                    return Err(format!(
                        "{name}: page {p} is all null by its header, the official reader has values"
                    ));
                }
            } else if let Some(s) = &page.statistics {
                same(&format!("{name}: page {p}"), s, r)?;
            }
        }
        if h.kind() == ChunkKind::AlignedTime {
            group_pages.insert(
                device,
                page_rows.iter().map(|r| r.iter().map(|x| x.0).collect()).collect(),
            );
        }
    }
    for (key, r) in &rows {
        if key.1.is_empty() && !next.contains_key(key) {
            // A tree device's rows: no time chunk reads them.
            continue;
        }
        let used = next.get(key).copied().unwrap_or(0);
        if used != r.len() && r.iter().skip(used).any(|x| x.1) {
            return Err(format!(
                "{}.{}: the chunks hold {used} of the official reader's {} rows",
                key.0,
                key.1,
                r.len()
            ));
        }
    }
    // The index's series statistics against the official reader's.
    let Some(official) = meta["official_statistics"].as_array() else {
        return Ok(());
    };
    for want in official {
        let device = want["device"].as_str().ok_or("device")?;
        let measurement = want["measurement"].as_str().ok_or("measurement")?;
        let Some((_, series)) = index.devices.iter().find(|(d, _)| d.to_string() == device) else {
            return Err(format!("{device}: not in the index"));
        };
        let s = series
            .iter()
            .find(|s| s.measurement == measurement && (measurement.is_empty() == s.is_aligned_time()))
            .ok_or_else(|| format!("{device}.{measurement}: not in the index"))?;
        let got = [
            s.statistics.count as i64,
            s.statistics.start_time,
            s.statistics.end_time,
            s.chunk_offsets.len() as i64,
        ];
        let want_of = |k: &str| {
            want[k]
                .as_i64()
                .ok_or_else(|| format!("{device}.{measurement}: no {k}"))
        };
        let expected = [
            want_of("count")?,
            want_of("start")?,
            want_of("end")?,
            want_of("chunks")?,
        ];
        if got != expected {
            return Err(format!(
                "{device}.{measurement}: index statistics (count, start, end, chunks) {got:?}, official {expected:?}"
            ));
        }
        seen.insert("series statistics from the official reader".to_string());
    }
    Ok(())
}
