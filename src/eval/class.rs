//! Classes and the builtins tied to the object model: `class` statements,
//! `super`, `property`, `staticmethod`, `classmethod`, `NotImplemented`,
//! `Ellipsis`, and `BaseException.__init__`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::frame::{ClassNs, Frame};
use super::meta::{build_class, namespace_dict, Maker};
use super::Interp;
use crate::object::descr::*;
use crate::object::types::{type_error, value_error};
use crate::syntax::ast::{ClassDef, Slot};
use crate::value::{Class, ExcType, PyErr, PyResult, Value, Vm};

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
                            return Err(type_error("keywords must be strings"));
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
        // `list[int]`, `Generic[T]`, `NamedTuple`: the classes they stand
        // for decide the metaclass; the written bases become `__orig_bases__`.
        let mut orig_bases = None;
        if let Some(resolved) = super::meta::resolve_bases(self, &bases)? {
            orig_bases = Some(Value::tuple(std::mem::replace(&mut bases, resolved)));
        }
        let maker = self.class_maker(explicit, &bases)?;
        let mut ns = crate::value::Namespace::default();
        let mapping = self.prepare_namespace(&maker, &def.name, &bases, &kwargs, &mut ns)?;
        // The docstring is the body's first binding, as CPython compiles it;
        // without one, `type.__new__` adds `__doc__ = None` last.
        let doc = super::attr::docstring(&def.body);
        let mut preset = vec![
            ("__module__", Value::str(f.source().module_name())),
            ("__qualname__", Value::str(&*def.qualname)),
        ];
        if !doc.is_none() {
            preset.push(("__doc__", doc));
        }
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
        if let Some(orig) = orig_bases {
            match &mapping {
                Some(m) => self.set_item(m, &Value::str("__orig_bases__"), orig)?,
                None => {
                    ns.borrow_mut().insert(Rc::from("__orig_bases__"), orig);
                }
            }
        }
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
        matches!(v, Value::NativeFunction(nf) if std::ptr::fn_addr_eq(nf.func, builtin_super::DEF.func))
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
    /// namespace, the module's globals), as a dict or, for `dir()`, their
    /// sorted list. The module's namespace is the live dict CPython gives
    /// (assigning into it binds names); a function's or class body's is a
    /// snapshot, as CPython 3.11's `locals()` there is.
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
            let ns = self.module_namespace();
            if which != "dir" {
                return Ok(Value::Dict(ns));
            }
            d = ns.borrow().try_clone()?;
        } else if let Some(ns) = f.class_ns.last() {
            for (k, v) in ns.ns.borrow().iter() {
                d.insert_str(k, v.clone())?;
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
                    d.insert_str(name, v)?;
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
        use crate::value::signature::ParamKind;
        let no_arguments = || PyErr::new(ExcType::RuntimeError, "super(): no arguments");
        // CPython's order of checks: a first positional parameter, its
        // value, then the `__class__` cell.
        let Some(func) = &f.function else {
            return Err(no_arguments());
        };
        let positional = func.sig.params.first().is_some_and(|p| {
            matches!(
                p.kind,
                ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
            )
        });
        if !positional {
            return Err(no_arguments());
        }
        let scope = func.def.scope.borrow();
        let first = match scope.param_slots.first() {
            Some(Slot::Local(i)) => f.locals[*i as usize].clone(),
            Some(Slot::Cell(i)) => f.cells[*i as usize].borrow().clone(),
            _ => None,
        };
        let Some(obj) = first else {
            return Err(PyErr::new(ExcType::RuntimeError, "super(): arg[0] deleted"));
        };
        let cls = func.class_cell.borrow().as_ref().and_then(|w| w.upgrade());
        let Some(cls) = cls else {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                "super(): __class__ cell not found",
            ));
        };
        Ok(Value::native(SuperObj { cls, obj }))
    }
}

/// What CPython's `type.__new__` does once a class object exists: a
/// class defining `__eq__` without `__hash__` gets `__hash__ = None`;
/// methods learn their class (for zero-argument `super()`); descriptors
/// hear their names (`__set_name__`); the parent's `__init_subclass__`
/// (an implicit classmethod) hears of the new class.
pub(crate) fn finish_class(
    vm: &dyn Vm,
    cls: &Rc<Class>,
    kwargs: Vec<(Rc<str>, Value)>,
) -> PyResult<()> {
    let entries: Vec<(Rc<str>, Value)> = cls
        .dict
        .borrow()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some((_, slots)) = entries.iter().find(|(k, _)| &**k == "__slots__") {
        let names = match slots {
            Value::Str(_) => vec![slots.clone()],
            other => vm.collect(other)?,
        };
        for n in names {
            let Value::Str(name) = &n else {
                return Err(type_error(format!(
                    "__slots__ items must be strings, not '{}'",
                    n.type_name()
                )));
            };
            if entries.iter().any(|(k, _)| &**k == name.as_str()) {
                return Err(value_error(format!(
                    "'{}' in __slots__ conflicts with class variable",
                    name
                )));
            }
        }
    }
    if entries.iter().any(|(k, _)| &**k == "__eq__")
        && !entries.iter().any(|(k, _)| &**k == "__hash__")
    {
        cls.set_attr("__hash__", Value::None);
    }
    for (_, v) in &entries {
        set_class_cell(v, cls);
    }
    for (k, v) in &entries {
        if let Some(p) = v.downcast::<PropertyObj>() {
            if p.name.borrow().is_none() {
                *p.name.borrow_mut() = Some(k.clone());
            }
        }
        if let Value::Instance(d) = v {
            if let Some(hook) = d.class.lookup("__set_name__") {
                let r = vm.call(
                    &hook,
                    vec![v.clone(), Value::Class(cls.clone()), Value::str(&**k)],
                    Vec::new(),
                );
                if let Err(e) = r {
                    // CPython 3.11 wraps it, the original as the cause.
                    let err = PyErr::new(
                        ExcType::RuntimeError,
                        format!(
                            "Error calling __set_name__ on '{}' instance '{}' in '{}'",
                            d.class.name, k, cls.name
                        ),
                    );
                    if let Value::Instance(i) = err.value() {
                        i.set_attr("__cause__", e.value().clone());
                        i.set_attr("__suppress_context__", Value::Bool(true));
                    }
                    return Err(err);
                }
            }
        }
    }
    let hook = cls
        .mro_tail
        .iter()
        .find_map(|c| c.dict.borrow().get("__init_subclass__").cloned());
    if let Some(hook) = hook {
        let hook = unwrap_method_decorator(hook);
        if matches!(hook, Value::Function(_) | Value::NativeFunction(_)) {
            vm.call(&hook, vec![Value::Class(cls.clone())], kwargs)?;
        }
    }
    Ok(())
}

pub(crate) fn set_class_cell(v: &Value, cls: &Rc<Class>) {
    if let Value::Function(fun) = v {
        *fun.class_cell.borrow_mut() = Some(Rc::downgrade(cls));
    } else if let Some(p) = v.downcast::<PropertyObj>() {
        for g in [&p.fget, &p.fset, &p.fdel].into_iter().flatten() {
            set_class_cell(g, cls);
        }
    } else if let Some(s) = v.downcast::<StaticMethodObj>() {
        set_class_cell(&s.0, cls);
    } else if let Some(c) = v.downcast::<ClassMethodObj>() {
        set_class_cell(&c.0, cls);
    }
}

/// Adds `super`, `property`, `staticmethod`, `classmethod`, `NotImplemented`,
/// `Ellipsis` to the builtins, and `BaseException.__init__`.
pub fn add_object_model_builtins(b: &mut HashMap<&'static str, Value>) {
    b.insert("super", builtin_super::DEF.value());
    b.insert("property", Value::Class(PROPERTY.class()));
    b.insert("staticmethod", Value::Class(STATICMETHOD.class()));
    b.insert("classmethod", Value::Class(CLASSMETHOD.class()));
    b.insert("globals", builtin_globals::DEF.value());
    b.insert("locals", builtin_locals::DEF.value());
    // Old names of OSError.
    b.insert("IOError", Value::Class(ExcType::OSError.class()));
    b.insert("EnvironmentError", Value::Class(ExcType::OSError.class()));
    b.insert("NotImplemented", not_implemented());
    b.insert("Ellipsis", ellipsis());
    for ty in ExcType::ALL {
        if ty.is_builtin_name() {
            b.entry(ty.name())
                .or_insert_with(|| Value::Class(ty.class()));
        }
    }
    let object = crate::value::object::object_class();
    add_missing(&object, object_init::DEF);
    super::meta::register_type_methods();
    super::exc_group::register_methods();
    let base = ExcType::BaseException.class();
    for def in [
        exception_new::DEF,
        exception_add_note::DEF,
        exception_with_traceback::DEF,
        exception_init::DEF,
    ] {
        add_missing(&base, def);
    }
}

/// Puts a native into a class's namespace unless the name is taken (the
/// builtin classes are per thread: the first interpreter fills them).
pub(super) fn add_missing(class: &Class, def: crate::object::NativeDef) {
    if !class.dict.borrow().contains_key(def.name()) {
        class.set_attr(def.name(), def.value());
    }
}
