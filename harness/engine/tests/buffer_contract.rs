//! The engine owns the buffer contract: for every element type a decoder
//! writes, a decoder that really writes one element past its written range,
//! or one before its range, or never gives a buffer back, is caught by the
//! engine alone (the adapters below do no checking of their own), with a
//! typed fault naming the buffer and the index; an honest one passes.

use crossdec_engine::bytes::Payload;
use crossdec_engine::{
    BufferFault, Buffers, Campaign, Case, Category, Element, FamilyReport, Outcome, RunOptions, Spec,
};

/// Bytes to elements, one per byte: the reference and every decoder below.
struct Widen<T>(std::marker::PhantomData<T>);

trait FromByte: Element + Sync + std::fmt::Debug + crossdec_engine::Canonical + crossdec_engine::FromCanonical {
    fn from_byte(b: u8) -> Self;
}

macro_rules! from_byte {
    ($($t:ty => $f:expr),*) => {$(
        impl FromByte for $t {
            fn from_byte(b: u8) -> Self {
                let f: fn(u8) -> $t = $f;
                f(b)
            }
        }
    )*};
}
from_byte!(u8 => |b| b, i8 => |b| b as i8, u16 => |b| b.into(), i16 => |b| b.into(), u32 => |b| b.into(), i32 => |b| b.into(),
           u64 => |b| b.into(), i64 => |b| b.into(), f32 => |b| b.into(), f64 => |b| b.into(), bool => |b| b & 1 == 1);

impl<T: FromByte + Send + Sync + 'static> Spec for Widen<T> {
    type Input = Payload;
    type Output = Vec<T>;
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
        Ok(input.0.iter().map(|b| T::from_byte(*b)).collect())
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
fn decoder<T: FromByte>(bug: Bug) -> impl FnMut(&Payload, &mut Buffers) -> Outcome<Widen<T>> + Send {
    move |input, buffers| {
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
}

fn run<T: FromByte + Send + Sync + 'static>(bug: Bug) -> FamilyReport {
    Campaign::new(Widen::<T>(std::marker::PhantomData))
        .kernel(format!("{bug:?}"), true, move || decoder::<T>(bug))
        .run(&RunOptions {
            cases: 300,
            seed: 1,
            ..RunOptions::default()
        })
}

fn check<T: FromByte + Send + Sync + 'static>() {
    let what = std::any::type_name::<T>();
    let honest = run::<T>(Bug::None);
    assert_eq!(honest.failure_count, 0, "{what}: {:?}", honest.failures.first());
    for (bug, index) in [
        (Bug::WritesPastWritten, Some(0)),
        (Bug::WritesPastRange, Some(2)),
        (Bug::WritesBeforeRange, Some(-1)),
        (Bug::NeverFinishes, None),
    ] {
        let report = run::<T>(bug);
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
    check::<u8>();
}

#[test]
fn i8_and_u16_and_i16_buffers() {
    check::<i8>();
    check::<u16>();
    check::<i16>();
}

#[test]
fn i32_and_u32_buffers() {
    check::<i32>();
    check::<u32>();
}

#[test]
fn i64_and_u64_buffers() {
    check::<i64>();
    check::<u64>();
}

#[test]
fn float_buffers() {
    check::<f32>();
    check::<f64>();
}

#[test]
fn bool_buffers() {
    check::<bool>();
}
