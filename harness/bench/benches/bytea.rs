//! pg-bytea decoding throughput (input bytes per second).
//!
//! `hex-plain/<size>`: plain hex digits (no `\x`, no whitespace), every
//! available hex kernel against the `hex`, `faster-hex` and `const-hex`
//! crates on the same digits and against the reference (given the same
//! digits behind `\x`). `hex-whitespace/<variant>`: a space after every 8
//! pairs and a newline after every 32 (dense), or a newline after every 76
//! digits (sparse). `escape/<variant>`: the server's escape output of random
//! bytes and of text-like bytes. Run:
//! `cargo bench -p crossdec-bench --bench bytea`.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossdec_kernels::bytea as kernel;
use crossdec_reference::bytea as reference;
use rand::{Rng, SeedableRng};

const SIZES: [(usize, &str); 3] = [(1 << 10, "1KiB"), (64 << 10, "64KiB"), (1 << 20, "1MiB")];

fn random(n: usize) -> Vec<u8> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n as u64);
    (0..n).map(|_| rng.gen()).collect()
}

fn hex_plain(c: &mut Criterion) {
    let mut g = c.benchmark_group("hex-plain");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (size, label) in SIZES {
        let bytes = random(size / 2);
        let text = reference::encode_hex(&bytes);
        let digits = &text[2..];
        assert_eq!(digits.len(), size);
        let mut out = vec![0u8; size / 2];
        g.throughput(Throughput::Bytes(size as u64));
        for k in kernel::HEX_IMPLEMENTATIONS.iter().filter(|k| k.is_available()) {
            assert_eq!((k.get().expect("available"))(digits, &mut out), Ok(size / 2));
            assert_eq!(out, bytes, "{}", k.name);
            g.bench_with_input(BenchmarkId::new(k.name, label), digits, |b, d| {
                b.iter(|| (k.get().expect("available"))(black_box(d), &mut out))
            });
        }
        g.bench_with_input(BenchmarkId::new("crate-hex", label), digits, |b, d| {
            b.iter(|| hex::decode_to_slice(black_box(d), &mut out))
        });
        g.bench_with_input(BenchmarkId::new("crate-faster-hex", label), digits, |b, d| {
            b.iter(|| faster_hex::hex_decode(black_box(d), &mut out))
        });
        g.bench_with_input(BenchmarkId::new("crate-const-hex", label), digits, |b, d| {
            b.iter(|| const_hex::decode_to_slice(black_box(d), &mut out))
        });
        g.bench_with_input(BenchmarkId::new("reference", label), &text, |b, t| {
            b.iter(|| reference::decode(black_box(t)))
        });
    }
    g.finish();
}

fn whitespace_and_escape(c: &mut Criterion) {
    let mut g = c.benchmark_group("hex-whitespace");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    // Dense: a space after every 8 pairs, a newline after every 32. Sparse:
    // a newline after every 38 pairs (76-character lines).
    for (size, label) in [
        (64 << 10, "dense-64KiB"),
        (64 << 10, "sparse-64KiB"),
        (1 << 20, "sparse-1MiB"),
    ] {
        let bytes = random(size / 2);
        let plain = reference::encode_hex(&bytes);
        let mut text = b"\\x".to_vec();
        for (k, pair) in plain[2..].chunks(2).enumerate() {
            text.extend_from_slice(pair);
            if label.starts_with("sparse") {
                if k % 38 == 37 {
                    text.push(b'\n');
                }
            } else if k % 32 == 31 {
                text.push(b'\n');
            } else if k % 8 == 7 {
                text.push(b' ');
            }
        }
        let mut out = vec![0u8; kernel::decoded_len_bound(&text)];
        g.throughput(Throughput::Bytes(text.len() as u64));
        for k in kernel::HEX_IMPLEMENTATIONS.iter().filter(|k| k.is_available()) {
            let esc = kernel::best_escape();
            assert_eq!(
                kernel::decode_into_with(k.get().expect("available"), esc, &text, &mut out),
                Ok(bytes.len())
            );
            g.bench_with_input(BenchmarkId::new(k.name, label), &text, |b, t| {
                b.iter(|| kernel::decode_into_with(k.get().expect("available"), esc, black_box(t), &mut out))
            });
        }
        g.bench_with_input(BenchmarkId::new("reference", label), &text, |b, t| {
            b.iter(|| reference::decode(black_box(t)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("escape");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    // Random bytes (most escaped: short runs, the bulk kernel's worst case)
    // and text-like bytes (printable ASCII with a newline, backslash or
    // high byte now and then: long runs).
    let text_like = |n: usize| -> Vec<u8> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7 + n as u64);
        (0..n)
            .map(|_| match rng.gen_range(0..100) {
                0 => b'\n',
                1 => b'\\',
                2 => rng.gen_range(0x80..=0xff),
                _ => rng.gen_range(0x20..0x7f),
            })
            .collect()
    };
    for (size, label) in [
        (64 << 10, "random-64KiB"),
        (1 << 20, "random-1MiB"),
        (64 << 10, "text-64KiB"),
        (1 << 20, "text-1MiB"),
    ] {
        let bytes = if label.starts_with("random") {
            random(size / 2)
        } else {
            text_like(size)
        };
        let text = reference::encode_escape(&bytes);
        let mut out = vec![0u8; text.len()];
        g.throughput(Throughput::Bytes(text.len() as u64));
        for e in kernel::ESCAPE_IMPLEMENTATIONS.iter() {
            assert_eq!((e.get().expect("available"))(&text, &mut out), Ok(bytes.len()));
            g.bench_with_input(BenchmarkId::new(e.name, label), &text, |b, t| {
                b.iter(|| (e.get().expect("available"))(black_box(t), &mut out))
            });
        }
        g.bench_with_input(BenchmarkId::new("reference", label), &text, |b, t| {
            b.iter(|| reference::decode(black_box(t)))
        });
    }
    g.finish();
}

criterion_group!(benches, hex_plain, whitespace_and_escape);
criterion_main!(benches);
