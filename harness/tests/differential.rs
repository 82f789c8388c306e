//! `crossdec run` as a test: every family's generators against every kernel
//! available here, one test per family (so a test runner can spread them).
//! This is what cargo-mutants runs against each kernel mutant (`ci/mutants`),
//! so it stays small: CROSSDEC_TEST_CASES generator calls per category
//! (default 12), a fixed seed, no peers.

use crossdec_harness::engine::{RunOptions, Role};
use crossdec_harness::families;

fn check(family: &str) {
    let cases = std::env::var("CROSSDEC_TEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(12);
    let f = families::by_name(family).unwrap_or_else(|| panic!("no family {family}"));
    let kernels: Vec<String> = f
        .implementation_list()
        .into_iter()
        .filter(|(_, role, available)| *role == Role::Kernel && *available)
        .map(|(name, _, _)| name)
        .collect();
    assert!(!kernels.is_empty(), "{family}: no kernel available here");
    let report = f.run(&RunOptions { cases, seed: 0x5eed, implementations: kernels, shrink_budget: 200, ..RunOptions::default() });
    for failure in report.failures.iter().take(3) {
        eprintln!(
            "{family} {} {}: expected {} got {} (input {:?})",
            failure.category, failure.implementation, failure.minimized_expected, failure.minimized_got, failure.minimized_hex
        );
    }
    assert_eq!(report.failure_count, 0, "{family}: kernels disagree with the reference");
    assert!(report.categories.iter().all(|c| c.cases > 0), "{family}: a category generated nothing");
}

#[test]
fn qwp_ts() {
    check("qwp-ts");
}

#[test]
fn pg_bytea() {
    check("pg-bytea");
}

#[test]
fn tsfile_ts2diff() {
    check("tsfile-ts2diff");
}

#[test]
fn tsfile_gorilla() {
    check("tsfile-gorilla");
}

#[test]
fn tsfile_plain() {
    check("tsfile-plain");
}

#[test]
fn tsfile_rle() {
    check("tsfile-rle");
}

#[test]
fn cube_columnar() {
    check("cube-columnar");
}

#[test]
fn every_family_is_checked() {
    let names: Vec<_> = families::all().iter().map(|f| f.name()).collect();
    assert_eq!(
        names,
        ["qwp-ts", "pg-bytea", "tsfile-ts2diff", "tsfile-gorilla", "tsfile-plain", "tsfile-rle", "cube-columnar"],
        "a family was added: give it a test above"
    );
}
