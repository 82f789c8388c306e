//! Types the test crate does not own: a decoder's output or error type
//! from the crate under test (or any other) gets its canonical form from a
//! mapping the test crate writes, without copying the type.
//!
//! The orphan rule forbids `impl Canonical for their::Error` outside both
//! crates, so the mapping is a trait implemented on a marker type the test
//! crate does own ([`CanonicalWith`]), and [`Mapped`] carries a value with
//! the mapping that writes it. The bytes are whatever the mapping writes,
//! so the test crate decides what of the value counts (an error's kind and
//! offset, not its message), as a mirror type would, with none of the
//! mirror's conversion code.

use std::fmt::{self, Debug};
use std::marker::PhantomData;
use std::sync::Arc;

use crate::{Canonical, FromCanonical};

/// The canonical form of a type `T` the implementing crate does not own:
/// implemented on a marker type of the test crate's own.
///
/// ```
/// use crossdec_engine::{Canonical, CanonicalWith, FromCanonical, Mapped};
/// use std::num::{IntErrorKind, ParseIntError};
///
/// /// `ParseIntError` by its kind, as tag bytes.
/// struct ByKind;
/// impl CanonicalWith<ParseIntError> for ByKind {
///     fn encode(error: &ParseIntError, out: &mut Vec<u8>) {
///         let tag: u8 = match error.kind() {
///             IntErrorKind::Empty => 0,
///             IntErrorKind::InvalidDigit => 1,
///             IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => 2,
///             _ => 3,
///         };
///         tag.encode(out);
///     }
///     /// A `ParseIntError` cannot be built but by parsing: parse a string
///     /// that fails the same way.
///     fn read(bytes: &mut &[u8]) -> Option<ParseIntError> {
///         let text = match u8::read(bytes)? { 0 => "", 1 => "x", 2 => "999", _ => return None };
///         text.parse::<u8>().err()
///     }
/// }
///
/// let decode = |text: &str| text.parse::<u8>().map_err(Mapped::<_, ByKind>::new);
/// let (a, b) = (decode("x").unwrap_err(), decode("-").unwrap_err());
/// assert_eq!(a, b); // equal by their canonical bytes
/// assert_eq!(a.to_canonical(), [1]);
/// assert_eq!(Mapped::<ParseIntError, ByKind>::from_canonical(&[2]).unwrap().to_canonical(), [2]);
/// ```
pub trait CanonicalWith<T: ?Sized> {
    /// Append `value`'s canonical bytes to `out`.
    fn encode(value: &T, out: &mut Vec<u8>);

    /// Read one value back from the front of `bytes` (what an external
    /// subject answers, see [`crate::subject`]); `None` if the bytes are
    /// not one. A type that cannot be built from its parts may refuse
    /// every input: only a subject's answers are ever read.
    fn read(bytes: &mut &[u8]) -> Option<T>
    where
        T: Sized;
}

/// A value of a type the test crate does not own, written by the mapping
/// `M`: usable as a [`Spec`](crate::Spec)'s `Output` or `Error`, and as a
/// field of the test crate's own types.
///
/// Two `Mapped` values are equal when their canonical bytes are, which is
/// what the engine compares anyway; so `T` needs neither `PartialEq` nor
/// `Clone` (the value is shared behind an `Arc`), only `Debug` for reports
/// (and `Send + Sync`, for a spec's outcome to cross threads).
pub struct Mapped<T, M> {
    value: Arc<T>,
    mapping: PhantomData<fn() -> M>,
}

impl<T, M: CanonicalWith<T>> Mapped<T, M> {
    /// `value`, to be written by `M`; `Result::map` and `map_err` take it
    /// as a function.
    pub fn new(value: T) -> Self {
        Mapped {
            value: Arc::new(value),
            mapping: PhantomData,
        }
    }

    /// The value.
    pub fn get(&self) -> &T {
        &self.value
    }
}

impl<T, M: CanonicalWith<T>> Canonical for Mapped<T, M> {
    fn encode(&self, out: &mut Vec<u8>) {
        M::encode(&self.value, out);
    }
}

impl<T, M: CanonicalWith<T>> FromCanonical for Mapped<T, M> {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        M::read(bytes).map(Self::new)
    }
}

impl<T, M: CanonicalWith<T>> PartialEq for Mapped<T, M> {
    fn eq(&self, other: &Self) -> bool {
        self.to_canonical() == other.to_canonical()
    }
}

impl<T, M> Clone for Mapped<T, M> {
    fn clone(&self) -> Self {
        Mapped {
            value: self.value.clone(),
            mapping: PhantomData,
        }
    }
}

impl<T: Debug, M> Debug for Mapped<T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T, M> std::ops::Deref for Mapped<T, M> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type from elsewhere: no `PartialEq`, no `Clone`, no `Canonical`.
    #[derive(Debug)]
    struct Foreign {
        offset: usize,
        message: String,
    }

    /// Only the offset counts; the message is prose.
    struct ByOffset;
    impl CanonicalWith<Foreign> for ByOffset {
        fn encode(value: &Foreign, out: &mut Vec<u8>) {
            value.offset.encode(out);
        }
        fn read(bytes: &mut &[u8]) -> Option<Foreign> {
            Some(Foreign {
                offset: usize::read(bytes)?,
                message: String::new(),
            })
        }
    }

    #[test]
    fn mapped_values_are_their_mappings_bytes() {
        let a = Mapped::<_, ByOffset>::new(Foreign {
            offset: 3,
            message: "short".into(),
        });
        let b = Mapped::<_, ByOffset>::new(Foreign {
            offset: 3,
            message: "truncated".into(),
        });
        let c = Mapped::<_, ByOffset>::new(Foreign {
            offset: 4,
            message: "short".into(),
        });
        assert_eq!(a.to_canonical(), 3usize.to_canonical());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.clone().get().message, "short");
        assert_eq!(format!("{a:?}"), r#"Foreign { offset: 3, message: "short" }"#);
        let back = <Result<u8, Mapped<Foreign, ByOffset>>>::from_canonical(&Err::<u8, _>(c.clone()).to_canonical());
        assert_eq!(back, Some(Err(c)));
        assert_eq!(<Mapped<Foreign, ByOffset>>::from_canonical(&[1, 0, 0]), None);
    }
}
