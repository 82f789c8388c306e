//! Kernel-level tests. The differential campaign against the reference
//! decoder lives in the harness (family `pg-bytea`); these check the pieces
//! on their own and every registry entry on small fixed inputs (small
//! enough to run under Miri for the portable kernels).

use super::*;

fn available_hex() -> Vec<&'static Implementation<HexFn>> {
    HEX_IMPLEMENTATIONS.iter().filter(|k| k.is_available()).collect()
}

fn hex_with(k: HexFn, text: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0u8; decoded_len_bound(text)];
    let n = decode_into_with(k, best_escape(), text, &mut out)?;
    out.truncate(n);
    Ok(out)
}

#[test]
fn table_matches_char_to_digit_for_every_byte() {
    for b in 0..=255u8 {
        let want = match b {
            b' ' | b'\n' | b'\t' | b'\r' => scalar::WHITESPACE,
            _ => (b as char).to_digit(16).map(|d| d as u8).unwrap_or(scalar::INVALID),
        };
        assert_eq!(HEX_TABLE[b as usize], want, "table entry {b:#04x}");
    }
}

#[test]
fn registry_lists_every_kernel_on_every_target() {
    let names: Vec<_> = HEX_IMPLEMENTATIONS.iter().map(|k| k.name).collect();
    assert_eq!(
        names,
        [
            "bytea/hex-avx512",
            "bytea/hex-avx2",
            "bytea/hex-ssse3",
            "bytea/hex-neon",
            "bytea/hex-swar",
            "bytea/hex-scalar"
        ]
    );
    assert!(HEX_IMPLEMENTATIONS[4].is_available() && HEX_IMPLEMENTATIONS[5].is_available());
    if cfg!(not(target_arch = "x86_64")) {
        assert!(!HEX_IMPLEMENTATIONS[0].is_available() && !HEX_IMPLEMENTATIONS[1].is_available());
    }
    if cfg!(not(target_arch = "aarch64")) {
        assert!(!HEX_IMPLEMENTATIONS[3].is_available());
    }
    #[cfg(target_arch = "aarch64")]
    assert!(HEX_IMPLEMENTATIONS[3].is_available(), "NEON is baseline on aarch64");
}

/// A deterministic byte generator (no dependency on rand for Miri speed).
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn hex_text(data: &[u8], upper: bool) -> Vec<u8> {
    let digits: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut t = b"\\x".to_vec();
    for &b in data {
        t.push(digits[(b >> 4) as usize]);
        t.push(digits[(b & 15) as usize]);
    }
    t
}

#[test]
fn every_kernel_decodes_plain_hex_of_many_lengths() {
    let max = if cfg!(miri) { 40 } else { 300 };
    for n in 0..max {
        let data = bytes(n as u64, n);
        for upper in [false, true] {
            let text = hex_text(&data, upper);
            for k in available_hex() {
                assert_eq!(
                    hex_with(k.get().expect("available"), &text).as_deref(),
                    Ok(&data[..]),
                    "{} n={n}",
                    k.name
                );
            }
        }
    }
}

#[test]
fn whitespace_between_pairs_is_skipped_inside_a_pair_rejected() {
    let data = bytes(7, 100);
    let plain = hex_text(&data, false);
    // A newline every 7 pairs, plus leading and trailing whitespace.
    let mut text = b"\\x \t".to_vec();
    for (k, pair) in plain[2..].chunks(2).enumerate() {
        text.extend_from_slice(pair);
        if k % 7 == 6 {
            text.extend_from_slice(b"\r\n");
        }
    }
    text.push(b' ');
    for k in available_hex() {
        assert_eq!(
            hex_with(k.get().expect("available"), &text).as_deref(),
            Ok(&data[..]),
            "{}",
            k.name
        );
        // Whitespace inside the pair that starts at digit 80 (offset 82).
        let mut bad = plain.clone();
        bad.insert(83, b' ');
        assert_eq!(
            hex_with(k.get().expect("available"), &bad),
            Err(DecodeError::invalid_digit(83, b' ')),
            "{}",
            k.name
        );
    }
}

#[test]
fn every_error_kind_at_its_offset() {
    for k in available_hex() {
        let f = k.get().expect("available");
        for pos in [0usize, 1, 15, 16, 31, 32, 63, 64, 127, 128, 140] {
            let mut text = hex_text(&bytes(pos as u64, 75), false);
            text[2 + pos] = b'g';
            assert_eq!(
                hex_with(f, &text),
                Err(DecodeError::invalid_digit(2 + pos, b'g')),
                "{} pos {pos}",
                k.name
            );
            text[2 + pos] = 0xC3;
            assert_eq!(
                hex_with(f, &text),
                Err(DecodeError::invalid_digit(2 + pos, 0xC3)),
                "{} pos {pos}",
                k.name
            );
        }
        assert_eq!(hex_with(f, b"\\x123"), Err(DecodeError::odd(5)), "{}", k.name);
        assert_eq!(
            hex_with(f, b"\\x12 3 "),
            Err(DecodeError::invalid_digit(6, b' ')),
            "{}",
            k.name
        );
        assert_eq!(hex_with(f, b"\\x"), Ok(vec![]));
        assert_eq!(hex_with(f, b"\\x \n"), Ok(vec![]));
    }
    for e in ESCAPE_IMPLEMENTATIONS {
        let f = |t: &[u8]| {
            let mut out = vec![0u8; t.len()];
            (e.get().expect("available"))(t, &mut out).map(|n| out[..n].to_vec())
        };
        assert_eq!(f(b"a\\\\b\\000\\377\\101"), Ok(b"a\\b\x00\xffA".to_vec()), "{}", e.name);
        assert_eq!(f(b"0123456789\\400"), Err(DecodeError::escape(10)), "{}", e.name);
        assert_eq!(f(b"\\X41"), Err(DecodeError::escape(0)), "{}", e.name);
        assert_eq!(f(b"ab\\12"), Err(DecodeError::escape(2)), "{}", e.name);
        assert_eq!(f(b"ab\\"), Err(DecodeError::escape(2)), "{}", e.name);
        assert_eq!(f(b"\\018"), Err(DecodeError::escape(0)), "{}", e.name);
        assert_eq!(f(b"\xff\x80 plain"), Ok(b"\xff\x80 plain".to_vec()), "{}", e.name);
    }
    let mut small = [0u8; 1];
    assert_eq!(decode_into(b"\\x1234", &mut small), Err(DecodeError::too_small()));
    assert_eq!(decode_into(b"ab", &mut small), Err(DecodeError::too_small()));
    for k in available_hex() {
        assert_eq!(
            (k.get().expect("available"))(b"1234", &mut small),
            Err(DecodeError::too_small()),
            "{}",
            k.name
        );
    }
    // The escape kernels check their buffer themselves (the dispatch's own
    // bound check is in front of them): shorter than the text is refused,
    // longer is room to spare.
    for e in ESCAPE_IMPLEMENTATIONS {
        let f = e.get().expect("portable");
        assert_eq!(f(b"ab", &mut small), Err(DecodeError::too_small()), "{}", e.name);
        assert_eq!(f(b"ab", &mut [0u8; 4]), Ok(2), "{}", e.name);
    }
}

#[test]
fn kernels_write_nothing_past_the_decoded_length() {
    let data = bytes(3, 200);
    let mut text = hex_text(&data, false);
    text.extend_from_slice(b"   ");
    for k in available_hex() {
        let mut out = vec![0xA5u8; 300];
        let n = decode_into_with(k.get().expect("available"), best_escape(), &text, &mut out).unwrap();
        assert_eq!(n, 200);
        assert!(out[200..].iter().all(|&b| b == 0xA5), "{}", k.name);
    }
}

#[test]
fn to_vec_and_dispatch() {
    assert_eq!(decode_to_vec(b"\\xDEADbeef"), Ok(vec![0xDE, 0xAD, 0xBE, 0xEF]));
    assert_eq!(decode_to_vec(b"\\\\x"), Ok(b"\\x".to_vec()));
    let first_available = available_hex()[0].get().expect("available");
    assert!(
        std::ptr::fn_addr_eq(best_hex(), first_available),
        "dispatch takes the first available kernel"
    );
}

/// The bound is exact for hex without whitespace (a caller sizing a buffer
/// with it gets no slack and no error) and the input length for escape.
#[test]
fn decoded_len_bound_is_exact_for_plain_hex() {
    assert_eq!(decoded_len_bound(b"\\x"), 0);
    assert_eq!(decoded_len_bound(b"\\x00"), 1);
    assert_eq!(decoded_len_bound(b"\\xDEADbeef"), 4);
    assert_eq!(decoded_len_bound(b"\\x0 0"), 1);
    assert_eq!(decoded_len_bound(b"ab\\\\c"), 5);
    let mut out = [0u8; 4];
    assert_eq!(
        decode_into_with(best_hex(), best_escape(), b"\\xDEADbeef", &mut out),
        Ok(4)
    );
    assert_eq!(out, [0xDE, 0xAD, 0xBE, 0xEF]);
    assert_eq!(
        decode_into_with(best_hex(), best_escape(), b"\\xDEADbeef", &mut out[..3]),
        Err(DecodeError::too_small())
    );
}

/// A registry entry whose kernel is not compiled for this target is a typed
/// error when forced, never a panic and never another kernel under its name.
#[test]
fn forcing_a_kernel_not_compiled_here_is_a_typed_error() {
    let force = |name: &'static str| crate::by_name(HEX_IMPLEMENTATIONS, name).err();
    let unavailable = |name: &'static str| Some(crate::ForceError::Unavailable { name });
    if cfg!(not(target_arch = "aarch64")) {
        assert_eq!(force("bytea/hex-neon"), unavailable("bytea/hex-neon"));
    }
    if cfg!(not(target_arch = "x86_64")) {
        assert_eq!(force("bytea/hex-avx2"), unavailable("bytea/hex-avx2"));
    }
    assert_eq!(force("bytea/hex-scalar"), None);
}

/// Long inputs at every alignment of input and output: the SIMD kernels
/// start with a few scalar pairs to align their loads (or stores), so an
/// error, whitespace or the switch to vectors may fall inside that prologue,
/// right after it, or far from it. Each kernel must give the scalar
/// kernel's answer: same bytes, same error at the same offset.
#[test]
fn long_inputs_at_every_alignment_match_the_scalar_kernel() {
    let data = bytes(11, 1100);
    let digits = hex_text(&data, false).split_off(2);
    let shifts: Vec<usize> = if cfg!(miri) {
        vec![0, 1, 2, 31]
    } else {
        (0..64).collect()
    };
    let marks: &[usize] = if cfg!(miri) {
        &[3, 40]
    } else {
        &[0, 1, 2, 3, 29, 30, 31, 32, 33, 62, 63, 64, 65, 66, 200, 2199]
    };
    let mut cases: Vec<(String, Vec<u8>)> = vec![("plain".into(), digits.clone())];
    for &m in marks {
        let mut bad = digits.clone();
        bad[m] = b'g';
        cases.push((format!("'g' at {m}"), bad));
        let mut spaced = digits.clone();
        spaced.insert(m - m % 2, b' ');
        cases.push((format!("space before pair at {}", m - m % 2), spaced));
    }
    let scalar = |d: &[u8]| {
        let mut out = vec![0u8; d.len() / 2];
        scalar::decode(d, &mut out).map(|n| out[..n].to_vec())
    };
    for (what, input) in &cases {
        let want = scalar(input);
        // The plain input must decode to the data (the scalar kernel is
        // checked too, not only trusted).
        if what == "plain" {
            assert_eq!(want.as_deref(), Ok(&data[..]));
        }
        for k in available_hex() {
            for &shift in &shifts {
                let mut src = vec![b'0'; shift];
                src.extend_from_slice(input);
                let mut out = vec![0u8; input.len() / 2 + shift];
                let got = (k.get().expect("available"))(&src[shift..], &mut out[shift % 32..])
                    .map(|n| out[shift % 32..][..n].to_vec());
                assert_eq!(got, want, "{} {what}, input shifted {shift}", k.name);
            }
        }
    }
}

#[test]
fn tails_at_every_length_with_errors_and_whitespace_match_the_scalar_kernel() {
    // The x86 kernels finish with one block that overlaps digits already
    // decoded: every tail length, with an error or whitespace in the tail
    // or in the overlap, against the scalar kernel.
    let (lengths, step) = if cfg!(miri) {
        (250usize..262, 29)
    } else {
        (0usize..420, 3)
    };
    let scalar = |d: &[u8]| {
        let mut out = vec![0u8; d.len() / 2];
        scalar::decode(d, &mut out).map(|n| out[..n].to_vec())
    };
    for len in lengths {
        let digits = hex_text(&bytes(len as u64, len.div_ceil(2)), len % 3 == 0).split_off(2)[..len].to_vec();
        let mut cases = vec![digits.clone()];
        for back in (1..len.min(140)).step_by(step) {
            let at = len - back;
            let mut bad = digits.clone();
            bad[at] = b'G';
            cases.push(bad);
            let mut spaced = digits.clone();
            spaced.insert(at, b'\n');
            cases.push(spaced);
        }
        for input in &cases {
            let want = scalar(input);
            if input == &digits && len % 2 == 0 {
                assert_eq!(want.as_ref().map(Vec::len), Ok(len / 2));
            }
            for k in available_hex() {
                let mut out = vec![0u8; input.len() / 2];
                let got = (k.get().expect("available"))(input, &mut out).map(|n| out[..n].to_vec());
                assert_eq!(
                    got,
                    want,
                    "{} length {len}, input {:?}",
                    k.name,
                    String::from_utf8_lossy(input)
                );
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn x86_kernels_offered_exactly_where_the_cpu_has_their_features() {
    // Every kernel test skips what is not available, so a detection that
    // said "no" would pass them all: hold it to the CPU's own answer.
    let has = |f: &str| {
        HEX_IMPLEMENTATIONS
            .iter()
            .find(|k| k.name == f)
            .map(|k| k.is_available())
            .expect("registered")
    };
    assert_eq!(has("bytea/hex-ssse3"), std::arch::is_x86_feature_detected!("ssse3"));
    assert_eq!(has("bytea/hex-avx2"), std::arch::is_x86_feature_detected!("avx2"));
    let avx512 = std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw");
    assert_eq!(has("bytea/hex-avx512"), avx512);
}
