//! Descriptors and the objects of the object model that natives and the
//! evaluator share: `property`, `staticmethod`, `classmethod`, `super`
//! objects, the `NotImplemented` and `Ellipsis` singletons, and how a class
//! attribute binds to the receiver it was read through.

use std::cell::RefCell;
use std::rc::Rc;

use crate::object::types::{type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::value::{Class, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The object `super()` returns.
pub struct SuperObj {
    /// The class whose parents are searched.
    pub cls: Rc<Class>,
    /// The receiver.
    pub obj: Value,
}

/// The class of the objects `super()` returns.
pub static SUPER: ClassSpec = ClassSpec::plain("super", "builtins");

impl NativeObject for SuperObj {
    fn class(&self) -> Option<std::rc::Rc<crate::value::Class>> {
        // Its attributes are its own (`getattr`), not its class's.
        Some(SUPER.class())
    }

    fn type_name(&self) -> &str {
        "super"
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let of = match &self.obj {
            Value::Class(c) => c.name.to_string(),
            other => match vm.type_of(other) {
                Value::Class(c) => c.name.to_string(),
                t => t.type_name().to_string(),
            },
        };
        Ok(format!(
            "<super: <class '{}'>, <{} object>>",
            self.cls.name, of
        ))
    }

    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        // A class receiver is an instance here when `super()` runs in a
        // metaclass's method (`super().__call__(*args)`).
        let as_instance = match &self.obj {
            Value::Class(c) => {
                c.meta.as_ref().is_some_and(|m| m.is_subclass_of(&self.cls))
                    || is_metaclass(&self.cls) && !is_metaclass(c)
            }
            _ => false,
        };
        // The search runs along the MRO of the receiver's class, starting
        // after `cls` (so cooperative multiple inheritance reaches siblings).
        let owner = match &self.obj {
            Value::Class(c) if !as_instance => c.clone(),
            other => match vm.type_of(other) {
                Value::Class(c) => c,
                _ => self.cls.clone(),
            },
        };
        let mro = owner.mro();
        let start = mro
            .iter()
            .position(|c| Rc::ptr_eq(c, &self.cls))
            .map_or(mro.len(), |i| i + 1);
        let Some((found_on, v)) = mro[start..]
            .iter()
            .find_map(|c| c.dict.borrow().get(name).cloned().map(|v| (c, v)))
        else {
            // `object`'s slot methods (`super().__repr__()`, `__eq__`…).
            return Ok(match &self.obj {
                Value::Class(_) if !as_instance => None,
                obj => {
                    // A builtin's slots act on the value underneath a
                    // subclass instance (`super().__setitem__(k, v)`).
                    let obj = obj.as_builtin();
                    let owner = crate::object::types::slots::slot_owner(obj);
                    crate::object::types::slots::bound_slot_method(owner, obj, name)
                }
            });
        };
        // A builtin's constructor takes the class first (`super().__new__(cls, v)`).
        let v = if name == "__new__" {
            crate::object::types::subclass::new_attribute(found_on, v)
        } else {
            v
        };
        // `__init_subclass__` is an implicit classmethod.
        if as_instance || (matches!(self.obj, Value::Class(_)) && name == "__init_subclass__") {
            return Ok(Some(match v {
                Value::Function(_) => Value::BoundMethod(Rc::new(crate::value::BoundMethod {
                    receiver: self.obj.clone(),
                    func: v,
                })),
                Value::NativeFunction(nf) if nf.bound.is_none() => nf.bind(self.obj.clone()),
                other => bind_class_attr(other, &self.obj, &owner),
            }));
        }
        let instance = (!matches!(self.obj, Value::Class(_))).then_some(&self.obj);
        if let Some(x) = crate::object::attr::descriptor_get(vm, &v, instance, &owner)? {
            return Ok(Some(x));
        }
        Ok(Some(bind_class_attr(v, &self.obj, &owner)))
    }
}

/// Binds a class attribute found by lookup to a receiver: functions become
/// bound methods, classmethods bind the class, staticmethods unwrap.
pub fn bind_class_attr(v: Value, receiver: &Value, owner: &Rc<Class>) -> Value {
    match &v {
        Value::Function(_) => {
            if matches!(receiver, Value::Class(_)) {
                v
            } else {
                Value::BoundMethod(Rc::new(crate::value::BoundMethod {
                    receiver: receiver.clone(),
                    func: v,
                }))
            }
        }
        Value::NativeFunction(nf) if nf.bound.is_none() => {
            if matches!(receiver, Value::Class(_)) {
                v
            } else {
                // A builtin's method on a subclass instance acts on the builtin value.
                nf.bind(crate::object::types::subclass::native_receiver(
                    nf,
                    receiver.clone(),
                ))
            }
        }
        Value::Native(n) => {
            if let Some(s) = n.as_any().downcast_ref::<StaticMethodObj>() {
                s.0.clone()
            } else if let Some(c) = n.as_any().downcast_ref::<ClassMethodObj>() {
                match &c.0 {
                    // A builtin's class method (`dict.fromkeys`): bound as
                    // its methods bind `self`, so its errors count without it.
                    Value::NativeFunction(nf) if nf.bound.is_none() => {
                        nf.bind(Value::Class(owner.clone()))
                    }
                    f => Value::BoundMethod(Rc::new(crate::value::BoundMethod {
                        receiver: Value::Class(owner.clone()),
                        func: f.clone(),
                    })),
                }
            } else if matches!(receiver, Value::Instance(_)) {
                n.bind(&v, receiver).unwrap_or(v)
            } else {
                v
            }
        }
        _ => v,
    }
}

/// `property(fget, fset, fdel, doc)`.
pub struct PropertyObj {
    /// Getter.
    pub fget: Option<Value>,
    /// Setter.
    pub fset: Option<Value>,
    /// Deleter.
    pub fdel: Option<Value>,
    /// `__doc__` (the getter's docstring when not given).
    pub doc: Value,
    /// The attribute name it was assigned to in a class body (`__set_name__`),
    /// for error messages.
    pub name: RefCell<Option<Rc<str>>>,
}

impl PropertyObj {
    /// A read-only property named `name` (a builtin type's attribute).
    pub fn read_only(fget: Value, name: &str) -> PropertyObj {
        PropertyObj {
            fget: Some(fget),
            fset: None,
            fdel: None,
            doc: Value::None,
            name: RefCell::new(Some(name.into())),
        }
    }

    /// A property; `doc` None takes the getter's docstring.
    fn make(
        vm: &dyn Vm,
        fget: Option<Value>,
        fset: Option<Value>,
        fdel: Option<Value>,
        doc: Value,
    ) -> PyResult<Value> {
        let doc = match (&doc, &fget) {
            (Value::None, Some(g)) => match vm.getattr(g, "__doc__") {
                Ok(d) => d,
                Err(_) => Value::None,
            },
            _ => doc,
        };
        Ok(Value::native(PropertyObj {
            fget: fget.filter(|v| !v.is_none()),
            fset: fset.filter(|v| !v.is_none()),
            fdel: fdel.filter(|v| !v.is_none()),
            doc,
            name: RefCell::new(None),
        }))
    }

    /// The getter (0), setter (1) or deleter (2) to run for an object of
    /// type `owner`, or CPython's AttributeError when the property has none.
    pub fn accessor(&self, which: usize, owner: impl FnOnce() -> String) -> PyResult<&Value> {
        let (f, what) = match which {
            0 => (&self.fget, "getter"),
            1 => (&self.fset, "setter"),
            _ => (&self.fdel, "deleter"),
        };
        f.as_ref().ok_or_else(|| {
            PyErr::new(
                ExcType::AttributeError,
                format!("{} of '{}' object has no {what}", self.label(), owner()),
            )
        })
    }

    /// `property 'x'` (or `property` when it never heard its name), as
    /// CPython's errors start.
    pub fn label(&self) -> String {
        match &*self.name.borrow() {
            Some(n) => format!("property '{}'", n),
            None => "property".to_string(),
        }
    }
}

/// The class `property`.
pub static PROPERTY: ClassSpec = ClassSpec {
    name: "property",
    module: "builtins",
    bases: &[],
    members: &[
        Member::New(builtin_property::DEF),
        Member::Method(property_getter::DEF),
        Member::Method(property_setter::DEF),
        Member::Method(property_deleter::DEF),
        Member::Method(property_get::DEF),
        Member::Method(property_set::DEF),
        Member::Method(property_delete::DEF),
        Member::Getter(property_fget::DEF),
        Member::Getter(property_fset::DEF),
        Member::Getter(property_fdel::DEF),
    ],
};

impl NativeClass for PropertyObj {
    const SPEC: &'static ClassSpec = &PROPERTY;
}

/// The receiver of `property`'s methods called directly, with CPython's
/// message when it is not a property.
fn this_property(v: &Value) -> PyResult<&PropertyObj> {
    v.as_builtin()
        .downcast::<PropertyObj>()
        .ok_or_else(|| type_error("descriptor requires a 'property' object"))
}

/// `property.getter/setter/deleter(self, f)`: a copy with one accessor replaced.
fn property_copy(vm: &dyn Vm, this: &Value, f: &Value, which: usize) -> PyResult<Value> {
    let p = this_property(this)?;
    let f = Some(f.clone());
    let (g, s, d) = (p.fget.clone(), p.fset.clone(), p.fdel.clone());
    // A docstring that came from the old getter follows a new getter.
    let doc = if which == 0 {
        Value::None
    } else {
        p.doc.clone()
    };
    let r = match which {
        0 => PropertyObj::make(vm, f, s, d, doc),
        1 => PropertyObj::make(vm, g, f, d, doc),
        _ => PropertyObj::make(vm, g, s, f, doc),
    }?;
    if let Some(np) = r.downcast::<PropertyObj>() {
        *np.name.borrow_mut() = p.name.borrow().clone();
    }
    Ok(r)
}

/// `property.__get__/__set__/__delete__(self, instance, ...)`, called
/// directly (attribute access reaches the accessors without them).
fn property_call(
    vm: &dyn Vm,
    this: &Value,
    obj: &Value,
    value: Option<&Value>,
    which: usize,
) -> PyResult<Value> {
    let p = this_property(this)?;
    if which == 0 && obj.is_none() {
        return Ok(this.clone());
    }
    let f = p.accessor(which, || crate::object::attr::class_name(vm, obj))?;
    let mut call_args = vec![obj.clone()];
    call_args.extend(value.cloned());
    let out = vm.call(f, call_args, Vec::new())?;
    Ok(if which == 0 { out } else { Value::None })
}

// `property`'s methods have no docstrings of their own.

#[native("property.getter(self, fget)")]
fn property_getter(vm: &dyn Vm, this: &Value, fget: &Value) -> PyResult<Value> {
    property_copy(vm, this, fget, 0)
}

#[native("property.setter(self, fset)")]
fn property_setter(vm: &dyn Vm, this: &Value, fset: &Value) -> PyResult<Value> {
    property_copy(vm, this, fset, 1)
}

#[native("property.deleter(self, fdel)")]
fn property_deleter(vm: &dyn Vm, this: &Value, fdel: &Value) -> PyResult<Value> {
    property_copy(vm, this, fdel, 2)
}

#[native("property.__get__(self, instance, owner=None, /)")]
fn property_get(vm: &dyn Vm, this: &Value, instance: &Value, _owner: &Value) -> PyResult<Value> {
    property_call(vm, this, instance, None, 0)
}

#[native("property.__set__(self, instance, value, /)")]
fn property_set(vm: &dyn Vm, this: &Value, instance: &Value, value: &Value) -> PyResult<Value> {
    property_call(vm, this, instance, Some(value), 1)
}

#[native("property.__delete__(self, instance, /)")]
fn property_delete(vm: &dyn Vm, this: &Value, instance: &Value) -> PyResult<Value> {
    property_call(vm, this, instance, None, 2)
}

/// The getter.
#[native("property.fget(self)")]
fn property_fget(this: &PropertyObj) -> Option<Value> {
    this.fget.clone()
}

/// The setter.
#[native("property.fset(self)")]
fn property_fset(this: &PropertyObj) -> Option<Value> {
    this.fset.clone()
}

/// The deleter.
#[native("property.fdel(self)")]
fn property_fdel(this: &PropertyObj) -> Option<Value> {
    this.fdel.clone()
}

impl NativeObject for PropertyObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&PROPERTY)
    }

    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if name == "__isabstractmethod__" {
            // Abstract when one of its accessors is (`@property @abstractmethod`).
            for f in [&self.fget, &self.fset, &self.fdel].into_iter().flatten() {
                if let Ok(v) = vm.getattr(f, name) {
                    if vm.truthy(&v)? {
                        return Ok(Some(Value::Bool(true)));
                    }
                }
            }
            return Ok(Some(Value::Bool(false)));
        }
        Ok(match name {
            "__doc__" => Some(self.doc.clone()),
            _ => None,
        })
    }
}

/// `staticmethod(f)`.
pub struct StaticMethodObj(pub Value);

/// The function inside a `staticmethod`/`classmethod` wrapper (the value
/// itself otherwise): for the methods Python treats as implicitly static
/// (`__new__`) or class methods (`__init_subclass__`), called explicitly.
pub fn unwrap_method_decorator(v: Value) -> Value {
    if let Some(s) = v.downcast::<StaticMethodObj>() {
        return s.0.clone();
    }
    if let Some(c) = v.downcast::<ClassMethodObj>() {
        return c.0.clone();
    }
    v
}

/// The class `staticmethod`.
pub static STATICMETHOD: ClassSpec = ClassSpec {
    name: "staticmethod",
    module: "builtins",
    bases: &[],
    members: &[Member::New(builtin_staticmethod::DEF)],
};

impl NativeObject for StaticMethodObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&STATICMETHOD)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<staticmethod({})>", vm.repr(&self.0)?))
    }

    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        wrapped_attr(&self.0, name, vm)
    }

    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        vm.call(&self.0, args, kwargs)
    }
}

/// `classmethod(f)`.
pub struct ClassMethodObj(pub Value);

/// Attributes of a `staticmethod`/`classmethod` wrapper: `__func__`, and
/// the wrapped function's `__name__`, `__doc__` … (as CPython 3.10+ copies them).
pub fn wrapped_attr(f: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
    match name {
        "__func__" | "__wrapped__" => Ok(Some(f.clone())),
        "__name__" | "__qualname__" | "__doc__" | "__module__" => vm.getattr(f, name).map(Some),
        // `@classmethod @abstractmethod`: abstract when the function is.
        "__isabstractmethod__" => Ok(Some(match vm.getattr(f, name) {
            Ok(v) => Value::Bool(vm.truthy(&v)?),
            Err(_) => Value::Bool(false),
        })),
        _ => Ok(None),
    }
}

/// The class `classmethod`.
pub static CLASSMETHOD: ClassSpec = ClassSpec {
    name: "classmethod",
    module: "builtins",
    bases: &[],
    members: &[Member::New(builtin_classmethod::DEF)],
};

impl NativeObject for ClassMethodObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&CLASSMETHOD)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<classmethod({})>", vm.repr(&self.0)?))
    }

    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        wrapped_attr(&self.0, name, vm)
    }
}

/// A named singleton (`NotImplemented`, `Ellipsis`) and its class.
pub struct Singleton(&'static str, &'static ClassSpec);

/// `type(NotImplemented)`.
pub static NOT_IMPLEMENTED_TYPE: ClassSpec = ClassSpec::plain("NotImplementedType", "builtins");

/// `type(Ellipsis)`.
pub static ELLIPSIS_TYPE: ClassSpec = ClassSpec::plain("ellipsis", "builtins");

impl NativeObject for Singleton {
    fn type_name(&self) -> &str {
        self.1.name
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.1)
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(self.0.to_string())
    }
}

thread_local! {
    static NOT_IMPLEMENTED: Value = Value::native(Singleton("NotImplemented", &NOT_IMPLEMENTED_TYPE));
    static ELLIPSIS: Value = Value::native(Singleton("Ellipsis", &ELLIPSIS_TYPE));
}

/// The `NotImplemented` singleton.
pub fn not_implemented() -> Value {
    NOT_IMPLEMENTED.with(|v| v.clone())
}

/// The `Ellipsis` (`...`) singleton.
pub fn ellipsis() -> Value {
    ELLIPSIS.with(|v| v.clone())
}

/// Access the parent class's methods.
#[native("super(type=None, object_or_type=None)")]
pub fn builtin_super(
    vm: &dyn Vm,
    type_: Option<&Value>,
    object_or_type: Option<&Value>,
) -> PyResult<Value> {
    let (Some(cls), Some(obj)) = (type_, object_or_type) else {
        return Err(PyErr::new(ExcType::RuntimeError, "super(): no arguments"));
    };
    let Value::Class(cls) = cls else {
        return Err(type_error(format!(
            "super() argument 1 must be a type, not {}",
            cls.type_name()
        )));
    };
    let ok = match obj {
        Value::Class(c) => c.is_subclass_of(cls),
        other => matches!(vm.type_of(other), Value::Class(t) if t.is_subclass_of(cls)),
    };
    if !ok {
        return Err(type_error(
            "super(type, obj): obj must be an instance or subtype of type",
        ));
    }
    Ok(Value::native(SuperObj {
        cls: cls.clone(),
        obj: obj.clone(),
    }))
}

/// A computed attribute.
#[native("property(fget=None, fset=None, fdel=None, doc=None)", c_ctor)]
fn builtin_property(
    vm: &dyn Vm,
    fget: Option<Value>,
    fset: Option<Value>,
    fdel: Option<Value>,
    doc: Value,
) -> PyResult<Value> {
    PropertyObj::make(vm, fget, fset, fdel, doc)
}

/// A method without a receiver.
#[native("staticmethod(function, /)", c_ctor)]
fn builtin_staticmethod(function: Value) -> Value {
    Value::native(StaticMethodObj(function))
}

/// A method that receives the class.
#[native("classmethod(function, /)", c_ctor)]
fn builtin_classmethod(function: Value) -> Value {
    Value::native(ClassMethodObj(function))
}

// `BaseException.__new__(cls, *args)`, as a user exception's own `__new__`
// reaches it through `super().__new__(cls, ...)`.
#[native("BaseException.__new__(cls, *args)")]
pub fn exception_new(cls: &Value, args: &[Value]) -> PyResult<Value> {
    let Value::Class(cls) = cls else {
        return Err(type_error(
            "BaseException.__new__(X): X is not a type object",
        ));
    };
    if cls.exception_type().is_none() {
        return Err(type_error(format!(
            "BaseException.__new__({}): {} is not a subtype of BaseException",
            cls.name, cls.name
        )));
    }
    let inst = crate::value::Instance::new(cls.clone());
    inst.set_attr("args", Value::tuple(args.to_vec()));
    Ok(Value::Instance(Rc::new(inst)))
}

#[native("BaseException.__init__(self, *args, **kwargs)")]
pub fn exception_init(vm: &dyn Vm, this: &Value, args: &[Value], kwargs: &Value) -> PyResult<()> {
    if let Value::Instance(i) = this {
        if matches!(kwargs, Value::Dict(d) if !d.borrow().is_empty()) {
            return Err(type_error(format!(
                "{}() takes no keyword arguments",
                i.class.name
            )));
        }
        if i.class.is_subclass_of(&ExcType::BaseExceptionGroup.class()) {
            check_exception_group(vm, &i.class, args)?;
        }
        if i.class.is_subclass_of(&ExcType::OSError.class()) && (2..=5).contains(&args.len()) {
            // OSError(errno, strerror[, filename[, winerror[, filename2]]]):
            // the fields by name; `args` keeps only the first two when a
            // filename is given (CPython's `oserror_init`).
            let fields = ["errno", "strerror", "filename", "winerror", "filename2"];
            for (name, v) in fields.iter().zip(args) {
                if *name != "winerror" {
                    i.set_attr(name, v.clone());
                }
            }
            let keep = args.len().min(2);
            i.set_attr("args", Value::tuple(args[..keep].to_vec()));
            return Ok(());
        }
        i.set_attr("args", Value::tuple(args.to_vec()));
    }
    Ok(())
}

/// `ExceptionGroup(message, exceptions)`: CPython's checks of the arguments.
pub fn check_exception_group(vm: &dyn Vm, cls: &Rc<Class>, a: &[Value]) -> PyResult<()> {
    let [msg, excs] = a else {
        return Err(type_error(format!(
            "BaseExceptionGroup.__new__() takes exactly 2 arguments ({} given)",
            a.len()
        )));
    };
    if !matches!(msg, Value::Str(_)) {
        return Err(type_error(format!(
            "BaseExceptionGroup.__new__() argument 1 must be str, not {}",
            msg.type_name()
        )));
    }
    let items = match excs {
        Value::List(_) | Value::Tuple(_) => vm.collect(excs)?,
        _ => {
            return Err(type_error(
                "second argument (exceptions) must be a sequence",
            ))
        }
    };
    if items.is_empty() {
        return Err(value_error(
            "second argument (exceptions) must be a non-empty sequence",
        ));
    }
    let plain = cls.is_subclass_of(&ExcType::Exception.class());
    for (n, e) in items.iter().enumerate() {
        let Some(inst) = (match e {
            Value::Instance(i) if i.class.exception_type().is_some() => Some(i),
            _ => None,
        }) else {
            return Err(value_error(format!(
                "Item {n} of second argument (exceptions) is not an exception"
            )));
        };
        if plain && !inst.class.is_subclass_of(&ExcType::Exception.class()) {
            return Err(type_error(
                "Cannot nest BaseExceptions in an ExceptionGroup",
            ));
        }
    }
    Ok(())
}

/// `object.__init__(self)`: does nothing; refuses arguments (a class
/// without its own `__init__` never reaches it: see `instantiate`).
// (No docstring: CPython's is the generic slot wrapper's.)
#[native("object.__init__(self, *args, **kwargs)")]
pub fn object_init(_this: &Value, args: &[Value], kwargs: &Value) -> PyResult<()> {
    let extra = !args.is_empty() || matches!(kwargs, Value::Dict(d) if !d.borrow().is_empty());
    if extra {
        return Err(type_error(
            "object.__init__() takes exactly one argument (the instance to initialize)",
        ));
    }
    Ok(())
}

/// Whether `v` is `object.__init__` (instantiation treats it as no `__init__`).
pub fn is_object_init(v: &Value) -> bool {
    matches!(v, Value::NativeFunction(nf) if std::ptr::fn_addr_eq(nf.func, object_init::DEF.func))
}

/// `BaseException.add_note(note)`: appends to `__notes__` (printed under
/// the message when the exception is not caught).
#[native("BaseException.add_note(self, note, /)")]
pub fn exception_add_note(this: &Value, note: &Value) -> PyResult<()> {
    if !matches!(note, Value::Str(_)) {
        return Err(type_error(format!(
            "note must be a str, not '{}'",
            note.type_name()
        )));
    }
    if let Value::Instance(i) = this {
        match i.get_attr("__notes__") {
            Some(Value::List(l)) => l.borrow_mut().push(note.clone()),
            Some(_) => return Err(type_error("Cannot add note: __notes__ is not a list")),
            None => i.set_attr("__notes__", Value::list(vec![note.clone()])),
        }
    }
    Ok(())
}

// `BaseException.with_traceback(tb)`: sets `__traceback__`, returns the exception.
#[native("BaseException.with_traceback(self, tb, /)")]
pub fn exception_with_traceback(this: &Value, tb: &Value) -> Value {
    if let Value::Instance(i) = this {
        i.set_attr("__traceback__", tb.clone());
    }
    this.clone()
}

// `globals`/`locals` reached other than by a direct call (`f = locals; f()`):
// the evaluator answers direct calls from the frame (`frame_namespace`).
fn frame_namespace_only() -> PyErr {
    PyErr::new(
        ExcType::NotImplementedError,
        "globals() and locals() are supported only when called directly by name",
    )
}

/// The module's names and values, as a dict.
#[native("globals()")]
pub fn builtin_globals() -> PyResult<Value> {
    Err(frame_namespace_only())
}

/// The running function's local names and values, as a dict.
#[native("locals()")]
pub fn builtin_locals() -> PyResult<Value> {
    Err(frame_namespace_only())
}

/// Whether `c` is `type` or derives from it.
pub fn is_metaclass(c: &Rc<Class>) -> bool {
    c.is_subclass_of(&super::types::builtin_class(crate::value::ValueType::Type))
}
