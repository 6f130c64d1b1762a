//! The slot methods every object has (`object`'s): the text forms
//! (`__repr__`, `__str__`, `__format__`), `__hash__`, the comparisons,
//! `__dir__`, the pickling hooks dist refuses, `__subclasshook__`, and
//! `__call__` of the callables. A builtin value's own behaviour answers
//! for builtin values; `object`'s default for instances. The table that
//! gives each type its slots is in `slots`.

use super::{builtin_compared, comparable, operand};
use crate::object::descr::not_implemented;
use crate::object::types::type_error;
use crate::object::{native, Kwargs};
use crate::value::fmtspec::unsupported_format;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `__repr__`/`__str__`: the value's own for builtin values and None,
/// `object`'s (BaseException's for exceptions) otherwise.
fn text(
    x: &Value,
    own: impl FnOnce(&Value) -> PyResult<String>,
    object: impl FnOnce(&Value) -> PyResult<String>,
) -> PyResult<String> {
    if builtin_compared(x) || x.is_none() {
        own(x)
    } else {
        object(x)
    }
}

#[native("object.__repr__(self, /)", c)]
pub(super) fn repr(vm: &dyn Vm, this: &Value) -> PyResult<String> {
    text(this, |x| vm.repr(x), |x| vm.object_repr(x))
}

#[native("object.__str__(self, /)", c)]
pub(super) fn to_str(vm: &dyn Vm, this: &Value) -> PyResult<String> {
    text(this, |x| vm.str(x), |x| vm.object_str(x))
}

#[native("object.__format__(self, format_spec, /)", c)]
pub(super) fn format(vm: &dyn Vm, this: &Value, format_spec: &Value) -> PyResult<String> {
    let x = this;
    let Value::Str(spec) = format_spec else {
        return Err(type_error(format!(
            "format_spec must be a str, not {}",
            format_spec.type_name()
        )));
    };
    if builtin_compared(x) || x.is_none() {
        return vm.format(x, spec);
    }
    if !spec.is_empty() {
        return Err(unsupported_format(&x.type_name()));
    }
    vm.str(x)
}

// The `__format__` of `int`, `float` and `str`: the value formatted by the
// spec, and `str(self)` for an empty one (so a subclass's own `__str__`
// shows: `int.__format__(member, '')`).
#[native("object.__format__(self, format_spec, /)", c)]
pub(super) fn value_format(vm: &dyn Vm, this: &Value, format_spec: &Value) -> PyResult<String> {
    match format_spec {
        Value::Str(s) if s.is_empty() => vm.str(this),
        Value::Str(s) => vm.format(this.as_builtin(), s),
        _ => format(vm, this, format_spec),
    }
}

#[native("object.__hash__(self, /)", c)]
pub(super) fn hash(vm: &dyn Vm, this: &Value) -> PyResult<i64> {
    if builtin_compared(this) || this.is_none() {
        vm.hash(this)
    } else {
        // `object.__hash__`: by identity, whatever the class defines.
        Ok(crate::value::dict::py_hash(this))
    }
}

// `__eq__`: the value's own equality for builtin types; identity for
// `object`'s.
#[native("object.__eq__(self, value, /)", c)]
pub(super) fn eq(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    let (x, y) = (this, value);
    if builtin_compared(x) {
        let y = &*operand(y);
        return Ok(if comparable(x, y) {
            Value::Bool(vm.eq(x, y)?)
        } else {
            not_implemented()
        });
    }
    Ok(if x.is(y) || (x.is_none() && y.is_none()) {
        Value::Bool(true)
    } else {
        not_implemented()
    })
}

// `__ne__`: `object`'s inverts the type's `__eq__` unless NotImplemented.
#[native("object.__ne__(self, value, /)", c)]
pub(super) fn ne(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    let (x, y) = (this, value);
    if builtin_compared(x) {
        let y = &*operand(y);
        return Ok(if comparable(x, y) {
            Value::Bool(!vm.eq(x, y)?)
        } else {
            not_implemented()
        });
    }
    let m = vm.getattr(x, "__eq__")?;
    let r = vm.call(&m, vec![y.clone()], Vec::new())?;
    if r.is(&not_implemented()) {
        return Ok(r);
    }
    Ok(Value::Bool(!vm.truthy(&r)?))
}

/// The orderings: the type's own for builtin values that order (not dicts),
/// NotImplemented otherwise (`object`'s).
fn order(
    vm: &dyn Vm,
    x: &Value,
    y: &Value,
    f: fn(&dyn Vm, &Value, &Value) -> PyResult<bool>,
) -> PyResult<Value> {
    let y = &*operand(y);
    if builtin_compared(x) && !matches!(x, Value::Dict(_)) && comparable(x, y) {
        return Ok(Value::Bool(f(vm, x, y)?));
    }
    Ok(not_implemented())
}

#[native("object.__lt__(self, value, /)", c)]
pub(super) fn lt(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    order(vm, this, value, |vm, x, y| vm.lt(x, y))
}

#[native("object.__le__(self, value, /)", c)]
pub(super) fn le(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    order(vm, this, value, |vm, x, y| Ok(vm.lt(x, y)? || vm.eq(x, y)?))
}

#[native("object.__gt__(self, value, /)", c)]
pub(super) fn gt(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    order(vm, this, value, |vm, x, y| vm.gt(x, y))
}

#[native("object.__ge__(self, value, /)", c)]
pub(super) fn ge(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    order(vm, this, value, |vm, x, y| Ok(vm.gt(x, y)? || vm.eq(x, y)?))
}

#[native("object.__dir__(self, /)", c)]
pub(super) fn dir(vm: &dyn Vm, this: &Value) -> Vec<Value> {
    let mut names = vm.dir(this);
    names.sort();
    names.dedup();
    names.into_iter().map(Value::str).collect()
}

// `object.__getstate__()`: an instance's attributes (None when it has none).
#[native("object.__getstate__(self, /)", c)]
pub(super) fn getstate(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    match this {
        Value::Instance(i) if !i.attr_names().is_empty() => vm.getattr(this, "__dict__"),
        _ => Ok(Value::None),
    }
}

#[cold]
fn no_pickling() -> PyErr {
    PyErr::new(
        ExcType::NotImplementedError,
        "pickling (__reduce__/__reduce_ex__) is not supported in dist",
    )
}

#[native("object.__reduce__(self, /)", c)]
pub(super) fn reduce(_this: &Value) -> PyResult<Value> {
    Err(no_pickling())
}

#[native("object.__reduce_ex__(self, protocol, /)", c)]
pub(super) fn reduce_ex(_this: &Value, _protocol: &Value) -> PyResult<Value> {
    Err(no_pickling())
}

#[native("object.__sizeof__(self, /)", c)]
pub(super) fn sizeof(_this: &Value) -> PyResult<Value> {
    Err(PyErr::new(
        ExcType::NotImplementedError,
        "__sizeof__: CPython's object sizes are not modelled in dist",
    ))
}

#[native("object.__subclasshook__(self, /, *args)", c)]
pub(super) fn subclasshook(_this: &Value, _args: &[Value]) -> Value {
    not_implemented()
}

#[native("object.__call__(self, /, *args, **kwargs)", c)]
pub(super) fn call(vm: &dyn Vm, this: &Value, args: &[Value], kwargs: Kwargs) -> PyResult<Value> {
    vm.call(this, args.to_vec(), kwargs.0)
}
