//! ZIGZAG (encoding id 9) for INT32 and INT64, from `docs/reference/tsfile-encodings.md`.
//! A page is a sequence of groups until its bytes end:
//! `uvarint byteLength | uvarint count | count LEB128 varints of zigzag(v)`.
//!
//! `zigzag/bytewise` (the default) reads a varint a byte at a time: the
//! writers' pages hold runs of varints of one length, which the branches
//! predict, so the next varint's start is speculated rather than waited for.
//! `zigzag/chunk16` reads 16 bytes at a time: the stop bits (bytes without a
//! continuation bit) give every varint's end in the chunk, so the next
//! varint's start is mask arithmetic (`trailing_zeros`, clear the lowest
//! bit) rather than a chain of load, length, advance per value, and each
//! value is its 7-bit groups compacted with constant masks; sixteen
//! one-byte varints (small values) are taken in one step. The group's last
//! 15 bytes and any varint the chunk cannot take go through the byte loop.
//! It measured slower than the byte loop on every series tried, mixed
//! lengths included (docs/families/tsfile-more-encodings.md); it stays as the
//! second opinion with the other access pattern.

use super::{compact7, uvarint32, DecodeError, Done, Field, IntLane};
use crate::probe::{NoProbe, Probe, Step};

/// Continuation bit of every byte of 16 little-endian bytes.
const CONTINUATION_16: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;

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

/// The varints that end inside a 16-byte `chunk` read at a varint's start,
/// at most `out.len()` of them, decoded into `out`; returns (values,
/// bytes). Each varint's end comes from the chunk's stop bits (the bytes
/// without a continuation bit), so finding the next one waits on mask
/// arithmetic, not on a load and the length of the one before. It stops
/// at a varint it cannot take whole: one that runs past the chunk, or one
/// the reader refuses (the byte loop then reports it).
#[inline(always)]
fn chunk16<const W: u32, T: IntLane>(chunk: u128, out: &mut [T]) -> (usize, usize) {
    let mut stops = !chunk & CONTINUATION_16;
    let mut start = 0u32;
    let mut n = 0;
    while stops != 0 && n < out.len() {
        let last = stops.trailing_zeros() / 8;
        let len = last + 1 - start;
        let segment = chunk >> (8 * start);
        let v = if len <= 8 {
            let v = compact7(segment as u64, len);
            if W == 32 && (len > 5 || v > u64::from(u32::MAX)) {
                break;
            }
            v
        } else {
            // Nine or ten bytes: the eighth group, and the tenth byte's one bit.
            if W == 32 || len > 10 {
                break;
            }
            // Disjoint bits again: the ninth group above the first eight,
            // bit 63 above all nine.
            let low = compact7(segment as u64, 8) + ((((segment >> 64) as u64) & 0x7F) << 56);
            let tenth = ((segment >> 72) as u64) & 0xFF;
            match len {
                9 => low,
                _ if tenth <= 1 => low + (tenth << 63),
                _ => break,
            }
        };
        out[n] = T::from_bits(unzigzag(v));
        n += 1;
        start = last + 1;
        stops &= stops - 1;
    }
    (n, start as usize)
}

/// Decode the groups of `page` into `out` (its length is the most values
/// accepted). With `WORD`, varints are read 16 bytes at a time while the
/// group holds 16 more bytes; `P` sees which path took them.
fn decode<const W: u32, T: IntLane, const WORD: bool, P: Probe>(
    page: &[u8],
    out: &mut [T],
) -> Result<Done, DecodeError> {
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
        if WORD {
            // Once every value is in, a whole chunk left means too many
            // bytes: the chunk reader, given no room, takes nothing, and the
            // group's length check below reports it.
            while pos + 16 <= end {
                let chunk = u128::from_le_bytes(page[pos..pos + 16].try_into().expect("16 bytes"));
                if chunk & CONTINUATION_16 == 0 && target - n >= 16 {
                    // Sixteen one-byte varints.
                    for (i, slot) in out[n..n + 16].iter_mut().enumerate() {
                        *slot = T::from_bits(unzigzag(((chunk >> (8 * i)) as u64) & 0x7F));
                    }
                    P::count(Step::ZigzagSixteenOneByte, 1);
                    n += 16;
                    pos += 16;
                    continue;
                }
                let (values, bytes) = chunk16::<W, T>(chunk, &mut out[n..target]);
                P::count(Step::ZigzagChunkVarint, values);
                n += values;
                pos += bytes;
                if values == 0 {
                    // A varint the chunk cannot take whole: the byte loop
                    // below decodes it, or reports why it cannot.
                    break;
                }
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

/// INT32 values, 16 bytes at a time.
pub fn decode_i32_chunk16_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, i32, true, NoProbe>(page, out)
}

/// INT64 values, 16 bytes at a time.
pub fn decode_i64_chunk16_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, i64, true, NoProbe>(page, out)
}

/// INT32 values, a byte at a time (the default).
pub fn decode_i32_bytewise_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, i32, false, NoProbe>(page, out)
}

/// INT64 values, a byte at a time (the default).
pub fn decode_i64_bytewise_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, i64, false, NoProbe>(page, out)
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

/// INT32 implementations, best first: the byte loop measured faster than
/// the chunk reader on every series tried (docs/families/tsfile-more-encodings.md).
pub static IMPLEMENTATIONS_I32: &[crate::Implementation<DecodeI32>] = &[
    crate::Implementation::portable("zigzag/bytewise", decode_i32_bytewise_into),
    crate::Implementation::portable("zigzag/chunk16", decode_i32_chunk16_into),
];

/// INT64 implementations, best first (as INT32).
pub static IMPLEMENTATIONS_I64: &[crate::Implementation<DecodeI64>] = &[
    crate::Implementation::portable("zigzag/bytewise", decode_i64_bytewise_into),
    crate::Implementation::portable("zigzag/chunk16", decode_i64_chunk16_into),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16-byte step itself takes every varint that ends in its chunk (up
    /// to the output's room) and stops before one that runs past it: the
    /// byte loop after it would decode the same values, so only this shows
    /// the fast path doing its share.
    #[test]
    fn chunk16_takes_the_varints_that_end_in_the_chunk() {
        let ones: [u8; 16] = std::array::from_fn(|i| 2 * (i as u8 + 1));
        let mut out = [0i32; 16];
        assert_eq!(chunk16::<32, i32>(u128::from_le_bytes(ones), &mut out), (16, 16));
        assert_eq!(out, std::array::from_fn(|i| i as i32 + 1));
        let mut three = [0i64; 3];
        assert_eq!(chunk16::<64, i64>(u128::from_le_bytes(ones), &mut three), (3, 3));
        assert_eq!(three, [1, 2, 3]);
        // 300 (two bytes: 0xD8 0x04 zigzagged as 600), 1, then a varint
        // that runs to the chunk's end.
        let mut mixed = [0x81u8; 16];
        mixed[..3].copy_from_slice(&[0xD8, 0x04, 0x02]);
        let mut out = [0i32; 16];
        assert_eq!(chunk16::<32, i32>(u128::from_le_bytes(mixed), &mut out), (2, 3));
        assert_eq!(out[..2], [300, 1]);
    }

    /// `varint` at the start of a chunk padded with one-byte zeros.
    fn chunk_with(varint: &[u8]) -> u128 {
        let mut bytes = [0u8; 16];
        bytes[..varint.len()].copy_from_slice(varint);
        u128::from_le_bytes(bytes)
    }

    /// The longest varints each width accepts are taken; one the reader
    /// refuses (too long, a value past the width, a tenth byte above 1)
    /// stops the chunk before it.
    #[test]
    fn chunk16_takes_the_longest_varints_and_stops_at_refused_ones() {
        let mut out32 = [0i32; 1];
        // 2^32 - 1 zigzagged: i32::MIN.
        let widest32 = [0xFF, 0xFF, 0xFF, 0xFF, 0x0F];
        assert_eq!(chunk16::<32, i32>(chunk_with(&widest32), &mut out32), (1, 5));
        assert_eq!(out32, [i32::MIN]);
        for refused in [
            &[0xFF, 0xFF, 0xFF, 0xFF, 0x1F][..],
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
        ] {
            assert_eq!(
                chunk16::<32, i32>(chunk_with(refused), &mut out32),
                (0, 0),
                "{refused:x?}"
            );
        }
        let mut out64 = [0i64; 1];
        // Nine bytes: 63 bits, 2^63 - 1 zigzagged (the last group holds 7 bits).
        let nine = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F];
        assert_eq!(chunk16::<64, i64>(chunk_with(&nine), &mut out64), (1, 9));
        assert_eq!(out64, [i64::MIN / 2]);
        // Ten bytes, the tenth holding bit 63: 2^64 - 1 zigzagged.
        let ten = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01];
        assert_eq!(chunk16::<64, i64>(chunk_with(&ten), &mut out64), (1, 10));
        assert_eq!(out64, [i64::MIN]);
        // Bit 62 alone in the ninth group: the ninth byte's low bit.
        let bit62 = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40];
        assert_eq!(chunk16::<64, i64>(chunk_with(&bit62), &mut out64), (1, 9));
        assert_eq!(out64, [1 << 61]);
        let mut tenth_two = ten;
        tenth_two[9] = 0x02;
        let eleven = [0x80; 11].iter().copied().chain([0]).collect::<Vec<u8>>();
        for refused in [&tenth_two[..], &eleven] {
            assert_eq!(
                chunk16::<64, i64>(chunk_with(refused), &mut out64),
                (0, 0),
                "{refused:x?}"
            );
        }
        // Nine bytes are too long for INT32.
        assert_eq!(chunk16::<32, i32>(chunk_with(&nine), &mut out32), (0, 0));
    }

    /// A ninth byte's varint followed by a byte of 0 or 1: the next varint,
    /// not a tenth byte of this one.
    #[test]
    fn chunk16_ends_a_nine_byte_varint_at_its_ninth_byte() {
        let nine = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F];
        for next in [0x00, 0x01] {
            let varints: Vec<u8> = nine.iter().copied().chain([next]).collect();
            let mut out = [0i64; 2];
            assert_eq!(chunk16::<64, i64>(chunk_with(&varints), &mut out), (2, 10));
            assert_eq!(out, [i64::MIN / 2, -i64::from(next)]);
        }
    }

    /// A group whose bytes hold more varints than its count: the chunk
    /// paths take the count and no more, and the group's length check
    /// refuses the rest, as the byte loop does.
    #[test]
    fn more_varints_than_the_count_are_refused_by_every_path() {
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

    /// One group of `values` varints, each `varint`.
    fn group_of(values: usize, varint: &[u8]) -> Vec<u8> {
        let body: Vec<u8> = varint.iter().copied().cycle().take(values * varint.len()).collect();
        let mut page = Vec::new();
        for v in [body.len(), values] {
            let mut v = v;
            while v >= 0x80 {
                page.push((v as u8 & 0x7F) | 0x80);
                v >>= 7;
            }
            page.push(v as u8);
        }
        page.extend(body);
        page
    }

    /// Which path takes which varints of a group: sixteen one-byte varints
    /// at a time while 16 values and 16 bytes are left, the chunk reader
    /// for the rest of each whole chunk, the byte loop for the group's last
    /// 15 bytes. The byte loop alone would produce the same values.
    #[test]
    fn each_path_takes_its_share() {
        use crate::probe::Counting;
        // (values, varint, sixteen-at-once steps, chunk-reader varints)
        let cases: [(usize, &[u8], usize, usize); 5] = [
            (16, &[0x02], 1, 0),
            (40, &[0x02], 2, 0),
            (15, &[0x02], 0, 0),
            (20, &[0xD8, 0x04], 0, 16),
            (10, &[0x80, 0x80, 0x01], 0, 5),
        ];
        for (values, varint, sixteen, chunked) in cases {
            let page = group_of(values, varint);
            let mut out = vec![0i32; values];
            Counting::reset();
            let done = decode::<32, i32, true, Counting>(&page, &mut out);
            assert_eq!(
                done,
                Ok(Done {
                    values,
                    consumed: page.len()
                }),
                "{values} x {varint:x?}"
            );
            let taken = (
                Counting::steps(Step::ZigzagSixteenOneByte),
                Counting::steps(Step::ZigzagChunkVarint),
            );
            assert_eq!(taken, (sixteen, chunked), "{values} x {varint:x?}");
            let mut bytewise = vec![0i32; values];
            assert_eq!(decode_i32_bytewise_into(&page, &mut bytewise), done);
            assert_eq!(out, bytewise);
        }
    }

    const I32: [DecodeI32; 2] = [decode_i32_chunk16_into, decode_i32_bytewise_into];
    const I64: [DecodeI64; 2] = [decode_i64_chunk16_into, decode_i64_bytewise_into];

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
        // bytes, each followed by enough bytes for the chunk path.
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
        // A 64-bit tenth byte above 1, in the chunk path and the byte path.
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
