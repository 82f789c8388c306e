//! qwp-ts: 10,000-row Gorilla timestamp columns of three shapes, decoded by
//! the reference, the kernel (reusable and materializing APIs) and, on
//! x86_64, questdb-rs. Reported as timestamps/s; compare ratios within one run.
//!
//! `cargo bench -p crossdec-bench --bench qwp`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossdec_kernels::qwp as kernel;
use crossdec_reference::qwp as reference;

const ROWS: usize = 10_000;

fn bench(c: &mut Criterion) {
    // Every column is sent Gorilla-encoded by the server.
    for (shape, values) in crossdec_harness::families::qwp::benchmark_shapes(ROWS) {
        let rows: Vec<Option<i64>> = values.iter().map(|v| Some(*v)).collect();
        let (column, encoding) = reference::encode_column(&rows, true);
        assert_eq!(
            encoding,
            reference::Encoding::Gorilla,
            "{shape} must be Gorilla-encoded"
        );
        let expected = reference::decode_column(&column, ROWS, true).unwrap();
        assert_eq!(
            kernel::decode_column(&column, ROWS, true).unwrap().values,
            expected.values
        );

        let mut group = c.benchmark_group(format!("qwp-ts/{shape}"));
        group.throughput(Throughput::Elements(ROWS as u64));
        group.bench_function(BenchmarkId::new("reference", ROWS), |b| {
            b.iter(|| reference::decode_column(black_box(&column), ROWS, true).unwrap())
        });
        let mut decoder = kernel::TimestampDecoder::new();
        let mut out = vec![0i64; ROWS];
        let mut validity = vec![false; ROWS];
        group.bench_function(BenchmarkId::new("kernel", ROWS), |b| {
            b.iter(|| {
                decoder
                    .decode_into(black_box(&column), ROWS, true, &mut out, &mut validity)
                    .unwrap()
            })
        });
        group.bench_function(BenchmarkId::new("kernel-materialize", ROWS), |b| {
            b.iter(|| kernel::decode_column(black_box(&column), ROWS, true).unwrap())
        });
        #[cfg(target_arch = "x86_64")]
        questdb(&mut group, &column, &expected.values);
        group.finish();
    }
}

/// questdb-rs decodes the column inside a minimal RESULT_BATCH; the timed
/// call is its `decode_result_batch`, which decodes the Gorilla stream into
/// its own value buffer. The payload is built once, outside the loop.
#[cfg(target_arch = "x86_64")]
fn questdb(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    column: &[u8],
    expected: &[i64],
) {
    use crossdec_harness::families::qwp::questdb as q;
    use questdb::egress::_bench_internals::{decode_result_batch, Bytes, SymbolDict, ZstdScratch};
    let (payload, flags) = q::result_batch_payload(column, ROWS, true);
    let payload = Bytes::from(payload);
    let decoded = q::decode_payload(&payload, flags).unwrap();
    assert!(decoded.iter().zip(expected).all(|(a, b)| *a == Some(*b)));
    let mut dict = SymbolDict::new();
    let mut schema = None;
    let mut scratch = ZstdScratch::new();
    group.bench_function(BenchmarkId::new("questdb-rs", ROWS), |b| {
        b.iter(|| decode_result_batch(black_box(&payload), flags, &mut dict, &mut schema, &mut scratch).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
