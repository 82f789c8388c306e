//! The engine owns the buffer contract: for every element type a decoder
//! writes, a decoder that really writes one element past its written range,
//! or one before its range, or never gives a buffer back, is caught by the
//! engine alone (the adapters below do no checking of their own), with a
//! typed fault naming the buffer and the index; an honest one passes.

use crossdec_engine::bytes::Payload;
use crossdec_engine::{
    canonical_enum, BufferFault, Buffers, Campaign, Case, Category, Element, FamilyReport, Outcome, RunOptions, Spec,
};

/// The element type a run widens bytes to. Chosen at run time, so that one
/// campaign type serves all eleven: each campaign type compiles the whole
/// engine once more (eleven of them were most of this test's build).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    Bool,
}

/// The widened elements, of the run's element type.
#[derive(Clone, Debug, PartialEq)]
enum Widened {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}
canonical_enum!(Widened { U8(v) = 0, I8(v) = 1, U16(v) = 2, I16(v) = 3, U32(v) = 4, I32(v) = 5, U64(v) = 6, I64(v) = 7,
                          F32(v) = 8, F64(v) = 9, Bool(v) = 10 });

trait FromByte: Element + std::fmt::Debug {
    fn from_byte(b: u8) -> Self;
    fn wrap(values: Vec<Self>) -> Widened;
}

macro_rules! from_byte {
    ($($t:ty => $variant:ident, $f:expr);*) => {$(
        impl FromByte for $t {
            fn from_byte(b: u8) -> Self {
                let f: fn(u8) -> $t = $f;
                f(b)
            }
            fn wrap(values: Vec<Self>) -> Widened {
                Widened::$variant(values)
            }
        }
    )*};
}
from_byte!(u8 => U8, |b| b; i8 => I8, |b| b as i8; u16 => U16, |b| b.into(); i16 => I16, |b| b.into();
           u32 => U32, |b| b.into(); i32 => I32, |b| b.into(); u64 => U64, |b| b.into(); i64 => I64, |b| b.into();
           f32 => F32, |b| b.into(); f64 => F64, |b| b.into(); bool => Bool, |b| b & 1 == 1);

/// `$body` with `$t` the element type of `$kind`.
macro_rules! with_element {
    ($kind:expr, $t:ident => $body:expr) => {
        match $kind {
            Kind::U8 => {
                type $t = u8;
                $body
            }
            Kind::I8 => {
                type $t = i8;
                $body
            }
            Kind::U16 => {
                type $t = u16;
                $body
            }
            Kind::I16 => {
                type $t = i16;
                $body
            }
            Kind::U32 => {
                type $t = u32;
                $body
            }
            Kind::I32 => {
                type $t = i32;
                $body
            }
            Kind::U64 => {
                type $t = u64;
                $body
            }
            Kind::I64 => {
                type $t = i64;
                $body
            }
            Kind::F32 => {
                type $t = f32;
                $body
            }
            Kind::F64 => {
                type $t = f64;
                $body
            }
            Kind::Bool => {
                type $t = bool;
                $body
            }
        }
    };
}

/// Bytes to elements of one type, one per byte: the reference and every
/// decoder below.
struct Widen(Kind);

impl Spec for Widen {
    type Input = Payload;
    type Output = Widened;
    type Error = ();
    fn name(&self) -> &'static str {
        "widen"
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        // Lengths 0..=20, every byte value 0..=255 at some position.
        vec![Category::new("bytes", 1.0, |index, _| {
            vec![Case::one(Payload(
                (0..index % 21).map(|k| (index * 7 + k) as u8).collect(),
            ))]
        })]
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        with_element!(self.0, T => Ok(T::wrap(input.0.iter().map(|b| T::from_byte(*b)).collect())))
    }
    fn shrink(&self, input: &Payload) -> Vec<Payload> {
        crossdec_engine::bytes::shrink(input)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Bug {
    None,
    WritesPastWritten,
    WritesPastRange,
    WritesBeforeRange,
    NeverFinishes,
}

/// A decoder with a range of `len + 2` elements that writes `len`, plus the
/// bug. Writes are real writes into the engine's buffer.
fn decoder(kind: Kind, bug: Bug) -> impl FnMut(&Payload, &mut Buffers) -> Outcome<Widen> + Send {
    move |input, buffers| with_element!(kind, T => decode::<T>(bug, input, buffers).map(T::wrap))
}

fn decode<T: FromByte>(bug: Bug, input: &Payload, buffers: &mut Buffers) -> Result<Vec<T>, ()> {
    let n = input.0.len();
    let mut out = buffers.take::<T>("values", n + 2);
    for (o, b) in out.range().iter_mut().zip(&input.0) {
        *o = T::from_byte(*b);
    }
    // Something that is surely not the canary: the canary's own bits
    // inverted (the engine uses two canaries, so pick per call).
    let other = |v: T| {
        if v == T::from_byte(0) {
            T::from_byte(1)
        } else {
            T::from_byte(0)
        }
    };
    if n > 3 {
        match bug {
            Bug::None | Bug::NeverFinishes => {}
            Bug::WritesPastWritten => out.range()[n] = other(out.range()[n]),
            Bug::WritesPastRange => {
                let tail = out.range_and_tail();
                tail[n + 2] = other(tail[n + 2]);
            }
            Bug::WritesBeforeRange => {
                let (whole, start) = out.whole();
                whole[start - 1] = other(whole[start - 1]);
            }
        }
    }
    if bug == Bug::NeverFinishes && n > 3 {
        return Ok(out.range()[..n].to_vec());
    }
    Ok(buffers.finish(out, n))
}

fn run(kind: Kind, bug: Bug) -> FamilyReport {
    Campaign::new(Widen(kind))
        .kernel(format!("{bug:?}"), true, move || decoder(kind, bug))
        .run(&RunOptions {
            cases: 300,
            seed: 1,
            ..RunOptions::default()
        })
}

fn check(kind: Kind) {
    let what = format!("{kind:?}");
    let honest = run(kind, Bug::None);
    assert_eq!(honest.failure_count, 0, "{what}: {:?}", honest.failures.first());
    for (bug, index) in [
        (Bug::WritesPastWritten, Some(0)),
        (Bug::WritesPastRange, Some(2)),
        (Bug::WritesBeforeRange, Some(-1)),
        (Bug::NeverFinishes, None),
    ] {
        let report = run(kind, bug);
        assert!(report.failure_count > 0, "{what} {bug:?}: not caught");
        let failure = &report.failures[0];
        assert_eq!(
            failure.expected, failure.got,
            "{what} {bug:?}: the values are right, only the buffer is wrong"
        );
        let len = (failure.minimized_hex[0].len() / 2) as i64;
        match (&failure.buffer_faults[..], index) {
            (
                [BufferFault::Changed {
                    buffer,
                    index: at,
                    written,
                    ..
                }],
                Some(offset),
            ) => {
                assert_eq!(buffer, "values");
                assert_eq!(*written, failure.input_hex[0].len() as u64 / 2, "{what} {bug:?}");
                let expected = if offset < 0 { offset } else { *written as i64 + offset };
                assert_eq!(*at, expected, "{what} {bug:?}");
            }
            ([BufferFault::NotFinished { buffer }], None) => assert_eq!(buffer, "values"),
            (faults, _) => panic!("{what} {bug:?}: {faults:?}"),
        }
        // The reproducer is minimized to the shortest input that shows it.
        assert_eq!(len, 4, "{what} {bug:?}: {:?}", failure.minimized_hex);
        assert!(
            failure.minimized_got.contains("buffer faults"),
            "{}",
            failure.minimized_got
        );
    }
}

#[test]
fn u8_buffers() {
    check(Kind::U8);
}

#[test]
fn i8_and_u16_and_i16_buffers() {
    check(Kind::I8);
    check(Kind::U16);
    check(Kind::I16);
}

#[test]
fn i32_and_u32_buffers() {
    check(Kind::I32);
    check(Kind::U32);
}

#[test]
fn i64_and_u64_buffers() {
    check(Kind::I64);
    check(Kind::U64);
}

#[test]
fn float_buffers() {
    check(Kind::F32);
    check(Kind::F64);
}

#[test]
fn bool_buffers() {
    check(Kind::Bool);
}
