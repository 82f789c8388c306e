//! Offset, limit and blocks.

use crate::tsfile::aligned::write::*;
use crate::tsfile::aligned::*;

/// Ten rows at times 0..10 in pages of four, one INT64 column `t * 3`.
fn chunks() -> (Vec<u8>, Vec<u8>) {
    let times: Vec<i64> = (0..10).collect();
    let (mut t, mut v) = (Vec::new(), Vec::new());
    for page in times.chunks(4) {
        t.extend(time_page(
            &time_body(page, Encoding::Ts2Diff, Writer::Cpp),
            Stats::of(page),
        ));
        let cells: Vec<Option<Value>> = page.iter().map(|&x| Some(Value::I64(x * 3))).collect();
        v.extend(value_page_for(
            ColumnType::Int64,
            Encoding::Ts2Diff,
            page,
            &cells,
            true,
            Writer::Cpp,
        ));
    }
    (t, v)
}

fn group<'a>(t: &'a [u8], v: &'a [u8]) -> Group<'a> {
    super::time_and_one_value((Encoding::Ts2Diff, t), (ColumnType::Int64, Encoding::Ts2Diff, v))
}

fn request(offset: u64, limit: Option<u64>, block_rows: usize, columns: Vec<usize>) -> Request {
    Request {
        filter: Filter::default(),
        offset,
        limit,
        columns,
        block_rows,
        writer: Writer::Cpp,
    }
}

fn run(offset: u64, limit: Option<u64>, block_rows: usize, columns: Vec<usize>) -> Vec<Block> {
    let (t, v) = chunks();
    let g = group(&t, &v);
    scan(&g, &request(offset, limit, block_rows, columns)).unwrap()
}

fn shape(blocks: &[Block]) -> Vec<Vec<i64>> {
    blocks.iter().map(|b| b.times.clone()).collect()
}

#[test]
fn blocks_fill_to_block_rows_with_no_empty_tail() {
    assert_eq!(
        shape(&run(0, None, 5, vec![0])),
        [(0..5).collect::<Vec<_>>(), (5..10).collect()]
    );
    assert_eq!(shape(&run(0, None, 10, vec![0])), [(0..10).collect::<Vec<_>>()]);
    assert_eq!(shape(&run(0, None, 11, vec![0])), [(0..10).collect::<Vec<_>>()]);
    let ones = run(0, None, 1, vec![0]);
    assert_eq!(ones.len(), 10);
    assert_eq!(ones[9].columns, [vec![Some(Value::I64(27))]]);
}

#[test]
fn offset_then_limit() {
    assert_eq!(shape(&run(3, Some(4), 3, vec![0])), [vec![3, 4, 5], vec![6]]);
    assert_eq!(shape(&run(1, None, 100, vec![0])), [(1..10).collect::<Vec<_>>()]);
    assert_eq!(shape(&run(0, Some(1), 100, vec![0])), [vec![0]]);
    assert_eq!(shape(&run(9, Some(12), 100, vec![0])), [vec![9]]);
    assert!(run(10, None, 100, vec![0]).is_empty(), "offset past the last row");
    assert!(run(0, Some(0), 100, vec![0]).is_empty());
}

#[test]
fn columns_in_request_order_with_repeats() {
    let blocks = run(8, None, 100, vec![0, 0]);
    let cells = vec![Some(Value::I64(24)), Some(Value::I64(27))];
    assert_eq!(blocks[0].columns, [cells.clone(), cells]);
    let bare = run(8, None, 100, vec![]);
    assert_eq!((bare[0].times.clone(), bare[0].columns.len()), (vec![8, 9], 0));
}

#[test]
fn every_page_is_decoded_after_the_limit() {
    let (t, mut v) = chunks();
    // The last value page (rows 8 and 9) claims nine rows.
    let cells = [Some(Value::I64(24)), Some(Value::I64(27))];
    let last_page = value_page_for(ColumnType::Int64, Encoding::Ts2Diff, &[8, 9], &cells, true, Writer::Cpp);
    assert!(v.ends_with(&last_page));
    let at = v.len() - last_page.len();
    v.truncate(at);
    v.extend(value_page(ColumnType::Int64, &[0, 0, 0, 9, 0], Stats::of(&[8, 9])));
    let g = group(&t, &v);
    let err = scan(&g, &request(0, Some(1), 100, vec![0])).unwrap_err();
    assert_eq!((err.kind, err.page), (ErrorKind::RowCountMismatch, 2));
}
