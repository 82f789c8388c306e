//! `crossdec run`: choose the families and their generator calls (a count,
//! a time budget, the depth a change gets, or another run's manifest
//! replayed), run them, print the summary, write the reports.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::budget;
use crate::changes::{self, Changes};
use crate::cli::subjects::SubjectArgs;
use crate::engine::report::{self, Manifest, RunReport};
use crate::engine::{Family, FamilyReport, Progress, RunOptions};
use crate::{families, junit};

/// `crossdec run`'s options.
#[derive(clap::Args, Default, Debug, Clone)]
pub struct RunArgs {
    /// Family to run (repeatable); all when omitted.
    #[arg(long)]
    pub family: Vec<String>,
    /// Generator calls per category (a category scales this); at least 1.
    #[arg(long, env = "CROSSDEC_CASES", default_value_t = 200, value_parser = at_least_one_case)]
    pub cases: u64,
    #[arg(long, env = "CROSSDEC_SEED", default_value_t = 1)]
    pub seed: u64,
    /// Spend about this long (60s, 2m, or plain seconds) instead of a fixed
    /// --cases: a short calibration measures each category's cost, then each
    /// family gets a share and its categories calls in proportion to their
    /// scales.
    #[arg(long, value_name = "DURATION")]
    pub time: Option<String>,
    /// Replay exactly the seed and the per-family, per-category generator
    /// calls of another run's manifest (a native run's, on a cross target),
    /// so the digests compare. Replaces --cases and --seed.
    #[arg(long, value_name = "MANIFEST", conflicts_with_all = ["time", "changed_since", "family", "category"])]
    pub like: Option<PathBuf>,
    /// Go deep where `git diff --name-only REV` changed files: the families
    /// whose sources changed get 8x --cases (or 80% of --time), every other
    /// family a smoke run; shared code changes every family.
    #[arg(long, value_name = "REV")]
    pub changed_since: Option<String>,
    /// The git repository --changed-since diffs.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repository: PathBuf,
    /// Only this implementation (repeatable): a family runs only if it has
    /// one of them.
    #[arg(long = "impl", value_name = "NAME")]
    pub implementations: Vec<String>,
    /// With --impl: report an implementation this host cannot run (its CPU
    /// lacks the features) as not run, instead of refusing the command.
    #[arg(long)]
    pub allow_unavailable: bool,
    /// Only this category (repeatable): a family runs only if it has one of
    /// them.
    #[arg(long)]
    pub category: Vec<String>,
    /// Stop after this many failures (failing case and implementation
    /// pairs) in a family; every one found is kept in report.json.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_failures: u64,
    /// Stop at the first failure (--max-failures 1).
    #[arg(long, conflicts_with = "max_failures")]
    pub fail_fast: bool,
    /// The longest a failure's minimizing may take (10s, 500ms, 2m; 0: no
    /// minimizing). The first failure of each symptom is minimized, the
    /// others while the first such span lasts; a family's minimizing takes
    /// at most six times this.
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub shrink_time: String,
    /// Directory for report.json and manifest.json.
    #[arg(long, default_value = "crossdec-out")]
    pub out: PathBuf,
    /// Also write the results as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// No progress bar even on a terminal.
    #[arg(long)]
    pub no_progress: bool,
    /// External subjects (docs/reference/subjects.md).
    #[command(flatten)]
    pub subjects: SubjectArgs,
}

impl RunArgs {
    /// What `crossdec run` runs with no options.
    pub fn defaults() -> Self {
        RunArgs {
            cases: 200,
            seed: 1,
            out: "crossdec-out".into(),
            repository: ".".into(),
            max_failures: 100,
            shrink_time: "10s".into(),
            ..Default::default()
        }
    }
}

/// The families to run, each with its options, and the run's seed and
/// `--cases` for the manifest.
struct Plan {
    runs: Vec<(Box<dyn Family>, RunOptions)>,
    seed: u64,
    cases: u64,
}

/// Run the families `args` selects with the counts it asks for, print the
/// summary and write the reports: `Ok(true)` if every implementation
/// agreed, `Ok(false)` if some disagreed, `Err` for bad input (a bad
/// `--time`, an unreadable manifest or one of another family set, a bad
/// revision, an unwritable output).
pub fn run(args: &RunArgs) -> Result<bool, String> {
    // A panicking decoder is caught and reported as a failure with its
    // message; the default hook would also print a backtrace per case.
    // Panics anywhere else (a generator) still print.
    crate::engine::install_quiet_panic_hook();
    let plan = plan(args)?;
    let heartbeat = (!std::io::stderr().is_terminal()).then(|| Arc::new(Heartbeat::new()));
    let progress: Option<Arc<dyn Progress>> = match &heartbeat {
        Some(h) => Some(h.clone() as _),
        None => (!args.no_progress).then(|| Arc::new(Bar::default()) as _),
    };
    let beating = heartbeat.as_ref().map(|h| h.start(heartbeat_interval()));
    let mut reports: Vec<FamilyReport> = plan
        .runs
        .iter()
        .map(|(family, options)| {
            family.run(&RunOptions {
                progress: progress.clone(),
                ..options.clone()
            })
        })
        .collect();
    if let (Some(h), Some(thread)) = (&heartbeat, beating) {
        h.stop();
        let _ = thread.join();
    }
    for r in &mut reports {
        for f in &mut r.failures {
            f.replay_command = Some(replay_command(f, args));
        }
    }
    setup_errors(&reports)?;
    print!("{}", report::summary(&reports));
    let manifest = report::manifest(&reports, plan.seed, plan.cases);
    let passed = report::passed(&reports);
    if let Some(path) = &args.junit {
        let xml = junit::document("crossdec", &junit::campaign_suites("", &reports));
        write_file(path, &xml).map_err(|e| format!("could not write {}: {e}", path.display()))?;
    }
    write_outputs(&args.out, manifest, reports)
        .map_err(|e| format!("could not write reports to {}: {e}", args.out.display()))?;
    println!("reports: {}", args.out.display());
    Ok(passed)
}

/// A subject that never answered anything is a setup error (a command that
/// does not exist, a script that does not start), said once: not a finding
/// per input.
fn setup_errors(reports: &[FamilyReport]) -> Result<(), String> {
    let problems: Vec<String> = reports
        .iter()
        .flat_map(|r| {
            r.problems.iter().filter_map(move |p| match p {
                crate::engine::Problem::SubjectNeverAnswered {
                    implementation,
                    last_failure,
                } => Some(format!(
                    "{}: subject {implementation} could not be run: it never answered; {last_failure}",
                    r.family
                )),
                _ => None,
            })
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// `text` as one shell word.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,@%+".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The command that replays a failure's reproducer: `crossdec check` with
/// the family, the implementation, its subject (with the options it ran
/// with) and every step's input.
pub fn replay_command(f: &report::Failure, args: &RunArgs) -> String {
    let mut words = vec![
        "crossdec".to_string(),
        "check".into(),
        "--family".into(),
        shell_word(&f.family),
        "--impl".into(),
        shell_word(&f.implementation),
    ];
    if let Some(command) = &f.subject {
        let option = match f.role {
            crate::engine::Role::Kernel => "--subject",
            crate::engine::Role::Peer => "--peer-subject",
        };
        words.push(option.into());
        words.push(shell_word(&format!("{}={command}", f.implementation)));
        if args.subjects.subject_timeout != SubjectArgs::default().subject_timeout {
            words.push("--subject-timeout".into());
            words.push(shell_word(&args.subjects.subject_timeout));
        }
    }
    for hex in &f.minimized_hex {
        words.push("--hex".into());
        // An empty step is an empty word.
        words.push(if hex.is_empty() { "''".into() } else { hex.clone() });
    }
    words.join(" ")
}

/// Seconds between heartbeat lines (`CROSSDEC_HEARTBEAT_SECONDS`, for the
/// tests; 30 by default).
fn heartbeat_interval() -> std::time::Duration {
    let seconds = std::env::var("CROSSDEC_HEARTBEAT_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(30.0);
    std::time::Duration::from_secs_f64(seconds)
}

/// `--cases`: a count of at least 1 (zero cases would compare nothing).
fn at_least_one_case(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("0 cases would compare nothing; give at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a count of cases: {e}")),
    }
}

fn plan(args: &RunArgs) -> Result<Plan, String> {
    let shrink_seconds = match args.shrink_time.trim() {
        "0" => 0.0,
        time => crate::cli::subjects::parse_duration_arg("--shrink-time", time)?.as_secs_f64(),
    };
    let base = RunOptions {
        cases: args.cases,
        seed: args.seed,
        implementations: args.implementations.clone(),
        categories: args.category.clone(),
        max_failures: if args.fail_fast { 1 } else { args.max_failures as usize },
        shrink_seconds,
        shrink_total_seconds: 6.0 * shrink_seconds,
        ..RunOptions::default()
    };
    if let Some(path) = &args.like {
        let plan = replay_manifest(path, base, &args.subjects)?;
        check_implementations(
            &plan.runs.iter().map(|(f, _)| f.as_ref()).collect::<Vec<_>>(),
            &args.implementations,
            args.allow_unavailable,
        )?;
        return Ok(plan);
    }
    let budget = args.time.as_deref().map(budget::parse_duration).transpose()?;
    let mut selected = select(&args.family)?;
    args.subjects.attach(selected.iter_mut())?;
    let selected = narrow(selected, args)?;
    let change = match &args.changed_since {
        Some(rev) => {
            let files = changes::changed_files(rev, &args.repository)?;
            let registry = families::registry();
            let sources: Vec<(&str, &[&str])> = registry.iter().map(|r| (r.family.name(), r.sources)).collect();
            Some((
                rev,
                files.len(),
                Changes::classify(&files, families::SHARED_SOURCES, &sources),
            ))
        }
        None => None,
    };
    println!(
        "crossdec {} on {} ({}-endian), seed {}, {}",
        env!("CARGO_PKG_VERSION"),
        crate::TARGET,
        report::endian(),
        args.seed,
        match (budget, &args.changed_since) {
            (Some(seconds), _) => format!("a time budget of {seconds}s"),
            (None, Some(_)) => format!(
                "{} generator calls per category where changed, {} elsewhere",
                budget::depth_cases(args.cases, true),
                budget::depth_cases(args.cases, false)
            ),
            (None, None) => format!("{} generator calls per category", args.cases),
        }
    );
    let changed: Vec<bool> = match &change {
        Some((rev, count, changes)) => {
            println!("changed since {rev}: {count} files");
            for line in changes.explain() {
                println!("  {line}");
            }
            selected.iter().map(|f| changes.touches(f.name())).collect()
        }
        None => vec![false; selected.len()],
    };
    let runs = match budget {
        Some(seconds) => spread_budget(selected, &changed, seconds, &base),
        None => selected
            .into_iter()
            .zip(&changed)
            .map(|(family, &touched)| {
                let cases = if args.changed_since.is_some() {
                    budget::depth_cases(args.cases, touched)
                } else {
                    args.cases
                };
                (family, RunOptions { cases, ..base.clone() })
            })
            .collect(),
    };
    Ok(Plan {
        runs,
        seed: args.seed,
        cases: args.cases,
    })
}

/// The selected families that have one of the implementations and one of
/// the categories named (when any is), or an error naming the names that
/// match nothing, with the valid ones; and an implementation named that
/// this host cannot run is an error unless `--allow-unavailable`.
fn narrow(selected: Vec<Box<dyn Family>>, args: &RunArgs) -> Result<Vec<Box<dyn Family>>, String> {
    let explicit = !args.family.is_empty();
    for category in &args.category {
        if !selected.iter().any(|f| f.category_names().contains(&category.as_str())) {
            let mut known: Vec<&str> = selected.iter().flat_map(|f| f.category_names()).collect();
            known.sort_unstable();
            known.dedup();
            return Err(format!(
                "no category {category}; the selected families have: {}",
                known.join(", ")
            ));
        }
    }
    check_implementations(
        &selected.iter().map(|f| f.as_ref()).collect::<Vec<_>>(),
        &args.implementations,
        args.allow_unavailable,
    )?;
    let has_impl = |f: &dyn Family| {
        args.implementations.is_empty()
            || f.implementation_list()
                .iter()
                .any(|i| args.implementations.contains(&i.name))
    };
    let has_category = |f: &dyn Family| {
        args.category.is_empty() || f.category_names().iter().any(|c| args.category.iter().any(|n| n == c))
    };
    let mut kept = Vec::new();
    for f in selected {
        match (has_impl(f.as_ref()), has_category(f.as_ref())) {
            (true, true) => kept.push(f),
            // A family the user named must run what was asked of it.
            (false, _) if explicit => {
                return Err(format!(
                    "family {} has none of the implementations {}; it has: {}",
                    f.name(),
                    args.implementations.join(", "),
                    names(f.as_ref())
                ))
            }
            (_, false) if explicit => {
                return Err(format!(
                    "family {} has none of the categories {}; it has: {}",
                    f.name(),
                    args.category.join(", "),
                    f.category_names().join(", ")
                ))
            }
            _ => {}
        }
    }
    if kept.is_empty() {
        return Err("no family has both the implementations and the categories named".into());
    }
    Ok(kept)
}

fn names(f: &dyn Family) -> String {
    f.implementation_list()
        .iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every implementation named must belong to one of `families` and, unless
/// `allow_unavailable`, be one this host can run.
pub fn check_implementations(
    families: &[&dyn Family],
    implementations: &[String],
    allow_unavailable: bool,
) -> Result<(), String> {
    for name in implementations {
        let found: Vec<_> = families
            .iter()
            .flat_map(|f| f.implementation_list())
            .filter(|i| &i.name == name)
            .collect();
        if found.is_empty() {
            let known: Vec<String> = families
                .iter()
                .map(|f| format!("{}: {}", f.name(), names(*f)))
                .collect();
            return Err(format!(
                "no implementation {name} in the selected families; they have:\n  {}",
                known.join("\n  ")
            ));
        }
        if !allow_unavailable && found.iter().all(|i| !i.available) {
            return Err(format!(
                "{name} cannot run on this host ({}): this CPU lacks the features it needs; \
                 --allow-unavailable reports it as not run instead",
                crate::TARGET
            ));
        }
    }
    Ok(())
}

/// The families named (every family when none is), or an error naming the
/// unknown one and the known ones.
pub fn select(names: &[String]) -> Result<Vec<Box<dyn Family>>, String> {
    if names.is_empty() {
        return Ok(families::all());
    }
    names
        .iter()
        .map(|name| {
            families::by_name(name).ok_or_else(|| {
                let known: Vec<_> = families::all().iter().map(|f| f.name()).collect();
                format!("no family {name}; known: {}", known.join(", "))
            })
        })
        .collect()
}

/// Calibrate every family (a rough probe, then as many calls as a tenth of
/// its share allows), then give each its share of what is left of
/// `seconds` as exact calls per category.
fn spread_budget(
    selected: Vec<Box<dyn Family>>,
    changed: &[bool],
    seconds: f64,
    base: &RunOptions,
) -> Vec<(Box<dyn Family>, RunOptions)> {
    let started = Instant::now();
    // Calibration measures time per case: it runs every case (no failure
    // limit) and minimizes nothing (the real run reports the failures).
    let calibration = |cases| RunOptions {
        cases,
        max_failures: 0,
        shrink_seconds: 0.0,
        shrink_total_seconds: 0.0,
        ..base.clone()
    };
    let costs: Vec<Vec<budget::CategoryCost>> = selected
        .iter()
        .zip(budget::shares(changed, seconds))
        .map(|(f, share)| {
            let probe = f.run(&calibration(budget::PROBE_CASES));
            let cases = budget::calibration_cases(probe.seconds, share);
            let measured = if cases > budget::PROBE_CASES {
                f.run(&calibration(cases))
            } else {
                probe
            };
            budget::costs(&measured, &f.category_scales())
        })
        .collect();
    let calibrated = started.elapsed().as_secs_f64();
    let shares = budget::shares(changed, (seconds - calibrated).max(0.0));
    println!("  calibration took {calibrated:.2}s; shares of the rest:");
    selected
        .into_iter()
        .zip(costs.iter().zip(&shares))
        .zip(changed)
        .map(|((family, (costs, &share)), &touched)| {
            let calls = budget::calls_filling(costs, share);
            println!(
                "  {:<16} {share:>7.2}s {:>9} generator calls{}",
                family.name(),
                calls.values().sum::<u64>(),
                if touched { " (changed)" } else { "" }
            );
            (family, RunOptions { calls, ..base.clone() })
        })
        .collect()
}

/// The seed, families and per-category calls of the manifest at `path`.
fn replay_manifest(path: &Path, base: RunOptions, subjects: &SubjectArgs) -> Result<Plan, String> {
    let manifest = read_manifest(path)?;
    if manifest.families.is_empty() {
        return Err(format!("{}: the manifest lists no families", path.display()));
    }
    let mut runs = Vec::new();
    for m in &manifest.families {
        let family = families::by_name(&m.family).ok_or_else(|| {
            format!(
                "{}: the manifest's family {} is not one of this crossdec's ({})",
                path.display(),
                m.family,
                families::all().iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
            )
        })?;
        let known = family.category_names();
        if let Some(unknown) = m.cases_per_category.keys().find(|c| !known.contains(&c.as_str())) {
            return Err(format!(
                "{}: family {} has no category {unknown} here; the manifest is of another crossdec",
                path.display(),
                m.family
            ));
        }
        runs.push((
            family,
            RunOptions {
                cases: manifest.cases,
                seed: manifest.seed,
                categories: m.cases_per_category.keys().cloned().collect(),
                // Empty in a manifest written before calls were recorded:
                // its `cases` then gives the same calls.
                calls: m.calls_per_category.clone(),
                ..base.clone()
            },
        ));
    }
    subjects.attach(runs.iter_mut().map(|(family, _)| family))?;
    println!(
        "crossdec {} on {} ({}-endian), seed {}, replaying the generator calls of {} ({})",
        env!("CARGO_PKG_VERSION"),
        crate::TARGET,
        report::endian(),
        manifest.seed,
        path.display(),
        manifest.target
    );
    Ok(Plan {
        runs,
        seed: manifest.seed,
        cases: manifest.cases,
    })
}

/// The manifest at `path`.
pub fn read_manifest(path: &Path) -> Result<Manifest, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not a crossdec manifest: {e}", path.display()))
}

fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

fn write_outputs(dir: &Path, manifest: Manifest, families: Vec<FamilyReport>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("manifest.json"), serde_json::to_string_pretty(&manifest)?)?;
    let report = RunReport { manifest, families };
    std::fs::write(dir.join("report.json"), serde_json::to_string_pretty(&report)?)?;
    Ok(())
}

/// Off a terminal, a line on stderr every so often saying where the run is,
/// so a CI log shows a long run is alive (and where a hang is).
struct Heartbeat {
    started: Instant,
    state: std::sync::Mutex<(String, String, u64, u64)>,
    done: std::sync::atomic::AtomicBool,
}

impl Heartbeat {
    fn new() -> Self {
        Heartbeat {
            started: Instant::now(),
            state: std::sync::Mutex::new(Default::default()),
            done: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn line(&self) -> String {
        let (family, category, done, calls) = self.state.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let seconds = self.started.elapsed().as_secs();
        format!(
            "crossdec: {}m{:02}s: {family}, category {category}: {done} of {calls} generator calls done",
            seconds / 60,
            seconds % 60
        )
    }

    /// A thread that prints [`line`](Self::line) every `every` until
    /// [`stop`](Self::stop).
    fn start(self: &Arc<Self>, every: std::time::Duration) -> std::thread::JoinHandle<()> {
        let me = self.clone();
        std::thread::spawn(move || {
            let tick = every.min(std::time::Duration::from_millis(200));
            let mut last = Instant::now();
            while !me.done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(tick);
                if last.elapsed() >= every {
                    eprintln!("{}", me.line());
                    last = Instant::now();
                }
            }
        })
    }

    fn stop(&self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Progress for Heartbeat {
    fn family(&self, name: &str, calls: u64) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = (name.to_string(), String::new(), 0, calls);
    }
    fn category(&self, name: &str) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).1 = name.to_string();
    }
    fn advance(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).2 += 1;
    }
}

/// A progress bar per family on the terminal.
#[derive(Default)]
struct Bar(std::sync::Mutex<Option<indicatif::ProgressBar>>);

impl Progress for Bar {
    fn family(&self, name: &str, calls: u64) {
        let bar = indicatif::ProgressBar::new(calls);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{prefix:>14} [{bar:40}] {pos}/{len} {msg} ({eta})")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(name.to_string());
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(bar);
    }
    fn category(&self, name: &str) {
        if let Some(bar) = &*self.0.lock().unwrap_or_else(|p| p.into_inner()) {
            bar.set_message(name.to_string());
        }
    }
    fn advance(&self) {
        if let Some(bar) = &*self.0.lock().unwrap_or_else(|p| p.into_inner()) {
            bar.inc(1);
        }
    }
    fn finish(&self) {
        if let Some(bar) = self.0.lock().unwrap_or_else(|p| p.into_inner()).take() {
            bar.finish_and_clear();
        }
    }
}
