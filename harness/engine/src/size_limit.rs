//! A size limit for generators, set while structured fuzzing builds a case.
//!
//! A campaign's categories draw series, literals and tables of thousands of
//! elements, and that is what they should do there. A structured fuzz
//! execution builds one generator call per input, so a call that draws 3,000
//! values (through the reference encoder, every prefix for a truncation
//! category) costs milliseconds that its fuzzer bytes do not pay for.
//! Generators pass the lengths they draw through [`apply`]; it returns them
//! unchanged, except inside [`scoped`], which structured fuzzing wraps
//! around its generator call. Campaigns, corpora and golden digests never
//! set a limit, so their cases are the same with or without this module.

use std::cell::Cell;

thread_local! {
    static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// `len` (a length a generator drew: values in a series, bytes in a
/// literal, rows in a table), at most the limit [`scoped`] set on this
/// thread, if any.
pub fn apply(len: usize) -> usize {
    LIMIT.with(|limit| limit.get().map_or(len, |max| len.min(max)))
}

/// Run `generate` with [`apply`] capping lengths at `max` on this thread;
/// the previous limit is back afterwards, also when `generate` panics.
pub fn scoped<T>(max: usize, generate: impl FnOnce() -> T) -> T {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|limit| limit.set(self.0));
        }
    }
    let _restore = Restore(LIMIT.with(|limit| limit.replace(Some(max))));
    generate()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_scope_lengths_pass_unchanged() {
        assert_eq!(apply(0), 0);
        assert_eq!(apply(3_000), 3_000);
        assert_eq!(apply(usize::MAX), usize::MAX);
    }

    #[test]
    fn a_scope_caps_lengths_and_ends_with_its_call() {
        let inside = scoped(512, || (apply(511), apply(512), apply(513), apply(20_000)));
        assert_eq!(inside, (511, 512, 512, 512));
        assert_eq!(apply(20_000), 20_000);
    }

    #[test]
    fn scopes_nest_and_restore_the_outer_limit() {
        scoped(100, || {
            assert_eq!(scoped(10, || apply(50)), 10);
            assert_eq!(apply(50), 50);
            assert_eq!(apply(150), 100);
        });
        assert_eq!(apply(150), 150);
    }

    #[test]
    fn a_panicking_generator_leaves_no_limit_behind() {
        let result = std::panic::catch_unwind(|| scoped(5, || -> usize { panic!("generator bug") }));
        assert!(result.is_err());
        assert_eq!(apply(50), 50);
    }

    #[test]
    fn the_limit_is_per_thread() {
        scoped(5, || {
            let other = std::thread::spawn(|| apply(50)).join().expect("no panic");
            assert_eq!(other, 50);
            assert_eq!(apply(50), 5);
        });
    }
}
