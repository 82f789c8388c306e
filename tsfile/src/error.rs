//! What can go wrong reading a file, always with the byte offset in the file
//! where it did.

use std::fmt;

use crate::decode::PageFault;
use crate::types::{Compression, DataType, Encoding};

/// Why a file, a chunk or a page could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    /// The input could not be read (`kind` and message of the I/O error).
    Io {
        offset: u64,
        kind: std::io::ErrorKind,
        message: String,
    },
    /// The file does not start (or end) with `TsFile`.
    BadMagic { offset: u64 },
    /// A format version this reader does not know.
    UnsupportedVersion { version: u8 },
    /// `what` runs past the end of the bytes that hold it.
    Truncated { what: &'static str, offset: u64 },
    /// A value that cannot be right: a negative length, a count larger than
    /// the bytes left, an inconsistent page.
    Malformed { what: String, offset: u64 },
    /// A byte where a chunk group, chunk or separator marker belongs.
    UnknownMarker { marker: u8, offset: u64 },
    /// An id the format defines (or not) that this reader cannot read.
    Unsupported { what: &'static str, value: u8, offset: u64 },
    /// A page or count above a configurable limit: raise `limit` in
    /// [`crate::Limits`] to read it.
    LimitExceeded {
        limit: &'static str,
        value: u64,
        max: u64,
        offset: u64,
    },
    /// The compressed page body does not decompress to its header's size.
    Decompress {
        compression: Compression,
        offset: u64,
        message: String,
    },
    /// A page body that its decoder refused.
    Decode {
        column: Column,
        encoding: Encoding,
        data_type: DataType,
        /// Offset of the page header in the file.
        page_offset: u64,
        fault: PageFault,
    },
}

/// Which part of a page failed to decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Time,
    Value,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { offset, message, .. } => write!(f, "read error at byte {offset}: {message}"),
            ReadError::BadMagic { offset } => write!(f, "not a TsFile: no `TsFile` magic at byte {offset}"),
            ReadError::UnsupportedVersion { version } => {
                write!(f, "TsFile version {version} is not supported (3 and 4 are)")
            }
            ReadError::Truncated { what, offset } => write!(f, "{what} at byte {offset} runs past the end of its data"),
            ReadError::Malformed { what, offset } => write!(f, "{what} (at byte {offset})"),
            ReadError::UnknownMarker { marker, offset } => write!(f, "unknown marker 0x{marker:02x} at byte {offset}"),
            ReadError::Unsupported { what, value, offset } => {
                write!(f, "unsupported {what} {value} at byte {offset}")
            }
            ReadError::LimitExceeded {
                limit,
                value,
                max,
                offset,
            } => write!(
                f,
                "{value} is above the limit {limit} = {max} (at byte {offset}); raise Limits::{limit} to read this file"
            ),
            ReadError::Decompress {
                compression,
                offset,
                message,
            } => write!(f, "{compression} page at byte {offset} does not decompress: {message}"),
            ReadError::Decode {
                column,
                encoding,
                data_type,
                page_offset,
                fault,
            } => write!(
                f,
                "{} page at byte {page_offset} ({encoding} {data_type}): {fault}",
                match column {
                    Column::Time => "time",
                    Column::Value => "value",
                }
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    pub(crate) fn io(offset: u64, e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            return ReadError::Truncated { what: "file", offset };
        }
        ReadError::Io {
            offset,
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}
