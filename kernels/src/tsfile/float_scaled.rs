//! TS_2DIFF and RLE on FLOAT and DOUBLE: the writers' `FloatEncoder`
//! wrapper. A header (`maxPointNumber`, or a marker, the value count and
//! LSB-first bitmaps of each value's form) precedes an INT32 (FLOAT) or INT64
//! (DOUBLE) TS_2DIFF or RLE stream, which any registry kernel of those
//! encodings decodes: the integers land in the output buffer itself (an `f32`
//! and an `i32` have the same size and every bit pattern is valid in both)
//! and become floats in place, one pass that vectorizes when every value is
//! scaled and divides once per run of equal integers. Notes: `docs/reference/tsfile-encodings.md`.

use super::{uvarint32, DecodeError, Done, Field};

/// First varint of a page where some value was rounded and none is raw.
pub const MARK_ROUNDED: u32 = i32::MAX as u32;
/// First varint of a page where some value is stored as raw bits.
pub const MARK_RAW: u32 = i32::MAX as u32 - 1;

/// The INT32 decoder under a FLOAT page (a `ts2diff` or `rle` registry kernel).
pub type InnerI32 = fn(&[u8], &mut [i32]) -> Result<Done, DecodeError>;
/// The INT64 decoder under a DOUBLE page.
pub type InnerI64 = fn(&[u8], &mut [i64]) -> Result<Done, DecodeError>;

/// The form bitmaps of a marked page.
struct Forms<'a> {
    /// The page's value count and the offset of its varint.
    count: usize,
    count_at: usize,
    scaled: &'a [u8],
    raw: Option<&'a [u8]>,
}

struct Header<'a> {
    scale: f64,
    forms: Option<Forms<'a>>,
    /// Header bytes: the integer stream starts here.
    len: usize,
}

/// Powers of ten that are exact doubles.
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// `10^mpn`, correctly rounded (the format's rule), or 1 when `mpn` is `<= 0`
/// as an i32. Past 10^22 no product of exact doubles is correctly rounded
/// every time, so the float parser (which is) computes it; the writers use 2.
fn scale_of(mpn: u32) -> f64 {
    match mpn as i32 {
        n if n <= 0 => 1.0,
        n => EXACT_POW10
            .get(n as usize)
            .copied()
            .unwrap_or_else(|| format!("1e{n}").parse().unwrap_or(f64::INFINITY)),
    }
}

fn read_header(page: &[u8], max: usize) -> Result<Header<'_>, DecodeError> {
    if page.is_empty() {
        return Ok(Header {
            scale: 1.0,
            forms: None,
            len: 0,
        });
    }
    let (tag, mut at) = uvarint32(page, 0, Field::FloatHeader)?;
    if tag != MARK_ROUNDED && tag != MARK_RAW {
        return Ok(Header {
            scale: scale_of(tag),
            forms: None,
            len: at,
        });
    }
    let count_at = at;
    let (count, n) = uvarint32(page, at, Field::FloatCount)?;
    at += n;
    let count = count as usize;
    if count == 0 {
        return Err(DecodeError::BadCount {
            field: Field::FloatCount,
            count: 0,
            offset: count_at,
        });
    }
    if count > max {
        return Err(DecodeError::TooManyValues { max, offset: count_at });
    }
    // `count / 8 + 1` bytes, one more than needed when count % 8 == 0.
    let bitmap_len = count / 8 + 1;
    let bitmap = |at: &mut usize| {
        let bytes = page.get(*at..*at + bitmap_len).ok_or(DecodeError::Truncated {
            field: Field::FloatBitmap,
            offset: *at,
            bit: 0,
        })?;
        *at += bitmap_len;
        Ok::<_, DecodeError>(bytes)
    };
    let scaled = bitmap(&mut at)?;
    let raw = if tag == MARK_RAW { Some(bitmap(&mut at)?) } else { None };
    let (mpn, n) = uvarint32(page, at, Field::MaxPointNumber)?;
    Ok(Header {
        scale: scale_of(mpn),
        forms: Some(Forms {
            count,
            count_at,
            scaled,
            raw,
        }),
        len: at + n,
    })
}

impl Header<'_> {
    /// After a marker, the integer stream holds exactly the counted values.
    fn check_count(&self, decoded: usize) -> Result<(), DecodeError> {
        match &self.forms {
            Some(f) if f.count != decoded => Err(DecodeError::BadCount {
                field: Field::FloatCount,
                count: f.count as i64,
                offset: f.count_at,
            }),
            _ => Ok(()),
        }
    }
}

/// Values [`scale_all`] takes per step.
const SPAN: usize = 32;

/// `scaled(stored(x))` for every value, in place. A step of [`SPAN`] values
/// whose integers all equal the one before them (a run: what RLE pages are
/// made of) reuses that integer's float, so a run costs a compare per value
/// instead of a division.
#[inline(always)]
fn scale_all<F: Copy, I: Copy + PartialEq>(values: &mut [F], stored: impl Fn(F) -> I, scaled: impl Fn(I) -> F) {
    let Some(&first) = values.first() else { return };
    let mut last = stored(first);
    let mut last_float = scaled(last);
    for chunk in values.chunks_mut(SPAN) {
        // Every lane compared, none skipped: the test vectorizes.
        if chunk.iter().fold(true, |all, &x| all & (stored(x) == last)) {
            chunk.fill(last_float);
        } else {
            last = stored(chunk[chunk.len() - 1]);
            chunk.iter_mut().for_each(|x| *x = scaled(stored(*x)));
            last_float = chunk[chunk.len() - 1];
        }
    }
}

/// Every DOUBLE value `v` (its integer's bits) as `v as f64 / scale`, with
/// the widest vectors this CPU has. The division is most of a scaled
/// DOUBLE page's time: the x86-64 baseline divides two lanes at a time, and
/// where the CPU has FMA the quotient comes from the reciprocal instead
/// ([`divide_by_reciprocal`]), which pipelines where division does not.
fn scale_f64(values: &mut [f64], scale: f64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f") && has!("avx512dq") && has!("fma") {
            // SAFETY: the CPU has AVX-512F, AVX-512DQ and FMA, detected just above.
            return unsafe { scale_f64_avx512(values, scale) };
        }
        if has!("avx2") && has!("fma") {
            // SAFETY: the CPU has AVX2 and FMA, detected just above.
            return unsafe { scale_f64_avx2(values, scale) };
        }
    }
    scale_f64_portable(values, scale);
}

/// The DOUBLE scaling by division, for every CPU.
#[inline(always)]
fn scale_f64_portable(values: &mut [f64], scale: f64) {
    scale_all(values, stored_f64, |v| v as f64 / scale);
}

#[inline(always)]
fn stored_f64(x: f64) -> i64 {
    x.to_bits() as i64
}

/// The largest scale [`divide_by_reciprocal`] is used for: the exact
/// powers of ten. Past them (the writers use 10^2) the quotient is taken by
/// division, which also covers an infinite scale.
#[cfg(target_arch = "x86_64")]
const RECIPROCAL_MAX_SCALE: f64 = EXACT_POW10[22];

/// `a / b` correctly rounded, from `y = 1 / b` correctly rounded: `q = a * y`
/// is within an ulp of `a / b`, the remainder `a - q * b` is exact in one
/// fused multiply-add, and `q + remainder * y` rounds to the quotient
/// (Markstein's theorem). For finite `a` and `1 <= b <= 10^22` nothing
/// overflows or underflows on the way.
#[cfg(any(target_arch = "x86_64", test))]
#[inline(always)]
fn divide_by_reciprocal(a: f64, b: f64, y: f64) -> f64 {
    let q = a * y;
    let remainder = (-q).mul_add(b, a);
    remainder.mul_add(y, q)
}

/// The DOUBLE scaling for a CPU with FMA, its vectors as wide as the
/// target features of the function it is inlined into.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn scale_f64_fma(values: &mut [f64], scale: f64) {
    if scale <= RECIPROCAL_MAX_SCALE {
        let y = 1.0 / scale;
        scale_all(values, stored_f64, |v| divide_by_reciprocal(v as f64, scale, y));
    } else {
        scale_all(values, stored_f64, |v| v as f64 / scale);
    }
}

/// [`scale_f64_fma`] in 256-bit vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn scale_f64_avx2(values: &mut [f64], scale: f64) {
    scale_f64_fma(values, scale);
}

/// [`scale_f64_fma`] in 512-bit vectors, with packed conversions from
/// 64-bit integers (AVX-512DQ).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,fma")]
fn scale_f64_avx512(values: &mut [f64], scale: f64) {
    scale_f64_fma(values, scale);
}

#[inline(always)]
fn marked(bitmap: &[u8], i: usize) -> bool {
    bitmap[i / 8] & (1 << (i % 8)) != 0
}

/// Decode a FLOAT page whose integer stream `inner` decodes.
pub fn decode_f32_into(page: &[u8], inner: InnerI32, out: &mut [f32]) -> Result<Done, DecodeError> {
    let h = read_header(page, out.len())?;
    let ints = {
        let (ptr, len) = (out.as_mut_ptr().cast::<i32>(), out.len());
        // SAFETY: `f32` and `i32` have the same size and alignment and every
        // bit pattern is a valid value of both; the view borrows `out`
        // mutably for the inner call only, and nothing else reads `out`
        // meanwhile.
        unsafe { core::slice::from_raw_parts_mut(ptr, len) }
    };
    let done = inner(&page[h.len..], ints).map_err(|e| e.shifted(h.len))?;
    h.check_count(done.values)?;
    let values = &mut out[..done.values];
    let stored = |x: f32| x.to_bits() as i32;
    let scale = h.scale;
    match &h.forms {
        None => scale_all(values, stored, |v| (v as f64 / scale) as f32),
        Some(f) => {
            for (i, x) in values.iter_mut().enumerate() {
                let v = stored(*x);
                *x = if f.raw.is_some_and(|raw| marked(raw, i)) {
                    f32::from_bits(v as u32)
                } else if marked(f.scaled, i) {
                    (v as f64 / scale) as f32
                } else {
                    v as f64 as f32
                };
            }
        }
    }
    Ok(Done {
        values: done.values,
        consumed: h.len + done.consumed,
    })
}

/// Decode a DOUBLE page whose integer stream `inner` decodes.
pub fn decode_f64_into(page: &[u8], inner: InnerI64, out: &mut [f64]) -> Result<Done, DecodeError> {
    let h = read_header(page, out.len())?;
    let ints = {
        let (ptr, len) = (out.as_mut_ptr().cast::<i64>(), out.len());
        // SAFETY: `f64` and `i64` have the same size and alignment and every
        // bit pattern is a valid value of both; the view borrows `out`
        // mutably for the inner call only.
        unsafe { core::slice::from_raw_parts_mut(ptr, len) }
    };
    let done = inner(&page[h.len..], ints).map_err(|e| e.shifted(h.len))?;
    h.check_count(done.values)?;
    let values = &mut out[..done.values];
    let stored = stored_f64;
    let scale = h.scale;
    match &h.forms {
        None => scale_f64(values, scale),
        Some(f) => {
            for (i, x) in values.iter_mut().enumerate() {
                let v = stored(*x);
                *x = if f.raw.is_some_and(|raw| marked(raw, i)) {
                    f64::from_bits(v as u64)
                } else if marked(f.scaled, i) {
                    v as f64 / scale
                } else {
                    v as f64
                };
            }
        }
    }
    Ok(Done {
        values: done.values,
        consumed: h.len + done.consumed,
    })
}

/// A TS_2DIFF FLOAT page, with the best TS_2DIFF kernel this CPU has.
pub fn ts2diff_f32_into(page: &[u8], out: &mut [f32]) -> Result<Done, DecodeError> {
    decode_f32_into(page, super::ts2diff::decode_i32_into, out)
}

/// A TS_2DIFF DOUBLE page, with the best TS_2DIFF kernel this CPU has.
pub fn ts2diff_f64_into(page: &[u8], out: &mut [f64]) -> Result<Done, DecodeError> {
    decode_f64_into(page, super::ts2diff::decode_i64_into, out)
}

/// An RLE FLOAT page.
pub fn rle_f32_into(page: &[u8], out: &mut [f32]) -> Result<Done, DecodeError> {
    decode_f32_into(page, super::rle::decode_i32_into, out)
}

/// An RLE DOUBLE page.
pub fn rle_f64_into(page: &[u8], out: &mut [f64]) -> Result<Done, DecodeError> {
    decode_f64_into(page, super::rle::decode_i64_into, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of every length, ending at every offset of a step, and a value
    /// that differs anywhere in a step: each value is its own integer's
    /// quotient, as a division per value gives it.
    #[test]
    fn runs_reuse_their_quotient_and_nothing_else() {
        let scale = 100.0f64;
        let direct =
            |ints: &[i32]| -> Vec<u32> { ints.iter().map(|&v| ((v as f64 / scale) as f32).to_bits()).collect() };
        let via_scale_all = |ints: &[i32]| -> Vec<u32> {
            let mut values: Vec<f32> = ints.iter().map(|&v| f32::from_bits(v as u32)).collect();
            scale_all(&mut values, |x: f32| x.to_bits() as i32, |v| (v as f64 / scale) as f32);
            values.iter().map(|x| x.to_bits()).collect()
        };
        let mut pages: Vec<Vec<i32>> = Vec::new();
        for run in [1usize, 7, 31, 32, 33, 64, 100] {
            for len in [0usize, 1, 31, 32, 33, 95, 96, 97, 200] {
                pages.push((0..len).map(|i| (i / run) as i32 * 7 - 300).collect());
            }
        }
        for odd in 0..96 {
            let mut ints = vec![12345i32; 96];
            ints[odd] = -9;
            pages.push(ints);
        }
        for ints in &pages {
            assert_eq!(via_scale_all(ints), direct(ints), "{ints:?}");
        }
    }

    /// Integers of every magnitude: small ones, multiples of the scale and
    /// their neighbours (quotients near ties), values around 2^53 (where
    /// the conversion rounds) and the extremes.
    fn integers(scale: f64, count: usize) -> Vec<i64> {
        let mut next = crate::xorshift(0xD15C_07E5 ^ scale.to_bits());
        let mut ints = vec![0, 1, -1, 5, -5, i64::MAX, i64::MIN, (1 << 53) + 1, -(1 << 53) - 1];
        let unit = scale as i64;
        while ints.len() < count {
            let r = next();
            let bits = 1 + (r % 63) as u32;
            let v = (next() >> (64 - bits)) as i64;
            let v = if r & 64 == 0 { v } else { -v };
            ints.push(v);
            if unit > 1 {
                let m = (v / unit).wrapping_mul(unit);
                ints.extend([
                    m,
                    m.wrapping_add(unit / 2),
                    m.wrapping_add(unit / 2 + 1),
                    m.wrapping_sub(1),
                ]);
            }
        }
        ints
    }

    /// The reciprocal's quotient is the division's, bit for bit, for every
    /// scale it is used with.
    #[test]
    fn reciprocal_division_is_the_division() {
        let count = if cfg!(miri) { 20 } else { 20_000 };
        for scale in EXACT_POW10 {
            let y = 1.0 / scale;
            for v in integers(scale, count) {
                let a = v as f64;
                assert_eq!(
                    divide_by_reciprocal(a, scale, y).to_bits(),
                    (a / scale).to_bits(),
                    "{v} / {scale}"
                );
            }
        }
    }

    /// Every DOUBLE scaling this CPU can run gives the division's bits: the
    /// exact powers of ten, a scale past them, and an infinite one.
    #[test]
    fn every_double_scaling_is_the_division() {
        let count = if cfg!(miri) { 40 } else { 5_000 };
        let scales = EXACT_POW10.iter().copied().chain([1e23, 1e300, f64::INFINITY]);
        for scale in scales {
            let ints = integers(scale.min(1e18), count);
            let want: Vec<u64> = ints.iter().map(|&v| (v as f64 / scale).to_bits()).collect();
            let run = |f: &dyn Fn(&mut [f64])| -> Vec<u64> {
                let mut values: Vec<f64> = ints.iter().map(|&v| f64::from_bits(v as u64)).collect();
                f(&mut values);
                values.iter().map(|x| x.to_bits()).collect()
            };
            assert_eq!(run(&|v| scale_f64(v, scale)), want, "dispatched, scale {scale}");
            assert_eq!(run(&|v| scale_f64_portable(v, scale)), want, "portable, scale {scale}");
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::is_x86_feature_detected as has;
                if has!("avx2") && has!("fma") {
                    // SAFETY: the CPU has AVX2 and FMA, detected just above.
                    assert_eq!(
                        run(&|v| unsafe { scale_f64_avx2(v, scale) }),
                        want,
                        "avx2, scale {scale}"
                    );
                }
                if has!("avx512f") && has!("avx512dq") && has!("fma") {
                    // SAFETY: the CPU has AVX-512F, AVX-512DQ and FMA, detected just above.
                    assert_eq!(
                        run(&|v| unsafe { scale_f64_avx512(v, scale) }),
                        want,
                        "avx512, scale {scale}"
                    );
                }
            }
        }
    }

    fn f32s(page: &[u8], inner: InnerI32, max: usize) -> Result<(Vec<u32>, usize), DecodeError> {
        let mut out = vec![f32::from_bits(0xDEAD_BEEF); max];
        let done = decode_f32_into(page, inner, &mut out)?;
        assert!(
            out[done.values..].iter().all(|x| x.to_bits() == 0xDEAD_BEEF),
            "wrote past the values"
        );
        Ok((out[..done.values].iter().map(|x| x.to_bits()).collect(), done.consumed))
    }

    fn ts2diff32(page: &[u8], max: usize) -> Result<(Vec<u32>, usize), DecodeError> {
        f32s(page, super::super::ts2diff::decode_i32_into, max)
    }

    fn bits(values: &[f32]) -> Vec<u32> {
        values.iter().map(|x| x.to_bits()).collect()
    }

    /// A TS_2DIFF INT32 block: writeIndex, width 0, min delta, first value.
    fn block(first: i32, second: i32) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(1u32.to_be_bytes());
        b.extend(0u32.to_be_bytes());
        b.extend(second.wrapping_sub(first).to_be_bytes());
        b.extend(first.to_be_bytes());
        b
    }

    /// The notes' first example: every value scaled, mpn 2.
    #[test]
    fn every_value_scaled() {
        let page = [
            0x02, 0, 0, 0, 2, 0, 0, 0, 9, 0xff, 0xff, 0xff, 0x1e, 0, 0, 0, 0x96, 0x96, 0x80, 0,
        ];
        assert_eq!(ts2diff32(&page, 3), Ok((bits(&[1.5, 2.25, -0.01]), page.len())));
    }

    /// The notes' second example: a rounded value after a scaled one.
    #[test]
    fn rounded_after_scaled() {
        let mut page = vec![0xff, 0xff, 0xff, 0xff, 0x07, 0x02, 0x01, 0x02];
        page.extend(block(100, 30_000_000));
        assert_eq!(ts2diff32(&page, 2), Ok((bits(&[1.0, 3.0e7]), page.len())));
        // Had the second value been scaled, it would read 300000.
        page[6] = 0x03;
        assert_eq!(ts2diff32(&page, 2), Ok((bits(&[1.0, 300_000.0]), page.len())));
    }

    /// Raw bits win over the scaled bitmap; a value in neither is rounded.
    #[test]
    fn raw_rounded_and_scaled_forms() {
        let mut page = vec![0xfe, 0xff, 0xff, 0xff, 0x07, 0x02, 0b11, 0b10, 0x01];
        page.extend(block(25, 0x7F80_0000));
        assert_eq!(ts2diff32(&page, 4), Ok((bits(&[2.5, f32::INFINITY]), page.len())));
        page[6] = 0b00;
        page[7] = 0b00;
        assert_eq!(ts2diff32(&page, 4), Ok((bits(&[25.0, 0x7F80_0000 as f32]), page.len())));
    }

    #[test]
    fn doubles_through_rle() {
        // mpn 1, one RLE package: length 3, width 8, a run of 2 x 15.
        let page = [0x01, 0x03, 0x08, 0x04, 0x0f];
        let mut out = [0.0f64; 4];
        let done = decode_f64_into(&page, super::super::rle::decode_i64_into, &mut out).unwrap();
        assert_eq!(done, Done { values: 2, consumed: 5 });
        assert_eq!(out, [1.5, 1.5, 0.0, 0.0]);
    }

    /// A marked DOUBLE page: raw bits, scaled and rounded values.
    #[test]
    fn doubles_in_every_form() {
        let inf = 0x7FF0_0000_0000_0000i64;
        let mut page = vec![0xfe, 0xff, 0xff, 0xff, 0x07, 0x02, 0b01, 0b10, 0x01];
        page.extend(1u32.to_be_bytes());
        page.extend(0u32.to_be_bytes());
        page.extend(inf.wrapping_sub(15).to_be_bytes());
        page.extend(15i64.to_be_bytes());
        let decode = |page: &[u8]| {
            let mut out = [0.0f64; 3];
            let done = decode_f64_into(page, super::super::ts2diff::decode_i64_into, &mut out).unwrap();
            assert_eq!(
                done,
                Done {
                    values: 2,
                    consumed: page.len()
                }
            );
            out
        };
        assert_eq!(decode(&page), [1.5, f64::INFINITY, 0.0]);
        // Neither bitmap marks a value: both are rounded.
        page[6] = 0;
        page[7] = 0;
        assert_eq!(decode(&page), [15.0, inf as f64, 0.0]);
    }

    /// No values: an empty page, or one of only `mpn`.
    #[test]
    fn pages_without_values() {
        assert_eq!(ts2diff32(&[], 0), Ok((vec![], 0)));
        assert_eq!(ts2diff32(&[0x02], 5), Ok((vec![], 1)));
    }

    #[test]
    fn header_errors_name_their_field_and_offset() {
        let marked = |count: u8| vec![0xff, 0xff, 0xff, 0xff, 0x07, count];
        assert_eq!(
            ts2diff32(&marked(0), 9),
            Err(DecodeError::BadCount {
                field: Field::FloatCount,
                count: 0,
                offset: 5
            })
        );
        assert_eq!(
            ts2diff32(&marked(3), 2),
            Err(DecodeError::TooManyValues { max: 2, offset: 5 })
        );
        // Eight values take two bitmap bytes.
        let mut page = marked(8);
        page.push(0xff);
        assert_eq!(
            ts2diff32(&page, 8),
            Err(DecodeError::Truncated {
                field: Field::FloatBitmap,
                offset: 6,
                bit: 0
            })
        );
        // The raw bitmap follows the scaled one.
        let page = [0xfe, 0xff, 0xff, 0xff, 0x07, 0x01, 0x01];
        assert_eq!(
            ts2diff32(&page, 1),
            Err(DecodeError::Truncated {
                field: Field::FloatBitmap,
                offset: 7,
                bit: 0
            })
        );
        let page = [0xff, 0xff, 0xff, 0xff, 0x07, 0x01, 0x01];
        assert_eq!(
            ts2diff32(&page, 1),
            Err(DecodeError::Truncated {
                field: Field::MaxPointNumber,
                offset: 7,
                bit: 0
            })
        );
        assert_eq!(
            ts2diff32(&[0x80], 1),
            Err(DecodeError::Truncated {
                field: Field::FloatHeader,
                offset: 0,
                bit: 0
            })
        );
        assert_eq!(
            ts2diff32(&[0xff, 0xff, 0xff, 0xff, 0x07, 0x80], 1),
            Err(DecodeError::Truncated {
                field: Field::FloatCount,
                offset: 5,
                bit: 0
            })
        );
    }

    /// The stream must hold exactly the counted values, and its errors are at
    /// page offsets.
    #[test]
    fn stream_count_and_stream_errors() {
        let mut page = vec![0xff, 0xff, 0xff, 0xff, 0x07, 0x03, 0x01, 0x02];
        page.extend(block(1, 2));
        assert_eq!(
            ts2diff32(&page, 3),
            Err(DecodeError::BadCount {
                field: Field::FloatCount,
                count: 3,
                offset: 5
            })
        );
        let page = [0x02, 0, 0, 0];
        assert!(matches!(
            ts2diff32(&page, 3),
            Err(DecodeError::Truncated { offset: 1, .. })
        ));
    }

    #[test]
    fn scale_is_a_correctly_rounded_power_of_ten() {
        assert_eq!(scale_of(0), 1.0);
        assert_eq!(scale_of(0x8000_0000), 1.0);
        assert_eq!(scale_of(u32::MAX), 1.0);
        assert_eq!(scale_of(2), 100.0);
        assert_eq!(scale_of(22), 1e22);
        assert_eq!(scale_of(23), 1e23);
        assert_eq!(scale_of(308), 1e308);
        assert_eq!(scale_of(309), f64::INFINITY);
    }
}
