//! Categories from `arbitrary` types (feature `fuzz`, which brings the
//! `arbitrary` crate): an input type that already implements
//! [`Arbitrary`] for fuzzing becomes a [`Category`] without a generator
//! written against [`CaseRng`].

use arbitrary::{Arbitrary, Unstructured};

use crate::{Case, CaseRng, Category};

/// The most random bytes one generator call hands to `Arbitrary`.
const MAX_DRAW: usize = 4096;

impl<I> Category<I> {
    /// A category whose every generator call is one case of one step: a
    /// value of `I` built by [`Arbitrary::arbitrary_take_rest`] from
    /// random bytes drawn from the call's own random source (a length up
    /// to 4,096 bytes, then the bytes), so the case is the same on every
    /// run, thread count and architecture, like any category's. Short
    /// draws give the simple values `Arbitrary` builds from little data;
    /// a draw `Arbitrary` refuses gives no case. Failures are minimized
    /// with the spec's [`Spec::shrink`](crate::Spec::shrink).
    ///
    /// ```
    /// use crossdec_engine::bytes::{self, Payload};
    /// use crossdec_engine::{Campaign, Category, Outcome, RunOptions, Spec};
    ///
    /// /// Bytes to their sum.
    /// struct Sum;
    /// impl Spec for Sum {
    ///     type Input = Payload;
    ///     type Output = u64;
    ///     type Error = ();
    ///     fn name(&self) -> &'static str { "sum" }
    ///     fn categories(&self) -> Vec<Category<Payload>> {
    ///         vec![Category::from_arbitrary("arbitrary", 1.0)]
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
    pub fn from_arbitrary(name: &'static str, scale: f64) -> Self
    where
        I: for<'a> Arbitrary<'a>,
    {
        Category::new(name, scale, |_, rng| {
            draw::<I>(rng).map(Case::one).into_iter().collect()
        })
    }
}

/// One value of `I` from up to [`MAX_DRAW`] bytes of `rng`; `None` when
/// `Arbitrary` refuses them.
fn draw<I: for<'a> Arbitrary<'a>>(rng: &mut CaseRng) -> Option<I> {
    let len = rng.gen_range(0..=MAX_DRAW);
    let mut bytes = vec![0u8; len];
    rng.fill_bytes(&mut bytes);
    I::arbitrary_take_rest(Unstructured::new(&bytes)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Payload;
    use crate::case_rng;

    #[test]
    fn the_same_call_draws_the_same_value_and_calls_differ() {
        let value = |index| draw::<Vec<u32>>(&mut case_rng(1, "f", "c", index));
        assert!(value(3).is_some());
        assert_eq!(value(3), value(3));
        let distinct: std::collections::HashSet<_> = (0..50).filter_map(value).collect();
        assert!(distinct.len() > 10, "{}", distinct.len());
        // A payload takes the rest of the draw: lengths up to the draw's.
        let payload = |index| draw::<Payload>(&mut case_rng(1, "f", "c", index)).unwrap().0.len();
        assert!((0..50).any(|i| payload(i) > 1000), "long payloads are drawn");
        assert!((0..50).all(|i| payload(i) <= MAX_DRAW));
    }
}
