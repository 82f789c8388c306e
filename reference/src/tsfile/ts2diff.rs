//! TS_2DIFF for INT32 and INT64: blocks of `writeIndex + 1` values, each
//! `writeIndex:i32 bitWidth:i32 minDeltaBase firstValue packed` (big-endian,
//! packed MSB-first), until the page's bytes end.

use super::{BitWriter, Bits, Bytes, DecodeError, Decoded, Field};

/// The largest `writeIndex` accepted. The writers use 128; anything far
/// beyond is corruption, and refusing it early keeps one 24-byte header
/// from claiming millions of values.
pub const MAX_BLOCK_DELTAS: i64 = 1 << 16;

/// The Java and C++ writers' block size (deltas per block).
pub const DEFAULT_BLOCK: usize = 128;

/// Decode a whole INT32 page.
pub fn decode_i32(page: &[u8], max_values: usize) -> Result<Decoded<i32>, DecodeError> {
    let d = decode(page, 32, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as u32 as i32).collect(),
        consumed: d.consumed,
    })
}

/// Decode a whole INT64 page.
pub fn decode_i64(page: &[u8], max_values: usize) -> Result<Decoded<i64>, DecodeError> {
    let d = decode(page, 64, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as i64).collect(),
        consumed: d.consumed,
    })
}

fn mask(width: u32) -> u64 {
    if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Values as `width`-bit unsigned patterns (width 32 or 64).
fn decode(page: &[u8], width: u32, max_values: usize) -> Result<Decoded<u64>, DecodeError> {
    let word = (width / 8) as usize;
    let mut r = Bytes::new(page);
    let mut values: Vec<u64> = Vec::new();
    while !r.at_end() {
        let block = r.pos;
        let write_index = r.be(4, Field::WriteIndex)? as u32 as i32 as i64;
        if !(0..=MAX_BLOCK_DELTAS).contains(&write_index) {
            return Err(DecodeError::BadCount {
                field: Field::WriteIndex,
                count: write_index,
                offset: block,
            });
        }
        let bw_at = r.pos;
        let bit_width = r.be(4, Field::BitWidth)? as u32 as i32 as i64;
        if !(0..=width as i64).contains(&bit_width) {
            return Err(DecodeError::BadBitWidth {
                width: bit_width,
                max: width,
                offset: bw_at,
            });
        }
        let min_delta = r.be(word, Field::MinDeltaBase)?;
        let first = r.be(word, Field::FirstValue)?;
        let n = write_index as usize;
        if n >= max_values - values.len() {
            return Err(DecodeError::TooManyValues {
                max: max_values,
                offset: block,
            });
        }
        let packed_at = r.pos;
        let packed_len = (n * bit_width as usize).div_ceil(8);
        let packed = page.get(packed_at..).unwrap_or(&[]);
        let mut bits = Bits::new(packed);
        values.push(first);
        let mut prev = first;
        for _ in 0..n {
            let p = bits.bits(bit_width as u32).ok_or(DecodeError::Truncated {
                field: Field::Packed,
                offset: packed_at,
                bit: 0,
            })?;
            prev = prev.wrapping_add(min_delta).wrapping_add(p) & mask(width);
            values.push(prev);
        }
        // The padding bits of the last byte are skipped, whatever they hold.
        if packed.len() < packed_len {
            return Err(DecodeError::Truncated {
                field: Field::Packed,
                offset: packed_at,
                bit: 0,
            });
        }
        r.pos = packed_at + packed_len;
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

/// Encode INT32 values in blocks of `block` deltas. `stale_padding` fills the
/// unused bits of each block's last byte with ones, as a reused Java buffer may.
pub fn encode_i32(values: &[i32], block: usize, stale_padding: bool) -> Vec<u8> {
    let v: Vec<u64> = values.iter().map(|&x| x as u32 as u64).collect();
    encode(&v, 32, block, stale_padding)
}

/// Encode INT64 values; see [`encode_i32`].
pub fn encode_i64(values: &[i64], block: usize, stale_padding: bool) -> Vec<u8> {
    let v: Vec<u64> = values.iter().map(|&x| x as u64).collect();
    encode(&v, 64, block, stale_padding)
}

fn sign(v: u64, width: u32) -> i64 {
    if width == 32 {
        v as u32 as i32 as i64
    } else {
        v as i64
    }
}

fn encode(values: &[u64], width: u32, block: usize, stale_padding: bool) -> Vec<u8> {
    assert!(block >= 1);
    let word = (width / 8) as usize;
    let mut out = Vec::new();
    for chunk in values.chunks(block + 1) {
        let deltas: Vec<u64> = chunk
            .windows(2)
            .map(|w| w[1].wrapping_sub(w[0]) & mask(width))
            .collect();
        // Smallest delta as a signed number; MAX_VALUE for a one-value block.
        let min = deltas
            .iter()
            .copied()
            .min_by_key(|&d| sign(d, width))
            .unwrap_or(mask(width) >> 1);
        let packed: Vec<u64> = deltas.iter().map(|&d| d.wrapping_sub(min) & mask(width)).collect();
        let bit_width = packed.iter().map(|&p| 64 - p.leading_zeros()).max().unwrap_or(0);
        out.extend_from_slice(&(deltas.len() as u32).to_be_bytes());
        out.extend_from_slice(&bit_width.to_be_bytes());
        out.extend_from_slice(&min.to_be_bytes()[8 - word..]);
        out.extend_from_slice(&chunk[0].to_be_bytes()[8 - word..]);
        let mut w = BitWriter::default();
        for &p in &packed {
            w.bits(p, bit_width);
        }
        if stale_padding {
            w.pad_with_ones();
        }
        out.extend_from_slice(&w.bytes);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::test_len;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    #[test]
    fn known_answer_int64_five_values() {
        // What the official C++ writer produced for 1000..=1004 (a time column).
        let page = encode_i64(&[1000, 1001, 1002, 1003, 1004], DEFAULT_BLOCK, false);
        insta::assert_snapshot!(hex(&page), @"00 00 00 04 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 03 e8");
        assert_eq!(
            decode_i64(&page, 10).unwrap().values,
            vec![1000, 1001, 1002, 1003, 1004]
        );
    }

    #[test]
    fn known_answer_int32_packed() {
        let page = encode_i32(&[7, 5, 9, 8], DEFAULT_BLOCK, false);
        // deltas -2, 4, -1 → min -2, packed 0, 6, 1 in 3 bits: 000 110 001 → 0x18 0x80
        insta::assert_snapshot!(hex(&page), @"00 00 00 03 00 00 00 03 ff ff ff fe 00 00 00 07 18 80");
        assert_eq!(decode_i32(&page, 4).unwrap().values, vec![7, 5, 9, 8]);
    }

    #[test]
    fn one_value_block_and_stale_padding() {
        let page = encode_i64(&[5; 130], 128, true);
        let d = decode_i64(&page, 130).unwrap();
        assert_eq!(d.values, vec![5; 130]);
        assert_eq!(d.consumed, page.len());
        let mut page = encode_i32(&[1, 4, 2], 128, true);
        assert_eq!(*page.last().unwrap() & 0x3, 0x3, "padding holds ones");
        assert_eq!(decode_i32(&page, 3).unwrap().values, vec![1, 4, 2]);
        *page.last_mut().unwrap() &= !0x3;
        assert_eq!(decode_i32(&page, 3).unwrap().values, vec![1, 4, 2]);
    }

    #[test]
    fn block_size_and_one_value_blocks() {
        // A block of `block` deltas holds `block + 1` values: 130 values
        // with the writers' 128 make a block of writeIndex 128 and then a
        // one-value block (writeIndex 0, bitWidth 0, minDeltaBase MAX_VALUE).
        let v: Vec<i64> = (0..130).collect();
        let page = encode_i64(&v, DEFAULT_BLOCK, false);
        assert_eq!(page[..4], [0, 0, 0, 128]);
        // First block: 24 header bytes, 128 deltas of 1 at width 0.
        insta::assert_snapshot!(hex(&page[24..]), @"00 00 00 00 00 00 00 00 7f ff ff ff ff ff ff ff 00 00 00 00 00 00 00 81");
        let page = encode_i32(&[5], DEFAULT_BLOCK, false);
        insta::assert_snapshot!(hex(&page), @"00 00 00 00 00 00 00 00 7f ff ff ff 00 00 00 05");
        // Block size 2: three values, then the rest.
        let page = encode_i32(&[1, 2, 3, 4], 2, false);
        assert_eq!(page[..4], [0, 0, 0, 2]);
        assert_eq!(decode_i32(&page, 4).unwrap().values, vec![1, 2, 3, 4]);
    }

    #[test]
    fn a_later_block_over_the_limit() {
        // Blocks of two values (16 header bytes, one delta of width 0, no
        // packed byte): the second, at 16, does not fit in three.
        let page = encode_i32(&[1, 2, 3, 4], 1, false);
        assert_eq!(
            decode_i32(&page, 3),
            Err(DecodeError::TooManyValues { max: 3, offset: 16 })
        );
        assert_eq!(decode_i32(&page, 4).unwrap().values, vec![1, 2, 3, 4]);
    }

    #[test]
    fn every_error_variant() {
        let page = encode_i64(&[1, 2, 100], 128, false);
        assert_eq!(
            decode_i64(&page[..2], 9),
            Err(DecodeError::Truncated {
                field: Field::WriteIndex,
                offset: 0,
                bit: 0
            })
        );
        assert_eq!(
            decode_i64(&page[..6], 9),
            Err(DecodeError::Truncated {
                field: Field::BitWidth,
                offset: 4,
                bit: 0
            })
        );
        assert_eq!(
            decode_i64(&page[..12], 9),
            Err(DecodeError::Truncated {
                field: Field::MinDeltaBase,
                offset: 8,
                bit: 0
            })
        );
        assert_eq!(
            decode_i64(&page[..20], 9),
            Err(DecodeError::Truncated {
                field: Field::FirstValue,
                offset: 16,
                bit: 0
            })
        );
        assert_eq!(
            decode_i64(&page[..24], 9),
            Err(DecodeError::Truncated {
                field: Field::Packed,
                offset: 24,
                bit: 0
            })
        );
        assert_eq!(
            decode_i64(&page, 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 0 })
        );
        let mut bad = page.clone();
        bad[0] = 0x80;
        assert_eq!(
            decode_i64(&bad, 9),
            Err(DecodeError::BadCount {
                field: Field::WriteIndex,
                count: (i32::MIN + 2) as i64,
                offset: 0
            })
        );
        let mut bad = page.clone();
        bad[7] = 65;
        assert_eq!(
            decode_i64(&bad, 9),
            Err(DecodeError::BadBitWidth {
                width: 65,
                max: 64,
                offset: 4
            })
        );
        let bad = encode_i32(&[1, 2], 128, false);
        let mut bad32 = bad.clone();
        bad32[7] = 33;
        assert_eq!(
            decode_i32(&bad32, 9),
            Err(DecodeError::BadBitWidth {
                width: 33,
                max: 32,
                offset: 4
            })
        );
    }

    proptest! {
        #[test]
        fn round_trip_i64(v in proptest::collection::vec(any::<i64>(), 0..test_len(400)), block in 1usize..200, pad: bool) {
            let page = encode_i64(&v, block, pad);
            let d = decode_i64(&page, v.len()).unwrap();
            prop_assert_eq!(d.values, v);
            prop_assert_eq!(d.consumed, page.len());
        }
        #[test]
        fn round_trip_i32(v in proptest::collection::vec(any::<i32>(), 0..test_len(400)), block in 1usize..200, pad: bool) {
            let page = encode_i32(&v, block, pad);
            prop_assert_eq!(decode_i32(&page, v.len()).unwrap().values, v);
        }
    }
}
