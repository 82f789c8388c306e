//! DICTIONARY (encoding id 1) for TEXT and STRING: the page's distinct
//! values in order of first appearance (zigzag-varint count, then each as
//! zigzag-varint length + bytes), then each value's index in an INT32 RLE
//! stream. Notes: `docs/reference/tsfile-encodings.md`.

use super::{rle, write_zigzag32, Bytes, DecodeError, Decoded, Field};

/// A decoded page kept as its parts: the dictionary and one index per value.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    pub dictionary: Vec<Vec<u8>>,
    /// Every index is below `dictionary.len()`.
    pub indices: Vec<u32>,
    pub consumed: usize,
}

/// Decode a page into its dictionary and indices (no value is copied).
pub fn decode_parts(page: &[u8], max_values: usize) -> Result<Parts, DecodeError> {
    let mut r = Bytes::new(page);
    let count = r.zigzag32(Field::DictSize)?;
    // Every entry takes at least its length byte.
    if count < 0 || count as usize > r.remaining() {
        return Err(DecodeError::BadCount {
            field: Field::DictSize,
            count: count as i64,
            offset: 0,
        });
    }
    let mut dictionary = Vec::new();
    for _ in 0..count {
        let at = r.pos;
        let len = r.zigzag32(Field::DictEntry)?;
        if len < 0 {
            return Err(DecodeError::BadCount {
                field: Field::DictEntry,
                count: len as i64,
                offset: at,
            });
        }
        let start = r.pos;
        if r.remaining() < len as usize {
            return Err(DecodeError::Truncated {
                field: Field::DictEntry,
                offset: start,
                bit: 0,
            });
        }
        dictionary.push(page[start..start + len as usize].to_vec());
        r.pos = start + len as usize;
    }
    let indices_at = r.pos;
    let d = rle::decode_i32(&page[indices_at..], max_values).map_err(|e| e.shifted(indices_at))?;
    let mut indices = Vec::with_capacity(d.values.len());
    for &v in &d.values {
        if v < 0 || v as i64 >= dictionary.len() as i64 {
            // The RLE reference does not say where each value sits: the
            // position is the index stream's start.
            return Err(DecodeError::BadCount {
                field: Field::DictIndex,
                count: v as i64,
                offset: indices_at,
            });
        }
        indices.push(v as u32);
    }
    Ok(Parts {
        dictionary,
        indices,
        consumed: indices_at + d.consumed,
    })
}

/// Decode a whole page to its values (each a copy of its dictionary entry).
pub fn decode(page: &[u8], max_values: usize) -> Result<Decoded<Vec<u8>>, DecodeError> {
    let p = decode_parts(page, max_values)?;
    Ok(Decoded {
        values: p.indices.iter().map(|&i| p.dictionary[i as usize].clone()).collect(),
        consumed: p.consumed,
    })
}

/// Encode values as the Java writer does: dictionary in order of first
/// appearance, indices with Java's RLE run plan (`java_runs == false`: the
/// C++ writer's bit-packed runs).
pub fn encode(values: &[Vec<u8>], java_runs: bool) -> Vec<u8> {
    // Entries in order of first appearance; the map finds an entry's index
    // (a scan of the entries would make a page of distinct values quadratic).
    let mut dictionary: Vec<&[u8]> = Vec::new();
    let mut index_of: std::collections::HashMap<&[u8], i32> = std::collections::HashMap::new();
    let mut indices: Vec<i32> = Vec::with_capacity(values.len());
    for v in values {
        let next = dictionary.len() as i32;
        let i = *index_of.entry(v.as_slice()).or_insert_with(|| {
            dictionary.push(v);
            next
        });
        indices.push(i);
    }
    let mut out = Vec::new();
    write_zigzag32(&mut out, dictionary.len() as i32);
    for d in &dictionary {
        write_zigzag32(&mut out, d.len() as i32);
        out.extend_from_slice(d);
    }
    // No values, no index stream (the writers never write a page without
    // values).
    if !indices.is_empty() {
        out.extend(rle::encode_i32(&indices, java_runs));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    fn s(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|x| x.as_bytes().to_vec()).collect()
    }

    #[test]
    fn known_answer() {
        // Dictionary of 2 (zigzag 04): "ab" (04 61 62), "" (00); indices
        // 0 1 0 0 in one RLE package: width 1, one bit-packed group.
        let v = s(&["ab", "", "ab", "ab"]);
        let page = encode(&v, true);
        insta::assert_snapshot!(hex(&page), @"04 04 61 62 00 04 01 03 04 40");
        let d = decode(&page, 4).unwrap();
        assert_eq!(d.values, v);
        assert_eq!(d.consumed, page.len());
        let p = decode_parts(&page, 4).unwrap();
        assert_eq!(p.indices, vec![0, 1, 0, 0]);
        assert_eq!(p.dictionary, s(&["ab", ""]));
    }

    #[test]
    fn edge_values() {
        let mut v = vec![vec![0u8, 255, 0], vec![], vec![0xFF; 300]];
        v.extend(std::iter::repeat_n(b"same".to_vec(), 1000));
        v.extend((0..200).map(|i| format!("k{}", i % 150).into_bytes()));
        for java in [true, false] {
            let page = encode(&v, java);
            let d = decode(&page, v.len()).unwrap();
            assert_eq!(d.values, v);
            assert_eq!(d.consumed, page.len());
        }
        // No values: an empty dictionary and no index stream.
        assert_eq!(encode(&[], true), vec![0]);
        assert_eq!(decode(&[0], 0).unwrap().values, Vec::<Vec<u8>>::new());
    }

    #[test]
    fn every_error_variant() {
        let tr = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
        assert_eq!(decode(&[], 9), Err(tr(Field::DictSize, 0)));
        let bad_size = |count| DecodeError::BadCount {
            field: Field::DictSize,
            count,
            offset: 0,
        };
        assert_eq!(decode(&[1], 9), Err(bad_size(-1)));
        assert_eq!(decode(&[4, 0], 9), Err(bad_size(2)));
        assert_eq!(decode(&[2, 0x80], 9), Err(tr(Field::DictEntry, 1)));
        assert_eq!(
            decode(&[2, 3, 0], 9),
            Err(DecodeError::BadCount {
                field: Field::DictEntry,
                count: -2,
                offset: 1
            })
        );
        assert_eq!(decode(&[2, 6, 0x61], 9), Err(tr(Field::DictEntry, 2)));
        assert_eq!(
            decode(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], 9),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        // An index beyond the dictionary: "ab" only, then index 1.
        let mut page = vec![2, 4, 0x61, 0x62];
        page.extend(rle::encode_i32(&[0, 1], true));
        assert_eq!(
            decode(&page, 9),
            Err(DecodeError::BadCount {
                field: Field::DictIndex,
                count: 1,
                offset: 4
            })
        );
        // The index stream's errors, at page offsets.
        // 04 02 78 02 79 | 04 01 03 02 40
        let page = encode(&s(&["x", "y"]), true);
        assert_eq!(decode(&page[..5], 9).unwrap().consumed, 5);
        assert_eq!(
            decode(&page[..6], 9),
            Err(DecodeError::BadCount {
                field: Field::RleLength,
                count: 4,
                offset: 5
            })
        );
        assert_eq!(decode(&page, 1), Err(DecodeError::TooManyValues { max: 1, offset: 7 }));
    }

    #[test]
    fn every_prefix_is_an_error_or_shorter() {
        let v = s(&["alpha", "beta", "alpha", "", "gamma", "beta"]);
        let page = encode(&v, true);
        for n in 0..page.len() {
            // Only the prefix that ends with the dictionary decodes (to no
            // values): 1 + (1 + 5) + (1 + 4) + 1 + (1 + 5) = 19 bytes.
            if let Ok(d) = decode(&page[..n], 9) {
                assert!(d.values.is_empty() && d.consumed == n && n == 19, "{n}");
            }
        }
    }

    /// Bytes written by the official writer (PyPI `tsfile` 2.5.0, the C++
    /// library), as hex.
    use crate::tsfile::test_unhex as unhex;

    #[test]
    fn official_writer_pages() {
        // DICTIONARY, TEXT and STRING alike, written by PyPI tsfile 2.5.0.
        let p = unhex("04 04 61 62 00 04 01 03 04 40");
        let v = s(&["ab", "", "ab", "ab"]);
        assert_eq!(encode(&v, true), p);
        assert_eq!(decode(&p, 4).unwrap().values, v);
    }

    proptest! {
        #[test]
        fn round_trip(v in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..4), 0..300), java: bool) {
            let page = encode(&v, java);
            let d = decode(&page, v.len()).unwrap();
            prop_assert_eq!(d.values, v);
            prop_assert_eq!(d.consumed, page.len());
        }
    }
}
