//! QuestDB QWP timestamp column sections (TIMESTAMP, TIMESTAMP_NANOS, DATE):
//! the reference decoder, which reads the Gorilla bitstream one bit at a time,
//! and the encoder, which picks raw or Gorilla exactly as the server does.
//!
//! Layout of a column section (all offsets below are relative to its first byte):
//! ```text
//! null_flag u8 | [bitmap ceil(rows/8)] | [encoding u8 if FLAG_GORILLA] | values
//! ```

use std::fmt;

/// The clients cap a batch at this many rows.
pub const MAX_ROWS: usize = 1_048_576;

/// Which fixed-size field of the column section ran past the end of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    NullFlag,
    Bitmap,
    Encoding,
    RawValue,
}

/// Why a column section was rejected, with the byte offset (from the start of
/// the column section) of the field that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QwpError {
    /// `row_count` exceeds [`MAX_ROWS`]; nothing was read.
    RowCountOverCap { row_count: usize },
    /// The null flag byte is neither 0 nor 1.
    InvalidNullFlag { flag: u8, offset: usize },
    /// The encoding byte is neither 0 (raw) nor 1 (Gorilla).
    UnknownEncoding { encoding: u8, offset: usize },
    /// A Gorilla column with fewer than three non-null values.
    TooFewGorillaValues { count: usize, offset: usize },
    /// The first (`index` 0) or second (`index` 1) seed timestamp is cut short.
    TruncatedSeed { index: u8, offset: usize },
    /// The delta-of-delta for value `value_index` starts at `offset` (bit `bit`
    /// of that byte) but its bits run past the end of the input.
    TruncatedBitstream { value_index: usize, offset: usize, bit: u8 },
    /// The bitstream at `offset` has `available` bytes, fewer than one bit per
    /// remaining value (`needed_bits`). Checked before any output is sized.
    StreamTooShort {
        needed_bits: usize,
        available: usize,
        offset: usize,
    },
    /// A fixed-size field is cut short; `offset` is where it starts.
    Truncated { section: Section, offset: usize },
}

impl fmt::Display for QwpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QwpError::RowCountOverCap { row_count } => {
                write!(f, "row count {row_count} exceeds the cap of {MAX_ROWS}")
            }
            QwpError::InvalidNullFlag { flag, offset } => {
                write!(f, "invalid column null flag: {flag} at byte {offset}")
            }
            QwpError::UnknownEncoding { encoding, offset } => {
                write!(f, "unknown timestamp encoding: {encoding} at byte {offset}")
            }
            QwpError::TooFewGorillaValues { count, offset } => write!(
                f,
                "Gorilla-encoded column has fewer than three values: {count} (encoding byte at {offset})"
            ),
            QwpError::TruncatedSeed { index, offset } => write!(
                f,
                "truncated QWP payload while reading {} Gorilla timestamp at byte {offset}",
                if *index == 0 { "first" } else { "second" }
            ),
            QwpError::TruncatedBitstream {
                value_index,
                offset,
                bit,
            } => write!(
                f,
                "truncated QWP Gorilla bitstream: value {value_index} starts at byte {offset} bit {bit}"
            ),
            QwpError::StreamTooShort {
                needed_bits,
                available,
                offset,
            } => write!(
                f,
                "Gorilla bitstream at byte {offset} has {available} bytes, too short for {needed_bits} values"
            ),
            QwpError::Truncated { section, offset } => {
                write!(f, "truncated QWP payload while reading {section:?} at byte {offset}")
            }
        }
    }
}

impl std::error::Error for QwpError {}

/// A decoded column: one value and one validity flag per row. Null rows hold 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub values: Vec<i64>,
    pub validity: Vec<bool>,
    /// Bytes of the column section consumed.
    pub consumed: usize,
}

/// Reads the column section's bytes one at a time, and the bitstream one bit at a time.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self, section: Section) -> Result<u8, QwpError> {
        match self.bytes.get(self.pos) {
            Some(b) => {
                self.pos += 1;
                Ok(*b)
            }
            None => Err(QwpError::Truncated {
                section,
                offset: self.pos,
            }),
        }
    }

    /// An int64 stored little-endian: byte k holds bits 8k..8k+7.
    fn int64_le(&mut self) -> Option<i64> {
        if self.bytes.len() - self.pos < 8 {
            return None;
        }
        let mut v: u64 = 0;
        for k in 0..8 {
            v |= (self.bytes[self.pos + k] as u64) << (8 * k);
        }
        self.pos += 8;
        Some(v as i64)
    }
}

/// Stream bit k is bit (k % 8) of byte (k / 8).
fn stream_bit(stream: &[u8], k: usize) -> Option<u64> {
    stream.get(k / 8).map(|b| ((b >> (k % 8)) & 1) as u64)
}

/// Decode one timestamp column section of `row_count` rows. `gorilla_flag`
/// says whether the message header had FLAG_GORILLA (an encoding byte follows).
pub fn decode_column(bytes: &[u8], row_count: usize, gorilla_flag: bool) -> Result<Column, QwpError> {
    if row_count > MAX_ROWS {
        return Err(QwpError::RowCountOverCap { row_count });
    }
    let mut r = Reader { bytes, pos: 0 };

    let flag = r.byte(Section::NullFlag)?;
    // The bitmap, if any; nothing is sized from row_count until every length
    // it implies has been checked against the input.
    let bitmap: &[u8] = match flag {
        0 => &[],
        1 => {
            let bitmap_len = row_count.div_ceil(8);
            if bytes[r.pos..].len() < bitmap_len {
                return Err(QwpError::Truncated {
                    section: Section::Bitmap,
                    offset: r.pos,
                });
            }
            r.pos += bitmap_len;
            &bytes[r.pos - bitmap_len..r.pos]
        }
        other => return Err(QwpError::InvalidNullFlag { flag: other, offset: 0 }),
    };
    let is_null = |row: usize| flag == 1 && (bitmap[row / 8] >> (row % 8)) & 1 == 1;
    let n = (0..row_count).filter(|row| !is_null(*row)).count();

    let mut gorilla = false;
    let encoding_offset = r.pos;
    if gorilla_flag {
        match r.byte(Section::Encoding)? {
            0 => {}
            1 => gorilla = true,
            other => {
                return Err(QwpError::UnknownEncoding {
                    encoding: other,
                    offset: encoding_offset,
                })
            }
        }
    }

    let dense = if gorilla {
        decode_gorilla(&mut r, n, encoding_offset)?
    } else {
        let mut dense = Vec::new();
        for _ in 0..n {
            let offset = r.pos;
            match r.int64_le() {
                Some(v) => dense.push(v),
                None => {
                    return Err(QwpError::Truncated {
                        section: Section::RawValue,
                        offset,
                    })
                }
            }
        }
        dense
    };

    let mut values = Vec::with_capacity(row_count);
    let mut validity = Vec::with_capacity(row_count);
    let mut next = dense.into_iter();
    for row in 0..row_count {
        let null = is_null(row);
        values.push(if null {
            0
        } else {
            next.next().expect("one dense value per non-null row")
        });
        validity.push(!null);
    }
    Ok(Column {
        values,
        validity,
        consumed: r.pos,
    })
}

fn decode_gorilla(r: &mut Reader<'_>, n: usize, encoding_offset: usize) -> Result<Vec<i64>, QwpError> {
    if n < 3 {
        return Err(QwpError::TooFewGorillaValues {
            count: n,
            offset: encoding_offset,
        });
    }
    let offset = r.pos;
    let t0 = r.int64_le().ok_or(QwpError::TruncatedSeed { index: 0, offset })?;
    let offset = r.pos;
    let t1 = r.int64_le().ok_or(QwpError::TruncatedSeed { index: 1, offset })?;

    let start = r.pos;
    let stream = &r.bytes[start..];
    let needed_bits = n - 2;
    if stream.len().saturating_mul(8) < needed_bits {
        return Err(QwpError::StreamTooShort {
            needed_bits,
            available: stream.len(),
            offset: start,
        });
    }

    let mut out = vec![t0, t1];
    let mut delta = t1.wrapping_sub(t0);
    let mut previous = t1;
    let mut k = 0usize; // next stream bit
    for value_index in 2..n {
        let dod_start = k;
        let truncated = || QwpError::TruncatedBitstream {
            value_index,
            offset: start + dod_start / 8,
            bit: (dod_start % 8) as u8,
        };
        let mut next_bit = || {
            let bit = stream_bit(stream, k);
            k += 1;
            bit
        };
        // Count leading 1 control bits (at most four), stopping at the first 0.
        let mut ones = 0;
        while ones < 4 {
            match next_bit() {
                Some(1) => ones += 1,
                Some(_) => break,
                None => return Err(truncated()),
            }
        }
        let width = match ones {
            0 => 0,
            1 => 7,
            2 => 9,
            3 => 12,
            _ => 32,
        };
        let mut payload: u64 = 0;
        for bit_index in 0..width {
            match next_bit() {
                Some(bit) => payload |= bit << bit_index,
                None => return Err(truncated()),
            }
        }
        let dod = sign_extend(payload, width);
        delta = delta.wrapping_add(dod);
        previous = previous.wrapping_add(delta);
        out.push(previous);
    }
    r.pos = start + k.div_ceil(8);
    Ok(out)
}

/// Interpret the low `width` bits of `payload` as a two's-complement number.
fn sign_extend(payload: u64, width: u32) -> i64 {
    if width == 0 {
        return 0;
    }
    let sign = 1u64 << (width - 1);
    if payload & sign != 0 {
        (payload as i64) - (1i64 << width)
    } else {
        payload as i64
    }
}

/// Writes bits LSB-first within each byte, in stream order.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    len: usize,
}

impl BitWriter {
    fn bit(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            *self.bytes.last_mut().unwrap() |= 1 << (self.len % 8);
        }
        self.len += 1;
    }

    /// Low bit first.
    fn bits(&mut self, value: u64, width: u32) {
        for i in 0..width {
            self.bit((value >> i) & 1 == 1);
        }
    }
}

/// The DoD bucket for one value as (leading 1 bits of its control prefix,
/// payload width), or `None` if it does not fit in int32 (the server then
/// sends the column raw). The prefix is that many 1 bits, then a 0 unless
/// there are four: `0`, `10`, `110`, `1110`, `1111`.
pub fn dod_bucket(dod: i64) -> Option<(u32, u32)> {
    match dod {
        0 => Some((0, 0)),
        -64..=63 => Some((1, 7)),
        -256..=255 => Some((2, 9)),
        -2048..=2047 => Some((3, 12)),
        _ if i32::try_from(dod).is_ok() => Some((4, 32)),
        _ => None,
    }
}

/// The Gorilla body (seeds + bitstream) for `dense` values, or `None` when it
/// cannot be Gorilla-encoded: fewer than three values or a DoD outside int32.
pub fn gorilla_body(dense: &[i64]) -> Option<Vec<u8>> {
    if dense.len() < 3 {
        return None;
    }
    let mut body = Vec::new();
    body.extend_from_slice(&dense[0].to_le_bytes());
    body.extend_from_slice(&dense[1].to_le_bytes());
    let mut w = BitWriter::default();
    let mut delta = dense[1].wrapping_sub(dense[0]);
    for pair in dense[1..].windows(2) {
        let d = pair[1].wrapping_sub(pair[0]);
        let dod = d.wrapping_sub(delta);
        delta = d;
        let (ones, width) = dod_bucket(dod)?;
        for _ in 0..ones {
            w.bit(true);
        }
        if ones < 4 {
            w.bit(false);
        }
        w.bits(dod as u64, width);
    }
    body.extend_from_slice(&w.bytes);
    Some(body)
}

/// How the encoder chose to write the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Raw,
    Gorilla,
}

/// Encode a column as the server does: a bitmap only when some row is null;
/// with `gorilla_flag`, Gorilla when there are at least three values, every
/// DoD fits in int32 and the Gorilla body is smaller than `n * 8` bytes.
pub fn encode_column(rows: &[Option<i64>], gorilla_flag: bool) -> (Vec<u8>, Encoding) {
    let dense: Vec<i64> = rows.iter().flatten().copied().collect();
    let mut out = Vec::new();
    push_null_section(&mut out, rows);
    if gorilla_flag {
        if let Some(body) = gorilla_body(&dense).filter(|b| b.len() < dense.len() * 8) {
            out.push(1);
            out.extend_from_slice(&body);
            return (out, Encoding::Gorilla);
        }
        out.push(0);
    }
    for v in &dense {
        out.extend_from_slice(&v.to_le_bytes());
    }
    (out, Encoding::Raw)
}

/// Encode with a forced encoding byte (for building test streams the server
/// would not send). Returns `None` when Gorilla is impossible for these values.
pub fn encode_column_as(rows: &[Option<i64>], encoding: Encoding) -> Option<Vec<u8>> {
    let dense: Vec<i64> = rows.iter().flatten().copied().collect();
    let mut out = Vec::new();
    push_null_section(&mut out, rows);
    match encoding {
        Encoding::Gorilla => {
            out.push(1);
            out.extend_from_slice(&gorilla_body(&dense)?);
        }
        Encoding::Raw => {
            out.push(0);
            for v in &dense {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    Some(out)
}

fn push_null_section(out: &mut Vec<u8>, rows: &[Option<i64>]) {
    if rows.iter().all(Option::is_some) {
        out.push(0);
        return;
    }
    out.push(1);
    let mut bitmap = vec![0u8; rows.len().div_ceil(8)];
    for (row, v) in rows.iter().enumerate() {
        if v.is_none() {
            bitmap[row / 8] |= 1 << (row % 8);
        }
    }
    out.extend_from_slice(&bitmap);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[i64]) -> Vec<Option<i64>> {
        values.iter().map(|v| Some(*v)).collect()
    }

    #[test]
    fn known_answer_vectors_from_the_format_notes() {
        let (bytes, enc) = encode_column(&rows(&[0, 10, 25]), true);
        assert_eq!(enc, Encoding::Gorilla);
        insta::assert_snapshot!(hex(&bytes), @"00 01 00 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 15 00");
        // DoD 1 and DoD -64 as single-DoD bitstreams.
        insta::assert_snapshot!(hex(&gorilla_body(&[0, 0, 1]).unwrap()[16..]), @"05 00");
        insta::assert_snapshot!(hex(&gorilla_body(&[0, 0, -64]).unwrap()[16..]), @"01 01");
        let col = decode_column(&bytes, 3, true).unwrap();
        assert_eq!(col.values, vec![0, 10, 25]);
        assert_eq!(col.consumed, bytes.len());
    }

    #[test]
    fn null_rows_take_a_bitmap_and_no_value() {
        // Rows 1 and 3-7 null: bits 1, 3, 4, 5, 6, 7 of the first bitmap byte (LSB first).
        let input = [Some(5), None, Some(-3), None, None, None, None, None, Some(9)];
        let (bytes, enc) = encode_column(&input, false);
        assert_eq!(enc, Encoding::Raw);
        let mut expected = vec![1, 0xfa, 0x00];
        for v in [5i64, -3, 9] {
            expected.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(bytes, expected);
        let col = decode_column(&bytes, 9, false).unwrap();
        assert_eq!(col.values, [5, 0, -3, 0, 0, 0, 0, 0, 9]);
        assert_eq!(col.validity, input.map(|v| v.is_some()));
        assert_eq!(col.consumed, bytes.len());
        // The same rows as Gorilla: the three dense values are the seeds and one DoD.
        let (bytes, enc) = encode_column(&input, true);
        assert_eq!((enc, &bytes[..4]), (Encoding::Gorilla, &[1, 0xfa, 0x00, 1][..]));
        let col = decode_column(&bytes, 9, true).unwrap();
        assert_eq!(col.values, [5, 0, -3, 0, 0, 0, 0, 0, 9]);
        assert_eq!(col.consumed, bytes.len());
        // Too few non-null rows for Gorilla: raw, behind an encoding byte 0.
        let (bytes, enc) = encode_column(&[Some(1), None, Some(2)], true);
        assert_eq!(enc, Encoding::Raw);
        assert_eq!(&bytes[..3], &[1, 0b010, 0]);
        assert_eq!(decode_column(&bytes, 3, true).unwrap().values, [1, 0, 2]);
        // A bitmap whose every row is null needs no value at all.
        assert_eq!(decode_column(&[1, 0xff], 8, false).unwrap().consumed, 2);
        let forced = encode_column_as(&[Some(1), None, Some(2), Some(4)], Encoding::Raw).unwrap();
        assert_eq!(decode_column(&forced, 4, true).unwrap().values, [1, 0, 2, 4]);
        let forced = encode_column_as(&[Some(1), None, Some(2), Some(4)], Encoding::Gorilla).unwrap();
        assert_eq!(forced[2], 1);
        assert_eq!(decode_column(&forced, 4, true).unwrap().values, [1, 0, 2, 4]);
        assert_eq!(encode_column_as(&[Some(1), Some(2)], Encoding::Gorilla), None);
    }

    #[test]
    fn dod_buckets_of_the_format_notes() {
        let bucket = |dod: i64| dod_bucket(dod);
        assert_eq!(bucket(0), Some((0, 0)));
        for dod in [-64, -1, 1, 63] {
            assert_eq!(bucket(dod), Some((1, 7)), "{dod}");
        }
        for dod in [-256, -65, 64, 255] {
            assert_eq!(bucket(dod), Some((2, 9)), "{dod}");
        }
        for dod in [-2048, -257, 256, 2047] {
            assert_eq!(bucket(dod), Some((3, 12)), "{dod}");
        }
        for dod in [i32::MIN as i64, -2049, 2048, i32::MAX as i64] {
            assert_eq!(bucket(dod), Some((4, 32)), "{dod}");
        }
        for dod in [i32::MIN as i64 - 1, i32::MAX as i64 + 1, i64::MIN, i64::MAX] {
            assert_eq!(bucket(dod), None, "{dod}");
        }
    }

    #[test]
    fn a_stream_needs_a_bit_for_each_value_after_the_seeds() {
        let mut col = vec![0, 1];
        col.extend_from_slice(&[0; 16]);
        assert_eq!(
            decode_column(&col, 6, true),
            Err(QwpError::StreamTooShort {
                needed_bits: 4,
                available: 0,
                offset: 18
            })
        );
    }

    #[test]
    fn limits_are_inclusive() {
        // Eight zero DoDs fit in exactly one stream byte.
        let values: Vec<i64> = (0..10).map(|i| 100 + 7 * i).collect();
        let (bytes, enc) = encode_column(&rows(&values), true);
        assert_eq!((enc, bytes.len()), (Encoding::Gorilla, 2 + 16 + 1));
        assert_eq!(decode_column(&bytes, 10, true).unwrap().values, values);
    }

    #[test]
    // MAX_ROWS rows: minutes under Miri, for the code the small row counts
    // of the other tests run there.
    #[cfg_attr(miri, ignore = "MAX_ROWS rows: minutes under Miri")]
    fn max_rows_itself_is_allowed() {
        // This input then runs out of raw values.
        assert_eq!(
            decode_column(&[0], MAX_ROWS, false),
            Err(QwpError::Truncated {
                section: Section::RawValue,
                offset: 1
            })
        );
    }

    #[test]
    fn a_cut_dod_is_reported_at_its_own_bit() {
        let seeds = |extra: &[u8]| {
            let mut col = vec![0, 1];
            col.extend_from_slice(&[0; 16]);
            col.extend_from_slice(extra);
            col
        };
        // Value 2 is DoD 0 (bit 0); value 3's `10` prefix starts at bit 1 and its payload is cut.
        assert_eq!(
            decode_column(&seeds(&[0x02]), 4, true),
            Err(QwpError::TruncatedBitstream {
                value_index: 3,
                offset: 18,
                bit: 1
            })
        );
        // Values 2-9 fill the first byte; value 10 starts in the second.
        assert_eq!(
            decode_column(&seeds(&[0x00, 0x01]), 11, true),
            Err(QwpError::TruncatedBitstream {
                value_index: 10,
                offset: 19,
                bit: 0
            })
        );
    }

    #[test]
    fn every_error_says_what_and_where() {
        let cases = [
            (QwpError::RowCountOverCap { row_count: 5 }, vec!["5", "1048576"]),
            (
                QwpError::InvalidNullFlag { flag: 7, offset: 3 },
                vec!["null flag: 7", "byte 3"],
            ),
            (
                QwpError::UnknownEncoding { encoding: 9, offset: 4 },
                vec!["encoding: 9", "byte 4"],
            ),
            (
                QwpError::TooFewGorillaValues { count: 2, offset: 6 },
                vec!["three values: 2", "at 6"],
            ),
            (QwpError::TruncatedSeed { index: 0, offset: 8 }, vec!["first", "byte 8"]),
            (
                QwpError::TruncatedSeed { index: 1, offset: 9 },
                vec!["second", "byte 9"],
            ),
            (
                QwpError::TruncatedBitstream {
                    value_index: 11,
                    offset: 12,
                    bit: 5,
                },
                vec!["value 11", "byte 12", "bit 5"],
            ),
            (
                QwpError::StreamTooShort {
                    needed_bits: 13,
                    available: 14,
                    offset: 15,
                },
                vec!["13 values", "14 bytes", "byte 15"],
            ),
            (
                QwpError::Truncated {
                    section: Section::Bitmap,
                    offset: 16,
                },
                vec!["Bitmap", "byte 16"],
            ),
        ];
        for (e, parts) in cases {
            let text = e.to_string();
            for part in parts {
                assert!(text.contains(part), "{text:?} lacks {part:?}");
            }
        }
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn wrapping_example_is_gorilla_and_round_trips() {
        let values = [i64::MIN + 1, i64::MAX, i64::MAX - 2, i64::MAX - 4];
        let (bytes, enc) = encode_column(&rows(&values), true);
        assert_eq!(enc, Encoding::Gorilla);
        assert_eq!(decode_column(&bytes, 4, true).unwrap().values, values);
    }

    #[test]
    fn every_bucket_boundary_round_trips() {
        for dod in [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            -65,
            255,
            -256,
            256,
            -257,
            2047,
            -2048,
            2048,
            -2049,
            i32::MAX as i64,
            i32::MIN as i64,
        ] {
            let values = [1000, 2000, 3000 + dod, 4000 + 2 * dod];
            let body = gorilla_body(&values).unwrap();
            let mut col = vec![0, 1];
            col.extend_from_slice(&body);
            let decoded = decode_column(&col, 4, true).unwrap();
            assert_eq!(decoded.values, values, "dod {dod}");
            assert_eq!(decoded.consumed, col.len());
        }
        assert_eq!(dod_bucket(i32::MAX as i64 + 1), None);
        assert!(gorilla_body(&[0, 0, i32::MAX as i64 + 1]).is_none());
    }

    #[test]
    fn errors_carry_positions() {
        assert_eq!(
            decode_column(&[], 0, false),
            Err(QwpError::Truncated {
                section: Section::NullFlag,
                offset: 0
            })
        );
        assert_eq!(
            decode_column(&[7], 0, false),
            Err(QwpError::InvalidNullFlag { flag: 7, offset: 0 })
        );
        assert_eq!(
            decode_column(&[1], 9, false),
            Err(QwpError::Truncated {
                section: Section::Bitmap,
                offset: 1
            })
        );
        assert_eq!(
            decode_column(&[0], 0, true),
            Err(QwpError::Truncated {
                section: Section::Encoding,
                offset: 1
            })
        );
        assert_eq!(
            decode_column(&[0, 2], 0, true),
            Err(QwpError::UnknownEncoding { encoding: 2, offset: 1 })
        );
        assert_eq!(
            decode_column(&[0, 1], 2, true),
            Err(QwpError::TooFewGorillaValues { count: 2, offset: 1 })
        );
        assert_eq!(
            decode_column(&[0, 1, 0, 0], 3, true),
            Err(QwpError::TruncatedSeed { index: 0, offset: 2 })
        );
        assert_eq!(
            decode_column(&[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5], 3, true),
            Err(QwpError::TruncatedSeed { index: 1, offset: 10 })
        );
        assert_eq!(
            decode_column(&[0; 9], 2, false),
            Err(QwpError::Truncated {
                section: Section::RawValue,
                offset: 9
            })
        );
        assert_eq!(
            decode_column(&[0], MAX_ROWS + 1, false),
            Err(QwpError::RowCountOverCap {
                row_count: MAX_ROWS + 1
            })
        );
        let mut col = vec![0, 1];
        col.extend_from_slice(&[0; 16]);
        assert_eq!(
            decode_column(&col, 3, true),
            Err(QwpError::StreamTooShort {
                needed_bits: 1,
                available: 0,
                offset: 18
            })
        );
        // One byte holds the 9-bit DoD's first 8 bits only.
        col.push(0x15);
        assert_eq!(
            decode_column(&col, 3, true),
            Err(QwpError::TruncatedBitstream {
                value_index: 2,
                offset: 18,
                bit: 0
            })
        );
    }
}
