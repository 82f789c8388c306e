//! Rough CPU-time figures (process CPU time, not wall time, so a busy shared
//! machine skews them less than the criterion benchmarks). Ignored by
//! default: `cargo test --release -p crossdec-harness --test tsfile_speed -- --ignored --nocapture`.

use crossdec_harness::engine::case_rng;
use crossdec_harness::families::tsfile::generate::{series, Shape};
use crossdec_harness::families::tsfile::{DataType, Values};
use crossdec_kernels::tsfile::{gorilla as kg, plain as kp, ts2diff as kt};
use crossdec_reference::tsfile::{gorilla as rg, plain as rp, ts2diff as rt};

const N: usize = 1_000_000;

fn cpu_seconds() -> f64 {
    // /proc/self/stat fields 14 and 15: user and system time in clock ticks.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn per_second(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let start = cpu_seconds();
    for _ in 0..reps {
        f();
    }
    let spent = (cpu_seconds() - start).max(0.01);
    (reps * N) as f64 / spent
}

#[test]
#[ignore]
fn cpu_time_figures() {
    // The same series as `benches/tsfile.rs`.
    let values = |dtype: DataType| {
        series(
            &mut case_rng(42, "bench", "tsfile", dtype as u64),
            dtype,
            Shape::RandomWalk,
            N,
        )
    };
    let Values::Int64(v64) = values(DataType::Int64) else {
        unreachable!()
    };
    let page = rt::encode_i64(&v64, 128, false);
    let mut out = vec![0i64; N];
    let k = per_second(
        || {
            std::hint::black_box(kt::decode_i64_into(&page, &mut out).unwrap());
        },
        300,
    );
    let r = per_second(
        || {
            std::hint::black_box(rt::decode_i64(&page, N).unwrap());
        },
        10,
    );
    println!(
        "TS_2DIFF INT64: kernel {:.0} M values/s, reference {:.1} M/s, {:.1}x",
        k / 1e6,
        r / 1e6,
        k / r
    );

    println!(
        "TS_2DIFF INT64 page: {} bytes for {N} values, first block bit width {}",
        page.len(),
        u32::from_be_bytes(page[4..8].try_into().unwrap())
    );
    let Values::Double(vd) = values(DataType::Double) else {
        unreachable!()
    };
    let page = rg::encode64(&vd, Some(rg::TERMINATOR_F64));
    let mut out = vec![0u64; N];
    let k = per_second(
        || {
            std::hint::black_box(kg::decode64_into(&page, rg::TERMINATOR_F64, kg::Stop::Count(N), &mut out).unwrap());
        },
        50,
    );
    let r = per_second(
        || {
            std::hint::black_box(rg::decode64(&page, rg::TERMINATOR_F64, rg::Stop::Count(N), N).unwrap());
        },
        5,
    );
    println!(
        "GORILLA DOUBLE: kernel {:.0} M values/s, reference {:.1} M/s, {:.1}x",
        k / 1e6,
        r / 1e6,
        k / r
    );

    let page = rp::encode_i64(&v64);
    let mut out = vec![0u64; N];
    let k = per_second(
        || {
            std::hint::black_box(kp::decode_be64_into(&page, &mut out).unwrap());
        },
        500,
    );
    let p = per_second(
        || {
            std::hint::black_box(kp::decode_be64_portable_into(&page, &mut out).unwrap());
        },
        500,
    );
    println!(
        "PLAIN INT64: best {:.1} GB/s, portable {:.1} GB/s",
        k * 8.0 / 1e9,
        p * 8.0 / 1e9
    );
}
