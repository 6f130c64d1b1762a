//! Statements: assignment (all target forms), control flow, `with`,
//! `try`, `raise`, `def`, `class`, imports.

use std::rc::Rc;

use super::frame::{ClassNs, Frame};
use super::{Flow, Interp};
use crate::syntax::ast::*;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

impl Interp {
    /// Executes a block.
    #[inline(always)]
    pub fn exec_block(&self, f: &mut Frame, body: &[Stmt]) -> PyResult<Flow> {
        for s in body {
            // `return value`, the last statement of most calls, is run here
            // rather than through `exec`: one native call less per Python
            // call. Its errors are located as `exec` locates them.
            let flow = if let StmtKind::Return(Some(e)) = &s.kind {
                let v = match self.eval_hot(f, e) {
                    Ok(v) => v,
                    Err(err) => return Err(self.locate(f, s.span, err)),
                };
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
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// Executes one statement; an error not yet located is located at it.
    pub fn exec(&self, f: &mut Frame, s: &Stmt) -> PyResult<Flow> {
        self.exec_inner(f, s).map_err(|e| self.locate(f, s.span, e))
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
                return if self.eval_cond(f, test)? {
                    self.exec_block(f, body)
                } else if orelse.is_empty() {
                    Ok(Flow::Normal)
                } else {
                    self.exec_block(f, orelse)
                };
            }
            StmtKind::While { test, body, orelse } => loop {
                self.check_interrupt()?;
                if !self.eval_cond(f, test)? {
                    return self.exec_block(f, orelse);
                }
                match self.exec_block(f, body)? {
                    Flow::Break => break,
                    Flow::Return => return Ok(Flow::Return),
                    Flow::Normal | Flow::Continue => {}
                }
            },
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => return self.exec_for(f, target, iter, body, orelse),
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Pass => {}
            _ => return self.exec_cold(f, s),
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
            let Some(item) = self.step_iter(&mut it)? else {
                return self.exec_block(f, orelse);
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
                Flow::Normal | Flow::Continue => {}
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
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "'async for' requires an object with __aiter__ method, got {}",
                    type_name(&iterable)
                ),
            ));
        };
        let it = self.call_value(&aiter, vec![iterable.clone()], Vec::new())?;
        let Some(anext) = method(&it, "__anext__") else {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "'async for' received an object from __aiter__ that does not implement __anext__: {}",
                    type_name(&it)
                ),
            ));
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
                Flow::Normal | Flow::Continue => {}
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
                            return Err(PyErr::new(
                                ExcType::TypeError,
                                format!(
                                    "Item in module.__all__ must be str, not {}",
                                    n.type_name()
                                ),
                            ))
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

    // ---- assignment ---------------------------------------------------------------

    /// Binds a value to an assignment target.
    pub fn assign(&self, f: &mut Frame, target: &Expr, v: Value) -> PyResult<()> {
        match &target.kind {
            ExprKind::Name(n) => self.store_name(f, n, v),
            ExprKind::Attribute { value, attr } => {
                let obj = self.eval(f, value)?;
                self.set_attribute(&obj, &attr.name, v)
            }
            ExprKind::Subscript { value, slice } => {
                let obj = self.eval_hot(f, value)?;
                let key = self.eval_hot(f, slice)?;
                self.set_item(&obj, &key, v)
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => self.unpack(f, items, v),
            ExprKind::Starred(_) => Err(PyErr::new(
                ExcType::SyntaxError,
                "starred assignment target must be in a list or tuple",
            )),
            _ => Err(PyErr::new(
                ExcType::SyntaxError,
                "cannot assign to expression",
            )),
        }
        .map_err(|e| self.locate(f, target.span, e))
    }

    fn unpack(&self, f: &mut Frame, targets: &[Expr], v: Value) -> PyResult<()> {
        let items = match &v {
            Value::Tuple(t) => t.to_vec(),
            Value::List(l) => l.borrow().clone(),
            _ => {
                if !self.is_iterable(&v) {
                    return Err(PyErr::new(
                        ExcType::TypeError,
                        format!("cannot unpack non-iterable {} object", v.type_name()),
                    ));
                }
                self.collect(&v)?
            }
        };
        let star = targets
            .iter()
            .position(|t| matches!(t.kind, ExprKind::Starred(_)));
        match star {
            None => {
                if items.len() != targets.len() {
                    return Err(if items.len() > targets.len() {
                        PyErr::new(
                            ExcType::ValueError,
                            format!("too many values to unpack (expected {})", targets.len()),
                        )
                    } else {
                        PyErr::new(
                            ExcType::ValueError,
                            format!(
                                "not enough values to unpack (expected {}, got {})",
                                targets.len(),
                                items.len()
                            ),
                        )
                    });
                }
                for (t, item) in targets.iter().zip(items) {
                    self.assign(f, t, item)?;
                }
            }
            Some(si) => {
                let after = targets.len() - si - 1;
                if items.len() < targets.len() - 1 {
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        format!(
                            "not enough values to unpack (expected at least {}, got {})",
                            targets.len() - 1,
                            items.len()
                        ),
                    ));
                }
                let mut items = items;
                let tail = items.split_off(items.len() - after);
                let middle = items.split_off(si);
                for (t, item) in targets[..si].iter().zip(items) {
                    self.assign(f, t, item)?;
                }
                if let ExprKind::Starred(inner) = &targets[si].kind {
                    self.assign(f, inner, Value::list(middle))?;
                }
                for (t, item) in targets[si + 1..].iter().zip(tail) {
                    self.assign(f, t, item)?;
                }
            }
        }
        Ok(())
    }

    fn aug_assign(&self, f: &mut Frame, target: &Expr, op: BinOp, value: &Expr) -> PyResult<()> {
        match &target.kind {
            ExprKind::Name(n) => {
                let cur = self.load_fast(f, n, target.span)?;
                let rhs = self.eval_hot(f, value)?;
                let new = match (&cur, &rhs) {
                    (Value::Int(x), Value::Int(y)) => match super::ops::int_arith(op, *x, *y) {
                        Some(r) => Value::Int(r),
                        None => self.inplace_op(op, &cur, &rhs)?,
                    },
                    _ => self.inplace_op(op, &cur, &rhs)?,
                };
                if let Slot::Local(i) = n.slot.get() {
                    f.locals[i as usize] = Some(new);
                    return Ok(());
                }
                self.store_name(f, n, new)
            }
            ExprKind::Attribute { value: obj, attr } => {
                let o = self.eval(f, obj)?;
                let cur = self.get_attribute(&o, &attr.name)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace_op(op, &cur, &rhs)?;
                self.set_attribute(&o, &attr.name, new)
            }
            ExprKind::Subscript { value: obj, slice } => {
                let o = self.eval(f, obj)?;
                let k = self.eval(f, slice)?;
                let cur = self.get_item(&o, &k)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace_op(op, &cur, &rhs)?;
                self.set_item(&o, &k, new)
            }
            _ => Err(PyErr::new(
                ExcType::SyntaxError,
                "illegal expression for augmented assignment",
            )),
        }
    }

    pub(super) fn delete(&self, f: &mut Frame, target: &Expr) -> PyResult<()> {
        match &target.kind {
            ExprKind::Name(n) => self.delete_name(f, n, target.span),
            ExprKind::Attribute { value, attr } => {
                let o = self.eval(f, value)?;
                self.del_attribute(&o, &attr.name)
            }
            ExprKind::Subscript { value, slice } => {
                let o = self.eval(f, value)?;
                let k = self.eval(f, slice)?;
                self.del_item(&o, &k)
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for i in items {
                    self.delete(f, i)?;
                }
                Ok(())
            }
            _ => Err(PyErr::new(ExcType::SyntaxError, "cannot delete expression")),
        }
    }

    // ---- with / try / raise -------------------------------------------------------

    fn exec_with(
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

    fn exec_try(
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
                inst.set_attr("__traceback__", super::traceback::Traceback::of(&err));
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
                    return Err(PyErr::new(
                        ExcType::TypeError,
                        "catching classes that do not inherit from BaseException is not allowed",
                    ));
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
            _ => Err(PyErr::new(
                ExcType::TypeError,
                "catching classes that do not inherit from BaseException is not allowed",
            )),
        }
    }

    fn make_raise(
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
                    return Err(PyErr::new(
                        ExcType::TypeError,
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
            _ => Err(PyErr::new(
                ExcType::TypeError,
                "exceptions must derive from BaseException",
            )),
        }
    }

    /// Stores `v` under `Rc<str>` name in the given frame (used by class bodies and imports).
    pub fn store_name(&self, f: &mut Frame, n: &Name, v: Value) -> PyResult<()> {
        match n.slot.get() {
            Slot::Local(i) => f.locals[i as usize] = Some(v),
            Slot::Cell(i) => *f.cells[i as usize].borrow_mut() = Some(v),
            Slot::Global(i) => self.store_global(i, v),
            Slot::ClassBody(i) => match f.class_ns.last() {
                Some(ClassNs {
                    mapping: Some(m), ..
                }) => self.set_item(m, &Value::str(&*n.id), v)?,
                Some(ns) => {
                    ns.ns.borrow_mut().insert(n.id.clone(), v);
                }
                None => self.store_global(i, v),
            },
            Slot::Unresolved => {
                return Err(PyErr::new(
                    ExcType::RuntimeError,
                    format!("internal error: unresolved name '{}'", n.id),
                ))
            }
        }
        Ok(())
    }

    fn delete_name(&self, f: &mut Frame, n: &Name, span: crate::syntax::Span) -> PyResult<()> {
        let existed = match n.slot.get() {
            Slot::Local(i) => f.locals[i as usize].take().is_some(),
            Slot::Cell(i) => f.cells[i as usize].borrow_mut().take().is_some(),
            Slot::Global(i) => self.take_global(i),
            Slot::ClassBody(i) => match f.class_ns.last() {
                Some(ClassNs {
                    mapping: Some(m), ..
                }) => {
                    self.del_item(m, &Value::str(&*n.id))?;
                    true
                }
                Some(ns) => ns.ns.borrow_mut().shift_remove(&n.id).is_some(),
                None => self.take_global(i),
            },
            Slot::Unresolved => false,
        };
        let _ = span;
        if !existed {
            return Err(match n.slot.get() {
                Slot::Local(_) => PyErr::new(
                    ExcType::UnboundLocalError,
                    format!(
                        "cannot access local variable '{}' where it is not associated with a value",
                        n.id
                    ),
                ),
                _ => PyErr::new(
                    ExcType::NameError,
                    format!("name '{}' is not defined", n.id),
                ),
            });
        }
        Ok(())
    }

    /// The `Rc<str>` helper for natives that need to name things.
    pub fn rc(s: &str) -> Rc<str> {
        s.into()
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
