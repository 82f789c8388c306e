//! CAMEL (encoding id 14) for DOUBLE, from `docs/reference/tsfile-encodings.md`: a
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
//! masks. A decimal-form value whose fields all fit one load (the usual
//! case: a small integer delta, a few decimals) is parsed from it without
//! further loads; anything else, errors included, goes field by field:
//! every field is checked against the block's bit count before its bits
//! are used, in the order the notes give, so errors name the same field
//! and bit as a bit-at-a-time reader. Decimal values are parsed into a
//! batch of up to 32 and their arithmetic done together (an XOR-form
//! value, which needs the previous value's bits, computes the batch
//! first). Powers of ten come from a table.
//!
//! The decimal reconstruction is the notes' formula, operation for
//! operation (IEEE division and multiplication, never fused; Java's
//! `Math.round` done exactly in integers), so the doubles are the same on
//! every target.

use super::{compact7, uvarint32, DecodeError, Done, Field, Lane};

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

/// Whether `x` may have a fraction: below 2^52 in magnitude, where
/// `x - trunc(x)` is exact; every double from there on is an integer.
#[inline(always)]
fn may_have_fraction(x: f64) -> bool {
    x.abs() < 4_503_599_627_370_496.0
}

/// Java's `Math.round(double)` (nearest, ties towards +infinity, saturating,
/// NaN to 0), exactly.
#[inline(always)]
fn java_round(x: f64) -> i64 {
    if may_have_fraction(x) {
        let t = x as i64;
        let f = x - t as f64;
        // Without branches: the direction is as random as the data.
        t + i64::from(f >= 0.5) - i64::from(f < -0.5)
    } else {
        // An integer already (or out of range: saturating, NaN to 0).
        x as i64
    }
}

/// A decimal-form value, in the notes' steps: `frac` = `m / 10^count` (or,
/// with XOR bits, the bits of `m / 10^count + 1` XORed, minus 1), then
/// [`decimal_part`] and [`decimal_value`]. `xor_mask` is all ones with XOR
/// bits, else 0: both fractions are computed and one chosen by mask, as the
/// flag is as random as the data. Never a NaN: every term is finite.
#[inline(always)]
fn fraction(count: usize, xor: u64, xor_mask: u64, m: i64) -> f64 {
    let pow = POW10[count & 15];
    let plain = m as f64 / pow;
    let xored = f64::from_bits(xor ^ canonical((plain + 1.0).to_bits())) - 1.0;
    f64::from_bits((xored.to_bits() & xor_mask) | (plain.to_bits() & !xor_mask))
}

/// `dec = round(frac * 10^count)` (Java's `Math.round`), as a double.
#[inline(always)]
fn decimal_part(count: usize, frac: f64) -> f64 {
    java_round(frac * POW10[count & 15]) as f64
}

/// `(int * 10^count + dec) / 10^count`, negated for a negative integer
/// part, then the sign: the value's bits.
#[inline(always)]
fn decimal_value(negative: bool, int_part: i64, count: usize, dec: f64) -> u64 {
    let pow = POW10[count & 15];
    let value = if int_part >= 0 {
        (int_part as f64 * pow + dec) / pow
    } else {
        -(int_part as f64 * pow + dec) / pow
    };
    // `sign * value`: the value is never a NaN, so negating is the product.
    value.to_bits() ^ (u64::from(negative) << 63)
}

/// `(u >> 1) ^ -(u & 1)`.
#[inline(always)]
fn unzigzag(u: u64) -> i64 {
    ((u >> 1) ^ (u & 1).wrapping_neg()) as i64
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

/// A parsed decimal-form value waiting for its floating-point part.
#[derive(Clone, Copy, Default)]
struct Pending {
    int_part: i64,
    m: i64,
    xor: u64,
    xor_mask: u64,
    count: usize,
    negative: bool,
}

/// Decimal-form values parsed before their floating-point parts are
/// computed together: the parse is a chain through the bit position, the
/// arithmetic (two divisions a value) is independent from value to value,
/// so a batch of it overlaps where one value at a time would wait.
const BATCH: usize = 32;

/// The values of `pending` into `out` (as long); returns the last one's
/// bits. Three passes over the batch, one per step of the arithmetic: each
/// pass's values are independent and its chain short, so many values'
/// divisions are in flight at once.
#[inline(always)]
fn flush<T: Lane>(pending: &[Pending], out: &mut [T]) -> u64 {
    let mut part = [0f64; BATCH];
    for (x, d) in part.iter_mut().zip(pending) {
        *x = fraction(d.count, d.xor, d.xor_mask, d.m);
    }
    for (x, d) in part.iter_mut().zip(pending) {
        *x = decimal_part(d.count, *x);
    }
    let mut last = 0;
    for ((o, d), &dec) in out.iter_mut().zip(pending).zip(&part) {
        last = decimal_value(d.negative, d.int_part, d.count, dec);
        *o = T::from_bits(last);
    }
    last
}

/// The varint at the top of `v` (a window shifted to it) if one of its
/// first seven groups ends it: (bits, value).
#[inline(always)]
fn var_long_in(v: u64) -> Option<(usize, i64)> {
    let stops = !v & GROUP_STOPS;
    if stops == 0 {
        return None;
    }
    let groups = (stops.leading_zeros() - 7) / 8 + 1;
    let chunks = (v.swap_bytes() >> 1) & 0x7F7F_7F7F_7F7F_7F7F;
    Some((8 * groups as usize, unzigzag(compact7(chunks, groups))))
}

/// A decimal-form value whose fields all lie in the 57 valid bits of `w`
/// (the window at the value's sign bit) and in the `left` bits the block
/// has from there: (bits, integer delta, the pending value without its
/// integer part). `None` sends the value through the field-by-field path,
/// which reports any error.
#[inline(always)]
fn decimal_in_word(w: u64, left: usize) -> Option<(usize, i64, Pending)> {
    let (g1, diff) = var_long_in(w << 2)?;
    // At most 2 + 7 * 8 = 58: the shift below is in range, and a count
    // field past the valid bits puts `m_at` past them too.
    let at = 2 + g1;
    let c = w << at;
    let code = (c >> 60) as usize;
    if code + 1 > MAX_COUNT {
        return None;
    }
    let count = code + 1;
    let xor_mask = ((c >> 59) & 1).wrapping_neg();
    let m_at = at + 5 + (count & xor_mask as usize);
    if m_at >= 57 {
        return None;
    }
    let (g2, m) = var_long_in(w << m_at)?;
    let end = m_at + g2;
    if end > 57 || end > left {
        return None;
    }
    let xor = (((c << 5) >> (64 - count)) << (52 - count)) & xor_mask;
    Some((
        end,
        diff,
        Pending {
            int_part: 0,
            m,
            xor,
            xor_mask,
            count,
            negative: w >> 63 == 1,
        },
    ))
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
    let mut pending = [Pending::default(); BATCH];
    // Decimal values parsed, not yet computed: `out[n - len..n]`.
    let mut len = 0usize;
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
        if (w >> 62) & 1 == 1 {
            if let Some((bits, diff, mut d)) = decimal_in_word(w, limit - pos) {
                #[cfg(test)]
                tests::ONE_WORD_DECIMALS.with(|c| c.set(c.get() + 1));
                stored = stored.wrapping_add(diff);
                d.int_part = stored;
                pos += bits;
                pending[len] = d;
                len += 1;
                n += 1;
                if len == BATCH {
                    prev = canonical(flush(&pending, &mut out[n - BATCH..n]));
                    len = 0;
                }
                continue;
            }
        }
        if pos + 2 > limit {
            return Err(b.truncated(Field::CamelType, pos + 1));
        }
        let negative = w >> 63 == 1;
        if (w >> 62) & 1 == 1 {
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
            // All ones with XOR bits (`count` of them), else 0.
            let xor_mask = ((w >> 59) & 1).wrapping_neg();
            let xor_bits = count & xor_mask as usize;
            if p + 5 + xor_bits > limit {
                return Err(b.truncated(Field::CamelDecimal, p + 5));
            }
            let xor = (((w << 5) >> (64 - count)) << (52 - count)) & xor_mask;
            p += 5 + xor_bits;
            let m = b.var_long(&mut p)?;
            pos = p;
            pending[len] = Pending {
                int_part,
                m,
                xor,
                xor_mask,
                count,
                negative,
            };
            len += 1;
            n += 1;
            if len == BATCH {
                prev = canonical(flush(&pending, &mut out[n - BATCH..n]));
                len = 0;
            }
        } else {
            if len > 0 {
                prev = canonical(flush(&pending[..len], &mut out[n - len..n]));
                len = 0;
            }
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
            let bits = signed(negative, prev);
            out[n] = T::from_bits(bits);
            n += 1;
            prev = canonical(bits);
        }
    }
    flush(&pending[..len], &mut out[n - len..n]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Decimal values the one-word path parsed: which path a value
        /// takes shows only in speed, so the tests count it.
        pub(super) static ONE_WORD_DECIMALS: Cell<usize> = const { Cell::new(0) };
    }

    /// Decimal values the one-word path parsed since the last call.
    fn one_word_decimals() -> usize {
        ONE_WORD_DECIMALS.with(|c| c.replace(0))
    }

    /// MSB-first bit writer for hand-built blocks, recording each field's
    /// (field, first bit, bits) and each value's first bit.
    #[derive(Default)]
    struct Writer {
        bytes: Vec<u8>,
        len: usize,
        fields: Vec<(Field, usize, usize)>,
        values: Vec<usize>,
    }

    impl Writer {
        fn put(&mut self, v: u64, n: u32) -> &mut Self {
            for k in (0..n).rev() {
                if self.len.is_multiple_of(8) {
                    self.bytes.push(0);
                }
                let bit = ((v >> k) & 1) as u8;
                *self.bytes.last_mut().unwrap() |= bit << (7 - self.len % 8);
                self.len += 1;
            }
            self
        }
        fn field(&mut self, field: Field, v: u64, n: u32) -> &mut Self {
            self.fields.push((field, self.len, n as usize));
            self.put(v, n)
        }
        /// A value starts here: its sign and type bits.
        fn value(&mut self, negative: bool, decimal: bool) -> &mut Self {
            self.values.push(self.len);
            self.field(Field::CamelType, u64::from(negative), 1)
                .field(Field::CamelType, u64::from(decimal), 1)
        }
        /// The bitwise zigzag varint, one field.
        fn var_long(&mut self, v: i64) -> &mut Self {
            let mut u = ((v << 1) ^ (v >> 63)) as u64;
            let at = self.len;
            while u & !0x7F != 0 {
                self.put(u & 0x7F, 7).put(1, 1);
                u >>= 7;
            }
            self.put(u, 7).put(0, 1);
            self.fields.push((Field::CamelVarLong, at, self.len - at));
            self
        }
        /// Decimal form after the type bit: delta, count, XOR flag and bits, m.
        fn decimal(&mut self, delta: i64, count: u32, xor: Option<u64>, m: i64) -> &mut Self {
            self.var_long(delta).field(Field::CamelDecimal, u64::from(count - 1), 4);
            match xor {
                Some(bits) => self
                    .field(Field::CamelDecimal, 1, 1)
                    .field(Field::CamelDecimal, bits, count),
                None => self.field(Field::CamelDecimal, 0, 1),
            };
            self.var_long(m)
        }
        /// The block: its bit count as a zigzag varint, then the bytes.
        fn block(&self) -> Vec<u8> {
            block_of(self.len, &self.bytes)
        }
    }

    /// `nbits` as TsFile's zigzag varint, then `bytes`.
    fn block_of(nbits: usize, bytes: &[u8]) -> Vec<u8> {
        let mut u = (nbits as u32) << 1;
        let mut page = Vec::new();
        while u >= 0x80 {
            page.push((u as u8 & 0x7F) | 0x80);
            u >>= 7;
        }
        page.push(u as u8);
        page.extend_from_slice(bytes);
        page
    }

    fn decode_bits(page: &[u8], max: usize) -> Result<(Vec<u64>, usize), DecodeError> {
        let mut out = vec![0u64; max];
        let done = decode_bits_into(page, &mut out)?;
        // Nothing past the values is written.
        assert!(out[done.values..].iter().all(|&v| v == 0));
        out.truncate(done.values);
        Ok((out, done.consumed))
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    use crate::tsfile::test_unhex as unhex;

    fn tr(field: Field, offset: usize, bit: u8) -> DecodeError {
        DecodeError::Truncated { field, offset, bit }
    }

    /// Every form in one block: decimal with XOR bits, decimal without,
    /// a new XOR window, its reuse (negative), a repeat, a negative decimal
    /// with a two-group varint.
    fn every_form() -> (Writer, Vec<u64>) {
        let mut w = Writer::default();
        w.values.push(0);
        w.field(Field::CamelFirst, 1.5f64.to_bits(), 64);
        // 2.25: integer 1 + 1, count 2, 25 >= 5^2: XOR bits 01, m 0.
        w.value(false, true).decimal(1, 2, Some(0b01), 0);
        // 2.03: integer 2, count 2, m 3.
        w.value(false, true).decimal(0, 2, None, 3);
        // A new window: 40 leading zeros, 4 significant bits.
        w.value(false, false)
            .field(Field::CamelXor, 1, 1)
            .field(Field::CamelXor, 1, 1)
            .field(Field::CamelXor, 40, 6)
            .field(Field::CamelXor, 3, 6)
            .field(Field::CamelXor, 0xF, 4);
        // The window reused, the sign set.
        w.value(true, false)
            .field(Field::CamelXor, 1, 1)
            .field(Field::CamelXor, 0, 1)
            .field(Field::CamelXor, 0b0101, 4);
        // The previous value's (signed) bits again.
        w.value(false, false).field(Field::CamelXor, 0, 1);
        // -1002.7: integer 2 + 1000 (zigzag 2000: two groups), count 1, m 7.
        w.value(true, true).decimal(1000, 1, None, 7);
        let v4 = 2.03f64.to_bits() ^ (0xF << 20);
        let v5 = (v4 ^ (0b0101 << 20)) | SIGN;
        let want = vec![
            1.5f64.to_bits(),
            2.25f64.to_bits(),
            2.03f64.to_bits(),
            v4,
            v5,
            v5,
            (-1002.7f64).to_bits(),
        ];
        (w, want)
    }

    #[test]
    fn known_answer_and_the_official_writers_page() {
        // The notes' example [1.5, 2.25], 89 bits.
        let page = unhex("b2 01 3f f8 00 00 00 00 00 00 41 06 80 00");
        assert_eq!(decode_bits(&page, 2), Ok((bits(&[1.5, 2.25]), 14)));
        let mut out = [0f64; 3];
        assert_eq!(
            decode_into(&page, &mut out),
            Ok(Done {
                values: 2,
                consumed: 14
            })
        );
        assert_eq!(out, [1.5, 2.25, 0.0]);
        // PyPI tsfile 2.5.0's page for [1.5, 2.25, -3.0, inf, 0.125, NaN,
        // 100.5]: NaN after the first value was written as 0.0.
        let page = unhex("bc 03 3f f8 00 00 00 00 00 00 41 06 80 60 80 00 30 0c bf fa 14 52 00 80 00 01 91 02 0c 00");
        let want = bits(&[1.5, 2.25, -3.0, f64::INFINITY, 0.125, 0.0, 100.5]);
        assert_eq!(decode_bits(&page, 7), Ok((want, page.len())));
    }

    #[test]
    fn every_form_in_one_block_and_several_blocks() {
        let (w, want) = every_form();
        let page = w.block();
        assert_eq!(decode_bits(&page, want.len()), Ok((want.clone(), page.len())));
        // Blocks follow each other; each starts its state afresh (a reuse
        // of the first block's window in the second would be NoWindow).
        let mut two = page.clone();
        two.extend(unhex("b2 01 3f f8 00 00 00 00 00 00 41 06 80 00"));
        two.extend(&page);
        let mut all = want.clone();
        all.extend(bits(&[1.5, 2.25]));
        all.extend(&want);
        assert_eq!(decode_bits(&two, all.len()), Ok((all, two.len())));
        let mut w = Writer::default();
        w.put(1.0f64.to_bits(), 64).put(0b0010, 4).put(1, 4);
        let mut p = page.clone();
        let second = p.len();
        p.extend(w.block());
        assert_eq!(
            decode_bits(&p, 99),
            Err(DecodeError::NoWindow {
                offset: second + 2 + 8,
                bit: 2
            })
        );
    }

    /// Cut the block's bit count at every bit: a cut at a value's start is
    /// a shorter block; any other is `Truncated` at the first field the cut
    /// runs into (a varint at its first bit), with the block's own header.
    #[test]
    fn every_truncation_names_its_field_and_bit() {
        let (w, want) = every_form();
        for cut in 1..w.len {
            let header = if 2 * cut < 128 { 1 } else { 2 };
            let page = block_of(cut, &w.bytes[..cut.div_ceil(8)]);
            let got = decode_bits(&page, 99);
            if let Some(k) = w.values.iter().position(|&v| v == cut) {
                assert_eq!(got, Ok((want[..k].to_vec(), page.len())), "cut {cut}");
                continue;
            }
            let &(field, at, _) = w.fields.iter().find(|&&(_, at, n)| at + n > cut).unwrap();
            assert_eq!(got, Err(tr(field, header + at / 8, (at % 8) as u8)), "cut {cut}");
        }
    }

    #[test]
    fn too_many_values_at_the_value_that_does_not_fit() {
        let (w, want) = every_form();
        let page = w.block();
        for max in 0..want.len() {
            // The value's first byte (2 header bytes).
            let offset = 2 + w.values[max] / 8;
            assert_eq!(decode_bits(&page, max), Err(DecodeError::TooManyValues { max, offset }));
        }
        // Even a value that would be truncated: the count comes first.
        let cut = block_of(w.values[1] + 1, &w.bytes[..w.values[1] / 8 + 1]);
        assert_eq!(
            decode_bits(&cut, 1),
            Err(DecodeError::TooManyValues { max: 1, offset: 10 })
        );
        assert_eq!(decode_bits(&[], 0), Ok((vec![], 0)));
    }

    #[test]
    fn bad_counts() {
        let bad = |count: i64, offset| DecodeError::BadCount {
            field: Field::CamelBits,
            count,
            offset,
        };
        // Zero bits, negative bits, more bytes than the page holds.
        assert_eq!(decode_bits(&[0], 9), Err(bad(0, 0)));
        assert_eq!(decode_bits(&[1], 9), Err(bad(-1, 0)));
        assert_eq!(decode_bits(&[0xb2, 0x01, 0], 9), Err(bad(89, 0)));
        let page = unhex("b2 01 3f f8 00 00 00 00 00 00 41 06 80 00");
        assert_eq!(decode_bits(&page[..13], 9), Err(bad(89, 0)));
        // The second block's header, at its own offset.
        let mut two = page.clone();
        two.extend([0x03]);
        assert_eq!(decode_bits(&two, 9), Err(bad(-2, 14)));
        // A header cut or too long.
        assert_eq!(decode_bits(&[0x80], 9), Err(tr(Field::CamelBits, 0, 0)));
        assert_eq!(
            decode_bits(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01], 9),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        assert_eq!(
            decode_bits(&[0xff, 0xff, 0xff, 0xff, 0x1f], 9),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        // Fewer than 64 bits for the first value.
        assert_eq!(decode_bits(&[0x10, 0x3f], 9), Err(tr(Field::CamelFirst, 1, 0)));
        // Decimal count 16, at the count's byte.
        let mut w = Writer::default();
        w.put(1.0f64.to_bits(), 64).put(0b01, 2).put(0, 8).put(15, 4).put(0, 12);
        assert_eq!(
            decode_bits(&w.block(), 9),
            Err(DecodeError::BadCount {
                field: Field::CamelDecimal,
                count: 16,
                offset: 11
            })
        );
    }

    #[test]
    fn windows_refused() {
        // Reuse before any window, at the first control bit.
        let mut w = Writer::default();
        w.put(1.0f64.to_bits(), 64).put(0b0010, 4).put(0, 8);
        assert_eq!(
            decode_bits(&w.block(), 9),
            Err(DecodeError::NoWindow { offset: 10, bit: 2 })
        );
        // 63 leading zeros and 2 significant bits, at the length field.
        let mut w = Writer::default();
        w.put(1.0f64.to_bits(), 64)
            .put(0b0011, 4)
            .put(63, 6)
            .put(1, 6)
            .put(0, 2);
        assert_eq!(
            decode_bits(&w.block(), 9),
            Err(DecodeError::BadWindow {
                leading: 63,
                significant: 2,
                offset: 11,
                bit: 2
            })
        );
        // 0 + 64 is the widest window: all 64 bits XORed.
        let mut w = Writer::default();
        w.put(1.0f64.to_bits(), 64)
            .put(0b0011, 4)
            .put(0, 6)
            .put(63, 6)
            .put(u64::MAX, 64);
        w.put(0b0010, 4).put(u64::MAX, 64);
        let once = signed(false, 1.0f64.to_bits() ^ u64::MAX);
        assert_eq!(
            decode_bits(&w.block(), 9),
            Ok((vec![1.0f64.to_bits(), once, canonical(once) ^ u64::MAX], 2 + 27))
        );
    }

    #[test]
    fn varints_of_every_length() {
        // The integer delta as a varint of 1 ..= 10 groups (the fast path
        // takes up to 7), then count 1, m 0: the value is the integer.
        for groups in 1..=10u32 {
            let delta = negative_of_groups(groups);
            let mut w = Writer::default();
            w.put(0f64.to_bits(), 64).put(0b01, 2);
            w.var_long(delta);
            assert_eq!(w.len, 66 + 8 * groups as usize);
            w.put(0, 5).var_long(0);
            let want = delta as f64;
            assert_eq!(
                decode_bits(&w.block(), 2).map(|d| d.0),
                Ok(vec![0, (-want).to_bits()]),
                "{groups} groups"
            );
        }
        // A varint of 8 ..= 10 groups (read a group at a time) ending
        // exactly at the block's end reads as it does with a value after.
        for groups in 8..=10u32 {
            let m = negative_of_groups(groups);
            let mut w = Writer::default();
            w.put(0f64.to_bits(), 64).put(0b01, 2).var_long(0).put(0, 5).var_long(m);
            let at_the_end = decode_bits(&w.block(), 2).map(|d| d.0);
            w.put(0, 3);
            let followed = decode_bits(&w.block(), 3).map(|d| d.0[..2].to_vec());
            assert!(followed.is_ok(), "{groups} groups");
            assert_eq!(at_the_end, followed, "{groups} groups");
        }
        // A tenth group with its continuation bit set.
        let mut w = Writer::default();
        w.put(0f64.to_bits(), 64).put(0b01, 2);
        for _ in 0..10 {
            w.put(0xFF, 8);
        }
        w.put(0, 13);
        assert_eq!(decode_bits(&w.block(), 9), Err(DecodeError::BadVarint { offset: 10 }));
        // Ten groups whose tenth is cut: truncated, not bad.
        let page = w.block();
        let cut = block_of(66 + 79, &page[2..2 + (66 + 79usize).div_ceil(8)]);
        assert_eq!(decode_bits(&cut, 9), Err(tr(Field::CamelVarLong, 10, 2)));
    }

    #[test]
    fn decimals_the_readers_accept() {
        let one = |negative: bool, delta: i64, count: u32, xor: Option<u64>, m: i64| {
            second_decimal(1.0, negative, delta, count, xor, m)
                .0
                .map(f64::from_bits)
        };
        // Count 15, the largest.
        assert_eq!(one(false, 0, 15, None, 123_456_789_012_345), Ok(1.123456789012345));
        // XOR bits overlapping m's (never written): 1.5 ^ top bit = 1.0.
        assert_eq!(one(false, 0, 1, Some(1), 5), Ok(1.0));
        // A negative integer part is negated: -(-30 + 5) / 10 = 2.5.
        assert_eq!(one(false, -4, 1, None, 5), Ok(2.5));
        assert_eq!(one(true, -4, 1, None, 5), Ok(-2.5));
        assert_eq!(one(false, -2, 1, None, 5), Ok(0.5));
        // A negative m.
        assert_eq!(one(false, 2, 2, None, -25), Ok(2.75));
        // A negative value (integer 0, m -3: -0.3) with the sign set: 0.3.
        assert_eq!(one(true, -1, 1, None, -3), Ok(0.3));
        // A zero with the sign set is -0.0.
        assert_eq!(one(true, -1, 1, None, 0).map(f64::to_bits), Ok((-0.0f64).to_bits()));
        // A price.
        assert_eq!(one(false, 11, 2, None, 34), Ok(12.34));
        // The integer state saturates from the first value and wraps.
        let mut w = Writer::default();
        w.put(1e300f64.to_bits(), 64);
        w.value(false, true).decimal(1, 1, None, 0);
        let got = decode_bits(&w.block(), 2).map(|d| f64::from_bits(d.0[1]));
        assert_eq!(got, Ok(-(i64::MIN as f64)));
    }

    /// The smallest varint value of `groups` groups.
    fn of_groups(groups: u32) -> i64 {
        1 << (7 * (groups - 1))
    }

    /// A negative varint value of exactly `groups` (1..=10) groups.
    fn negative_of_groups(groups: u32) -> i64 {
        if groups == 10 {
            i64::MIN
        } else {
            -(1i64 << (7 * groups - 2))
        }
    }

    /// A block of `first` and one decimal value (integer delta, count,
    /// XOR bits, m): the decimal's bits, and how many decimals the
    /// one-word path parsed.
    fn second_decimal(
        first: f64,
        negative: bool,
        delta: i64,
        count: u32,
        xor: Option<u64>,
        m: i64,
    ) -> (Result<u64, DecodeError>, usize) {
        let mut w = Writer::default();
        w.put(first.to_bits(), 64);
        w.value(negative, true).decimal(delta, count, xor, m);
        one_word_decimals();
        let got = decode_bits(&w.block(), 2).map(|d| d.0[1]);
        (got, one_word_decimals())
    }

    /// A decimal whose fields fit in the 57 bits of one load is parsed
    /// there, up to the last bit of its block (it ends the block here),
    /// and reads as the field-by-field path reads it.
    #[test]
    fn decimals_read_alike_in_one_word_and_field_by_field() {
        let int_part = 3i64;
        // Eight groups of integer delta: never in one word.
        let far = 1i64 << 50;
        // Under Miri a sample that still parses in one word and field by
        // field (groups 2 + 5 never fit): the whole loop takes minutes.
        let (groups, counts): (Vec<u32>, Vec<u32>) = if cfg!(miri) {
            (vec![1, 2, 5], vec![1, 15])
        } else {
            ((1..=7).collect(), (1..=15).collect())
        };
        for &g1 in &groups {
            for &g2 in &groups {
                for &count in &counts {
                    for xor in [None, Some(0xAAAA >> (16 - count))] {
                        for negative in [false, true] {
                            let (delta, m) = (of_groups(g1), of_groups(g2));
                            let xor_bits = if xor.is_some() { count } else { 0 };
                            let fits = 2 + 8 * g1 + 5 + xor_bits + 8 * g2 <= 57;
                            let case = format!("groups {g1} + {g2}, count {count}, xor {xor:?}, negative {negative}");
                            let first = (int_part - delta) as f64;
                            let (near, one_word) = second_decimal(first, negative, delta, count, xor, m);
                            assert_eq!(one_word, usize::from(fits), "{case}");
                            let (field_by_field, one_word) =
                                second_decimal(far as f64, negative, int_part - far, count, xor, m);
                            assert_eq!(one_word, 0, "{case}");
                            assert!(near.is_ok(), "{case}");
                            assert_eq!(near, field_by_field, "{case}");
                        }
                    }
                }
            }
        }
    }

    /// Runs of decimals longer than a batch, batches filled by either path
    /// and one cut by an XOR-form value: each value reads as it does alone.
    #[test]
    fn long_runs_of_decimals_read_as_each_alone() {
        let first = 7.0f64;
        // A seven-group m sends every third value field by field (the
        // 32nd and the 64th fill a batch in either path).
        let value = |k: usize| {
            let count = (k % 15) as u32 + 1;
            let xor = (k % 4 == 1).then_some(1u64);
            let m = if k.is_multiple_of(3) {
                of_groups(7) + k as i64
            } else {
                k as i64
            };
            (k.is_multiple_of(5), count, xor, m)
        };
        // Two repeats first: the batches end at values 35 and 67, not at
        // the first value after a batch's worth, so a batch written to the
        // wrong slice of the output shows.
        let mut w = Writer::default();
        w.put(first.to_bits(), 64);
        w.value(false, false).put(0, 1).value(false, false).put(0, 1);
        let mut want = vec![first.to_bits(); 3];
        for k in 0..100 {
            if k == 70 {
                // A repeat: the last decimal's bits.
                w.value(false, false).put(0, 1);
                want.push(*want.last().unwrap());
            }
            let (negative, count, xor, m) = value(k);
            w.value(negative, true).decimal(0, count, xor, m);
            want.push(second_decimal(first, negative, 0, count, xor, m).0.unwrap());
        }
        one_word_decimals();
        assert_eq!(decode_bits(&w.block(), want.len()).map(|d| d.0), Ok(want));
        assert_eq!(one_word_decimals(), 66);
    }

    #[test]
    fn infinities_and_signs_in_the_xor_form() {
        // An infinity is no NaN: its bits are the next XOR's base as they
        // are (the sign bit flipped: -inf).
        let mut w = Writer::default();
        w.put(f64::INFINITY.to_bits(), 64);
        w.value(false, false).put(0b11, 2).put(0, 6).put(0, 6).put(1, 1);
        assert_eq!(
            decode_bits(&w.block(), 2).map(|d| d.0),
            Ok(bits(&[f64::INFINITY, f64::NEG_INFINITY]))
        );
        // The sign multiplies: a negative sign on a negative value (a
        // repeat of -1.5) gives 1.5.
        let mut w = Writer::default();
        w.put((-1.5f64).to_bits(), 64);
        w.value(true, false).put(0, 1);
        assert_eq!(decode_bits(&w.block(), 2).map(|d| d.0), Ok(bits(&[-1.5, 1.5])));
    }

    #[test]
    fn nans_in_the_xor_form() {
        // A first NaN is raw; a repeat of it reads the canonical NaN; a
        // signalling NaN reached by XOR comes back quieted, its sign kept
        // even with the sign bit set (±1.0 × NaN).
        let snan = 0x7FF0_0000_0000_0001u64;
        let mut w = Writer::default();
        w.put(snan, 64).put(0b100, 3);
        let x = 0x7FF8_0000_0000_0000u64 ^ 0xFFF0_0000_0000_0002;
        w.put(0b1011, 4).put(0, 6).put(63 - x.trailing_zeros() as u64, 6);
        w.put(x >> x.trailing_zeros(), 64 - x.trailing_zeros());
        assert_eq!(
            decode_bits(&w.block(), 3).map(|d| d.0),
            Ok(vec![snan, 0x7FF8_0000_0000_0000, 0xFFF8_0000_0000_0002])
        );
    }

    #[test]
    fn java_round_ties_up_exactly() {
        for (x, r) in [
            (2.5, 3),
            (-2.5, -2),
            (-0.5, 0),
            (0.5, 1),
            (-2.500000001, -3),
            (0.49999999999999994, 0),
            (-0.49999999999999994, 0),
            (4_503_599_627_370_495.5, 4_503_599_627_370_496),
            (-4_503_599_627_370_495.5, -4_503_599_627_370_495),
            (4_503_599_627_370_497.0, 4_503_599_627_370_497),
            (f64::NAN, 0),
            (1e300, i64::MAX),
            (-1e300, i64::MIN),
        ] {
            assert_eq!(java_round(x), r, "{x}");
        }
    }

    #[test]
    fn registry() {
        assert_eq!(IMPLEMENTATIONS.len(), 1);
        assert_eq!(IMPLEMENTATIONS[0].name, "camel/window64");
        let f = IMPLEMENTATIONS[0].get().unwrap();
        let mut out = [0u64; 2];
        let page = unhex("b2 01 3f f8 00 00 00 00 00 00 41 06 80 00");
        assert_eq!(
            f(&page, &mut out),
            Ok(Done {
                values: 2,
                consumed: 14
            })
        );
    }
}
