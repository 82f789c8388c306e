//! MSB-first bit unpacking, specialised per width: groups of 8 values take
//! exactly `W` bytes, so inside a group every value's byte offset and shift is
//! a constant. Values are read with one unaligned big-endian 8-byte load
//! (16 bytes for widths above 56) while the load stays inside the input; the
//! last values go through a zero-padded copy.

use super::Lane;
use crate::probe::{NoProbe, Probe, Step};

/// Bytes a load may touch past a group's start: `W` bytes of the group plus
/// the 16-byte load width.
const TAIL: usize = 128;

#[inline(always)]
fn load64(src: &[u8], at: usize) -> u64 {
    debug_assert!(at + 8 <= src.len());
    // SAFETY: every caller proves `at + 16 <= src.len()` (fast groups) or
    // reads from a buffer of TAIL bytes at an offset of at most
    // TAIL - 16 (see `unpack_w`); `read_unaligned` has no alignment needs.
    let raw = unsafe { (src.as_ptr().add(at) as *const [u8; 8]).read_unaligned() };
    u64::from_be_bytes(raw)
}

#[inline(always)]
fn load128(src: &[u8], at: usize) -> u128 {
    debug_assert!(at + 16 <= src.len());
    // SAFETY: as in `load64`, with 16 bytes proven in bounds by the callers.
    let raw = unsafe { (src.as_ptr().add(at) as *const [u8; 16]).read_unaligned() };
    u128::from_be_bytes(raw)
}

/// Unpack one group of 8 values starting at byte `base` of `src`, each
/// turned into a lane by `emit`. Caller guarantees `base + W + 16 <= src.len()`.
#[inline(always)]
fn group<const W: u32, T: Lane, F: FnMut(u64) -> T>(src: &[u8], base: usize, out: &mut [T], emit: &mut F) {
    assert!(base + W as usize + 16 <= src.len() && out.len() >= 8);
    if W <= 8 {
        // The whole group is one word: one load, eight shifts.
        let word = load64(src, base);
        for (j, slot) in out[..8].iter_mut().enumerate() {
            *slot = emit((word << (j as u32 * W)) >> (64 - W));
        }
        return;
    }
    if W <= 15 {
        // Two loads of four values each (the second starts at bit 4W).
        let lo = load64(src, base);
        let hi = load64(src, base + (4 * W as usize) / 8) << ((4 * W) % 8);
        for (j, slot) in out[..8].iter_mut().enumerate() {
            let (word, k) = if j < 4 { (lo, j as u32) } else { (hi, j as u32 - 4) };
            *slot = emit((word << (k * W)) >> (64 - W));
        }
        return;
    }
    for (j, slot) in out[..8].iter_mut().enumerate() {
        let bit = j * W as usize;
        let at = base + bit / 8;
        let s = (bit % 8) as u32;
        let v = if W <= 56 {
            (load64(src, at) << s) >> (64 - W)
        } else {
            ((load128(src, at) << s) >> (128 - W)) as u64
        };
        *slot = emit(v);
    }
}

#[inline(always)]
fn unpack_w<const W: u32, P: Probe, T: Lane, F: FnMut(u64) -> T>(packed: &[u8], n: usize, out: &mut [T], mut emit: F) {
    let w = W as usize;
    let groups = n / 8;
    let fast = if packed.len() >= 16 {
        ((packed.len() - 16) / w).min(groups)
    } else {
        0
    };
    for g in 0..fast {
        group::<W, T, F>(packed, g * w, &mut out[g * 8..g * 8 + 8], &mut emit);
        P::count(Step::GroupFromInput, 1);
    }
    if fast * 8 < n {
        tail::<W, P, T, F>(packed, fast * w, &mut out[fast * 8..n], emit);
    }
}

/// The values after the groups `unpack_w` decoded from the input: at most
/// one call per block, so out of line. One group-decoding site serves the
/// whole tail: each width's unpacker (compiled once per width, lane and
/// `emit`) then holds two copies of `group`, not three, which is most of
/// the kernels' compile time. `emit` moves in: were its address passed, its
/// state (a predictor, a running sum) would live in memory through the
/// input loop as well, a store and a load on every value's dependency chain.
///
/// The first tail group is decoded straight from the input when its loads
/// fit (a last, partial group of a block followed by more bytes, e.g. the
/// next block of the page; its extra lanes are dropped). Otherwise no later
/// group's loads fit either, and the rest goes through a zero-padded copy of
/// the input that is left, refilled when the next group's loads would run
/// past it.
#[inline(never)]
fn tail<const W: u32, P: Probe, T: Lane, F: FnMut(u64) -> T>(
    packed: &[u8],
    mut src: usize,
    out: &mut [T],
    mut emit: F,
) {
    let w = W as usize;
    let mut buf = [0u8; TAIL];
    let mut base = TAIL;
    for chunk in out.chunks_mut(8) {
        let from_input = src + w + 16 <= packed.len();
        if from_input {
            P::count(Step::GroupFromInput, 1);
        } else if base + w + 16 > TAIL {
            // Fewer than W + 16 input bytes are left once the padded copy
            // is needed (or its group would have been decoded from the
            // input), so they all fit the copy.
            let rest = &packed[src.min(packed.len())..];
            debug_assert!(rest.len() < w + 16);
            buf = [0u8; TAIL];
            buf[..rest.len()].copy_from_slice(rest);
            base = 0;
            P::count(Step::PaddedCopy, 1);
        }
        let (bytes, at) = if from_input { (packed, src) } else { (&buf[..], base) };
        // Lanes past the chunk are emitted too (from the bytes after the
        // packed ones, or zero bits) but not kept; `emit` must tolerate
        // that (the prefix sum's extra adds are discarded with them).
        let mut tmp = [T::default(); 8];
        group::<W, T, F>(bytes, at, &mut tmp, &mut emit);
        chunk.copy_from_slice(&tmp[..chunk.len()]);
        if !from_input {
            base += w;
        }
        src += w;
    }
}

macro_rules! dispatch {
    ($width:expr, $packed:expr, $n:expr, $out:expr, $emit:expr, [$($w:literal)*]) => {
        match $width {
            0 => {
                let mut emit = $emit;
                for slot in $out[..$n].iter_mut() {
                    *slot = emit(0);
                }
            }
            $($w => unpack_w::<$w, P, T, _>($packed, $n, $out, $emit),)*
            _ => unreachable!("bit widths are validated before unpacking"),
        }
    };
}

/// Unpack `n` values of `width` bits (0..=64, and at most 32 for a lane of
/// 32 bits or fewer) from `packed` (at least
/// `ceil(n * width / 8)` bytes; any bytes after those are never decoded, but
/// letting the loads reach them keeps the last group off the padded path)
/// into `out[..n]`.
pub(crate) fn unpack<T: Lane>(packed: &[u8], width: u32, n: usize, out: &mut [T]) {
    unpack_map(packed, width, n, out, T::from_bits)
}

/// [`unpack`] with each value turned into a lane by `emit`, called in order
/// (the TS_2DIFF prefix sum rides along this way: one pass, no re-read).
/// `emit` may be called for a few lanes past `n` whose results are dropped.
#[inline(always)]
pub(crate) fn unpack_map<T: Lane, F: FnMut(u64) -> T>(packed: &[u8], width: u32, n: usize, out: &mut [T], emit: F) {
    unpack_map_probed::<NoProbe, T, F>(packed, width, n, out, emit)
}

/// [`unpack_map`] reporting its groups to `P`.
#[inline(always)]
fn unpack_map_probed<P: Probe, T: Lane, F: FnMut(u64) -> T>(
    packed: &[u8],
    width: u32,
    n: usize,
    out: &mut [T],
    emit: F,
) {
    debug_assert!(packed.len() * 8 >= n * width as usize);
    debug_assert!(width <= T::BITS.max(32), "callers validate a width against the lane");
    // Lanes of 32 bits or fewer only ever take widths up to 32 (every
    // decoder rejects a wider one first), so the 32 wider unpackers are not
    // compiled for them: a constant block, so the branch not taken is not
    // compiled at all.
    if const { T::BITS <= 32 } {
        dispatch!(width, packed, n, out, emit, [
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        ])
    } else {
        dispatch!(width, packed, n, out, emit, [
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
            33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Counting;

    /// An MSB-first packer, local to the test: bits go into an accumulator
    /// and leave it a byte at a time.
    fn pack(values: &[u64], width: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity((values.len() * width as usize).div_ceil(8));
        let (mut acc, mut bits) = (0u128, 0u32);
        for &v in values {
            acc = (acc << width) | u128::from(v);
            bits += width;
            while bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
            }
        }
        if bits > 0 {
            out.push((acc << (8 - bits)) as u8);
        }
        out
    }

    #[test]
    fn every_width_and_length() {
        let mut next = crate::xorshift(0x9E37_79B9_7F4A_7C15);
        // Under Miri (which checks every unaligned load here) a shorter
        // list of lengths keeps the run to seconds; every width stays.
        let lengths: &[usize] = if cfg!(miri) {
            &[0, 9, 17, 65]
        } else {
            &[0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 128, 300]
        };
        for width in 0..=64u32 {
            for &n in lengths {
                let values: Vec<u64> = (0..n)
                    .map(|_| {
                        let v = next();
                        if width == 64 {
                            v
                        } else {
                            v & ((1u64 << width) - 1)
                        }
                    })
                    .collect();
                let packed = pack(&values, width);
                let mut out = vec![0u64; n + 3];
                unpack(&packed, width, n, &mut out);
                assert_eq!(&out[..n], &values[..], "width {width} n {n}");
                assert!(out[n..].iter().all(|&v| v == 0), "wrote past n");
                // Bytes after the packed ones (the next block of a page)
                // may be loaded but never decoded.
                for extra in if cfg!(miri) {
                    &[1usize, 16][..]
                } else {
                    &[1usize, 15, 16, 40][..]
                } {
                    let mut longer = packed.clone();
                    longer.extend(std::iter::repeat_n(0xA5u8, *extra));
                    let mut out = vec![0u64; n + 3];
                    Counting::reset();
                    unpack_map_probed::<Counting, u64, _>(&longer, width, n, &mut out, u64::from_bits);
                    assert_eq!(&out[..n], &values[..], "width {width} n {n} extra {extra}");
                    assert!(out[n..].iter().all(|&v| v == 0), "wrote past n");
                    // Every group (the partial last one too) whose loads fit
                    // in the input is decoded from it; only the rest go
                    // through the padded copy.
                    let w = width as usize;
                    let fit = if width == 0 {
                        0
                    } else {
                        (0..n.div_ceil(8)).filter(|g| g * w + w + 16 <= longer.len()).count()
                    };
                    assert_eq!(
                        Counting::steps(Step::GroupFromInput),
                        fit,
                        "width {width} n {n} extra {extra}"
                    );
                    // The rest go through padded copies, each serving as
                    // many groups as have room for their loads in it.
                    let per_copy = if width == 0 { 1 } else { (TAIL - 16) / w };
                    let padded = if width == 0 { 0 } else { n.div_ceil(8) - fit };
                    assert_eq!(
                        Counting::steps(Step::PaddedCopy),
                        padded.div_ceil(per_copy),
                        "width {width} n {n} extra {extra}"
                    );
                }
            }
        }
    }
}
