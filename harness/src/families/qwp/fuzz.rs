//! Structured fuzzing for qwp-ts: the fuzzer's bytes choose timestamps (as
//! delta-of-deltas in every bucket), nulls, the encoding and damage; the
//! reference encoder turns them into a column section.

use arbitrary::{Arbitrary, Unstructured};
use crossdec_reference::qwp as reference;

use super::QwpInput;
use crate::engine::Case;

#[derive(Arbitrary, Debug)]
enum Step {
    Null,
    Repeat,
    Small(i8),
    Mid(i16),
    Wide(i32),
    Any(i64),
}

#[derive(Arbitrary, Debug)]
enum Mutation {
    Flip(u16),
    Set(u16, u8),
    Truncate(u16),
    Insert(u16, u8),
}

#[derive(Arbitrary, Debug)]
struct Shape {
    t0: i64,
    d1: i64,
    steps: Vec<Step>,
    gorilla_flag: bool,
    /// 0: the server's choice; 1: Gorilla when possible; 2: raw.
    encoding: u8,
    /// Added to the row count (the header can claim more or fewer rows).
    extra_rows: i8,
    mutations: Vec<Mutation>,
}

pub fn arbitrary_case(u: &mut Unstructured<'_>) -> arbitrary::Result<Case<QwpInput>> {
    let shape = Shape::arbitrary(u)?;
    let mut rows = Vec::with_capacity(shape.steps.len());
    let (mut t, mut d) = (shape.t0, shape.d1);
    for step in &shape.steps {
        let dod = match *step {
            Step::Null => {
                rows.push(None);
                continue;
            }
            Step::Repeat => 0,
            Step::Small(v) => v as i64,
            Step::Mid(v) => v as i64,
            Step::Wide(v) => v as i64,
            Step::Any(v) => v,
        };
        rows.push(Some(t));
        d = d.wrapping_add(dod);
        t = t.wrapping_add(d);
    }
    let mut column = match shape.encoding % 3 {
        1 => reference::encode_column_as(&rows, reference::Encoding::Gorilla),
        2 => reference::encode_column_as(&rows, reference::Encoding::Raw),
        _ => None,
    }
    .unwrap_or_else(|| reference::encode_column(&rows, shape.gorilla_flag).0);
    let gorilla_flag = shape.gorilla_flag || shape.encoding % 3 != 0;
    for m in &shape.mutations {
        let len = column.len().max(1);
        match *m {
            Mutation::Flip(bit) if !column.is_empty() => {
                let bit = bit as usize % (column.len() * 8);
                column[bit / 8] ^= 1 << (bit % 8);
            }
            Mutation::Set(at, v) if !column.is_empty() => column[at as usize % len] = v,
            Mutation::Truncate(at) => column.truncate(at as usize % len),
            Mutation::Insert(at, v) => column.insert(at as usize % (column.len() + 1), v),
            _ => {}
        }
    }
    let row_count = (rows.len() as i64 + shape.extra_rows as i64).max(0) as u32;
    Ok(Case::one(QwpInput {
        column,
        row_count,
        gorilla_flag,
    }))
}
