//! TS_2DIFF for INT32 and INT64 (also the time column's encoding): whole
//! blocks at a time. Each block's header is read with big-endian word loads,
//! its packed deltas unpacked by the width-specialised group unpacker, and the
//! values rebuilt by a wrapping prefix sum: eight at a time in AVX2 lanes
//! (`ts2diff/avx2`, x86_64, see its module) or fused into the unpacking
//! (`ts2diff/fused`, every target).

use super::{be_u32, be_u64, bitpack, DecodeError, Done, Field, IntLane};

#[cfg(target_arch = "x86_64")]
mod avx2;

/// The largest `writeIndex` accepted (the writers use 128).
pub const MAX_BLOCK_DELTAS: i64 = 1 << 16;

/// A block's validated header.
struct Block {
    /// Values in the block (`writeIndex + 1`).
    values: usize,
    width: u32,
    min_delta: u64,
    first: u64,
    /// Byte range of the packed deltas.
    packed: usize,
    packed_len: usize,
}

/// Parse and check the header of the block at `at`, with `room` more values
/// allowed. Reports errors in stream order.
#[inline(always)]
fn header<T: IntLane>(page: &[u8], at: usize, room: usize, max: usize) -> Result<Block, DecodeError> {
    let word = (T::BITS / 8) as usize;
    let t = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
    let write_index = be_u32(page, at).ok_or(t(Field::WriteIndex, at))? as i32 as i64;
    if !(0..=MAX_BLOCK_DELTAS).contains(&write_index) {
        return Err(DecodeError::BadCount {
            field: Field::WriteIndex,
            count: write_index,
            offset: at,
        });
    }
    let width = be_u32(page, at + 4).ok_or(t(Field::BitWidth, at + 4))? as i32 as i64;
    if !(0..=T::BITS as i64).contains(&width) {
        return Err(DecodeError::BadBitWidth {
            width,
            max: T::BITS,
            offset: at + 4,
        });
    }
    let read = |off: usize, field| -> Result<u64, DecodeError> {
        if word == 4 {
            be_u32(page, off).map(|v| v as u64).ok_or(t(field, off))
        } else {
            be_u64(page, off).ok_or(t(field, off))
        }
    };
    let min_delta = read(at + 8, Field::MinDeltaBase)?;
    let first = read(at + 8 + word, Field::FirstValue)?;
    let deltas = write_index as usize;
    if deltas + 1 > room {
        return Err(DecodeError::TooManyValues { max, offset: at });
    }
    let packed = at + 8 + 2 * word;
    let packed_len = (deltas * width as usize).div_ceil(8);
    if page.len() - packed < packed_len {
        return Err(t(Field::Packed, packed));
    }
    Ok(Block {
        values: deltas + 1,
        width: width as u32,
        min_delta,
        first,
        packed,
        packed_len,
    })
}

/// Decode a whole page into `out` (its length is the most values accepted):
/// the width-specialised unpacker with the prefix sum fused into it (one
/// pass; the fastest portable kernel).
pub fn decode_fused_into<T: IntLane>(page: &[u8], out: &mut [T]) -> Result<Done, DecodeError> {
    decode_blocks(page, out, fused_block)
}

/// Walk the page's blocks; `block(packed, width, deltas, first, min_delta)`
/// fills `deltas` (the block's values after the first) from `packed`, which
/// starts at the block's packed deltas and runs to the end of the page.
#[inline(always)]
fn decode_blocks<T: IntLane>(
    page: &[u8],
    out: &mut [T],
    mut block: impl FnMut(&[u8], u32, &mut [T], T, T),
) -> Result<Done, DecodeError> {
    let max = out.len();
    let mut pos = 0;
    let mut n = 0;
    while pos < page.len() {
        let b = header::<T>(page, pos, max - n, max)?;
        let dst = &mut out[n..n + b.values];
        dst[0] = T::from_bits(b.first);
        // The packed deltas and everything after them in the page: the
        // unpackers decode only the first `values - 1` but may load past
        // them, which keeps every group of a block but the page's last off
        // the padded tail path.
        block(
            &page[b.packed..],
            b.width,
            &mut dst[1..],
            T::from_bits(b.first),
            T::from_bits(b.min_delta),
        );
        n += b.values;
        pos = b.packed + b.packed_len;
    }
    Ok(Done {
        values: n,
        consumed: pos,
    })
}

/// One block's values after `acc` (the value before them): unpack and
/// running sum in one pass.
#[inline(always)]
fn fused_block<T: IntLane>(packed: &[u8], width: u32, deltas: &mut [T], mut acc: T, min: T) {
    let n = deltas.len();
    bitpack::unpack_map(packed, width, n, deltas, move |x| {
        // `min + x` first: it does not depend on `acc`, so the running
        // sum's chain is one add per value, not two.
        acc = acc.wrapping_add(T::from_bits(x).wrapping_add(min));
        acc
    });
}

/// How many values a page holds, walking block headers only (checks them as
/// [`decode_fused_into`] does, with `max` values allowed). For sizing a
/// buffer.
pub fn count<T: IntLane>(page: &[u8], max: usize) -> Result<usize, DecodeError> {
    let mut pos = 0;
    let mut n = 0;
    while pos < page.len() {
        let b = header::<T>(page, pos, max - n, max)?;
        n += b.values;
        pos = b.packed + b.packed_len;
    }
    Ok(n)
}

/// Decode an INT32 page with the best kernel this CPU has (`ts2diff/avx2`
/// where AVX2 is present, else `ts2diff/fused`).
pub fn decode_i32_into(page: &[u8], out: &mut [i32]) -> Result<Done, DecodeError> {
    static BEST: crate::Best<DecodeI32> = crate::Best::new(IMPLEMENTATIONS_I32);
    BEST.get()(page, out)
}

/// Decode an INT64 page with the best kernel this CPU has (`ts2diff/avx2`
/// where AVX2 is present, else `ts2diff/fused`).
pub fn decode_i64_into(page: &[u8], out: &mut [i64]) -> Result<Done, DecodeError> {
    static BEST: crate::Best<DecodeI64> = crate::Best::new(IMPLEMENTATIONS_I64);
    BEST.get()(page, out)
}

pub type DecodeI32 = fn(&[u8], &mut [i32]) -> Result<Done, DecodeError>;
pub type DecodeI64 = fn(&[u8], &mut [i64]) -> Result<Done, DecodeError>;

/// INT32 implementations, best first.
pub static IMPLEMENTATIONS_I32: &[crate::Implementation<DecodeI32>] = &[
    #[cfg(target_arch = "x86_64")]
    crate::Implementation::new("ts2diff/avx2", avx2::available, avx2::decode_into::<i32>),
    #[cfg(not(target_arch = "x86_64"))]
    crate::Implementation::absent("ts2diff/avx2"),
    crate::Implementation::portable("ts2diff/fused", decode_fused_into::<i32>),
];

/// INT64 implementations, best first.
pub static IMPLEMENTATIONS_I64: &[crate::Implementation<DecodeI64>] = &[
    #[cfg(target_arch = "x86_64")]
    crate::Implementation::new("ts2diff/avx2", avx2::available, avx2::decode_into::<i64>),
    #[cfg(not(target_arch = "x86_64"))]
    crate::Implementation::absent("ts2diff/avx2"),
    crate::Implementation::portable("ts2diff/fused", decode_fused_into::<i64>),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn block64(values: &[i64]) -> Vec<u8> {
        // A hand-built block: deltas all equal (width 0) or given via width 8.
        let mut out = Vec::new();
        out.extend_from_slice(&((values.len() - 1) as u32).to_be_bytes());
        let d = if values.len() > 1 { values[1] - values[0] } else { 0 };
        out.extend_from_slice(&0u32.to_be_bytes());
        out.extend_from_slice(&d.to_be_bytes());
        out.extend_from_slice(&values[0].to_be_bytes());
        out
    }

    #[test]
    fn width_zero_blocks() {
        let page = [block64(&[10, 13, 16, 19]), block64(&[-5])].concat();
        for imp in IMPLEMENTATIONS_I64.iter().filter(|i| i.is_available()) {
            let mut out = [0i64; 8];
            let done = (imp.get().expect("available"))(&page, &mut out).unwrap();
            assert_eq!(
                done,
                Done {
                    values: 5,
                    consumed: page.len()
                }
            );
            assert_eq!(&out[..5], &[10, 13, 16, 19, -5]);
            assert_eq!(out[5..], [0; 3]);
            assert_eq!(count::<i64>(&page, 8), Ok(5));
            let mut small = [0i64; 4];
            assert_eq!(
                (imp.get().expect("available"))(&page, &mut small),
                Err(DecodeError::TooManyValues { max: 4, offset: 24 })
            );
        }
    }

    #[test]
    fn header_errors_in_order() {
        let page = block64(&[1, 2]);
        let mut out = [0i64; 4];
        let t = |field, offset| Err(DecodeError::Truncated { field, offset, bit: 0 });
        assert_eq!(decode_i64_into(&page[..3], &mut out), t(Field::WriteIndex, 0));
        assert_eq!(decode_i64_into(&page[..7], &mut out), t(Field::BitWidth, 4));
        assert_eq!(decode_i64_into(&page[..15], &mut out), t(Field::MinDeltaBase, 8));
        assert_eq!(decode_i64_into(&page[..23], &mut out), t(Field::FirstValue, 16));
        let mut wide = page.clone();
        wide[7] = 1;
        assert_eq!(decode_i64_into(&wide, &mut out), t(Field::Packed, 24));
        wide[7] = 65;
        assert_eq!(
            decode_i64_into(&wide, &mut out),
            Err(DecodeError::BadBitWidth {
                width: 65,
                max: 64,
                offset: 4
            })
        );
        wide[0] = 0xff;
        assert_eq!(
            decode_i64_into(&wide, &mut out),
            Err(DecodeError::BadCount {
                field: Field::WriteIndex,
                count: -16777215,
                offset: 0
            })
        );
    }

    /// A block with 8-bit packed deltas (one byte each).
    fn block64_w8(first: i64, min: i64, deltas: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(deltas.len() as u32).to_be_bytes());
        out.extend_from_slice(&8u32.to_be_bytes());
        out.extend_from_slice(&min.to_be_bytes());
        out.extend_from_slice(&first.to_be_bytes());
        out.extend_from_slice(deltas);
        out
    }

    /// `count` walks blocks with packed deltas (not only width 0) and
    /// applies the same room check as decoding, block by block.
    #[test]
    fn count_walks_packed_blocks_and_checks_room() {
        let page = [
            block64_w8(100, -1, &[1, 2, 3]),
            block64_w8(-7, 5, &[0; 10]),
            block64_w8(0, 0, &[]),
        ]
        .concat();
        assert_eq!(count::<i64>(&page, 100), Ok(4 + 11 + 1));
        assert_eq!(count::<i64>(&page, 16), Ok(16));
        // The second block does not fit in 14 (4 already counted + 11).
        assert_eq!(
            count::<i64>(&page, 14),
            Err(DecodeError::TooManyValues { max: 14, offset: 27 })
        );
        assert_eq!(
            count::<i64>(&page, 3),
            Err(DecodeError::TooManyValues { max: 3, offset: 0 })
        );
        let mut out = [0i64; 16];
        for imp in IMPLEMENTATIONS_I64.iter().filter(|i| i.is_available()) {
            assert_eq!(
                (imp.get().expect("available"))(&page, &mut out),
                Ok(Done {
                    values: 16,
                    consumed: page.len()
                }),
                "{}",
                imp.name
            );
            assert_eq!(out[..4], [100, 100, 101, 103], "{}", imp.name);
            assert_eq!(out[4..15], [-7, -2, 3, 8, 13, 18, 23, 28, 33, 38, 43], "{}", imp.name);
            assert_eq!(out[15], 0, "{}", imp.name);
        }
    }
}
