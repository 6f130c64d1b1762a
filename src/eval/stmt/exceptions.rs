//! The statements that handle exceptions: `with` (`__exit__` runs as a
//! handler of an escaping exception), `try`/`except`/`else`/`finally`,
//! `raise` (with `from` and implicit chaining), and the matching of an
//! exception against an `except` clause. `except*` is in `exc_group.rs`.

use crate::eval::exc_group::not_exception_class;
use crate::eval::frame::Frame;
use crate::eval::{Flow, Interp};
use crate::object::types::type_error;
use crate::syntax::ast::*;
use crate::value::{ExcType, PyErr, PyResult, Value};

impl Interp {
    pub(super) fn exec_with(
        &self,
        f: &mut Frame,
        items: &[WithItem],
        body: &[Stmt],
        is_async: bool,
    ) -> PyResult<Flow> {
        let Some((first, rest)) = items.split_first() else {
            return self.exec_block(f, body);
        };
        let mgr = self.eval(f, &first.context_expr)?;
        let enter = |mgr: &Value| {
            if is_async {
                self.async_context_enter(mgr)
            } else {
                self.context_enter(mgr)
            }
        };
        let exit = |mgr: &Value, e: Option<&PyErr>| {
            if is_async {
                self.async_context_exit(mgr, e)
            } else {
                self.context_exit(mgr, e)
            }
        };
        let entered = enter(&mgr).map_err(|e| self.locate(f, first.context_expr.span, e))?;
        let result = (|| {
            if let Some(t) = &first.optional_vars {
                self.assign(f, t, entered)?;
            }
            if rest.is_empty() {
                self.exec_block(f, body)
            } else {
                self.exec_with(f, rest, body, is_async)
            }
        })();
        match result {
            Ok(flow) => {
                exit(&mgr, None).map_err(|e| self.locate(f, first.context_expr.span, e))?;
                Ok(flow)
            }
            Err(err) => {
                let err = self.locate(f, first.context_expr.span, err);
                // `__exit__` runs as a handler of the exception: one it
                // raises gets it as `__context__`.
                let exc = err.clone();
                let (err, suppress) = self.while_handling(err, || exit(&mgr, Some(&exc)));
                if suppress? {
                    Ok(Flow::Normal)
                } else {
                    Err(err)
                }
            }
        }
    }

    pub(super) fn exec_try(
        &self,
        f: &mut Frame,
        body: &[Stmt],
        handlers: &[ExceptHandler],
        orelse: &[Stmt],
        finalbody: &[Stmt],
        star: bool,
    ) -> PyResult<Flow> {
        let result = match self.exec_block(f, body) {
            Ok(Flow::Normal) => self.exec_block(f, orelse),
            Ok(flow) => Ok(flow),
            Err(err) if star => self.handle_star(f, err, handlers),
            Err(err) => self.handle(f, err, handlers),
        };
        if finalbody.is_empty() {
            return result;
        }
        // With an exception propagating, `finally` runs as its handler (bare
        // `raise` re-raises it; one raised there gets it as `__context__`).
        let (result, fin) = match result {
            Err(err) => {
                let (err, fin) = self.while_handling(err, || self.exec_block(f, finalbody));
                (Err(err), fin)
            }
            ok => (ok, self.exec_block(f, finalbody)),
        };
        match fin? {
            Flow::Normal => result,
            // `return`/`break`/`continue` in finally overrides (and discards an exception).
            other => Ok(other),
        }
    }

    fn handle(&self, f: &mut Frame, mut err: PyErr, handlers: &[ExceptHandler]) -> PyResult<Flow> {
        if err.is(ExcType::KeyboardInterrupt) && handlers.iter().all(|h| h.type_.is_some()) {
            // Only an explicit handler catches KeyboardInterrupt; fall through to matching.
        }
        for h in handlers {
            let matches = match &h.type_ {
                None => true,
                Some(t) => {
                    // The clause's classes are evaluated while `err` is
                    // being handled (an error there gets it as its context).
                    let probe = PyErr::from_value(err.value().clone());
                    let (back, m) = self.while_handling(err, || {
                        let cls = self.eval(f, t)?;
                        self.exception_matches(&probe, &cls)
                    });
                    err = back;
                    m?
                }
            };
            if !matches {
                continue;
            }
            if let Some(n) = &h.name {
                self.assign(f, n, err.value().clone())?;
            }
            let (_, r) = self.while_handling(err, || self.exec_block(f, &h.body));
            if let Some(n) = &h.name {
                let _ = self.delete(f, n);
            }
            return r;
        }
        Err(err)
    }

    /// Runs `body` as a handler of `err` (an `except` clause, a `finally`
    /// block or `__exit__` reached by an exception): `err` is the exception
    /// being handled meanwhile (bare `raise`, `sys.exc_info()`), and one
    /// escaping `body` gets it as its `__context__` (CPython's implicit
    /// chaining) unless it is `err` itself or was given a context where it
    /// was raised. Gives `err` back with `body`'s result.
    pub(crate) fn while_handling<T>(
        &self,
        err: PyErr,
        body: impl FnOnce() -> PyResult<T>,
    ) -> (PyErr, PyResult<T>) {
        let value = err.value().clone();
        // A handler sees where the exception came from (`e.__traceback__`,
        // `sys.exc_info()[2]`, the `traceback` module).
        if let Value::Instance(inst) = &value {
            if !err.0.traceback.is_empty() {
                inst.set_attr("__traceback__", crate::eval::traceback::Traceback::of(&err));
            }
        }
        self.handling.borrow_mut().push(err);
        let r = body();
        let err = (self.handling.borrow_mut().pop()).unwrap_or_else(|| PyErr::from_value(value));
        if let Err(e) = &r {
            if let Value::Instance(inst) = e.value() {
                if !err.value().is(e.value()) && inst.get_attr("__context__").is_none() {
                    inst.set_attr("__context__", err.value().clone());
                }
            }
        }
        (err, r)
    }

    /// Whether an exception matches an `except` clause's class (or tuple of classes).
    pub fn exception_matches(&self, err: &PyErr, cls: &Value) -> PyResult<bool> {
        match cls {
            Value::Class(c) => {
                if c.exception_type().is_none() {
                    return Err(not_exception_class());
                }
                Ok(err.class().is_subclass_of(c))
            }
            Value::Tuple(items) => {
                for i in items.iter() {
                    if self.exception_matches(err, i)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Err(not_exception_class()),
        }
    }

    pub(super) fn make_raise(
        &self,
        f: &mut Frame,
        exc: Option<&Expr>,
        cause: Option<&Expr>,
    ) -> PyResult<PyErr> {
        let Some(exc) = exc else {
            return match self.handling.borrow().last() {
                Some(e) => {
                    let mut e = e.clone();
                    e.0.located = false;
                    e.0.traceback.clear();
                    e.0.reraise = true;
                    Ok(e)
                }
                None => Ok(PyErr::new(
                    ExcType::RuntimeError,
                    "No active exception to reraise",
                )),
            };
        };
        let v = self.eval(f, exc)?;
        let mut err = self.exception_from(v)?;
        if let Some(c) = cause {
            let cv = self.eval(f, c)?;
            let cause_val = match cv {
                Value::None => Value::None,
                Value::Class(ref c) if c.exception_type().is_some() => {
                    self.exception_from(cv)?.value().clone()
                }
                Value::Instance(ref i) if i.class.exception_type().is_some() => cv,
                _ => {
                    return Err(type_error(
                        "exception causes must derive from BaseException",
                    ))
                }
            };
            if let Value::Instance(inst) = err.value() {
                inst.set_attr("__cause__", cause_val);
                inst.set_attr("__suppress_context__", Value::Bool(true));
            }
        }
        if let (Some(prev), Value::Instance(inst)) = (self.handling.borrow().last(), err.value()) {
            if !prev.value().is(err.value()) {
                inst.set_attr("__context__", prev.value().clone());
            }
        }
        err.0.located = false;
        Ok(err)
    }

    /// Turns a raised value (class or instance) into an exception.
    pub fn exception_from(&self, v: Value) -> PyResult<PyErr> {
        match &v {
            Value::Class(c) if c.exception_type().is_some() => {
                let inst = self.call_value(&v, Vec::new(), Vec::new())?;
                Ok(PyErr::from_value(inst))
            }
            Value::Instance(i) if i.class.exception_type().is_some() => Ok(PyErr::from_value(v)),
            _ => Err(type_error("exceptions must derive from BaseException")),
        }
    }
}
