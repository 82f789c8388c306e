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
    /// The command of an external subject (`docs/subjects.md`); `None` for
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
    /// The first failures, minimized.
    pub failures: Vec<Failure>,
    /// Allowed differences used beyond their bounds.
    #[serde(default)]
    pub bounds_exceeded: Vec<BoundExceeded>,
    /// Every failing (case, implementation) pair, plus every bound exceeded.
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
    /// The external subjects that ran (`docs/subjects.md`), by name. They
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

/// A summary for people: cases per category, implementations, failures with
/// their reproducers.
pub fn summary(reports: &[FamilyReport]) -> String {
    let mut s = String::new();
    for r in reports {
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
            let role = match i.role {
                Role::Kernel => "kernel",
                Role::Peer => "peer",
            };
            if !i.ran {
                let why = if i.available {
                    "not selected"
                } else {
                    "not available on this host"
                };
                let _ = writeln!(s, "  {:<24} {:>6} {:>10} {:>9}  ({why})", i.name, role, "-", "-");
                continue;
            }
            let mut tolerated: Vec<String> = i.tolerated.iter().map(|(k, v)| format!("{k}={v}")).collect();
            if i.unsupported > 0 {
                tolerated.push(format!("(unsupported: {})", i.unsupported));
            }
            let _ = writeln!(
                s,
                "  {:<24} {:>6} {:>10} {:>9}  {}",
                i.name,
                role,
                i.compared,
                i.failures,
                tolerated.join(" ")
            );
        }
        for f in &r.failures {
            let _ = writeln!(
                s,
                "  FAILURE {} in {} (seed {}, call {}, case {}, step {})",
                f.implementation, f.category, f.seed, f.index, f.sub_index, f.step
            );
            let _ = writeln!(s, "    expected: {}", clip(&f.expected));
            let _ = writeln!(s, "    got:      {}", clip(&f.got));
            for fault in &f.buffer_faults {
                let _ = writeln!(s, "    buffer:   {fault}");
            }
            let _ = writeln!(
                s,
                "    minimized reproducer ({} step(s), canonical input hex; `crossdec check --family {} --hex HEX`):",
                f.minimized_hex.len(),
                f.family
            );
            for h in &f.minimized_hex {
                let _ = writeln!(s, "      {h}");
            }
            let _ = writeln!(s, "    minimized expected: {}", clip(&f.minimized_expected));
            let _ = writeln!(s, "    minimized got:      {}", clip(&f.minimized_got));
        }
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
        if r.failure_count as usize > r.failures.len() + r.bounds_exceeded.len() {
            let _ = writeln!(s, "  ... {} failures in all", r.failure_count);
        }
    }
    s
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
                    subject: None,
                },
            ],
            allowed_differences: vec![],
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
            text.contains("  FAILURE k in c (seed 3, call 1, case 0, step 0)\n"),
            "{text}"
        );
        assert!(text.contains("    buffer:   out: taken but never checked\n"), "{text}");
        assert!(
            text.contains("`crossdec check --family f --hex HEX`):\n      01\n"),
            "{text}"
        );
        assert!(text.ends_with("  ... 3 failures in all\n"), "{text}");
        // Every failure listed: no count line.
        let all_listed = FamilyReport {
            failure_count: 1,
            ..report()
        };
        assert!(!summary(&[all_listed]).contains("failures in all"));
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
