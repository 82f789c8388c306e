//! Every `crossdec` command shown in README.md and docs/ is a command
//! crossdec accepts: the sh code blocks' commands are parsed with the
//! command line's own parser (so an option that was renamed, or hex of odd
//! length, cannot stay in the docs), and the quick ones (`check`, `list`,
//! `fuzz-targets`, without external subjects other than the repository's
//! own Python one) run and must not end in a usage error. A quick `crossdec
//! run` (at most 20 calls per category) shown with its output in the text
//! block after it runs too, and every line shown, `...` aside, must be a
//! line it prints (durations and CPU-dependent comparison counts masked).
//! Synopses with placeholders belong in `text` blocks. Every relative link in them names
//! a file that exists, and a link's `#fragment` into a markdown file (or
//! into the same page) names one of its headings, by GitHub's anchors.
//!
//! Native x86_64 only, like the other command-line tests.
#![cfg(all(target_arch = "x86_64", unix))]

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::Parser;
use crossdec_harness::cli::app::Cli;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![workspace().join("README.md")];
    let mut dirs = vec![workspace().join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The shell lines of a markdown file's sh/bash/console blocks, with
/// backslash continuations joined: (line number, line). In a console block
/// only the `$ ` lines are commands; the rest is their output.
fn shell_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut in_shell = None::<bool>;
    let mut console = false;
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            in_shell = match in_shell {
                None => Some(matches!(info.trim(), "sh" | "bash" | "shell" | "console")),
                Some(_) => None,
            };
            console = info.trim() == "console";
            continue;
        }
        if in_shell != Some(true) {
            continue;
        }
        let content = match (console, pending.is_some()) {
            (true, false) => match trimmed.strip_prefix("$ ") {
                Some(command) => command,
                None => continue,
            },
            _ => trimmed.strip_prefix("$ ").unwrap_or(trimmed),
        };
        let (start, mut joined) = pending.take().unwrap_or((n + 1, String::new()));
        match content.strip_suffix('\\') {
            Some(head) => {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(content);
                lines.push((start, joined));
            }
        }
    }
    lines
}

/// The arguments after the `crossdec` program in each command of a shell
/// line (`crossdec ...`, `target/ci/crossdec ...`, `cargo run ... --bin
/// crossdec ... -- ...`, after environment assignments or `&&`).
fn crossdec_invocations(line: &str) -> Vec<Vec<String>> {
    let Some(words) = shlex::split(line) else {
        return vec![vec!["<unbalanced quotes>".into()]];
    };
    let words: Vec<String> = words.into_iter().take_while(|w| !w.starts_with('#')).collect();
    let mut found = Vec::new();
    for command in words.split(|w| matches!(w.as_str(), "&&" | "||" | ";" | "|")) {
        if command.first().is_some_and(|w| w == "cargo") && command.iter().any(|w| w == "crossdec") {
            if let Some(dash) = command.iter().position(|w| w == "--") {
                found.push(command[dash + 1..].to_vec());
            }
            continue;
        }
        if let Some(at) = command.iter().position(|w| w == "crossdec" || w.ends_with("/crossdec")) {
            // `crossdec` as an argument of another program (a subject's
            // command, say) is not an invocation.
            let program = command.iter().position(|w| !w.contains('=')).unwrap_or(0);
            let wrapped = command[program].starts_with("qemu-");
            if at == program || wrapped {
                found.push(command[at + 1..].to_vec());
            }
        }
    }
    found
}

#[test]
fn every_crossdec_command_in_the_docs_parses_and_the_quick_ones_run() {
    let binary = env!("CARGO_BIN_EXE_crossdec");
    let mut seen = 0;
    let mut problems = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(workspace()).unwrap().display().to_string();
        for (line_number, line) in shell_lines(&text) {
            for args in crossdec_invocations(&line) {
                seen += 1;
                if args.is_empty() {
                    // Bare `crossdec` prints its help and exits 2, as
                    // docs/reference/cli.md shows.
                    continue;
                }
                let argv = std::iter::once("crossdec".to_string()).chain(args.iter().cloned());
                if let Err(e) = Cli::try_parse_from(argv) {
                    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                        continue;
                    }
                    problems.push(format!("{name}:{line_number}: {line}\n{}", e.render()));
                    continue;
                }
                let quick = matches!(
                    args.first().map(String::as_str),
                    Some("check" | "list" | "fuzz-targets")
                );
                // A subject is run only when it is the repository's own
                // Python one and a Python is there to run it.
                let subjects: Vec<&String> = args
                    .iter()
                    .filter(|a| a.contains('=') && a.contains("python3"))
                    .collect();
                let external = args.iter().any(|a| a.contains("subject"));
                let runnable_subjects = !subjects.is_empty()
                    && subjects.iter().all(|a| a.contains("python3 subjects/"))
                    && std::process::Command::new("python3").arg("--version").output().is_ok();
                if quick && (!external || runnable_subjects) {
                    let out = std::process::Command::new(binary)
                        .args(&args)
                        .current_dir(workspace())
                        .output()
                        .unwrap();
                    if out.status.code() == Some(2) || out.status.code().is_none() {
                        problems.push(format!(
                            "{name}:{line_number}: {line}\nexit {:?}: {}",
                            out.status.code(),
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(seen >= 15, "only {seen} crossdec commands found in the docs");
}

#[test]
fn the_extractor_finds_invocations_and_only_those() {
    let found = |line: &str| crossdec_invocations(line);
    assert_eq!(found("crossdec list"), [vec!["list".to_string()]]);
    assert_eq!(
        found("CROSSDEC_X=1 target/ci/crossdec run --seed 7  # a comment"),
        [vec!["run".to_string(), "--seed".into(), "7".into()]]
    );
    assert_eq!(
        found("source ci/cross-env && cargo run --release -p crossdec-harness --bin crossdec -- run --family a"),
        [vec!["run".to_string(), "--family".into(), "a".into()]]
    );
    assert_eq!(
        found("crossdec run --subject self='crossdec serve-reference --family qwp-ts'"),
        [vec![
            "run".to_string(),
            "--subject".into(),
            "self=crossdec serve-reference --family qwp-ts".into()
        ]]
    );
    assert!(found("python3 ci/tsfile/bench_official.py --crossdec target/ci/crossdec").is_empty());
    let lines = shell_lines("text\n```sh\ncrossdec a \\\n  b\n```\ncrossdec c\n```text\ncrossdec d\n```\n");
    assert_eq!(lines, [(3, "crossdec a  b".to_string())]);
}

/// A relative link of a markdown text: the file it names (empty for a
/// link into the same page, `[x](#anchor)`) and its `#fragment`, if any.
#[derive(Debug, PartialEq)]
struct Link {
    path: String,
    fragment: Option<String>,
}

/// The relative links of a markdown text (outside code blocks and code
/// spans): `[text](target)`, `[text](target#anchor)` and `[text](#anchor)`.
fn relative_links(text: &str) -> Vec<Link> {
    let mut links = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Code spans are not links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        for (at, _) in prose.match_indices("](") {
            let rest = &prose[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            let external = target.contains("://") || target.starts_with("mailto:");
            if !external && !target.is_empty() && !target.contains(' ') {
                let (path, fragment) = match target.split_once('#') {
                    Some((path, fragment)) => (path, Some(fragment.to_string())),
                    None => (target, None),
                };
                links.push(Link {
                    path: path.to_string(),
                    fragment,
                });
            }
        }
    }
    links
}

/// The anchors GitHub gives a markdown text's headings (ATX headings
/// outside code blocks), in order: the heading's text with inline
/// markdown reduced to what it renders (backticks dropped with their
/// content kept, `[text](target)` as its text), lowercased, every
/// character that is not a letter, a digit, a space, a hyphen or an
/// underscore removed, each space made a hyphen; a slug already taken gets
/// `-1`, `-2`, ... (the first free one).
fn heading_anchors(text: &str) -> Vec<String> {
    let mut anchors: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || line.len() - trimmed.len() > 3 {
            continue;
        }
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) {
            continue;
        }
        let rest = &trimmed[hashes..];
        if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
            continue;
        }
        // A closing sequence of `#`s (after a space) is not part of the text.
        let mut title = rest.trim();
        let unclosed = title.trim_end_matches('#');
        if unclosed.is_empty() || unclosed.ends_with(' ') {
            title = unclosed.trim_end();
        }
        let base = slug(&rendered(title));
        let mut anchor = base.clone();
        let mut n = 0;
        while anchors.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        anchors.push(anchor);
    }
    anchors
}

/// A heading's text as rendered: code spans' backticks and links' syntax
/// dropped, their text kept.
fn rendered(title: &str) -> String {
    let text: String = title.chars().filter(|&c| c != '`').collect();
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|c| open + c) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|e| close + e) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// GitHub's slug of a heading's rendered text.
fn slug(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn every_relative_link_in_the_docs_names_a_file_and_a_heading_that_exist() {
    let mut checked = 0;
    let mut anchors_checked = 0;
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(workspace()).unwrap().display().to_string();
        for link in relative_links(&text) {
            checked += 1;
            let target = if link.path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(&link.path)
            };
            if !target.exists() {
                broken.push(format!("{name}: {} (no such file)", link.path));
                continue;
            }
            let Some(fragment) = &link.fragment else { continue };
            if target.extension().is_none_or(|e| e != "md") {
                continue;
            }
            anchors_checked += 1;
            let anchors = heading_anchors(&std::fs::read_to_string(&target).unwrap());
            if !anchors.iter().any(|a| a == fragment) {
                broken.push(format!(
                    "{name}: {}#{fragment} (no such heading; its headings are: {})",
                    link.path,
                    anchors.join(", ")
                ));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 20, "only {checked} links found");
    assert!(
        anchors_checked >= 5,
        "only {anchors_checked} links with a #fragment found"
    );
}

#[test]
fn the_link_finder_finds_links_and_only_links() {
    let text = "see [a](docs/a.md#x) and [web](https://x.y) and `[no](code.md)`\n```\n[no](block.md)\n```\n\
                [b](../b.md) [here](#local-heading)";
    let link = |path: &str, fragment: Option<&str>| Link {
        path: path.into(),
        fragment: fragment.map(Into::into),
    };
    assert_eq!(
        relative_links(text),
        [
            link("docs/a.md", Some("x")),
            link("../b.md", None),
            link("", Some("local-heading"))
        ]
    );
}

#[test]
fn heading_anchors_follow_githubs_slugs() {
    let text = "# Family `tsfile-aligned`: TsFile aligned chunk scans\n\
                ## Java and C++ readers: what the official reader returns\n\
                ## REGULAR (id 7): INT32, DATE, INT64, TIMESTAMP\n\
                ### `crossdec tsfile FILE --filter TEXT`\n\
                ## Regression check: ci/bench-compare\n\
                ## Tests\n## Tests\n## Tests-1\n## Tests ##\n\
                ## The kernel's plan\n## snake_case and [a link](x.md)\n\
                ```sh\n# not a heading\n```\n#not a heading\n    # indented code\n";
    assert_eq!(
        heading_anchors(text),
        [
            "family-tsfile-aligned-tsfile-aligned-chunk-scans",
            "java-and-c-readers-what-the-official-reader-returns",
            "regular-id-7-int32-date-int64-timestamp",
            "crossdec-tsfile-file---filter-text",
            "regression-check-cibench-compare",
            "tests",
            "tests-1",
            "tests-1-1",
            "tests-2",
            "the-kernels-plan",
            "snake_case-and-a-link",
        ]
    );
}

#[test]
fn the_tutorials_python_subject_is_the_one_in_subjects() {
    let tutorial = std::fs::read_to_string(workspace().join("docs/tutorials/subject-over-the-pipe.md")).unwrap();
    let subject = std::fs::read_to_string(workspace().join("subjects/python-bytea/bytea.py")).unwrap();
    let code = subject
        .split_once("import struct")
        .map(|(_, rest)| format!("import struct{rest}"))
        .unwrap();
    assert!(
        tutorial.contains(&format!("```python\n{code}```")),
        "docs/tutorials/subject-over-the-pipe.md must show subjects/python-bytea/bytea.py from `import struct` on"
    );
}

/// A quick `crossdec run` shown with its output: the sh block's one
/// command and the lines of the text block that shows what it printed
/// (the next fenced block, with no heading between), with their line
/// numbers.
#[derive(Debug, PartialEq)]
struct ShownRun {
    line: usize,
    command: String,
    output: Vec<(usize, String)>,
}

fn shown_runs(text: &str) -> Vec<ShownRun> {
    let mut found = Vec::new();
    // The last sh block's one command, waiting for the block that shows
    // its output.
    let mut waiting: Option<(usize, String)> = None;
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            waiting = None;
            continue;
        }
        let Some(info) = trimmed.strip_prefix("```") else {
            continue;
        };
        let block: Vec<(usize, String)> = lines
            .by_ref()
            .take_while(|(_, l)| !l.trim_start().starts_with("```"))
            .map(|(k, l)| (k + 1, l.to_string()))
            .collect();
        match info.trim() {
            "sh" | "bash" | "shell" => {
                let fenced = format!(
                    "```sh\n{}\n```\n",
                    block.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join("\n")
                );
                let commands = shell_lines(&fenced);
                waiting = match commands.as_slice() {
                    [(_, command)] => Some((n + 2, command.clone())),
                    _ => None,
                };
            }
            "text" => {
                if let Some((line, command)) = waiting.take() {
                    found.push(ShownRun {
                        line,
                        command,
                        output: block,
                    });
                }
            }
            _ => waiting = None,
        }
    }
    found
}

/// A line of `crossdec run`'s output without what differs from run to run
/// or from CPU to CPU: durations (`1.04s`, `12.3 ms`) and the comparison
/// counts of a total (a CPU without AVX-512 runs one kernel fewer).
fn comparable(line: &str) -> String {
    let mut out = Vec::new();
    let mut in_counts = false;
    let words: Vec<&str> = line.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        let bare = word.trim_end_matches([',', ')']);
        let number = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.');
        if in_counts {
            in_counts = !word.ends_with(')') && !word.ends_with("),");
            continue;
        }
        if words.get(i + 1) == Some(&"comparisons") && number(bare) {
            out.push("[n]");
            continue;
        }
        if word.starts_with("(kernels") || word.starts_with("(subjects") {
            in_counts = !word.ends_with(')') && !word.ends_with("),");
            out.push("[counts]");
            continue;
        }
        if bare.strip_suffix('s').is_some_and(number) {
            out.push("[t]");
            continue;
        }
        // `12.3 ms`: the number before the unit is the duration.
        if bare == "ms" && out.last().is_some_and(|w| number(w)) {
            *out.last_mut().expect("a number") = "[t]";
            continue;
        }
        out.push(word);
    }
    out.join(" ")
}

#[test]
fn shown_outputs_of_quick_runs_are_what_the_run_prints() {
    let binary = env!("CARGO_BIN_EXE_crossdec");
    let python = std::process::Command::new("python3").arg("--version").output().is_ok();
    let scratch = std::env::temp_dir().join(format!("crossdec-doc-runs-{}", std::process::id()));
    let mut checked = 0;
    let mut problems = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(workspace()).unwrap().display().to_string();
        for shown in shown_runs(&text) {
            let Some(mut args) = crossdec_invocations(&shown.command).into_iter().next() else {
                continue;
            };
            let cases = args.iter().position(|a| a == "--cases").and_then(|i| args.get(i + 1));
            let quick = args.first().is_some_and(|a| a == "run")
                && cases.and_then(|c| c.parse::<u32>().ok()).is_some_and(|c| c <= 20)
                && !args.iter().any(|a| a == "--like" || a == "--time");
            let subjects_runnable = args
                .iter()
                .filter(|a| a.contains('=') && a.contains(' '))
                .all(|a| python && a.contains("python3 subjects/"));
            if !quick || !subjects_runnable {
                continue;
            }
            // Its reports go to a scratch directory, not into the tree.
            match args.iter().position(|a| a == "--out") {
                Some(i) => args[i + 1] = scratch.display().to_string(),
                None => args.extend(["--out".to_string(), scratch.display().to_string()]),
            }
            args.push("--no-progress".into());
            // The shown outputs are the defaults' (seed 1, say): without
            // the settings CI exports for its own runs (CROSSDEC_SEED, a new
            // seed per run; CROSSDEC_CASES).
            let mut command = std::process::Command::new(binary);
            for (key, _) in std::env::vars_os() {
                if key.to_string_lossy().starts_with("CROSSDEC_") {
                    command.env_remove(&key);
                }
            }
            let out = command.args(&args).current_dir(workspace()).output().unwrap();
            let printed: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(comparable).collect();
            checked += 1;
            for (line, shown_line) in &shown.output {
                let shown_line = shown_line.trim_end();
                if shown_line.trim() == "..." || shown_line.is_empty() {
                    continue;
                }
                if !printed.contains(&comparable(shown_line)) {
                    problems.push(format!(
                        "{name}:{line}: the output shown for `{}` (line {}) is not what it prints:\n  shown:   {shown_line}\n  printed:\n{}",
                        shown.command,
                        shown.line,
                        String::from_utf8_lossy(&out.stdout)
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(checked >= 2, "only {checked} shown runs checked");
}

#[test]
fn shown_runs_pair_a_command_with_the_block_after_it() {
    let text = "```sh\ncrossdec run --cases 20\n```\n\nIts output:\n\n```text\n== a ==\n...\n```\n\
                ```sh\ncrossdec list\ncrossdec run\n```\n```text\nx\n```\n\
                ```sh\ncrossdec run --cases 2\n```\n## Heading\n```text\ny\n```\n";
    assert_eq!(
        shown_runs(text),
        [ShownRun {
            line: 2,
            command: "crossdec run --cases 20".into(),
            output: vec![(8, "== a ==".into()), (9, "...".into())],
        }]
    );
    assert_eq!(
        comparable("total: 1 families, 8189 cases, 8218 comparisons (subjects 8218), fewest 8218 by x, 1.04s"),
        "total: 1 families, 8189 cases, [n] comparisons [counts] fewest 8218 by x, [t]"
    );
    assert_eq!(
        comparable("== pg-bytea (seed 1, 8189 cases, 0.36s, digest f3434dcc3d388644) =="),
        "== pg-bytea (seed 1, 8189 cases, [t] digest f3434dcc3d388644) =="
    );
    assert_eq!(
        comparable("reference 11.30 ms, kernel 0.77 ms)"),
        "reference [t] kernel [t]"
    );
}
