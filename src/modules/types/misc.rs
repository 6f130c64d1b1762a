//! `bool`, `object` and `type`: their constructors.

use std::rc::Rc;

use super::{add_new, builtin_class, type_error};
use crate::value::{Args, Class, Instance, PyResult, Value, ValueType, Vm};

/// Registers `bool.__new__`.
pub fn register_bool(c: &Class) {
    add_new(
        c,
        "bool(x=False, /)",
        bool_new,
        "The truth value of `x`: `bool([]) is False`.",
    );
}

/// Registers `object.__new__`.
pub fn register_object(c: &Class) {
    add_new(
        c,
        "object()",
        object_new,
        "A featureless object (useful as a unique sentinel).",
    );
}

/// Registers `type.__new__` (the one-argument form).
pub fn register_type(c: &Class) {
    add_new(
        c,
        "type(*args)",
        type_new,
        "The class of an object: `type(1) is int`.",
    );
}

fn bool_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(vm.truthy(a.get(0))?))
}

fn object_new(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::Instance(Rc::new(Instance::new(builtin_class(
        ValueType::Object,
    )))))
}

fn type_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.varargs(0) {
        [x] => Ok(vm.type_of(x)),
        [_, _, _] => Err(type_error("type() with 3 arguments (creating a class dynamically) is not supported; use a class statement")),
        _ => Err(type_error("type() takes 1 or 3 arguments")),
    }
}
