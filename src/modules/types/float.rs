//! `float`: the constructor (strings with `inf`/`nan`/underscores, numbers
//! with `__float__`) and the common methods.

use super::{add_method, add_new, descriptor_error, int_overflow, type_error, value_error};
use crate::value::format::str_repr;
use crate::value::{Args, Class, ExcType, PyErr, PyResult, Value, Vm};

/// Registers `float`'s constructor and methods.
pub fn register(c: &Class) {
    add_new(
        c,
        "float(x=0.0, /)",
        float_new,
        "A float from a number or a string: `float('1e-3') == 0.001`; `float('inf')`.",
    );
    add_method(
        c,
        "float.is_integer(self)",
        is_integer,
        "Whether the float has no fractional part.",
    );
    add_method(
        c,
        "float.as_integer_ratio(self)",
        as_integer_ratio,
        "The exact `(numerator, denominator)` of the float.",
    );
    add_method(
        c,
        "float.hex(self)",
        hex,
        "The exact value in hexadecimal: `(1.5).hex() == '0x1.8000000000000p+0'`.",
    );
    add_method(c, "float.conjugate(self)", conjugate, "The float itself.");
}

fn this(a: &Args, name: &str) -> PyResult<f64> {
    match a.get(0) {
        Value::Float(x) => Ok(*x),
        other => Err(descriptor_error(name, "float", other)),
    }
}

/// Parses a float literal as `float(text)` does.
pub fn parse_float(text: &str) -> PyResult<f64> {
    let bad = || {
        value_error(format!(
            "could not convert string to float: {}",
            str_repr(text)
        ))
    };
    let s = text.trim_matches(super::str::is_space);
    let b = s.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if *c == b'_' {
            let ok =
                i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !ok {
                return Err(bad());
            }
        }
    }
    let cleaned: String = s.chars().filter(|c| *c != '_').collect();
    let lower = cleaned.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if lower.len() - unsigned.len() > 1 {
        return Err(bad());
    }
    let special = matches!(unsigned, "inf" | "infinity" | "nan");
    let numeric = !unsigned.is_empty()
        && unsigned
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'));
    if !special && !numeric {
        return Err(bad());
    }
    cleaned.parse::<f64>().map_err(|_| bad())
}

fn float_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    to_float(vm, a.get(0)).map(Value::Float)
}

/// `float(x)` for one argument.
pub fn to_float(vm: &dyn Vm, x: &Value) -> PyResult<f64> {
    match x {
        Value::Float(f) => Ok(*f),
        Value::Int(i) => Ok(*i as f64),
        Value::Bool(b) => Ok(*b as i64 as f64),
        Value::Str(s) => parse_float(s),
        Value::Native(_) | Value::Tensor(_) => match super::number_of(vm, x)? {
            Some(v) => to_float(vm, &v),
            None => Err(not_a_number(x)),
        },
        Value::Instance(_) => {
            for name in ["__float__", "__index__"] {
                if let Ok(f) = vm.getattr(x, name) {
                    return match vm.call(&f, Vec::new(), Vec::new())? {
                        Value::Float(f) => Ok(f),
                        Value::Int(i) if name == "__index__" => Ok(i as f64),
                        other => Err(type_error(format!(
                            "{}.{name} returned non-float (type {})",
                            x.type_name(),
                            other.type_name()
                        ))),
                    };
                }
            }
            Err(not_a_number(x))
        }
        _ => Err(not_a_number(x)),
    }
}

#[cold]
fn not_a_number(x: &Value) -> PyErr {
    type_error(format!(
        "float() argument must be a string or a real number, not '{}'",
        x.type_name()
    ))
}

fn is_integer(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = this(a, "is_integer")?;
    Ok(Value::Bool(x.is_finite() && x.fract() == 0.0))
}

fn as_integer_ratio(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = this(a, "as_integer_ratio")?;
    if x.is_nan() {
        return Err(value_error("cannot convert NaN to integer ratio"));
    }
    if x.is_infinite() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "cannot convert Infinity to integer ratio",
        ));
    }
    let (n, d) = float_ratio(x).ok_or_else(int_overflow)?;
    Ok(Value::tuple(vec![Value::Int(n), Value::Int(d)]))
}

/// The exact ratio of a finite float, if both parts fit in 64 bits.
pub fn float_ratio(x: f64) -> Option<(i64, i64)> {
    if x == 0.0 {
        return Some((0, 1));
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1 << 52) - 1);
    let (mut mant, mut e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp - 1075)
    };
    let tz = mant.trailing_zeros() as i64;
    mant >>= tz;
    e += tz;
    let sign = if x < 0.0 { -1 } else { 1 };
    if e >= 0 {
        let n = (mant as i64).checked_mul(1i64.checked_shl(e as u32).filter(|_| e < 63)?)?;
        Some((sign * n, 1))
    } else if -e < 63 {
        Some((sign * mant as i64, 1i64 << (-e)))
    } else {
        None
    }
}

fn hex(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = this(a, "hex")?;
    if !x.is_finite() {
        return Ok(Value::str(crate::value::format::float_repr(x)));
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return Ok(Value::str(format!("{sign}0x0.0p+0")));
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1 << 52) - 1);
    let (lead, e) = if exp == 0 {
        (0, -1022)
    } else {
        (1, exp - 1023)
    };
    let e_sign = if e < 0 { '-' } else { '+' };
    Ok(Value::str(format!(
        "{sign}0x{lead}.{frac:013x}p{e_sign}{}",
        e.abs()
    )))
}

fn conjugate(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Float(this(a, "conjugate")?))
}
