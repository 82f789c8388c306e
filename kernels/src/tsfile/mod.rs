//! Apache TsFile page encodings: TS_2DIFF, GORILLA (id 8), PLAIN, the
//! RLE / bit-packing hybrid, ZIGZAG, CHIMP, DICTIONARY, SPRINTZ, RLBE,
//! CAMEL and REGULAR, and TS_2DIFF and RLE on FLOAT and DOUBLE, decoded with
//! word buffers.
//!
//! Every `*_into` decoder writes into a caller-owned slice whose length is the
//! most values the caller accepts (the page's row count, a buffer): more
//! values than that is [`DecodeError::TooManyValues`], so a kernel never sizes
//! anything from a count the input cannot back. Nothing past the values
//! decoded is written. Positions in errors are byte offsets from the start of
//! the bytes handed in, plus the bit (0 = most significant) for bit streams.
//! The reference crate defines the same errors independently; the harness
//! holds the two against each other.

use std::fmt;

pub mod aligned;
pub(crate) mod bitpack;
pub mod camel;
pub mod chimp;
pub mod dictionary;
pub mod float_scaled;
pub mod gorilla;
mod minmax;
pub mod plain;
pub mod regular;
pub mod rlbe;
pub mod rle;
pub mod sprintz;
pub mod ts2diff;
mod varint;
pub mod zigzag;

/// The field of an encoded page that could not be read (see the reference
/// crate's twin for the meaning of each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    WriteIndex,
    BitWidth,
    MinDeltaBase,
    FirstValue,
    Packed,
    GorillaFirst,
    GorillaControl,
    GorillaLeading,
    GorillaLength,
    GorillaBits,
    GorillaFlush,
    Varint,
    Value,
    Bytes,
    RleLength,
    RleBitWidth,
    RunHeader,
    LastBitPackedNum,
    RunValue,
    Groups,
    /// ZIGZAG: a group's byte length, its value count, one value's varint.
    ZigzagLength,
    ZigzagCount,
    ZigzagValue,
    /// CHIMP: the raw first value, the 2 control bits, a `00` slot or the
    /// `01` case's slot / leading code / significant count, the `11` case's
    /// leading code, the XOR bits, the byte flushed after the terminator.
    ChimpFirst,
    ChimpControl,
    ChimpIndex,
    ChimpLeading,
    ChimpBits,
    ChimpFlush,
    /// SPRINTZ: a block's header byte (bit width, or 0x80 | tail size), a
    /// full block's first value, its packed errors, the tail's value count.
    SprintzHeader,
    SprintzFirst,
    SprintzPacked,
    SprintzTail,
    /// DICTIONARY: the entry count, an entry (its length or bytes), an
    /// index that names no entry.
    DictSize,
    DictEntry,
    DictIndex,
    /// TS_2DIFF / RLE on FLOAT and DOUBLE: the first varint (maxPointNumber
    /// or a marker), the marked page's value count, its form bitmaps, the
    /// maxPointNumber after them.
    FloatHeader,
    FloatCount,
    FloatBitmap,
    MaxPointNumber,
    /// RLBE: a block's 32-bit value count, a segment's bit-length code, its
    /// Fibonacci-coded run length, a value's bits.
    RlbeCount,
    RlbeLength,
    RlbeRun,
    RlbeValue,
    /// CAMEL: a block's bit count, the raw first value, a value's sign and
    /// type bits, a bitwise varint, the decimal part (count, XOR flag and
    /// bits), the XOR form (control bits, window, bits).
    CamelBits,
    CamelFirst,
    CamelType,
    CamelVarLong,
    CamelDecimal,
    CamelXor,
    /// REGULAR: a block's missing-points byte, its bitmap's byte length, the
    /// bitmap, the count of positions, the interval, the first value.
    RegularMissing,
    RegularBitmapLength,
    RegularBitmap,
    RegularCount,
    RegularDelta,
    RegularFirst,
}

/// Why a page was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// `field`, starting at byte `offset` (bit `bit`), runs past the end of its input.
    Truncated { field: Field, offset: usize, bit: u8 },
    /// A bit width above `max`.
    BadBitWidth { width: i64, max: u32, offset: usize },
    /// A count or length that cannot be right.
    BadCount { field: Field, count: i64, offset: usize },
    /// GORILLA: window reuse before any window.
    NoWindow { offset: usize, bit: u8 },
    /// GORILLA: leading zeros + significant bits above the value width.
    BadWindow {
        leading: u32,
        significant: u32,
        offset: usize,
        bit: u8,
    },
    /// A varint too long for its type.
    BadVarint { offset: usize },
    /// A PLAIN boolean byte other than 0 or 1.
    BadBoolean { byte: u8, offset: usize },
    /// More values than the output holds.
    TooManyValues { max: usize, offset: usize },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { field, offset, bit } => {
                write!(f, "{field:?} at byte {offset} bit {bit} runs past the end of the input")
            }
            DecodeError::BadBitWidth { width, max, offset } => {
                write!(f, "bit width {width} at byte {offset} exceeds {max}")
            }
            DecodeError::BadCount { field, count, offset } => write!(f, "invalid {field:?} {count} at byte {offset}"),
            DecodeError::NoWindow { offset, bit } => {
                write!(f, "window reuse before any window at byte {offset} bit {bit}")
            }
            DecodeError::BadWindow {
                leading,
                significant,
                offset,
                bit,
            } => write!(
                f,
                "window of {leading} leading zeros and {significant} significant bits at byte {offset} bit {bit}"
            ),
            DecodeError::BadVarint { offset } => write!(f, "malformed varint at byte {offset}"),
            DecodeError::BadBoolean { byte, offset } => write!(f, "boolean byte {byte} at byte {offset}"),
            DecodeError::TooManyValues { max, offset } => write!(f, "more than {max} values (at byte {offset})"),
        }
    }
}

impl std::error::Error for DecodeError {}

impl DecodeError {
    /// The error of a stream that starts `by` bytes into its page, with its
    /// offset counted from the page's start.
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        let (DecodeError::Truncated { offset, .. }
        | DecodeError::BadBitWidth { offset, .. }
        | DecodeError::BadCount { offset, .. }
        | DecodeError::NoWindow { offset, .. }
        | DecodeError::BadWindow { offset, .. }
        | DecodeError::BadVarint { offset }
        | DecodeError::BadBoolean { offset, .. }
        | DecodeError::TooManyValues { offset, .. }) = &mut self;
        *offset += by;
        self
    }
}

/// What a successful `*_into` call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    /// Values written to the front of the output.
    pub values: usize,
    /// Input bytes consumed.
    pub consumed: usize,
}

/// An output lane: built from the low bits of a u64 pattern.
pub trait Lane: Copy + Default + Send + Sync + 'static {
    /// Width of the type in bits.
    const BITS: u32;
    fn from_bits(v: u64) -> Self;
}

/// An integer lane: TS_2DIFF also reads one back and adds with wrapping
/// (the float lanes only ever take bit patterns).
pub trait IntLane: Lane {
    fn to_bits(self) -> u64;
    fn wrapping_add(self, other: Self) -> Self;
}

macro_rules! lane_int {
    ($t:ty, $u:ty, $bits:expr) => {
        impl Lane for $t {
            const BITS: u32 = $bits;
            #[inline(always)]
            fn from_bits(v: u64) -> Self {
                v as $u as $t
            }
        }
        impl IntLane for $t {
            #[inline(always)]
            fn to_bits(self) -> u64 {
                self as $u as u64
            }
            #[inline(always)]
            fn wrapping_add(self, other: Self) -> Self {
                <$t>::wrapping_add(self, other)
            }
        }
    };
}
lane_int!(i32, u32, 32);
lane_int!(u32, u32, 32);
lane_int!(i64, u64, 64);
lane_int!(u64, u64, 64);

impl Lane for f32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn from_bits(v: u64) -> Self {
        f32::from_bits(v as u32)
    }
}

impl Lane for f64 {
    const BITS: u32 = 64;
    #[inline(always)]
    fn from_bits(v: u64) -> Self {
        f64::from_bits(v)
    }
}

/// A BOOLEAN lane: TsFile writes booleans as an INT32 stream and reads any
/// non-zero value as true, so a boolean takes the widths of an INT32 and
/// decoders write it straight from the stream, without an INT32 copy.
impl Lane for bool {
    const BITS: u32 = 32;
    #[inline(always)]
    fn from_bits(v: u64) -> Self {
        v != 0
    }
}

/// Unsigned LEB128 of at most 5 bytes holding a u32, read from `data[at..]`.
/// Returns (value, bytes).
#[inline]
pub(crate) fn uvarint32(data: &[u8], at: usize, field: Field) -> Result<(u32, usize), DecodeError> {
    // Fast path: one byte, a value below the continuation bit.
    if let Some(&b) = data.get(at) {
        if b < 0x80 {
            return Ok((b as u32, 1));
        }
    }
    let mut v: u64 = 0;
    for i in 0..5 {
        let b = *data.get(at + i).ok_or(DecodeError::Truncated {
            field,
            offset: at,
            bit: 0,
        })?;
        v |= ((b & 0x7F) as u64) << (7 * i);
        if b & 0x80 == 0 {
            if v > u32::MAX as u64 {
                return Err(DecodeError::BadVarint { offset: at });
            }
            return Ok((v as u32, i + 1));
        }
    }
    Err(DecodeError::BadVarint { offset: at })
}

/// The 7-bit groups of the first `bytes` bytes of `word` (little-endian, up
/// to 8; bit 7 of each byte ignored), packed together: a LEB128 varint's
/// value (CAMEL's word reader).
#[inline(always)]
pub(crate) fn compact7(word: u64, bytes: u32) -> u64 {
    let x = word & (u64::MAX >> (64 - 8 * bytes));
    // The groups land on disjoint bits: adding them is or-ing them.
    (x & 0x7F)
        + ((x >> 1) & (0x7F << 7))
        + ((x >> 2) & (0x7F << 14))
        + ((x >> 3) & (0x7F << 21))
        + ((x >> 4) & (0x7F << 28))
        + ((x >> 5) & (0x7F << 35))
        + ((x >> 6) & (0x7F << 42))
        + ((x >> 7) & (0x7F << 49))
}

#[inline(always)]
pub(crate) fn be_u32(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(data.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

#[inline(always)]
pub(crate) fn be_u64(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(data.get(at..at.checked_add(8)?)?.try_into().ok()?))
}

/// `u` as an unsigned LEB128 varint, appended to `out`, for tests that
/// build pages.
#[cfg(test)]
pub(crate) fn test_leb128(mut u: u64, out: &mut Vec<u8>) {
    loop {
        let b = (u & 0x7F) as u8;
        u >>= 7;
        out.push(if u == 0 { b } else { b | 0x80 });
        if u == 0 {
            return;
        }
    }
}

/// Spaced hex to bytes, for the encodings' known-answer tests.
#[cfg(test)]
pub(crate) fn test_unhex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every error's message names what went wrong and where.
    #[test]
    fn every_error_message_says_what_and_where() {
        let cases = [
            (
                DecodeError::Truncated {
                    field: Field::FirstValue,
                    offset: 17,
                    bit: 3,
                },
                &["FirstValue", "17", "bit 3"][..],
            ),
            (
                DecodeError::BadBitWidth {
                    width: 65,
                    max: 64,
                    offset: 4,
                },
                &["65", "64", "byte 4"],
            ),
            (
                DecodeError::BadCount {
                    field: Field::WriteIndex,
                    count: -1,
                    offset: 0,
                },
                &["WriteIndex", "-1", "byte 0"],
            ),
            (
                DecodeError::NoWindow { offset: 9, bit: 2 },
                &["window", "byte 9", "bit 2"],
            ),
            (
                DecodeError::BadWindow {
                    leading: 31,
                    significant: 40,
                    offset: 12,
                    bit: 5,
                },
                &["31", "40", "byte 12", "bit 5"],
            ),
            (DecodeError::BadVarint { offset: 6 }, &["varint", "byte 6"]),
            (
                DecodeError::BadBoolean { byte: 2, offset: 8 },
                &["boolean byte 2", "byte 8"],
            ),
            (DecodeError::TooManyValues { max: 100, offset: 44 }, &["100", "byte 44"]),
        ];
        for (error, words) in cases {
            let text = error.to_string();
            for word in words {
                assert!(text.contains(word), "{error:?} displays as {text:?}, without {word:?}");
            }
        }
    }

    /// LEB128 at the edges of u32: the largest value is 5 bytes and legal,
    /// one bit more is not; a sixth byte is never read.
    #[test]
    fn uvarint32_edges() {
        let f = Field::Varint;
        assert_eq!(uvarint32(&[0x7F], 0, f), Ok((127, 1)));
        assert_eq!(uvarint32(&[9, 0x80, 0x01], 1, f), Ok((128, 2)));
        assert_eq!(uvarint32(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F], 0, f), Ok((u32::MAX, 5)));
        assert_eq!(
            uvarint32(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F], 0, f),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        assert_eq!(
            uvarint32(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0, f),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        assert_eq!(
            uvarint32(&[0x80, 0x80], 0, f),
            Err(DecodeError::Truncated {
                field: f,
                offset: 0,
                bit: 0
            })
        );
    }
}
