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

use crate::object::NativeDef;
use crate::syntax::ast::BinOp;
use crate::value::{NativeFunction, NativeObject, PyResult, Value, ValueType, Vm};

#[path = "slots_num.rs"]
mod num;
#[path = "slots_object.rs"]
mod object;
#[path = "slots_seq.rs"]
mod seq;

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

/// One slot method: the native (written for `object`, its signature's
/// name `object.__add__`; each type gets it under its own name) and the
/// types that have it. The slot natives carry no `///` text: their
/// `__doc__` is None.
struct Slot(NativeDef, Owners);

impl Slot {
    /// Whether this is slot `name` (the signature is `object.<name>(...)`):
    /// a prefix comparison, as lookups scan the table.
    fn is(&self, name: &str) -> bool {
        self.0.sig["object.".len()..]
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('('))
    }
}

static SLOTS: &[Slot] = &[
    Slot(object::repr::DEF, Owners::All),
    Slot(object::to_str::DEF, Owners::All),
    Slot(
        object::value_format::DEF,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::Str]),
    ),
    Slot(object::format::DEF, Owners::All),
    Slot(object::hash::DEF, Owners::All),
    Slot(object::eq::DEF, Owners::All),
    Slot(object::ne::DEF, Owners::All),
    Slot(object::lt::DEF, Owners::All),
    Slot(object::le::DEF, Owners::All),
    Slot(object::gt::DEF, Owners::All),
    Slot(object::ge::DEF, Owners::All),
    Slot(num::add::DEF, Owners::Only(ADD_MUL)),
    Slot(num::radd::DEF, Owners::Numbers),
    Slot(num::sub::DEF, Owners::Only(SUB)),
    Slot(num::rsub::DEF, Owners::Only(SUB)),
    Slot(num::mul::DEF, Owners::Only(ADD_MUL)),
    Slot(num::rmul::DEF, Owners::Only(ADD_MUL)),
    Slot(num::truediv::DEF, Owners::Numbers),
    Slot(num::rtruediv::DEF, Owners::Numbers),
    Slot(num::floordiv::DEF, Owners::Numbers),
    Slot(num::rfloordiv::DEF, Owners::Numbers),
    Slot(
        num::modulo::DEF,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::Str, T::Bytes]),
    ),
    Slot(num::rmodulo::DEF, Owners::Numbers),
    // `"%s" % x` is the left operand's: the text types never take it reflected.
    Slot(num::never_reflected::DEF, Owners::Only(&[T::Str, T::Bytes])),
    Slot(num::divmod::DEF, Owners::Numbers),
    Slot(num::rdivmod::DEF, Owners::Numbers),
    Slot(num::pow::DEF, Owners::Numbers),
    Slot(num::rpow::DEF, Owners::Numbers),
    Slot(num::lshift::DEF, Owners::Ints),
    Slot(num::rlshift::DEF, Owners::Ints),
    Slot(num::rshift::DEF, Owners::Ints),
    Slot(num::rrshift::DEF, Owners::Ints),
    Slot(num::and::DEF, Owners::Only(BITS)),
    Slot(num::rand::DEF, Owners::Only(BITS)),
    Slot(num::or::DEF, Owners::Only(OR)),
    Slot(num::ror::DEF, Owners::Only(OR)),
    Slot(num::xor::DEF, Owners::Only(BITS)),
    Slot(num::rxor::DEF, Owners::Only(BITS)),
    Slot(num::neg::DEF, Owners::Numbers),
    Slot(num::pos::DEF, Owners::Numbers),
    Slot(num::abs::DEF, Owners::Numbers),
    Slot(num::invert::DEF, Owners::Ints),
    Slot(
        num::truth::DEF,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::NoneType]),
    ),
    Slot(num::to_int::DEF, Owners::Numbers),
    Slot(num::to_float::DEF, Owners::Numbers),
    Slot(num::index::DEF, Owners::Ints),
    Slot(num::round::DEF, Owners::Numbers),
    Slot(num::trunc::DEF, Owners::Numbers),
    Slot(num::floor::DEF, Owners::Numbers),
    Slot(num::ceil::DEF, Owners::Numbers),
    Slot(
        seq::getnewargs::DEF,
        Owners::Only(&[T::Int, T::Bool, T::Float, T::Str, T::Bytes, T::Tuple]),
    ),
    Slot(seq::bytes::DEF, Owners::Only(&[T::Bytes])),
    Slot(num::getformat::DEF, Owners::Only(&[T::Float])),
    Slot(seq::len::DEF, Owners::Only(SIZED)),
    Slot(
        seq::getitem::DEF,
        Owners::Only(&[T::Str, T::Bytes, T::List, T::Tuple, T::Dict]),
    ),
    Slot(seq::setitem::DEF, Owners::Only(&[T::List, T::Dict])),
    Slot(seq::delitem::DEF, Owners::Only(&[T::List, T::Dict])),
    Slot(seq::contains::DEF, Owners::Only(SIZED)),
    Slot(seq::reversed::DEF, Owners::Only(&[T::List, T::Dict])),
    Slot(seq::iadd::DEF, Owners::Only(&[T::List])),
    Slot(seq::imul::DEF, Owners::Only(&[T::List])),
    Slot(seq::ior::DEF, Owners::Only(&[T::Dict, T::Set])),
    Slot(seq::iand::DEF, Owners::Only(&[T::Set])),
    Slot(seq::isub::DEF, Owners::Only(&[T::Set])),
    Slot(seq::ixor::DEF, Owners::Only(&[T::Set])),
    Slot(
        seq::class_getitem::DEF,
        Owners::Only(&[T::List, T::Dict, T::Tuple, T::Set, T::FrozenSet]),
    ),
    Slot(object::dir::DEF, Owners::All),
    Slot(object::getstate::DEF, Owners::All),
    Slot(object::reduce::DEF, Owners::All),
    Slot(object::reduce_ex::DEF, Owners::All),
    Slot(object::sizeof::DEF, Owners::All),
    Slot(object::subclasshook::DEF, Owners::All),
    Slot(seq::iter::DEF, Owners::Only(SIZED)),
    Slot(object::call::DEF, Owners::Only(CALLABLES)),
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
    let Slot(def, _) = SLOTS.iter().find(|s| s.is(name) && s.1.has(owner))?;
    if name == "__hash__" && matches!(owner, T::List | T::Dict | T::Set) {
        return Some(Value::None);
    }
    let f = MADE.with(|made| {
        made.borrow_mut()
            .entry((owner, def.name()))
            .or_insert_with(|| {
                // The native under the owner's name (`int.__add__`), for messages.
                let sig = def.sig.strip_prefix("object.").unwrap_or(def.sig);
                let sig = crate::value::Signature::parse(&format!("{}.{sig}", owner.name()));
                NativeFunction::from_signature(sig.c_builtin(false), def.func, def.doc)
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
    let def = match name {
        "__len__" if n.len(vm)?.is_some() => seq::len::DEF,
        "__iter__" if n.iter(this, vm)?.is_some() => seq::iter::DEF,
        "__next__" if matches!(n.iter(this, vm)?, Some(it) if it.is(this)) => seq::next::DEF,
        "__len__" | "__iter__" | "__next__" => return Ok(None),
        _ => return Ok(bound_slot_method(T::Object, this, name)),
    };
    // Made once per name: under `Tensor`, a type that has none of these.
    let f = MADE.with(|made| {
        made.borrow_mut()
            .entry((T::Tensor, def.name()))
            .or_insert_with(|| def.function())
            .clone()
    });
    Ok(Some(f.bind(this.clone())))
}

/// The names of the slot methods the builtin type `owner` has, `object`'s
/// included (for `dir()`).
pub fn slot_names(owner: ValueType) -> impl Iterator<Item = &'static str> {
    SLOTS
        .iter()
        .filter(move |s| s.1.has(owner))
        .map(|s| s.0.name())
}

/// The slot methods type `t` defines itself (in its `__dict__`): for
/// `object`, its own; for another type, those not inherited from `object`.
pub fn own_slot_names(t: ValueType) -> impl Iterator<Item = &'static str> {
    SLOTS
        .iter()
        .filter(move |s| match s.1 {
            Owners::All => t == T::Object,
            owners => owners.has(t),
        })
        .map(|s| s.0.name())
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
    let int = matches!(y, Value::Int(_) | Value::Long(_) | Value::Bool(_));
    match x {
        Value::Int(_) | Value::Long(_) | Value::Bool(_) => Some(int),
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
            BinOp::Mult => matches!(y, Value::Int(_) | Value::Long(_) | Value::Bool(_)),
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

#[cfg(test)]
mod tests {
    use super::SLOTS;

    /// Each slot native is written for `object` (its signature's name is
    /// `object.__x__`), which lookups and registration rely on.
    #[test]
    fn slot_signatures_name_object() {
        for s in SLOTS {
            let name = s.0.name();
            assert!(s.0.sig.starts_with("object.__"), "{}", s.0.sig);
            assert!(s.is(name), "{}", s.0.sig);
        }
    }
}
