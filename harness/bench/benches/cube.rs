//! cube-columnar: 10,000 rows x 3, 8, 16, 32 dimensions (Cube-style values:
//! measures, ids and timestamps as strings). Each kernel on columnar input vs the
//! reference on row objects vs arrow-json's reader on the equivalent
//! newline-delimited row JSON.
//!
//! `cargo bench -p crossdec-bench --bench cube`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossdec_bench::cube_data::{columnar, row_objects, table, ROWS};
use crossdec_kernels::cube as kernel;
use crossdec_reference::cube as reference;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("cube-columnar");
    group.sample_size(10);
    for width in [3usize, 8, 16, 32] {
        let (schema, names, cells) = table(width);
        let col_json = columnar(&names, &cells);
        let rows = row_objects(&names, &cells);
        let row_json = format!("[{}]", rows.join(",")).into_bytes();
        let ndjson = rows.join("\n").into_bytes();
        group.throughput(Throughput::Elements(ROWS as u64));

        // All three agree on the data before they are timed.
        let k = kernel::decode(&col_json, kernel::Shape::Columnar, &schema, None).unwrap();
        let r = reference::decode(&row_json, reference::Shape::Rows, &schema, None).unwrap();
        assert_eq!(k, r);
        let mut decoder = arrow_json::ReaderBuilder::new(schema.clone())
            .with_batch_size(ROWS)
            .build_decoder()
            .unwrap();
        decoder.decode(&ndjson).unwrap();
        let a = decoder.flush().unwrap().unwrap();
        assert_eq!(a.num_rows(), ROWS);

        let mut kd = kernel::CubeDecoder::new();
        for imp in kernel::IMPLEMENTATIONS {
            let decode = imp.get().expect("the Cube kernels are portable");
            let variant = imp.name.trim_start_matches("cube/");
            group.bench_with_input(
                BenchmarkId::new(format!("kernel-columnar/{variant}"), width),
                &col_json,
                |b, json| b.iter(|| decode(&mut kd, json, kernel::Shape::Columnar, &schema, None).unwrap()),
            );
        }
        group.bench_with_input(BenchmarkId::new("kernel-rows", width), &row_json, |b, json| {
            b.iter(|| kernel::decode_with(&mut kd, json, kernel::Shape::Rows, &schema, None).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("reference-rows", width), &row_json, |b, json| {
            b.iter(|| reference::decode(json, reference::Shape::Rows, &schema, None).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("arrow-json-ndjson", width), &ndjson, |b, json| {
            b.iter(|| {
                let mut d = arrow_json::ReaderBuilder::new(schema.clone())
                    .with_batch_size(ROWS)
                    .build_decoder()
                    .unwrap();
                d.decode(json).unwrap();
                d.flush().unwrap().unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
