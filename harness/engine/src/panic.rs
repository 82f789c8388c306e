//! Panics in decoders and references are outcomes, not crashes.

use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    /// Set while a decoder or reference runs under `catch_unwind`.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f` under `catch_unwind`: a panic becomes `Err("PANIC: message")`.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    GUARDED.with(|g| g.set(true));
    let result = catch_unwind(AssertUnwindSafe(f)).map_err(panic_message);
    GUARDED.with(|g| g.set(false));
    result
}

/// A panic hook that stays silent for panics inside decoders and references
/// (the engine catches those and reports them, with their message, as
/// failures) and prints every other panic, a generator's or the engine's own,
/// as the default hook would, so it is never lost.
pub fn install_quiet_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !GUARDED.with(|g| g.get()) {
            default(info);
        }
    }));
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    format!("PANIC: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_messages() {
        assert_eq!(guarded(|| 3), Ok(3));
        assert_eq!(
            guarded(|| -> u8 { panic!("boom {}", 1) }),
            Err("PANIC: boom 1".to_string())
        );
        assert_eq!(
            guarded(|| -> u8 { std::panic::panic_any(5u8) }),
            Err("PANIC: non-string panic payload".to_string())
        );
        assert!(!GUARDED.with(|g| g.get()), "the guard is cleared after a panic");
    }
}
