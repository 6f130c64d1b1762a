//! `tuple`: constructor, `index` and `count`.

use super::{add_method, add_new, descriptor_error, value_error};
use crate::value::{Args, Class, PyResult, Value, Vm};

fn this<'a>(a: &'a Args, name: &str) -> PyResult<&'a [Value]> {
    match a.get(0) {
        Value::Tuple(t) => Ok(t),
        other => Err(descriptor_error(name, "tuple", other)),
    }
}

/// Registers `tuple`'s constructor and methods.
pub fn register(c: &Class) {
    add_new(
        c,
        "tuple(iterable=(), /)",
        tuple_new,
        "A tuple of the iterable's items: `tuple([1, 2]) == (1, 2)`.",
    );
    add_method(
        c,
        "tuple.index(self, value, start=0, stop=9223372036854775807, /)",
        index,
        "Position of the first item equal to `value`.",
    );
    add_method(
        c,
        "tuple.count(self, value, /)",
        count,
        "How many items equal `value`.",
    );
}

fn tuple_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.get(0) {
        t @ Value::Tuple(_) => Ok(t.clone()),
        other => Ok(Value::tuple(vm.collect(other)?)),
    }
}

fn index(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = this(a, "index")?;
    let (start, stop) = super::list::index_bounds(vm, a.get(2), a.get(3), t.len())?;
    for (i, it) in t.iter().enumerate().take(stop).skip(start) {
        if it.is(a.get(1)) || vm.eq(it, a.get(1))? {
            return Ok(Value::Int(i as i64));
        }
    }
    Err(value_error("tuple.index(x): x not in tuple"))
}

fn count(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = this(a, "count")?;
    let mut n = 0;
    for it in t {
        if it.is(a.get(1)) || vm.eq(it, a.get(1))? {
            n += 1;
        }
    }
    Ok(Value::Int(n))
}
