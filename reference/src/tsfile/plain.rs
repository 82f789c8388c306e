//! PLAIN: BOOLEAN one byte, INT32 zigzag varint, INT64 / FLOAT / DOUBLE
//! big-endian, TEXT / BLOB zigzag-varint length then bytes. A page is values
//! until its bytes end.

use super::{write_zigzag32, Bytes, DecodeError, Decoded, Field};

fn check_room(r: &Bytes<'_>, n: usize, max: usize) -> Result<(), DecodeError> {
    if n == max {
        return Err(DecodeError::TooManyValues { max, offset: r.pos });
    }
    Ok(())
}

pub fn decode_bool(page: &[u8], max_values: usize) -> Result<Decoded<bool>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values = Vec::new();
    while !r.at_end() {
        check_room(&r, values.len(), max_values)?;
        let at = r.pos;
        match r.byte(Field::Value)? {
            0 => values.push(false),
            1 => values.push(true),
            byte => return Err(DecodeError::BadBoolean { byte, offset: at }),
        }
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

pub fn decode_i32(page: &[u8], max_values: usize) -> Result<Decoded<i32>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values = Vec::new();
    while !r.at_end() {
        check_room(&r, values.len(), max_values)?;
        values.push(r.zigzag32(Field::Varint)?);
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

fn decode_be(page: &[u8], size: usize, max_values: usize) -> Result<Decoded<u64>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values = Vec::new();
    while !r.at_end() {
        check_room(&r, values.len(), max_values)?;
        values.push(r.be(size, Field::Value)?);
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

pub fn decode_i64(page: &[u8], max_values: usize) -> Result<Decoded<i64>, DecodeError> {
    let d = decode_be(page, 8, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| v as i64).collect(),
        consumed: d.consumed,
    })
}

pub fn decode_f32(page: &[u8], max_values: usize) -> Result<Decoded<f32>, DecodeError> {
    let d = decode_be(page, 4, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(|v| f32::from_bits(v as u32)).collect(),
        consumed: d.consumed,
    })
}

pub fn decode_f64(page: &[u8], max_values: usize) -> Result<Decoded<f64>, DecodeError> {
    let d = decode_be(page, 8, max_values)?;
    Ok(Decoded {
        values: d.values.into_iter().map(f64::from_bits).collect(),
        consumed: d.consumed,
    })
}

/// TEXT, STRING and BLOB.
pub fn decode_binary(page: &[u8], max_values: usize) -> Result<Decoded<Vec<u8>>, DecodeError> {
    let mut r = Bytes::new(page);
    let mut values = Vec::new();
    while !r.at_end() {
        check_room(&r, values.len(), max_values)?;
        let at = r.pos;
        let len = r.zigzag32(Field::Varint)?;
        if len < 0 {
            return Err(DecodeError::BadCount {
                field: Field::Bytes,
                count: len as i64,
                offset: at,
            });
        }
        let start = r.pos;
        let mut v = Vec::new();
        for _ in 0..len {
            v.push(r.byte(Field::Bytes).map_err(|_| DecodeError::Truncated {
                field: Field::Bytes,
                offset: start,
                bit: 0,
            })?);
        }
        values.push(v);
    }
    Ok(Decoded {
        values,
        consumed: r.pos,
    })
}

pub fn encode_bool(values: &[bool]) -> Vec<u8> {
    values.iter().map(|&b| b as u8).collect()
}

pub fn encode_i32(values: &[i32]) -> Vec<u8> {
    let mut out = Vec::new();
    for &v in values {
        write_zigzag32(&mut out, v);
    }
    out
}

pub fn encode_i64(values: &[i64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

pub fn encode_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_bits().to_be_bytes()).collect()
}

pub fn encode_f64(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_bits().to_be_bytes()).collect()
}

pub fn encode_binary(values: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        write_zigzag32(&mut out, v.len() as i32);
        out.extend_from_slice(v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use crate::tsfile::test_hex as hex;

    #[test]
    fn known_answers() {
        insta::assert_snapshot!(hex(&encode_i32(&[0, -1, 1, 64, i32::MIN])), @"00 01 02 80 01 ff ff ff ff 0f");
        insta::assert_snapshot!(hex(&encode_i64(&[1, -2])), @"00 00 00 00 00 00 00 01 ff ff ff ff ff ff ff fe");
        insta::assert_snapshot!(hex(&encode_f32(&[1.0])), @"3f 80 00 00");
        insta::assert_snapshot!(hex(&encode_binary(&[b"ab".to_vec(), vec![]])), @"04 61 62 00");
        assert_eq!(
            decode_i32(&encode_i32(&[0, -1, 1, 64, i32::MIN]), 9).unwrap().values,
            vec![0, -1, 1, 64, i32::MIN]
        );
    }

    #[test]
    fn every_error_variant() {
        let tr = |field, offset| DecodeError::Truncated { field, offset, bit: 0 };
        assert_eq!(decode_i64(&[0; 12], 9).unwrap_err(), tr(Field::Value, 8));
        assert_eq!(decode_f32(&[0; 5], 9).unwrap_err(), tr(Field::Value, 4));
        assert_eq!(
            decode_i64(&[0; 16], 1),
            Err(DecodeError::TooManyValues { max: 1, offset: 8 })
        );
        assert_eq!(decode_i32(&[0x80], 9).unwrap_err(), tr(Field::Varint, 0));
        assert_eq!(
            decode_i32(&[0, 0xff, 0xff, 0xff, 0xff, 0x1f], 9),
            Err(DecodeError::BadVarint { offset: 1 })
        );
        assert_eq!(
            decode_i32(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], 9),
            Err(DecodeError::BadVarint { offset: 0 })
        );
        assert_eq!(
            decode_bool(&[1, 0, 2], 9),
            Err(DecodeError::BadBoolean { byte: 2, offset: 2 })
        );
        assert_eq!(
            decode_binary(&[1], 9),
            Err(DecodeError::BadCount {
                field: Field::Bytes,
                count: -1,
                offset: 0
            })
        );
        assert_eq!(decode_binary(&[0, 6, 1, 2], 9).unwrap_err(), tr(Field::Bytes, 2));
    }

    proptest! {
        #[test]
        fn round_trips(i in proptest::collection::vec(any::<i32>(), 0..50),
                       l in proptest::collection::vec(any::<i64>(), 0..50),
                       b in proptest::collection::vec(any::<bool>(), 0..50),
                       t in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..20), 0..20)) {
            prop_assert_eq!(decode_i32(&encode_i32(&i), 50).unwrap().values, i);
            prop_assert_eq!(decode_i64(&encode_i64(&l), 50).unwrap().values, l.clone());
            let d: Vec<f64> = l.iter().map(|&x| f64::from_bits(x as u64)).collect();
            let back = decode_f64(&encode_f64(&d), 50).unwrap().values;
            prop_assert_eq!(back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), d.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
            prop_assert_eq!(decode_bool(&encode_bool(&b), 50).unwrap().values, b);
            prop_assert_eq!(decode_binary(&encode_binary(&t), 50).unwrap().values, t);
        }
    }
}
