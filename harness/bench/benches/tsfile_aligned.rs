//! The seed's benchmark (`002_8cb3312a337eb4c4`): an aligned chunk group of
//! 200,000 rows x 8 INT64 columns (TS_2DIFF), pages of 512 and 8,192
//! points, scanned under a window covering the middle half, with blocks of
//! 32,768 and 65,536 rows. Contenders in one run: the kernel scanner (fresh
//! blocks each scan, and blocks handed back to a `BlockPool` after each),
//! the kernel with bulk copy and in-place decode switched off
//! (`ScanOptions::baseline`), and the reference scanner; then the slow paths
//! (a TimeIn filter and a FIELD filter) with the kernel. Throughput is the
//! values retained (100,000 rows x 8 columns).
//! `cargo bench -p crossdec-bench --bench tsfile_aligned`.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossdec_bench::aligned_data::{chunks, data, kernel_group, reference_group, COLUMNS, ROWS};
use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
}

fn bench(c: &mut Criterion) {
    let (times, columns) = data();
    let (lo, hi) = (times[ROWS / 4], times[3 * ROWS / 4 - 1]);
    let retained = (ROWS / 2 * COLUMNS) as u64;
    let mut g = c.benchmark_group("tsfile-aligned/middle-half");
    g.throughput(Throughput::Elements(retained));
    for page in [512usize, 8192] {
        let (t, values) = chunks(&times, &columns, page);
        let rg = reference_group(&t, &values);
        let kg = kernel_group(&t, &values);
        for block in [32_768usize, 65_536] {
            let kq = |time: k::TimeFilter, field: Option<k::FieldFilter>| k::Request {
                filter: k::Filter {
                    time: Some(time),
                    field,
                },
                offset: 0,
                limit: None,
                columns: (0..COLUMNS).collect(),
                block_rows: block,
                writer: k::Writer::Cpp,
            };
            let window = kq(k::TimeFilter::Between(lo, hi), None);
            let id = |who: &str| BenchmarkId::new(who, format!("pages {page}, blocks {block}"));
            // The three contenders interleaved in one group and run.
            g.bench_function(id("kernel"), |b| {
                b.iter(|| black_box(k::scan(&kg, &window, k::ScanOptions::default())))
            });
            // Its blocks handed back after each scan, as a reader scanning
            // group after group does: no fresh memory to fault in.
            let mut pool = k::BlockPool::new();
            g.bench_function(id("kernel-reusing-blocks"), |b| {
                b.iter(|| {
                    let out = k::scan_reusing(&kg, &window, k::ScanOptions::default(), &k::NoDecompress, &mut pool);
                    pool.recycle(black_box(out).result.expect("scan"));
                })
            });
            g.bench_function(id("kernel-baseline"), |b| {
                b.iter(|| black_box(k::scan(&kg, &window, k::ScanOptions::baseline())))
            });
            // The same with blocks handed back: the optimizations' gain
            // without the first touch of fresh blocks in either.
            g.bench_function(id("kernel-baseline-reusing-blocks"), |b| {
                b.iter(|| {
                    let out = k::scan_reusing(&kg, &window, k::ScanOptions::baseline(), &k::NoDecompress, &mut pool);
                    pool.recycle(black_box(out).result.expect("scan"));
                })
            });
            let rq = r::Request {
                filter: r::Filter {
                    time: Some(r::TimeFilter::Between(lo, hi)),
                    field: None,
                },
                offset: 0,
                limit: None,
                columns: (0..COLUMNS).collect(),
                block_rows: block,
                writer: r::Writer::Cpp,
            };
            g.bench_function(id("reference"), |b| b.iter(|| black_box(r::scan(&rg, &rq))));
            // The slow paths, so their cost is visible: a TimeIn of every
            // time in the window (row by row) and a FIELD filter.
            if block == 32_768 {
                let all_in = kq(k::TimeFilter::In(times[ROWS / 4..3 * ROWS / 4].to_vec()), None);
                g.bench_function(id("kernel-time-in"), |b| {
                    b.iter(|| black_box(k::scan(&kg, &all_in, k::ScanOptions::default())))
                });
                let field = kq(
                    k::TimeFilter::Between(lo, hi),
                    Some(k::FieldFilter {
                        column: 0,
                        op: k::FieldOp::IsNotNull,
                    }),
                );
                g.bench_function(id("kernel-field-filter"), |b| {
                    b.iter(|| black_box(k::scan(&kg, &field, k::ScanOptions::default())))
                });
                // A FIELD filter most pages' value statistics exclude:
                // column 0 above its window maximum less 200 (the random
                // walk is near its top in a few pages only), with value
                // pruning and without (the baseline).
                let top = columns[0][ROWS / 4..3 * ROWS / 4]
                    .iter()
                    .flatten()
                    .map(|v| if let r::Value::I64(x) = v { *x } else { i64::MIN })
                    .max()
                    .expect("values");
                let prune = kq(
                    k::TimeFilter::Between(lo, hi),
                    Some(k::FieldFilter {
                        column: 0,
                        op: k::FieldOp::Cmp(k::CmpOp::Gt, k::Value::I64(top - 200)),
                    }),
                );
                g.bench_function(id("kernel-field-prune"), |b| {
                    b.iter(|| black_box(k::scan(&kg, &prune, k::ScanOptions::default())))
                });
                g.bench_function(id("kernel-field-prune-baseline"), |b| {
                    b.iter(|| black_box(k::scan(&kg, &prune, k::ScanOptions::baseline())))
                });
                let out = k::scan(&kg, &prune, k::ScanOptions::default());
                let rows: usize = out.result.as_ref().map_or(0, |b| b.iter().map(|b| b.rows()).sum());
                eprintln!(
                    "field-prune, pages {page}: {} of {} pages skipped by value statistics, {rows} rows",
                    out.stats.skipped_by_value_statistics,
                    out.stats.plan.len()
                );
            }
        }
    }
    g.finish();
}

criterion_group! { name = benches; config = config(); targets = bench }
criterion_main!(benches);
