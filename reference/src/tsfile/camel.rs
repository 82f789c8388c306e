//! CAMEL (encoding id 14) for DOUBLE: blocks of `zigzag varint bit count |
//! bits` (MSB-first, padded to a byte). The first value raw; then per value a sign bit and a
//! type bit: decimal values as an integer-part delta (bitwise varint) and a
//! decimal part (count, optional XOR bits, bitwise varint), the rest through
//! a GORILLA-style XOR. Notes: `docs/reference/tsfile-encodings.md`.

use super::{write_zigzag32, BitWriter, Bits, Bytes, DecodeError, Decoded, Field};

/// Decimal digits (integer + fraction) the encoder keeps in the decimal form.
const ENCODER_MAX_DIGITS: i32 = 10;
/// Decimal counts the readers accept (their tables stop at 10^15).
const DECODER_MAX_COUNT: u64 = 15;

/// `doubleToLongBits`: every NaN canonical.
fn canonical_bits(v: f64) -> u64 {
    if v.is_nan() {
        0x7FF8_0000_0000_0000
    } else {
        v.to_bits()
    }
}

/// `sign * value` with `sign` ±1.0, as the notes define it for a NaN: the
/// NaN itself, quieted, its sign kept (what the multiplication gives on
/// x86-64, AArch64, POWER and s390x; IEEE 754 and Rust leave it open, and
/// RISC-V gives the canonical NaN instead).
fn signed(sign: f64, value: f64) -> f64 {
    if value.is_nan() {
        f64::from_bits(value.to_bits() | 1 << 51)
    } else {
        sign * value
    }
}

/// Java's `Math.round(double)`: nearest, ties up, saturating, NaN to 0.
fn java_round(x: f64) -> i64 {
    let r = x.round();
    if x.fract() == -0.5 {
        (r + 1.0) as i64
    } else {
        r as i64
    }
}

/// A bit cursor bounded by the block's bit count; positions in errors are
/// page offsets.
struct Block<'a> {
    bits: Bits<'a>,
    /// Page offset of the block's first byte.
    start: usize,
    /// Bits in the block.
    limit: usize,
}

impl Block<'_> {
    fn left(&self) -> usize {
        self.limit - self.bits.pos
    }
    fn truncated(&self, field: Field, at: usize) -> DecodeError {
        DecodeError::Truncated {
            field,
            offset: self.start + at / 8,
            bit: (at % 8) as u8,
        }
    }
    fn take(&mut self, n: u32, field: Field) -> Result<u64, DecodeError> {
        let at = self.bits.pos;
        if (n as usize) > self.left() {
            return Err(self.truncated(field, at));
        }
        self.bits.bits(n).ok_or(self.truncated(field, at))
    }
    /// The bitwise zigzag varint: groups of 7 bits (low group first), each
    /// followed by a continuation bit; at most 10 groups.
    fn var_long(&mut self, field: Field) -> Result<i64, DecodeError> {
        let at = self.bits.pos;
        let mut result: u64 = 0;
        let mut shift = 0;
        loop {
            let chunk = self.take(7, field).map_err(|_| self.truncated(field, at))?;
            let more = self.take(1, field).map_err(|_| self.truncated(field, at))?;
            result |= chunk << shift;
            shift += 7;
            if more == 0 {
                break;
            }
            if shift >= 64 {
                return Err(DecodeError::BadVarint {
                    offset: self.start + at / 8,
                });
            }
        }
        Ok(((result >> 1) ^ (result & 1).wrapping_neg()) as i64)
    }
}

/// The reader's state across a block.
struct State {
    stored_val: i64,
    previous: u64,
    scale: f64,
    /// Leading and trailing zeros of the XOR window; none before the first.
    window: Option<(u32, u32)>,
}

fn decode_value(b: &mut Block<'_>, s: &mut State) -> Result<f64, DecodeError> {
    let sign = if b.take(1, Field::CamelType)? == 1 { -1.0 } else { 1.0 };
    let camel = b.take(1, Field::CamelType)? == 1;
    if camel {
        let diff = b.var_long(Field::CamelVarLong)?;
        s.stored_val = s.stored_val.wrapping_add(diff);
        let int_part = s.stored_val;
        let at = b.bits.pos;
        let count = b.take(4, Field::CamelDecimal)? + 1;
        if count > DECODER_MAX_COUNT {
            return Err(DecodeError::BadCount {
                field: Field::CamelDecimal,
                count: count as i64,
                offset: b.start + at / 8,
            });
        }
        let has_xor = b.take(1, Field::CamelDecimal)? == 1;
        let xor = if has_xor {
            b.take(count as u32, Field::CamelDecimal)? << (52 - count)
        } else {
            0
        };
        let m = b.var_long(Field::CamelVarLong)?;
        let pow = 10i64.pow(count as u32) as f64;
        let frac = if has_xor {
            let base = m as f64 / pow + 1.0;
            f64::from_bits(xor ^ canonical_bits(base)) - 1.0
        } else {
            m as f64 / pow
        };
        s.scale = pow;
        let dec_part = java_round(frac * s.scale) as f64;
        let value = if int_part >= 0 {
            (int_part as f64 * s.scale + dec_part) / s.scale
        } else {
            -(int_part as f64 * s.scale + dec_part) / s.scale
        };
        return Ok(sign * value);
    }
    // The XOR form, against the previous value's (canonical, signed) bits.
    let at = b.bits.pos;
    if b.take(1, Field::CamelXor)? == 0 {
        return Ok(signed(sign, f64::from_bits(s.previous)));
    }
    let xor = if b.take(1, Field::CamelXor)? == 0 {
        let (lead, trail) = s.window.ok_or(DecodeError::NoWindow {
            offset: b.start + at / 8,
            bit: (at % 8) as u8,
        })?;
        // At least 1: a window is stored only with lead + sig <= 64.
        let sig = 64 - lead - trail;
        b.take(sig, Field::CamelXor)? << trail
    } else {
        let lead = b.take(6, Field::CamelXor)? as u32;
        let len_at = b.bits.pos;
        let sig = b.take(6, Field::CamelXor)? as u32 + 1;
        if lead + sig > 64 {
            return Err(DecodeError::BadWindow {
                leading: lead,
                significant: sig,
                offset: b.start + len_at / 8,
                bit: (len_at % 8) as u8,
            });
        }
        let trail = 64 - lead - sig;
        s.window = Some((lead, trail));
        b.take(sig, Field::CamelXor)? << trail
    };
    s.previous ^= xor;
    Ok(signed(sign, f64::from_bits(s.previous)))
}

/// Decode a whole DOUBLE page.
pub fn decode(page: &[u8], max_values: usize) -> Result<Decoded<f64>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values = Vec::new();
    while !r.at_end() {
        let header = r.pos;
        let nbits = r.zigzag32(Field::CamelBits)?;
        let nbytes = (nbits.max(0) as usize).div_ceil(8);
        if nbits <= 0 || nbytes > r.remaining() {
            return Err(DecodeError::BadCount {
                field: Field::CamelBits,
                count: nbits as i64,
                offset: header,
            });
        }
        let start = r.pos;
        let mut b = Block {
            bits: Bits::new(&page[start..start + nbytes]),
            start,
            limit: nbits as usize,
        };
        let mut s = State {
            stored_val: 0,
            previous: 0,
            scale: 1.0,
            window: None,
        };
        let mut first = true;
        while b.left() > 0 {
            if values.len() == max_values {
                return Err(DecodeError::TooManyValues {
                    max: max_values,
                    offset: start + b.bits.pos / 8,
                });
            }
            let v = if first {
                first = false;
                let v = f64::from_bits(b.take(64, Field::CamelFirst)?);
                s.stored_val = v as i64;
                v
            } else {
                decode_value(&mut b, &mut s)?
            };
            s.previous = canonical_bits(v);
            values.push(v);
        }
        r.pos = start + nbytes;
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

/// The bitwise zigzag varint the encoder writes.
fn write_var_long(w: &mut BitWriter, v: i64) {
    let mut u = ((v << 1) ^ (v >> 63)) as u64;
    while u & !0x7F != 0 {
        w.bits(u & 0x7F, 7);
        w.bit(true);
        u >>= 7;
    }
    w.bits(u, 7);
    w.bit(false);
}

/// The XOR bits of a decimal `dv` written as `m = dv mod 5^count`: the top
/// `count` mantissa bits of `bits(dv / 10^count + 1) ^ bits(m / 10^count + 1)`.
fn decimal_xor(dv: i64, m: i64, pow: i64, count: u32) -> u64 {
    (canonical_bits(dv as f64 / pow as f64 + 1.0) ^ canonical_bits(m as f64 / pow as f64 + 1.0)) >> (52 - count)
}

/// Encode DOUBLE values as the Java `CamelEncoder` does (one block).
pub fn encode(values: &[f64]) -> Vec<u8> {
    let mut out = Vec::new();
    if values.is_empty() {
        return out;
    }
    let mut w = BitWriter::default();
    let mut stored_val: i64 = 0;
    let mut previous: u64 = 0;
    let mut window: Option<(u32, u32)> = None;
    for (i, &v) in values.iter().enumerate() {
        if i == 0 {
            w.bits(v.to_bits(), 64);
            stored_val = v as i64;
        } else {
            w.bit(canonical_bits(v) >> 63 == 1);
            let a = v.abs();
            let mut decimal = None;
            // The notes' writer also sends `a > 2^63` and `|floor(log10 a)|
            // > 10` to the XOR form before counting. The count does that by
            // itself: such a value has more than 10 integer digits (the
            // integer part saturates at 19 digits), or 10 or more zeros
            // after the point, so it never fits 10 digits. Zero would count
            // as one decimal, so it is tested here.
            if a != 0.0 {
                let int_part = a as i64;
                let digits = int_part.unsigned_abs().to_string().len() as i32;
                let mut factor = 1.0f64;
                let mut count = 0;
                while (a * factor - java_round(a * factor) as f64).abs() > 0.0 {
                    factor *= 10.0;
                    count += 1;
                    if digits + count > ENCODER_MAX_DIGITS {
                        break;
                    }
                }
                let count = count.max(1);
                if count + digits <= ENCODER_MAX_DIGITS {
                    decimal = Some((int_part, count as u32));
                }
            }
            match decimal {
                Some((int_part, count)) => {
                    let pow = 10i64.pow(count);
                    let dv = java_round(a * pow as f64) % pow;
                    w.bit(true);
                    write_var_long(&mut w, int_part.wrapping_sub(stored_val));
                    stored_val = int_part;
                    w.bits(count as u64 - 1, 4);
                    let threshold = pow >> count; // 10^n / 2^n = 5^n
                    let mut m = dv as i32;
                    if dv >= threshold {
                        w.bit(true);
                        m = (dv % threshold) as i32;
                        w.bits(decimal_xor(dv, m as i64, pow, count), count);
                    } else {
                        w.bit(false);
                    }
                    write_var_long(&mut w, m as i64);
                }
                None => {
                    w.bit(false);
                    let curr = canonical_bits(a);
                    let xor = curr ^ previous;
                    if xor == 0 {
                        w.bit(false);
                    } else {
                        w.bit(true);
                        let (lead, trail) = (xor.leading_zeros(), xor.trailing_zeros());
                        match window {
                            Some((l, t)) if lead >= l && trail >= t => {
                                w.bit(false);
                                w.bits(xor >> t, 64 - l - t);
                            }
                            _ => {
                                w.bit(true);
                                let sig = 64 - lead - trail;
                                w.bits(lead as u64, 6);
                                w.bits(sig as u64 - 1, 6);
                                w.bits(xor >> trail, sig);
                                window = Some((lead, trail));
                            }
                        }
                    }
                }
            }
        }
        previous = canonical_bits(v);
    }
    write_zigzag32(&mut out, w.nbits as i32);
    out.extend_from_slice(&w.bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::test_len;

    /// `sign * NaN` as the notes define it: the NaN, quieted, its sign kept.
    #[test]
    fn a_signed_nan_keeps_its_sign() {
        let snan = f64::from_bits(0x7ff0_0000_0000_0001);
        assert_eq!(signed(-1.0, snan).to_bits(), 0x7ff8_0000_0000_0001);
        assert_eq!(
            signed(1.0, f64::from_bits(0xfff0_0000_0000_0002)).to_bits(),
            0xfff8_0000_0000_0002
        );
        assert_eq!(signed(-1.0, 2.5), -2.5);
        assert_eq!(signed(-1.0, 0.0).to_bits(), (-0.0f64).to_bits());
    }
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn known_answer() {
        // 1.5 raw; 2.25: sign 0, type 1, integer delta +1 (zigzag 2:
        // 0000010 0), count 2 (0001), 25 >= 5^2 so XOR bit 1 and the top 2
        // mantissa bits of 1.25 ^ 1.0 (01), m = 0 (0000000 0). 89 bits:
        // zigzag varint 178 = b2 01.
        let page = encode(&[1.5, 2.25]);
        insta::assert_snapshot!(hex(&page), @"b2 01 3f f8 00 00 00 00 00 00 41 06 80 00");
        let d = decode(&page, 2).unwrap();
        assert_eq!(d.values, vec![1.5, 2.25]);
        assert_eq!(d.consumed, page.len());
    }

    #[test]
    fn decimals_and_xor_values_round_trip() {
        let v = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            3.25,
            -2.71825,
            100.5,
            0.001,
            123456.789,
            9999999.9,
            1e12,
            1e-12,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            0.1,
            0.2,
            0.3,
            42.0,
            42.0,
            42.0,
            -7.5,
            1e300,
            2.5e-7,
        ];
        let got = decode(&encode(&v), v.len()).unwrap().values;
        assert_eq!(bits(&got), bits(&v));
        // A first value that is negative, NaN or huge is raw.
        for first in [-3.5, f64::from_bits(0x7FF0_0000_0000_0001), 1e200] {
            let got = decode(&encode(&[first, 1.25]), 2).unwrap().values;
            assert_eq!(bits(&got), bits(&[first, 1.25]));
        }
    }

    /// A block of 1.0 (integer part 1) and one decimal-form value: its sign
    /// bit, the integer part's delta (zigzag, under 128: one varlong
    /// group), `count - 1` (4 bits), the XOR flag and bits, then `m`
    /// (zigzag, one group).
    fn decimal_value(negative: bool, delta_zigzag: u64, code: u64, xor: Option<(u64, u32)>, m_zigzag: u64) -> Vec<u8> {
        let mut w = BitWriter::default();
        w.bits(1.0f64.to_bits(), 64);
        w.bit(negative);
        w.bit(true);
        w.bits(delta_zigzag, 7);
        w.bit(false);
        w.bits(code, 4);
        match xor {
            Some((bits, n)) => {
                w.bit(true);
                w.bits(bits, n);
            }
            None => w.bit(false),
        }
        w.bits(m_zigzag, 7);
        w.bit(false);
        let mut p = Vec::new();
        write_zigzag32(&mut p, w.nbits as i32);
        p.extend(&w.bytes);
        p
    }

    /// A positive decimal-form value with integer delta 0.
    fn one_decimal(code: u64, xor: Option<(u64, u32)>, m_zigzag: u64) -> Vec<u8> {
        decimal_value(false, 0, code, xor, m_zigzag)
    }

    #[test]
    fn decimal_counts_and_xor_bits_the_readers_accept() {
        // Count 15 (code 14) is the readers' largest: 1 + 0 / 10^15.
        assert_eq!(decode(&one_decimal(14, None, 0), 9).unwrap().values, vec![1.0, 1.0]);
        // The XOR bits are XORed into bits(m / 10^count + 1), even where
        // they overlap (m = 5 >= 5^1, which the writer never leaves):
        // 1.5 ^ the top mantissa bit = 1.0, so the fraction is 0.
        let p = one_decimal(0, Some((1, 1)), 10);
        assert_eq!(decode(&p, 9).unwrap().values, vec![1.0, 1.0]);
    }

    #[test]
    fn a_negative_integer_part_is_negated_as_both_readers_do() {
        // The writer never stores a negative integer part (it encodes |v|
        // and the sign bit), but a stream can: Java's CamelDecoder.nextValue
        // and C++'s read_next_value both compute -(int * 10^c + dec) / 10^c
        // for it, then apply the sign bit. Integer part 1 + (-4) = -3,
        // m = 5 at count 1 (dec 5): -(-30 + 5) / 10 = 2.5.
        let values = |negative, delta, m| decode(&decimal_value(negative, delta, 0, None, m), 9).unwrap().values;
        assert_eq!(values(false, 7, 10), vec![1.0, 2.5]);
        assert_eq!(values(true, 7, 10), vec![1.0, -2.5]);
        // Integer part -1: -(-10 + 5) / 10; integer part 0 is not negative.
        assert_eq!(values(false, 3, 10), vec![1.0, 0.5]);
        assert_eq!(values(false, 1, 10), vec![1.0, 0.5]);
        // dec 0: -(-30) / 10 = 3; integer part 1 + 2 = 3 stays 3.3 with m 3.
        assert_eq!(values(false, 7, 0), vec![1.0, 3.0]);
        assert_eq!(values(false, 4, 6), vec![1.0, 3.3]);
    }

    #[test]
    fn the_writer_reuses_a_window_that_holds_the_xor() {
        // 1/3 never fits 10 digits, so every value after the first takes
        // the XOR form; y and z each differ from the value before in bit 20.
        let x = 1.0f64 / 3.0;
        let y = f64::from_bits(x.to_bits() ^ 1 << 20);
        let mut w = BitWriter::default();
        w.bits(x.to_bits(), 64);
        // y: sign 0, XOR form 0, a non-zero XOR 1, a new window 1 (43
        // leading zeros, 1 significant bit stored as 0), the bit.
        w.bits(0b0011, 4);
        w.bits(43, 6);
        w.bits(0, 6);
        w.bit(true);
        // x again: the same XOR fits that window: reuse 0, the bit.
        w.bits(0b0010, 4);
        w.bit(true);
        let mut expected = Vec::new();
        write_zigzag32(&mut expected, w.nbits as i32);
        expected.extend(&w.bytes);
        assert_eq!(encode(&[x, y, x]), expected);
        assert_eq!(bits(&decode(&expected, 9).unwrap().values), bits(&[x, y, x]));
    }

    #[test]
    fn java_round_ties_up() {
        // Math.round: nearest, ties towards +infinity, NaN to 0, saturating.
        assert_eq!(java_round(2.5), 3);
        assert_eq!(java_round(-2.5), -2);
        assert_eq!(java_round(-0.5), 0);
        assert_eq!(java_round(-2.500000001), -3);
        assert_eq!(java_round(0.49999999999999994), 0);
        assert_eq!(java_round(f64::NAN), 0);
        assert_eq!(java_round(1e300), i64::MAX);
    }

    /// Whether the writer puts `v` in the decimal form (the type bit of the
    /// second value of `[1.0, v]`: bit 65 of the block).
    fn decimal_form(v: f64) -> bool {
        let page = encode(&[1.0, v]);
        let mut r = Bytes::new(&page);
        r.zigzag32(Field::CamelBits).unwrap();
        page[r.pos + 8] & 0x40 != 0
    }

    #[test]
    fn the_writers_choice_of_form() {
        // At most 10 digits, integer and decimal, at least one decimal:
        // 2^-9 has 9 decimals after its integer digit "0", 2^-10 has 10.
        for v in [0.5, -0.125, 512.5, 0.001953125, 999_999_999.5, 999_999_999.0, f64::NAN] {
            assert!(decimal_form(v), "{v}");
        }
        for v in [
            0.0,
            -0.0,
            0.0009765625,
            1_999_999_999.5,
            9_999_999_999.0,
            1e10,
            4_611_686_018_427_387_904.0,
            9_223_372_036_854_775_808.0,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-10,
            f64::MIN_POSITIVE,
            9.094947017729282e-13,
        ] {
            assert!(!decimal_form(v), "{v}");
        }
        // Either way the value comes back (NaN as 0.0, see below).
        let v = [
            1.0,
            0.001953125,
            0.0009765625,
            999_999_999.5,
            1_999_999_999.5,
            9_999_999_999.0,
        ];
        assert_eq!(bits(&decode(&encode(&v), 6).unwrap().values), bits(&v));
    }

    #[test]
    fn nan_after_the_first_value_is_lossy() {
        // NaN fails every comparison, so the writer takes the decimal path
        // with integer part (long) NaN = 0 and decimal 0: it reads back as
        // 0.0. The Java and C++ writers both do this.
        let got = decode(&encode(&[1.0, f64::NAN]), 2).unwrap().values;
        assert_eq!(bits(&got), bits(&[1.0, 0.0]));
    }

    #[test]
    fn every_error_variant() {
        let tr = |field, offset, bit| DecodeError::Truncated { field, offset, bit };
        let page = encode(&[1.5, 2.25]);
        assert_eq!(decode(&[0x80], 9), Err(tr(Field::CamelBits, 0, 0)));
        for (p, count) in [(vec![0u8], 0i64), (vec![1], -1), (vec![0xb2, 0x01, 0], 89)] {
            assert_eq!(
                decode(&p, 9),
                Err(DecodeError::BadCount {
                    field: Field::CamelBits,
                    count,
                    offset: 0
                })
            );
        }
        // Fewer bits than the first value: 8 bits.
        assert_eq!(decode(&[0x10, 0x3f], 9), Err(tr(Field::CamelFirst, 1, 0)));
        // A value cut by the block's bit count: the same bytes, 65 bits.
        let mut cut = vec![0x82, 0x01];
        cut.extend(&page[2..]);
        assert_eq!(decode(&cut, 9), Err(tr(Field::CamelType, 10, 1)));
        // 70 bits: sign, type, then the varint cut.
        let mut cut = vec![0x8c, 0x01];
        cut.extend(&page[2..]);
        assert_eq!(decode(&cut, 9), Err(tr(Field::CamelVarLong, 10, 2)));
        // Decimal count 16.
        let mut w = BitWriter::default();
        w.bits(1.0f64.to_bits(), 64);
        w.bits(0b01, 2);
        w.bits(0, 8); // delta 0
        w.bits(15, 4);
        let mut p = Vec::new();
        write_zigzag32(&mut p, w.nbits as i32);
        p.extend(&w.bytes);
        assert_eq!(
            decode(&p, 9),
            Err(DecodeError::BadCount {
                field: Field::CamelDecimal,
                count: 16,
                offset: 11
            })
        );
        // A varint of 11 groups.
        let mut w = BitWriter::default();
        w.bits(1.0f64.to_bits(), 64);
        w.bits(0b01, 2);
        for _ in 0..11 {
            w.bits(0b1111_1111, 8);
        }
        let mut p = Vec::new();
        write_zigzag32(&mut p, w.nbits as i32);
        p.extend(&w.bytes);
        assert_eq!(decode(&p, 9), Err(DecodeError::BadVarint { offset: 10 }));
        // XOR reuse before any window; a window of 63 + 2 bits.
        let mut w = BitWriter::default();
        w.bits(1.0f64.to_bits(), 64);
        w.bits(0b00, 2); // sign 0, type XOR
        w.bits(0b10, 2); // changed, reuse
        let mut p = Vec::new();
        write_zigzag32(&mut p, w.nbits as i32);
        p.extend(&w.bytes);
        assert_eq!(decode(&p, 9), Err(DecodeError::NoWindow { offset: 10, bit: 2 }));
        let mut w = BitWriter::default();
        w.bits(1.0f64.to_bits(), 64);
        w.bits(0b0011, 4); // sign 0, type XOR, changed, new window
        w.bits(63, 6);
        w.bits(1, 6); // 2 significant bits
        w.bits(0, 2);
        let mut p = Vec::new();
        write_zigzag32(&mut p, w.nbits as i32);
        p.extend(&w.bytes);
        assert_eq!(
            decode(&p, 9),
            Err(DecodeError::BadWindow {
                leading: 63,
                significant: 2,
                offset: 11,
                bit: 2
            })
        );
        assert_eq!(decode(&page, 1), Err(DecodeError::TooManyValues { max: 1, offset: 10 }));
    }

    #[test]
    fn every_prefix_is_an_error_or_shorter() {
        let page = encode(&[1.5, 2.25, -3.0, f64::INFINITY, 0.125]);
        for n in 0..page.len() {
            if let Ok(d) = decode(&page[..n], 9) {
                assert!(d.values.is_empty() && n == 0, "{n}");
            }
        }
    }

    /// Bytes written by the official writer (PyPI `tsfile` 2.5.0, the C++
    /// library), as hex.
    use crate::tsfile::test_unhex as unhex;

    #[test]
    fn official_writer_pages() {
        // CAMEL (id 14) pages written by PyPI tsfile 2.5.0; NaN after the
        // first value comes back as 0.0 there too.
        let p = unhex("b2 01 3f f8 00 00 00 00 00 00 41 06 80 00");
        assert_eq!(encode(&[1.5, 2.25]), p);
        let v = [1.5, 2.25, -3.0, f64::INFINITY, 0.125, f64::NAN, 100.5];
        let p = unhex("bc 03 3f f8 00 00 00 00 00 00 41 06 80 60 80 00 30 0c bf fa 14 52 00 80 00 01 91 02 0c 00");
        assert_eq!(encode(&v), p);
        let got = decode(&p, 7).unwrap().values;
        assert_eq!(bits(&got), bits(&[1.5, 2.25, -3.0, f64::INFINITY, 0.125, 0.0, 100.5]));
    }

    proptest! {
        /// Values with few decimals come back exactly; anything else
        /// decodes without error to as many values.
        #[test]
        fn round_trip(k in proptest::collection::vec(-10_000_000i64..10_000_000, 1..test_len(200)), d in 0u32..4, raw in proptest::collection::vec(any::<u64>(), 0..50)) {
            // The divisor exact, not `powi`: Miri gives `powi` the error a
            // platform's libm may have, and a value an ulp off is no longer
            // one with few decimals.
            let divisor = [1.0, 10.0, 100.0, 1000.0][d as usize];
            let v: Vec<f64> = k.iter().map(|&k| k as f64 / divisor).collect();
            let page = encode(&v);
            let got = decode(&page, v.len()).unwrap();
            prop_assert_eq!(bits(&got.values), bits(&v));
            prop_assert_eq!(got.consumed, page.len());
            let r: Vec<f64> = raw.iter().map(|&x| f64::from_bits(x)).collect();
            prop_assert_eq!(decode(&encode(&r), r.len()).unwrap().values.len(), r.len());
        }
    }
}
