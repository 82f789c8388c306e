//! Every filter operator at its bounds.

use crate::tsfile::aligned::*;

fn over(f: TimeFilter, times: std::ops::RangeInclusive<i64>) -> Vec<bool> {
    times.map(|t| f.matches(t)).collect()
}

#[test]
fn time_comparisons_at_their_bounds() {
    use TimeFilter::*;
    let at_5 = |f: TimeFilter| over(f, 4..=6);
    assert_eq!(at_5(Gt(5)), [false, false, true]);
    assert_eq!(at_5(GtEq(5)), [false, true, true]);
    assert_eq!(at_5(Lt(5)), [true, false, false]);
    assert_eq!(at_5(LtEq(5)), [true, true, false]);
    assert_eq!(at_5(Eq(5)), [false, true, false]);
    assert_eq!(at_5(NotEq(5)), [true, false, true]);
}

#[test]
fn time_ranges_sets_and_combinations() {
    use TimeFilter::*;
    let (f, t) = (false, true);
    // Times 2..=8.
    assert_eq!(over(Between(3, 7), 2..=8), [f, t, t, t, t, t, f]);
    assert_eq!(over(NotBetween(3, 7), 2..=8), [t, f, f, f, f, f, t]);
    assert_eq!(over(Between(7, 3), 2..=8), [f; 7], "an empty range");
    assert_eq!(over(NotBetween(7, 3), 2..=8), [t; 7]);
    assert_eq!(over(Between(5, 5), 2..=8), [f, f, f, t, f, f, f]);
    assert_eq!(over(In(vec![3, 6]), 2..=8), [f, t, f, f, t, f, f]);
    assert_eq!(over(NotIn(vec![3, 6]), 2..=8), [t, f, t, t, f, t, t]);
    assert_eq!(over(In(vec![]), 2..=8), [f; 7]);
    let and = And(Box::new(Gt(3)), Box::new(Lt(6)));
    assert_eq!(over(and, 2..=8), [f, f, t, t, f, f, f]);
    let or = Or(Box::new(Lt(3)), Box::new(Gt(6)));
    assert_eq!(over(or, 2..=8), [t, f, f, f, f, t, t]);
    assert_eq!(over(Not(Box::new(Eq(4))), 2..=8), [t, t, f, t, t, t, t]);
    assert_eq!(over(GtEq(i64::MIN), i64::MIN..=i64::MIN + 1), [t, t]);
    assert_eq!(over(LtEq(i64::MAX), i64::MAX - 1..=i64::MAX), [t, t]);
}

/// `[Lt, LtEq, Gt, GtEq, Eq, NotEq]` of `value OP constant`.
fn all_ops(value: Option<Value>, constant: Value) -> [bool; 6] {
    use CmpOp::*;
    [Lt, LtEq, Gt, GtEq, Eq, NotEq].map(|op| FieldOp::Cmp(op, constant.clone()).matches(value.as_ref()))
}

const LESS: [bool; 6] = [true, true, false, false, false, true];
const EQUAL: [bool; 6] = [false, true, false, true, true, false];
const GREATER: [bool; 6] = [false, false, true, true, false, true];
const NEVER: [bool; 6] = [false; 6];

#[test]
fn field_comparisons_of_every_value_kind() {
    use Value::*;
    let orderings = [
        (I32(-2), I32(1)),
        (I64(i64::MIN), I64(i64::MAX)),
        (Bool(false), Bool(true)),
        (Bytes(b"ab".to_vec()), Bytes(b"b".to_vec())),
        (Bytes(b"a".to_vec()), Bytes(b"ab".to_vec())),
        // As numbers, not as bit patterns (-1.0's bits are above 0.5's).
        (F32((-1.0f32).to_bits()), F32(0.5f32.to_bits())),
        (F64((-1.0f64).to_bits()), F64(0.5f64.to_bits())),
    ];
    for (small, big) in orderings {
        assert_eq!(all_ops(Some(small.clone()), big.clone()), LESS, "{small:?} vs {big:?}");
        assert_eq!(
            all_ops(Some(big.clone()), small.clone()),
            GREATER,
            "{big:?} vs {small:?}"
        );
        assert_eq!(all_ops(Some(big.clone()), big.clone()), EQUAL, "{big:?}");
    }
    // -0.0 and 0.0 are equal numbers with different bits.
    assert_eq!(all_ops(Some(F32((-0.0f32).to_bits())), F32(0)), EQUAL);
    assert_eq!(all_ops(Some(F64((-0.0f64).to_bits())), F64(0)), EQUAL);
}

#[test]
fn nan_nulls_and_other_kinds_never_compare() {
    use Value::*;
    let nan32 = F32(f32::NAN.to_bits());
    let nan64 = F64(f64::NAN.to_bits());
    assert_eq!(all_ops(Some(nan32.clone()), F32(0)), NEVER);
    assert_eq!(all_ops(Some(F32(0)), nan32.clone()), NEVER);
    assert_eq!(all_ops(Some(nan32.clone()), nan32), NEVER, "NaN is not equal to itself");
    assert_eq!(all_ops(Some(nan64.clone()), F64(0)), NEVER);
    assert_eq!(all_ops(Some(F64(0)), nan64), NEVER);
    assert_eq!(all_ops(Some(I32(1)), I64(1)), NEVER, "another variant");
    assert_eq!(all_ops(Some(F64(0)), F32(0)), NEVER);
    assert_eq!(all_ops(None, I32(1)), NEVER, "a null");
    assert!(FieldOp::IsNull.matches(None));
    assert!(!FieldOp::IsNull.matches(Some(&I32(0))));
    assert!(FieldOp::IsNotNull.matches(Some(&Bool(false))));
    assert!(!FieldOp::IsNotNull.matches(None));
}
