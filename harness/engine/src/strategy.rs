//! Categories from proptest strategies (feature `proptest`): a generator
//! already written as a [`Strategy`] becomes a [`Category`] without
//! rewriting it against [`CaseRng`].

use std::sync::Arc;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::{Case, CaseRng, Category, Probe};

impl<I> Category<I> {
    /// A category whose every generator call is one case of one step: a
    /// value of `strategy`, drawn by a proptest runner seeded from the
    /// call's own random source, so the case is the same on every run,
    /// thread count and 64-bit architecture. On a 32-bit target a strategy
    /// that draws a `usize` (every `prop::collection` size, a `usize`
    /// range) takes 32 bits of the stream where a 64-bit target takes 64,
    /// so from there on it draws other values: a family held to the same
    /// digests on i686 uses strategies of fixed-width integers only. The
    /// runner's settings that shape values (rejects, flat-map regenerations,
    /// `cases`) are fixed at proptest's defaults, never read from `PROPTEST_*`
    /// variables. One setting is not the runner's: a collection without an
    /// explicit size (`any::<Vec<T>>()`) takes its sizes from
    /// `PROPTEST_MAX_DEFAULT_SIZE_RANGE` through proptest's global defaults,
    /// so give collections their sizes. A proptest release that changes how
    /// a strategy draws changes the cases and the digests.
    ///
    /// A call whose strategy rejects every value it draws (a `prop_filter`
    /// too strict) returns no case. A failure is minimized first with the
    /// strategy's own shrinker: the call's random source is rebuilt from
    /// (seed, family, category, call), so the value tree that drew the case
    /// is drawn again, and proptest's `simplify` / `complicate` walk it,
    /// keeping each value that still fails (see
    /// [`Category::with_shrinker`]); then with the spec's
    /// [`Spec::shrink`](crate::Spec::shrink) from there. The reproducer is
    /// still an input, replayable from its canonical bytes alone.
    ///
    /// ```
    /// use crossdec_engine::bytes::{self, Payload};
    /// use crossdec_engine::{Campaign, Category, Outcome, RunOptions, Spec};
    /// use crossdec_engine::proptest::prelude::*;
    ///
    /// /// Bytes to their sum.
    /// struct Sum;
    /// impl Spec for Sum {
    ///     type Input = Payload;
    ///     type Output = u64;
    ///     type Error = ();
    ///     fn name(&self) -> &'static str { "sum" }
    ///     fn categories(&self) -> Vec<Category<Payload>> {
    ///         let runs = prop::collection::vec(any::<u8>(), 0..300).prop_map(Payload);
    ///         vec![Category::from_strategy("proptest", 1.0, runs)]
    ///     }
    ///     fn reference(&self, input: &Payload) -> Outcome<Self> {
    ///         Ok(input.0.iter().map(|&b| u64::from(b)).sum())
    ///     }
    ///     fn shrink(&self, input: &Payload) -> Vec<Payload> { bytes::shrink(input) }
    /// }
    ///
    /// let campaign = Campaign::new(Sum).kernel("fold", true, || {
    ///     |input: &Payload, _: &mut _| Ok(input.0.iter().fold(0u64, |s, &b| s + u64::from(b)))
    /// });
    /// let report = campaign.assert_agrees(&RunOptions { cases: 50, ..RunOptions::default() });
    /// assert_eq!(report.categories[0].cases, 50);
    /// ```
    pub fn from_strategy<S>(name: &'static str, scale: f64, strategy: S) -> Self
    where
        S: Strategy<Value = I> + Send + Sync + 'static,
    {
        let strategy = Arc::new(strategy);
        let shrinking = Arc::clone(&strategy);
        Category::new(name, scale, move |_, rng| {
            tree(&*strategy, rng)
                .map(|t| Case::one(t.current()))
                .into_iter()
                .collect()
        })
        .with_shrinker(move |rng, probe| {
            if let Some(tree) = tree(&*shrinking, rng) {
                simplify(tree, probe);
            }
        })
    }
}

/// proptest's shrinking protocol on the tree that drew the failing value:
/// `simplify` while the value still fails; when a simpler one passes,
/// `complicate` back toward the last failure; done when the tree can do
/// neither (or the minimizing's budget is spent).
fn simplify<T: ValueTree>(mut tree: T, probe: &mut Probe<'_, T::Value>) {
    if !tree.simplify() {
        return;
    }
    while !probe.spent() {
        let moved = if probe.fails(&Case::one(tree.current())) {
            tree.simplify()
        } else {
            tree.complicate()
        };
        if !moved {
            break;
        }
    }
}

/// The value tree of one value of `strategy`, from a runner seeded by `rng`;
/// `None` when the strategy rejects too many draws.
fn tree<S: Strategy + ?Sized>(strategy: &S, rng: &mut CaseRng) -> Option<S::Tree> {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let config = Config {
        // The settings drawing a value tree and shrinking it read from the
        // runner, at proptest's defaults: `Config::default()` takes them
        // from `PROPTEST_*` variables, which would change the cases (CI
        // sets `PROPTEST_CASES`; a flat map's shrinking draws again up to
        // `cases` times). The rest only matter to the runner's own test
        // loop, which never runs here.
        cases: 256,
        max_local_rejects: 65_536,
        max_flat_map_regens: 1_000_000,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    strategy.new_tree(&mut runner).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::{self, Payload};
    use crate::{case_rng, Campaign, Outcome, RunOptions, Spec};
    use proptest::prelude::*;

    fn values(category: &Category<Vec<u16>>, seed: u64, calls: u64) -> Vec<Vec<Case<Vec<u16>>>> {
        (0..calls)
            .map(|i| category.generate(i, &mut case_rng(seed, "family", category.name, i)))
            .collect()
    }

    #[test]
    fn a_strategys_cases_follow_the_case_rng() {
        let category = Category::from_strategy("vec", 1.0, prop::collection::vec(any::<u16>(), 0..40));
        let first = values(&category, 1, 20);
        assert_eq!(first, values(&category, 1, 20), "same seed, same cases");
        assert_ne!(first, values(&category, 2, 20), "another seed, other cases");
        assert!(first.iter().all(|cases| cases.len() == 1 && cases[0].steps.len() == 1));
        // Calls differ from one another (not one runner's first value).
        assert!(first.windows(2).any(|w| w[0] != w[1]));
        // Order and threads do not matter: call 7 alone is call 7.
        let seventh = category.generate(7, &mut case_rng(1, "family", "vec", 7));
        assert_eq!(seventh, first[7]);
    }

    /// Records of (number, name), written as a count byte, then per record
    /// the number (4 bytes, little-endian), a length byte and the name: a
    /// framing that a byte-level shrink cannot cut without breaking (a
    /// record dropped needs the count lowered with it).
    struct Records {
        own_shrinker: bool,
    }

    fn records() -> impl Strategy<Value = Payload> {
        prop::collection::vec((any::<u32>(), "[a-z]{0,12}"), 1..20).prop_map(|records| {
            let mut bytes = vec![records.len() as u8];
            for (number, name) in records {
                bytes.extend(number.to_le_bytes());
                bytes.push(name.len() as u8);
                bytes.extend(name.as_bytes());
            }
            Payload(bytes)
        })
    }

    /// The records of `bytes`, if it is exactly a count and that many.
    fn read_records(mut bytes: &[u8]) -> Option<Vec<(u32, &[u8])>> {
        let (&count, rest) = bytes.split_first()?;
        bytes = rest;
        let mut out = Vec::new();
        for _ in 0..count {
            let number = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
            let len = usize::from(*bytes.get(4)?);
            out.push((number, bytes.get(5..5 + len)?));
            bytes = &bytes[5 + len..];
        }
        bytes.is_empty().then_some(out)
    }

    impl Spec for Records {
        type Input = Payload;
        type Output = u64;
        type Error = ();
        fn name(&self) -> &'static str {
            "records"
        }
        fn categories(&self) -> Vec<Category<Payload>> {
            let category = Category::from_strategy("records", 1.0, records());
            vec![if self.own_shrinker {
                category
            } else {
                category.without_own_shrinker()
            }]
        }
        fn reference(&self, input: &Payload) -> Outcome<Self> {
            let records = read_records(&input.0).ok_or(())?;
            Ok(records.iter().map(|&(n, _)| u64::from(n)).sum())
        }
        fn shrink(&self, input: &Payload) -> Vec<Payload> {
            bytes::shrink(input)
        }
    }

    /// The reproducer's canonical bytes when `Records` is minimized against
    /// a kernel that miscounts a record with a large number and a `q` in
    /// its name.
    fn reproducer_bytes(own_shrinker: bool) -> u64 {
        let campaign = Campaign::new(Records { own_shrinker }).kernel("miscount", true, || {
            |input: &Payload, _: &mut _| {
                let records = read_records(&input.0).ok_or(())?;
                let bug = records.iter().any(|&(n, name)| n >= 1 << 31 && name.contains(&b'q'));
                Ok(records.iter().map(|&(n, _)| u64::from(n)).sum::<u64>() + u64::from(bug))
            }
        });
        let options = RunOptions {
            cases: 20,
            max_failures: 1,
            shrink_seconds: 60.0,
            shrink_total_seconds: 60.0,
            ..RunOptions::default()
        };
        let report = campaign.run(&options);
        assert!(!report.failures.is_empty(), "the bug is found");
        report.failures[0].reproducer_bytes
    }

    #[test]
    fn the_strategys_tree_shrinks_what_a_byte_shrink_cannot() {
        let with_tree = reproducer_bytes(true);
        let without = reproducer_bytes(false);
        // The smallest reproducer: a count, one record of a 4-byte number,
        // a length and the name "q".
        assert_eq!(with_tree, 7, "with the tree");
        assert!(
            with_tree < without,
            "with the tree {with_tree} bytes, without {without}"
        );
    }

    #[test]
    fn a_strategy_that_rejects_everything_gives_no_case() {
        let category = Category::from_strategy("none", 1.0, any::<u8>().prop_filter("never", |_| false));
        assert!(category.generate(0, &mut case_rng(0, "f", "none", 0)).is_empty());
    }
}
