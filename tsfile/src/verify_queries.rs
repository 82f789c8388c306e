//! Hold filtered scans of a file's aligned (table-model) devices to what
//! the official reader answered for the same queries: the
//! `FILE.queries.json` that `ci/tsfile/generate.py --queries` writes (a
//! time window, columns, and offset / limit applied once over the whole
//! answer, devices sorted by name). Every query is scanned device by device
//! by the reference scanner and by the kernel scanner with and without its
//! optimizations; offset and limit are handed to each device's scan as the
//! part of them that falls in it, so the scanners' own offset and limit
//! handling is what is checked.

use std::path::Path;

use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;
use serde_json::Value as Json;

use crate::verify::{cell_of, hex, quiet_f32, Cell};
use crate::{AlignedDevice, TsFileReader};

/// What a verification covered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueriesVerified {
    pub queries: usize,
    /// Of them, with a tag filter.
    pub tag_filtered: usize,
    /// Rows compared (per implementation).
    pub rows: usize,
    /// Queries where the official reader's own answer was wrong and the
    /// generator recorded the corrected one (see the generator's notes).
    pub official_wrong: usize,
    /// Groups the kernel pruned by statistics, pages it dropped for the
    /// offset, over every scan.
    pub groups_pruned: usize,
    pub pages_offset_skipped: usize,
}

fn reference_cell(v: &r::Value) -> Cell {
    match v {
        r::Value::Bool(b) => Cell::Int(*b as i64),
        r::Value::I32(x) => Cell::Int(*x as i64),
        r::Value::I64(x) => Cell::Int(*x),
        r::Value::F32(b) => quiet_f32(Cell::Bits(*b as u64)),
        r::Value::F64(b) => Cell::Bits(*b),
        r::Value::Bytes(b) => Cell::Bytes(hex(b)),
    }
}

fn kernel_cell(v: &k::Value) -> Cell {
    match v {
        k::Value::Bool(b) => Cell::Int(*b as i64),
        k::Value::I32(x) => Cell::Int(*x as i64),
        k::Value::I64(x) => Cell::Int(*x),
        k::Value::F32(b) => quiet_f32(Cell::Bits(*b as u64)),
        k::Value::F64(b) => Cell::Bits(*b),
        k::Value::Bytes(b) => Cell::Bytes(hex(b)),
    }
}

type Row = (i64, Vec<Option<Cell>>);

/// Rows of the requested columns, with nulls for columns the device lacks
/// (`slots[j]`: output column j's position among the scanned ones).
fn widen(times: &[i64], scanned: &[Vec<Option<Cell>>], slots: &[Option<usize>]) -> Vec<Row> {
    (0..times.len())
        .map(|i| {
            (
                times[i],
                slots.iter().map(|s| s.and_then(|s| scanned[s][i].clone())).collect(),
            )
        })
        .collect()
}

fn reference_rows(blocks: &[r::Block], slots: &[Option<usize>]) -> Vec<Row> {
    let mut rows = Vec::new();
    for b in blocks {
        let cols: Vec<Vec<Option<Cell>>> = b
            .columns
            .iter()
            .map(|c| c.iter().map(|v| v.as_ref().map(reference_cell)).collect())
            .collect();
        rows.extend(widen(&b.times, &cols, slots));
    }
    rows
}

fn kernel_rows(blocks: &[k::Block], slots: &[Option<usize>]) -> Vec<Row> {
    let mut rows = Vec::new();
    for b in blocks {
        let (times, columns) = b.canonical();
        let cols: Vec<Vec<Option<Cell>>> = columns
            .iter()
            .map(|c| c.iter().map(|v| v.as_ref().map(kernel_cell)).collect())
            .collect();
        rows.extend(widen(&times, &cols, slots));
    }
    rows
}

/// Whether a device whose (one) tag is `tag` passes the query's tag
/// filter: `{"op": "eq" | "neq" | "lt" | "lteq" | "gt" | "gteq", "value"}`
/// or `{"op": "between" | "not_between", "lower", "upper"}` (inclusive),
/// tags compared as byte strings.
fn tag_passes(filter: &Json, tag: &str) -> bool {
    let s = |k: &str| filter[k].as_str().unwrap_or_default().as_bytes();
    let v = tag.as_bytes();
    match filter["op"].as_str().unwrap_or_default() {
        "eq" => v == s("value"),
        "neq" => v != s("value"),
        "lt" => v < s("value"),
        "lteq" => v <= s("value"),
        "gt" => v > s("value"),
        "gteq" => v >= s("value"),
        "between" => s("lower") <= v && v <= s("upper"),
        "not_between" => !(s("lower") <= v && v <= s("upper")),
        other => panic!("unknown tag filter op {other}"),
    }
}

/// Scan `path` for every query of `queries_json` and compare.
pub fn verify_queries(path: &Path, queries_json: &str) -> Result<QueriesVerified, String> {
    let doc: Json = serde_json::from_str(queries_json).map_err(|e| format!("bad JSON: {e}"))?;
    let table = doc["table"].as_str().ok_or("no table")?;
    let types = doc["columns"].as_object().ok_or("no columns")?;
    let mut reader = TsFileReader::open(path).map_err(|e| e.to_string())?;
    let meta = reader.metadata().map_err(|e| e.to_string())?;
    let mut devices: Vec<(String, AlignedDevice)> = Vec::new();
    for (id, series) in &meta.devices {
        let name = id.to_string();
        let in_table = name.split('.').next() == Some(table);
        if in_table && series.iter().any(|s| s.is_aligned_time()) {
            devices.push((name, reader.aligned_device(id).map_err(|e| e.to_string())?));
        }
    }
    devices.sort_by(|a, b| a.0.cmp(&b.0));
    if devices.is_empty() {
        return Err(format!("no aligned device of table {table}"));
    }
    let mut seen = QueriesVerified::default();
    let queries = doc["queries"].as_array().ok_or("no queries")?;
    for (qi, q) in queries.iter().enumerate() {
        let what = |msg: String| format!("{}: query {qi} ({}): {msg}", path.display(), q["kind"]);
        let names: Vec<&str> = q["columns"]
            .as_array()
            .ok_or("no columns")?
            .iter()
            .map(|c| c.as_str().unwrap_or_default())
            .collect();
        let (start, end) = (
            q["start"].as_i64().ok_or("no start")?,
            q["end"].as_i64().ok_or("no end")?,
        );
        let mut offset_left = q["offset"].as_u64().unwrap_or(0);
        let mut limit_left = q["limit"].as_u64();
        // Vary the block size over the queries.
        let block_rows = [1usize, 5, 4096][qi % 3];
        let mut answer_order = Vec::new();
        for (name, layout) in &devices {
            // A tag filter drops whole devices, before offset and limit.
            let tag = name.split_once('.').map_or("", |(_, tag)| tag);
            if !q.get("tag").is_none_or(|filter| tag_passes(filter, tag)) {
                continue;
            }
            // The device's positions of the requested columns (none: a
            // column it has no chunk of, all null).
            let positions: Vec<Option<usize>> = names
                .iter()
                .map(|n| layout.columns.iter().position(|c| c.name == *n))
                .collect();
            let columns: Vec<usize> = positions.iter().flatten().copied().collect();
            let mut slots = Vec::new();
            let mut next = 0;
            for p in &positions {
                slots.push(p.map(|_| {
                    next += 1;
                    next - 1
                }));
            }
            let kq = |offset, limit| k::Request {
                filter: k::Filter {
                    time: Some(k::TimeFilter::Between(start, end)),
                    field: None,
                },
                offset,
                limit,
                columns: columns.clone(),
                block_rows,
                // The official answers come from the C++ library's files.
                writer: k::Writer::Cpp,
            };
            // How many rows of the window the device has (the kernel's
            // count; the scans below are compared with the official answer).
            let all = reader
                .scan_aligned(layout, &kq(0, None), k::ScanOptions::default())
                .map_err(|e| what(e.to_string()))?;
            let dropped = offset_left.min(all.rows);
            offset_left -= dropped;
            let limit = limit_left.map(|l| l.min(all.rows - dropped));
            let rq = r::Request {
                filter: r::Filter {
                    time: Some(r::TimeFilter::Between(start, end)),
                    field: None,
                },
                offset: dropped,
                limit,
                columns: columns.clone(),
                block_rows,
                writer: r::Writer::Cpp,
            };
            let by_reference = reader
                .scan_aligned_reference(layout, &rq)
                .map_err(|e| what(e.to_string()))?;
            let got = reference_rows(&by_reference.blocks, &slots);
            for options in [k::ScanOptions::default(), k::ScanOptions::baseline()] {
                let by_kernel = reader
                    .scan_aligned(layout, &kq(dropped, limit), options)
                    .map_err(|e| what(e.to_string()))?;
                let kernel = kernel_rows(&by_kernel.blocks, &slots);
                if kernel != got {
                    return Err(what(format!(
                        "{name}: kernel {options:?} and reference differ:\n kernel    {kernel:?}\n reference {got:?}"
                    )));
                }
                seen.groups_pruned += by_kernel.stats.groups_pruned;
                seen.pages_offset_skipped += by_kernel.stats.pages.pages_offset_skipped;
            }
            limit_left = limit_left.map(|l| l - got.len() as u64);
            let expected: Vec<Row> = match q["devices"].get(name) {
                None => Vec::new(),
                Some(rows) => rows
                    .as_array()
                    .ok_or("rows not a list")?
                    .iter()
                    .map(|row| {
                        let row = row.as_array().ok_or("row not a list")?;
                        let t = row[0].as_i64().ok_or("time not an integer")?;
                        let cells = names
                            .iter()
                            .zip(&row[1..])
                            .map(|(n, v)| cell_of(types[*n].as_u64().unwrap_or(99), v))
                            .collect::<Result<_, String>>()?;
                        Ok((t, cells))
                    })
                    .collect::<Result<_, String>>()
                    .map_err(what)?,
            };
            if got != expected {
                return Err(what(format!(
                    "{name}: the scan and the official answer differ:\n scan     {got:?}\n official {expected:?}"
                )));
            }
            if !got.is_empty() {
                answer_order.push(Json::String(name.clone()));
            }
            seen.rows += got.len();
        }
        if q["order"].as_array() != Some(&answer_order) {
            return Err(what(format!(
                "devices answered in order {answer_order:?}, the official reader {}",
                q["order"]
            )));
        }
        seen.official_wrong += usize::from(q.get("official").is_some());
        seen.tag_filtered += usize::from(q.get("tag").is_some());
        seen.queries += 1;
    }
    Ok(seen)
}
