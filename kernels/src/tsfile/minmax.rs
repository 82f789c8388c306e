//! The least and greatest of a slice of integers, for checking a page's
//! statistics against its decoded values. It runs over every value such a
//! check covers, so on x86_64 with AVX2 the same loop is compiled for it
//! (four 64-bit lanes compared and blended at a time), where the baseline's
//! scalar loop branches, and mispredicts, on values such as a random walk.

/// `(min, max)` of `v`, `None` when it is empty.
pub(crate) fn min_max<T: Copy + Ord>(v: &[T]) -> Option<(T, T)> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was just detected on this CPU.
        return unsafe { min_max_avx2(v) };
    }
    min_max_portable(v)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn min_max_avx2<T: Copy + Ord>(v: &[T]) -> Option<(T, T)> {
    min_max_portable(v)
}

#[inline(always)]
fn min_max_portable<T: Copy + Ord>(v: &[T]) -> Option<(T, T)> {
    let (&first, rest) = v.split_first()?;
    Some(rest.iter().fold((first, first), |(lo, hi), &x| (lo.min(x), hi.max(x))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-line oracle.
    fn naive<T: Copy + Ord>(v: &[T]) -> Option<(T, T)> {
        Some((*v.iter().min()?, *v.iter().max()?))
    }

    #[test]
    fn every_length_and_position_of_the_extremes() {
        // Lengths around the vector widths (4 lanes, unrolled), the extremes
        // at every position, so a lane or tail left out shows (fewer under
        // Miri, which interprets every step).
        let lengths = if cfg!(miri) { 20 } else { 40 };
        for n in 0..lengths {
            for at in 0..n.max(1) {
                let mut v: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 13 - 6).collect();
                if n > 0 {
                    v[at] = i64::MIN;
                    v[(at * 5 + 3) % n] = i64::MAX;
                }
                assert_eq!(min_max(&v), naive(&v), "{v:?}");
                assert_eq!(min_max_portable(&v), naive(&v), "{v:?}");
                let narrow: Vec<i32> = v
                    .iter()
                    .map(|&x| x.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
                    .collect();
                assert_eq!(min_max(&narrow), naive(&narrow), "{narrow:?}");
            }
        }
    }

    #[test]
    fn a_random_walk() {
        let mut x = 0i64;
        let v: Vec<i64> = (0..1000u64)
            .map(|i| {
                x += (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) as i64 - 8;
                x
            })
            .collect();
        assert_eq!(min_max(&v), naive(&v));
    }
}
