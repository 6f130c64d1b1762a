//! How a Rust function becomes a Python native: the record `#[native]`
//! generates ([`NativeDef`]), the conversion of each bound argument to the
//! Rust parameter's type ([`FromArg`]) and of the result back to a value
//! ([`IntoResult`], [`IntoValue`]). The binder (`Signature::bind`) has run
//! before any of this: a conversion only ever sees one bound argument.
//!
//! Conversion errors are worded as CPython's argument parsing words them
//! (`'str' object cannot be interpreted as an integer`, `must be real
//! number, not str`); a native whose message differs takes `&Value` and
//! converts with the helper that gives its own words.

use std::rc::Rc;

use crate::object::types::{int_overflow, not_an_integer, type_error};
use crate::value::{
    Args, Class, NativeFn, NativeFunction, NativeObject, PyErr, PyResult, Signature, Value, Vm,
};

pub use dist_macros::native;

/// Whose argument-count messages a native gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigStyle {
    /// A Python function's (`f() missing 1 required positional argument: 'x'`).
    Python,
    /// A builtin CPython writes in C (`len() takes exactly one argument (0 given)`).
    Builtin,
    /// A builtin type's constructor written in C.
    BuiltinCtor,
}

/// A native as `#[native]` declares it: registration turns it into a
/// function object ([`NativeDef::function`]).
#[derive(Clone, Copy)]
pub struct NativeDef {
    /// The Python signature (`"getenv(key, default=None)"`).
    pub sig: &'static str,
    /// The parameter names the Rust function was checked against: a native
    /// registered again under another signature (`NativeDef { sig, ..DEF }`,
    /// where TensorFlow names a parameter differently in another class) must
    /// keep their number and order (checked when its function object is
    /// made, in debug builds, so every test that touches it checks it).
    pub params: &'static [&'static str],
    /// The wrapper that converts the bound arguments and calls the Rust function.
    pub func: NativeFn,
    /// The `///` documentation (`__doc__`, `help()`).
    pub doc: &'static str,
    /// Whose argument-count messages it gives.
    pub style: SigStyle,
}

impl NativeDef {
    /// The same native under another Python signature (a renamed alias, a
    /// method of another class). The signature must name as many parameters
    /// as the Rust function takes; that is checked when the constant is
    /// evaluated, so a mismatch does not compile.
    pub const fn renamed(self, sig: &'static str) -> NativeDef {
        assert!(
            param_count(sig) == self.params.len(),
            "a renamed native's signature must name as many parameters as its Rust function takes"
        );
        NativeDef { sig, ..self }
    }

    /// The same native with another `__doc__`.
    pub const fn documented(self, doc: &'static str) -> NativeDef {
        NativeDef { doc, ..self }
    }

    /// A new (unbound) function object.
    pub fn function(&self) -> Rc<NativeFunction> {
        let sig = Signature::parse(self.sig);
        debug_assert!(
            sig.params.len() == self.params.len(),
            "`{}` does not have as many parameters as {:?}, which its Rust function takes",
            self.sig,
            self.params
        );
        let sig = match self.style {
            SigStyle::Python => sig,
            SigStyle::Builtin => sig.c_builtin(false),
            SigStyle::BuiltinCtor => sig.c_builtin(true),
        };
        NativeFunction::from_signature(sig, self.func, self.doc)
    }

    /// The function object as a value.
    pub fn value(&self) -> Value {
        Value::NativeFunction(self.function())
    }

    /// The name it is registered under: the last component of the signature's name.
    pub fn name(&self) -> &'static str {
        let head = self.sig.split('(').next().unwrap_or(self.sig);
        head.rsplit('.').next().unwrap_or(head).trim()
    }
}

/// Where an argument is converted, for messages.
pub struct ArgCtx {
    /// The signature's name (`str.split`, `getenv`).
    pub func: &'static str,
    /// The parameter's name.
    pub param: &'static str,
}

impl ArgCtx {
    /// The function's short name (`split` of `str.split`).
    pub fn short(&self) -> &'static str {
        self.func.rsplit('.').next().unwrap_or(self.func)
    }

    /// The class part of a method's name (`str` of `str.split`), if any.
    pub fn owner(&self) -> Option<&'static str> {
        self.func.rsplit_once('.').map(|(o, _)| o)
    }

    /// `split() argument 'sep' must be str, not int`; for the receiver of a
    /// builtin type's method, CPython's `descriptor 'split' for 'str'
    /// objects doesn't apply to a 'int' object`.
    #[cold]
    pub fn must_be(&self, what: &str, got: &Value) -> PyErr {
        if self.param == "self" {
            if let Some(owner) = self.owner() {
                return type_error(format!(
                    "descriptor '{}' for '{owner}' objects doesn't apply to a '{}' object",
                    self.short(),
                    got.type_name()
                ));
            }
        }
        type_error(format!(
            "{}() argument '{}' must be {what}, not {}",
            self.short(),
            self.param,
            got.type_name()
        ))
    }
}

/// A Rust parameter type a bound argument converts to.
pub trait FromArg<'a>: Sized {
    /// Converts argument `i` of `args`.
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self>;
}

impl<'a> FromArg<'a> for &'a Value {
    #[inline]
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        Ok(args.get(i))
    }
}

impl<'a> FromArg<'a> for Value {
    #[inline]
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        Ok(args.get(i).clone())
    }
}

/// An int (a bool counts; an int subclass converts as its value). As the
/// receiver of a method (`int.bit_length(self)`), the wrong type gets the
/// descriptor message; an int past 64 bits is CPython's OverflowError
/// (`Python int too large to convert to C ssize_t`).
impl<'a> FromArg<'a> for i64 {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        let v = args.get(i);
        match v.as_builtin() {
            Value::Int(n) => Ok(*n),
            Value::Bool(b) => Ok(*b as i64),
            _ if cx.param == "self" => Err(cx.must_be("int", v)),
            Value::Long(_) => Err(int_overflow()),
            _ => Err(not_an_integer(v)),
        }
    }
}

/// An int of any size (a bool counts; an int subclass converts as its
/// value); as a method's receiver, the descriptor message for other types.
impl<'a> FromArg<'a> for num_bigint::BigInt {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        let v = args.get(i);
        match v.as_builtin() {
            Value::Int(n) => Ok((*n).into()),
            Value::Long(n) => Ok((**n).clone()),
            Value::Bool(b) => Ok((*b as i64).into()),
            _ if cx.param == "self" => Err(cx.must_be("int", v)),
            _ => Err(not_an_integer(v)),
        }
    }
}

/// A float (ints and bools convert). The receiver of a method
/// (`float.hex(self)`) must be a float itself, else the descriptor message.
impl<'a> FromArg<'a> for f64 {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        let v = args.get(i);
        match v.as_builtin() {
            Value::Float(f) => Ok(*f),
            _ if cx.param == "self" => Err(cx.must_be("float", v)),
            Value::Int(n) => Ok(*n as f64),
            Value::Long(n) => crate::object::types::long::to_f64(n),
            Value::Bool(b) => Ok(*b as i64 as f64),
            _ => Err(type_error(format!(
                "must be real number, not {}",
                v.type_name()
            ))),
        }
    }
}

/// Python truth (`__bool__`, `__len__`).
impl<'a> FromArg<'a> for bool {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        match args.get(i) {
            Value::Bool(b) => Ok(*b),
            v => vm.truthy(v),
        }
    }
}

/// A str (a str subclass converts as its value).
impl<'a> FromArg<'a> for &'a str {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        let v = args.get(i);
        match v.as_builtin() {
            Value::Str(s) => Ok(s.as_str()),
            _ => Err(cx.must_be("str", v)),
        }
    }
}

impl<'a> FromArg<'a> for Rc<String> {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        let v = args.get(i);
        match v.as_builtin() {
            Value::Str(s) => Ok(s.clone()),
            _ => <&str>::from_arg(vm, args, i, cx).map(|s| Rc::new(s.to_string())),
        }
    }
}

impl<'a> FromArg<'a> for String {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        <&str>::from_arg(vm, args, i, cx).map(str::to_string)
    }
}

/// Implements [`FromArg`] for a reference to the payload of one `Value`
/// variant (a builtin subclass's instance converts as its value).
macro_rules! from_variant {
    ($(#[$doc:meta])* $ty:ty, $variant:ident, $what:literal) => {
        $(#[$doc])*
        impl<'a> FromArg<'a> for &'a $ty {
            #[inline]
            fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
                let v = args.get(i);
                match v.as_builtin() {
                    Value::$variant(x) => Ok(x),
                    _ => Err(cx.must_be($what, v)),
                }
            }
        }
    };
}

from_variant!(
    /// A str as the shared string (to return it unchanged).
    Rc<String>, Str, "str"
);
from_variant!(
    /// A bytes object.
    Rc<Vec<u8>>, Bytes, "bytes"
);
from_variant!(
    /// A tuple.
    Rc<Vec<Value>>, Tuple, "tuple"
);
from_variant!(
    /// A list.
    Rc<std::cell::RefCell<Vec<Value>>>, List, "list"
);
from_variant!(
    /// A dict.
    Rc<std::cell::RefCell<crate::value::Dict>>, Dict, "dict"
);
from_variant!(
    /// A set or frozenset.
    Rc<crate::value::dict::SetObj>, Set, "set"
);

/// A class (`cls` of a class method, a type argument).
impl<'a> FromArg<'a> for &'a Rc<Class> {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        match args.get(i) {
            Value::Class(c) => Ok(c),
            v => Err(cx.must_be("a type", v)),
        }
    }
}

/// `None` as Rust's None; anything else converts as `T`.
impl<'a, T: FromArg<'a>> FromArg<'a> for Option<T> {
    #[inline]
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        match args.get(i) {
            Value::None => Ok(None),
            _ => T::from_arg(vm, args, i, cx).map(Some),
        }
    }
}

/// A parameter whose absence differs from any value passed (`dict.pop(k)`
/// against `dict.pop(k, None)`): None when the caller left it out.
pub struct Given<T>(pub Option<T>);

impl<'a, T: FromArg<'a>> FromArg<'a> for Given<T> {
    #[inline]
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        if !args.was_given(i) {
            return Ok(Given(None));
        }
        T::from_arg(vm, args, i, cx).map(|t| Given(Some(t)))
    }
}

/// A `*args` parameter: the extra positional arguments.
impl<'a> FromArg<'a> for &'a [Value] {
    #[inline]
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        Ok(args.varargs(i))
    }
}

/// A `**kwargs` parameter: the extra keyword arguments, in call order.
pub struct Kwargs(pub Vec<(Rc<str>, Value)>);

impl<'a> FromArg<'a> for Kwargs {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        Ok(Kwargs(args.keywords(i)))
    }
}

/// A Rust type that is a Python class of its own: its instances are
/// `Value::Native`, and a parameter `&T` receives the object itself.
pub trait NativeClass: NativeObject + Sized {
    /// The class's static description (what `NativeObject::spec` returns).
    const SPEC: &'static super::ClassSpec;
}

/// A native object of type `T`; the receiver of its methods (`self`) gets
/// CPython's "descriptor ... doesn't apply" message when it is not one.
impl<'a, T: NativeClass> FromArg<'a> for &'a T {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        let v = args.get(i);
        match v.downcast::<T>() {
            Some(t) => Ok(t),
            None => Err(wrong_native(cx, T::SPEC.name, v)),
        }
    }
}

/// The receiver as a value together with the native object it is (for
/// methods that return or store `self`).
pub struct This<'a, T> {
    /// The value (`self`).
    pub value: &'a Value,
    /// The object it wraps.
    pub obj: &'a T,
}

impl<T> std::ops::Deref for This<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.obj
    }
}

impl<'a, T: NativeClass> FromArg<'a> for This<'a, T> {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        Ok(This {
            value: args.get(i),
            obj: <&T>::from_arg(vm, args, i, cx)?,
        })
    }
}

#[cold]
fn wrong_native(cx: &ArgCtx, expected: &str, got: &Value) -> PyErr {
    if cx.param == "self" {
        return type_error(format!(
            "descriptor '{}' for '{}' objects doesn't apply to a '{}' object",
            cx.short(),
            cx.owner().unwrap_or(expected),
            got.type_name()
        ));
    }
    cx.must_be(expected, got)
}

/// A Rust value a native returns.
pub trait IntoValue {
    /// The Python value.
    fn into_value(self) -> Value;
}

/// Implements [`IntoValue`] for types that each make one kind of value.
macro_rules! into_value {
    ($($(#[$doc:meta])* $ty:ty: $x:ident => $value:expr;)*) => {$(
        $(#[$doc])*
        impl IntoValue for $ty {
            #[inline]
            fn into_value(self) -> Value {
                let $x = self;
                $value
            }
        }
    )*};
}

into_value! {
    Value: v => v;
    (): _unit => Value::None;
    bool: b => Value::Bool(b);
    i64: i => Value::Int(i);
    /// An int, inline when it fits in 64 bits.
    num_bigint::BigInt: n => Value::from_big(n);
    usize: n => Value::Int(n as i64);
    f64: x => Value::Float(x);
    String: s => Value::str(s);
    &str: s => Value::str(s);
    Rc<String>: s => Value::Str(s);
    /// A list.
    Vec<Value>: items => Value::list(items);
    crate::runtime::Tensor: t => Value::Tensor(t);
}

/// Rust's None is Python's.
impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        match self {
            Some(v) => v.into_value(),
            None => Value::None,
        }
    }
}

/// What a native's Rust function returns: a value, or a result of one.
pub trait IntoResult {
    /// The native's result.
    fn into_result(self) -> PyResult<Value>;
}

impl<T: IntoValue> IntoResult for PyResult<T> {
    #[inline]
    fn into_result(self) -> PyResult<Value> {
        self.map(IntoValue::into_value)
    }
}

impl<T: IntoValue> IntoResult for T {
    #[inline]
    fn into_result(self) -> PyResult<Value> {
        Ok(self.into_value())
    }
}

/// The number of parameters `sig` names (`name(a, b=(1, 2), *, c)` has three:
/// the markers `/` and `*` are not parameters), read at compile time the way
/// the `#[native]` macro and `Signature::parse` read it.
const fn param_count(sig: &str) -> usize {
    let b = sig.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] != b'(' {
        i += 1;
    }
    let (mut depth, mut quote, mut escaped) = (0i32, 0u8, false);
    let (mut count, mut item_len, mut marker) = (0, 0, false);
    i += 1;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if quote != 0 {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == quote {
                quote = 0;
            }
            continue;
        }
        let end = depth == 0 && (c == b',' || c == b')');
        if end {
            // an item is a parameter unless it is empty or a bare marker
            if item_len > 0 && !(item_len == 1 && marker) {
                count += 1;
            }
            (item_len, marker) = (0, false);
            if c == b')' {
                break;
            }
            continue;
        }
        match c {
            b'\'' | b'"' => quote = c,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            if item_len == 0 {
                marker = c == b'/' || c == b'*';
            }
            item_len += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::param_count;

    #[test]
    fn param_count_reads_signatures_as_the_macro_does() {
        assert_eq!(param_count("f()"), 0);
        assert_eq!(param_count("f(self)"), 1);
        assert_eq!(param_count("f(a, /, b, *, c=None)"), 3);
        assert_eq!(param_count("f(*args, **kwargs)"), 2);
        assert_eq!(
            param_count("f(a=(1, 2), b=[3, {4: 5}], c='x,)', d=\"\\\",\")"),
            4
        );
        assert_eq!(param_count("T.m(self, other, /)"), 2);
    }
}
