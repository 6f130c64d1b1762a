//! Number arithmetic with Python's semantics on ints and floats: floor
//! division and modulo signs, CPython's float `divmod` and `pow` special
//! cases, exact int/float comparison. Ints that fit in 64 bits take the
//! inline paths here; a result that overflows them, and any operand past
//! them, goes to the big-int paths of `long.rs`.

use std::cmp::Ordering;

use num_bigint::BigInt;

use super::long::{big_binop, big_pow, cmp_big_float, shift_left, to_f64};
use super::long_ops::big_of;
use super::ops::binop_error;
use super::value_error;
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, PyResult, Value};

/// A number operand: int (bools included) or float.
#[derive(Clone, Copy)]
pub enum Num<'a> {
    /// An int that fits in 64 bits.
    I(i64),
    /// An int past 64 bits.
    B(&'a BigInt),
    /// A float.
    F(f64),
}

/// `v` as a number, if it is one.
#[inline]
pub fn num(v: &Value) -> Option<Num<'_>> {
    match v {
        Value::Bool(b) => Some(Num::I(*b as i64)),
        Value::Int(i) => Some(Num::I(*i)),
        Value::Float(f) => Some(Num::F(*f)),
        Value::Long(b) => Some(Num::B(b)),
        _ => None,
    }
}

impl Num<'_> {
    /// The int as a big int (None for a float).
    pub fn to_big(self) -> Option<BigInt> {
        match self {
            Num::I(i) => Some(BigInt::from(i)),
            Num::B(b) => Some(b.clone()),
            Num::F(_) => None,
        }
    }

    /// The number as a float: CPython's OverflowError for an int too large.
    pub fn to_f64(self) -> PyResult<f64> {
        match self {
            Num::I(i) => Ok(i as f64),
            Num::B(b) => to_f64(b),
            Num::F(f) => Ok(f),
        }
    }

    /// The number as a value (`Int`, `Long` or `Float`).
    pub fn value(self) -> Value {
        match self {
            Num::I(i) => Value::Int(i),
            Num::B(b) => Value::Long(std::rc::Rc::new(b.clone())),
            Num::F(f) => Value::Float(f),
        }
    }
}

/// Exact comparison of an int with a float (no rounding of the int).
fn cmp_int_float(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f >= 9_223_372_036_854_775_808.0 {
        return Some(Ordering::Less);
    }
    if f < -9_223_372_036_854_775_808.0 {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    Some(
        i.cmp(&(t as i64))
            .then_with(|| 0.0f64.partial_cmp(&(f - t)).unwrap_or(Ordering::Equal)),
    )
}

/// Numeric ordering across int and float, exactly as Python compares them.
pub fn num_cmp(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::I(x), Num::I(y)) => Some(x.cmp(&y)),
        (Num::F(x), Num::F(y)) => x.partial_cmp(&y),
        (Num::I(x), Num::F(y)) => cmp_int_float(x, y),
        (Num::F(x), Num::I(y)) => cmp_int_float(y, x).map(Ordering::reverse),
        (Num::B(x), Num::B(y)) => Some(x.cmp(y)),
        // A big int lies outside the i64 range: its sign decides.
        (Num::B(x), Num::I(_)) => Some(if x.sign() == num_bigint::Sign::Minus {
            Ordering::Less
        } else {
            Ordering::Greater
        }),
        (Num::I(_), Num::B(y)) => Some(if y.sign() == num_bigint::Sign::Minus {
            Ordering::Greater
        } else {
            Ordering::Less
        }),
        (Num::B(x), Num::F(y)) => cmp_big_float(x, y),
        (Num::F(x), Num::B(y)) => cmp_big_float(y, x).map(Ordering::reverse),
    }
}

/// Arithmetic on two numbers (`bools` true when both are bools, for `& | ^`).
pub fn num_binop(op: BinOp, x: Num, y: Num, bools: bool) -> PyResult<Value> {
    match (x, y) {
        (Num::I(a), Num::I(b)) => return int_binop(op, a, b, bools),
        (Num::F(_), _) | (_, Num::F(_)) => {}
        // No copy of a big operand: a small one becomes a BigInt without
        // allocating.
        _ => return big_binop(op, &big_of(x), &big_of(y)),
    }
    if matches!(op, BinOp::MatMult | BinOp::LShift | BinOp::RShift)
        || matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
    {
        return Err(binop_error(op, &x.value(), &y.value()));
    }
    let (a, b) = (x.to_f64()?, y.to_f64()?);
    Ok(Value::Float(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mult => a * b,
        BinOp::Div => {
            if b == 0.0 {
                return Err(PyErr::new(
                    ExcType::ZeroDivisionError,
                    "float division by zero",
                ));
            }
            a / b
        }
        BinOp::FloorDiv => {
            if b == 0.0 {
                return Err(PyErr::new(
                    ExcType::ZeroDivisionError,
                    "float floor division by zero",
                ));
            }
            float_divmod(a, b).0
        }
        BinOp::Mod => {
            if b == 0.0 {
                return Err(PyErr::new(ExcType::ZeroDivisionError, "float modulo"));
            }
            float_divmod(a, b).1
        }
        BinOp::Pow => {
            if a < 0.0 && a.is_finite() && b.is_finite() && b.fract() != 0.0 {
                // A negative number to a fractional power is complex (CPython's
                // float_pow hands it to complex_pow).
                return super::complex::complex_pow_value(a, b);
            }
            float_pow(a, b)?
        }
        _ => return Err(binop_error(op, &x.value(), &y.value())),
    }))
}

/// `a / b` correctly rounded, as CPython's `long_true_divide` (`b != 0`):
/// converting each int to a float first rounds twice once one exceeds
/// 2**53 (`12345678901234567 / 1000`).
pub fn int_true_div(a: i64, b: i64) -> f64 {
    const EXACT: u64 = 1 << 53;
    if a.unsigned_abs() <= EXACT && b.unsigned_abs() <= EXACT {
        return a as f64 / b as f64;
    }
    let (n, d) = (a.unsigned_abs() as u128, b.unsigned_abs() as u128);
    let bits = |x: u128| 128 - x.leading_zeros() as i32;
    // A quotient of at least 55 bits: 53 kept, a guard bit, and below it
    // a sticky bit standing for a non-zero remainder.
    let shift = (55 + bits(d) - bits(n)).max(0);
    let q = (n << shift) / d;
    let sticky = ((n << shift) % d != 0) as u128;
    let magnitude = (q | sticky) as f64 * 2f64.powi(-shift);
    if (a < 0) != (b < 0) {
        -magnitude
    } else {
        magnitude
    }
}

/// `divmod(a, b)` on two small ints (`b != 0`): floor quotient and the
/// remainder with the divisor's sign.
pub fn int_divmod(a: i64, b: i64) -> (Value, Value) {
    let Some(q) = a.checked_div(b) else {
        // `i64::MIN // -1`, the one quotient past 64 bits.
        return (Value::from_i128(-(a as i128)), Value::Int(0));
    };
    let r = a % b;
    if r != 0 && ((r < 0) != (b < 0)) {
        (Value::Int(q - 1), Value::Int(r + b))
    } else {
        (Value::Int(q), Value::Int(r))
    }
}

fn int_binop(op: BinOp, a: i64, b: i64, bools: bool) -> PyResult<Value> {
    let zero = |msg: &str| PyErr::new(ExcType::ZeroDivisionError, msg);
    // A result past 64 bits is computed in i128 (where `+ - *` of two i64
    // cannot overflow) and promoted.
    let (wa, wb) = (a as i128, b as i128);
    Ok(Value::Int(match op {
        BinOp::Add => return Ok(Value::from_i128(wa + wb)),
        BinOp::Sub => return Ok(Value::from_i128(wa - wb)),
        BinOp::Mult => return Ok(Value::from_i128(wa * wb)),
        BinOp::Div => {
            if b == 0 {
                return Err(zero("division by zero"));
            }
            return Ok(Value::Float(int_true_div(a, b)));
        }
        BinOp::FloorDiv => {
            if b == 0 {
                return Err(zero("integer division or modulo by zero"));
            }
            // `i64::MIN // -1` is the one quotient past 64 bits.
            let Some(q) = a.checked_div(b) else {
                return Ok(Value::from_i128(-wa));
            };
            if a % b != 0 && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }
        BinOp::Mod => {
            if b == 0 {
                return Err(zero("integer modulo by zero"));
            }
            let r = a.checked_rem(b).unwrap_or(0);
            if r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            }
        }
        BinOp::Pow => return int_pow(a, b),
        BinOp::LShift => {
            if b < 0 {
                return Err(value_error("negative shift count"));
            }
            if a == 0 {
                0
            } else if b >= 64 || (a << b) >> b != a {
                return shift_left(&BigInt::from(a), &BigInt::from(b));
            } else {
                a << b
            }
        }
        BinOp::RShift => {
            if b < 0 {
                return Err(value_error("negative shift count"));
            }
            a >> b.min(63)
        }
        BinOp::BitAnd if bools => return Ok(Value::Bool(a & b != 0)),
        BinOp::BitOr if bools => return Ok(Value::Bool((a | b) != 0)),
        BinOp::BitXor if bools => return Ok(Value::Bool((a ^ b) != 0)),
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::MatMult => return Err(binop_error(op, &Value::Int(a), &Value::Int(b))),
    }))
}

/// CPython's float `divmod`: `(floor quotient, remainder with the divisor's sign)`.
/// `b` must be nonzero.
pub fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(b);
    }
    let floordiv = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0f64.copysign(a / b)
    };
    (floordiv, m)
}

/// `a ** b` on floats with CPython's errors.
pub fn float_pow(a: f64, b: f64) -> PyResult<f64> {
    if b == 0.0 || a == 1.0 {
        return Ok(1.0);
    }
    if a == 0.0 && b < 0.0 && b.is_finite() {
        return Err(PyErr::new(
            ExcType::ZeroDivisionError,
            "0.0 cannot be raised to a negative power",
        ));
    }
    if a < 0.0 && a.is_finite() && b.is_finite() && b.fract() != 0.0 {
        return Err(value_error(
            "negative number cannot be raised to a fractional power",
        ));
    }
    let r = a.powf(b);
    if r.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(PyErr::with_args(
            ExcType::OverflowError,
            vec![Value::Int(34), Value::str("Numerical result out of range")],
        ));
    }
    Ok(r)
}

/// `a ** b` on ints: an int for `b >= 0` (past 64 bits a big int), a
/// float for negative `b`.
pub fn int_pow(a: i64, b: i64) -> PyResult<Value> {
    if b < 0 {
        if a == 0 {
            return Err(PyErr::new(
                ExcType::ZeroDivisionError,
                "0.0 cannot be raised to a negative power",
            ));
        }
        return float_pow(a as f64, b as f64).map(Value::Float);
    }
    match a {
        0 | 1 => return Ok(Value::Int(if b == 0 { 1 } else { a })),
        -1 => return Ok(Value::Int(if b % 2 == 0 { 1 } else { -1 })),
        _ => {}
    }
    match u32::try_from(b).ok().and_then(|e| a.checked_pow(e)) {
        Some(p) => Ok(Value::Int(p)),
        None => big_pow(&BigInt::from(a), &BigInt::from(b)),
    }
}

/// `pow(a, b, m)` on ints (negative `b` uses the modular inverse).
pub fn int_pow_mod(a: i64, b: i64, m: i64) -> PyResult<Value> {
    if m == 0 {
        return Err(value_error("pow() 3rd argument cannot be 0"));
    }
    let mm = (m as i128).abs();
    let mut base = (a as i128).rem_euclid(mm);
    let mut e = b;
    if e < 0 {
        base = mod_inverse(base, mm)
            .ok_or_else(|| value_error("base is not invertible for the given modulus"))?;
        let Some(n) = e.checked_neg() else {
            return super::long::pow_mod(&a.into(), &b.into(), &m.into());
        };
        e = n;
    }
    let mut result: i128 = 1 % mm;
    while e > 0 {
        if e & 1 == 1 {
            result = result * base % mm;
        }
        base = base * base % mm;
        e >>= 1;
    }
    // The result takes the modulus's sign, as Python's `%`.
    if m < 0 && result != 0 {
        result -= mm;
    }
    Ok(Value::Int(result as i64))
}

fn mod_inverse(a: i128, m: i128) -> Option<i128> {
    let (mut old_r, mut r) = (a, m);
    let (mut old_s, mut s) = (1i128, 0i128);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s - q * s);
    }
    (old_r == 1).then(|| old_s.rem_euclid(m))
}
