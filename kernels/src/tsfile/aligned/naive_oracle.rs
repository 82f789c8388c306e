//! The scanner held to a naive oracle written here: random PLAIN groups
//! (INT64 and TEXT columns, nulls, empty pages, a missing measurement,
//! times up to the i64 extremes, compressed or unannotated storage),
//! random filter trees, FIELD filters, offsets, limits, block sizes and
//! option sets; the oracle decodes every row, filters it with a recursive
//! evaluation of the tree, drops the offset, stops at the limit and cuts
//! blocks of `block_rows`. These run in the kernels crate alone (no
//! reference scanner), so they judge mutants of the scanner in seconds.

use proptest::prelude::*;

use super::*;

fn uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Sizes, statistics (if any), body.
fn page(out: &mut Vec<u8>, body: &[u8], stats: Option<(usize, i64, i64)>, typed: &[u8], reversed: bool) {
    uvarint(out, body.len() as u64);
    uvarint(out, body.len() as u64);
    if let Some((count, start, end)) = stats {
        uvarint(out, count as u64);
        out.extend_from_slice(&start.to_be_bytes());
        out.extend_from_slice(&end.to_be_bytes());
        out.extend_from_slice(typed);
    }
    if reversed {
        out.extend(body.iter().rev());
    } else {
        out.extend_from_slice(body);
    }
}

/// Id 7: the stored body is the body reversed.
struct Reversed;

impl Decompress for Reversed {
    fn decompress(&self, compression: u8, body: &[u8], _: usize) -> Result<Vec<u8>, String> {
        assert_eq!(compression, 7);
        Ok(body.iter().rev().copied().collect())
    }
}

/// A row: its time and the requested columns' cells.
type Row = (i64, Vec<Option<Value>>);

#[derive(Debug, Clone)]
enum Cells {
    Int64(Vec<Option<i64>>),
    Text(Vec<Option<Vec<u8>>>),
}

impl Cells {
    fn cell(&self, r: usize) -> Option<Value> {
        match self {
            Cells::Int64(v) => v[r].map(Value::I64),
            Cells::Text(v) => v[r].clone().map(Value::Bytes),
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    times: Vec<i64>,
    page_sizes: Vec<usize>,
    /// `None`: missing from the group.
    columns: Vec<Option<Cells>>,
    empty_pages: bool,
    time: Option<TimeFilter>,
    field: Option<FieldFilter>,
    offset: u64,
    limit: Option<u64>,
    requested: Vec<usize>,
    block_rows: usize,
    options: ScanOptions,
    compressed: bool,
    statistics: bool,
}

impl Case {
    fn chunks(&self) -> (Vec<u8>, Vec<Vec<u8>>) {
        let mut time = Vec::new();
        let mut values = vec![Vec::new(); self.columns.len()];
        let mut at = 0;
        for &n in &self.page_sizes {
            let times = &self.times[at..at + n];
            let stats = |count| self.statistics.then_some((count, times[0], times[n - 1]));
            let body: Vec<u8> = times.iter().flat_map(|t| t.to_be_bytes()).collect();
            page(&mut time, &body, stats(n), &[], self.compressed);
            for (c, column) in self.columns.iter().enumerate() {
                let Some(column) = column else { continue };
                let present: Vec<bool> = (0..n).map(|r| column.cell(at + r).is_some()).collect();
                let non_null = present.iter().filter(|&&p| p).count();
                if non_null == 0 && self.empty_pages {
                    values[c].push(0);
                    continue;
                }
                let mut body = (n as i32).to_be_bytes().to_vec();
                let mut bitmap = vec![0u8; n.div_ceil(8)];
                for (r, &p) in present.iter().enumerate() {
                    if p {
                        bitmap[r / 8] |= 0x80 >> (r % 8);
                    }
                }
                body.extend(bitmap);
                let typed = match column {
                    Cells::Int64(v) => {
                        for x in v[at..at + n].iter().flatten() {
                            body.extend_from_slice(&x.to_be_bytes());
                        }
                        // min, max, then first, last, sum (unchecked).
                        let present = v[at..at + n].iter().flatten();
                        let min = present.clone().min().copied().unwrap_or(0);
                        let max = present.max().copied().unwrap_or(0);
                        [min.to_be_bytes(), max.to_be_bytes()]
                            .concat()
                            .into_iter()
                            .chain([0u8; 24])
                            .collect()
                    }
                    Cells::Text(v) => {
                        for x in v[at..at + n].iter().flatten() {
                            // PLAIN binary: zigzag varint length, bytes.
                            uvarint(&mut body, (x.len() as u64) << 1);
                            body.extend_from_slice(x);
                        }
                        vec![0u8; 8]
                    }
                };
                page(&mut values[c], &body, stats(non_null), &typed, self.compressed);
            }
            at += n;
        }
        (time, values)
    }

    /// The oracle: every row, filtered, offset, limit, blocks.
    fn expected(&self) -> Vec<Vec<Row>> {
        let cell = |c: usize, r: usize| self.columns[c].as_ref().and_then(|col| col.cell(r));
        let rows: Vec<Row> = (0..self.times.len())
            .filter(|&r| self.time.as_ref().is_none_or(|f| holds(f, self.times[r])))
            .filter(|&r| {
                self.field
                    .as_ref()
                    .is_none_or(|f| field_holds(&f.op, cell(f.column, r)))
            })
            .map(|r| (self.times[r], self.requested.iter().map(|&c| cell(c, r)).collect()))
            .skip(usize::try_from(self.offset).unwrap_or(usize::MAX))
            .take(
                self.limit
                    .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX)),
            )
            .collect();
        rows.chunks(self.block_rows).map(<[_]>::to_vec).collect()
    }
}

fn holds(f: &TimeFilter, t: i64) -> bool {
    use TimeFilter::*;
    match f {
        Gt(v) => t > *v,
        GtEq(v) => t >= *v,
        Lt(v) => t < *v,
        LtEq(v) => t <= *v,
        Eq(v) => t == *v,
        NotEq(v) => t != *v,
        Between(a, b) => *a <= t && t <= *b,
        NotBetween(a, b) => !(*a <= t && t <= *b),
        In(v) => v.contains(&t),
        NotIn(v) => !v.contains(&t),
        And(a, b) => holds(a, t) && holds(b, t),
        Or(a, b) => holds(a, t) || holds(b, t),
        Not(a) => !holds(a, t),
    }
}

fn field_holds(op: &FieldOp, v: Option<Value>) -> bool {
    match (op, v) {
        (FieldOp::IsNull, v) => v.is_none(),
        (FieldOp::IsNotNull, v) => v.is_some(),
        (FieldOp::Cmp(..), None) => false,
        (FieldOp::Cmp(op, c), Some(v)) => {
            let order = match (&v, c) {
                (Value::I64(a), Value::I64(b)) => a.cmp(b),
                (Value::Bytes(a), Value::Bytes(b)) => a.cmp(b),
                _ => return false,
            };
            match op {
                CmpOp::Lt => order.is_lt(),
                CmpOp::LtEq => order.is_le(),
                CmpOp::Gt => order.is_gt(),
                CmpOp::GtEq => order.is_ge(),
                CmpOp::Eq => order.is_eq(),
                CmpOp::NotEq => order.is_ne(),
            }
        }
    }
}

/// Times from near `i64::MIN`, near `i64::MAX`, or around 0.
fn times_strategy() -> impl Strategy<Value = (Vec<i64>, Vec<usize>)> {
    (
        prop::collection::vec(1usize..=9, 0..6),
        0u8..3,
        prop::collection::vec(1i64..4, 60),
    )
        .prop_map(|(page_sizes, origin, steps)| {
            let n: usize = page_sizes.iter().sum();
            let mut times = Vec::with_capacity(n);
            let mut t = match origin {
                0 => i64::MIN,
                1 => i64::MAX - 3 * n as i64,
                _ => -20,
            };
            for i in 0..n {
                times.push(t);
                t = t.saturating_add(steps[i % steps.len()]);
            }
            (times, page_sizes)
        })
}

fn time_filter(times: Vec<i64>) -> impl Strategy<Value = TimeFilter> {
    let pick = move |i: usize, nudge: i64| -> i64 {
        if times.is_empty() {
            return nudge;
        }
        times[i % times.len()].saturating_add(nudge)
    };
    let near = pick.clone();
    let constant = (0usize..64, -1i64..=1).prop_map(move |(i, d)| pick(i, d));
    // Times of one page with a hole between them: discrete filters whose
    // first and last match hold a row that does not.
    let holes = (0usize..64, 2usize..4).prop_map(move |(i, gap)| vec![near(i, 0), near(i + gap, 0)]);
    let c2 = constant.clone();
    let leaf = prop_oneof![
        constant.clone().prop_map(TimeFilter::Gt),
        constant.clone().prop_map(TimeFilter::GtEq),
        constant.clone().prop_map(TimeFilter::Lt),
        constant.clone().prop_map(TimeFilter::LtEq),
        constant.clone().prop_map(TimeFilter::Eq),
        constant.clone().prop_map(TimeFilter::NotEq),
        (constant.clone(), c2.clone()).prop_map(|(a, b)| TimeFilter::Between(a.min(b), a.max(b))),
        (constant.clone(), c2.clone()).prop_map(|(a, b)| TimeFilter::NotBetween(a.min(b), a.max(b))),
        prop::collection::vec(constant.clone(), 0..4).prop_map(TimeFilter::In),
        prop::collection::vec(c2, 0..4).prop_map(TimeFilter::NotIn),
    ];
    let tree = leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| TimeFilter::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| TimeFilter::Or(Box::new(a), Box::new(b))),
            inner.prop_map(|a| TimeFilter::Not(Box::new(a))),
        ]
    });
    prop_oneof![3 => tree, 1 => holes.prop_map(TimeFilter::In)]
}

fn case_strategy() -> impl Strategy<Value = Case> {
    times_strategy().prop_flat_map(|(times, page_sizes)| {
        let n = times.len();
        // Mostly INT64: in-place decode needs every requested column
        // fixed-width.
        let column = prop_oneof![
            1 => Just(None),
            4 => prop::collection::vec(prop::option::weighted(0.7, -3i64..3), n).prop_map(|v| Some(Cells::Int64(v))),
            1 => prop::collection::vec(prop::option::weighted(0.7, prop::collection::vec(b'a'..b'd', 0..3)), n)
                .prop_map(|v| Some(Cells::Text(v))),
        ];
        (
            prop::collection::vec(column, 1..4),
            prop::option::weighted(0.6, time_filter(times.clone())),
            // In-place decode needs no offset left: half the cases have none.
            (prop_oneof![Just(0u64), 0u64..(n as u64 + 3)], prop::option::of(0u64..(n as u64 + 3))),
            (1usize..24, any::<(bool, bool, bool, bool, bool, bool)>(), 0u8..5),
            prop::collection::vec(0usize..3, 0..4),
            (Just((times, page_sizes)), prop::bool::weighted(0.3)),
        )
    })
    .prop_map(
        |(columns, time, (offset, limit), (block_rows, (b, d, o, empty_pages, compressed, statistics), field), requested, ((times, page_sizes), in_place))| {
            // A third of the cases as in-place decode needs them: no FIELD
            // filter, no offset or limit, the switch on.
            let (field, offset, limit, d) = if in_place { (0, 0, None, true) } else { (field, offset, limit, d) };
            let width = columns.len();
            let field = match field {
                0 | 1 => None,
                2 => Some(FieldFilter { column: 0, op: FieldOp::IsNull }),
                3 => Some(FieldFilter { column: width - 1, op: FieldOp::IsNotNull }),
                _ => Some(FieldFilter {
                    column: 0,
                    op: FieldOp::Cmp(
                        CmpOp::GtEq,
                        match &columns[0] {
                            Some(Cells::Text(_)) => Value::Bytes(b"b".to_vec()),
                            _ => Value::I64(0),
                        },
                    ),
                }),
            };
            Case {
                times,
                page_sizes,
                requested: requested.into_iter().map(|c| c % width).collect(),
                columns,
                empty_pages,
                time,
                field,
                offset,
                limit: limit.filter(|_| offset % 2 == 0),
                block_rows,
                options: ScanOptions { bulk_copy: b, direct_decode: d, offset_pushdown: o, value_pruning: o },
                compressed,
                statistics,
            }
        },
    )
}

/// Blocks as a caller hands them back: rows left in them, more or fewer
/// columns than a scan needs, of other types.
fn used_blocks() -> Vec<Block> {
    let column = |data: Data| Column {
        valid: vec![true; data.len()],
        data,
    };
    vec![
        Block {
            times: vec![5; 30],
            columns: (0..5).map(|_| column(Data::I64(vec![9; 30]))).collect(),
        },
        Block {
            times: vec![5, 6],
            columns: vec![
                column(Data::Bytes(vec![b"x".to_vec(), vec![]])),
                column(Data::Bool(vec![true, false])),
            ],
        },
    ]
}

fn run(case: &Case) -> (ScanOutput, Vec<Vec<Row>>) {
    let (time, values) = case.chunks();
    let chunk = |data_type, data| Chunk {
        data_type,
        encoding: Encoding::Plain,
        compression: if case.compressed { 7 } else { 0 },
        page_statistics: case.statistics,
        data,
    };
    let group = Group {
        time: chunk(ColumnType::Int64, &time),
        values: case
            .columns
            .iter()
            .zip(&values)
            .map(|(c, data)| {
                c.as_ref().map(|c| match c {
                    Cells::Int64(_) => chunk(ColumnType::Int64, data),
                    Cells::Text(_) => chunk(ColumnType::Text, data),
                })
            })
            .collect(),
    };
    let request = Request {
        filter: Filter {
            time: case.time.clone(),
            field: case.field.clone(),
        },
        offset: case.offset,
        limit: case.limit,
        columns: case.requested.clone(),
        block_rows: case.block_rows,
        writer: Writer::Cpp,
    };
    let out = scan_with(&group, &request, case.options, &Reversed);
    // Through a pool of used blocks of other shapes and types (two scans:
    // the second takes the first's blocks back): the same output.
    let mut pool = BlockPool::new();
    pool.recycle(used_blocks());
    for _ in 0..2 {
        let pooled = scan_reusing(&group, &request, case.options, &Reversed, &mut pool);
        assert_eq!(pooled.result, out.result, "through a pool, {case:?}");
        pool.recycle(pooled.result.unwrap_or_default());
    }
    let got = match &out.result {
        Ok(blocks) => blocks
            .iter()
            .map(|b| {
                let (times, columns) = b.canonical();
                times
                    .iter()
                    .enumerate()
                    .map(|(r, &t)| (t, columns.iter().map(|c| c[r].clone()).collect()))
                    .collect()
            })
            .collect(),
        Err(e) => panic!("{e} for {case:?}"),
    };
    (out, got)
}

proptest! {
    // Under Miri (which runs these to check the page decoders' `unsafe`
    // beneath the scanner) a few cases; a third of the 600 are needed for
    // the in-place paths to be hit often enough to bite.
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 6 } else { 600 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn scans_match_the_naive_oracle(case in case_strategy()) {
        let (out, got) = run(&case);
        prop_assert_eq!(&got, &case.expected(), "plan {:?}", out.stats.plan);
        let s = &out.stats;
        let count = |f: fn(&PageAction) -> bool| s.plan.iter().filter(|a| f(a)).count();
        prop_assert_eq!(
            (s.pages_skipped, s.pages_full_pass, s.boundary_bulk, s.boundary_row_by_row, s.pages_in_place,
             s.pages_not_reached, s.pages_offset_skipped),
            (
                count(|a| matches!(a, PageAction::Skip | PageAction::NoMatch)),
                count(|a| matches!(a, PageAction::FullPass { .. })),
                count(|a| matches!(a, PageAction::Boundary { bulk: true, .. })),
                count(|a| matches!(a, PageAction::Boundary { bulk: false, .. })),
                count(|a| matches!(a, PageAction::FullPass { in_place: true })),
                count(|a| matches!(a, PageAction::NotReached)),
                count(|a| matches!(a, PageAction::OffsetSkip)),
            )
        );
        prop_assert_eq!(s.plan.len(), case.page_sizes.len());
        // Each optimization only where its switch allows it.
        prop_assert!(case.options.bulk_copy || s.boundary_bulk == 0);
        prop_assert!(case.options.direct_decode || s.pages_in_place == 0);
        prop_assert!(case.options.offset_pushdown || s.pages_offset_skipped == 0);
        prop_assert_eq!(s.skipped_by_value_statistics, count(|a| matches!(a, PageAction::ValueSkip)));
        prop_assert!(case.options.value_pruning || s.skipped_by_value_statistics == 0);
        prop_assert!(case.field.is_some() || s.skipped_by_value_statistics == 0);
        prop_assert!(case.field.is_none() || s.boundary_bulk + s.pages_in_place + s.pages_offset_skipped == 0);
        prop_assert!(case.statistics || !s.plan.contains(&PageAction::Skip));
        // No in-place decode into a variable-length column.
        let text = case.requested.iter().any(|&c| matches!(case.columns[c], Some(Cells::Text(_))));
        prop_assert!(!text || s.pages_in_place == 0);
        // Once the limit is reached, no later page is read.
        if let Some(limit) = case.limit {
            let mut taken = 0u64;
            let mut reached = limit == 0;
            let mut at = 0;
            let rows: Vec<usize> = (0..case.times.len())
                .filter(|&r| case.time.as_ref().is_none_or(|f| holds(f, case.times[r])))
                .filter(|&r| {
                    let cell = case.field.as_ref().map(|f| case.columns[f.column].as_ref().and_then(|c| c.cell(r)));
                    case.field.as_ref().is_none_or(|f| field_holds(&f.op, cell.flatten()))
                })
                .collect();
            let mut seen = 0u64;
            for (p, &n) in case.page_sizes.iter().enumerate() {
                if reached {
                    prop_assert_eq!(s.plan[p], PageAction::NotReached, "page {}", p);
                }
                let matching = rows.iter().filter(|&&r| r >= at && r < at + n).count() as u64;
                at += n;
                // Rows past the offset, then within the limit.
                let past_offset = (seen + matching).saturating_sub(case.offset.max(seen)).min(matching);
                seen += matching;
                taken += past_offset;
                reached = reached || taken >= limit;
            }
        }
    }
}
