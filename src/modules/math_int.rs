//! The integer functions of `math` (`factorial`, `gcd`, `lcm`, `comb`,
//! `perm`, `prod`) on 64-bit ints: results that do not fit raise OverflowError.

use crate::object::native;
use crate::object::types::{int_arg, int_overflow, value_error};
use crate::syntax::ast::BinOp;
use crate::value::{PyResult, Value, Vm};

/// The product of the items: `math.prod([2, 3]) == 6`.
#[native("prod(iterable, /, *, start=1)")]
pub(super) fn prod(vm: &dyn Vm, iterable: &Value, start: &Value) -> PyResult<Value> {
    let mut acc = start.clone();
    for v in vm.collect(iterable)? {
        acc = vm.binop(BinOp::Mult, &acc, &v)?;
    }
    Ok(acc)
}

/// `n!` for an int n >= 0: `math.factorial(5) == 120`.
#[native("math.factorial(n, /)", c)]
pub(super) fn factorial(vm: &dyn Vm, n: &Value) -> PyResult<i64> {
    let n = int_arg(n, vm)?;
    if n < 0 {
        return Err(value_error("factorial() not defined for negative values"));
    }
    let mut acc: i64 = 1;
    for k in 2..=n {
        acc = acc.checked_mul(k).ok_or_else(int_overflow)?;
    }
    Ok(acc)
}

fn gcd2(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// The greatest common divisor: `math.gcd(12, 18) == 6`.
#[native("gcd(*integers)")]
pub(super) fn gcd(vm: &dyn Vm, integers: &[Value]) -> PyResult<i64> {
    let mut g = 0;
    for v in integers {
        g = gcd2(g, int_arg(v, vm)?);
    }
    Ok(g)
}

/// The least common multiple: `math.lcm(4, 6) == 12`.
#[native("lcm(*integers)")]
pub(super) fn lcm(vm: &dyn Vm, integers: &[Value]) -> PyResult<i64> {
    let mut l: i64 = 1;
    for v in integers {
        let x = int_arg(v, vm)?;
        if x == 0 || l == 0 {
            l = 0;
            continue;
        }
        l = (l / gcd2(l, x))
            .checked_mul(x.checked_abs().ok_or_else(int_overflow)?)
            .ok_or_else(int_overflow)?;
    }
    Ok(l)
}

fn nk(vm: &dyn Vm, n: &Value, k: &Value) -> PyResult<(i64, i64)> {
    let (n, k) = (int_arg(n, vm)?, int_arg(k, vm)?);
    if n < 0 {
        return Err(value_error("n must be a non-negative integer"));
    }
    if k < 0 {
        return Err(value_error("k must be a non-negative integer"));
    }
    Ok((n, k))
}

/// Ways to choose k of n items: `math.comb(5, 2) == 10`.
#[native("math.comb(n, k, /)", c)]
pub(super) fn comb(vm: &dyn Vm, n: &Value, k: &Value) -> PyResult<i64> {
    let (n, k) = nk(vm, n, k)?;
    if k > n {
        return Ok(0);
    }
    let k = k.min(n - k);
    let mut acc: i128 = 1;
    for i in 0..k {
        // acc * (n - i) / (i + 1) stays exact: acc is C(n, i).
        acc = acc * (n - i) as i128 / (i + 1) as i128;
        if acc > i64::MAX as i128 {
            return Err(int_overflow());
        }
    }
    Ok(acc as i64)
}

/// Ordered ways to pick k of n items: `math.perm(5, 2) == 20`.
#[native("math.perm(n, k=None, /)", c)]
pub(super) fn perm(vm: &dyn Vm, n: &Value, k: &Value) -> PyResult<i64> {
    let k = if k.is_none() { n } else { k };
    let (n, k) = nk(vm, n, k)?;
    if k > n {
        return Ok(0);
    }
    let mut acc: i64 = 1;
    for i in 0..k {
        acc = acc.checked_mul(n - i).ok_or_else(int_overflow)?;
    }
    Ok(acc)
}

/// The integer square root: `math.isqrt(17) == 4`.
// Exact for every i64.
#[native("math.isqrt(n, /)", c)]
pub(super) fn isqrt(vm: &dyn Vm, n: &Value) -> PyResult<i64> {
    let n = int_arg(n, vm)?;
    if n < 0 {
        return Err(value_error("isqrt() argument must be nonnegative"));
    }
    let mut r = (n as f64).sqrt() as i64;
    while r > 0 && r.checked_mul(r).is_none_or(|sq| sq > n) {
        r -= 1;
    }
    while (r + 1).checked_mul(r + 1).is_some_and(|sq| sq <= n) {
        r += 1;
    }
    Ok(r)
}
