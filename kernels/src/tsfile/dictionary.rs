//! DICTIONARY (encoding id 1) for TEXT / STRING, from
//! `docs/reference/tsfile-encodings.md`: `zigzag varint count | count × (zigzag
//! varint length, bytes) | the INT32 RLE / bit-packing stream of each
//! value's entry index`, until the page ends.
//!
//! `dictionary/keys` never copies a value: the entries are slices of the
//! page in a caller-owned vector (reused across pages), and each value is
//! its entry's index in a caller-owned key slice, as an Arrow dictionary
//! array holds them. The keys come from the RLE kernel (runs as fills,
//! bit-packed groups unpacked per width); they are checked against the
//! dictionary in one pass for their maximum, and searched for the first
//! bad one only when that fails.

use super::{rle, uvarint32, DecodeError, Done, Field};

/// TsFile's `readVarInt`: zigzag over an unsigned LEB128 of at most 5 bytes.
fn zigzag32(page: &[u8], at: usize, field: Field) -> Result<(i32, usize), DecodeError> {
    let (u, k) = uvarint32(page, at, field)?;
    Ok((((u >> 1) as i32) ^ -((u & 1) as i32), k))
}

/// Decode a page: its entries into `entries` (cleared first; slices of
/// `page`), and each value's entry index into the front of `keys` (its
/// length is the most values accepted). `Done::values` keys are written.
pub fn decode_into<'a>(page: &'a [u8], entries: &mut Vec<&'a [u8]>, keys: &mut [u32]) -> Result<Done, DecodeError> {
    entries.clear();
    let (count, k) = zigzag32(page, 0, Field::DictSize)?;
    let mut pos = k;
    // Every entry takes at least its length byte.
    if count < 0 || count as usize > page.len() - pos {
        return Err(DecodeError::BadCount {
            field: Field::DictSize,
            count: i64::from(count),
            offset: 0,
        });
    }
    entries.reserve(count as usize);
    for _ in 0..count {
        let at = pos;
        let (len, k) = zigzag32(page, pos, Field::DictEntry)?;
        pos += k;
        if len < 0 {
            return Err(DecodeError::BadCount {
                field: Field::DictEntry,
                count: i64::from(len),
                offset: at,
            });
        }
        // Cut short: reported where its bytes start.
        let Some(entry) = page.get(pos..pos + len as usize) else {
            return Err(DecodeError::Truncated {
                field: Field::DictEntry,
                offset: pos,
                bit: 0,
            });
        };
        entries.push(entry);
        pos += len as usize;
    }
    let stream = pos;
    let done = rle::decode_into::<u32>(&page[stream..], keys).map_err(|e| e.shifted(stream))?;
    let written = &keys[..done.values];
    // Indices are i32 in the format: a negative one is above every entry as a u32.
    let largest = written.iter().copied().fold(0u32, u32::max);
    if !written.is_empty() && largest >= count as u32 {
        let bad = written
            .iter()
            .find(|&&key| key >= count as u32)
            .expect("the largest key is out of range");
        return Err(DecodeError::BadCount {
            field: Field::DictIndex,
            count: i64::from(*bad as i32),
            offset: stream,
        });
    }
    Ok(Done {
        values: done.values,
        consumed: stream + done.consumed,
    })
}

pub type Decode = for<'a> fn(&'a [u8], &mut Vec<&'a [u8]>, &mut [u32]) -> Result<Done, DecodeError>;

/// Implementations, best first.
pub static IMPLEMENTATIONS: &[crate::Implementation<Decode>] =
    &[crate::Implementation::portable("dictionary/keys", decode_into)];

#[cfg(test)]
mod tests {
    use super::*;

    /// The notes' example: `["ab", "", "ab", "ab"]`.
    #[test]
    fn known_answer() {
        let page = [0x04, 0x04, 0x61, 0x62, 0x00, 0x04, 0x01, 0x03, 0x04, 0x40];
        let mut entries = Vec::new();
        let mut keys = [9u32; 5];
        assert_eq!(
            decode_into(&page, &mut entries, &mut keys),
            Ok(Done {
                values: 4,
                consumed: 10
            })
        );
        assert_eq!(entries, [&b"ab"[..], &b""[..]]);
        assert_eq!(keys, [0, 1, 0, 0, 9]);
        // Only the dictionary: no values.
        assert_eq!(
            decode_into(&page[..5], &mut entries, &mut keys),
            Ok(Done { values: 0, consumed: 5 })
        );
        // The count's bounds: no entries at all, and entries that take one
        // byte each up to the page's end.
        assert_eq!(
            decode_into(&[0x00], &mut entries, &mut keys),
            Ok(Done { values: 0, consumed: 1 })
        );
        assert!(entries.is_empty());
        assert_eq!(
            decode_into(&[0x04, 0x00, 0x00], &mut entries, &mut keys),
            Ok(Done { values: 0, consumed: 3 })
        );
        assert_eq!(entries, [&b""[..], &b""[..]]);
    }

    #[test]
    fn refused_pages() {
        let go = |page: &[u8]| decode_into(page, &mut Vec::new(), &mut [0u32; 8]);
        let count = |field, count, offset| Err(DecodeError::BadCount { field, count, offset });
        // A negative count (zigzag 1 = -1), more entries than bytes.
        assert_eq!(go(&[0x01]), count(Field::DictSize, -1, 0));
        assert_eq!(go(&[0x04, 0x00]), count(Field::DictSize, 2, 0));
        // A negative entry length, an entry past the page.
        assert_eq!(go(&[0x02, 0x03, 0x00]), count(Field::DictEntry, -2, 1));
        assert_eq!(
            go(&[0x02, 0x06, 0x61]),
            Err(DecodeError::Truncated {
                field: Field::DictEntry,
                offset: 2,
                bit: 0
            })
        );
        // Index 1 with one entry (an RLE run of 1 × 1), at the stream's start.
        assert_eq!(go(&[0x02, 0x00, 0x03, 0x01, 0x02, 0x01]), count(Field::DictIndex, 1, 2));
        // The stream's own errors at page offsets: bit width 40.
        assert_eq!(
            go(&[0x02, 0x00, 0x02, 0x28, 0x02]),
            Err(DecodeError::BadBitWidth {
                width: 40,
                max: 32,
                offset: 3
            })
        );
    }
}
