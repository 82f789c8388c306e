//! `pg-bytea` through the engine and as properties: every kernel agrees with
//! the reference, every error kind is reached by the generators, and the
//! registry names every kernel on every target.

use crossdec_harness::engine::{self, BufferFault, Campaign, Role, RunOptions, Spec};
use crossdec_harness::families::bytea::{self, ByteaFault, ByteaInput, PgBytea};
use crossdec_kernels::bytea as kernel;
use crossdec_reference::bytea as reference;
use proptest::prelude::*;

#[test]
fn campaign_agrees_and_reaches_every_error_kind() {
    let family = PgBytea;
    let report = bytea::campaign().run(&RunOptions {
        cases: 20,
        seed: 11,
        ..RunOptions::default()
    });
    for f in &report.failures {
        eprintln!(
            "{} {} {:?}: expected {} got {}",
            f.category, f.implementation, f.minimized_hex, f.minimized_expected, f.minimized_got
        );
    }
    assert_eq!(report.failure_count, 0);
    assert!(report.categories.iter().all(|c| c.cases > 0));
    let ran: Vec<_> = report
        .implementations
        .iter()
        .filter(|i| i.ran && i.role == Role::Kernel)
        .map(|i| i.name.as_str())
        .collect();
    for must in [
        "bytea/hex-swar",
        "bytea/hex-scalar",
        "bytea/escape-bulk",
        "bytea/escape-scalar",
        "bytea/dispatch",
        "bytea/dispatch-vec",
    ] {
        assert!(ran.contains(&must), "{must} did not run: {ran:?}");
    }
    // Every error kind the reference can produce is generated.
    let mut seen = [false; 4];
    for category in family.categories() {
        for index in 0..20 {
            let mut rng = engine::case_rng(11, family.name(), category.name, index);
            for case in category.generate(index, &mut rng) {
                for step in &case.steps {
                    match family.reference(step) {
                        Ok(_) => seen[0] = true,
                        Err(ByteaFault::InvalidHexDigit { .. }) => seen[1] = true,
                        Err(ByteaFault::OddNumberOfDigits { .. }) => seen[2] = true,
                        Err(ByteaFault::InvalidEscape { .. }) => seen[3] = true,
                        Err(other) => panic!("reference produced {other:?}"),
                    }
                }
            }
        }
    }
    assert_eq!(seen, [true; 4], "[ok, digit, odd, escape] reached");
}

#[test]
fn every_registered_kernel_is_listed_here() {
    let names: Vec<_> = bytea::campaign()
        .implementations()
        .iter()
        .map(|i| i.name.clone())
        .collect();
    for k in kernel::HEX_IMPLEMENTATIONS
        .iter()
        .map(|k| k.name)
        .chain(kernel::ESCAPE_IMPLEMENTATIONS.iter().map(|k| k.name))
    {
        assert!(names.iter().any(|n| n == k), "{k} missing from the family");
    }
}

/// The family's own adapter, with a hex kernel that writes one byte past
/// what it reports: the engine's buffer check must catch it, in a campaign
/// and on a single input.
#[test]
fn the_real_adapter_is_held_to_the_buffer_contract() {
    fn sloppy(digits: &[u8], out: &mut [u8]) -> Result<usize, kernel::DecodeError> {
        let n = (kernel::best_hex())(digits, out)?;
        out[n] = !out[n];
        Ok(n)
    }
    let campaign =
        Campaign::new(PgBytea).kernel("sloppy", true, || bytea::kernel_decoder(sloppy, kernel::best_escape()));
    let input = ByteaInput {
        text: b"\\x0102".to_vec(),
    };
    let (outcome, faults) = campaign.implementations()[0].decode_once(&input);
    assert_eq!(outcome, PgBytea.reference(&input), "the values themselves are right");
    assert!(
        matches!(&faults[..], [BufferFault::Changed { buffer, index: 2, written: 2, .. }] if buffer == "out"),
        "{faults:?}"
    );
    let report = campaign.run(&RunOptions {
        cases: 3,
        seed: 1,
        categories: vec!["hex-plain".into()],
        ..RunOptions::default()
    });
    assert!(report.failure_count > 0);
    assert!(!report.failures[0].buffer_faults.is_empty(), "{:?}", report.failures[0]);
}

fn all_kernels(text: &[u8]) -> Vec<(&'static str, Result<Vec<u8>, kernel::DecodeError>)> {
    let mut out = Vec::new();
    for h in kernel::HEX_IMPLEMENTATIONS.iter().filter(|k| k.is_available()) {
        for e in kernel::ESCAPE_IMPLEMENTATIONS.iter() {
            let mut buf = vec![0u8; kernel::decoded_len_bound(text)];
            let r = kernel::decode_into_with(h.get().expect("available"), e.get().expect("available"), text, &mut buf)
                .map(|n| buf[..n].to_vec());
            out.push((h.name, r));
        }
    }
    out
}

fn same(r: &Result<Vec<u8>, reference::ByteaError>, k: &Result<Vec<u8>, kernel::DecodeError>) -> bool {
    match (r, k) {
        (Ok(a), Ok(b)) => a == b,
        (Err(e), Err(k)) => ByteaFault::from(*e) == ByteaFault::from(*k),
        _ => false,
    }
}

proptest! {
    #[test]
    fn kernels_match_reference_on_arbitrary_text(prefix in any::<bool>(), body in proptest::collection::vec(
        prop_oneof![Just(b'0'), Just(b'a'), Just(b'F'), Just(b' '), Just(b'\n'), Just(b'\\'), Just(b'3'), Just(b'7'), any::<u8>()], 0..300)) {
        let mut text = if prefix { b"\\x".to_vec() } else { Vec::new() };
        text.extend_from_slice(&body);
        let want = reference::decode(&text);
        for (name, got) in all_kernels(&text) {
            prop_assert!(same(&want, &got), "{name}: {:?} vs {:?}", want, got);
        }
    }

    #[test]
    fn whitespace_never_changes_the_value(bytes in proptest::collection::vec(any::<u8>(), 0..400), seed in any::<u64>()) {
        let mut rng = crossdec_engine::CaseRng::seed_from_u64(seed);
        let text = crossdec_harness::families::bytea::with_whitespace(&mut rng, &reference::encode_hex(&bytes), 0.2);
        for (name, got) in all_kernels(&text) {
            prop_assert_eq!(got.as_ref(), Ok(&bytes), "{}", name);
        }
    }
}
