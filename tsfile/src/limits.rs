//! Limits on what one page may make the reader allocate. The defaults read
//! every page the official writers can write: both store page sizes in a
//! Java / C++ `int`, so a page never holds more than 2^31 - 1 bytes, and
//! the C++ writer counts a page's points in a `uint32`, so a page never
//! holds more than u32::MAX points (the official C++ reader reads a
//! table-model page of 134,218,728 rows written through Arrow). Lower
//! them to bound the memory one page may take (a page of u32::MAX INT64
//! values is 32 GiB). A file above a limit is refused with
//! [`crate::ReadError::LimitExceeded`] naming the limit to raise; the
//! aligned scans ([`crate::TsFileReader::scan_aligned`]) bound a page's
//! rows by `max_page_values` too.

/// See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest uncompressed page body, in bytes.
    pub max_page_bytes: u64,
    /// Most values (rows) one page may decode to (time or value column).
    pub max_page_values: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_page_bytes: i32::MAX as u64,
            max_page_values: u32::MAX as u64,
        }
    }
}

impl Limits {
    pub(crate) fn check(&self, limit: &'static str, value: u64, offset: u64) -> Result<(), crate::ReadError> {
        let max = match limit {
            "max_page_bytes" => self.max_page_bytes,
            "max_page_values" => self.max_page_values,
            other => unreachable!("no limit named {other}"),
        };
        if value > max {
            return Err(crate::ReadError::LimitExceeded {
                limit,
                value,
                max,
                offset,
            });
        }
        Ok(())
    }
}
