//! Metaclasses and class creation: `type.__new__` (the one place a class
//! object is built, for `class` statements, `type(name, bases, dict)` and a
//! metaclass's `super().__new__(...)`), `type.__call__`, `type.__init__`,
//! `type.__setattr__`; the metaclass a `class` statement uses (explicit
//! `metaclass=`, inherited from the base, "metaclass conflict"),
//! `__prepare__`; and the hooks a class reaches through its metaclass
//! (`__call__`, `__iter__`, `__len__`, `__repr__` …). An ordinary class has
//! `meta: None`, so the operator paths test one field and come here only for
//! classes that have a metaclass. The `class` statement itself (body, scope)
//! stays in `class.rs`.

use std::rc::Rc;

use super::Interp;
use crate::object::descr::{bind_class_attr, unwrap_method_decorator, PropertyObj};
use crate::object::spec::add_member;
use crate::object::types::{builtin_class, type_error};
use crate::object::{native, Kwargs, Member};
use crate::value::{
    Class, ClassKind, Dict, ExcType, Namespace, PyErr, PyResult, Value, ValueType, Vm,
};

/// What a `class` statement calls to make its class.
pub(crate) enum Maker {
    /// `type` itself: build the class directly.
    Type,
    /// A metaclass (a subclass of `type`), called as `M(name, bases, ns, **kw)`.
    Meta(Rc<Class>),
    /// Any other callable given as `metaclass=` (a function, a class that is
    /// not a `type`), called the same way; what it returns is bound.
    Callable(Value),
}

/// The `type` class.
fn type_class() -> Rc<Class> {
    builtin_class(ValueType::Type)
}

pub(crate) use crate::object::descr::is_metaclass;

#[cold]
fn conflict() -> PyErr {
    type_error(
        "metaclass conflict: the metaclass of a derived class must be a (non-strict) subclass of the metaclasses of all its bases",
    )
}

/// CPython's `_PyType_CalculateMetaclass` for one base: the more derived of
/// `meta` and the base's metaclass (None stands for `type`).
fn winner(meta: Option<Rc<Class>>, bases: &[Value]) -> PyResult<Option<Rc<Class>>> {
    let mut win = meta;
    for b in bases {
        let Value::Class(b) = b else { continue };
        let Some(bm) = &b.meta else { continue };
        win = match win {
            None => Some(bm.clone()),
            Some(w) if w.is_subclass_of(bm) => Some(w),
            Some(w) if bm.is_subclass_of(&w) => Some(bm.clone()),
            Some(_) => return Err(conflict()),
        };
    }
    // `type` itself stands for "no metaclass".
    Ok(win.filter(|w| !Rc::ptr_eq(w, &type_class())))
}

impl Interp {
    /// The maker of a `class` statement with these bases and this
    /// `metaclass=` (if given).
    pub(crate) fn class_maker(&self, explicit: Option<Value>, bases: &[Value]) -> PyResult<Maker> {
        let meta = match explicit {
            None => None,
            Some(Value::Class(m)) if is_metaclass(&m) => Some(m),
            Some(other) => return Ok(Maker::Callable(other)),
        };
        Ok(match winner(meta, bases)? {
            None => Maker::Type,
            Some(m) => Maker::Meta(m),
        })
    }

    /// `M.__prepare__(name, bases, **kw)` when the metaclass defines it: a
    /// dict it returns starts the class namespace `ns`; another mapping (an
    /// object with `__setitem__`/`__getitem__`, as enum's) is returned, for
    /// the body to bind its names through and the metaclass to receive.
    pub(crate) fn prepare_namespace(
        &self,
        maker: &Maker,
        name: &str,
        bases: &[Value],
        kwargs: &[(Rc<str>, Value)],
        ns: &mut Namespace,
    ) -> PyResult<Option<Value>> {
        let owner = match maker {
            Maker::Meta(m) => Value::Class(m.clone()),
            Maker::Callable(c) => c.clone(),
            Maker::Type => return Ok(None),
        };
        let Some(prepare) = self.lookup_attribute(&owner, "__prepare__")? else {
            return Ok(None);
        };
        let args = vec![Value::str(name), Value::tuple(bases.to_vec())];
        let prepared = self.call_value(&prepare, args, kwargs.to_vec())?;
        match &prepared {
            Value::Dict(d) => {
                for (k, v) in d.borrow().items() {
                    ns.insert(Rc::from(namespace_key(&k)?), v);
                }
                Ok(None)
            }
            Value::Instance(i) if i.class.lookup("__setitem__").is_some() => Ok(Some(prepared)),
            other => Err(type_error(format!(
                "{}.__prepare__() must return a mapping, not {}",
                self.callable_name(&owner),
                other.type_name()
            ))),
        }
    }

    /// `M(...)` where `M` derives from `type`: `M.__new__(M, *args, **kw)`,
    /// then `M.__init__` on the class it made (when it is an instance of `M`).
    pub(crate) fn construct_class(
        &self,
        mcs: &Rc<Class>,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        if args.len() == 1 && kwargs.is_empty() && Rc::ptr_eq(mcs, &type_class()) {
            return Ok(Value::Class(self.class_of(&args[0])));
        }
        let new = mcs.lookup("__new__").map(unwrap_method_decorator);
        let Some(new) = new else {
            return Err(type_error("type.__new__ is missing"));
        };
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(Value::Class(mcs.clone()));
        all.extend(args.iter().cloned());
        let obj = self.call_value(&new, all, kwargs.clone())?;
        if let Value::Class(c) = &obj {
            if self.class_of(&obj).is_subclass_of(mcs) {
                if let Some(init @ Value::Function(_)) = mcs.lookup("__init__") {
                    let mut all = Vec::with_capacity(args.len() + 1);
                    all.push(Value::Class(c.clone()));
                    all.extend(args);
                    self.call_value(&init, all, kwargs)?;
                }
            }
        }
        Ok(obj)
    }

    /// The metaclass's `__call__`, when it defines one in the language
    /// (else None: the ordinary instance creation).
    #[inline]
    pub(crate) fn meta_call_hook(&self, cls: &Rc<Class>) -> Option<Value> {
        cls.meta_lookup("__call__")
            .filter(|m| matches!(m, Value::Function(_)))
    }

    /// A method the metaclass of the class value `v` defines in the
    /// language (`__iter__`, `__len__`, `__repr__` …), for the operator
    /// paths: None at once for values that are not classes with a metaclass.
    #[inline]
    pub(crate) fn meta_hook(&self, v: &Value, name: &str) -> Option<Value> {
        match v {
            Value::Class(c) if c.meta.is_some() => c
                .meta_lookup(name)
                .filter(|m| matches!(m, Value::Function(_))),
            _ => None,
        }
    }

    /// Calls the metaclass hook `name` on the class value `v`, if there is one.
    pub(crate) fn call_meta_hook(
        &self,
        v: &Value,
        name: &str,
        rest: &[Value],
    ) -> Option<PyResult<Value>> {
        let hook = self.meta_hook(v, name)?;
        let mut args = Vec::with_capacity(rest.len() + 1);
        args.push(v.clone());
        args.extend(rest.iter().cloned());
        Some(self.call_value(&hook, args, Vec::new()))
    }

    /// An attribute of class `cls` found on its metaclass (after the class's
    /// own MRO): methods bind the class, properties run their getter.
    pub(crate) fn meta_attribute(&self, cls: &Rc<Class>, name: &str) -> PyResult<Option<Value>> {
        let Some(meta) = &cls.meta else {
            return Ok(None);
        };
        let Some(x) = meta.lookup(name) else {
            return Ok(None);
        };
        let receiver = Value::Class(cls.clone());
        if let Some(p) = x.downcast::<PropertyObj>() {
            return match &p.fget {
                Some(g) => self.call_value(g, vec![receiver], Vec::new()).map(Some),
                None => Ok(None),
            };
        }
        Ok(Some(match x {
            Value::Function(_) => {
                Value::BoundMethod(Rc::new(crate::value::BoundMethod { receiver, func: x }))
            }
            Value::NativeFunction(nf) if nf.bound.is_none() => nf.bind(receiver),
            other => bind_class_attr(other, &receiver, meta),
        }))
    }

    /// A property of the metaclass (a data descriptor: it takes precedence
    /// over the class's own attributes).
    pub(crate) fn meta_property(&self, cls: &Rc<Class>, name: &str) -> PyResult<Option<Value>> {
        match cls.meta_lookup(name) {
            Some(Value::Native(n)) if n.as_any().is::<PropertyObj>() => {
                self.meta_attribute(cls, name)
            }
            _ => Ok(None),
        }
    }
}

/// A class-namespace key, which must be a str.
fn namespace_key(k: &Value) -> PyResult<&str> {
    match k {
        Value::Str(s) => Ok(s.as_str()),
        other => Err(type_error(format!(
            "class namespace keys must be strings, not '{}'",
            other.type_name()
        ))),
    }
}

/// The class namespace as the dict a metaclass receives.
pub(crate) fn namespace_dict(ns: &Namespace) -> Value {
    let mut d = Dict::new();
    for (k, v) in ns.iter() {
        d.set_name(k, v.clone());
    }
    Value::dict(d)
}

/// PEP 560: a base that is not a class but has `__mro_entries__`
/// (`list[int]`, `Generic[T]`) is replaced by the classes it returns; the
/// bases as written are kept as `__orig_bases__`.
fn mro_entries(vm: &dyn Vm, bases: Vec<Value>, ns: &mut Namespace) -> PyResult<Vec<Value>> {
    match resolve_bases(vm, &bases)? {
        Some(out) => {
            ns.insert("__orig_bases__".into(), Value::tuple(bases));
            Ok(out)
        }
        None => Ok(bases),
    }
}

/// The bases a class statement's written bases stand for (PEP 560), or
/// None when they are all classes already. The class statement resolves
/// them before choosing the metaclass, as CPython's `__build_class__` does.
pub(crate) fn resolve_bases(vm: &dyn Vm, bases: &[Value]) -> PyResult<Option<Vec<Value>>> {
    if bases.iter().all(|b| matches!(b, Value::Class(_))) {
        return Ok(None);
    }
    let written = Value::tuple(bases.to_vec());
    let mut out = Vec::with_capacity(bases.len());
    for b in bases {
        if matches!(b, Value::Class(_)) {
            out.push(b.clone());
            continue;
        }
        if let Value::Native(n) = b {
            if let Some(g) = n
                .as_any()
                .downcast_ref::<crate::object::types::misc::GenericAlias>()
            {
                out.push(Value::Class(g.origin.clone()));
                continue;
            }
        }
        let hook = match vm.getattr(b, "__mro_entries__") {
            Ok(h) => h,
            Err(e) if e.is(ExcType::AttributeError) => {
                out.push(b.clone());
                continue;
            }
            Err(e) => return Err(e),
        };
        match vm.call(&hook, vec![written.clone()], Vec::new())? {
            Value::Tuple(t) => out.extend(t.iter().cloned()),
            _ => return Err(type_error("__mro_entries__ must return a tuple")),
        }
    }
    Ok(Some(out))
}

/// Builds a class: `type.__new__(meta, name, bases, ns, **kwargs)`. Sets
/// the `__class__` cell of its functions, calls `__set_name__` on the
/// attributes that define it and the base's `__init_subclass__` with
/// `kwargs`.
pub(crate) fn build_class(
    vm: &dyn Vm,
    meta: Option<Rc<Class>>,
    name: Rc<str>,
    bases: Vec<Value>,
    mut ns: Namespace,
    kwargs: Vec<(Rc<str>, Value)>,
) -> PyResult<Rc<Class>> {
    let bases = mro_entries(vm, bases, &mut ns)?;
    let meta = winner(meta, &bases)?;
    let mut base_classes = Vec::with_capacity(bases.len());
    for b in bases {
        match b {
            Value::Class(c) => base_classes.push(c),
            other => {
                return Err(type_error(format!(
                    "bases must be types, not {}",
                    other.type_name()
                )))
            }
        }
    }
    // CPython's types that refuse subclasses (no `Py_TPFLAGS_BASETYPE`).
    for b in &base_classes {
        let final_type = match b.kind {
            ClassKind::Builtin(t) => matches!(
                t,
                ValueType::Bool
                    | ValueType::NoneType
                    | ValueType::Function
                    | ValueType::NativeFunction
                    | ValueType::BoundMethod
            ),
            ClassKind::Native => matches!(
                &*b.name,
                "range" | "slice" | "generator" | "ellipsis" | "NotImplementedType"
            ),
            _ => false,
        };
        if final_type {
            return Err(type_error(format!(
                "type '{}' is not an acceptable base type",
                b.name
            )));
        }
    }
    if base_classes.is_empty() {
        base_classes.push(builtin_class(ValueType::Object));
    }
    let module: Rc<str> = match ns.get("__module__") {
        Some(Value::Str(s)) => Rc::from(s.as_str()),
        _ => Rc::from("__main__"),
    };
    // `__qualname__` leaves the namespace for the class's own field.
    let qualname: Rc<str> = match ns.shift_remove("__qualname__") {
        Some(Value::Str(s)) => Rc::from(s.as_str()),
        _ => name.clone(),
    };
    ns.entry(Rc::from("__module__"))
        .or_insert_with(|| Value::str(&*module));
    ns.entry(Rc::from("__doc__")).or_insert(Value::None);
    let cls = Class::new_user(
        name,
        qualname,
        module,
        base_classes,
        ns,
        ClassKind::User,
        meta,
    )?;
    super::class::finish_class(vm, &cls, kwargs)?;
    Ok(cls)
}

/// `type(obj)`, `type(name, bases, dict, **kw)` and, as a metaclass's
/// `super().__new__(mcs, name, bases, ns, **kw)` reaches it,
/// `type.__new__(mcs, name, bases, dict, **kw)`.
/// The class of an object (`type(1) is int`), or a new class: `type(name, bases, dict)`.
#[native("type(*args, **kwargs)", c_ctor)]
fn type_new(vm: &dyn Vm, args: &[Value], kwargs: Kwargs) -> PyResult<Value> {
    let kwargs = kwargs.0;
    let (meta, rest) = match args {
        [x] if kwargs.is_empty() => return Ok(vm.type_of(x)),
        [Value::Class(m), rest @ ..] if rest.len() == 3 && is_metaclass(m) => {
            (Some(m.clone()), rest)
        }
        rest @ [_, _, _] => (None, rest),
        _ => return Err(type_error("type() takes 1 or 3 arguments")),
    };
    let Value::Str(name) = &rest[0] else {
        return Err(type_error(format!(
            "type.__new__() argument 1 must be str, not {}",
            rest[0].type_name()
        )));
    };
    let Value::Tuple(bases) = &rest[1] else {
        return Err(type_error(format!(
            "type.__new__() argument 2 must be tuple, not {}",
            rest[1].type_name()
        )));
    };
    let Value::Dict(d) = &rest[2] else {
        return Err(type_error(format!(
            "type.__new__() argument 3 must be dict, not {}",
            rest[2].type_name()
        )));
    };
    let mut ns = Namespace::default();
    for (k, v) in d.borrow().items() {
        ns.insert(Rc::from(namespace_key(&k)?), v);
    }
    let meta = meta.filter(|m| !Rc::ptr_eq(m, &type_class()));
    let cls = build_class(
        vm,
        meta,
        Rc::from(name.as_str()),
        bases.to_vec(),
        ns,
        kwargs,
    )?;
    Ok(Value::Class(cls))
}

/// `type.__call__(cls, *args, **kwargs)`: what a metaclass's `__call__`
/// reaches through `super().__call__(...)`.
/// Makes an instance of the class: its `__new__`, then its `__init__`.
#[native("type.__call__(self, /, *args, **kwargs)", c)]
fn type_call(vm: &dyn Vm, this: &Value, args: &[Value], kwargs: Kwargs) -> PyResult<Value> {
    let Value::Class(cls) = this else {
        return Err(type_error(format!(
            "descriptor '__call__' requires a 'type' object but received a '{}'",
            this.type_name()
        )));
    };
    vm.construct(cls, args.to_vec(), kwargs.0)
}

/// Initialises a new class (the default does nothing).
// `type.__init__(cls, *args, **kwargs)`: nothing to do.
#[native("type.__init__(self, /, *args, **kwargs)", c)]
fn type_init(_this: &Value, _args: &[Value], _kwargs: &Value) {}

/// The class and attribute name `type.__setattr__`/`__delattr__` (`what`)
/// act on: a user class (builtin types are immutable, as in CPython).
fn mutable_class_arg<'a>(
    this: &'a Value,
    name: &'a Value,
    what: &str,
) -> PyResult<(&'a Rc<Class>, &'a Rc<String>)> {
    let (Value::Class(cls), Value::Str(name)) = (this, name) else {
        return Err(type_error(format!(
            "type.{what}() needs a class and a str name"
        )));
    };
    if !cls.is_mutable() {
        return Err(type_error(format!(
            "cannot set '{}' attribute of immutable type '{}'",
            name, cls.name
        )));
    }
    Ok((cls, name))
}

/// Sets a class attribute.
// `type.__setattr__(cls, name, value)`: what a metaclass's own
// `__setattr__` reaches for the default.
#[native("type.__setattr__(self, name, value, /)", c)]
fn type_setattr(this: &Value, name: &Value, value: Value) -> PyResult<()> {
    let (cls, name) = mutable_class_arg(this, name, "__setattr__")?;
    cls.set_attr(name, value);
    Ok(())
}

/// Deletes a class attribute.
#[native("type.__delattr__(self, name, /)", c)]
fn type_delattr(this: &Value, name: &Value) -> PyResult<()> {
    let (cls, name) = mutable_class_arg(this, name, "__delattr__")?;
    if cls.remove_attr(name.as_str()).is_none() {
        return Err(PyErr::new(
            ExcType::AttributeError,
            format!("type object '{}' has no attribute '{}'", cls.name, name),
        ));
    }
    Ok(())
}

/// `type`'s constructor and methods.
static TYPE_MEMBERS: &[Member] = &[
    Member::New(type_new::DEF),
    Member::Method(type_call::DEF),
    Member::Method(type_init::DEF),
    Member::Method(type_setattr::DEF),
    Member::Method(type_delattr::DEF),
];

/// Adds `type.__new__`, `__call__`, `__init__`, `__setattr__`, `__delattr__`.
pub(crate) fn register_type_methods() {
    let t = type_class();
    for m in TYPE_MEMBERS {
        add_member(&t, m);
    }
}
