//! Attribute access with Python's rules: data descriptors (`property`) on
//! the class, then the instance `__dict__`, then class attributes (functions
//! bound to the receiver), then `__getattr__`; classes, functions, natives and
//! builtin values (methods from their type's class).

use std::rc::Rc;

use super::Interp;
use crate::distribute::renamed::attribute_help;
use crate::object::attr::{
    descriptor_get, function_get, generic_getattr, instance_delattr, instance_setattr,
    is_data_descriptor, type_mro, type_subclasses,
};
use crate::object::descr::{bind_class_attr, PropertyObj};
use crate::object::types::{builtin_class, slots, type_error};
use crate::value::typecache::Found;
use crate::value::{
    Class, ClassKind, ExcType, Instance, NativeFn, PyErr, PyResult, Value, ValueType,
};

/// The dunder names the evaluator looks up on classes itself, each one
/// `Rc` for the life of the interpreter (the type cache keys on addresses).
pub(crate) struct Dunders {
    /// `__init__`.
    pub init: Rc<str>,
    /// `__new__`.
    pub new: Rc<str>,
    /// `__setattr__`.
    pub setattr: Rc<str>,
}

impl Default for Dunders {
    fn default() -> Dunders {
        Dunders {
            init: "__init__".into(),
            new: "__new__".into(),
            setattr: "__setattr__".into(),
        }
    }
}

/// The attributes of a `ReplicaContext`, reached for on the None that
/// `tf.distribute.get_replica_context()` returns in a cross-replica context.
const REPLICA_CONTEXT_ATTRS: &[&str] = &[
    "all_reduce",
    "all_gather",
    "merge_call",
    "replica_id_in_sync_group",
    "num_replicas_in_sync",
    "strategy",
    "devices",
];

impl Interp {
    /// The class of any value (`type(v)`).
    pub fn class_of(&self, v: &Value) -> Rc<Class> {
        match v {
            Value::Instance(i) => i.class.clone(),
            // Every native type has a class (its `spec`, or one it makes).
            Value::Native(n) => n
                .class()
                .unwrap_or_else(|| builtin_class(ValueType::Object)),
            Value::Tensor(_) => crate::object::tensor::tensor_class(),
            Value::Class(c) if c.meta.is_some() => c
                .meta
                .clone()
                .unwrap_or_else(|| builtin_class(ValueType::Type)),
            other => builtin_class(other.value_type().unwrap_or(ValueType::Object)),
        }
    }

    /// `isinstance(v, cls)` for one class.
    pub fn is_instance(&self, v: &Value, cls: &Value) -> PyResult<bool> {
        match cls {
            Value::Class(c) => {
                if c.meta.is_some() {
                    if let Some(r) =
                        self.call_meta_hook(cls, "__instancecheck__", std::slice::from_ref(v))
                    {
                        return self.is_true(&r?);
                    }
                }
                let mine = self.class_of(v);
                if mine.is_subclass_of(c) {
                    return Ok(true);
                }
                // bool is an int; everything is an object.
                Ok(match c.kind {
                    ClassKind::Builtin(ValueType::Object) => true,
                    ClassKind::Builtin(ValueType::Int) => matches!(v, Value::Bool(_)),
                    _ => false,
                })
            }
            Value::Tuple(items) => {
                for c in items.iter() {
                    if self.is_instance(v, c)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            other => Err(type_error(format!(
                "isinstance() arg 2 must be a type, a tuple of types, or a union, not {}",
                other.type_name()
            ))),
        }
    }

    /// The plain function a method call `v.name(...)` would bind, when binding
    /// is the only thing attribute lookup would do (a function found on the
    /// class, not shadowed by the instance, not a descriptor). The caller
    /// passes `v` as the first argument itself.
    pub fn unbound_method(&self, v: &Value, name: &Rc<str>) -> Option<Value> {
        match v {
            Value::Instance(inst) => {
                if inst.class.hooks.get() & Class::HOOK_GETATTRIBUTE != 0 {
                    return None;
                }
                let Found { attr, slot } = self.type_lookup(&inst.class, name);
                let m = attr?;
                if !matches!(m, Value::Function(_)) || inst.has_attr_at(slot, name) {
                    return None;
                }
                Some(m)
            }
            _ => {
                let ty = builtin_type_code(v)?;
                let slot = method_slot(name, ty);
                {
                    let cache = self.method_cache.borrow();
                    if let Some((n, t, m, _)) = &cache[slot] {
                        if Rc::ptr_eq(n, name) && *t == ty {
                            return m.clone();
                        }
                    }
                }
                self.fill_method_cache(v, name, ty, slot).0
            }
        }
    }

    /// For `v.name(...)` on a value of a builtin type whose method `name`
    /// is a builtin with only positional parameters: its implementation and
    /// parameter count, read from the method cache without touching a
    /// reference count, so the call site can call it directly.
    #[inline]
    pub(crate) fn builtin_method_fn(&self, v: &Value, name: &Rc<str>) -> Option<(NativeFn, usize)> {
        let ty = builtin_type_code(v)?;
        let slot = method_slot(name, ty);
        {
            let cache = self.method_cache.borrow();
            if let Some((n, t, _, fast)) = &cache[slot] {
                if Rc::ptr_eq(n, name) && *t == ty {
                    return *fast;
                }
            }
        }
        self.fill_method_cache(v, name, ty, slot).1
    }

    /// Looks `name` up on a builtin type and caches what it finds.
    #[inline(never)]
    fn fill_method_cache(
        &self,
        v: &Value,
        name: &Rc<str>,
        ty: usize,
        slot: usize,
    ) -> (Option<Value>, Option<(NativeFn, usize)>) {
        let m = self
            .class_of(v)
            .lookup(name)
            .filter(|m| matches!(m, Value::NativeFunction(nf) if nf.bound.is_none()));
        let fast = match &m {
            Some(Value::NativeFunction(nf)) if nf.positional_arity != usize::MAX => {
                Some((nf.func, nf.positional_arity))
            }
            _ => None,
        };
        self.method_cache.borrow_mut()[slot] = Some((name.clone(), ty, m.clone(), fast));
        (m, fast)
    }

    /// `cls.lookup(name)` and the name's slot in `cls`'s instance layout,
    /// through the type cache.
    #[inline]
    pub(crate) fn type_lookup(&self, cls: &Class, name: &Rc<str>) -> Found {
        self.type_cache.borrow_mut().lookup(cls, name)
    }

    /// `v.name` written in the program (an attribute expression, the load
    /// of `v.name += x`): on an instance of a class without its own
    /// `__getattribute__`, the class's attribute and the instance's slot
    /// come from the type cache, so the name is not hashed.
    #[inline]
    pub(crate) fn load_attr(&self, v: &Value, name: &Rc<str>) -> PyResult<Value> {
        if let Value::Instance(inst) = v {
            if inst.class.hooks.get() & Class::HOOK_GETATTRIBUTE == 0 {
                let found = match self.cached_getattr(v, inst, name) {
                    Ok(Some(x)) => return Ok(x),
                    found => self.instance_getattr_fallback(v, inst, name, found)?,
                };
                return found.ok_or_else(|| self.attribute_error(v, name));
            }
        }
        self.get_attribute(v, name)
    }

    /// What [`generic_getattr`] finds, in the same order (data descriptors,
    /// the instance, class attributes), with the lookups from the type
    /// cache; the cases it does not decide itself go to `generic_getattr`
    /// before anything has run.
    fn cached_getattr(
        &self,
        v: &Value,
        inst: &Instance,
        name: &Rc<str>,
    ) -> PyResult<Option<Value>> {
        let cls = &inst.class;
        let Found { attr, slot } = self.type_lookup(cls, name);
        match &attr {
            None | Some(Value::Function(_)) => {}
            Some(p @ Value::Native(n)) if n.as_any().is::<PropertyObj>() => {
                if let Some(x) = descriptor_get(self, p, Some(v), cls)? {
                    return Ok(Some(x));
                }
                return generic_getattr(self, v, inst, name);
            }
            Some(a) if is_data_descriptor(a) => return generic_getattr(self, v, inst, name),
            Some(_) => {}
        }
        if let Some(x) = inst.get_attr_at(slot, name) {
            return Ok(Some(x));
        }
        // What `generic_getattr` answers before class attributes: the
        // attributes of exceptions and every instance's `__class__` and
        // `__dict__`; and after them, a builtin value's underneath.
        let plain = cls.hooks.get() & Class::HOOK_EXCEPTION == 0
            && &**name != "__class__"
            && &**name != "__dict__";
        match attr {
            Some(f @ Value::Function(_)) if plain => Ok(Some(Value::BoundMethod(Rc::new(
                crate::value::BoundMethod {
                    receiver: v.clone(),
                    func: f,
                },
            )))),
            Some(x) if plain => {
                if let Some(r) = descriptor_get(self, &x, Some(v), cls)? {
                    return Ok(Some(r));
                }
                Ok(Some(bind_class_attr(x, v, cls)))
            }
            None if plain && cls.hooks.get() & Class::HOOK_BUILTIN_BASE == 0 => Ok(None),
            _ => generic_getattr(self, v, inst, name),
        }
    }

    /// `obj.name = value` written in the program: on an instance whose
    /// class has no `__setattr__`, `__slots__` or builtin base, and no data
    /// descriptor for the name, the value goes to the instance's slot found
    /// by the type cache.
    #[inline]
    pub(crate) fn store_attr(&self, obj: &Value, name: &Rc<str>, value: Value) -> PyResult<()> {
        if let Value::Instance(inst) = obj {
            let cls = &inst.class;
            if cls.hooks.get() & (Class::HOOK_SLOTS | Class::HOOK_BUILTIN_BASE) == 0
                && !matches!(cls.kind, ClassKind::Builtin(_))
                && &**name != "__class__"
                && &**name != "__dict__"
            {
                let setattr = self.type_lookup(cls, &self.dunders.setattr).attr;
                if !matches!(setattr, Some(Value::Function(_))) {
                    let Found { attr, slot } = self.type_lookup(cls, name);
                    let descriptor = match &attr {
                        None | Some(Value::Function(_)) => false,
                        Some(a) => is_data_descriptor(a),
                    };
                    if !descriptor {
                        inst.set_attr_at(slot, name, value);
                        return Ok(());
                    }
                }
            }
        }
        self.set_attribute(obj, name, value)
    }

    /// `getattr(v, name)`.
    pub fn get_attribute(&self, v: &Value, name: &str) -> PyResult<Value> {
        match self.lookup_attribute(v, name)? {
            Some(x) => Ok(x),
            None => Err(self.attribute_error(v, name)),
        }
    }

    /// Attribute lookup; `Ok(None)` when missing.
    pub fn lookup_attribute(&self, v: &Value, name: &str) -> PyResult<Option<Value>> {
        match v {
            Value::Instance(inst) => {
                if inst.class.hooks.get() & Class::HOOK_GETATTRIBUTE != 0 {
                    if let Some(ga @ Value::Function(_)) = inst.class.lookup("__getattribute__") {
                        let r = self.call_value(&ga, vec![v.clone(), Value::str(name)], Vec::new());
                        return match r {
                            Ok(x) => Ok(Some(x)),
                            Err(e) if e.is(ExcType::AttributeError) => {
                                match inst.class.lookup("__getattr__") {
                                    Some(g) => self
                                        .call_value(
                                            &g,
                                            vec![v.clone(), Value::str(name)],
                                            Vec::new(),
                                        )
                                        .map(Some),
                                    None => Err(e),
                                }
                            }
                            Err(e) => Err(e),
                        };
                    }
                }
                let found = generic_getattr(self, v, inst, name);
                if let Ok(Some(x)) = found {
                    return Ok(Some(x));
                }
                self.instance_getattr_fallback(v, inst, name, found)
            }
            Value::Class(cls) => {
                if cls.meta.is_some() {
                    if let Some(x) = self.meta_property(cls, name)? {
                        return Ok(Some(x));
                    }
                }
                if let Some(x) = cls.lookup(name) {
                    if name == "__new__" {
                        if let Some(owner) = cls.lookup_owner(name) {
                            let x = crate::object::types::subclass::new_attribute(&owner, x);
                            return Ok(Some(x));
                        }
                    }
                    if let Some(r) = descriptor_get(self, &x, None, cls)? {
                        return Ok(Some(r));
                    }
                    return Ok(Some(bind_class_attr(x, v, cls)));
                }
                if cls.meta.is_some() {
                    if let Some(x) = self.meta_attribute(cls, name)? {
                        return Ok(Some(x));
                    }
                }
                Ok(match name {
                    "__class__" => Some(Value::Class(self.class_of(v))),
                    "__name__" => Some(Value::str(&*cls.name)),
                    "__qualname__" => Some(Value::str(&*cls.qualname)),
                    "__module__" => Some(Value::str(&*cls.module)),
                    "__bases__" => Some(Value::tuple(
                        cls.bases.iter().map(|b| Value::Class(b.clone())).collect(),
                    )),
                    "__base__" => Some(
                        cls.base
                            .as_ref()
                            .map(|b| Value::Class(b.clone()))
                            .unwrap_or(Value::None),
                    ),
                    "__mro__" => Some(Value::tuple(
                        cls.mro().into_iter().map(Value::Class).collect(),
                    )),
                    "__subclasses__" => Some(type_subclasses::DEF.function().bind(v.clone())),
                    "mro" => Some(type_mro::DEF.function().bind(v.clone())),
                    "__doc__" => Some(Value::None),
                    "__dict__" => Some(Value::native(super::mappingproxy::MappingProxy(
                        cls.clone(),
                    ))),
                    // A metaclass's `__getattr__` answers for the class.
                    _ if cls.meta.is_some() => {
                        match self.call_meta_hook(v, "__getattr__", &[Value::str(name)]) {
                            Some(r) => Some(r?),
                            None => class_slot(cls, v, name),
                        }
                    }
                    _ => class_slot(cls, v, name),
                })
            }
            Value::Function(fun) => {
                if let Some(x) = fun.get_attr(name) {
                    return Ok(Some(x));
                }
                Ok(match name {
                    "__dict__" => Some(fun.dict_value()),
                    "__code__" => Some(Value::native(super::code::Code::of_function(fun))),
                    "__get__" => Some(function_get::DEF.function().bind(v.clone())),
                    "__kwdefaults__" => {
                        let mut d = crate::value::Dict::new();
                        for p in fun.sig.params.iter() {
                            if let (crate::value::ParamKind::KeywordOnly, Some(v)) =
                                (p.kind, &p.default)
                            {
                                d.insert_str(&p.name, v.clone())?;
                            }
                        }
                        Some(if d.is_empty() {
                            Value::None
                        } else {
                            Value::dict(d)
                        })
                    }
                    // Made once, as CPython's is on first access.
                    "__annotations__" => {
                        let d = Value::dict(crate::value::Dict::new());
                        fun.set_attr(name, d.clone());
                        Some(d)
                    }
                    "__closure__" if fun.closure.is_empty() => Some(Value::None),
                    "__closure__" => Some(Value::tuple(
                        fun.closure
                            .iter()
                            .map(|c| Value::native(crate::object::types::misc::CellObj(c.clone())))
                            .collect(),
                    )),
                    "__name__" => Some(Value::str(&*fun.def.name)),
                    "__qualname__" => Some(Value::str(&*fun.def.qualname)),
                    "__module__" => Some(Value::str(fun.source.module_name())),
                    "__doc__" => Some(docstring(&fun.def.body)),
                    "__defaults__" => {
                        let d: Vec<Value> = fun
                            .sig
                            .params
                            .iter()
                            .filter(|p| p.kind != crate::value::ParamKind::KeywordOnly)
                            .filter_map(|p| p.default.clone())
                            .collect();
                        Some(if d.is_empty() {
                            Value::None
                        } else {
                            Value::tuple(d)
                        })
                    }
                    "__class__" => Some(Value::Class(self.class_of(v))),
                    _ => slots::bound_slot_method(ValueType::Function, v, name),
                })
            }
            Value::NativeFunction(nf) => Ok(match name {
                "__name__" => Some(Value::str(nf.name())),
                "__qualname__" => Some(Value::str(&*nf.sig.name)),
                "__doc__" => Some(if nf.doc.is_empty() {
                    Value::None
                } else {
                    Value::str(nf.doc)
                }),
                "__self__" => Some(nf.bound.clone().unwrap_or(Value::None)),
                "__class__" => Some(Value::Class(self.class_of(v))),
                _ => slots::bound_slot_method(ValueType::NativeFunction, v, name),
            }),
            Value::BoundMethod(bm) => Ok(match name {
                "__self__" => Some(bm.receiver.clone()),
                "__func__" => Some(bm.func.clone()),
                // The method's own slots (`__call__` calls the bound method),
                // then the function's attributes (`__name__`, `__doc__`…).
                _ => match slots::bound_slot_method(ValueType::BoundMethod, v, name) {
                    Some(m) => Some(m),
                    None => self.lookup_attribute(&bm.func, name)?,
                },
            }),
            Value::Native(n) => {
                // A class described by a spec holds the object's methods and
                // properties; `getattr` answers for what they do not define.
                if n.spec().is_some() {
                    if let Some(cls) = n.class() {
                        if let Some(x) = self.class_attribute(v, &cls, name)? {
                            return Ok(Some(x));
                        }
                    }
                }
                if let Some(x) = n.getattr(v, name, self)? {
                    return Ok(Some(x));
                }
                if let Some(m) = n
                    .as_any()
                    .downcast_ref::<crate::object::module::ModuleObj>()
                {
                    if !name.starts_with("__") {
                        if let Some(x) = self.lazy_submodule(&m.name, name)? {
                            return Ok(Some(x));
                        }
                    }
                    // PEP 562: the module's own `__getattr__` answers for
                    // what it lacks (`tensorflow.keras` hands most names to
                    // `keras`). Its AttributeError is this module's own
                    // "no attribute" error (with TensorFlow's API list).
                    let hook = m.dict.borrow().get("__getattr__").cloned();
                    if let Some(hook) = hook {
                        match self.call_value(&hook, vec![Value::str(name)], Vec::new()) {
                            Ok(x) => return Ok(Some(x)),
                            Err(e) if e.is(ExcType::AttributeError) => return Ok(None),
                            Err(e) => return Err(e),
                        }
                    }
                }
                // What a script set on a mutable native class (a named tuple's).
                if let Some(cls) = n.class().filter(|c| c.is_mutable()) {
                    if let Some(x) = self.class_attribute(v, &cls, name)? {
                        return Ok(Some(x));
                    }
                }
                match name {
                    "__class__" => Ok(Some(Value::Class(self.class_of(v)))),
                    _ => slots::native_slot_method(self, n.as_ref().as_ref(), v, name),
                }
            }
            Value::Tensor(_) => crate::object::tensor::tensor_getattr(self, v, name),
            other => {
                let cls = self.class_of(other);
                if let Some(x) = self.class_attribute(v, &cls, name)? {
                    return Ok(Some(x));
                }
                Ok(match name {
                    "__class__" => Some(Value::Class(cls)),
                    _ => slots::bound_slot_method(slots::slot_owner(v), v, name),
                })
            }
        }
    }

    /// What an instance's attribute lookup does after `object.__getattribute__`
    /// found nothing (`found` is `Ok(None)`) or failed: `object`'s slot
    /// methods, then `__getattr__`, which runs also when the lookup failed
    /// with an AttributeError (a property's getter raising one).
    fn instance_getattr_fallback(
        &self,
        v: &Value,
        inst: &Instance,
        name: &str,
        found: PyResult<Option<Value>>,
    ) -> PyResult<Option<Value>> {
        if let Ok(Some(x)) = found {
            return Ok(Some(x));
        }
        // `object`'s slot methods come last in every class's MRO.
        if let Ok(None) = found {
            if let Some(m) = slots::bound_slot_method(ValueType::Object, v, name) {
                return Ok(Some(m));
            }
        }
        match (found, inst.class.lookup("__getattr__")) {
            (Err(e), _) if !e.is(ExcType::AttributeError) => Err(e),
            (_, Some(ga)) => self
                .call_value(&ga, vec![v.clone(), Value::str(name)], Vec::new())
                .map(Some),
            (found, None) => found,
        }
    }

    /// `name` found on `v`'s class `cls`: a descriptor's value (a property),
    /// or the attribute bound to `v` as its kind binds (functions become
    /// methods).
    fn class_attribute(&self, v: &Value, cls: &Rc<Class>, name: &str) -> PyResult<Option<Value>> {
        let Some(x) = cls.lookup(name) else {
            return Ok(None);
        };
        if let Some(r) = descriptor_get(self, &x, Some(v), cls)? {
            return Ok(Some(r));
        }
        Ok(Some(bind_class_attr(x, v, cls)))
    }

    #[cold]
    fn attribute_error(&self, v: &Value, name: &str) -> PyErr {
        let (msg, owner) = match v {
            Value::Class(c) => (
                format!("type object '{}' has no attribute '{}'", c.name, name),
                String::new(),
            ),
            Value::Native(n) if n.as_any().is::<crate::object::module::ModuleObj>() => {
                let mname = n.getattr(v, "__name__", self).ok().flatten();
                let mname = match mname {
                    Some(Value::Str(s)) => s.to_string(),
                    _ => "?".into(),
                };
                if let Some(e) = crate::object::tf_api::not_implemented(&mname, name) {
                    return e;
                }
                (
                    format!("module '{}' has no attribute '{}'", mname, name),
                    mname,
                )
            }
            _ => {
                // an attribute TensorFlow's object has and dist's lacks
                if let Some(e) = api_class_of(v)
                    .and_then(|path| crate::object::tf_api::not_implemented(path, name))
                {
                    return e;
                }
                (
                    format!("'{}' object has no attribute '{}'", v.type_name(), name),
                    v.type_name().to_string(),
                )
            }
        };
        let mut err = PyErr::new(ExcType::AttributeError, msg);
        if let Some(help) = attribute_help(&owner, name) {
            // the help names the replacement; a "Did you mean" guess would only compete with it
            return err.help(help);
        }
        if matches!(v, Value::None) && REPLICA_CONTEXT_ATTRS.contains(&name) {
            err = err.help(
                "tf.distribute.get_replica_context() returns None in a cross-replica context \
                 (inside strategy.scope(), outside strategy.run): call this in the function \
                 given to strategy.run, or use strategy.reduce / strategy.gather here",
            );
        }
        if let Value::Instance(inst) = err.value() {
            inst.set_attr("name", Value::str(name));
            inst.set_attr("obj", v.clone());
        }
        err
    }

    /// `obj.name = value`.
    pub fn set_attribute(&self, obj: &Value, name: &str, value: Value) -> PyResult<()> {
        match obj {
            Value::Instance(inst) => instance_setattr(self, obj, inst, name, value),
            Value::Class(cls) if cls.is_mutable() => {
                if let Some(hook) = self.meta_hook(obj, "__setattr__") {
                    let args = vec![obj.clone(), Value::str(name), value];
                    return self.call_value(&hook, args, Vec::new()).map(|_| ());
                }
                class_layout_attr(cls, name)?;
                cls.set_attr(name, value);
                Ok(())
            }
            Value::Function(f) => {
                f.set_attr(name, value);
                Ok(())
            }
            Value::Native(n) => {
                if n.setattr(obj, name, value, self)? {
                    Ok(())
                } else {
                    Err(self.readonly_error(obj, name))
                }
            }
            Value::Tensor(_) => Err(self.readonly_error(obj, name)),
            Value::Class(c) => Err(immutable_type_error(c, name)),
            _ => Err(self.readonly_error(obj, name)),
        }
    }

    #[cold]
    fn readonly_error(&self, obj: &Value, name: &str) -> PyErr {
        match self.lookup_attribute(obj, name) {
            Ok(Some(_)) => PyErr::new(
                ExcType::AttributeError,
                format!(
                    "'{}' object attribute '{}' is read-only",
                    obj.type_name(),
                    name
                ),
            ),
            _ => crate::object::attr::no_attribute(&obj.type_name(), name),
        }
    }

    /// `del obj.name`.
    pub fn del_attribute(&self, obj: &Value, name: &str) -> PyResult<()> {
        if let Some(hook) = self.meta_hook(obj, "__delattr__") {
            let args = vec![obj.clone(), Value::str(name)];
            return self.call_value(&hook, args, Vec::new()).map(|_| ());
        }
        match obj {
            Value::Instance(inst) => instance_delattr(self, obj, inst, name),
            Value::Class(cls) if cls.is_mutable() => match cls.remove_attr(name) {
                Some(_) => Ok(()),
                None => Err(self.attribute_error(obj, name)),
            },
            // CPython says "set" for deletion too.
            Value::Class(cls) => Err(immutable_type_error(cls, name)),
            Value::Function(f) if f.remove_attr(name) => Ok(()),
            _ => Err(self.attribute_error(obj, name)),
        }
    }
}

/// Entries of the builtin-type method cache.
pub(crate) const METHOD_CACHE: usize = 64;

/// A method cache entry: the call site's name, a type code, what it found,
/// and, for a builtin with only positional parameters, its implementation
/// and parameter count (see [`Interp::builtin_method_fn`]).
pub(crate) type MethodCacheEntry =
    Option<(Rc<str>, usize, Option<Value>, Option<(NativeFn, usize)>)>;

/// Builtin types are immutable, so what a name finds on one never changes:
/// the method cache is keyed by the call site's name (held, so its address
/// stays unique) and this code of the receiver's type.
#[inline]
fn builtin_type_code(v: &Value) -> Option<usize> {
    Some(match v {
        Value::List(_) => 1,
        Value::Dict(_) => 2,
        Value::Str(_) => 3,
        Value::Tuple(_) => 4,
        Value::Set(_) => 5,
        Value::Bytes(_) => 6,
        _ => return None,
    })
}

/// The method cache slot of a call site's name on a type.
#[inline]
fn method_slot(name: &Rc<str>, ty: usize) -> usize {
    ((Rc::as_ptr(name) as *const u8 as usize >> 4) ^ ty) % METHOD_CACHE
}

/// Builtin and native classes cannot be changed (CPython's TypeError).
/// A slot method reached through a class: its builtin type's own, unbound
/// (`int.__add__`, `object.__repr__`, `A.__eq__` for a class that does not
/// define it), and `__call__` bound to the class (`A.__call__()` makes an
/// instance, as `type.__call__`).
fn class_slot(cls: &Class, v: &Value, name: &str) -> Option<Value> {
    if name == "__call__" {
        return slots::bound_slot_method(ValueType::Type, v, name);
    }
    let owner = match cls.kind {
        ClassKind::Builtin(t) => t,
        _ => ValueType::Object,
    };
    if slots::is_class_method(name) {
        return slots::bound_slot_method(owner, v, name);
    }
    slots::slot_method(owner, name)
}

#[cold]
fn immutable_type_error(c: &Class, name: &str) -> PyErr {
    type_error(format!(
        "cannot set '{}' attribute of immutable type '{}'",
        name, c.name
    ))
}

pub(crate) fn docstring(body: &[crate::syntax::ast::Stmt]) -> Value {
    use crate::syntax::ast::{Constant, ExprKind, StmtKind};
    if let Some(first) = body.first() {
        if let StmtKind::Expr(e) = &first.kind {
            if let ExprKind::Constant(Constant::Str(s)) = &e.kind {
                return Value::Str(s.clone());
            }
        }
    }
    Value::None
}

/// The public API name (in `tf_api.txt`) of the class of the TensorFlow
/// object `v`, for its attributes dist does not implement.
fn api_class_of(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Tensor(_) => "tensorflow.Tensor",
        Value::Native(n) => match n.type_name() {
            "MirroredStrategy" => "tensorflow.distribute.MirroredStrategy",
            "OneDeviceStrategy" => "tensorflow.distribute.OneDeviceStrategy",
            "MirroredExtended" | "OneDeviceExtended" => "tensorflow.distribute.StrategyExtended",
            "_MirroredReplicaContext" | "_OneDeviceReplicaContext" => {
                "tensorflow.distribute.ReplicaContext"
            }
            "MirroredVariable" | "SyncOnReadVariable" | "ResourceVariable" | "UnreadVariable" => {
                "tensorflow.Variable"
            }
            "DistributedDataset" | "DistributedDatasetsFromFunction" => {
                "tensorflow.distribute.DistributedDataset"
            }
            "DistributedIterator" => "tensorflow.distribute.DistributedIterator",
            _ => return None,
        },
        _ => return None,
    })
}

/// `cls.__mro__ = ...` is CPython's read-only error; `cls.__bases__ = ...`
/// (which CPython allows, recomputing every subclass's MRO) is one dist
/// refuses, since a class's MRO is fixed when it is made: storing the
/// tuple as a plain attribute would show new bases that lookups ignore.
fn class_layout_attr(cls: &crate::value::Class, name: &str) -> PyResult<()> {
    match name {
        "__mro__" => Err(PyErr::new(ExcType::AttributeError, "readonly attribute")),
        "__bases__" => Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "dist cannot change the bases of class '{}' after it is made (CPython recomputes \
                 the method resolution order of it and its subclasses); create a new class \
                 with the bases you need instead",
                cls.name
            ),
        )),
        _ => Ok(()),
    }
}
