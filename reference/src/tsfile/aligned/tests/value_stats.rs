//! Value page statistics checked against the decoded page: the non-null
//! count for every type, min and max for the numeric ones as the writer
//! computes them (`page::value_statistics_hold`); a lie is `StatisticsLie`
//! at the page's header.

use super::*;
use crate::tsfile::aligned::write::{typed_stats, value_body, value_page_typed};

fn f32v(x: f32) -> Value {
    Value::F32(x.to_bits())
}

fn f64v(x: f64) -> Value {
    Value::F64(x.to_bits())
}

/// Two pages of three rows (times 0..6) of one column of type `t`, PLAIN;
/// page 1 holds `cells`, with `typed` as its per-type statistics (None:
/// truthful) and `count` as its count (None: truthful). Scanned with
/// `writer`.
fn scan_pages(
    t: ColumnType,
    first: &[Option<Value>],
    cells: &[Option<Value>],
    typed: Option<Vec<u8>>,
    count: Option<u32>,
    writer: Writer,
) -> (Result<Vec<Block>, ScanError>, usize) {
    let mut time = Vec::new();
    let mut value = Vec::new();
    for (p, page) in [first, cells].into_iter().enumerate() {
        let times: Vec<i64> = (0..page.len() as i64).map(|r| p as i64 * 10 + r).collect();
        time.extend(time_page(
            &time_body(&times, Encoding::Plain, writer),
            Stats::of(&times),
        ));
        let present: Vec<Value> = page.iter().flatten().cloned().collect();
        let mut stats = Stats {
            count: present.len() as u32,
            ..Stats::of(&times)
        };
        let mut typed_part = typed_stats(t, &present);
        if p == 1 {
            stats.count = count.unwrap_or(stats.count);
            typed_part = typed.clone().unwrap_or(typed_part);
        }
        if p == 1 {
            let header_at = value.len();
            value.extend(value_page_typed(
                &value_body(t, Encoding::Plain, page, writer),
                stats,
                &typed_part,
            ));
            let g = Group {
                time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
                values: vec![Some(Chunk::plain(t, Encoding::Plain, &value))],
            };
            let mut request = Request {
                writer,
                ..request(None, 100)
            };
            request.columns = vec![0];
            // Min and max are held to the values of the FIELD filter's
            // column only.
            request.filter.field = Some(FieldFilter {
                column: 0,
                op: FieldOp::IsNotNull,
            });
            return (scan(&g, &request), header_at);
        }
        value.extend(value_page_typed(
            &value_body(t, Encoding::Plain, page, writer),
            stats,
            &typed_part,
        ));
    }
    unreachable!("two pages")
}

/// The per-type part with min and max replaced (4- or 8-byte fields).
fn with_bounds(t: ColumnType, present: &[Value], min: &[u8], max: &[u8]) -> Vec<u8> {
    let mut typed = typed_stats(t, present);
    typed[..min.len()].copy_from_slice(min);
    typed[min.len()..min.len() + max.len()].copy_from_slice(max);
    typed
}

fn lie_at(header_at: usize) -> ScanError {
    at(ErrorKind::StatisticsLie, ChunkId::Value(0), 1, header_at)
}

#[test]
fn truthful_value_statistics_of_every_type_are_accepted_for_both_writers() {
    let nan32 = f32v(f32::NAN);
    let nan64 = f64v(f64::NAN);
    let pages: Vec<(ColumnType, Vec<Option<Value>>)> = vec![
        (ColumnType::Int32, vec![Some(Value::I32(-5)), None, Some(Value::I32(7))]),
        (
            ColumnType::Date,
            vec![Some(Value::I32(20240101)), Some(Value::I32(20231231)), None],
        ),
        (
            ColumnType::Int64,
            vec![None, Some(Value::I64(i64::MIN)), Some(Value::I64(i64::MAX))],
        ),
        (
            ColumnType::Timestamp,
            vec![Some(Value::I64(3)), Some(Value::I64(3)), Some(Value::I64(3))],
        ),
        (
            ColumnType::Float,
            vec![Some(f32v(1.5)), Some(f32v(-0.0)), Some(f32v(0.0))],
        ),
        // A NaN after the first value: the writers pass over it.
        (
            ColumnType::Float,
            vec![Some(f32v(2.0)), Some(nan32.clone()), Some(f32v(-1.0))],
        ),
        // A NaN first: min and max are NaN.
        (
            ColumnType::Double,
            vec![Some(nan64.clone()), Some(f64v(4.0)), Some(f64v(-4.0))],
        ),
        (
            ColumnType::Double,
            vec![Some(f64v(f64::INFINITY)), None, Some(f64v(f64::NEG_INFINITY))],
        ),
        (
            ColumnType::Boolean,
            vec![Some(Value::Bool(true)), None, Some(Value::Bool(false))],
        ),
        (
            ColumnType::Text,
            vec![
                Some(Value::Bytes(b"b".to_vec())),
                None,
                Some(Value::Bytes(b"a".to_vec())),
            ],
        ),
        (ColumnType::String, vec![None, None, Some(Value::Bytes(b"z".to_vec()))]),
        (ColumnType::Blob, vec![Some(Value::Bytes(vec![0])), None, None]),
        // Every row null: count 0, the typed part zeros.
        (ColumnType::Int64, vec![None, None, None]),
    ];
    let first = |t: ColumnType| match t {
        ColumnType::Int32 | ColumnType::Date => Some(Value::I32(1)),
        ColumnType::Int64 | ColumnType::Timestamp => Some(Value::I64(1)),
        ColumnType::Float => Some(f32v(1.0)),
        ColumnType::Double => Some(f64v(1.0)),
        ColumnType::Boolean => Some(Value::Bool(true)),
        _ => Some(Value::Bytes(b"x".to_vec())),
    };
    for writer in [Writer::Cpp, Writer::Java] {
        for (t, cells) in &pages {
            let (got, _) = scan_pages(*t, &[first(*t)], cells, None, None, writer);
            let blocks = got.unwrap_or_else(|e| panic!("{t:?} {cells:?} {writer:?}: {e:?}"));
            // Under the helper's IS NOT NULL filter: the non-null cells.
            let present: Vec<Option<Value>> = cells.iter().filter(|c| c.is_some()).cloned().collect();
            assert_eq!(blocks[0].columns[0][1..], present[..], "{t:?} {writer:?}");
        }
    }
}

#[test]
fn each_lie_is_a_statistics_lie_at_its_page() {
    let ints = [Some(Value::I32(-5)), None, Some(Value::I32(7))];
    let present = [Value::I32(-5), Value::I32(7)];
    let be = |x: i32| x.to_be_bytes();
    let first = [Some(Value::I32(0))];
    for writer in [Writer::Cpp, Writer::Java] {
        // The count one off either way (a null counted, a value not).
        for count in [1, 3] {
            let (got, h) = scan_pages(ColumnType::Int32, &first, &ints, None, Some(count), writer);
            assert_eq!(got, Err(lie_at(h)), "count {count}");
        }
        // min or max off by one either way.
        for (min, max) in [(-6, 7), (-4, 7), (-5, 6), (-5, 8)] {
            let typed = with_bounds(ColumnType::Int32, &present, &be(min), &be(max));
            let (got, h) = scan_pages(ColumnType::Int32, &first, &ints, Some(typed), None, writer);
            assert_eq!(got, Err(lie_at(h)), "min {min} max {max} {writer:?}");
        }
        // INT64 min wrapped, DOUBLE max just above.
        let longs = [Some(Value::I64(i64::MIN)), Some(Value::I64(0))];
        let typed = with_bounds(
            ColumnType::Int64,
            &[Value::I64(i64::MIN), Value::I64(0)],
            &i64::MAX.to_be_bytes(),
            &0i64.to_be_bytes(),
        );
        let (got, h) = scan_pages(
            ColumnType::Int64,
            &[Some(Value::I64(0))],
            &longs,
            Some(typed),
            None,
            writer,
        );
        assert_eq!(got, Err(lie_at(h)));
        let doubles = [Some(f64v(1.0)), Some(f64v(2.0))];
        let typed = with_bounds(
            ColumnType::Double,
            &[f64v(1.0), f64v(2.0)],
            &1.0f64.to_be_bytes(),
            &2.0f64.next_up().to_be_bytes(),
        );
        let (got, h) = scan_pages(
            ColumnType::Double,
            &[Some(f64v(0.0))],
            &doubles,
            Some(typed),
            None,
            writer,
        );
        assert_eq!(got, Err(lie_at(h)));
        // A NaN bound on a page without NaN.
        let typed = with_bounds(
            ColumnType::Float,
            &[f32v(1.0), f32v(2.0)],
            &f32::NAN.to_be_bytes(),
            &2.0f32.to_be_bytes(),
        );
        let floats = [Some(f32v(1.0)), Some(f32v(2.0))];
        let (got, h) = scan_pages(
            ColumnType::Float,
            &[Some(f32v(0.0))],
            &floats,
            Some(typed),
            None,
            writer,
        );
        assert_eq!(got, Err(lie_at(h)));
        // The count of a BOOLEAN page (its typed part is not checked).
        let bools = [Some(Value::Bool(true)), None];
        let (got, h) = scan_pages(
            ColumnType::Boolean,
            &[Some(Value::Bool(false))],
            &bools,
            None,
            Some(2),
            writer,
        );
        assert_eq!(got, Err(lie_at(h)));
    }
}

#[test]
fn pages_holding_nan_are_checked_as_their_writer_computes_them() {
    // NaN after the first value: the bounds of the other values.
    let cells = [Some(f64v(2.0)), Some(f64v(f64::NAN)), Some(f64v(-1.0))];
    let present: Vec<Value> = cells.iter().flatten().cloned().collect();
    // Bounds that a C++ batch (SSE min / max) may give, not Java's loop.
    let odd = with_bounds(
        ColumnType::Double,
        &present,
        &2.0f64.to_be_bytes(),
        &f64::NAN.to_be_bytes(),
    );
    let (java, h) = scan_pages(
        ColumnType::Double,
        &[Some(f64v(0.0))],
        &cells,
        Some(odd.clone()),
        None,
        Writer::Java,
    );
    assert_eq!(java, Err(lie_at(h)));
    let (cpp, _) = scan_pages(
        ColumnType::Double,
        &[Some(f64v(0.0))],
        &cells,
        Some(odd),
        None,
        Writer::Cpp,
    );
    assert!(cpp.is_ok(), "{cpp:?}");
    // NaN first: Java's min and max are NaN; numbers there are a lie.
    let cells = [Some(f32v(f32::NAN)), Some(f32v(1.0))];
    let numbers = with_bounds(
        ColumnType::Float,
        &[f32v(1.0)],
        &1.0f32.to_be_bytes(),
        &1.0f32.to_be_bytes(),
    );
    let (java, h) = scan_pages(
        ColumnType::Float,
        &[Some(f32v(0.0))],
        &cells,
        Some(numbers),
        None,
        Writer::Java,
    );
    assert_eq!(java, Err(lie_at(h)));
    // One bound NaN and the other a number: a lie either way round.
    for (min, max) in [(f32::NAN, 1.0f32), (1.0, f32::NAN)] {
        let half = with_bounds(ColumnType::Float, &[f32v(1.0)], &min.to_be_bytes(), &max.to_be_bytes());
        let (java, h) = scan_pages(
            ColumnType::Float,
            &[Some(f32v(0.0))],
            &cells,
            Some(half),
            None,
            Writer::Java,
        );
        assert_eq!(java, Err(lie_at(h)), "min {min} max {max}");
    }
    // A zero of either sign stands for the other.
    let cells = [Some(f32v(0.0)), Some(f32v(1.0))];
    let typed = with_bounds(
        ColumnType::Float,
        &[f32v(0.0), f32v(1.0)],
        &(-0.0f32).to_be_bytes(),
        &1.0f32.to_be_bytes(),
    );
    for writer in [Writer::Cpp, Writer::Java] {
        let (got, _) = scan_pages(
            ColumnType::Float,
            &[Some(f32v(0.0))],
            &cells,
            Some(typed.clone()),
            None,
            writer,
        );
        assert!(got.is_ok(), "{got:?}");
    }
}

#[test]
fn scaled_float_pages_keep_the_bounds_of_the_values_before_rounding() {
    // The C++ writer's TS_2DIFF DOUBLE pages (maxPointNumber 2) hold the
    // values rounded to hundredths; their min / max are of the values it
    // was given (a fixture's page: -637943.345 read back as -637943.34).
    let given = [f64v(-637943.345), f64v(1.0049)];
    let cells: Vec<Option<Value>> = given.iter().cloned().map(Some).collect();
    let times = [0i64, 1];
    let time = time_page(&time_body(&times, Encoding::Plain, Writer::Cpp), Stats::of(&times));
    for e in [Encoding::Ts2Diff, Encoding::Rle] {
        let page = value_page_typed(
            &value_body(ColumnType::Double, e, &cells, Writer::Cpp),
            Stats::of(&times),
            &typed_stats(ColumnType::Double, &given),
        );
        let g = Group {
            time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
            values: vec![Some(Chunk::plain(ColumnType::Double, e, &page))],
        };
        let mut q = request(None, 10);
        q.columns = vec![0];
        let blocks = scan(&g, &q).unwrap();
        assert_ne!(blocks[0].columns[0], cells, "{e:?}: rounded");
    }
}

#[test]
fn sprintz_and_camel_pages_keep_the_bounds_of_the_values_given() {
    // The C++ SPRINTZ and CAMEL encoders store other values than they were
    // given for some inputs (an official INT64 SPRINTZ page's min and max
    // are no value it holds), so their bounds are not checked; a PLAIN
    // page's are.
    let times = [0i64, 1, 2];
    let time = time_page(&time_body(&times, Encoding::Plain, Writer::Cpp), Stats::of(&times));
    let pages = [
        (
            ColumnType::Int64,
            Encoding::Sprintz,
            Value::I64(-5),
            [7i64, 9, 8].map(Value::I64),
        ),
        (
            ColumnType::Double,
            Encoding::Camel,
            f64v(-5.0),
            [1.5, 2.25, 0.0].map(f64v),
        ),
        (
            ColumnType::Int64,
            Encoding::Plain,
            Value::I64(-5),
            [7i64, 9, 8].map(Value::I64),
        ),
    ];
    for (t, e, given, stored) in pages {
        let cells: Vec<Option<Value>> = stored.iter().cloned().map(Some).collect();
        let page = value_page_typed(
            &value_body(t, e, &cells, Writer::Cpp),
            Stats::of(&times),
            &typed_stats(t, &[given.clone(), given.clone(), given]),
        );
        let g = Group {
            time: Chunk::plain(ColumnType::Int64, Encoding::Plain, &time),
            values: vec![Some(Chunk::plain(t, e, &page))],
        };
        let mut q = request(None, 10);
        q.columns = vec![0];
        // Without a FIELD filter on the column its bounds are not checked.
        assert_eq!(scan(&g, &q).map(|b| b[0].columns[0].clone()), Ok(cells.clone()));
        q.filter.field = Some(FieldFilter {
            column: 0,
            op: FieldOp::IsNotNull,
        });
        match scan(&g, &q) {
            Ok(blocks) => {
                assert_ne!(e, Encoding::Plain);
                assert_eq!(blocks[0].columns[0], cells, "{e:?}");
            }
            Err(err) => {
                assert_eq!(e, Encoding::Plain, "{err:?}");
                assert_eq!(err.kind, ErrorKind::StatisticsLie);
            }
        }
    }
}

/// The statistics a generator writes are hashed and compared across
/// architectures, so they hold the values' own bits: a NaN's payload
/// (signalling or not) survives, where converting it between f32 and f64
/// would change it differently on x86_64 and s390x; a sum that is NaN is
/// the one canonical NaN, as Java writes doubles.
#[test]
fn generated_float_statistics_keep_each_nan_bit_for_bit() {
    let signalling = 0x7f80_0001u32;
    let payload = 0xffc1_2345u32;
    let typed = typed_stats(
        ColumnType::Float,
        &[Value::F32(signalling), f32v(1.5), Value::F32(payload)],
    );
    let word = |at: usize| u32::from_be_bytes(typed[at..at + 4].try_into().unwrap());
    // min, max (a first NaN is both), first, last.
    assert_eq!(
        [word(0), word(4), word(8), word(12)],
        [signalling, signalling, signalling, payload]
    );
    assert_eq!(typed[16..24], f64::NAN.to_bits().to_be_bytes());

    let signalling = 0x7ff0_0000_0000_0001u64;
    let typed = typed_stats(ColumnType::Double, &[f64v(-2.0), Value::F64(signalling), f64v(3.0)]);
    let word = |at: usize| u64::from_be_bytes(typed[at..at + 8].try_into().unwrap());
    assert_eq!(
        [word(0), word(8), word(16), word(24)],
        [
            (-2.0f64).to_bits(),
            3.0f64.to_bits(),
            (-2.0f64).to_bits(),
            3.0f64.to_bits()
        ]
    );
    assert_eq!(word(32), f64::NAN.to_bits());
}

#[test]
fn generated_bounds_keep_the_first_of_equal_values_as_the_writers_loop_does() {
    // `v < min` and `v > max` (Java `updateStats`, C++
    // `NUM_VALUE_STAT_UPDATE`): of two zeros the first is both bounds.
    let bits = |typed: &[u8], at: usize| u64::from_be_bytes(typed[at..at + 8].try_into().unwrap());
    for (a, b) in [(0.0f64, -0.0f64), (-0.0, 0.0)] {
        let typed = typed_stats(ColumnType::Double, &[f64v(a), f64v(b)]);
        assert_eq!(
            (bits(&typed, 0), bits(&typed, 8)),
            (a.to_bits(), a.to_bits()),
            "{a} {b}"
        );
    }
}
