//! `crossdec tsfile` (the streaming reader's pages through the reference and
//! every kernel) and the official library as oracle of the reader: fresh
//! files with every type x encoding x compression the writer accepts, and a
//! page past 2^20 points, every run on x86_64 (the committed fixtures run
//! on every target in the reader crate's own tests).

use std::path::{Path, PathBuf};

use crossdec_harness::cli::tsfile::{check_files, KernelDecode, Options};
use crossdec_harness::engine::Parse;
use crossdec_harness::families::tsfile::{Encoding, TsInput, Values};
use crossdec_harness::families::{self, tsfile};

fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    vec![
        root.join("tsfile/tests/fixtures"),
        root.join("harness/tests/fixtures/tsfile"),
    ]
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crossdec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn every_page_of_the_fixtures_agrees_with_every_kernel() {
    let report = check_files(&fixture_dirs(), &Options::new(scratch("repro-fixtures"))).unwrap();
    assert!(
        report.ok(),
        "{}\n{:?}\n{:?}",
        report.summary(),
        report.disagreements,
        report.unreadable
    );
    // The reader's and the harness's 17 fixtures, the 7 scan fixtures, the
    // C++ SPRINTZ file whose statistics are of the values given, the
    // SPRINTZ extremes the C++ reader reads its own way, and the three
    // statistics fixtures in each directory.
    assert_eq!(report.files, 32);
    let kernels_of = |column: &str, encoding: &str, dtype: &str| {
        report
            .tallies
            .get(&(column.to_string(), encoding.to_string(), dtype.to_string()))
            .unwrap_or_else(|| panic!("no {column} {encoding} {dtype} pages:\n{}", report.summary()))
            .decoders
            .clone()
    };
    // Every registry kernel this CPU runs took part.
    for (name, available) in tsfile::kernel_names(Encoding::Ts2Diff) {
        assert_eq!(
            kernels_of("time", "TS_2DIFF", "INT64").contains(name),
            available,
            "{name}"
        );
    }
    for (name, available) in tsfile::kernel_names(Encoding::Gorilla) {
        assert_eq!(
            kernels_of("value", "GORILLA", "DOUBLE").contains(name),
            available,
            "{name}"
        );
    }
    for (encoding, name, dtype) in [
        (Encoding::Camel, "CAMEL", "DOUBLE"),
        (Encoding::Sprintz, "SPRINTZ", "INT64"),
        (Encoding::Rlbe, "RLBE", "DOUBLE"),
        (Encoding::Chimp, "CHIMP", "DOUBLE"),
        (Encoding::Zigzag, "ZIGZAG", "INT32"),
    ] {
        for (kernel, available) in tsfile::kernel_names(encoding) {
            assert_eq!(kernels_of("value", name, dtype).contains(kernel), available, "{kernel}");
        }
    }
    let summary = report.summary();
    for enc in [
        "DICTIONARY",
        "ZIGZAG",
        "CHIMP",
        "SPRINTZ",
        "RLBE",
        "CAMEL",
        "RLE",
        "PLAIN",
    ] {
        assert!(summary.contains(enc), "{enc} missing from\n{summary}");
    }
}

#[test]
fn a_kernel_that_disagrees_is_reported_with_a_reproducer() {
    // A stand-in for a TS_2DIFF kernel with a bug: the reference's values
    // with the last one off by one.
    let broken: KernelDecode = Box::new(|input: &TsInput| {
        let mut out = tsfile::reference_decode(input);
        if let Ok(v) = &mut out {
            if let Values::Int64(x) = &mut v.values {
                if let Some(last) = x.last_mut() {
                    *last = last.wrapping_add(1);
                }
            }
        }
        out
    });
    let repro_dir = scratch("repro-broken");
    let mut options = Options::new(repro_dir.clone());
    options.kernels = Some(vec![(Encoding::Ts2Diff, "ts2diff/broken".into(), broken)]);
    let file = fixture_dirs()[0].join("matrix-uncompressed.tsfile");
    let report = check_files(&[file], &options).unwrap();
    assert!(!report.ok());
    assert!(report.unreadable.is_empty(), "{:?}", report.unreadable);
    // Every non-aligned page has a TS_2DIFF time column (and the INT32 /
    // INT64 TS_2DIFF series a value column too).
    assert!(report.disagreements.len() >= 8, "{:?}", report.disagreements);
    let first = &report.disagreements[0];
    assert!(first.contains("ts2diff/broken gave"), "{first}");
    let command = first.split("reproduce: ").nth(1).unwrap();
    let path = command.split("--file ").nth(1).unwrap().trim();
    assert!(
        command.starts_with("crossdec check --family tsfile-ts2diff --file "),
        "{command}"
    );
    // The reproducer is the page as the family's input, which the real
    // kernels agree on.
    let bytes = std::fs::read(path).unwrap();
    let input = TsInput::parse(&bytes).expect("a tsfile-ts2diff input");
    assert_eq!(input.encoding, Encoding::Ts2Diff);
    let problems = families::by_name("tsfile-ts2diff").unwrap().check_bytes(&bytes, true);
    assert_eq!(problems, Some(vec![]));
    let _ = std::fs::remove_dir_all(repro_dir);
}

#[cfg(target_arch = "x86_64")]
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CROSSDEC_TSFILE_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    [
        root.join("target/tsfile-venv/bin/python"),
        PathBuf::from("/opt/crossdec-venv/bin/python"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// Every type x encoding pair the official C++ writer accepts (as the
/// tree model stores it; the table model adds DATE, TIMESTAMP, STRING and
/// BLOB under their base type's encodings), and every compression it
/// offers: `ci/tsfile/generate.py --matrix` writes them all each run.
#[cfg(target_arch = "x86_64")]
const PAIRS: &[(&str, &[&str])] = &[
    ("BOOLEAN", &["PLAIN"]),
    (
        "INT32",
        &[
            "PLAIN", "RLE", "TS_2DIFF", "GORILLA", "ZIGZAG", "CHIMP", "SPRINTZ", "RLBE",
        ],
    ),
    (
        "INT64",
        &[
            "PLAIN", "RLE", "TS_2DIFF", "GORILLA", "ZIGZAG", "CHIMP", "SPRINTZ", "RLBE",
        ],
    ),
    ("FLOAT", &["PLAIN", "GORILLA", "TS_2DIFF", "CHIMP", "SPRINTZ", "RLBE"]),
    (
        "DOUBLE",
        &["PLAIN", "GORILLA", "TS_2DIFF", "CHIMP", "SPRINTZ", "RLBE", "CAMEL"],
    ),
    ("TEXT", &["PLAIN", "DICTIONARY"]),
];
#[cfg(target_arch = "x86_64")]
const COMPRESSIONS: &[&str] = &["UNCOMPRESSED", "SNAPPY", "LZ4", "ZSTD", "GZIP", "LZO", "LZMA2"];

/// The official library is the judge of every value: fresh files written
/// by it (random files of every pair and compression, tree and table model,
/// nulls, several chunk groups, series with extremes; the `--matrix` files
/// with every pair under every compression; a page of 1,100,000 points),
/// every value the streaming reader returns with the reference and with the
/// kernels compared bit for bit with what the official reader returned for
/// the same file (`--read-back`; never with what was written, never by
/// count). Then filtered scans against the official reader's answers to
/// the same queries, and every page through every kernel.
#[cfg(target_arch = "x86_64")]
#[test]
fn fresh_files_of_every_encoding_and_a_large_page_match_the_official_reader() {
    use crossdec_tsfile::verify::{verify_file, Verified};
    use crossdec_tsfile::{Fastest, Reference};
    let Some(python) = python() else {
        crossdec_harness::oracles::missing(
            "tsfile_oracle",
            "the tsfile Python environment is missing: run ci/install.d/tsfile.sh (or set \
             CROSSDEC_TSFILE_PYTHON to a python with the `tsfile` package)",
        );
        return;
    };
    let seed: u64 = std::env::var("CROSSDEC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        });
    let dir = scratch(&format!("tsfile-all-{seed}"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ci/tsfile/generate.py");
    let generate = |args: &[&str]| {
        let status = std::process::Command::new(&python)
            .arg(&script)
            .args([
                "--out",
                dir.to_str().unwrap(),
                "--seed",
                &seed.to_string(),
                "--read-back",
                "--official-statistics",
            ])
            .args(args)
            .status()
            .expect("run the generator");
        assert!(status.success(), "generator failed (seed {seed}): {args:?}");
    };
    generate(&[
        "--files",
        "8",
        "--max-rows",
        "1200",
        "--all",
        "--large",
        "1100000",
        "--queries",
        "12",
    ]);
    generate(&["--matrix", "--max-rows", "500", "--queries", "6"]);
    let mut total = Verified::default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tsfile"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 9 + 15, "{files:?}");
    for path in &files {
        let json = std::fs::read_to_string(path.with_extension("tsfile.json")).unwrap();
        let by_reference = verify_file(path, &json, Reference::default)
            .unwrap_or_else(|e| panic!("seed {seed}: {}: {e}", path.display()));
        let fastest = verify_file(path, &json, Fastest::default)
            .unwrap_or_else(|e| panic!("seed {seed}: {}: {e}", path.display()));
        assert_eq!(by_reference, fastest, "seed {seed}: {}", path.display());
        total.add(&by_reference);
    }
    assert!(total.points > 1_100_000, "seed {seed}: {total:?}");
    // The index's statistics of every series, held to the official reader's.
    assert!(
        total.statistics.contains("series statistics from the official reader"),
        "seed {seed}: {:?}",
        total.statistics
    );
    for (dtype, encodings) in PAIRS {
        for encoding in *encodings {
            for compression in COMPRESSIONS {
                let pair = format!("{dtype} {encoding} {compression}");
                assert!(
                    total.by_pair.get(&pair).is_some_and(|&n| n > 0),
                    "seed {seed}: no {pair} values compared with the official reader"
                );
            }
        }
    }
    // Filtered scans of the table-model files, held to the official
    // reader's answers to the same queries.
    let mut queries = 0;
    let mut rows = 0;
    let mut tagged = 0;
    for path in &files {
        let Ok(json) = std::fs::read_to_string(path.with_extension("tsfile.queries.json")) else {
            continue;
        };
        let seen =
            crossdec_tsfile::verify_queries::verify_queries(path, &json).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        queries += seen.queries;
        rows += seen.rows;
        tagged += seen.tag_filtered;
    }
    assert!(queries >= 24 + 8 * 6, "seed {seed}: {queries} queries");
    assert!(tagged > 0, "seed {seed}: no query with a tag filter");
    let large = files
        .iter()
        .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with("large-"))
        .expect("the large page's file");
    large_page_scans(large, seed);
    // And every page through every kernel, as `crossdec tsfile` does.
    let report = check_files(std::slice::from_ref(&dir), &Options::new(dir.join("repro"))).unwrap();
    assert!(
        report.ok(),
        "seed {seed}:\n{}\n{:?}\n{:?}",
        report.summary(),
        report.disagreements,
        report.unreadable
    );
    println!(
        "seed {seed}: {} files, {} series, {} pages, {} points ({} null) equal to the official reader's, \
         {queries} filtered queries ({tagged} with a tag filter; {rows} rows) equal to its answers; per type, encoding, compression:",
        files.len(),
        total.series,
        total.pages,
        total.points,
        total.nulls
    );
    for (pair, n) in &total.by_pair {
        println!("  {pair:40} {n:>9}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A page of 134,218,728 rows (past 2^27 = 134,217,728)
/// that the official writer writes through Arrow and its reader reads: read
/// whole with the default limits, every time and value checked against the
/// writer's formula (the encodings keep every value), and scanned by the
/// aligned kernel scanner with a time window. About 4.5 GB of memory at
/// its peak and a minute: `ci/certify` runs it (`--ignored`), the gate
/// does not.
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore = "a 134,218,728-row page: about 4.5 GB and a minute; ci/certify runs it"]
fn a_page_of_more_than_2_27_rows_reads_with_the_default_limits() {
    use crossdec_kernels::tsfile::aligned as k;
    use crossdec_tsfile::{Fastest, Item, TsFileReader, Values as FileValues};
    let Some(python) = python() else {
        crossdec_harness::oracles::missing("tsfile_oracle", "the tsfile Python environment is missing");
        return;
    };
    const N: usize = 134_218_728;
    let dir = scratch("tsfile-huge");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ci/tsfile/generate.py");
    let status = std::process::Command::new(&python)
        .arg(&script)
        .args(["--out", dir.to_str().unwrap(), "--huge", &N.to_string()])
        .status()
        .expect("run the generator");
    assert!(status.success());
    let path = dir.join("huge.tsfile");
    let time = |k: usize| 1000 + 3 * k as i64;
    let value = |k: usize| (7 * k as i64) % 1_000_003 - 500_000;
    let mut reader = TsFileReader::open(&path).unwrap();
    let mut rows = 0;
    for item in reader.columns(Fastest::default()) {
        match item.unwrap() {
            Item::Column(c) => {
                let FileValues::Int64(v) = &c.values else {
                    panic!("{:?}", c.data_type)
                };
                assert!(c.times.iter().enumerate().all(|(k, &t)| t == time(rows + k)));
                assert!(v.iter().enumerate().all(|(k, &x)| x == value(rows + k)));
                rows += c.times.len();
            }
            Item::Skipped(s) => panic!("{}.{} skipped: {}", s.device, s.measurement, s.reason),
        }
    }
    assert_eq!(rows, N);
    let id = reader
        .metadata()
        .unwrap()
        .devices
        .iter()
        .map(|(id, _)| id.clone())
        .next()
        .unwrap();
    let layout = reader.aligned_device(&id).unwrap();
    let (lo, hi) = (N - 5, N - 1);
    let request = k::Request {
        filter: k::Filter {
            time: Some(k::TimeFilter::Between(time(lo), time(hi))),
            field: None,
        },
        offset: 0,
        limit: None,
        columns: vec![0],
        block_rows: 4096,
        writer: k::Writer::Cpp,
    };
    let scan = reader
        .scan_aligned(&layout, &request, k::ScanOptions::default())
        .unwrap();
    let got: Vec<i64> = scan.blocks.iter().flat_map(|b| b.canonical().0).collect();
    assert_eq!(got, (lo..=hi).map(time).collect::<Vec<_>>());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The aligned scanners, kernel and reference, read the official writer's
/// page of 1,100,000 rows (past 2^20 rows a page),
/// unfiltered and filtered, to the same rows as the streaming reader;
/// `crossdec tsfile --filter` does too, and with `--max-page-values` below
/// the page's rows it refuses the page in one line that names the option.
#[cfg(target_arch = "x86_64")]
fn large_page_scans(path: &Path, seed: u64) {
    use crossdec_kernels::tsfile::aligned as k;
    use crossdec_reference::tsfile::aligned as r;
    use crossdec_tsfile::TsFileReader;
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path.with_extension("tsfile.json")).unwrap()).unwrap();
    let times: Vec<i64> = json["series"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_i64().unwrap())
        .collect();
    assert!(times.len() > 1 << 20, "seed {seed}: {} rows", times.len());
    let mut reader = TsFileReader::open(path).unwrap();
    let id = reader
        .metadata()
        .unwrap()
        .devices
        .iter()
        .find(|(_, series)| series.iter().any(|s| s.is_aligned_time()))
        .map(|(id, _)| id.clone())
        .expect("an aligned device");
    let layout = reader.aligned_device(&id).unwrap();
    let (lo, hi) = (times[times.len() / 3], times[2 * times.len() / 3]);
    for window in [None, Some((lo, hi))] {
        let want: Vec<i64> = times
            .iter()
            .copied()
            .filter(|t| window.is_none_or(|(lo, hi)| (lo..=hi).contains(t)))
            .collect();
        let kq = k::Request {
            filter: k::Filter {
                time: window.map(|(lo, hi)| k::TimeFilter::Between(lo, hi)),
                field: None,
            },
            offset: 0,
            limit: None,
            columns: vec![0],
            block_rows: 4096,
            writer: k::Writer::Cpp,
        };
        let rq = r::Request {
            filter: r::Filter {
                time: window.map(|(lo, hi)| r::TimeFilter::Between(lo, hi)),
                field: None,
            },
            offset: 0,
            limit: None,
            columns: vec![0],
            block_rows: 4096,
            writer: r::Writer::Cpp,
        };
        let kernel = reader
            .scan_aligned(&layout, &kq, k::ScanOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: kernel scan {window:?}: {e}"));
        let got: Vec<i64> = kernel.blocks.iter().flat_map(|b| b.canonical().0).collect();
        assert!(
            got == want,
            "seed {seed}: kernel scan {window:?}: {} rows, {} wanted",
            got.len(),
            want.len()
        );
        let reference = reader
            .scan_aligned_reference(&layout, &rq)
            .unwrap_or_else(|e| panic!("seed {seed}: reference scan {window:?}: {e}"));
        let got: Vec<i64> = reference.blocks.iter().flat_map(|b| b.times.clone()).collect();
        assert!(
            got == want,
            "seed {seed}: reference scan {window:?}: {} rows",
            got.len()
        );
    }
    let crossdec = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_crossdec"))
            .arg("tsfile")
            .arg(path)
            .args(args)
            .output()
            .expect("crossdec runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    let (code, text) = crossdec(&["--filter", &format!("time >= {lo}")]);
    assert_eq!(code, Some(0), "seed {seed}: {text}");
    // The scanners refuse it as the reader does: one line, the limit named.
    let (code, text) = crossdec(&["--filter", &format!("time >= {lo}"), "--max-page-values", "1000000"]);
    assert_ne!(code, Some(0), "seed {seed}: {text}");
    assert!(
        text.contains("above the limit max_page_values = 1000000") && text.trim().lines().count() == 1,
        "seed {seed}: {text}"
    );
    let (code, text) = crossdec(&["--max-page-values", "1000000"]);
    assert_eq!(code, Some(1), "seed {seed}: {text}");
    assert!(
        text.contains("the limit --max-page-values = 1000000") && !text.contains("its time page"),
        "seed {seed}: {text}"
    );
}

/// `crossdec tsfile --filter` reads either writer's layouts and refuses a
/// writer it does not know, naming the ones it does (the scan compares the
/// reference and every kernel either way). Native only: a cross target's
/// `crossdec` binary needs its emulator to start.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_filtered_scan_takes_either_writer_and_refuses_others() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tsfile/tests/fixtures/scan-uncompressed-0.tsfile");
    let scan = |writer: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_crossdec"))
            .arg("tsfile")
            .arg(&file)
            .args(["--filter", "time >= 0", "--writer", writer])
            .output()
            .expect("crossdec runs")
    };
    for writer in ["cpp", "java"] {
        let out = scan(writer);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "--writer {writer}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("every implementation agreed"),
            "--writer {writer}: {stdout}"
        );
    }
    let out = scan("go");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cpp") && stderr.contains("java"), "{stderr}");
}
