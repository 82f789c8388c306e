//! Every family crossdec knows. A new family is a module here and one line
//! in [`all`]: the command, the differential test, the fuzz targets and the
//! CI scripts all list families from it.

use crate::engine::{Case, CaseRng, Category, Family};

pub mod bytea;
pub mod cube;
pub mod qwp;
pub mod tsfile;

/// Every family, in the order `crossdec run` runs them.
pub fn all() -> Vec<Box<dyn Family>> {
    let mut all: Vec<Box<dyn Family>> = vec![Box::new(qwp::campaign()), Box::new(bytea::campaign())];
    all.extend(tsfile::Encoding::ALL.map(|e| Box::new(tsfile::campaign(e)) as Box<dyn Family>));
    all.push(Box::new(cube::campaign()));
    all
}

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
