//! Numeric builtins: `abs`, `round`, `divmod`, `pow`, `chr`, `ord`, `hex`,
//! `oct`, `bin`, on ints of any size.

use num_traits::Signed;

use crate::object::types::long::pow_mod;
use crate::object::types::num::{int_pow_mod, Num};
use crate::object::types::protocol::{divmod_values, num, round_value};
use crate::object::types::{big_arg, type_error, value_error};
use crate::object::{native, Given, NativeDef};
use crate::syntax::ast::BinOp;
use crate::value::{PyResult, Value, Vm};

pub(super) const FUNCTIONS: &[NativeDef] = &[
    abs::DEF,
    round::DEF,
    divmod::DEF,
    pow::DEF,
    chr::DEF,
    ord::DEF,
    hex::DEF,
    oct::DEF,
    bin::DEF,
];

/// The absolute value: `abs(-2) == 2`.
#[native("abs(x, /)", c)]
fn abs(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    match num(x) {
        Some(Num::I(i)) => Ok(Value::from_i128((i as i128).abs())),
        Some(Num::B(b)) => Ok(Value::from_big(b.abs())),
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

/// Rounds half to even, by the exact binary value: `round(2.5) == 2`; `round(2.675, 2) == 2.67`.
#[native("round(number, ndigits=None)", c)]
fn round(vm: &dyn Vm, number: &Value, ndigits: Given<&Value>) -> PyResult<Value> {
    round_value(vm, number, ndigits.0)
}

/// `(x // y, x % y)`: `divmod(7, -2) == (-4, -1)`.
#[native("divmod(x, y, /)", c)]
fn divmod(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Value> {
    divmod_values(vm, x, y)
}

/// `base ** exp`, or `base ** exp % mod` for ints: `pow(3, -1, 7) == 5`.
#[native("pow(base, exp, mod=None)", c)]
fn pow(vm: &dyn Vm, base: &Value, exp: &Value, mod_: &Value) -> PyResult<Value> {
    if mod_.is_none() {
        return vm.binop(BinOp::Pow, base, exp);
    }
    match (num(base), num(exp), num(mod_)) {
        (Some(Num::I(b)), Some(Num::I(e)), Some(Num::I(m))) => int_pow_mod(b, e, m),
        (Some(b), Some(e), Some(m)) => match (b.to_big(), e.to_big(), m.to_big()) {
            (Some(b), Some(e), Some(m)) => pow_mod(&b, &e, &m),
            _ => Err(type_error(
                "pow() 3rd argument not allowed unless all arguments are integers",
            )),
        },
        _ => Err(type_error(
            "pow() 3rd argument not allowed unless all arguments are integers",
        )),
    }
}

/// The character with code point `i`: `chr(97) == 'a'`.
#[native("chr(i, /)", c)]
fn chr(vm: &dyn Vm, i: &Value) -> PyResult<Value> {
    let i = crate::object::types::c_int_arg(i, vm)?;
    u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .map(Value::str)
        .ok_or_else(|| value_error("chr() arg not in range(0x110000)"))
}

/// The code point of a one-character string: `ord('a') == 97`.
#[native("ord(c, /)", c)]
fn ord(c: &Value) -> PyResult<i64> {
    match c.as_builtin() {
        Value::Str(s) => {
            let mut cs = s.chars();
            match (cs.next(), cs.next()) {
                (Some(ch), None) => Ok(ch as i64),
                _ => Err(type_error(format!(
                    "ord() expected a character, but string of length {} found",
                    s.chars().count()
                ))),
            }
        }
        Value::Bytes(b) if b.len() == 1 => Ok(b[0] as i64),
        Value::Bytes(b) => Err(type_error(format!(
            "ord() expected a character, but string of length {} found",
            b.len()
        ))),
        _ => Err(type_error(format!(
            "ord() expected string of length 1, but {} found",
            c.type_name()
        ))),
    }
}

fn radix(vm: &dyn Vm, number: &Value, prefix: &str, radix: u32) -> PyResult<String> {
    let i = big_arg(number, vm)?;
    let sign = if i.is_negative() { "-" } else { "" };
    Ok(format!(
        "{sign}{prefix}{}",
        i.magnitude().to_str_radix(radix)
    ))
}

/// An int in hexadecimal: `hex(255) == '0xff'`.
#[native("hex(number, /)", c)]
fn hex(vm: &dyn Vm, number: &Value) -> PyResult<String> {
    radix(vm, number, "0x", 16)
}

/// An int in octal: `oct(8) == '0o10'`.
#[native("oct(number, /)", c)]
fn oct(vm: &dyn Vm, number: &Value) -> PyResult<String> {
    radix(vm, number, "0o", 8)
}

/// An int in binary: `bin(5) == '0b101'`.
#[native("bin(number, /)", c)]
fn bin(vm: &dyn Vm, number: &Value) -> PyResult<String> {
    radix(vm, number, "0b", 2)
}
