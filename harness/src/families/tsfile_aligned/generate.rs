//! Aligned chunk groups and requests: 1-16 value columns of every type and
//! encoding the scanners read, time chunks in every INT64 encoding, pages
//! in the C++ or the Java writer's layouts, page sizes from 1 row up (mixed
//! within a chunk; up to 10,000 rows in the large category), no / some / all nulls,
//! empty pages, a missing measurement, times at i64::MIN / MAX, windows on,
//! next to and between page edges, every filter form in random nested
//! trees, a FIELD filter, offsets and limits past the end, block sizes 1, a
//! page size +-1 and more than the chunk; chunks stored compressed (SNAPPY,
//! LZ4) and / or as chunks of one page (headers without statistics); and
//! damaged groups.
//!
//! Every draw is of a fixed-width integer (never `usize`), so a seed makes
//! the same cases on 32- and 64-bit hosts.

use crossdec_reference::tsfile::aligned as r;
use r::write::{
    empty_value_page, restore_chunk, time_body, time_page, typed_stats, value_body, value_page_for, value_page_typed,
    Stats,
};

use super::convert::{cell_of_reference, encoding_id, type_id};
use super::types::{AlignedInput, FieldFilter, FieldOp, Request, TimeFilter, ValueChunk, WRITER_CPP, WRITER_JAVA};
use crate::engine::{bytes, Canonical, Case, CaseRng};

/// (category, scale): generator calls per `--cases`.
pub const CATEGORIES: &[(&str, f64)] = &[
    ("groups", 1.0),
    ("page-edges", 0.5),
    ("discrete-windows", 0.5),
    ("time-extremes", 0.25),
    ("offset-limit", 0.5),
    ("near-word-size", 0.3),
    ("blocks", 0.5),
    ("wide", 0.2),
    ("large-pages", 0.02),
    ("malformed-truncation", 0.2),
    ("malformed-corrupt", 0.5),
    ("malformed-row-counts", 0.2),
    ("malformed-bitmap", 0.2),
    ("malformed-page-count", 0.2),
    ("malformed-lying-statistics", 0.5),
    ("value-statistics", 0.5),
    ("malformed-lying-value-statistics", 0.3),
    ("stored", 0.5),
    ("malformed-stored", 0.2),
];

/// Campaign-only categories (structured fuzzing never draws them).
pub const LARGE: &[&str] = &["large-pages"];

/// A value column of a scenario.
#[derive(Debug, Clone)]
pub struct Column {
    pub t: r::ColumnType,
    pub e: r::Encoding,
    pub cells: Vec<Option<r::Value>>,
    /// Write an all-null page as the empty page (size 0).
    pub empty_pages: bool,
}

/// A group before it is written: times, page sizes, columns, request.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub times: Vec<i64>,
    pub page_sizes: Vec<usize>,
    pub time_encoding: r::Encoding,
    /// Whose layouts the pages are written in (and read back with).
    pub writer: r::Writer,
    /// `None`: the measurement is missing from the group.
    pub cols: Vec<Option<Column>>,
    pub request: Request,
}

/// What a category asks of [`scenario`].
#[derive(Debug, Clone, Copy)]
pub struct Knobs {
    pub max_cols: u32,
    pub max_rows: u32,
    /// Fewest rows (categories that need pages with holes).
    pub min_rows: u32,
    /// Largest page (rows).
    pub max_page: u32,
    /// 0 / 1: times from i64::MIN up / down to i64::MAX; None: random.
    pub time_mode: Option<u32>,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            max_cols: 4,
            max_rows: 80,
            min_rows: 0,
            max_page: 12,
            time_mode: None,
        }
    }
}

/// `0..n` drawn as a `u64`.
fn below(rng: &mut CaseRng, n: usize) -> usize {
    rng.gen_range(0..n.max(1) as u64) as usize
}

fn pick<T: Copy>(rng: &mut CaseRng, items: &[T]) -> T {
    items[below(rng, items.len())]
}

fn gen_times(rng: &mut CaseRng, n: usize, mode: Option<u32>, regular: bool) -> Vec<i64> {
    // REGULAR times step 1, 2 or 4: a block's smallest step divides every
    // other, so the Java writer's blocks give the times back.
    let step = |rng: &mut CaseRng| {
        if regular {
            1 << rng.gen_range(0..3)
        } else {
            rng.gen_range(1..=3i64)
        }
    };
    let mut times = Vec::with_capacity(n);
    match mode.unwrap_or_else(|| rng.gen_range(0..4u32)) {
        0 => {
            let mut t = i64::MIN;
            for _ in 0..n {
                times.push(t);
                t = t.saturating_add(step(rng));
            }
        }
        1 => {
            let mut t = i64::MAX;
            for _ in 0..n {
                times.push(t);
                t = t.saturating_sub(step(rng));
            }
            times.reverse();
        }
        _ => {
            let mut t = rng.gen_range(-50..50i64);
            for _ in 0..n {
                times.push(t);
                t += step(rng);
            }
        }
    }
    times
}

/// A value of type `t`: extremes, NaN, small numbers, short strings.
pub fn gen_value(rng: &mut CaseRng, t: r::ColumnType) -> r::Value {
    use r::ColumnType::*;
    match t {
        Boolean => r::Value::Bool(rng.gen()),
        Int32 | Date => r::Value::I32(match rng.gen_range(0..4u32) {
            0 => i32::MIN,
            1 => i32::MAX,
            _ => rng.gen_range(-20..20),
        }),
        Int64 | Timestamp => r::Value::I64(match rng.gen_range(0..4u32) {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => rng.gen_range(-20..20),
        }),
        Float => r::Value::F32(match rng.gen_range(0..4u32) {
            0 => rng.gen(),
            1 => f32::NAN.to_bits(),
            _ => (rng.gen_range(-20..20i32) as f32).to_bits(),
        }),
        Double => r::Value::F64(match rng.gen_range(0..4u32) {
            0 => rng.gen(),
            1 => f64::NAN.to_bits(),
            _ => (rng.gen_range(-20..20i32) as f64).to_bits(),
        }),
        Text | String | Blob => {
            r::Value::Bytes((0..rng.gen_range(0..4u32)).map(|_| rng.gen_range(b'a'..b'd')).collect())
        }
    }
}

/// A float value as an `f64` (0 for a NaN or an infinity).
fn finite(v: Option<&r::Value>) -> f64 {
    let x = match v {
        Some(r::Value::F32(b)) => f32::from_bits(*b) as f64,
        Some(r::Value::F64(b)) => f64::from_bits(*b),
        _ => 0.0,
    };
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

fn float_value(t: r::ColumnType, v: f64) -> r::Value {
    match t {
        r::ColumnType::Float => r::Value::F32((v as f32).to_bits()),
        _ => r::Value::F64(v.to_bits()),
    }
}

/// A FLOAT / DOUBLE value for TS_2DIFF (maxPointNumber 2): hundredths (the
/// scaled form), a step from the previous value, a value too large to
/// scale (the rounded form), or one stored raw (infinities, NaN, beyond the
/// integer range), so pages mix the three forms.
fn gen_scaled(rng: &mut CaseRng, t: r::ColumnType, prev: Option<&r::Value>) -> r::Value {
    let float = t == r::ColumnType::Float;
    let v = match rng.gen_range(0..8u32) {
        0..=2 => rng.gen_range(-100_000..100_000i64) as f64 / 100.0,
        3 => finite(prev) + rng.gen_range(-500..500i64) as f64 / 100.0,
        // Above i32::MAX / 100 (FLOAT) or i64::MAX / 100 (DOUBLE) once
        // scaled, not above the integer range itself.
        4 if float => rng.gen_range(22_000_000..2_000_000_000i64) as f64,
        4 => rng.gen_range(100_000_000_000_000_000..9_000_000_000_000_000_000i64) as f64,
        5 => pick(
            rng,
            &[
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                if float { 3.0e38 } else { 1.0e300 },
                -1.0e30,
            ],
        ),
        _ => return gen_value(rng, t),
    };
    float_value(t, v)
}

/// A DOUBLE value for CAMEL: few decimals (its decimal form), a small step
/// from the previous value, zeros, values that take the XOR form (too many
/// digits, tiny, infinite), or any value of the type.
fn gen_decimal(rng: &mut CaseRng, prev: Option<&r::Value>) -> r::Value {
    let v = match rng.gen_range(0..8u32) {
        0..=3 => {
            let d = rng.gen_range(0..5i32);
            rng.gen_range(-10_000_000..10_000_000i64) as f64 / 10f64.powi(d)
        }
        4 => {
            let d = rng.gen_range(0..4i32);
            finite(prev) + rng.gen_range(-100..100i64) as f64 / 10f64.powi(d)
        }
        5 => pick(
            rng,
            &[0.0, -0.0, 1.0 / 3.0, 123_456_789_012.5, 1.0e-12, -2.0e15, f64::INFINITY],
        ),
        _ => return gen_value(rng, r::ColumnType::Double),
    };
    float_value(r::ColumnType::Double, v)
}

/// Bit widths of the steps [`gen_step`] takes.
const STEP_WIDTHS: [u32; 5] = [0, 3, 12, 24, 40];
/// A column's own step width: 2^40 twice as likely.
const COLUMN_STEP_WIDTHS: [u32; 6] = [0, 3, 12, 24, 40, 40];

/// A value for SPRINTZ or RLBE, which code differences from the previous
/// value (of the value's bits, for FLOAT / DOUBLE): the same again, or a
/// step of up to 2^k — half the time k = `width`, the column's own (so
/// RLBE has runs of one bit length, and a column of 2^40 steps has SPRINTZ
/// INT64 / DOUBLE blocks whose predictor product passes 2^63, where the C++
/// and Java predictors differ), else any of [`STEP_WIDTHS`] —, now and then
/// any value of the type.
fn gen_step(rng: &mut CaseRng, t: r::ColumnType, width: u32, prev: Option<&r::Value>) -> r::Value {
    let Some(prev) = prev.filter(|_| rng.gen_range(0..8u32) != 0) else {
        return gen_value(rng, t);
    };
    let k = if rng.gen() { width } else { pick(rng, &STEP_WIDTHS) };
    let step = if rng.gen_range(0..6u32) == 0 {
        0
    } else {
        rng.gen_range(-(1i64 << k)..=1i64 << k)
    };
    match prev {
        r::Value::I32(v) => r::Value::I32(v.wrapping_add(step as i32)),
        r::Value::I64(v) => r::Value::I64(v.wrapping_add(step)),
        r::Value::F32(b) => r::Value::F32(b.wrapping_add(step as u32)),
        r::Value::F64(b) => r::Value::F64(b.wrapping_add(step as u64)),
        other => other.clone(),
    }
}

/// A value for REGULAR: the previous one plus 1000 times 1, 2 or 4 (a
/// fixed interval with points missing, whose blocks the Java writer writes
/// exactly, wrapping past the type's end); the first any value of the type
/// or an epoch millisecond.
fn gen_regular(rng: &mut CaseRng, t: r::ColumnType, prev: Option<&r::Value>) -> r::Value {
    let step = 1000i64 << rng.gen_range(0..3);
    match prev {
        Some(r::Value::I32(v)) => r::Value::I32(v.wrapping_add(step as i32)),
        Some(r::Value::I64(v)) => r::Value::I64(v.wrapping_add(step)),
        _ if rng.gen() => gen_value(rng, t),
        _ => match t {
            r::ColumnType::Int32 | r::ColumnType::Date => r::Value::I32(rng.gen_range(-1000..1000)),
            _ => r::Value::I64(1_700_000_000_000 + rng.gen_range(-1000..1000)),
        },
    }
}

/// A value of a column of type `t` encoded with `e` (`prev`: the column's
/// previous non-null value; `width`: its step width): what exercises that
/// encoding.
fn gen_cell(rng: &mut CaseRng, t: r::ColumnType, e: r::Encoding, width: u32, prev: Option<&r::Value>) -> r::Value {
    use r::ColumnType::*;
    use r::Encoding::*;
    match (t, e) {
        (Float | Double, Ts2Diff | Rle) => gen_scaled(rng, t, prev),
        (Double, Camel) => gen_decimal(rng, prev),
        (_, Sprintz | Rlbe) => gen_step(rng, t, width, prev),
        (_, Regular) => gen_regular(rng, t, prev),
        _ => gen_value(rng, t),
    }
}

fn gen_col(rng: &mut CaseRng, n: usize) -> Column {
    use r::ColumnType::*;
    use r::Encoding::*;
    let t = pick(
        rng,
        &[
            Boolean, Int32, Int64, Float, Double, Timestamp, Date, Text, String, Blob,
        ],
    );
    // Every pair both scanners read (`page::supported`).
    let encodings: &[r::Encoding] = match t {
        Boolean => &[Plain, Rle],
        Int32 | Date | Int64 | Timestamp => &[Plain, Rle, Ts2Diff, Gorilla, Zigzag, Chimp, Sprintz, Rlbe, Regular],
        Float => &[Plain, Gorilla, Chimp, Ts2Diff, Sprintz, Rlbe, Rle],
        Double => &[Plain, Gorilla, Chimp, Ts2Diff, Sprintz, Rlbe, Camel, Rle],
        Text | String => &[Plain, Dictionary],
        Blob => &[Plain],
    };
    let e = pick(rng, encodings);
    // SPRINTZ and RLBE columns: fewer all-null ones, more 2^40 steps (full
    // SPRINTZ blocks whose INT64 / DOUBLE predictions pass 2^63).
    let stepped = matches!(e, Sprintz | Rlbe);
    let null_rate = pick(
        rng,
        if stepped {
            &[0.0, 0.3, 0.0, 0.9]
        } else {
            &[0.0, 0.3, 1.0, 0.9]
        },
    );
    let width = pick(rng, &COLUMN_STEP_WIDTHS);
    let mut prev: Option<r::Value> = None;
    let mut cells = Vec::with_capacity(n);
    for _ in 0..n {
        if rng.gen_bool(null_rate) {
            cells.push(None);
        } else {
            let v = gen_cell(rng, t, e, width, prev.as_ref());
            prev = Some(v.clone());
            cells.push(Some(v));
        }
    }
    Column {
        t,
        e,
        cells,
        empty_pages: rng.gen(),
    }
}

/// A time constant near the data: a time, one off it, an extreme.
fn gen_const(rng: &mut CaseRng, times: &[i64]) -> i64 {
    if times.is_empty() || rng.gen_range(0..8u32) == 0 {
        return pick(rng, &[i64::MIN, i64::MAX, 0]);
    }
    let t = times[below(rng, times.len())];
    match rng.gen_range(0..3u32) {
        0 => t.saturating_sub(1),
        1 => t.saturating_add(1),
        _ => t,
    }
}

/// A random time filter tree of at most `depth` levels of And / Or / Not.
pub fn gen_filter(rng: &mut CaseRng, times: &[i64], depth: u32) -> TimeFilter {
    use TimeFilter::*;
    let leaf = rng.gen_range(0..if depth == 0 { 10u32 } else { 13 });
    let mut c = || gen_const(rng, times);
    match leaf {
        0 => Gt(c()),
        1 => GtEq(c()),
        2 => Lt(c()),
        3 => LtEq(c()),
        4 => Eq(c()),
        5 => NotEq(c()),
        6 | 7 => {
            let (a, b) = (c(), c());
            Between(a.min(b), a.max(b))
        }
        8 => {
            let (a, b) = (c(), c());
            NotBetween(a.min(b), a.max(b))
        }
        9 => {
            let v: Vec<i64> = (0..rng.gen_range(0..5u32)).map(|_| gen_const(rng, times)).collect();
            if rng.gen() {
                In(v)
            } else {
                NotIn(v)
            }
        }
        10 => And(
            Box::new(gen_filter(rng, times, depth - 1)),
            Box::new(gen_filter(rng, times, depth - 1)),
        ),
        11 => Or(
            Box::new(gen_filter(rng, times, depth - 1)),
            Box::new(gen_filter(rng, times, depth - 1)),
        ),
        _ => Not(Box::new(gen_filter(rng, times, depth - 1))),
    }
}

fn gen_page_sizes(rng: &mut CaseRng, n: usize, max_page: u32) -> (Vec<usize>, usize) {
    let typical = rng.gen_range(1..=max_page) as usize;
    let mut page_sizes = Vec::new();
    let mut left = n;
    while left > 0 {
        let size = if rng.gen_range(0..4u32) == 0 {
            rng.gen_range(1..=max_page) as usize
        } else {
            typical
        }
        .min(left);
        page_sizes.push(size);
        left -= size;
    }
    (page_sizes, typical)
}

fn gen_field(rng: &mut CaseRng, cols: &[Option<Column>]) -> FieldFilter {
    let column = below(rng, cols.len());
    let op = match rng.gen_range(0..4u32) {
        0 => FieldOp::IsNull,
        1 => FieldOp::IsNotNull,
        _ => {
            let t = cols[column].as_ref().map_or(r::ColumnType::Int64, |c| c.t);
            FieldOp::Cmp(rng.gen_range(0..6u8), cell_of_reference(&gen_value(rng, t)))
        }
    };
    FieldFilter {
        column: column as u32,
        op,
    }
}

/// Every INT64 encoding, a time chunk's: TS_2DIFF (both writers'
/// default) twice as likely.
pub const TIME_ENCODINGS: [r::Encoding; 10] = {
    use r::Encoding::*;
    [
        Ts2Diff, Ts2Diff, Plain, Gorilla, Rle, Zigzag, Chimp, Sprintz, Rlbe, Regular,
    ]
};

/// A random scenario within `knobs`.
pub fn scenario(rng: &mut CaseRng, knobs: Knobs) -> Scenario {
    let max_rows = knobs.max_rows.max(1);
    let sizes = [0, 1, rng.gen_range(1..20u32).min(max_rows), rng.gen_range(1..=max_rows)];
    let n = pick(rng, &sizes).max(knobs.min_rows) as usize;
    let time_encoding = pick(rng, &TIME_ENCODINGS);
    let times = gen_times(rng, n, knobs.time_mode, time_encoding == r::Encoding::Regular);
    let (page_sizes, typical) = gen_page_sizes(rng, n, knobs.max_page.max(1));
    let cols: Vec<Option<Column>> = (0..rng.gen_range(1..=knobs.max_cols.max(1)))
        .map(|_| (rng.gen_range(0..6u32) != 0).then(|| gen_col(rng, n)))
        .collect();
    let depth = rng.gen_range(0..3u32);
    let time = (rng.gen_range(0..5u32) != 0).then(|| gen_filter(rng, &times, depth));
    let field = (rng.gen_range(0..3u32) == 0).then(|| gen_field(rng, &cols));
    let columns = (0..rng.gen_range(0..=cols.len() as u32 + 1))
        .map(|_| below(rng, cols.len()) as u32)
        .collect();
    let sizes = [
        1,
        typical.saturating_sub(1).max(1),
        typical,
        typical + 1,
        n + 5,
        rng.gen_range(1..20u64) as usize,
    ];
    let block_rows = pick(rng, &sizes) as u64;
    let offset = if rng.gen() { 0 } else { rng.gen_range(0..=n as u64 + 2) };
    let limit = if rng.gen() {
        None
    } else {
        Some(rng.gen_range(0..=n as u64 + 2))
    };
    Scenario {
        times,
        page_sizes,
        time_encoding,
        writer: if rng.gen() { r::Writer::Cpp } else { r::Writer::Java },
        cols,
        request: Request {
            time,
            field,
            offset,
            limit,
            columns,
            block_rows,
        },
    }
}

impl Scenario {
    /// The times of page `p` and where they start.
    pub fn page(&self, p: usize) -> (usize, &[i64]) {
        let at: usize = self.page_sizes[..p].iter().sum();
        (at, &self.times[at..at + self.page_sizes[p]])
    }

    /// The time chunk with page `lie`'s statistics replaced.
    pub fn time_chunk(&self, lie: Option<(usize, Stats)>) -> Vec<u8> {
        let mut out = Vec::new();
        for p in 0..self.page_sizes.len() {
            let (_, times) = self.page(p);
            let stats = match lie {
                Some((q, s)) if q == p => s,
                _ => Stats::of(times),
            };
            out.extend(time_page(&time_body(times, self.time_encoding, self.writer), stats));
        }
        out
    }

    /// Column `c`'s chunk (empty when the measurement is missing).
    pub fn value_chunk(&self, c: usize) -> Vec<u8> {
        (0..self.page_sizes.len()).flat_map(|p| self.value_page(c, p)).collect()
    }

    /// Page `p` of column `c` (nothing when the measurement is missing).
    pub fn value_page(&self, c: usize, p: usize) -> Vec<u8> {
        let Some(col) = &self.cols[c] else { return Vec::new() };
        let (at, times) = self.page(p);
        value_page_for(
            col.t,
            col.e,
            times,
            &col.cells[at..at + times.len()],
            col.empty_pages,
            self.writer,
        )
    }

    /// The family input: chunks written with truthful statistics.
    pub fn input(&self) -> AlignedInput {
        let values = (0..self.cols.len()).map(|c| self.value_chunk(c)).collect();
        self.input_with(self.time_chunk(None), values)
    }

    /// The family input with the given chunks' bytes.
    pub fn input_with(&self, time: Vec<u8>, values: Vec<Vec<u8>>) -> AlignedInput {
        AlignedInput {
            time_encoding: encoding_id(self.time_encoding),
            time,
            values: self
                .cols
                .iter()
                .zip(values)
                .map(|(c, data)| {
                    c.as_ref().map(|c| ValueChunk {
                        data_type: type_id(c.t),
                        encoding: encoding_id(c.e),
                        data,
                    })
                })
                .collect(),
            request: self.request.clone(),
            storage: None,
            writer: self.writer_id(),
        }
    }

    /// The family's id of the scenario's writer.
    pub fn writer_id(&self) -> u8 {
        match self.writer {
            r::Writer::Cpp => WRITER_CPP,
            r::Writer::Java => WRITER_JAVA,
        }
    }
}

/// Windows whose bounds fall on a page's first or last time, one before,
/// one after, between two pages, outside every page, inside one page.
fn page_edge_filter(rng: &mut CaseRng, s: &Scenario) -> Option<TimeFilter> {
    if s.page_sizes.is_empty() {
        return None;
    }
    let p = below(rng, s.page_sizes.len());
    let (_, times) = s.page(p);
    let (first, last) = (times[0], times[times.len() - 1]);
    let nudge = |rng: &mut CaseRng, t: i64| match rng.gen_range(0..3u32) {
        0 => t.saturating_sub(1),
        1 => t.saturating_add(1),
        _ => t,
    };
    let lo = nudge(rng, first);
    let hi = if rng.gen() {
        nudge(rng, last)
    } else {
        // Up to the edge of a later page.
        let q = p + below(rng, s.page_sizes.len() - p);
        let (_, later) = s.page(q);
        nudge(rng, later[later.len() - 1])
    };
    let all = &s.times;
    Some(match rng.gen_range(0..7u32) {
        0 => TimeFilter::Between(lo, hi),
        1 => TimeFilter::GtEq(lo),
        2 => TimeFilter::Gt(lo),
        3 => TimeFilter::LtEq(hi),
        4 => TimeFilter::Lt(hi),
        // Outside every page: before the first or after the last.
        5 => {
            if rng.gen() {
                TimeFilter::Lt(all[0])
            } else {
                TimeFilter::Gt(all[all.len() - 1])
            }
        }
        // Inside one page, between two of its times.
        _ => {
            let a = times[below(rng, times.len())];
            let b = times[below(rng, times.len())];
            TimeFilter::Between(a.min(b), a.max(b))
        }
    })
}

/// Filters whose matching rows inside one page have holes: `In` of a few
/// of its times apart, `NotIn` / `NotEq` of some, `NotBetween` of its
/// middle, alone or And-ed with a window around the page. A scanner that
/// bulk-copied the first-to-last range of such a page would return the
/// holes.
fn discrete_filter(rng: &mut CaseRng, s: &Scenario) -> Option<TimeFilter> {
    if s.page_sizes.is_empty() {
        return None;
    }
    // The largest page half the time: holes need rows.
    let p = if rng.gen() {
        below(rng, s.page_sizes.len())
    } else {
        (0..s.page_sizes.len()).max_by_key(|&p| s.page_sizes[p]).unwrap_or(0)
    };
    let (_, times) = s.page(p);
    let some: Vec<i64> = (0..rng.gen_range(1..=5u32))
        .map(|_| times[below(rng, times.len())])
        .collect();
    let mid = times[times.len() / 2];
    let filter = match rng.gen_range(0..6u32) {
        0..=2 => TimeFilter::In(some),
        3 => TimeFilter::NotIn(some),
        4 => TimeFilter::NotEq(mid),
        _ => TimeFilter::NotBetween(mid, mid.saturating_add(rng.gen_range(0..3i64))),
    };
    Some(if rng.gen() {
        filter
    } else {
        TimeFilter::And(
            Box::new(TimeFilter::Between(times[0], times[times.len() - 1])),
            Box::new(filter),
        )
    })
}

fn knobs_for(category: &str) -> Knobs {
    let d = Knobs::default();
    match category {
        "wide" => Knobs {
            max_cols: 16,
            max_rows: 60,
            ..d
        },
        "large-pages" => Knobs {
            max_cols: 3,
            max_rows: 30_000,
            max_page: 10_000,
            ..d
        },
        "discrete-windows" => Knobs { min_rows: 6, ..d },
        _ => d,
    }
}

/// One generator call of `category`.
pub fn generate(category: &str, _index: u64, rng: &mut CaseRng) -> Vec<Case<AlignedInput>> {
    let mut knobs = knobs_for(category);
    if category == "time-extremes" {
        knobs.time_mode = Some(rng.gen_range(0..2u32));
    }
    let mut s = scenario(rng, knobs);
    match category {
        "page-edges" => {
            s.request.time = page_edge_filter(rng, &s);
            if rng.gen() {
                s.request.field = None;
            }
        }
        "discrete-windows" => {
            s.request.time = discrete_filter(rng, &s);
            s.request.field = None;
            if rng.gen() {
                (s.request.offset, s.request.limit) = (0, None);
            }
        }
        "offset-limit" => {
            let n = s.times.len() as u64;
            s.request.offset = pick(rng, &[0, 1, n.saturating_sub(1), n, n + 1, u64::MAX]);
            s.request.limit = pick(rng, &[Some(0), Some(1), Some(n), Some(n + 1), Some(u64::MAX), None]);
        }
        "near-word-size" => {
            // Past a 32-bit word by no more than the rows: a count kept in
            // a 32-bit `usize` reads as a few rows where it means more
            // rows than the group has.
            let n = s.times.len() as u64;
            let past = |rng: &mut CaseRng| (1u64 << 32) + rng.gen_range(0..=n + 1);
            match rng.gen_range(0..4) {
                0 => s.request.offset = past(rng),
                1 => s.request.limit = Some(past(rng)),
                2 => s.request.block_rows = past(rng).max((1 << 32) + 1),
                _ => {
                    s.request.offset = rng.gen_range(0..=n);
                    s.request.limit = Some(past(rng));
                    s.request.block_rows = past(rng).max((1 << 32) + 1);
                }
            }
        }
        "blocks" => {
            let n = s.times.len() as u64;
            let page = s.page_sizes.first().copied().unwrap_or(1) as u64;
            s.request.block_rows = pick(
                rng,
                &[1, page.saturating_sub(1).max(1), page, page + 1, n, n + 1, 2 * n + 3],
            );
        }
        _ => {}
    }
    if category == "stored" {
        return vec![Case::one(stored(rng, &s))];
    }
    if category == "value-statistics" {
        value_statistics_scenario(rng, &mut s);
        return vec![Case::one(s.input())];
    }
    if category == "malformed-lying-value-statistics" {
        return vec![lying_value_statistics(rng, &mut s)];
    }
    if let Some(rest) = category.strip_prefix("malformed-") {
        return damaged(rest, rng, &s);
    }
    vec![Case::one(s.input())]
}

/// Is `t` a type whose value pages carry min / max the kernel may prune by?
fn numeric(t: r::ColumnType) -> bool {
    use r::ColumnType::*;
    matches!(t, Int32 | Date | Int64 | Timestamp | Float | Double)
}

/// `a` against `b`, two values of one numeric type (None: NaN).
fn order(a: &r::Value, b: &r::Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (r::Value::I32(x), r::Value::I32(y)) => Some(x.cmp(y)),
        (r::Value::I64(x), r::Value::I64(y)) => Some(x.cmp(y)),
        (r::Value::F32(x), r::Value::F32(y)) => f32::from_bits(*x).partial_cmp(&f32::from_bits(*y)),
        (r::Value::F64(x), r::Value::F64(y)) => f64::from_bits(*x).partial_cmp(&f64::from_bits(*y)),
        _ => None,
    }
}

/// `v` one step up (`by` > 0), down (< 0) or as it is: integers by `by`
/// (wrapping), floats by `|by|` representable values.
fn nudge(v: &r::Value, by: i64) -> r::Value {
    let steps = by.unsigned_abs();
    match v {
        r::Value::I32(x) => r::Value::I32(x.wrapping_add(by as i32)),
        r::Value::I64(x) => r::Value::I64(x.wrapping_add(by)),
        r::Value::F32(x) => {
            let mut f = f32::from_bits(*x);
            for _ in 0..steps {
                f = if by > 0 { f.next_up() } else { f.next_down() };
            }
            r::Value::F32(f.to_bits())
        }
        r::Value::F64(x) => {
            let mut f = f64::from_bits(*x);
            for _ in 0..steps {
                f = if by > 0 { f.next_up() } else { f.next_down() };
            }
            r::Value::F64(f.to_bits())
        }
        other => other.clone(),
    }
}

/// The min and max of a page's non-NaN values (None: none).
fn page_bounds(cells: &[Option<r::Value>]) -> Option<(r::Value, r::Value)> {
    let mut values = cells.iter().flatten().filter(|v| order(v, v).is_some());
    let first = values.next()?.clone();
    let (mut lo, mut hi) = (first.clone(), first);
    for v in values {
        if order(v, &lo) == Some(std::cmp::Ordering::Less) {
            lo = v.clone();
        }
        if order(v, &hi) == Some(std::cmp::Ordering::Greater) {
            hi = v.clone();
        }
    }
    Some((lo, hi))
}

/// The `value-statistics` scenario: a FIELD filter on a numeric column
/// (else IS NULL / IS NOT NULL on any) whose constant is a page's min or
/// max, one step inside or outside it, so pruning by the value statistics
/// both triggers and does not; pages of only nulls; NaN in float columns
/// (first in a page, or later) of the encodings that keep it; either
/// writer (the Java writer's float bounds prune, the C++ writer's not).
fn value_statistics_scenario(rng: &mut CaseRng, s: &mut Scenario) {
    if s.page_sizes.is_empty() || s.cols.is_empty() {
        return;
    }
    let numeric_cols: Vec<usize> = (0..s.cols.len())
        .filter(|&c| s.cols[c].as_ref().is_some_and(|col| numeric(col.t)))
        .collect();
    let null_ops = |rng: &mut CaseRng| if rng.gen() { FieldOp::IsNull } else { FieldOp::IsNotNull };
    if numeric_cols.is_empty() {
        let column = below(rng, s.cols.len()) as u32;
        s.request.field = Some(FieldFilter {
            column,
            op: null_ops(rng),
        });
        return;
    }
    let c = numeric_cols[below(rng, numeric_cols.len())];
    let pages = s.page_sizes.len();
    let starts: Vec<usize> = (0..pages).map(|p| s.page(p).0).collect();
    let sizes = s.page_sizes.clone();
    let col = s.cols[c].as_mut().expect("a present column");
    // A page of only nulls, or of no null.
    if rng.gen_bool(0.3) {
        let p = below(rng, pages);
        let filled = col.cells.iter().flatten().next().cloned();
        for cell in &mut col.cells[starts[p]..starts[p] + sizes[p]] {
            match (rng.gen_bool(0.5), &filled) {
                (true, _) | (_, None) => *cell = None,
                (false, Some(v)) => {
                    if cell.is_none() {
                        *cell = Some(v.clone())
                    }
                }
            }
        }
    }
    // NaN where the encoding keeps it, first in a page or later.
    let keeps_nan = matches!(col.e, r::Encoding::Plain | r::Encoding::Gorilla | r::Encoding::Chimp);
    if keeps_nan && matches!(col.t, r::ColumnType::Float | r::ColumnType::Double) && rng.gen_bool(0.5) {
        let p = below(rng, pages);
        let present: Vec<usize> = (starts[p]..starts[p] + sizes[p])
            .filter(|&i| col.cells[i].is_some())
            .collect();
        if !present.is_empty() {
            let i = if rng.gen() {
                present[0]
            } else {
                present[below(rng, present.len())]
            };
            col.cells[i] = Some(match col.t {
                r::ColumnType::Float => r::Value::F32(f32::NAN.to_bits()),
                _ => r::Value::F64(f64::NAN.to_bits()),
            });
        }
    }
    if rng.gen_bool(0.5) {
        s.writer = r::Writer::Java;
    }
    // A bound of a page with values, one step either side or on it.
    let col = s.cols[c].as_ref().expect("a present column");
    let with_values: Vec<usize> = (0..pages)
        .filter(|&p| page_bounds(&col.cells[starts[p]..starts[p] + sizes[p]]).is_some())
        .collect();
    let op = if with_values.is_empty() || rng.gen_bool(0.2) {
        null_ops(rng)
    } else {
        let p = with_values[below(rng, with_values.len())];
        let (lo, hi) = page_bounds(&col.cells[starts[p]..starts[p] + sizes[p]]).expect("values");
        // Operators that look past the bound chosen (ops: Lt, LtEq, Gt,
        // GtEq, Eq, NotEq), now and then any.
        let (bound, ops) = if rng.gen() {
            (lo, [0u8, 1, 4])
        } else {
            (hi, [2u8, 3, 4])
        };
        let op = if rng.gen_bool(0.8) {
            pick(rng, &ops)
        } else {
            rng.gen_range(0..6u8)
        };
        let constant = nudge(&bound, pick(rng, &[-1i64, 0, 0, 1]));
        FieldOp::Cmp(op, cell_of_reference(&constant))
    };
    s.request.field = Some(FieldFilter { column: c as u32, op });
    // Mostly the FIELD filter alone, so its pages' rows reach the output.
    if rng.gen_bool(0.7) {
        (s.request.time, s.request.offset, s.request.limit) = (None, 0, None);
    }
}

/// The `malformed-lying-value-statistics` damage: one value page of a
/// column whose header lies by a little: its count (one to three off), or
/// for a numeric type its min or max (one step, of the value or of the
/// float); the FIELD filter on that column half the time, so a plan that
/// prunes by the lie meets it (and min / max, checked only in the FIELD
/// filter's column, are a lie both scanners pass over the other half).
fn lying_value_statistics(rng: &mut CaseRng, s: &mut Scenario) -> Case<AlignedInput> {
    let present: Vec<usize> = (0..s.cols.len()).filter(|&c| s.cols[c].is_some()).collect();
    if present.is_empty() || s.page_sizes.is_empty() {
        return Case::one(s.input());
    }
    let c = present[below(rng, present.len())];
    let victim = below(rng, s.page_sizes.len());
    let col = s.cols[c].as_ref().expect("a present column");
    let (at, times) = s.page(victim);
    let cells = &col.cells[at..at + times.len()];
    let values: Vec<r::Value> = cells.iter().flatten().cloned().collect();
    let mut stats = Stats {
        count: values.len() as u32,
        ..Stats::of(times)
    };
    // The statistics of the values the page reads back as, then the lie.
    let body = value_body(col.t, col.e, cells, s.writer);
    let bounds = page_bounds(cells);
    let mut typed = typed_stats(col.t, &values);
    let by = pick(rng, &[-3i64, -2, -1, 1, 2, 3]);
    match &bounds {
        Some((lo, hi)) if numeric(col.t) && rng.gen_bool(0.7) => {
            // min or max one step off: the typed part's first two fields.
            let (min, max) = if rng.gen() {
                (nudge(lo, by.signum()), hi.clone())
            } else {
                (lo.clone(), nudge(hi, by.signum()))
            };
            let wide = matches!(
                col.t,
                r::ColumnType::Int64 | r::ColumnType::Timestamp | r::ColumnType::Double
            );
            let w = if wide { 8 } else { 4 };
            typed[..w].copy_from_slice(&typed_stats(col.t, &[min])[..w]);
            typed[w..2 * w].copy_from_slice(&typed_stats(col.t, &[max])[..w]);
        }
        _ => stats.count = (stats.count as i64 + by).clamp(0, u32::MAX as i64) as u32,
    }
    let mut chunk = Vec::new();
    for p in 0..s.page_sizes.len() {
        if p == victim {
            chunk.extend(value_page_typed(&body, stats, &typed));
        } else {
            chunk.extend(s.value_page(c, p));
        }
    }
    if rng.gen() {
        let constant = bounds.map_or(gen_value(rng, col.t), |(lo, hi)| if rng.gen() { lo } else { hi });
        let op = if numeric(col.t) && rng.gen() {
            FieldOp::Cmp(rng.gen_range(0..6u8), cell_of_reference(&constant))
        } else if rng.gen() {
            FieldOp::IsNull
        } else {
            FieldOp::IsNotNull
        };
        s.request.field = Some(FieldFilter { column: c as u32, op });
    }
    let values = (0..s.cols.len())
        .map(|k| if k == c { chunk.clone() } else { s.value_chunk(k) })
        .collect();
    Case::one(s.input_with(s.time_chunk(None), values))
}

/// Which chunk a damage lands in: `None` the time chunk, else a present
/// value column (time chunk when none is present).
fn pick_chunk(rng: &mut CaseRng, s: &Scenario) -> Option<usize> {
    let present: Vec<usize> = (0..s.cols.len()).filter(|&c| s.cols[c].is_some()).collect();
    if present.is_empty() || rng.gen_range(0..3u32) == 0 {
        None
    } else {
        Some(present[below(rng, present.len())])
    }
}

/// TsFile's ids of the compressions the stored category writes.
const SNAPPY: u8 = 1;
const LZ4: u8 = 7;

/// `body` as one LZ4 block of literals alone: a valid block (what an LZ4
/// writer emits for bytes it finds no match in) and the same bytes on every
/// target. `lz4_flex`'s compressor hashes native-endian words, so its
/// blocks differ on big-endian targets, and with them the positions inside
/// a generated input, which would make the campaign's digests differ.
/// Matches in real LZ4 pages are read by `crossdec_tsfile`'s tests on the
/// official writer's files.
fn lz4_literal_block(body: &[u8]) -> Vec<u8> {
    let n = body.len();
    let mut block = Vec::with_capacity(n + n / 255 + 2);
    block.push((n.min(15) as u8) << 4);
    if n >= 15 {
        let mut rest = n - 15;
        while rest >= 255 {
            block.push(255);
            rest -= 255;
        }
        block.push(rest as u8);
    }
    block.extend_from_slice(body);
    block
}

/// The scenario's group stored as a real file may store it: every chunk
/// uncompressed, SNAPPY or LZ4 (one compression per group, as the writers
/// do per table), and as chunks of one page (headers without statistics)
/// always when there is at most one page, else now and then.
fn stored(rng: &mut CaseRng, s: &Scenario) -> AlignedInput {
    let compression = pick(rng, &[0, SNAPPY, LZ4]);
    let statistics = s.page_sizes.len() > 1 && rng.gen_range(0..4u32) != 0;
    // Without statistics, GORILLA and CHIMP times run to the terminator
    // (i64::MIN): a first time equal to it would end the page at once,
    // which no writer can store readably. Such a group keeps TS_2DIFF times.
    let counted = matches!(s.time_encoding, r::Encoding::Gorilla | r::Encoding::Chimp);
    let recoded;
    let s = if !statistics && counted && s.times.first() == Some(&i64::MIN) {
        recoded = Scenario {
            time_encoding: r::Encoding::Ts2Diff,
            ..s.clone()
        };
        &recoded
    } else {
        s
    };
    let compress = |body: &[u8]| match compression {
        SNAPPY => snap::raw::Encoder::new()
            .compress_vec(body)
            .expect("a page body Snappy can hold"),
        LZ4 => lz4_literal_block(body),
        _ => body.to_vec(),
    };
    let restore = |data: &[u8], t| restore_chunk(data, t, &compress, statistics).expect("the builders' own chunk");
    let time = restore(&s.time_chunk(None), None);
    let values = (0..s.cols.len())
        .map(|c| match &s.cols[c] {
            Some(col) => restore(&s.value_chunk(c), Some(col.t)),
            None => Vec::new(),
        })
        .collect();
    let mut input = s.input_with(time, values);
    input.storage = Some(vec![(compression, statistics); 1 + s.cols.len()]);
    input
}

fn damaged(kind: &str, rng: &mut CaseRng, s: &Scenario) -> Vec<Case<AlignedInput>> {
    if kind == "stored" {
        // A few bits flipped in one stored chunk: its headers, or bytes
        // the codec must refuse (or decode to a wrong-sized body).
        let mut input = stored(rng, s);
        let chunk = pick_chunk(rng, s);
        let bytes = match chunk {
            None => &mut input.time,
            Some(c) => &mut input.values[c].as_mut().expect("a present column").data,
        };
        for _ in 0..rng.gen_range(1..=3u32) {
            if !bytes.is_empty() {
                let at = below(rng, bytes.len());
                bytes[at] ^= 1 << rng.gen_range(0..8u32);
            }
        }
        return vec![Case::one(input)];
    }
    let time = s.time_chunk(None);
    let values: Vec<Vec<u8>> = (0..s.cols.len()).map(|c| s.value_chunk(c)).collect();
    let with = |chunk: Option<usize>, bytes: Vec<u8>| {
        let (mut t, mut v) = (time.clone(), values.clone());
        match chunk {
            None => t = bytes,
            Some(c) => v[c] = bytes,
        }
        Case::one(s.input_with(t, v))
    };
    let chunk = pick_chunk(rng, s);
    let bytes = match chunk {
        None => &time,
        Some(c) => &values[c],
    };
    match kind {
        // A few cuts: every one for a short chunk, else 8 at random.
        "truncation" => {
            if bytes.len() <= 24 {
                (0..bytes.len())
                    .map(|keep| with(chunk, bytes[..keep].to_vec()))
                    .collect()
            } else {
                (0..8)
                    .map(|_| with(chunk, bytes[..below(rng, bytes.len())].to_vec()))
                    .collect()
            }
        }
        "corrupt" => {
            if bytes.is_empty() {
                return vec![Case::one(s.input())];
            }
            let mut b = bytes.clone();
            for _ in 0..rng.gen_range(1..=3u32) {
                let at = below(rng, b.len());
                b[at] ^= 1 << rng.gen_range(0..8u32);
            }
            vec![with(chunk, b)]
        }
        // A value page of one row more or fewer than its time page.
        "row-counts" => match (chunk, s.page_sizes.len()) {
            (Some(c), pages) if pages > 0 => {
                let victim = below(rng, pages);
                vec![with(
                    chunk,
                    damaged_page(s, c, victim, |col, cells| {
                        let mut cells = cells.to_vec();
                        if rng.gen() || cells.len() == 1 {
                            cells.push(Some(gen_value(rng, col.t)));
                        } else {
                            cells.pop();
                        }
                        value_body(col.t, col.e, &cells, s.writer)
                    }),
                )]
            }
            _ => vec![Case::one(s.input())],
        },
        // A value page whose bitmap stops short: the body is cut inside it.
        "bitmap" => match (chunk, s.page_sizes.len()) {
            (Some(c), pages) if pages > 0 => {
                let victim = below(rng, pages);
                vec![with(
                    chunk,
                    damaged_page(s, c, victim, |col, cells| {
                        let mut body = value_body(col.t, col.e, cells, s.writer);
                        body.truncate(4 + below(rng, cells.len().div_ceil(8)));
                        body
                    }),
                )]
            }
            _ => vec![Case::one(s.input())],
        },
        // A value chunk with a page fewer, or an extra empty page.
        "page-count" => match chunk {
            Some(c) if !s.page_sizes.is_empty() => {
                let pages = s.page_sizes.len();
                let drop = rng.gen_bool(0.5).then(|| below(rng, pages));
                let mut out: Vec<u8> = (0..pages)
                    .filter(|&p| Some(p) != drop)
                    .flat_map(|p| s.value_page(c, p))
                    .collect();
                if drop.is_none() {
                    out.extend(empty_value_page());
                }
                vec![with(chunk, out)]
            }
            _ => vec![Case::one(s.input())],
        },
        // A time page header that lies about its count, start or end.
        _ => {
            if s.page_sizes.is_empty() {
                return vec![Case::one(s.input())];
            }
            let p = below(rng, s.page_sizes.len());
            let (_, times) = s.page(p);
            let mut stats = Stats::of(times);
            let by = pick(rng, &[-3i64, -2, -1, 1, 2, 3, i64::MIN, i64::MAX]);
            match rng.gen_range(0..3u32) {
                0 => stats.start = stats.start.wrapping_add(by),
                1 => stats.end = stats.end.wrapping_add(by),
                _ => stats.count = (stats.count as i64).wrapping_add(by).clamp(0, u32::MAX as i64) as u32,
            }
            vec![Case::one(s.input_with(s.time_chunk(Some((p, stats))), values.clone()))]
        }
    }
}

/// Column `c`'s chunk with every page written whole (truthful statistics,
/// empty pages never used) except page `victim`, whose body is
/// `damage(column, its cells)` (its statistics those of its cells).
fn damaged_page(
    s: &Scenario,
    c: usize,
    victim: usize,
    damage: impl FnOnce(&Column, &[Option<r::Value>]) -> Vec<u8>,
) -> Vec<u8> {
    let col = s.cols[c].as_ref().expect("a present column");
    let mut damage = Some(damage);
    let mut out = Vec::new();
    for p in 0..s.page_sizes.len() {
        let (at, times) = s.page(p);
        let cells = &col.cells[at..at + times.len()];
        let Some(damage) = damage.take_if(|_| p == victim) else {
            out.extend(value_page_for(col.t, col.e, times, cells, false, s.writer));
            continue;
        };
        let present: Vec<r::Value> = cells.iter().flatten().cloned().collect();
        let stats = Stats {
            count: present.len() as u32,
            ..Stats::of(times)
        };
        out.extend(value_page_typed(
            &damage(col, cells),
            stats,
            &typed_stats(col.t, &present),
        ));
    }
    out
}

/// Smaller variants of a failing input, simplest first: without the
/// filters, the offset, the limit; a smaller time filter (an `And` / `Or` /
/// `Not` replaced by a part of it, spans of an `In` list deleted); with
/// spans of the requested columns deleted ([`bytes::spans`]); a value chunk
/// left out of the group; then, for a group written as the writers write
/// it, the group written again from what the reference reads of it, with
/// a page deleted or spans of rows deleted (pages, statistics and bitmaps
/// follow: [`Scenario::input`]); the offset and the limit lowered toward
/// zero ([`bytes::lower`]); blocks twice as long (fewer of them); the time
/// chunk or a value chunk halved. Rewritten groups are kept only when their
/// canonical bytes are shorter, so minimizing ends.
pub fn shrink(input: &AlignedInput) -> Vec<AlignedInput> {
    let size = input.to_canonical().len();
    let rewritten: Vec<AlignedInput> = scenario_of(input)
        .map(|s| smaller_scenarios(&s).iter().map(Scenario::input).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|v: &AlignedInput| v.to_canonical().len() < size)
        .collect();
    let mut out = Vec::new();
    let mut variant = |f: &dyn Fn(&mut AlignedInput)| {
        let mut v = input.clone();
        f(&mut v);
        if v != *input {
            out.push(v);
        }
    };
    variant(&|v| v.request.time = None);
    variant(&|v| v.request.field = None);
    variant(&|v| v.request.offset = 0);
    variant(&|v| v.request.limit = None);
    if let Some(time) = &input.request.time {
        for smaller in smaller_filters(time) {
            variant(&|v| v.request.time = Some(smaller.clone()));
        }
    }
    for columns in bytes::spans(&input.request.columns) {
        variant(&|v| v.request.columns = columns.clone());
    }
    for c in 0..input.values.len() {
        variant(&|v| v.values[c] = None);
    }
    for smaller in &rewritten {
        variant(&|v| *v = smaller.clone());
    }
    for offset in bytes::lower(input.request.offset).into_iter().skip(1) {
        variant(&|v| v.request.offset = offset);
    }
    if let Some(limit) = input.request.limit {
        for limit in bytes::lower(limit) {
            variant(&|v| v.request.limit = Some(limit));
        }
    }
    variant(&|v| v.request.block_rows = v.request.block_rows.saturating_mul(2).min(1 << 20));
    variant(&|v| v.time.truncate(v.time.len() / 2));
    for c in 0..input.values.len() {
        variant(&|v| {
            if let Some(chunk) = &mut v.values[c] {
                chunk.data.truncate(chunk.data.len() / 2);
            }
        });
    }
    out
}

/// A time filter's smaller forms: each part of an `And` / `Or`, the
/// operand of a `Not`, an `In` / `NotIn` list with spans deleted, and the
/// same applied inside the parts.
fn smaller_filters(f: &TimeFilter) -> Vec<TimeFilter> {
    use TimeFilter::*;
    let boxed = |f: &TimeFilter| Box::new(f.clone());
    match f {
        And(a, b) | Or(a, b) => {
            let mut out = vec![(**a).clone(), (**b).clone()];
            let rebuild = |x: TimeFilter, y: TimeFilter| match f {
                And(..) => And(Box::new(x), Box::new(y)),
                _ => Or(Box::new(x), Box::new(y)),
            };
            out.extend(smaller_filters(a).into_iter().map(|x| rebuild(x, (**b).clone())));
            out.extend(smaller_filters(b).into_iter().map(|y| rebuild((**a).clone(), y)));
            out
        }
        Not(a) => {
            let mut out = vec![(**a).clone()];
            out.extend(smaller_filters(a).into_iter().map(|x| Not(boxed(&x))));
            out
        }
        In(v) => bytes::spans(v).into_iter().map(In).collect(),
        NotIn(v) => bytes::spans(v).into_iter().map(NotIn).collect(),
        _ => Vec::new(),
    }
}

/// The scenario an input was written from, as far as the reference reads
/// it: the times page by page and every present column's cells. `None`
/// for a stored (compressed, or headers without statistics) group and for
/// one the reference does not read whole; such inputs shrink by their
/// bytes only.
fn scenario_of(input: &AlignedInput) -> Option<Scenario> {
    if input.storage.is_some() {
        return None;
    }
    let group = super::reference_group(input)?;
    let writer = if input.writer == WRITER_JAVA {
        r::Writer::Java
    } else {
        r::Writer::Cpp
    };
    let present: Vec<usize> = (0..group.values.len()).filter(|&c| group.values[c].is_some()).collect();
    let everything = r::Request {
        filter: r::filter::Filter::default(),
        offset: 0,
        limit: None,
        columns: present.clone(),
        block_rows: usize::MAX,
        writer,
    };
    let blocks = r::scan_with(&group, &everything, &super::Codecs).ok()?;
    let times: Vec<i64> = blocks.iter().flat_map(|b| b.times.iter().copied()).collect();
    let pages = r::page::directory(&input.time, r::ChunkId::Time, None, false, true).ok()?;
    let mut page_sizes = Vec::with_capacity(pages.len());
    for page in &pages {
        let body = input.time.get(page.body_at..page.body_at + page.body_len)?;
        let count = page.has_statistics.then_some(page.count);
        let decoded =
            r::page::decode_times(body, group.time.encoding, writer, count, super::convert::MAX_PAGE_ROWS).ok()?;
        page_sizes.push(decoded.len());
    }
    if page_sizes.iter().sum::<usize>() != times.len() {
        return None;
    }
    let mut cols: Vec<Option<Column>> = vec![None; group.values.len()];
    for (k, &c) in present.iter().enumerate() {
        let chunk = group.values[c].as_ref()?;
        let pages = r::page::directory(chunk.data, r::ChunkId::Value(c), Some(chunk.data_type), false, true).ok()?;
        cols[c] = Some(Column {
            t: chunk.data_type,
            e: chunk.encoding,
            cells: blocks.iter().flat_map(|b| b.columns[k].iter().cloned()).collect(),
            empty_pages: pages.iter().any(|p| p.empty),
        });
    }
    Some(Scenario {
        times,
        page_sizes,
        time_encoding: group.time.encoding,
        writer,
        cols,
        request: input.request.clone(),
    })
}

/// A scenario with a page deleted, then with spans of its rows deleted
/// (a page left without rows goes too).
fn smaller_scenarios(s: &Scenario) -> Vec<Scenario> {
    let keep = |rows: &[(usize, usize)]| {
        let mut page_sizes = vec![0; s.page_sizes.len()];
        for &(p, _) in rows {
            page_sizes[p] += 1;
        }
        Scenario {
            times: rows.iter().map(|&(_, i)| s.times[i]).collect(),
            page_sizes: page_sizes.into_iter().filter(|&n| n > 0).collect(),
            cols: s
                .cols
                .iter()
                .map(|c| {
                    c.as_ref().map(|c| Column {
                        cells: rows.iter().map(|&(_, i)| c.cells[i].clone()).collect(),
                        ..c.clone()
                    })
                })
                .collect(),
            ..s.clone()
        }
    };
    let rows: Vec<(usize, usize)> = s
        .page_sizes
        .iter()
        .enumerate()
        .flat_map(|(p, &n)| std::iter::repeat_n(p, n))
        .zip(0..)
        .collect();
    let mut out = Vec::new();
    if s.page_sizes.len() > 1 {
        for p in 0..s.page_sizes.len() {
            let kept: Vec<_> = rows.iter().copied().filter(|&(q, _)| q != p).collect();
            out.push(keep(&kept));
        }
    }
    out.extend(bytes::spans(&rows).iter().map(|kept| keep(kept)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::case_rng;

    /// Every column of `s`, no filter, offset or limit.
    fn every_column(s: &Scenario, block_rows: u64) -> Request {
        Request {
            time: None,
            field: None,
            offset: 0,
            limit: None,
            columns: (0..s.cols.len() as u32).collect(),
            block_rows,
        }
    }

    /// Greedy minimization as the engine's minimizer does it.
    fn minimize(start: AlignedInput, fails: impl Fn(&AlignedInput) -> bool) -> AlignedInput {
        let mut current = start;
        'outer: loop {
            for candidate in shrink(&current) {
                if fails(&candidate) {
                    current = candidate;
                    continue 'outer;
                }
            }
            return current;
        }
    }

    /// The request shrinks by spans of columns and by values lowered:
    /// one wrong column of five is found without popping the others off
    /// the end first, and a limit goes to the smallest that still fails.
    #[test]
    fn requests_shrink_by_spans_and_lowered_values() {
        let mut s = scenario(&mut case_rng(1, "tsfile-aligned", "groups", 0), Knobs::default());
        s.request = Request {
            time: None,
            field: None,
            offset: 40,
            limit: Some(1000),
            columns: vec![0, 1, 2, 3, 4],
            block_rows: 1 << 20,
        };
        // Wrong when column 2 is read with a limit of 300 or more.
        let current = minimize(s.input(), |i| {
            i.request.columns.contains(&2) && i.request.limit.is_some_and(|l| l >= 300)
        });
        assert_eq!(current.request.columns, [2]);
        assert_eq!(current.request.limit, Some(300));
        assert_eq!(current.request.offset, 0);
        assert!(current.values.iter().all(Option::is_none));
    }

    /// A group written as the writers write it shrinks by pages and rows:
    /// a failure that needs one row of a middle page ends as a group of
    /// that one row, its columns' pages written again to match.
    #[test]
    fn groups_shrink_to_the_one_row_a_failure_needs() {
        let mut s = scenario(
            &mut case_rng(3, "tsfile-aligned", "groups", 0),
            Knobs {
                min_rows: 30,
                ..Knobs::default()
            },
        );
        s.request = every_column(&s, 1 << 10);
        assert!(s.page_sizes.len() >= 3, "pages: {:?}", s.page_sizes);
        let wanted = s.times[s.page_sizes[0] + 1];
        let holds = |i: &AlignedInput| {
            super::super::reference_scan(i).is_ok_and(|out| out.blocks.iter().any(|b| b.times.contains(&wanted)))
        };
        assert!(holds(&s.input()));
        let current = minimize(s.input(), holds);
        let out = super::super::reference_scan(&current).expect("still read");
        let rows: usize = out.blocks.iter().map(|b| b.times.len()).sum();
        assert_eq!(rows, 1, "{current:?}");
        let start = s.input().to_canonical().len();
        assert!(
            current.to_canonical().len() * 4 < start,
            "{} of {start} bytes",
            current.to_canonical().len()
        );
    }

    /// Literal-only LZ4 blocks at the edges of the length's extra bytes
    /// (15 in the token, then 255 per byte) read back as their body.
    #[test]
    fn lz4_literal_blocks_decompress_to_their_body() {
        for n in [0, 1, 14, 15, 16, 269, 270, 271, 524, 525, 1000] {
            let body: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
            let block = super::lz4_literal_block(&body);
            let decompressed = lz4_flex::block::decompress(&block, n).expect("a valid LZ4 block");
            assert_eq!(decompressed, body, "{n} bytes");
        }
    }

    /// Every pair both scanners read is drawn, and clean groups holding it
    /// (every column requested, no filter) scan without error with cells of
    /// it present: the generators exercise the pairs' decoders, not only
    /// their refusals.
    #[test]
    fn every_supported_pair_is_drawn_and_read() {
        use r::ColumnType::*;
        let mut read = std::collections::HashSet::new();
        let mut times_read = std::collections::HashSet::new();
        for index in 0..1000 {
            let mut s = scenario(&mut case_rng(1, "tsfile-aligned", "groups", index), Knobs::default());
            s.request = every_column(&s, 1000);
            let scanned = super::super::reference_scan(&s.input());
            if scanned.as_ref().is_ok_and(|out| !out.blocks.is_empty()) {
                times_read.insert((s.time_encoding, s.writer));
            }
            if scanned.is_ok() {
                for col in s.cols.iter().flatten() {
                    if col.cells.iter().any(Option::is_some) {
                        read.insert((col.t, col.e));
                    }
                }
            }
        }
        use r::Encoding::*;
        let types = [
            Boolean, Int32, Int64, Float, Double, Timestamp, Date, Text, String, Blob,
        ];
        let encodings = [
            Plain, Ts2Diff, Gorilla, Rle, Zigzag, Chimp, Dictionary, Sprintz, Rlbe, Camel, Regular,
        ];
        for t in types {
            for e in encodings.into_iter().filter(|&e| r::page::supported(t, e)) {
                assert!(read.contains(&(t, e)), "{t:?} {e:?} never drawn and read");
            }
        }
        for e in TIME_ENCODINGS {
            for writer in [r::Writer::Cpp, r::Writer::Java] {
                assert!(
                    times_read.contains(&(e, writer)),
                    "{e:?} times of {writer:?} never read"
                );
            }
        }
    }
}
