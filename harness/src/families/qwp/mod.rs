//! Family `qwp-ts`: QuestDB QWP timestamp column sections (raw or Gorilla,
//! with an optional null bitmap).

/// The files this family is made of (see [`super::Registration`]).
pub const SOURCES: &[&str] = &[
    "kernels/src/qwp/",
    "reference/src/qwp.rs",
    "harness/src/families/qwp/",
    "harness/tests/integration/qwp.rs",
];

#[cfg(target_arch = "x86_64")]
pub mod questdb;

mod fuzz;
mod generate;

use crossdec_kernels::qwp as kernel;
use crossdec_reference::qwp as reference;

use crate::engine::bytes::{self, BytePayload};
use crate::engine::{
    arbitrary, canonical_enum, canonical_struct, AllowedDifference, Buffers, Campaign, Canonical, Case, Category,
    Implementation, Outcome, Parse, Role, Spec,
};

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
    RowCountOverCap {
        row_count: usize,
    },
    InvalidNullFlag {
        flag: u8,
        offset: usize,
    },
    UnknownEncoding {
        encoding: u8,
        offset: usize,
    },
    TooFewGorillaValues {
        count: usize,
        offset: usize,
    },
    TruncatedSeed {
        index: u8,
        offset: usize,
    },
    TruncatedBitstream {
        value_index: usize,
        offset: usize,
        bit: u8,
    },
    StreamTooShort {
        needed_bits: usize,
        available: usize,
        offset: usize,
    },
    Truncated {
        section: SectionName,
        offset: usize,
    },
    OutputTooSmall,
    /// A third-party decoder's error message (it has no kinds or positions).
    Peer(String),
}

/// The section a truncation error names. Its canonical form is the name as
/// a string; read back (from an external subject), only the four names are
/// accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionName(pub &'static str);

impl SectionName {
    /// Every section name, in column-section order.
    pub const ALL: [&'static str; 4] = ["null-flag", "bitmap", "encoding", "raw-value"];
}

impl Canonical for SectionName {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
    }
}

impl crate::engine::FromCanonical for SectionName {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        let name = String::read(bytes)?;
        SectionName::ALL.into_iter().find(|n| *n == name).map(SectionName)
    }
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
                        let section = SectionName(match section {
                            S::NullFlag => "null-flag",
                            S::Bitmap => "bitmap",
                            S::Encoding => "encoding",
                            S::RawValue => "raw-value",
                        });
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

canonical_enum!(QwpFault {
    RowCountOverCap { row_count } = 0,
    InvalidNullFlag { flag, offset } = 1,
    UnknownEncoding { encoding, offset } = 2,
    TooFewGorillaValues { count, offset } = 3,
    TruncatedSeed { index, offset } = 4,
    TruncatedBitstream { value_index, offset, bit } = 5,
    StreamTooShort { needed_bits, available, offset } = 6,
    Truncated { section, offset } = 7,
    OutputTooSmall = 8,
    Peer(message) = 9,
});
canonical_struct!(QwpValue {
    values,
    validity,
    consumed
});

/// Canonical form: a flags byte (bit 0: the Gorilla flag), the row count as
/// a little-endian `u32`, then the column section's bytes.
impl Canonical for QwpInput {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.gorilla_flag));
        out.extend_from_slice(&self.row_count.to_le_bytes());
        out.extend_from_slice(&self.column);
    }
}

impl Parse for QwpInput {
    fn parse(bytes: &[u8]) -> Option<Self> {
        let (&flags, rest) = bytes.split_first()?;
        let row_count = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        Some(QwpInput {
            column: rest[4..].to_vec(),
            row_count,
            gorilla_flag: flags & 1 == 1,
        })
    }
}

impl BytePayload for QwpInput {
    fn payload(&self) -> &[u8] {
        &self.column
    }
    fn with_payload(&self, column: Vec<u8>) -> Self {
        QwpInput { column, ..self.clone() }
    }
}

/// The `qwp-ts` spec.
pub struct QwpTimestamps;

/// Elements past `row_count` in the caller buffers the kernels are handed, so
/// a write past the rows lands in checked memory inside the buffer.
const SLACK: usize = 9;

/// A kernel through caller-owned buffers, with one `TimestampDecoder` kept
/// across steps like a client reusing it: the adapter every `qwp-ts` kernel
/// runs through.
pub fn kernel_decoder(func: kernel::DecodeFn) -> impl FnMut(&QwpInput, &mut Buffers) -> Outcome<QwpTimestamps> + Send {
    let mut decoder = kernel::TimestampDecoder::new();
    move |input, buffers| {
        let rows = input.row_count as usize;
        // A valid column needs at least one bit per row (bitmap, raw value or
        // Gorilla DoD), so a caller never needs more than 8 rows per input
        // byte; the kernel rejects larger claims before looking at the
        // buffers. Sizing by that bound keeps hostile counts cheap to fuzz.
        let len = rows.min(kernel::MAX_ROWS).min(input.column.len().saturating_mul(8)) + SLACK;
        let mut values = buffers.take::<i64>("values", len);
        let mut validity = buffers.take::<bool>("validity", len);
        let result = func(
            &mut decoder,
            &input.column,
            rows,
            input.gorilla_flag,
            values.range(),
            validity.range(),
        );
        let written = rows.min(len);
        let values = buffers.finish(values, written);
        let validity = buffers.finish(validity, written);
        result
            .map(|consumed| QwpValue {
                values,
                validity,
                consumed,
            })
            .map_err(QwpFault::from)
    }
}

/// The `qwp-ts` family: every registry kernel, the materializing API and
/// questdb-rs (x86_64 only) against the reference.
pub fn campaign() -> Campaign<QwpTimestamps> {
    let mut campaign = Campaign::new(QwpTimestamps);
    for imp in kernel::IMPLEMENTATIONS {
        campaign = campaign.kernel(imp.name, imp.is_available(), move || {
            kernel_decoder(super::runnable(imp))
        });
    }
    // The materializing API: fresh vectors, no caller buffers.
    campaign
        .kernel_fn("qwp/materialize", |input: &QwpInput| {
            kernel::decode_column(&input.column, input.row_count as usize, input.gorilla_flag)
                .map(|c| QwpValue {
                    values: c.values,
                    validity: c.validity,
                    consumed: c.consumed,
                })
                .map_err(QwpFault::from)
        })
        .with(questdb_peer())
        .allow(AllowedDifference {
            id: "questdb-rs-error-messages",
            implementation: "questdb-rs",
            reason: "questdb-rs reports errors as messages without our kinds or byte offsets: each of our \
                     kinds must come back as the message questdb-rs 7.2 gives for that kind (the pairs in \
                     questdb_message_for); the position is not compared",
            applies: |_, expected, got| match (expected, got) {
                (Err(kind), Err(QwpFault::Peer(message))) => {
                    questdb_message_for(kind).iter().any(|m| message.contains(m))
                }
                _ => false,
            },
            // Per category, about 1.5x the largest share seen over seeds 1-4 at
            // default counts; only malformed inputs ever need a rule.
            bounds: &[("malformed-bitflip", 0.5), ("malformed-", 1.0)],
        })
        .allow(AllowedDifference {
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
            bounds: &[
                ("malformed-bitflip", 0.12),
                ("malformed-counts", 0.2),
                ("malformed-header", 0.01),
            ],
        })
        .allow(AllowedDifference {
            id: "questdb-rs-accepts-short-gorilla",
            implementation: "questdb-rs",
            reason: "questdb-rs reads min(n, 2) seed values of a Gorilla column with fewer than three \
                     values and accepts it; the Java, JavaScript and C# clients (and we) reject it",
            applies: |input, expected, got| {
                matches!(expected, Err(QwpFault::TooFewGorillaValues { .. }))
                    && got.is_ok()
                    && gorilla_non_null_rows(input).is_some_and(|n| n < 3)
            },
            bounds: &[("malformed-bitflip", 0.01), ("malformed-header", 0.01)],
        })
}

/// The questdb-rs 7.2 message (a part of it) for each of our error kinds,
/// as observed over every generator category: its errors carry no kinds.
fn questdb_message_for(kind: &QwpFault) -> &'static [&'static str] {
    match kind {
        QwpFault::RowCountOverCap { .. } => &["max supported is"],
        QwpFault::InvalidNullFlag { .. } => &["unknown null_flag"],
        QwpFault::UnknownEncoding { .. } => &["unknown temporal encoding discriminator"],
        QwpFault::TruncatedBitstream { .. } | QwpFault::StreamTooShort { .. } => &["BitReader: read past end"],
        QwpFault::Truncated { .. } | QwpFault::TruncatedSeed { .. } => &["frame truncated"],
        // It reads min(non-null rows, 2) seeds: with the seeds there it
        // finds the rest unread, with them cut short it runs out.
        QwpFault::TooFewGorillaValues { .. } => &["trailing bytes", "frame truncated"],
        QwpFault::OutputTooSmall | QwpFault::Peer(_) => &[],
    }
}

/// The non-null rows of a column whose header says Gorilla, read from the
/// input itself rather than from the reference's verdict: `None` if the
/// header is not a Gorilla one or is cut short.
fn gorilla_non_null_rows(input: &QwpInput) -> Option<usize> {
    let rows = input.row_count as usize;
    let (nulls, encoding_at) = match *input.column.first()? {
        0 => (0, 1),
        1 => {
            let bitmap = input.column.get(1..1 + rows.div_ceil(8))?;
            (
                (0..rows).filter(|r| bitmap[r / 8] >> (r % 8) & 1 == 1).count(),
                1 + rows.div_ceil(8),
            )
        }
        _ => return None,
    };
    (input.gorilla_flag && *input.column.get(encoding_at)? == 1).then_some(rows - nulls)
}

impl Spec for QwpTimestamps {
    type Input = QwpInput;
    type Output = QwpValue;
    type Error = QwpFault;

    fn name(&self) -> &'static str {
        "qwp-ts"
    }

    fn categories(&self) -> Vec<Category<QwpInput>> {
        super::named_categories(generate::CATEGORIES, generate::generate)
    }

    fn reference(&self, input: &QwpInput) -> Outcome<Self> {
        reference::decode_column(&input.column, input.row_count as usize, input.gorilla_flag)
            .map(|c| QwpValue {
                values: c.values,
                validity: c.validity,
                consumed: c.consumed,
            })
            .map_err(QwpFault::from)
    }

    /// Smaller columns, simplest first: the rows the reference reads,
    /// encoded again with spans of them deleted, then each value lowered
    /// toward zero and each null made a zero; then the column's bytes
    /// ([`bytes::shrink`]); then the row count lowered and the Gorilla flag
    /// cleared. Only candidates below the input in [`shrink_key`]'s order
    /// are kept, so minimizing ends.
    fn shrink(&self, input: &QwpInput) -> Vec<QwpInput> {
        let mut out = reencoded(input);
        out.extend(bytes::shrink(input));
        for row_count in bytes::lower(u64::from(input.row_count)) {
            out.push(QwpInput {
                row_count: row_count as u32,
                ..input.clone()
            });
        }
        if input.gorilla_flag {
            out.push(QwpInput {
                gorilla_flag: false,
                ..input.clone()
            });
        }
        let key = shrink_key(input);
        out.retain(|v| shrink_key(v) < key);
        out
    }

    fn arbitrary_case(&self, u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Case<QwpInput>> {
        fuzz::arbitrary_case(u)
    }
}

/// The order shrinking goes down in: canonical length; then what the
/// reference reads (a column it rejects above every column it reads, and
/// among those fewer values, then a smaller sum of magnitudes: a value
/// lowered re-encodes to bytes that can sort higher); then the column's
/// bytes, the row count, the Gorilla flag. Among inputs of one length
/// there are finitely many, so every chain of ever smaller inputs ends.
fn shrink_key(input: &QwpInput) -> (usize, (bool, usize, u128), &[u8], u32, bool) {
    let read = match reference::decode_column(&input.column, input.row_count as usize, input.gorilla_flag) {
        Ok(c) => (
            false,
            c.values.len(),
            c.values.iter().map(|v| u128::from(v.unsigned_abs())).sum(),
        ),
        Err(_) => (true, 0, 0),
    };
    (
        input.column.len(),
        read,
        &input.column,
        input.row_count,
        input.gorilla_flag,
    )
}

/// Rows lowered at most: each lowering is a candidate, and each candidate
/// costs the minimizer a re-run.
const SHRINK_LOWERED: usize = 16;
/// Of those, the first lowered step by step, the rest zeroed only.
const SHRINK_SEARCHED: usize = 4;

/// The rows the reference reads from the column, in smaller versions
/// (spans deleted, then values lowered toward zero, nulls made zeros),
/// each encoded again as the input was: Gorilla when the flag is set and
/// the values allow it, plain values otherwise.
fn reencoded(input: &QwpInput) -> Vec<QwpInput> {
    let Ok(column) = reference::decode_column(&input.column, input.row_count as usize, input.gorilla_flag) else {
        return Vec::new();
    };
    // Values per row, or only the non-null rows' values.
    let mut dense = column.values.iter().copied();
    let per_row = column.values.len() == column.validity.len();
    let rows: Vec<Option<i64>> = column
        .validity
        .iter()
        .map(|&valid| {
            let value = if per_row || valid { dense.next() } else { None };
            value.filter(|_| valid)
        })
        .collect();
    let mut smaller = bytes::spans(&rows);
    for at in 0..rows.len().min(SHRINK_LOWERED) {
        let lowered: Vec<Option<i64>> = match rows[at] {
            None => vec![Some(0)],
            // Zero only, past the first few: each candidate that cannot
            // fail costs a re-run in every round of the minimizer.
            Some(v) => bytes::lower_signed(v)
                .into_iter()
                .take(if at < SHRINK_SEARCHED { usize::MAX } else { 1 })
                .map(Some)
                .collect(),
        };
        for value in lowered {
            let mut w = rows.clone();
            w[at] = value;
            smaller.push(w);
        }
    }
    smaller
        .into_iter()
        .map(|rows| {
            let gorilla = input
                .gorilla_flag
                .then(|| reference::encode_column_as(&rows, reference::Encoding::Gorilla))
                .flatten();
            let column = gorilla.unwrap_or_else(|| reference::encode_column(&rows, input.gorilla_flag).0);
            QwpInput {
                column,
                row_count: rows.len() as u32,
                gorilla_flag: input.gorilla_flag,
            }
        })
        .collect()
}

#[cfg(target_arch = "x86_64")]
fn questdb_peer() -> Implementation<QwpTimestamps> {
    Implementation::new("questdb-rs", Role::Peer, true, || {
        |input: &QwpInput, _: &mut Buffers| {
            questdb::decode_with_questdb(&input.column, input.row_count as usize, input.gorilla_flag)
                .map(|rows| QwpValue {
                    values: rows.iter().map(|v| v.unwrap_or(0)).collect(),
                    validity: rows.iter().map(Option::is_some).collect(),
                    // questdb-rs rejects trailing bytes after the last
                    // column, so a success consumed the whole section.
                    consumed: input.column.len(),
                })
                .map_err(QwpFault::Peer)
        }
    })
}

/// questdb-rs is only built on x86_64; elsewhere it is listed as unavailable.
#[cfg(not(target_arch = "x86_64"))]
fn questdb_peer() -> Implementation<QwpTimestamps> {
    Implementation::new("questdb-rs", Role::Peer, false, || {
        |_: &QwpInput, _: &mut Buffers| -> Outcome<QwpTimestamps> {
            unreachable!("questdb-rs is not built on this target")
        }
    })
}

#[cfg(test)]
mod shrink_tests {
    use super::*;

    fn values(input: &QwpInput) -> Vec<i64> {
        QwpTimestamps.reference(input).map(|v| v.values).unwrap_or_default()
    }

    /// A bug that needs one timestamp over a threshold: the column shrinks
    /// to one row holding the threshold, encoded as the server would.
    #[test]
    fn columns_shrink_to_the_one_row_that_matters() {
        for gorilla_flag in [false, true] {
            let rows: Vec<Option<i64>> = (0..40).map(|i| (i % 7 != 3).then_some(1_000_000 + i * 1000)).collect();
            let (column, _) = reference::encode_column(&rows, gorilla_flag);
            let mut current = QwpInput {
                column,
                row_count: 40,
                gorilla_flag,
            };
            let fails = |i: &QwpInput| values(i).iter().any(|&v| v >= 1_020_000);
            assert!(fails(&current));
            'outer: loop {
                for candidate in QwpTimestamps.shrink(&current) {
                    assert!(shrink_key(&candidate) < shrink_key(&current));
                    if fails(&candidate) {
                        current = candidate;
                        continue 'outer;
                    }
                }
                break;
            }
            assert_eq!(values(&current), [1_020_000], "{current:?}");
            assert_eq!(current.row_count, 1);
            // A null-section byte, the encoding byte under the flag, one value.
            assert!(current.column.len() <= 9 + usize::from(gorilla_flag), "{current:?}");
        }
    }
}
