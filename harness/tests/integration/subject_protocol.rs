//! The subject protocol end to end, for every family: `crossdec
//! serve-reference` answers with the reference over the pipe, so it must
//! agree with the reference in-process on every generated input. This holds
//! every family's output and error types to their canonical read-back
//! (`FromCanonical`), the framing and the batching. Native only: the
//! subject is this target's `crossdec` binary, which a cross target's test
//! could not start without its emulator.

#![cfg(all(target_arch = "x86_64", unix))]

use crossdec_harness::engine::{Role, RunOptions, SubjectCommand};
use crossdec_harness::families;

#[test]
fn the_reference_over_the_pipe_agrees_with_itself_in_every_family() {
    let binary = env!("CARGO_BIN_EXE_crossdec");
    for mut family in families::all() {
        let name = family.name();
        family.add_subject(SubjectCommand::new(
            "reference-over-pipe",
            format!("{binary} serve-reference --family {name}"),
            Role::Kernel,
        ));
        let report = family.run(&RunOptions {
            cases: 6,
            seed: 5,
            implementations: vec!["reference-over-pipe".into()],
            ..RunOptions::default()
        });
        assert_eq!(report.failure_count, 0, "{name}: {:#?}", report.failures);
        let subject = report
            .implementations
            .iter()
            .find(|i| i.name == "reference-over-pipe")
            .unwrap();
        let steps: u64 = report.categories.iter().map(|c| c.steps).sum();
        assert_eq!((subject.compared, subject.unsupported), (steps, 0), "{name}");
        assert!(steps > 0, "{name}");
    }
}

#[test]
fn an_input_of_another_family_is_unsupported_not_a_failure() {
    let binary = env!("CARGO_BIN_EXE_crossdec");
    // A cube subject asked about pg-bytea literals cannot parse most of
    // them: it says so, and nothing is compared.
    let mut family = families::by_name("pg-bytea").unwrap();
    family.add_subject(SubjectCommand::new(
        "wrong-family",
        format!("{binary} serve-reference --family tsfile-plain"),
        Role::Kernel,
    ));
    let report = family.run(&RunOptions {
        cases: 2,
        implementations: vec!["wrong-family".into()],
        categories: vec!["hex-plain".into()],
        ..RunOptions::default()
    });
    let subject = report
        .implementations
        .iter()
        .find(|i| i.name == "wrong-family")
        .unwrap();
    assert!(subject.unsupported > 0, "{subject:#?}");
}

/// `check` and `replay` ask a subject too, from the command line, and a
/// wrong subject makes them fail with its name.
#[test]
fn check_and_replay_take_subjects_on_the_command_line() {
    let binary = env!("CARGO_BIN_EXE_crossdec");
    let good = format!("self={binary} serve-reference --family pg-bytea");
    // Answers with tsfile-plain's reference: every pg-bytea literal it can
    // parse gets a value of the wrong type (garbage for pg-bytea).
    let wrong = format!("wrong={binary} serve-reference --family tsfile-plain");
    let dir = std::env::temp_dir().join(format!("crossdec-subject-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A 16-byte literal tsfile-plain can parse as a page (encoding 0, type 0).
    let literal = b"\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x01\x00\x01\x00\x01";
    std::fs::write(dir.join("one"), literal).unwrap();
    let hex = hex::encode(literal);
    let run = |args: &[&str]| std::process::Command::new(binary).args(args).output().unwrap();

    let ok = run(&["check", "--family", "pg-bytea", "--hex", &hex, "--subject", &good]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stdout));
    let bad = run(&["check", "--family", "pg-bytea", "--hex", &hex, "--subject", &wrong]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stdout)
            .lines()
            .any(|l| l.starts_with("wrong ") && l.contains("DIFFERS at step 0")),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );

    let dir_arg = dir.display().to_string();
    let ok = run(&["replay", &dir_arg, "--family", "pg-bytea", "--subject", &good]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stdout));
    let bad = run(&["replay", &dir_arg, "--family", "pg-bytea", "--subject", &wrong]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stdout).contains("1 disagreed"),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );
    std::fs::remove_dir_all(&dir).ok();
}
