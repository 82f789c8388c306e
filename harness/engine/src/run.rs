//! Running a campaign: every selected category's cases against every
//! selected, available implementation.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::campaign::{Campaign, Implementation};
use crate::canonical::Canonical;
use crate::diff::first_difference;
use crate::digest::{case_digest, FamilyDigest, Sha};
use crate::judge::{expected_outcomes, judge_with, Mismatch};
use crate::minimise::minimise;
use crate::report::{
    AllowedDifferenceReport, BoundExceeded, CategoryReport, Failure, FamilyReport, ImplementationReport, Problem,
};
use crate::spec::{case_rng, Case, Category, Spec};
use crate::subject::Answer;

/// Generator calls whose inputs an external subject gets in one batch:
/// enough that the pipe's round trips stop mattering, few enough that a
/// category still spreads over every core.
const SUBJECT_BATCH_CALLS: u64 = 32;

/// Progress callbacks for a front end (a progress bar, a log).
pub trait Progress: Send + Sync {
    /// A family starts; `calls` generator calls in all.
    fn family(&self, _name: &str, _calls: u64) {}
    /// A category starts.
    fn category(&self, _name: &str) {}
    /// One generator call is done.
    fn advance(&self) {}
    /// The family is done.
    fn finish(&self) {}
}

/// How to run a campaign.
#[derive(Clone)]
pub struct RunOptions {
    /// Generator calls per category, before the category's scale.
    pub cases: u64,
    /// Exact generator calls for the categories named here, in place of
    /// `cases` times their scale: a time budget's plan, or the counts of
    /// another run's manifest replayed so its digests compare. Categories
    /// not named use `cases`.
    pub calls: BTreeMap<String, u64>,
    /// The seed every case derives from.
    pub seed: u64,
    /// Only these implementations (by name); empty = every available one.
    pub implementations: Vec<String>,
    /// Only these categories; empty = all.
    pub categories: Vec<String>,
    /// Re-runs a failure's minimizing may spend.
    pub shrink_budget: usize,
    /// Seconds a failure's minimizing may spend.
    pub shrink_seconds: f64,
    /// Seconds minimizing may spend over the whole campaign; failures
    /// whose turn comes after that keep their whole input.
    pub shrink_total_seconds: f64,
    /// Stop the campaign once this many failures (failing case and
    /// implementation pairs) are found; every one is kept in the report.
    /// 0: no limit.
    pub max_failures: usize,
    /// Where progress goes, if anywhere.
    pub progress: Option<Arc<dyn Progress>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            cases: 200,
            calls: BTreeMap::new(),
            seed: 0,
            implementations: Vec::new(),
            categories: Vec::new(),
            shrink_budget: 2000,
            shrink_seconds: 10.0,
            shrink_total_seconds: 60.0,
            max_failures: 100,
            progress: None,
        }
    }
}

impl fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunOptions")
            .field("cases", &self.cases)
            .field("calls", &self.calls)
            .field("seed", &self.seed)
            .field("implementations", &self.implementations)
            .field("categories", &self.categories)
            .field("shrink_budget", &self.shrink_budget)
            .field("shrink_seconds", &self.shrink_seconds)
            .field("shrink_total_seconds", &self.shrink_total_seconds)
            .field("max_failures", &self.max_failures)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// One implementation's share of one case.
#[derive(Default)]
struct ImplCase {
    compared: u64,
    failed: bool,
    tolerated: Vec<&'static str>,
    unsupported: u64,
    not_asked: u64,
}

/// One case's results.
struct CaseResult {
    digest: Sha,
    steps: u64,
    /// Per implementation, in the order of the run's implementations.
    per_impl: Vec<ImplCase>,
    /// (implementation index, mismatch).
    failures: Vec<(usize, Mismatch)>,
}

/// One generator call: its index, its cases' results, and its cases when one
/// of them failed (kept for minimizing); `None` for a call skipped after
/// the failure limit was reached.
type CallResult<I> = Option<(u64, Vec<CaseResult>, Vec<Case<I>>)>;

/// A failure found, waiting for its minimizing.
struct Found<I> {
    category: &'static str,
    category_order: usize,
    index: u64,
    sub_index: usize,
    implementation: usize,
    mismatch: Mismatch,
    case: Case<I>,
}

/// Running totals of one implementation over the campaign.
#[derive(Default, Clone)]
struct ImplTotals {
    compared: u64,
    failures: u64,
    tolerated: BTreeMap<String, u64>,
    unsupported: u64,
    not_asked: u64,
}

/// Judge `case` against every implementation; `answers[k]` holds an
/// external subject's answers for the case's steps, fetched in a batch
/// (`answers` is empty when no implementation is a subject).
fn evaluate<S: Spec>(
    campaign: &Campaign<S>,
    case: &Case<S::Input>,
    impls: &[&Implementation<S>],
    mut answers: Vec<Option<Vec<Answer<S>>>>,
) -> CaseResult {
    let expected = expected_outcomes(&campaign.spec, case);
    let mut result = CaseResult {
        digest: case_digest::<S>(case, &expected),
        steps: case.steps.len() as u64,
        per_impl: Vec::with_capacity(impls.len()),
        failures: Vec::new(),
    };
    for (k, imp) in impls.iter().enumerate() {
        let verdict = judge_with(
            &campaign.spec,
            case,
            &expected,
            imp,
            &campaign.allowed,
            answers.get_mut(k).and_then(Option::take),
        );
        let failed = verdict.mismatch.is_some();
        if let Some(m) = verdict.mismatch {
            result.failures.push((k, m));
        }
        result.per_impl.push(ImplCase {
            compared: verdict.compared,
            failed,
            tolerated: verdict.tolerated,
            unsupported: verdict.unsupported,
            not_asked: verdict.not_asked,
        });
    }
    result
}

fn hex_steps<I: Canonical>(case: &Case<I>) -> Vec<String> {
    case.steps.iter().map(|s| hex::encode(s.to_canonical())).collect()
}

fn canonical_size<I: Canonical>(case: &Case<I>) -> u64 {
    case.steps.iter().map(|s| s.to_canonical().len() as u64).sum()
}

/// The symptom and the first difference of a mismatch.
fn symptom(m: &Mismatch) -> (String, String) {
    if let Some(fault) = m.buffer_faults.first() {
        let kind = format!("{fault:?}");
        let kind = kind.split([' ', '{', '(']).next().unwrap_or("").to_string();
        return (format!("buffer: {kind}"), format!("buffer fault: {fault}"));
    }
    match first_difference(&m.expected, &m.got) {
        // A panic or a failed subject is not an outcome to point into: the
        // expected and actual lines say it all.
        Some(d) if d.path.starts_with("character") && d.symptom != "text differs" => (d.symptom, String::new()),
        Some(d) => (d.symptom.clone(), d.to_string()),
        None => ("outcome".into(), String::new()),
    }
}

/// The Rust call that replays `steps` on a campaign.
pub(crate) fn rust_replay(implementation: &str, steps: &[String]) -> String {
    let steps: Vec<String> = steps.iter().map(|h| format!("{h:?}")).collect();
    format!("campaign.replay_hex({implementation:?}, &[{}])", steps.join(", "))
}

/// `f` of every call index, in order; on every core with `parallel`.
fn each_call<T: Send>(calls: u64, f: impl Fn(u64) -> T + Send + Sync) -> Vec<T> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..calls).into_par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..calls).map(f).collect()
    }
}

impl RunOptions {
    /// Generator calls for `category`: its entry in [`calls`](Self::calls),
    /// else [`Category::calls`] of [`cases`](Self::cases).
    pub fn calls_for<I>(&self, category: &Category<I>) -> u64 {
        self.calls
            .get(category.name)
            .copied()
            .unwrap_or_else(|| category.calls(self.cases))
    }

    fn failure_limit(&self) -> u64 {
        if self.max_failures == 0 {
            u64::MAX
        } else {
            self.max_failures as u64
        }
    }
}

impl<S: Spec> Campaign<S> {
    /// Every step of `cases`, in order, sent to each external subject in
    /// `impls` as one batch: its typed answers by implementation index
    /// (`None` for built-in implementations).
    fn ask_subjects<'c>(
        &self,
        impls: &[&Implementation<S>],
        cases: impl Iterator<Item = &'c Case<S::Input>> + Clone,
    ) -> Vec<Option<std::collections::VecDeque<Answer<S>>>> {
        impls
            .iter()
            .map(|imp| {
                let subject = imp.subject()?;
                let inputs: Vec<Vec<u8>> = cases
                    .clone()
                    .flat_map(|c| c.steps.iter().map(Canonical::to_canonical))
                    .collect();
                let family = self.spec.name();
                Some(
                    subject
                        .exchange_in_campaign(&inputs)
                        .into_iter()
                        .map(|a| a.typed::<S>(family))
                        .collect(),
                )
            })
            .collect()
    }

    /// [`run`](Self::run), then panic unless the run passed: the panic
    /// message is the run's summary, with each group of failures' smallest
    /// reproducer and the [`replay_hex`](Self::replay_hex) call that
    /// replays it, and every problem (an implementation that compared
    /// nothing fails too). A whole differential test in one call:
    ///
    /// ```text
    /// Campaign::new(MySpec).kernel_fn("fast", fast).assert_agrees(&RunOptions::default());
    /// ```
    ///
    /// Returns the report when it passed.
    #[track_caller]
    pub fn assert_agrees(&self, options: &RunOptions) -> FamilyReport {
        let report = self.run(options);
        let reports = std::slice::from_ref(&report);
        if !crate::report::passed(reports) {
            panic!(
                "crossdec: {} did not agree with its reference\n{}",
                self.spec.name(),
                crate::report::summary(reports)
            );
        }
        report
    }

    /// Run every selected category against every selected, available
    /// implementation, and report.
    pub fn run(&self, options: &RunOptions) -> FamilyReport {
        let started = Instant::now();
        let name = self.spec.name();
        let selected = |n: &str| options.implementations.is_empty() || options.implementations.iter().any(|s| s == n);
        let impls: Vec<&Implementation<S>> = self
            .implementations
            .iter()
            .filter(|i| i.available && selected(&i.name))
            .collect();
        let categories: Vec<_> = self
            .spec
            .categories()
            .into_iter()
            .filter(|c| options.categories.is_empty() || options.categories.iter().any(|n| n == c.name))
            .collect();
        if let Some(p) = &options.progress {
            p.family(name, categories.iter().map(|c| options.calls_for(c)).sum());
        }

        let mut digest = FamilyDigest::new(name);
        let mut category_reports = Vec::new();
        let mut totals: Vec<ImplTotals> = vec![ImplTotals::default(); impls.len()];
        let mut found: Vec<Found<S::Input>> = Vec::new();
        let mut bounds_exceeded = Vec::new();
        let mut problems = Vec::new();
        let mut failure_count = 0;
        let mut failures_left_out = 0;
        let mut calls_skipped = 0;
        // Failures found so far, read by every worker: past the limit,
        // calls not yet started are skipped.
        let limit = options.failure_limit();
        let failing = AtomicU64::new(0);

        if impls.is_empty() {
            problems.push(Problem::NoImplementation);
        }
        for (category_order, category) in categories.iter().enumerate() {
            if let Some(p) = &options.progress {
                p.category(category.name);
            }
            let category_started = Instant::now();
            let calls = options.calls_for(category);
            // External subjects get the inputs of a batch of calls at once;
            // without them every call is its own unit of parallel work.
            let asks_subjects = impls.iter().any(|i| i.subject.is_some());
            let batch = if asks_subjects { SUBJECT_BATCH_CALLS } else { 1 };
            let batches = each_call(calls.div_ceil(batch), |b| {
                let indices = b * batch..((b + 1) * batch).min(calls);
                if failing.load(Ordering::Relaxed) >= limit {
                    return indices.map(|_| None).collect();
                }
                let generated: Vec<(u64, Vec<Case<S::Input>>)> = indices
                    .map(|index| {
                        let mut rng = case_rng(options.seed, name, category.name, index);
                        (index, category.generate(index, &mut rng))
                    })
                    .collect();
                let mut fetched = if asks_subjects {
                    self.ask_subjects(&impls, generated.iter().flat_map(|(_, cases)| cases))
                } else {
                    Vec::new()
                };
                generated
                    .into_iter()
                    .map(|(index, cases)| {
                        let results: Vec<_> = cases
                            .iter()
                            .map(|case| {
                                let answers = fetched
                                    .iter_mut()
                                    .map(|a| a.as_mut().map(|a| a.drain(..case.steps.len()).collect()))
                                    .collect();
                                evaluate(self, case, &impls, answers)
                            })
                            .collect();
                        let failures: u64 = results.iter().map(|r| r.failures.len() as u64).sum();
                        failing.fetch_add(failures, Ordering::Relaxed);
                        let keep = if failures > 0 { cases } else { Vec::new() };
                        if let Some(p) = &options.progress {
                            p.advance();
                        }
                        Some((index, results, keep))
                    })
                    .collect::<Vec<CallResult<S::Input>>>()
            });
            let results = batches.into_iter().flatten();

            let mut report = CategoryReport {
                name: category.name.to_string(),
                calls,
                ..Default::default()
            };
            digest.start_category(category.name);
            // This category's share of each implementation's totals.
            let mut here: Vec<ImplTotals> = vec![ImplTotals::default(); impls.len()];
            let mut skipped_here = 0;
            for call in results {
                let Some((index, results, kept)) = call else {
                    skipped_here += 1;
                    continue;
                };
                for (sub_index, r) in results.into_iter().enumerate() {
                    report.cases += 1;
                    report.steps += r.steps;
                    digest.case(&r.digest);
                    for (k, one) in r.per_impl.into_iter().enumerate() {
                        for t in [&mut totals[k], &mut here[k]] {
                            t.compared += one.compared;
                            t.failures += u64::from(one.failed);
                            t.unsupported += one.unsupported;
                            t.not_asked += one.not_asked;
                            for id in &one.tolerated {
                                *t.tolerated.entry(id.to_string()).or_default() += 1;
                            }
                        }
                        for id in one.tolerated {
                            *report.tolerated.entry(id.to_string()).or_default() += 1;
                        }
                    }
                    for (k, mismatch) in r.failures {
                        report.failures += 1;
                        failure_count += 1;
                        if found.len() as u64 >= limit {
                            failures_left_out += 1;
                            continue;
                        }
                        found.push(Found {
                            category: category.name,
                            category_order,
                            index,
                            sub_index,
                            implementation: k,
                            mismatch,
                            case: kept[sub_index].clone(),
                        });
                    }
                }
            }
            calls_skipped += skipped_here;
            for rule in &self.allowed {
                let Some(k) = impls.iter().position(|i| i.name == rule.implementation) else {
                    continue;
                };
                let compared = here[k].compared;
                let tolerated = here[k].tolerated.get(rule.id).copied().unwrap_or(0);
                let allowed = rule.allowed_uses(category.name, compared, calls);
                if tolerated > allowed {
                    failure_count += 1;
                    bounds_exceeded.push(BoundExceeded {
                        rule: rule.id.into(),
                        implementation: rule.implementation.into(),
                        category: category.name.into(),
                        tolerated,
                        compared,
                        bound: rule.bound_in(category.name),
                        allowed,
                    });
                }
            }
            if report.cases == 0 && skipped_here == 0 {
                problems.push(Problem::NoCases {
                    category: category.name.into(),
                });
            }
            for (k, imp) in impls.iter().enumerate() {
                report.compared.insert(imp.name.clone(), here[k].compared);
                // A category the failure limit cut short may not have
                // reached this implementation's inputs.
                // A subject that never answered is one setup problem below,
                // not one per category.
                let never_answered = imp.subject().is_some_and(|s| !s.ever_answered());
                if here[k].compared == 0
                    && report.cases > 0
                    && skipped_here == 0
                    && !never_answered
                    && !imp.is_outside_scope(category.name)
                {
                    problems.push(Problem::NothingCompared {
                        implementation: imp.name.clone(),
                        category: category.name.into(),
                        unsupported: here[k].unsupported,
                        not_asked: here[k].not_asked,
                    });
                }
            }
            report.digest = digest.end_category();
            report.seconds = category_started.elapsed().as_secs_f64();
            category_reports.push(report);
        }
        if let Some(p) = &options.progress {
            p.finish();
        }

        let cases: u64 = category_reports.iter().map(|c| c.cases).sum();
        if !impls.is_empty() && cases > 0 && calls_skipped == 0 && totals.iter().all(|t| t.compared == 0) {
            problems.push(Problem::NoComparisons { cases });
        }
        for (k, imp) in impls.iter().enumerate() {
            let Some(subject) = imp.subject() else { continue };
            if !subject.ever_answered() && (totals[k].failures > 0 || totals[k].not_asked > 0) {
                // Its failures say the same thing again and again: one
                // problem stands for them.
                found.retain(|f| f.implementation != k);
                problems.push(Problem::SubjectNeverAnswered {
                    implementation: imp.name.clone(),
                    last_failure: subject.last_failure(),
                });
            } else if subject.is_broken() {
                problems.push(Problem::SubjectBroken {
                    implementation: imp.name.clone(),
                    not_asked: totals[k].not_asked,
                    last_failure: subject.last_failure(),
                });
            }
        }
        if calls_skipped > 0 {
            problems.push(Problem::StoppedEarly {
                max_failures: limit,
                calls_skipped,
            });
        }
        failure_count += problems.iter().filter(|p| p.fails()).count() as u64;
        let failures = self.minimise_all(found, &categories, &impls, options);

        let implementations = self
            .implementations
            .iter()
            .map(|i| {
                let position = impls.iter().position(|r| r.name == i.name);
                let t = position.map(|k| totals[k].clone()).unwrap_or_default();
                ImplementationReport {
                    name: i.name.clone(),
                    role: i.role,
                    available: i.available,
                    ran: position.is_some(),
                    compared: t.compared,
                    failures: t.failures,
                    tolerated: t.tolerated,
                    unsupported: t.unsupported,
                    not_asked: t.not_asked,
                    outside_scope: i.outside_scope.clone(),
                    subject: i.subject().map(|s| s.command().command.clone()),
                }
            })
            .collect();

        FamilyReport {
            family: name.to_string(),
            seed: options.seed,
            cases_per_category_call: options.cases,
            categories: category_reports,
            implementations,
            allowed_differences: self
                .allowed
                .iter()
                .map(|a| AllowedDifferenceReport {
                    id: a.id.into(),
                    implementation: a.implementation.into(),
                    reason: a.reason.into(),
                    bounds: a.bounds.iter().map(|&(p, s)| (p.into(), s)).collect(),
                })
                .collect(),
            failures,
            failures_left_out,
            problems,
            bounds_exceeded,
            failure_count,
            digest: digest.finish(),
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// Minimize the failures found, smallest input first: first one of
    /// each (implementation, symptom), each within `shrink_seconds`, all
    /// within `shrink_total_seconds`; then the others while the first
    /// `shrink_seconds` of the minimizing last (a bug that fails thousands
    /// of inputs is one minimized reproducer, not thousands). The report
    /// lists them smallest reproducer first.
    fn minimise_all(
        &self,
        mut found: Vec<Found<S::Input>>,
        categories: &[Category<S::Input>],
        impls: &[&Implementation<S>],
        options: &RunOptions,
    ) -> Vec<Failure> {
        found.sort_by_key(|f| (canonical_size(&f.case), f.category_order, f.index, f.sub_index));
        let symptoms: Vec<(String, String)> = found.iter().map(|f| symptom(&f.mismatch)).collect();
        let mut seen = std::collections::HashSet::new();
        let first_of_symptom: Vec<bool> = found
            .iter()
            .zip(&symptoms)
            .map(|(f, s)| seen.insert((f.implementation, s.0.clone())))
            .collect();
        let order = (0..found.len())
            .filter(|&n| first_of_symptom[n])
            .chain((0..found.len()).filter(|&n| !first_of_symptom[n]));
        let per_failure = Duration::from_secs_f64(options.shrink_seconds.max(0.0));
        let started = Instant::now();
        let all_done = started + Duration::from_secs_f64(options.shrink_total_seconds.max(0.0));
        let others_done = (started + per_failure).min(all_done);
        let mut minimised: Vec<Option<crate::minimise::Minimised<S::Input>>> = vec![None; found.len()];
        for n in order {
            let until = if first_of_symptom[n] { all_done } else { others_done };
            let now = Instant::now();
            if now >= until {
                continue;
            }
            let f = &found[n];
            let origin = crate::minimise::Origin {
                category: &categories[f.category_order],
                rng: case_rng(options.seed, self.spec.name(), f.category, f.index),
                index: f.index,
                sub_index: f.sub_index,
            };
            minimised[n] = Some(minimise(
                &self.spec,
                &f.case,
                Some(origin),
                impls[f.implementation],
                &self.allowed,
                options.shrink_budget,
                (now + per_failure).min(until),
            ));
        }
        let mut failures: Vec<Failure> = found
            .into_iter()
            .zip(minimised)
            .zip(symptoms)
            .map(|((f, small), (symptom, original_difference))| {
                let imp = impls[f.implementation];
                let input_hex = hex_steps(&f.case);
                let minimized = small.is_some();
                let (small, small_mismatch) = small.unwrap_or_else(|| (f.case.clone(), Some(f.mismatch.clone())));
                let minimized_hex = hex_steps(&small);
                let difference = match &small_mismatch {
                    Some(m) => describe_mismatch(m),
                    None => format!(
                        "the reproducer does not fail on its own (the failure depends on earlier inputs to the same {}); the whole case: {original_difference}",
                        if imp.subject.is_some() { "subject process" } else { "decoder" }
                    ),
                };
                Failure {
                    family: self.spec.name().to_string(),
                    category: f.category.to_string(),
                    seed: options.seed,
                    index: f.index,
                    sub_index: f.sub_index,
                    implementation: imp.name.clone(),
                    step: f.mismatch.step,
                    expected: f.mismatch.expected.clone(),
                    got: f.mismatch.got.clone(),
                    buffer_faults: f.mismatch.buffer_faults.clone(),
                    input_hex,
                    minimized_expected: small_mismatch.as_ref().map(|m| m.expected.clone()).unwrap_or_default(),
                    minimized_got: small_mismatch.as_ref().map(Mismatch::got_with_faults).unwrap_or_default(),
                    minimized,
                    reproducer_bytes: canonical_size(&small),
                    // The reproducer's own symptom: minimizing may reach
                    // another failure mode of the same bug, and the group
                    // must name what its reproducer shows.
                    symptom: small_mismatch.as_ref().map_or(symptom, |m| self::symptom(m).0),
                    difference,
                    subject: imp.subject().map(|s| s.command().command.clone()),
                    role: imp.role,
                    replay_command: None,
                    replay_rust: rust_replay(&imp.name, &minimized_hex),
                    minimized_hex,
                }
            })
            .collect();
        failures.sort_by(|a, b| {
            (a.reproducer_bytes, &a.category, a.index, a.sub_index).cmp(&(
                b.reproducer_bytes,
                &b.category,
                b.index,
                b.sub_index,
            ))
        });
        failures
    }
}

/// Where a mismatch's outcomes first differ (or its buffer fault), for
/// people.
pub(crate) fn describe_mismatch(m: &Mismatch) -> String {
    symptom(m).1
}
