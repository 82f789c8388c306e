//! The `crossdec` commands that have a module of their own, as functions
//! (`Err` is bad input, which the command exits 2 on), so tests run them
//! in-process on every target.

pub mod app;
pub mod certify;
pub mod gate;
pub mod junit;
pub mod run;
pub mod stages;
pub mod subjects;
pub mod tsfile;
pub mod tsfile_scan;
