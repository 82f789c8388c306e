//! [`Family`]: a campaign with its types erased, so a registry, a command
//! line or a fuzz target can hold campaigns of different specs.

use crate::buffers::Buffers;
use crate::campaign::{Campaign, Role};
use crate::canonical::Canonical;
use crate::judge::{expected_outcomes, judge};
use crate::report::FamilyReport;
use crate::run::RunOptions;
use crate::spec::{case_rng, Case, Spec};
use crate::subject::SubjectCommand;

/// A registered implementation as a family lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImplementationInfo {
    /// Its name.
    pub name: String,
    /// Kernel or peer.
    pub role: Role,
    /// Whether this host can run it.
    pub available: bool,
}

/// What [`Family::check_steps`] found for one implementation.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckVerdict {
    /// The same outcome as the reference on every step (differences an
    /// allowed-difference rule explains are named).
    Agrees {
        /// Tolerated differences, by rule id.
        tolerated: Vec<String>,
    },
    /// A step where it disagrees.
    Differs {
        /// The step.
        step: usize,
        /// Its outcome there (or its panic, its subject's failure), buffer
        /// faults included.
        got: String,
        /// Where it first differs from the reference's, with the elements
        /// around it.
        difference: String,
    },
    /// It compared nothing: a subject that answered "unsupported" (or was
    /// not asked) on every step.
    NotCompared {
        /// Why.
        reason: String,
    },
    /// This host cannot run it.
    Unavailable,
}

/// One implementation's line in a check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedImplementation {
    /// Its name.
    pub name: String,
    /// Kernel or peer.
    pub role: Role,
    /// What it did.
    pub verdict: CheckVerdict,
}

/// [`Family::check_steps`]'s answer.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// The reference's outcome of each step (`Debug`).
    pub reference: Vec<String>,
    /// Each implementation checked.
    pub implementations: Vec<CheckedImplementation>,
}

impl CheckReport {
    /// Whether every implementation checked compared every step and agreed.
    pub fn agrees(&self) -> bool {
        !self.implementations.is_empty()
            && self
                .implementations
                .iter()
                .all(|i| matches!(i.verdict, CheckVerdict::Agrees { .. }))
    }
}

/// Bytes from hex text (upper or lower case; white space around it is
/// ignored), or what is wrong with it and where: the character, its
/// position and why.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim();
    let lead = text.len() - text.trim_start().len();
    if let Some((at, c)) = trimmed.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(format!(
            "not hex: {c:?} at position {} (hex digits are 0-9, a-f, A-F)",
            lead + at
        ));
    }
    if trimmed.len() % 2 == 1 {
        return Err(format!(
            "not hex: an odd number of digits ({}); the last digit, at position {}, has no pair",
            trimmed.len(),
            lead + trimmed.len() - 1
        ));
    }
    Ok(hex::decode(trimmed).expect("checked: an even number of hex digits"))
}

/// A reproducer's steps from hex: one canonical input per step.
pub fn steps_from_hex(steps: &[&str]) -> Result<Vec<Vec<u8>>, String> {
    steps
        .iter()
        .enumerate()
        .map(|(k, text)| parse_hex(text).map_err(|e| if steps.len() == 1 { e } else { format!("step {k}: {e}") }))
        .collect()
}

/// Generated inputs and one implementation that decodes them, for
/// benchmarks: [`run`](Workload::run) decodes every input once, through the
/// same adapter and buffers a campaign uses (so the time includes the
/// canary fill and the outcome's copy, for kernels and reference alike).
pub struct Workload<'a> {
    /// Inputs decoded per run.
    pub inputs: usize,
    /// Their total size in canonical bytes (for a throughput figure).
    pub bytes: u64,
    run: Box<dyn FnMut() + 'a>,
}

impl Workload<'_> {
    /// Decode every input once.
    pub fn run(&mut self) {
        (self.run)()
    }
}

/// A campaign behind a trait object.
pub trait Family: Send + Sync {
    /// The family's name.
    fn name(&self) -> &'static str;
    /// Its categories, in run order.
    fn category_names(&self) -> Vec<&'static str>;
    /// Its categories' names and scales (generator calls per
    /// [`RunOptions::cases`]), in run order: the weights a time budget
    /// spreads by.
    fn category_scales(&self) -> Vec<(&'static str, f64)>;
    /// Every registered implementation.
    fn implementation_list(&self) -> Vec<ImplementationInfo>;
    /// Run the campaign.
    fn run(&self, options: &RunOptions) -> FamilyReport;
    /// Register an external subject (`docs/reference/subjects.md`) as one more
    /// implementation: every later run, check and replay includes it.
    fn add_subject(&mut self, command: SubjectCommand);
    /// The reference's outcome for one canonical input, as the canonical
    /// bytes of the `Result` (tag 0 and the output, or tag 1 and the error:
    /// exactly a subject's status byte and body). `None` if the bytes are
    /// not an input of this family.
    fn reference_outcome(&self, bytes: &[u8]) -> Option<Vec<u8>>;
    /// Check one canonical input (a reproducer) exactly as given against
    /// every available kernel (and peer, when `peers`). `None` if the bytes
    /// are not an input of this family; otherwise one line per disagreement.
    fn check_bytes(&self, bytes: &[u8], peers: bool) -> Option<Vec<String>>;
    /// Check a case given as canonical inputs (its steps, decoded in order
    /// by one decoder instance) against the implementations named in
    /// `implementations` (every available kernel, peer when `peers`, and
    /// external subject when empty). `Err` when a step is not an input of
    /// this family or a name is not one of its implementations.
    fn check_steps(&self, steps: &[Vec<u8>], implementations: &[String], peers: bool) -> Result<CheckReport, String>;
    /// Replay a reproducer (each step's canonical input as hex) on the
    /// implementation `implementation`: `Ok` if it agrees with the
    /// reference on the whole case, else `Err` with the difference. This is
    /// the one-line Rust call a report prints beside each reproducer.
    fn replay_hex(&self, implementation: &str, steps: &[&str]) -> Result<(), String>;
    /// Check one canonical input as a raw fuzz target does: like
    /// [`check_bytes`](Family::check_bytes), after
    /// [`Spec::cap_for_fuzzing`].
    #[cfg(feature = "fuzz")]
    fn check_fuzz_bytes(&self, bytes: &[u8], peers: bool) -> Option<Vec<String>>;
    /// Check the case [`Spec::arbitrary_case`] builds from fuzzer bytes,
    /// every step after [`Spec::cap_for_fuzzing`]. `None` if the bytes are
    /// too short to build one.
    #[cfg(feature = "fuzz")]
    fn check_structured(&self, data: &[u8], peers: bool) -> Option<Vec<String>>;
    /// Canonical bytes of every step of the generated cases, named
    /// `category-index-case-step`, for seed corpora.
    fn corpus(&self, cases: u64, seed: u64) -> Vec<(String, Vec<u8>)>;
    /// The inputs of the categories `keep` accepts (`cases` calls each, from
    /// `seed`), decoded by the implementation `name` (`"reference"` for the
    /// reference). `None` if no available implementation has that name.
    fn workload(&self, name: &str, cases: u64, seed: u64, keep: &dyn Fn(&str) -> bool) -> Option<Workload<'_>>;
}

impl<S: Spec> Campaign<S> {
    /// Every available kernel (and peer, when `peers`; and every external
    /// subject, which was registered to be asked) on `case`: one line per
    /// disagreement. The reference decodes each step once, whatever the
    /// number of implementations.
    pub fn check(&self, case: &Case<S::Input>, peers: bool) -> Vec<String> {
        let expected = expected_outcomes(&self.spec, case);
        self.implementations
            .iter()
            .filter(|i| i.available && (peers || i.role == Role::Kernel || i.subject.is_some()))
            .filter_map(|imp| {
                judge(&self.spec, case, &expected, imp, &self.allowed)
                    .mismatch
                    .map(|m| {
                        format!(
                            "{}: step {}: expected {} got {}",
                            imp.name,
                            m.step,
                            m.expected,
                            m.got_with_faults()
                        )
                    })
            })
            .collect()
    }
}

impl<S: Spec> Campaign<S> {
    /// Replay a reproducer, each step's canonical input as hex (as a report
    /// prints it), on the implementation named `implementation`: `Ok` if it
    /// agrees with the reference on every step, else `Err` saying where it
    /// differs (or why the case could not be replayed). A report prints
    /// this call beside each reproducer, ready for a regression test:
    ///
    /// ```text
    /// campaign.replay_hex("rle/fast", &["0a0b0c"]).unwrap();
    /// ```
    pub fn replay_hex(&self, implementation: &str, steps: &[&str]) -> Result<(), String> {
        let bytes = steps_from_hex(steps)?;
        let report = self.check_steps(&bytes, &[implementation.to_string()], true)?;
        let checked = &report.implementations[0];
        match &checked.verdict {
            CheckVerdict::Agrees { .. } => Ok(()),
            CheckVerdict::Differs {
                step, got, difference, ..
            } => Err(format!(
                "{implementation} disagrees with the reference at step {step}: {difference}\n  expected: {}\n  got:      {got}",
                report.reference[*step]
            )),
            CheckVerdict::NotCompared { reason } => Err(format!("{implementation} compared nothing: {reason}")),
            CheckVerdict::Unavailable => Err(format!("{implementation} cannot run on this host")),
        }
    }

    fn check_steps_impl(
        &self,
        steps: &[Vec<u8>],
        implementations: &[String],
        peers: bool,
    ) -> Result<CheckReport, String> {
        let name = self.spec.name();
        let inputs = steps
            .iter()
            .enumerate()
            .map(|(k, b)| {
                self.spec.parse(b).ok_or_else(|| {
                    let which = if steps.len() == 1 {
                        String::new()
                    } else {
                        format!("step {k}: ")
                    };
                    format!("{which}{} bytes that are not a canonical input of {name}", b.len())
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if inputs.is_empty() {
            return Err("no input to check".into());
        }
        for wanted in implementations {
            if !self.implementations.iter().any(|i| &i.name == wanted) {
                let known: Vec<&str> = self.implementations.iter().map(|i| i.name.as_str()).collect();
                return Err(format!(
                    "{name} has no implementation {wanted}; it has: {}",
                    known.join(", ")
                ));
            }
        }
        let case = Case { steps: inputs };
        let expected = expected_outcomes(&self.spec, &case);
        let reference = expected
            .iter()
            .map(|e| match e {
                Ok(outcome) => format!("{outcome:?}"),
                Err(panic) => format!("(the reference failed: {panic})"),
            })
            .collect();
        let chosen = self.implementations.iter().filter(|i| {
            if implementations.is_empty() {
                i.available && (peers || i.role == Role::Kernel || i.subject.is_some())
            } else {
                implementations.contains(&i.name)
            }
        });
        let implementations = chosen
            .map(|imp| {
                let verdict = if !imp.available {
                    CheckVerdict::Unavailable
                } else {
                    let v = judge(&self.spec, &case, &expected, imp, &self.allowed);
                    match v.mismatch {
                        Some(m) => CheckVerdict::Differs {
                            step: m.step,
                            got: m.got_with_faults(),
                            difference: crate::run::describe_mismatch(&m),
                        },
                        None if v.compared == 0 => CheckVerdict::NotCompared {
                            reason: if v.not_asked > 0 {
                                "the subject was broken".into()
                            } else {
                                format!("it answered \"unsupported\" to all {} step(s)", v.unsupported)
                            },
                        },
                        None => CheckVerdict::Agrees {
                            tolerated: v.tolerated.iter().map(|t| t.to_string()).collect(),
                        },
                    }
                };
                CheckedImplementation {
                    name: imp.name.clone(),
                    role: imp.role,
                    verdict,
                }
            })
            .collect();
        Ok(CheckReport {
            reference,
            implementations,
        })
    }
}

impl<S: Spec> Family for Campaign<S> {
    fn name(&self) -> &'static str {
        self.spec.name()
    }

    fn category_names(&self) -> Vec<&'static str> {
        self.spec.categories().iter().map(|c| c.name).collect()
    }

    fn category_scales(&self) -> Vec<(&'static str, f64)> {
        self.spec.categories().iter().map(|c| (c.name, c.scale)).collect()
    }

    fn implementation_list(&self) -> Vec<ImplementationInfo> {
        self.implementations
            .iter()
            .map(|i| ImplementationInfo {
                name: i.name.clone(),
                role: i.role,
                available: i.available,
            })
            .collect()
    }

    fn run(&self, options: &RunOptions) -> FamilyReport {
        Campaign::run(self, options)
    }

    fn reference_outcome(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let input = self.spec.parse(bytes)?;
        Some(self.spec.reference(&input).to_canonical())
    }

    fn add_subject(&mut self, command: SubjectCommand) {
        let family = self.spec.name();
        self.implementations
            .push(crate::Implementation::external(command, family));
    }

    fn check_steps(&self, steps: &[Vec<u8>], implementations: &[String], peers: bool) -> Result<CheckReport, String> {
        self.check_steps_impl(steps, implementations, peers)
    }

    fn replay_hex(&self, implementation: &str, steps: &[&str]) -> Result<(), String> {
        Campaign::replay_hex(self, implementation, steps)
    }

    fn check_bytes(&self, bytes: &[u8], peers: bool) -> Option<Vec<String>> {
        let input = self.spec.parse(bytes)?;
        Some(self.check(&Case::one(input), peers))
    }

    #[cfg(feature = "fuzz")]
    fn check_fuzz_bytes(&self, bytes: &[u8], peers: bool) -> Option<Vec<String>> {
        let mut input = self.spec.parse(bytes)?;
        self.spec.cap_for_fuzzing(&mut input);
        Some(self.check(&Case::one(input), peers))
    }

    #[cfg(feature = "fuzz")]
    fn check_structured(&self, data: &[u8], peers: bool) -> Option<Vec<String>> {
        let mut u = arbitrary::Unstructured::new(data);
        let mut case = self.spec.arbitrary_case(&mut u).ok()?;
        for step in &mut case.steps {
            self.spec.cap_for_fuzzing(step);
        }
        Some(self.check(&case, peers))
    }

    fn workload(&self, name: &str, cases: u64, seed: u64, keep: &dyn Fn(&str) -> bool) -> Option<Workload<'_>> {
        let mut inputs = Vec::new();
        for category in self.spec.categories().into_iter().filter(|c| keep(c.name)) {
            for index in 0..category.calls(cases) {
                let generated = category.generate(index, &mut case_rng(seed, self.spec.name(), category.name, index));
                inputs.extend(generated.into_iter().flat_map(|case| case.steps));
            }
        }
        let bytes = inputs.iter().map(|input| input.to_canonical().len() as u64).sum();
        let count = inputs.len();
        let run: Box<dyn FnMut() + '_> = if name == "reference" {
            Box::new(move || {
                for input in &inputs {
                    let _ = std::hint::black_box(self.spec.reference(input));
                }
            })
        } else {
            let implementation = self.implementations.iter().find(|i| i.name == name && i.available)?;
            let mut decoder = implementation.decoder();
            let mut buffers = Buffers::new(crate::CANARIES[0]);
            Box::new(move || {
                for input in &inputs {
                    let _ = std::hint::black_box(decoder.decode(input, &mut buffers));
                    buffers.end_call();
                }
            })
        };
        Some(Workload {
            inputs: count,
            bytes,
            run,
        })
    }

    fn corpus(&self, cases: u64, seed: u64) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for category in self.spec.categories() {
            for index in 0..category.calls(cases) {
                let generated = category.generate(index, &mut case_rng(seed, self.spec.name(), category.name, index));
                for (sub, case) in generated.iter().enumerate() {
                    for (step, input) in case.steps.iter().enumerate() {
                        out.push((format!("{}-{index}-{sub}-{step}", category.name), input.to_canonical()));
                    }
                }
            }
        }
        out
    }
}
