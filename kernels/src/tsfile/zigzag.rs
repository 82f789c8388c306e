//! ZIGZAG (encoding id 9) for INT32 and INT64, from `docs/reference/tsfile-encodings.md`.
//! A page is a sequence of groups until its bytes end:
//! `uvarint byteLength | uvarint count | count LEB128 varints of zigzag(v)`.
//!
//! Every kernel starts with the byte loop, which decodes a varint or
//! reports why it cannot, and hands the varints after it to its own reader
//! (`varint.rs`), which decodes only what it can prove well formed and
//! leaves the rest to the byte loop:
//!
//! - `zigzag/bmi2-blocks` (x86-64 with BMI2) finds the ends of every varint
//!   in 64 bytes at once and packs each varint's groups with one `pext`;
//!   no varint waits on the length of the one before.
//! - `zigzag/runs` decodes four varints per step while they have the length
//!   of the one before; after a step that fails at once it takes a few
//!   varints a byte at a time before it guesses again.
//! - `zigzag/bytewise` is the byte loop alone: the writers' pages hold runs
//!   of varints of one length, which the branches predict, so the next
//!   varint's start is speculated rather than waited for.

use super::varint::{unzigzag, zigzag_run};
#[cfg(target_arch = "x86_64")]
use super::varint::{zigzag_avx512, zigzag_blocks};
use super::{uvarint32, DecodeError, Done, Field, IntLane};
use crate::probe::{NoProbe, Probe, Step};

/// One varint of a `W`-bit value starting at `at`, read a byte at a time,
/// in the group `data[..end]`. Returns (pattern, bytes).
#[inline]
fn varint_bytewise<const W: u32>(data: &[u8], at: usize, end: usize) -> Result<(u64, usize), DecodeError> {
    let most = if W == 32 { 5 } else { 10 };
    let mut v: u64 = 0;
    for i in 0..most {
        let Some(&b) = data[..end].get(at + i) else {
            return Err(DecodeError::Truncated {
                field: Field::ZigzagValue,
                offset: at,
                bit: 0,
            });
        };
        // The tenth byte of a 64-bit varint holds only bit 63 (and no
        // continuation).
        if W == 64 && i == 9 && b > 1 {
            return Err(DecodeError::BadVarint { offset: at });
        }
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            if W == 32 && v > u64::from(u32::MAX) {
                return Err(DecodeError::BadVarint { offset: at });
            }
            return Ok((v, i + 1));
        }
    }
    Err(DecodeError::BadVarint { offset: at })
}

/// How [`decode`] takes the varints its byte loop does not: none (every
/// varint a byte at a time), runs of one length four per step
/// ([`zigzag_run`]), or 64 bytes at a time with `pext` (`zigzag_blocks`).
const BYTEWISE: u8 = 0;
const RUNS: u8 = 1;
#[cfg(target_arch = "x86_64")]
const BLOCKS: u8 = 2;
#[cfg(target_arch = "x86_64")]
const AVX512: u8 = 3;

/// Varints a byte at a time after a run that failed at its first step
/// (the lengths are mixed there), before a run is tried again.
const BACKOFF: u32 = 16;

/// Decode the groups of `page` into `out` (its length is the most values
/// accepted).
#[inline(always)]
fn decode<const W: u32, const FAST: u8, T: IntLane, P: Probe>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut n = 0usize;
    let mut pos = 0usize;
    while pos < page.len() {
        let group = pos;
        let (len, k) = uvarint32(page, pos, Field::ZigzagLength)?;
        pos += k;
        let count_at = pos;
        let (count, k) = uvarint32(page, pos, Field::ZigzagCount)?;
        pos += k;
        let (len, count) = (len as usize, count as usize);
        if len > page.len() - pos {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: len as i64,
                offset: group,
            });
        }
        // Every value takes at least one byte.
        if count == 0 || count > len {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagCount,
                count: count as i64,
                offset: count_at,
            });
        }
        if count > max - n {
            return Err(DecodeError::TooManyValues { max, offset: group });
        }
        let end = pos + len;
        let target = n + count;
        let mut wait = 0;
        while n < target {
            let (v, k) = varint_bytewise::<W>(page, pos, end)?;
            out[n] = T::from_bits(unzigzag(v));
            n += 1;
            pos += k;
            let (m, after) = match FAST {
                RUNS if wait > 0 => {
                    wait -= 1;
                    (0, pos)
                }
                RUNS => {
                    P::count(Step::ZigzagRunTried, 1);
                    let (m, after) = zigzag_run::<W, T>(k, page, pos, end, &mut out[n..target]);
                    if m == 0 {
                        wait = BACKOFF;
                    }
                    (m, after)
                }
                #[cfg(target_arch = "x86_64")]
                BLOCKS => zigzag_blocks::<W, T>(page, pos, end, &mut out[n..target]),
                // SAFETY: `FAST` is `AVX512` only in `decode_avx512`, which
                // callers enter after `avx512` found the CPU features;
                // `T` is `W` bits wide in every instance.
                #[cfg(target_arch = "x86_64")]
                AVX512 => unsafe { zigzag_avx512::<W, T>(page, pos, end, &mut out[n..target]) },
                _ => (0, pos),
            };
            P::count(Step::ZigzagFastValue, m);
            n += m;
            pos = after;
        }
        // Bytes left in the group: its length and its count disagree.
        if pos != end {
            return Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: len as i64,
                offset: group,
            });
        }
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// INT32 values, runs of one length four at a time.
pub fn decode_i32_runs_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, RUNS, i32, NoProbe>(page, out)
}

/// INT64 values, runs of one length four at a time.
pub fn decode_i64_runs_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, RUNS, i64, NoProbe>(page, out)
}

/// INT32 values, a byte at a time.
pub fn decode_i32_bytewise_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, BYTEWISE, i32, NoProbe>(page, out)
}

/// INT64 values, a byte at a time.
pub fn decode_i64_bytewise_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, BYTEWISE, i64, NoProbe>(page, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn decode_blocks<const W: u32, T: IntLane, P: Probe>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    decode::<W, BLOCKS, T, P>(page, out)
}

#[cfg(target_arch = "x86_64")]
fn bmi2() -> bool {
    std::is_x86_feature_detected!("bmi2")
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,lzcnt,popcnt")]
fn decode_avx512<const W: u32, T: IntLane, P: Probe>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    decode::<W, AVX512, T, P>(page, out)
}

/// Whether this CPU has what `zigzag/avx512-vbmi2` runs on.
#[cfg(target_arch = "x86_64")]
fn avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512vbmi")
        && std::is_x86_feature_detected!("avx512vbmi2")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("popcnt")
}

/// Whether this CPU runs `pext` in microcode (tens of cycles where Intel
/// and later AMD take three): AMD and Hygon before Zen 3. The default entry
/// points take `zigzag/runs` there; the registry still offers
/// `zigzag/bmi2-blocks`, which is right there too, only slower.
fn pext_is_slow() -> bool {
    #[cfg(target_arch = "x86_64")]
    // Rust before 1.90 declares `__cpuid` unsafe; later ones, safe.
    #[allow(unused_unsafe)]
    // SAFETY: every x86-64 CPU has CPUID, leaves 0 and 1 among them.
    let (vendor, leaf1) = unsafe { (core::arch::x86_64::__cpuid(0), core::arch::x86_64::__cpuid(1)) };
    #[cfg(target_arch = "x86_64")]
    {
        let name = [vendor.ebx, vendor.edx, vendor.ecx].map(u32::to_le_bytes).concat();
        microcoded_pext(&name, leaf1.eax)
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// [`pext_is_slow`] for a CPUID vendor string and leaf-1 EAX: the family
/// is the base family, plus the extended family when the base is 0xF;
/// Zen 3 is family 0x19.
#[cfg(target_arch = "x86_64")]
fn microcoded_pext(vendor: &[u8], eax: u32) -> bool {
    let base = (eax >> 8) & 0xF;
    let family = if base == 0xF { base + ((eax >> 20) & 0xFF) } else { base };
    matches!(vendor, b"AuthenticAMD" | b"HygonGenuine") && family < 0x19
}

/// INT32 values, 64 bytes at a time with BMI2's `pext`. Panics on a CPU
/// without BMI2 (the registry offers it only where the CPU has it).
#[cfg(target_arch = "x86_64")]
pub fn decode_i32_bmi2_blocks_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    assert!(bmi2(), "zigzag/bmi2-blocks needs BMI2");
    // SAFETY: the CPU has BMI2, checked above.
    unsafe { decode_blocks::<32, i32, NoProbe>(page, out) }
}

/// INT64 values, 64 bytes at a time with BMI2's `pext`. Panics on a CPU
/// without BMI2.
#[cfg(target_arch = "x86_64")]
pub fn decode_i64_bmi2_blocks_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    assert!(bmi2(), "zigzag/bmi2-blocks needs BMI2");
    // SAFETY: the CPU has BMI2, checked above.
    unsafe { decode_blocks::<64, i64, NoProbe>(page, out) }
}

/// INT32 values, eight varints per AVX-512 vector. Panics on a CPU without
/// AVX-512 VBMI2 (the registry offers it only where the CPU has it).
#[cfg(target_arch = "x86_64")]
pub fn decode_i32_avx512_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    assert!(avx512(), "zigzag/avx512-vbmi2 needs AVX-512 VBMI2");
    // SAFETY: the CPU has the features, checked above.
    unsafe { decode_avx512::<32, i32, NoProbe>(page, out) }
}

/// INT64 values, eight varints per AVX-512 vector. Panics on a CPU without
/// AVX-512 VBMI2.
#[cfg(target_arch = "x86_64")]
pub fn decode_i64_avx512_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    assert!(avx512(), "zigzag/avx512-vbmi2 needs AVX-512 VBMI2");
    // SAFETY: the CPU has the features, checked above.
    unsafe { decode_avx512::<64, i64, NoProbe>(page, out) }
}

/// INT32 values with the best implementation this CPU runs: the registry's
/// first, except `zigzag/runs` where `pext` is microcoded (AMD and Hygon
/// before Zen 3).
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    static CHOSEN: std::sync::OnceLock<DecodeI32> = std::sync::OnceLock::new();
    CHOSEN.get_or_init(|| {
        if pext_is_slow() {
            decode_i32_runs_into
        } else {
            crate::best(IMPLEMENTATIONS_I32)
        }
    })(page, out)
}

/// INT64 values with the best implementation this CPU runs (as INT32).
pub fn decode_i64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    static CHOSEN: std::sync::OnceLock<DecodeI64> = std::sync::OnceLock::new();
    CHOSEN.get_or_init(|| {
        if pext_is_slow() {
            decode_i64_runs_into
        } else {
            crate::best(IMPLEMENTATIONS_I64)
        }
    })(page, out)
}

pub type DecodeI32 = fn(&[u8], &mut [i32]) -> Result<Done, DecodeError>;
pub type DecodeI64 = fn(&[u8], &mut [i64]) -> Result<Done, DecodeError>;

/// INT32 implementations, best first.
pub static IMPLEMENTATIONS_I32: &[crate::Implementation<DecodeI32>] = &[
    #[cfg(target_arch = "x86_64")]
    crate::Implementation::new("zigzag/avx512-vbmi2", avx512, decode_i32_avx512_into),
    #[cfg(not(target_arch = "x86_64"))]
    crate::Implementation::absent("zigzag/avx512-vbmi2"),
    #[cfg(target_arch = "x86_64")]
    crate::Implementation::new("zigzag/bmi2-blocks", bmi2, decode_i32_bmi2_blocks_into),
    #[cfg(not(target_arch = "x86_64"))]
    crate::Implementation::absent("zigzag/bmi2-blocks"),
    crate::Implementation::portable("zigzag/runs", decode_i32_runs_into),
    crate::Implementation::portable("zigzag/bytewise", decode_i32_bytewise_into),
];

/// INT64 implementations, best first (as INT32).
pub static IMPLEMENTATIONS_I64: &[crate::Implementation<DecodeI64>] = &[
    #[cfg(target_arch = "x86_64")]
    crate::Implementation::new("zigzag/avx512-vbmi2", avx512, decode_i64_avx512_into),
    #[cfg(not(target_arch = "x86_64"))]
    crate::Implementation::absent("zigzag/avx512-vbmi2"),
    #[cfg(target_arch = "x86_64")]
    crate::Implementation::new("zigzag/bmi2-blocks", bmi2, decode_i64_bmi2_blocks_into),
    #[cfg(not(target_arch = "x86_64"))]
    crate::Implementation::absent("zigzag/bmi2-blocks"),
    crate::Implementation::portable("zigzag/runs", decode_i64_runs_into),
    crate::Implementation::portable("zigzag/bytewise", decode_i64_bytewise_into),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::test_leb128 as leb;
    use crate::tsfile::varint::STEP;

    /// A group whose bytes hold more varints than its count: the group's
    /// length check refuses the rest.
    #[test]
    fn more_varints_than_the_count_are_refused() {
        for (count, bytes) in [(15usize, 16usize), (16, 17), (16, 32), (1, 16), (100, 250), (127, 400)] {
            let mut page = Vec::new();
            leb(bytes as u64, &mut page);
            leb(count as u64, &mut page);
            page.extend(std::iter::repeat_n(0x02, bytes));
            let want = Err(DecodeError::BadCount {
                field: Field::ZigzagLength,
                count: bytes as i64,
                offset: 0,
            });
            for decode in i32s() {
                assert_eq!(decode(&page, &mut [0; 128]), want, "{count} in {bytes} bytes");
            }
        }
    }

    /// Every kernel this CPU runs, and the byte loop they fall back to.
    fn i32s() -> Vec<DecodeI32> {
        let mut all: Vec<DecodeI32> = IMPLEMENTATIONS_I32.iter().filter_map(|i| i.get().ok()).collect();
        all.push(decode_i32_bytewise_into);
        all
    }
    fn i64s() -> Vec<DecodeI64> {
        let mut all: Vec<DecodeI64> = IMPLEMENTATIONS_I64.iter().filter_map(|i| i.get().ok()).collect();
        all.push(decode_i64_bytewise_into);
        all
    }

    /// The notes' example, and a long group of one-byte varints (the
    /// eight-at-a-time step) with its tail.
    #[test]
    fn known_answers() {
        let page = [0x0a, 0x05, 0x00, 0x01, 0x02, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f];
        for f in i32s() {
            let mut out = [0i32; 5];
            assert_eq!(
                f(&page, &mut out),
                Ok(Done {
                    values: 5,
                    consumed: 12
                })
            );
            assert_eq!(out, [0, -1, 1, 64, i32::MIN]);
        }
        // -1, 1, -2, 2, ... as 01 02 03 04 ...
        let mut page = vec![21, 21];
        page.extend(1..=21u8);
        for f in i64s() {
            let mut out = [0i64; 21];
            assert_eq!(
                f(&page, &mut out),
                Ok(Done {
                    values: 21,
                    consumed: 23
                })
            );
            let want: Vec<i64> = (1..=21i64).map(|u| (u >> 1) ^ -(u & 1)).collect();
            assert_eq!(out.to_vec(), want);
        }
    }

    /// Varints of every length in the middle of a long group (word path)
    /// and at its end (byte path) decode the same; the 64-bit extremes take
    /// nine and ten bytes.
    #[test]
    fn every_varint_length_on_both_paths() {
        let values = [
            0i64,
            -64,
            8191,
            -1_048_577,
            i32::MIN as i64,
            1 << 40,
            -(1 << 55),
            1 << 62,
            i64::MIN,
            i64::MAX,
        ];
        let mut body = Vec::new();
        let mut want = Vec::new();
        for _ in 0..3 {
            for &v in &values {
                crate::tsfile::test_leb128(((v << 1) ^ (v >> 63)) as u64, &mut body);
                want.push(v);
            }
        }
        let mut page = Vec::new();
        for v in [body.len(), want.len()] {
            crate::tsfile::test_leb128(v as u64, &mut page);
        }
        page.extend(&body);
        for f in i64s() {
            let mut out = vec![0i64; want.len()];
            assert_eq!(
                f(&page, &mut out),
                Ok(Done {
                    values: want.len(),
                    consumed: page.len()
                })
            );
            assert_eq!(out, want);
        }
    }

    #[test]
    fn refused_varints_and_groups() {
        let bad = |offset| Err(DecodeError::BadVarint { offset });
        // A 32-bit varint with a fifth byte above u32::MAX, and one of six
        // bytes, each with more bytes after it in the group.
        let mut page = vec![20, 1, 0xff, 0xff, 0xff, 0xff, 0x1f];
        page.extend([0; 15]);
        let mut six = vec![20, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        six.extend([0; 14]);
        for f in i32s() {
            let mut out = [0i32; 9];
            assert_eq!(f(&page, &mut out), bad(2));
            assert_eq!(f(&six, &mut out), bad(2));
            assert_eq!(
                f(&[2, 2, 0, 0x80, 0], &mut out),
                Err(DecodeError::Truncated {
                    field: Field::ZigzagValue,
                    offset: 3,
                    bit: 0
                })
            );
        }
        // A 64-bit tenth byte above 1, at the group's end and before more
        // bytes.
        for tail in [0usize, 8] {
            let mut page = vec![10 + tail as u8, 1];
            page.extend([0x80; 9]);
            page.push(0x02);
            page.extend(std::iter::repeat_n(0, tail));
            for f in i64s() {
                let mut out = [0i64; 9];
                assert_eq!(f(&page, &mut out), bad(2), "tail {tail}");
            }
        }
        for f in i64s() {
            let mut out = [0i64; 1];
            // Count 0, count above the length, length past the page, leftovers.
            let count = |count, offset| {
                Err(DecodeError::BadCount {
                    field: Field::ZigzagCount,
                    count,
                    offset,
                })
            };
            let length = |count| {
                Err(DecodeError::BadCount {
                    field: Field::ZigzagLength,
                    count,
                    offset: 0,
                })
            };
            assert_eq!(f(&[1, 0, 0], &mut out), count(0, 1));
            assert_eq!(f(&[1, 2, 0, 0], &mut out), count(2, 1));
            assert_eq!(f(&[3, 1, 0, 0], &mut out), length(3));
            assert_eq!(f(&[2, 1, 0, 0], &mut out), length(2));
            // A second group that does not fit the output.
            assert_eq!(
                f(&[1, 1, 0, 1, 1, 0], &mut out),
                Err(DecodeError::TooManyValues { max: 1, offset: 3 })
            );
        }
    }

    /// One group of the zigzag varints of `values` (64-bit patterns).
    fn group(values: &[u64]) -> Vec<u8> {
        let mut body = Vec::new();
        for &u in values {
            leb(u, &mut body);
        }
        let mut page = Vec::new();
        leb(body.len() as u64, &mut page);
        leb(values.len() as u64, &mut page);
        page.extend(body);
        page
    }

    /// A pattern of `bits` significant bits, from `x`.
    fn of_bits(x: u64, bits: u32) -> u64 {
        if bits == 0 {
            0
        } else {
            (x >> (64 - bits)) | 1 << (bits - 1)
        }
    }

    proptest::proptest! {
        // Under Miri a case takes seconds.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 }))]

        /// Pages of varints of mixed lengths (every length a width takes,
        /// long enough for the 64-byte blocks) decode the same with every
        /// kernel as with the byte loop, whole and with an output too short.
        #[test]
        fn mixed_lengths_agree_with_the_byte_loop(
            xs in proptest::collection::vec((proptest::prelude::any::<u64>(), 0u32..=64), 1..400),
            short in 0usize..400,
        ) {
            let p64: Vec<u64> = xs.iter().map(|&(x, b)| of_bits(x, b)).collect();
            let p32: Vec<u64> = xs.iter().map(|&(x, b)| of_bits(x, b.min(32))).collect();
            for (page, wide) in [(group(&p32), false), (group(&p64), true)] {
                for max in [xs.len(), short.min(xs.len())] {
                    if wide {
                        let want = decode_i64_bytewise_into(&page, &mut vec![0; max]);
                        for f in i64s() {
                            let mut out = vec![0i64; max];
                            let got = f(&page, &mut out);
                            proptest::prop_assert_eq!(got, want.clone());
                            let mut bytewise = vec![0i64; max];
                            let _ = decode_i64_bytewise_into(&page, &mut bytewise);
                            proptest::prop_assert_eq!(out, bytewise);
                        }
                    } else {
                        let want = decode_i32_bytewise_into(&page, &mut vec![0; max]);
                        for f in i32s() {
                            let mut out = vec![0i32; max];
                            let got = f(&page, &mut out);
                            proptest::prop_assert_eq!(got, want.clone());
                            let mut bytewise = vec![0i32; max];
                            let _ = decode_i32_bytewise_into(&page, &mut bytewise);
                            proptest::prop_assert_eq!(out, bytewise);
                        }
                    }
                }
            }
        }
    }

    /// A malformed varint deep in a long page, at every offset within a
    /// 64-byte block: every kernel reports what the byte loop reports, at
    /// the same offset.
    #[test]
    fn malformed_varints_inside_blocks_are_reported_where_they_are() {
        // 32-bit: a fifth byte above 0x0F, a sixth byte.
        let bad32: [&[u8]; 3] = [
            &[0xFF, 0xFF, 0xFF, 0xFF, 0x10],
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
        ];
        // 64-bit: a tenth byte above 1, an eleventh byte.
        let bad64: [&[u8]; 2] = [
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02],
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
        ];
        // Under Miri, every ninth offset: the interpreter is slow.
        for lead in (0..70usize).step_by(if cfg!(miri) { 9 } else { 1 }) {
            for (wide, bad) in bad32.iter().map(|b| (false, b)).chain(bad64.iter().map(|b| (true, b))) {
                let mut body: Vec<u8> = (0..lead).map(|i| (i % 100) as u8).collect();
                body.extend_from_slice(bad);
                body.extend((0..100).map(|i| (i % 100) as u8 + 1));
                let count = lead + 101;
                let mut page = Vec::new();
                leb(body.len() as u64, &mut page);
                leb(count as u64, &mut page);
                let at = page.len() + lead;
                page.extend(&body);
                let want = Err(DecodeError::BadVarint { offset: at });
                if wide {
                    for f in i64s() {
                        assert_eq!(f(&page, &mut vec![0; count]), want, "64-bit {bad:02x?} after {lead}");
                    }
                } else {
                    for f in i32s() {
                        assert_eq!(f(&page, &mut vec![0; count]), want, "32-bit {bad:02x?} after {lead}");
                    }
                }
            }
        }
    }

    /// A group's last varint that runs on past the group's end (into the
    /// bytes of the next) is truncated, wherever the group ends in a block.
    #[test]
    fn a_varint_past_its_groups_end_is_truncated() {
        let counts = (1..120usize).step_by(if cfg!(miri) { 7 } else { 1 });
        for (count, width) in counts.flat_map(|c| [(c, 1), (c, 2)]) {
            let mut body: Vec<u8> = Vec::new();
            for i in 0..count - 1 {
                if width == 2 {
                    body.push(0x81 + (i % 100) as u8);
                }
                body.push((i % 100) as u8);
            }
            body.push(0x81);
            let mut page = Vec::new();
            leb(body.len() as u64, &mut page);
            leb(count as u64, &mut page);
            let at = page.len() + body.len() - 1;
            page.extend(&body);
            // The next group: its length byte ends the varint above.
            page.extend(group(&(0..100).collect::<Vec<u64>>()));
            let want = Err(DecodeError::Truncated {
                field: Field::ZigzagValue,
                offset: at,
                bit: 0,
            });
            for f in i64s() {
                assert_eq!(
                    f(&page, &mut vec![0; count + 100]),
                    want,
                    "count {count} of {width} bytes"
                );
            }
        }
    }

    /// How many values of `page` a kernel's own reader decoded (not the
    /// byte loop), and how many runs `zigzag/runs` tried.
    fn fast_values(page: &[u8], n: usize, blocks: bool) -> (usize, usize) {
        use crate::probe::Counting;
        let mut out = vec![0i64; n];
        Counting::reset();
        let done = if blocks {
            #[cfg(target_arch = "x86_64")]
            {
                assert!(bmi2());
                // SAFETY: the CPU has BMI2, checked above.
                unsafe { decode_blocks::<64, i64, Counting>(page, &mut out) }
            }
            #[cfg(not(target_arch = "x86_64"))]
            unreachable!("blocks only on x86-64")
        } else {
            decode::<64, RUNS, i64, Counting>(page, &mut out)
        };
        assert_eq!(done.map(|d| d.values), Ok(n));
        (
            Counting::steps(Step::ZigzagFastValue),
            Counting::steps(Step::ZigzagRunTried),
        )
    }

    /// How many of `patterns`' varints start in their last 80 bytes (what
    /// the block reader leaves to the byte loop).
    #[cfg(target_arch = "x86_64")]
    fn in_the_last_80_bytes(patterns: &[u64]) -> usize {
        let mut bytes = 0;
        patterns
            .iter()
            .rev()
            .take_while(|&&u| {
                let mut varint = Vec::new();
                leb(u, &mut varint);
                bytes += varint.len();
                bytes <= 80
            })
            .count()
    }

    /// [`fast_values`] for an INT32 page and `zigzag/bmi2-blocks`.
    #[cfg(target_arch = "x86_64")]
    fn fast_values_32(page: &[u8], n: usize) -> usize {
        use crate::probe::Counting;
        let mut out = vec![0i32; n];
        Counting::reset();
        assert!(bmi2());
        // SAFETY: the CPU has BMI2, checked above.
        let done = unsafe { decode_blocks::<32, i32, Counting>(page, &mut out) };
        assert_eq!(done.map(|d| d.values), Ok(n));
        Counting::steps(Step::ZigzagFastValue)
    }

    /// The kernels' readers take a page's varints, all but the first and
    /// those too near the end: of one length for runs, of any length for
    /// blocks.
    #[test]
    fn the_readers_take_what_they_can() {
        let n = 400;
        let one_length: Vec<u64> = (0..n as u64).map(|i| (1 << 14) + i).collect();
        let page = group(&one_length);
        let (fast, _) = fast_values(&page, n, false);
        // The first value from the byte loop, the last steps' remainder too.
        assert!(fast >= n - 1 - 2 * STEP, "runs took {fast} of {n}");
        #[cfg(target_arch = "x86_64")]
        if bmi2() {
            let mixed: Vec<u64> = (0..n as u64)
                .map(|i| of_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15), (i % 64) as u32))
                .collect();
            let page = group(&mixed);
            let tail = in_the_last_80_bytes(&mixed);
            let (fast, _) = fast_values(&page, n, true);
            assert!(
                fast + 1 + tail >= n,
                "blocks took {fast} of {n} ({tail} in the last 80 bytes)"
            );
            // Two groups: the first group's last block, which ends at the
            // group's end with as many varints as the count has left, is
            // taken too.
            let mut two = group(&mixed);
            two.extend(group(&mixed));
            let (fast, _) = fast_values(&two, 2 * n, true);
            assert!(
                fast + 2 + tail >= 2 * n,
                "blocks took {fast} of {} in two groups",
                2 * n
            );
            // INT32 values of every length, the largest among them.
            let ints: Vec<u64> = (0..n as u64)
                .map(|i| of_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15), (i % 33) as u32))
                .collect();
            let fast = fast_values_32(&group(&ints), n);
            let tail = in_the_last_80_bytes(&ints);
            assert!(fast + 1 + tail >= n, "blocks took {fast} of {n} INT32 values");
        }
    }

    /// The AVX-512 reader takes every varint of a valid page but each
    /// group's first (the byte loop's), its last bytes included: varints
    /// of every length, one-byte varints (64 in a window, several steps of
    /// sixteen), two groups (a window cut at the group's end), and INT32
    /// values of every length.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx512_reader_takes_every_varint_but_a_groups_first() {
        use crate::probe::Counting;
        if !avx512() {
            return;
        }
        let n = 400;
        let mixed: Vec<u64> = (0..n as u64)
            .map(|i| of_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15), (i % 65) as u32))
            .collect();
        let small: Vec<u64> = (0..n as u64).map(|i| i % 100).collect();
        let mut two = group(&mixed);
        two.extend(group(&small));
        let wide_pages = [(group(&mixed), n, 1), (group(&small), n, 1), (two, 2 * n, 2)];
        for (page, values, groups) in wide_pages {
            let mut out = vec![0i64; values];
            Counting::reset();
            // SAFETY: the CPU has the features, checked above.
            let done = unsafe { decode_avx512::<64, i64, Counting>(&page, &mut out) };
            assert_eq!(done, decode_i64_bytewise_into(&page, &mut vec![0; values]));
            assert_eq!(
                Counting::steps(Step::ZigzagFastValue),
                values - groups,
                "{groups} groups"
            );
        }
        let ints: Vec<u64> = (0..n as u64)
            .map(|i| of_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15), (i % 33) as u32))
            .collect();
        let page = group(&ints);
        let mut out = vec![0i32; n];
        Counting::reset();
        // SAFETY: as above.
        let done = unsafe { decode_avx512::<32, i32, Counting>(&page, &mut out) };
        assert_eq!(done, decode_i32_bytewise_into(&page, &mut vec![0; n]));
        assert_eq!(Counting::steps(Step::ZigzagFastValue), n - 1);
    }

    /// After a run that fails at once, `zigzag/runs` takes `BACKOFF`
    /// varints a byte at a time before it tries again.
    #[test]
    fn a_failed_run_waits_before_the_next() {
        let n = 340;
        // Lengths 1, 2, 1, 2, ...: every run fails at its first step.
        let alternating: Vec<u64> = (0..n as u64).map(|i| if i % 2 == 0 { 5 } else { 300 }).collect();
        let (fast, tried) = fast_values(&group(&alternating), n, false);
        assert_eq!(fast, 0);
        // A try after the first varint, then one every BACKOFF + 1 varints.
        let expected = (0..n).step_by(BACKOFF as usize + 1).count();
        assert_eq!(tried, expected);
    }

    /// `pext` is microcoded on AMD and Hygon before Zen 3 only.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn pext_is_slow_on_amd_before_zen3() {
        let cases: [(&[u8], u32, bool); 7] = [
            (b"AuthenticAMD", 0x0080_0F82, true),  // Zen+ (0x17)
            (b"AuthenticAMD", 0x0083_0F10, true),  // Zen 2 (0x17)
            (b"AuthenticAMD", 0x0070_0F10, true),  // Jaguar (0x16)
            (b"HygonGenuine", 0x0090_0F02, true),  // Dhyana (0x18)
            (b"AuthenticAMD", 0x00A2_0F10, false), // Zen 3 (0x19)
            (b"AuthenticAMD", 0x00B4_0F00, false), // Zen 5 (0x1A)
            (b"GenuineIntel", 0x0005_0654, false),
        ];
        for (vendor, eax, slow) in cases {
            assert_eq!(
                microcoded_pext(vendor, eax),
                slow,
                "{} {eax:#x}",
                String::from_utf8_lossy(vendor)
            );
        }
    }

    /// The vector kernels are offered exactly where the CPU has their
    /// features.
    #[test]
    fn vector_kernels_are_offered_where_the_cpu_has_their_features() {
        // Detected here flag by flag, not by the functions the registry
        // calls, so that a wrong detection cannot agree with itself.
        #[cfg(target_arch = "x86_64")]
        let (avx512, bmi2) = {
            use std::is_x86_feature_detected as has;
            let bmi2 = has!("bmi2");
            let vbmi2 = has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("avx512vbmi");
            (
                vbmi2 && has!("avx512vbmi2") && bmi2 && has!("lzcnt") && has!("popcnt"),
                bmi2,
            )
        };
        #[cfg(not(target_arch = "x86_64"))]
        let (avx512, bmi2) = (false, false);
        for (i, name, has) in [(0, "zigzag/avx512-vbmi2", avx512), (1, "zigzag/bmi2-blocks", bmi2)] {
            for (got, available) in [
                (IMPLEMENTATIONS_I32[i].name, IMPLEMENTATIONS_I32[i].is_available()),
                (IMPLEMENTATIONS_I64[i].name, IMPLEMENTATIONS_I64[i].is_available()),
            ] {
                assert_eq!(got, name);
                assert_eq!(available, has, "{name}");
            }
        }
    }
}
