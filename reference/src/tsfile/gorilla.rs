//! GORILLA (encoding id 8) for INT32, INT64, FLOAT and DOUBLE: XOR with the
//! previous value, MSB-first bits, a terminator value and a flush byte.

use super::{BitWriter, Bits, DecodeError, Decoded, Field};

/// Terminators the writers append (as raw bit patterns).
pub const TERMINATOR_I32: u32 = i32::MIN as u32;
pub const TERMINATOR_I64: u64 = i64::MIN as u64;
pub const TERMINATOR_F32: u32 = 0x7FC0_0000;
pub const TERMINATOR_F64: u64 = 0x7FF8_0000_0000_0000;

/// Where decoding stops: the choice is the caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The classic reader: stop at the first value equal to the type's
    /// terminator (a real value equal to it ends the page early). Consumes the
    /// flush byte after it.
    AtTerminator,
    /// The newer readers: decode exactly this many values (from the page's
    /// row count / bitmap); a value equal to the terminator is just a value.
    /// Consumes the bytes those values' bits touch.
    Count(usize),
}

/// Decode 32-bit patterns (INT32, FLOAT).
pub fn decode32(page: &[u8], terminator: u32, stop: Stop, max_values: usize) -> Result<Decoded<u32>, DecodeError> {
    let (d, _) = decode(page, 32, terminator as u64, stop, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as u32).collect(),
        consumed: d.consumed,
    })
}

/// Decode 64-bit patterns (INT64, DOUBLE).
pub fn decode64(page: &[u8], terminator: u64, stop: Stop, max_values: usize) -> Result<Decoded<u64>, DecodeError> {
    decode(page, 64, terminator, stop, max_values).map(|(d, _)| d)
}

/// Decode `width`-bit patterns (32 or 64); also returns the bit just after
/// the last bit read (for a stream embedded in another, such as SPRINTZ's
/// tail, whose flush byte follows the terminator).
pub(crate) fn decode(
    page: &[u8],
    width: u32,
    terminator: u64,
    stop: Stop,
    max_values: usize,
) -> Result<(Decoded<u64>, usize), DecodeError> {
    let field_bits = if width == 32 { 5 } else { 6 };
    let mut r = Bits::new(page);
    let mut values = Vec::new();
    if let Stop::Count(n) = stop {
        if n > max_values {
            return Err(DecodeError::TooManyValues {
                max: max_values,
                offset: 0,
            });
        }
        if n == 0 {
            return Ok((Decoded { values, consumed: 0 }, 0));
        }
    }
    let mut prev = r.bits(width).ok_or(r.truncated(Field::GorillaFirst, 0))?;
    // (leading, trailing) of the stored window; none before the first `1 1`.
    let mut window: Option<(u32, u32)> = None;
    let mut value_start = 0;
    loop {
        match stop {
            Stop::AtTerminator if prev == terminator => {
                let flush = r.pos / 8;
                if flush >= page.len() {
                    return Err(r.truncated(Field::GorillaFlush, r.pos));
                }
                return Ok((
                    Decoded {
                        values,
                        consumed: flush + 1,
                    },
                    r.pos,
                ));
            }
            _ => {}
        }
        if values.len() == max_values {
            return Err(DecodeError::TooManyValues {
                max: max_values,
                offset: value_start / 8,
            });
        }
        values.push(prev);
        if stop == Stop::Count(values.len()) {
            return Ok((
                Decoded {
                    values,
                    consumed: r.pos.div_ceil(8),
                },
                r.pos,
            ));
        }
        // The next value.
        value_start = r.pos;
        let c1 = r.bit().ok_or(r.truncated(Field::GorillaControl, value_start))?;
        if !c1 {
            continue;
        }
        let c2 = r.bit().ok_or(r.truncated(Field::GorillaControl, value_start))?;
        let (lz, tz) = if !c2 {
            window.ok_or(DecodeError::NoWindow {
                offset: value_start / 8,
                bit: (value_start % 8) as u8,
            })?
        } else {
            let at = r.pos;
            let lz = r.bits(field_bits).ok_or(r.truncated(Field::GorillaLeading, at))? as u32;
            let at = r.pos;
            let sig = r.bits(field_bits).ok_or(r.truncated(Field::GorillaLength, at))? as u32 + 1;
            if lz + sig > width {
                return Err(DecodeError::BadWindow {
                    leading: lz,
                    significant: sig,
                    offset: at / 8,
                    bit: (at % 8) as u8,
                });
            }
            let w = (lz, width - lz - sig);
            window = Some(w);
            w
        };
        let at = r.pos;
        let sig = width - lz - tz;
        let bits = r.bits(sig).ok_or(r.truncated(Field::GorillaBits, at))?;
        prev ^= bits << tz;
    }
}

/// Encode 32-bit patterns. `terminator`: append it and the flush byte as the
/// writers do; `None` just pads the last byte with zeros.
pub fn encode32(values: &[u32], terminator: Option<u32>) -> Vec<u8> {
    let v: Vec<u64> = values.iter().map(|&x| x as u64).collect();
    encode(&v, 32, terminator.map(|t| t as u64))
}

/// Encode 64-bit patterns; see [`encode32`].
pub fn encode64(values: &[u64], terminator: Option<u64>) -> Vec<u8> {
    encode(values, 64, terminator)
}

fn encode(values: &[u64], width: u32, terminator: Option<u64>) -> Vec<u8> {
    let field_bits = if width == 32 { 5 } else { 6 };
    let mut w = BitWriter::default();
    let mut stored: Option<u64> = None;
    let mut stored_lz = u32::MAX;
    let mut stored_tz = 0;
    for &v in values.iter().chain(terminator.iter()) {
        let Some(prev) = stored else {
            w.bits(v, width);
            stored = Some(v);
            continue;
        };
        stored = Some(v);
        let xor = prev ^ v;
        if xor == 0 {
            w.bit(false);
            continue;
        }
        w.bit(true);
        let lz = xor.leading_zeros() - (64 - width);
        let tz = xor.trailing_zeros();
        if lz >= stored_lz && tz >= stored_tz {
            w.bit(false);
            w.bits(xor >> stored_tz, width - stored_lz - stored_tz);
        } else {
            w.bit(true);
            let sig = width - lz - tz;
            w.bits(lz as u64, field_bits);
            w.bits((sig - 1) as u64, field_bits);
            w.bits(xor >> tz, sig);
            stored_lz = lz;
            stored_tz = tz;
        }
    }
    let mut bytes = w.bytes;
    if terminator.is_some() && w.nbits % 8 == 0 {
        // The writers flush the current byte even when it is empty.
        bytes.push(0);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::test_len;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    #[test]
    fn known_answer_int32() {
        // 1, 1, 3: raw 1; `0`; xor 2 → `1 1` lz 30 (5 bits), sig 1 → 0 (5 bits), bit 1;
        // then the terminator i32::MIN: xor 0x80000003 → `1 1` lz 0, sig 32 → 31, 32 bits.
        let page = encode32(&[1, 1, 3], Some(TERMINATOR_I32));
        insta::assert_snapshot!(hex(&page), @"00 00 00 01 7e 07 07 e0 00 00 00 c0");
        let d = decode32(&page, TERMINATOR_I32, Stop::AtTerminator, 10).unwrap();
        assert_eq!(d.values, vec![1, 1, 3]);
        assert_eq!(d.consumed, page.len());
        let d = decode32(&page, TERMINATOR_I32, Stop::Count(3), 10).unwrap();
        assert_eq!(d.values, vec![1, 1, 3]);
        assert_eq!(d.consumed, 6);
    }

    #[test]
    fn flush_byte_when_aligned() {
        // A lone terminator: 64 bits, then an empty flush byte.
        let page = encode64(&[], Some(TERMINATOR_F64));
        assert_eq!(page.len(), 9);
        let d = decode64(&page, TERMINATOR_F64, Stop::AtTerminator, 0).unwrap();
        assert_eq!((d.values.len(), d.consumed), (0, 9));
        assert_eq!(
            decode64(&page[..8], TERMINATOR_F64, Stop::AtTerminator, 0),
            Err(DecodeError::Truncated {
                field: Field::GorillaFlush,
                offset: 8,
                bit: 0
            })
        );
    }

    #[test]
    fn terminator_value_ends_early_unless_counted() {
        let v = [5u64, TERMINATOR_I64, 7];
        let page = encode64(&v, Some(TERMINATOR_I64));
        let early = decode64(&page, TERMINATOR_I64, Stop::AtTerminator, 10).unwrap();
        assert_eq!(early.values, vec![5]);
        let all = decode64(&page, TERMINATOR_I64, Stop::Count(3), 10).unwrap();
        assert_eq!(all.values, v.to_vec());
    }

    #[test]
    fn every_error_variant() {
        let page = encode32(&[1, 1, 3, 3 << 8], Some(TERMINATOR_I32));
        let t = |field, offset, bit| Err(DecodeError::Truncated { field, offset, bit });
        let d = |p: &[u8]| decode32(p, TERMINATOR_I32, Stop::AtTerminator, 10);
        assert_eq!(d(&page[..3]), t(Field::GorillaFirst, 0, 0));
        assert_eq!(d(&page[..4]), t(Field::GorillaControl, 4, 0));
        // Controls from bit 32; leading zeros then length in 5 bits each.
        assert_eq!(d(&[0, 0, 0, 1, 0x03]), t(Field::GorillaLeading, 5, 0));
        assert_eq!(d(&[0, 0, 0, 1, 0x7e]), t(Field::GorillaLength, 5, 0));
        assert_eq!(d(&[0, 0, 0, 1, 0x60, 0xf8]), t(Field::GorillaBits, 5, 5));
        assert_eq!(d(&[0, 0, 0, 1, 0x40]), Err(DecodeError::NoWindow { offset: 4, bit: 1 }));
        // lz 31, sig 2.
        assert_eq!(
            d(&[0, 0, 0, 1, 0x7f, 0x08, 0]),
            Err(DecodeError::BadWindow {
                leading: 31,
                significant: 2,
                offset: 5,
                bit: 0
            })
        );
        assert_eq!(d(&page[..0]), t(Field::GorillaFirst, 0, 0));
        assert_eq!(
            decode32(&page, TERMINATOR_I32, Stop::AtTerminator, 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 4 })
        );
        assert_eq!(
            decode32(&page, TERMINATOR_I32, Stop::Count(3), 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 0 })
        );
    }

    proptest! {
        #[test]
        fn round_trip64(v in proptest::collection::vec(prop_oneof![any::<u64>(), 0u64..4, Just(TERMINATOR_F64)], 0..test_len(300))) {
            let page = encode64(&v, Some(TERMINATOR_I64));
            let d = decode64(&page, TERMINATOR_I64, Stop::Count(v.len()), v.len()).unwrap();
            prop_assert_eq!(&d.values, &v);
            if !v.contains(&TERMINATOR_I64) {
                let d = decode64(&page, TERMINATOR_I64, Stop::AtTerminator, v.len()).unwrap();
                prop_assert_eq!(d.values, v);
                prop_assert_eq!(d.consumed, page.len());
            }
        }
        #[test]
        fn round_trip32(v in proptest::collection::vec(prop_oneof![any::<u32>(), 0u32..4], 0..test_len(300))) {
            let page = encode32(&v, None);
            let d = decode32(&page, TERMINATOR_F32, Stop::Count(v.len()), v.len()).unwrap();
            prop_assert_eq!(d.values, v);
            prop_assert_eq!(d.consumed, page.len());
        }
    }
}
