//! The `Value` enum. Small values (`None`, bools, ints, floats) live inline;
//! everything else is a thin reference-counted pointer, so `Value` is 16 bytes.

use std::cell::RefCell;
use std::rc::Rc;

use super::dict::{Dict, SetObj};
use super::native::NativeObject;
use super::object::{BoundMethod, Class, Function, Instance, NativeFunction};
use crate::runtime::tensor::Tensor;

/// A Python value.
// `repr(u64)`: the tag is a whole word, so a `Value` (and the `PyResult`s and
// `Flow`s that hold one, 16 bytes too) moves as two aligned words. With a
// one-byte tag, results written by a callee were read back by the caller
// with overlapping unaligned loads that missed store forwarding (measured:
// the hottest instructions of the evaluator).
#[derive(Default)]
#[repr(u64)]
pub enum Value {
    /// `None`.
    #[default]
    None,
    /// `True`/`False`.
    Bool(bool),
    /// An int that fits in 64 bits (the fast, inline case).
    Int(i64),
    /// An int outside the 64-bit range, on the heap. Never holds a value
    /// that fits in an `i64`: results that fit come back as `Int` (see
    /// [`Value::from_big`]), so one int has one representation.
    Long(Rc<num_bigint::BigInt>),
    /// A float.
    Float(f64),
    /// An immutable string.
    Str(Rc<String>),
    /// An immutable byte string.
    Bytes(Rc<Vec<u8>>),
    /// A tuple.
    Tuple(Rc<Vec<Value>>),
    /// A list.
    List(Rc<RefCell<Vec<Value>>>),
    /// A dict (insertion-ordered).
    Dict(Rc<RefCell<Dict>>),
    /// A set or frozenset.
    Set(Rc<SetObj>),
    /// A user-defined function.
    Function(Rc<Function>),
    /// A function implemented in Rust (possibly bound to a receiver).
    NativeFunction(Rc<NativeFunction>),
    /// A user function bound to an instance.
    BoundMethod(Rc<BoundMethod>),
    /// A class: user classes, builtin types and exception classes alike.
    Class(Rc<Class>),
    /// An instance of a user class (exceptions included).
    Instance(Rc<Instance>),
    /// A TensorFlow eager tensor.
    Tensor(Tensor),
    /// Any other object implemented in Rust.
    Native(Rc<Box<dyn NativeObject>>),
}

const _: () = assert!(std::mem::size_of::<Value>() == 16);

// Cloning is written out so that the inline values (the common case in
// arithmetic and loop counters) copy without a call; the shared ones take
// the out-of-line path (a reference-count increment).
impl Clone for Value {
    #[inline(always)]
    fn clone(&self) -> Value {
        match self {
            Value::None => Value::None,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Float(x) => Value::Float(*x),
            _ => self.clone_shared(),
        }
    }
}

impl Value {
    /// Drops a value, first deciding with a range check on the tag (a
    /// branch that predicts well) that the inline kinds own nothing: the
    /// drop glue's jump table mispredicts when the kinds dropped alternate
    /// (a list and an int in a loop).
    #[inline(always)]
    pub fn discard(self) {
        if matches!(
            self,
            Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_)
        ) {
            std::mem::forget(self);
        } else {
            drop(self);
        }
    }

    #[inline(never)]
    fn clone_shared(&self) -> Value {
        match self {
            Value::None => Value::None,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Float(x) => Value::Float(*x),
            Value::Long(x) => Value::Long(x.clone()),
            Value::Str(x) => Value::Str(x.clone()),
            Value::Bytes(x) => Value::Bytes(x.clone()),
            Value::Tuple(x) => Value::Tuple(x.clone()),
            Value::List(x) => Value::List(x.clone()),
            Value::Dict(x) => Value::Dict(x.clone()),
            Value::Set(x) => Value::Set(x.clone()),
            Value::Function(x) => Value::Function(x.clone()),
            Value::NativeFunction(x) => Value::NativeFunction(x.clone()),
            Value::BoundMethod(x) => Value::BoundMethod(x.clone()),
            Value::Class(x) => Value::Class(x.clone()),
            Value::Instance(x) => Value::Instance(x.clone()),
            Value::Tensor(x) => Value::Tensor(x.clone()),
            Value::Native(x) => Value::Native(x.clone()),
        }
    }
}

/// The builtin types that have a `Value` variant of their own (or are native types
/// the interpreter knows by tag). Used to find a value's class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// `NoneType`.
    NoneType,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `str`.
    Str,
    /// `bytes`.
    Bytes,
    /// `tuple`.
    Tuple,
    /// `list`.
    List,
    /// `dict`.
    Dict,
    /// `set`.
    Set,
    /// `frozenset`.
    FrozenSet,
    /// `function`.
    Function,
    /// `builtin_function_or_method`.
    NativeFunction,
    /// `method`.
    BoundMethod,
    /// `type`.
    Type,
    /// `object`.
    Object,
    /// `tensorflow.python.framework.ops.EagerTensor`.
    Tensor,
}

impl ValueType {
    /// The Python name of the type (`int`, `NoneType`, `EagerTensor` …).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::NoneType => "NoneType",
            ValueType::Bool => "bool",
            ValueType::Int => "int",
            ValueType::Float => "float",
            ValueType::Str => "str",
            ValueType::Bytes => "bytes",
            ValueType::Tuple => "tuple",
            ValueType::List => "list",
            ValueType::Dict => "dict",
            ValueType::Set => "set",
            ValueType::FrozenSet => "frozenset",
            ValueType::Function => "function",
            ValueType::NativeFunction => "builtin_function_or_method",
            ValueType::BoundMethod => "method",
            ValueType::Type => "type",
            ValueType::Object => "object",
            ValueType::Tensor => "EagerTensor",
        }
    }
}

impl Value {
    /// A new string value.
    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(Rc::new(s.into()))
    }

    /// A new tuple value.
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(items))
    }

    /// A new list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    /// A new dict value.
    pub fn dict(d: Dict) -> Value {
        Value::Dict(Rc::new(RefCell::new(d)))
    }

    /// An int value: inline when it fits in 64 bits, else on the heap.
    pub fn from_big(n: num_bigint::BigInt) -> Value {
        match i64::try_from(&n) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Long(Rc::new(n)),
        }
    }

    /// An int value from an `i128` (inline when it fits).
    pub fn from_i128(n: i128) -> Value {
        match i64::try_from(n) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Long(Rc::new(n.into())),
        }
    }

    /// A native object value.
    pub fn native(obj: impl NativeObject) -> Value {
        Value::Native(Rc::new(Box::new(obj)))
    }

    /// The type tag of values that have a builtin type (None for instances,
    /// classes' metaclass is `Type`, natives report their own name elsewhere).
    pub fn value_type(&self) -> Option<ValueType> {
        Some(match self {
            Value::None => ValueType::NoneType,
            Value::Bool(_) => ValueType::Bool,
            Value::Int(_) | Value::Long(_) => ValueType::Int,
            Value::Float(_) => ValueType::Float,
            Value::Str(_) => ValueType::Str,
            Value::Bytes(_) => ValueType::Bytes,
            Value::Tuple(_) => ValueType::Tuple,
            Value::List(_) => ValueType::List,
            Value::Dict(_) => ValueType::Dict,
            Value::Set(s) => {
                if s.frozen {
                    ValueType::FrozenSet
                } else {
                    ValueType::Set
                }
            }
            Value::Function(_) => ValueType::Function,
            Value::NativeFunction(_) => ValueType::NativeFunction,
            Value::BoundMethod(_) => ValueType::BoundMethod,
            Value::Class(_) => ValueType::Type,
            Value::Tensor(_) => ValueType::Tensor,
            Value::Instance(_) | Value::Native(_) => return None,
        })
    }

    /// The Python type name, as used in error messages (`'int' object is not callable`).
    pub fn type_name(&self) -> String {
        match self {
            Value::Instance(i) if i.class.hooks.get() & super::Class::HOOK_C_TYPE != 0 => {
                format!("{}.{}", i.class.module, i.class.name)
            }
            Value::Instance(i) => i.class.name.to_string(),
            Value::Native(n) => n.type_name().to_string(),
            other => other
                .value_type()
                .map(|t| t.name())
                .unwrap_or("object")
                .to_string(),
        }
    }

    /// Identity comparison (`is`).
    pub fn is(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::None, Value::None) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Long(a), Value::Long(b)) => Rc::ptr_eq(a, b),
            (Value::Str(a), Value::Str(b)) => Rc::ptr_eq(a, b) || (a.len() <= 1 && a == b),
            (Value::Bytes(a), Value::Bytes(b)) => Rc::ptr_eq(a, b),
            (Value::Tuple(a), Value::Tuple(b)) => {
                Rc::ptr_eq(a, b) || (a.is_empty() && b.is_empty())
            }
            (Value::List(a), Value::List(b)) => Rc::ptr_eq(a, b),
            (Value::Dict(a), Value::Dict(b)) => Rc::ptr_eq(a, b),
            (Value::Set(a), Value::Set(b)) => Rc::ptr_eq(a, b),
            (Value::Function(a), Value::Function(b)) => Rc::ptr_eq(a, b),
            (Value::NativeFunction(a), Value::NativeFunction(b)) => Rc::ptr_eq(a, b),
            (Value::BoundMethod(a), Value::BoundMethod(b)) => Rc::ptr_eq(a, b),
            (Value::Class(a), Value::Class(b)) => Rc::ptr_eq(a, b),
            (Value::Instance(a), Value::Instance(b)) => Rc::ptr_eq(a, b),
            (Value::Tensor(a), Value::Tensor(b)) => a.ptr_eq(b),
            (Value::Native(a), Value::Native(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The builtin value underneath an instance of a subclass of a builtin
    /// type (`class Upper(str)`), else the value itself: for natives that
    /// take any `str` (`"-".join([upper, ...])`).
    #[inline]
    pub fn as_builtin(&self) -> &Value {
        match self {
            Value::Instance(i) => i.builtin_base().unwrap_or(self),
            _ => self,
        }
    }

    /// An identity number for `id()` and default hashes/reprs (`at 0x…`).
    pub fn id(&self) -> usize {
        match self {
            Value::Str(r) => Rc::as_ptr(r) as usize,
            Value::Long(r) => Rc::as_ptr(r) as usize,
            Value::Bytes(r) => Rc::as_ptr(r) as usize,
            Value::Tuple(r) => Rc::as_ptr(r) as usize,
            Value::List(r) => Rc::as_ptr(r) as usize,
            Value::Dict(r) => Rc::as_ptr(r) as usize,
            Value::Set(r) => Rc::as_ptr(r) as usize,
            Value::Function(r) => Rc::as_ptr(r) as usize,
            Value::NativeFunction(r) => Rc::as_ptr(r) as usize,
            Value::BoundMethod(r) => Rc::as_ptr(r) as usize,
            Value::Class(r) => Rc::as_ptr(r) as usize,
            Value::Instance(r) => Rc::as_ptr(r) as usize,
            Value::Tensor(t) => t.storage() as *const _ as usize,
            Value::Native(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::None => 0x9a_0000,
            Value::Bool(b) => 0x9b_0000 + *b as usize,
            Value::Int(i) => *i as usize,
            Value::Float(f) => f.to_bits() as usize,
        }
    }

    /// Downcasts a native object to its Rust type.
    pub fn downcast<T: NativeObject>(&self) -> Option<&T> {
        match self {
            Value::Native(n) => n.as_any().downcast_ref::<T>(),
            _ => None,
        }
    }

    /// True for `None`.
    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::None => write!(f, "None"),
            Value::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::Long(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Tuple(t) => f.debug_tuple("").field(&**t).finish(),
            Value::List(l) => f.debug_list().entries(l.borrow().iter()).finish(),
            other => write!(f, "<{} object>", other.type_name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
        assert_eq!(std::mem::size_of::<crate::value::PyResult<Value>>(), 16);
        assert_eq!(std::mem::size_of::<Option<Value>>(), 16);
    }
}
