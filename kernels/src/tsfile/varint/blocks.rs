//! Varints of any length, 64 bytes at a time, on x86-64 with BMI2.

use super::unzigzag;
use crate::tsfile::IntLane;

/// The longest varint a length index stands for: longer ones share its
/// index, and their length makes the block bad.
const LONGEST: usize = 10;

/// By length (1 to 10): the 7-bit groups in a varint's first eight bytes,
/// and in the next two.
const LOW_GROUPS: [u64; LONGEST + 1] = {
    let mut t = [0u64; LONGEST + 1];
    let mut len = 1;
    while len <= LONGEST {
        t[len] = if len >= 8 {
            0x7F7F_7F7F_7F7F_7F7F
        } else {
            0x7F7F_7F7F_7F7F_7F7F >> (64 - 8 * len)
        };
        len += 1;
    }
    t
};
const HIGH_GROUPS: [u64; LONGEST + 1] = {
    let mut t = [0u64; LONGEST + 1];
    t[9] = 0x7F;
    // A tenth byte holds bit 63 alone.
    t[10] = 0x017F;
    t
};

/// By length: the bits of the two bytes after the first eight that make a
/// varint of that length malformed (a tenth byte above 1; a longer varint
/// is refused by its length).
const BAD_HIGH: [u64; LONGEST + 1] = {
    let mut t = [0u64; LONGEST + 1];
    t[10] = 0x7E00;
    t
};

/// Bit `i` set where byte `i` of the 64 has no continuation bit: where a
/// varint ends.
#[inline(always)]
fn ends_of(block: &[u8]) -> u64 {
    let mut mask = 0u64;
    for (i, chunk) in block[..64].chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        // The clear top bits, moved to bits 0, 8, ..., 56 and gathered into
        // the top byte by one multiplication (no two products share a bit).
        let ends = (!word & 0x8080_8080_8080_8080) >> 7;
        mask |= (ends.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    mask
}

/// BMI2's `pext`: the bits of `word` under `groups`, packed from bit 0.
#[inline(always)]
fn pext(word: u64, groups: u64) -> u64 {
    // SAFETY: reached only from `zigzag_blocks`, whose callers are compiled
    // with the `bmi2` target feature and entered after detecting it.
    unsafe { core::arch::x86_64::_pext_u64(word, groups) }
}

/// Decodes zigzag varints of `W`-bit values of any length from
/// `data[pos..end]` into `out`, 64 bytes at a time: the varints' ends in a
/// block are found at once, so each varint's start is known without reading
/// the one before, its groups are packed by one `pext`, and nothing is
/// checked per varint but its length and range, folded into one flag per
/// block. Returns the values written and the position after them; stops
/// before a block holding a varint it cannot prove well formed, and where
/// fewer than 80 bytes of `data` remain, for the byte loop.
///
/// Callers must be compiled with `bmi2` enabled (`#[target_feature]`) and
/// entered only on a CPU that has it.
#[inline(always)]
pub(crate) fn zigzag_blocks<const W: u32, T: IntLane>(
    data: &[u8],
    mut pos: usize,
    end: usize,
    out: &mut [T],
) -> (usize, usize) {
    let longest = if W == 32 { 5 } else { LONGEST };
    let mut n = 0;
    while let Some(block) = data.get(pos..pos + 80) {
        let mut ends = ends_of(block);
        let room = end.saturating_sub(pos);
        if room < 64 {
            ends &= (1u64 << room) - 1;
        }
        // More varints than the output takes: a group whose bytes hold more
        // than its count, for the byte loop to refuse.
        if ends == 0 || ends.count_ones() as usize > out.len() - n {
            break;
        }
        let first = n;
        let mut left = ends;
        let mut start = 0;
        let mut bad = 0u64;
        while left != 0 {
            let last = left.trailing_zeros() as usize;
            let len = last + 1 - start;
            let at = len.min(LONGEST);
            bad |= u64::from(len > longest);
            let low = u64::from_le_bytes(block[start..start + 8].try_into().expect("8 bytes"));
            let mut value = pext(low, LOW_GROUPS[at]);
            if W == 32 {
                bad |= value >> 32;
            } else {
                let high = u64::from_le_bytes(block[start + 8..start + 16].try_into().expect("8 bytes"));
                bad |= high & BAD_HIGH[at];
                value |= pext(high, HIGH_GROUPS[at]) << 56;
            }
            out[n] = T::from_bits(unzigzag(value));
            n += 1;
            start = last + 1;
            left &= left - 1;
        }
        if bad != 0 {
            return (first, pos);
        }
        pos += start;
    }
    (n, pos)
}
