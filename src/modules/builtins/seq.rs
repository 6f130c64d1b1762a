//! Builtins over iterables: `sorted`, `min`, `max`, `sum`, `any`, `all`,
//! `iter`, `next`.

use crate::object::types::iter::{IterObj, IterState};
use crate::object::types::list::sort_values;
use crate::object::types::protocol::is_callable;
use crate::object::types::{type_error, value_error};
use crate::object::{native, Given, NativeDef};
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

pub(super) const FUNCTIONS: &[NativeDef] = &[
    sorted::DEF,
    min::DEF,
    max::DEF,
    sum::DEF,
    any::DEF,
    all::DEF,
    iter::DEF,
    next::DEF,
];

/// A new sorted list of the iterable's items (stable): `sorted('bca') == ['a', 'b', 'c']`.
#[native("sorted(iterable, /, *, key=None, reverse=False)", c)]
fn sorted(vm: &dyn Vm, iterable: &Value, key: &Value, reverse: &Value) -> PyResult<Vec<Value>> {
    let items = vm.collect(iterable)?;
    let reverse = crate::object::types::list::reverse_flag(vm, reverse)?;
    sort_values(vm, items, key, reverse)
}

/// `min`/`max` of `args` (one iterable or several values); `default`
/// when given.
fn extreme(
    vm: &dyn Vm,
    args: &[Value],
    key: &Value,
    default: Option<&Value>,
    name: &str,
    want_max: bool,
) -> PyResult<Value> {
    let items = match args.len() {
        0 => {
            return Err(type_error(format!(
                "{name} expected at least 1 argument, got 0"
            )))
        }
        1 => vm.collect(&args[0])?,
        _ => {
            if default.is_some() {
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
    match (best, default) {
        (Some((_, v)), _) => Ok(v),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(value_error(format!("{name}() arg is an empty sequence"))),
    }
}

/// The smallest item of an iterable or of the arguments: `min(3, 1, 2) == 1`; `min([], default=0) == 0`.
#[native("min(*args, key=None, default=None)", c)]
fn min(vm: &dyn Vm, args: &[Value], key: &Value, default: Given<&Value>) -> PyResult<Value> {
    extreme(vm, args, key, default.0, "min", false)
}

/// The largest item of an iterable or of the arguments: `max('a', 'bb', key=len) == 'bb'`.
#[native("max(*args, key=None, default=None)", c)]
fn max(vm: &dyn Vm, args: &[Value], key: &Value, default: Given<&Value>) -> PyResult<Value> {
    extreme(vm, args, key, default.0, "max", true)
}

/// The sum of `start` and the items: `sum([1, 2], 10) == 13`.
#[native("sum(iterable, /, start=0)", c)]
fn sum(vm: &dyn Vm, iterable: &Value, start: &Value) -> PyResult<Value> {
    let mut acc = start.clone();
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
    let it = vm.iter(iterable)?;
    while let Some(x) = vm.next(&it)? {
        acc = match (&acc, &x) {
            (Value::Int(p), Value::Int(q)) => match p.checked_add(*q) {
                Some(r) => Value::Int(r),
                None => Value::from_i128(*p as i128 + *q as i128),
            },
            (Value::Float(p), Value::Float(q)) => Value::Float(p + q),
            (Value::Float(p), Value::Int(q)) => Value::Float(p + *q as f64),
            _ => vm.binop(BinOp::Add, &acc, &x)?,
        };
    }
    Ok(acc)
}

/// True if any item is true: `any([0, 1]) is True`.
#[native("any(iterable, /)", c)]
fn any(vm: &dyn Vm, iterable: &Value) -> PyResult<bool> {
    let it = vm.iter(iterable)?;
    while let Some(x) = vm.next(&it)? {
        if vm.truthy(&x)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// True if every item is true (or there are none).
#[native("all(iterable, /)", c)]
fn all(vm: &dyn Vm, iterable: &Value) -> PyResult<bool> {
    let it = vm.iter(iterable)?;
    while let Some(x) = vm.next(&it)? {
        if !vm.truthy(&x)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// An iterator over an iterable; `iter(f, s)` calls `f` until it returns `s`.
#[native("iter(object, *sentinel)", c)]
fn iter(vm: &dyn Vm, object: &Value, sentinel: &[Value]) -> PyResult<Value> {
    match sentinel {
        [] => vm.iter(object),
        [_] if !is_callable(vm, object) => Err(type_error("iter(v, w): v must be callable")),
        [sentinel] => Ok(IterObj::value(
            "callable_iterator",
            IterState::Callable(object.clone(), sentinel.clone()),
        )),
        more => Err(type_error(format!(
            "iter expected at most 2 arguments, got {}",
            more.len() + 1
        ))),
    }
}

/// The iterator's next item; `default` (or StopIteration) when it is exhausted.
#[native("next(iterator, *default)", c)]
fn next(vm: &dyn Vm, iterator: &Value, default: &[Value]) -> PyResult<Value> {
    if default.len() > 1 {
        return Err(type_error(format!(
            "next expected at most 2 arguments, got {}",
            default.len() + 1
        )));
    }
    match vm.next(iterator)? {
        Some(v) => Ok(v),
        None => match default.first() {
            Some(d) => Ok(d.clone()),
            None => {
                let value = match iterator {
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
