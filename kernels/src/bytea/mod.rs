//! PostgreSQL `bytea` text decoding: the hex format (`\x` + digit pairs, with
//! whitespace allowed between pairs) and the escape format (`\\`, `\ooo`),
//! behaving exactly like the server's input function `byteain`.
//!
//! Hex kernels all share one signature, [`HexFn`], and are listed best first
//! in [`HEX_IMPLEMENTATIONS`]: AVX-512BW, AVX2 and SSSE3 on x86_64, NEON on aarch64,
//! a portable SWAR kernel on `u64` words (the path big-endian and other
//! non-SIMD targets take) and a scalar lookup-table kernel. Every entry is
//! listed on every target so manifests can name it; `is_available()` says
//! whether this CPU (and this build) can run it. The escape format has its own
//! registry, [`ESCAPE_IMPLEMENTATIONS`]: a bulk kernel that copies the runs between
//! backslashes with `copy_from_slice`, and a byte-at-a-time one.
//!
//! The vector kernels decode whole blocks of digits when a block is all hex
//! digits (the common case, no whitespace) and hand a block that is not to
//! the scalar step machine, which skips whitespace, reports errors at their
//! exact offset and resumes the vector loop at the next pair boundary.
//!
//! Output size: [`decoded_len_bound`] is known before decoding (`(n - 2) / 2`
//! for hex, `n` for escape) and is the only size a caller must provide.

mod escape;
mod scalar;
mod swar;

#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::Implementation;

pub use scalar::HEX_TABLE;

/// What went wrong; the server's error for each is in the variant's doc.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `invalid hexadecimal digit: "C"` (SQLSTATE 22023). `offset` is the
    /// offending byte's, `byte` is that byte.
    InvalidHexDigit,
    /// `invalid hexadecimal data: odd number of digits` (22023). `offset` is
    /// the text's length (the input ended inside a pair), `byte` is `None`.
    OddNumberOfDigits,
    /// `invalid input syntax for type bytea` (22P02). `offset` is the
    /// backslash that starts the bad sequence, `byte` is `Some(b'\\')`.
    InvalidEscape,
    /// The caller's output buffer is shorter than [`decoded_len_bound`]
    /// (not a server error; `offset` 0, nothing written).
    OutputTooSmall,
}

/// A decode error: kind, byte offset in the whole text and offending byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecodeError {
    pub kind: ErrorKind,
    pub offset: usize,
    pub byte: Option<u8>,
}

impl DecodeError {
    pub(crate) fn invalid_digit(offset: usize, byte: u8) -> Self {
        DecodeError {
            kind: ErrorKind::InvalidHexDigit,
            offset,
            byte: Some(byte),
        }
    }
    pub(crate) fn odd(offset: usize) -> Self {
        DecodeError {
            kind: ErrorKind::OddNumberOfDigits,
            offset,
            byte: None,
        }
    }
    pub(crate) fn escape(offset: usize) -> Self {
        DecodeError {
            kind: ErrorKind::InvalidEscape,
            offset,
            byte: Some(b'\\'),
        }
    }
    pub(crate) fn too_small() -> Self {
        DecodeError {
            kind: ErrorKind::OutputTooSmall,
            offset: 0,
            byte: None,
        }
    }
    fn shifted(mut self, by: usize) -> Self {
        if self.kind != ErrorKind::OutputTooSmall {
            self.offset += by;
        }
        self
    }
}

/// Decode hex digits (the text after `\x`) into `out`, which must hold at
/// least `digits.len() / 2` bytes. Returns the bytes written; error offsets
/// are relative to `digits`. Writes nothing outside `out[..written]` (on
/// error, a prefix of the output may have been written).
pub type HexFn = fn(digits: &[u8], out: &mut [u8]) -> Result<usize, DecodeError>;

/// Decode escape-format text into `out` (at least `text.len()` bytes).
pub type EscapeFn = fn(text: &[u8], out: &mut [u8]) -> Result<usize, DecodeError>;

/// Every hex kernel, best first, on every target; the last two are portable.
pub static HEX_IMPLEMENTATIONS: &[Implementation<HexFn>] = &[
    #[cfg(target_arch = "x86_64")]
    Implementation::new("bytea/hex-avx512", x86::avx512_available, x86::decode_avx512),
    #[cfg(not(target_arch = "x86_64"))]
    Implementation::absent("bytea/hex-avx512"),
    #[cfg(target_arch = "x86_64")]
    Implementation::new("bytea/hex-avx2", x86::avx2_available, x86::decode_avx2),
    #[cfg(not(target_arch = "x86_64"))]
    Implementation::absent("bytea/hex-avx2"),
    #[cfg(target_arch = "x86_64")]
    Implementation::new("bytea/hex-ssse3", x86::ssse3_available, x86::decode_ssse3),
    #[cfg(not(target_arch = "x86_64"))]
    Implementation::absent("bytea/hex-ssse3"),
    #[cfg(target_arch = "aarch64")]
    Implementation::new("bytea/hex-neon", neon::neon_available, neon::decode_neon),
    #[cfg(not(target_arch = "aarch64"))]
    Implementation::absent("bytea/hex-neon"),
    Implementation::portable("bytea/hex-swar", swar::decode),
    Implementation::portable("bytea/hex-scalar", scalar::decode),
];

/// Every escape-format kernel, best first.
pub static ESCAPE_IMPLEMENTATIONS: &[Implementation<EscapeFn>] = &[
    Implementation::portable("bytea/escape-bulk", escape::decode_bulk),
    Implementation::portable("bytea/escape-scalar", escape::decode_scalar),
];

/// The best hex kernel this CPU can run.
pub fn best_hex() -> HexFn {
    static BEST: crate::Best<HexFn> = crate::Best::new(HEX_IMPLEMENTATIONS);
    BEST.get()
}

/// The best escape kernel.
pub fn best_escape() -> EscapeFn {
    static BEST: crate::Best<EscapeFn> = crate::Best::new(ESCAPE_IMPLEMENTATIONS);
    BEST.get()
}

/// Whether `text` is in the hex format (starts with `\x`, lower-case x).
pub fn is_hex(text: &[u8]) -> bool {
    text.len() >= 2 && text[0] == b'\\' && text[1] == b'x'
}

/// The output size `text` needs at most: `(len - 2) / 2` for hex (exact when
/// there is no whitespace), `len` for escape. Known before decoding.
pub fn decoded_len_bound(text: &[u8]) -> usize {
    if is_hex(text) {
        (text.len() - 2) / 2
    } else {
        text.len()
    }
}

/// Decode a whole `bytea` literal into `out` with the given kernels.
pub fn decode_into_with(hex: HexFn, escape: EscapeFn, text: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    if out.len() < decoded_len_bound(text) {
        return Err(DecodeError::too_small());
    }
    if is_hex(text) {
        hex(&text[2..], out).map_err(|e| e.shifted(2))
    } else {
        escape(text, out)
    }
}

/// Decode a whole `bytea` literal into `out` (at least
/// [`decoded_len_bound`] bytes) with the best kernels; returns the length.
pub fn decode_into(text: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    decode_into_with(best_hex(), best_escape(), text, out)
}

/// Decode a whole `bytea` literal into a new `Vec` (allocated once, sized by
/// [`decoded_len_bound`], i.e. by the input's length, never by a count read
/// from the input).
pub fn decode_to_vec(text: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0u8; decoded_len_bound(text)];
    let n = decode_into(text, &mut out)?;
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests;
