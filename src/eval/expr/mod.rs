//! Expressions: the evaluator's entry points (`eval`, and the hot paths
//! `eval_hot` and `eval_cond` that read int leaves in place), the dispatch
//! over expression kinds, operators, displays and f-strings. Names are read
//! in `name.rs`, call expressions evaluated in `call.rs`, comprehensions in
//! `comprehension.rs`.

mod call;
mod comprehension;
mod name;

pub(crate) use name::unbound_local;

use std::rc::Rc;

use crate::object::types::{long_ops, type_error};
use crate::value::dict::KeySet;

use super::frame::Frame;
use super::Interp;
use crate::syntax::ast::*;
use crate::value::dict::{key_set_insert, Dict};
use crate::value::{ExcType, PyErr, PyResult, Value};

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
                self.load_attr(&v, &attr.name)
            }
            ExprKind::Subscript { value, slice } => {
                let v = self.eval_hot(f, value)?;
                let k = self.eval_hot(f, slice)?;
                self.get_item(&v, &k)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval_hot(f, operand)?;
                if let (UnaryOp::Not, Value::Tensor(_)) = (op, &v) {
                    return self.eval_not_tensor(f, v);
                }
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
        // A big int operand: the operands are ours, so a temporary's
        // storage can take the result (`acc + num * 2`).
        if (matches!(a, Value::Long(_)) && long_ops::assignable(op, &b))
            || (matches!(b, Value::Long(_)) && long_ops::assignable(op, &a))
        {
            return long_ops::long_binop_owned(op, a, b);
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
            ExprKind::BoolOp { op, values } => self.eval_bool_op(f, *op, values),
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
                self.eval_if_exp(f, test, t, body, orelse)
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
                )?)))
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
                        return Err(type_error(format!(
                            "Value after * must be an iterable, not {}",
                            v.type_name()
                        )));
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
                let mut out =
                    crate::object::types::alloc_vec(crate::object::types::length_hint(v))?;
                let mut it = self.start_iter(v)?;
                while let Some(x) = self.step_iter(&mut it)? {
                    crate::object::types::push(&mut out, x)?;
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
                    type_error(format!("'{}' object is not a mapping", m.type_name()))
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
        Constant::Long(n) => Value::Long(n.clone()),
        Constant::Float(x) => Value::Float(*x),
        Constant::Imaginary(x) => crate::object::types::complex::Complex::value(0.0, *x),
        Constant::Str(s) => Value::Str(s.clone()),
        Constant::Bytes(b) => Value::Bytes(Rc::new(b.to_vec())),
        Constant::Ellipsis => crate::object::descr::ellipsis(),
    }
}

/// The int a leaf expression holds without evaluation: a bound local
/// holding an int, or an int constant.
#[inline(always)]
pub(in crate::eval) fn leaf_int(f: &Frame, e: &Expr) -> Option<i64> {
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
