//! Every error the scan reports, with its chunk, page and byte offset, and
//! the order in which it looks for them.

use super::at;
use crate::tsfile::aligned::write::*;
use crate::tsfile::aligned::*;

fn plain_times(times: &[i64]) -> Vec<u8> {
    time_page(&time_body(times, Encoding::Plain, Writer::Cpp), Stats::of(times))
}

fn lying_times(times: &[i64], stats: Stats) -> Vec<u8> {
    time_page(&time_body(times, Encoding::Plain, Writer::Cpp), stats)
}

fn time_chunk(data: &[u8]) -> Chunk<'_> {
    Chunk::plain(ColumnType::Int64, Encoding::Plain, data)
}

fn int32_chunk(data: &[u8]) -> Chunk<'_> {
    Chunk::plain(ColumnType::Int32, Encoding::Plain, data)
}

fn int32_page(times: &[i64], values: &[Option<i32>]) -> Vec<u8> {
    let cells: Vec<Option<Value>> = values.iter().map(|v| v.map(Value::I32)).collect();
    value_page_for(ColumnType::Int32, Encoding::Plain, times, &cells, false, Writer::Cpp)
}

fn reading(columns: Vec<usize>) -> Request {
    Request {
        filter: Filter::default(),
        offset: 0,
        limit: None,
        columns,
        block_rows: 100,
        writer: Writer::Cpp,
    }
}

fn group<'a>(time: &'a [u8], values: &[Option<&'a [u8]>]) -> Group<'a> {
    Group {
        time: time_chunk(time),
        values: values.iter().map(|v| v.map(int32_chunk)).collect(),
    }
}

#[test]
fn bad_requests() {
    let t = plain_times(&[1]);
    let v = int32_page(&[1], &[Some(5)]);
    let g = group(&t, &[Some(&v)]);
    let bad = Err(at(ErrorKind::BadRequest, ChunkId::Time, 0, 0));
    assert!(scan(&g, &reading(vec![0])).is_ok());
    assert_eq!(
        scan(
            &g,
            &Request {
                block_rows: 0,
                ..reading(vec![0])
            }
        ),
        bad
    );
    assert!(scan(
        &g,
        &Request {
            block_rows: 1,
            ..reading(vec![0])
        }
    )
    .is_ok());
    assert_eq!(scan(&g, &reading(vec![0, 1])), bad);
    let mut field = reading(vec![]);
    field.filter.field = Some(FieldFilter {
        column: 1,
        op: FieldOp::IsNull,
    });
    assert_eq!(scan(&g, &field), bad);
    field.filter.field = Some(FieldFilter {
        column: 0,
        op: FieldOp::IsNull,
    });
    assert_eq!(scan(&g, &field), Ok(vec![]));
}

#[test]
fn unsupported_encodings() {
    let t = plain_times(&[1]);
    // Times are INT64: no DICTIONARY, no CAMEL.
    for encoding in [Encoding::Dictionary, Encoding::Camel] {
        let g = Group {
            time: Chunk {
                encoding,
                ..time_chunk(&t)
            },
            values: vec![],
        };
        assert_eq!(
            scan(&g, &reading(vec![])),
            Err(at(ErrorKind::Unsupported, ChunkId::Time, 0, 0))
        );
    }
    let v = int32_page(&[1], &[Some(5)]);
    let g = Group {
        time: time_chunk(&t),
        values: vec![None, Some(Chunk::plain(ColumnType::Boolean, Encoding::Ts2Diff, &v))],
    };
    assert_eq!(
        scan(&g, &reading(vec![1])),
        Err(at(ErrorKind::Unsupported, ChunkId::Value(1), 0, 0))
    );
    // A column the scan does not involve is never looked at.
    assert!(scan(&g, &reading(vec![0])).is_ok());
}

#[test]
fn header_statistics_that_contradict_the_chunk() {
    let first = plain_times(&[1, 2]);
    let n = first.len();
    let chunk = |second: Vec<u8>| [first.clone(), second].concat();
    let lie = |second: Vec<u8>| {
        let data = chunk(second);
        scan(&group(&data, &[]), &reading(vec![]))
    };
    let expected = Err(at(ErrorKind::StatisticsLie, ChunkId::Time, 1, n));
    let stats = |count, start, end| Stats { count, start, end };
    assert_eq!(lie(lying_times(&[5, 6], stats(0, 5, 6))), expected, "count 0");
    assert_eq!(lie(lying_times(&[5, 6], stats(2, 6, 5))), expected, "start after end");
    assert_eq!(
        lie(lying_times(&[2, 6], stats(2, 2, 6))),
        expected,
        "start at the previous end"
    );
    assert_eq!(lie(lying_times(&[1, 6], stats(2, 1, 6))), expected, "start before it");
    assert!(
        lie(plain_times(&[3])).is_ok(),
        "start == end, just after the previous end"
    );
}

#[test]
fn statistics_are_checked_against_the_decoded_times() {
    let stats = |count, start, end| Stats { count, start, end };
    let lie = |stats: Stats| {
        let data = lying_times(&[1, 2, 3], stats);
        scan(&group(&data, &[]), &reading(vec![]))
    };
    let expected = Err(at(ErrorKind::StatisticsLie, ChunkId::Time, 0, 0));
    assert_eq!(lie(stats(2, 1, 3)), expected, "count");
    assert_eq!(lie(stats(4, 1, 3)), expected, "count");
    assert_eq!(lie(stats(3, 0, 3)), expected, "first");
    assert_eq!(lie(stats(3, 1, 4)), expected, "last");
    assert!(lie(stats(3, 1, 3)).is_ok());
    // Times that repeat or go back, with statistics that fit them.
    for times in [[1, 1, 2], [1, 3, 2]] {
        let data = lying_times(&times, stats(3, 1, 2));
        assert_eq!(
            scan(&group(&data, &[]), &reading(vec![])),
            Err(at(ErrorKind::TimesNotIncreasing, ChunkId::Time, 0, 19)),
            "{times:?}"
        );
    }
}

#[test]
fn header_checks_of_every_page_come_before_any_decoding() {
    // Page 0's body is not PLAIN INT64 (7 bytes); page 1's header lies.
    let broken = time_page(&[0; 7], Stats::of(&[0]));
    let data = [
        broken.clone(),
        lying_times(
            &[5],
            Stats {
                count: 0,
                start: 5,
                end: 5,
            },
        ),
    ]
    .concat();
    let g = group(&data, &[]);
    let lie = Err(at(ErrorKind::StatisticsLie, ChunkId::Time, 1, broken.len()));
    assert_eq!(scan(&g, &reading(vec![])), lie);
    let data = [broken, plain_times(&[5])].concat();
    let err = scan(&group(&data, &[]), &reading(vec![])).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Decode(_)), "{err:?}");
    assert_eq!((err.chunk, err.page, err.offset), (ChunkId::Time, 0, 19));
}

#[test]
fn value_chunks_with_another_page_count() {
    let t = [plain_times(&[1]), plain_times(&[2])].concat();
    let one = int32_page(&[1], &[Some(1)]);
    let three = [one.clone(), int32_page(&[2], &[None]), int32_page(&[3], &[None])].concat();
    for v in [&one, &three] {
        let g = group(&t, &[Some(v)]);
        assert_eq!(
            scan(&g, &reading(vec![0])),
            Err(at(ErrorKind::PageCountMismatch, ChunkId::Value(0), 2, v.len()))
        );
    }
}

#[test]
fn involved_columns_are_checked_in_ascending_order() {
    let t = plain_times(&[1]);
    let good = int32_page(&[1], &[Some(1)]);
    let short = [good.clone(), vec![0]].concat();
    let g = group(&t, &[Some(&good), Some(&short), Some(&short)]);
    let on = |c: usize| Err(at(ErrorKind::PageCountMismatch, ChunkId::Value(c), 1, short.len()));
    assert_eq!(scan(&g, &reading(vec![2, 1])), on(1));
    assert_eq!(scan(&g, &reading(vec![0, 2])), on(2));
    assert!(scan(&g, &reading(vec![0, 0])).is_ok());
    // A column only the FIELD filter reads is involved too.
    let mut field = reading(vec![0]);
    field.filter.field = Some(FieldFilter {
        column: 2,
        op: FieldOp::IsNotNull,
    });
    assert_eq!(scan(&g, &field), on(2));
}

#[test]
fn pages_are_read_in_order_and_value_pages_after_their_time_page() {
    // Page 0: column 1's body is cut; page 1: the time page's body is bad.
    let t = [plain_times(&[1]), time_page(&[0; 7], Stats::of(&[2]))].concat();
    let good = [int32_page(&[1], &[Some(1)]), int32_page(&[2], &[Some(2)])].concat();
    let cut_body = value_page(ColumnType::Int32, &[0, 0, 0], Stats::of(&[1]));
    let cut = [cut_body.clone(), int32_page(&[2], &[Some(2)])].concat();
    let g = group(&t, &[Some(&good), Some(&cut)]);
    assert_eq!(
        scan(&g, &reading(vec![1, 0])),
        Err(at(ErrorKind::TruncatedPage, ChunkId::Value(1), 0, 43))
    );
    let err = scan(&g, &reading(vec![0])).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Decode(_)), "{err:?}");
    assert_eq!((err.chunk, err.page, err.offset), (ChunkId::Time, 1, 27 + 19));
}

/// A time chunk of `rows` rows (1, 2, ...) and one INT32 PLAIN column whose
/// only page has the body `body`.
fn one_page(rows: i64, body: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let times: Vec<i64> = (1..=rows).collect();
    let v = value_page(ColumnType::Int32, body, Stats::of(&times));
    (plain_times(&times), v)
}

fn value_error(rows: i64, body: &[u8]) -> ScanError {
    let (t, v) = one_page(rows, body);
    scan(&group(&t, &[Some(&v)]), &reading(vec![0])).unwrap_err()
}

#[test]
fn damaged_value_page_bodies() {
    let e = |kind, offset| at(kind, ChunkId::Value(0), 0, offset);
    assert_eq!(value_error(2, &[0, 0, 0]), e(ErrorKind::TruncatedPage, 43));
    assert_eq!(value_error(2, &[0, 0, 0, 3, 0]), e(ErrorKind::RowCountMismatch, 43));
    assert_eq!(value_error(2, &[0, 0, 0, 1, 0]), e(ErrorKind::RowCountMismatch, 43));
    assert_eq!(
        value_error(2, &[0xFF, 0xFF, 0xFF, 0xFE, 0]),
        e(ErrorKind::RowCountMismatch, 43)
    );
    // Nine rows need two bitmap bytes.
    assert_eq!(value_error(9, &[0, 0, 0, 9, 0]), e(ErrorKind::BitmapTruncated, 47));
    assert_eq!(value_error(2, &[0, 0, 0, 2]), e(ErrorKind::BitmapTruncated, 47));
    // Two rows present, one value written; three written.
    assert_eq!(
        value_error(2, &[0, 0, 0, 2, 0xC0, 2]),
        e(ErrorKind::ValueCountMismatch, 48)
    );
    let too_many = value_error(2, &[0, 0, 0, 2, 0xC0, 2, 4, 6]);
    assert!(matches!(too_many.kind, ErrorKind::Decode(_)), "{too_many:?}");
    assert_eq!(too_many.offset, 48);
}

#[test]
fn bitmaps_are_msb_first_and_nulls_take_no_values() {
    // Ten rows, present: 0, 7, 8, 9.
    let body = [vec![0, 0, 0, 10, 0x81, 0xC0], [2, 4, 6, 8].to_vec()].concat();
    let times: Vec<i64> = (1..=10).collect();
    let typed = crate::tsfile::aligned::write::typed_stats(ColumnType::Int32, &[1, 2, 3, 4].map(Value::I32));
    let stats = Stats {
        count: 4,
        ..Stats::of(&times)
    };
    let (t, v) = (
        plain_times(&times),
        crate::tsfile::aligned::write::value_page_typed(&body, stats, &typed),
    );
    let blocks = scan(&group(&t, &[Some(&v)]), &reading(vec![0])).unwrap();
    let i = |x| Some(Value::I32(x));
    assert_eq!(blocks[0].times, (1..=10).collect::<Vec<_>>());
    assert_eq!(
        blocks[0].columns,
        [vec![i(1), None, None, None, None, None, None, i(2), i(3), i(4)]]
    );
    // Exactly the bitmap's bytes and every row null.
    let times: Vec<i64> = (1..=9).collect();
    let stats = Stats {
        count: 0,
        ..Stats::of(&times)
    };
    let (t, v) = (
        plain_times(&times),
        value_page(ColumnType::Int32, &[0, 0, 0, 9, 0, 0], stats),
    );
    let blocks = scan(&group(&t, &[Some(&v)]), &reading(vec![0])).unwrap();
    assert_eq!(blocks[0].columns, [vec![None; 9]]);
}

#[test]
fn empty_and_missing_value_pages_are_null_rows() {
    let t = [plain_times(&[1, 2]), plain_times(&[3])].concat();
    let v = [empty_value_page(), int32_page(&[3], &[Some(9)])].concat();
    let g = group(&t, &[Some(&v), None]);
    let blocks = scan(&g, &reading(vec![1, 0])).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].times, [1, 2, 3]);
    assert_eq!(
        blocks[0].columns,
        [vec![None, None, None], vec![None, None, Some(Value::I32(9))]]
    );
}

#[test]
fn errors_print_their_position() {
    let e = at(ErrorKind::StatisticsLie, ChunkId::Value(3), 1, 19);
    assert_eq!(e.to_string(), "StatisticsLie in Value(3) chunk, page 1, byte 19");
}
