//! TS_2DIFF and RLE pages of FLOAT and DOUBLE (the `FloatEncoder` wrapper):
//! the pages the writers write, at every maxPointNumber that changes the
//! scale's arithmetic, with values in every form (scaled, rounded, raw), and
//! headers damaged field by field.

use crate::engine::CaseRng;
use crate::engine::SliceDraw;
use crossdec_reference::tsfile::float_scaled::{self, Inner, MARK_RAW, MARK_ROUNDED};
use crossdec_reference::tsfile::write_uvarint;

use super::{DataType, Encoding, TsInput, Values};

/// maxPointNumbers: the writers' default most of the time; otherwise none,
/// a few, the last exact power of ten (22) and the first inexact one, one
/// past every double (an infinite scale) and one negative as an i32 (read
/// as scale 1).
fn max_point_number(rng: &mut CaseRng) -> u32 {
    if rng.gen_bool(0.6) {
        float_scaled::DEFAULT_MAX_POINT_NUMBER
    } else {
        *[0u32, 1, 3, 6, 10, 22, 23, 40, 309, 0x8000_0000, u32::MAX]
            .choose(rng)
            .unwrap()
    }
}

/// Whether pages of `dtype` in `encoding` go through the wrapper.
pub fn applies(encoding: Encoding, dtype: DataType) -> bool {
    matches!(encoding, Encoding::Ts2Diff | Encoding::Rle) && matches!(dtype, DataType::Float | DataType::Double)
}

pub fn inner_of(encoding: Encoding) -> Inner {
    match encoding {
        Encoding::Ts2Diff => Inner::Ts2Diff,
        Encoding::Rle => Inner::Rle,
        e => unreachable!("{e:?} has no FLOAT wrapper"),
    }
}

/// Round a value to `decimals` places, so that the scaled form gives it back
/// (the series have more digits than a sensor's readings).
fn quantized(x: f64, decimals: u32) -> f64 {
    // Parsed, not `powi`: correctly rounded on every target.
    let scale: f64 = format!("1e{decimals}").parse().expect("a float literal");
    (x * scale).round() / scale
}

/// A page of `values` as the Java writer writes it. Half the series are cut
/// to the page's decimals first, as sensor readings are.
pub fn page(rng: &mut CaseRng, encoding: Encoding, values: &Values) -> Vec<u8> {
    let inner = inner_of(encoding);
    let mpn = max_point_number(rng);
    let cut = rng.gen_bool(0.5) && mpn <= 22;
    match values {
        Values::Float(bits) => {
            let v: Vec<f32> = bits
                .iter()
                .map(|&b| {
                    let x = f32::from_bits(b);
                    if cut && x.is_finite() {
                        quantized(x as f64, mpn) as f32
                    } else {
                        x
                    }
                })
                .collect();
            float_scaled::encode_f32(&v, inner, mpn)
        }
        Values::Double(bits) => {
            let v: Vec<f64> = bits
                .iter()
                .map(|&b| {
                    let x = f64::from_bits(b);
                    if cut && x.is_finite() {
                        quantized(x, mpn)
                    } else {
                        x
                    }
                })
                .collect();
            float_scaled::encode_f64(&v, inner, mpn)
        }
        v => unreachable!("the FLOAT wrapper takes FLOAT and DOUBLE, not {:?}", v.dtype()),
    }
}

/// The header's length and, for a marked page, where its count is.
struct Layout {
    marked: bool,
    count_at: usize,
    bitmaps_at: usize,
    mpn_at: usize,
    stream_at: usize,
}

fn varint_len(page: &[u8], at: usize) -> usize {
    page[at..]
        .iter()
        .position(|b| b & 0x80 == 0)
        .map_or(page.len() - at, |i| i + 1)
}

fn layout(page: &[u8]) -> Layout {
    let tag_len = varint_len(page, 0);
    let tag = page[..tag_len]
        .iter()
        .rev()
        .fold(0u64, |v, b| (v << 7) | (b & 0x7F) as u64);
    if tag != MARK_ROUNDED as u64 && tag != MARK_RAW as u64 {
        return Layout {
            marked: false,
            count_at: 0,
            bitmaps_at: 0,
            mpn_at: 0,
            stream_at: tag_len,
        };
    }
    let count_at = tag_len;
    let count_len = varint_len(page, count_at);
    let count = page[count_at..count_at + count_len]
        .iter()
        .rev()
        .fold(0usize, |v, b| (v << 7) | (b & 0x7F) as usize);
    let bitmaps = (count / 8 + 1) * if tag == MARK_RAW as u64 { 2 } else { 1 };
    let bitmaps_at = count_at + count_len;
    let mpn_at = bitmaps_at + bitmaps;
    Layout {
        marked: true,
        count_at,
        bitmaps_at,
        mpn_at,
        stream_at: mpn_at + varint_len(page, mpn_at),
    }
}

fn varint(v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_uvarint(&mut out, v);
    out
}

/// Damage one field of a valid page's header, or the integer stream after it.
pub fn corrupt(rng: &mut CaseRng, input: &mut TsInput) {
    let page = &mut input.page;
    let l = layout(page);
    match rng.gen_range(0..8) {
        // A marker where the page had none: a count and bitmaps that the
        // integer stream does not back.
        0 if !l.marked => {
            let mark = if rng.gen() { MARK_RAW } else { MARK_ROUNDED };
            let mut head = varint(mark as u64);
            head.extend(varint(rng.gen_range(0..70)));
            page.splice(0..0, head);
        }
        // The count: zero, one off, past the caller's buffer, huge.
        1 if l.marked => {
            let count = *[
                0u64,
                input.max_values as u64 + 1,
                rng.gen_range(1..100),
                u32::MAX as u64,
                1 << 35,
            ]
            .choose(rng)
            .unwrap();
            page.splice(l.count_at..l.bitmaps_at, varint(count));
        }
        // The bitmaps: a form flipped (the page stays readable), or cut.
        2 if l.marked => {
            let at = rng.gen_range(l.bitmaps_at..l.mpn_at);
            page[at] ^= 1 << rng.gen_range(0..8);
        }
        3 if l.marked => page.truncate(rng.gen_range(l.bitmaps_at..l.mpn_at)),
        // The maxPointNumber: any value, an overlong or endless varint.
        4 => {
            let at = if l.marked { l.mpn_at } else { 0 };
            let end = at + varint_len(page, at);
            let new = match rng.gen_range(0..3) {
                0 => varint(rng.gen::<u32>() as u64),
                1 => vec![0xFF; rng.gen_range(1..7)],
                _ => vec![0x82, 0x80, 0x80, 0x80, 0x00],
            };
            page.splice(at..end, new);
        }
        // The integer stream: bit flips or a cut.
        5 | 6 if page.len() > l.stream_at => {
            for _ in 0..rng.gen_range(1..4) {
                let bit = rng.gen_range(l.stream_at * 8..page.len() * 8);
                page[bit / 8] ^= 0x80 >> (bit % 8);
            }
        }
        7 if page.len() > l.stream_at => page.truncate(rng.gen_range(l.stream_at..page.len())),
        _ => {
            let at = rng.gen_range(0..page.len());
            page[at] = rng.gen();
        }
    }
}

/// Counts that do not fit: a marked page counting more values than the
/// caller's buffer holds or than its stream has, or a stream of more values
/// than the count.
pub fn bad_counts(rng: &mut CaseRng, input: &mut TsInput) {
    let dtype = input.dtype;
    // Some infinity (a raw value) in every page, so every page is marked.
    let len = rng.gen_range(4..200);
    let inner = inner_of(input.encoding);
    let values: Vec<f64> = (0..len)
        .map(|i| if i % 7 == 3 { f64::INFINITY } else { i as f64 * 0.5 })
        .collect();
    let mut page = if dtype == DataType::Float {
        float_scaled::encode_f32(&values.iter().map(|&v| v as f32).collect::<Vec<_>>(), inner, 2)
    } else {
        float_scaled::encode_f64(&values, inner, 2)
    };
    let l = layout(&page);
    match rng.gen_range(0..3) {
        0 => input.max_values = rng.gen_range(0..len as u32),
        1 => {
            let count = if rng.gen() { len + rng.gen_range(1..50) } else { len - 1 };
            page.splice(l.count_at..l.bitmaps_at, varint(count as u64));
            input.max_values = (len + 60) as u32;
        }
        _ => {
            page.splice(l.count_at..l.bitmaps_at, varint(rng.gen_range(1u64 << 20..1 << 31)));
            input.max_values = rng.gen_range(0..(1u32 << 20));
        }
    }
    input.page = page;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_finds_every_field() {
        let page = float_scaled::encode_f32(&[1.0, f32::NAN, 3e9], Inner::Ts2Diff, 2);
        let l = layout(&page);
        assert!(l.marked);
        assert_eq!((l.count_at, l.bitmaps_at, l.mpn_at, l.stream_at), (5, 6, 8, 9));
        assert_eq!(page[l.mpn_at], 2);
        let page = float_scaled::encode_f64(&[1.0, 2.5], Inner::Rle, 3);
        let l = layout(&page);
        assert!(!l.marked);
        assert_eq!(l.stream_at, 1);
    }

    /// Pages cut to their decimals give the values back.
    #[test]
    fn sensor_readings_come_back() {
        let values = [12.34f64, -0.01, 1e6, 0.0];
        for inner in [Inner::Ts2Diff, Inner::Rle] {
            let page = float_scaled::encode_f64(&values, inner, 2);
            assert_eq!(
                float_scaled::decode_f64(&page, inner, 4).map(|d| d.values),
                Ok(values.to_vec())
            );
        }
    }

    #[test]
    fn bad_counts_are_refused() {
        let mut rng = CaseRng::seed_from_u64(5);
        for encoding in [Encoding::Ts2Diff, Encoding::Rle] {
            for dtype in [DataType::Float, DataType::Double] {
                for _ in 0..50 {
                    let mut input = TsInput {
                        encoding,
                        dtype,
                        stop: super::super::StopMode::AtTerminator,
                        writer: Default::default(),
                        max_values: 0,
                        page: Vec::new(),
                    };
                    bad_counts(&mut rng, &mut input);
                    let r = super::super::reference_decode(&input);
                    assert!(r.is_err(), "{input:?} gave {r:?}");
                }
            }
        }
    }
}
