//! `crossdec run` as a test: every family in the registry, its generators
//! against every kernel available here. This is what cargo-mutants runs
//! against each kernel mutant (`ci/mutants`), so it stays small:
//! CROSSDEC_TEST_CASES generator calls per category (default 12), a fixed
//! seed, no peers. A new family is tested here as soon as it is registered.

use crossdec_harness::engine::{Role, RunOptions};
use crossdec_harness::families;

#[test]
fn every_family_agrees_with_its_reference() {
    let cases = std::env::var("CROSSDEC_TEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let mut problems = Vec::new();
    let all = families::all();
    assert!(all.len() >= 7, "the registry lost families: {}", all.len());
    for family in &all {
        let name = family.name();
        let kernels: Vec<String> = family
            .implementation_list()
            .into_iter()
            .filter(|i| i.role == Role::Kernel && i.available)
            .map(|i| i.name)
            .collect();
        if kernels.is_empty() {
            problems.push(format!("{name}: no kernel available here"));
            continue;
        }
        let report = family.run(&RunOptions {
            cases,
            seed: 0x5eed,
            implementations: kernels,
            shrink_budget: 200,
            ..RunOptions::default()
        });
        for f in report.failures.iter().take(3) {
            problems.push(format!(
                "{name} {} {}: expected {} got {} (input {:?})",
                f.category, f.implementation, f.minimized_expected, f.minimized_got, f.minimized_hex
            ));
        }
        if report.failure_count > 0 {
            problems.push(format!(
                "{name}: {} disagreements with the reference",
                report.failure_count
            ));
        }
        for c in report.categories.iter().filter(|c| c.cases == 0) {
            problems.push(format!("{name}: category {} generated nothing", c.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
