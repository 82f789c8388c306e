//! The engine on its own, with a tiny spec: what a run counts and reports,
//! how it judges kernels and peers, minimizes, digests and erases types.
//! These are the tests that judge the engine's mutants, so each checks
//! exact numbers and texts.

use std::collections::BTreeMap;
// Counters are `AtomicUsize`: 32-bit powerpc has no 64-bit atomics.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crossdec_engine::bytes::{self, Payload};
use crossdec_engine::report::{self, BoundExceeded};
use crossdec_engine::{
    canonical_enum, case_rng, AllowedDifference, Buffers, Campaign, Case, Category, Family, Outcome, Progress, Role,
    RunOptions, Spec,
};

/// Sums of byte pairs; an odd length is an error at the last byte.
struct Pairs;

#[derive(Debug, Clone, PartialEq)]
enum Odd {
    At { offset: usize },
}
canonical_enum!(Odd { At { offset } = 0 });

fn pairs(input: &Payload) -> Outcome<Pairs> {
    if input.0.len() % 2 == 1 {
        return Err(Odd::At {
            offset: input.0.len() - 1,
        });
    }
    Ok(input.0.chunks(2).map(|p| u16::from(p[0]) + u16::from(p[1])).collect())
}

impl Spec for Pairs {
    type Input = Payload;
    type Output = Vec<u16>;
    type Error = Odd;
    fn name(&self) -> &'static str {
        "pairs"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        vec![
            // Call i: i bytes of value i (so call 3 is odd).
            Category::new("counted", 1.0, |i, _| {
                vec![Case::one(Payload(vec![i as u8; i as usize]))]
            }),
            // Two cases per call, two steps each.
            Category::new("steps", 0.5, |i, _| {
                let two = Case {
                    steps: vec![Payload(vec![1, 2]), Payload(vec![i as u8; 4])],
                };
                vec![two.clone(), two]
            }),
        ]
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        pairs(input)
    }
    fn shrink(&self, input: &Payload) -> Vec<Payload> {
        bytes::shrink(input)
    }
}

fn options(cases: u64) -> RunOptions {
    RunOptions {
        cases,
        seed: 9,
        ..RunOptions::default()
    }
}

#[test]
fn a_clean_run_counts_every_case_step_and_call() {
    let report = Campaign::new(Pairs).kernel_fn("k", pairs).run(&options(6));
    assert_eq!(report.family, "pairs");
    assert_eq!((report.seed, report.cases_per_category_call), (9, 6));
    let c: Vec<_> = report
        .categories
        .iter()
        .map(|c| (c.name.as_str(), c.cases, c.steps, c.failures))
        .collect();
    // 6 calls of "counted"; ceil(6 * 0.5) = 3 calls of "steps", 2 cases of 2 steps each.
    assert_eq!(c, [("counted", 6, 6, 0), ("steps", 6, 12, 0)]);
    assert_eq!(report.total_cases(), 12);
    let k = &report.implementations[0];
    // A kernel decodes every step twice (two canaries).
    assert_eq!(
        (k.name.as_str(), k.role, k.available, k.ran, k.compared, k.failures),
        ("k", Role::Kernel, true, true, 36, 0)
    );
    assert_eq!(report.failure_count, 0);
    assert!(report.failures.is_empty());
    assert_eq!(report.digest.len(), 64);
    assert!(report.categories.iter().all(|c| c.digest.len() == 64));
    let calls: Vec<_> = report.categories.iter().map(|c| (c.name.as_str(), c.calls)).collect();
    assert_eq!(calls, [("counted", 6), ("steps", 3)]);
}

#[test]
fn exact_calls_replace_the_scaled_count_for_the_categories_named() {
    let campaign = Campaign::new(Pairs).kernel_fn("k", pairs);
    let exact = campaign.run(&RunOptions {
        calls: [("steps".to_string(), 5)].into(),
        ..options(6)
    });
    let c: Vec<_> = exact
        .categories
        .iter()
        .map(|c| (c.name.as_str(), c.calls, c.cases))
        .collect();
    // "counted" is not named: ceil(6 * 1.0) calls; "steps" runs exactly 5 (2 cases each).
    assert_eq!(c, [("counted", 6, 6), ("steps", 5, 10)]);
    // The same calls reached through `cases` give the same cases, so the
    // same digests: ceil(10 * 0.5) = 5 calls of "steps".
    let scaled = campaign.run(&options(10));
    assert_eq!(exact.categories[1].digest, scaled.categories[1].digest);
    assert_ne!(exact.categories[0].digest, scaled.categories[0].digest);
    let manifest = crossdec_engine::report::manifest(&[exact], 9, 6);
    assert_eq!(
        manifest.families[0].calls_per_category,
        [("counted".to_string(), 6), ("steps".to_string(), 5)].into()
    );
}

/// Wrong on inputs of 6 bytes or more: the last sum is off by one.
fn wrong_from_six(input: &Payload) -> Outcome<Pairs> {
    pairs(input).map(|mut v| {
        if input.0.len() >= 6 {
            *v.last_mut().unwrap() += 1;
        }
        v
    })
}

#[test]
fn a_wrong_kernel_is_reported_minimized_and_counted() {
    let wrong = wrong_from_six;
    let report = Campaign::new(Pairs).kernel_fn("wrong", wrong).run(&RunOptions {
        max_failures: 2,
        ..options(10)
    });
    // Calls 6..=9 of "counted" (lengths 6, 8 fail; 7, 9 are odd: errors agree).
    assert_eq!(report.categories[0].failures, 2);
    assert_eq!(report.failure_count, 2);
    assert_eq!(report.implementations[0].failures, 2);
    let f = &report.failures[0];
    assert_eq!(
        (
            f.family.as_str(),
            f.category.as_str(),
            f.seed,
            f.index,
            f.sub_index,
            f.step
        ),
        ("pairs", "counted", 9, 6, 0, 0)
    );
    assert_eq!(f.implementation, "wrong");
    assert_eq!(f.input_hex, ["060606060606"]);
    // Minimized to the smallest failing input: 6 bytes (bytes removed keep
    // failing only while the length stays 6 or more and even), each
    // lowered to zero.
    assert_eq!(f.minimized_hex, ["000000000000"]);
    assert_eq!(f.expected, "Ok([12, 12, 12])");
    assert_eq!(f.got, "Ok([12, 12, 13])");
    assert_eq!(f.minimized_expected, "Ok([0, 0, 0])");
    assert_eq!(f.minimized_got, "Ok([0, 0, 1])");
    assert!(f.buffer_faults.is_empty());
    // Where the values first differ, not the whole Vec.
    assert!(f.difference.contains("[2]: expected 0, got 1"), "{}", f.difference);
    assert!(
        report
            .failures
            .windows(2)
            .all(|w| w[0].reproducer_bytes <= w[1].reproducer_bytes),
        "smallest reproducer first"
    );
    // The Rust call the report prints replays the reproducer: the wrong
    // kernel still differs on it, a right one agrees.
    assert_eq!(
        f.replay_rust,
        format!("campaign.replay_hex(\"wrong\", &[\"{}\"])", f.minimized_hex[0])
    );
    let steps: Vec<&str> = f.minimized_hex.iter().map(String::as_str).collect();
    let replayed = Campaign::new(Pairs)
        .kernel_fn("wrong", wrong)
        .replay_hex("wrong", &steps);
    assert!(replayed.unwrap_err().contains("disagrees with the reference at step 0"));
    assert_eq!(
        Campaign::new(Pairs)
            .kernel_fn("right", pairs)
            .replay_hex("right", &steps),
        Ok(())
    );
    assert!(Campaign::new(Pairs)
        .kernel_fn("right", pairs)
        .replay_hex("nosuch", &steps)
        .is_err());
    assert!(Campaign::new(Pairs)
        .kernel_fn("right", pairs)
        .replay_hex("right", &["0"])
        .is_err());
    // max_failures stops the run at the limit and says so; the stop alone
    // is not what fails it (the failure is).
    let capped = Campaign::new(Pairs).kernel_fn("wrong", wrong).run(&RunOptions {
        max_failures: 1,
        ..options(10)
    });
    // Calls already running when the limit is reached finish: what they
    // find is counted, not kept.
    assert_eq!(capped.failures.len(), 1);
    assert_eq!(capped.failure_count, 1 + capped.failures_left_out);
    assert!(matches!(
        capped.problems.as_slice(),
        [crossdec_engine::Problem::StoppedEarly { max_failures: 1, .. }]
    ));
    assert!(!capped.problems[0].fails());
}

#[test]
fn assert_agrees_passes_a_right_kernel_and_panics_with_the_replay_for_a_wrong_one() {
    let report = Campaign::new(Pairs)
        .kernel_fn("right", pairs)
        .assert_agrees(&options(6));
    assert_eq!(report.failure_count, 0);
    let wrong = wrong_from_six;
    let panic = std::panic::catch_unwind(|| {
        Campaign::new(Pairs)
            .kernel_fn("wrong", wrong)
            .assert_agrees(&options(10))
    })
    .expect_err("a wrong kernel fails the assertion");
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(
        message.starts_with("crossdec: pairs did not agree with its reference"),
        "{message}"
    );
    assert!(
        message.contains("campaign.replay_hex(\"wrong\", &[\"000000000000\"])"),
        "{message}"
    );
    assert!(message.contains("verdict: FAIL"), "{message}");
    // Nothing compared (no implementation) is not agreement either.
    assert!(std::panic::catch_unwind(|| Campaign::new(Pairs).assert_agrees(&options(2))).is_err());
}

#[test]
fn a_failure_in_a_later_step_names_that_step_and_stops_the_case() {
    let second_step_wrong =
        |input: &Payload| pairs(input).map(|v| if input.0.len() == 4 { vec![9; v.len()] } else { v });
    let report = Campaign::new(Pairs).kernel_fn("k", second_step_wrong).run(&RunOptions {
        categories: vec!["steps".into()],
        ..options(2)
    });
    assert_eq!(report.categories.len(), 1);
    assert_eq!(report.failure_count, 2);
    assert_eq!(report.failures[0].step, 1);
    // Per failing case: step 0 and step 1 of the first pass, then it stops.
    assert_eq!(report.implementations[0].compared, 4);
}

#[test]
fn peers_run_once_and_only_their_allowed_differences_tolerate() {
    let lax = |input: &Payload| {
        if input.0.len() % 2 == 1 {
            Ok(vec![])
        } else {
            pairs(input)
        }
    };
    let rule = AllowedDifference::<Pairs> {
        id: "lax-accepts-odd",
        implementation: "lax",
        reason: "accepts odd lengths",
        applies: |input, expected, got| input.0.len() % 2 == 1 && expected.is_err() && got == &Ok(vec![]),
        // Half of "counted" is odd (4 of 8 calls): exactly at the bound.
        bounds: &[("counted", 0.5)],
    };
    let with_rule = Campaign::new(Pairs).allow(rule.clone());
    assert_eq!(
        with_rule.allowed_differences().iter().map(|r| r.id).collect::<Vec<_>>(),
        ["lax-accepts-odd"]
    );
    assert_eq!(with_rule.spec().name(), "pairs");
    let run = |campaign: Campaign<Pairs>| campaign.allow(rule.clone()).run(&options(8));
    let as_peer = run(Campaign::new(Pairs).peer("lax", true, move || move |i: &Payload, _: &mut Buffers| lax(i)));
    let p = &as_peer.implementations[0];
    // 8 one-step cases, then 4 calls of two two-step cases: one pass each.
    assert_eq!((p.role, p.compared, p.failures), (Role::Peer, 8 + 16, 0));
    assert_eq!(p.tolerated.get("lax-accepts-odd"), Some(&4));
    assert_eq!(as_peer.allowed_differences[0].id, "lax-accepts-odd");
    assert_eq!(as_peer.allowed_differences[0].implementation, "lax");
    assert_eq!(as_peer.allowed_differences[0].reason, "accepts odd lengths");
    assert_eq!(as_peer.allowed_differences[0].bounds, [("counted".to_string(), 0.5)]);
    assert!(as_peer.bounds_exceeded.is_empty());
    let tolerated_here: Vec<_> = as_peer.categories.iter().map(|c| c.tolerated.clone()).collect();
    assert_eq!(
        tolerated_here,
        [BTreeMap::from([("lax-accepts-odd".to_string(), 4)]), BTreeMap::new()]
    );
    // The same decoder as a kernel: rules never apply to kernels.
    let as_kernel = run(Campaign::new(Pairs).kernel_fn("lax", lax));
    assert_eq!(as_kernel.failure_count, 4);
    assert!(as_kernel.implementations[0].tolerated.is_empty());
    // A rule for another peer does not apply.
    let other = Campaign::new(Pairs)
        .peer("lax", true, move || move |i: &Payload, _: &mut Buffers| lax(i))
        .allow(AllowedDifference {
            implementation: "other",
            ..rule.clone()
        })
        .run(&options(8));
    assert_eq!(other.failure_count, 4);
}

#[test]
fn an_allowed_difference_used_beyond_its_bound_fails_the_run() {
    let lax = |input: &Payload| {
        if input.0.len() % 2 == 1 {
            Ok(vec![])
        } else {
            pairs(input)
        }
    };
    let run = |bounds: &'static [(&'static str, f64)]| {
        Campaign::new(Pairs)
            .peer("lax", true, move || move |i: &Payload, _: &mut Buffers| lax(i))
            .allow(AllowedDifference {
                id: "lax-accepts-odd",
                implementation: "lax",
                reason: "accepts odd lengths",
                applies: |input, _, got| input.0.len() % 2 == 1 && got == &Ok(vec![]),
                bounds,
            })
            .run(&options(8))
    };
    // 4 of the 8 calls in "counted" need the rule. A share of 0.05 allows
    // 0.4 + 3 * sqrt(0.4) + 1 = 3.3 of them; 0.1 allows 4.48.
    let within = run(&[("coun", 0.1), ("counted", 0.0)]);
    assert_eq!((within.failure_count, within.bounds_exceeded.len()), (0, 0));
    let over = run(&[("counted", 0.05)]);
    assert_eq!(over.failure_count, 1);
    assert_eq!(
        over.bounds_exceeded,
        [BoundExceeded {
            rule: "lax-accepts-odd".into(),
            implementation: "lax".into(),
            category: "counted".into(),
            tolerated: 4,
            compared: 8,
            bound: 0.05,
            allowed: 3,
        }]
    );
    // A category no prefix names allows the rule nothing.
    let elsewhere = run(&[("steps", 1.0)]);
    assert_eq!(elsewhere.failure_count, 1);
    assert_eq!(
        (elsewhere.bounds_exceeded[0].bound, elsewhere.bounds_exceeded[0].allowed),
        (0.0, 0)
    );
    // Categories where the rule is never needed pass at any bound.
    assert!(elsewhere.bounds_exceeded.iter().all(|b| b.category == "counted"));
    let manifest = report::manifest(&[over], 9, 8);
    assert_eq!(manifest.failures, 1);
}

#[test]
fn allowed_uses_are_the_share_with_a_binomial_margin() {
    let rule = AllowedDifference::<Pairs> {
        id: "r",
        implementation: "p",
        reason: "",
        applies: |_, _, _| true,
        bounds: &[("malformed-", 0.01), ("malformed-header", 1.0), ("edges", 0.25)],
    };
    // The first matching prefix counts; unnamed categories allow nothing.
    assert_eq!(rule.bound_in("malformed-header"), 0.01);
    assert_eq!(rule.bound_in("edges-x"), 0.25);
    assert_eq!(rule.bound_in("random"), 0.0);
    assert_eq!(rule.allowed_uses("random", 1_000_000, 1), 0);
    // One case per generator call: 0.25 * 16 = 4, + 3 * 2 + 1 = 11;
    // 0.25 * 10_000 = 2500, + 150 + 1.
    assert_eq!(rule.allowed_uses("edges", 16, 16), 11);
    assert_eq!(rule.allowed_uses("edges", 10_000, 10_000), 2651);
    assert_eq!(rule.allowed_uses("edges", 0, 0), 1);
    assert_eq!(rule.allowed_uses("malformed-counts", 100, 100), 5);
    // 16 calls in 4 clusters of 4: 4 + 3 * sqrt(4 * 4) + 4 = 20.
    assert_eq!(rule.allowed_uses("edges", 16, 4), 20);
    // 10_000 calls from 500 generator calls: 2500 + 3 * sqrt(2500 * 20) + 20.
    assert_eq!(rule.allowed_uses("edges", 10_000, 500), 3190);
}

#[test]
fn selection_and_availability_decide_what_runs() {
    let campaign = Campaign::new(Pairs)
        .kernel_fn("a", pairs)
        .kernel("absent", false, || |i: &Payload, _: &mut Buffers| pairs(i))
        .kernel_fn("b", pairs);
    let names: Vec<_> = campaign
        .implementations()
        .iter()
        .map(|i| (i.name.as_str(), i.role, i.available))
        .collect();
    assert_eq!(
        names,
        [
            ("a", Role::Kernel, true),
            ("absent", Role::Kernel, false),
            ("b", Role::Kernel, true)
        ]
    );
    assert_eq!(
        campaign.implementations()[0].decode_once(&Payload(vec![1, 2])),
        (Ok(vec![3]), vec![])
    );
    let report = campaign.run(&RunOptions {
        implementations: vec!["b".into(), "absent".into()],
        ..options(2)
    });
    let ran: Vec<_> = report
        .implementations
        .iter()
        .map(|i| (i.name.as_str(), i.available, i.ran, i.compared))
        .collect();
    // b: 2 one-step cases, then 2 two-step cases, each step with both canaries.
    assert_eq!(
        ran,
        [
            ("a", true, false, 0),
            ("absent", false, false, 0),
            ("b", true, true, 2 * 2 + 2 * 2 * 2)
        ]
    );
    let summary = crossdec_engine::report::summary(std::slice::from_ref(&report));
    assert!(
        summary.contains("(not selected)") && summary.contains("(not available on this host)"),
        "{summary}"
    );
}

#[test]
fn panics_are_failures_with_their_message() {
    let report = Campaign::new(Pairs)
        .kernel_fn("panics", |i: &Payload| {
            if i.0.len() == 5 {
                panic!("boom at {}", i.0.len())
            } else {
                pairs(i)
            }
        })
        .run(&options(6));
    assert_eq!(report.failure_count, 1);
    assert_eq!(report.failures[0].got, "PANIC: boom at 5");
    assert_eq!(report.failures[0].expected, "Err(At { offset: 4 })");
}

/// Pinned: the digests are part of the engine's contract (golden files of
/// every family hang on them), the same on every architecture.
#[test]
fn digests_are_pinned() {
    let report = Campaign::new(Pairs).run(&options(3));
    assert_eq!(
        report.digest,
        "0fc5b3b4c1c179ad8b8ba3e4e7b9f2a1bba6c01999303ba09848acd9be8aadbf"
    );
    assert_eq!(
        report.categories[0].digest,
        "6074e18a23fef31fe1647f3201c306ba1435f3050b1f7279d0e7af1268379933"
    );
    assert_eq!(
        report.categories[1].digest,
        "5558d96806975e347b66589721c0ca3e8b258a404f7c09248df8937db83b95ad"
    );
}

#[test]
fn digests_depend_on_inputs_outcomes_and_categories_in_order() {
    let digest = |campaign: Campaign<Pairs>, categories: &[&str]| {
        let r = campaign.run(&RunOptions {
            categories: categories.iter().map(|s| s.to_string()).collect(),
            ..options(4)
        });
        (r.digest, r.categories.into_iter().map(|c| c.digest).collect::<Vec<_>>())
    };
    let (all, per) = digest(Campaign::new(Pairs), &[]);
    assert_eq!(
        digest(Campaign::new(Pairs).kernel_fn("k", pairs), &[]).0,
        all,
        "kernels do not enter the digest"
    );
    let (counted_only, per_counted) = digest(Campaign::new(Pairs), &["counted"]);
    assert_ne!(counted_only, all);
    assert_eq!(per_counted[0], per[0], "a category's digest is its own");
    assert_ne!(per[0], per[1]);
    // Another seed: the same cases here (the generators ignore the rng) and
    // the same digests; more calls: other digests.
    let more = Campaign::new(Pairs).run(&options(5));
    assert_ne!(more.digest, all);
    assert_ne!(more.categories[0].digest, per[0]);
}

#[test]
fn the_family_trait_checks_bytes_lists_and_writes_corpora() {
    let family: Box<dyn Family> = Box::new(
        Campaign::new(Pairs)
            .kernel_fn("k", pairs)
            .kernel_fn("off", |i: &Payload| {
                pairs(i).map(|v| v.into_iter().map(|x| x ^ 1).collect())
            }),
    );
    assert_eq!(family.name(), "pairs");
    assert_eq!(family.category_names(), ["counted", "steps"]);
    assert_eq!(family.category_scales(), [("counted", 1.0), ("steps", 0.5)]);
    let list = family.implementation_list();
    assert_eq!(list.len(), 2);
    assert_eq!(
        (list[1].name.as_str(), list[1].role, list[1].available),
        ("off", Role::Kernel, true)
    );
    assert_eq!(
        family.check_bytes(&[1, 2], false),
        Some(vec!["off: step 0: expected Ok([3]) got Ok([2])".to_string()])
    );
    assert_eq!(family.check_bytes(&[1], false), Some(vec![]), "errors agree");
    let corpus = family.corpus(2, 1);
    let names: Vec<_> = corpus.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "counted-0-0-0",
            "counted-1-0-0",
            "steps-0-0-0",
            "steps-0-0-1",
            "steps-0-1-0",
            "steps-0-1-1"
        ]
    );
    assert_eq!(corpus[1].1, [1]);
    assert_eq!(corpus[5].1, [0, 0, 0, 0]);
    // The empty input of counted call 0 agrees; both cases of steps call 0 fail.
    assert_eq!(family.run(&options(1)).failure_count, 2);
}

#[test]
fn progress_sees_every_family_category_and_call() {
    #[derive(Default)]
    struct Count(AtomicUsize, AtomicUsize, AtomicUsize, AtomicUsize);
    impl Progress for Count {
        fn family(&self, name: &str, calls: u64) {
            assert_eq!(name, "pairs");
            self.0.fetch_add(calls as usize, Ordering::Relaxed);
        }
        fn category(&self, _: &str) {
            self.1.fetch_add(1, Ordering::Relaxed);
        }
        fn advance(&self) {
            self.2.fetch_add(1, Ordering::Relaxed);
        }
        fn finish(&self) {
            self.3.fetch_add(1, Ordering::Relaxed);
        }
    }
    let count = Arc::new(Count::default());
    Campaign::new(Pairs).run(&RunOptions {
        progress: Some(count.clone()),
        ..options(4)
    });
    let seen = [&count.0, &count.1, &count.2, &count.3].map(|a| a.load(Ordering::Relaxed));
    assert_eq!(seen, [4 + 2, 2, 4 + 2, 1]);
    let debug = format!(
        "{:?}",
        RunOptions {
            progress: Some(count),
            ..options(4)
        }
    );
    assert_eq!(
        debug,
        "RunOptions { cases: 4, calls: {}, seed: 9, implementations: [], categories: [], shrink_budget: 2000, shrink_seconds: 10.0, shrink_total_seconds: 60.0, max_failures: 100, progress: true }"
    );
}

#[test]
fn case_seeds_are_fixed_and_distinct() {
    let first = |seed, family, category, index| case_rng(seed, family, category, index).gen::<u64>();
    let a = first(1, "f", "c", 0);
    // Pinned: the same on every architecture and word size.
    assert_eq!(a, 0x536e_48cd_e8e3_6d99, "{a:#x}");
    for other in [
        first(2, "f", "c", 0),
        first(1, "g", "c", 0),
        first(1, "f", "d", 0),
        first(1, "f", "c", 1),
        first(1, "fc", "", 0),
    ] {
        assert_ne!(other, a);
    }
    let category = Category::<Payload>::new("c", 0.25, |_, _| vec![]);
    assert_eq!(
        [
            category.calls(0),
            category.calls(1),
            category.calls(4),
            category.calls(5)
        ],
        [1, 1, 1, 2]
    );
    assert_eq!(
        format!("{category:?}"),
        r#"Category { name: "c", scale: 0.25, large: false }"#
    );
    assert_eq!(category.clone().name, "c");
    let large = category.large();
    assert!(large.large && large.clone().large);
    assert_eq!((large.name, large.scale), ("c", 0.25));
}

#[cfg(feature = "fuzz")]
#[test]
fn structured_cases_come_from_the_generators_and_mutations() {
    use crossdec_engine::arbitrary::Unstructured;
    use crossdec_engine::fuzz::{generated_case, mutate_bytes};
    // No mutation: category 0 ("counted"), call index from two bytes, seed, one case.
    let case = generated_case(&Pairs, &mut Unstructured::new(&[0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).unwrap();
    assert_eq!(case.steps.len(), 1);
    let mut seen = std::collections::BTreeSet::new();
    for data in 0u8..=255 {
        let mut bytes = vec![1, 2, 3, 4];
        let raw = [data, data.wrapping_mul(7), 3, data.rotate_left(3), 9];
        if mutate_bytes(&mut Unstructured::new(&raw), &mut bytes).is_ok() {
            seen.insert(bytes.len().cmp(&4));
        }
    }
    // Flips and sets keep the length, truncation shortens, insertion grows.
    assert_eq!(seen.len(), 3);
    let mut empty = Vec::new();
    mutate_bytes(&mut Unstructured::new(&[7]), &mut empty).unwrap();
    assert_eq!(empty, [7]);
}

#[cfg(feature = "fuzz")]
#[test]
fn every_byte_mutation_does_what_it_says() {
    use crossdec_engine::arbitrary::Unstructured;
    use crossdec_engine::fuzz::mutate_bytes;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let (mut one_bit_cleared, mut above_bit_zero, mut many_bits, mut shorter, mut longer) = (0, 0, 0, 0, 0);
    for _ in 0..2000 {
        let raw: Vec<u8> = (0..16)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u8
            })
            .collect();
        // All ones: a flip must clear exactly one bit.
        let mut bytes = vec![0xFF; 4];
        mutate_bytes(&mut Unstructured::new(&raw), &mut bytes).unwrap();
        match bytes.len().cmp(&4) {
            std::cmp::Ordering::Less => shorter += 1,
            std::cmp::Ordering::Greater => longer += 1,
            std::cmp::Ordering::Equal => {
                let cleared: Vec<u8> = bytes.iter().map(|b| !b).collect();
                match cleared.iter().map(|c| c.count_ones()).sum::<u32>() {
                    1 => {
                        one_bit_cleared += 1;
                        above_bit_zero += usize::from(cleared.iter().any(|c| *c > 1));
                    }
                    0 => {}
                    _ => many_bits += 1,
                }
            }
        }
    }
    // About a quarter each: flip, set, truncate, insert.
    assert!(
        one_bit_cleared > 300 && above_bit_zero > 200,
        "{one_bit_cleared} {above_bit_zero}"
    );
    assert!(
        many_bits > 300 && shorter > 300 && longer > 300,
        "{many_bits} {shorter} {longer}"
    );
}

#[cfg(feature = "fuzz")]
#[test]
fn structured_checks_run_the_family_on_generated_cases() {
    let wrong = Campaign::new(Pairs).kernel_fn("wrong", |i: &Payload| {
        pairs(i).map(|v| v.into_iter().map(|x| x + 1).collect())
    });
    let right = Campaign::new(Pairs).kernel_fn("right", pairs);
    let (mut failing, mut agreeing) = (0, 0);
    for seed in 0u8..64 {
        let data: Vec<u8> = (0..24).map(|k| seed.wrapping_mul(31).wrapping_add(k * 7)).collect();
        let problems = Family::check_structured(&wrong, &data, false).expect("enough bytes for a case");
        failing += usize::from(!problems.is_empty());
        assert!(problems.iter().all(|p| p.starts_with("wrong: step ")), "{problems:?}");
        agreeing += usize::from(Family::check_structured(&right, &data, false) == Some(vec![]));
    }
    assert!(failing > 10, "{failing}");
    assert_eq!(agreeing, 64);
}

#[test]
fn checks_run_available_kernels_and_peers_only_when_asked() {
    let off = |i: &Payload| pairs(i).map(|v| v.into_iter().map(|x| x ^ 1).collect());
    let family = Campaign::new(Pairs)
        .kernel("unavailable", false, move || move |i: &Payload, _: &mut Buffers| off(i))
        .peer("peer", true, move || move |i: &Payload, _: &mut Buffers| off(i))
        .kernel_fn("kernel", off);
    assert_eq!(
        family.check_bytes(&[1, 2], false),
        Some(vec!["kernel: step 0: expected Ok([3]) got Ok([2])".to_string()])
    );
    assert_eq!(
        family.check_bytes(&[1, 2], true),
        Some(vec![
            "peer: step 0: expected Ok([3]) got Ok([2])".to_string(),
            "kernel: step 0: expected Ok([3]) got Ok([2])".to_string()
        ])
    );
}

/// Minimizing: the failure of a long input shrinks to the shortest one that
/// still fails, step by step within the budget, and a step that does not
/// matter is dropped.
#[test]
fn failures_shrink_within_the_budget() {
    // Wrong whenever an 8 is decoded: "counted" call 8 is eight 8s.
    let wrong = |i: &Payload| pairs(i).map(|v| v.into_iter().map(|x| if x == 16 { 0 } else { x }).collect());
    let run = |budget| {
        Campaign::new(Pairs)
            .kernel_fn("wrong", wrong)
            .run(&RunOptions {
                categories: vec!["counted".into()],
                shrink_budget: budget,
                ..options(9)
            })
            .failures
            .remove(0)
    };
    let f = run(2000);
    assert_eq!(f.input_hex, ["0808080808080808"]);
    // Two bytes kept (one is odd, an error both sides agree on); lowering
    // either byte makes the sum other than 16.
    assert_eq!(f.minimized_hex, ["0808"]);
    assert_eq!(
        (f.minimized_expected.as_str(), f.minimized_got.as_str()),
        ("Ok([16])", "Ok([0])")
    );
    // The budget counts re-runs: the fourth variant (the last two bytes
    // kept, after the empty payload and the last and first byte alone) is
    // the first that fails.
    assert_eq!(run(4).minimized_hex, ["0808"]);
    assert_eq!(run(3).minimized_hex, ["0808080808080808"]);
    assert_eq!(run(0).minimized_hex, ["0808080808080808"]);
    // Two steps, only the second wrong: the first is dropped.
    let second = |i: &Payload| pairs(i).map(|v| if i.0.len() == 4 { vec![9; v.len()] } else { v });
    let report = Campaign::new(Pairs).kernel_fn("k", second).run(&RunOptions {
        categories: vec!["steps".into()],
        ..options(2)
    });
    assert_eq!(report.failures[0].input_hex, ["0102", "00000000"]);
    assert_eq!(
        report.failures[0].minimized_hex,
        ["00000000"],
        "wrong only at 4 bytes: the step stays whole"
    );
}

/// [`Pairs`] whose reference counts its calls.
struct CountedPairs(Arc<AtomicUsize>);

impl Spec for CountedPairs {
    type Input = Payload;
    type Output = Vec<u16>;
    type Error = Odd;
    fn name(&self) -> &'static str {
        "counted-pairs"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        Pairs.categories()
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        self.0.fetch_add(1, Ordering::Relaxed);
        pairs(input)
    }
}

#[test]
fn workloads_decode_the_kept_categories_with_the_named_implementation() {
    let reference_calls = Arc::new(AtomicUsize::new(0));
    let kernel_calls = Arc::new(AtomicUsize::new(0));
    let counter = kernel_calls.clone();
    let family: Box<dyn Family> = Box::new(
        Campaign::new(CountedPairs(reference_calls.clone()))
            .kernel_fn("k", move |i: &Payload| {
                counter.fetch_add(1, Ordering::Relaxed);
                pairs(i)
            })
            .with(crossdec_engine::Implementation::new(
                "gone",
                Role::Kernel,
                false,
                || |i: &Payload, _: &mut Buffers| pairs(i),
            )),
    );
    // "counted" at 3 calls: inputs of 0, 1 and 2 bytes.
    let mut counted = family.workload("k", 3, 1, &|c| c == "counted").unwrap();
    assert_eq!((counted.inputs, counted.bytes), (3, 3));
    counted.run();
    counted.run();
    assert_eq!(kernel_calls.load(Ordering::Relaxed), 6);
    assert_eq!(reference_calls.load(Ordering::Relaxed), 0);
    // Every category: "steps" adds 2 calls x 2 cases x 2 steps of 2 and 4 bytes.
    let mut all = family.workload("reference", 3, 1, &|_| true).unwrap();
    assert_eq!((all.inputs, all.bytes), (11, 27));
    all.run();
    assert_eq!(reference_calls.load(Ordering::Relaxed), 11);
    assert_eq!(kernel_calls.load(Ordering::Relaxed), 6);
    assert!(family.workload("gone", 3, 1, &|_| true).is_none(), "unavailable");
    assert!(family.workload("missing", 3, 1, &|_| true).is_none(), "unknown");
}

/// [`Pairs`] with a reference that counts its calls, a fuzz-mode cap on the
/// payload's length, and a category of long inputs, marked large or not.
struct Limited {
    calls: Arc<AtomicUsize>,
    cap: usize,
    mark_large: bool,
}

impl Spec for Limited {
    type Input = Payload;
    type Output = Vec<u16>;
    type Error = Odd;
    fn name(&self) -> &'static str {
        "limited"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        let long = Category::new("long", 1.0, |i, _| {
            vec![Case::one(Payload(vec![1; 64 + 2 * i as usize % 8]))]
        });
        vec![
            Category::new("short", 1.0, |i, _| {
                vec![Case::one(Payload(vec![2; 2 * i as usize % 8]))]
            }),
            if self.mark_large { long.large() } else { long },
        ]
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        pairs(input)
    }
    fn cap_for_fuzzing(&self, input: &mut Payload) {
        input.0.truncate(self.cap);
    }
}

/// Right on inputs of up to 16 bytes, wrong past them.
fn right_up_to_16(input: &Payload) -> Outcome<Limited> {
    pairs(input).map(|mut v| {
        if input.0.len() > 16 {
            v.push(0);
        }
        v
    })
}

fn limited(cap: usize, mark_large: bool) -> (Campaign<Limited>, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let spec = Limited {
        calls: calls.clone(),
        cap,
        mark_large,
    };
    let campaign = Campaign::new(spec)
        .kernel_fn("a", right_up_to_16)
        .kernel_fn("b", right_up_to_16)
        .kernel_fn("c", right_up_to_16);
    (campaign, calls)
}

#[test]
fn a_check_decodes_each_step_with_the_reference_once() {
    let (family, calls) = limited(usize::MAX, true);
    let two = Case {
        steps: vec![Payload(vec![1, 2]), Payload(vec![3; 4])],
    };
    assert_eq!(family.check(&two, true), Vec::<String>::new());
    assert_eq!(calls.load(Ordering::Relaxed), 2, "three kernels, two steps");
    assert_eq!(Family::check_bytes(&family, &[1; 20], false).map(|p| p.len()), Some(3));
    assert_eq!(calls.load(Ordering::Relaxed), 3);
}

#[cfg(feature = "fuzz")]
#[test]
fn fuzz_checks_apply_the_specs_cap_and_exact_checks_do_not() {
    let (family, _) = limited(16, true);
    let long = [1u8; 40];
    assert_eq!(
        family.check_bytes(&long, false).map(|p| p.len()),
        Some(3),
        "a reproducer is checked as it is"
    );
    assert_eq!(family.check_fuzz_bytes(&long, false), Some(vec![]), "cut to 16 bytes");
    let (uncapped, _) = limited(usize::MAX, true);
    assert_eq!(uncapped.check_fuzz_bytes(&long, false).map(|p| p.len()), Some(3));
    assert_eq!(family.check_fuzz_bytes(&[1; 17], false), Some(vec![]));
    assert_eq!(family.check_bytes(&[1; 16], false), Some(vec![]));
}

#[cfg(feature = "fuzz")]
#[test]
fn structured_fuzzing_never_draws_a_large_category_and_caps_every_step() {
    // Over the same fuzzer bytes: the long category fails the kernels unless
    // it is large (never drawn) or capped.
    let failing = |cap: usize, mark_large: bool| {
        let (family, _) = limited(cap, mark_large);
        (0u8..=255)
            .filter(|seed| {
                let data: Vec<u8> = (0..24).map(|k| seed.wrapping_mul(37).wrapping_add(k * 11)).collect();
                let problems = family.check_structured(&data, false).expect("enough bytes");
                !problems.is_empty()
            })
            .count()
    };
    assert!(failing(usize::MAX, false) > 50, "{}", failing(usize::MAX, false));
    assert_eq!(failing(usize::MAX, true), 0);
    assert_eq!(failing(16, false), 0);
    // Every category large: nothing to draw from.
    struct AllLarge;
    impl Spec for AllLarge {
        type Input = Payload;
        type Output = Vec<u16>;
        type Error = Odd;
        fn name(&self) -> &'static str {
            "all-large"
        }
        fn categories(&self) -> Vec<Category<Payload>> {
            vec![Category::new("big", 1.0, |_, _| vec![Case::one(Payload(vec![0; 2]))]).large()]
        }
        fn reference(&self, input: &Payload) -> Outcome<Self> {
            pairs(input)
        }
    }
    assert_eq!(Campaign::new(AllLarge).check_structured(&[0; 24], false), None);
}

/// [`Pairs`] whose format promises that an odd input may also read as no
/// sums at all (a promise of the format, so it holds for kernels too).
struct PromisingPairs;

impl Spec for PromisingPairs {
    type Input = Payload;
    type Output = Vec<u16>;
    type Error = Odd;
    fn name(&self) -> &'static str {
        "promising-pairs"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        Pairs.categories()
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        pairs(input)
    }
    fn promised_difference(
        &self,
        input: &Payload,
        expected: &Outcome<Self>,
        got: &Outcome<Self>,
    ) -> Option<&'static str> {
        (input.0.len() % 2 == 1 && expected.is_err() && got == &Ok(vec![])).then_some("odd-may-read-empty")
    }
}

#[test]
fn a_spec_promise_applies_to_kernels_and_is_counted_and_nothing_else_is_tolerated() {
    let empty_on_odd = |input: &Payload| {
        if input.0.len() % 2 == 1 {
            Ok(vec![])
        } else {
            pairs(input)
        }
    };
    let one_on_odd = |input: &Payload| {
        if input.0.len() % 2 == 1 {
            Ok(vec![1])
        } else {
            pairs(input)
        }
    };
    let run = |campaign: Campaign<PromisingPairs>| campaign.run(&options(8));
    let kept = run(Campaign::new(PromisingPairs).kernel_fn("empty", empty_on_odd));
    let k = &kept.implementations[0];
    assert_eq!((k.role, k.failures, kept.failure_count), (Role::Kernel, 0, 0));
    // Both canary passes of the 4 odd calls.
    assert_eq!(k.tolerated.get("odd-may-read-empty"), Some(&8));
    let broken = run(Campaign::new(PromisingPairs).kernel_fn("one", one_on_odd));
    assert_eq!(broken.failure_count, 4);
    assert!(broken.implementations[0].tolerated.is_empty());
    // Without the promise the same kernel fails.
    let plain = Campaign::new(Pairs).kernel_fn("empty", empty_on_odd).run(&options(8));
    assert_eq!(plain.failure_count, 4);
}
