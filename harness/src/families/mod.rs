//! Every family crossdec knows. A new family adds a module here and one line
//! in [`all`].

use crate::engine::{AnyFamily, Erased};

pub mod bytea;
pub mod cube;
pub mod qwp;
pub mod tsfile;

/// Every family, in the order `crossdec run` runs them.
pub fn all() -> Vec<Box<dyn AnyFamily>> {
    let mut all: Vec<Box<dyn AnyFamily>> = vec![Box::new(Erased(qwp::QwpTimestamps)), Box::new(Erased(bytea::PgBytea))];
    all.extend(tsfile::Encoding::ALL.map(|e| Box::new(Erased(tsfile::TsFamily(e))) as Box<dyn AnyFamily>));
    all.push(Box::new(Erased(cube::CubeColumnar)));
    all
}

/// The family called `name`.
pub fn by_name(name: &str) -> Option<Box<dyn AnyFamily>> {
    all().into_iter().find(|f| f.name() == name)
}
