//! The Cube result the benchmarks decode: 10,000 rows of Cube-style values
//! (measures, ids and timestamps as strings), in its columnar and row
//! forms.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Rows of every table.
pub const ROWS: usize = 10_000;

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

/// The columnar JSON (`members` and `columns`) of the table.
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

/// One JSON object per row.
pub fn row_objects(names: &[String], cells: &[Vec<String>]) -> Vec<String> {
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
