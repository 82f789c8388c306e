//! What a format author writes: a [`Spec`] (input, output and error types,
//! the reference decoder, categories of generated cases).

use std::fmt::{self, Debug};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::{Canonical, FromCanonical};

pub use crate::case_rng::CaseRng;

/// The random source of generator call `index` of `category` in `family`:
/// seeded from (seed, family, category, index), so a case is the same on
/// every architecture, word size and thread count.
pub fn case_rng(seed: u64, family: &str, category: &str, index: u64) -> CaseRng {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update((family.len() as u64).to_le_bytes());
    h.update(family.as_bytes());
    h.update((category.len() as u64).to_le_bytes());
    h.update(category.as_bytes());
    h.update(index.to_le_bytes());
    CaseRng::from_seed(h.finalize().into())
}

/// A decode result in a spec's comparable form.
pub type Outcome<S> = Result<<S as Spec>::Output, <S as Spec>::Error>;

/// An input a spec can read back from its canonical bytes (corpus files,
/// `check --hex` reproducers).
pub trait Parse: Sized {
    /// The input whose [`Canonical`] bytes are `bytes`, or `None`.
    fn parse(bytes: &[u8]) -> Option<Self>;
}

/// A case: one or more inputs decoded in order by one decoder instance, so
/// multi-step cases exercise reuse (buffers that grow and shrink).
#[derive(Debug, Clone, PartialEq)]
pub struct Case<I> {
    /// The inputs, in the order one decoder instance sees them.
    pub steps: Vec<I>,
}

impl<I> Case<I> {
    /// A case of one step.
    pub fn one(input: I) -> Self {
        Case { steps: vec![input] }
    }
}

type Generator<I> = Arc<dyn Fn(u64, &mut CaseRng) -> Vec<Case<I>> + Send + Sync>;
type Shrinker<I> = Arc<dyn Fn(&mut CaseRng, &mut Probe<'_, I>) + Send + Sync>;

/// What a category's own shrinker (see [`Category::with_shrinker`]) is
/// given: the failing case, the generator call that made it, and a way to
/// ask whether a candidate still fails.
pub struct Probe<'a, I> {
    index: u64,
    sub_index: usize,
    case: &'a Case<I>,
    fails: &'a mut dyn FnMut(&Case<I>) -> bool,
    spent: &'a dyn Fn() -> bool,
}

impl<'a, I> Probe<'a, I> {
    pub(crate) fn new(
        index: u64,
        sub_index: usize,
        case: &'a Case<I>,
        fails: &'a mut dyn FnMut(&Case<I>) -> bool,
        spent: &'a dyn Fn() -> bool,
    ) -> Self {
        Probe {
            index,
            sub_index,
            case,
            fails,
            spent,
        }
    }

    /// The generator call that made the failing case.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Which of the call's cases failed.
    pub fn sub_index(&self) -> usize {
        self.sub_index
    }

    /// The failing case, as the call generated it.
    pub fn case(&self) -> &Case<I> {
        self.case
    }

    /// Whether `candidate` still fails (as the minimizer judges failures:
    /// any mismatch with the reference). The last candidate that failed
    /// becomes the minimizer's case. `false` once the minimizing's budget
    /// or time is spent.
    pub fn fails(&mut self, candidate: &Case<I>) -> bool {
        !(self.spent)() && (self.fails)(candidate)
    }

    /// Whether the minimizing's budget or time is spent: a shrinker stops
    /// asking.
    pub fn spent(&self) -> bool {
        (self.spent)()
    }
}

/// A category of generated cases: a name, a scale (generator calls per
/// `--cases`) and the generator. A call may return several cases (every
/// truncation of one stream, say).
pub struct Category<I> {
    /// Stable name: it seeds the random source and names the category in
    /// reports, manifests and the gate.
    pub name: &'static str,
    /// Generator calls are `ceil(cases * scale)`, at least one.
    pub scale: f64,
    /// Whether its inputs are too big for one fuzz execution (see
    /// [`Category::large`]).
    pub large: bool,
    generate: Generator<I>,
    shrinker: Option<Shrinker<I>>,
}

impl<I> Category<I> {
    /// A category whose call `index` returns `generate(index, rng)`.
    pub fn new(
        name: &'static str,
        scale: f64,
        generate: impl Fn(u64, &mut CaseRng) -> Vec<Case<I>> + Send + Sync + 'static,
    ) -> Self {
        Category {
            name,
            scale,
            large: false,
            generate: Arc::new(generate),
            shrinker: None,
        }
    }

    /// This category, with a shrinker of its own that the minimizer runs
    /// on a failing case of this category before the spec's
    /// [`Spec::shrink`] (both can help): for a generator that knows how its
    /// values simplify better than a shrink of one input does (a proptest
    /// strategy's value tree, see `Category::from_strategy`, feature `proptest`).
    ///
    /// `shrinker` gets the failing generator call's random source, rebuilt
    /// as the call had it, so it can draw again what the call drew, and a
    /// [`Probe`] to ask whether each candidate still fails; the last one
    /// that failed is kept.
    pub fn with_shrinker(self, shrinker: impl Fn(&mut CaseRng, &mut Probe<'_, I>) + Send + Sync + 'static) -> Self {
        Category {
            shrinker: Some(Arc::new(shrinker)),
            ..self
        }
    }

    /// This category without its own shrinker: what a failure minimizes to
    /// with the spec's shrink alone.
    #[cfg(all(test, any(feature = "proptest", feature = "quickcheck")))]
    pub(crate) fn without_own_shrinker(self) -> Self {
        Category { shrinker: None, ..self }
    }

    /// Run this category's own shrinker, if it has one.
    pub(crate) fn shrink_with_own(&self, rng: &mut CaseRng, probe: &mut Probe<'_, I>) {
        if let Some(shrinker) = &self.shrinker {
            shrinker(rng, probe);
        }
    }

    /// This category, marked as one whose inputs are larger than a fuzz
    /// execution should decode (megabytes, or counts past a spec's
    /// [`Spec::cap_for_fuzzing`]): structured fuzzing never draws from it,
    /// so campaigns (`crossdec run`) are where its inputs are covered.
    pub fn large(self) -> Self {
        Category { large: true, ..self }
    }

    /// The cases of generator call `index`.
    pub fn generate(&self, index: u64, rng: &mut CaseRng) -> Vec<Case<I>> {
        (self.generate)(index, rng)
    }

    /// Generator calls for `cases` calls per category.
    pub fn calls(&self, cases: u64) -> u64 {
        ((cases as f64) * self.scale).ceil().max(1.0) as u64
    }
}

impl<I> Clone for Category<I> {
    fn clone(&self) -> Self {
        Category {
            name: self.name,
            scale: self.scale,
            large: self.large,
            generate: self.generate.clone(),
            shrinker: self.shrinker.clone(),
        }
    }
}

impl<I> Debug for Category<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Category")
            .field("name", &self.name)
            .field("scale", &self.scale)
            .field("large", &self.large)
            .finish()
    }
}

/// A format described once: what a decoder reads and returns, the obviously
/// correct reference decoder, and the cases to try.
///
/// Decoders under test (kernels) and third-party ones (peers) are not part of
/// the spec: a [`Campaign`](crate::Campaign) registers them.
pub trait Spec: Send + Sync + 'static {
    /// One decoder input; its canonical bytes are the corpus file format.
    type Input: Canonical + Parse + Clone + Debug + Send + Sync + 'static;
    /// A successful decode: values, validity, bytes consumed...
    type Output: Canonical + FromCanonical + Clone + Debug + PartialEq + Send + 'static;
    /// A decode error: its kind and position.
    type Error: Canonical + FromCanonical + Clone + Debug + PartialEq + Send + 'static;

    /// The family's name, as `--family` takes it.
    fn name(&self) -> &'static str;
    /// The categories of generated cases, in the order they run.
    fn categories(&self) -> Vec<Category<Self::Input>>;
    /// Decode with the reference decoder.
    fn reference(&self, input: &Self::Input) -> Outcome<Self>;
    /// Read an input back from canonical bytes; the default is
    /// [`Parse::parse`]. A spec overrides it to refuse inputs of another spec
    /// sharing its input type.
    fn parse(&self, bytes: &[u8]) -> Option<Self::Input> {
        Self::Input::parse(bytes)
    }
    /// A difference from the reference's outcome that the format's own
    /// documented promise allows *every* implementation, kernels included:
    /// the id of that promise, or `None` (the default: none). Unlike a
    /// peer's [`AllowedDifference`](crate::AllowedDifference), this is part
    /// of what "equal" means for the format, so it must be decidable from
    /// the input and the two outcomes alone, and narrow: each use is counted
    /// with the implementation's tolerated differences in reports and
    /// manifests. Example: a scanner that trusts page statistics to skip
    /// pages need not report damage in a page it did not read, when its
    /// outcome names the pages it did not read.
    fn promised_difference(
        &self,
        _input: &Self::Input,
        _expected: &Outcome<Self>,
        _got: &Outcome<Self>,
    ) -> Option<&'static str> {
        None
    }
    /// Smaller variants of a failing input, tried in order when minimizing a
    /// reproducer ([`crate::bytes::shrink`] for byte payloads).
    fn shrink(&self, _input: &Self::Input) -> Vec<Self::Input> {
        Vec::new()
    }
    /// Fuzz mode's limits: shrink what `input` declares (counts, buffer
    /// sizes) so that one fuzz execution costs about as much as the input's
    /// bytes, not as much as a count it claims. Every fuzz target (raw and
    /// structured, under libFuzzer and in `crossdec replay`) runs each input
    /// through it; campaigns and `crossdec check` never do, so a spec that
    /// caps something here keeps a [`Category::large`] category covering
    /// what the cap cuts off. The default changes nothing.
    fn cap_for_fuzzing(&self, _input: &mut Self::Input) {}
    /// The error value for an external subject's failure in its own words
    /// (protocol status 3: an exception's text), for a family whose error
    /// type has one for outside decoders; `None` (the default) makes such
    /// an answer a failure.
    fn subject_error(_message: &str) -> Option<Self::Error> {
        None
    }
    /// A case built from fuzzer bytes, for structured fuzzing. The default
    /// lets the bytes pick a category (never a [`Category::large`] one), a
    /// call index and a seed for the spec's own generators, then mutates up
    /// to three steps' canonical bytes.
    #[cfg(feature = "fuzz")]
    fn arbitrary_case(&self, u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Case<Self::Input>> {
        crate::fuzz::generated_case(self, u)
    }
}
