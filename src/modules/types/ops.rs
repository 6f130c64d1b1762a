//! Operators on builtin values, for the evaluator to call before (or
//! instead of) dunder dispatch: truthiness, `len`, `in`, `==`, ordering,
//! unary and binary arithmetic. Each returns `Ok(None)` when the operands
//! are not builtin values it knows (user instances, tensors), so the caller
//! can try `__eq__`, `__add__`, reflected operands, and then raise with
//! [`binop_error`] / [`compare_error`]. Ints are 64-bit: overflow raises
//! OverflowError, never wraps; big allocations raise MemoryError.

use std::cmp::Ordering;
use std::rc::Rc;

use super::num::{num, num_binop, num_cmp, Num};
use super::set::{combine, make_set};
use super::{check_alloc, int_overflow, type_error};
use crate::syntax::ast::BinOp;
use crate::value::format::percent_format;
use crate::value::{Dict, ExcType, Key, PyErr, PyResult, Value, Vm};

/// `bool(v)` for builtin values and natives; None for instances.
pub fn truthy_builtin(vm: &dyn Vm, v: &Value) -> PyResult<Option<bool>> {
    Ok(Some(match v {
        Value::None => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(x) => *x != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::Bytes(b) => !b.is_empty(),
        Value::List(l) => !l.borrow().is_empty(),
        Value::Tuple(t) => !t.is_empty(),
        Value::Dict(d) => !d.borrow().is_empty(),
        Value::Set(s) => !s.items.borrow().is_empty(),
        Value::Native(n) => match n.truthy(vm)? {
            Some(b) => b,
            None => n.len(vm)?.is_none_or(|l| l > 0),
        },
        Value::Instance(_) | Value::Tensor(_) => return Ok(None),
        _ => true,
    }))
}

/// `len(v)` for builtin values and natives; None when `v` has no length we know.
pub fn len_builtin(vm: &dyn Vm, v: &Value) -> PyResult<Option<usize>> {
    Ok(match v {
        Value::Str(s) => Some(super::str::char_len(s)),
        Value::Bytes(b) => Some(b.len()),
        Value::List(l) => Some(l.borrow().len()),
        Value::Tuple(t) => Some(t.len()),
        Value::Dict(d) => Some(d.borrow().len()),
        Value::Set(s) => Some(s.items.borrow().len()),
        Value::Native(n) => n.len(vm)?,
        _ => None,
    })
}

/// `item in container` for builtin containers; None to fall back to iteration.
pub fn contains_builtin(vm: &dyn Vm, container: &Value, item: &Value) -> PyResult<Option<bool>> {
    Ok(Some(match container {
        Value::Str(s) => match item {
            Value::Str(sub) => s.contains(sub.as_str()),
            other => {
                return Err(type_error(format!(
                    "'in <string>' requires string as left operand, not {}",
                    other.type_name()
                )))
            }
        },
        Value::Bytes(b) => match item {
            Value::Int(i) => (0..256).contains(i) && b.contains(&(*i as u8)),
            Value::Bytes(sub) => sub.is_empty() || b.windows(sub.len()).any(|w| w == &sub[..]),
            other => {
                return Err(type_error(format!(
                    "a bytes-like object is required, not '{}'",
                    other.type_name()
                )))
            }
        },
        Value::List(l) => {
            let items = l.borrow().clone();
            seq_contains(vm, &items, item)?
        }
        Value::Tuple(t) => seq_contains(vm, t, item)?,
        Value::Dict(d) => d.borrow().get(item)?.is_some(),
        Value::Set(s) => s.items.borrow().contains(&Key::new(item.clone())?),
        Value::Native(n) => return n.contains(item, vm),
        _ => return Ok(None),
    }))
}

fn seq_contains(vm: &dyn Vm, items: &[Value], x: &Value) -> PyResult<bool> {
    for it in items {
        if it.is(x) || vm.eq(it, x)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `a == b` for builtin values; None when an operand is an instance (or a
/// native without `compare`) and the caller must dispatch `__eq__`.
pub fn eq_builtin(vm: &dyn Vm, a: &Value, b: &Value) -> PyResult<Option<bool>> {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return Ok(Some(num_cmp(x, y) == Some(Ordering::Equal)));
    }
    Ok(Some(match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            if Rc::ptr_eq(x, y) {
                return Ok(Some(true));
            }
            let (x, y) = (x.borrow().clone(), y.borrow().clone());
            seq_eq(vm, &x, &y)?
        }
        (Value::Tuple(x), Value::Tuple(y)) => seq_eq(vm, x, y)?,
        (Value::Dict(x), Value::Dict(y)) => {
            if Rc::ptr_eq(x, y) {
                return Ok(Some(true));
            }
            let (xi, y) = (x.borrow().items(), y.borrow().clone());
            if xi.len() != y.len() {
                return Ok(Some(false));
            }
            for (k, v) in &xi {
                match y.get(k)? {
                    Some(w) if v.is(&w) || vm.eq(v, &w)? => {}
                    _ => return Ok(Some(false)),
                }
            }
            true
        }
        (Value::Set(x), Value::Set(y)) => {
            let (x, y) = (x.items.borrow(), y.items.borrow());
            x.len() == y.len() && x.is_subset(&y)
        }
        (Value::Native(n), _) => match n.compare(a, "==", b, vm)? {
            Some(v) => vm.truthy(&v)?,
            None => match b {
                Value::Native(m) => match m.compare(b, "==", a, vm)? {
                    Some(v) => vm.truthy(&v)?,
                    None => a.is(b),
                },
                _ => a.is(b),
            },
        },
        (_, Value::Native(m)) => match m.compare(b, "==", a, vm)? {
            Some(v) => vm.truthy(&v)?,
            None => a.is(b),
        },
        (Value::Instance(_), _)
        | (_, Value::Instance(_))
        | (Value::Tensor(_), _)
        | (_, Value::Tensor(_)) => return Ok(None),
        _ => a.is(b),
    }))
}

fn seq_eq(vm: &dyn Vm, x: &[Value], y: &[Value]) -> PyResult<bool> {
    if x.len() != y.len() {
        return Ok(false);
    }
    for (p, q) in x.iter().zip(y) {
        if !(p.is(q) || vm.eq(p, q)?) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `a < b` for builtin values; None when the types do not order.
pub fn lt_builtin(vm: &dyn Vm, a: &Value, b: &Value) -> PyResult<Option<bool>> {
    cmp_builtin(vm, "<", a, b)
}

/// `a op b` for `op` in `< <= > >=` on builtin values; None when they do
/// not order (the caller tries `__lt__` etc., then raises [`compare_error`]).
pub fn cmp_builtin(vm: &dyn Vm, op: &str, a: &Value, b: &Value) -> PyResult<Option<bool>> {
    let by_ord = |o: Option<Ordering>| -> bool {
        match o {
            None => false,
            Some(o) => match op {
                "<" => o.is_lt(),
                "<=" => o.is_le(),
                ">" => o.is_gt(),
                _ => o.is_ge(),
            },
        }
    };
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return Ok(Some(by_ord(num_cmp(x, y))));
    }
    let (x, y) = match (a, b) {
        (Value::Str(x), Value::Str(y)) => return Ok(Some(by_ord(Some(x.cmp(y))))),
        (Value::Bytes(x), Value::Bytes(y)) => return Ok(Some(by_ord(Some(x.cmp(y))))),
        (Value::List(x), Value::List(y)) => (x.borrow().clone(), y.borrow().clone()),
        (Value::Tuple(x), Value::Tuple(y)) => (x.to_vec(), y.to_vec()),
        (Value::Set(x), Value::Set(y)) => {
            let (x, y) = (x.items.borrow(), y.items.borrow());
            return Ok(Some(match op {
                "<" => x.len() < y.len() && x.is_subset(&y),
                "<=" => x.is_subset(&y),
                ">" => x.len() > y.len() && x.is_superset(&y),
                _ => x.is_superset(&y),
            }));
        }
        (Value::Native(n), _) => {
            return match n.compare(a, op, b, vm)? {
                Some(v) => vm.truthy(&v).map(Some),
                None => Ok(None),
            }
        }
        _ => return Ok(None),
    };
    for (p, q) in x.iter().zip(&y) {
        if !(p.is(q) || vm.eq(p, q)?) {
            return Ok(Some(match op {
                "<" | "<=" => vm.lt(p, q)?,
                _ => vm.lt(q, p)?,
            }));
        }
    }
    Ok(Some(by_ord(Some(x.len().cmp(&y.len())))))
}

/// `TypeError: '<' not supported between instances of 'str' and 'int'`.
#[cold]
pub fn compare_error(op: &str, a: &Value, b: &Value) -> PyErr {
    type_error(format!(
        "'{op}' not supported between instances of '{}' and '{}'",
        a.type_name(),
        b.type_name()
    ))
}

/// The TypeError for an unsupported binary operation, worded as CPython's.
#[cold]
pub fn binop_error(op: BinOp, a: &Value, b: &Value) -> PyErr {
    let msg = match (op, a) {
        (BinOp::Add, Value::Str(_)) => format!(
            "can only concatenate str (not \"{}\") to str",
            b.type_name()
        ),
        (BinOp::Add, Value::List(_)) => format!(
            "can only concatenate list (not \"{}\") to list",
            b.type_name()
        ),
        (BinOp::Add, Value::Tuple(_)) => format!(
            "can only concatenate tuple (not \"{}\") to tuple",
            b.type_name()
        ),
        (BinOp::Mult, Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Bytes(_)) => {
            format!(
                "can't multiply sequence by non-int of type '{}'",
                b.type_name()
            )
        }
        (BinOp::Mult, _)
            if matches!(
                b,
                Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Bytes(_)
            ) =>
        {
            format!(
                "can't multiply sequence by non-int of type '{}'",
                a.type_name()
            )
        }
        (BinOp::Pow, _) => format!(
            "unsupported operand type(s) for ** or pow(): '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ),
        _ => format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        ),
    };
    type_error(msg)
}

/// Unary `-`, `+`, `~` on numbers; None for other values.
pub fn unary_builtin(op: char, v: &Value) -> PyResult<Option<Value>> {
    Ok(Some(match (op, num(v)) {
        ('-', Some(Num::I(i))) => Value::Int(i.checked_neg().ok_or_else(int_overflow)?),
        ('-', Some(Num::F(x))) => Value::Float(-x),
        ('+', Some(Num::I(i))) => Value::Int(i),
        ('+', Some(Num::F(x))) => Value::Float(x),
        ('~', Some(Num::I(i))) => Value::Int(!i),
        _ => return Ok(None),
    }))
}

/// The TypeError for an unsupported unary operation.
#[cold]
pub fn unary_error(op: char, v: &Value) -> PyErr {
    type_error(format!(
        "bad operand type for unary {op}: '{}'",
        v.type_name()
    ))
}

/// Repeats a sequence `n` times (negative: empty), refusing huge results.
fn repeat<T: Clone>(items: &[T], n: i64) -> PyResult<Vec<T>> {
    let n = n.max(0) as usize;
    let total = items
        .len()
        .checked_mul(n)
        .ok_or_else(|| PyErr::new(ExcType::MemoryError, ""))?;
    check_alloc(total, std::mem::size_of::<T>().max(1))?;
    let mut out = super::alloc_vec(total)?;
    for _ in 0..n {
        out.extend_from_slice(items);
    }
    Ok(out)
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

/// `a op b` for builtin values (numbers, sequences, sets, dicts, `str % x`)
/// and natives' `binop` hooks; None when no builtin rule applies.
pub fn binop_builtin(vm: &dyn Vm, op: BinOp, a: &Value, b: &Value) -> PyResult<Option<Value>> {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return num_binop(op, x, y, matches!((a, b), (Value::Bool(_), Value::Bool(_)))).map(Some);
    }
    Ok(Some(match (op, a, b) {
        (BinOp::Add, Value::Str(x), Value::Str(y)) => {
            check_alloc(x.len().saturating_add(y.len()), 1)?;
            Value::str(format!("{x}{y}"))
        }
        (BinOp::Add, Value::List(x), Value::List(y)) => {
            let mut v = x.borrow().clone();
            v.extend(y.borrow().iter().cloned());
            Value::list(v)
        }
        (BinOp::Add, Value::Tuple(x), Value::Tuple(y)) => {
            Value::tuple(x.iter().chain(y.iter()).cloned().collect())
        }
        (BinOp::Add, Value::Bytes(x), Value::Bytes(y)) => {
            Value::Bytes(Rc::new([&x[..], &y[..]].concat()))
        }
        (BinOp::Mult, Value::Str(s), n) | (BinOp::Mult, n, Value::Str(s))
            if int_of(n).is_some() =>
        {
            Value::str(
                String::from_utf8(repeat(s.as_bytes(), int_of(n).unwrap_or(0))?)
                    .unwrap_or_default(),
            )
        }
        (BinOp::Mult, Value::List(l), n) | (BinOp::Mult, n, Value::List(l))
            if int_of(n).is_some() =>
        {
            let items = l.borrow().clone();
            Value::list(repeat(&items, int_of(n).unwrap_or(0))?)
        }
        (BinOp::Mult, Value::Tuple(t), n) | (BinOp::Mult, n, Value::Tuple(t))
            if int_of(n).is_some() =>
        {
            Value::tuple(repeat(t, int_of(n).unwrap_or(0))?)
        }
        (BinOp::Mult, Value::Bytes(s), n) | (BinOp::Mult, n, Value::Bytes(s))
            if int_of(n).is_some() =>
        {
            Value::Bytes(Rc::new(repeat(s, int_of(n).unwrap_or(0))?))
        }
        (BinOp::Mod, Value::Str(f), args) if !matches!(args, Value::Instance(_)) => {
            Value::str(percent_format(vm, f, args)?)
        }
        (
            BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor,
            Value::Set(x),
            Value::Set(y),
        ) => {
            let c = set_op_char(op);
            let r = combine(c, &x.items.borrow(), &y.items.borrow());
            make_set(r, x.frozen)
        }
        (BinOp::BitOr, Value::Dict(x), Value::Dict(y)) => {
            let mut d: Dict = x.borrow().clone();
            for (k, v) in y.borrow().items() {
                d.insert(k, v)?;
            }
            Value::dict(d)
        }
        (_, Value::Native(n), _) => match n.binop(a, op, b, false, vm)? {
            Some(v) => v,
            None => match b {
                Value::Native(m) => return m.binop(b, op, a, true, vm),
                _ => return Ok(None),
            },
        },
        (_, _, Value::Native(m)) => return m.binop(b, op, a, true, vm),
        _ => return Ok(None),
    }))
}

fn set_op_char(op: BinOp) -> char {
    match op {
        BinOp::BitOr => '|',
        BinOp::BitAnd => '&',
        BinOp::Sub => '-',
        _ => '^',
    }
}

/// Augmented assignment (`a op= b`) on builtin values: lists, sets and
/// dicts change in place and are returned; everything else is `binop_builtin`.
pub fn inplace_binop_builtin(
    vm: &dyn Vm,
    op: BinOp,
    a: &Value,
    b: &Value,
) -> PyResult<Option<Value>> {
    match (op, a, b) {
        (BinOp::Add, Value::List(l), _) => {
            let items = vm.collect(b)?;
            check_alloc(l.borrow().len().saturating_add(items.len()), 16)?;
            l.borrow_mut().extend(items);
            Ok(Some(a.clone()))
        }
        (BinOp::Mult, Value::List(l), n) if int_of(n).is_some() => {
            let items = l.borrow().clone();
            *l.borrow_mut() = repeat(&items, int_of(n).unwrap_or(0))?;
            Ok(Some(a.clone()))
        }
        (
            BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor,
            Value::Set(x),
            Value::Set(y),
        ) if !x.frozen => {
            let r = combine(set_op_char(op), &x.items.borrow(), &y.items.borrow());
            *x.items.borrow_mut() = r;
            Ok(Some(a.clone()))
        }
        (BinOp::BitOr, Value::Dict(d), _) if !matches!(b, Value::Instance(_)) => {
            super::dict::dict_update(vm, d, b)?;
            Ok(Some(a.clone()))
        }
        _ => binop_builtin(vm, op, a, b),
    }
}
