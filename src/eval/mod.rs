//! The tree-walking interpreter. `Interp` owns the module namespace (global
//! slots), the import cache and per-run state, and implements the `Vm` trait
//! through which natives call back. Statements are in `stmt/`, expressions
//! in `expr/`, calls and argument passing in `call.rs`, operators in
//! `ops/`, attribute access in `attr.rs`, `repr`/`str` in `repr.rs`,
//! iteration in `iter.rs`, `match` in `pattern.rs`, classes and the
//! builtins tied to the object model (`super`, `property` …) in `class.rs`,
//! imports and the `stdlib/` modules in `import.rs`, the `Vm` trait in
//! `vm.rs`, `dir()` and completion in `dir.rs`.

mod attr;
mod autograph;
pub(crate) use attr::docstring;
mod call;
mod cells;
pub mod class;
mod code;
mod dir;
mod exc_group;
mod expr;
mod frame;
mod generator;
mod import;
mod items;
mod iter;
mod mappingproxy;
mod meta;
mod ops;
mod pattern;
mod replica;
mod repr;
mod sites;
mod stmt;
mod suggest;
mod traceback;
mod vm;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::Write;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use frame::Frame;
pub use iter::IterState;

use crate::resolve::{resolve_module, GlobalNames};
use crate::syntax::ast::Module;
use crate::syntax::{SourceFile, SyntaxError};
use crate::value::native::State;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Python's default recursion limit.
pub const RECURSION_LIMIT: u32 = 1000;

/// Control flow out of a statement.
// Fieldless and a whole word wide, so that `PyResult<Flow>` comes back from
// the statement functions in two registers; a returned value waits in the
// frame (`Frame::ret`). With the value inside, every statement's result went
// through memory and was read back with a 16-byte load that missed store
// forwarding (measured: the hottest instruction of `exec_block`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u64)]
pub enum Flow {
    /// Fell through.
    Normal,
    /// `return value`: the value is in the frame's `ret`.
    Return,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// A converted `if` (autograph) needs the statements after it in its
    /// block: one branch returns and the other takes them.
    Rest,
    /// A converted `if` left a loop's `break`/`continue` flag a tensor:
    /// the rest of each enclosing block up to the loop runs under it.
    Guard,
}

/// Where `print` writes.
pub type Output = Rc<RefCell<dyn Write>>;

/// The per-"thread of execution" state that a replica coroutine swaps in and
/// out: call depth and the exceptions being handled (for bare `raise`).
#[derive(Default)]
pub struct ExecState {
    /// Python call depth.
    pub depth: u32,
    /// Exceptions currently being handled, innermost last.
    pub handling: Vec<PyErr>,
    /// Autograph's converted loops being traced.
    pub ag: autograph::AgState,
    /// The innermost frame's statement and the live stack's innermost link
    /// (`sites.rs`).
    pub pos: crate::syntax::Span,
    /// See `pos`.
    pub(crate) top: Option<std::ptr::NonNull<sites::Link>>,
}

/// The interpreter.
pub struct Interp {
    /// Module-level values by global slot (all empty once `module_dict` is set).
    globals: RefCell<Vec<Option<Value>>>,
    /// The module's namespace as a real dict, once a script asked for it
    /// (`globals()`, module-level `locals()`/`vars()`): the first request
    /// moves the slot values into it and from then on it is the namespace
    /// itself (name reads, writes and deletes go through it by name), so
    /// `globals()['x'] = 1`, `del globals()['x']` and `globals().update(...)`
    /// bind and unbind module names as in CPython. Until then names live in
    /// the slots, read without hashing; the switch costs the fast paths
    /// nothing, as they find every slot empty and fall back to the slow one.
    module_dict: RefCell<Option<Rc<RefCell<crate::value::Dict>>>>,
    /// Global slot names.
    names: RefCell<GlobalNames>,
    /// Builtins by global slot (filled as names are interned).
    builtin_slots: RefCell<Vec<Option<Value>>>,
    /// The builtins namespace.
    builtins: HashMap<&'static str, Value>,
    /// Imported modules by dotted name.
    modules: RefCell<HashMap<String, Value>>,
    /// Python call depth.
    depth: Cell<u32>,
    /// The most Python frames a call chain may hold (`sys.setrecursionlimit`;
    /// the native stack check still raises RecursionError before the stack
    /// can overflow).
    recursion_limit: Cell<u32>,
    /// Exceptions being handled.
    handling: RefCell<Vec<PyErr>>,
    /// Autograph's state (converted loops being traced).
    ag: RefCell<autograph::AgState>,
    /// Where `print` writes.
    output: RefCell<Output>,
    /// Set by a Ctrl-C handler.
    interrupt: Arc<AtomicBool>,
    /// Loop iterations and calls left before the run is stopped (`u64::MAX`:
    /// no budget). Once spent it stays spent: every later iteration or call
    /// raises again, so a script that catches the error still ends.
    steps_left: Cell<u64>,
    /// Layer state (strategies, devices …).
    state: State,
    /// Echo top-level expression values.
    pub echo: Cell<bool>,
    /// The module running now echoes its expression statements (REPL, doctest, `--echo`).
    echo_module: Cell<bool>,
    /// Ids of containers being repr'd (cycle guard).
    repr_guard: RefCell<Vec<usize>>,
    /// Lowest native stack address calls may reach (0: unchecked).
    stack_limit: Cell<usize>,
    /// Emptied local-slot vectors of finished calls, reused by the next calls.
    locals_pool: RefCell<Vec<Vec<Option<Value>>>>,
    /// Emptied argument vectors of finished calls, reused by the next calls.
    args_pool: RefCell<Vec<Vec<Value>>>,
    /// Methods found on builtin types by call sites (see `unbound_method`).
    method_cache: RefCell<Vec<attr::MethodCacheEntry>>,
    /// Lookups along classes' MROs, by version tag and name (see
    /// `value::typecache`).
    type_cache: RefCell<crate::value::typecache::TypeCache>,
    /// The dunder names the evaluator looks up itself, made once so the type
    /// cache can key on their addresses.
    dunders: attr::Dunders,
    /// The frames' cells, to break their cycles when the interpreter goes.
    cells: RefCell<cells::Cells>,
    /// While a `tf.function` traces: whether the innermost Python frame is
    /// the script's code (not the standard library's), kept by `run_frame`.
    user_code: Cell<bool>,
    /// Above 0 while autograph runs a statement it would have converted as
    /// Python (a form dist does not convert): its tensor tests are allowed.
    lenient: Cell<u32>,
    /// The statement the innermost Python frame is running (`sites.rs`).
    pos: Cell<crate::syntax::Span>,
    /// The innermost link of the live stack (`sites.rs`; null outside any
    /// frame).
    top: Cell<*const sites::Link>,
}

/// Which expression statements of a module print their value's `repr`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Echo {
    /// None (a script without `--echo`, an imported module).
    Off,
    /// The module's top-level expression statements (`dist run --echo`).
    TopLevel,
    /// Every expression statement of the module's own code, inside its
    /// compound statements too (the REPL, doctests: CPython's 'single' mode).
    Interactive,
}

impl Interp {
    /// A fresh interpreter writing to `output`.
    pub fn new(output: Output, interrupt: Arc<AtomicBool>) -> Interp {
        // devices are /job:localhost's until a script configures a cluster
        crate::runtime::device::set_local_job(None);
        let mut builtins: HashMap<&'static str, Value> =
            crate::modules::builtins::builtins().into_iter().collect();
        class::add_object_model_builtins(&mut builtins);
        let interp = Interp {
            globals: RefCell::new(Vec::new()),
            module_dict: RefCell::new(None),
            names: RefCell::new(GlobalNames::default()),
            builtin_slots: RefCell::new(Vec::new()),
            builtins,
            modules: RefCell::new(HashMap::new()),
            depth: Cell::new(0),
            recursion_limit: Cell::new(RECURSION_LIMIT),
            handling: RefCell::new(Vec::new()),
            ag: RefCell::new(Default::default()),
            output: RefCell::new(output),
            interrupt,
            steps_left: Cell::new(u64::MAX),
            state: State::default(),
            echo: Cell::new(false),
            echo_module: Cell::new(false),
            repr_guard: RefCell::new(Vec::new()),
            stack_limit: Cell::new(0),
            locals_pool: RefCell::new(Vec::new()),
            args_pool: RefCell::new(Vec::new()),
            method_cache: RefCell::new(vec![None; attr::METHOD_CACHE]),
            type_cache: RefCell::new(Default::default()),
            cells: RefCell::new(Default::default()),
            dunders: attr::Dunders::default(),
            user_code: Cell::new(false),
            lenient: Cell::new(0),
            pos: Cell::new(crate::syntax::Span::default()),
            top: Cell::new(std::ptr::null()),
        };
        interp.set_global("__name__", Value::str("__main__"));
        interp.set_global("__doc__", Value::None);
        interp
    }

    /// Declares how much native stack the calling thread has left below the
    /// current point; deeper recursion raises RecursionError instead of crashing.
    pub fn set_stack_budget(&self, bytes: usize) {
        let sp = replica::stack_pointer();
        self.stack_limit
            .set(sp.saturating_sub(bytes.saturating_sub(replica::STACK_MARGIN)));
    }

    /// Redirects `print`.
    pub fn set_output(&self, out: Output) {
        *self.output.borrow_mut() = out;
    }

    /// Flushes the output.
    pub fn flush(&self) {
        let out = self.output.borrow().clone();
        let _ = out.borrow_mut().flush();
    }

    /// Sets a module-level name.
    pub fn set_global(&self, name: &str, v: Value) {
        let idx = self.names.borrow_mut().intern(&Rc::from(name));
        self.sync_slots();
        self.store_global(idx, v);
    }

    /// Reads a module-level name.
    pub fn get_global(&self, name: &str) -> Option<Value> {
        if let Some(d) = &*self.module_dict.borrow() {
            return d.borrow().get_str(name);
        }
        let idx = self.names.borrow().get(name)?;
        self.globals.borrow().get(idx as usize).cloned().flatten()
    }

    /// The value bound to global slot `idx`, if any.
    #[inline]
    pub(crate) fn global_slot(&self, idx: u32) -> Option<Value> {
        if let Some(Some(v)) = self.globals.borrow().get(idx as usize) {
            return Some(v.clone());
        }
        let dict = self.module_dict.borrow();
        let d = dict.as_ref()?;
        let name = self.names.borrow().name(idx);
        let v = d.borrow().get_str(&name);
        v
    }

    /// Binds global slot `idx`.
    #[inline]
    pub(crate) fn store_global(&self, idx: u32, v: Value) {
        let old = match &*self.module_dict.borrow() {
            Some(d) => {
                let name = self.names.borrow().name(idx);
                let mut d = d.borrow_mut();
                let old = d.get_str(&name);
                d.set_name(&name, v);
                old
            }
            None => self.globals.borrow_mut()[idx as usize].replace(v),
        };
        // The old value is dropped with no borrow held.
        drop(old);
    }

    /// Unbinds global slot `idx`; whether it was bound.
    pub(crate) fn take_global(&self, idx: u32) -> bool {
        let old = match &*self.module_dict.borrow() {
            Some(d) => {
                let name = self.names.borrow().name(idx);
                let old = d.borrow_mut().remove(&Value::str(&*name)).ok().flatten();
                old
            }
            None => self
                .globals
                .borrow_mut()
                .get_mut(idx as usize)
                .and_then(|s| s.take()),
        };
        old.is_some()
    }

    /// The module's namespace as a live dict (see `module_dict`), made from
    /// the slots on the first request.
    pub(crate) fn module_namespace(&self) -> Rc<RefCell<crate::value::Dict>> {
        if let Some(d) = &*self.module_dict.borrow() {
            return d.clone();
        }
        let mut d = crate::value::Dict::new();
        {
            let names = self.names.borrow();
            let mut globals = self.globals.borrow_mut();
            for (i, slot) in globals.iter_mut().enumerate() {
                if let Some(v) = slot.take() {
                    d.set_name(&names.name(i as u32), v);
                }
            }
        }
        let d = Rc::new(RefCell::new(d));
        *self.module_dict.borrow_mut() = Some(d.clone());
        d
    }

    /// The names bound at module level, in binding order.
    pub fn global_names(&self) -> Vec<String> {
        if let Some(d) = &*self.module_dict.borrow() {
            return d.borrow().str_keys();
        }
        let names = self.names.borrow();
        let globals = self.globals.borrow();
        (0..names.len())
            .filter(|i| globals.get(*i).is_some_and(|v| v.is_some()))
            .map(|i| names.name(i as u32).to_string())
            .collect()
    }

    /// The builtins namespace.
    pub fn builtin_names(&self) -> Vec<String> {
        self.builtins.keys().map(|k| k.to_string()).collect()
    }

    fn sync_slots(&self) {
        let names = self.names.borrow();
        let mut globals = self.globals.borrow_mut();
        let mut slots = self.builtin_slots.borrow_mut();
        while slots.len() < names.len() {
            let name = names.name(slots.len() as u32);
            slots.push(self.builtins.get(&*name).cloned());
            globals.push(None);
        }
    }

    /// Parses and resolves a source file.
    pub fn compile(&self, src: &SourceFile) -> Result<Module, SyntaxError> {
        self.resolve(crate::syntax::parse_module(&src.text)?)
    }

    /// Resolves a module's names against the interpreter's globals (a
    /// parsed module, or a stdlib module's tree read back).
    pub fn resolve(&self, module: Module) -> Result<Module, SyntaxError> {
        resolve_module(&module, &mut self.names.borrow_mut())?;
        self.sync_slots();
        Ok(module)
    }

    /// Parses and resolves a standard-library module (its free names are
    /// builtins: `resolve::resolve_stdlib_module`).
    pub fn compile_stdlib(&self, src: &SourceFile) -> Result<Module, SyntaxError> {
        let module = crate::syntax::parse_module(&src.text)?;
        crate::resolve::resolve_stdlib_module(&module, &mut self.names.borrow_mut())?;
        self.sync_slots();
        Ok(module)
    }

    /// A tree `build.rs` resolved, its global slots renumbered into this
    /// interpreter's table (`syntax::codec`); None if the bytes are not one.
    pub fn decode_resolved(&self, tree: &'static [u8]) -> Option<Module> {
        let module = {
            let mut names = self.names.borrow_mut();
            crate::syntax::codec::decode_lasting_module(tree, &mut |n| names.intern(n))
        }?;
        self.sync_slots();
        Some(module)
    }

    /// Runs a resolved module's statements at top level. With `echo`, the repr
    /// of each expression statement whose value is not None is printed.
    pub fn exec_module(
        &self,
        source: &Rc<SourceFile>,
        module: &Module,
        echo: Echo,
    ) -> PyResult<()> {
        let mut frame = Frame::module(source.clone());
        let label = frame.label.as_deref().expect("a module frame has a label");
        let link = sites::Link {
            source: &label.source,
            name: &label.name,
            caller_pos: self.pos.get(),
            parent: self.top.get(),
        };
        self.top.set(&link);
        let outer = self.echo_module.get();
        let result = match echo {
            // As CPython's interactive mode: expression statements of the
            // module's own code echo, also inside its compound statements
            // (`for x in xs: x`), but not inside functions or class bodies.
            // The parser rejects `return`/`break`/`continue` at module
            // level, so the block's flow is always Normal.
            Echo::Off | Echo::Interactive => {
                self.echo_module.set(echo == Echo::Interactive);
                self.exec_block(&mut frame, &module.body).map(|_| ())
            }
            // `dist run --echo`: only the module's own top-level expression
            // statements, as the docs' doctest-style snippets are checked.
            Echo::TopLevel => (|| {
                for s in &module.body {
                    let top_expr = matches!(s.kind, crate::syntax::ast::StmtKind::Expr(_));
                    self.echo_module.set(top_expr);
                    self.exec(&mut frame, s)?;
                    if generator::dropped_pending() {
                        self.close_dropped();
                    }
                }
                Ok(())
            })(),
        };
        self.echo_module.set(outer);
        self.top.set(link.parent);
        self.pos.set(link.caller_pos);
        result
    }

    /// Prints `repr(v)` for an echoed expression statement (not for None).
    #[inline(never)]
    pub(crate) fn echo_value(&self, v: &Value) -> PyResult<()> {
        if !v.is_none() {
            let text = self.repr(v)?;
            self.write_stdout(&format!("{text}\n"));
        }
        Ok(())
    }

    /// An empty argument vector, reused from a finished call when there is one.
    #[inline]
    pub(crate) fn take_args(&self, capacity: usize) -> Vec<Value> {
        match self.args_pool.borrow_mut().pop() {
            Some(mut v) => {
                v.reserve(capacity);
                v
            }
            None => Vec::with_capacity(capacity.max(4)),
        }
    }

    /// Returns a call's argument vector for reuse (emptied here).
    #[inline]
    pub(crate) fn give_args(&self, mut v: Vec<Value>) {
        v.drain(..).for_each(Value::discard);
        let mut pool = self.args_pool.borrow_mut();
        if pool.len() < 64 && v.capacity() <= 64 {
            pool.push(v);
        }
    }

    /// Limits the loop iterations and calls the code may still run
    /// (embedders, the fuzz targets): past it every iteration and call raises
    /// `RuntimeError: step budget exhausted`.
    pub fn set_step_budget(&self, steps: u64) {
        self.steps_left.set(steps);
    }

    /// Raises KeyboardInterrupt if Ctrl-C was pressed (and the step budget's
    /// error once it is spent).
    #[inline]
    pub fn check_interrupt(&self) -> PyResult<()> {
        let left = self.steps_left.get();
        if left == 0 {
            return Err(PyErr::new(ExcType::RuntimeError, "step budget exhausted"));
        }
        self.steps_left.set(left - 1);
        if self.interrupt.load(Ordering::Relaxed) {
            self.interrupt.store(false, Ordering::Relaxed);
            return Err(PyErr::with_args(ExcType::KeyboardInterrupt, Vec::new()));
        }
        Ok(())
    }

    /// Saves and replaces the per-execution state (for replica coroutines).
    pub fn swap_exec_state(&self, new: ExecState) -> ExecState {
        let old = ExecState {
            depth: self.depth.get(),
            handling: self.handling.replace(new.handling),
            ag: self.ag.replace(new.ag),
            pos: self.pos.replace(new.pos),
            top: std::ptr::NonNull::new(
                self.top.replace(
                    new.top
                        .map_or(std::ptr::null(), |t| t.as_ptr().cast_const()),
                ) as *mut sites::Link,
            ),
        };
        self.depth.set(new.depth);
        old
    }

    /// Records the innermost location of an error raised in `frame` at `span`.
    pub fn locate(&self, frame: &Frame, span: crate::syntax::Span, mut err: PyErr) -> PyErr {
        if !err.0.located {
            err.add_frame(frame.source(), span, frame.name());
        }
        err
    }

    /// Unbinds every module-level name (values dropped in binding order),
    /// then closes the generators that dropping suspended.
    pub fn clear_globals(&self) {
        let mut values: Vec<Option<Value>> = self
            .globals
            .borrow_mut()
            .iter_mut()
            .map(|v| v.take())
            .collect();
        if let Some(d) = self.module_dict.borrow_mut().take() {
            let dict = std::mem::take(&mut *d.borrow_mut());
            values.extend(dict.items().into_iter().map(|(_, v)| Some(v)));
        }
        for v in values {
            drop(v);
            if generator::dropped_pending() {
                self.close_dropped();
            }
        }
    }

    /// Unbinds a module-level name.
    fn del_global(&self, name: &str) {
        let idx = self.names.borrow().get(name);
        if let Some(idx) = idx {
            self.take_global(idx);
        }
    }
}
