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

/// Rust's `f64` text (`str::parse`) to f64, plain decimals the short way.
#[inline]
pub(super) fn parse_f64(s: &str) -> Option<f64> {
    plain_decimal(s).or_else(|| s.parse().ok())
}

/// `-?D+(.D+)?` of at most 15 digits, the way Cube writes measures, by
/// Clinger's fast path: the digits and the power of ten are both exact
/// doubles, so one correctly rounded division gives the correctly rounded
/// value, the same bits as `str::parse`. `None` for any other text.
#[inline]
pub(super) fn plain_decimal(s: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let b = s.as_bytes();
    let (negative, body) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut mantissa = 0u64;
    let mut digits = 0usize;
    let mut point = None;
    for (i, &c) in body.iter().enumerate() {
        match c {
            b'0'..=b'9' if digits < 15 => {
                mantissa = mantissa * 10 + u64::from(c - b'0');
                digits += 1;
            }
            b'.' if point.is_none() && i > 0 && i + 1 < body.len() => point = Some(i),
            _ => return None,
        }
    }
    if digits == 0 {
        return None;
    }
    let fraction_digits = point.map_or(0, |p| body.len() - p - 1);
    let magnitude = mantissa as f64 / POW10[fraction_digits];
    Some(if negative { -magnitude } else { magnitude })
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
    // Up to 18 digits cannot overflow: no checks in the loop.
    if digits.len() <= 18 {
        let mut acc: i64 = 0;
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return Err(MapError::Unmappable);
            }
            acc = acc * 10 + i64::from(d);
        }
        return Ok(if negative { -acc } else { acc });
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

/// Days since 1970-01-01 of a valid date of the years 0 to 9999 (Howard
/// Hinnant's days_from_civil, with the years shifted by 400 so that every
/// division is of a non-negative number by a constant).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    // Days before each month (January first) in a year that starts in March.
    const BEFORE_MONTH: [i64; 12] = [306, 337, 0, 31, 61, 92, 122, 153, 184, 214, 245, 275];
    let y = y - i64::from(m <= 2) + 400;
    let day_of_year = BEFORE_MONTH[(m - 1) as usize] + d - 1;
    y * 365 + y / 4 - y / 100 + y / 400 + day_of_year - 719_468 - 146_097
}

/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}][Z]` to ticks of 10^-`digits` seconds.
#[inline]
pub(super) fn parse_timestamp(s: &[u8], digits: u32) -> Result<i64, MapError> {
    const BAD: MapError = MapError::Unmappable;
    let head: &[u8; 19] = s.get(..19).and_then(|h| h.try_into().ok()).ok_or(BAD)?;
    let digit = |i: usize| head[i].wrapping_sub(b'0');
    let punctuation = [head[4], head[7], head[10], head[13], head[16]] == *b"--T::";
    let all_digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        .iter()
        .fold(0u8, |worst, &i| worst.max(digit(i)))
        <= 9;
    if !(punctuation && all_digits) {
        return Err(BAD);
    }
    let two = |i: usize| i64::from(digit(i)) * 10 + i64::from(digit(i + 1));
    let (year, month, day) = (two(0) * 100 + two(2), two(5), two(8));
    let (hour, minute, second) = (two(11), two(14), two(17));
    let mut at = 19;
    // The fraction in ticks: digits past the unit's must be zeros, and
    // fewer digits are scaled up (no division per value).
    let mut ticks: i64 = 0;
    let mut ticks_digits = 0;
    if s.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while at < s.len() && s[at].is_ascii_digit() {
            if at - start == 9 {
                return Err(BAD);
            }
            let d = i64::from(s[at] - b'0');
            if ticks_digits < digits {
                ticks = ticks * 10 + d;
                ticks_digits += 1;
            } else if d != 0 {
                return Err(BAD);
            }
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
    if !(1..=12).contains(&month) {
        return Err(BAD);
    }
    const MONTH_DAYS: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let max_day = MONTH_DAYS[(month - 1) as usize] + i64::from(month == 2 && leap);
    if day < 1 || day > max_day || hour > 23 || minute > 59 || second > 59 {
        return Err(BAD);
    }
    const POW10: [i64; 10] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
        1_000_000_000,
    ];
    let fraction = ticks * POW10[(digits - ticks_digits) as usize];
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
    // The seconds alone may pass i64 at the lower ns edge even though the
    // value with its fraction fits: add in i128.
    let ticks = i128::from(secs) * i128::from(POW10[digits as usize]) + i128::from(fraction);
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

/// A non-string cell to a decimal (strings go to `parse_decimal`).
pub(super) fn decimal_of(cell: Cell<'_>, precision: u8, scale: u8) -> Result<i128, MapError> {
    match cell {
        Cell::U64(u) => parse_decimal(u.to_string().as_bytes(), precision, scale),
        Cell::I64(i) => parse_decimal(i.to_string().as_bytes(), precision, scale),
        Cell::F64(f) => parse_decimal(format!("{f}").as_bytes(), precision, scale),
        _ => Err(MapError::Unmappable),
    }
}
