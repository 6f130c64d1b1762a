//! Builtins over iterables: `sorted`, `min`, `max`, `sum`, `any`, `all`,
//! `iter`, `next`.

use super::Entry;
use crate::object::types::iter::{IterObj, IterState};
use crate::object::types::list::sort_values;
use crate::object::types::{int_overflow, type_error, value_error};
use crate::syntax::ast::BinOp;
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

pub(super) const FUNCTIONS: &[Entry] = &[
    (
        "sorted(iterable, /, *, key=None, reverse=False)",
        sorted,
        "A new sorted list of the iterable's items (stable): `sorted('bca') == ['a', 'b', 'c']`.",
    ),
    (
        "min(*args, key=None, default=None)",
        min,
        "The smallest item of an iterable or of the arguments: `min(3, 1, 2) == 1`; `min([], default=0) == 0`.",
    ),
    (
        "max(*args, key=None, default=None)",
        max,
        "The largest item of an iterable or of the arguments: `max('a', 'bb', key=len) == 'bb'`.",
    ),
    ("sum(iterable, /, start=0)", sum, "The sum of `start` and the items: `sum([1, 2], 10) == 13`."),
    ("any(iterable, /)", any, "True if any item is true: `any([0, 1]) is True`."),
    ("all(iterable, /)", all, "True if every item is true (or there are none)."),
    ("iter(object, *sentinel)", iter, "An iterator over an iterable; `iter(f, s)` calls `f` until it returns `s`."),
    (
        "next(iterator, *default)",
        next,
        "The iterator's next item; `default` (or StopIteration) when it is exhausted.",
    ),
];

fn sorted(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let items = vm.collect(a.get(0))?;
    let reverse = crate::object::types::list::reverse_flag(vm, a.get(2))?;
    Ok(Value::list(sort_values(vm, items, a.get(1), reverse)?))
}

fn extreme(vm: &dyn Vm, a: &Args, name: &str, want_max: bool) -> PyResult<Value> {
    let args = a.varargs(0);
    let key = a.get(1);
    let items = match args.len() {
        0 => {
            return Err(type_error(format!(
                "{name} expected at least 1 argument, got 0"
            )))
        }
        1 => vm.collect(&args[0])?,
        _ => {
            if a.was_given(2) {
                return Err(type_error(format!(
                    "Cannot specify a default for {name}() with multiple positional arguments"
                )));
            }
            args.to_vec()
        }
    };
    let mut best: Option<(Value, Value)> = None;
    for item in items {
        let k = if key.is_none() {
            item.clone()
        } else {
            vm.call(key, vec![item.clone()], Vec::new())?
        };
        let replace = match &best {
            None => true,
            // The first of equal extremes wins, as in CPython.
            Some((bk, _)) => {
                if want_max {
                    vm.gt(&k, bk)?
                } else {
                    vm.lt(&k, bk)?
                }
            }
        };
        if replace {
            best = Some((k, item));
        }
    }
    match best {
        Some((_, v)) => Ok(v),
        None if a.was_given(2) => Ok(a.get(2).clone()),
        None => Err(value_error(format!("{name}() arg is an empty sequence"))),
    }
}

fn min(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    extreme(vm, a, "min", false)
}

fn max(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    extreme(vm, a, "max", true)
}

fn sum(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut acc = a.get(1).clone();
    match acc {
        Value::Str(_) => {
            return Err(type_error(
                "sum() can't sum strings [use ''.join(seq) instead]",
            ))
        }
        Value::Bytes(_) => {
            return Err(type_error(
                "sum() can't sum bytes [use b''.join(seq) instead]",
            ))
        }
        _ => {}
    }
    let it = vm.iter(a.get(0))?;
    while let Some(x) = vm.next(&it)? {
        acc = match (&acc, &x) {
            (Value::Int(p), Value::Int(q)) => {
                Value::Int(p.checked_add(*q).ok_or_else(int_overflow)?)
            }
            (Value::Float(p), Value::Float(q)) => Value::Float(p + q),
            (Value::Float(p), Value::Int(q)) => Value::Float(p + *q as f64),
            _ => vm.binop(BinOp::Add, &acc, &x)?,
        };
    }
    Ok(acc)
}

fn any(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let it = vm.iter(a.get(0))?;
    while let Some(x) = vm.next(&it)? {
        if vm.truthy(&x)? {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

fn all(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let it = vm.iter(a.get(0))?;
    while let Some(x) = vm.next(&it)? {
        if !vm.truthy(&x)? {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

fn iter(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.varargs(1) {
        [] => vm.iter(a.get(0)),
        [_] if !super::objects::is_callable(vm, a.get(0)) => {
            Err(type_error("iter(v, w): v must be callable"))
        }
        [sentinel] => Ok(IterObj::value(
            "callable_iterator",
            IterState::Callable(a.get(0).clone(), sentinel.clone()),
        )),
        more => Err(type_error(format!(
            "iter expected at most 2 arguments, got {}",
            more.len() + 1
        ))),
    }
}

fn next(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let default = a.varargs(1);
    if default.len() > 1 {
        return Err(type_error(format!(
            "next expected at most 2 arguments, got {}",
            default.len() + 1
        )));
    }
    match vm.next(a.get(0))? {
        Some(v) => Ok(v),
        None => match default.first() {
            Some(d) => Ok(d.clone()),
            None => {
                let value = match a.get(0) {
                    Value::Native(n) => n.stop_value(),
                    _ => Value::None,
                };
                let args = if value.is_none() {
                    Vec::new()
                } else {
                    vec![value]
                };
                Err(PyErr::with_args(ExcType::StopIteration, args))
            }
        },
    }
}
