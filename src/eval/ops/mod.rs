//! Operators on values: arithmetic with Python's semantics on 64-bit ints
//! (overflow raises, never wraps), floats, sequences; dunder dispatch with
//! reflected operands; comparisons; truthiness; `len`, `in`, `hash`.

use crate::object::types::subclass::base_value;
use std::rc::Rc;

use super::Interp;
use crate::object::descr::not_implemented;
use crate::object::types::int_overflow;
use crate::object::types::misc::UnionType;
use crate::object::types::num::{num, num_binop, num_cmp};
use crate::object::types::ops::{binop_error, compare_error, inplace_error, unary_error};
use crate::object::types::set::{set_op, set_op_in_place};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::value::dict::{dict_get, find_key, hash_with_vm, key_eq, keys_subset, set_contains};
use crate::value::{ExcType, PyErr, PyResult, Value};

#[cold]
fn overflow() -> PyErr {
    int_overflow()
}

#[cold]
fn memory_error() -> PyErr {
    PyErr::with_args(ExcType::MemoryError, Vec::new())
}

/// Upper bound on elements of one sequence repetition/concatenation (guards
/// against asking the allocator for absurd sizes).
const MAX_SEQ: usize = 1 << 31;

/// CPython's OverflowError for a str/bytes repetition whose length would
/// not fit in a `Py_ssize_t` (lists and tuples raise MemoryError instead).
fn too_long(len: usize, n: i64, msg: &str) -> PyResult<()> {
    if n > 0 && len as i128 * n as i128 > i64::MAX as i128 {
        return Err(PyErr::new(ExcType::OverflowError, msg));
    }
    Ok(())
}

fn repeat<T: Clone>(items: &[T], n: i64) -> PyResult<Vec<T>> {
    if n <= 0 || items.is_empty() {
        return Ok(Vec::new());
    }
    let total = items
        .len()
        .checked_mul(n as usize)
        .filter(|t| *t <= MAX_SEQ)
        .ok_or_else(memory_error)?;
    let mut out = Vec::new();
    out.try_reserve_exact(total).map_err(|_| memory_error())?;
    for _ in 0..n {
        out.extend_from_slice(items);
    }
    Ok(out)
}

fn unsupported(op: BinOp, a: &Value, b: &Value) -> PyErr {
    binop_error(op, a, b)
}

/// `x op y` on two ints where it cannot fail (`+`, `-`, `*` without
/// overflow): the evaluator's fast path before the general [`Interp::binary_op`].
#[inline(always)]
pub(crate) fn int_arith(op: BinOp, x: i64, y: i64) -> Option<i64> {
    match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mult => x.checked_mul(y),
        _ => None,
    }
}

/// `x op y` on two ints for the comparison operators that cannot fail.
#[inline(always)]
pub(crate) fn int_compare(op: CmpOp, x: i64, y: i64) -> Option<bool> {
    match op {
        CmpOp::Lt => Some(x < y),
        CmpOp::LtE => Some(x <= y),
        CmpOp::Gt => Some(x > y),
        CmpOp::GtE => Some(x >= y),
        CmpOp::Eq => Some(x == y),
        CmpOp::NotEq => Some(x != y),
        _ => None,
    }
}

impl Interp {
    /// `a op b`.
    pub fn binary_op(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value> {
        if let (Some(x), Some(y)) = (num(a), num(b)) {
            let bools = matches!((a, b), (Value::Bool(_), Value::Bool(_)));
            return num_binop(op, x, y, bools);
        }
        if let Some(v) = self.builtin_seq_op(op, a, b)? {
            return Ok(v);
        }
        self.dispatch_binop(op, a, b)
    }

    /// `a op= b`: lists extend in place; everything else as `a op b`.
    pub fn inplace_op(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value> {
        match (op, a) {
            (BinOp::Mult, Value::List(l)) if matches!(b, Value::Int(_) | Value::Bool(_)) => {
                let n = match b {
                    Value::Int(i) => *i,
                    Value::Bool(x) => *x as i64,
                    _ => 0,
                };
                let items = repeat(&l.borrow(), n)?;
                *l.borrow_mut() = items;
                return Ok(a.clone());
            }
            (BinOp::Add, Value::List(l)) => {
                let items = match b {
                    Value::List(o) => o.borrow().clone(),
                    _ => self.collect_iterable(b)?,
                };
                l.borrow_mut().extend(items);
                return Ok(a.clone());
            }
            // Sets and dicts update in place (other names for the object see it).
            (BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor, Value::Set(s))
                if !s.frozen =>
            {
                if let Value::Set(o) = b {
                    let sym = op.symbol().chars().next().unwrap_or('|');
                    let keys = o.items.borrow().clone();
                    set_op_in_place(self, sym, s, b, &keys)?;
                    return Ok(a.clone());
                }
            }
            (BinOp::BitOr, Value::Dict(d)) => {
                crate::object::types::dict::dict_update(self, d, b)?;
                return Ok(a.clone());
            }
            (_, Value::Instance(inst)) => {
                let name = format!("__i{}", &op.dunder()[2..]);
                if let Some(m) = inst.class.lookup(&name) {
                    let r = self.call_value(&m, vec![a.clone(), b.clone()], Vec::new())?;
                    if !r.is(&not_implemented()) {
                        return Ok(r);
                    }
                }
                // A list/set/dict subclass changes in place and stays itself
                // unless the class defines the plain operator.
                if let Some(base) = inst.builtin_base() {
                    if inst.class.lookup(op.dunder()).is_none() {
                        let r = self.inplace_op(op, base, b)?;
                        return Ok(if r.is(base) { a.clone() } else { r });
                    }
                }
            }
            _ => {}
        }
        self.binary_op(op, a, b)
            .map_err(|e| inplace_error(op, a, b, e))
    }

    fn builtin_seq_op(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Option<Value>> {
        Ok(Some(match (op, a, b) {
            (BinOp::Add, Value::Str(x), Value::Str(y)) => {
                let mut s = String::new();
                s.try_reserve(x.len() + y.len())
                    .map_err(|_| memory_error())?;
                s.push_str(x);
                s.push_str(y);
                Value::str(s)
            }
            (BinOp::Add, Value::Bytes(x), Value::Bytes(y)) => {
                let mut v = x.to_vec();
                v.extend_from_slice(y);
                Value::Bytes(Rc::new(v))
            }
            (BinOp::Add, Value::List(x), Value::List(y)) => {
                let mut v = x.borrow().clone();
                v.extend(y.borrow().iter().cloned());
                Value::list(v)
            }
            (BinOp::Add, Value::Tuple(x), Value::Tuple(y)) => {
                let mut v = x.to_vec();
                v.extend(y.iter().cloned());
                Value::tuple(v)
            }
            (BinOp::Mult, Value::Str(s), n) | (BinOp::Mult, n, Value::Str(s)) if is_int(n) => {
                too_long(s.chars().count(), int_of(n), "repeated string is too long")?;
                let bytes = repeat(s.as_bytes(), int_of(n))?;
                Value::str(String::from_utf8(bytes).unwrap_or_default())
            }
            (BinOp::Mult, Value::List(l), n) | (BinOp::Mult, n, Value::List(l)) if is_int(n) => {
                Value::list(repeat(&l.borrow(), int_of(n))?)
            }
            (BinOp::Mult, Value::Tuple(t), n) | (BinOp::Mult, n, Value::Tuple(t)) if is_int(n) => {
                Value::tuple(repeat(t, int_of(n))?)
            }
            (BinOp::Mult, Value::Bytes(s), n) | (BinOp::Mult, n, Value::Bytes(s)) if is_int(n) => {
                too_long(s.len(), int_of(n), "repeated bytes are too long")?;
                Value::Bytes(Rc::new(repeat(s, int_of(n))?))
            }
            (BinOp::Mod, Value::Str(fmt), args) if !matches!(args, Value::Instance(i) if i.class.lookup("__rmod__").is_some()) => {
                Value::str(crate::value::percent::percent_format(self, fmt, args)?)
            }
            (BinOp::Mod, Value::Bytes(fmt), args) if !matches!(args, Value::Instance(i) if i.class.lookup("__rmod__").is_some()) => {
                Value::Bytes(Rc::new(crate::value::percent::percent_format_bytes(
                    self, fmt, args,
                )?))
            }
            (
                BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor,
                Value::Set(x),
                Value::Set(y),
            ) => {
                let sym = op.symbol().chars().next().unwrap_or('|');
                let keys = y.items.borrow().clone();
                Value::Set(Rc::new(set_op(self, sym, x, b, &keys)?))
            }
            (BinOp::BitOr, Value::Dict(x), Value::Dict(y)) => {
                let mut d = x.borrow().clone();
                for (k, v) in y.borrow().map.iter() {
                    d.map.insert(k.clone(), v.clone());
                }
                Value::dict(d)
            }
            _ => return Ok(None),
        }))
    }

    fn dispatch_binop(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value> {
        // A right operand whose class is a proper subclass of the left's and
        // overrides the reflected method goes first (CPython's rule).
        if let (Value::Instance(x), Value::Instance(y)) = (a, b) {
            if !Rc::ptr_eq(&x.class, &y.class) && y.class.is_subclass_of(&x.class) {
                let mine = y.class.lookup(op.rdunder());
                let theirs = x.class.lookup(op.rdunder());
                let overrides = match (&mine, &theirs) {
                    (Some(m), Some(t)) => !m.is(t),
                    (Some(_), None) => true,
                    _ => false,
                };
                if overrides {
                    if let Some(v) = self.try_binop_side(op, b, a, true)? {
                        return Ok(v);
                    }
                    if let Some(v) = self.try_binop_side(op, a, b, false)? {
                        return Ok(v);
                    }
                    return Err(unsupported(op, a, b));
                }
            }
        }
        // A builtin number, dict or set on the left with an instance of a
        // builtin subclass on the right: the left's own operator takes the
        // value underneath (`1.0 + Flags(1)` is a float, whatever `__radd__`
        // `Flags` has), unless the right's class derives from the left's
        // type and defines the reflected method, which then goes first.
        if let (false, Value::Instance(y)) = (
            matches!(
                a,
                Value::Instance(_)
                    | Value::Native(_)
                    | Value::Tensor(_)
                    | Value::Str(_)
                    | Value::Bytes(_)
                    | Value::List(_)
                    | Value::Tuple(_)
            ),
            b,
        ) {
            if let Some(yb) = y.builtin_base() {
                let derived = yb.value_type() == a.value_type();
                if derived && y.class.lookup(op.rdunder()).is_some() {
                    if let Some(v) = self.try_binop_side(op, b, a, true)? {
                        return Ok(v);
                    }
                }
                if crate::object::types::slots::handles(op, a, yb) {
                    return self.binary_op(op, a, yb);
                }
            }
        }
        // Left operand's method, then the right operand's reflected method.
        if let Some(v) = self.try_binop_side(op, a, b, false)? {
            return Ok(v);
        }
        if let Some(v) = self.try_binop_side(op, b, a, true)? {
            return Ok(v);
        }
        // A subclass of a builtin type without the method: the builtin's
        // operator on the value underneath (`stack + [3]` is a list).
        let (x, y) = (base_value(a), base_value(b));
        if x.is_some() || y.is_some() {
            let x = x.unwrap_or_else(|| a.clone());
            let y = y.unwrap_or_else(|| b.clone());
            // The message names the operands' own types (`'int' and 'Name'`).
            return self.binary_op(op, &x, &y).map_err(|e| {
                let unsupported_operands = e.is(ExcType::TypeError)
                    && matches!(e.args().first(), Some(Value::Str(m)) if m.starts_with("unsupported operand"));
                if unsupported_operands {
                    unsupported(op, a, b)
                } else {
                    e
                }
            });
        }
        // Sequence repetition by an object with `__index__` (`"ab" * n`).
        if op == BinOp::Mult {
            let is_seq = |v: &Value| {
                matches!(
                    v,
                    Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Bytes(_)
                )
            };
            for (seq, n, seq_first) in [(a, b, true), (b, a, false)] {
                let Value::Instance(inst) = n else { continue };
                if !is_seq(seq) {
                    continue;
                }
                if let Some(m) = inst.class.lookup("__index__") {
                    let i = self.call_value(&m, vec![n.clone()], Vec::new())?;
                    if !matches!(i, Value::Int(_) | Value::Bool(_)) {
                        return Err(PyErr::new(
                            ExcType::TypeError,
                            format!("__index__ returned non-int (type {})", i.type_name()),
                        ));
                    }
                    return if seq_first {
                        self.binary_op(op, seq, &i)
                    } else {
                        self.binary_op(op, &i, seq)
                    };
                }
            }
        }
        Err(unsupported(op, a, b))
    }

    fn try_binop_side(
        &self,
        op: BinOp,
        this: &Value,
        other: &Value,
        reflected: bool,
    ) -> PyResult<Option<Value>> {
        match this {
            Value::Instance(inst) => {
                let name = if reflected { op.rdunder() } else { op.dunder() };
                if let Some(m) = inst.class.lookup(name) {
                    let r = self.call_value(&m, vec![this.clone(), other.clone()], Vec::new())?;
                    if !r.is(&not_implemented()) {
                        return Ok(Some(r));
                    }
                }
                Ok(None)
            }
            Value::Native(n) => n.binop(this, op, other, reflected, self),
            Value::Tensor(_) => {
                crate::object::tensor::tensor_binop(self, op, this, other, reflected)
            }
            // `type.__or__`: `int | str` is a union of types.
            Value::Class(_) if op == BinOp::BitOr => Ok(if reflected {
                UnionType::or(other, this, self)
            } else {
                UnionType::or(this, other, self)
            }),
            _ => Ok(None),
        }
    }

    /// Unary operators.
    pub fn unary_op(&self, op: UnaryOp, v: &Value) -> PyResult<Value> {
        match (op, v) {
            (UnaryOp::Not, _) => Ok(Value::Bool(!self.is_true(v)?)),
            (UnaryOp::USub, Value::Int(i)) => i.checked_neg().map(Value::Int).ok_or_else(overflow),
            (UnaryOp::USub, Value::Bool(b)) => Ok(Value::Int(-(*b as i64))),
            (UnaryOp::USub, Value::Float(f)) => Ok(Value::Float(-f)),
            (UnaryOp::UAdd, Value::Int(_) | Value::Float(_)) => Ok(v.clone()),
            (UnaryOp::UAdd, Value::Bool(b)) => Ok(Value::Int(*b as i64)),
            (UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
            (UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!(*b as i64))),
            (_, Value::Instance(inst)) => {
                let name = match op {
                    UnaryOp::USub => "__neg__",
                    UnaryOp::UAdd => "__pos__",
                    _ => "__invert__",
                };
                match inst.class.lookup(name) {
                    Some(m) => self.call_value(&m, vec![v.clone()], Vec::new()),
                    None => match inst.builtin_base() {
                        Some(base) => self.unary_op(op, base),
                        None => Err(bad_unary(op, v)),
                    },
                }
            }
            (_, Value::Native(n)) => {
                let c = unary_char(op);
                n.unary(v, c, self)?.ok_or_else(|| bad_unary(op, v))
            }
            (_, Value::Tensor(_)) => crate::object::tensor::tensor_unary(self, unary_char(op), v)?
                .ok_or_else(|| bad_unary(op, v)),
            _ => Err(bad_unary(op, v)),
        }
    }

    /// Comparison operators (may return non-bools for tensors and user dunders).
    pub fn compare_op(&self, op: CmpOp, a: &Value, b: &Value) -> PyResult<Value> {
        match op {
            CmpOp::Is => Ok(Value::Bool(a.is(b))),
            CmpOp::IsNot => Ok(Value::Bool(!a.is(b))),
            CmpOp::In => Ok(Value::Bool(self.contains_value(b, a)?)),
            CmpOp::NotIn => Ok(Value::Bool(!self.contains_value(b, a)?)),
            _ => self.rich_compare(op, a, b),
        }
    }

    fn rich_compare(&self, op: CmpOp, a: &Value, b: &Value) -> PyResult<Value> {
        if let (Some(x), Some(y)) = (num(a), num(b)) {
            return Ok(Value::Bool(ord_matches(op, num_cmp(x, y))));
        }
        // Dunder methods and natives first (they may return tensors or NotImplemented).
        let (name, rname) = cmp_dunders(op);
        // The reflected method of a right operand whose class is a proper
        // subclass of the left's goes first.
        let reflect_first = matches!((a, b), (Value::Instance(x), Value::Instance(y))
            if !Rc::ptr_eq(&x.class, &y.class) && y.class.is_subclass_of(&x.class));
        let order = if reflect_first {
            [(b, a, rname), (a, b, name)]
        } else {
            [(a, b, name), (b, a, rname)]
        };
        for (this, other, n) in order {
            match this {
                Value::Instance(inst) => {
                    if let Some(m) = inst.class.lookup(n) {
                        let r =
                            self.call_value(&m, vec![this.clone(), other.clone()], Vec::new())?;
                        if !r.is(&not_implemented()) {
                            return Ok(r);
                        }
                    } else if op == CmpOp::NotEq && inst.builtin_base().is_none() {
                        // object.__ne__: the inverse of __eq__ unless that is NotImplemented.
                        if let Some(m) = inst.class.lookup("__eq__") {
                            let r =
                                self.call_value(&m, vec![this.clone(), other.clone()], Vec::new())?;
                            if !r.is(&not_implemented()) {
                                return Ok(Value::Bool(!self.is_true(&r)?));
                            }
                        }
                    }
                }
                Value::Native(nat) => {
                    let sym = if std::ptr::eq(this, a) {
                        op.symbol()
                    } else {
                        swapped(op).symbol()
                    };
                    if let Some(r) = nat.compare(this, sym, other, self)? {
                        return Ok(r);
                    }
                }
                Value::Tensor(_) => {
                    let sym = if std::ptr::eq(this, a) {
                        op.symbol()
                    } else {
                        swapped(op).symbol()
                    };
                    if let Some(r) = crate::object::tensor::tensor_compare(self, this, sym, other)?
                    {
                        return Ok(r);
                    }
                }
                _ => {}
            }
        }
        // A subclass of a builtin type compares as its value underneath;
        // a refusal names the operands' own types (`'collections.OrderedDict'`).
        let (x, y) = (base_value(a), base_value(b));
        if x.is_some() || y.is_some() {
            let x = x.unwrap_or_else(|| a.clone());
            let y = y.unwrap_or_else(|| b.clone());
            return self.rich_compare(op, &x, &y).map_err(|e| {
                // The refusal of these two values, not of items inside them.
                let ours = crate::object::types::ops::compare_error(op.symbol(), &x, &y);
                let refused = e.is(ExcType::TypeError)
                    && matches!((e.args().first(), ours.args().first()), (Some(Value::Str(m)), Some(Value::Str(o))) if m == o);
                if refused {
                    crate::object::types::ops::compare_error(op.symbol(), a, b)
                } else {
                    e
                }
            });
        }
        if let (Value::Set(x), Value::Set(y)) = (a, b) {
            // As CPython's set_richcompare: sizes first, then one subset
            // test (clones: an __eq__ may change the sets).
            let (xs, ys) = (x.items.borrow().clone(), y.items.borrow().clone());
            let (nx, ny) = (xs.len(), ys.len());
            let r = match op {
                CmpOp::Eq => nx == ny && keys_subset(self, &xs, &ys)?,
                CmpOp::NotEq => !(nx == ny && keys_subset(self, &xs, &ys)?),
                CmpOp::Lt => nx < ny && keys_subset(self, &xs, &ys)?,
                CmpOp::LtE => nx <= ny && keys_subset(self, &xs, &ys)?,
                CmpOp::Gt => nx > ny && keys_subset(self, &ys, &xs)?,
                _ => nx >= ny && keys_subset(self, &ys, &xs)?,
            };
            return Ok(Value::Bool(r));
        }
        match op {
            CmpOp::Eq => Ok(Value::Bool(self.builtin_eq(a, b)?)),
            CmpOp::NotEq => Ok(Value::Bool(!self.builtin_eq(a, b)?)),
            _ => {
                let ord = self.builtin_order(a, b)?;
                match ord {
                    Some(o) => Ok(Value::Bool(ord_matches(op, Some(o)))),
                    None => Err(compare_error(op.symbol(), a, b)),
                }
            }
        }
    }

    /// `a == b` as a bool.
    pub fn values_eq(&self, a: &Value, b: &Value) -> PyResult<bool> {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => Ok(x == y),
            (Value::Str(x), Value::Str(y)) => Ok(x == y),
            _ => {
                let r = self.rich_compare(CmpOp::Eq, a, b)?;
                self.is_true(&r)
            }
        }
    }

    fn builtin_eq(&self, a: &Value, b: &Value) -> PyResult<bool> {
        Ok(match (a, b) {
            (Value::List(x), Value::List(y)) => {
                if Rc::ptr_eq(x, y) {
                    return Ok(true);
                }
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                self.seq_eq(&x, &y)?
            }
            (Value::Tuple(x), Value::Tuple(y)) => self.seq_eq(x, y)?,
            (Value::Dict(x), Value::Dict(y)) => {
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                if x.len() != y.len() {
                    return Ok(false);
                }
                for (k, v) in x.map.iter() {
                    match find_key(self, k, |p| y.map.get(p).cloned())? {
                        Some(w) => {
                            if !self.values_eq(v, &w)? {
                                return Ok(false);
                            }
                        }
                        None => return Ok(false),
                    }
                }
                true
            }
            _ => key_eq(a, b),
        })
    }

    fn seq_eq(&self, x: &[Value], y: &[Value]) -> PyResult<bool> {
        if x.len() != y.len() {
            return Ok(false);
        }
        self.guard_depth(|| {
            for (p, q) in x.iter().zip(y) {
                if !p.is(q) && !self.values_eq(p, q)? {
                    return Ok(false);
                }
            }
            Ok(true)
        })
    }

    /// Runs `f` one level deeper (guards recursion through nested containers).
    pub fn guard_depth<T>(&self, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
        self.check_stack()?;
        let d = self.depth.get();
        if d >= self.recursion_limit.get() {
            return Err(PyErr::new(
                ExcType::RecursionError,
                "maximum recursion depth exceeded in comparison",
            ));
        }
        self.depth.set(d + 1);
        let r = f();
        self.depth.set(d);
        r
    }

    fn builtin_order(&self, a: &Value, b: &Value) -> PyResult<Option<std::cmp::Ordering>> {
        Ok(match (a, b) {
            (Value::Str(x), Value::Str(y)) => Some(x.as_str().cmp(y.as_str())),
            (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
            (Value::List(x), Value::List(y)) => {
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                self.seq_order(&x, &y)?
            }
            (Value::Tuple(x), Value::Tuple(y)) => self.seq_order(x, y)?,
            _ => None,
        })
    }

    fn seq_order(&self, x: &[Value], y: &[Value]) -> PyResult<Option<std::cmp::Ordering>> {
        for (p, q) in x.iter().zip(y) {
            if p.is(q) || self.values_eq(p, q)? {
                continue;
            }
            let lt = self.rich_compare(CmpOp::Lt, p, q)?;
            return Ok(Some(if self.is_true(&lt)? {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }));
        }
        Ok(Some(x.len().cmp(&y.len())))
    }

    /// `bool(v)`.
    pub fn is_true(&self, v: &Value) -> PyResult<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Dict(d) => !d.borrow().is_empty(),
            Value::Set(s) => !s.items.borrow().is_empty(),
            Value::Instance(inst) => {
                if let Some(m) = inst.class.lookup("__bool__") {
                    let r = self.call_value(&m, vec![v.clone()], Vec::new())?;
                    return match r {
                        Value::Bool(b) => Ok(b),
                        other => Err(PyErr::new(
                            ExcType::TypeError,
                            format!(
                                "__bool__ should return bool, returned {}",
                                other.type_name()
                            ),
                        )),
                    };
                }
                if inst.class.lookup("__len__").is_some() {
                    return Ok(self.length(v)? != 0);
                }
                match inst.builtin_base() {
                    Some(base) => return self.is_true(base),
                    None => true,
                }
            }
            Value::Native(n) => match n.truthy(self)? {
                Some(b) => b,
                None => match n.len(self)? {
                    Some(l) => l != 0,
                    None => true,
                },
            },
            Value::Tensor(_) => crate::object::tensor::tensor_truthy(self, v)?,
            Value::Class(c) if c.meta.is_some() => {
                if let Some(r) = self.call_meta_hook(v, "__bool__", &[]) {
                    return self.is_true(&r?);
                }
                if self.meta_hook(v, "__len__").is_some() {
                    return Ok(self.length(v)? != 0);
                }
                true
            }
            _ => true,
        })
    }

    /// `len(v)`.
    pub fn length(&self, v: &Value) -> PyResult<usize> {
        Ok(match v {
            Value::Str(s) => {
                if s.is_ascii() {
                    s.len()
                } else {
                    s.chars().count()
                }
            }
            Value::Bytes(b) => b.len(),
            Value::Tuple(t) => t.len(),
            Value::List(l) => l.borrow().len(),
            Value::Dict(d) => d.borrow().len(),
            Value::Set(s) => s.items.borrow().len(),
            Value::Instance(inst) => match inst.class.lookup("__len__") {
                Some(m) => len_result(self.call_value(&m, vec![v.clone()], Vec::new())?)?,
                None => match inst.builtin_base() {
                    Some(base) => self.length(base)?,
                    None => return Err(no_len(v)),
                },
            },
            Value::Native(n) => n.len(self)?.ok_or_else(|| no_len(v))?,
            Value::Tensor(_) => crate::object::tensor::tensor_len(self, v)?,
            Value::Class(c) if c.meta.is_some() => match self.call_meta_hook(v, "__len__", &[]) {
                Some(r) => len_result(r?)?,
                None => return Err(no_len(v)),
            },
            _ => return Err(no_len(v)),
        })
    }

    /// `item in container`.
    pub fn contains_value(&self, container: &Value, item: &Value) -> PyResult<bool> {
        match container {
            Value::Class(c) if c.meta.is_some() => {
                match self.call_meta_hook(container, "__contains__", std::slice::from_ref(item)) {
                    Some(r) => self.is_true(&r?),
                    None => self.contains_by_iteration(container, item),
                }
            }
            // A str (int) subclass's instance stands for its value.
            Value::Str(s) => match item.as_builtin() {
                Value::Str(sub) => Ok(s.contains(sub.as_str())),
                _ => Err(PyErr::new(
                    ExcType::TypeError,
                    format!(
                        "'in <string>' requires string as left operand, not {}",
                        item.type_name()
                    ),
                )),
            },
            Value::Bytes(b) => match item.as_builtin() {
                Value::Bytes(sub) => {
                    Ok(sub.is_empty() || b.windows(sub.len()).any(|w| w == &sub[..]))
                }
                Value::Int(i) => Ok(b.contains(&(*i as u8))),
                _ => Err(PyErr::new(
                    ExcType::TypeError,
                    "a bytes-like object is required",
                )),
            },
            Value::Dict(d) => Ok(dict_get(self, d, item)?.is_some()),
            Value::Set(s) => set_contains(self, s, item),
            Value::List(l) => {
                let items = l.borrow().clone();
                for x in items.iter() {
                    if x.is(item) || self.values_eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Tuple(t) => {
                for x in t.iter() {
                    if x.is(item) || self.values_eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Instance(inst) => {
                if let Some(m) = inst.class.lookup("__contains__") {
                    let r =
                        self.call_value(&m, vec![container.clone(), item.clone()], Vec::new())?;
                    return self.is_true(&r);
                }
                // The builtin containers' own `__contains__`, whatever
                // `__iter__` the subclass defines.
                if let Some(base) = inst.builtin_base() {
                    if !matches!(base, Value::Int(_) | Value::Float(_) | Value::Bool(_)) {
                        return self.contains_value(base, item);
                    }
                }
                self.contains_by_iteration(container, item)
            }
            Value::Native(n) => match n.contains(item, self)? {
                Some(b) => Ok(b),
                None => self.contains_by_iteration(container, item),
            },
            _ => self.contains_by_iteration(container, item),
        }
    }

    /// `in` through iteration (no `__contains__`): CPython's own message
    /// for a container that cannot be iterated either.
    fn contains_by_iteration(&self, container: &Value, item: &Value) -> PyResult<bool> {
        if !self.is_iterable(container) {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "argument of type '{}' is not iterable",
                    container.type_name()
                ),
            ));
        }
        let mut it = self.start_iter(container)?;
        while let Some(x) = self.step_iter(&mut it)? {
            if x.is(item) || self.values_eq(&x, item)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `hash(v)`.
    pub fn hash_value(&self, v: &Value) -> PyResult<i64> {
        hash_with_vm(v, self)
    }
}

fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_))
}

fn int_of(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Bool(b) => *b as i64,
        _ => 0,
    }
}

fn ord_matches(op: CmpOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (op, ord) {
        (CmpOp::NotEq, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Equal,
        (CmpOp::NotEq, Some(o)) => o != Equal,
        (CmpOp::Lt, Some(o)) => o == Less,
        (CmpOp::LtE, Some(o)) => o != Greater,
        (CmpOp::Gt, Some(o)) => o == Greater,
        (CmpOp::GtE, Some(o)) => o != Less,
        _ => false,
    }
}

fn cmp_dunders(op: CmpOp) -> (&'static str, &'static str) {
    match op {
        CmpOp::Eq => ("__eq__", "__eq__"),
        CmpOp::NotEq => ("__ne__", "__ne__"),
        CmpOp::Lt => ("__lt__", "__gt__"),
        CmpOp::LtE => ("__le__", "__ge__"),
        CmpOp::Gt => ("__gt__", "__lt__"),
        CmpOp::GtE => ("__ge__", "__le__"),
        _ => ("", ""),
    }
}

fn swapped(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::LtE => CmpOp::GtE,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::GtE => CmpOp::LtE,
        other => other,
    }
}

fn unary_char(op: UnaryOp) -> char {
    match op {
        UnaryOp::USub => '-',
        UnaryOp::UAdd => '+',
        UnaryOp::Invert => '~',
        UnaryOp::Not => '!',
    }
}

#[cold]
fn bad_unary(op: UnaryOp, v: &Value) -> PyErr {
    unary_error(unary_char(op), v)
}

#[cold]
fn no_len(v: &Value) -> PyErr {
    PyErr::new(
        ExcType::TypeError,
        format!("object of type '{}' has no len()", v.type_name()),
    )
}

/// What `len()` makes of a `__len__` method's result.
fn len_result(r: Value) -> PyResult<usize> {
    match r {
        Value::Int(i) if i >= 0 => Ok(i as usize),
        Value::Int(_) => Err(PyErr::new(
            ExcType::ValueError,
            "__len__() should return >= 0",
        )),
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ),
        )),
    }
}
