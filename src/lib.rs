//! `dist`: a Python-subset language and REPL that reproduces TensorFlow's
//! `tf.distribute` without TensorFlow. See ARCHITECTURE.md for the data flow:
//! syntax → resolve → eval → modules → distribute → runtime.
//!
//! The embedding API is [`Interpreter`]: build one with [`Options`], run
//! source files or REPL input, and render the [`diag::Diagnostic`] an
//! uncaught exception becomes.

pub mod cli;
pub mod diag;
pub mod modules;
pub mod repl;
pub mod runtime;
pub mod syntax;
pub mod value;

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use diag::Diagnostic;
pub use syntax::SourceFile;

/// Interpreter options (the CLI flags `--echo`, `--virtual-gpus N`, `--always-wrap`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Print `repr` of every top-level expression statement whose value is not None.
    pub echo: bool,
    /// Number of simulated GPUs (`GPU:0` … `GPU:N-1`) backed by host memory.
    pub virtual_gpus: u32,
    /// Wrap a single replica's `strategy.run` result as `PerReplica:{ 0: … }`.
    pub always_wrap: bool,
    /// `--trace`: record a per-replica timeline (None: off; Some(None): text to
    /// stderr at the end; Some(Some(path)): Chrome trace JSON to that file).
    pub trace: Option<Option<String>>,
}

/// Where `print` writes.
pub type Output = Rc<RefCell<dyn Write>>;

/// A running interpreter: one module namespace that persists across calls
/// (the REPL runs each input through the same one). Not `Send`: create it on
/// the thread that uses it (the CLI runs it on a thread with a large stack).
pub struct Interpreter {
    options: Options,
    output: RefCell<Output>,
    interrupt: Arc<AtomicBool>,
}

impl Interpreter {
    /// A fresh interpreter printing to the process's stdout.
    pub fn new(options: Options) -> Interpreter {
        Interpreter {
            options,
            output: RefCell::new(Rc::new(RefCell::new(std::io::stdout()))),
            interrupt: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The options it was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Redirects `print` (tests capture into a buffer).
    pub fn set_output(&self, out: Output) {
        *self.output.borrow_mut() = out;
    }

    /// A flag that, when set (by a Ctrl-C handler on another thread), raises
    /// `KeyboardInterrupt` in the running code at the next loop iteration or call.
    pub fn interrupt_handle(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Runs a whole file as the `__main__` module (echoing expression
    /// statements if `options.echo`).
    pub fn run_source(&self, source: Rc<SourceFile>) -> Result<(), Box<Diagnostic>> {
        let _ = source;
        Ok(())
    }

    /// Runs one REPL input (one or more statements) in the persistent module,
    /// echoing the `repr` of expression statements whose value is not None.
    pub fn run_interactive(&self, source: Rc<SourceFile>) -> Result<(), Box<Diagnostic>> {
        let _ = source;
        Ok(())
    }

    /// Whether REPL input is incomplete (an open bracket or block): the REPL
    /// asks for another line.
    pub fn is_incomplete(source: &str) -> bool {
        matches!(syntax::parse_module(source), Err(e) if e.incomplete)
    }

    /// Completion candidates for the text before the cursor (`strategy.ru` →
    /// `["run"]`; a bare prefix completes globals and builtins).
    pub fn complete(&self, prefix: &str) -> Vec<String> {
        let _ = prefix;
        Vec::new()
    }

    /// Names bound in the module namespace (`:vars`).
    pub fn global_names(&self) -> Vec<String> {
        Vec::new()
    }

    /// Forgets every binding and all runtime state (`:reset`).
    pub fn reset(&self) {}
}
