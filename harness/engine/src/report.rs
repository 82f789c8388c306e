//! What a run produces: per-family reports, the manifest that proves where
//! and what ran, and a summary for people.
//!
//! The manifest is what the gate reads: target triple, byte order,
//! implementations that ran, cases and digest per category, tolerated
//! differences. Digests are over canonical bytes (see [`crate::digest`]), so
//! equal runs on different architectures give equal digests.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::buffers::BufferFault;
use crate::campaign::Role;

/// The target triple this engine was built for.
pub const TARGET: &str = env!("CROSSDEC_ENGINE_TARGET");

/// One category's share of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CategoryReport {
    /// The category's name.
    pub name: String,
    /// Generator calls made.
    #[serde(default)]
    pub calls: u64,
    /// Cases generated.
    pub cases: u64,
    /// Decode steps in those cases.
    pub steps: u64,
    /// Failing (case, implementation) pairs.
    pub failures: u64,
    /// SHA-256 over the category's cases (see [`crate::digest`]).
    pub digest: String,
    /// Differences tolerated here, by allowed-difference rule id.
    #[serde(default)]
    pub tolerated: BTreeMap<String, u64>,
    /// Decode calls compared here, by implementation (every implementation
    /// that ran, zeros included).
    #[serde(default)]
    pub compared: BTreeMap<String, u64>,
    /// Wall time, minimizing included.
    #[serde(default)]
    pub seconds: f64,
}

/// One implementation's share of a run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ImplementationReport {
    /// Its name.
    pub name: String,
    /// Kernel or peer.
    pub role: Role,
    /// Whether this host can run it.
    pub available: bool,
    /// Whether it ran in this campaign (available and selected).
    pub ran: bool,
    /// Decode calls compared against the reference.
    pub compared: u64,
    /// Cases it failed.
    pub failures: u64,
    /// Differences tolerated, by allowed-difference rule id.
    pub tolerated: BTreeMap<String, u64>,
    /// Inputs an external subject said it does not handle (not compared).
    #[serde(default)]
    pub unsupported: u64,
    /// Inputs not sent to an external subject after it was declared broken.
    #[serde(default)]
    pub not_asked: u64,
    /// Categories declared outside its scope (it may compare nothing there).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside_scope: Vec<String>,
    /// The command of an external subject (`docs/reference/subjects.md`); `None` for
    /// a built-in implementation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

/// One failing case, with its minimized reproducer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Failure {
    /// The family.
    pub family: String,
    /// The category.
    pub category: String,
    /// The run's seed.
    pub seed: u64,
    /// Generator call index.
    pub index: u64,
    /// The case's position among that call's cases.
    pub sub_index: usize,
    /// The implementation that disagreed.
    pub implementation: String,
    /// The first step that disagreed.
    pub step: usize,
    /// The reference's outcome (for people).
    pub expected: String,
    /// The implementation's outcome, or its panic.
    pub got: String,
    /// Writes outside the written range of caller buffers.
    pub buffer_faults: Vec<BufferFault>,
    /// Each step's input, canonical bytes in hex.
    pub input_hex: Vec<String>,
    /// The minimized reproducer, in the same form.
    pub minimized_hex: Vec<String>,
    /// What the reference gives on the reproducer.
    pub minimized_expected: String,
    /// What the implementation gives on it (buffer faults included).
    pub minimized_got: String,
    /// Whether the reproducer was minimized (false when the minimizing
    /// budget ran out before this failure's turn; it is then the whole input).
    #[serde(default)]
    pub minimized: bool,
    /// The reproducer's size: canonical bytes over its steps.
    #[serde(default)]
    pub reproducer_bytes: u64,
    /// The kind of difference, for grouping: where the outcomes first
    /// differ (list positions left out) and how.
    #[serde(default)]
    pub symptom: String,
    /// Where the reproducer's outcomes first differ, with the elements
    /// around it (empty when the reproducer did not fail on its own).
    #[serde(default)]
    pub difference: String,
    /// The external subject's command, when the implementation is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Kernel or peer.
    #[serde(default = "kernel")]
    pub role: Role,
    /// The complete command that replays the reproducer, when a command
    /// line set the run up (the engine does not know one: `crossdec` fills
    /// it in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_command: Option<String>,
    /// The Rust call that replays it on the campaign
    /// ([`Campaign::replay_hex`](crate::Campaign::replay_hex)).
    #[serde(default)]
    pub replay_rust: String,
}

fn kernel() -> Role {
    Role::Kernel
}

/// What made a run fail besides disagreements, or cut it short.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Problem {
    /// No implementation ran (none selected, or none available).
    NoImplementation,
    /// Implementations ran but none compared anything (every category
    /// outside the scope of every one of them, say).
    NoComparisons {
        /// Cases generated.
        cases: u64,
    },
    /// A category generated no case.
    NoCases {
        /// The category.
        category: String,
    },
    /// An implementation compared no case of a category that is not
    /// outside its declared scope.
    NothingCompared {
        /// The implementation.
        implementation: String,
        /// The category.
        category: String,
        /// Inputs it answered "unsupported" there.
        unsupported: u64,
        /// Inputs not sent to it there (a subject declared broken).
        not_asked: u64,
    },
    /// An external subject failed [`BROKEN_AFTER`](crate::subject::BROKEN_AFTER)
    /// times in a row and was asked nothing more.
    SubjectBroken {
        /// The subject.
        implementation: String,
        /// Inputs not sent to it.
        not_asked: u64,
        /// Its last failure.
        last_failure: String,
    },
    /// An external subject never answered anything: a setup error (the
    /// command does not exist, does not speak the protocol), not a finding
    /// per input.
    SubjectNeverAnswered {
        /// The subject.
        implementation: String,
        /// Its last failure.
        last_failure: String,
    },
    /// The run stopped after `max_failures` failures; the rest did not run.
    StoppedEarly {
        /// The limit.
        max_failures: u64,
        /// Generator calls that did not run.
        calls_skipped: u64,
    },
}

impl Problem {
    /// Whether it fails the run by itself (a run cut short fails through
    /// the failures that cut it).
    pub fn fails(&self) -> bool {
        !matches!(self, Problem::StoppedEarly { .. })
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::NoImplementation => write!(f, "no implementation ran: none was selected and available"),
            Problem::NoComparisons { cases } => write!(
                f,
                "no implementation compared anything: {cases} cases generated, every answer outside a scope or unsupported"
            ),
            Problem::NoCases { category } => write!(f, "category {category} generated no case"),
            Problem::NothingCompared {
                implementation,
                category,
                unsupported,
                not_asked,
            } => {
                write!(f, "{implementation} compared nothing in category {category}")?;
                match (unsupported, not_asked) {
                    (0, 0) => Ok(()),
                    (u, 0) => write!(f, " (it answered \"unsupported\" to all {u} inputs; declare the category outside its scope if that is intended)"),
                    (_, n) => write!(f, " ({n} inputs not asked: the subject was broken)"),
                }
            }
            Problem::SubjectBroken {
                implementation,
                not_asked,
                last_failure,
            } => write!(
                f,
                "subject {implementation} declared broken after {} failures in a row; {not_asked} inputs not asked; the last failure: {last_failure}",
                crate::subject::BROKEN_AFTER
            ),
            Problem::SubjectNeverAnswered {
                implementation,
                last_failure,
            } => write!(f, "subject {implementation} never answered: {last_failure}"),
            Problem::StoppedEarly {
                max_failures,
                calls_skipped,
            } => write!(
                f,
                "stopped after {max_failures} failures (the failure limit): {calls_skipped} generator calls did not run"
            ),
        }
    }
}

/// An allowed difference as reports list it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AllowedDifferenceReport {
    /// The rule's id.
    pub id: String,
    /// The peer it applies to.
    pub implementation: String,
    /// Why it is allowed.
    pub reason: String,
    /// (category name prefix, largest share of the peer's calls there).
    #[serde(default)]
    pub bounds: Vec<(String, f64)>,
}

/// An allowed difference that explained more of a category than its bound
/// lets it: a failure of the run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BoundExceeded {
    /// The rule's id.
    pub rule: String,
    /// The peer it applies to.
    pub implementation: String,
    /// The category.
    pub category: String,
    /// Differences the rule explained there.
    pub tolerated: u64,
    /// The peer's decode calls compared there.
    pub compared: u64,
    /// The rule's share there.
    pub bound: f64,
    /// The uses that share allows for `compared` calls.
    pub allowed: u64,
}

/// One family's campaign.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FamilyReport {
    /// The family.
    pub family: String,
    /// The seed.
    pub seed: u64,
    /// Generator calls per category before each category's scale.
    pub cases_per_category_call: u64,
    /// Per category, in run order.
    pub categories: Vec<CategoryReport>,
    /// Every registered implementation.
    pub implementations: Vec<ImplementationReport>,
    /// The allowed differences in force.
    pub allowed_differences: Vec<AllowedDifferenceReport>,
    /// Every failure found (up to the failure limit), smallest reproducer
    /// first; see [`failures_left_out`](Self::failures_left_out).
    pub failures: Vec<Failure>,
    /// Failures found but not kept: found by calls already running when
    /// the failure limit was reached.
    #[serde(default)]
    pub failures_left_out: u64,
    /// What else failed the run or cut it short.
    #[serde(default)]
    pub problems: Vec<Problem>,
    /// Allowed differences used beyond their bounds.
    #[serde(default)]
    pub bounds_exceeded: Vec<BoundExceeded>,
    /// Every failing (case, implementation) pair, plus every bound exceeded
    /// and every [`Problem`] that [fails](Problem::fails).
    pub failure_count: u64,
    /// SHA-256 over every case's canonical input and reference outcome.
    pub digest: String,
    /// Wall time.
    pub seconds: f64,
}

impl FamilyReport {
    /// Cases over every category.
    pub fn total_cases(&self) -> u64 {
        self.categories.iter().map(|c| c.cases).sum()
    }
}

/// Proof of what a run did and where.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// The engine's version.
    pub crossdec_version: String,
    /// The target triple the run was built for.
    pub target: String,
    /// `cfg!(target_endian)`: "little" or "big".
    pub target_endian: String,
    /// `usize`'s width in bits: 32 or 64.
    #[serde(default)]
    pub pointer_width: u32,
    /// The CPU features the run detected (its CPU's, or its emulator's):
    /// the ones the kernels select on.
    #[serde(default)]
    pub cpu_features: Vec<String>,
    /// The seed.
    pub seed: u64,
    /// Generator calls per category before scaling, for the categories a
    /// run gave no exact count ([`FamilyManifest::calls_per_category`] has
    /// what each category really ran).
    pub cases: u64,
    /// Per family.
    pub families: Vec<FamilyManifest>,
    /// Failures over every family.
    pub failures: u64,
}

/// One family in a manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FamilyManifest {
    /// The family.
    pub family: String,
    /// Every registered implementation, and whether it ran here.
    pub implementations: BTreeMap<String, bool>,
    /// Every registered kernel (ours, not peers), available here or not.
    pub kernels: Vec<String>,
    /// The kernels this host can run (its CPU has their features).
    #[serde(default)]
    pub kernels_available: Vec<String>,
    /// The kernels that ran here.
    pub kernels_ran: Vec<String>,
    /// Cases per category.
    pub cases_per_category: BTreeMap<String, u64>,
    /// Generator calls per category: what `--like` replays, so another
    /// target sees exactly these cases.
    #[serde(default)]
    pub calls_per_category: BTreeMap<String, u64>,
    /// Digest per category.
    #[serde(default)]
    pub category_digests: BTreeMap<String, String>,
    /// The family's digest.
    pub digest: String,
    /// Tolerated differences per peer, by rule id.
    #[serde(default)]
    pub tolerated: BTreeMap<String, BTreeMap<String, u64>>,
    /// Decode calls compared, by implementation that ran: the gate fails a
    /// run in which a selected implementation compared nothing.
    #[serde(default)]
    pub compared: BTreeMap<String, u64>,
    /// The external subjects that ran (`docs/reference/subjects.md`), by name. They
    /// are not in the kernel lists: the gate's kernel coverage is about the
    /// registry, and a subject runs where its command was given.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub subjects: BTreeMap<String, SubjectRecord>,
    /// Failures.
    pub failures: u64,
}

/// An external subject in a manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SubjectRecord {
    /// Its command.
    pub command: String,
    /// Kernel or peer.
    pub role: Role,
    /// Decode calls compared.
    pub compared: u64,
    /// Inputs it said it does not handle.
    pub unsupported: u64,
}

/// The CPU features this process detects at run time, among those the
/// kernels select on (under QEMU, the emulated CPU's).
pub fn cpu_features() -> Vec<String> {
    #[allow(unused_mut)]
    let mut found: Vec<&str> = Vec::new();
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    {
        macro_rules! detect {
            ($($f:tt),*) => {$( if std::arch::is_x86_feature_detected!($f) { found.push($f) } )*};
        }
        detect!(
            "sse2",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "popcnt",
            "bmi1",
            "bmi2",
            "avx",
            "avx2",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512vbmi"
        );
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            found.push("neon");
        }
    }
    #[cfg(all(target_arch = "arm", target_feature = "neon"))]
    found.push("neon");
    found.into_iter().map(String::from).collect()
}

/// "little" or "big": this host's byte order.
pub fn endian() -> &'static str {
    if cfg!(target_endian = "big") {
        "big"
    } else {
        "little"
    }
}

/// The manifest of a run of `reports` on this target.
pub fn manifest(reports: &[FamilyReport], seed: u64, cases: u64) -> Manifest {
    Manifest {
        crossdec_version: env!("CARGO_PKG_VERSION").to_string(),
        target: TARGET.to_string(),
        target_endian: endian().to_string(),
        pointer_width: usize::BITS,
        cpu_features: cpu_features(),
        seed,
        cases,
        failures: reports.iter().map(|r| r.failure_count).sum(),
        families: reports.iter().map(family_manifest).collect(),
    }
}

fn family_manifest(r: &FamilyReport) -> FamilyManifest {
    let kernels = |keep: fn(&crate::report::ImplementationReport) -> bool| {
        r.implementations
            .iter()
            .filter(|i| i.role == Role::Kernel && i.subject.is_none() && keep(i))
            .map(|i| i.name.clone())
            .collect()
    };
    FamilyManifest {
        family: r.family.clone(),
        implementations: r.implementations.iter().map(|i| (i.name.clone(), i.ran)).collect(),
        kernels: kernels(|_| true),
        kernels_available: kernels(|i| i.available),
        kernels_ran: kernels(|i| i.ran),
        cases_per_category: r.categories.iter().map(|c| (c.name.clone(), c.cases)).collect(),
        calls_per_category: r.categories.iter().map(|c| (c.name.clone(), c.calls)).collect(),
        category_digests: r
            .categories
            .iter()
            .map(|c| (c.name.clone(), c.digest.clone()))
            .collect(),
        digest: r.digest.clone(),
        tolerated: r
            .implementations
            .iter()
            .filter(|i| !i.tolerated.is_empty())
            .map(|i| (i.name.clone(), i.tolerated.clone()))
            .collect(),
        compared: r
            .implementations
            .iter()
            .filter(|i| i.ran)
            .map(|i| (i.name.clone(), i.compared))
            .collect(),
        subjects: r
            .implementations
            .iter()
            .filter(|i| i.ran)
            .filter_map(|i| {
                let command = i.subject.clone()?;
                Some((
                    i.name.clone(),
                    SubjectRecord {
                        command,
                        role: i.role,
                        compared: i.compared,
                        unsupported: i.unsupported,
                    },
                ))
            })
            .collect(),
        failures: r.failure_count,
    }
}

/// The whole JSON report of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    /// The manifest.
    pub manifest: Manifest,
    /// Every family's report.
    pub families: Vec<FamilyReport>,
}

/// A summary for people: per family its categories, implementations,
/// tolerated differences with their reasons, failures grouped by symptom
/// (smallest reproducer first) and problems; then one line of totals and
/// the verdict with its reason.
pub fn summary(reports: &[FamilyReport]) -> String {
    let mut s = String::new();
    for r in reports {
        family_summary(&mut s, r);
    }
    s.push_str(&totals(reports));
    s
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Kernel => "kernel",
        Role::Peer => "peer",
    }
}

fn family_summary(s: &mut String, r: &FamilyReport) {
    let digest = r.digest.get(..16).unwrap_or(&r.digest);
    let _ = writeln!(
        s,
        "== {} (seed {}, {} cases, {:.2}s, digest {digest}) ==",
        r.family,
        r.seed,
        r.total_cases(),
        r.seconds
    );
    let _ = writeln!(
        s,
        "  {:<24} {:>9} {:>9} {:>9}",
        "category", "cases", "steps", "failures"
    );
    for c in &r.categories {
        let _ = writeln!(s, "  {:<24} {:>9} {:>9} {:>9}", c.name, c.cases, c.steps, c.failures);
    }
    let _ = writeln!(
        s,
        "  {:<24} {:>6} {:>10} {:>9}  tolerated",
        "implementation", "role", "compared", "failures"
    );
    for i in &r.implementations {
        let role = role_name(i.role);
        if !i.ran {
            let why = if i.available {
                "not selected"
            } else {
                "not available on this host"
            };
            let _ = writeln!(s, "  {:<24} {:>6} {:>10} {:>9}  ({why})", i.name, role, "-", "-");
            continue;
        }
        let mut notes: Vec<String> = i.tolerated.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if i.unsupported > 0 {
            notes.push(format!("(unsupported: {})", i.unsupported));
        }
        if i.not_asked > 0 {
            notes.push(format!("(not asked: {})", i.not_asked));
        }
        if !i.outside_scope.is_empty() {
            notes.push(format!("(outside its scope: {})", i.outside_scope.join(", ")));
        }
        let _ = writeln!(
            s,
            "  {:<24} {:>6} {:>10} {:>9}  {}",
            i.name,
            role,
            i.compared,
            i.failures,
            notes.join(" ")
        );
    }
    // Each rule used, with what it allows and why.
    for a in &r.allowed_differences {
        let used: u64 = r
            .implementations
            .iter()
            .filter(|i| i.name == a.implementation)
            .filter_map(|i| i.tolerated.get(&a.id))
            .sum();
        if used > 0 {
            let _ = writeln!(
                s,
                "  tolerated {} ({} differences of {}): {}",
                a.id, used, a.implementation, a.reason
            );
        }
    }
    failure_groups(s, r);
    for b in &r.bounds_exceeded {
        let _ = writeln!(
            s,
            "  BOUND EXCEEDED: {} explained {} of {}'s {} calls in {}, more than the {} its share of {:.1}% allows",
            b.rule,
            b.tolerated,
            b.implementation,
            b.compared,
            b.category,
            b.allowed,
            100.0 * b.bound
        );
    }
    for (label, line) in problem_lines(r) {
        let _ = writeln!(s, "  {label}: {line}");
    }
}

/// A family's problems for people: an implementation that compared nothing
/// in several categories is one line naming them.
fn problem_lines(r: &FamilyReport) -> Vec<(&'static str, String)> {
    let mut lines = Vec::new();
    let mut nothing: Vec<(&str, Vec<&str>, u64, u64)> = Vec::new();
    for p in &r.problems {
        match p {
            Problem::NothingCompared {
                implementation,
                category,
                unsupported,
                not_asked,
            } => match nothing.iter_mut().find(|(i, ..)| *i == implementation.as_str()) {
                Some(entry) => {
                    entry.1.push(category);
                    entry.2 += unsupported;
                    entry.3 += not_asked;
                }
                None => nothing.push((implementation, vec![category], *unsupported, *not_asked)),
            },
            other => lines.push((if other.fails() { "PROBLEM" } else { "NOTE" }, other.to_string())),
        }
    }
    for (implementation, categories, unsupported, not_asked) in nothing {
        let mut line = format!(
            "{implementation} compared nothing in {} categor{}: {}",
            categories.len(),
            if categories.len() == 1 { "y" } else { "ies" },
            categories.join(", ")
        );
        if not_asked > 0 {
            let _ = write!(line, " ({not_asked} inputs not asked: the subject was broken)");
        } else if unsupported > 0 {
            let _ = write!(
                line,
                " (it answered \"unsupported\" to all {unsupported} inputs there; \
                 `--outside-scope {implementation}=CATEGORY,...` declares categories a subject does not handle)"
            );
        }
        lines.insert(0, ("PROBLEM", line));
    }
    lines
}

/// The failures, grouped by symptom, each group shown by its smallest
/// reproducer.
fn failure_groups(s: &mut String, r: &FamilyReport) {
    if r.failures.is_empty() {
        return;
    }
    // `failures` is sorted smallest reproducer first, so each group's first
    // member is its smallest and groups come in the order of their smallest.
    let mut groups: Vec<(&str, Vec<&Failure>)> = Vec::new();
    for f in &r.failures {
        match groups.iter_mut().find(|(symptom, _)| *symptom == f.symptom) {
            Some((_, members)) => members.push(f),
            None => groups.push((&f.symptom, vec![f])),
        }
    }
    let found = r.failures.len() as u64 + r.failures_left_out;
    let _ = writeln!(
        s,
        "  {found} failure(s) in {} group(s) by symptom, smallest reproducer first{}:",
        groups.len(),
        if r.failures_left_out > 0 {
            format!(
                " ({} found after the failure limit are counted, not kept)",
                r.failures_left_out
            )
        } else {
            String::new()
        }
    );
    for (n, (symptom, members)) in groups.iter().enumerate() {
        let f = members[0];
        let mut implementations: Vec<&str> = members.iter().map(|m| m.implementation.as_str()).collect();
        implementations.sort_unstable();
        implementations.dedup();
        let mut categories: Vec<&str> = members.iter().map(|m| m.category.as_str()).collect();
        categories.sort_unstable();
        categories.dedup();
        let _ = writeln!(
            s,
            "  [{}] {symptom}: {} failure(s) of {} in {}",
            n + 1,
            members.len(),
            implementations.join(", "),
            categories.join(", ")
        );
        let _ = writeln!(
            s,
            "    smallest: {} in {} (seed {}, call {}, case {}, step {}), {} byte(s) in {} step(s){}",
            f.implementation,
            f.category,
            f.seed,
            f.index,
            f.sub_index,
            f.step,
            f.reproducer_bytes,
            f.minimized_hex.len(),
            if f.minimized {
                ""
            } else {
                " (not minimized: the minimizing time ran out)"
            }
        );
        for line in f.difference.lines() {
            let _ = writeln!(s, "    {line}");
        }
        if f.minimized_expected.is_empty() {
            // The reproducer did not fail on its own: what the run saw.
            let _ = writeln!(s, "    expected (in the run): {}", clip(&f.expected));
            let _ = writeln!(s, "    got (in the run):      {}", clip(&f.got));
        } else {
            let _ = writeln!(s, "    expected: {}", clip(&f.minimized_expected));
            let _ = writeln!(s, "    got:      {}", clip(&f.minimized_got));
        }
        let _ = writeln!(s, "    input:    {}", f.minimized_hex.join(" "));
        if let Some(command) = &f.replay_command {
            let _ = writeln!(s, "    replay:   {command}");
        }
        let _ = writeln!(s, "    in Rust:  {}", f.replay_rust);
    }
}

/// The closing lines: totals over every family, and the verdict with its
/// reason.
fn totals(reports: &[FamilyReport]) -> String {
    let cases: u64 = reports.iter().map(FamilyReport::total_cases).sum();
    let mut compared: BTreeMap<&str, u64> = BTreeMap::new();
    let mut tolerated: BTreeMap<&str, u64> = BTreeMap::new();
    let mut fewest: Option<(u64, String)> = None;
    for r in reports {
        for i in r.implementations.iter().filter(|i| i.ran) {
            let kind = match (i.subject.is_some(), i.role) {
                (true, _) => "subjects",
                (false, Role::Kernel) => "kernels",
                (false, Role::Peer) => "peers",
            };
            *compared.entry(kind).or_default() += i.compared;
            for (rule, n) in &i.tolerated {
                *tolerated.entry(rule).or_default() += n;
            }
            if fewest.as_ref().is_none_or(|(n, _)| i.compared < *n) {
                fewest = Some((i.compared, format!("{}/{}", r.family, i.name)));
            }
        }
    }
    let seconds: f64 = reports.iter().map(|r| r.seconds).sum();
    let all: u64 = compared.values().sum();
    let by_kind: Vec<String> = compared.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let mut line = format!(
        "total: {} families, {cases} cases, {all} comparisons ({})",
        reports.len(),
        by_kind.join(", ")
    );
    if let Some((n, name)) = &fewest {
        let _ = write!(line, ", fewest {n} by {name}");
    }
    if tolerated.is_empty() {
        line.push_str(", no tolerated differences");
    } else {
        let rules: Vec<String> = tolerated.iter().map(|(k, n)| format!("{k}={n}")).collect();
        let _ = write!(line, ", tolerated {}", rules.join(" "));
    }
    let _ = writeln!(line, ", {seconds:.2}s");
    let _ = writeln!(line, "verdict: {}", verdict(reports));
    line
}

/// "ok: ..." or "FAIL: ..." with the reason.
pub fn verdict(reports: &[FamilyReport]) -> String {
    let mut reasons = Vec::new();
    let disagreements: u64 = reports
        .iter()
        .map(|r| r.categories.iter().map(|c| c.failures).sum::<u64>())
        .sum();
    if disagreements > 0 {
        let families: Vec<&str> = reports
            .iter()
            .filter(|r| r.categories.iter().any(|c| c.failures > 0))
            .map(|r| r.family.as_str())
            .collect();
        reasons.push(format!("{disagreements} disagreement(s) in {}", families.join(", ")));
    }
    let bounds: usize = reports.iter().map(|r| r.bounds_exceeded.len()).sum();
    if bounds > 0 {
        reasons.push(format!("{bounds} allowed-difference bound(s) exceeded"));
    }
    for r in reports {
        for (label, line) in problem_lines(r) {
            if label == "PROBLEM" {
                let short = line.split(" (").next().unwrap_or(&line).to_string();
                reasons.push(format!("{}: {short}", r.family));
            }
        }
    }
    if reports.is_empty() {
        reasons.push("no family ran".into());
    }
    if reasons.is_empty() {
        let cases: u64 = reports.iter().map(FamilyReport::total_cases).sum();
        format!("ok: every selected implementation compared cases in every category and agreed with the reference ({cases} cases)")
    } else {
        let shown = reasons.len().min(5);
        let more = if reasons.len() > shown {
            format!("; and {} more", reasons.len() - shown)
        } else {
            String::new()
        };
        format!("FAIL: {}{more}", reasons[..shown].join("; "))
    }
}

/// Whether the reports pass: no failure, no failing problem, and at least
/// one family.
pub fn passed(reports: &[FamilyReport]) -> bool {
    !reports.is_empty() && reports.iter().all(|r| r.failure_count == 0)
}

fn clip(text: &str) -> String {
    const MAX: usize = 400;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} chars)", &text[..end], text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> FamilyReport {
        FamilyReport {
            family: "f".into(),
            seed: 3,
            cases_per_category_call: 2,
            categories: vec![CategoryReport {
                name: "c".into(),
                calls: 2,
                cases: 4,
                steps: 5,
                failures: 1,
                digest: "ab".repeat(32),
                tolerated: BTreeMap::new(),
                seconds: 0.25,
                compared: BTreeMap::new(),
            }],
            implementations: vec![
                ImplementationReport {
                    name: "k".into(),
                    role: Role::Kernel,
                    available: true,
                    ran: true,
                    compared: 10,
                    failures: 1,
                    tolerated: BTreeMap::new(),
                    unsupported: 0,
                    not_asked: 0,
                    outside_scope: vec![],
                    subject: None,
                },
                ImplementationReport {
                    name: "p".into(),
                    role: Role::Peer,
                    available: true,
                    ran: true,
                    compared: 4,
                    failures: 0,
                    tolerated: BTreeMap::from([("rule".into(), 2)]),
                    unsupported: 0,
                    not_asked: 0,
                    outside_scope: vec![],
                    subject: None,
                },
            ],
            allowed_differences: vec![],
            failures_left_out: 0,
            problems: vec![],
            bounds_exceeded: vec![],
            failures: vec![Failure {
                family: "f".into(),
                category: "c".into(),
                seed: 3,
                index: 1,
                sub_index: 0,
                implementation: "k".into(),
                step: 0,
                expected: "Ok(1)".into(),
                got: "Ok(2)".into(),
                buffer_faults: vec![BufferFault::NotFinished { buffer: "out".into() }],
                input_hex: vec!["0102".into()],
                minimized_hex: vec!["01".into()],
                minimized_expected: "Ok(1)".into(),
                minimized_got: "Ok(2)".into(),
                minimized: true,
                reproducer_bytes: 1,
                symptom: "Ok[]: value differs".into(),
                difference: String::new(),
                subject: None,
                role: Role::Kernel,
                replay_command: None,
                replay_rust: String::new(),
            }],
            failure_count: 3,
            digest: "cd".repeat(32),
            seconds: 0.5,
        }
    }

    #[test]
    fn the_manifest_carries_what_the_gate_reads() {
        let m = manifest(&[report()], 3, 2);
        assert_eq!((m.seed, m.cases, m.failures, m.target.as_str()), (3, 2, 3, TARGET));
        assert_eq!(
            m.target_endian,
            if cfg!(target_endian = "big") { "big" } else { "little" }
        );
        let f = &m.families[0];
        assert_eq!(f.kernels, ["k"]);
        assert_eq!(f.kernels_available, ["k"]);
        assert_eq!(f.kernels_ran, ["k"]);
        assert_eq!(
            f.implementations,
            BTreeMap::from([("k".into(), true), ("p".into(), true)])
        );
        assert_eq!(f.cases_per_category, BTreeMap::from([("c".into(), 4)]));
        assert_eq!(f.calls_per_category, BTreeMap::from([("c".into(), 2)]));
        assert_eq!(f.category_digests, BTreeMap::from([("c".into(), "ab".repeat(32))]));
        assert_eq!(
            f.tolerated,
            BTreeMap::from([("p".into(), BTreeMap::from([("rule".into(), 2)]))])
        );
        assert_eq!((f.digest.as_str(), f.failures), ("cd".repeat(32).as_str(), 3));
    }

    fn failure(category: &str, symptom: &str, hex: &str) -> Failure {
        Failure {
            category: category.into(),
            symptom: symptom.into(),
            minimized_hex: vec![hex.into()],
            reproducer_bytes: hex.len() as u64 / 2,
            difference: format!("first difference at Ok[1]: expected 2, got {hex}"),
            replay_command: Some(format!("crossdec check --family f --impl k --hex {hex}")),
            replay_rust: format!("campaign.replay_hex(\"k\", &[\"{hex}\"])"),
            ..report().failures[0].clone()
        }
    }

    #[test]
    fn the_summary_shows_counts_failures_and_the_reproducer() {
        let text = summary(&[report()]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "== f (seed 3, 4 cases, 0.50s, digest cdcdcdcdcdcdcdcd) ==");
        assert!(
            text.contains("  c                                4         5         1\n"),
            "{text}"
        );
        assert!(
            text.contains("  p                          peer          4         0  rule=2\n"),
            "{text}"
        );
        assert!(
            text.contains("  [1] Ok[]: value differs: 1 failure(s) of k in c\n"),
            "{text}"
        );
        assert!(
            text.contains("    smallest: k in c (seed 3, call 1, case 0, step 0), 1 byte(s) in 1 step(s)\n"),
            "{text}"
        );
        assert!(text.contains("    input:    01\n"), "{text}");
        assert!(text.contains("    got:      Ok(2)\n"), "{text}");
        assert!(text.ends_with("verdict: FAIL: 1 disagreement(s) in f\n"), "{text}");
        assert!(
            text.contains("total: 1 families, 4 cases, 14 comparisons (kernels 10, peers 4), fewest 4 by f/p, tolerated rule=2, 0.50s\n"),
            "{text}"
        );
    }

    #[test]
    fn failures_are_grouped_by_symptom_each_group_shown_by_its_smallest() {
        let mut r = report();
        // Sorted smallest first, as a run leaves them.
        r.failures = vec![
            failure("c", "Ok.len(): length", "0a"),
            failure("d", "Ok[]: value differs", "0b0c"),
            failure("c", "Ok.len(): length", "0d0e0f"),
            failure("d", "Ok.len(): length", "10111213"),
        ];
        r.failures_left_out = 2;
        let text = summary(&[r]);
        assert!(
            text.contains("  6 failure(s) in 2 group(s) by symptom, smallest reproducer first (2 found after the failure limit are counted, not kept):\n"),
            "{text}"
        );
        let first = text
            .find("  [1] Ok.len(): length: 3 failure(s) of k in c, d\n")
            .expect(&text);
        let second = text
            .find("  [2] Ok[]: value differs: 1 failure(s) of k in d\n")
            .expect(&text);
        assert!(first < second, "{text}");
        // Each group's smallest: 0a for the first, 0b0c for the second.
        assert!(text.contains("    input:    0a\n    replay:   crossdec check --family f --impl k --hex 0a\n    in Rust:  campaign.replay_hex(\"k\", &[\"0a\"])\n"), "{text}");
        assert!(text.contains("    input:    0b0c\n"), "{text}");
        assert!(
            !text.contains("0d0e0f"),
            "only the smallest of a group is shown: {text}"
        );
        assert!(
            text.contains("    first difference at Ok[1]: expected 2, got 0a\n"),
            "{text}"
        );
    }

    #[test]
    fn problems_fail_the_verdict_and_tolerated_rules_are_explained() {
        let mut r = report();
        r.failures.clear();
        r.categories[0].failures = 0;
        r.failure_count = 2;
        r.allowed_differences = vec![AllowedDifferenceReport {
            id: "rule".into(),
            implementation: "p".into(),
            reason: "p trims trailing zeros".into(),
            bounds: vec![],
        }];
        r.problems = vec![
            Problem::NothingCompared {
                implementation: "s".into(),
                category: "c".into(),
                unsupported: 4,
                not_asked: 0,
            },
            Problem::NothingCompared {
                implementation: "s".into(),
                category: "d".into(),
                unsupported: 2,
                not_asked: 0,
            },
            Problem::StoppedEarly {
                max_failures: 1,
                calls_skipped: 9,
            },
        ];
        let text = summary(&[r.clone()]);
        assert!(
            text.contains("  tolerated rule (2 differences of p): p trims trailing zeros\n"),
            "{text}"
        );
        assert!(text.contains("  PROBLEM: s compared nothing in 2 categories: c, d (it answered \"unsupported\" to all 6 inputs there;"), "{text}");
        assert!(
            text.contains("  NOTE: stopped after 1 failures (the failure limit): 9 generator calls did not run\n"),
            "{text}"
        );
        assert!(
            text.ends_with("verdict: FAIL: f: s compared nothing in 2 categories: c, d\n"),
            "{text}"
        );
        assert!(!passed(&[r.clone()]));
        r.problems.clear();
        r.failure_count = 0;
        assert!(summary(&[r.clone()]).ends_with("verdict: ok: every selected implementation compared cases in every category and agreed with the reference (4 cases)\n"));
        assert!(passed(&[r]));
        assert!(!passed(&[]), "no family ran: not a pass");
    }

    #[test]
    fn summary_names_every_bound_exceeded_and_counts_it_as_listed() {
        let exceeded = FamilyReport {
            failures: vec![],
            failure_count: 1,
            bounds_exceeded: vec![BoundExceeded {
                rule: "rule".into(),
                implementation: "p".into(),
                category: "c".into(),
                tolerated: 3,
                compared: 4,
                bound: 0.0,
                allowed: 0,
            }],
            ..report()
        };
        let text = summary(&[exceeded]);
        assert!(
            text.contains(
                "  BOUND EXCEEDED: rule explained 3 of p's 4 calls in c, more than the 0 its share of 0.0% allows\n"
            ),
            "{text}"
        );
        assert!(!text.contains("failures in all"), "{text}");
    }

    #[test]
    fn long_texts_are_clipped_at_a_character_boundary() {
        assert_eq!(clip("short"), "short");
        let long = format!("{}é{}", "a".repeat(399), "b".repeat(100));
        assert_eq!(clip(&long), format!("{}... (501 chars)", "a".repeat(399)));
        assert_eq!(clip(&"x".repeat(400)), "x".repeat(400));
    }
}
