//! Varints of any length, eight per vector, on x86-64 with AVX-512 VBMI2.
//!
//! A 64-byte window's varint ends come from its bytes' top bits at once
//! (`vpmovb2m`); `vpcompressb` turns that mask into the list of the
//! varints' starts and ends, and `vpermb` moves each varint's bytes into a
//! 64-bit lane of its own, zeroing the bytes past its end. Two multiply-adds
//! and a select then join each lane's 7-bit groups, so eight varints are
//! decoded by one short sequence of vector instructions, and the only thing
//! a window waits on is the window before's last end.

use core::arch::x86_64::*;

use crate::tsfile::IntLane;

/// Byte `j` is `j`: the window's positions, for `vpcompressb`.
const POSITIONS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = j as u8;
        j += 1;
    }
    t
};

/// Byte `j` is `j / 8`: spreads the list's first eight entries to the
/// eight bytes of lane `j / 8`.
const LANE_OF_BYTE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = (j / 8) as u8;
        j += 1;
    }
    t
};

/// Byte `j` is `j % 8`: a byte's place in its lane, added to the lane's
/// varint start.
const BYTE_IN_LANE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = (j % 8) as u8;
        j += 1;
    }
    t
};

/// The ninth and tenth byte of a 64-bit varint in bytes 0 and 1 of its
/// lane; the other offsets lie past any end (starts are at most 63), so
/// `vpermb`'s mask zeroes them.
const HIGH_BYTE_IN_LANE: [u8; 64] = {
    let mut t = [0x80u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = 8;
        t[j + 1] = 9;
        j += 8;
    }
    t
};

/// Byte `j` of a lane times 1 (even) or 128 (odd): `vpmaddubsw` joins
/// neighbouring 7-bit groups into 14 bits.
const JOIN_7: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = if j % 2 == 0 { 1 } else { 128 };
        j += 1;
    }
    t
};

/// What a window's eight-lane steps share: its varints' starts and ends
/// as lists (byte `i` for varint `i`), its bytes' 7-bit groups, and the
/// constants.
struct Window {
    start_list: __m512i,
    end_list: __m512i,
    stripped: __m512i,
    lane_of_byte: __m512i,
    byte_in_lane: __m512i,
    high_in_lane: __m512i,
    join7: __m512i,
    join14: __m512i,
    high_28: __m512i,
}

/// Varints `first..first + 8` of the window, one per 64-bit lane: their
/// zigzag patterns, and where [`zigzag_avx512`] finds bits a well-formed
/// varint leaves clear (`unused`): the pattern itself, or with `LONG` (64-bit
/// varints of nine and ten bytes) their ninth and tenth bytes. Lanes past
/// the window's last varint hold garbage.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn eight<const LONG: bool>(w: &Window, first: i8) -> (__m512i, __m512i) {
    let spread = _mm512_add_epi8(w.lane_of_byte, _mm512_set1_epi8(first));
    let lane_start = _mm512_permutexvar_epi8(spread, w.start_list);
    let lane_end = _mm512_permutexvar_epi8(spread, w.end_list);
    let at = _mm512_add_epi8(lane_start, w.byte_in_lane);
    let bytes = _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(at, lane_end), at, w.stripped);
    let joined = _mm512_madd_epi16(_mm512_maddubs_epi16(w.join7, bytes), w.join14);
    // The lane holds two 28-bit halves of the zigzag pattern: the high one
    // moves down by 4.
    let mut pattern = _mm512_ternarylogic_epi64::<0xE4>(_mm512_srli_epi64::<4>(joined), joined, w.high_28);
    let overflow = if !LONG {
        pattern
    } else {
        let at = _mm512_add_epi8(lane_start, w.high_in_lane);
        let high = _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(at, lane_end), at, w.stripped);
        pattern = _mm512_or_si512(pattern, _mm512_slli_epi64::<56>(_mm512_maddubs_epi16(w.join7, high)));
        high
    };
    (pattern, overflow)
}

/// `(u >> 1) ^ -(u & 1)` in each 32-bit lane: an odd pattern is a negative
/// value, all its bits flipped.
#[inline]
#[target_feature(enable = "avx512f")]
fn unzigzag_32(u: __m512i) -> __m512i {
    let halved = _mm512_srli_epi32::<1>(u);
    _mm512_mask_xor_epi32(
        halved,
        _mm512_test_epi32_mask(u, _mm512_set1_epi32(1)),
        halved,
        _mm512_set1_epi32(-1),
    )
}

/// [`unzigzag_32`] in each 64-bit lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn unzigzag_64(u: __m512i) -> __m512i {
    let halved = _mm512_srli_epi64::<1>(u);
    _mm512_mask_xor_epi64(
        halved,
        _mm512_test_epi64_mask(u, _mm512_set1_epi64(1)),
        halved,
        _mm512_set1_epi64(-1),
    )
}

/// Decodes zigzag varints of `W`-bit values from `data[pos..end]` into `out`,
/// a 64-byte window at a time: every varint that ends inside the window
/// (and inside `end`), up to `out.len()` of them. Returns the values written
/// and the position after them; stops before a window holding a varint it
/// cannot prove well formed (too long, or above the width) and where no
/// varint ends in the window, for the byte loop.
///
/// # Safety
///
/// The CPU must have AVX-512 F, BW, VL, VBMI and VBMI2, BMI2, LZCNT and
/// POPCNT (`super::super::zigzag`'s `avx512` checks them), and `T` must be
/// `W` bits wide.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,lzcnt,popcnt")]
pub(crate) unsafe fn zigzag_avx512<const W: u32, T: IntLane>(
    data: &[u8],
    mut pos: usize,
    end: usize,
    out: &mut [T],
) -> (usize, usize) {
    assert_eq!(core::mem::size_of::<T>() * 8, W as usize, "lane width");
    // Lengths past these are malformed (a 32-bit value takes at most five
    // bytes, a 64-bit one ten); compared as the end minus the start.
    let longest_less_one = if W == 32 { 4 } else { 9 };
    // Bits a well-formed value leaves clear in what `eight` reports: a
    // 32-bit pattern's above bit 31; a tenth byte (byte 1 of a lane of the
    // high bytes) holds bit 63 alone. Patterns of 64-bit varints of up to
    // eight bytes have no such bits.
    let unused_32 = _mm512_set1_epi64(!0xFFFF_FFFFu64 as i64);
    let unused_long = _mm512_set1_epi64(0xFE00);
    // Dwords 0, 2, ..., 30 of two vectors: two steps' 32-bit values.
    let low_dwords = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    // SAFETY: the constants are 64 bytes each, read unaligned; the CPU has
    // AVX-512 F and BW (this function's contract).
    let (positions, mut w) = unsafe {
        (
            _mm512_loadu_epi8(POSITIONS.as_ptr().cast()),
            Window {
                start_list: _mm512_setzero_si512(),
                end_list: _mm512_setzero_si512(),
                stripped: _mm512_setzero_si512(),
                lane_of_byte: _mm512_loadu_epi8(LANE_OF_BYTE.as_ptr().cast()),
                byte_in_lane: _mm512_loadu_epi8(BYTE_IN_LANE.as_ptr().cast()),
                high_in_lane: _mm512_loadu_epi8(HIGH_BYTE_IN_LANE.as_ptr().cast()),
                join7: _mm512_loadu_epi8(JOIN_7.as_ptr().cast()),
                join14: _mm512_set1_epi32(1 | (1 << 14) << 16),
                high_28: _mm512_set1_epi64(!0x0FFF_FFFF),
            },
        )
    };
    let mut n = 0;
    // The group's last bytes, when fewer than 64 bytes of `data` remain,
    // in a window of zeros (ends the room cuts off).
    let mut padded = [0u8; 64];
    loop {
        let window = match data.get(pos..pos + 64) {
            Some(window) => window,
            None => match data.get(pos..end) {
                Some(rest) if !rest.is_empty() => {
                    padded[..rest.len()].copy_from_slice(rest);
                    &padded
                }
                _ => break,
            },
        };
        let left = out.len() - n;
        if left == 0 {
            break;
        }
        // SAFETY: `window` is 64 readable bytes.
        let raw = unsafe { _mm512_loadu_epi8(window.as_ptr().cast()) };
        let room = end.saturating_sub(pos);
        let mut ends = !_mm512_movepi8_mask(raw);
        if room < 64 {
            ends &= (1u64 << room) - 1;
        }
        if ends == 0 {
            break;
        }
        // The first `take` ends: no more than the output takes, and a
        // multiple of sixteen (a step's) where there are more.
        let found = ends.count_ones() as usize;
        let take = if found > left {
            left
        } else if found > 16 {
            found & !15
        } else {
            found
        };
        if take < found {
            let last = _pdep_u64(1 << (take - 1), ends);
            ends &= (last << 1).wrapping_sub(1);
        }
        let count = take;
        let first_of_list = if count == 64 { u64::MAX } else { (1u64 << count) - 1 };
        w.end_list = _mm512_maskz_compress_epi8(ends, positions);
        w.start_list = _mm512_maskz_compress_epi8(ends << 1 | 1, positions);
        w.stripped = _mm512_and_si512(raw, _mm512_set1_epi8(0x7F));
        let less_one = _mm512_sub_epi8(w.end_list, w.start_list);
        let too_long = _mm512_cmpgt_epu8_mask(less_one, _mm512_set1_epi8(longest_less_one)) & first_of_list;
        // 64-bit varints of nine or ten bytes: their high bytes need lanes
        // of their own.
        let long = W == 64 && _mm512_cmpgt_epu8_mask(less_one, _mm512_set1_epi8(7)) & first_of_list != 0;
        let mut overflow = _mm512_setzero_si512();
        // Sixteen varints a step, as two vectors of eight.
        let mut done = 0;
        while done < count {
            let ((a, a_overflow), (b, b_overflow)) = if long {
                (eight::<true>(&w, done as i8), eight::<true>(&w, done as i8 + 8))
            } else {
                (eight::<false>(&w, done as i8), eight::<false>(&w, done as i8 + 8))
            };
            overflow = _mm512_ternarylogic_epi64::<0xFE>(overflow, a_overflow, b_overflow);
            let lanes = (count - done).min(16);
            let at = n + done;
            // SAFETY (every store below): `T` is `W` bits wide, and the
            // stores stay inside `out`: all sixteen lanes when the output
            // has room (the lanes past `count` land in slots a later window
            // or the byte loop writes before the page's decoding succeeds),
            // else masked to `lanes`, and `at + lanes <= n + count <=
            // out.len()`. A masked store is a slow one on some CPUs: only at
            // the output's end.
            unsafe {
                let to = out.as_mut_ptr().add(at);
                let mask = if lanes == 16 { u16::MAX } else { (1u16 << lanes) - 1 };
                if W == 32 {
                    let values = unzigzag_32(_mm512_permutex2var_epi32(a, low_dwords, b));
                    if out.len() - at >= 16 {
                        _mm512_storeu_si512(to.cast(), values);
                    } else {
                        _mm512_mask_storeu_epi32(to.cast(), mask, values);
                    }
                } else {
                    let (a, b) = (unzigzag_64(a), unzigzag_64(b));
                    if out.len() - at >= 16 {
                        _mm512_storeu_si512(to.cast(), a);
                        _mm512_storeu_si512(to.add(8).cast(), b);
                    } else {
                        _mm512_mask_storeu_epi64(to.cast(), mask as u8, a);
                        _mm512_mask_storeu_epi64(to.add(8).cast(), (mask >> 8) as u8, b);
                    }
                }
            }
            done += lanes;
        }
        let unused = if W == 32 {
            unused_32
        } else if long {
            unused_long
        } else {
            _mm512_setzero_si512()
        };
        if too_long != 0 || _mm512_test_epi64_mask(overflow, unused) != 0 {
            break;
        }
        n += count;
        pos += 64 - ends.leading_zeros() as usize;
    }
    (n, pos)
}
