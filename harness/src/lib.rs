//! crossdec's differential harness: the generic engine ([`engine`]), the
//! families it knows ([`families`]), run reports and manifests ([`report`]),
//! and the cross-architecture gate ([`gate`]).

pub mod canary;
pub mod engine;
pub mod families;
pub mod fuzzing;
pub mod gate;
pub mod report;

pub use engine::{
    AllowedDifference, AnyFamily, Case, CaseRng, Category, Decoded, Decoder, Erased, Family, FamilyReport,
    Implementation, Outcome, Role, RunOptions,
};

/// The target triple this binary was built for.
pub const TARGET: &str = env!("CROSSDEC_TARGET");
