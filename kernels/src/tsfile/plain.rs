//! PLAIN pages. INT64 / FLOAT / DOUBLE are big-endian: on little-endian hosts
//! a bulk byte swap (AVX2 `vpshufb` on x86_64 when present, else a
//! `from_be_bytes` loop the compiler turns into `bswap`/`movbe`), on
//! big-endian hosts a plain copy. INT32 zigzag varints: one-byte values
//! straight from the byte, longer ones through a byte loop (a word-at-a-time
//! variant measured slower: the length branch dominates either way). BOOLEAN
//! bytes are validated and widened in one pass.

use super::{uvarint32, DecodeError, Done, Field, Lane};

/// The shared shape of fixed-width pages: `n` whole values, or TooManyValues
/// or a cut value, in stream order (as the reference finds them).
fn fixed_count(len: usize, size: usize, max: usize) -> Result<usize, DecodeError> {
    let whole = len / size;
    let present = whole + usize::from(!len.is_multiple_of(size));
    if present > max {
        return Err(DecodeError::TooManyValues {
            max,
            offset: max * size,
        });
    }
    if !len.is_multiple_of(size) {
        return Err(DecodeError::Truncated {
            field: Field::Value,
            offset: whole * size,
            bit: 0,
        });
    }
    Ok(whole)
}

/// Big-endian 8-byte values into `out` (i64, u64 or f64 lanes).
pub fn decode_be64_into<T: Lane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    assert_eq!(T::BITS, 64);
    let n = fixed_count(page.len(), 8, out.len())?;
    swap64_best(&page[..n * 8], &mut out[..n]);
    Ok(Done {
        values: n,
        consumed: page.len(),
    })
}

/// The portable entry: the same checks, then the portable swap.
pub fn decode_be64_portable_into<T: Lane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    assert_eq!(T::BITS, 64);
    let n = fixed_count(page.len(), 8, out.len())?;
    swap64_portable(&page[..n * 8], &mut out[..n]);
    Ok(Done {
        values: n,
        consumed: page.len(),
    })
}

/// Big-endian 4-byte values (FLOAT bits).
pub fn decode_be32_into<T: Lane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    assert_eq!(T::BITS, 32);
    let n = fixed_count(page.len(), 4, out.len())?;
    for (slot, c) in out[..n].iter_mut().zip(page.chunks_exact(4)) {
        *slot = T::from_bits(u32::from_be_bytes(c.try_into().expect("4 bytes")) as u64);
    }
    Ok(Done {
        values: n,
        consumed: page.len(),
    })
}

#[inline]
fn swap64_portable<T: Lane>(src: &[u8], out: &mut [T]) {
    #[cfg(target_endian = "big")]
    copy_on_big_endian_host(src, out);
    #[cfg(target_endian = "little")]
    swap_on_little_endian_host(src, out);
}

/// A big-endian host: the bytes already are the values. Its own function so
/// that a test (and a mutation run) on a big-endian host reaches exactly it.
#[cfg(target_endian = "big")]
#[inline]
fn copy_on_big_endian_host<T: Lane>(src: &[u8], out: &mut [T]) {
    // SAFETY: `out` holds `src.len() / 8` lanes of 8 bytes each (checked by
    // the callers), every lane type here is a plain 8-byte number for which
    // any bit pattern is valid, and the two regions cannot overlap (`out` is
    // a unique borrow).
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), out.as_mut_ptr() as *mut u8, out.len() * 8) };
}

#[cfg(target_endian = "little")]
#[inline]
fn swap_on_little_endian_host<T: Lane>(src: &[u8], out: &mut [T]) {
    // Two values per 16-byte load, swapped as one u128. Written per value,
    // the loop is vectorised for the baseline x86-64, which has no byte
    // shuffle: unpacking to 16-bit lanes, three word shuffles and a pack
    // for every two values, slower than a scalar swap each.
    let mut pairs = out.chunks_exact_mut(2);
    let mut sixteens = src.chunks_exact(16);
    for (pair, c) in (&mut pairs).zip(&mut sixteens) {
        let both = u128::from_be_bytes(c.try_into().expect("16 bytes"));
        pair[0] = T::from_bits((both >> 64) as u64);
        pair[1] = T::from_bits(both as u64);
    }
    for (slot, c) in pairs
        .into_remainder()
        .iter_mut()
        .zip(sixteens.remainder().chunks_exact(8))
    {
        *slot = T::from_bits(u64::from_be_bytes(c.try_into().expect("8 bytes")));
    }
}

#[inline]
fn swap64_best<T: Lane>(src: &[u8], out: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was just detected on this CPU.
        unsafe { swap64_avx2(src, out) };
        return;
    }
    swap64_portable(src, out)
}

/// AVX2 byte swap, 32 bytes (4 values) per shuffle, 4 shuffles per step.
/// Whole steps of 16 values by exact chunks, the rest one value at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn swap64_avx2<T: Lane>(src: &[u8], out: &mut [T]) {
    use std::arch::x86_64::*;
    assert_eq!(src.len(), out.len() * 8);
    let mask = _mm256_setr_epi8(
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
    );
    let mut steps_out = out.chunks_exact_mut(16);
    let steps_in = src.chunks_exact(128);
    let rest_in = steps_in.remainder();
    for (d, s) in (&mut steps_out).zip(steps_in) {
        let (s, d) = (s.as_ptr(), d.as_mut_ptr() as *mut u8);
        // SAFETY: `s` and `d` each point at 128 bytes (16 lanes of 8 bytes,
        // a whole chunk on both sides); unaligned loads/stores need no
        // alignment.
        unsafe {
            let a = _mm256_loadu_si256(s as *const __m256i);
            let b = _mm256_loadu_si256(s.add(32) as *const __m256i);
            let c = _mm256_loadu_si256(s.add(64) as *const __m256i);
            let e = _mm256_loadu_si256(s.add(96) as *const __m256i);
            _mm256_storeu_si256(d as *mut __m256i, _mm256_shuffle_epi8(a, mask));
            _mm256_storeu_si256(d.add(32) as *mut __m256i, _mm256_shuffle_epi8(b, mask));
            _mm256_storeu_si256(d.add(64) as *mut __m256i, _mm256_shuffle_epi8(c, mask));
            _mm256_storeu_si256(d.add(96) as *mut __m256i, _mm256_shuffle_epi8(e, mask));
        }
    }
    for (slot, c) in steps_out.into_remainder().iter_mut().zip(rest_in.chunks_exact(8)) {
        *slot = T::from_bits(u64::from_be_bytes(c.try_into().expect("8 bytes")));
    }
}

/// BOOLEAN bytes (0 or 1).
pub fn decode_bool_into(page: &[u8], out: &mut [bool]) -> Result<Done, DecodeError> {
    const CHUNK: usize = 64;
    let max = out.len();
    let checked = page.len().min(max);
    // A chunk at a time: its bytes ORed (a byte other than 0 and 1 sets a
    // bit above bit 0) and converted, both branch-free, so they vectorise;
    // only a bad chunk is searched for its first bad byte.
    for (k, (slots, bytes)) in out[..checked]
        .chunks_mut(CHUNK)
        .zip(page[..checked].chunks(CHUNK))
        .enumerate()
    {
        if bytes.iter().fold(0, |any, &b| any | b) > 1 {
            let bad = bytes.iter().position(|&b| b > 1).expect("a byte above 1");
            return Err(DecodeError::BadBoolean {
                byte: bytes[bad],
                offset: k * CHUNK + bad,
            });
        }
        for (slot, &b) in slots.iter_mut().zip(bytes) {
            *slot = b != 0;
        }
    }
    if page.len() > max {
        return Err(DecodeError::TooManyValues { max, offset: max });
    }
    Ok(Done {
        values: page.len(),
        consumed: page.len(),
    })
}

/// INT32 zigzag varints.
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut pos = 0;
    let mut n = 0;
    while pos < page.len() {
        if n == max {
            return Err(DecodeError::TooManyValues { max, offset: pos });
        }
        // One-byte varints (small values) straight from the byte.
        let b0 = page[pos];
        if b0 < 0x80 {
            out[n] = ((b0 >> 1) as i32) ^ -((b0 & 1) as i32);
            n += 1;
            pos += 1;
            continue;
        }
        // The rest: a byte loop, errors built only on the cold path.
        let mut u = (b0 & 0x7F) as u64;
        let mut len = 1;
        loop {
            let Some(&b) = page.get(pos + len) else {
                return Err(DecodeError::Truncated {
                    field: Field::Varint,
                    offset: pos,
                    bit: 0,
                });
            };
            u |= ((b & 0x7F) as u64) << (7 * len);
            len += 1;
            if b < 0x80 {
                break;
            }
            if len == 5 {
                return Err(DecodeError::BadVarint { offset: pos });
            }
        }
        if u > u32::MAX as u64 {
            return Err(DecodeError::BadVarint { offset: pos });
        }
        let u = u as u32;
        out[n] = ((u >> 1) as i32) ^ -((u & 1) as i32);
        n += 1;
        pos += len;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// TEXT / STRING / BLOB: the values as slices of the page.
pub fn decode_binary(page: &[u8], max: usize) -> Result<(Vec<&[u8]>, usize), DecodeError> {
    let mut pos = 0;
    let mut values = Vec::new();
    while pos < page.len() {
        if values.len() == max {
            return Err(DecodeError::TooManyValues { max, offset: pos });
        }
        let (u, len) = uvarint32(page, pos, Field::Varint)?;
        let length = ((u >> 1) as i32) ^ -((u & 1) as i32);
        if length < 0 {
            return Err(DecodeError::BadCount {
                field: Field::Bytes,
                count: length as i64,
                offset: pos,
            });
        }
        let start = pos + len;
        let end = start + length as usize;
        let v = page.get(start..end).ok_or(DecodeError::Truncated {
            field: Field::Bytes,
            offset: start,
            bit: 0,
        })?;
        values.push(v);
        pos = end;
    }
    Ok((values, pos))
}

pub type DecodeBe64 = fn(&[u8], &mut [u64]) -> Result<Done, DecodeError>;

#[cfg(target_arch = "x86_64")]
fn avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// 8-byte big-endian implementations, best first (the others are single
/// portable kernels).
pub static IMPLEMENTATIONS_BE64: &[crate::Implementation<DecodeBe64>] = &[
    #[cfg(target_arch = "x86_64")]
    crate::Implementation::new("plain/avx2-bswap", avx2, decode_be64_into::<u64>),
    #[cfg(not(target_arch = "x86_64"))]
    crate::Implementation::absent("plain/avx2-bswap"),
    crate::Implementation::portable("plain/portable", decode_be64_portable_into::<u64>),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn be64_every_length() {
        for n in 0..70usize {
            let page: Vec<u8> = (0..n as u64)
                .flat_map(|v| (v * 0x0102_0304_0506_0708).to_be_bytes())
                .collect();
            for imp in IMPLEMENTATIONS_BE64.iter().filter(|i| i.is_available()) {
                let mut out = vec![u64::MAX; n + 2];
                let done = (imp.get().expect("available"))(&page, &mut out[..n + 1]).unwrap();
                assert_eq!(done.values, n);
                for (i, v) in out[..n].iter().enumerate() {
                    assert_eq!(*v, i as u64 * 0x0102_0304_0506_0708, "{}", imp.name);
                }
                assert_eq!(out[n..], [u64::MAX; 2]);
            }
        }
    }

    /// The AVX2 entry is offered exactly where the CPU has AVX2 (the other
    /// tests skip what is not offered, so "never" would pass them all).
    #[test]
    fn avx2_entry_offered_exactly_where_the_cpu_has_avx2() {
        #[cfg(target_arch = "x86_64")]
        let has = std::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let has = false;
        assert_eq!(IMPLEMENTATIONS_BE64[0].name, "plain/avx2-bswap");
        assert_eq!(IMPLEMENTATIONS_BE64[0].is_available(), has);
        assert!(IMPLEMENTATIONS_BE64[1].is_available());
    }

    /// A bad byte anywhere, chunk boundaries included, is reported at its
    /// own offset; one the output cannot take is too many values instead;
    /// good pages of every length up to three chunks decode.
    #[test]
    fn booleans_of_every_length_and_bad_bytes_at_their_offsets() {
        for n in 0..200usize {
            let page: Vec<u8> = (0..n).map(|i| u8::from(i % 3 == 1)).collect();
            let mut out = vec![false; n];
            assert_eq!(decode_bool_into(&page, &mut out), Ok(Done { values: n, consumed: n }));
            assert!(out.iter().zip(&page).all(|(&v, &b)| v == (b == 1)), "{n}");
            for at in [0, n / 2, n.saturating_sub(1)].into_iter().filter(|&at| at < n) {
                let mut bad = page.clone();
                bad[at] = 2 + (at % 250) as u8;
                assert_eq!(
                    decode_bool_into(&bad, &mut out),
                    Err(DecodeError::BadBoolean {
                        byte: bad[at],
                        offset: at
                    }),
                    "{n} bad at {at}"
                );
                if at > 0 {
                    assert_eq!(
                        decode_bool_into(&bad, &mut out[..at]),
                        Err(DecodeError::TooManyValues { max: at, offset: at }),
                        "{n} bad at {at}, room for {at}"
                    );
                }
            }
        }
    }

    /// Bad bytes that cancel out when combined other than by OR (2 and 3,
    /// 2 and 2) are still found.
    #[test]
    fn two_bad_booleans_in_one_chunk() {
        for pair in [[2u8, 3], [2, 2], [0xfe, 0xff]] {
            let mut page = vec![1u8; 100];
            page[70] = pair[0];
            page[80] = pair[1];
            let want = Err(DecodeError::BadBoolean {
                byte: pair[0],
                offset: 70,
            });
            assert_eq!(decode_bool_into(&page, &mut [false; 100]), want, "{pair:?}");
        }
    }

    #[test]
    fn varint_edges() {
        let page = [0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x80, 0x01];
        let mut out = [0i32; 4];
        assert_eq!(decode_i32_into(&page, &mut out), Ok(Done { values: 4, consumed: 9 }));
        assert_eq!(out, [0, i32::MIN, -1, 64]);
        let bad = [0xffu8, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0];
        assert_eq!(
            decode_i32_into(&bad, &mut out),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        let bad = [0xffu8, 0xff, 0xff, 0xff, 0x1f, 0, 0, 0];
        assert_eq!(
            decode_i32_into(&bad, &mut out),
            Err(DecodeError::BadVarint { offset: 0 })
        );
    }
}
