//! Categories from quickcheck `Arbitrary` types (feature `quickcheck`): an
//! input type that already implements [`Arbitrary`] for quickcheck becomes
//! a [`Category`] without a generator written against [`CaseRng`].

use quickcheck::{Arbitrary, Gen};

use crate::{Case, CaseRng, Category};

/// The `Gen` size every call uses: quickcheck's own default (what
/// `QuickCheck::new` starts with), so values are as big as quickcheck
/// makes them by default (a `Vec` of up to 100 items).
const SIZE: usize = 100;

impl<I> Category<I> {
    /// A category whose every generator call is one case of one step: a
    /// value of `I` from [`Arbitrary::arbitrary`], with a `Gen` seeded from
    /// the call's own random source (`Gen::from_size_and_seed`, size 100).
    /// A failure is minimized first with the value's own
    /// [`Arbitrary::shrink`] (the first smaller value that still fails,
    /// again, until none does), then with the spec's
    /// [`Spec::shrink`](crate::Spec::shrink).
    ///
    /// The cases are the same on every run, thread count and 64-bit
    /// target, but not on a 32-bit one: quickcheck's `Gen` draws with
    /// rand's `SmallRng`, which is another generator on 32-bit targets, so
    /// there the values, and the category's digest, differ. A family whose
    /// campaign is compared with a 32-bit target's (`crossdec gate`) keeps
    /// quickcheck categories out. A quickcheck release that changes how a
    /// type draws changes the cases and the digests.
    ///
    /// ```
    /// use crossdec_engine::{Campaign, Canonical, Category, Outcome, Parse, RunOptions, Spec};
    /// use crossdec_engine::quickcheck::{Arbitrary, Gen};
    ///
    /// /// Numbers, written as 8 bytes each.
    /// #[derive(Clone, Debug)]
    /// struct Numbers(Vec<u64>);
    /// impl Arbitrary for Numbers {
    ///     fn arbitrary(g: &mut Gen) -> Self { Numbers(Vec::arbitrary(g)) }
    ///     fn shrink(&self) -> Box<dyn Iterator<Item = Self>> { Box::new(self.0.shrink().map(Numbers)) }
    /// }
    /// impl Canonical for Numbers {
    ///     fn encode(&self, out: &mut Vec<u8>) { self.0.iter().for_each(|n| out.extend(n.to_le_bytes())) }
    /// }
    /// impl Parse for Numbers {
    ///     fn parse(bytes: &[u8]) -> Option<Self> {
    ///         (bytes.len() % 8 == 0).then(|| Numbers(bytes.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()))
    ///     }
    /// }
    ///
    /// /// Numbers to their largest.
    /// struct Max;
    /// impl Spec for Max {
    ///     type Input = Numbers;
    ///     type Output = u64;
    ///     type Error = ();
    ///     fn name(&self) -> &'static str { "max" }
    ///     fn categories(&self) -> Vec<Category<Numbers>> {
    ///         vec![Category::from_quickcheck("quickcheck", 1.0)]
    ///     }
    ///     fn reference(&self, input: &Numbers) -> Outcome<Self> {
    ///         input.0.iter().copied().max().ok_or(())
    ///     }
    /// }
    ///
    /// let campaign = Campaign::new(Max).kernel("fold", true, || {
    ///     |input: &Numbers, _: &mut _| input.0.iter().fold(None, |m: Option<u64>, &n| Some(m.map_or(n, |m| m.max(n)))).ok_or(())
    /// });
    /// let report = campaign.assert_agrees(&RunOptions { cases: 50, ..RunOptions::default() });
    /// assert_eq!(report.categories[0].cases, 50);
    /// ```
    pub fn from_quickcheck(name: &'static str, scale: f64) -> Self
    where
        I: Arbitrary + Send + Sync,
    {
        Category::new(name, scale, |_, rng| vec![Case::one(draw::<I>(rng))]).with_shrinker(|_, probe| {
            let Some(mut value) = probe.case().steps.first().cloned() else {
                return;
            };
            // Greedy, as quickcheck itself shrinks: the first smaller value
            // that still fails replaces the value, and its own smaller
            // values are tried next.
            'smaller: while !probe.spent() {
                for candidate in value.shrink() {
                    if probe.fails(&Case::one(candidate.clone())) {
                        value = candidate;
                        continue 'smaller;
                    }
                    if probe.spent() {
                        return;
                    }
                }
                return;
            }
        })
    }
}

/// One value of `I`, from a `Gen` seeded by `rng`.
fn draw<I: Arbitrary>(rng: &mut CaseRng) -> I {
    let mut seed = [0u8; 8];
    rng.fill_bytes(&mut seed);
    I::arbitrary(&mut Gen::from_size_and_seed(SIZE, u64::from_le_bytes(seed)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Payload;
    use crate::{case_rng, Campaign, Outcome, RunOptions, Spec};

    #[test]
    fn the_same_call_draws_the_same_value_and_calls_differ() {
        let value = |index| draw::<Vec<u32>>(&mut case_rng(1, "f", "c", index));
        assert_eq!(value(3), value(3));
        let distinct: std::collections::HashSet<_> = (0..50).map(value).collect();
        assert!(distinct.len() > 40, "{}", distinct.len());
        assert!((0..50).all(|i| value(i).len() <= SIZE));
    }

    /// The values of one seed, pinned: a change in quickcheck's or rand's
    /// drawing, or a 64-bit target that draws otherwise (this runs on
    /// s390x too), shows here before it shows as a digest the gate
    /// refuses.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn the_values_are_pinned_on_64_bit_targets() {
        let lens: Vec<usize> = (0..8)
            .map(|i| draw::<Vec<u8>>(&mut case_rng(7, "f", "c", i)).len())
            .collect();
        let first = draw::<Vec<u8>>(&mut case_rng(7, "f", "c", 0));
        assert_eq!(
            (lens, &first[..first.len().min(6)]),
            (vec![57, 77, 42, 58, 11, 77, 1, 92], &[213, 47, 65, 181, 60, 28][..])
        );
    }

    /// Bytes to their sum; quickcheck draws the payloads.
    struct Sum {
        own_shrinker: bool,
    }

    impl Arbitrary for Payload {
        fn arbitrary(g: &mut Gen) -> Self {
            Payload(Vec::arbitrary(g))
        }
        fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
            Box::new(self.0.shrink().map(Payload))
        }
    }

    impl Spec for Sum {
        type Input = Payload;
        type Output = u64;
        type Error = ();
        fn name(&self) -> &'static str {
            "sum"
        }
        fn categories(&self) -> Vec<Category<Payload>> {
            let category = Category::from_quickcheck("quickcheck", 1.0);
            vec![if self.own_shrinker {
                category
            } else {
                category.without_own_shrinker()
            }]
        }
        fn reference(&self, input: &Payload) -> Outcome<Self> {
            Ok(input.0.iter().map(|&b| u64::from(b)).sum())
        }
        fn shrink(&self, _: &Payload) -> Vec<Payload> {
            Vec::new()
        }
    }

    /// The reproducer's bytes against a kernel that drops bytes of 200 and
    /// up, minimized by quickcheck's shrink or by none.
    fn reproducer(own_shrinker: bool) -> String {
        let campaign = Campaign::new(Sum { own_shrinker }).kernel("drops", true, || {
            |input: &Payload, _: &mut _| Ok(input.0.iter().filter(|&&b| b < 200).map(|&b| u64::from(b)).sum())
        });
        let report = campaign.run(&RunOptions {
            cases: 20,
            max_failures: 1,
            ..RunOptions::default()
        });
        assert!(!report.failures.is_empty(), "the bug is found");
        report.failures[0].minimized_hex.concat()
    }

    #[test]
    fn failures_shrink_with_arbitrary_shrink() {
        // One byte, the smallest quickcheck's u8 shrink reaches that is
        // still dropped: 200 (shrinking halves toward 0, then steps by one).
        assert_eq!(reproducer(true), "c8");
        assert!(reproducer(false).len() > 2, "without it the case stays whole");
    }
}
