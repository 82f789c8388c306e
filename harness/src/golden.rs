//! Golden digests: every family's per-category digests at a fixed seed and
//! count, committed in `harness/tests/golden.json` and checked by
//! `cargo test` on every target. A change to a generator, a reference
//! decoder or the canonical encoding changes them; updating the file is an
//! explicit act (`crossdec golden --update`), reviewed like a snapshot.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::engine::RunOptions;
use crate::families;

/// The seed the golden digests are computed with.
pub const SEED: u64 = 7;
/// Generator calls per category.
pub const CASES: u64 = 4;

/// The committed digests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Golden {
    pub seed: u64,
    pub cases: u64,
    /// family -> category -> its cases and digest
    pub families: BTreeMap<String, BTreeMap<String, CategoryDigest>>,
}

/// One category's golden entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryDigest {
    pub cases: u64,
    pub digest: String,
}

/// The digests this build computes (reference outcomes only: no kernel runs).
pub fn compute() -> Golden {
    let options = RunOptions {
        cases: CASES,
        seed: SEED,
        implementations: vec!["(none)".into()],
        ..RunOptions::default()
    };
    let families = families::all()
        .iter()
        .map(|f| {
            let report = f.run(&options);
            let categories = report
                .categories
                .into_iter()
                .map(|c| {
                    (
                        c.name,
                        CategoryDigest {
                            cases: c.cases,
                            digest: c.digest,
                        },
                    )
                })
                .collect();
            (report.family, categories)
        })
        .collect();
    Golden {
        seed: SEED,
        cases: CASES,
        families,
    }
}

/// Every difference between `committed` and `computed`, one line each.
pub fn differences(committed: &Golden, computed: &Golden) -> Vec<String> {
    let mut out = Vec::new();
    if (committed.seed, committed.cases) != (computed.seed, computed.cases) {
        out.push(format!(
            "seed/cases: committed {}/{}, computed {}/{}",
            committed.seed, committed.cases, computed.seed, computed.cases
        ));
    }
    let names: std::collections::BTreeSet<&String> =
        committed.families.keys().chain(computed.families.keys()).collect();
    for family in names {
        let (Some(a), Some(b)) = (committed.families.get(family), computed.families.get(family)) else {
            out.push(format!(
                "{family}: only {}",
                if committed.families.contains_key(family) {
                    "committed"
                } else {
                    "computed"
                }
            ));
            continue;
        };
        let categories: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for category in categories {
            if a.get(category) != b.get(category) {
                out.push(format!(
                    "{family}/{category}: committed {:?}, computed {:?}",
                    a.get(category),
                    b.get(category)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(seed: u64, cases: u64, entries: &[(&str, &str, u64, &str)]) -> Golden {
        let mut families: BTreeMap<String, BTreeMap<String, CategoryDigest>> = BTreeMap::new();
        for (family, category, cases, digest) in entries {
            families.entry(family.to_string()).or_default().insert(
                category.to_string(),
                CategoryDigest {
                    cases: *cases,
                    digest: digest.to_string(),
                },
            );
        }
        Golden { seed, cases, families }
    }

    #[test]
    fn the_same_digests_have_no_differences() {
        let a = golden(7, 4, &[("f", "c", 4, "aa"), ("g", "d", 8, "bb")]);
        assert_eq!(differences(&a, &a.clone()), Vec::<String>::new());
    }

    #[test]
    fn another_seed_or_count_is_one_line() {
        let a = golden(7, 4, &[("f", "c", 4, "aa")]);
        assert_eq!(
            differences(&a, &golden(8, 4, &[("f", "c", 4, "aa")])),
            ["seed/cases: committed 7/4, computed 8/4"]
        );
        assert_eq!(
            differences(&a, &golden(7, 5, &[("f", "c", 4, "aa")])),
            ["seed/cases: committed 7/4, computed 7/5"]
        );
    }

    #[test]
    fn a_family_on_one_side_only_is_named_with_its_side() {
        let both = golden(7, 4, &[("f", "c", 4, "aa"), ("g", "d", 4, "bb")]);
        let only_f = golden(7, 4, &[("f", "c", 4, "aa")]);
        assert_eq!(differences(&both, &only_f), ["g: only committed"]);
        assert_eq!(differences(&only_f, &both), ["g: only computed"]);
    }

    #[test]
    fn every_category_that_differs_is_a_line() {
        let a = golden(7, 4, &[("f", "c", 4, "aa"), ("f", "d", 4, "bb"), ("f", "e", 4, "cc")]);
        let b = golden(7, 4, &[("f", "c", 5, "aa"), ("f", "d", 4, "bx"), ("f", "x", 4, "dd")]);
        assert_eq!(
            differences(&a, &b),
            [
                r#"f/c: committed Some(CategoryDigest { cases: 4, digest: "aa" }), computed Some(CategoryDigest { cases: 5, digest: "aa" })"#,
                r#"f/d: committed Some(CategoryDigest { cases: 4, digest: "bb" }), computed Some(CategoryDigest { cases: 4, digest: "bx" })"#,
                r#"f/e: committed Some(CategoryDigest { cases: 4, digest: "cc" }), computed None"#,
                r#"f/x: committed None, computed Some(CategoryDigest { cases: 4, digest: "dd" })"#,
            ]
        );
    }
}
