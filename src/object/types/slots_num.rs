//! The slot methods of numbers (`int`, `bool`, `float`): arithmetic
//! (`__add__`, `__rpow__` …, shared with the sequences and sets that
//! concatenate, repeat or combine), the unary operators, the conversions
//! (`__int__`, `__round__`, `__floor__` …) and `float.__getformat__`. The
//! table that gives each type its slots is in `slots`.

use super::{handles, operand};
use crate::object::descr::not_implemented;
use crate::object::native;
use crate::object::types::{not_an_integer, type_error, value_error};
use crate::syntax::ast::BinOp;
use crate::value::{PyResult, Value, Vm};

/// `x.__op__(y)` (reflected: `x.__rop__(y)`, which computes `y op x`).
fn arith(vm: &dyn Vm, op: BinOp, x: &Value, y: &Value, reflected: bool) -> PyResult<Value> {
    let y = &*operand(y);
    let sequence = matches!(
        x,
        Value::Str(_) | Value::Bytes(_) | Value::List(_) | Value::Tuple(_)
    );
    if sequence && op == BinOp::Mult && !handles(op, x, y) {
        // The repeat slot takes any index and says so.
        return Err(not_an_integer(y));
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

macro_rules! binary {
    ($($f:ident $sig:literal = $op:ident, $reflected:expr;)*) => {
        $(
            #[native($sig, c)]
            pub(super) fn $f(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
                arith(vm, BinOp::$op, this, value, $reflected)
            }
        )*
    };
}

binary! {
    add "object.__add__(self, value, /)" = Add, false;
    radd "object.__radd__(self, value, /)" = Add, true;
    sub "object.__sub__(self, value, /)" = Sub, false;
    rsub "object.__rsub__(self, value, /)" = Sub, true;
    mul "object.__mul__(self, value, /)" = Mult, false;
    rmul "object.__rmul__(self, value, /)" = Mult, true;
    truediv "object.__truediv__(self, value, /)" = Div, false;
    rtruediv "object.__rtruediv__(self, value, /)" = Div, true;
    floordiv "object.__floordiv__(self, value, /)" = FloorDiv, false;
    rfloordiv "object.__rfloordiv__(self, value, /)" = FloorDiv, true;
    modulo "object.__mod__(self, value, /)" = Mod, false;
    rmodulo "object.__rmod__(self, value, /)" = Mod, true;
    pow "object.__pow__(self, value, /)" = Pow, false;
    rpow "object.__rpow__(self, value, /)" = Pow, true;
    lshift "object.__lshift__(self, value, /)" = LShift, false;
    rlshift "object.__rlshift__(self, value, /)" = LShift, true;
    rshift "object.__rshift__(self, value, /)" = RShift, false;
    rrshift "object.__rrshift__(self, value, /)" = RShift, true;
    and "object.__and__(self, value, /)" = BitAnd, false;
    rand "object.__rand__(self, value, /)" = BitAnd, true;
    or "object.__or__(self, value, /)" = BitOr, false;
    ror "object.__ror__(self, value, /)" = BitOr, true;
    xor "object.__xor__(self, value, /)" = BitXor, false;
    rxor "object.__rxor__(self, value, /)" = BitXor, true;
}

// `"%s" % x` is the left operand's: the text types never take it reflected.
#[native("object.__rmod__(self, value, /)", c)]
pub(super) fn never_reflected(_this: &Value, _value: &Value) -> Value {
    not_implemented()
}

// `x * -1` keeps the sign of zero (`-0.0`) and raises on int overflow.
#[native("object.__neg__(self, /)", c)]
pub(super) fn neg(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    vm.binop(BinOp::Mult, this, &Value::Int(-1))
}

#[native("object.__pos__(self, /)", c)]
pub(super) fn pos(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    vm.binop(BinOp::Mult, this, &Value::Int(1))
}

#[native("object.__abs__(self, /)", c)]
pub(super) fn abs(this: &Value) -> PyResult<Value> {
    Ok(match this {
        Value::Float(x) => Value::Float(x.abs()),
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Int(i) => Value::from_i128((*i as i128).abs()),
        Value::Long(n) => Value::from_big(num_traits::Signed::abs(&**n)),
        other => other.clone(),
    })
}

#[native("object.__invert__(self, /)", c)]
pub(super) fn invert(this: &Value) -> Value {
    match this {
        Value::Int(i) => Value::Int(!i),
        Value::Long(n) => Value::from_big(!&**n),
        Value::Bool(b) => Value::Int(!(*b as i64)),
        other => other.clone(),
    }
}

#[native("object.__bool__(self, /)", c)]
pub(super) fn truth(this: bool) -> bool {
    this
}

#[native("object.__int__(self, /)", c)]
pub(super) fn to_int(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    let int = vm.type_of(&Value::Int(0));
    vm.call(&int, vec![this.clone()], Vec::new())
}

#[native("object.__float__(self, /)", c)]
pub(super) fn to_float(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    let float = vm.type_of(&Value::Float(0.0));
    vm.call(&float, vec![this.clone()], Vec::new())
}

#[native("object.__index__(self, /)", c)]
pub(super) fn index(this: &Value) -> Value {
    match this {
        Value::Bool(b) => Value::Int(*b as i64),
        other => other.clone(),
    }
}

/// `x.__divmod__(y)` (reflected: `y.__rdivmod__(x)`) as `divmod` computes it.
fn divmod_slot(vm: &dyn Vm, x: &Value, y: &Value, reflected: bool) -> PyResult<Value> {
    let y = &*operand(y);
    let x = x.as_builtin();
    if !handles(BinOp::FloorDiv, x, y) {
        return Ok(not_implemented());
    }
    let (p, q) = if reflected { (y, x) } else { (x, y) };
    crate::object::types::protocol::divmod_values(vm, p, q)
}

#[native("object.__divmod__(self, value, /)", c)]
pub(super) fn divmod(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    divmod_slot(vm, this, value, false)
}

#[native("object.__rdivmod__(self, value, /)", c)]
pub(super) fn rdivmod(vm: &dyn Vm, this: &Value, value: &Value) -> PyResult<Value> {
    divmod_slot(vm, this, value, true)
}

#[native("object.__round__(self, ndigits=None, /)", c)]
pub(super) fn round(vm: &dyn Vm, this: &Value, ndigits: &Value) -> PyResult<Value> {
    crate::object::types::protocol::round_value(vm, this.as_builtin(), Some(ndigits))
}

/// An int or bool as an int; a float rounded by `f` to one.
fn to_integral(v: &Value, f: fn(f64) -> f64) -> PyResult<Value> {
    Ok(match v.as_builtin() {
        Value::Float(x) => crate::value::round::float_to_int(f(*x))?,
        Value::Bool(b) => Value::Int(*b as i64),
        other => other.clone(),
    })
}

#[native("object.__trunc__(self, /)", c)]
pub(super) fn trunc(this: &Value) -> PyResult<Value> {
    to_integral(this, f64::trunc)
}

#[native("object.__floor__(self, /)", c)]
pub(super) fn floor(this: &Value) -> PyResult<Value> {
    to_integral(this, f64::floor)
}

#[native("object.__ceil__(self, /)", c)]
pub(super) fn ceil(this: &Value) -> PyResult<Value> {
    to_integral(this, f64::ceil)
}

// `float.__getformat__('double')`: how floats are stored (IEEE 754 here).
#[native("object.__getformat__(self, typestr, /)", c)]
pub(super) fn getformat(_this: &Value, typestr: &Value) -> PyResult<Value> {
    match typestr.as_builtin() {
        Value::Str(s) if matches!(s.as_str(), "double" | "float") => {
            Ok(Value::str("IEEE, little-endian"))
        }
        Value::Str(_) => Err(value_error(
            "__getformat__() argument 1 must be 'double' or 'float'",
        )),
        other => Err(type_error(format!(
            "__getformat__() argument must be str, not {}",
            other.type_name()
        ))),
    }
}
