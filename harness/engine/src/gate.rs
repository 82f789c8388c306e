//! The cross-architecture gate: a run elsewhere (s390x under QEMU, say) only
//! counts if its manifest proves it ran there, ran everything, and agreed.
//!
//! Checks: the manifest's byte order is the expected one; neither run failed;
//! every category of every family ran at least one case; both runs used the
//! same seed and generator calls per category and produced the same digest
//! per family; and, optionally, every registered kernel ran on at least one
//! of the targets.

use std::collections::BTreeSet;

use crate::report::Manifest;

/// Problems found comparing `cross` (expected to be `endian`) with `native`.
pub fn compare(native: &Manifest, cross: &Manifest, endian: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let who = format!("{} manifest", cross.target);
    if cross.target_endian != endian {
        problems.push(format!(
            "{who} says {}-endian where {endian}-endian was expected",
            cross.target_endian
        ));
    }
    for m in [native, cross] {
        problems.extend(sanity(m));
    }
    if (native.seed, native.cases) != (cross.seed, cross.cases) {
        problems.push(format!(
            "{who} ran seed {} with {} cases, the native run seed {} with {}: digests cannot be compared",
            cross.seed, cross.cases, native.seed, native.cases
        ));
    }
    for nf in &native.families {
        let Some(cf) = cross.families.iter().find(|f| f.family == nf.family) else {
            problems.push(format!("{who} has no results for family {}", nf.family));
            continue;
        };
        if nf.calls_per_category != cf.calls_per_category {
            problems.push(format!(
                "{}: generator calls per category differ: native {:?}, {} {:?} (replay the native run with --like)",
                nf.family, nf.calls_per_category, cross.target, cf.calls_per_category
            ));
        }
        if nf.cases_per_category != cf.cases_per_category {
            problems.push(format!(
                "{}: cases per category differ: native {:?}, {} {:?}",
                nf.family, nf.cases_per_category, cross.target, cf.cases_per_category
            ));
        }
        if nf.digest != cf.digest || nf.category_digests != cf.category_digests {
            let categories: Vec<&str> = nf
                .category_digests
                .iter()
                .filter(|(name, digest)| cf.category_digests.get(*name) != Some(digest))
                .map(|(name, _)| name.as_str())
                .collect();
            problems.push(format!(
                "{}: outcome digest differs: native {} ({}), {} {} ({}); categories that differ: {}",
                nf.family,
                nf.digest,
                native.target,
                cf.digest,
                cross.target,
                cross.target_endian,
                if categories.is_empty() {
                    "none named".to_string()
                } else {
                    categories.join(", ")
                }
            ));
        }
    }
    problems
}

/// Problems with a manifest's byte order (`target_endian`): anything but
/// "little" or "big" (empty, say, from a manifest written without it) proves
/// nothing about where the run ran.
pub fn byte_order(m: &Manifest) -> Vec<String> {
    if matches!(m.target_endian.as_str(), "little" | "big") {
        Vec::new()
    } else {
        vec![format!(
            "{} manifest has no byte order: target_endian is {:?}, not \"little\" or \"big\"",
            m.target, m.target_endian
        )]
    }
}

/// Problems a single manifest shows on its own.
pub fn sanity(m: &Manifest) -> Vec<String> {
    let mut problems = byte_order(m);
    if m.failures > 0 {
        problems.push(format!("{} run had {} failures", m.target, m.failures));
    }
    if m.families.is_empty() {
        problems.push(format!("{} manifest lists no families", m.target));
    }
    for f in &m.families {
        if f.kernels_ran.is_empty() {
            problems.push(format!("{} on {}: no kernel ran", f.family, m.target));
        }
        if f.cases_per_category.is_empty() {
            problems.push(format!("{} on {}: no categories ran", f.family, m.target));
        }
        for (implementation, ran) in &f.implementations {
            let compared = f.compared.get(implementation).copied().unwrap_or(0);
            if *ran && compared == 0 {
                problems.push(format!(
                    "{} on {}: {implementation} ran but compared nothing",
                    f.family, m.target
                ));
            }
        }
        for (category, cases) in &f.cases_per_category {
            if *cases == 0 {
                problems.push(format!(
                    "{} on {}: category {category} ran zero cases",
                    f.family, m.target
                ));
            }
        }
    }
    problems
}

/// Problems with a manifest's target: not the triple the caller named.
pub fn target_is(m: &Manifest, triple: &str) -> Vec<String> {
    if m.target == triple {
        Vec::new()
    } else {
        vec![format!("a manifest of {} where one of {triple} was named", m.target)]
    }
}

/// Families and categories `expected` names (the registry of the binary
/// running the gate) that manifest `m` has no results for, and families it
/// has that `expected` does not know (a manifest of another crossdec). A
/// manifest's own lists prove nothing: two runs filtered the same way
/// would agree on what they left out.
pub fn registry_coverage(m: &Manifest, expected: &[(String, Vec<String>)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (family, categories) in expected {
        let Some(f) = m.families.iter().find(|f| f.family == *family) else {
            problems.push(format!(
                "{} run has no results for registered family {family}",
                m.target
            ));
            continue;
        };
        for category in categories {
            if !f.cases_per_category.contains_key(category) {
                problems.push(format!(
                    "{family} on {}: registered category {category} did not run",
                    m.target
                ));
            }
        }
    }
    for f in &m.families {
        if !expected.iter().any(|(family, _)| *family == f.family) {
            problems.push(format!(
                "{} run has family {} that this crossdec does not register",
                m.target, f.family
            ));
        }
    }
    problems
}

/// Kernels a run could have run (its CPU or emulator has their features)
/// that it did not: every portable kernel on every target, every ISA
/// kernel wherever it is available. A union over targets would let the
/// big-endian run skip the portable kernels the little-endian ones ran.
pub fn kernels_skipped(m: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    for f in &m.families {
        for kernel in &f.kernels_available {
            if !f.kernels_ran.contains(kernel) {
                problems.push(format!(
                    "{}: kernel {kernel} could run on {} and did not",
                    f.family, m.target
                ));
            }
        }
    }
    problems
}

/// Kernels registered in some manifest that ran in none of them, as
/// problems. A kernel no run could run (its CPU features are on none of the
/// machines or emulators, AVX-512 say) is exempt, and so is one listed in
/// `exempt` ("family/kernel" -> reason); both come back as notices, so the
/// exemption is visible in every gate run rather than silent. A kernel that
/// was available somewhere but never ran is never exempt.
pub fn kernels_never_ran_except(manifests: &[Manifest], exempt: &[(String, String)]) -> (Vec<String>, Vec<String>) {
    let mut problems = Vec::new();
    let mut notices = Vec::new();
    let mut registered = BTreeSet::new();
    let mut available = BTreeSet::new();
    let mut ran = BTreeSet::new();
    for m in manifests {
        for f in &m.families {
            registered.extend(f.kernels.iter().map(|k| (f.family.clone(), k.clone())));
            available.extend(f.kernels_available.iter().map(|k| (f.family.clone(), k.clone())));
            ran.extend(f.kernels_ran.iter().map(|k| (f.family.clone(), k.clone())));
        }
    }
    let targets: Vec<&str> = manifests.iter().map(|m| m.target.as_str()).collect();
    for (family, kernel) in registered.difference(&ran) {
        let missing = format!("{family}: kernel {kernel} ran on no target");
        let key = format!("{family}/{kernel}");
        if let Some((_, reason)) = exempt.iter().find(|(name, _)| *name == key) {
            notices.push(format!("{missing} (exempt: {reason})"));
        } else if available.contains(&(family.clone(), kernel.clone())) {
            problems.push(format!("{missing}, although a run could have run it"));
        } else {
            notices.push(format!(
                "{missing} (exempt: no run could, none of {} has its CPU features)",
                targets.join(", ")
            ));
        }
    }
    (problems, notices)
}

/// Kernels registered in some manifest that ran in none of them.
pub fn kernels_never_ran(manifests: &[Manifest]) -> Vec<String> {
    let mut registered = BTreeSet::new();
    let mut ran = BTreeSet::new();
    for m in manifests {
        for f in &m.families {
            registered.extend(f.kernels.iter().map(|k| (f.family.clone(), k.clone())));
            ran.extend(f.kernels_ran.iter().map(|k| (f.family.clone(), k.clone())));
        }
    }
    registered
        .difference(&ran)
        .map(|(f, k)| format!("{f}: kernel {k} ran on no target"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::FamilyManifest;
    use std::collections::BTreeMap;

    fn manifest(target: &str, endian: &str, digest: &str, cases: u64) -> Manifest {
        Manifest {
            crossdec_version: "0".into(),
            target: target.into(),
            target_endian: endian.into(),
            pointer_width: 64,
            cpu_features: Vec::new(),
            seed: 1,
            cases: 10,
            failures: 0,
            families: vec![FamilyManifest {
                family: "f".into(),
                implementations: BTreeMap::from([("k".into(), true)]),
                kernels: vec!["k".into(), "simd".into()],
                kernels_available: vec!["k".into()],
                kernels_ran: vec!["k".into()],
                cases_per_category: BTreeMap::from([("c".into(), cases)]),
                calls_per_category: BTreeMap::from([("c".into(), 3)]),
                category_digests: BTreeMap::from([("c".into(), digest.into())]),
                digest: digest.into(),
                tolerated: BTreeMap::new(),
                compared: BTreeMap::from([("k".into(), 7)]),
                subjects: Default::default(),
                failures: 0,
            }],
        }
    }

    #[test]
    fn agreeing_big_endian_run_passes() {
        let native = manifest("x86_64", "little", "d", 5);
        let cross = manifest("s390x", "big", "d", 5);
        assert_eq!(compare(&native, &cross, "big"), Vec::<String>::new());
    }

    #[test]
    fn an_implementation_that_ran_but_compared_nothing_fails_the_gate() {
        let native = manifest("x86_64", "little", "d", 5);
        let mut cross = manifest("s390x", "big", "d", 5);
        cross.families[0].compared.insert("k".into(), 0);
        let problems = sanity(&cross);
        assert_eq!(problems, ["f on s390x: k ran but compared nothing"]);
        assert!(compare(&native, &cross, "big")
            .iter()
            .any(|p| p.contains("k ran but compared nothing")));
        // Not selected (did not run): nothing to compare, no problem.
        cross.families[0].implementations.insert("k".into(), false);
        assert!(sanity(&cross).is_empty(), "{:?}", sanity(&cross));
    }

    #[test]
    fn little_endian_where_big_expected_fails() {
        let native = manifest("x86_64", "little", "d", 5);
        let cross = manifest("s390x", "little", "d", 5);
        let problems = compare(&native, &cross, "big");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("little-endian where big-endian"));
    }

    #[test]
    fn zero_cases_and_digest_mismatch_fail() {
        let native = manifest("x86_64", "little", "d", 5);
        let cross = manifest("s390x", "big", "e", 0);
        let problems = compare(&native, &cross, "big");
        assert!(problems.iter().any(|p| p.contains("ran zero cases")), "{problems:?}");
        assert!(
            problems
                .iter()
                .any(|p| p.contains("digest differs") && p.ends_with("categories that differ: c")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("cases per category differ")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_category_digest_that_differs_fails_even_if_the_family_digest_agrees() {
        let native = manifest("x86_64", "little", "d", 5);
        let mut cross = manifest("s390x", "big", "d", 5);
        cross.families[0].category_digests.insert("c".into(), "e".into());
        let problems = compare(&native, &cross, "big");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].ends_with("categories that differ: c"), "{problems:?}");
    }

    #[test]
    fn other_calls_per_category_fail_the_comparison() {
        let native = manifest("x86_64", "little", "d", 5);
        let mut cross = manifest("s390x", "big", "d", 5);
        cross.families[0].calls_per_category.insert("c".into(), 4);
        assert_eq!(
            compare(&native, &cross, "big"),
            ["f: generator calls per category differ: native {\"c\": 3}, s390x {\"c\": 4} (replay the native run with --like)"]
        );
    }

    #[test]
    fn a_manifest_without_a_byte_order_is_refused_by_name() {
        for endian in ["", "middle", "Big"] {
            let m = manifest("x86_64", endian, "d", 5);
            let problems = sanity(&m);
            assert_eq!(problems.len(), 1, "{endian:?}: {problems:?}");
            assert!(problems[0].contains("target_endian"), "{problems:?}");
            // Even where the byte order it was compared with is the same.
            let native = manifest("x86_64", "little", "d", 5);
            assert!(
                compare(&native, &m, endian).iter().any(|p| p.contains("no byte order")),
                "{endian:?}"
            );
            assert!(
                compare(&m, &native, "little")
                    .iter()
                    .any(|p| p.contains("no byte order")),
                "a native manifest's byte order counts too ({endian:?})"
            );
        }
    }

    #[test]
    fn every_sanity_problem_is_named() {
        let mut m = manifest("x86_64", "little", "d", 5);
        assert_eq!(sanity(&m), Vec::<String>::new());
        m.families[0].kernels_ran.clear();
        m.families[0].cases_per_category.clear();
        assert_eq!(
            sanity(&m),
            ["f on x86_64: no kernel ran", "f on x86_64: no categories ran"]
        );
        m.families.clear();
        assert_eq!(sanity(&m), ["x86_64 manifest lists no families"]);
    }

    #[test]
    fn other_counts_or_a_missing_family_fail_the_comparison() {
        let native = manifest("x86_64", "little", "d", 5);
        let mut cross = manifest("s390x", "big", "d", 5);
        cross.seed = 2;
        assert_eq!(
            compare(&native, &cross, "big"),
            ["s390x manifest ran seed 2 with 10 cases, the native run seed 1 with 10: digests cannot be compared"]
        );
        cross.seed = 1;
        cross.families.clear();
        let problems = compare(&native, &cross, "big");
        assert!(
            problems.contains(&"s390x manifest has no results for family f".to_string()),
            "{problems:?}"
        );
    }

    #[test]
    fn failures_and_missing_kernels_are_reported() {
        let mut m = manifest("x86_64", "little", "d", 5);
        m.failures = 2;
        assert!(sanity(&m).iter().any(|p| p.contains("2 failures")));
        assert_eq!(
            kernels_never_ran(&[m.clone()]),
            vec!["f: kernel simd ran on no target".to_string()]
        );
        let exempt = vec![("f/simd".to_string(), "no such CPU".to_string())];
        let (problems, notices) = kernels_never_ran_except(&[m.clone()], &exempt);
        assert!(problems.is_empty());
        assert_eq!(
            notices,
            vec!["f: kernel simd ran on no target (exempt: no such CPU)".to_string()]
        );
        // Not available anywhere: exempt without being named, and said so.
        let (problems, notices) = kernels_never_ran_except(&[m.clone()], &[]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            notices,
            vec![
                "f: kernel simd ran on no target (exempt: no run could, none of x86_64 has its CPU features)"
                    .to_string()
            ]
        );
        // Available somewhere but never run (filtered out, say): a problem.
        let mut could = m.clone();
        could.families[0].kernels_available.push("simd".into());
        let (problems, _) = kernels_never_ran_except(&[could], &[]);
        assert_eq!(
            problems,
            vec!["f: kernel simd ran on no target, although a run could have run it".to_string()]
        );
        let mut other = manifest("aarch64", "little", "d", 5);
        other.families[0].kernels_ran.push("simd".into());
        assert!(kernels_never_ran(&[m, other]).is_empty());
    }

    #[test]
    fn a_manifest_of_another_triple_is_named() {
        let m = manifest("s390x-unknown-linux-gnu", "big", "d", 5);
        assert_eq!(target_is(&m, "s390x-unknown-linux-gnu"), Vec::<String>::new());
        assert_eq!(
            target_is(&m, "powerpc64-unknown-linux-gnu"),
            ["a manifest of s390x-unknown-linux-gnu where one of powerpc64-unknown-linux-gnu was named"]
        );
    }

    #[test]
    fn the_registry_not_the_manifest_says_what_must_have_run() {
        let m = manifest("x86_64", "little", "d", 5);
        let registry = |families: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
            families
                .iter()
                .map(|(f, cs)| (f.to_string(), cs.iter().map(|c| c.to_string()).collect()))
                .collect()
        };
        assert_eq!(registry_coverage(&m, &registry(&[("f", &["c"])])), Vec::<String>::new());
        assert_eq!(
            registry_coverage(&m, &registry(&[("f", &["c", "d"]), ("g", &["c"])])),
            [
                "f on x86_64: registered category d did not run",
                "x86_64 run has no results for registered family g",
            ]
        );
        assert_eq!(
            registry_coverage(&m, &registry(&[])),
            ["x86_64 run has family f that this crossdec does not register"]
        );
    }

    #[test]
    fn a_kernel_available_on_a_target_must_run_there() {
        let mut m = manifest("s390x", "big", "d", 5);
        // Registered but not available here (an ISA kernel): not required.
        assert_eq!(kernels_skipped(&m), Vec::<String>::new());
        m.families[0].kernels_available.push("simd".into());
        assert_eq!(kernels_skipped(&m), ["f: kernel simd could run on s390x and did not"]);
        m.families[0].kernels_ran.push("simd".into());
        assert_eq!(kernels_skipped(&m), Vec::<String>::new());
    }
}
