//! Filters, evaluated one row at a time: a time filter tree and one optional
//! FIELD filter on a value column.

use super::Value;

/// A predicate on a row's time. Bounds are inclusive for `Between` /
/// `NotBetween`; `Between(lo, hi)` with `lo > hi` matches nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeFilter {
    Gt(i64),
    GtEq(i64),
    Lt(i64),
    LtEq(i64),
    Eq(i64),
    NotEq(i64),
    Between(i64, i64),
    NotBetween(i64, i64),
    In(Vec<i64>),
    NotIn(Vec<i64>),
    And(Box<TimeFilter>, Box<TimeFilter>),
    Or(Box<TimeFilter>, Box<TimeFilter>),
    Not(Box<TimeFilter>),
}

impl TimeFilter {
    pub fn matches(&self, t: i64) -> bool {
        match self {
            TimeFilter::Gt(v) => t > *v,
            TimeFilter::GtEq(v) => t >= *v,
            TimeFilter::Lt(v) => t < *v,
            TimeFilter::LtEq(v) => t <= *v,
            TimeFilter::Eq(v) => t == *v,
            TimeFilter::NotEq(v) => t != *v,
            TimeFilter::Between(lo, hi) => *lo <= t && t <= *hi,
            TimeFilter::NotBetween(lo, hi) => !(*lo <= t && t <= *hi),
            TimeFilter::In(vs) => vs.contains(&t),
            TimeFilter::NotIn(vs) => !vs.contains(&t),
            TimeFilter::And(a, b) => a.matches(t) && b.matches(t),
            TimeFilter::Or(a, b) => a.matches(t) || b.matches(t),
            TimeFilter::Not(a) => !a.matches(t),
        }
    }
}

/// Comparison operators of a FIELD filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    LtEq,
    Gt,
    GtEq,
    Eq,
    NotEq,
}

/// What a FIELD filter asks of its column's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldOp {
    /// `value OP constant`. False for a null, and for a constant of another
    /// variant than the column's values. Floats compare as IEEE numbers
    /// (every comparison with NaN is false, `NotEq` included); bytes compare
    /// lexicographically; `false < true`.
    Cmp(CmpOp, Value),
    IsNull,
    IsNotNull,
}

/// A predicate on one value column (an index into the group's values; it
/// need not be requested).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFilter {
    pub column: usize,
    pub op: FieldOp,
}

/// The whole filter: a row matches when both parts (those present) do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    pub time: Option<TimeFilter>,
    pub field: Option<FieldFilter>,
}

impl FieldOp {
    pub fn matches(&self, v: Option<&Value>) -> bool {
        match self {
            FieldOp::IsNull => v.is_none(),
            FieldOp::IsNotNull => v.is_some(),
            FieldOp::Cmp(op, c) => match v {
                None => false,
                Some(v) => compare(v, c).is_some_and(|o| op_holds(*op, o)),
            },
        }
    }
}

/// The ordering of two values of the same variant (None: other variants,
/// or a NaN).
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::I32(x), Value::I32(y)) => Some(x.cmp(y)),
        (Value::I64(x), Value::I64(y)) => Some(x.cmp(y)),
        (Value::F32(x), Value::F32(y)) => f32::from_bits(*x).partial_cmp(&f32::from_bits(*y)),
        (Value::F64(x), Value::F64(y)) => f64::from_bits(*x).partial_cmp(&f64::from_bits(*y)),
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn op_holds(op: CmpOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Lt => o == Less,
        CmpOp::LtEq => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::GtEq => o != Less,
        CmpOp::Eq => o == Equal,
        CmpOp::NotEq => o != Equal,
    }
}
