//! The gate is never green by mistake, and its failures can be acted on:
//! the `crossdec` binary run as a user runs it, with external subjects that
//! compare nothing, crash, or do not exist (`tests/subjects/`). The
//! command line's plain errors are snapshot tests in `tests/cli/`.
//!
//! Native x86_64 only (the subjects are Python scripts).
#![cfg(all(target_arch = "x86_64", unix))]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_crossdec");

fn subject(script: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/subjects")
        .join(script)
        .display()
        .to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crossdec-gate-trust-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn crossdec(args: &[&str]) -> Output {
    Command::new(BINARY)
        .args(args)
        .env("CROSSDEC_SEED", "1")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_subject_that_answers_unsupported_to_everything_fails_the_run_and_check() {
    let out_dir = scratch("lazy");
    let lazy = format!("lazy=python3 {}", subject("lazy.py"));
    let out_arg = out_dir.display().to_string();
    let run_lazy = |extra: &[&str]| {
        let common = [
            "run",
            "--family",
            "pg-bytea",
            "--category",
            "hex-plain",
            "--impl",
            "bytea/hex-scalar",
            "--impl",
            "lazy",
            "--cases",
            "3",
            "--subject",
            &lazy,
            "--out",
            &out_arg,
        ];
        crossdec(&[&common[..], extra].concat())
    };
    let out = run_lazy(&["--category", "escape"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("lazy compared nothing in 2 categories: hex-plain, escape"),
        "{stdout}"
    );
    assert!(stdout.contains("answered \"unsupported\""), "{stdout}");
    let verdict = stdout.lines().rfind(|l| l.starts_with("verdict:")).unwrap();
    assert!(verdict.contains("FAIL"), "{verdict}");

    // Declared outside its scope, the same subject is no longer a failure,
    // and the summary says so.
    let out = run_lazy(&["--outside-scope", "lazy=hex-plain"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("outside its scope"), "{stdout}");

    let check = crossdec(&[
        "check",
        "--family",
        "pg-bytea",
        "--hex",
        "5c7830303031",
        "--subject",
        &lazy,
    ]);
    let stdout = text(&check.stdout);
    assert_eq!(check.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("reference: "), "{stdout}");
    assert!(stdout.contains("NOT COMPARED"), "{stdout}");
    std::fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn a_subject_crashing_on_ff_ends_soon_with_one_minimized_failure_whose_command_reproduces_it() {
    let out_dir = scratch("crash");
    let crash = format!("crashy=python3 {} {BINARY} pg-bytea", subject("crash_on_ff.py"));
    let started = Instant::now();
    let mut child = Command::new(BINARY)
        .args([
            "run",
            "--family",
            "pg-bytea",
            "--impl",
            "bytea/hex-scalar",
            "--impl",
            "crashy",
            "--cases",
            "20",
            "--subject",
            &crash,
            "--out",
            out_dir.to_str().unwrap(),
            "--junit",
            out_dir.join("junit.xml").to_str().unwrap(),
        ])
        .env("CROSSDEC_HEARTBEAT_SECONDS", "1")
        .env("CROSSDEC_SEED", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    let elapsed = started.elapsed();
    assert_eq!(status.code(), Some(1), "{stdout}{stderr}");
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    // Off a terminal, progress is a heartbeat line on stderr.
    assert!(stderr.lines().any(|l| l.starts_with("crossdec: ")), "{stderr}");

    // One group for the one bug, its smallest reproducer the byte itself.
    assert!(stdout.contains(" in 1 group(s) by symptom"), "{stdout}");
    assert!(stdout.contains("  [1] subject failed: crash"), "{stdout}");
    assert!(stdout.contains("    input:    ff\n"), "{stdout}");
    let replay = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay:"))
        .unwrap_or_else(|| panic!("no replay command: {stdout}"));
    assert!(replay.contains("--hex ff"), "{replay}");
    assert!(replay.contains("--subject"), "{replay}");

    // Pasted as printed, the command reproduces the failure.
    let pasted = Command::new("sh")
        .arg("-c")
        .arg(replay.replacen("crossdec", BINARY, 1))
        .output()
        .unwrap();
    assert_eq!(
        pasted.status.code(),
        Some(1),
        "{}{}",
        text(&pasted.stdout),
        text(&pasted.stderr)
    );
    assert!(text(&pasted.stdout).contains("crashy"), "{}", text(&pasted.stdout));

    // The JUnit file carries the same complete command.
    let junit = std::fs::read_to_string(out_dir.join("junit.xml")).unwrap();
    assert!(
        junit.contains("replay: crossdec check --family pg-bytea --impl crashy --subject"),
        "{junit}"
    );

    // report.json keeps every failure the run found.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap()).unwrap();
    let family = &report["families"][0];
    let kept = family["failures"].as_array().unwrap().len() as u64;
    let left_out = family["failures_left_out"].as_u64().unwrap();
    let found: u64 = family["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["failures"].as_u64().unwrap())
        .sum();
    assert!(kept >= 1);
    assert_eq!(
        (kept, left_out),
        (found, 0),
        "below the failure limit every failure is kept"
    );
    std::fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn a_subject_command_that_does_not_exist_is_one_setup_error() {
    let out_dir = scratch("missing");
    let started = Instant::now();
    let out = crossdec(&[
        "run",
        "--family",
        "pg-bytea",
        "--cases",
        "5",
        "--subject",
        "ghost=/no/such/subject",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let all = format!("{stdout}{stderr}");
    assert_eq!(all.matches("ghost could not be run").count(), 1, "{all}");
    assert!(!stdout.contains("reproducer"), "{stdout}");
    std::fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn a_closed_stdout_ends_the_program_quietly() {
    let out_dir = scratch("pipe");
    let run = [
        "run",
        "--family",
        "tsfile-gorilla",
        "--cases",
        "2",
        "--no-progress",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    for args in [&["list"][..], &["fuzz-targets"][..], &run[..]] {
        // The reading end is closed before the program writes anything (as
        // `| head -0` would): its first write meets a closed pipe, however
        // little it prints.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(BINARY)
            .args(args)
            .env("CROSSDEC_SEED", "1")
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // 141: 128 + SIGPIPE, what a shell reports for a program a closed
        // pipe ended.
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn changed_since_outside_a_git_repository_says_so() {
    let dir = scratch("nogit");
    let out = Command::new(BINARY)
        .args(["run", "--changed-since", "HEAD~1", "--out", "out"])
        .current_dir(&dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not in a git repository"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("usage: git"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}
