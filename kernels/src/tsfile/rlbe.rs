//! RLBE (encoding id 13) for INT32, INT64, FLOAT and DOUBLE, from
//! `docs/reference/tsfile-encodings.md`: blocks until the page ends, each a 32-bit
//! count (1..=10 000), then segments — a 6-bit (32-bit types) or 7-bit
//! (64-bit types) length code `L` (1..=W), a Fibonacci-coded run length `n`
//! (Zeckendorf digits least significant first, ended by an extra 1, so the
//! code ends in the first `11`), then `n` values of `L` bits — all MSB-first,
//! the block padded to a byte. The block's first stored word is its first
//! value, the others are deltas added to the previous value (wrapping
//! integers; Java's FLOAT / DOUBLE: float differences added in f32 / f64).
//! A full-width word (`L == W`) gets its top bit set, whatever was written.
//!
//! `rlbe/word64` reads the fields from unaligned big-endian 8-byte loads
//! at a field's byte, shifted to its bit (at least 57 valid bits). A
//! segment's length code and run code come from one load: the code's end
//! is the first set bit of `w & (w << 1)` (its leading zeros), and the run
//! is the sum of the Fibonacci numbers of the digits before it, looked up
//! in a 4096-entry table when the code ends in its first 12 bits (runs up
//! to 608), else summed digit by digit. Runs of one and two skip the
//! table and the loop (see `decode`). A longer run's values are unpacked in a
//! tight loop of one load, two shifts and an add each (64-bit values: a
//! 9-byte window, with no branch on the alignment). Only a Fibonacci code
//! with no `11` in its first 50 bits (never in a valid page: a run of
//! 10 000 takes 20) goes bit by bit. Only a page's last 8 (9) bytes go
//! through a zero-padded copy. Errors come in the order the format's
//! reader meets them (per block the count, then per segment the length
//! code, the run and the values); no `unsafe`.

use super::{DecodeError, Done, Field, Lane};
use crate::probe::{NoProbe, Probe, Step};

/// Values per block at most (the writers' block size).
pub const BLOCK: usize = 10_000;

/// Which FLOAT / DOUBLE layout a page has: the two writers differ (see the
/// notes); nothing in the page says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// Java: the first value's bits, then float differences as their bit
    /// patterns, added up in f32 / f64.
    JavaFloatDiffs,
    /// C++: the integer RLBE over the values' raw bits.
    CppBits,
}

/// How the registry functions add a block's stored words up: every type
/// and flavour is one of these over the values' bit patterns.
///
/// | page                         | `Sum`        |
/// |------------------------------|--------------|
/// | INT32 / INT64 (TIMESTAMP)    | `Int`        |
/// | FLOAT / DOUBLE, `CppBits`    | `Int`        |
/// | FLOAT / DOUBLE, `JavaFloatDiffs` | `FloatDiffs` |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sum {
    /// Wrapping integer deltas (in the width of the registry's lane).
    Int,
    /// Float differences: `f32` sums for the 32-bit lane, `f64` for the
    /// 64-bit one.
    FloatDiffs,
}

impl From<Flavour> for Sum {
    fn from(flavour: Flavour) -> Self {
        match flavour {
            Flavour::JavaFloatDiffs => Sum::FloatDiffs,
            Flavour::CppBits => Sum::Int,
        }
    }
}

/// `FIB[k]` = F(k + 2): what bit `k` of a run code stands for (1, 2, 3, 5,
/// ...). Bits 0..=63 of the fast path never pass F(65) < 2^64.
const FIB: [u64; 64] = {
    let mut f = [0u64; 64];
    f[0] = 1;
    f[1] = 2;
    let mut k = 2;
    while k < 64 {
        f[k] = f[k - 1] + f[k - 2];
        k += 1;
    }
    f
};

/// Digits of a run code looked up at once: codes ending (their `11`) in
/// the first 12 bits, runs up to 608.
const RUN_TABLE_BITS: u32 = 12;

/// `RUN_TABLE[d]`: the run of the digits `d`, digit 0 its top bit.
const RUN_TABLE: [u16; 1 << RUN_TABLE_BITS] = {
    let mut t = [0u16; 1 << RUN_TABLE_BITS];
    let mut d = 0;
    while d < t.len() {
        let mut j = 0;
        let mut sum = 0u64;
        while j < RUN_TABLE_BITS {
            if d >> (RUN_TABLE_BITS - 1 - j) & 1 == 1 {
                sum += FIB[j as usize];
            }
            j += 1;
        }
        t[d] = sum as u16;
        d += 1;
    }
    t
};

/// The run of the digits in `digits` (digit `j` at bit `63 - j`, none
/// past 62).
fn digit_sum(mut digits: u64) -> u64 {
    let mut run = 0;
    while digits != 0 {
        let j = digits.leading_zeros();
        run += FIB[j as usize];
        digits &= !(1u64 << (63 - j));
    }
    run
}

/// The error of a code whose run passes `left`: at the first digit whose
/// sum does (the code starts at bit `at`).
#[cold]
#[inline(never)]
fn run_too_long(mut digits: u64, left: u64, at: usize) -> DecodeError {
    let mut run = 0u64;
    while digits != 0 {
        let j = digits.leading_zeros();
        run += FIB[j as usize];
        if run > left {
            break;
        }
        digits &= !(1u64 << (63 - j));
    }
    DecodeError::BadCount {
        field: Field::RlbeRun,
        count: run as i64,
        offset: at / 8,
    }
}

/// Adds a stored word to the previous value. The running value lives in
/// `Acc`, the type its additions are made in (a float stays in a float
/// register from one value to the next: moving it to an integer register
/// and back would put both moves on the chain of additions).
trait Adder {
    /// Whether a sum rounds (float differences): only then is a run of
    /// zero words worth finding.
    const ROUNDS: bool;
    type Acc: Copy;
    /// The value whose bits are the low `W` bits of `bits`.
    fn load(bits: u64) -> Self::Acc;
    fn add(acc: Self::Acc, word: u64) -> Self::Acc;
    /// The value's bits, in the low `W` bits.
    fn bits(acc: Self::Acc) -> u64;
}

struct Int32;
struct Int64;
struct F32Diffs;
struct F64Diffs;

impl Adder for Int32 {
    const ROUNDS: bool = false;
    type Acc = u32;
    #[inline(always)]
    fn load(bits: u64) -> u32 {
        bits as u32
    }
    #[inline(always)]
    fn add(acc: u32, word: u64) -> u32 {
        acc.wrapping_add(word as u32)
    }
    #[inline(always)]
    fn bits(acc: u32) -> u64 {
        u64::from(acc)
    }
}
impl Adder for Int64 {
    const ROUNDS: bool = false;
    type Acc = u64;
    #[inline(always)]
    fn load(bits: u64) -> u64 {
        bits
    }
    #[inline(always)]
    fn add(acc: u64, word: u64) -> u64 {
        acc.wrapping_add(word)
    }
    #[inline(always)]
    fn bits(acc: u64) -> u64 {
        acc
    }
}
// The float sums' NaN payloads. IEEE 754 leaves open which NaN operand a
// sum passes on, and Rust (like Java) does not pin it: the machine code
// decides (on x86-64 SSE, `addss` / `addsd` pass their first operand's),
// and inf - inf is negative on x86-64, positive elsewhere. The notes fix
// it: a NaN difference wins, then a NaN previous value, each quieted; a NaN
// made from two non-NaNs is the canonical (positive, quiet) NaN.
impl Adder for F32Diffs {
    const ROUNDS: bool = true;
    type Acc = f32;
    #[inline(always)]
    fn load(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
    #[inline(always)]
    fn add(acc: f32, word: u64) -> f32 {
        let sum = acc + f32::from_bits(word as u32);
        if sum.is_nan() {
            f32::from_bits(nan32(acc.to_bits(), word as u32) as u32)
        } else {
            sum
        }
    }
    #[inline(always)]
    fn bits(acc: f32) -> u64 {
        u64::from(acc.to_bits())
    }
}
impl Adder for F64Diffs {
    const ROUNDS: bool = true;
    type Acc = f64;
    #[inline(always)]
    fn load(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    #[inline(always)]
    fn add(acc: f64, word: u64) -> f64 {
        let sum = acc + f64::from_bits(word);
        if sum.is_nan() {
            f64::from_bits(nan64(acc.to_bits(), word))
        } else {
            sum
        }
    }
    #[inline(always)]
    fn bits(acc: f64) -> u64 {
        acc.to_bits()
    }
}

/// A NaN f32 sum: see the note above [`F32Diffs`]'s `add`.
#[cold]
#[inline(never)]
fn nan32(prev: u32, word: u32) -> u64 {
    const QUIET: u32 = 1 << 22;
    u64::from(if f32::from_bits(word).is_nan() {
        word | QUIET
    } else if f32::from_bits(prev).is_nan() {
        prev | QUIET
    } else {
        0x7FC0_0000
    })
}

/// A NaN f64 sum: see the note above [`F32Diffs`]'s `add`.
#[cold]
#[inline(never)]
fn nan64(prev: u64, word: u64) -> u64 {
    const QUIET: u64 = 1 << 51;
    if f64::from_bits(word).is_nan() {
        word | QUIET
    } else if f64::from_bits(prev).is_nan() {
        prev | QUIET
    } else {
        0x7FF8_0000_0000_0000
    }
}

fn truncated(field: Field, at: usize) -> DecodeError {
    DecodeError::Truncated {
        field,
        offset: at / 8,
        bit: (at % 8) as u8,
    }
}

/// Whether a segment's `need` bits of `len`-bit values from bit `pos` are
/// all in the page; if not, the error at the first value that is not.
#[inline(always)]
fn values_fit(pos: usize, need: usize, len: u32, total: usize) -> Result<(), DecodeError> {
    if pos + need > total {
        let fit = (total - pos.min(total)) / len as usize;
        return Err(truncated(Field::RlbeValue, pos + fit * len as usize));
    }
    Ok(())
}

/// 64 bits from bit `pos`, MSB-aligned: at least `64 - pos % 8` of them are
/// the page's (bits past its end read as 0).
#[inline(always)]
fn peek64(page: &[u8], pos: usize) -> u64 {
    let at = pos / 8;
    let window = match page.get(at..at + 8) {
        Some(w) => u64::from_be_bytes(w.try_into().expect("8 bytes")),
        None => tail64(page, at),
    };
    window << (pos % 8)
}

/// The last (fewer than 8) bytes from `at`, zero-padded to 8.
#[cold]
#[inline(never)]
fn tail64(page: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    let rest = page.get(at..).unwrap_or(&[]);
    let n = rest.len().min(8);
    w[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(w)
}

/// `len` (1..=64) bits from bit `pos`, without a branch on the alignment:
/// the 8-byte window plus the next byte's top `pos % 8` bits.
#[inline(always)]
fn read_wide(page: &[u8], pos: usize, len: u32) -> u64 {
    let at = pos / 8;
    let skip = (pos % 8) as u32;
    let b: [u8; 9] = match page.get(at..at + 9) {
        Some(b) => b.try_into().expect("9 bytes"),
        None => tail72(page, at),
    };
    let hi = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    // skip = 0: the next byte shifted out whole.
    ((hi << skip) | (u64::from(b[8]) >> (8 - skip))) >> (64 - len)
}

/// The last (fewer than 9) bytes from `at`, zero-padded to 9.
#[cold]
#[inline(never)]
fn tail72(page: &[u8], at: usize) -> [u8; 9] {
    let mut w = [0u8; 9];
    let rest = page.get(at..).unwrap_or(&[]);
    let n = rest.len().min(9);
    w[..n].copy_from_slice(&rest[..n]);
    w
}

/// `len` (1..=W) bits from bit `pos`: for 32-bit values the 8-byte window
/// holds them all; 64-bit ones take the 9-byte read.
#[inline(always)]
fn read<const W: u32>(page: &[u8], pos: usize, len: u32) -> u64 {
    if W == 64 {
        read_wide(page, pos, len)
    } else {
        peek64(page, pos) >> (64 - len)
    }
}

/// Whether the `bits` bits from bit `pos` (inside the page) are all zero.
#[inline]
fn zero_bits(page: &[u8], mut pos: usize, mut bits: usize) -> bool {
    while bits > 0 {
        let take = bits.min(56);
        if peek64(page, pos) >> (64 - take) != 0 {
            return false;
        }
        pos += take;
        bits -= take;
    }
    true
}

/// Unpack `out.len()` words of `len` bits (1..=W) from bit `pos` (all inside the
/// page), each ORed with `top`, summed onto `prev`; returns the last value.
/// A float run whose words are all zero (repeated values) is one addition:
/// `x + 0` is `x` again for every `x` it can give (not -0, which it turns to
/// +0, and a NaN it has quieted). An empty run may take that addition too:
/// it comes only after a block's first value, which is -0 or negative only
/// as a full-width word, and a NaN's quieting changes no later sum.
#[inline(always)]
fn unpack<const W: u32, A: Adder, T: Lane, P: Probe>(
    page: &[u8],
    mut pos: usize,
    len: u32,
    top: u64,
    prev: u64,
    out: &mut [T],
) -> u64 {
    let mut acc = A::load(prev);
    if A::ROUNDS && top == 0 && zero_bits(page, pos, out.len() * len as usize) {
        P::count(Step::RlbeZeroRun, out.len());
        acc = A::add(acc, 0);
        out.fill(T::from_bits(A::bits(acc)));
        return A::bits(acc);
    }
    for slot in out {
        let word = read::<W>(page, pos, len) | top;
        acc = A::add(acc, word);
        *slot = T::from_bits(A::bits(acc));
        pos += len as usize;
    }
    A::bits(acc)
}

/// The run length of a Fibonacci code at bit `at`, bit by bit as the
/// format's reader goes (for codes with no `11` in their first 64 bits):
/// bits `k` and `k + 1` are read before bit `k` is added, the sum is
/// checked against `left` after each addition (saturating, so no
/// overflow), and the code ends at the first `11`. Returns the run and the
/// bit after the code.
#[cold]
#[inline(never)]
fn run_slow(page: &[u8], total: usize, at: usize, left: u64) -> Result<(u64, usize), DecodeError> {
    let bit = |p: usize| -> Result<bool, DecodeError> {
        if p < total {
            Ok((page[p / 8] >> (7 - p % 8)) & 1 == 1)
        } else {
            Err(truncated(Field::RlbeRun, at))
        }
    };
    let mut run: u64 = 0;
    let (mut f_prev, mut f) = (1u64, 1u64);
    let mut now = bit(at)?;
    let mut next = bit(at + 1)?;
    let mut p = at + 2;
    loop {
        if now {
            run = run.saturating_add(f);
            if run > left {
                return Err(DecodeError::BadCount {
                    field: Field::RlbeRun,
                    count: run.min(i64::MAX as u64) as i64,
                    offset: at / 8,
                });
            }
        }
        if now && next {
            return Ok((run, p));
        }
        (f_prev, f) = (f, f.saturating_add(f_prev));
        now = next;
        next = bit(p)?;
        p += 1;
    }
}

/// Decode a page of `W`-bit values (32 or 64) summed by `A` into `out`
/// (its length is the most values accepted).
///
/// Per block, in this order: the count (`Truncated{RlbeCount}` if fewer
/// than 4 bytes; `BadCount{RlbeCount}` if 0 or above [`BLOCK`];
/// `TooManyValues` at the block's byte if more than `out` has left); per
/// segment: the length code (`Truncated{RlbeLength}`, then
/// `BadBitWidth` for 0 or above W), the run (`Truncated{RlbeRun}` at the
/// code's first bit if fewer than 2 bits, or if the page ends before the
/// terminator; `BadCount{RlbeRun}` at the code's byte as soon as the sum so
/// far passes the values left in the block), the values
/// (`Truncated{RlbeValue}` at the first value that does not fit).
fn decode<const W: u32, A: Adder, T: Lane, P: Probe>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    let code_bits: u32 = if W == 32 { 6 } else { 7 };
    let top = 1u64 << (W - 1);
    let total = page.len().saturating_mul(8);
    let max = out.len();
    let mut n = 0usize;
    let mut pos = 0usize;
    while pos / 8 < page.len() {
        let block = pos / 8;
        let count = super::be_u32(page, block).ok_or(truncated(Field::RlbeCount, pos))? as usize;
        if count == 0 || count > BLOCK {
            return Err(DecodeError::BadCount {
                field: Field::RlbeCount,
                count: count as i64,
                offset: block,
            });
        }
        if count > max - n {
            return Err(DecodeError::TooManyValues { max, offset: block });
        }
        pos += 32;
        let block_out = &mut out[n..n + count];
        let mut filled = 0usize;
        let mut prev = 0u64;
        while filled < count {
            // Length code and run: one window, the code's bits after the
            // length's (at least 50 of them).
            if pos + code_bits as usize > total {
                return Err(truncated(Field::RlbeLength, pos));
            }
            let head = peek64(page, pos);
            let len = (head >> (64 - code_bits)) as u32;
            if len == 0 || len > W {
                return Err(DecodeError::BadBitWidth {
                    width: i64::from(len),
                    max: W,
                    offset: pos / 8,
                });
            }
            pos += code_bits as usize;
            let left = (count - filled) as u64;
            let window = head << code_bits;
            let pairs = window & (window << 1);
            let or = if len == W { top } else { 0 };
            if pairs.leading_zeros() < 2 && filled != 0 && left >= 2 {
                // Runs of one (code `11`) and two (`011`): most segments of
                // a varying series, in no predictable order. The run is the
                // code's end plus one, so the next segment's position needs
                // no table. Both values are decoded and stored, and the run
                // picks which sum goes on; a second value that is not the
                // segment's is read from the page's next bits and stored in
                // a slot of this block that a later segment overwrites.
                let k = pairs.leading_zeros();
                pos += k as usize + 2;
                let need = (len as usize) << k;
                values_fit(pos, need, len, total)?;
                let first = A::add(A::load(prev), read::<W>(page, pos, len) | or);
                let second = A::add(first, read::<W>(page, pos + len as usize, len) | or);
                block_out[filled] = T::from_bits(A::bits(first));
                block_out[filled + 1] = T::from_bits(A::bits(second));
                prev = if k == 1 { A::bits(second) } else { A::bits(first) };
                pos += need;
                filled += k as usize + 1;
                continue;
            }
            let run = if pairs != 0 {
                // Bits 0..=k are the code's digits, bit k + 1 its end: the
                // first `11`. Both bits of a pair are the page's (bits past
                // its end read 0).
                let k = pairs.leading_zeros();
                let digits = window & !(u64::MAX >> (k + 1));
                let run = if k < RUN_TABLE_BITS {
                    u64::from(RUN_TABLE[(digits >> (64 - RUN_TABLE_BITS)) as usize])
                } else {
                    digit_sum(digits)
                };
                // The sums of the digits so far only grow: one passes the
                // values left iff the whole does.
                if run > left {
                    return Err(run_too_long(digits, left, pos));
                }
                pos += k as usize + 2;
                run as usize
            } else {
                let (run, end) = run_slow(page, total, pos, left)?;
                pos = end;
                run as usize
            };
            // Values.
            let need = run * len as usize;
            values_fit(pos, need, len, total)?;
            let seg = &mut block_out[filled..filled + run];
            let (seg, first) = if filled == 0 {
                // The block's first value is stored as is.
                let v = read::<W>(page, pos, len) | or;
                prev = v;
                seg[0] = T::from_bits(v);
                (&mut seg[1..], pos + len as usize)
            } else {
                (seg, pos)
            };
            prev = unpack::<W, A, T, P>(page, first, len, or, prev, seg);
            pos += need;
            filled += run;
        }
        n += count;
        // The block ends on a byte boundary.
        pos = pos.div_ceil(8) * 8;
    }
    Ok(Done {
        values: n,
        consumed: pos / 8,
    })
}

/// Decode an INT32 page into `out` (its length: the most values accepted).
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, Int32, i32, NoProbe>(page, out)
}

/// Decode an INT64 (or TIMESTAMP) page.
pub fn decode_i64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, Int64, i64, NoProbe>(page, out)
}

/// Decode a FLOAT page written by the given flavour's writer.
pub fn decode_f32_into(page: &[u8], flavour: Flavour, out: &mut [f32]) -> Result<Done, DecodeError> {
    match flavour {
        Flavour::JavaFloatDiffs => decode::<32, F32Diffs, f32, NoProbe>(page, out),
        Flavour::CppBits => decode::<32, Int32, f32, NoProbe>(page, out),
    }
}

/// Decode a DOUBLE page written by the given flavour's writer.
pub fn decode_f64_into(page: &[u8], flavour: Flavour, out: &mut [f64]) -> Result<Done, DecodeError> {
    match flavour {
        Flavour::JavaFloatDiffs => decode::<64, F64Diffs, f64, NoProbe>(page, out),
        Flavour::CppBits => decode::<64, Int64, f64, NoProbe>(page, out),
    }
}

/// 32-bit patterns (INT32, or FLOAT bits with `Sum::from(flavour)`).
pub fn decode32_into(page: &[u8], sum: Sum, out: &mut [u32]) -> Result<Done, DecodeError> {
    match sum {
        Sum::Int => decode::<32, Int32, u32, NoProbe>(page, out),
        Sum::FloatDiffs => decode::<32, F32Diffs, u32, NoProbe>(page, out),
    }
}

/// 64-bit patterns (INT64 / TIMESTAMP, or DOUBLE bits with
/// `Sum::from(flavour)`).
pub fn decode64_into(page: &[u8], sum: Sum, out: &mut [u64]) -> Result<Done, DecodeError> {
    match sum {
        Sum::Int => decode::<64, Int64, u64, NoProbe>(page, out),
        Sum::FloatDiffs => decode::<64, F64Diffs, u64, NoProbe>(page, out),
    }
}

/// The registry's form: bit patterns, the sum chosen by type and flavour
/// (INT32 / INT64 and `CppBits`: [`Sum::Int`]; `JavaFloatDiffs`:
/// [`Sum::FloatDiffs`]).
pub type Decode32 = fn(&[u8], Sum, &mut [u32]) -> Result<Done, DecodeError>;
pub type Decode64 = fn(&[u8], Sum, &mut [u64]) -> Result<Done, DecodeError>;

/// 32-bit implementations, best first.
pub static IMPLEMENTATIONS_32: &[crate::Implementation<Decode32>] =
    &[crate::Implementation::portable("rlbe/word64", decode32_into)];

/// 64-bit implementations, best first.
pub static IMPLEMENTATIONS_64: &[crate::Implementation<Decode64>] =
    &[crate::Implementation::portable("rlbe/word64", decode64_into)];

#[cfg(test)]
mod tests {
    use super::*;

    /// MSB-first bit writer for hand-built pages.
    #[derive(Default)]
    struct Bits {
        bytes: Vec<u8>,
        len: usize,
    }

    impl Bits {
        fn put(&mut self, v: u64, n: u32) -> &mut Self {
            for k in (0..n).rev() {
                if self.len.is_multiple_of(8) {
                    self.bytes.push(0);
                }
                // Bits above 64 are 0 (long runs of zeros).
                let bit = v.checked_shr(k).unwrap_or(0) as u8 & 1;
                *self.bytes.last_mut().unwrap() |= bit << (7 - self.len % 8);
                self.len += 1;
            }
            self
        }
        /// The Fibonacci code of `n >= 1`: Zeckendorf digits, least
        /// significant first, then an extra 1.
        fn fib(&mut self, n: u64) -> &mut Self {
            let mut digits = Vec::new();
            let mut k = 0;
            while FIB[k] <= n {
                k += 1;
            }
            let mut rest = n;
            for j in (0..k).rev() {
                let set = FIB[j] <= rest;
                if set {
                    rest -= FIB[j];
                }
                digits.push(set);
            }
            digits.reverse();
            for d in digits {
                self.put(u64::from(d), 1);
            }
            self.put(1, 1)
        }
        /// Pad to the next byte.
        fn pad(&mut self) -> &mut Self {
            self.len = self.len.div_ceil(8) * 8;
            self
        }
    }

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    }

    fn bit_length(v: u64, width: u32) -> u32 {
        if v >> (width - 1) & 1 == 1 {
            width
        } else {
            (64 - v.leading_zeros()).max(1)
        }
    }

    /// Blocks of `block` stored words (first value, deltas) as the writers
    /// lay them out; `set` writes a full-width word's top bit as 1.
    fn encode_words(words: &[u64], width: u32, block: usize, set: bool) -> Vec<u8> {
        let code_bits = if width == 32 { 6 } else { 7 };
        let mut b = Bits::default();
        for chunk in words.chunks(block) {
            b.put(chunk.len() as u64, 32);
            let mut i = 0;
            while i < chunk.len() {
                let len = bit_length(chunk[i], width);
                let mut j = i;
                while j < chunk.len() && bit_length(chunk[j], width) == len {
                    j += 1;
                }
                b.put(u64::from(len), code_bits).fib((j - i) as u64);
                for &w in &chunk[i..j] {
                    let w = if len == width && !set {
                        w & !(1 << (width - 1))
                    } else {
                        w
                    };
                    b.put(w, len);
                }
                i = j;
            }
            b.pad();
        }
        b.bytes
    }

    /// Integer values as blocks of [`BLOCK`] with wrapping deltas.
    fn encode_ints(values: &[u64], width: u32, set: bool) -> Vec<u8> {
        let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
        let mut words = Vec::new();
        for chunk in values.chunks(BLOCK) {
            words.push(chunk[0] & mask);
            for w in chunk.windows(2) {
                words.push(w[1].wrapping_sub(w[0]) & mask);
            }
        }
        encode_words(&words, width, BLOCK, set)
    }

    fn tr(field: Field, offset: usize, bit: u8) -> Result<Done, DecodeError> {
        Err(DecodeError::Truncated { field, offset, bit })
    }

    /// The notes' and the official writer's pages.
    #[test]
    fn known_answers() {
        for page in [
            "00 00 00 04 0f a0 b6 0d ff ff ff f8",
            "00 00 00 04 0f a0 b6 0f ff ff ff f8",
        ] {
            let mut out = [0i32; 4];
            assert_eq!(
                decode_i32_into(&hex(page), &mut out),
                Ok(Done {
                    values: 4,
                    consumed: 12
                })
            );
            assert_eq!(out, [5, 5, 6, 4]);
        }
        let mut out = [0i32; 3];
        assert_eq!(
            decode_i32_into(&hex("00 00 00 03 13 a8 1b ff ff ff fb ff ff ff f8"), &mut out),
            Ok(Done {
                values: 3,
                consumed: 15
            })
        );
        assert_eq!(out, [10, 9, 8]);
        let mut out = [9i64; 8];
        assert_eq!(
            decode_i64_into(&hex("00 00 00 07 02 b0 00"), &mut out),
            Ok(Done { values: 7, consumed: 7 })
        );
        assert_eq!(out, [0, 0, 0, 0, 0, 0, 0, 9]);
        let mut out = [0i64; 2];
        assert_eq!(
            decode_i64_into(&hex("00 00 00 02 02 f0"), &mut out),
            Ok(Done { values: 2, consumed: 6 })
        );
        assert_eq!(out, [1, 2]);
    }

    #[test]
    fn known_answers_float_flavours() {
        let java = hex("00 00 00 03 79 ff 80 00 01 f8 00 00 04 19 fc 00 00 00");
        let cpp = hex("00 00 00 03 7b ff 00 00 01 7e 00 00 04 1b fc 00 00 00");
        let done = Ok(Done {
            values: 3,
            consumed: 18,
        });
        let mut out = [0f32; 3];
        assert_eq!(decode_f32_into(&java, Flavour::JavaFloatDiffs, &mut out), done);
        assert_eq!(out, [1.5, 2.0, 1.0]);
        assert_eq!(decode_f32_into(&cpp, Flavour::CppBits, &mut out), done);
        assert_eq!(out, [1.5, 2.0, 1.0]);
        // The other flavour reads other values.
        assert_eq!(decode_f32_into(&java, Flavour::CppBits, &mut out), done);
        // 0x3fc00000 + 0x3f000000 (0.5) + 0xbf800000 (-1.0), wrapping.
        assert_eq!(out.map(f32::to_bits), [0x3fc0_0000, 0x7ec0_0000, 0x3e40_0000]);
        // Through the registry: the sum from the flavour.
        let mut bits = [0u32; 3];
        let f = IMPLEMENTATIONS_32[0].get().unwrap();
        assert_eq!(f(&java, Sum::from(Flavour::JavaFloatDiffs), &mut bits), done);
        assert_eq!(bits, [1.5f32, 2.0, 1.0].map(f32::to_bits));
        assert_eq!(f(&cpp, Sum::from(Flavour::CppBits), &mut bits), done);
        assert_eq!(bits, [1.5f32, 2.0, 1.0].map(f32::to_bits));

        let cpp64 = hex("00 00 00 03 7d ff f0 00 00 00 00 00 00 d3 80 00 00 00 00 00 08 1b ff 80 00 00 00 00 00 00");
        let mut out = [0f64; 3];
        assert_eq!(
            decode_f64_into(&cpp64, Flavour::CppBits, &mut out),
            Ok(Done {
                values: 3,
                consumed: 30
            })
        );
        assert_eq!(out, [1.5, 2.0, 1.0]);
        let mut bits = [0u64; 3];
        let f = IMPLEMENTATIONS_64[0].get().unwrap();
        assert_eq!(
            f(&cpp64, Sum::Int, &mut bits),
            Ok(Done {
                values: 3,
                consumed: 30
            })
        );
        assert_eq!(bits, [1.5f64, 2.0, 1.0].map(f64::to_bits));
    }

    /// Java's float differences are added in f32 / f64: lossy, and NaN
    /// once NaN.
    #[test]
    fn java_float_sums() {
        // 1.0, then 1e-8 - 1.0 = -1.0 (rounded), then 1.0 - 1e-8 = 1.0.
        let words = [1.0f32, -1.0, 1.0].map(|x| u64::from(x.to_bits()));
        let page = encode_words(&words, 32, BLOCK, false);
        let mut out = [0f32; 3];
        assert_eq!(
            decode_f32_into(&page, Flavour::JavaFloatDiffs, &mut out),
            Ok(Done {
                values: 3,
                consumed: page.len()
            })
        );
        assert_eq!(out, [1.0, 0.0, 1.0]);
        let words = [f64::INFINITY, f64::NAN, 1.0].map(f64::to_bits);
        let page = encode_words(&words, 64, BLOCK, true);
        let mut out = [0f64; 3];
        decode_f64_into(&page, Flavour::JavaFloatDiffs, &mut out).unwrap();
        assert_eq!(out[0], f64::INFINITY);
        assert!(out[1].is_nan() && out[2].is_nan());
        // Exact sums: 0.5 + 0.25 + ... each added to the last value.
        let words = [3.0f64, 0.5, -0.25, 1e300].map(f64::to_bits);
        let page = encode_words(&words, 64, BLOCK, false);
        let mut out = [0f64; 4];
        decode_f64_into(&page, Flavour::JavaFloatDiffs, &mut out).unwrap();
        assert_eq!(out, [3.0, 3.5, 3.25, 3.25 + 1e300]);
    }

    /// Runs of zero differences (one addition for the run) after every kind
    /// of value, of every length, and full-width words whose written bits
    /// are zero (-0.0 once their top bit is set): the sums a word at a time
    /// give, bit for bit.
    #[test]
    fn runs_of_zero_differences_sum_as_one_at_a_time() {
        let firsts32: [u32; 7] = [0x8000_0000, 0, 0x7fc0_0001, 0x7f80_0003, 0x3f80_0000, 1, 0xff80_0000];
        for &first in &firsts32 {
            for run in [1usize, 2, 55, 56, 57, 130] {
                for lead in [None, Some(0x8000_0000u32), Some(0x4000_0000)] {
                    let mut words = vec![u64::from(first)];
                    words.extend(lead.map(u64::from));
                    words.extend(std::iter::repeat_n(0u64, run));
                    words.push(u64::from(1.5f32.to_bits()));
                    let want = {
                        let mut acc = f32::from_bits(first);
                        let mut want = vec![first];
                        for &w in &words[1..] {
                            acc = F32Diffs::add(acc, w);
                            want.push(acc.to_bits());
                        }
                        want
                    };
                    for set in [false, true] {
                        let page = encode_words(&words, 32, BLOCK, set);
                        let mut out = vec![0u32; words.len()];
                        decode32_into(&page, Sum::FloatDiffs, &mut out).unwrap();
                        assert_eq!(out, want, "{first:#x}, {lead:?}, {run} zeros, set {set}");
                    }
                }
            }
        }
        // One-bit words that are all zero but the last (the smallest
        // subnormal, added to +0.0), so the run is no zero run, wherever the
        // 1 falls against the 56-bit windows.
        for zeros in [55usize, 56, 57, 100, 111, 112, 113] {
            let mut words = vec![0u64; zeros + 1];
            words.push(1);
            let page = encode_words(&words, 32, BLOCK, false);
            let mut out = vec![7u32; words.len()];
            decode32_into(&page, Sum::FloatDiffs, &mut out).unwrap();
            assert_eq!(out[zeros + 1], 1, "{zeros} zeros then 1");
            assert!(out[..=zeros].iter().all(|&v| v == 0));
        }
        // A run of 8-bit words whose first three are zero (no writer's
        // layout, a reader's input): every word is read, not only the
        // first run-plus-length bits.
        let mut b = Bits::default();
        b.put(21, 32).put(1, 6).fib(1).put(0, 1).put(8, 6).fib(20);
        for k in 0..20u64 {
            b.put(if k < 3 { 0 } else { 5 }, 8);
        }
        b.pad();
        let mut out = [9u32; 21];
        decode32_into(&b.bytes, Sum::FloatDiffs, &mut out).unwrap();
        let want: Vec<u32> = (0..21u32).map(|i| 5 * i.saturating_sub(3)).collect();
        assert_eq!(out.to_vec(), want);
        // A run of full-width words whose written bits are all zero: each
        // is -0.0, and -0.0 + -0.0 stays -0.0 where +0 would make +0.0.
        let mut b = Bits::default();
        b.put(4, 32)
            .put(32, 6)
            .fib(1)
            .put(0x8000_0000, 32)
            .put(32, 6)
            .fib(3)
            .put(0, 96)
            .pad();
        let mut out = [0u32; 4];
        decode32_into(&b.bytes, Sum::FloatDiffs, &mut out).unwrap();
        assert_eq!(out, [0x8000_0000; 4]);
        // A block's first value alone in its segment is no run: -0.0 stays
        // -0.0 for the next segment's -0.0 to keep.
        let mut b = Bits::default();
        b.put(2, 32)
            .put(32, 6)
            .fib(1)
            .put(0x8000_0000, 32)
            .put(32, 6)
            .fib(1)
            .put(0x8000_0000, 32)
            .pad();
        let mut out = [0u32; 2];
        decode32_into(&b.bytes, Sum::FloatDiffs, &mut out).unwrap();
        assert_eq!(out, [0x8000_0000; 2]);
        // And 64-bit: a NaN with a payload stays that NaN, quieted.
        let snan = 0x7ff0_0000_0000_0003u64;
        let words = [snan, 0, 0, 0, 0];
        let page = encode_words(&words, 64, BLOCK, false);
        let mut out = [0u64; 5];
        decode64_into(&page, Sum::FloatDiffs, &mut out).unwrap();
        assert_eq!(
            out,
            [snan, snan | 1 << 51, snan | 1 << 51, snan | 1 << 51, snan | 1 << 51]
        );
    }

    /// A long run of repeated float values is one addition and a fill;
    /// integer runs and runs with a non-zero word are summed word by word.
    #[test]
    fn zero_runs_of_float_sums_take_the_fill() {
        use crate::probe::Counting;
        let mut words = vec![u64::from(3.0f32.to_bits())];
        words.extend(std::iter::repeat_n(0u64, 200));
        words.push(u64::from(1.0f32.to_bits()));
        let page = encode_words(&words, 32, BLOCK, false);
        let mut out = vec![0u32; words.len()];
        Counting::reset();
        decode::<32, F32Diffs, u32, Counting>(&page, &mut out).unwrap();
        assert_eq!(Counting::steps(Step::RlbeZeroRun), 200);
        Counting::reset();
        decode::<32, Int32, u32, Counting>(&page, &mut out).unwrap();
        assert_eq!(Counting::steps(Step::RlbeZeroRun), 0);
    }

    /// A NaN sum's payload: a NaN difference's, else a NaN previous
    /// value's, quieted; inf - inf is the canonical NaN.
    #[test]
    fn java_nan_payloads() {
        let (p1, p2) = (0x7ff8_0000_0000_0001u64, 0x7ff8_0000_0000_0002u64);
        let snan = 0x7ff0_0000_0000_0003u64;
        let inf = f64::INFINITY.to_bits();
        let cases: [(u64, u64, u64); 6] = [
            (p1, p2, p2),
            (p1, 1.0f64.to_bits(), p1),
            (1.0f64.to_bits(), p2, p2),
            (snan, p2, p2),
            (p1, snan, snan | 1 << 51),
            (snan, 0, snan | 1 << 51),
        ];
        for (first, diff, want) in cases {
            let page = encode_words(&[first, diff], 64, BLOCK, false);
            let mut out = [0u64; 2];
            decode64_into(&page, Sum::FloatDiffs, &mut out).unwrap();
            assert_eq!(out, [first, want], "{first:x} + {diff:x}");
        }
        let page = encode_words(&[inf, (-f64::INFINITY).to_bits()], 64, BLOCK, false);
        let mut out = [0u64; 2];
        decode64_into(&page, Sum::FloatDiffs, &mut out).unwrap();
        // The canonical NaN, whatever the host makes (x86-64: 0xfff8...).
        assert_eq!(out[1], 0x7ff8_0000_0000_0000);
        let (q1, q2, s3) = (0x7fc0_0001u64, 0xffc0_0002u64, 0x7f80_0003u64);
        for (first, diff, want) in [(q1, q2, q2), (q1, 0, q1), (s3, q2, q2), (q1, s3, s3 | 1 << 22)] {
            let page = encode_words(&[first, diff], 32, BLOCK, false);
            let mut out = [0u32; 2];
            decode32_into(&page, Sum::FloatDiffs, &mut out).unwrap();
            assert_eq!(out.map(u64::from), [first, want], "{first:x} + {diff:x}");
        }
    }

    /// Full-width words: the top bit is set whether written or not, in
    /// every type, and every bit length 1..=W reads back at every bit
    /// alignment (the 58..=64-bit words need the 9-byte window).
    #[test]
    fn every_width_at_every_alignment() {
        for width in [32u32, 64] {
            for set in [false, true] {
                for shift in 1..=8u32 {
                    // A first value of `shift` bits moves everything after it.
                    let mut words = vec![(1u64 << (shift - 1)) | 1];
                    for len in 1..=width {
                        // Three words of bit length `len` each.
                        let hi = 1u64 << (len - 1);
                        let pattern = 0xA5A5_A5A5_A5A5_A5A5u64 & (hi.wrapping_mul(2).wrapping_sub(1));
                        words.extend([hi, hi | pattern, hi | (pattern >> 1)]);
                    }
                    let values: Vec<u64> = words
                        .iter()
                        .scan(0u64, |acc, &w| {
                            *acc = if width == 32 {
                                u64::from((*acc as u32).wrapping_add(w as u32))
                            } else {
                                acc.wrapping_add(w)
                            };
                            Some(*acc)
                        })
                        .collect();
                    let page = encode_words(&words, width, BLOCK, set);
                    let done = Ok(Done {
                        values: values.len(),
                        consumed: page.len(),
                    });
                    if width == 32 {
                        let mut out = vec![0u32; values.len()];
                        assert_eq!(decode32_into(&page, Sum::Int, &mut out), done);
                        assert_eq!(out.iter().map(|&v| u64::from(v)).collect::<Vec<_>>(), values);
                        let mut out = vec![0i32; values.len()];
                        assert_eq!(decode_i32_into(&page, &mut out), done);
                        assert_eq!(out.iter().map(|&v| v as u32 as u64).collect::<Vec<_>>(), values);
                    } else {
                        let mut out = vec![0u64; values.len()];
                        assert_eq!(decode64_into(&page, Sum::Int, &mut out), done);
                        assert_eq!(out, values, "set {set} shift {shift}");
                        let mut out = vec![0f64; values.len()];
                        assert_eq!(decode_f64_into(&page, Flavour::CppBits, &mut out), done);
                        assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), values);
                    }
                }
            }
        }
    }

    /// Edge values and several blocks, one of a single value; the first
    /// value of a block shares its segment with the deltas after it.
    #[test]
    // 33 000 values through every block boundary: hours under Miri, whose
    // other RLBE tests take the same loads on short pages.
    #[cfg_attr(miri, ignore = "too slow under Miri")]
    fn blocks_and_edges() {
        let mut v: Vec<i64> = vec![i64::MIN, i64::MAX, -1, 0, 1, i64::MIN, 0];
        v.extend((0..20_000i64).map(|i| i * i - (1 << 40)));
        v.extend(std::iter::repeat_n(77, 3000));
        let bits: Vec<u64> = v.iter().map(|&x| x as u64).collect();
        for set in [false, true] {
            let page = encode_ints(&bits, 64, set);
            assert_eq!(&page[..4], &[0, 0, 0x27, 0x10]);
            let mut out = vec![0i64; v.len() + 5];
            assert_eq!(
                decode_i64_into(&page, &mut out),
                Ok(Done {
                    values: v.len(),
                    consumed: page.len()
                })
            );
            assert_eq!(out[..v.len()], v[..]);
            assert_eq!(out[v.len()..], [0; 5], "nothing past the values is written");
        }
        let v: Vec<i32> = (0..10_001).map(|i| if i % 3 == 0 { i32::MIN } else { i * 7 }).collect();
        let bits: Vec<u64> = v.iter().map(|&x| u64::from(x as u32)).collect();
        let page = encode_ints(&bits, 32, false);
        let mut out = vec![0i32; v.len()];
        assert_eq!(
            decode_i32_into(&page, &mut out),
            Ok(Done {
                values: v.len(),
                consumed: page.len()
            })
        );
        assert_eq!(out, v);
        // A block of exactly 10 000 equal values: one segment, run 10 000.
        let page = encode_ints(&[5; BLOCK], 32, false);
        let mut out = vec![0i32; BLOCK];
        assert_eq!(decode_i32_into(&page, &mut out).unwrap().values, BLOCK);
        assert!(out.iter().all(|&x| x == 5));
        // Nothing: no values, nothing consumed.
        assert_eq!(decode_i32_into(&[], &mut []), Ok(Done { values: 0, consumed: 0 }));
    }

    /// Every field of a two-block page, in stream order: (field, first bit,
    /// bits); the second block starts at `(field, at)` of the `RlbeCount`.
    fn two_blocks(width: u32, shift: u32) -> (Bits, Vec<(Field, usize, usize)>) {
        let code_bits = if width == 32 { 6 } else { 7 };
        let mut b = Bits::default();
        let mut fields = Vec::new();
        let field = |b: &mut Bits, fields: &mut Vec<_>, f: Field, put: &dyn Fn(&mut Bits)| {
            let at = b.len;
            put(b);
            fields.push((f, at, b.len - at));
        };
        // Block 1: 4 values: a segment of `1 + shift` bits (run 1), one of
        // 3 bits (run 2), one full-width (run 1).
        field(&mut b, &mut fields, Field::RlbeCount, &|b| {
            b.put(4, 32);
        });
        field(&mut b, &mut fields, Field::RlbeLength, &|b| {
            b.put(u64::from(1 + shift), code_bits);
        });
        field(&mut b, &mut fields, Field::RlbeRun, &|b| {
            b.fib(1);
        });
        field(&mut b, &mut fields, Field::RlbeValue, &|b| {
            b.put(1 << shift, 1 + shift);
        });
        field(&mut b, &mut fields, Field::RlbeLength, &|b| {
            b.put(3, code_bits);
        });
        field(&mut b, &mut fields, Field::RlbeRun, &|b| {
            b.fib(2);
        });
        for w in [5, 7] {
            field(&mut b, &mut fields, Field::RlbeValue, &|b| {
                b.put(w, 3);
            });
        }
        field(&mut b, &mut fields, Field::RlbeLength, &|b| {
            b.put(u64::from(width), code_bits);
        });
        field(&mut b, &mut fields, Field::RlbeRun, &|b| {
            b.fib(1);
        });
        field(&mut b, &mut fields, Field::RlbeValue, &|b| {
            b.put(u64::MAX >> (65 - width), width);
        });
        b.pad();
        // Block 2: 12 values in one segment of 2 bits (run 12: "10101" + 1).
        field(&mut b, &mut fields, Field::RlbeCount, &|b| {
            b.put(12, 32);
        });
        field(&mut b, &mut fields, Field::RlbeLength, &|b| {
            b.put(2, code_bits);
        });
        field(&mut b, &mut fields, Field::RlbeRun, &|b| {
            b.fib(12);
        });
        for i in 0..12 {
            field(&mut b, &mut fields, Field::RlbeValue, &|b| {
                b.put(i % 4, 2);
            });
        }
        b.pad();
        (b, fields)
    }

    fn run32(page: &[u8], max: usize) -> (Result<Done, DecodeError>, Vec<u32>) {
        let mut out = vec![0u32; max];
        let got = decode32_into(page, Sum::Int, &mut out);
        (got, out)
    }

    fn run64(page: &[u8], max: usize) -> (Result<Done, DecodeError>, Vec<u64>) {
        let mut out = vec![0u64; max];
        let got = decode64_into(page, Sum::Int, &mut out);
        (got, out)
    }

    #[test]
    fn two_blocks_decode() {
        for width in [32u32, 64] {
            for shift in 0..8 {
                let (b, _) = two_blocks(width, shift);
                let first = 1u64 << shift;
                let mask = if width == 32 { u64::from(u32::MAX) } else { u64::MAX };
                let mut want = vec![first, first + 5, first + 12, (first + 11) & mask];
                let mut acc = 0u64;
                for i in 0..12u64 {
                    acc = if i == 0 { 0 } else { acc + i % 4 };
                    want.push(acc);
                }
                let done = Ok(Done {
                    values: 16,
                    consumed: b.bytes.len(),
                });
                if width == 32 {
                    let (got, out) = run32(&b.bytes, 16);
                    assert_eq!(got, done);
                    assert_eq!(out.iter().map(|&v| u64::from(v)).collect::<Vec<_>>(), want);
                } else {
                    let (got, out) = run64(&b.bytes, 16);
                    assert_eq!(got, done);
                    assert_eq!(out, want);
                }
            }
        }
    }

    /// The page cut after every byte: the error names the first field the
    /// cut reaches into, at its first bit; a cut at a block's end decodes
    /// the blocks before it.
    #[test]
    fn every_cut_names_the_field_it_falls_in() {
        for width in [32u32, 64] {
            for shift in 0..8 {
                let (b, fields) = two_blocks(width, shift);
                let second = fields.iter().rposition(|(f, _, _)| *f == Field::RlbeCount).unwrap();
                let second_at = fields[second].1 / 8;
                for cut in 0..=b.bytes.len() {
                    let total = cut * 8;
                    let want = if cut == 0 {
                        Ok(Done { values: 0, consumed: 0 })
                    } else if cut == second_at {
                        Ok(Done {
                            values: 4,
                            consumed: cut,
                        })
                    } else {
                        match fields.iter().find(|(_, at, n)| at + n > total) {
                            Some(&(field, at, _)) => tr(field, at / 8, (at % 8) as u8),
                            None => Ok(Done {
                                values: 16,
                                consumed: cut,
                            }),
                        }
                    };
                    let got = if width == 32 {
                        run32(&b.bytes[..cut], 16).0
                    } else {
                        run64(&b.bytes[..cut], 16).0
                    };
                    assert_eq!(got, want, "width {width} shift {shift} cut {cut}");
                }
            }
        }
    }

    /// More values than the output holds: at the block that does not fit,
    /// before anything in it is read.
    #[test]
    fn too_many_values_at_the_block() {
        for width in [32u32, 64] {
            let (b, fields) = two_blocks(width, 3);
            let second = fields.iter().rposition(|(f, _, _)| *f == Field::RlbeCount).unwrap();
            let second_at = fields[second].1 / 8;
            for max in 0..16 {
                let offset = if max < 4 { 0 } else { second_at };
                let got = if width == 32 {
                    run32(&b.bytes, max).0
                } else {
                    run64(&b.bytes, max).0
                };
                assert_eq!(got, Err(DecodeError::TooManyValues { max, offset }), "{width} {max}");
            }
            // A count error comes first; a truncated block too.
            let mut page = b.bytes[..second_at].to_vec();
            page.extend([0, 0, 0x27, 0x11]);
            let got = if width == 32 {
                run32(&page, 4).0
            } else {
                run64(&page, 4).0
            };
            assert_eq!(
                got,
                Err(DecodeError::BadCount {
                    field: Field::RlbeCount,
                    count: 10_001,
                    offset: second_at
                })
            );
            page.truncate(second_at + 3);
            let got = if width == 32 {
                run32(&page, 4).0
            } else {
                run64(&page, 4).0
            };
            assert_eq!(got, tr(Field::RlbeCount, second_at, 0));
        }
    }

    #[test]
    fn bad_counts_and_lengths() {
        let count = |count, offset| {
            Err(DecodeError::BadCount {
                field: Field::RlbeCount,
                count,
                offset,
            })
        };
        assert_eq!(run32(&[0, 0, 0, 0], 9).0, count(0, 0));
        assert_eq!(run32(&[0, 0, 0x27, 0x11, 0], 20_000).0, count(10_001, 0));
        assert_eq!(run64(&[0xFF; 12], 9).0, count(i64::from(u32::MAX), 0));
        // 10 000 is fine as a count; the output too small for it.
        assert_eq!(
            run32(&[0, 0, 0x27, 0x10], 9_999).0,
            Err(DecodeError::TooManyValues { max: 9_999, offset: 0 })
        );
        let width = |width, max, offset| Err(DecodeError::BadBitWidth { width, max, offset });
        assert_eq!(run32(&[0, 0, 0, 1, 0b0000_0011], 9).0, width(0, 32, 4));
        assert_eq!(run32(&[0, 0, 0, 1, 0b1000_0111], 9).0, width(33, 32, 4));
        assert_eq!(run32(&[0, 0, 0, 1, 0b1111_1111], 9).0, width(63, 32, 4));
        assert_eq!(run64(&[0, 0, 0, 1, 0b1000_0011], 9).0, width(65, 64, 4));
        assert_eq!(run64(&[0, 0, 0, 1, 0b1111_1110], 9).0, width(127, 64, 4));
        assert_eq!(run64(&[0, 0, 0, 1, 0], 9).0, width(0, 64, 4));
        // 64 is a width for INT64; the value missing.
        assert_eq!(
            run64(&[0, 0, 0, 1, 0b1000_0001, 0b1000_0000], 9).0,
            tr(Field::RlbeValue, 5, 1)
        );
        // A bad length in a later segment, at its own byte.
        let mut b = Bits::default();
        b.put(3, 32).put(2, 6).fib(1).put(3, 2).put(40, 6);
        assert_eq!(run32(&b.bytes, 9).0, width(40, 32, 5));
        // The length code cut: at its first bit.
        assert_eq!(run32(&[0, 0, 0, 1], 9).0, tr(Field::RlbeLength, 4, 0));
        let mut b = Bits::default();
        b.put(3, 32).put(3, 6).fib(1).put(5, 3);
        assert_eq!(run32(&b.bytes, 9).0, tr(Field::RlbeLength, 5, 3));
    }

    /// Run lengths: checked against the values left as each digit is
    /// added, before the code's end is looked for; long codes (no `11` in
    /// 64 bits) read bit by bit, with the same errors.
    #[test]
    fn run_lengths() {
        let bad = |count, offset| {
            Err(DecodeError::BadCount {
                field: Field::RlbeRun,
                count,
                offset,
            })
        };
        // Count 1, run 2 ("011").
        assert_eq!(run32(&[0, 0, 0, 1, 0b0000_0101, 0b1000_0000], 9).0, bad(2, 4));
        // Count 3: a run of 2, then a run of 2 (from bit 49) with one left.
        let mut b = Bits::default();
        b.put(3, 32);
        for _ in 0..2 {
            b.put(1, 6).fib(2).put(0, 2);
        }
        assert_eq!(run32(&b.bytes, 9).0, bad(2, 6));
        // The sum passes the count before the code ends: 1 + 3 + 8 > 10,
        // on the digit for 8 (the error, though the page ends right after).
        let mut b = Bits::default();
        b.put(10, 32).put(1, 6).put(0b10101, 5);
        assert_eq!(run32(&b.bytes, 10).0, bad(12, 4));
        // ... and with the terminator and values there.
        b.put(1, 1).put(0, 12);
        assert_eq!(run32(&b.bytes, 10).0, bad(12, 4));
        // The first sum that passes counts, not the whole code's: count 3,
        // digits 0, 2, 4 (1 + 3 > 3); count 10, digits 0, 13, 15 ending at
        // bit 16 (1 + 610 > 10, past the table).
        let mut b = Bits::default();
        b.put(3, 32).put(1, 6).put(0b101011, 6).put(0, 8);
        assert_eq!(run32(&b.bytes, 10).0, bad(4, 4));
        // A sum equal to what is left does not pass it: count 4, the same
        // digits (1 + 3 = 4, then 12).
        let mut b = Bits::default();
        b.put(4, 32).put(1, 6).put(0b101011, 6).put(0, 8);
        assert_eq!(run32(&b.bytes, 10).0, bad(12, 4));
        let mut b = Bits::default();
        b.put(10, 32).put(1, 6).put(1, 1).put(0, 12).put(0b1011, 4).put(0, 8);
        assert_eq!(run32(&b.bytes, 10).0, bad(611, 4));
        // A valid code past the table: a run of 700 (610 + 89 + 1).
        let mut b = Bits::default();
        b.put(700, 32).put(1, 6).fib(700);
        b.put(0, 700);
        let (got, out) = run32(&b.bytes, 700);
        assert_eq!(
            got,
            Ok(Done {
                values: 700,
                consumed: b.bytes.len()
            })
        );
        assert!(out.iter().all(|&v| v == 0));
        // A code with its one digit 70 bits in: F(72), read bit by bit.
        let mut b = Bits::default();
        b.put(10, 32)
            .put(1, 6)
            .put(0, 63)
            .put(0, 7)
            .put(1, 1)
            .put(1, 1)
            .put(0, 20);
        assert_eq!(run32(&b.bytes, 10).0, bad(498_454_011_879_264, 4));
        // ... after digit 0 with count 1: the sum 1 equals what is left and
        // does not pass it; 1 + F(72) does.
        let mut b = Bits::default();
        b.put(1, 32)
            .put(1, 6)
            .put(1, 1)
            .put(0, 69)
            .put(1, 1)
            .put(1, 1)
            .put(0, 20);
        assert_eq!(run32(&b.bytes, 10).0, bad(498_454_011_879_265, 4));
        // A digit whose Fibonacci number passes i64::MAX (F(93)) and one
        // past u64::MAX (F(200)): both i64::MAX.
        for k in [91u32, 198] {
            let mut b = Bits::default();
            b.put(10, 32).put(1, 6);
            for _ in 0..k {
                b.put(0, 1);
            }
            b.put(1, 1).put(1, 1).put(0, 10);
            assert_eq!(run32(&b.bytes, 10).0, bad(i64::MAX, 4), "{k}");
        }
        // F(92) + 1 = 7 540 113 804 746 346 430 (digit 0, digit 90).
        let mut b = Bits::default();
        b.put(10, 32).put(1, 6).put(1, 1);
        for _ in 0..89 {
            b.put(0, 1);
        }
        b.put(1, 1).put(0, 10);
        assert_eq!(run32(&b.bytes, 10).0, bad(7_540_113_804_746_346_430, 4));
        // Zeros to the page's end: truncated at the code's first bit.
        let mut b = Bits::default();
        b.put(10, 32).put(1, 6).put(0, 100);
        assert_eq!(run32(&b.bytes, 10).0, tr(Field::RlbeRun, 4, 6));
        // One bit of code left (bit 47 of 48): truncated at it.
        let mut b = Bits::default();
        b.put(10, 32).put(1, 6).put(0b11, 2).put(0, 1).put(1, 6).put(1, 1);
        assert_eq!(b.len, 48);
        assert_eq!(run32(&b.bytes, 10).0, tr(Field::RlbeRun, 5, 7));
        // A digit in the last bit is never added: truncated, not a count.
        let mut b = Bits::default();
        b.put(1, 32).put(1, 6).put(0, 17).put(1, 1);
        assert_eq!(run32(&b.bytes, 10).0, tr(Field::RlbeRun, 4, 6));
        // ... but one before it is (digit 16: F(18) = 2584 > 1).
        let mut b = Bits::default();
        b.put(1, 32).put(1, 6).put(0, 16).put(1, 1).put(0, 1);
        assert_eq!(run32(&b.bytes, 10).0, bad(2584, 4));
        // The code ends at the first `11`: "1011" is digits 0 and 2, 1 + 3.
        let mut b = Bits::default();
        b.put(4, 32).put(1, 6).put(0b1011, 4).put(0b1010, 4);
        let (got, out) = run32(&b.bytes, 4);
        assert_eq!(got, Ok(Done { values: 4, consumed: 6 }));
        assert_eq!(out, [1, 1, 2, 2]);
    }

    #[test]
    fn values_cut_at_the_first_that_does_not_fit() {
        // INT64: count, length 64, run 3 ("0011"), three 64-bit words from
        // bit 43 (the top bits written 0, 0 and 1).
        let mut b = Bits::default();
        b.put(3, 32)
            .put(64, 7)
            .fib(3)
            .put(u64::MAX >> 1, 64)
            .put(1, 64)
            .put(2 | 1 << 63, 64);
        let start = 43;
        assert_eq!(run64(&b.bytes[..5], 3).0, tr(Field::RlbeRun, 4, 7));
        for cut in 6..b.bytes.len() {
            let fit = (cut * 8 - start) / 64;
            let at = start + fit * 64;
            assert_eq!(
                run64(&b.bytes[..cut], 3).0,
                tr(Field::RlbeValue, at / 8, (at % 8) as u8),
                "{cut}"
            );
        }
        let (got, out) = run64(&b.bytes, 3);
        assert_eq!(
            got,
            Ok(Done {
                values: 3,
                consumed: b.bytes.len()
            })
        );
        let first = u64::MAX;
        let second = first.wrapping_add(1 | 1 << 63);
        assert_eq!(out, [first, second, second.wrapping_add(2 | 1 << 63)]);
    }
}
