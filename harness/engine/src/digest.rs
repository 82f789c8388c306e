//! Digests over canonical bytes: what proves two runs on different
//! architectures saw the same cases and the same reference outcomes.
//!
//! A case's digest is SHA-256 over each step's canonical input and the
//! reference's canonical outcome (a reference panic as tag 2 and its
//! message), each prefixed by its length as a little-endian `u64`. A
//! category's digest is SHA-256 over its name and its cases' digests in
//! order; a family's runs the same over every category, then the case count.

use sha2::{Digest, Sha256};

use crate::canonical::Canonical;
use crate::spec::{Case, Outcome, Spec};

/// A finished SHA-256 digest.
pub type Sha = [u8; 32];

/// The digest of one case.
pub(crate) fn case_digest<S: Spec>(case: &Case<S::Input>, expected: &[Result<Outcome<S>, String>]) -> Sha {
    let mut h = Sha256::new();
    let mut buf = Vec::new();
    for (input, outcome) in case.steps.iter().zip(expected) {
        buf.clear();
        input.encode(&mut buf);
        h.update((buf.len() as u64).to_le_bytes());
        h.update(&buf);
        buf.clear();
        match outcome {
            Ok(o) => o.encode(&mut buf),
            Err(panic) => {
                buf.push(2);
                panic.encode(&mut buf);
            }
        }
        h.update((buf.len() as u64).to_le_bytes());
        h.update(&buf);
    }
    h.finalize().into()
}

/// Accumulates a family's (and each category's) digest, in run order.
pub(crate) struct FamilyDigest {
    family: Sha256,
    category: Option<(Sha256, u64)>,
}

impl FamilyDigest {
    pub fn new(family: &str) -> Self {
        let mut h = Sha256::new();
        h.update(family.as_bytes());
        FamilyDigest {
            family: h,
            category: None,
        }
    }

    pub fn start_category(&mut self, name: &str) {
        for h in [&mut self.family, &mut self.category.insert((Sha256::new(), 0)).0] {
            h.update((name.len() as u64).to_le_bytes());
            h.update(name.as_bytes());
        }
    }

    pub fn case(&mut self, digest: &Sha) {
        self.family.update(digest);
        if let Some((h, n)) = &mut self.category {
            h.update(digest);
            *n += 1;
        }
    }

    /// The category's digest (hex).
    pub fn end_category(&mut self) -> String {
        let (mut h, cases) = self.category.take().expect("a category was started");
        self.family.update(cases.to_le_bytes());
        h.update(cases.to_le_bytes());
        hex::encode(h.finalize())
    }

    /// The family's digest (hex).
    pub fn finish(self) -> String {
        hex::encode(self.family.finalize())
    }
}
