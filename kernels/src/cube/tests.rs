use super::*;

#[test]
fn timestamps_match_known_epochs() {
    assert_eq!(parse_timestamp(b"1970-01-01T00:00:00.000", 3), Ok(0));
    assert_eq!(parse_timestamp(b"2024-01-01T00:00:00.000", 3), Ok(1_704_067_200_000));
    assert_eq!(parse_timestamp(b"1969-12-31T23:59:59.999999999Z", 9), Ok(-1));
    assert_eq!(parse_timestamp(b"2262-04-11T23:47:16.854775807", 9), Ok(i64::MAX));
    assert_eq!(
        parse_timestamp(b"2262-04-11T23:47:16.854775808", 9),
        Err(MapError::Overflow)
    );
    assert_eq!(parse_timestamp(b"1677-09-21T00:12:43.145224192", 9), Ok(i64::MIN));
    assert_eq!(
        parse_timestamp(b"1677-09-21T00:12:43.145224191", 9),
        Err(MapError::Overflow)
    );
    assert_eq!(parse_timestamp(b"2023-02-29T00:00:00", 3), Err(MapError::Unmappable));
    // Leap years: every fourth, but not centuries unless divisible by 400.
    assert_eq!(parse_timestamp(b"2024-02-29T00:00:00", 3), Ok(1_709_164_800_000));
    assert_eq!(parse_timestamp(b"2000-02-29T00:00:00", 3), Ok(951_782_400_000));
    assert_eq!(parse_timestamp(b"1600-02-29T00:00:00", 3), Ok(-11_670_998_400_000));
    assert_eq!(parse_timestamp(b"1900-02-29T00:00:00", 3), Err(MapError::Unmappable));
    assert_eq!(parse_timestamp(b"2100-02-29T00:00:00", 3), Err(MapError::Unmappable));
    assert_eq!(
        parse_timestamp(b"2024-01-01T00:00:00.0001", 3),
        Err(MapError::Unmappable)
    );
    assert_eq!(parse_timestamp(b"2024-01-01T00:00:00.0000", 3), Ok(1_704_067_200_000));
}

/// The messages users read: every variant says what failed and where.
#[test]
fn every_error_has_its_message() {
    let cell = |member: &str| (member.to_string(), 7u64, "Int64".to_string(), "\"x\"".to_string());
    let (member, row, ty, value) = cell("m");
    let cases = [
        (CubeError::UnsupportedType { field: 2 }, "field 2: unsupported type"),
        (
            CubeError::BadLiteral { field: 1 },
            "field 1: literal does not map to its type",
        ),
        (CubeError::BadLimit { limit: -1 }, "limit -1 is outside 0..=1000000"),
        (
            CubeError::InvalidJson {
                offset: 9,
                message: "EOF".into(),
            },
            "invalid JSON at byte 9: EOF",
        ),
        (
            CubeError::BadShape {
                path: "/members/0".into(),
            },
            "unexpected JSON shape at '/members/0'",
        ),
        (
            CubeError::DuplicateMember { member: "a".into() },
            "member 'a' listed twice",
        ),
        (
            CubeError::ColumnCount { members: 2, columns: 3 },
            "2 members but 3 columns",
        ),
        (
            CubeError::Ragged {
                index: 4,
                expected: 2,
                found: 1,
            },
            "ragged data: entry 4 has 1 values, expected 2",
        ),
        (
            CubeError::UnknownMember { member: "z".into() },
            "member 'z' is not in the schema",
        ),
        (
            CubeError::Unmappable {
                member: member.clone(),
                row,
                ty: ty.clone(),
                value: value.clone(),
            },
            "Unable to map value \"x\" to Int64 (member 'm', row 7)",
        ),
        (
            CubeError::Overflow { member, row, ty, value },
            "value \"x\" overflows Int64 (member 'm', row 7)",
        ),
        (
            CubeError::TooLarge { field: 3 },
            "field 3: string column exceeds i32 offsets",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
    }
}

fn int_schema(names: impl IntoIterator<Item = String>) -> SchemaRef {
    let fields: Vec<_> = names
        .into_iter()
        .map(|n| arrow_schema::Field::new(n, DataType::Int64, true))
        .collect();
    Arc::new(arrow_schema::Schema::new(fields))
}

fn ints(batch: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    let col = batch.column_by_name(name).expect("column");
    let col = col.as_any().downcast_ref::<PrimitiveArray<Int64Type>>().expect("Int64");
    col.iter().collect()
}

#[test]
fn string_columns_fit_i32_offsets_up_to_the_last_byte() {
    assert!(fits_i32_offsets(i32::MAX as u128));
    assert!(!fits_i32_offsets(i32::MAX as u128 + 1));
    assert!(fits_i32_offsets(0));
    assert_eq!(literal_bytes(4096, 1_000_000), 4_096_000_000);
    assert_eq!(literal_bytes(3, 7), 21);
    assert_eq!(
        literal_bytes(usize::MAX, u64::MAX),
        usize::MAX as u128 * u64::MAX as u128
    );
}

/// A repeated key replaces its earlier value (even an unmappable one),
/// in rows wider than 64 keys too.
#[test]
fn wide_rows_keep_the_last_of_a_repeated_key() {
    let names: Vec<String> = (0..70).map(|k| format!("k{k}")).collect();
    let schema = int_schema(names.clone());
    let row = |order: &mut dyn Iterator<Item = usize>| {
        let cells: Vec<String> = order.map(|k| format!("\"k{k}\":{k}")).collect();
        format!(
            "{{{},\"k65\":650,\"k3\":\"x\",\"k3\":30,\"k64\":null}}",
            cells.join(",")
        )
    };
    let json = format!("[{},{}]", row(&mut (0..70)), row(&mut (0..70).rev()));
    let batch = decode(json.as_bytes(), Shape::Rows, &schema, None).unwrap();
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(ints(&batch, "k65"), [Some(650), Some(650)]);
    assert_eq!(ints(&batch, "k3"), [Some(30), Some(30)]);
    assert_eq!(ints(&batch, "k64"), [None, None]);
    assert_eq!(ints(&batch, "k69"), [Some(69), Some(69)]);
    assert_eq!(ints(&batch, "k0"), [Some(0), Some(0)]);
}

/// The key table survives between calls (that is its point) and is
/// dropped once it holds more than `MAX_KEPT_KEYS` keys.
#[test]
// 4,096 keys to reach the limit: minutes under Miri. The key table has no
// `unsafe`; the decoder's other tests run under Miri.
#[cfg_attr(miri, ignore = "4,096 keys: minutes under Miri")]
fn a_reused_decoder_keeps_its_keys_until_it_knows_too_many() {
    let schema = int_schema(["a".to_string(), "b".to_string()]);
    let mut decoder = CubeDecoder::new();
    let run = |d: &mut CubeDecoder, json: &str| decode_with(d, json.as_bytes(), Shape::Rows, &schema, None);
    assert_eq!(ints(&run(&mut decoder, "[{\"a\":1}]").unwrap(), "a"), [Some(1)]);
    assert_eq!(decoder.known_keys(), 1);
    assert_eq!(
        ints(&run(&mut decoder, "[{\"b\":2},{\"a\":3}]").unwrap(), "a"),
        [None, Some(3)]
    );
    assert_eq!(decoder.known_keys(), 2);

    // Exactly MAX_KEPT_KEYS keys are kept; one more and the next call starts afresh.
    let wide = |n: usize| {
        let cells: Vec<String> = (0..n).map(|k| format!("\"w{k}\":{k}")).collect();
        format!("[{{{}}}]", cells.join(","))
    };
    let mut decoder = CubeDecoder::new();
    assert!(matches!(
        run(&mut decoder, &wide(MAX_KEPT_KEYS)),
        Err(CubeError::UnknownMember { .. })
    ));
    assert_eq!(decoder.known_keys(), MAX_KEPT_KEYS);
    run(&mut decoder, "[{\"a\":1}]").unwrap();
    assert_eq!(decoder.known_keys(), MAX_KEPT_KEYS + 1);
    run(&mut decoder, "[{\"b\":1}]").unwrap();
    assert_eq!(decoder.known_keys(), 1);
}

/// A cell error quotes the value as JSON text, whatever its kind.
#[test]
fn cell_errors_quote_the_value() {
    let schema = |ty: DataType| Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new("a", ty, true)]));
    let cases = [
        (DataType::Int64, "\"x\"", "\"x\""),
        (DataType::Int64, "1.5", "1.5"),
        (DataType::Int64, "true", "true"),
        (DataType::Int64, "[1,[2]]", "[...]"),
        (DataType::Int64, "{\"b\":1}", "{...}"),
        (DataType::Int64, "18446744073709551615", "18446744073709551615"),
        (DataType::Boolean, "-5", "-5"),
        (DataType::Boolean, "7", "7"),
    ];
    for (ty, cell, text) in cases {
        let json = format!("[{{\"a\":null}},{{\"a\":{cell}}}]");
        let got = decode(json.as_bytes(), Shape::Rows, &schema(ty.clone()), None);
        match got {
            Err(CubeError::Unmappable { member, row, value, .. })
            | Err(CubeError::Overflow { member, row, value, .. }) => {
                assert_eq!((member.as_str(), row, value.as_str()), ("a", 1, text), "{cell} as {ty}")
            }
            other => panic!("{cell} as {ty}: {other:?}"),
        }
    }
}

#[test]
fn integers_and_decimals() {
    assert_eq!(parse_i64(b"-9223372036854775808"), Ok(i64::MIN));
    assert_eq!(parse_i64(b"9223372036854775808"), Err(MapError::Overflow));
    assert_eq!(parse_i64(b"99999999999999999999x"), Err(MapError::Unmappable));
    assert_eq!(parse_decimal(b"-12.340", 5, 2), Ok(-1234));
    assert_eq!(parse_decimal(b"1234.5", 5, 2), Err(MapError::Overflow));
    assert_eq!(parse_decimal(b"1.235", 5, 2), Err(MapError::Unmappable));
    assert_eq!(parse_decimal(b".", 5, 2), Err(MapError::Unmappable));
}

/// `plain_decimal` takes exactly `-?D+(.D+)?` of up to 15 digits, and gives
/// `str::parse`'s bits.
#[test]
fn plain_decimals_take_the_short_way_with_str_parse_bits() {
    let plain = [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "5",
        "12345.67",
        "-100000.25",
        "0.1",
        "0.3",
        "999999999999999",
        "0.00000000000001",
        "00012.50",
        "123456789012.345",
        "1.7976931348623",
        "-9007199254.74099",
    ];
    let other = [
        "",
        "-",
        ".",
        "5.",
        ".5",
        "-.5",
        "+1",
        "1e5",
        "1E-5",
        "inf",
        "NaN",
        "1.2.3",
        "1,5",
        " 1",
        "1 ",
        "1234567890123456",
        "0.1234567890123456",
        "0000000000000001",
        "--1",
        "1-",
    ];
    for s in plain {
        let fast = plain_decimal(s).unwrap_or_else(|| panic!("{s} is plain"));
        assert_eq!(fast.to_bits(), s.parse::<f64>().unwrap().to_bits(), "{s}");
    }
    for s in other {
        assert_eq!(plain_decimal(s), None, "{s}");
        assert_eq!(
            parse_f64(s).map(f64::to_bits),
            s.parse::<f64>().ok().map(f64::to_bits),
            "{s}"
        );
    }
    // Every digit count and point position, with varied digits.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for digits in 1..=15usize {
        for point in 0..digits {
            for _ in 0..50 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let text: String = (0..digits)
                    .map(|i| char::from(b'0' + ((x >> (i * 4)) % 10) as u8))
                    .collect();
                let s = if point == 0 {
                    text
                } else {
                    format!("{}.{}", &text[..digits - point], &text[digits - point..])
                };
                let s = if x & 1 == 1 { format!("-{s}") } else { s };
                let fast = plain_decimal(&s).unwrap_or_else(|| panic!("{s} is plain"));
                assert_eq!(fast.to_bits(), s.parse::<f64>().unwrap().to_bits(), "{s}");
            }
        }
    }
}

/// Cells that are not strings, into every column type: Utf8 takes their
/// JSON text, the numeric types their value, and what a type cannot hold is
/// unmappable or an overflow.
#[test]
fn non_string_cells_into_every_type() {
    use MapError::{Overflow, Unmappable};
    let col_of = |conv: Conv, cells: &[Cell<'_>]| {
        let mut col = Col::new(conv, "m".into());
        for &cell in cells {
            col.append(cell).expect("mappable");
        }
        col
    };
    let text = col_of(
        Conv::Utf8,
        &[
            Cell::Bool(true),
            Cell::U64(7),
            Cell::I64(-7),
            Cell::F64(0.5),
            Cell::Str("x"),
            Cell::Null,
        ],
    );
    let Data::Str { offsets, bytes } = &text.data else {
        unreachable!()
    };
    assert_eq!(
        (bytes.as_slice(), offsets.as_slice()),
        (&b"true7-70.5x"[..], &[0, 4, 5, 7, 10, 11, 11][..])
    );
    assert_eq!(text.valid, [true, true, true, true, true, false]);

    let ints = col_of(Conv::Int64, &[Cell::I64(-3), Cell::U64(3), Cell::Str("+4")]);
    assert!(matches!(&ints.data, Data::I64(v) if v == &[-3, 3, 4]));
    let floats = col_of(Conv::Float64, &[Cell::I64(-3), Cell::U64(3), Cell::F64(2.5)]);
    assert!(matches!(&floats.data, Data::F64(v) if v == &[-3.0, 3.0, 2.5]));
    let bools = col_of(Conv::Boolean, &[Cell::Bool(true), Cell::Bool(false), Cell::Str("1")]);
    assert!(matches!(&bools.data, Data::Bool(v) if v == &[true, false, true]));
    let decimal = Conv::Decimal {
        precision: 10,
        scale: 2,
    };
    let decimals = col_of(
        decimal,
        &[Cell::U64(5), Cell::I64(-5), Cell::F64(1.5), Cell::Str("0.25")],
    );
    assert!(matches!(&decimals.data, Data::I128(v) if v == &[500, -500, 150, 25]));
    let stamps = col_of(Conv::Timestamp(3), &[Cell::I64(-1), Cell::U64(1)]);
    assert!(matches!(&stamps.data, Data::I64(v) if v == &[-1, 1]));

    for (conv, cell, error) in [
        (Conv::Utf8, Cell::Array, Unmappable),
        (Conv::Utf8, Cell::Object, Unmappable),
        (Conv::Int64, Cell::U64(u64::MAX), Overflow),
        (Conv::Int64, Cell::F64(1.0), Unmappable),
        (Conv::Int64, Cell::Bool(true), Unmappable),
        (Conv::Timestamp(3), Cell::U64(1 << 63), Overflow),
        (Conv::Timestamp(3), Cell::F64(1.0), Unmappable),
        (Conv::Float64, Cell::Bool(true), Unmappable),
        (Conv::Float64, Cell::Array, Unmappable),
        (Conv::Boolean, Cell::U64(1), Unmappable),
        (decimal, Cell::Bool(true), Unmappable),
        (decimal, Cell::U64(100_000_000), Overflow),
    ] {
        let mut col = Col::new(conv, "m".into());
        assert_eq!(col.append(cell), Err(Some(error)), "{conv:?} {}", cell.text());
    }
}

/// Each field of a timestamp is checked on its own, and a fraction shorter
/// than the unit is scaled up.
#[test]
fn every_timestamp_field_is_checked_on_its_own() {
    let bad = Err(MapError::Unmappable);
    for text in [
        "2024-01-0xT00:00:00",
        "2024/01/01T00:00:00",
        "2024-01-01 00:00:00",
        "2024-13-01T00:00:00",
        "2024-00-01T00:00:00",
        "2024-01-00T00:00:00",
        "2024-01-32T00:00:00",
        "2024-04-31T00:00:00",
        "2024-01-01T24:00:00",
        "2024-01-01T00:60:00",
        "2024-01-01T00:00:60",
        "2024-01-01T00:00:00.",
        "2024-01-01T00:00:00.1234567890",
        "2024-01-01T00:00:00ZZ",
        "2024-01-01T00:00:0",
    ] {
        assert_eq!(parse_timestamp(text.as_bytes(), 9), bad, "{text}");
    }
    assert_eq!(parse_timestamp(b"2024-01-01T00:00:00.5", 3), Ok(1_704_067_200_500));
    assert_eq!(parse_timestamp(b"2024-01-01T00:00:00.25", 6), Ok(1_704_067_200_250_000));
    assert_eq!(
        parse_timestamp(b"2024-12-31T23:59:59.123456789", 9),
        Ok(1_735_689_599_123_456_789)
    );
}
