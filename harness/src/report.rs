//! Campaign output: the summary table, the JSON report and the manifest.
//!
//! The manifest is what proves a run happened where it claims: target
//! triple, byte order, implementations that ran, cases per category and a
//! digest of every outcome (canonical little-endian serialization, so equal
//! runs on different architectures give equal digests).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::engine::FamilyReport;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub crossdec_version: String,
    pub target: String,
    /// `cfg!(target_endian)`: "little" or "big".
    pub target_endian: String,
    pub seed: u64,
    pub cases: u64,
    pub families: Vec<FamilyManifest>,
    pub failures: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FamilyManifest {
    pub family: String,
    /// Every registered implementation, and whether it ran here.
    pub implementations: BTreeMap<String, bool>,
    /// Every registered kernel (ours, not peers), available here or not.
    pub kernels: Vec<String>,
    /// The kernels that ran here.
    pub kernels_ran: Vec<String>,
    pub cases_per_category: BTreeMap<String, u64>,
    pub digest: String,
    pub failures: u64,
}

pub fn endian() -> &'static str {
    if cfg!(target_endian = "big") {
        "big"
    } else {
        "little"
    }
}

pub fn manifest(reports: &[FamilyReport], seed: u64, cases: u64) -> Manifest {
    Manifest {
        crossdec_version: env!("CARGO_PKG_VERSION").to_string(),
        target: crate::TARGET.to_string(),
        target_endian: endian().to_string(),
        seed,
        cases,
        failures: reports.iter().map(|r| r.failure_count).sum(),
        families: reports
            .iter()
            .map(|r| FamilyManifest {
                family: r.family.clone(),
                implementations: r.implementations.iter().map(|i| (i.name.clone(), i.ran)).collect(),
                kernels: r
                    .implementations
                    .iter()
                    .filter(|i| i.role == crate::Role::Kernel)
                    .map(|i| i.name.clone())
                    .collect(),
                kernels_ran: r
                    .implementations
                    .iter()
                    .filter(|i| i.ran && i.role == crate::Role::Kernel)
                    .map(|i| i.name.clone())
                    .collect(),
                cases_per_category: r.categories.iter().map(|c| (c.name.clone(), c.cases)).collect(),
                digest: r.digest.clone(),
                failures: r.failure_count,
            })
            .collect(),
    }
}

/// The whole JSON report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    pub manifest: Manifest,
    pub families: Vec<FamilyReport>,
}

/// A human summary: cases per category, implementations, failures.
pub fn summary(reports: &[FamilyReport]) -> String {
    let mut s = String::new();
    for r in reports {
        let _ = writeln!(
            s,
            "== {} (seed {}, {} cases, {:.2}s, digest {}) ==",
            r.family,
            r.seed,
            r.total_cases(),
            r.seconds,
            &r.digest[..16]
        );
        let _ = writeln!(s, "  {:<24} {:>9} {:>9} {:>9}", "category", "cases", "steps", "failures");
        for c in &r.categories {
            let _ = writeln!(s, "  {:<24} {:>9} {:>9} {:>9}", c.name, c.cases, c.steps, c.failures);
        }
        let _ = writeln!(s, "  {:<24} {:>6} {:>10} {:>9}  tolerated", "implementation", "role", "compared", "failures");
        for i in &r.implementations {
            let role = format!("{:?}", i.role).to_lowercase();
            if !i.ran {
                let why = if i.available { "not selected" } else { "not available on this host" };
                let _ = writeln!(s, "  {:<24} {:>6} {:>10} {:>9}  ({why})", i.name, role, "-", "-");
                continue;
            }
            let tolerated: Vec<String> = i.tolerated.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(s, "  {:<24} {:>6} {:>10} {:>9}  {}", i.name, role, i.compared, i.failures, tolerated.join(" "));
        }
        for f in &r.failures {
            let _ = writeln!(s, "  FAILURE {} in {} (seed {}, call {}, case {}, step {})", f.implementation, f.category, f.seed, f.index, f.sub_index, f.step);
            let _ = writeln!(s, "    expected: {}", clip(&f.expected));
            let _ = writeln!(s, "    got:      {}", clip(&f.got));
            for fault in &f.buffer_faults {
                let _ = writeln!(s, "    buffer:   {fault}");
            }
            let _ = writeln!(s, "    minimized reproducer ({} step(s), canonical input hex; `crossdec check --family {} --hex HEX`):", f.minimized_hex.len(), f.family);
            for h in &f.minimized_hex {
                let _ = writeln!(s, "      {h}");
            }
            let _ = writeln!(s, "    minimized expected: {}", clip(&f.minimized_expected));
            let _ = writeln!(s, "    minimized got:      {}", clip(&f.minimized_got));
        }
        if r.failure_count as usize > r.failures.len() {
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
