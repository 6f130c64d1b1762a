//! The slot methods of containers and iterators: `__len__`,
//! `__getitem__`/`__setitem__`/`__delitem__`, `__contains__`, `__iter__`,
//! `__next__`, `__reversed__`, the in-place operators of lists, dicts and
//! sets (`__iadd__`, `__ior__` …), `__class_getitem__` (`list[int]`), and
//! `__getnewargs__`/`__bytes__`. The table that gives each type its slots
//! is in `slots`.

use super::{handles, operand};
use crate::object::descr::not_implemented;
use crate::object::native;
use crate::object::types::not_an_integer;
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

#[native("object.__len__(self, /)", c)]
pub(super) fn len(vm: &dyn Vm, this: &Value) -> PyResult<usize> {
    vm.len(this)
}

#[native("object.__getitem__(self, key, /)", c)]
pub(super) fn getitem(vm: &dyn Vm, this: &Value, key: &Value) -> PyResult<Value> {
    vm.getitem(this, key)
}

#[native("object.__setitem__(self, key, value, /)", c)]
pub(super) fn setitem(vm: &dyn Vm, this: &Value, key: &Value, value: &Value) -> PyResult<()> {
    vm.setitem(this, key, value.clone())
}

#[native("object.__delitem__(self, key, /)", c)]
pub(super) fn delitem(vm: &dyn Vm, this: &Value, key: &Value) -> PyResult<()> {
    vm.delitem(this, key)
}

#[native("object.__contains__(self, key, /)", c)]
pub(super) fn contains(vm: &dyn Vm, this: &Value, key: &Value) -> PyResult<bool> {
    vm.contains(this, key)
}

#[native("object.__iter__(self, /)", c)]
pub(super) fn iter(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    vm.iter(this)
}

#[native("object.__next__(self, /)", c)]
pub(super) fn next(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    match vm.next(this)? {
        Some(v) => Ok(v),
        None => Err(PyErr::with_args(ExcType::StopIteration, Vec::new())),
    }
}

#[native("object.__reversed__(self, /)", c)]
pub(super) fn reversed(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    crate::object::types::iter::reversed_of(vm, this.as_builtin())
}

/// `x.__iop__(y)`: changes `x` in place and returns it; NotImplemented for
/// an operand its type does not take (`s.__iand__([1])`).
fn inplace(vm: &dyn Vm, op: BinOp, this: &Value, value: &Value) -> PyResult<Value> {
    let (x, y) = (this.as_builtin(), &*operand(value));
    let takes = match (x, op) {
        // `lst += iterable` extends; `lst *= n` repeats, and takes only an index.
        (Value::List(_), BinOp::Add) => true,
        (Value::List(_), _) if !matches!(y, Value::Int(_) | Value::Bool(_)) => {
            return Err(not_an_integer(y))
        }
        (Value::List(_), _) => true,
        // `d |= pairs` updates from any mapping or iterable of pairs.
        (Value::Dict(_), _) => true,
        _ => handles(op, x, y),
    };
    if !takes {
        return Ok(not_implemented());
    }
    vm.inplace(op, x, y)?;
    Ok(this.clone())
}

macro_rules! inplace {
    ($($f:ident $sig:literal = $op:ident;)*) => {
        $(
            #[native($sig, c)]
            pub(super) fn $f(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
                inplace(vm, BinOp::$op, this, value)
            }
        )*
    };
}

inplace! {
    iadd "object.__iadd__(self, value, /)" = Add;
    imul "object.__imul__(self, value, /)" = Mult;
    ior "object.__ior__(self, value, /)" = BitOr;
    iand "object.__iand__(self, value, /)" = BitAnd;
    isub "object.__isub__(self, value, /)" = Sub;
    ixor "object.__ixor__(self, value, /)" = BitXor;
}

// `list.__class_getitem__(int)`: `list[int]` (bound to the class; read
// through an instance, its type).
#[native("object.__class_getitem__(self, item, /)", c)]
pub(super) fn class_getitem(vm: &dyn Vm, this: &Value, item: &Value) -> PyResult<Value> {
    let cls = match this {
        c @ Value::Class(_) => c.clone(),
        other => vm.type_of(other),
    };
    vm.getitem(&cls, item)
}

#[native("object.__getnewargs__(self, /)", c)]
pub(super) fn getnewargs(this: &Value) -> Value {
    Value::tuple(vec![this.as_builtin().clone()])
}

#[native("object.__bytes__(self, /)", c)]
pub(super) fn bytes(this: &Value) -> Value {
    this.as_builtin().clone()
}
