//! `round()` exactly as CPython: floats are rounded by their exact binary
//! value, half to even (`round(2.675, 2) == 2.67`, `round(0.5) == 0`), by way
//! of a correctly rounded decimal string, as CPython's `double_round` does
//! with `_Py_dg_dtoa`. Ints round half to even at negative `ndigits`.

use super::error::{ExcType, PyErr, PyResult};
use super::value::Value;
use crate::object::types::value_error;
use num_traits::FromPrimitive;

/// CPython's bounds beyond which rounding is the identity / gives zero.
const NDIGITS_MAX: i64 = 323;
const NDIGITS_MIN: i64 = -308;

/// `round(x)` with no `ndigits`: the nearest int, ties to even.
pub fn round_to_int(x: f64) -> PyResult<Value> {
    if x.is_nan() {
        return Err(value_error("cannot convert float NaN to integer"));
    }
    if x.is_infinite() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "cannot convert float infinity to integer",
        ));
    }
    float_to_int(x.round_ties_even())
}

/// Converts an integral float to an int (inline when it fits in 64 bits).
pub fn float_to_int(x: f64) -> PyResult<Value> {
    // 2**63 is exactly representable; every float below it in magnitude fits.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        Ok(Value::Int(x as i64))
    } else if x.is_nan() {
        Err(value_error("cannot convert float NaN to integer"))
    } else if x.is_infinite() {
        Err(PyErr::new(
            ExcType::OverflowError,
            "cannot convert float infinity to integer",
        ))
    } else {
        // Integral and finite: exactly a big int.
        Ok(num_bigint::BigInt::from_f64(x).map_or(Value::Int(0), Value::from_big))
    }
}

/// `round(x, ndigits)` for a float.
pub fn round_float(x: f64, ndigits: i64) -> PyResult<f64> {
    if !x.is_finite() || x == 0.0 || ndigits > NDIGITS_MAX {
        return Ok(x);
    }
    if ndigits < NDIGITS_MIN {
        return Ok(0.0 * x);
    }
    let y = if ndigits >= 0 {
        // Rust's fixed-precision formatting rounds the exact value, ties to even.
        format!("{:.*}", ndigits as usize, x)
            .parse::<f64>()
            .unwrap_or(x)
    } else {
        round_negative(x, (-ndigits) as usize)
    };
    if y.is_infinite() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "rounded value too large to represent",
        ));
    }
    Ok(y)
}

/// Rounds `x` to a multiple of `10**k` (k >= 1), from its exact decimal digits.
fn round_negative(x: f64, k: usize) -> f64 {
    let int_digits = format!("{:.0}", x.abs().trunc());
    let frac_nonzero = x.fract() != 0.0;
    let mut digits: Vec<u8> = int_digits.bytes().map(|b| b - b'0').collect();
    while digits.len() < k + 1 {
        digits.insert(0, 0);
    }
    let split = digits.len() - k;
    let (head, tail) = digits.split_at(split);
    let mut head = head.to_vec();
    let round_up = match tail[0].cmp(&5) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => {
            tail[1..].iter().any(|d| *d != 0)
                || frac_nonzero
                || head.last().is_some_and(|d| d % 2 == 1)
        }
    };
    if round_up {
        let mut i = head.len();
        loop {
            if i == 0 {
                head.insert(0, 1);
                break;
            }
            i -= 1;
            if head[i] == 9 {
                head[i] = 0;
            } else {
                head[i] += 1;
                break;
            }
        }
    }
    let mut s: String = head.iter().map(|d| (d + b'0') as char).collect();
    s.extend(std::iter::repeat_n('0', k));
    let v = s.parse::<f64>().unwrap_or(0.0);
    if x < 0.0 {
        -v
    } else {
        v
    }
}

/// `round(i, ndigits)` for an int: the identity for `ndigits >= 0`,
/// otherwise the nearest multiple of `10**-ndigits`, ties to even.
pub fn round_int(i: i64, ndigits: i64) -> PyResult<Value> {
    if ndigits >= 0 {
        return Ok(Value::Int(i));
    }
    let k = ndigits.unsigned_abs();
    if k > 19 {
        return Ok(Value::Int(0));
    }
    let pow = 10i128.pow(k as u32);
    let v = i as i128;
    let q = v.div_euclid(pow);
    let r = v.rem_euclid(pow);
    let twice = 2 * r;
    let q = if twice > pow || (twice == pow && q % 2 != 0) {
        q + 1
    } else {
        q
    };
    Ok(Value::from_i128(q * pow))
}

/// `round(n, ndigits)` for an int past 64 bits: half to even at negative
/// `ndigits`.
pub fn round_big(n: &num_bigint::BigInt, ndigits: i64) -> Value {
    use num_integer::Integer;
    if ndigits >= 0 {
        return Value::from_big(n.clone());
    }
    let k = ndigits.unsigned_abs();
    if k > n.bits() {
        return Value::Int(0);
    }
    let pow = num_traits::pow::Pow::pow(num_bigint::BigInt::from(10), k);
    let (q, r) = n.div_mod_floor(&pow);
    let twice: num_bigint::BigInt = r * 2;
    let q = if twice > pow || (twice == pow && q.is_odd()) {
        q + 1
    } else {
        q
    };
    Value::from_big(q * pow)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values from CPython 3.11.
    #[test]
    fn floats_round_like_cpython() {
        for (x, nd, want) in [
            (2.675, 2, 2.67),
            (0.125, 2, 0.12),
            (0.375, 2, 0.38),
            (1.005, 2, 1.0),
            (2.5, 0, 2.0),
            (-2.5, 0, -2.0),
            (3.5, 0, 4.0),
            (1234.5678, -2, 1200.0),
            (1250.0, -2, 1200.0),
            (1350.0, -2, 1400.0),
            (1250.0001, -2, 1300.0),
            (600.0, -3, 1000.0),
            (500.0, -3, 0.0),
            (-1500.0, -3, -2000.0),
            (0.1 + 0.2, 10, 0.3),
            (1e300, 400, 1e300),
            (123.456, -400, 0.0),
            (5e-324, 323, 0.0),
        ] {
            assert_eq!(round_float(x, nd).ok(), Some(want), "round({x}, {nd})");
        }
        assert!(round_float(1.7e308, -308).is_err());
    }

    #[test]
    fn ints_round_half_even() {
        let int = |r: PyResult<Value>| format!("{:?}", r.ok());
        assert_eq!(int(round_int(15, -1)), "Some(20)");
        assert_eq!(int(round_int(25, -1)), "Some(20)");
        assert_eq!(int(round_int(-25, -1)), "Some(-20)");
        assert_eq!(int(round_int(-26, -1)), "Some(-30)");
        assert_eq!(int(round_int(12345, -25)), "Some(0)");
        assert_eq!(int(round_int(7, 3)), "Some(7)");
        // CPython: round(2**63 - 1, -1) == 9223372036854775810.
        assert_eq!(int(round_int(i64::MAX, -1)), "Some(9223372036854775810)");
        assert_eq!(int(round_to_int(0.5)), "Some(0)");
        assert_eq!(int(round_to_int(1.5)), "Some(2)");
        assert_eq!(int(round_to_int(-0.5)), "Some(0)");
        assert!(round_to_int(f64::NAN).is_err());
        assert_eq!(int(round_to_int(1e19)), "Some(10000000000000000000)");
    }
}
