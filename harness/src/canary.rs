//! Canary fills for caller-owned reusable buffers: fill the whole buffer
//! before a call, then check that nothing outside the written range changed.

use std::fmt::Debug;

/// An i64 whose every byte is `canary`.
pub fn i64_canary(canary: u8) -> i64 {
    i64::from_ne_bytes([canary; 8])
}

/// A bool that is not the "natural" value for `canary` parity, so the two
/// passes use both `true` and `false`.
pub fn bool_canary(canary: u8) -> bool {
    canary & 1 == 1
}

/// Describe the first element of `buffer[from..]` that is no longer `canary`.
pub fn untouched_after<T: PartialEq + Copy + Debug>(what: &str, buffer: &[T], from: usize, canary: T) -> Option<String> {
    let from = from.min(buffer.len());
    buffer[from..]
        .iter()
        .position(|v| *v != canary)
        .map(|k| format!("{what}[{}] changed to {:?} outside the written range 0..{from}", from + k, buffer[from + k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_first_write_past_the_range() {
        let mut buf = [i64_canary(0xA5); 6];
        assert_eq!(untouched_after("v", &buf, 3, i64_canary(0xA5)), None);
        buf[4] = 0;
        let fault = untouched_after("v", &buf, 3, i64_canary(0xA5)).unwrap();
        assert!(fault.starts_with("v[4] changed to 0"), "{fault}");
        // Writes inside the range are allowed.
        assert_eq!(untouched_after("v", &buf, 5, i64_canary(0xA5)), None);
    }
}
