//! Ctrl-C while code runs: a SIGINT handler sets the running interpreter's
//! interrupt flag (it raises `KeyboardInterrupt` at the next loop iteration
//! or call); a second Ctrl-C within a second ends the process with status 130,
//! for code stuck where the flag is never looked at. While the REPL reads a
//! line the terminal is in raw mode, so rustyline sees Ctrl-C as a key instead.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Makes Ctrl-C set `flag` (replacing any flag watched before). Installs the
/// handler on first use. Does nothing where there are no Unix signals.
pub fn watch(flag: Arc<AtomicBool>) {
    #[cfg(unix)]
    unix::watch(flag);
    #[cfg(not(unix))]
    drop(flag);
}

#[cfg(unix)]
mod unix {
    use std::ptr;
    use std::sync::atomic::{AtomicBool, AtomicI64, AtomicPtr, Ordering};
    use std::sync::{Arc, Once};

    /// The flag the handler sets. Why a leaked raw pointer: the handler may
    /// run at any moment on any thread, so it can neither lock nor drop; a
    /// replaced flag (the REPL's `:devices` rebuilds the interpreter) is
    /// leaked, a few bytes once per rebuild.
    static FLAG: AtomicPtr<AtomicBool> = AtomicPtr::new(ptr::null_mut());
    /// Monotonic milliseconds of the last Ctrl-C (0: none yet).
    static LAST_MS: AtomicI64 = AtomicI64::new(0);
    static INSTALL: Once = Once::new();

    pub(super) fn watch(flag: Arc<AtomicBool>) {
        FLAG.store(Arc::into_raw(flag).cast_mut(), Ordering::SeqCst);
        INSTALL.call_once(|| {
            // SAFETY: a zeroed sigaction is a valid "no flags, empty mask"
            // value; the handler only touches atomics and calls the
            // async-signal-safe clock_gettime, write and _exit.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigint as *const () as usize;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGINT, &action, ptr::null_mut());
            }
        });
    }

    #[allow(
        clippy::unnecessary_cast,
        reason = "time_t and c_long are 32-bit on some targets"
    )]
    fn now_ms() -> i64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the timespec we own.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        (ts.tv_sec as i64) * 1000 + (ts.tv_nsec as i64) / 1_000_000 + 1
    }

    extern "C" fn on_sigint(_signal: libc::c_int) {
        let now = now_ms();
        let last = LAST_MS.swap(now, Ordering::SeqCst);
        if last != 0 && now - last < 1000 {
            const MSG: &[u8] = b"\nKeyboardInterrupt (pressed twice: exiting)\n";
            // SAFETY: write and _exit are async-signal-safe.
            unsafe {
                libc::write(2, MSG.as_ptr().cast(), MSG.len());
                libc::_exit(130);
            }
        }
        let flag = FLAG.load(Ordering::SeqCst);
        if !flag.is_null() {
            // SAFETY: every pointer stored in FLAG came from Arc::into_raw and
            // is never released, so it stays valid.
            unsafe { (*flag).store(true, Ordering::SeqCst) };
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn sigint_sets_the_flag() {
            let flag = Arc::new(AtomicBool::new(false));
            super::watch(flag.clone());
            // SAFETY: raising SIGINT runs our handler (installed above) on this thread.
            unsafe { libc::raise(libc::SIGINT) };
            assert!(flag.load(Ordering::SeqCst));
            // Not a second press: the next test run must not see a recent one.
            LAST_MS.store(0, Ordering::SeqCst);
        }
    }
}
