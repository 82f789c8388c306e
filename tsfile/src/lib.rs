//! A streaming reader for Apache TsFile files.
//!
//! [`TsFileReader`] opens a file from a path or any `Read + Seek`, reads
//! its tail (the metadata index: devices, series, chunk offsets, table
//! schemas) and streams its chunk groups, chunks and pages one chunk in
//! memory at a time. Pages are decompressed (every compression the official
//! writers offer) and decoded by a [`PageDecoder`]: crossdec's kernels,
//! its reference decoders (every encoding the official writers write), or
//! [`Fastest`], a kernel where one exists and the reference otherwise.
//! [`ColumnChunk`] holds a series chunk's times and values, nulls included,
//! and turns them into Arrow arrays. A chunk that cannot be decoded (an
//! unknown encoding, a corrupt page) is reported as [`Item::Skipped`] and
//! the rest of the file is still read. How much one page may make the
//! reader allocate is set by [`Limits`].
//!
//! ```no_run
//! use crossdec_tsfile::{Fastest, Item, TsFileReader};
//!
//! let mut reader = TsFileReader::open("data.tsfile")?;
//! if let Ok(meta) = reader.metadata() {
//!     for (device, series) in &meta.devices {
//!         println!("{device}: {} series", series.len());
//!     }
//! }
//! for item in reader.columns(Fastest::default()) {
//!     match item? {
//!         Item::Column(c) => println!("{}.{}: {} rows", c.device, c.measurement, c.times.len()),
//!         Item::Skipped(s) => eprintln!("skipped {}.{}: {}", s.device, s.measurement, s.reason),
//!     }
//! }
//! # Ok::<(), crossdec_tsfile::ReadError>(())
//! ```

// The README's examples run as doctests, so the crate's front page cannot
// show code that no longer compiles.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod aligned;
pub mod chunk;
mod columns;
mod compression;
mod cursor;
pub mod decode;
mod error;
pub mod filter;
mod limits;
pub mod metadata;
mod reader;
pub mod types;
#[cfg(feature = "verify")]
pub mod verify;
#[cfg(feature = "verify")]
pub mod verify_queries;

pub use aligned::{AlignedColumn, AlignedDevice, AlignedGroup, Codecs, DeviceScan, DeviceStats, GroupLocation};
pub use chunk::{ChunkHeader, ChunkKind, Page, PageBody, PageStatistics};
pub use columns::{ColumnChunk, Columns, Item, SkippedChunk};
pub use compression::decompress;
pub use decode::{Count, Decoded, EncodedPage, Fastest, Kernels, PageDecoder, PageFault, Reference, Values, Writer};
pub use error::{Column, ReadError};
pub use filter::{Filter, FilterError};
pub use limits::Limits;
pub use metadata::{DeviceId, FileMetadata, SeriesIndex};
pub use reader::{RawChunk, ReadOptions, TsFileReader};
pub use types::{Compression, DataType, Encoding, Physical};
