//! Hand-built chunk groups through the reference scanner, with expected
//! results worked out from the format notes: whole scans here, filters,
//! page headers and bodies, and every error with its position in the
//! modules below.

mod encodings;
mod errors;
mod filters;
mod output;
mod pages;
mod storage;
mod times;
mod value_stats;

use super::write::{time_body, time_page, value_page_for, Stats};
use super::*;

/// A page-row bound for the tests (the default is the format's u32::MAX):
/// small enough that "one past it" is cheap to build.
const MAX_PAGE_ROWS: usize = 1 << 20;

/// Pages of `per_page` rows at times `0, 10, 20, ...`; column 0 INT64
/// `t * 2` (null every third row), column 1 TEXT, column 2 missing.
fn group_bytes(rows: usize, per_page: usize) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let times: Vec<i64> = (0..rows as i64).map(|r| r * 10).collect();
    let (mut t, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for page in times.chunks(per_page) {
        t.extend(time_page(
            &time_body(page, Encoding::Ts2Diff, Writer::Cpp),
            Stats::of(page),
        ));
        let ints: Vec<Option<Value>> = page
            .iter()
            .map(|&x| (x % 30 != 0).then_some(Value::I64(x * 2)))
            .collect();
        a.extend(value_page_for(
            ColumnType::Int64,
            Encoding::Gorilla,
            page,
            &ints,
            true,
            Writer::Cpp,
        ));
        let texts: Vec<Option<Value>> = page
            .iter()
            .map(|&x| Some(Value::Bytes(x.to_string().into_bytes())))
            .collect();
        b.extend(value_page_for(
            ColumnType::Text,
            Encoding::Plain,
            page,
            &texts,
            true,
            Writer::Cpp,
        ));
    }
    (t, a, b)
}

/// A typed error at a position.
fn at(kind: ErrorKind, chunk: ChunkId, page: usize, offset: usize) -> ScanError {
    ScanError {
        kind,
        chunk,
        page,
        offset,
    }
}

/// A group of a time chunk (INT64) and one value chunk.
fn time_and_one_value<'a>(time: (Encoding, &'a [u8]), value: (ColumnType, Encoding, &'a [u8])) -> Group<'a> {
    let (encoding, data) = time;
    let (data_type, value_encoding, value_data) = value;
    Group {
        time: Chunk::plain(ColumnType::Int64, encoding, data),
        values: vec![Some(Chunk::plain(data_type, value_encoding, value_data))],
    }
}

fn group<'a>(t: &'a [u8], a: &'a [u8], b: &'a [u8]) -> Group<'a> {
    Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Ts2Diff, t),
        values: vec![
            Some(Chunk::plain(ColumnType::Int64, Encoding::Gorilla, a)),
            Some(Chunk::plain(ColumnType::Text, Encoding::Plain, b)),
            None,
        ],
    }
}

fn request(time: Option<TimeFilter>, block_rows: usize) -> Request {
    Request {
        filter: Filter { time, field: None },
        offset: 0,
        limit: None,
        columns: vec![0, 1, 2],
        block_rows,
        writer: Writer::Cpp,
    }
}

fn times(blocks: &[Block]) -> Vec<i64> {
    blocks.iter().flat_map(|b| b.times.iter().copied()).collect()
}

#[test]
fn between_window_rows_in_blocks() {
    let (t, a, b) = group_bytes(20, 8);
    let g = group(&t, &a, &b);
    let blocks = scan(&g, &request(Some(TimeFilter::Between(30, 120)), 4)).unwrap();
    assert_eq!(times(&blocks), (3..=12).map(|r| r * 10).collect::<Vec<_>>());
    assert_eq!(blocks.iter().map(|b| b.times.len()).collect::<Vec<_>>(), [4, 4, 2]);
    let first = &blocks[0];
    assert_eq!(
        first.columns[0],
        [None, Some(Value::I64(80)), Some(Value::I64(100)), None]
    );
    assert_eq!(first.columns[1][0], Some(Value::Bytes(b"30".to_vec())));
    assert!(
        first.columns[2].iter().all(Option::is_none),
        "a missing measurement is null"
    );
}

#[test]
fn offset_limit_field_filter_and_nested_time() {
    let (t, a, b) = group_bytes(30, 7);
    let g = group(&t, &a, &b);
    let mut r = request(
        Some(TimeFilter::And(
            Box::new(TimeFilter::Not(Box::new(TimeFilter::In(vec![50, 60])))),
            Box::new(TimeFilter::Or(
                Box::new(TimeFilter::Lt(100)),
                Box::new(TimeFilter::GtEq(250)),
            )),
        )),
        100,
    );
    assert_eq!(
        times(&scan(&g, &r).unwrap()),
        [0, 10, 20, 30, 40, 70, 80, 90, 250, 260, 270, 280, 290]
    );
    r.filter.field = Some(FieldFilter {
        column: 0,
        op: FieldOp::IsNull,
    });
    assert_eq!(times(&scan(&g, &r).unwrap()), [0, 30, 90, 270]);
    r.filter.field = Some(FieldFilter {
        column: 0,
        op: FieldOp::Cmp(CmpOp::Gt, Value::I64(100)),
    });
    r.offset = 1;
    r.limit = Some(3);
    assert_eq!(times(&scan(&g, &r).unwrap()), [80, 250, 260]);
    r.limit = Some(0);
    assert!(scan(&g, &r).unwrap().is_empty());
}

#[test]
fn lying_statistics_and_malformed_pages_are_typed_errors() {
    let page = [5i64, 6, 7];
    let body = time_body(&page, Encoding::Ts2Diff, Writer::Cpp);
    let lie = time_page(
        &body,
        Stats {
            count: 3,
            start: 5,
            end: 8,
        },
    );
    let g = Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Ts2Diff, &lie),
        values: vec![],
    };
    let r = Request {
        columns: vec![],
        ..request(None, 10)
    };
    assert_eq!(
        scan(&g, &r),
        Err(ScanError {
            kind: ErrorKind::StatisticsLie,
            chunk: ChunkId::Time,
            page: 0,
            offset: 0
        })
    );
    let truthful = time_page(&body, Stats::of(&page));
    let cut = &truthful[..truthful.len() - 1];
    let g = Group {
        time: Chunk { data: cut, ..g.time },
        values: vec![],
    };
    assert_eq!(scan(&g, &r).unwrap_err().kind, ErrorKind::TruncatedPage);
    assert_eq!(
        scan(&g, &Request { block_rows: 0, ..r }).unwrap_err().kind,
        ErrorKind::BadRequest
    );
}

#[test]
fn extreme_times_and_value_page_row_mismatch() {
    let page = [i64::MIN, 0, i64::MAX];
    let t = time_page(&time_body(&page, Encoding::Plain, Writer::Cpp), Stats::of(&page));
    let cells = [Some(Value::Bool(true)), None];
    let v = value_page_for(
        ColumnType::Boolean,
        Encoding::Rle,
        &page[..2],
        &cells,
        false,
        Writer::Cpp,
    );
    let g = time_and_one_value((Encoding::Plain, &t), (ColumnType::Boolean, Encoding::Rle, &v));
    let r = Request {
        columns: vec![0],
        ..request(Some(TimeFilter::GtEq(i64::MIN)), 1)
    };
    assert_eq!(scan(&g, &r).unwrap_err().kind, ErrorKind::RowCountMismatch);
    let r = Request { columns: vec![], ..r };
    assert_eq!(times(&scan(&g, &r).unwrap()), page);
}
