//! Fuzz corpora and findings, replayed as ordinary tests wherever the
//! harness tests run (natively and on s390x under QEMU), since libFuzzer
//! itself only runs on x86_64. `ci/fuzz` adds one named test per crash below.

use std::path::{Path, PathBuf};

use crossdec_harness::fuzzing;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// What a replay saw.
#[derive(Default)]
struct Replayed {
    /// Files read.
    files: usize,
    /// Per target: (files, files that were inputs of the family and so
    /// compared); a file that is not an input checks nothing.
    per_target: Vec<(String, usize, usize)>,
    failures: Vec<String>,
}

/// Replay `dir/<target>/*`.
fn replay(dir: &Path, limit: usize) -> Replayed {
    let mut seen = Replayed::default();
    let Ok(targets) = std::fs::read_dir(dir) else {
        return seen;
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
        let (mut read, mut inputs) = (0, 0);
        for file in files.into_iter().take(limit) {
            let data = std::fs::read(&file).unwrap();
            read += 1;
            match fuzzer.check(&data) {
                Ok(was_input) => inputs += usize::from(was_input),
                Err(problem) => {
                    inputs += 1;
                    seen.failures.push(format!("{}: {problem}", file.display()));
                }
            }
        }
        seen.files += read;
        seen.per_target.push((name, read, inputs));
    }
    seen
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
    let seen = replay(&fuzz_dir().join("corpus"), limit());
    assert!(seen.files > 0, "no corpus files under fuzz/corpus");
    assert!(
        seen.failures.is_empty(),
        "{} of {} corpus files disagree:\n{}",
        seen.failures.len(),
        seen.files,
        seen.failures.join("\n")
    );
    // A corpus of files its family cannot parse would pass while comparing
    // nothing: most of every target's files must be inputs.
    for (target, files, inputs) in &seen.per_target {
        assert!(
            *inputs * 2 > *files,
            "fuzz/corpus/{target}: only {inputs} of {files} files are inputs of its family"
        );
    }
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
    let seen = replay(&fuzz_dir().join("regressions"), usize::MAX);
    assert!(seen.failures.is_empty(), "{}", seen.failures.join("\n"));
    // Every finding is an input: one that no longer parses guards nothing.
    for (target, files, inputs) in &seen.per_target {
        assert_eq!(
            inputs, files,
            "fuzz/regressions/{target}: a finding is no longer an input"
        );
    }
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
