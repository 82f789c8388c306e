//! CHIMP (encoding id 11, Chimp128) for INT32, INT64, FLOAT and DOUBLE, from
//! `docs/reference/tsfile-encodings.md`: a raw first value, then per value two
//! control bits, MSB-first:
//! `00` + slot: the value of that slot of the ring of the last N values;
//! `01` + slot, leading-zero code, significant count, bits: that slot's
//! value XOR the bits shifted up by the trailing zeros the fields imply;
//! `10` + bits: the previous value XOR (the last leading zeros kept);
//! `11` + code + bits: the same with new leading zeros.
//!
//! `chimp/window128` reads each value from one unaligned big-endian 16-byte
//! load (at least 121 valid bits: the longest value, a `01` with 64
//! significant bits, takes 82), so a value costs one load and one branch on
//! its control bits; the ring is a fixed array indexed with a mask. While
//! the window lies inside the page no field is checked against the page's
//! end (`next_value_fast`); only the page's last 15 bytes go through a
//! zero-padded copy and the checked fields.

use super::{DecodeError, Done, Field, Lane};

pub use super::gorilla::{Stop, TERMINATOR_F32, TERMINATOR_F64, TERMINATOR_I32, TERMINATOR_I64};

/// Leading zeros of each 3-bit code.
const LEADING: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];

/// 128 bits from bit `pos` in the page's last 15 bytes, MSB-aligned, from a
/// zero-padded copy (bits past the end read as 0).
#[cold]
#[inline(never)]
fn tail128(page: &[u8], pos: usize) -> u128 {
    let mut w = [0u8; 16];
    let rest = &page[(pos / 8).min(page.len())..];
    w[..rest.len()].copy_from_slice(rest);
    u128::from_be_bytes(w) << (pos % 8)
}

/// `n` bits (1..=64) of `window` starting `skip` bits from its top.
#[inline(always)]
fn take(window: u128, skip: u32, n: u32) -> u64 {
    let hi = (window >> 64) as u64;
    if skip + n <= 64 {
        (hi << skip) >> (64 - n)
    } else {
        ((window << skip) >> (128 - n)) as u64
    }
}

fn truncated(field: Field, at: usize) -> DecodeError {
    DecodeError::Truncated {
        field,
        offset: at / 8,
        bit: (at % 8) as u8,
    }
}

/// The fields of one value after its control bits, read from `window` (the
/// page from the value's first bit, MSB-aligned). `CHECKED`: the window
/// may run past the page, so every field is checked against `total`;
/// unchecked, the caller has made sure the window holds the longest value
/// (82 bits) inside the page. Returns the value and the bit after it.
#[inline(always)]
fn next_value<const W: u32, const CHECKED: bool>(
    window: u128,
    pos: usize,
    total: usize,
    prev: u64,
    ring: &[u64; 128],
    stored_lz: &mut Option<u32>,
) -> Result<(u64, usize), DecodeError> {
    let (slot_bits, sig_bits): (u32, u32) = if W == 32 { (6, 5) } else { (7, 6) };
    let past = |end: usize| CHECKED && end > total;
    match (window >> 126) as u8 {
        0b00 => {
            if past(pos + 2 + slot_bits as usize) {
                return Err(truncated(Field::ChimpIndex, pos + 2));
            }
            let slot = take(window, 2, slot_bits) as usize;
            Ok((ring[slot & 127], pos + 2 + slot_bits as usize))
        }
        0b01 => {
            let meta = slot_bits + 3 + sig_bits;
            if past(pos + 2 + meta as usize) {
                return Err(truncated(Field::ChimpIndex, pos + 2));
            }
            let fields = take(window, 2, meta);
            let slot = (fields >> (3 + sig_bits)) as usize;
            let lz = LEADING[((fields >> sig_bits) & 7) as usize];
            let sig = match (fields & ((1 << sig_bits) - 1)) as u32 {
                0 => W,
                s => s,
            };
            if lz + sig > W {
                // At the fields' start: they are one field (as for truncation).
                let at = pos + 2;
                return Err(DecodeError::BadWindow {
                    leading: lz,
                    significant: sig,
                    offset: at / 8,
                    bit: (at % 8) as u8,
                });
            }
            let bits_at = pos + 2 + meta as usize;
            if past(bits_at + sig as usize) {
                return Err(truncated(Field::ChimpBits, bits_at));
            }
            let bits = take(window, 2 + meta, sig);
            *stored_lz = Some(lz);
            Ok((ring[slot & 127] ^ (bits << (W - lz - sig)), bits_at + sig as usize))
        }
        0b10 => {
            let lz = stored_lz.ok_or(DecodeError::NoWindow {
                offset: pos / 8,
                bit: (pos % 8) as u8,
            })?;
            let sig = W - lz;
            if past(pos + 2 + sig as usize) {
                return Err(truncated(Field::ChimpBits, pos + 2));
            }
            Ok((prev ^ take(window, 2, sig), pos + 2 + sig as usize))
        }
        _ => {
            if past(pos + 5) {
                return Err(truncated(Field::ChimpLeading, pos + 2));
            }
            let lz = LEADING[take(window, 2, 3) as usize];
            *stored_lz = Some(lz);
            let sig = W - lz;
            if past(pos + 5 + sig as usize) {
                return Err(truncated(Field::ChimpBits, pos + 5));
            }
            Ok((prev ^ take(window, 5, sig), pos + 5 + sig as usize))
        }
    }
}

/// Leading zeros of each 3-bit code, a byte each: `LEADING` without a load.
const LEADING_PACKED: u64 = {
    let mut packed = 0u64;
    let mut code = 0;
    while code < 8 {
        packed |= (LEADING[code] as u64) << (8 * code);
        code += 1;
    }
    packed
};

/// [`next_value`] unchecked, with the common controls first and the
/// leading zeros of a `11` taken from a constant rather than a table (the
/// value's end waits on them).
#[inline(always)]
fn next_value_fast<const W: u32>(
    window: u128,
    pos: usize,
    prev: u64,
    ring: &[u64; 128],
    stored_lz: &mut Option<u32>,
) -> Result<(u64, usize), DecodeError> {
    let slot_bits: u32 = if W == 32 { 6 } else { 7 };
    let ctl = (window >> 126) as u32;
    if ctl == 0b01 || (ctl == 0b10 && stored_lz.is_none()) {
        return next_value::<W, false>(window, pos, 0, prev, ring, stored_lz);
    }
    let after2 = (window >> (64 - 2)) as u64;
    let (value, len) = match ctl {
        0b00 => (ring[(after2 >> (64 - slot_bits)) as usize & 127], 2 + slot_bits),
        0b10 => {
            let sig = W - stored_lz.unwrap_or(0);
            (prev ^ (after2 >> (64 - sig)), 2 + sig)
        }
        _ => {
            let lz = (LEADING_PACKED >> ((after2 >> 61) * 8)) as u32 & 0xff;
            *stored_lz = Some(lz);
            let sig = W - lz;
            let after5 = (window >> (64 - 5)) as u64;
            (prev ^ (after5 >> (64 - sig)), 5 + sig)
        }
    };
    Ok((value, pos + len as usize))
}

/// Decode into `out` (its length is the most values accepted); `W` is the
/// value width (32 or 64), values are produced as lanes of `T`.
fn decode<const W: u32, T: Lane>(page: &[u8], terminator: u64, stop: Stop, out: &mut [T]) -> Result<Done, DecodeError> {
    match stop {
        Stop::Count(n) => {
            if n > out.len() {
                return Err(DecodeError::TooManyValues {
                    max: out.len(),
                    offset: 0,
                });
            }
            if n == 0 {
                return Ok(Done { values: 0, consumed: 0 });
            }
            decode_until::<W, T, true>(page, terminator, n, out)
        }
        Stop::AtTerminator => decode_until::<W, T, false>(page, terminator, usize::MAX, out),
    }
}

/// The decoding loop, built once per way of stopping (`COUNTED`: after
/// `want` values; else at the terminator) so that neither check is made
/// where it cannot apply.
fn decode_until<const W: u32, T: Lane, const COUNTED: bool>(
    page: &[u8],
    terminator: u64,
    want: usize,
    out: &mut [T],
) -> Result<Done, DecodeError> {
    let ring_mask = if W == 32 { 63 } else { 127 };
    let max = out.len();
    let total = page.len() * 8;
    if total < W as usize {
        return Err(truncated(Field::ChimpFirst, 0));
    }
    let mut prev = if W == 32 {
        u64::from(u32::from_be_bytes(page[..4].try_into().expect("4 bytes")))
    } else {
        u64::from_be_bytes(page[..8].try_into().expect("8 bytes"))
    };
    // Slots never written read 0.
    let mut ring = [0u64; 128];
    ring[0] = prev;
    let mut current = 0usize;
    // Leading zeros the last `11` or `01` set; `10` before any is refused.
    let mut stored_lz: Option<u32> = None;
    let mut pos = W as usize;
    let mut value_start = 0usize;
    let mut n = 0usize;
    loop {
        if !COUNTED && prev == terminator {
            let flush = pos / 8;
            if flush >= page.len() {
                return Err(truncated(Field::ChimpFlush, pos));
            }
            return Ok(Done {
                values: n,
                consumed: flush + 1,
            });
        }
        let Some(slot) = out.get_mut(n) else {
            return Err(DecodeError::TooManyValues {
                max,
                offset: value_start / 8,
            });
        };
        *slot = T::from_bits(prev);
        n += 1;
        if COUNTED && n == want {
            return Ok(Done {
                values: n,
                consumed: pos.div_ceil(8),
            });
        }
        value_start = pos;
        // A whole 16-byte window inside the page holds the longest value.
        let (value, next) = match page.get(pos / 8..pos / 8 + 16) {
            Some(bytes) => {
                let window = u128::from_be_bytes(bytes.try_into().expect("16 bytes")) << (pos % 8);
                next_value_fast::<W>(window, pos, prev, &ring, &mut stored_lz)?
            }
            None => {
                if pos + 2 > total {
                    return Err(truncated(Field::ChimpControl, pos));
                }
                next_value::<W, true>(tail128(page, pos), pos, total, prev, &ring, &mut stored_lz)?
            }
        };
        pos = next;
        current = (current + 1) & ring_mask;
        ring[current] = value;
        prev = value;
    }
}

pub fn decode_i32_into(page: &[u8], stop: Stop, out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, i32>(page, u64::from(TERMINATOR_I32), stop, out)
}
pub fn decode_i64_into(page: &[u8], stop: Stop, out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, i64>(page, TERMINATOR_I64, stop, out)
}
pub fn decode_f32_into(page: &[u8], stop: Stop, out: &mut [f32]) -> Result<Done, DecodeError> {
    decode::<32, f32>(page, u64::from(TERMINATOR_F32), stop, out)
}
pub fn decode_f64_into(page: &[u8], stop: Stop, out: &mut [f64]) -> Result<Done, DecodeError> {
    decode::<64, f64>(page, TERMINATOR_F64, stop, out)
}
/// 32-bit patterns with an explicit terminator (INT32 or FLOAT bits).
pub fn decode32_into(page: &[u8], terminator: u32, stop: Stop, out: &mut [u32]) -> Result<Done, DecodeError> {
    decode::<32, u32>(page, u64::from(terminator), stop, out)
}
/// 64-bit patterns with an explicit terminator (INT64 or DOUBLE bits).
pub fn decode64_into(page: &[u8], terminator: u64, stop: Stop, out: &mut [u64]) -> Result<Done, DecodeError> {
    decode::<64, u64>(page, terminator, stop, out)
}

pub type Decode32 = fn(&[u8], u32, Stop, &mut [u32]) -> Result<Done, DecodeError>;
pub type Decode64 = fn(&[u8], u64, Stop, &mut [u64]) -> Result<Done, DecodeError>;

/// 32-bit implementations, best first.
pub static IMPLEMENTATIONS_32: &[crate::Implementation<Decode32>] =
    &[crate::Implementation::portable("chimp/window128", decode32_into)];

/// 64-bit implementations, best first.
pub static IMPLEMENTATIONS_64: &[crate::Implementation<Decode64>] =
    &[crate::Implementation::portable("chimp/window128", decode64_into)];

#[cfg(test)]
mod tests {
    use super::*;

    /// MSB-first bit writer for hand-built pages.
    #[derive(Default)]
    struct Bits {
        bytes: Vec<u8>,
        len: usize,
    }

    impl Bits {
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
    }

    /// The notes' example: INT32 `[5, 5, 6]`, then the terminator and the
    /// flush byte.
    #[test]
    fn known_answer() {
        let page = [0x00, 0x00, 0x00, 0x05, 0x00, 0xf8, 0x1e, 0x20, 0x00, 0x00, 0x01, 0x80];
        let mut out = [0i32; 4];
        assert_eq!(
            decode_i32_into(&page, Stop::AtTerminator, &mut out),
            Ok(Done {
                values: 3,
                consumed: 12
            })
        );
        assert_eq!(out[..3], [5, 5, 6]);
        assert_eq!(
            decode_i32_into(&page, Stop::Count(3), &mut out),
            Ok(Done { values: 3, consumed: 7 })
        );
        // The terminator's 32 bits start at bit 58 and end in the last byte.
        assert_eq!(
            decode_i32_into(&page[..11], Stop::AtTerminator, &mut out),
            Err(DecodeError::Truncated {
                field: Field::ChimpBits,
                offset: 7,
                bit: 2
            })
        );
    }

    /// Every control: a ring slot (one never written reads 0), a `01` with a
    /// significant count of 0 (meaning all 64 bits) and with a trailing
    /// shift, `11` with a new leading count, `10` reusing the count a `01`
    /// set.
    #[test]
    fn every_control_and_the_ring() {
        let first = 0x0123_4567_89AB_CDEFu64;
        let mut b = Bits::default();
        b.put(first, 64);
        b.put(0b00, 2).put(5, 7); // slot 5: never written, 0
        b.put(0b01, 2).put(0, 7).put(0, 3).put(0, 6).put(u64::MAX, 64); // first ^ all ones
        b.put(0b01, 2).put(1, 7).put(7, 3).put(3, 6).put(0b101, 3); // slot 1 (0) ^ 101 << 37
        b.put(0b10, 2).put((1 << 37) | 1, 40); // prev ^ both (lz 24 from the `01`); bit 37 is set in prev
        b.put(0b11, 2).put(1, 3).put(0xFF, 56); // lz 8: prev ^ 0xFF
        b.put(0b00, 2).put(0, 7); // slot 0: the first value
        let v2 = !first;
        let v3 = 0b101u64 << 37;
        let v4 = v3 ^ ((1 << 37) | 1);
        let v5 = v4 ^ 0xFF;
        let want = [first, 0, v2, v3, v4, v5, first];
        let mut out = [0u64; 7];
        let done = decode64_into(&b.bytes, TERMINATOR_F64, Stop::Count(7), &mut out);
        assert_eq!(
            done,
            Ok(Done {
                values: 7,
                consumed: b.len.div_ceil(8)
            })
        );
        assert_eq!(out, want);
    }

    /// Long streams (most values decoded while the whole window is inside
    /// the page) of controls drawn at random, written by a model of the
    /// format kept here: every control, slot, leading-zero code and
    /// significant count, both ways of stopping, both widths.
    #[test]
    fn long_random_streams() {
        for width in [32u32, 64] {
            let (slot_bits, sig_bits) = if width == 32 { (6u32, 5u32) } else { (7, 6) };
            let mask = (1usize << slot_bits) - 1;
            let keep = u64::MAX >> (64 - width);
            let terminator = if width == 32 {
                u64::from(TERMINATOR_I32)
            } else {
                TERMINATOR_I64
            };
            let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(width);
            let mut draw = |n: u64| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 33) % n
            };
            let mut b = Bits::default();
            let first = 0x1234_5678_9ABC_DEF0 & keep;
            b.put(first, width);
            let (mut ring, mut current, mut prev, mut stored) = ([0u64; 128], 0usize, first, None::<u32>);
            ring[0] = first;
            let mut want = vec![first];
            for _ in 0..2_000 {
                let value = match (draw(16), stored) {
                    (0, _) => {
                        let slot = draw(mask as u64 + 1);
                        let lz = LEADING[draw(8) as usize];
                        let sig = 1 + draw(u64::from(width - lz)) as u32;
                        let bits = draw(u64::MAX) & (u64::MAX >> (64 - sig));
                        let sig_field = if sig == width { 0 } else { sig };
                        let code = LEADING.iter().position(|&l| l == lz).unwrap() as u64;
                        b.put(0b01, 2)
                            .put(slot, slot_bits)
                            .put(code, 3)
                            .put(u64::from(sig_field), sig_bits);
                        b.put(bits, sig);
                        stored = Some(lz);
                        ring[slot as usize] ^ (bits << (width - lz - sig))
                    }
                    (1..=5, _) | (6..=9, None) => {
                        let code = draw(8);
                        let lz = LEADING[code as usize];
                        let bits = (draw(u64::MAX) ^ draw(u64::MAX) << 31) & (keep >> lz);
                        b.put(0b11, 2).put(code, 3).put(bits, width - lz);
                        stored = Some(lz);
                        prev ^ bits
                    }
                    (6..=9, Some(lz)) => {
                        let bits = (draw(u64::MAX) ^ draw(u64::MAX) << 31) & (keep >> lz);
                        b.put(0b10, 2).put(bits, width - lz);
                        prev ^ bits
                    }
                    _ => {
                        let slot = draw(mask as u64 + 1);
                        b.put(0b00, 2).put(slot, slot_bits);
                        ring[slot as usize]
                    }
                };
                assert_ne!(value, terminator);
                current = (current + 1) & mask;
                ring[current] = value;
                prev = value;
                want.push(value);
            }
            let counted = b.bytes.clone();
            b.put(0b11, 2).put(0, 3).put(prev ^ terminator, width);
            // The flush byte: the one after the terminator's last bit.
            let flushed = b.len / 8 + 1;
            b.bytes.push(0);
            let stops = [
                (&counted, Stop::Count(want.len()), counted.len()),
                (&b.bytes, Stop::AtTerminator, flushed),
            ];
            for (page, stop, consumed) in stops {
                let mut out = vec![0u64; want.len() + 1];
                let done = if width == 32 {
                    let mut out32 = vec![0u32; want.len() + 1];
                    let done = decode32_into(page, terminator as u32, stop, &mut out32);
                    for (o, v) in out.iter_mut().zip(out32) {
                        *o = u64::from(v);
                    }
                    done
                } else {
                    decode64_into(page, terminator, stop, &mut out)
                };
                assert_eq!(
                    done,
                    Ok(Done {
                        values: want.len(),
                        consumed
                    }),
                    "W {width}, {stop:?}"
                );
                assert_eq!(out[..want.len()], want[..], "W {width}, {stop:?}");
            }
            // A `10` before any window, far from the page's end.
            let mut b = Bits::default();
            b.put(first, width).put(0b00, 2).put(0, slot_bits).put(0b10, 2);
            b.bytes.extend([0u8; 32]);
            let at = width as usize + 2 + slot_bits as usize;
            let refused = Err(DecodeError::NoWindow {
                offset: at / 8,
                bit: (at % 8) as u8,
            });
            if width == 32 {
                assert_eq!(
                    decode32_into(&b.bytes, terminator as u32, Stop::Count(3), &mut [0u32; 8]),
                    refused
                );
            } else {
                assert_eq!(
                    decode64_into(&b.bytes, terminator, Stop::Count(3), &mut [0u64; 8]),
                    refused
                );
            }
        }
    }

    /// A stream of every control, laid out field by field: (field, first
    /// bit, bits) in stream order. `shift` lengthens the first `01`'s
    /// significant bits, moving every later field by that many bits.
    fn every_field(width: u32, shift: u32) -> (Bits, Vec<(Field, usize, usize)>) {
        let (slot_bits, sig_bits) = if width == 32 { (6, 5) } else { (7, 6) };
        let meta = (slot_bits + 3 + sig_bits) as usize;
        let mut b = Bits::default();
        let mut fields = Vec::new();
        let mut field = |b: &mut Bits, f: Field, v: u64, n: u32| {
            fields.push((f, b.len, n as usize));
            b.put(v, n);
        };
        field(&mut b, Field::ChimpFirst, 0x5A5A_5A5A, width);
        // `01`: slot 0, lz code 0 (0), 8 + shift significant bits.
        let sig = 8 + shift;
        field(&mut b, Field::ChimpControl, 0b01, 2);
        field(&mut b, Field::ChimpIndex, u64::from(sig), meta as u32);
        field(&mut b, Field::ChimpBits, 0xA5, sig);
        // `00`: slot 3.
        field(&mut b, Field::ChimpControl, 0b00, 2);
        field(&mut b, Field::ChimpIndex, 3, slot_bits);
        // `01`: slot 1, lz code 7 (24), 3 significant bits.
        field(&mut b, Field::ChimpControl, 0b01, 2);
        let fields_01 = (1 << (3 + sig_bits)) | (7 << sig_bits) | 3;
        field(&mut b, Field::ChimpIndex, fields_01, meta as u32);
        field(&mut b, Field::ChimpBits, 0b101, 3);
        // `10`: the 24 leading zeros the `01` set.
        field(&mut b, Field::ChimpControl, 0b10, 2);
        field(&mut b, Field::ChimpBits, 1, width - 24);
        // `11`: lz code 2 (12).
        field(&mut b, Field::ChimpControl, 0b11, 2);
        field(&mut b, Field::ChimpLeading, 2, 3);
        field(&mut b, Field::ChimpBits, 0xF0F, width - 12);
        // `00`: slot 0.
        field(&mut b, Field::ChimpControl, 0b00, 2);
        field(&mut b, Field::ChimpIndex, 0, slot_bits);
        (b, fields)
    }

    /// A page cut after every byte, with every field at every alignment:
    /// the error names the first field the cut reaches into, at its first
    /// bit (the first value's at 0), and a cut past every field decodes.
    #[test]
    fn every_cut_names_the_field_it_falls_in() {
        for width in [32u32, 64] {
            for shift in 0..8 {
                let (b, fields) = every_field(width, shift);
                for cut in 0..=b.bytes.len() {
                    let page = &b.bytes[..cut];
                    let total = cut * 8;
                    let want = match fields.iter().find(|(_, at, n)| at + n > total) {
                        Some(&(field, at, _)) => Err(DecodeError::Truncated {
                            field,
                            offset: at / 8,
                            bit: (at % 8) as u8,
                        }),
                        None => Ok(Done {
                            values: 7,
                            consumed: b.len.div_ceil(8),
                        }),
                    };
                    let got = if width == 32 {
                        decode32_into(page, TERMINATOR_I32, Stop::Count(7), &mut [0; 8])
                    } else {
                        decode64_into(page, TERMINATOR_I64, Stop::Count(7), &mut [0; 8])
                    };
                    assert_eq!(got, want, "width {width} shift {shift} cut {cut}");
                }
            }
        }
    }

    /// Without a count, a page with more values than the output stops at
    /// the control of the first value that does not fit.
    #[test]
    fn too_many_values_names_the_first_that_does_not_fit() {
        for width in [32u32, 64] {
            let (b, fields) = every_field(width, 5);
            let controls: Vec<usize> = fields
                .iter()
                .filter(|(f, _, _)| *f == Field::ChimpControl)
                .map(|&(_, at, _)| at)
                .collect();
            for max in 1..=6 {
                let got = if width == 32 {
                    decode32_into(&b.bytes, TERMINATOR_I32, Stop::AtTerminator, &mut vec![0; max])
                } else {
                    decode64_into(&b.bytes, TERMINATOR_I64, Stop::AtTerminator, &mut vec![0; max])
                };
                let offset = controls[max - 1] / 8;
                assert_eq!(
                    got,
                    Err(DecodeError::TooManyValues { max, offset }),
                    "width {width} max {max}"
                );
            }
        }
    }

    #[test]
    fn refused_windows() {
        // `10` before any `11` or `01`.
        let mut b = Bits::default();
        b.put(7, 32).put(0b10, 2).put(0, 30);
        let mut out = [0u32; 4];
        assert_eq!(
            decode32_into(&b.bytes, TERMINATOR_I32, Stop::AtTerminator, &mut out),
            Err(DecodeError::NoWindow { offset: 4, bit: 0 })
        );
        // `01` with 24 leading zeros and 32 significant bits (count 0).
        let mut b = Bits::default();
        b.put(7, 32).put(0b01, 2).put(0, 6).put(7, 3).put(0, 5).put(0, 40);
        assert_eq!(
            decode32_into(&b.bytes, TERMINATOR_I32, Stop::AtTerminator, &mut out),
            Err(DecodeError::BadWindow {
                leading: 24,
                significant: 32,
                offset: 4,
                bit: 2
            })
        );
        // A page too short for its first value, and a count above the output.
        assert_eq!(
            decode32_into(&[1, 2, 3], TERMINATOR_I32, Stop::AtTerminator, &mut out),
            Err(DecodeError::Truncated {
                field: Field::ChimpFirst,
                offset: 0,
                bit: 0
            })
        );
        assert_eq!(
            decode32_into(&[0; 8], TERMINATOR_I32, Stop::Count(5), &mut out),
            Err(DecodeError::TooManyValues { max: 4, offset: 0 })
        );
    }
}
