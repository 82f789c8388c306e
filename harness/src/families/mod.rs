//! Every family crossdec knows. A new family is a module here and one line
//! in [`registry`] (its campaign and its source files): the command, the
//! differential test, the fuzz targets and the CI scripts all list families
//! from it.

use crate::engine::{Case, CaseRng, Category, Family};

pub mod bytea;
pub mod cube;
pub mod qwp;
pub mod tsfile;
pub mod tsfile_aligned;

/// A family and the files it is made of, so `crossdec run --changed-since`
/// knows which families a change touches. Sources are paths from the
/// repository root: a file, a folder (ending in `/`), or a pattern with one
/// `*` that matches within a single path segment.
pub struct Registration {
    /// The campaign.
    pub family: Box<dyn Family>,
    /// Its kernels, reference, harness folder and tests.
    pub sources: &'static [&'static str],
}

impl Registration {
    fn new(family: impl Family + 'static, sources: &'static [&'static str]) -> Self {
        Registration {
            family: Box::new(family),
            sources,
        }
    }
}

/// Code every family runs through: a change here changes every family.
pub const SHARED_SOURCES: &[&str] = &[
    "harness/engine/",
    "kernels/src/lib.rs",
    "kernels/src/probe.rs",
    "kernels/Cargo.toml",
    "reference/src/lib.rs",
    "reference/Cargo.toml",
    "harness/src/*.rs",
    "harness/src/cli/",
    "harness/src/families/mod.rs",
    "harness/Cargo.toml",
    "Cargo.toml",
    "Cargo.lock",
];

/// Every family with its sources, in the order `crossdec run` runs them.
pub fn registry() -> Vec<Registration> {
    let mut all = vec![
        Registration::new(qwp::campaign(), qwp::SOURCES),
        Registration::new(bytea::campaign(), bytea::SOURCES),
    ];
    all.extend(tsfile::Encoding::ALL.map(|e| Registration::new(tsfile::campaign(e), e.sources())));
    all.push(Registration::new(tsfile_aligned::campaign(), tsfile_aligned::SOURCES));
    all.push(Registration::new(cube::campaign(), cube::SOURCES));
    all
}

/// Every family, in the order `crossdec run` runs them.
pub fn all() -> Vec<Box<dyn Family>> {
    registry().into_iter().map(|r| r.family).collect()
}

pub use crate::engine::changes::source_matches;

/// The family called `name`.
pub fn by_name(name: &str) -> Option<Box<dyn Family>> {
    all().into_iter().find(|f| f.name() == name)
}

/// The function of a registry kernel, for a decoder the engine is about to
/// build (the engine builds decoders of available implementations only, so
/// an unavailable one here is an engine bug, reported as that kernel's
/// failure).
pub(crate) fn runnable<F: Copy>(imp: &crossdec_kernels::Implementation<F>) -> F {
    imp.get()
        .unwrap_or_else(|e| panic!("{e}: the engine only runs available kernels"))
}

/// Categories from a table of (name, scale) whose generator dispatches on the
/// category's name, as the built-in families' generators do.
pub(crate) fn named_categories<I: 'static>(
    table: &[(&'static str, f64)],
    generate: impl Fn(&str, u64, &mut CaseRng) -> Vec<Case<I>> + Clone + Send + Sync + 'static,
) -> Vec<Category<I>> {
    table
        .iter()
        .map(|&(name, scale)| {
            let generate = generate.clone();
            Category::new(name, scale, move |index, rng| generate(name, index, rng))
        })
        .collect()
}

/// `categories` with those named in `large` marked [`Category::large`]
/// (campaigns only, never drawn by structured fuzzing).
pub(crate) fn with_large<I>(categories: Vec<Category<I>>, large: &[&str]) -> Vec<Category<I>> {
    assert!(
        large.iter().all(|name| categories.iter().any(|c| c.name == *name)),
        "a large category that does not exist: {large:?}"
    );
    categories
        .into_iter()
        .map(|c| if large.contains(&c.name) { c.large() } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn repository() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the harness is in the repository")
    }

    fn files_under(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("readable source folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                files_under(&path, out);
            } else {
                let relative = path.strip_prefix(repository()).expect("under the repository");
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    /// A family registered without its sources (or with a path that moved)
    /// would get only a smoke run however deeply a change touched it.
    #[test]
    fn every_family_names_sources_that_exist_and_every_kernel_file_has_an_owner() {
        let registry = registry();
        let mut patterns: Vec<&str> = SHARED_SOURCES.to_vec();
        for r in &registry {
            let name = r.family.name();
            assert!(
                r.sources.iter().any(|s| s.starts_with("kernels/")),
                "{name}: no kernel sources"
            );
            assert!(
                r.sources.iter().any(|s| s.starts_with("reference/")),
                "{name}: no reference sources"
            );
            assert!(
                r.sources.iter().any(|s| s.starts_with("harness/src/families/")),
                "{name}: no harness sources"
            );
            patterns.extend(r.sources);
        }
        let mut files = Vec::new();
        for dir in ["kernels", "reference", "harness", "tsfile"] {
            files_under(&repository().join(dir), &mut files);
        }
        files.extend(["Cargo.toml", "Cargo.lock"].map(String::from));
        for pattern in &patterns {
            assert!(
                files.iter().any(|f| source_matches(pattern, f)),
                "source {pattern} matches no file"
            );
        }
        for file in files
            .iter()
            .filter(|f| f.starts_with("kernels/src/") || f.starts_with("harness/src/"))
        {
            assert!(
                patterns.iter().any(|p| source_matches(p, file)),
                "{file} belongs to no family and is not shared code"
            );
        }
    }
}
