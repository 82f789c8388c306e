//! `crossdec run`'s ways of choosing counts (a time budget, another run's
//! manifest replayed, the depth a change gets), its JUnit report and
//! `crossdec junit`, run in-process so they run on every target the tests
//! run on. Nothing here measures speed: a budget test checks that counts
//! were chosen and recorded, and that a replay reproduces them exactly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crossdec_harness::budget::FLOOR_CALLS;
use crossdec_harness::cli::junit::{junit, JunitArgs};
use crossdec_harness::cli::run::{read_manifest, run, RunArgs};
use crossdec_harness::engine::report::{self, Failure, Manifest, RunReport};
use crossdec_harness::engine::{gate, BufferFault, FamilyReport};
use crossdec_harness::families;

/// A fresh scratch folder per test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crossdec-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn args(family: &str, out: &Path) -> RunArgs {
    RunArgs {
        family: vec![family.into()],
        no_progress: true,
        out: out.to_path_buf(),
        ..RunArgs::defaults()
    }
}

fn manifest(dir: &Path) -> Manifest {
    read_manifest(&dir.join("manifest.json")).unwrap()
}

#[test]
fn a_budget_the_calibration_uses_up_leaves_every_category_its_floor() {
    let dir = scratch("floor");
    let spent = RunArgs {
        time: Some("0.000001s".into()),
        ..args("tsfile-plain", &dir)
    };
    assert_eq!(run(&spent), Ok(true));
    let calls = &manifest(&dir).families[0].calls_per_category;
    assert!(!calls.is_empty());
    assert!(calls.values().all(|&c| c == FLOOR_CALLS), "{calls:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_time_budget_records_its_calls_and_like_replays_them_exactly() {
    let dir = scratch("budget");
    let budget = RunArgs {
        time: Some("1s".into()),
        seed: 5,
        ..args("tsfile-plain", &dir.join("native"))
    };
    assert_eq!(run(&budget), Ok(true));
    let native = manifest(&dir.join("native"));
    let family = &native.families[0];
    let categories: Vec<&str> = family.calls_per_category.keys().map(String::as_str).collect();
    let mut expected = families::by_name("tsfile-plain").unwrap().category_names();
    expected.sort();
    assert_eq!(categories, expected, "every category has its calls recorded");
    assert!(
        family.calls_per_category.values().all(|&calls| calls >= FLOOR_CALLS),
        "{:?}",
        family.calls_per_category
    );
    assert!(family.cases_per_category.values().all(|&cases| cases > 0));
    // The calls are the budget's, not `--cases` scaled: a report's calls
    // per category are what the manifest says.
    let report: RunReport =
        serde_json::from_str(&std::fs::read_to_string(dir.join("native/report.json")).unwrap()).unwrap();
    let reached: BTreeMap<String, u64> = report.families[0]
        .categories
        .iter()
        .map(|c| (c.name.clone(), c.calls))
        .collect();
    assert_eq!(reached, family.calls_per_category);

    // The replay is told nothing but the manifest: seed and calls come from it.
    let replay = RunArgs {
        like: Some(dir.join("native/manifest.json")),
        family: Vec::new(),
        ..args("unused", &dir.join("cross"))
    };
    assert_eq!(run(&replay), Ok(true));
    let cross = manifest(&dir.join("cross"));
    assert_eq!(cross.seed, 5);
    assert_eq!(cross.families[0].calls_per_category, family.calls_per_category);
    assert_eq!(cross.families[0].cases_per_category, family.cases_per_category);
    assert_eq!(cross.families[0].digest, family.digest);
    assert_eq!(gate::compare(&native, &cross, report::endian()), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn like_replays_every_family_of_the_manifest_with_its_own_calls() {
    let dir = scratch("like-two");
    let two = RunArgs {
        family: vec!["tsfile-plain".into(), "tsfile-gorilla".into()],
        cases: 3,
        ..args("unused", &dir.join("native"))
    };
    assert_eq!(run(&two), Ok(true));
    let mut native = manifest(&dir.join("native"));
    // Calls unlike any `--cases` would give: only an exact replay matches.
    native.families[0].calls_per_category.values_mut().for_each(|c| *c += 1);
    let edited = dir.join("edited.json");
    std::fs::write(&edited, serde_json::to_string(&native).unwrap()).unwrap();
    let replay = RunArgs {
        like: Some(edited),
        family: Vec::new(),
        ..args("unused", &dir.join("cross"))
    };
    assert_eq!(run(&replay), Ok(true));
    let cross = manifest(&dir.join("cross"));
    let names = |m: &Manifest| m.families.iter().map(|f| f.family.clone()).collect::<Vec<_>>();
    assert_eq!(names(&cross), ["tsfile-plain", "tsfile-gorilla"]);
    for (n, c) in native.families.iter().zip(&cross.families) {
        assert_eq!(n.calls_per_category, c.calls_per_category, "{}", n.family);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn changed_families_go_deep_and_the_others_smoke() {
    // Through the registry's sources: a TS_2DIFF kernel file changes that
    // family alone.
    let registry = families::registry();
    let sources: Vec<(&str, &[&str])> = registry.iter().map(|r| (r.family.name(), r.sources)).collect();
    let changes = crossdec_harness::changes::Changes::classify(
        &["kernels/src/tsfile/ts2diff/avx2.rs".to_string()],
        families::SHARED_SOURCES,
        &sources,
    );
    let changed: Vec<&str> = sources
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| changes.touches(name))
        .collect();
    assert_eq!(changed, ["tsfile-ts2diff"]);
    assert_eq!(
        changes.explain(),
        ["tsfile-ts2diff changed (kernels/src/tsfile/ts2diff/avx2.rs)"]
    );
    // The engine, the kernels' lib.rs and the command change every family.
    for shared in ["harness/engine/src/run.rs", "kernels/src/lib.rs", "harness/src/main.rs"] {
        let changes =
            crossdec_harness::changes::Changes::classify(&[shared.to_string()], families::SHARED_SOURCES, &sources);
        assert!(sources.iter().all(|(name, _)| changes.touches(name)), "{shared}");
    }
}

/// A git repository holding `files`, committed, then `changed` rewritten.
fn repository(name: &str, files: &[&str], changed: &[&str]) -> PathBuf {
    let dir = scratch(name);
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {args:?}: {output:?}");
    };
    for file in files {
        std::fs::create_dir_all(dir.join(file).parent().unwrap()).unwrap();
        std::fs::write(dir.join(file), "before").unwrap();
    }
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "base"]);
    for file in changed {
        std::fs::write(dir.join(file), "after").unwrap();
    }
    dir
}

fn scaled_calls(family: &str, cases: u64) -> BTreeMap<String, u64> {
    families::by_name(family)
        .unwrap()
        .category_scales()
        .into_iter()
        .map(|(name, scale)| (name.to_string(), ((cases as f64) * scale).ceil().max(1.0) as u64))
        .collect()
}

#[test]
fn changed_since_runs_changed_families_deep_and_the_others_smoke() {
    let files = ["kernels/src/tsfile/plain.rs", "kernels/src/lib.rs", "README.md"];
    for (changed, deep_plain, deep_gorilla) in [
        ("kernels/src/tsfile/plain.rs", true, false),
        ("kernels/src/lib.rs", true, true),
        ("README.md", false, false),
    ] {
        let repo = repository("changed", &files, &[changed]);
        // Not `large` (a million values a page): this test is about counts.
        let categories = ["constant", "edges"];
        let depth = RunArgs {
            family: vec!["tsfile-plain".into(), "tsfile-gorilla".into()],
            category: categories.map(String::from).to_vec(),
            cases: 20,
            changed_since: Some("HEAD".into()),
            repository: repo.clone(),
            ..args("unused", &repo.join("out"))
        };
        assert_eq!(run(&depth), Ok(true));
        let m = manifest(&repo.join("out"));
        let cases = |deep| if deep { 20 * 8 } else { 20 / 10 };
        let expected = |family, deep| {
            let mut calls = scaled_calls(family, cases(deep));
            calls.retain(|name, _| categories.contains(&name.as_str()));
            assert_eq!(calls.len(), categories.len(), "{family} has both categories");
            calls
        };
        assert_eq!(
            m.families[0].calls_per_category,
            expected("tsfile-plain", deep_plain),
            "{changed}"
        );
        assert_eq!(
            m.families[1].calls_per_category,
            expected("tsfile-gorilla", deep_gorilla),
            "{changed}"
        );
        std::fs::remove_dir_all(&repo).unwrap();
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let dir = scratch("bad");
    let out = dir.join("out");
    let base = args("tsfile-plain", &out);
    let error = |a: RunArgs| run(&a).unwrap_err();
    assert!(error(RunArgs {
        time: Some("soon".into()),
        ..base.clone()
    })
    .starts_with("--time \"soon\": "));
    assert!(error(RunArgs {
        time: Some("0s".into()),
        ..base.clone()
    })
    .contains("not a positive duration"));
    assert!(error(RunArgs {
        family: vec!["no-such".into()],
        ..base.clone()
    })
    .starts_with("no family no-such; known: qwp-ts, "));
    assert!(error(RunArgs {
        changed_since: Some("no-such-revision-anywhere".into()),
        ..base.clone()
    })
    .starts_with("--changed-since no-such-revision-anywhere: "));

    let like = |path: PathBuf| RunArgs {
        like: Some(path),
        family: Vec::new(),
        ..base.clone()
    };
    let missing = dir.join("missing.json");
    assert!(error(like(missing.clone())).starts_with(&format!("{}: ", missing.display())));
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, "{\"not\": \"a manifest\"}").unwrap();
    assert!(error(like(garbage)).contains("not a crossdec manifest"));

    assert_eq!(
        run(&RunArgs {
            cases: 1,
            ..base.clone()
        }),
        Ok(true)
    );
    let mut other = manifest(&out);
    other.families[0].family = "someone-elses".into();
    let elsewhere = dir.join("elsewhere.json");
    std::fs::write(&elsewhere, serde_json::to_string(&other).unwrap()).unwrap();
    assert!(error(like(elsewhere)).contains("the manifest's family someone-elses is not one of this crossdec's"));
    let mut other = manifest(&out);
    other.families[0]
        .cases_per_category
        .insert("no-such-category".into(), 1);
    let categories = dir.join("categories.json");
    std::fs::write(&categories, serde_json::to_string(&other).unwrap()).unwrap();
    assert!(error(like(categories)).contains("has no category no-such-category here"));
    let mut empty = manifest(&out);
    empty.families.clear();
    let none = dir.join("none.json");
    std::fs::write(&none, serde_json::to_string(&empty).unwrap()).unwrap();
    assert!(error(like(none)).contains("lists no families"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small XML reader: enough to prove a document is well-formed (tags
/// nest and close, attributes are quoted, every `&` starts a known entity,
/// no raw `<` in text or attributes) and to read it back.
#[derive(Debug)]
struct Element {
    name: String,
    attributes: BTreeMap<String, String>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> &str {
        self.attributes.get(name).map_or("", String::as_str)
    }
    fn all<'a>(&'a self, name: &str, out: &mut Vec<&'a Element>) {
        if self.name == name {
            out.push(self);
        }
        for c in &self.children {
            c.all(name, out);
        }
    }
    fn find(&self, name: &str) -> Vec<&Element> {
        let mut out = Vec::new();
        self.all(name, &mut out);
        out
    }
}

fn unescape(raw: &str) -> Result<String, String> {
    if raw.contains('<') {
        return Err(format!("raw < in {raw:?}"));
    }
    let mut out = String::new();
    let mut rest = raw;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let end = rest[at..].find(';').ok_or(format!("unterminated entity in {raw:?}"))? + at;
        let c = match &rest[at + 1..end] {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            n if n.starts_with('#') => char::from_u32(n[1..].parse().map_err(|_| format!("bad entity {n}"))?)
                .ok_or(format!("bad entity {n}"))?,
            n => return Err(format!("unknown entity &{n};")),
        };
        out.push(c);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn parse_xml(doc: &str) -> Result<Element, String> {
    let body = doc
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .ok_or("no XML declaration")?;
    if let Some(bad) = body
        .chars()
        .find(|c| (*c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(format!("control character {bad:?}"));
    }
    let mut stack: Vec<Element> = vec![Element {
        name: String::new(),
        attributes: BTreeMap::new(),
        children: Vec::new(),
        text: String::new(),
    }];
    let mut rest = body;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            stack.last_mut().unwrap().text.push_str(&unescape(rest)?);
            break;
        };
        stack.last_mut().unwrap().text.push_str(&unescape(&rest[..open])?);
        let close = rest[open..].find('>').ok_or("unclosed tag")? + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let done = stack.pop().ok_or("too many closing tags")?;
            if done.name != name {
                return Err(format!("</{name}> closes <{}>", done.name));
            }
            stack.last_mut().ok_or("closed the root")?.children.push(done);
            continue;
        }
        let (tag, empty) = match tag.strip_suffix('/') {
            Some(t) => (t, true),
            None => (tag, false),
        };
        let (name, mut attrs) = tag.split_once(' ').unwrap_or((tag, ""));
        let mut element = Element {
            name: name.to_string(),
            attributes: BTreeMap::new(),
            children: Vec::new(),
            text: String::new(),
        };
        loop {
            attrs = attrs.trim_start();
            if attrs.is_empty() {
                break;
            }
            let (key, value) = attrs
                .split_once("=\"")
                .ok_or(format!("unquoted attribute in <{tag}>"))?;
            let end = value.find('"').ok_or(format!("unterminated attribute in <{tag}>"))?;
            if element
                .attributes
                .insert(key.to_string(), unescape(&value[..end])?)
                .is_some()
            {
                return Err(format!("attribute {key} twice in <{name}>"));
            }
            attrs = &value[end + 1..];
        }
        if empty {
            stack.last_mut().unwrap().children.push(element);
        } else {
            stack.push(element);
        }
    }
    let mut root = stack.pop().ok_or("no root")?;
    if !stack.is_empty() || root.children.len() != 1 {
        return Err(format!("unclosed elements or {} roots", root.children.len()));
    }
    Ok(root.children.remove(0))
}

#[test]
fn the_xml_reader_refuses_what_is_not_well_formed() {
    let declared = |body: &str| format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{body}");
    assert!(parse_xml(&declared("<a x=\"1 &amp; 2\"><b/>t&lt;</a>")).is_ok());
    for bad in [
        "<a><b></a>",
        "<a x=1/>",
        "<a x=\"<\"/>",
        "<a>&</a>",
        "<a>&nbsp;</a>",
        "<a/><b/>",
        "<a>\u{1}</a>",
    ] {
        assert!(parse_xml(&declared(bad)).is_err(), "{bad}");
    }
}

fn failing_report() -> FamilyReport {
    let mut report =
        crossdec_harness::families::by_name("tsfile-plain")
            .unwrap()
            .run(&crossdec_harness::engine::RunOptions {
                cases: 1,
                seed: 3,
                ..Default::default()
            });
    let category = report.categories[0].name.clone();
    report.categories[0].failures = 3;
    report.failure_count = 3;
    let failure = Failure {
        family: report.family.clone(),
        category: category.clone(),
        seed: 3,
        index: 7,
        sub_index: 0,
        implementation: "plain/portable".into(),
        step: 0,
        expected: "Ok(Values([1, 2]) & \"more\" <x>)".into(),
        got: "Err(Bytes { at: 3 })\u{1}".into(),
        buffer_faults: vec![BufferFault::NotFinished {
            buffer: "values".into(),
        }],
        input_hex: vec!["0102".into()],
        minimized_hex: vec!["01ff".into()],
        minimized_expected: "Ok(1)".into(),
        minimized_got: "Ok(2)".into(),
        minimized: true,
        reproducer_bytes: 2,
        symptom: "value differs".into(),
        difference: "first difference at [1]: expected 1, got 2".into(),
        subject: None,
        role: crossdec_harness::engine::Role::Kernel,
        replay_command: Some("crossdec check --family tsfile-plain --impl plain/portable --hex 01ff".into()),
        replay_rust: "campaign.replay_hex(\"plain/portable\", &[\"01ff\"])".into(),
    };
    let two_steps = Failure {
        minimized_hex: vec!["aa".into(), "bb".into()],
        index: 8,
        minimized: false,
        replay_command: Some("crossdec check --family tsfile-plain --impl plain/portable --hex aa --hex bb".into()),
        ..failure.clone()
    };
    report.failures = vec![failure, two_steps];
    // One implementation this host could not run, whatever the host.
    report.implementations[0].available = false;
    report.implementations[0].ran = false;
    report.implementations[0].compared = 0;
    report
}

#[test]
fn junit_has_a_case_per_category_failures_with_reproducers_and_skipped_implementations() {
    let report = failing_report();
    let xml = crossdec_harness::junit::document(
        "crossdec",
        &crossdec_harness::junit::campaign_suites("", std::slice::from_ref(&report)),
    );
    let root = parse_xml(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_eq!(root.name, "testsuites");
    let suites = root.find("testsuite");
    assert_eq!(suites.len(), 1);
    assert_eq!(suites[0].attr("name"), "tsfile-plain");
    let cases = root.find("testcase");
    let categories: Vec<&str> = cases
        .iter()
        .filter_map(|c| c.attr("name").strip_prefix("category "))
        .collect();
    let expected: Vec<String> = report.categories.iter().map(|c| c.name.clone()).collect();
    assert_eq!(categories, expected);
    assert!(cases
        .iter()
        .all(|c| c.attr("classname") == "tsfile-plain" && !c.attr("time").is_empty()));
    let first = cases[0];
    let property = |case: &Element, name: &str| -> String {
        case.find("property")
            .iter()
            .find(|p| p.attr("name") == name)
            .map(|p| p.attr("value").to_string())
            .unwrap_or_default()
    };
    assert_eq!(property(first, "cases"), report.categories[0].cases.to_string());
    assert_eq!(property(first, "calls"), report.categories[0].calls.to_string());

    let failures = root.find("failure");
    assert_eq!(failures.len(), 1, "only the failing category fails");
    assert_eq!(
        failures[0].attr("message"),
        format!("3 disagreement(s) with the reference in tsfile-plain / {}", expected[0])
    );
    let text = &failures[0].text;
    assert!(
        text.contains("  expected: Ok(Values([1, 2]) & \"more\" <x>)\n"),
        "{text}"
    );
    assert!(text.contains("  got:      Err(Bytes { at: 3 })\u{FFFD}\n"), "{text}");
    assert!(text.contains("  buffer:   values: taken but never checked\n"), "{text}");
    assert!(
        text.contains("  first difference at [1]: expected 1, got 2\n"),
        "{text}"
    );
    assert!(text.contains("  reproducer (2 byte(s)): 01ff\n"), "{text}");
    assert!(
        text.contains("  replay: crossdec check --family tsfile-plain --impl plain/portable --hex 01ff\n"),
        "{text}"
    );
    assert!(
        text.contains("  replay: crossdec check --family tsfile-plain --impl plain/portable --hex aa --hex bb\n"),
        "{text}"
    );
    assert_eq!(root.attr("failures"), "1");
    assert_eq!(suites[0].attr("failures"), "1");

    // Implementations that ran no case are there, skipped, with the reason.
    let skipped: Vec<String> = report
        .implementations
        .iter()
        .filter(|i| !i.ran)
        .map(|i| format!("implementation {}", i.name))
        .collect();
    let listed: Vec<&str> = cases
        .iter()
        .filter(|c| !c.find("skipped").is_empty())
        .map(|c| c.attr("name"))
        .collect();
    assert!(!skipped.is_empty());
    assert_eq!(listed, skipped);
    assert_eq!(root.attr("tests"), cases.len().to_string());
    assert_eq!(root.attr("skipped"), skipped.len().to_string());
}

#[test]
fn run_writes_junit_and_the_gate_file_merges_targets_and_stages() {
    let dir = scratch("junit");
    let one = RunArgs {
        cases: 2,
        junit: Some(dir.join("reports/run.xml")),
        ..args("tsfile-gorilla", &dir.join("native"))
    };
    assert_eq!(run(&one), Ok(true));
    let own = parse_xml(&std::fs::read_to_string(dir.join("reports/run.xml")).unwrap()).unwrap();
    assert_eq!(own.find("testsuite")[0].attr("name"), "tsfile-gorilla");
    assert!(own.find("failure").is_empty());

    std::fs::write(
        dir.join("stages.tsv"),
        "lints\tpass\t3.5\nnative tests\tfail\t12\texit code 101 <see log>\n",
    )
    .unwrap();
    let merged = dir.join("junit.xml");
    let merge = JunitArgs {
        out: merged.clone(),
        reports: vec![
            format!("native={}", dir.join("native/report.json").display()),
            format!("s390x={}", dir.join("native/report.json").display()),
        ],
        stages: Some(dir.join("stages.tsv")),
        stages_suite: "ci/test".into(),
    };
    assert_eq!(junit(&merge), Ok(()));
    let root = parse_xml(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    let suites: Vec<&str> = root.find("testsuite").iter().map(|s| s.attr("name")).collect();
    assert_eq!(suites, ["ci/test", "native/tsfile-gorilla", "s390x/tsfile-gorilla"]);
    let stages: Vec<(&str, &str, bool)> = root.find("testsuite")[0]
        .find("testcase")
        .iter()
        .map(|c| (c.attr("name"), c.attr("time"), !c.find("failure").is_empty()))
        .collect();
    assert_eq!(stages, [("lints", "3.500", false), ("native tests", "12.000", true)]);
    assert_eq!(root.find("failure")[0].attr("message"), "exit code 101 <see log>");

    let bad = |a: JunitArgs| junit(&a).unwrap_err();
    for spec in ["no-label", "=only-a-path", "only-a-label="] {
        assert!(bad(JunitArgs {
            reports: vec![spec.into()],
            ..merge.clone()
        })
        .contains("LABEL=PATH"));
    }
    assert!(bad(JunitArgs {
        reports: vec![format!("x={}", dir.join("stages.tsv").display())],
        ..merge.clone()
    })
    .contains("not a crossdec report.json"));
    std::fs::write(dir.join("stages.tsv"), "lints\tmaybe\t1\n").unwrap();
    assert!(bad(merge).contains("is not pass or fail"));
    std::fs::remove_dir_all(&dir).unwrap();
}

mod gate_command {
    //! `crossdec gate` end to end on manifests real runs wrote.

    use super::*;
    use crossdec_harness::cli::gate::{gate, parse_cross, GateArgs, Verdict};

    /// Every family at one generator call per category, filtered as asked.
    fn run_into(dir: &Path, family: Vec<String>, category: Vec<String>, implementations: Vec<String>) -> PathBuf {
        let a = RunArgs {
            family,
            category,
            implementations,
            cases: 1,
            seed: 11,
            ..args("unused", dir)
        };
        assert_eq!(run(&a), Ok(true));
        dir.join("manifest.json")
    }

    fn full(dir: &Path) -> PathBuf {
        run_into(dir, Vec::new(), Vec::new(), Vec::new())
    }

    fn gate_with(native: &Path, cross: &[String], exempt: &[String]) -> Result<Verdict, String> {
        gate(&GateArgs {
            native: native.to_path_buf(),
            cross: cross.to_vec(),
            require_all_kernels: true,
            exempt: exempt.to_vec(),
        })
    }

    fn gate_of(native: &Path, cross: &[String]) -> Verdict {
        gate_with(native, cross, &[]).unwrap()
    }

    /// (family, kernel) of every registered kernel this machine cannot run.
    fn kernels_unavailable_here() -> Vec<(String, String)> {
        families::all()
            .iter()
            .flat_map(|f| {
                f.implementation_list()
                    .into_iter()
                    .filter(|i| i.role == crossdec_harness::engine::Role::Kernel && !i.available)
                    .map(move |i| (f.name().to_string(), i.name))
            })
            .collect()
    }

    fn spec(path: &Path, endian: &str, triple: &str) -> String {
        format!("{}@{endian}@{triple}", path.display())
    }

    #[test]
    fn a_full_run_against_itself_passes_and_says_what_is_exempt() {
        let dir = scratch("gate-full");
        let native = full(&dir.join("native"));
        let verdict = gate_of(&native, &[spec(&native, report::endian(), report::TARGET)]);
        assert_eq!(verdict.problems, Vec::<String>::new());
        let line = format!(
            "{} ({}-endian): {} families, ",
            report::TARGET,
            report::endian(),
            families::all().len()
        );
        assert_eq!(verdict.summary.len(), 2, "{:?}", verdict.summary);
        assert!(
            verdict.summary.iter().all(|l| l.starts_with(&line)),
            "{:?}",
            verdict.summary
        );
        // Every kernel this machine cannot run is a notice with its reason.
        let unavailable: Vec<String> = kernels_unavailable_here()
            .into_iter()
            .map(|(family, kernel)| format!("{family}: kernel {kernel} ran on no target (exempt: no run could"))
            .collect();
        assert_eq!(verdict.notices.len(), unavailable.len(), "{:?}", verdict.notices);
        for kernel in &unavailable {
            assert!(
                verdict.notices.iter().any(|n| n.starts_with(kernel.as_str())),
                "{kernel}: {:?}",
                verdict.notices
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_exemption_is_reported_with_its_reason() {
        let dir = scratch("gate-exempt");
        let native = full(&dir.join("native"));
        // A kernel this machine cannot run (there is one everywhere: the x86
        // and the NEON kernels exclude each other).
        let (family, kernel) = kernels_unavailable_here()
            .into_iter()
            .next()
            .expect("a kernel this machine lacks the features of");
        let exempt = [format!("{family}/{kernel}=no such CPU in this pool")];
        let verdict = gate_with(&native, &[spec(&native, report::endian(), report::TARGET)], &exempt).unwrap();
        assert_eq!(verdict.problems, Vec::<String>::new());
        assert!(
            verdict.notices.contains(&format!(
                "{family}: kernel {kernel} ran on no target (exempt: no such CPU in this pool)"
            )),
            "{:?}",
            verdict.notices
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_named_triple_and_byte_order_must_match() {
        let dir = scratch("gate-triple");
        let native = full(&dir.join("native"));
        let other = if report::endian() == "little" { "big" } else { "little" };
        // A triple that is not this host's, wherever the suite runs.
        let named = if report::TARGET == "powerpc64-unknown-linux-gnu" {
            "riscv64gc-unknown-linux-gnu"
        } else {
            "powerpc64-unknown-linux-gnu"
        };
        let verdict = gate_of(
            &native,
            &[
                spec(&native, report::endian(), named),
                spec(&native, other, report::TARGET),
            ],
        );
        assert_eq!(
            verdict.problems,
            [
                format!("a manifest of {} where one of {named} was named", report::TARGET),
                format!(
                    "{} manifest says {}-endian where {other}-endian was expected",
                    report::TARGET,
                    report::endian()
                ),
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn runs_filtered_the_same_way_do_not_pass() {
        let dir = scratch("gate-filtered");
        let one = run_into(&dir.join("family"), vec!["tsfile-plain".into()], Vec::new(), Vec::new());
        let problems = gate_of(&one, &[spec(&one, report::endian(), report::TARGET)]).problems;
        // Every other family missing, from the native run and from the cross run.
        let others = families::all().len() - 1;
        let missing = |p: &&String| p.contains("has no results for registered family");
        assert_eq!(problems.iter().filter(missing).count(), 2 * others, "{problems:?}");

        let edges = run_into(&dir.join("category"), Vec::new(), vec!["edges".into()], Vec::new());
        let problems = gate_of(&edges, &[spec(&edges, report::endian(), report::TARGET)]).problems;
        assert!(
            problems.contains(&format!(
                "tsfile-plain on {}: registered category constant did not run",
                report::TARGET
            )),
            "{problems:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_kernel_the_target_could_run_must_have_run_there() {
        let dir = scratch("gate-kernels");
        let native = full(&dir.join("native"));
        // The same run, with one kernel struck from what ran, in a family
        // where another kernel still ran (every target has one: qwp-ts's
        // two kernels are portable).
        let cross_dir = dir.join("cross");
        let cross = run_into(&cross_dir, Vec::new(), Vec::new(), Vec::new());
        let mut m = read_manifest(&cross).unwrap();
        let family = m.families.iter_mut().find(|f| f.kernels_ran.len() >= 2).unwrap();
        let struck = family.kernels_ran.pop().unwrap();
        let name = family.family.clone();
        std::fs::write(&cross, serde_json::to_string(&m).unwrap()).unwrap();
        let problems = gate_of(&native, &[spec(&cross, report::endian(), report::TARGET)]).problems;
        assert_eq!(
            problems,
            [format!(
                "{name}: kernel {struck} could run on {} and did not",
                report::TARGET
            )]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_specs_are_refused_and_an_unreadable_manifest_fails() {
        assert!(parse_cross("m.json@little").is_err());
        assert!(parse_cross("m.json@middle@x").is_err());
        assert!(parse_cross("@big@x").is_err());
        assert!(parse_cross("m.json@big@").is_err());
        let ok = parse_cross("a@b/m.json@big@s390x-unknown-linux-gnu").unwrap();
        assert_eq!(
            (ok.path, ok.endian.as_str(), ok.triple.as_str()),
            (PathBuf::from("a@b/m.json"), "big", "s390x-unknown-linux-gnu")
        );
        let missing = Path::new("/nonexistent/manifest.json");
        let cross = [spec(missing, "big", "s390x")];
        let bad_exempt = gate_with(missing, &cross, &["no-slash=reason".into()]);
        assert!(bad_exempt.unwrap_err().contains("--exempt takes FAMILY/KERNEL=REASON"));
        let no_reason = gate_with(missing, &cross, &["pg-bytea/bytea/hex-neon=".into()]);
        assert!(no_reason.is_err());
        let verdict = gate_of(missing, &cross);
        assert_eq!(verdict.problems.len(), 1, "{:?}", verdict.problems);
        assert!(verdict.problems[0].starts_with("/nonexistent/manifest.json"));
    }
}
