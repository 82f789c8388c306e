//! The scalar lookup-table kernel and the step machine every vector kernel
//! falls back to for blocks that are not all hex digits.

use super::DecodeError;

/// Table class of a byte that is hex-format whitespace (space, `\n`, `\t`,
/// `\r`): skipped before the first digit of a pair only.
pub const WHITESPACE: u8 = 0x40;
/// Table class of a byte that is neither a digit nor whitespace.
pub const INVALID: u8 = 0x80;

/// `HEX_TABLE[b]` is the digit value (0..=15) of `b`, `WHITESPACE` (0x40)
/// or `INVALID` (0x80). Built by a `const fn` from ranges, one entry per byte value,
/// and checked entry by entry in the tests (the bug in the 2011 pgjdbc
/// lookup-table patch was exactly a wrongly initialised table).
pub static HEX_TABLE: [u8; 256] = build_table();

const fn build_table() -> [u8; 256] {
    let mut t = [INVALID; 256];
    let mut k = 0;
    while k < 10 {
        t[b'0' as usize + k] = k as u8;
        k += 1;
    }
    k = 0;
    while k < 6 {
        t[b'a' as usize + k] = 10 + k as u8;
        t[b'A' as usize + k] = 10 + k as u8;
        k += 1;
    }
    t[b' ' as usize] = WHITESPACE;
    t[b'\n' as usize] = WHITESPACE;
    t[b'\t' as usize] = WHITESPACE;
    t[b'\r' as usize] = WHITESPACE;
    t
}

/// Run the step machine from input position `i` / output position `o` until
/// `i >= stop` (or the input ends), each step being one skipped whitespace
/// byte or one digit pair; so it stops at a pair boundary at or past `stop`.
/// Returns the new positions. Offsets in errors are relative to `digits`.
#[inline]
pub fn run(
    digits: &[u8],
    mut i: usize,
    out: &mut [u8],
    mut o: usize,
    stop: usize,
) -> Result<(usize, usize), DecodeError> {
    let stop = stop.min(digits.len());
    while i < stop {
        let c = digits[i];
        let hi = HEX_TABLE[c as usize];
        if hi == WHITESPACE {
            i += 1;
            continue;
        }
        if hi >= 16 {
            return Err(DecodeError::invalid_digit(i, c));
        }
        let Some(&c2) = digits.get(i + 1) else {
            return Err(DecodeError::odd(digits.len()));
        };
        let lo = HEX_TABLE[c2 as usize];
        if lo >= 16 {
            return Err(DecodeError::invalid_digit(i + 1, c2));
        }
        // The nibbles are disjoint bit fields: their sum is the byte.
        out[o] = (hi << 4) + lo;
        o += 1;
        i += 2;
    }
    Ok((i, o))
}

/// The scalar lookup-table kernel: the step machine over the whole input.
pub fn decode(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    if out.len() < digits.len() / 2 {
        return Err(DecodeError::too_small());
    }
    run(digits, 0, out, 0, digits.len()).map(|(_, o)| o)
}
