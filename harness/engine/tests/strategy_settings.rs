//! A category from a proptest strategy draws and shrinks the same cases
//! whatever `PROPTEST_*` variables the environment holds: its runner's
//! settings are fixed, never read from them, or a user's exported
//! `PROPTEST_MAX_LOCAL_REJECTS` would change a campaign's cases and its
//! digests. proptest reads the variables once per process, so the test
//! runs itself again as a child process with them set and compares.
//!
//! Native x86_64 only: a cross target's tests run under QEMU user
//! emulation, which cannot start a child of the test binary's own
//! architecture, and the settings are the same code on every target.
#![cfg(all(feature = "proptest", target_arch = "x86_64"))]

use std::process::Command;

use crossdec_engine::bytes::Payload;
use crossdec_engine::proptest::prelude::*;
use crossdec_engine::proptest::test_runner::Config;
use crossdec_engine::{case_rng, Campaign, Category, Outcome, RunOptions, Spec};

const CHILD: &str = "CROSSDEC_STRATEGY_SETTINGS_CHILD";
const TEST: &str = "a_strategys_cases_ignore_proptest_variables";

/// Every value the categories below draw in 40 calls, one line each.
fn drawn<I: std::fmt::Debug>(category: &Category<I>) -> String {
    (0..40)
        .map(|i| {
            format!(
                "{:?}\n",
                category.generate(i, &mut case_rng(3, "settings", category.name, i))
            )
        })
        .collect()
}

/// A run of bytes whose length is drawn first (a `prop_flat_map`), wrong
/// in the kernel below when it holds a byte above 200, minimized by the
/// strategy's tree alone (no spec shrinker): where it ends depends on how
/// often the flat map may draw the bytes again for a shorter length (the
/// runner's `cases` and `max_flat_map_regens`).
struct Runs;
impl Spec for Runs {
    type Input = Payload;
    type Output = u64;
    type Error = ();
    fn name(&self) -> &'static str {
        "runs"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        let runs = (0u8..60).prop_flat_map(|n| prop::collection::vec(any::<u8>(), usize::from(n)).prop_map(Payload));
        vec![Category::from_strategy("runs", 1.0, runs)]
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        Ok(input.0.iter().map(|&b| u64::from(b)).sum())
    }
    fn shrink(&self, _: &Payload) -> Vec<Payload> {
        Vec::new()
    }
}

fn minimized() -> String {
    let campaign = Campaign::new(Runs).kernel("high-bytes", true, || {
        |input: &Payload, _: &mut _| Ok(input.0.iter().map(|&b| u64::from(b) + u64::from(b > 200)).sum())
    });
    let report = campaign.run(&RunOptions {
        cases: 30,
        max_failures: 1,
        ..RunOptions::default()
    });
    let failure = report.failures.first().expect("the kernel's bug is found");
    format!("{:?}", failure.minimized_hex)
}

fn everything() -> String {
    let sized = Category::from_strategy("sized", 1.0, prop::collection::vec(any::<u8>(), 0..50));
    let filtered = Category::from_strategy("filtered", 1.0, any::<u8>().prop_filter("rare", |v| *v % 64 == 7));
    format!("{}{}{}", drawn(&sized), drawn(&filtered), minimized())
}

#[test]
fn a_strategys_cases_ignore_proptest_variables() {
    if std::env::var_os(CHILD).is_some() {
        // The variables reach proptest: its own defaults take them.
        let defaults = Config::default();
        assert_eq!(
            (defaults.cases, defaults.max_local_rejects, defaults.max_flat_map_regens),
            (1, 1, 0)
        );
        print!("{}", everything());
        return;
    }
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1", "--quiet"])
        .env(CHILD, "1")
        .env("PROPTEST_CASES", "1")
        .env("PROPTEST_MAX_LOCAL_REJECTS", "1")
        .env("PROPTEST_MAX_FLAT_MAP_REGENS", "0")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "the child run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    let expected = everything();
    assert!(
        stdout.contains(&expected),
        "with PROPTEST_* variables set the cases differ:\n{stdout}\nwithout them:\n{expected}"
    );
}
