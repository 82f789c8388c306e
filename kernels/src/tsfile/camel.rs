//! CAMEL (encoding id 14) for DOUBLE, from `docs/tsfile-encodings.md`: a
//! page is blocks of `zigzag varint bit count | ceil(bits / 8) bytes`, each
//! MSB-first. A block's first value is raw; then per value a sign bit and a
//! type bit: the decimal form (a bitwise varint delta of the integer part,
//! a 4-bit decimal count, an XOR flag with up to 15 XOR bits, a bitwise
//! varint decimal part) or a GORILLA-style XOR against the previous value's
//! canonical bits.
//!
//! `camel/window64` reads every field from one unaligned big-endian 8-byte
//! load at its bit position (57 valid bits): the sign, type, XOR controls
//! and both window fields of a value come from one load, a varint of up to
//! seven 8-bit groups from one load whose continuation bits give its length
//! (`leading_zeros`) and whose 7-bit chunks are compacted with constant
//! masks. Powers of ten come from a table. Every field is checked against
//! the block's bit count before its bits are used, in the order the notes
//! give, so errors name the same field and bit as a bit-at-a-time reader.
//!
//! The decimal reconstruction is the notes' formula, operation for
//! operation (IEEE division and multiplication, never fused; Java's
//! `Math.round` done exactly in integers), so the doubles are the same on
//! every target.

use super::{uvarint32, DecodeError, Done, Field, Lane};

/// 10^0 ..= 10^15, all exact doubles (10^15 < 2^53).
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// The largest decimal count the readers accept (their tables stop at 10^15).
const MAX_COUNT: usize = 15;

/// `doubleToLongBits`: every NaN as the canonical quiet NaN.
#[inline(always)]
fn canonical(bits: u64) -> u64 {
    if bits & !SIGN > EXPONENT {
        0x7FF8_0000_0000_0000
    } else {
        bits
    }
}

const SIGN: u64 = 1 << 63;
const EXPONENT: u64 = 0x7FF0_0000_0000_0000;
const QUIET: u64 = 1 << 51;

/// `sign * value` for a sign of ±1.0, in bits: a number is negated when the
/// sign is negative; a NaN comes back quieted with its own sign, which is
/// what `±1.0 * NaN` gives on x86-64, AArch64, POWER and s390x (the
/// multiplication returns its NaN operand, quieted).
#[inline(always)]
fn signed(negative: bool, bits: u64) -> u64 {
    if bits & !SIGN > EXPONENT {
        bits | QUIET
    } else if negative {
        bits ^ SIGN
    } else {
        bits
    }
}

/// Java's `Math.round(double)` (nearest, ties towards +infinity, saturating,
/// NaN to 0), exactly: below 2^52 the fraction `x - trunc(x)` is exact.
#[inline(always)]
fn java_round(x: f64) -> i64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        let t = x as i64;
        let f = x - t as f64;
        if f >= 0.5 {
            t + 1
        } else if f < -0.5 {
            t - 1
        } else {
            t
        }
    } else {
        // An integer already (or out of range: saturating, NaN to 0).
        x as i64
    }
}

/// A decimal-form value: `frac` = `m / 10^count` (or, with XOR bits, the
/// bits of `m / 10^count + 1` XORed, minus 1), `dec = round(frac * 10^count)`,
/// then `(int * 10^count + dec) / 10^count`, negated for a negative integer
/// part, then the sign. Never a NaN: every term is finite.
#[inline(always)]
fn decimal(negative: bool, int_part: i64, count: usize, xor: u64, has_xor: bool, m: i64) -> u64 {
    let pow = POW10[count & 15];
    let frac = if has_xor {
        f64::from_bits(xor ^ canonical((m as f64 / pow + 1.0).to_bits())) - 1.0
    } else {
        m as f64 / pow
    };
    let dec = java_round(frac * pow) as f64;
    let value = if int_part >= 0 {
        (int_part as f64 * pow + dec) / pow
    } else {
        -(int_part as f64 * pow + dec) / pow
    };
    if negative {
        (-value).to_bits()
    } else {
        value.to_bits()
    }
}

/// `(u >> 1) ^ -(u & 1)`.
#[inline(always)]
fn unzigzag(u: u64) -> i64 {
    ((u >> 1) ^ (u & 1).wrapping_neg()) as i64
}

/// The 7-bit groups in the low `bytes` bytes of `x` (one group per byte,
/// low group first, bit 7 of each byte clear), packed together.
#[inline(always)]
fn compact7(x: u64, bytes: u32) -> u64 {
    let x = x & (u64::MAX >> (64 - 8 * bytes));
    // The groups land on disjoint bits: adding them is or-ing them.
    (x & 0x7F)
        + ((x >> 1) & (0x7F << 7))
        + ((x >> 2) & (0x7F << 14))
        + ((x >> 3) & (0x7F << 21))
        + ((x >> 4) & (0x7F << 28))
        + ((x >> 5) & (0x7F << 35))
        + ((x >> 6) & (0x7F << 42))
}

/// Continuation bits of the first seven 8-bit groups of a window (the
/// eighth group's would be bit 0, past the 57 valid bits).
const GROUP_STOPS: u64 = 0x0101_0101_0101_0100;

/// One block: positions are bits from its first byte; errors name page
/// offsets.
struct Block<'a> {
    /// The page from the block's first byte on. Loads may read past the
    /// block (the next block's bytes); no bit past `limit` is ever used.
    data: &'a [u8],
    /// Page offset of the block's first byte.
    start: usize,
    /// Bits in the block.
    limit: usize,
}

impl Block<'_> {
    /// 64 bits from bit `pos`, MSB-aligned; the first 57 are the input's
    /// (bits past the end of the page read as 0).
    #[inline(always)]
    fn peek(&self, pos: usize) -> u64 {
        let at = pos / 8;
        let word = match self.data.get(at..at + 8) {
            Some(w) => u64::from_be_bytes(w.try_into().expect("8 bytes")),
            None => {
                let mut w = [0u8; 8];
                let rest = &self.data[at.min(self.data.len())..];
                w[..rest.len()].copy_from_slice(rest);
                u64::from_be_bytes(w)
            }
        };
        word << (pos % 8)
    }

    /// `n` bits (1..=64) from bit `pos`.
    #[inline(always)]
    fn bits(&self, pos: usize, n: u32) -> u64 {
        if n <= 57 {
            self.peek(pos) >> (64 - n)
        } else {
            let hi = self.peek(pos) >> 32;
            let low = n - 32;
            (hi << low) | (self.peek(pos + 32) >> (64 - low))
        }
    }

    #[cold]
    fn truncated(&self, field: Field, at: usize) -> DecodeError {
        DecodeError::Truncated {
            field,
            offset: self.start + at / 8,
            bit: (at % 8) as u8,
        }
    }

    /// The bitwise zigzag varint at `*pos`: 7-bit groups, low group first,
    /// each followed by a continuation bit; at most 10 groups. A varint cut
    /// by the block's end is truncated at its first bit.
    #[inline(always)]
    fn var_long(&self, pos: &mut usize) -> Result<i64, DecodeError> {
        let at = *pos;
        let w = self.peek(at);
        let stops = !w & GROUP_STOPS;
        if stops == 0 {
            return self.var_long_long(pos);
        }
        // The first group without a continuation bit ends the varint.
        let groups = (stops.leading_zeros() - 7) / 8 + 1;
        let end = at + 8 * groups as usize;
        if end > self.limit {
            return Err(self.truncated(Field::CamelVarLong, at));
        }
        *pos = end;
        // Group k's byte (chunk, continuation) to byte k from the low end,
        // shifted down past its continuation bit.
        let chunks = (w.swap_bytes() >> 1) & 0x7F7F_7F7F_7F7F_7F7F;
        Ok(unzigzag(compact7(chunks, groups)))
    }

    /// A varint of more than seven groups (or one the window cannot end),
    /// a group at a time.
    #[cold]
    #[inline(never)]
    fn var_long_long(&self, pos: &mut usize) -> Result<i64, DecodeError> {
        let at = *pos;
        let mut result = 0u64;
        for k in 0..10 {
            let group = at + 8 * k;
            if group + 8 > self.limit {
                return Err(self.truncated(Field::CamelVarLong, at));
            }
            let byte = self.peek(group) >> 56;
            // The tenth group's chunk keeps its low bit only (bit 63).
            result |= (byte >> 1) << (7 * k);
            if byte & 1 == 0 {
                *pos = group + 8;
                return Ok(unzigzag(result));
            }
        }
        Err(DecodeError::BadVarint {
            offset: self.start + at / 8,
        })
    }
}

/// Decode one block's values into `out[n..]`; returns the new count.
#[inline(always)]
fn decode_block<T: Lane>(b: &Block<'_>, out: &mut [T], mut n: usize) -> Result<usize, DecodeError> {
    let max = out.len();
    let limit = b.limit;
    if n == max {
        return Err(DecodeError::TooManyValues { max, offset: b.start });
    }
    if limit < 64 {
        return Err(b.truncated(Field::CamelFirst, 0));
    }
    // At least 8 bytes: the block holds 64 bits.
    let first = b.bits(0, 64);
    out[n] = T::from_bits(first);
    n += 1;
    let mut stored = f64::from_bits(first) as i64;
    let mut prev = canonical(first);
    // The XOR window (leading, trailing zeros); none before the first.
    let mut window: Option<(u32, u32)> = None;
    let mut pos = 64usize;
    while pos < limit {
        if n == max {
            return Err(DecodeError::TooManyValues {
                max,
                offset: b.start + pos / 8,
            });
        }
        // Sign, type, and the XOR form's controls and window fields: bits
        // 63 .. 48 of one load.
        let w = b.peek(pos);
        if pos + 2 > limit {
            return Err(b.truncated(Field::CamelType, pos + 1));
        }
        let negative = w >> 63 == 1;
        let bits = if (w >> 62) & 1 == 1 {
            let mut p = pos + 2;
            stored = stored.wrapping_add(b.var_long(&mut p)?);
            let int_part = stored;
            let w = b.peek(p);
            if p + 4 > limit {
                return Err(b.truncated(Field::CamelDecimal, p));
            }
            let count = (w >> 60) as usize + 1;
            if count > MAX_COUNT {
                return Err(DecodeError::BadCount {
                    field: Field::CamelDecimal,
                    count: count as i64,
                    offset: b.start + p / 8,
                });
            }
            if p + 5 > limit {
                return Err(b.truncated(Field::CamelDecimal, p + 4));
            }
            let has_xor = (w >> 59) & 1 == 1;
            let xor = if has_xor {
                if p + 5 + count > limit {
                    return Err(b.truncated(Field::CamelDecimal, p + 5));
                }
                p += 5 + count;
                ((w << 5) >> (64 - count)) << (52 - count)
            } else {
                p += 5;
                0
            };
            let m = b.var_long(&mut p)?;
            pos = p;
            decimal(negative, int_part, count, xor, has_xor, m)
        } else {
            let at = pos + 2;
            if at + 1 > limit {
                return Err(b.truncated(Field::CamelXor, at));
            }
            if (w >> 61) & 1 == 0 {
                pos = at + 1;
            } else {
                if at + 2 > limit {
                    return Err(b.truncated(Field::CamelXor, at + 1));
                }
                let (lead, trail, bits_at) = if (w >> 60) & 1 == 0 {
                    let (lead, trail) = window.ok_or(DecodeError::NoWindow {
                        offset: b.start + at / 8,
                        bit: (at % 8) as u8,
                    })?;
                    (lead, trail, at + 2)
                } else {
                    if at + 8 > limit {
                        return Err(b.truncated(Field::CamelXor, at + 2));
                    }
                    let len_at = at + 8;
                    if len_at + 6 > limit {
                        return Err(b.truncated(Field::CamelXor, len_at));
                    }
                    let lead = ((w >> 54) & 63) as u32;
                    let sig = ((w >> 48) & 63) as u32 + 1;
                    if lead + sig > 64 {
                        return Err(DecodeError::BadWindow {
                            leading: lead,
                            significant: sig,
                            offset: b.start + len_at / 8,
                            bit: (len_at % 8) as u8,
                        });
                    }
                    let trail = 64 - lead - sig;
                    window = Some((lead, trail));
                    (lead, trail, at + 14)
                };
                // At least 1: a window is stored only with lead + sig <= 64.
                let sig = 64 - lead - trail;
                if bits_at + sig as usize > limit {
                    return Err(b.truncated(Field::CamelXor, bits_at));
                }
                prev ^= b.bits(bits_at, sig) << trail;
                pos = bits_at + sig as usize;
            }
            signed(negative, prev)
        };
        out[n] = T::from_bits(bits);
        n += 1;
        prev = canonical(bits);
    }
    Ok(n)
}

/// Decode a page into `out` (its length is the most values accepted).
fn decode<T: Lane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    let mut n = 0usize;
    let mut pos = 0usize;
    while pos < page.len() {
        let header = pos;
        let (u, k) = uvarint32(page, pos, Field::CamelBits)?;
        let nbits = ((u >> 1) ^ (u & 1).wrapping_neg()) as i32;
        let start = header + k;
        let nbytes = (nbits.max(0) as usize).div_ceil(8);
        if nbits <= 0 || nbytes > page.len() - start {
            return Err(DecodeError::BadCount {
                field: Field::CamelBits,
                count: i64::from(nbits),
                offset: header,
            });
        }
        let block = Block {
            data: &page[start..],
            start,
            limit: nbits as usize,
        };
        n = decode_block(&block, out, n)?;
        pos = start + nbytes;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// Decode a DOUBLE page into `out` (its length is the most values accepted).
pub fn decode_into(page: &[u8], out: &mut [f64]) -> Result<Done, DecodeError> {
    decode::<f64>(page, out)
}

/// [`decode_into`], the values as bit patterns.
pub fn decode_bits_into(page: &[u8], out: &mut [u64]) -> Result<Done, DecodeError> {
    decode::<u64>(page, out)
}

pub type Decode = fn(&[u8], &mut [u64]) -> Result<Done, DecodeError>;

/// Implementations, best first.
pub static IMPLEMENTATIONS: &[crate::Implementation<Decode>] =
    &[crate::Implementation::portable("camel/window64", decode_bits_into)];
