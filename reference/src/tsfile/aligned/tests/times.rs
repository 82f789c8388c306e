//! Time chunks in every INT64 encoding and the writer's layouts: times the
//! builders wrote read back in multi-page chunks and in chunks of one page
//! without statistics; GORILLA and CHIMP counted by the statistics, else up
//! to the terminator; the cap; value pages in the Java writer's layouts.

use super::*;
use crate::tsfile::aligned::page::{decode_times, supported};
use crate::tsfile::aligned::write::value_body;

/// Every INT64 encoding: a time chunk's.
const TIME_ENCODINGS: [Encoding; 8] = [
    Encoding::Plain,
    Encoding::Ts2Diff,
    Encoding::Gorilla,
    Encoding::Rle,
    Encoding::Zigzag,
    Encoding::Chimp,
    Encoding::Sprintz,
    Encoding::Rlbe,
];

fn chunk(encoding: Encoding, statistics: bool, data: &[u8]) -> Group<'_> {
    Group {
        time: Chunk {
            page_statistics: statistics,
            ..Chunk::plain(ColumnType::Int64, encoding, data)
        },
        values: vec![],
    }
}

fn all_times(g: &Group<'_>, writer: Writer) -> Result<Vec<i64>, ScanError> {
    let r = Request {
        columns: vec![],
        writer,
        ..request(None, 7)
    };
    scan(g, &r).map(|b| times(&b))
}

/// A chunk's one page without statistics.
fn unannotated(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    crate::tsfile::write_uvarint(&mut out, body.len() as u64);
    crate::tsfile::write_uvarint(&mut out, body.len() as u64);
    out.extend_from_slice(body);
    out
}

#[test]
fn every_int64_encoding_is_a_time_encoding_and_nothing_else_is() {
    for e in TIME_ENCODINGS {
        assert!(supported(ColumnType::Int64, e), "{e:?}");
    }
    assert!(!supported(ColumnType::Int64, Encoding::Dictionary));
    assert!(!supported(ColumnType::Int64, Encoding::Camel));
}

#[test]
fn times_in_every_encoding_read_back_as_written() {
    let pages: [&[i64]; 4] = [
        &[i64::MIN, i64::MIN + 1, -5],
        &[-3, 0, 5, 1000, 1001, 1 << 40],
        &[(1 << 41) + 1],
        &[i64::MAX - 3, i64::MAX],
    ];
    let written: Vec<i64> = pages.concat();
    for e in TIME_ENCODINGS {
        for writer in [Writer::Cpp, Writer::Java] {
            let data: Vec<u8> = pages
                .iter()
                .flat_map(|p| time_page(&time_body(p, e, writer), Stats::of(p)))
                .collect();
            assert_eq!(
                all_times(&chunk(e, true, &data), writer),
                Ok(written.clone()),
                "{e:?} {writer:?}"
            );
            // One page without statistics (GORILLA and CHIMP up to their
            // terminator: a page not starting at i64::MIN).
            let page = pages[1];
            let one = unannotated(&time_body(page, e, writer));
            assert_eq!(
                all_times(&chunk(e, false, &one), writer),
                Ok(page.to_vec()),
                "{e:?} {writer:?}"
            );
        }
    }
}

/// REGULAR time chunks: timestamps every second with points missing (the
/// series REGULAR is for, read back exactly), in pages with and without
/// statistics; a page the Java writer wrote; a page whose blocks give other
/// times than its statistics say is a lie.
#[test]
fn regular_time_chunks_read_back_as_written() {
    let e = Encoding::Regular;
    assert!(supported(ColumnType::Int64, e) && supported(ColumnType::Timestamp, e));
    let start = 1_700_000_000_000i64;
    let pages: Vec<Vec<i64>> = vec![
        (0..300).filter(|k| k % 7 != 3).map(|k| start + 1000 * k).collect(),
        vec![start + 400_000],
        (0..5).map(|k| start + 500_000 + 8000 * k).collect(),
    ];
    let written: Vec<i64> = pages.concat();
    for writer in [Writer::Cpp, Writer::Java] {
        let data: Vec<u8> = pages
            .iter()
            .flat_map(|p| time_page(&time_body(p, e, writer), Stats::of(p)))
            .collect();
        assert_eq!(all_times(&chunk(e, true, &data), writer), Ok(written.clone()));
        let one = unannotated(&time_body(&pages[0], e, writer));
        assert_eq!(all_times(&chunk(e, false, &one), writer), Ok(pages[0].clone()));
    }
    // The Java writer's page of [0, 10, 20, 50, 60, 90].
    let java: Vec<u8> = [
        "01 00 00 00 02 67 02 00 00 00 0a",
        "00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00",
    ]
    .join(" ")
    .split_whitespace()
    .map(|b| u8::from_str_radix(b, 16).unwrap())
    .collect();
    let times = vec![0, 10, 20, 50, 60, 90];
    assert_eq!(
        decode_times(&java, e, Writer::Java, None, MAX_PAGE_ROWS),
        Ok(times.clone())
    );
    let data = time_page(&java, Stats::of(&times));
    assert_eq!(all_times(&chunk(e, true, &data), Writer::Java), Ok(times.clone()));
    // Statistics of the series written, blocks of another (the writer's
    // lossy page of [0, 5, 7], read as [0, 4, 6]).
    let lossy = time_body(&[0, 5, 7], e, Writer::Java);
    let data = time_page(&lossy, Stats::of(&[0, 5, 7]));
    assert_eq!(
        all_times(&chunk(e, true, &data), Writer::Java).unwrap_err().kind,
        ErrorKind::StatisticsLie
    );
}

#[test]
fn gorilla_and_chimp_times_are_counted_by_statistics_else_end_at_the_terminator() {
    let page = [i64::MIN, i64::MIN + 2, 7];
    for e in [Encoding::Gorilla, Encoding::Chimp] {
        let body = time_body(&page, e, Writer::Cpp);
        assert_eq!(
            decode_times(&body, e, Writer::Cpp, Some(3), MAX_PAGE_ROWS),
            Ok(page.to_vec())
        );
        // The classic reader's way: the first time is the terminator.
        assert_eq!(decode_times(&body, e, Writer::Cpp, None, MAX_PAGE_ROWS), Ok(vec![]));
        // A count of one more reads the terminator as a time.
        assert_eq!(
            decode_times(&body, e, Writer::Cpp, Some(4), MAX_PAGE_ROWS).map(|t| t[3]),
            Ok(i64::MIN),
            "{e:?}"
        );
        // Past the cap: refused before anything is decoded.
        assert_eq!(
            decode_times(&body, e, Writer::Cpp, Some(MAX_PAGE_ROWS as u32 + 1), MAX_PAGE_ROWS),
            Err("TooManyValues { max: 1048576, offset: 0 }".into())
        );
        // A one-page chunk starting at the terminator holds no row; its
        // value page's rows then do not match.
        let data = unannotated(&body);
        let cells = vec![Some(Value::I64(1)); 3];
        let values = unannotated(&value_body(ColumnType::Int64, Encoding::Plain, &cells, Writer::Cpp));
        let g = Group {
            values: vec![Some(Chunk {
                page_statistics: false,
                ..Chunk::plain(ColumnType::Int64, Encoding::Plain, &values)
            })],
            ..chunk(e, false, &data)
        };
        let r = Request {
            columns: vec![0],
            ..request(None, 7)
        };
        assert_eq!(scan(&g, &r).unwrap_err().kind, ErrorKind::RowCountMismatch);
    }
}

#[test]
fn rle_runs_are_times_up_to_the_cap() {
    // One run of 100 sevens in 5 bytes: read whole, then not increasing.
    let run = [0x04, 0x03, 0xc8, 0x01, 0x07];
    assert_eq!(
        decode_times(&run, Encoding::Rle, Writer::Cpp, None, MAX_PAGE_ROWS).map(|t| t.len()),
        Ok(100)
    );
    let data = unannotated(&run);
    assert_eq!(
        all_times(&chunk(Encoding::Rle, false, &data), Writer::Cpp),
        Err(at(ErrorKind::TimesNotIncreasing, ChunkId::Time, 0, 2))
    );
    // A run one past the cap.
    let run = [0x06, 0x03, 0x82, 0x80, 0x80, 0x01, 0x07];
    assert_eq!(
        decode_times(&run, Encoding::Rle, Writer::Cpp, None, MAX_PAGE_ROWS),
        Err("TooManyValues { max: 1048576, offset: 2 }".into())
    );
}

#[test]
fn sprintz_times_read_with_the_writers_predictor() {
    // Steps of about 2^59 / 3: Java's predictor (the one the builders
    // write) reads them back; C++'s 128-bit product reads other times, the
    // fifth below the fourth.
    let written: Vec<i64> = (0..9i64).map(|i| i * (1 << 59) / 3 + i * i * (1 << 50)).collect();
    let body = time_body(&written, Encoding::Sprintz, Writer::Java);
    assert_eq!(
        decode_times(&body, Encoding::Sprintz, Writer::Java, None, MAX_PAGE_ROWS),
        Ok(written.clone())
    );
    let cpp = decode_times(&body, Encoding::Sprintz, Writer::Cpp, None, MAX_PAGE_ROWS).unwrap();
    assert_eq!(cpp[..3], written[..3]);
    assert!(cpp[4] < cpp[3]);
    let data = time_page(&body, Stats::of(&written));
    let g = chunk(Encoding::Sprintz, true, &data);
    assert_eq!(all_times(&g, Writer::Java), Ok(written));
    assert_eq!(all_times(&g, Writer::Cpp).unwrap_err().kind, ErrorKind::StatisticsLie);
}

#[test]
fn value_pages_in_the_java_writers_layouts_read_back_with_it() {
    // RLBE FLOAT / DOUBLE: float differences (Java) or the bits (C++).
    let floats = [1.5f32, 2.0, 1.0, -0.25].map(|x| Some(Value::F32(x.to_bits())));
    let doubles = [1.5f64, 2.0, 1.0, -0.25].map(|x| Some(Value::F64(x.to_bits())));
    let times = [1i64, 2, 3, 4];
    let t = time_page(&time_body(&times, Encoding::Plain, Writer::Cpp), Stats::of(&times));
    for (ty, cells) in [(ColumnType::Float, &floats[..]), (ColumnType::Double, &doubles[..])] {
        for writer in [Writer::Java, Writer::Cpp] {
            let v = value_page_for(ty, Encoding::Rlbe, &times, cells, false, writer);
            let g = time_and_one_value((Encoding::Plain, &t), (ty, Encoding::Rlbe, &v));
            for reader in [Writer::Java, Writer::Cpp] {
                let r = Request {
                    columns: vec![0],
                    writer: reader,
                    ..request(None, 7)
                };
                let got = scan(&g, &r).map(|b| b[0].columns[0].clone());
                assert_eq!(
                    got == Ok(cells.to_vec()),
                    reader == writer,
                    "{ty:?} written {writer:?} read {reader:?}"
                );
            }
        }
    }
}
