//! SPRINTZ (encoding id 12) for INT32, INT64, FLOAT and DOUBLE: blocks of 9
//! values — the first raw, the next 8 as FIRE prediction errors, mapped to
//! unsigned and bit-packed MSB-first in exactly `width` bytes — and a tail
//! of 1..=8 values in one RLE package (INT32, INT64) or GORILLA stream
//! (FLOAT, DOUBLE). Notes: `docs/reference/tsfile-encodings.md`, "SPRINTZ (id 12)".
//!
//! A full block's 8 errors are one bit-packed group, so the width-specialised
//! group unpacker of the `bitpack` module takes them with constant shifts (one or two
//! unaligned loads for narrow widths), and the FIRE predictor rebuilds each
//! value as it is unpacked ("fused"), straight into the output. The tails go
//! through the RLE and GORILLA kernels on a small stack buffer.

use super::{be_u32, be_u64, bitpack, gorilla, rle, uvarint32, DecodeError, Done, Field, IntLane, Lane};

/// Values per full block: one raw value and 8 packed errors.
pub const BLOCK: usize = 9;

/// Which official reader a page is read as, named by the library that
/// wrote it (nothing in the page says which). They differ in three places
/// (`docs/reference/tsfile-encodings.md`, "SPRINTZ", "Java and C++ readers"): the
/// INT64 / DOUBLE predictor's product (Java wraps it in 64 bits, C++ takes
/// it in 128), the mapped error `MIN` (Java reads `-2^30` / `-2^62`, the
/// compiled C++ reader `+2^30` / `+2^62`), and a FLOAT / DOUBLE block's
/// first value as the predictor sees it (Java: `floatToIntBits`, every NaN
/// canonical; C++: its raw bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Java,
    Cpp,
}

/// The reader's inverse of the error map: even `x → (-x) / 2`, odd
/// `x → (x + 1) / 2` in wrapping Java arithmetic. Both dividends are even, so
/// the division is an arithmetic shift: `(x ^ mask) + 1` is `-x` when `x` is
/// even (`mask` all ones) and `x + 1` when odd (`mask` 0). The C++ reader
/// (`CPP`) computes `-(x / 2)`: the same but for `x = MIN`, where it gives
/// `+2^30` where Java gives `-2^30`.
#[inline(always)]
fn unmap32<const CPP: bool>(x: u32) -> i32 {
    let x = x as i32;
    let mask = (x & 1).wrapping_sub(1);
    let java = (x ^ mask).wrapping_add(1) >> 1;
    if CPP && x == i32::MIN {
        java.wrapping_neg()
    } else {
        java
    }
}

#[inline(always)]
fn unmap64<const CPP: bool>(x: u64) -> i64 {
    let x = x as i64;
    let mask = (x & 1).wrapping_sub(1);
    let java = (x ^ mask).wrapping_add(1) >> 1;
    if CPP && x == i64::MIN {
        java.wrapping_neg()
    } else {
        java
    }
}

/// Java's `IntFire(2)` (INT32, FLOAT) on the rebuilt values, wrapping i32
/// (the C++ one computes the same); `CPP` the C++ reader's error map.
struct Fire32<const CPP: bool> {
    accumulator: i32,
    delta: i32,
    pre: i32,
}

impl<const CPP: bool> Fire32<CPP> {
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
        let err = unmap32::<CPP>(mapped as u32);
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
/// training truncates to 32 bits), i64 values; `CPP` is the C++ reader:
/// its product is taken in 128 bits before the shift, and its error map.
struct Fire64<const CPP: bool> {
    accumulator: i32,
    delta: i64,
    pre: i64,
}

impl<const CPP: bool> Fire64<CPP> {
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
        let err = unmap64::<CPP>(mapped);
        let alpha = (self.accumulator >> 3) as i64;
        let adjust = if CPP {
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

/// What the Java predictor starts from: FLOAT / DOUBLE go through
/// `floatToIntBits` / `doubleToLongBits`, which make every NaN canonical
/// (the C++ reader starts from the raw bits).
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
fn block<T: Lane, const FLOAT: bool, const CPP: bool>(first: u64, packed: &[u8], width: u32, dst: &mut [T]) {
    dst[0] = T::from_bits(first);
    let start = canonical(first, T::BITS, FLOAT && !CPP);
    // The predictor rides along the unpacker: `emit` is called once per
    // lane, in order (a full group has no lanes past `n`). The lane's width is tested in a `const` block (a plain `if` is not
    // pruned before monomorphisation), so that only the lane's own
    // predictor is compiled into the width-specialised unpackers.
    if const { T::BITS == 32 } {
        fused32::<T, CPP>(start, packed, width, &mut dst[1..BLOCK]);
    } else {
        fused64::<T, CPP>(start, packed, width, &mut dst[1..BLOCK]);
    }
}

/// A block's 8 errors unpacked and predicted in one pass (32-bit lanes).
#[inline(always)]
fn fused32<T: Lane, const CPP: bool>(start: u64, packed: &[u8], width: u32, dst: &mut [T]) {
    let bits = predict32::<CPP>(start, packed, width);
    for (slot, &b) in dst.iter_mut().zip(&bits) {
        *slot = T::from_bits(u64::from(b));
    }
}

/// [`fused32`] for 64-bit lanes, with either writer's predictor.
#[inline(always)]
fn fused64<T: Lane, const CPP: bool>(start: u64, packed: &[u8], width: u32, dst: &mut [T]) {
    let bits = predict64::<CPP>(start, packed, width);
    for (slot, &b) in dst.iter_mut().zip(&bits) {
        *slot = T::from_bits(b);
    }
}

/// The fused block's values as bit patterns, in a function generic over
/// nothing but the predictor: the width-specialised unpackers, with the
/// predictor inlined into each, are then compiled once per predictor, not
/// once per lane type as well (the copy into the lanes is 8 moves).
#[inline(always)]
fn predict32<const CPP: bool>(start: u64, packed: &[u8], width: u32) -> [u32; 8] {
    let mut bits = [0u32; 8];
    let mut fire = Fire32::<CPP>::new(start);
    bitpack::unpack_map(packed, width, 8, &mut bits, move |e| fire.next(e) as u32);
    bits
}

/// [`predict32`] for 64-bit lanes.
#[inline(always)]
fn predict64<const CPP: bool>(start: u64, packed: &[u8], width: u32) -> [u64; 8] {
    let mut bits = [0u64; 8];
    let mut fire = Fire64::<CPP>::new(start);
    bitpack::unpack_map(packed, width, 8, &mut bits, move |e| fire.next(e));
    bits
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
/// float layout (raw BE first values, GORILLA tails), `CPP` the C++
/// reader's arithmetic ([`Writer`]).
fn decode<T: Lane, const FLOAT: bool, const CPP: bool>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
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
        block::<T, FLOAT, CPP>(first, &page[pos..], width, &mut out[n..n + BLOCK]);
        pos += width as usize;
        n += BLOCK;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// Decode an INT32 page written by `writer`.
pub fn decode_i32_into(page: &[u8], writer: Writer, out: &mut [i32]) -> Result<Done, DecodeError> {
    match writer {
        Writer::Java => decode::<i32, false, false>(page, out),
        Writer::Cpp => decode::<i32, false, true>(page, out),
    }
}

/// Decode an INT64 page written by `writer`.
pub fn decode_i64_into(page: &[u8], writer: Writer, out: &mut [i64]) -> Result<Done, DecodeError> {
    match writer {
        Writer::Java => decode::<i64, false, false>(page, out),
        Writer::Cpp => decode::<i64, false, true>(page, out),
    }
}

/// Decode a FLOAT page written by `writer`.
pub fn decode_f32_into(page: &[u8], writer: Writer, out: &mut [f32]) -> Result<Done, DecodeError> {
    match writer {
        Writer::Java => decode::<f32, true, false>(page, out),
        Writer::Cpp => decode::<f32, true, true>(page, out),
    }
}

/// Decode a DOUBLE page written by `writer`.
pub fn decode_f64_into(page: &[u8], writer: Writer, out: &mut [f64]) -> Result<Done, DecodeError> {
    match writer {
        Writer::Java => decode::<f64, true, false>(page, out),
        Writer::Cpp => decode::<f64, true, true>(page, out),
    }
}

/// INT32 (`float` false) or FLOAT (`float` true) as 32-bit patterns, as
/// `writer`'s reader reads them.
pub fn decode32_into(page: &[u8], float: bool, writer: Writer, out: &mut [u32]) -> Result<Done, DecodeError> {
    match (float, writer) {
        (false, Writer::Java) => decode::<u32, false, false>(page, out),
        (false, Writer::Cpp) => decode::<u32, false, true>(page, out),
        (true, Writer::Java) => decode::<u32, true, false>(page, out),
        (true, Writer::Cpp) => decode::<u32, true, true>(page, out),
    }
}

/// INT64 or DOUBLE as 64-bit patterns, as `writer`'s reader reads them.
pub fn decode64_into(page: &[u8], float: bool, writer: Writer, out: &mut [u64]) -> Result<Done, DecodeError> {
    match (float, writer) {
        (false, Writer::Java) => decode::<u64, false, false>(page, out),
        (false, Writer::Cpp) => decode::<u64, false, true>(page, out),
        (true, Writer::Java) => decode::<u64, true, false>(page, out),
        (true, Writer::Cpp) => decode::<u64, true, true>(page, out),
    }
}

pub type Decode32 = fn(&[u8], bool, Writer, &mut [u32]) -> Result<Done, DecodeError>;
pub type Decode64 = fn(&[u8], bool, Writer, &mut [u64]) -> Result<Done, DecodeError>;

/// 32-bit implementations (INT32, FLOAT), best first.
pub static IMPLEMENTATIONS_32: &[crate::Implementation<Decode32>] =
    &[crate::Implementation::portable("sprintz/fused", decode32_into)];

/// 64-bit implementations (INT64, DOUBLE), best first.
pub static IMPLEMENTATIONS_64: &[crate::Implementation<Decode64>] =
    &[crate::Implementation::portable("sprintz/fused", decode64_into)];

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tsfile::test_unhex as unhex;

    fn tr(field: Field, offset: usize) -> DecodeError {
        DecodeError::Truncated { field, offset, bit: 0 }
    }

    fn tail_count(count: i64, offset: usize) -> DecodeError {
        DecodeError::BadCount {
            field: Field::SprintzTail,
            count,
            offset,
        }
    }

    /// MSB-first packer for hand-built blocks.
    fn pack(values: &[u64], width: u32) -> Vec<u8> {
        let mut out = vec![0u8; (values.len() * width as usize).div_ceil(8)];
        let mut bit = 0;
        for &v in values {
            for i in (0..width).rev() {
                if (v >> i) & 1 == 1 {
                    out[bit / 8] |= 0x80 >> (bit % 8);
                }
                bit += 1;
            }
        }
        out
    }

    /// Every entry point of a 32-bit page, which must agree; the values as
    /// bits, as the Java reader reads them.
    fn run32(page: &[u8], float: bool, max: usize) -> Result<(Vec<u32>, usize), DecodeError> {
        run32_as(page, float, Writer::Java, max)
    }

    /// [`run32`] as `writer`'s reader reads the page.
    fn run32_as(page: &[u8], float: bool, writer: Writer, max: usize) -> Result<(Vec<u32>, usize), DecodeError> {
        let mut got = Vec::new();
        for imp in IMPLEMENTATIONS_32 {
            let mut out = vec![0xDEAD_BEEFu32; max];
            let r = (imp.get().unwrap())(page, float, writer, &mut out).map(|d| {
                assert!(
                    out[d.values..].iter().all(|&v| v == 0xDEAD_BEEF),
                    "{} wrote past",
                    imp.name
                );
                (out[..d.values].to_vec(), d.consumed)
            });
            got.push(r);
        }
        let typed = if float {
            let mut out = vec![0f32; max];
            decode_f32_into(page, writer, &mut out)
                .map(|d| (out[..d.values].iter().map(|v| v.to_bits()).collect(), d.consumed))
        } else {
            let mut out = vec![0i32; max];
            decode_i32_into(page, writer, &mut out)
                .map(|d| (out[..d.values].iter().map(|&v| v as u32).collect(), d.consumed))
        };
        got.push(typed);
        assert!(got.windows(2).all(|w| w[0] == w[1]), "entry points disagree: {got:?}");
        got.pop().unwrap()
    }

    fn run64(page: &[u8], float: bool, writer: Writer, max: usize) -> Result<(Vec<u64>, usize), DecodeError> {
        let mut got = Vec::new();
        for imp in IMPLEMENTATIONS_64 {
            let mut out = vec![0xDEAD_BEEFu64; max];
            let r = (imp.get().unwrap())(page, float, writer, &mut out).map(|d| {
                assert!(
                    out[d.values..].iter().all(|&v| v == 0xDEAD_BEEF),
                    "{} wrote past",
                    imp.name
                );
                (out[..d.values].to_vec(), d.consumed)
            });
            got.push(r);
        }
        let typed = if float {
            let mut out = vec![0f64; max];
            decode_f64_into(page, writer, &mut out)
                .map(|d| (out[..d.values].iter().map(|v| v.to_bits()).collect(), d.consumed))
        } else {
            let mut out = vec![0i64; max];
            decode_i64_into(page, writer, &mut out)
                .map(|d| (out[..d.values].iter().map(|&v| v as u64).collect(), d.consumed))
        };
        got.push(typed);
        assert!(got.windows(2).all(|w| w[0] == w[1]), "entry points disagree: {got:?}");
        got.pop().unwrap()
    }

    fn i32s(v: &[i32]) -> Vec<u32> {
        v.iter().map(|&x| x as u32).collect()
    }

    /// The longest INT tail, eight values of one RLE run.
    #[test]
    fn a_tail_of_eight() {
        let page = [0x88, 0x03, 0x08, 0x10, 0x07];
        assert_eq!(run32(&page, false, 8), Ok((vec![7; 8], 5)));
        assert_eq!(run64(&page, false, Writer::Java, 9), Ok((vec![7; 8], 5)));
    }

    /// An infinite first value is not a NaN: the predictor starts from its
    /// own bits, so a block of zero errors repeats it.
    #[test]
    fn an_infinite_first_value_is_its_own_start() {
        for inf in [0x7F80_0000u32, 0xFF80_0000] {
            let mut page = vec![1u8];
            page.extend(inf.to_be_bytes());
            page.push(0);
            assert_eq!(run32(&page, true, 9), Ok((vec![inf; 9], 6)));
        }
        for inf in [0x7FF0_0000_0000_0000u64, 0xFFF0_0000_0000_0000] {
            let mut page = vec![1u8];
            page.extend(inf.to_be_bytes());
            page.push(0);
            assert_eq!(run64(&page, true, Writer::Java, 9), Ok((vec![inf; 9], 10)));
        }
    }

    #[test]
    fn unmap_is_the_java_division() {
        for x in [
            0u32,
            1,
            2,
            3,
            4,
            0x7FFF_FFFE,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let j = x as i32;
            let want = if j % 2 == 0 {
                j.wrapping_neg() / 2
            } else {
                j.wrapping_add(1) / 2
            };
            assert_eq!(unmap32::<false>(x), want, "{x:#x}");
        }
        assert_eq!(
            [
                unmap32::<false>(0),
                unmap32::<false>(1),
                unmap32::<false>(2),
                unmap32::<false>(3),
                unmap32::<false>(4)
            ],
            [0, 1, -1, 2, -2]
        );
        // 2 * 2^30 - 1 comes back as -2^30 (the writers' "TODO: overflow").
        assert_eq!(unmap32::<false>(0x7FFF_FFFF), -(1 << 30));
        for x in [0u64, 1, 2, 3, i64::MAX as u64, i64::MIN as u64, u64::MAX, u64::MAX - 1] {
            let j = x as i64;
            let want = if j % 2 == 0 {
                j.wrapping_neg() / 2
            } else {
                j.wrapping_add(1) / 2
            };
            assert_eq!(unmap64::<false>(x), want, "{x:#x}");
        }
        assert_eq!(unmap64::<false>(u64::MAX), 0);
        assert_eq!(unmap64::<false>(i64::MAX as u64), -(1 << 62));
    }

    #[test]
    fn known_answer_int32_full_block_and_tail() {
        // 1..=10: a block of width 1 (every error 1 → ff), first value 01;
        // tail 81: one RLE package (length 7, width 4, one bit-packed group).
        let page = unhex("01 01 ff 81 07 04 03 01 a0 00 00 00");
        let want: Vec<i32> = (1..=10).collect();
        assert_eq!(run32(&page, false, 10), Ok((i32s(&want), 12)));
        assert_eq!(run32(&page, false, 50), Ok((i32s(&want), 12)));
    }

    #[test]
    fn known_answer_fire_on_a_ramp() {
        // 0, 1000, ..., 8000 as PyPI tsfile 2.5.0 writes them: 11-bit errors.
        let want: Vec<i64> = (0..9).map(|i| i * 1000).collect();
        let page = unhex("0b 00 f9 ff 3c 17 f7 20 5f dc 81 7f 72");
        let w32: Vec<i32> = want.iter().map(|&v| v as i32).collect();
        assert_eq!(run32(&page, false, 9), Ok((i32s(&w32), 13)));
        let page = unhex("0b 00 00 00 00 00 00 00 00 f9 ff 3f e6 fc 9f 8b f0 7d ef b9");
        let w64: Vec<u64> = want.iter().map(|&v| v as u64).collect();
        for writer in [Writer::Java, Writer::Cpp] {
            assert_eq!(run64(&page, false, writer, 9), Ok((w64.clone(), 20)));
        }
    }

    #[test]
    fn official_int32_page() {
        // i * i - 50 for i in 0..20, as PyPI tsfile 2.5.0 writes it: two
        // blocks (a 5-byte negative first value, widths 5 and 12) and a tail
        // of two values.
        let page =
            unhex("05 ce ff ff ff 0f 09 52 d8 d7 3d 06 1f 96 9b 71 cf 5d f9 82 0c 09 03 02 89 4d c0 00 00 00 00 00 00");
        let want: Vec<i32> = (0..20).map(|i| i * i - 50).collect();
        assert_eq!(run32(&page, false, 20), Ok((i32s(&want), page.len())));
    }

    #[test]
    fn known_answer_int64_and_negative_int32_first() {
        let page = unhex("01 ff ff ff ff ff ff ff fb 00");
        assert_eq!(run64(&page, false, Writer::Java, 9), Ok((vec![-5i64 as u64; 9], 10)));
        // A negative INT32 first value is a 5-byte uvarint of its bits.
        let page = unhex("01 ff ff ff ff 0f 00");
        assert_eq!(run32(&page, false, 9), Ok((vec![u32::MAX; 9], 7)));
        // Width 0 (never written): eight zero errors, no packed bytes.
        assert_eq!(run32(&[0, 4], false, 9), Ok((vec![4; 9], 2)));
        assert_eq!(run64(&[0; 9], true, Writer::Cpp, 9), Ok((vec![0; 9], 9)));
        // An INT64 tail: RLE run values are big-endian (one RLE run of 3 × 0x1234).
        let page = [0x83, 4, 16, 6, 0x12, 0x34];
        assert_eq!(run64(&page, false, Writer::Java, 3), Ok((vec![0x1234; 3], 6)));
        // ... and INT32 ones little-endian.
        assert_eq!(run32(&page, false, 3), Ok((vec![0x3412; 3], 6)));
    }

    #[test]
    fn known_answer_float_block_and_gorilla_tail() {
        // [1.0 x 9, 2.5]: width 1, raw first 3f800000, errors 0; tail: 2.5
        // then the NaN terminator (`11`, lz 2, sig 9, 9 bits) and the flush.
        let page = unhex("01 3f 80 00 00 00 81 40 20 00 00 c4 8f f8");
        let mut want = vec![1.0f32.to_bits(); 9];
        want.push(2.5f32.to_bits());
        assert_eq!(run32(&page, true, 10), Ok((want, 14)));
        // DOUBLE, nine 0.5.
        let page = unhex("01 3f e0 00 00 00 00 00 00 00");
        for writer in [Writer::Java, Writer::Cpp] {
            assert_eq!(run64(&page, true, writer, 9), Ok((vec![0.5f64.to_bits(); 9], 10)));
        }
    }

    #[test]
    fn official_double_page_with_nans() {
        // [NaN, 1.0 x 8, NaN, 2.0] as PyPI 2.5.0 writes it: 1.0 - NaN's bits
        // is an error of about -2^62, beyond the map, so the eight 1.0 read
        // back as -1.0 (as the official readers read them).
        let mut hex = String::from("40 7f f8 00 00 00 00 00 00 80 10");
        hex.push_str(&" 00".repeat(62));
        hex.push_str(" 82 7f f8 00 00 00 00 00 00 c2 2b ff df fc");
        let page = unhex(&hex);
        let mut want = vec![f64::NAN.to_bits()];
        want.extend([(-1.0f64).to_bits(); 8]);
        want.extend([f64::NAN.to_bits(), 2.0f64.to_bits()]);
        assert_eq!(run64(&page, true, Writer::Java, 11), Ok((want, page.len())));
        // A NaN payload in the first value stays in the output, but the
        // predictor starts from the canonical NaN: same later values.
        let mut page = page;
        page[8] = 0x01;
        let got = run64(&page, true, Writer::Java, 11).unwrap().0;
        assert_eq!(got[0], 0x7FF8_0000_0000_0001);
        assert_eq!(got[1..9], [(-1.0f64).to_bits(); 8]);
        // FLOAT: a first NaN with a payload, predicted from 0x7FC00000.
        let mut page = vec![1];
        page.extend(0xFF80_0001u32.to_be_bytes());
        page.push(0);
        let got = run32(&page, true, 9).unwrap().0;
        assert_eq!(got[0], 0xFF80_0001);
        assert_eq!(got[1..], [0x7FC0_0000; 8]);
    }

    /// Pages PyPI tsfile 2.5.0 wrote, with what its (C++) reader returned
    /// for them, and the Java reading where it differs (the notes' "Java and
    /// C++ readers"). `[0.0, -2.0 x 8, 5.0]`: -2.0 after 0.0 is an error of
    /// exactly -2^30 (-2^62), mapped to `MIN`, which the C++ reader reads as
    /// +2^30: eight +2.0. The second pair is a page of `[NaN, 1.0 x 8]`
    /// with the first value's bytes changed to a NaN with a payload (the C++
    /// writer stores NaNs canonical): the C++ reader predicts from the raw
    /// bits and reads -1.0, Java from the canonical NaN.
    #[test]
    fn official_reader_answers() {
        let f = unhex(&format!(
            "20 00 00 00 00 80 00 00 00{} 81 40 a0 00 00 c4 8f d8",
            " 00".repeat(28)
        ));
        let mut cpp = vec![0u32];
        cpp.extend([2.0f32.to_bits(); 8]);
        cpp.push(5.0f32.to_bits());
        assert_eq!(run32_as(&f, true, Writer::Cpp, 10), Ok((cpp, f.len())));
        let mut java = vec![0u32];
        java.extend([(-2.0f32).to_bits(); 8]);
        java.push(5.0f32.to_bits());
        assert_eq!(run32_as(&f, true, Writer::Java, 10), Ok((java, f.len())));
        let d = unhex(&format!(
            "40 00 00 00 00 00 00 00 00 80 00 00 00 00 00 00 00{} 81 40 14 00 00 00 00 00 00 c2 2f fe c0",
            " 00".repeat(56)
        ));
        let mut cpp = vec![0u64];
        cpp.extend([2.0f64.to_bits(); 8]);
        cpp.push(5.0f64.to_bits());
        assert_eq!(run64(&d, true, Writer::Cpp, 10), Ok((cpp, d.len())));
        assert_eq!(run64(&d, true, Writer::Java, 10).unwrap().0[1], (-2.0f64).to_bits());
        // The same errors in INT32 / INT64 pages: 0 then -2^30 (-2^62).
        let mut i = vec![0x20, 0];
        i.extend([0x80, 0, 0, 0]);
        i.extend([0; 28]);
        assert_eq!(run32_as(&i, false, Writer::Cpp, 9).unwrap().0[1], 1 << 30);
        assert_eq!(
            run32_as(&i, false, Writer::Java, 9).unwrap().0[1],
            (-(1i32 << 30)) as u32
        );
        let mut l = vec![0x40];
        l.extend([0; 8]);
        l.extend(i64::MIN.to_be_bytes());
        l.extend([0; 56]);
        assert_eq!(run64(&l, false, Writer::Cpp, 9).unwrap().0[1], 1 << 62);
        assert_eq!(run64(&l, false, Writer::Java, 9).unwrap().0[1], (-(1i64 << 62)) as u64);

        let f = unhex(&format!("20 7f c0 01 00 80 80 02 00{}", " 00".repeat(28)));
        let mut cpp = vec![0x7FC0_0100];
        cpp.extend([(-1.0f32).to_bits(); 8]);
        assert_eq!(run32_as(&f, true, Writer::Cpp, 9), Ok((cpp, f.len())));
        assert_eq!(run32_as(&f, true, Writer::Java, 9).unwrap().0[1..], [0xBF7F_FF00; 8]);
        let d = unhex(&format!(
            "40 7f f8 00 20 00 00 00 00 80 10 00 40 00 00 00 00{}",
            " 00".repeat(56)
        ));
        let mut cpp = vec![0x7FF8_0020_0000_0000];
        cpp.extend([(-1.0f64).to_bits(); 8]);
        assert_eq!(run64(&d, true, Writer::Cpp, 9), Ok((cpp, d.len())));
        assert_ne!(run64(&d, true, Writer::Java, 9).unwrap().0[1], (-1.0f64).to_bits());
    }

    /// The two INT64 / DOUBLE predictors part once `alpha * delta` passes
    /// 2^63: a block whose first errors build a large accumulator and delta.
    #[test]
    fn java_and_cpp_predictors_differ_on_wide_products() {
        // Errors (before the map): e1 = 0x7FFF_FFF8 (the delta that trains
        // the int accumulator to 0x7FFF_FFF8 when e2 > 0), e2 = 2^40, then
        // 1, 1, ...: the third prediction multiplies alpha ≈ 2^28 by 2^40.
        let errs: [i64; 8] = [0x7FFF_FFF8, 1 << 40, 1, 1, 1, 1, 1, 1];
        let mapped: Vec<u64> = errs
            .iter()
            .map(|&e| {
                if e <= 0 {
                    e.wrapping_mul(-2) as u64
                } else {
                    (e * 2 - 1) as u64
                }
            })
            .collect();
        let width = 64 - mapped.iter().map(|m| m.leading_zeros()).min().unwrap();
        assert_eq!(width, 41);
        let first = 7u64;
        let mut page = vec![width as u8];
        page.extend(first.to_be_bytes());
        page.extend(pack(&mapped, width));
        // A model of both predictors, written apart from the kernel's.
        let model = |wide: bool| {
            let (mut acc, mut delta, mut pre) = (0i64, 0i64, first as i64);
            let mut out = vec![first];
            for &e in &errs {
                let product = ((acc as i32) >> 3) as i128 * delta as i128;
                let adjust = if wide {
                    (product >> 16) as i64
                } else {
                    (product as i64) >> 16
                };
                let val = pre.wrapping_add(adjust).wrapping_add(e);
                acc = (acc - if e > 0 { -delta } else { delta }) as i32 as i64;
                delta = val.wrapping_sub(pre);
                pre = val;
                out.push(val as u64);
            }
            out
        };
        let (java, cpp) = (model(false), model(true));
        assert_ne!(java, cpp);
        assert_eq!(java[..3], cpp[..3]);
        assert_eq!(run64(&page, false, Writer::Java, 9), Ok((java.clone(), page.len())));
        assert_eq!(run64(&page, false, Writer::Cpp, 9), Ok((cpp.clone(), page.len())));
        assert_eq!(run64(&page, true, Writer::Java, 9), Ok((java, page.len())));
        assert_eq!(run64(&page, true, Writer::Cpp, 9), Ok((cpp, page.len())));
    }

    #[test]
    fn every_width_round_trips_through_a_model_encoder() {
        // The kernel against a slow forward model: for every width, a block
        // of errors with the top one at that width.
        let mut next = crate::xorshift(0x1234_5678_9ABC_DEF1);
        // Under Miri (which checks every unaligned load of the unpacking) one
        // block per width keeps the run to seconds; every width stays.
        let blocks_per_width = if cfg!(miri) { 1 } else { 4 };
        for width in 1..=64u32 {
            for _ in 0..blocks_per_width {
                let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                let mut mapped: Vec<u64> = (0..8).map(|_| next() & mask).collect();
                mapped[(next() % 8) as usize] |= 1 << (width - 1);
                let first = next();
                // 64-bit model (Java).
                let (mut acc, mut delta, mut pre) = (0i32, 0i64, first as i64);
                let mut want = vec![first];
                for &m in &mapped {
                    let e = if m % 2 == 0 {
                        (m as i64).wrapping_neg() / 2
                    } else {
                        (m as i64).wrapping_add(1) / 2
                    };
                    let val = pre
                        .wrapping_add(((acc >> 3) as i64).wrapping_mul(delta) >> 16)
                        .wrapping_add(e);
                    acc = (acc as i64).wrapping_sub(if e > 0 { delta.wrapping_neg() } else { delta }) as i32;
                    delta = val.wrapping_sub(pre);
                    pre = val;
                    want.push(val as u64);
                }
                let mut page = vec![width as u8];
                page.extend(first.to_be_bytes());
                page.extend(pack(&mapped, width));
                assert_eq!(
                    run64(&page, false, Writer::Java, 9),
                    Ok((want, page.len())),
                    "width {width}"
                );
                if width > 32 {
                    continue;
                }
                // 32-bit model.
                let first = first as u32;
                // FLOAT: the predictor starts from floatToIntBits (a NaN canonical).
                let start = if first & 0x7FFF_FFFF > 0x7F80_0000 {
                    0x7FC0_0000
                } else {
                    first
                };
                let (mut acc, mut delta, mut pre) = (0i32, 0i32, start as i32);
                let mut want = vec![first];
                for &m in &mapped {
                    let m = m as i32;
                    let e = if m % 2 == 0 {
                        m.wrapping_neg() / 2
                    } else {
                        m.wrapping_add(1) / 2
                    };
                    let val = pre.wrapping_add((acc >> 2).wrapping_mul(delta) >> 8).wrapping_add(e);
                    acc = acc.wrapping_sub(if e > 0 { delta.wrapping_neg() } else { delta });
                    delta = val.wrapping_sub(pre);
                    pre = val;
                    want.push(val as u32);
                }
                let mut page = vec![width as u8];
                page.extend(first.to_be_bytes());
                page.extend(pack(&mapped, width));
                // Two blocks back to back: the predictor restarts.
                let twice = [page.clone(), page.clone()].concat();
                let mut want2 = want.clone();
                want2.extend(&want);
                assert_eq!(run32(&twice, true, 18), Ok((want2, twice.len())), "width {width}");
            }
        }
    }

    #[test]
    fn full_block_errors_in_order() {
        // Width above the type's → BadBitWidth, before the limit is checked.
        assert_eq!(
            run32(&[33, 0], false, 0),
            Err(DecodeError::BadBitWidth {
                width: 33,
                max: 32,
                offset: 0
            })
        );
        assert_eq!(
            run64(&[0x7F], true, Writer::Cpp, 0),
            Err(DecodeError::BadBitWidth {
                width: 127,
                max: 64,
                offset: 0
            })
        );
        // The limit before the first value.
        assert_eq!(
            run32(&[1], false, 8),
            Err(DecodeError::TooManyValues { max: 8, offset: 0 })
        );
        // A first value cut short: at its own start.
        assert_eq!(run32(&[1], false, 9), Err(tr(Field::SprintzFirst, 1)));
        assert_eq!(run32(&[1, 0x80, 0x80], false, 9), Err(tr(Field::SprintzFirst, 1)));
        assert_eq!(run32(&[1, 0, 0, 0], true, 9), Err(tr(Field::SprintzFirst, 1)));
        assert_eq!(
            run64(&[1, 0, 0, 0, 0, 0, 0, 0], false, Writer::Java, 9),
            Err(tr(Field::SprintzFirst, 1))
        );
        // A first value too long for an int.
        assert_eq!(
            run32(&[1, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0], false, 9),
            Err(DecodeError::BadVarint { offset: 1 })
        );
        // Packed errors cut short: at their start.
        assert_eq!(run32(&[1, 0], false, 9), Err(tr(Field::SprintzPacked, 2)));
        assert_eq!(run32(&[3, 5, 0, 0], false, 9), Err(tr(Field::SprintzPacked, 2)));
        assert_eq!(run32(&[1, 0, 0, 0, 0], true, 9), Err(tr(Field::SprintzPacked, 5)));
        let mut page = vec![64];
        page.extend([0; 8 + 63]);
        assert_eq!(run64(&page, true, Writer::Java, 9), Err(tr(Field::SprintzPacked, 9)));
        page.push(0);
        assert_eq!(run64(&page, true, Writer::Java, 9), Ok((vec![0; 9], 73)));
    }

    #[test]
    fn a_later_block_over_the_limit() {
        // Two blocks of nine zeros: the second, at byte 3, does not fit 17.
        let page = [1, 0, 0, 1, 0, 0];
        assert_eq!(
            run32(&page, false, 17),
            Err(DecodeError::TooManyValues { max: 17, offset: 3 })
        );
        assert_eq!(run32(&page, false, 18), Ok((vec![0; 18], 6)));
        // A tail that does not fit after a block.
        let page = unhex("01 01 ff 81 07 04 03 01 a0 00 00 00");
        assert_eq!(
            run32(&page, false, 9),
            Err(DecodeError::TooManyValues { max: 9, offset: 3 })
        );
    }

    #[test]
    fn int_tail_errors() {
        let page = unhex("01 01 ff 81 07 04 03 01 a0 00 00 00");
        // Tail sizes 0 and 9.. are refused before anything else.
        for (size, max) in [(0x80u8, 0), (0x89, 20), (0xFF, 20)] {
            assert_eq!(
                run32(&[size, 3, 1, 2, 5], false, max),
                Err(tail_count(i64::from(size & 0x7F), 0))
            );
        }
        // The tail's size before the limit; the limit before the package.
        assert_eq!(
            run32(&[0x82], false, 1),
            Err(DecodeError::TooManyValues { max: 1, offset: 0 })
        );
        assert_eq!(run32(&[0x82], false, 2), Err(tr(Field::RleLength, 1)));
        // The package's length cut short, or longer than the page.
        assert_eq!(run32(&page[..4], false, 20), Err(tr(Field::RleLength, 4)));
        assert_eq!(
            run32(&page[..6], false, 20),
            Err(DecodeError::BadCount {
                field: Field::RleLength,
                count: 7,
                offset: 4
            })
        );
        // A package of another count of values.
        let mut bad = page.clone();
        bad[3] = 0x82;
        assert_eq!(run32(&bad, false, 20), Err(tail_count(2, 3)));
        // The package's own errors, at page offsets.
        let mut bad = page.clone();
        bad[5] = 40;
        assert_eq!(
            run32(&bad, false, 20),
            Err(DecodeError::BadBitWidth {
                width: 40,
                max: 32,
                offset: 5
            })
        );
        // A package with more than size + 8 values: the tail's size, not
        // the run after (an RLE run of 11, then a broken run header 0).
        let page = [0x82, 4, 8, 22, 1, 0];
        assert_eq!(run32(&page, false, 20), Err(tail_count(2, 0)));
        // With a run of 10 (fits size + 8) the broken run is reached.
        let page = [0x82, 4, 8, 20, 1, 0];
        assert_eq!(
            run32(&page, false, 20),
            Err(DecodeError::BadCount {
                field: Field::RunHeader,
                count: 0,
                offset: 5
            })
        );
        // An empty package (width only) holds no values.
        assert_eq!(run64(&[0x81, 1, 8], false, Writer::Java, 20), Err(tail_count(1, 0)));
    }

    #[test]
    fn float_tail_errors() {
        // 81 40 20 00 00 c4 8f f8: 2.5, the terminator, flushed.
        let page = unhex("81 40 20 00 00 c4 8f f8");
        assert_eq!(run32(&page, true, 1), Ok((vec![2.5f32.to_bits()], 8)));
        assert_eq!(run32(&page[..3], true, 9), Err(tr(Field::GorillaFirst, 1)));
        assert_eq!(
            run32(&page[..7], true, 9),
            Err(DecodeError::Truncated {
                field: Field::GorillaBits,
                offset: 6,
                bit: 4
            })
        );
        // A terminator that ends on a byte boundary needs its flush byte.
        // value 0x7FC0000F, then `11`, lz 28 (5 bits), sig 4 → 3, bits 1111:
        // 48 bits.
        let bad = unhex("81 7f c0 00 0f f8 3f");
        assert_eq!(run32(&bad, true, 9), Err(tr(Field::GorillaFlush, 7)));
        let mut good = bad.clone();
        good.push(0);
        assert_eq!(run32(&good, true, 9), Ok((vec![0x7FC0_000F], 8)));
        // The value after the tail's values is not the terminator: 1, then
        // `11` lz 30 sig 2 `11` → 2.
        let bad = [0x81, 0, 0, 0, 1, 0xFC, 0x1C];
        assert_eq!(run32(&bad, true, 9), Err(tail_count(1, 0)));
        // A window reuse before any window, at its page position.
        assert_eq!(
            run32(&[0x81, 0, 0, 0, 1, 0x80], true, 9),
            Err(DecodeError::NoWindow { offset: 5, bit: 0 })
        );
        // DOUBLE tails of canonical NaNs: the `0` controls repeat the NaN,
        // and the repeat after the tail's values is the terminator. Its flush
        // byte is the partly used byte 9.
        for size in [1u8, 2] {
            let mut page = vec![0x80 | size];
            page.extend(0x7FF8_0000_0000_0000u64.to_be_bytes());
            page.push(0);
            let want = vec![0x7FF8_0000_0000_0000; size as usize];
            assert_eq!(run64(&page, true, Writer::Java, 9), Ok((want, 10)));
            // Without that byte the repeat's control bit (page byte 9) is missing.
            assert_eq!(
                run64(&page[..9], true, Writer::Java, 9),
                Err(DecodeError::Truncated {
                    field: Field::GorillaControl,
                    offset: 9,
                    bit: 0
                })
            );
        }
        // A tail of one non-NaN value repeated: the repeat is not the
        // terminator.
        let mut page = vec![0x81];
        page.extend(1.5f64.to_bits().to_be_bytes());
        page.push(0);
        assert_eq!(run64(&page, true, Writer::Java, 9), Err(tail_count(1, 0)));
    }

    #[test]
    fn empty_page_and_registry_names() {
        assert_eq!(run32(&[], false, 0), Ok((vec![], 0)));
        assert_eq!(run64(&[], true, Writer::Cpp, 0), Ok((vec![], 0)));
        let names32: Vec<_> = IMPLEMENTATIONS_32.iter().map(|i| i.name).collect();
        let names64: Vec<_> = IMPLEMENTATIONS_64.iter().map(|i| i.name).collect();
        assert_eq!(names32, names64);
        assert_eq!(names32[0], "sprintz/fused");
    }

    /// Random and mutated pages: no panic, every entry point the same result.
    #[test]
    fn mutated_pages_agree_across_entry_points() {
        let mut next = crate::xorshift(0xC0FF_EE00_1234_5678);
        let base =
            unhex("05 ce ff ff ff 0f 09 52 d8 d7 3d 06 1f 96 9b 71 cf 5d f9 82 0c 09 03 02 89 4d c0 00 00 00 00 00 00");
        let rounds = if cfg!(miri) { 30 } else { 3000 };
        for _ in 0..rounds {
            let mut page = base.clone();
            for _ in 0..1 + next() % 3 {
                let i = (next() as usize) % page.len();
                page[i] ^= 1 << (next() % 8);
            }
            let cut = (next() as usize) % (page.len() + 1);
            let max = (next() as usize) % 30;
            let _ = run32(&page[..cut], false, max);
            let _ = run32(&page[..cut], true, max);
            let _ = run64(&page[..cut], false, Writer::Java, max);
            let _ = run64(&page[..cut], true, Writer::Cpp, max);
        }
    }
}
