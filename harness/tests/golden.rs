//! Every family's golden digests (`golden.json` beside this file), computed
//! again on this target: x86_64, s390x, aarch64 and every other target the
//! tests run on must agree with the committed file byte for byte. To accept
//! an intended change: `cargo run --bin crossdec -- golden --update`, and
//! review the diff like a snapshot.

use crossdec_harness::golden::{self, Golden};

#[test]
fn digests_match_the_committed_golden_file() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden.json");
    let text = std::fs::read_to_string(path).expect("golden.json is committed");
    let committed: Golden = serde_json::from_str(&text).expect("golden.json parses");
    let computed = golden::compute();
    assert!(computed.families.len() >= 7 && computed.families.values().all(|c| !c.is_empty()));
    let differences = golden::differences(&committed, &computed);
    assert!(
        differences.is_empty(),
        "digests differ from {path} on {}:\n{}\n(an intended change: `crossdec golden --update`)",
        crossdec_harness::TARGET,
        differences.join("\n")
    );
}

#[test]
fn differences_name_the_family_and_category() {
    let mut a = golden::compute();
    let b = a.clone();
    assert!(golden::differences(&a, &b).is_empty());
    let (family, categories) = a.families.iter_mut().next().unwrap();
    let family = family.clone();
    let (category, entry) = categories.iter_mut().next().unwrap();
    entry
        .digest
        .replace_range(..1, if entry.digest.starts_with('0') { "1" } else { "0" });
    let category = category.clone();
    assert_eq!(golden::differences(&a, &b).len(), 1);
    assert!(golden::differences(&a, &b)[0].starts_with(&format!("{family}/{category}: ")));
}
