//! TS_2DIFF and RLE on FLOAT and DOUBLE: Java's `FloatEncoder` wrapper. Each
//! value becomes an integer (scaled by `10^maxPointNumber`, or rounded, or
//! its raw IEEE bits when it does not fit), the integers go through the INT32
//! (FLOAT) or INT64 (DOUBLE) TS_2DIFF / RLE encoder, and the page starts with
//! `maxPointNumber`, or with an overflow marker, the page's value count and
//! one or two LSB-first bitmaps saying which form each value took.
//! Notes: `docs/reference/tsfile-encodings.md`.

use super::{rle, ts2diff, write_uvarint, Bytes, DecodeError, Decoded, Field};

/// First varint of a page where some value was rounded (not scaled) and none
/// is raw bits: `Integer.MAX_VALUE`.
pub const MARK_ROUNDED: u32 = i32::MAX as u32;
/// First varint of a page where some value is stored as raw bits:
/// `Integer.MAX_VALUE - 1`.
pub const MARK_RAW: u32 = i32::MAX as u32 - 1;
/// The writers' default maxPointNumber (Java `TSFileConfig.floatPrecision`,
/// the C++ encoders' constructor).
pub const DEFAULT_MAX_POINT_NUMBER: u32 = 2;

/// The integer encoding under the wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inner {
    Ts2Diff,
    Rle,
}

/// How one value is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `round(v * 10^maxPointNumber)`; read back as `stored / 10^mpn`.
    Scaled,
    /// `round(v)` (the scaled value overflowed); read back as `stored`.
    Rounded,
    /// The IEEE bits (`v` itself overflows, or NaN, canonicalised).
    Raw,
}

/// What follows a marker.
struct Bitmaps<'a> {
    /// The page's value count and where it was read.
    count: usize,
    count_at: usize,
    scaled: &'a [u8],
    /// After `MARK_RAW` only.
    raw: Option<&'a [u8]>,
}

/// What the page header says.
struct Header<'a> {
    /// `10^maxPointNumber`, or 1 when maxPointNumber <= 0 as an i32.
    scale: f64,
    bitmaps: Option<Bitmaps<'a>>,
    /// Header bytes; the integer stream starts here.
    len: usize,
}

impl Header<'_> {
    fn form(&self, i: usize) -> Form {
        let marked = |bm: &[u8]| bm.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0);
        match &self.bitmaps {
            None => Form::Scaled,
            Some(b) => {
                if b.raw.is_some_and(marked) {
                    Form::Raw
                } else if marked(b.scaled) {
                    Form::Scaled
                } else {
                    Form::Rounded
                }
            }
        }
    }
}

/// `10^n` correctly rounded (infinite above 308: the float parser rounds an
/// exponent of any size, so no bound is needed here).
fn pow10(n: u32) -> f64 {
    format!("1e{n}").parse().unwrap_or(f64::INFINITY)
}

fn scale_of(max_point_number: u32) -> f64 {
    if max_point_number as i32 <= 0 {
        1.0
    } else {
        pow10(max_point_number)
    }
}

fn take<'a>(r: &mut Bytes<'a>, n: usize, field: Field) -> Result<&'a [u8], DecodeError> {
    if r.remaining() < n {
        return Err(DecodeError::Truncated {
            field,
            offset: r.pos,
            bit: 0,
        });
    }
    let s = &r.data[r.pos..r.pos + n];
    r.pos += n;
    Ok(s)
}

fn read_header(page: &[u8], max_values: usize) -> Result<Header<'_>, DecodeError> {
    let mut r = Bytes::new(page);
    if page.is_empty() {
        // The writers write nothing for a page without values.
        return Ok(Header {
            scale: 1.0,
            bitmaps: None,
            len: 0,
        });
    }
    let tag = r.uvarint32(Field::FloatHeader)?;
    let mut bitmaps = None;
    let mpn = if tag == MARK_ROUNDED || tag == MARK_RAW {
        let count_at = r.pos;
        let count = r.uvarint32(Field::FloatCount)? as usize;
        if count == 0 {
            return Err(DecodeError::BadCount {
                field: Field::FloatCount,
                count: 0,
                offset: count_at,
            });
        }
        if count > max_values {
            return Err(DecodeError::TooManyValues {
                max: max_values,
                offset: count_at,
            });
        }
        // Java's BitMap: size / 8 + 1 bytes, even when size % 8 == 0.
        let n = count / 8 + 1;
        let scaled = take(&mut r, n, Field::FloatBitmap)?;
        let raw = if tag == MARK_RAW {
            Some(take(&mut r, n, Field::FloatBitmap)?)
        } else {
            None
        };
        bitmaps = Some(Bitmaps {
            count,
            count_at,
            scaled,
            raw,
        });
        r.uvarint32(Field::MaxPointNumber)?
    } else {
        tag
    };
    Ok(Header {
        scale: scale_of(mpn),
        bitmaps,
        len: r.pos,
    })
}

/// After a marker the integer stream must hold exactly the counted values.
fn check_count(h: &Header<'_>, decoded: usize) -> Result<(), DecodeError> {
    match &h.bitmaps {
        Some(b) if b.count != decoded => Err(DecodeError::BadCount {
            field: Field::FloatCount,
            count: b.count as i64,
            offset: b.count_at,
        }),
        _ => Ok(()),
    }
}

/// Decode a FLOAT page.
pub fn decode_f32(page: &[u8], inner: Inner, max_values: usize) -> Result<Decoded<f32>, DecodeError> {
    let h = read_header(page, max_values)?;
    let body = &page[h.len..];
    let ints = match inner {
        Inner::Ts2Diff => ts2diff::decode_i32(body, max_values),
        Inner::Rle => rle::decode_i32(body, max_values),
    }
    .map_err(|e| e.shifted(h.len))?;
    check_count(&h, ints.values.len())?;
    let values = ints
        .values
        .iter()
        .enumerate()
        .map(|(i, &v)| match h.form(i) {
            Form::Raw => f32::from_bits(v as u32),
            Form::Scaled => (v as f64 / h.scale) as f32,
            Form::Rounded => v as f64 as f32,
        })
        .collect();
    Ok(Decoded {
        values,
        consumed: h.len + ints.consumed,
    })
}

/// Decode a DOUBLE page.
pub fn decode_f64(page: &[u8], inner: Inner, max_values: usize) -> Result<Decoded<f64>, DecodeError> {
    let h = read_header(page, max_values)?;
    let body = &page[h.len..];
    let ints = match inner {
        Inner::Ts2Diff => ts2diff::decode_i64(body, max_values),
        Inner::Rle => rle::decode_i64(body, max_values),
    }
    .map_err(|e| e.shifted(h.len))?;
    check_count(&h, ints.values.len())?;
    let values = ints
        .values
        .iter()
        .enumerate()
        .map(|(i, &v)| match h.form(i) {
            Form::Raw => f64::from_bits(v as u64),
            Form::Scaled => v as f64 / h.scale,
            Form::Rounded => v as f64,
        })
        .collect();
    Ok(Decoded {
        values,
        consumed: h.len + ints.consumed,
    })
}

/// Java's `Math.round`: the nearest integer, ties towards +infinity,
/// saturating, NaN to 0 (Rust's float-to-int `as` saturates and maps NaN
/// to 0). `fract` is exact, so a tie is seen exactly.
fn java_round(x: f64) -> i64 {
    let r = x.round(); // ties away from zero
    if x.fract() == -0.5 {
        (r + 1.0) as i64
    } else {
        r as i64
    }
}

/// How the Java writer stores one FLOAT.
pub fn store_f32(v: f32, max_point_number: u32) -> (Form, i32) {
    let scaled = v as f64 * scale_of(max_point_number);
    // `Integer.MAX_VALUE` compared with a float is 2^31.
    let limit = 2_147_483_648.0f32;
    // A NaN fails both range tests below, so it can be taken first.
    if v.is_nan() {
        // floatToIntBits canonicalises every NaN.
        return (Form::Raw, 0x7FC0_0000);
    }
    // "Above MAX or below MIN", as a range: no float times a power of ten
    // is exactly i32::MAX (2^31 - 1 is prime), so two comparisons would
    // leave a bound whose `>` and `>=` are the same test.
    if !(i32::MIN as f64..=i32::MAX as f64).contains(&scaled) {
        if v > limit || v < -limit {
            (Form::Raw, v.to_bits() as i32)
        } else {
            // Math.round(float): 2^31 itself saturates to i32::MAX.
            (
                Form::Rounded,
                java_round(v as f64).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            )
        }
    } else {
        (Form::Scaled, java_round(scaled) as i32)
    }
}

/// How the Java writer stores one DOUBLE.
pub fn store_f64(v: f64, max_point_number: u32) -> (Form, i64) {
    let scaled = v * scale_of(max_point_number);
    // `Long.MAX_VALUE` / `MIN_VALUE` as doubles are ±2^63.
    let limit = 9_223_372_036_854_775_808.0f64;
    if scaled > limit || scaled < -limit {
        if v > limit || v < -limit {
            (Form::Raw, v.to_bits() as i64)
        } else {
            (Form::Rounded, java_round(v))
        }
    } else if v.is_nan() {
        (Form::Raw, 0x7FF8_0000_0000_0000)
    } else {
        (Form::Scaled, java_round(scaled))
    }
}

/// The page header for these forms; empty if no value.
fn header(forms: &[Form], max_point_number: u32) -> Vec<u8> {
    let mut out = Vec::new();
    if forms.is_empty() {
        return out;
    }
    if forms.iter().any(|&f| f != Form::Scaled) {
        let any_raw = forms.contains(&Form::Raw);
        write_uvarint(&mut out, if any_raw { MARK_RAW } else { MARK_ROUNDED } as u64);
        write_uvarint(&mut out, forms.len() as u64);
        let n = forms.len() / 8 + 1;
        let bitmap = |want: Form| {
            let mut bm = vec![0u8; n];
            for (i, &f) in forms.iter().enumerate() {
                if f == want {
                    bm[i / 8] |= 1 << (i % 8);
                }
            }
            bm
        };
        out.extend(bitmap(Form::Scaled));
        if any_raw {
            out.extend(bitmap(Form::Raw));
        }
    }
    write_uvarint(&mut out, max_point_number as u64);
    out
}

/// Encode FLOAT values as the Java writer does (TS_2DIFF blocks of 128
/// deltas, RLE with Java's run plan).
pub fn encode_f32(values: &[f32], inner: Inner, max_point_number: u32) -> Vec<u8> {
    let stored: Vec<(Form, i32)> = values.iter().map(|&v| store_f32(v, max_point_number)).collect();
    let forms: Vec<Form> = stored.iter().map(|s| s.0).collect();
    let ints: Vec<i32> = stored.iter().map(|s| s.1).collect();
    let mut out = header(&forms, max_point_number);
    if !ints.is_empty() {
        out.extend(match inner {
            Inner::Ts2Diff => ts2diff::encode_i32(&ints, ts2diff::DEFAULT_BLOCK, false),
            Inner::Rle => rle::encode_i32(&ints, true),
        });
    }
    out
}

/// Encode DOUBLE values as the Java writer does.
pub fn encode_f64(values: &[f64], inner: Inner, max_point_number: u32) -> Vec<u8> {
    let stored: Vec<(Form, i64)> = values.iter().map(|&v| store_f64(v, max_point_number)).collect();
    let forms: Vec<Form> = stored.iter().map(|s| s.0).collect();
    let ints: Vec<i64> = stored.iter().map(|s| s.1).collect();
    let mut out = header(&forms, max_point_number);
    if !ints.is_empty() {
        out.extend(match inner {
            Inner::Ts2Diff => ts2diff::encode_i64(&ints, ts2diff::DEFAULT_BLOCK, false),
            Inner::Rle => rle::encode_i64(&ints, true),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::test_len;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    fn bits32(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn bits64(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn java_round_ties_up() {
        assert_eq!(java_round(2.5), 3);
        assert_eq!(java_round(-2.5), -2);
        assert_eq!(java_round(-2.500000001), -3);
        assert_eq!(java_round(0.49999999999999994), 0);
        assert_eq!(java_round(-0.5), 0);
        assert_eq!(java_round(f64::NAN), 0);
        assert_eq!(java_round(1e300), i64::MAX);
        assert_eq!(java_round(-1e300), i64::MIN);
    }

    #[test]
    fn powers_of_ten() {
        // Correctly rounded: exact up to 10^22, the nearest double above.
        assert_eq!(pow10(0), 1.0);
        assert_eq!(pow10(2), 100.0);
        assert_eq!(pow10(22), 1e22);
        assert_eq!(pow10(23), 1e23);
        assert_eq!(pow10(308), 1e308);
        for n in [309, 400, 401, 100_000, i32::MAX as u32] {
            assert_eq!(pow10(n), f64::INFINITY, "{n}");
        }
        // An mpn of 0, or negative as an i32, is scale 1.
        assert_eq!(scale_of(0), 1.0);
        assert_eq!(scale_of(u32::MAX), 1.0);
        assert_eq!(scale_of(1 << 31), 1.0);
        assert_eq!(scale_of(i32::MAX as u32), f64::INFINITY);
    }

    #[test]
    fn huge_max_point_numbers_scale_to_infinity() {
        // mpn 401 (91 03): every value scales to infinity, so the writer
        // rounds 2.0 and 3.0 (marker, count 2, scaled bitmap 00); a page
        // of scaled values under such an mpn reads back as zeros.
        let page = encode_f64(&[2.0, 3.0], Inner::Ts2Diff, 401);
        assert_eq!(&page[..9], &[0xff, 0xff, 0xff, 0xff, 0x07, 2, 0, 0x91, 0x03]);
        assert_eq!(decode_f64(&page, Inner::Ts2Diff, 2).unwrap().values, vec![2.0, 3.0]);
        let mut scaled = vec![0x91, 0x03];
        scaled.extend(ts2diff::encode_i64(&[5, -7], ts2diff::DEFAULT_BLOCK, false));
        let d = decode_f64(&scaled, Inner::Ts2Diff, 2).unwrap().values;
        assert_eq!(bits64(&d), bits64(&[0.0, -0.0]));
        // i32::MAX - 2 (the largest mpn that is no marker).
        let mut scaled = vec![0xfd, 0xff, 0xff, 0xff, 0x07];
        scaled.extend(ts2diff::encode_i32(&[5], ts2diff::DEFAULT_BLOCK, false));
        assert_eq!(decode_f32(&scaled, Inner::Ts2Diff, 2).unwrap().values, vec![0.0]);
    }

    #[test]
    fn known_answer_all_scaled() {
        // 150, 225, -1: deltas 75, -226 → min -226, packed 301, 0 in 9 bits:
        // 100101101 000000000 → 96 80 00.
        let page = encode_f32(&[1.5, 2.25, -0.01], Inner::Ts2Diff, 2);
        insta::assert_snapshot!(hex(&page), @"02 00 00 00 02 00 00 00 09 ff ff ff 1e 00 00 00 96 96 80 00");
        let d = decode_f32(&page, Inner::Ts2Diff, 3).unwrap();
        assert_eq!(bits32(&d.values), bits32(&[1.5, 2.25, -0.01]));
        assert_eq!(d.consumed, page.len());
        // maxPointNumber 0: a leading 00, values rounded to integers.
        let page = encode_f64(&[2.5, -2.5], Inner::Ts2Diff, 0);
        insta::assert_snapshot!(hex(&page), @"00 00 00 00 01 00 00 00 00 ff ff ff ff ff ff ff fb 00 00 00 00 00 00 00 03");
        assert_eq!(decode_f64(&page, Inner::Ts2Diff, 2).unwrap().values, vec![3.0, -2.0]);
    }

    #[test]
    fn known_answer_rounded_and_raw() {
        // 3e7 * 100 overflows an int, 3e7 does not: rounded. Scaled bitmap
        // marks value 0 only (LSB-first): 01.
        let page = encode_f32(&[1.0, 3.0e7], Inner::Ts2Diff, 2);
        insta::assert_snapshot!(hex(&page), @"ff ff ff ff 07 02 01 02 00 00 00 01 00 00 00 00 01 c9 c3 1c 00 00 00 64");
        assert_eq!(decode_f32(&page, Inner::Ts2Diff, 2).unwrap().values, vec![1.0, 3.0e7]);
        // NaN (any payload) and infinity are raw bits, 0.5 scaled: raw
        // bitmap 03, scaled bitmap 04.
        let v = [f32::from_bits(0x7FC0_0001), f32::NEG_INFINITY, 0.5];
        let page = encode_f32(&v, Inner::Ts2Diff, 2);
        assert_eq!(&page[..9], &[0xfe, 0xff, 0xff, 0xff, 0x07, 3, 0x04, 0x03, 2]);
        let d = decode_f32(&page, Inner::Ts2Diff, 3).unwrap();
        assert_eq!(bits32(&d.values), vec![0x7FC0_0000, 0xFF80_0000, 0x3F00_0000]);
        // Nine values: bitmaps of 9 / 8 + 1 = 2 bytes; eight: also 2.
        let page = encode_f64(&[f64::INFINITY; 8], Inner::Ts2Diff, 2);
        assert_eq!(&page[..10], &[0xfe, 0xff, 0xff, 0xff, 0x07, 8, 0, 0, 0xff, 0]);
        assert_eq!(page[10], 2);
        assert_eq!(
            decode_f64(&page, Inner::Ts2Diff, 8).unwrap().values,
            vec![f64::INFINITY; 8]
        );
    }

    #[test]
    fn stored_forms_at_the_limits() {
        assert_eq!(store_f32(2_147_483_648.0, 2), (Form::Rounded, i32::MAX));
        assert_eq!(store_f32(-2_147_483_648.0, 2), (Form::Rounded, i32::MIN));
        assert_eq!(store_f32(4_294_967_296.0, 2), (Form::Raw, 0x4F80_0000));
        assert_eq!(store_f32(21_474_836.0, 2), (Form::Scaled, 2_147_483_600));
        // MIN itself is in range (scaled); MAX is never hit exactly by a
        // FLOAT, so the next float up from 2^31 - 256 is the edge.
        assert_eq!(store_f32(-2_147_483_648.0, 0), (Form::Scaled, i32::MIN));
        assert_eq!(store_f32(2_147_483_520.0, 0), (Form::Scaled, 2_147_483_520));
        assert_eq!(store_f32(f32::NAN, 2), (Form::Raw, 0x7FC0_0000));
        assert_eq!(store_f32(-0.0, 2), (Form::Scaled, 0));
        assert_eq!(store_f32(f32::NAN, 0), (Form::Raw, 0x7FC0_0000));
        assert_eq!(store_f32(1.005, 2), (Form::Scaled, 100)); // 1.00499999523...
        assert_eq!(store_f64(9.3e18, 0), (Form::Raw, 9.3e18f64.to_bits() as i64));
        assert_eq!(store_f64(9.2e18, 0), (Form::Scaled, 9_200_000_000_000_000_000));
        assert_eq!(store_f64(9.2e18, 2), (Form::Rounded, 9_200_000_000_000_000_000));
        assert_eq!(store_f64(9_223_372_036_854_775_808.0, 0), (Form::Scaled, i64::MAX));
        // -2^63 scaled by 1 is MIN itself: in range. 2^63 scaled by 100 is
        // out of range, but 2^63 itself is not above 2^63: rounded, and
        // Math.round saturates it.
        assert_eq!(store_f64(-9_223_372_036_854_775_808.0, 0), (Form::Scaled, i64::MIN));
        assert_eq!(store_f64(9_223_372_036_854_775_808.0, 2), (Form::Rounded, i64::MAX));
        assert_eq!(store_f64(-9_223_372_036_854_775_808.0, 2), (Form::Rounded, i64::MIN));
        assert_eq!(store_f64(f64::MIN_POSITIVE, 2), (Form::Scaled, 0));
        assert_eq!(
            store_f64(f64::from_bits(0xFFF0_0000_0000_0001), 2),
            (Form::Raw, 0x7FF8_0000_0000_0000)
        );
    }

    #[test]
    fn edge_values_decode_as_the_java_reader_would() {
        let v32 = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NAN,
            21_474_836.47,
            2_147_483_648.0,
            1e-3,
        ];
        let page = encode_f32(&v32, Inner::Ts2Diff, 2);
        let got = decode_f32(&page, Inner::Ts2Diff, v32.len()).unwrap().values;
        let want: Vec<f32> = vec![
            0.0,
            0.0,
            1.0,
            -1.0,
            f32::MAX,
            f32::MIN,
            0.0,
            f32::INFINITY,
            f32::NAN,
            21_474_836.0,
            2_147_483_648.0,
            0.0,
        ];
        assert_eq!(bits32(&got), bits32(&want));
        let v64 = [
            0.0,
            -0.0,
            1.25,
            f64::MAX,
            f64::MIN,
            f64::NEG_INFINITY,
            f64::NAN,
            1e17,
            1e18,
            -9.2e18,
        ];
        let page = encode_f64(&v64, Inner::Ts2Diff, 2);
        let got = decode_f64(&page, Inner::Ts2Diff, v64.len()).unwrap().values;
        let want = [
            0.0,
            0.0,
            1.25,
            f64::MAX,
            f64::MIN,
            f64::NEG_INFINITY,
            f64::NAN,
            1e17,
            1e18,
            -9.2e18,
        ];
        assert_eq!(bits64(&got), bits64(&want));
        // Long constant runs and alternation across several blocks, with RLE too.
        let mut v: Vec<f64> = vec![12.34; 300];
        v.extend((0..300).map(|i| if i % 2 == 0 { -1e30 } else { 0.01 }));
        for inner in [Inner::Ts2Diff, Inner::Rle] {
            let page = encode_f64(&v, inner, 2);
            let d = decode_f64(&page, inner, v.len()).unwrap();
            assert_eq!(bits64(&d.values), bits64(&v));
            assert_eq!(d.consumed, page.len());
        }
    }

    #[test]
    fn rle_inner_known_answer() {
        // 1.5 and 1.5 at mpn 1 → 15, 15; fewer than 8 repeats are bit-packed:
        // package of 7 bytes, width 4, header 03 (one group), 2 values, then
        // one group of eight 4-bit values: ff 00 00 00.
        let page = encode_f32(&[1.5, 1.5], Inner::Rle, 1);
        insta::assert_snapshot!(hex(&page), @"01 07 04 03 02 ff 00 00 00");
        assert_eq!(decode_f32(&page, Inner::Rle, 2).unwrap().values, vec![1.5, 1.5]);
    }

    #[test]
    fn every_error_variant() {
        let tr = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
        let d32 = |p: &[u8], max| decode_f32(p, Inner::Ts2Diff, max);
        assert_eq!(d32(&[0x80], 9), Err(tr(Field::FloatHeader, 0)));
        assert_eq!(
            d32(&[0xff, 0xff, 0xff, 0xff, 0xff, 0], 9),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        assert_eq!(d32(&[0xff, 0xff, 0xff, 0xff, 0x07], 9), Err(tr(Field::FloatCount, 5)));
        assert_eq!(
            d32(&[0xff, 0xff, 0xff, 0xff, 0x07, 0, 0], 9),
            Err(DecodeError::BadCount {
                field: Field::FloatCount,
                count: 0,
                offset: 5
            })
        );
        assert_eq!(
            d32(&[0xff, 0xff, 0xff, 0xff, 0x07, 10, 0, 0, 2], 9),
            Err(DecodeError::TooManyValues { max: 9, offset: 5 })
        );
        assert_eq!(
            d32(&[0xff, 0xff, 0xff, 0xff, 0x07, 8, 0], 9),
            Err(tr(Field::FloatBitmap, 6))
        );
        assert_eq!(
            d32(&[0xfe, 0xff, 0xff, 0xff, 0x07, 2, 0], 9),
            Err(tr(Field::FloatBitmap, 7))
        );
        assert_eq!(
            d32(&[0xfe, 0xff, 0xff, 0xff, 0x07, 2, 0, 0], 9),
            Err(tr(Field::MaxPointNumber, 8))
        );
        // The inner stream's errors are at page offsets.
        assert_eq!(d32(&[2, 0, 0], 9), Err(tr(Field::WriteIndex, 1)));
        let page = encode_f32(&[1.0, 2.0, 3.0], Inner::Ts2Diff, 2);
        assert_eq!(d32(&page, 2), Err(DecodeError::TooManyValues { max: 2, offset: 1 }));
        let mut bad = page.clone();
        bad[8] = 40;
        assert_eq!(
            d32(&bad, 9),
            Err(DecodeError::BadBitWidth {
                width: 40,
                max: 32,
                offset: 5
            })
        );
        // A count that disagrees with the integer stream.
        let mut page = encode_f64(&[1.0, f64::INFINITY], Inner::Ts2Diff, 2);
        page[5] = 3;
        assert_eq!(
            decode_f64(&page, Inner::Ts2Diff, 9),
            Err(DecodeError::BadCount {
                field: Field::FloatCount,
                count: 3,
                offset: 5
            })
        );
        // RLE errors shift too.
        assert_eq!(
            decode_f64(&[2, 5, 1], Inner::Rle, 9).unwrap_err(),
            DecodeError::BadCount {
                field: Field::RleLength,
                count: 5,
                offset: 1
            }
        );
    }

    #[test]
    fn every_prefix_is_an_error_or_shorter() {
        let v = [1.0, f64::NAN, 1e10, 5.5, 1e300];
        for inner in [Inner::Ts2Diff, Inner::Rle] {
            let page = encode_f64(&v, inner, 2);
            for n in 0..page.len() {
                if let Ok(d) = decode_f64(&page[..n], inner, 9) {
                    assert!(d.values.len() < v.len() && d.consumed == n, "{inner:?} {n}");
                }
            }
            let page = encode_f32(&[1.0, 2.0, 3.5], inner, 2);
            for n in 0..page.len() {
                if let Ok(d) = decode_f32(&page[..n], inner, 9) {
                    assert!(d.values.len() < 3 && d.consumed == n);
                }
            }
        }
    }

    /// Bytes written by the official writer (PyPI `tsfile` 2.5.0, the C++
    /// library), as hex.
    use crate::tsfile::test_unhex as unhex;

    #[test]
    fn official_writer_pages() {
        // TS_2DIFF FLOAT / DOUBLE pages written by PyPI tsfile 2.5.0 (its
        // default maxPointNumber 2): all three forms.
        let f32_cases: [(&str, &[f32]); 3] = [
            (
                "02 00 00 00 02 00 00 00 09 ff ff ff 1e 00 00 00 96 96 80 00",
                &[1.5, 2.25, -0.01],
            ),
            (
                "ff ff ff ff 07 02 01 02 00 00 00 01 00 00 00 00 01 c9 c3 1c 00 00 00 64",
                &[1.0, 3.0e7],
            ),
            (
                "fe ff ff ff 07 03 06 01 02 00 00 00 02 00 00 00 1f 80 9e 4d b6 7f 61 b1 e6 00 00 00 01 fd 86 ce a0",
                &[3.0e38, -1.0, 2.5],
            ),
        ];
        for (hex, v) in f32_cases {
            let p = unhex(hex);
            assert_eq!(encode_f32(v, Inner::Ts2Diff, 2), p, "{hex}");
            assert_eq!(bits32(&decode_f32(&p, Inner::Ts2Diff, 9).unwrap().values), bits32(v));
        }
        // (0.125 is scaled to 12.5, rounded up to 13: it reads back as 0.13.)
        let f64_cases: [(&str, &[f64], &[f64]); 2] = [
            (
                "fe ff ff ff 07 04 0b 04 02 00 00 00 03 00 00 00 40 81 c8 1b c3 77 ff 8a 71 00 00 00 00 00 00 00 fa 7e 37 e4 3c 88 00 73 9b fc 6f c8 79 10 00 ec 25 00 00 00 00 00 00 00 00",
                &[2.5, -2.5, 1e300, 0.125],
                &[2.5, -2.5, 1e300, 0.13],
            ),
            (
                "fe ff ff ff 07 02 02 01 02 00 00 00 01 00 00 00 00 80 08 00 00 00 00 00 64 7f f8 00 00 00 00 00 00",
                &[f64::NAN, 1.0],
                &[f64::NAN, 1.0],
            ),
        ];
        for (hex, v, back) in f64_cases {
            let p = unhex(hex);
            assert_eq!(encode_f64(v, Inner::Ts2Diff, 2), p, "{hex}");
            assert_eq!(bits64(&decode_f64(&p, Inner::Ts2Diff, 9).unwrap().values), bits64(back));
        }
    }

    proptest! {
        /// Hundredths: scaled, and read back exactly.
        #[test]
        fn hundredths_round_trip(k in proptest::collection::vec(-1_000_000i64..1_000_000, 0..test_len(300)), rle: bool) {
            let inner = if rle { Inner::Rle } else { Inner::Ts2Diff };
            let v64: Vec<f64> = k.iter().map(|&k| k as f64 / 100.0).collect();
            let page = encode_f64(&v64, inner, 2);
            prop_assert_eq!(page.first().copied(), if k.is_empty() { None } else { Some(2) });
            let d = decode_f64(&page, inner, v64.len()).unwrap();
            prop_assert_eq!(bits64(&d.values), bits64(&v64));
            prop_assert_eq!(d.consumed, page.len());
            let v32: Vec<f32> = v64.iter().map(|&x| x as f32).collect();
            let page = encode_f32(&v32, inner, 2);
            prop_assert_eq!(bits32(&decode_f32(&page, inner, v32.len()).unwrap().values), bits32(&v32));
        }

        /// Any bit pattern: what comes back is what the stored form says.
        #[test]
        fn any_bits(b in proptest::collection::vec(any::<u64>(), 1..test_len(200)), mpn in 0u32..6) {
            // Exact powers of ten, not `powi`: Miri gives `powi` the error
            // a platform's libm may have.
            let scale = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5][mpn as usize];
            let v64: Vec<f64> = b.iter().map(|&x| f64::from_bits(x)).collect();
            let page = encode_f64(&v64, Inner::Ts2Diff, mpn);
            let got = decode_f64(&page, Inner::Ts2Diff, v64.len()).unwrap().values;
            for (g, &v) in got.iter().zip(&v64) {
                let want = match store_f64(v, mpn) {
                    (Form::Raw, s) => f64::from_bits(s as u64),
                    (Form::Rounded, s) => s as f64,
                    (Form::Scaled, s) => s as f64 / scale,
                };
                prop_assert_eq!(g.to_bits(), want.to_bits());
                // Infinite and huge values, and NaN (canonically), come back whole.
                if v.is_nan() {
                    prop_assert_eq!(g.to_bits(), 0x7FF8_0000_0000_0000);
                } else if v.abs() > 9.3e18 {
                    prop_assert_eq!(g.to_bits(), v.to_bits());
                }
            }
            let v32: Vec<f32> = b.iter().map(|&x| f32::from_bits(x as u32)).collect();
            let page = encode_f32(&v32, Inner::Ts2Diff, mpn);
            let got = decode_f32(&page, Inner::Ts2Diff, v32.len()).unwrap().values;
            for (g, &v) in got.iter().zip(&v32) {
                if v.is_nan() {
                    prop_assert_eq!(g.to_bits(), 0x7FC0_0000);
                } else if v.abs() > 2.2e9 {
                    prop_assert_eq!(g.to_bits(), v.to_bits());
                } else {
                    // Within half a unit of the last kept decimal (of the
                    // units digit when the scaled value overflowed).
                    let unit = match store_f32(v, mpn).0 {
                        Form::Scaled => 1.0 / scale,
                        _ => 1.0,
                    };
                    prop_assert!((*g as f64 - v as f64).abs() <= unit / 2.0 + (v as f64).abs() * 1e-7, "{} {}", v, g);
                }
            }
        }
    }
}
