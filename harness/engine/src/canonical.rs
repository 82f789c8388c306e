//! The canonical encoding: the one byte form of inputs and outcomes that is
//! hashed into digests, written to corpora and printed in reproducers.
//!
//! It is explicit little-endian and independent of the host: integers as
//! fixed-width little-endian (`usize`/`isize` widened to 64 bits, so 32- and
//! 64-bit hosts agree), floats by their bit patterns (so NaN payloads and
//! `-0.0` count), sequences and strings prefixed by their length as a `u64`,
//! `Option` and `Result` by a tag byte. It never depends on `Debug` text, so
//! renaming a type or a variant does not change a digest; enum variants are
//! written as the explicit tags given to [`canonical_enum!`](crate::canonical_enum).

/// A value with a canonical byte form. Implemented for the integer
/// (`NonZero*` too), float, `bool`, string, sequence, `Option`, `Result`,
/// tuple and `Range` types, and through `&`, `Box`, `Rc`, `Arc` and `Cow`; a struct or
/// enum of those gets one from [`canonical_struct!`](crate::canonical_struct) or [`canonical_enum!`](crate::canonical_enum).
///
/// ```
/// use crossdec_engine::Canonical;
/// assert_eq!(7u16.to_canonical(), [7, 0]);
/// assert_eq!(vec![1u8, 2].to_canonical(), [2, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
/// assert_eq!(Some(-1i8).to_canonical(), [1, 0xff]);
/// ```
pub trait Canonical {
    /// Append this value's canonical bytes to `out`.
    fn encode(&self, out: &mut Vec<u8>);

    /// This value's canonical bytes.
    fn to_canonical(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }

    /// Append the canonical bytes of every item of `items`, one after the
    /// other (no length prefix: the slice's own `encode` writes it). The
    /// same bytes as encoding each item; the integer types override it to
    /// write a whole slice at once, since inputs and outcomes of a million
    /// bytes or values are encoded for every case of a large category.
    fn encode_items(items: &[Self], out: &mut Vec<u8>)
    where
        Self: Sized,
    {
        for item in items {
            item.encode(out);
        }
    }
}

macro_rules! little_endian {
    ($($t:ty),*) => {$(
        impl Canonical for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn encode_items(items: &[Self], out: &mut Vec<u8>) {
                out.reserve(std::mem::size_of_val(items));
                for item in items {
                    out.extend_from_slice(&item.to_le_bytes());
                }
            }
        }
    )*};
}
little_endian!(u16, u32, u64, u128, i16, i32, i64, i128);

impl Canonical for u8 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(*self);
    }
    fn encode_items(items: &[Self], out: &mut Vec<u8>) {
        out.extend_from_slice(items);
    }
}

impl Canonical for i8 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(*self as u8);
    }
    fn encode_items(items: &[Self], out: &mut Vec<u8>) {
        out.extend(items.iter().map(|&b| b as u8));
    }
}

impl Canonical for usize {
    fn encode(&self, out: &mut Vec<u8>) {
        (*self as u64).encode(out);
    }
}

impl Canonical for isize {
    fn encode(&self, out: &mut Vec<u8>) {
        (*self as i64).encode(out);
    }
}

impl Canonical for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
}

impl Canonical for char {
    fn encode(&self, out: &mut Vec<u8>) {
        u32::from(*self).encode(out);
    }
}

impl Canonical for f32 {
    fn encode(&self, out: &mut Vec<u8>) {
        self.to_bits().encode(out);
    }
}

impl Canonical for f64 {
    fn encode(&self, out: &mut Vec<u8>) {
        self.to_bits().encode(out);
    }
}

impl Canonical for () {
    fn encode(&self, _out: &mut Vec<u8>) {}
}

impl Canonical for str {
    fn encode(&self, out: &mut Vec<u8>) {
        self.len().encode(out);
        out.extend_from_slice(self.as_bytes());
    }
}

impl Canonical for String {
    fn encode(&self, out: &mut Vec<u8>) {
        self.as_str().encode(out);
    }
}

impl<T: Canonical> Canonical for [T] {
    fn encode(&self, out: &mut Vec<u8>) {
        self.len().encode(out);
        T::encode_items(self, out);
    }
}

impl<T: Canonical> Canonical for Vec<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.as_slice().encode(out);
    }
}

impl<T: Canonical, const N: usize> Canonical for [T; N] {
    /// Fixed-length arrays carry no length prefix: the type fixes it.
    fn encode(&self, out: &mut Vec<u8>) {
        T::encode_items(self, out);
    }
}

impl<T: Canonical> Canonical for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.encode(out);
            }
        }
    }
}

impl<T: Canonical, E: Canonical> Canonical for Result<T, E> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Ok(v) => {
                out.push(0);
                v.encode(out);
            }
            Err(e) => {
                out.push(1);
                e.encode(out);
            }
        }
    }
}

impl<T: Canonical + ?Sized> Canonical for &T {
    fn encode(&self, out: &mut Vec<u8>) {
        (**self).encode(out);
    }
}

impl<T: Canonical + ?Sized> Canonical for Box<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        (**self).encode(out);
    }
}

/// A value that can be read back from its canonical bytes: the inverse of
/// [`Canonical`], used for what an external subject sends back (see
/// [`crate::subject`]). Reading never trusts a count: a sequence's declared
/// length is checked against the bytes left before anything is allocated.
///
/// ```
/// use crossdec_engine::{Canonical, FromCanonical};
/// let bytes = (vec![1u16, 2], Some(-3i64)).to_canonical();
/// assert_eq!(<(Vec<u16>, Option<i64>)>::from_canonical(&bytes), Some((vec![1, 2], Some(-3))));
/// assert_eq!(<Vec<u16>>::from_canonical(&[9, 0, 0, 0, 0, 0, 0, 0, 1]), None);
/// ```
pub trait FromCanonical: Sized {
    /// Read one value from the front of `bytes`, advancing it; `None` if
    /// the bytes are not one.
    fn read(bytes: &mut &[u8]) -> Option<Self>;

    /// The value whose canonical bytes are exactly `bytes` (nothing left
    /// over), or `None`.
    fn from_canonical(mut bytes: &[u8]) -> Option<Self> {
        let value = Self::read(&mut bytes)?;
        bytes.is_empty().then_some(value)
    }
}

fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if bytes.len() < n {
        return None;
    }
    let (head, tail) = bytes.split_at(n);
    *bytes = tail;
    Some(head)
}

macro_rules! little_endian_from {
    ($($t:ty),*) => {$(
        impl FromCanonical for $t {
            fn read(bytes: &mut &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(take(bytes, std::mem::size_of::<$t>())?.try_into().ok()?))
            }
        }
    )*};
}
little_endian_from!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

impl FromCanonical for usize {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        usize::try_from(u64::read(bytes)?).ok()
    }
}

impl FromCanonical for isize {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        isize::try_from(i64::read(bytes)?).ok()
    }
}

impl FromCanonical for bool {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        match u8::read(bytes)? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

impl FromCanonical for char {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        char::from_u32(u32::read(bytes)?)
    }
}

impl FromCanonical for f32 {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        Some(f32::from_bits(u32::read(bytes)?))
    }
}

impl FromCanonical for f64 {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        Some(f64::from_bits(u64::read(bytes)?))
    }
}

impl FromCanonical for () {
    fn read(_bytes: &mut &[u8]) -> Option<Self> {
        Some(())
    }
}

/// A declared sequence length, refused when it is more than the bytes left
/// could hold (every element this module reads takes at least one byte,
/// except `()`, which nothing sends in sequences).
fn sequence_len(bytes: &mut &[u8]) -> Option<usize> {
    let n = usize::read(bytes)?;
    (n <= bytes.len()).then_some(n)
}

impl FromCanonical for String {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        let n = sequence_len(bytes)?;
        String::from_utf8(take(bytes, n)?.to_vec()).ok()
    }
}

impl<T: FromCanonical> FromCanonical for Vec<T> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        let n = sequence_len(bytes)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(T::read(bytes)?);
        }
        Some(out)
    }
}

impl<T: FromCanonical, const N: usize> FromCanonical for [T; N] {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        let items: Vec<T> = (0..N).map(|_| T::read(bytes)).collect::<Option<_>>()?;
        items.try_into().ok()
    }
}

impl<T: FromCanonical> FromCanonical for Option<T> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        match u8::read(bytes)? {
            0 => Some(None),
            1 => Some(Some(T::read(bytes)?)),
            _ => None,
        }
    }
}

impl<T: FromCanonical, E: FromCanonical> FromCanonical for Result<T, E> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        match u8::read(bytes)? {
            0 => Some(Ok(T::read(bytes)?)),
            1 => Some(Err(E::read(bytes)?)),
            _ => None,
        }
    }
}

impl<T: FromCanonical> FromCanonical for Box<T> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        T::read(bytes).map(Box::new)
    }
}

macro_rules! non_zero {
    ($($t:ty => $inner:ty),*) => {$(
        /// As the integer it holds.
        impl Canonical for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                self.get().encode(out);
            }
        }

        /// Refusing zero, which is no value of the type.
        impl FromCanonical for $t {
            fn read(bytes: &mut &[u8]) -> Option<Self> {
                <$t>::new(<$inner>::read(bytes)?)
            }
        }
    )*};
}
non_zero!(
    std::num::NonZeroU8 => u8, std::num::NonZeroU16 => u16, std::num::NonZeroU32 => u32,
    std::num::NonZeroU64 => u64, std::num::NonZeroU128 => u128, std::num::NonZeroUsize => usize,
    std::num::NonZeroI8 => i8, std::num::NonZeroI16 => i16, std::num::NonZeroI32 => i32,
    std::num::NonZeroI64 => i64, std::num::NonZeroI128 => i128, std::num::NonZeroIsize => isize
);

/// As the value it borrows or owns: which of the two is not part of the
/// value (a decoder that borrows from its input and one that copies agree).
impl<B: Canonical + ToOwned + ?Sized> Canonical for std::borrow::Cow<'_, B> {
    fn encode(&self, out: &mut Vec<u8>) {
        (**self).encode(out);
    }
}

/// Always owned: the bytes it is read from do not outlive the read.
impl<B: ToOwned + ?Sized> FromCanonical for std::borrow::Cow<'static, B>
where
    B::Owned: FromCanonical,
{
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        B::Owned::read(bytes).map(std::borrow::Cow::Owned)
    }
}

impl<T: Canonical + ?Sized> Canonical for std::rc::Rc<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        (**self).encode(out);
    }
}

impl<T: Canonical + ?Sized> Canonical for std::sync::Arc<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        (**self).encode(out);
    }
}

impl<T: FromCanonical> FromCanonical for std::rc::Rc<T> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        T::read(bytes).map(std::rc::Rc::new)
    }
}

impl<T: FromCanonical> FromCanonical for std::sync::Arc<T> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        T::read(bytes).map(std::sync::Arc::new)
    }
}

/// Start, then end (a decoder's "bytes 3..9 were bad"). Empty and reversed
/// ranges are values like any other.
impl<T: Canonical> Canonical for std::ops::Range<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.start.encode(out);
        self.end.encode(out);
    }
}

impl<T: FromCanonical> FromCanonical for std::ops::Range<T> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        Some(T::read(bytes)?..T::read(bytes)?)
    }
}

/// Start, then end, as a `Range`: which of the two types a value has is not
/// in its bytes.
impl<T: Canonical> Canonical for std::ops::RangeInclusive<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.start().encode(out);
        self.end().encode(out);
    }
}

impl<T: FromCanonical> FromCanonical for std::ops::RangeInclusive<T> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        Some(T::read(bytes)?..=T::read(bytes)?)
    }
}

macro_rules! tuple {
    ($($name:ident),+) => {
        impl<$($name: Canonical),+> Canonical for ($($name,)+) {
            #[allow(non_snake_case)]
            fn encode(&self, out: &mut Vec<u8>) {
                let ($($name,)+) = self;
                $($name.encode(out);)+
            }
        }

        impl<$($name: FromCanonical),+> FromCanonical for ($($name,)+) {
            fn read(bytes: &mut &[u8]) -> Option<Self> {
                Some(($($name::read(bytes)?,)+))
            }
        }
    };
}
tuple!(A);
tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);
tuple!(A, B, C, D, E);
tuple!(A, B, C, D, E, F);

/// Implement [`Canonical`] (and [`FromCanonical`]) for a struct as its fields
/// in the order listed, which must be all of its fields.
///
/// ```
/// use crossdec_engine::{canonical_struct, Canonical};
/// struct Page { values: Vec<i32>, consumed: usize }
/// canonical_struct!(Page { values, consumed });
/// let bytes = Page { values: vec![-1], consumed: 4 }.to_canonical();
/// assert_eq!(bytes, [1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 4, 0, 0, 0, 0, 0, 0, 0]);
/// ```
#[macro_export]
macro_rules! canonical_struct {
    ($t:ty { $($field:ident),* $(,)? }) => {
        impl $crate::Canonical for $t {
            fn encode(&self, out: &mut ::std::vec::Vec<u8>) {
                $( $crate::Canonical::encode(&self.$field, out); )*
            }
        }

        impl $crate::FromCanonical for $t {
            fn read(bytes: &mut &[u8]) -> ::std::option::Option<Self> {
                ::std::option::Option::Some(Self { $( $field: $crate::FromCanonical::read(bytes)?, )* })
            }
        }
    };
}

/// Implement [`Canonical`] (and [`FromCanonical`]) for an enum: each variant is written as its tag
/// byte (given explicitly, so renaming or reordering variants keeps every
/// digest) followed by its fields in the order listed.
///
/// ```
/// use crossdec_engine::{canonical_enum, Canonical};
/// enum Fault { Truncated { offset: usize }, Peer(String), TooSmall }
/// canonical_enum!(Fault { Truncated { offset } = 1, Peer(message) = 2, TooSmall = 3 });
/// assert_eq!(Fault::Truncated { offset: 2 }.to_canonical(), [1, 2, 0, 0, 0, 0, 0, 0, 0]);
/// assert_eq!(Fault::TooSmall.to_canonical(), [3]);
/// ```
#[macro_export]
macro_rules! canonical_enum {
    ($t:ty { $($variant:ident $({ $($field:ident),* $(,)? })? $(( $($tuple:ident),* $(,)? ))? = $tag:literal),* $(,)? }) => {
        impl $crate::Canonical for $t {
            fn encode(&self, out: &mut ::std::vec::Vec<u8>) {
                match self {
                    $(
                        Self::$variant $({ $($field),* })? $(( $($tuple),* ))? => {
                            out.push($tag);
                            $($( $crate::Canonical::encode($field, out); )*)?
                            $($( $crate::Canonical::encode($tuple, out); )*)?
                        }
                    )*
                }
            }
        }

        impl $crate::FromCanonical for $t {
            fn read(bytes: &mut &[u8]) -> ::std::option::Option<Self> {
                let tag: u8 = $crate::FromCanonical::read(bytes)?;
                $(
                    if tag == $tag {
                        return ::std::option::Option::Some(
                            Self::$variant
                            $({ $($field: $crate::FromCanonical::read(bytes)?),* })?
                            $(( $({ let $tuple = $crate::FromCanonical::read(bytes)?; $tuple }),* ))?
                        );
                    }
                )*
                ::std::option::Option::None
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_little_endian_and_sizes_are_64_bit() {
        assert_eq!(0x0102_0304u32.to_canonical(), [4, 3, 2, 1]);
        assert_eq!((-2i16).to_canonical(), [0xfe, 0xff]);
        assert_eq!(3usize.to_canonical(), 3u64.to_canonical());
        assert_eq!((-3isize).to_canonical(), (-3i64).to_canonical());
        assert_eq!(u128::MAX.to_canonical(), [0xff; 16]);
    }

    /// The integer types write whole slices at once; the bytes must be
    /// those of encoding each item in turn.
    #[test]
    fn integer_slices_encode_as_their_items_one_by_one() {
        fn one_by_one<T: Canonical>(items: &[T]) -> Vec<u8> {
            let mut out = items.len().to_canonical();
            items.iter().for_each(|item| item.encode(&mut out));
            out
        }
        fn check<T: Canonical + Copy>(items: &[T]) {
            assert_eq!(items.to_canonical(), one_by_one(items));
            assert_eq!(items.to_vec().to_canonical(), one_by_one(items));
            let array: [T; 3] = items[..3].try_into().unwrap();
            assert_eq!(array.to_canonical(), one_by_one(&items[..3])[8..]);
        }
        check(&[0u8, 1, 0x80, 0xff]);
        check(&[0i8, -1, i8::MIN, i8::MAX]);
        check(&[0x0102u16, 0xfffe, 7, 0]);
        check(&[-2i16, i16::MIN, 1, 0x0102]);
        check(&[0x0102_0304u32, u32::MAX, 0, 9]);
        check(&[-3i32, i32::MIN, 0x0102_0304, 0]);
        check(&[0x0102_0304_0506_0708u64, u64::MAX, 1, 0]);
        check(&[i64::MIN, -1, 0x0102_0304_0506_0708, 2]);
        check(&[u128::MAX, 0x0102, 3, 0]);
        check(&[i128::MIN, -5, 0x0102, 3]);
        assert_eq!([0x0102u16, 0x0304].to_canonical(), [2, 1, 4, 3]);
        assert_eq!(vec![-1i8, 2].to_canonical(), [2, 0, 0, 0, 0, 0, 0, 0, 0xff, 2]);
    }

    #[test]
    fn floats_are_bit_patterns() {
        assert_eq!((-0.0f64).to_canonical(), 0x8000_0000_0000_0000u64.to_canonical());
        assert_ne!(f32::NAN.to_canonical(), f32::from_bits(0x7fc0_0001).to_canonical());
        assert_eq!(1.0f32.to_canonical(), [0, 0, 0x80, 0x3f]);
    }

    #[test]
    fn sequences_strings_options_and_results_are_framed() {
        assert_eq!("ab".to_canonical(), [2, 0, 0, 0, 0, 0, 0, 0, b'a', b'b']);
        assert_eq!(String::from("ab").to_canonical(), "ab".to_canonical());
        assert_eq!(vec![true, false].to_canonical(), [2, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
        assert_eq!([1u8, 2].to_canonical(), [1, 2]);
        assert_eq!(None::<u8>.to_canonical(), [0]);
        assert_eq!(Ok::<u8, u8>(5).to_canonical(), [0, 5]);
        assert_eq!(Err::<u8, u8>(5).to_canonical(), [1, 5]);
        assert_eq!((1u8, 'a', ()).to_canonical(), [1, 97, 0, 0, 0]);
        assert_eq!(Box::new(9u8).to_canonical(), [9]);
        assert_eq!(Canonical::to_canonical(&&7u16), [7, 0]);
        assert_eq!(vec![&1u8, &2].to_canonical(), vec![1u8, 2].to_canonical());
        // Framing keeps concatenations apart.
        assert_ne!(
            (vec![1u8], vec![2u8, 3]).to_canonical(),
            (vec![1u8, 2], vec![3u8]).to_canonical()
        );
    }

    #[derive(Debug)]
    enum Fault {
        Truncated { offset: usize, bit: u8 },
        Peer(String),
        TooSmall,
    }
    canonical_enum!(Fault { Truncated { offset, bit } = 7, Peer(message) = 8, TooSmall = 9 });

    struct Value {
        values: Vec<i64>,
        consumed: usize,
    }
    canonical_struct!(Value { values, consumed });

    #[test]
    fn enums_use_their_explicit_tags_and_structs_their_fields() {
        let mut expected = vec![7];
        expected.extend(5u64.to_le_bytes());
        expected.push(3);
        assert_eq!(
            Fault::Truncated { offset: 5, bit: 3 }.to_canonical(),
            expected,
            "{:?}",
            Fault::TooSmall
        );
        assert_eq!(
            Fault::Peer("x".into()).to_canonical(),
            [8, 1, 0, 0, 0, 0, 0, 0, 0, b'x']
        );
        assert_eq!(Fault::TooSmall.to_canonical(), [9]);
        let v = Value {
            values: vec![-1],
            consumed: 2,
        };
        let mut expected = 1u64.to_le_bytes().to_vec();
        expected.extend((-1i64).to_le_bytes());
        expected.extend(2u64.to_le_bytes());
        assert_eq!(v.to_canonical(), expected);
    }

    #[derive(Debug, PartialEq)]
    enum Shape {
        Empty,
        Dot { x: i32, label: Option<String> },
        Bits(Vec<u64>, bool),
    }
    canonical_enum!(Shape { Empty = 3, Dot { x, label } = 5, Bits(words, flag) = 9 });

    #[derive(Debug, PartialEq)]
    struct Batch {
        shapes: Vec<Shape>,
        consumed: usize,
        ratio: f64,
    }
    canonical_struct!(Batch {
        shapes,
        consumed,
        ratio
    });

    #[test]
    fn every_canonical_value_reads_back_exactly() {
        let batch = Batch {
            shapes: vec![
                Shape::Empty,
                Shape::Dot {
                    x: -7,
                    label: Some("é".into()),
                },
                Shape::Bits(vec![u64::MAX, 0], true),
            ],
            consumed: 12,
            ratio: -0.0,
        };
        let bytes = batch.to_canonical();
        let back = Batch::from_canonical(&bytes).expect("reads back");
        assert_eq!(back.ratio.to_bits(), (-0.0f64).to_bits());
        assert_eq!(back, batch);
        assert_eq!(
            <Result<u8, String>>::from_canonical(&Err::<u8, String>("x".into()).to_canonical()),
            Some(Err("x".into()))
        );
        assert_eq!(
            <(u8, char, ())>::from_canonical(&(1u8, 'a', ()).to_canonical()),
            Some((1, 'a', ()))
        );
        assert_eq!(<[u16; 2]>::from_canonical(&[1, 0, 2, 0]), Some([1, 2]));
        // Every scalar type, with values whose bytes differ from a default.
        fn round_trip<T: Canonical + FromCanonical + PartialEq + std::fmt::Debug>(v: T) {
            assert_eq!(T::from_canonical(&v.to_canonical()), Some(v));
        }
        round_trip((-3isize, false, true, -1.5f32, 7u16, -9i8));
        round_trip((u128::MAX - 1, i128::MIN, 9usize, -4i16, 3i32, -5i64));
        round_trip((6u32, 0x0102_0304_0506_0708u64, 'é', 2u8, Box::new(-2.25f64)));
        round_trip((None::<u8>, Some(3u8), Ok::<u8, i8>(4), Err::<u8, i8>(-4)));
    }

    #[test]
    fn non_zero_cow_shared_and_ranges_are_what_they_hold() {
        use std::borrow::Cow;
        use std::num::{NonZeroI16, NonZeroU32, NonZeroUsize};
        assert_eq!(NonZeroU32::new(7).unwrap().to_canonical(), 7u32.to_canonical());
        assert_eq!(NonZeroUsize::new(7).unwrap().to_canonical(), 7u64.to_canonical());
        assert_eq!(NonZeroI16::from_canonical(&[0xfe, 0xff]), NonZeroI16::new(-2));
        assert_eq!(NonZeroU32::from_canonical(&[0, 0, 0, 0]), None);
        let borrowed: Cow<'_, str> = Cow::Borrowed("ab");
        let owned: Cow<'_, str> = Cow::Owned("ab".into());
        assert_eq!(borrowed.to_canonical(), "ab".to_canonical());
        assert_eq!(owned.to_canonical(), borrowed.to_canonical());
        assert_eq!(<Cow<'static, str>>::from_canonical(&"ab".to_canonical()), Some(owned));
        let slice: Cow<'_, [u16]> = Cow::Borrowed(&[1, 2]);
        assert_eq!(slice.to_canonical(), vec![1u16, 2].to_canonical());
        assert_eq!(std::sync::Arc::new(5u8).to_canonical(), [5]);
        assert_eq!(std::rc::Rc::<str>::from("a").to_canonical(), "a".to_canonical());
        assert_eq!((3u8..9).to_canonical(), [3, 9]);
        assert_eq!((3u8..=9).to_canonical(), [3, 9]);
        assert_eq!(
            <std::ops::Range<u16>>::from_canonical(&[9, 0, 3, 0]),
            Some(std::ops::Range { start: 9, end: 3 })
        );
        assert_eq!(<std::ops::RangeInclusive<u8>>::from_canonical(&[1, 2]), Some(1..=2));
        assert_eq!(<std::sync::Arc<u8>>::from_canonical(&[4]).as_deref(), Some(&4));
    }

    #[test]
    fn reading_refuses_what_is_not_exactly_one_value() {
        let good = Shape::Dot { x: 1, label: None }.to_canonical();
        // Every strict prefix is short; one more byte is left over.
        for cut in 0..good.len() {
            assert_eq!(Shape::from_canonical(&good[..cut]), None, "{cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(Shape::from_canonical(&longer), None);
        // Unknown tags, non-0/1 booleans and option tags, bad UTF-8.
        assert_eq!(Shape::from_canonical(&[4]), None);
        assert_eq!(bool::from_canonical(&[2]), None);
        assert_eq!(<Option<u8>>::from_canonical(&[2, 0]), None);
        assert_eq!(String::from_canonical(&[1, 0, 0, 0, 0, 0, 0, 0, 0xff]), None);
        assert_eq!(char::from_canonical(&0xD800u32.to_le_bytes()), None);
        // A count larger than the bytes left is refused before allocating.
        let mut huge = u64::MAX.to_le_bytes().to_vec();
        huge.push(1);
        assert_eq!(<Vec<u8>>::from_canonical(&huge), None);
        assert_eq!(<Vec<u64>>::from_canonical(&[2, 0, 0, 0, 0, 0, 0, 0, 1, 2]), None);
    }
}
