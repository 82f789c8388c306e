//! Running a campaign: every selected category's cases against every
//! selected, available implementation.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use crate::campaign::{Campaign, Implementation};
use crate::canonical::Canonical;
use crate::digest::{case_digest, FamilyDigest, Sha};
use crate::judge::{expected_outcomes, judge_with, Mismatch};
use crate::minimise::minimise;
use crate::report::{
    AllowedDifferenceReport, BoundExceeded, CategoryReport, Failure, FamilyReport, ImplementationReport,
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
    /// Stop minimizing after this many re-runs per failure.
    pub shrink_budget: usize,
    /// Keep (and minimize) at most this many failures in the report.
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
            max_failures: 20,
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
            .field("max_failures", &self.max_failures)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// One case's results.
struct CaseResult {
    digest: Sha,
    steps: u64,
    /// Per implementation: (compared, failed, tolerated rule ids,
    /// unsupported).
    per_impl: Vec<(u64, bool, Vec<&'static str>, u64)>,
    /// (implementation index, mismatch).
    failures: Vec<(usize, Mismatch)>,
}

/// One generator call: its index, its cases' results, and its cases when one
/// of them failed (kept for minimizing).
type CallResult<I> = (u64, Vec<CaseResult>, Vec<Case<I>>);

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
        result
            .per_impl
            .push((verdict.compared, failed, verdict.tolerated, verdict.unsupported));
    }
    result
}

fn hex_steps<I: Canonical>(case: &Case<I>) -> Vec<String> {
    case.steps.iter().map(|s| hex::encode(s.to_canonical())).collect()
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
                        .exchange(&inputs)
                        .into_iter()
                        .map(|a| a.typed::<S>(family))
                        .collect(),
                )
            })
            .collect()
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
        let mut stats: Vec<(u64, u64, BTreeMap<String, u64>, u64)> = vec![(0, 0, BTreeMap::new(), 0); impls.len()];
        let mut failures = Vec::new();
        let mut bounds_exceeded = Vec::new();
        let mut failure_count = 0;

        for category in &categories {
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
                let generated: Vec<(u64, Vec<Case<S::Input>>)> = (b * batch..((b + 1) * batch).min(calls))
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
                        let keep = if results.iter().any(|r| !r.failures.is_empty()) {
                            cases
                        } else {
                            Vec::new()
                        };
                        if let Some(p) = &options.progress {
                            p.advance();
                        }
                        (index, results, keep)
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
            // This category's share of `stats`: (compared, tolerated by rule).
            let mut here: Vec<(u64, BTreeMap<&str, u64>)> = vec![(0, BTreeMap::new()); impls.len()];
            for (index, results, kept) in results {
                for (sub_index, r) in results.iter().enumerate() {
                    report.cases += 1;
                    report.steps += r.steps;
                    digest.case(&r.digest);
                    for (k, (compared, failed, tolerated, unsupported)) in r.per_impl.iter().enumerate() {
                        stats[k].0 += compared;
                        stats[k].1 += u64::from(*failed);
                        stats[k].3 += unsupported;
                        here[k].0 += compared;
                        for id in tolerated {
                            *stats[k].2.entry(id.to_string()).or_default() += 1;
                            *here[k].1.entry(id).or_default() += 1;
                            *report.tolerated.entry(id.to_string()).or_default() += 1;
                        }
                    }
                    for (k, mismatch) in &r.failures {
                        report.failures += 1;
                        failure_count += 1;
                        if failures.len() >= options.max_failures {
                            continue;
                        }
                        let case = &kept[sub_index];
                        let (small, small_mismatch) =
                            minimise(&self.spec, case, impls[*k], &self.allowed, options.shrink_budget);
                        failures.push(Failure {
                            family: name.to_string(),
                            category: category.name.to_string(),
                            seed: options.seed,
                            index,
                            sub_index,
                            implementation: impls[*k].name.clone(),
                            step: mismatch.step,
                            expected: mismatch.expected.clone(),
                            got: mismatch.got.clone(),
                            buffer_faults: mismatch.buffer_faults.clone(),
                            input_hex: hex_steps(case),
                            minimized_hex: hex_steps(&small),
                            minimized_expected: small_mismatch.as_ref().map(|m| m.expected.clone()).unwrap_or_default(),
                            minimized_got: small_mismatch.map(|m| m.got_with_faults()).unwrap_or_default(),
                        });
                    }
                }
            }
            for rule in &self.allowed {
                let Some(k) = impls.iter().position(|i| i.name == rule.implementation) else {
                    continue;
                };
                let (compared, tolerated) = (here[k].0, here[k].1.get(rule.id).copied().unwrap_or(0));
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
            report.digest = digest.end_category();
            report.seconds = category_started.elapsed().as_secs_f64();
            category_reports.push(report);
        }
        if let Some(p) = &options.progress {
            p.finish();
        }

        let implementations = self
            .implementations
            .iter()
            .map(|i| {
                let position = impls.iter().position(|r| r.name == i.name);
                let (compared, failures, tolerated, unsupported) =
                    position.map(|k| stats[k].clone()).unwrap_or_default();
                ImplementationReport {
                    name: i.name.clone(),
                    role: i.role,
                    available: i.available,
                    ran: position.is_some(),
                    compared,
                    failures,
                    tolerated,
                    unsupported,
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
            bounds_exceeded,
            failure_count,
            digest: digest.finish(),
            seconds: started.elapsed().as_secs_f64(),
        }
    }
}
