//! `crossdec tsfile FILE...`: read real TsFiles with the streaming reader
//! (`crossdec-tsfile`), decode every page's time and value columns with the
//! reference and with every kernel this CPU runs, and compare them. Prints a
//! summary per encoding and type; a disagreement is written out as the
//! family's canonical input, with the command that checks it again.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crossdec_tsfile::{
    ChunkKind, Count, DataType as FileType, EncodedPage, Encoding as FileEncoding, Limits, PageBody, PageDecoder,
    PageFault, ReadOptions, Reference, TsFileReader, Writer,
};

use crate::engine::Canonical;
use crate::families::tsfile::{self, DataType, Encoding, StopMode, TsFault, TsInput, TsValue};

/// A decoder of one family's pages other than the reference: a registry
/// kernel by name, or (in tests) a stand-in.
pub type KernelDecode = Box<dyn Fn(&TsInput) -> Result<TsValue, TsFault>>;

/// What to check the files with.
pub struct Options {
    pub read: ReadOptions,
    /// Which writer's layout to assume where the writers differ.
    pub writer: Writer,
    /// Where disagreeing pages are written.
    pub repro_dir: PathBuf,
    /// The kernels to compare, per family encoding; `None`: every registry
    /// kernel this CPU runs.
    pub kernels: Option<Vec<(Encoding, String, KernelDecode)>>,
}

impl Options {
    pub fn new(repro_dir: PathBuf) -> Self {
        Options {
            read: ReadOptions::default(),
            writer: Writer::default(),
            repro_dir,
            kernels: None,
        }
    }
}

/// Totals for one encoding and data type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub pages: u64,
    pub values: u64,
    pub bytes: u64,
    /// Decoders that ran on these pages.
    pub decoders: std::collections::BTreeSet<String>,
}

/// What the check found.
#[derive(Debug, Default)]
pub struct Report {
    /// (column, encoding, data type) -> totals; column is "time" or "value".
    pub tallies: BTreeMap<(String, String, String), Tally>,
    /// Disagreements, each with its reproducer.
    pub disagreements: Vec<String>,
    /// Chunks or pages nothing could read, and why.
    pub unreadable: Vec<String>,
    pub files: usize,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.disagreements.is_empty() && self.unreadable.is_empty()
    }

    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<6} {:<12} {:<10} {:>8} {:>12} {:>12}  decoders",
            "column", "encoding", "type", "pages", "values", "bytes"
        );
        for ((column, encoding, dtype), t) in &self.tallies {
            let decoders: Vec<&str> = t.decoders.iter().map(String::as_str).collect();
            let _ = writeln!(
                s,
                "{column:<6} {encoding:<12} {dtype:<10} {:>8} {:>12} {:>12}  {}",
                t.pages,
                t.values,
                t.bytes,
                decoders.join(", ")
            );
        }
        let _ = writeln!(
            s,
            "{} files: {} disagreements, {} unreadable",
            self.files,
            self.disagreements.len(),
            self.unreadable.len()
        );
        s
    }
}

/// The family types of a file type.
fn family_type(t: FileType) -> Option<DataType> {
    Some(match t {
        FileType::Boolean => DataType::Boolean,
        FileType::Int32 | FileType::Date => DataType::Int32,
        FileType::Int64 | FileType::Timestamp => DataType::Int64,
        FileType::Float => DataType::Float,
        FileType::Double => DataType::Double,
        FileType::Text | FileType::String | FileType::Blob => DataType::Text,
        FileType::Vector => return None,
    })
}

fn every_kernel() -> Vec<(Encoding, String, KernelDecode)> {
    let mut out: Vec<(Encoding, String, KernelDecode)> = Vec::new();
    for encoding in Encoding::ALL {
        for (name, available) in tsfile::kernel_names(encoding) {
            if available {
                out.push((
                    encoding,
                    name.to_string(),
                    Box::new(move |input: &TsInput| tsfile::decode_with(encoding, name, input)),
                ));
            }
        }
    }
    out
}

struct Checker<'a> {
    options: &'a Options,
    kernels: &'a [(Encoding, String, KernelDecode)],
    reference: Reference,
    report: Report,
}

/// Where a page is, for reports.
struct At<'a> {
    file: &'a Path,
    series: String,
    page_offset: u64,
    column: &'static str,
}

impl Checker<'_> {
    /// Decode one column of a page: the reader's reference for the count
    /// and the values, then, for an encoding with kernels, the harness's
    /// reference and every kernel on the same input, compared.
    fn column(
        &mut self,
        at: &At<'_>,
        encoding: FileEncoding,
        data_type: FileType,
        bytes: &[u8],
        count: Count,
    ) -> Option<usize> {
        let page = EncodedPage {
            encoding,
            data_type,
            bytes,
            count,
        };
        let decoded = self
            .reference
            .decode(&page)
            .and_then(|d| crossdec_tsfile::decode::check(&page, d));
        let key = (
            at.column.to_string(),
            encoding.name().to_string(),
            data_type.name().to_string(),
        );
        let tally = self.report.tallies.entry(key).or_default();
        tally.pages += 1;
        tally.bytes += bytes.len() as u64;
        tally.decoders.insert("reference".into());
        let values = match decoded {
            Ok(v) => v,
            Err(fault) => {
                // A page of more values than --max-page-values: say which
                // option refused it.
                let limit = match (&fault, count) {
                    (
                        PageFault::Reference(crossdec_reference::tsfile::DecodeError::TooManyValues { .. })
                        | PageFault::Kernel(crossdec_kernels::tsfile::DecodeError::TooManyValues { .. }),
                        Count::AtMost(max),
                    ) => format!(" (the limit --max-page-values = {max}; raise it to read this page)"),
                    _ => String::new(),
                };
                self.report.unreadable.push(format!(
                    "{}: {} {} page at byte {} ({encoding} {data_type}): {fault}{limit}",
                    at.file.display(),
                    at.series,
                    at.column,
                    at.page_offset
                ));
                return None;
            }
        };
        let n = values.len();
        tally.values += n as u64;
        if let (FileEncoding::Gorilla, Count::Exactly(_)) = (encoding, count) {
            // The classic reader's way must agree on real pages: up to the
            // terminator (unless a value equals it), then the flush byte,
            // which ends the page.
            let classic = EncodedPage {
                count: Count::AtMost(n),
                ..page
            };
            let agrees = match self.reference.decode(&classic) {
                Ok(d) => holds_terminator(&values) || (d.values.same_bits(&values) && d.consumed == bytes.len()),
                Err(_) => holds_terminator(&values),
            };
            if !agrees {
                self.report.unreadable.push(format!(
                    "{}: {} {} page at byte {}: GORILLA read to its terminator gives other values or ends elsewhere",
                    at.file.display(),
                    at.series,
                    at.column,
                    at.page_offset
                ));
            }
        }
        let (Some(family_encoding), Some(dtype)) = (Encoding::from_id(encoding.id()), family_type(data_type)) else {
            return Some(n);
        };
        if !family_encoding.types().contains(&dtype) {
            return Some(n);
        }
        let input = TsInput {
            encoding: family_encoding,
            dtype,
            stop: match count {
                Count::Exactly(_) => StopMode::Count(n as u32),
                Count::AtMost(_) => StopMode::AtTerminator,
            },
            writer: match self.reference.writer {
                Writer::Cpp if tsfile::Writer::matters(family_encoding, dtype) => tsfile::Writer::Cpp,
                _ => tsfile::Writer::Java,
            },
            max_values: n as u32,
            page: bytes.to_vec(),
        };
        let expected = tsfile::reference_decode(&input);
        let mut ran = Vec::new();
        let mut verdicts = Vec::new();
        // PLAIN's BOOLEAN / INT32 / FLOAT / TEXT and RLE's BOOLEAN have one
        // kernel each whatever the registry entry: run (and name) it once.
        let one_kernel = matches!(
            (family_encoding, dtype),
            (
                Encoding::Plain,
                DataType::Boolean | DataType::Int32 | DataType::Float | DataType::Text
            ) | (Encoding::Rle, DataType::Boolean)
        );
        let mut mine: Vec<_> = self.kernels.iter().filter(|k| k.0 == family_encoding).collect();
        if one_kernel && mine.len() > 1 {
            mine.drain(..mine.len() - 1);
        }
        for (_, name, decode) in mine {
            ran.push(name.clone());
            let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode(&input)));
            match &got {
                Ok(g) if *g == expected => {}
                Ok(g) => verdicts.push(format!("{name} gave {}, the reference {}", brief(g), brief(&expected))),
                Err(_) => verdicts.push(format!("{name} panicked (the reference gave {})", brief(&expected))),
            }
        }
        tally.decoders.extend(ran);
        for verdict in verdicts {
            let repro = self.write_repro(family_encoding, &input, at);
            self.report.disagreements.push(format!(
                "{}: {} {} page at byte {}: {verdict}\n  reproduce: {repro}",
                at.file.display(),
                at.series,
                at.column,
                at.page_offset
            ));
        }
        Some(n)
    }

    fn write_repro(&self, encoding: Encoding, input: &TsInput, at: &At<'_>) -> String {
        let bytes = input.to_canonical();
        let stem = at
            .file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let path = self.options.repro_dir.join(format!(
            "{stem}-{}-{}-{}.bin",
            at.page_offset,
            at.column,
            encoding.family_name()
        ));
        if let Err(e) = std::fs::create_dir_all(&self.options.repro_dir).and_then(|()| std::fs::write(&path, &bytes)) {
            return format!("(could not write {}: {e})", path.display());
        }
        format!(
            "crossdec check --family {} --file {}",
            encoding.family_name(),
            path.display()
        )
    }

    fn file(&mut self, path: &Path) {
        match std::fs::File::open(path) {
            Ok(f) => self.read(path, std::io::BufReader::new(f)),
            Err(e) => {
                self.report.files += 1;
                self.report.unreadable.push(format!("{}: {e}", path.display()));
            }
        }
    }

    fn read<R: std::io::Read + std::io::Seek>(&mut self, path: &Path, input: R) {
        self.report.files += 1;
        let mut reader = match TsFileReader::new(input, self.options.read) {
            Ok(r) => r,
            Err(e) => {
                self.report.unreadable.push(format!("{}: {e}", path.display()));
                return;
            }
        };
        if let Err(e) = reader.metadata() {
            self.report
                .unreadable
                .push(format!("{}: metadata: {e}", path.display()));
        }
        let limits: Limits = self.options.read.limits;
        let time_encoding = self.options.read.time_encoding;
        let max = usize::try_from(limits.max_page_values).unwrap_or(usize::MAX);
        // Rows of the current aligned group's time pages (None: the time
        // page was unreadable, already reported).
        let mut time_rows: Vec<Option<usize>> = Vec::new();
        loop {
            let chunk = match reader.next_chunk() {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(e) => {
                    self.report.unreadable.push(format!("{}: {e}", path.display()));
                    break;
                }
            };
            let series = format!("{}.{}", chunk.device, chunk.header.measurement);
            let unreadable = |e: &dyn std::fmt::Display| format!("{}: {series}: {e}", path.display());
            let pages = match chunk.pages(&limits) {
                Ok(p) => p,
                Err(e) => {
                    self.report.unreadable.push(unreadable(&e));
                    continue;
                }
            };
            let kind = chunk.header.kind();
            let (Some(encoding), Some(data_type)) = (chunk.header.encoding(), chunk.header.data_type()) else {
                self.report.unreadable.push(unreadable(&format!(
                    "encoding {} / data type {} unknown",
                    chunk.header.encoding_id, chunk.header.data_type_id
                )));
                continue;
            };
            if kind == ChunkKind::AlignedTime {
                time_rows.clear();
            }
            for (k, page) in pages.iter().enumerate() {
                let at = |column| At {
                    file: path,
                    series: series.clone(),
                    page_offset: page.offset,
                    column,
                };
                let parts = match page.parts(kind) {
                    Ok(p) => p,
                    Err(e) => {
                        self.report.unreadable.push(unreadable(&e));
                        continue;
                    }
                };
                match parts {
                    PageBody::Times(t) => {
                        let n = self.column(&at("time"), encoding, FileType::Int64, t, Count::AtMost(max));
                        time_rows.push(n);
                    }
                    PageBody::NonAligned { times, values } => {
                        if let Some(n) =
                            self.column(&at("time"), time_encoding, FileType::Int64, times, Count::AtMost(max))
                        {
                            self.column(&at("value"), encoding, data_type, values, Count::Exactly(n));
                        }
                    }
                    PageBody::Values { rows, bitmap, values } => {
                        if time_rows.get(k) == Some(&None) {
                            // Its time page could not be read: reported once, there.
                            continue;
                        }
                        if time_rows.get(k) != Some(&Some(rows)) {
                            self.report.unreadable.push(unreadable(&format!(
                                "value page at byte {} of {rows} rows, its time page {}",
                                page.offset,
                                match time_rows.get(k) {
                                    Some(Some(n)) => format!("of {n} rows"),
                                    _ => "missing".to_string(),
                                }
                            )));
                            continue;
                        }
                        let dense = (0..rows).filter(|&i| PageBody::present(bitmap, i)).count();
                        self.column(&at("value"), encoding, data_type, values, Count::Exactly(dense));
                    }
                    PageBody::AllNull => {}
                }
            }
        }
    }
}

/// Whether a value equals its type's GORILLA terminator (which ends a page
/// early for the classic reader).
fn holds_terminator(values: &crossdec_tsfile::Values) -> bool {
    use crossdec_tsfile::Values as V;
    match values {
        V::Int32(v) => v.contains(&i32::MIN),
        V::Int64(v) => v.contains(&i64::MIN),
        V::Float(v) => v.iter().any(|x| x.to_bits() == 0x7FC0_0000),
        V::Double(v) => v.iter().any(|x| x.to_bits() == 0x7FF8_0000_0000_0000),
        _ => false,
    }
}

fn brief(r: &Result<TsValue, TsFault>) -> String {
    match r {
        Ok(v) => format!("{} values, {} bytes consumed", v.values.len(), v.consumed),
        Err(f) => format!("error {f:?}"),
    }
}

/// Run `check` with a checker of `options` (every registry kernel this CPU
/// runs unless the options name the kernels).
fn with_checker(options: &Options, check: impl FnOnce(&mut Checker<'_>)) -> Report {
    let every;
    let kernels = match &options.kernels {
        Some(k) => k.as_slice(),
        None => {
            every = every_kernel();
            every.as_slice()
        }
    };
    let mut checker = Checker {
        options,
        kernels,
        reference: Reference { writer: options.writer },
        report: Report::default(),
    };
    check(&mut checker);
    checker.report
}

/// Check one file already in memory (`name` is what reports call it).
pub fn check_bytes(name: &str, bytes: &[u8], options: &Options) -> Report {
    with_checker(options, |c| c.read(Path::new(name), std::io::Cursor::new(bytes)))
}

/// Check `paths` (files, or directories searched for `*.tsfile`).
pub fn check_files(paths: &[PathBuf], options: &Options) -> Result<Report, String> {
    let files = tsfile_paths(paths)?;
    Ok(with_checker(options, |c| {
        for f in &files {
            c.file(f);
        }
    }))
}

/// The files `paths` name: files as given, directories' `*.tsfile` sorted.
pub fn tsfile_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        // A path that is not there is the user's mistake, not a file
        // nothing could read: say so with the OS's reason.
        std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|e| e == "tsfile"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    if files.is_empty() {
        return Err("no TsFile given".into());
    }
    Ok(files)
}
