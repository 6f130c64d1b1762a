//! Builtins about objects and classes: `isinstance`, `issubclass`,
//! `getattr`, `setattr`, `delattr`, `hasattr`, `callable`, `vars`, `dir`.

use std::rc::Rc;

use crate::object::types::misc::{GenericAlias, UnionType};
use crate::object::types::protocol::is_callable;
use crate::object::types::type_error;
use crate::object::{native, NativeDef};
use crate::value::{Dict, ExcType, PyErr, PyResult, Value, Vm};

pub(super) const FUNCTIONS: &[NativeDef] = &[
    isinstance::DEF,
    issubclass::DEF,
    getattr::DEF,
    setattr::DEF,
    delattr::DEF,
    hasattr::DEF,
    callable::DEF,
    vars::DEF,
    dir::DEF,
];

fn class_check(vm: &dyn Vm, obj: &Value, spec: &Value, sub: bool, depth: u32) -> PyResult<bool> {
    match spec {
        Value::Class(c) => {
            if sub {
                if c.meta_lookup("__subclasscheck__").is_some() {
                    // The metaclass decides (`ABCMeta.register`).
                    let hook = vm.getattr(&vm.type_of(spec), "__subclasscheck__")?;
                    if matches!(hook, Value::Function(_)) {
                        let r = vm.call(&hook, vec![spec.clone(), obj.clone()], Vec::new())?;
                        return vm.truthy(&r);
                    }
                }
                match obj {
                    Value::Class(o) => Ok(o.is_subclass_of(c)),
                    _ => Err(type_error("issubclass() arg 1 must be a class")),
                }
            } else {
                vm.isinstance(obj, spec)
            }
        }
        Value::Native(n) if n.as_any().is::<UnionType>() => {
            let members = n
                .as_any()
                .downcast_ref::<UnionType>()
                .map(|u| u.members.clone())
                .unwrap_or_default();
            for c in members {
                if class_check(vm, obj, &c, sub, depth + 1)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        // An object whose class decides (`typing.Union[int, str]`): its
        // type's `__instancecheck__`/`__subclasscheck__`, as CPython's.
        Value::Instance(i)
            if i.class
                .lookup(if sub {
                    "__subclasscheck__"
                } else {
                    "__instancecheck__"
                })
                .is_some() =>
        {
            let name = if sub {
                "__subclasscheck__"
            } else {
                "__instancecheck__"
            };
            let hook = i.class.lookup(name).unwrap_or(Value::None);
            let r = vm.call(&hook, vec![spec.clone(), obj.clone()], Vec::new())?;
            vm.truthy(&r)
        }
        Value::Native(n) if n.as_any().is::<GenericAlias>() => Err(type_error(format!(
            "{}() argument 2 cannot be a parameterized generic",
            if sub { "issubclass" } else { "isinstance" }
        ))),
        Value::Tuple(t) if depth < 64 => {
            for c in t.iter() {
                if class_check(vm, obj, c, sub, depth + 1)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ if sub => Err(type_error(
            "issubclass() arg 2 must be a class, a tuple of classes, or a union",
        )),
        _ => Err(type_error(
            "isinstance() arg 2 must be a type, a tuple of types, or a union",
        )),
    }
}

/// Whether `obj` is an instance of the class (or of any class in a tuple): `isinstance(True, int)`.
#[native("isinstance(obj, class_or_tuple, /)", c)]
fn isinstance(vm: &dyn Vm, obj: &Value, class_or_tuple: &Value) -> PyResult<bool> {
    class_check(vm, obj, class_or_tuple, false, 0)
}

/// Whether `cls` derives from the class (or from any class in a tuple): `issubclass(bool, int)`.
#[native("issubclass(cls, class_or_tuple, /)", c)]
fn issubclass(vm: &dyn Vm, cls: &Value, class_or_tuple: &Value) -> PyResult<bool> {
    if !matches!(cls, Value::Class(_)) {
        return Err(type_error("issubclass() arg 1 must be a class"));
    }
    class_check(vm, cls, class_or_tuple, true, 0)
}

fn name_arg(v: &Value) -> PyResult<Rc<String>> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s.clone()),
        _ => Err(type_error(format!(
            "attribute name must be string, not '{}'",
            v.type_name()
        ))),
    }
}

/// The named attribute; `default` instead of AttributeError when given.
#[native("getattr(object, name, *default)", c)]
fn getattr(vm: &dyn Vm, object: &Value, name: &Value, default: &[Value]) -> PyResult<Value> {
    // The count first, as CPython checks it before the name's type.
    if default.len() > 1 {
        return Err(type_error(format!(
            "getattr expected at most 3 arguments, got {}",
            default.len() + 2
        )));
    }
    let name = name_arg(name)?;
    match default {
        [] => vm.getattr(object, &name),
        [default] => match vm.getattr(object, &name) {
            Err(e) if e.is(ExcType::AttributeError) => Ok(default.clone()),
            other => other,
        },
        more => Err(type_error(format!(
            "getattr expected at most 3 arguments, got {}",
            more.len() + 2
        ))),
    }
}

fn no_attr(obj: &Value, name: &str) -> PyErr {
    PyErr::new(
        ExcType::AttributeError,
        format!("'{}' object has no attribute '{}'", obj.type_name(), name),
    )
}

/// Sets the named attribute: `setattr(o, 'x', 1)` is `o.x = 1`.
#[native("setattr(obj, name, value, /)", c)]
fn setattr(vm: &dyn Vm, obj: &Value, name: &Value, value: Value) -> PyResult<()> {
    let name = name_arg(name)?;
    match obj {
        Value::Instance(i) => crate::object::attr::instance_setattr(vm, obj, i, &name, value)?,
        Value::Class(c) => c.set_attr(&name, value),
        Value::Function(f) => f.set_attr(&name, value),
        Value::Native(n) => {
            if !n.setattr(obj, &name, value, vm)? {
                return Err(no_attr(obj, &name));
            }
        }
        _ => return Err(no_attr(obj, &name)),
    }
    Ok(())
}

/// Deletes the named attribute.
#[native("delattr(obj, name, /)", c)]
fn delattr(vm: &dyn Vm, obj: &Value, name: &Value) -> PyResult<()> {
    let name = name_arg(name)?;
    let removed = match obj {
        Value::Instance(i) => {
            crate::object::attr::instance_delattr(vm, obj, i, &name)?;
            true
        }
        Value::Class(c) => c.remove_attr(&name).is_some(),
        Value::Function(f) => f.remove_attr(&name),
        _ => false,
    };
    if removed {
        Ok(())
    } else {
        Err(no_attr(obj, &name))
    }
}

/// Whether the object has the named attribute.
#[native("hasattr(obj, name, /)", c)]
fn hasattr(vm: &dyn Vm, obj: &Value, name: &Value) -> PyResult<bool> {
    let name = name_arg(name)?;
    match vm.getattr(obj, &name) {
        Ok(_) => Ok(true),
        Err(e) if e.is(ExcType::AttributeError) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether the object can be called.
#[native("callable(obj, /)", c)]
fn callable(vm: &dyn Vm, obj: &Value) -> bool {
    is_callable(vm, obj)
}

/// The attributes of an object (its `__dict__`) as a dict.
#[native("vars(*object)", c)]
fn vars(vm: &dyn Vm, object: &[Value]) -> PyResult<Value> {
    let [obj] = object else {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "vars() without an argument is supported only when called directly by name",
        ));
    };
    let mut d = Dict::new();
    match obj {
        Value::Instance(_) => {
            return match vm.getattr(obj, "__dict__") {
                Err(e) if e.is(ExcType::AttributeError) => {
                    Err(type_error("vars() argument must have __dict__ attribute"))
                }
                other => other,
            }
        }
        // A class's `__dict__` is its mappingproxy.
        Value::Class(_) => return vm.getattr(obj, "__dict__"),
        Value::Native(n) => {
            for name in n.dir() {
                if let Ok(v) = vm.getattr(obj, &name) {
                    d.insert_str(&name, v)?;
                }
            }
        }
        _ => return Err(type_error("vars() argument must have __dict__ attribute")),
    }
    Ok(Value::dict(d))
}

/// The sorted attribute names of an object.
#[native("dir(*object)", c)]
fn dir(vm: &dyn Vm, object: &[Value]) -> PyResult<Value> {
    let [obj] = object else {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "dir() without an argument is supported only when called directly by name",
        ));
    };
    // A `__dir__` of the object's type (a class's metaclass for a class)
    // written in the language decides; its names come back sorted.
    if let Value::Class(t) = vm.type_of(obj) {
        if let Some(hook @ Value::Function(_)) = t.lookup("__dir__") {
            let listed = vm.call(&hook, vec![obj.clone()], Vec::new())?;
            let mut items = vm.collect(&listed)?;
            let mut failed = None;
            items.sort_by(|x, y| match vm.lt(x, y) {
                Ok(true) => std::cmp::Ordering::Less,
                Ok(false) => match vm.lt(y, x) {
                    Ok(true) => std::cmp::Ordering::Greater,
                    Ok(false) => std::cmp::Ordering::Equal,
                    Err(e) => {
                        failed.get_or_insert(e);
                        std::cmp::Ordering::Equal
                    }
                },
                Err(e) => {
                    failed.get_or_insert(e);
                    std::cmp::Ordering::Equal
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            return Ok(Value::list(items));
        }
    }
    let mut names: Vec<String> = match obj {
        // A native object (a strategy, a dataset) lists what its TF class has.
        Value::Native(n) => n.dir(),
        other => vm.dir(other),
    };
    names.sort();
    names.dedup();
    Ok(Value::list(names.into_iter().map(Value::str).collect()))
}
