//! Damaged chunks through the kernel scanner, each with the error and the
//! position `formats/tsfile.md` ("Chunks and pages") dictates: headers cut
//! in every field, sizes that disagree, statistics of every binary type,
//! bodies and bitmaps that stop short, header statistics that contradict
//! the chunk, requests that cannot be served. Worked out by hand here, so
//! the kernels' own tests hold every bound of the page walk.

use super::*;

fn uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A PLAIN INT64 time page: sizes, statistics, body.
fn time_page(times: &[i64], stats: (u32, i64, i64)) -> Vec<u8> {
    let body: Vec<u8> = times.iter().flat_map(|t| t.to_be_bytes()).collect();
    let mut out = Vec::new();
    uvarint(&mut out, body.len() as u64);
    uvarint(&mut out, body.len() as u64);
    uvarint(&mut out, stats.0 as u64);
    out.extend_from_slice(&stats.1.to_be_bytes());
    out.extend_from_slice(&stats.2.to_be_bytes());
    out.extend(body);
    out
}

fn truthful(times: &[i64]) -> Vec<u8> {
    time_page(times, (times.len() as u32, times[0], times[times.len() - 1]))
}

fn err(kind: ErrorKind, chunk: ChunkId, page: usize, offset: usize) -> Result<Vec<Block>, ScanError> {
    Err(ScanError {
        kind,
        chunk,
        page,
        offset,
    })
}

fn time_only(data: &[u8]) -> Group<'_> {
    Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, data),
        values: vec![],
    }
}

fn all(columns: Vec<usize>) -> Request {
    Request {
        filter: Filter::default(),
        offset: 0,
        limit: None,
        columns,
        block_rows: 100,
        writer: Writer::Cpp,
    }
}

fn result(g: &Group<'_>, r: &Request) -> Result<Vec<Block>, ScanError> {
    scan(g, r, ScanOptions::default()).result
}

#[test]
fn a_time_header_cut_in_each_field_is_truncated_at_that_field() {
    let page = truthful(&[3, 4]);
    // Sizes at 0 and 1, count at 2, start at 3, end at 11, body at 19.
    for (cut, at) in [(1, 1), (2, 2), (3, 3), (10, 3), (11, 11), (18, 11)] {
        assert_eq!(
            result(&time_only(&page[..cut]), &all(vec![])),
            err(ErrorKind::TruncatedHeader, ChunkId::Time, 0, at),
            "cut at {cut}"
        );
    }
    for cut in 19..page.len() {
        assert_eq!(
            result(&time_only(&page[..cut]), &all(vec![])),
            err(ErrorKind::TruncatedPage, ChunkId::Time, 0, 19),
            "cut at {cut}"
        );
    }
    // A varint that never ends.
    assert_eq!(
        result(&time_only(&[0x80]), &all(vec![])),
        err(ErrorKind::TruncatedHeader, ChunkId::Time, 0, 0)
    );
}

#[test]
fn sizes_must_agree_in_an_uncompressed_chunk_and_a_time_page_is_never_empty() {
    let mut page = truthful(&[3, 4]);
    page[1] += 1;
    assert_eq!(
        result(&time_only(&page), &all(vec![])),
        err(ErrorKind::BadPageSize, ChunkId::Time, 0, 1)
    );
    // The same sizes in a value chunk: the value chunk's own flag decides.
    let t = truthful(&[3, 4]);
    let v = int64_page(&[Some(1), Some(2)], 2, (3, 4));
    let mut bad = v.clone();
    bad[1] += 1;
    let g = |compression| Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &t),
        values: vec![Some(Chunk {
            compression,
            ..Chunk::plain(ColumnType::Int64, Encoding::Plain, &bad)
        })],
    };
    assert_eq!(
        result(&g(0), &all(vec![0])),
        err(ErrorKind::BadPageSize, ChunkId::Value(0), 0, 1)
    );
    // Compressed: the sizes may differ; the stored body is one byte short
    // of what the header's compressed size says.
    assert_eq!(
        result(&g(7), &all(vec![0])),
        err(ErrorKind::TruncatedPage, ChunkId::Value(0), 0, 2 + 17 + 40)
    );
    let mut time_bad = t.clone();
    time_bad[1] += 1;
    let g = Group {
        time: Chunk {
            compression: 7,
            ..Chunk::plain(ColumnType::Int64, Encoding::Plain, &time_bad)
        },
        values: vec![],
    };
    assert_eq!(
        result(&g, &all(vec![])),
        err(ErrorKind::TruncatedPage, ChunkId::Time, 0, 19)
    );
    assert_eq!(
        result(&time_only(&[0]), &all(vec![])),
        err(ErrorKind::BadPageSize, ChunkId::Time, 0, 0)
    );
}

/// A PLAIN INT64 value page of `rows` rows (40 bytes of typed statistics).
fn int64_page(cells: &[Option<i64>], rows: usize, times: (i64, i64)) -> Vec<u8> {
    let mut body = (rows as i32).to_be_bytes().to_vec();
    let mut bitmap = vec![0u8; rows.div_ceil(8)];
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
    uvarint(&mut out, body.len() as u64);
    uvarint(&mut out, body.len() as u64);
    uvarint(&mut out, cells.iter().flatten().count() as u64);
    out.extend_from_slice(&times.0.to_be_bytes());
    out.extend_from_slice(&times.1.to_be_bytes());
    // min, max (checked where the page is decoded, in the FIELD filter's
    // column), first, last, sum.
    out.extend(cells.iter().flatten().min().copied().unwrap_or(0).to_be_bytes());
    out.extend(cells.iter().flatten().max().copied().unwrap_or(0).to_be_bytes());
    out.extend([0u8; 24]);
    out.extend(body);
    out
}

fn with_value<'a>(t: &'a [u8], data_type: ColumnType, v: &'a [u8]) -> Group<'a> {
    Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, t),
        values: vec![Some(Chunk::plain(data_type, Encoding::Plain, v))],
    }
}

#[test]
fn binary_statistics_are_read_by_their_lengths_and_checked() {
    let t = truthful(&[3]);
    // A TEXT page: statistics first "ab", last "x" * 259, then the body.
    let string = |s: &[u8]| [&(s.len() as u32).to_be_bytes()[..], s].concat();
    let body = [&1i32.to_be_bytes()[..], &[0x80], &[2 << 1], b"hi"].concat();
    let page = |stats: &[u8]| {
        let mut out = Vec::new();
        uvarint(&mut out, body.len() as u64);
        uvarint(&mut out, body.len() as u64);
        uvarint(&mut out, 1);
        out.extend_from_slice(&3i64.to_be_bytes());
        out.extend_from_slice(&3i64.to_be_bytes());
        out.extend_from_slice(stats);
        out.extend_from_slice(&body);
        out
    };
    let text = page(&[string(b"ab"), string(&[b'x'; 259])].concat());
    let rows = |g: &Group<'_>| {
        scan(g, &all(vec![0]), ScanOptions::default())
            .result
            .map(|b| b[0].canonical())
    };
    let hi = Some(Value::Bytes(b"hi".to_vec()));
    assert_eq!(
        rows(&with_value(&t, ColumnType::Text, &text)),
        Ok((vec![3], vec![vec![hi.clone()]]))
    );
    // STRING keeps two more strings, BLOB none.
    let string4 = page(&[string(b"ab"), string(b""), string(b"a"), string(b"zz")].concat());
    assert_eq!(
        rows(&with_value(&t, ColumnType::String, &string4)),
        Ok((vec![3], vec![vec![hi.clone()]]))
    );
    let blob = page(&[]);
    assert_eq!(
        rows(&with_value(&t, ColumnType::Blob, &blob)),
        Ok((vec![3], vec![vec![hi]]))
    );
    // Every cut inside the statistics: the field being read.
    let stats_at = 2 + 17;
    for cut in stats_at..stats_at + 4 {
        assert_eq!(
            result(&with_value(&t, ColumnType::Text, &text[..cut]), &all(vec![0])),
            err(ErrorKind::TruncatedHeader, ChunkId::Value(0), 0, stats_at),
            "cut at {cut}"
        );
    }
    // The first string's bytes cut: at its bytes; exactly whole: the next
    // length is what is missing.
    for (cut, at) in [
        (stats_at + 5, stats_at + 4),
        (stats_at + 6, stats_at + 6),
        (stats_at + 9, stats_at + 6),
    ] {
        assert_eq!(
            result(&with_value(&t, ColumnType::Text, &text[..cut]), &all(vec![0])),
            err(ErrorKind::TruncatedHeader, ChunkId::Value(0), 0, at),
            "cut at {cut}"
        );
    }
    // The second string (259 bytes) one byte short, then whole with no body.
    let second = stats_at + 6 + 4;
    let end = second + 259;
    assert_eq!(
        result(&with_value(&t, ColumnType::Text, &text[..end - 1]), &all(vec![0])),
        err(ErrorKind::TruncatedHeader, ChunkId::Value(0), 0, second)
    );
    assert_eq!(
        result(&with_value(&t, ColumnType::Text, &text[..end]), &all(vec![0])),
        err(ErrorKind::TruncatedPage, ChunkId::Value(0), 0, end)
    );
    // A negative length.
    let mut negative = text.clone();
    negative[stats_at..stats_at + 4].copy_from_slice(&(-2i32).to_be_bytes());
    assert_eq!(
        result(&with_value(&t, ColumnType::Text, &negative), &all(vec![0])),
        err(ErrorKind::TruncatedHeader, ChunkId::Value(0), 0, stats_at)
    );
    // Fixed-width statistics cut: at their start.
    let v = int64_page(&[Some(9)], 1, (3, 3));
    for cut in [stats_at, stats_at + 39] {
        assert_eq!(
            result(&with_value(&t, ColumnType::Int64, &v[..cut]), &all(vec![0])),
            err(ErrorKind::TruncatedHeader, ChunkId::Value(0), 0, stats_at),
            "cut at {cut}"
        );
    }
    assert_eq!(
        result(&with_value(&t, ColumnType::Int64, &v[..stats_at + 40]), &all(vec![0])),
        err(ErrorKind::TruncatedPage, ChunkId::Value(0), 0, stats_at + 40)
    );
}

#[test]
fn value_pages_are_held_to_their_time_page() {
    let times: Vec<i64> = (0..10).collect();
    let t = truthful(&times);
    let body_at = 2 + 17 + 40;
    // Row count one more than the time page's.
    let cells: Vec<Option<i64>> = (0..10).map(|r| (r % 3 != 0).then_some(r)).collect();
    let v = int64_page(&cells, 11, (0, 9));
    assert_eq!(
        result(&with_value(&t, ColumnType::Int64, &v), &all(vec![0])),
        err(ErrorKind::RowCountMismatch, ChunkId::Value(0), 0, body_at)
    );
    // A body of 3 bytes: its row count cannot be read.
    let mut short = v[..body_at].to_vec();
    short[0] = 3;
    short[1] = 3;
    short.extend([0, 0, 0]);
    assert_eq!(
        result(&with_value(&t, ColumnType::Int64, &short), &all(vec![0])),
        err(ErrorKind::TruncatedPage, ChunkId::Value(0), 0, body_at)
    );
    // A bitmap one byte short (10 rows need 2).
    let mut cut = v[..body_at].to_vec();
    cut[0] = 5;
    cut[1] = 5;
    cut.extend(10i32.to_be_bytes());
    cut.push(0xFF);
    assert_eq!(
        result(&with_value(&t, ColumnType::Int64, &cut), &all(vec![0])),
        err(ErrorKind::BitmapTruncated, ChunkId::Value(0), 0, body_at + 4)
    );
    // The last bitmap byte's unused bits are set: they hold no value.
    let good = int64_page(&cells, 10, (0, 9));
    let mut spare = good.clone();
    spare[body_at + 5] |= 0x3F;
    let want = scan(
        &with_value(&t, ColumnType::Int64, &good),
        &all(vec![0]),
        ScanOptions::default(),
    )
    .result;
    assert!(want.is_ok());
    assert_eq!(
        scan(
            &with_value(&t, ColumnType::Int64, &spare),
            &all(vec![0]),
            ScanOptions::default()
        )
        .result,
        want
    );
    // A value missing: the page holds fewer values than its bitmap says.
    let mut fewer = good.clone();
    fewer.truncate(fewer.len() - 8);
    fewer[0] -= 8;
    fewer[1] -= 8;
    let got = result(&with_value(&t, ColumnType::Int64, &fewer), &all(vec![0]));
    assert_eq!(
        got,
        err(ErrorKind::ValueCountMismatch, ChunkId::Value(0), 0, body_at + 6)
    );
}

#[test]
fn header_statistics_that_contradict_the_chunk_are_lies() {
    let first = truthful(&[1, 2, 3]);
    let at = first.len();
    let lie = |stats| [first.clone(), time_page(&[5, 6], stats)].concat();
    for (stats, why) in [
        ((0, 5, 6), "count 0"),
        ((2, 6, 5), "start after end"),
        ((2, 3, 6), "start at the previous end"),
        ((2, 2, 6), "start before the previous end"),
    ] {
        assert_eq!(
            result(&time_only(&lie(stats)), &all(vec![])),
            err(ErrorKind::StatisticsLie, ChunkId::Time, 1, at),
            "{why}"
        );
    }
    // Start just after the previous end: truthful.
    let fine = [first.clone(), truthful(&[4, 5])].concat();
    assert!(result(&time_only(&fine), &all(vec![])).is_ok());
    // Decoded times that differ from the header: count, first, last.
    for stats in [(3, 5, 6), (2, 4, 6), (2, 5, 7)] {
        let data = [first.clone(), time_page(&[5, 6], stats)].concat();
        assert_eq!(
            result(&time_only(&data), &all(vec![])),
            err(ErrorKind::StatisticsLie, ChunkId::Time, 1, at),
            "{stats:?}"
        );
    }
    // Times that do not increase inside a page.
    let data = time_page(&[5, 5], (2, 5, 5));
    assert_eq!(
        result(&time_only(&data), &all(vec![])),
        err(ErrorKind::TimesNotIncreasing, ChunkId::Time, 0, 19)
    );
}

#[test]
fn requests_that_cannot_be_served_are_bad_requests() {
    let t = truthful(&[1]);
    let v = int64_page(&[Some(1)], 1, (1, 1));
    let g = with_value(&t, ColumnType::Int64, &v);
    let bad = err(ErrorKind::BadRequest, ChunkId::Time, 0, 0);
    assert_eq!(
        result(
            &g,
            &Request {
                block_rows: 0,
                ..all(vec![0])
            }
        ),
        bad
    );
    assert_eq!(result(&g, &all(vec![0, 1])), bad);
    let mut field = all(vec![0]);
    field.filter.field = Some(FieldFilter {
        column: 1,
        op: FieldOp::IsNull,
    });
    assert_eq!(result(&g, &field), bad);
    assert!(result(&g, &all(vec![0])).is_ok());
    // The time chunk must be in an INT64 encoding.
    for encoding in [Encoding::Dictionary, Encoding::Camel] {
        let g = Group {
            time: Chunk::plain(ColumnType::Int64, encoding, &t),
            values: vec![],
        };
        assert_eq!(
            result(&g, &all(vec![])),
            err(ErrorKind::Unsupported, ChunkId::Time, 0, 0)
        );
    }
}

#[test]
fn ts2diff_time_pages_are_read_as_ts2diff() {
    // Times 100, 103, 106, 109: one block of 3 deltas, bit width 0 (each
    // delta minus the minimum, 3, is 0): deltas and width as u32 BE, then
    // the minimum delta and the first value as i64 BE, no packed bits.
    let mut body = Vec::new();
    body.extend(3u32.to_be_bytes());
    body.extend(0u32.to_be_bytes());
    body.extend(3i64.to_be_bytes());
    body.extend(100i64.to_be_bytes());
    let mut page = Vec::new();
    uvarint(&mut page, body.len() as u64);
    uvarint(&mut page, body.len() as u64);
    uvarint(&mut page, 4);
    page.extend(100i64.to_be_bytes());
    page.extend(109i64.to_be_bytes());
    page.extend(&body);
    let g = Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Ts2Diff, &page),
        values: vec![None],
    };
    let out = scan(&g, &all(vec![0]), ScanOptions::default());
    assert_eq!(out.result.unwrap()[0].times, [100, 103, 106, 109]);
    // Read as PLAIN the same body is other times: a lie by its statistics.
    let g = Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &page),
        values: vec![None],
    };
    assert_eq!(
        scan(&g, &all(vec![0]), ScanOptions::default()).result.unwrap_err().kind,
        ErrorKind::StatisticsLie
    );
}

#[test]
fn header_statistics_are_checked_for_pages_the_plan_skips() {
    // Page 1's times agree with its header, but the header overlaps page
    // 0 (start at its end) or runs backwards: only the header checks can
    // tell, and they hold even where the filter skips the page.
    let first = truthful(&[1, 2, 3]);
    let at = first.len();
    let skips_page_1 = Request {
        filter: Filter {
            time: Some(TimeFilter::Lt(3)),
            field: None,
        },
        ..all(vec![])
    };
    for (second, why) in [
        (time_page(&[3, 6], (2, 3, 6)), "start at the previous end"),
        (time_page(&[5, 6], (2, 9, 5)), "start after end"),
    ] {
        let data = [first.clone(), second].concat();
        for r in [all(vec![]), skips_page_1.clone()] {
            assert_eq!(
                result(&time_only(&data), &r),
                err(ErrorKind::StatisticsLie, ChunkId::Time, 1, at),
                "{why}, {:?}",
                r.filter
            );
        }
    }
}

#[test]
fn an_all_null_page_that_is_not_empty_keeps_its_long_bitmap() {
    // 20 rows, every one null, written as a page (not the empty page): the
    // body is the row count and a 3-byte bitmap of zeros, nothing else.
    let times: Vec<i64> = (0..20).collect();
    let t = truthful(&times);
    let v = int64_page(&[None; 20], 20, (0, 19));
    let out = scan(
        &with_value(&t, ColumnType::Int64, &v),
        &all(vec![0]),
        ScanOptions::default(),
    );
    let blocks = out.result.unwrap();
    assert_eq!(blocks[0].canonical().1, vec![vec![None; 20]]);
}

#[test]
fn in_place_decode_stops_where_the_limit_cuts_a_page() {
    let times: Vec<i64> = (0..24).collect();
    let t: Vec<u8> = times.chunks(8).flat_map(truthful).collect();
    let v: Vec<u8> = times
        .chunks(8)
        .flat_map(|c| int64_page(&c.iter().map(|&x| Some(x)).collect::<Vec<_>>(), 8, (c[0], c[7])))
        .collect();
    let g = with_value(&t, ColumnType::Int64, &v);
    for (limit, in_place) in [
        (16, [true, true, false]),
        (8, [true, false, false]),
        (7, [false, false, false]),
    ] {
        let r = Request {
            limit: Some(limit),
            ..all(vec![0])
        };
        let out = scan(&g, &r, ScanOptions::default());
        let rows: usize = out.result.as_ref().unwrap().iter().map(Block::rows).sum();
        assert_eq!(rows as u64, limit);
        for (p, &want) in in_place.iter().enumerate() {
            let got = matches!(out.stats.plan[p], PageAction::FullPass { in_place: true });
            assert_eq!(got, want, "limit {limit}, page {p}: {:?}", out.stats.plan);
        }
    }
}
