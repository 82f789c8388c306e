//! The RLE / bit-packing hybrid for INT32, INT64 and BOOLEAN. A page is a
//! sequence of packages `uvarint length | bitWidth u8 | runs...` until its
//! bytes end. RLE run: `uvarint(count << 1)` then the value in
//! `(bitWidth + 7) / 8` bytes, little-endian for INT32 / BOOLEAN and
//! big-endian for INT64. Bit-packed run: `(groups << 1) | 1`,
//! `lastBitPackedNum`, then `groups * bitWidth` bytes of 8-value groups
//! packed MSB-first.

use super::{write_uvarint, BitWriter, Bits, Bytes, DecodeError, Decoded, Field};

/// One run as the encoder should write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// `count` copies of a value (its low bits as a pattern).
    Repeat { count: u32, value: u64 },
    /// Values bit-packed in groups of 8 (at most 63 groups).
    Packed(Vec<u64>),
}

/// Which RLE flavour: value width and the byte order of RLE run values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    I32,
    I64,
}

impl Kind {
    fn width(self) -> u32 {
        match self {
            Kind::I32 => 32,
            Kind::I64 => 64,
        }
    }
}

pub fn decode_i32(page: &[u8], max_values: usize) -> Result<Decoded<i32>, DecodeError> {
    let d = decode(page, Kind::I32, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as u32 as i32).collect(),
        consumed: d.consumed,
    })
}

pub fn decode_i64(page: &[u8], max_values: usize) -> Result<Decoded<i64>, DecodeError> {
    let d = decode(page, Kind::I64, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as i64).collect(),
        consumed: d.consumed,
    })
}

/// BOOLEAN: an INT32 RLE stream; any non-zero value is `true` (as Java's reader).
pub fn decode_bool(page: &[u8], max_values: usize) -> Result<Decoded<bool>, DecodeError> {
    let d = decode(page, Kind::I32, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as u32 != 0).collect(),
        consumed: d.consumed,
    })
}

fn decode(page: &[u8], kind: Kind, max_values: usize) -> Result<Decoded<u64>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values: Vec<u64> = Vec::new();
    while !r.at_end() {
        let pkg = r.pos;
        let len = r.uvarint32(Field::RleLength)? as usize;
        if len > r.remaining() {
            return Err(DecodeError::BadCount {
                field: Field::RleLength,
                count: len as i64,
                offset: pkg,
            });
        }
        let end = r.pos + len;
        // The package's own cursor: fields may not run past its end.
        let mut b = Bytes {
            data: &page[..end],
            pos: r.pos,
        };
        let bw_at = b.pos;
        let bit_width = b.byte(Field::RleBitWidth)? as u32;
        if bit_width > kind.width() {
            return Err(DecodeError::BadBitWidth {
                width: bit_width as i64,
                max: kind.width(),
                offset: bw_at,
            });
        }
        while !b.at_end() {
            let run = b.pos;
            let header = b.uvarint32(Field::RunHeader)?;
            if header & 1 == 0 {
                let count = (header >> 1) as usize;
                if count == 0 {
                    return Err(DecodeError::BadCount {
                        field: Field::RunHeader,
                        count: 0,
                        offset: run,
                    });
                }
                if count > max_values - values.len() {
                    return Err(DecodeError::TooManyValues {
                        max: max_values,
                        offset: run,
                    });
                }
                let size = bit_width.div_ceil(8) as usize;
                let value = match kind {
                    Kind::I32 => b.le(size, Field::RunValue)?,
                    Kind::I64 => b.be(size, Field::RunValue)?,
                };
                for _ in 0..count {
                    values.push(value);
                }
            } else {
                let groups = (header >> 1) as usize;
                if groups == 0 {
                    return Err(DecodeError::BadCount {
                        field: Field::Groups,
                        count: 0,
                        offset: run,
                    });
                }
                let last_at = b.pos;
                let last = b.byte(Field::LastBitPackedNum)? as usize;
                if last > 8 {
                    return Err(DecodeError::BadCount {
                        field: Field::LastBitPackedNum,
                        count: last as i64,
                        offset: last_at,
                    });
                }
                // In u64: a header may declare up to 2^31 groups, whose
                // counts overflow a 32-bit usize.
                let count = (groups as u64 - 1) * 8 + last as u64;
                if count > (max_values - values.len()) as u64 {
                    return Err(DecodeError::TooManyValues {
                        max: max_values,
                        offset: run,
                    });
                }
                let count = count as usize;
                let packed_at = b.pos;
                let packed_len = groups as u64 * u64::from(bit_width);
                if (b.remaining() as u64) < packed_len {
                    return Err(DecodeError::Truncated {
                        field: Field::Groups,
                        offset: packed_at,
                        bit: 0,
                    });
                }
                let packed_len = packed_len as usize;
                let mut bits = Bits::new(&page[packed_at..packed_at + packed_len]);
                for _ in 0..count {
                    values.push(bits.bits(bit_width).expect("length checked above"));
                }
                b.pos = packed_at + packed_len;
            }
        }
        r.pos = end;
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

/// The bit width a writer picks: `max(1, widest value)`, where a negative
/// INT32 takes 32 and a negative INT64 64 bits.
pub fn bit_width_of(values: &[u64]) -> u32 {
    values.iter().map(|v| 64 - v.leading_zeros()).max().unwrap_or(0).max(1)
}

/// One package with the given bit width and runs. `big_endian_values`: RLE
/// run values big-endian (INT64) or little-endian (INT32, BOOLEAN).
pub fn encode_package(bit_width: u32, runs: &[Run], big_endian_values: bool) -> Vec<u8> {
    let mut body = vec![bit_width as u8];
    let size = bit_width.div_ceil(8) as usize;
    for run in runs {
        match run {
            Run::Repeat { count, value } => {
                write_uvarint(&mut body, (*count as u64) << 1);
                let bytes = value.to_le_bytes();
                if big_endian_values {
                    body.extend(bytes[..size].iter().rev());
                } else {
                    body.extend_from_slice(&bytes[..size]);
                }
            }
            Run::Packed(values) => {
                let groups = values.len().div_ceil(8).max(1);
                let last = values.len() - (groups - 1) * 8;
                write_uvarint(&mut body, ((groups as u64) << 1) + 1);
                body.push(last as u8);
                let mut w = BitWriter::default();
                for i in 0..groups * 8 {
                    w.bits(values.get(i).copied().unwrap_or(0), bit_width);
                }
                body.extend_from_slice(&w.bytes);
            }
        }
    }
    let mut out = Vec::new();
    write_uvarint(&mut out, body.len() as u64);
    out.extend_from_slice(&body);
    out
}

/// Split values into runs like the Java writer: 8 or more equal values in a
/// row make an RLE run, the rest is bit-packed in runs of at most 63 groups.
pub fn plan_java(values: &[u64]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut pending: Vec<u64> = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let mut j = i;
        while j < values.len() && values[j] == values[i] {
            j += 1;
        }
        // A repeat counts only from a group boundary of the pending values.
        if j - i >= 8 + (8 - pending.len() % 8) % 8 {
            let fill = (8 - pending.len() % 8) % 8;
            pending.extend(std::iter::repeat_n(values[i], fill));
            flush_packed(&mut runs, &mut pending);
            runs.push(Run::Repeat {
                count: (j - i - fill) as u32,
                value: values[i],
            });
        } else {
            pending.extend_from_slice(&values[i..j]);
        }
        i = j;
    }
    flush_packed(&mut runs, &mut pending);
    runs
}

/// Bit-packed runs only, as the C++ writer does.
pub fn plan_packed(values: &[u64]) -> Vec<Run> {
    values.chunks(63 * 8).map(|c| Run::Packed(c.to_vec())).collect()
}

fn flush_packed(runs: &mut Vec<Run>, pending: &mut Vec<u64>) {
    for c in pending.chunks(63 * 8) {
        runs.push(Run::Packed(c.to_vec()));
    }
    pending.clear();
}

/// Encode INT32 values as one package (`java_runs`: with RLE runs, else
/// bit-packed only). An empty input gives an empty page, as the writers do.
pub fn encode_i32(values: &[i32], java_runs: bool) -> Vec<u8> {
    let v: Vec<u64> = values.iter().map(|&x| x as u32 as u64).collect();
    encode(&v, java_runs, false)
}

pub fn encode_i64(values: &[i64], java_runs: bool) -> Vec<u8> {
    let v: Vec<u64> = values.iter().map(|&x| x as u64).collect();
    encode(&v, java_runs, true)
}

pub fn encode_bool(values: &[bool], java_runs: bool) -> Vec<u8> {
    let v: Vec<u64> = values.iter().map(|&x| x as u64).collect();
    encode(&v, java_runs, false)
}

fn encode(v: &[u64], java_runs: bool, big_endian: bool) -> Vec<u8> {
    if v.is_empty() {
        return Vec::new();
    }
    let runs = if java_runs { plan_java(v) } else { plan_packed(v) };
    encode_package(bit_width_of(v), &runs, big_endian)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::test_len;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    #[test]
    fn known_answer_cpp_writer() {
        // The official C++ writer's bytes for INT32 0, -1, -2, -3, -4.
        let page = encode_i32(&[0, -1, -2, -3, -4], false);
        insta::assert_snapshot!(hex(&page), @"23 20 03 05 00 00 00 00 ff ff ff ff ff ff ff fe ff ff ff fd ff ff ff fc 00 00 00 00 00 00 00 00 00 00 00 00");
        assert_eq!(decode_i32(&page, 5).unwrap().values, vec![0, -1, -2, -3, -4]);
    }

    #[test]
    fn rle_value_byte_order() {
        let p32 = encode_package(
            16,
            &[Run::Repeat {
                count: 3,
                value: 0x1234,
            }],
            false,
        );
        insta::assert_snapshot!(hex(&p32), @"04 10 06 34 12");
        let p64 = encode_package(
            16,
            &[Run::Repeat {
                count: 3,
                value: 0x1234,
            }],
            true,
        );
        insta::assert_snapshot!(hex(&p64), @"04 10 06 12 34");
        assert_eq!(decode_i32(&p32, 3).unwrap().values, vec![0x1234; 3]);
        assert_eq!(decode_i64(&p64, 3).unwrap().values, vec![0x1234; 3]);
    }

    /// Runs declaring 2^29 + 1 and 2^29 groups of 8-bit values: counts and
    /// byte lengths past 2^32, to be refused on 32-bit targets too.
    #[test]
    fn group_counts_past_32_bits_are_too_many_values() {
        let too_many = |offset| Err(DecodeError::TooManyValues { max: 1000, offset });
        let one_package = [
            0x0f, 0x08, 0x83, 0x80, 0x80, 0x80, 0x04, 0x01, 0x2a, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(decode_i32(&one_package, 1000), too_many(2));
        let after_a_run = [0x09, 0x08, 0x02, 0x01, 0x81, 0x80, 0x80, 0x80, 0x04, 0x07];
        assert_eq!(decode_i32(&after_a_run, 1000), too_many(4));
    }

    #[test]
    fn java_run_plan() {
        // `docs/reference/tsfile-encodings.md` (DICTIONARY): 8 or more repeats after a
        // group boundary make an RLE run; the repeat first fills the
        // pending partial group.
        let rep = |count, value| Run::Repeat { count, value };
        assert_eq!(plan_java(&[5; 8]), vec![rep(8, 5)]);
        assert_eq!(plan_java(&[5; 7]), vec![Run::Packed(vec![5; 7])]);
        let mut v: Vec<u64> = (1..=8).collect();
        v.extend([9; 8]);
        assert_eq!(plan_java(&v), vec![Run::Packed((1..=8).collect()), rep(8, 9)]);
        // Two repeats after a full group are no run.
        let v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 9];
        assert_eq!(plan_java(&v), vec![Run::Packed(v.to_vec())]);
        // Three values, then thirteen 9s: five fill the group, eight are left.
        let mut v = vec![1, 2, 3];
        v.extend([9; 13]);
        assert_eq!(
            plan_java(&v),
            vec![Run::Packed(vec![1, 2, 3, 9, 9, 9, 9, 9]), rep(8, 9)]
        );
        // With twelve, seven are left: all bit-packed.
        v.pop();
        assert_eq!(plan_java(&v), vec![Run::Packed(v.clone())]);
        // At most 63 groups a bit-packed run.
        let v: Vec<u64> = (0..600).map(|i| i % 2).collect();
        assert_eq!(
            plan_java(&v),
            vec![Run::Packed(v[..504].to_vec()), Run::Packed(v[504..].to_vec())]
        );
    }

    #[test]
    fn bit_packed_plan_splits_at_63_groups() {
        // A bit-packed run's header byte holds at most 63 groups (504
        // values): 600 values are a run of 63 groups (header 7f) and one
        // of 12 (header 19, 96 values).
        let v: Vec<u64> = (0..600).map(|i| i % 2).collect();
        let runs = plan_packed(&v);
        assert_eq!(
            runs,
            vec![Run::Packed(v[..504].to_vec()), Run::Packed(v[504..].to_vec())]
        );
        let page = encode_package(1, &runs, false);
        // Length 80 (one byte), width 1, the first run's header and
        // lastBitPackedNum, its 63 bytes, then the second run's.
        assert_eq!(page[..4], [80, 1, 0x7f, 8]);
        assert_eq!(page[4 + 63..4 + 63 + 2], [0x19, 8]);
        assert_eq!(page.len(), 81);
        assert_eq!(decode_i64(&page, 600).unwrap().values.len(), 600);
    }

    #[test]
    fn a_later_run_over_the_limit() {
        // 0d | 08 | 03 08 + eight bytes (a bit-packed run of 8) | 06 02 (an
        // RLE run of 3 at offset 12): 11 values do not fit in 10.
        let page = encode_package(8, &[Run::Packed(vec![1; 8]), Run::Repeat { count: 3, value: 2 }], false);
        assert_eq!(page[12..], [0x06, 0x02]);
        assert_eq!(
            decode_i32(&page, 10),
            Err(DecodeError::TooManyValues { max: 10, offset: 12 })
        );
        assert_eq!(decode_i32(&page, 11).unwrap().values.len(), 11);
        // The same after an RLE run, with a bit-packed run that does not fit.
        let page = encode_package(8, &[Run::Repeat { count: 3, value: 2 }, Run::Packed(vec![1; 8])], false);
        assert_eq!(
            decode_i32(&page, 10),
            Err(DecodeError::TooManyValues { max: 10, offset: 4 })
        );
    }

    #[test]
    fn every_error_variant() {
        let t = |field, offset| Err(DecodeError::Truncated { field, offset, bit: 0 });
        assert_eq!(decode_i32(&[0x80], 9), t(Field::RleLength, 0));
        assert_eq!(
            decode_i32(&[0x05, 1], 9),
            Err(DecodeError::BadCount {
                field: Field::RleLength,
                count: 5,
                offset: 0
            })
        );
        assert_eq!(decode_i32(&[0x00], 9), t(Field::RleBitWidth, 1));
        assert_eq!(
            decode_i64(&[0x01, 65], 9),
            Err(DecodeError::BadBitWidth {
                width: 65,
                max: 64,
                offset: 1
            })
        );
        assert_eq!(
            decode_i32(&[0x01, 33], 9),
            Err(DecodeError::BadBitWidth {
                width: 33,
                max: 32,
                offset: 1
            })
        );
        assert_eq!(decode_i32(&[0x02, 8, 0x80], 9), t(Field::RunHeader, 2));
        assert_eq!(
            decode_i32(&[0x02, 8, 0x00], 9),
            Err(DecodeError::BadCount {
                field: Field::RunHeader,
                count: 0,
                offset: 2
            })
        );
        assert_eq!(decode_i32(&[0x03, 16, 0x04, 1], 9), t(Field::RunValue, 3));
        assert_eq!(
            decode_i32(&[0x03, 8, 0x0a, 1], 4),
            Err(DecodeError::TooManyValues { max: 4, offset: 2 })
        );
        assert_eq!(decode_i32(&[0x02, 8, 0x03], 9), t(Field::LastBitPackedNum, 3));
        assert_eq!(
            decode_i32(&[0x03, 8, 0x01, 0], 9),
            Err(DecodeError::BadCount {
                field: Field::Groups,
                count: 0,
                offset: 2
            })
        );
        assert_eq!(
            decode_i32(&[0x03, 8, 0x03, 9], 9),
            Err(DecodeError::BadCount {
                field: Field::LastBitPackedNum,
                count: 9,
                offset: 3
            })
        );
        assert_eq!(decode_i32(&[0x04, 8, 0x03, 8, 0], 9), t(Field::Groups, 4));
    }

    proptest! {
        #[test]
        fn round_trips(v in proptest::collection::vec(prop_oneof![any::<i64>(), 0i64..3], 0..test_len(700)), java: bool) {
            prop_assert_eq!(decode_i64(&encode_i64(&v, java), v.len()).unwrap().values, v.clone());
            let v32: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            let page = encode_i32(&v32, java);
            let d = decode_i32(&page, v.len()).unwrap();
            prop_assert_eq!(d.values, v32);
            prop_assert_eq!(d.consumed, page.len());
            let b: Vec<bool> = v.iter().map(|&x| x & 1 == 1).collect();
            prop_assert_eq!(decode_bool(&encode_bool(&b, java), v.len()).unwrap().values, b);
        }
    }
}
