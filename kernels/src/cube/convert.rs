//! Cells and their conversion to the Arrow column types: Cube's
//! string-encoded integers, decimals and timestamps parsed on the fly.

use super::*;

/// One JSON value as the visitor sees it.
#[derive(Clone, Copy)]
pub(super) enum Cell<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'a str),
    Array,
    Object,
}

impl Cell<'_> {
    /// The value's JSON text for messages (nested values abbreviated).
    pub(super) fn text(&self) -> String {
        match *self {
            Cell::Null => "null".into(),
            Cell::Bool(b) => b.to_string(),
            Cell::U64(u) => u.to_string(),
            Cell::I64(i) => i.to_string(),
            Cell::F64(f) => number_text(f),
            Cell::Str(s) => serde_json::to_string(s).unwrap_or_default(),
            Cell::Array => "[...]".into(),
            Cell::Object => "{...}".into(),
        }
    }
}

/// serde_json's text of an f64 number.
pub(super) fn number_text(f: f64) -> String {
    serde_json::Number::from_f64(f)
        .map(|n| n.to_string())
        .unwrap_or_default()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MapError {
    Unmappable,
    Overflow,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Conv {
    Utf8,
    Int64,
    Float64,
    Boolean,
    /// Timestamp; the unit's ticks per second's digit count (3, 6, 9).
    Timestamp(u32),
    Decimal {
        precision: u8,
        scale: u8,
    },
}

pub(super) fn conv_of(ty: &DataType) -> Option<Conv> {
    Some(match ty {
        DataType::Utf8 => Conv::Utf8,
        DataType::Int64 => Conv::Int64,
        DataType::Float64 => Conv::Float64,
        DataType::Boolean => Conv::Boolean,
        DataType::Timestamp(TimeUnit::Millisecond, None) => Conv::Timestamp(3),
        DataType::Timestamp(TimeUnit::Microsecond, None) => Conv::Timestamp(6),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => Conv::Timestamp(9),
        DataType::Decimal128(p, s) if (1..=38).contains(p) && *s >= 0 && (*s as u8) <= *p => Conv::Decimal {
            precision: *p,
            scale: *s as u8,
        },
        _ => return None,
    })
}

/// `[+-]?[0-9]+` to i64.
#[inline]
pub(super) fn parse_i64(s: &[u8]) -> Result<i64, MapError> {
    let (negative, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(MapError::Unmappable);
    }
    // Accumulate negatively so i64::MIN fits.
    let mut acc: i64 = 0;
    let mut overflow = false;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return Err(MapError::Unmappable);
        }
        if !overflow {
            match acc.checked_mul(10).and_then(|v| v.checked_sub(i64::from(d))) {
                Some(v) => acc = v,
                None => overflow = true,
            }
        }
    }
    if overflow {
        return Err(MapError::Overflow);
    }
    if negative {
        Ok(acc)
    } else {
        acc.checked_neg().ok_or(MapError::Overflow)
    }
}

#[inline]
pub(super) fn two(b: &[u8], at: usize) -> Option<i64> {
    let (x, y) = (b[at].wrapping_sub(b'0'), b[at + 1].wrapping_sub(b'0'));
    if x > 9 || y > 9 {
        None
    } else {
        Some(i64::from(x) * 10 + i64::from(y))
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// days_from_civil).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}][Z]` to ticks of 10^-`digits` seconds.
pub(super) fn parse_timestamp(s: &[u8], digits: u32) -> Result<i64, MapError> {
    const BAD: MapError = MapError::Unmappable;
    if s.len() < 19 || s[4] != b'-' || s[7] != b'-' || s[10] != b'T' || s[13] != b':' || s[16] != b':' {
        return Err(BAD);
    }
    let year = two(s, 0).ok_or(BAD)? * 100 + two(s, 2).ok_or(BAD)?;
    let month = two(s, 5).ok_or(BAD)?;
    let day = two(s, 8).ok_or(BAD)?;
    let hour = two(s, 11).ok_or(BAD)?;
    let minute = two(s, 14).ok_or(BAD)?;
    let second = two(s, 17).ok_or(BAD)?;
    let mut at = 19;
    let mut fraction: i64 = 0; // in nanoseconds
    if s.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        let mut scale = 100_000_000i64;
        while at < s.len() && s[at].is_ascii_digit() {
            if at - start == 9 {
                return Err(BAD);
            }
            fraction += i64::from(s[at] - b'0') * scale;
            scale /= 10;
            at += 1;
        }
        if at == start {
            return Err(BAD);
        }
    }
    if s.get(at) == Some(&b'Z') {
        at += 1;
    }
    if at != s.len() {
        return Err(BAD);
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let max_day = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 => 28 + i64::from(leap),
        _ => return Err(BAD),
    };
    if day < 1 || day > max_day || hour > 23 || minute > 59 || second > 59 {
        return Err(BAD);
    }
    let nanos_per_tick = 10i64.pow(9 - digits);
    if fraction % nanos_per_tick != 0 {
        return Err(BAD);
    }
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
    let ticks_per_sec = 10i64.pow(digits);
    // The seconds alone may pass i64 at the lower ns edge even though the
    // value with its fraction fits: add in i128.
    let ticks = i128::from(secs) * i128::from(ticks_per_sec) + i128::from(fraction / nanos_per_tick);
    i64::try_from(ticks).map_err(|_| MapError::Overflow)
}

/// `[+-]?D*(.D*)?` (at least one digit) to an unscaled i128.
pub(super) fn parse_decimal(s: &[u8], precision: u8, scale: u8) -> Result<i128, MapError> {
    let (negative, body) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac_part) = match body.iter().position(|&c| c == b'.') {
        Some(p) => (&body[..p], &body[p + 1..]),
        None => (body, &body[body.len()..]),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(MapError::Unmappable);
    }
    let scale = usize::from(scale);
    // Grammar first: every byte a digit, excess fraction digits all zero.
    if !int_part.iter().all(u8::is_ascii_digit) || !frac_part.iter().all(u8::is_ascii_digit) {
        return Err(MapError::Unmappable);
    }
    if frac_part
        .get(scale..)
        .is_some_and(|excess| excess.iter().any(|&c| c != b'0'))
    {
        return Err(MapError::Unmappable);
    }
    let mut v: Option<i128> = Some(0);
    for &c in int_part.iter().chain(frac_part.iter().take(scale)) {
        v = v
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(i128::from(c - b'0')));
    }
    for _ in frac_part.len().min(scale)..scale {
        v = v.and_then(|v| v.checked_mul(10));
    }
    let v = v.ok_or(MapError::Overflow)?;
    if v >= 10i128.pow(u32::from(precision)) {
        return Err(MapError::Overflow);
    }
    Ok(if negative { -v } else { v })
}

pub(super) fn decimal_of(cell: Cell<'_>, precision: u8, scale: u8) -> Result<i128, MapError> {
    match cell {
        Cell::Str(s) => parse_decimal(s.as_bytes(), precision, scale),
        Cell::U64(u) => parse_decimal(u.to_string().as_bytes(), precision, scale),
        Cell::I64(i) => parse_decimal(i.to_string().as_bytes(), precision, scale),
        Cell::F64(f) => parse_decimal(format!("{f}").as_bytes(), precision, scale),
        _ => Err(MapError::Unmappable),
    }
}
