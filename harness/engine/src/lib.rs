//! crossdec's engine: hold a fast decoder to an obviously correct one.
//!
//! A format is described once as a [`Spec`]: its input, output and error
//! types (each with a [`Canonical`] byte form), the reference decoder, and
//! [`Category`]s of generated cases. A [`Campaign`] registers the kernels
//! (code under test, compared exactly) and peers (third-party decoders,
//! compared under documented [`AllowedDifference`]s) and runs them over every
//! case, comparing the whole outcome: values, bytes consumed, or the error's
//! kind and position; and, for decoders that write into caller-owned memory,
//! every element outside the written range ([`buffers`]: the engine fills the
//! buffers with two canaries and checks them itself). A panic is a failure;
//! failures are minimized into canonical reproducers.
//!
//! A run returns a [`FamilyReport`]; [`report::manifest`] turns reports into
//! the [`Manifest`] that proves where a run happened and what it saw (digests
//! over canonical bytes, so runs on different architectures compare), and
//! [`gate`] fails unless runs on other targets agree with the native one.
//!
//! ```
//! use crossdec_engine::bytes::{self, Payload};
//! use crossdec_engine::{Buffers, Campaign, Case, Category, Outcome, RunOptions, Spec};
//!
//! /// Bytes to the popcount of each byte.
//! struct Popcounts;
//! impl Spec for Popcounts {
//!     type Input = Payload;
//!     type Output = Vec<u8>;
//!     type Error = ();
//!     fn name(&self) -> &'static str { "popcounts" }
//!     fn categories(&self) -> Vec<Category<Payload>> {
//!         vec![Category::new("random", 1.0, |_, rng| {
//!             vec![Case::one(Payload((0..rng.gen_range(0..64)).map(|_| rng.gen()).collect()))]
//!         })]
//!     }
//!     fn reference(&self, input: &Payload) -> Outcome<Self> {
//!         Ok(input.0.iter().map(|b| (0..8).filter(|k| b >> k & 1 == 1).count() as u8).collect())
//!     }
//!     fn shrink(&self, input: &Payload) -> Vec<Payload> { bytes::shrink(input) }
//! }
//!
//! // The kernel writes into a caller buffer: the engine fills and checks it.
//! let campaign = Campaign::new(Popcounts).kernel("count_ones", true, || {
//!     |input: &Payload, buffers: &mut Buffers| {
//!         let mut out = buffers.take::<u8>("out", input.0.len());
//!         for (o, b) in out.range().iter_mut().zip(&input.0) { *o = b.count_ones() as u8 }
//!         Ok(buffers.finish(out, input.0.len()))
//!     }
//! });
//! // Panics with the summary, the smallest reproducer and its replay call
//! // unless every implementation compared cases and agreed.
//! let report = campaign.assert_agrees(&RunOptions { cases: 100, ..RunOptions::default() });
//! assert_eq!(report.categories[0].cases, 100);
//!
//! // A reproducer from a failure report, replayed as a regression test.
//! campaign.replay_hex("count_ones", &["ff00"]).unwrap();
//! ```
#![deny(missing_docs)]
// docs.rs (`--cfg docsrs`, Cargo.toml) labels each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The README's examples run as doctests, so the crate's front page cannot
// show code that no longer compiles.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "fuzz")]
mod arbitrary_category;
pub mod budget;
pub mod buffers;
pub mod bytes;
mod campaign;
mod canonical;
pub mod case_rng;
pub mod changes;
pub mod diff;
pub mod digest;
mod family;
#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod gate;
mod judge;
pub mod junit;
mod mapped;
mod minimise;
mod panic;
#[cfg(feature = "quickcheck")]
mod quickcheck_category;
pub mod report;
mod run;
pub mod size_limit;
mod spec;
#[cfg(feature = "proptest")]
mod strategy;
pub mod subject;

pub use buffers::{BufferFault, Buffers, Element, Out};
pub use campaign::{AllowedDifference, Campaign, Decoder, Implementation, Role};
pub use canonical::{Canonical, FromCanonical};
pub use case_rng::SliceDraw;
pub use family::{
    parse_hex, steps_from_hex, CheckReport, CheckVerdict, CheckedImplementation, Family, ImplementationInfo, Workload,
};
pub use judge::{Mismatch, CANARIES};
pub use mapped::{CanonicalWith, Mapped};
pub use panic::install_quiet_panic_hook;
pub use report::{FamilyReport, Manifest, Problem};
pub use run::{Progress, RunOptions};
pub use spec::{case_rng, Case, CaseRng, Category, Outcome, Parse, Probe, Spec};
pub use subject::{Subject, SubjectCommand};

#[cfg(feature = "fuzz")]
pub use arbitrary;

/// proptest (feature `proptest`), the very version whose strategies
/// [`Category::from_strategy`] takes: a test crate writes its strategies
/// with `crossdec_engine::proptest::prelude::*` and needs no proptest
/// dependency of its own, which could resolve to another major version (a
/// type error) or to other features (a second build of it).
#[cfg(feature = "proptest")]
pub use proptest;

/// The quickcheck crate [`Category::from_quickcheck`] takes `Arbitrary`
/// types of, for the same reason as proptest's re-export.
#[cfg(feature = "quickcheck")]
pub use quickcheck;

/// `#[derive(Canonical)]`, `#[derive(FromCanonical)]` (feature `derive`): the
/// canonical form of the author's own structs and enums, the same bytes
/// [`canonical_struct!`] and [`canonical_enum!`] write for the same
/// declaration. A struct (named, tuple or unit) is its fields in
/// declaration order; an enum variant is one tag byte, the variant's index
/// from 0 unless `#[canonical(tag = N)]` gives it, then its fields in
/// declaration order. Type parameters get a `Canonical` (`FromCanonical`)
/// bound; `#[canonical(crate = path)]` on the type names a renamed engine,
/// and `#[canonical(with = Marker)]` on a field writes and reads it through
/// `Marker`'s [`CanonicalWith`] (a field of a type the crate does not own).
///
/// Give tags explicitly (as `canonical_enum!` makes you) where variants may
/// be reordered or inserted: an index tag changes every digest when they
/// are.
///
/// ```
/// use crossdec_engine::{Canonical, FromCanonical};
///
/// #[derive(Canonical, FromCanonical, Debug, PartialEq)]
/// enum DecodeError {
///     Truncated { offset: usize },
///     #[canonical(tag = 7)]
///     BadTag(u8),
///     Empty,
/// }
///
/// #[derive(Canonical, FromCanonical, Debug, PartialEq)]
/// struct Decoded<T> { values: Vec<T>, consumed: usize }
///
/// assert_eq!(DecodeError::Truncated { offset: 2 }.to_canonical(), [0, 2, 0, 0, 0, 0, 0, 0, 0]);
/// assert_eq!(DecodeError::BadTag(9).to_canonical(), [7, 9]);
/// assert_eq!(DecodeError::Empty.to_canonical(), [2]);
/// let page = Decoded { values: vec![-1i16], consumed: 3 };
/// let bytes = page.to_canonical();
/// assert_eq!(bytes, [1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 3, 0, 0, 0, 0, 0, 0, 0]);
/// assert_eq!(Decoded::from_canonical(&bytes), Some(page));
/// ```
///
/// Two variants with one tag would make two values one byte form, so that is
/// a compile error:
///
/// ```compile_fail
/// #[derive(crossdec_engine::Canonical)]
/// enum Fault { Short, #[canonical(tag = 0)] Long }
/// ```
#[cfg(feature = "derive")]
pub use crossdec_engine_derive::{Canonical, FromCanonical};
