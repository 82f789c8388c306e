//! GORILLA (encoding id 8) for INT32, INT64, FLOAT and DOUBLE, read through
//! MSB-first windows: one unaligned big-endian 8-byte load finds runs of `0`
//! control bits (repeated values, taken in one step); one 16-byte load (at
//! least 121 valid bits) holds a changed value's control bits, both window
//! fields and up to 64 significant bits, so each value costs one load.

use super::{DecodeError, Done, Field, Lane};
use crate::probe::{NoProbe, Probe, Step};

pub const TERMINATOR_I32: u32 = i32::MIN as u32;
pub const TERMINATOR_I64: u64 = i64::MIN as u64;
pub const TERMINATOR_F32: u32 = 0x7FC0_0000;
pub const TERMINATOR_F64: u64 = 0x7FF8_0000_0000_0000;

/// Where decoding stops; the caller chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Stop at the first value equal to the terminator (not output) and
    /// consume the flush byte after it. A real value equal to the terminator
    /// ends the page early, as in the classic reader.
    AtTerminator,
    /// Decode exactly this many values; consume the bytes their bits touch.
    Count(usize),
}

/// MSB-first reader over a byte slice.
struct Reader<'a> {
    data: &'a [u8],
    /// Bit position.
    pos: usize,
    /// Total bits.
    total: usize,
}

impl Reader<'_> {
    /// 128 bits from `pos`, MSB-aligned; the first 121 are valid data (bits
    /// past the end of the input read as 0). One load covers a whole value:
    /// control bits, both window fields and up to 64 significant bits.
    #[inline(always)]
    fn peek128(&self) -> u128 {
        let at = self.pos / 8;
        let s = self.pos % 8;
        match self.data.get(at..at + 16) {
            Some(w) => u128::from_be_bytes(w.try_into().expect("16 bytes")) << s,
            None => {
                let mut w = [0u8; 16];
                let rest = &self.data[at.min(self.data.len())..];
                w[..rest.len()].copy_from_slice(rest);
                u128::from_be_bytes(w) << s
            }
        }
    }
    fn truncated(&self, field: Field, at: usize) -> DecodeError {
        DecodeError::Truncated {
            field,
            offset: at / 8,
            bit: (at % 8) as u8,
        }
    }
}

/// Decode into `out` (its length is the most values accepted). `W` is the
/// value width (32 or 64); values are produced as lanes of `T`. With `FAST`,
/// values that reuse the stored window or repeat the previous one take a
/// short loop with one 8-byte load each; new windows, errors and the page's
/// last bytes take the checked path.
#[inline(always)]
fn decode<const W: u32, T: Lane, const FAST: bool, P: Probe>(
    page: &[u8],
    terminator: u64,
    stop: Stop,
    out: &mut [T],
) -> Result<Done, DecodeError> {
    decode_to_bit::<W, T, FAST, P>(page, terminator, stop, out).map(|(done, _)| done)
}

/// A `Stop::Count` stream embedded in another (SPRINTZ's FLOAT / DOUBLE
/// tail, whose flush byte follows the terminator): `n = out.len()` values of
/// `W` bits as u64 patterns, and the bit just after the last one read.
pub(crate) fn decode_count_to_bit<const W: u32>(
    page: &[u8],
    terminator: u64,
    out: &mut [u64],
) -> Result<(Done, usize), DecodeError> {
    decode_to_bit::<W, u64, true, NoProbe>(page, terminator, Stop::Count(out.len()), out)
}

/// [`decode`], also returning the bit just after the last bit read.
#[inline(always)]
fn decode_to_bit<const W: u32, T: Lane, const FAST: bool, P: Probe>(
    page: &[u8],
    terminator: u64,
    stop: Stop,
    out: &mut [T],
) -> Result<(Done, usize), DecodeError> {
    let field_bits: u32 = if W == 32 { 5 } else { 6 };
    let max = out.len();
    let (count_mode, want) = match stop {
        Stop::Count(n) => {
            if n > max {
                return Err(DecodeError::TooManyValues { max, offset: 0 });
            }
            if n == 0 {
                return Ok((Done { values: 0, consumed: 0 }, 0));
            }
            (true, n)
        }
        Stop::AtTerminator => (false, usize::MAX),
    };
    let mut r = Reader {
        data: page,
        pos: 0,
        total: page.len() * 8,
    };
    if r.total < W as usize {
        return Err(r.truncated(Field::GorillaFirst, 0));
    }
    // The first value: the page's first W bits, as they are.
    let mut prev = if W == 32 {
        u64::from(u32::from_be_bytes(page[..4].try_into().expect("4 bytes")))
    } else {
        u64::from_be_bytes(page[..8].try_into().expect("8 bytes"))
    };
    r.pos = W as usize;
    let mut window: Option<(u32, u32)> = None;
    let mut value_start = 0usize;
    let mut n = 0usize;
    'value: loop {
        if !count_mode && prev == terminator {
            let flush = r.pos / 8;
            if flush >= page.len() {
                return Err(r.truncated(Field::GorillaFlush, r.pos));
            }
            return Ok((
                Done {
                    values: n,
                    consumed: flush + 1,
                },
                r.pos,
            ));
        }
        if n == max {
            return Err(DecodeError::TooManyValues {
                max,
                offset: value_start / 8,
            });
        }
        out[n] = T::from_bits(prev);
        n += 1;
        if n == want {
            return Ok((
                Done {
                    values: n,
                    consumed: r.pos.div_ceil(8),
                },
                r.pos,
            ));
        }
        if FAST {
            if let Some((lz, tz)) = window {
                // The common case of a real series: the stored window reused
                // (`10`) or the value repeated (`0`), value after value. One
                // 8-byte load per value (57 valid bits hold the 2 control
                // bits and up to 55 significant ones); a new window, a wider
                // one or the page's last 8 bytes go to the checked path.
                let sig = W - lz - tz;
                if 2 + sig <= 57 {
                    while let Some(w) = page.get(r.pos / 8..r.pos / 8 + 8) {
                        let word = u64::from_be_bytes(w.try_into().expect("8 bytes")) << (r.pos % 8);
                        value_start = r.pos;
                        if word >> 63 == 0 {
                            r.pos += 1;
                        } else if (word >> 62) & 1 == 0 {
                            prev ^= ((word << 2) >> (64 - sig)) << tz;
                            r.pos += 2 + sig as usize;
                        } else {
                            break;
                        }
                        // The top of 'value, repeated here on purpose: going
                        // back through it for every value costs this loop a
                        // third of its speed (measured with --bench targets).
                        if (!count_mode && prev == terminator) || n == max {
                            continue 'value;
                        }
                        out[n] = T::from_bits(prev);
                        n += 1;
                        P::count(Step::GorillaReuseLoop, 1);
                        if n == want {
                            return Ok((
                                Done {
                                    values: n,
                                    consumed: r.pos.div_ceil(8),
                                },
                                r.pos,
                            ));
                        }
                    }
                }
            }
        }
        loop {
            value_start = r.pos;
            if r.pos >= r.total {
                return Err(r.truncated(Field::GorillaControl, value_start));
            }
            let w = r.peek128();
            let hi = (w >> 64) as u64;
            if hi >> 63 == 0 {
                // A run of `0` controls: each repeats `prev`, which is not the
                // terminator (or it would have stopped above).
                let run = (hi.leading_zeros() as usize).min(r.total - r.pos);
                // `run` and `want - n` are at least 1 here, so only a full
                // output stops the run: a value that has no room.
                let take = run.min(max - n).min(want - n);
                if take == 0 {
                    return Err(DecodeError::TooManyValues {
                        max,
                        offset: value_start / 8,
                    });
                }
                P::count(Step::GorillaZeroRun, 1);
                out[n..n + take].fill(T::from_bits(prev));
                n += take;
                r.pos += take;
                if n == want {
                    return Ok((
                        Done {
                            values: n,
                            consumed: r.pos.div_ceil(8),
                        },
                        r.pos,
                    ));
                }
                continue;
            }
            if r.pos + 2 > r.total {
                return Err(r.truncated(Field::GorillaControl, value_start));
            }
            // Bits of the value's fields consumed so far (after the control).
            let mut used = 2u32;
            let (lz, tz) = if (hi >> 62) & 1 == 0 {
                window.ok_or(DecodeError::NoWindow {
                    offset: value_start / 8,
                    bit: (value_start % 8) as u8,
                })?
            } else {
                let at = r.pos + 2;
                if at + field_bits as usize > r.total {
                    return Err(r.truncated(Field::GorillaLeading, at));
                }
                let lz = ((hi << 2) >> (64 - field_bits)) as u32;
                let len_at = at + field_bits as usize;
                if len_at + field_bits as usize > r.total {
                    return Err(r.truncated(Field::GorillaLength, len_at));
                }
                let sig = ((hi << (2 + field_bits)) >> (64 - field_bits)) as u32 + 1;
                if lz + sig > W {
                    return Err(DecodeError::BadWindow {
                        leading: lz,
                        significant: sig,
                        offset: len_at / 8,
                        bit: (len_at % 8) as u8,
                    });
                }
                used += 2 * field_bits;
                let win = (lz, W - lz - sig);
                window = Some(win);
                win
            };
            let sig = W - lz - tz;
            let bits_at = r.pos + used as usize;
            if bits_at + sig as usize > r.total {
                return Err(r.truncated(Field::GorillaBits, bits_at));
            }
            let bits = if used + sig <= 64 {
                (hi << used) >> (64 - sig)
            } else {
                P::count(Step::GorillaWideExtract, 1);
                ((w << used) >> (128 - sig)) as u64
            };
            r.pos = bits_at + sig as usize;
            prev ^= bits << tz;
            continue 'value;
        }
    }
}

pub fn decode_i32_into(page: &[u8], stop: Stop, out: &mut [i32]) -> Result<Done, DecodeError> {
    decode::<32, i32, true, NoProbe>(page, TERMINATOR_I32 as u64, stop, out)
}
pub fn decode_i64_into(page: &[u8], stop: Stop, out: &mut [i64]) -> Result<Done, DecodeError> {
    decode::<64, i64, true, NoProbe>(page, TERMINATOR_I64, stop, out)
}
pub fn decode_f32_into(page: &[u8], stop: Stop, out: &mut [f32]) -> Result<Done, DecodeError> {
    decode::<32, f32, true, NoProbe>(page, TERMINATOR_F32 as u64, stop, out)
}
pub fn decode_f64_into(page: &[u8], stop: Stop, out: &mut [f64]) -> Result<Done, DecodeError> {
    decode::<64, f64, true, NoProbe>(page, TERMINATOR_F64, stop, out)
}
/// 32-bit patterns with an explicit terminator (INT32 or FLOAT bits).
pub fn decode32_into(page: &[u8], terminator: u32, stop: Stop, out: &mut [u32]) -> Result<Done, DecodeError> {
    decode::<32, u32, true, NoProbe>(page, terminator as u64, stop, out)
}
/// 64-bit patterns with an explicit terminator (INT64 or DOUBLE bits).
pub fn decode64_into(page: &[u8], terminator: u64, stop: Stop, out: &mut [u64]) -> Result<Done, DecodeError> {
    decode::<64, u64, true, NoProbe>(page, terminator, stop, out)
}

pub type Decode32 = fn(&[u8], u32, Stop, &mut [u32]) -> Result<Done, DecodeError>;
pub type Decode64 = fn(&[u8], u64, Stop, &mut [u64]) -> Result<Done, DecodeError>;

/// [`decode32_into`] without the reuse loop: every value through the
/// checked 128-bit window path (the first kernel, kept as a second opinion).
pub fn decode32_checked_into(page: &[u8], terminator: u32, stop: Stop, out: &mut [u32]) -> Result<Done, DecodeError> {
    decode::<32, u32, false, NoProbe>(page, terminator as u64, stop, out)
}

/// [`decode64_into`] without the reuse loop.
pub fn decode64_checked_into(page: &[u8], terminator: u64, stop: Stop, out: &mut [u64]) -> Result<Done, DecodeError> {
    decode::<64, u64, false, NoProbe>(page, terminator, stop, out)
}

/// 32-bit implementations, best first.
pub static IMPLEMENTATIONS_32: &[crate::Implementation<Decode32>] = &[
    crate::Implementation::portable("gorilla/reuse-run", decode32_into),
    crate::Implementation::portable("gorilla/window128", decode32_checked_into),
];

/// 64-bit implementations, best first.
pub static IMPLEMENTATIONS_64: &[crate::Implementation<Decode64>] = &[
    crate::Implementation::portable("gorilla/reuse-run", decode64_into),
    crate::Implementation::portable("gorilla/window128", decode64_checked_into),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Counting;

    /// MSB-first bit writer for hand-built pages.
    struct Bits {
        bytes: Vec<u8>,
        len: usize,
    }

    impl Bits {
        fn put(&mut self, v: u64, n: u32) {
            for k in (0..n).rev() {
                if self.len.is_multiple_of(8) {
                    self.bytes.push(0);
                }
                let bit = ((v >> k) & 1) as u8;
                *self.bytes.last_mut().unwrap() |= bit << (7 - self.len % 8);
                self.len += 1;
            }
        }
    }

    /// A window of every width the reuse loop takes (up to 55 significant
    /// bits: 2 control bits + 55 fit the 57 valid bits of one load), reused
    /// value after value: all but the values in the page's last 8 bytes come
    /// from the reuse loop. A window one bit wider goes to the checked path.
    #[test]
    fn reused_windows_up_to_55_bits_take_the_reuse_loop() {
        for sig in [1u32, 8, 31, 54, 55, 56, 64] {
            let (lz, tz) = (64 - sig, 0u32);
            let mut bits = Bits {
                bytes: Vec::new(),
                len: 0,
            };
            let first = 0x0123_4567_89AB_CDEFu64;
            bits.put(first, 64);
            let mut want = vec![first];
            let mut prev = first;
            for k in 0..40u64 {
                let xor = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1 | (1 << (sig - 1))) & (u64::MAX >> lz);
                if k == 0 {
                    bits.put(0b11, 2);
                    bits.put(u64::from(lz), 6);
                    bits.put(u64::from(sig - 1), 6);
                } else {
                    bits.put(0b10, 2);
                }
                bits.put(xor, sig);
                prev ^= xor << tz;
                want.push(prev);
            }
            // Values whose bits start in the last 8 bytes: at most 64 / (2 + sig) + 1.
            let tail = 64 / (2 + sig as usize) + 1;
            let check = |page: &[u8], stop: Stop| {
                let mut out = vec![0u64; want.len()];
                Counting::reset();
                let done = decode::<64, u64, true, Counting>(page, TERMINATOR_F64, stop, &mut out).unwrap();
                let fast = Counting::steps(Step::GorillaReuseLoop);
                assert_eq!(
                    (done.values, out.as_slice()),
                    (want.len(), want.as_slice()),
                    "sig {sig}, {stop:?}"
                );
                if sig <= 55 {
                    assert!(
                        fast + 2 + tail >= want.len(),
                        "sig {sig}, {stop:?}: {fast} of {} from the reuse loop",
                        want.len()
                    );
                } else {
                    assert_eq!(fast, 0, "sig {sig}");
                }
            };
            check(&bits.bytes, Stop::Count(want.len()));
            // The same values ended by the terminator (a full-width window) and the flush byte.
            bits.put(0b11, 2);
            bits.put(0, 6);
            bits.put(63, 6);
            bits.put(prev ^ TERMINATOR_F64, 64);
            bits.bytes.push(0);
            check(&bits.bytes, Stop::AtTerminator);
        }
    }

    /// A page that ends right after a new window's length field is cut in
    /// the value's bits (the length field is whole), in both kernels.
    #[test]
    fn a_page_ending_after_the_length_is_cut_in_the_bits() {
        let mut bits = Bits {
            bytes: Vec::new(),
            len: 0,
        };
        bits.put(7, 32);
        bits.put(0, 4); // four repeats
        bits.put(0b11, 2);
        bits.put(20, 5);
        bits.put(3, 5);
        assert_eq!(bits.len, 48);
        let cut = Err(DecodeError::Truncated {
            field: Field::GorillaBits,
            offset: 6,
            bit: 0,
        });
        for decode in [decode32_into, decode32_checked_into] {
            let mut out = [0u32; 8];
            assert_eq!(decode(&bits.bytes, TERMINATOR_I32, Stop::Count(6), &mut out), cut);
            assert_eq!(decode(&bits.bytes, TERMINATOR_I32, Stop::AtTerminator, &mut out), cut);
        }
    }

    #[test]
    fn lone_terminator_needs_the_flush_byte() {
        let mut page = TERMINATOR_F64.to_be_bytes().to_vec();
        let mut out = [0f64; 2];
        assert_eq!(
            decode_f64_into(&page, Stop::AtTerminator, &mut out),
            Err(DecodeError::Truncated {
                field: Field::GorillaFlush,
                offset: 8,
                bit: 0
            })
        );
        page.push(0);
        assert_eq!(
            decode_f64_into(&page, Stop::AtTerminator, &mut out),
            Ok(Done { values: 0, consumed: 9 })
        );
        assert_eq!(
            decode_f64_into(&page, Stop::Count(1), &mut out),
            Ok(Done { values: 1, consumed: 8 })
        );
        assert!(out[0].is_nan());
        assert_eq!(
            decode_f64_into(&page, Stop::Count(3), &mut out),
            Err(DecodeError::TooManyValues { max: 2, offset: 0 })
        );
    }

    #[test]
    fn zero_runs_stop_at_the_count() {
        // 7 then 200 `0` controls (the page has more repeats than asked for).
        let mut page = 7u32.to_be_bytes().to_vec();
        page.extend([0u8; 25]);
        let mut out = [0i32; 150];
        assert_eq!(
            decode_i32_into(&page, Stop::Count(100), &mut out),
            Ok(Done {
                values: 100,
                consumed: 4 + 13
            })
        );
        assert!(out[..100].iter().all(|&v| v == 7));
        assert_eq!(out[100], 0);
        assert_eq!(
            decode_i32_into(&page, Stop::AtTerminator, &mut out),
            Err(DecodeError::TooManyValues {
                max: 150,
                offset: 4 + 149 / 8
            })
        );
    }

    /// The checked path takes a value's bits from the top 64 bits of its
    /// window while they hold them (control, both fields and the bits: 14 +
    /// `sig` for a new 64-bit window), and from all 128 only past that.
    #[test]
    fn value_bits_come_from_the_top_word_while_they_fit() {
        for sig in 1..=64u32 {
            let mut bits = Bits {
                bytes: Vec::new(),
                len: 0,
            };
            bits.put(0, 64);
            bits.put(0b11, 2);
            bits.put(u64::from(64 - sig), 6);
            bits.put(u64::from(sig - 1), 6);
            let xor = u64::MAX >> (64 - sig);
            bits.put(xor, sig);
            let mut out = [0u64; 2];
            Counting::reset();
            let done = decode::<64, u64, false, Counting>(&bits.bytes, TERMINATOR_F64, Stop::Count(2), &mut out);
            assert_eq!((done.map(|d| d.values), out), (Ok(2), [0, xor]), "sig {sig}");
            let wide = usize::from(14 + sig > 64);
            assert_eq!(Counting::steps(Step::GorillaWideExtract), wide, "sig {sig}");
        }
    }

    /// A run of `0` controls is taken up to 64 at a time (all the window
    /// holds), not a value at a time.
    #[test]
    fn zero_runs_take_up_to_64_values_per_step() {
        let mut page = 7u32.to_be_bytes().to_vec();
        page.extend([0u8; 40]);
        let mut out = [0i32; 300];
        for (count, steps) in [(1, 0), (2, 1), (65, 1), (66, 2), (150, 3), (300, 5)] {
            Counting::reset();
            let done = decode::<32, i32, true, Counting>(&page, TERMINATOR_I32 as u64, Stop::Count(count), &mut out);
            assert_eq!(done.map(|d| d.values), Ok(count));
            assert_eq!(Counting::steps(Step::GorillaZeroRun), steps, "{count} values");
        }
    }

    #[test]
    fn float_entry_points_give_the_values() {
        // A first value, then `0` controls (repeats).
        let mut page = 1.5f32.to_bits().to_be_bytes().to_vec();
        page.push(0);
        let mut out = [0f32; 4];
        assert_eq!(
            decode_f32_into(&page, Stop::Count(3), &mut out),
            Ok(Done { values: 3, consumed: 5 })
        );
        assert_eq!(out, [1.5, 1.5, 1.5, 0.0]);
        let mut page = (-2.25f64).to_bits().to_be_bytes().to_vec();
        page.push(0);
        let mut out = [0f64; 3];
        assert_eq!(
            decode_f64_into(&page, Stop::Count(2), &mut out),
            Ok(Done { values: 2, consumed: 9 })
        );
        assert_eq!(out, [-2.25, -2.25, 0.0]);
    }
}
