//! The byte scanner of the `columnar-scan` kernel.
//!
//! Cube's server writes columnar results in one form:
//! `{"members":[names],"columns":[[cells],...]}`, its cells strings (numbers
//! and timestamps as text), `null`, booleans or integers. The scanner reads
//! exactly that form (with any JSON whitespace) straight into the column
//! buffers, eight string bytes per step. On anything else it gives up:
//! escapes, other keys or key order, fractions and exponents, nesting, a
//! member the schema lacks, a cell its field cannot map, any syntax error.
//! The caller then decodes the document with the serde stream, so every
//! error, its kind, order and position, comes from one place.
//!
//! When it does not give up, it leaves the state as the serde stream's
//! phase 1 would: the same members, bound slots, column lengths and cells.

use super::*;

/// The scanner met something outside the form it reads.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct GiveUp;

type Scan<T> = Result<T, GiveUp>;

/// Decode a columnar document into `st` (fresh from `Plan::state`).
pub(super) fn columnar(json: &[u8], st: &mut State<'_>) -> Scan<()> {
    let mut sc = Scanner { b: json, at: 0 };
    sc.expect(b'{')?;
    sc.key(b"members")?;
    let names = sc.members()?;
    sc.expect(b',')?;
    sc.key(b"columns")?;
    st.members = MembersState::List {
        names,
        non_string: None,
        duplicate: None,
    };
    st.data_seen = true;
    st.data_occurrences = 1;
    st.bind_members();
    if st.targets.iter().any(Vec::is_empty) {
        return Err(GiveUp);
    }
    st.data = DataState::Array;
    sc.expect(b'[')?;
    if !sc.empty_array_end() {
        loop {
            let j = st.lengths.len();
            let fields = st.targets.get(j).ok_or(GiveUp)?;
            sc.expect(b'[')?;
            let rows = sc.column(fields, &mut st.cols, st.lengths.first().copied())?;
            st.lengths.push(rows);
            if !sc.more()? {
                break;
            }
        }
    }
    st.rows = st.lengths.len() as u64;
    sc.expect(b'}')?;
    sc.ws();
    if sc.at == json.len() {
        Ok(())
    } else {
        Err(GiveUp)
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    at: usize,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// High bits of the zero bytes of `x`; the lowest one is exact (the
/// subtraction borrows only out of a zero byte).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

/// Bytes a string scan must stop at: `"`, `\`, controls and non-ASCII.
/// Each flagged byte has its high bit set in the result; the lowest flagged
/// byte is exact (the subtractions borrow only out of a flagged byte).
#[inline]
fn stops(w: u64) -> u64 {
    let quote = zero_bytes(w ^ (ONES * u64::from(b'"')));
    let backslash = zero_bytes(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    quote | backslash | ((control | w) & HIGH)
}

/// A string body of 1 to 7 ASCII digits and its closing quote at the start
/// of the eight bytes `w` (little-endian): the digits' value and the body's
/// length. Cube's integer columns are mostly such strings; the rest go
/// through `parse_i64`, which agrees on these.
#[inline]
fn short_digits(w: u64) -> Option<(i64, usize)> {
    let quote = zero_bytes(w ^ (ONES * u64::from(b'"')));
    let n = (quote.trailing_zeros() / 8) as usize;
    if !(1..8).contains(&n) {
        return None;
    }
    // The digits into the top n bytes, ASCII zeros below them: the first
    // digit is then the most significant of eight.
    let shift = 8 * (8 - n) as u32;
    let ascii = (w << shift) | ((ONES * u64::from(b'0')) & ((1u64 << shift) - 1));
    let tens = ONES * 0x30;
    let all_digits = ascii & (ONES * 0xf0) == tens && ascii.wrapping_add(ONES * 6) & (ONES * 0xf0) == tens;
    if !all_digits {
        return None;
    }
    // Pairs, then quads, then all eight: each step's product carries the
    // higher half's value into the lower half's place, times its weight;
    // what overflows past bit 63 is discarded on purpose.
    let mut v = ascii - tens;
    v = (v.wrapping_mul(10 << 8 | 1) >> 8) & 0x00ff_00ff_00ff_00ff;
    v = (v.wrapping_mul(100 << 16 | 1) >> 16) & 0x0000_ffff_0000_ffff;
    v = v.wrapping_mul(10_000 << 32 | 1) >> 32;
    Some((v as i64, n))
}

impl<'a> Scanner<'a> {
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.at) {
            self.at += 1;
        }
    }

    /// Skip whitespace, then consume `c`.
    #[inline]
    fn expect(&mut self, c: u8) -> Scan<()> {
        self.ws();
        if self.b.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// `"name"` then `:`.
    fn key(&mut self, name: &[u8]) -> Scan<()> {
        self.expect(b'"')?;
        if self.string()?.as_bytes() != name {
            return Err(GiveUp);
        }
        self.expect(b':')
    }

    /// After `[`: whitespace and `]` (consumed), or the first element.
    #[inline]
    fn empty_array_end(&mut self) -> bool {
        self.ws();
        if self.b.get(self.at) == Some(&b']') {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// After an array element: `,` (another follows) or `]`.
    #[inline]
    fn more(&mut self) -> Scan<bool> {
        self.ws();
        let more = match self.b.get(self.at) {
            Some(b',') => true,
            Some(b']') => false,
            _ => return Err(GiveUp),
        };
        self.at += 1;
        Ok(more)
    }

    /// A string's body, after its opening quote, up to and past the closing
    /// one: no escapes, no controls, valid UTF-8.
    #[inline]
    fn string(&mut self) -> Scan<&'a str> {
        let start = self.at;
        let mut i = start;
        let mut ascii = true;
        loop {
            if let Some(word) = self.b.get(i..i + 8) {
                let flags = stops(u64::from_le_bytes(word.try_into().expect("eight bytes")));
                if flags == 0 {
                    i += 8;
                    continue;
                }
                i += (flags.trailing_zeros() / 8) as usize;
            }
            match self.b.get(i) {
                Some(b'"') => break,
                Some(&c) if c >= 0x80 => ascii = false,
                Some(&c) if c >= 0x20 && c != b'\\' => {}
                _ => return Err(GiveUp),
            }
            i += 1;
        }
        let bytes = &self.b[start..i];
        self.at = i + 1;
        if ascii {
            // SAFETY: every byte of `bytes` was checked to be below 0x80, and
            // ASCII is valid UTF-8.
            Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
        } else {
            std::str::from_utf8(bytes).map_err(|_| GiveUp)
        }
    }

    /// The members array (after `members:`): distinct plain strings.
    fn members(&mut self) -> Scan<Vec<Arc<str>>> {
        self.expect(b'[')?;
        let mut names: Vec<Arc<str>> = Vec::new();
        if self.empty_array_end() {
            return Ok(names);
        }
        loop {
            self.expect(b'"')?;
            let name = self.string()?;
            if names.iter().any(|n| &**n == name) {
                return Err(GiveUp);
            }
            names.push(name.into());
            if !self.more()? {
                return Ok(names);
            }
        }
    }

    /// One cell.
    #[inline]
    fn cell(&mut self) -> Scan<Cell<'a>> {
        self.ws();
        let c = *self.b.get(self.at).ok_or(GiveUp)?;
        self.at += 1;
        match c {
            b'"' => self.string().map(Cell::Str),
            b'n' => self.word(b"ull", Cell::Null),
            b't' => self.word(b"rue", Cell::Bool(true)),
            b'f' => self.word(b"alse", Cell::Bool(false)),
            b'-' => match self.digits()? {
                0 => Err(GiveUp), // serde_json reads `-0` as the float -0.0
                v => Ok(Cell::I64(-(v as i64))),
            },
            b'0'..=b'9' => {
                self.at -= 1;
                self.digits().map(Cell::U64)
            }
            _ => Err(GiveUp),
        }
    }

    /// The rest of a `null`, `true` or `false`.
    #[inline]
    fn word(&mut self, rest: &[u8], cell: Cell<'a>) -> Scan<Cell<'a>> {
        if self.b[self.at..].starts_with(rest) {
            self.at += rest.len();
            Ok(cell)
        } else {
            Err(GiveUp)
        }
    }

    /// An integer's digits: 1 to 18 of them (so it fits i64 either sign),
    /// no leading zero, not followed by a fraction or an exponent.
    fn digits(&mut self) -> Scan<u64> {
        let start = self.at;
        let mut v = 0u64;
        while let Some(&c @ b'0'..=b'9') = self.b.get(self.at) {
            v = v * 10 + u64::from(c - b'0');
            self.at += 1;
            if self.at - start > 18 {
                return Err(GiveUp);
            }
        }
        let len = self.at - start;
        let leading_zero = len > 1 && self.b[start] == b'0';
        let fraction = matches!(self.b.get(self.at), Some(b'.' | b'e' | b'E'));
        if len == 0 || leading_zero || fraction {
            return Err(GiveUp);
        }
        Ok(v)
    }

    /// A column's cells (after its `[`) into the fields that read it, up to
    /// and past its `]`; returns its length. `rows` is the first column's
    /// length, to size the buffers.
    fn column(&mut self, fields: &[usize], cols: &mut [Col], rows: Option<u64>) -> Scan<u64> {
        let mut n = 0u64;
        if let Some(rows) = rows {
            for &f in fields {
                cols[f].reserve(rows as usize);
            }
        }
        if self.empty_array_end() {
            return Ok(0);
        }
        if let [f] = fields {
            let col = &mut cols[*f];
            if let Conv::Int64 = col.conv {
                return self.int64_column(col);
            }
            loop {
                self.ws();
                if self.b.get(self.at) == Some(&b'"') {
                    self.at += 1;
                    col.append_str(self.string()?).map_err(|_| GiveUp)?;
                } else {
                    col.append(self.cell()?).map_err(|_| GiveUp)?;
                }
                n += 1;
                if !self.more()? {
                    return Ok(n);
                }
            }
        }
        loop {
            let cell = self.cell()?;
            for &f in fields {
                cols[f].append(cell).map_err(|_| GiveUp)?;
            }
            n += 1;
            if !self.more()? {
                return Ok(n);
            }
        }
    }

    /// A string of 1 to 7 digits here, with nine bytes to read from here
    /// (its quotes included): its value and length, quotes included.
    #[inline]
    fn short_int(&self) -> Option<(i64, usize)> {
        match self.b.get(self.at..self.at + 9)? {
            [b'"', body @ ..] => {
                let (v, digits) = short_digits(u64::from_le_bytes(body.try_into().expect("eight bytes")))?;
                Some((v, digits + 2))
            }
            _ => None,
        }
    }

    /// An Int64 column's cells (after its first), short digit strings read
    /// eight bytes at a time.
    fn int64_column(&mut self, col: &mut Col) -> Scan<u64> {
        let mut n = 0u64;
        loop {
            self.ws();
            match self.short_int() {
                Some((v, len)) => {
                    col.push_i64(v);
                    self.at += len;
                }
                None => col.append(self.cell()?).map_err(|_| GiveUp)?,
            }
            n += 1;
            if !self.more()? {
                return Ok(n);
            }
        }
    }
}

#[cfg(test)]
mod tests;
