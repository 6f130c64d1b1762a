//! `bool`, `object` and `type`: their constructors; `int | str`, the
//! union of types (`types.UnionType`) that `isinstance` accepts.

use std::rc::Rc;

use super::{builtin_class, type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::value::{Class, ExcType, Instance, NativeObject, PyErr, PyResult, Value, ValueType, Vm};

/// `X | Y` of types (`int | None`): what `isinstance`/`issubclass` accept
/// as "any of these"; each member is a class object (`None` is NoneType)
/// or a parameterized generic (`list[int] | None`).
pub struct UnionType {
    /// The members, in order, without repeats.
    pub members: Vec<Value>,
}

/// How a type shows inside a union or a generic's arguments (CPython's
/// `ga_repr_item`/`union_repr_item`): builtins by name, other classes by
/// module and qualified name, `None`, `...`, generics by their repr.
fn type_repr(v: &Value, vm: &dyn Vm) -> PyResult<String> {
    Ok(match v {
        Value::Class(c) => match (&*c.module, &*c.name) {
            (_, "NoneType") => "None".to_string(),
            ("builtins", _) => c.qualname.to_string(),
            (m, _) => format!("{m}.{}", c.qualname),
        },
        Value::None => "None".to_string(),
        Value::List(items) => {
            let items = items.borrow().clone();
            let parts: Vec<String> = items
                .iter()
                .map(|a| type_repr(a, vm))
                .collect::<PyResult<_>>()?;
            format!("[{}]", parts.join(", "))
        }
        other if other.is(&crate::object::descr::ellipsis()) => "...".to_string(),
        other => vm.repr(other)?,
    })
}

/// `list[int]`, `dict[str, float]`: a builtin generic class subscripted
/// (PEP 585's `types.GenericAlias`). It prints as written, calls its
/// class, and is a base class standing for that class (`__mro_entries__`).
pub struct GenericAlias {
    /// The subscripted class (`__origin__`).
    pub origin: Rc<Class>,
    /// The subscript, one element per parameter (`__args__`).
    pub args: Vec<Value>,
}

impl GenericAlias {
    /// `cls[params]`: the subscript as a tuple of arguments.
    pub fn value(origin: Rc<Class>, params: &Value) -> Value {
        let args = match params {
            Value::Tuple(t) => t.to_vec(),
            other => vec![other.clone()],
        };
        Value::native(GenericAlias { origin, args })
    }

    /// Whether `cls[...]` makes a generic alias: the builtin containers and
    /// `type`, and collections' generic classes, as in CPython.
    pub fn subscriptable(cls: &Class) -> bool {
        match &*cls.module {
            "builtins" => matches!(
                &*cls.name,
                "list" | "dict" | "tuple" | "set" | "frozenset" | "type" | "enumerate"
            ),
            "collections" => matches!(
                &*cls.name,
                "deque" | "defaultdict" | "OrderedDict" | "Counter"
            ),
            _ => false,
        }
    }
}

/// The class `types.GenericAlias`.
pub static GENERIC_ALIAS: ClassSpec = ClassSpec {
    name: "GenericAlias",
    module: "types",
    bases: &[],
    members: &[Member::New(generic_alias_new::DEF)],
};

// `types.GenericAlias(list, int)`: what `list[int]` makes.
/// The class `origin` subscripted with `args` (`list[int]`).
#[native("GenericAlias(origin, args, /)", c_ctor)]
fn generic_alias_new(origin: &Value, args: &Value) -> PyResult<Value> {
    match origin {
        Value::Class(c) => Ok(GenericAlias::value(c.clone(), args)),
        other => Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "types.GenericAlias over a '{}' object is not supported in dist; its origin must be a class",
                other.type_name()
            ),
        )),
    }
}

impl NativeObject for GenericAlias {
    fn type_name(&self) -> &str {
        "GenericAlias"
    }

    // Its class has no `spec`: every attribute but its own is the origin
    // class's (`list[int].__name__`), not `object`'s.
    fn class(&self) -> Option<Rc<Class>> {
        Some(GENERIC_ALIAS.class())
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let origin = type_repr(&Value::Class(self.origin.clone()), vm)?;
        if self.args.is_empty() {
            return Ok(format!("{origin}[()]"));
        }
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| type_repr(a, vm))
            .collect::<PyResult<_>>()?;
        Ok(format!("{origin}[{}]", args.join(", ")))
    }

    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(match name {
            "__origin__" => Value::Class(self.origin.clone()),
            "__args__" => Value::tuple(self.args.clone()),
            "__parameters__" => Value::tuple(
                self.args
                    .iter()
                    .filter(|a| matches!(a, Value::Instance(i) if &*i.class.name == "TypeVar"))
                    .cloned()
                    .collect(),
            ),
            // Anything else is the class's (`list[int].__name__`).
            _ => {
                return vm
                    .getattr(&Value::Class(self.origin.clone()), name)
                    .map(Some)
            }
        }))
    }

    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        vm.call(&Value::Class(self.origin.clone()), args, kwargs)
    }

    fn binop(
        &self,
        this: &Value,
        op: crate::syntax::ast::BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        Ok(UnionType::binop(this, op, other, reflected, vm))
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let Some(o) = other.downcast::<GenericAlias>() else {
            return Ok(None);
        };
        let mut same = Rc::ptr_eq(&self.origin, &o.origin) && self.args.len() == o.args.len();
        for (a, b) in self.args.iter().zip(&o.args) {
            if !same {
                break;
            }
            same = vm.eq(a, b)?;
        }
        Ok(Some(same))
    }
}

impl UnionType {
    /// The operand of `|` as union members: a class, None (NoneType) or a
    /// union; None when it cannot be one (`int | 1` is a TypeError).
    fn members_of(v: &Value, vm: &dyn Vm) -> Option<Vec<Value>> {
        match v {
            Value::Class(_) => Some(vec![v.clone()]),
            Value::None => match vm.type_of(v) {
                c @ Value::Class(_) => Some(vec![c]),
                _ => None,
            },
            Value::Native(n) if n.as_any().is::<GenericAlias>() => Some(vec![v.clone()]),
            Value::Native(n) => n
                .as_any()
                .downcast_ref::<UnionType>()
                .map(|u| u.members.clone()),
            _ => None,
        }
    }

    /// Whether two members are the same type (generics: equal ones).
    fn same(a: &Value, b: &Value, vm: &dyn Vm) -> bool {
        match (a, b) {
            (Value::Class(x), Value::Class(y)) => Rc::ptr_eq(x, y),
            (Value::Native(_), Value::Native(_)) => vm.eq(a, b).unwrap_or(false),
            _ => false,
        }
    }

    /// `this | other` (`reflected`: `other | this`) for the type-like
    /// natives (generics, unions); other operators are not theirs.
    fn binop(
        this: &Value,
        op: crate::syntax::ast::BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> Option<Value> {
        if op != crate::syntax::ast::BinOp::BitOr {
            return None;
        }
        if reflected {
            UnionType::or(other, this, vm)
        } else {
            UnionType::or(this, other, vm)
        }
    }

    /// `a | b` when it makes a union (one side a class or a union, the other
    /// a class, None or a union); `int | int` is just `int`, as in CPython.
    pub fn or(a: &Value, b: &Value, vm: &dyn Vm) -> Option<Value> {
        if matches!((a, b), (Value::None, Value::None)) {
            return None;
        }
        let mut members = Self::members_of(a, vm)?;
        for c in Self::members_of(b, vm)? {
            if !members.iter().any(|m| Self::same(m, &c, vm)) {
                members.push(c);
            }
        }
        Some(match members.as_slice() {
            [one] => one.clone(),
            _ => Value::native(UnionType { members }),
        })
    }
}

impl NativeObject for UnionType {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&UNION_TYPE)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let names: Vec<String> = self
            .members
            .iter()
            .map(|c| type_repr(c, vm))
            .collect::<PyResult<_>>()?;
        Ok(names.join(" | "))
    }

    fn binop(
        &self,
        this: &Value,
        op: crate::syntax::ast::BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        Ok(UnionType::binop(this, op, other, reflected, vm))
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let Some(o) = other.downcast::<UnionType>() else {
            return Ok(None);
        };
        let same = self.members.len() == o.members.len()
            && self
                .members
                .iter()
                .all(|m| o.members.iter().any(|c| UnionType::same(m, c, vm)));
        Ok(Some(same))
    }
}

/// The class `types.UnionType`.
pub static UNION_TYPE: ClassSpec = ClassSpec {
    name: "UnionType",
    module: "types",
    bases: &[],
    members: &[Member::Getter(union_args::DEF)],
};

impl NativeClass for UnionType {
    const SPEC: &'static ClassSpec = &UNION_TYPE;
}

/// The members of the union.
#[native("UnionType.__args__(self)")]
fn union_args(this: &UnionType) -> Value {
    Value::tuple(this.members.clone())
}

/// `bool.__new__`.
pub static BOOL_MEMBERS: &[Member] = &[Member::New(bool_new::DEF)];

/// `object`'s constructor and methods.
pub static OBJECT_MEMBERS: &[Member] = &[
    Member::New(object_new::DEF),
    Member::Method(object_setattr::DEF),
    Member::Method(object_init_subclass::DEF),
    Member::Method(object_getattribute::DEF),
    Member::Method(object_delattr::DEF),
];

/// The default `__init_subclass__`: refuses the class keywords no class
/// took (CPython names the new class: `C.__init_subclass__() takes no
/// keyword arguments`).
/// Called when a class is subclassed; the default does nothing.
#[native("object.__init_subclass__(*args, **kwargs)", c)]
fn object_init_subclass(args: &[Value], kwargs: &Value) -> PyResult<()> {
    match kwargs {
        Value::Dict(d) if !d.borrow().is_empty() => {
            let owner = match args.first() {
                Some(Value::Class(c)) => c.name.to_string(),
                _ => "object".to_string(),
            };
            Err(type_error(format!(
                "{owner}.__init_subclass__() takes no keyword arguments"
            )))
        }
        _ => Ok(()),
    }
}

fn attr_name(v: &Value) -> PyResult<&str> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s.as_str()),
        _ => Err(type_error(format!(
            "attribute name must be string, not '{}'",
            v.type_name()
        ))),
    }
}

/// Sets an instance attribute directly, bypassing a class's own `__setattr__`.
#[native("object.__setattr__(self, name, value, /)", c)]
fn object_setattr(vm: &dyn Vm, this: &Value, name: &Value, value: Value) -> PyResult<()> {
    let name = attr_name(name)?;
    match this {
        Value::Instance(inst) => crate::object::attr::generic_setattr(vm, this, inst, name, value),
        _ => Err(type_error("object.__setattr__() needs an instance")),
    }
}

/// Deletes an instance attribute directly, bypassing a class's own `__delattr__`.
#[native("object.__delattr__(self, name, /)", c)]
fn object_delattr(vm: &dyn Vm, this: &Value, name: &Value) -> PyResult<()> {
    let name = attr_name(name)?;
    match this {
        Value::Instance(inst) => crate::object::attr::generic_delattr(vm, this, inst, name),
        _ => Err(type_error("object.__delattr__() needs an instance")),
    }
}

/// Looks an attribute up directly, bypassing a class's own `__getattribute__`.
// `object.__getattribute__(self, name)`: attribute lookup without the
// class's own `__getattribute__` and `__getattr__`.
#[native("object.__getattribute__(self, name, /)", c)]
fn object_getattribute(vm: &dyn Vm, this: &Value, name: &Value) -> PyResult<Value> {
    let name = attr_name(name)?;
    let found = match this {
        Value::Instance(inst) => crate::object::attr::generic_getattr(vm, this, inst, name)?,
        other => return vm.getattr(other, name),
    };
    found.ok_or_else(|| crate::object::attr::no_attribute(&this.type_name(), name))
}

/// `type.__new__` (the one-argument form; the interpreter replaces it
/// with the full one, which builds classes: `eval/meta.rs`).
pub static TYPE_MEMBERS: &[Member] = &[Member::New(type_new::DEF)];

/// `method.__new__` (`types.MethodType(function, instance)`).
pub static METHOD_MEMBERS: &[Member] = &[Member::New(method_new::DEF)];

/// `function` bound to `instance`, as `instance.function` would be: `types.MethodType(f, obj)()` calls `f(obj)`.
#[native("method(function, instance, /)", c_ctor)]
fn method_new(vm: &dyn Vm, function: &Value, instance: &Value) -> PyResult<Value> {
    if !super::protocol::is_callable(vm, function) {
        return Err(type_error("first argument must be callable"));
    }
    if matches!(instance, Value::None) {
        return Err(type_error("instance must not be None"));
    }
    Ok(Value::BoundMethod(Rc::new(crate::value::BoundMethod {
        receiver: instance.clone(),
        func: function.clone(),
    })))
}

/// The truth value of `x`: `bool([]) is False`.
#[native("bool(x=False, /)", c_ctor)]
fn bool_new(x: bool) -> bool {
    x
}

/// A featureless object (useful as a unique sentinel); `object.__new__(cls)` makes an instance of class `cls` without calling its `__init__`.
// `object()`, and `object.__new__(cls, ...)` as a user class's `__new__`
// reaches it (`super().__new__(cls)`): a bare instance of `cls`.
#[native("object(*args)", c_ctor)]
fn object_new(args: &[Value]) -> PyResult<Value> {
    match args {
        [] => Ok(Value::Instance(Rc::new(Instance::new(builtin_class(
            ValueType::Object,
        ))))),
        [Value::Class(cls), ..] => match cls.kind {
            crate::value::ClassKind::User | crate::value::ClassKind::Exception(_) => {
                Ok(Value::Instance(Rc::new(Instance::new(cls.clone()))))
            }
            _ if cls.name.as_ref() == "object" => Ok(Value::Instance(Rc::new(Instance::new(
                builtin_class(ValueType::Object),
            )))),
            _ => Err(type_error(format!(
                "object.__new__({}) is not safe, use {}.__new__()",
                cls.name, cls.name
            ))),
        },
        [other, ..] if args.len() > 1 || !matches!(other, Value::Class(_)) => {
            Err(type_error("object() takes no arguments"))
        }
        _ => Err(type_error("object() takes no arguments")),
    }
}

/// The class of an object: `type(1) is int`.
#[native("type(*args)", c_ctor)]
fn type_new(vm: &dyn Vm, args: &[Value]) -> PyResult<Value> {
    match args {
        [x] => Ok(vm.type_of(x)),
        [_, _, _] => Err(type_error("type() with 3 arguments (creating a class dynamically) is not supported; use a class statement")),
        _ => Err(type_error("type() takes 1 or 3 arguments")),
    }
}

/// A closure's cell (`f.__closure__[0]`): the variable it shares with the
/// enclosing function, read as `cell_contents`.
pub struct CellObj(pub crate::value::CellRef);

impl NativeObject for CellObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&CELL)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let at = this.id();
        Ok(match &*self.0.borrow() {
            None => format!("<cell at {at:#x}: empty>"),
            Some(v) => format!(
                "<cell at {at:#x}: {} object at {:#x}>",
                v.type_name(),
                v.id()
            ),
        })
    }

    fn setattr(&self, _this: &Value, name: &str, value: Value, _vm: &dyn Vm) -> PyResult<bool> {
        if name == "cell_contents" {
            *self.0.borrow_mut() = Some(value);
            return Ok(true);
        }
        Ok(false)
    }
}

/// The class `cell`.
pub static CELL: ClassSpec = ClassSpec {
    name: "cell",
    module: "builtins",
    bases: &[],
    members: &[Member::Getter(cell_contents::DEF)],
};

impl NativeClass for CellObj {
    const SPEC: &'static ClassSpec = &CELL;
}

/// The variable's value (ValueError when it has none yet).
#[native("cell.cell_contents(self)")]
fn cell_contents(this: &CellObj) -> PyResult<Value> {
    match &*this.0.borrow() {
        Some(v) => Ok(v.clone()),
        None => Err(value_error("Cell is empty")),
    }
}
