//! Generators. Calling a function whose body holds `yield` binds its
//! arguments into a frame and returns a generator object; the body runs as a
//! stackful coroutine (corosensei, as replicas do) that each `next()`/`send()`
//! resumes and each `yield` suspends. The interpreter's per-execution state
//! (call depth, exceptions being handled, the native stack limit) is swapped
//! in and out around every resume, so a generator suspended inside an
//! `except` block or deep in calls does not leak that state to its caller.
//!
//! `close()` raises GeneratorExit at the suspended `yield` (so `finally`
//! blocks run), `throw()` any exception there; a generator dropped while suspended is unwound without
//! running Python code (CPython would close it).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::frame::Frame;
use super::replica::{self, stack_pointer, STACK_MARGIN};
use super::{Flow, Interp};
use crate::object::types::{type_error, value_error};
use crate::object::{native, ClassSpec, Member};
use crate::value::{ExcType, Function, NativeObject, PyErr, PyResult, Value, Vm};

/// Native stack of a generator's coroutine (virtual memory, committed lazily).
const GEN_STACK: usize = 16 << 20;
/// Finished generators' stacks kept for the next ones.
const STACK_POOL: usize = 32;

type GenYielder = Yielder<PyResult<Value>, Value>;
type GenCoroutine = Coroutine<PyResult<Value>, Value, PyResult<Value>, DefaultStack>;

thread_local! {
    /// Suspended generators dropped since the last safe point, to be closed.
    static DROPPED: RefCell<Vec<Generator>> = const { RefCell::new(Vec::new()) };
    /// The yielder of the generator running now (null outside any).
    static CURRENT: Cell<*const GenYielder> = const { Cell::new(std::ptr::null()) };
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// What one resume ended with.
pub enum Step {
    /// The body reached `yield value`.
    Yield(Value),
    /// The body returned (a finished generator returns None).
    Return(Value),
}

/// The interpreter state a suspended generator keeps for itself.
#[derive(Default)]
struct Saved {
    /// Python frames of the generator that are live (its own and callees').
    depth: u32,
    /// Exceptions being handled inside the generator.
    handling: Vec<PyErr>,
    /// The generator function, whose frame joins the live stack while it
    /// runs (`sites.rs`; None for a generator expression, which runs no
    /// statements).
    function: Option<Rc<crate::value::Function>>,
    /// The statement its frame was running when it last switched out.
    pos: crate::syntax::Span,
}

/// A generator object (`<generator object f at 0x…>`).
pub struct Generator {
    qualname: Rc<str>,
    name: Rc<str>,
    co: RefCell<Option<GenCoroutine>>,
    running: Cell<bool>,
    saved: RefCell<Saved>,
    /// The lowest address the body's native stack may reach (set when it starts).
    limit: Rc<Cell<usize>>,
    /// The interpreter that made it (the only one that may resume it).
    interp: *const Interp,
    /// What the body returned, for the StopIteration of the `next()` that
    /// found it finished.
    returned: RefCell<Value>,
    /// A dropped generator being closed: dropping it again only unwinds.
    detached: bool,
    /// A coroutine (an `async def` called): awaited, not iterated.
    coroutine: bool,
}

/// Whether dropped generators wait to be closed (see [`Interp::close_dropped`]).
#[inline(always)]
pub fn dropped_pending() -> bool {
    // One flag for dropped generators and instances with `__del__`.
    crate::value::object::finalizers_pending()
}

impl Drop for Generator {
    fn drop(&mut self) {
        let suspended = matches!(self.co.get_mut(), Some(co) if co.started() && !co.done());
        if !suspended || self.detached {
            return;
        }
        let g = Generator {
            qualname: self.qualname.clone(),
            name: self.name.clone(),
            co: RefCell::new(self.co.get_mut().take()),
            running: Cell::new(false),
            saved: RefCell::new(std::mem::take(self.saved.get_mut())),
            limit: self.limit.clone(),
            interp: self.interp,
            returned: RefCell::new(Value::None),
            detached: true,
            coroutine: self.coroutine,
        };
        // At thread exit (or inside the queue's own borrow) it is unwound instead.
        let _ = DROPPED.try_with(|q| {
            if let Ok(mut q) = q.try_borrow_mut() {
                q.push(g);
                crate::value::object::set_finalizers_pending(true);
            }
        });
    }
}

impl Interp {
    /// The generator object for a call of generator function `fun` whose
    /// arguments are bound into `frame`.
    pub(super) fn make_generator(&self, fun: &Rc<Function>, mut frame: Frame) -> PyResult<Value> {
        let def = fun.def.clone();
        self.spawn_generator(
            fun.def.qualname.clone(),
            fun.def.name.clone(),
            fun.def.is_async,
            Some(fun.clone()),
            move |interp| match interp.exec_block(&mut frame, &def.body)? {
                Flow::Return => Ok(std::mem::take(&mut frame.ret)),
                _ => Ok(Value::None),
            },
        )
    }

    /// A generator object whose body is `body` (a generator function's
    /// code, a generator expression's loops), run as a coroutine on its
    /// first `next()`; `body`'s value is the generator's return value.
    pub(super) fn spawn_generator(
        &self,
        qualname: Rc<str>,
        name: Rc<str>,
        coroutine: bool,
        function: Option<Rc<crate::value::Function>>,
        body: impl FnOnce(&Interp) -> PyResult<Value> + 'static,
    ) -> PyResult<Value> {
        let stack = match STACKS.with(|p| p.borrow_mut().pop()) {
            Some(s) => s,
            None => DefaultStack::new(GEN_STACK).map_err(|_| {
                PyErr::new(ExcType::MemoryError, "cannot allocate a generator's stack")
            })?,
        };
        let limit = Rc::new(Cell::new(0));
        let body_limit = limit.clone();
        let interp = self as *const Interp;
        let what = if coroutine { "coroutine" } else { "generator" };
        let co = Coroutine::with_stack(stack, move |y: &GenYielder, first: PyResult<Value>| {
            // SAFETY: a generator is resumed only by `Generator::resume`,
            // which runs on the interpreter's thread while the interpreter
            // that made it is alive (values never outlive their interpreter,
            // and a suspended coroutine dropped with it is unwound without
            // running this body further).
            let interp = unsafe { &*interp };
            CURRENT.with(|c| c.set(y as *const GenYielder));
            body_limit.set(stack_pointer().saturating_sub(GEN_STACK - 2 * STACK_MARGIN));
            interp.stack_limit.set(body_limit.get());
            first?;
            interp.depth.set(interp.depth.get() + 1);
            let r = body(interp);
            interp.depth.set(interp.depth.get().saturating_sub(1));
            match r {
                Ok(v) => Ok(v),
                Err(e) if e.is(ExcType::StopIteration) => {
                    // PEP 479: a StopIteration escaping the body is a RuntimeError.
                    let mut err = PyErr::new(
                        ExcType::RuntimeError,
                        format!("{what} raised StopIteration"),
                    );
                    err.0.located = false;
                    Err(err)
                }
                Err(mut e) => {
                    e.0.located = false;
                    Err(e)
                }
            }
        });
        Ok(Value::native(Generator {
            qualname,
            name,
            co: RefCell::new(Some(co)),
            running: Cell::new(false),
            saved: RefCell::new(Saved {
                function,
                ..Saved::default()
            }),
            limit,
            interp,
            returned: RefCell::new(Value::None),
            detached: false,
            coroutine,
        }))
    }

    /// Closes the suspended generators dropped since the last safe point
    /// (their `finally` blocks run) and runs the `__del__` of instances
    /// dropped since then; what one raises is reported as CPython reports an
    /// exception in a finalizer ("Exception ignored in: …").
    #[cold]
    pub(crate) fn close_dropped(&self) {
        loop {
            let next = DROPPED.with(|q| q.borrow_mut().pop());
            if let Some(g) = next {
                if !std::ptr::eq(g.interp, self) {
                    continue;
                }
                if let Err(e) = g.close(self) {
                    self.report_ignored(&format!("<generator object {}>", g.qualname), &e);
                }
                continue;
            }
            if let Some(inst) = crate::value::object::take_finalizable() {
                let class = inst.class.clone();
                let obj = Value::Instance(Rc::new(inst));
                if let Some(del) = class.lookup("__del__") {
                    if let Err(e) = self.call_value(&del, vec![obj.clone()], Vec::new()) {
                        let what = match &del {
                            Value::Function(f) => {
                                format!("<function {} at {:#x}>", f.def.qualname, del.id())
                            }
                            _ => format!("<{} object>", class.name),
                        };
                        self.report_ignored(&what, &e);
                    }
                }
                continue;
            }
            if let Some(due) = crate::object::weakref::take_due_callbacks() {
                for (callback, r) in due {
                    if let Err(e) = self.call_value(&callback, vec![r], Vec::new()) {
                        let what = match &callback {
                            Value::Function(f) => {
                                format!("<function {} at {:#x}>", f.def.qualname, callback.id())
                            }
                            _ => self.repr_value(&callback).unwrap_or_default(),
                        };
                        self.report_ignored(&what, &e);
                    }
                }
                continue;
            }
            crate::value::object::set_finalizers_pending(false);
            break;
        }
    }

    /// CPython's report of an exception raised by a finalizer.
    fn report_ignored(&self, what: &str, e: &PyErr) {
        let msg = self.str_value(e.value()).unwrap_or_default();
        let ty = e.value().type_name();
        let text = if msg.is_empty() {
            ty.to_string()
        } else {
            format!("{ty}: {msg}")
        };
        self.flush();
        eprintln!("Exception ignored in: {what}\n{text}");
    }

    /// `yield value` in the running generator: suspends it; returns what the
    /// next `send()` passes (None for `next()`), or raises what `close()` throws.
    pub(super) fn yield_value(&self, v: Value) -> PyResult<Value> {
        let y = CURRENT.with(|c| c.get());
        if y.is_null() {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                "'yield' outside a running generator",
            ));
        }
        // SAFETY: `CURRENT` holds this generator's yielder only while its
        // coroutine runs (set at its start and after every suspend, restored
        // by `resume` when it stops), and we are on that coroutine's stack.
        let input = unsafe { &*y }.suspend(v);
        CURRENT.with(|c| c.set(y));
        input
    }

    /// `await x`: a coroutine runs inside this one (what it suspends for is
    /// passed out, what is sent in passed on) and its return value is the
    /// expression's value; any other object awaits the iterator its class's
    /// `__await__` returns, as CPython's `GET_AWAITABLE` does.
    pub(super) fn await_value(&self, v: &Value) -> PyResult<Value> {
        if let Some(g) = v.downcast::<Generator>() {
            if g.coroutine {
                return self.yield_from(v);
            }
        }
        let type_name = crate::object::attr::class_name(self, v);
        let has_await = match v {
            Value::Instance(i) => i.class.lookup("__await__").is_some(),
            Value::Native(_) if v.downcast::<Generator>().is_none() => {
                self.getattr(v, "__await__").is_ok()
            }
            _ => false,
        };
        if !has_await {
            return Err(type_error(format!(
                "object {type_name} can't be used in 'await' expression"
            )));
        }
        let method = self.getattr(v, "__await__")?;
        let it = self.call(&method, Vec::new(), Vec::new())?;
        if let Some(g) = it.downcast::<Generator>() {
            if g.coroutine {
                return Err(type_error("__await__() returned a coroutine"));
            }
            return self.yield_from(&it);
        }
        if self.getattr(&it, "__next__").is_err() {
            let t = crate::object::attr::class_name(self, &it);
            return Err(type_error(format!(
                "__await__() returned non-iterator of type '{t}'"
            )));
        }
        self.yield_from(&it)
    }

    /// `yield from iterable`: yields each item; a generator's sent values are
    /// passed on to it, and its return value is the expression's value.
    pub(super) fn yield_from(&self, iterable: &Value) -> PyResult<Value> {
        if let Some(g) = iterable.downcast::<Generator>() {
            let mut input: PyResult<Value> = Ok(Value::None);
            loop {
                match g.resume(self, input)? {
                    Step::Yield(v) => input = self.yield_value(v),
                    Step::Return(v) => return Ok(v),
                }
            }
        }
        let mut it = self.start_iter(iterable)?;
        while let Some(item) = self.step_iter(&mut it)? {
            self.yield_value(item)?;
        }
        Ok(Value::None)
    }
}

impl Generator {
    /// Runs the body until its next `yield` or its end, with `input` as the
    /// value of the `yield` it is suspended at (an error is raised there).
    pub fn resume(&self, interp: &Interp, input: PyResult<Value>) -> PyResult<Step> {
        if self.running.get() {
            return Err(value_error(format!("{} already executing", self.kind())));
        }
        let Some(mut co) = self.co.borrow_mut().take() else {
            if self.coroutine {
                return Err(PyErr::new(
                    ExcType::RuntimeError,
                    "cannot reuse already awaited coroutine",
                ));
            }
            // Finished: a closed or exhausted generator yields nothing more;
            // an error thrown into it is raised as is.
            self.returned.replace(Value::None);
            return input.map(|_| Step::Return(Value::None));
        };
        if !co.started() {
            if let Ok(v) = &input {
                if !v.is_none() {
                    *self.co.borrow_mut() = Some(co);
                    return Err(type_error(format!(
                        "can't send non-None value to a just-started {}",
                        self.kind()
                    )));
                }
            }
        }
        self.running.set(true);
        let outer_gen = CURRENT.with(|c| c.get());
        let outer_replica = replica::take_current_yielder();
        let outer_limit = interp.stack_limit.get();
        let base_depth = interp.depth.get();
        let base_handling = interp.handling.borrow().len();
        let (outer_pos, outer_top) = (interp.pos.get(), interp.top.get());
        // the generator's frame joins the live stack while it runs
        let function = self.saved.borrow().function.clone();
        let link = function.as_ref().map(|f| super::sites::Link {
            source: &f.source,
            name: &f.def.name,
            caller_pos: outer_pos,
            parent: outer_top,
        });
        {
            let mut saved = self.saved.borrow_mut();
            interp.depth.set(base_depth + saved.depth);
            interp.handling.borrow_mut().append(&mut saved.handling);
            if let Some(link) = &link {
                interp.top.set(link);
                interp.pos.set(saved.pos);
            }
        }
        if co.started() {
            interp.stack_limit.set(self.limit.get());
        }
        let r = co.resume(input);
        {
            let mut saved = self.saved.borrow_mut();
            saved.depth = interp.depth.get().saturating_sub(base_depth);
            saved.pos = interp.pos.get();
            let mut handling = interp.handling.borrow_mut();
            let at = base_handling.min(handling.len());
            saved.handling = handling.split_off(at);
        }
        interp.depth.set(base_depth);
        interp.pos.set(outer_pos);
        interp.top.set(outer_top);
        interp.stack_limit.set(outer_limit);
        replica::restore_current_yielder(outer_replica);
        CURRENT.with(|c| c.set(outer_gen));
        self.running.set(false);
        match r {
            CoroutineResult::Yield(v) => {
                *self.co.borrow_mut() = Some(co);
                Ok(Step::Yield(v))
            }
            CoroutineResult::Return(r) => {
                *self.saved.borrow_mut() = Saved::default();
                if let Ok(v) = &r {
                    *self.returned.borrow_mut() = v.clone();
                }
                STACKS.with(|p| {
                    let mut pool = p.borrow_mut();
                    if pool.len() < STACK_POOL {
                        pool.push(co.into_stack());
                    }
                });
                r.map(Step::Return)
            }
        }
    }

    /// `close()`: GeneratorExit at the suspended `yield`; the body may clean
    /// up but not yield again.
    fn close(&self, interp: &Interp) -> PyResult<()> {
        let started = matches!(&*self.co.borrow(), Some(co) if co.started());
        if !started {
            // Never started (or finished): it just becomes finished.
            self.co.borrow_mut().take();
            return Ok(());
        }
        let exit = PyErr::with_args(ExcType::GeneratorExit, Vec::new());
        match self.resume(interp, Err(exit)) {
            Ok(Step::Yield(_)) => Err(PyErr::new(
                ExcType::RuntimeError,
                "generator ignored GeneratorExit",
            )),
            Ok(Step::Return(_)) => Ok(()),
            Err(e) if e.is(ExcType::GeneratorExit) || e.is(ExcType::StopIteration) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

impl NativeObject for Generator {
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{} object {} at {:#x}>",
            self.kind(),
            self.qualname,
            this.id()
        ))
    }
    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok((!self.coroutine).then(|| this.clone()))
    }
    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if self.coroutine {
            return Err(type_error("'coroutine' object is not an iterator"));
        }
        match self.resume(self.interp_of(vm)?, Ok(Value::None))? {
            Step::Yield(v) => Ok(Some(v)),
            Step::Return(_) => Ok(None),
        }
    }
    fn stop_value(&self) -> Value {
        self.returned.replace(Value::None)
    }
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(if self.coroutine {
            &COROUTINE
        } else {
            &GENERATOR
        })
    }
    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "__name__" => Some(Value::str(&*self.name)),
            "__qualname__" => Some(Value::str(&*self.qualname)),
            _ => None,
        })
    }
    fn dir(&self) -> Vec<String> {
        if self.coroutine {
            return [
                "send",
                "close",
                "throw",
                "cr_running",
                "__await__",
                "__name__",
                "__qualname__",
            ]
            .map(String::from)
            .to_vec();
        }
        [
            "send",
            "close",
            "throw",
            "gi_running",
            "__next__",
            "__iter__",
            "__name__",
            "__qualname__",
        ]
        .map(String::from)
        .to_vec()
    }
}

impl Generator {
    /// "generator" or "coroutine", as messages name it.
    fn kind(&self) -> &'static str {
        if self.coroutine {
            "coroutine"
        } else {
            "generator"
        }
    }

    /// The interpreter behind a native call's `vm`: the one that made this
    /// generator (checked by address).
    fn interp_of(&self, vm: &dyn Vm) -> PyResult<&Interp> {
        if vm as *const dyn Vm as *const () != self.interp as *const () {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                "a generator can only run in the interpreter that made it",
            ));
        }
        // SAFETY: `vm` is that interpreter (same address), borrowed for the call.
        Ok(unsafe { &*self.interp })
    }
}

fn this_gen(v: &Value) -> PyResult<&Generator> {
    v.downcast::<Generator>()
        .ok_or_else(|| type_error("expected a generator"))
}

/// `StopIteration(value)` for a generator that returned `value`.
fn stop_iteration(v: Value) -> PyErr {
    let args = if v.is_none() { Vec::new() } else { vec![v] };
    PyErr::with_args(ExcType::StopIteration, args)
}

/// `send(value)` and `__next__()`: the next yielded value, or StopIteration
/// carrying the return value.
fn resume_with(vm: &dyn Vm, this: &Value, input: Value) -> PyResult<Value> {
    let g = this_gen(this)?;
    match g.resume(g.interp_of(vm)?, Ok(input))? {
        Step::Yield(v) => Ok(v),
        Step::Return(v) => Err(stop_iteration(v)),
    }
}

/// The class `generator`.
static GENERATOR: ClassSpec = ClassSpec {
    name: "generator",
    module: "builtins",
    bases: &[],
    members: &[
        Member::Method(send::DEF),
        Member::Method(close::DEF),
        Member::Method(next::DEF),
        Member::Method(iter::DEF),
        Member::Getter(gi_running::DEF),
        Member::Method(throw::DEF),
    ],
};

/// The class `coroutine`.
static COROUTINE: ClassSpec = ClassSpec {
    name: "coroutine",
    module: "builtins",
    bases: &[],
    members: &[
        Member::Method(send::DEF),
        Member::Method(close::DEF),
        Member::Method(throw::DEF),
        Member::Method(await_::DEF),
        Member::Getter(cr_running::DEF),
    ],
};

/// Resumes the generator with value as the result of its yield; returns the next yielded value.
#[native("send(self, value, /)")]
fn send(vm: &dyn Vm, this: &Value, value: Value) -> PyResult<Value> {
    resume_with(vm, this, value)
}

/// Implement next(self).
#[native("__next__(self, /)")]
fn next(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    resume_with(vm, this, Value::None)
}

/// Raise an exception inside the generator at its suspended yield; return the next yielded value.
// `throw(exc)` / `throw(type, value)`: raises the exception at the
// suspended `yield` (before the first line if the body has not started).
#[native("throw(self, typ, val=None, tb=None, /)")]
fn throw(vm: &dyn Vm, this: &Value, typ: &Value, val: &Value, _tb: &Value) -> PyResult<Value> {
    let g = this_gen(this)?;
    let interp = g.interp_of(vm)?;
    let exc = match val {
        Value::None => typ.clone(),
        value => match typ {
            Value::Class(_) => vm.call(typ, vec![value.clone()], Vec::new())?,
            _ => {
                return Err(type_error(
                    "instance exception may not have a separate value",
                ))
            }
        },
    };
    let mut err = interp.exception_from(exc)?;
    err.0.located = false;
    match g.resume(interp, Err(err))? {
        Step::Yield(v) => Ok(v),
        Step::Return(v) => Err(stop_iteration(v)),
    }
}

/// Raise GeneratorExit inside generator.
#[native("close(self, /)")]
fn close(vm: &dyn Vm, this: &Value) -> PyResult<()> {
    let g = this_gen(this)?;
    g.close(g.interp_of(vm)?)
}

/// Implement iter(self).
#[native("__iter__(self, /)")]
fn iter(this: Value) -> Value {
    this
}

/// Return an iterator to be used in await expression.
// `coroutine.__await__()`: an iterator that drives the coroutine.
#[native("__await__(self, /)")]
fn await_(this: Value) -> Value {
    Value::native(AwaitIter(this))
}

/// Whether the generator is running now.
#[native("generator.gi_running(self)")]
fn gi_running(this: &Value) -> PyResult<bool> {
    Ok(this_gen(this)?.running.get())
}

/// Whether the coroutine is running now.
#[native("coroutine.cr_running(self)")]
fn cr_running(this: &Value) -> PyResult<bool> {
    Ok(this_gen(this)?.running.get())
}

/// The iterator `coroutine.__await__()` returns (`coroutine_wrapper`):
/// `next()`/`send()`/`throw()`/`close()` act on the coroutine.
struct AwaitIter(Value);

impl NativeObject for AwaitIter {
    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }
    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let g = this_gen(&self.0)?;
        match g.resume(g.interp_of(vm)?, Ok(Value::None))? {
            Step::Yield(v) => Ok(Some(v)),
            Step::Return(_) => Ok(None),
        }
    }
    fn stop_value(&self) -> Value {
        this_gen(&self.0).map_or(Value::None, |g| g.returned.replace(Value::None))
    }
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&COROUTINE_WRAPPER)
    }
    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "send" | "throw" | "close" => Some(vm.getattr(&self.0, name)?),
            _ => None,
        })
    }
}

/// The class `coroutine_wrapper`.
static COROUTINE_WRAPPER: ClassSpec = ClassSpec {
    name: "coroutine_wrapper",
    module: "builtins",
    bases: &[],
    members: &[Member::Method(await_next::DEF)],
};

/// Implement next(self).
#[native("__next__(self, /)")]
fn await_next(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    match this.downcast::<AwaitIter>() {
        Some(w) => resume_with(vm, &w.0, Value::None),
        None => Err(type_error("expected a coroutine_wrapper")),
    }
}
