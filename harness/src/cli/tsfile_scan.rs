//! `crossdec tsfile FILE --filter '<text>'`: scan a real file's aligned
//! devices (every table-model device) under a filter with the reference
//! aligned scanner and with each kernel variant (planned, baseline),
//! compare the rows, and print what the kernel's page plan did. A
//! disagreement is narrowed to the first chunk group that shows it, which is
//! written out as a `tsfile-aligned` input with the command that checks it
//! again.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crossdec_kernels::tsfile::aligned as k;
use crossdec_tsfile::{
    AlignedDevice, AlignedGroup, DeviceId, DeviceScan, Filter, ReadError, ReadOptions, TsFileReader,
};

use crate::families::tsfile_aligned::{
    self as family, filter_of_text, kernel_request, reference_request, AlignedInput, Block, Request, ValueChunk,
    KERNELS,
};

/// What to scan and how.
#[derive(Debug, Clone)]
pub struct ScanArgs {
    pub filter: String,
    /// Devices by name (`table.tag...` as the index spells them); empty:
    /// every aligned device.
    pub devices: Vec<String>,
    /// Columns by name; empty: every column the scanners read.
    pub columns: Vec<String>,
    pub offset: u64,
    pub limit: Option<u64>,
    pub block_rows: u64,
    /// Rows to print per device.
    pub print_rows: usize,
    /// Scans per implementation; the time reported is their median (each
    /// scan reads the device's chunks from the file again).
    pub repeat: usize,
    pub read: ReadOptions,
    /// Whose layouts the files hold where the writers differ:
    /// `family::WRITER_CPP` or `family::WRITER_JAVA`.
    pub writer: u8,
    pub repro_dir: PathBuf,
}

/// One device's scan, by every implementation.
#[derive(Debug, Clone, Default)]
pub struct DeviceReport {
    pub file: PathBuf,
    pub device: String,
    pub columns: Vec<String>,
    /// Columns left out: not readable by the scanners (name, why).
    pub left_out: Vec<(String, String)>,
    pub filter: String,
    pub rows: u64,
    /// (implementation, milliseconds) of the whole device.
    pub timings: Vec<(String, f64)>,
    /// The planned kernel's view of the groups and pages.
    pub stats: crossdec_tsfile::DeviceStats,
    /// Reproducers of disagreements (one per implementation at most).
    pub disagreements: Vec<String>,
    /// The first rows (time, then cells as text).
    pub sample: Vec<String>,
}

impl DeviceReport {
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}  device {}", self.file.display(), self.device);
        let _ = writeln!(s, "  columns: {}", self.columns.join(", "));
        for (name, why) in &self.left_out {
            let _ = writeln!(s, "  left out: {name} ({why})");
        }
        let shown = if self.filter.is_empty() { "(none)" } else { &self.filter };
        let _ = writeln!(s, "  filter:  {shown}");
        let st = &self.stats;
        let _ = writeln!(
            s,
            "  chunk groups: {} (pruned by statistics {}, counted for the offset {}, past the limit {})",
            st.groups, st.groups_pruned, st.groups_counted, st.groups_not_reached
        );
        let p = &st.pages;
        let _ = writeln!(
            s,
            "  pages: skipped {} (by the FIELD filter {}), dropped by the offset {}, full pass {} (decoded in place {}), boundary bulk-copied {}, boundary row by row {}, not reached {}",
            p.pages_skipped,
            p.skipped_by_value_statistics,
            p.pages_offset_skipped,
            p.pages_full_pass,
            p.pages_in_place,
            p.boundary_bulk,
            p.boundary_row_by_row,
            p.pages_not_reached
        );
        let timings: Vec<String> = self.timings.iter().map(|(n, ms)| format!("{n} {ms:.2} ms")).collect();
        let _ = writeln!(s, "  rows: {}  ({})", self.rows, timings.join(", "));
        for row in &self.sample {
            let _ = writeln!(s, "    {row}");
        }
        if self.disagreements.is_empty() {
            let _ = writeln!(s, "  every implementation agreed");
        }
        for d in &self.disagreements {
            let _ = writeln!(s, "  DISAGREEMENT {d}");
        }
        s
    }
}

/// The canonical request of a scan over `columns` (positions in the
/// device's columns; `None`: a position past `u32`).
fn request(args: &ScanArgs, filter: &Filter, columns: &[usize]) -> Option<Request> {
    let (time, field) = filter_of_text(filter)?;
    Some(Request {
        time,
        field,
        offset: args.offset,
        limit: args.limit,
        columns: columns.iter().map(|&c| u32::try_from(c).ok()).collect::<Option<_>>()?,
        block_rows: args.block_rows,
    })
}

/// One group, a request and the writer as the family's input (the
/// reproducer form).
pub fn group_input(group: &AlignedGroup, request: &Request, writer: u8) -> AlignedInput {
    let stored = |c: &crossdec_tsfile::RawChunk| (c.header.compression_id, !c.header.single_page());
    let mut storage = vec![stored(&group.time)];
    storage.extend(group.values.iter().map(|c| c.as_ref().map_or((0, true), stored)));
    AlignedInput {
        time_encoding: group.time.header.encoding_id,
        time: group.time.data.clone(),
        values: group
            .values
            .iter()
            .map(|c| {
                c.as_ref().map(|c| ValueChunk {
                    data_type: c.header.data_type_id,
                    encoding: c.header.encoding_id,
                    data: c.data.clone(),
                })
            })
            .collect(),
        request: request.clone(),
        storage: Some(storage),
        writer,
    }
}

fn cell_text(c: &Option<family::Cell>) -> String {
    use family::Cell::*;
    match c {
        None => "null".into(),
        Some(Bool(b)) => b.to_string(),
        Some(I32(v)) => v.to_string(),
        Some(I64(v)) => v.to_string(),
        Some(F32(b)) => f32::from_bits(*b).to_string(),
        Some(F64(b)) => f64::from_bits(*b).to_string(),
        Some(Bytes(b)) => match std::str::from_utf8(b) {
            Ok(s) => format!("{s:?}"),
            Err(_) => format!("X'{}'", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
        },
    }
}

type Rows = Vec<(i64, Vec<Option<family::Cell>>)>;

fn rows_of(blocks: &[Block]) -> Rows {
    let mut rows = Vec::new();
    for b in blocks {
        for (i, &t) in b.times.iter().enumerate() {
            rows.push((t, b.columns.iter().map(|c| c[i].clone()).collect()));
        }
    }
    rows
}

/// Scan one device with every implementation.
fn scan_device<R: std::io::Read + std::io::Seek>(
    file: &Path,
    reader: &mut TsFileReader<R>,
    device: &DeviceId,
    args: &ScanArgs,
) -> Result<DeviceReport, String> {
    let fail = |e: ReadError| format!("{}: device {device}: {e}", file.display());
    let layout: AlignedDevice = reader.aligned_device(device).map_err(fail)?;
    let filter = Filter::parse(&args.filter, &layout.columns).map_err(|e| format!("--filter: {e}"))?;
    let mut report = DeviceReport {
        file: file.to_path_buf(),
        device: device.to_string(),
        filter: filter.render(&layout.columns),
        ..DeviceReport::default()
    };
    // Columns: the ones asked for, or every one the scanners read (each
    // column's first chunk is checked).
    let mut columns = Vec::new();
    if args.columns.is_empty() {
        for (c, col) in layout.columns.iter().enumerate() {
            match reader.aligned_column_readable(&layout, c) {
                Ok(()) => columns.push(c),
                Err(e @ ReadError::Unsupported { .. }) => report.left_out.push((col.name.clone(), e.to_string())),
                Err(e) => return Err(fail(e)),
            }
        }
    } else {
        for name in &args.columns {
            let c = layout
                .columns
                .iter()
                .position(|c| &c.name == name)
                .ok_or_else(|| format!("--columns: device {device} has no column `{name}`"))?;
            columns.push(c);
        }
    }
    report.columns = columns.iter().map(|&c| layout.columns[c].name.clone()).collect();
    let q = request(args, &filter, &columns).ok_or("the request does not fit the family's sizes")?;
    let rq = reference_request(&q, args.writer).ok_or("the request does not fit this host's sizes")?;
    let (expected, ms) = timed(args.repeat, |_| reader.scan_aligned_reference(&layout, &rq));
    let expected = expected.map_err(fail)?;
    report.timings.push(("reference".into(), ms));
    let expected_rows = rows_of(&expected.blocks.iter().map(Block::from_reference).collect::<Vec<_>>());
    report.rows = expected.rows;
    report.sample = expected_rows
        .iter()
        .take(args.print_rows)
        .map(|(t, cells)| {
            let cells: Vec<String> = cells.iter().map(cell_text).collect();
            format!("{t}  {}", cells.join("  "))
        })
        .collect();
    let kq = kernel_request(&q, args.writer).ok_or("the request does not fit this host's sizes")?;
    for (name, options) in KERNELS {
        // Each repetition fills the blocks the one before handed back, as a
        // reader that scans again does.
        let mut pool = k::BlockPool::new();
        let (got, ms) = timed(args.repeat, |previous: Option<Result<DeviceScan<k::Block>, _>>| {
            if let Some(Ok(scan)) = previous {
                pool.recycle(scan.blocks);
            }
            reader.scan_aligned_reusing(&layout, &kq, options(), &mut pool)
        });
        report.timings.push((name.to_string(), ms));
        let agrees = match &got {
            Ok(scan) => {
                if name == KERNELS[0].0 {
                    report.stats = scan.stats.clone();
                }
                let blocks: Vec<Block> = scan.blocks.iter().map(Block::from_kernel).collect();
                rows_of(&blocks) == expected_rows
            }
            Err(_) => false,
        };
        if !agrees {
            let repro = narrow(reader, &layout, &q, options(), name, args).map_err(fail)?;
            report.disagreements.push(match got {
                Ok(_) => repro,
                Err(e) => format!("{name} failed where the reference did not: {e}; {repro}"),
            });
        }
    }
    Ok(report)
}

/// Run `scan` `repeat` times (at least once), each run given the one
/// before's result to reuse: the last result and the median time in
/// milliseconds.
fn timed<T>(repeat: usize, mut scan: impl FnMut(Option<T>) -> T) -> (T, f64) {
    let mut times = Vec::new();
    let mut result = None;
    loop {
        let start = Instant::now();
        let this = scan(result.take());
        result = Some(this);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        if times.len() >= repeat {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    (result.expect("at least one run"), times[times.len() / 2])
}

/// The first group whose scan (the device's filter, no offset or limit)
/// differs between the reference and `name`, written as a reproducer.
fn narrow<R: std::io::Read + std::io::Seek>(
    reader: &mut TsFileReader<R>,
    layout: &AlignedDevice,
    q: &Request,
    options: k::ScanOptions,
    name: &str,
    args: &ScanArgs,
) -> Result<String, ReadError> {
    let per_group = Request {
        offset: 0,
        limit: None,
        ..q.clone()
    };
    let mut involved: Vec<usize> = q.columns.iter().map(|&c| c as usize).collect();
    involved.extend(q.field.as_ref().map(|f| f.column as usize));
    for g in 0..layout.groups.len() {
        let group = reader.read_group(layout, g, &involved)?;
        let input = group_input(&group, &per_group, args.writer);
        let expected = family::reference_scan(&input);
        let got = family::kernel_scan(&input, options);
        if expected != got {
            let _ = std::fs::create_dir_all(&args.repro_dir);
            let path = args
                .repro_dir
                .join(format!("tsfile-aligned-{}-group{g}.bin", name.replace('/', "-")));
            return Ok(match std::fs::write(&path, family::canonical_input(&input)) {
                Ok(()) => format!(
                    "{name}: chunk group {g} differs; check it with `crossdec check --family tsfile-aligned --file {}`",
                    path.display()
                ),
                Err(e) => format!(
                    "{name}: chunk group {g} differs (could not write {}: {e})",
                    path.display()
                ),
            });
        }
    }
    Ok(format!(
        "{name}: rows differ only across chunk groups (offset / limit); every group agrees alone"
    ))
}

/// Scan every selected aligned device of every file.
pub fn scan_files(files: &[PathBuf], args: &ScanArgs) -> Result<Vec<DeviceReport>, String> {
    let mut reports = Vec::new();
    for file in files {
        let input = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut reader = TsFileReader::new(std::io::BufReader::new(input), args.read)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let meta = reader
            .metadata()
            .map_err(|e| format!("{}: the index cannot be read: {e}", file.display()))?;
        let devices: Vec<DeviceId> = meta
            .devices
            .iter()
            .filter(|(d, series)| {
                series.iter().any(|s| s.is_aligned_time())
                    && (args.devices.is_empty() || args.devices.contains(&d.to_string()))
            })
            .map(|(d, _)| d.clone())
            .collect();
        for name in &args.devices {
            if !meta.devices.iter().any(|(d, _)| &d.to_string() == name) {
                return Err(format!("{}: no device `{name}`", file.display()));
            }
        }
        for device in devices {
            reports.push(scan_device(file, &mut reader, &device, args)?);
        }
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tsfile/tests/fixtures")
            .join(name)
    }

    fn args(filter: &str) -> ScanArgs {
        ScanArgs {
            filter: filter.into(),
            devices: Vec::new(),
            columns: Vec::new(),
            offset: 0,
            limit: None,
            block_rows: 16,
            print_rows: 3,
            repeat: 1,
            read: ReadOptions::default(),
            writer: family::WRITER_CPP,
            repro_dir: std::env::temp_dir().join("crossdec-tsfile-scan-test"),
        }
    }

    #[test]
    fn every_aligned_device_scans_alike_and_reports_its_plan() {
        let file = fixture("gen-11-003.tsfile");
        let everything = scan_files(std::slice::from_ref(&file), &args("")).unwrap();
        assert_eq!(everything.len(), 2, "two aligned devices");
        for r in &everything {
            assert!(r.disagreements.is_empty(), "{}", r.text());
            // Every column, RLBE FLOAT (f3) and SPRINTZ INT32 (f5) included.
            assert_eq!(r.columns, ["f0", "f1", "f2", "f3", "f4", "f5"], "{}", r.text());
            assert!(r.left_out.is_empty(), "{}", r.text());
            assert!(r.rows > 100 && r.sample.len() == 3, "{}", r.text());
            assert_eq!(r.timings.len(), 3);
        }
        // A window and a column predicate: fewer rows, as many as the
        // reference finds, the text shows the filter as read.
        let mut narrow = args("time > 687759290627 and f1 = false and time <= 687759390627");
        narrow.devices = vec!["tb.dev0".into()];
        narrow.columns = vec!["f2".into(), "f1".into()];
        narrow.limit = Some(7);
        let r = &scan_files(std::slice::from_ref(&file), &narrow).unwrap()[0];
        assert!(r.disagreements.is_empty());
        assert_eq!(r.columns, ["f2", "f1"]);
        assert_eq!(r.rows, 7);
        assert_eq!(r.filter, "time > 687759290627 and time <= 687759390627 and f1 = false");
        assert!(r.text().contains("every implementation agreed"));
        // A bad filter or name is an error, not a scan.
        assert!(scan_files(std::slice::from_ref(&file), &args("f9 > 1"))
            .unwrap_err()
            .contains("f9"));
        let mut unknown = args("");
        unknown.devices = vec!["tb.nope".into()];
        assert!(scan_files(&[file], &unknown)
            .unwrap_err()
            .contains("no device `tb.nope`"));
    }

    #[test]
    fn a_group_written_as_a_reproducer_scans_as_the_device_does() {
        let file = fixture("gen-11-003.tsfile");
        let mut reader = TsFileReader::open(&file).unwrap();
        let device = reader.metadata().unwrap().devices[0].0.clone();
        let layout = reader.aligned_device(&device).unwrap();
        let filter = Filter::parse("time >= 687759290627 and f2 is not null", &layout.columns).unwrap();
        let q = request(&args(""), &filter, &[0, 1, 2, 3, 4, 5]).unwrap();
        let group = reader.read_group(&layout, 0, &[0, 1, 2, 3, 4, 5]).unwrap();
        let input = group_input(&group, &q, family::WRITER_CPP);
        let bytes = family::canonical_input(&input);
        assert_eq!(
            <AlignedInput as crate::engine::Parse>::parse(&bytes),
            Some(input.clone())
        );
        let from_file = reader
            .scan_aligned_reference(&layout, &reference_request(&q, family::WRITER_CPP).unwrap())
            .unwrap();
        let scanned = family::reference_scan(&input).unwrap();
        let want: Vec<Block> = from_file.blocks.iter().map(Block::from_reference).collect();
        assert!(!want.is_empty());
        assert_eq!(scanned.blocks, want);
        assert_eq!(
            family::kernel_scan(&input, k::ScanOptions::default()).unwrap().blocks,
            want
        );
    }
}
