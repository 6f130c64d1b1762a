//! The builtin types as class objects: `int`, `str`, `list`, `dict`, `range` …
//! Each type's file registers its methods (unbound natives taking `self`
//! first, which the evaluator binds on attribute access) and its `__new__`:
//! the constructor native the evaluator calls for `int(...)`, `list(...)`.
//! Calling a class of kind `Builtin` or `Native` means calling its
//! `__new__` with the call's arguments (no `cls`).
//!
//! Also here: the iterator and view objects, `range` and `slice`, and the
//! protocol helpers the evaluator may use for builtin values (repr, equality,
//! ordering, arithmetic, subscripts) in [`ops`], [`repr`] and [`subscript`].

pub mod bytes;
pub mod complex;
pub mod dict;
pub mod float;
pub mod int;
pub mod iter;
pub mod list;
pub mod long;
pub mod long_ops;
pub mod misc;
pub mod namedtuple;
pub mod num;
pub mod ops;
pub mod protocol;
pub mod range;
pub mod set;
pub mod slice;
pub mod slots;
pub mod str;
pub mod str_format;
pub mod str_more;
pub mod str_pred;
pub mod subclass;
pub mod tuple;
pub mod views;

#[cfg(test)]
mod tests;
#[cfg(test)]
pub mod testvm;

use std::cell::RefCell;
use std::rc::Rc;

use crate::object::{native, ClassSpec, Member};
use crate::value::{Class, ClassKind, ExcType, PyErr, PyResult, Value, ValueType};

pub use range::RangeObj;
pub use slice::{make_slice, slice_indices, SliceObj};

thread_local! {
    // Indexed by `ValueType as usize`: looked up on every method call, so no hashing.
    static BUILTIN: RefCell<Vec<Option<Rc<Class>>>> = const { RefCell::new(Vec::new()) };
}

/// The class object of a builtin type, created once per thread with its
/// methods and constructor (`builtin_class(ValueType::Str).lookup("split")`).
pub fn builtin_class(t: ValueType) -> Rc<Class> {
    if let Some(Some(c)) = BUILTIN.with(|m| m.borrow().get(t as usize).cloned()) {
        return c;
    }
    // The base is built first, with no borrow held (it may recurse).
    let base = match t {
        ValueType::Object => None,
        ValueType::Bool => Some(builtin_class(ValueType::Int)),
        _ => Some(builtin_class(ValueType::Object)),
    };
    let module = if t == ValueType::Tensor {
        "tensorflow.python.framework.ops"
    } else {
        "builtins"
    };
    let class = match t {
        ValueType::Object => crate::value::object::object_class(),
        _ => Class::new_builtin(t.name(), module, base, ClassKind::Builtin(t)),
    };
    let members: &[&[Member]] = match t {
        ValueType::Str => &[str::MEMBERS, str_more::MEMBERS, str_pred::MEMBERS],
        ValueType::List => &[list::MEMBERS],
        ValueType::Tuple => &[tuple::MEMBERS],
        ValueType::Dict => &[dict::MEMBERS],
        ValueType::Set => &[set::SET_MEMBERS],
        ValueType::FrozenSet => &[set::FROZENSET_MEMBERS],
        ValueType::Int => &[int::MEMBERS],
        ValueType::Bool => &[misc::BOOL_MEMBERS],
        ValueType::BoundMethod => &[misc::METHOD_MEMBERS],
        ValueType::Float => &[float::MEMBERS],
        ValueType::Bytes => &bytes::MEMBERS,
        ValueType::Object => &[misc::OBJECT_MEMBERS],
        ValueType::Type => &[misc::TYPE_MEMBERS],
        // NoneType, function, builtin_function_or_method and EagerTensor
        // have no methods registered here.
        _ => &[],
    };
    for m in members.iter().copied().flatten() {
        crate::object::spec::add_member(&class, m);
    }
    BUILTIN.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() <= t as usize {
            m.resize(t as usize + 1, None);
        }
        m[t as usize] = Some(class.clone());
    });
    class
}

/// The class of a native builtin type by name (`range`, `slice`, `enumerate`,
/// `zip`, `map`, `filter`, `reversed`, `complex`, `dict_keys`,
/// `list_iterator` …): the class of its [`ClassSpec`].
pub fn native_class(name: &str) -> Option<Rc<Class>> {
    native_spec(name).map(ClassSpec::class)
}

/// The static description of a native builtin type's class, by name.
fn native_spec(name: &str) -> Option<&'static ClassSpec> {
    Some(match name {
        "range" => &range::RANGE,
        "slice" => &slice::SLICE,
        "dict_keys" => &views::DICT_KEYS,
        "dict_values" => &views::DICT_VALUES,
        "dict_items" => &views::DICT_ITEMS,
        "bytearray" => &BYTEARRAY,
        "cell" => &misc::CELL,
        "complex" => &complex::COMPLEX,
        _ => return iter::iterator_spec(name),
    })
}

/// The class `bytearray`, which dist names but does not implement.
static BYTEARRAY: ClassSpec = ClassSpec {
    name: "bytearray",
    module: "builtins",
    bases: &[],
    members: &[Member::New(bytearray_new::DEF)],
};

/// Mutable byte arrays are not supported in dist (bytes are).
#[native("bytearray(source=b'', encoding=None, errors=None)", c_ctor)]
fn bytearray_new(_source: &Value, _encoding: &Value, _errors: &Value) -> PyResult<Value> {
    Err(PyErr::new(
        ExcType::NotImplementedError,
        "bytearray is not supported in dist; use bytes",
    ))
}

/// A builtin class method's result for the class it was called on: the
/// value itself for the builtin type, else `cls(value)` (CPython's
/// `int.from_bytes`, `float.fromhex`, `bytes.fromhex` on a subclass).
pub fn of_class(vm: &dyn crate::value::Vm, cls: &Value, value: Value) -> PyResult<Value> {
    match cls {
        Value::Class(c) if matches!(c.kind, ClassKind::Builtin(_)) => Ok(value),
        _ => vm.call(cls, vec![value], Vec::new()),
    }
}

/// The Python number a native object or a tensor stands for (numpy scalars,
/// 0-d tensors), for `int()`/`float()`; None when it stands for none.
pub fn number_of(vm: &dyn crate::value::Vm, x: &Value) -> PyResult<Option<Value>> {
    let v = match x {
        Value::Native(n) => n.to_number(vm)?,
        Value::Tensor(_) => crate::object::tensor::tensor_to_number(vm, x, false)?,
        _ => None,
    };
    Ok(v.filter(|v| matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_))))
}

/// The largest single allocation a script may ask for (8 GiB).
pub const MAX_ALLOC_BYTES: usize = 1 << 33;

/// The `MemoryError` CPython raises when an allocation fails (no message).
#[cold]
pub fn memory_error() -> PyErr {
    PyErr::with_args(ExcType::MemoryError, Vec::new())
}

/// Refuses an allocation of `count` items of `size` bytes beyond the cap
/// (`[0] * 10**12` raises MemoryError instead of aborting the process).
pub fn check_alloc(count: usize, size: usize) -> PyResult<()> {
    match count.checked_mul(size) {
        Some(n) if n <= MAX_ALLOC_BYTES => Ok(()),
        _ => Err(memory_error()),
    }
}

/// A vector with room for `count` values, or MemoryError.
pub fn alloc_vec<T>(count: usize) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, count)?;
    Ok(v)
}

/// Room for `extra` more items in `v`, or MemoryError: the growth points a
/// script controls go through here (or [`push`]), so a failed allocation is
/// an exception and never the process's abort.
pub fn reserve<T>(v: &mut Vec<T>, extra: usize) -> PyResult<()> {
    let total = v.len().checked_add(extra).ok_or_else(memory_error)?;
    check_alloc(total, std::mem::size_of::<T>().max(1))?;
    v.try_reserve(extra).map_err(|_| memory_error())
}

/// Pushes `x`, growing the vector fallibly (see [`reserve`]).
#[inline]
pub fn push<T>(v: &mut Vec<T>, x: T) -> PyResult<()> {
    if v.len() == v.capacity() {
        reserve(v, 1)?;
    }
    v.push(x);
    Ok(())
}

/// Appends `x` to `s`, growing it fallibly (MemoryError, never an abort):
/// the text a script's data decides the length of (`repr` of a container).
#[inline]
pub fn push_str(s: &mut String, x: &str) -> PyResult<()> {
    if s.capacity() - s.len() < x.len() {
        let total = s.len().checked_add(x.len()).ok_or_else(memory_error)?;
        check_alloc(total, 1)?;
        s.try_reserve(x.len()).map_err(|_| memory_error())?;
    }
    s.push_str(x);
    Ok(())
}

/// How many items iterating `v` gives, where that is known without running
/// it (CPython's `__length_hint__` for the builtin types): collecting a huge
/// `range` is a MemoryError up front, as in CPython, not a slow march to it.
pub fn length_hint(v: &Value) -> usize {
    match v {
        Value::Native(_) => v
            .downcast::<range::RangeObj>()
            .map_or(0, |r| usize::try_from(r.len_u64()).unwrap_or(usize::MAX)),
        _ => 0,
    }
}

/// The TypeError for a method called on the wrong type
/// (`descriptor 'upper' for 'str' objects doesn't apply to a 'int' object`).
#[cold]
pub fn descriptor_error(method: &str, owner: &str, got: &Value) -> PyErr {
    type_error(format!(
        "descriptor '{method}' for '{owner}' objects doesn't apply to a '{}' object",
        got.type_name()
    ))
}

/// A TypeError with a message.
#[cold]
pub fn type_error(msg: impl Into<String>) -> PyErr {
    PyErr::new(ExcType::TypeError, msg)
}

/// A ValueError with a message.
#[cold]
pub fn value_error(msg: impl Into<String>) -> PyErr {
    PyErr::new(ExcType::ValueError, msg)
}

/// CPython's OverflowError for an int past 64 bits where a machine-sized
/// one is needed (an index, a count, a size).
#[cold]
pub fn int_overflow() -> PyErr {
    PyErr::new(
        ExcType::OverflowError,
        "Python int too large to convert to C ssize_t",
    )
}

/// CPython's OverflowError for an int outside a C `int` (32 bits), where
/// a builtin takes one (`chr`, `str.expandtabs`).
#[cold]
pub fn c_int_overflow() -> PyErr {
    PyErr::new(
        ExcType::OverflowError,
        "Python int too large to convert to C int",
    )
}

/// `v` as a C `int` (`operator.index`, then 32 bits): CPython's
/// OverflowError past them.
pub fn c_int_arg(v: &Value, vm: &dyn crate::value::Vm) -> PyResult<i32> {
    match as_index_value(v, vm)? {
        Some(Value::Int(i)) => i32::try_from(i).map_err(|_| c_int_overflow()),
        Some(_) => Err(c_int_overflow()),
        None => Err(not_an_integer(v)),
    }
}

/// `v` as an index (`operator.index`), at most 64 bits: a bigger int is
/// CPython's OverflowError. See [`as_index_value`].
pub fn as_index(v: &Value, vm: &dyn crate::value::Vm) -> PyResult<Option<i64>> {
    match as_index_value(v, vm)? {
        Some(Value::Int(i)) => Ok(Some(i)),
        Some(_) => Err(int_overflow()),
        None => Ok(None),
    }
}

/// `v` as an int value of any size (`operator.index`): ints and bools;
/// natives that convert to an int; `__index__`. None when `v` is not one.
pub fn as_index_value(v: &Value, vm: &dyn crate::value::Vm) -> PyResult<Option<Value>> {
    if let Value::Instance(inst) = v {
        // An `int` subclass is its value, whatever `__index__` it defines
        // (CPython's `PyNumber_Index` takes any int as it is).
        if let Some(base @ (Value::Int(_) | Value::Long(_) | Value::Bool(_))) = inst.builtin_base()
        {
            return as_index_value(base, vm);
        }
    }
    Ok(match v {
        Value::Int(_) | Value::Long(_) => Some(v.clone()),
        Value::Bool(b) => Some(Value::Int(*b as i64)),
        Value::Native(n) => match n.to_number(vm)? {
            Some(i @ (Value::Int(_) | Value::Long(_))) => Some(i),
            _ => None,
        },
        Value::Tensor(_) => match crate::object::tensor::tensor_to_number(vm, v, true)? {
            Some(i @ Value::Int(_)) => Some(i),
            _ => None,
        },
        // An object whose class defines `__index__` (looked up on the type, as CPython).
        Value::Instance(inst) => match inst.class.lookup("__index__") {
            Some(m) => match vm.call(&m, vec![v.clone()], Vec::new())? {
                i @ (Value::Int(_) | Value::Long(_)) => Some(i),
                Value::Bool(b) => Some(Value::Int(b as i64)),
                other => return Err(index_not_int(&other)),
            },
            None => None,
        },
        _ => None,
    })
}

/// `v` as a big int of any size, or the TypeError `'float' object cannot
/// be interpreted as an integer`.
pub fn big_arg(v: &Value, vm: &dyn crate::value::Vm) -> PyResult<num_bigint::BigInt> {
    match as_index_value(v, vm)? {
        Some(Value::Int(i)) => Ok(i.into()),
        Some(Value::Long(b)) => Ok((*b).clone()),
        _ => Err(not_an_integer(v)),
    }
}

/// `v` as an integer or the TypeError `'float' object cannot be interpreted as an integer`.
pub fn int_arg(v: &Value, vm: &dyn crate::value::Vm) -> PyResult<i64> {
    as_index(v, vm)?.ok_or_else(|| not_an_integer(v))
}

/// `TypeError: __index__ returned non-int (type str)`.
#[cold]
pub fn index_not_int(got: &Value) -> PyErr {
    type_error(format!(
        "__index__ returned non-int (type {})",
        got.type_name()
    ))
}

/// `TypeError: 'float' object cannot be interpreted as an integer`.
#[cold]
pub fn not_an_integer(v: &Value) -> PyErr {
    type_error(format!(
        "'{}' object cannot be interpreted as an integer",
        v.type_name()
    ))
}
