use super::*;
use arrow_schema::{Field, Schema};

/// The scanner alone: its batch, or that it gave up.
fn scanned(json: &str, schema: &SchemaRef) -> Result<RecordBatch, GiveUp> {
    let plan = Plan::new(schema, None).expect("a supported schema");
    let mut decoder = CubeDecoder::new();
    let mut st = plan.state(Shape::Columnar, &mut decoder);
    columnar(json.as_bytes(), &mut st)?;
    Ok(finish(st, &plan, Shape::Columnar, schema).expect("no error after a scan"))
}

fn streamed(json: &str, schema: &SchemaRef) -> Result<RecordBatch, CubeError> {
    decode_with(&mut CubeDecoder::new(), json.as_bytes(), Shape::Columnar, schema, None)
}

fn schema() -> SchemaRef {
    let field = |name: &str, ty: DataType| Field::new(name, ty, true);
    Arc::new(Schema::new(vec![
        field("status", DataType::Utf8),
        field("id", DataType::Int64),
        field("at", DataType::Timestamp(TimeUnit::Millisecond, None)),
        field("amount", DataType::Float64),
        field("paid", DataType::Boolean),
        field("price", DataType::Decimal128(10, 2)),
        field("copy", DataType::Int64),
    ]))
}

/// Every cell form the scanner reads, in a document it must take whole.
const SERVER_FORM: &str = r#"{"members":["status","id","at","amount","paid","price","copy"],"columns":[
    ["completed", "größe 😀", "", null, "a/b~"],
    ["1234567", "0", "9999999", "-42", "12345678901"],
    ["2024-01-02T03:04:05.678", "1969-12-31T23:59:59.999Z", null, "2000-02-29T00:00:00", "0000-01-01T00:00:00.000"],
    ["12345.67", "-0.5", "100000", "1e3", "123456789012345678"],
    [true, false, "true", "0", null],
    ["12.34", "-0.01", "99999999.99", "0", null],
    [7, -7, 0, 123456789012345678, "+5"]
]}"#;

#[test]
fn takes_the_server_form_and_agrees_with_the_serde_stream() {
    let schema = schema();
    let batch = scanned(SERVER_FORM, &schema).expect("the scanner takes the server form");
    assert_eq!(batch, streamed(SERVER_FORM, &schema).unwrap());
    assert_eq!(batch.num_rows(), 5);
    let ids = batch
        .column(1)
        .as_any()
        .downcast_ref::<PrimitiveArray<Int64Type>>()
        .unwrap();
    assert_eq!(ids.values().to_vec(), [1_234_567, 0, 9_999_999, -42, 12_345_678_901]);
}

#[test]
fn takes_empty_documents_and_whitespace_anywhere() {
    let schema = schema();
    for json in [
        r#"{"members":[],"columns":[]}"#,
        " \t\r\n{ \"members\" : [ \"id\" ] , \"columns\" : [ [ \"1\" , null ] ] } \n",
        r#"{"members":["id","copy"],"columns":[[],[]]}"#,
    ] {
        let batch = scanned(json, &schema).unwrap_or_else(|_| panic!("gave up on {json}"));
        assert_eq!(batch, streamed(json, &schema).unwrap(), "{json}");
    }
}

/// Ragged and missing columns are the later phases' errors, which the
/// scanner leaves to them with the same state as the serde stream.
#[test]
fn leaves_column_count_and_ragged_errors_to_the_later_phases() {
    let schema = schema();
    for json in [
        r#"{"members":["id","copy"],"columns":[["1","2"],["3"]]}"#,
        r#"{"members":["id","copy"],"columns":[["1","2"]]}"#,
    ] {
        let plan = Plan::new(&schema, None).unwrap();
        let mut decoder = CubeDecoder::new();
        let mut st = plan.state(Shape::Columnar, &mut decoder);
        assert_eq!(columnar(json.as_bytes(), &mut st), Ok(()), "{json}");
        let error = finish(st, &plan, Shape::Columnar, &schema).unwrap_err();
        assert_eq!(Err(error), streamed(json, &schema), "{json}");
    }
}

#[test]
fn gives_up_on_everything_else() {
    let schema = schema();
    let cases = [
        r#"{"members":["status"],"columns":[["a\"b"]]}"#,
        "{\"members\":[\"status\"],\"columns\":[[\"a\u{1}b\"]]}",
        r#"{"members":["status"],"columns":[["a\\b"]]}"#,
        r#"{"members":["st\u0061tus"],"columns":[["a"]]}"#,
        r#"{"columns":[["1"]],"members":["id"]}"#,
        r#"{"members":["id"],"query":{},"columns":[["1"]]}"#,
        r#"{"members":["id"],"columns":[["1"]],"members":["id"]}"#,
        r#"{"members":["id","id"],"columns":[["1"],["2"]]}"#,
        r#"{"members":["unknown"],"columns":[["1"]]}"#,
        r#"{"members":["id"],"columns":[["1"],["2"]]}"#,
        r#"{"members":["id"],"columns":[["x"]]}"#,
        r#"{"members":["id"],"columns":[[1.5]]}"#,
        r#"{"members":["id"],"columns":[[1e5]]}"#,
        r#"{"members":["id"],"columns":[[-0]]}"#,
        r#"{"members":["id"],"columns":[[01]]}"#,
        r#"{"members":["id"],"columns":[[-]]}"#,
        r#"{"members":["id"],"columns":[[1234567890123456789]]}"#,
        r#"{"members":["id"],"columns":[[[1]]]}"#,
        r#"{"members":["id"],"columns":[[{}]]}"#,
        r#"{"members":["id"],"columns":[[nul]]}"#,
        r#"{"members":["id"],"columns":[[tru]]}"#,
        r#"{"members":["id"],"columns":[["1",]]}"#,
        r#"{"members":["id"],"columns":[["1" "2"]]}"#,
        r#"{"members":["id"],"columns":[["1"]]} x"#,
        r#"{"members":["id"],"columns":[["1"]]"#,
        r#"{"members":["id"],"columns":[["1"#,
        r#"{"members":["id"],"columns":[["123"#,
        r#"["members"]"#,
        r#"{"members":"id","columns":[]}"#,
        r#"{"members":[1],"columns":[]}"#,
        "",
    ];
    for json in cases {
        assert_eq!(scanned(json, &schema).map(|_| ()), Err(GiveUp), "{json}");
    }
    // Invalid UTF-8 in a string.
    let bytes = b"{\"members\":[\"status\"],\"columns\":[[\"\xc3(\"]]}";
    let plan = Plan::new(&schema, None).unwrap();
    let mut decoder = CubeDecoder::new();
    let mut st = plan.state(Shape::Columnar, &mut decoder);
    assert_eq!(columnar(bytes, &mut st), Err(GiveUp));
}

#[test]
fn stops_flags_the_first_special_byte_exactly() {
    let first = |s: &[u8; 8]| match stops(u64::from_le_bytes(*s)) {
        0 => None,
        f => Some(f.trailing_zeros() / 8),
    };
    assert_eq!(first(b"abcdefgh"), None);
    assert_eq!(first(b"~ !#[]{}"), None);
    assert_eq!(first(b"abc\"defg"), Some(3));
    assert_eq!(first(b"abcdefg\\"), Some(7));
    assert_eq!(first(b"\x1fbcdefgh"), Some(0));
    assert_eq!(first(b"ab\x00\"efgh"), Some(2));
    assert_eq!(first(b"abcde\xc3\xa9h"), Some(5));
    // 0x20 is no control and 0x7f is ASCII: neither stops the scan, and
    // no borrow out of a byte flags the next one.
    assert_eq!(first(b"  \x21!\"   "), Some(4));
    assert_eq!(first(b"\x7f\x20\x21\x5b\x5d\x23\x21\x20"), None);
}

/// Every window over a small alphabet: `short_digits` reads exactly the
/// 1-7 digit bodies before a quote, with `parse_i64`'s value. The alphabet
/// has the bytes on either side of the digits (`/`, `:` and `?`).
#[test]
fn short_digits_agrees_with_parse_i64_on_every_window() {
    // Miri runs a smaller alphabet (3^8 windows rather than 8^8).
    let (alphabet, least): (&[u8], usize) = if cfg!(miri) {
        (b"0\"a", 1_000)
    } else {
        (b"0159\"/:?", 100_000)
    };
    let mut window = [0u8; 8];
    let mut taken = 0;
    for code in 0..alphabet.len().pow(8) {
        let mut c = code;
        for b in window.iter_mut() {
            *b = alphabet[c % alphabet.len()];
            c /= alphabet.len();
        }
        let quote = window.iter().position(|&b| b == b'"');
        let expected = quote
            .filter(|&n| (1..8).contains(&n) && window[..n].iter().all(u8::is_ascii_digit))
            .map(|n| (parse_i64(&window[..n]).unwrap(), n));
        assert_eq!(
            short_digits(u64::from_le_bytes(window)),
            expected,
            "{:?}",
            window.escape_ascii().to_string()
        );
        taken += usize::from(expected.is_some());
    }
    assert!(taken > least, "{taken}");
}

/// The kernel scans the server form and streams every other shape and
/// every document the scanner gives up on.
#[test]
fn the_kernel_routes_the_server_form_through_the_scanner() {
    let schema = schema();
    let route = |json: &str, shape: Shape| {
        let (result, route) = decode_routed(&mut CubeDecoder::new(), json.as_bytes(), shape, &schema, None);
        let streamed = decode_with(&mut CubeDecoder::new(), json.as_bytes(), shape, &schema, None);
        assert_eq!(result, streamed, "{json}");
        route
    };
    assert_eq!(route(SERVER_FORM, Shape::Columnar), Route::Scanned);
    let ragged = r#"{"members":["id","copy"],"columns":[["1","2"],["3"]]}"#;
    assert_eq!(route(ragged, Shape::Columnar), Route::Scanned);
    let escaped = r#"{"members":["status"],"columns":[["a\nb"]]}"#;
    assert_eq!(route(escaped, Shape::Columnar), Route::Streamed);
    let compact = r#"{"members":["id"],"dataset":[["1"],["2"]]}"#;
    assert_eq!(route(compact, Shape::Compact), Route::Streamed);
    // The same document as columnar is the scanner's; as compact it is not.
    let both = r#"{"members":["id"],"columns":[["1","2"]]}"#;
    assert_eq!(route(both, Shape::Columnar), Route::Scanned);
    assert_eq!(route(both, Shape::Compact), Route::Streamed);
    assert_eq!(route(r#"[{"id":"1"}]"#, Shape::Rows), Route::Streamed);
    let unsupported = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    let (result, route) = decode_routed(
        &mut CubeDecoder::new(),
        both.as_bytes(),
        Shape::Columnar,
        &unsupported,
        None,
    );
    assert_eq!(result, Err(CubeError::UnsupportedType { field: 0 }));
    assert_eq!(route, Route::Streamed);
}

/// The one-step read of a short digit string, at the scanner's position:
/// nine bytes from there, the string with its quotes.
#[test]
fn short_int_reads_at_the_scanner_position() {
    let text = br#"["12","7654321","12345678","x1",  "3"]"#;
    let at = |at: usize| Scanner { b: text, at }.short_int();
    assert_eq!(at(0), None);
    assert_eq!(at(1), Some((12, 4)));
    assert_eq!(at(6), Some((7_654_321, 9)));
    assert_eq!(at(16), None, "eight digits");
    assert_eq!(at(27), None, "not digits");
    // Fewer than nine bytes left: the scanner reads the cell the long way.
    assert_eq!(at(34), None);
    assert_eq!(Scanner { b: br#""3"]"#, at: 0 }.short_int(), None);
    assert_eq!(
        Scanner {
            b: br#""3"]     "#,
            at: 0
        }
        .short_int(),
        Some((3, 3))
    );
}

/// A member two fields read: every cell goes to both, on the scanned path.
#[test]
fn a_member_read_by_two_fields_fills_both() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("id", DataType::Utf8, true),
        Field::new("at", DataType::Timestamp(TimeUnit::Millisecond, None), true),
    ]));
    let json =
        r#"{"members":["id","at"],"columns":[["1",null,"42"],["2024-01-01T00:00:00","1970-01-01T00:00:00.001",null]]}"#;
    let batch = scanned(json, &schema).expect("the scanner takes it");
    assert_eq!(batch, streamed(json, &schema).unwrap());
    assert_eq!(batch.num_rows(), 3);
    let text = batch.column(1).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(text.iter().collect::<Vec<_>>(), [Some("1"), None, Some("42")]);
}
