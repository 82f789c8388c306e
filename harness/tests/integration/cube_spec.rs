//! cube-columnar: every error variant, the review bugs of the streaming
//! change, and known answers — each checked on the reference AND the kernel.

use crossdec_harness::engine::{Canonical, Parse};
use crossdec_harness::families::cube::{
    self, run_reference, Batch, CubeFault, CubeInput, FieldDesc, Shape, Ty, Values,
};

fn f(name: &str, ty: Ty) -> FieldDesc {
    FieldDesc {
        name: name.into(),
        ty,
        literal: None,
    }
}

fn lit(name: &str, ty: Ty, text: &str) -> FieldDesc {
    FieldDesc {
        name: name.into(),
        ty,
        literal: Some(text.into()),
    }
}

/// Decode with the reference and every kernel; they must agree; return it.
fn both(json: &str, shape: Shape, fields: Vec<FieldDesc>, limit: Option<i64>) -> Result<Batch, CubeFault> {
    let input = CubeInput::new(json.as_bytes().to_vec(), shape, fields, limit);
    let expected = run_reference(&input);
    for imp in cube::campaign().implementations() {
        let (got, faults) = imp.decode_once(&input);
        assert_eq!(got, expected, "{} disagrees with the reference on {json}", imp.name);
        assert_eq!(faults, vec![], "{}", imp.name);
    }
    expected
}

fn err(json: &str, shape: Shape, fields: Vec<FieldDesc>, limit: Option<i64>) -> CubeFault {
    both(json, shape, fields, limit).expect_err("an error")
}

fn i64s(b: &Batch, col: usize) -> (Vec<i64>, Vec<bool>) {
    match &b.columns[col].values {
        Values::I64(v) => (v.clone(), b.columns[col].validity.clone()),
        other => panic!("not i64: {other:?}"),
    }
}

#[test]
fn unsupported_types() {
    for ty in [
        Ty::Unsupported(0),
        Ty::Unsupported(1),
        Ty::Unsupported(2),
        Ty::Decimal(0, 0),
        Ty::Decimal(10, 11),
        Ty::Decimal(39, 0),
        Ty::Decimal(5, -1),
    ] {
        assert_eq!(
            err("[]", Shape::Rows, vec![f("a", Ty::Int64), f("b", ty)], None),
            CubeFault::UnsupportedType { field: 1 },
            "{ty:?}"
        );
    }
}

#[test]
fn non_nullable_fields_are_unsupported_not_a_panic() {
    use std::sync::Arc;
    let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "a",
        arrow_schema::DataType::Int64,
        false,
    )]));
    let json = b"[{\"a\":null}]";
    let r = crossdec_reference::cube::decode(json, crossdec_reference::cube::Shape::Rows, &schema, None);
    let k = crossdec_kernels::cube::decode(json, crossdec_kernels::cube::Shape::Rows, &schema, None);
    assert_eq!(
        r.unwrap_err(),
        crossdec_reference::cube::CubeError::UnsupportedType { field: 0 }
    );
    assert_eq!(
        k.unwrap_err(),
        crossdec_kernels::cube::CubeError::UnsupportedType { field: 0 }
    );
}

#[test]
fn bad_literals() {
    for (ty, text) in [
        (Ty::Int64, "\"x\""),
        (Ty::Int64, "[1]"),
        (Ty::Utf8, "{}"),
        (Ty::Boolean, "nul"),
        (Ty::Float64, "1 2"),
        (Ty::Int64, ""),
    ] {
        assert_eq!(
            err("[]", Shape::Rows, vec![lit("l", ty, text)], None),
            CubeFault::BadLiteral { field: 0 },
            "{text}"
        );
    }
}

#[test]
fn negative_or_absurd_limit_is_a_clear_error() {
    // The review bug: a negative i32 limit cast to usize wraps to ~2^64 rows.
    for limit in [-1, i64::from(i32::MIN), 1_000_001, i64::MAX, i64::MIN] {
        assert_eq!(
            err("[]", Shape::Rows, vec![lit("one", Ty::Int64, "1")], Some(limit)),
            CubeFault::BadLimit { limit }
        );
    }
    // In range: the row count is the limit, the literal repeats.
    let b = both(
        "[]",
        Shape::Rows,
        vec![lit("one", Ty::Int64, "1"), lit("n", Ty::Utf8, "null")],
        Some(3),
    )
    .unwrap();
    assert_eq!(b.rows, 3);
    assert_eq!(i64s(&b, 0), (vec![1, 1, 1], vec![true; 3]));
    assert_eq!(b.columns[1].validity, vec![false; 3]);
    // No fields at all: still the limit.
    assert_eq!(
        both("{\"members\":[],\"columns\":[]}", Shape::Columnar, vec![], Some(7))
            .unwrap()
            .rows,
        7
    );
    // With a member field the limit is ignored (even a negative one).
    assert_eq!(
        both("[{\"a\":1}]", Shape::Rows, vec![f("a", Ty::Int64)], Some(-1))
            .unwrap()
            .rows,
        1
    );
}

#[test]
fn too_large_literal_string_is_refused_before_allocating() {
    let text = format!("\"{}\"", "x".repeat(4096));
    assert_eq!(
        err("[]", Shape::Rows, vec![lit("s", Ty::Utf8, &text)], Some(1_000_000)),
        CubeFault::TooLarge { field: 0 }
    );
}

#[test]
fn invalid_json_reports_the_byte_offset() {
    // Offsets on later lines: start of the line + column.
    let json = "[\n  {\"a\": 1},\n  {\"a\": 2,}\n]";
    // serde_json's 1-based column of the offending byte, made 0-based.
    let at = json.find(",}").unwrap() as u64 + 1;
    assert_eq!(
        err(json, Shape::Rows, vec![f("a", Ty::Int64)], None),
        CubeFault::InvalidJson { offset: at }
    );
    // Truncated: the offset of the last byte.
    let json = "{\"members\":[\"a\"],\"columns\":[[1,2";
    assert_eq!(
        err(json, Shape::Columnar, vec![f("a", Ty::Int64)], None),
        CubeFault::InvalidJson {
            offset: json.len() as u64 - 1
        }
    );
    // A bad byte on line 1.
    assert_eq!(
        err("[{\"a\":x}]", Shape::Rows, vec![f("a", Ty::Int64)], None),
        CubeFault::InvalidJson { offset: 6 }
    );
    assert_eq!(err("", Shape::Rows, vec![], None), CubeFault::InvalidJson { offset: 0 });
    // A syntax error after a semantic one still wins (whole-document rule).
    let json = "[{\"a\":\"x\"},{\"a\":1} x";
    assert!(matches!(
        err(json, Shape::Rows, vec![f("a", Ty::Int64)], None),
        CubeFault::InvalidJson { .. }
    ));
}

#[test]
fn bad_shapes() {
    let a = || vec![f("a", Ty::Int64)];
    let cases: &[(&str, Shape, &str)] = &[
        ("{}", Shape::Rows, ""),
        ("[{}, 1, []]", Shape::Rows, "/1"),
        ("[]", Shape::Columnar, ""),
        ("{\"columns\":[]}", Shape::Columnar, "/members"),
        ("{\"members\":1,\"columns\":[]}", Shape::Columnar, "/members"),
        (
            "{\"members\":[\"a\",null],\"columns\":[]}",
            Shape::Columnar,
            "/members/1",
        ),
        ("{\"members\":[\"a\"]}", Shape::Columnar, "/columns"),
        ("{\"members\":[\"a\"],\"dataset\":{}}", Shape::Compact, "/dataset"),
        (
            "{\"members\":[\"a\"],\"dataset\":[[1],{}]}",
            Shape::Compact,
            "/dataset/1",
        ),
        (
            "{\"members\":[\"a\"],\"columns\":[\"x\"]}",
            Shape::Columnar,
            "/columns/0",
        ),
        // A repeated key: the last one counts, even when an earlier one was good.
        (
            "{\"members\":[\"a\"],\"members\":1,\"columns\":[[1]]}",
            Shape::Columnar,
            "/members",
        ),
        (
            "{\"columns\":[[1]],\"members\":[\"a\"],\"members\":null}",
            Shape::Columnar,
            "/members",
        ),
        (
            "{\"members\":[\"a\"],\"columns\":[[1]],\"columns\":{}}",
            Shape::Columnar,
            "/columns",
        ),
        (
            "{\"members\":[\"a\"],\"dataset\":[[1]],\"dataset\":\"x\"}",
            Shape::Compact,
            "/dataset",
        ),
    ];
    for (json, shape, path) in cases {
        assert_eq!(
            err(json, *shape, a(), None),
            CubeFault::BadShape { path: path.to_string() },
            "{json}"
        );
    }
}

#[test]
fn duplicate_members_column_counts_and_ragged_data() {
    let ab = || vec![f("a", Ty::Int64), f("b", Ty::Int64)];
    assert_eq!(
        err(
            "{\"members\":[\"a\",\"b\",\"a\"],\"columns\":[[],[],[]]}",
            Shape::Columnar,
            ab(),
            None
        ),
        CubeFault::DuplicateMember { member: "a".into() }
    );
    assert_eq!(
        err(
            "{\"members\":[\"a\",\"b\"],\"columns\":[[1]]}",
            Shape::Columnar,
            ab(),
            None
        ),
        CubeFault::ColumnCount { members: 2, columns: 1 }
    );
    assert_eq!(
        err(
            "{\"members\":[\"a\",\"b\"],\"columns\":[[1,2],[3]]}",
            Shape::Columnar,
            ab(),
            None
        ),
        CubeFault::Ragged {
            index: 1,
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        err(
            "{\"members\":[\"a\",\"b\"],\"dataset\":[[1,2],[3,4,5]]}",
            Shape::Compact,
            ab(),
            None
        ),
        CubeFault::Ragged {
            index: 1,
            expected: 2,
            found: 3
        }
    );
}

#[test]
fn unknown_members_are_errors_not_dropped_data() {
    assert_eq!(
        err(
            "{\"members\":[\"a\",\"zz\"],\"columns\":[[1],[2]]}",
            Shape::Columnar,
            vec![f("a", Ty::Int64)],
            None
        ),
        CubeFault::UnknownMember { member: "zz".into() }
    );
    // Rows: the first row that has one, then the smallest name in that row.
    assert_eq!(
        err(
            "[{\"a\":1},{\"y\":1,\"x\":2},{\"b\":3}]",
            Shape::Rows,
            vec![f("a", Ty::Int64)],
            None
        ),
        CubeFault::UnknownMember { member: "x".into() }
    );
    // The review bug: a member-less query must not silently null a member.
    assert_eq!(
        err("[{\"a\":1}]", Shape::Rows, vec![lit("one", Ty::Int64, "1")], Some(1)),
        CubeFault::UnknownMember { member: "a".into() }
    );
}

#[test]
fn keys_only_in_later_rows_are_kept() {
    // The review bug: keys taken from the first row only.
    let b = both(
        "[{\"a\":1},{\"a\":2,\"b\":\"20\"},{\"b\":30}]",
        Shape::Rows,
        vec![f("a", Ty::Int64), f("b", Ty::Int64)],
        None,
    )
    .unwrap();
    assert_eq!(i64s(&b, 0), (vec![1, 2, 0], vec![true, true, false]));
    assert_eq!(i64s(&b, 1), (vec![0, 20, 30], vec![false, true, true]));
    // Duplicate keys: the last one wins, even over an unmappable first one.
    let b = both("[{\"a\":\"x\",\"a\":5}]", Shape::Rows, vec![f("a", Ty::Int64)], None).unwrap();
    assert_eq!(i64s(&b, 0), (vec![5], vec![true]));
    assert_eq!(
        err("[{\"a\":5,\"a\":\"x\"}]", Shape::Rows, vec![f("a", Ty::Int64)], None),
        CubeFault::Unmappable {
            member: "a".into(),
            row: 0,
            ty: "Int64".into()
        }
    );
}

#[test]
fn missing_member_is_a_null_column() {
    let b = both(
        "{\"members\":[\"a\"],\"dataset\":[[1],[2]]}",
        Shape::Compact,
        vec![f("a", Ty::Int64), f("gone", Ty::Utf8)],
        None,
    )
    .unwrap();
    assert_eq!(b.columns[1].validity, vec![false, false]);
}

#[test]
fn unmappable_and_overflow_carry_member_and_row() {
    let fields = || vec![f("a", Ty::Int64), f("t", Ty::Timestamp(0))];
    // Field order decides before row order: field 0's row 2 beats field 1's row 0.
    let json = "{\"members\":[\"t\",\"a\"],\"columns\":[[\"bad\",null,null],[1,2,\"x\"]]}";
    assert_eq!(
        err(json, Shape::Columnar, fields(), None),
        CubeFault::Unmappable {
            member: "a".into(),
            row: 2,
            ty: "Int64".into()
        }
    );
    let json = "[{\"a\":\"9223372036854775808\"}]";
    assert_eq!(
        err(json, Shape::Rows, fields(), None),
        CubeFault::Overflow {
            member: "a".into(),
            row: 0,
            ty: "Int64".into()
        }
    );
    let json = "[{\"a\":null},{\"t\":\"2262-04-11T23:47:16.854775808\"}]";
    let ns = vec![f("t", Ty::Timestamp(2)), f("a", Ty::Int64)];
    assert!(matches!(
        err(json, Shape::Rows, ns, None),
        CubeFault::Overflow { row: 1, .. }
    ));
    let json = "[{\"d\":\"1000\"}]";
    assert!(matches!(
        err(json, Shape::Rows, vec![f("d", Ty::Decimal(3, 0))], None),
        CubeFault::Overflow { .. }
    ));
}

#[test]
fn value_mapping_known_answers() {
    let json = r#"{"members":["s","i","f","b","ms","us","ns","d"],"columns":[
        ["x\u00e9", 12, true, 1.5e300, null],
        ["-9223372036854775808", 9223372036854775807, "+7", "007", null],
        ["1.5", 2, "NaN", "-inf", 1e308],
        [true, "1", "0", "false", null],
        ["1970-01-01T00:00:00.001", "2024-01-01T00:00:00Z", "1969-12-31T23:59:59.999000000", -5, null],
        ["1970-01-01T00:00:00.000001", "0000-01-01T00:00:00", "9999-12-31T23:59:59.999999", 0, null],
        ["1677-09-21T00:12:43.145224192", "2262-04-11T23:47:16.854775807", "2000-02-29T00:00:00.5", 1, null],
        ["-12.3", 45, 0.5, "+.25", "-0"]
    ]}"#;
    let fields = vec![
        f("s", Ty::Utf8),
        f("i", Ty::Int64),
        f("f", Ty::Float64),
        f("b", Ty::Boolean),
        f("ms", Ty::Timestamp(0)),
        f("us", Ty::Timestamp(1)),
        f("ns", Ty::Timestamp(2)),
        f("d", Ty::Decimal(10, 2)),
    ];
    let b = both(json, Shape::Columnar, fields, None).unwrap();
    insta::assert_debug_snapshot!("cube_known_answers", b);
}

#[test]
fn shapes_agree_on_the_same_table() {
    let fields = || vec![f("a", Ty::Int64), f("b", Ty::Utf8)];
    let rows = both(
        "[{\"a\":\"1\",\"b\":\"x\"},{\"b\":null,\"a\":2}]",
        Shape::Rows,
        fields(),
        None,
    )
    .unwrap();
    let compact = both(
        "{\"members\":[\"b\",\"a\"],\"dataset\":[[\"x\",\"1\"],[null,2]]}",
        Shape::Compact,
        fields(),
        None,
    )
    .unwrap();
    let columnar = both(
        "{\"columns\":[[\"1\",2],[\"x\",null]],\"members\":[\"a\",\"b\"]}",
        Shape::Columnar,
        fields(),
        None,
    )
    .unwrap();
    assert_eq!(rows, compact);
    assert_eq!(rows, columnar);
}

#[test]
fn inputs_round_trip_and_garbage_parses_gracefully() {
    let input = CubeInput::new(
        b"[1]".to_vec(),
        Shape::Compact,
        vec![lit("l", Ty::Decimal(5, 2), "\"1.5\""), f("t", Ty::Timestamp(1))],
        Some(-3),
    );
    let bytes = input.to_canonical();
    let back = CubeInput::parse(&bytes).expect("round trip");
    assert_eq!(
        (back.json, back.shape, back.fields, back.limit),
        (input.json, input.shape, input.fields, input.limit)
    );
    for cut in 0..bytes.len() {
        let _ = CubeInput::parse(&bytes[..cut]);
    }
    assert!(CubeInput::parse(b"").is_none());
    assert!(CubeInput::parse(b"CUBE\x09").is_none());
}
