//! pgjdbc's bytea decoding (`org.postgresql.util.PGbytea.toBytes`, 42.5.5
//! as Debian bookworm ships it) as the external peer `pgjdbc`
//! (`subjects/pgjdbc/`), and the differences from the reference that are
//! allowed for it.
//!
//! pgjdbc decodes what the server sends in `bytea_output` hex or escape
//! format and validates nothing: it trusts the server. The reference is
//! PostgreSQL's *input* function, which also accepts spellings the server
//! never outputs (whitespace between hex pairs) and rejects malformed text.
//! So on exactly those inputs pgjdbc differs, and each rule below holds it,
//! there, to [`to_bytes`]: what pgjdbc's code does with the input, derived
//! from the input alone. A difference no rule explains, or a value other
//! than the one pgjdbc's code gives, is a finding.
//!
//! The model follows `PGbytea.java` at tag REL42.5.5
//! (<https://github.com/pgjdbc/pgjdbc/blob/REL42.5.5/pgjdbc/src/main/java/org/postgresql/util/PGbytea.java>):
//! - A literal of at least 2 bytes starting with `\x` is hex: `(len - 2) / 2`
//!   output bytes, pair `k` from the bytes at `2 + 2k` and `3 + 2k`, each
//!   looked up in a 55-entry table indexed by the byte (signed, as Java's
//!   `byte` is) minus `'0'`: `0-9`, `A-F`, `a-f` give their values, the other
//!   bytes from `'0'` to `'f'` give 0, anything else throws
//!   `ArrayIndexOutOfBoundsException`, as does the missing digit of an odd
//!   count.
//! - Anything else is the escape format: `\\` is a backslash; `\` and any
//!   three bytes `a b c` are the low 8 bits of `(a-48)*64 + (b-48)*8 +
//!   (c-48)`, with no check that they are octal digits; a backslash too near
//!   the end reads past it and throws. Literals over 2 MiB first count the
//!   escapes to size the output (an undercount throws when the output is
//!   written, an overcount below zero is `NegativeArraySizeException`).

use super::{ByteaFault, ByteaInput, ByteaValue, PgBytea};
use crate::engine::{AllowedDifference, Campaign, Outcome};

/// The subject's name (the rules below apply to it).
pub const NAME: &str = "pgjdbc";

/// Above this length pgjdbc sizes its escape-format output by counting the
/// escapes first.
const MAX_3_BUFF_SIZE: usize = 2 * 1024 * 1024;

/// Java's message for an array index out of bounds.
fn out_of_bounds(index: i64, length: usize) -> String {
    format!("ArrayIndexOutOfBoundsException: Index {index} out of bounds for length {length}")
}

/// What `PGbytea.toBytes` returns for `text`, or the exception it throws
/// (`Class: message`, as the subject reports it).
pub fn to_bytes(text: &[u8]) -> Result<Vec<u8>, String> {
    if text.len() >= 2 && text[0] == b'\\' && text[1] == b'x' {
        hex(text)
    } else {
        escape(text)
    }
}

/// The value of a hex digit in pgjdbc's table: `Err` for a byte outside it.
fn hex_value(byte: u8) -> Result<u8, String> {
    const TABLE_LEN: usize = (b'f' - b'0' + 1) as usize;
    // Java bytes are signed: 0x80..=0xff are negative, below '0'.
    let index = i64::from(byte as i8) - i64::from(b'0');
    match u8::try_from(index).ok().filter(|&i| usize::from(i) < TABLE_LEN) {
        None => Err(out_of_bounds(index, TABLE_LEN)),
        Some(_) => Ok(match byte {
            b'0'..=b'9' => byte - b'0',
            b'A'..=b'F' => byte - b'A' + 10,
            b'a'..=b'f' => byte - b'a' + 10,
            _ => 0,
        }),
    }
}

fn hex(text: &[u8]) -> Result<Vec<u8>, String> {
    let digits = text.len() - 2;
    let mut out = Vec::with_capacity(digits / 2);
    for i in (0..digits).step_by(2) {
        let high = hex_value(text[2 + i])?;
        let low = text
            .get(3 + i)
            .ok_or_else(|| out_of_bounds(3 + i as i64, text.len()))
            .and_then(|&b| hex_value(b))?;
        out.push(high << 4 | low);
    }
    Ok(out)
}

fn escape(text: &[u8]) -> Result<Vec<u8>, String> {
    let at = |i: usize| text.get(i).copied().ok_or_else(|| out_of_bounds(i as i64, text.len()));
    // The output's size: the literal's length, or for a long literal its
    // length less what pgjdbc counts the escapes to save.
    let capacity = if text.len() > MAX_3_BUFF_SIZE {
        let mut size = text.len() as i64;
        let mut i = 0;
        while i < text.len() {
            if text[i] == b'\\' {
                i += 1;
                size -= if at(i)? == b'\\' { 1 } else { 3 };
            }
            i += 1;
        }
        if size < 0 {
            return Err(format!("NegativeArraySizeException: {size}"));
        }
        size as usize
    } else {
        text.len()
    };
    let mut out = Vec::with_capacity(capacity.min(text.len()));
    let push = |byte: u8, out: &mut Vec<u8>| {
        if out.len() == capacity {
            return Err(out_of_bounds(out.len() as i64, capacity));
        }
        out.push(byte);
        Ok(())
    };
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' {
            i += 1;
            let second = at(i)?;
            if second == b'\\' {
                push(b'\\', &mut out)?;
            } else {
                let (b, c) = (at(i + 1)?, at(i + 2)?);
                i += 2;
                let value = [second, b, c]
                    .iter()
                    .fold(0i64, |acc, &d| acc * 8 + i64::from(d as i8) - 48);
                push(value as u8, &mut out)?;
            }
        } else {
            push(text[i], &mut out)?;
        }
        i += 1;
    }
    Ok(out)
}

/// Whether `got` is what pgjdbc's code gives for `input`.
fn is_pgjdbc_decoding(input: &ByteaInput, got: &Outcome<PgBytea>) -> bool {
    match (to_bytes(&input.text), got) {
        (Ok(bytes), Ok(value)) => {
            *value
                == ByteaValue {
                    bytes,
                    consumed: input.text.len(),
                }
        }
        (Err(thrown), Err(ByteaFault::Subject { message })) => thrown == *message,
        _ => false,
    }
}

fn is_hex(input: &ByteaInput) -> bool {
    input.text.starts_with(b"\\x")
}

/// The allowed differences of the `pgjdbc` peer. Bounds: about 1.3 times
/// the largest share each rule explained per category over 15 seeds at 200
/// calls (1-3, 11-99 and the random seeds of CI runs), and a small share
/// where a random byte can make the form (none elsewhere); the categories that sweep byte values and
/// lengths by call index (`*-invalid-byte`, `hex-odd-and-split`) and those
/// made of nothing but such literals are bounded by the rule's condition
/// alone.
pub fn with_allowed_differences(campaign: Campaign<PgBytea>) -> Campaign<PgBytea> {
    campaign
        .allow(AllowedDifference {
            id: "pgjdbc-hex-whitespace",
            implementation: NAME,
            reason: "the server accepts whitespace between hex pairs but never sends it; pgjdbc reads every \
                     byte after `\\x` as a digit, so it decodes such a literal as its code says (whitespace \
                     is out of its table and throws)",
            applies: |input, expected, got| {
                expected.is_ok()
                    && is_hex(input)
                    && input.text[2..].iter().any(|b| b" \t\n\r".contains(b))
                    && is_pgjdbc_decoding(input, got)
            },
            bounds: &[
                ("hex-whitespace", 1.0),
                ("hex-strategy", 0.65),
                ("large", 0.45),
                ("hex-malformed", 0.045),
                ("random-text", 0.01),
                ("reuse", 0.05),
            ],
        })
        .allow(AllowedDifference {
            id: "pgjdbc-hex-unvalidated",
            implementation: NAME,
            reason: "pgjdbc does not validate hex text (the server never sends a bad digit or an odd count): \
                     a byte between '0' and 'f' that is not a digit counts as 0, others and a missing last \
                     digit throw",
            applies: |input, expected, got| {
                matches!(
                    expected,
                    Err(ByteaFault::InvalidHexDigit { .. } | ByteaFault::OddNumberOfDigits { .. })
                ) && is_hex(input)
                    && is_pgjdbc_decoding(input, got)
            },
            bounds: &[
                ("hex-invalid-byte", 1.0),
                ("hex-odd-and-split", 1.0),
                // A swept or random byte `x` after a leading backslash makes
                // a hex literal.
                ("escape-invalid-byte", 0.01),
                ("escape-malformed", 0.01),
                ("hex-malformed", 0.72),
                ("random-text", 0.63),
                ("reuse", 0.15),
            ],
        })
        .allow(AllowedDifference {
            id: "pgjdbc-escape-unvalidated",
            implementation: NAME,
            reason: "pgjdbc does not validate escape text (the server only sends `\\\\` and `\\ooo`): a \
                     backslash and any three bytes make a byte, and a backslash near the end throws",
            applies: |input, expected, got| {
                matches!(expected, Err(ByteaFault::InvalidEscape { .. }))
                    && !is_hex(input)
                    && is_pgjdbc_decoding(input, got)
            },
            bounds: &[
                ("escape-invalid-byte", 1.0),
                ("escape-malformed", 1.0),
                ("hex-malformed", 0.56),
                ("random-text", 0.32),
                ("reuse", 0.1),
            ],
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_follows_the_table_and_throws_outside_it() {
        assert_eq!(to_bytes(b"\\x"), Ok(vec![]));
        assert_eq!(to_bytes(b"\\x00fFa9"), Ok(vec![0x00, 0xff, 0xa9]));
        // ':' .. '@' and 'G' .. '`' are in the table as 0.
        assert_eq!(to_bytes(b"\\xG1:Z"), Ok(vec![0x01, 0x00]));
        assert_eq!(
            to_bytes(b"\\x 1"),
            Err("ArrayIndexOutOfBoundsException: Index -16 out of bounds for length 55".into())
        );
        assert_eq!(
            to_bytes(b"\\x1f2"),
            Err("ArrayIndexOutOfBoundsException: Index 5 out of bounds for length 5".into())
        );
        assert_eq!(
            to_bytes(b"\\xzz"),
            Err("ArrayIndexOutOfBoundsException: Index 74 out of bounds for length 55".into())
        );
        assert_eq!(
            to_bytes(b"\\x\xff0"),
            Err("ArrayIndexOutOfBoundsException: Index -49 out of bounds for length 55".into())
        );
    }

    #[test]
    fn escape_takes_any_three_bytes_and_throws_at_the_end() {
        assert_eq!(to_bytes(b""), Ok(vec![]));
        assert_eq!(to_bytes(b"\\"), Err(out_of_bounds(1, 1)));
        assert_eq!(to_bytes(b"a\\\\b\\001\\377"), Ok(b"a\\b\x01\xff".to_vec()));
        // \400 wraps; non-octal bytes are used as they are.
        assert_eq!(to_bytes(b"\\400"), Ok(vec![0]));
        assert_eq!(to_bytes(b"\\9a!"), Ok(vec![((9 * 64 + 49 * 8 - 15) & 0xff) as u8]));
        assert_eq!(to_bytes(b"\\12"), Err(out_of_bounds(3, 3)));
        // "\X" is not the hex prefix.
        assert_eq!(to_bytes(b"\\X41"), Ok(vec![(40 * 64 + 4 * 8 + 1) as u8]));
    }

    #[test]
    fn long_escape_literals_are_sized_by_counting_first() {
        let mut text = vec![b'a'; MAX_3_BUFF_SIZE];
        text.extend_from_slice(b"\\\\\\101");
        assert_eq!(to_bytes(&text).map(|v| v.len()), Ok(MAX_3_BUFF_SIZE + 2));
        // Every escape counted as 3 saved bytes: far below zero.
        let text = b"\\1".repeat(MAX_3_BUFF_SIZE / 2 + 1);
        assert_eq!(
            to_bytes(&text),
            Err(format!("NegativeArraySizeException: {}", -(text.len() as i64) / 2))
        );
    }
}
