//! Every family crossdec knows. A new family adds a module here and one line
//! in [`all`].

use crate::engine::{AnyFamily, Erased};

pub mod qwp;

/// Every family, in the order `crossdec run` runs them.
pub fn all() -> Vec<Box<dyn AnyFamily>> {
    vec![Box::new(Erased(qwp::QwpTimestamps))]
}

/// The family called `name`.
pub fn by_name(name: &str) -> Option<Box<dyn AnyFamily>> {
    all().into_iter().find(|f| f.name() == name)
}
