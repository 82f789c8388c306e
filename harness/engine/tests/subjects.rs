//! External subjects (`docs/reference/subjects.md`): a decoder in another process is
//! held to the reference like a kernel, and every way it can misbehave (a
//! wrong value, a crash, a hang, garbage, its own words, not starting at
//! all) is a failure of the input it was answering while the run goes on.
//! The subject is `tests/subjects/popcount.py`, its misbehaviour chosen by
//! its first argument.
#![cfg(all(unix, not(miri)))]

use std::time::{Duration, Instant};

use crossdec_engine::bytes::Payload;
use crossdec_engine::report::{passed, summary, FamilyReport};
use crossdec_engine::subject::BROKEN_AFTER;
use crossdec_engine::{
    canonical_enum, case_rng, AllowedDifference, Campaign, Case, Category, Family, Outcome, Problem, Role, RunOptions,
    Spec, SubjectCommand,
};

/// Marker bytes: each makes one mode of the test subject misbehave.
const MARKERS: [u8; 6] = [0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0x00];

#[derive(Debug, Clone, PartialEq)]
enum PcError {
    Subject { message: String },
}
canonical_enum!(PcError { Subject { message } = 1 });

struct Popcounts;

impl Spec for Popcounts {
    type Input = Payload;
    type Output = Vec<u8>;
    type Error = PcError;
    fn name(&self) -> &'static str {
        "popcounts"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        vec![
            // Two steps per case: the second carries the marker, so a
            // failure is on step 1 and step 0 was compared.
            Category::new("markers", 1.0, |index, _| {
                let marker = MARKERS[index as usize % MARKERS.len()];
                vec![Case {
                    steps: vec![Payload(vec![1, 2]), Payload(vec![3, marker, 4])],
                }]
            }),
            // No marker byte; lengths up to 15, so some are "long".
            Category::new("plain", 1.0, |_, rng| {
                let len = rng.gen_range(0..16u32);
                vec![Case::one(Payload((0..len).map(|_| rng.gen_range(1..0xBBu8)).collect()))]
            }),
        ]
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        Ok(input.0.iter().map(|b| b.count_ones() as u8).collect())
    }
    fn subject_error(message: &str) -> Option<PcError> {
        Some(PcError::Subject {
            message: message.to_string(),
        })
    }
}

/// The subject in `mode`. Python without `site` (`-S`): the script needs
/// only the standard library, and the suite starts it a few hundred times.
fn command(mode: &str, role: Role) -> SubjectCommand {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/subjects/popcount.py");
    let mut c = SubjectCommand::new("pc", format!("python3 -S {script} {mode}"), role);
    // The hanging mode waits out the timeout once per hang, so its is
    // short; a subject that answers gets one it never comes near however
    // loaded the machine is (its first answer includes starting Python).
    c.timeout = if mode == "hang" {
        Duration::from_millis(700)
    } else {
        Duration::from_secs(20)
    };
    c
}

fn run_with(mode: &str, role: Role, campaign: Campaign<Popcounts>) -> FamilyReport {
    let campaign = campaign.subject(command(mode, role));
    campaign.run(&RunOptions {
        cases: 12,
        ..RunOptions::default()
    })
}

fn run(mode: &str) -> FamilyReport {
    run_with(mode, Role::Kernel, Campaign::new(Popcounts))
}

fn subject_report(report: &FamilyReport) -> &crossdec_engine::report::ImplementationReport {
    report
        .implementations
        .iter()
        .find(|i| i.name == "pc")
        .expect("the subject is reported")
}

/// The markers category's cases whose second step holds `marker`.
fn marker_cases(report: &FamilyReport, marker: u8) -> u64 {
    let calls = report.categories[0].calls;
    (0..calls)
        .filter(|i| MARKERS[*i as usize % MARKERS.len()] == marker)
        .count() as u64
}

#[test]
fn a_correct_subject_agrees_on_every_step() {
    let report = run("good");
    assert_eq!(report.failure_count, 0, "{:#?}", report.failures);
    let steps: u64 = report.categories.iter().map(|c| c.steps).sum();
    let pc = subject_report(&report);
    assert!(pc.ran);
    assert_eq!(pc.compared, steps, "every step goes through the subject, once");
    assert_eq!(pc.unsupported, 0);
    assert!(pc.subject.as_deref().unwrap().contains("popcount.py good"));
    let manifest = crossdec_engine::report::manifest(std::slice::from_ref(&report), 0, 12);
    let record = &manifest.families[0].subjects["pc"];
    assert_eq!((record.role, record.compared), (Role::Kernel, steps));
    assert!(
        manifest.families[0].kernels.is_empty(),
        "a subject is not a registry kernel"
    );
}

#[test]
fn a_failure_an_earlier_input_caused_says_so_instead_of_empty_minimized_outcomes() {
    let report = run("after-ee");
    assert!(report.failure_count > 0);
    // Each failing input, asked alone, agrees: the difference says why,
    // and no empty "minimized" outcome is printed.
    let alone: Vec<_> = report
        .failures
        .iter()
        .filter(|f| f.difference.contains("does not fail on its own"))
        .collect();
    assert!(!alone.is_empty(), "{:#?}", report.failures);
    for f in &alone {
        assert!(
            f.difference.contains("earlier inputs to the same subject process"),
            "{}",
            f.difference
        );
        assert!(f.minimized_expected.is_empty() && f.minimized_got.is_empty());
    }
    let text = summary(std::slice::from_ref(&report));
    assert!(!text.contains("minimized expected: \n"), "{text}");
    assert!(text.contains("does not fail on its own"), "{text}");
}

#[test]
fn a_subject_that_compares_nothing_fails_the_run_unless_its_scope_says_so() {
    let report = run("unsupported-all");
    assert_eq!(report.failures.len(), 0);
    let nothing: Vec<&str> = report
        .problems
        .iter()
        .filter_map(|p| match p {
            Problem::NothingCompared {
                implementation,
                category,
                unsupported,
                ..
            } if implementation == "pc" && *unsupported > 0 => Some(category.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(nothing, ["markers", "plain"], "{:#?}", report.problems);
    assert!(!passed(std::slice::from_ref(&report)));

    let mut scoped = command("unsupported-all", Role::Kernel);
    scoped.outside_scope = vec!["markers".into(), "plain".into()];
    let options = RunOptions {
        cases: 6,
        ..RunOptions::default()
    };
    // Declared, but then nothing at all was compared: still not green.
    let report = Campaign::new(Popcounts).subject(scoped.clone()).run(&options);
    assert!(
        matches!(report.problems.as_slice(), [Problem::NoComparisons { .. }]),
        "{:#?}",
        report.problems
    );
    assert!(!passed(std::slice::from_ref(&report)));
    // Beside a kernel that compares, the declared subject passes.
    let report = Campaign::new(Popcounts)
        .kernel_fn("popcount", |p: &Payload| Popcounts.reference(p))
        .subject(scoped)
        .run(&options);
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert!(passed(std::slice::from_ref(&report)));
    let text = summary(std::slice::from_ref(&report));
    assert!(text.contains("outside its scope"), "{text}");
}

#[test]
fn the_subject_sees_the_protocol_environment() {
    assert_eq!(run("env").failure_count, 0);
}

#[test]
fn a_wrong_value_fails_exactly_the_inputs_it_is_wrong_on() {
    let report = run("wrong");
    assert_eq!(report.failure_count, marker_cases(&report, 0xFF));
    for f in &report.failures {
        assert_eq!((f.implementation.as_str(), f.step), ("pc", 1));
        assert!(f.input_hex[1].contains("ff"), "{f:?}");
        assert!(f.got.contains('7'), "{f:?}");
    }
}

#[test]
fn a_crash_fails_its_input_quotes_stderr_and_the_subject_restarts() {
    let report = run("crash");
    let crashes = marker_cases(&report, 0xEE);
    assert!(crashes >= 2);
    assert_eq!(report.failure_count, crashes, "{:#?}", report.failures);
    let f = &report.failures[0];
    assert!(f.got.contains("crash"), "{}", f.got);
    assert!(f.got.contains("exit status 3"), "{}", f.got);
    assert!(f.got.contains("crashing on purpose"), "{}", f.got);
    // The minimizer re-asks the (restarted) subject: its reproducer still
    // holds the byte it crashes on.
    assert!(f.minimized_hex.last().unwrap().contains("ee"), "{:?}", f.minimized_hex);
    // Everything after each crash was still answered by a new process.
    let steps: u64 = report.categories.iter().map(|c| c.steps).sum();
    assert_eq!(subject_report(&report).compared, steps);
}

#[test]
fn a_subject_that_keeps_crashing_is_declared_broken_and_the_run_goes_on_without_it() {
    let report = Campaign::new(Popcounts)
        .subject(command("crash-long", Role::Kernel))
        .run(&RunOptions {
            cases: 40,
            ..RunOptions::default()
        });
    // The plain category's inputs over 3 bytes, regenerated: exactly those
    // crash the subject (the markers' steps are 2 and 3 bytes).
    let plain = &Popcounts.categories()[1];
    let long: Vec<bool> = (0..report.categories[1].calls)
        .map(|i| {
            plain.generate(i, &mut case_rng(0, "popcounts", "plain", i))[0].steps[0]
                .0
                .len()
                > 3
        })
        .collect();
    let longest_run = long.split(|l| !l).map(<[bool]>::len).max().unwrap_or(0);
    assert!(longest_run >= 5, "the seed gives a run of crashes: {longest_run}");
    let crashing = long.iter().filter(|l| **l).count() as u64;
    let found = report.failures.len() as u64;
    assert!(
        (u64::from(BROKEN_AFTER)..crashing).contains(&found),
        "{found} of {crashing} crashing inputs reported"
    );
    assert!(
        report
            .failures
            .iter()
            .all(|f| f.got.contains("exit status 4") && f.category == "plain"),
        "{:#?}",
        report.failures
    );
    let broken = report
        .problems
        .iter()
        .find_map(|p| match p {
            Problem::SubjectBroken {
                implementation,
                not_asked,
                last_failure,
            } => Some((implementation.clone(), *not_asked, last_failure.clone())),
            _ => None,
        })
        .expect("a SubjectBroken problem");
    assert_eq!(broken.0, "pc");
    assert!(broken.1 > 0, "inputs after the break are not asked");
    assert!(broken.2.contains("exit status 4"), "{}", broken.2);
    assert!(!passed(std::slice::from_ref(&report)));
    let text = summary(std::slice::from_ref(&report));
    assert!(text.contains("declared broken"), "{text}");
}

#[test]
fn a_crash_that_exits_after_closing_its_output_still_reports_its_status() {
    // `exec`: the subject is the only holder of its stdout, so crossdec
    // sees the output end 0.1 s before the process exits.
    let mut subject = command("crash-slowly", Role::Kernel);
    subject.command = format!("exec {}", subject.command);
    let report = Campaign::new(Popcounts).subject(subject).run(&RunOptions {
        cases: 12,
        ..RunOptions::default()
    });
    assert_eq!(report.failure_count, marker_cases(&report, 0xEE));
    assert!(
        report.failures[0].got.contains("exit status 3"),
        "{}",
        report.failures[0].got
    );
}

#[test]
fn one_worker_keeps_one_process_for_the_whole_run() {
    let starts = std::env::temp_dir().join(format!("crossdec-subject-starts-{}", std::process::id()));
    let _ = std::fs::remove_file(&starts);
    // 100 calls a category: several batches of generator calls, each an
    // exchange with the subject.
    drop(run_logged(logged("good", &starts), 100));
    let started = std::fs::read_to_string(&starts)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("started"))
        .count();
    std::fs::remove_file(&starts).ok();
    assert_eq!(started, 1, "one process answers every batch");
}

#[test]
fn a_batch_of_generator_calls_reaches_the_subject_at_once() {
    let log = std::env::temp_dir().join(format!("crossdec-subject-batches-{}", std::process::id()));
    let _ = std::fs::remove_file(&log);
    // 100 calls a category: 200 two-step markers inputs and 100 plain ones.
    // Asked a case at a time, only a markers case's second step would be
    // waiting when its first is answered (100); in batches of calls, all but
    // each batch's last input are (about 290).
    drop(run_logged(logged("good", &log), 100));
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).ok();
    let waiting: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("waiting "))
        .expect("the subject logs how many requests were waiting")
        .parse()
        .unwrap();
    assert!(
        waiting > 150,
        "{waiting} of 300 requests were sent before the previous answer"
    );
}

/// The subject in `mode`, logging its starts and ends to `log`.
fn logged(mode: &str, log: &std::path::Path) -> SubjectCommand {
    let mut subject = command(mode, Role::Kernel);
    subject.command = format!("{} {}", subject.command, log.display());
    subject
}

/// A campaign of `subject` (one that logs to a file), run on one worker
/// with `cases` calls a category.
fn run_logged(subject: SubjectCommand, cases: u64) -> Campaign<Popcounts> {
    let campaign = Campaign::new(Popcounts).subject(subject);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let report = pool.install(|| {
        campaign.run(&RunOptions {
            cases,
            ..RunOptions::default()
        })
    });
    assert_eq!(report.failure_count, 0);
    campaign
}

#[test]
fn dropping_a_campaign_lets_its_subjects_end_cleanly_and_promptly() {
    let log = std::env::temp_dir().join(format!("crossdec-subject-end-{}", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let campaign = run_logged(logged("good", &log), 4);
    let started = Instant::now();
    drop(campaign);
    let took = started.elapsed();
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).ok();
    // Its stdin closed, the subject finished its 0.3 s of work and exited:
    // neither killed before it could, nor waited on for the whole grace.
    assert!(text.ends_with("exited\n"), "{text}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[test]
fn a_subject_that_does_not_exit_is_killed_after_the_grace_period() {
    the_lingering_subject_is_killed("direct", |command| command);
}

#[test]
fn a_wrapper_scripts_children_are_killed_with_it() {
    // With a command after it, the shell stays Python's parent instead of
    // becoming it: killing the shell alone would leave Python running.
    the_lingering_subject_is_killed("wrapped", |command| format!("{command}; exit $?"));
}

/// Starts the "linger" subject (`wrap` shapes its command line; `name`
/// names its log), drops its campaign and checks that the subject's Python
/// process is gone within the grace period.
fn the_lingering_subject_is_killed(name: &str, wrap: impl Fn(String) -> String) {
    let log = std::env::temp_dir().join(format!("crossdec-subject-linger-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let mut subject = logged("linger", &log);
    subject.command = wrap(subject.command);
    let campaign = run_logged(subject, 4);
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).ok();
    let pid = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("started "))
        .expect("a start line")
        .to_string();
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    let started = Instant::now();
    drop(campaign);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // Killed: gone, or a zombie until whoever inherited it reaps it.
    let alive = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    while alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(), "subject {pid} outlived its campaign");
}

#[test]
fn a_hang_times_out_and_the_run_goes_on() {
    let started = Instant::now();
    let report = run("hang");
    let hangs = marker_cases(&report, 0xDD);
    assert_eq!(report.failure_count, hangs);
    assert!(report.failures[0].got.contains("hang"), "{}", report.failures[0].got);
    // Each hang costs one timeout (the minimizer re-asks once per shrink
    // step); far below the subject's 60 s sleep.
    assert!(started.elapsed() < Duration::from_secs(50), "{:?}", started.elapsed());
}

#[test]
fn garbage_is_a_failure_of_its_input() {
    let report = run("garbage");
    assert_eq!(report.failure_count, marker_cases(&report, 0xCC));
    assert!(
        report.failures[0].got.contains("unknown status 9"),
        "{}",
        report.failures[0].got
    );

    let report = run("short-body");
    assert_eq!(report.failure_count, marker_cases(&report, 0xCC));
    // The body is quoted: a count of 4 for the 3 popcounts of 03 cc 04.
    assert!(
        report.failures[0]
            .got
            .contains("not one canonical output of popcounts (11 bytes: 0400000000000000020401)"),
        "{}",
        report.failures[0].got
    );
    // The same through `check`, which asks the subject one case at a time.
    let mut campaign = Campaign::new(Popcounts);
    Family::add_subject(&mut campaign, command("short-body", Role::Kernel));
    let lines = Family::check_bytes(&campaign, &[3, 0xCC, 4], false).unwrap();
    assert!(
        lines[0].contains("canonical output of popcounts (11 bytes"),
        "{lines:?}"
    );
}

#[test]
fn broken_frames_are_failures_of_their_input() {
    for (mode, says) in [
        ("empty-frame", "garbage: a response of 0 bytes"),
        ("huge-frame", "garbage: a response of 4294967295 bytes"),
        ("short-frame", "crash: output ended 5 bytes into a 100-byte response"),
        ("cut-length", "garbage: output ended 2 bytes into a length"),
    ] {
        let report = run(mode);
        assert_eq!(report.failure_count, marker_cases(&report, 0xCC), "{mode}");
        assert!(
            report.failures[0].got.contains(says),
            "{mode}: {}",
            report.failures[0].got
        );
    }
}

#[test]
fn responses_up_to_the_limit_are_read_and_longer_ones_refused() {
    // In the markers category the first step's answer is 11 bytes (status,
    // count, 2 popcounts) and the second's 12.
    let with_limit = |max| {
        let mut subject = command("good", Role::Kernel);
        subject.max_response = max;
        Campaign::new(Popcounts).subject(subject).run(&RunOptions {
            cases: 12,
            categories: vec!["markers".into()],
            ..RunOptions::default()
        })
    };
    assert_eq!(with_limit(12).failure_count, 0);
    let refused = with_limit(11);
    assert_eq!(refused.failure_count, 12);
    assert!(refused.failures[0]
        .got
        .contains("a response of 12 bytes (a response is 1 to 11 bytes)"));
}

#[test]
fn unsupported_inputs_are_counted_not_compared() {
    let report = run("unsupported");
    assert_eq!(report.failure_count, 0);
    let pc = subject_report(&report);
    assert!(pc.unsupported > 0);
    let steps: u64 = report.categories.iter().map(|c| c.steps).sum();
    assert_eq!(pc.compared + pc.unsupported, steps);
    assert!(crossdec_engine::report::summary(std::slice::from_ref(&report))
        .contains(&format!("(unsupported: {})", pc.unsupported)));
}

fn own_words_on_bb(input: &Payload, _: &Outcome<Popcounts>, got: &Outcome<Popcounts>) -> bool {
    input.0.contains(&0xBB) && matches!(got, Err(PcError::Subject { message }) if message.starts_with("ValueError"))
}

#[test]
fn own_words_become_the_spec_error_a_kernel_fails_and_a_peer_rule_can_explain() {
    let report = run("own-words");
    let expected = marker_cases(&report, 0xBB);
    assert_eq!(report.failure_count, expected);
    assert!(
        report.failures[0].got.contains("ValueError: 0xbb"),
        "{}",
        report.failures[0].got
    );

    let rule = AllowedDifference {
        id: "pc-rejects-bb",
        implementation: "pc",
        reason: "the test subject rejects 0xBB in its own words",
        applies: own_words_on_bb,
        bounds: &[("markers", 0.25)],
    };
    let report = run_with("own-words", Role::Peer, Campaign::new(Popcounts).allow(rule));
    assert_eq!(report.failure_count, 0, "{:#?}", report.failures);
    assert_eq!(subject_report(&report).tolerated["pc-rejects-bb"], expected);
}

#[test]
fn a_subject_that_never_answers_is_one_setup_problem_and_fails_fast() {
    let started = Instant::now();
    let report = run("broken");
    // One problem stands for it, not a failure per input.
    assert!(report.failures.is_empty(), "{:#?}", report.failures);
    assert!(
        matches!(
            report.problems.as_slice(),
            [Problem::SubjectNeverAnswered { implementation, .. }] if implementation == "pc"
        ),
        "{:#?}",
        report.problems
    );
    assert!(!passed(std::slice::from_ref(&report)));
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
}

#[test]
fn a_missing_command_is_reported_not_hung() {
    let mut campaign = Campaign::new(Popcounts);
    Family::add_subject(
        &mut campaign,
        SubjectCommand::new("pc", "/nonexistent/subject-binary", Role::Kernel),
    );
    let lines = Family::check_bytes(&campaign, &[1, 2, 3], false).expect("an input of the family");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("SUBJECT FAILED"), "{lines:?}");
    assert!(lines[0].contains("exit status 127"), "{lines:?}");
}

#[test]
fn the_reference_outcome_is_a_status_byte_and_body() {
    let campaign = Campaign::new(Popcounts);
    // Ok: status 0, then the output (a count and the popcounts).
    assert_eq!(
        Family::reference_outcome(&campaign, &[0xFF, 1]),
        Some(vec![0, 2, 0, 0, 0, 0, 0, 0, 0, 8, 1])
    );
}

#[test]
fn check_asks_the_subject_too() {
    let mut campaign = Campaign::new(Popcounts);
    Family::add_subject(&mut campaign, command("wrong", Role::Kernel));
    assert_eq!(Family::check_bytes(&campaign, &[1, 2], false), Some(vec![]));
    let lines = Family::check_bytes(&campaign, &[0xFF], false).unwrap();
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("pc: step 0"), "{lines:?}");
}
