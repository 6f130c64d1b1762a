//! Named tuple types (`collections.namedtuple`, `typing.NamedTuple`, and
//! the struct sequences `sys.version_info`, `sys.float_info`, TensorFlow's
//! `TopKV2`). A named tuple type is a real class (a subclass of `tuple`, so
//! `type`, `isinstance` and `issubclass` work as in CPython) whose `__new__`
//! makes instances; its instances index, slice, unpack, iterate, compare,
//! add and repeat like the tuple of their values, print as
//! `Point(x=1, y=2)`, and have `_fields`, `_asdict`, `_replace`, `_make` and
//! `__match_args__`. `tf.distribute`'s structure walks (`distribute/nest.rs`)
//! treat them as TensorFlow's nest does: a structure rebuilt with the same
//! type. The `_collections` module (`modules/collections.rs`) registers
//! [`namedtuple`].

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use super::{builtin_class, type_error, value_error};
use crate::object::descr::ClassMethodObj;
use crate::object::{native, Kwargs};
use crate::syntax::ast::BinOp;
use crate::syntax::ast::CmpOp;
use crate::value::{
    Class, ClassKind, Dict, ExcType, NativeFunction, NativeObject, Param, ParamKind, PyErr,
    PyResult, Signature, Value, ValueType, Vm,
};

/// What a type made by `namedtuple(typename, field_names)` knows: the native
/// receiver of its class's `__new__` and `_make`.
pub struct NamedTupleType {
    /// The type's name.
    name: Rc<str>,
    /// The field names, in order.
    fields: Rc<[Rc<str>]>,
    /// The constructor's signature (`_cls` first, as CPython counts it).
    sig: Signature,
    /// The class object (which holds this type in its namespace).
    class: RefCell<Weak<Class>>,
    /// `_asdict`, `_replace` and `_make`, made once per type and bound on
    /// access.
    asdict: Rc<NativeFunction>,
    replace: Rc<NativeFunction>,
    make: Rc<NativeFunction>,
}

/// An instance of a named tuple type.
pub struct NamedTuple {
    /// Its type (a [`NamedTupleType`]).
    ty: Value,
    /// Its class.
    class: Rc<Class>,
    /// The values, one per field.
    values: Rc<[Value]>,
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// A new tuple type whose fields have names.
#[native("namedtuple(typename, field_names, *, rename=False, defaults=None, module=None)")]
pub fn namedtuple(
    vm: &dyn Vm,
    typename: &Value,
    field_names: &Value,
    rename: &Value,
    defaults: &Value,
    module: &Value,
) -> PyResult<Value> {
    let name: Rc<str> = match typename.as_builtin() {
        Value::Str(s) => Rc::from(s.as_str()),
        _ => {
            return Err(type_error(format!(
                "typename must be a string, not {}",
                typename.type_name()
            )))
        }
    };
    let names: Vec<Rc<str>> = match field_names.as_builtin() {
        Value::Str(s) => s
            .replace(',', " ")
            .split_whitespace()
            .map(Rc::from)
            .collect(),
        other => vm
            .collect(other)?
            .iter()
            .map(|v| match v {
                Value::Str(s) => Ok(Rc::from(s.as_str())),
                other => vm.str(other).map(|s| Rc::from(s.as_str())),
            })
            .collect::<PyResult<_>>()?,
    };
    // `rename=True`: an invalid, keyword, underscored or repeated field
    // name becomes `_<index>` (CPython's rule)
    let rename = vm.truthy(rename)?;
    let names = if rename {
        let mut seen: Vec<Rc<str>> = Vec::new();
        let mut out = Vec::with_capacity(names.len());
        for (i, n) in names.into_iter().enumerate() {
            let bad = !is_identifier(&n)
                || crate::syntax::KEYWORDS.contains(&&*n)
                || n.starts_with('_')
                || seen.contains(&n);
            out.push(if bad {
                Rc::from(format!("_{i}").as_str())
            } else {
                n.clone()
            });
            seen.push(n);
        }
        out
    } else {
        names
    };
    for n in std::iter::once(&name).chain(&names) {
        if !is_identifier(n) {
            return Err(value_error(format!(
                "Type names and field names must be valid identifiers: {}",
                vm.repr(&Value::str(&**n))?
            )));
        }
        if crate::syntax::KEYWORDS.contains(&&**n) {
            return Err(value_error(format!(
                "Type names and field names cannot be a keyword: {}",
                vm.repr(&Value::str(&**n))?
            )));
        }
    }
    let mut seen: Vec<&Rc<str>> = Vec::new();
    for n in &names {
        if n.starts_with('_') && !rename {
            return Err(value_error(format!(
                "Field names cannot start with an underscore: {}",
                vm.repr(&Value::str(&**n))?
            )));
        }
        if seen.contains(&n) {
            return Err(value_error(format!(
                "Encountered duplicate field name: {}",
                vm.repr(&Value::str(&**n))?
            )));
        }
        seen.push(n);
    }
    let defaults = match defaults {
        Value::None => Vec::new(),
        other => vm.collect(other)?,
    };
    if defaults.len() > names.len() {
        return Err(type_error("Got more default values than field names"));
    }
    let module: Rc<str> = match module {
        Value::None => Rc::from("__main__"),
        other => Rc::from(vm.str(other)?.as_str()),
    };
    let (class, _) = namedtuple_class(name, names, defaults, module)?;
    // A Python class in CPython: methods and attributes can be added to it.
    if let Value::Class(c) = &class {
        c.hooks.set(c.hooks.get() | Class::HOOK_OPEN);
    }
    Ok(class)
}

/// A named tuple class for natives that return one (TensorFlow's
/// `TopKV2(values, indices)`), named `name` in module `module`.
pub fn struct_class(name: &str, fields: &[&str], module: &str) -> PyResult<Value> {
    let names = fields.iter().map(|f| Rc::from(*f)).collect();
    Ok(namedtuple_class(Rc::from(name), names, Vec::new(), Rc::from(module))?.0)
}

/// A named tuple class with defaults for its last fields (TensorFlow's
/// option records, `tf.distribute.RunOptions(...)`), named `name` in
/// module `module`.
pub fn struct_class_with_defaults(
    name: &str,
    fields: &[&str],
    defaults: Vec<Value>,
    module: &str,
) -> PyResult<Value> {
    let names: Vec<Rc<str>> = fields.iter().map(|f| Rc::from(*f)).collect();
    if defaults.len() > names.len() {
        return Err(type_error("Got more default values than field names"));
    }
    Ok(namedtuple_class(Rc::from(name), names, defaults, Rc::from(module))?.0)
}

/// A named tuple class (and its type) from checked names and defaults.
fn namedtuple_class(
    name: Rc<str>,
    names: Vec<Rc<str>>,
    defaults: Vec<Value>,
    module: Rc<str>,
) -> PyResult<(Value, Value)> {
    let first_default = names.len() - defaults.len();
    let mut params = vec![Param {
        name: Rc::from("_cls"),
        kind: ParamKind::PositionalOrKeyword,
        default: None,
    }];
    for (i, n) in names.iter().enumerate() {
        params.push(Param {
            name: n.clone(),
            kind: ParamKind::PositionalOrKeyword,
            default: i.checked_sub(first_default).map(|d| defaults[d].clone()),
        });
    }
    let sig = Signature {
        name: Rc::from(format!("{name}.__new__").as_str()),
        params,
        builtin: crate::value::signature::BuiltinStyle::Python,
    };
    let doc = format!("{name}({})", names.join(", "));
    let make = make_from::DEF.function();
    let ty = NamedTupleType {
        name: name.clone(),
        fields: names.into(),
        sig,
        class: RefCell::new(Weak::new()),
        asdict: asdict::DEF.function(),
        replace: replace::DEF.function(),
        make: make.clone(),
    };
    let defaults = ty.field_defaults()?;
    let fields = fields_tuple(&ty.fields);
    let ty = Value::native(ty);
    // A struct sequence's type prints with its module (`sys.float_info(...)`)
    // while its class is named without it.
    let class = Class::new_builtin(
        name.rsplit('.').next().unwrap_or(&name),
        &module,
        Some(builtin_class(ValueType::Tuple)),
        ClassKind::Native,
    );
    {
        let mut ns = class.dict_mut();
        ns.insert("__new__".into(), tuple_new::DEF.function().bind(ty.clone()));
        // A class method: a script's subclass makes its own instances.
        ns.insert(
            "_make".into(),
            Value::native(ClassMethodObj(Value::NativeFunction(make))),
        );
        ns.insert("_fields".into(), fields.clone());
        // Class patterns (`case Point(x, y)`) match the fields positionally.
        ns.insert("__match_args__".into(), fields);
        ns.insert("_field_defaults".into(), defaults);
        ns.insert("__doc__".into(), Value::str(&doc));
    }
    if let Some(t) = ty.downcast::<NamedTupleType>() {
        *t.class.borrow_mut() = Rc::downgrade(&class);
    }
    Ok((Value::Class(class), ty))
}

/// A struct sequence (`sys.version_info`, `sys.float_info`): a named tuple
/// whose type is named with its module, holding `values`.
pub fn struct_sequence(name: &str, module: &str, fields: &[&str], values: Vec<Value>) -> Value {
    let names = fields.iter().map(|f| Rc::from(*f)).collect();
    let made = namedtuple_class(Rc::from(name), names, Vec::new(), Rc::from(module));
    match made {
        Ok((_, ty)) => match ty.downcast::<NamedTupleType>() {
            Some(t) => t.make(&ty, values).unwrap_or(Value::None),
            None => Value::None,
        },
        Err(_) => Value::None,
    }
}

fn fields_tuple(fields: &[Rc<str>]) -> Value {
    Value::tuple(fields.iter().map(|f| Value::str(&**f)).collect())
}

impl NamedTupleType {
    /// `_field_defaults`: the fields that have defaults, with them.
    fn field_defaults(&self) -> PyResult<Value> {
        let mut d = Dict::new();
        for p in &self.sig.params[1..] {
            if let Some(v) = &p.default {
                d.insert(Value::str(&*p.name), v.clone())?;
            }
        }
        Ok(Value::dict(d))
    }

    /// An instance of this type (`ty`) with `values`.
    fn make(&self, ty: &Value, values: Vec<Value>) -> PyResult<Value> {
        if values.len() != self.fields.len() {
            return Err(type_error(format!(
                "Expected {} arguments, got {}",
                self.fields.len(),
                values.len()
            )));
        }
        let Some(class) = self.class.borrow().upgrade() else {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                format!("the class of named tuple '{}' is gone", self.name),
            ));
        };
        Ok(Value::native(NamedTuple {
            ty: ty.clone(),
            class,
            values: values.into(),
        }))
    }
}

impl NativeObject for NamedTupleType {
    fn type_name(&self) -> &str {
        "type"
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        match self.class.borrow().upgrade() {
            Some(c) => Ok(format!("<class '{}.{}'>", c.module, c.qualname)),
            None => Ok(format!("<class '{}'>", self.name)),
        }
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(builtin_class(ValueType::Type))
    }
}

impl NamedTuple {
    /// The type object's description.
    fn ty(&self) -> &NamedTupleType {
        self.ty
            .downcast::<NamedTupleType>()
            .expect("a named tuple's type is a NamedTupleType")
    }

    /// The values as a plain tuple.
    pub fn as_tuple(&self) -> Value {
        Value::tuple(self.values.to_vec())
    }

    /// The values, one per field.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Whether `other` is an instance of the same named tuple type.
    pub fn same_type(&self, other: &NamedTuple) -> bool {
        Rc::ptr_eq(&self.class, &other.class)
    }

    /// An instance of the same type with other values (as many).
    pub fn with_values(&self, values: Vec<Value>) -> Value {
        Value::native(NamedTuple {
            ty: self.ty.clone(),
            class: self.class.clone(),
            values: values.into(),
        })
    }
}

impl NamedTuple {
    /// A method the script gave this named tuple's class (in a
    /// `typing.NamedTuple` body, or assigned), which overrides the tuple's
    /// own protocol: `__repr__`, `__str__`, operators, comparisons,
    /// `__iter__`, `__getitem__`.
    fn script_method(&self, name: &str) -> Option<Value> {
        match self.class.dict.borrow().get(name) {
            Some(f @ Value::Function(_)) => Some(f.clone()),
            _ => None,
        }
    }

    /// Calls the script's `name` method on `this`, when there is one.
    fn call_script(
        &self,
        this: &Value,
        name: &str,
        args: &[Value],
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let Some(f) = self.script_method(name) else {
            return Ok(None);
        };
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(this.clone());
        all.extend_from_slice(args);
        vm.call(&f, all, Vec::new()).map(Some)
    }

    /// The text a script's `__repr__`/`__str__` returned (which must be a str).
    fn script_text(&self, this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<String>> {
        match self.call_script(this, name, &[], vm)? {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s.to_string())),
            Some(other) => Err(type_error(format!(
                "{name} returned non-string (type {})",
                other.type_name()
            ))),
        }
    }
}

fn as_plain(v: &Value) -> Value {
    match v.downcast::<NamedTuple>() {
        Some(nt) => nt.as_tuple(),
        None => v.clone(),
    }
}

/// The AttributeError for storing (or deleting) `name` on a named tuple
/// (`nt`, or the built-in base of a subclass instance) when `name` is one of
/// its fields: CPython's field accessors are read-only data descriptors
/// (a struct sequence's say `readonly attribute`). None for other names.
pub fn field_store_error(nt: &Value, name: &str, deleting: bool) -> Option<PyErr> {
    let nt = nt.downcast::<NamedTuple>()?;
    let ty = nt.ty();
    if !ty.fields.iter().any(|f| &**f == name) {
        return None;
    }
    // Only a struct sequence's type is named with its module (see
    // `struct_sequence`); a namedtuple's name is an identifier.
    let msg = if ty.name.contains('.') {
        "readonly attribute"
    } else if deleting {
        "can't delete attribute"
    } else {
        "can't set attribute"
    };
    Some(PyErr::new(ExcType::AttributeError, msg))
}

impl NativeObject for NamedTuple {
    fn type_name(&self) -> &str {
        &self.ty().name
    }
    fn setattr(&self, this: &Value, name: &str, _value: Value, _vm: &dyn Vm) -> PyResult<bool> {
        match field_store_error(this, name, false) {
            Some(e) => Err(e),
            None => Ok(false),
        }
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(self.class.clone())
    }
    fn repr(&self, this: &Value, vm: &dyn Vm) -> PyResult<String> {
        if let Some(s) = self.script_text(this, "__repr__", vm)? {
            return Ok(s);
        }
        let mut parts = Vec::with_capacity(self.values.len());
        for (f, v) in self.ty().fields.iter().zip(self.values.iter()) {
            parts.push(format!("{f}={}", vm.repr(v)?));
        }
        Ok(format!("{}({})", self.ty().name, parts.join(", ")))
    }
    fn getattr(&self, this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let ty = self.ty();
        if let Some(i) = ty.fields.iter().position(|f| &**f == name) {
            return Ok(Some(self.values[i].clone()));
        }
        Ok(match name {
            "_fields" => Some(fields_tuple(&ty.fields)),
            "_asdict" => Some(ty.asdict.bind(this.clone())),
            "_replace" => Some(ty.replace.bind(this.clone())),
            "_make" => Some(ty.make.bind(self.ty.clone())),
            "count" | "index" => Some(vm.getattr(&self.as_tuple(), name)?),
            _ => None,
        })
    }
    fn dir(&self) -> Vec<String> {
        let mut v: Vec<String> = self.ty().fields.iter().map(|f| f.to_string()).collect();
        v.extend(["_fields", "_asdict", "_replace", "_make", "count", "index"].map(String::from));
        v
    }
    fn str(&self, this: &Value, vm: &dyn Vm) -> PyResult<String> {
        match self.script_text(this, "__str__", vm)? {
            Some(s) => Ok(s),
            None => self.repr(this, vm),
        }
    }
    fn iter(&self, this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(it) = self.call_script(this, "__iter__", &[], vm)? {
            return Ok(Some(it));
        }
        vm.iter(&self.as_tuple()).map(Some)
    }
    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        Ok(Some(self.values.len()))
    }
    fn getitem(&self, this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(v) = self.call_script(this, "__getitem__", std::slice::from_ref(key), vm)? {
            return Ok(Some(v));
        }
        vm.getitem(&self.as_tuple(), key).map(Some)
    }
    fn contains(&self, item: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        vm.contains(&self.as_tuple(), item).map(Some)
    }
    fn truthy(&self, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(Some(!self.values.is_empty()))
    }
    fn hash_as(&self) -> Option<Value> {
        Some(self.as_tuple())
    }
    /// `+` and `*` work on the plain tuple of the values (a tuple results, as
    /// in CPython).
    fn binop(
        &self,
        this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let name = if reflected { op.rdunder() } else { op.dunder() };
        if let Some(r) = self.call_script(this, name, std::slice::from_ref(other), vm)? {
            return Ok((!r.is(&crate::object::descr::not_implemented())).then_some(r));
        }
        if !matches!(op, BinOp::Add | BinOp::Mult) {
            return Ok(None);
        }
        let me = self.as_tuple();
        let other = as_plain(other);
        if op == BinOp::Add && !matches!(other, Value::Tuple(_)) {
            return Ok(None);
        }
        let (a, b) = if reflected { (other, me) } else { (me, other) };
        vm.binop(op, &a, &b).map(Some)
    }
    fn compare(
        &self,
        this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let name = match op {
            CmpOp::Eq => "__eq__",
            CmpOp::NotEq => "__ne__",
            CmpOp::Lt => "__lt__",
            CmpOp::LtE => "__le__",
            CmpOp::Gt => "__gt__",
            _ => "__ge__",
        };
        if let Some(r) = self.call_script(this, name, std::slice::from_ref(other), vm)? {
            return Ok((!r.is(&crate::object::descr::not_implemented())).then_some(r));
        }
        let other = as_plain(other);
        if !matches!(other, Value::Tuple(_)) {
            return Ok(None);
        }
        let me = self.as_tuple();
        Ok(Some(Value::Bool(match op {
            CmpOp::Eq => vm.eq(&me, &other)?,
            CmpOp::NotEq => !vm.eq(&me, &other)?,
            CmpOp::Lt => vm.lt(&me, &other)?,
            CmpOp::Gt => vm.lt(&other, &me)?,
            CmpOp::LtE => !vm.lt(&other, &me)?,
            CmpOp::GtE => !vm.lt(&me, &other)?,
            _ => return Ok(None),
        })))
    }
}

fn this_tuple(v: &Value) -> PyResult<&NamedTuple> {
    v.downcast::<NamedTuple>()
        .ok_or_else(|| type_error("expected a named tuple"))
}

/// A new dict which maps field names to their values.
#[native("_asdict(self)")]
fn asdict(this: &Value) -> PyResult<Value> {
    let nt = this_tuple(this)?;
    let mut d = Dict::new();
    for (f, v) in nt.ty().fields.iter().zip(nt.values.iter()) {
        d.insert(Value::str(&**f), v.clone())?;
    }
    Ok(Value::dict(d))
}

/// `_replace`/`_make` read from an instance of a script's subclass of a
/// named tuple class: bound so that they make that subclass, as CPython's
/// (`type(self)._make`), where the named tuple underneath would make its own.
pub fn subclass_method(inst: &Value, base: &Value, name: &str) -> Option<Value> {
    let ty = base.downcast::<NamedTuple>()?.ty();
    let Value::Instance(i) = inst else {
        return None;
    };
    match name {
        "_replace" => Some(ty.replace.bind(inst.clone())),
        "_make" => Some(ty.make.bind(Value::Class(i.class.clone()))),
        _ => None,
    }
}

/// A new named tuple with some fields replaced.
#[native("_replace(self, /, **kwds)")]
fn replace(vm: &dyn Vm, this: &Value, kwds: Kwargs) -> PyResult<Value> {
    // A subclass instance: the named tuple underneath, the subclass made.
    let subclass = match this {
        Value::Instance(i) => Some((i.builtin_base().cloned(), Value::Class(i.class.clone()))),
        _ => None,
    };
    let receiver = match &subclass {
        Some((Some(base), _)) => base,
        _ => this,
    };
    let nt = this_tuple(receiver)?;
    let mut values = nt.values.to_vec();
    let mut unknown = Vec::new();
    for (name, v) in kwds.0 {
        match nt.ty().fields.iter().position(|f| *f == name) {
            Some(i) => values[i] = v,
            None => unknown.push(Value::str(&*name)),
        }
    }
    if !unknown.is_empty() {
        return Err(value_error(format!(
            "Got unexpected field names: {}",
            vm.repr(&Value::list(unknown))?
        )));
    }
    match subclass {
        Some((_, cls)) => vm.call(&cls, values, Vec::new()),
        None => Ok(nt.with_values(values)),
    }
}

// The class's `__new__`, bound to the type: binds the arguments to the
// fields with the type's own signature (CPython's messages).
/// Create a new instance of the named tuple.
#[native("__new__(_cls, /, *args, **kwargs)")]
fn tuple_new(cls: &Value, args: &[Value], kwargs: Kwargs) -> PyResult<Value> {
    let Some(t) = cls.downcast::<NamedTupleType>() else {
        return Err(type_error("__new__() needs a named tuple type"));
    };
    let mut all = vec![cls.clone()];
    all.extend_from_slice(args);
    let bound = t.sig.bind(all, kwargs.0)?;
    t.make(cls, bound.values[1..].to_vec())
}

/// A new named tuple from a sequence or iterable.
#[native("_make(cls, iterable)")]
fn make_from(vm: &dyn Vm, cls: &Value, iterable: &Value) -> PyResult<Value> {
    let ty = cls;
    if let Value::Class(cls) = ty {
        // The named tuple class itself: its type makes it (CPython's
        // messages); a script's subclass: `cls(*iterable)`.
        let own = match cls.dict.borrow().get("__new__") {
            Some(Value::NativeFunction(nf)) => nf.bound.clone(),
            _ => None,
        };
        if let Some(t) = own.as_ref().and_then(|t| t.downcast::<NamedTupleType>()) {
            return t.make(own.as_ref().unwrap_or(ty), vm.collect(iterable)?);
        }
        return vm.call(ty, vm.collect(iterable)?, Vec::new());
    }
    let Some(t) = ty.downcast::<NamedTupleType>() else {
        return Err(type_error("_make() needs a named tuple type"));
    };
    t.make(ty, vm.collect(iterable)?)
}
