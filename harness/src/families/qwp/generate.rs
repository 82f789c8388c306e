//! Case generators for `qwp-ts`: valid streams go values -> bytes through the
//! reference encoder; malformed ones are valid streams damaged on purpose.

use crate::engine::SliceDraw;
use crossdec_reference::qwp::{self as reference, Encoding};

use super::QwpInput;
use crate::engine::{bytes, size_limit, Case, CaseRng};

pub const CATEGORIES: &[(&str, f64)] = &[
    ("constant", 1.0),
    ("jittered", 1.0),
    ("irregular", 1.0),
    ("nulls", 1.0),
    ("dod-buckets", 1.0),
    ("int64-edges", 1.0),
    ("raw", 0.5),
    ("malformed-truncation", 0.05),
    ("malformed-bitflip", 1.0),
    ("malformed-header", 0.2),
    ("malformed-counts", 0.5),
    ("reuse", 0.5),
];

/// Timestamp series shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Every delta equal: the bitstream is all `0` control bits.
    Constant,
    /// A base interval plus small noise: mostly the 7- and 9-bit buckets.
    Jittered,
    /// Deltas of every size: every bucket, sometimes beyond int32 (raw).
    Irregular,
}

/// Null patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nulls {
    None,
    Sparse,
    Dense,
    All,
}

/// A series of `len` timestamps of the given shape (the same generator the
/// benchmarks use).
pub fn series(rng: &mut CaseRng, shape: Shape, len: usize) -> Vec<i64> {
    let start: i64 = match rng.gen_range(0..4) {
        0 => rng.gen(),
        // Microseconds around 2024..2027.
        _ => rng.gen_range(1_700_000_000_000_000..1_800_000_000_000_000),
    };
    let interval: i64 = *[1, 1_000, 1_000_000, 60_000_000].choose(rng).unwrap();
    let jitter: i64 = *[1, 20, 60, 250, 2_000, 100_000].choose(rng).unwrap();
    let mut t = start;
    let mut out = Vec::with_capacity(len);
    for _ in 0..len {
        out.push(t);
        let delta = match shape {
            Shape::Constant => interval,
            Shape::Jittered => interval + rng.gen_range(-jitter..=jitter),
            Shape::Irregular => match rng.gen_range(0..10) {
                0 => rng.gen_range(-1_000_000_000..1_000_000_000_000),
                1..=3 => rng.gen_range(0..3_000),
                _ => rng.gen_range(0..1_000_000),
            },
        };
        t = t.wrapping_add(delta);
    }
    out
}

fn null_mask(rng: &mut CaseRng, nulls: Nulls, len: usize) -> Vec<bool> {
    (0..len)
        .map(|_| match nulls {
            Nulls::None => false,
            Nulls::Sparse => rng.gen_bool(0.03),
            Nulls::Dense => rng.gen_bool(0.7),
            Nulls::All => true,
        })
        .collect()
}

fn random_nulls(rng: &mut CaseRng) -> Nulls {
    match rng.gen_range(0..10) {
        0..=5 => Nulls::None,
        6 | 7 => Nulls::Sparse,
        8 => Nulls::Dense,
        _ => Nulls::All,
    }
}

/// Mostly short columns, sometimes long ones.
fn random_len(rng: &mut CaseRng) -> usize {
    size_limit::apply(match rng.gen_range(0..20) {
        0 => rng.gen_range(2_000..12_000),
        1..=4 => rng.gen_range(100..2_000),
        _ => rng.gen_range(0..100),
    })
}

/// Rows: the dense series spread over a null mask.
fn with_nulls(dense: &[i64], mask: &[bool]) -> Vec<Option<i64>> {
    let mut next = dense.iter();
    mask.iter()
        .map(|null| if *null { None } else { next.next().copied() })
        .collect()
}

/// Encode as the server would (with FLAG_GORILLA most of the time).
fn server_input(rng: &mut CaseRng, rows: &[Option<i64>]) -> QwpInput {
    let gorilla_flag = rng.gen_bool(0.9);
    let (column, _) = reference::encode_column(rows, gorilla_flag);
    QwpInput {
        column,
        row_count: rows.len() as u32,
        gorilla_flag,
    }
}

/// Force the Gorilla encoding when the values allow it (small columns the
/// server would send raw), else the server's choice.
fn forced_gorilla(rows: &[Option<i64>]) -> QwpInput {
    let column =
        reference::encode_column_as(rows, Encoding::Gorilla).unwrap_or_else(|| reference::encode_column(rows, true).0);
    QwpInput {
        column,
        row_count: rows.len() as u32,
        gorilla_flag: true,
    }
}

fn shaped_rows(rng: &mut CaseRng, shape: Shape, nulls: Nulls) -> Vec<Option<i64>> {
    let len = random_len(rng);
    let mask = null_mask(rng, nulls, len);
    let dense_len = mask.iter().filter(|n| !**n).count();
    with_nulls(&series(rng, shape, dense_len), &mask)
}

/// Values built from two seeds and a list of delta-of-deltas, wrapping.
fn from_dods(t0: i64, d1: i64, dods: &[i64]) -> Vec<i64> {
    let mut out = vec![t0, t0.wrapping_add(d1)];
    let mut d = d1;
    for dod in dods {
        d = d.wrapping_add(*dod);
        out.push(out.last().unwrap().wrapping_add(d));
    }
    out
}

/// Every bucket boundary and its neighbours, and the edges of int32.
const BOUNDARY_DODS: &[i64] = &[
    0,
    1,
    -1,
    63,
    -64,
    64,
    -65,
    255,
    -256,
    256,
    -257,
    2047,
    -2048,
    2048,
    -2049,
    i32::MAX as i64,
    i32::MIN as i64,
    i32::MAX as i64 + 1,
    i32::MIN as i64 - 1,
    1 << 31,
    -(1 << 31),
];

fn valid_stream(rng: &mut CaseRng) -> QwpInput {
    let shape = *[Shape::Constant, Shape::Jittered, Shape::Irregular]
        .choose(rng)
        .unwrap();
    let nulls = random_nulls(rng);
    let mut rows = shaped_rows(rng, shape, nulls);
    rows.truncate(rng.gen_range(3..200));
    if rng.gen_bool(0.5) {
        forced_gorilla(&rows)
    } else {
        server_input(rng, &rows)
    }
}

pub fn generate(category: &str, index: u64, rng: &mut CaseRng) -> Vec<Case<QwpInput>> {
    match category {
        "constant" | "jittered" | "irregular" => {
            let shape = match category {
                "constant" => Shape::Constant,
                "jittered" => Shape::Jittered,
                _ => Shape::Irregular,
            };
            let nulls = random_nulls(rng);
            let rows = shaped_rows(rng, shape, nulls);
            vec![Case::one(server_input(rng, &rows)), Case::one(forced_gorilla(&rows))]
        }
        "nulls" => {
            let nulls = [Nulls::None, Nulls::Sparse, Nulls::Dense, Nulls::All][(index % 4) as usize];
            let shape = *[Shape::Constant, Shape::Jittered, Shape::Irregular]
                .choose(rng)
                .unwrap();
            let rows = shaped_rows(rng, shape, nulls);
            vec![Case::one(server_input(rng, &rows)), Case::one(forced_gorilla(&rows))]
        }
        "dod-buckets" => {
            // A run of DoDs drawn from the boundaries, around a random base.
            let len = rng.gen_range(1..40);
            let dods: Vec<i64> = (0..len)
                .map(|_| {
                    let b = *BOUNDARY_DODS.choose(rng).unwrap();
                    if rng.gen_bool(0.8) {
                        b
                    } else {
                        b + rng.gen_range(-2..=2)
                    }
                })
                .collect();
            let values = from_dods(rng.gen(), rng.gen_range(-5000..5000), &dods);
            let rows: Vec<_> = values.iter().map(|v| Some(*v)).collect();
            vec![Case::one(server_input(rng, &rows)), Case::one(forced_gorilla(&rows))]
        }
        "int64-edges" => {
            let values = match index % 4 {
                0 => vec![i64::MIN + 1, i64::MAX, i64::MAX - 2, i64::MAX - 4],
                1 => {
                    // A constant interval that wraps past i64::MAX.
                    let d = rng.gen_range(1..1_000_000);
                    let start = i64::MAX - d * rng.gen_range(0..50);
                    (0..rng.gen_range(3..100)).map(|k| start.wrapping_add(d * k)).collect()
                }
                2 => {
                    let edges = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];
                    (0..rng.gen_range(3..20)).map(|_| *edges.choose(rng).unwrap()).collect()
                }
                _ => {
                    // Huge deltas whose DoDs still fit in int32 after wrapping.
                    let d1: i64 = rng.gen();
                    let dods: Vec<i64> = (0..rng.gen_range(1..30)).map(|_| rng.gen_range(-3000..3000)).collect();
                    from_dods(rng.gen(), d1, &dods)
                }
            };
            let rows: Vec<_> = values.iter().map(|v| Some(*v)).collect();
            vec![Case::one(server_input(rng, &rows)), Case::one(forced_gorilla(&rows))]
        }
        "raw" => {
            let shape = *[Shape::Constant, Shape::Irregular].choose(rng).unwrap();
            let nulls = random_nulls(rng);
            let mut rows = shaped_rows(rng, shape, nulls);
            if rng.gen_bool(0.3) {
                rows.truncate(rng.gen_range(0..3));
            }
            let without_flag = QwpInput {
                column: reference::encode_column(&rows, false).0,
                row_count: rows.len() as u32,
                gorilla_flag: false,
            };
            let raw_with_flag = QwpInput {
                column: reference::encode_column_as(&rows, Encoding::Raw).expect("raw always encodes"),
                row_count: rows.len() as u32,
                gorilla_flag: true,
            };
            vec![Case::one(without_flag), Case::one(raw_with_flag)]
        }
        "malformed-truncation" => bytes::truncations(&valid_stream(rng)),
        "malformed-bitflip" => {
            let mut input = valid_stream(rng);
            let flips = rng.gen_range(1..=3);
            for _ in 0..flips {
                let bit = rng.gen_range(0..input.column.len() * 8);
                input.column[bit / 8] ^= 1 << (bit % 8);
            }
            vec![Case::one(input)]
        }
        "malformed-header" => malformed_header(rng, index),
        "malformed-counts" => {
            // A valid stream with a row count larger (or smaller) than it holds.
            let input = valid_stream(rng);
            let rows = input.row_count;
            let bigger = [
                rows + 1,
                rows + 8,
                rows * 2 + 3,
                rng.gen_range(rows + 1..=reference::MAX_ROWS as u32),
            ];
            let mut out: Vec<_> = bigger
                .iter()
                .map(|&row_count| {
                    Case::one(QwpInput {
                        row_count,
                        ..input.clone()
                    })
                })
                .collect();
            if rows > 0 {
                out.push(Case::one(QwpInput {
                    row_count: rng.gen_range(0..rows),
                    ..input.clone()
                }));
            }
            out
        }
        "reuse" => {
            // Batches decoded by one decoder; the last is larger than all before it.
            let steps = rng.gen_range(2..=6);
            let mut batches: Vec<QwpInput> = Vec::new();
            for _ in 0..steps - 1 {
                let nulls = random_nulls(rng);
                let mut rows = shaped_rows(rng, Shape::Jittered, nulls);
                rows.truncate(rng.gen_range(3..300));
                batches.push(if rng.gen_bool(0.5) {
                    forced_gorilla(&rows)
                } else {
                    server_input(rng, &rows)
                });
            }
            let largest = batches.iter().map(|b| b.row_count).max().unwrap_or(0);
            let len = largest as usize + rng.gen_range(1..2000);
            let shape = *[Shape::Constant, Shape::Jittered, Shape::Irregular]
                .choose(rng)
                .unwrap();
            let nulls = if rng.gen_bool(0.5) { Nulls::Sparse } else { Nulls::Dense };
            let mask = null_mask(rng, nulls, len);
            let dense = series(rng, shape, mask.iter().filter(|n| !**n).count());
            batches.push(forced_gorilla(&with_nulls(&dense, &mask)));
            vec![Case { steps: batches }]
        }
        other => panic!("qwp-ts has no category {other}"),
    }
}

fn malformed_header(rng: &mut CaseRng, index: u64) -> Vec<Case<QwpInput>> {
    let input = valid_stream(rng);
    let mut out = Vec::new();
    match index % 5 {
        0 => {
            // Every invalid null flag.
            for flag in 2..=255u8 {
                let mut column = input.column.clone();
                column[0] = flag;
                out.push(Case::one(QwpInput {
                    column,
                    ..input.clone()
                }));
            }
        }
        1 => {
            // Every invalid encoding byte.
            let at = if input.column[0] == 1 {
                1 + (input.row_count as usize).div_ceil(8)
            } else {
                1
            };
            for encoding in 2..=255u8 {
                let mut column = input.column.clone();
                // A stream sent without FLAG_GORILLA has no encoding byte
                // (found with 2,000 cases: an all-null raw column ended
                // right there); insert one instead of overwriting.
                if input.gorilla_flag {
                    column[at] = encoding;
                } else {
                    column.insert(at, encoding);
                }
                out.push(Case::one(QwpInput {
                    column,
                    gorilla_flag: true,
                    ..input.clone()
                }));
            }
        }
        2 => {
            // Row counts over the cap, including u32::MAX.
            for row_count in [
                reference::MAX_ROWS as u32 + 1,
                rng.gen_range(reference::MAX_ROWS as u32 + 1..=u32::MAX),
                u32::MAX,
            ] {
                out.push(Case::one(QwpInput {
                    row_count,
                    ..input.clone()
                }));
            }
        }
        3 => {
            // Gorilla columns with 0, 1 or 2 values (seeds present or not).
            for n in 0..3u32 {
                let mut column = vec![0u8, 1];
                for _ in 0..n {
                    column.extend_from_slice(&rng.gen::<i64>().to_le_bytes());
                }
                out.push(Case::one(QwpInput {
                    column,
                    row_count: n,
                    gorilla_flag: true,
                }));
            }
        }
        _ => {
            // A bitmap or encoding byte missing; the wrong FLAG_GORILLA.
            let mut rows = vec![Some(1i64); rng.gen_range(9..40)];
            let null_row = rng.gen_range(0..rows.len());
            rows[null_row] = None;
            let column = reference::encode_column(&rows, true).0;
            for keep in [1, 2, 1 + rows.len().div_ceil(8)] {
                out.push(Case::one(QwpInput {
                    column: column[..keep].to_vec(),
                    row_count: rows.len() as u32,
                    gorilla_flag: true,
                }));
            }
            out.push(Case::one(QwpInput {
                gorilla_flag: !input.gorilla_flag,
                ..input
            }));
        }
    }
    out
}

/// The benchmark columns (`benches/qwp.rs`, `benches/targets.rs`): `rows`
/// timestamps of three shapes from a fixed seed. Constant: one reading per
/// second, exactly. Jittered: one per second with up to 100 µs of jitter
/// (the 7- and 9-bit DoD buckets). Irregular: event times up to 2 s apart
/// (mostly the 32-bit bucket).
pub fn benchmark_shapes(rows: usize) -> Vec<(&'static str, Vec<i64>)> {
    let mut rng = CaseRng::seed_from_u64(42);
    let start = 1_750_000_000_000_000i64;
    let mut walk = |delta: &mut dyn FnMut(&mut CaseRng) -> i64| {
        let mut t = start;
        (0..rows)
            .map(|_| {
                let v = t;
                t += delta(&mut rng);
                v
            })
            .collect::<Vec<_>>()
    };
    vec![
        ("constant", walk(&mut |_| 1_000_000)),
        ("jittered", walk(&mut |r| 1_000_000 + r.gen_range(-100..=100))),
        ("irregular", walk(&mut |r| r.gen_range(0..2_000_000))),
    ]
}
