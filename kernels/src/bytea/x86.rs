//! x86_64 hex kernels: SSSE3 (32 digits per block), AVX2 (128) and
//! AVX-512BW (128). Each block is validated as all hex digits and packed; a
//! block that is not (whitespace, an error) goes to the scalar step machine,
//! which resumes the vector loop at the next pair boundary.
//!
//! Each kernel classifies every byte with two nibble-table lookups (see
//! `HIGH_NIBBLE_TABLE`), 16, 32 or 64 bytes per instruction. Pairs are
//! packed with `maddubs` (first digit * 16 + second digit) and narrowed
//! with `packus` and a permutation. AVX-512 uses the same tables, not range
//! compares into mask registers and `vpmovwb` narrowing: on AMD's Zen 4,
//! which splits every 512-bit operation in two, those cost more than the
//! AVX2 kernel's whole block.

use std::arch::x86_64::*;

use super::scalar;
use super::DecodeError;

pub fn ssse3_available() -> bool {
    is_x86_feature_detected!("ssse3")
}

pub fn avx2_available() -> bool {
    is_x86_feature_detected!("avx2")
}

pub fn avx512_available() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

/// Shared driver: `block(src, dst, tmp)` decodes the `IN` digits at `src`.
/// If they are all hex digits it stores the `IN / 2` bytes at `dst` and
/// returns `None`; otherwise it stores what it decoded at `tmp` (only the
/// part before the first non-digit means anything) and returns that
/// non-digit's offset in the block. The driver then keeps the valid whole
/// pairs before it, lets the scalar step machine take one step (skip one
/// whitespace byte, or decode / reject the pair) and goes back to vector
/// blocks: input with sparse whitespace stays mostly on the vector path.
/// Fewer than `IN` digits at the end are decoded by one more block that
/// overlaps the previous ones where it can (see the tail below).
/// Expanded inside each `#[target_feature]` function so the block code
/// inlines with the right features.
macro_rules! drive {
    ($digits:expr, $out:expr, $in:expr, $align:expr, $block:expr) => {{
        let digits: &[u8] = $digits;
        let out: &mut [u8] = $out;
        if out.len() < digits.len() / 2 {
            return Err(DecodeError::too_small());
        }
        let mut tmp = [0u8; $in / 2];
        let (mut i, mut o) = (0usize, 0usize);
        // Long inputs: one unaligned block first, then on from a pair
        // boundary inside it where the vector loads are aligned (possible
        // when the input starts at an even address), or else the stores are.
        // Loads and stores that split a cache line measured 4-10% slower on
        // Zen 3. If the first block is not all digits the loop below handles
        // it from the start.
        let in_skew = digits.as_ptr() as usize % $align;
        let pairs = if in_skew % 2 == 0 {
            ($align - in_skew) % $align / 2
        } else {
            ($align - out.as_ptr() as usize % $align) % $align
        };
        // The jump stays inside the first block (2 * pairs <= IN), which is
        // in bounds: digits.len() >= 8 * IN and out.len() >= digits.len() / 2.
        const { assert!(2 * ($align - 1) <= $in) };
        if digits.len() >= 8 * $in
            && pairs != 0
            && $block(digits.as_ptr(), out.as_mut_ptr(), tmp.as_mut_ptr()).is_none()
        {
            (i, o) = (2 * pairs, pairs);
        }
        loop {
            // The hot loop makes no calls, so the block's constants stay in
            // registers (every vector register is caller-saved).
            let mut bad = None;
            while i + $in <= digits.len() {
                // In bounds: i + IN <= digits.len(), and o <= i / 2 so
                // o + IN / 2 <= digits.len() / 2 <= out.len(); tmp holds IN / 2.
                debug_assert!(o + $in / 2 <= out.len());
                bad = $block(digits.as_ptr().add(i), out.as_mut_ptr().add(o), tmp.as_mut_ptr());
                if bad.is_some() {
                    break;
                }
                i += $in;
                o += $in / 2;
            }
            let Some(bad) = bad else { break };
            let pairs = bad / 2;
            out[o..o + pairs].copy_from_slice(&tmp[..pairs]);
            i += 2 * pairs;
            o += pairs;
            (i, o) = scalar::run(digits, i, out, o, i + 1)?;
        }
        // The tail (fewer than IN digits left, an even number): one last
        // block that ends at the input's end and overlaps digits already
        // decoded. If it is all digits, so is the overlap, whose pairs end
        // at `i` (a pair boundary) and were decoded to the `back` bytes
        // before `o`: the block rewrites them with the same values. If not
        // (whitespace or an error in the tail or the overlap), the scalar
        // step machine takes the tail.
        let left = digits.len() - i;
        let back = ($in - left) / 2;
        if left != 0 && left % 2 == 0 && digits.len() >= $in && back <= o {
            // In bounds: the block reads digits[len - IN..len] and may write
            // out[o - back..o + left / 2], with o + left / 2 <= len / 2.
            debug_assert!(o + left / 2 <= out.len());
            let block = digits.len() - $in;
            if $block(
                digits.as_ptr().add(block),
                out.as_mut_ptr().add(o - back),
                tmp.as_mut_ptr(),
            )
            .is_none()
            {
                return Ok(o + left / 2);
            }
        }
        scalar::run(digits, i, out, o, digits.len()).map(|(_, o)| o)
    }};
}

// Classification shared by SSSE3 and AVX2: two 16-entry tables, one indexed
// by the high nibble of the character and one by the low nibble, whose sum
// (wrapping) is below 0x80 exactly for a hex digit and then has the digit's
// value in its low four bits:
//
//   high nibble 3 ('0'..'?') adds 0x60, 4 and 6 (letters) add 0x79, the rest 0x80;
//   low nibble 0 adds 0x10, 1..=6 add themselves, 7..=9 add 0x10 more,
//   10..=15 add 0x20.
//
// So digits land on 0x60..=0x79 with the value in the low nibble, letters
// 1..=6 on 0x7A..=0x7F (value 10..=15), and everything else (':'..'?', '@',
// '`', 'G'.., bytes >= 0x80 whose low-table lookup is zeroed by `pshufb`)
// on 0x80 or above: the sign bit is the error mask, `movemask` finds the
// first bad byte. Six vector operations per vector, two of them lookups.
const HIGH_NIBBLE_TABLE: [u8; 16] = [
    0x80, 0x80, 0x80, 0x60, 0x79, 0x80, 0x79, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
];
const LOW_NIBBLE_TABLE: [u8; 16] = [
    0x10, 1, 2, 3, 4, 5, 6, 0x17, 0x18, 0x19, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
];

// ---------------------------------------------------------------- SSSE3

/// The classified sum of 16 bytes (see the tables above).
#[target_feature(enable = "ssse3")]
#[inline]
fn classify128(c: __m128i, high_table: __m128i, low_table: __m128i) -> __m128i {
    let high = _mm_and_si128(_mm_srli_epi16(c, 4), _mm_set1_epi8(0x0F));
    _mm_add_epi8(_mm_shuffle_epi8(high_table, high), _mm_shuffle_epi8(low_table, c))
}

/// # Safety
/// `src` readable for 32 bytes, `dst` and `tmp` writable for 16; SSSE3
/// available. See `drive!` for the contract.
#[target_feature(enable = "ssse3")]
#[inline]
unsafe fn block_ssse3(src: *const u8, dst: *mut u8, tmp: *mut u8) -> Option<usize> {
    // SAFETY: the caller guarantees 32 readable bytes; loadu has no alignment needs
    // (nor for the two 16-byte tables).
    let (a, b, high_table, low_table) = unsafe {
        (
            _mm_loadu_si128(src as *const __m128i),
            _mm_loadu_si128(src.add(16) as *const __m128i),
            _mm_loadu_si128(HIGH_NIBBLE_TABLE.as_ptr() as *const __m128i),
            _mm_loadu_si128(LOW_NIBBLE_TABLE.as_ptr() as *const __m128i),
        )
    };
    let (sa, sb) = (
        classify128(a, high_table, low_table),
        classify128(b, high_table, low_table),
    );
    let nibble = _mm_set1_epi8(0x0F);
    let weights = _mm_set1_epi16(0x0110);
    let packed = _mm_packus_epi16(
        _mm_maddubs_epi16(_mm_and_si128(sa, nibble), weights),
        _mm_maddubs_epi16(_mm_and_si128(sb, nibble), weights),
    );
    let bad = (_mm_movemask_epi8(sa) as u32) | ((_mm_movemask_epi8(sb) as u32) << 16);
    // Two stores rather than one to a selected address: a store whose
    // address waits for the classification measured 15-20% slower (AVX2).
    if bad == 0 {
        // SAFETY: the caller guarantees 16 writable bytes at dst.
        unsafe { _mm_storeu_si128(dst as *mut __m128i, packed) };
        return None;
    }
    // SAFETY: the caller guarantees 16 writable bytes at tmp.
    unsafe { _mm_storeu_si128(tmp as *mut __m128i, packed) };
    Some(bad.trailing_zeros() as usize)
}

#[target_feature(enable = "ssse3")]
unsafe fn ssse3_impl(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    // SAFETY: `drive!` passes pointers to 32 readable digits and 16 writable
    // output bytes (see its bounds comment); SSSE3 is enabled here.
    unsafe { drive!(digits, out, 32, 16, block_ssse3) }
}

pub fn decode_ssse3(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    assert!(ssse3_available(), "hex-ssse3 forced on a CPU without SSSE3");
    // SAFETY: SSSE3 is available (checked above).
    unsafe { ssse3_impl(digits, out) }
}

// ---------------------------------------------------------------- AVX2

/// The classified sum of 32 bytes (see the tables above; `pshufb` looks up
/// within each 128-bit lane, so the tables are broadcast to both).
#[target_feature(enable = "avx2")]
#[inline]
fn classify256(c: __m256i, high_table: __m256i, low_table: __m256i) -> __m256i {
    let high = _mm256_and_si256(_mm256_srli_epi16(c, 4), _mm256_set1_epi8(0x0F));
    _mm256_add_epi8(_mm256_shuffle_epi8(high_table, high), _mm256_shuffle_epi8(low_table, c))
}

/// 64 classified digits to 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn pack256(sa: __m256i, sb: __m256i) -> __m256i {
    let nibble = _mm256_set1_epi8(0x0F);
    let weights = _mm256_set1_epi16(0x0110);
    let pa = _mm256_maddubs_epi16(_mm256_and_si256(sa, nibble), weights);
    let pb = _mm256_maddubs_epi16(_mm256_and_si256(sb, nibble), weights);
    // packus works per 128-bit lane: [a0 b0 a1 b1] -> reorder to [a0 a1 b0 b1].
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(pa, pb))
}

/// # Safety
/// `src` readable for 128 bytes, `dst` and `tmp` writable for 64; AVX2
/// available. See `drive!` for the contract.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn block_avx2(src: *const u8, dst: *mut u8, tmp: *mut u8) -> Option<usize> {
    // SAFETY: the caller guarantees 128 readable bytes; loadu has no alignment
    // needs (nor the 16-byte table loads).
    let (a, b, c, d, high_table, low_table) = unsafe {
        (
            _mm256_loadu_si256(src as *const __m256i),
            _mm256_loadu_si256(src.add(32) as *const __m256i),
            _mm256_loadu_si256(src.add(64) as *const __m256i),
            _mm256_loadu_si256(src.add(96) as *const __m256i),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(HIGH_NIBBLE_TABLE.as_ptr() as *const __m128i)),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(LOW_NIBBLE_TABLE.as_ptr() as *const __m128i)),
        )
    };
    let sa = classify256(a, high_table, low_table);
    let sb = classify256(b, high_table, low_table);
    let sc = classify256(c, high_table, low_table);
    let sd = classify256(d, high_table, low_table);
    let (lo, hi) = (pack256(sa, sb), pack256(sc, sd));
    let mask = |v: __m256i| _mm256_movemask_epi8(v) as u32 as u128;
    // Stores to `dst` or `tmp` in separate branches: a store whose address
    // waits for the classification (a select) measured 15-20% slower.
    if _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(sa, sb), _mm256_or_si256(sc, sd))) == 0 {
        // SAFETY: the caller guarantees 64 writable bytes at dst.
        unsafe {
            _mm256_storeu_si256(dst as *mut __m256i, lo);
            _mm256_storeu_si256(dst.add(32) as *mut __m256i, hi);
        }
        return None;
    }
    let bad = mask(sa) | (mask(sb) << 32) | (mask(sc) << 64) | (mask(sd) << 96);
    // SAFETY: the caller guarantees 64 writable bytes at tmp.
    unsafe {
        _mm256_storeu_si256(tmp as *mut __m256i, lo);
        _mm256_storeu_si256(tmp.add(32) as *mut __m256i, hi);
    }
    Some(bad.trailing_zeros() as usize)
}

#[target_feature(enable = "avx2")]
unsafe fn avx2_impl(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    // SAFETY: `drive!` passes pointers to 128 readable digits and 64 writable
    // output bytes; AVX2 is enabled here.
    unsafe { drive!(digits, out, 128, 32, block_avx2) }
}

pub fn decode_avx2(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    assert!(avx2_available(), "hex-avx2 forced on a CPU without AVX2");
    // SAFETY: AVX2 is available (checked above).
    unsafe { avx2_impl(digits, out) }
}

// ---------------------------------------------------------------- AVX-512BW
//
// The AVX-512 intrinsics are stable since Rust 1.89 (the workspace's rust-version).

/// The classified sum of 64 bytes, as [`classify256`] (`vpshufb` looks up
/// within each 128-bit lane, so the tables are broadcast to all four).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn classify512(c: __m512i, high_table: __m512i, low_table: __m512i) -> __m512i {
    let high = _mm512_and_si512(_mm512_srli_epi16(c, 4), _mm512_set1_epi8(0x0F));
    _mm512_add_epi8(_mm512_shuffle_epi8(high_table, high), _mm512_shuffle_epi8(low_table, c))
}

/// # Safety
/// `src` readable for 128 bytes, `dst` and `tmp` writable for 64;
/// AVX-512F/BW available. See `drive!` for the contract.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn block_avx512(src: *const u8, dst: *mut u8, tmp: *mut u8) -> Option<usize> {
    // SAFETY: the caller guarantees 128 readable bytes; loadu has no alignment
    // needs (nor the 16-byte table loads).
    let (a, b, high_table, low_table) = unsafe {
        (
            _mm512_loadu_si512(src as *const _),
            _mm512_loadu_si512(src.add(64) as *const _),
            _mm512_broadcast_i32x4(_mm_loadu_si128(HIGH_NIBBLE_TABLE.as_ptr() as *const __m128i)),
            _mm512_broadcast_i32x4(_mm_loadu_si128(LOW_NIBBLE_TABLE.as_ptr() as *const __m128i)),
        )
    };
    let sa = classify512(a, high_table, low_table);
    let sb = classify512(b, high_table, low_table);
    let nibble = _mm512_set1_epi8(0x0F);
    let weights = _mm512_set1_epi16(0x0110);
    let pa = _mm512_maddubs_epi16(_mm512_and_si512(sa, nibble), weights);
    let pb = _mm512_maddubs_epi16(_mm512_and_si512(sb, nibble), weights);
    // packus works per 128-bit lane: [a0 b0 a1 b1 a2 b2 a3 b3] -> a0..a3 b0..b3.
    let pairs = _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), _mm512_packus_epi16(pa, pb));
    // Separate stores per branch, as in `block_avx2`.
    if _mm512_movepi8_mask(_mm512_or_si512(sa, sb)) == 0 {
        // SAFETY: the caller guarantees 64 writable bytes at dst.
        unsafe { _mm512_storeu_si512(dst as *mut _, pairs) };
        return None;
    }
    let bad = (_mm512_movepi8_mask(sa) as u128) | ((_mm512_movepi8_mask(sb) as u128) << 64);
    // SAFETY: the caller guarantees 64 writable bytes at tmp.
    unsafe { _mm512_storeu_si512(tmp as *mut _, pairs) };
    Some(bad.trailing_zeros() as usize)
}

#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn avx512_impl(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    // SAFETY: `drive!` passes pointers to 128 readable digits and 64 writable
    // output bytes; AVX-512F/BW are enabled here.
    unsafe { drive!(digits, out, 128, 64, block_avx512) }
}

pub fn decode_avx512(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    assert!(avx512_available(), "hex-avx512 forced on a CPU without AVX-512BW");
    // SAFETY: AVX-512F and AVX-512BW are available (checked above).
    unsafe { avx512_impl(digits, out) }
}
