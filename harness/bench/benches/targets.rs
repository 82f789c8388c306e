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
//! writes `perf-targets.json` in cargo's target directory. `CROSSDEC_TARGET_ROUNDS` (default 31)
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
    /// Code under test (a kernel), not a reference or a peer: what
    /// `CROSSDEC_TARGETS_SLOWDOWN` slows.
    under_test: bool,
}

/// Code under test: a kernel.
fn contender<'a>(name: &'static str, call: impl FnMut() + 'a) -> Contender<'a> {
    Contender {
        name,
        call: Box::new(call),
        under_test: true,
    }
}

/// What the code under test is measured against: the reference or a peer.
fn peer<'a>(name: &'static str, call: impl FnMut() + 'a) -> Contender<'a> {
    Contender {
        under_test: false,
        ..contender(name, call)
    }
}

/// `CROSSDEC_TARGETS_SLOWDOWN=F` (a fraction, e.g. 0.15): every batch of
/// the code under test spins until it has spent 1 + F times its CPU time,
/// a slowdown planted in the measurement so that `ci/bench-compare
/// --selftest` can show which slowdown its verdict catches on this machine.
fn planted_slowdown() -> f64 {
    std::env::var("CROSSDEC_TARGETS_SLOWDOWN")
        .ok()
        .map(|f| f.parse().expect("CROSSDEC_TARGETS_SLOWDOWN is a fraction, e.g. 0.15"))
        .unwrap_or(0.0)
}

/// This thread's CPU time in seconds where the system keeps it (Linux):
/// a batch preempted by another process on a loaded machine is not charged
/// for the time it waited, so a slowdown of the code shows through the
/// load instead of drowning in it. Elsewhere, wall time.
fn cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64()
    }
}

/// How long each contender runs before its rounds (caches, branch
/// predictors, lazy dispatch), which also sizes its batches.
const WARM_UP: Duration = Duration::from_millis(30);

/// The CPU time of one batch: long enough that a call's own noise and the
/// clock's resolution vanish, short enough that the 300-odd contenders of
/// a whole run finish in about a minute.
const BATCH_SECONDS: f64 = 0.002;

/// The fewest calls in a batch: a call of a millisecond or more (a
/// million values) is timed over several, so that one call slowed by a
/// neighbour's memory traffic is not a whole sample.
const MIN_BATCH_CALLS: usize = 4;

/// Median CPU seconds per call of each contender, timed in interleaved
/// rounds. Each round times a batch of calls per contender, sized so each
/// batch takes about [`BATCH_SECONDS`] (a warm cache for the fast ones, as
/// in a real loop).
fn race(contenders: &mut [Contender<'_>], rounds: usize) -> Vec<f64> {
    let mut per_call = vec![0f64; contenders.len()];
    for (c, slot) in contenders.iter_mut().zip(&mut per_call) {
        // Warm up (caches, branch predictors, lazy dispatch) and estimate.
        let start = Instant::now();
        let mut n = 0u32;
        while start.elapsed() < WARM_UP {
            (c.call)();
            n += 1;
        }
        *slot = start.elapsed().as_secs_f64() / n as f64;
    }
    let iters: Vec<usize> = per_call
        .iter()
        .map(|t| ((BATCH_SECONDS / t).ceil() as usize).max(MIN_BATCH_CALLS))
        .collect();
    let slowdown = planted_slowdown();
    let mut samples = vec![Vec::with_capacity(rounds); contenders.len()];
    for round in 0..rounds {
        for k in 0..contenders.len() {
            let idx = (k + round) % contenders.len();
            let c = &mut contenders[idx];
            let start = cpu_seconds();
            for _ in 0..iters[idx] {
                (c.call)();
            }
            if c.under_test && slowdown > 0.0 {
                let until = start + (cpu_seconds() - start) * (1.0 + slowdown);
                while cpu_seconds() < until {
                    std::hint::spin_loop();
                }
            }
            samples[idx].push((cpu_seconds() - start) / iters[idx] as f64);
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
            peer("reference", || {
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
            contenders.push(peer("questdb-rs", move || {
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
            peer("const-hex", || {
                const_hex::decode_to_slice(black_box(digits), &mut out.borrow_mut()).unwrap();
            }),
            peer("reference", || {
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
            peer("reference", || {
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
            peer("reference", || {
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

/// Cube columnar JSON to Arrow on 10,000 rows x 8 dimensions: GB/s of JSON,
/// and against arrow-json reading the same rows as newline-delimited JSON.
fn cube(report: &mut Report) {
    use crossdec_bench::cube_data::{columnar, row_objects, table, ROWS};
    use crossdec_kernels::cube as kernel;
    use crossdec_reference::cube as reference;
    if !report.wants("cube-columnar") {
        return;
    }
    let (schema, names, cells) = table(8);
    let json = columnar(&names, &cells);
    let rows = row_objects(&names, &cells);
    let row_json = format!("[{}]", rows.join(",")).into_bytes();
    let ndjson = rows.join("\n").into_bytes();
    let expected = reference::decode(&row_json, reference::Shape::Rows, &schema, None).unwrap();
    assert_eq!(
        kernel::decode(&json, kernel::Shape::Columnar, &schema, None).unwrap(),
        expected
    );
    let mut decoder = kernel::CubeDecoder::new();
    let mut contenders = vec![
        contender("kernel", || {
            black_box(
                kernel::decode_scanned(&mut decoder, black_box(&json), kernel::Shape::Columnar, &schema, None).unwrap(),
            );
        }),
        peer("arrow-json", || {
            let mut d = arrow_json::ReaderBuilder::new(schema.clone())
                .with_batch_size(ROWS)
                .build_decoder()
                .unwrap();
            d.decode(black_box(&ndjson)).unwrap();
            black_box(d.flush().unwrap().unwrap());
        }),
        peer("reference", || {
            black_box(reference::decode(black_box(&row_json), reference::Shape::Rows, &schema, None).unwrap());
        }),
    ];
    let t = report.race(
        &format!("cube-columnar ({ROWS} rows x 8, {} bytes columnar)", json.len()),
        json.len() as f64,
        "GB/s",
        &mut contenders,
    );
    report.add(
        9,
        "cube-columnar/8: kernel GB/s of JSON".into(),
        json.len() as f64 / t[0] / 1e9,
        1.0,
        "GB/s",
    );
    report.add(9, "cube-columnar/8: kernel / arrow-json".into(), t[1] / t[0], 3.0, "x");
    report.add(9, "cube-columnar/8: kernel / reference".into(), t[2] / t[0], 5.0, "x");
}

/// The seed's aligned scan in memory: 200,000 rows x 8 INT64 columns, pages
/// of 8,192 points, the middle-half window, blocks of 65,536 rows handed
/// back to a pool after each scan, as a reader scanning group after group.
fn tsfile_aligned(report: &mut Report) {
    use crossdec_bench::aligned_data::{chunks, data, kernel_group, reference_group, COLUMNS, ROWS};
    use crossdec_kernels::tsfile::aligned as k;
    use crossdec_reference::tsfile::aligned as r;
    if !report.wants("tsfile-aligned") {
        return;
    }
    let (times, columns) = data();
    let (lo, hi) = (times[ROWS / 4], times[3 * ROWS / 4 - 1]);
    let retained = (ROWS / 2 * COLUMNS) as f64;
    let (t, values) = chunks(&times, &columns, 8192);
    let kg = kernel_group(&t, &values);
    let rg = reference_group(&t, &values);
    let kq = k::Request {
        filter: k::Filter {
            time: Some(k::TimeFilter::Between(lo, hi)),
            field: None,
        },
        offset: 0,
        limit: None,
        columns: (0..COLUMNS).collect(),
        block_rows: 65_536,
        writer: k::Writer::Cpp,
    };
    let rq = r::Request {
        filter: r::Filter {
            time: Some(r::TimeFilter::Between(lo, hi)),
            field: None,
        },
        offset: 0,
        limit: None,
        columns: (0..COLUMNS).collect(),
        block_rows: 65_536,
        writer: r::Writer::Cpp,
    };
    let rows_of = |blocks: &[k::Block]| blocks.iter().map(|b| b.times.len()).sum::<usize>();
    let first = k::scan(&kg, &kq, k::ScanOptions::default()).result.expect("scan");
    assert_eq!(rows_of(&first), ROWS / 2, "the kernel scan keeps the window's rows");
    let reference_rows: usize = r::scan(&rg, &rq).expect("scan").iter().map(|b| b.times.len()).sum();
    assert_eq!(reference_rows, ROWS / 2, "the reference scan keeps the window's rows");
    let mut pool = k::BlockPool::default();
    let mut contenders = vec![
        contender("kernel, reusing", || {
            let out = k::scan_reusing(&kg, &kq, k::ScanOptions::default(), &k::NoDecompress, &mut pool);
            pool.recycle(black_box(out).result.expect("scan"));
        }),
        peer("reference", || {
            black_box(r::scan(&rg, &rq).expect("scan"));
        }),
    ];
    let t = report.race(
        "tsfile-aligned/middle-half (200,000 rows x 8, pages of 8,192)",
        retained,
        "G values/s",
        &mut contenders,
    );
    report.add(
        5,
        "tsfile-aligned/middle-half: kernel values/s".into(),
        retained / t[0] / 1e9,
        1.0,
        "G/s",
    );
    report.add(
        5,
        "tsfile-aligned/middle-half: kernel / reference".into(),
        t[1] / t[0],
        20.0,
        "x",
    );
}

/// Every TsFile encoding and type it decodes, on pages of 1,024 and 65,536
/// values: each registry kernel this CPU runs, into buffers kept across
/// calls (owned texts for TEXT, as a reader returns them), against the
/// reference decoder's owned values. Goal: 10x for TS_2DIFF and RLE, 5x
/// for the others.
fn tsfile_pages(report: &mut Report) {
    use crossdec_bench::tsfile_pages::{kernel, names, page};
    use crossdec_harness::families::tsfile::{decode_with, reference_decode, Encoding};
    for encoding in Encoding::ALL {
        for &dtype in encoding.types() {
            for n in [1_024usize, 65_536] {
                let family = encoding.family_name().trim_start_matches("tsfile-");
                let group = format!("tsfile/{family}-{}/{n}", type_name(dtype));
                if !report.wants(&group) {
                    continue;
                }
                let input = page(encoding, dtype, n);
                let expected = reference_decode(&input).expect("the reference decodes its own encoder's page");
                assert_eq!(expected.values.len(), n, "{group}: the reference's count");
                let names = names(encoding, dtype);
                let mut contenders = Vec::new();
                for &name in &names {
                    // The adapter (canary-checked) runs the same registry
                    // entry; the timed call must decode as many values.
                    let registry_name = if name == "dispatch" {
                        crossdec_harness::families::tsfile::kernel_names(encoding)[0].0
                    } else {
                        name
                    };
                    let adapted = decode_with(encoding, registry_name, &input).expect("the kernel decodes the page");
                    assert_eq!(adapted, expected, "{group}: {name} disagrees with the reference");
                    let mut call = kernel(&input, name);
                    assert_eq!(call(), n, "{group}: {name}'s timed call decodes another count");
                    contenders.push(contender(name, move || {
                        black_box(call());
                    }));
                }
                contenders.push(peer("reference", || {
                    black_box(reference_decode(black_box(&input)).unwrap());
                }));
                let title = format!("{group} ({:.2} bytes/value)", input.page.len() as f64 / n as f64);
                let t = report.race(&title, n as f64, "G values/s", &mut contenders);
                let reference = t[names.len()];
                let goal = if matches!(encoding, Encoding::Ts2Diff | Encoding::Rle) {
                    10.0
                } else {
                    5.0
                };
                for (name, secs) in names.iter().zip(&t) {
                    report.add(4, format!("{group}: {name} / reference"), reference / secs, goal, "x");
                }
            }
        }
    }
}

fn type_name(dtype: DataType) -> &'static str {
    match dtype {
        DataType::Boolean => "boolean",
        DataType::Int32 => "int32",
        DataType::Int64 => "int64",
        DataType::Float => "float",
        DataType::Double => "double",
        DataType::Text => "text",
    }
}

/// What a figure depends on: the CPU's model, its logical cores, and the
/// instruction sets the kernels dispatch on.
fn machine() -> serde_json::Value {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    #[allow(unused_mut)]
    let mut features: Vec<&str> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        for (name, on) in [
            ("ssse3", std::is_x86_feature_detected!("ssse3")),
            ("avx2", std::is_x86_feature_detected!("avx2")),
            ("bmi2", std::is_x86_feature_detected!("bmi2")),
            ("avx512f", std::is_x86_feature_detected!("avx512f")),
            ("avx512vbmi2", std::is_x86_feature_detected!("avx512vbmi2")),
        ] {
            if on {
                features.push(name);
            }
        }
    }
    serde_json::json!({
        "cpu": model,
        "logical_cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "features": features,
    })
}

/// Cargo's target directory, as this build had it (`CARGO_TARGET_TMPDIR`
/// is its `tmp` folder): `CARGO_TARGET_DIR` and `build.target-dir`
/// honoured.
fn target_dir() -> std::path::PathBuf {
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().expect("the target directory holds tmp").to_path_buf()
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
    tsfile_pages(&mut report);
    tsfile_aligned(&mut report);
    cube(&mut report);
    let met = report.rows.iter().filter(|r| r.met).count();
    println!(
        "{met}/{} targets met ({} interleaved rounds per target)",
        report.rows.len(),
        rounds
    );
    let path = match std::env::var_os("CROSSDEC_TARGETS_JSON") {
        Some(path) => std::path::PathBuf::from(path),
        None => target_dir().join("perf-targets.json"),
    };
    let json = serde_json::json!({
        "target": std::env::consts::ARCH,
        "rounds": rounds,
        "clock": if cfg!(target_os = "linux") { "thread CPU time" } else { "wall time" },
        "filter": report.filter,
        "measured_at_unix": std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        "machine": machine(),
        "targets": report.rows,
    });
    std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    println!("wrote {}", path.display());
}
