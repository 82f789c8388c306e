//! The RLE / bit-packing hybrid (INT32, INT64, BOOLEAN): RLE runs are a fill,
//! bit-packed runs go through the width-specialised group unpacker. RLE run
//! values are little-endian for INT32 / BOOLEAN and big-endian for INT64.

use super::{bitpack, uvarint32, DecodeError, Done, Field, Lane};

/// A run value of `bytes.len()` (at most 8) bytes, zero-extended. Built a
/// byte at a time: runs are short and many, and a copy into a word of
/// variable length is a call to `memcpy`.
#[inline(always)]
fn run_value(bytes: &[u8], big_endian: bool) -> u64 {
    if let [byte] = bytes {
        u64::from(*byte)
    } else if big_endian {
        bytes.iter().fold(0, |v, &b| v << 8 | u64::from(b))
    } else {
        bytes.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b))
    }
}

/// `slice.fill(v)`, with the short runs most pages are made of written by
/// two overlapping stores of a fixed size instead of a call to `memset`.
#[inline(always)]
fn fill<T: Copy>(slice: &mut [T], v: T) {
    let len = slice.len();
    if (8..=16).contains(&len) {
        slice[..8].copy_from_slice(&[v; 8]);
        slice[len - 8..].copy_from_slice(&[v; 8]);
    } else if (16..=32).contains(&len) {
        slice[..16].copy_from_slice(&[v; 16]);
        slice[len - 16..].copy_from_slice(&[v; 16]);
    } else {
        slice.fill(v);
    }
}

/// Decode into `out`; `T::BITS` picks INT32 and BOOLEAN (little-endian run
/// values) or INT64 (big-endian run values).
pub fn decode_into<T: Lane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    decode_runs(page, out, bitpack::unpack)
}

/// The package and run walk, with each bit-packed run's `count` values of
/// `width` bits unpacked by `unpack` from the page bytes where its groups
/// start (the rest of the page follows them).
#[inline(always)]
fn decode_runs<T: Lane>(
    page: &[u8],
    out: &mut [T],
    unpack: impl Fn(&[u8], u32, usize, &mut [T]),
) -> Result<Done, DecodeError> {
    let max = out.len();
    let big_endian = T::BITS == 64;
    let mut pos = 0;
    let mut n = 0;
    while pos < page.len() {
        let pkg = pos;
        let (len, k) = uvarint32(page, pos, Field::RleLength)?;
        pos += k;
        let len = len as usize;
        if len > page.len() - pos {
            return Err(DecodeError::BadCount {
                field: Field::RleLength,
                count: len as i64,
                offset: pkg,
            });
        }
        let end = pos + len;
        let body = &page[..end];
        let width = *body.get(pos).ok_or(DecodeError::Truncated {
            field: Field::RleBitWidth,
            offset: pos,
            bit: 0,
        })? as u32;
        if width > T::BITS {
            return Err(DecodeError::BadBitWidth {
                width: width as i64,
                max: T::BITS,
                offset: pos,
            });
        }
        pos += 1;
        while pos < end {
            let run = pos;
            let (header, k) = uvarint32(body, pos, Field::RunHeader)?;
            pos += k;
            if header & 1 == 0 {
                let count = (header >> 1) as usize;
                if count == 0 {
                    return Err(DecodeError::BadCount {
                        field: Field::RunHeader,
                        count: 0,
                        offset: run,
                    });
                }
                if count > max - n {
                    return Err(DecodeError::TooManyValues { max, offset: run });
                }
                let size = width.div_ceil(8) as usize;
                let bytes = body.get(pos..pos + size).ok_or(DecodeError::Truncated {
                    field: Field::RunValue,
                    offset: pos,
                    bit: 0,
                })?;
                fill(&mut out[n..n + count], T::from_bits(run_value(bytes, big_endian)));
                n += count;
                pos += size;
            } else {
                let groups = (header >> 1) as usize;
                if groups == 0 {
                    return Err(DecodeError::BadCount {
                        field: Field::Groups,
                        count: 0,
                        offset: run,
                    });
                }
                let last = *body.get(pos).ok_or(DecodeError::Truncated {
                    field: Field::LastBitPackedNum,
                    offset: pos,
                    bit: 0,
                })? as usize;
                if last > 8 {
                    return Err(DecodeError::BadCount {
                        field: Field::LastBitPackedNum,
                        count: last as i64,
                        offset: pos,
                    });
                }
                pos += 1;
                // In u64: up to 2^31 groups overflow a 32-bit usize.
                let count = (groups as u64 - 1) * 8 + last as u64;
                if count > (max - n) as u64 {
                    return Err(DecodeError::TooManyValues { max, offset: run });
                }
                let count = count as usize;
                let packed_len = groups as u64 * u64::from(width);
                if ((end - pos) as u64) < packed_len {
                    return Err(DecodeError::Truncated {
                        field: Field::Groups,
                        offset: pos,
                        bit: 0,
                    });
                }
                let packed_len = packed_len as usize;
                // The rest of the page, not only this run's bytes: the
                // unpacker decodes `count` values either way, and loads that
                // may run on into the next run keep a short run's groups off
                // its zero-padded copy.
                unpack(&page[pos..], width, count, &mut out[n..n + count]);
                n += count;
                pos += packed_len;
            }
        }
        pos = end;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode_into(page, out)
}

pub fn decode_i64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode_into(page, out)
}

/// BOOLEAN: an INT32 stream, any non-zero value true, decoded straight
/// into booleans (an RLE run is one fill). Writers pack booleans one bit
/// wide, and those runs are spread a byte (eight values) at a time.
pub fn decode_bool_into(page: &[u8], out: &mut [bool]) -> Result<Done, DecodeError> {
    decode_runs(page, out, |packed, width, count, out| {
        if width == 1 {
            unpack_flags(packed, count, out);
        } else {
            bitpack::unpack(packed, width, count, out);
        }
    })
}

/// `SPREAD[b]` holds byte `b`'s bits as eight booleans, its most
/// significant bit (the first value, MSB-first) first.
const SPREAD: [[bool; 8]; 256] = {
    let mut table = [[false; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            table[b][j] = (b >> (7 - j)) & 1 == 1;
            j += 1;
        }
        b += 1;
    }
    table
};

/// `n` one-bit values, MSB-first, from `packed` (at least `ceil(n / 8)`
/// bytes) as booleans.
fn unpack_flags(packed: &[u8], n: usize, out: &mut [bool]) {
    let (whole, rest) = out[..n].split_at_mut(n / 8 * 8);
    for (chunk, &byte) in whole.chunks_exact_mut(8).zip(packed) {
        chunk.copy_from_slice(&SPREAD[byte as usize]);
    }
    if !rest.is_empty() {
        // Fewer than eight: a loop, where a copy of variable length would
        // be a call.
        for (slot, &bit) in rest.iter_mut().zip(&SPREAD[packed[n / 8] as usize]) {
            *slot = bit;
        }
    }
}

pub type DecodeI32 = fn(&[u8], &mut [i32]) -> Result<Done, DecodeError>;
pub type DecodeI64 = fn(&[u8], &mut [i64]) -> Result<Done, DecodeError>;

/// INT32 implementations, best first.
pub static IMPLEMENTATIONS_I32: &[crate::Implementation<DecodeI32>] =
    &[crate::Implementation::portable("rle/unrolled", decode_i32_into)];
/// INT64 implementations, best first.
pub static IMPLEMENTATIONS_I64: &[crate::Implementation<DecodeI64>] =
    &[crate::Implementation::portable("rle/unrolled", decode_i64_into)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpp_writer_page() {
        // The official C++ writer's RLE page for INT32 0, -1, -2, -3, -4.
        let mut page = vec![0x23, 0x20, 0x03, 0x05];
        for v in [0i32, -1, -2, -3, -4, 0, 0, 0] {
            page.extend_from_slice(&v.to_be_bytes());
        }
        let mut out = [0i32; 6];
        assert_eq!(
            decode_i32_into(&page, &mut out),
            Ok(Done {
                values: 5,
                consumed: page.len()
            })
        );
        assert_eq!(out, [0, -1, -2, -3, -4, 0]);
    }

    /// A bit-packed run declaring 2^29 + 1 or 2^29 groups: its value count
    /// (2^32 + 1, 2^32 - 1) and byte length overflow a 32-bit `usize`, where
    /// wrapped arithmetic would accept one value or read past the page.
    #[test]
    fn group_counts_past_32_bits_are_too_many_values() {
        let mut out = vec![0i32; 1000];
        let too_many = |offset| Err(DecodeError::TooManyValues { max: 1000, offset });
        let wraps_to_one_value = [
            0x0f, 0x08, 0x83, 0x80, 0x80, 0x80, 0x04, 0x01, 0x2a, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(decode_i32_into(&wraps_to_one_value, &mut out), too_many(2));
        let wraps_to_no_bytes = [0x09, 0x08, 0x02, 0x01, 0x81, 0x80, 0x80, 0x80, 0x04, 0x07];
        assert_eq!(decode_i32_into(&wraps_to_no_bytes, &mut out), too_many(4));
    }

    /// A page of one package of random runs of `width`-bit values: RLE runs
    /// of 1 to 40 values (the lengths the short fills take), and bit-packed
    /// runs of 1 to 5 groups whose last group holds 1 to 8 values.
    fn random_page(next: &mut impl FnMut() -> u64, width: u32, runs: usize) -> (Vec<u8>, Vec<u32>) {
        let mask = if width == 32 { u32::MAX } else { (1u32 << width) - 1 };
        let value = |next: &mut dyn FnMut() -> u64| match next() % 3 {
            0 => 0,
            1 => 1 & mask,
            _ => next() as u32 & mask,
        };
        let (mut body, mut values) = (vec![width as u8], Vec::new());
        for _ in 0..runs {
            if next().is_multiple_of(2) {
                let count = 1 + next() % 40;
                let v = value(next);
                crate::tsfile::test_leb128(count << 1, &mut body);
                body.extend_from_slice(&v.to_le_bytes()[..width.div_ceil(8) as usize]);
                values.extend(std::iter::repeat_n(v, count as usize));
            } else {
                let groups = 1 + next() % 5;
                let last = 1 + next() % 8;
                crate::tsfile::test_leb128(groups << 1 | 1, &mut body);
                body.push(last as u8);
                let run: Vec<u32> = (0..groups * 8).map(|_| value(next)).collect();
                let (mut acc, mut bits) = (0u128, 0u32);
                for &v in &run {
                    acc = acc << width | u128::from(v);
                    bits += width;
                    while bits >= 8 {
                        bits -= 8;
                        body.push((acc >> bits) as u8);
                    }
                }
                values.extend_from_slice(&run[..((groups - 1) * 8 + last) as usize]);
            }
        }
        let mut page = Vec::new();
        crate::tsfile::test_leb128(body.len() as u64, &mut page);
        page.extend(body);
        (page, values)
    }

    /// BOOLEAN pages read as the INT32 stream they are, any non-zero value
    /// true: one-bit runs through the byte spreader, wider ones through the
    /// unpacker, fills of every short length. Nothing past the values is
    /// written, whichever boolean the buffer held.
    #[test]
    fn booleans_are_the_int32_stream_non_zero() {
        let mut next = crate::xorshift(0x5EED_B001);
        for width in [1, 2, 7, 32] {
            for runs in [1, 2, 5, 40] {
                let (page, values) = random_page(&mut next, width, runs);
                let want: Vec<bool> = values.iter().map(|&v| v != 0).collect();
                let mut ints = vec![0u32; values.len()];
                assert_eq!(decode_into(&page, &mut ints).unwrap().values, values.len());
                assert_eq!(ints, values, "width {width}: the INT32 reading of the test page");
                for canary in [false, true] {
                    let mut out = vec![canary; want.len() + 20];
                    let done = decode_bool_into(&page, &mut out).unwrap();
                    assert_eq!(
                        done,
                        Done {
                            values: want.len(),
                            consumed: page.len()
                        }
                    );
                    assert_eq!(out[..want.len()], want[..], "width {width} runs {runs}");
                    assert!(out[want.len()..].iter().all(|&b| b == canary), "wrote past the values");
                }
            }
        }
    }

    /// Fills of every length, each inside its own run: the two overlapping
    /// stores of a short fill stay inside it.
    #[test]
    fn fills_of_every_length_stay_in_their_run() {
        for len in 0..70 {
            let mut buf = vec![0u8; len + 40];
            fill(&mut buf[20..20 + len], 7);
            assert!(buf[..20].iter().all(|&b| b == 0), "len {len}");
            assert!(buf[20..20 + len].iter().all(|&b| b == 7), "len {len}");
            assert!(buf[20 + len..].iter().all(|&b| b == 0), "len {len}");
        }
    }

    /// Every byte spreads to its eight values first bit first, for whole
    /// bytes and the partial byte of a run's last group.
    #[test]
    fn flags_spread_most_significant_bit_first() {
        let packed: Vec<u8> = (0..=255).collect();
        for n in [0, 1, 7, 8, 9, 2047, 2048] {
            let mut out = vec![false; n];
            unpack_flags(&packed, n, &mut out);
            for (i, &b) in out.iter().enumerate() {
                assert_eq!(b, packed[i / 8] >> (7 - i % 8) & 1 == 1, "n {n} value {i}");
            }
        }
    }

    #[test]
    fn run_value_byte_order() {
        let mut out32 = [0i32; 3];
        assert_eq!(decode_i32_into(&[4, 16, 6, 0x34, 0x12], &mut out32).unwrap().values, 3);
        assert_eq!(out32, [0x1234; 3]);
        let mut out64 = [0i64; 3];
        assert_eq!(decode_i64_into(&[4, 16, 6, 0x12, 0x34], &mut out64).unwrap().values, 3);
        assert_eq!(out64, [0x1234; 3]);
        let mut b = [false; 4];
        assert_eq!(decode_bool_into(&[3, 1, 4, 1], &mut b).unwrap().values, 2);
        assert_eq!(b, [true, true, false, false]);
    }
}
