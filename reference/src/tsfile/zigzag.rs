//! ZIGZAG (encoding id 9) for INT32 and INT64. A page is a sequence of groups
//! `uvarint byteLength | uvarint count | count LEB128 varints of
//! (v << 1) ^ (v >> 31|63)` until its bytes end. The writers put one group
//! in a page and write nothing for an empty page.

use super::{write_uvarint, Bytes, DecodeError, Decoded, Field};

/// Decode a whole INT32 page.
pub fn decode_i32(page: &[u8], max_values: usize) -> Result<Decoded<i32>, DecodeError> {
    let d = decode(page, 32, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|u| unzigzag(u) as i32).collect(),
        consumed: d.consumed,
    })
}

/// Decode a whole INT64 page.
pub fn decode_i64(page: &[u8], max_values: usize) -> Result<Decoded<i64>, DecodeError> {
    let d = decode(page, 64, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(unzigzag).collect(),
        consumed: d.consumed,
    })
}

/// `(u >> 1) ^ -(u & 1)`; for a 32-bit pattern the result fits an i32.
fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// The zigzag patterns, unsigned (`width` 32: at most 5 bytes, below 2^32).
fn decode(page: &[u8], width: u32, max_values: usize) -> Result<Decoded<u64>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values: Vec<u64> = Vec::new();
    while !r.at_end() {
        let group = r.pos;
        let len = r.uvarint32(Field::ZigzagLength)? as usize;
        let count_at = r.pos;
        let count = r.uvarint32(Field::ZigzagCount)? as usize;
        if len > r.remaining() {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: len as i64,
                offset: group,
            });
        }
        // Every value takes at least one byte; the writers never write an
        // empty group.
        if count == 0 || count > len {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagCount,
                count: count as i64,
                offset: count_at,
            });
        }
        if count > max_values - values.len() {
            return Err(DecodeError::TooManyValues {
                max: max_values,
                offset: group,
            });
        }
        let end = r.pos + len;
        // The group's own cursor: a varint may not run past the group.
        let mut b = Bytes {
            data: &page[..end],
            pos: r.pos,
        };
        for _ in 0..count {
            let v = if width == 32 {
                b.uvarint32(Field::ZigzagValue)? as u64
            } else {
                b.uvarint64(Field::ZigzagValue)?
            };
            values.push(v);
        }
        // Bytes left in the group: its length and its count disagree.
        if b.pos != end {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: len as i64,
                offset: group,
            });
        }
        r.pos = end;
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

/// Encode INT32 values as the writers do: one group, nothing if empty.
pub fn encode_i32(values: &[i32]) -> Vec<u8> {
    let z: Vec<u64> = values.iter().map(|&v| ((v << 1) ^ (v >> 31)) as u32 as u64).collect();
    encode(&z)
}

/// Encode INT64 values as the writers do: one group, nothing if empty.
pub fn encode_i64(values: &[i64]) -> Vec<u8> {
    let z: Vec<u64> = values.iter().map(|&v| ((v << 1) ^ (v >> 63)) as u64).collect();
    encode(&z)
}

fn encode(zigzagged: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    if zigzagged.is_empty() {
        return out;
    }
    let mut body = Vec::new();
    for &z in zigzagged {
        write_uvarint(&mut body, z);
    }
    write_uvarint(&mut out, body.len() as u64);
    write_uvarint(&mut out, zigzagged.len() as u64);
    out.extend_from_slice(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    #[test]
    fn known_answers() {
        // 0 → 00, -1 → 01, 1 → 02, 64 → 128 = 80 01, MIN → ff ff ff ff 0f:
        // 10 bytes of varints, 5 values.
        let page = encode_i32(&[0, -1, 1, 64, i32::MIN]);
        insta::assert_snapshot!(hex(&page), @"0a 05 00 01 02 80 01 ff ff ff ff 0f");
        assert_eq!(
            decode_i32(&page, 5).unwrap(),
            Decoded {
                values: vec![0, -1, 1, 64, i32::MIN],
                consumed: 12
            }
        );
        // i64::MIN → 2^64 - 1: nine ff bytes then 01; i64::MAX → 2^64 - 2.
        let page = encode_i64(&[i64::MIN, i64::MAX, -2]);
        insta::assert_snapshot!(hex(&page), @"15 03 ff ff ff ff ff ff ff ff ff 01 fe ff ff ff ff ff ff ff ff 01 03");
        assert_eq!(decode_i64(&page, 3).unwrap().values, vec![i64::MIN, i64::MAX, -2]);
        assert!(encode_i32(&[]).is_empty());
        assert_eq!(
            decode_i64(&[], 0).unwrap(),
            Decoded {
                values: vec![],
                consumed: 0
            }
        );
    }

    #[test]
    fn edge_values_and_runs() {
        let mut v32 = vec![0, 1, -1, i32::MIN, i32::MAX, 63, 64, -64, -65];
        v32.extend(std::iter::repeat_n(7, 1000));
        v32.extend((0..100).map(|i| if i % 2 == 0 { i32::MIN } else { i32::MAX }));
        let page = encode_i32(&v32);
        assert_eq!(decode_i32(&page, v32.len()).unwrap().values, v32);
        let mut v64 = vec![0, 1, -1, i64::MIN, i64::MAX, i32::MIN as i64 - 1, 1 << 62];
        v64.extend(std::iter::repeat_n(-3, 1000));
        let page = encode_i64(&v64);
        assert_eq!(decode_i64(&page, v64.len()).unwrap().values, v64);
    }

    #[test]
    fn several_groups_and_non_minimal_varints() {
        // The Java reader starts a new group when one ends and bytes remain.
        let mut page = encode_i32(&[1, 2]);
        page.extend(encode_i32(&[-3]));
        assert_eq!(decode_i32(&page, 3).unwrap().values, vec![1, 2, -3]);
        // 0 written as 80 00 is still 0 (Java's reader accepts it).
        assert_eq!(decode_i64(&[2, 1, 0x80, 0], 1).unwrap().values, vec![0]);
    }

    #[test]
    fn every_error_variant() {
        let tr = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
        assert_eq!(decode_i32(&[0x80], 9), Err(tr(Field::ZigzagLength, 0)));
        assert_eq!(decode_i32(&[1], 9), Err(tr(Field::ZigzagCount, 1)));
        assert_eq!(decode_i32(&[1, 0x81], 9), Err(tr(Field::ZigzagCount, 1)));
        let bad_count = |count, offset| DecodeError::BadCount {
            field: Field::ZigzagCount,
            count,
            offset,
        };
        assert_eq!(decode_i32(&[1, 0, 0], 9), Err(bad_count(0, 1)));
        assert_eq!(decode_i32(&[1, 2, 0, 0], 9), Err(bad_count(2, 1)));
        // Length beyond the page.
        assert_eq!(
            decode_i32(&[3, 1, 0, 0], 9),
            Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: 3,
                offset: 0
            })
        );
        // Bytes left over in the group (two varints, count 1).
        assert_eq!(
            decode_i32(&[2, 1, 0, 0], 9),
            Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: 2,
                offset: 0
            })
        );
        // A varint running past its group (but not past the page).
        assert_eq!(decode_i32(&[2, 2, 0, 0x80, 0], 9), Err(tr(Field::ZigzagValue, 3)));
        // Varints too long for their type.
        assert_eq!(
            decode_i32(&[6, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], 9),
            Err(DecodeError::BadVarint { offset: 2 })
        );
        assert_eq!(
            decode_i32(&[5, 1, 0xff, 0xff, 0xff, 0xff, 0x1f], 9),
            Err(DecodeError::BadVarint { offset: 2 })
        );
        let mut long = vec![10, 1];
        long.extend([0xff; 9]);
        long.push(0x02);
        assert_eq!(decode_i64(&long, 9), Err(DecodeError::BadVarint { offset: 2 }));
        let mut long = vec![11, 1];
        long.extend([0x80; 10]);
        long.push(0);
        assert_eq!(decode_i64(&long, 9), Err(DecodeError::BadVarint { offset: 2 }));
        // Second group over the limit.
        let mut page = encode_i32(&[1, 2]);
        let second = page.len();
        page.extend(encode_i32(&[3]));
        assert_eq!(
            decode_i32(&page, 2),
            Err(DecodeError::TooManyValues { max: 2, offset: second })
        );
        assert_eq!(
            decode_i64(&encode_i64(&[5]), 0),
            Err(DecodeError::TooManyValues { max: 0, offset: 0 })
        );
    }

    #[test]
    fn every_prefix_is_an_error_or_shorter() {
        let mut page = encode_i64(&[1, -300, i64::MIN]);
        page.extend(encode_i64(&[9]));
        for n in 0..page.len() {
            if let Ok(d) = decode_i64(&page[..n], 9) {
                assert!(d.values.len() < 4 && d.consumed == n);
            }
        }
        let page = encode_i32(&[i32::MAX, 0, -1]);
        for n in 0..page.len() {
            if let Ok(d) = decode_i32(&page[..n], 9) {
                assert!(d.values.is_empty() && n == 0);
            }
        }
    }

    /// Bytes written by the official writer (PyPI `tsfile` 2.5.0, the C++
    /// library), as hex.
    use crate::tsfile::test_unhex as unhex;

    #[test]
    fn official_writer_pages() {
        // Pages of single-page chunks written with ZIGZAG by PyPI tsfile 2.5.0.
        let p = unhex("0a 05 00 01 02 80 01 ff ff ff ff 0f");
        assert_eq!(encode_i32(&[0, -1, 1, 64, i32::MIN]), p);
        assert_eq!(decode_i32(&p, 5).unwrap().values, vec![0, -1, 1, 64, i32::MIN]);
        let p = unhex("15 03 ff ff ff ff ff ff ff ff ff 01 fe ff ff ff ff ff ff ff ff 01 03");
        assert_eq!(encode_i64(&[i64::MIN, i64::MAX, -2]), p);
        assert_eq!(decode_i64(&p, 3).unwrap().values, vec![i64::MIN, i64::MAX, -2]);
    }

    proptest! {
        #[test]
        fn round_trip_i32(v in proptest::collection::vec(any::<i32>(), 0..300)) {
            let page = encode_i32(&v);
            let d = decode_i32(&page, v.len()).unwrap();
            prop_assert_eq!(d.values, v);
            prop_assert_eq!(d.consumed, page.len());
        }
        #[test]
        fn round_trip_i64(v in proptest::collection::vec(any::<i64>(), 0..300)) {
            let page = encode_i64(&v);
            let d = decode_i64(&page, v.len()).unwrap();
            prop_assert_eq!(d.values, v);
            prop_assert_eq!(d.consumed, page.len());
        }
    }
}
