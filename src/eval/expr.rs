//! Expressions: names, literals and displays, operators, calls (argument
//! evaluation with `*`/`**`), comprehensions, f-strings, lambdas.

use std::cell::RefCell;
use std::rc::Rc;

use crate::value::dict::KeySet;

use super::frame::Frame;
use super::Interp;
use crate::syntax::ast::*;
use crate::syntax::Span;
use crate::value::dict::{key_set_insert, Dict, SetObj};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

impl Interp {
    /// Evaluates an expression; an error not yet located is located at its span.
    #[inline]
    pub fn eval(&self, f: &mut Frame, e: &Expr) -> PyResult<Value> {
        match self.eval_inner(f, e) {
            Ok(v) => Ok(v),
            Err(err) => Err(self.locate(f, e.span, err)),
        }
    }

    /// [`Interp::eval`] with the leaves of hot expressions (a bound local, an
    /// int constant) read in place: no call, no result through memory. Used
    /// where operands are evaluated on the hot paths (operators, arguments).
    #[inline(always)]
    pub(crate) fn eval_hot(&self, f: &mut Frame, e: &Expr) -> PyResult<Value> {
        match &e.kind {
            ExprKind::Name(n) => {
                if let Slot::Local(i) = n.slot.get() {
                    if let Some(v) = &f.locals[i as usize] {
                        return Ok(v.clone());
                    }
                }
            }
            ExprKind::Constant(Constant::Int(i)) => return Ok(Value::Int(*i)),
            // A call operand (`fib(n - 1) + ...`, `x = f(a)`): one native
            // level less than through `eval_inner`.
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                return match self.eval_call(f, func, args, keywords) {
                    Ok(v) => Ok(v),
                    Err(err) => Err(self.locate(f, e.span, err)),
                }
            }
            // `n - 1`, `i * 2` on leaves holding ints: computed in place, so
            // the result does not go through a call's return slot (read back
            // right away, it missed store forwarding). `--trace` takes the
            // general arm, which records the line.
            ExprKind::BinOp { left, op, right } => {
                if let (Some(x), Some(y)) = (leaf_int(f, left), leaf_int(f, right)) {
                    if let Some(r) = super::ops::int_arith(*op, x, y) {
                        if !crate::runtime::trace::enabled() {
                            return Ok(Value::Int(r));
                        }
                    }
                }
                // Straight to the operator (`fib(n - 1) + fib(n - 2)`), not
                // through `eval_inner`'s larger frame.
                return match self.eval_binop(f, e, left, *op, right) {
                    Ok(v) => Ok(v),
                    Err(err) => Err(self.locate(f, e.span, err)),
                };
            }
            _ => {}
        }
        self.eval(f, e)
    }

    /// The truth of a condition (`if`, `while`): a one-operator comparison
    /// of two ints is decided here without making a bool value. Errors are
    /// located as [`Interp::eval`] locates them.
    #[inline(always)]
    pub(crate) fn eval_cond(&self, f: &mut Frame, e: &Expr) -> PyResult<bool> {
        if let ExprKind::Compare {
            left,
            ops,
            comparators,
        } = &e.kind
        {
            if let ([op], [right]) = (&ops[..], &comparators[..]) {
                // Two leaves holding ints (`n < 2`): compared where they are.
                if let (Some(x), Some(y)) = (leaf_int(f, left), leaf_int(f, right)) {
                    if let Some(r) = super::ops::int_compare(*op, x, y) {
                        return Ok(r);
                    }
                }
                let a = self.eval_hot(f, left)?;
                let b = self.eval_hot(f, right)?;
                if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
                    if let Some(r) = super::ops::int_compare(*op, *x, *y) {
                        std::mem::forget(a);
                        std::mem::forget(b);
                        return Ok(r);
                    }
                }
                let r = self
                    .compare_op(*op, &a, &b)
                    .map_err(|err| self.locate(f, e.span, err))?;
                return self.is_true(&r);
            }
        }
        let v = self.eval_hot(f, e)?;
        self.is_true(&v)
    }

    // The hot expression kinds are handled here; the others live in
    // `eval_cold`, so that this function (entered at every node) keeps a
    // small stack frame: a Python call level nests it several times.
    fn eval_inner(&self, f: &mut Frame, e: &Expr) -> PyResult<Value> {
        match &e.kind {
            ExprKind::Constant(c) => Ok(constant(c)),
            ExprKind::Name(n) => self.load_fast(f, n, e.span),
            ExprKind::BinOp { left, op, right } => self.eval_binop(f, e, left, *op, right),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } if ops.len() == 1 => {
                let a = self.eval_hot(f, left)?;
                let b = self.eval_hot(f, &comparators[0])?;
                if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
                    if let Some(r) = super::ops::int_compare(ops[0], *x, *y) {
                        std::mem::forget(a);
                        std::mem::forget(b);
                        return Ok(Value::Bool(r));
                    }
                }
                self.compare_op(ops[0], &a, &b)
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.eval_call(f, func, args, keywords),
            ExprKind::Attribute { value, attr } => {
                let v = self.eval_hot(f, value)?;
                self.get_attribute(&v, &attr.name)
            }
            ExprKind::Subscript { value, slice } => {
                let v = self.eval_hot(f, value)?;
                let k = self.eval_hot(f, slice)?;
                self.get_item(&v, &k)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval_hot(f, operand)?;
                self.unary_op(*op, &v)
            }
            _ => self.eval_cold(f, e),
        }
    }

    /// `left op right` (`e`): both operands, then the operator, two ints
    /// computed in place.
    #[inline(never)]
    fn eval_binop(
        &self,
        f: &mut Frame,
        e: &Expr,
        left: &Expr,
        op: BinOp,
        right: &Expr,
    ) -> PyResult<Value> {
        let a = self.eval_hot(f, left)?;
        let b = self.eval_hot(f, right)?;
        if crate::runtime::trace::enabled() {
            crate::runtime::trace::set_line(f.source().line_of(e.span.start) as u32);
        }
        if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
            if let Some(r) = super::ops::int_arith(op, *x, *y) {
                // Ints own nothing: skip the (out-of-line) drop glue.
                std::mem::forget(a);
                std::mem::forget(b);
                return Ok(Value::Int(r));
            }
        }
        self.binary_op(op, &a, &b)
    }

    #[inline(never)]
    fn eval_cold(&self, f: &mut Frame, e: &Expr) -> PyResult<Value> {
        match &e.kind {
            ExprKind::Constant(_)
            | ExprKind::Name(_)
            | ExprKind::BinOp { .. }
            | ExprKind::Call { .. }
            | ExprKind::Attribute { .. }
            | ExprKind::Subscript { .. }
            | ExprKind::UnaryOp { .. } => self.eval_inner(f, e),
            ExprKind::BoolOp { op, values } => {
                let mut last = Value::None;
                for v in values {
                    last = self.eval(f, v)?;
                    let t = self.is_true(&last)?;
                    match op {
                        BoolOp::And if !t => return Ok(last),
                        BoolOp::Or if t => return Ok(last),
                        _ => {}
                    }
                }
                Ok(last)
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let mut a = self.eval(f, left)?;
                let mut result = Value::Bool(true);
                for (i, (op, c)) in ops.iter().zip(comparators).enumerate() {
                    let b = self.eval(f, c)?;
                    result = self.compare_op(*op, &a, &b)?;
                    if i + 1 < ops.len() && !self.is_true(&result)? {
                        return Ok(result);
                    }
                    a = b;
                }
                Ok(result)
            }
            ExprKind::Slice { lower, upper, step } => {
                let mut part = |x: &Option<Box<Expr>>| match x {
                    Some(x) => self.eval(f, x),
                    None => Ok(Value::None),
                };
                let (l, u, s) = (part(lower)?, part(upper)?, part(step)?);
                Ok(crate::object::types::make_slice(l, u, s))
            }
            ExprKind::IfExp { test, body, orelse } => {
                let t = self.eval(f, test)?;
                if self.is_true(&t)? {
                    self.eval(f, body)
                } else {
                    self.eval(f, orelse)
                }
            }
            ExprKind::Lambda(def) => self.make_function(f, def),
            ExprKind::Tuple(items) => Ok(Value::tuple(self.eval_items(f, items, true)?)),
            ExprKind::List(items) => Ok(Value::list(self.eval_items(f, items, true)?)),
            ExprKind::Set(items) => {
                let mut set = KeySet::default();
                for v in self.eval_items(f, items, false)? {
                    key_set_insert(self, &mut set, v)?;
                }
                Ok(Value::Set(Rc::new(crate::object::types::set::literal_set(
                    items, set,
                ))))
            }
            ExprKind::Dict { keys, values } => {
                let mut d = Dict::new();
                for (k, v) in keys.iter().zip(values) {
                    match k {
                        Some(k) => {
                            let k = self.eval(f, k)?;
                            let v = self.eval(f, v)?;
                            d.insert_vm(self, k, v)?;
                        }
                        None => {
                            let m = self.eval(f, v)?;
                            for (k, v) in self.mapping_items(&m)? {
                                d.insert_vm(self, k, v)?;
                            }
                        }
                    }
                }
                Ok(Value::dict(d))
            }
            ExprKind::Comp(c) => self.eval_comprehension(f, c),
            ExprKind::JoinedStr(parts) => Ok(Value::str(self.eval_fstring(f, parts)?)),
            ExprKind::NamedExpr { target, value } => {
                let v = self.eval(f, value)?;
                self.assign(f, target, v.clone())?;
                Ok(v)
            }
            ExprKind::Yield(v) => {
                let v = match v {
                    Some(v) => self.eval(f, v)?,
                    None => Value::None,
                };
                self.yield_value(v)
            }
            ExprKind::YieldFrom(v) => {
                let v = self.eval(f, v)?;
                self.yield_from(&v)
            }
            ExprKind::Await(v) => {
                let v = self.eval(f, v)?;
                self.await_value(&v)
            }
            ExprKind::Starred(_) => Err(PyErr::new(
                ExcType::SyntaxError,
                "can't use starred expression here",
            )),
        }
    }

    /// Evaluates display items, expanding `*iterable`. A list or tuple
    /// display (`sequence`) names a bad `*` operand as CPython's
    /// `LIST_EXTEND` does; a set display says what iteration says.
    fn eval_items(&self, f: &mut Frame, items: &[Expr], sequence: bool) -> PyResult<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            match &it.kind {
                ExprKind::Starred(inner) => {
                    let v = self.eval(f, inner)?;
                    if sequence && !self.is_iterable(&v) {
                        return Err(PyErr::new(
                            ExcType::TypeError,
                            format!("Value after * must be an iterable, not {}", v.type_name()),
                        ));
                    }
                    out.extend(self.collect_iterable(&v)?);
                }
                _ => out.push(self.eval(f, it)?),
            }
        }
        Ok(out)
    }

    /// Collects any iterable (fast paths for builtin sequences).
    pub fn collect_iterable(&self, v: &Value) -> PyResult<Vec<Value>> {
        match v {
            Value::List(l) => Ok(l.borrow().clone()),
            Value::Tuple(t) => Ok(t.to_vec()),
            _ => {
                let mut it = self.start_iter(v)?;
                let mut out = Vec::new();
                while let Some(x) = self.step_iter(&mut it)? {
                    out.push(x);
                }
                Ok(out)
            }
        }
    }

    /// The (key, value) pairs of a mapping for `**m`.
    pub fn mapping_items(&self, m: &Value) -> PyResult<Vec<(Value, Value)>> {
        if let Some(base) = crate::object::types::subclass::merged_dict(m) {
            return self.mapping_items(&base);
        }
        match m {
            Value::Dict(d) => Ok(d.borrow().items()),
            _ => {
                let keys_fn = self.get_attribute(m, "keys").map_err(|_| {
                    PyErr::new(
                        ExcType::TypeError,
                        format!("'{}' object is not a mapping", m.type_name()),
                    )
                })?;
                let keys = self.call_value(&keys_fn, Vec::new(), Vec::new())?;
                let mut out = Vec::new();
                for k in self.collect_iterable(&keys)? {
                    let v = self.get_item(m, &k)?;
                    out.push((k, v));
                }
                Ok(out)
            }
        }
    }

    /// Reads a name: a bound plain local inline, anything else through [`Interp::load_name`].
    #[inline]
    pub(crate) fn load_fast(&self, f: &Frame, n: &Name, span: Span) -> PyResult<Value> {
        match n.slot.get() {
            Slot::Local(i) => {
                if let Some(v) = &f.locals[i as usize] {
                    return Ok(v.clone());
                }
            }
            Slot::Global(i) => {
                if let Some(Some(v)) = self.globals.borrow().get(i as usize) {
                    return Ok(v.clone());
                }
            }
            _ => {}
        }
        self.load_name(f, n, span)
    }

    /// Reads a name from its slot.
    pub fn load_name(&self, f: &Frame, n: &Name, span: Span) -> PyResult<Value> {
        let _ = span;
        match n.slot.get() {
            Slot::Local(i) => match &f.locals[i as usize] {
                Some(v) => Ok(v.clone()),
                None => Err(PyErr::new(
                    ExcType::UnboundLocalError,
                    format!(
                        "cannot access local variable '{}' where it is not associated with a value",
                        n.id
                    ),
                )),
            },
            Slot::Cell(i) => match &*f.cells[i as usize].borrow() {
                Some(v) => Ok(v.clone()),
                None => Err(
                    if (i as usize) < f.locals.len() + f.cells.len() && self.is_own_cell(f, i) {
                        PyErr::new(
                        ExcType::UnboundLocalError,
                        format!("cannot access local variable '{}' where it is not associated with a value", n.id),
                    )
                    } else {
                        PyErr::new(
                        ExcType::NameError,
                        format!(
                            "cannot access free variable '{}' where it is not associated with a value in enclosing scope",
                            n.id
                        ),
                    )
                    },
                ),
            },
            Slot::Global(i) => self.load_global(i, &n.id),
            Slot::ClassBody(i) => {
                if let Some(ns) = f.class_ns.last() {
                    if let Some(m) = &ns.mapping {
                        match self.get_item(m, &Value::str(&*n.id)) {
                            Err(e) if e.is(ExcType::KeyError) => {}
                            r => return r,
                        }
                    } else if let Some(v) = ns.ns.borrow().get(&n.id) {
                        return Ok(v.clone());
                    }
                }
                self.load_global(i, &n.id)
            }
            Slot::Unresolved => Err(PyErr::new(
                ExcType::NameError,
                format!("name '{}' is not defined", n.id),
            )),
        }
        .map_err(|e| name_error_details(e, f, &n.id))
    }

    fn is_own_cell(&self, f: &Frame, i: u32) -> bool {
        match &f.function {
            Some(func) => i < func.def.scope.borrow().num_cells,
            None => true,
        }
    }

    #[inline]
    fn load_global(&self, i: u32, name: &str) -> PyResult<Value> {
        if let Some(v) = self.global_slot(i) {
            return Ok(v);
        }
        if let Some(Some(v)) = self.builtin_slots.borrow().get(i as usize) {
            return Ok(v.clone());
        }
        Err(PyErr::new(
            ExcType::NameError,
            format!("name '{}' is not defined", name),
        ))
    }

    fn eval_call(
        &self,
        f: &mut Frame,
        func: &Expr,
        args: &[Expr],
        keywords: &[Keyword],
    ) -> PyResult<Value> {
        // `f(...)` where `f` names a plain user function (a global or a
        // local): its `Rc` is cloned in place, without going through a
        // `Value` returned from the name lookup.
        if let ExprKind::Name(n) = &func.kind {
            if keywords.is_empty() && !crate::runtime::trace::enabled() {
                if let Some(fun) = self.plain_function_named(f, n, args.len()) {
                    if args.iter().all(|a| !matches!(a.kind, ExprKind::Starred(_))) {
                        return self.call_plain_with(f, fun, None, args);
                    }
                }
            }
        }
        // `obj.method(...)`: find the method without allocating a bound method.
        let mut receiver: Option<Value> = None;
        let callee = match &func.kind {
            ExprKind::Attribute { value, attr } => {
                let obj = self.eval_hot(f, value)?;
                // `lst.append(x)`, CPython's own specialised call
                // (`LIST_APPEND`): a list's methods cannot be replaced, so
                // the item goes straight onto the list, without an argument
                // vector or a clone.
                if let (Value::List(l), [arg], []) = (&obj, args, keywords) {
                    if &*attr.name == "append"
                        && !matches!(arg.kind, ExprKind::Starred(_))
                        && !crate::runtime::trace::enabled()
                    {
                        let v = self.eval_hot(f, arg)?;
                        l.borrow_mut().push(v);
                        return Ok(Value::None);
                    }
                }
                // A builtin type's method with only positional parameters,
                // given exactly that many: called straight from the cache.
                if let Some((func, arity)) = self.builtin_method_fn(&obj, &attr.name) {
                    if keywords.is_empty()
                        && args.len() + 1 == arity
                        && !crate::runtime::trace::enabled()
                        && args.iter().all(|a| !matches!(a.kind, ExprKind::Starred(_)))
                    {
                        return self.call_native_positional(f, func, Some(obj), args, None);
                    }
                }
                match self.unbound_method(&obj, &attr.name) {
                    Some(m) => {
                        receiver = Some(match &m {
                            // A builtin's method on a subclass instance acts on the builtin value.
                            Value::NativeFunction(nf) if matches!(obj, Value::Instance(_)) => {
                                crate::object::types::subclass::native_receiver(nf, obj)
                            }
                            _ => obj,
                        });
                        m
                    }
                    None => self
                        .get_attribute(&obj, &attr.name)
                        .map_err(|e| self.locate(f, func.span, e))?,
                }
            }
            ExprKind::Name(n) => {
                let callee = self
                    .load_fast(f, n, func.span)
                    .map_err(|e| self.locate(f, func.span, e))?;
                // Zero-argument super() needs the frame.
                if args.is_empty()
                    && keywords.is_empty()
                    && &*n.id == "super"
                    && self.is_builtin_super(&callee)
                {
                    return self.zero_arg_super(f);
                }
                // locals(), globals(), vars(), dir() with no argument read the frame.
                if args.is_empty()
                    && keywords.is_empty()
                    && matches!(&*n.id, "locals" | "globals" | "vars" | "dir")
                    && self.is_builtin_named(&callee, &n.id)
                {
                    return self.frame_namespace(f, &n.id);
                }
                callee
            }
            _ => self.eval(f, func)?,
        };
        // A plain user function called with exactly its positional
        // parameters: the arguments go straight into the callee's locals.
        let callee = match callee {
            Value::Function(fun)
                if fun.plain
                    && keywords.is_empty()
                    && args.len() + receiver.is_some() as usize == fun.sig.params.len()
                    && !crate::runtime::trace::enabled()
                    && args.iter().all(|a| !matches!(a.kind, ExprKind::Starred(_))) =>
            {
                return self.call_plain_with(f, fun, receiver, args);
            }
            other => other,
        };
        // A builtin method or function whose parameters are all positional,
        // called with exactly that many: bound here, without `call_value`.
        if let Value::NativeFunction(nf) = &callee {
            if nf.bound.is_none()
                && keywords.is_empty()
                && args.len() + receiver.is_some() as usize == nf.positional_arity
                && !crate::runtime::trace::enabled()
                && args.iter().all(|a| !matches!(a.kind, ExprKind::Starred(_)))
            {
                let unbound = receiver.is_none().then_some(&**nf);
                return self.call_native_positional(f, nf.func, receiver, args, unbound);
            }
        }
        self.eval_call_general(f, func, callee, receiver, args, keywords)
    }

    /// The plain user function (see `Function::plain`) that the name `n`
    /// holds as a global or a local, when it takes `nargs` parameters.
    #[inline(always)]
    fn plain_function_named(
        &self,
        f: &Frame,
        n: &Name,
        nargs: usize,
    ) -> Option<Rc<crate::value::Function>> {
        let fits = |v: &Value| match v {
            Value::Function(fun) if fun.plain && fun.sig.params.len() == nargs => Some(fun.clone()),
            _ => None,
        };
        match n.slot.get() {
            Slot::Global(i) => fits(self.globals.borrow().get(i as usize)?.as_ref()?),
            Slot::Local(i) => fits(f.locals[i as usize].as_ref()?),
            _ => None,
        }
    }

    /// Calls a plain user function with the receiver (if any) and the
    /// arguments evaluated straight into its locals (their count already
    /// checked to match its parameters).
    #[inline(always)]
    fn call_plain_with(
        &self,
        f: &mut Frame,
        fun: Rc<crate::value::Function>,
        receiver: Option<Value>,
        args: &[Expr],
    ) -> PyResult<Value> {
        let mut locals = self.take_locals();
        if let Some(r) = receiver {
            locals.push(Some(r));
        }
        for a in args {
            if let Some(x) = int_operand(f, a) {
                // Pushed empty, then written in place as a tag and a
                // payload: moved in as one value it went through the stack
                // and was read back with a 16-byte load that missed store
                // forwarding (measured).
                locals.push(None);
                if let Some(slot) = locals.last_mut() {
                    // The slot holds the None just pushed: nothing to drop.
                    std::mem::forget(slot.replace(Value::Int(x)));
                }
                continue;
            }
            match self.eval_hot(f, a) {
                Ok(v) => locals.push(Some(v)),
                Err(e) => {
                    self.give_locals(locals);
                    return Err(e);
                }
            }
        }
        self.call_plain(fun, locals)
    }

    /// Calls a native implementation with the receiver (if any) and the
    /// arguments as its positional parameters, already checked to match.
    #[inline(always)]
    fn call_native_positional(
        &self,
        f: &mut Frame,
        func: crate::value::NativeFn,
        receiver: Option<Value>,
        args: &[Expr],
        unbound: Option<&crate::value::NativeFunction>,
    ) -> PyResult<Value> {
        let mut values = self.take_args(args.len() + 1);
        if let Some(r) = receiver {
            values.push(r);
        }
        for a in args {
            match self.eval_hot(f, a) {
                Ok(v) => values.push(v),
                Err(e) => {
                    self.give_args(values);
                    return Err(e);
                }
            }
        }
        // `list.append(stack, x)`, `int.__add__(flags, 1)`: a builtin
        // type's method called through the class on a subclass instance
        // acts on the builtin value underneath (as `call_value` does).
        if let (Some(nf), Some(first @ Value::Instance(_))) = (unbound, values.first_mut()) {
            let v = std::mem::replace(first, Value::None);
            *first = crate::object::types::subclass::native_receiver(nf, v);
        }
        let bound = crate::value::Args {
            values,
            given: None,
        };
        let result = func(self, &bound);
        self.give_args(bound.values);
        result
    }

    /// A call with the callee evaluated: positional arguments (`*`
    /// expanded), keywords (`**` expanded), then `call_value`.
    #[inline(never)]
    fn eval_call_general(
        &self,
        f: &mut Frame,
        func: &Expr,
        callee: Value,
        receiver: Option<Value>,
        args: &[Expr],
        keywords: &[Keyword],
    ) -> PyResult<Value> {
        let mut pos = self.take_args(args.len() + 1);
        if let Some(r) = receiver {
            pos.push(r);
        }
        for a in args {
            match &a.kind {
                ExprKind::Starred(inner) => {
                    let v = self.eval(f, inner)?;
                    if !self.is_iterable(&v) {
                        return Err(PyErr::new(
                            ExcType::TypeError,
                            format!(
                                "{}() argument after * must be an iterable, not {}",
                                self.function_str(&callee),
                                v.type_name()
                            ),
                        ));
                    }
                    pos.extend(self.collect_iterable(&v)?);
                }
                _ => pos.push(self.eval(f, a)?),
            }
        }
        let mut kw: Vec<(Rc<str>, Value)> = Vec::new();
        for k in keywords {
            match &k.arg {
                Some(name) => {
                    let v = self.eval(f, &k.value)?;
                    // A name that an earlier `**mapping` gave (CPython checks
                    // while merging, whatever the order).
                    if kw.iter().any(|(n, _)| *n == name.name) {
                        return Err(PyErr::new(
                            ExcType::TypeError,
                            format!(
                                "{}() got multiple values for keyword argument '{}'",
                                self.function_str(&callee),
                                name.name
                            ),
                        ));
                    }
                    kw.push((name.name.clone(), v));
                }
                None => {
                    let m = self.eval(f, &k.value)?;
                    if !matches!(m, Value::Dict(_)) && self.get_attribute(&m, "keys").is_err() {
                        return Err(PyErr::new(
                            ExcType::TypeError,
                            format!(
                                "{}() argument after ** must be a mapping, not {}",
                                self.function_str(&callee),
                                m.type_name()
                            ),
                        ));
                    }
                    for (key, v) in self.mapping_items(&m)? {
                        let Value::Str(s) = &key else {
                            return Err(PyErr::new(ExcType::TypeError, "keywords must be strings"));
                        };
                        if kw.iter().any(|(n, _)| **n == ***s) {
                            return Err(PyErr::new(
                                ExcType::TypeError,
                                format!(
                                    "{}() got multiple values for keyword argument '{}'",
                                    self.function_str(&callee),
                                    s
                                ),
                            ));
                        }
                        kw.push((Rc::from(s.as_str()), v));
                    }
                }
            }
        }
        if crate::runtime::trace::enabled() {
            // `--trace`: ops and collectives in this call report its line.
            let saved = crate::runtime::trace::line();
            crate::runtime::trace::set_line(f.source().line_of(func.span.start) as u32);
            let r = self.call_value(&callee, pos, kw);
            crate::runtime::trace::set_line(saved);
            return r;
        }
        self.call_value(&callee, pos, kw)
    }

    fn eval_comprehension(&self, f: &mut Frame, c: &Rc<Comprehension>) -> PyResult<Value> {
        let scope = c.scope.borrow().clone();
        // The outermost iterable is evaluated and iterated here, as CPython
        // does (`(x for x in 5)` fails at once); the rest runs in the loops.
        let first_iter = self.eval(f, &c.generators[0].iter)?;
        let first = self
            .start_iter(&first_iter)
            .map_err(|e| self.locate(f, c.generators[0].iter.span, e))?;
        let mut inner = Frame {
            locals: vec![None; scope.num_locals as usize],
            cells: (0..scope.num_cells)
                .map(|_| Rc::new(RefCell::new(None)))
                .collect(),
            label: Some(Box::new(super::frame::FrameLabel {
                source: f.source().clone(),
                name: match c.kind {
                    CompKind::List => "<listcomp>".into(),
                    CompKind::Set => "<setcomp>".into(),
                    CompKind::Dict => "<dictcomp>".into(),
                    CompKind::Generator => "<genexpr>".into(),
                },
            })),
            function: f.function.clone(),
            class_ns: Vec::new(),
            ret: Value::None,
        };
        for slot in &scope.free {
            inner.cells.push(self.cell_of(f, *slot));
        }
        if c.kind == CompKind::Generator {
            // A generator expression is a generator: its loops run lazily,
            // one item per `next()`, on the generator's coroutine.
            let qualname: Rc<str> = match &f.function {
                Some(fun) => format!("{}.<locals>.<genexpr>", fun.def.qualname).into(),
                None => "<genexpr>".into(),
            };
            let c = c.clone();
            return self.spawn_generator(qualname, "<genexpr>".into(), false, move |interp| {
                let mut out = CompOut::Yield;
                interp.comp_level(&mut inner, &c, 0, Some(first), &mut out)?;
                Ok(Value::None)
            });
        }
        let mut out = CompOut::new(c.kind);
        if let Err(mut e) = self.comp_level(&mut inner, c, 0, Some(first), &mut out) {
            // The comprehension ran as a frame of its own: the enclosing
            // expression adds the caller's traceback entry, as for a call.
            e.0.located = false;
            return Err(e);
        }
        out.finish()
    }

    fn comp_level(
        &self,
        f: &mut Frame,
        c: &Comprehension,
        level: usize,
        first: Option<super::iter::IterState>,
        out: &mut CompOut,
    ) -> PyResult<()> {
        let g = &c.generators[level];
        let mut it = match first {
            Some(it) => it,
            None => {
                let iterable = self.eval(f, &g.iter)?;
                self.start_iter(&iterable)?
            }
        };
        'items: while let Some(item) = self.step_iter(&mut it)? {
            self.check_interrupt()?;
            self.assign(f, &g.target, item)?;
            for cond in &g.ifs {
                let t = self.eval(f, cond)?;
                if !self.is_true(&t)? {
                    continue 'items;
                }
            }
            if level + 1 < c.generators.len() {
                self.comp_level(f, c, level + 1, None, out)?;
            } else {
                let v = self.eval(f, &c.elt)?;
                match c.kind {
                    CompKind::Dict => {
                        let val = match &c.value {
                            Some(e) => self.eval(f, e)?,
                            None => Value::None,
                        };
                        out.push_pair(self, v, val)?;
                    }
                    CompKind::Generator => {
                        self.yield_value(v)?.discard();
                    }
                    _ => out.push(self, v)?,
                }
            }
        }
        Ok(())
    }

    /// The cell for a free-variable source slot of the current frame.
    pub fn cell_of(&self, f: &mut Frame, slot: Slot) -> crate::value::CellRef {
        match slot {
            Slot::Cell(i) => f.cells[i as usize].clone(),
            // The resolver only ever names cells as free-variable sources.
            _ => Rc::new(RefCell::new(None)),
        }
    }

    fn eval_fstring(&self, f: &mut Frame, parts: &[FStringPart]) -> PyResult<String> {
        let mut s = String::new();
        for p in parts {
            match p {
                FStringPart::Literal(t) => s.push_str(t),
                FStringPart::Expr {
                    expr,
                    debug,
                    conversion,
                    format_spec,
                } => {
                    let v = self.eval(f, expr)?;
                    if let Some(d) = debug {
                        s.push_str(d);
                    }
                    let conv = match conversion {
                        Some('r') => Some(self.repr_value(&v)?),
                        Some('s') => Some(self.str_value(&v)?),
                        Some('a') => Some(ascii_of(&self.repr_value(&v)?)),
                        _ if debug.is_some() && format_spec.is_none() => Some(self.repr_value(&v)?),
                        _ => None,
                    };
                    let spec = match format_spec {
                        Some(sp) => self.eval_fstring(f, sp)?,
                        None => String::new(),
                    };
                    let text = match conv {
                        Some(c) => self.format_value(&Value::str(c), &spec)?,
                        None => self.format_value(&v, &spec)?,
                    };
                    s.push_str(&text);
                }
            }
        }
        Ok(s)
    }
}

/// Records the name (and the frame's local names) on a NameError, for the
/// "Did you mean" suggestion the traceback shows.
#[cold]
fn name_error_details(e: PyErr, f: &Frame, name: &str) -> PyErr {
    if let Value::Instance(inst) = e.value() {
        if e.is(ExcType::NameError) && !e.is(ExcType::UnboundLocalError) {
            inst.set_attr("name", Value::str(name));
            if let Some(func) = &f.function {
                let names = func
                    .def
                    .scope
                    .borrow()
                    .local_names
                    .iter()
                    .map(|n| Value::str(&**n))
                    .collect();
                inst.set_attr("_dist_locals", Value::tuple(names));
            }
        }
    }
    e
}

/// `ascii()` of a repr: non-ASCII characters escaped.
pub fn ascii_of(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let u = c as u32;
        if u < 0x80 {
            out.push(c);
        } else if u <= 0xff {
            out.push_str(&format!("\\x{u:02x}"));
        } else if u <= 0xffff {
            out.push_str(&format!("\\u{u:04x}"));
        } else {
            out.push_str(&format!("\\U{u:08x}"));
        }
    }
    out
}

fn constant(c: &Constant) -> Value {
    match c {
        Constant::None => Value::None,
        Constant::Bool(b) => Value::Bool(*b),
        Constant::Int(i) => Value::Int(*i),
        Constant::Float(x) => Value::Float(*x),
        Constant::Imaginary(x) => crate::object::types::complex::Complex::value(0.0, *x),
        Constant::Str(s) => Value::Str(s.clone()),
        Constant::Bytes(b) => Value::Bytes(Rc::new(b.to_vec())),
        Constant::Ellipsis => crate::object::descr::ellipsis(),
    }
}

enum CompOut {
    List(Vec<Value>),
    Set(KeySet),
    Dict(Dict),
    /// A generator expression's items are yielded as they come.
    Yield,
}

impl CompOut {
    fn new(kind: CompKind) -> CompOut {
        match kind {
            CompKind::List => CompOut::List(Vec::new()),
            CompKind::Set => CompOut::Set(KeySet::default()),
            CompKind::Dict => CompOut::Dict(Dict::new()),
            CompKind::Generator => CompOut::Yield,
        }
    }

    fn push(&mut self, vm: &dyn Vm, v: Value) -> PyResult<()> {
        match self {
            CompOut::List(l) => {
                l.try_reserve(1)
                    .map_err(|_| PyErr::with_args(ExcType::MemoryError, Vec::new()))?;
                l.push(v);
            }
            CompOut::Set(s) => {
                key_set_insert(vm, s, v)?;
            }
            CompOut::Dict(_) | CompOut::Yield => {}
        }
        Ok(())
    }

    fn push_pair(&mut self, vm: &dyn Vm, k: Value, v: Value) -> PyResult<()> {
        if let CompOut::Dict(d) = self {
            d.insert_vm(vm, k, v)?;
        }
        Ok(())
    }

    fn finish(self) -> PyResult<Value> {
        Ok(match self {
            CompOut::List(l) => Value::list(l),
            CompOut::Set(s) => Value::Set(Rc::new(SetObj::new(s, false))),
            CompOut::Dict(d) => Value::dict(d),
            CompOut::Yield => Value::None,
        })
    }
}

/// The int an argument expression gives without a call: a leaf (see
/// [`leaf_int`]) or an operator on two leaves (`n - 1`) whose int result
/// fits. The caller builds the `Value` where it stores it, so the tag and
/// the payload are written there as two words: a 16-byte value built on the
/// stack and copied on was read back with one 16-byte load that missed
/// store forwarding (the hottest instruction of a call in `perf annotate`).
#[inline(always)]
fn int_operand(f: &Frame, e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::BinOp { left, op, right } => {
            let r = super::ops::int_arith(*op, leaf_int(f, left)?, leaf_int(f, right)?)?;
            (!crate::runtime::trace::enabled()).then_some(r)
        }
        _ => leaf_int(f, e),
    }
}

/// The int a leaf expression holds without evaluation: a bound local
/// holding an int, or an int constant.
#[inline(always)]
fn leaf_int(f: &Frame, e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Name(n) => match n.slot.get() {
            Slot::Local(i) => match &f.locals[i as usize] {
                Some(Value::Int(v)) => Some(*v),
                _ => None,
            },
            _ => None,
        },
        ExprKind::Constant(Constant::Int(i)) => Some(*i),
        _ => None,
    }
}
