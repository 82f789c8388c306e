//! ZIGZAG (encoding id 9) for INT32 and INT64, from `docs/tsfile-encodings.md`.
//! A page is a sequence of groups until its bytes end:
//! `uvarint byteLength | uvarint count | count LEB128 varints of zigzag(v)`.
//!
//! `zigzag/word` reads varints a word at a time: one little-endian 8-byte
//! load gives a varint's length from its continuation bits
//! (`trailing_zeros` of the stop bits) and its value by compacting the
//! 7-bit groups with constant masks; eight one-byte varints in a row (small
//! values, the common case of a slowly changing series) are taken in one
//! step. Varints near the group's end, where a whole word is not in the
//! group, go through the byte loop that `zigzag/bytewise` uses for every
//! value (the portable second opinion).

use super::{uvarint32, DecodeError, Done, Field, IntLane};

/// Continuation bit of every byte of a little-endian word.
const CONTINUATION: u64 = 0x8080_8080_8080_8080;

/// `(u >> 1) ^ -(u & 1)`: for a 32-bit pattern the low 32 bits are the i32.
#[inline(always)]
fn unzigzag(u: u64) -> u64 {
    (u >> 1) ^ (u & 1).wrapping_neg()
}

/// The 7-bit groups of the first `bytes` bytes of `word` (little-endian, up
/// to 8), packed together: the varint's value.
#[inline(always)]
fn compact7(word: u64, bytes: u32) -> u64 {
    let x = word & (u64::MAX >> (64 - 8 * bytes));
    (x & 0x7F)
        | ((x >> 1) & (0x7F << 7))
        | ((x >> 2) & (0x7F << 14))
        | ((x >> 3) & (0x7F << 21))
        | ((x >> 4) & (0x7F << 28))
        | ((x >> 5) & (0x7F << 35))
        | ((x >> 6) & (0x7F << 42))
        | ((x >> 7) & (0x7F << 49))
}

/// One varint of a `W`-bit value starting at `at`, read a byte at a time,
/// in the group `data[..end]`. Returns (pattern, bytes).
#[inline]
fn varint_bytewise<const W: u32>(data: &[u8], at: usize, end: usize) -> Result<(u64, usize), DecodeError> {
    let most = if W == 32 { 5 } else { 10 };
    let mut v: u64 = 0;
    for i in 0..most {
        let Some(&b) = data[..end].get(at + i) else {
            return Err(DecodeError::Truncated {
                field: Field::ZigzagValue,
                offset: at,
                bit: 0,
            });
        };
        // The tenth byte of a 64-bit varint holds only bit 63 (and no
        // continuation).
        if W == 64 && i == 9 && b > 1 {
            return Err(DecodeError::BadVarint { offset: at });
        }
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            if W == 32 && v > u64::from(u32::MAX) {
                return Err(DecodeError::BadVarint { offset: at });
            }
            return Ok((v, i + 1));
        }
    }
    Err(DecodeError::BadVarint { offset: at })
}

/// One varint from a word load; needs `at + 10 <= end` (64-bit) or
/// `at + 8 <= end` (32-bit), so every byte a varint may take is in the group.
#[inline(always)]
fn varint_word<const W: u32>(data: &[u8], at: usize) -> Result<(u64, usize), DecodeError> {
    let word = u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"));
    let stops = !word & CONTINUATION;
    // 1..=8, or 9 when none of the eight bytes ends the varint.
    let len = stops.trailing_zeros() / 8 + 1;
    if W == 32 {
        let v = compact7(word, len.min(5));
        if len > 5 || v > u64::from(u32::MAX) {
            return Err(DecodeError::BadVarint { offset: at });
        }
        return Ok((v, len as usize));
    }
    if len <= 8 {
        return Ok((compact7(word, len), len as usize));
    }
    let low = compact7(word, 8);
    let b8 = data[at + 8];
    if b8 & 0x80 == 0 {
        return Ok((low | (u64::from(b8) << 56), 9));
    }
    let b9 = data[at + 9];
    if b9 > 1 {
        return Err(DecodeError::BadVarint { offset: at });
    }
    Ok((low | (u64::from(b8 & 0x7F) << 56) | (u64::from(b9) << 63), 10))
}

/// Decode the groups of `page` into `out` (its length is the most values
/// accepted). With `WORD`, varints are read a word at a time where the
/// group holds a whole word past them.
fn decode<const W: u32, T: IntLane, const WORD: bool>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut n = 0usize;
    let mut pos = 0usize;
    // Bytes a word read may touch past a varint's start.
    let reach = if W == 32 { 8 } else { 10 };
    while pos < page.len() {
        let group = pos;
        let (len, k) = uvarint32(page, pos, Field::ZigzagLength)?;
        pos += k;
        let count_at = pos;
        let (count, k) = uvarint32(page, pos, Field::ZigzagCount)?;
        pos += k;
        let (len, count) = (len as usize, count as usize);
        if len > page.len() - pos {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: len as i64,
                offset: group,
            });
        }
        // Every value takes at least one byte.
        if count == 0 || count > len {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagCount,
                count: count as i64,
                offset: count_at,
            });
        }
        if count > max - n {
            return Err(DecodeError::TooManyValues { max, offset: group });
        }
        let end = pos + len;
        let target = n + count;
        if WORD {
            while n < target && pos + reach <= end {
                let word = u64::from_le_bytes(page[pos..pos + 8].try_into().expect("8 bytes"));
                if word & CONTINUATION == 0 && target - n >= 8 {
                    // Eight one-byte varints.
                    for (i, slot) in out[n..n + 8].iter_mut().enumerate() {
                        *slot = T::from_bits(unzigzag((word >> (8 * i)) & 0x7F));
                    }
                    n += 8;
                    pos += 8;
                    continue;
                }
                let (v, k) = varint_word::<W>(page, pos)?;
                out[n] = T::from_bits(unzigzag(v));
                n += 1;
                pos += k;
            }
        }
        while n < target {
            let (v, k) = varint_bytewise::<W>(page, pos, end)?;
            out[n] = T::from_bits(unzigzag(v));
            n += 1;
            pos += k;
        }
        // Bytes left in the group: its length and its count disagree.
        if pos != end {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: len as i64,
                offset: group,
            });
        }
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// INT32 values, word at a time.
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, i32, true>(page, out)
}

/// INT64 values, word at a time.
pub fn decode_i64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, i64, true>(page, out)
}

/// INT32 values, a byte at a time.
pub fn decode_i32_bytewise_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, i32, false>(page, out)
}

/// INT64 values, a byte at a time.
pub fn decode_i64_bytewise_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, i64, false>(page, out)
}

pub type DecodeI32 = fn(&[u8], &mut [i32]) -> Result<Done, DecodeError>;
pub type DecodeI64 = fn(&[u8], &mut [i64]) -> Result<Done, DecodeError>;

/// INT32 implementations, best first.
pub static IMPLEMENTATIONS_I32: &[crate::Implementation<DecodeI32>] = &[
    crate::Implementation::portable("zigzag/word", decode_i32_into),
    crate::Implementation::portable("zigzag/bytewise", decode_i32_bytewise_into),
];

/// INT64 implementations, best first.
pub static IMPLEMENTATIONS_I64: &[crate::Implementation<DecodeI64>] = &[
    crate::Implementation::portable("zigzag/word", decode_i64_into),
    crate::Implementation::portable("zigzag/bytewise", decode_i64_bytewise_into),
];

#[cfg(test)]
mod tests {
    use super::*;

    const I32: [DecodeI32; 2] = [decode_i32_into, decode_i32_bytewise_into];
    const I64: [DecodeI64; 2] = [decode_i64_into, decode_i64_bytewise_into];

    /// The notes' example, and a long group of one-byte varints (the
    /// eight-at-a-time step) with its tail.
    #[test]
    fn known_answers() {
        let page = [0x0a, 0x05, 0x00, 0x01, 0x02, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f];
        for f in I32 {
            let mut out = [0i32; 5];
            assert_eq!(
                f(&page, &mut out),
                Ok(Done {
                    values: 5,
                    consumed: 12
                })
            );
            assert_eq!(out, [0, -1, 1, 64, i32::MIN]);
        }
        // -1, 1, -2, 2, ... as 01 02 03 04 ...
        let mut page = vec![21, 21];
        page.extend(1..=21u8);
        for f in I64 {
            let mut out = [0i64; 21];
            assert_eq!(
                f(&page, &mut out),
                Ok(Done {
                    values: 21,
                    consumed: 23
                })
            );
            let want: Vec<i64> = (1..=21i64).map(|u| (u >> 1) ^ -(u & 1)).collect();
            assert_eq!(out.to_vec(), want);
        }
    }

    /// Varints of every length in the middle of a long group (word path)
    /// and at its end (byte path) decode the same; the 64-bit extremes take
    /// nine and ten bytes.
    #[test]
    fn every_varint_length_on_both_paths() {
        let values = [
            0i64,
            -64,
            8191,
            -1_048_577,
            i32::MIN as i64,
            1 << 40,
            -(1 << 55),
            1 << 62,
            i64::MIN,
            i64::MAX,
        ];
        let mut body = Vec::new();
        let mut want = Vec::new();
        for _ in 0..3 {
            for &v in &values {
                let mut z = ((v << 1) ^ (v >> 63)) as u64;
                loop {
                    let b = (z & 0x7F) as u8;
                    z >>= 7;
                    body.push(if z == 0 { b } else { b | 0x80 });
                    if z == 0 {
                        break;
                    }
                }
                want.push(v);
            }
        }
        let mut page = Vec::new();
        for v in [body.len() as u32, want.len() as u32] {
            let mut v = v;
            loop {
                let b = (v & 0x7F) as u8;
                v >>= 7;
                page.push(if v == 0 { b } else { b | 0x80 });
                if v == 0 {
                    break;
                }
            }
        }
        page.extend(&body);
        for f in I64 {
            let mut out = vec![0i64; want.len()];
            assert_eq!(
                f(&page, &mut out),
                Ok(Done {
                    values: want.len(),
                    consumed: page.len()
                })
            );
            assert_eq!(out, want);
        }
    }

    #[test]
    fn refused_varints_and_groups() {
        let bad = |offset| Err(DecodeError::BadVarint { offset });
        // A 32-bit varint with a fifth byte above u32::MAX, and one of six
        // bytes, each followed by enough bytes for the word path.
        let mut page = vec![12, 1, 0xff, 0xff, 0xff, 0xff, 0x1f];
        page.extend([0; 7]);
        let mut six = vec![12, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        six.extend([0; 6]);
        for f in I32 {
            let mut out = [0i32; 9];
            assert_eq!(f(&page, &mut out), bad(2));
            assert_eq!(f(&six, &mut out), bad(2));
            assert_eq!(
                f(&[2, 2, 0, 0x80, 0], &mut out),
                Err(DecodeError::Truncated {
                    field: Field::ZigzagValue,
                    offset: 3,
                    bit: 0
                })
            );
        }
        // A 64-bit tenth byte above 1, in the word path and the byte path.
        for tail in [0usize, 8] {
            let mut page = vec![10 + tail as u8, 1];
            page.extend([0x80; 9]);
            page.push(0x02);
            page.extend(std::iter::repeat_n(0, tail));
            for f in I64 {
                let mut out = [0i64; 9];
                assert_eq!(f(&page, &mut out), bad(2), "tail {tail}");
            }
        }
        for f in I64 {
            let mut out = [0i64; 1];
            // Count 0, count above the length, length past the page, leftovers.
            let count = |count, offset| {
                Err(DecodeError::BadCount {
                    field: Field::ZigzagCount,
                    count,
                    offset,
                })
            };
            let length = |count| {
                Err(DecodeError::BadCount {
                    field: Field::ZigzagLength,
                    count,
                    offset: 0,
                })
            };
            assert_eq!(f(&[1, 0, 0], &mut out), count(0, 1));
            assert_eq!(f(&[1, 2, 0, 0], &mut out), count(2, 1));
            assert_eq!(f(&[3, 1, 0, 0], &mut out), length(3));
            assert_eq!(f(&[2, 1, 0, 0], &mut out), length(2));
            // A second group that does not fit the output.
            assert_eq!(
                f(&[1, 1, 0, 1, 1, 0], &mut out),
                Err(DecodeError::TooManyValues { max: 1, offset: 3 })
            );
        }
    }
}
