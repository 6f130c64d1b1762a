//! The command line as a library: flag parsing (`args.rs`), the `dist run`
//! code path shared by `main.rs` and the golden tests (`script.rs`), the
//! `dist devices` listing (`devices.rs`), and the
//! Ctrl-C handler (`interrupt.rs`). `main.rs` only wires these to the process;
//! the REPL lives in `repl/`.

pub mod args;
pub mod devices;
pub mod interrupt;
pub mod script;
pub mod trace;

pub use args::{header_flags, parse_args, Command, Flags, Invocation, UsageError, HELP, USAGE};
pub use script::{
    decode_script, interpreter_for, read_script, run_script, stderr_color, with_big_stack,
    ScriptError, STACK_SIZE,
};
