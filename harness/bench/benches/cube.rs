//! cube-columnar: 10,000 rows x 3, 8, 16, 32 dimensions (Cube-style values:
//! measures, ids and timestamps as strings). Kernel on columnar input vs the
//! reference on row objects vs arrow-json's reader on the equivalent
//! newline-delimited row JSON.
//!
//! `cargo bench -p crossdec-bench --bench cube`

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossdec_kernels::cube as kernel;
use crossdec_reference::cube as reference;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ROWS: usize = 10_000;

/// Schema and cell texts (JSON) of a `width`-dimension result.
pub fn table(width: usize) -> (SchemaRef, Vec<String>, Vec<Vec<String>>) {
    let mut rng = ChaCha8Rng::seed_from_u64(width as u64);
    let mut fields = Vec::new();
    let mut names = Vec::new();
    let mut cells = Vec::new();
    for d in 0..width {
        let name = match d {
            0 => "orders.status".to_string(),
            1 => "orders.user_id".to_string(),
            2 => "orders.product_id".to_string(),
            _ => format!("orders.dim{}", d - 2),
        };
        let ty = match d % 5 {
            0 => DataType::Utf8,
            1 | 2 => DataType::Int64,
            3 => DataType::Timestamp(TimeUnit::Millisecond, None),
            _ => DataType::Float64,
        };
        let column: Vec<String> = (0..ROWS)
            .map(|_| match &ty {
                DataType::Utf8 => format!("\"{}\"", ["completed", "processing", "shipped"][rng.gen_range(0..3)]),
                DataType::Int64 => format!("\"{}\"", rng.gen_range(0..10_000_000i64)),
                DataType::Timestamp(..) => format!(
                    "\"2024-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}\"",
                    rng.gen_range(1..13),
                    rng.gen_range(1..29),
                    rng.gen_range(0..24),
                    rng.gen_range(0..60),
                    rng.gen_range(0..60),
                    rng.gen_range(0..1000)
                ),
                _ => format!("\"{:.2}\"", rng.gen_range(0.0..100_000.0f64)),
            })
            .collect();
        fields.push(Field::new(&name, ty, true));
        names.push(name);
        cells.push(column);
    }
    (Arc::new(Schema::new(fields)), names, cells)
}

pub fn columnar(names: &[String], cells: &[Vec<String>]) -> Vec<u8> {
    let members: Vec<String> = names.iter().map(|n| serde_json::to_string(n).unwrap()).collect();
    let columns: Vec<String> = cells.iter().map(|c| format!("[{}]", c.join(","))).collect();
    format!(
        "{{\"members\":[{}],\"columns\":[{}]}}",
        members.join(","),
        columns.join(",")
    )
    .into_bytes()
}

fn row_objects(names: &[String], cells: &[Vec<String>]) -> Vec<String> {
    (0..ROWS)
        .map(|r| {
            let members: Vec<String> = names
                .iter()
                .zip(cells)
                .map(|(n, c)| format!("{}:{}", serde_json::to_string(n).unwrap(), c[r]))
                .collect();
            format!("{{{}}}", members.join(","))
        })
        .collect()
}

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
        group.bench_with_input(BenchmarkId::new("kernel-columnar", width), &col_json, |b, json| {
            b.iter(|| kernel::decode_with(&mut kd, json, kernel::Shape::Columnar, &schema, None).unwrap())
        });
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
