//! Operators on values: arithmetic with Python's semantics on 64-bit ints
//! (overflow raises, never wraps), floats, sequences; dunder dispatch with
//! reflected operands; comparisons; truthiness; `len`, `in`, `hash`.
//!
//! This module holds arithmetic and the unary operators; comparisons are
//! in `compare.rs`, truthiness, `len`, `in` and `hash` in `protocols.rs`.

mod compare;
mod protocols;

use crate::object::types::subclass::base_value;
use std::rc::Rc;

use super::Interp;
use crate::object::descr::not_implemented;
use crate::object::types::index_not_int;
use crate::object::types::misc::UnionType;
use crate::object::types::num::{num, num_binop};
use crate::object::types::ops::{binop_error, inplace_error, unary_error};
use crate::object::types::set::{set_op, set_op_in_place};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::value::{ExcType, PyErr, PyResult, Value};

use crate::object::types::{alloc_vec, memory_error};

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
        .checked_mul(usize::try_from(n).map_err(|_| memory_error())?)
        .ok_or_else(memory_error)?;
    let mut out = alloc_vec(total)?;
    out.extend_from_slice(items);
    // Doubling copies: `'x' * 2**31` is 31 copies, not 2**31.
    while out.len() < total {
        let more = out.len().min(total - out.len());
        out.extend_from_within(..more);
    }
    Ok(out)
}

/// `a + b` for sequences, allocated fallibly.
fn concat<T: Clone>(a: &[T], b: &[T]) -> PyResult<Vec<T>> {
    let mut out = alloc_vec(a.len().checked_add(b.len()).ok_or_else(memory_error)?)?;
    out.extend_from_slice(a);
    out.extend_from_slice(b);
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
                let mut l = l.borrow_mut();
                crate::object::types::reserve(&mut l, items.len())?;
                l.extend(items);
                return Ok(a.clone());
            }
            // Sets and dicts update in place (other names for the object see it).
            (BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor, Value::Set(s))
                if !s.frozen =>
            {
                if let Value::Set(o) = b {
                    let sym = op.symbol().chars().next().unwrap_or('|');
                    let keys = crate::value::dict::keys_clone(&o.items.borrow())?;
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
        if op == BinOp::Mult {
            // A count past 64 bits repeating a builtin sequence.
            let seq = |v: &Value| {
                matches!(
                    v,
                    Value::Str(_) | Value::Bytes(_) | Value::List(_) | Value::Tuple(_)
                )
            };
            if seq(b) {
                check_repeat_count(a)?;
            }
            if seq(a) {
                check_repeat_count(b)?;
            }
        }
        Ok(Some(match (op, a, b) {
            // Concatenations allocate their result fallibly (a MemoryError,
            // never an abort, for `s = s + s` in a loop).
            (BinOp::Add, Value::Str(x), Value::Str(y)) => {
                let bytes = concat(x.as_bytes(), y.as_bytes())?;
                Value::str(String::from_utf8(bytes).unwrap_or_default())
            }
            (BinOp::Add, Value::Bytes(x), Value::Bytes(y)) => Value::Bytes(Rc::new(concat(x, y)?)),
            (BinOp::Add, Value::List(x), Value::List(y)) => {
                let v = concat(&x.borrow(), &y.borrow())?;
                Value::list(v)
            }
            (BinOp::Add, Value::Tuple(x), Value::Tuple(y)) => Value::tuple(concat(x, y)?),
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
                let keys = crate::value::dict::keys_clone(&y.items.borrow())?;
                Value::Set(Rc::new(set_op(self, sym, x, b, &keys)?))
            }
            (BinOp::BitOr, Value::Dict(x), Value::Dict(y)) => {
                let mut d = x.borrow().try_clone()?;
                for (k, v) in y.borrow().map.iter() {
                    d.map.insert(k.clone(), v.clone())?;
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
                        return Err(index_not_int(&i));
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
            (UnaryOp::USub, Value::Int(i)) => Ok(Value::from_i128(-(*i as i128))),
            (UnaryOp::USub, Value::Long(n)) => Ok(Value::from_big(-&**n)),
            (UnaryOp::UAdd, Value::Long(_)) => Ok(v.clone()),
            (UnaryOp::Invert, Value::Long(n)) => Ok(Value::from_big(!&**n)),
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
            (_, Value::Native(n)) => n.unary(v, op, self)?.ok_or_else(|| bad_unary(op, v)),
            (_, Value::Tensor(_)) => {
                crate::object::tensor::tensor_unary(self, op, v)?.ok_or_else(|| bad_unary(op, v))
            }
            _ => Err(bad_unary(op, v)),
        }
    }
}

fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_) | Value::Long(_))
}

/// A repetition count: a negative int past 64 bits repeats as 0 (a
/// positive one was refused by `builtin_seq_op`).
fn int_of(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Bool(b) => *b as i64,
        _ => 0,
    }
}

/// CPython's OverflowError for a sequence repeated a count past 64 bits.
fn check_repeat_count(n: &Value) -> PyResult<()> {
    match n {
        // Either sign: `[0] * -2**70` is refused too, as in CPython.
        Value::Long(_) => Err(PyErr::new(
            ExcType::OverflowError,
            "cannot fit 'int' into an index-sized integer",
        )),
        _ => Ok(()),
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
