//! Reference decoders and encoders for the formats crossdec verifies.
//!
//! Every decoder here is written from the byte-exact format notes, one bit or
//! one character at a time, with no attempt at speed. They are the oracle the
//! optimized kernels are held against, so they must stay obvious: no word
//! buffers, no tables, no `unsafe`, and no dependency on the kernels crate.

#![forbid(unsafe_code)]
// docs.rs (`--cfg docsrs`, Cargo.toml) labels each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The README's examples run as doctests, so the crate's front page cannot
// show code that no longer compiles (they use the `bytea` family).
#[cfg(all(doctest, feature = "bytea"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "bytea")]
pub mod bytea;
#[cfg(feature = "cube")]
pub mod cube;
#[cfg(feature = "qwp")]
pub mod qwp;
#[cfg(feature = "tsfile")]
pub mod tsfile;
