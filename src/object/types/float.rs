//! `float`: the constructor (strings with `inf`/`nan`/underscores, numbers
//! with `__float__`) and the common methods.

use super::{type_error, value_error};
use crate::object::{native, Member};
use crate::value::format::str_repr;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `float`'s constructor, methods and properties.
pub static MEMBERS: &[Member] = &[
    Member::New(float_new::DEF),
    Member::Method(is_integer::DEF),
    Member::Method(as_integer_ratio::DEF),
    Member::Method(hex::DEF),
    Member::Method(conjugate::DEF),
    Member::ClassMethod(fromhex::DEF),
    Member::Getter(real::DEF),
    Member::Getter(imag::DEF),
];

/// The float itself.
#[native("float.real(self)")]
fn real(this: f64) -> f64 {
    this
}

/// Always 0.0.
#[native("float.imag(self)")]
fn imag(_this: f64) -> f64 {
    0.0
}

/// Parses a float literal as `float(text)` does.
pub fn parse_float(text: &str) -> PyResult<f64> {
    let bad = || {
        value_error(format!(
            "could not convert string to float: {}",
            str_repr(text)
        ))
    };
    let converted = super::int::ascii_digits(text);
    let s = converted.trim_matches(super::str::is_space);
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
    cleaned.parse::<f64>().map(distinct_nan).map_err(|_| bad())
}

thread_local! {
    static NAN_SERIAL: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Each `float('nan')` is a new object in CPython, and containers and dicts
/// compare by identity before equality (`x in [x]` is True, a second
/// `float('nan')` is not in it). dist's floats are inline values whose
/// identity is their bits, so each parsed NaN gets a payload of its own.
pub fn distinct_nan(x: f64) -> f64 {
    if !x.is_nan() {
        return x;
    }
    let n = NAN_SERIAL.with(|c| {
        let n = c.get().wrapping_add(1) & 0x0007_ffff_ffff_ffff;
        c.set(n);
        n
    });
    let sign = x.to_bits() & (1 << 63);
    f64::from_bits(sign | 0x7ff8_0000_0000_0000 | n)
}

/// A float from a number or a string: `float('1e-3') == 0.001`; `float('inf')`.
#[native("float(x=0.0, /)", c_ctor)]
fn float_new(vm: &dyn Vm, x: &Value) -> PyResult<f64> {
    to_float(vm, x)
}

/// `float(x)` for one argument.
pub fn to_float(vm: &dyn Vm, x: &Value) -> PyResult<f64> {
    match x {
        Value::Float(f) => Ok(*f),
        Value::Int(i) => Ok(*i as f64),
        Value::Long(n) => super::long::to_f64(n),
        Value::Bool(b) => Ok(*b as i64 as f64),
        Value::Str(s) => parse_float(s),
        // CPython parses bytes as ASCII text; the error shows the bytes.
        Value::Bytes(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| parse_float(s).ok())
            .ok_or_else(|| {
                value_error(format!(
                    "could not convert string to float: {}",
                    crate::value::format::bytes_repr(b)
                ))
            }),
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
                        Value::Long(n) if name == "__index__" => super::long::to_f64(&n),
                        other => Err(type_error(format!(
                            "{}.{name} returned non-float (type {})",
                            x.type_name(),
                            other.type_name()
                        ))),
                    };
                }
            }
            match x.as_builtin() {
                Value::Instance(_) => Err(not_a_number(x)),
                base => to_float(vm, base),
            }
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

/// Whether the float has no fractional part.
#[native("float.is_integer(self)", c)]
fn is_integer(this: f64) -> bool {
    this.is_finite() && this.fract() == 0.0
}

/// The exact `(numerator, denominator)` of the float.
#[native("float.as_integer_ratio(self)", c)]
fn as_integer_ratio(this: f64) -> PyResult<Value> {
    let x = this;
    if x.is_nan() {
        return Err(value_error("cannot convert NaN to integer ratio"));
    }
    if x.is_infinite() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "cannot convert Infinity to integer ratio",
        ));
    }
    let (n, d) = float_ratio(x);
    Ok(Value::tuple(vec![Value::from_big(n), Value::from_big(d)]))
}

/// The exact ratio of a finite float, in lowest terms (denominator a
/// power of two).
pub fn float_ratio(x: f64) -> (num_bigint::BigInt, num_bigint::BigInt) {
    use num_bigint::BigInt;
    if x == 0.0 || !x.is_finite() {
        return (BigInt::from(0), BigInt::from(1));
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
    let n = BigInt::from(mant);
    let n = if x < 0.0 { -n } else { n };
    if e >= 0 {
        (n << e as u64, BigInt::from(1))
    } else {
        (n, BigInt::from(1) << (-e) as u64)
    }
}

/// The exact value in hexadecimal: `(1.5).hex() == '0x1.8000000000000p+0'`.
#[native("float.hex(self)", c)]
fn hex(this: f64) -> String {
    let x = this;
    if !x.is_finite() {
        return crate::value::format::float_repr(x);
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0x0.0p+0");
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
    format!("{sign}0x{lead}.{frac:013x}p{e_sign}{}", e.abs())
}

/// The float itself.
#[native("float.conjugate(self)", c)]
fn conjugate(this: f64) -> f64 {
    this
}

/// The float a hexadecimal string writes: `float.fromhex('0x1.8p1') == 3.0`.
#[native("float.fromhex(cls, string, /)", c)]
fn fromhex(vm: &dyn Vm, cls: &Value, string: &Value) -> PyResult<Value> {
    let x = match string.as_builtin() {
        Value::Str(s) => parse_hex_float(s)?,
        _ => return Err(type_error("bad argument type for built-in operation")),
    };
    super::of_class(vm, cls, Value::Float(x))
}

/// `float.fromhex(text)`: `[sign] ['0x'] hexdigits ['.' hexdigits] ['p' [sign] digits]`
/// (or `inf`/`nan`), correctly rounded, ties to even.
pub fn parse_hex_float(text: &str) -> PyResult<f64> {
    let invalid = || value_error("invalid hexadecimal floating-point string");
    let s = text.trim_matches(super::str::is_space);
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let sign = |x: f64| if neg { -x } else { x };
    let lower = body.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => return Ok(sign(f64::INFINITY)),
        "nan" => return Ok(distinct_nan(sign(f64::NAN))),
        _ => {}
    }
    let body = lower.strip_prefix("0x").unwrap_or(&lower);
    let (mant, exp) = match body.split_once('p') {
        Some((m, e)) => (m, Some(e)),
        None => (body, None),
    };
    let (int_part, frac_part) = mant.split_once('.').unwrap_or((mant, ""));
    let hex_digits = |p: &str| p.chars().all(|c| c.is_ascii_hexdigit());
    if int_part.len() + frac_part.len() == 0 || !hex_digits(int_part) || !hex_digits(frac_part) {
        return Err(invalid());
    }
    let mut e2: i64 = match exp {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(invalid());
            }
            // Saturate: anything this large is an overflow or a zero anyway.
            let v = digits.parse::<i64>().unwrap_or(i64::MAX / 4).min(1 << 40);
            if e.starts_with('-') {
                -v
            } else {
                v
            }
        }
    };
    // The significant hex digits, as an integer m with value m * 2**e2;
    // digits past the 28th only set a sticky bit.
    e2 -= 4 * frac_part.len() as i64;
    let all = format!("{int_part}{frac_part}");
    let digits = all.trim_start_matches('0');
    let (mut m, mut sticky) = (0u128, false);
    for (i, c) in digits.chars().enumerate() {
        let d = c.to_digit(16).unwrap_or(0) as u128;
        if i < 28 {
            m = m << 4 | d;
        } else {
            sticky |= d != 0;
            e2 += 4;
        }
    }
    if m == 0 {
        return Ok(sign(0.0));
    }
    // Round to the precision the result's binade allows: 53 bits for a
    // normal float, fewer for a subnormal.
    let nbits = 128 - m.leading_zeros() as i64;
    let top = e2 + nbits - 1;
    let prec = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    if prec <= 0 {
        // Below half the smallest subnormal (or exactly half: ties to zero).
        let half = prec == 0 && (m.count_ones() > 1 || sticky);
        return Ok(sign(if half { f64::from_bits(1) } else { 0.0 }));
    }
    let drop = nbits - prec;
    if drop > 0 {
        let rest = m & ((1u128 << drop) - 1);
        let halfway = 1u128 << (drop - 1);
        m >>= drop;
        e2 += drop;
        let round_up = rest > halfway || (rest == halfway && (sticky || m & 1 == 1));
        if round_up {
            m += 1;
        }
    }
    // m now fits in 54 bits and m * 2**e2 is exactly representable (or too large).
    let m_bits = 128 - m.leading_zeros() as i64;
    if e2 + m_bits - 1 > 1023 {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "hexadecimal value too large to represent as a float",
        ));
    }
    // Both steps are exact: m < 2**54, and the result is representable.
    let mut x = m as f64;
    let mut k = e2.max(-1074);
    while k > 0 {
        let step = k.min(1000);
        x *= 2f64.powi(step as i32);
        k -= step;
    }
    if k < 0 {
        x *= pow2(k);
    }
    Ok(sign(x))
}

/// `2**k` for k in -1074..0 (through the subnormals, exactly).
fn pow2(k: i64) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}
