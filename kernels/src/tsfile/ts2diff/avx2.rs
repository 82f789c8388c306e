//! `ts2diff/avx2`: eight deltas of a block per step, for bit widths 1..=25.
//!
//! A group of eight W-bit deltas is exactly W bytes. One `pshufb` gathers, for
//! each delta, the four big-endian bytes that hold it into a 32-bit lane (the
//! first four deltas from a 16-byte load at the group's start, the last four
//! from one at byte `4W / 8`), one variable shift and a mask isolate it. The
//! running sum of the eight raw deltas is taken in 32-bit lanes (they cannot
//! overflow: 8 * (2^25 - 1) < 2^32), off the carried chain; each output is
//! then `base_j + prefix_j`, where `base_j = acc + (j + 1) * min` is kept in a
//! vector and advanced by `8 * min + prefix_7` once per group. So the chain
//! carried from group to group is one vector add per eight values.
//!
//! Wider blocks, width 0, and each block's last partial group go through the
//! portable fused kernel, continuing from the last value written here.

use super::super::{DecodeError, Done, IntLane};
use crate::probe::{NoProbe, Probe, Step};
use core::arch::x86_64::*;

/// Widths handled here: a delta and its bit offset inside its first byte
/// (0..=7) must fit one 32-bit lane.
const MAX_WIDTH: u32 = 25;

pub fn available() -> bool {
    is_x86_feature_detected!("avx2")
}

/// The per-width `pshufb` control and shift counts, built at compile time.
struct Layout<const W: u32>;

impl<const W: u32> Layout<W> {
    /// For delta j, the indices of its four bytes, most significant first in
    /// the lane's top byte. Deltas 4..8 index the second load (the upper
    /// 128-bit half, which `pshufb` reads on its own).
    const SHUFFLE: [u8; 32] = shuffle(W);
    /// Right shift that brings delta j's last bit to bit 0 of its lane.
    const SHIFT: [u32; 8] = shifts(W);
}

const fn shuffle(w: u32) -> [u8; 32] {
    let mut table = [0u8; 32];
    let upper = (4 * w / 8) as usize;
    let mut j = 0;
    while j < 8 {
        let first = j * w as usize / 8;
        let at = if j < 4 { first } else { first - upper };
        // Little-endian lane: its top byte is the stream's first.
        table[4 * j] = (at + 3) as u8;
        table[4 * j + 1] = (at + 2) as u8;
        table[4 * j + 2] = (at + 1) as u8;
        table[4 * j + 3] = at as u8;
        j += 1;
    }
    table
}

const fn shifts(w: u32) -> [u32; 8] {
    let mut table = [0u32; 8];
    let mut j = 0;
    while j < 8 {
        table[j] = 32 - (j as u32 * w) % 8 - w;
        j += 1;
    }
    table
}

/// Decode a page (same contract as [`super::decode_fused_into`]). Without
/// AVX2 it runs the portable fused kernel, so forcing it is always safe.
pub fn decode_into<T: IntLane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    decode_probed::<NoProbe, T>(page, out)
}

/// [`decode_into`] reporting the deltas its AVX2 groups decode to `P`.
fn decode_probed<P: Probe, T: IntLane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    if !available() {
        return super::decode_fused_into(page, out);
    }
    // Lanes of other widths (a caller's own `IntLane`) take the portable
    // kernel too.
    if !matches!(T::BITS, 32 | 64) {
        return super::decode_fused_into(page, out);
    }
    // SAFETY: AVX2 is present (checked just above).
    unsafe { decode_avx2::<P, T>(page, out) }
}

#[target_feature(enable = "avx2")]
unsafe fn decode_avx2<P: Probe, T: IntLane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    super::decode_blocks(page, out, |packed, width, deltas: &mut [T], first, min| {
        let (groups, partial) = fast_groups(packed.len(), width, deltas.len());
        let done = groups * 8 + partial;
        if done > 0 {
            // SAFETY: AVX2 is enabled on this function; `fast_groups` keeps
            // every group's loads inside `packed` and `done <=
            // deltas.len()`.
            unsafe { dispatch(packed, width, groups, partial, deltas, first, min) };
            P::count(Step::Avx2Deltas, done);
        }
        if done < deltas.len() {
            let acc = if done == 0 { first } else { deltas[done - 1] };
            super::fused_block(&packed[groups * width as usize..], width, &mut deltas[done..], acc, min);
        }
    })
}

/// Whole groups this kernel takes, and the lanes it keeps of one more,
/// partial group (the block's last, when its loads still fit: the page goes
/// on after the block). Both 16-byte loads of group g start at most `W`
/// bytes after `g * W`, so `g * W + W + 16 <= len` keeps them in bounds.
#[inline(always)]
fn fast_groups(len: usize, width: u32, n: usize) -> (usize, usize) {
    if width == 0 || width > MAX_WIDTH || len < 16 + width as usize {
        return (0, 0);
    }
    let w = width as usize;
    // The usual case, without a division: every group's loads fit (the
    // page goes on after this block).
    if n.div_ceil(8) * w + 16 <= len {
        return (n / 8, n % 8);
    }
    // Not every group fits, so neither does the last: whole groups only,
    // as many as fit (which is fewer than the block has, so no bound by n).
    let fit = (len - 16) / w;
    debug_assert!(fit <= n / 8);
    (fit, 0)
}

macro_rules! widths {
    ($width:expr, $call:ident, [$($w:literal)*]) => {
        match $width {
            $($w => $call!($w),)*
            _ => unreachable!("fast_groups admits widths 1..=MAX_WIDTH only"),
        }
    };
}

/// # Safety
/// AVX2 present; the loads of `groups` groups, and of one more when
/// `partial` is not 0, inside `packed`; `groups * 8 + partial <=
/// deltas.len()`; `T` is 32 or 64 bits wide.
#[inline(always)]
unsafe fn dispatch<T: IntLane>(
    packed: &[u8],
    width: u32,
    groups: usize,
    partial: usize,
    deltas: &mut [T],
    first: T,
    min: T,
) {
    debug_assert!(groups * 8 + partial <= deltas.len() && partial < 8);
    macro_rules! call {
        ($w:literal) => {
            // SAFETY: the caller's contract, with W = width.
            unsafe {
                if T::BITS == 64 {
                    groups64::<$w>(
                        packed,
                        groups,
                        partial,
                        deltas.as_mut_ptr().cast(),
                        first.to_bits(),
                        min.to_bits(),
                    )
                } else {
                    groups32::<$w>(
                        packed,
                        groups,
                        partial,
                        deltas.as_mut_ptr().cast(),
                        first.to_bits() as u32,
                        min.to_bits() as u32,
                    )
                }
            }
        };
    }
    widths!(width, call, [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25])
}

/// The eight raw deltas of the group at `src`, and their running sum.
///
/// # Safety
/// AVX2 present; `src .. src + W + 16` readable.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn group_prefix<const W: u32>(src: *const u8, shuffle: __m256i, shift: __m256i, mask: __m256i) -> __m256i {
    // SAFETY: the caller guarantees both 16-byte loads are readable
    // (`4W / 8 + 16 <= W + 16`); `loadu` has no alignment needs.
    let (lo, hi) = unsafe {
        (
            _mm_loadu_si128(src.cast()),
            _mm_loadu_si128(src.add((4 * W / 8) as usize).cast()),
        )
    };
    let bytes = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
    let raw = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(bytes, shuffle), shift), mask);
    // Running sum inside each 128-bit half, then the lower half's total
    // carried into the upper half.
    let mut sum = _mm256_add_epi32(raw, _mm256_slli_si256::<4>(raw));
    sum = _mm256_add_epi32(sum, _mm256_slli_si256::<8>(sum));
    let low_total = _mm256_shuffle_epi32::<0xFF>(sum);
    _mm256_add_epi32(sum, _mm256_permute2x128_si256::<0x08>(low_total, low_total))
}

/// The per-width `pshufb` control, shift counts and value mask, in vectors.
#[inline]
#[target_feature(enable = "avx2")]
fn gather_vectors<const W: u32>() -> (__m256i, __m256i, __m256i) {
    // SAFETY: the tables are 32 bytes; `loadu` has no alignment needs.
    let (shuffle, shift) = unsafe {
        (
            _mm256_loadu_si256(Layout::<W>::SHUFFLE.as_ptr().cast()),
            _mm256_loadu_si256(Layout::<W>::SHIFT.as_ptr().cast()),
        )
    };
    (shuffle, shift, _mm256_set1_epi32(((1u64 << W) - 1) as i32))
}

/// Eight 32-bit running sums as two vectors of four u64.
#[inline]
#[target_feature(enable = "avx2")]
fn widen(sum: __m256i) -> (__m256i, __m256i) {
    (
        _mm256_cvtepu32_epi64(_mm256_castsi256_si128(sum)),
        _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(sum)),
    )
}

/// # Safety
/// AVX2 present; `(groups + (partial > 0)) * W + 16 <= packed.len()`; `out`
/// valid for `groups * 8 + partial` writes of u64; `partial < 8`.
#[target_feature(enable = "avx2")]
unsafe fn groups64<const W: u32>(packed: &[u8], groups: usize, partial: usize, out: *mut u64, first: u64, min: u64) {
    debug_assert!((groups + (partial > 0) as usize) * W as usize + 16 <= packed.len());
    let (shuffle, shift, mask) = gather_vectors::<W>();
    let base = |k: u64| first.wrapping_add(min.wrapping_mul(k)) as i64;
    let mut base_lo = _mm256_set_epi64x(base(4), base(3), base(2), base(1));
    let mut base_hi = _mm256_set_epi64x(base(8), base(7), base(6), base(5));
    let min8 = _mm256_set1_epi64x(min.wrapping_mul(8) as i64);
    for g in 0..groups {
        // SAFETY: `g * W + W + 16 <= packed.len()` by the caller's bound.
        let sum = unsafe { group_prefix::<W>(packed.as_ptr().add(g * W as usize), shuffle, shift, mask) };
        let (sum_lo, sum_hi) = widen(sum);
        // SAFETY: `out` holds `groups * 8` values; unaligned stores.
        unsafe {
            _mm256_storeu_si256(out.add(8 * g).cast(), _mm256_add_epi64(base_lo, sum_lo));
            _mm256_storeu_si256(out.add(8 * g + 4).cast(), _mm256_add_epi64(base_hi, sum_hi));
        }
        let step = _mm256_add_epi64(min8, _mm256_permute4x64_epi64::<0xFF>(sum_hi));
        base_lo = _mm256_add_epi64(base_lo, step);
        base_hi = _mm256_add_epi64(base_hi, step);
    }
    if partial > 0 {
        // SAFETY: the loads of group `groups` are in bounds by the caller's
        // bound; its lanes past `partial` are decoded from bits that are not
        // this block's and dropped.
        let sum = unsafe { group_prefix::<W>(packed.as_ptr().add(groups * W as usize), shuffle, shift, mask) };
        let mut lanes = [0u64; 8];
        // SAFETY: `lanes` holds 8 values; unaligned stores. `out` has room
        // for `partial` more values after the whole groups.
        let (sum_lo, sum_hi) = widen(sum);
        unsafe {
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), _mm256_add_epi64(base_lo, sum_lo));
            _mm256_storeu_si256(lanes.as_mut_ptr().add(4).cast(), _mm256_add_epi64(base_hi, sum_hi));
            core::ptr::copy_nonoverlapping(lanes.as_ptr(), out.add(8 * groups), partial);
        }
    }
}

/// # Safety
/// As [`groups64`], with `out` valid for `groups * 8 + partial` writes of
/// u32.
#[target_feature(enable = "avx2")]
unsafe fn groups32<const W: u32>(packed: &[u8], groups: usize, partial: usize, out: *mut u32, first: u32, min: u32) {
    debug_assert!((groups + (partial > 0) as usize) * W as usize + 16 <= packed.len());
    let (shuffle, shift, mask) = gather_vectors::<W>();
    let base = |k: u32| first.wrapping_add(min.wrapping_mul(k)) as i32;
    let mut bases = _mm256_setr_epi32(base(1), base(2), base(3), base(4), base(5), base(6), base(7), base(8));
    let min8 = _mm256_set1_epi32(min.wrapping_mul(8) as i32);
    let last = _mm256_set1_epi32(7);
    for g in 0..groups {
        // SAFETY: as in `groups64`.
        let sum = unsafe { group_prefix::<W>(packed.as_ptr().add(g * W as usize), shuffle, shift, mask) };
        // SAFETY: `out` holds `groups * 8` values; an unaligned store.
        unsafe { _mm256_storeu_si256(out.add(8 * g).cast(), _mm256_add_epi32(bases, sum)) };
        let step = _mm256_add_epi32(min8, _mm256_permutevar8x32_epi32(sum, last));
        bases = _mm256_add_epi32(bases, step);
    }
    if partial > 0 {
        // SAFETY: as in `groups64`.
        let sum = unsafe { group_prefix::<W>(packed.as_ptr().add(groups * W as usize), shuffle, shift, mask) };
        let mut lanes = [0u32; 8];
        // SAFETY: as in `groups64`.
        unsafe {
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), _mm256_add_epi32(bases, sum));
            core::ptr::copy_nonoverlapping(lanes.as_ptr(), out.add(8 * groups), partial);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Counting;

    /// The kernel is offered exactly where the CPU has AVX2 (its other tests
    /// skip without it, so a detection that always said no would leave them
    /// passing with nothing checked).
    #[test]
    fn offered_exactly_where_the_cpu_has_avx2() {
        assert_eq!(available(), std::arch::is_x86_feature_detected!("avx2"));
        let listed = super::super::IMPLEMENTATIONS_I64
            .iter()
            .find(|i| i.name == "ts2diff/avx2")
            .expect("registered");
        assert_eq!(listed.is_available(), available());
    }

    /// The tables against a direct reading of the layout: every delta's
    /// bits sit inside the four bytes the shuffle picks, at the shift given.
    #[test]
    fn layout_tables_place_every_delta() {
        fn check<const W: u32>() {
            let upper = (4 * W / 8) as usize;
            for j in 0..8usize {
                let bit = j * W as usize;
                let load = if j < 4 { 0 } else { upper };
                let top = Layout::<W>::SHUFFLE[4 * j + 3] as usize + load;
                assert_eq!(top, bit / 8, "width {W} delta {j}: first byte");
                for k in 0..4 {
                    assert_eq!(Layout::<W>::SHUFFLE[4 * j + k] as usize + load, top + 3 - k);
                    assert!(Layout::<W>::SHUFFLE[4 * j + k] < 16, "pshufb index stays in its half");
                }
                let shift = Layout::<W>::SHIFT[j];
                assert_eq!(32 - shift - W, (bit % 8) as u32, "width {W} delta {j}: shift");
            }
        }
        macro_rules! all {
            ($($w:literal)*) => { $(check::<$w>();)* };
        }
        all!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
    }

    /// A block built by hand (the layout of the format notes): header, then
    /// the deltas packed MSB first.
    fn block(word: usize, first: u64, min: u64, width: u32, xs: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(xs.len() as u32).to_be_bytes());
        out.extend_from_slice(&width.to_be_bytes());
        out.extend_from_slice(&min.to_be_bytes()[8 - word..]);
        out.extend_from_slice(&first.to_be_bytes()[8 - word..]);
        let mut packed = vec![0u8; (xs.len() * width as usize).div_ceil(8)];
        for (i, &x) in xs.iter().enumerate() {
            for b in 0..width as usize {
                if (x >> (width as usize - 1 - b)) & 1 == 1 {
                    let bit = i * width as usize + b;
                    packed[bit / 8] |= 0x80 >> (bit % 8);
                }
            }
        }
        out.extend_from_slice(&packed);
        out
    }

    /// Decode `page` as `T` lanes: every value as built (its low `T::BITS`
    /// bits), the whole page consumed, nothing written past the values.
    fn check_page<T: IntLane + std::fmt::Debug>(page: &[u8], want: &[u64], what: &str) {
        let mask = if T::BITS == 64 { u64::MAX } else { (1 << T::BITS) - 1 };
        let mut out = vec![T::default(); want.len() + 2];
        let done = decode_probed::<Counting, T>(page, &mut out).expect(what);
        assert_eq!(
            done,
            Done {
                values: want.len(),
                consumed: page.len()
            },
            "{what}"
        );
        let got: Vec<u64> = out[..want.len()].iter().map(|v| v.to_bits()).collect();
        let want: Vec<u64> = want.iter().map(|v| v & mask).collect();
        assert_eq!(got, want, "{what}");
        assert!(
            out[want.len()..].iter().all(|v| v.to_bits() == 0),
            "{what}: wrote past the values"
        );
    }

    /// A lane of another width (here 16 bits, as a caller could define:
    /// TsFile itself has none) goes to the portable kernel, whatever that
    /// makes of it; the AVX2 groups, which store 32- or 64-bit lanes, never
    /// see it.
    #[test]
    fn other_lane_widths_take_the_portable_kernel() {
        #[derive(Clone, Copy, Default, Debug, PartialEq)]
        struct Lane16(u16);
        impl crate::tsfile::Lane for Lane16 {
            const BITS: u32 = 16;
            fn from_bits(v: u64) -> Self {
                Lane16(v as u16)
            }
        }
        impl IntLane for Lane16 {
            fn to_bits(self) -> u64 {
                self.0 as u64
            }
            fn wrapping_add(self, other: Self) -> Self {
                Lane16(self.0.wrapping_add(other.0))
            }
        }
        let xs: Vec<u64> = (0..40).map(|k| (k * 7) % 32).collect();
        // Two blocks, so the first one's groups all have room to load (as
        // 32-bit lanes; as 16-bit ones the header reads differently, which
        // does not matter here).
        let two_blocks = |word| [block(word, 65_530, 3, 5, &xs), block(word, 1, 2, 5, &xs)].concat();
        let page = two_blocks(2);
        let mut want = vec![Lane16::default(); 82];
        let wanted = super::super::decode_fused_into(&page, &mut want).unwrap();
        let mut got = vec![Lane16::default(); 82];
        Counting::reset();
        assert_eq!(decode_probed::<Counting, _>(&page, &mut got), Ok(wanted));
        assert_eq!(got, want);
        assert_eq!(Counting::steps(Step::Avx2Deltas), 0);
        // The same blocks in 32-bit lanes do reach the AVX2 groups.
        if available() {
            decode_probed::<Counting, _>(&two_blocks(4), &mut vec![0u32; 82]).unwrap();
            assert!(Counting::steps(Step::Avx2Deltas) > 0);
        }
    }

    /// Pages of one to three blocks, for every width around the kernel's
    /// range and delta counts that end on and off a group of eight, with
    /// extreme first values and minimum deltas (the sums wrap), checked
    /// against the values the blocks were built from.
    #[test]
    fn matches_the_values_built_for_every_width_and_group_split() {
        if !available() {
            eprintln!("skipped: no AVX2 on this CPU");
            return;
        }
        let mut next = crate::xorshift(0x2545_F491_4F6C_DD1Du64);
        let counts: &[usize] = if cfg!(miri) {
            &[0, 7, 9, 17]
        } else {
            &[0, 1, 7, 8, 9, 15, 16, 17, 63, 127, 128]
        };
        let widths: Vec<u32> = if cfg!(miri) {
            vec![1, 5, 8, 13, 25, 26]
        } else {
            (0..=28).chain([32, 64]).collect()
        };
        let extremes = [0u64, 1, u64::MAX, 1 << 63, (1 << 63) - 1, 0x8000_0000, 0x7FFF_FFFF];
        for &word in &[4usize, 8] {
            for &width in &widths {
                if width > 8 * word as u32 {
                    continue;
                }
                for &n in counts {
                    for blocks in 1..=3 {
                        let mut page = Vec::new();
                        let mut want: Vec<u64> = Vec::new();
                        // Where each block's packed deltas start.
                        let mut packed_at = Vec::new();
                        for k in 0..blocks {
                            let first = if k == 0 { extremes[n % extremes.len()] } else { next() };
                            let min = extremes[(n + k + width as usize) % extremes.len()] ^ (next() & 0xF);
                            let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                            // All ones in one block: the widest prefix sums.
                            let xs: Vec<u64> = (0..n).map(|_| if k == 1 { mask } else { next() & mask }).collect();
                            packed_at.push(page.len() + 8 + 2 * word);
                            page.extend(block(word, first, min, width, &xs));
                            let mut v = first;
                            want.push(v);
                            for &x in &xs {
                                v = v.wrapping_add(min).wrapping_add(x);
                                want.push(v);
                            }
                        }
                        let what = format!("word {word} width {width} n {n} blocks {blocks}");
                        Counting::reset();
                        if word == 8 {
                            check_page::<i64>(&page, &want, &what);
                        } else {
                            check_page::<i32>(&page, &want, &what);
                        }
                        // Every group of eight deltas (a block's last,
                        // partial one too) whose two loads fit in the page
                        // is decoded here; only the rest go to the portable
                        // kernel.
                        let w = width as usize;
                        let fit = |at: usize| {
                            (0..n.div_ceil(8))
                                .filter(|g| at + g * w + w + 16 <= page.len())
                                .map(|g| (n - 8 * g).min(8))
                                .sum::<usize>()
                        };
                        let expected = if (1..=MAX_WIDTH).contains(&width) {
                            packed_at.iter().map(|&at| fit(at)).sum()
                        } else {
                            0
                        };
                        assert_eq!(
                            Counting::steps(Step::Avx2Deltas),
                            expected,
                            "{what}: deltas decoded by the AVX2 groups"
                        );
                    }
                }
            }
        }
    }
}
