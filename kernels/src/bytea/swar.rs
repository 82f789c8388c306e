//! Portable SWAR hex kernel: 16 digits (two `u64` words, loaded explicitly
//! little-endian so the lane order is the same on every byte order) are
//! validated and packed into 8 bytes with plain integer arithmetic. This is
//! the kernel big-endian and other non-SIMD targets run.

use super::scalar;
use super::DecodeError;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Per byte (all bytes < 0x80): 0x80 where `b >= k`. No carries cross bytes
/// since `b + 0x80 - k <= 0xFF` for `1 <= k <= 0x80`.
#[inline(always)]
fn ge(x: u64, k: u8) -> u64 {
    x.wrapping_add(ONES * (0x80 - k as u64)) & HIGH
}

/// Per byte (all bytes < 0x80): 0x80 where `b <= k`.
#[inline(always)]
fn le(x: u64, k: u8) -> u64 {
    !x.wrapping_add(ONES * (0x7F - k as u64)) & HIGH
}

/// Nibble values of 8 digits (one per byte), or `None` if any byte is not a
/// hex digit.
#[inline(always)]
fn nibbles(x: u64) -> Option<u64> {
    if x & HIGH != 0 {
        return None;
    }
    let digit = ge(x, b'0') & le(x, b'9');
    let lower = x | (ONES * 0x20);
    let alpha = ge(lower, b'a') & le(lower, b'f');
    // The masks are disjoint (no byte is both), so `+` is their union.
    if digit + alpha != HIGH {
        return None;
    }
    // '0'..'9' & 0x0F = 0..9; 'a'/'A' & 0x0F = 1.., plus 9 for letters.
    let a = alpha >> 7;
    Some((x & (ONES * 0x0F)) + (a << 3) + a)
}

/// Pack 8 nibbles (lane 0 = first digit) into 4 bytes, first byte in the
/// lowest lane.
#[inline(always)]
fn pack(v: u64) -> u32 {
    // Each 16-bit lane: first digit in its low byte, second in its high byte.
    // The fields added below never overlap, so `+` is their union (and,
    // unlike `|`, has no mutation that gives the same result).
    let t = ((v & 0x00FF_00FF_00FF_00FF) << 4) + ((v >> 8) & 0x00FF_00FF_00FF_00FF);
    let t = (t + (t >> 8)) & 0x0000_FFFF_0000_FFFF;
    ((t + (t >> 16)) & 0xFFFF_FFFF) as u32
}

#[inline(always)]
fn block(input: &[u8; 16], out: &mut [u8; 8]) -> bool {
    let a = u64::from_le_bytes(input[..8].try_into().expect("8 bytes"));
    let b = u64::from_le_bytes(input[8..].try_into().expect("8 bytes"));
    match (nibbles(a), nibbles(b)) {
        (Some(a), Some(b)) => {
            out[..4].copy_from_slice(&pack(a).to_le_bytes());
            out[4..].copy_from_slice(&pack(b).to_le_bytes());
            true
        }
        _ => false,
    }
}

pub fn decode(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    if out.len() < digits.len() / 2 {
        return Err(DecodeError::too_small());
    }
    let (mut i, mut o) = (0, 0);
    while i + 16 <= digits.len() {
        let inp: &[u8; 16] = digits[i..i + 16].try_into().expect("16 bytes");
        // o + 8 <= (i + 16) / 2 <= digits.len() / 2 <= out.len().
        let dst: &mut [u8; 8] = (&mut out[o..o + 8]).try_into().expect("8 bytes");
        if block(inp, dst) {
            i += 16;
            o += 8;
        } else {
            (i, o) = scalar::run(digits, i, out, o, i + 16)?;
        }
    }
    scalar::run(digits, i, out, o, digits.len()).map(|(_, o)| o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block itself, not just the kernel's output: a block that wrongly
    /// refuses digits still decodes right (the step machine takes over), so
    /// only this test sees it. Every byte value in every lane of a block of
    /// otherwise valid digits, against the lookup table.
    #[test]
    fn block_takes_exactly_the_all_digit_blocks() {
        let filler = b"0123456789abcDEF";
        for lane in 0..16 {
            for b in 0..=255u8 {
                let mut input = *filler;
                input[lane] = b;
                let mut out = [0u8; 8];
                let took = block(&input, &mut out);
                let digit = scalar::HEX_TABLE[b as usize] < 16;
                assert_eq!(took, digit, "byte {b:#04x} in lane {lane}");
                if digit {
                    let mut want = [0u8; 8];
                    assert_eq!(scalar::decode(&input, &mut want), Ok(8));
                    assert_eq!(out, want, "byte {b:#04x} in lane {lane}");
                }
            }
        }
    }
}
