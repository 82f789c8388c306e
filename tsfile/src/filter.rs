//! Filter text for aligned scans: `time >= 10 and s1 > 3` read into a
//! [`Filter`] against a device's value columns by [`Filter::parse`], and
//! written back by [`Filter::render`].
//!
//! ```text
//! filter    := <nothing> | or
//! or        := and ( "or" and )*
//! and       := unary ( "and" unary )*
//! unary     := "not" unary | "(" or ")" | predicate
//! predicate := "time" cmp int  |  int cmp "time"
//!            | "time" ["not"] "between" int "and" int
//!            | "time" ["not"] "in" "(" [ int ( "," int )* ] ")"
//!            | column cmp literal
//!            | column "is" ["not"] "null"
//! cmp       := "<" | "<=" | ">" | ">=" | "=" | "==" | "!=" | "<>"
//! int       := ["+" | "-"] digits                     (an i64)
//! column    := [A-Za-z_][A-Za-z0-9_.]*  |  `any name`  |  "any name"
//! literal   := as the column's type:
//!   BOOLEAN            true | false
//!   INT32              int, within i32
//!   DATE               int, within i32 (yyyymmdd)  |  yyyy-mm-dd  |  'yyyy-mm-dd'
//!   INT64, TIMESTAMP   int
//!   FLOAT, DOUBLE      ["+" | "-"] ( decimal [exponent] | inf | infinity | nan )
//!   TEXT, STRING, BLOB 'text' (UTF-8; '' is one quote)  |  X'hex bytes'
//! ```
//!
//! Keywords are case-insensitive, column names are not; whitespace may sit
//! between any two tokens. `not` binds tighter than `and`, `and` tighter
//! than `or`; both associate to the left. `time`, `not`, `and`, `or`,
//! `between`, `in`, `is` and `null` cannot name a column unquoted (a column
//! called `time` is written `` `time` ``); inside quotes a doubled quote
//! is one.
//!
//! What the filter means is the scanners' (`docs/families/tsfile-aligned.md`):
//!
//! - `between` bounds are inclusive and kept as written: `time between 9
//!   and 3` matches nothing. `time not between` / `time not in` are
//!   `NotBetween` / `NotIn`; `not time between ...` is `Not(Between ..)`,
//!   the same rows. `time in ()` matches nothing.
//! - A scan's filter is a time filter AND one column (FIELD) predicate, so
//!   the text may hold one column predicate, ANDed with the whole rest:
//!   `time >= 5 and s1 > 3 and time < 9` is the time filter
//!   `time >= 5 and time < 9` plus `s1 > 3`; under `or` or `not` it is an
//!   error.
//! - A comparison is false on a null and on NaN, `!=` included: `s1 != 3`
//!   and `s1 = 3` together miss the null and NaN rows. `s1 = nan` matches
//!   nothing; `-0.0 = 0.0`.
//! - A FLOAT literal is read as an f32 straight from its text (never
//!   through f64, which could round twice); DATE is TsFile's int32
//!   `yyyymmdd`, compared as that integer.
//! - The time tree may be at most [`MAX_FILTER_DEPTH`] levels deep (every
//!   `and`, `or` and `not` adds one; many times are one `time in (...)`),
//!   and `(` / `not` may nest at most as deep in the text.
//!
//! Bad text is a [`FilterError`]: the byte offset of what is wrong and a
//! message naming what was found and what was expected there; never a
//! panic, whatever the text.
//!
//! The columns are the device's value columns, [`AlignedDevice::columns`]:
//! a column predicate names one by name, its literal is typed by the
//! column's [`DataType`], and [`FieldFilter::column`] is its position
//! there, the index both scanners' requests take. A [`Filter`] converts
//! into the kernel scanner's filter (for [`TsFileReader::scan_aligned`])
//! and into the reference scanner's (for
//! [`TsFileReader::scan_aligned_reference`]) with `From`:
//!
//! ```
//! use crossdec_kernels::tsfile::aligned::{Request, ScanOptions, Value, Writer};
//! use crossdec_tsfile::filter::Filter;
//! use crossdec_tsfile::{ReadOptions, TsFileReader};
//!
//! let file = include_bytes!("../tests/fixtures/gen-11-003.tsfile");
//! let mut reader = TsFileReader::new(std::io::Cursor::new(&file[..]), ReadOptions::default())?;
//! let device = reader.metadata().map_err(Clone::clone)?.devices[0].0.clone();
//! let layout = reader.aligned_device(&device)?;
//!
//! let filter = Filter::parse("time > 687759290627 and f1 = false", &layout.columns)?;
//! assert_eq!(filter.render(&layout.columns), "time > 687759290627 and f1 = false");
//!
//! let f1 = layout.columns.iter().position(|c| c.name == "f1").unwrap();
//! let request = Request {
//!     filter: filter.into(),
//!     offset: 0,
//!     limit: Some(5),
//!     columns: vec![f1],
//!     block_rows: 1024,
//!     writer: Writer::Cpp, // who wrote the file, where the layouts differ
//! };
//! let scan = reader.scan_aligned(&layout, &request, ScanOptions::default())?;
//! assert_eq!(scan.rows, 5);
//! for block in &scan.blocks {
//!     let (times, columns) = block.canonical();
//!     for (row, time) in times.iter().enumerate() {
//!         assert!(*time > 687759290627);
//!         assert_eq!(columns[0][row], Some(Value::Bool(false)));
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The parser is written by hand rather than with a combinator library:
//! most of its code types literals by their column and words each error
//! with the token found and the construct it is in, which a combinator
//! library would need custom errors for at every step, at no saving.
//!
//! [`AlignedDevice::columns`]: crate::AlignedDevice::columns
//! [`TsFileReader::scan_aligned`]: crate::TsFileReader::scan_aligned
//! [`TsFileReader::scan_aligned_reference`]: crate::TsFileReader::scan_aligned_reference

use std::fmt::{self, Write as _};

use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;

use crate::aligned::AlignedColumn;
use crate::types::DataType;

/// The deepest a filter may nest: the time tree's levels (a leaf is 1;
/// every `And`, `Or` and `Not` adds one) and `(` / `not` inside one another
/// in the text. It bounds the parser's recursion and that of every
/// recursive walk of the tree (the scanners' evaluation, a reader of a
/// stored filter), so no text can overflow the stack.
pub const MAX_FILTER_DEPTH: u32 = 64;

/// Words that start or continue a predicate, so a column of that name must
/// be quoted.
const RESERVED: [&str; 8] = ["time", "not", "and", "or", "between", "in", "is", "null"];

/// Why a column predicate must be ANDed with the whole filter.
const ONE_FIELD_FILTER: &str = "a scan's filter is a time filter AND one column predicate";

/// A filter: the time filter tree and the one column (FIELD) predicate,
/// each optional. A row matches when both present parts do; the default
/// (neither) matches every row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    /// The predicate on a row's time.
    pub time: Option<TimeFilter>,
    /// The predicate on one value column.
    pub field: Option<FieldFilter>,
}

/// A predicate on a row's time, as a tree. `Between` / `NotBetween` bounds
/// are inclusive and kept as written (`Between(9, 3)` matches nothing);
/// `In(vec![])` matches nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeFilter {
    /// `time > v`.
    Gt(i64),
    /// `time >= v`.
    GtEq(i64),
    /// `time < v`.
    Lt(i64),
    /// `time <= v`.
    LtEq(i64),
    /// `time = v`.
    Eq(i64),
    /// `time != v`.
    NotEq(i64),
    /// `time between low and high`.
    Between(i64, i64),
    /// `time not between low and high`.
    NotBetween(i64, i64),
    /// `time in (...)`.
    In(Vec<i64>),
    /// `time not in (...)`.
    NotIn(Vec<i64>),
    /// Both.
    And(Box<TimeFilter>, Box<TimeFilter>),
    /// Either.
    Or(Box<TimeFilter>, Box<TimeFilter>),
    /// Not.
    Not(Box<TimeFilter>),
}

/// A predicate on one value column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFilter {
    /// The column's position in the device's value columns
    /// ([`AlignedDevice::columns`](crate::AlignedDevice::columns)); it need
    /// not be one the scan returns.
    pub column: usize,
    /// What the column's value must be.
    pub op: FieldOp,
}

/// What a column predicate asks of the column's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldOp {
    /// `value <op> literal`: false on a null, and on NaN (IEEE order,
    /// `NotEq` included); bytes compare lexicographically, `false < true`.
    Cmp(CmpOp, Literal),
    /// `is null`.
    IsNull,
    /// `is not null`.
    IsNotNull,
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `<`.
    Lt,
    /// `<=`.
    LtEq,
    /// `>`.
    Gt,
    /// `>=`.
    GtEq,
    /// `=` (also read as `==`).
    Eq,
    /// `!=` (also read as `<>`).
    NotEq,
}

/// A column predicate's constant, of its column's type: BOOLEAN `Bool`,
/// INT32 and DATE (`yyyymmdd`) `I32`, INT64 and TIMESTAMP `I64`, FLOAT
/// `F32` and DOUBLE `F64` (bit patterns, so equality is exact; a parsed NaN
/// is the canonical one), TEXT, STRING and BLOB `Bytes`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Literal {
    /// A BOOLEAN's.
    Bool(bool),
    /// An INT32's or a DATE's.
    I32(i32),
    /// An INT64's or a TIMESTAMP's.
    I64(i64),
    /// A FLOAT's bits.
    F32(u32),
    /// A DOUBLE's bits.
    F64(u64),
    /// A TEXT's, STRING's or BLOB's bytes.
    Bytes(Vec<u8>),
}

/// Why filter text does not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    /// Byte offset in the text of what is wrong (the text's length: it
    /// ended too soon).
    pub at: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "filter, at byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for FilterError {}

impl Filter {
    /// Read filter text (grammar in the [module documentation](self))
    /// against `columns`, the device's value columns. Empty or
    /// all-whitespace text is no filter.
    pub fn parse(text: &str, columns: &[AlignedColumn]) -> Result<Filter, FilterError> {
        let tokens = lex(text)?;
        if tokens.is_empty() {
            return Ok(Filter::default());
        }
        let mut parser = Parser {
            text,
            tokens,
            next: 0,
            columns,
        };
        let whole = parser.parse_or(0)?;
        if parser.peek().is_some() {
            return Err(error(
                parser.position(),
                format!(
                    "expected `and`, `or` or the end of the filter, found {}",
                    parser.found()
                ),
            ));
        }
        Ok(Filter {
            time: whole.time,
            field: whole.field.map(|(field, _)| field),
        })
    }

    /// The filter in the syntax [`Filter::parse`] reads, which reads it
    /// back against the same `columns` as this filter when it could have
    /// come from there: a time tree at most [`MAX_FILTER_DEPTH`] deep, a
    /// column within `columns`, a literal of the column's type. (Every NaN
    /// is written `nan`, read back as the canonical NaN: all NaNs compare
    /// alike.) A column past `columns` is written `<column #N>`, which does
    /// not read back.
    pub fn render(&self, columns: &[AlignedColumn]) -> String {
        let mut out = String::new();
        if let Some(time) = &self.time {
            // The left operand of the `and` that joins the column
            // predicate: only an `or` binds looser and needs parentheses.
            let parenthesized = self.field.is_some() && matches!(time, TimeFilter::Or(..));
            write_time(&mut out, time, parenthesized);
        }
        if let Some(field) = &self.field {
            if !out.is_empty() {
                out.push_str(" and ");
            }
            write_field(&mut out, field, columns);
        }
        out
    }
}

impl TimeFilter {
    /// Nesting depth (a leaf is 1).
    pub fn depth(&self) -> u32 {
        use TimeFilter::*;
        match self {
            And(a, b) | Or(a, b) => 1 + a.depth().max(b.depth()),
            Not(a) => 1 + a.depth(),
            _ => 1,
        }
    }
}

/// The time filter in the syntax [`Filter::parse`] reads.
impl fmt::Display for TimeFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_time(&mut out, self, false);
        f.write_str(&out)
    }
}

impl CmpOp {
    /// The operator as [`Filter::render`] writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::LtEq => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtEq => ">=",
            CmpOp::Eq => "=",
            CmpOp::NotEq => "!=",
        }
    }

    /// The comparison with its operands swapped: `5 < time` is `time > 5`.
    fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
            CmpOp::Eq | CmpOp::NotEq => self,
        }
    }

    /// `time <self> value`.
    fn time_leaf(self, value: i64) -> TimeFilter {
        match self {
            CmpOp::Lt => TimeFilter::Lt(value),
            CmpOp::LtEq => TimeFilter::LtEq(value),
            CmpOp::Gt => TimeFilter::Gt(value),
            CmpOp::GtEq => TimeFilter::GtEq(value),
            CmpOp::Eq => TimeFilter::Eq(value),
            CmpOp::NotEq => TimeFilter::NotEq(value),
        }
    }
}

fn error(at: usize, message: impl Into<String>) -> FilterError {
    FilterError {
        at,
        message: message.into(),
    }
}

/// Text quoted in an error message, cut short so a huge token does not
/// swamp it.
fn snippet(text: &str) -> String {
    const MOST_CHARS: usize = 40;
    if text.chars().count() <= MOST_CHARS {
        text.to_string()
    } else {
        text.chars().take(MOST_CHARS).chain(['…']).collect()
    }
}

// ---------------------------------------------------------- conversions

// The scanners share no types (the reference is written from the format
// notes, the kernel never calls it), so each gets its own conversion.

impl From<&Filter> for k::Filter {
    fn from(filter: &Filter) -> k::Filter {
        fn time(f: &TimeFilter) -> k::TimeFilter {
            use TimeFilter::*;
            let b = |f: &TimeFilter| Box::new(time(f));
            match f {
                Gt(v) => k::TimeFilter::Gt(*v),
                GtEq(v) => k::TimeFilter::GtEq(*v),
                Lt(v) => k::TimeFilter::Lt(*v),
                LtEq(v) => k::TimeFilter::LtEq(*v),
                Eq(v) => k::TimeFilter::Eq(*v),
                NotEq(v) => k::TimeFilter::NotEq(*v),
                Between(a, c) => k::TimeFilter::Between(*a, *c),
                NotBetween(a, c) => k::TimeFilter::NotBetween(*a, *c),
                In(v) => k::TimeFilter::In(v.clone()),
                NotIn(v) => k::TimeFilter::NotIn(v.clone()),
                And(a, c) => k::TimeFilter::And(b(a), b(c)),
                Or(a, c) => k::TimeFilter::Or(b(a), b(c)),
                Not(a) => k::TimeFilter::Not(b(a)),
            }
        }
        let op = |op: CmpOp| match op {
            CmpOp::Lt => k::CmpOp::Lt,
            CmpOp::LtEq => k::CmpOp::LtEq,
            CmpOp::Gt => k::CmpOp::Gt,
            CmpOp::GtEq => k::CmpOp::GtEq,
            CmpOp::Eq => k::CmpOp::Eq,
            CmpOp::NotEq => k::CmpOp::NotEq,
        };
        let value = |v: &Literal| match v {
            Literal::Bool(x) => k::Value::Bool(*x),
            Literal::I32(x) => k::Value::I32(*x),
            Literal::I64(x) => k::Value::I64(*x),
            Literal::F32(x) => k::Value::F32(*x),
            Literal::F64(x) => k::Value::F64(*x),
            Literal::Bytes(x) => k::Value::Bytes(x.clone()),
        };
        k::Filter {
            time: filter.time.as_ref().map(time),
            field: filter.field.as_ref().map(|f| k::FieldFilter {
                column: f.column,
                op: match &f.op {
                    FieldOp::Cmp(o, v) => k::FieldOp::Cmp(op(*o), value(v)),
                    FieldOp::IsNull => k::FieldOp::IsNull,
                    FieldOp::IsNotNull => k::FieldOp::IsNotNull,
                },
            }),
        }
    }
}

impl From<Filter> for k::Filter {
    fn from(filter: Filter) -> k::Filter {
        k::Filter::from(&filter)
    }
}

impl From<&Filter> for r::Filter {
    fn from(filter: &Filter) -> r::Filter {
        fn time(f: &TimeFilter) -> r::TimeFilter {
            use TimeFilter::*;
            let b = |f: &TimeFilter| Box::new(time(f));
            match f {
                Gt(v) => r::TimeFilter::Gt(*v),
                GtEq(v) => r::TimeFilter::GtEq(*v),
                Lt(v) => r::TimeFilter::Lt(*v),
                LtEq(v) => r::TimeFilter::LtEq(*v),
                Eq(v) => r::TimeFilter::Eq(*v),
                NotEq(v) => r::TimeFilter::NotEq(*v),
                Between(a, c) => r::TimeFilter::Between(*a, *c),
                NotBetween(a, c) => r::TimeFilter::NotBetween(*a, *c),
                In(v) => r::TimeFilter::In(v.clone()),
                NotIn(v) => r::TimeFilter::NotIn(v.clone()),
                And(a, c) => r::TimeFilter::And(b(a), b(c)),
                Or(a, c) => r::TimeFilter::Or(b(a), b(c)),
                Not(a) => r::TimeFilter::Not(b(a)),
            }
        }
        let op = |op: CmpOp| match op {
            CmpOp::Lt => r::CmpOp::Lt,
            CmpOp::LtEq => r::CmpOp::LtEq,
            CmpOp::Gt => r::CmpOp::Gt,
            CmpOp::GtEq => r::CmpOp::GtEq,
            CmpOp::Eq => r::CmpOp::Eq,
            CmpOp::NotEq => r::CmpOp::NotEq,
        };
        let value = |v: &Literal| match v {
            Literal::Bool(x) => r::Value::Bool(*x),
            Literal::I32(x) => r::Value::I32(*x),
            Literal::I64(x) => r::Value::I64(*x),
            Literal::F32(x) => r::Value::F32(*x),
            Literal::F64(x) => r::Value::F64(*x),
            Literal::Bytes(x) => r::Value::Bytes(x.clone()),
        };
        r::Filter {
            time: filter.time.as_ref().map(time),
            field: filter.field.as_ref().map(|f| r::FieldFilter {
                column: f.column,
                op: match &f.op {
                    FieldOp::Cmp(o, v) => r::FieldOp::Cmp(op(*o), value(v)),
                    FieldOp::IsNull => r::FieldOp::IsNull,
                    FieldOp::IsNotNull => r::FieldOp::IsNotNull,
                },
            }),
        }
    }
}

impl From<Filter> for r::Filter {
    fn from(filter: Filter) -> r::Filter {
        r::Filter::from(&filter)
    }
}

// ---------------------------------------------------------------- tokens

#[derive(Debug, Clone, PartialEq)]
enum Tok<'t> {
    /// A bare word: a keyword, `time`, a column name, `true`, `nan`, ...
    Word(&'t str),
    /// A backquoted or double-quoted column name, unescaped.
    QuotedName(String),
    /// A number as written (`12`, `1.5e-3`; also `12ab`, refused when
    /// typed, so the whole run is quoted in the error).
    Number(&'t str),
    /// `yyyy-mm-dd`, or digits and dashes meant as one.
    Date(&'t str),
    /// A single-quoted string, unescaped.
    Str(String),
    /// The digits of `X'...'`.
    Hex(&'t str),
    /// `+` or `-` before a number.
    Sign(char),
    Cmp(CmpOp),
    Open,
    Close,
    Comma,
}

#[derive(Debug, Clone)]
struct Token<'t> {
    tok: Tok<'t>,
    /// Byte offsets of the token's first byte and one past its last.
    at: usize,
    end: usize,
}

/// Bytes that continue a word or a number.
fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.'
}

/// Where `digits-digits-digits` starting at `at` ends (not run into a
/// longer word): a date, or a mistyped one that is better refused whole
/// than as a number followed by a stray `-`.
fn date_like_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut end = at;
    for part in 0..3 {
        if part > 0 {
            if bytes.get(end) != Some(&b'-') {
                return None;
            }
            end += 1;
        }
        let digits = bytes.get(end..)?.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        end += digits;
    }
    (!bytes.get(end).copied().is_some_and(is_word_byte)).then_some(end)
}

/// Where a number that starts at `start` ends: the run of word bytes, with
/// a sign right after an exponent's `e`.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(&byte) = bytes.get(end) {
        let exponent_sign =
            matches!(byte, b'+' | b'-') && end > start && matches!(bytes.get(end - 1), Some(b'e' | b'E'));
        if !(is_word_byte(byte) || exponent_sign) {
            break;
        }
        end += 1;
    }
    end
}

/// The text between a quote at `open` and its closing quote, a doubled
/// quote read as one; and the offset after the closing quote.
fn quoted(text: &str, open: usize, quote: u8, what: &str) -> Result<(String, usize), FilterError> {
    let bytes = text.as_bytes();
    let mut unquoted = String::new();
    let mut piece_start = open + 1;
    let mut at = open + 1;
    // Every offset compared to `quote` (ASCII) that matches is a char
    // boundary: a multi-byte character has no ASCII byte.
    loop {
        match bytes.get(at) {
            None => return Err(error(open, format!("this {what} is never closed"))),
            Some(&byte) if byte == quote => {
                unquoted.push_str(text.get(piece_start..at).unwrap_or_default());
                if bytes.get(at + 1) == Some(&quote) {
                    unquoted.push(char::from(quote));
                    at += 2;
                    piece_start = at;
                } else {
                    return Ok((unquoted, at + 1));
                }
            }
            Some(_) => at += 1,
        }
    }
}

fn lex(text: &str) -> Result<Vec<Token<'_>>, FilterError> {
    let bytes = text.as_bytes();
    let slice = |from: usize, to: usize| text.get(from..to).unwrap_or_default();
    let mut tokens = Vec::new();
    let mut at = 0;
    // `at` only ever steps over whole ASCII bytes or whole characters, so
    // it stays on a char boundary.
    while let Some(&byte) = bytes.get(at) {
        let next = bytes.get(at + 1).copied();
        let (tok, end) = match byte {
            b'(' => (Tok::Open, at + 1),
            b')' => (Tok::Close, at + 1),
            b',' => (Tok::Comma, at + 1),
            b'+' | b'-' => (Tok::Sign(char::from(byte)), at + 1),
            b'<' => match next {
                Some(b'=') => (Tok::Cmp(CmpOp::LtEq), at + 2),
                Some(b'>') => (Tok::Cmp(CmpOp::NotEq), at + 2),
                _ => (Tok::Cmp(CmpOp::Lt), at + 1),
            },
            b'>' if next == Some(b'=') => (Tok::Cmp(CmpOp::GtEq), at + 2),
            b'>' => (Tok::Cmp(CmpOp::Gt), at + 1),
            b'=' if next == Some(b'=') => (Tok::Cmp(CmpOp::Eq), at + 2),
            b'=' => (Tok::Cmp(CmpOp::Eq), at + 1),
            b'!' if next == Some(b'=') => (Tok::Cmp(CmpOp::NotEq), at + 2),
            b'!' => return Err(error(at, "`!` is only part of `!=`; negate with `not`")),
            b'\'' => {
                let (string, end) = quoted(text, at, b'\'', "string")?;
                (Tok::Str(string), end)
            }
            b'`' | b'"' => {
                let (name, end) = quoted(text, at, byte, "quoted column name")?;
                (Tok::QuotedName(name), end)
            }
            b'x' | b'X' if next == Some(b'\'') => {
                let digits_start = at + 2;
                let Some(close) = bytes[digits_start..].iter().position(|&b| b == b'\'') else {
                    return Err(error(at, "this X'...' is never closed"));
                };
                (
                    Tok::Hex(slice(digits_start, digits_start + close)),
                    digits_start + close + 1,
                )
            }
            b'0'..=b'9' => match date_like_end(bytes, at) {
                Some(end) => (Tok::Date(slice(at, end)), end),
                None => {
                    let end = number_end(bytes, at);
                    (Tok::Number(slice(at, end)), end)
                }
            },
            b'.' if next.is_some_and(|b| b.is_ascii_digit()) => {
                let end = number_end(bytes, at);
                (Tok::Number(slice(at, end)), end)
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                let end = at + bytes[at..].iter().take_while(|&&b| is_word_byte(b)).count();
                (Tok::Word(slice(at, end)), end)
            }
            _ => {
                let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else {
                    break;
                };
                if c.is_whitespace() {
                    at += c.len_utf8();
                    continue;
                }
                return Err(error(at, format!("unexpected character `{c}`")));
            }
        };
        tokens.push(Token { tok, at, end });
        at = end;
    }
    Ok(tokens)
}

// ---------------------------------------------------------------- parser

/// What part of the text parsed to: its time filter (`depth` levels deep,
/// 0 without one) and the column predicate in it, with the byte offset it
/// starts at (for the errors that refuse it later).
struct Parsed {
    time: Option<TimeFilter>,
    depth: u32,
    field: Option<(FieldFilter, usize)>,
}

/// A literal as written, not yet typed: typing needs the column (or
/// `time`), which a reversed comparison names after it.
struct RawLiteral<'t> {
    /// Where it starts (its sign, if any) and ends.
    at: usize,
    end: usize,
    sign: Option<char>,
    tok: Tok<'t>,
}

/// The parts of a float literal.
enum FloatText {
    Number(String),
    NaN,
    Infinite { negative: bool },
}

struct Parser<'t, 'c> {
    text: &'t str,
    tokens: Vec<Token<'t>>,
    next: usize,
    columns: &'c [AlignedColumn],
}

impl<'t> Parser<'t, '_> {
    fn peek(&self) -> Option<&Token<'t>> {
        self.tokens.get(self.next)
    }

    fn bump(&mut self) -> Option<Token<'t>> {
        let token = self.tokens.get(self.next).cloned();
        self.next += usize::from(token.is_some());
        token
    }

    /// Where the next token starts (the text's end after the last).
    fn position(&self) -> usize {
        self.peek().map_or(self.text.len(), |token| token.at)
    }

    /// The next token, quoted for an error message.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the filter".to_string(),
            Some(token) => format!("`{}`", snippet(self.text.get(token.at..token.end).unwrap_or_default())),
        }
    }

    fn is_word(&self, keyword: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Word(word), .. }) if word.eq_ignore_ascii_case(keyword))
    }

    /// Take the keyword if it is next; where it was.
    fn eat_word(&mut self, keyword: &str) -> Option<usize> {
        if self.is_word(keyword) {
            self.bump().map(|token| token.at)
        } else {
            None
        }
    }

    fn eat(&mut self, tok: &Tok<'_>) -> Option<usize> {
        match self.peek() {
            Some(token) if token.tok == *tok => self.bump().map(|token| token.at),
            _ => None,
        }
    }

    fn eat_cmp(&mut self) -> Option<CmpOp> {
        match self.peek() {
            Some(Token { tok: Tok::Cmp(cmp), .. }) => {
                let cmp = *cmp;
                self.next += 1;
                Some(cmp)
            }
            _ => None,
        }
    }

    fn expect(&mut self, tok: &Tok<'_>, what: &str) -> Result<usize, FilterError> {
        self.eat(tok)
            .ok_or_else(|| error(self.position(), format!("expected {what}, found {}", self.found())))
    }

    /// One more level of `(` / `not` nesting, opened at `at`.
    fn nest(nesting: u32, at: usize) -> Result<u32, FilterError> {
        if nesting >= MAX_FILTER_DEPTH {
            return Err(error(
                at,
                format!("`(` and `not` nest more than {MAX_FILTER_DEPTH} deep here"),
            ));
        }
        Ok(nesting + 1)
    }

    /// A time tree `depth` levels deep, made by the operator at `at`.
    fn within_depth(depth: u32, at: usize) -> Result<u32, FilterError> {
        if depth > MAX_FILTER_DEPTH {
            return Err(error(
                at,
                format!(
                    "this makes the time filter {depth} levels deep, past the limit of {MAX_FILTER_DEPTH} \
                     (every `and`, `or` and `not` adds one; list many times in one `time in (...)`)"
                ),
            ));
        }
        Ok(depth)
    }

    fn parse_or(&mut self, nesting: u32) -> Result<Parsed, FilterError> {
        let mut left = self.parse_and(nesting)?;
        while let Some(or_at) = self.eat_word("or") {
            refuse_field_under(&left, "one side of `or`")?;
            let right = self.parse_and(nesting)?;
            refuse_field_under(&right, "one side of `or`")?;
            let (Some(a), Some(b)) = (left.time, right.time) else {
                // Unreachable: a part without a time filter is a column
                // predicate, refused above.
                return Err(error(or_at, "`or` needs a time predicate on each side"));
            };
            let depth = Self::within_depth(1 + left.depth.max(right.depth), or_at)?;
            left = Parsed {
                time: Some(TimeFilter::Or(Box::new(a), Box::new(b))),
                depth,
                field: None,
            };
        }
        Ok(left)
    }

    fn parse_and(&mut self, nesting: u32) -> Result<Parsed, FilterError> {
        let mut left = self.parse_unary(nesting)?;
        while let Some(and_at) = self.eat_word("and") {
            let right = self.parse_unary(nesting)?;
            let field = match (left.field, right.field) {
                (Some((_, first_at)), Some((_, second_at))) => {
                    return Err(error(
                        second_at,
                        format!("a second column predicate (the first is at byte {first_at}): {ONE_FIELD_FILTER}"),
                    ))
                }
                (first, second) => first.or(second),
            };
            // The column predicate drops out of the time tree: what is
            // left of `t1 and s1 > 3 and t2` is `t1 and t2`.
            let (time, depth) = match (left.time, right.time) {
                (Some(a), Some(b)) => {
                    let depth = Self::within_depth(1 + left.depth.max(right.depth), and_at)?;
                    (Some(TimeFilter::And(Box::new(a), Box::new(b))), depth)
                }
                (Some(a), None) => (Some(a), left.depth),
                (None, Some(b)) => (Some(b), right.depth),
                (None, None) => (None, 0),
            };
            left = Parsed { time, depth, field };
        }
        Ok(left)
    }

    fn parse_unary(&mut self, nesting: u32) -> Result<Parsed, FilterError> {
        if let Some(not_at) = self.eat_word("not") {
            let nesting = Self::nest(nesting, not_at)?;
            let operand = self.parse_unary(nesting)?;
            refuse_field_under(&operand, "under `not`")?;
            let Some(time) = operand.time else {
                // Unreachable: a part without a time filter is a column
                // predicate, refused above.
                return Err(error(not_at, "`not` needs a time predicate"));
            };
            let depth = Self::within_depth(operand.depth + 1, not_at)?;
            return Ok(Parsed {
                time: Some(TimeFilter::Not(Box::new(time))),
                depth,
                field: None,
            });
        }
        if let Some(open_at) = self.eat(&Tok::Open) {
            let nesting = Self::nest(nesting, open_at)?;
            let inner = self.parse_or(nesting)?;
            self.expect(&Tok::Close, &format!("`)` to close the `(` at byte {open_at}"))?;
            return Ok(inner);
        }
        self.parse_predicate()
    }

    fn parse_predicate(&mut self) -> Result<Parsed, FilterError> {
        const EXPECTED: &str = "a predicate (`time ...`, `<column> ...`, `not` or `(`)";
        let Some(token) = self.peek().cloned() else {
            return Err(error(
                self.text.len(),
                format!("the filter ends where {EXPECTED} should be"),
            ));
        };
        match token.tok {
            Tok::Word(word) if word.eq_ignore_ascii_case("time") => {
                self.next += 1;
                self.parse_time_predicate()
            }
            Tok::Word(word) if RESERVED.iter().any(|k| k.eq_ignore_ascii_case(word)) => Err(error(
                token.at,
                format!(
                    "expected {EXPECTED}, found the keyword `{word}` (a column of that name must be quoted: `{word}`)"
                ),
            )),
            Tok::Word(name) => {
                self.next += 1;
                self.parse_field_predicate(name, token.at)
            }
            Tok::QuotedName(name) => {
                self.next += 1;
                self.parse_field_predicate(&name, token.at)
            }
            Tok::Number(_) | Tok::Sign(_) | Tok::Date(_) | Tok::Str(_) | Tok::Hex(_) => self.parse_reversed(),
            Tok::Cmp(_) | Tok::Open | Tok::Close | Tok::Comma => {
                Err(error(token.at, format!("expected {EXPECTED}, found {}", self.found())))
            }
        }
    }

    /// `N <cmp> time`: the literal comes first, so it is typed once the
    /// comparison's other side is known.
    fn parse_reversed(&mut self) -> Result<Parsed, FilterError> {
        let literal = self.raw_literal("a predicate")?;
        let Some(cmp) = self.eat_cmp() else {
            return Err(error(
                self.position(),
                format!("expected a comparison after a value, found {}", self.found()),
            ));
        };
        if self.eat_word("time").is_some() {
            let value = self.integer(&literal, i64::MIN, i64::MAX, "a time (an i64)")?;
            return Ok(time_leaf(cmp.swapped().time_leaf(value)));
        }
        let column = match self.peek().map(|token| &token.tok) {
            Some(Tok::Word(name)) => Some(name.to_string()),
            Some(Tok::QuotedName(name)) => Some(name.clone()),
            _ => None,
        };
        let message = match column {
            Some(name) => format!(
                "only `time` may come after the value; put the column first: `{} {} {}`",
                render_name(&name),
                cmp.swapped().symbol(),
                snippet(self.text.get(literal.at..literal.end).unwrap_or_default())
            ),
            None => format!("expected `time`, found {}", self.found()),
        };
        Err(error(self.position(), message))
    }

    fn parse_time_predicate(&mut self) -> Result<Parsed, FilterError> {
        if let Some(cmp) = self.eat_cmp() {
            let value = self.time_value()?;
            return Ok(time_leaf(cmp.time_leaf(value)));
        }
        let negated = self.eat_word("not").is_some();
        let leaf = if self.eat_word("between").is_some() {
            let low = self.time_value()?;
            if self.eat_word("and").is_none() {
                return Err(error(
                    self.position(),
                    format!("expected `and` between the bounds of `between`, found {}", self.found()),
                ));
            }
            let high = self.time_value()?;
            if negated {
                TimeFilter::NotBetween(low, high)
            } else {
                TimeFilter::Between(low, high)
            }
        } else if self.eat_word("in").is_some() {
            let times = self.time_list()?;
            if negated {
                TimeFilter::NotIn(times)
            } else {
                TimeFilter::In(times)
            }
        } else if negated {
            return Err(error(
                self.position(),
                format!("expected `between` or `in` after `time not`, found {}", self.found()),
            ));
        } else if self.is_word("is") {
            return Err(error(
                self.position(),
                "a row's time is never null: `is [not] null` is for a column",
            ));
        } else {
            return Err(error(
                self.position(),
                format!(
                    "expected a comparison, `between`, `in` or `not` after `time`, found {}",
                    self.found()
                ),
            ));
        };
        Ok(time_leaf(leaf))
    }

    /// `( [int (, int)*] )`.
    fn time_list(&mut self) -> Result<Vec<i64>, FilterError> {
        let open_at = self.expect(&Tok::Open, "`(` to open the list of times")?;
        let mut times = Vec::new();
        if self.eat(&Tok::Close).is_some() {
            return Ok(times);
        }
        loop {
            times.push(self.time_value()?);
            if self.eat(&Tok::Comma).is_some() {
                continue;
            }
            self.expect(
                &Tok::Close,
                &format!("`,` or `)` in the list of times opened at byte {open_at}"),
            )?;
            return Ok(times);
        }
    }

    fn time_value(&mut self) -> Result<i64, FilterError> {
        let literal = self.raw_literal("a time (an integer)")?;
        self.integer(&literal, i64::MIN, i64::MAX, "a time (an i64)")
    }

    fn parse_field_predicate(&mut self, name: &str, name_at: usize) -> Result<Parsed, FilterError> {
        let Some(column) = self.columns.iter().position(|c| c.name == name) else {
            return Err(self.unknown_column(name, name_at));
        };
        let data_type = self.columns[column].data_type;
        let op = if self.eat_word("is").is_some() {
            let negated = self.eat_word("not").is_some();
            if self.eat_word("null").is_none() {
                return Err(error(
                    self.position(),
                    format!("expected `null` after `is`, found {}", self.found()),
                ));
            }
            if negated {
                FieldOp::IsNotNull
            } else {
                FieldOp::IsNull
            }
        } else if let Some(cmp) = self.eat_cmp() {
            if !has_literal(data_type) {
                return Err(error(
                    name_at,
                    format!(
                        "column {} is {data_type}: it takes `is null` / `is not null`, not a comparison",
                        render_name(name)
                    ),
                ));
            }
            let what = format!("{data_type} column {}", render_name(name));
            let literal = self.raw_literal(&format!("a value for {what}"))?;
            FieldOp::Cmp(cmp, self.literal(&literal, data_type, &what)?)
        } else if self.is_word("between") || self.is_word("in") || self.is_word("not") {
            return Err(error(
                self.position(),
                "`between` and `in` are for `time`: a column takes one comparison or `is [not] null`",
            ));
        } else {
            return Err(error(
                self.position(),
                format!(
                    "expected a comparison or `is [not] null` after column {}, found {}",
                    render_name(name),
                    self.found()
                ),
            ));
        };
        Ok(Parsed {
            time: None,
            depth: 0,
            field: Some((FieldFilter { column, op }, name_at)),
        })
    }

    fn unknown_column(&self, name: &str, at: usize) -> FilterError {
        const MOST_LISTED: usize = 20;
        if self.columns.is_empty() {
            return error(
                at,
                format!("unknown column {}: the device has no value columns", render_name(name)),
            );
        }
        let mut message = format!("unknown column {}", render_name(name));
        if let Some(other_case) = self.columns.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
            let _ = write!(
                message,
                " (names are case-sensitive: {}?)",
                render_name(&other_case.name)
            );
        }
        let listed: Vec<String> = self
            .columns
            .iter()
            .take(MOST_LISTED)
            .map(|c| render_name(&c.name))
            .collect();
        let _ = write!(message, "; the device's columns are {}", listed.join(", "));
        if self.columns.len() > MOST_LISTED {
            let _ = write!(message, " and {} more", self.columns.len() - MOST_LISTED);
        }
        error(at, message)
    }

    /// An optional sign and one literal token, untyped.
    fn raw_literal(&mut self, what: &str) -> Result<RawLiteral<'t>, FilterError> {
        let at = self.position();
        let sign = match self.peek().map(|token| &token.tok) {
            Some(Tok::Sign(sign)) => {
                let sign = *sign;
                self.next += 1;
                Some(sign)
            }
            _ => None,
        };
        match self.peek().cloned() {
            Some(Token {
                tok: tok @ (Tok::Number(_) | Tok::Date(_) | Tok::Str(_) | Tok::Hex(_) | Tok::Word(_)),
                end,
                ..
            }) => {
                self.next += 1;
                Ok(RawLiteral { at, end, sign, tok })
            }
            _ => Err(error(
                self.position(),
                format!("expected {what}, found {}", self.found()),
            )),
        }
    }

    fn literal_text(&self, literal: &RawLiteral<'_>) -> String {
        snippet(self.text.get(literal.at..literal.end).unwrap_or_default())
    }

    /// An integer literal within `min..=max`.
    fn integer(&self, literal: &RawLiteral<'_>, min: i64, max: i64, what: &str) -> Result<i64, FilterError> {
        let shown = self.literal_text(literal);
        let digits = match literal.tok {
            Tok::Number(digits) if digits.bytes().all(|b| b.is_ascii_digit()) => digits,
            _ => {
                return Err(error(
                    literal.at,
                    format!("expected an integer for {what}, found `{shown}`"),
                ))
            }
        };
        // Only digits, so a failed parse is a magnitude past i128: out of
        // range as any other too large.
        let magnitude = digits.parse::<i128>().ok();
        let value = magnitude.map(|m| if literal.sign == Some('-') { -m } else { m });
        value
            .and_then(|v| i64::try_from(v).ok())
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| {
                error(
                    literal.at,
                    format!("`{shown}` is out of range for {what}: {min} to {max}"),
                )
            })
    }

    fn float_text(&self, literal: &RawLiteral<'_>, what: &str) -> Result<FloatText, FilterError> {
        let negative = literal.sign == Some('-');
        match literal.tok {
            Tok::Number(digits) => Ok(FloatText::Number(format!(
                "{}{digits}",
                if negative { "-" } else { "" }
            ))),
            // A NaN's sign would only change its bits, not what it matches.
            Tok::Word(word) if word.eq_ignore_ascii_case("nan") => Ok(FloatText::NaN),
            Tok::Word(word) if word.eq_ignore_ascii_case("inf") || word.eq_ignore_ascii_case("infinity") => {
                Ok(FloatText::Infinite { negative })
            }
            _ => Err(error(
                literal.at,
                format!(
                    "{what} takes a number, `nan`, `inf` or `-inf`, not `{}`",
                    self.literal_text(literal)
                ),
            )),
        }
    }

    /// The literal as a value of `data_type` (one with a literal form).
    fn literal(&self, literal: &RawLiteral<'_>, data_type: DataType, what: &str) -> Result<Literal, FilterError> {
        let shown = self.literal_text(literal);
        let unsigned = literal.sign.is_none();
        let wrong = |expected: &str| error(literal.at, format!("{what} takes {expected}, not `{shown}`"));
        let not_a_number = || error(literal.at, format!("`{shown}` is not a number"));
        let i32_range = (i64::from(i32::MIN), i64::from(i32::MAX));
        match data_type {
            DataType::Boolean => match literal.tok {
                Tok::Word(word) if unsigned && word.eq_ignore_ascii_case("true") => Ok(Literal::Bool(true)),
                Tok::Word(word) if unsigned && word.eq_ignore_ascii_case("false") => Ok(Literal::Bool(false)),
                _ => Err(wrong("`true` or `false`")),
            },
            // In range, checked by `integer`: the cast is exact.
            DataType::Int32 => Ok(Literal::I32(
                self.integer(literal, i32_range.0, i32_range.1, what)? as i32
            )),
            DataType::Date => match &literal.tok {
                Tok::Date(_) | Tok::Str(_) if unsigned => {
                    let date = match &literal.tok {
                        Tok::Date(date) => date,
                        Tok::Str(date) => date.as_str(),
                        _ => "",
                    };
                    date_number(date)
                        .map(Literal::I32)
                        .ok_or_else(|| error(literal.at, format!("`{shown}` is not a calendar date (yyyy-mm-dd)")))
                }
                Tok::Number(_) => Ok(Literal::I32(
                    self.integer(literal, i32_range.0, i32_range.1, what)? as i32
                )),
                _ => Err(wrong("a date (yyyy-mm-dd) or its int32 yyyymmdd")),
            },
            DataType::Int64 | DataType::Timestamp => {
                Ok(Literal::I64(self.integer(literal, i64::MIN, i64::MAX, what)?))
            }
            DataType::Float => Ok(Literal::F32(match self.float_text(literal, what)? {
                // Straight from the text: through f64 it could round twice.
                FloatText::Number(text) => text.parse::<f32>().map_err(|_| not_a_number())?.to_bits(),
                FloatText::NaN => f32::NAN.to_bits(),
                FloatText::Infinite { negative: false } => f32::INFINITY.to_bits(),
                FloatText::Infinite { negative: true } => f32::NEG_INFINITY.to_bits(),
            })),
            DataType::Double => Ok(Literal::F64(match self.float_text(literal, what)? {
                FloatText::Number(text) => text.parse::<f64>().map_err(|_| not_a_number())?.to_bits(),
                FloatText::NaN => f64::NAN.to_bits(),
                FloatText::Infinite { negative: false } => f64::INFINITY.to_bits(),
                FloatText::Infinite { negative: true } => f64::NEG_INFINITY.to_bits(),
            })),
            DataType::Text | DataType::String | DataType::Blob => match &literal.tok {
                Tok::Str(text) if unsigned => Ok(Literal::Bytes(text.as_bytes().to_vec())),
                // The digits start after `X'`.
                Tok::Hex(digits) if unsigned => hex_bytes(digits, literal.at + 2).map(Literal::Bytes),
                _ => Err(wrong("a quoted string ('...') or X'hex bytes'")),
            },
            DataType::Vector => Err(wrong("no value")),
        }
    }
}

/// A time predicate's parse.
fn time_leaf(leaf: TimeFilter) -> Parsed {
    Parsed {
        time: Some(leaf),
        depth: 1,
        field: None,
    }
}

/// A column predicate may only be ANDed with the whole filter.
fn refuse_field_under(part: &Parsed, place: &str) -> Result<(), FilterError> {
    match part.field {
        Some((_, at)) => Err(error(
            at,
            format!(
                "a column predicate cannot be {place}: {ONE_FIELD_FILTER}, so it must be ANDed with the whole filter"
            ),
        )),
        None => Ok(()),
    }
}

/// Whether a column of `data_type` has literals to compare with (VECTOR
/// has none: only `is [not] null`).
fn has_literal(data_type: DataType) -> bool {
    !matches!(data_type, DataType::Vector)
}

fn days_in_month(year: i32, month: i32) -> i32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `yyyy-mm-dd` as TsFile's DATE, `yyyymmdd`; `None` if it is not of that
/// shape or names no day.
fn date_number(date: &str) -> Option<i32> {
    let bytes = date.as_bytes();
    let shaped = bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, &b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !shaped {
        return None;
    }
    let part = |from: usize, to: usize| date.get(from..to)?.parse::<i32>().ok();
    let (year, month, day) = (part(0, 4)?, part(5, 7)?, part(8, 10)?);
    let real = (1..=12).contains(&month) && (1..=days_in_month(year, month)).contains(&day);
    real.then_some(year * 10_000 + month * 100 + day)
}

/// A DATE value as `yyyy-mm-dd`, if it is one.
fn date_text(value: i32) -> Option<String> {
    let (year, month, day) = (value / 10_000, value / 100 % 100, value % 100);
    let real =
        (0..=9999).contains(&year) && (1..=12).contains(&month) && (1..=days_in_month(year, month)).contains(&day);
    real.then(|| format!("{year:04}-{month:02}-{day:02}"))
}

/// The bytes of `X'...'`'s digits, which start at byte `at` of the text.
fn hex_bytes(digits: &str, at: usize) -> Result<Vec<u8>, FilterError> {
    if let Some(bad) = digits.bytes().position(|b| !b.is_ascii_hexdigit()) {
        // Every byte before `bad` is ASCII, so it is a char boundary.
        let c = digits.get(bad..).and_then(|rest| rest.chars().next()).unwrap_or('?');
        return Err(error(at + bad, format!("`{c}` is not a hex digit")));
    }
    if digits.len() % 2 == 1 {
        return Err(error(
            at - 2,
            format!("X'...' holds {} hex digits: a byte is two", digits.len()),
        ));
    }
    let nibble = |b: u8| match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    };
    Ok(digits
        .as_bytes()
        .chunks_exact(2)
        .map(|pair| (nibble(pair[0]) << 4) | nibble(pair[1]))
        .collect())
}

// ---------------------------------------------------------------- render

/// A column name as the parser reads it: bare when it can be, else
/// backquoted.
fn render_name(name: &str) -> String {
    let bare = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(is_word_byte)
        && !RESERVED.iter().any(|keyword| keyword.eq_ignore_ascii_case(name));
    if bare {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

fn write_list(out: &mut String, times: &[i64]) {
    out.push('(');
    for (i, time) in times.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{time}");
    }
    out.push(')');
}

/// `filter`, in parentheses if asked: the caller knows what binds tighter
/// around it. `and` and `or` read to the left, so a right operand of the
/// same operator needs them too.
fn write_time(out: &mut String, filter: &TimeFilter, parenthesized: bool) {
    use TimeFilter::*;
    if parenthesized {
        out.push('(');
        write_time(out, filter, false);
        out.push(')');
        return;
    }
    let _ = match filter {
        Gt(v) => write!(out, "time > {v}"),
        GtEq(v) => write!(out, "time >= {v}"),
        Lt(v) => write!(out, "time < {v}"),
        LtEq(v) => write!(out, "time <= {v}"),
        Eq(v) => write!(out, "time = {v}"),
        NotEq(v) => write!(out, "time != {v}"),
        Between(low, high) => write!(out, "time between {low} and {high}"),
        NotBetween(low, high) => write!(out, "time not between {low} and {high}"),
        In(times) => {
            out.push_str("time in ");
            write_list(out, times);
            Ok(())
        }
        NotIn(times) => {
            out.push_str("time not in ");
            write_list(out, times);
            Ok(())
        }
        And(a, b) => {
            write_time(out, a, matches!(**a, Or(..)));
            out.push_str(" and ");
            write_time(out, b, matches!(**b, And(..) | Or(..)));
            Ok(())
        }
        Or(a, b) => {
            write_time(out, a, false);
            out.push_str(" or ");
            write_time(out, b, matches!(**b, Or(..)));
            Ok(())
        }
        Not(a) => {
            out.push_str("not ");
            write_time(out, a, matches!(**a, And(..) | Or(..)));
            Ok(())
        }
    };
}

fn write_field(out: &mut String, field: &FieldFilter, columns: &[AlignedColumn]) {
    let column = columns.get(field.column);
    let data_type = column.map(|c| c.data_type);
    match column {
        Some(c) => out.push_str(&render_name(&c.name)),
        None => {
            let _ = write!(out, "<column #{}>", field.column);
        }
    }
    match &field.op {
        FieldOp::IsNull => out.push_str(" is null"),
        FieldOp::IsNotNull => out.push_str(" is not null"),
        FieldOp::Cmp(cmp, value) => {
            let _ = write!(out, " {} ", cmp.symbol());
            write_literal(out, value, data_type);
        }
    }
}

fn write_literal(out: &mut String, value: &Literal, data_type: Option<DataType>) {
    let _ = match value {
        Literal::Bool(v) => write!(out, "{v}"),
        Literal::I32(v) => match date_text(*v).filter(|_| data_type == Some(DataType::Date)) {
            Some(date) => write!(out, "{date}"),
            None => write!(out, "{v}"),
        },
        Literal::I64(v) => write!(out, "{v}"),
        // `Debug` is the shortest text that reads back as the same bits
        // (`1e-45`, `-0.0`, `inf`); every NaN is `nan`.
        Literal::F32(bits) => match f32::from_bits(*bits) {
            v if v.is_nan() => write!(out, "nan"),
            v => write!(out, "{v:?}"),
        },
        Literal::F64(bits) => match f64::from_bits(*bits) {
            v if v.is_nan() => write!(out, "nan"),
            v => write!(out, "{v:?}"),
        },
        Literal::Bytes(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) if data_type != Some(DataType::Blob) => write!(out, "'{}'", text.replace('\'', "''")),
            _ => {
                out.push_str("X'");
                for byte in bytes {
                    let _ = write!(out, "{byte:02x}");
                }
                out.push('\'');
                Ok(())
            }
        },
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use TimeFilter::*;

    /// One column of every type, names that need quoting, a VECTOR column
    /// (no literal) and one named like a keyword.
    fn columns() -> Vec<AlignedColumn> {
        [
            ("b", 0),
            ("i", 1),
            ("l", 2),
            ("f", 3),
            ("d", 4),
            ("txt", 5),
            ("ts", 8),
            ("day", 9),
            ("blob", 10),
            ("s", 11),
            ("time", 1),
            ("odd name", 2),
            ("back`quote", 2),
            ("dev.s1", 1),
            ("v", 6),
            ("In", 1),
        ]
        .into_iter()
        .map(|(name, id)| AlignedColumn {
            name: name.to_string(),
            data_type: DataType::from_id(id).expect("a TsFile type id"),
        })
        .collect()
    }

    fn column(name: &str) -> usize {
        columns().iter().position(|c| c.name == name).expect("a test column")
    }

    fn parse(text: &str) -> Result<Filter, FilterError> {
        Filter::parse(text, &columns())
    }

    /// Operators by number (0 `<`, 1 `<=`, 2 `>`, 3 `>=`, 4 `=`, 5 `!=`),
    /// which keeps the tables below short.
    const OPS: [CmpOp; 6] = [CmpOp::Lt, CmpOp::LtEq, CmpOp::Gt, CmpOp::GtEq, CmpOp::Eq, CmpOp::NotEq];

    fn time(text: &str) -> TimeFilter {
        let parsed = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parsed.field, None, "{text}");
        parsed.time.unwrap_or_else(|| panic!("{text}: no time filter"))
    }

    fn field(text: &str) -> FieldFilter {
        let parsed = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parsed.time, None, "{text}");
        parsed.field.unwrap_or_else(|| panic!("{text}: no column predicate"))
    }

    fn cmp(name: &str, code: usize, value: Literal) -> FieldFilter {
        FieldFilter {
            column: column(name),
            op: FieldOp::Cmp(OPS[code], value),
        }
    }

    fn b(f: TimeFilter) -> Box<TimeFilter> {
        Box::new(f)
    }

    /// The error's offset, and that its message holds `words`.
    fn error_at(text: &str, words: &str) -> usize {
        match parse(text) {
            Ok(parsed) => panic!("{text}: parsed as {parsed:?}"),
            Err(e) => {
                assert!(e.message.contains(words), "{text}: {:?} lacks {words:?}", e.message);
                e.at
            }
        }
    }

    #[test]
    fn empty_or_blank_text_is_no_filter() {
        for text in ["", "   ", "\t\n ", "\u{3000}"] {
            assert_eq!(parse(text), Ok(Filter::default()), "{text:?}");
        }
    }

    #[test]
    fn every_time_comparison_reads_as_its_leaf() {
        assert_eq!(time("time > 5"), Gt(5));
        assert_eq!(time("time >= -5"), GtEq(-5));
        assert_eq!(time("time < +5"), Lt(5));
        assert_eq!(time("time <= 0"), LtEq(0));
        assert_eq!(time("time = 7"), Eq(7));
        assert_eq!(time("time == 7"), Eq(7));
        assert_eq!(time("time != 7"), NotEq(7));
        assert_eq!(time("time <> 7"), NotEq(7));
        assert_eq!(time("time>=-9223372036854775808"), GtEq(i64::MIN));
        assert_eq!(time("time<9223372036854775807"), Lt(i64::MAX));
        assert_eq!(time("time = 007"), Eq(7));
    }

    #[test]
    fn between_and_in_read_with_their_negations() {
        assert_eq!(time("time between 3 and 7"), Between(3, 7));
        assert_eq!(time("time between 7 and 3"), Between(7, 3), "bounds kept as written");
        assert_eq!(time("time not between -1 and 1"), NotBetween(-1, 1));
        assert_eq!(time("not time between -1 and 1"), Not(b(Between(-1, 1))));
        assert_eq!(time("time in (1, 2,3)"), In(vec![1, 2, 3]));
        assert_eq!(time("time in (4)"), In(vec![4]));
        assert_eq!(time("time in ()"), In(vec![]));
        assert_eq!(time("time not in (-1, 1, 1)"), NotIn(vec![-1, 1, 1]));
        // `between`'s own `and` is taken before the conjunction's.
        assert_eq!(
            time("time between 1 and 5 and time > 3"),
            And(b(Between(1, 5)), b(Gt(3)))
        );
    }

    #[test]
    fn a_value_before_time_swaps_the_comparison() {
        assert_eq!(time("5 < time"), Gt(5));
        assert_eq!(time("5 <= time"), GtEq(5));
        assert_eq!(time("5 > time"), Lt(5));
        assert_eq!(time("-5 >= time"), LtEq(-5));
        assert_eq!(time("5 = time"), Eq(5));
        assert_eq!(time("5 <> time"), NotEq(5));
        assert_eq!(time("1 < time and time < 9"), And(b(Gt(1)), b(Lt(9))));
    }

    #[test]
    fn keywords_are_case_insensitive_and_whitespace_is_free() {
        assert_eq!(
            time("TIME BETWEEN 1 AND 2 Or NoT Time In(3)"),
            Or(b(Between(1, 2)), b(Not(b(In(vec![3])))))
        );
        assert_eq!(time("(time>1)and(time<2)"), And(b(Gt(1)), b(Lt(2))));
        assert_eq!(
            parse("i IS NOT NULL"),
            Ok(Filter {
                time: None,
                field: Some(FieldFilter {
                    column: column("i"),
                    op: FieldOp::IsNotNull
                })
            })
        );
    }

    #[test]
    fn and_binds_tighter_than_or_and_both_read_to_the_left() {
        assert_eq!(
            time("time = 1 or time = 2 and time = 3"),
            Or(b(Eq(1)), b(And(b(Eq(2)), b(Eq(3)))))
        );
        assert_eq!(
            time("time = 1 and time = 2 or time = 3"),
            Or(b(And(b(Eq(1)), b(Eq(2)))), b(Eq(3)))
        );
        assert_eq!(
            time("(time = 1 or time = 2) and time = 3"),
            And(b(Or(b(Eq(1)), b(Eq(2)))), b(Eq(3)))
        );
        assert_eq!(
            time("time = 1 or time = 2 or time = 3"),
            Or(b(Or(b(Eq(1)), b(Eq(2)))), b(Eq(3)))
        );
        assert_eq!(
            time("time = 1 and (time = 2 and time = 3)"),
            And(b(Eq(1)), b(And(b(Eq(2)), b(Eq(3)))))
        );
    }

    #[test]
    fn not_binds_tighter_than_and() {
        assert_eq!(time("not time = 1 and time = 2"), And(b(Not(b(Eq(1)))), b(Eq(2))));
        assert_eq!(time("not (time = 1 and time = 2)"), Not(b(And(b(Eq(1)), b(Eq(2))))));
        assert_eq!(time("not not time = 1"), Not(b(Not(b(Eq(1))))));
        assert_eq!(time("((time = 1))"), Eq(1));
    }

    #[test]
    fn every_column_comparison_has_its_operator_number() {
        for (symbol, code) in [
            ("<", 0),
            ("<=", 1),
            (">", 2),
            (">=", 3),
            ("=", 4),
            ("==", 4),
            ("!=", 5),
            ("<>", 5),
        ] {
            assert_eq!(
                field(&format!("i {symbol} 3")),
                cmp("i", code, Literal::I32(3)),
                "{symbol}"
            );
        }
        assert_eq!(
            field("v is null"),
            FieldFilter {
                column: column("v"),
                op: FieldOp::IsNull
            },
            "a type without literals still takes is null"
        );
    }

    #[test]
    fn literals_are_typed_by_their_column() {
        let f32_bits = |v: f32| Literal::F32(v.to_bits());
        let f64_bits = |v: f64| Literal::F64(v.to_bits());
        let cases = [
            ("b = true", cmp("b", 4, Literal::Bool(true))),
            ("b != FALSE", cmp("b", 5, Literal::Bool(false))),
            ("i < -2147483648", cmp("i", 0, Literal::I32(i32::MIN))),
            ("i > 2147483647", cmp("i", 2, Literal::I32(i32::MAX))),
            ("l = -9223372036854775808", cmp("l", 4, Literal::I64(i64::MIN))),
            ("ts >= 1700000000000", cmp("ts", 3, Literal::I64(1_700_000_000_000))),
            ("day = 2024-02-29", cmp("day", 4, Literal::I32(20_240_229))),
            ("day = '2023-12-31'", cmp("day", 4, Literal::I32(20_231_231))),
            ("day < 20240105", cmp("day", 0, Literal::I32(20_240_105))),
            ("day > -1", cmp("day", 2, Literal::I32(-1))),
            ("f = 1.5", cmp("f", 4, f32_bits(1.5))),
            ("f = .5", cmp("f", 4, f32_bits(0.5))),
            ("f = 3", cmp("f", 4, f32_bits(3.0))),
            ("f = -1e-3", cmp("f", 4, f32_bits(-1e-3))),
            ("f = 2.5E+3", cmp("f", 4, f32_bits(2500.0))),
            ("f = -0.0", cmp("f", 4, f32_bits(-0.0))),
            ("f = 1e39", cmp("f", 4, f32_bits(f32::INFINITY))),
            ("f = nan", cmp("f", 4, Literal::F32(f32::NAN.to_bits()))),
            ("f = NaN", cmp("f", 4, Literal::F32(f32::NAN.to_bits()))),
            ("f > -inf", cmp("f", 2, f32_bits(f32::NEG_INFINITY))),
            ("f < Infinity", cmp("f", 0, f32_bits(f32::INFINITY))),
            ("d = 0.1", cmp("d", 4, f64_bits(0.1))),
            ("d = 1e300", cmp("d", 4, f64_bits(1e300))),
            ("d != nan", cmp("d", 5, Literal::F64(f64::NAN.to_bits()))),
            ("d <= +inf", cmp("d", 1, f64_bits(f64::INFINITY))),
            ("txt = 'it''s'", cmp("txt", 4, Literal::Bytes(b"it's".to_vec()))),
            ("txt = ''", cmp("txt", 4, Literal::Bytes(Vec::new()))),
            ("s > 'é'", cmp("s", 2, Literal::Bytes("é".as_bytes().to_vec()))),
            ("s = X'ff'", cmp("s", 4, Literal::Bytes(vec![0xff]))),
            ("blob = X'0aFF'", cmp("blob", 4, Literal::Bytes(vec![0x0a, 0xff]))),
            ("blob = x''", cmp("blob", 4, Literal::Bytes(Vec::new()))),
            ("blob < 'ab'", cmp("blob", 0, Literal::Bytes(b"ab".to_vec()))),
        ];
        for (text, expected) in cases {
            assert_eq!(field(text), expected, "{text}");
        }
    }

    /// The decimal just above the midpoint between f32 1.0 and its
    /// successor: as f64 it rounds to the midpoint, which then rounds to
    /// even (1.0); read as f32 directly it is the successor.
    #[test]
    fn a_float_literal_rounds_once_straight_to_f32() {
        let text = "1.000000059604644775390625000000001";
        let via_f64 = text.parse::<f64>().unwrap() as f32;
        let direct = text.parse::<f32>().unwrap();
        assert_ne!(
            via_f64.to_bits(),
            direct.to_bits(),
            "the example must tell the two apart"
        );
        assert_eq!(
            field(&format!("f = {text}")),
            cmp("f", 4, Literal::F32(direct.to_bits()))
        );
        assert_eq!(direct, 1.0 + f32::EPSILON);
    }

    #[test]
    fn column_names_bare_or_quoted() {
        assert_eq!(field("dev.s1 = 1"), cmp("dev.s1", 4, Literal::I32(1)));
        assert_eq!(field("`odd name` = 1"), cmp("odd name", 4, Literal::I64(1)));
        assert_eq!(field("\"odd name\" = 1"), cmp("odd name", 4, Literal::I64(1)));
        assert_eq!(field("`back``quote` = 1"), cmp("back`quote", 4, Literal::I64(1)));
        assert_eq!(
            field("`time` = 1"),
            cmp("time", 4, Literal::I32(1)),
            "a column called time, quoted"
        );
        assert_eq!(field("`In` > 1"), cmp("In", 2, Literal::I32(1)));
    }

    #[test]
    fn the_column_predicate_joins_the_time_conjuncts() {
        let parsed = parse("time >= 5 and s > 'a' and time < 9").unwrap();
        assert_eq!(parsed.time, Some(And(b(GtEq(5)), b(Lt(9)))));
        assert_eq!(parsed.field, Some(cmp("s", 2, Literal::Bytes(b"a".to_vec()))));
        let parsed = parse("i is null and (time > 1 or time < -1)").unwrap();
        assert_eq!(parsed.time, Some(Or(b(Gt(1)), b(Lt(-1)))));
        let parsed = parse("time > 1 and (time < 5 and (i = 3))").unwrap();
        assert_eq!(parsed.time, Some(And(b(Gt(1)), b(Lt(5)))));
        assert_eq!(parsed.field, Some(cmp("i", 4, Literal::I32(3))));
    }

    #[test]
    fn errors_say_what_and_where() {
        let cases: &[(&str, usize, &str)] = &[
            ("time >", 6, "the end of the filter"),
            ("time > 5 time < 3", 9, "expected `and`, `or` or the end"),
            ("(time > 5", 9, "`)` to close the `(` at byte 0"),
            ("time > 5)", 8, "expected `and`, `or` or the end"),
            ("time > 1.5", 7, "expected an integer for a time"),
            ("time > 9223372036854775808", 7, "out of range for a time"),
            ("time < -9223372036854775809", 7, "out of range"),
            ("time > 99999999999999999999999999999999999999999", 7, "out of range"),
            ("time > 5abc", 7, "expected an integer"),
            ("time is null", 5, "never null"),
            (
                "time like 3",
                5,
                "expected a comparison, `between`, `in` or `not` after `time`",
            ),
            ("time not = 3", 9, "expected `between` or `in` after `time not`"),
            ("time between 1 or 2", 15, "expected `and` between the bounds"),
            ("time in 1", 8, "`(` to open the list"),
            ("time in (1 2)", 11, "`,` or `)` in the list of times opened at byte 8"),
            ("time in (1,)", 11, "expected a time"),
            ("time > 5 or i > 3", 12, "cannot be one side of `or`"),
            ("i > 3 or time > 5", 0, "cannot be one side of `or`"),
            ("not (i > 3)", 5, "cannot be under `not`"),
            ("time > 1 and not i is null", 17, "cannot be under `not`"),
            (
                "i > 3 and time > 1 and l < 2",
                23,
                "a second column predicate (the first is at byte 0)",
            ),
            ("nope = 3", 0, "unknown column nope; the device's columns are b, i, l"),
            ("I = 3", 0, "names are case-sensitive: i?"),
            ("i = 3.5", 4, "expected an integer for INT32 column i"),
            (
                "i = 2147483648",
                4,
                "out of range for INT32 column i: -2147483648 to 2147483647",
            ),
            ("i = 'x'", 4, "expected an integer"),
            ("b = 1", 4, "BOOLEAN column b takes `true` or `false`, not `1`"),
            ("b = -true", 4, "takes `true` or `false`"),
            ("f = 1.2.3", 4, "`1.2.3` is not a number"),
            ("f = 'x'", 4, "FLOAT column f takes a number"),
            ("d = nope", 4, "DOUBLE column d takes a number"),
            ("txt = 3", 6, "TEXT column txt takes a quoted string"),
            ("txt = -'a'", 6, "takes a quoted string"),
            ("blob = X'0g'", 10, "`g` is not a hex digit"),
            ("blob = X'abc'", 7, "3 hex digits"),
            ("blob = X'ab", 7, "never closed"),
            ("txt = 'abc", 6, "never closed"),
            ("`abc = 1", 0, "never closed"),
            ("day = 2023-02-29", 6, "not a calendar date"),
            ("day = '2024-13-01'", 6, "not a calendar date"),
            ("day = 'soon'", 6, "`'soon'` is not a calendar date"),
            ("day = 2024-1-05", 6, "`2024-1-05` is not a calendar date"),
            (
                "day = -2024-01-05",
                6,
                "takes a date (yyyy-mm-dd) or its int32 yyyymmdd",
            ),
            ("i = 2024-01-05", 4, "expected an integer for INT32 column i"),
            ("v = 1", 0, "VECTOR: it takes `is null` / `is not null`"),
            ("i between 1 and 2", 2, "`between` and `in` are for `time`"),
            ("i is 3", 5, "expected `null` after `is`"),
            ("i", 1, "expected a comparison or `is [not] null` after column i"),
            (
                "3 < i",
                4,
                "only `time` may come after the value; put the column first: `i > 3`",
            ),
            ("3 < 4", 4, "expected `time`"),
            ("3 time", 2, "expected a comparison after a value"),
            ("in = 3", 0, "the keyword `in`"),
            ("time = 1 and", 12, "the filter ends where a predicate"),
            ("time = 1 and and time = 2", 13, "the keyword `and`"),
            (") or time = 1", 0, "expected a predicate"),
            ("time ! 3", 5, "`!` is only part of `!=`"),
            ("time = 1 ; time = 2", 9, "unexpected character `;`"),
            ("time = 1 \u{e9}", 9, "unexpected character `\u{e9}`"),
        ];
        for &(text, at, words) in cases {
            assert_eq!(error_at(text, words), at, "{text}");
        }
        assert_eq!(
            Filter::parse("s1 = 3", &[]).unwrap_err().message,
            "unknown column s1: the device has no value columns"
        );
        let many: Vec<AlignedColumn> = (0..25)
            .map(|i| AlignedColumn {
                name: format!("c{i}"),
                data_type: DataType::Int32,
            })
            .collect();
        let message = Filter::parse("x = 1", &many).unwrap_err().message;
        assert!(message.ends_with("c19 and 5 more"), "{message}");
    }

    #[test]
    fn an_error_displays_its_offset_and_message() {
        let e = parse("time >").unwrap_err();
        assert_eq!(
            e.to_string(),
            "filter, at byte 6: expected a time (an integer), found the end of the filter"
        );
        let _: &dyn std::error::Error = &e;
    }

    #[test]
    fn nesting_stops_at_the_depth_limit() {
        let limit = MAX_FILTER_DEPTH as usize;
        // `not` x 63 over a leaf: a tree exactly at the limit.
        let at_limit = format!("{}time = 3", "not ".repeat(limit - 1));
        assert_eq!(time(&at_limit).depth(), MAX_FILTER_DEPTH);
        // One more `not`: the tree is too deep, found at the outermost.
        let too_deep = format!("{}time = 3", "not ".repeat(limit));
        assert_eq!(error_at(&too_deep, "65 levels deep"), 0);
        // One more still: the text nesting stops first, at the 65th `not`.
        let too_nested = format!("{}time = 3", "not ".repeat(limit + 1));
        assert_eq!(error_at(&too_nested, "nest more than 64"), 4 * limit);
        // Parentheses count in the text, not in the tree.
        let parens = |n: usize| format!("{}time = 3{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(time(&parens(limit)), Eq(3));
        assert_eq!(error_at(&parens(limit + 1), "nest more than 64"), limit);
        // A flat chain of `and`: each one a level.
        let chain = |n: usize| vec!["time > 1"; n].join(" and ");
        assert_eq!(time(&chain(limit)).depth(), MAX_FILTER_DEPTH);
        let at = error_at(&chain(limit + 1), "65 levels deep");
        assert_eq!(&chain(limit + 1)[at..at + 3], "and");
        assert_eq!(at, limit * 8 + (limit - 1) * 5 + 1);
        // The column predicate is no level of the time tree.
        assert!(parse(&format!("{} and i = 1", chain(limit))).is_ok());
        // Hostile sizes end in an error, not a stack overflow.
        for hostile in ["not ".repeat(1 << 20), "(".repeat(1 << 20), chain(1 << 14)] {
            assert!(parse(&hostile).is_err());
        }
    }

    #[test]
    fn render_writes_the_parsers_syntax() {
        let cols = columns();
        let cases = [
            ("time > -5", "time > -5"),
            (
                "TIME == 1 OR time = 2 AND time <> 3",
                "time = 1 or time = 2 and time != 3",
            ),
            (
                "(time = 1 or time = 2) and time = 3",
                "(time = 1 or time = 2) and time = 3",
            ),
            (
                "time = 1 and (time = 2 and time = 3)",
                "time = 1 and (time = 2 and time = 3)",
            ),
            (
                "time = 1 or (time = 2 or time = 3)",
                "time = 1 or (time = 2 or time = 3)",
            ),
            ("not (time in (1,2))", "not time in (1, 2)"),
            ("not (time = 1 or time = 2)", "not (time = 1 or time = 2)"),
            (
                "5 < time and time not between 7 and 8",
                "time > 5 and time not between 7 and 8",
            ),
            ("time not in ()", "time not in ()"),
            (
                "(time = 1 or time = 2) and s = 'it''s'",
                "(time = 1 or time = 2) and s = 'it''s'",
            ),
            ("`time` is not null", "`time` is not null"),
            ("`back``quote` is null", "`back``quote` is null"),
            ("`odd name` < 3", "`odd name` < 3"),
            ("`In` <> 3", "`In` != 3"),
            ("day >= 20240229", "day >= 2024-02-29"),
            ("day >= 20240230", "day >= 20240230"),
            ("f = 1e-45", "f = 1e-45"),
            ("f = -0.0", "f = -0.0"),
            ("d = -inf", "d = -inf"),
            ("d = nan", "d = nan"),
            ("blob = 'ab'", "blob = X'6162'"),
            ("txt = X'ff00'", "txt = X'ff00'"),
            ("b = TRUE", "b = true"),
            ("", ""),
        ];
        for (text, rendered) in cases {
            let parsed = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(parsed.render(&cols), rendered, "{text}");
        }
        let stray = Filter {
            time: None,
            field: Some(FieldFilter {
                column: 99,
                op: FieldOp::Cmp(CmpOp::NotEq, Literal::I32(1)),
            }),
        };
        assert_eq!(stray.render(&cols), "<column #99> != 1");
    }

    #[test]
    fn a_time_filter_displays_as_its_text() {
        let tree = time("(time = 1 or time = 2) and not time in (3, 4)");
        assert_eq!(tree.to_string(), "(time = 1 or time = 2) and not time in (3, 4)");
        assert_eq!(Or(b(Gt(1)), b(Lt(0))).to_string(), "time > 1 or time < 0");
    }

    /// Each scanner's filter holds the same tree, column, operator and
    /// constant.
    #[test]
    fn a_filter_converts_into_each_scanners_filter() {
        let filter = parse("(time > 5 or time in (1, 2)) and not time between 7 and 9 and d >= -1.5").unwrap();
        let kernel = k::Filter::from(&filter);
        let reference = r::Filter::from(filter.clone());
        let d = column("d");
        assert_eq!(
            kernel,
            k::Filter {
                time: Some(k::TimeFilter::And(
                    Box::new(k::TimeFilter::Or(
                        Box::new(k::TimeFilter::Gt(5)),
                        Box::new(k::TimeFilter::In(vec![1, 2]))
                    )),
                    Box::new(k::TimeFilter::Not(Box::new(k::TimeFilter::Between(7, 9))))
                )),
                field: Some(k::FieldFilter {
                    column: d,
                    op: k::FieldOp::Cmp(k::CmpOp::GtEq, k::Value::F64((-1.5f64).to_bits())),
                }),
            }
        );
        assert_eq!(
            reference.field,
            Some(r::FieldFilter {
                column: d,
                op: r::FieldOp::Cmp(r::CmpOp::GtEq, r::Value::F64((-1.5f64).to_bits())),
            })
        );
        assert_eq!(
            format!("{:?}", reference.time),
            format!("{:?}", kernel.time),
            "the same tree"
        );
        let ops: Vec<(k::CmpOp, r::CmpOp)> = OPS
            .iter()
            .map(|&op| {
                let f = Filter {
                    time: None,
                    field: Some(FieldFilter {
                        column: 0,
                        op: FieldOp::Cmp(op, Literal::Bool(true)),
                    }),
                };
                match (k::Filter::from(&f).field, r::Filter::from(&f).field) {
                    (
                        Some(k::FieldFilter {
                            op: k::FieldOp::Cmp(kop, _),
                            ..
                        }),
                        Some(r::FieldFilter {
                            op: r::FieldOp::Cmp(rop, _),
                            ..
                        }),
                    ) => (kop, rop),
                    other => panic!("{op:?}: {other:?}"),
                }
            })
            .collect();
        use k::CmpOp as K;
        use r::CmpOp as R;
        assert_eq!(
            ops,
            [
                (K::Lt, R::Lt),
                (K::LtEq, R::LtEq),
                (K::Gt, R::Gt),
                (K::GtEq, R::GtEq),
                (K::Eq, R::Eq),
                (K::NotEq, R::NotEq)
            ]
        );
        for (null, k_null, r_null) in [
            (FieldOp::IsNull, k::FieldOp::IsNull, r::FieldOp::IsNull),
            (FieldOp::IsNotNull, k::FieldOp::IsNotNull, r::FieldOp::IsNotNull),
        ] {
            let f = Filter {
                time: None,
                field: Some(FieldFilter { column: 3, op: null }),
            };
            assert_eq!(k::Filter::from(&f).field.map(|f| (f.column, f.op)), Some((3, k_null)));
            assert_eq!(r::Filter::from(&f).field.map(|f| (f.column, f.op)), Some((3, r_null)));
        }
        // The value types have the same variants, so their Debug text
        // tells a literal converted into the wrong one.
        for literal in [
            Literal::Bool(true),
            Literal::I32(-3),
            Literal::I64(1 << 40),
            Literal::F32(1.5f32.to_bits()),
            Literal::F64(2.5f64.to_bits()),
            Literal::Bytes(b"ab".to_vec()),
        ] {
            let f = Filter {
                time: None,
                field: Some(FieldFilter {
                    column: 0,
                    op: FieldOp::Cmp(CmpOp::Eq, literal.clone()),
                }),
            };
            let shown = format!("{:?}", FieldOp::Cmp(CmpOp::Eq, literal));
            assert_eq!(format!("{:?}", k::Filter::from(&f).field.unwrap().op), shown);
            assert_eq!(format!("{:?}", r::Filter::from(&f).field.unwrap().op), shown);
        }
        assert_eq!(k::Filter::from(Filter::default()), k::Filter::default());
        assert_eq!(r::Filter::from(Filter::default()), r::Filter::default());
    }

    // ------------------------------------------------------- properties

    fn time_value() -> impl Strategy<Value = i64> {
        prop_oneof![-3i64..3, any::<i64>(), Just(i64::MIN), Just(i64::MAX)]
    }

    fn time_leaf_strategy() -> impl Strategy<Value = TimeFilter> {
        prop_oneof![
            time_value().prop_map(Gt),
            time_value().prop_map(GtEq),
            time_value().prop_map(Lt),
            time_value().prop_map(LtEq),
            time_value().prop_map(Eq),
            time_value().prop_map(NotEq),
            (time_value(), time_value()).prop_map(|(lo, hi)| Between(lo, hi)),
            (time_value(), time_value()).prop_map(|(lo, hi)| NotBetween(lo, hi)),
            prop::collection::vec(time_value(), 0..4).prop_map(In),
            prop::collection::vec(time_value(), 0..4).prop_map(NotIn),
        ]
    }

    fn time_tree() -> impl Strategy<Value = TimeFilter> {
        time_leaf_strategy().prop_recursive(6, 48, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(x, y)| And(b(x), b(y))),
                (inner.clone(), inner.clone()).prop_map(|(x, y)| Or(b(x), b(y))),
                inner.prop_map(|x| Not(b(x))),
            ]
        })
    }

    /// A constant of the type `type_id` reads as (`None`: no literal).
    fn value_of_type(type_id: u8) -> Option<BoxedStrategy<Literal>> {
        let bytes = prop_oneof![
            any::<String>().prop_map(String::into_bytes),
            prop::collection::vec(any::<u8>(), 0..6),
        ];
        let canonical_nan32 = |bits: u32| {
            if f32::from_bits(bits).is_nan() {
                f32::NAN.to_bits()
            } else {
                bits
            }
        };
        let canonical_nan64 = |bits: u64| {
            if f64::from_bits(bits).is_nan() {
                f64::NAN.to_bits()
            } else {
                bits
            }
        };
        Some(match type_id {
            0 => any::<bool>().prop_map(Literal::Bool).boxed(),
            1 | 9 => prop_oneof![any::<i32>(), 19_000_101..21_001_231]
                .prop_map(Literal::I32)
                .boxed(),
            2 | 8 => any::<i64>().prop_map(Literal::I64).boxed(),
            3 => prop_oneof![any::<u32>(), any::<f32>().prop_map(f32::to_bits)]
                .prop_map(move |bits| Literal::F32(canonical_nan32(bits)))
                .boxed(),
            4 => prop_oneof![any::<u64>(), any::<f64>().prop_map(f64::to_bits)]
                .prop_map(move |bits| Literal::F64(canonical_nan64(bits)))
                .boxed(),
            5 | 10 | 11 => bytes.prop_map(Literal::Bytes).boxed(),
            _ => return None,
        })
    }

    fn field_filter() -> impl Strategy<Value = FieldFilter> {
        (0..columns().len()).prop_flat_map(|index| {
            let null_tests = prop_oneof![Just(FieldOp::IsNull), Just(FieldOp::IsNotNull)];
            let op = match value_of_type(columns()[index].data_type.id()) {
                Some(values) => prop_oneof![
                    null_tests,
                    (prop::sample::select(&OPS[..]), values).prop_map(|(op, v)| FieldOp::Cmp(op, v))
                ]
                .boxed(),
                None => null_tests.boxed(),
            };
            op.prop_map(move |op| FieldFilter { column: index, op })
        })
    }

    /// Text made of the grammar's own words, so that a fair share parses.
    fn token_soup() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            prop::sample::select(vec![
                "time",
                "TIME",
                "not",
                "and",
                "or",
                "between",
                "in",
                "is",
                "null",
                "(",
                ")",
                ",",
                "<",
                "<=",
                ">",
                ">=",
                "=",
                "==",
                "!=",
                "<>",
                "-",
                "+",
                "b",
                "i",
                "l",
                "f",
                "d",
                "txt",
                "ts",
                "day",
                "blob",
                "s",
                "v",
                "`odd name`",
                "\"time\"",
                "`In`",
                "true",
                "false",
                "nan",
                "inf",
                "'it''s'",
                "X'0aff'",
                "x'",
                "2024-02-29",
                "1e-7",
                "'",
                "`",
                "é",
            ])
            .prop_map(str::to_string),
            "[0-9]{1,20}",
            "-?[0-9]{0,3}\\.[0-9]{0,3}(e-?[0-9])?",
        ];
        (prop::collection::vec(token, 0..24), any::<bool>())
            .prop_map(|(tokens, spaced)| tokens.join(if spaced { " " } else { "" }))
    }

    fn keyword(word: &'static str) -> impl Strategy<Value = String> + Clone {
        prop::sample::select(vec![word.to_string(), word.to_uppercase()])
    }

    const COMPARISONS: [&str; 8] = ["<", "<=", ">", ">=", "=", "==", "!=", "<>"];

    fn spelled_time_predicate() -> impl Strategy<Value = String> {
        let int = prop_oneof![
            (-3i64..3).prop_map(|v| v.to_string()),
            any::<i64>().prop_map(|v| v.to_string()),
            Just("+5".to_string()),
            Just("007".to_string()),
        ];
        let not = prop::option::of(keyword("not")).prop_map(|not| not.map(|n| n + " ").unwrap_or_default());
        prop_oneof![
            (
                keyword("time"),
                prop::sample::select(&COMPARISONS[..]),
                int.clone(),
                any::<bool>()
            )
                .prop_map(|(time, op, v, reversed)| if reversed {
                    format!("{v} {op} {time}")
                } else {
                    format!("{time} {op} {v}")
                }),
            (
                keyword("time"),
                not.clone(),
                keyword("between"),
                int.clone(),
                keyword("and"),
                int.clone()
            )
                .prop_map(|(time, not, between, a, and, b)| format!("{time} {not}{between} {a} {and} {b}")),
            (keyword("time"), not, keyword("in"), prop::collection::vec(int, 0..4))
                .prop_map(|(time, not, in_, list)| format!("{time} {not}{in_} ({})", list.join(","))),
        ]
    }

    fn spelled_time_expression() -> impl Strategy<Value = String> {
        spelled_time_predicate().prop_recursive(4, 24, 2, |inner| {
            prop_oneof![
                (inner.clone(), keyword("and"), inner.clone()).prop_map(|(a, and, b)| format!("{a} {and} {b}")),
                (inner.clone(), keyword("or"), inner.clone()).prop_map(|(a, or, b)| format!("{a} {or} {b}")),
                (keyword("not"), inner.clone()).prop_map(|(not, a)| format!("{not} {a}")),
                inner.prop_map(|a| format!("({a})")),
            ]
        })
    }

    /// A column predicate with a literal its column takes, in the ways it
    /// may be spelled.
    fn spelled_field_predicate() -> impl Strategy<Value = String> {
        let compared = prop::sample::select(vec![
            ("b", "true"),
            ("b", "FALSE"),
            ("i", "-2147483648"),
            ("i", "+7"),
            ("`i`", "007"),
            ("l", "-9223372036854775808"),
            ("ts", "1700000000000"),
            ("day", "2024-02-29"),
            ("day", "'1999-12-31'"),
            ("day", "20240230"),
            ("day", "-1"),
            ("f", "1.5"),
            ("f", ".5"),
            ("f", "-1e-3"),
            ("f", "nan"),
            ("f", "-inf"),
            ("f", "Infinity"),
            ("f", "1e39"),
            ("f", "-0.0"),
            ("f", "1.000000059604644775390625000000001"),
            ("d", "0.1"),
            ("d", "-NaN"),
            ("d", "4.9e-324"),
            ("txt", "'it''s'"),
            ("txt", "''"),
            ("txt", "X'ff00'"),
            ("s", "'é'"),
            ("\"odd name\"", "3"),
            ("`back``quote`", "-1"),
            ("`time`", "5"),
            ("`In`", "0"),
            ("dev.s1", "1"),
            ("blob", "X'0aFF'"),
            ("blob", "'ab'"),
        ]);
        let null_tested = prop::sample::select(vec!["b", "v", "`time`", "\"odd name\"", "dev.s1", "txt"]);
        prop_oneof![
            (compared, prop::sample::select(&COMPARISONS[..]))
                .prop_map(|((name, literal), op)| format!("{name} {op} {literal}")),
            (
                null_tested,
                keyword("is"),
                prop::option::of(keyword("not")),
                keyword("null")
            )
                .prop_map(|(name, is, not, null)| format!(
                    "{name} {is} {}{null}",
                    not.map(|n| n + " ").unwrap_or_default()
                )),
        ]
    }

    /// Well-formed filter text: a time expression, a column predicate, or
    /// the two ANDed either way round.
    fn spelled_filter() -> impl Strategy<Value = String> {
        (
            prop::option::of(spelled_time_expression()),
            prop::option::of(spelled_field_predicate()),
            any::<bool>(),
            keyword("and"),
        )
            .prop_map(|(time, field, field_first, and)| match (time, field) {
                (None, None) => " ".to_string(),
                (Some(time), None) => time,
                (None, Some(field)) => field,
                (Some(time), Some(field)) if field_first => format!("{field} {and} ({time})"),
                (Some(time), Some(field)) => format!("({time}) {and} {field}"),
            })
    }

    fn parses_back(text: &str) -> Result<(), TestCaseError> {
        let cols = columns();
        if let Ok(parsed) = Filter::parse(text, &cols) {
            let rendered = parsed.render(&cols);
            prop_assert_eq!(
                Filter::parse(&rendered, &cols),
                Ok(parsed),
                "{:?} rendered {:?}",
                text,
                rendered
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any text: an error or a filter, never a panic; a filter renders
        /// to text that reads back as it.
        #[test]
        fn any_text_parses_or_errs_and_a_filter_renders_back(text in any::<String>()) {
            parses_back(&text)?;
        }

        #[test]
        fn grammar_like_text_parses_or_errs_and_a_filter_renders_back(text in token_soup()) {
            parses_back(&text)?;
        }

        /// Well-formed text in every spelling the grammar allows parses,
        /// and its filter renders back.
        #[test]
        fn well_formed_text_parses_and_renders_back(text in spelled_filter()) {
            let parsed = parse(&text);
            prop_assert!(parsed.is_ok(), "{:?}: {:?}", text, parsed);
            parses_back(&text)?;
        }

        /// Every filter the parser could produce renders to text that
        /// parses back to it.
        #[test]
        fn rendered_filters_parse_back(
            time in prop::option::of(time_tree()),
            field in prop::option::of(field_filter()),
        ) {
            let cols = columns();
            let filter = Filter { time, field };
            let rendered = filter.render(&cols);
            prop_assert_eq!(Filter::parse(&rendered, &cols), Ok(filter), "rendered {:?}", rendered);
        }
    }
}
