//! Fuzz corpora and findings, replayed as ordinary tests on every target
//! (natively, on s390x and aarch64 under QEMU, under Miri), since libFuzzer
//! itself only runs on x86_64. `ci/fuzz` adds one named test per crash below.

use std::path::{Path, PathBuf};

use crossdec_harness::fuzzing;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Replay `dir/<target>/*`; returns (files checked, failures).
fn replay(dir: &Path, limit: usize) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut failures = Vec::new();
    let Ok(targets) = std::fs::read_dir(dir) else {
        return (0, failures);
    };
    let mut targets: Vec<_> = targets.flatten().map(|e| e.path()).collect();
    targets.sort();
    let only = only();
    for target_dir in targets {
        let name = target_dir.file_name().unwrap().to_string_lossy().to_string();
        let target = fuzzing::target(&name).unwrap_or_else(|| panic!("{} is not a fuzz target", target_dir.display()));
        if !only.is_empty() && !only.iter().any(|prefix| name.starts_with(prefix.as_str())) {
            continue;
        }
        let fuzzer = fuzzing::Fuzzer::new(target).expect("the target's family is registered");
        let mut files: Vec<_> = std::fs::read_dir(&target_dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for file in files.into_iter().take(limit) {
            let data = std::fs::read(&file).unwrap();
            checked += 1;
            if let Err(problem) = fuzzer.check(&data) {
                failures.push(format!("{}: {problem}", file.display()));
            }
        }
    }
    (checked, failures)
}

/// `CROSSDEC_REPLAY_ONLY=cube_,pg_bytea_`: replay only the targets whose
/// names start so (`ci/mutants --replay-only` sets it, for a run over one
/// family's files: another family's corpus cannot reach that code).
fn only() -> Vec<String> {
    std::env::var("CROSSDEC_REPLAY_ONLY")
        .map(|v| v.split(',').filter(|p| !p.is_empty()).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Under Miri or QEMU a smaller slice of each corpus keeps the run short.
fn limit() -> usize {
    std::env::var("CROSSDEC_REPLAY_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(miri) { 5 } else { usize::MAX })
}

#[test]
fn committed_corpora_agree() {
    let (checked, failures) = replay(&fuzz_dir().join("corpus"), limit());
    assert!(checked > 0, "no corpus files under fuzz/corpus");
    assert!(
        failures.is_empty(),
        "{} of {checked} corpus files disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_target_has_a_corpus() {
    for t in fuzzing::targets() {
        let dir = fuzz_dir().join("corpus").join(&t.name);
        let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        assert!(
            n > 0,
            "fuzz target {} has no committed corpus in {}",
            t.name,
            dir.display()
        );
    }
}

#[test]
fn committed_regressions_agree() {
    let (_, failures) = replay(&fuzz_dir().join("regressions"), usize::MAX);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One named test per fuzz finding (its minimized input stays in fuzz/regressions/<target>/).
#[allow(unused_macros)]
macro_rules! regression {
    ($name:ident, $target:literal, $file:literal) => {
        #[test]
        fn $name() {
            let data = include_bytes!(concat!("../../fuzz/regressions/", $target, "/", $file));
            let target = fuzzing::target($target).expect("known fuzz target");
            if let Err(problem) = fuzzing::check(&target, data) {
                panic!("fuzz finding {} still fails: {problem}", $file);
            }
        }
    };
}

// ci/fuzz appends `regression!(name, "target", "file");` lines here.
regression!(
    cube_columnar_structured_bc38177ddbaf,
    "cube_columnar_structured",
    "bc38177ddbaf"
);
regression!(
    cube_columnar_structured_5f51c00c68ae,
    "cube_columnar_structured",
    "5f51c00c68ae"
);
regression!(qwp_ts_questdb_9ff56c4bd841, "qwp_ts_questdb", "9ff56c4bd841");
