//! Attribute lookup with Python's rules, as `object.__getattribute__`,
//! `__setattr__` and `__delattr__` do it for instances: data descriptors on
//! the class, then the instance's `__dict__`, then class attributes (bound
//! as their kind binds). The evaluator's fast paths and the hooks a class
//! may define (`__getattribute__`, `__getattr__`) are in `eval::attr`.

use std::rc::Rc;

use super::descr::{bind_class_attr, PropertyObj};
use super::native;
use super::types::slots;
use crate::object::types::type_error;
use crate::value::{Class, ClassKind, ExcType, Instance, PyErr, PyResult, Value, Vm};

/// The attributes an exception keeps outside its `__dict__` in CPython.
const EXCEPTION_SLOTS: &[&str] = &[
    "args",
    // OSError's fields (slots in CPython, not in `__dict__`).
    "errno",
    "strerror",
    "filename",
    "filename2",
    "__cause__",
    "__context__",
    "__suppress_context__",
    "__traceback__",
];

/// `object.__getattribute__` for an instance, without the class's own
/// `__getattribute__`/`__getattr__`: data descriptors on the class
/// (`property`, objects whose class has `__set__`/`__delete__`), then the
/// instance's `__dict__`, then the attributes every instance has, then
/// class attributes (non-data descriptors call `__get__`; functions bind).
pub fn generic_getattr(
    vm: &dyn Vm,
    v: &Value,
    inst: &Instance,
    name: &str,
) -> PyResult<Option<Value>> {
    let class_attr = inst.class.lookup(name);
    if let Some(attr) = &class_attr {
        if is_data_descriptor(attr) {
            if let Some(x) = descriptor_get(vm, attr, Some(v), &inst.class)? {
                return Ok(Some(x));
            }
        }
    }
    if let Some(x) = inst.get_attr(name) {
        return Ok(Some(x));
    }
    match name {
        "__class__" => return Ok(Some(Value::Class(inst.class.clone()))),
        "__dict__" if inst.class.exception_type().is_some() => {
            // An exception keeps `args` and its chaining in slots of its
            // own in CPython: they are not in its `__dict__` (a copy here).
            let mut d = crate::value::Dict::new();
            for k in inst.attr_names() {
                if !EXCEPTION_SLOTS.contains(&k.as_str()) {
                    if let Some(x) = inst.get_attr(&k) {
                        d.insert_str(&k, x)?;
                    }
                }
            }
            return Ok(Some(Value::dict(d)));
        }
        // A bare `object()` has no `__dict__`; instances of classes made by
        // a `class` statement have one unless `__slots__` took it away.
        "__dict__"
            if inst.class.hooks.get() & Class::HOOK_SLOTS == 0
                && (inst.class.kind == ClassKind::User
                    || inst
                        .class
                        .mro_tail
                        .iter()
                        .any(|c| c.kind == ClassKind::User)) =>
        {
            return Ok(Some(inst.dict_value()));
        }
        "__cause__" | "__context__" | "__traceback__" if inst.class.exception_type().is_some() => {
            return Ok(Some(Value::None))
        }
        "__suppress_context__" if inst.class.exception_type().is_some() => {
            return Ok(Some(Value::Bool(false)))
        }
        // SystemExit.code: None, the one argument, or the arguments.
        "code" if inst.class.is_subclass_of(&ExcType::SystemExit.class()) => {
            return Ok(Some(match inst.get_attr("args") {
                Some(Value::Tuple(t)) if t.len() == 1 => t[0].clone(),
                Some(Value::Tuple(t)) if t.is_empty() => Value::None,
                Some(args) => args,
                None => Value::None,
            }));
        }
        // OSError's fields when not given (`OSError('message')`).
        "errno" | "strerror" | "filename" | "filename2"
            if inst.class.is_subclass_of(&ExcType::OSError.class()) =>
        {
            return Ok(Some(Value::None));
        }
        // ExceptionGroup(message, exceptions).
        "message" | "exceptions"
            if inst
                .class
                .is_subclass_of(&ExcType::BaseExceptionGroup.class()) =>
        {
            let args = match inst.get_attr("args") {
                Some(Value::Tuple(t)) => t.to_vec(),
                _ => Vec::new(),
            };
            return Ok(Some(match (name, args.as_slice()) {
                ("message", [m, ..]) => m.clone(),
                ("exceptions", [_, excs, ..]) => Value::tuple(vm.collect(excs)?),
                _ => Value::None,
            }));
        }
        // tf.errors.OpError's fields: `OpError(node_def, op, message,
        // error_code)`, or the one message dist's own errors carry.
        "message" | "node_def" | "op" | "error_code"
            if inst.class.is_subclass_of(&ExcType::OpError.class()) =>
        {
            let args = match inst.get_attr("args") {
                Some(Value::Tuple(t)) => t.to_vec(),
                _ => Vec::new(),
            };
            let code = inst
                .class
                .exception_type()
                .and_then(ExcType::op_error_code)
                .map_or(Value::None, Value::Int);
            return Ok(Some(match (name, args.as_slice()) {
                ("message", [m]) => m.clone(),
                ("message", [_, _, m, ..]) => m.clone(),
                ("node_def", [n, _, _, ..]) => n.clone(),
                ("op", [_, o, _, ..]) => o.clone(),
                ("error_code", [_, _, _, c, ..]) if code.is_none() => c.clone(),
                ("error_code", _) => code,
                ("message", _) => Value::str(""),
                _ => Value::None,
            }));
        }
        // StopIteration.value: its first argument (a generator's return value).
        "value" if inst.class.is_subclass_of(&ExcType::StopIteration.class()) => {
            let first = match inst.get_attr("args") {
                Some(Value::Tuple(t)) => t.first().cloned(),
                _ => None,
            };
            return Ok(Some(first.unwrap_or(Value::None)));
        }
        _ => {}
    }
    if let Some(x) = class_attr {
        if let Some(r) = descriptor_get(vm, &x, Some(v), &inst.class)? {
            return Ok(Some(r));
        }
        return Ok(Some(bind_class_attr(x, v, &inst.class)));
    }
    // What the value underneath a subclass instance has (a named tuple's
    // fields and methods).
    if let Some(base) = inst.builtin_base() {
        if let Some(m) = crate::object::types::namedtuple::subclass_method(v, base, name) {
            return Ok(Some(m));
        }
        // `__format__` (`str(self)` for an empty spec) and the `__str__`
        // most types inherit from `object` (the instance's repr) act on the
        // instance itself.
        if name == "__format__"
            || (name == "__str__" && !matches!(base, Value::Str(_) | Value::Bytes(_)))
        {
            if let Some(m) = slots::bound_slot_method(slots::slot_owner(base), v, name) {
                return Ok(Some(m));
            }
        }
        return match vm.getattr(base, name) {
            Ok(x) => Ok(Some(x)),
            Err(e) if e.is(ExcType::AttributeError) => Ok(None),
            Err(e) => Err(e),
        };
    }
    Ok(None)
}

/// Whether a class attribute is a data descriptor (it takes precedence over
/// the instance's `__dict__`): a `property`, or an instance of a class with
/// `__set__` or `__delete__`.
pub fn is_data_descriptor(attr: &Value) -> bool {
    match attr {
        Value::Native(n) => n.as_any().is::<PropertyObj>(),
        Value::Instance(d) => {
            d.class.kind == ClassKind::User
                && (d.class.lookup("__set__").is_some() || d.class.lookup("__delete__").is_some())
        }
        _ => false,
    }
}

/// The descriptor protocol's `__get__` for a class attribute `attr` read
/// through `instance` (None when read on the class `owner` itself):
/// `Some(result)` for a property or an object whose class has `__get__`,
/// None for everything else (the caller binds functions itself).
pub fn descriptor_get(
    vm: &dyn Vm,
    attr: &Value,
    instance: Option<&Value>,
    owner: &Rc<Class>,
) -> PyResult<Option<Value>> {
    match attr {
        Value::Native(n) => {
            let (Some(p), Some(obj)) = (n.as_any().downcast_ref::<PropertyObj>(), instance) else {
                return Ok(None);
            };
            let g = p.accessor(0, || class_name(vm, obj))?;
            vm.call(g, vec![obj.clone()], Vec::new()).map(Some)
        }
        Value::Instance(d) if d.class.kind == ClassKind::User => {
            let Some(get) = d.class.lookup("__get__") else {
                return Ok(None);
            };
            let obj = instance.cloned().unwrap_or(Value::None);
            vm.call(
                &get,
                vec![attr.clone(), obj, Value::Class(owner.clone())],
                Vec::new(),
            )
            .map(Some)
        }
        _ => Ok(None),
    }
}

/// `obj.name = value` on an instance (also the builtin `setattr`): the
/// class's own `__setattr__`, else [`generic_setattr`].
pub fn instance_setattr(
    vm: &dyn Vm,
    obj: &Value,
    inst: &Instance,
    name: &str,
    value: Value,
) -> PyResult<()> {
    if let Some(sa @ Value::Function(_)) = inst.class.lookup("__setattr__") {
        return vm
            .call(&sa, vec![obj.clone(), Value::str(name), value], Vec::new())
            .map(|_| ());
    }
    generic_setattr(vm, obj, inst, name, value)
}

/// `del obj.name` on an instance (also the builtin `delattr`): the class's
/// own `__delattr__`, else [`generic_delattr`].
pub fn instance_delattr(vm: &dyn Vm, obj: &Value, inst: &Instance, name: &str) -> PyResult<()> {
    if let Some(da @ Value::Function(_)) = inst.class.lookup("__delattr__") {
        return vm
            .call(&da, vec![obj.clone(), Value::str(name)], Vec::new())
            .map(|_| ());
    }
    generic_delattr(vm, obj, inst, name)
}

/// A store (`value` Some) or delete (None) of attribute `name` through a data
/// descriptor on the instance's class (a `property`'s setter/deleter,
/// `__set__`/`__delete__`). `Ok(None)` when a descriptor took it; otherwise
/// the value to store comes back (`None` for a delete) for the instance dict.
pub fn descriptor_store(
    vm: &dyn Vm,
    obj: &Value,
    inst: &Instance,
    name: &str,
    value: Option<Value>,
) -> PyResult<Option<Value>> {
    let deleting = value.is_none();
    match inst.class.lookup(name) {
        Some(Value::Native(n)) => {
            if let Some(p) = n.as_any().downcast_ref::<PropertyObj>() {
                let f = p.accessor(if deleting { 2 } else { 1 }, || inst.class.name.to_string())?;
                let mut args = vec![obj.clone()];
                args.extend(value);
                vm.call(f, args, Vec::new())?;
                return Ok(None);
            }
        }
        Some(d @ Value::Instance(_)) if is_data_descriptor(&d) => {
            let Value::Instance(di) = &d else {
                unreachable!("matched above")
            };
            let hook = if deleting { "__delete__" } else { "__set__" };
            let Some(m) = di.class.lookup(hook) else {
                return Err(PyErr::new(ExcType::AttributeError, hook));
            };
            let mut args = vec![d.clone(), obj.clone()];
            args.extend(value);
            vm.call(&m, args, Vec::new())?;
            return Ok(None);
        }
        _ => {}
    }
    Ok(Some(value.unwrap_or(Value::None)))
}

/// `object.__setattr__` for an instance: a data descriptor on the class
/// (`property` setter, `__set__`), else the instance's `__dict__` (refused
/// for names outside `__slots__` when the class has no `__dict__`).
pub fn generic_setattr(
    vm: &dyn Vm,
    obj: &Value,
    inst: &Instance,
    name: &str,
    value: Value,
) -> PyResult<()> {
    let Some(value) = descriptor_store(vm, obj, inst, name, Some(value))? else {
        return Ok(());
    };
    if let Some(e) = inst
        .builtin_base()
        .and_then(|b| crate::object::types::namedtuple::field_store_error(b, name, false))
    {
        return Err(e);
    }
    match name {
        "__class__" => {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "assigning to __class__ is not supported",
            ))
        }
        "__dict__" if inst.class.hooks.get() & Class::HOOK_SLOTS == 0 => {
            let Value::Dict(d) = &value else {
                return Err(type_error(format!(
                    "__dict__ must be set to a dictionary, not a '{}'",
                    value.type_name()
                )));
            };
            inst.replace_dict(d.clone());
            return Ok(());
        }
        _ => {}
    }
    // A bare `object()` has no `__dict__`; a slotted class, only its slots.
    if matches!(inst.class.kind, ClassKind::Builtin(_))
        || (inst.class.hooks.get() & Class::HOOK_SLOTS != 0 && !in_slots(vm, &inst.class, name)?)
    {
        return Err(no_attribute(&inst.class.name, name));
    }
    inst.set_attr(name, value);
    Ok(())
}

/// Whether `name` is declared in the `__slots__` of a class in `cls`'s MRO
/// (a string or an iterable of strings).
pub fn in_slots(vm: &dyn Vm, cls: &Rc<Class>, name: &str) -> PyResult<bool> {
    for c in cls.mro() {
        let Some(slots) = c.dict.borrow().get("__slots__").cloned() else {
            continue;
        };
        let names = match &slots {
            Value::Str(_) => vec![slots.clone()],
            other => vm.collect(other)?,
        };
        for n in names {
            if let Value::Str(s) = &n {
                if s.as_str() == name || s.as_str() == "__dict__" {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// `object.__delattr__` for an instance: a data descriptor's deleter
/// (`property` deleter, `__delete__`), else removal from the `__dict__`.
pub fn generic_delattr(vm: &dyn Vm, obj: &Value, inst: &Instance, name: &str) -> PyResult<()> {
    if descriptor_store(vm, obj, inst, name, None)?.is_none() {
        return Ok(());
    }
    if let Some(e) = inst
        .builtin_base()
        .and_then(|b| crate::object::types::namedtuple::field_store_error(b, name, true))
    {
        return Err(e);
    }
    match inst.remove_attr(name) {
        Some(_) => Ok(()),
        None => Err(no_attribute(&inst.class.name, name)),
    }
}

/// `'T' object has no attribute 'name'`.
#[cold]
pub fn no_attribute(type_name: &str, name: &str) -> PyErr {
    PyErr::new(
        ExcType::AttributeError,
        format!("'{type_name}' object has no attribute '{name}'"),
    )
}

/// The name of `v`'s class.
pub fn class_name(vm: &dyn Vm, v: &Value) -> String {
    match vm.type_of(v) {
        Value::Class(c) => c.name.to_string(),
        other => other.type_name().to_string(),
    }
}

/// `C.mro()`: the method resolution order as a list.
#[native("type.mro(self)")]
pub fn type_mro(this: &Value) -> PyResult<Vec<Value>> {
    match this {
        Value::Class(c) => Ok(c.mro().into_iter().map(Value::Class).collect()),
        other => Err(type_error(format!(
            "descriptor 'mro' for 'type' objects doesn't apply to a '{}' object",
            other.type_name()
        ))),
    }
}

/// Binds the function to an instance (a method); without one, the function itself.
// `f.__get__(instance, owner)`: a method bound to `instance`, or `f` itself
// when `instance` is None (a function is a non-data descriptor).
#[native("function.__get__(self, instance, owner=None, /)")]
pub fn function_get(this: Value, instance: Value, _owner: &Value) -> Value {
    if instance.is_none() {
        return this;
    }
    Value::BoundMethod(Rc::new(crate::value::BoundMethod {
        receiver: instance,
        func: this,
    }))
}

// `C.__subclasses__()`: the direct subclasses still alive, oldest first.
#[native("type.__subclasses__(self)")]
pub fn type_subclasses(this: &Value) -> Vec<Value> {
    let Value::Class(c) = this else {
        return Vec::new();
    };
    let subs = c.subclasses.borrow();
    subs.iter()
        .filter_map(|w| w.upgrade())
        .map(Value::Class)
        .collect()
}
