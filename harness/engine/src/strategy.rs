//! Categories from proptest strategies (feature `proptest`): a generator
//! already written as a [`Strategy`] becomes a [`Category`] without
//! rewriting it against [`CaseRng`].

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::{Case, CaseRng, Category};

impl<I> Category<I> {
    /// A category whose every generator call is one case of one step: a
    /// value of `strategy`, drawn by a proptest runner seeded from the
    /// call's own random source, so the case is the same on every run,
    /// thread count and architecture, like any category's (as long as the
    /// strategy itself draws the same way everywhere: a `usize` range past
    /// `u32::MAX` does not on a 32-bit target). The runner's settings that
    /// shape values are fixed at proptest's defaults, never read from
    /// `PROPTEST_*` variables; a proptest release that changes how a
    /// strategy draws changes the cases and the digests.
    ///
    /// A call whose strategy rejects every value it draws (a `prop_filter`
    /// too strict) returns no case. Failures are minimized with the spec's
    /// [`Spec::shrink`](crate::Spec::shrink), not the strategy's value tree:
    /// a reproducer is an input, replayable from its canonical bytes alone,
    /// and the tree that drew it is not kept.
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
        Category::new(name, scale, move |_, rng| {
            draw(&strategy, rng).map(Case::one).into_iter().collect()
        })
    }
}

/// One value of `strategy`, from a runner seeded by `rng`; `None` when the
/// strategy rejects too many draws.
fn draw<S: Strategy>(strategy: &S, rng: &mut CaseRng) -> Option<S::Value> {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let config = Config {
        // proptest's defaults, spelled out: `Config::default()` takes them
        // from `PROPTEST_*` variables, which would change the cases.
        max_local_rejects: 65_536,
        max_global_rejects: 1024,
        max_flat_map_regens: 1_000_000,
        max_default_size_range: 100,
        rng_algorithm: RngAlgorithm::ChaCha,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    strategy.new_tree(&mut runner).ok().map(|tree| tree.current())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;
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

    #[test]
    fn a_strategy_that_rejects_everything_gives_no_case() {
        let category = Category::from_strategy("none", 1.0, any::<u8>().prop_filter("never", |_| false));
        assert!(category.generate(0, &mut case_rng(0, "f", "none", 0)).is_empty());
    }
}
