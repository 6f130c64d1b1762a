//! Numeric builtins: `abs`, `round`, `divmod`, `pow`, `chr`, `ord`, `hex`,
//! `oct`, `bin`. Ints are 64-bit: results that do not fit raise OverflowError.

use super::Entry;
use crate::object::types::num::{float_divmod, int_pow_mod, Num};
use crate::object::types::{int_arg, int_overflow, type_error, value_error};
use crate::syntax::ast::BinOp;
use crate::value::format::{round_float, round_int, round_to_int};
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

pub(super) const FUNCTIONS: &[Entry] = &[
    ("abs(x, /)", abs, "The absolute value: `abs(-2) == 2`."),
    (
        "round(number, ndigits=None)",
        round,
        "Rounds half to even, by the exact binary value: `round(2.5) == 2`; `round(2.675, 2) == 2.67`.",
    ),
    ("divmod(x, y, /)", divmod, "`(x // y, x % y)`: `divmod(7, -2) == (-4, -1)`."),
    ("pow(base, exp, mod=None)", pow, "`base ** exp`, or `base ** exp % mod` for ints: `pow(3, -1, 7) == 5`."),
    ("chr(i, /)", chr, "The character with code point `i`: `chr(97) == 'a'`."),
    ("ord(c, /)", ord, "The code point of a one-character string: `ord('a') == 97`."),
    ("hex(number, /)", hex, "An int in hexadecimal: `hex(255) == '0xff'`."),
    ("oct(number, /)", oct, "An int in octal: `oct(8) == '0o10'`."),
    ("bin(number, /)", bin, "An int in binary: `bin(5) == '0b101'`."),
];

/// A number, or the number underneath an instance of an `int`/`float`
/// subclass (`round(Celsius(21.5))`).
fn num(v: &Value) -> Option<Num> {
    crate::object::types::num::num(v.as_builtin())
}

fn abs(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = a.get(0);
    match num(x) {
        Some(Num::I(i)) => Ok(Value::Int(i.checked_abs().ok_or_else(int_overflow)?)),
        Some(Num::F(f)) => Ok(Value::Float(f.abs())),
        None => match vm.getattr(x, "__abs__") {
            Ok(f) if matches!(x, Value::Instance(_) | Value::Native(_) | Value::Tensor(_)) => {
                vm.call(&f, Vec::new(), Vec::new())
            }
            _ => Err(type_error(format!(
                "bad operand type for abs(): '{}'",
                x.type_name()
            ))),
        },
    }
}

fn round(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    round_value(vm, a.get(0), a.was_given(1).then(|| a.get(1)))
}

/// `round(x, ndigits)`; `ndigits` None when not given.
pub fn round_value(vm: &dyn Vm, x: &Value, ndigits: Option<&Value>) -> PyResult<Value> {
    let nd = match ndigits.unwrap_or(&Value::None) {
        Value::None => None,
        v => Some(int_arg(v, vm)?),
    };
    match (num(x), nd) {
        (Some(Num::I(i)), None) => Ok(Value::Int(i)),
        (Some(Num::I(i)), Some(n)) => Ok(Value::Int(round_int(i, n)?)),
        (Some(Num::F(f)), None) => Ok(Value::Int(round_to_int(f)?)),
        (Some(Num::F(f)), Some(n)) => Ok(Value::Float(round_float(f, n)?)),
        (None, _) => match vm.getattr(x, "__round__") {
            Ok(f) if matches!(x, Value::Instance(_) | Value::Native(_) | Value::Tensor(_)) => {
                let args = ndigits.into_iter().cloned().collect();
                vm.call(&f, args, Vec::new())
            }
            _ => Err(type_error(format!(
                "type {} doesn't define __round__ method",
                x.type_name()
            ))),
        },
    }
}

fn divmod(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    divmod_values(vm, a.get(0), a.get(1))
}

/// `divmod(x, y)`.
pub fn divmod_values(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Value> {
    match (num(x), num(y)) {
        (Some(Num::I(p)), Some(Num::I(q))) => {
            if q == 0 {
                return Err(PyErr::new(
                    ExcType::ZeroDivisionError,
                    "integer division or modulo by zero",
                ));
            }
            let d = vm.binop(BinOp::FloorDiv, &Value::Int(p), &Value::Int(q))?;
            let m = vm.binop(BinOp::Mod, &Value::Int(p), &Value::Int(q))?;
            Ok(Value::tuple(vec![d, m]))
        }
        (Some(p), Some(q)) => {
            let (p, q) = (as_f(p), as_f(q));
            if q == 0.0 {
                return Err(PyErr::new(ExcType::ZeroDivisionError, "float divmod()"));
            }
            let (d, m) = float_divmod(p, q);
            Ok(Value::tuple(vec![Value::Float(d), Value::Float(m)]))
        }
        _ => {
            // `x.__divmod__(y)`, then the reflected `y.__rdivmod__(x)`;
            // NotImplemented from either passes on.
            for (this, other, name) in [(x, y, "__divmod__"), (y, x, "__rdivmod__")] {
                if matches!(this, Value::Instance(_) | Value::Native(_)) {
                    if let Ok(f) = vm.getattr(this, name) {
                        let r = vm.call(&f, vec![other.clone()], Vec::new())?;
                        if !r.is(&crate::object::descr::not_implemented()) {
                            return Ok(r);
                        }
                    }
                }
            }
            Err(type_error(format!(
                "unsupported operand type(s) for divmod(): '{}' and '{}'",
                x.type_name(),
                y.type_name()
            )))
        }
    }
}

fn as_f(n: Num) -> f64 {
    match n {
        Num::I(i) => i as f64,
        Num::F(f) => f,
    }
}

fn pow(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    if a.get(2).is_none() {
        return vm.binop(BinOp::Pow, a.get(0), a.get(1));
    }
    match (num(a.get(0)), num(a.get(1)), num(a.get(2))) {
        (Some(Num::I(b)), Some(Num::I(e)), Some(Num::I(m))) => {
            Ok(Value::Int(int_pow_mod(b, e, m)?))
        }
        _ => Err(type_error(
            "pow() 3rd argument not allowed unless all arguments are integers",
        )),
    }
}

fn chr(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let i = int_arg(a.get(0), vm)?;
    u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .map(Value::str)
        .ok_or_else(|| value_error("chr() arg not in range(0x110000)"))
}

fn ord(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.get(0).as_builtin() {
        Value::Str(s) => {
            let mut cs = s.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => Ok(Value::Int(c as i64)),
                _ => Err(type_error(format!(
                    "ord() expected a character, but string of length {} found",
                    s.chars().count()
                ))),
            }
        }
        Value::Bytes(b) if b.len() == 1 => Ok(Value::Int(b[0] as i64)),
        Value::Bytes(b) => Err(type_error(format!(
            "ord() expected a character, but string of length {} found",
            b.len()
        ))),
        _ => Err(type_error(format!(
            "ord() expected string of length 1, but {} found",
            a.get(0).type_name()
        ))),
    }
}

fn radix(vm: &dyn Vm, a: &Args, prefix: &str, f: fn(u64) -> String) -> PyResult<Value> {
    let i = int_arg(a.get(0), vm)?;
    let sign = if i < 0 { "-" } else { "" };
    Ok(Value::str(format!("{sign}{prefix}{}", f(i.unsigned_abs()))))
}

fn hex(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    radix(vm, a, "0x", |m| format!("{m:x}"))
}

fn oct(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    radix(vm, a, "0o", |m| format!("{m:o}"))
}

fn bin(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    radix(vm, a, "0b", |m| format!("{m:b}"))
}
