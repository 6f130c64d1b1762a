//! Call expressions: the specialised paths of `f(...)` (a plain user
//! function's arguments evaluated straight into its locals, `lst.append(x)`,
//! a builtin method called from the cache, zero-argument `super()` and the
//! frame-reading builtins) and the general path that expands `*args` and
//! `**kwargs` before `call_value`. Binding and running a call once the
//! callee and arguments are values is `eval/call.rs`.

use std::rc::Rc;

use super::leaf_int;
use crate::object::types::type_error;

use crate::eval::frame::Frame;
use crate::eval::Interp;
use crate::syntax::ast::*;
use crate::value::{PyResult, Value};

impl Interp {
    pub(super) fn eval_call(
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
                        return self.call_native_positional(f, func, Some(obj), args, None, None);
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
            // `C(...)` of a plain class whose `__init__` is a plain function
            // taking exactly these arguments: the instance is made and its
            // `__init__` called with the arguments straight into its locals
            // (CPython 3.12's `CALL_ALLOC_AND_ENTER_INIT`).
            Value::Class(cls)
                if keywords.is_empty()
                    && !crate::runtime::trace::enabled()
                    && args.iter().all(|a| !matches!(a.kind, ExprKind::Starred(_))) =>
            {
                if let Some(init) = self.plain_init(&cls, args.len()) {
                    let inst = Value::Instance(Rc::new(crate::value::Instance::new(cls)));
                    let r = self.call_plain_with(f, init, Some(inst.clone()), args)?;
                    if !r.is_none() {
                        return Err(type_error(format!(
                            "__init__() should return None, not '{}'",
                            r.type_name()
                        )));
                    }
                    return Ok(inst);
                }
                Value::Class(cls)
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
                return self.call_native_positional(f, nf.func, receiver, args, unbound, Some(nf));
            }
        }
        self.eval_call_general(f, func, callee, receiver, args, keywords)
    }

    /// The `__init__` of `cls` when `cls(...)` with `nargs` positional
    /// arguments only makes an instance and runs it: a user class with no
    /// metaclass, builtin base, exception base, `__new__` or `__del__` of
    /// its own (a `__del__` would see the instance made before the
    /// arguments are evaluated), whose `__init__` is a plain function taking
    /// the instance and `nargs` arguments.
    #[inline]
    fn plain_init(
        &self,
        cls: &Rc<crate::value::Class>,
        nargs: usize,
    ) -> Option<Rc<crate::value::Function>> {
        use crate::value::Class;
        let special = Class::HOOK_BUILTIN_BASE | Class::HOOK_EXCEPTION | Class::HOOK_DEL;
        if cls.meta.is_some()
            || cls.kind != crate::value::ClassKind::User
            || cls.hooks.get() & special != 0
        {
            return None;
        }
        if let Some(new) = self.type_lookup(cls, &self.dunders.new).attr {
            if matches!(
                crate::object::descr::unwrap_method_decorator(new),
                Value::Function(_)
            ) {
                return None;
            }
        }
        match self.type_lookup(cls, &self.dunders.init).attr {
            Some(Value::Function(init)) if init.plain && init.sig.params.len() == nargs + 1 => {
                Some(init)
            }
            _ => None,
        }
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
        dispatch: Option<&Rc<crate::value::NativeFunction>>,
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
        let result = match (func(self, &bound), dispatch) {
            (Err(e), Some(nf)) => self.composite_dispatch(nf, &bound.values, e),
            (result, _) => result,
        };
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
                        return Err(type_error(format!(
                            "{}() argument after * must be an iterable, not {}",
                            self.function_str(&callee),
                            v.type_name()
                        )));
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
                        return Err(type_error(format!(
                            "{}() got multiple values for keyword argument '{}'",
                            self.function_str(&callee),
                            name.name
                        )));
                    }
                    kw.push((name.name.clone(), v));
                }
                None => {
                    let m = self.eval(f, &k.value)?;
                    if !matches!(m, Value::Dict(_)) && self.get_attribute(&m, "keys").is_err() {
                        return Err(type_error(format!(
                            "{}() argument after ** must be a mapping, not {}",
                            self.function_str(&callee),
                            m.type_name()
                        )));
                    }
                    for (key, v) in self.mapping_items(&m)? {
                        let Value::Str(s) = &key else {
                            return Err(type_error("keywords must be strings"));
                        };
                        if kw.iter().any(|(n, _)| **n == ***s) {
                            return Err(type_error(format!(
                                "{}() got multiple values for keyword argument '{}'",
                                self.function_str(&callee),
                                s
                            )));
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
            let r = crate::eval::ops::int_arith(*op, leaf_int(f, left)?, leaf_int(f, right)?)?;
            (!crate::runtime::trace::enabled()).then_some(r)
        }
        _ => leaf_int(f, e),
    }
}
