//! aarch64 NEON hex kernel: `vld2q_u8` de-interleaves 32 digits into the 16
//! first digits and the 16 second digits of their pairs, which are validated,
//! converted and combined with one shift-or.

use std::arch::aarch64::*;

use super::scalar;
use super::DecodeError;

pub fn neon_available() -> bool {
    std::arch::is_aarch64_feature_detected!("neon")
}

/// Nibble values of 16 bytes and a mask that is 0xFF where the byte is a
/// hex digit.
#[target_feature(enable = "neon")]
#[inline]
fn nibbles(c: uint8x16_t) -> (uint8x16_t, uint8x16_t) {
    let d = vsubq_u8(c, vdupq_n_u8(b'0'));
    let is_digit = vcleq_u8(d, vdupq_n_u8(9));
    let l = vsubq_u8(vorrq_u8(c, vdupq_n_u8(0x20)), vdupq_n_u8(b'a'));
    let is_alpha = vcleq_u8(l, vdupq_n_u8(5));
    (
        vbslq_u8(is_digit, d, vaddq_u8(l, vdupq_n_u8(10))),
        vorrq_u8(is_digit, is_alpha),
    )
}

/// Decodes the 32 digits at `src`: all hex digits -> 16 bytes at `dst`,
/// `None`; otherwise the decoded lanes go to `tmp` and the result is the
/// offset (even) of the first pair holding a non-digit.
///
/// # Safety
/// `src` readable for 32 bytes, `dst` and `tmp` writable for 16; NEON available.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn block(src: *const u8, dst: *mut u8, tmp: *mut u8) -> Option<usize> {
    // SAFETY: the caller guarantees 32 readable bytes; vld2q_u8 has no alignment needs.
    let pairs = unsafe { vld2q_u8(src) };
    let (hi, ok_hi) = nibbles(pairs.0);
    let (lo, ok_lo) = nibbles(pairs.1);
    let bytes = vorrq_u8(vshlq_n_u8::<4>(hi), lo);
    let ok = vandq_u8(ok_hi, ok_lo);
    if vminvq_u8(ok) == 0xFF {
        // SAFETY: the caller guarantees 16 writable bytes at dst.
        unsafe { vst1q_u8(dst, bytes) };
        return None;
    }
    let mut lanes = [0u8; 16];
    // SAFETY: the caller guarantees 16 writable bytes at tmp; lanes is 16 bytes.
    unsafe {
        vst1q_u8(tmp, bytes);
        vst1q_u8(lanes.as_mut_ptr(), ok);
    }
    Some(2 * lanes.iter().position(|&l| l != 0xFF).unwrap_or(0))
}

#[target_feature(enable = "neon")]
unsafe fn neon_impl(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    if out.len() < digits.len() / 2 {
        return Err(DecodeError::too_small());
    }
    let mut tmp = [0u8; 16];
    let (mut i, mut o) = (0usize, 0usize);
    while i + 32 <= digits.len() {
        // In bounds: i + 32 <= digits.len(), and o <= i / 2 so
        // o + 16 <= digits.len() / 2 <= out.len(); tmp holds 16.
        // SAFETY: the pointers cover 32 readable and 16 + 16 writable bytes (above).
        match unsafe { block(digits.as_ptr().add(i), out.as_mut_ptr().add(o), tmp.as_mut_ptr()) } {
            None => {
                i += 32;
                o += 16;
            }
            Some(bad) => {
                // Keep the whole valid pairs before the bad one, then one
                // scalar step (skip whitespace, or decode/reject the pair).
                let pairs = bad / 2;
                out[o..o + pairs].copy_from_slice(&tmp[..pairs]);
                i += 2 * pairs;
                o += pairs;
                (i, o) = scalar::run(digits, i, out, o, i + 1)?;
            }
        }
    }
    scalar::run(digits, i, out, o, digits.len()).map(|(_, o)| o)
}

pub fn decode_neon(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    assert!(neon_available(), "hex-neon forced on a CPU without NEON");
    // SAFETY: NEON is available (checked above).
    unsafe { neon_impl(digits, out) }
}
