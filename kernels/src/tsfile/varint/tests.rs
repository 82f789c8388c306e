use super::*;
use crate::tsfile::test_leb128 as leb;

/// A zigzag pattern of at most 32 bits whose varint takes exactly `len`
/// bytes, from `seed`.
fn of_length(len: usize, seed: u64) -> u64 {
    let low = if len == 1 { 0 } else { 1u64 << (7 * (len - 1)) };
    let span = (1u64 << (7 * len)).min(1 << 32) - low;
    low + seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) % span
}

/// Every length a width takes: the run decodes the values a step at a
/// time, stops before a step it cannot complete within `end`, and leaves
/// the slots after its count untouched.
#[test]
fn runs_of_every_length_decode_their_values() {
    for (w, lengths) in [(32u32, 1..=5usize), (64, 1..=8)] {
        for len in lengths {
            for count in [4usize, 5, 7, 8, 13] {
                let patterns: Vec<u64> = (0..count as u64)
                    .map(|i| match len {
                        // 64-bit lengths: the top of the range as well.
                        6..=8 => (1u64 << (7 * len)) - 1 - i,
                        _ => of_length(len, i + 1),
                    })
                    .collect();
                let mut data = Vec::new();
                for &u in &patterns {
                    leb(u, &mut data);
                }
                let end = data.len();
                data.extend([0u8; 8]);
                let mut out = vec![0x5A5Ai64; count + 4];
                let (n, pos) = if w == 32 {
                    let mut o32 = vec![0x5A5Ai32; count + 4];
                    let r = zigzag_run::<32, i32>(len, &data, 0, end, &mut o32);
                    for (a, b) in out.iter_mut().zip(&o32) {
                        *a = *b as i64;
                    }
                    r
                } else {
                    zigzag_run::<64, i64>(len, &data, 0, end, &mut out)
                };
                assert_eq!(n, count / STEP * STEP, "W{w} L{len} count {count}");
                assert_eq!(pos, n * len);
                for (i, &u) in patterns.iter().enumerate().take(n) {
                    let v = ((u >> 1) as i64) ^ -((u & 1) as i64);
                    let want = if w == 32 { v as i32 as i64 } else { v };
                    assert_eq!(out[i], want, "W{w} L{len} value {i}");
                }
                assert!(
                    out[n..].iter().all(|&v| v == 0x5A5A),
                    "W{w} L{len}: wrote past its count"
                );
            }
        }
    }
}

/// A varint of another length anywhere in a step ends the run before that
/// step, and so does a 32-bit fifth byte above 0x0F.
#[test]
fn a_step_with_another_length_or_a_bad_fifth_byte_is_left() {
    for len in 1..=5usize {
        for odd in 0..STEP {
            for other in (1..=5usize).filter(|&o| o != len) {
                let mut data = Vec::new();
                for i in 0..STEP {
                    leb(of_length(len, i as u64), &mut data);
                }
                for i in 0..STEP {
                    let l = if i == odd { other } else { len };
                    leb(of_length(l, i as u64 + 9), &mut data);
                }
                let end = data.len();
                data.extend([0u8; 16]);
                let mut out = [0i32; 16];
                assert_eq!(
                    zigzag_run::<32, i32>(len, &data, 0, end, &mut out),
                    (STEP, STEP * len),
                    "L{len}, length {other} at {odd}"
                );
            }
        }
    }
    for fifth in [0x10u8, 0x40, 0x7F] {
        for at in 0..STEP {
            let mut data = Vec::new();
            for i in 0..STEP {
                if i == at {
                    data.extend([0xFF, 0xFF, 0xFF, 0xFF, fifth]);
                } else {
                    data.extend([0x81, 0x82, 0x83, 0x84, 0x0F]);
                }
            }
            let end = data.len();
            data.extend([0u8; 8]);
            assert_eq!(
                zigzag_run::<32, i32>(5, &data, 0, end, &mut [0; 8]),
                (0, 0),
                "{fifth:#x} at {at}"
            );
            // A 64-bit value may use those bits.
            assert_eq!(zigzag_run::<64, i64>(5, &data, 0, end, &mut [0; 8]), (STEP, 5 * STEP));
        }
    }
}

/// The run stops where `out` is full, where the group ends and where an
/// 8-byte read would pass the data; lengths it never takes give nothing.
#[test]
fn bounds_stop_the_run() {
    let data = vec![0x02u8; 64];
    assert_eq!(zigzag_run::<64, i64>(1, &data, 0, 64, &mut [0; 7]), (4, 4));
    assert_eq!(zigzag_run::<64, i64>(1, &data, 0, 11, &mut [0; 64]), (8, 8));
    // 64 bytes: the last step's last read starts at byte 59 and needs 67.
    assert_eq!(zigzag_run::<64, i64>(1, &data, 0, 64, &mut [0; 64]), (56, 56));
    assert_eq!(zigzag_run::<64, i64>(1, &data, 3, 64, &mut [0; 64]), (52, 55));
    // 63 bytes: the last step starts at byte 52.
    assert_eq!(zigzag_run::<64, i64>(1, &data[..63], 0, 63, &mut [0; 64]), (56, 56));
    // Well-formed varints of 6 to 8 bytes: 64-bit values, never 32-bit ones.
    for len in 6..=8usize {
        let mut long = Vec::new();
        for _ in 0..8 {
            long.extend(std::iter::repeat_n(0x80u8, len - 1));
            long.push(0x01);
        }
        let end = long.len();
        long.extend([0u8; 8]);
        assert_eq!(zigzag_run::<32, i32>(len, &long, 0, end, &mut [0; 8]), (0, 0), "L{len}");
        assert_eq!(
            zigzag_run::<64, i64>(len, &long, 0, end, &mut [0; 8]),
            (8, end),
            "L{len}"
        );
    }
    for len in [0usize, 9, 10] {
        assert_eq!(zigzag_run::<32, i32>(len, &data, 0, 64, &mut [0; 64]), (0, 0), "L{len}");
        assert_eq!(zigzag_run::<64, i64>(len, &data, 0, 64, &mut [0; 64]), (0, 0), "L{len}");
    }
}
