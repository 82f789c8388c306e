//! Compressed chunks and chunks of one page (headers without statistics):
//! the same rows as the uncompressed chunk with statistics, and typed
//! errors for what decompression can get wrong.

use super::super::write::restore_chunk;
use super::*;

/// A stand-in codec (id 7): the stored body is the page body reversed.
/// Id 8 "decompresses" to one byte too many.
struct Reversed;

impl Decompress for Reversed {
    fn decompress(&self, compression: u8, body: &[u8], size: usize) -> Result<Vec<u8>, String> {
        match compression {
            7 => Ok(body.iter().rev().copied().collect()),
            8 => Ok(vec![0; size + 1]),
            _ => Err(format!("unknown compression {compression}")),
        }
    }
}

fn reverse(body: &[u8]) -> Vec<u8> {
    body.iter().rev().copied().collect()
}

fn stored(data: &[u8], t: Option<ColumnType>, compress: bool, statistics: bool) -> Vec<u8> {
    let identity = |b: &[u8]| b.to_vec();
    let f: &dyn Fn(&[u8]) -> Vec<u8> = if compress { &reverse } else { &identity };
    restore_chunk(data, t, f, statistics).unwrap()
}

fn restored<'a>(g: &Group<'a>, compression: u8, statistics: bool, bytes: &'a [Vec<u8>]) -> Group<'a> {
    let chunk = |c: &Chunk<'a>, data: &'a [u8]| Chunk {
        compression,
        page_statistics: statistics,
        data,
        ..*c
    };
    Group {
        time: chunk(&g.time, &bytes[0]),
        values: g
            .values
            .iter()
            .zip(&bytes[1..])
            .map(|(c, data)| c.as_ref().map(|c| chunk(c, data)))
            .collect(),
    }
}

fn requests() -> Vec<Request> {
    let mut all = vec![request(None, 1000), request(Some(TimeFilter::Between(25, 141)), 3)];
    let mut r = request(Some(TimeFilter::NotIn(vec![0, 70, 80])), 5);
    r.filter.field = Some(FieldFilter {
        column: 0,
        op: FieldOp::IsNotNull,
    });
    r.offset = 2;
    r.limit = Some(9);
    all.push(r);
    all
}

#[test]
fn compressed_and_one_page_chunks_read_as_the_plain_chunk() {
    for (rows, per_page) in [(20, 7), (9, 9), (1, 1)] {
        let (t, a, b) = group_bytes(rows, per_page);
        let g = group(&t, &a, &b);
        for (compress, statistics) in [(true, true), (false, false), (true, false)] {
            let bytes = vec![
                stored(&t, None, compress, statistics),
                stored(&a, Some(ColumnType::Int64), compress, statistics),
                stored(&b, Some(ColumnType::Text), compress, statistics),
                vec![],
            ];
            let compression = if compress { 7 } else { 0 };
            let other = restored(&g, compression, statistics, &bytes);
            for r in requests() {
                let want = scan(&g, &r).unwrap();
                assert!(r.filter.time.is_some() || !want.is_empty());
                assert_eq!(
                    scan_with(&other, &r, &Reversed).unwrap(),
                    want,
                    "{rows} rows, {per_page} per page, compressed {compress}, statistics {statistics}"
                );
            }
        }
    }
}

#[test]
fn compressed_pages_need_their_codec_and_its_exact_size() {
    let (t, a, b) = group_bytes(10, 4);
    let g = group(&t, &a, &b);
    let bytes = vec![
        stored(&t, None, true, true),
        stored(&a, Some(ColumnType::Int64), true, true),
        stored(&b, Some(ColumnType::Text), true, true),
        vec![],
    ];
    let other = restored(&g, 7, true, &bytes);
    let r = request(None, 100);
    // The time chunk's first body starts after sizes (1 + 1 bytes) and statistics (1 + 8 + 8).
    let first_body = 19;
    let err = scan(&other, &r).unwrap_err();
    assert_eq!((err.chunk, err.page, err.offset), (ChunkId::Time, 0, first_body));
    assert!(
        matches!(&err.kind, ErrorKind::Decompress(why) if why.contains("compression id 7")),
        "{err}"
    );

    let other = restored(&g, 8, true, &bytes);
    let err = scan_with(&other, &r, &Reversed).unwrap_err();
    assert_eq!(
        err,
        at(
            ErrorKind::Decompress(format!("{} bytes, the header says {}", t[0] + 1, t[0])),
            ChunkId::Time,
            0,
            first_body
        )
    );
}

#[test]
fn sizes_may_differ_only_in_a_compressed_chunk() {
    let times = [5i64, 6];
    let body = time_body(&times, Encoding::Plain, Writer::Cpp);
    let mut page = vec![body.len() as u8, body.len() as u8 + 1];
    page.extend(time_page(&body, Stats::of(&times))[2..19].iter());
    page.extend(reverse(&body));
    page.push(0xAA);
    let chunk = Chunk::plain(ColumnType::Int64, Encoding::Plain, &page);
    let g = Group {
        time: chunk,
        values: vec![],
    };
    let r = Request {
        columns: vec![],
        ..request(None, 10)
    };
    assert_eq!(scan(&g, &r), Err(at(ErrorKind::BadPageSize, ChunkId::Time, 0, 1)));
    // Compressed: the stored body is one byte longer; the stand-in codec
    // gives back one byte too many, so the size check fires at the body.
    let g = Group {
        time: Chunk {
            compression: 7,
            ..chunk
        },
        values: vec![],
    };
    let err = scan_with(&g, &r, &Reversed).unwrap_err();
    assert_eq!((err.page, err.offset), (0, 19));
    assert!(matches!(err.kind, ErrorKind::Decompress(_)));
}

#[test]
fn errors_inside_a_compressed_value_page_are_at_its_body() {
    let times = [1i64, 2, 3];
    let t = time_page(&time_body(&times, Encoding::Plain, Writer::Cpp), Stats::of(&times));
    // A value page whose row count says 4: caught after decompression.
    let cells = [Some(Value::I32(1)), None, Some(Value::I32(3)), None];
    let v = value_page_for(
        ColumnType::Int32,
        Encoding::Plain,
        &[1, 2, 3, 4],
        &cells,
        false,
        Writer::Cpp,
    );
    let v = stored(&v, Some(ColumnType::Int32), true, true);
    let body_at = v.len() - (v[0] as usize);
    let g = Group {
        time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &t),
        values: vec![Some(Chunk {
            compression: 7,
            ..Chunk::plain(ColumnType::Int32, Encoding::Plain, &v)
        })],
    };
    let mut r = request(None, 10);
    r.columns = vec![0];
    assert_eq!(
        scan_with(&g, &r, &Reversed),
        Err(at(ErrorKind::RowCountMismatch, ChunkId::Value(0), 0, body_at))
    );
}

#[test]
fn pages_without_statistics_are_not_held_to_any() {
    // Two pages without statistics whose times would break the chain
    // check (the second starts before the first ends) if they had any.
    let (t, a, b) = group_bytes(6, 3);
    let swapped = [&t[t.len() / 2..], &t[..t.len() / 2]].concat();
    let bytes = vec![
        stored(&swapped, None, false, false),
        stored(&a, Some(ColumnType::Int64), false, false),
        stored(&b, Some(ColumnType::Text), false, false),
        vec![],
    ];
    let g = group(&t, &a, &b);
    let other = restored(&g, 0, false, &bytes);
    let got = scan(&other, &request(None, 10)).unwrap();
    assert_eq!(times(&got), [30, 40, 50, 0, 10, 20]);
    // With statistics the same order is a lie.
    let err = scan(
        &Group {
            time: Chunk::plain(ColumnType::Int64, Encoding::Ts2Diff, &swapped),
            ..g
        },
        &request(None, 10),
    );
    assert_eq!(err.unwrap_err().kind, ErrorKind::StatisticsLie);
}
