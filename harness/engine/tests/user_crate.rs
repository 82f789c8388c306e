//! A user's crate: its own output and error types, derived, held to its
//! reference by one `assert_agrees` and one replayed reproducer.
#![cfg(feature = "derive")]

use crossdec_engine::bytes::{self, Payload};
use crossdec_engine::{Campaign, Canonical, Case, Category, FromCanonical, Outcome, RunOptions, Spec};

#[derive(Canonical, FromCanonical, Clone, Debug, PartialEq)]
enum VarintError {
    Truncated {
        at: usize,
    },
    #[canonical(tag = 9)]
    TooLong,
}

/// LEB128 u32s until the input ends.
struct Varints;
impl Spec for Varints {
    type Input = Payload;
    type Output = Vec<u32>;
    type Error = VarintError;
    fn name(&self) -> &'static str {
        "varints"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        vec![Category::new("random", 1.0, |_, rng| {
            // Mostly zero payload bits, so that long runs do not overflow first.
            let n = rng.gen_range(0..12);
            vec![Case::one(Payload(
                (0..n)
                    .map(|_| [0x00, 0x80, 0x81, rng.gen()][rng.gen_range(0..4)])
                    .collect(),
            ))]
        })]
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        let (mut values, mut value, mut shift) = (Vec::new(), 0u64, 0);
        for (at, &b) in input.0.iter().enumerate() {
            value |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if value > u64::from(u32::MAX) || shift > 35 {
                return Err(VarintError::TooLong);
            }
            if b & 0x80 == 0 {
                values.push(value as u32);
                (value, shift) = (0, 0);
            } else if at + 1 == input.0.len() {
                return Err(VarintError::Truncated { at });
            }
        }
        Ok(values)
    }
    fn shrink(&self, input: &Payload) -> Vec<Payload> {
        bytes::shrink(input)
    }
}

/// The fast one, with the bug under test switchable: `broken` forgets the
/// five-byte limit.
fn fast(input: &[u8], broken: bool) -> Result<Vec<u32>, VarintError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let (mut value, mut k) = (0u64, 0);
        loop {
            let Some(&b) = input.get(i + k) else {
                return Err(VarintError::Truncated { at: i + k - 1 });
            };
            value |= u64::from(b & 0x7f) << (7 * k);
            if value > u64::from(u32::MAX) || (!broken && k == 5) {
                return Err(VarintError::TooLong);
            }
            k += 1;
            if b & 0x80 == 0 {
                break;
            }
        }
        out.push(value as u32);
        i += k;
    }
    Ok(out)
}

fn campaign(broken: bool) -> Campaign<Varints> {
    Campaign::new(Varints).kernel("fast", true, move || {
        move |input: &Payload, _: &mut _| fast(&input.0, broken)
    })
}

#[test]
fn the_fast_decoder_agrees_and_a_reproducer_replays() {
    campaign(false).assert_agrees(&RunOptions {
        cases: 300,
        ..RunOptions::default()
    });
    campaign(false).replay_hex("fast", &["808080808000"]).unwrap();
    assert!(campaign(true).replay_hex("fast", &["808080808000"]).is_err());
}

#[test]
#[should_panic(expected = "replay_hex")]
fn a_broken_decoder_fails_with_its_reproducer() {
    campaign(true).assert_agrees(&RunOptions {
        cases: 3000,
        ..RunOptions::default()
    });
}

/// Minimizing can reach another failure mode of the same bug: each
/// failure's symptom (what groups it) is its reproducer's, never the
/// original input's.
#[test]
fn a_failures_symptom_is_its_reproducers() {
    let report = campaign(true).run(&RunOptions {
        cases: 3000,
        ..RunOptions::default()
    });
    let minimized: Vec<_> = report.failures.iter().filter(|f| f.minimized).collect();
    assert!(!minimized.is_empty());
    for f in minimized {
        let got_ok = f.minimized_got.starts_with("Ok");
        let expected_ok = f.minimized_expected.starts_with("Ok");
        if got_ok != expected_ok {
            let says = if got_ok {
                "expected Err, got Ok"
            } else {
                "expected Ok, got Err"
            };
            assert!(f.symptom.contains(says), "{}: {f:#?}", f.symptom);
        }
    }
}
