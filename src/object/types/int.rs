//! `int`: the constructor (strings in any base, floats, numbers with
//! `__int__`/`__index__`) and the common methods, on ints of any size
//! (past 64 bits a `Value::Long`; see `long.rs`).

use num_bigint::{BigInt, Sign};
use num_traits::{Signed, Zero};

use super::long::{max_str_digits, parse_limit_error};
use super::{not_an_integer, type_error, value_error};
use crate::object::{native, Given, Member};
use crate::value::format::{float_to_int, str_repr};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `int`'s constructor, methods and properties.
pub static MEMBERS: &[Member] = &[
    Member::Getter(real::DEF),
    Member::Getter(numerator::DEF),
    Member::Getter(imag::DEF),
    Member::Getter(denominator::DEF),
    Member::New(int_new::DEF),
    Member::Method(bit_length::DEF),
    Member::Method(bit_count::DEF),
    Member::Method(to_bytes::DEF),
    Member::ClassMethod(from_bytes::DEF),
    Member::Method(as_integer_ratio::DEF),
    Member::Method(conjugate::DEF),
];

#[cold]
fn invalid_literal(text: &str, base: u32) -> PyErr {
    value_error(format!(
        "invalid literal for int() with base {base}: {}",
        str_repr(text)
    ))
}

/// The zeros of the Unicode decimal digit runs (category Nd: `'٠'`, `'０'`,
/// `'𝟎'` …); each run is ten consecutive code points 0-9. From Python 3.11's
/// `unicodedata` (Unicode 14.0).
#[rustfmt::skip]
const DIGIT_ZEROS: &[u32] = &[
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6,
    0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0,
    0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900,
    0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066,
    0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0,
    0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0,
    0x1E950, 0x1FBF0,
];

/// `text` with every Unicode decimal digit written as its ASCII digit, as
/// CPython does before parsing `int()` and `float()` arguments.
pub fn ascii_digits(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() {
        return text.into();
    }
    text.chars()
        .map(|c| {
            let u = c as u32;
            match DIGIT_ZEROS.partition_point(|&z| z <= u).checked_sub(1) {
                Some(k) if u - DIGIT_ZEROS[k] < 10 => char::from(b'0' + (u - DIGIT_ZEROS[k]) as u8),
                _ => c,
            }
        })
        .collect::<String>()
        .into()
}

/// Parses an int literal as `int(text, base)` does (base 0: from the
/// prefix). `limit` is the digit limit of `sys.set_int_max_str_digits`
/// (0: none), which CPython applies to bases that are not powers of two.
pub fn parse_int(text: &str, base: u32, limit: usize) -> PyResult<Value> {
    let converted = ascii_digits(text);
    let s = converted.trim_matches(super::str::is_space);
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let prefix_base = match lower.get(..2) {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    let (radix, digits) = match (base, prefix_base) {
        (0, Some(b)) => (b, &body[2..]),
        (0, None) => {
            // Base 0 refuses leading zeros on a nonzero decimal ("010").
            if body.len() > 1
                && body.starts_with('0')
                && body.bytes().any(|c| c != b'0' && c != b'_')
            {
                return Err(invalid_literal(text, 0));
            }
            (10, body)
        }
        (b, Some(p)) if b == p => (b, &body[2..]),
        (b, _) => (b, body),
    };
    let prefixed = digits.len() != body.len();
    // Underscores only between digits (or right after a base prefix).
    let bytes = digits.as_bytes();
    let bad_underscore = bytes.first() == Some(&b'_') && !prefixed
        || bytes.last() == Some(&b'_')
        || digits.contains("__");
    if digits.is_empty() || bad_underscore {
        return Err(invalid_literal(text, base));
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    if !clean.chars().all(|c| c.is_digit(radix)) {
        return Err(invalid_literal(text, base));
    }
    if let Ok(v) = i64::from_str_radix(&clean, radix) {
        return Ok(Value::Int(if neg { -v } else { v }));
    }
    if limit > 0 && !radix.is_power_of_two() && clean.len() > limit {
        return Err(parse_limit_error(limit, clean.len()));
    }
    let v =
        BigInt::parse_bytes(clean.as_bytes(), radix).ok_or_else(|| invalid_literal(text, base))?;
    Ok(Value::from_big(if neg { -v } else { v }))
}

/// An int from a number or a string: `int('ff', 16) == 255`; `int(2.9) == 2`.
#[native("int(x=0, /, base=10)", c_ctor)]
fn int_new(vm: &dyn Vm, x: Given<&Value>, base: Given<&Value>) -> PyResult<Value> {
    let Given(x) = x;
    if let Given(Some(base)) = base {
        let Some(x) = x else {
            return Err(type_error("int() missing string argument"));
        };
        let base = super::int_arg(base, vm)?;
        if base != 0 && !(2..=36).contains(&base) {
            return Err(value_error("int() base must be >= 2 and <= 36, or 0"));
        }
        let limit = max_str_digits(vm);
        return match x.as_builtin() {
            Value::Str(s) => parse_int(s, base as u32, limit),
            Value::Bytes(b) => parse_int(&String::from_utf8_lossy(b), base as u32, limit),
            _ => Err(type_error(
                "int() can't convert non-string with explicit base",
            )),
        };
    }
    match x {
        Some(x) => to_int(vm, x),
        None => Ok(Value::Int(0)),
    }
}

/// `int(x)` for one argument: an `Int`, or a `Long` past 64 bits.
pub fn to_int(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    match x {
        Value::Int(_) | Value::Long(_) => Ok(x.clone()),
        Value::Bool(b) => Ok(Value::Int(*b as i64)),
        Value::Float(f) => float_to_int(f.trunc()),
        Value::Str(s) => parse_int(s, 10, max_str_digits(vm)),
        Value::Bytes(b) => parse_int(&String::from_utf8_lossy(b), 10, max_str_digits(vm)),
        Value::Native(_) | Value::Tensor(_) => match super::number_of(vm, x)? {
            Some(v) => to_int(vm, &v),
            None => Err(not_a_number(x)),
        },
        Value::Instance(_) => {
            for name in ["__int__", "__index__", "__trunc__"] {
                if let Ok(f) = vm.getattr(x, name) {
                    return match vm.call(&f, Vec::new(), Vec::new())? {
                        i @ (Value::Int(_) | Value::Long(_)) => Ok(i),
                        Value::Bool(b) => Ok(Value::Int(b as i64)),
                        other => Err(type_error(format!(
                            "{name} returned non-int (type {})",
                            other.type_name()
                        ))),
                    };
                }
            }
            match x.as_builtin() {
                Value::Instance(_) => Err(not_a_number(x)),
                base => to_int(vm, base),
            }
        }
        _ => Err(not_a_number(x)),
    }
}

#[cold]
fn not_a_number(x: &Value) -> PyErr {
    type_error(format!(
        "int() argument must be a string, a bytes-like object or a real number, not '{}'",
        x.type_name()
    ))
}

/// Bits needed to write the absolute value: `(255).bit_length() == 8`.
#[native("int.bit_length(self)", c)]
fn bit_length(this: &Value) -> PyResult<i64> {
    Ok(match this.as_builtin() {
        Value::Long(n) => n.bits() as i64,
        Value::Bool(b) => *b as i64,
        Value::Int(i) => 64 - i.unsigned_abs().leading_zeros() as i64,
        _ => return Err(not_an_int_self("bit_length", this)),
    })
}

/// Number of one bits in the absolute value.
#[native("int.bit_count(self)", c)]
fn bit_count(this: BigInt) -> i64 {
    this.magnitude().count_ones() as i64
}

#[cold]
fn not_an_int_self(method: &str, got: &Value) -> PyErr {
    type_error(format!(
        "descriptor '{method}' for 'int' objects doesn't apply to a '{}' object",
        got.type_name()
    ))
}

fn byteorder_arg(v: &Value) -> PyResult<bool> {
    match v.as_builtin() {
        Value::Str(s) if s.as_str() == "big" => Ok(true),
        Value::Str(s) if s.as_str() == "little" => Ok(false),
        Value::Str(_) => Err(value_error("byteorder must be either 'little' or 'big'")),
        _ => Err(type_error(format!(
            "to_bytes() argument 'byteorder' must be str, not {}",
            v.type_name()
        ))),
    }
}

/// The int as `length` bytes.
#[native("int.to_bytes(self, length=1, byteorder='big', *, signed=False)", c)]
fn to_bytes(
    vm: &dyn Vm,
    this: BigInt,
    length: &Value,
    byteorder: &Value,
    signed: &Value,
) -> PyResult<Value> {
    let i = this;
    let len = super::int_arg(length, vm)?;
    let len =
        usize::try_from(len).map_err(|_| value_error("length argument must be non-negative"))?;
    let big = byteorder_arg(byteorder)?;
    let signed = vm.truthy(signed)?;
    if !signed && i.is_negative() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "can't convert negative int to unsigned",
        ));
    }
    // Bits of the two's complement form: a sign bit more when signed.
    let needed = if signed {
        let m = if i.is_negative() { !&i } else { i.clone() };
        m.bits() as usize + 1
    } else {
        i.bits() as usize
    };
    if needed.div_ceil(8) > len {
        return Err(PyErr::new(ExcType::OverflowError, "int too big to convert"));
    }
    super::check_alloc(len, 1)?;
    let fill = if i.is_negative() { 0xff } else { 0 };
    let mut out = vec![fill; len];
    let le = if i.is_zero() {
        Vec::new()
    } else {
        i.to_signed_bytes_le()
    };
    for (k, b) in le.iter().enumerate().take(len) {
        out[k] = *b;
    }
    if big {
        out.reverse();
    }
    Ok(Value::Bytes(std::rc::Rc::new(out)))
}

/// The int that `bytes` encode: `int.from_bytes(b'\x01\x00', 'big') == 256`.
#[native("int.from_bytes(cls, bytes, byteorder='big', *, signed=False)", c)]
fn from_bytes(
    vm: &dyn Vm,
    cls: &Value,
    bytes: &Value,
    byteorder: &Value,
    signed: &Value,
) -> PyResult<Value> {
    let bytes: Vec<u8> = match bytes {
        Value::Bytes(b) => b.to_vec(),
        // CPython converts with bytes(obj) minus its int and str forms.
        other
        @ (Value::Str(_) | Value::Int(_) | Value::Bool(_) | Value::Float(_) | Value::None) => {
            return Err(type_error(format!(
                "cannot convert '{}' object to bytes",
                other.type_name()
            )))
        }
        other => vm
            .collect(other)?
            .iter()
            .map(|v| match v {
                Value::Int(i) if (0..256).contains(i) => Ok(*i as u8),
                Value::Bool(b) => Ok(*b as u8),
                Value::Int(_) => Err(value_error("bytes must be in range(0, 256)")),
                x => Err(not_an_integer(x)),
            })
            .collect::<PyResult<_>>()?,
    };
    let big = byteorder_arg(byteorder)?;
    let signed = vm.truthy(signed)?;
    let mut le = bytes;
    if big {
        le.reverse();
    }
    let v = if signed {
        BigInt::from_signed_bytes_le(&le)
    } else {
        BigInt::from_bytes_le(Sign::Plus, &le)
    };
    super::of_class(vm, cls, Value::from_big(v))
}

/// `(self, 1)`.
#[native("int.as_integer_ratio(self)", c)]
fn as_integer_ratio(this: BigInt) -> Value {
    Value::tuple(vec![Value::from_big(this), Value::Int(1)])
}

/// The int itself.
#[native("int.conjugate(self)", c)]
fn conjugate(this: BigInt) -> BigInt {
    this
}

/// The int itself (ints are real numbers).
#[native("int.real(self)")]
fn real(this: &Value) -> Value {
    int_self(this)
}

/// The int itself.
#[native("int.numerator(self)")]
fn numerator(this: &Value) -> Value {
    int_self(this)
}

fn int_self(v: &Value) -> Value {
    match v {
        Value::Bool(b) => Value::Int(*b as i64),
        v => v.clone(),
    }
}

/// Always 0.
#[native("int.imag(self)")]
fn imag(_this: &Value) -> i64 {
    0
}

/// Always 1.
#[native("int.denominator(self)")]
fn denominator(_this: &Value) -> i64 {
    1
}
