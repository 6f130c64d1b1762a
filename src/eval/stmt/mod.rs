//! Statements: the block loop, control flow (`if`, `while`, `for`,
//! `return`, `break`, `continue`), `def`, `class`, imports. Assignment and
//! `del` are in `assign.rs`; `with`, `try` and `raise` in `exceptions.rs`.

mod assign;
mod exceptions;

use super::frame::{ClassNs, Frame};
use super::iter::IterState;
use super::{Flow, Interp};
use crate::object::types::type_error;
use crate::syntax::ast::*;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

impl Interp {
    /// Executes a block.
    #[inline(always)]
    pub fn exec_block(&self, f: &mut Frame, body: &[Stmt]) -> PyResult<Flow> {
        for s in body {
            self.pos.set(s.span);
            // `return value`, the last statement of most calls, is run here
            // rather than through `exec`: one native call less per Python
            // call. Its errors are located as `exec` locates them.
            let flow = if let StmtKind::Return(Some(e)) = &s.kind {
                let v = match self.eval_hot(f, e) {
                    Ok(v) => v,
                    Err(err) => return Err(self.locate(f, s.span, err)),
                };
                if crate::runtime::graph::taint_unlocated() {
                    self.locate_taint(f, s.span);
                }
                std::mem::replace(&mut f.ret, v).discard();
                Flow::Return
            } else {
                self.exec(f, s)?
            };
            if super::generator::dropped_pending() {
                self.close_dropped();
            }
            match flow {
                Flow::Normal => {}
                Flow::Rest | Flow::Guard => return self.exec_rest(f, body, s, flow),
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// The statements after `s` in `body`, for a converted `if` (autograph)
    /// that asked for them.
    #[cold]
    fn exec_rest(&self, f: &mut Frame, body: &[Stmt], s: &Stmt, flow: Flow) -> PyResult<Flow> {
        let i = body
            .iter()
            .position(|x| std::ptr::eq(x, s))
            .unwrap_or(body.len());
        let rest = body.get(i + 1..).unwrap_or(&[]);
        if flow == Flow::Rest {
            self.ag_if_rest(f, s, rest)
        } else {
            self.ag_guard(f, s, rest)
        }
    }

    /// Executes one statement; an error not yet located is located at it.
    pub fn exec(&self, f: &mut Frame, s: &Stmt) -> PyResult<Flow> {
        let r = self.exec_inner(f, s).map_err(|e| self.locate(f, s.span, e));
        if crate::runtime::graph::taint_unlocated() {
            self.locate_taint(f, s.span);
        }
        r
    }

    /// Names the statement that made a traced graph unreplayable in the
    /// graph's taint (`--graph`, `--trace`): the innermost statement that
    /// finishes after the taint, before any other statement does.
    #[cold]
    pub(crate) fn locate_taint(&self, f: &Frame, span: crate::syntax::Span) {
        crate::runtime::graph::locate_taint(|| {
            let src = f.source();
            let line = src.line_of(span.start);
            format!(
                "{} line {line}, in {}: {}",
                src.name,
                f.name(),
                src.line_text(line).trim()
            )
        });
    }

    // The hot statement kinds are handled here; the others live in
    // `exec_cold`, so that this function keeps a small stack frame.
    fn exec_inner(&self, f: &mut Frame, s: &Stmt) -> PyResult<Flow> {
        match &s.kind {
            StmtKind::Expr(e) => {
                let v = self.eval_hot(f, e)?;
                if self.echo_module.get() && f.function.is_none() && f.class_ns.is_empty() {
                    self.echo_value(&v)?;
                }
                v.discard();
            }
            StmtKind::Assign { targets, value } => {
                let v = self.eval_hot(f, value)?;
                if let [t] = &targets[..] {
                    if let ExprKind::Name(n) = &t.kind {
                        if let Slot::Local(i) = n.slot.get() {
                            if let Some(old) = f.locals[i as usize].replace(v) {
                                old.discard();
                            }
                            return Ok(Flow::Normal);
                        }
                    }
                    self.assign(f, t, v)?;
                } else {
                    for t in targets {
                        self.assign(f, t, v.clone())?;
                    }
                }
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(f, target, *op, value)?,
            StmtKind::Return(v) => {
                let v = match v {
                    Some(e) => self.eval_hot(f, e)?,
                    None => Value::None,
                };
                std::mem::replace(&mut f.ret, v).discard();
                return Ok(Flow::Return);
            }
            StmtKind::If { test, body, orelse } => {
                if crate::runtime::graph::tracing() {
                    return self.ag_if_stmt(f, s, test, body, orelse);
                }
                return if self.eval_cond(f, test)? {
                    self.exec_block(f, body)
                } else if orelse.is_empty() {
                    Ok(Flow::Normal)
                } else {
                    self.exec_block(f, orelse)
                };
            }
            StmtKind::While { test, body, orelse } => {
                if crate::runtime::graph::tracing() {
                    return self.ag_while_stmt(f, s, test, body, orelse);
                }
                return self.exec_while(f, test, body, orelse, None, false);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                if crate::runtime::graph::tracing() {
                    return self.ag_for_stmt(f, s, target, iter, body, orelse);
                }
                return self.exec_for(f, target, iter, body, orelse);
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Pass => {}
            _ => return self.exec_cold(f, s),
        }
        Ok(Flow::Normal)
    }

    /// `while test: body else: orelse` (`first`: the test's first value,
    /// already evaluated).
    #[inline(always)]
    pub(super) fn exec_while(
        &self,
        f: &mut Frame,
        test: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
        first: Option<Value>,
        lenient: bool,
    ) -> PyResult<Flow> {
        let mut first = first;
        loop {
            self.check_interrupt()?;
            let go = match first.take() {
                Some(v) if lenient => self.ag_lenient(|| self.is_true(&v))?,
                Some(v) => self.is_true(&v)?,
                None if lenient => {
                    let v = self.eval(f, test)?;
                    self.ag_lenient(|| self.is_true(&v))?
                }
                None => self.eval_cond(f, test)?,
            };
            if !go {
                return self.exec_block(f, orelse);
            }
            match self.exec_block(f, body)? {
                Flow::Break => break,
                Flow::Return => return Ok(Flow::Return),
                Flow::Normal | Flow::Continue | Flow::Rest | Flow::Guard => {}
            }
        }
        Ok(Flow::Normal)
    }

    fn exec_for(
        &self,
        f: &mut Frame,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> PyResult<Flow> {
        let iterable = self.eval_hot(f, iter)?;
        self.exec_for_value(f, target, iterable, body, orelse)
    }

    /// A `for` loop over `iterable`, already evaluated.
    pub(super) fn exec_for_value(
        &self,
        f: &mut Frame,
        target: &Expr,
        iterable: Value,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> PyResult<Flow> {
        let mut it = self.start_iter(&iterable)?;
        // A plain local target is stored directly (the common `for i in ...`).
        let local = match &target.kind {
            ExprKind::Name(n) => match n.slot.get() {
                Slot::Local(i) => Some(i as usize),
                _ => None,
            },
            _ => None,
        };
        loop {
            self.check_interrupt()?;
            // A range steps here (`for i in range(n)`), not through the
            // general `step_iter`.
            let item = match &mut it {
                IterState::Range { next, stop, step } => {
                    if (*step > 0 && *next < *stop) || (*step < 0 && *next > *stop) {
                        let v = *next;
                        *next = next.saturating_add(*step);
                        Value::Int(v)
                    } else {
                        return self.exec_block(f, orelse);
                    }
                }
                _ => match self.step_iter(&mut it)? {
                    Some(item) => item,
                    None => return self.exec_block(f, orelse),
                },
            };
            match local {
                Some(i) => {
                    if let Some(old) = f.locals[i].replace(item) {
                        old.discard();
                    }
                }
                None => self.assign(f, target, item)?,
            }
            match self.exec_block(f, body)? {
                Flow::Break => break,
                Flow::Return => return Ok(Flow::Return),
                Flow::Normal | Flow::Continue | Flow::Rest | Flow::Guard => {}
            }
        }
        Ok(Flow::Normal)
    }

    /// `async for`: `type(x).__aiter__(x)`, then `await it.__anext__()`
    /// until it raises StopAsyncIteration.
    fn exec_async_for(
        &self,
        f: &mut Frame,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> PyResult<Flow> {
        let iterable = self.eval(f, iter)?;
        let type_name = |v: &Value| crate::object::attr::class_name(self, v);
        let method = |v: &Value, name: &str| match v {
            Value::Instance(i) => i.class.lookup(name),
            _ => None,
        };
        let Some(aiter) = method(&iterable, "__aiter__") else {
            return Err(type_error(format!(
                "'async for' requires an object with __aiter__ method, got {}",
                type_name(&iterable)
            )));
        };
        let it = self.call_value(&aiter, vec![iterable.clone()], Vec::new())?;
        let Some(anext) = method(&it, "__anext__") else {
            return Err(type_error(format!(
                "'async for' received an object from __aiter__ that does not implement __anext__: {}",
                type_name(&it)
            )));
        };
        loop {
            self.check_interrupt()?;
            let aw = self.call_value(&anext, vec![it.clone()], Vec::new())?;
            let item = match self.await_value(&aw) {
                Ok(v) => v,
                Err(e) if e.is(ExcType::StopAsyncIteration) => {
                    return self.exec_block(f, orelse);
                }
                Err(e) => return Err(e),
            };
            self.assign(f, target, item)?;
            match self.exec_block(f, body)? {
                Flow::Break => break,
                Flow::Return => return Ok(Flow::Return),
                Flow::Normal | Flow::Continue | Flow::Rest | Flow::Guard => {}
            }
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_cold(&self, f: &mut Frame, s: &Stmt) -> PyResult<Flow> {
        match &s.kind {
            StmtKind::Expr(_)
            | StmtKind::Assign { .. }
            | StmtKind::AugAssign { .. }
            | StmtKind::Return(_)
            | StmtKind::If { .. }
            | StmtKind::While { .. }
            | StmtKind::For { .. }
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass => return self.exec_inner(f, s),
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                if let (Some(ClassNs { ns, mapping: None }), ExprKind::Name(n)) =
                    (f.class_ns.last().cloned(), &target.kind)
                {
                    // A class body records `name: annotation` in `__annotations__`
                    // (dataclasses read it); an annotation that cannot be
                    // evaluated (a forward reference) is kept as its text, as
                    // `from __future__ import annotations` keeps them all.
                    let ann = match self.eval(f, annotation) {
                        Ok(v) => v,
                        Err(_) => {
                            let (a, b) =
                                (annotation.span.start as usize, annotation.span.end as usize);
                            Value::str(f.source().text.get(a..b).unwrap_or(""))
                        }
                    };
                    let existing = ns.borrow().get("__annotations__").cloned();
                    let dict = match existing {
                        Some(d @ Value::Dict(_)) => d,
                        _ => {
                            let d = Value::dict(crate::value::Dict::new());
                            ns.borrow_mut().insert("__annotations__".into(), d.clone());
                            d
                        }
                    };
                    if let Value::Dict(d) = &dict {
                        d.borrow_mut().insert(Value::str(&*n.id), ann)?;
                    }
                }
                if let Some(v) = value {
                    let v = self.eval(f, v)?;
                    self.assign(f, target, v)?;
                }
            }
            StmtKind::AsyncFor {
                target,
                iter,
                body,
                orelse,
            } => return self.exec_async_for(f, target, iter, body, orelse),
            StmtKind::FunctionDef(def) => {
                let func = self.make_function(f, def)?;
                let func = self.decorate(f, &def.decorators, func)?;
                self.store_name(f, &def.target, func)?;
            }
            StmtKind::ClassDef(def) => {
                let cls = self.make_class(f, def)?;
                let cls = self.decorate(f, &def.decorators, cls)?;
                self.store_name(f, &def.target, cls)?;
            }
            StmtKind::Delete(targets) => {
                for t in targets {
                    self.delete(f, t)?;
                }
            }
            StmtKind::With {
                items,
                body,
                is_async,
            } => return self.exec_with(f, items, body, *is_async),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                star,
            } => return self.exec_try(f, body, handlers, orelse, finalbody, *star),
            StmtKind::Raise { exc, cause } => {
                return Err(self.make_raise(f, exc.as_ref(), cause.as_ref())?)
            }
            StmtKind::Assert { test, msg } => {
                let t = self.eval(f, test)?;
                if !self.is_true(&t)? {
                    let args = match msg {
                        Some(m) => vec![self.eval(f, m)?],
                        None => Vec::new(),
                    };
                    // CPython places the failure at the test (its carets).
                    let err = PyErr::with_args(ExcType::AssertionError, args);
                    return Err(self.locate(f, test.span, err));
                }
            }
            StmtKind::Import(aliases) => {
                for a in aliases {
                    let module = self.import(&a.name)?;
                    let bound = match &a.asname {
                        Some(_) => module,
                        None => {
                            // `import a.b` binds `a` (and makes sure `a.b` is loaded).
                            let top = a.name.split('.').next().unwrap_or(&a.name);
                            self.import(top)?
                        }
                    };
                    self.store_name(f, &a.target, bound)?;
                }
            }
            StmtKind::ImportFrom {
                module,
                names,
                star,
            } => {
                let m = self.import(module)?;
                if star.is_some() {
                    return self.import_star(&m).map(|()| Flow::Normal);
                }
                for a in names {
                    let v = match self.get_attribute(&m, &a.name) {
                        Ok(v) => v,
                        Err(e) if e.is(ExcType::NotImplementedError) => return Err(e),
                        Err(_) => match self.import(&format!("{}.{}", module, a.name)) {
                            Ok(v) => v,
                            Err(_) => {
                                return Err(PyErr::new(
                                    ExcType::ImportError,
                                    format!(
                                        "cannot import name '{}' from '{}' (unknown location)",
                                        a.name, module
                                    ),
                                ))
                            }
                        },
                    };
                    self.store_name(f, &a.target, v)?;
                }
            }
            StmtKind::Match { subject, cases } => return self.exec_match(f, subject, cases),
            StmtKind::Global(_) | StmtKind::Nonlocal(_) => {}
        }
        Ok(Flow::Normal)
    }

    /// `from m import *` (module level only): binds the module's `__all__`,
    /// or else every name of it not starting with an underscore.
    fn import_star(&self, m: &Value) -> PyResult<()> {
        let names: Vec<String> = match self.lookup_attribute(m, "__all__")? {
            Some(all) => {
                let mut names = Vec::new();
                for n in self.collect(&all)? {
                    match n.as_builtin() {
                        Value::Str(s) => names.push(s.to_string()),
                        _ => {
                            return Err(type_error(format!(
                                "Item in module.__all__ must be str, not {}",
                                n.type_name()
                            )))
                        }
                    }
                }
                names
            }
            None => {
                let Value::Native(n) = m else {
                    return Ok(());
                };
                let mut names = n.dir();
                names.retain(|n| !n.starts_with('_'));
                names
            }
        };
        for name in names {
            let v = self.get_attribute(m, &name)?;
            self.set_global(&name, v);
        }
        Ok(())
    }

    fn decorate(&self, f: &mut Frame, decorators: &[Expr], mut v: Value) -> PyResult<Value> {
        let decs: Vec<Value> = decorators
            .iter()
            .map(|d| self.eval(f, d))
            .collect::<PyResult<_>>()?;
        for d in decs.iter().rev() {
            v = self.call_value(d, vec![v], Vec::new())?;
        }
        Ok(v)
    }

    /// Whether a value can be iterated (without iterating it).
    pub fn is_iterable(&self, v: &Value) -> bool {
        match v {
            Value::Str(_)
            | Value::Bytes(_)
            | Value::Tuple(_)
            | Value::List(_)
            | Value::Dict(_)
            | Value::Set(_) => true,
            Value::Instance(i) => {
                i.class.lookup("__iter__").is_some()
                    || i.class.lookup("__getitem__").is_some()
                    || i.builtin_base().is_some_and(|b| self.is_iterable(b))
            }
            Value::Native(_) | Value::Tensor(_) => true,
            _ => false,
        }
    }
}
