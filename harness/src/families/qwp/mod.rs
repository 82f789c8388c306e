//! Family `qwp-ts`: QuestDB QWP timestamp column sections (raw or Gorilla,
//! with an optional null bitmap).

#[cfg(target_arch = "x86_64")]
pub mod questdb;

mod fuzz;
mod generate;

use crossdec_kernels::qwp as kernel;
use crossdec_reference::qwp as reference;

use crate::canary;
use crate::engine::{AllowedDifference, Case, CaseRng, Category, Decoded, Family, Implementation, Outcome, Role};

pub use generate::{benchmark_shapes, series, Shape};

/// One column section and what its caller knows about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QwpInput {
    pub column: Vec<u8>,
    pub row_count: u32,
    /// Whether the message header had FLAG_GORILLA (an encoding byte follows).
    pub gorilla_flag: bool,
}

/// A decoded column in comparable form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QwpValue {
    pub values: Vec<i64>,
    pub validity: Vec<bool>,
    /// Bytes of the column section consumed.
    pub consumed: usize,
}

/// A decode error in comparable form: kind and position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QwpFault {
    RowCountOverCap { row_count: usize },
    InvalidNullFlag { flag: u8, offset: usize },
    UnknownEncoding { encoding: u8, offset: usize },
    TooFewGorillaValues { count: usize, offset: usize },
    TruncatedSeed { index: u8, offset: usize },
    TruncatedBitstream { value_index: usize, offset: usize, bit: u8 },
    StreamTooShort { needed_bits: usize, available: usize, offset: usize },
    Truncated { section: &'static str, offset: usize },
    OutputTooSmall,
    /// A third-party decoder's error message (it has no kinds or positions).
    Peer(String),
}

/// The reference and the kernel each define their own error enum (neither
/// crate depends on the other) with the same variants; both map to
/// [`QwpFault`] the same way.
macro_rules! fault_from {
    ($error:ty, $section:ty, [$($extra:tt)*]) => {
        impl From<$error> for QwpFault {
            fn from(e: $error) -> Self {
                type E = $error;
                match e {
                    E::RowCountOverCap { row_count } => QwpFault::RowCountOverCap { row_count },
                    E::InvalidNullFlag { flag, offset } => QwpFault::InvalidNullFlag { flag, offset },
                    E::UnknownEncoding { encoding, offset } => QwpFault::UnknownEncoding { encoding, offset },
                    E::TooFewGorillaValues { count, offset } => QwpFault::TooFewGorillaValues { count, offset },
                    E::TruncatedSeed { index, offset } => QwpFault::TruncatedSeed { index, offset },
                    E::TruncatedBitstream { value_index, offset, bit } => {
                        QwpFault::TruncatedBitstream { value_index, offset, bit }
                    }
                    E::StreamTooShort { needed_bits, available, offset } => {
                        QwpFault::StreamTooShort { needed_bits, available, offset }
                    }
                    E::Truncated { section, offset } => {
                        type S = $section;
                        let section = match section {
                            S::NullFlag => "null-flag",
                            S::Bitmap => "bitmap",
                            S::Encoding => "encoding",
                            S::RawValue => "raw-value",
                        };
                        QwpFault::Truncated { section, offset }
                    }
                    $($extra)*
                }
            }
        }
    };
}

fault_from!(reference::QwpError, reference::Section, []);
fault_from!(kernel::DecodeError, kernel::Section, [E::OutputTooSmall { .. } => QwpFault::OutputTooSmall,]);

/// The `qwp-ts` family.
pub struct QwpTimestamps;

/// Slack past `row_count` in the reusable output buffers, so writes past the
/// end land in canary-filled memory instead of out of bounds.
const SLACK: usize = 9;

/// Drives a registry kernel through caller-owned buffers that it keeps, like
/// a client reusing one decoder across batches.
struct KernelAdapter {
    func: kernel::DecodeFn,
    decoder: kernel::TimestampDecoder,
    values: Vec<i64>,
    validity: Vec<bool>,
}

impl KernelAdapter {
    fn decode(&mut self, input: &QwpInput, canary_byte: u8) -> Decoded<QwpTimestamps> {
        let rows = input.row_count as usize;
        // A valid column needs at least one bit per row (bitmap, raw value or
        // Gorilla DoD), so a caller never needs more than 8 rows per input
        // byte; the kernel rejects larger claims before looking at the
        // buffers. Sizing by that bound keeps hostile counts cheap to fuzz.
        let want = rows.min(kernel::MAX_ROWS).min(input.column.len().saturating_mul(8)) + SLACK;
        if self.values.len() < want {
            self.values.resize(want, 0);
            self.validity.resize(want, false);
        }
        let (cv, cb) = (canary::i64_canary(canary_byte), canary::bool_canary(canary_byte));
        self.values.fill(cv);
        self.validity.fill(cb);
        let result = (self.func)(&mut self.decoder, &input.column, rows, input.gorilla_flag, &mut self.values, &mut self.validity);
        let written = rows.min(self.values.len());
        let buffer_faults = [
            canary::untouched_after("values", &self.values, written, cv),
            canary::untouched_after("validity", &self.validity, written, cb),
        ]
        .into_iter()
        .flatten()
        .collect();
        let outcome = result
            .map(|consumed| QwpValue {
                values: self.values[..rows].to_vec(),
                validity: self.validity[..rows].to_vec(),
                consumed,
            })
            .map_err(QwpFault::from);
        Decoded { outcome, buffer_faults }
    }
}

impl Family for QwpTimestamps {
    type Input = QwpInput;
    type Value = QwpValue;
    type Error = QwpFault;

    fn name(&self) -> &'static str {
        "qwp-ts"
    }

    fn categories(&self) -> Vec<Category> {
        generate::CATEGORIES.to_vec()
    }

    fn generate(&self, category: &str, index: u64, rng: &mut CaseRng) -> Vec<Case<QwpInput>> {
        generate::generate(category, index, rng)
    }

    fn reference(&self, input: &QwpInput) -> Outcome<Self> {
        reference::decode_column(&input.column, input.row_count as usize, input.gorilla_flag)
            .map(|c| QwpValue { values: c.values, validity: c.validity, consumed: c.consumed })
            .map_err(QwpFault::from)
    }

    fn implementations(&self) -> Vec<Implementation<Self>> {
        let mut list: Vec<Implementation<Self>> = kernel::IMPLEMENTATIONS
            .iter()
            .map(|imp| {
                let func = imp.func;
                Implementation::new(imp.name, Role::Kernel, (imp.is_available)(), move || {
                    let mut adapter = KernelAdapter {
                        func,
                        decoder: kernel::TimestampDecoder::new(),
                        values: Vec::new(),
                        validity: Vec::new(),
                    };
                    move |input: &QwpInput, canary: u8| adapter.decode(input, canary)
                })
            })
            .collect();
        // The materializing API: fresh vectors, no caller buffers to guard.
        list.push(Implementation::new("word64/materialize", Role::Kernel, true, || {
            |input: &QwpInput, _canary: u8| {
                Decoded::clean(
                    kernel::decode_column(&input.column, input.row_count as usize, input.gorilla_flag)
                        .map(|c| QwpValue { values: c.values, validity: c.validity, consumed: c.consumed })
                        .map_err(QwpFault::from),
                )
            }
        }));
        list.push(questdb_peer());
        list
    }

    fn write_input(&self, input: &QwpInput, out: &mut Vec<u8>) {
        out.push(input.gorilla_flag as u8);
        out.extend_from_slice(&input.row_count.to_le_bytes());
        out.extend_from_slice(&input.column);
    }

    fn parse_input(&self, bytes: &[u8]) -> Option<QwpInput> {
        let (&flags, rest) = bytes.split_first()?;
        let row_count = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        Some(QwpInput { column: rest[4..].to_vec(), row_count, gorilla_flag: flags & 1 == 1 })
    }

    fn write_outcome(&self, outcome: &Outcome<Self>, out: &mut Vec<u8>) {
        let u = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&(v as u64).to_le_bytes());
        match outcome {
            Ok(v) => {
                out.push(0);
                u(out, v.values.len());
                for x in &v.values {
                    out.extend_from_slice(&x.to_le_bytes());
                }
                out.extend(v.validity.iter().map(|b| *b as u8));
                u(out, v.consumed);
            }
            Err(e) => {
                out.push(1);
                // Debug text of a fault is built from integers and fixed
                // names only, so it is the same on every architecture.
                let text = format!("{e:?}");
                u(out, text.len());
                out.extend_from_slice(text.as_bytes());
            }
        }
    }

    fn shrink(&self, input: &QwpInput) -> Vec<QwpInput> {
        let mut out = Vec::new();
        let len = input.column.len();
        let with_column = |column: Vec<u8>| QwpInput { column, ..input.clone() };
        for keep in [len / 2, len.saturating_sub(1)] {
            if keep < len {
                out.push(with_column(input.column[..keep].to_vec()));
            }
        }
        for rows in [input.row_count / 2, input.row_count.saturating_sub(1)] {
            if rows < input.row_count {
                out.push(QwpInput { row_count: rows, ..input.clone() });
            }
        }
        // Remove single bytes at a spread of positions.
        let step = (len / 16).max(1);
        for at in (0..len).step_by(step) {
            let mut column = input.column.clone();
            column.remove(at);
            out.push(with_column(column));
        }
        out
    }

    fn arbitrary_case(&self, u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Case<QwpInput>> {
        fuzz::arbitrary_case(u)
    }

    fn allowed_differences(&self) -> Vec<AllowedDifference<Self>> {
        vec![
            AllowedDifference {
                id: "questdb-rs-error-messages",
                implementation: "questdb-rs",
                reason: "questdb-rs reports errors as messages without our kinds or byte offsets: an error \
                         must still be an error, but its kind and position are not compared",
                applies: |_, expected, got| matches!((expected, got), (Err(_), Err(QwpFault::Peer(_)))),
            },
            AllowedDifference {
                id: "questdb-rs-rejects-trailing-bytes",
                implementation: "questdb-rs",
                reason: "a column section followed by bytes it does not use decodes fine on its own (consumed < \
                         length), but wrapped as the last column of a RESULT_BATCH questdb-rs rejects the batch's \
                         trailing bytes, as a whole-message decoder should",
                applies: |input, expected, got| match (expected, got) {
                    (Ok(e), Err(QwpFault::Peer(message))) => {
                        e.consumed < input.column.len() && message.contains("trailing bytes")
                    }
                    _ => false,
                },
            },
            AllowedDifference {
                id: "questdb-rs-accepts-short-gorilla",
                implementation: "questdb-rs",
                reason: "questdb-rs reads min(n, 2) seed values of a Gorilla column with fewer than three \
                         values and accepts it; the Java, JavaScript and C# clients (and we) reject it",
                applies: |_, expected, got| {
                    matches!(expected, Err(QwpFault::TooFewGorillaValues { .. })) && got.is_ok()
                },
            },
        ]
    }
}

#[cfg(target_arch = "x86_64")]
fn questdb_peer() -> Implementation<QwpTimestamps> {
    Implementation::new("questdb-rs", Role::Peer, true, || {
        |input: &QwpInput, _canary: u8| {
            Decoded::clean(
                questdb::decode_with_questdb(&input.column, input.row_count as usize, input.gorilla_flag)
                    .map(|rows| QwpValue {
                        values: rows.iter().map(|v| v.unwrap_or(0)).collect(),
                        validity: rows.iter().map(Option::is_some).collect(),
                        // questdb-rs rejects trailing bytes after the last
                        // column, so a success consumed the whole section.
                        consumed: input.column.len(),
                    })
                    .map_err(QwpFault::Peer),
            )
        }
    })
}

/// questdb-rs is only built on x86_64; elsewhere it is listed as unavailable.
#[cfg(not(target_arch = "x86_64"))]
fn questdb_peer() -> Implementation<QwpTimestamps> {
    Implementation::new("questdb-rs", Role::Peer, false, || {
        |_: &QwpInput, _: u8| -> Decoded<QwpTimestamps> { unreachable!("questdb-rs is not built on this target") }
    })
}
