//! The differential engine: a format is described once as a [`Family`], and
//! [`run_family`] holds every available implementation against its reference
//! over generated cases, comparing the whole outcome.
//!
//! "Equal" means: the same decoded values (with validity), the same bytes
//! consumed, or the same error kind at the same position; and no reusable
//! output buffer changed outside the range the call wrote (each kernel runs
//! every case twice, with two different canary fills). The only tolerated
//! differences are the [`AllowedDifference`] rules a family lists, each
//! counted in the report, never silent.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The random source handed to generators: ChaCha8, seeded per case, so a
/// case's content depends only on (seed, family, category, index) and is the
/// same on every architecture and thread count.
pub type CaseRng = ChaCha8Rng;

/// Two canary bytes; every kernel decodes each case once with each, so a
/// write outside the declared range cannot hide behind a lucky fill value.
pub const CANARIES: [u8; 2] = [0xA5, 0x5A];

/// A decoded result or a decode error, in the family's comparable form.
pub type Outcome<F> = Result<<F as Family>::Value, <F as Family>::Error>;

/// Whether an implementation is one of ours (compared exactly) or a third
/// party (compared under the family's documented allowed differences).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Kernel,
    Peer,
}

/// What one decode call produced, plus any damage it did to the caller's
/// reusable buffers outside the range it was allowed to write.
#[derive(Debug, Clone)]
pub struct Decoded<F: Family + ?Sized> {
    pub outcome: Outcome<F>,
    pub buffer_faults: Vec<String>,
}

impl<F: Family + ?Sized> Decoded<F> {
    pub fn clean(outcome: Outcome<F>) -> Self {
        Decoded { outcome, buffer_faults: Vec::new() }
    }
}

/// A stateful decoder instance. The engine makes a fresh one per case and
/// feeds it the case's steps in order, so multi-step cases exercise reuse
/// (buffers that must grow and shrink across batches). The adapter fills its
/// reusable output buffers with `canary` before each call and reports, as
/// `buffer_faults`, anything outside the written range that changed.
pub trait Decoder<F: Family + ?Sized>: Send {
    fn decode(&mut self, input: &F::Input, canary: u8) -> Decoded<F>;
}

impl<F: Family + ?Sized, T: FnMut(&F::Input, u8) -> Decoded<F> + Send> Decoder<F> for T {
    fn decode(&mut self, input: &F::Input, canary: u8) -> Decoded<F> {
        self(input, canary)
    }
}

/// One implementation under test.
pub struct Implementation<F: Family + ?Sized> {
    pub name: String,
    pub role: Role,
    /// Whether this host can run it (CPU features, peer compiled in).
    pub available: bool,
    pub new_decoder: Arc<dyn Fn() -> Box<dyn Decoder<F>> + Send + Sync>,
}

impl<F: Family + ?Sized> Clone for Implementation<F> {
    fn clone(&self) -> Self {
        Implementation {
            name: self.name.clone(),
            role: self.role,
            available: self.available,
            new_decoder: self.new_decoder.clone(),
        }
    }
}

impl<F: Family + ?Sized> Implementation<F> {
    pub fn new<D: Decoder<F> + 'static>(
        name: impl Into<String>,
        role: Role,
        available: bool,
        make: impl Fn() -> D + Send + Sync + 'static,
    ) -> Self {
        Implementation {
            name: name.into(),
            role,
            available,
            new_decoder: Arc::new(move || Box::new(make()) as Box<dyn Decoder<F>>),
        }
    }
}

/// A difference between an implementation and the reference that is allowed,
/// with the reason. Every use is counted in the report under `id`.
pub struct AllowedDifference<F: Family + ?Sized> {
    pub id: &'static str,
    /// The implementation it applies to (exact name).
    pub implementation: &'static str,
    pub reason: &'static str,
    /// Given the input, the reference's outcome and the implementation's, does
    /// this rule explain the difference?
    pub applies: fn(&F::Input, &Outcome<F>, &Outcome<F>) -> bool,
}

/// A category of generated cases. `scale` multiplies `--cases` to get the
/// number of generator calls (a call may return several cases, e.g. every
/// truncation of one stream).
#[derive(Debug, Clone, Copy)]
pub struct Category {
    pub name: &'static str,
    pub scale: f64,
}

/// A case: one or more inputs decoded in order by one decoder instance.
#[derive(Debug, Clone)]
pub struct Case<I> {
    pub steps: Vec<I>,
}

impl<I> Case<I> {
    pub fn one(input: I) -> Self {
        Case { steps: vec![input] }
    }
}

/// A format described once for the engine.
pub trait Family: Send + Sync + 'static {
    /// One decoder input (bytes plus whatever the caller must know).
    type Input: Clone + Debug + Send + Sync;
    /// A successful decode: values, validity, bytes consumed...
    type Value: Clone + Debug + PartialEq + Send;
    /// A decode error in comparable form: kind and position.
    type Error: Clone + Debug + PartialEq + Send;

    fn name(&self) -> &'static str;
    fn categories(&self) -> Vec<Category>;
    /// Generate the cases of call `index` of `category`.
    fn generate(&self, category: &str, index: u64, rng: &mut CaseRng) -> Vec<Case<Self::Input>>;
    /// Decode with the reference decoder.
    fn reference(&self, input: &Self::Input) -> Outcome<Self>;
    /// Every implementation, available here or not.
    fn implementations(&self) -> Vec<Implementation<Self>>;
    /// Canonical little-endian serialization of an input (also the corpus
    /// file format read back by [`Family::parse_input`]).
    fn write_input(&self, input: &Self::Input, out: &mut Vec<u8>);
    fn parse_input(&self, bytes: &[u8]) -> Option<Self::Input>;
    /// Canonical little-endian serialization of an outcome, for digests.
    fn write_outcome(&self, outcome: &Outcome<Self>, out: &mut Vec<u8>);
    /// Smaller variants of a failing input, for minimizing reproducers.
    fn shrink(&self, _input: &Self::Input) -> Vec<Self::Input> {
        Vec::new()
    }
    fn allowed_differences(&self) -> Vec<AllowedDifference<Self>> {
        Vec::new()
    }
    /// A case built from fuzzer bytes, for structured fuzzing. The default
    /// lets the bytes pick a category, a call index and a seed for the
    /// family's own generators, then applies up to three byte-level
    /// mutations to one step's canonical serialization. Families override it
    /// to build values and shape directly.
    fn arbitrary_case(&self, u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Case<Self::Input>> {
        generated_case(self, u)
    }
}

/// The default [`Family::arbitrary_case`]: a generated case, maybe mutated.
pub fn generated_case<F: Family + ?Sized>(family: &F, u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Case<F::Input>> {
    let categories = family.categories();
    let category = u.choose(&categories)?.name;
    let index = u.int_in_range(0..=10_000u64)?;
    let seed: u64 = u.arbitrary()?;
    let cases = family.generate(category, index, &mut case_rng(seed, family.name(), category, index));
    let mut case = u.choose(&cases)?.clone();
    for _ in 0..u.int_in_range(0..=3u8)? {
        let step = u.choose_index(case.steps.len())?;
        let mut bytes = Vec::new();
        family.write_input(&case.steps[step], &mut bytes);
        mutate_bytes(u, &mut bytes)?;
        if let Some(input) = family.parse_input(&bytes) {
            case.steps[step] = input;
        }
    }
    Ok(case)
}

/// One byte-level mutation chosen by the fuzzer: flip a bit, set a byte,
/// truncate, or insert a byte.
pub fn mutate_bytes(u: &mut arbitrary::Unstructured<'_>, bytes: &mut Vec<u8>) -> arbitrary::Result<()> {
    if bytes.is_empty() {
        bytes.push(u.arbitrary()?);
        return Ok(());
    }
    let at = u.choose_index(bytes.len())?;
    match u.int_in_range(0..=3u8)? {
        0 => bytes[at] ^= 1 << u.int_in_range(0..=7u8)?,
        1 => bytes[at] = u.arbitrary()?,
        2 => bytes.truncate(at),
        _ => bytes.insert(at, u.arbitrary()?),
    }
    Ok(())
}

/// How to run a campaign.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Generator calls per category, before the category's scale.
    pub cases: u64,
    pub seed: u64,
    /// Only these implementations (by name); empty = all available.
    pub implementations: Vec<String>,
    /// Only these categories; empty = all.
    pub categories: Vec<String>,
    pub progress: bool,
    /// Stop minimizing after this many re-runs per failure.
    pub shrink_budget: usize,
    /// Keep at most this many failures in the report.
    pub max_failures: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            cases: 200,
            seed: 0,
            implementations: Vec::new(),
            categories: Vec::new(),
            progress: false,
            shrink_budget: 2000,
            max_failures: 20,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CategoryReport {
    pub name: String,
    pub cases: u64,
    pub steps: u64,
    pub failures: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ImplementationReport {
    pub name: String,
    pub role: Role,
    pub available: bool,
    /// Whether it ran in this campaign (available and selected).
    pub ran: bool,
    /// Decode calls compared against the reference.
    pub compared: u64,
    pub failures: u64,
    /// Differences tolerated, by allowed-difference rule id.
    pub tolerated: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Failure {
    pub family: String,
    pub category: String,
    pub seed: u64,
    /// Generator call index and the case's position among its results.
    pub index: u64,
    pub sub_index: usize,
    pub implementation: String,
    pub step: usize,
    pub expected: String,
    pub got: String,
    pub buffer_faults: Vec<String>,
    /// Each step's input, canonical serialization in hex.
    pub input_hex: Vec<String>,
    /// The minimized reproducer (same form) and what it gives.
    pub minimized_hex: Vec<String>,
    pub minimized_expected: String,
    pub minimized_got: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AllowedDifferenceReport {
    pub id: String,
    pub implementation: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FamilyReport {
    pub family: String,
    pub seed: u64,
    pub cases_per_category_call: u64,
    pub categories: Vec<CategoryReport>,
    pub implementations: Vec<ImplementationReport>,
    pub allowed_differences: Vec<AllowedDifferenceReport>,
    pub failures: Vec<Failure>,
    pub failure_count: u64,
    /// SHA-256 over every case's canonical input and reference outcome.
    pub digest: String,
    pub seconds: f64,
}

impl FamilyReport {
    pub fn total_cases(&self) -> u64 {
        self.categories.iter().map(|c| c.cases).sum()
    }
}

/// A type-erased family, so campaigns can hold families of different types.
pub trait AnyFamily: Send + Sync {
    fn name(&self) -> &'static str;
    fn category_names(&self) -> Vec<&'static str>;
    fn implementation_list(&self) -> Vec<(String, Role, bool)>;
    fn run(&self, options: &RunOptions) -> FamilyReport;
    /// Check one serialized input (a corpus or crash file) against every
    /// available implementation (peers too when `peers`). `None` if the
    /// bytes do not parse as an input; otherwise the disagreements found.
    fn check_bytes(&self, bytes: &[u8], peers: bool) -> Option<Vec<String>>;
    /// Check the case [`Family::arbitrary_case`] builds from fuzzer bytes.
    /// `None` if the bytes are too short to build one.
    fn check_structured(&self, data: &[u8], peers: bool) -> Option<Vec<String>>;
    /// Canonical serializations of the steps of generated cases, for seed corpora.
    fn corpus(&self, cases: u64, seed: u64) -> Vec<(String, Vec<u8>)>;
}

/// Wraps a [`Family`] as an [`AnyFamily`].
pub struct Erased<F: Family>(pub F);

impl<F: Family> AnyFamily for Erased<F> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn category_names(&self) -> Vec<&'static str> {
        self.0.categories().iter().map(|c| c.name).collect()
    }
    fn implementation_list(&self) -> Vec<(String, Role, bool)> {
        self.0.implementations().into_iter().map(|i| (i.name, i.role, i.available)).collect()
    }
    fn run(&self, options: &RunOptions) -> FamilyReport {
        run_family(&self.0, options)
    }
    fn check_bytes(&self, bytes: &[u8], peers: bool) -> Option<Vec<String>> {
        let input = self.0.parse_input(bytes)?;
        Some(check_case(&self.0, &Case::one(input), peers))
    }
    fn check_structured(&self, data: &[u8], peers: bool) -> Option<Vec<String>> {
        let mut u = arbitrary::Unstructured::new(data);
        let case = self.0.arbitrary_case(&mut u).ok()?;
        Some(check_case(&self.0, &case, peers))
    }
    fn corpus(&self, cases: u64, seed: u64) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for category in self.0.categories() {
            let calls = ((cases as f64) * category.scale).ceil().max(1.0) as u64;
            for index in 0..calls {
                let generated = self.0.generate(category.name, index, &mut case_rng(seed, self.0.name(), category.name, index));
                for (sub, case) in generated.iter().enumerate() {
                    for (step, input) in case.steps.iter().enumerate() {
                        let mut bytes = Vec::new();
                        self.0.write_input(input, &mut bytes);
                        out.push((format!("{}-{index}-{sub}-{step}", category.name), bytes));
                    }
                }
            }
        }
        out
    }
}

/// Every available implementation (and peer, if asked) against the reference.
fn check_case<F: Family>(family: &F, case: &Case<F::Input>, peers: bool) -> Vec<String> {
    let allowed = family.allowed_differences();
    family
        .implementations()
        .iter()
        .filter(|i| i.available && (peers || i.role == Role::Kernel))
        .filter_map(|imp| {
            first_mismatch(family, case, imp, &allowed).map(|m| {
                format!("{}: step {}: expected {} got {}{}", imp.name, m.step, m.expected, m.got, fault_suffix(&m.buffer_faults))
            })
        })
        .collect()
}

fn fault_suffix(faults: &[String]) -> String {
    if faults.is_empty() {
        String::new()
    } else {
        format!(" (buffer faults: {})", faults.join("; "))
    }
}

/// The per-case seed: SHA-256 of (seed, family, category, index), all
/// serialized explicitly, so it is the same on every architecture.
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

/// One step where an implementation and the reference disagree.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub step: usize,
    pub expected: String,
    pub got: String,
    pub buffer_faults: Vec<String>,
}

enum StepVerdict {
    Same,
    Tolerated(&'static str),
    Different,
}

fn judge<F: Family + ?Sized>(
    input: &F::Input,
    expected: &Outcome<F>,
    got: &Decoded<F>,
    imp: &Implementation<F>,
    allowed: &[AllowedDifference<F>],
) -> StepVerdict {
    if !got.buffer_faults.is_empty() {
        return StepVerdict::Different;
    }
    if &got.outcome == expected {
        return StepVerdict::Same;
    }
    for rule in allowed {
        if rule.implementation == imp.name && (rule.applies)(input, expected, &got.outcome) {
            return StepVerdict::Tolerated(rule.id);
        }
    }
    StepVerdict::Different
}

thread_local! {
    /// Set while a decoder or reference runs under `catch_unwind`.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f` under `catch_unwind`, marked as guarded for [`install_quiet_panic_hook`].
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    GUARDED.with(|g| g.set(true));
    let result = catch_unwind(AssertUnwindSafe(f)).map_err(panic_message);
    GUARDED.with(|g| g.set(false));
    result
}

/// A panic hook that stays silent for panics inside decoders and references
/// (the engine catches those and reports them as outcomes, with their
/// message) and prints every other panic — a generator or the engine itself
/// — as the default hook would, so it is never lost.
pub fn install_quiet_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !GUARDED.with(|g| g.get()) {
            default(info);
        }
    }));
}

/// Run a decoder over the steps, catching panics as outcomes.
fn decode_guarded<F: Family + ?Sized>(decoder: &mut dyn Decoder<F>, input: &F::Input, canary: u8) -> Result<Decoded<F>, String> {
    guarded(|| decoder.decode(input, canary))
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    format!("PANIC: {text}")
}

fn reference_guarded<F: Family>(family: &F, input: &F::Input) -> Result<Outcome<F>, String> {
    guarded(|| family.reference(input))
}

/// Runs; for each canary (peers: one pass), a fresh decoder over all steps.
/// Returns the first mismatch, if any. Used for minimizing and replay.
fn first_mismatch<F: Family>(
    family: &F,
    case: &Case<F::Input>,
    imp: &Implementation<F>,
    allowed: &[AllowedDifference<F>],
) -> Option<Mismatch> {
    let expected: Vec<_> = case.steps.iter().map(|s| reference_guarded(family, s)).collect();
    let passes: &[u8] = if imp.role == Role::Kernel { &CANARIES } else { &CANARIES[..1] };
    for &canary in passes {
        let mut decoder = (imp.new_decoder)();
        for (step, input) in case.steps.iter().enumerate() {
            let exp = &expected[step];
            let got = decode_guarded(decoder.as_mut(), input, canary);
            let mismatch = |got: String, faults: Vec<String>| Mismatch {
                step,
                expected: describe(exp),
                got,
                buffer_faults: faults,
            };
            match (exp, got) {
                (Err(panic), _) => return Some(mismatch(format!("(reference failed: {panic})"), vec![])),
                (_, Err(panic)) => return Some(mismatch(panic, vec![])),
                (Ok(e), Ok(g)) => {
                    if let StepVerdict::Different = judge(input, e, &g, imp, allowed) {
                        return Some(mismatch(format!("{:?}", g.outcome), g.buffer_faults));
                    }
                }
            }
        }
    }
    None
}

fn describe<T: Debug>(r: &Result<T, String>) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => e.clone(),
    }
}

/// One generator call: its index, each case's result, and the cases kept
/// for minimizing (only when one of them failed).
type CallResult<I> = (u64, Vec<CaseResult>, Vec<Case<I>>);

struct CaseResult {
    digest: [u8; 32],
    steps: u64,
    /// Per implementation: (compared, failures, tolerated rule ids).
    per_impl: Vec<(u64, u64, Vec<&'static str>)>,
    failures: Vec<(usize, Mismatch)>,
    sub_index: usize,
}

fn evaluate_case<F: Family>(
    family: &F,
    case: &Case<F::Input>,
    impls: &[Implementation<F>],
    allowed: &[AllowedDifference<F>],
    sub_index: usize,
) -> CaseResult {
    let expected: Vec<_> = case.steps.iter().map(|s| reference_guarded(family, s)).collect();
    let mut h = Sha256::new();
    let mut buf = Vec::new();
    for (input, outcome) in case.steps.iter().zip(&expected) {
        buf.clear();
        family.write_input(input, &mut buf);
        h.update((buf.len() as u64).to_le_bytes());
        h.update(&buf);
        buf.clear();
        match outcome {
            Ok(o) => family.write_outcome(o, &mut buf),
            Err(panic) => buf.extend_from_slice(panic.as_bytes()),
        }
        h.update((buf.len() as u64).to_le_bytes());
        h.update(&buf);
    }
    let mut result = CaseResult {
        digest: h.finalize().into(),
        steps: case.steps.len() as u64,
        per_impl: Vec::with_capacity(impls.len()),
        failures: Vec::new(),
        sub_index,
    };
    for (k, imp) in impls.iter().enumerate() {
        let mut compared = 0;
        let mut failed = 0;
        let mut tolerated = Vec::new();
        let passes: &[u8] = if imp.role == Role::Kernel { &CANARIES } else { &CANARIES[..1] };
        'passes: for &canary in passes {
            let mut decoder = (imp.new_decoder)();
            for (step, input) in case.steps.iter().enumerate() {
                compared += 1;
                let exp = &expected[step];
                let got = decode_guarded(decoder.as_mut(), input, canary);
                let failure = match (exp, got) {
                    (Err(panic), _) => Some((format!("(reference failed: {panic})"), vec![])),
                    (_, Err(panic)) => Some((panic, vec![])),
                    (Ok(e), Ok(g)) => match judge(input, e, &g, imp, allowed) {
                        StepVerdict::Same => None,
                        StepVerdict::Tolerated(id) => {
                            tolerated.push(id);
                            None
                        }
                        StepVerdict::Different => Some((format!("{:?}", g.outcome), g.buffer_faults)),
                    },
                };
                if let Some((got, faults)) = failure {
                    failed += 1;
                    result.failures.push((
                        k,
                        Mismatch { step, expected: describe(exp), got, buffer_faults: faults },
                    ));
                    // One failure per implementation and case is enough; the
                    // later steps would only repeat it.
                    break 'passes;
                }
            }
        }
        result.per_impl.push((compared, failed, tolerated));
    }
    result
}

/// Greedy minimization: keep taking the first smaller variant that still fails.
fn minimize<F: Family>(
    family: &F,
    case: &Case<F::Input>,
    imp: &Implementation<F>,
    allowed: &[AllowedDifference<F>],
    budget: usize,
) -> (Case<F::Input>, Option<Mismatch>) {
    let mut current = case.clone();
    let mut last = first_mismatch(family, &current, imp, allowed);
    let mut tries = 0;
    'outer: while tries < budget {
        let mut candidates: Vec<Case<F::Input>> = Vec::new();
        if current.steps.len() > 1 {
            for drop in 0..current.steps.len() {
                let mut steps = current.steps.clone();
                steps.remove(drop);
                candidates.push(Case { steps });
            }
        }
        for (k, step) in current.steps.iter().enumerate() {
            for smaller in family.shrink(step) {
                let mut steps = current.steps.clone();
                steps[k] = smaller;
                candidates.push(Case { steps });
            }
        }
        for candidate in candidates {
            tries += 1;
            if tries > budget {
                break 'outer;
            }
            if let Some(m) = first_mismatch(family, &candidate, imp, allowed) {
                current = candidate;
                last = Some(m);
                continue 'outer;
            }
        }
        break;
    }
    (current, last)
}

fn hex_steps<F: Family>(family: &F, case: &Case<F::Input>) -> Vec<String> {
    case.steps
        .iter()
        .map(|s| {
            let mut b = Vec::new();
            family.write_input(s, &mut b);
            hex::encode(b)
        })
        .collect()
}

/// Run every selected category against every selected, available implementation.
pub fn run_family<F: Family>(family: &F, options: &RunOptions) -> FamilyReport {
    let started = Instant::now();
    let all_impls = family.implementations();
    let selected = |name: &str| options.implementations.is_empty() || options.implementations.iter().any(|n| n == name);
    let impls: Vec<_> = all_impls.iter().filter(|i| i.available && selected(&i.name)).cloned().collect();
    let allowed = family.allowed_differences();
    let categories: Vec<_> = family
        .categories()
        .into_iter()
        .filter(|c| options.categories.is_empty() || options.categories.iter().any(|n| n == c.name))
        .collect();
    let calls = |c: &Category| ((options.cases as f64) * c.scale).ceil().max(1.0) as u64;
    let total_calls: u64 = categories.iter().map(calls).sum();

    let bar = if options.progress {
        let bar = indicatif::ProgressBar::new(total_calls);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{prefix:>14} [{bar:40}] {pos}/{len} {msg} ({eta})")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(family.name());
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };

    let mut digest = Sha256::new();
    digest.update(family.name().as_bytes());
    let mut category_reports = Vec::new();
    let mut impl_stats: Vec<(u64, u64, BTreeMap<String, u64>)> = vec![(0, 0, BTreeMap::new()); impls.len()];
    let mut failures = Vec::new();
    let mut failure_count = 0;

    for category in &categories {
        bar.set_message(category.name);
        let results: Vec<CallResult<F::Input>> = (0..calls(category))
            .into_par_iter()
            .map(|index| {
                let mut rng = case_rng(options.seed, family.name(), category.name, index);
                let cases = family.generate(category.name, index, &mut rng);
                let results: Vec<_> = cases
                    .iter()
                    .enumerate()
                    .map(|(sub, case)| evaluate_case(family, case, &impls, &allowed, sub))
                    .collect();
                // Keep the inputs only where something failed.
                let keep = if results.iter().any(|r| !r.failures.is_empty()) { cases } else { Vec::new() };
                bar.inc(1);
                (index, results, keep)
            })
            .collect();

        let mut report = CategoryReport { name: category.name.to_string(), ..Default::default() };
        digest.update((category.name.len() as u64).to_le_bytes());
        digest.update(category.name.as_bytes());
        for (index, results, kept) in results {
            for r in &results {
                report.cases += 1;
                report.steps += r.steps;
                digest.update(r.digest);
                for (k, (compared, failed, tolerated)) in r.per_impl.iter().enumerate() {
                    impl_stats[k].0 += compared;
                    impl_stats[k].1 += failed;
                    for id in tolerated {
                        *impl_stats[k].2.entry(id.to_string()).or_default() += 1;
                    }
                }
                for (k, mismatch) in &r.failures {
                    report.failures += 1;
                    failure_count += 1;
                    if failures.len() >= options.max_failures {
                        continue;
                    }
                    let case = &kept[r.sub_index];
                    let (small, small_mismatch) = minimize(family, case, &impls[*k], &allowed, options.shrink_budget);
                    failures.push(Failure {
                        family: family.name().to_string(),
                        category: category.name.to_string(),
                        seed: options.seed,
                        index,
                        sub_index: r.sub_index,
                        implementation: impls[*k].name.clone(),
                        step: mismatch.step,
                        expected: mismatch.expected.clone(),
                        got: mismatch.got.clone(),
                        buffer_faults: mismatch.buffer_faults.clone(),
                        input_hex: hex_steps(family, case),
                        minimized_hex: hex_steps(family, &small),
                        minimized_expected: small_mismatch.as_ref().map(|m| m.expected.clone()).unwrap_or_default(),
                        minimized_got: small_mismatch
                            .map(|m| format!("{}{}", m.got, fault_suffix(&m.buffer_faults)))
                            .unwrap_or_default(),
                    });
                }
            }
        }
        digest.update(report.cases.to_le_bytes());
        category_reports.push(report);
    }
    bar.finish_and_clear();

    let implementations = all_impls
        .iter()
        .map(|i| {
            let position = impls.iter().position(|r| r.name == i.name);
            let (compared, failures, tolerated) = position.map(|k| impl_stats[k].clone()).unwrap_or_default();
            ImplementationReport {
                name: i.name.clone(),
                role: i.role,
                available: i.available,
                ran: position.is_some(),
                compared,
                failures,
                tolerated,
            }
        })
        .collect();

    FamilyReport {
        family: family.name().to_string(),
        seed: options.seed,
        cases_per_category_call: options.cases,
        categories: category_reports,
        implementations,
        allowed_differences: allowed
            .iter()
            .map(|a| AllowedDifferenceReport {
                id: a.id.to_string(),
                implementation: a.implementation.to_string(),
                reason: a.reason.to_string(),
            })
            .collect(),
        failures,
        failure_count,
        digest: hex::encode(digest.finalize()),
        seconds: started.elapsed().as_secs_f64(),
    }
}
