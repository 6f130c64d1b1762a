//! Subclasses of builtin types (`class Stack(list)`, `class Celsius(float)`,
//! `class Mode(str, Enum)`): an instance carries the builtin value it is
//! underneath ([`Instance::base`]). Made by the builtin's constructor (the
//! mutable containers start empty and are filled by their `__init__`, as in
//! CPython); the builtin's methods called on the instance act on that value,
//! and every operation the class does not define itself (`len`, `[]`,
//! iteration, `repr`, `==`, `+`…) falls back to it.

use std::rc::Rc;

use super::type_error;
use crate::object::{native, Kwargs};
use crate::value::{
    Class, ClassKind, ExcType, Instance, NativeFunction, PyErr, PyResult, Value, ValueType, Vm,
};

/// The builtin types a script's class may derive from.
fn subclassable(t: ValueType) -> bool {
    matches!(
        t,
        ValueType::Int
            | ValueType::Float
            | ValueType::Str
            | ValueType::Bytes
            | ValueType::Tuple
            | ValueType::List
            | ValueType::Dict
            | ValueType::Set
            | ValueType::FrozenSet
    )
}

/// The builtin class underneath `cls`: the first along its MRO that is not
/// a script's class nor `object`, with its type (None for a native class,
/// such as a named tuple's); None for plain classes.
pub fn builtin_base_of(cls: &Rc<Class>) -> Option<(Rc<Class>, Option<ValueType>)> {
    cls.mro().into_iter().find_map(|c| match c.kind {
        ClassKind::Builtin(t) if t != ValueType::Object => Some((c.clone(), Some(t))),
        ClassKind::Native => Some((c.clone(), None)),
        _ => None,
    })
}

/// Whether instances of a builtin class can be made of a subclass here:
/// the builtin types scripts derive from, and native classes with a
/// constructor of their own (a named tuple's class).
pub fn supported(base: &Class, t: Option<ValueType>) -> bool {
    match t {
        Some(t) => subclassable(t),
        None => base.dict.borrow().contains_key("__new__"),
    }
}

/// Whether the builtin value is mutated in place by its `__init__` (the
/// containers CPython fills in `__init__` rather than `__new__`).
pub fn filled_by_init(t: Option<ValueType>) -> bool {
    matches!(t, Some(ValueType::List | ValueType::Dict | ValueType::Set))
}

/// An instance of `cls` standing on the builtin value `base`.
pub fn instance_on(cls: &Rc<Class>, base: Value) -> Value {
    let inst = Instance::new(cls.clone());
    let _ = inst.base.set(base);
    Value::Instance(Rc::new(inst))
}

/// The builtin value underneath `v` when it is an instance of a subclass
/// of a builtin type.
#[inline]
pub fn base_value(v: &Value) -> Option<Value> {
    match v {
        Value::Instance(i) => i.builtin_base().cloned(),
        _ => None,
    }
}

/// The receiver a builtin method gets: the builtin value underneath an
/// instance of a subclass when the method is that builtin type's own
/// (`list.append` called on a `Stack`), else the value itself. Not for the
/// type's constructor (`str(member)` calls the instance's `__str__`), nor
/// for `__format__`, which with an empty spec is `str(self)`.
pub fn native_receiver(nf: &NativeFunction, v: Value) -> Value {
    if let Value::Instance(inst) = &v {
        if let Some(base) = inst.builtin_base() {
            if let Some((owner, method)) = nf.sig.name.split_once('.') {
                if owner == base.type_name() && method != "__format__" {
                    return base.clone();
                }
            }
        }
    }
    v
}

/// What `__new__` found on `owner` reads as: a builtin type's constructor
/// becomes [`subtype_new`] bound to that type, which takes the class first.
pub fn new_attribute(owner: &Rc<Class>, v: Value) -> Value {
    match owner.kind {
        ClassKind::Builtin(t) if subclassable(t) => subtype_new(owner),
        ClassKind::Native => subtype_new(owner),
        _ => v,
    }
}

/// `B.__new__` of a builtin type `B` read as an attribute
/// (`super().__new__(cls, value)`, `str.__new__(cls)`): makes the builtin
/// value from the other arguments, as an instance of `cls` when `cls` is a
/// subclass of `B`.
pub fn subtype_new(owner: &Rc<Class>) -> Value {
    SUBTYPE_NEW.with(|f| f.bind(Value::Class(owner.clone())))
}

thread_local! {
    /// The function [`subtype_new`] binds (its signature parsed once).
    static SUBTYPE_NEW: Rc<NativeFunction> = subtype_new_call::DEF.function();
}

/// Makes an instance of a builtin type or of a subclass of it.
#[native("__new__(type, cls, *args, **kwargs)")]
fn subtype_new_call(
    vm: &dyn Vm,
    type_: &Value,
    cls: &Value,
    args: &[Value],
    kwargs: Kwargs,
) -> PyResult<Value> {
    let owner = match type_ {
        Value::Class(o) => o.name.clone(),
        _ => Rc::from("object"),
    };
    let Value::Class(cls) = cls else {
        return Err(type_error(format!(
            "{owner}.__new__(X): X is not a type object ({})",
            cls.type_name()
        )));
    };
    // CPython's check: the class must derive from the type whose `__new__` this is.
    if let Value::Class(o) = type_ {
        if !cls.is_subclass_of(o) {
            return Err(type_error(format!(
                "{owner}.__new__({}): {} is not a subtype of {owner}",
                cls.name, cls.name
            )));
        }
    }
    let Some((base, t)) = builtin_base_of(cls) else {
        return Err(type_error(format!(
            "{owner}.__new__({}): {} is not a subtype of a builtin type",
            cls.name, cls.name
        )));
    };
    let ctor = base.dict.borrow().get("__new__").cloned();
    let Some(ctor) = ctor else {
        return Err(type_error(format!(
            "cannot create '{}' instances",
            base.name
        )));
    };
    let value = vm.call(&ctor, args.to_vec(), kwargs.0)?;
    if Rc::ptr_eq(cls, &base) {
        return Ok(value);
    }
    if !supported(&base, t) {
        return Err(unsupported(&base.name));
    }
    Ok(instance_on(cls, value))
}

/// The error for a builtin type whose subclasses are not supported here.
pub fn unsupported(name: &str) -> PyErr {
    PyErr::new(
        ExcType::NotImplementedError,
        format!("subclassing the builtin type '{name}' is not supported"),
    )
}

// `__init__` of the builtin containers CPython fills there:
// `super().__init__(iterable)` in a subclass's own `__init__`. Named as
// CPython's argument errors name them (`list expected at most 1 argument,
// got 2`, `set() takes no keyword arguments`); the receiver is the
// instance, whose builtin value each fills. The types' member tables
// register them.

/// The builtin value `__init__` fills: the instance's, or the value itself.
fn init_target(v: &Value) -> Value {
    base_value(v).unwrap_or_else(|| v.clone())
}

/// The one optional positional argument of `list`/`set`'s `__init__`, which
/// take no keywords; `ty` and `name` as CPython's messages give them.
fn init_iterable(args: &[Value], kwargs: &Kwargs, ty: &str, name: &str) -> PyResult<Value> {
    if !kwargs.0.is_empty() {
        return Err(type_error(format!("{ty}() takes no keyword arguments")));
    }
    match args {
        [] => Ok(Value::tuple(Vec::new())),
        [x] => Ok(x.clone()),
        more => Err(type_error(format!(
            "{name} expected at most 1 argument, got {}",
            more.len()
        ))),
    }
}

/// Fills the container from the arguments (what the constructor does).
#[native("list(self, /, *args, **kwargs)", c)]
pub fn list_init(vm: &dyn Vm, this: &Value, args: &[Value], kwargs: Kwargs) -> PyResult<()> {
    let Value::List(l) = init_target(this) else {
        return Err(descriptor("list", this));
    };
    let items = vm.collect(&init_iterable(args, &kwargs, "list", "list")?)?;
    *l.borrow_mut() = items;
    Ok(())
}

/// Fills the container from the arguments (what the constructor does).
#[native("dict(self, /, *args, **kwargs)", c)]
pub fn dict_init(vm: &dyn Vm, this: &Value, args: &[Value], kwargs: Kwargs) -> PyResult<()> {
    let d = init_target(this);
    if !matches!(d, Value::Dict(_)) {
        return Err(descriptor("dict", this));
    }
    if args.len() > 1 {
        return Err(type_error(format!(
            "dict expected at most 1 argument, got {}",
            args.len()
        )));
    }
    let update = vm.getattr(&d, "update")?;
    vm.call(&update, args.to_vec(), kwargs.0)?;
    Ok(())
}

/// Fills the container from the arguments (what the constructor does).
#[native("set(self, /, *args, **kwargs)", c)]
pub fn set_init(vm: &dyn Vm, this: &Value, args: &[Value], kwargs: Kwargs) -> PyResult<()> {
    let s = init_target(this);
    let Value::Set(set) = &s else {
        return Err(descriptor("set", this));
    };
    let items = init_iterable(args, &kwargs, "set", &this.type_name())?;
    set.clear();
    let update = vm.getattr(&s, "update")?;
    vm.call(&update, vec![items], Vec::new())?;
    Ok(())
}

fn descriptor(ty: &str, v: &Value) -> PyErr {
    type_error(format!(
        "descriptor '__init__' requires a '{ty}' object but received a '{}'",
        v.type_name()
    ))
}

/// Whether `cls` or a script's class above it defines `name` (rather than
/// the builtin type underneath or `object`).
pub fn overrides(cls: &Rc<Class>, name: &str) -> bool {
    cls.lookup_owner(name)
        .is_some_and(|o| matches!(o.kind, ClassKind::User))
}

/// The dict underneath an instance of a dict subclass that another dict
/// copies directly (`dict(d)`, `x.update(d)`, `f(**d)`): CPython's merge
/// reads the dict's own entries, ignoring an overridden `keys()` or
/// `__getitem__`, unless the class overrides `__iter__`.
pub fn merged_dict(v: &Value) -> Option<Value> {
    match v {
        Value::Instance(i) => match i.builtin_base() {
            Some(d @ Value::Dict(_)) if !overrides(&i.class, "__iter__") => Some(d.clone()),
            _ => None,
        },
        _ => None,
    }
}
