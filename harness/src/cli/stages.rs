//! The stages a certification ran, as `ci/test` recorded them (one
//! `stages/SHARD.tsv` per shard, `NAME<TAB>pass|fail<TAB>SECONDS[<TAB>MESSAGE]`),
//! and what they say about each target: whether its whole test suite and
//! its Miri pass ran and passed, how long its stages took and how fast its
//! campaign ran.
//!
//! A target is found in a stage's name: `ci/test` names each stage after
//! its target's triple (`native` for the host's suite and campaign), so
//! the names are the contract between the script and this module; the
//! tests below hold the names the script writes.

use std::path::Path;

use serde::Serialize;

use crate::engine::junit;

/// The targets whose whole kernels and reference suites certification
/// runs under Miri: the host, a big-endian and a 32-bit target.
pub const MIRI_TARGETS: [&str; 3] = [
    "x86_64-unknown-linux-gnu",
    "s390x-unknown-linux-gnu",
    "i686-unknown-linux-gnu",
];

/// One recorded stage.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stage {
    /// The shard that ran it (its file's name).
    pub shard: String,
    pub name: String,
    pub passed: bool,
    pub seconds: f64,
    /// Why it failed, when it did.
    pub message: String,
}

/// Whether a required stage ran and passed.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Passed,
    Failed,
    NotRun,
    /// Not asked of this target.
    NotRequired,
}

impl Outcome {
    /// Passed, or not asked for.
    pub fn ok(self) -> bool {
        matches!(self, Outcome::Passed | Outcome::NotRequired)
    }

    pub fn word(self) -> &'static str {
        match self {
            Outcome::Passed => "pass",
            Outcome::Failed => "FAIL",
            Outcome::NotRun => "NOT RUN",
            Outcome::NotRequired => "-",
        }
    }

    fn of<'a>(mut stages: impl Iterator<Item = &'a Stage>) -> Outcome {
        match stages.next() {
            None => Outcome::NotRun,
            Some(first) => {
                if first.passed && stages.all(|s| s.passed) {
                    Outcome::Passed
                } else {
                    Outcome::Failed
                }
            }
        }
    }
}

/// What the stages say about one target.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TargetStages {
    pub target: String,
    /// Its whole `cargo test` (natively `cargo test --workspace`, on a
    /// cross target `cargo test --workspace --tests` under its runner).
    pub suite: Outcome,
    /// The kernels' and references' suites under Miri.
    pub miri: Outcome,
    /// Its campaign's seconds (the `crossdec run` stage).
    pub campaign_seconds: Option<f64>,
    /// The campaign's cases per second.
    pub cases_per_second: Option<f64>,
    /// Every stage of its own, summed (Miri runs beside the others, so this
    /// is more than the wall time they took).
    pub seconds: f64,
}

/// Every `*.tsv` in `dir`, in name order; no directory is no stages.
pub fn read_dir(dir: &Path) -> Result<Vec<Stage>, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
        .collect();
    paths.sort();
    let mut stages = Vec::new();
    for path in paths {
        let shard = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        stages.extend(parse(&shard, &text).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    Ok(stages)
}

/// One shard's stages.
pub fn parse(shard: &str, text: &str) -> Result<Vec<Stage>, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let case = junit::parse_stage(line)?;
            let (passed, message) = match case.verdict {
                junit::Verdict::Failed { message, .. } => (false, message),
                _ => (true, String::new()),
            };
            Ok(Stage {
                shard: shard.to_string(),
                name: case.name,
                passed,
                seconds: case.seconds,
                message,
            })
        })
        .collect()
}

/// Whether `stage` is `target`'s own: it names the triple, or for the host
/// (`native`) starts with `native`.
fn belongs(stage: &Stage, target: &str, native: bool) -> bool {
    stage.name.contains(target) || (native && stage.name.starts_with("native"))
}

/// What the stages say about `target` (`native` for the host's run) whose
/// campaign ran `cases`.
pub fn of_target(stages: &[Stage], target: &str, native: bool, cases: u64) -> TargetStages {
    let own: Vec<&Stage> = stages.iter().filter(|s| belongs(s, target, native)).collect();
    let suite = if native {
        Outcome::of(own.iter().copied().filter(|s| s.name.starts_with("native: cargo test")))
    } else {
        Outcome::of(
            own.iter()
                .copied()
                .filter(|s| s.name.contains("cargo test --workspace")),
        )
    };
    let miri = if MIRI_TARGETS.contains(&target) {
        Outcome::of(
            own.iter()
                .copied()
                .filter(|s| s.name.starts_with(&format!("Miri on {target}"))),
        )
    } else {
        Outcome::NotRequired
    };
    let campaign = if native {
        own.iter().find(|s| s.name.starts_with("native: crossdec run"))
    } else {
        own.iter().find(|s| s.name.contains("crossdec run --like"))
    };
    let campaign_seconds = campaign.map(|s| s.seconds);
    TargetStages {
        target: target.to_string(),
        suite,
        miri,
        campaign_seconds,
        cases_per_second: campaign_seconds.filter(|&s| s > 0.0).map(|s| cases as f64 / s),
        seconds: own.iter().map(|s| s.seconds).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "x86_64-unknown-linux-gnu";
    const S390X: &str = "s390x-unknown-linux-gnu";

    /// Names as ci/test writes them (a shard of native and s390x).
    fn shard() -> Vec<Stage> {
        parse(
            "native+s390x",
            "formatting and lints (rustfmt, clippy on native and s390x-unknown-linux-gnu , the fuzz crate)\tpass\t100\n\
             native: cargo test\tpass\t300\n\
             native: crossdec run\tpass\t40\n\
             s390x-unknown-linux-gnu (big-endian, QEMU): cargo test --workspace --tests\tpass\t600\n\
             s390x-unknown-linux-gnu: crossdec run --like native\tpass\t200\n\
             gate\tpass\t1\n\
             Miri on x86_64-unknown-linux-gnu: the SIMD kernels\tpass\t900\n\
             Miri on s390x-unknown-linux-gnu (big-endian): the kernels' scalar and SWAR paths\tfail\t50\texit code 1\n",
        )
        .unwrap()
    }

    #[test]
    fn each_target_gets_its_suite_miri_and_campaign() {
        let stages = shard();
        let native = of_target(&stages, HOST, true, 80_000);
        assert_eq!((native.suite, native.miri), (Outcome::Passed, Outcome::Passed));
        assert_eq!(native.campaign_seconds, Some(40.0));
        assert_eq!(native.cases_per_second, Some(2000.0));
        assert_eq!(native.seconds, 300.0 + 40.0 + 900.0);
        let s390x = of_target(&stages, S390X, false, 80_000);
        assert_eq!((s390x.suite, s390x.miri), (Outcome::Passed, Outcome::Failed));
        assert_eq!(s390x.cases_per_second, Some(400.0));
        assert_eq!(s390x.seconds, 100.0 + 600.0 + 200.0 + 50.0);
    }

    #[test]
    fn a_target_without_its_stages_has_not_run_them() {
        let stages = shard();
        let ppc = of_target(&stages, "powerpc64-unknown-linux-gnu", false, 1);
        assert_eq!((ppc.suite, ppc.miri), (Outcome::NotRun, Outcome::NotRequired));
        assert_eq!((ppc.campaign_seconds, ppc.seconds), (None, 0.0));
        let i686 = of_target(&stages, "i686-unknown-linux-gnu", false, 1);
        assert_eq!(i686.miri, Outcome::NotRun);
        assert!(!Outcome::NotRun.ok() && !Outcome::Failed.ok() && Outcome::NotRequired.ok());
    }

    #[test]
    fn a_failed_stage_keeps_its_message_and_a_bad_line_is_an_error() {
        let stages = shard();
        let failed: Vec<&Stage> = stages.iter().filter(|s| !s.passed).collect();
        assert_eq!(failed.len(), 1);
        assert_eq!(
            (failed[0].shard.as_str(), failed[0].message.as_str()),
            ("native+s390x", "exit code 1")
        );
        assert!(parse("x", "gate\tmaybe\t1\n").is_err());
        assert!(parse("x", "gate\tpass\n").is_err());
    }

    #[test]
    fn a_directory_of_shards_is_read_in_name_order_and_a_missing_one_is_empty() {
        let dir = std::env::temp_dir().join(format!("crossdec-stages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.tsv"), "gate\tpass\t2\n").unwrap();
        std::fs::write(dir.join("a.tsv"), "gate\tpass\t1\n").unwrap();
        std::fs::write(dir.join("notes.txt"), "not a stage").unwrap();
        let stages = read_dir(&dir).unwrap();
        let shards: Vec<&str> = stages.iter().map(|s| s.shard.as_str()).collect();
        assert_eq!(shards, ["a", "b"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(read_dir(&dir).unwrap(), Vec::new());
    }
}
