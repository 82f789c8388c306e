//! pgjdbc's real bytea decoder (`subjects/pgjdbc/`, installed by
//! `ci/install.d/pgjdbc.sh`) as an external peer of `pg-bytea`, native
//! x86_64 only. Without Java or the pgjdbc jar the test fails unless its
//! skip is asked for by name (`CROSSDEC_SKIP_ORACLES=pgjdbc_subject`).
//!
//! pgjdbc must differ from the reference only where a rule of
//! `families::bytea::pgjdbc` says, each rule used and within its bounds; a
//! pgjdbc that decodes anything differently (a later version that validates
//! hex, say) must fail the run.

#![cfg(all(target_arch = "x86_64", unix))]

use std::path::PathBuf;
use std::process::Command;

use crossdec_harness::engine::{Family, Role, RunOptions, SubjectCommand};
use crossdec_harness::families::bytea;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The subject's command, compiled; `None` (after [`missing`]) without Java
/// or the jar.
///
/// [`missing`]: crossdec_harness::oracles::missing
fn pgjdbc_or_explain() -> Option<String> {
    let run = repository().join("subjects/pgjdbc/run");
    let compiled = Command::new(&run).arg("--compile-only").output();
    match compiled {
        Ok(out) if out.status.success() => Some(run.display().to_string()),
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
            crossdec_harness::oracles::missing("pgjdbc_subject", &format!("cannot build the pgjdbc subject: {why}"));
            None
        }
        Err(e) => {
            crossdec_harness::oracles::missing("pgjdbc_subject", &format!("cannot run {}: {e}", run.display()));
            None
        }
    }
}

#[test]
fn pgjdbc_differs_from_the_reference_only_where_a_rule_explains_it() {
    let Some(command) = pgjdbc_or_explain() else { return };
    let mut family: Box<dyn Family> = Box::new(bytea::campaign());
    family.add_subject(SubjectCommand::new(bytea::pgjdbc::NAME, command, Role::Peer));
    let report = family.run(&RunOptions {
        cases: 60,
        seed: 11,
        implementations: vec![bytea::pgjdbc::NAME.into()],
        ..RunOptions::default()
    });
    assert_eq!(
        report.failure_count, 0,
        "{:#?}\n{:#?}",
        report.failures, report.bounds_exceeded
    );
    let pgjdbc = report
        .implementations
        .iter()
        .find(|i| i.name == "pgjdbc")
        .expect("reported");
    let steps: u64 = report.categories.iter().map(|c| c.steps).sum();
    assert_eq!(pgjdbc.compared, steps, "pgjdbc answered every input");
    assert_eq!(pgjdbc.unsupported, 0);
    for rule in [
        "pgjdbc-hex-whitespace",
        "pgjdbc-hex-unvalidated",
        "pgjdbc-escape-unvalidated",
    ] {
        assert!(
            pgjdbc.tolerated.get(rule).copied().unwrap_or(0) > 0,
            "{rule} never applied: {pgjdbc:#?}"
        );
    }
    // Every valid literal the server could send decodes exactly: no rule
    // applies in the categories of well-formed server-style text.
    for c in report
        .categories
        .iter()
        .filter(|c| ["hex-plain", "escape"].contains(&c.name.as_str()))
    {
        assert!(c.tolerated.is_empty(), "{}: {:?}", c.name, c.tolerated);
    }
}

/// A `pgjdbc` that, like later pgjdbc versions, rejects an odd hex digit
/// count with its own exception: no rule may explain that.
#[test]
fn a_pgjdbc_that_decodes_differently_is_a_finding() {
    let Some(command) = pgjdbc_or_explain() else { return };
    let dir = std::env::temp_dir().join(format!("crossdec-pgjdbc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("validating-pgjdbc.py");
    std::fs::write(
        &script,
        r#"
import struct, subprocess, sys
real = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
i, o = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = i.read(4)
    if not head:
        break
    data = i.read(struct.unpack("<I", head)[0])
    if data.startswith(b"\\x") and len(data) % 2 == 1:
        body = b"\x03PSQLException: invalid hexadecimal data: odd number of digits"
    else:
        real.stdin.write(head + data)
        real.stdin.flush()
        rhead = real.stdout.read(4)
        body = real.stdout.read(struct.unpack("<I", rhead)[0])
    o.write(struct.pack("<I", len(body)) + body)
    o.flush()
"#,
    )
    .unwrap();
    let mut family: Box<dyn Family> = Box::new(bytea::campaign());
    family.add_subject(SubjectCommand::new(
        bytea::pgjdbc::NAME,
        format!("python3 {} {command}", script.display()),
        Role::Peer,
    ));
    let report = family.run(&RunOptions {
        cases: 20,
        seed: 11,
        implementations: vec![bytea::pgjdbc::NAME.into()],
        categories: vec!["hex-odd-and-split".into(), "hex-plain".into()],
        ..RunOptions::default()
    });
    std::fs::remove_dir_all(&dir).ok();
    assert!(report.failure_count > 0, "the validating pgjdbc went unnoticed");
    assert!(
        report.failures.iter().all(|f| f.category == "hex-odd-and-split"),
        "{:#?}",
        report.failures
    );
    assert!(
        report.failures[0].got.contains("odd number of digits"),
        "{}",
        report.failures[0].got
    );
}
