//! Minimizing a failing case into a small reproducer.

use std::cell::Cell;
use std::time::Instant;

use crate::campaign::{AllowedDifference, Implementation};
use crate::judge::{first_mismatch, Mismatch};
use crate::spec::{Case, CaseRng, Category, Probe, Spec};

/// A minimized case and how it still fails (`None`: it does not fail on
/// its own).
pub(crate) type Minimised<I> = (Case<I>, Option<Mismatch>);

/// Where a failing case came from: its category and generator call, with
/// the call's random source rebuilt, for the category's own shrinker.
pub(crate) struct Origin<'a, I> {
    pub category: &'a Category<I>,
    pub rng: CaseRng,
    pub index: u64,
    pub sub_index: usize,
}

/// Minimization: first the category's own shrinker, if it has one, then
/// greedily: keep taking the first smaller variant (a step dropped, or one
/// step replaced by one of [`Spec::shrink`]'s variants) that still fails,
/// until none does, `budget` re-runs are spent or `deadline` has passed
/// (a subject that crashes costs a process start per re-run). The budget
/// and deadline are shared by both.
pub(crate) fn minimise<S: Spec>(
    spec: &S,
    case: &Case<S::Input>,
    origin: Option<Origin<'_, S::Input>>,
    imp: &Implementation<S>,
    allowed: &[AllowedDifference<S>],
    budget: usize,
    deadline: Instant,
) -> Minimised<S::Input> {
    let tries = Cell::new(0usize);
    // Counts the re-run it allows, so a shrinker that ignores `spent`
    // still gets no more than the budget.
    let spend = || {
        tries.set(tries.get() + 1);
        tries.get() > budget || Instant::now() >= deadline
    };
    let mut current = case.clone();
    let mut last = first_mismatch(spec, &current, imp, allowed);
    if let Some(mut origin) = origin {
        let spent = || tries.get() >= budget || Instant::now() >= deadline;
        let mut fails = |candidate: &Case<S::Input>| {
            if spend() {
                return false;
            }
            match first_mismatch(spec, candidate, imp, allowed) {
                Some(m) => {
                    current = candidate.clone();
                    last = Some(m);
                    true
                }
                None => false,
            }
        };
        let mut probe = Probe::new(origin.index, origin.sub_index, case, &mut fails, &spent);
        origin.category.shrink_with_own(&mut origin.rng, &mut probe);
    }
    'outer: loop {
        for candidate in smaller(spec, &current) {
            if spend() {
                break 'outer;
            }
            if let Some(m) = first_mismatch(spec, &candidate, imp, allowed) {
                current = candidate;
                last = Some(m);
                continue 'outer;
            }
        }
        break;
    }
    (current, last)
}

fn smaller<S: Spec>(spec: &S, case: &Case<S::Input>) -> Vec<Case<S::Input>> {
    let mut candidates = Vec::new();
    if case.steps.len() > 1 {
        for drop in 0..case.steps.len() {
            let mut steps = case.steps.clone();
            steps.remove(drop);
            candidates.push(Case { steps });
        }
    }
    for (k, step) in case.steps.iter().enumerate() {
        for variant in spec.shrink(step) {
            let mut steps = case.steps.clone();
            steps[k] = variant;
            candidates.push(Case { steps });
        }
    }
    candidates
}
