//! Runs of LEB128 varints of one length, four per step.
//!
//! A varint's length is known only once its last byte is read, so a reader
//! that takes one varint at a time waits for each before it can start the
//! next. Writers' pages hold long runs of varints of one length (values of
//! one magnitude), so this reader guesses that the next four varints are as
//! long as the one before, checks the guess on the four continuation-bit
//! patterns at once, and decodes the four from fixed offsets: nothing in a
//! step waits on another varint. A step whose guess fails, and every varint
//! it cannot prove well formed, is left to the caller's byte loop, which
//! decodes it or reports the error.

use super::{compact7, IntLane};

/// Varints decoded per step.
pub(crate) const STEP: usize = 4;

/// `(u >> 1) ^ -(u & 1)`: for a 32-bit pattern the low 32 bits are the i32.
#[inline(always)]
pub(crate) fn unzigzag(u: u64) -> u64 {
    (u >> 1) ^ (u & 1).wrapping_neg()
}

/// The low `bytes` bytes of a word.
const fn low_bytes(bytes: usize) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    }
}

/// Decodes steps of four `L`-byte zigzag varints of `W`-bit values from
/// `data[pos..end]` into `out` while the bytes are such varints. Returns
/// the values written (a multiple of four, at most `out.len()`) and the
/// position after them. Reads 8 bytes at each varint's start, never past
/// `data`'s end, and writes only what it returns.
#[inline(always)]
fn run<const W: u32, const L: usize, T: IntLane>(
    data: &[u8],
    mut pos: usize,
    end: usize,
    out: &mut [T],
) -> (usize, usize) {
    let span = (STEP - 1) * L + 8;
    // Continuation bits: set in the first L-1 bytes, clear in byte L-1;
    // a 32-bit fifth byte's bits 4-6 clear too.
    let checked = (0x8080_8080_8080_8080 & low_bytes(L)) | if W == 32 && L == 5 { 0x70 << 32 } else { 0 };
    let want = 0x8080_8080_8080_8080 & low_bytes(L - 1);
    let mut n = 0;
    while out.len() - n >= STEP && end.saturating_sub(pos) >= STEP * L {
        let Some(block) = data.get(pos..pos + span) else { break };
        let mut bad = 0;
        let mut values = [0u64; STEP];
        for (i, value) in values.iter_mut().enumerate() {
            let word = u64::from_le_bytes(block[i * L..i * L + 8].try_into().expect("8 bytes"));
            bad |= (word & checked) ^ want;
            *value = compact7(word, L as u32);
        }
        if bad != 0 {
            break;
        }
        for (slot, &value) in out[n..n + STEP].iter_mut().zip(&values) {
            *slot = T::from_bits(unzigzag(value));
        }
        n += STEP;
        pos += STEP * L;
    }
    (n, pos)
}

/// [`run`] for varints of `len` bytes, the length of the varint before.
#[inline]
pub(crate) fn zigzag_run<const W: u32, T: IntLane>(
    len: usize,
    data: &[u8],
    pos: usize,
    end: usize,
    out: &mut [T],
) -> (usize, usize) {
    // A 32-bit value takes at most five bytes (its fifth byte at most four
    // bits: `run` checks them); eight bytes hold a 64-bit value below 2^56.
    match (len, W) {
        (1, _) => run::<W, 1, T>(data, pos, end, out),
        (2, _) => run::<W, 2, T>(data, pos, end, out),
        (3, _) => run::<W, 3, T>(data, pos, end, out),
        (4, _) => run::<W, 4, T>(data, pos, end, out),
        (5, _) => run::<W, 5, T>(data, pos, end, out),
        (6, 64) => run::<W, 6, T>(data, pos, end, out),
        (7, 64) => run::<W, 7, T>(data, pos, end, out),
        (8, 64) => run::<W, 8, T>(data, pos, end, out),
        _ => (0, pos),
    }
}

#[cfg(target_arch = "x86_64")]
mod blocks;
#[cfg(target_arch = "x86_64")]
pub(crate) use blocks::zigzag_blocks;

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) use avx512::zigzag_avx512;

#[cfg(test)]
mod tests;
