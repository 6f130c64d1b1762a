//! The integer functions of `math` (`factorial`, `gcd`, `lcm`, `comb`,
//! `perm`, `isqrt`, `prod`) on ints of any size (`num-bigint` does the
//! arithmetic; results that fit in 64 bits come back inline).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::object::native;
use crate::object::types::{big_arg, value_error};
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The product of the items: `math.prod([2, 3]) == 6`.
#[native("prod(iterable, /, *, start=1)")]
pub(super) fn prod(vm: &dyn Vm, iterable: &Value, start: &Value) -> PyResult<Value> {
    let mut acc = start.clone();
    for v in vm.collect(iterable)? {
        acc = vm.binop(BinOp::Mult, &acc, &v)?;
    }
    Ok(acc)
}

/// The product of the ints in `lo..hi`, by halves (balanced operands keep
/// the big multiplications fast).
fn range_product(lo: u64, hi: u64) -> BigInt {
    if hi <= lo {
        return BigInt::one();
    }
    if hi - lo <= 16 {
        return (lo..hi).fold(BigInt::one(), |acc, k| acc * k);
    }
    let mid = lo + (hi - lo) / 2;
    range_product(lo, mid) * range_product(mid, hi)
}

/// `n!` for an int n >= 0: `math.factorial(5) == 120`.
#[native("math.factorial(n, /)", c)]
pub(super) fn factorial(vm: &dyn Vm, n: &Value) -> PyResult<BigInt> {
    let n = big_arg(n, vm)?;
    if n.is_negative() {
        return Err(value_error("factorial() not defined for negative values"));
    }
    let n = n
        .to_u64()
        .filter(|n| *n <= i64::MAX as u64)
        .ok_or_else(|| {
            PyErr::new(
                ExcType::OverflowError,
                "factorial() argument should not exceed 9223372036854775807",
            )
        })?;
    Ok(range_product(2, n + 1))
}

/// The greatest common divisor: `math.gcd(12, 18) == 6`.
#[native("gcd(*integers)")]
pub(super) fn gcd(vm: &dyn Vm, integers: &[Value]) -> PyResult<BigInt> {
    let mut g = BigInt::zero();
    for v in integers {
        g = g.gcd(&big_arg(v, vm)?);
    }
    Ok(g)
}

/// The least common multiple: `math.lcm(4, 6) == 12`.
#[native("lcm(*integers)")]
pub(super) fn lcm(vm: &dyn Vm, integers: &[Value]) -> PyResult<BigInt> {
    let mut l = BigInt::one();
    for v in integers {
        let x = big_arg(v, vm)?;
        l = if x.is_zero() || l.is_zero() {
            BigInt::zero()
        } else {
            l.lcm(&x)
        };
    }
    Ok(l)
}

fn nk(vm: &dyn Vm, n: &Value, k: &Value) -> PyResult<(BigInt, BigInt)> {
    let (n, k) = (big_arg(n, vm)?, big_arg(k, vm)?);
    if n.is_negative() {
        return Err(value_error("n must be a non-negative integer"));
    }
    if k.is_negative() {
        return Err(value_error("k must be a non-negative integer"));
    }
    Ok((n, k))
}

/// `k` as a machine int, or CPython's OverflowError naming `what`.
fn small(k: &BigInt, what: &str) -> PyResult<u64> {
    k.to_u64().filter(|k| *k <= i64::MAX as u64).ok_or_else(|| {
        PyErr::new(
            ExcType::OverflowError,
            format!("{what} must not exceed 9223372036854775807"),
        )
    })
}

/// Ways to choose k of n items: `math.comb(5, 2) == 10`.
#[native("math.comb(n, k, /)", c)]
pub(super) fn comb(vm: &dyn Vm, n: &Value, k: &Value) -> PyResult<BigInt> {
    let (n, k) = nk(vm, n, k)?;
    if k > n {
        return Ok(BigInt::zero());
    }
    let k = small(&(&n - &k).min(k), "min(n - k, k)")?;
    // acc * (n - i) / (i + 1) stays exact: acc is C(n, i).
    let mut acc = BigInt::one();
    for i in 0..k {
        acc = acc * (&n - i) / (i + 1);
    }
    Ok(acc)
}

/// Ordered ways to pick k of n items: `math.perm(5, 2) == 20`.
#[native("math.perm(n, k=None, /)", c)]
pub(super) fn perm(vm: &dyn Vm, n: &Value, k: &Value) -> PyResult<BigInt> {
    let k = if k.is_none() { n } else { k };
    let (n, k) = nk(vm, n, k)?;
    if k > n {
        return Ok(BigInt::zero());
    }
    let k = small(&k, "k")?;
    if let Some(n) = n.to_u64() {
        return Ok(range_product(n - k + 1, n + 1));
    }
    let mut acc = BigInt::one();
    for i in 0..k {
        acc *= &n - i;
    }
    Ok(acc)
}

/// The integer square root: `math.isqrt(17) == 4`.
#[native("math.isqrt(n, /)", c)]
pub(super) fn isqrt(vm: &dyn Vm, n: &Value) -> PyResult<BigInt> {
    let n = big_arg(n, vm)?;
    if n.is_negative() {
        return Err(value_error("isqrt() argument must be nonnegative"));
    }
    Ok(n.sqrt())
}
