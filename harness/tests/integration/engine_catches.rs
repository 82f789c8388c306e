//! The engine must catch broken kernels: each mutant below is a realistic
//! decoder bug plugged into the qwp-ts family in place of the real kernel,
//! and a short campaign must report it with a minimized reproducer. The real
//! kernel, run the same way, must come out clean.

use crossdec_harness::engine::{BufferFault, Buffers, Campaign, FamilyReport, Outcome, RunOptions};
use crossdec_harness::families::qwp::{self, QwpFault, QwpInput, QwpTimestamps};
use crossdec_kernels::qwp as kernel;

type Mutation = fn(&QwpInput, &mut Outcome<QwpTimestamps>);

/// qwp-ts with one kernel: the real one through the family's own adapter,
/// its outcome passed through `mutate`.
fn campaign(name: &'static str, mutate: Mutation) -> FamilyReport {
    campaign_of(name, kernel_function("qwp/word64"), mutate)
}

fn kernel_function(name: &str) -> kernel::DecodeFn {
    crossdec_kernels::by_name(kernel::IMPLEMENTATIONS, name).expect("available")
}

fn campaign_of(name: &'static str, func: kernel::DecodeFn, mutate: Mutation) -> FamilyReport {
    Campaign::new(QwpTimestamps)
        .kernel(name, true, move || {
            let mut adapter = qwp::kernel_decoder(func);
            move |input: &QwpInput, buffers: &mut Buffers| {
                let mut outcome = adapter(input, buffers);
                mutate(input, &mut outcome);
                outcome
            }
        })
        .run(&RunOptions {
            cases: 10,
            seed: 3,
            // The tests read the first failure; minimizing more (most
            // cases fail under some broken kernels) would be most of their
            // time under QEMU.
            max_failures: 2,
            ..RunOptions::default()
        })
}

fn is_gorilla(input: &QwpInput) -> bool {
    let encoding_at = if input.column.first() == Some(&1) {
        1 + (input.row_count as usize).div_ceil(8)
    } else {
        1
    };
    input.gorilla_flag && input.column.get(encoding_at) == Some(&1)
}

fn assert_caught(report: &FamilyReport, what: &str) {
    assert!(report.failure_count > 0, "{what}: the campaign did not catch it");
    let f = &report.failures[0];
    assert!(
        !f.minimized_hex.is_empty() && !f.minimized_got.is_empty(),
        "{what}: no minimized reproducer: {f:?}"
    );
    let original: usize = f.input_hex.iter().map(String::len).sum();
    let minimized: usize = f.minimized_hex.iter().map(String::len).sum();
    assert!(minimized <= original, "{what}: minimizing grew the input");
}

#[test]
fn the_real_kernel_passes() {
    let report = campaign("word64", |_, _| {});
    assert_eq!(report.failure_count, 0, "{:#?}", report.failures);
}

#[test]
fn catches_values_read_in_native_instead_of_little_endian_order() {
    // What deleting the byte swap does on a big-endian host, simulated here.
    let report = campaign("no-byte-swap", |input, outcome| {
        if let Ok(v) = outcome {
            if !is_gorilla(input) {
                v.values.iter_mut().for_each(|x| *x = x.swap_bytes());
            }
        }
    });
    assert_caught(&report, "missing byte swap");
}

#[test]
fn catches_a_repeated_delta_run_one_short() {
    let report = campaign("run-one-short", |input, outcome| {
        if let Ok(v) = outcome {
            let n = v.values.len();
            if is_gorilla(input) && n > 3 && v.validity.iter().all(|ok| *ok) {
                // The last value repeats the one before it.
                v.values[n - 1] = v.values[n - 2];
            }
        }
    });
    assert_caught(&report, "run one short");
}

#[test]
fn catches_an_off_by_one_consumed_count() {
    let report = campaign("consumed-plus-one", |input, outcome| {
        if let Ok(v) = outcome {
            if is_gorilla(input) {
                v.consumed += 1;
            }
        }
    });
    assert_caught(&report, "consumed off by one");
}

#[test]
fn catches_a_wrong_error_position() {
    let report = campaign("error-offset", |_, outcome| {
        if let Err(QwpFault::TruncatedBitstream { offset, .. }) = outcome {
            *offset += 1;
        }
    });
    assert_caught(&report, "error offset");
}

/// A kernel that really writes one value past its rows (into the caller
/// buffer's slack), run through the family's own adapter: the engine's
/// buffer check must catch it although every value is right.
#[test]
fn catches_a_write_outside_the_output_range() {
    fn writes_past_end(
        decoder: &mut kernel::TimestampDecoder,
        column: &[u8],
        rows: usize,
        gorilla: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result<usize, kernel::DecodeError> {
        let consumed = kernel::TimestampDecoder::decode_into(decoder, column, rows, gorilla, values, validity)?;
        if rows > 100 {
            values[rows] = !values[rows];
        }
        Ok(consumed)
    }
    let report = campaign_of("writes-past-end", writes_past_end, |_, _| {});
    assert_caught(&report, "buffer write past the end");
    let f = &report.failures[0];
    assert_eq!(f.expected, f.got, "only the buffer differs");
    assert!(
        matches!(&f.buffer_faults[..], [BufferFault::Changed { buffer, index, written, .. }] if buffer == "values" && *index == *written as i64),
        "{:?}",
        f.buffer_faults
    );
}

#[test]
fn catches_a_panicking_kernel() {
    let report = campaign("panics", |input, _| {
        if input.column.len() > 40 {
            panic!("index out of bounds");
        }
    });
    assert_caught(&report, "panic");
    assert!(report.failures[0].got.contains("PANIC"), "{}", report.failures[0].got);
}

#[test]
fn catches_saturating_instead_of_wrapping_arithmetic() {
    let report = campaign("saturating", |input, outcome| {
        if let Ok(v) = outcome {
            let mut rows = Vec::new();
            let mut next = v.values.iter().zip(&v.validity);
            for _ in 0..v.values.len() {
                let (x, ok) = next.next().unwrap();
                rows.push(ok.then_some(*x));
            }
            // Recompute as a saturating decoder would once a sum overflows.
            let dense: Vec<i64> = rows.iter().flatten().copied().collect();
            if is_gorilla(input) && dense.len() >= 3 {
                let mut out = vec![dense[0], dense[1]];
                let mut d = dense[1].saturating_sub(dense[0]);
                for w in dense.windows(3) {
                    let dod = (w[2].wrapping_sub(w[1])).wrapping_sub(w[1].wrapping_sub(w[0]));
                    d = d.saturating_add(dod);
                    out.push(out.last().unwrap().saturating_add(d));
                }
                let mut k = 0;
                for (x, ok) in v.values.iter_mut().zip(&v.validity) {
                    if *ok {
                        *x = out[k];
                        k += 1;
                    }
                }
            }
        }
    });
    assert_caught(&report, "saturating arithmetic");
    assert!(
        report.failures.iter().any(|f| f.category == "int64-edges"),
        "int64-edges should be among the catchers"
    );
}
