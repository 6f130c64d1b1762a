//! `dist`: a Python-subset language and REPL that reproduces TensorFlow's
//! `tf.distribute` without TensorFlow. See ARCHITECTURE.md for the data flow:
//! syntax → resolve → eval → modules → distribute → runtime.
//!
//! The embedding API is [`Interpreter`]: build one with [`Options`], run
//! source files or REPL input, and render the [`diag::Diagnostic`] an
//! uncaught exception becomes.

pub mod cli;
pub mod diag;
pub mod distribute;
pub mod doctest;
pub mod eval;
pub mod modules;
pub mod object;
pub mod repl;
pub mod resolve;
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
    /// Where GPUs live: real CUDA GPUs and/or host memory (`--gpu-backend`).
    pub gpu_backend: runtime::GpuBackend,
    /// Wrap a single replica's `strategy.run` result as `PerReplica:{ 0: … }`.
    pub always_wrap: bool,
    /// `--trace`: record a per-replica timeline (None: off; Some(None): text to
    /// stderr at the end; Some(Some(path)): Chrome trace JSON to that file).
    pub trace: Option<Option<String>>,
    /// `--graph NAME`: print the graph of every trace of the `tf.function`s
    /// named NAME (`*`: of every one).
    pub graph: Option<String>,
}

/// The native stack an interpreter thread should have (virtual memory; the
/// CLI and the tests run the interpreter on a thread of this size).
pub const STACK_SIZE: usize = 256 << 20;

/// Runs `f` on a new thread with [`STACK_SIZE`] bytes of stack and returns its result.
pub fn with_big_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    match on_interpreter_thread(f) {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Runs `f` on an interpreter thread: worker 0 of a new thread pool (one
/// thread per core) that the CPU kernels split their work across; worker 0
/// has [`STACK_SIZE`] bytes of stack, the others [`WORKER_STACK_SIZE`].
/// Being one of the pool's workers, the interpreter runs its share of a
/// split kernel itself, where a thread outside the pool would sleep until
/// the workers finish and be woken up again (a measured fifth of a small
/// training step). `Err` carries the panic, if `f` panicked.
pub fn on_interpreter_thread<R: Send + 'static>(
    f: impl FnOnce() -> R + Send + 'static,
) -> std::thread::Result<R> {
    let cannot = |e: &dyn std::fmt::Display| -> Box<dyn std::any::Any + Send> {
        Box::new(format!("cannot start the interpreter thread: {e}"))
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("dist-{i}"))
        .spawn_handler(|thread| {
            let stack = if thread.index() == 0 {
                STACK_SIZE
            } else {
                WORKER_STACK_SIZE
            };
            let mut b = std::thread::Builder::new().stack_size(stack);
            if let Some(name) = thread.name() {
                b = b.name(name.to_owned());
            }
            b.spawn(|| thread.run())?;
            Ok(())
        })
        .build()
        .map_err(|e| cannot(&e))?;
    // every worker runs the broadcast; worker 0 takes `f` and runs it
    let f = std::sync::Mutex::new(Some(f));
    let mut results = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.broadcast(|ctx| {
            if ctx.index() != 0 {
                return None;
            }
            let f = f.lock().ok().and_then(|mut f| f.take());
            f.map(|f| f())
        })
    }))?;
    match results.first_mut().and_then(Option::take) {
        Some(r) => Ok(r),
        None => Err(cannot(&"worker 0 did not run")),
    }
}

/// The stack of the kernels' other worker threads (they run no
/// interpreter code).
pub const WORKER_STACK_SIZE: usize = 2 << 20;

/// Where `print` writes.
pub type Output = Rc<RefCell<dyn Write>>;

/// A running interpreter: one module namespace that persists across calls
/// (the REPL runs each input through the same one). Not `Send`: create it on
/// the thread that uses it (the CLI runs it on a thread with a large stack).
pub struct Interpreter {
    options: Options,
    interp: RefCell<eval::Interp>,
    output: RefCell<Output>,
    interrupt: Arc<AtomicBool>,
    stack_set: std::cell::Cell<bool>,
}

impl Interpreter {
    /// A fresh interpreter printing to the process's stdout (buffered; flushed
    /// after each run and before an error is returned).
    pub fn new(options: Options) -> Interpreter {
        let output: Output = Rc::new(RefCell::new(std::io::BufWriter::new(std::io::stdout())));
        let interrupt = Arc::new(AtomicBool::new(false));
        let interp = eval::Interp::new(output.clone(), interrupt.clone());
        interp.echo.set(options.echo);
        configure(&interp, &options);
        Interpreter {
            options,
            interp: RefCell::new(interp),
            output: RefCell::new(output),
            interrupt,
            stack_set: std::cell::Cell::new(false),
        }
    }

    /// The options it was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Redirects `print` (tests capture into a buffer).
    pub fn set_output(&self, out: Output) {
        self.interp.borrow().set_output(out.clone());
        *self.output.borrow_mut() = out;
    }

    /// A flag that, when set (by a Ctrl-C handler on another thread), raises
    /// `KeyboardInterrupt` in the running code at the next loop iteration or call.
    pub fn interrupt_handle(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Limits the loop iterations and calls the code run from now on may
    /// make: past it every iteration and call raises `RuntimeError` (the
    /// fuzz targets use it so that no input runs forever).
    pub fn set_step_budget(&self, steps: u64) {
        self.interp.borrow().set_step_budget(steps);
    }

    /// Runs a whole file as the `__main__` module (echoing expression
    /// statements if `options.echo`).
    pub fn run_source(&self, source: Rc<SourceFile>) -> Result<(), Box<Diagnostic>> {
        self.run(source, self.options.echo, true)
    }

    /// Names the file being run as `__main__` (`__file__`): an absolute
    /// path, as CPython 3.9+ gives the script named on the command line.
    pub fn set_main_file(&self, path: &str) {
        let path = match path {
            "<stdin>" => path.to_string(),
            p => std::path::absolute(p)
                .map(|a| a.to_string_lossy().into_owned())
                .unwrap_or_else(|_| p.to_string()),
        };
        self.interp
            .borrow()
            .set_global("__file__", value::Value::str(&path));
    }

    /// Runs one REPL input (one or more statements) in the persistent module,
    /// echoing the `repr` of expression statements whose value is not None.
    pub fn run_interactive(&self, source: Rc<SourceFile>) -> Result<(), Box<Diagnostic>> {
        self.run(source, true, false)
    }

    /// Runs `source` in the persistent module; a whole `script` sets the
    /// module's `__doc__` from its docstring first.
    fn run(&self, source: Rc<SourceFile>, echo: bool, script: bool) -> Result<(), Box<Diagnostic>> {
        let interp = self.interp.borrow();
        if !self.stack_set.replace(true) {
            // The thread is expected to have STACK_SIZE; keep some for the caller above us.
            interp.set_stack_budget(STACK_SIZE - (8 << 20));
        }
        let result = match interp.compile(&source) {
            Ok(module) => {
                if script {
                    interp.set_global("__doc__", eval::docstring(&module.body));
                }
                let echo = match (echo, script) {
                    (false, _) => eval::Echo::Off,
                    (true, true) => eval::Echo::TopLevel,
                    (true, false) => eval::Echo::Interactive,
                };
                interp.exec_module(&source, &module, echo)
            }
            .map_err(|e| {
                let suggestion = interp.suggestion(&e);
                let mut d = diag::from_exception(&*interp, e);
                if let Some(s) = suggestion {
                    d.message.push_str(&s);
                }
                d
            }),
            Err(e) => Err(diag::from_syntax_error(&source, &e)),
        };
        interp.flush();
        result.map_err(Box::new)
    }

    /// Ends a script as CPython's interpreter shutdown does for what dist can
    /// observe: the module's names are unbound, so suspended generators they
    /// held are closed (their `finally` blocks run).
    pub fn finalize(&self) {
        let interp = self.interp.borrow();
        interp.clear_globals();
        interp.flush();
    }

    /// Sets the module's `__name__` (`dist doctest` runs a `.dist` file as
    /// the module named after its stem, as CPython's doctest imports it).
    pub fn set_module_name(&self, name: &str) {
        self.interp
            .borrow()
            .set_global("__name__", value::Value::str(name));
    }

    /// Whether REPL input is incomplete (an open bracket or block): the REPL
    /// asks for another line.
    pub fn is_incomplete(source: &str) -> bool {
        matches!(syntax::parse_module(source), Err(e) if e.incomplete)
    }

    /// Completion candidates for the text before the cursor (`strategy.ru` →
    /// `["run"]`; a bare prefix completes globals and builtins).
    pub fn complete(&self, prefix: &str) -> Vec<String> {
        self.interp.borrow().complete(prefix)
    }

    /// The value bound to a global name, if any (the REPL's prompt and `:show`).
    pub fn global(&self, name: &str) -> Option<value::Value> {
        self.interp.borrow().get_global(name)
    }

    /// Calls `f` with the interpreter as natives see it (the REPL formats
    /// values and reads the Strategy runtime's state through it).
    pub fn with_vm<R>(&self, f: impl FnOnce(&dyn value::Vm) -> R) -> R {
        f(&*self.interp.borrow())
    }

    /// Names bound in the module namespace (`:vars`).
    pub fn global_names(&self) -> Vec<String> {
        self.interp.borrow().global_names()
    }

    /// Forgets every binding and all runtime state (`:reset`).
    pub fn reset(&self) {
        self.interp.borrow().break_cycles();
        let out = self.output.borrow().clone();
        let interp = eval::Interp::new(out, self.interrupt.clone());
        interp.echo.set(self.options.echo);
        configure(&interp, &self.options);
        *self.interp.borrow_mut() = interp;
        self.stack_set.set(false);
    }
}

impl Drop for Interpreter {
    /// Frees what the scripts made that only reference cycles through
    /// closures' cells keep alive (`eval::cells`); the finalizers that makes
    /// due run and print now.
    fn drop(&mut self) {
        let interp = self.interp.borrow();
        interp.break_cycles();
        interp.flush();
    }
}

/// Hands the options the Strategy runtime reads to the interpreter's state.
fn configure(interp: &eval::Interp, options: &Options) {
    use value::Vm;
    let config = interp.state().get::<distribute::Config>();
    config.virtual_gpus.set(options.virtual_gpus);
    config.gpu_backend.set(options.gpu_backend);
    config.always_wrap.set(options.always_wrap);
    runtime::graph::show_graphs_of(options.graph.clone());
}
