//! `tuple`: constructor, `index` and `count`.

use std::rc::Rc;

use super::value_error;
use crate::object::{native, Member};
use crate::value::{PyResult, Value, Vm};

/// `tuple`'s constructor and methods.
pub static MEMBERS: &[Member] = &[
    Member::New(tuple_new::DEF),
    Member::Method(index::DEF),
    Member::Method(count::DEF),
];

/// A tuple of the iterable's items: `tuple([1, 2]) == (1, 2)`.
#[native("tuple(iterable=(), /)", c_ctor)]
fn tuple_new(vm: &dyn Vm, iterable: &Value) -> PyResult<Value> {
    match iterable {
        t @ Value::Tuple(_) => Ok(t.clone()),
        other => Ok(Value::tuple(vm.collect(other)?)),
    }
}

/// Position of the first item equal to `value`.
#[native("tuple.index(self, value, start=0, stop=9223372036854775807, /)", c)]
fn index(
    vm: &dyn Vm,
    this: &Rc<Vec<Value>>,
    value: &Value,
    start: &Value,
    stop: &Value,
) -> PyResult<usize> {
    let (start, stop) = super::list::index_bounds(vm, start, stop, this.len())?;
    for (i, it) in this.iter().enumerate().take(stop).skip(start) {
        if it.is(value) || vm.eq(it, value)? {
            return Ok(i);
        }
    }
    Err(value_error("tuple.index(x): x not in tuple"))
}

/// How many items equal `value`.
#[native("tuple.count(self, value, /)", c)]
fn count(vm: &dyn Vm, this: &Rc<Vec<Value>>, value: &Value) -> PyResult<i64> {
    let mut n = 0;
    for it in this.iter() {
        if it.is(value) || vm.eq(it, value)? {
            n += 1;
        }
    }
    Ok(n)
}
