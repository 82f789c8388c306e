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
    /// Generator calls per category (a category scales this).
    #[arg(long, env = "CROSSDEC_CASES", default_value_t = 200)]
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
    /// Only this implementation (repeatable).
    #[arg(long = "impl")]
    pub implementations: Vec<String>,
    /// Only this category (repeatable).
    #[arg(long)]
    pub category: Vec<String>,
    /// Directory for report.json and manifest.json.
    #[arg(long, default_value = "crossdec-out")]
    pub out: PathBuf,
    /// Also write the results as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// No progress bar even on a terminal.
    #[arg(long)]
    pub no_progress: bool,
    /// External subjects (docs/subjects.md).
    #[command(flatten)]
    pub subjects: SubjectArgs,
}

impl RunArgs {
    /// What `crossdec` with no command runs.
    pub fn defaults() -> Self {
        RunArgs {
            cases: 200,
            seed: 1,
            out: "crossdec-out".into(),
            repository: ".".into(),
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
    let progress: Option<Arc<dyn Progress>> =
        (!args.no_progress && std::io::stderr().is_terminal()).then(|| Arc::new(Bar::default()) as _);
    let reports: Vec<FamilyReport> = plan
        .runs
        .iter()
        .map(|(family, options)| {
            family.run(&RunOptions {
                progress: progress.clone(),
                ..options.clone()
            })
        })
        .collect();
    print!("{}", report::summary(&reports));
    let manifest = report::manifest(&reports, plan.seed, plan.cases);
    let failures = manifest.failures;
    if let Some(path) = &args.junit {
        let xml = junit::document("crossdec", &junit::campaign_suites("", &reports));
        write_file(path, &xml).map_err(|e| format!("could not write {}: {e}", path.display()))?;
    }
    write_outputs(&args.out, manifest, reports)
        .map_err(|e| format!("could not write reports to {}: {e}", args.out.display()))?;
    if failures > 0 {
        println!("FAILED: {failures} disagreements (reports in {})", args.out.display());
        Ok(false)
    } else {
        println!("ok: every implementation agreed (reports in {})", args.out.display());
        Ok(true)
    }
}

fn plan(args: &RunArgs) -> Result<Plan, String> {
    let base = RunOptions {
        cases: args.cases,
        seed: args.seed,
        implementations: args.implementations.clone(),
        categories: args.category.clone(),
        ..RunOptions::default()
    };
    if let Some(path) = &args.like {
        return replay_manifest(path, base, &args.subjects);
    }
    let budget = args.time.as_deref().map(budget::parse_duration).transpose()?;
    let mut selected = select(&args.family)?;
    args.subjects.attach(selected.iter_mut())?;
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

fn select(names: &[String]) -> Result<Vec<Box<dyn Family>>, String> {
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
    let calibration = |cases| RunOptions {
        cases,
        max_failures: 0,
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
