//! cube-columnar: the generators reach every outcome kind, and a small
//! campaign (plus a proptest over generator seeds) finds no disagreement.

use std::collections::BTreeMap;

use crossdec_harness::engine::{case_rng, Buffers, RunOptions, Spec};
use crossdec_harness::families::cube::{self, run_reference, CubeColumnar, CubeFault};
use proptest::prelude::*;

fn kind(outcome: &Result<crossdec_harness::families::cube::Batch, CubeFault>) -> String {
    match outcome {
        Ok(b) if b.rows == 0 => "ok-empty".into(),
        Ok(_) => "ok".into(),
        Err(e) => format!("{e:?}").split([' ', '{']).next().unwrap().to_string(),
    }
}

#[test]
fn generators_reach_every_outcome_kind() {
    let family = CubeColumnar;
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    // Not the large tables: size is their only point, and 60 of them were
    // most of this binary's time under QEMU.
    for category in family.categories().into_iter().filter(|c| !c.large) {
        let mut ok_in_category = 0;
        for index in 0..60 {
            let mut rng = case_rng(7, family.name(), category.name, index);
            for case in category.generate(index, &mut rng) {
                for step in &case.steps {
                    let outcome = run_reference(step);
                    ok_in_category += u64::from(matches!(&outcome, Ok(b) if b.rows > 0));
                    *seen.entry(kind(&outcome)).or_default() += 1;
                }
            }
        }
        // Only the structure category is mostly errors; the damaged ones
        // must still have some successes (e.g. truncation at the end).
        if ![
            "structure",
            "unmappable",
            "malformed-bitflip",
            "malformed-truncation",
            "server-form-damaged",
        ]
        .contains(&category.name)
        {
            assert!(
                ok_in_category > 10,
                "{}: only {ok_in_category} non-empty successes",
                category.name
            );
        }
    }
    for want in [
        "ok",
        "ok-empty",
        "UnsupportedType",
        "BadLiteral",
        "BadLimit",
        "InvalidJson",
        "BadShape",
        "DuplicateMember",
        "ColumnCount",
        "Ragged",
        "UnknownMember",
        "Unmappable",
        "Overflow",
    ] {
        assert!(seen.contains_key(want), "no generated case gives {want}: {seen:?}");
    }
}

#[test]
fn small_campaign_agrees() {
    let report = cube::campaign().run(&RunOptions {
        cases: 40,
        seed: 11,
        ..Default::default()
    });
    assert_eq!(report.failure_count, 0, "{:#?}", report.failures);
    assert!(report.implementations.iter().all(|i| i.ran && i.compared > 0));
}

proptest! {
    // PROPTEST_CASES raises it (certification), 64 by default.
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)))]
    #[test]
    fn kernel_matches_reference_on_generated_cases(seed in any::<u64>(), pick in 0usize..12) {
        let family = CubeColumnar;
        let categories = family.categories();
        let category = &categories[pick % categories.len()];
        let mut rng = case_rng(seed, family.name(), category.name, 0);
        for case in category.generate(0, &mut rng) {
            for imp in cube::campaign().implementations() {
                let mut decoder = imp.decoder();
                let mut buffers = Buffers::new(0x5A);
                for step in &case.steps {
                    let expected = run_reference(step);
                    let got = decoder.decode(step, &mut buffers);
                    prop_assert_eq!(&got, &expected);
                    prop_assert_eq!(buffers.end_call(), vec![]);
                }
            }
        }
    }
}
