//! The `tsfile-regular` family: the Java writer's pages through every
//! registered kernel and the reference (the adapters the campaign uses),
//! exact round trips of regular series with missing points, and the shape
//! of what the family's own categories generate.

use crossdec_harness::engine::{case_rng, Spec};
use crossdec_harness::families::tsfile::{self, DataType, Encoding, StopMode, TsFamily, TsInput, TsValue, Values};
use crossdec_reference::tsfile::regular;

fn unhex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn input(dtype: DataType, max_values: usize, page: Vec<u8>) -> TsInput {
    TsInput {
        encoding: Encoding::Regular,
        dtype,
        stop: StopMode::AtTerminator,
        writer: Default::default(),
        max_values: max_values as u32,
        page,
    }
}

/// The reference and every available kernel give `expected`.
fn all_give(input: &TsInput, expected: &Values) {
    let want = Ok(TsValue {
        values: expected.clone(),
        consumed: input.page.len(),
    });
    assert_eq!(tsfile::reference_decode(input), want, "reference");
    let kernels = tsfile::kernel_names(Encoding::Regular);
    assert!(kernels.len() >= 2, "two opinions: {kernels:?}");
    for (name, available) in kernels {
        if available {
            assert_eq!(tsfile::decode_with(Encoding::Regular, name, input), want, "{name}");
        }
    }
}

/// Pages the Java writer wrote (apache/tsfile a9f54614; how: docs/reference/tsfile-encodings.md,
/// "REGULAR", "Known answers") and what Java's reader returned.
#[test]
fn java_writer_pages_through_the_family() {
    let timestamps: Vec<i64> = (0..10).map(|i| 1_700_000_000_000 + 1000 * i).collect();
    let cases = [
        (
            "00 00 00 00 0a 00 00 00 00 00 00 03 e8 00 00 01 8b cf e5 68 00",
            Values::Int64(timestamps),
        ),
        (
            "01 00 00 00 02 67 02 00 00 00 0a 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00",
            Values::Int64(vec![0, 10, 20, 50, 60, 90]),
        ),
        (
            "01 00 00 00 01 03 00 00 00 02 ff ff ff ff ff ff ff fb 00 00 00 00 00 00 00 00",
            Values::Int64(vec![0]),
        ),
        (
            "01 00 00 00 02 33 02 00 00 00 0a 00 00 00 02 00 00 00 07",
            Values::Int32(vec![7, 9, 15, 17, 25]),
        ),
        ("00 00 00 00 01 7f ff ff ff 00 00 00 2a", Values::Int32(vec![42])),
        (
            "01 00 00 00 01 0d 00 00 00 04 00 00 00 02 00 00 00 00",
            Values::Int32(vec![0, 4, 6]),
        ),
    ];
    for (page, values) in cases {
        all_give(&input(values.dtype(), values.len(), unhex(page)), &values);
    }
}

/// Timestamps every `step` (positive: a falling series' smallest delta is
/// its widest gap) with gaps of 1, 2, 4 or 8 steps: every block's smallest
/// gap divides the others, so the page gives the series back.
#[test]
fn regular_series_with_missing_points_come_back_exactly() {
    for (seed, step) in [(1u64, 1i64), (2, 1000), (3, 60_000), (4, 7), (5, 1 << 40)] {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut x = 1_700_000_000_000i64;
        let mut v = Vec::new();
        for _ in 0..1000 {
            v.push(x);
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let gap = if state % 10 < 7 { 1 } else { 1 << (state % 4) };
            x += step * gap;
        }
        let page = regular::encode_i64(&v, regular::DEFAULT_BLOCK).unwrap();
        all_give(&input(DataType::Int64, v.len(), page), &Values::Int64(v.clone()));
        let v32: Vec<i32> = v.iter().map(|&t| (t / 1000) as i32).collect();
        if let Ok(page) = regular::encode_i32(&v32, regular::DEFAULT_BLOCK) {
            let back = regular::decode_i32(&page, usize::MAX).unwrap().values;
            all_give(&input(DataType::Int32, back.len(), page), &Values::Int32(back));
        }
    }
}

/// The family's own categories are registered and generate pages the
/// reference reads (valid ones) or refuses (the damaged ones), and the
/// `missing-points` pages mostly carry missing-point blocks.
#[test]
fn the_family_categories_generate_what_they_say() {
    let family = TsFamily(Encoding::Regular);
    let names: Vec<&str> = family.categories().iter().map(|c| c.name).collect();
    for name in ["missing-points", "irregular", "wrapping-deltas", "malformed-corrupt"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let mut with_bitmap = 0;
    let mut refused = 0;
    // Not the large pages (a million values each, to no purpose here: most
    // of this test's time under QEMU); every other category is generated
    // and decoded, so a generator or decode that panics fails here too.
    for cat in family.categories().iter().filter(|c| !c.large) {
        for index in 0..40 {
            let mut rng = case_rng(11, family.name(), cat.name, index);
            for case in cat.generate(index, &mut rng) {
                for step in case.steps {
                    let outcome = tsfile::reference_decode(&step);
                    if cat.name == "missing-points" {
                        assert!(outcome.is_ok(), "{step:?}");
                        with_bitmap += usize::from(step.page.first() == Some(&1));
                    }
                    if cat.name == "malformed-corrupt" {
                        refused += usize::from(outcome.is_err());
                    }
                }
            }
        }
    }
    assert!(
        with_bitmap >= 10,
        "{with_bitmap} of 40 missing-points pages start with a bitmap"
    );
    assert!(refused >= 20, "{refused} of 40 damaged pages refused");
}
