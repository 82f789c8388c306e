//! Minimizing a failing case into a small reproducer.

use std::time::Instant;

use crate::campaign::{AllowedDifference, Implementation};
use crate::judge::{first_mismatch, Mismatch};
use crate::spec::{Case, Spec};

/// Greedy minimization: keep taking the first smaller variant (a step
/// dropped, or one step replaced by one of [`Spec::shrink`]'s variants) that
/// still fails, until none does, `budget` re-runs are spent or `deadline`
/// has passed (a subject that crashes costs a process start per re-run).
/// A minimized case and how it still fails (`None`: it does not fail on
/// its own).
pub(crate) type Minimised<I> = (Case<I>, Option<Mismatch>);

pub(crate) fn minimise<S: Spec>(
    spec: &S,
    case: &Case<S::Input>,
    imp: &Implementation<S>,
    allowed: &[AllowedDifference<S>],
    budget: usize,
    deadline: Instant,
) -> Minimised<S::Input> {
    let mut current = case.clone();
    let mut last = first_mismatch(spec, &current, imp, allowed);
    let mut tries = 0;
    'outer: loop {
        for candidate in smaller(spec, &current) {
            tries += 1;
            if tries > budget || Instant::now() >= deadline {
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
