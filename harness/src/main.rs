//! `crossdec`: run differential campaigns, check single inputs, gate
//! cross-architecture runs.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use crossdec_harness::families;

use crossdec_harness::cli::gate::{self, GateArgs};
use crossdec_harness::cli::junit::JunitArgs;
use crossdec_harness::cli::run::RunArgs;
use crossdec_harness::cli::subjects::SubjectArgs;

#[derive(Parser)]
#[command(
    name = "crossdec",
    version,
    about = "Prove optimized decoders agree with their reference, on every architecture"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// `--writer`: whose layouts to read where the official writers' differ.
#[derive(Clone, Copy, ValueEnum)]
enum WriterArg {
    /// The C++ library (PyPI `tsfile`, the C and Python APIs).
    Cpp,
    /// The Java library (IoTDB, the Java API).
    Java,
}

#[derive(Subcommand)]
enum Command {
    /// Run differential campaigns (every family when no --family is given).
    Run(RunArgs),
    /// Write one JUnit XML file from runs' report.json files and CI stages.
    Junit(JunitArgs),
    /// List families, their categories and implementations.
    List,
    /// Check one canonical input (hex, or a file of its bytes) against every
    /// available implementation.
    Check {
        #[arg(long)]
        family: String,
        #[arg(long, required_unless_present = "file")]
        hex: Option<String>,
        #[arg(long, conflicts_with = "hex")]
        file: Option<PathBuf>,
        #[command(flatten)]
        subjects: SubjectArgs,
    },
    /// Read real TsFiles (files or directories of *.tsfile): decode every
    /// page with the reference and every kernel, compare, print a summary per
    /// encoding; exit 1 on a disagreement (each written out with the command
    /// that reproduces it) or a page nothing could read. With --filter: scan
    /// the aligned devices under the filter with the reference and each
    /// aligned-scanner kernel, compare the rows, print the page plan's
    /// statistics.
    Tsfile {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Where disagreeing pages are written.
        #[arg(long, default_value = "target/crossdec/tsfile-repro")]
        repro_dir: PathBuf,
        /// The writer, where the Java and C++ layouts differ (RLBE floats,
        /// SPRINTZ INT64 / DOUBLE): cpp (the PyPI / C / Python library) or java.
        #[arg(long, value_enum, default_value_t = WriterArg::Cpp)]
        writer: WriterArg,
        /// The time column's encoding in non-aligned chunks (not recorded in
        /// the file): the writer's setting.
        #[arg(long, default_value = "TS_2DIFF")]
        time_encoding: String,
        /// Most values one page may decode to.
        #[arg(long)]
        max_page_values: Option<u64>,
        /// Largest uncompressed page, in bytes.
        #[arg(long)]
        max_page_bytes: Option<u64>,
        /// Scan aligned devices under this filter, e.g.
        /// "time >= 1000 and time < 2000 and s1 > 3.5" ("" for every row;
        /// grammar in docs/tsfile-aligned.md).
        #[arg(long)]
        filter: Option<String>,
        /// With --filter: the devices to scan (as the index names them,
        /// `table.tag`); default every aligned device.
        #[arg(long)]
        device: Vec<String>,
        /// With --filter: the columns, comma-separated; default every column
        /// the scanners read.
        #[arg(long, value_delimiter = ',')]
        columns: Vec<String>,
        /// With --filter: matching rows to drop first.
        #[arg(long, default_value_t = 0)]
        offset: u64,
        /// With --filter: the most rows returned.
        #[arg(long)]
        limit: Option<u64>,
        /// With --filter: rows per output block.
        #[arg(long, default_value_t = 4096)]
        block_rows: u64,
        /// With --filter: rows to print per device.
        #[arg(long, default_value_t = 5)]
        print_rows: usize,
        /// With --filter: scans per implementation; the median time is printed.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
    },
    /// Write a seed corpus for a fuzz target from the family's generators.
    Corpus {
        #[arg(long)]
        family: String,
        #[arg(long)]
        out: PathBuf,
        /// Generator calls per category.
        #[arg(long, default_value_t = 20)]
        cases: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// raw (canonical inputs) or structured (byte strings for the structured target).
        #[arg(long, default_value = "raw")]
        mode: String,
    },
    /// Replay corpus or crash files through the differential engine, without
    /// libFuzzer (on any target, under QEMU or Miri). The fuzz target comes
    /// from --target, else --family (its raw target), else each file's
    /// directory name (`fuzz/corpus/<target>/...`).
    Replay {
        paths: Vec<PathBuf>,
        #[arg(long)]
        target: Option<String>,
        #[arg(long)]
        family: Option<String>,
        #[command(flatten)]
        subjects: SubjectArgs,
    },
    /// Be an external subject (docs/subjects.md) that answers with the
    /// family's reference decoder, on stdin and stdout: the protocol's own
    /// check and example.
    ServeReference {
        #[arg(long)]
        family: String,
    },
    /// List the fuzz targets: name, family, mode, peers.
    FuzzTargets,
    /// Check every family's digests against the committed golden file, or
    /// rewrite it (--update) after an intended change.
    Golden {
        #[arg(long, default_value = "harness/tests/golden.json")]
        file: PathBuf,
        #[arg(long)]
        update: bool,
    },
    /// Compare manifests from different targets; fail unless they agree.
    Gate(GateArgs),
    /// Write a release certificate (JSON, Markdown, JUnit XML, SVG) from a
    /// certification run's manifests, fuzz report, mutation summary, bug
    /// zoo and performance targets, with this build's golden check; exit 1
    /// unless everything passed.
    Certify(crossdec_harness::cli::certify::CertifyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Run(RunArgs::defaults())) {
        Command::Run(args) => match crossdec_harness::cli::run::run(&args) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(problem) => {
                eprintln!("crossdec run: {problem}");
                ExitCode::from(2)
            }
        },
        Command::Junit(args) => match crossdec_harness::cli::junit::junit(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(problem) => {
                eprintln!("crossdec junit: {problem}");
                ExitCode::from(2)
            }
        },
        Command::List => {
            for f in families::all() {
                println!("{}", f.name());
                println!("  categories: {}", f.category_names().join(", "));
                for i in f.implementation_list() {
                    let role = format!("{:?}", i.role).to_lowercase();
                    println!(
                        "  {:<24} {role:<6} {}",
                        i.name,
                        if i.available { "available" } else { "not available here" }
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Command::Check {
            family,
            hex,
            file,
            subjects,
        } => {
            let Some(mut f) = families::by_name(&family) else {
                eprintln!("no family {family}");
                return ExitCode::from(2);
            };
            if let Err(problem) = subjects.attach(std::iter::once(&mut f)) {
                eprintln!("crossdec check: {problem}");
                return ExitCode::from(2);
            }
            let bytes = match (hex, file) {
                (Some(hex), _) => match hex::decode(hex.trim()) {
                    Ok(b) => b,
                    Err(_) => {
                        eprintln!("--hex is not hex");
                        return ExitCode::from(2);
                    }
                },
                (None, Some(path)) => match std::fs::read(&path) {
                    Ok(b) => b,
                    Err(e) => {
                        eprintln!("{}: {e}", path.display());
                        return ExitCode::from(2);
                    }
                },
                (None, None) => unreachable!("clap requires --hex or --file"),
            };
            match f.check_bytes(&bytes, true) {
                None => {
                    eprintln!("not a valid {family} input");
                    ExitCode::from(2)
                }
                Some(problems) if problems.is_empty() => {
                    println!("every implementation agrees with the reference");
                    ExitCode::SUCCESS
                }
                Some(problems) => {
                    for p in problems {
                        println!("{p}");
                    }
                    ExitCode::FAILURE
                }
            }
        }
        Command::Gate(args) => gate_command(&args),
        Command::Certify(args) => match crossdec_harness::cli::certify::certify(&args) {
            Ok(cert) => {
                let out = args.out.display();
                println!(
                    "certificate: {out}/certificate.{{json,md,xml,svg}}: {}",
                    if cert.passed { "pass" } else { "FAIL" }
                );
                for problem in cert.golden.differences.iter().chain(&cert.gate_problems) {
                    println!("  {problem}");
                }
                for part in [&cert.fuzz, &cert.mutants, &cert.bug_zoo] {
                    println!(
                        "  {}: {}{}",
                        part.file,
                        part.summary,
                        if part.passed { "" } else { " (not passed)" }
                    );
                }
                if cert.passed {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            }
            Err(problem) => {
                eprintln!("crossdec certify: {problem}");
                ExitCode::from(2)
            }
        },
        Command::ServeReference { family } => {
            let Some(f) = families::by_name(&family) else {
                eprintln!("no family {family}");
                return ExitCode::from(2);
            };
            match crossdec_harness::cli::subjects::serve_reference(
                f.as_ref(),
                std::io::stdin().lock(),
                std::io::stdout().lock(),
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(problem) => {
                    eprintln!("{problem}");
                    ExitCode::from(2)
                }
            }
        }
        Command::FuzzTargets => {
            for t in crossdec_harness::fuzzing::targets() {
                let mode = format!("{:?}", t.mode).to_lowercase();
                println!(
                    "{} {} {} {}",
                    t.name,
                    t.family,
                    mode,
                    if t.peers { "peers" } else { "kernels" }
                );
            }
            ExitCode::SUCCESS
        }
        Command::Golden { file, update } => golden_command(&file, update),
        Command::Corpus {
            family,
            out,
            cases,
            seed,
            mode,
        } => corpus_command(&family, &out, cases, seed, &mode),
        Command::Replay {
            paths,
            target,
            family,
            subjects,
        } => replay_command(&paths, target, family, &subjects),
        Command::Tsfile {
            paths,
            repro_dir,
            writer,
            time_encoding: _,
            max_page_values,
            max_page_bytes,
            filter: Some(filter),
            device,
            columns,
            offset,
            limit,
            block_rows,
            print_rows,
            repeat,
        } => {
            use crossdec_harness::families::tsfile_aligned::{WRITER_CPP, WRITER_JAVA};
            let writer = match writer {
                WriterArg::Cpp => WRITER_CPP,
                WriterArg::Java => WRITER_JAVA,
            };
            tsfile_scan_command(
                paths,
                crossdec_harness::cli::tsfile_scan::ScanArgs {
                    filter,
                    devices: device,
                    columns,
                    offset,
                    limit,
                    block_rows,
                    print_rows,
                    repeat,
                    read: read_options(max_page_values, max_page_bytes),
                    writer,
                    repro_dir,
                },
            )
        }
        Command::Tsfile {
            paths,
            repro_dir,
            writer,
            time_encoding,
            max_page_values,
            max_page_bytes,
            ..
        } => tsfile_command(
            paths,
            repro_dir,
            writer,
            &time_encoding,
            max_page_values,
            max_page_bytes,
        ),
    }
}

fn tsfile_command(
    paths: Vec<PathBuf>,
    repro_dir: PathBuf,
    writer: WriterArg,
    time_encoding: &str,
    max_page_values: Option<u64>,
    max_page_bytes: Option<u64>,
) -> ExitCode {
    use crossdec_harness::cli::tsfile::{check_files, Options};
    let mut options = Options::new(repro_dir);
    options.writer = match writer {
        WriterArg::Cpp => crossdec_tsfile::Writer::Cpp,
        WriterArg::Java => crossdec_tsfile::Writer::Java,
    };
    let Some(&time) = crossdec_tsfile::Encoding::ALL
        .iter()
        .find(|e| e.name() == time_encoding)
    else {
        eprintln!("--time-encoding {time_encoding}: not a TsFile encoding name");
        return ExitCode::from(2);
    };
    options.read.time_encoding = time;
    if let Some(v) = max_page_values {
        options.read.limits.max_page_values = v;
    }
    if let Some(v) = max_page_bytes {
        options.read.limits.max_page_bytes = v;
    }
    match check_files(&paths, &options) {
        Ok(report) => {
            print!("{}", report.summary());
            for d in &report.disagreements {
                println!("DISAGREEMENT {d}");
            }
            for u in &report.unreadable {
                println!("UNREADABLE {u}");
            }
            if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(problem) => {
            eprintln!("crossdec tsfile: {problem}");
            ExitCode::from(2)
        }
    }
}

fn read_options(max_page_values: Option<u64>, max_page_bytes: Option<u64>) -> crossdec_tsfile::ReadOptions {
    let mut read = crossdec_tsfile::ReadOptions::default();
    if let Some(v) = max_page_values {
        read.limits.max_page_values = v;
    }
    if let Some(v) = max_page_bytes {
        read.limits.max_page_bytes = v;
    }
    read
}

fn tsfile_scan_command(paths: Vec<PathBuf>, args: crossdec_harness::cli::tsfile_scan::ScanArgs) -> ExitCode {
    use crossdec_harness::cli::tsfile_scan::scan_files;
    let files = match crossdec_harness::cli::tsfile::tsfile_paths(&paths) {
        Ok(files) => files,
        Err(problem) => {
            eprintln!("crossdec tsfile: {problem}");
            return ExitCode::from(2);
        }
    };
    if args.block_rows == 0 {
        eprintln!("crossdec tsfile: --block-rows must be at least 1");
        return ExitCode::from(2);
    }
    match scan_files(&files, &args) {
        Ok(reports) => {
            for r in &reports {
                print!("{}", r.text());
            }
            if reports.is_empty() {
                println!("no aligned device to scan");
            }
            if reports.iter().all(|r| r.disagreements.is_empty()) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(problem) => {
            eprintln!("crossdec tsfile: {problem}");
            ExitCode::from(2)
        }
    }
}

fn corpus_command(family: &str, out: &std::path::Path, cases: u64, seed: u64, mode: &str) -> ExitCode {
    use crossdec_engine::CaseRng;
    let Some(f) = families::by_name(family) else {
        eprintln!("no family {family}");
        return ExitCode::from(2);
    };
    let entries: Vec<(String, Vec<u8>)> = match mode {
        "raw" => f.corpus(cases, seed),
        "structured" => {
            let mut rng = CaseRng::seed_from_u64(seed);
            (0..cases * 10)
                .map(|i| {
                    let len = rng.gen_range(8..600);
                    (format!("random-{i}"), (0..len).map(|_| rng.gen()).collect())
                })
                .collect()
        }
        other => {
            eprintln!("--mode is raw or structured, not {other}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("{}: {e}", out.display());
        return ExitCode::from(2);
    }
    let mut seen = std::collections::HashSet::new();
    let mut written = 0;
    for (name, bytes) in entries {
        if !seen.insert(bytes.clone()) {
            continue;
        }
        if let Err(e) = std::fs::write(out.join(name), &bytes) {
            eprintln!("{}: {e}", out.display());
            return ExitCode::from(2);
        }
        written += 1;
    }
    println!(
        "wrote {written} distinct {mode} inputs for {family} to {}",
        out.display()
    );
    ExitCode::SUCCESS
}

fn files_under(path: &std::path::Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.path());
        for e in entries {
            files_under(&e.path(), out)?;
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

fn replay_command(
    paths: &[PathBuf],
    target: Option<String>,
    family: Option<String>,
    subjects: &SubjectArgs,
) -> ExitCode {
    use crossdec_harness::fuzzing;
    let fixed = match (&target, &family) {
        (Some(t), _) => match fuzzing::target(t) {
            Some(t) => Some(t),
            None => {
                eprintln!("no fuzz target {t}");
                return ExitCode::from(2);
            }
        },
        (None, Some(f)) => match fuzzing::targets()
            .into_iter()
            .find(|t| &t.family == f && t.mode == fuzzing::Mode::Raw && !t.peers)
        {
            Some(t) => Some(t),
            None => {
                eprintln!("no raw fuzz target for family {f}");
                return ExitCode::from(2);
            }
        },
        (None, None) => None,
    };
    let mut files = Vec::new();
    for p in paths {
        if let Err(e) = files_under(p, &mut files) {
            eprintln!("{}: {e}", p.display());
            return ExitCode::from(2);
        }
    }
    let (mut agreed, mut ignored, mut failed) = (0, 0, 0);
    let mut fuzzers: std::collections::HashMap<String, fuzzing::Fuzzer> = std::collections::HashMap::new();
    for file in &files {
        let target = fixed.clone().or_else(|| {
            file.ancestors()
                .skip(1)
                .find_map(|a| a.file_name().and_then(|n| n.to_str()).and_then(fuzzing::target))
        });
        let Some(target) = target else {
            eprintln!(
                "{}: no fuzz target (use --target or put it under a directory named after one)",
                file.display()
            );
            return ExitCode::from(2);
        };
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        let name = target.name.clone();
        let fuzzer = match fuzzers.entry(name.clone()) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => match fuzzing::Fuzzer::with_subjects(target, subjects) {
                Ok(f) => e.insert(f),
                Err(problem) => {
                    eprintln!("{name}: {problem}");
                    return ExitCode::from(2);
                }
            },
        };
        match fuzzer.check(&bytes) {
            Ok(true) => agreed += 1,
            Ok(false) => ignored += 1,
            Err(problem) => {
                failed += 1;
                println!("FAIL {} ({name}): {problem}", file.display());
            }
        }
    }
    println!(
        "replayed {} files: {agreed} agreed, {ignored} not an input, {failed} disagreed",
        files.len()
    );
    if failed > 0 || files.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn gate_command(args: &GateArgs) -> ExitCode {
    let verdict = match gate::gate(args) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("gate: {e}");
            return ExitCode::from(2);
        }
    };
    for n in &verdict.notices {
        println!("gate: note: {n}");
    }
    for line in &verdict.summary {
        println!("gate: {line}");
    }
    if verdict.problems.is_empty() {
        println!("gate: ok");
        ExitCode::SUCCESS
    } else {
        for p in &verdict.problems {
            println!("gate: FAIL: {p}");
        }
        ExitCode::FAILURE
    }
}

fn golden_command(file: &std::path::Path, update: bool) -> ExitCode {
    use crossdec_harness::golden;
    let computed = golden::compute();
    if update {
        let text = serde_json::to_string_pretty(&computed).expect("serializable") + "\n";
        if let Err(e) = std::fs::write(file, text) {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
        println!(
            "wrote {} families' golden digests (seed {}, {} calls per category) to {}",
            computed.families.len(),
            computed.seed,
            computed.cases,
            file.display()
        );
        return ExitCode::SUCCESS;
    }
    let committed: golden::Golden = match std::fs::read_to_string(file)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let differences = golden::differences(&committed, &computed);
    for d in &differences {
        println!("golden: DIFFERS: {d}");
    }
    if differences.is_empty() {
        println!(
            "golden: every family's digests match {} on {}",
            file.display(),
            crossdec_harness::TARGET
        );
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
