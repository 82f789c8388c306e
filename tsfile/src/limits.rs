//! Limits on what one page may make the reader allocate. The defaults read
//! every page the official writers can write: both store page sizes and
//! point counts in a Java / C++ `int`, so a page never holds more than
//! 2^31 - 1 bytes; points per page are bounded by what 2^27 values of
//! eight bytes take (1 GiB), far above the writers' default of 10,000 points
//! and any page size they allow. A file above a limit is refused with
//! [`crate::ReadError::LimitExceeded`] naming the limit to raise.

/// See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest uncompressed page body, in bytes.
    pub max_page_bytes: u64,
    /// Most values one page may decode to (time or value column).
    pub max_page_values: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_page_bytes: i32::MAX as u64,
            max_page_values: 1 << 27,
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
