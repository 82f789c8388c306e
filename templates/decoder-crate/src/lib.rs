//! LEB128 varints: a list of `u32`s, each written as groups of seven bits,
//! least significant group first, every byte but a value's last with its
//! high bit set. Two decoders that must mean the same thing: [`decode`]
//! reads eight bytes as one word and finds a value's end by counting the
//! word's trailing zero bits; [`decode_obvious`] reads a byte at a time,
//! straight from the definition above. `tests/differential.rs` holds one
//! to the other.

use std::fmt;

/// Why a stream is not a list of varints. `at` is the offset of the first
/// byte of the varint at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "canonical",
    derive(crossdec_engine::Canonical, crossdec_engine::FromCanonical)
)]
pub enum VarintError {
    /// The input ends inside a varint.
    #[cfg_attr(feature = "canonical", canonical(tag = 0))]
    Truncated { at: usize },
    /// Five bytes and still a continuation bit: no `u32` needs a sixth.
    #[cfg_attr(feature = "canonical", canonical(tag = 1))]
    TooLong { at: usize },
    /// Five bytes whose value does not fit in 32 bits.
    #[cfg_attr(feature = "canonical", canonical(tag = 2))]
    Overflow { at: usize },
}

impl fmt::Display for VarintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarintError::Truncated { at } => write!(f, "varint at byte {at} is cut off"),
            VarintError::TooLong { at } => write!(f, "varint at byte {at} is longer than 5 bytes"),
            VarintError::Overflow { at } => {
                write!(f, "varint at byte {at} does not fit in 32 bits")
            }
        }
    }
}

impl std::error::Error for VarintError {}

/// The longest varint of a `u32`: 32 bits in groups of seven.
const MAX_LEN: usize = 5;

/// Every varint of `input`, a byte at a time.
pub fn decode_obvious(input: &[u8]) -> Result<Vec<u32>, VarintError> {
    let mut values = Vec::new();
    let mut start = 0;
    while start < input.len() {
        let (mut value, mut len) = (0u64, 0);
        loop {
            let Some(&byte) = input.get(start + len) else {
                return Err(VarintError::Truncated { at: start });
            };
            value |= u64::from(byte & 0x7f) << (7 * len);
            len += 1;
            if byte & 0x80 == 0 {
                break;
            }
            if len == MAX_LEN {
                return Err(VarintError::TooLong { at: start });
            }
        }
        let value = u32::try_from(value).map_err(|_| VarintError::Overflow { at: start })?;
        values.push(value);
        start += len;
    }
    Ok(values)
}

/// Every varint of `input`, a word at a time: the eight bytes from a
/// varint's start as one little-endian `u64` (zero bytes past the input's
/// end), its length from the lowest byte whose high bit is clear, its
/// seven-bit groups gathered with shifts and masks.
pub fn decode(input: &[u8]) -> Result<Vec<u32>, VarintError> {
    let mut values = Vec::with_capacity(input.len());
    let mut start = 0;
    while start < input.len() {
        let mut bytes = [0u8; 8];
        let available = (input.len() - start).min(8);
        bytes[..available].copy_from_slice(&input[start..start + available]);
        // Byte k of the input is bits 8k..8k+8 of the word on every target.
        let word = u64::from_le_bytes(bytes);
        let ends = !word & 0x8080_8080_8080_8080;
        let len = (ends.trailing_zeros() / 8 + 1) as usize;
        // Checked in this order, as a byte-at-a-time reader meets them: a
        // zero past the input ends the word's varint, so `len > available`
        // is a cut-off varint unless five real bytes came first.
        if len > MAX_LEN {
            return Err(VarintError::TooLong { at: start });
        }
        if len > available {
            return Err(VarintError::Truncated { at: start });
        }
        let groups = word & (u64::MAX >> (64 - 8 * len)) & 0x7f7f_7f7f_7f7f_7f7f;
        let value = (groups & 0x7f)
            | (groups >> 1 & 0x3f80)
            | (groups >> 2 & 0x1f_c000)
            | (groups >> 3 & 0xfe0_0000)
            | (groups >> 4 & 0x7_f000_0000);
        let value = u32::try_from(value).map_err(|_| VarintError::Overflow { at: start })?;
        values.push(value);
        start += len;
    }
    Ok(values)
}
