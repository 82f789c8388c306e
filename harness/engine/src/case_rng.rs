//! The random source handed to generators, the same on every word size.
//!
//! rand 0.8 samples a `usize` range with `next_u32` on 32-bit targets and
//! `next_u64` on 64-bit ones: drawing through it, one seed would generate
//! other cases on i686 than on x86_64, and every digest would differ.
//! [`CaseRng`] is ChaCha8
//! behind a small API that draws only fixed-width integers: a `usize` or
//! `isize` range is drawn as a `u64` or `i64` range, exactly as a 64-bit
//! target draws it, and nothing word-sized ever reaches the stream.
//! `CaseRng` deliberately does not implement `rand::RngCore`, so
//! `rand::Rng`'s word-size-dependent methods cannot be reached through it:
//! a generator that needs something new adds it here.

use std::ops::{Range, RangeInclusive};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ChaCha8, seeded per generator call, with draws that do not depend on the
/// target's pointer width.
#[derive(Debug, Clone)]
pub struct CaseRng(ChaCha8Rng);

impl CaseRng {
    /// The source seeded with `seed` (32 bytes, as ChaCha takes them).
    pub fn from_seed(seed: [u8; 32]) -> Self {
        CaseRng(ChaCha8Rng::from_seed(seed))
    }

    /// The source seeded from one `u64` (tests and examples).
    pub fn seed_from_u64(seed: u64) -> Self {
        CaseRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A value uniformly drawn from `range` (`a..b` or `a..=b`). Panics on
    /// an empty range, as `rand::Rng::gen_range` does.
    pub fn gen_range<T: Draw, R: DrawRange<T>>(&mut self, range: R) -> T {
        let (low, high, inclusive) = range.bounds();
        T::draw_between(&mut self.0, low, high, inclusive)
    }

    /// A value of a fixed-width type drawn as `rand::Rng::gen` draws it:
    /// integers over their whole range, floats in `[0, 1)`, booleans fair.
    #[allow(clippy::should_implement_trait)]
    pub fn gen<T: DrawWhole>(&mut self) -> T {
        T::draw_whole(&mut self.0)
    }

    /// `true` with probability `p`.
    pub fn gen_bool(&mut self, p: f64) -> bool {
        self.0.gen_bool(p)
    }

    /// `true` with probability `numerator / denominator`.
    pub fn gen_ratio(&mut self, numerator: u32, denominator: u32) -> bool {
        self.0.gen_ratio(numerator, denominator)
    }

    /// Fill `dest` with random bytes.
    pub fn fill_bytes(&mut self, dest: &mut [u8]) {
        rand::RngCore::fill_bytes(&mut self.0, dest)
    }
}

/// A fixed-width type [`CaseRng::gen_range`] draws. `usize` and `isize`
/// are drawn through `u64` and `i64`.
pub trait Draw: Copy + Sized {
    #[doc(hidden)]
    fn draw_between(rng: &mut ChaCha8Rng, low: Self, high: Self, inclusive: bool) -> Self;
}

/// A range [`CaseRng::gen_range`] draws from: `a..b` or `a..=b`.
pub trait DrawRange<T> {
    #[doc(hidden)]
    fn bounds(self) -> (T, T, bool);
}

impl<T: Draw> DrawRange<T> for Range<T> {
    fn bounds(self) -> (T, T, bool) {
        (self.start, self.end, false)
    }
}

impl<T: Draw> DrawRange<T> for RangeInclusive<T> {
    fn bounds(self) -> (T, T, bool) {
        let (low, high) = self.into_inner();
        (low, high, true)
    }
}

macro_rules! draw_fixed {
    ($($t:ty),*) => {$(
        impl Draw for $t {
            fn draw_between(rng: &mut ChaCha8Rng, low: Self, high: Self, inclusive: bool) -> Self {
                if inclusive { rng.gen_range(low..=high) } else { rng.gen_range(low..high) }
            }
        }
    )*};
}
draw_fixed!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, f32, f64);

macro_rules! draw_word {
    ($word:ty, $fixed:ty) => {
        impl Draw for $word {
            fn draw_between(rng: &mut ChaCha8Rng, low: Self, high: Self, inclusive: bool) -> Self {
                let drawn = <$fixed>::draw_between(rng, low as $fixed, high as $fixed, inclusive);
                <$word>::try_from(drawn).expect("a value between two words is a word")
            }
        }
    };
}
draw_word!(usize, u64);
draw_word!(isize, i64);

/// A fixed-width type [`CaseRng::gen`] draws whole.
pub trait DrawWhole: Sized {
    #[doc(hidden)]
    fn draw_whole(rng: &mut ChaCha8Rng) -> Self;
}

macro_rules! draw_whole {
    ($($t:ty),*) => {$(
        impl DrawWhole for $t {
            fn draw_whole(rng: &mut ChaCha8Rng) -> Self {
                rng.gen()
            }
        }
    )*};
}
draw_whole!(bool, u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

/// Choosing from and shuffling slices with a [`CaseRng`]. rand 0.8 draws
/// slice indices below 2^32 as `u32` on every target, so these keep its
/// streams.
pub trait SliceDraw {
    /// The element type.
    type Item;
    /// A uniformly chosen element, or `None` for an empty slice.
    fn choose(&self, rng: &mut CaseRng) -> Option<&Self::Item>;
    /// Shuffle in place (Fisher-Yates).
    fn shuffle(&mut self, rng: &mut CaseRng);
}

impl<T> SliceDraw for [T] {
    type Item = T;

    fn choose(&self, rng: &mut CaseRng) -> Option<&T> {
        assert!(
            self.len() <= u32::MAX as usize,
            "slice too long to draw from on every word size"
        );
        rand::seq::SliceRandom::choose(self, &mut rng.0)
    }

    fn shuffle(&mut self, rng: &mut CaseRng) {
        assert!(
            self.len() <= u32::MAX as usize,
            "slice too long to draw from on every word size"
        );
        rand::seq::SliceRandom::shuffle(self, &mut rng.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream a 64-bit target's `rand` draws a `usize` range from:
    /// `u64` draws. Every word size must see these values.
    #[test]
    fn word_ranges_draw_as_sixty_four_bit_targets_do() {
        let mut ours = CaseRng::seed_from_u64(7);
        let mut sixty_four = ChaCha8Rng::seed_from_u64(7);
        for bound in [1usize, 2, 3, 7, 100, 65_537, 1 << 20, i32::MAX as usize] {
            let drawn: usize = ours.gen_range(0..bound);
            assert_eq!(drawn as u64, sixty_four.gen_range(0..bound as u64));
            let drawn: usize = ours.gen_range(1..=bound);
            assert_eq!(drawn as u64, sixty_four.gen_range(1..=bound as u64));
            let drawn: isize = ours.gen_range(-(bound as isize)..bound as isize);
            assert_eq!(drawn as i64, sixty_four.gen_range(-(bound as i64)..bound as i64));
        }
    }

    /// Pinned values: the first draws of seed 7, as rand draws them on
    /// x86_64 (so the committed golden digests hold). A 32-bit target fails
    /// here if a word-sized draw reaches the stream.
    #[test]
    fn first_draws_of_seed_seven_are_pinned() {
        let mut rng = CaseRng::seed_from_u64(7);
        let drawn: Vec<u64> = vec![
            rng.gen_range(0..1000usize) as u64,
            rng.gen_range(0..=1_000_000usize) as u64,
            rng.gen_range(-50..50isize) as u64,
            rng.gen::<u64>(),
            u64::from(rng.gen::<u8>()),
            *[10u64, 20, 30, 40].choose(&mut rng).unwrap(),
        ];
        assert_eq!(drawn, PINNED);
    }

    const PINNED: [u64; 6] = [157, 167_989, 20, 13_406_010_708_265_417_443, 136, 30];

    #[test]
    fn ranges_stay_inside_their_bounds() {
        let mut rng = CaseRng::seed_from_u64(1);
        for _ in 0..1000 {
            let v: usize = rng.gen_range(5..9);
            assert!((5..9).contains(&v));
            let v: isize = rng.gen_range(-3..=3);
            assert!((-3..=3).contains(&v));
            let v: f64 = rng.gen_range(0.5..1.5);
            assert!((0.5..1.5).contains(&v));
        }
        assert_eq!(rng.gen_range(4usize..=4), 4);
    }

    #[test]
    fn shuffle_keeps_the_elements_and_choose_of_empty_is_none() {
        let mut rng = CaseRng::seed_from_u64(3);
        let mut v: Vec<u32> = (0..50).collect();
        v.shuffle(&mut rng);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
        let empty: [u8; 0] = [];
        assert_eq!(empty.choose(&mut rng), None);
    }
}
