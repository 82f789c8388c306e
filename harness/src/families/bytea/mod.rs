//! Family `pg-bytea`: PostgreSQL `bytea` text literals (hex `\x...` and the
//! escape format), decoded by every kernel and held against the reference
//! `byteain` twin; optionally also against a real PostgreSQL server (the
//! `postgres-server` peer, see [`server`]).

mod generate;
#[cfg(target_arch = "x86_64")]
pub mod server;

use crossdec_kernels::bytea as kernel;
use crossdec_reference::bytea as reference;

use crate::canary;
use crate::engine::{AllowedDifference, Case, CaseRng, Category, Decoded, Family, Implementation, Outcome, Role};

pub use generate::{with_whitespace, CATEGORIES};

/// One literal, exactly as the server's input function would see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteaInput {
    pub text: Vec<u8>,
}

/// A decoded value in comparable form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteaValue {
    pub bytes: Vec<u8>,
    /// Bytes of the literal consumed (always all of it on success).
    pub consumed: usize,
}

/// A rejection in comparable form: kind, byte offset, offending character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByteaFault {
    InvalidHexDigit { offset: usize, character: u8 },
    OddNumberOfDigits { offset: usize },
    InvalidEscape { offset: usize },
    OutputTooSmall,
    /// The server's rejection (peer `postgres-server` only): SQLSTATE and the
    /// character quoted in `invalid hexadecimal digit: "C"` (the whole
    /// character in the server's encoding). The server reports no offset.
    Server { sqlstate: String, character: Option<Vec<u8>> },
    /// The literal cannot be sent to the server at all (it contains NUL or is
    /// not UTF-8, the client encoding), peer `postgres-server` only.
    Unsendable,
}

impl ByteaFault {
    /// The SQLSTATE the server reports for this fault, if it is a server error.
    pub fn sqlstate(&self) -> Option<&str> {
        match self {
            ByteaFault::InvalidHexDigit { .. } | ByteaFault::OddNumberOfDigits { .. } => Some("22023"),
            ByteaFault::InvalidEscape { .. } => Some("22P02"),
            ByteaFault::Server { sqlstate, .. } => Some(sqlstate),
            ByteaFault::OutputTooSmall | ByteaFault::Unsendable => None,
        }
    }
}

impl From<reference::ByteaError> for ByteaFault {
    fn from(e: reference::ByteaError) -> Self {
        use reference::ByteaError as E;
        match e {
            E::InvalidHexDigit { offset, character } => ByteaFault::InvalidHexDigit { offset, character },
            E::OddNumberOfDigits { offset } => ByteaFault::OddNumberOfDigits { offset },
            E::InvalidEscape { offset } => ByteaFault::InvalidEscape { offset },
        }
    }
}

impl From<kernel::DecodeError> for ByteaFault {
    fn from(e: kernel::DecodeError) -> Self {
        use kernel::ErrorKind as K;
        match (e.kind, e.byte) {
            (K::InvalidHexDigit, Some(character)) => ByteaFault::InvalidHexDigit { offset: e.offset, character },
            // A digit error without its byte would be a kernel bug: keep it
            // visible as a mismatch rather than invent a byte.
            (K::InvalidHexDigit, None) => ByteaFault::Server { sqlstate: "kernel: digit error without byte".into(), character: None },
            (K::OddNumberOfDigits, _) => ByteaFault::OddNumberOfDigits { offset: e.offset },
            (K::InvalidEscape, _) => ByteaFault::InvalidEscape { offset: e.offset },
            (K::OutputTooSmall, _) => ByteaFault::OutputTooSmall,
        }
    }
}

/// The `pg-bytea` family.
pub struct PgBytea;

/// Canary-filled slack past the output bound, so a write past it is seen.
const SLACK: usize = 67;

/// A registry kernel pair (hex, escape) behind caller-owned reusable output.
struct KernelAdapter {
    hex: kernel::HexFn,
    escape: kernel::EscapeFn,
    out: Vec<u8>,
}

impl KernelAdapter {
    fn decode(&mut self, input: &ByteaInput, canary_byte: u8) -> Decoded<PgBytea> {
        let bound = kernel::decoded_len_bound(&input.text);
        // Reuse the allocation across steps; refill every byte with the canary.
        self.out.clear();
        self.out.resize(bound + SLACK, canary_byte);
        let result = kernel::decode_into_with(self.hex, self.escape, &input.text, &mut self.out);
        // On success nothing past the decoded length may change; on error a
        // partial prefix inside the bound is allowed.
        let written = match result {
            Ok(n) => n,
            Err(_) => bound,
        };
        let buffer_faults = canary::untouched_after("out", &self.out, written, canary_byte).into_iter().collect();
        let outcome = result
            .map(|n| ByteaValue { bytes: self.out[..n].to_vec(), consumed: input.text.len() })
            .map_err(ByteaFault::from);
        Decoded { outcome, buffer_faults }
    }
}

fn kernel_impl(name: &'static str, available: bool, hex: kernel::HexFn, escape: kernel::EscapeFn) -> Implementation<PgBytea> {
    Implementation::new(name, Role::Kernel, available, move || {
        let mut adapter = KernelAdapter { hex, escape, out: Vec::new() };
        move |input: &ByteaInput, canary: u8| adapter.decode(input, canary)
    })
}

impl Family for PgBytea {
    type Input = ByteaInput;
    type Value = ByteaValue;
    type Error = ByteaFault;

    fn name(&self) -> &'static str {
        "pg-bytea"
    }

    fn categories(&self) -> Vec<Category> {
        CATEGORIES.to_vec()
    }

    fn generate(&self, category: &str, index: u64, rng: &mut CaseRng) -> Vec<Case<ByteaInput>> {
        generate::generate(category, index, rng)
    }

    fn reference(&self, input: &ByteaInput) -> Outcome<Self> {
        reference::decode(&input.text)
            .map(|bytes| ByteaValue { bytes, consumed: input.text.len() })
            .map_err(ByteaFault::from)
    }

    fn implementations(&self) -> Vec<Implementation<Self>> {
        let bulk = kernel::ESCAPE_KERNELS[0].func;
        let scalar_hex = kernel::HEX_KERNELS[5].func;
        let mut list = Vec::new();
        for k in &kernel::HEX_KERNELS {
            list.push(kernel_impl(k.name, (k.is_available)(), k.func, bulk));
        }
        for e in &kernel::ESCAPE_KERNELS {
            list.push(kernel_impl(e.name, (e.is_available)(), scalar_hex, e.func));
        }
        // The dispatching entry points: decode_into (best kernels, caller
        // buffer) and decode_to_vec.
        list.push(kernel_impl("dispatch", true, kernel::best_hex(), kernel::best_escape()));
        list.push(Implementation::new("dispatch-vec", Role::Kernel, true, || {
            |input: &ByteaInput, _canary: u8| {
                Decoded::clean(
                    kernel::decode_to_vec(&input.text)
                        .map(|bytes| ByteaValue { bytes, consumed: input.text.len() })
                        .map_err(ByteaFault::from),
                )
            }
        }));
        #[cfg(target_arch = "x86_64")]
        list.push(server::peer());
        list
    }

    fn write_input(&self, input: &ByteaInput, out: &mut Vec<u8>) {
        out.extend_from_slice(&input.text);
    }

    fn parse_input(&self, bytes: &[u8]) -> Option<ByteaInput> {
        Some(ByteaInput { text: bytes.to_vec() })
    }

    fn write_outcome(&self, outcome: &Outcome<Self>, out: &mut Vec<u8>) {
        let u64le = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&(v as u64).to_le_bytes());
        match outcome {
            Ok(v) => {
                out.push(0);
                u64le(out, v.bytes.len());
                out.extend_from_slice(&v.bytes);
                u64le(out, v.consumed);
            }
            Err(e) => {
                out.push(1);
                match e {
                    ByteaFault::InvalidHexDigit { offset, character } => {
                        out.push(1);
                        u64le(out, *offset);
                        out.push(*character);
                    }
                    ByteaFault::OddNumberOfDigits { offset } => {
                        out.push(2);
                        u64le(out, *offset);
                    }
                    ByteaFault::InvalidEscape { offset } => {
                        out.push(3);
                        u64le(out, *offset);
                    }
                    ByteaFault::OutputTooSmall => out.push(4),
                    ByteaFault::Server { sqlstate, character } => {
                        out.push(5);
                        u64le(out, sqlstate.len());
                        out.extend_from_slice(sqlstate.as_bytes());
                        let c = character.as_deref().unwrap_or(&[]);
                        u64le(out, c.len());
                        out.extend_from_slice(c);
                    }
                    ByteaFault::Unsendable => out.push(6),
                }
            }
        }
    }

    fn shrink(&self, input: &ByteaInput) -> Vec<ByteaInput> {
        let t = &input.text;
        let mut out = Vec::new();
        if t.is_empty() {
            return out;
        }
        // Drop the second half, the first half after the prefix, then single
        // bytes (bounded).
        out.push(ByteaInput { text: t[..t.len() / 2].to_vec() });
        if t.len() > 4 {
            let mut v = t[..2].to_vec();
            v.extend_from_slice(&t[2 + (t.len() - 2) / 2..]);
            out.push(ByteaInput { text: v });
        }
        let step = (t.len() / 48).max(1);
        for k in (0..t.len()).step_by(step) {
            let mut v = t.clone();
            v.remove(k);
            out.push(ByteaInput { text: v });
        }
        out
    }

    fn allowed_differences(&self) -> Vec<AllowedDifference<Self>> {
        vec![
            AllowedDifference {
                id: "server-reports-no-offset",
                implementation: "postgres-server",
                reason: "the server's error carries its SQLSTATE and, for a bad hex digit, the whole offending \
                         character, but no offset: same class and same character (the UTF-8 character at the \
                         reference's offset) is agreement",
                applies: |input, expected, got| match (expected, got) {
                    (Err(e), Err(ByteaFault::Server { sqlstate, character })) => {
                        e.sqlstate() == Some(sqlstate.as_str())
                            && match e {
                                ByteaFault::InvalidHexDigit { offset, .. } => {
                                    character.as_deref() == Some(utf8_char_at(&input.text, *offset))
                                }
                                _ => character.is_none(),
                            }
                    }
                    _ => false,
                },
            },
            AllowedDifference {
                id: "server-cannot-receive",
                implementation: "postgres-server",
                reason: "a literal containing NUL or invalid UTF-8 cannot be sent as text in the UTF-8 client \
                         encoding, so the server never sees it",
                applies: |input, _expected, got| {
                    matches!(got, Err(ByteaFault::Unsendable))
                        && (input.text.contains(&0) || std::str::from_utf8(&input.text).is_err())
                },
            },
        ]
    }
}

/// The UTF-8 character starting at `offset` (one byte if it is not a valid
/// sequence start).
pub fn utf8_char_at(text: &[u8], offset: usize) -> &[u8] {
    let rest = &text[offset.min(text.len())..];
    let want = match rest.first() {
        Some(b) if *b < 0x80 => 1,
        Some(b) if *b >= 0xF0 => 4,
        Some(b) if *b >= 0xE0 => 3,
        Some(b) if *b >= 0xC0 => 2,
        Some(_) => 1,
        None => 0,
    };
    &rest[..want.min(rest.len())]
}
