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
        "object(*args)",
        object_new,
        "A featureless object (useful as a unique sentinel); `object.__new__(cls)` makes an instance of class `cls` without calling its `__init__`.",
    );
    super::add_method(
        c,
        "object.__setattr__(self, name, value, /)",
        object_setattr,
        "Sets an instance attribute directly, bypassing a class's own `__setattr__`.",
    );
    super::add_method(
        c,
        "object.__init_subclass__(*args, **kwargs)",
        object_init_subclass,
        "Called when a class is subclassed; the default does nothing.",
    );
    super::add_method(
        c,
        "object.__delattr__(self, name, /)",
        object_delattr,
        "Deletes an instance attribute directly, bypassing a class's own `__delattr__`.",
    );
}

/// The default `__init_subclass__`: refuses the class keywords no class
/// took (CPython names the new class: `C.__init_subclass__() takes no
/// keyword arguments`).
fn object_init_subclass(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.get(1) {
        Value::Dict(d) if !d.borrow().is_empty() => {
            let owner = match a.varargs(0).first() {
                Some(Value::Class(c)) => c.name.to_string(),
                _ => "object".to_string(),
            };
            Err(type_error(format!(
                "{owner}.__init_subclass__() takes no keyword arguments"
            )))
        }
        _ => Ok(Value::None),
    }
}

fn attr_name(v: &Value) -> PyResult<&str> {
    match v {
        Value::Str(s) => Ok(s.as_str()),
        other => Err(type_error(format!(
            "attribute name must be string, not '{}'",
            other.type_name()
        ))),
    }
}

fn object_setattr(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let name = attr_name(a.get(1))?;
    match a.get(0) {
        Value::Instance(inst) => inst.set_attr(name, a.get(2).clone()),
        _ => return Err(type_error("object.__setattr__() needs an instance")),
    }
    Ok(Value::None)
}

fn object_delattr(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let name = attr_name(a.get(1))?;
    match a.get(0) {
        Value::Instance(inst) => {
            if inst.dict.borrow_mut().shift_remove(name).is_none() {
                return Err(crate::value::PyErr::new(
                    crate::value::ExcType::AttributeError,
                    format!("'{}' object has no attribute '{}'", inst.class.name, name),
                ));
            }
        }
        _ => return Err(type_error("object.__delattr__() needs an instance")),
    }
    Ok(Value::None)
}

/// Registers `type.__new__` (the one-argument form; the interpreter
/// replaces it with the full one, which builds classes: `eval/meta.rs`).
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

/// `object()`, and `object.__new__(cls, ...)` as a user class's `__new__`
/// reaches it (`super().__new__(cls)`): a bare instance of `cls`.
fn object_new(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.varargs(0) {
        [] => Ok(Value::Instance(Rc::new(Instance::new(builtin_class(
            ValueType::Object,
        ))))),
        [Value::Class(cls), ..] => match cls.kind {
            crate::value::ClassKind::User | crate::value::ClassKind::Exception(_) => {
                Ok(Value::Instance(Rc::new(Instance::new(cls.clone()))))
            }
            _ if cls.name.as_ref() == "object" => Ok(Value::Instance(Rc::new(Instance::new(
                builtin_class(ValueType::Object),
            )))),
            _ => Err(type_error(format!(
                "object.__new__({}) is not safe, use {}.__new__()",
                cls.name, cls.name
            ))),
        },
        [other, ..] if a.varargs(0).len() > 1 || !matches!(other, Value::Class(_)) => {
            Err(type_error("object() takes no arguments"))
        }
        _ => Err(type_error("object() takes no arguments")),
    }
}

fn type_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.varargs(0) {
        [x] => Ok(vm.type_of(x)),
        [_, _, _] => Err(type_error("type() with 3 arguments (creating a class dynamically) is not supported; use a class statement")),
        _ => Err(type_error("type() takes 1 or 3 arguments")),
    }
}
