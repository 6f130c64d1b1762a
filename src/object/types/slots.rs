//! The methods CPython's types provide through their C slots rather than
//! through methods written out: `(1).__add__(2)`, `"ab".__len__()`,
//! `[1].__contains__(1)`, `object.__repr__(self)`, `super().__eq__(other)`,
//! `f.__call__(x)`. Each is a builtin function over the operation the
//! interpreter already implements; the attribute lookups of builtin values,
//! instances, classes and `super()` fall back to [`slot_method`] when a
//! class's own dictionaries have no such name. Following CPython, a binary
//! method whose operand its type does not handle returns `NotImplemented`
//! (`(1).__add__(1.5)`, `"a".__eq__(1)`), and the unhashable types have
//! `__hash__ = None`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::object::descr::not_implemented;
use crate::syntax::ast::BinOp;
use crate::value::{
    Args, ExcType, NativeFn, NativeFunction, NativeObject, PyErr, PyResult, Value, ValueType, Vm,
};

use ValueType as T;

/// Which types have a method: `object`'s are everyone's.
#[derive(Clone, Copy)]
enum Owners {
    /// Every object (`object`'s methods).
    All,
    /// `int`, `bool` and `float`.
    Numbers,
    /// `int` and `bool`.
    Ints,
    /// The listed types.
    Only(&'static [ValueType]),
}

impl Owners {
    fn has(self, t: ValueType) -> bool {
        match self {
            Owners::All => true,
            Owners::Numbers => matches!(t, T::Int | T::Bool | T::Float),
            Owners::Ints => matches!(t, T::Int | T::Bool),
            Owners::Only(ts) => ts.contains(&t),
        }
    }
}

const SIZED: &[ValueType] = &[
    T::Str,
    T::Bytes,
    T::List,
    T::Tuple,
    T::Dict,
    T::Set,
    T::FrozenSet,
];
/// Numbers and the sequences that concatenate and repeat (`+`, `*`).
const ADD_MUL: &[ValueType] = &[
    T::Int,
    T::Bool,
    T::Float,
    T::Str,
    T::Bytes,
    T::List,
    T::Tuple,
];
/// Numbers and sets (`-`).
const SUB: &[ValueType] = &[T::Int, T::Bool, T::Float, T::Set, T::FrozenSet];
/// Ints and sets (`&`, `^`); dicts also have `|`.
const BITS: &[ValueType] = &[T::Int, T::Bool, T::Set, T::FrozenSet];
const OR: &[ValueType] = &[T::Int, T::Bool, T::Set, T::FrozenSet, T::Dict];
const CALLABLES: &[ValueType] = &[T::Function, T::NativeFunction, T::BoundMethod, T::Type];

/// One slot method: its name, parameters after `self`, implementation and owners.
struct Slot(&'static str, &'static str, NativeFn, Owners);

macro_rules! binary {
    ($($f:ident = $op:ident, $reflected:expr;)*) => {
        $(fn $f(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            arith(vm, BinOp::$op, a.get(0), a.get(1), $reflected)
        })*
    };
}

binary! {
    add = Add, false; radd = Add, true;
    sub = Sub, false; rsub = Sub, true;
    mul = Mult, false; rmul = Mult, true;
    truediv = Div, false; rtruediv = Div, true;
    floordiv = FloorDiv, false; rfloordiv = FloorDiv, true;
    modulo = Mod, false; rmodulo = Mod, true;
    pow = Pow, false; rpow = Pow, true;
    lshift = LShift, false; rlshift = LShift, true;
    rshift = RShift, false; rrshift = RShift, true;
    and = BitAnd, false; rand = BitAnd, true;
    or = BitOr, false; ror = BitOr, true;
    xor = BitXor, false; rxor = BitXor, true;
}

static SLOTS: &[Slot] = &[
    Slot("__repr__", "", repr, Owners::All),
    Slot("__str__", "", str, Owners::All),
    Slot(
        "__format__",
        ", format_spec",
        value_format,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::Str]),
    ),
    Slot("__format__", ", format_spec", format, Owners::All),
    Slot("__hash__", "", hash, Owners::All),
    Slot("__eq__", ", value", eq, Owners::All),
    Slot("__ne__", ", value", ne, Owners::All),
    Slot("__lt__", ", value", lt, Owners::All),
    Slot("__le__", ", value", le, Owners::All),
    Slot("__gt__", ", value", gt, Owners::All),
    Slot("__ge__", ", value", ge, Owners::All),
    Slot("__add__", ", value", add, Owners::Only(ADD_MUL)),
    Slot("__radd__", ", value", radd, Owners::Numbers),
    Slot("__sub__", ", value", sub, Owners::Only(SUB)),
    Slot("__rsub__", ", value", rsub, Owners::Only(SUB)),
    Slot("__mul__", ", value", mul, Owners::Only(ADD_MUL)),
    Slot("__rmul__", ", value", rmul, Owners::Only(ADD_MUL)),
    Slot("__truediv__", ", value", truediv, Owners::Numbers),
    Slot("__rtruediv__", ", value", rtruediv, Owners::Numbers),
    Slot("__floordiv__", ", value", floordiv, Owners::Numbers),
    Slot("__rfloordiv__", ", value", rfloordiv, Owners::Numbers),
    Slot(
        "__mod__",
        ", value",
        modulo,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::Str, T::Bytes]),
    ),
    Slot("__rmod__", ", value", rmodulo, Owners::Numbers),
    // `"%s" % x` is the left operand's: the text types never take it reflected.
    Slot(
        "__rmod__",
        ", value",
        never_reflected,
        Owners::Only(&[T::Str, T::Bytes]),
    ),
    Slot("__divmod__", ", value", divmod, Owners::Numbers),
    Slot("__rdivmod__", ", value", rdivmod, Owners::Numbers),
    Slot("__pow__", ", value", pow, Owners::Numbers),
    Slot("__rpow__", ", value", rpow, Owners::Numbers),
    Slot("__lshift__", ", value", lshift, Owners::Ints),
    Slot("__rlshift__", ", value", rlshift, Owners::Ints),
    Slot("__rshift__", ", value", rshift, Owners::Ints),
    Slot("__rrshift__", ", value", rrshift, Owners::Ints),
    Slot("__and__", ", value", and, Owners::Only(BITS)),
    Slot("__rand__", ", value", rand, Owners::Only(BITS)),
    Slot("__or__", ", value", or, Owners::Only(OR)),
    Slot("__ror__", ", value", ror, Owners::Only(OR)),
    Slot("__xor__", ", value", xor, Owners::Only(BITS)),
    Slot("__rxor__", ", value", rxor, Owners::Only(BITS)),
    Slot("__neg__", "", neg, Owners::Numbers),
    Slot("__pos__", "", pos, Owners::Numbers),
    Slot("__abs__", "", abs, Owners::Numbers),
    Slot("__invert__", "", invert, Owners::Ints),
    Slot(
        "__bool__",
        "",
        truth,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::NoneType]),
    ),
    Slot("__int__", "", to_int, Owners::Numbers),
    Slot("__float__", "", to_float, Owners::Numbers),
    Slot("__index__", "", index, Owners::Ints),
    Slot("__round__", ", ndigits=None", round, Owners::Numbers),
    Slot("__trunc__", "", trunc, Owners::Numbers),
    Slot("__floor__", "", floor, Owners::Numbers),
    Slot("__ceil__", "", ceil, Owners::Numbers),
    Slot(
        "__getnewargs__",
        "",
        getnewargs,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::Str, T::Bytes, T::Tuple]),
    ),
    Slot("__bytes__", "", bytes, Owners::Only(&[T::Bytes])),
    Slot(
        "__getformat__",
        ", typestr",
        getformat,
        Owners::Only(&[T::Float]),
    ),
    Slot("__len__", "", len, Owners::Only(SIZED)),
    Slot(
        "__getitem__",
        ", key",
        getitem,
        Owners::Only(&[T::Str, T::Bytes, T::List, T::Tuple, T::Dict]),
    ),
    Slot(
        "__setitem__",
        ", key, value",
        setitem,
        Owners::Only(&[T::List, T::Dict]),
    ),
    Slot(
        "__delitem__",
        ", key",
        delitem,
        Owners::Only(&[T::List, T::Dict]),
    ),
    Slot("__contains__", ", key", contains, Owners::Only(SIZED)),
    Slot(
        "__reversed__",
        "",
        reversed,
        Owners::Only(&[T::List, T::Dict]),
    ),
    Slot("__iadd__", ", value", iadd, Owners::Only(&[T::List])),
    Slot("__imul__", ", value", imul, Owners::Only(&[T::List])),
    Slot("__ior__", ", value", ior, Owners::Only(&[T::Dict, T::Set])),
    Slot("__iand__", ", value", iand, Owners::Only(&[T::Set])),
    Slot("__isub__", ", value", isub, Owners::Only(&[T::Set])),
    Slot("__ixor__", ", value", ixor, Owners::Only(&[T::Set])),
    Slot(
        "__class_getitem__",
        ", item",
        class_getitem,
        Owners::Only(&[T::List, T::Dict, T::Tuple, T::Set, T::FrozenSet]),
    ),
    Slot("__dir__", "", dir, Owners::All),
    Slot("__getstate__", "", getstate, Owners::All),
    Slot("__reduce__", "", reduce, Owners::All),
    Slot("__reduce_ex__", ", protocol", reduce, Owners::All),
    Slot("__sizeof__", "", sizeof, Owners::All),
    Slot("__subclasshook__", ", *args", subclasshook, Owners::All),
    Slot("__iter__", "", iter, Owners::Only(SIZED)),
    Slot(
        "__call__",
        ", *args, **kwargs",
        call,
        Owners::Only(CALLABLES),
    ),
];

thread_local! {
    /// The builtin function of each (type, slot), made once so that
    /// `int.__add__ is int.__add__`.
    static MADE: RefCell<HashMap<(ValueType, &'static str), Rc<NativeFunction>>> =
        RefCell::new(HashMap::new());
}

/// The slot method `name` of the builtin type `owner` (`Object` for
/// instances of classes and for `object` itself), unbound: a builtin
/// function, or None for the `__hash__` of an unhashable type. None when the
/// type has no such method.
pub fn slot_method(owner: ValueType, name: &str) -> Option<Value> {
    if !name.starts_with("__") {
        return None;
    }
    // The types that inherit `object`'s `__str__`/`__format__` (`int.__str__
    // is object.__str__`: it calls the instance's `repr`).
    let owner = match (name, owner) {
        ("__str__", T::Str | T::Bytes) => owner,
        ("__format__", T::Int | T::Bool | T::Float | T::Str) => owner,
        ("__str__" | "__format__", _) => T::Object,
        _ => owner,
    };
    let slot = SLOTS.iter().find(|s| s.0 == name && s.3.has(owner))?;
    if slot.0 == "__hash__" && matches!(owner, T::List | T::Dict | T::Set) {
        return Some(Value::None);
    }
    let f = MADE.with(|made| {
        made.borrow_mut()
            .entry((owner, slot.0))
            .or_insert_with(|| {
                // `self` is positional-only; a star parameter ends the list.
                let sig = match slot.1.split_once(", *") {
                    Some((_, star)) => format!("{}.{}(self, /, *{star})", owner.name(), slot.0),
                    None => format!("{}.{}(self{}, /)", owner.name(), slot.0, slot.1),
                };
                NativeFunction::new_builtin(&sig, slot.2, "")
            })
            .clone()
    });
    Some(Value::NativeFunction(f))
}

/// The protocol slots of an object implemented in Rust (a range, an
/// iterator, a generator), bound to it: `__len__`, `__iter__` and `__next__`
/// where it supports them, then `object`'s.
pub fn native_slot_method(
    vm: &dyn Vm,
    n: &dyn NativeObject,
    this: &Value,
    name: &str,
) -> PyResult<Option<Value>> {
    let f: NativeFn = match name {
        "__len__" if n.len(vm)?.is_some() => len,
        "__iter__" if n.iter(this, vm)?.is_some() => iter,
        "__next__" if matches!(n.iter(this, vm)?, Some(it) if it.is(this)) => next,
        "__len__" | "__iter__" | "__next__" => return Ok(None),
        _ => return Ok(bound_slot_method(T::Object, this, name)),
    };
    let f = MADE.with(|made| {
        made.borrow_mut()
            .entry((T::Tensor, name_static(name)))
            .or_insert_with(|| {
                NativeFunction::new_builtin(&format!("object.{name}(self, /)"), f, "")
            })
            .clone()
    });
    Ok(Some(f.bind(this.clone())))
}

fn name_static(name: &str) -> &'static str {
    match name {
        "__len__" => "__len__",
        "__iter__" => "__iter__",
        _ => "__next__",
    }
}

fn next(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match vm.next(a.get(0))? {
        Some(v) => Ok(v),
        None => Err(PyErr::with_args(ExcType::StopIteration, Vec::new())),
    }
}

/// The names of the slot methods the builtin type `owner` has, `object`'s
/// included (for `dir()`).
pub fn slot_names(owner: ValueType) -> impl Iterator<Item = &'static str> {
    SLOTS.iter().filter(move |s| s.3.has(owner)).map(|s| s.0)
}

/// The slot methods type `t` defines itself (in its `__dict__`): for
/// `object`, its own; for another type, those not inherited from `object`.
pub fn own_slot_names(t: ValueType) -> impl Iterator<Item = &'static str> {
    SLOTS
        .iter()
        .filter(move |s| match s.3 {
            Owners::All => t == T::Object,
            owners => owners.has(t),
        })
        .map(|s| s.0)
}

/// The slot methods that are class methods: read through a class, they
/// are bound to it (`list.__class_getitem__(int)`).
pub fn is_class_method(name: &str) -> bool {
    matches!(
        name,
        "__class_getitem__" | "__subclasshook__" | "__getformat__"
    )
}

/// [`slot_method`] bound to `receiver`, its type `owner`.
pub fn bound_slot_method(owner: ValueType, receiver: &Value, name: &str) -> Option<Value> {
    Some(match slot_method(owner, name)? {
        Value::NativeFunction(f) => f.bind(receiver.clone()),
        other => other,
    })
}

/// The builtin type whose slots a value has (`Object` for instances and
/// other objects).
pub fn slot_owner(v: &Value) -> ValueType {
    match v.value_type() {
        Some(T::Tensor) | None => T::Object,
        Some(t) => t,
    }
}

/// For a number `x`: whether its type's methods take `y` (an int takes ints
/// and bools, a float also floats). None when `x` is not a number.
fn number_takes(x: &Value, y: &Value) -> Option<bool> {
    let int = matches!(y, Value::Int(_) | Value::Bool(_));
    match x {
        Value::Int(_) | Value::Bool(_) => Some(int),
        Value::Float(_) => Some(int || matches!(y, Value::Float(_))),
        _ => None,
    }
}

/// Whether a binary method of `x`'s type handles `y` (else NotImplemented).
pub(crate) fn handles(op: BinOp, x: &Value, y: &Value) -> bool {
    if let Some(takes) = number_takes(x, y) {
        return takes;
    }
    match x {
        // Concatenation with another type raises its own TypeError.
        Value::Str(_) | Value::Bytes(_) | Value::List(_) | Value::Tuple(_) => match op {
            BinOp::Mult => matches!(y, Value::Int(_) | Value::Bool(_)),
            _ => true,
        },
        Value::Dict(_) => matches!(y, Value::Dict(_)),
        Value::Set(_) => matches!(y, Value::Set(_)),
        _ => false,
    }
}

/// The operand a builtin type's binary method works on: the builtin value
/// underneath an instance of a subclass (`int.__add__(1, Flags(2))` adds
/// the ints, without the subclass's own `__radd__` or `__eq__`).
fn operand(y: &Value) -> std::borrow::Cow<'_, Value> {
    match super::subclass::base_value(y) {
        Some(b) => std::borrow::Cow::Owned(b),
        None => std::borrow::Cow::Borrowed(y),
    }
}

fn arith(vm: &dyn Vm, op: BinOp, x: &Value, y: &Value, reflected: bool) -> PyResult<Value> {
    let y = &*operand(y);
    let sequence = matches!(
        x,
        Value::Str(_) | Value::Bytes(_) | Value::List(_) | Value::Tuple(_)
    );
    if sequence && op == BinOp::Mult && !handles(op, x, y) {
        // The repeat slot takes any index and says so.
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "'{}' object cannot be interpreted as an integer",
                y.type_name()
            ),
        ));
    }
    if !handles(op, x, y) {
        return Ok(not_implemented());
    }
    if reflected {
        vm.binop(op, y, x)
    } else {
        vm.binop(op, x, y)
    }
}

/// Whether `x`'s type compares itself with `y` (else NotImplemented).
fn comparable(x: &Value, y: &Value) -> bool {
    if let Some(takes) = number_takes(x, y) {
        return takes;
    }
    matches!(
        (x, y),
        (Value::Str(_), Value::Str(_))
            | (Value::Bytes(_), Value::Bytes(_))
            | (Value::List(_), Value::List(_))
            | (Value::Tuple(_), Value::Tuple(_))
            | (Value::Dict(_), Value::Dict(_))
            | (Value::Set(_), Value::Set(_))
    )
}

/// Whether `x` is one of the builtin values whose type has its own comparisons.
fn builtin_compared(x: &Value) -> bool {
    !matches!(
        slot_owner(x),
        T::Object | T::Function | T::NativeFunction | T::BoundMethod | T::Type | T::NoneType
    )
}

/// `__repr__`/`__str__`: the value's own for builtin values and None,
/// `object`'s (BaseException's for exceptions) otherwise.
fn text(
    a: &Args,
    own: impl FnOnce(&Value) -> PyResult<String>,
    object: impl FnOnce(&Value) -> PyResult<String>,
) -> PyResult<Value> {
    let x = a.get(0);
    let s = if builtin_compared(x) || x.is_none() {
        own(x)?
    } else {
        object(x)?
    };
    Ok(Value::str(s))
}

fn repr(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    text(a, |x| vm.repr(x), |x| vm.object_repr(x))
}

fn str(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    text(a, |x| vm.str(x), |x| vm.object_str(x))
}

fn format(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, spec) = (a.get(0), a.get(1));
    let Value::Str(spec) = spec else {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!("format_spec must be a str, not {}", spec.type_name()),
        ));
    };
    if builtin_compared(x) || x.is_none() {
        return Ok(Value::str(vm.format(x, spec)?));
    }
    if !spec.is_empty() {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "unsupported format string passed to {}.__format__",
                x.type_name()
            ),
        ));
    }
    Ok(Value::str(vm.str(x)?))
}

/// The `__format__` of `int`, `float` and `str`: the value formatted by
/// the spec, and `str(self)` for an empty one (so a subclass's own
/// `__str__` shows: `int.__format__(member, '')`).
fn value_format(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, spec) = (a.get(0), a.get(1));
    match spec {
        Value::Str(s) if s.is_empty() => Ok(Value::str(vm.str(x)?)),
        Value::Str(s) => Ok(Value::str(vm.format(x.as_builtin(), s)?)),
        _ => format(vm, a),
    }
}

fn hash(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = a.get(0);
    Ok(Value::Int(if builtin_compared(x) || x.is_none() {
        vm.hash(x)?
    } else {
        // `object.__hash__`: by identity, whatever the class defines.
        crate::value::dict::py_hash(x)
    }))
}

/// `__eq__`: the value's own equality for builtin types; identity for
/// `object`'s.
fn eq(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = (a.get(0), a.get(1));
    if builtin_compared(x) {
        let y = &*operand(y);
        return Ok(if comparable(x, y) {
            Value::Bool(vm.eq(x, y)?)
        } else {
            not_implemented()
        });
    }
    Ok(if x.is(y) || (x.is_none() && y.is_none()) {
        Value::Bool(true)
    } else {
        not_implemented()
    })
}

/// `__ne__`: `object`'s inverts the type's `__eq__` unless NotImplemented.
fn ne(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = (a.get(0), a.get(1));
    if builtin_compared(x) {
        let y = &*operand(y);
        return Ok(if comparable(x, y) {
            Value::Bool(!vm.eq(x, y)?)
        } else {
            not_implemented()
        });
    }
    let m = vm.getattr(x, "__eq__")?;
    let r = vm.call(&m, vec![y.clone()], Vec::new())?;
    if r.is(&not_implemented()) {
        return Ok(r);
    }
    Ok(Value::Bool(!vm.truthy(&r)?))
}

/// The orderings: the type's own for builtin values that order (not dicts),
/// NotImplemented otherwise (`object`'s).
fn order(
    vm: &dyn Vm,
    a: &Args,
    f: fn(&dyn Vm, &Value, &Value) -> PyResult<bool>,
) -> PyResult<Value> {
    let (x, y) = (a.get(0), &*operand(a.get(1)));
    if builtin_compared(x) && !matches!(x, Value::Dict(_)) && comparable(x, y) {
        return Ok(Value::Bool(f(vm, x, y)?));
    }
    Ok(not_implemented())
}

fn lt(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    order(vm, a, |vm, x, y| vm.lt(x, y))
}

fn le(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    order(vm, a, |vm, x, y| Ok(vm.lt(x, y)? || vm.eq(x, y)?))
}

fn gt(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    order(vm, a, |vm, x, y| vm.gt(x, y))
}

fn ge(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    order(vm, a, |vm, x, y| Ok(vm.gt(x, y)? || vm.eq(x, y)?))
}

fn neg(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    // `x * -1` keeps the sign of zero (`-0.0`) and raises on int overflow.
    vm.binop(BinOp::Mult, a.get(0), &Value::Int(-1))
}

fn pos(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    vm.binop(BinOp::Mult, a.get(0), &Value::Int(1))
}

fn abs(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(match a.get(0) {
        Value::Float(x) => Value::Float(x.abs()),
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Int(i) => Value::Int(
            i.checked_abs()
                .ok_or_else(|| PyErr::new(ExcType::OverflowError, "int too large to convert"))?,
        ),
        other => other.clone(),
    })
}

fn invert(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(match a.get(0) {
        Value::Int(i) => Value::Int(!i),
        Value::Bool(b) => Value::Int(!(*b as i64)),
        other => other.clone(),
    })
}

fn truth(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(vm.truthy(a.get(0))?))
}

fn to_int(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let int = vm.type_of(&Value::Int(0));
    vm.call(&int, vec![a.get(0).clone()], Vec::new())
}

fn to_float(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let float = vm.type_of(&Value::Float(0.0));
    vm.call(&float, vec![a.get(0).clone()], Vec::new())
}

fn index(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(match a.get(0) {
        Value::Bool(b) => Value::Int(*b as i64),
        other => other.clone(),
    })
}

fn never_reflected(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(not_implemented())
}

/// `x.__divmod__(y)` (reflected: `y.__rdivmod__(x)`) as `divmod` computes it.
fn divmod_slot(vm: &dyn Vm, x: &Value, y: &Value, reflected: bool) -> PyResult<Value> {
    let y = &*operand(y);
    let x = x.as_builtin();
    if !handles(BinOp::FloorDiv, x, y) {
        return Ok(not_implemented());
    }
    let (p, q) = if reflected { (y, x) } else { (x, y) };
    super::protocol::divmod_values(vm, p, q)
}

fn divmod(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    divmod_slot(vm, a.get(0), a.get(1), false)
}

fn rdivmod(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    divmod_slot(vm, a.get(0), a.get(1), true)
}

fn round(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    super::protocol::round_value(vm, a.get(0).as_builtin(), Some(a.get(1)))
}

/// An int or bool as an int; a float rounded by `f` to one.
fn to_integral(v: &Value, f: fn(f64) -> f64) -> PyResult<Value> {
    Ok(match v.as_builtin() {
        Value::Float(x) => Value::Int(crate::value::round::float_to_i64(f(*x))?),
        Value::Bool(b) => Value::Int(*b as i64),
        other => other.clone(),
    })
}

fn trunc(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    to_integral(a.get(0), f64::trunc)
}

fn floor(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    to_integral(a.get(0), f64::floor)
}

fn ceil(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    to_integral(a.get(0), f64::ceil)
}

fn getnewargs(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::tuple(vec![a.get(0).as_builtin().clone()]))
}

fn bytes(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(a.get(0).as_builtin().clone())
}

/// `float.__getformat__('double')`: how floats are stored (IEEE 754 here).
fn getformat(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.get(1).as_builtin() {
        Value::Str(s) if matches!(s.as_str(), "double" | "float") => {
            Ok(Value::str("IEEE, little-endian"))
        }
        Value::Str(_) => Err(PyErr::new(
            ExcType::ValueError,
            "__getformat__() argument 1 must be 'double' or 'float'",
        )),
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "__getformat__() argument must be str, not {}",
                other.type_name()
            ),
        )),
    }
}

fn delitem(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    vm.delitem(a.get(0), a.get(1))?;
    Ok(Value::None)
}

fn reversed(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    super::iter::reversed_of(vm, a.get(0).as_builtin())
}

/// `x.__iop__(y)`: changes `x` in place and returns it; NotImplemented for
/// an operand its type does not take (`s.__iand__([1])`).
fn inplace(vm: &dyn Vm, op: BinOp, a: &Args) -> PyResult<Value> {
    let (x, y) = (a.get(0).as_builtin(), &*operand(a.get(1)));
    let takes = match (x, op) {
        // `lst += iterable` extends; `lst *= n` repeats, and takes only an index.
        (Value::List(_), BinOp::Add) => true,
        (Value::List(_), _) if !matches!(y, Value::Int(_) | Value::Bool(_)) => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "'{}' object cannot be interpreted as an integer",
                    y.type_name()
                ),
            ))
        }
        (Value::List(_), _) => true,
        // `d |= pairs` updates from any mapping or iterable of pairs.
        (Value::Dict(_), _) => true,
        _ => handles(op, x, y),
    };
    if !takes {
        return Ok(not_implemented());
    }
    vm.inplace(op, x, y)?;
    Ok(a.get(0).clone())
}

macro_rules! inplace {
    ($($f:ident = $op:ident;)*) => {
        $(fn $f(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            inplace(vm, BinOp::$op, a)
        })*
    };
}

inplace! {
    iadd = Add;
    imul = Mult;
    ior = BitOr;
    iand = BitAnd;
    isub = Sub;
    ixor = BitXor;
}

/// `list.__class_getitem__(int)`: `list[int]` (bound to the class; read
/// through an instance, its type).
fn class_getitem(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let cls = match a.get(0) {
        c @ Value::Class(_) => c.clone(),
        other => vm.type_of(other),
    };
    vm.getitem(&cls, a.get(1))
}

fn dir(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut names = vm.dir(a.get(0));
    names.sort();
    names.dedup();
    Ok(Value::list(names.into_iter().map(Value::str).collect()))
}

/// `object.__getstate__()`: an instance's attributes (None when it has none).
fn getstate(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.get(0) {
        Value::Instance(i) if !i.attr_names().is_empty() => vm.getattr(a.get(0), "__dict__"),
        _ => Ok(Value::None),
    }
}

fn reduce(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Err(PyErr::new(
        ExcType::NotImplementedError,
        "pickling (__reduce__/__reduce_ex__) is not supported in dist",
    ))
}

fn sizeof(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Err(PyErr::new(
        ExcType::NotImplementedError,
        "__sizeof__: CPython's object sizes are not modelled in dist",
    ))
}

fn subclasshook(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(not_implemented())
}

fn len(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Int(vm.len(a.get(0))? as i64))
}

fn getitem(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    vm.getitem(a.get(0), a.get(1))
}

fn setitem(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    vm.setitem(a.get(0), a.get(1), a.get(2).clone())?;
    Ok(Value::None)
}

fn contains(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(vm.contains(a.get(0), a.get(1))?))
}

fn iter(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    vm.iter(a.get(0))
}

fn call(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let args = a.varargs(1).to_vec();
    let kwargs = match a.get(2) {
        Value::Dict(d) => d
            .borrow()
            .items()
            .into_iter()
            .map(|(k, v)| match k {
                Value::Str(s) => (Rc::from(s.as_str()), v),
                _ => (Rc::from(""), v),
            })
            .collect(),
        _ => Vec::new(),
    };
    vm.call(a.get(0), args, kwargs)
}
