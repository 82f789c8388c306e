//! JUnit XML, the report CI systems show in their test view: a test suite
//! per family, a test case per family and category (its cases and time,
//! and for a failing category the failures with their reproducer
//! commands and any allowed difference used beyond its bound), a skipped
//! test case per implementation that had no cases,
//! and optionally a suite of CI stages (`ci/test`'s).

use std::fmt::Write as _;

use crate::report::Failure;
use crate::FamilyReport;

/// One `<testsuite>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// Its name (the family, prefixed by the target in a merged file).
    pub name: String,
    /// Wall time.
    pub seconds: f64,
    /// Its test cases.
    pub cases: Vec<TestCase>,
}

/// One `<testcase>`.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    /// The suite it belongs to, as CI systems group by it.
    pub classname: String,
    /// Its name.
    pub name: String,
    /// Wall time.
    pub seconds: f64,
    /// `<property>`s: name and value.
    pub properties: Vec<(String, String)>,
    /// Passed, failed or skipped.
    pub verdict: Verdict,
}

/// How a test case ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// It passed.
    Passed,
    /// It failed: a one-line message and the details.
    Failed {
        /// One line.
        message: String,
        /// Every detail, reproducers included.
        details: String,
    },
    /// It did not run, and why.
    Skipped(String),
}

/// One suite per family of a run, named `prefix` + family.
pub fn campaign_suites(prefix: &str, reports: &[FamilyReport]) -> Vec<Suite> {
    reports.iter().map(|r| family_suite(prefix, r)).collect()
}

fn family_suite(prefix: &str, report: &FamilyReport) -> Suite {
    let suite = format!("{prefix}{}", report.family);
    let mut cases: Vec<TestCase> = report
        .categories
        .iter()
        .map(|c| {
            let exceeded: Vec<_> = report.bounds_exceeded.iter().filter(|b| b.category == c.name).collect();
            let verdict = if c.failures == 0 && exceeded.is_empty() {
                Verdict::Passed
            } else if c.failures == 0 {
                let lines: Vec<String> = exceeded
                    .iter()
                    .map(|b| {
                        format!(
                            "allowed difference {} explained {} of {}'s {} calls, more than the {} its share of {}% allows",
                            b.rule,
                            b.tolerated,
                            b.implementation,
                            b.compared,
                            b.allowed,
                            100.0 * b.bound
                        )
                    })
                    .collect();
                Verdict::Failed {
                    message: format!("{} / {}: {}", report.family, c.name, lines[0]),
                    details: lines.join("\n"),
                }
            } else {
                let listed: Vec<&Failure> = report.failures.iter().filter(|f| f.category == c.name).collect();
                let mut details = String::new();
                for f in &listed {
                    failure_details(&mut details, f);
                }
                if (listed.len() as u64) < c.failures {
                    let _ = writeln!(
                        details,
                        "{} more found after the failure limit (counted, not kept)",
                        c.failures - listed.len() as u64
                    );
                }
                Verdict::Failed {
                    message: format!(
                        "{} disagreement(s) with the reference in {} / {}",
                        c.failures, report.family, c.name
                    ),
                    details,
                }
            };
            TestCase {
                classname: suite.clone(),
                name: format!("category {}", c.name),
                seconds: c.seconds,
                properties: vec![
                    ("calls".into(), c.calls.to_string()),
                    ("cases".into(), c.cases.to_string()),
                    ("steps".into(), c.steps.to_string()),
                    ("seed".into(), report.seed.to_string()),
                ],
                verdict,
            }
        })
        .collect();
    for i in report.implementations.iter().filter(|i| !i.ran) {
        let why = if !i.available {
            "not available on this host"
        } else {
            "not selected"
        };
        cases.push(TestCase {
            classname: suite.clone(),
            name: format!("implementation {}", i.name),
            seconds: 0.0,
            properties: Vec::new(),
            verdict: Verdict::Skipped(why.into()),
        });
    }
    // A run that compared nothing for something selected is not a pass.
    for (n, p) in report.problems.iter().filter(|p| p.fails()).enumerate() {
        cases.push(TestCase {
            classname: suite.clone(),
            name: format!("problem {}", n + 1),
            seconds: 0.0,
            properties: Vec::new(),
            verdict: Verdict::Failed {
                message: format!("{}: {p}", report.family),
                details: p.to_string(),
            },
        });
    }
    Suite {
        name: suite,
        seconds: report.seconds,
        cases,
    }
}

fn failure_details(out: &mut String, f: &Failure) {
    let _ = writeln!(
        out,
        "{} in {} (seed {}, call {}, case {}, step {})",
        f.implementation, f.category, f.seed, f.index, f.sub_index, f.step
    );
    let _ = writeln!(out, "  expected: {}", f.expected);
    let _ = writeln!(out, "  got:      {}", f.got);
    for fault in &f.buffer_faults {
        let _ = writeln!(out, "  buffer:   {fault}");
    }
    if !f.difference.is_empty() {
        let _ = writeln!(out, "  {}", f.difference.replace('\n', "\n  "));
    }
    let _ = writeln!(
        out,
        "  reproducer ({} byte(s)): {}",
        f.reproducer_bytes,
        f.minimized_hex.join(" ")
    );
    match &f.replay_command {
        Some(command) => {
            let _ = writeln!(out, "  replay: {command}");
        }
        None => {
            let _ = writeln!(
                out,
                "  replay: {}",
                crate::run::rust_replay(&f.implementation, &f.minimized_hex)
            );
        }
    }
    // Empty when the reproducer does not fail on its own (the difference
    // line says so).
    if !f.minimized_expected.is_empty() || !f.minimized_got.is_empty() {
        let _ = writeln!(out, "  minimized expected: {}", f.minimized_expected);
        let _ = writeln!(out, "  minimized got:      {}", f.minimized_got);
    }
}

/// The whole document.
pub fn document(name: &str, suites: &[Suite]) -> String {
    let count = |keep: fn(&Verdict) -> bool| -> usize {
        suites
            .iter()
            .flat_map(|s| &s.cases)
            .filter(|c| keep(&c.verdict))
            .count()
    };
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">",
        escape(name),
        count(|_| true),
        count(|v| matches!(v, Verdict::Failed { .. })),
        count(|v| matches!(v, Verdict::Skipped(_))),
        suites.iter().map(|s| s.seconds).sum::<f64>()
    );
    for s in suites {
        let in_suite = |keep: fn(&Verdict) -> bool| s.cases.iter().filter(|c| keep(&c.verdict)).count();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">",
            escape(&s.name),
            s.cases.len(),
            in_suite(|v| matches!(v, Verdict::Failed { .. })),
            in_suite(|v| matches!(v, Verdict::Skipped(_))),
            s.seconds
        );
        for c in &s.cases {
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                escape(&c.classname),
                escape(&c.name),
                c.seconds
            );
            if c.properties.is_empty() && c.verdict == Verdict::Passed {
                x.push_str("/>\n");
                continue;
            }
            x.push_str(">\n");
            if !c.properties.is_empty() {
                x.push_str("      <properties>\n");
                for (k, v) in &c.properties {
                    let _ = writeln!(x, "        <property name=\"{}\" value=\"{}\"/>", escape(k), escape(v));
                }
                x.push_str("      </properties>\n");
            }
            match &c.verdict {
                Verdict::Passed => {}
                Verdict::Failed { message, details } => {
                    let _ = writeln!(
                        x,
                        "      <failure message=\"{}\" type=\"failure\">{}</failure>",
                        escape(message),
                        escape(details)
                    );
                }
                Verdict::Skipped(why) => {
                    let _ = writeln!(x, "      <skipped message=\"{}\"/>", escape(why));
                }
            }
            x.push_str("    </testcase>\n");
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

/// `text` as XML character data or an attribute value: the five special
/// characters as entities, and characters XML 1.0 cannot hold at all
/// (control characters other than tab, newline and carriage return) as
/// U+FFFD.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A CI stage as `ci/test` records it: one line of `NAME<TAB>pass|fail<TAB>SECONDS[<TAB>MESSAGE]`.
pub fn parse_stage(line: &str) -> Result<TestCase, String> {
    let fields: Vec<&str> = line.split('\t').collect();
    let (name, status, seconds) = match fields.as_slice() {
        [name, status, seconds, ..] => (*name, *status, *seconds),
        _ => return Err(format!("stage line {line:?}: want NAME<TAB>pass|fail<TAB>SECONDS")),
    };
    let seconds: f64 = seconds
        .trim()
        .parse()
        .map_err(|_| format!("stage line {line:?}: {seconds:?} is not seconds"))?;
    let message = fields.get(3).copied().unwrap_or("").to_string();
    let verdict = match status {
        "pass" => Verdict::Passed,
        "fail" => Verdict::Failed {
            message: if message.is_empty() {
                format!("stage {name} failed")
            } else {
                message.clone()
            },
            details: message,
        },
        other => return Err(format!("stage line {line:?}: status {other:?} is not pass or fail")),
    };
    Ok(TestCase {
        classname: "ci/test".into(),
        name: name.to_string(),
        seconds,
        properties: Vec::new(),
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_and_unrepresentable_characters_are_escaped() {
        assert_eq!(
            escape("a<b>&\"c\" 'd'\te\nf\rg\u{0}h\u{1b}i\u{FFFF}é"),
            "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;\te\nf&#13;g\u{FFFD}h\u{FFFD}i\u{FFFD}é"
        );
    }

    #[test]
    fn a_bound_exceeded_fails_its_category() {
        use crate::report::{BoundExceeded, CategoryReport};
        let category = |name: &str| CategoryReport {
            name: name.into(),
            ..Default::default()
        };
        let report = FamilyReport {
            family: "f".into(),
            seed: 1,
            cases_per_category_call: 1,
            categories: vec![category("a"), category("b")],
            implementations: vec![],
            allowed_differences: vec![],
            failures_left_out: 0,
            problems: vec![],
            failures: vec![],
            bounds_exceeded: vec![BoundExceeded {
                rule: "r".into(),
                implementation: "p".into(),
                category: "b".into(),
                tolerated: 5,
                compared: 9,
                bound: 0.0,
                allowed: 0,
            }],
            failure_count: 1,
            digest: String::new(),
            seconds: 0.0,
        };
        let suite = &campaign_suites("", &[report])[0];
        assert_eq!(suite.cases[0].verdict, Verdict::Passed);
        assert_eq!(
            suite.cases[1].verdict,
            Verdict::Failed {
                message:
                    "f / b: allowed difference r explained 5 of p's 9 calls, more than the 0 its share of 0% allows"
                        .into(),
                details: "allowed difference r explained 5 of p's 9 calls, more than the 0 its share of 0% allows"
                    .into(),
            }
        );
    }

    #[test]
    fn stage_lines_become_test_cases() {
        let passed = parse_stage("native tests\tpass\t12.5").unwrap();
        assert_eq!(
            (passed.name.as_str(), passed.seconds, &passed.verdict),
            ("native tests", 12.5, &Verdict::Passed)
        );
        let failed = parse_stage("gate\tfail\t3\texit code 1").unwrap();
        assert_eq!(
            failed.verdict,
            Verdict::Failed {
                message: "exit code 1".into(),
                details: "exit code 1".into()
            }
        );
        assert_eq!(
            parse_stage("gate\tfail\t3").unwrap().verdict,
            Verdict::Failed {
                message: "stage gate failed".into(),
                details: String::new()
            }
        );
        for bad in ["gate", "gate\tpass", "gate\tok\t1", "gate\tpass\tsoon"] {
            assert!(parse_stage(bad).unwrap_err().starts_with("stage line "), "{bad}");
        }
    }

    fn failure(category: &str, implementation: &str, minimized: &[&str]) -> Failure {
        Failure {
            family: "fam".into(),
            category: category.into(),
            seed: 7,
            index: 3,
            sub_index: 1,
            implementation: implementation.into(),
            step: 0,
            expected: "Ok([1])".into(),
            got: "Ok([2])".into(),
            buffer_faults: vec![],
            input_hex: vec!["0102".into()],
            minimized_hex: minimized.iter().map(|h| h.to_string()).collect(),
            minimized_expected: "Ok([])".into(),
            minimized_got: "Err(<x>)".into(),
            minimized: true,
            reproducer_bytes: 1,
            symptom: "Ok[]: value differs".into(),
            difference: String::new(),
            subject: None,
            role: crate::Role::Kernel,
            replay_command: None,
            replay_rust: String::new(),
        }
    }

    fn implementation(name: &str, available: bool, ran: bool, compared: u64) -> crate::report::ImplementationReport {
        crate::report::ImplementationReport {
            name: name.into(),
            role: crate::Role::Kernel,
            available,
            ran,
            compared,
            failures: 0,
            tolerated: Default::default(),
            unsupported: 0,
            not_asked: 0,
            outside_scope: vec![],
            subject: None,
        }
    }

    /// A whole document, pinned: passing, failing (listed and not-minimized
    /// failures, one- and two-step reproducers) and bound-exceeding
    /// categories, implementations skipped for each reason, and a suite of
    /// CI stages.
    #[test]
    fn a_campaign_and_its_stages_as_one_document() {
        use crate::report::{BoundExceeded, CategoryReport};
        let category = |name: &str, failures: u64| CategoryReport {
            name: name.into(),
            calls: 2,
            cases: 4,
            steps: 5,
            failures,
            seconds: 0.25,
            ..Default::default()
        };
        let report = FamilyReport {
            family: "fam".into(),
            seed: 7,
            cases_per_category_call: 1,
            categories: vec![
                category("ok", 0),
                category("bad", 3),
                category("one", 1),
                category("bound", 0),
            ],
            implementations: vec![
                implementation("fam/ran", true, true, 9),
                implementation("fam/absent", false, false, 0),
                implementation("fam/unselected", true, false, 0),
                implementation("fam/idle", true, true, 0),
            ],
            allowed_differences: vec![],
            failures_left_out: 1,
            problems: vec![crate::report::Problem::NothingCompared {
                implementation: "fam/idle".into(),
                category: "ok".into(),
                unsupported: 4,
                not_asked: 0,
            }],
            failures: vec![
                failure("bad", "fam/ran", &["aa"]),
                failure("bad", "fam/ran", &["bb", "cc"]),
                failure("one", "fam/ran", &["dd"]),
            ],
            bounds_exceeded: vec![BoundExceeded {
                rule: "r".into(),
                implementation: "peer".into(),
                category: "bound".into(),
                tolerated: 2,
                compared: 4,
                bound: 0.25,
                allowed: 1,
            }],
            failure_count: 4,
            digest: String::new(),
            seconds: 1.5,
        };
        let mut suites = campaign_suites("x86/", &[report]);
        suites.push(Suite {
            name: "stages".into(),
            seconds: 3.5,
            cases: vec![
                parse_stage("native\tpass\t1.5").unwrap(),
                parse_stage("gate\tfail\t2\texit code 1").unwrap(),
            ],
        });
        let xml = document("run <1>", &suites);
        let category_case = |name: &str, body: &str| {
            format!(
                "    <testcase classname=\"x86/fam\" name=\"category {name}\" time=\"0.250\">\n      <properties>\n        \
                 <property name=\"calls\" value=\"2\"/>\n        <property name=\"cases\" value=\"4\"/>\n        \
                 <property name=\"steps\" value=\"5\"/>\n        <property name=\"seed\" value=\"7\"/>\n      </properties>\n\
                 {body}    </testcase>\n"
            )
        };
        let details = |hexes: &str| {
            format!(
                "fam/ran in bad (seed 7, call 3, case 1, step 0)\n  expected: Ok([1])\n  got:      Ok([2])\n{hexes}  \
                 minimized expected: Ok([])\n  minimized got:      Err(&lt;x&gt;)\n"
            )
        };
        let replay = |hexes: &[&str]| {
            let quoted: Vec<String> = hexes.iter().map(|h| format!("&quot;{h}&quot;")).collect();
            format!(
                "  reproducer (1 byte(s)): {}\n  replay: campaign.replay_hex(&quot;fam/ran&quot;, &amp;[{}])\n",
                hexes.join(" "),
                quoted.join(", ")
            )
        };
        let skipped = |name: &str, why: &str| {
            format!(
                "    <testcase classname=\"x86/fam\" name=\"implementation {name}\" time=\"0.000\">\n      \
                 <skipped message=\"{why}\"/>\n    </testcase>\n"
            )
        };
        let expected = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".to_string(),
            "<testsuites name=\"run &lt;1&gt;\" tests=\"9\" failures=\"5\" errors=\"0\" skipped=\"2\" time=\"5.000\">\n"
                .to_string(),
            "  <testsuite name=\"x86/fam\" tests=\"7\" failures=\"4\" errors=\"0\" skipped=\"2\" time=\"1.500\">\n".to_string(),
            category_case("ok", ""),
            category_case(
                "bad",
                &format!(
                    "      <failure message=\"3 disagreement(s) with the reference in fam / bad\" type=\"failure\">{}{}1 more found after the failure limit (counted, not kept)\n</failure>\n",
                    details(&replay(&["aa"])),
                    details(&replay(&["bb", "cc"])),
                ),
            ),
            category_case(
                "one",
                &format!(
                    "      <failure message=\"1 disagreement(s) with the reference in fam / one\" type=\"failure\">{}</failure>\n",
                    details(&replay(&["dd"])).replace("in bad", "in one"),
                ),
            ),
            category_case(
                "bound",
                "      <failure message=\"fam / bound: allowed difference r explained 2 of peer&apos;s 4 calls, more than the 1 \
                 its share of 25% allows\" type=\"failure\">allowed difference r explained 2 of peer&apos;s 4 calls, more than \
                 the 1 its share of 25% allows</failure>\n",
            ),
            skipped("fam/absent", "not available on this host"),
            skipped("fam/unselected", "not selected"),
            "    <testcase classname=\"x86/fam\" name=\"problem 1\" time=\"0.000\">\n      <failure message=\"fam: \
             fam/idle compared nothing in category ok (it answered &quot;unsupported&quot; to all 4 inputs; declare the \
             category outside its scope if that is intended)\" type=\"failure\">fam/idle compared nothing in category ok \
             (it answered &quot;unsupported&quot; to all 4 inputs; declare the category outside its scope if that is \
             intended)</failure>\n    </testcase>\n"
                .to_string(),
            "  </testsuite>\n".to_string(),
            "  <testsuite name=\"stages\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"3.500\">\n".to_string(),
            "    <testcase classname=\"ci/test\" name=\"native\" time=\"1.500\"/>\n".to_string(),
            "    <testcase classname=\"ci/test\" name=\"gate\" time=\"2.000\">\n      <failure message=\"exit code 1\" \
             type=\"failure\">exit code 1</failure>\n    </testcase>\n"
                .to_string(),
            "  </testsuite>\n</testsuites>\n".to_string(),
        ]
        .concat();
        for (i, (a, b)) in xml.lines().zip(expected.lines()).enumerate() {
            assert_eq!(a, b, "line {i}");
        }
        assert_eq!(xml, expected);
    }
}
