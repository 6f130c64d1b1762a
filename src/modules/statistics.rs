//! `_statistics`: the exact arithmetic behind `statistics.mean`, `variance`,
//! `stdev`, `harmonic_mean` … CPython sums the data as exact fractions and
//! rounds once; every int and finite float is `m * 2**e` exactly, so the sums
//! are a big integer over a power of two (Python ints, `num_bigint`), and the
//! final quotient (or square root) is correctly rounded to a float, or
//! returned as an int when the data are ints and the quotient is exact.

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{Signed, Zero};

use super::ModuleBuilder;
use crate::object::native;
use crate::object::types::long::true_div;
use crate::object::types::type_error;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `num / den` (den > 0) correctly rounded to a float, or CPython's
/// OverflowError for `int / int` too large.
fn frac_to_float(num: &BigInt, den: &BigInt) -> PyResult<Value> {
    true_div(num, den).map(Value::Float)
}

/// The square root of `n / m` (n >= 0, m > 0) correctly rounded, as
/// CPython's `_float_sqrt_of_frac`: the integer square root of a scaled
/// quotient rounded to odd (2 * 53 + 3 bits), then one correctly rounded
/// division.
fn frac_sqrt_to_float(n: &BigInt, m: &BigInt) -> PyResult<Value> {
    // isqrt(n // m), its last bit set when inexact (round to odd).
    fn sqrt_rto(n: &BigInt, m: &BigInt) -> BigInt {
        let a = (n / m).sqrt();
        let exact = &a * &a * m == *n;
        if exact {
            a
        } else {
            a | BigInt::from(1)
        }
    }
    const SQRT_BIT_WIDTH: i64 = 2 * 53 + 3;
    let q = (n.bits() as i64 - m.bits() as i64 - SQRT_BIT_WIDTH).div_euclid(2);
    let (num, den) = if q >= 0 {
        (
            sqrt_rto(n, &(m << (2 * q) as u64)) << q as u64,
            BigInt::from(1),
        )
    } else {
        (
            sqrt_rto(&(n << (-2 * q) as u64), m),
            BigInt::from(1) << (-q) as u64,
        )
    };
    frac_to_float(&num, &den)
}

/// The data as exact sums: Σx = a / 2**k and Σx² = b / 2**(2k); `all_int`
/// when no float was seen; `special` is the running sum of the non-finite
/// floats (CPython adds those as floats, in order).
struct Sums {
    a: BigInt,
    b: BigInt,
    k: u64,
    n: u64,
    all_int: bool,
    special: Option<f64>,
}

/// `(m, e)` with x = m * 2**e (m signed); None for inf and nan.
fn decompose(v: &Value) -> PyResult<Option<(BigInt, i64)>> {
    match v.as_builtin() {
        Value::Int(i) => Ok(Some((BigInt::from(*i), 0))),
        Value::Long(n) => Ok(Some(((**n).clone(), 0))),
        Value::Bool(b) => Ok(Some((BigInt::from(*b as u8), 0))),
        Value::Float(f) => {
            if !f.is_finite() {
                return Ok(None);
            }
            if *f == 0.0 {
                return Ok(Some((BigInt::zero(), 0)));
            }
            let bits = f.to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i64;
            let frac = bits & ((1u64 << 52) - 1);
            let (m, e) = if exp == 0 {
                (frac, -1074)
            } else {
                (frac | (1u64 << 52), exp - 1075)
            };
            let tz = m.trailing_zeros() as i64;
            let sign = if *f < 0.0 { Sign::Minus } else { Sign::Plus };
            Ok(Some((BigInt::from_biguint(sign, (m >> tz).into()), e + tz)))
        }
        _ if matches!(v.type_name().as_str(), "Fraction" | "Decimal") => Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "statistics in dist supports int and float data only, not '{}'",
                v.type_name()
            ),
        )),
        _ => Err(type_error(format!(
            "can't convert type '{}' to numerator/denominator",
            v.type_name()
        ))),
    }
}

fn sums(vm: &dyn Vm, data: &Value) -> PyResult<Sums> {
    let items = vm.collect(data)?;
    let mut parts = Vec::with_capacity(items.len());
    let mut all_int = true;
    let mut special: Option<f64> = None;
    for v in &items {
        if let Value::Float(f) = v.as_builtin() {
            all_int = false;
            if !f.is_finite() {
                special = Some(special.map_or(*f, |s| s + f));
                continue;
            }
        }
        if let Some(p) = decompose(v)? {
            parts.push(p);
        }
    }
    let k = parts
        .iter()
        .map(|p| (-p.1).max(0) as u64)
        .max()
        .unwrap_or(0);
    let (mut a, mut b) = (BigInt::zero(), BigInt::zero());
    for (m, e) in parts {
        let x = m << (e + k as i64) as u64;
        b += &x * &x;
        a += x;
    }
    Ok(Sums {
        a,
        b,
        k,
        n: items.len() as u64,
        all_int,
        special,
    })
}

/// `num / den`: an int for int data when exact, else a float.
fn int_or_float(num: &BigInt, den: &BigInt, all_int: bool) -> PyResult<Value> {
    if all_int {
        let (q, r) = num.div_rem(den);
        if r.is_zero() {
            return Ok(Value::from_big(q));
        }
    }
    frac_to_float(num, den)
}

fn positive_int(v: &Value) -> PyResult<u64> {
    match v.as_builtin() {
        Value::Int(i) if *i > 0 => Ok(*i as u64),
        _ => Err(type_error("_statistics: divisor must be a positive int")),
    }
}

/// A sum that is inf or nan (CPython adds such floats as floats): divided by
/// `d`, or, for a square root, CPython's error (it asks the float for a
/// numerator).
fn special_result(sp: f64, d: u64, sqrt: bool) -> PyResult<Value> {
    if sqrt {
        return Err(PyErr::new(
            ExcType::AttributeError,
            "'float' object has no attribute 'numerator'",
        ));
    }
    Ok(Value::Float(sp / d as f64))
}

/// sum(data) / d computed exactly and rounded once.
// An int for int data when exact; with `sqrt`, the correctly rounded square root.
#[native("sum_div(data, d, sqrt=False, /)")]
fn sum_div(vm: &dyn Vm, data: &Value, d: &Value, sqrt: &Value) -> PyResult<Value> {
    let s = sums(vm, data)?;
    let d = positive_int(d)?;
    let sqrt = vm.truthy(sqrt)?;
    if let Some(sp) = s.special {
        return special_result(sp, d, sqrt);
    }
    let den = BigInt::from(d) << s.k;
    if sqrt {
        if s.a.is_negative() {
            return Err(PyErr::new(
                ExcType::ValueError,
                "math domain error: square root of a negative sum",
            ));
        }
        return frac_sqrt_to_float(&s.a, &den);
    }
    int_or_float(&s.a, &den, s.all_int)
}

/// The exact sum of squared deviations over n - ddof, rounded once.
// The deviations are from the exact mean; an int for int data when exact;
// with `sqrt`, the correctly rounded square root.
#[native("ss_div(data, ddof, sqrt=False, /)")]
fn ss_div(vm: &dyn Vm, data: &Value, ddof: &Value, sqrt: &Value) -> PyResult<Value> {
    let s = sums(vm, data)?;
    let ddof = match ddof.as_builtin() {
        Value::Int(i) => *i as u64,
        _ => 0,
    };
    let sqrt = vm.truthy(sqrt)?;
    let d = s.n - ddof;
    if let Some(sp) = s.special {
        return special_result(sp, d, sqrt);
    }
    // ssd = (n*B - A*A) / (n * 2**2k); over d: / (n * d * 2**2k).
    let num = &s.b * s.n - &s.a * &s.a;
    let den = BigInt::from(s.n as u128 * d as u128) << (2 * s.k);
    if sqrt {
        return frac_sqrt_to_float(&num, &den);
    }
    int_or_float(&num, &den, s.all_int)
}

/// float(sum(nums) / sum(dens)) computed exactly and rounded once.
#[native("ratio(nums, dens, /)")]
fn ratio(vm: &dyn Vm, nums: &Value, dens: &Value) -> PyResult<Value> {
    let p = sums(vm, nums)?;
    let q = sums(vm, dens)?;
    if p.special.is_some() || q.special.is_some() {
        let float = |s: &Sums| match s.special {
            Some(f) => Ok(f),
            None => true_div(&s.a, &(BigInt::from(1) << s.k)),
        };
        return Ok(Value::Float(float(&p)? / float(&q)?));
    }
    if q.a.is_zero() {
        return Err(PyErr::new(ExcType::ZeroDivisionError, "division by zero"));
    }
    // (pa / 2**pk) / (qa / 2**qk) = pa * 2**qk / (qa * 2**pk)
    frac_to_float(&(&p.a << q.k), &(&q.a << p.k))
}

/// The correctly rounded square root of n / d.
// Ints `n >= 0`, `d > 0`, as CPython's `_float_sqrt_of_frac`.
#[native("sqrt_frac(n, d, /)")]
fn sqrt_frac(n: &Value, d: &Value) -> PyResult<Value> {
    let int = |v: &Value| match v.as_builtin() {
        Value::Int(i) => Some(BigInt::from(*i)),
        Value::Long(b) => Some((**b).clone()),
        _ => None,
    };
    match (int(n), int(d)) {
        (Some(n), Some(d)) if !n.is_negative() && d.is_positive() => frac_sqrt_to_float(&n, &d),
        _ => Err(type_error(
            "_statistics.sqrt_frac: needs ints n >= 0, d > 0",
        )),
    }
}

/// The `_statistics` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_statistics");
    m.add(sum_div::DEF)
        .add(ss_div::DEF)
        .add(sqrt_frac::DEF)
        .add(ratio::DEF);
    m.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(v: PyResult<Value>) -> f64 {
        match v {
            Ok(Value::Float(f)) => f,
            _ => f64::NAN,
        }
    }

    #[test]
    fn quotients_and_roots_round_once() {
        let b = BigInt::from;
        assert_eq!(float(frac_to_float(&b(1), &b(3))), 1.0 / 3.0);
        assert_eq!(float(frac_sqrt_to_float(&b(2), &b(1))), 2f64.sqrt());
        assert_eq!(float(frac_sqrt_to_float(&b(9), &b(4))), 1.5);
        // A root of a quotient far from 1 in both directions.
        let big = BigInt::from(1) << 2000u32;
        assert_eq!(float(frac_sqrt_to_float(&big, &b(1))), 2f64.powi(1000));
        assert_eq!(float(frac_sqrt_to_float(&b(1), &big)), 2f64.powi(-1000));
        // An exact int quotient stays an int, of any size.
        let v = int_or_float(&(&big * 6), &b(3), true);
        assert!(matches!(v, Ok(Value::Long(n)) if *n == &big * 2));
    }
}
