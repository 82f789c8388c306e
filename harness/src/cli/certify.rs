//! `crossdec certify`: one certificate from a certification run's parts.
//!
//! It reads what `ci/certify` left behind (every target's run manifest, the
//! stages each shard ran with their results and times, the fuzz report,
//! the mutation summary, the bug-zoo table, the performance targets), checks this binary's golden digests against the committed
//! file, holds every cross run to the native one as the gate does, and
//! writes the result four ways: JSON (everything), Markdown (a release
//! note's section), JUnit XML (a test case per target, family and
//! category) and an SVG matrix (families down, targets across).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;
use serde_json::Value;

use crate::cli::run::read_manifest;
use crate::cli::stages::{self, Outcome, Stage, TargetStages};
use crate::engine::gate;
use crate::engine::junit::{self, Suite, TestCase, Verdict};
use crate::engine::report::{self, Manifest};
use crate::{families, golden};

/// The stage ci/certify records for a shard's whole `ci/test` run: its
/// wall time.
pub const SHARD_STAGE: &str = "ci/test (the whole shard)";

/// `crossdec certify`'s options. Every input but the runs may be missing:
/// the certificate then says so, and does not pass.
#[derive(clap::Args, Debug, Clone)]
pub struct CertifyArgs {
    /// The runs' directory: `native/manifest.json`, one
    /// `TRIPLE/manifest.json` per cross target (ci/test's layout) and
    /// `stages/SHARD.tsv`, each shard's stages (ci/certify's).
    #[arg(long, default_value = "target/crossdec")]
    pub runs: PathBuf,
    /// The committed golden digests.
    #[arg(long, default_value = "harness/tests/golden.json")]
    pub golden: PathBuf,
    /// The fuzz campaign's report (ci/fuzz).
    #[arg(long, default_value = "target/fuzz/report.json")]
    pub fuzz: PathBuf,
    /// The mutation summary (ci/mutants).
    #[arg(long, default_value = "target/mutants/summary.json")]
    pub mutants: PathBuf,
    /// The bug zoo's table (ci/bug-zoo).
    #[arg(long, default_value = "target/bug-zoo/report.json")]
    pub zoo: PathBuf,
    /// The measured performance targets (the targets benchmark).
    #[arg(long, default_value = "target/perf-targets.json")]
    pub perf: PathBuf,
    /// Where certificate.{json,md,xml,svg} go.
    #[arg(long, default_value = "target/certificate")]
    pub out: PathBuf,
}

/// The certificate.
#[derive(Debug, Clone, Serialize)]
pub struct Certificate {
    pub revision: Option<String>,
    pub dirty: Option<bool>,
    pub toolchain: Option<String>,
    pub crossdec_version: String,
    /// Native first, then the cross targets in the runs' directory order.
    pub runs: Vec<Run>,
    /// One per target, family and category.
    pub cells: Vec<Cell>,
    /// Every stage every shard ran.
    pub stages: Vec<Stage>,
    /// Per run (in `runs` order): its suite, its Miri pass, its times.
    pub target_stages: Vec<TargetStages>,
    pub golden: GoldenCheck,
    /// What the gate found across the runs; empty when they agree.
    pub gate_problems: Vec<String>,
    pub fuzz: Part,
    pub mutants: Part,
    pub bug_zoo: Part,
    /// Reported, never a pass or a failure.
    pub performance: Option<Value>,
    pub passed: bool,
}

/// One target's run.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub target: String,
    pub endian: String,
    pub pointer_width: u32,
    pub cpu_features: Vec<String>,
    /// "native", or the emulator's `--version` line.
    pub emulator: String,
    pub seed: u64,
    pub cases: u64,
    pub failures: u64,
    pub manifest: Manifest,
}

/// One family's category on one target.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Cell {
    pub target: String,
    pub family: String,
    pub category: String,
    pub cases: u64,
    pub digest: String,
    /// Same cases and digest as the native run (the native run's own cells
    /// agree by definition).
    pub agrees: bool,
    /// The family's failures on this target.
    pub family_failures: u64,
}

impl Cell {
    fn passed(&self) -> bool {
        self.agrees && self.family_failures == 0
    }
}

/// The committed golden digests against this binary's.
#[derive(Debug, Clone, Serialize)]
pub struct GoldenCheck {
    pub file: String,
    pub target: String,
    pub differences: Vec<String>,
}

/// A part produced by another tool: its file, whether it passed and why,
/// and its content.
#[derive(Debug, Clone, Serialize)]
pub struct Part {
    pub file: String,
    pub passed: bool,
    pub summary: String,
    pub content: Option<Value>,
}

/// Build the certificate and write its four forms; `Err` when nothing can
/// be certified (no native run).
pub fn certify(args: &CertifyArgs) -> Result<Certificate, String> {
    let runs = read_runs(&args.runs)?;
    let stages = stages::read_dir(&args.runs.join("stages"))?;
    let cert = Certificate::new(
        runs,
        stages,
        check_golden(&args.golden),
        fuzz_part(&args.fuzz),
        mutants_part(&args.mutants),
        zoo_part(&args.zoo),
        read_json(&args.perf),
        Provenance::of_this_checkout(),
    );
    write_all(&cert, &args.out)?;
    Ok(cert)
}

/// Where the certified code came from.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    pub revision: Option<String>,
    pub dirty: Option<bool>,
    pub toolchain: Option<String>,
}

impl Provenance {
    fn of_this_checkout() -> Self {
        let output = |program: &str, args: &[&str]| -> Option<String> {
            let out = Command::new(program).args(args).output().ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        };
        Provenance {
            revision: output("git", &["rev-parse", "HEAD"]),
            dirty: output("git", &["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
            toolchain: output("rustc", &["--version"]),
        }
    }
}

impl Certificate {
    /// Put the parts together and judge them.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        runs: Vec<Run>,
        stages: Vec<Stage>,
        golden: GoldenCheck,
        fuzz: Part,
        mutants: Part,
        bug_zoo: Part,
        performance: Option<Value>,
        provenance: Provenance,
    ) -> Certificate {
        let native = &runs[0].manifest;
        let registry: Vec<(String, Vec<String>)> = families::all()
            .iter()
            .map(|f| {
                (
                    f.name().to_string(),
                    f.category_names().into_iter().map(String::from).collect(),
                )
            })
            .collect();
        let mut gate_problems = gate::registry_coverage(native, &registry);
        for run in &runs[1..] {
            gate_problems.extend(gate::target_is(&run.manifest, &run.target));
            gate_problems.extend(gate::compare(native, &run.manifest, &run.endian));
            gate_problems.extend(gate::registry_coverage(&run.manifest, &registry));
        }
        let manifests: Vec<Manifest> = runs.iter().map(|r| r.manifest.clone()).collect();
        for m in &manifests {
            gate_problems.extend(gate::kernels_skipped(m));
        }
        gate_problems.extend(gate::kernels_never_ran_except(&manifests, &[]).0);
        let cells = cells(&runs);
        let target_stages: Vec<TargetStages> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| stages::of_target(&stages, &r.target, i == 0, r.cases))
            .collect();
        let passed = gate_problems.is_empty()
            && stages.iter().all(|s| s.passed)
            && target_stages.iter().all(|t| t.suite.ok() && t.miri.ok())
            && golden.differences.is_empty()
            && cells.iter().all(Cell::passed)
            && runs.iter().all(|r| r.failures == 0)
            && fuzz.passed
            && mutants.passed
            && bug_zoo.passed;
        Certificate {
            revision: provenance.revision,
            dirty: provenance.dirty,
            toolchain: provenance.toolchain,
            crossdec_version: env!("CARGO_PKG_VERSION").to_string(),
            runs,
            cells,
            stages,
            target_stages,
            golden,
            gate_problems,
            fuzz,
            mutants,
            bug_zoo,
            performance,
            passed,
        }
    }
}

fn cells(runs: &[Run]) -> Vec<Cell> {
    let native = &runs[0].manifest;
    let native_cell = |family: &str, category: &str| {
        let f = native.families.iter().find(|f| f.family == family)?;
        Some((f.cases_per_category.get(category)?, f.category_digests.get(category)?))
    };
    let mut out = Vec::new();
    for run in runs {
        for f in &run.manifest.families {
            for (category, &cases) in &f.cases_per_category {
                let digest = f.category_digests.get(category).cloned().unwrap_or_default();
                let agrees = native_cell(&f.family, category) == Some((&cases, &digest));
                out.push(Cell {
                    target: run.target.clone(),
                    family: f.family.clone(),
                    category: category.clone(),
                    cases,
                    digest,
                    agrees,
                    family_failures: f.failures,
                });
            }
        }
    }
    out
}

/// The native run (`native/`, which must be this binary's target) and
/// every other `*/manifest.json` whose directory is named after the
/// manifest's target (`subjects/` and the like are other runs).
fn read_runs(dir: &Path) -> Result<Vec<Run>, String> {
    let native_path = dir.join("native/manifest.json");
    let native = read_manifest(&native_path)?;
    let mut runs = vec![run_of(native, "native".into())];
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        let name = entry
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let path = entry.join("manifest.json");
        if name == "native" || !path.exists() {
            continue;
        }
        let manifest = read_manifest(&path)?;
        if manifest.target == name {
            let emulator = emulator_of(&name);
            runs.push(run_of(manifest, emulator));
        }
    }
    Ok(runs)
}

fn run_of(manifest: Manifest, emulator: String) -> Run {
    Run {
        target: manifest.target.clone(),
        endian: manifest.target_endian.clone(),
        pointer_width: manifest.pointer_width,
        cpu_features: manifest.cpu_features.clone(),
        emulator,
        seed: manifest.seed,
        cases: manifest
            .families
            .iter()
            .flat_map(|f| f.cases_per_category.values())
            .sum(),
        failures: manifest.failures,
        manifest,
    }
}

/// The `--version` line of the runner cargo uses for `triple`
/// (`CARGO_TARGET_<TRIPLE>_RUNNER`, ci/cross-env's QEMU).
fn emulator_of(triple: &str) -> String {
    let var = format!("CARGO_TARGET_{}_RUNNER", triple.to_uppercase().replace('-', "_"));
    let Some(program) = std::env::var(&var)
        .ok()
        .and_then(|r| r.split_whitespace().next().map(String::from))
    else {
        return format!("unknown ({var} is not set)");
    };
    match Command::new(&program).arg("--version").output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or(&program)
            .to_string(),
        Err(e) => format!("{program}: {e}"),
    }
}

fn check_golden(path: &Path) -> GoldenCheck {
    let differences = match std::fs::read_to_string(path) {
        Err(e) => vec![format!("{}: {e}", path.display())],
        Ok(text) => match serde_json::from_str::<golden::Golden>(&text) {
            Err(e) => vec![format!("{}: {e}", path.display())],
            Ok(committed) => golden::differences(&committed, &golden::compute()),
        },
    };
    GoldenCheck {
        file: path.display().to_string(),
        target: report::TARGET.to_string(),
        differences,
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn part(path: &Path, judge: impl Fn(&Value) -> (bool, String)) -> Part {
    let content = read_json(path);
    let (passed, summary) = match &content {
        None => (false, "missing".to_string()),
        Some(v) => judge(v),
    };
    Part {
        file: path.display().to_string(),
        passed,
        summary,
        content,
    }
}

fn fuzz_part(path: &Path) -> Part {
    part(path, |v| {
        let targets = v.as_array().map(Vec::as_slice).unwrap_or_default();
        let crashes: u64 = targets.iter().filter_map(|t| t["crashes"].as_u64()).sum();
        let executions: u64 = targets.iter().filter_map(|t| t["executions"].as_u64()).sum();
        let slowest = targets
            .iter()
            .filter_map(|t| Some((t["executions_per_second"].as_u64()?, t["target"].as_str()?)))
            .min();
        let slowest = slowest.map_or(String::new(), |(rate, t)| format!(", slowest {t} at {rate}/s"));
        (
            !targets.is_empty() && crashes == 0,
            format!(
                "{} targets, {executions} executions, {crashes} crashes{slowest}",
                targets.len()
            ),
        )
    })
}

fn mutants_part(path: &Path) -> Part {
    part(path, |v| {
        let count = |k: &str| v["total"][k].as_u64().unwrap_or(0);
        let (caught, missed) = (count("caught"), count("missed"));
        (
            caught > 0 && missed == 0,
            format!(
                "{caught} caught, {missed} missed, {} unviable, {} timeouts",
                count("unviable"),
                count("timeout")
            ),
        )
    })
}

fn zoo_part(path: &Path) -> Part {
    part(path, |v| {
        let (caught, total) = (v["caught"].as_u64().unwrap_or(0), v["total"].as_u64().unwrap_or(0));
        let problems = v["problems"].as_array().map_or(0, Vec::len);
        (
            total > 0 && caught == total && problems == 0,
            format!("{caught} of {total} bugs caught, {problems} problems"),
        )
    })
}

fn write_all(cert: &Certificate, out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let json = serde_json::to_string_pretty(cert).expect("a certificate serialises") + "\n";
    for (name, text) in [
        ("certificate.json", json),
        ("certificate.md", markdown(cert)),
        ("certificate.xml", junit_xml(cert)),
        ("certificate.svg", svg(cert)),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// (family, target) -> (cases, every category passed).
type MatrixCells = BTreeMap<(String, String), (u64, bool)>;

/// Targets across (native first), families down: each cell its cases and
/// whether every category agreed with native with no failure.
fn matrix(cert: &Certificate) -> (Vec<String>, Vec<String>, MatrixCells) {
    let targets: Vec<String> = cert.runs.iter().map(|r| r.target.clone()).collect();
    let mut families: Vec<String> = Vec::new();
    let mut cells = MatrixCells::new();
    for c in &cert.cells {
        if !families.contains(&c.family) {
            families.push(c.family.clone());
        }
        let entry = cells.entry((c.family.clone(), c.target.clone())).or_insert((0, true));
        entry.0 += c.cases;
        entry.1 &= c.passed();
    }
    (targets, families, cells)
}

/// 1234567 as "1,234,567".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

fn yes(passed: bool) -> &'static str {
    if passed {
        "pass"
    } else {
        "FAIL"
    }
}

/// A release note's section.
pub fn markdown(cert: &Certificate) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "## crossdec certification: {}\n", yes(cert.passed));
    let _ = writeln!(
        m,
        "Revision `{}`{}, {}, crossdec {}.\n",
        cert.revision.as_deref().unwrap_or("unknown"),
        if cert.dirty == Some(true) {
            " (with uncommitted changes)"
        } else {
            ""
        },
        cert.toolchain.as_deref().unwrap_or("toolchain unknown"),
        cert.crossdec_version
    );
    let _ = writeln!(
        m,
        "| target | byte order | word | runs on | CPU features | whole suite | Miri | cases | failures | campaign cases/s | stages (s) |"
    );
    let _ = writeln!(m, "|---|---|---|---|---|---|---|---:|---:|---:|---:|");
    for (r, t) in cert.runs.iter().zip(&cert.target_stages) {
        let features = if r.cpu_features.is_empty() {
            "-".to_string()
        } else {
            r.cpu_features.join(" ")
        };
        let _ = writeln!(
            m,
            "| {} | {} | {}-bit | {} | {} | {} | {} | {} | {} | {} | {:.0} |",
            r.target,
            r.endian,
            r.pointer_width,
            r.emulator,
            features,
            t.suite.word(),
            t.miri.word(),
            thousands(r.cases),
            r.failures,
            t.cases_per_second.map_or("-".to_string(), |c| thousands(c as u64)),
            t.seconds
        );
    }
    let _ = writeln!(
        m,
        "\nStage seconds are summed; the Miri passes run beside the other stages. Each shard's wall time is its `{}` stage.",
        SHARD_STAGE
    );
    let (targets, families, cells) = matrix(cert);
    let _ = writeln!(
        m,
        "\nEvery family on every target (cases; ✅ same digests as native, no failure):\n"
    );
    let _ = writeln!(m, "| family | {} |", targets.join(" | "));
    let _ = writeln!(m, "|---|{}", "---:|".repeat(targets.len()));
    for family in &families {
        let row: Vec<String> = targets
            .iter()
            .map(|t| match cells.get(&(family.clone(), t.clone())) {
                Some(&(cases, true)) => format!("✅ {cases}"),
                Some(&(cases, false)) => format!("❌ {cases}"),
                None => "not run".to_string(),
            })
            .collect();
        let _ = writeln!(m, "| {family} | {} |", row.join(" | "));
    }
    let _ = writeln!(m, "\n| check | result | |\n|---|---|---|");
    let golden = if cert.golden.differences.is_empty() {
        format!("every family's digests match `{}`", cert.golden.file)
    } else {
        format!(
            "{} differences from `{}`",
            cert.golden.differences.len(),
            cert.golden.file
        )
    };
    let gate = if cert.gate_problems.is_empty() {
        "every target ran every family, category and kernel it could, and agreed with native".to_string()
    } else {
        format!("{} problems", cert.gate_problems.len())
    };
    for (name, passed, summary) in [
        ("golden digests", cert.golden.differences.is_empty(), golden),
        ("gate", cert.gate_problems.is_empty(), gate),
        ("fuzzing", cert.fuzz.passed, cert.fuzz.summary.clone()),
        ("mutation testing", cert.mutants.passed, cert.mutants.summary.clone()),
        ("bug zoo", cert.bug_zoo.passed, cert.bug_zoo.summary.clone()),
    ] {
        let _ = writeln!(m, "| {name} | {} | {summary} |", yes(passed));
    }
    let failed_stages: Vec<String> = cert
        .stages
        .iter()
        .filter(|s| !s.passed)
        .map(|s| format!("stage `{}` failed in shard `{}`: {}", s.name, s.shard, s.message))
        .collect();
    let shards: Vec<&Stage> = cert.stages.iter().filter(|s| s.name == SHARD_STAGE).collect();
    let stages_summary = format!(
        "{} stages, {} failed; shards' wall times: {}",
        cert.stages.len(),
        failed_stages.len(),
        shards
            .iter()
            .map(|s| format!("{} {:.0} s", s.shard, s.seconds))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        m,
        "| stages | {} | {stages_summary} |",
        yes(failed_stages.is_empty() && !cert.stages.is_empty())
    );
    for problem in cert
        .golden
        .differences
        .iter()
        .chain(&cert.gate_problems)
        .chain(&failed_stages)
    {
        let _ = writeln!(m, "\n- {problem}");
    }
    if cert.performance.is_some() {
        let _ = writeln!(
            m,
            "\nPerformance targets (measured, not judged): `certificate.json`, `performance`."
        );
    }
    m
}

/// One suite per target (a test case per family and category) and one
/// for the certificate's other checks.
pub fn junit_xml(cert: &Certificate) -> String {
    let mut suites: Vec<Suite> = cert
        .runs
        .iter()
        .map(|r| Suite {
            name: format!("certify/{}", r.target),
            seconds: 0.0,
            cases: cert
                .cells
                .iter()
                .filter(|c| c.target == r.target)
                .map(|c| TestCase {
                    classname: format!("certify/{}/{}", c.target, c.family),
                    name: c.category.clone(),
                    seconds: 0.0,
                    properties: vec![
                        ("cases".into(), c.cases.to_string()),
                        ("digest".into(), c.digest.clone()),
                    ],
                    verdict: if c.passed() {
                        Verdict::Passed
                    } else if !c.agrees {
                        Verdict::Failed {
                            message: format!("{}/{} on {} differs from native", c.family, c.category, c.target),
                            details: format!("cases {} digest {}", c.cases, c.digest),
                        }
                    } else {
                        Verdict::Failed {
                            message: format!("{} failed {} times on {}", c.family, c.family_failures, c.target),
                            details: format!("see {}/report.json", c.target),
                        }
                    },
                })
                .chain(
                    cert.target_stages
                        .iter()
                        .filter(|t| t.target == r.target)
                        .flat_map(|t| [("whole suite", t.suite), ("Miri", t.miri)])
                        .filter(|(_, outcome)| *outcome != Outcome::NotRequired)
                        .map(|(name, outcome)| TestCase {
                            classname: format!("certify/{}", r.target),
                            name: name.into(),
                            seconds: 0.0,
                            properties: Vec::new(),
                            verdict: if outcome.ok() {
                                Verdict::Passed
                            } else {
                                Verdict::Failed {
                                    message: format!("{name} on {}: {}", r.target, outcome.word()),
                                    details: "see the stages of certificate.json".into(),
                                }
                            },
                        }),
                )
                .collect(),
        })
        .collect();
    suites.push(Suite {
        name: "certify/stages".into(),
        seconds: cert.stages.iter().map(|s| s.seconds).sum(),
        cases: cert
            .stages
            .iter()
            .map(|s| TestCase {
                classname: format!("certify/stages/{}", s.shard),
                name: s.name.clone(),
                seconds: s.seconds,
                properties: Vec::new(),
                verdict: if s.passed {
                    Verdict::Passed
                } else {
                    Verdict::Failed {
                        message: format!("stage {} failed", s.name),
                        details: s.message.clone(),
                    }
                },
            })
            .collect(),
    });
    let check = |name: &str, passed: bool, details: String| TestCase {
        classname: "certify".into(),
        name: name.into(),
        seconds: 0.0,
        properties: Vec::new(),
        verdict: if passed {
            Verdict::Passed
        } else {
            Verdict::Failed {
                message: format!("{name} did not pass"),
                details,
            }
        },
    };
    suites.push(Suite {
        name: "certify".into(),
        seconds: 0.0,
        cases: vec![
            check(
                "golden digests",
                cert.golden.differences.is_empty(),
                cert.golden.differences.join("\n"),
            ),
            check("gate", cert.gate_problems.is_empty(), cert.gate_problems.join("\n")),
            check("fuzzing", cert.fuzz.passed, cert.fuzz.summary.clone()),
            check("mutation testing", cert.mutants.passed, cert.mutants.summary.clone()),
            check("bug zoo", cert.bug_zoo.passed, cert.bug_zoo.summary.clone()),
        ],
    });
    junit::document("crossdec certify", &suites)
}

/// The matrix as an SVG a release page can embed.
pub fn svg(cert: &Certificate) -> String {
    let (targets, families, cells) = matrix(cert);
    let (label_w, cell_w, cell_h, head_h) = (150, 120, 34, 64);
    // Wide enough for the title and the line of checks under one target too.
    let width = (label_w + cell_w * targets.len() + 10).max(560);
    // Two rows under the families: each target's whole suite and Miri pass.
    let height = head_h + cell_h * (families.len() + 2) + 40;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{width}" height="{height}" fill="white"/>"#);
    let title = format!(
        "crossdec certification: {} ({})",
        yes(cert.passed),
        cert.revision
            .as_deref()
            .map_or("unknown revision", |r| &r[..r.len().min(12)])
    );
    let _ = writeln!(
        s,
        r#"<text x="8" y="20" font-size="15" font-weight="bold">{}</text>"#,
        junit::escape(&title)
    );
    for (i, t) in targets.iter().enumerate() {
        let x = label_w + i * cell_w + cell_w / 2;
        let run = &cert.runs[i];
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{}" text-anchor="middle" font-weight="bold">{}</text>"#,
            head_h - 22,
            junit::escape(t.split('-').next().unwrap_or(t))
        );
        let _ = writeln!(
            s,
            r##"<text x="{x}" y="{}" text-anchor="middle" fill="#555">{}, {}-bit</text>"##,
            head_h - 8,
            if run.endian == "big" { "BE" } else { "LE" },
            run.pointer_width
        );
    }
    for (j, family) in families.iter().enumerate() {
        let y = head_h + j * cell_h;
        let _ = writeln!(
            s,
            r#"<text x="8" y="{}">{}</text>"#,
            y + cell_h / 2 + 4,
            junit::escape(family)
        );
        for (i, t) in targets.iter().enumerate() {
            let x = label_w + i * cell_w;
            let native = i == 0;
            let (fill, cases, verdict) = match cells.get(&(family.clone(), t.clone())) {
                Some(&(cases, true)) => (
                    "#c8e6c9",
                    thousands(cases),
                    if native { "native run" } else { "same digests" },
                ),
                Some(&(cases, false)) => ("#ffcdd2", thousands(cases), "DIFFERS or FAILED"),
                None => ("#eeeeee", String::new(), "not run"),
            };
            let _ = writeln!(
                s,
                r##"<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{fill}" stroke="#ffffff" stroke-width="2"/>"##
            );
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle" font-size="11"><tspan x="{0}" dy="0">{} cases</tspan><tspan x="{0}" dy="13">{}</tspan></text>"#,
                x + cell_w / 2,
                y + 14,
                cases,
                verdict
            );
        }
    }
    for (row, name) in ["whole suite", "Miri"].iter().enumerate() {
        let y = head_h + (families.len() + row) * cell_h;
        let _ = writeln!(
            s,
            r#"<text x="8" y="{}" font-style="italic">{name}</text>"#,
            y + cell_h / 2 + 4
        );
        for (i, t) in cert.target_stages.iter().enumerate() {
            let x = label_w + i * cell_w;
            let outcome = if row == 0 { t.suite } else { t.miri };
            let fill = match outcome {
                Outcome::Passed => "#c8e6c9",
                Outcome::NotRequired => "#f5f5f5",
                Outcome::Failed | Outcome::NotRun => "#ffcdd2",
            };
            let label = match outcome {
                Outcome::Passed => "passed",
                Outcome::Failed => "FAILED",
                Outcome::NotRun => "NOT RUN",
                Outcome::NotRequired => "not required",
            };
            let _ = writeln!(
                s,
                r##"<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{fill}" stroke="#ffffff" stroke-width="2"/>"##
            );
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle" font-size="11">{label}</text>"#,
                x + cell_w / 2,
                y + cell_h / 2 + 4
            );
        }
    }
    let checks = format!(
        "stages {} · golden {} · gate {} · fuzz {} · mutants {} · bug zoo {}",
        yes(!cert.stages.is_empty() && cert.stages.iter().all(|s| s.passed)),
        yes(cert.golden.differences.is_empty()),
        yes(cert.gate_problems.is_empty()),
        yes(cert.fuzz.passed),
        yes(cert.mutants.passed),
        yes(cert.bug_zoo.passed)
    );
    let _ = writeln!(
        s,
        r##"<text x="8" y="{}" fill="#333">{}</text>"##,
        height - 14,
        junit::escape(&checks)
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunOptions;

    fn native_manifest() -> Manifest {
        let options = RunOptions {
            cases: 1,
            seed: 3,
            ..RunOptions::default()
        };
        let reports: Vec<_> = families::all().iter().map(|f| f.run(&options)).collect();
        report::manifest(&reports, 3, 1)
    }

    fn passing(name: &str) -> Part {
        Part {
            file: name.into(),
            passed: true,
            summary: "ok".into(),
            content: None,
        }
    }

    fn certificate(cross: Manifest) -> Certificate {
        let native = native_manifest();
        let runs = vec![run_of(native, "native".into()), run_of(cross, "qemu".into())];
        let stages = passing_stages();
        let golden = GoldenCheck {
            file: "golden.json".into(),
            target: report::TARGET.into(),
            differences: Vec::new(),
        };
        Certificate::new(
            runs,
            stages,
            golden,
            passing("fuzz"),
            passing("mutants"),
            passing("zoo"),
            None,
            Provenance::default(),
        )
    }

    /// A target no test host is, so that its column is its own wherever
    /// the tests run.
    const CROSS: &str = "bigtest-unknown-linux-gnu";

    /// A shard whose stages, named as ci/test names them, all passed: the
    /// host's suite and Miri pass, the cross target's suite, both campaigns.
    fn passing_stages() -> Vec<Stage> {
        let text = format!(
            "native: cargo test\tpass\t10\n\
             Miri on {host}: the SIMD kernels\tpass\t20\n\
             native: crossdec run\tpass\t2\n\
             {CROSS} (big-endian, QEMU): cargo test --workspace --tests\tpass\t30\n\
             {CROSS}: crossdec run --like native\tpass\t4\n\
             gate\tpass\t1\n\
             {SHARD_STAGE}\tpass\t70\n",
            host = report::TARGET
        );
        stages::parse("all", &text).unwrap()
    }

    fn big_endian_copy(mut m: Manifest) -> Manifest {
        m.target = CROSS.into();
        m.target_endian = "big".into();
        m
    }

    #[test]
    fn agreeing_runs_pass_in_every_form() {
        let cert = certificate(big_endian_copy(native_manifest()));
        assert_eq!(cert.gate_problems, Vec::<String>::new());
        assert!(cert.passed);
        let families = families::all().len();
        assert!(cert.cells.iter().all(|c| c.agrees) && cert.cells.len() > 2 * families);
        assert!(markdown(&cert).starts_with("## crossdec certification: pass"));
        assert!(!markdown(&cert).contains('❌'));
        assert!(svg(&cert).contains("same digests") && !svg(&cert).contains("#ffcdd2"));
        assert!(junit_xml(&cert).contains(r#"failures="0""#));
    }

    #[test]
    fn one_changed_digest_fails_its_cell_the_gate_and_the_certificate() {
        let mut cross = big_endian_copy(native_manifest());
        let family = &mut cross.families[1];
        let (category, digest) = family.category_digests.iter_mut().next().unwrap();
        let category = category.clone();
        digest.replace_range(..1, if digest.starts_with('0') { "1" } else { "0" });
        let cert = certificate(cross);
        assert!(!cert.passed);
        assert!(!cert.gate_problems.is_empty());
        let failing: Vec<&Cell> = cert.cells.iter().filter(|c| !c.passed()).collect();
        assert_eq!(failing.len(), 1);
        assert_eq!(
            (failing[0].target.as_str(), failing[0].category.as_str()),
            (CROSS, category.as_str())
        );
        assert_eq!(svg(&cert).matches("#ffcdd2").count(), 1);
        assert_eq!(markdown(&cert).matches('❌').count(), 1);
        let xml = junit_xml(&cert);
        assert!(xml.contains(&format!("{category} on {CROSS} differs from native")));
        assert!(xml.starts_with("<?xml") && xml.contains(r#"name="gate""#));
    }

    #[test]
    fn a_failure_on_a_target_fails_its_family_cells() {
        let mut cross = big_endian_copy(native_manifest());
        cross.families[0].failures = 2;
        cross.failures = 2;
        let cert = certificate(cross);
        assert!(!cert.passed);
        let family = &cert.runs[1].manifest.families[0].family;
        assert!(cert.cells.iter().filter(|c| !c.passed()).all(|c| &c.family == family));
        assert!(junit_xml(&cert).contains(&format!("failed 2 times on {CROSS}")));
    }

    #[test]
    fn parts_are_judged_from_their_reports() {
        let dir = std::env::temp_dir().join(format!("crossdec-certify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, json: &str| {
            let path = dir.join(name);
            std::fs::write(&path, json).unwrap();
            path
        };
        let fuzz_ok = write(
            "f1",
            r#"[{"target":"a","executions":10,"executions_per_second":5,"crashes":0}]"#,
        );
        let fuzz_crash = write(
            "f2",
            r#"[{"target":"a","executions":10,"executions_per_second":5,"crashes":1}]"#,
        );
        assert!(fuzz_part(&fuzz_ok).passed);
        assert!(!fuzz_part(&fuzz_crash).passed);
        assert!(fuzz_part(&fuzz_ok).summary.contains("slowest a at 5/s"));
        let mutants_ok = write("m1", r#"{"total":{"caught":9,"missed":0}}"#);
        let mutants_missed = write("m2", r#"{"total":{"caught":9,"missed":1}}"#);
        assert!(mutants_part(&mutants_ok).passed && !mutants_part(&mutants_missed).passed);
        let zoo_ok = write("z1", r#"{"caught":3,"total":3,"problems":[]}"#);
        let zoo_missed = write("z2", r#"{"caught":2,"total":3,"problems":[]}"#);
        assert!(zoo_part(&zoo_ok).passed && !zoo_part(&zoo_missed).passed);
        let missing = zoo_part(&dir.join("absent"));
        assert!(!missing.passed && missing.summary == "missing");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn with_stages(stages: Vec<Stage>) -> Certificate {
        let mut cert = certificate(big_endian_copy(native_manifest()));
        let runs = std::mem::take(&mut cert.runs);
        Certificate::new(
            runs,
            stages,
            cert.golden,
            cert.fuzz,
            cert.mutants,
            cert.bug_zoo,
            None,
            Provenance::default(),
        )
    }

    #[test]
    fn every_target_needs_its_whole_suite_and_the_miri_targets_their_miri_pass() {
        let cert = with_stages(passing_stages());
        assert!(cert.passed);
        let suites: Vec<Outcome> = cert.target_stages.iter().map(|t| t.suite).collect();
        assert_eq!(suites, [Outcome::Passed, Outcome::Passed]);
        assert!(markdown(&cert).contains("0 failed; shards' wall times: all 70 s"));
        assert!(junit_xml(&cert).contains(r#"name="whole suite""#));

        let without = |needle: &str| {
            let stages: Vec<Stage> = passing_stages()
                .into_iter()
                .filter(|s| !s.name.contains(needle))
                .collect();
            with_stages(stages)
        };
        let no_cross_suite = without("cargo test --workspace");
        assert!(!no_cross_suite.passed);
        assert_eq!(no_cross_suite.target_stages[1].suite, Outcome::NotRun);
        assert!(svg(&no_cross_suite).contains("NOT RUN"));
        assert!(junit_xml(&no_cross_suite).contains(&format!("whole suite on {CROSS}: NOT RUN")));
        let no_native_suite = without("native: cargo test");
        assert!(!no_native_suite.passed);
        if stages::MIRI_TARGETS.contains(&report::TARGET) {
            let no_miri = without("Miri on");
            assert!(!no_miri.passed);
            assert_eq!(no_miri.target_stages[0].miri, Outcome::NotRun);
        }
        assert!(!with_stages(Vec::new()).passed);
    }

    #[test]
    fn a_failed_stage_fails_the_certificate_and_is_named() {
        let mut stages = passing_stages();
        let gate = stages.iter_mut().find(|s| s.name == "gate").unwrap();
        gate.passed = false;
        gate.message = "exit code 1".into();
        let cert = with_stages(stages);
        assert!(!cert.passed);
        let md = markdown(&cert);
        assert!(md.contains("stage `gate` failed in shard `all`: exit code 1"), "{md}");
        assert!(md.contains("| stages | FAIL |"));
        assert!(junit_xml(&cert).contains("stage gate failed"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
