//! SPRINTZ (encoding id 12) for INT32, INT64, FLOAT and DOUBLE: blocks of 9
//! values — the first raw, the next 8 as FIRE prediction errors, mapped to
//! unsigned and bit-packed MSB-first in exactly `width` bytes — and a tail
//! of 1..=8 values in one RLE package (INT32, INT64) or GORILLA stream
//! (FLOAT, DOUBLE). Notes: `docs/tsfile-encodings.md`, "SPRINTZ (id 12)".
//!
//! A full block's 8 errors are one bit-packed group, so the width-specialised
//! group unpacker of [`bitpack`] takes them with constant shifts (one or two
//! unaligned loads for narrow widths), and the FIRE predictor rebuilds each
//! value as it is unpacked ("fused"), straight into the output. The tails go
//! through the RLE and GORILLA kernels on a small stack buffer.

use super::{be_u32, be_u64, bitpack, gorilla, rle, uvarint32, DecodeError, Done, Field, IntLane, Lane};

/// Values per full block: one raw value and 8 packed errors.
pub const BLOCK: usize = 9;

/// Which writer's INT64 / DOUBLE predictor a page was written with: Java
/// wraps `alpha * delta` in 64 bits before the shift, C++ multiplies in 128
/// bits. Nothing in the page says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Java,
    Cpp,
}

/// The reader's inverse of the error map: even `x → (-x) / 2`, odd
/// `x → (x + 1) / 2` in wrapping Java arithmetic. Both dividends are even, so
/// the division is an arithmetic shift: `(x ^ mask) + 1` is `-x` when `x` is
/// even (`mask` all ones) and `x + 1` when odd (`mask` 0).
#[inline(always)]
fn unmap32(x: u32) -> i32 {
    let x = x as i32;
    let mask = (x & 1).wrapping_sub(1);
    (x ^ mask).wrapping_add(1) >> 1
}

#[inline(always)]
fn unmap64(x: u64) -> i64 {
    let x = x as i64;
    let mask = (x & 1).wrapping_sub(1);
    (x ^ mask).wrapping_add(1) >> 1
}

/// Java's `IntFire(2)` (INT32, FLOAT) on the rebuilt values, wrapping i32.
struct Fire32 {
    accumulator: i32,
    delta: i32,
    pre: i32,
}

impl Fire32 {
    #[inline(always)]
    fn new(first: u64) -> Self {
        Fire32 {
            accumulator: 0,
            delta: 0,
            pre: first as u32 as i32,
        }
    }
    /// The next value (as a bit pattern) from its mapped error.
    #[inline(always)]
    fn next(&mut self, mapped: u64) -> u64 {
        let err = unmap32(mapped as u32);
        let prediction = self
            .pre
            .wrapping_add((self.accumulator >> 2).wrapping_mul(self.delta) >> 8);
        let val = prediction.wrapping_add(err);
        // `accumulator -= gradient`, `gradient = err > 0 ? -delta : delta`.
        self.accumulator = if err > 0 {
            self.accumulator.wrapping_add(self.delta)
        } else {
            self.accumulator.wrapping_sub(self.delta)
        };
        self.delta = val.wrapping_sub(self.pre);
        self.pre = val;
        val as u32 as u64
    }
}

/// Java's `LongFire(3)` (INT64, DOUBLE): an `int` accumulator (so the
/// training truncates to 32 bits), i64 values; `WIDE` is the C++ predictor,
/// whose product is taken in 128 bits before the shift.
struct Fire64<const WIDE: bool> {
    accumulator: i32,
    delta: i64,
    pre: i64,
}

impl<const WIDE: bool> Fire64<WIDE> {
    #[inline(always)]
    fn new(first: u64) -> Self {
        Fire64 {
            accumulator: 0,
            delta: 0,
            pre: first as i64,
        }
    }
    #[inline(always)]
    fn next(&mut self, mapped: u64) -> u64 {
        let err = unmap64(mapped);
        let alpha = (self.accumulator >> 3) as i64;
        let adjust = if WIDE {
            ((alpha as i128 * self.delta as i128) >> 16) as i64
        } else {
            alpha.wrapping_mul(self.delta) >> 16
        };
        let val = self.pre.wrapping_add(adjust).wrapping_add(err);
        // `accumulator -= gradient` in 64 bits, truncated to the int: the
        // same as the 32-bit wrapping sum of the truncated delta.
        let delta = self.delta as i32;
        self.accumulator = if err > 0 {
            self.accumulator.wrapping_add(delta)
        } else {
            self.accumulator.wrapping_sub(delta)
        };
        self.delta = val.wrapping_sub(self.pre);
        self.pre = val;
        val as u64
    }
}

/// What the predictor starts from: FLOAT / DOUBLE go through
/// `floatToIntBits` / `doubleToLongBits`, which make every NaN canonical.
#[inline(always)]
fn canonical(bits: u64, width: u32, float: bool) -> u64 {
    if !float {
        bits
    } else if width == 32 {
        if bits as u32 & 0x7FFF_FFFF > 0x7F80_0000 {
            0x7FC0_0000
        } else {
            bits
        }
    } else if bits & 0x7FFF_FFFF_FFFF_FFFF > 0x7FF0_0000_0000_0000 {
        0x7FF8_0000_0000_0000
    } else {
        bits
    }
}

/// Rebuild a full block into `dst` (9 lanes): its first value (output as
/// read) and the 8 errors packed at the start of `packed` (`width` bytes;
/// bytes after them may be loaded, never decoded).
#[inline(always)]
fn block<T: Lane, const FLOAT: bool, const WIDE: bool, const FUSED: bool>(
    first: u64,
    packed: &[u8],
    width: u32,
    dst: &mut [T],
) {
    dst[0] = T::from_bits(first);
    let start = canonical(first, T::BITS, FLOAT);
    if FUSED {
        // The predictor rides along the unpacker: `emit` is called once per
        // lane, in order (a full group has no lanes past `n`).
        if T::BITS == 32 {
            let mut fire = Fire32::new(start);
            bitpack::unpack_map(packed, width, 8, &mut dst[1..BLOCK], |e| T::from_bits(fire.next(e)));
        } else {
            let mut fire = Fire64::<WIDE>::new(start);
            bitpack::unpack_map(packed, width, 8, &mut dst[1..BLOCK], |e| T::from_bits(fire.next(e)));
        }
    } else {
        let mut errs = [0u64; 8];
        bitpack::unpack(packed, width, 8, &mut errs);
        if T::BITS == 32 {
            let mut fire = Fire32::new(start);
            for (slot, &e) in dst[1..BLOCK].iter_mut().zip(&errs) {
                *slot = T::from_bits(fire.next(e));
            }
        } else {
            let mut fire = Fire64::<WIDE>::new(start);
            for (slot, &e) in dst[1..BLOCK].iter_mut().zip(&errs) {
                *slot = T::from_bits(fire.next(e));
            }
        }
    }
}

/// An INT tail's RLE package (starting at `at`, the byte after the tail's
/// header at `block`) decoded by the RLE kernel into lanes `L` (u32: little-
/// endian run values, u64: big-endian) with room for `size + 8` values.
/// Returns where the package ends.
#[inline(never)]
fn rle_tail<L: IntLane, T: Lane>(page: &[u8], at: usize, block: usize, out: &mut [T]) -> Result<usize, DecodeError> {
    let size = out.len();
    let wrong_size = DecodeError::BadCount {
        field: Field::SprintzTail,
        count: size as i64,
        offset: block,
    };
    let (len, k) = uvarint32(page, at, Field::RleLength)?;
    let len = len as usize;
    if len > page.len() - (at + k) {
        return Err(DecodeError::BadCount {
            field: Field::RleLength,
            count: len as i64,
            offset: at,
        });
    }
    let end = at + k + len;
    let mut buf = [L::default(); 2 * BLOCK];
    let done = rle::decode_into(&page[at..end], &mut buf[..size + 8]).map_err(|e| match e {
        DecodeError::TooManyValues { .. } => wrong_size.clone(),
        e => e.shifted(at),
    })?;
    if done.values != size {
        return Err(wrong_size);
    }
    for (o, &v) in out.iter_mut().zip(&buf[..size]) {
        *o = T::from_bits(v.to_bits());
    }
    Ok(end)
}

/// A FLOAT / DOUBLE tail: a GORILLA stream (starting at `at`) of `size`
/// values and the NaN terminator, read as `size + 1` counted values, then the
/// flush byte. Returns where the tail ends.
#[inline(never)]
fn gorilla_tail<const W: u32, T: Lane>(
    page: &[u8],
    at: usize,
    block: usize,
    out: &mut [T],
) -> Result<usize, DecodeError> {
    let size = out.len();
    let terminator = if W == 32 {
        gorilla::TERMINATOR_F32 as u64
    } else {
        gorilla::TERMINATOR_F64
    };
    let mut buf = [0u64; BLOCK];
    let (_, end_bit) =
        gorilla::decode_count_to_bit::<W>(&page[at..], terminator, &mut buf[..size + 1]).map_err(|e| e.shifted(at))?;
    if buf[size] != terminator {
        return Err(DecodeError::BadCount {
            field: Field::SprintzTail,
            count: size as i64,
            offset: block,
        });
    }
    let flush = at + end_bit / 8;
    if flush >= page.len() {
        return Err(DecodeError::Truncated {
            field: Field::GorillaFlush,
            offset: flush,
            bit: 0,
        });
    }
    for (o, &v) in out.iter_mut().zip(&buf[..size]) {
        *o = T::from_bits(v);
    }
    Ok(flush + 1)
}

/// Decode a page into `out` (its length is the most values accepted).
/// `T::BITS` picks INT32 / FLOAT (32) or INT64 / DOUBLE (64), `FLOAT` the
/// float layout (raw BE first values, GORILLA tails), `WIDE` the C++
/// INT64 / DOUBLE predictor, `FUSED` the one-pass unpack-and-predict.
fn decode<T: Lane, const FLOAT: bool, const WIDE: bool, const FUSED: bool>(
    page: &[u8],
    out: &mut [T],
) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut pos = 0;
    let mut n = 0;
    while let Some(&header) = page.get(pos) {
        let at = pos;
        pos += 1;
        if header & 0x80 != 0 {
            let size = (header & 0x7F) as usize;
            if size == 0 || size >= BLOCK {
                return Err(DecodeError::BadCount {
                    field: Field::SprintzTail,
                    count: size as i64,
                    offset: at,
                });
            }
            if size > max - n {
                return Err(DecodeError::TooManyValues { max, offset: at });
            }
            let dst = &mut out[n..n + size];
            pos = match (FLOAT, T::BITS) {
                (false, 32) => rle_tail::<u32, T>(page, pos, at, dst)?,
                (false, _) => rle_tail::<u64, T>(page, pos, at, dst)?,
                (true, 32) => gorilla_tail::<32, T>(page, pos, at, dst)?,
                (true, _) => gorilla_tail::<64, T>(page, pos, at, dst)?,
            };
            n += size;
            continue;
        }
        // A full block. Width 0 (never written) unpacks to eight zero
        // errors with no packed bytes, as the readers do.
        let width = header as u32;
        if width > T::BITS {
            return Err(DecodeError::BadBitWidth {
                width: width as i64,
                max: T::BITS,
                offset: at,
            });
        }
        if BLOCK > max - n {
            return Err(DecodeError::TooManyValues { max, offset: at });
        }
        let truncated_first = DecodeError::Truncated {
            field: Field::SprintzFirst,
            offset: pos,
            bit: 0,
        };
        let first = if T::BITS == 32 {
            if FLOAT {
                let v = be_u32(page, pos).ok_or(truncated_first)?;
                pos += 4;
                u64::from(v)
            } else {
                let (v, k) = uvarint32(page, pos, Field::SprintzFirst)?;
                pos += k;
                u64::from(v)
            }
        } else {
            let v = be_u64(page, pos).ok_or(truncated_first)?;
            pos += 8;
            v
        };
        if page.len() - pos < width as usize {
            return Err(DecodeError::Truncated {
                field: Field::SprintzPacked,
                offset: pos,
                bit: 0,
            });
        }
        block::<T, FLOAT, WIDE, FUSED>(first, &page[pos..], width, &mut out[n..n + BLOCK]);
        pos += width as usize;
        n += BLOCK;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// Decode an INT32 page.
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<i32, false, false, true>(page, out)
}

/// Decode an INT64 page written by `writer`.
pub fn decode_i64_into(page: &[u8], writer: Writer, out: &mut [i64]) -> Result<Done, DecodeError> {
    match writer {
        Writer::Java => decode::<i64, false, false, true>(page, out),
        Writer::Cpp => decode::<i64, false, true, true>(page, out),
    }
}

/// Decode a FLOAT page.
pub fn decode_f32_into(page: &[u8], out: &mut [f32]) -> Result<Done, DecodeError> {
    decode::<f32, true, false, true>(page, out)
}

/// Decode a DOUBLE page written by `writer`.
pub fn decode_f64_into(page: &[u8], writer: Writer, out: &mut [f64]) -> Result<Done, DecodeError> {
    match writer {
        Writer::Java => decode::<f64, true, false, true>(page, out),
        Writer::Cpp => decode::<f64, true, true, true>(page, out),
    }
}

/// INT32 (`float` false) or FLOAT (`float` true) as 32-bit patterns.
pub fn decode32_into(page: &[u8], float: bool, out: &mut [u32]) -> Result<Done, DecodeError> {
    if float {
        decode::<u32, true, false, true>(page, out)
    } else {
        decode::<u32, false, false, true>(page, out)
    }
}

/// INT64 or DOUBLE as 64-bit patterns, with `writer`'s predictor.
pub fn decode64_into(page: &[u8], float: bool, writer: Writer, out: &mut [u64]) -> Result<Done, DecodeError> {
    match (float, writer) {
        (false, Writer::Java) => decode::<u64, false, false, true>(page, out),
        (false, Writer::Cpp) => decode::<u64, false, true, true>(page, out),
        (true, Writer::Java) => decode::<u64, true, false, true>(page, out),
        (true, Writer::Cpp) => decode::<u64, true, true, true>(page, out),
    }
}

/// [`decode32_into`] in two passes per block: the 8 errors unpacked to a
/// stack array, then the predictor (a second opinion on the fused kernel).
pub fn decode32_two_pass_into(page: &[u8], float: bool, out: &mut [u32]) -> Result<Done, DecodeError> {
    if float {
        decode::<u32, true, false, false>(page, out)
    } else {
        decode::<u32, false, false, false>(page, out)
    }
}

/// [`decode64_into`] in two passes per block.
pub fn decode64_two_pass_into(page: &[u8], float: bool, writer: Writer, out: &mut [u64]) -> Result<Done, DecodeError> {
    match (float, writer) {
        (false, Writer::Java) => decode::<u64, false, false, false>(page, out),
        (false, Writer::Cpp) => decode::<u64, false, true, false>(page, out),
        (true, Writer::Java) => decode::<u64, true, false, false>(page, out),
        (true, Writer::Cpp) => decode::<u64, true, true, false>(page, out),
    }
}

pub type Decode32 = fn(&[u8], bool, &mut [u32]) -> Result<Done, DecodeError>;
pub type Decode64 = fn(&[u8], bool, Writer, &mut [u64]) -> Result<Done, DecodeError>;

/// 32-bit implementations (INT32, FLOAT), best first.
pub static IMPLEMENTATIONS_32: &[crate::Implementation<Decode32>] = &[
    crate::Implementation::portable("sprintz/fused", decode32_into),
    crate::Implementation::portable("sprintz/two-pass", decode32_two_pass_into),
];

/// 64-bit implementations (INT64, DOUBLE), best first.
pub static IMPLEMENTATIONS_64: &[crate::Implementation<Decode64>] = &[
    crate::Implementation::portable("sprintz/fused", decode64_into),
    crate::Implementation::portable("sprintz/two-pass", decode64_two_pass_into),
];
