//! The performance targets named in the issues, measured side by side.
//!
//! On a shared or virtual machine one benchmark's timing drifts with its
//! neighbours' load, so comparing two criterion results taken a minute apart
//! can be off by 30%. Here every contender of a target is timed in the same
//! rounds, interleaved (A, B, C, then B, C, A...), and each gets the median
//! of its rounds; ratios come from those medians. Absolute rates (values/s,
//! GB/s) still depend on the machine. The report says which targets are met;
//! it never fails the run (speed is not a test).
//!
//! `cargo bench -p crossdec-bench --bench targets` prints a table and
//! writes `target/perf-targets.json`. `CROSSDEC_TARGET_ROUNDS` (default 31)
//! sets the rounds; an argument filters targets by substring;
//! `CROSSDEC_TARGETS_JSON` writes the report to another path (`ci/bench-compare`
//! runs two builds' binaries in turn, each writing its own file).

use std::hint::black_box;
use std::time::{Duration, Instant};

use crossdec_harness::engine::case_rng;
use crossdec_harness::families::tsfile::generate::{series, Shape};
use crossdec_harness::families::tsfile::{DataType, Values};
use crossdec_kernels::bytea as kbytea;
use crossdec_kernels::qwp as kqwp;
use crossdec_kernels::tsfile::{gorilla as kg, plain as kp, ts2diff as kt};
use crossdec_reference::bytea as rbytea;
use crossdec_reference::qwp as rqwp;
use crossdec_reference::tsfile::{gorilla as rg, plain as rp, ts2diff as rt};
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// One timed closure; `call` runs one decode.
struct Contender<'a> {
    name: &'static str,
    call: Box<dyn FnMut() + 'a>,
}

fn contender<'a>(name: &'static str, call: impl FnMut() + 'a) -> Contender<'a> {
    Contender {
        name,
        call: Box::new(call),
    }
}

/// Median seconds per call of each contender, timed in interleaved rounds.
/// Each round times a batch of calls per contender, sized so each batch
/// takes about 5 ms (a warm cache for the fast ones, as in a real loop).
fn race(contenders: &mut [Contender<'_>], rounds: usize) -> Vec<f64> {
    let mut per_call = vec![0f64; contenders.len()];
    for (c, slot) in contenders.iter_mut().zip(&mut per_call) {
        // Warm up (caches, branch predictors, lazy dispatch) and estimate.
        let start = Instant::now();
        let mut n = 0u32;
        while start.elapsed() < Duration::from_millis(100) {
            (c.call)();
            n += 1;
        }
        *slot = start.elapsed().as_secs_f64() / n as f64;
    }
    let iters: Vec<usize> = per_call.iter().map(|t| ((0.005 / t).ceil() as usize).max(1)).collect();
    let mut samples = vec![Vec::with_capacity(rounds); contenders.len()];
    for round in 0..rounds {
        for k in 0..contenders.len() {
            let idx = (k + round) % contenders.len();
            let c = &mut contenders[idx];
            let start = Instant::now();
            for _ in 0..iters[idx] {
                (c.call)();
            }
            samples[idx].push(start.elapsed().as_secs_f64() / iters[idx] as f64);
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(|a, b| a.partial_cmp(b).unwrap());
            s[s.len() / 2]
        })
        .collect()
}

#[derive(Serialize)]
struct Row {
    issue: u32,
    target: String,
    measured: f64,
    goal: f64,
    unit: &'static str,
    met: bool,
}

struct Report {
    rows: Vec<Row>,
    rounds: usize,
    filter: Option<String>,
}

impl Report {
    fn wants(&self, name: &str) -> bool {
        self.filter.as_deref().is_none_or(|f| name.contains(f))
    }

    fn add(&mut self, issue: u32, target: String, measured: f64, goal: f64, unit: &'static str) {
        let met = measured >= goal;
        println!(
            "  {:<58} {:>10.2} {:<9} goal >= {:<8} {}",
            target,
            measured,
            unit,
            goal,
            if met { "met" } else { "MISSED" }
        );
        self.rows.push(Row {
            issue,
            target,
            measured,
            goal,
            unit,
            met,
        });
    }

    /// Races the contenders, prints each one's rate, returns medians.
    fn race(&mut self, title: &str, units_per_call: f64, unit: &str, contenders: &mut [Contender<'_>]) -> Vec<f64> {
        let t = race(contenders, self.rounds);
        println!("{title}");
        for (c, secs) in contenders.iter().zip(&t) {
            println!(
                "    {:<24} {:>10.1} ns/call {:>10.3} {unit}",
                c.name,
                secs * 1e9,
                units_per_call / secs / 1e9
            );
        }
        t
    }
}

fn qwp(report: &mut Report) {
    const ROWS: usize = 10_000;
    for (shape, values) in crossdec_harness::families::qwp::benchmark_shapes(ROWS) {
        let rows: Vec<Option<i64>> = values.into_iter().map(Some).collect();
        if !report.wants(&format!("qwp-ts/{shape}")) {
            continue;
        }
        let (column, encoding) = rqwp::encode_column(&rows, true);
        assert_eq!(encoding, rqwp::Encoding::Gorilla);
        #[cfg(target_arch = "x86_64")]
        let questdb_payload = {
            use crossdec_harness::families::qwp::questdb as q;
            let (payload, flags) = q::result_batch_payload(&column, ROWS, true);
            (questdb::egress::_bench_internals::Bytes::from(payload), flags)
        };
        let mut decoder = kqwp::TimestampDecoder::new();
        let mut out = vec![0i64; ROWS];
        let mut validity = vec![false; ROWS];
        let mut contenders = vec![
            contender("kernel", || {
                decoder
                    .decode_into(black_box(&column), ROWS, true, &mut out, &mut validity)
                    .unwrap();
            }),
            contender("reference", || {
                black_box(rqwp::decode_column(black_box(&column), ROWS, true).unwrap());
            }),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            use questdb::egress::_bench_internals::{decode_result_batch, SymbolDict, ZstdScratch};
            let (payload, flags) = &questdb_payload;
            let mut dict = SymbolDict::new();
            let mut schema = None;
            let mut scratch = ZstdScratch::new();
            contenders.push(contender("questdb-rs", move || {
                decode_result_batch(black_box(payload), *flags, &mut dict, &mut schema, &mut scratch).unwrap();
            }));
        }
        let t = report.race(
            &format!("qwp-ts/{shape} ({ROWS} rows)"),
            ROWS as f64,
            "G timestamps/s",
            &mut contenders,
        );
        drop(contenders);
        report.add(2, format!("qwp-ts/{shape}: kernel / reference"), t[1] / t[0], 10.0, "x");
        if shape == "constant" {
            report.add(
                2,
                "qwp-ts/constant: kernel timestamps/s".into(),
                ROWS as f64 / t[0] / 1e9,
                1.0,
                "G/s",
            );
        }
        if t.len() > 2 {
            match shape {
                "constant" => report.add(2, "qwp-ts/constant: kernel / questdb-rs".into(), t[2] / t[0], 5.0, "x"),
                "irregular" => report.add(2, "qwp-ts/irregular: kernel / questdb-rs".into(), t[2] / t[0], 2.0, "x"),
                _ => {}
            }
        }
    }
}

fn bytea(report: &mut Report) {
    for (size, label) in [(64usize << 10, "64KiB"), (1 << 20, "1MiB")] {
        if !report.wants(&format!("pg-bytea/{label}")) {
            continue;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(size as u64);
        let bytes: Vec<u8> = (0..size / 2).map(|_| rng.gen()).collect();
        let text = rbytea::encode_hex(&bytes);
        let digits = &text[2..];
        let best = kbytea::best_hex();
        let mut out = vec![0u8; size / 2];
        assert_eq!(best(digits, &mut out), Ok(size / 2));
        assert_eq!(out, bytes);
        // One output buffer for both: where it lies relative to the input
        // (4 KiB aliasing of loads and stores, line splits) changes between
        // processes, and must not favour either contender.
        let out = std::cell::RefCell::new(out);
        let mut contenders = vec![
            contender("best kernel", || {
                best(black_box(digits), &mut out.borrow_mut()).unwrap();
            }),
            contender("const-hex", || {
                const_hex::decode_to_slice(black_box(digits), &mut out.borrow_mut()).unwrap();
            }),
            contender("reference", || {
                black_box(rbytea::decode(black_box(&text)).unwrap());
            }),
        ];
        let t = report.race(
            &format!("pg-bytea/{label} plain hex"),
            size as f64,
            "GB/s",
            &mut contenders,
        );
        report.add(
            3,
            format!("pg-bytea/{label}: best kernel / const-hex"),
            t[1] / t[0],
            1.0,
            "x",
        );
        report.add(
            3,
            format!("pg-bytea/{label}: best kernel / reference"),
            t[2] / t[0],
            20.0,
            "x",
        );
    }
}

fn tsfile(report: &mut Report) {
    const N: usize = 1_000_000;
    // The same series as benches/tsfile.rs.
    let values = |dtype| {
        series(
            &mut case_rng(42, "bench", "tsfile", dtype as u64),
            dtype,
            Shape::RandomWalk,
            N,
        )
    };
    if report.wants("tsfile/ts2diff") {
        let Values::Int64(v) = values(DataType::Int64) else {
            unreachable!()
        };
        let page = rt::encode_i64(&v, 128, false);
        let mut out = vec![0i64; N];
        let mut others: Vec<Vec<i64>> = vec![vec![0i64; N]; kt::IMPLEMENTATIONS_I64.len()];
        let mut contenders = vec![
            contender("kernel", || {
                kt::decode_i64_into(black_box(&page), &mut out).unwrap();
            }),
            contender("reference", || {
                black_box(rt::decode_i64(black_box(&page), N).unwrap());
            }),
        ];
        // Every registered implementation, for the record.
        let page = &page;
        for (imp, out) in kt::IMPLEMENTATIONS_I64
            .iter()
            .zip(&mut others)
            .filter(|(i, _)| i.is_available())
        {
            contenders.push(contender(imp.name, move || {
                (imp.get().expect("available"))(black_box(page), out).unwrap();
            }));
        }
        let t = report.race(
            "tsfile/ts2diff-int64 (1M values)",
            N as f64,
            "G values/s",
            &mut contenders,
        );
        report.add(
            4,
            "tsfile/ts2diff-int64: kernel values/s".into(),
            N as f64 / t[0] / 1e9,
            1.0,
            "G/s",
        );
        report.add(
            4,
            "tsfile/ts2diff-int64: kernel / reference".into(),
            t[1] / t[0],
            10.0,
            "x",
        );
    }
    if report.wants("tsfile/gorilla") {
        let Values::Double(bits) = values(DataType::Double) else {
            unreachable!()
        };
        let page = rg::encode64(&bits, Some(rg::TERMINATOR_F64));
        let mut out = vec![0f64; N];
        let mut others: Vec<Vec<u64>> = vec![vec![0u64; N]; kg::IMPLEMENTATIONS_64.len()];
        let mut contenders = vec![
            contender("kernel", || {
                kg::decode_f64_into(black_box(&page), kg::Stop::Count(N), &mut out).unwrap();
            }),
            contender("reference", || {
                black_box(rg::decode64(black_box(&page), rg::TERMINATOR_F64, rg::Stop::Count(N), N).unwrap());
            }),
        ];
        let page = &page;
        for (imp, out) in kg::IMPLEMENTATIONS_64.iter().zip(&mut others) {
            contenders.push(contender(imp.name, move || {
                (imp.get().expect("available"))(black_box(page), kg::TERMINATOR_F64, kg::Stop::Count(N), out).unwrap();
            }));
        }
        let t = report.race(
            "tsfile/gorilla-double (1M values)",
            N as f64,
            "G values/s",
            &mut contenders,
        );
        report.add(
            4,
            "tsfile/gorilla-double: kernel / reference".into(),
            t[1] / t[0],
            5.0,
            "x",
        );
    }
    if report.wants("tsfile/plain") {
        let Values::Int64(v) = series(
            &mut case_rng(42, "bench", "tsfile", DataType::Int64 as u64),
            DataType::Int64,
            Shape::FullRange,
            N,
        ) else {
            unreachable!()
        };
        let page = rp::encode_i64(&v);
        let mut out = vec![0i64; N];
        let mut contenders = vec![contender("kernel", || {
            kp::decode_be64_into(black_box(&page), &mut out).unwrap();
        })];
        let t = report.race(
            "tsfile/plain-int64 (1M values, 8 MB)",
            page.len() as f64,
            "GB/s",
            &mut contenders,
        );
        report.add(
            4,
            "tsfile/plain-int64: kernel big-endian to native".into(),
            page.len() as f64 / t[0] / 1e9,
            10.0,
            "GB/s",
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; anything else not starting with `-` filters.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let rounds = std::env::var("CROSSDEC_TARGET_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(31);
    let mut report = Report {
        rows: Vec::new(),
        rounds,
        filter,
    };
    qwp(&mut report);
    bytea(&mut report);
    tsfile(&mut report);
    let met = report.rows.iter().filter(|r| r.met).count();
    println!(
        "{met}/{} targets met ({} interleaved rounds per target)",
        report.rows.len(),
        rounds
    );
    let path = match std::env::var_os("CROSSDEC_TARGETS_JSON") {
        Some(path) => std::path::PathBuf::from(path),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/perf-targets.json"),
    };
    let json = serde_json::json!({
        "target": std::env::consts::ARCH,
        "rounds": rounds,
        "targets": report.rows,
    });
    std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    println!("wrote {}", path.display());
}
