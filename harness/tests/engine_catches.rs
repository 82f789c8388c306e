//! The engine must catch broken kernels: each mutant below is a realistic
//! decoder bug plugged into the qwp-ts family in place of the real kernel,
//! and a short campaign must report it with a minimized reproducer. The real
//! kernel, run the same way, must come out clean.

use crossdec_harness::engine::{run_family, Case, CaseRng, Category, Decoded, Implementation, Role, RunOptions};
use crossdec_harness::families::qwp::{QwpFault, QwpInput, QwpTimestamps, QwpValue};
use crossdec_harness::{Family, FamilyReport, Outcome};
use crossdec_kernels::qwp as kernel;

type Mutation = fn(&QwpInput, &mut Result<QwpValue, QwpFault>, &mut Vec<String>);

/// qwp-ts with one kernel whose output goes through `mutate`.
struct Mutant {
    name: &'static str,
    mutate: Mutation,
}

impl Family for Mutant {
    type Input = QwpInput;
    type Value = QwpValue;
    type Error = QwpFault;

    fn name(&self) -> &'static str {
        "qwp-ts"
    }
    fn categories(&self) -> Vec<Category> {
        QwpTimestamps.categories()
    }
    fn generate(&self, category: &str, index: u64, rng: &mut CaseRng) -> Vec<Case<QwpInput>> {
        QwpTimestamps.generate(category, index, rng)
    }
    fn reference(&self, input: &QwpInput) -> Outcome<Self> {
        QwpTimestamps.reference(input)
    }
    fn implementations(&self) -> Vec<Implementation<Self>> {
        let mutate = self.mutate;
        vec![Implementation::new(self.name, Role::Kernel, true, move || {
            let mut decoder = kernel::TimestampDecoder::new();
            let mut values: Vec<i64> = Vec::new();
            let mut validity: Vec<bool> = Vec::new();
            move |input: &QwpInput, _canary: u8| {
                let rows = input.row_count as usize;
                let capped = rows.min(kernel::MAX_ROWS);
                values.clear();
                values.resize(capped + 4, 0x7777);
                validity.clear();
                validity.resize(capped + 4, true);
                let mut outcome = decoder
                    .decode_into(&input.column, rows, input.gorilla_flag, &mut values, &mut validity)
                    .map(|consumed| QwpValue { values: values[..rows].to_vec(), validity: validity[..rows].to_vec(), consumed })
                    .map_err(QwpFault::from);
                let mut faults = Vec::new();
                mutate(input, &mut outcome, &mut faults);
                Decoded { outcome, buffer_faults: faults }
            }
        })]
    }
    fn write_input(&self, input: &QwpInput, out: &mut Vec<u8>) {
        QwpTimestamps.write_input(input, out)
    }
    fn parse_input(&self, bytes: &[u8]) -> Option<QwpInput> {
        QwpTimestamps.parse_input(bytes)
    }
    fn write_outcome(&self, outcome: &Outcome<Self>, out: &mut Vec<u8>) {
        QwpTimestamps.write_outcome(outcome, out)
    }
    fn shrink(&self, input: &QwpInput) -> Vec<QwpInput> {
        QwpTimestamps.shrink(input)
    }
}

fn campaign(name: &'static str, mutate: Mutation) -> FamilyReport {
    run_family(&Mutant { name, mutate }, &RunOptions { cases: 10, seed: 3, ..RunOptions::default() })
}

fn is_gorilla(input: &QwpInput) -> bool {
    let encoding_at = if input.column.first() == Some(&1) { 1 + (input.row_count as usize).div_ceil(8) } else { 1 };
    input.gorilla_flag && input.column.get(encoding_at) == Some(&1)
}

fn assert_caught(report: &FamilyReport, what: &str) {
    assert!(report.failure_count > 0, "{what}: the campaign did not catch it");
    let f = &report.failures[0];
    assert!(!f.minimized_hex.is_empty() && !f.minimized_got.is_empty(), "{what}: no minimized reproducer: {f:?}");
    let original: usize = f.input_hex.iter().map(String::len).sum();
    let minimized: usize = f.minimized_hex.iter().map(String::len).sum();
    assert!(minimized <= original, "{what}: minimizing grew the input");
}

#[test]
fn the_real_kernel_passes() {
    let report = campaign("word64", |_, _, _| {});
    assert_eq!(report.failure_count, 0, "{:#?}", report.failures);
}

#[test]
fn catches_values_read_in_native_instead_of_little_endian_order() {
    // What deleting the byte swap does on a big-endian host, simulated here.
    let report = campaign("no-byte-swap", |input, outcome, _| {
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
    let report = campaign("run-one-short", |input, outcome, _| {
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
    let report = campaign("consumed-plus-one", |input, outcome, _| {
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
    let report = campaign("error-offset", |_, outcome, _| {
        if let Err(QwpFault::TruncatedBitstream { offset, .. }) = outcome {
            *offset += 1;
        }
    });
    assert_caught(&report, "error offset");
}

#[test]
fn catches_a_write_outside_the_output_range() {
    let report = campaign("writes-past-end", |input, _, faults| {
        if input.row_count > 100 {
            faults.push(format!("values[{}] changed", input.row_count));
        }
    });
    assert_caught(&report, "buffer write past the end");
    assert!(!report.failures[0].buffer_faults.is_empty());
}

#[test]
fn catches_a_panicking_kernel() {
    let report = campaign("panics", |input, _, _| {
        if input.column.len() > 40 {
            panic!("index out of bounds");
        }
    });
    assert_caught(&report, "panic");
    assert!(report.failures[0].got.contains("PANIC"), "{}", report.failures[0].got);
}

#[test]
fn catches_saturating_instead_of_wrapping_arithmetic() {
    let report = campaign("saturating", |input, outcome, _| {
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
    assert!(report.failures.iter().any(|f| f.category == "int64-edges"), "int64-edges should be among the catchers");
}
