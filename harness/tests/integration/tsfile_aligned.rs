//! The aligned chunk scanners held to each other: random chunk groups
//! (1-4 value columns of every type and encoding the scanners read, mixed
//! page sizes, no / some / all nulls, empty pages, a missing measurement,
//! single-row pages, times at i64::MIN / MAX), random filters (nested time
//! trees whose constants sit on, next to and between page edges; a FIELD
//! filter), offsets, limits and block sizes (1, a page size +-1, more than
//! the chunk). The kernel, with and without its optimizations, must give the
//! reference's outcome (the one allowed difference is in [`agree`]), and its
//! scan statistics must follow the plan rules ([`plan_rules`]).

use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;
use proptest::prelude::*;
use r::write::{time_body, time_page, value_page_for, Stats};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One value column of a case: type, encoding, cells, and whether an
/// all-null page is written as the empty page.
#[derive(Debug, Clone)]
struct Col {
    t: r::ColumnType,
    e: r::Encoding,
    cells: Vec<Option<r::Value>>,
    empty_pages: bool,
}

#[derive(Debug, Clone)]
struct Case {
    times: Vec<i64>,
    page_sizes: Vec<usize>,
    time_encoding: r::Encoding,
    cols: Vec<Option<Col>>,
    request: r::Request,
}

/// The chunks' bytes: time chunk, then one per column (empty when missing).
fn build(case: &Case) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut t = Vec::new();
    let mut values = vec![Vec::new(); case.cols.len()];
    let mut at = 0;
    for &n in &case.page_sizes {
        let times = &case.times[at..at + n];
        t.extend(time_page(&time_body(times, case.time_encoding), Stats::of(times)));
        for (col, out) in case.cols.iter().zip(&mut values) {
            if let Some(c) = col {
                out.extend(value_page_for(c.t, c.e, times, &c.cells[at..at + n], c.empty_pages));
            }
        }
        at += n;
    }
    (t, values)
}

fn r_group<'a>(case: &Case, t: &'a [u8], values: &'a [Vec<u8>]) -> r::Group<'a> {
    r::Group {
        time: r::Chunk {
            data_type: r::ColumnType::Int64,
            encoding: case.time_encoding,
            data: t,
        },
        values: case
            .cols
            .iter()
            .zip(values)
            .map(|(c, d)| {
                c.as_ref().map(|c| r::Chunk {
                    data_type: c.t,
                    encoding: c.e,
                    data: d,
                })
            })
            .collect(),
    }
}

// --- reference types to kernel types (same shapes) ---

fn k_type(t: r::ColumnType) -> k::ColumnType {
    use r::ColumnType::*;
    match t {
        Boolean => k::ColumnType::Boolean,
        Int32 => k::ColumnType::Int32,
        Int64 => k::ColumnType::Int64,
        Float => k::ColumnType::Float,
        Double => k::ColumnType::Double,
        Timestamp => k::ColumnType::Timestamp,
        Date => k::ColumnType::Date,
        Text => k::ColumnType::Text,
        String => k::ColumnType::String,
        Blob => k::ColumnType::Blob,
    }
}

fn k_encoding(e: r::Encoding) -> k::Encoding {
    match e {
        r::Encoding::Plain => k::Encoding::Plain,
        r::Encoding::Ts2Diff => k::Encoding::Ts2Diff,
        r::Encoding::Gorilla => k::Encoding::Gorilla,
        r::Encoding::Rle => k::Encoding::Rle,
    }
}

fn k_chunk(c: r::Chunk<'_>) -> k::Chunk<'_> {
    k::Chunk {
        data_type: k_type(c.data_type),
        encoding: k_encoding(c.encoding),
        data: c.data,
    }
}

fn k_group<'a>(g: &r::Group<'a>) -> k::Group<'a> {
    k::Group {
        time: k_chunk(g.time),
        values: g.values.iter().map(|c| c.map(k_chunk)).collect(),
    }
}

fn k_value(v: &r::Value) -> k::Value {
    match v {
        r::Value::Bool(x) => k::Value::Bool(*x),
        r::Value::I32(x) => k::Value::I32(*x),
        r::Value::I64(x) => k::Value::I64(*x),
        r::Value::F32(x) => k::Value::F32(*x),
        r::Value::F64(x) => k::Value::F64(*x),
        r::Value::Bytes(x) => k::Value::Bytes(x.clone()),
    }
}

fn r_value(v: &k::Value) -> r::Value {
    match v {
        k::Value::Bool(x) => r::Value::Bool(*x),
        k::Value::I32(x) => r::Value::I32(*x),
        k::Value::I64(x) => r::Value::I64(*x),
        k::Value::F32(x) => r::Value::F32(*x),
        k::Value::F64(x) => r::Value::F64(*x),
        k::Value::Bytes(x) => r::Value::Bytes(x.clone()),
    }
}

fn k_time_filter(f: &r::TimeFilter) -> k::TimeFilter {
    use r::TimeFilter::*;
    let b = |f: &r::TimeFilter| Box::new(k_time_filter(f));
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

fn k_request(q: &r::Request) -> k::Request {
    let field = q.filter.field.as_ref().map(|f| k::FieldFilter {
        column: f.column,
        op: match &f.op {
            r::FieldOp::IsNull => k::FieldOp::IsNull,
            r::FieldOp::IsNotNull => k::FieldOp::IsNotNull,
            r::FieldOp::Cmp(op, v) => k::FieldOp::Cmp(
                match op {
                    r::CmpOp::Lt => k::CmpOp::Lt,
                    r::CmpOp::LtEq => k::CmpOp::LtEq,
                    r::CmpOp::Gt => k::CmpOp::Gt,
                    r::CmpOp::GtEq => k::CmpOp::GtEq,
                    r::CmpOp::Eq => k::CmpOp::Eq,
                    r::CmpOp::NotEq => k::CmpOp::NotEq,
                },
                k_value(v),
            ),
        },
    });
    k::Request {
        filter: k::Filter {
            time: q.filter.time.as_ref().map(k_time_filter),
            field,
        },
        offset: q.offset,
        limit: q.limit,
        columns: q.columns.clone(),
        block_rows: q.block_rows,
    }
}

/// The kernel's outcome in the reference's terms.
fn canonical(result: &Result<Vec<k::Block>, k::ScanError>) -> Result<Vec<r::Block>, r::ScanError> {
    match result {
        Ok(blocks) => Ok(blocks
            .iter()
            .map(|b| {
                let (times, columns) = b.canonical();
                r::Block {
                    times,
                    columns: columns
                        .iter()
                        .map(|c| c.iter().map(|v| v.as_ref().map(r_value)).collect())
                        .collect(),
                }
            })
            .collect()),
        Err(e) => Err(r::ScanError {
            kind: match &e.kind {
                k::ErrorKind::BadRequest => r::ErrorKind::BadRequest,
                k::ErrorKind::Unsupported => r::ErrorKind::Unsupported,
                k::ErrorKind::TruncatedHeader => r::ErrorKind::TruncatedHeader,
                k::ErrorKind::BadPageSize => r::ErrorKind::BadPageSize,
                k::ErrorKind::TruncatedPage => r::ErrorKind::TruncatedPage,
                k::ErrorKind::PageCountMismatch => r::ErrorKind::PageCountMismatch,
                k::ErrorKind::RowCountMismatch => r::ErrorKind::RowCountMismatch,
                k::ErrorKind::BitmapTruncated => r::ErrorKind::BitmapTruncated,
                k::ErrorKind::ValueCountMismatch => r::ErrorKind::ValueCountMismatch,
                k::ErrorKind::StatisticsLie => r::ErrorKind::StatisticsLie,
                k::ErrorKind::TimesNotIncreasing => r::ErrorKind::TimesNotIncreasing,
                k::ErrorKind::Decode(d) => r::ErrorKind::Decode(d.clone()),
            },
            chunk: match e.chunk {
                k::ChunkId::Time => r::ChunkId::Time,
                k::ChunkId::Value(i) => r::ChunkId::Value(i),
            },
            page: e.page,
            offset: e.offset,
        }),
    }
}

/// The whole-outcome comparison, with its one allowed difference: the
/// reference reads every page, the kernel trusts statistics to skip and
/// stops at the limit, so an error the reference finds in a page the kernel
/// did not decode ([`k::PageAction::decoded`]) may be missing from (or
/// replaced by a later error in) the kernel's outcome. Everything else is
/// equal: the blocks (times, every cell, block sizes) or the error with its
/// chunk, page and byte offset.
fn agree(reference: &Result<Vec<r::Block>, r::ScanError>, kernel: &k::ScanOutput) -> Result<(), String> {
    let got = canonical(&kernel.result);
    if &got == reference {
        return Ok(());
    }
    if let Err(e) = reference {
        let chunk = match e.chunk {
            r::ChunkId::Time => k::ChunkId::Time,
            r::ChunkId::Value(i) => k::ChunkId::Value(i),
        };
        let unread = kernel.stats.plan.get(e.page).is_some_and(|a| !a.decoded(chunk));
        if unread {
            return Ok(());
        }
    }
    Err(format!(
        "reference {reference:?}\nkernel    {got:?}\nplan {:?}",
        kernel.stats.plan
    ))
}

/// Does the filter tree hold a discrete form or a negation?
fn discrete_or_negated(f: &r::TimeFilter) -> bool {
    use r::TimeFilter::*;
    match f {
        In(_) | NotIn(_) | NotEq(_) | NotBetween(..) | Not(_) => true,
        And(a, b) | Or(a, b) => discrete_or_negated(a) || discrete_or_negated(b),
        _ => false,
    }
}

fn has_or(f: &r::TimeFilter) -> bool {
    use r::TimeFilter::*;
    match f {
        Or(..) => true,
        And(a, b) => has_or(a) || has_or(b),
        Not(a) => has_or(a),
        _ => false,
    }
}

/// The scan statistics follow the plan rules, checked against the case's
/// own times (truthful statistics): SKIP pages hold no matching time,
/// FULL_PASS pages only matching times, a BOUNDARY range runs from the first
/// to the last matching time; bulk copy only under a contiguous time filter
/// without FIELD filter (and always there); in-place decode only for whole
/// pages of fixed-width columns without FIELD filter that fit one block;
/// neither with the optimizations off; the counts match the plan.
fn plan_rules(case: &Case, options: k::ScanOptions, out: &k::ScanOutput) -> Result<(), String> {
    let q = &case.request;
    let s = &out.stats;
    let matches = |t: i64| q.filter.time.as_ref().is_none_or(|f| f.matches(t));
    let field = q.filter.field.is_some();
    let fixed = q
        .columns
        .iter()
        .all(|&c| case.cols[c].as_ref().is_none_or(|c| r::fixed_width(c.t)));
    // Contiguous as the kernel documents it: one interval, no discrete form
    // or negation. One interval is checked on the page's own times below.
    let syntactically_contiguous = q.filter.time.as_ref().is_none_or(|f| !discrete_or_negated(f));
    let mut at = 0;
    for (p, &n) in case.page_sizes.iter().enumerate() {
        let times = &case.times[at..at + n];
        at += n;
        let Some(action) = s.plan.get(p) else { break };
        let first = times.iter().position(|&t| matches(t));
        let last = times.iter().rposition(|&t| matches(t));
        let fail = |why: &str| Err(format!("page {p} {action:?}: {why}; times {times:?}"));
        match *action {
            k::PageAction::Skip if first.is_some() => return fail("skipped a page with matching rows"),
            k::PageAction::NoMatch if first.is_some() => return fail("no match on a page with matching rows"),
            k::PageAction::FullPass { in_place } => {
                if !times.iter().all(|&t| matches(t)) {
                    return fail("full pass over a non-matching row");
                }
                if in_place && (field || !fixed || !options.direct_decode || n > q.block_rows) {
                    return fail("in-place decode where it is not allowed");
                }
            }
            k::PageAction::Boundary {
                row_begin,
                row_end,
                bulk,
            } => {
                if (Some(row_begin), Some(row_end - 1)) != (first, last) {
                    return fail("retained range is not first..last match");
                }
                if bulk && (field || !syntactically_contiguous || !options.bulk_copy) {
                    return fail("bulk copy under a discrete, negated or FIELD filter");
                }
                let every_row_matches = times[row_begin..row_end].iter().all(|&t| matches(t));
                if bulk && !every_row_matches {
                    return fail("bulk copy of a range with holes");
                }
                if !bulk && options.bulk_copy && !field && syntactically_contiguous && every_row_matches {
                    // A contiguous filter must bulk-copy its boundary pages.
                    // Without Or, comparisons and windows meet in one
                    // interval; with Or the set may be several (not
                    // contiguous), so only trees without Or are held to it.
                    let single = q.filter.time.as_ref().is_none_or(|f| !has_or(f));
                    if single {
                        return fail("boundary page of a contiguous filter kept row by row");
                    }
                }
            }
            _ => {}
        }
    }
    let count = |f: fn(&k::PageAction) -> bool| s.plan.iter().filter(|a| f(a)).count();
    let counts = (
        s.pages_skipped,
        s.pages_full_pass,
        s.boundary_bulk,
        s.boundary_row_by_row,
        s.pages_in_place,
        s.pages_not_reached,
    );
    let expected = (
        count(|a| matches!(a, k::PageAction::Skip | k::PageAction::NoMatch)),
        count(|a| matches!(a, k::PageAction::FullPass { .. })),
        count(|a| matches!(a, k::PageAction::Boundary { bulk: true, .. })),
        count(|a| matches!(a, k::PageAction::Boundary { bulk: false, .. })),
        count(|a| matches!(a, k::PageAction::FullPass { in_place: true })),
        count(|a| matches!(a, k::PageAction::NotReached)),
    );
    if counts != expected {
        return Err(format!("counters {counts:?} but plan {expected:?}"));
    }
    if out.result.is_ok() && s.plan.len() != case.page_sizes.len() {
        return Err("the plan misses pages".into());
    }
    Ok(())
}

// --- generators ---

fn gen_times(rng: &mut ChaCha8Rng, n: usize) -> Vec<i64> {
    let step = |rng: &mut ChaCha8Rng| rng.gen_range(1..=3i64);
    let mut times = Vec::with_capacity(n);
    match rng.gen_range(0..4) {
        // From i64::MIN up.
        0 => {
            let mut t = i64::MIN;
            for _ in 0..n {
                times.push(t);
                t += step(rng);
            }
        }
        // Down to i64::MAX.
        1 => {
            let mut t = i64::MAX;
            for _ in 0..n {
                times.push(t);
                t -= step(rng);
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

fn gen_value(rng: &mut ChaCha8Rng, t: r::ColumnType) -> r::Value {
    use r::ColumnType::*;
    match t {
        Boolean => r::Value::Bool(rng.gen()),
        Int32 | Date => r::Value::I32(match rng.gen_range(0..4) {
            0 => i32::MIN,
            1 => i32::MAX,
            _ => rng.gen_range(-20..20),
        }),
        Int64 | Timestamp => r::Value::I64(match rng.gen_range(0..4) {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => rng.gen_range(-20..20),
        }),
        Float => r::Value::F32(match rng.gen_range(0..4) {
            0 => rng.gen(),
            1 => f32::NAN.to_bits(),
            _ => (rng.gen_range(-20..20) as f32).to_bits(),
        }),
        Double => r::Value::F64(match rng.gen_range(0..4) {
            0 => rng.gen(),
            1 => f64::NAN.to_bits(),
            _ => (rng.gen_range(-20..20) as f64).to_bits(),
        }),
        Text | String | Blob => r::Value::Bytes((0..rng.gen_range(0..4)).map(|_| rng.gen_range(b'a'..b'd')).collect()),
    }
}

fn gen_col(rng: &mut ChaCha8Rng, n: usize) -> Col {
    use r::ColumnType::*;
    use r::Encoding::*;
    let types = [
        Boolean, Int32, Int64, Float, Double, Timestamp, Date, Text, String, Blob,
    ];
    let t = types[rng.gen_range(0..types.len())];
    let encodings: &[r::Encoding] = match t {
        Boolean => &[Plain, Rle],
        Int32 | Date | Int64 | Timestamp => &[Plain, Rle, Ts2Diff, Gorilla],
        Float | Double => &[Plain, Gorilla],
        Text | String | Blob => &[Plain],
    };
    let e = encodings[rng.gen_range(0..encodings.len())];
    let null_rate = [0.0, 0.3, 1.0, 0.9][rng.gen_range(0..4)];
    let cells = (0..n)
        .map(|_| (!rng.gen_bool(null_rate)).then(|| gen_value(rng, t)))
        .collect();
    Col {
        t,
        e,
        cells,
        empty_pages: rng.gen(),
    }
}

/// A time constant near the data: a time, one off it, a page edge, an extreme.
fn gen_const(rng: &mut ChaCha8Rng, times: &[i64]) -> i64 {
    if times.is_empty() || rng.gen_range(0..8) == 0 {
        return [i64::MIN, i64::MAX, 0][rng.gen_range(0..3)];
    }
    let t = times[rng.gen_range(0..times.len())];
    match rng.gen_range(0..3) {
        0 => t.saturating_sub(1),
        1 => t.saturating_add(1),
        _ => t,
    }
}

fn gen_filter(rng: &mut ChaCha8Rng, times: &[i64], depth: u32) -> r::TimeFilter {
    use r::TimeFilter::*;
    let leaf = rng.gen_range(0..if depth == 0 { 10 } else { 13 });
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
            let v: Vec<i64> = (0..rng.gen_range(0..5)).map(|_| gen_const(rng, times)).collect();
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

fn gen_case(seed: u64) -> Case {
    let rng = &mut ChaCha8Rng::seed_from_u64(seed);
    let n = [0, 1, rng.gen_range(1..20), rng.gen_range(1..80)][rng.gen_range(0..4)];
    let times = gen_times(rng, n);
    let mut page_sizes = Vec::new();
    let mut left = n;
    let typical = rng.gen_range(1..=12);
    while left > 0 {
        let size = if rng.gen_range(0..4) == 0 {
            rng.gen_range(1..=12)
        } else {
            typical
        }
        .min(left);
        page_sizes.push(size);
        left -= size;
    }
    let cols: Vec<Option<Col>> = (0..rng.gen_range(1..=4))
        .map(|_| (rng.gen_range(0..6) != 0).then(|| gen_col(rng, n)))
        .collect();
    let depth = rng.gen_range(0..3);
    let filter_time = (rng.gen_range(0..5) != 0).then(|| gen_filter(rng, &times, depth));
    let field = (rng.gen_range(0..3) == 0).then(|| {
        let column = rng.gen_range(0..cols.len());
        let op = match rng.gen_range(0..4) {
            0 => r::FieldOp::IsNull,
            1 => r::FieldOp::IsNotNull,
            _ => {
                let t = cols[column].as_ref().map_or(r::ColumnType::Int64, |c| c.t);
                let ops = [
                    r::CmpOp::Lt,
                    r::CmpOp::LtEq,
                    r::CmpOp::Gt,
                    r::CmpOp::GtEq,
                    r::CmpOp::Eq,
                    r::CmpOp::NotEq,
                ];
                r::FieldOp::Cmp(ops[rng.gen_range(0..6)], gen_value(rng, t))
            }
        };
        r::FieldFilter { column, op }
    });
    let columns = (0..rng.gen_range(0..=cols.len() + 1))
        .map(|_| rng.gen_range(0..cols.len()))
        .collect();
    let page = typical;
    let block_rows = [
        1,
        page.saturating_sub(1).max(1),
        page,
        page + 1,
        n + 5,
        rng.gen_range(1..20),
    ][rng.gen_range(0..6)];
    let offset = if rng.gen() { 0 } else { rng.gen_range(0..=n as u64 + 2) };
    let limit = if rng.gen() {
        None
    } else {
        Some(rng.gen_range(0..=n as u64 + 2))
    };
    Case {
        times,
        page_sizes,
        time_encoding: if rng.gen() {
            r::Encoding::Ts2Diff
        } else {
            r::Encoding::Plain
        },
        cols,
        request: r::Request {
            filter: r::Filter {
                time: filter_time,
                field,
            },
            offset,
            limit,
            columns,
            block_rows,
        },
    }
}

/// Reference, kernel and kernel baseline on one group.
fn check(case: &Case, t: &[u8], values: &[Vec<u8>], rules: bool) -> Result<(), TestCaseError> {
    let rg = r_group(case, t, values);
    let kg = k_group(&rg);
    let kq = k_request(&case.request);
    let expected = r::scan(&rg, &case.request);
    for options in [k::ScanOptions::default(), k::ScanOptions::baseline()] {
        let out = k::scan(&kg, &kq, options);
        if let Err(why) = agree(&expected, &out) {
            return Err(TestCaseError::fail(format!("{options:?}\n{why}\ncase {case:?}")));
        }
        if rules {
            if let Err(why) = plan_rules(case, options, &out) {
                return Err(TestCaseError::fail(format!("{options:?}\n{why}\ncase {case:?}")));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Well-formed groups: the same outcome, the plan rules hold.
    #[test]
    fn kernel_agrees_with_reference(seed in any::<u64>()) {
        let case = gen_case(seed);
        let (t, values) = build(&case);
        check(&case, &t, &values, true)?;
    }

    /// Damaged groups: a truncated chunk, a flipped byte, a page header's
    /// statistics that lie about its time range. Never a panic; the same
    /// outcome except where the kernel did not read the damaged page.
    #[test]
    fn kernel_agrees_on_damaged_groups(seed in any::<u64>(), damage in any::<u64>()) {
        let case = gen_case(seed);
        let (mut t, mut values) = build(&case);
        let rng = &mut ChaCha8Rng::seed_from_u64(damage);
        let which = rng.gen_range(0..=values.len());
        let chunk = if which == values.len() { &mut t } else { &mut values[which] };
        if !chunk.is_empty() {
            match rng.gen_range(0..3) {
                0 => {
                    let cut = rng.gen_range(0..chunk.len());
                    chunk.truncate(cut);
                }
                1 => {
                    let at = rng.gen_range(0..chunk.len());
                    chunk[at] ^= 1 << rng.gen_range(0..8);
                }
                _ => {
                    // Lie about a time page's start or end by a small amount.
                    let mut at = 0;
                    let pages: Vec<usize> = case.page_sizes.iter().map(|&n| {
                        let here = at;
                        at += n;
                        here
                    }).collect();
                    if !pages.is_empty() {
                        let p = rng.gen_range(0..pages.len());
                        let times = &case.times[pages[p]..pages[p] + case.page_sizes[p]];
                        let mut stats = Stats::of(times);
                        let by = rng.gen_range(-2..=2i64);
                        if rng.gen() { stats.start = stats.start.wrapping_add(by) } else { stats.end = stats.end.wrapping_add(by) }
                        let mut rebuilt = Vec::new();
                        let mut at = 0;
                        for (i, &n) in case.page_sizes.iter().enumerate() {
                            let ts = &case.times[at..at + n];
                            let s = if i == p { stats } else { Stats::of(ts) };
                            rebuilt.extend(time_page(&time_body(ts, case.time_encoding), s));
                            at += n;
                        }
                        t = rebuilt;
                    }
                }
            }
        }
        check(&case, &t, &values, false)?;
    }
}

/// Known plans on a hand-built group: a contiguous window bulk-copies its
/// boundary pages; In, a negation or a FIELD filter never does; no filter
/// decodes whole pages in place; a TEXT column stops in-place decode.
#[test]
fn plans_of_known_scans() {
    let times: Vec<i64> = (0..40).collect();
    let cells: Vec<Option<r::Value>> = times
        .iter()
        .map(|&t| (t % 3 != 0).then_some(r::Value::I64(t)))
        .collect();
    let texts: Vec<Option<r::Value>> = times.iter().map(|&t| Some(r::Value::Bytes(vec![t as u8]))).collect();
    let mk = |filter: r::Filter, columns: Vec<usize>| Case {
        times: times.clone(),
        page_sizes: vec![8; 5],
        time_encoding: r::Encoding::Ts2Diff,
        cols: vec![
            Some(Col {
                t: r::ColumnType::Int64,
                e: r::Encoding::Ts2Diff,
                cells: cells.clone(),
                empty_pages: false,
            }),
            Some(Col {
                t: r::ColumnType::Text,
                e: r::Encoding::Plain,
                cells: texts.clone(),
                empty_pages: false,
            }),
        ],
        request: r::Request {
            filter,
            offset: 0,
            limit: None,
            columns,
            block_rows: 1000,
        },
    };
    let time = |f: r::TimeFilter| r::Filter {
        time: Some(f),
        field: None,
    };
    let stats = |case: &Case| {
        let (t, values) = build(case);
        check(case, &t, &values, true).unwrap();
        let rg = r_group(case, &t, &values);
        k::scan(&k_group(&rg), &k_request(&case.request), k::ScanOptions::default()).stats
    };
    let s = stats(&mk(time(r::TimeFilter::Between(3, 36)), vec![0]));
    assert_eq!((s.boundary_bulk, s.boundary_row_by_row, s.pages_full_pass), (2, 0, 3));
    let s = stats(&mk(time(r::TimeFilter::In(vec![3, 4, 20, 36])), vec![0]));
    assert_eq!((s.boundary_bulk, s.boundary_row_by_row, s.pages_skipped), (0, 3, 2));
    let s = stats(&mk(time(r::TimeFilter::Not(Box::new(r::TimeFilter::Lt(3)))), vec![0]));
    assert_eq!((s.boundary_bulk, s.boundary_row_by_row), (0, 1));
    let mut f = time(r::TimeFilter::Between(3, 36));
    f.filter_field(0);
    let s = stats(&mk(f, vec![0]));
    assert_eq!((s.boundary_bulk, s.pages_in_place), (0, 0));
    let s = stats(&mk(r::Filter::default(), vec![0]));
    assert_eq!(s.pages_in_place, 5);
    let s = stats(&mk(r::Filter::default(), vec![0, 1]));
    assert_eq!(s.pages_in_place, 0);
}

trait WithField {
    fn filter_field(&mut self, column: usize);
}

impl WithField for r::Filter {
    fn filter_field(&mut self, column: usize) {
        self.field = Some(r::FieldFilter {
            column,
            op: r::FieldOp::IsNotNull,
        });
    }
}

/// The generator reaches every plan class, in-place decode, non-empty and
/// multi-block outputs, and the limit: a test whose cases never got there
/// could not fail on them.
#[test]
fn generator_reaches_every_plan_class() {
    let mut seen = [0usize; 8];
    for seed in 0..400 {
        let case = gen_case(seed);
        let (t, values) = build(&case);
        let rg = r_group(&case, &t, &values);
        let out = k::scan(&k_group(&rg), &k_request(&case.request), k::ScanOptions::default());
        let s = &out.stats;
        let blocks = out.result.as_ref().map_or(0, Vec::len);
        for (i, hit) in [
            s.plan.contains(&k::PageAction::Skip),
            s.pages_full_pass > 0,
            s.boundary_bulk > 0,
            s.boundary_row_by_row > 0,
            s.pages_in_place > 0,
            s.pages_not_reached > 0,
            blocks > 1,
            s.plan.contains(&k::PageAction::NoMatch),
        ]
        .into_iter()
        .enumerate()
        {
            seen[i] += usize::from(hit);
        }
    }
    assert!(seen.iter().all(|&n| n >= 5), "cases per class: {seen:?}");
}
