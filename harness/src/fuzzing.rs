//! Fuzzing entry points, shared by the cargo-fuzz target in `fuzz/` and by
//! `crossdec replay`, so a corpus or crash file means the same thing under
//! libFuzzer on x86_64, as an ordinary test under QEMU on s390x, and under
//! Miri.
//!
//! The targets come from the family registry: every family has a `raw`
//! target `<family>_raw` (the bytes are a canonical input, as `crossdec
//! corpus` writes them) and a `structured` one `<family>_structured` (the
//! bytes drive [`Spec::arbitrary_case`](crate::engine::Spec::arbitrary_case):
//! values and shape through the reference encoder, then optional mutations).
//! A family with a cheap in-process peer also has a target that includes it
//! ([`PEER_TARGETS`]). One cargo-fuzz binary serves them all; it reads the
//! target's name from `CROSSDEC_FUZZ_TARGET`.
//!
//! Every input runs through its spec's fuzz-mode limits
//! ([`Spec::cap_for_fuzzing`](crate::engine::Spec::cap_for_fuzzing)) so an
//! execution costs about what its bytes are worth, and structured targets
//! never draw from [`large`](crate::engine::Category::large) categories;
//! `docs/how-to/fuzzing.md` lists the caps and the campaign categories that cover
//! what they cut off.

use crate::engine::Family;
use crate::families;

/// How a target reads its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Raw,
    Structured,
}

/// One fuzz target: its name (its corpus directory), family, mode, and
/// whether third-party peers take part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub name: String,
    pub family: String,
    pub mode: Mode,
    pub peers: bool,
}

/// Raw targets that also run a family's in-process peer: (name, family).
pub const PEER_TARGETS: &[(&str, &str)] = &[("qwp_ts_questdb", "qwp-ts")];

/// Every fuzz target, from the family registry.
pub fn targets() -> Vec<Target> {
    let mut out = Vec::new();
    for family in families::all() {
        let stem = family.name().replace('-', "_");
        for (suffix, mode) in [("raw", Mode::Raw), ("structured", Mode::Structured)] {
            out.push(Target {
                name: format!("{stem}_{suffix}"),
                family: family.name().to_string(),
                mode,
                peers: false,
            });
        }
        for (name, _) in PEER_TARGETS.iter().filter(|(_, f)| *f == family.name()) {
            out.push(Target {
                name: name.to_string(),
                family: family.name().to_string(),
                mode: Mode::Raw,
                peers: true,
            });
        }
    }
    out
}

/// The target called `name`.
pub fn target(name: &str) -> Option<Target> {
    targets().into_iter().find(|t| t.name == name)
}

/// A target with its family built once, for running many inputs.
pub struct Fuzzer {
    pub target: Target,
    family: Box<dyn Family>,
}

impl Fuzzer {
    pub fn new(target: Target) -> Result<Self, String> {
        let family = families::by_name(&target.family).ok_or_else(|| format!("no family {}", target.family))?;
        Ok(Fuzzer { target, family })
    }

    /// A fuzzer whose family also asks the given external subjects.
    pub fn with_subjects(target: Target, subjects: &crate::cli::subjects::SubjectArgs) -> Result<Self, String> {
        let mut fuzzer = Fuzzer::new(target)?;
        subjects.attach(std::iter::once(&mut fuzzer.family))?;
        Ok(fuzzer)
    }

    /// Run one input. `Ok(false)` when the bytes do not form an input
    /// (ignored), `Ok(true)` when every implementation agreed, `Err` with the
    /// disagreements otherwise.
    pub fn check(&self, data: &[u8]) -> Result<bool, String> {
        let problems = match self.target.mode {
            Mode::Raw => self.family.check_fuzz_bytes(data, self.target.peers),
            Mode::Structured => self.family.check_structured(data, self.target.peers),
        };
        match problems {
            None => Ok(false),
            Some(p) if p.is_empty() => Ok(true),
            Some(p) => Err(p.join("\n")),
        }
    }
}

/// Run one input through a target (building its family; see [`Fuzzer`] to
/// run many).
pub fn check(target: &Target, data: &[u8]) -> Result<bool, String> {
    Fuzzer::new(target.clone())?.check(data)
}

/// The libFuzzer entry: the target named by `CROSSDEC_FUZZ_TARGET`, built on
/// the first call; a disagreement is a crash.
pub fn fuzz(data: &[u8]) {
    static FUZZER: std::sync::OnceLock<Fuzzer> = std::sync::OnceLock::new();
    let fuzzer = FUZZER.get_or_init(|| {
        let name = std::env::var("CROSSDEC_FUZZ_TARGET")
            .expect("CROSSDEC_FUZZ_TARGET names the fuzz target (`crossdec fuzz-targets`)");
        let target = target(&name).unwrap_or_else(|| panic!("unknown fuzz target {name}"));
        Fuzzer::new(target).unwrap_or_else(|e| panic!("{e}"))
    });
    if let Err(problem) = fuzzer.check(data) {
        panic!("{} disagreement:\n{problem}", fuzzer.target.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_a_raw_and_a_structured_target() {
        let targets = targets();
        for family in families::all() {
            for mode in [Mode::Raw, Mode::Structured] {
                assert!(
                    targets
                        .iter()
                        .any(|t| t.family == family.name() && t.mode == mode && !t.peers),
                    "{} {mode:?}",
                    family.name()
                );
            }
        }
        assert_eq!(target("qwp_ts_raw").map(|t| t.family), Some("qwp-ts".to_string()));
        assert_eq!(
            target("qwp_ts_questdb").map(|t| (t.mode, t.peers)),
            Some((Mode::Raw, true))
        );
        assert_eq!(target("tsfile_rle_structured").map(|t| t.mode), Some(Mode::Structured));
        assert!(target("nope_raw").is_none());
    }
}
