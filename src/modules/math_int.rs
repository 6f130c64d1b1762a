//! The integer functions of `math` (`factorial`, `gcd`, `lcm`, `comb`,
//! `perm`, `prod`) on 64-bit ints: results that do not fit raise OverflowError.

use crate::object::types::{int_arg, int_overflow, value_error};
use crate::syntax::ast::BinOp;
use crate::value::{Args, PyResult, Value, Vm};

pub(super) fn prod(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut acc = a.get(1).clone();
    for v in vm.collect(a.get(0))? {
        acc = vm.binop(BinOp::Mult, &acc, &v)?;
    }
    Ok(acc)
}

pub(super) fn factorial(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let n = int_arg(a.get(0), vm)?;
    if n < 0 {
        return Err(value_error("factorial() not defined for negative values"));
    }
    let mut acc: i64 = 1;
    for k in 2..=n {
        acc = acc.checked_mul(k).ok_or_else(int_overflow)?;
    }
    Ok(Value::Int(acc))
}

fn gcd2(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

pub(super) fn gcd(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut g = 0;
    for v in a.varargs(0) {
        g = gcd2(g, int_arg(v, vm)?);
    }
    Ok(Value::Int(g))
}

pub(super) fn lcm(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut l: i64 = 1;
    for v in a.varargs(0) {
        let x = int_arg(v, vm)?;
        if x == 0 || l == 0 {
            l = 0;
            continue;
        }
        l = (l / gcd2(l, x))
            .checked_mul(x.checked_abs().ok_or_else(int_overflow)?)
            .ok_or_else(int_overflow)?;
    }
    Ok(Value::Int(l))
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

pub(super) fn comb(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (n, k) = nk(vm, a.get(0), a.get(1))?;
    if k > n {
        return Ok(Value::Int(0));
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
    Ok(Value::Int(acc as i64))
}

pub(super) fn perm(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let k = if a.get(1).is_none() {
        a.get(0).clone()
    } else {
        a.get(1).clone()
    };
    let (n, k) = nk(vm, a.get(0), &k)?;
    if k > n {
        return Ok(Value::Int(0));
    }
    let mut acc: i64 = 1;
    for i in 0..k {
        acc = acc.checked_mul(n - i).ok_or_else(int_overflow)?;
    }
    Ok(Value::Int(acc))
}

/// `math.isqrt(n)`: the integer square root (floor), exact for every i64.
pub(super) fn isqrt(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let n = int_arg(a.get(0), vm)?;
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
    Ok(Value::Int(r))
}
