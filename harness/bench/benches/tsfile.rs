//! TsFile page decoders, 1 million values per encoding and type: each kernel
//! against the reference, in values per second (and bytes per second for
//! PLAIN INT64). `cargo bench -p crossdec-bench --bench tsfile [-- FILTER]`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossdec_harness::engine::case_rng;
use crossdec_harness::families::tsfile::generate::{series, Shape};
use crossdec_harness::families::tsfile::{DataType, Values};
use crossdec_kernels::tsfile::{
    camel as kcm, chimp as kc, dictionary as kd, float_scaled as kf, gorilla as kg, plain as kp, regular as kre,
    rlbe as kl, rle as kr, sprintz as ks, ts2diff as kt, zigzag as kz,
};
use crossdec_reference::tsfile::{
    camel as rcm, chimp as rc, dictionary as rd, float_scaled as rf, gorilla as rg, plain as rp, regular as rre,
    rlbe as rl, rle as rr, sprintz as rs, ts2diff as rt, zigzag as rz,
};
use std::time::Duration;

const N: usize = 1_000_000;

fn values(dtype: DataType, shape: Shape) -> Values {
    series(&mut case_rng(42, "bench", "tsfile", dtype as u64), dtype, shape, N)
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

fn ts2diff(c: &mut Criterion) {
    let Values::Int64(v64) = values(DataType::Int64, Shape::RandomWalk) else {
        unreachable!()
    };
    let Values::Int32(v32) = values(DataType::Int32, Shape::RandomWalk) else {
        unreachable!()
    };
    let p64 = rt::encode_i64(&v64, 128, false);
    let p32 = rt::encode_i32(&v32, 128, false);
    let mut g = c.benchmark_group("tsfile/ts2diff-int64");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0i64; N];
    for imp in kt::IMPLEMENTATIONS_I64.iter().filter(|i| i.is_available()) {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&p64), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rt::decode_i64(black_box(&p64), N).unwrap()));
    g.finish();
    let mut g = c.benchmark_group("tsfile/ts2diff-int32");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0i32; N];
    for imp in kt::IMPLEMENTATIONS_I32.iter().filter(|i| i.is_available()) {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&p32), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rt::decode_i32(black_box(&p32), N).unwrap()));
    g.finish();
}

fn gorilla(c: &mut Criterion) {
    for (dtype, name) in [
        (DataType::Double, "double"),
        (DataType::Int64, "int64"),
        (DataType::Float, "float"),
        (DataType::Int32, "int32"),
    ] {
        let v = values(dtype, Shape::RandomWalk);
        let mut g = c.benchmark_group(format!("tsfile/gorilla-{name}"));
        g.throughput(Throughput::Elements(N as u64));
        match v {
            Values::Double(_) | Values::Int64(_) => {
                let (bits, term): (Vec<u64>, u64) = match v {
                    Values::Double(b) => (b, rg::TERMINATOR_F64),
                    Values::Int64(x) => (x.iter().map(|&x| x as u64).collect(), rg::TERMINATOR_I64),
                    _ => unreachable!(),
                };
                let page = rg::encode64(&bits, Some(term));
                let mut out = vec![0u64; N];
                for imp in kg::IMPLEMENTATIONS_64 {
                    g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
                        b.iter(|| {
                            (imp.get().expect("available"))(black_box(&page), term, kg::Stop::Count(N), &mut out)
                                .unwrap()
                        })
                    });
                }
                g.bench_function("reference", |b| {
                    b.iter(|| rg::decode64(black_box(&page), term, rg::Stop::Count(N), N).unwrap())
                });
            }
            _ => {
                let (bits, term): (Vec<u32>, u32) = match v {
                    Values::Float(b) => (b, rg::TERMINATOR_F32),
                    Values::Int32(x) => (x.iter().map(|&x| x as u32).collect(), rg::TERMINATOR_I32),
                    _ => unreachable!(),
                };
                let page = rg::encode32(&bits, Some(term));
                let mut out = vec![0u32; N];
                for imp in kg::IMPLEMENTATIONS_32 {
                    g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
                        b.iter(|| {
                            (imp.get().expect("available"))(black_box(&page), term, kg::Stop::Count(N), &mut out)
                                .unwrap()
                        })
                    });
                }
                g.bench_function("reference", |b| {
                    b.iter(|| rg::decode32(black_box(&page), term, rg::Stop::Count(N), N).unwrap())
                });
            }
        }
        g.finish();
    }
}

fn plain(c: &mut Criterion) {
    let Values::Int64(v64) = values(DataType::Int64, Shape::FullRange) else {
        unreachable!()
    };
    let page = rp::encode_i64(&v64);
    let mut g = c.benchmark_group("tsfile/plain-int64-bytes");
    g.throughput(Throughput::Bytes(page.len() as u64));
    let mut out = vec![0u64; N];
    for imp in kp::IMPLEMENTATIONS_BE64.iter().filter(|i| i.is_available()) {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rp::decode_i64(black_box(&page), N).unwrap()));
    g.finish();

    let Values::Int32(v32) = values(DataType::Int32, Shape::RandomWalk) else {
        unreachable!()
    };
    let page = rp::encode_i32(&v32);
    let mut g = c.benchmark_group("tsfile/plain-int32");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0i32; N];
    g.bench_function("kernel/plain/varint", |b| {
        b.iter(|| kp::decode_i32_into(black_box(&page), &mut out).unwrap())
    });
    g.bench_function("reference", |b| b.iter(|| rp::decode_i32(black_box(&page), N).unwrap()));
    g.finish();

    let Values::Double(vd) = values(DataType::Double, Shape::RandomWalk) else {
        unreachable!()
    };
    let page = rp::encode_f64(&vd.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>());
    let mut g = c.benchmark_group("tsfile/plain-double");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0f64; N];
    g.bench_function("kernel/plain/best", |b| {
        b.iter(|| kp::decode_be64_into(black_box(&page), &mut out).unwrap())
    });
    g.bench_function("reference", |b| b.iter(|| rp::decode_f64(black_box(&page), N).unwrap()));
    g.finish();
}

/// TS_2DIFF and RLE on FLOAT and DOUBLE: sensor readings with two decimals
/// (every value scaled), and the same with every 100th value infinite (a
/// marked page: the form bitmaps are read per value).
fn float_scaled(c: &mut Criterion) {
    let (readings, _) = readings();
    let marked: Vec<f64> = readings
        .iter()
        .enumerate()
        .map(|(i, &v)| if i % 100 == 99 { f64::INFINITY } else { v })
        .collect();
    let floats: Vec<f32> = readings.iter().map(|&v| v as f32).collect();
    for (name, inner) in [("ts2diff", rf::Inner::Ts2Diff), ("rle", rf::Inner::Rle)] {
        for (shape, series) in [("scaled", &readings), ("marked", &marked)] {
            let page = rf::encode_f64(series, inner, 2);
            let mut g = c.benchmark_group(format!("tsfile/{name}-double-{shape}"));
            g.throughput(Throughput::Elements(N as u64));
            let mut out = vec![0f64; N];
            let inners: Vec<(&str, kf::InnerI64)> = match inner {
                rf::Inner::Ts2Diff => kt::IMPLEMENTATIONS_I64
                    .iter()
                    .filter_map(|i| Some((i.name, i.get().ok()?)))
                    .collect(),
                rf::Inner::Rle => kr::IMPLEMENTATIONS_I64
                    .iter()
                    .filter_map(|i| Some((i.name, i.get().ok()?)))
                    .collect(),
            };
            for (kernel, f) in inners {
                g.bench_function(BenchmarkId::new("kernel", kernel), |b| {
                    b.iter(|| kf::decode_f64_into(black_box(&page), f, &mut out).unwrap())
                });
            }
            g.bench_function("reference", |b| {
                b.iter(|| rf::decode_f64(black_box(&page), inner, N).unwrap())
            });
            g.finish();
        }
    }
    let page = rf::encode_f32(&floats, rf::Inner::Ts2Diff, 2);
    let mut g = c.benchmark_group("tsfile/ts2diff-float-scaled");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0f32; N];
    g.bench_function("kernel/best", |b| {
        b.iter(|| kf::ts2diff_f32_into(black_box(&page), &mut out).unwrap())
    });
    g.bench_function("reference", |b| {
        b.iter(|| rf::decode_f32(black_box(&page), rf::Inner::Ts2Diff, N).unwrap())
    });
    g.finish();
}

/// Sensor readings: a temperature-like walk of steps up to ±0.5 kept to two
/// decimals (DOUBLE), and the same in hundredths (INT64): the series
/// SPRINTZ, RLBE and CAMEL were made for.
fn readings() -> (Vec<f64>, Vec<i64>) {
    let mut rng = case_rng(42, "bench", "tsfile", 99);
    let mut hundredths = 2000i64;
    let ints: Vec<i64> = (0..N)
        .map(|_| {
            hundredths += rng.gen_range(-50..=50);
            hundredths
        })
        .collect();
    let doubles = ints.iter().map(|&h| h as f64 / 100.0).collect();
    (doubles, ints)
}

fn sprintz(c: &mut Criterion) {
    let (doubles, ints) = readings();
    let page = rs::encode_i64(&ints);
    let mut g = c.benchmark_group("tsfile/sprintz-int64");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0u64; N];
    for imp in ks::IMPLEMENTATIONS_64 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), false, ks::Writer::Java, &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rs::decode_i64(black_box(&page), N).unwrap()));
    g.finish();
    let page = rs::encode_f64(&doubles);
    let mut g = c.benchmark_group("tsfile/sprintz-double");
    g.throughput(Throughput::Elements(N as u64));
    for imp in ks::IMPLEMENTATIONS_64 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), true, ks::Writer::Java, &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rs::decode_f64(black_box(&page), N).unwrap()));
    g.finish();
}

fn rlbe(c: &mut Criterion) {
    let (doubles, ints) = readings();
    let page = rl::encode_i64(&ints, rl::TopBit::Cleared);
    let mut g = c.benchmark_group("tsfile/rlbe-int64");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0u64; N];
    for imp in kl::IMPLEMENTATIONS_64 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), kl::Sum::Int, &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rl::decode_i64(black_box(&page), N).unwrap()));
    g.finish();
    let page = rl::encode_f64(&doubles, rl::Flavour::JavaFloatDiffs, rl::TopBit::Cleared);
    let mut g = c.benchmark_group("tsfile/rlbe-double-java");
    g.throughput(Throughput::Elements(N as u64));
    for imp in kl::IMPLEMENTATIONS_64 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), kl::Sum::FloatDiffs, &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| {
        b.iter(|| rl::decode_f64(black_box(&page), rl::Flavour::JavaFloatDiffs, N).unwrap())
    });
    g.finish();
}

fn camel(c: &mut Criterion) {
    let (doubles, _) = readings();
    let page = rcm::encode(&doubles);
    let mut g = c.benchmark_group("tsfile/camel-double");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0u64; N];
    for imp in kcm::IMPLEMENTATIONS {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rcm::decode(black_box(&page), N).unwrap()));
    g.finish();
}

fn rle(c: &mut Criterion) {
    let Values::Int32(v32) = values(DataType::Int32, Shape::RandomWalk) else {
        unreachable!()
    };
    // Small values, as RLE is used for: the walk's low 12 bits.
    let v32: Vec<i32> = v32.iter().map(|v| v & 0xFFF).collect();
    let page = rr::encode_i32(&v32, true);
    let mut g = c.benchmark_group("tsfile/rle-int32");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0i32; N];
    for imp in kr::IMPLEMENTATIONS_I32 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rr::decode_i32(black_box(&page), N).unwrap()));
    g.finish();
    let v64: Vec<i64> = v32.iter().map(|&v| (v as i64) << 20).collect();
    let page = rr::encode_i64(&v64, true);
    let mut g = c.benchmark_group("tsfile/rle-int64");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0i64; N];
    for imp in kr::IMPLEMENTATIONS_I64 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rr::decode_i64(black_box(&page), N).unwrap()));
    g.finish();
}

fn zigzag(c: &mut Criterion) {
    let Values::Int32(v32) = values(DataType::Int32, Shape::RandomWalk) else {
        unreachable!()
    };
    let page = rz::encode_i32(&v32);
    let mut g = c.benchmark_group("tsfile/zigzag-int32");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0i32; N];
    for imp in kz::IMPLEMENTATIONS_I32 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rz::decode_i32(black_box(&page), N).unwrap()));
    g.finish();
    // Edge values (0, ±1, the extremes) in random order: varints of 1, 5
    // or 10 bytes whose lengths no branch predicts.
    let Values::Int32(mixed) = values(DataType::Int32, Shape::Edges) else {
        unreachable!()
    };
    let page = rz::encode_i32(&mixed);
    let mut g = c.benchmark_group("tsfile/zigzag-int32-mixed-lengths");
    g.throughput(Throughput::Elements(N as u64));
    for imp in kz::IMPLEMENTATIONS_I32 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rz::decode_i32(black_box(&page), N).unwrap()));
    g.finish();
    let Values::Int64(v64) = values(DataType::Int64, Shape::RandomWalk) else {
        unreachable!()
    };
    let page = rz::encode_i64(&v64);
    let mut g = c.benchmark_group("tsfile/zigzag-int64");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![0i64; N];
    for imp in kz::IMPLEMENTATIONS_I64 {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
        });
    }
    g.bench_function("reference", |b| b.iter(|| rz::decode_i64(black_box(&page), N).unwrap()));
    g.finish();
}

/// A million epoch-millisecond timestamps a second apart from 2023-11-14,
/// with a point missing at random 1 time in `missing_one_in` (0: none), as
/// the Java writer writes them (blocks of 128).
fn timestamps(missing_one_in: u64) -> Vec<i64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut t = 1_700_000_000_000i64;
    (0..N)
        .map(|_| {
            let out = t;
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let missing = missing_one_in != 0 && state.is_multiple_of(missing_one_in);
            t += if missing { 2000 } else { 1000 };
            out
        })
        .collect()
}

fn regular(c: &mut Criterion) {
    for (name, missing_one_in) in [("regular-int64-timestamps", 0), ("regular-int64-missing-1pct", 100)] {
        let times = timestamps(missing_one_in);
        let page = rre::encode_i64(&times, rre::DEFAULT_BLOCK).expect("a regular series");
        let mut g = c.benchmark_group(format!("tsfile/{name}"));
        g.throughput(Throughput::Elements(N as u64));
        let mut out = vec![0i64; N];
        for imp in kre::IMPLEMENTATIONS_I64 {
            g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
                b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut out).unwrap())
            });
        }
        g.bench_function("reference", |b| {
            b.iter(|| rre::decode_i64(black_box(&page), N).unwrap())
        });
        g.finish();
    }
}

fn chimp(c: &mut Criterion) {
    for (dtype, name) in [
        (DataType::Double, "double"),
        (DataType::Int64, "int64"),
        (DataType::Float, "float"),
        (DataType::Int32, "int32"),
    ] {
        let v = values(dtype, Shape::RandomWalk);
        let mut g = c.benchmark_group(format!("tsfile/chimp-{name}"));
        g.throughput(Throughput::Elements(N as u64));
        match v {
            Values::Double(_) | Values::Int64(_) => {
                let (bits, term): (Vec<u64>, u64) = match v {
                    Values::Double(b) => (b, rc::TERMINATOR_F64),
                    Values::Int64(x) => (x.iter().map(|&x| x as u64).collect(), rc::TERMINATOR_I64),
                    _ => unreachable!(),
                };
                let page = rc::encode64(&bits, Some(term));
                let mut out = vec![0u64; N];
                for imp in kc::IMPLEMENTATIONS_64 {
                    g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
                        b.iter(|| {
                            (imp.get().expect("available"))(black_box(&page), term, kc::Stop::Count(N), &mut out)
                                .unwrap()
                        })
                    });
                }
                g.bench_function("reference", |b| {
                    b.iter(|| rc::decode64(black_box(&page), term, rc::Stop::Count(N), N).unwrap())
                });
            }
            _ => {
                let (bits, term): (Vec<u32>, u32) = match v {
                    Values::Float(b) => (b, rc::TERMINATOR_F32),
                    Values::Int32(x) => (x.iter().map(|&x| x as u32).collect(), rc::TERMINATOR_I32),
                    _ => unreachable!(),
                };
                let page = rc::encode32(&bits, Some(term));
                let mut out = vec![0u32; N];
                for imp in kc::IMPLEMENTATIONS_32 {
                    g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
                        b.iter(|| {
                            (imp.get().expect("available"))(black_box(&page), term, kc::Stop::Count(N), &mut out)
                                .unwrap()
                        })
                    });
                }
                g.bench_function("reference", |b| {
                    b.iter(|| rc::decode32(black_box(&page), term, rc::Stop::Count(N), N).unwrap())
                });
            }
        }
        g.finish();
    }
}

fn dictionary(c: &mut Criterion) {
    // 100 distinct strings, in runs of 1 to 16 (a status column).
    let entries: Vec<Vec<u8>> = (0..100).map(|i| format!("device-{i:03}/status").into_bytes()).collect();
    let mut values = Vec::with_capacity(N);
    let mut i = 0usize;
    while values.len() < N {
        let run = (i * 7 % 16 + 1).min(N - values.len());
        values.extend(std::iter::repeat_n(entries[i * 37 % 100].clone(), run));
        i += 1;
    }
    let page = rd::encode(&values, true);
    let mut g = c.benchmark_group("tsfile/dictionary-text");
    g.throughput(Throughput::Elements(N as u64));
    let mut keys = vec![0u32; N];
    for imp in kd::IMPLEMENTATIONS {
        g.bench_function(BenchmarkId::new("kernel", imp.name), |b| {
            let mut dict = Vec::new();
            b.iter(|| (imp.get().expect("available"))(black_box(&page), &mut dict, &mut keys).unwrap())
        });
    }
    // The values as owned strings (what the reference returns) from the keys.
    g.bench_function("kernel/dictionary/keys+copies", |b| {
        let mut dict = Vec::new();
        b.iter(|| {
            let done = kd::decode_into(black_box(&page), &mut dict, &mut keys).unwrap();
            keys[..done.values]
                .iter()
                .map(|&k| dict[k as usize].to_vec())
                .collect::<Vec<_>>()
        })
    });
    g.bench_function("reference", |b| b.iter(|| rd::decode(black_box(&page), N).unwrap()));
    g.finish();
}

criterion_group! { name = benches; config = config(); targets = ts2diff, float_scaled, gorilla, plain, rle, zigzag, chimp, dictionary, sprintz, rlbe, camel, regular }
criterion_main!(benches);
