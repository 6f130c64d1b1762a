//! Builtins about objects and classes: `isinstance`, `issubclass`,
//! `getattr`, `setattr`, `delattr`, `hasattr`, `callable`, `vars`, `dir`.

use std::rc::Rc;

use super::Entry;
use crate::object::types::misc::{GenericAlias, UnionType};
use crate::object::types::type_error;
use crate::value::{Args, Dict, ExcType, PyErr, PyResult, Value, Vm};

pub(super) const FUNCTIONS: &[Entry] = &[
    (
        "isinstance(obj, class_or_tuple, /)",
        isinstance,
        "Whether `obj` is an instance of the class (or of any class in a tuple): `isinstance(True, int)`.",
    ),
    (
        "issubclass(cls, class_or_tuple, /)",
        issubclass,
        "Whether `cls` derives from the class (or from any class in a tuple): `issubclass(bool, int)`.",
    ),
    (
        "getattr(object, name, *default)",
        getattr,
        "The named attribute; `default` instead of AttributeError when given.",
    ),
    ("setattr(obj, name, value, /)", setattr, "Sets the named attribute: `setattr(o, 'x', 1)` is `o.x = 1`."),
    ("delattr(obj, name, /)", delattr, "Deletes the named attribute."),
    ("hasattr(obj, name, /)", hasattr, "Whether the object has the named attribute."),
    ("callable(obj, /)", callable, "Whether the object can be called."),
    ("vars(*object)", vars, "The attributes of an object (its `__dict__`) as a dict."),
    ("dir(*object)", dir, "The sorted attribute names of an object."),
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

fn isinstance(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    class_check(vm, a.get(0), a.get(1), false, 0).map(Value::Bool)
}

fn issubclass(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    if !matches!(a.get(0), Value::Class(_)) {
        return Err(type_error("issubclass() arg 1 must be a class"));
    }
    class_check(vm, a.get(0), a.get(1), true, 0).map(Value::Bool)
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

fn getattr(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    // The count first, as CPython checks it before the name's type.
    if a.varargs(2).len() > 1 {
        return Err(type_error(format!(
            "getattr expected at most 3 arguments, got {}",
            a.varargs(2).len() + 2
        )));
    }
    let name = name_arg(a.get(1))?;
    match a.varargs(2) {
        [] => vm.getattr(a.get(0), &name),
        [default] => match vm.getattr(a.get(0), &name) {
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

fn setattr(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let name = name_arg(a.get(1))?;
    let (obj, value) = (a.get(0), a.get(2).clone());
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
    Ok(Value::None)
}

fn delattr(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let name = name_arg(a.get(1))?;
    let obj = a.get(0);
    let removed = match obj {
        Value::Instance(i) => {
            crate::object::attr::instance_delattr(vm, obj, i, &name)?;
            true
        }
        Value::Class(c) => c.dict.borrow_mut().shift_remove(name.as_str()).is_some(),
        Value::Function(f) => f.remove_attr(&name),
        _ => false,
    };
    if removed {
        Ok(Value::None)
    } else {
        Err(no_attr(obj, &name))
    }
}

fn hasattr(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let name = name_arg(a.get(1))?;
    match vm.getattr(a.get(0), &name) {
        Ok(_) => Ok(Value::Bool(true)),
        Err(e) if e.is(ExcType::AttributeError) => Ok(Value::Bool(false)),
        Err(e) => Err(e),
    }
}

fn callable(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(is_callable(vm, a.get(0))))
}

/// `callable(v)`.
pub(crate) fn is_callable(vm: &dyn Vm, v: &Value) -> bool {
    match v {
        Value::Function(_) | Value::NativeFunction(_) | Value::BoundMethod(_) | Value::Class(_) => {
            true
        }
        Value::Instance(i) => i.class.lookup("__call__").is_some(),
        Value::Native(_) => vm.getattr(v, "__call__").is_ok(),
        _ => false,
    }
}

fn vars(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let [obj] = a.varargs(0) else {
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
                    d.insert_str(&name, v);
                }
            }
        }
        _ => return Err(type_error("vars() argument must have __dict__ attribute")),
    }
    Ok(Value::dict(d))
}

fn dir(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let [obj] = a.varargs(0) else {
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
