//! `crossdec`: run differential campaigns, check single inputs, gate
//! cross-architecture runs.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use crossdec_harness::families;

use crossdec_harness::cli::app::{Cli, Command, WriterArg};
use crossdec_harness::cli::gate::{self, GateArgs};
use crossdec_harness::cli::subjects::SubjectArgs;

/// The exit status of a program killed by SIGPIPE, as a shell reports it.
const CLOSED_PIPE_STATUS: i32 = 141;

/// End quietly when stdout is closed under us (`crossdec run | head -1`).
/// Rust ignores SIGPIPE, so a print to a closed pipe panics instead of
/// ending the process the way a Unix tool ends; restoring the signal's
/// default action would need `unsafe` outside the kernels, so the panic
/// hook recognises print!'s broken-pipe panic and exits as SIGPIPE would
/// have: silently, with the status a shell gives such a death.
fn end_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(CLOSED_PIPE_STATUS);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    end_quietly_on_closed_stdout();
    let cli = Cli::parse();
    match cli.command {
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
            implementations,
            allow_unavailable,
            subjects,
        } => check_command(&family, hex, &file, &implementations, allow_unavailable, &subjects),
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

fn check_command(
    family: &str,
    hex: Vec<Vec<u8>>,
    files: &[PathBuf],
    implementations: &[String],
    allow_unavailable: bool,
    subjects: &SubjectArgs,
) -> ExitCode {
    use crossdec_harness::engine::CheckVerdict;
    let mut f = match crossdec_harness::cli::run::select(&[family.to_string()]) {
        Ok(mut selected) => selected.remove(0),
        Err(problem) => {
            eprintln!("crossdec check: {problem}");
            return ExitCode::from(2);
        }
    };
    if let Err(problem) = subjects.attach(std::iter::once(&mut f)) {
        eprintln!("crossdec check: {problem}");
        return ExitCode::from(2);
    }
    if let Err(problem) =
        crossdec_harness::cli::run::check_implementations(&[f.as_ref()], implementations, allow_unavailable)
    {
        eprintln!("crossdec check: {problem}");
        return ExitCode::from(2);
    }
    let mut steps = hex;
    for path in files {
        match std::fs::read(path) {
            Ok(b) => steps.push(b),
            Err(e) => {
                eprintln!("crossdec check: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    let report = match f.check_steps(&steps, implementations, true) {
        Ok(report) => report,
        Err(problem) => {
            eprintln!("crossdec check: {problem}");
            return ExitCode::from(2);
        }
    };
    for (k, outcome) in report.reference.iter().enumerate() {
        if report.reference.len() == 1 {
            println!("reference: {outcome}");
        } else {
            println!("reference, step {k}: {outcome}");
        }
    }
    for i in &report.implementations {
        let role = format!("{:?}", i.role).to_lowercase();
        match &i.verdict {
            CheckVerdict::Agrees { tolerated } if tolerated.is_empty() => {
                println!("{:<24} {role:<6} agrees", i.name)
            }
            CheckVerdict::Agrees { tolerated } => {
                println!("{:<24} {role:<6} agrees (tolerated: {})", i.name, tolerated.join(", "))
            }
            CheckVerdict::Differs { step, got, difference } => {
                println!("{:<24} {role:<6} DIFFERS at step {step}: {got}", i.name);
                for line in difference.lines() {
                    println!("    {line}");
                }
            }
            CheckVerdict::NotCompared { reason } => {
                println!("{:<24} {role:<6} NOT COMPARED: {reason}", i.name)
            }
            CheckVerdict::Unavailable => println!("{:<24} {role:<6} not available on this host", i.name),
        }
    }
    let checked = report
        .implementations
        .iter()
        .filter(|i| i.verdict != CheckVerdict::Unavailable)
        .count();
    if report.implementations.is_empty() || checked == 0 {
        println!("verdict: FAIL: no implementation compared anything");
        ExitCode::FAILURE
    } else if report
        .implementations
        .iter()
        .all(|i| matches!(i.verdict, CheckVerdict::Agrees { .. } | CheckVerdict::Unavailable))
    {
        println!("verdict: ok: {checked} implementation(s) agree with the reference");
        ExitCode::SUCCESS
    } else {
        println!("verdict: FAIL: an implementation disagrees or compared nothing");
        ExitCode::FAILURE
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
    for p in paths {
        if let Err(e) = std::fs::metadata(p) {
            eprintln!("crossdec replay: {}: {e}", p.display());
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
