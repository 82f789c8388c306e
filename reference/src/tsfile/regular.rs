//! REGULAR (encoding id 7) for INT32 / DATE and INT64 / TIMESTAMP, from
//! `docs/reference/tsfile-encodings.md`. A page is blocks until its bytes end:
//! `missing u8 | [bitmapLen i32 BE | bitmap] | count i32 BE | delta | first`
//! (delta and first 4 or 8 bytes, big-endian). A block's values are
//! `first + k·delta` for the positions `k` it keeps: all of `0..count`, or
//! with missing points position 0 and the bitmap's set positions (LSB first).

use std::fmt;

use super::{Bytes, DecodeError, Decoded, Field};

/// The Java writer's block: 128 values.
pub const DEFAULT_BLOCK: usize = 128;

/// The most positions the reference encoder writes a bitmap for (8 KiB of
/// bitmap). Larger blocks are what a generator gets a plain fallback for:
/// every decoder walks a bitmap's positions, and millions of them would
/// make one generated page cost what thousands of fuzz executions should.
pub const MAX_ENCODED_COUNT: i64 = 1 << 16;

/// Decode a whole INT32 (or DATE) page.
pub fn decode_i32(page: &[u8], max_values: usize) -> Result<Decoded<i32>, DecodeError> {
    let d = decode(page, 4, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as u32 as i32).collect(),
        consumed: d.consumed,
    })
}

/// Decode a whole INT64 (or TIMESTAMP) page.
pub fn decode_i64(page: &[u8], max_values: usize) -> Result<Decoded<i64>, DecodeError> {
    let d = decode(page, 8, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as i64).collect(),
        consumed: d.consumed,
    })
}

/// Whether bitmap position `k` is set: bit `k % 8` (LSB first) of byte `k / 8`.
fn position_set(bitmap: &[u8], k: usize) -> bool {
    (bitmap[k / 8] >> (k % 8)) & 1 == 1
}

/// Values as `word`-byte patterns in a u64 (only the low `8 * word` bits
/// count: u64 wrapping arithmetic truncated to 32 bits is i32 arithmetic).
fn decode(page: &[u8], word: usize, max_values: usize) -> Result<Decoded<u64>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values: Vec<u64> = Vec::new();
    while !r.at_end() {
        let block = r.pos;
        let missing = match r.byte(Field::RegularMissing)? {
            0 => false,
            1 => true,
            byte => return Err(DecodeError::BadBoolean { byte, offset: block }),
        };
        let mut bitmap: &[u8] = &[];
        let mut bitmap_at = r.pos;
        if missing {
            let len = r.be(4, Field::RegularBitmapLength)? as u32 as i32;
            if len < 0 {
                return Err(DecodeError::BadCount {
                    field: Field::RegularBitmapLength,
                    count: len as i64,
                    offset: block + 1,
                });
            }
            let len = len as usize;
            bitmap_at = r.pos;
            if len > r.remaining() {
                return Err(DecodeError::Truncated {
                    field: Field::RegularBitmap,
                    offset: bitmap_at,
                    bit: 0,
                });
            }
            bitmap = &page[bitmap_at..bitmap_at + len];
            r.pos += len;
        }
        let count_at = r.pos;
        let count = r.be(4, Field::RegularCount)? as u32 as i32;
        if count <= 0 {
            return Err(DecodeError::BadCount {
                field: Field::RegularCount,
                count: count as i64,
                offset: count_at,
            });
        }
        let count = count as usize;
        if missing && bitmap.len() != count.div_ceil(8) {
            return Err(DecodeError::BadCount {
                field: Field::RegularBitmapLength,
                count: bitmap.len() as i64,
                offset: block + 1,
            });
        }
        let delta = r.be(word, Field::RegularDelta)?;
        let first = r.be(word, Field::RegularFirst)?;
        // The positions this block gives, in order.
        let mut positions: Vec<usize> = Vec::new();
        if missing {
            let bad_bit = |k: usize| DecodeError::BadCount {
                field: Field::RegularBitmap,
                count: k as i64,
                offset: bitmap_at + k / 8,
            };
            if !position_set(bitmap, 0) {
                return Err(bad_bit(0));
            }
            if !position_set(bitmap, count - 1) {
                return Err(bad_bit(count - 1));
            }
            for k in count..8 * bitmap.len() {
                if position_set(bitmap, k) {
                    return Err(bad_bit(k));
                }
            }
            positions.push(0);
            // Java's reader stops after `first` when count <= 2.
            if count >= 3 {
                for k in 1..count {
                    if position_set(bitmap, k) {
                        positions.push(k);
                    }
                }
            }
            if positions.len() > max_values - values.len() {
                return Err(DecodeError::TooManyValues {
                    max: max_values,
                    offset: block,
                });
            }
        } else if count > max_values - values.len() {
            return Err(DecodeError::TooManyValues {
                max: max_values,
                offset: block,
            });
        }
        // Walk the positions one at a time, adding the delta at each, as
        // Java's reader does (wrapping).
        let mut value = first;
        let mut next = 0;
        for k in 0..count {
            let keep = if missing {
                next < positions.len() && positions[next] == k
            } else {
                true
            };
            if keep {
                values.push(value);
                next += 1;
            }
            value = value.wrapping_add(delta);
        }
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

/// Why the Java writer (and so the reference encoder) cannot write a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// Not all deltas equal and the smallest is 0: Java divides by it
    /// (`ArithmeticException`).
    ZeroInterval { block: usize },
    /// The span divided by the interval gives a negative count: Java's
    /// `new BitSet(count)` throws.
    NegativeCount { block: usize, count: i32 },
    /// A position to clear lies past `i32::MAX`: Java's `BitSet.set` throws.
    ClearedPastIntMax { block: usize },
    /// A count above [`MAX_ENCODED_COUNT`] with missing points (the Java
    /// writer would write the huge bitmap; no test needs one).
    CountTooLarge { block: usize, count: i32 },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::ZeroInterval { block } => {
                write!(f, "block {block}: unequal deltas with a smallest delta of 0")
            }
            EncodeError::NegativeCount { block, count } => write!(f, "block {block}: negative count {count}"),
            EncodeError::ClearedPastIntMax { block } => {
                write!(f, "block {block}: a missing position past i32::MAX")
            }
            EncodeError::CountTooLarge { block, count } => {
                write!(f, "block {block}: count {count} above the encoder's bitmap limit")
            }
        }
    }
}

impl std::error::Error for EncodeError {}

/// One block's header fields as the writer computes them.
struct Plan {
    count: i32,
    delta: i64,
    /// `Some` with the bitmap bytes when positions are missing.
    bitmap: Option<Vec<u8>>,
}

/// Java's block computation (`checkMissingPoint`, `data2Diff`) for values
/// of either width: `wide` values are i64 (INT64) and `narrow` ones i32,
/// so every subtraction and division wraps as Java's `int` / `long` does.
macro_rules! plan_block {
    ($name:ident, $t:ty) => {
        fn $name(v: &[$t], block: usize) -> Result<Plan, EncodeError> {
            let n = v.len();
            if n == 1 {
                return Ok(Plan {
                    count: 1,
                    delta: <$t>::MAX as i64,
                    bitmap: None,
                });
            }
            let deltas: Vec<$t> = (1..n).map(|i| v[i].wrapping_sub(v[i - 1])).collect();
            let delta = *deltas.iter().min().expect("two values or more");
            if deltas.iter().all(|&d| d == delta) {
                return Ok(Plan {
                    count: n as i32,
                    delta: delta as i64,
                    bitmap: None,
                });
            }
            if delta == 0 {
                return Err(EncodeError::ZeroInterval { block });
            }
            // Java casts the quotient to `int` before adding 1.
            let count = (v[n - 1].wrapping_sub(v[0]).wrapping_div(delta) as i32).wrapping_add(1);
            if count < 0 {
                return Err(EncodeError::NegativeCount { block, count });
            }
            if count as i64 > MAX_ENCODED_COUNT {
                return Err(EncodeError::CountTooLarge { block, count });
            }
            let mut present = vec![true; count as usize];
            let mut offset: i64 = 0;
            for (i, &d) in deltas.iter().enumerate() {
                let i = i as i64 + 1;
                if d == delta {
                    continue;
                }
                // Java clears positions `i + offset ..` one at a time and
                // throws at the first past `i32::MAX`; a run that would reach
                // past it throws, whatever it cleared before.
                let cleared = (d.wrapping_div(delta) as i32).wrapping_sub(1).max(0) as i64;
                let from = i + offset;
                if cleared > 0 && from + cleared - 1 > i32::MAX as i64 {
                    return Err(EncodeError::ClearedPastIntMax { block });
                }
                // Clearing past the count changes no byte written.
                let end = (from + cleared).min(count as i64);
                if from < end {
                    present[from as usize..end as usize].fill(false);
                }
                offset += cleared;
            }
            // `BitSet.toByteArray`: LSB first, trailing zero bytes dropped.
            let highest = present.iter().rposition(|&p| p);
            let len = highest.map_or(0, |h| h / 8 + 1);
            let mut bitmap = vec![0u8; len];
            for (k, &p) in present.iter().enumerate() {
                if p {
                    bitmap[k / 8] |= 1 << (k % 8);
                }
            }
            Ok(Plan {
                count,
                delta: delta as i64,
                bitmap: Some(bitmap),
            })
        }
    };
}

plan_block!(plan_i32, i32);
plan_block!(plan_i64, i64);

/// One block, field by field (`word` 4 or 8 bytes for delta and first; the
/// low bytes of the i64s). Any field may be what a writer never writes.
pub fn write_block(out: &mut Vec<u8>, word: usize, bitmap: Option<&[u8]>, count: i32, delta: i64, first: i64) {
    match bitmap {
        Some(b) => {
            out.push(1);
            out.extend_from_slice(&(b.len() as i32).to_be_bytes());
            out.extend_from_slice(b);
        }
        None => out.push(0),
    }
    out.extend_from_slice(&count.to_be_bytes());
    out.extend_from_slice(&delta.to_be_bytes()[8 - word..]);
    out.extend_from_slice(&first.to_be_bytes()[8 - word..]);
}

/// Encode INT32 values as the Java writer does, `block_size` values a block.
pub fn encode_i32(values: &[i32], block_size: usize) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    for (b, block) in values.chunks(block_size.max(1)).enumerate() {
        let plan = plan_i32(block, b)?;
        write_block(
            &mut out,
            4,
            plan.bitmap.as_deref(),
            plan.count,
            plan.delta,
            block[0] as i64,
        );
    }
    Ok(out)
}

/// Encode INT64 values as the Java writer does, `block_size` values a block.
pub fn encode_i64(values: &[i64], block_size: usize) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    for (b, block) in values.chunks(block_size.max(1)).enumerate() {
        let plan = plan_i64(block, b)?;
        write_block(&mut out, 8, plan.bitmap.as_deref(), plan.count, plan.delta, block[0]);
    }
    Ok(out)
}

/// Encode INT32 values a block at a time as the Java writer does where it
/// writes a block a reader takes; a block it throws on or writes with count
/// 0 is written instead as its first value and first delta without missing
/// points (what builders of test files need: a page for any series, read
/// back as the writer's page would be where there is one).
pub fn encode_i32_readable(values: &[i32], block_size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for block in values.chunks(block_size.max(1)) {
        match encode_i32(block, block.len()) {
            Ok(page) if decode_i32(&page, usize::MAX).is_ok() => out.extend(page),
            _ => {
                let delta = block.get(1).map_or(0, |&b| b.wrapping_sub(block[0]));
                write_block(&mut out, 4, None, block.len() as i32, delta as i64, block[0] as i64);
            }
        }
    }
    out
}

/// [`encode_i32_readable`] for INT64.
pub fn encode_i64_readable(values: &[i64], block_size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for block in values.chunks(block_size.max(1)) {
        match encode_i64(block, block.len()) {
            Ok(page) if decode_i64(&page, usize::MAX).is_ok() => out.extend(page),
            _ => {
                let delta = block.get(1).map_or(0, |&b| b.wrapping_sub(block[0]));
                write_block(&mut out, 8, None, block.len() as i32, delta, block[0]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    use crate::tsfile::test_unhex as unhex;

    /// Pages written by the Java writer (apache/tsfile a9f54614,
    /// `LongRegularEncoder` / `IntRegularEncoder`, default block of 128),
    /// and what Java's own reader returned for them
    /// (docs/reference/tsfile-encodings.md, "REGULAR", "Known answers").
    #[test]
    fn official_writer_pages() {
        let i64_cases: Vec<(&str, Vec<i64>, Vec<i64>)> = vec![
            (
                "00 00 00 00 0a 00 00 00 00 00 00 03 e8 00 00 01 8b cf e5 68 00",
                (0..10).map(|i| 1_700_000_000_000 + 1000 * i).collect(),
                (0..10).map(|i| 1_700_000_000_000 + 1000 * i).collect(),
            ),
            (
                "01 00 00 00 02 67 02 00 00 00 0a 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00",
                vec![0, 10, 20, 50, 60, 90],
                vec![0, 10, 20, 50, 60, 90],
            ),
            (
                "00 00 00 00 01 7f ff ff ff ff ff ff ff ff ff ff ff ff ff ff f9",
                vec![-7],
                vec![-7],
            ),
            (
                "01 00 00 00 01 03 00 00 00 02 ff ff ff ff ff ff ff fb 00 00 00 00 00 00 00 00",
                vec![0, -5, -7],
                vec![0],
            ),
            (
                "00 00 00 00 04 00 00 00 00 00 00 00 01 7f ff ff ff ff ff ff fe",
                vec![i64::MAX - 1, i64::MAX, i64::MIN, i64::MIN + 1],
                vec![i64::MAX - 1, i64::MAX, i64::MIN, i64::MIN + 1],
            ),
        ];
        for (page, written, read) in i64_cases {
            let page = unhex(page);
            assert_eq!(encode_i64(&written, DEFAULT_BLOCK).unwrap(), page, "{written:?}");
            assert_eq!(decode_i64(&page, read.len()).unwrap().values, read);
        }
        let i32_cases: Vec<(&str, Vec<i32>, Vec<i32>)> = vec![
            (
                "00 00 00 00 05 00 00 00 03 00 00 00 64",
                vec![100, 103, 106, 109, 112],
                vec![100, 103, 106, 109, 112],
            ),
            (
                "01 00 00 00 02 33 02 00 00 00 0a 00 00 00 02 00 00 00 07",
                vec![7, 9, 15, 17, 25],
                vec![7, 9, 15, 17, 25],
            ),
            ("00 00 00 00 01 7f ff ff ff 00 00 00 2a", vec![42], vec![42]),
            (
                "00 00 00 00 04 00 00 00 01 7f ff ff fe",
                vec![i32::MAX - 1, i32::MAX, i32::MIN, i32::MIN + 1],
                vec![i32::MAX - 1, i32::MAX, i32::MIN, i32::MIN + 1],
            ),
            (
                "01 00 00 00 01 0d 00 00 00 04 00 00 00 02 00 00 00 00",
                vec![0, 5, 7],
                vec![0, 4, 6],
            ),
            (
                "00 00 00 00 04 ff ff ff f6 00 00 00 32",
                vec![50, 40, 30, 20],
                vec![50, 40, 30, 20],
            ),
        ];
        for (page, written, read) in i32_cases {
            let page = unhex(page);
            assert_eq!(encode_i32(&written, DEFAULT_BLOCK).unwrap(), page, "{written:?}");
            assert_eq!(decode_i32(&page, read.len()).unwrap().values, read);
        }
    }

    /// Three blocks (128, 128, 44 values) with missing points, and a full
    /// block followed by a block of one value, as the Java writer wrote them.
    #[test]
    fn official_writer_multi_block_pages() {
        let mut written = Vec::new();
        let mut x = 1000i64;
        for i in 0..300 {
            written.push(x);
            x += if i % 37 == 5 || i == 200 { 15 } else { 5 };
        }
        let page = unhex(
            "01 00 00 00 11 3f ff ff ff ff 9f ff ff ff ff cf ff ff ff ff e7 ff 00 00 00 88 00 00 00 00 00 00 00 05 \
             00 00 00 00 00 00 03 e8 01 00 00 00 11 ff ff ff f3 ff ff ff ff f9 9f ff ff ff f3 ff ff ff 00 00 00 88 \
             00 00 00 00 00 00 00 05 00 00 00 00 00 00 06 90 01 00 00 00 06 ff f9 ff ff ff 3f 00 00 00 2e 00 00 00 \
             00 00 00 00 05 00 00 00 00 00 00 09 38",
        );
        assert_eq!(encode_i64(&written, DEFAULT_BLOCK).unwrap(), page);
        let d = decode_i64(&page, 300).unwrap();
        assert_eq!((d.values, d.consumed), (written, page.len()));

        let written: Vec<i64> = (0..129).map(|i| 3 * i).collect();
        let page = unhex(
            "00 00 00 00 80 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 00 \
             00 00 00 00 01 7f ff ff ff ff ff ff ff 00 00 00 00 00 00 01 80",
        );
        assert_eq!(encode_i64(&written, DEFAULT_BLOCK).unwrap(), page);
        assert_eq!(decode_i64(&page, 129).unwrap().values, written);
    }

    #[test]
    fn known_answer_by_hand() {
        // [0, 10, 20, 50, 60, 90]: interval 10, 10 positions, 3 4 7 8 missing.
        let page = encode_i64(&[0, 10, 20, 50, 60, 90], DEFAULT_BLOCK).unwrap();
        insta::assert_snapshot!(hex(&page), @"01 00 00 00 02 67 02 00 00 00 0a 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00");
        assert!(encode_i32(&[], DEFAULT_BLOCK).unwrap().is_empty());
        assert_eq!(
            decode_i32(&[], 0).unwrap(),
            Decoded {
                values: vec![],
                consumed: 0
            }
        );
    }

    #[test]
    fn count_two_and_one_blocks_with_missing_points_give_the_first_value() {
        let mut page = Vec::new();
        write_block(&mut page, 4, Some(&[0x03]), 2, 5, 9);
        write_block(&mut page, 4, Some(&[0x01]), 1, 5, 20);
        write_block(&mut page, 4, None, 2, -1, 7);
        assert_eq!(decode_i32(&page, 9).unwrap().values, vec![9, 20, 7, 6]);
    }

    #[test]
    fn every_error_variant() {
        let tr = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
        let bad = |field, count, offset| DecodeError::BadCount { field, count, offset };
        assert_eq!(decode_i32(&[2], 9), Err(DecodeError::BadBoolean { byte: 2, offset: 0 }));
        assert_eq!(decode_i32(&[1, 0, 0, 0], 9), Err(tr(Field::RegularBitmapLength, 1)));
        assert_eq!(
            decode_i32(&[1, 0xff, 0xff, 0xff, 0xff], 9),
            Err(bad(Field::RegularBitmapLength, -1, 1))
        );
        assert_eq!(decode_i32(&[1, 0, 0, 0, 2, 1], 9), Err(tr(Field::RegularBitmap, 5)));
        assert_eq!(decode_i32(&[0, 0, 0, 0], 9), Err(tr(Field::RegularCount, 1)));
        assert_eq!(decode_i32(&[0, 0, 0, 0, 0], 9), Err(bad(Field::RegularCount, 0, 1)));
        assert_eq!(
            decode_i32(&[0, 0x80, 0, 0, 0], 9),
            Err(bad(Field::RegularCount, i32::MIN as i64, 1))
        );
        assert_eq!(
            decode_i32(&[0, 0, 0, 0, 1, 0, 0, 0], 9),
            Err(tr(Field::RegularDelta, 5))
        );
        assert_eq!(
            decode_i64(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 9),
            Err(tr(Field::RegularFirst, 13))
        );
        let block = |bitmap: &[u8], count| {
            let mut p = Vec::new();
            write_block(&mut p, 4, Some(bitmap), count, 1, 0);
            p
        };
        // A bitmap one byte too long, one too short.
        assert_eq!(
            decode_i32(&block(&[0xff, 0x01], 8), 99),
            Err(bad(Field::RegularBitmapLength, 2, 1))
        );
        assert_eq!(
            decode_i32(&block(&[0xff], 9), 99),
            Err(bad(Field::RegularBitmapLength, 1, 1))
        );
        // Position 0 clear, the last position clear, a padding bit set.
        assert_eq!(decode_i32(&block(&[0x0e], 4), 99), Err(bad(Field::RegularBitmap, 0, 5)));
        assert_eq!(
            decode_i32(&block(&[0xff, 0x01], 10), 99),
            Err(bad(Field::RegularBitmap, 9, 6))
        );
        assert_eq!(
            decode_i32(&block(&[0xff, 0x13], 10), 99),
            Err(bad(Field::RegularBitmap, 12, 6))
        );
        // Too many values: the second block, and a huge count in 13 bytes.
        let mut page = encode_i32(&[1, 2, 3], 2).unwrap();
        assert_eq!(
            decode_i32(&page, 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 13 })
        );
        page.clear();
        write_block(&mut page, 4, None, i32::MAX, 1, 0);
        assert_eq!(
            decode_i32(&page, 1000),
            Err(DecodeError::TooManyValues { max: 1000, offset: 0 })
        );
        // Missing points: the count that matters is the set positions.
        let page = block(&[0x0d], 4);
        assert_eq!(decode_i32(&page, 3).unwrap().values, vec![0, 2, 3]);
        assert_eq!(
            decode_i32(&page, 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 0 })
        );
    }

    #[test]
    fn writer_refusals() {
        assert_eq!(encode_i32(&[5, 5, 6], 128), Err(EncodeError::ZeroInterval { block: 0 }));
        assert_eq!(
            encode_i64(&[1, 2, 3, 0, -5, 10], 3),
            Err(EncodeError::NegativeCount { block: 1, count: -1 })
        );
        // [0, 10, 5] writes count 0, which no reader takes.
        let page = encode_i64(&[0, 10, 5], 128).unwrap();
        assert_eq!(hex(&page[..9]), "01 00 00 00 00 00 00 00 00");
        assert_eq!(
            decode_i64(&page, 9),
            Err(DecodeError::BadCount {
                field: Field::RegularCount,
                count: 0,
                offset: 5
            })
        );
        assert_eq!(
            encode_i64(&[0, 1, 1 << 30], 128),
            Err(EncodeError::CountTooLarge {
                block: 0,
                count: (1 << 30) + 1
            })
        );
        // The INT64 quotient keeps its low 32 bits: 2^40 positions are 0, plus 1.
        assert_eq!(
            &encode_i64(&[0, 1, 1 << 40], 128).unwrap()[..10],
            &[1, 0, 0, 0, 1, 1, 0, 0, 0, 1]
        );
        for e in [
            EncodeError::ZeroInterval { block: 3 },
            EncodeError::NegativeCount { block: 3, count: -2 },
            EncodeError::ClearedPastIntMax { block: 3 },
            EncodeError::CountTooLarge {
                block: 3,
                count: 1 << 30,
            },
        ] {
            assert!(e.to_string().contains("block 3"), "{e}");
        }
    }

    #[test]
    fn a_cleared_run_may_end_at_i32_max_not_past_it() {
        // INT64 spans keep their low 32 bits in the count (5 + 1 and 6 + 1
        // here); a step of i32::MAX clears i32::MAX - 1 positions from the
        // second (ending at i32::MAX) or from the third (one past it).
        let d = i32::MAX as i64;
        let ends_at_max = [0, 1, 1 + d, (1i64 << 32) + 5];
        let plan = plan_i64(&ends_at_max, 0).unwrap();
        assert_eq!((plan.count, plan.delta, plan.bitmap), (6, 1, Some(vec![0b11])));
        let one_past = [0, 1, 2, 2 + d, (1i64 << 32) + 6];
        assert_eq!(
            plan_i64(&one_past, 0).err(),
            Some(EncodeError::ClearedPastIntMax { block: 0 })
        );
    }

    #[test]
    fn readable_pages_fall_back_per_block() {
        // [5, 5, 6] (delta 0 with another step) and [0, 10, 5] (count 0):
        // blocks of their first value and first delta.
        let page = encode_i32_readable(&[0, 2, 4, 5, 5, 6], 3);
        assert_eq!(&page[..13], &encode_i32(&[0, 2, 4], 3).unwrap()[..]);
        assert_eq!(decode_i32(&page, 9).unwrap().values, vec![0, 2, 4, 5, 5, 5]);
        let page = encode_i64_readable(&[0, 10, 5, 7], 3);
        assert_eq!(decode_i64(&page, 9).unwrap().values, vec![0, 10, 20, 7]);
        assert_eq!(
            encode_i64_readable(&[0, 10, 20, 50], 128),
            encode_i64(&[0, 10, 20, 50], 128).unwrap()
        );
        assert!(encode_i64_readable(&[], 128).is_empty());
    }

    #[test]
    fn every_prefix_is_an_error_or_shorter() {
        let mut page = encode_i64(&[0, 10, 20, 50, 60, 90], 4).unwrap();
        page.extend(encode_i64(&[7], 4).unwrap());
        for n in 0..page.len() {
            if let Ok(d) = decode_i64(&page[..n], 99) {
                assert!(d.values.len() < 7 && d.consumed == n);
            }
        }
    }

    // Gaps of 1, 2, 4 or 8 steps: the smallest gap of any block divides
    // every other, so the writer is exact (with other gaps it is not).
    proptest! {
        #[test]
        fn exact_i64_series_round_trip(start in any::<i64>(), step in 1i64..1 << 40, gaps in proptest::collection::vec(0u32..4, 0..300), block in 1usize..200) {
            let mut v = Vec::new();
            let mut x = start as i128;
            for g in gaps {
                v.push(x as i64);
                x += (step << g) as i128;
            }
            // Keep the series inside i64: no span wraps.
            if x <= i64::MAX as i128 {
                let page = encode_i64(&v, block).unwrap();
                let d = decode_i64(&page, v.len()).unwrap();
                prop_assert_eq!(d.values, v);
                prop_assert_eq!(d.consumed, page.len());
            }
        }

        #[test]
        fn exact_series_round_trip(start in any::<i32>(), step in 1i32..1000, gaps in proptest::collection::vec(0u32..4, 0..300), block in 1usize..200) {
            let mut v = Vec::new();
            let mut x = start as i64;
            for g in gaps {
                v.push(x as i32);
                x += (step << g) as i64;
            }
            // Keep the series inside i32: no span wraps.
            if x <= i32::MAX as i64 {
                let page = encode_i32(&v, block).unwrap();
                let d = decode_i32(&page, v.len()).unwrap();
                prop_assert_eq!(d.values, v);
                prop_assert_eq!(d.consumed, page.len());
            }
        }
    }
}
