//! The builder: a [`Spec`] plus the kernels and peers held to it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::buffers::{BufferFault, Buffers};
use crate::spec::{Outcome, Spec};
use crate::subject::{Answer, Subject, SubjectCommand};
use crate::Canonical;

/// Whether an implementation is one of ours (compared exactly) or a third
/// party (compared under the spec's documented allowed differences).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Code under test: any difference from the reference is a failure.
    Kernel,
    /// A third-party decoder: differences explained by an
    /// [`AllowedDifference`] are counted, not failed.
    Peer,
}

/// A decoder instance. The engine makes a fresh one per case and pass and
/// feeds it the case's steps in order. A decoder that writes into
/// caller-owned memory takes its buffers from `buffers` (see
/// [`crate::buffers`]); one that returns fresh values ignores it.
pub trait Decoder<S: Spec + ?Sized>: Send {
    /// Decode one input.
    fn decode(&mut self, input: &S::Input, buffers: &mut Buffers) -> Outcome<S>;
}

impl<S: Spec + ?Sized, F: FnMut(&S::Input, &mut Buffers) -> Outcome<S> + Send> Decoder<S> for F {
    fn decode(&mut self, input: &S::Input, buffers: &mut Buffers) -> Outcome<S> {
        self(input, buffers)
    }
}

type Factory<S> = Arc<dyn Fn() -> Box<dyn Decoder<S>> + Send + Sync>;

/// One implementation held to the reference.
pub struct Implementation<S: Spec + ?Sized> {
    /// Stable name (`--impl NAME`).
    pub name: String,
    /// Kernel or peer.
    pub role: Role,
    /// Whether this host can run it (CPU features, peer compiled in).
    pub available: bool,
    factory: Factory<S>,
    /// Set for an external subject: the engine then asks it for whole
    /// batches of inputs instead of building decoders.
    pub(crate) subject: Option<Arc<Subject>>,
    /// Categories outside its scope: it may compare nothing there (a
    /// subject that handles only some inputs). Anywhere else an
    /// implementation that compared no case fails the run.
    pub outside_scope: Vec<String>,
}

impl<S: Spec + ?Sized> Clone for Implementation<S> {
    fn clone(&self) -> Self {
        Implementation {
            name: self.name.clone(),
            role: self.role,
            available: self.available,
            factory: self.factory.clone(),
            subject: self.subject.clone(),
            outside_scope: self.outside_scope.clone(),
        }
    }
}

impl<S: Spec + ?Sized> Implementation<S> {
    /// An implementation whose decoders `make` builds.
    pub fn new<D: Decoder<S> + 'static>(
        name: impl Into<String>,
        role: Role,
        available: bool,
        make: impl Fn() -> D + Send + Sync + 'static,
    ) -> Self {
        Implementation {
            name: name.into(),
            role,
            available,
            factory: Arc::new(move || Box::new(make()) as Box<dyn Decoder<S>>),
            subject: None,
            outside_scope: Vec::new(),
        }
    }

    /// This implementation, declared to handle none of the inputs of
    /// `categories`: comparing nothing there does not fail a run. Reports
    /// list the categories with it.
    pub fn outside_scope<T: Into<String>>(mut self, categories: impl IntoIterator<Item = T>) -> Self {
        self.outside_scope.extend(categories.into_iter().map(Into::into));
        self
    }

    /// Whether `category` is outside its declared scope.
    pub fn is_outside_scope(&self, category: &str) -> bool {
        self.outside_scope.iter().any(|c| c == category)
    }

    /// An external subject of the family `family` (see `docs/reference/subjects.md`):
    /// campaigns send it whole batches of inputs; its
    /// [`decoder`](Self::decoder) asks for one input at a time and panics, with the
    /// message, on an answer that is not an outcome.
    pub fn external(command: SubjectCommand, family: &str) -> Self {
        let family_name = family.to_string();
        let subject = Arc::new(Subject::new(command.clone(), family));
        let asked = subject.clone();
        let factory: Factory<S> = Arc::new(move || {
            let subject = asked.clone();
            let family = family_name.clone();
            Box::new(move |input: &S::Input, _: &mut Buffers| -> Outcome<S> {
                match subject.exchange(&[input.to_canonical()]).remove(0).typed::<S>(&family) {
                    Answer::Outcome(outcome) => outcome,
                    Answer::Unsupported(why) => panic!("subject: unsupported input: {why}"),
                    Answer::Failed(message) | Answer::NotAsked(message) => panic!("{message}"),
                }
            }) as Box<dyn Decoder<S>>
        });
        Implementation {
            name: command.name,
            role: command.role,
            available: true,
            factory,
            subject: Some(subject),
            outside_scope: command.outside_scope,
        }
    }

    /// The external subject behind this implementation, if it is one.
    pub fn subject(&self) -> Option<&Subject> {
        self.subject.as_deref()
    }

    /// A fresh decoder instance.
    pub fn decoder(&self) -> Box<dyn Decoder<S>> {
        (self.factory)()
    }

    /// Decode one input with a fresh decoder and canary-filled buffers: the
    /// outcome and any broken buffer promise. (A panic propagates.)
    pub fn decode_once(&self, input: &S::Input) -> (Outcome<S>, Vec<BufferFault>) {
        let mut buffers = Buffers::new(crate::CANARIES[0]);
        let outcome = self.decoder().decode(input, &mut buffers);
        (outcome, buffers.end_call())
    }
}

/// A difference between a peer and the reference that is allowed, with the
/// reason. Rules apply to peers only (kernels are compared exactly), every
/// use is counted in the report under `id`, and each rule says how often it
/// may explain a difference in each category (`bounds`): a rule that
/// suddenly explains far more than it should (a broadened condition, a peer
/// regression) fails the run instead of hiding it.
pub struct AllowedDifference<S: Spec + ?Sized> {
    /// Stable id, counted in reports and manifests.
    pub id: &'static str,
    /// The peer it applies to (exact name).
    pub implementation: &'static str,
    /// Why the difference is not a bug.
    pub reason: &'static str,
    /// Given the input, the reference's outcome and the peer's, does this
    /// rule explain the difference?
    pub applies: fn(&S::Input, &Outcome<S>, &Outcome<S>) -> bool,
    /// (category name prefix, share): in a category whose name starts with
    /// the prefix (the first match counts), the rule may explain about that
    /// share of the peer's decode calls compared there (see
    /// [`allowed_uses`](Self::allowed_uses)). In a category no prefix
    /// matches it may explain none.
    pub bounds: &'static [(&'static str, f64)],
}

impl<S: Spec + ?Sized> AllowedDifference<S> {
    /// The share of a peer's calls in `category` this rule may explain.
    pub fn bound_in(&self, category: &str) -> f64 {
        self.bounds
            .iter()
            .find(|(prefix, _)| category.starts_with(prefix))
            .map_or(0.0, |&(_, share)| share)
    }

    /// How many of `compared` decode calls, made for `generated` generator
    /// calls in `category`, the rule may explain: none where its share is
    /// zero; elsewhere the share's expected count plus three standard
    /// deviations and one cluster. The cases of one generator call are alike
    /// (one stream and its truncations, say), so the count varies like that
    /// of `generated` draws of `compared / generated` calls each, not like
    /// `compared` independent ones: a short run (a time budget's few calls)
    /// does not fail on the luck of its draw, and a long one stays close to
    /// the share.
    pub fn allowed_uses(&self, category: &str, compared: u64, generated: u64) -> u64 {
        let share = self.bound_in(category);
        if share <= 0.0 {
            return 0;
        }
        let cluster = (compared as f64 / generated.max(1) as f64).max(1.0);
        let expected = share * compared as f64;
        (expected + 3.0 * (expected * cluster).sqrt() + cluster).floor() as u64
    }
}

impl<S: Spec + ?Sized> Clone for AllowedDifference<S> {
    fn clone(&self) -> Self {
        AllowedDifference {
            id: self.id,
            implementation: self.implementation,
            reason: self.reason,
            applies: self.applies,
            bounds: self.bounds,
        }
    }
}

/// A spec with the implementations held to it: build with [`Campaign::new`],
/// add kernels and peers, then [`run`](Campaign::run) it or register it as a
/// [`Family`](crate::Family).
///
/// ```
/// use crossdec_engine::{bytes, Campaign, Case, Category, Parse, RunOptions, Spec, Outcome};
/// use crossdec_engine::{canonical_enum, Canonical};
///
/// #[derive(Debug, Clone, PartialEq)]
/// struct Hex(Vec<u8>);
/// impl Canonical for Hex { fn encode(&self, out: &mut Vec<u8>) { out.extend_from_slice(&self.0) } }
/// impl Parse for Hex { fn parse(b: &[u8]) -> Option<Self> { Some(Hex(b.to_vec())) } }
/// #[derive(Debug, Clone, PartialEq)]
/// enum Bad { Digit { offset: usize }, Odd }
/// canonical_enum!(Bad { Digit { offset } = 0, Odd = 1 });
///
/// struct HexSpec;
/// impl Spec for HexSpec {
///     type Input = Hex;
///     type Output = Vec<u8>;
///     type Error = Bad;
///     fn name(&self) -> &'static str { "hex" }
///     fn categories(&self) -> Vec<Category<Hex>> {
///         vec![Category::new("random", 1.0, |_, rng| {
///             let n = rng.gen_range(0..8u32);
///             vec![Case::one(Hex((0..n).map(|_| b"0123456789abcdefg"[rng.gen_range(0..17u32) as usize]).collect()))]
///         })]
///     }
///     fn reference(&self, input: &Hex) -> Outcome<Self> {
///         let digit = |k: usize| (input.0[k] as char).to_digit(16).map(|d| d as u8).ok_or(Bad::Digit { offset: k });
///         let mut out = Vec::new();
///         for k in (0..input.0.len()).step_by(2) {
///             let hi = digit(k)?;
///             if k + 1 == input.0.len() { return Err(Bad::Odd) }
///             out.push(hi * 16 + digit(k + 1)?);
///         }
///         Ok(out)
///     }
/// }
///
/// let campaign = Campaign::new(HexSpec).kernel_fn("naive", |input: &Hex| HexSpec.reference(input));
/// let report = campaign.run(&RunOptions { cases: 50, ..RunOptions::default() });
/// assert_eq!(report.failure_count, 0);
/// ```
pub struct Campaign<S: Spec> {
    pub(crate) spec: S,
    pub(crate) implementations: Vec<Implementation<S>>,
    pub(crate) allowed: Vec<AllowedDifference<S>>,
}

impl<S: Spec> Campaign<S> {
    /// A campaign with no implementations yet.
    pub fn new(spec: S) -> Self {
        Campaign {
            spec,
            implementations: Vec::new(),
            allowed: Vec::new(),
        }
    }

    /// The spec.
    pub fn spec(&self) -> &S {
        &self.spec
    }

    /// Add an implementation.
    pub fn with(mut self, implementation: Implementation<S>) -> Self {
        self.implementations.push(implementation);
        self
    }

    /// Add a kernel whose decoder instances `make` builds (one per case and
    /// pass; it may keep state and take caller buffers).
    pub fn kernel<D: Decoder<S> + 'static>(
        self,
        name: impl Into<String>,
        available: bool,
        make: impl Fn() -> D + Send + Sync + 'static,
    ) -> Self {
        self.with(Implementation::new(name, Role::Kernel, available, make))
    }

    /// Add a stateless kernel that returns fresh values.
    pub fn kernel_fn(
        self,
        name: impl Into<String>,
        decode: impl Fn(&S::Input) -> Outcome<S> + Clone + Send + Sync + 'static,
    ) -> Self {
        self.kernel(name, true, move || {
            let decode = decode.clone();
            move |input: &S::Input, _: &mut Buffers| decode(input)
        })
    }

    /// Add a third-party peer (compared under the allowed differences).
    pub fn peer<D: Decoder<S> + 'static>(
        self,
        name: impl Into<String>,
        available: bool,
        make: impl Fn() -> D + Send + Sync + 'static,
    ) -> Self {
        self.with(Implementation::new(name, Role::Peer, available, make))
    }

    /// Add an external subject (a decoder in another process, see
    /// `docs/reference/subjects.md`), as a kernel or a peer by its command's role.
    pub fn subject(self, command: SubjectCommand) -> Self {
        let family = self.spec.name();
        self.with(Implementation::external(command, family))
    }

    /// Allow a documented difference for a peer.
    pub fn allow(mut self, rule: AllowedDifference<S>) -> Self {
        self.allowed.push(rule);
        self
    }

    /// Every implementation, available here or not.
    pub fn implementations(&self) -> &[Implementation<S>] {
        &self.implementations
    }

    /// The allowed differences.
    pub fn allowed_differences(&self) -> &[AllowedDifference<S>] {
        &self.allowed
    }
}
