//! A decoder in C as an external subject (`subjects/c-ts2diff/`: a C port of
//! the TS_2DIFF reference, built with AddressSanitizer and UBSan), held to
//! the reference over the whole `tsfile-ts2diff` campaign; and a bug planted
//! in a copy of it (one byte read past the page) is caught and blamed on an
//! input that reaches it. Native only, like every subject test; a machine
//! without a C compiler fails unless `CROSSDEC_SKIP_ORACLES=c_subject`.

#![cfg(all(target_arch = "x86_64", unix))]

use std::path::{Path, PathBuf};
use std::process::Command;

use crossdec_harness::engine::{Role, RunOptions, SubjectCommand};
use crossdec_harness::families;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn ts2diff_with(subject: SubjectCommand, options: &RunOptions) -> crossdec_harness::engine::FamilyReport {
    let mut family = families::by_name("tsfile-ts2diff").expect("registered");
    family.add_subject(subject);
    family.run(options)
}

#[test]
fn the_c_port_agrees_with_the_reference_on_every_category() {
    let run = repository().join("subjects/c-ts2diff/run");
    match Command::new(&run).arg("--compile-only").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return crossdec_harness::oracles::missing("c_subject", &format!("cannot build the C subject: {why}"));
        }
        Err(e) => return crossdec_harness::oracles::missing("c_subject", &format!("{}: {e}", run.display())),
    }
    let report = ts2diff_with(
        SubjectCommand::new("c-ts2diff", run.display().to_string(), Role::Kernel),
        &RunOptions {
            cases: 60,
            seed: 3,
            implementations: vec!["c-ts2diff".into()],
            ..RunOptions::default()
        },
    );
    assert_eq!(report.failure_count, 0, "{:#?}", report.failures);
    let subject = report.implementations.iter().find(|i| i.name == "c-ts2diff").unwrap();
    let steps: u64 = report.categories.iter().map(|c| c.steps).sum();
    // The port decodes INT32 and INT64 pages, and answers "unsupported" to
    // exactly the FLOAT / DOUBLE ones (type ids 3 and 4) of the same run.
    let family = families::by_name("tsfile-ts2diff").expect("registered");
    let floats = family
        .corpus(60, 3)
        .iter()
        .filter(|(_, input)| matches!(input[1], 3 | 4))
        .count() as u64;
    assert!(
        floats > 0 && floats < steps,
        "{floats} of {steps} steps are FLOAT / DOUBLE"
    );
    assert_eq!((subject.compared, subject.unsupported), (steps - floats, floats));
}

/// Compile `source` with the sanitizers the subject's `run` uses.
fn compile_sanitized(source: &Path, binary: &Path) -> Result<(), String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args([
            "-std=c11",
            "-O1",
            "-g",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-o",
        ])
        .arg(binary)
        .arg(source)
        .output()
        .map_err(|e| format!("{cc}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn a_read_past_the_page_planted_in_the_c_port_is_caught_with_its_input() {
    let source = std::fs::read_to_string(repository().join("subjects/c-ts2diff/ts2diff.c")).unwrap();
    let check = "if (p.len - packed_at < packed_len) {";
    assert!(
        source.contains(check),
        "the packed-length check moved; update the planted bug"
    );
    let planted = source.replace(check, "if (p.len - packed_at + 1 < packed_len) {");
    let dir = std::env::temp_dir().join(format!("crossdec-c-subject-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (c, binary) = (dir.join("planted.c"), dir.join("planted"));
    std::fs::write(&c, planted).unwrap();
    if let Err(why) = compile_sanitized(&c, &binary) {
        std::fs::remove_dir_all(&dir).ok();
        return crossdec_harness::oracles::missing("c_subject", &format!("cannot compile with sanitizers: {why}"));
    }
    let report = ts2diff_with(
        SubjectCommand::new(
            "c-ts2diff-planted",
            format!("ASAN_OPTIONS=detect_leaks=0:print_legend=0 {}", binary.display()),
            Role::Kernel,
        ),
        &RunOptions {
            // Seed 3's truncated streams happen to have only 0-bit blocks
            // (no packed bytes to cut); seed 4's, at 100 calls a category, reach
            // the bug.
            cases: 100,
            seed: 4,
            implementations: vec!["c-ts2diff-planted".into()],
            ..RunOptions::default()
        },
    );
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        report.failure_count > 0,
        "the planted read past the page went unnoticed"
    );
    let f = &report.failures[0];
    assert!(f.got.contains("SUBJECT FAILED"), "{}", f.got);
    assert!(
        f.got.contains("ERROR: AddressSanitizer: heap-buffer-overflow"),
        "{}",
        f.got
    );
    assert!(!f.minimized_hex.is_empty(), "{f:#?}");
}
