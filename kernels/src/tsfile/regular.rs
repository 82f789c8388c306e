//! REGULAR (encoding id 7) for INT32 / DATE and INT64 / TIMESTAMP, from
//! `docs/reference/tsfile-encodings.md`. A page is blocks until its bytes end:
//! `missing u8 | [bitmapLen i32 BE | bitmap] | count i32 BE | delta | first`,
//! delta and first 4 or 8 bytes big-endian; a block gives `first + k·delta`
//! for every position `k` in `0..count`, or with missing points for
//! position 0 and the bitmap's set positions (LSB first; only position 0
//! when count <= 2).
//!
//! `regular/word64` (the default) writes a block without missing points as
//! a running sum (the compiler vectorizes it), counts a bitmap's values
//! with `count_ones` over 64-bit words, and walks its set bits a word at a
//! time (`trailing_zeros`, clear the lowest bit), a full word as a
//! progression of 64. `regular/stepwise` walks every position with a
//! running sum, testing one bitmap bit per position: the other opinion on
//! bitmaps.

use super::{be_u32, be_u64, DecodeError, Done, Field, IntLane};

/// One block's header, read and checked.
struct Block<'a> {
    /// The bitmap, when positions are missing (its length is `ceil(count / 8)`,
    /// position 0 and `count - 1` set, no bit at or past `count`).
    bitmap: Option<&'a [u8]>,
    count: usize,
    delta: u64,
    first: u64,
    /// The values the block gives.
    values: usize,
    /// Offset of the next block.
    end: usize,
}

/// The bitmap's error at position `k` (`bitmap_at` is its first byte).
fn bad_position(k: usize, bitmap_at: usize) -> DecodeError {
    DecodeError::BadCount {
        field: Field::RegularBitmap,
        count: k as i64,
        offset: bitmap_at + k / 8,
    }
}

/// The block at `at`, with `WORD`-byte delta and first value, checked in
/// the notes' order.
#[inline]
fn block<const WORD: usize>(page: &[u8], at: usize) -> Result<Block<'_>, DecodeError> {
    let truncated = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
    let missing = match page.get(at) {
        None => return Err(truncated(Field::RegularMissing, at)),
        Some(0) => false,
        Some(1) => true,
        Some(&byte) => return Err(DecodeError::BadBoolean { byte, offset: at }),
    };
    let mut pos = at + 1;
    let mut bitmap = None;
    if missing {
        let len = be_u32(page, pos).ok_or(truncated(Field::RegularBitmapLength, pos))? as i32;
        if len < 0 {
            return Err(DecodeError::BadCount {
                field: Field::RegularBitmapLength,
                count: len as i64,
                offset: pos,
            });
        }
        pos += 4;
        let len = len as usize;
        if len > page.len() - pos {
            return Err(truncated(Field::RegularBitmap, pos));
        }
        bitmap = Some((&page[pos..pos + len], pos));
        pos += len;
    }
    let count = be_u32(page, pos).ok_or(truncated(Field::RegularCount, pos))? as i32;
    if count <= 0 {
        return Err(DecodeError::BadCount {
            field: Field::RegularCount,
            count: count as i64,
            offset: pos,
        });
    }
    let count = count as usize;
    if let Some((b, _)) = bitmap {
        if b.len() != count.div_ceil(8) {
            return Err(DecodeError::BadCount {
                field: Field::RegularBitmapLength,
                count: b.len() as i64,
                offset: at + 1,
            });
        }
    }
    pos += 4;
    let word = |at: usize, field| -> Result<u64, DecodeError> {
        if WORD == 4 {
            be_u32(page, at).map(u64::from)
        } else {
            be_u64(page, at)
        }
        .ok_or(truncated(field, at))
    };
    let delta = word(pos, Field::RegularDelta)?;
    pos += WORD;
    let first = word(pos, Field::RegularFirst)?;
    pos += WORD;
    let mut values = count;
    if let Some((b, bitmap_at)) = bitmap {
        if b[0] & 1 == 0 {
            return Err(bad_position(0, bitmap_at));
        }
        let last = count - 1;
        if b[last / 8] >> (last % 8) & 1 == 0 {
            return Err(bad_position(last, bitmap_at));
        }
        // Positions at or past `count` can only lie in the last byte.
        let padding = b[last / 8] & !(u8::MAX >> (7 - last % 8));
        if padding != 0 {
            return Err(bad_position(
                last / 8 * 8 + padding.trailing_zeros() as usize,
                bitmap_at,
            ));
        }
        // Java's reader gives only `first` for count <= 2; past that, every
        // set position (position 0 among them) is a value.
        values = if count <= 2 { 1 } else { popcount(b) };
    }
    Ok(Block {
        bitmap: bitmap.map(|(b, _)| b),
        count,
        delta,
        first,
        values,
        end: pos,
    })
}

/// Set bits of `bytes`, eight bytes at a time.
#[inline]
fn popcount(bytes: &[u8]) -> usize {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0;
    for w in &mut words {
        n += u64::from_le_bytes(w.try_into().expect("8 bytes")).count_ones() as usize;
    }
    n + words.remainder().iter().map(|b| b.count_ones() as usize).sum::<usize>()
}

/// `first + (start + k)·delta` into every slot, wrapping: a running sum,
/// which the compiler turns into vector steps of independent lanes.
#[inline]
fn progression<T: IntLane>(out: &mut [T], first: u64, delta: u64, start: u64) {
    let mut value = first.wrapping_add(start.wrapping_mul(delta));
    for slot in out {
        *slot = T::from_bits(value);
        value = value.wrapping_add(delta);
    }
}

/// The set positions of a bitmap, a 64-bit word at a time, as values.
#[inline]
fn bitmap_values<T: IntLane>(bitmap: &[u8], first: u64, delta: u64, out: &mut [T]) -> usize {
    let mut n = 0;
    for (w, chunk) in bitmap.chunks(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes[..chunk.len()].copy_from_slice(chunk);
        let mut word = u64::from_le_bytes(bytes);
        let base = 64 * w as u64;
        if word == u64::MAX {
            progression(&mut out[n..n + 64], first, delta, base);
            n += 64;
            continue;
        }
        while word != 0 {
            let k = base + u64::from(word.trailing_zeros());
            out[n] = T::from_bits(first.wrapping_add(k.wrapping_mul(delta)));
            n += 1;
            word &= word - 1;
        }
    }
    n
}

/// Decode every block of `page` into `out` (its length is the most values
/// accepted), a word at a time.
fn decode_word64<const WORD: usize, T: IntLane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut n = 0;
    let mut pos = 0;
    while pos < page.len() {
        let b = block::<WORD>(page, pos)?;
        if b.values > max - n {
            return Err(DecodeError::TooManyValues { max, offset: pos });
        }
        match b.bitmap {
            None => progression(&mut out[n..n + b.count], b.first, b.delta, 0),
            Some(_) if b.count <= 2 => out[n] = T::from_bits(b.first),
            Some(bitmap) => {
                let written = bitmap_values(bitmap, b.first, b.delta, &mut out[n..n + b.values]);
                debug_assert_eq!(written, b.values);
            }
        }
        n += b.values;
        pos = b.end;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// Decode every block of `page` into `out`, one position at a time with a
/// running sum.
fn decode_stepwise<const WORD: usize, T: IntLane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut n = 0;
    let mut pos = 0;
    while pos < page.len() {
        let b = block::<WORD>(page, pos)?;
        if b.values > max - n {
            return Err(DecodeError::TooManyValues { max, offset: pos });
        }
        let target = n + b.values;
        let mut value = b.first;
        for k in 0..b.count {
            if n == target {
                break;
            }
            let keep = match b.bitmap {
                None => true,
                Some(bitmap) => bitmap[k / 8] >> (k % 8) & 1 == 1,
            };
            if keep {
                out[n] = T::from_bits(value);
                n += 1;
            }
            value = value.wrapping_add(b.delta);
        }
        pos = b.end;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// INT32 (or DATE) values, a word at a time (the default).
pub fn decode_i32_word64_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode_word64::<4, i32>(page, out)
}

/// INT64 (or TIMESTAMP) values, a word at a time (the default).
pub fn decode_i64_word64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode_word64::<8, i64>(page, out)
}

/// INT32 (or DATE) values, a position at a time.
pub fn decode_i32_stepwise_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode_stepwise::<4, i32>(page, out)
}

/// INT64 (or TIMESTAMP) values, a position at a time.
pub fn decode_i64_stepwise_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode_stepwise::<8, i64>(page, out)
}

/// INT32 values with the default implementation.
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode_i32_word64_into(page, out)
}

/// INT64 values with the default implementation.
pub fn decode_i64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode_i64_word64_into(page, out)
}

pub type DecodeI32 = fn(&[u8], &mut [i32]) -> Result<Done, DecodeError>;
pub type DecodeI64 = fn(&[u8], &mut [i64]) -> Result<Done, DecodeError>;

/// INT32 implementations, best first.
pub static IMPLEMENTATIONS_I32: &[crate::Implementation<DecodeI32>] = &[
    crate::Implementation::portable("regular/word64", decode_i32_word64_into),
    crate::Implementation::portable("regular/stepwise", decode_i32_stepwise_into),
];

/// INT64 implementations, best first.
pub static IMPLEMENTATIONS_I64: &[crate::Implementation<DecodeI64>] = &[
    crate::Implementation::portable("regular/word64", decode_i64_word64_into),
    crate::Implementation::portable("regular/stepwise", decode_i64_stepwise_into),
];

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tsfile::test_unhex as unhex;

    /// One block, field by field (`word` bytes of delta and first).
    fn block_bytes(word: usize, bitmap: Option<&[u8]>, count: i32, delta: i64, first: i64) -> Vec<u8> {
        let mut out = Vec::new();
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
        out
    }

    type Decode<T> = fn(&[u8], &mut [T]) -> Result<Done, DecodeError>;

    /// Every implementation of one registry on `page` with room for `max`
    /// values (the rest of the buffer holds `canary`): all must agree and
    /// write nothing past their values; the shared outcome.
    fn all<T: Copy + PartialEq + std::fmt::Debug>(
        registry: &[crate::Implementation<Decode<T>>],
        canary: T,
        page: &[u8],
        max: usize,
    ) -> Result<(Vec<T>, usize), DecodeError> {
        let mut seen = None;
        for imp in registry {
            let f = imp.get().unwrap();
            let mut out = vec![canary; max + 3];
            let r = f(page, &mut out[..max]).map(|d| {
                assert!(
                    out[d.values..].iter().all(|&v| v == canary),
                    "{} wrote past its values",
                    imp.name
                );
                (out[..d.values].to_vec(), d.consumed)
            });
            assert!(
                out[max..].iter().all(|&v| v == canary),
                "{} wrote past its output",
                imp.name
            );
            if let Some(s) = &seen {
                assert_eq!(&r, s, "{} disagrees", imp.name);
            }
            seen = Some(r);
        }
        seen.unwrap()
    }

    fn all_i32(page: &[u8], max: usize) -> Result<(Vec<i32>, usize), DecodeError> {
        all(IMPLEMENTATIONS_I32, 0x5A5A_5A5A, page, max)
    }

    fn all_i64(page: &[u8], max: usize) -> Result<(Vec<i64>, usize), DecodeError> {
        all(IMPLEMENTATIONS_I64, 0x5A5A, page, max)
    }

    /// Pages written by the Java writer (apache/tsfile a9f54614) and the
    /// values Java's reader returned for them (docs/reference/tsfile-encodings.md,
    /// "REGULAR", "Known answers").
    #[test]
    fn official_writer_pages() {
        let i64_cases: Vec<(&str, Vec<i64>)> = vec![
            (
                "00 00 00 00 0a 00 00 00 00 00 00 03 e8 00 00 01 8b cf e5 68 00",
                (0..10).map(|i| 1_700_000_000_000 + 1000 * i).collect(),
            ),
            (
                "01 00 00 00 02 67 02 00 00 00 0a 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00",
                vec![0, 10, 20, 50, 60, 90],
            ),
            (
                "00 00 00 00 01 7f ff ff ff ff ff ff ff ff ff ff ff ff ff ff f9",
                vec![-7],
            ),
            (
                "01 00 00 00 01 03 00 00 00 02 ff ff ff ff ff ff ff fb 00 00 00 00 00 00 00 00",
                vec![0],
            ),
            (
                "00 00 00 00 04 00 00 00 00 00 00 00 01 7f ff ff ff ff ff ff fe",
                vec![i64::MAX - 1, i64::MAX, i64::MIN, i64::MIN + 1],
            ),
            (
                "00 00 00 00 80 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 00 \
                 00 00 00 00 01 7f ff ff ff ff ff ff ff 00 00 00 00 00 00 01 80",
                (0..129).map(|i| 3 * i).collect(),
            ),
        ];
        for (page, read) in i64_cases {
            let page = unhex(page);
            assert_eq!(all_i64(&page, read.len()), Ok((read, page.len())));
        }
        let i32_cases: Vec<(&str, Vec<i32>)> = vec![
            ("00 00 00 00 05 00 00 00 03 00 00 00 64", vec![100, 103, 106, 109, 112]),
            (
                "01 00 00 00 02 33 02 00 00 00 0a 00 00 00 02 00 00 00 07",
                vec![7, 9, 15, 17, 25],
            ),
            ("00 00 00 00 01 7f ff ff ff 00 00 00 2a", vec![42]),
            (
                "00 00 00 00 04 00 00 00 01 7f ff ff fe",
                vec![i32::MAX - 1, i32::MAX, i32::MIN, i32::MIN + 1],
            ),
            ("01 00 00 00 01 0d 00 00 00 04 00 00 00 02 00 00 00 00", vec![0, 4, 6]),
            ("00 00 00 00 04 ff ff ff f6 00 00 00 32", vec![50, 40, 30, 20]),
        ];
        for (page, read) in i32_cases {
            let page = unhex(page);
            assert_eq!(all_i32(&page, read.len()), Ok((read, page.len())));
        }
    }

    #[test]
    fn three_blocks_from_the_java_writer() {
        let mut read = Vec::new();
        let mut x = 1000i64;
        for i in 0..300 {
            read.push(x);
            x += if i % 37 == 5 || i == 200 { 15 } else { 5 };
        }
        let page = unhex(
            "01 00 00 00 11 3f ff ff ff ff 9f ff ff ff ff cf ff ff ff ff e7 ff 00 00 00 88 00 00 00 00 00 00 00 05 \
             00 00 00 00 00 00 03 e8 01 00 00 00 11 ff ff ff f3 ff ff ff ff f9 9f ff ff ff f3 ff ff ff 00 00 00 88 \
             00 00 00 00 00 00 00 05 00 00 00 00 00 00 06 90 01 00 00 00 06 ff f9 ff ff ff 3f 00 00 00 2e 00 00 00 \
             00 00 00 00 05 00 00 00 00 00 00 09 38",
        );
        assert_eq!(all_i64(&page, 300), Ok((read, page.len())));
        assert_eq!(
            all_i64(&page, 299),
            Err(DecodeError::TooManyValues { max: 299, offset: 84 })
        );
    }

    #[test]
    fn every_error_variant() {
        let tr = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
        let bad = |field, count, offset| DecodeError::BadCount { field, count, offset };
        assert_eq!(all_i32(&[2], 9), Err(DecodeError::BadBoolean { byte: 2, offset: 0 }));
        assert_eq!(all_i32(&[1, 0, 0, 0], 9), Err(tr(Field::RegularBitmapLength, 1)));
        assert_eq!(
            all_i32(&[1, 0xff, 0xff, 0xff, 0xff], 9),
            Err(bad(Field::RegularBitmapLength, -1, 1))
        );
        // A bitmap of 0 bytes is read, then found short of the count.
        assert_eq!(all_i32(&[1, 0, 0, 0, 0], 9), Err(tr(Field::RegularCount, 5)));
        assert_eq!(
            all_i32(&[1, 0, 0, 0, 0, 0, 0, 0, 1], 9),
            Err(bad(Field::RegularBitmapLength, 0, 1))
        );
        assert_eq!(all_i32(&[1, 0, 0, 0, 2, 1], 9), Err(tr(Field::RegularBitmap, 5)));
        assert_eq!(all_i32(&[1, 0, 0, 0, 1, 1], 9), Err(tr(Field::RegularCount, 6)));
        assert_eq!(all_i32(&[0, 0, 0, 0], 9), Err(tr(Field::RegularCount, 1)));
        assert_eq!(all_i32(&[0, 0, 0, 0, 0], 9), Err(bad(Field::RegularCount, 0, 1)));
        assert_eq!(
            all_i32(&[0, 0x80, 0, 0, 0], 9),
            Err(bad(Field::RegularCount, i32::MIN as i64, 1))
        );
        assert_eq!(all_i32(&[0, 0, 0, 0, 1, 0, 0, 0], 9), Err(tr(Field::RegularDelta, 5)));
        assert_eq!(
            all_i32(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], 9),
            Err(tr(Field::RegularFirst, 9))
        );
        assert_eq!(
            all_i64(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 9),
            Err(tr(Field::RegularFirst, 13))
        );
        assert_eq!(
            all_i64(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], 9),
            Err(tr(Field::RegularDelta, 5))
        );
        let missing = |bitmap: &[u8], count| block_bytes(4, Some(bitmap), count, 1, 0);
        assert_eq!(
            all_i32(&missing(&[0xff, 0x01], 8), 99),
            Err(bad(Field::RegularBitmapLength, 2, 1))
        );
        assert_eq!(
            all_i32(&missing(&[0xff], 9), 99),
            Err(bad(Field::RegularBitmapLength, 1, 1))
        );
        assert_eq!(all_i32(&missing(&[0x0e], 4), 99), Err(bad(Field::RegularBitmap, 0, 5)));
        assert_eq!(
            all_i32(&missing(&[0xff, 0x01], 10), 99),
            Err(bad(Field::RegularBitmap, 9, 6))
        );
        assert_eq!(
            all_i32(&missing(&[0xff, 0x13], 10), 99),
            Err(bad(Field::RegularBitmap, 12, 6))
        );
        assert_eq!(
            all_i32(&missing(&[0x09, 0x80], 10), 99),
            Err(bad(Field::RegularBitmap, 9, 6))
        );
        assert_eq!(
            all_i32(&missing(&[0xff, 0xff, 0xff], 17), 99),
            Err(bad(Field::RegularBitmap, 17, 7))
        );
        assert_eq!(all_i32(&missing(&[0x01], 1), 1), Ok((vec![0], 18)));
        assert_eq!(all_i32(&missing(&[0x81], 8), 2), Ok((vec![0, 7], 18)));
        assert_eq!(
            all_i32(&missing(&[0x81], 8), 1),
            Err(DecodeError::TooManyValues { max: 1, offset: 0 })
        );
        let mut page = block_bytes(4, None, 2, 1, 1);
        let second = page.len();
        page.extend(block_bytes(4, None, 1, 0, 3));
        assert_eq!(all_i32(&page, 3), Ok((vec![1, 2, 3], page.len())));
        assert_eq!(
            all_i32(&page, 2),
            Err(DecodeError::TooManyValues { max: 2, offset: second })
        );
        let huge = block_bytes(8, None, i32::MAX, 1, 0);
        assert_eq!(
            all_i64(&huge, 1000),
            Err(DecodeError::TooManyValues { max: 1000, offset: 0 })
        );
        assert_eq!(all_i64(&[], 0), Ok((vec![], 0)));
    }

    #[test]
    fn count_two_and_one_blocks_with_missing_points_give_the_first_value() {
        let mut page = block_bytes(4, Some(&[0x03]), 2, 5, 9);
        page.extend(block_bytes(4, Some(&[0x01]), 1, 5, 20));
        page.extend(block_bytes(4, None, 2, -1, 7));
        page.extend(block_bytes(4, Some(&[0x05]), 3, -4, 1));
        assert_eq!(all_i32(&page, 6), Ok((vec![9, 20, 7, 6, 1, -7], page.len())));
        assert_eq!(
            all_i32(&page, 5),
            Err(DecodeError::TooManyValues { max: 5, offset: 49 })
        );
    }

    /// A small xorshift, so the test needs no crate.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Random bitmaps (sparse, dense, whole 64-bit words of ones, every
    /// length around the word size) against the values their positions name.
    #[test]
    fn bitmaps_of_every_density_and_length() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        // Under Miri every density four times: 400 rounds are 25 minutes
        // there.
        let rounds = if cfg!(miri) { 16 } else { 400 };
        for round in 0..rounds {
            let count = 3 + (next(&mut state) % 300) as usize;
            let density = round % 4;
            let mut bitmap = vec![0u8; count.div_ceil(8)];
            for k in 0..count {
                let set = match density {
                    0 => next(&mut state).is_multiple_of(16),
                    1 => next(&mut state).is_multiple_of(2),
                    2 => !next(&mut state).is_multiple_of(64),
                    _ => true,
                };
                if set || k == 0 || k == count - 1 {
                    bitmap[k / 8] |= 1 << (k % 8);
                }
            }
            let delta = next(&mut state) as i64 >> (next(&mut state) % 64);
            let first = next(&mut state) as i64;
            let expect: Vec<i64> = (0..count)
                .filter(|&k| bitmap[k / 8] >> (k % 8) & 1 == 1)
                .map(|k| first.wrapping_add((k as i64).wrapping_mul(delta)))
                .collect();
            let page = block_bytes(8, Some(&bitmap), count as i32, delta, first);
            assert_eq!(
                all_i64(&page, expect.len()),
                Ok((expect.clone(), page.len())),
                "round {round}"
            );
            if !expect.is_empty() {
                assert_eq!(
                    all_i64(&page, expect.len() - 1),
                    Err(DecodeError::TooManyValues {
                        max: expect.len() - 1,
                        offset: 0
                    })
                );
            }
            let expect32: Vec<i32> = expect
                .iter()
                .enumerate()
                .map(|(i, _)| {
                    let k = (0..count)
                        .filter(|&k| bitmap[k / 8] >> (k % 8) & 1 == 1)
                        .nth(i)
                        .unwrap();
                    (first as i32).wrapping_add((k as i32).wrapping_mul(delta as i32))
                })
                .collect();
            let page = block_bytes(4, Some(&bitmap), count as i32, delta, first);
            assert_eq!(
                all_i32(&page, expect32.len()),
                Ok((expect32, page.len())),
                "round {round}"
            );
        }
    }

    #[test]
    fn progressions_wrap_in_the_type() {
        let page = block_bytes(4, None, 5, i32::MAX as i64, i32::MIN as i64 + 5);
        let expect: Vec<i32> = (0..5)
            .map(|k| (i32::MIN + 5).wrapping_add(i32::MAX.wrapping_mul(k)))
            .collect();
        assert_eq!(all_i32(&page, 5), Ok((expect, page.len())));
        let page = block_bytes(8, None, 300, i64::MIN + 3, -9);
        let expect: Vec<i64> = (0..300)
            .map(|k: i64| (-9i64).wrapping_add((i64::MIN + 3).wrapping_mul(k)))
            .collect();
        assert_eq!(all_i64(&page, 300), Ok((expect, page.len())));
    }

    #[test]
    fn popcount_counts_words_and_the_tail() {
        assert_eq!(popcount(&[]), 0);
        assert_eq!(popcount(&[0xff; 8]), 64);
        assert_eq!(popcount(&[0x01, 0, 0, 0, 0, 0, 0, 0x80, 0x03, 0x10]), 5);
        assert_eq!(popcount(&[0x07; 3]), 9);
    }
}
