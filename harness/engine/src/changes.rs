//! Which families a change touches, for `crossdec run --changed-since REV`:
//! the files `git diff --name-only REV` names, matched against each
//! family's source patterns and the patterns of the code they all share.

use std::path::Path;
use std::process::Command;

/// Whether `path` (from the repository root) is covered by `pattern`: a
/// file, a folder ending in `/` (everything under it), or a pattern with
/// one `*`, which stands for any characters but `/`.
pub fn source_matches(pattern: &str, path: &str) -> bool {
    if let Some((before, after)) = pattern.split_once('*') {
        return path.len() >= before.len() + after.len()
            && path.starts_with(before)
            && path.ends_with(after)
            && !path[before.len()..path.len() - after.len()].contains('/');
    }
    match pattern.strip_suffix('/') {
        Some(folder) => path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/')),
        None => path == pattern,
    }
}

/// The changed files, sorted by what they touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Changed files in shared code: when any, every family is changed.
    pub shared: Vec<String>,
    /// Every family, in the order given, with its changed source files.
    pub families: Vec<(String, Vec<String>)>,
}

impl Changes {
    /// Sort `files` (paths from the repository root) by the families whose
    /// `sources` cover them; `shared` covers code every family runs.
    pub fn classify(files: &[String], shared: &[&str], families: &[(&str, &[&str])]) -> Changes {
        let covered = |patterns: &[&str], file: &str| patterns.iter().any(|p| source_matches(p, file));
        Changes {
            shared: files.iter().filter(|f| covered(shared, f)).cloned().collect(),
            families: families
                .iter()
                .map(|(name, sources)| {
                    let touched = files.iter().filter(|f| covered(sources, f)).cloned().collect();
                    (name.to_string(), touched)
                })
                .collect(),
        }
    }

    /// Whether the change touches `family` (its own sources or shared code).
    pub fn touches(&self, family: &str) -> bool {
        !self.shared.is_empty()
            || self
                .families
                .iter()
                .any(|(name, files)| name == family && !files.is_empty())
    }

    /// One line per changed family (or one for shared code) saying why.
    pub fn explain(&self) -> Vec<String> {
        if !self.shared.is_empty() {
            return vec![format!(
                "shared code changed ({}): every family is changed",
                listing(&self.shared)
            )];
        }
        let lines: Vec<String> = self
            .families
            .iter()
            .filter(|(_, files)| !files.is_empty())
            .map(|(name, files)| format!("{name} changed ({})", listing(files)))
            .collect();
        if lines.is_empty() {
            vec!["no family's sources changed: every family gets a smoke run".to_string()]
        } else {
            lines
        }
    }
}

fn listing(files: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut text = files.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if files.len() > SHOWN {
        text.push_str(&format!(" and {} more", files.len() - SHOWN));
    }
    text
}

/// The files `git diff --name-only REV` names in the repository at `dir`
/// (committed and uncommitted changes since `rev`, paths from the
/// repository root).
pub fn changed_files(rev: &str, dir: &Path) -> Result<Vec<String>, String> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(format!("--changed-since takes a revision, not {rev:?}"));
    }
    let inside = Command::new("git")
        .args(["rev-parse", "--is-inside-work-tree"])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("--changed-since {rev}: could not run git: {e}"))?;
    if !inside.status.success() {
        return Err(format!(
            "--changed-since {rev}: {} is not in a git repository (--repository DIR names one)",
            dir.display()
        ));
    }
    let output = Command::new("git")
        .args(["diff", "--name-only", rev, "--"])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("--changed-since {rev}: could not run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "--changed-since {rev}: git diff failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_patterns_match_files_folders_and_one_segment() {
        assert!(source_matches("kernels/src/lib.rs", "kernels/src/lib.rs"));
        assert!(!source_matches("kernels/src/lib.rs", "kernels/src/lib.rs.orig"));
        assert!(source_matches("kernels/src/qwp/", "kernels/src/qwp/mod.rs"));
        assert!(source_matches("kernels/src/qwp/", "kernels/src/qwp/deep/x.rs"));
        assert!(!source_matches("kernels/src/qwp/", "kernels/src/qwp"));
        assert!(!source_matches("kernels/src/qwp/", "kernels/src/qwpx/mod.rs"));
        assert!(source_matches("harness/src/*.rs", "harness/src/main.rs"));
        assert!(!source_matches("harness/src/*.rs", "harness/src/families/mod.rs"));
        assert!(!source_matches("harness/src/*.rs", "harness/src/main.rsx"));
        assert!(source_matches(
            "harness/tests/tsfile_*",
            "harness/tests/tsfile_props.rs"
        ));
        assert!(!source_matches("a*a", "a"));
    }

    const SHARED: &[&str] = &["harness/engine/", "kernels/src/lib.rs", "harness/src/*.rs"];
    const FAMILIES: &[(&str, &[&str])] = &[
        ("hex", &["kernels/src/hex/", "reference/src/hex.rs"]),
        ("ts", &["kernels/src/ts/ts.rs", "harness/tests/ts_*"]),
    ];

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn a_family_file_changes_that_family_only() {
        let c = Changes::classify(&files(&["kernels/src/hex/simd.rs", "docs/hex.md"]), SHARED, FAMILIES);
        assert!(c.shared.is_empty());
        assert!(c.touches("hex"));
        assert!(!c.touches("ts"));
        assert_eq!(c.explain(), ["hex changed (kernels/src/hex/simd.rs)"]);
    }

    #[test]
    fn shared_code_changes_every_family() {
        let c = Changes::classify(&files(&["harness/src/main.rs"]), SHARED, FAMILIES);
        assert!(c.touches("hex") && c.touches("ts"));
        assert_eq!(
            c.explain(),
            ["shared code changed (harness/src/main.rs): every family is changed"]
        );
        // A file in a sub-folder of harness/src is not matched by `*.rs`.
        let c = Changes::classify(&files(&["harness/src/families/x.rs"]), SHARED, FAMILIES);
        assert!(!c.touches("hex"));
    }

    #[test]
    fn unrelated_files_change_no_family() {
        let c = Changes::classify(
            &files(&["README.md", "kernels/src/hexagon.rs", "harness/tests/other.rs"]),
            SHARED,
            FAMILIES,
        );
        assert!(!c.touches("hex") && !c.touches("ts"));
        assert_eq!(
            c.explain(),
            ["no family's sources changed: every family gets a smoke run"]
        );
    }

    #[test]
    fn long_lists_are_cut_short() {
        let many: Vec<String> = (0..6).map(|i| format!("kernels/src/hex/{i}.rs")).collect();
        let c = Changes::classify(&many, SHARED, FAMILIES);
        assert_eq!(
            c.explain(),
            ["hex changed (kernels/src/hex/0.rs, kernels/src/hex/1.rs, kernels/src/hex/2.rs, kernels/src/hex/3.rs and 2 more)"]
        );
        // Four fit whole.
        let c = Changes::classify(&many[..4], SHARED, FAMILIES);
        assert_eq!(
            c.explain(),
            ["hex changed (kernels/src/hex/0.rs, kernels/src/hex/1.rs, kernels/src/hex/2.rs, kernels/src/hex/3.rs)"]
        );
    }

    #[test]
    fn a_bad_revision_is_an_error_not_a_panic() {
        let here = Path::new(".");
        let e = changed_files("no-such-revision-anywhere", here).unwrap_err();
        assert!(e.starts_with("--changed-since no-such-revision-anywhere: "), "{e}");
        assert!(changed_files("--output=x", here)
            .unwrap_err()
            .contains("takes a revision"));
    }

    #[test]
    fn changed_files_are_what_git_diff_names_committed_or_not() {
        let dir = std::env::temp_dir().join(format!("crossdec-changes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("kernels/src/hex")).unwrap();
        let git = |args: &[&str]| {
            let status = Command::new("git")
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
            assert!(status.status.success(), "git {args:?}: {status:?}");
        };
        std::fs::write(dir.join("README.md"), "a").unwrap();
        std::fs::write(dir.join("kernels/src/hex/simd.rs"), "a").unwrap();
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "base"]);
        git(&["tag", "base"]);
        std::fs::write(dir.join("README.md"), "b").unwrap();
        git(&["commit", "-q", "-am", "docs"]);
        std::fs::write(dir.join("kernels/src/hex/simd.rs"), "b").unwrap();
        let changed = changed_files("base", &dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(changed.unwrap(), ["README.md", "kernels/src/hex/simd.rs"]);
    }
}
