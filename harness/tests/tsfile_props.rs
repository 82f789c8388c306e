//! Property tests: every kernel against the reference on random series of
//! every type and encoding, and on every truncation and corruption of them;
//! plus one known input per error kind, checked on both sides.

use crossdec_harness::engine::{case_rng, Canonical, Spec};
use crossdec_harness::families::tsfile::{
    self, generate, DataType, Encoding, StopMode, TsFamily, TsFault, TsInput,
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
        Just(Encoding::Rle)
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
            if input.stop != StopMode::AtTerminator || out.values.len() == len {
                prop_assert_eq!(&out.values, &values);
                prop_assert_eq!(out.consumed <= input.page.len(), true);
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
            input(
                Ts2Diff,
                Int32,
                t,
                9,
                &[0, 0, 0, 1, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0, 0],
            ),
            "BadBitWidth",
        ),
        (input(Ts2Diff, Int64, t, 9, &[0xff; 8]), "BadCount"),
        (input(Ts2Diff, Int32, t, 0, &[0; 16]), "TooManyValues"),
        (input(Gorilla, Int32, t, 9, &[0, 0, 0, 1, 0x40]), "NoWindow"),
        (
            input(Gorilla, Int32, t, 9, &[0, 0, 0, 1, 0x7f, 0x08, 0]),
            "BadWindow",
        ),
        (
            input(Gorilla, Double, StopMode::Count(2), 9, &[0; 8]),
            "Truncated",
        ),
        (
            input(Plain, Int32, t, 9, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            "BadVarint",
        ),
        (input(Plain, Boolean, t, 9, &[1, 7]), "BadBoolean"),
        (input(Plain, Text, t, 9, &[3]), "BadCount"),
        (input(Rle, Int64, t, 9, &[1, 65]), "BadBitWidth"),
        (input(Rle, Int32, t, 9, &[3, 8, 3, 9]), "BadCount"),
        (input(Rle, Boolean, t, 2, &[3, 1, 8, 1]), "TooManyValues"),
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
