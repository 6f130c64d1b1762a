//! Ints past 64 bits (`Value::Long`, a `num_bigint::BigInt`): the
//! arithmetic the inline `i64` paths of `num.rs` hand over to on overflow,
//! and the conversions CPython defines exactly: correctly rounded
//! `float(n)` and `a / b`, exact comparison with floats, `hash()` modulo
//! 2**61 - 1, and the limit on int↔str conversion of huge values
//! (`sys.set_int_max_str_digits`). Results that fit in 64 bits come back
//! inline ([`Value::from_big`]).

use std::borrow::Cow;
use std::cell::Cell;
use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};

use super::ops::binop_error;
use super::value_error;
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

use super::long_ops::{check_size, div_mod_floor, div_rem_short, memory_error, MAX_BITS};

#[cold]
fn zero_division(msg: &str) -> PyErr {
    PyErr::new(ExcType::ZeroDivisionError, msg)
}

/// `OverflowError: int too large to convert to float`.
#[cold]
pub fn too_large_for_float() -> PyErr {
    PyErr::new(ExcType::OverflowError, "int too large to convert to float")
}

/// `n` as the nearest float (ties to even), None when it rounds past the
/// largest finite float (CPython's `PyLong_AsDouble`).
pub fn big_to_f64(n: &BigInt) -> Option<f64> {
    if let Some(i) = n.to_i64() {
        return Some(i as f64);
    }
    let bits = n.bits();
    if bits > 1024 {
        return None;
    }
    // Keep 55 bits (53, a guard bit, and one more) and fold every bit
    // below them into a sticky bit, so the one rounding of u64 → f64 is
    // the correct rounding of the whole value.
    let shift = bits - 55;
    let mag = n.magnitude();
    let top = (mag >> shift).to_u64().unwrap_or(0);
    let sticky = (mag.trailing_zeros().unwrap_or(0) < shift) as u64;
    let x = (top | sticky) as f64 * 2f64.powi(shift as i32);
    if x.is_infinite() {
        return None;
    }
    Some(if n.is_negative() { -x } else { x })
}

/// `float(n)` with CPython's OverflowError.
pub fn to_f64(n: &BigInt) -> PyResult<f64> {
    big_to_f64(n).ok_or_else(too_large_for_float)
}

/// `x * 2**e` without overflowing an intermediate power of two.
fn ldexp(mut x: f64, mut e: i64) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e as i32)
}

/// `a / b` correctly rounded (`b != 0`), as CPython's `long_true_divide`.
pub fn true_div(a: &BigInt, b: &BigInt) -> PyResult<f64> {
    if b.is_zero() {
        return Err(zero_division("division by zero"));
    }
    let (n, d) = (a.magnitude(), b.magnitude());
    let diff = n.bits() as i64 - d.bits() as i64;
    if diff > 1025 {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "integer division result too large for a float",
        ));
    }
    if diff < -1100 {
        let z = if a.is_negative() != b.is_negative() {
            -0.0
        } else {
            0.0
        };
        return Ok(z);
    }
    // A quotient of 55 or 56 bits, and a sticky bit for a non-zero remainder.
    let shift = 55 - diff;
    let (n, d) = if shift >= 0 {
        (Cow::Owned(n << shift as u64), Cow::Borrowed(d))
    } else {
        (Cow::Borrowed(n), Cow::Owned(d << (-shift) as u64))
    };
    let (q, r) = div_rem_short(&n, &d).unwrap_or_else(|| n.div_rem(&d));
    // One rounding of q (and the sticky remainder) at the precision the
    // result has: 53 bits, fewer for a subnormal one (rounding to 53 bits
    // first and then to the subnormal's would round twice).
    let q = q.to_u64().unwrap_or(u64::MAX) as u128;
    let x = round_scaled(false, q, -shift, !r.is_zero());
    if x.is_infinite() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "integer division result too large for a float",
        ));
    }
    Ok(if a.is_negative() != b.is_negative() {
        -x
    } else {
        x
    })
}

/// `(-1)**neg * (m + ε) * 2**exp2` correctly rounded (half to even) to a
/// float, where `sticky` says whether ε (a part below m's last bit, less
/// than one) is non-zero; subnormal results are rounded once at their own
/// precision. Infinite past the largest float.
pub fn round_scaled(neg: bool, m: u128, exp2: i64, sticky: bool) -> f64 {
    if m == 0 {
        return if neg { -0.0 } else { 0.0 };
    }
    let len = 128 - m.leading_zeros() as i64;
    // The value lies in [2**e, 2**(e+1)).
    let e = len - 1 + exp2;
    let p = if e < -1022 { 53 - (-1022 - e) } else { 53 };
    let drop = len - p;
    let (mant, sh) = if drop <= 0 {
        (m, exp2)
    } else if drop > 128 {
        // Below half the smallest subnormal.
        (0, 0)
    } else {
        let kept = if drop == 128 { 0 } else { m >> drop };
        let rest = if drop == 128 {
            m
        } else {
            m & ((1u128 << drop) - 1)
        };
        let half = 1u128 << (drop - 1);
        let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        (kept + up as u128, exp2 + drop)
    };
    let x = ldexp(mant as f64, sh);
    if neg {
        -x
    } else {
        x
    }
}

/// Exact comparison of an int with a float (no rounding of the int).
pub fn cmp_big_float(n: &BigInt, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let t = f.trunc();
    let ti = BigInt::from_f64(t)?;
    Some(
        n.cmp(&ti)
            .then_with(|| 0.0f64.partial_cmp(&(f - t)).unwrap_or(Ordering::Equal)),
    )
}

/// CPython's hash of an int: the value modulo 2**61 - 1 with its sign
/// (`hash(-1) == -2`).
pub fn hash_big(n: &BigInt) -> i64 {
    const P: u128 = (1 << 61) - 1;
    let mut h: u128 = 0;
    let digits: Vec<u64> = n.magnitude().iter_u64_digits().collect();
    for d in digits.iter().rev() {
        h = ((h << 64) | *d as u128) % P;
    }
    let h = h as i64;
    let h = if n.is_negative() { -h } else { h };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// `a op b` on two ints, at least one past 64 bits (or an i64 result
/// that overflowed).
pub fn big_binop(op: BinOp, a: &BigInt, b: &BigInt) -> PyResult<Value> {
    Ok(Value::from_big(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mult => {
            check_size(op, a, b)?;
            a * b
        }
        BinOp::Div => return true_div(a, b).map(Value::Float),
        BinOp::FloorDiv => {
            if b.is_zero() {
                return Err(zero_division("integer division or modulo by zero"));
            }
            div_mod_floor(a, b).0
        }
        BinOp::Mod => {
            if b.is_zero() {
                return Err(zero_division("integer modulo by zero"));
            }
            div_mod_floor(a, b).1
        }
        BinOp::Pow => return big_pow(a, b),
        BinOp::LShift => return shift_left(a, b),
        BinOp::RShift => {
            if b.is_negative() {
                return Err(value_error("negative shift count"));
            }
            match b.to_u64() {
                Some(s) => a >> s,
                None if a.is_negative() => BigInt::from(-1),
                None => BigInt::zero(),
            }
        }
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::MatMult => {
            return Err(binop_error(
                op,
                &Value::from_big(a.clone()),
                &Value::from_big(b.clone()),
            ))
        }
    }))
}

/// `a << b`: MemoryError rather than building a result past [`MAX_BITS`];
/// CPython's OverflowError for a count past `sys.maxsize`.
pub fn shift_left(a: &BigInt, b: &BigInt) -> PyResult<Value> {
    if b.is_negative() {
        return Err(value_error("negative shift count"));
    }
    if a.is_zero() {
        return Ok(Value::Int(0));
    }
    let s = match b.to_i64() {
        Some(s) => s as u64,
        None => {
            return Err(PyErr::new(
                ExcType::OverflowError,
                "too many digits in integer",
            ))
        }
    };
    if a.bits().saturating_add(s) > MAX_BITS {
        return Err(memory_error());
    }
    Ok(Value::from_big(a << s))
}

/// `a ** b` on ints: an int for `b >= 0`, a float for negative `b`.
pub fn big_pow(a: &BigInt, b: &BigInt) -> PyResult<Value> {
    if b.is_negative() {
        if a.is_zero() {
            return Err(zero_division("0.0 cannot be raised to a negative power"));
        }
        let (x, y) = (to_f64(a)?, big_to_f64(b).unwrap_or(f64::NEG_INFINITY));
        return super::num::float_pow(x, y).map(Value::Float);
    }
    let one = BigInt::from(1);
    if a.is_zero() || *a == one {
        return Ok(Value::Int(if b.is_zero() {
            1
        } else {
            a.to_i64().unwrap_or(0)
        }));
    }
    if *a == -one {
        return Ok(Value::Int(if b.is_even() { 1 } else { -1 }));
    }
    let e = match b.to_u64() {
        Some(e) if (a.bits() - 1).saturating_mul(e) <= MAX_BITS => e,
        _ => return Err(memory_error()),
    };
    Ok(Value::from_big(num_traits::pow::Pow::pow(a, e)))
}

/// `pow(a, b, m)` on ints (negative `b` uses the modular inverse); the
/// result takes the modulus's sign, as Python's `%`.
pub fn pow_mod(a: &BigInt, b: &BigInt, m: &BigInt) -> PyResult<Value> {
    if m.is_zero() {
        return Err(value_error("pow() 3rd argument cannot be 0"));
    }
    let mm = m.abs();
    let mut base = a.mod_floor(&mm);
    let mut e = b.clone();
    if e.is_negative() {
        let g = base.extended_gcd(&mm);
        if g.gcd != BigInt::from(1) {
            return Err(value_error("base is not invertible for the given modulus"));
        }
        base = g.x.mod_floor(&mm);
        e = -e;
    }
    let r = base.modpow(&e, &mm);
    Ok(Value::from_big(if m.is_negative() && !r.is_zero() {
        r - mm
    } else {
        r
    }))
}

/// The limit on the digits of an int↔str conversion
/// (`sys.set_int_max_str_digits`; 0 means none), kept in the
/// interpreter's state.
pub struct IntMaxStrDigits(pub Cell<usize>);

impl Default for IntMaxStrDigits {
    fn default() -> Self {
        IntMaxStrDigits(Cell::new(DEFAULT_MAX_STR_DIGITS))
    }
}

/// CPython's default `sys.int_info.default_max_str_digits`.
pub const DEFAULT_MAX_STR_DIGITS: usize = 4300;

/// The current int↔str digit limit (0: no limit).
pub fn max_str_digits(vm: &dyn Vm) -> usize {
    vm.state().get::<IntMaxStrDigits>().0.get()
}

/// `str(n)` in base 10, or CPython's ValueError past the digit limit.
pub fn to_decimal(n: &BigInt, limit: usize) -> PyResult<String> {
    // CPython refuses before converting when the size alone says the
    // result is too long (about 3.32 bits per digit).
    if limit > 0 && n.bits() / 3 > limit as u64 * 10 / 9 + 64 {
        return Err(str_limit_error(limit));
    }
    let s = n.to_string();
    let digits = s.len() - n.is_negative() as usize;
    if limit > 0 && digits > limit {
        return Err(str_limit_error(limit));
    }
    Ok(s)
}

/// `ValueError: Exceeds the limit (4300 digits) for integer string
/// conversion` (int → str).
#[cold]
fn str_limit_error(limit: usize) -> PyErr {
    value_error(format!(
        "Exceeds the limit ({limit} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"
    ))
}

/// `ValueError: Exceeds the limit (4300 digits) for integer string
/// conversion: value has N digits` (str → int).
#[cold]
pub fn parse_limit_error(limit: usize, digits: usize) -> PyErr {
    value_error(format!(
        "Exceeds the limit ({limit} digits) for integer string conversion: value has {digits} digits; use sys.set_int_max_str_digits() to increase the limit"
    ))
}

/// The sign of an int value as -1, 0 or 1.
pub fn sign(n: &BigInt) -> i64 {
    match n.sign() {
        Sign::Minus => -1,
        Sign::NoSign => 0,
        Sign::Plus => 1,
    }
}
