//! Escape-format kernels: `\\` is a backslash, `\ooo` (first digit 0-3,
//! then two 0-7) one byte, any other byte is copied; every other backslash
//! sequence is rejected at the backslash.

use super::DecodeError;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The escape sequence starting at the backslash `text[i]`: the byte and the
/// sequence length.
#[inline]
fn sequence(text: &[u8], i: usize) -> Result<(u8, usize), DecodeError> {
    if let Some(&[a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7']) = text.get(i + 1..i + 4) {
        // Sums of the digits' weights (at most 3 * 64 + 7 * 8 + 7 = 255):
        // with disjoint bit fields, `|` and `^` would be the same function.
        return Ok(((a - b'0') * 64 + (b - b'0') * 8 + (c - b'0'), 4));
    }
    if text.get(i + 1) == Some(&b'\\') {
        Ok((b'\\', 2))
    } else {
        Err(DecodeError::escape(i))
    }
}

/// First backslash at or after `from`, eight bytes at a time (words loaded
/// little-endian, so the lowest flagged lane is the first match on every
/// byte order; the borrow trick only misflags lanes above a true match).
#[inline]
fn find_backslash(text: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i + 8 <= text.len() {
        let w = u64::from_le_bytes(text[i..i + 8].try_into().expect("8 bytes")) ^ (ONES * b'\\' as u64);
        let zero = w.wrapping_sub(ONES) & !w & HIGH;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    text[i..].iter().position(|&b| b == b'\\').map(|k| i + k)
}

/// Copies each run between backslashes with one `copy_from_slice`; escape
/// sequences that follow each other directly skip the search.
pub fn decode_bulk(text: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    if out.len() < text.len() {
        return Err(DecodeError::too_small());
    }
    let (mut i, mut o) = (0, 0);
    while i < text.len() {
        if text[i] != b'\\' {
            let end = find_backslash(text, i).unwrap_or(text.len());
            let run = end - i;
            out[o..o + run].copy_from_slice(&text[i..end]);
            o += run;
            i = end;
            if i == text.len() {
                break;
            }
        }
        let (byte, len) = sequence(text, i)?;
        out[o] = byte;
        o += 1;
        i += len;
    }
    Ok(o)
}

/// One byte at a time.
pub fn decode_scalar(text: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    if out.len() < text.len() {
        return Err(DecodeError::too_small());
    }
    let (mut i, mut o) = (0, 0);
    while i < text.len() {
        if text[i] == b'\\' {
            let (byte, len) = sequence(text, i)?;
            out[o] = byte;
            i += len;
        } else {
            out[o] = text[i];
            i += 1;
        }
        o += 1;
    }
    Ok(o)
}
