//! One TsFile page per encoding and type, and a call of a named registry
//! kernel into buffers that outlive the call, as a reader that decodes page
//! after page keeps them. The campaign's adapter (`decode_with`) fills and
//! checks canaries around every call, which is right for a test and wrong
//! for a timing; the two call the same registry entry, and the benchmark
//! holds the timed call's count and the adapter's values to the reference
//! before it times anything.

use crossdec_harness::engine::{case_rng, SliceDraw};
use crossdec_harness::families::tsfile::generate::{encode, series, Shape};
use crossdec_harness::families::tsfile::{DataType, Encoding, StopMode, TsInput, Values, Writer};
use crossdec_kernels::by_name;
use crossdec_kernels::tsfile::{
    camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, zigzag, Done,
};

/// A page of `n` values of `dtype` in `encoding`, as its writer writes it:
/// a random walk for most pairs; an arithmetic progression for REGULAR
/// (the series it exists for); prices with two decimals for CAMEL (its
/// decimal fast path); 16 distinct texts for DICTIONARY.
pub fn page(encoding: Encoding, dtype: DataType, n: usize) -> TsInput {
    let key = (encoding.id() as u64) << 8 | dtype as u64;
    let mut rng = case_rng(42, "bench", "tsfile-pages", key);
    let values = match (encoding, dtype) {
        (Encoding::Regular, DataType::Int32) => Values::Int32((0..n as i32).map(|i| 1_000 + 60 * i).collect()),
        (Encoding::Regular, _) => Values::Int64((0..n as i64).map(|i| 1_700_000_000_000 + 1_000 * i).collect()),
        (Encoding::Camel, _) => {
            let mut price = 100.0f64;
            Values::Double(
                (0..n)
                    .map(|_| {
                        price = ((price + rng.gen_range(-0.5..0.5)) * 100.0).round() / 100.0;
                        price.to_bits()
                    })
                    .collect(),
            )
        }
        (Encoding::Dictionary, _) => {
            let entries: Vec<Vec<u8>> = (0..16).map(|i| format!("device-{i:02}.status").into_bytes()).collect();
            Values::Text(
                (0..n)
                    .map(|_| entries.choose(&mut rng).expect("16 entries").clone())
                    .collect(),
            )
        }
        _ => series(&mut rng, dtype, Shape::RandomWalk, n),
    };
    let mut input = encode(&mut rng, encoding, &values);
    // The Java writer's layout where the writers differ, and a counted stop
    // where the encoding has one: what a reader of a Java-written file does.
    if Writer::matters(encoding, dtype) && input.writer != Writer::Java {
        return page_java(encoding, dtype, n, &values);
    }
    input.max_values = n as u32;
    input
}

/// Draws again until the encoder picks the Java writer's layout.
fn page_java(encoding: Encoding, dtype: DataType, n: usize, values: &Values) -> TsInput {
    (1..)
        .map(|attempt| {
            let key = (encoding.id() as u64) << 8 | dtype as u64;
            let mut rng = case_rng(42 + attempt, "bench", "tsfile-pages", key);
            encode(&mut rng, encoding, values)
        })
        .find(|input| input.writer == Writer::Java)
        .map(|mut input| {
            input.max_values = n as u32;
            input
        })
        .expect("the encoder picks the Java writer seven times in ten")
}

/// Output buffers reused across calls.
#[derive(Default)]
struct Out {
    bools: Vec<bool>,
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    u32s: Vec<u32>,
    u64s: Vec<u64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
}

fn sized<T: Default + Clone>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    v.resize(n, T::default());
    &mut v[..]
}

/// The values a call of the registry kernel `name` decodes from `input`
/// (owned texts for TEXT pages, as a reader returns them), with buffers
/// kept across calls. Panics on a decode error: the benchmark checks every
/// page before it times it.
pub fn kernel<'a>(input: &'a TsInput, name: &'static str) -> Box<dyn FnMut() -> usize + 'a> {
    let page = &input.page[..];
    let n = input.max_values as usize;
    let stop = match input.stop {
        StopMode::AtTerminator => gorilla::Stop::AtTerminator,
        StopMode::Count(c) => gorilla::Stop::Count(c as usize),
    };
    let sprintz_writer = match input.writer {
        Writer::Java => sprintz::Writer::Java,
        Writer::Cpp => sprintz::Writer::Cpp,
    };
    let float = matches!(input.dtype, DataType::Float | DataType::Double);
    let rlbe_sum = if float && input.writer == Writer::Java {
        rlbe::Sum::FloatDiffs
    } else {
        rlbe::Sum::Int
    };
    let mut o = Out::default();
    let done = |r: Result<Done, crossdec_kernels::tsfile::DecodeError>| r.expect("checked before timing").values;
    use DataType as T;
    use Encoding as E;
    match (input.encoding, input.dtype) {
        (E::Ts2Diff, T::Int32) => {
            let f = by_name(ts2diff::IMPLEMENTATIONS_I32, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i32s, n))))
        }
        (E::Ts2Diff, T::Int64) => {
            let f = by_name(ts2diff::IMPLEMENTATIONS_I64, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i64s, n))))
        }
        (E::Ts2Diff, T::Float) => {
            let f = by_name(ts2diff::IMPLEMENTATIONS_I32, name).expect("available");
            Box::new(move || done(float_scaled::decode_f32_into(page, f, sized(&mut o.f32s, n))))
        }
        (E::Ts2Diff, T::Double) => {
            let f = by_name(ts2diff::IMPLEMENTATIONS_I64, name).expect("available");
            Box::new(move || done(float_scaled::decode_f64_into(page, f, sized(&mut o.f64s, n))))
        }
        (E::Rle, T::Boolean) => Box::new(move || done(rle::decode_bool_into(page, sized(&mut o.bools, n)))),
        (E::Rle, T::Int32) => {
            let f = by_name(rle::IMPLEMENTATIONS_I32, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i32s, n))))
        }
        (E::Rle, T::Int64) => {
            let f = by_name(rle::IMPLEMENTATIONS_I64, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i64s, n))))
        }
        (E::Rle, T::Float) => {
            let f = by_name(rle::IMPLEMENTATIONS_I32, name).expect("available");
            Box::new(move || done(float_scaled::decode_f32_into(page, f, sized(&mut o.f32s, n))))
        }
        (E::Rle, T::Double) => {
            let f = by_name(rle::IMPLEMENTATIONS_I64, name).expect("available");
            Box::new(move || done(float_scaled::decode_f64_into(page, f, sized(&mut o.f64s, n))))
        }
        (E::Gorilla | E::Chimp, T::Int32 | T::Float) => {
            let (f, term) = match (input.encoding, input.dtype) {
                (E::Gorilla, T::Float) => (by_name(gorilla::IMPLEMENTATIONS_32, name), gorilla::TERMINATOR_F32),
                (E::Gorilla, _) => (by_name(gorilla::IMPLEMENTATIONS_32, name), gorilla::TERMINATOR_I32),
                (_, T::Float) => (by_name(chimp::IMPLEMENTATIONS_32, name), chimp::TERMINATOR_F32),
                _ => (by_name(chimp::IMPLEMENTATIONS_32, name), chimp::TERMINATOR_I32),
            };
            let f = f.expect("available");
            Box::new(move || done(f(page, term, stop, sized(&mut o.u32s, n))))
        }
        (E::Gorilla | E::Chimp, T::Int64 | T::Double) => {
            let (f, term) = match (input.encoding, input.dtype) {
                (E::Gorilla, T::Double) => (by_name(gorilla::IMPLEMENTATIONS_64, name), gorilla::TERMINATOR_F64),
                (E::Gorilla, _) => (by_name(gorilla::IMPLEMENTATIONS_64, name), gorilla::TERMINATOR_I64),
                (_, T::Double) => (by_name(chimp::IMPLEMENTATIONS_64, name), chimp::TERMINATOR_F64),
                _ => (by_name(chimp::IMPLEMENTATIONS_64, name), chimp::TERMINATOR_I64),
            };
            let f = f.expect("available");
            Box::new(move || done(f(page, term, stop, sized(&mut o.u64s, n))))
        }
        (E::Plain, T::Boolean) => Box::new(move || done(plain::decode_bool_into(page, sized(&mut o.bools, n)))),
        (E::Plain, T::Int32) => Box::new(move || done(plain::decode_i32_into(page, sized(&mut o.i32s, n)))),
        (E::Plain, T::Float) => Box::new(move || done(plain::decode_be32_into(page, sized(&mut o.u32s, n)))),
        (E::Plain, T::Int64 | T::Double) => {
            let f = by_name(plain::IMPLEMENTATIONS_BE64, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.u64s, n))))
        }
        (E::Plain, T::Text) => Box::new(move || {
            let (texts, _) = plain::decode_binary(page, n).expect("checked before timing");
            let owned: Vec<Vec<u8>> = texts.into_iter().map(<[u8]>::to_vec).collect();
            std::hint::black_box(owned).len()
        }),
        (E::Zigzag, T::Int32) => {
            let f = by_name(zigzag::IMPLEMENTATIONS_I32, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i32s, n))))
        }
        (E::Zigzag, T::Int64) => {
            let f = by_name(zigzag::IMPLEMENTATIONS_I64, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i64s, n))))
        }
        (E::Dictionary, _) => {
            let f = by_name(dictionary::IMPLEMENTATIONS, name).expect("available");
            Box::new(move || {
                let mut entries = Vec::new();
                let count = done(f(page, &mut entries, sized(&mut o.u32s, n)));
                let owned: Vec<Vec<u8>> = o.u32s[..count].iter().map(|&k| entries[k as usize].to_vec()).collect();
                std::hint::black_box(owned).len()
            })
        }
        (E::Sprintz, T::Int32 | T::Float) => {
            let f = by_name(sprintz::IMPLEMENTATIONS_32, name).expect("available");
            Box::new(move || done(f(page, float, sprintz_writer, sized(&mut o.u32s, n))))
        }
        (E::Sprintz, _) => {
            let f = by_name(sprintz::IMPLEMENTATIONS_64, name).expect("available");
            Box::new(move || done(f(page, float, sprintz_writer, sized(&mut o.u64s, n))))
        }
        (E::Rlbe, T::Int32 | T::Float) => {
            let f = by_name(rlbe::IMPLEMENTATIONS_32, name).expect("available");
            Box::new(move || done(f(page, rlbe_sum, sized(&mut o.u32s, n))))
        }
        (E::Rlbe, _) => {
            let f = by_name(rlbe::IMPLEMENTATIONS_64, name).expect("available");
            Box::new(move || done(f(page, rlbe_sum, sized(&mut o.u64s, n))))
        }
        (E::Camel, _) => {
            let f = by_name(camel::IMPLEMENTATIONS, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.u64s, n))))
        }
        (E::Regular, T::Int32) => {
            let f = by_name(regular::IMPLEMENTATIONS_I32, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i32s, n))))
        }
        (E::Regular, _) => {
            let f = by_name(regular::IMPLEMENTATIONS_I64, name).expect("available");
            Box::new(move || done(f(page, sized(&mut o.i64s, n))))
        }
        (e, t) => unreachable!("{e:?} does not decode {t:?}"),
    }
}

/// The kernels to time for a pair: every registry entry this CPU runs, or
/// `"dispatch"` where the pair has one kernel and no registry of its own
/// (PLAIN BOOLEAN, INT32, FLOAT and TEXT; RLE BOOLEAN).
pub fn names(encoding: Encoding, dtype: DataType) -> Vec<&'static str> {
    let single = match encoding {
        Encoding::Plain => !matches!(dtype, DataType::Int64 | DataType::Double),
        Encoding::Rle => dtype == DataType::Boolean,
        _ => false,
    };
    if single {
        return vec!["dispatch"];
    }
    crossdec_harness::families::tsfile::kernel_names(encoding)
        .into_iter()
        .filter(|&(_, available)| available)
        .map(|(name, _)| name)
        .collect()
}
