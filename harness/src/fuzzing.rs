//! Fuzzing entry points, shared by the cargo-fuzz targets in `fuzz/` and by
//! `crossdec replay`, so a corpus or crash file means the same thing under
//! libFuzzer on x86_64, as an ordinary test under QEMU on s390x, and under
//! Miri.
//!
//! Every family has a `raw` target (the bytes are a canonical input, as
//! `crossdec corpus` writes them) and a `structured` target (the bytes drive
//! [`crate::Family::arbitrary_case`]: values and shape through the reference
//! encoder, then optional mutations). A family with a cheap in-process peer
//! also has a target that includes it.

use crate::families;

/// How a target reads its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Raw,
    Structured,
}

/// One fuzz target: its cargo-fuzz name, family, mode, and whether third-party
/// peers take part.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub name: &'static str,
    pub family: &'static str,
    pub mode: Mode,
    pub peers: bool,
}

/// Every fuzz target. `fuzz/fuzz_targets/<name>.rs` exists for each.
pub const TARGETS: &[Target] = &[
    Target { name: "qwp_ts_raw", family: "qwp-ts", mode: Mode::Raw, peers: false },
    Target { name: "qwp_ts_structured", family: "qwp-ts", mode: Mode::Structured, peers: false },
    Target { name: "qwp_ts_questdb", family: "qwp-ts", mode: Mode::Raw, peers: true },
    Target { name: "pg_bytea_raw", family: "pg-bytea", mode: Mode::Raw, peers: false },
    Target { name: "pg_bytea_structured", family: "pg-bytea", mode: Mode::Structured, peers: false },
    Target { name: "tsfile_ts2diff_raw", family: "tsfile-ts2diff", mode: Mode::Raw, peers: false },
    Target { name: "tsfile_ts2diff_structured", family: "tsfile-ts2diff", mode: Mode::Structured, peers: false },
    Target { name: "tsfile_gorilla_raw", family: "tsfile-gorilla", mode: Mode::Raw, peers: false },
    Target { name: "tsfile_gorilla_structured", family: "tsfile-gorilla", mode: Mode::Structured, peers: false },
    Target { name: "tsfile_plain_raw", family: "tsfile-plain", mode: Mode::Raw, peers: false },
    Target { name: "tsfile_plain_structured", family: "tsfile-plain", mode: Mode::Structured, peers: false },
    Target { name: "tsfile_rle_raw", family: "tsfile-rle", mode: Mode::Raw, peers: false },
    Target { name: "tsfile_rle_structured", family: "tsfile-rle", mode: Mode::Structured, peers: false },
    Target { name: "cube_columnar_raw", family: "cube-columnar", mode: Mode::Raw, peers: false },
    Target { name: "cube_columnar_structured", family: "cube-columnar", mode: Mode::Structured, peers: false },
];

pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Run one input through a target. `Ok(false)` when the bytes do not form an
/// input (ignored), `Ok(true)` when every implementation agreed, `Err` with
/// the disagreements otherwise.
pub fn check(target: &Target, data: &[u8]) -> Result<bool, String> {
    let family = families::by_name(target.family).ok_or_else(|| format!("no family {}", target.family))?;
    let problems = match target.mode {
        Mode::Raw => family.check_bytes(data, target.peers),
        Mode::Structured => family.check_structured(data, target.peers),
    };
    match problems {
        None => Ok(false),
        Some(p) if p.is_empty() => Ok(true),
        Some(p) => Err(p.join("\n")),
    }
}

/// The libFuzzer entry: a disagreement is a crash.
pub fn fuzz(target_name: &str, data: &[u8]) {
    let target = target(target_name).unwrap_or_else(|| panic!("unknown fuzz target {target_name}"));
    if let Err(problem) = check(target, data) {
        panic!("{} disagreement:\n{problem}", target.name);
    }
}
