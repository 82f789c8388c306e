//! crossdec's built-in families and the `crossdec` command. The engine they
//! plug into is the `crossdec-engine` crate, re-exported as [`engine`]; the
//! families are in [`families`], one [`Family`](engine::Family) each, listed
//! in [`families::all`], which the command, the tests, the fuzz targets and
//! the CI scripts all read.

pub use crossdec_engine as engine;
pub use crossdec_engine::{budget, changes, junit};
pub mod cli;
pub mod families;
pub mod fuzzing;
pub mod golden;
pub mod oracles;

/// The target triple this binary was built for.
pub const TARGET: &str = env!("CROSSDEC_TARGET");
