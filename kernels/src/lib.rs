//! Optimized decoders for the formats crossdec verifies.
//!
//! Each family lives in its own module and lists every implementation in a
//! registry ([`Implementation`]): a name, an `is_available()` check for this
//! CPU and the function itself, all behind one signature. Runtime dispatch
//! ([`best`]) picks the first available entry, registries being ordered best
//! first; tests and the harness can force any entry by name ([`by_name`]).
//!
//! This crate never depends on the reference decoders: they are its oracle.

#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "bytea")]
pub mod bytea;
#[cfg(feature = "cube")]
pub mod cube;
#[cfg(feature = "qwp")]
pub mod qwp;
#[cfg(feature = "tsfile")]
pub mod tsfile;

/// One implementation of a family's decoding function.
#[derive(Clone, Copy)]
pub struct Implementation<F: Copy + 'static> {
    /// Stable name, used to force this implementation (`--impl NAME`).
    pub name: &'static str,
    /// Whether this CPU can run it (ISA extensions present).
    pub is_available: fn() -> bool,
    pub func: F,
}

impl<F: Copy + 'static> std::fmt::Debug for Implementation<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Implementation")
            .field("name", &self.name)
            .field("available", &(self.is_available)())
            .finish()
    }
}

/// The first available implementation of a registry ordered best first.
///
/// Every registry ends with a portable entry that is always available.
pub fn best<F: Copy>(registry: &'static [Implementation<F>]) -> &'static Implementation<F> {
    registry
        .iter()
        .find(|i| (i.is_available)())
        .expect("every registry ends with an always-available portable implementation")
}

/// The implementation called `name`, available or not.
pub fn by_name<F: Copy>(registry: &'static [Implementation<F>], name: &str) -> Option<&'static Implementation<F>> {
    registry.iter().find(|i| i.name == name)
}

/// Always true: for portable implementations.
pub fn always() -> bool {
    true
}

/// Test-only step counters in kernels' fast paths: one per thread, so tests
/// running in parallel do not see each other's counts.
#[cfg(test)]
pub(crate) type StepCounter = std::thread::LocalKey<std::cell::Cell<usize>>;

/// Count one step on `counter` (compiled into tests only).
#[cfg(test)]
pub(crate) fn count_step(counter: &'static StepCounter) {
    count_steps(counter, 1);
}

/// Count `n` steps on `counter` (compiled into tests only).
#[cfg(test)]
pub(crate) fn count_steps(counter: &'static StepCounter, n: usize) {
    counter.with(|c| c.set(c.get() + n));
}

/// A xorshift64 generator for the kernels' tests (no RNG crate needed, the
/// same numbers on every target).
#[cfg(test)]
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

    fn never() -> bool {
        false
    }

    static REGISTRY: &[Implementation<u8>] = &[
        Implementation { name: "fast", is_available: never, func: 1 },
        Implementation { name: "portable", is_available: always, func: 2 },
    ];

    #[test]
    fn best_skips_unavailable_entries() {
        assert_eq!(best(REGISTRY).name, "portable");
        assert_eq!(best(REGISTRY).func, 2);
    }

    #[test]
    fn by_name_finds_unavailable_entries_too() {
        assert_eq!(by_name(REGISTRY, "fast").map(|i| i.func), Some(1));
        assert_eq!(by_name(REGISTRY, "portable").map(|i| i.func), Some(2));
        assert!(by_name(REGISTRY, "missing").is_none());
    }

    #[test]
    fn debug_names_the_entry_and_its_availability() {
        assert_eq!(format!("{:?}", REGISTRY[0]), r#"Implementation { name: "fast", available: false }"#);
        assert_eq!(format!("{:?}", REGISTRY[1]), r#"Implementation { name: "portable", available: true }"#);
    }
}
