//! ZIGZAG (encoding id 9) for INT32 and INT64, from `docs/reference/tsfile-encodings.md`.
//! A page is a sequence of groups until its bytes end:
//! `uvarint byteLength | uvarint count | count LEB128 varints of zigzag(v)`.
//!
//! `zigzag/bytewise` reads a varint a byte at a time: the writers' pages
//! hold runs of varints of one length, which the branches predict, so the
//! next varint's start is speculated rather than waited for.

use super::{uvarint32, DecodeError, Done, Field, IntLane};

/// `(u >> 1) ^ -(u & 1)`: for a 32-bit pattern the low 32 bits are the i32.
#[inline(always)]
fn unzigzag(u: u64) -> u64 {
    (u >> 1) ^ (u & 1).wrapping_neg()
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

/// Decode the groups of `page` into `out` (its length is the most values
/// accepted).
fn decode<const W: u32, T: IntLane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut n = 0usize;
    let mut pos = 0usize;
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

/// INT32 values, a byte at a time (the default).
pub fn decode_i32_bytewise_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, i32>(page, out)
}

/// INT64 values, a byte at a time (the default).
pub fn decode_i64_bytewise_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, i64>(page, out)
}

/// INT32 values with the default implementation.
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode_i32_bytewise_into(page, out)
}

/// INT64 values with the default implementation.
pub fn decode_i64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode_i64_bytewise_into(page, out)
}

pub type DecodeI32 = fn(&[u8], &mut [i32]) -> Result<Done, DecodeError>;
pub type DecodeI64 = fn(&[u8], &mut [i64]) -> Result<Done, DecodeError>;

/// INT32 implementations, best first.
pub static IMPLEMENTATIONS_I32: &[crate::Implementation<DecodeI32>] = &[crate::Implementation::portable(
    "zigzag/bytewise",
    decode_i32_bytewise_into,
)];

/// INT64 implementations, best first (as INT32).
pub static IMPLEMENTATIONS_I64: &[crate::Implementation<DecodeI64>] = &[crate::Implementation::portable(
    "zigzag/bytewise",
    decode_i64_bytewise_into,
)];

#[cfg(test)]
mod tests {
    use super::*;

    /// A group whose bytes hold more varints than its count: the group's
    /// length check refuses the rest.
    #[test]
    fn more_varints_than_the_count_are_refused() {
        for (count, bytes) in [(15usize, 16usize), (16, 17), (16, 32), (1, 16)] {
            let mut page = vec![bytes as u8, count as u8];
            page.extend(std::iter::repeat_n(0x02, bytes));
            let want = Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: bytes as i64,
                offset: 0,
            });
            for decode in I32 {
                assert_eq!(decode(&page, &mut [0; 64]), want, "{count} in {bytes} bytes");
            }
        }
    }

    const I32: [DecodeI32; 1] = [decode_i32_bytewise_into];
    const I64: [DecodeI64; 1] = [decode_i64_bytewise_into];

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
        // bytes, each with more bytes after it in the group.
        let mut page = vec![20, 1, 0xff, 0xff, 0xff, 0xff, 0x1f];
        page.extend([0; 15]);
        let mut six = vec![20, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        six.extend([0; 14]);
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
        // A 64-bit tenth byte above 1, at the group's end and before more
        // bytes.
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
