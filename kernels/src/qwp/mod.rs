//! QuestDB QWP timestamp columns (TIMESTAMP, TIMESTAMP_NANOS, DATE) in query
//! results: raw or Gorilla-encoded int64 values behind an optional null bitmap.
//!
//! The Gorilla decoder reads the LSB-first bitstream through a 64-bit window
//! taken by one unaligned little-endian load per step (`u64::from_le_bytes`,
//! so big-endian hosts see the same bits), decodes a whole run of `0` control
//! bits (repeated deltas) in one step, and keeps every sum in wrapping int64
//! arithmetic as the server's Java `long` does.
//!
//! Two APIs: [`TimestampDecoder::decode_into`] writes into caller-owned
//! buffers and keeps its scratch storage across batches; [`decode_column`]
//! returns fresh vectors. Both validate every length the header implies before
//! sizing any storage, so a tiny hostile column cannot force a large allocation.

use crate::probe::{NoProbe, Probe, Step};
use std::fmt;

/// The clients cap a batch at this many rows.
pub const MAX_ROWS: usize = 1_048_576;

/// The fixed-size field of the column section that ran past the input's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    NullFlag,
    Bitmap,
    Encoding,
    RawValue,
}

/// Why a column was rejected. Offsets count bytes from the start of the column
/// section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
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
    /// The delta-of-delta of value `value_index`, which starts at bit `bit` of
    /// byte `offset`, runs past the end of the input.
    TruncatedBitstream { value_index: usize, offset: usize, bit: u8 },
    /// The bitstream at `offset` has `available` bytes, fewer than one bit per
    /// remaining value (`needed_bits`).
    StreamTooShort {
        needed_bits: usize,
        available: usize,
        offset: usize,
    },
    /// A fixed-size field starting at `offset` is cut short.
    Truncated { section: Section, offset: usize },
    /// The caller's output slices hold fewer than `row_count` rows (checked
    /// after the input, which must back the row count first).
    OutputTooSmall {
        row_count: usize,
        values: usize,
        validity: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::RowCountOverCap { row_count } => {
                write!(f, "row count {row_count} exceeds the cap of {MAX_ROWS}")
            }
            DecodeError::InvalidNullFlag { flag, offset } => {
                write!(f, "invalid column null flag: {flag} at byte {offset}")
            }
            DecodeError::UnknownEncoding { encoding, offset } => {
                write!(f, "unknown timestamp encoding: {encoding} at byte {offset}")
            }
            DecodeError::TooFewGorillaValues { count, offset } => write!(
                f,
                "Gorilla-encoded column has fewer than three values: {count} (encoding byte at {offset})"
            ),
            DecodeError::TruncatedSeed { index, offset } => write!(
                f,
                "truncated QWP payload while reading {} Gorilla timestamp at byte {offset}",
                if *index == 0 { "first" } else { "second" }
            ),
            DecodeError::TruncatedBitstream {
                value_index,
                offset,
                bit,
            } => write!(
                f,
                "truncated QWP Gorilla bitstream: value {value_index} starts at byte {offset} bit {bit}"
            ),
            DecodeError::StreamTooShort {
                needed_bits,
                available,
                offset,
            } => write!(
                f,
                "Gorilla bitstream at byte {offset} has {available} bytes, too short for {needed_bits} values"
            ),
            DecodeError::Truncated { section, offset } => {
                write!(f, "truncated QWP payload while reading {section:?} at byte {offset}")
            }
            DecodeError::OutputTooSmall {
                row_count,
                values,
                validity,
            } => write!(
                f,
                "output holds {values} values and {validity} validity flags, fewer than {row_count} rows"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A materialized column: one value and validity flag per row (null rows hold 0).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Column {
    pub values: Vec<i64>,
    pub validity: Vec<bool>,
    /// Bytes of the column section consumed.
    pub consumed: usize,
}

/// The validated shape of one column section.
struct Layout<'a> {
    row_count: usize,
    /// The null bitmap (bit set = NULL), when the column has one.
    bitmap: Option<&'a [u8]>,
    /// Number of non-null rows.
    dense: usize,
    values: Values<'a>,
}

enum Values<'a> {
    /// `dense * 8` bytes of little-endian int64 starting at byte `offset`.
    Raw { bytes: &'a [u8], offset: usize },
    /// Seeds and the bitstream, which starts at byte `offset` of the section.
    Gorilla {
        t0: i64,
        t1: i64,
        stream: &'a [u8],
        offset: usize,
    },
}

fn read_i64_le(bytes: &[u8], at: usize) -> Option<i64> {
    let word: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(i64::from_le_bytes(word))
}

/// Parse and length-check the header. Sizes nothing.
fn layout(column: &[u8], row_count: usize, gorilla_flag: bool) -> Result<Layout<'_>, DecodeError> {
    if row_count > MAX_ROWS {
        return Err(DecodeError::RowCountOverCap { row_count });
    }
    let flag = *column.first().ok_or(DecodeError::Truncated {
        section: Section::NullFlag,
        offset: 0,
    })?;
    let mut pos = 1;
    let (bitmap, nulls) = match flag {
        0 => (None, 0),
        1 => {
            let bitmap = column
                .get(pos..pos + row_count.div_ceil(8))
                .ok_or(DecodeError::Truncated {
                    section: Section::Bitmap,
                    offset: pos,
                })?;
            pos += bitmap.len();
            (Some(bitmap), count_nulls(bitmap, row_count))
        }
        flag => return Err(DecodeError::InvalidNullFlag { flag, offset: 0 }),
    };
    let dense = row_count - nulls;

    let encoding_offset = pos;
    let gorilla = if gorilla_flag {
        let encoding = *column.get(pos).ok_or(DecodeError::Truncated {
            section: Section::Encoding,
            offset: pos,
        })?;
        pos += 1;
        match encoding {
            0 => false,
            1 => true,
            encoding => {
                return Err(DecodeError::UnknownEncoding {
                    encoding,
                    offset: encoding_offset,
                })
            }
        }
    } else {
        false
    };

    let rest = &column[pos..];
    let values = if gorilla {
        if dense < 3 {
            return Err(DecodeError::TooFewGorillaValues {
                count: dense,
                offset: encoding_offset,
            });
        }
        let t0 = read_i64_le(rest, 0).ok_or(DecodeError::TruncatedSeed { index: 0, offset: pos })?;
        let t1 = read_i64_le(rest, 8).ok_or(DecodeError::TruncatedSeed {
            index: 1,
            offset: pos + 8,
        })?;
        let stream = &rest[16..];
        let offset = pos + 16;
        // One bit per remaining value at the very least: reject before sizing anything.
        if stream.len().saturating_mul(8) < dense - 2 {
            return Err(DecodeError::StreamTooShort {
                needed_bits: dense - 2,
                available: stream.len(),
                offset,
            });
        }
        Values::Gorilla { t0, t1, stream, offset }
    } else {
        let whole = rest.len() / 8;
        if whole < dense {
            return Err(DecodeError::Truncated {
                section: Section::RawValue,
                offset: pos + whole * 8,
            });
        }
        Values::Raw {
            bytes: &rest[..dense * 8],
            offset: pos,
        }
    };
    Ok(Layout {
        row_count,
        bitmap,
        dense,
        values,
    })
}

/// Null rows among the first `row_count` bits; bits past the last row are ignored.
fn count_nulls(bitmap: &[u8], row_count: usize) -> usize {
    let full = row_count / 8;
    let mut nulls: usize = bitmap[..full].iter().map(|b| b.count_ones() as usize).sum();
    let tail_bits = row_count % 8;
    if tail_bits != 0 {
        nulls += (bitmap[full] & ((1u8 << tail_bits) - 1)).count_ones() as usize;
    }
    nulls
}

/// A reusable decoder: keeps its scratch storage for the dense values of
/// columns with nulls across batches, growing it as batches grow.
#[derive(Debug, Default, Clone)]
pub struct TimestampDecoder {
    dense: Vec<i64>,
}

impl TimestampDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decode one column section of `row_count` rows into the first
    /// `row_count` entries of `values` and `validity` (true = not null; null
    /// rows get value 0). Nothing past `row_count` is written. Returns the
    /// number of bytes consumed. `gorilla_flag` says whether the message
    /// header had FLAG_GORILLA.
    pub fn decode_into(
        &mut self,
        column: &[u8],
        row_count: usize,
        gorilla_flag: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result<usize, DecodeError> {
        // The input is checked first: a row count the input cannot back is
        // reported as such, whatever the caller's buffers hold.
        let layout = layout(column, row_count, gorilla_flag)?;
        if values.len() < row_count || validity.len() < row_count {
            return Err(DecodeError::OutputTooSmall {
                row_count,
                values: values.len(),
                validity: validity.len(),
            });
        }
        self.decode_layout(&layout, &mut values[..row_count], &mut validity[..row_count])
    }

    fn decode_layout(
        &mut self,
        layout: &Layout<'_>,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result<usize, DecodeError> {
        let Some(bitmap) = layout.bitmap else {
            validity.fill(true);
            return decode_values(&layout.values, values);
        };
        // Grows, never shrinks.
        self.dense.resize(self.dense.len().max(layout.dense), 0);
        let dense = &mut self.dense[..layout.dense];
        let consumed = decode_values(&layout.values, dense)?;
        scatter(bitmap, layout.row_count, dense, values, validity);
        Ok(consumed)
    }
}

/// Decode the dense values into `out` (exactly `dense` long). Returns the
/// number of bytes of the column section consumed up to the end of the values.
fn decode_values(values: &Values<'_>, out: &mut [i64]) -> Result<usize, DecodeError> {
    match *values {
        Values::Raw { bytes, offset } => {
            for (slot, chunk) in out.iter_mut().zip(bytes.chunks_exact(8)) {
                *slot = i64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
            }
            Ok(offset + bytes.len())
        }
        Values::Gorilla { t0, t1, stream, offset } => {
            let bits = decode_gorilla(stream, offset, t0, t1, out)?;
            Ok(offset + bits.div_ceil(8))
        }
    }
}

/// Spread dense values over the rows the bitmap marks non-null.
fn scatter(bitmap: &[u8], row_count: usize, dense: &[i64], values: &mut [i64], validity: &mut [bool]) {
    let mut next = 0;
    for row in 0..row_count {
        let null = (bitmap[row / 8] >> (row % 8)) & 1 == 1;
        validity[row] = !null;
        if null {
            values[row] = 0;
        } else {
            values[row] = dense[next];
            next += 1;
        }
    }
}

/// Decode a column into fresh vectors. Sizes them only after the header and
/// every length it implies have been checked against the input.
pub fn decode_column(column: &[u8], row_count: usize, gorilla_flag: bool) -> Result<Column, DecodeError> {
    let layout = layout(column, row_count, gorilla_flag)?;
    let mut values = vec![0i64; row_count];
    let mut validity = vec![false; row_count];
    let consumed = TimestampDecoder::new().decode_layout(&layout, &mut values, &mut validity)?;
    Ok(Column {
        values,
        validity,
        consumed,
    })
}

/// Sign-extend the low `width` bits of `payload`.
#[inline(always)]
const fn sign_extend(payload: u64, width: u32) -> i64 {
    ((payload << (64 - width)) as i64) >> (64 - width)
}

/// Whether the DoD at the bottom of `window` is `10` + 7 bits or `110` + 9 bits.
#[inline(always)]
fn is_short(window: u64) -> bool {
    window & 1 == 1 && window & 0b110 != 0b110
}

/// A short DoD (see [`is_short`]): (value, bits consumed), chosen by
/// arithmetic on bit 1 rather than a branch.
#[inline(always)]
const fn short_dod(window: u64) -> (i64, u32) {
    let nine = ((window >> 1) & 1) as u32;
    (sign_extend(window >> (2 + nine), 7 + 2 * nine), 9 + 3 * nine)
}

/// A DoD with a `1110` (12-bit payload) or `1111` (32-bit payload) prefix at
/// the bottom of `window`: (value, bits consumed).
#[inline(always)]
fn long_dod(window: u64) -> (i64, usize) {
    if window & 0b1000 != 0 {
        ((window >> 4) as u32 as i32 as i64, 36)
    } else {
        (sign_extend(window >> 4, 12), 16)
    }
}

/// The DoD at the bottom of `window` (whose bit 0 is 1): (value, bits consumed).
#[inline(always)]
fn dod_at(window: u64) -> (i64, usize) {
    if is_short(window) {
        let (dod, len) = short_dod(window);
        (dod, len as usize)
    } else {
        long_dod(window)
    }
}

/// Write `t + d, t + 2d, ...` into `run` (wrapping) and return the last value.
/// Four independent lanes per step, so the adds vectorize instead of forming
/// one serial chain.
#[inline(always)]
fn fill_run(run: &mut [i64], t: i64, delta: i64) -> i64 {
    let lanes = [
        delta,
        delta.wrapping_mul(2),
        delta.wrapping_mul(3),
        delta.wrapping_mul(4),
    ];
    let mut base = t;
    let mut chunks = run.chunks_exact_mut(4);
    for chunk in &mut chunks {
        for (slot, lane) in chunk.iter_mut().zip(lanes) {
            *slot = base.wrapping_add(lane);
        }
        base = base.wrapping_add(lanes[3]);
    }
    for slot in chunks.into_remainder() {
        base = base.wrapping_add(delta);
        *slot = base;
    }
    base
}

/// `if_set` when bit 1 of `window` is 1, else `if_clear`.
///
/// Four-at-a-time decoding chains these selects, so on x86_64 this is a
/// `test` + `cmov` (two cycles). Written as a Rust `if`, LLVM turns
/// `select(c, w >> 12, w >> 9)` into a shift by a computed count (`setne`,
/// `lea`, `add`, `shr cl`: five cycles and twice the instructions).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn select_by_bit1(window: u64, if_set: u64, if_clear: u64) -> u64 {
    let mut out = if_clear;
    // SAFETY: register-only `test`/`cmov` (no memory, no stack); flags
    // are clobbered, which `asm!` assumes by default.
    unsafe {
        std::arch::asm!(
            "test {w:e}, 2",
            "cmovnz {out}, {set}",
            w = in(reg) window,
            set = in(reg) if_set,
            out = inout(reg) out,
            options(pure, nomem, nostack),
        );
    }
    out
}

#[cfg(not(target_arch = "x86_64"))]
use select_by_bit1_portable as select_by_bit1;

/// The select in plain Rust: what other targets use. Compiled and tested on
/// x86_64 too, so the code they run is checked on the development host.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn select_by_bit1_portable(window: u64, if_set: u64, if_clear: u64) -> u64 {
    if window & 0b10 != 0 {
        if_set
    } else {
        if_clear
    }
}

/// `window` moved past the short DoD at its bottom (9 or 12 bits, by bit 1).
#[inline(always)]
fn after_short(window: u64) -> u64 {
    select_by_bit1(window, window >> 12, window >> 9)
}

/// The value of the short DoD at the bottom of `window`, looked up by the
/// window's low 12 bits (a short DoD's longest). The four-at-a-time step
/// is bound by its instruction count, not by the chain of selects that
/// finds each DoD's start, and one load here replaces sign-extending both
/// payloads and selecting one.
#[inline(always)]
fn short_dod_value(window: u64) -> i64 {
    i64::from(SHORT_DOD_VALUES[(window & 0xFFF) as usize])
}

/// [`short_dod`]'s value for every 12-bit window (8 KiB; the entries of
/// windows that are not short are never read).
static SHORT_DOD_VALUES: [i16; 4096] = short_dod_values();

const fn short_dod_values() -> [i16; 4096] {
    let mut table = [0i16; 4096];
    let mut w = 0;
    while w < table.len() {
        // A short DoD's payload is 7 or 9 bits, so it fits an i16.
        table[w] = short_dod(w as u64).0 as i16;
        w += 1;
    }
    table
}

/// Bit `k` set for the low three bits `k` of a window that starts with a
/// short DoD (see [`is_short`]): `001`, `011` and `101`.
const SHORT_PREFIXES: u64 = 0b0010_1010;

/// Refill the bit buffer below this many bits: enough for four short DoDs
/// (4 x 12) or one long one (36).
const REFILL_BELOW: u32 = 48;

/// Phase 1 of [`decode_gorilla`]: from value `i` (with the running `t` and
/// `delta`), decode while a full 8-byte load fits. `buf` holds `avail`
/// unread bits (LSB first); `next` is the first byte not yet in the buffer.
/// Returns `(i, bit, t, delta)` where it stopped: `i == out.len()`, or fewer
/// than 104 bits of the stream are left unread (under 48 in the buffer and
/// at most 7 bytes not loaded); `bit` is the first unread bit.
#[inline(always)]
fn decode_buffered<P: Probe>(
    stream: &[u8],
    out: &mut [i64],
    mut i: usize,
    mut t: i64,
    mut delta: i64,
) -> (usize, usize, i64, i64) {
    let n = out.len();
    let Some(last_load) = stream.len().checked_sub(8) else {
        return (i, 0, t, delta);
    };
    let mut buf = 0u64;
    let mut avail = 0u32;
    let mut next = 0usize;
    while i < n {
        if avail < REFILL_BELOW {
            if next > last_load {
                break;
            }
            // OR the next 8 bytes in above the unread bits and count the
            // whole bytes that fit, so `avail` is 56..=63 afterwards.
            let word: [u8; 8] = stream[next..next + 8].try_into().expect("8 bytes");
            buf |= u64::from_le_bytes(word) << avail;
            next += ((63 - avail) / 8) as usize;
            avail |= 56;
        }
        // 32-bit DoDs (`1111` + 32 bits, the irregular case): every one
        // is 36 bits, so after the first the next one's position is
        // known without decoding anything, and each is read with its
        // own load at its bit position; the loads overlap instead of
        // queueing behind the bit buffer. The buffer is rebuilt after.
        if buf & 0xF == 0xF {
            let mut bit = next * 8 - avail as usize;
            while i < n {
                let Some(word) = stream.get(bit / 8..bit / 8 + 8) else {
                    break;
                };
                let window = u64::from_le_bytes(word.try_into().expect("8 bytes")) >> (bit % 8);
                if window & 0xF != 0xF {
                    break;
                }
                delta = delta.wrapping_add((window >> 4) as u32 as i32 as i64);
                t = t.wrapping_add(delta);
                out[i] = t;
                i += 1;
                bit += 36;
            }
            // Back to the buffer at `bit`: seven bytes from there (bits
            // above `avail` must be zero for the next refill's OR). Past the
            // last full load this phase is over: the careful one goes on
            // from `bit`.
            next = bit / 8;
            if next > last_load {
                return (i, bit, t, delta);
            }
            let word: [u8; 8] = stream[next..next + 8].try_into().expect("8 bytes");
            buf = (u64::from_le_bytes(word) & ((1 << 56) - 1)) >> (bit % 8);
            avail = 56 - (bit % 8) as u32;
            next += 7;
            continue;
        }
        // Four short DoDs in a row (the jittered case): each one's start
        // is picked with a select on the previous one's bit 1 instead of
        // waiting for its full decode, so the four decodes overlap.
        // avail >= REFILL_BELOW here covers all four (at most 48 bits).
        if is_short(buf) && i + 4 <= n {
            let w2 = after_short(buf);
            let w3 = after_short(w2);
            let w4 = after_short(w3);
            // is_short for all three at once: a window's low three bits
            // are `001`, `011` or `101`, the set bits of SHORT_PREFIXES.
            let short = |w: u64| SHORT_PREFIXES >> (w & 0b111);
            if short(w2) & short(w3) & short(w4) & 1 == 1 {
                for (slot, w) in out[i..i + 4].iter_mut().zip([buf, w2, w3, w4]) {
                    delta = delta.wrapping_add(short_dod_value(w));
                    t = t.wrapping_add(delta);
                    *slot = t;
                }
                // 9 bits per DoD, 3 more for each 9-bit payload.
                let twice_nines = (buf & 2) + (w2 & 2) + (w3 & 2) + (w4 & 2);
                let len = 36 + 3 * (twice_nines as u32 / 2);
                i += 4;
                P::count(Step::QwpFourAtATime, 1);
                buf = after_short(w4);
                avail -= len;
                continue;
            }
        }
        if buf & 1 == 0 {
            // A run of `0` control bits: the delta repeats (up to the
            // output's end; capped by the slice, not by index arithmetic).
            let rest = &mut out[i..];
            let run = (buf.trailing_zeros().min(avail) as usize).min(rest.len());
            t = fill_run(&mut rest[..run], t, delta);
            i += run;
            buf >>= run;
            avail -= run as u32;
            continue;
        }
        let (dod, len) = dod_at(buf);
        delta = delta.wrapping_add(dod);
        t = t.wrapping_add(delta);
        out[i] = t;
        i += 1;
        buf >>= len;
        avail -= len as u32;
    }
    (i, next * 8 - avail as usize, t, delta)
}

/// Decode a Gorilla body into `out` (n >= 3 values). Returns the number of
/// bitstream bits consumed. `offset` is the bitstream's position in the
/// column section, for error positions.
///
/// Two phases. While a full 8-byte load fits, bits sit in a 64-bit buffer
/// refilled with unaligned little-endian loads, so the only serial
/// dependency between values is a shift of that register. The last few bytes
/// go through a careful loop that checks every DoD against the real end of
/// the input, so padding is never read as data.
fn decode_gorilla(stream: &[u8], offset: usize, t0: i64, t1: i64, out: &mut [i64]) -> Result<usize, DecodeError> {
    let n = out.len();
    debug_assert!(n >= 3);
    out[0] = t0;
    out[1] = t1;
    let mut delta = t1.wrapping_sub(t0);
    let mut t = t1;

    // Phase 1: buffered (see `decode_buffered`).
    let (mut i, mut bit);
    (i, bit, t, delta) = decode_buffered::<NoProbe>(stream, out, 2, t, delta);

    // Phase 2: careful, one DoD at a time against the exact end of input.
    let total_bits = stream.len() * 8;
    while i < n {
        let byte = bit / 8;
        let shift = bit % 8;
        let mut word = [0u8; 8];
        let tail = &stream[byte.min(stream.len())..];
        let take = tail.len().min(8);
        word[..take].copy_from_slice(&tail[..take]);
        let window = u64::from_le_bytes(word) >> shift;
        let valid = (total_bits - bit.min(total_bits)).min(64 - shift);
        let truncated = || DecodeError::TruncatedBitstream {
            value_index: i,
            offset: offset + byte,
            bit: shift as u8,
        };
        if window & 1 == 0 {
            let rest = &mut out[i..];
            let run = (window.trailing_zeros() as usize).min(valid).min(rest.len());
            if run == 0 {
                return Err(truncated());
            }
            t = fill_run(&mut rest[..run], t, delta);
            i += run;
            bit += run;
            continue;
        }
        let (dod, len) = dod_at(window);
        if len > valid {
            return Err(truncated());
        }
        delta = delta.wrapping_add(dod);
        t = t.wrapping_add(delta);
        out[i] = t;
        i += 1;
        bit += len;
    }
    Ok(bit)
}

/// The signature every QWP timestamp implementation shares.
pub type DecodeFn =
    fn(&mut TimestampDecoder, &[u8], usize, bool, &mut [i64], &mut [bool]) -> Result<usize, DecodeError>;

/// Every implementation, best first.
pub static IMPLEMENTATIONS: &[crate::Implementation<DecodeFn>] = &[crate::Implementation::portable(
    "qwp/word64",
    TimestampDecoder::decode_into,
)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Counting;

    /// Column bytes: no bitmap, Gorilla, the given seeds and bitstream.
    fn gorilla(t0: i64, t1: i64, stream: &[u8]) -> Vec<u8> {
        let mut c = vec![0, 1];
        c.extend_from_slice(&t0.to_le_bytes());
        c.extend_from_slice(&t1.to_le_bytes());
        c.extend_from_slice(stream);
        c
    }

    #[test]
    fn known_answer_vectors() {
        // [0, 10, 25]: DoD 5 in the 7-bit bucket.
        let col = decode_column(&gorilla(0, 10, &[0x15, 0x00]), 3, true).unwrap();
        assert_eq!(col.values, [0, 10, 25]);
        assert_eq!(col.validity, [true; 3]);
        assert_eq!(col.consumed, 20);
        assert_eq!(
            decode_column(&gorilla(0, 0, &[0x05, 0x00]), 3, true).unwrap().values,
            [0, 0, 1]
        );
        assert_eq!(
            decode_column(&gorilla(0, 0, &[0x01, 0x01]), 3, true).unwrap().values,
            [0, 0, -64]
        );
    }

    #[test]
    fn wrapping_dense_edge() {
        // [MIN+1, MAX, MAX-2, MAX-4]: d1 wraps to -2, then DoDs 0, 0.
        let col = decode_column(&gorilla(i64::MIN + 1, i64::MAX, &[0x00]), 4, true).unwrap();
        assert_eq!(col.values, [i64::MIN + 1, i64::MAX, i64::MAX - 2, i64::MAX - 4]);
        assert_eq!(col.consumed, 19);
    }

    #[test]
    fn long_zero_runs_span_many_words() {
        // 1000 repeated deltas: 1000 zero bits over 125 bytes.
        let col = decode_column(&gorilla(5, 8, &[0; 125]), 1002, true).unwrap();
        assert!(col.values.iter().enumerate().all(|(i, v)| *v == 5 + 3 * i as i64));
        assert_eq!(col.consumed, 18 + 125);
    }

    #[test]
    fn every_bucket_width() {
        // DoD -2048 (1110 + 12 bits) then i32::MIN (1111 + 32 bits), bit-packed by hand.
        let mut bits: Vec<u8> = vec![1, 1, 1, 0];
        bits.extend((0..12).map(|i| ((-2048i64 as u64) >> i & 1) as u8));
        bits.extend([1, 1, 1, 1]);
        bits.extend((0..32).map(|i| ((i32::MIN as i64 as u64) >> i & 1) as u8));
        bits.extend([1, 1, 0]); // DoD 255 in the 9-bit bucket
        bits.extend((0..9).map(|i| (255u64 >> i & 1) as u8));
        let mut stream = vec![0u8; bits.len().div_ceil(8)];
        for (k, b) in bits.iter().enumerate() {
            stream[k / 8] |= b << (k % 8);
        }
        let col = decode_column(&gorilla(100, 100, &stream), 5, true).unwrap();
        let d2 = -2048i64;
        let d3 = d2 + i32::MIN as i64;
        let d4 = d3 + 255;
        assert_eq!(col.values, [100, 100, 100 + d2, 100 + d2 + d3, 100 + d2 + d3 + d4]);
    }

    #[test]
    fn nulls_scatter_and_raw() {
        // 10 rows, rows 1 and 9 null: bitmap 0b0000_0010, 0b0000_0010.
        let mut c = vec![1, 0b10, 0b10, 0];
        for v in 0..8i64 {
            c.extend_from_slice(&(v * 7).to_le_bytes());
        }
        let col = decode_column(&c, 10, true).unwrap();
        assert_eq!(col.values, [0, 0, 7, 14, 21, 28, 35, 42, 49, 0]);
        assert_eq!(
            col.validity,
            [true, false, true, true, true, true, true, true, true, false]
        );
        assert_eq!(col.consumed, c.len());
        // Without FLAG_GORILLA there is no encoding byte.
        let col = decode_column(&c[..3].iter().chain(&c[4..]).copied().collect::<Vec<_>>(), 10, false).unwrap();
        assert_eq!(col.values[8], 49);
    }

    #[test]
    fn every_error_variant() {
        let e = |c: &[u8], rows, flag| decode_column(c, rows, flag).unwrap_err();
        assert_eq!(
            e(&[0], MAX_ROWS + 1, false),
            DecodeError::RowCountOverCap {
                row_count: MAX_ROWS + 1
            }
        );
        // The cap itself is allowed: such a column gets as far as its values.
        assert_eq!(
            e(&[0], MAX_ROWS, false),
            DecodeError::Truncated {
                section: Section::RawValue,
                offset: 1
            }
        );
        assert_eq!(
            e(&[], 0, false),
            DecodeError::Truncated {
                section: Section::NullFlag,
                offset: 0
            }
        );
        assert_eq!(e(&[2], 0, false), DecodeError::InvalidNullFlag { flag: 2, offset: 0 });
        assert_eq!(
            e(&[1, 0], 9, false),
            DecodeError::Truncated {
                section: Section::Bitmap,
                offset: 1
            }
        );
        assert_eq!(
            e(&[1, 0], 8, true),
            DecodeError::Truncated {
                section: Section::Encoding,
                offset: 2
            }
        );
        assert_eq!(
            e(&[0, 9], 0, true),
            DecodeError::UnknownEncoding { encoding: 9, offset: 1 }
        );
        assert_eq!(
            e(&[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 2, true),
            DecodeError::Truncated {
                section: Section::RawValue,
                offset: 10
            }
        );
        assert_eq!(
            e(&[0, 1], 2, true),
            DecodeError::TooFewGorillaValues { count: 2, offset: 1 }
        );
        assert_eq!(
            e(&[0, 1, 0, 0], 3, true),
            DecodeError::TruncatedSeed { index: 0, offset: 2 }
        );
        assert_eq!(
            e(&[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 3, true),
            DecodeError::TruncatedSeed { index: 1, offset: 10 }
        );
        assert_eq!(
            e(&gorilla(0, 0, &[0]), 11, true),
            DecodeError::StreamTooShort {
                needed_bits: 9,
                available: 1,
                offset: 18
            }
        );
        // Eight zero bits, then a 9-bit DoD with only 8 bits left: value 10 starts at byte 19 bit 0.
        assert_eq!(
            e(&gorilla(0, 0, &[0, 0x01]), 11, true),
            DecodeError::TruncatedBitstream {
                value_index: 10,
                offset: 19,
                bit: 0
            }
        );
        // Padding is not read as zeros: 3 bits of a 36-bit DoD, then nothing.
        assert_eq!(
            e(&gorilla(0, 0, &[0b1111_0000, 0, 0]), 10, true),
            DecodeError::TruncatedBitstream {
                value_index: 6,
                offset: 18,
                bit: 4
            }
        );
        let mut decoder = TimestampDecoder::new();
        let raw4 = [0u8; 33];
        assert_eq!(
            decoder.decode_into(&raw4, 4, false, &mut [0; 3], &mut [true; 4]),
            Err(DecodeError::OutputTooSmall {
                row_count: 4,
                values: 3,
                validity: 4
            })
        );
        // An input that cannot back the row count is reported as such first.
        assert_eq!(
            decoder.decode_into(&raw4[..9], 4, false, &mut [0; 3], &mut [true; 4]),
            Err(DecodeError::Truncated {
                section: Section::RawValue,
                offset: 9
            })
        );
    }

    /// Packs DoDs into an LSB-first bitstream (for tests: the kernel never encodes).
    fn pack(dods: &[i64]) -> Vec<u8> {
        let mut bits: Vec<u8> = Vec::new();
        for &dod in dods {
            let (prefix, width): (&[u8], usize) = match dod {
                0 => (&[0], 0),
                -64..=63 => (&[1, 0], 7),
                -256..=255 => (&[1, 1, 0], 9),
                -2048..=2047 => (&[1, 1, 1, 0], 12),
                _ => (&[1, 1, 1, 1], 32),
            };
            bits.extend_from_slice(prefix);
            bits.extend((0..width).map(|k| ((dod as u64) >> k & 1) as u8));
        }
        let mut out = vec![0u8; bits.len().div_ceil(8)];
        for (k, b) in bits.iter().enumerate() {
            out[k / 8] |= b << (k % 8);
        }
        out
    }

    /// The buffered phase must take every value it can: stopping early
    /// costs only speed (the careful phase decodes the rest correctly), so
    /// the decoder tests alone cannot see it.
    #[test]
    fn buffered_phase_stops_within_104_bits_of_the_end() {
        let mut next = crate::xorshift(0x9E37_79B9_7F4A_7C15u64);
        // Bits per DoD by bucket, as `pack` writes them.
        let bits = |dod: i64| match dod {
            0 => 1,
            -64..=63 => 9,
            -256..=255 => 12,
            -2048..=2047 => 16,
            _ => 36,
        };
        let shapes: [&[i64]; 5] = [
            &[0, 0, 0, 5],
            &[3, -7, 60, -64],
            &[200, -3, 0, 1000],
            &[1 << 20, -(1 << 30), 77_777, 5],
            &[0, 9, -300, 1 << 25],
        ];
        // Under Miri the lengths still reach past the 104-bit window (about 12
        // DoDs of 9 bits).
        let max_len = if cfg!(miri) { 20 } else { 300 };
        let mut stopped_by_the_end = 0;
        for len in 1..max_len {
            for shape in shapes {
                let dods: Vec<i64> = (0..len).map(|_| shape[(next() % 4) as usize]).collect();
                let stream = pack(&dods);
                let (t0, t1) = (1_000i64, 1_010i64);
                let mut want = vec![t0, t1];
                let (mut t, mut delta) = (t1, t1 - t0);
                for &dod in &dods {
                    delta = delta.wrapping_add(dod);
                    t = t.wrapping_add(delta);
                    want.push(t);
                }
                let mut out = vec![0i64; dods.len() + 2];
                let (i, bit, t, delta) = decode_buffered::<NoProbe>(&stream, &mut out, 2, t1, t1 - t0);
                // Formatted only for a failure's message (Miri pays for every call).
                let what = || format!("{len} DoDs from {shape:?}");
                assert!(i <= out.len(), "{}", what());
                assert_eq!(out[2..i], want[2..i], "{}", what());
                assert_eq!(
                    (t, delta),
                    (want[i - 1], want[i - 1].wrapping_sub(want[i - 2])),
                    "{}",
                    what()
                );
                assert_eq!(bit, dods[..i - 2].iter().map(|&d| bits(d)).sum::<usize>(), "{}", what());
                if i < out.len() {
                    assert!(
                        stream.len() * 8 - bit < 104,
                        "{}: stopped at bit {bit} of {}",
                        what(),
                        stream.len() * 8
                    );
                    stopped_by_the_end += 1;
                }
            }
        }
        assert!(stopped_by_the_end > 0);
    }

    /// Zero runs in the careful phase that are longer than the 64-bit
    /// window holds, at every bit offset: the window then ends in
    /// shifted-in zeros that are not stream bits, so a run must stop at the
    /// window's real bits and resume from the next load.
    #[test]
    fn careful_phase_zero_runs_longer_than_the_window() {
        // Miri interprets slowly: every fifth offset and ninth length.
        let step = if cfg!(miri) { (5, 9) } else { (1, 1) };
        for lead in (0..16).step_by(step.0) {
            for zeros in (40..=110).step_by(step.1) {
                let mut dods = vec![5i64; lead];
                dods.extend(std::iter::repeat_n(0, zeros));
                dods.extend([-3, 0, 0, 7]);
                let stream = pack(&dods);
                let (t0, t1) = (1_000i64, 1_010i64);
                let mut want = vec![t0, t1];
                let mut delta = t1 - t0;
                for &dod in &dods {
                    delta += dod;
                    want.push(want.last().unwrap() + delta);
                }
                let col = decode_column(&gorilla(t0, t1, &stream), want.len(), true).unwrap();
                assert_eq!(col.values, want, "{lead} leading DoDs, {zeros} zeros");
            }
        }
    }

    #[test]
    fn runs_of_short_dods_take_the_four_at_a_time_step() {
        let dods: Vec<i64> = (0..if cfg!(miri) { 40 } else { 1000 })
            .map(|k| [5i64, -200, 63, -9, 255][k % 5])
            .collect();
        let stream = pack(&dods);
        let mut out = vec![0i64; dods.len() + 2];
        Counting::reset();
        let (i, ..) = decode_buffered::<Counting>(&stream, &mut out, 2, 0, 0);
        let steps = Counting::steps(Step::QwpFourAtATime);
        // Every value the buffered phase decoded but the last few (fewer
        // than four left) came four at a time.
        assert!(i - 2 >= dods.len() - 12, "the buffered phase stopped at value {i}");
        assert!(
            4 * steps + 3 >= i - 2,
            "{steps} four-at-a-time steps for {} values",
            i - 2
        );
    }

    /// Long streams of short DoDs (decoded four at a time) mixed with every
    /// other bucket, so the four-at-a-time path meets every buffer fill level
    /// and the end of the buffered phase.
    #[test]
    fn short_dod_runs_at_every_alignment() {
        let pattern = [5i64, -200, 63, -64, 255, -256, 0, 7, 2047, -9, 100_000, 1, 2, 3];
        // Miri interprets slowly: the short lengths still reach every path.
        let lengths: &[usize] = if cfg!(miri) {
            &[1, 4, 9, 50]
        } else {
            &[1, 3, 4, 5, 8, 9, 50, 200, 1001]
        };
        for &len in lengths {
            for skew in 0..pattern.len() {
                let dods: Vec<i64> = (0..len)
                    .map(|k| {
                        if k % 7 == 3 {
                            pattern[(k + skew) % pattern.len()]
                        } else {
                            [17, -90, 40, 250][(k + skew) % 4]
                        }
                    })
                    .collect();
                let stream = pack(&dods);
                let (t0, t1) = (-7i64, 1_000_000i64);
                let mut expected = vec![t0, t1];
                let mut d = t1 - t0;
                for dod in &dods {
                    d += dod;
                    expected.push(expected.last().unwrap() + d);
                }
                let col = decode_column(&gorilla(t0, t1, &stream), len + 2, true).unwrap();
                assert_eq!(col.values, expected, "len {len} skew {skew}");
                assert_eq!(col.consumed, 18 + stream.len());
            }
        }
    }

    /// The four-at-a-time path's steps, directly: with them broken (say
    /// `after_short` returning 0) its guard fails and the one-at-a-time
    /// path still gets every value right, so the decoder tests alone
    /// cannot tell.
    #[test]
    fn short_dod_steps_match_the_one_at_a_time_decode() {
        // Every 13-bit window (12 bits is the longest short DoD), fewer under Miri.
        let span = if cfg!(miri) { 1u64 << 10 } else { 1 << 13 };
        let mut windows: Vec<u64> = (0..span).collect();
        windows.extend([
            u64::MAX,
            u64::MAX - 1,
            1 << 63 | 0b10,
            0x0123_4567_89AB_CDEF,
            0xFEDC_BA98_7654_3211,
        ]);
        let mut short = 0;
        for w in windows {
            for select in [select_by_bit1, select_by_bit1_portable] {
                assert_eq!(
                    select(w, 0xAAAA, 0x5555),
                    if w & 2 != 0 { 0xAAAA } else { 0x5555 },
                    "window {w:#x}"
                );
            }
            if is_short(w) {
                short += 1;
                let (dod, len) = short_dod(w);
                assert_eq!(short_dod_value(w), dod, "window {w:#x}");
                assert_eq!(after_short(w), w >> len, "window {w:#x}");
                assert_eq!(dod_at(w), (dod, len as usize), "window {w:#x}");
            }
        }
        // Short windows: bit 0 set, bits 1-2 not both set (3/8 of the range,
        // and the last extra window).
        assert_eq!(short, 3 * span / 8 + 1);
    }

    #[test]
    fn decoder_reuse_grows_its_scratch() {
        let mut decoder = TimestampDecoder::new();
        let mut values = vec![0i64; 40];
        let mut validity = vec![false; 40];
        for rows in [3usize, 10, 2, 33] {
            // Row 0 null, the rest a constant interval, Gorilla-encoded.
            let dense = rows - 1;
            let mut c = vec![1u8];
            let mut bitmap = vec![0u8; rows.div_ceil(8)];
            bitmap[0] = 1;
            c.extend_from_slice(&bitmap);
            if dense >= 3 {
                c.push(1);
                c.extend_from_slice(&10i64.to_le_bytes());
                c.extend_from_slice(&20i64.to_le_bytes());
                c.extend(std::iter::repeat_n(0u8, (dense - 2).div_ceil(8)));
            } else {
                c.push(0);
                for k in 0..dense as i64 {
                    c.extend_from_slice(&(10 + 10 * k).to_le_bytes());
                }
            }
            let consumed = decoder.decode_into(&c, rows, true, &mut values, &mut validity).unwrap();
            assert_eq!(consumed, c.len());
            assert!(!validity[0]);
            for (row, value) in values.iter().enumerate().take(rows).skip(1) {
                assert_eq!(*value, 10 * row as i64, "rows {rows} row {row}");
            }
        }
    }
}
