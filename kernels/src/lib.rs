//! Optimized decoders for the formats crossdec verifies.
//!
//! Each family lives in its own module (and cargo feature) and lists every
//! implementation in a registry of [`Implementation`]s, one signature per
//! registry, ordered best first: a `family/variant` name, the detection of
//! the CPU features it needs, and the function, listed on every target (a
//! kernel for another ISA is [`absent`](Implementation::absent) there).
//! Dispatch ([`best`]) takes the first available entry; tests and the harness
//! force any entry by name ([`by_name`]), which is a typed [`ForceError`]
//! where the entry cannot run.
//!
//! This crate never depends on the reference decoders: they are its oracle.

#![deny(unsafe_op_in_unsafe_fn)]
// docs.rs (`--cfg docsrs`, Cargo.toml) labels each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The README's examples run as doctests, so the crate's front page cannot
// show code that no longer compiles (they use the `bytea` family).
#[cfg(all(doctest, feature = "bytea"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "bytea")]
pub mod bytea;
#[cfg(feature = "cube")]
pub mod cube;
#[cfg(any(feature = "qwp", feature = "tsfile"))]
mod probe;
#[cfg(feature = "qwp")]
pub mod qwp;
#[cfg(feature = "tsfile")]
pub mod tsfile;

/// One implementation of a family's decoding function, listed in its
/// family's registry on every target (an ISA kernel of another architecture
/// is listed as [`absent`](Implementation::absent)), so every target's
/// manifest names it and forcing it by name is a typed error, never a panic
/// and never another kernel under its name.
#[derive(Clone, Copy)]
pub struct Implementation<F: Copy + 'static> {
    /// Stable `family/variant` name, used to force it (`--impl NAME`).
    pub name: &'static str,
    detect: fn() -> bool,
    func: Option<F>,
}

impl<F: Copy + 'static> Implementation<F> {
    /// A kernel compiled for this target that runs where `detect()` says this
    /// CPU has its ISA extensions.
    pub const fn new(name: &'static str, detect: fn() -> bool, func: F) -> Self {
        Implementation {
            name,
            detect,
            func: Some(func),
        }
    }

    /// A portable kernel: available on every CPU.
    pub const fn portable(name: &'static str, func: F) -> Self {
        Implementation::new(name, always, func)
    }

    /// A kernel for another architecture, not compiled for this target.
    pub const fn absent(name: &'static str) -> Self {
        Implementation {
            name,
            detect: never,
            func: None,
        }
    }

    /// Whether this target and CPU can run it (decided once per call of
    /// the detection, which the standard library caches).
    pub fn is_available(&self) -> bool {
        self.func.is_some() && (self.detect)()
    }

    /// The function, if this CPU can run it: holding it proves the support.
    pub fn get(&self) -> Result<F, ForceError> {
        match self.func {
            Some(func) if (self.detect)() => Ok(func),
            _ => Err(ForceError::Unavailable { name: self.name }),
        }
    }
}

impl<F: Copy + 'static> std::fmt::Debug for Implementation<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Implementation")
            .field("name", &self.name)
            .field("available", &self.is_available())
            .finish()
    }
}

/// Why an implementation cannot be forced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForceError {
    /// No implementation of that name in the registry.
    Unknown { name: String },
    /// Listed, but this target or CPU cannot run it.
    Unavailable { name: &'static str },
}

impl std::fmt::Display for ForceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ForceError::Unknown { name } => write!(f, "no implementation named {name}"),
            ForceError::Unavailable { name } => write!(f, "{name} cannot run on this target or CPU"),
        }
    }
}

impl std::error::Error for ForceError {}

/// Dispatch: the first available implementation of a registry ordered best
/// first. Every registry ends with a portable entry.
pub fn best<F: Copy>(registry: &'static [Implementation<F>]) -> F {
    registry
        .iter()
        .find_map(|i| i.get().ok())
        .expect("every registry ends with an always-available portable implementation")
}

/// A registry's dispatch for a hot entry point: the best implementation,
/// chosen on first use and kept, so a call costs no detection.
pub struct Best<F: Copy + 'static> {
    registry: &'static [Implementation<F>],
    chosen: std::sync::OnceLock<F>,
}

impl<F: Copy + Send + Sync + 'static> Best<F> {
    /// The dispatch of `registry` (nothing is chosen until the first call).
    pub const fn new(registry: &'static [Implementation<F>]) -> Self {
        Best {
            registry,
            chosen: std::sync::OnceLock::new(),
        }
    }

    /// [`best`] of the registry, chosen once.
    pub fn get(&self) -> F {
        *self.chosen.get_or_init(|| best(self.registry))
    }
}

/// Force the implementation called `name`: its function, or why not.
pub fn by_name<F: Copy>(registry: &'static [Implementation<F>], name: &str) -> Result<F, ForceError> {
    registry
        .iter()
        .find(|i| i.name == name)
        .ok_or_else(|| ForceError::Unknown { name: name.to_string() })?
        .get()
}

/// Always true: the detection of portable implementations.
pub fn always() -> bool {
    true
}

fn never() -> bool {
    false
}

/// A xorshift64 generator for the kernels' tests (no RNG crate needed, the
/// same numbers on every target).
#[cfg(all(test, any(feature = "qwp", feature = "tsfile")))]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing_cpu_feature() -> bool {
        false
    }

    static REGISTRY: &[Implementation<u8>] = &[
        Implementation::new("f/fast", missing_cpu_feature, 1),
        Implementation::absent("f/other-isa"),
        Implementation::portable("f/portable", 2),
    ];

    #[test]
    fn best_skips_unavailable_entries() {
        assert_eq!(best(REGISTRY), 2);
    }

    #[test]
    fn a_kept_dispatch_is_the_best_entry() {
        static BEST: Best<u8> = Best::new(REGISTRY);
        assert_eq!(BEST.get(), 2);
        assert_eq!(BEST.get(), 2);
    }

    #[test]
    fn forcing_an_unavailable_or_unknown_entry_is_a_typed_error() {
        assert_eq!(by_name(REGISTRY, "f/portable"), Ok(2));
        assert_eq!(
            by_name(REGISTRY, "f/fast"),
            Err(ForceError::Unavailable { name: "f/fast" })
        );
        assert_eq!(
            by_name(REGISTRY, "f/other-isa"),
            Err(ForceError::Unavailable { name: "f/other-isa" })
        );
        assert_eq!(
            by_name(REGISTRY, "f/missing"),
            Err(ForceError::Unknown {
                name: "f/missing".into()
            })
        );
        assert_eq!(
            ForceError::Unavailable { name: "f/fast" }.to_string(),
            "f/fast cannot run on this target or CPU"
        );
        assert_eq!(
            ForceError::Unknown { name: "x".into() }.to_string(),
            "no implementation named x"
        );
    }

    #[test]
    fn availability_needs_the_code_and_the_cpu() {
        let available: Vec<bool> = REGISTRY.iter().map(Implementation::is_available).collect();
        assert_eq!(available, [false, false, true]);
        assert!(always());
        assert!(!never());
    }

    #[test]
    fn debug_names_the_entry_and_its_availability() {
        assert_eq!(
            format!("{:?}", REGISTRY[0]),
            r#"Implementation { name: "f/fast", available: false }"#
        );
        assert_eq!(
            format!("{:?}", REGISTRY[2]),
            r#"Implementation { name: "f/portable", available: true }"#
        );
    }
}
