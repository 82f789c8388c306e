//! Apache TsFile page encodings: TS_2DIFF, GORILLA (id 8), PLAIN and the
//! RLE / bit-packing hybrid (`formats/tsfile.md`); ZIGZAG, TS_2DIFF / RLE on
//! FLOAT and DOUBLE (`float_scaled`), CHIMP, SPRINTZ, RLBE, DICTIONARY,
//! CAMEL and REGULAR (`docs/reference/tsfile-encodings.md`). Reference decoders read
//! one bit or one byte at a time, written from those notes; the encoders build the test
//! streams and write what the official writers write.
//!
//! Every decoder takes the page's value bytes and a `max_values` bound (what
//! the caller's page header, row count or buffer allows): decoding more values
//! than that is an error, so a small hostile page can never make a decoder
//! produce (or allocate for) more than the caller agreed to. Output vectors
//! only grow as values are actually decoded.
//!
//! Positions in errors are byte offsets from the start of the bytes handed to
//! the decoder, plus the bit (0 = most significant) for bit streams.

use std::fmt;

pub mod aligned;
pub mod camel;
pub mod chimp;
pub mod dictionary;
pub mod float_scaled;
pub mod gorilla;
pub mod plain;
pub mod regular;
pub mod rlbe;
pub mod rle;
pub mod sprintz;
pub mod ts2diff;
pub mod zigzag;

/// TsFile data type ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    Boolean,
    Int32,
    Int64,
    Float,
    Double,
    Text,
}

impl DataType {
    pub fn id(self) -> u8 {
        match self {
            DataType::Boolean => 0,
            DataType::Int32 => 1,
            DataType::Int64 => 2,
            DataType::Float => 3,
            DataType::Double => 4,
            DataType::Text => 5,
        }
    }
}

/// The field of an encoded page that could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// TS_2DIFF block header fields.
    WriteIndex,
    BitWidth,
    MinDeltaBase,
    FirstValue,
    /// TS_2DIFF packed deltas.
    Packed,
    /// GORILLA: the raw first value, the control bits, the 5/6-bit leading
    /// zero count, the 5/6-bit significant-bit count, the significant bits,
    /// the byte the encoder flushes after the terminator.
    GorillaFirst,
    GorillaControl,
    GorillaLeading,
    GorillaLength,
    GorillaBits,
    GorillaFlush,
    /// PLAIN: a varint, a fixed-width value, a binary value's bytes.
    Varint,
    Value,
    Bytes,
    /// RLE: a package's length, its bit width, a run header, a bit-packed
    /// run's lastBitPackedNum byte, an RLE run's value, a bit-packed run's groups.
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
    /// TS_2DIFF / RLE on FLOAT and DOUBLE (Java's `FloatEncoder`): the first
    /// varint (an overflow marker or maxPointNumber), the page's value count
    /// after a marker, a bitmap, the maxPointNumber after the bitmaps.
    FloatHeader,
    FloatCount,
    FloatBitmap,
    MaxPointNumber,
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
    /// RLBE: a block's 32-bit value count, a segment's bit-length code, its
    /// Fibonacci-coded run length, a value's bits.
    RlbeCount,
    RlbeLength,
    RlbeRun,
    RlbeValue,
    /// DICTIONARY: the entry count, an entry (its length or bytes), an
    /// index that names no entry.
    DictSize,
    DictEntry,
    DictIndex,
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
    /// `field`, starting at byte `offset` (bit `bit`, 0 = MSB), runs past the
    /// end of its input (the page, or the RLE package that holds it).
    Truncated { field: Field, offset: usize, bit: u8 },
    /// A bit width above what the type allows (`max`).
    BadBitWidth { width: i64, max: u32, offset: usize },
    /// A count or length that cannot be right: negative, zero where the
    /// format forbids it, above the format's cap, or longer than its input.
    BadCount { field: Field, count: i64, offset: usize },
    /// A varint longer than its type allows, or with bits beyond it.
    BadVarint { offset: usize },
    /// GORILLA: a window reuse (`1 0`) before any window was set.
    NoWindow { offset: usize, bit: u8 },
    /// GORILLA: a new window whose leading zeros plus significant bits exceed
    /// the value width (the length field starts at `offset`, `bit`).
    BadWindow {
        leading: u32,
        significant: u32,
        offset: usize,
        bit: u8,
    },
    /// A PLAIN boolean byte other than 0 or 1.
    BadBoolean { byte: u8, offset: usize },
    /// The page holds more values than `max_values`; the value (or the block
    /// or run holding it) starts at `offset`.
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
            DecodeError::TooManyValues { max, offset } => {
                write!(f, "more than {max} values (at byte {offset})")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

impl DecodeError {
    /// The same error with every byte offset moved by `by` (for an inner
    /// stream that starts `by` bytes into the page).
    pub fn shifted(self, by: usize) -> DecodeError {
        use DecodeError::*;
        match self {
            Truncated { field, offset, bit } => Truncated {
                field,
                offset: offset + by,
                bit,
            },
            BadBitWidth { width, max, offset } => BadBitWidth {
                width,
                max,
                offset: offset + by,
            },
            BadCount { field, count, offset } => BadCount {
                field,
                count,
                offset: offset + by,
            },
            BadVarint { offset } => BadVarint { offset: offset + by },
            NoWindow { offset, bit } => NoWindow {
                offset: offset + by,
                bit,
            },
            BadWindow {
                leading,
                significant,
                offset,
                bit,
            } => BadWindow {
                leading,
                significant,
                offset: offset + by,
                bit,
            },
            BadBoolean { byte, offset } => BadBoolean {
                byte,
                offset: offset + by,
            },
            TooManyValues { max, offset } => TooManyValues {
                max,
                offset: offset + by,
            },
        }
    }
}

/// Decoded values and the number of input bytes they took.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded<T> {
    pub values: Vec<T>,
    pub consumed: usize,
}

/// A byte cursor that reads one byte at a time.
#[derive(Debug, Clone)]
pub(crate) struct Bytes<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    pub fn byte(&mut self, field: Field) -> Result<u8, DecodeError> {
        let b = *self.data.get(self.pos).ok_or(DecodeError::Truncated {
            field,
            offset: self.pos,
            bit: 0,
        })?;
        self.pos += 1;
        Ok(b)
    }
    /// `n` bytes as a big-endian unsigned number (n <= 8), one byte at a time.
    pub fn be(&mut self, n: usize, field: Field) -> Result<u64, DecodeError> {
        let start = self.pos;
        let mut v: u64 = 0;
        for _ in 0..n {
            let b = self.byte(field).map_err(|_| DecodeError::Truncated {
                field,
                offset: start,
                bit: 0,
            })?;
            // The byte fills the eight zero bits the shift made: `+` is `|`.
            v = (v << 8) + b as u64;
        }
        Ok(v)
    }
    /// `n` bytes as a little-endian unsigned number (n <= 8).
    pub fn le(&mut self, n: usize, field: Field) -> Result<u64, DecodeError> {
        let start = self.pos;
        let mut v: u64 = 0;
        for i in 0..n {
            let b = self.byte(field).map_err(|_| DecodeError::Truncated {
                field,
                offset: start,
                bit: 0,
            })?;
            v |= (b as u64) << (8 * i);
        }
        Ok(v)
    }
    /// Unsigned LEB128 of at most 5 bytes holding a u32.
    pub fn uvarint32(&mut self, field: Field) -> Result<u32, DecodeError> {
        let start = self.pos;
        let mut v: u64 = 0;
        for i in 0..5 {
            let b = self.byte(field).map_err(|_| DecodeError::Truncated {
                field,
                offset: start,
                bit: 0,
            })?;
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                if v > u32::MAX as u64 {
                    return Err(DecodeError::BadVarint { offset: start });
                }
                return Ok(v as u32);
            }
        }
        Err(DecodeError::BadVarint { offset: start })
    }
    /// Unsigned LEB128 of at most 10 bytes holding a u64 (the tenth byte may
    /// only hold the top bit).
    pub fn uvarint64(&mut self, field: Field) -> Result<u64, DecodeError> {
        let start = self.pos;
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = self.byte(field).map_err(|_| DecodeError::Truncated {
                field,
                offset: start,
                bit: 0,
            })?;
            if i == 9 && b > 1 {
                return Err(DecodeError::BadVarint { offset: start });
            }
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(DecodeError::BadVarint { offset: start })
    }
    /// TsFile's `readVarInt`: zigzag over a u32 LEB128.
    pub fn zigzag32(&mut self, field: Field) -> Result<i32, DecodeError> {
        let u = self.uvarint32(field)?;
        Ok(((u >> 1) as i32) ^ -((u & 1) as i32))
    }
}

/// MSB-first bit cursor.
#[derive(Debug, Clone)]
pub(crate) struct Bits<'a> {
    pub data: &'a [u8],
    /// Bit position from the start of `data`.
    pub pos: usize,
}

impl<'a> Bits<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bits { data, pos: 0 }
    }
    pub fn bit(&mut self) -> Option<bool> {
        let byte = *self.data.get(self.pos / 8)?;
        let bit = (byte >> (7 - self.pos % 8)) & 1;
        self.pos += 1;
        Some(bit == 1)
    }
    /// `n` bits (n <= 64), MSB first; on running out, the cursor is restored.
    pub fn bits(&mut self, n: u32) -> Option<u64> {
        let start = self.pos;
        let mut v: u64 = 0;
        for _ in 0..n {
            match self.bit() {
                Some(b) => v = (v << 1) + b as u64,
                None => {
                    self.pos = start;
                    return None;
                }
            }
        }
        Some(v)
    }
    pub fn truncated(&self, field: Field, at: usize) -> DecodeError {
        DecodeError::Truncated {
            field,
            offset: at / 8,
            bit: (at % 8) as u8,
        }
    }
}

/// MSB-first bit writer.
#[derive(Debug, Clone, Default)]
pub struct BitWriter {
    pub bytes: Vec<u8>,
    pub nbits: usize,
}

impl BitWriter {
    pub fn bit(&mut self, b: bool) {
        if self.nbits.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if b {
            let last = self.bytes.last_mut().expect("pushed above");
            *last |= 0x80 >> (self.nbits % 8);
        }
        self.nbits += 1;
    }
    /// The low `n` bits of `v`, MSB first.
    pub fn bits(&mut self, v: u64, n: u32) {
        for i in (0..n).rev() {
            self.bit((v >> i) & 1 == 1);
        }
    }
    /// Fill the rest of the last byte with ones (stale bits a real encoder
    /// may leave behind).
    pub fn pad_with_ones(&mut self) {
        while !self.nbits.is_multiple_of(8) {
            self.bit(true);
        }
    }
}

/// Unsigned LEB128.
pub fn write_uvarint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        // `b` is below 0x80 here: adding the continuation bit is setting it.
        out.push(b + 0x80);
    }
}

/// TsFile's `writeVarInt`: zigzag then LEB128.
pub fn write_zigzag32(out: &mut Vec<u8>, v: i32) {
    write_uvarint(out, ((v << 1) ^ (v >> 31)) as u32 as u64);
}

/// Bytes as spaced hex, for the encodings' known-answer tests.
#[cfg(test)]
pub(crate) fn test_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// Spaced hex to bytes, for the encodings' known-answer tests.
#[cfg(test)]
pub(crate) fn test_unhex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

/// The most values an encoding's round-trip property draws: `max` natively
/// and under every emulator, a quarter of it under Miri, where a
/// bit-at-a-time round trip of hundreds of values takes a minute or two of
/// interpreting for each case. Miri is there for undefined behaviour, which
/// a short stream reaches as well as a long one; the lengths that cross
/// blocks and runs are the native and emulated suites' job.
#[cfg(test)]
pub(crate) fn test_len(max: usize) -> usize {
    if cfg!(miri) {
        max / 4
    } else {
        max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_type_ids() {
        use DataType::*;
        let ids: Vec<u8> = [Boolean, Int32, Int64, Float, Double, Text]
            .iter()
            .map(|t| t.id())
            .collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
    }

    fn every_error(offset: usize) -> Vec<DecodeError> {
        use DecodeError::*;
        vec![
            Truncated {
                field: Field::Packed,
                offset,
                bit: 3,
            },
            BadBitWidth {
                width: 70,
                max: 64,
                offset,
            },
            BadCount {
                field: Field::RleLength,
                count: -2,
                offset,
            },
            BadVarint { offset },
            NoWindow { offset, bit: 4 },
            BadWindow {
                leading: 40,
                significant: 30,
                offset,
                bit: 5,
            },
            BadBoolean { byte: 9, offset },
            TooManyValues { max: 6, offset },
        ]
    }

    #[test]
    fn every_error_says_what_and_where() {
        let parts: [&[&str]; 8] = [
            &["Packed", "byte 17 bit 3"],
            &["width 70", "byte 17", "64"],
            &["RleLength -2", "byte 17"],
            &["varint", "byte 17"],
            &["reuse", "byte 17 bit 4"],
            &["40 leading", "30 significant", "byte 17 bit 5"],
            &["boolean byte 9", "byte 17"],
            &["more than 6 values", "byte 17"],
        ];
        for (e, parts) in every_error(17).into_iter().zip(parts) {
            let text = e.to_string();
            for part in parts {
                assert!(text.contains(part), "{text:?} lacks {part:?}");
            }
        }
    }

    #[test]
    fn shifting_moves_only_the_offset() {
        for (e, moved) in every_error(3).into_iter().zip(every_error(10)) {
            assert_eq!(e.shifted(7), moved);
        }
    }

    #[test]
    fn byte_cursor_reads_and_reports_where_a_field_starts() {
        let data = [0x01, 0x02, 0x03, 0x04, 0x05];
        let mut b = Bytes::new(&data);
        assert_eq!((b.remaining(), b.at_end()), (5, false));
        assert_eq!(b.be(2, Field::Value), Ok(0x0102));
        assert_eq!(b.le(2, Field::Value), Ok(0x0403));
        assert_eq!(b.remaining(), 1);
        assert_eq!(
            b.le(2, Field::Value),
            Err(DecodeError::Truncated {
                field: Field::Value,
                offset: 4,
                bit: 0
            })
        );
        let mut b = Bytes::new(&data[1..]);
        b.pos = 2;
        assert_eq!(
            b.be(3, Field::FirstValue),
            Err(DecodeError::Truncated {
                field: Field::FirstValue,
                offset: 2,
                bit: 0
            })
        );
        let mut b = Bytes::new(&data[4..]);
        assert_eq!(b.byte(Field::Bytes), Ok(5));
        assert!(b.at_end());
        assert_eq!(b.remaining(), 0);
        assert_eq!(Bytes::new(&[0xff; 8]).be(8, Field::Value), Ok(u64::MAX));
        assert_eq!(
            Bytes::new(&[1, 0, 0, 0, 0, 0, 0, 0x80]).le(8, Field::Value),
            Ok(0x8000_0000_0000_0001)
        );
    }

    #[test]
    fn varints_at_their_edges() {
        let u32v = |b: &[u8]| Bytes::new(b).uvarint32(Field::Varint);
        let u64v = |b: &[u8]| Bytes::new(b).uvarint64(Field::Varint);
        assert_eq!(u32v(&[0x00]), Ok(0));
        assert_eq!(u32v(&[0x7f]), Ok(127));
        assert_eq!(u32v(&[0x80, 0x01]), Ok(128));
        assert_eq!(u32v(&[0xff, 0xff, 0xff, 0xff, 0x0f]), Ok(u32::MAX));
        assert_eq!(
            u32v(&[0xff, 0xff, 0xff, 0xff, 0x10]),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        assert_eq!(
            u32v(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        let mut b = Bytes::new(&[0x05, 0x80, 0x80]);
        assert_eq!(b.uvarint32(Field::Varint), Ok(5));
        assert_eq!(
            b.uvarint32(Field::ZigzagValue),
            Err(DecodeError::Truncated {
                field: Field::ZigzagValue,
                offset: 1,
                bit: 0
            })
        );
        let mut max = vec![0xff; 9];
        max.push(0x01);
        assert_eq!(u64v(&max), Ok(u64::MAX));
        max[9] = 0x02;
        assert_eq!(u64v(&max), Err(DecodeError::BadVarint { offset: 0 }));
        max[9] = 0x81;
        assert_eq!(u64v(&max), Err(DecodeError::BadVarint { offset: 0 }));
        assert_eq!(u64v(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), Ok(1 << 35));
        let mut b = Bytes::new(&[0x00, 0xff]);
        b.pos = 1;
        assert_eq!(
            b.uvarint64(Field::Varint),
            Err(DecodeError::Truncated {
                field: Field::Varint,
                offset: 1,
                bit: 0
            })
        );
        let zz = |b: &[u8]| Bytes::new(b).zigzag32(Field::Varint);
        assert_eq!(zz(&[0]), Ok(0));
        assert_eq!(zz(&[1]), Ok(-1));
        assert_eq!(zz(&[2]), Ok(1));
        assert_eq!(zz(&[0xfe, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MAX));
        assert_eq!(zz(&[0xff, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MIN));
        for v in [0, 1, -1, 63, -64, 64, i32::MAX, i32::MIN] {
            let mut out = Vec::new();
            write_zigzag32(&mut out, v);
            assert_eq!(zz(&out), Ok(v), "{v}");
        }
        let mut out = Vec::new();
        write_zigzag32(&mut out, i32::MIN);
        assert_eq!(out, [0xff, 0xff, 0xff, 0xff, 0x0f]);
        for (v, bytes) in [
            (0u64, &[0x00][..]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (300, &[0xac, 0x02]),
        ] {
            let mut out = Vec::new();
            write_uvarint(&mut out, v);
            assert_eq!(out, bytes, "{v}");
        }
        let mut out = Vec::new();
        write_uvarint(&mut out, u64::MAX);
        assert_eq!(u64v(&out), Ok(u64::MAX));
    }

    #[test]
    fn bit_cursor_and_writer_are_msb_first() {
        let data = [0b1010_0000, 0xff];
        let mut b = Bits::new(&data);
        assert_eq!(b.bit(), Some(true));
        assert_eq!(b.bit(), Some(false));
        assert_eq!(b.bits(3), Some(0b100));
        assert_eq!(b.pos, 5);
        assert_eq!(b.bits(12), None);
        assert_eq!(b.pos, 5, "a failed read leaves the cursor where it was");
        assert_eq!(b.bits(11), Some(0xff));
        assert_eq!(b.bit(), None);
        assert_eq!(
            b.truncated(Field::GorillaBits, 13),
            DecodeError::Truncated {
                field: Field::GorillaBits,
                offset: 1,
                bit: 5
            }
        );
        let mut w = BitWriter::default();
        w.bit(true);
        w.bits(0b011, 3);
        assert_eq!((w.bytes.clone(), w.nbits), (vec![0b1011_0000], 4));
        w.pad_with_ones();
        assert_eq!((w.bytes.clone(), w.nbits), (vec![0b1011_1111], 8));
        w.pad_with_ones();
        w.bits(0x1_02, 9);
        assert_eq!((w.bytes, w.nbits), (vec![0b1011_1111, 0x81, 0x00], 17));
    }
}
