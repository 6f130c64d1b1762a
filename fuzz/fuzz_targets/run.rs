//! Arbitrary bytes through the whole pipeline: decode (BOM, coding line) →
//! parse → resolve → eval, with a step budget (no input runs forever) and
//! an address-space limit (an allocation a script asks for past it must be
//! a `MemoryError`, not an abort). Any panic or abort is a bug.

#![no_main]

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Once;

use libfuzzer_sys::fuzz_target;

/// Loop iterations and calls one input may make.
const STEPS: u64 = 20_000;
/// The process's address space: allocations past it fail (and must become
/// `MemoryError`). Leaves room for libFuzzer and the interpreter thread's stack.
const ADDRESS_SPACE: u64 = 6 << 30;

fn limit_memory() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let limit = libc::rlimit {
            rlim_cur: ADDRESS_SPACE,
            rlim_max: ADDRESS_SPACE,
        };
        // SAFETY: setrlimit reads the struct we own.
        unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    });
}

fuzz_target!(|data: &[u8]| {
    limit_memory();
    let bytes = data.to_vec();
    dist::with_big_stack(move || {
        let Ok(source) = dist::cli::decode_script("<fuzz>", &bytes) else {
            return;
        };
        let interpreter = dist::Interpreter::new(dist::Options::default());
        let sink: dist::Output = Rc::new(RefCell::new(std::io::sink()));
        interpreter.set_output(sink);
        interpreter.set_step_budget(STEPS);
        if let Err(d) = interpreter.run_source(source) {
            // Rendering the error is part of the pipeline too.
            let _ = dist::diag::render(&d, false);
        }
    });
});
