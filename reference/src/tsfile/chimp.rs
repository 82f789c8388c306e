//! CHIMP (encoding id 11, the Chimp128 variant) for INT32, INT64, FLOAT and
//! DOUBLE: XOR with the previous value or with one of the last 64 (32-bit) /
//! 128 (64-bit) values, MSB-first bits, a terminator value and a flush byte
//! as in GORILLA. Notes: `docs/reference/tsfile-encodings.md`.

use super::{BitWriter, Bits, DecodeError, Decoded, Field};

pub use super::gorilla::{Stop, TERMINATOR_F32, TERMINATOR_F64, TERMINATOR_I32, TERMINATOR_I64};

/// Leading zeros for each 3-bit code.
const LEADING: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];

/// The per-width constants.
struct Params {
    width: u32,
    /// log2 of the number of previous values kept (6 or 7).
    log2: u32,
    /// Bits of the significant-bit count in the `01` case (5 or 6).
    sig_bits: u32,
    /// A reference value is used when the XOR has more trailing zeros.
    threshold: u32,
}

const P32: Params = Params {
    width: 32,
    log2: 6,
    sig_bits: 5,
    threshold: 11,
};
const P64: Params = Params {
    width: 64,
    log2: 7,
    sig_bits: 6,
    threshold: 13,
};

/// Decode 32-bit patterns (INT32, FLOAT).
pub fn decode32(page: &[u8], terminator: u32, stop: Stop, max_values: usize) -> Result<Decoded<u32>, DecodeError> {
    let d = decode(page, &P32, terminator as u64, stop, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as u32).collect(),
        consumed: d.consumed,
    })
}

/// Decode 64-bit patterns (INT64, DOUBLE).
pub fn decode64(page: &[u8], terminator: u64, stop: Stop, max_values: usize) -> Result<Decoded<u64>, DecodeError> {
    decode(page, &P64, terminator, stop, max_values)
}

fn decode(
    page: &[u8],
    p: &Params,
    terminator: u64,
    stop: Stop,
    max_values: usize,
) -> Result<Decoded<u64>, DecodeError> {
    let w = p.width;
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
            return Ok(Decoded { values, consumed: 0 });
        }
    }
    let mut prev = r.bits(w).ok_or(r.truncated(Field::ChimpFirst, 0))?;
    // The previous values by slot, as the readers keep them: never-written
    // slots read as 0.
    let mut ring = vec![0u64; 1 << p.log2];
    let mut current = 0;
    ring[current] = prev;
    // Leading zeros set by the last `11` or `01`; none before the first.
    let mut stored_lz: Option<u32> = None;
    let mut value_start = 0;
    loop {
        match stop {
            Stop::AtTerminator if prev == terminator => {
                let flush = r.pos / 8;
                if flush >= page.len() {
                    return Err(r.truncated(Field::ChimpFlush, r.pos));
                }
                return Ok(Decoded {
                    values,
                    consumed: flush + 1,
                });
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
            return Ok(Decoded {
                values,
                consumed: r.pos.div_ceil(8),
            });
        }
        value_start = r.pos;
        let control = r.bits(2).ok_or(r.truncated(Field::ChimpControl, value_start))?;
        let at = r.pos;
        match control {
            0b00 => {
                let slot = r.bits(p.log2).ok_or(r.truncated(Field::ChimpIndex, at))?;
                prev = ring[slot as usize];
            }
            0b01 => {
                let meta = r
                    .bits(p.log2 + 3 + p.sig_bits)
                    .ok_or(r.truncated(Field::ChimpIndex, at))?;
                let slot = (meta >> (3 + p.sig_bits)) as usize;
                let lz = LEADING[((meta >> p.sig_bits) & 7) as usize];
                let mut sig = (meta & ((1 << p.sig_bits) - 1)) as u32;
                // The readers take a count of 0 as the full width.
                if sig == 0 {
                    sig = w;
                }
                if lz + sig > w {
                    return Err(DecodeError::BadWindow {
                        leading: lz,
                        significant: sig,
                        offset: at / 8,
                        bit: (at % 8) as u8,
                    });
                }
                let tz = w - lz - sig;
                let bits_at = r.pos;
                let bits = r.bits(sig).ok_or(r.truncated(Field::ChimpBits, bits_at))?;
                prev = ring[slot] ^ (bits << tz);
                stored_lz = Some(lz);
            }
            0b10 => {
                let lz = stored_lz.ok_or(DecodeError::NoWindow {
                    offset: value_start / 8,
                    bit: (value_start % 8) as u8,
                })?;
                let bits = r.bits(w - lz).ok_or(r.truncated(Field::ChimpBits, at))?;
                prev ^= bits;
            }
            _ => {
                let code = r.bits(3).ok_or(r.truncated(Field::ChimpLeading, at))?;
                let lz = LEADING[code as usize];
                stored_lz = Some(lz);
                let bits_at = r.pos;
                let bits = r.bits(w - lz).ok_or(r.truncated(Field::ChimpBits, bits_at))?;
                prev ^= bits;
            }
        }
        current = (current + 1) % ring.len();
        ring[current] = prev;
    }
}

/// Encode 32-bit patterns as the writers do. `terminator`: append it and the
/// flush byte; `None` just pads the last byte with zeros.
pub fn encode32(values: &[u32], terminator: Option<u32>) -> Vec<u8> {
    let v: Vec<u64> = values.iter().map(|&x| x as u64).collect();
    encode(&v, &P32, terminator.map(|t| t as u64))
}

/// Encode 64-bit patterns; see [`encode32`].
pub fn encode64(values: &[u64], terminator: Option<u64>) -> Vec<u8> {
    encode(values, &P64, terminator)
}

/// Leading zeros rounded down to one of `LEADING`, and its code.
fn round_leading(lz: u32) -> (u32, u64) {
    let code = LEADING.iter().rposition(|&l| l <= lz).unwrap_or(0);
    (LEADING[code], code as u64)
}

fn encode(values: &[u64], p: &Params, terminator: Option<u64>) -> Vec<u8> {
    let w = p.width;
    let n = 1usize << p.log2;
    let mut out = BitWriter::default();
    let mut stored = vec![0u64; n];
    // For each value of the low `threshold + 1` bits: the index of the last
    // value that had them (0 if none).
    let mut indices = vec![0usize; 1 << (p.threshold + 1)];
    let mut index = 0usize;
    let mut current = 0usize;
    // Leading zeros of the last `11`; none after a `00` or `01` (the notes'
    // "W + 1", which no rounded count equals).
    let mut stored_lz: Option<u32> = None;
    let mut first = true;
    for &v in values.iter().chain(terminator.iter()) {
        let key = (v & ((1 << (p.threshold + 1)) - 1)) as usize;
        if first {
            stored[current] = v;
            out.bits(v, w);
            indices[key] = index;
            first = false;
            continue;
        }
        let candidate = indices[key];
        let slot = candidate % n;
        let temp = v ^ stored[slot];
        // The notes take the candidate only while `index - candidate < N`.
        // That is implied: a slot written since holds a later value, and its
        // key differs (`candidate` is the last index with this key), so the
        // XOR has a set bit among the key's THRESHOLD + 1 low bits.
        if temp == 0 {
            out.bits(0b00, 2);
            out.bits(slot as u64, p.log2);
            stored_lz = None;
        } else if temp.trailing_zeros() > p.threshold {
            let tz = temp.trailing_zeros();
            let (lz, code) = round_leading(temp.leading_zeros() - (64 - w));
            let sig = w - lz - tz;
            out.bits(0b01, 2);
            out.bits(slot as u64, p.log2);
            out.bits(code, 3);
            out.bits(sig as u64, p.sig_bits);
            out.bits(temp >> tz, sig);
            stored_lz = None;
        } else {
            // Against the previous value, which differs from `v`: an equal
            // value would have its key, and be the XOR-0 case above.
            let xor = stored[current] ^ v;
            let (lz, code) = round_leading(xor.leading_zeros() - (64 - w));
            if stored_lz == Some(lz) {
                out.bits(0b10, 2);
                out.bits(xor, w - lz);
            } else {
                stored_lz = Some(lz);
                out.bits(0b11, 2);
                out.bits(code, 3);
                out.bits(xor, w - lz);
            }
        }
        current = (current + 1) % n;
        stored[current] = v;
        index += 1;
        indices[key] = index;
    }
    let mut bytes = out.bytes;
    if terminator.is_some() && out.nbits.is_multiple_of(8) {
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
        // 5 raw; 5 again: `00` + slot 0; 6: XOR 3 with the last value, 30
        // leading zeros rounded to 24: `11 111` + 8 bits; the terminator:
        // `11 000` + 32 bits; then the partial byte is flushed.
        let page = encode32(&[5, 5, 6], Some(TERMINATOR_I32));
        insta::assert_snapshot!(hex(&page), @"00 00 00 05 00 f8 1e 20 00 00 01 80");
        let d = decode32(&page, TERMINATOR_I32, Stop::AtTerminator, 9).unwrap();
        assert_eq!(d.values, vec![5, 5, 6]);
        assert_eq!(d.consumed, page.len());
        let d = decode32(&page, TERMINATOR_I32, Stop::Count(3), 9).unwrap();
        assert_eq!(d.values, vec![5, 5, 6]);
        assert_eq!(d.consumed, 7);
    }

    #[test]
    fn known_answer_int64_reference_case() {
        // 100 raw; 7: `11 111` + 40 bits of 7 ^ 100; 100 + 2^20 shares its
        // low 14 bits with 100 (slot 0) and the XOR 2^20 has 20 trailing
        // zeros: `01` slot 0000000, code 111, 20 significant bits, then 1 in
        // 20 bits; the terminator XORs with the last value (`11 000`).
        let v = [100u64, 7, 100 + (1 << 20)];
        let page = encode64(&v, Some(TERMINATOR_I64));
        insta::assert_snapshot!(hex(&page), @"00 00 00 00 00 00 00 64 f8 00 00 00 03 1a 03 a8 00 00 38 80 00 00 00 00 10 00 64 00");
        assert_eq!(
            decode64(&page, TERMINATOR_I64, Stop::AtTerminator, 9).unwrap().values,
            v.to_vec()
        );
    }

    #[test]
    fn known_answer_reference_cases_and_codes() {
        // 0 raw; 0x40000 shares its low 12 bits with 0 and the XOR has 18
        // trailing zeros: `01` slot 0, 13 leading zeros rounded to 12 (code
        // 010), 2 significant bits, then `01`; the terminator shares its low
        // bits with 0x40000 (slot 1): `01` slot 1, code 000, 14 bits, then
        // 0x80040000 >> 18. 80 bits: the flush byte is a whole 00.
        let page = encode32(&[0, 0x40000], Some(TERMINATOR_I32));
        insta::assert_snapshot!(hex(&page), @"00 00 00 00 40 42 50 43 a0 01 00");
        let d = decode32(&page, TERMINATOR_I32, Stop::AtTerminator, 2).unwrap();
        assert_eq!(d.values, vec![0, 0x40000]);
        assert_eq!(d.consumed, 11);
    }

    /// The 32-bit `11` / `01` fields of the notes, for expected streams.
    fn new_window(w: &mut BitWriter, code: u64, xor: u64, lz: u32) {
        w.bits(0b11, 2);
        w.bits(code, 3);
        w.bits(xor, 32 - lz);
    }

    #[test]
    fn keys_are_the_low_threshold_plus_one_bits() {
        // 0x1000; 0x800 (key 0x800, unseen: candidate 0, XOR 0x1800 has 11
        // trailing zeros, not more than 11: the previous value, 19 leading
        // zeros rounded to 18, code 4); 0x2000 (key 0, the first value's:
        // XOR 0x3000, 12 trailing zeros: `01` slot 0, code 4, 2 significant
        // bits, 11); 4 (key 4, unseen: XOR 0x1004 with the first value, so
        // the previous value, XOR 0x2004, 18 leading zeros — a new `11`,
        // since the `01` cleared the stored count).
        let mut w = BitWriter::default();
        w.bits(0x1000, 32);
        new_window(&mut w, 4, 0x1800, 18);
        w.bits(0b01, 2);
        w.bits(0, 6);
        w.bits(4, 3);
        w.bits(2, 5);
        w.bits(0b11, 2);
        new_window(&mut w, 4, 0x2004, 18);
        let v = [0x1000, 0x800, 0x2000, 4];
        assert_eq!(encode32(&v, None), w.bytes);
        assert_eq!(decode32(&w.bytes, 0, Stop::Count(4), 9).unwrap().values, v.to_vec());
    }

    #[test]
    fn alternating_values_reference_the_ring() {
        // A B A B ...: B is new (`11`, XOR 0x3001, 18 leading zeros); from
        // the third value on each equals the value two back, whose key it
        // shares: `00` + that value's slot, wrapping round the ring of 64.
        let (a, b) = (0x1000u32, 0x2001u32);
        let v: Vec<u32> = (0..140).map(|i| if i % 2 == 0 { a } else { b }).collect();
        let mut w = BitWriter::default();
        w.bits(a as u64, 32);
        new_window(&mut w, 4, 0x3001, 18);
        for k in 2..v.len() {
            w.bits(0b00, 2);
            w.bits(((k - 2) % 64) as u64, 6);
        }
        assert_eq!(encode32(&v, None), w.bytes);
        assert_eq!(decode32(&w.bytes, 0, Stop::Count(140), 140).unwrap().values, v);
        // After a `00`, the stored leading-zero count is gone: A B A C with
        // C ^ A = 0x2002 (18 leading zeros again) is a new `11`.
        let mut w = BitWriter::default();
        w.bits(a as u64, 32);
        new_window(&mut w, 4, 0x3001, 18);
        w.bits(0, 8);
        new_window(&mut w, 4, 0x2002, 18);
        let v = [a, b, a, a ^ 0x2002];
        assert_eq!(encode32(&v, None), w.bytes);
        // 64-bit: a ring of 128, 7-bit slots; B ^ A = 0xC001 has 48 leading
        // zeros, rounded to 24 (code 7): 40 bits.
        let (a, b) = (0x4000u64, 0x8001u64);
        let v: Vec<u64> = (0..300).map(|i| if i % 2 == 0 { a } else { b }).collect();
        let mut w = BitWriter::default();
        w.bits(a, 64);
        w.bits(0b11, 2);
        w.bits(7, 3);
        w.bits(0xC001, 40);
        for k in 2..v.len() {
            w.bits(0b00, 2);
            w.bits(((k - 2) % 128) as u64, 7);
        }
        assert_eq!(encode64(&v, None), w.bytes);
        assert_eq!(decode64(&w.bytes, 0, Stop::Count(300), 300).unwrap().values, v);
    }

    #[test]
    fn edge_values_round_trip() {
        let mut v64: Vec<u64> = vec![
            0,
            1,
            u64::MAX,
            i64::MIN as u64 + 1,
            i64::MAX as u64,
            (-0.0f64).to_bits(),
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
            0x7FF0_0000_0000_0001,
            0xFFF8_0000_0000_0000,
            1.5f64.to_bits(),
        ];
        v64.extend(std::iter::repeat_n(42, 300));
        v64.extend((0..300).map(|i| if i % 2 == 0 { 0 } else { u64::MAX }));
        // A value seen 100 and 200 values ago: inside and outside the window.
        v64.extend((0..300u64).map(|i| (i % 150) << 20 | 0x3FFF));
        for (t, stop_at) in [
            (TERMINATOR_I64, false), // -0.0 is i64::MIN: count, do not stop
            (TERMINATOR_F64, true),
            (TERMINATOR_F64, false),
        ] {
            let page = encode64(&v64, Some(t));
            let stop = if stop_at {
                Stop::AtTerminator
            } else {
                Stop::Count(v64.len())
            };
            let d = decode64(&page, t, stop, v64.len()).unwrap();
            assert_eq!(d.values, v64);
        }
        let v32: Vec<u32> = v64.iter().map(|&x| x as u32 ^ (x >> 32) as u32).collect();
        let v32: Vec<u32> = v32
            .into_iter()
            .filter(|&x| x != TERMINATOR_F32 && x != TERMINATOR_I32)
            .collect();
        for t in [TERMINATOR_I32, TERMINATOR_F32] {
            let page = encode32(&v32, Some(t));
            let d = decode32(&page, t, Stop::AtTerminator, v32.len()).unwrap();
            assert_eq!(d.values, v32);
            assert_eq!(d.consumed, page.len());
        }
    }

    #[test]
    fn terminator_value_ends_the_page_early() {
        let page = encode64(&[1, TERMINATOR_I64, 2], Some(TERMINATOR_I64));
        assert_eq!(
            decode64(&page, TERMINATOR_I64, Stop::AtTerminator, 9).unwrap().values,
            vec![1]
        );
        assert_eq!(
            decode64(&page, TERMINATOR_I64, Stop::Count(3), 9).unwrap().values,
            vec![1, TERMINATOR_I64, 2]
        );
        // No value: the terminator is the first value.
        let page = encode32(&[], Some(TERMINATOR_F32));
        assert_eq!(hex(&page), "7f c0 00 00 00");
        let d = decode32(&page, TERMINATOR_F32, Stop::AtTerminator, 0).unwrap();
        assert_eq!((d.values.len(), d.consumed), (0, 5));
    }

    #[test]
    fn reader_rules_beyond_the_writer() {
        // `00` naming a slot never written reads 0 (the readers' zeroed
        // ring): 7 raw, then `00 000011` (slot 3), then `00 000000`.
        let mut w = BitWriter::default();
        w.bits(7, 32);
        w.bits(0b00_000011, 8);
        w.bits(0b00_000000, 8);
        let d = decode32(&w.bytes, 0, Stop::Count(3), 9).unwrap();
        assert_eq!(d.values, vec![7, 0, 7]);
        // `01` with a significant-bit count of 0 means the full width:
        // slot 0, code 000, count 00000, then 32 bits.
        let mut w = BitWriter::default();
        w.bits(1, 32);
        w.bits(0b01, 2);
        w.bits(0, 6 + 3 + 5);
        w.bits(0xFFFF_FFFF, 32);
        let d = decode32(&w.bytes, 0, Stop::Count(2), 9).unwrap();
        assert_eq!(d.values, vec![1, 0xFFFF_FFFE]);
        // `10` after `01` reuses the `01` case's leading zeros.
        let mut w = BitWriter::default();
        w.bits(0, 64);
        w.bits(0b01, 2);
        w.bits(0, 7);
        w.bits(7, 3); // 24 leading zeros
        w.bits(1, 6); // one significant bit, 39 trailing zeros
        w.bits(1, 1);
        w.bits(0b10, 2);
        w.bits(1, 40);
        let d = decode64(&w.bytes, 0, Stop::Count(3), 9).unwrap();
        assert_eq!(d.values, vec![0, 1 << 39, (1 << 39) ^ 1]);
    }

    #[test]
    fn every_error_variant() {
        // 00 00 00 05 | 00 | f8 1e 20 00 00 01 80: 5 raw, `00` slot 0, then
        // `11 111` + 8 bits from bit 40, the terminator from bit 53.
        let page = encode32(&[5, 5, 6], Some(TERMINATOR_I32));
        let tr = |field, offset, bit| DecodeError::Truncated { field, offset, bit };
        let at = |p: &[u8]| decode32(p, TERMINATOR_I32, Stop::AtTerminator, 9);
        assert_eq!(at(&page[..3]), Err(tr(Field::ChimpFirst, 0, 0)));
        assert_eq!(at(&page[..4]), Err(tr(Field::ChimpControl, 4, 0)));
        assert_eq!(at(&page[..5]), Err(tr(Field::ChimpControl, 5, 0)));
        assert_eq!(at(&page[..6]), Err(tr(Field::ChimpBits, 5, 5)));
        // A `00` slot and a `01` metadata field cut short.
        let mut w = BitWriter::default();
        w.bits(5, 32);
        w.bits(0b11_111, 5);
        w.bits(0xAB, 8);
        w.bits(0b00, 2);
        assert_eq!(at(&w.bytes), Err(tr(Field::ChimpIndex, 5, 7)));
        assert_eq!(at(&[0, 0, 0, 5, 0, 0x40]), Err(tr(Field::ChimpIndex, 5, 2)));
        // A `11` code cut short.
        let mut w = BitWriter::default();
        w.bits(5, 32);
        w.bits(0b11_111, 5);
        w.bits(0xAB, 8);
        w.bits(0b11, 2);
        assert_eq!(at(&w.bytes), Err(tr(Field::ChimpLeading, 5, 7)));
        // No flush byte after a terminator that ends on a byte boundary.
        let empty = encode64(&[], Some(TERMINATOR_I64));
        assert_eq!(empty.len(), 9);
        assert_eq!(
            decode64(&empty[..8], TERMINATOR_I64, Stop::AtTerminator, 9),
            Err(tr(Field::ChimpFlush, 8, 0))
        );
        // `10` before any leading-zero count.
        assert_eq!(
            at(&[0, 0, 0, 5, 0b1000_0000]),
            Err(DecodeError::NoWindow { offset: 4, bit: 0 })
        );
        // `01` with 24 leading zeros and 31 significant bits.
        let mut w = BitWriter::default();
        w.bits(5, 32);
        w.bits(0b01, 2);
        w.bits(0, 6);
        w.bits(7, 3);
        w.bits(31, 5);
        w.bits(0, 31);
        assert_eq!(
            at(&w.bytes),
            Err(DecodeError::BadWindow {
                leading: 24,
                significant: 31,
                offset: 4,
                bit: 2
            })
        );
        // Limits: the third value starts at bit 40.
        assert_eq!(at(&page).map(|d| d.values.len()), Ok(3));
        assert_eq!(
            decode32(&page, TERMINATOR_I32, Stop::AtTerminator, 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 5 })
        );
        assert_eq!(
            decode32(&page, TERMINATOR_I32, Stop::Count(3), 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 0 })
        );
    }

    #[test]
    fn every_prefix_is_an_error_or_shorter() {
        let v = [3u64, 3, 1 << 40, 3 | 1 << 50, u64::MAX, 0x3FFF];
        let page = encode64(&v, Some(TERMINATOR_F64));
        for n in 0..page.len() {
            assert!(decode64(&page[..n], TERMINATOR_F64, Stop::AtTerminator, 9).is_err());
            if let Ok(d) = decode64(&page[..n], TERMINATOR_F64, Stop::Count(6), 9) {
                assert_eq!(d.values, v.to_vec(), "{n}");
            }
        }
    }

    /// Bytes written by the official writer (PyPI `tsfile` 2.5.0, the C++
    /// library), as hex.
    use crate::tsfile::test_unhex as unhex;

    #[test]
    fn official_writer_pages() {
        // CHIMP pages written by PyPI tsfile 2.5.0.
        let cases32: [(&str, &[u32], u32); 3] = [
            ("00 00 00 05 00 f8 1e 20 00 00 01 80", &[5, 5, 6], TERMINATOR_I32),
            ("00 00 00 00 40 42 50 43 a0 01 00", &[0, 0x40000], TERMINATOR_I32),
            (
                "3f c0 00 00 40 0c 7f d4 10 c3 fd 00",
                &[0x3FC0_0000, 0x4010_0000],
                TERMINATOR_F32,
            ),
        ];
        for (hex, v, t) in cases32 {
            let p = unhex(hex);
            assert_eq!(encode32(v, Some(t)), p, "{hex}");
            let d = decode32(&p, t, Stop::AtTerminator, 9).unwrap();
            assert_eq!((d.values.as_slice(), d.consumed), (v, p.len()));
        }
        let d = |x: f64| x.to_bits();
        let cases64: [(&str, Vec<u64>, u64); 3] = [
            (
                "00 00 00 00 00 00 00 64 f8 00 00 00 03 1a 03 a8 00 00 38 80 00 00 00 00 10 00 64 00",
                vec![100, 7, 100 + (1 << 20)],
                TERMINATOR_I64,
            ),
            (
                "3f f8 00 00 00 00 00 00 40 03 df fe a0 41 ef ff 50 40 db ff a0 c1 bf ff 00",
                vec![d(1.5), d(2.25), d(1.5), d(-0.0)],
                TERMINATOR_F64,
            ),
            // A TIMESTAMP series (the INT64 coder).
            (
                "00 00 00 00 00 00 00 01 f8 00 00 00 00 1e 20 00 00 00 00 00 00 00 80",
                vec![1, 2],
                TERMINATOR_I64,
            ),
        ];
        for (hex, v, t) in cases64 {
            let p = unhex(hex);
            assert_eq!(encode64(&v, Some(t)), p, "{hex}");
            let got = decode64(&p, t, Stop::AtTerminator, 9).unwrap();
            assert_eq!((got.values, got.consumed), (v, p.len()));
        }
    }

    proptest! {
        #[test]
        fn round_trip_64(v in proptest::collection::vec(prop_oneof![any::<u64>(), 0u64..4, (0u64..8).prop_map(|x| x << 30 | 5)], 0..test_len(400))) {
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
        fn round_trip_32(v in proptest::collection::vec(prop_oneof![any::<u32>(), 0u32..4, (0u32..8).prop_map(|x| x << 20 | 5)], 0..test_len(400))) {
            let page = encode32(&v, Some(TERMINATOR_F32));
            let d = decode32(&page, TERMINATOR_F32, Stop::Count(v.len()), v.len()).unwrap();
            prop_assert_eq!(&d.values, &v);
            if !v.contains(&TERMINATOR_F32) {
                let d = decode32(&page, TERMINATOR_F32, Stop::AtTerminator, v.len()).unwrap();
                prop_assert_eq!(d.values, v);
                prop_assert_eq!(d.consumed, page.len());
            }
        }
    }
}
