//! Property tests: every kernel against the reference on random series of
//! every type and encoding, and on every truncation and corruption of them;
//! plus one known input per error kind, checked on both sides.

use crossdec_harness::engine::{case_rng, Canonical, Spec};
use crossdec_harness::families::tsfile::{
    self, generate, DataType, Encoding, StopMode, TsFamily, TsFault, TsInput, Writer,
};
use proptest::prelude::*;

/// Every available kernel of the encoding agrees with the reference.
fn agree(input: &TsInput) -> Result<(), TestCaseError> {
    let expected = tsfile::reference_decode(input);
    for (name, available) in tsfile::kernel_names(input.encoding) {
        if !available {
            continue;
        }
        let got = tsfile::decode_with(input.encoding, name, input);
        prop_assert_eq!(&got, &expected, "{} on {:?}", name, input);
    }
    Ok(())
}

fn shape() -> impl Strategy<Value = generate::Shape> {
    use generate::Shape::*;
    prop_oneof![
        Just(Constant),
        Just(Monotone),
        Just(RandomWalk),
        Just(FullRange),
        Just(Edges)
    ]
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        Just(Encoding::Ts2Diff),
        Just(Encoding::Gorilla),
        Just(Encoding::Plain),
        Just(Encoding::Rle),
        Just(Encoding::Zigzag),
        Just(Encoding::Chimp),
        Just(Encoding::Dictionary),
        Just(Encoding::Sprintz),
        Just(Encoding::Rlbe),
        Just(Encoding::Camel),
        Just(Encoding::Regular)
    ]
}

proptest! {
    // PROPTEST_CASES raises it (certification), 128 by default.
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128)))]

    #[test]
    fn kernels_match_reference(enc in encoding(), t in 0usize..6, s in shape(), len in prop_oneof![0usize..20, 120usize..140, 0usize..700], seed: u64) {
        let mut rng = case_rng(seed, "props", "valid", 0);
        let dtype = enc.types()[t % enc.types().len()];
        let values = generate::series(&mut rng, dtype, s, len);
        let input = generate::encode(&mut rng, enc, &values);
        // Valid pages decode to what was encoded, unless a GORILLA value
        // equals the terminator and the classic stop was asked for.
        if let Ok(out) = tsfile::reference_decode(&input) {
            let exact = enc.is_lossless(dtype) && input.writer == Writer::Java;
            if exact && (input.stop != StopMode::AtTerminator || out.values.len() == len) {
                prop_assert_eq!(&out.values, &values);
                prop_assert_eq!(out.consumed <= input.page.len(), true);
            } else if enc == Encoding::Regular {
                // A series that is not regular comes back as another one, of
                // as many values as the page's blocks give; the page is read
                // to its end.
                prop_assert_eq!(out.consumed, input.page.len());
            } else if !exact {
                // Lossy, but every value comes back and the page is read to its end.
                prop_assert_eq!((out.values.len(), out.consumed), (len, input.page.len()));
            }
        } else {
            prop_assert!(false, "valid page rejected: {:?}", input);
        }
        agree(&input)?;
    }

    #[test]
    fn kernels_match_reference_on_damage(enc in encoding(), len in 1usize..60, seed: u64, cut in any::<prop::sample::Index>(), flips in proptest::collection::vec(any::<(prop::sample::Index, u8)>(), 1..4)) {
        let mut rng = case_rng(seed, "props", "damage", 0);
        let input = generate::valid(&mut rng, enc, len);
        if input.page.is_empty() {
            return Ok(());
        }
        let cut = cut.index(input.page.len());
        agree(&TsInput { page: input.page[..cut].to_vec(), ..input.clone() })?;
        let mut page = input.page.clone();
        for (at, bit) in flips {
            let i = at.index(page.len());
            page[i] ^= 1 << (bit % 8);
        }
        agree(&TsInput { page, ..input.clone() })?;
        agree(&TsInput { max_values: input.max_values / 2, ..input })?;
    }
}

/// Each campaign category produces cases that every kernel agrees on.
#[test]
fn every_category_runs() {
    for enc in Encoding::ALL {
        let family = TsFamily(enc);
        for cat in family.categories() {
            let mut rng = case_rng(3, family.name(), cat.name, 0);
            let cases = cat.generate(0, &mut rng);
            assert!(!cases.is_empty(), "{} {}", family.name(), cat.name);
            for case in cases {
                for step in case.steps {
                    agree(&step).unwrap();
                    // The canonical serialization parses back to the same input.
                    assert_eq!(family.parse(&step.to_canonical()), Some(step));
                }
            }
        }
    }
}

fn input(encoding: Encoding, dtype: DataType, stop: StopMode, max: u32, page: &[u8]) -> TsInput {
    TsInput {
        encoding,
        dtype,
        stop,
        writer: Default::default(),
        max_values: max,
        page: page.to_vec(),
    }
}

/// One input per error kind; reference and kernels must both give it.
#[test]
fn every_error_kind_on_both_sides() {
    use DataType::*;
    use Encoding::*;
    let t = StopMode::AtTerminator;
    let cases: Vec<(TsInput, &str)> = vec![
        (input(Ts2Diff, Int64, t, 9, &[0, 0]), "Truncated"),
        (
            input(Ts2Diff, Int32, t, 9, &[0, 0, 0, 1, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0, 0]),
            "BadBitWidth",
        ),
        (input(Ts2Diff, Int64, t, 9, &[0xff; 8]), "BadCount"),
        (input(Ts2Diff, Int32, t, 0, &[0; 16]), "TooManyValues"),
        (input(Gorilla, Int32, t, 9, &[0, 0, 0, 1, 0x40]), "NoWindow"),
        (input(Gorilla, Int32, t, 9, &[0, 0, 0, 1, 0x7f, 0x08, 0]), "BadWindow"),
        (input(Gorilla, Double, StopMode::Count(2), 9, &[0; 8]), "Truncated"),
        (
            input(Plain, Int32, t, 9, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            "BadVarint",
        ),
        (input(Plain, Boolean, t, 9, &[1, 7]), "BadBoolean"),
        (input(Plain, Text, t, 9, &[3]), "BadCount"),
        (input(Rle, Int64, t, 9, &[1, 65]), "BadBitWidth"),
        (input(Rle, Int32, t, 9, &[3, 8, 3, 9]), "BadCount"),
        (input(Rle, Boolean, t, 2, &[3, 1, 8, 1]), "TooManyValues"),
        (
            input(Zigzag, Int32, t, 9, &[6, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            "BadVarint",
        ),
        (
            input(
                Zigzag,
                Int64,
                t,
                9,
                &[10, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02],
            ),
            "BadVarint",
        ),
        (input(Zigzag, Int64, t, 9, &[3, 1, 0, 0]), "BadCount"),
        (input(Zigzag, Int32, t, 9, &[1, 2, 0]), "BadCount"),
        (input(Zigzag, Int32, t, 9, &[2, 2, 0, 0x80, 0]), "Truncated"),
        (input(Zigzag, Int64, t, 0, &[1, 1, 0]), "TooManyValues"),
        (input(Chimp, Int32, t, 9, &[0, 0, 0, 7, 0x80]), "NoWindow"),
        (
            input(Chimp, Int32, t, 9, &[0, 0, 0, 7, 0x40, 0xe0, 0, 0, 0]),
            "BadWindow",
        ),
        (
            input(Chimp, Double, t, 9, &[0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0]),
            "Truncated",
        ),
        (input(Chimp, Int64, StopMode::Count(2), 1, &[0; 9]), "TooManyValues"),
        (input(Dictionary, Text, t, 9, &[0x01]), "BadCount"),
        (input(Dictionary, Text, t, 9, &[0x02, 0x06, 0x61]), "Truncated"),
        (
            input(Dictionary, Text, t, 9, &[0x02, 0x00, 0x03, 0x01, 0x02, 0x01]),
            "BadCount",
        ),
        (
            input(Dictionary, Text, t, 9, &[0x02, 0x00, 0x02, 0x28, 0x02]),
            "BadBitWidth",
        ),
        (
            input(Dictionary, Text, t, 2, &[0x02, 0x00, 0x03, 0x01, 0x12, 0x00]),
            "TooManyValues",
        ),
        (
            input(
                Dictionary,
                Text,
                t,
                9,
                &[0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            ),
            "BadVarint",
        ),
    ];
    for (inp, kind) in cases {
        let expected = tsfile::reference_decode(&inp);
        let text = format!("{expected:?}");
        assert!(text.starts_with(&format!("Err({kind}")), "{inp:?}: {text}");
        for (name, available) in tsfile::kernel_names(inp.encoding) {
            if available {
                let got: Result<_, TsFault> = tsfile::decode_with(inp.encoding, name, &inp);
                assert_eq!(got, expected, "{name} on {inp:?}");
            }
        }
    }
}

/// The TsFile families' own adapter (`decode_values`) with real kernels whose
/// values are right but which also write one element past the values they
/// report: the engine's buffer check catches it for every lane type the
/// TsFile kernels write (i32, i64, u32, u64, bool), and the honest kernels
/// pass.
#[test]
fn the_real_adapter_is_held_to_the_buffer_contract() {
    use crossdec_harness::engine::{BufferFault, Buffers, Element};
    use crossdec_harness::families::tsfile::decode_values;
    use crossdec_kernels::tsfile::{gorilla as kg, plain as kp, ts2diff as kt, DecodeError, Done};
    use crossdec_reference::tsfile as r;

    /// Runs `kernel` through the adapter with room for 4 more values than
    /// the page holds; `past` also writes the element after the last value.
    fn check<T: Element>(what: &str, kernel: impl Fn(&mut [T]) -> Result<Done, DecodeError>, values: usize) {
        for past in [false, true] {
            let mut buffers = Buffers::new(0xA5);
            let result = decode_values::<T>(&mut buffers, values + 4, |out| {
                let done = kernel(out)?;
                if past {
                    let next = &mut out[done.values];
                    *next = if *next == T::canary(0) {
                        T::canary(0xFF)
                    } else {
                        T::canary(0)
                    };
                }
                Ok(done)
            });
            assert_eq!(result.map(|(v, _)| v.len()), Ok(values), "{what}");
            let faults = buffers.end_call();
            if past {
                assert!(
                    matches!(&faults[..], [BufferFault::Changed { buffer, index, written, .. }]
                        if buffer == "values" && *index == values as i64 && *written == values as u64),
                    "{what}: {faults:?}"
                );
            } else {
                assert_eq!(faults, vec![], "{what}");
            }
        }
    }
    let i64s = r::ts2diff::encode_i64(&[5, -7, 9, 1 << 40], 128, false);
    check::<i64>("ts2diff i64", |out| kt::decode_i64_into(&i64s, out), 4);
    let i32s = r::ts2diff::encode_i32(&[5, -7, 9], 128, false);
    check::<i32>("ts2diff i32", |out| kt::decode_i32_into(&i32s, out), 3);
    let u32s = r::gorilla::encode32(&[1, 2, 2, 9], Some(kg::TERMINATOR_I32));
    check::<u32>(
        "gorilla u32",
        |out| kg::decode32_into(&u32s, kg::TERMINATOR_I32, kg::Stop::AtTerminator, out),
        4,
    );
    let u64s = r::plain::encode_i64(&[3, -3]);
    check::<u64>(
        "plain u64",
        |out| crossdec_kernels::best(kp::IMPLEMENTATIONS_BE64)(&u64s, out),
        2,
    );
    let bools = r::plain::encode_bool(&[true, false, true]);
    check::<bool>("plain bool", |out| kp::decode_bool_into(&bools, out), 3);
}
