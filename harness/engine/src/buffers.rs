//! The buffer contract for decoders that write into caller-owned memory.
//!
//! A decoder that takes `&mut [T]` from its caller promises to write nothing
//! outside the range its result describes. The engine proves it: for every
//! call it hands out buffers with [`GUARD`] canary elements before and after
//! the range, fills every element with the call's canary byte, and after the
//! call compares every element outside the written part with the canary.
//! Each case runs twice with two different canaries, so a write that happens
//! to store the canary value cannot hide. A change is a [`BufferFault`] naming
//! the buffer, the index (relative to the range's start: negative is before
//! it), the canary expected and the value found.
//!
//! An adapter takes each buffer with [`Buffers::take`], hands the decoder the
//! view its API expects ([`Out::range`], [`Out::range_and_tail`] or
//! [`Out::whole`]), and gives the buffer back with [`Buffers::finish`],
//! saying how many leading elements of the range the call was allowed to
//! write. A buffer never given back is itself a fault, so an adapter cannot
//! skip the check by forgetting it.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Canary elements before and after each buffer's range.
pub const GUARD: usize = 16;

/// An element type of a caller-owned buffer: how the canary byte fills it,
/// and its bits for reporting a changed element.
pub trait Element: Copy + PartialEq + Send + 'static {
    /// The element whose every byte is `canary` (for `bool`: the canary's
    /// lowest bit, so the two canaries use both values).
    fn canary(canary: u8) -> Self;
    /// The element's bits, zero-extended, for reports.
    fn bits(self) -> u64;
}

macro_rules! integer_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn canary(canary: u8) -> Self {
                <$t>::from_ne_bytes([canary; std::mem::size_of::<$t>()])
            }
            fn bits(self) -> u64 {
                let mut wide = [0u8; 8];
                wide[..std::mem::size_of::<$t>()].copy_from_slice(&self.to_le_bytes());
                u64::from_le_bytes(wide)
            }
        }
    )*};
}
integer_element!(u8, i8, u16, i16, u32, i32, u64, i64);

impl Element for f32 {
    fn canary(canary: u8) -> Self {
        f32::from_bits(u32::canary(canary))
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Element for f64 {
    fn canary(canary: u8) -> Self {
        f64::from_bits(u64::canary(canary))
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl Element for bool {
    fn canary(canary: u8) -> Self {
        canary & 1 == 1
    }
    fn bits(self) -> u64 {
        u64::from(self)
    }
}

/// A broken buffer promise, found by the engine after a decode call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum BufferFault {
    /// An element outside the written part of the range changed.
    Changed {
        /// The buffer's name, as the adapter took it.
        buffer: String,
        /// Index relative to the start of the range: negative is before the
        /// range, `written` or more is past what the call may write.
        index: i64,
        /// How many leading elements of the range the call was allowed to write.
        written: u64,
        /// The canary that was there (bits).
        expected: u64,
        /// What the element holds now (bits).
        found: u64,
    },
    /// The adapter said the call wrote more elements than the range has.
    WrittenPastRange {
        /// The buffer's name.
        buffer: String,
        /// The written count the adapter gave.
        written: u64,
        /// The range's length.
        len: u64,
    },
    /// A buffer was taken but never given back with [`Buffers::finish`], so
    /// it could not be checked.
    NotFinished {
        /// The buffer's name.
        buffer: String,
    },
}

impl fmt::Display for BufferFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferFault::Changed {
                buffer,
                index,
                written,
                expected,
                found,
            } => {
                let place = if *index < 0 {
                    "before the range"
                } else {
                    "outside the written range"
                };
                write!(
                    f,
                    "{buffer}[{index}] changed from {expected:#x} to {found:#x} {place} 0..{written}"
                )
            }
            BufferFault::WrittenPastRange { buffer, written, len } => {
                write!(
                    f,
                    "{buffer}: {written} elements said written, but its range holds {len}"
                )
            }
            BufferFault::NotFinished { buffer } => write!(f, "{buffer}: taken but never checked"),
        }
    }
}

/// One buffer taken for a call: [`GUARD`] canaries, the range, [`GUARD`]
/// canaries. Give it back with [`Buffers::finish`].
pub struct Out<T: Element> {
    name: &'static str,
    data: Vec<T>,
    len: usize,
}

impl<T: Element> Out<T> {
    /// Exactly the range: the `len` elements the call may write.
    pub fn range(&mut self) -> &mut [T] {
        &mut self.data[GUARD..GUARD + self.len]
    }

    /// The range and the guard after it, for APIs that are handed a caller
    /// buffer larger than what they need and must only write a prefix.
    pub fn range_and_tail(&mut self) -> &mut [T] {
        &mut self.data[GUARD..]
    }

    /// The whole buffer and the index where the range starts, for APIs that
    /// write at an offset into a buffer that already holds earlier rows.
    pub fn whole(&mut self) -> (&mut [T], usize) {
        (&mut self.data, GUARD)
    }

    /// The range's length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The caller-owned buffers of one decoder instance, prepared and checked by
/// the engine. Storage is kept across calls (only the contents are refilled),
/// like a caller reusing its buffers across batches.
pub struct Buffers {
    canary: u8,
    pool: HashMap<&'static str, Box<dyn Any + Send>>,
    taken: Vec<&'static str>,
    faults: Vec<BufferFault>,
}

impl Buffers {
    /// Buffers filled with `canary` on every [`take`](Buffers::take).
    pub fn new(canary: u8) -> Self {
        Buffers {
            canary,
            pool: HashMap::new(),
            taken: Vec::new(),
            faults: Vec::new(),
        }
    }

    /// This call's canary byte.
    pub fn canary(&self) -> u8 {
        self.canary
    }

    /// A buffer called `name` whose range holds `len` elements, every element
    /// (guards included) set to the canary.
    pub fn take<T: Element>(&mut self, name: &'static str, len: usize) -> Out<T> {
        // The storage of the last buffer of this name, when its type matches.
        let mut data = self
            .pool
            .remove(name)
            .and_then(|b| b.downcast::<Vec<T>>().ok())
            .map(|v| *v)
            .unwrap_or_default();
        data.clear();
        data.resize(len + 2 * GUARD, T::canary(self.canary));
        self.taken.push(name);
        Out { name, data, len }
    }

    /// Check `out` after the call: every element but the first `written` of
    /// the range must still be the canary. Returns those written elements.
    pub fn finish<T: Element>(&mut self, out: Out<T>, written: usize) -> Vec<T> {
        let Out { name, data, len } = out;
        if let Some(k) = self.taken.iter().position(|n| *n == name) {
            self.taken.swap_remove(k);
        }
        if written > len {
            self.faults.push(BufferFault::WrittenPastRange {
                buffer: name.into(),
                written: written as u64,
                len: len as u64,
            });
        }
        let written = written.min(len);
        let canary = T::canary(self.canary);
        let changed = |index: usize| BufferFault::Changed {
            buffer: name.into(),
            index: index as i64 - GUARD as i64,
            written: written as u64,
            expected: canary.bits(),
            found: data[index].bits(),
        };
        // The first change on each side is enough to name the fault.
        if let Some(k) = data[..GUARD].iter().position(|v| *v != canary) {
            self.faults.push(changed(k));
        }
        if let Some(k) = data[GUARD + written..].iter().position(|v| *v != canary) {
            self.faults.push(changed(GUARD + written + k));
        }
        let values = data[GUARD..GUARD + written].to_vec();
        self.pool.insert(name, Box::new(data));
        values
    }

    /// The faults of the call that just ended (buffers not given back
    /// included), leaving the buffers ready for the next call.
    pub fn end_call(&mut self) -> Vec<BufferFault> {
        for name in self.taken.drain(..) {
            self.faults.push(BufferFault::NotFinished { buffer: name.into() });
        }
        std::mem::take(&mut self.faults)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canaries_fill_every_byte() {
        assert_eq!(i64::canary(0xA5), i64::from_ne_bytes([0xA5; 8]));
        assert_eq!(u16::canary(0x5A).bits(), 0x5A5A);
        assert_eq!(i32::canary(0xA5).bits(), 0xA5A5_A5A5);
        assert_eq!(f64::canary(0xA5).to_bits(), u64::canary(0xA5));
        assert_eq!(f64::canary(0xA5).bits(), 0xA5A5_A5A5_A5A5_A5A5);
        assert_eq!((-0.0f64).bits(), 1 << 63);
        assert_eq!(f32::canary(0x5A).bits(), 0x5A5A_5A5A);
        assert!(bool::canary(0xA5));
        assert!(!bool::canary(0x5A));
        assert_eq!((-1i8).bits(), 0xff);
    }

    #[test]
    fn untouched_buffers_have_no_faults_and_return_the_written_prefix() {
        let mut b = Buffers::new(0xA5);
        let mut out = b.take::<u8>("out", 4);
        assert!(out.range().iter().all(|v| *v == 0xA5));
        out.range()[..2].copy_from_slice(&[1, 2]);
        assert_eq!(b.finish(out, 2), vec![1, 2]);
        assert_eq!(b.end_call(), vec![]);
    }

    #[test]
    fn a_write_past_the_written_part_is_a_fault() {
        let mut b = Buffers::new(0x5A);
        let mut out = b.take::<i64>("values", 3);
        out.range_and_tail()[3] = 7;
        b.finish(out, 3);
        assert_eq!(
            b.end_call(),
            vec![BufferFault::Changed {
                buffer: "values".into(),
                index: 3,
                written: 3,
                expected: 0x5A5A_5A5A_5A5A_5A5A,
                found: 7
            }]
        );
        // Inside the range but past what the result says it wrote.
        let mut out = b.take::<i64>("values", 3);
        out.range()[2] = 7;
        b.finish(out, 1);
        let faults = b.end_call();
        assert_eq!(faults.len(), 1);
        assert_eq!(
            faults[0].to_string(),
            "values[2] changed from 0x5a5a5a5a5a5a5a5a to 0x7 outside the written range 0..1"
        );
    }

    #[test]
    fn a_write_before_the_range_is_a_fault() {
        let mut b = Buffers::new(0xA5);
        let mut out = b.take::<bool>("validity", 2);
        let (whole, start) = out.whole();
        whole[start - 1] = false;
        b.finish(out, 2);
        let faults = b.end_call();
        assert_eq!(
            faults,
            vec![BufferFault::Changed {
                buffer: "validity".into(),
                index: -1,
                written: 2,
                expected: 1,
                found: 0
            }]
        );
        assert!(faults[0].to_string().contains("before the range"), "{}", faults[0]);
    }

    #[test]
    fn forgetting_to_finish_or_overclaiming_is_a_fault() {
        let mut b = Buffers::new(0xA5);
        let _forgotten = b.take::<u32>("scratch", 1);
        assert_eq!(
            b.end_call(),
            vec![BufferFault::NotFinished {
                buffer: "scratch".into()
            }]
        );
        let out = b.take::<u32>("scratch", 1);
        b.finish(out, 2);
        assert_eq!(
            b.end_call(),
            vec![BufferFault::WrittenPastRange {
                buffer: "scratch".into(),
                written: 2,
                len: 1
            }]
        );
        assert_eq!(b.end_call(), vec![], "faults are per call");
    }

    #[test]
    fn faults_say_what_happened() {
        let past = BufferFault::WrittenPastRange {
            buffer: "out".into(),
            written: 5,
            len: 4,
        };
        assert_eq!(past.to_string(), "out: 5 elements said written, but its range holds 4");
        assert_eq!(
            BufferFault::NotFinished { buffer: "v".into() }.to_string(),
            "v: taken but never checked"
        );
        let before = BufferFault::Changed {
            buffer: "v".into(),
            index: -2,
            written: 0,
            expected: 0xa5,
            found: 1,
        };
        assert_eq!(
            before.to_string(),
            "v[-2] changed from 0xa5 to 0x1 before the range 0..0"
        );
        let first = BufferFault::Changed {
            buffer: "v".into(),
            index: 0,
            written: 0,
            expected: 0xa5,
            found: 1,
        };
        assert_eq!(
            first.to_string(),
            "v[0] changed from 0xa5 to 0x1 outside the written range 0..0"
        );
    }

    #[test]
    fn a_name_taken_again_with_another_type_gets_fresh_storage() {
        let mut b = Buffers::new(0x5A);
        assert_eq!(b.canary(), 0x5A);
        let out = b.take::<u8>("x", 3);
        b.finish(out, 0);
        let mut out = b.take::<u32>("x", 2);
        assert_eq!(out.range(), &[0x5A5A_5A5A; 2]);
        assert_eq!(b.finish(out, 2), vec![0x5A5A_5A5A; 2]);
        assert!(b.end_call().is_empty());
    }

    #[test]
    fn a_change_right_at_both_guard_ends_is_found() {
        let mut b = Buffers::new(0xA5);
        let mut out = b.take::<u8>("out", 1);
        let (whole, start) = out.whole();
        whole[0] = 0;
        let last = whole.len() - 1;
        whole[last] = 0;
        assert_eq!(start, GUARD);
        b.finish(out, 1);
        let indices: Vec<i64> = b
            .end_call()
            .into_iter()
            .map(|f| match f {
                BufferFault::Changed { index, .. } => index,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(indices, [-(GUARD as i64), 1 + GUARD as i64 - 1]);
    }

    #[test]
    fn storage_is_reused_and_refilled() {
        let mut b = Buffers::new(0xA5);
        let mut out = b.take::<u8>("out", 8);
        out.range().fill(0);
        b.finish(out, 8);
        let mut out = b.take::<u8>("out", 2);
        assert_eq!(out.range(), &[0xA5, 0xA5]);
        assert_eq!(out.range_and_tail().len(), 2 + GUARD);
        assert_eq!(out.len(), 2);
        assert!(!out.is_empty());
        assert!(Buffers::new(0).take::<u8>("empty", 0).is_empty());
        b.finish(out, 0);
        assert!(b.end_call().is_empty());
    }
}
