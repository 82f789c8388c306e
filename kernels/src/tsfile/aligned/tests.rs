//! Hand-built chunk groups (PLAIN pages written here, from the format
//! notes) through the kernel scanner, and the plan each one gets.

use super::*;

fn uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn header(out: &mut Vec<u8>, body_len: usize, count: usize, start: i64, end: i64) {
    uvarint(out, body_len as u64);
    uvarint(out, body_len as u64);
    uvarint(out, count as u64);
    out.extend_from_slice(&start.to_be_bytes());
    out.extend_from_slice(&end.to_be_bytes());
}

/// A PLAIN time page with truthful statistics.
fn time_page(times: &[i64]) -> Vec<u8> {
    let body: Vec<u8> = times.iter().flat_map(|t| t.to_be_bytes()).collect();
    let mut out = Vec::new();
    header(&mut out, body.len(), times.len(), times[0], times[times.len() - 1]);
    out.extend(body);
    out
}

/// A PLAIN INT64 value page (40 bytes of typed statistics).
fn int64_page(times: &[i64], cells: &[Option<i64>]) -> Vec<u8> {
    let mut body = (cells.len() as i32).to_be_bytes().to_vec();
    let mut bitmap = vec![0u8; cells.len().div_ceil(8)];
    for (r, c) in cells.iter().enumerate() {
        if c.is_some() {
            bitmap[r / 8] |= 0x80 >> (r % 8);
        }
    }
    body.extend(bitmap);
    for v in cells.iter().flatten() {
        body.extend_from_slice(&v.to_be_bytes());
    }
    let mut out = Vec::new();
    header(
        &mut out,
        body.len(),
        cells.iter().flatten().count(),
        times[0],
        times[times.len() - 1],
    );
    out.extend([0u8; 40]);
    out.extend(body);
    out
}

/// 5 pages of 8 rows at times 0..40; column 0 = t * 100, null when t % 5 == 0.
fn chunks() -> (Vec<u8>, Vec<u8>) {
    let (mut t, mut v) = (Vec::new(), Vec::new());
    for p in 0..5i64 {
        let times: Vec<i64> = (p * 8..p * 8 + 8).collect();
        let cells: Vec<Option<i64>> = times.iter().map(|&t| (t % 5 != 0).then_some(t * 100)).collect();
        t.extend(time_page(&times));
        v.extend(int64_page(&times, &cells));
    }
    (t, v)
}

fn group<'a>(t: &'a [u8], v: &'a [u8]) -> Group<'a> {
    Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, t),
        values: vec![Some(Chunk::plain(ColumnType::Int64, Encoding::Plain, v)), None],
    }
}

fn request(time: Option<TimeFilter>, block_rows: usize) -> Request {
    Request {
        filter: Filter { time, field: None },
        offset: 0,
        limit: None,
        columns: vec![0, 1],
        block_rows,
    }
}

/// Times and column 0 of every block, in order.
fn rows(out: &ScanOutput) -> Vec<(i64, Option<Value>)> {
    let blocks = out.result.as_ref().expect("scan ok");
    blocks
        .iter()
        .flat_map(|b| {
            let (times, columns) = b.canonical();
            times.into_iter().zip(columns[0].clone())
        })
        .collect()
}

fn expected(keep: impl Fn(i64) -> bool) -> Vec<(i64, Option<Value>)> {
    (0..40)
        .filter(|&t| keep(t))
        .map(|t| (t, (t % 5 != 0).then_some(Value::I64(t * 100))))
        .collect()
}

#[test]
fn contiguous_window_bulk_copies_boundary_pages_and_skips_the_rest() {
    let (t, v) = chunks();
    let g = group(&t, &v);
    let out = scan(
        &g,
        &request(Some(TimeFilter::Between(10, 29)), 1000),
        ScanOptions::default(),
    );
    assert_eq!(rows(&out), expected(|t| (10..=29).contains(&t)));
    use PageAction::*;
    assert_eq!(
        out.stats.plan,
        [
            Skip,
            Boundary {
                row_begin: 2,
                row_end: 8,
                bulk: true
            },
            FullPass { in_place: false },
            Boundary {
                row_begin: 0,
                row_end: 6,
                bulk: true
            },
            Skip,
        ]
    );
    assert_eq!((out.stats.pages_skipped, out.stats.boundary_bulk), (2, 2));
}

#[test]
fn discrete_and_field_filters_stay_row_by_row() {
    let (t, v) = chunks();
    let g = group(&t, &v);
    let r = request(Some(TimeFilter::In(vec![3, 12, 13, 39])), 3);
    let out = scan(&g, &r, ScanOptions::default());
    assert_eq!(rows(&out), expected(|t| [3, 12, 13, 39].contains(&t)));
    assert_eq!(out.stats.boundary_bulk, 0);
    assert_eq!(out.stats.boundary_row_by_row, 3);
    let mut r = request(Some(TimeFilter::Between(10, 29)), 7);
    r.filter.field = Some(FieldFilter {
        column: 0,
        op: FieldOp::IsNotNull,
    });
    let out = scan(&g, &r, ScanOptions::default());
    assert_eq!(rows(&out), expected(|t| (10..=29).contains(&t) && t % 5 != 0));
    assert_eq!((out.stats.boundary_bulk, out.stats.pages_in_place), (0, 0));
}

#[test]
fn no_filter_decodes_leading_pages_in_place_and_resumes_across_blocks() {
    let (t, v) = chunks();
    let g = group(&t, &v);
    for block_rows in [1, 7, 8, 9, 16, 40, 1000] {
        let out = scan(&g, &request(None, block_rows), ScanOptions::default());
        assert_eq!(rows(&out), expected(|_| true), "block_rows {block_rows}");
        let blocks = out.result.as_ref().unwrap();
        assert!(blocks.iter().all(|b| b.rows() <= block_rows && b.rows() > 0));
        // In place exactly when whole pages fit the blocks from their start.
        match block_rows {
            1 | 7 => assert_eq!(out.stats.pages_in_place, 0),
            9 => assert!((1..5).contains(&out.stats.pages_in_place)),
            _ => assert_eq!(out.stats.pages_in_place, 5, "block_rows {block_rows}"),
        }
        let baseline = scan(&g, &request(None, block_rows), ScanOptions::baseline());
        assert_eq!(rows(&baseline), rows(&out));
        assert_eq!(baseline.stats.pages_in_place, 0);
    }
}

#[test]
fn lying_statistics_are_a_typed_error_where_the_page_is_decoded() {
    let (mut t, v) = chunks();
    // Page 2's header says its first time is 17; its body says 16 (still
    // after page 1's end: only decoding can tell).
    let page_len = time_page(&[0; 8]).len();
    let start_at = 2 * page_len + 3;
    t[start_at..start_at + 8].copy_from_slice(&17i64.to_be_bytes());
    let g = group(&t, &v);
    let out = scan(&g, &request(None, 100), ScanOptions::default());
    assert_eq!(
        out.result,
        Err(ScanError {
            kind: ErrorKind::StatisticsLie,
            chunk: ChunkId::Time,
            page: 2,
            offset: 2 * page_len
        })
    );
    // A window that skips page 2 by its statistics never reads it.
    let out = scan(&g, &request(Some(TimeFilter::Lt(10)), 100), ScanOptions::default());
    assert_eq!(rows(&out), expected(|t| t < 10));
    assert_eq!(out.stats.plan[2], PageAction::Skip);
}

#[test]
fn malformed_value_pages_never_panic() {
    let (t, v) = chunks();
    for cut in 0..v.len() {
        let g = group(&t, &v[..cut]);
        let out = scan(&g, &request(None, 5), ScanOptions::default());
        assert!(out.result.is_err(), "cut at {cut}");
    }
}

/// A stand-in codec (id 7: the stored body is the body reversed) that
/// counts the pages it decompresses.
#[derive(Default)]
struct Reversed {
    calls: std::cell::Cell<usize>,
}

impl Decompress for Reversed {
    fn decompress(&self, compression: u8, body: &[u8], _: usize) -> Result<Vec<u8>, String> {
        self.calls.set(self.calls.get() + 1);
        match compression {
            7 => Ok(body.iter().rev().copied().collect()),
            _ => Err(format!("unknown compression {compression}")),
        }
    }
}

/// `data` (an uncompressed chunk with statistics) with every body reversed
/// (`compress`) and / or its headers without statistics.
fn restored(data: &[u8], value_type: Option<ColumnType>, compress: bool, statistics: bool) -> Vec<u8> {
    let pages = page::directory(data, ChunkId::Time, value_type, false, true).unwrap();
    let mut out = Vec::new();
    for page in pages {
        let body = &data[page.body_at..page.body_at + page.body_len];
        let stored: Vec<u8> = if compress {
            body.iter().rev().copied().collect()
        } else {
            body.to_vec()
        };
        let sizes = out.len();
        uvarint(&mut out, body.len() as u64);
        uvarint(&mut out, body.len() as u64);
        let sizes = out.len() - sizes;
        if statistics {
            out.extend_from_slice(&data[page.header_at + sizes..page.body_at]);
        }
        out.extend(stored);
    }
    out
}

/// The test group stored another way: compression id, statistics.
fn stored_group<'a>(t: &'a [u8], v: &'a [u8], compression: u8, statistics: bool) -> Group<'a> {
    let chunk = |data| Chunk {
        compression,
        page_statistics: statistics,
        ..Chunk::plain(ColumnType::Int64, Encoding::Plain, data)
    };
    Group {
        time: chunk(t),
        values: vec![Some(chunk(v)), None],
    }
}

#[test]
fn compressed_and_unannotated_chunks_read_as_the_plain_chunk() {
    let (t, v) = chunks();
    let plain = group(&t, &v);
    let filters = [
        None,
        Some(TimeFilter::Between(10, 29)),
        Some(TimeFilter::In(vec![3, 12, 39])),
        Some(TimeFilter::Gt(100)),
    ];
    for (compress, statistics) in [(true, true), (false, false), (true, false)] {
        let st = restored(&t, None, compress, statistics);
        let sv = restored(&v, Some(ColumnType::Int64), compress, statistics);
        let g = stored_group(&st, &sv, if compress { 7 } else { 0 }, statistics);
        for f in &filters {
            for options in [ScanOptions::default(), ScanOptions::baseline()] {
                let r = request(f.clone(), 6);
                let codec = Reversed::default();
                let out = scan_with(&g, &r, options, &codec);
                assert_eq!(
                    rows(&out),
                    rows(&scan(&plain, &r, options)),
                    "{f:?} {compress} {statistics}"
                );
                if compress && statistics {
                    // Only pages the plan decodes are decompressed (time
                    // pages of NoMatch, both chunks' pages of the rest).
                    let decoded: usize = out
                        .stats
                        .plan
                        .iter()
                        .map(|a| a.decoded(ChunkId::Time) as usize + a.decoded(ChunkId::Value(0)) as usize)
                        .sum();
                    assert_eq!(codec.calls.get(), decoded, "{f:?}");
                }
            }
        }
    }
}

#[test]
fn pages_without_statistics_are_planned_from_their_times() {
    let (t, v) = chunks();
    let st = restored(&t, None, false, false);
    let sv = restored(&v, Some(ColumnType::Int64), false, false);
    let g = stored_group(&st, &sv, 0, false);
    let out = scan(
        &g,
        &request(Some(TimeFilter::Between(10, 29)), 1000),
        ScanOptions::default(),
    );
    use PageAction::*;
    assert_eq!(
        out.stats.plan,
        [
            NoMatch,
            Boundary {
                row_begin: 2,
                row_end: 8,
                bulk: true
            },
            FullPass { in_place: false },
            Boundary {
                row_begin: 0,
                row_end: 6,
                bulk: true
            },
            NoMatch,
        ]
    );
    let out = scan(&g, &request(None, 1000), ScanOptions::default());
    assert_eq!(out.stats.pages_in_place, 5);
    assert_eq!(rows(&out), expected(|_| true));
}

#[test]
fn decompression_failures_are_typed_errors_at_the_body() {
    let (t, v) = chunks();
    let st = restored(&t, None, true, true);
    let sv = restored(&v, Some(ColumnType::Int64), true, true);
    let g = stored_group(&st, &sv, 7, true);
    let out = scan(&g, &request(None, 10), ScanOptions::default());
    let err = out.result.unwrap_err();
    assert_eq!((err.chunk, err.page, err.offset), (ChunkId::Time, 0, 19));
    assert!(
        matches!(&err.kind, ErrorKind::Decompress(why) if why.contains("id 7")),
        "{err}"
    );
    let g = stored_group(&st, &sv, 9, true);
    let out = scan_with(&g, &request(None, 10), ScanOptions::default(), &Reversed::default());
    assert!(matches!(out.result.unwrap_err().kind, ErrorKind::Decompress(_)));
}

#[test]
fn binary_statistics_are_as_long_as_their_type_writes_them() {
    // A header with count / start / end, then the type's statistics, then a
    // one-byte body.
    let page = |typed: &[u8]| {
        let mut out = Vec::new();
        header(&mut out, 1, 1, 4, 4);
        out.extend_from_slice(typed);
        out.push(0xEE);
        out
    };
    let string = |s: &[u8]| [&(s.len() as u32).to_be_bytes()[..], s].concat();
    let text = page(&[string(b"ab"), string(b"")].concat());
    let string4 = page(&[string(b"ab"), string(b""), string(b"a"), string(b"ab")].concat());
    let blob = page(&[]);
    for (t, data) in [
        (ColumnType::Text, &text),
        (ColumnType::String, &string4),
        (ColumnType::Blob, &blob),
    ] {
        let pages = page::directory(data, ChunkId::Value(0), Some(t), false, true).unwrap();
        assert_eq!((pages.len(), &data[pages[0].body_at..]), (1, &[0xEE][..]), "{t:?}");
    }
    // TEXT's page read as STRING: the body byte starts a third length.
    let err = page::directory(&text, ChunkId::Value(0), Some(ColumnType::String), false, true).unwrap_err();
    assert_eq!((err.kind, err.offset), (ErrorKind::TruncatedHeader, text.len() - 1));
}

#[test]
fn pages_the_offset_swallows_whole_are_not_decoded() {
    let (t, v) = chunks();
    let g = group(&t, &v);
    use PageAction::*;
    for offset in [0u64, 7, 8, 16, 17, 39, 40, 41] {
        let mut r = request(None, 100);
        r.offset = offset;
        let out = scan(&g, &r, ScanOptions::default());
        assert_eq!(rows(&out), expected(|t| t >= offset as i64), "offset {offset}");
        let whole = (offset / 8).min(5) as usize;
        assert_eq!(out.stats.pages_offset_skipped, whole, "offset {offset}");
        assert!(out.stats.plan[..whole].iter().all(|a| *a == OffsetSkip));
        let baseline = scan(&g, &r, ScanOptions::baseline());
        assert_eq!(rows(&baseline), rows(&out));
        assert_eq!(baseline.stats.pages_offset_skipped, 0);
    }
    // Only full-pass pages, and never under a FIELD filter.
    let mut r = request(Some(TimeFilter::GtEq(4)), 100);
    r.offset = 12;
    let out = scan(&g, &r, ScanOptions::default());
    assert_eq!(rows(&out), expected(|t| t >= 16));
    assert_eq!(
        out.stats.plan[..2],
        [
            Boundary {
                row_begin: 4,
                row_end: 8,
                bulk: true
            },
            OffsetSkip
        ]
    );
    r.filter.field = Some(FieldFilter {
        column: 1,
        op: FieldOp::IsNull,
    });
    let out = scan(&g, &r, ScanOptions::default());
    assert_eq!(out.stats.pages_offset_skipped, 0);
    // A lying count is trusted like a lying range: the page is not read.
    let (mut t, v) = chunks();
    t[2] = 9; // page 0's count: 8 -> 9
    let g = group(&t, &v);
    let mut r = request(None, 100);
    r.offset = 9;
    let out = scan(&g, &r, ScanOptions::default());
    assert_eq!(out.stats.plan[0], OffsetSkip);
    assert_eq!(rows(&out), expected(|t| t >= 8));
}
