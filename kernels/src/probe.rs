//! Probes: how a test sees which path a kernel took.
//!
//! Some fast paths produce exactly what their fallback would, so a guard
//! that sends too much work to the fallback changes speed, not values: only
//! a count shows it. A kernel with such a path takes a `P: Probe` type
//! parameter and reports each step to `P::count`. The public entry points
//! use [`NoProbe`], whose empty `count` compiles to nothing, so the shipped
//! code has no counter in its loops; tests instantiate the same code with a
//! probe that counts.

/// A path whose use a test checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    #[cfg(feature = "qwp")]
    /// qwp: four short delta-of-deltas decoded in one step.
    QwpFourAtATime,
    #[cfg(feature = "tsfile")]
    /// Bit-unpacking: a group of 8 values decoded straight from the input.
    GroupFromInput,
    #[cfg(feature = "tsfile")]
    /// Bit-unpacking: a zero-padded copy made for the last groups.
    PaddedCopy,
    #[cfg(feature = "tsfile")]
    /// Gorilla: a value produced by the reuse loop.
    GorillaReuseLoop,
    #[cfg(feature = "tsfile")]
    /// Gorilla: a run of `0` controls taken in one step by the checked path.
    GorillaZeroRun,
    #[cfg(feature = "tsfile")]
    /// Gorilla: a value whose bits the checked path took from the 128-bit window.
    GorillaWideExtract,
    #[cfg(all(feature = "tsfile", target_arch = "x86_64"))]
    /// TS_2DIFF: deltas decoded by the AVX2 groups.
    Avx2Deltas,
    #[cfg(feature = "tsfile")]
    /// ZIGZAG: a value decoded by a kernel's own reader, not the byte loop.
    ZigzagFastValue,
    #[cfg(feature = "tsfile")]
    /// ZIGZAG: a run of one length tried after a varint of the byte loop.
    ZigzagRunTried,
    #[cfg(feature = "tsfile")]
    /// RLBE: a value of a float run of zero differences, filled.
    RlbeZeroRun,
}

/// How many kinds of [`Step`] there are (the counters' length).
#[cfg(test)]
const STEPS: usize = 12;

/// Receives the steps a kernel takes.
pub(crate) trait Probe {
    /// `n` more steps of kind `step` were taken.
    fn count(step: Step, n: usize);
}

/// The probe of the shipped code: counts nothing, costs nothing.
pub(crate) struct NoProbe;

impl Probe for NoProbe {
    #[inline(always)]
    fn count(_: Step, _: usize) {}
}

/// A probe that counts per thread, so tests running in parallel do not see
/// each other's steps.
#[cfg(test)]
pub(crate) struct Counting;

#[cfg(test)]
thread_local! {
    static COUNTS: std::cell::RefCell<[usize; STEPS]> = const { std::cell::RefCell::new([0; STEPS]) };
}

#[cfg(test)]
impl Probe for Counting {
    fn count(step: Step, n: usize) {
        COUNTS.with(|counts| counts.borrow_mut()[step as usize] += n);
    }
}

#[cfg(test)]
impl Counting {
    /// Forget this thread's counts.
    pub(crate) fn reset() {
        COUNTS.with(|counts| *counts.borrow_mut() = [0; STEPS]);
    }

    /// Steps of kind `step` taken on this thread since the last reset.
    pub(crate) fn steps(step: Step) -> usize {
        COUNTS.with(|counts| counts.borrow()[step as usize])
    }
}

#[cfg(all(test, feature = "tsfile"))]
mod tests {
    use super::*;

    #[test]
    fn counting_adds_up_per_step_and_resets() {
        Counting::reset();
        Counting::count(Step::PaddedCopy, 2);
        Counting::count(Step::PaddedCopy, 3);
        Counting::count(Step::GorillaZeroRun, 1);
        assert_eq!(Counting::steps(Step::PaddedCopy), 5);
        assert_eq!(Counting::steps(Step::GorillaZeroRun), 1);
        assert_eq!(Counting::steps(Step::GroupFromInput), 0);
        Counting::reset();
        assert_eq!(Counting::steps(Step::PaddedCopy), 0);
        NoProbe::count(Step::PaddedCopy, 7);
        assert_eq!(Counting::steps(Step::PaddedCopy), 0);
    }
}
