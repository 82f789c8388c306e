//! The RLE / bit-packing hybrid (INT32, INT64, BOOLEAN): RLE runs are a fill,
//! bit-packed runs go through the width-specialised group unpacker. RLE run
//! values are little-endian for INT32 / BOOLEAN and big-endian for INT64.

use super::{bitpack, uvarint32, DecodeError, Done, Field, Lane};

/// A run value of `bytes.len()` (at most 8) bytes, zero-extended.
#[inline(always)]
fn run_value(bytes: &[u8], big_endian: bool) -> u64 {
    let mut word = [0u8; 8];
    if big_endian {
        word[8 - bytes.len()..].copy_from_slice(bytes);
        u64::from_be_bytes(word)
    } else {
        word[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(word)
    }
}

/// Decode into `out`; `T::BITS` picks INT32 (little-endian run values) or
/// INT64 (big-endian run values).
pub fn decode_into<T: Lane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
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
                out[n..n + count].fill(T::from_bits(run_value(bytes, big_endian)));
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
                let used = (count as u64 * u64::from(width)).div_ceil(8) as usize;
                bitpack::unpack(&body[pos..pos + used], width, count, &mut out[n..n + count]);
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

/// BOOLEAN: an INT32 stream, any non-zero value true. Uses `scratch` (grown
/// as needed, kept by the caller across pages) for the INT32 lanes.
pub fn decode_bool_into(page: &[u8], scratch: &mut Vec<u32>, out: &mut [bool]) -> Result<Done, DecodeError> {
    // Grow only (a no-op when the scratch is already long enough).
    scratch.resize(scratch.len().max(out.len()), 0);
    let done = decode_into::<u32>(page, &mut scratch[..out.len()])?;
    for (o, &v) in out.iter_mut().zip(&scratch[..done.values]) {
        *o = v != 0;
    }
    Ok(done)
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

    #[test]
    fn run_value_byte_order() {
        let mut out32 = [0i32; 3];
        assert_eq!(decode_i32_into(&[4, 16, 6, 0x34, 0x12], &mut out32).unwrap().values, 3);
        assert_eq!(out32, [0x1234; 3]);
        let mut out64 = [0i64; 3];
        assert_eq!(decode_i64_into(&[4, 16, 6, 0x12, 0x34], &mut out64).unwrap().values, 3);
        assert_eq!(out64, [0x1234; 3]);
        let mut scratch = Vec::new();
        let mut b = [false; 4];
        assert_eq!(decode_bool_into(&[3, 1, 4, 1], &mut scratch, &mut b).unwrap().values, 2);
        assert_eq!(b, [true, true, false, false]);
    }
}
