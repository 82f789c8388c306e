//! `#[derive(Canonical, FromCanonical)]` writes the bytes `canonical_struct!`
//! and `canonical_enum!` write for the same declarations, and reads them
//! back: a type may move from the macros to the derive without changing one
//! digest or corpus file.
#![cfg(feature = "derive")]

use crossdec_engine::{canonical_enum, canonical_struct, Canonical, FromCanonical};

/// Each declaration twice: `Macro*` through the macros, `Derived*` through
/// the derive, with the same fields, so `same` can compare their bytes.
mod by_macro {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    pub struct Page {
        pub values: Vec<i32>,
        pub consumed: usize,
        pub ratio: f64,
    }
    canonical_struct!(Page {
        values,
        consumed,
        ratio
    });

    #[derive(Debug, Clone, PartialEq)]
    pub enum Fault {
        Truncated { offset: usize, bit: u8 },
        Peer(String, Option<u16>),
        TooSmall,
        Nested(Page),
    }
    canonical_enum!(Fault { Truncated { offset, bit } = 0, Peer(message, code) = 1, TooSmall = 2, Nested(page) = 3 });

    #[derive(Debug, Clone, PartialEq)]
    pub enum Tagged {
        Low,
        High(u64),
        Middle { at: i8 },
    }
    canonical_enum!(Tagged { Low = 4, High(v) = 200, Middle { at } = 5 });
}

mod by_derive {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Canonical, FromCanonical)]
    pub struct Page {
        pub values: Vec<i32>,
        pub consumed: usize,
        pub ratio: f64,
    }

    #[derive(Debug, Clone, PartialEq, Canonical, FromCanonical)]
    pub enum Fault {
        Truncated { offset: usize, bit: u8 },
        Peer(String, Option<u16>),
        TooSmall,
        Nested(Page),
    }

    #[derive(Debug, Clone, PartialEq, Canonical, FromCanonical)]
    pub enum Tagged {
        #[canonical(tag = 4)]
        Low,
        #[canonical(tag = 200)]
        High(u64),
        #[canonical(tag = 5)]
        Middle { at: i8 },
    }
}

fn same<M, D>(by_macro: M, by_derive: D)
where
    M: Canonical + FromCanonical + PartialEq + std::fmt::Debug,
    D: Canonical + FromCanonical + PartialEq + std::fmt::Debug,
{
    let bytes = by_macro.to_canonical();
    assert_eq!(by_derive.to_canonical(), bytes, "{by_derive:?} vs {by_macro:?}");
    assert_eq!(
        D::from_canonical(&bytes),
        Some(by_derive),
        "derive reads the macro's bytes"
    );
    assert_eq!(M::from_canonical(&bytes), Some(by_macro));
}

#[test]
fn derive_writes_and_reads_the_macros_bytes() {
    let page = |v: Vec<i32>, c, r| {
        (
            by_macro::Page {
                values: v.clone(),
                consumed: c,
                ratio: r,
            },
            by_derive::Page {
                values: v,
                consumed: c,
                ratio: r,
            },
        )
    };
    let (m, d) = page(vec![-1, i32::MAX, 0], 77, -0.0);
    same(m.clone(), d.clone());
    same(
        by_macro::Fault::Truncated { offset: 9, bit: 3 },
        by_derive::Fault::Truncated { offset: 9, bit: 3 },
    );
    same(
        by_macro::Fault::Peer("é".into(), Some(513)),
        by_derive::Fault::Peer("é".into(), Some(513)),
    );
    same(
        by_macro::Fault::Peer(String::new(), None),
        by_derive::Fault::Peer(String::new(), None),
    );
    same(by_macro::Fault::TooSmall, by_derive::Fault::TooSmall);
    same(by_macro::Fault::Nested(m), by_derive::Fault::Nested(d));
    same(by_macro::Tagged::Low, by_derive::Tagged::Low);
    same(
        by_macro::Tagged::High(u64::MAX - 1),
        by_derive::Tagged::High(u64::MAX - 1),
    );
    same(
        by_macro::Tagged::Middle { at: -2 },
        by_derive::Tagged::Middle { at: -2 },
    );
    // Whole outcomes, as a spec's `Result<Output, Error>` is written.
    same(
        Err::<by_macro::Page, _>(by_macro::Tagged::High(3)),
        Err::<by_derive::Page, _>(by_derive::Tagged::High(3)),
    );
}

#[derive(Debug, PartialEq, Canonical, FromCanonical)]
struct Pair(u16, Vec<bool>);

#[derive(Debug, PartialEq, Canonical, FromCanonical)]
struct Unit;

/// Fields named like the generated code's own variables.
#[derive(Debug, PartialEq, Canonical, FromCanonical)]
struct Shadowing {
    out: u8,
    bytes: u8,
    tag: u8,
}

#[derive(Debug, PartialEq, Canonical, FromCanonical)]
enum Generic<T, E> {
    Value(T),
    Fault { error: E, at: usize },
}

#[derive(Debug, PartialEq, Canonical, FromCanonical)]
enum Never {}

#[test]
fn tuple_unit_generic_and_shadowing_declarations() {
    assert_eq!(
        Pair(0x0102, vec![true]).to_canonical(),
        (0x0102u16, vec![true]).to_canonical()
    );
    assert_eq!(Unit.to_canonical(), Vec::<u8>::new());
    assert_eq!(Unit::from_canonical(&[]), Some(Unit));
    assert_eq!(Unit::from_canonical(&[0]), None);
    assert_eq!(
        Shadowing {
            out: 1,
            bytes: 2,
            tag: 3
        }
        .to_canonical(),
        [1, 2, 3]
    );
    assert_eq!(
        Shadowing::from_canonical(&[1, 2, 3]),
        Some(Shadowing {
            out: 1,
            bytes: 2,
            tag: 3
        })
    );
    let v: Generic<Pair, String> = Generic::Value(Pair(7, vec![]));
    assert_eq!(v.to_canonical(), [0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let f: Generic<u8, String> = Generic::Fault {
        error: "x".into(),
        at: 1,
    };
    let bytes = f.to_canonical();
    assert_eq!(bytes, [1, 1, 0, 0, 0, 0, 0, 0, 0, b'x', 1, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(Generic::from_canonical(&bytes), Some(f));
    assert_eq!(Never::from_canonical(&[0]), None);
}

#[test]
fn derive_refuses_what_is_not_exactly_one_value() {
    let good = by_derive::Fault::Peer("ab".into(), Some(1)).to_canonical();
    for cut in 0..good.len() {
        assert_eq!(by_derive::Fault::from_canonical(&good[..cut]), None, "{cut}");
    }
    let mut longer = good.clone();
    longer.push(0);
    assert_eq!(by_derive::Fault::from_canonical(&longer), None);
    // Tag 4 is no variant of `Fault`; 1 is none of `Tagged`'s.
    assert_eq!(by_derive::Fault::from_canonical(&[4]), None);
    assert_eq!(by_derive::Tagged::from_canonical(&[1]), None);
}

/// A type the deriving crate does not own, inside one it does.
#[derive(Debug, PartialEq)]
struct Foreign(u32);

struct AsU16;
impl crossdec_engine::CanonicalWith<Foreign> for AsU16 {
    fn encode(value: &Foreign, out: &mut Vec<u8>) {
        (value.0 as u16).encode(out);
    }
    fn read(bytes: &mut &[u8]) -> Option<Foreign> {
        u16::read(bytes).map(|v| Foreign(v.into()))
    }
}

#[derive(Debug, PartialEq, Canonical, FromCanonical)]
enum WithForeign {
    Plain(u8),
    Mixed {
        before: u8,
        #[canonical(with = AsU16)]
        foreign: Foreign,
        after: u8,
    },
}

#[derive(Debug, PartialEq, Canonical, FromCanonical)]
struct Holder(#[canonical(with = AsU16)] Foreign, bool);

#[test]
fn fields_of_foreign_types_are_written_by_their_mapping() {
    let value = WithForeign::Mixed {
        before: 1,
        foreign: Foreign(0x0203),
        after: 4,
    };
    assert_eq!(value.to_canonical(), [1, 1, 3, 2, 4]);
    assert_eq!(WithForeign::from_canonical(&[1, 1, 3, 2, 4]), Some(value));
    assert_eq!(WithForeign::Plain(9).to_canonical(), [0, 9]);
    assert_eq!(Holder(Foreign(5), true).to_canonical(), [5, 0, 1]);
    assert_eq!(Holder::from_canonical(&[5, 0, 1]), Some(Holder(Foreign(5), true)));
}

/// The derive by its path, and the engine named explicitly.
#[derive(crossdec_engine::Canonical, crossdec_engine::FromCanonical, Debug, PartialEq)]
#[canonical(crate = ::crossdec_engine)]
struct ByPath {
    value: Option<u8>,
}

#[test]
fn the_derive_by_its_path_and_an_explicit_engine_path() {
    assert_eq!(ByPath { value: Some(4) }.to_canonical(), [1, 4]);
    assert_eq!(ByPath::from_canonical(&[0]), Some(ByPath { value: None }));
}
