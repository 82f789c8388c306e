//! Page headers and bodies, byte by byte: the builders' output pinned to
//! the layout in the format notes, the header walk on valid, overlong and
//! damaged headers, and every type / encoding pair decoded.

use super::at;
use super::MAX_PAGE_ROWS;
use crate::tsfile::aligned::page::{decode_times, decode_values, directory, supported, PageRef};
use crate::tsfile::aligned::write::*;
use crate::tsfile::aligned::*;

const TYPES: [ColumnType; 10] = [
    ColumnType::Boolean,
    ColumnType::Int32,
    ColumnType::Int64,
    ColumnType::Float,
    ColumnType::Double,
    ColumnType::Timestamp,
    ColumnType::Date,
    ColumnType::Text,
    ColumnType::String,
    ColumnType::Blob,
];
const ENCODINGS: [Encoding; 11] = [
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

/// Count, start and end as a page header writes them.
fn common(count: u8, start: i64, end: i64) -> Vec<u8> {
    let mut out = vec![count];
    out.extend(start.to_be_bytes());
    out.extend(end.to_be_bytes());
    out
}

#[test]
fn a_time_page_is_sizes_statistics_and_body() {
    let body = time_body(&[1, 2], Encoding::Plain, Writer::Cpp);
    assert_eq!(body, [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 2]].concat());
    let stats = Stats::of(&[1, 2]);
    assert_eq!(
        stats,
        Stats {
            count: 2,
            start: 1,
            end: 2
        }
    );
    let page = time_page(&body, stats);
    assert_eq!(page, [vec![16, 16], common(2, 1, 2), body].concat());
    // TS_2DIFF times: the same values back.
    let ts2diff = time_body(&[1, 2, 4], Encoding::Ts2Diff, Writer::Cpp);
    assert_eq!(
        decode_times(&ts2diff, Encoding::Ts2Diff, Writer::Cpp, None, MAX_PAGE_ROWS).unwrap(),
        [1, 2, 4]
    );
    assert_eq!(
        decode_times(
            &time_body(&[7], Encoding::Plain, Writer::Cpp),
            Encoding::Plain,
            Writer::Cpp,
            None,
            MAX_PAGE_ROWS
        )
        .unwrap(),
        [7]
    );
}

#[test]
fn a_value_page_is_row_count_bitmap_and_non_null_values() {
    let cells = [Some(Value::I32(1)), None, Some(Value::I32(-1))];
    let body = value_body(ColumnType::Int32, Encoding::Plain, &cells, Writer::Cpp);
    // Rows 0 and 2 present: bits 0x80 and 0x20; PLAIN INT32 is zigzag.
    assert_eq!(body, [0, 0, 0, 3, 0xA0, 2, 1]);
    let page = value_page_for(
        ColumnType::Int32,
        Encoding::Plain,
        &[10, 11, 12],
        &cells,
        true,
        Writer::Cpp,
    );
    // min -1, max 1, first 1, last -1 (i32 BE), sum 0 (i64 BE).
    let typed = [[0xFF; 4], [0, 0, 0, 1], [0, 0, 0, 1], [0xFF; 4]].concat();
    let typed = [typed, vec![0; 8]].concat();
    assert_eq!(page, [vec![7, 7], common(2, 10, 12), typed, body].concat());
    let nulls = [None, None];
    assert_eq!(
        value_page_for(ColumnType::Int64, Encoding::Plain, &[1, 2], &nulls, true, Writer::Cpp),
        empty_value_page()
    );
    assert_eq!(empty_value_page(), [0]);
    let kept = value_page_for(ColumnType::Int64, Encoding::Plain, &[1, 2], &nulls, false, Writer::Cpp);
    assert_eq!(
        kept,
        [vec![5, 5], common(0, 1, 2), vec![0; 40], vec![0, 0, 0, 2, 0]].concat()
    );
}

#[test]
fn every_type_has_its_statistics_length() {
    for t in TYPES {
        let typed = match t {
            ColumnType::Boolean => 10,
            ColumnType::Int32 | ColumnType::Date | ColumnType::Float => 24,
            ColumnType::Int64 | ColumnType::Timestamp | ColumnType::Double => 40,
            // Empty strings, each a zero length: TEXT first and last,
            // STRING also min and max; BLOB keeps no statistics.
            ColumnType::Text => 8,
            ColumnType::String => 16,
            ColumnType::Blob => 0,
        };
        let body = [0, 0, 0, 1, 0];
        let page = value_page(t, &body, Stats::of(&[3]));
        assert_eq!(page.len(), 2 + 17 + typed + body.len(), "{t:?}");
        let pages = directory(&page, ChunkId::Value(0), Some(t), false, true).unwrap();
        let expected = PageRef {
            header_at: 0,
            body_at: 19 + typed,
            body_len: 5,
            size: 5,
            empty: false,
            has_statistics: true,
            count: 1,
            start: 3,
            end: 3,
            typed_at: 19,
        };
        assert_eq!(pages, [expected], "{t:?}");
    }
}

#[test]
fn binary_statistics_are_skipped_by_their_lengths() {
    let mut page = vec![1, 1];
    page.extend(common(1, 0, 0));
    page.extend([0, 0, 0, 2]);
    page.extend(b"ab");
    page.extend([0, 0, 1, 3]);
    page.extend([b'x'; 259]);
    page.push(0xEE);
    let pages = directory(&page, ChunkId::Value(4), Some(ColumnType::Text), false, true).unwrap();
    assert_eq!(pages[0].body_at, 19 + 4 + 2 + 4 + 259);
    assert_eq!(&page[pages[0].body_at..], [0xEE]);
    // STRING: min and max follow first and last.
    let mut string_page = page[..page.len() - 1].to_vec();
    string_page.extend([0, 0, 0, 1, b'a', 0, 0, 0, 0, 0xEE]);
    let pages = directory(&string_page, ChunkId::Value(4), Some(ColumnType::String), false, true).unwrap();
    assert_eq!(&string_page[pages[0].body_at..], [0xEE]);
    // A negative length, and a length past the end: the length's position.
    let mut negative = page[..19 + 6].to_vec();
    negative.extend([0xFF, 0xFF, 0xFF, 0xFE, 0]);
    assert_eq!(
        directory(&negative, ChunkId::Value(4), Some(ColumnType::Text), false, true),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Value(4), 0, 25))
    );
    let short = &page[..page.len() - 2];
    assert_eq!(
        directory(short, ChunkId::Value(4), Some(ColumnType::Text), false, true),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Value(4), 0, 29))
    );
    // Read as STRING, the TEXT page's body byte starts a third length.
    assert_eq!(
        directory(&page, ChunkId::Value(4), Some(ColumnType::String), false, true),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Value(4), 0, page.len() - 1))
    );
}

#[test]
fn header_fields_are_read_at_full_width() {
    let mut page = vec![1, 1];
    // Count 300 (two varint bytes), start and end with every byte distinct.
    page.extend([0xAC, 0x02]);
    page.extend(0x0102_0304_0506_0708i64.to_be_bytes());
    page.extend((-0x0102_0304_0506_0709i64).to_be_bytes());
    page.push(9);
    let pages = directory(&page, ChunkId::Time, None, false, true).unwrap();
    let expected = PageRef {
        header_at: 0,
        body_at: 20,
        body_len: 1,
        size: 1,
        empty: false,
        has_statistics: true,
        count: 300,
        start: 0x0102_0304_0506_0708,
        end: -0x0102_0304_0506_0709,
        typed_at: 0,
    };
    assert_eq!(pages, [expected]);
}

#[test]
fn sizes_are_varints_of_up_to_five_bytes() {
    // Size 3 written in five bytes (overlong, as a writer may pad it).
    let mut page = vec![0x83, 0x80, 0x80, 0x80, 0x00, 3];
    page.extend(common(1, 0, 0));
    page.extend([1, 2, 3]);
    let pages = directory(&page, ChunkId::Time, None, false, true).unwrap();
    assert_eq!((pages[0].body_at, pages[0].body_len), (23, 3));
    // The largest count a u32 holds.
    let mut max = vec![1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F];
    max.extend([0; 16]);
    max.push(0);
    assert_eq!(
        directory(&max, ChunkId::Time, None, false, true).unwrap()[0].count,
        u32::MAX
    );
    // A sixth byte, and a value above u32: an error at the varint's start.
    let six = [0x83, 0x80, 0x80, 0x80, 0x80, 0x00, 3];
    assert_eq!(
        directory(&six, ChunkId::Time, None, false, true),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Time, 0, 0))
    );
    let wide = [1, 0x80, 0x80, 0x80, 0x80, 0x10];
    assert_eq!(
        directory(&wide, ChunkId::Time, None, false, true),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Time, 0, 1))
    );
}

#[test]
fn damaged_headers_name_their_page_and_field() {
    let first = time_page(&time_body(&[1], Encoding::Plain, Writer::Cpp), Stats::of(&[1]));
    let n = first.len();
    assert_eq!(n, 27);
    let with = |tail: &[u8]| [first.clone(), tail.to_vec()].concat();
    let time = |data: &[u8]| directory(data, ChunkId::Time, None, false, true);
    // An empty page is a value page's; in the time chunk it is an error.
    assert_eq!(time(&with(&[0])), Err(at(ErrorKind::BadPageSize, ChunkId::Time, 1, n)));
    // A compressed size that differs: the position of that size.
    assert_eq!(
        time(&with(&[8, 9])),
        Err(at(ErrorKind::BadPageSize, ChunkId::Time, 1, n + 1))
    );
    // Cut inside the size, the count, the start and the end.
    assert_eq!(
        time(&with(&[0x88])),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Time, 1, n))
    );
    assert_eq!(
        time(&with(&[8, 8])),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Time, 1, n + 2))
    );
    let cut_start = with(&[8, 8, 1, 0, 0, 0]);
    assert_eq!(
        time(&cut_start),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Time, 1, n + 3))
    );
    let cut_end = [with(&[8, 8]), common(1, 5, 5)[..12].to_vec()].concat();
    assert_eq!(
        time(&cut_end),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Time, 1, n + 11))
    );
    // A value page cut inside its typed statistics.
    let value = value_page(ColumnType::Double, &[0; 5], Stats::of(&[1]));
    let cut_typed = &value[..19 + 39];
    assert_eq!(
        directory(cut_typed, ChunkId::Value(2), Some(ColumnType::Double), false, true),
        Err(at(ErrorKind::TruncatedHeader, ChunkId::Value(2), 0, 19))
    );
    // A body one byte short; a body of exactly its size is fine.
    let whole = time_page(&time_body(&[2], Encoding::Plain, Writer::Cpp), Stats::of(&[2]));
    assert_eq!(time(&with(&whole)).unwrap().len(), 2);
    let short = with(&whole[..whole.len() - 1]);
    assert_eq!(
        time(&short),
        Err(at(ErrorKind::TruncatedPage, ChunkId::Time, 1, n + 19))
    );
}

#[test]
fn empty_value_pages_are_one_byte() {
    let data = [vec![0], value_page(ColumnType::Int32, &[1], Stats::of(&[4])), vec![0]].concat();
    let pages = directory(&data, ChunkId::Value(0), Some(ColumnType::Int32), false, true).unwrap();
    let empty = |at: usize| PageRef {
        header_at: at,
        body_at: at + 1,
        body_len: 0,
        size: 0,
        empty: true,
        has_statistics: false,
        count: 0,
        start: 0,
        end: 0,
        typed_at: 0,
    };
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[0], empty(0));
    assert_eq!((pages[1].header_at, pages[1].body_at, pages[1].empty), (1, 44, false));
    assert_eq!(pages[2], empty(45));
}

#[test]
fn the_supported_pairs() {
    use ColumnType::*;
    for t in TYPES {
        for e in ENCODINGS {
            let expected = match e {
                Encoding::Plain => true,
                Encoding::Rle => !matches!(t, Text | String | Blob),
                Encoding::Ts2Diff | Encoding::Gorilla | Encoding::Chimp | Encoding::Sprintz | Encoding::Rlbe => {
                    !matches!(t, Boolean | Text | String | Blob)
                }
                Encoding::Zigzag | Encoding::Regular => matches!(t, Int32 | Date | Int64 | Timestamp),
                Encoding::Dictionary => matches!(t, Text | String),
                Encoding::Camel => t == Double,
            };
            assert_eq!(supported(t, e), expected, "{t:?} {e:?}");
        }
    }
    assert!(fixed_width(Boolean) && fixed_width(Date) && fixed_width(Double) && fixed_width(Timestamp));
    assert!(!fixed_width(Text) && !fixed_width(String) && !fixed_width(Blob));
}

/// Values of type `t` that exercise its encodings (negative, wide, equal
/// neighbours).
fn sample(t: ColumnType) -> Vec<Value> {
    use ColumnType::*;
    match t {
        Boolean => [true, false, false, true].map(Value::Bool).to_vec(),
        Int32 | Date => [-5, i32::MAX, 7, 7, i32::MIN].map(Value::I32).to_vec(),
        Int64 | Timestamp => [i64::MIN, -1, 1 << 40, 1 << 40, 3].map(Value::I64).to_vec(),
        Float => [1.5f32, -0.0, f32::INFINITY, 1.5]
            .map(|f| Value::F32(f.to_bits()))
            .to_vec(),
        Double => [1e300f64, -2.5, 0.1, 0.1].map(|f| Value::F64(f.to_bits())).to_vec(),
        Text | String | Blob => [&b""[..], b"ab", b"\x00\xff"]
            .map(|b| Value::Bytes(b.to_vec()))
            .to_vec(),
    }
}

/// The pairs of the first seven encodings (the lossy newer ones, with
/// values each carries, are in `encodings.rs`).
#[test]
fn every_supported_pair_decodes_what_was_written() {
    for t in TYPES {
        let old = |e: Encoding| supported(t, e) && !super::encodings::NEW_PAIRS.contains(&(t, e));
        for e in ENCODINGS.into_iter().filter(|&e| old(e)) {
            let values = sample(t);
            let body = values_body(t, e, &values, Writer::Cpp);
            assert_eq!(
                decode_values(&body, t, e, Writer::Cpp, values.len()),
                Ok(values.clone()),
                "{t:?} {e:?}"
            );
        }
    }
}

#[test]
fn plain_values_beyond_the_count_are_an_error_and_fewer_come_back_short() {
    let body = values_body(
        ColumnType::Int64,
        Encoding::Plain,
        &[Value::I64(1), Value::I64(2)],
        Writer::Cpp,
    );
    assert!(decode_values(&body, ColumnType::Int64, Encoding::Plain, Writer::Cpp, 1).is_err());
    assert_eq!(
        decode_values(&body, ColumnType::Int64, Encoding::Plain, Writer::Cpp, 3),
        Ok(vec![Value::I64(1), Value::I64(2)])
    );
    assert!(decode_times(&[0; 7], Encoding::Plain, Writer::Cpp, None, MAX_PAGE_ROWS).is_err());
    let ts2diff = time_body(&[1, 5, 6], Encoding::Ts2Diff, Writer::Cpp);
    assert!(decode_times(
        &ts2diff[..ts2diff.len() - 1],
        Encoding::Ts2Diff,
        Writer::Cpp,
        None,
        MAX_PAGE_ROWS
    )
    .is_err());
}
