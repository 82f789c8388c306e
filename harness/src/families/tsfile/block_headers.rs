//! Targeted damage to the block headers of SPRINTZ, RLBE and CAMEL pages:
//! each header field rewritten to a value its reader must refuse (or, for
//! counts, one that moves every later field), at a block the damage can find
//! without decoding the page.

use crate::engine::CaseRng;
use crate::engine::SliceDraw;

use super::{DataType, Encoding, TsInput};

pub fn applies(encoding: Encoding) -> bool {
    matches!(encoding, Encoding::Sprintz | Encoding::Rlbe | Encoding::Camel)
}

/// The offsets of a SPRINTZ page's block headers: every full block (found
/// from its width and first value's length) and the tail's, if any.
fn sprintz_blocks(page: &[u8], dtype: DataType) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < page.len() {
        out.push(at);
        let width = page[at];
        if width & 0x80 != 0 {
            break;
        }
        let first = match dtype {
            DataType::Int32 => page[at + 1..].iter().position(|b| b & 0x80 == 0).map_or(5, |i| i + 1),
            DataType::Float => 4,
            _ => 8,
        };
        at += 1 + first + width as usize;
    }
    out
}

/// Damage one block header of a valid page.
pub fn corrupt(rng: &mut CaseRng, input: &mut TsInput) {
    let dtype = input.dtype;
    let page = &mut input.page;
    match input.encoding {
        Encoding::Sprintz => {
            let blocks = sprintz_blocks(page, dtype);
            let at = *blocks.choose(rng).unwrap();
            let max_width = if matches!(dtype, DataType::Int32 | DataType::Float) {
                32
            } else {
                64
            };
            page[at] = match rng.gen_range(0..5) {
                // A width past the type, or the unwritten 0.
                0 => rng.gen_range(max_width + 1..0x80),
                1 => 0,
                // A tail of no values, or more than a block's eight.
                2 => 0x80,
                3 => 0x80 | rng.gen_range(9..0x80),
                // Another legal header: every later field moves.
                _ => {
                    if page[at] & 0x80 != 0 {
                        0x80 | rng.gen_range(1..=8)
                    } else {
                        rng.gen_range(1..=max_width)
                    }
                }
            };
        }
        Encoding::Rlbe => {
            // The first block's count (32 bits BE), or its first length code.
            if rng.gen_bool(0.6) && page.len() >= 4 {
                let count = u32::from_be_bytes(page[..4].try_into().unwrap());
                let new = *[0, 10_001, u32::MAX, count + 1, count.saturating_sub(1), rng.gen()]
                    .choose(rng)
                    .unwrap();
                page[..4].copy_from_slice(&new.to_be_bytes());
            } else if page.len() > 4 {
                // The 6 (INT32 / FLOAT) or 7 (INT64 / DOUBLE) bits after
                // the count: 0, or a bit length past the type.
                let bits = if matches!(dtype, DataType::Int32 | DataType::Float) {
                    6
                } else {
                    7
                };
                let value: u8 = if rng.gen() { 0 } else { 0x7F >> (7 - bits) };
                page[4] = (page[4] & (0xFF >> bits)) | (value << (8 - bits));
            }
        }
        Encoding::Camel => {
            // The block's bit count: 0, negative, past the page, overlong.
            let len = page.iter().position(|b| b & 0x80 == 0).map_or(page.len(), |i| i + 1);
            let new: Vec<u8> = match rng.gen_range(0..4) {
                0 => vec![0],
                1 => vec![rng.gen_range(0..64) * 2 + 1],
                2 => zigzag_varint(page.len() as u64 * 8 + rng.gen_range(1..100)),
                _ => vec![0xFF; rng.gen_range(5..11)],
            };
            page.splice(..len, new);
        }
        e => unreachable!("{e:?} has no block headers here"),
    }
}

fn zigzag_varint(v: u64) -> Vec<u8> {
    let mut z = v << 1;
    let mut out = Vec::new();
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossdec_reference::tsfile::sprintz;

    #[test]
    fn sprintz_blocks_are_found() {
        // INT32 1..=10: one full block of width 1, then a tail.
        let page = sprintz::encode_i32(&(1..=10).collect::<Vec<_>>());
        assert_eq!(sprintz_blocks(&page, DataType::Int32), [0, 3]);
        let page = sprintz::encode_f64(&[1.0; 20]);
        assert_eq!(sprintz_blocks(&page, DataType::Double), [0, 10, 20]);
    }

    #[test]
    fn zigzag_varints() {
        assert_eq!(zigzag_varint(0), [0]);
        assert_eq!(zigzag_varint(64), [0x80, 0x01]);
    }
}
