//! PostgreSQL `bytea` text formats, one character at a time, written from
//! `shared/formats/pg-bytea.md` (the server's `byteain` / `byteaout`).
//!
//! Decoding: a text that starts with the two bytes `\x` is hex; anything else
//! (including `\X...`) is the escape format.
//!
//! Hex: after `\x`, a loop that at each step either skips one whitespace byte
//! (space, `\n`, `\t`, `\r`) or reads a pair of digits `0-9a-fA-F`. A
//! non-digit where a pair's first or second digit belongs is
//! [`ByteaError::InvalidHexDigit`] at that byte; the input ending after a
//! pair's first digit is [`ByteaError::OddNumberOfDigits`] (offset = length).
//!
//! Escape: a byte other than backslash is itself; `\\` is one backslash;
//! `\` + digit 0-3 + two digits 0-7 is one byte; any other backslash
//! sequence (including one cut short by the end) is
//! [`ByteaError::InvalidEscape`] at the backslash.

/// How a literal was rejected. Offsets count bytes from the start of the
/// whole text (the `\x` prefix included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteaError {
    /// `invalid hexadecimal digit: "C"`, SQLSTATE 22023.
    InvalidHexDigit { offset: usize, character: u8 },
    /// `invalid hexadecimal data: odd number of digits`, SQLSTATE 22023.
    OddNumberOfDigits { offset: usize },
    /// `invalid input syntax for type bytea`, SQLSTATE 22P02.
    InvalidEscape { offset: usize },
}

impl ByteaError {
    /// The SQLSTATE the server reports for this error.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            ByteaError::InvalidHexDigit { .. } | ByteaError::OddNumberOfDigits { .. } => "22023",
            ByteaError::InvalidEscape { .. } => "22P02",
        }
    }
}

/// The value of a hex digit, or `None`.
fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn is_hex_whitespace(c: u8) -> bool {
    c == b' ' || c == b'\n' || c == b'\t' || c == b'\r'
}

fn is_octal(c: Option<&u8>) -> bool {
    matches!(c, Some(b'0'..=b'7'))
}

/// Decode a whole `bytea` literal as the server's input function does.
pub fn decode(text: &[u8]) -> Result<Vec<u8>, ByteaError> {
    if text.len() >= 2 && text[0] == b'\\' && text[1] == b'x' {
        decode_hex(text)
    } else {
        decode_escape(text)
    }
}

fn decode_hex(text: &[u8]) -> Result<Vec<u8>, ByteaError> {
    let mut out = Vec::new();
    let mut pos = 2;
    while pos < text.len() {
        let c = text[pos];
        if is_hex_whitespace(c) {
            pos += 1;
            continue;
        }
        let Some(high) = hex_value(c) else {
            return Err(ByteaError::InvalidHexDigit {
                offset: pos,
                character: c,
            });
        };
        pos += 1;
        if pos >= text.len() {
            return Err(ByteaError::OddNumberOfDigits { offset: text.len() });
        }
        let c = text[pos];
        let Some(low) = hex_value(c) else {
            return Err(ByteaError::InvalidHexDigit {
                offset: pos,
                character: c,
            });
        };
        pos += 1;
        out.push(high * 16 + low);
    }
    Ok(out)
}

fn decode_escape(text: &[u8]) -> Result<Vec<u8>, ByteaError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        if text[pos] != b'\\' {
            out.push(text[pos]);
            pos += 1;
        } else if matches!(text.get(pos + 1), Some(b'0'..=b'3'))
            && is_octal(text.get(pos + 2))
            && is_octal(text.get(pos + 3))
        {
            let digit = |k: usize| (text[pos + k] - b'0') as u32;
            let value = digit(1) * 64 + digit(2) * 8 + digit(3);
            out.push(value as u8);
            pos += 4;
        } else if text.get(pos + 1) == Some(&b'\\') {
            out.push(b'\\');
            pos += 2;
        } else {
            return Err(ByteaError::InvalidEscape { offset: pos });
        }
    }
    Ok(out)
}

/// The server's hex output (`bytea_output = 'hex'`): `\x` and two
/// lower-case digits per byte.
pub fn encode_hex(bytes: &[u8]) -> Vec<u8> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = b"\\x".to_vec();
    for &b in bytes {
        out.push(DIGITS[(b / 16) as usize]);
        out.push(DIGITS[(b % 16) as usize]);
    }
    out
}

/// The server's escape output (`bytea_output = 'escape'`): backslash as
/// `\\`; bytes below 0x20 or above 0x7e as `\` and three octal digits;
/// every other byte as itself.
pub fn encode_escape(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in bytes {
        if b == b'\\' {
            out.extend_from_slice(b"\\\\");
        } else if !(0x20..=0x7e).contains(&b) {
            out.push(b'\\');
            out.push(b'0' + b / 64);
            out.push(b'0' + (b / 8) % 8);
            out.push(b'0' + b % 8);
        } else {
            out.push(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_answers_from_the_format_notes() {
        assert_eq!(decode(b"\\xDEADbeef"), Ok(vec![0xde, 0xad, 0xbe, 0xef]));
        assert_eq!(decode(b"\\x de ad\n\tbe\ref "), Ok(vec![0xde, 0xad, 0xbe, 0xef]));
        assert_eq!(decode(b"\\x"), Ok(vec![]));
        assert_eq!(decode(b""), Ok(vec![]));
        assert_eq!(decode(b"abc\\\\\\000\\377"), Ok(b"abc\\\x00\xff".to_vec()));
        assert_eq!(decode(b"\xe9t\xe9"), Ok(b"\xe9t\xe9".to_vec()));
        assert_eq!(encode_hex(&[0xde, 0xad, 0x00]), b"\\xdead00".to_vec());
        assert_eq!(
            encode_escape(b"a\\\x00\x1f \x7e\x7f\xff"),
            b"a\\\\\\000\\037 ~\\177\\377".to_vec()
        );
    }

    #[test]
    fn every_error_variant_with_its_position() {
        assert_eq!(
            decode(b"\\x0g"),
            Err(ByteaError::InvalidHexDigit {
                offset: 3,
                character: b'g'
            })
        );
        assert_eq!(
            decode(b"\\x 0 1"),
            Err(ByteaError::InvalidHexDigit {
                offset: 4,
                character: b' '
            })
        );
        assert_eq!(
            decode(b"\\x\\x"),
            Err(ByteaError::InvalidHexDigit {
                offset: 2,
                character: b'\\'
            })
        );
        assert_eq!(decode(b"\\x012"), Err(ByteaError::OddNumberOfDigits { offset: 5 }));
        assert_eq!(decode(b"\\x0"), Err(ByteaError::OddNumberOfDigits { offset: 3 }));
        assert_eq!(decode(b"\\X00"), Err(ByteaError::InvalidEscape { offset: 0 }));
        assert_eq!(decode(b"ab\\400"), Err(ByteaError::InvalidEscape { offset: 2 }));
        assert_eq!(decode(b"ab\\08"), Err(ByteaError::InvalidEscape { offset: 2 }));
        assert_eq!(decode(b"ab\\07"), Err(ByteaError::InvalidEscape { offset: 2 }));
        assert_eq!(decode(b"\\"), Err(ByteaError::InvalidEscape { offset: 0 }));
        assert_eq!(decode(b"\\\\\\"), Err(ByteaError::InvalidEscape { offset: 2 }));
        assert_eq!(
            ByteaError::InvalidHexDigit {
                offset: 0,
                character: 0
            }
            .sqlstate(),
            "22023"
        );
        assert_eq!(ByteaError::OddNumberOfDigits { offset: 0 }.sqlstate(), "22023");
        assert_eq!(ByteaError::InvalidEscape { offset: 0 }.sqlstate(), "22P02");
    }

    #[test]
    #[cfg_attr(miri, ignore = "insta reads its snapshot files, which Miri's isolation refuses")]
    fn snapshot_of_encodings() {
        let all: Vec<u8> = (0..=255).collect();
        insta::assert_snapshot!("hex_all_bytes", String::from_utf8(encode_hex(&all)).unwrap());
        insta::assert_snapshot!("escape_all_bytes", String::from_utf8(encode_escape(&all)).unwrap());
    }

    proptest! {
        #[test]
        fn both_encodings_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            prop_assert_eq!(decode(&encode_hex(&bytes)), Ok(bytes.clone()));
            prop_assert_eq!(decode(&encode_escape(&bytes)), Ok(bytes));
        }

        #[test]
        fn never_panics(text in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode(&text);
        }
    }
}
