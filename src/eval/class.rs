//! Classes and the builtins tied to the object model: `class` statements,
//! `super`, `property`, `staticmethod`, `classmethod`, `NotImplemented`,
//! `Ellipsis`, and `BaseException.__init__`.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::frame::{ClassNs, Frame};
use super::meta::{build_class, namespace_dict, Maker};
use super::Interp;
use crate::syntax::ast::{ClassDef, Slot};
use crate::value::{
    Args, Class, ExcType, NativeFunction, NativeObject, PyErr, PyResult, Value, Vm,
};

impl Interp {
    /// Executes a `class` statement's body and builds the class: through
    /// `type` directly, or through its metaclass (see `meta.rs`).
    pub fn make_class(&self, f: &mut Frame, def: &ClassDef) -> PyResult<Value> {
        let mut bases = Vec::new();
        for b in &def.bases {
            bases.push(self.eval(f, b)?);
        }
        let mut kwargs: Vec<(Rc<str>, Value)> = Vec::new();
        for k in &def.keywords {
            let v = self.eval(f, &k.value)?;
            match &k.arg {
                Some(a) => kwargs.push((a.name.clone(), v)),
                None => {
                    for (key, v) in self.mapping_items(&v)? {
                        let Value::Str(s) = &key else {
                            return Err(PyErr::new(ExcType::TypeError, "keywords must be strings"));
                        };
                        kwargs.push((Rc::from(s.as_str()), v));
                    }
                }
            }
        }
        let explicit = kwargs
            .iter()
            .position(|(k, _)| &**k == "metaclass")
            .map(|i| kwargs.remove(i).1);
        let maker = self.class_maker(explicit, &bases)?;
        let mut ns = crate::value::Namespace::default();
        let mapping = self.prepare_namespace(&maker, &def.name, &bases, &kwargs, &mut ns)?;
        let preset = [
            ("__module__", Value::str("__main__")),
            ("__qualname__", Value::str(&*def.qualname)),
            ("__doc__", super::attr::docstring(&def.body)),
        ];
        for (k, v) in preset {
            match &mapping {
                Some(m) => self.set_item(m, &Value::str(k), v)?,
                None => {
                    ns.insert(Rc::from(k), v);
                }
            }
        }
        let ns = Rc::new(RefCell::new(ns));
        f.class_ns.push(ClassNs {
            ns: ns.clone(),
            mapping: mapping.clone(),
        });
        let r = self.exec_block(f, &def.body);
        f.class_ns.pop();
        r?;
        let dict = Rc::try_unwrap(ns)
            .map(|c| c.into_inner())
            .unwrap_or_else(|rc| rc.borrow().clone());
        let namespace = match mapping {
            Some(m) => m,
            None => namespace_dict(&dict),
        };
        let callee = match maker {
            Maker::Type => {
                let cls = build_class(self, None, def.name.clone(), bases, dict, kwargs)?;
                return Ok(Value::Class(cls));
            }
            Maker::Meta(m) => Value::Class(m),
            Maker::Callable(c) => c,
        };
        let args = vec![Value::str(&*def.name), Value::tuple(bases), namespace];
        self.call_value(&callee, args, kwargs)
    }

    pub(crate) fn is_builtin_super(&self, v: &Value) -> bool {
        matches!(v, Value::NativeFunction(nf) if std::ptr::fn_addr_eq(nf.func, builtin_super as crate::value::NativeFn))
    }

    /// Whether `v` is the builtin bound to `name` (not a script's own).
    pub(crate) fn is_builtin_named(&self, v: &Value, name: &str) -> bool {
        match (v, self.builtins.get(name)) {
            (Value::NativeFunction(a), Some(Value::NativeFunction(b))) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// `locals()`, `globals()`, `vars()` and `dir()` without an argument: the
    /// names bound in the running frame (a function's locals, a class body's
    /// namespace, the module's globals), as a dict (a copy: assigning into it
    /// changes nothing) or, for `dir()`, their sorted list.
    pub(crate) fn frame_namespace(&self, f: &Frame, which: &str) -> PyResult<Value> {
        if which != "globals" && which != "dir" {
            // A class body binding through a `__prepare__` mapping: that
            // mapping itself, as CPython's `locals()` there is.
            if let Some(ClassNs {
                mapping: Some(m), ..
            }) = f.class_ns.last()
            {
                return Ok(m.clone());
            }
        }
        let mut d = crate::value::Dict::new();
        if which == "globals" || (f.function.is_none() && f.class_ns.is_empty()) {
            for name in self.global_names() {
                if let Some(v) = self.get_global(&name) {
                    d.insert_str(&name, v);
                }
            }
        } else if let Some(ns) = f.class_ns.last() {
            for (k, v) in ns.ns.borrow().iter() {
                d.insert_str(k, v.clone());
            }
        } else if let Some(func) = &f.function {
            let scope = func.def.scope.borrow();
            // CPython's order: parameters, other plain locals, the frame's
            // own cells, then free variables.
            let nparams = scope.param_slots.len().min(scope.local_slots.len());
            let (params, rest) = scope.local_slots.split_at(nparams);
            let rank = |slot: &crate::syntax::ast::Slot| match slot {
                crate::syntax::ast::Slot::Local(_) => 0,
                crate::syntax::ast::Slot::Cell(i) if *i < scope.num_cells => 1,
                _ => 2,
            };
            let mut ordered: Vec<&(Rc<str>, crate::syntax::ast::Slot)> = params.iter().collect();
            for r in 0..3 {
                ordered.extend(rest.iter().filter(|(_, s)| rank(s) == r));
            }
            for (name, slot) in ordered {
                let v = match slot {
                    crate::syntax::ast::Slot::Local(i) => {
                        f.locals.get(*i as usize).cloned().flatten()
                    }
                    crate::syntax::ast::Slot::Cell(i) => {
                        f.cells.get(*i as usize).and_then(|c| c.borrow().clone())
                    }
                    _ => None,
                };
                if let Some(v) = v {
                    d.insert_str(name, v);
                }
            }
        }
        if which == "dir" {
            let mut names: Vec<String> = d
                .keys()
                .iter()
                .map(|k| self.str_value(k))
                .collect::<PyResult<_>>()?;
            names.sort();
            return Ok(Value::list(names.iter().map(Value::str).collect()));
        }
        Ok(Value::dict(d))
    }

    /// `super()` with no arguments: the defining class and the first argument.
    pub(crate) fn zero_arg_super(&self, f: &Frame) -> PyResult<Value> {
        let Some(func) = &f.function else {
            return Err(PyErr::new(ExcType::RuntimeError, "super(): no arguments"));
        };
        let cls = func.class_cell.borrow().as_ref().and_then(|w| w.upgrade());
        let Some(cls) = cls else {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                "super(): __class__ cell not found",
            ));
        };
        let scope = func.def.scope.borrow();
        let first = match scope.param_slots.first() {
            Some(Slot::Local(i)) => f.locals[*i as usize].clone(),
            Some(Slot::Cell(i)) => f.cells[*i as usize].borrow().clone(),
            _ => None,
        };
        let Some(obj) = first else {
            return Err(PyErr::new(ExcType::RuntimeError, "super(): no arguments"));
        };
        Ok(Value::native(SuperObj { cls, obj }))
    }
}

pub(crate) fn set_class_cell(v: &Value, cls: &Rc<Class>) {
    match v {
        Value::Function(fun) => *fun.class_cell.borrow_mut() = Some(Rc::downgrade(cls)),
        Value::Native(n) => {
            if let Some(p) = n.as_any().downcast_ref::<PropertyObj>() {
                for g in [&p.fget, &p.fset].into_iter().flatten() {
                    set_class_cell(g, cls);
                }
            } else if let Some(s) = n.as_any().downcast_ref::<StaticMethodObj>() {
                set_class_cell(&s.0, cls);
            } else if let Some(c) = n.as_any().downcast_ref::<ClassMethodObj>() {
                set_class_cell(&c.0, cls);
            }
        }
        _ => {}
    }
}

/// The object `super()` returns.
pub struct SuperObj {
    /// The class whose parents are searched.
    pub cls: Rc<Class>,
    /// The receiver.
    pub obj: Value,
}

impl NativeObject for SuperObj {
    fn type_name(&self) -> &str {
        "super"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<super: <class '{}'>, <{} object>>",
            self.cls.name,
            vm.type_of(&self.obj).type_name()
        ))
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let Some(base) = &self.cls.base else {
            return Ok(None);
        };
        let Some(v) = base.lookup(name) else {
            return Ok(None);
        };
        let owner = match &self.obj {
            Value::Class(c) => c.clone(),
            _ => self.cls.clone(),
        };
        // A class receiver is an instance here when `super()` runs in a
        // metaclass's method (`super().__call__(*args)`); `__init_subclass__`
        // is an implicit classmethod.
        if let Value::Class(c) = &self.obj {
            let as_instance = c.meta.as_ref().is_some_and(|m| m.is_subclass_of(&self.cls))
                || super::meta::is_metaclass(&self.cls) && !super::meta::is_metaclass(c);
            if as_instance || name == "__init_subclass__" {
                return Ok(Some(match v {
                    Value::Function(_) => Value::BoundMethod(Rc::new(crate::value::BoundMethod {
                        receiver: self.obj.clone(),
                        func: v,
                    })),
                    Value::NativeFunction(nf) if nf.bound.is_none() => nf.bind(self.obj.clone()),
                    other => bind_class_attr(other, &self.obj, &owner),
                }));
            }
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
                nf.bind(receiver.clone())
            }
        }
        Value::Native(n) => {
            if let Some(s) = n.as_any().downcast_ref::<StaticMethodObj>() {
                s.0.clone()
            } else if let Some(c) = n.as_any().downcast_ref::<ClassMethodObj>() {
                Value::BoundMethod(Rc::new(crate::value::BoundMethod {
                    receiver: Value::Class(owner.clone()),
                    func: c.0.clone(),
                }))
            } else {
                v
            }
        }
        _ => v,
    }
}

/// `property(fget, fset)`.
pub struct PropertyObj {
    /// Getter.
    pub fget: Option<Value>,
    /// Setter.
    pub fset: Option<Value>,
}

fn property_setter(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let Some(p) = args.get(0).downcast::<PropertyObj>() else {
        return Err(PyErr::new(
            ExcType::TypeError,
            "descriptor 'setter' requires a 'property' object",
        ));
    };
    Ok(Value::native(PropertyObj {
        fget: p.fget.clone(),
        fset: Some(args.get(1).clone()),
    }))
}

fn property_getter(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let Some(p) = args.get(0).downcast::<PropertyObj>() else {
        return Err(PyErr::new(
            ExcType::TypeError,
            "descriptor 'getter' requires a 'property' object",
        ));
    };
    Ok(Value::native(PropertyObj {
        fget: Some(args.get(1).clone()),
        fset: p.fset.clone(),
    }))
}

impl NativeObject for PropertyObj {
    fn type_name(&self) -> &str {
        "property"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "setter" => Some(
                NativeFunction::new("property.setter(self, fset)", property_setter, "")
                    .bind(this.clone()),
            ),
            "getter" => Some(
                NativeFunction::new("property.getter(self, fget)", property_getter, "")
                    .bind(this.clone()),
            ),
            "fget" => Some(self.fget.clone().unwrap_or(Value::None)),
            "fset" => Some(self.fset.clone().unwrap_or(Value::None)),
            _ => None,
        })
    }
}

/// `staticmethod(f)`.
pub struct StaticMethodObj(pub Value);

/// The function inside a `staticmethod`/`classmethod` wrapper (the value
/// itself otherwise): for the methods Python treats as implicitly static
/// (`__new__`) or class methods (`__init_subclass__`), called explicitly.
pub(crate) fn unwrap_method_decorator(v: Value) -> Value {
    if let Value::Native(n) = &v {
        if let Some(s) = n.as_any().downcast_ref::<StaticMethodObj>() {
            return s.0.clone();
        }
        if let Some(c) = n.as_any().downcast_ref::<ClassMethodObj>() {
            return c.0.clone();
        }
    }
    v
}

impl NativeObject for StaticMethodObj {
    fn type_name(&self) -> &str {
        "staticmethod"
    }

    fn as_any(&self) -> &dyn Any {
        self
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

impl NativeObject for ClassMethodObj {
    fn type_name(&self) -> &str {
        "classmethod"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A named singleton (`NotImplemented`, `Ellipsis`).
pub struct Singleton(&'static str, &'static str);

impl NativeObject for Singleton {
    fn type_name(&self) -> &str {
        self.1
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(self.0.to_string())
    }
}

thread_local! {
    static NOT_IMPLEMENTED: Value = Value::native(Singleton("NotImplemented", "NotImplementedType"));
    static ELLIPSIS: Value = Value::native(Singleton("Ellipsis", "ellipsis"));
}

/// The `NotImplemented` singleton.
pub fn not_implemented() -> Value {
    NOT_IMPLEMENTED.with(|v| v.clone())
}

/// The `Ellipsis` (`...`) singleton.
pub fn ellipsis() -> Value {
    ELLIPSIS.with(|v| v.clone())
}

fn builtin_super(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (Some(cls), Some(obj)) = (args.opt(0), args.opt(1)) else {
        return Err(PyErr::new(ExcType::RuntimeError, "super(): no arguments"));
    };
    let Value::Class(cls) = cls else {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!("super() argument 1 must be a type, not {}", cls.type_name()),
        ));
    };
    let _ = vm;
    Ok(Value::native(SuperObj {
        cls: cls.clone(),
        obj: obj.clone(),
    }))
}

fn builtin_property(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(Value::native(PropertyObj {
        fget: args.opt(0).cloned(),
        fset: args.opt(1).cloned(),
    }))
}

fn builtin_staticmethod(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(Value::native(StaticMethodObj(args.get(0).clone())))
}

fn builtin_classmethod(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(Value::native(ClassMethodObj(args.get(0).clone())))
}

/// `BaseException.__new__(cls, *args)`, as a user exception's own `__new__`
/// reaches it through `super().__new__(cls, ...)`.
fn exception_new(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let Value::Class(cls) = args.get(0) else {
        return Err(PyErr::new(
            ExcType::TypeError,
            "BaseException.__new__(X): X is not a type object",
        ));
    };
    if cls.exception_type().is_none() {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "BaseException.__new__({}): {} is not a subtype of BaseException",
                cls.name, cls.name
            ),
        ));
    }
    let inst = crate::value::Instance::new(cls.clone());
    inst.set_attr("args", Value::tuple(args.varargs(1).to_vec()));
    Ok(Value::Instance(Rc::new(inst)))
}

fn exception_init(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    if let Value::Instance(i) = args.get(0) {
        i.set_attr("args", Value::tuple(args.varargs(1).to_vec()));
    }
    Ok(Value::None)
}

/// `globals`/`locals` reached other than by a direct call (`f = locals; f()`):
/// the evaluator answers direct calls from the frame (`frame_namespace`).
fn builtin_globals_placeholder(_vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    Err(PyErr::new(
        ExcType::NotImplementedError,
        "globals() and locals() are supported only when called directly by name",
    ))
}

/// Adds `super`, `property`, `staticmethod`, `classmethod`, `NotImplemented`,
/// `Ellipsis` to the builtins, and `BaseException.__init__`.
pub fn add_object_model_builtins(b: &mut HashMap<&'static str, Value>) {
    let f = |sig: &str, func, doc| Value::NativeFunction(NativeFunction::new(sig, func, doc));
    b.insert(
        "super",
        f(
            "super(type=None, object_or_type=None)",
            builtin_super as _,
            "Access the parent class's methods.",
        ),
    );
    b.insert(
        "property",
        f(
            "property(fget=None, fset=None, fdel=None, doc=None)",
            builtin_property as _,
            "A computed attribute.",
        ),
    );
    b.insert(
        "staticmethod",
        f(
            "staticmethod(function)",
            builtin_staticmethod as _,
            "A method without a receiver.",
        ),
    );
    b.insert(
        "classmethod",
        f(
            "classmethod(function)",
            builtin_classmethod as _,
            "A method that receives the class.",
        ),
    );
    b.insert(
        "globals",
        f(
            "globals()",
            builtin_globals_placeholder as _,
            "The module's names and values, as a dict.",
        ),
    );
    b.insert(
        "locals",
        f(
            "locals()",
            builtin_globals_placeholder as _,
            "The running function's local names and values, as a dict.",
        ),
    );
    b.insert("NotImplemented", not_implemented());
    b.insert("Ellipsis", ellipsis());
    for ty in ExcType::ALL {
        if (*ty as usize) < ExcType::OpError as usize {
            b.entry(ty.name())
                .or_insert_with(|| Value::Class(ty.class()));
        }
    }
    super::meta::register_type_methods();
    let base = ExcType::BaseException.class();
    if base.lookup("__new__").is_none() {
        base.set_attr(
            "__new__",
            Value::NativeFunction(NativeFunction::new(
                "BaseException.__new__(cls, *args)",
                exception_new,
                "",
            )),
        );
    }
    if base.lookup("__init__").is_none() {
        base.set_attr(
            "__init__",
            Value::NativeFunction(NativeFunction::new(
                "BaseException.__init__(self, *args)",
                exception_init,
                "",
            )),
        );
    }
}

#[allow(dead_code)]
fn _interp(i: &Interp) -> &dyn Vm {
    i
}
