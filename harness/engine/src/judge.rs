//! Judging one case: the reference's outcome against each implementation's,
//! every step, with both canaries for kernels.
//!
//! "Equal" means the same decoded values, the same bytes consumed, or the
//! same error kind at the same position; and no caller buffer changed outside
//! the range the call wrote. A panic is a failure. A peer's difference is
//! tolerated only when one of the allowed-difference rules explains it; any
//! implementation's, kernels' included, when the spec's own documented
//! promise does ([`Spec::promised_difference`]).

use std::fmt::Debug;

use crate::buffers::{BufferFault, Buffers};
use crate::campaign::{AllowedDifference, Implementation, Role};
use crate::panic::guarded;
use crate::spec::{Case, Outcome, Spec};
use crate::subject::Answer;
use crate::Canonical;

/// The two canary bytes; every kernel decodes each case once with each, so a
/// write outside the written range cannot hide behind a lucky fill value.
pub const CANARIES: [u8; 2] = [0xA5, 0x5A];

/// One step where an implementation and the reference disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// The step of the case.
    pub step: usize,
    /// The reference's outcome (for people, not for digests).
    pub expected: String,
    /// The implementation's outcome, or its panic.
    pub got: String,
    /// What the call did to caller buffers outside its range.
    pub buffer_faults: Vec<BufferFault>,
}

impl Mismatch {
    /// `got`, followed by the buffer faults if there are any.
    pub fn got_with_faults(&self) -> String {
        if self.buffer_faults.is_empty() {
            return self.got.clone();
        }
        let faults: Vec<String> = self.buffer_faults.iter().map(ToString::to_string).collect();
        format!("{} (buffer faults: {})", self.got, faults.join("; "))
    }
}

/// What one implementation did with one case.
pub(crate) struct Verdict {
    /// Decode calls compared.
    pub compared: u64,
    /// Tolerated differences, by rule id.
    pub tolerated: Vec<&'static str>,
    /// Inputs an external subject said it does not handle (not compared).
    pub unsupported: u64,
    /// Inputs not sent to a subject declared broken (not compared).
    pub not_asked: u64,
    /// The first mismatch, if any (later steps would only repeat it).
    pub mismatch: Option<Mismatch>,
}

/// The reference's outcome of each step, a panic as its message.
pub(crate) fn expected_outcomes<S: Spec>(spec: &S, case: &Case<S::Input>) -> Vec<Result<Outcome<S>, String>> {
    case.steps.iter().map(|s| guarded(|| spec.reference(s))).collect()
}

fn describe<T: Debug>(r: &Result<T, String>) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => e.clone(),
    }
}

/// Run `imp` over the case (kernels: once per canary) and judge every step.
/// An external subject is asked for the case's steps in one batch.
pub(crate) fn judge<S: Spec>(
    spec: &S,
    case: &Case<S::Input>,
    expected: &[Result<Outcome<S>, String>],
    imp: &Implementation<S>,
    allowed: &[AllowedDifference<S>],
) -> Verdict {
    judge_with(spec, case, expected, imp, allowed, None)
}

/// [`judge`], with an external subject's answers for the case's steps
/// already fetched (a campaign asks for many cases' steps at once).
pub(crate) fn judge_with<S: Spec>(
    spec: &S,
    case: &Case<S::Input>,
    expected: &[Result<Outcome<S>, String>],
    imp: &Implementation<S>,
    allowed: &[AllowedDifference<S>],
    answers: Option<Vec<Answer<S>>>,
) -> Verdict {
    let mut verdict = Verdict {
        compared: 0,
        tolerated: Vec::new(),
        unsupported: 0,
        not_asked: 0,
        mismatch: None,
    };
    if let Some(subject) = imp.subject() {
        let answers = answers.unwrap_or_else(|| {
            let inputs: Vec<Vec<u8>> = case.steps.iter().map(Canonical::to_canonical).collect();
            let family = subject.family().to_string();
            subject
                .exchange(&inputs)
                .into_iter()
                .map(|a| a.typed::<S>(&family))
                .collect()
        });
        for (step, (input, answer)) in case.steps.iter().zip(answers).enumerate() {
            let got = match answer {
                Answer::Unsupported(_) => {
                    verdict.unsupported += 1;
                    continue;
                }
                Answer::NotAsked(_) => {
                    verdict.not_asked += 1;
                    continue;
                }
                Answer::Outcome(outcome) => Ok(outcome),
                Answer::Failed(message) => Err(format!("SUBJECT FAILED: {message}")),
            };
            verdict.compared += 1;
            if let Err(m) = compare(
                spec,
                step,
                input,
                &expected[step],
                got,
                Vec::new(),
                imp,
                allowed,
                &mut verdict,
            ) {
                verdict.mismatch = Some(m);
                return verdict;
            }
        }
        return verdict;
    }
    let passes: &[u8] = if imp.role == Role::Kernel {
        &CANARIES
    } else {
        &CANARIES[..1]
    };
    for &canary in passes {
        let mut decoder = imp.decoder();
        let mut buffers = Buffers::new(canary);
        for (step, input) in case.steps.iter().enumerate() {
            verdict.compared += 1;
            let got = guarded(|| decoder.decode(input, &mut buffers));
            let faults = buffers.end_call();
            if let Err(m) = compare(
                spec,
                step,
                input,
                &expected[step],
                got,
                faults,
                imp,
                allowed,
                &mut verdict,
            ) {
                verdict.mismatch = Some(m);
                return verdict;
            }
        }
    }
    verdict
}

/// Compare one step's outcome (or panic) with the reference's: a
/// tolerated difference is noted in `verdict`, a mismatch returned.
#[allow(clippy::too_many_arguments)]
fn compare<S: Spec>(
    spec: &S,
    step: usize,
    input: &S::Input,
    exp: &Result<Outcome<S>, String>,
    got: Result<Outcome<S>, String>,
    faults: Vec<BufferFault>,
    imp: &Implementation<S>,
    allowed: &[AllowedDifference<S>],
    verdict: &mut Verdict,
) -> Result<(), Mismatch> {
    let mismatch = |got: String, buffer_faults: Vec<BufferFault>| Mismatch {
        step,
        expected: describe(exp),
        got,
        buffer_faults,
    };
    match (exp, got) {
        (Err(panic), _) => Err(mismatch(format!("(reference failed: {panic})"), faults)),
        (_, Err(panic)) => Err(mismatch(panic, faults)),
        (Ok(_), Ok(g)) if !faults.is_empty() => Err(mismatch(format!("{g:?}"), faults)),
        (Ok(e), Ok(g)) if *e == g => Ok(()),
        (Ok(e), Ok(g)) => match spec
            .promised_difference(input, e, &g)
            .or_else(|| tolerating_rule(input, e, &g, imp, allowed))
        {
            Some(id) => {
                verdict.tolerated.push(id);
                Ok(())
            }
            None => Err(mismatch(format!("{g:?}"), faults)),
        },
    }
}

/// The first rule that explains a peer's difference; kernels have none.
fn tolerating_rule<S: Spec>(
    input: &S::Input,
    expected: &Outcome<S>,
    got: &Outcome<S>,
    imp: &Implementation<S>,
    allowed: &[AllowedDifference<S>],
) -> Option<&'static str> {
    if imp.role != Role::Peer {
        return None;
    }
    allowed
        .iter()
        .find(|rule| rule.implementation == imp.name && (rule.applies)(input, expected, got))
        .map(|rule| rule.id)
}

/// The first mismatch of `imp` on `case`, if any, the reference decoding
/// the case for this one implementation (as minimizing needs).
pub(crate) fn first_mismatch<S: Spec>(
    spec: &S,
    case: &Case<S::Input>,
    imp: &Implementation<S>,
    allowed: &[AllowedDifference<S>],
) -> Option<Mismatch> {
    let expected = expected_outcomes(spec, case);
    judge(spec, case, &expected, imp, allowed).mismatch
}
