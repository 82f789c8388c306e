//! The aligned chunk scanners held to each other: random chunk groups
//! (1-4 value columns of every type and encoding the scanners read, mixed
//! page sizes, no / some / all nulls, empty pages, a missing measurement,
//! single-row pages, times at i64::MIN / MAX), random filters (nested time
//! trees whose constants sit on, next to and between page edges; a FIELD
//! filter), offsets, limits and block sizes (1, a page size +-1, more than
//! the chunk). The kernel, with and without its optimizations, must give the
//! reference's outcome (the one allowed difference is in [`agree`]), and its
//! scan statistics must follow the plan rules ([`plan_rules`]).

use crossdec_engine::CaseRng;
use crossdec_harness::families::tsfile_aligned::generate::{scenario, Column, Knobs, Scenario};
use crossdec_harness::families::tsfile_aligned::{kernel_group, kernel_request, reference_group, reference_request};
use crossdec_harness::families::tsfile_aligned::{FieldFilter, FieldOp, Request, TimeFilter};
use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;
use proptest::prelude::*;
use r::write::Stats;

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
                k::ErrorKind::Decompress(d) => r::ErrorKind::Decompress(d.clone()),
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
/// neither with the optimizations off; a page skipped by the FIELD filter
/// (value statistics) holds no row matching both filters, and none with
/// pruning off; the counts match the plan.
fn plan_rules(case: &Scenario, options: k::ScanOptions, out: &k::ScanOutput) -> Result<(), String> {
    let q = &reference_request(&case.request, case.writer_id()).expect("a request of this host's sizes");
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
    // The FIELD filter on the case's own cells (reference semantics).
    let field_matches = |r: usize| {
        q.filter.field.as_ref().is_none_or(|f| {
            let cell = case.cols[f.column].as_ref().and_then(|c| c.cells[r].as_ref());
            f.op.matches(cell)
        })
    };
    let mut at = 0;
    // Rows matching the time filter in the pages before this one.
    let mut matched_before = 0u64;
    for (p, &n) in case.page_sizes.iter().enumerate() {
        let times = &case.times[at..at + n];
        let rows = at..at + n;
        at += n;
        let Some(action) = s.plan.get(p) else { break };
        let first = times.iter().position(|&t| matches(t));
        let last = times.iter().rposition(|&t| matches(t));
        let fail = |why: &str| Err(format!("page {p} {action:?}: {why}; times {times:?}"));
        let all_match = times.iter().all(|&t| matches(t));
        let inside_offset = matched_before + n as u64 <= q.offset;
        matched_before += times.iter().filter(|&&t| matches(t)).count() as u64;
        let offset_may_drop = options.offset_pushdown && !field && all_match && inside_offset;
        match *action {
            k::PageAction::OffsetSkip if !offset_may_drop => {
                return fail("dropped by the offset, not wholly inside it or not allowed")
            }
            k::PageAction::FullPass { .. } if offset_may_drop => {
                return fail("decoded a full-pass page the offset drops whole")
            }
            k::PageAction::Skip if first.is_some() => return fail("skipped a page with matching rows"),
            k::PageAction::ValueSkip if !field || !options.value_pruning => {
                return fail("skipped by the FIELD filter without one or with pruning off")
            }
            k::PageAction::ValueSkip if rows.clone().any(|r| matches(case.times[r]) && field_matches(r)) => {
                return fail("skipped by the FIELD filter a page with a matching row")
            }
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
        s.pages_offset_skipped,
        s.skipped_by_value_statistics,
    );
    let expected = (
        count(|a| matches!(a, k::PageAction::Skip | k::PageAction::NoMatch)),
        count(|a| matches!(a, k::PageAction::FullPass { .. })),
        count(|a| matches!(a, k::PageAction::Boundary { bulk: true, .. })),
        count(|a| matches!(a, k::PageAction::Boundary { bulk: false, .. })),
        count(|a| matches!(a, k::PageAction::FullPass { in_place: true })),
        count(|a| matches!(a, k::PageAction::NotReached)),
        count(|a| matches!(a, k::PageAction::OffsetSkip)),
        count(|a| matches!(a, k::PageAction::ValueSkip)),
    );
    if counts != expected {
        return Err(format!("counters {counts:?} but plan {expected:?}"));
    }
    if out.result.is_ok() && s.plan.len() != case.page_sizes.len() {
        return Err("the plan misses pages".into());
    }
    Ok(())
}

fn gen_case(seed: u64) -> Scenario {
    scenario(&mut CaseRng::seed_from_u64(seed), Knobs::default())
}

/// Reference, kernel and kernel baseline on one group (the scenario's
/// request, `time` and `values` as the chunks' bytes).
fn check(case: &Scenario, time: Vec<u8>, values: Vec<Vec<u8>>, rules: bool) -> Result<(), TestCaseError> {
    let input = case.input_with(time, values);
    let rg = reference_group(&input).expect("known ids");
    let kg = kernel_group(&input).expect("known ids");
    let rq = reference_request(&input.request, input.writer).expect("sizes of this host");
    let kq = kernel_request(&input.request, input.writer).expect("sizes of this host");
    let expected = r::scan(&rg, &rq);
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

fn chunks(case: &Scenario) -> (Vec<u8>, Vec<Vec<u8>>) {
    (
        case.time_chunk(None),
        (0..case.cols.len()).map(|c| case.value_chunk(c)).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Well-formed groups: the same outcome, the plan rules hold.
    #[test]
    fn kernel_agrees_with_reference(seed in any::<u64>()) {
        let case = gen_case(seed);
        let (t, values) = chunks(&case);
        check(&case, t, values, true)?;
    }

    /// Damaged groups: a truncated chunk, a flipped byte, a page header's
    /// statistics that lie about its time range. Never a panic; the same
    /// outcome except where the kernel did not read the damaged page.
    #[test]
    fn kernel_agrees_on_damaged_groups(seed in any::<u64>(), damage in any::<u64>()) {
        let case = gen_case(seed);
        let (mut t, mut values) = chunks(&case);
        let rng = &mut CaseRng::seed_from_u64(damage);
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
                    if !case.page_sizes.is_empty() {
                        let p = rng.gen_range(0..case.page_sizes.len());
                        let mut stats = Stats::of(case.page(p).1);
                        let by = rng.gen_range(-2..=2i64);
                        if rng.gen() { stats.start = stats.start.wrapping_add(by) } else { stats.end = stats.end.wrapping_add(by) }
                        t = case.time_chunk(Some((p, stats)));
                    }
                }
            }
        }
        check(&case, t, values, false)?;
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
    let mk = |time: Option<TimeFilter>, field: bool, columns: Vec<u32>| Scenario {
        times: times.clone(),
        page_sizes: vec![8; 5],
        time_encoding: r::Encoding::Ts2Diff,
        writer: r::Writer::Cpp,
        cols: vec![
            Some(Column {
                t: r::ColumnType::Int64,
                e: r::Encoding::Ts2Diff,
                cells: cells.clone(),
                empty_pages: false,
            }),
            Some(Column {
                t: r::ColumnType::Text,
                e: r::Encoding::Plain,
                cells: texts.clone(),
                empty_pages: false,
            }),
        ],
        request: Request {
            time,
            field: field.then_some(FieldFilter {
                column: 0,
                op: FieldOp::IsNotNull,
            }),
            offset: 0,
            limit: None,
            columns,
            block_rows: 1000,
        },
    };
    let stats = |case: &Scenario| {
        let (t, values) = chunks(case);
        check(case, t, values, true).unwrap();
        let input = case.input();
        let (g, q) = (
            kernel_group(&input).unwrap(),
            kernel_request(&input.request, input.writer).unwrap(),
        );
        k::scan(&g, &q, k::ScanOptions::default()).stats
    };
    let s = stats(&mk(Some(TimeFilter::Between(3, 36)), false, vec![0]));
    assert_eq!((s.boundary_bulk, s.boundary_row_by_row, s.pages_full_pass), (2, 0, 3));
    let s = stats(&mk(Some(TimeFilter::In(vec![3, 4, 20, 36])), false, vec![0]));
    assert_eq!((s.boundary_bulk, s.boundary_row_by_row, s.pages_skipped), (0, 3, 2));
    let s = stats(&mk(Some(TimeFilter::Not(Box::new(TimeFilter::Lt(3)))), false, vec![0]));
    assert_eq!((s.boundary_bulk, s.boundary_row_by_row), (0, 1));
    let s = stats(&mk(Some(TimeFilter::Between(3, 36)), true, vec![0]));
    assert_eq!((s.boundary_bulk, s.pages_in_place), (0, 0));
    let s = stats(&mk(None, false, vec![0]));
    assert_eq!(s.pages_in_place, 5);
    let s = stats(&mk(None, false, vec![0, 1]));
    assert_eq!(s.pages_in_place, 0);
}

/// The generator reaches every plan class, in-place decode, non-empty and
/// multi-block outputs, and the limit: a test whose cases never got there
/// could not fail on them.
#[test]
fn generator_reaches_every_plan_class() {
    let mut seen = [0usize; 9];
    for seed in 0..400 {
        let input = gen_case(seed).input();
        let (g, q) = (
            kernel_group(&input).unwrap(),
            kernel_request(&input.request, input.writer).unwrap(),
        );
        let out = k::scan(&g, &q, k::ScanOptions::default());
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
            s.pages_offset_skipped > 0,
        ]
        .into_iter()
        .enumerate()
        {
            seen[i] += usize::from(hit);
        }
    }
    assert!(seen.iter().all(|&n| n >= 5), "cases per class: {seen:?}");
}

/// The stored categories reach what they are for: compressed chunks of
/// each codec and chunks without page statistics read whole by both
/// scanners, the kernel planning unannotated pages from their times (a
/// NoMatch where statistics would have skipped), and damaged compressed
/// bodies refused as `Decompress` errors by both.
#[test]
fn stored_categories_reach_codecs_unannotated_pages_and_broken_bodies() {
    use crossdec_harness::families::tsfile_aligned::generate::generate;
    use crossdec_harness::families::tsfile_aligned::{reference_scan, Codecs, Fault};
    let mut codecs_read = std::collections::BTreeSet::new();
    let (mut unannotated_no_match, mut broken) = (0, 0);
    for seed in 0..300 {
        let rng = &mut CaseRng::seed_from_u64(seed);
        let input = generate("stored", seed, rng).remove(0).steps.remove(0);
        let (compression, statistics) = input.stored_as(0);
        let expected = reference_scan(&input).expect("a stored group reads whole");
        let (g, q) = (
            kernel_group(&input).unwrap(),
            kernel_request(&input.request, input.writer).unwrap(),
        );
        let out = k::scan_with(&g, &q, k::ScanOptions::default(), &Codecs);
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        codecs_read.insert(compression);
        if !statistics && out.stats.plan.contains(&k::PageAction::NoMatch) && !expected.blocks.is_empty() {
            unannotated_no_match += 1;
        }
        let rng = &mut CaseRng::seed_from_u64(seed);
        let damaged = generate("malformed-stored", seed, rng).remove(0).steps.remove(0);
        if let Err(Fault { kind: 13, .. }) = reference_scan(&damaged) {
            broken += 1;
        }
    }
    assert_eq!(codecs_read.into_iter().collect::<Vec<_>>(), [0, 1, 7]);
    assert!(unannotated_no_match >= 5, "{unannotated_no_match}");
    assert!(broken >= 10, "{broken}");
}

/// The value-statistics categories reach what they are for: pages skipped
/// by the FIELD filter and pages of the same filters decoded (the bound
/// met or one step inside), skips of Java float pages, and NaN-holding
/// float pages; their lies caught by the reference (StatisticsLie in a
/// value chunk), some in pages the kernel skipped by them (the promise).
#[test]
fn value_statistics_categories_prune_and_do_not_and_lie() {
    use crossdec_harness::families::tsfile_aligned::generate::generate;
    use crossdec_harness::families::tsfile_aligned::{kernel_scan, reference_scan};
    let (mut skipped, mut decoded, mut java_float_skips, mut nan_pages) = (0, 0, 0, 0);
    let (mut lies, mut lies_in_skipped) = (0, 0);
    for seed in 0..400 {
        let rng = &mut CaseRng::seed_from_u64(seed);
        let input = generate("value-statistics", seed, rng).remove(0).steps.remove(0);
        let Some(field) = &input.request.field else { continue };
        let out = k::scan_with(
            &kernel_group(&input).unwrap(),
            &kernel_request(&input.request, input.writer).unwrap(),
            k::ScanOptions::default(),
            &crossdec_harness::families::tsfile_aligned::Codecs,
        );
        assert!(out.result.is_ok(), "seed {seed}: {:?}", out.result);
        let s = &out.stats;
        skipped += usize::from(s.skipped_by_value_statistics > 0);
        decoded += usize::from(s.plan.iter().any(|a| a.decoded(k::ChunkId::Time)));
        let column = input.values[field.column as usize].as_ref();
        let float = column.is_some_and(|c| c.data_type == 3 || c.data_type == 4);
        java_float_skips += usize::from(float && input.writer == 1 && s.skipped_by_value_statistics > 0);
        let nan = |b: &[u8]| b.windows(2).any(|w| w == [0x7F, 0xC0] || w == [0x7F, 0xF8]);
        nan_pages += usize::from(float && column.is_some_and(|c| nan(&c.data)));

        let rng = &mut CaseRng::seed_from_u64(seed);
        let lying = generate("malformed-lying-value-statistics", seed, rng)
            .remove(0)
            .steps
            .remove(0);
        if let Err(e) = reference_scan(&lying) {
            if e.kind == 10 && e.chunk >= 0 {
                lies += 1;
                let kernel = kernel_scan(&lying, k::ScanOptions::default());
                let unread = match &kernel {
                    Ok(s) => &s.unread,
                    Err(f) => &f.unread,
                };
                lies_in_skipped += usize::from(unread.left_unread(e.chunk, e.page));
            }
        }
    }
    let seen = (skipped, decoded, java_float_skips, nan_pages, lies, lies_in_skipped);
    assert!(
        skipped >= 40 && decoded >= 40 && java_float_skips >= 3 && nan_pages >= 5,
        "{seen:?}"
    );
    assert!(lies >= 40 && lies_in_skipped >= 3, "{seen:?}");
}
