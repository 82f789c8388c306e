//! Filters (the same shapes as the reference's) and their normal form for
//! planning: the time filter as a sorted set of disjoint inclusive
//! intervals, so "can any time in [start, end] match" and "does every time
//! in it match" are exact, whatever the nesting.

use super::Value;

/// A predicate on a row's time; `Between` / `NotBetween` bounds inclusive
/// (`Between(lo, hi)` with `lo > hi` matches nothing).
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
    /// Can a time in `[start, end]` match? Exact, whatever the nesting: a
    /// file reader prunes whole chunks by their statistics with it.
    pub fn may_match(&self, start: i64, end: i64) -> bool {
        IntervalSet::of(self).meets(start, end)
    }
}

/// FIELD filter comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    LtEq,
    Gt,
    GtEq,
    Eq,
    NotEq,
}

/// What a FIELD filter asks: `Cmp` is false for a null, for a constant of
/// another variant, and for NaN (IEEE order); bytes compare
/// lexicographically, `false < true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldOp {
    Cmp(CmpOp, Value),
    IsNull,
    IsNotNull,
}

/// A predicate on one value column (index into the group's values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFilter {
    pub column: usize,
    pub op: FieldOp,
}

/// A row matches when both parts (those present) do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    pub time: Option<TimeFilter>,
    pub field: Option<FieldFilter>,
}

impl FieldOp {
    pub(crate) fn matches(&self, v: Option<&Value>) -> bool {
        use std::cmp::Ordering::*;
        match self {
            FieldOp::IsNull => v.is_none(),
            FieldOp::IsNotNull => v.is_some(),
            FieldOp::Cmp(op, c) => {
                let Some(v) = v else { return false };
                let o = match (v, c) {
                    (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
                    (Value::I32(x), Value::I32(y)) => Some(x.cmp(y)),
                    (Value::I64(x), Value::I64(y)) => Some(x.cmp(y)),
                    (Value::F32(x), Value::F32(y)) => f32::from_bits(*x).partial_cmp(&f32::from_bits(*y)),
                    (Value::F64(x), Value::F64(y)) => f64::from_bits(*x).partial_cmp(&f64::from_bits(*y)),
                    (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
                    _ => None,
                };
                o.is_some_and(|o| match op {
                    CmpOp::Lt => o == Less,
                    CmpOp::LtEq => o != Greater,
                    CmpOp::Gt => o == Greater,
                    CmpOp::GtEq => o != Less,
                    CmpOp::Eq => o == Equal,
                    CmpOp::NotEq => o != Equal,
                })
            }
        }
    }
}

/// Sorted, disjoint, non-adjacent inclusive intervals over i64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IntervalSet(pub Vec<(i64, i64)>);

impl IntervalSet {
    fn all() -> Self {
        IntervalSet(vec![(i64::MIN, i64::MAX)])
    }
    fn one(lo: i64, hi: i64) -> Self {
        if lo > hi {
            IntervalSet(Vec::new())
        } else {
            IntervalSet(vec![(lo, hi)])
        }
    }
    /// Sort, then merge overlapping or adjacent intervals.
    fn normalize(mut v: Vec<(i64, i64)>) -> Self {
        v.sort_unstable();
        let mut out: Vec<(i64, i64)> = Vec::with_capacity(v.len());
        for (lo, hi) in v {
            match out.last_mut() {
                // `last.1 + 1 >= lo`, without overflow at i64::MAX.
                Some(last) if last.1 >= lo || last.1.checked_add(1) == Some(lo) => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        IntervalSet(out)
    }
    fn complement(&self) -> Self {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut next = Some(i64::MIN);
        for &(lo, hi) in &self.0 {
            if let Some(n) = next {
                if lo > n {
                    out.push((n, lo - 1));
                }
            }
            next = hi.checked_add(1);
        }
        if let Some(n) = next {
            out.push((n, i64::MAX));
        }
        IntervalSet(out)
    }
    fn union(&self, other: &Self) -> Self {
        Self::normalize(self.0.iter().chain(&other.0).copied().collect())
    }
    fn intersect(&self, other: &Self) -> Self {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < a.len() && j < b.len() {
            let lo = a[i].0.max(b[j].0);
            let hi = a[i].1.min(b[j].1);
            if lo <= hi {
                out.push((lo, hi));
            }
            if a[i].1 < b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        IntervalSet(out)
    }
    pub fn of(f: &TimeFilter) -> Self {
        match f {
            TimeFilter::Gt(v) => v
                .checked_add(1)
                .map_or(IntervalSet(Vec::new()), |lo| Self::one(lo, i64::MAX)),
            TimeFilter::GtEq(v) => Self::one(*v, i64::MAX),
            TimeFilter::Lt(v) => v
                .checked_sub(1)
                .map_or(IntervalSet(Vec::new()), |hi| Self::one(i64::MIN, hi)),
            TimeFilter::LtEq(v) => Self::one(i64::MIN, *v),
            TimeFilter::Eq(v) => Self::one(*v, *v),
            TimeFilter::NotEq(v) => Self::one(*v, *v).complement(),
            TimeFilter::Between(lo, hi) => Self::one(*lo, *hi),
            TimeFilter::NotBetween(lo, hi) => Self::one(*lo, *hi).complement(),
            TimeFilter::In(vs) => Self::normalize(vs.iter().map(|&v| (v, v)).collect()),
            TimeFilter::NotIn(vs) => Self::normalize(vs.iter().map(|&v| (v, v)).collect()).complement(),
            TimeFilter::And(a, b) => Self::of(a).intersect(&Self::of(b)),
            TimeFilter::Or(a, b) => Self::of(a).union(&Self::of(b)),
            TimeFilter::Not(a) => Self::of(a).complement(),
        }
    }
    /// The interval holding `t`, if any.
    fn find(&self, t: i64) -> Option<(i64, i64)> {
        let i = self.0.partition_point(|&(_, hi)| hi < t);
        self.0.get(i).copied().filter(|&(lo, _)| lo <= t)
    }
    pub fn contains(&self, t: i64) -> bool {
        self.find(t).is_some()
    }
    /// Does some interval meet [lo, hi]?
    pub fn meets(&self, lo: i64, hi: i64) -> bool {
        let i = self.0.partition_point(|&(_, h)| h < lo);
        self.0.get(i).is_some_and(|&(l, _)| l <= hi)
    }
    /// Does one interval hold all of [lo, hi]?
    pub fn covers(&self, lo: i64, hi: i64) -> bool {
        self.find(lo).is_some_and(|(_, h)| h >= hi)
    }
}

/// The planner's view of a time filter.
#[derive(Debug, Clone)]
pub(crate) struct TimePlan {
    pub set: IntervalSet,
    /// One interval, from a tree without In / NotIn / NotEq / NotBetween /
    /// Not: every time between two matching times matches, so a BOUNDARY
    /// page's retained range may be copied as a block.
    pub contiguous: bool,
}

fn has_discrete_or_negation(f: &TimeFilter) -> bool {
    match f {
        TimeFilter::In(_)
        | TimeFilter::NotIn(_)
        | TimeFilter::NotEq(_)
        | TimeFilter::NotBetween(..)
        | TimeFilter::Not(_) => true,
        TimeFilter::And(a, b) | TimeFilter::Or(a, b) => has_discrete_or_negation(a) || has_discrete_or_negation(b),
        _ => false,
    }
}

impl TimePlan {
    pub fn of(f: Option<&TimeFilter>) -> Self {
        match f {
            None => TimePlan {
                set: IntervalSet::all(),
                contiguous: true,
            },
            Some(f) => {
                let set = IntervalSet::of(f);
                let contiguous = set.0.len() == 1 && !has_discrete_or_negation(f);
                TimePlan { set, contiguous }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interval set agrees with a direct evaluation at edges.
    #[test]
    fn interval_set_matches_tree() {
        use TimeFilter::*;
        let b = Box::new;
        let filters = [
            Gt(i64::MAX),
            Lt(i64::MIN),
            NotBetween(5, 3),
            Not(b(In(vec![3, 4, 5, 9]))),
            And(b(NotEq(0)), b(Or(b(LtEq(-2)), b(Between(7, 9))))),
            NotIn(vec![i64::MIN, i64::MAX]),
        ];
        let direct = |f: &TimeFilter, t: i64| -> bool {
            fn m(f: &TimeFilter, t: i64) -> bool {
                match f {
                    Gt(v) => t > *v,
                    GtEq(v) => t >= *v,
                    Lt(v) => t < *v,
                    LtEq(v) => t <= *v,
                    Eq(v) => t == *v,
                    NotEq(v) => t != *v,
                    Between(l, h) => *l <= t && t <= *h,
                    NotBetween(l, h) => !(*l <= t && t <= *h),
                    In(v) => v.contains(&t),
                    NotIn(v) => !v.contains(&t),
                    And(a, b) => m(a, t) && m(b, t),
                    Or(a, b) => m(a, t) || m(b, t),
                    Not(a) => !m(a, t),
                }
            }
            m(f, t)
        };
        for f in &filters {
            let s = IntervalSet::of(f);
            for t in [
                i64::MIN,
                i64::MIN + 1,
                -3,
                -2,
                -1,
                0,
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                9,
                10,
                i64::MAX - 1,
                i64::MAX,
            ] {
                assert_eq!(s.contains(t), direct(f, t), "{f:?} at {t}");
            }
        }
        assert!(!TimePlan::of(Some(&In(vec![4]))).contiguous, "In is never contiguous");
        assert!(TimePlan::of(Some(&And(b(Gt(1)), b(Lt(9))))).contiguous);
    }
}
