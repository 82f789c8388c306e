//! Hand-built chunk groups (PLAIN pages written here, from the format
//! notes) through the kernel scanner, and the plan each one gets.

use super::*;

/// The page-row bound these tests give the scanner (the default is the
/// format's u32::MAX): small enough that "one past it" is cheap to build.
const MAX_PAGE_ROWS: usize = 1 << 20;

/// No codec, and [`MAX_PAGE_ROWS`] rows a page at most.
struct Capped;

impl Decompress for Capped {
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        NoDecompress.decompress(compression, body, size)
    }
    fn max_page_rows(&self) -> usize {
        MAX_PAGE_ROWS
    }
}

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
    // min, max (checked where the page is decoded, in the FIELD filter's
    // column), first, last, sum.
    let min = cells.iter().flatten().min().copied().unwrap_or(0);
    let max = cells.iter().flatten().max().copied().unwrap_or(0);
    out.extend(min.to_be_bytes());
    out.extend(max.to_be_bytes());
    out.extend([0u8; 24]);
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
        writer: Writer::Cpp,
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
            // Whole and in the block's room: in place, after a bulk copy.
            FullPass { in_place: true },
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
fn no_filter_decodes_whole_pages_in_place_and_resumes_across_blocks() {
    let (t, v) = chunks();
    let g = group(&t, &v);
    for block_rows in [1, 7, 8, 9, 16, 40, 1000] {
        let out = scan(&g, &request(None, block_rows), ScanOptions::default());
        assert_eq!(rows(&out), expected(|_| true), "block_rows {block_rows}");
        let blocks = out.result.as_ref().unwrap();
        assert!(blocks.iter().all(|b| b.rows() <= block_rows && b.rows() > 0));
        // In place exactly when a whole page fits the current block's room.
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
            // Whole and in the block's room: in place, after a bulk copy.
            FullPass { in_place: true },
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

// The encodings beyond the first seven (SPRINTZ, RLBE, CAMEL, TS_2DIFF on
// FLOAT / DOUBLE), on pages the official C++ writer (PyPI tsfile 2.5) wrote
// (the bytes in `docs/reference/tsfile-encodings.md` and the reference decoders'
// `official_writer_pages` tests).

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The per-type statistics of a page whose non-null values are `values`:
/// min and max as the writers compute them (the first sets both, then
/// `v < min`, `v > max`), zeros for first, last and sum (unchecked).
fn typed_of(t: ColumnType, values: &[Value]) -> Vec<u8> {
    let wide = matches!(t, ColumnType::Int64 | ColumnType::Timestamp | ColumnType::Double);
    let num = |v: &Value| match v {
        Value::I32(x) => *x as f64,
        Value::I64(x) => *x as f64,
        Value::F32(x) => f32::from_bits(*x) as f64,
        Value::F64(x) => f64::from_bits(*x),
        _ => 0.0,
    };
    let (mut lo, mut hi) = (0usize, 0usize);
    for (i, v) in values.iter().enumerate() {
        if num(v) < num(&values[lo]) {
            lo = i;
        }
        if num(v) > num(&values[hi]) {
            hi = i;
        }
    }
    // Integers compared as f64 here: exact for the values these tests use.
    let bytes = |v: Option<&Value>| -> Vec<u8> {
        match v {
            Some(Value::I32(x)) => x.to_be_bytes().to_vec(),
            Some(Value::I64(x)) => x.to_be_bytes().to_vec(),
            Some(Value::F32(x)) => x.to_be_bytes().to_vec(),
            Some(Value::F64(x)) => x.to_be_bytes().to_vec(),
            _ => vec![0; if wide { 8 } else { 4 }],
        }
    };
    let mut out = [bytes(values.get(lo)), bytes(values.get(hi))].concat();
    out.resize(if wide { 40 } else { 24 }, 0);
    out
}

/// A value page of `present.len()` rows at `times` whose encoded non-null
/// values are `encoded` (statistics: the present count, the min and max of
/// `values`, the values written).
fn encoded_page(t: ColumnType, times: &[i64], present: &[bool], encoded: &[u8], values: &[Value]) -> Vec<u8> {
    encoded_page_typed(times, present, encoded, typed_of(t, values))
}

/// [`encoded_page`] with the per-type statistics `typed` as given.
fn encoded_page_typed(times: &[i64], present: &[bool], encoded: &[u8], typed: Vec<u8>) -> Vec<u8> {
    let mut body = (present.len() as i32).to_be_bytes().to_vec();
    let mut bitmap = vec![0u8; present.len().div_ceil(8)];
    for (r, &p) in present.iter().enumerate() {
        if p {
            bitmap[r / 8] |= 0x80 >> (r % 8);
        }
    }
    body.extend(bitmap);
    body.extend_from_slice(encoded);
    let mut out = Vec::new();
    header(
        &mut out,
        body.len(),
        present.iter().filter(|&&p| p).count(),
        times[0],
        times[times.len() - 1],
    );
    out.extend(typed);
    out.extend(body);
    out
}

fn f32v(x: f32) -> Value {
    Value::F32(x.to_bits())
}

fn f64v(x: f64) -> Value {
    Value::F64(x.to_bits())
}

/// Pages of the official writer and the values its reader returned.
fn official_pages() -> Vec<(ColumnType, Encoding, &'static str, Vec<Value>)> {
    use ColumnType::*;
    vec![
        (
            Int32,
            Encoding::Sprintz,
            "01 01 ff 81 07 04 03 01 a0 00 00 00",
            (1..=10).map(Value::I32).collect(),
        ),
        (
            Date,
            Encoding::Sprintz,
            "0b 00 f9 ff 3c 17 f7 20 5f dc 81 7f 72",
            (0..9).map(|i| Value::I32(i * 1000)).collect(),
        ),
        (
            Int64,
            Encoding::Sprintz,
            "0b 00 00 00 00 00 00 00 00 f9 ff 3f e6 fc 9f 8b f0 7d ef b9",
            (0..9).map(|i| Value::I64(i * 1000)).collect(),
        ),
        (
            Float,
            Encoding::Sprintz,
            "01 3f 80 00 00 00 81 40 20 00 00 c4 8f f8",
            [[1.0f32; 9].to_vec(), vec![2.5]].concat().into_iter().map(f32v).collect(),
        ),
        (
            Int32,
            Encoding::Rlbe,
            "00 00 00 04 0f a0 b6 0d ff ff ff f8",
            [5, 5, 6, 4].map(Value::I32).to_vec(),
        ),
        (
            Int32,
            Encoding::Rlbe,
            "00 00 00 03 13 a8 1b ff ff ff fb ff ff ff f8",
            [10, 9, 8].map(Value::I32).to_vec(),
        ),
        (Timestamp, Encoding::Rlbe, "00 00 00 02 02 f0", [1, 2].map(Value::I64).to_vec()),
        (
            Float,
            Encoding::Rlbe,
            "00 00 00 03 7b ff 00 00 01 7e 00 00 04 1b fc 00 00 00",
            [1.5f32, 2.0, 1.0].map(f32v).to_vec(),
        ),
        (
            Double,
            Encoding::Rlbe,
            "00 00 00 03 7d ff f0 00 00 00 00 00 00 d3 80 00 00 00 00 00 08 1b ff 80 00 00 00 00 00 00",
            [1.5, 2.0, 1.0].map(f64v).to_vec(),
        ),
        (
            Double,
            Encoding::Camel,
            "bc 03 3f f8 00 00 00 00 00 00 41 06 80 60 80 00 30 0c bf fa 14 52 00 80 00 01 91 02 0c 00",
            [1.5, 2.25, -3.0, f64::INFINITY, 0.125, 0.0, 100.5].map(f64v).to_vec(),
        ),
        (
            Float,
            Encoding::Ts2Diff,
            "02 00 00 00 02 00 00 00 09 ff ff ff 1e 00 00 00 96 96 80 00",
            [1.5f32, 2.25, -0.01].map(f32v).to_vec(),
        ),
        (
            Float,
            Encoding::Ts2Diff,
            "ff ff ff ff 07 02 01 02 00 00 00 01 00 00 00 00 01 c9 c3 1c 00 00 00 64",
            [1.0f32, 3.0e7].map(f32v).to_vec(),
        ),
        (
            Float,
            Encoding::Ts2Diff,
            "fe ff ff ff 07 03 06 01 02 00 00 00 02 00 00 00 1f 80 9e 4d b6 7f 61 b1 e6 00 00 00 01 fd 86 ce a0",
            [3.0e38f32, -1.0, 2.5].map(f32v).to_vec(),
        ),
        (
            Double,
            Encoding::Ts2Diff,
            "fe ff ff ff 07 04 0b 04 02 00 00 00 03 00 00 00 40 81 c8 1b c3 77 ff 8a 71 00 00 00 00 00 00 00 fa 7e 37 e4 3c 88 00 73 9b fc 6f c8 79 10 00 ec 25 00 00 00 00 00 00 00 00",
            [2.5, -2.5, 1e300, 0.13].map(f64v).to_vec(),
        ),
        (
            Double,
            Encoding::Ts2Diff,
            "fe ff ff ff 07 02 02 01 02 00 00 00 01 00 00 00 00 80 08 00 00 00 00 00 64 7f f8 00 00 00 00 00 00",
            [f64::NAN, 1.0].map(f64v).to_vec(),
        ),
        // SPRINTZ DOUBLE whose last prediction's product passes 2^63: the
        // C++ predictor's reading (Java's last value would be
        // 0xfff0_0090_0048_0946).
        (
            Double,
            Encoding::Sprintz,
            CPP_SPRINTZ_PAGE,
            CPP_SPRINTZ_VALUES.map(Value::F64).to_vec(),
        ),
        (
            Int64,
            Encoding::Sprintz,
            CPP_SPRINTZ_PAGE,
            CPP_SPRINTZ_VALUES.map(|b| Value::I64(b as i64)).to_vec(),
        ),
        // REGULAR pages the Java writer wrote (apache/tsfile a9f54614) and
        // what its reader returned; the second the lossy page of [0, 5, 7].
        (
            Int64,
            Encoding::Regular,
            "01 00 00 00 02 67 02 00 00 00 0a 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00",
            [0, 10, 20, 50, 60, 90].map(Value::I64).to_vec(),
        ),
        (
            Date,
            Encoding::Regular,
            "01 00 00 00 01 0d 00 00 00 04 00 00 00 02 00 00 00 00",
            [0, 4, 6].map(Value::I32).to_vec(),
        ),
        (
            Int32,
            Encoding::Regular,
            "01 00 00 00 02 33 02 00 00 00 0a 00 00 00 02 00 00 00 07",
            [7, 9, 15, 17, 25].map(Value::I32).to_vec(),
        ),
        (
            Timestamp,
            Encoding::Regular,
            "00 00 00 00 0a 00 00 00 00 00 00 03 e8 00 00 01 8b cf e5 68 00",
            (0..10).map(|i| Value::I64(1_700_000_000_000 + 1000 * i)).collect(),
        ),
    ]
}

const CPP_SPRINTZ_PAGE: &str =
    "40000fffffffffffff0000000000000001ffcfffffffffffffffd000000000000000000000000000000000000000000000\
     0000000000000002ffe00000000000010020000000000000";
const CPP_SPRINTZ_VALUES: [u64; 9] = [
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x0010_0018_0000_0000,
    0x000f_ffff_ffe8_0000,
    0x0010_0000_0000_0018,
    0x0010_0000_0048_0046,
    0x0000_0000_0047_ff26,
    0x0080_0090_0048_0946,
];

/// Two time pages of `2n` rows each (times 0.. step 1); the value chunk
/// holds the same page twice: the `n` values at the odd rows, nulls at the
/// even ones. Returns the chunks and the expected cells.
fn twice_with_nulls(t: ColumnType, encoded: &[u8], values: &[Value]) -> (Vec<u8>, Vec<u8>, Vec<Option<Value>>) {
    let n = values.len();
    let present: Vec<bool> = (0..2 * n).map(|r| r % 2 == 1).collect();
    let (mut time, mut value, mut cells) = (Vec::new(), Vec::new(), Vec::new());
    for p in 0..2 {
        let times: Vec<i64> = (0..2 * n as i64).map(|r| r + p * 2 * n as i64).collect();
        time.extend(time_page(&times));
        value.extend(encoded_page(t, &times, &present, encoded, values));
        cells.extend((0..2 * n).map(|r| (r % 2 == 1).then(|| values[r / 2].clone())));
    }
    (time, value, cells)
}

/// A time filter and which times it keeps.
type Window<'a> = (Option<TimeFilter>, &'a dyn Fn(i64) -> bool);

#[test]
fn new_encodings_read_pages_of_the_official_writer() {
    for (t, e, hex, values) in official_pages() {
        assert!(page::supported(t, e), "{t:?} {e:?}");
        let encoded = unhex(hex);
        let (time, value, cells) = twice_with_nulls(t, &encoded, &values);
        let g = Group {
            time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
            values: vec![Some(Chunk::plain(t, e, &value))],
        };
        let rows = cells.len() as i64;
        let between = move |t: i64| (1..=rows - 2).contains(&t);
        let listed = move |t: i64| [1, rows / 2, rows - 1].contains(&t);
        let filters: [Window<'_>; 3] = [
            (None, &|_| true),
            (Some(TimeFilter::Between(1, rows - 2)), &between),
            (Some(TimeFilter::In(vec![1, rows / 2, rows - 1])), &listed),
        ];
        for (time, keep) in filters {
            for field in [None, Some(FieldOp::IsNotNull)] {
                // Under Miri one size of block, which splits every page.
                let block_sizes: &[usize] = if cfg!(miri) { &[3] } else { &[1, 3, 1000] };
                for &block_rows in block_sizes {
                    let r = Request {
                        filter: Filter {
                            time: time.clone(),
                            field: field.clone().map(|op| FieldFilter { column: 0, op }),
                        },
                        offset: 0,
                        limit: None,
                        columns: vec![0],
                        block_rows,
                        writer: Writer::Cpp,
                    };
                    let want: Vec<(i64, Option<Value>)> = (0..rows)
                        .filter(|&t| keep(t))
                        .filter(|&t| field.is_none() || cells[t as usize].is_some())
                        .map(|t| (t, cells[t as usize].clone()))
                        .collect();
                    for options in [ScanOptions::default(), ScanOptions::baseline()] {
                        let out = scan(&g, &r, options);
                        assert_eq!(rows_of(&out), want, "{t:?} {e:?} {hex} {r:?} {options:?}");
                    }
                }
            }
        }
    }
}

/// Times and column 0 of every block (the scan must succeed).
fn rows_of(out: &ScanOutput) -> Vec<(i64, Option<Value>)> {
    match &out.result {
        Ok(_) => rows(out),
        Err(e) => panic!("scan failed: {e:?}"),
    }
}

#[test]
fn rlbe_floats_are_read_as_the_cpp_writer_writes_them() {
    // Java's page for FLOAT [1.5, 2.0, 1.0] (float differences) is not the
    // C++ writer's: read the C++ way it gives other values.
    let java = unhex("00 00 00 03 79 ff 80 00 01 f8 00 00 04 19 fc 00 00 00");
    let want = [1.5f32, 2.0, 1.0].map(f32v);
    let (time, value, cells) = twice_with_nulls(ColumnType::Float, &java, &want);
    let g = Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
        values: vec![Some(Chunk::plain(ColumnType::Float, Encoding::Rlbe, &value))],
    };
    let r = Request {
        columns: vec![0],
        ..request(None, 100)
    };
    // Other values, or (their min / max not those written) a lie.
    let out = scan(&g, &r, ScanOptions::default());
    match &out.result {
        Ok(_) => {
            let got: Vec<Option<Value>> = rows_of(&out).into_iter().map(|(_, c)| c).collect();
            assert_eq!(got.len(), cells.len());
            assert_ne!(got, cells);
        }
        Err(e) => assert_eq!((&e.kind, e.page), (&ErrorKind::StatisticsLie, 0)),
    }
}

#[test]
fn a_new_encoding_page_with_a_value_more_or_fewer_than_its_bitmap_is_an_error() {
    for (t, e, hex, values) in official_pages() {
        let encoded = unhex(hex);
        let n = values.len();
        for (rows, more_values) in [(n + 1, false), (n - 1, true)] {
            let times: Vec<i64> = (0..rows as i64).collect();
            let present = vec![true; rows];
            let time = time_page(&times);
            let value = encoded_page(t, &times, &present, &encoded, &values);
            let g = Group {
                time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
                values: vec![Some(Chunk::plain(t, e, &value))],
            };
            let r = Request {
                columns: vec![0],
                ..request(None, 100)
            };
            for options in [ScanOptions::default(), ScanOptions::baseline()] {
                let err = scan(&g, &r, options).result.unwrap_err();
                assert_eq!((err.chunk, err.page), (ChunkId::Value(0), 0), "{t:?} {e:?} {hex}");
                if more_values {
                    assert!(
                        matches!(&err.kind, ErrorKind::Decode(d) if d.starts_with("TooManyValues")),
                        "{t:?} {e:?} {hex}: {err:?}"
                    );
                } else {
                    assert_eq!(err.kind, ErrorKind::ValueCountMismatch, "{t:?} {e:?} {hex}");
                    assert_eq!(err.offset, value.len() - encoded.len());
                }
            }
        }
    }
}

#[test]
fn the_supported_pairs_include_every_pair_the_official_writers_write() {
    use ColumnType::*;
    let numeric = [Int32, Date, Int64, Timestamp, Float, Double];
    for t in [
        Boolean, Int32, Int64, Float, Double, Timestamp, Date, Text, String, Blob,
    ] {
        let is_numeric = numeric.contains(&t);
        for e in [Encoding::Ts2Diff, Encoding::Sprintz, Encoding::Rlbe] {
            assert_eq!(page::supported(t, e), is_numeric, "{t:?} {e:?}");
        }
        assert_eq!(page::supported(t, Encoding::Camel), t == Double, "{t:?}");
        let integer = matches!(t, Int32 | Date | Int64 | Timestamp);
        assert_eq!(page::supported(t, Encoding::Regular), integer, "{t:?}");
    }
    // RLE: BOOLEAN and the integer types (both writers), FLOAT and DOUBLE
    // (the Java writer's), nothing binary.
    for t in [Boolean, Int32, Int64, Float, Double, Timestamp, Date] {
        assert!(page::supported(t, Encoding::Rle), "{t:?}");
    }
    for t in [Text, String, Blob] {
        assert!(!page::supported(t, Encoding::Rle), "{t:?}");
    }
}

#[test]
fn what_a_plan_says_was_read_and_how_an_error_reads() {
    use PageAction::*;
    let boundary = Boundary {
        row_begin: 0,
        row_end: 1,
        bulk: false,
    };
    for (action, time, value) in [
        (Skip, false, false),
        (NotReached, false, false),
        (OffsetSkip, false, false),
        (NoMatch, true, false),
        (FullPass { in_place: true }, true, true),
        (boundary, true, true),
    ] {
        assert_eq!(action.decoded(ChunkId::Time), time, "{action:?}");
        assert_eq!(action.decoded(ChunkId::Value(3)), value, "{action:?}");
    }
    let e = ScanError {
        kind: ErrorKind::RowCountMismatch,
        chunk: ChunkId::Value(2),
        page: 4,
        offset: 77,
    };
    assert_eq!(e.to_string(), "RowCountMismatch in Value(2) chunk, page 4, byte 77");
}

#[test]
fn a_columns_data_says_its_length_and_kind() {
    use super::column::Data;
    let cases = [
        (Data::Bool(vec![true, false]), "Bool"),
        (Data::I32(vec![1, 2]), "I32"),
        (Data::I64(vec![1, 2]), "I64"),
        (Data::F32(vec![1.0, 2.0]), "F32"),
        (Data::F64(vec![1.0, 2.0]), "F64"),
        (Data::Bytes(vec![vec![1], vec![]]), "Bytes"),
    ];
    for (data, kind) in cases {
        assert_eq!((data.len(), data.is_empty(), data.kind()), (2, false, kind));
    }
    assert_eq!((Data::I64(vec![7]).len(), Data::I64(vec![7]).is_empty()), (1, false));
    let empty = Data::Bytes(Vec::new());
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
}

#[test]
fn every_supported_pair_has_its_decoder() {
    use super::column::{decode_into, Data};
    use ColumnType::*;
    let types = [
        Boolean, Int32, Int64, Float, Double, Timestamp, Date, Text, String, Blob,
    ];
    let encodings = [
        Encoding::Plain,
        Encoding::Ts2Diff,
        Encoding::Gorilla,
        Encoding::Rle,
        Encoding::Zigzag,
        Encoding::Chimp,
        Encoding::Dictionary,
        Encoding::Sprintz,
        Encoding::Rlbe,
        Encoding::Camel,
        Encoding::Regular,
    ];
    let mut pairs = 0;
    for t in types {
        for e in encodings {
            if !page::supported(t, e) {
                continue;
            }
            // No values from an empty body: whatever the decoder says, it
            // must be this pair's decoder that says it (a pair without one
            // reaches the unreachable arm).
            let mut out = Data::for_type(Some(t));
            let _ = decode_into(t, e, Writer::Cpp, &[], &mut out, 0..0, &mut Vec::new());
            pairs += 1;
        }
    }
    assert_eq!(pairs, 58);
}

/// RLE on FLOAT / DOUBLE (the Java writer's) is the scaled-integer wrapper
/// around an RLE stream: maxPointNumber 1, one RLE package of length 3, bit
/// width 8, a run of two 15s, so two values 1.5.
#[test]
fn rle_float_pages_are_scaled_integers() {
    use super::column::{decode_into, Data};
    let page = [0x01, 0x03, 0x08, 0x04, 0x0f];
    let mut out = Data::for_type(Some(ColumnType::Float));
    if let Data::F32(v) = &mut out {
        v.resize(3, 0.0);
    }
    assert_eq!(
        decode_into(
            ColumnType::Float,
            Encoding::Rle,
            Writer::Cpp,
            &page,
            &mut out,
            1..3,
            &mut Vec::new()
        ),
        Ok(2)
    );
    assert!(matches!(&out, Data::F32(v) if v == &[0.0, 1.5, 1.5]));
    let mut out = Data::for_type(Some(ColumnType::Double));
    if let Data::F64(v) = &mut out {
        v.resize(2, 0.0);
    }
    assert_eq!(
        decode_into(
            ColumnType::Double,
            Encoding::Rle,
            Writer::Cpp,
            &page,
            &mut out,
            0..2,
            &mut Vec::new()
        ),
        Ok(2)
    );
    assert!(matches!(&out, Data::F64(v) if v == &[1.5, 1.5]));
}

#[test]
fn field_comparisons_of_every_type() {
    use std::cmp::Ordering;
    let ops = [CmpOp::Lt, CmpOp::LtEq, CmpOp::Gt, CmpOp::GtEq, CmpOp::Eq, CmpOp::NotEq];
    let expect = |o: Ordering, op: CmpOp| match op {
        CmpOp::Lt => o.is_lt(),
        CmpOp::LtEq => o.is_le(),
        CmpOp::Gt => o.is_gt(),
        CmpOp::GtEq => o.is_ge(),
        CmpOp::Eq => o.is_eq(),
        CmpOp::NotEq => o.is_ne(),
    };
    // (smaller, larger) of each type.
    let pairs = [
        (Value::Bool(false), Value::Bool(true)),
        (Value::I32(-2), Value::I32(7)),
        (Value::I64(-2), Value::I64(7)),
        (Value::F32((-2.5f32).to_bits()), Value::F32(7.0f32.to_bits())),
        (Value::F64((-2.5f64).to_bits()), Value::F64(7.0f64.to_bits())),
        (Value::Bytes(b"ab".to_vec()), Value::Bytes(b"b".to_vec())),
    ];
    for (small, large) in &pairs {
        for op in ops {
            for (v, c, o) in [
                (small, large, Ordering::Less),
                (large, small, Ordering::Greater),
                (small, small, Ordering::Equal),
            ] {
                let f = FieldOp::Cmp(op, c.clone());
                assert_eq!(f.matches(Some(v)), expect(o, op), "{v:?} {op:?} {c:?}");
            }
            assert!(!FieldOp::Cmp(op, large.clone()).matches(None), "null");
        }
    }
    // NaN and a constant of another type compare false, `!=` included.
    let nan = Value::F64(f64::NAN.to_bits());
    for op in ops {
        assert!(!FieldOp::Cmp(op, Value::F64(1.0f64.to_bits())).matches(Some(&nan)));
        assert!(!FieldOp::Cmp(op, Value::I32(1)).matches(Some(&Value::I64(1))));
    }
    assert!(FieldOp::IsNull.matches(None) && !FieldOp::IsNull.matches(Some(&nan)));
    assert!(FieldOp::IsNotNull.matches(Some(&nan)) && !FieldOp::IsNotNull.matches(None));
}

#[test]
fn may_match_is_exact_for_nested_trees() {
    use TimeFilter::*;
    let f = Or(Box::new(Lt(10)), Box::new(And(Box::new(GtEq(20)), Box::new(NotEq(25)))));
    for (lo, hi, meets) in [
        (0, 9, true),
        (10, 19, false),
        (19, 20, true),
        (25, 25, false),
        (24, 26, true),
        (i64::MIN, i64::MIN, true),
    ] {
        assert_eq!(f.may_match(lo, hi), meets, "[{lo}, {hi}]");
    }
    assert!(!In(vec![]).may_match(i64::MIN, i64::MAX));
}

#[test]
fn staged_rows_of_every_type_copy_into_a_block() {
    use super::column::Data;
    let sources = [
        Data::Bool(vec![true, false, true]),
        Data::I32(vec![1, 2, 3]),
        Data::I64(vec![1, 2, 3]),
        Data::F32(vec![1.0, 2.0, 3.0]),
        Data::F64(vec![1.0, 2.0, 3.0]),
        Data::Bytes(vec![vec![1], vec![2], vec![3]]),
    ];
    for src in &sources {
        let mut dst = src.clone();
        dst.clear();
        dst.extend_from(src, 1..3);
        assert_eq!(dst.len(), 2, "{}", src.kind());
        match (&dst, src) {
            (Data::Bool(d), Data::Bool(s)) => assert_eq!(d, &s[1..]),
            (Data::I32(d), Data::I32(s)) => assert_eq!(d, &s[1..]),
            (Data::I64(d), Data::I64(s)) => assert_eq!(d, &s[1..]),
            (Data::F32(d), Data::F32(s)) => assert_eq!(d, &s[1..]),
            (Data::F64(d), Data::F64(s)) => assert_eq!(d, &s[1..]),
            (Data::Bytes(d), Data::Bytes(s)) => assert_eq!(d, &s[1..]),
            _ => unreachable!(),
        }
    }
}

#[test]
fn a_discrete_or_negated_form_anywhere_in_the_tree_keeps_boundary_pages_row_by_row() {
    use TimeFilter::*;
    let (t, v) = chunks();
    let g = group(&t, &v);
    let window = || Box::new(Between(10, 29));
    // Each a single interval (so only the tree's form forbids bulk copy).
    for f in [
        And(window(), Box::new(In(vec![12]))),
        And(Box::new(In(vec![12])), window()),
        And(window(), Box::new(Not(Box::new(Lt(12))))),
        Or(Box::new(Between(12, 13)), Box::new(NotIn(vec![i64::MIN]))),
        And(window(), Box::new(And(Box::new(GtEq(0)), Box::new(NotEq(5))))),
    ] {
        let out = scan(&g, &request(Some(f.clone()), 100), ScanOptions::default());
        assert!(out.result.is_ok());
        assert_eq!(out.stats.boundary_bulk, 0, "{f:?}: {:?}", out.stats.plan);
    }
    // The same windows without such a form are bulk-copied.
    let out = scan(
        &g,
        &request(Some(And(window(), Box::new(GtEq(12)))), 100),
        ScanOptions::default(),
    );
    assert!(out.stats.boundary_bulk > 0);
}

// Time chunks in every INT64 encoding: pages the reference encoders wrote
// for the times [-3, 0, 5, 1000, 1001] (the bytes as the format notes
// describe them; each read back by the reference scanner in its tests).
const TIMES: [i64; 5] = [-3, 0, 5, 1000, 1001];
const TIME_PAGES: [(Encoding, &str); 9] = [
    (
        Encoding::Plain,
        "ffff ffff ffff fffd 0000 0000 0000 0000 0000 0000 0000 0005 0000 0000 0000 03e8 0000 0000 0000 03e9",
    ),
    (
        Encoding::Ts2Diff,
        "0000 0004 0000 000a 0000 0000 0000 0001 ffff ffff ffff fffd 0080 4f88 00",
    ),
    (
        Encoding::Gorilla,
        "ffff ffff ffff fffd c0ff ffff ffff ffff fff6 0000 0000 0000 0005 8000 0000 0000 00fb 6000 0000 0000 0000 \
         1a00 0000 0000 000f a4",
    ),
    (
        Encoding::Rle,
        "4340 0305 ffff ffff ffff fffd 0000 0000 0000 0000 0000 0000 0000 0005 0000 0000 0000 03e8 0000 0000 0000 \
         03e9 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000",
    ),
    (Encoding::Zigzag, "0705 0500 0ad0 0fd2 0f"),
    (
        Encoding::Chimp,
        "ffff ffff ffff fffd c7ff ffff ffff ffff efc0 0000 0001 6000 0000 3ed8 0000 0000 0502 0180",
    ),
    (
        Encoding::Sprintz,
        "8543 4003 05ff ffff ffff ffff fd00 0000 0000 0000 0000 0000 0000 0000 0500 0000 0000 0003 e800 0000 0000 \
         0003 e900 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 00",
    ),
    (Encoding::Rlbe, "0000 0005 81bf ffff ffff ffff fe82 f07d 15fc 6078"),
    // REGULAR, by hand: [-3, 0] (count 2, delta 3), [5] as a count-1 block
    // with missing points (bitmap 01), [1000, 1001] (count 2, delta 1).
    (
        Encoding::Regular,
        "00 0000 0002 0000 0000 0000 0003 ffff ffff ffff fffd \
         01 0000 0001 01 0000 0001 7fff ffff ffff ffff 0000 0000 0000 0005 \
         00 0000 0002 0000 0000 0000 0001 0000 0000 0000 03e8",
    ),
];

/// A time page of `body` whose header says `count` times from `start` to
/// `end`.
fn time_page_of(body: &[u8], count: usize, start: i64, end: i64) -> Vec<u8> {
    let mut out = Vec::new();
    header(&mut out, body.len(), count, start, end);
    out.extend_from_slice(body);
    out
}

/// A chunk's one page without statistics.
fn unannotated_page(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    uvarint(&mut out, body.len() as u64);
    uvarint(&mut out, body.len() as u64);
    out.extend_from_slice(body);
    out
}

fn time_chunk(encoding: Encoding, statistics: bool, data: &[u8]) -> Group<'_> {
    Group {
        time: Chunk {
            page_statistics: statistics,
            ..Chunk::plain(ColumnType::Int64, encoding, data)
        },
        values: vec![],
    }
}

/// Times of a scan of `group` (every row, no column), or its error.
fn times_of(group: &Group<'_>, writer: Writer) -> Result<Vec<i64>, ScanError> {
    let r = Request {
        columns: vec![],
        writer,
        ..request(None, 1000)
    };
    let mut times = Vec::new();
    for options in [ScanOptions::default(), ScanOptions::baseline()] {
        let out = scan_with(group, &r, options, &Capped);
        let got: Result<Vec<i64>, ScanError> = out.result.map(|b| b.iter().flat_map(|b| b.times.clone()).collect());
        if options != ScanOptions::default() {
            assert_eq!(Ok(&times), got.as_ref(), "baseline");
        }
        times = got?;
    }
    Ok(times)
}

#[test]
fn time_chunks_in_every_int64_encoding_read_their_times() {
    for (e, hex) in TIME_PAGES {
        let body = unhex(hex);
        // A page with statistics, and one without.
        let page = time_page_of(&body, 5, -3, 1001);
        assert_eq!(
            times_of(&time_chunk(e, true, &page), Writer::Cpp),
            Ok(TIMES.to_vec()),
            "{e:?}"
        );
        let one = unannotated_page(&body);
        for writer in [Writer::Cpp, Writer::Java] {
            assert_eq!(
                times_of(&time_chunk(e, false, &one), writer),
                Ok(TIMES.to_vec()),
                "{e:?}"
            );
        }
        // Statistics that lie about the count are found where the page is
        // decoded (GORILLA and CHIMP: fewer times counted, the last wrong).
        let lying = time_page_of(&body, 4, -3, 1001);
        assert_eq!(
            times_of(&time_chunk(e, true, &lying), Writer::Cpp),
            Err(ScanError {
                kind: ErrorKind::StatisticsLie,
                chunk: ChunkId::Time,
                page: 0,
                offset: 0,
            }),
            "{e:?}"
        );
    }
}

/// A decode error of the time chunk's page 0 (its body at byte 19, after a
/// header with statistics; 2 without).
fn time_decode_error(detail: &str, body_at: usize) -> Result<Vec<i64>, ScanError> {
    Err(ScanError {
        kind: ErrorKind::Decode(detail.into()),
        chunk: ChunkId::Time,
        page: 0,
        offset: body_at,
    })
}

#[test]
fn gorilla_and_chimp_times_are_counted_by_statistics_else_stop_at_the_terminator() {
    // [i64::MIN, i64::MIN + 2, 7]: the first time is the terminator.
    let pages = [
        (
            Encoding::Gorilla,
            "8000 0000 0000 0000 fe03 81fc 0000 0000 0000 002d 0000 0000 0000 000e",
        ),
        (
            Encoding::Chimp,
            "8000 0000 0000 0000 f800 0000 0016 2000 0000 0000 0001 4000",
        ),
    ];
    let times = [i64::MIN, i64::MIN + 2, 7];
    for (e, hex) in pages {
        let body = unhex(hex);
        let counted = time_page_of(&body, 3, times[0], 7);
        assert_eq!(
            times_of(&time_chunk(e, true, &counted), Writer::Cpp),
            Ok(times.to_vec()),
            "{e:?}"
        );
        // Without statistics the page ends at its first time: no rows.
        let one = unannotated_page(&body);
        assert_eq!(times_of(&time_chunk(e, false, &one), Writer::Cpp), Ok(vec![]), "{e:?}");
    }
    let gorilla = unhex(TIME_PAGES[2].1);
    let counted = |count: usize| time_page_of(&gorilla, count, -3, 1001);
    let chunk = |data: &[u8]| times_of(&time_chunk(Encoding::Gorilla, true, data), Writer::Cpp);
    // A count past the page's bits: decoded until the bits run out, as the
    // reference does (not refused for the buffer's size).
    assert_eq!(
        chunk(&counted(MAX_PAGE_ROWS)),
        time_decode_error("Truncated { field: GorillaControl, offset: 51, bit: 0 }", 21)
    );
    // A count past the cap: the decoders' TooManyValues, nothing decoded.
    assert_eq!(
        chunk(&counted(MAX_PAGE_ROWS + 1)),
        time_decode_error("TooManyValues { max: 1048576, offset: 0 }", 21)
    );
    // One more than written: the terminator is read as a time.
    assert_eq!(chunk(&counted(6)).unwrap_err().kind, ErrorKind::StatisticsLie,);
    // The statistics count only GORILLA and CHIMP pages: a PLAIN page whose
    // count passes the cap is a lie found after decoding.
    let plain = unhex(TIME_PAGES[0].1);
    let lying = time_page_of(&plain, MAX_PAGE_ROWS + 1, -3, 1001);
    assert_eq!(
        times_of(&time_chunk(Encoding::Plain, true, &lying), Writer::Cpp)
            .unwrap_err()
            .kind,
        ErrorKind::StatisticsLie
    );
}

#[test]
// Reaching the cap decodes 2^20 times: minutes under Miri, whose pass reads
// RLE time pages through the same code in
// time_chunks_in_every_int64_encoding_read_their_times.
#[cfg_attr(miri, ignore = "2^20 times: minutes under Miri")]
fn rle_time_pages_hold_more_times_than_their_bits_up_to_the_cap() {
    // One RLE run of 100 times 7: more times than the page has bits, read
    // whole (and then not increasing).
    let run = unhex("0403 c801 07");
    let page = unannotated_page(&run);
    assert_eq!(
        times_of(&time_chunk(Encoding::Rle, false, &page), Writer::Cpp),
        Err(ScanError {
            kind: ErrorKind::TimesNotIncreasing,
            chunk: ChunkId::Time,
            page: 0,
            offset: 2,
        })
    );
    // A run one past the cap: the reference's TooManyValues.
    let run = unhex("0603 8280 8001 07");
    let page = unannotated_page(&run);
    assert_eq!(
        times_of(&time_chunk(Encoding::Rle, false, &page), Writer::Cpp),
        time_decode_error("TooManyValues { max: 1048576, offset: 2 }", 2)
    );
}

#[test]
fn sprintz_time_pages_read_with_the_writers_predictor() {
    // Nine times 2^59 / 3 apart (and more), written with Java's predictor:
    // the C++ one reads other times from the fourth on, the fifth below it.
    let body = unhex(
        "3b00 0000 0000 0000 00ab aaaa aaaa aaaa 75b5 5555 5555 5556 bec8 0400 0003 8ed8 c756 ffff ff8e 3b3a aaaa \
         aaaa aaab 6b64 0600 0001 c76d e3ac 7fff ffc7 1dcd 5555 5555 5555",
    );
    let written: Vec<i64> = (0..9i64).map(|i| i * (1 << 59) / 3 + i * i * (1 << 50)).collect();
    let page = unannotated_page(&body);
    let g = time_chunk(Encoding::Sprintz, false, &page);
    assert_eq!(times_of(&g, Writer::Java), Ok(written.clone()));
    assert_eq!(
        times_of(&g, Writer::Cpp).unwrap_err().kind,
        ErrorKind::TimesNotIncreasing
    );
}

#[test]
fn value_pages_read_in_the_requested_writers_layout() {
    // Java's RLBE FLOAT page (float differences) reads back with Java's
    // layout; the C++ SPRINTZ INT64 / DOUBLE page reads another last value
    // with Java's predictor.
    let java = unhex("00 00 00 03 79 ff 80 00 01 f8 00 00 04 19 fc 00 00 00");
    let cases = [
        (
            ColumnType::Float,
            Encoding::Rlbe,
            java,
            [1.5f32, 2.0, 1.0].map(f32v).to_vec(),
            Writer::Java,
        ),
        (
            ColumnType::Double,
            Encoding::Sprintz,
            unhex(CPP_SPRINTZ_PAGE),
            CPP_SPRINTZ_VALUES.map(Value::F64).to_vec(),
            Writer::Cpp,
        ),
        (
            ColumnType::Int64,
            Encoding::Sprintz,
            unhex(CPP_SPRINTZ_PAGE),
            CPP_SPRINTZ_VALUES.map(|b| Value::I64(b as i64)).to_vec(),
            Writer::Cpp,
        ),
    ];
    for (t, e, encoded, values, writer) in cases {
        let (time, value, cells) = twice_with_nulls(t, &encoded, &values);
        let g = Group {
            time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
            values: vec![Some(Chunk::plain(t, e, &value))],
        };
        for w in [Writer::Cpp, Writer::Java] {
            let r = Request {
                columns: vec![0],
                writer: w,
                ..request(None, 100)
            };
            for options in [ScanOptions::default(), ScanOptions::baseline()] {
                let out = scan(&g, &r, options);
                // Read in the other layout: other values, or (their min /
                // max not those written) a lie.
                if let Err(err) = &out.result {
                    assert!(w != writer && err.kind == ErrorKind::StatisticsLie, "{err:?}");
                    continue;
                }
                let got: Vec<Option<Value>> = rows_of(&out).into_iter().map(|(_, c)| c).collect();
                assert_eq!(got.len(), cells.len());
                assert_eq!(got == cells, w == writer, "{t:?} {e:?} read as {w:?}, {options:?}");
            }
        }
    }
}

// Pruning by the FIELD filter (value page statistics, empty pages, missing
// measurements): each rule skips at its boundary and not one step inside
// it, and the rows are always the baseline's.

/// A PLAIN-encoded non-null value (INT32 / DATE: zigzag varint).
fn plain_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::I32(x) => {
            let mut out = Vec::new();
            uvarint(&mut out, ((x << 1) ^ (x >> 31)) as u32 as u64);
            out
        }
        Value::I64(x) => x.to_be_bytes().to_vec(),
        Value::F32(x) => x.to_be_bytes().to_vec(),
        Value::F64(x) => x.to_be_bytes().to_vec(),
        Value::Bool(b) => vec![*b as u8],
        Value::Bytes(_) => unreachable!("numeric pages only"),
    }
}

/// One page of `cells` (times 0..) in a PLAIN column of type `t` with
/// truthful statistics (`empty`: the empty page instead), scanned under
/// `op` on that column (or on a missing second column when `missing`) with
/// `writer`: the page's action and whether the rows are the baseline's.
fn prune(
    t: ColumnType,
    writer: Writer,
    cells: &[Option<Value>],
    op: FieldOp,
    empty: bool,
    missing: bool,
) -> PageAction {
    let times: Vec<i64> = (0..cells.len() as i64).collect();
    let present: Vec<bool> = cells.iter().map(Option::is_some).collect();
    let values: Vec<Value> = cells.iter().flatten().cloned().collect();
    let encoded: Vec<u8> = values.iter().flat_map(plain_bytes).collect();
    let time = time_page(&times);
    let value = if empty {
        vec![0]
    } else {
        encoded_page(t, &times, &present, &encoded, &values)
    };
    let g = Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
        values: vec![Some(Chunk::plain(t, Encoding::Plain, &value)), None],
    };
    let r = Request {
        filter: Filter {
            time: None,
            field: Some(FieldFilter {
                column: if missing { 1 } else { 0 },
                op,
            }),
        },
        columns: vec![0],
        writer,
        ..request(None, 100)
    };
    let out = scan(&g, &r, ScanOptions::default());
    let baseline = scan(&g, &r, ScanOptions::baseline());
    assert_eq!(out.result, baseline.result, "{t:?} {cells:?} {r:?}");
    assert!(!baseline.stats.plan.contains(&PageAction::ValueSkip));
    assert_eq!(baseline.stats.skipped_by_value_statistics, 0);
    let skipped = out.stats.plan[0] == PageAction::ValueSkip;
    assert_eq!(out.stats.skipped_by_value_statistics, skipped as usize);
    assert!(!skipped || rows(&out).is_empty());
    out.stats.plan[0]
}

fn skips(t: ColumnType, writer: Writer, cells: &[Option<Value>], op: FieldOp) -> bool {
    prune(t, writer, cells, op, false, false) == PageAction::ValueSkip
}

#[test]
fn comparisons_skip_a_page_only_when_its_min_and_max_exclude_every_row() {
    use CmpOp::*;
    // (type, writer, the value of n)
    type Kind = (ColumnType, Writer, fn(i64) -> Value);
    let kinds: [Kind; 6] = [
        (ColumnType::Int32, Writer::Cpp, |n| Value::I32(n as i32)),
        (ColumnType::Date, Writer::Java, |n| Value::I32(n as i32)),
        (ColumnType::Int64, Writer::Cpp, Value::I64),
        (ColumnType::Timestamp, Writer::Java, Value::I64),
        (ColumnType::Float, Writer::Java, |n| f32v(n as f32)),
        (ColumnType::Double, Writer::Java, |n| f64v(n as f64)),
    ];
    for (t, writer, v) in kinds {
        // min 5, max 10, a null, 7 in between.
        let cells = [Some(v(7)), None, Some(v(10)), Some(v(5))];
        let cases: [(CmpOp, i64, bool); 16] = [
            (Gt, 10, true),
            (Gt, 9, false),
            (GtEq, 11, true),
            (GtEq, 10, false),
            (Lt, 5, true),
            (Lt, 6, false),
            (LtEq, 4, true),
            (LtEq, 5, false),
            (Eq, 4, true),
            (Eq, 5, false),
            (Eq, 10, false),
            (Eq, 11, true),
            // Inside the bounds but not a value: not known from them.
            (Eq, 6, false),
            (NotEq, 5, false),
            (Gt, i64::from(i32::MIN), false),
            (Lt, i64::from(i32::MAX), false),
        ];
        for (op, n, skip) in cases {
            let got = skips(t, writer, &cells, FieldOp::Cmp(op, v(n)));
            assert_eq!(got, skip, "{t:?} {op:?} {n}");
        }
        // Every value equal: NotEq skips only at that value.
        let same = [Some(v(7)), Some(v(7)), None];
        assert!(skips(t, writer, &same, FieldOp::Cmp(NotEq, v(7))), "{t:?}");
        assert!(!skips(t, writer, &same, FieldOp::Cmp(NotEq, v(8))), "{t:?}");
        // A constant of another type: not pruned by bounds.
        let other = if matches!(v(0), Value::I64(_)) {
            Value::I32(100)
        } else {
            Value::I64(100)
        };
        assert!(!skips(t, writer, &cells, FieldOp::Cmp(Gt, other)), "{t:?}");
    }
}

#[test]
fn null_counts_skip_pages_of_only_nulls_or_no_null() {
    let t = ColumnType::Int64;
    let nulls = [None, None, None];
    let full = [Some(Value::I64(1)), Some(Value::I64(2)), Some(Value::I64(3))];
    let mixed = [Some(Value::I64(1)), None, Some(Value::I64(3))];
    let gt0 = FieldOp::Cmp(CmpOp::Gt, Value::I64(0));
    for writer in [Writer::Cpp, Writer::Java] {
        // A page of only nulls (with statistics, count 0).
        assert!(skips(t, writer, &nulls, gt0.clone()));
        assert!(skips(t, writer, &nulls, FieldOp::IsNotNull));
        assert!(!skips(t, writer, &nulls, FieldOp::IsNull));
        // No null: IS NULL skips.
        assert!(skips(t, writer, &full, FieldOp::IsNull));
        assert!(!skips(t, writer, &full, FieldOp::IsNotNull));
        assert!(!skips(t, writer, &full, gt0.clone()));
        // Some nulls: neither.
        assert!(!skips(t, writer, &mixed, FieldOp::IsNull));
        assert!(!skips(t, writer, &mixed, FieldOp::IsNotNull));
        // The empty page and a missing measurement: every row null.
        for (empty, missing) in [(true, false), (false, true)] {
            let skip = |op| prune(t, writer, &full, op, empty, missing) == PageAction::ValueSkip;
            assert!(skip(gt0.clone()) && skip(FieldOp::IsNotNull) && !skip(FieldOp::IsNull));
        }
    }
}

#[test]
fn float_bounds_prune_only_where_nan_cannot_hide_a_match() {
    use CmpOp::*;
    let nan = f64::NAN;
    let page = |x: [f64; 3]| x.map(|x| Some(f64v(x)));
    let page32 = |x: [f32; 3]| x.map(|x| Some(f32v(x)));
    // Java: a NaN after the first value is passed over by min / max; NaN
    // matches no comparison, so the bounds of the others still prune.
    assert!(skips(
        ColumnType::Double,
        Writer::Java,
        &page([1.0, nan, 2.0]),
        FieldOp::Cmp(Gt, f64v(2.0))
    ));
    assert!(!skips(
        ColumnType::Double,
        Writer::Java,
        &page([1.0, nan, 2.0]),
        FieldOp::Cmp(Gt, f64v(1.5))
    ));
    assert!(skips(
        ColumnType::Float,
        Writer::Java,
        &page32([1.0, f32::NAN, 2.0]),
        FieldOp::Cmp(Lt, f32v(1.0))
    ));
    // A first NaN makes both bounds NaN: never pruned by them.
    for op in [Lt, LtEq, Gt, GtEq, Eq, NotEq] {
        assert!(
            !skips(
                ColumnType::Double,
                Writer::Java,
                &page([nan, 1.0, 2.0]),
                FieldOp::Cmp(op, f64v(5.0))
            ),
            "{op:?}"
        );
    }
    // NaN as the constant: not pruned by bounds.
    assert!(!skips(
        ColumnType::Double,
        Writer::Java,
        &page([1.0, 2.0, 3.0]),
        FieldOp::Cmp(Gt, f64v(nan))
    ));
    // Zeros of either sign are one value.
    assert!(!skips(
        ColumnType::Double,
        Writer::Java,
        &page([-0.0, 1.0, 2.0]),
        FieldOp::Cmp(LtEq, f64v(0.0))
    ));
    assert!(skips(
        ColumnType::Double,
        Writer::Java,
        &page([0.0, 1.0, 2.0]),
        FieldOp::Cmp(Lt, f64v(-0.0))
    ));
    // The C++ writer's FLOAT / DOUBLE bounds are not trusted (its batch
    // path can leave values out of them when NaN is among them).
    assert!(!skips(
        ColumnType::Double,
        Writer::Cpp,
        &page([1.0, 2.0, 3.0]),
        FieldOp::Cmp(Gt, f64v(5.0))
    ));
    assert!(!skips(
        ColumnType::Float,
        Writer::Cpp,
        &page32([1.0, 2.0, 3.0]),
        FieldOp::Cmp(Lt, f32v(0.0))
    ));
    // Counts still prune them.
    let nulls = [None, None, None];
    assert!(skips(
        ColumnType::Double,
        Writer::Cpp,
        &nulls,
        FieldOp::Cmp(Gt, f64v(5.0))
    ));
}

#[test]
fn value_pruning_skips_time_and_value_pages_undecoded() {
    // Page 1's time body and value body are garbage; its headers say no row
    // can match: nothing of it is read. Page 0 has the matching row.
    let mut time = time_page(&[1, 2]);
    let mut bad_time = time_page(&[3, 4]);
    let n = bad_time.len();
    bad_time[n - 16..].fill(0xEE);
    time.extend(bad_time);
    let mut value = int64_page(&[1, 2], &[Some(50), None]);
    let mut bad_value = int64_page(&[3, 4], &[Some(1), Some(2)]);
    let n = bad_value.len();
    bad_value[n - 16..].fill(0xEE);
    value.extend(bad_value);
    let g = group(&time, &value);
    let mut r = request(None, 100);
    r.filter.field = Some(FieldFilter {
        column: 0,
        op: FieldOp::Cmp(CmpOp::Gt, Value::I64(10)),
    });
    let out = scan(&g, &r, ScanOptions::default());
    assert_eq!(rows(&out), [(1, Some(Value::I64(50)))]);
    assert_eq!(
        out.stats.plan,
        [PageAction::FullPass { in_place: false }, PageAction::ValueSkip]
    );
    assert!(!PageAction::ValueSkip.decoded(ChunkId::Time) && !PageAction::ValueSkip.decoded(ChunkId::Value(0)));
    // The baseline reads page 1: its lying statistics are an error there.
    let baseline = scan(&g, &r, ScanOptions::baseline());
    assert_eq!(baseline.result.unwrap_err().page, 1);
}

#[test]
fn value_statistics_are_checked_where_the_page_is_decoded() {
    // Page 1's value header lies about its count, min or max: a
    // StatisticsLie at that header when the page is decoded, in both option
    // sets. Min and max are held to the values only in the FIELD filter's
    // column, the one a plan may prune by (here IS NOT NULL, which prunes
    // none of these pages).
    let (t, good) = chunks();
    // Page 0's value page, to find page 1's header.
    let cells0: Vec<Option<i64>> = (0..8).map(|t| (t % 5 != 0).then_some(t * 100)).collect();
    let at = int64_page(&(0..8).collect::<Vec<_>>(), &cells0).len();
    // Page 1: sizes one byte each, then count (one byte), start, end, min.
    let count_at = at + 2;
    let min_at = at + 2 + 1 + 16;
    let lies = [
        ("count", count_at, 1i8),
        ("count", count_at, -1),
        ("min", min_at + 7, 1),
        ("max", min_at + 15, -1),
    ];
    for (what, offset, delta) in lies {
        let mut v = good.clone();
        v[offset] = v[offset].wrapping_add_signed(delta);
        let g = group(&t, &v);
        let mut filtered = request(None, 100);
        filtered.filter.field = Some(FieldFilter {
            column: 0,
            op: FieldOp::IsNotNull,
        });
        for options in [ScanOptions::default(), ScanOptions::baseline()] {
            for (r, checked) in [(&filtered, true), (&request(None, 100), what == "count")] {
                let out = scan(&g, r, options);
                match out.result {
                    Err(e) => assert_eq!(
                        (e.kind, e.chunk, e.page, e.offset, checked),
                        (ErrorKind::StatisticsLie, ChunkId::Value(0), 1, at, true),
                        "{what} {delta}"
                    ),
                    Ok(_) => assert!(!checked, "{what} {delta} {r:?}"),
                }
            }
        }
    }
    // The same bytes unchanged read.
    assert!(scan(&group(&t, &good), &request(None, 100), ScanOptions::default())
        .result
        .is_ok());
}

#[test]
fn bounds_of_encodings_that_change_values_are_neither_checked_nor_pruned_on() {
    // The statistics are of the values the writer was given; the C++
    // SPRINTZ and CAMEL encoders store other values for some inputs, so an
    // official file holds SPRINTZ pages whose min and max are no value of
    // the page. Here the official pages' bounds say every value is -5.
    let official = official_pages();
    // TS_2DIFF DOUBLE: scaled integers, rounded.
    for e in [Encoding::Sprintz, Encoding::Camel, Encoding::Ts2Diff, Encoding::Plain] {
        let (t, hex, values) = match e {
            Encoding::Plain => (
                ColumnType::Int64,
                String::new(),
                (0..9).map(|i| Value::I64(i * 1000)).collect(),
            ),
            _ => {
                let (t, _, hex, values) = official.iter().find(|p| p.1 == e && p.0 != ColumnType::Float).unwrap();
                (*t, hex.to_string(), values.clone())
            }
        };
        let encoded = match e {
            Encoding::Plain => values.iter().flat_map(plain_bytes).collect(),
            _ => unhex(&hex),
        };
        let minus_five = if t == ColumnType::Double {
            f64v(-5.0)
        } else {
            Value::I64(-5)
        };
        let times: Vec<i64> = (0..values.len() as i64).collect();
        let present = vec![true; values.len()];
        let value = encoded_page(t, &times, &present, &encoded, &vec![minus_five; values.len()]);
        let time = time_page(&times);
        let g = Group {
            time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
            values: vec![Some(Chunk::plain(t, e, &value))],
        };
        // The first value, which the bounds exclude.
        let r = Request {
            filter: Filter {
                time: None,
                field: Some(FieldFilter {
                    column: 0,
                    op: FieldOp::Cmp(CmpOp::Eq, values[0].clone()),
                }),
            },
            columns: vec![0],
            ..request(None, 100)
        };
        let pruned = scan(&g, &r, ScanOptions::default());
        let decoded = scan(&g, &r, ScanOptions::baseline());
        if e == Encoding::Plain {
            // Bounds of a page that stores its values as given are checked
            // where the page is decoded and trusted to skip it.
            assert_eq!(decoded.result.unwrap_err().kind, ErrorKind::StatisticsLie);
            assert_eq!(pruned.stats.plan, vec![PageAction::ValueSkip]);
        } else {
            assert_eq!(rows(&decoded), vec![(0, Some(values[0].clone()))], "{e:?}");
            assert_eq!(pruned.result, decoded.result, "{e:?}");
            assert_eq!(pruned.stats.skipped_by_value_statistics, 0, "{e:?}");
        }
    }
}

#[test]
fn a_pool_hands_one_scans_block_buffers_to_the_next() {
    let (t, v) = chunks();
    let g = group(&t, &v);
    // 40 rows in blocks of 16: three blocks.
    let r = request(None, 16);
    let mut pool = BlockPool::new();
    let first = scan_reusing(&g, &r, ScanOptions::default(), &NoDecompress, &mut pool);
    let blocks = first.result.unwrap();
    assert_eq!((blocks.len(), pool.len()), (3, 0));
    // Each block's times and its column's values.
    let pointers = |blocks: &[Block]| -> Vec<*const i64> {
        let mut all: Vec<*const i64> = blocks.iter().map(|b| b.times.as_ptr()).collect();
        all.extend(blocks.iter().map(|b| match &b.columns[0].data {
            Data::I64(v) => v.as_ptr(),
            other => panic!("{}", other.kind()),
        }));
        all.sort();
        all
    };
    let buffers = pointers(&blocks);
    pool.recycle(blocks);
    assert_eq!(pool.len(), 3);
    assert!(!pool.is_empty());
    let second = scan_reusing(&g, &r, ScanOptions::default(), &NoDecompress, &mut pool);
    let blocks = second.result.unwrap();
    assert_eq!(
        rows(&ScanOutput {
            result: Ok(blocks.clone()),
            stats: second.stats
        }),
        expected(|_| true)
    );
    assert!(pool.is_empty());
    assert_eq!(
        pointers(&blocks),
        buffers,
        "the second scan's blocks are the first's buffers"
    );
    // A scan that needs fewer blocks leaves the rest in the pool.
    pool.recycle(blocks);
    let one = scan_reusing(
        &g,
        &request(None, 100),
        ScanOptions::default(),
        &NoDecompress,
        &mut pool,
    );
    assert_eq!(one.result.unwrap().len(), 1);
    assert_eq!(pool.len(), 2);
}

#[test]
fn float_bounds_are_held_to_the_values_as_each_writer_computes_them() {
    use ColumnType::{Double, Float};
    let nan = f64::NAN;
    // (writer, values, min, max, truthful)
    let cases = [
        (Writer::Java, vec![1.0, -2.0, 3.0], -2.0, 3.0, true),
        (Writer::Cpp, vec![1.0, -2.0, 3.0], -2.0, 3.0, true),
        (Writer::Java, vec![1.0, -2.0, 3.0], -2.0, 2.5, false),
        (Writer::Cpp, vec![1.0, -2.0, 3.0], -2.5, 3.0, false),
        // Compared as numbers: either zero stands for the other.
        (Writer::Java, vec![0.0, 1.0], -0.0, 1.0, true),
        // A first NaN is both bounds; one bound NaN alone is a lie.
        (Writer::Java, vec![nan, 1.0], nan, nan, true),
        (Writer::Java, vec![nan, 1.0], nan, 1.0, false),
        (Writer::Java, vec![nan, 1.0], 1.0, nan, false),
        // A later NaN is passed over.
        (Writer::Java, vec![1.0, nan, 2.0], 1.0, 2.0, true),
        (Writer::Java, vec![1.0, nan, 2.0], 1.0, nan, false),
        // The C++ writer's SIMD bounds with NaN among the values: unchecked.
        (Writer::Cpp, vec![1.0, nan, 2.0], 5.0, 5.0, true),
    ];
    for t in [Float, Double] {
        let wide = t == Double;
        let value = |x: f64| if wide { f64v(x) } else { f32v(x as f32) };
        let bytes = |x: f64| {
            if wide {
                x.to_bits().to_be_bytes().to_vec()
            } else {
                (x as f32).to_bits().to_be_bytes().to_vec()
            }
        };
        for (writer, xs, min, max, truthful) in &cases {
            let values: Vec<Value> = xs.iter().map(|&x| value(x)).collect();
            let times: Vec<i64> = (0..values.len() as i64).collect();
            let encoded: Vec<u8> = values.iter().flat_map(plain_bytes).collect();
            let mut typed = [bytes(*min), bytes(*max)].concat();
            typed.resize(if wide { 40 } else { 24 }, 0);
            let value_page = encoded_page_typed(&times, &vec![true; values.len()], &encoded, typed);
            let time = time_page(&times);
            let g = Group {
                time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
                values: vec![Some(Chunk::plain(t, Encoding::Plain, &value_page))],
            };
            // Under a FIELD filter on the column, whose bounds are checked;
            // the baseline decodes the page whatever its bounds.
            let mut r = request(None, 100);
            r.writer = *writer;
            r.columns = vec![0];
            r.filter.field = Some(FieldFilter {
                column: 0,
                op: FieldOp::IsNotNull,
            });
            let out = scan(&g, &r, ScanOptions::baseline());
            let what = format!("{t:?} {writer:?} {xs:?} min {min} max {max}");
            match out.result {
                Ok(_) => assert!(*truthful, "{what}: read"),
                Err(e) => {
                    assert!(!*truthful, "{what}: {e}");
                    assert_eq!(e.kind, ErrorKind::StatisticsLie, "{what}");
                }
            }
        }
    }
}

/// A staging column reset for another page holds `n` default slots, as a
/// fresh one would (a null row's slot is the type's default), and a binary
/// column keeps its values' buffers for the next page to write into.
#[test]
fn reset_gives_default_slots_and_keeps_binary_buffers() {
    let mut bytes = Data::Bytes(vec![b"abc".to_vec(), b"d".to_vec(), b"e".to_vec()]);
    bytes.reset(2);
    assert_eq!(bytes, Data::Bytes(vec![Vec::new(), Vec::new()]));
    let Data::Bytes(v) = &bytes else { unreachable!() };
    assert!(v[0].capacity() >= 3, "the first value's buffer is kept");
    bytes.reset(4);
    assert_eq!(bytes, Data::Bytes(vec![Vec::new(); 4]));
    let mut ints = Data::I64(vec![7, 8, 9]);
    ints.reset(2);
    assert_eq!(ints, Data::I64(vec![0, 0]));
    ints.reset(3);
    assert_eq!(ints, Data::I64(vec![0, 0, 0]));
}
