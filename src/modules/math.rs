//! The `math` module: constants, float functions with CPython's error rules
//! (`ValueError: math domain error` when a finite input has no real result,
//! `OverflowError: math range error` when it is too large), and the integer
//! functions (`factorial`, `gcd`, `comb` …) on 64-bit ints.

#[path = "math_special.rs"]
mod special;

use super::math_int::{comb, factorial, gcd, isqrt, lcm, perm, prod};
use super::ModuleBuilder;
use crate::object::types::complex::Complex;
use crate::object::types::float::to_float;
use crate::object::types::{type_error, value_error};
use crate::object::{native, NativeDef};
use crate::value::format::float_to_int;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};
use special::Special;

/// The `math` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("math");
    m.value("pi", Value::Float(std::f64::consts::PI))
        .value("e", Value::Float(std::f64::consts::E))
        .value("tau", Value::Float(std::f64::consts::TAU))
        .value("inf", Value::Float(f64::INFINITY))
        .value("nan", Value::Float(f64::NAN));
    for def in FUNCTIONS {
        m.add(*def);
    }
    m.build()
}

/// The registration records of the natives named, in order.
macro_rules! defs {
    ($($name:ident),* $(,)?) => {
        &[$($name::DEF),*]
    };
}

/// The functions, in CPython's order of definition here: the float
/// functions of one argument, the others written in C (positional-only
/// parameters: `math.sqrt() takes exactly one argument (0 given)`), then
/// those with Python-style argument errors.
const FUNCTIONS: &[NativeDef] = defs![
    sqrt, exp, expm1, log2, log10, log1p, fabs, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh,
    asinh, acosh, atanh, degrees, radians, cbrt, exp2, erf, erfc, pow, atan2, copysign, fmod,
    ldexp, floor, ceil, trunc, isnan, isinf, isfinite, modf, frexp, fsum, factorial, dist, isqrt,
    comb, gamma, lgamma, nextafter, remainder, ulp, perm, log, hypot, isclose, prod, gcd, lcm,
];

/// A float argument (`TypeError: must be real number, not str`).
fn real(vm: &dyn Vm, v: &Value) -> PyResult<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::Int(i) => Ok(*i as f64),
        Value::Long(n) => crate::object::types::long::to_f64(n),
        Value::Bool(b) => Ok(*b as i64 as f64),
        Value::Native(_) if v.downcast::<Complex>().is_some() => {
            Err(type_error("must be real number, not complex"))
        }
        Value::Instance(_) | Value::Native(_) => to_float(vm, v),
        other => Err(type_error(format!(
            "must be real number, not {}",
            other.type_name()
        ))),
    }
}

#[cold]
fn domain() -> PyErr {
    value_error("math domain error")
}

#[cold]
fn range_error() -> PyErr {
    PyErr::new(ExcType::OverflowError, "math range error")
}

/// CPython's `math_1`: NaN from a non-NaN input is a domain error; an
/// infinity from a finite input is a range error where the function can
/// overflow, and a domain error otherwise (`log(0)`).
fn checked(x: f64, r: f64, can_overflow: bool) -> PyResult<Value> {
    if r.is_nan() && !x.is_nan() {
        return Err(domain());
    }
    if r.is_infinite() && x.is_finite() {
        return Err(if can_overflow {
            range_error()
        } else {
            domain()
        });
    }
    Ok(Value::Float(r))
}

macro_rules! unary {
    ($($name:ident = $f:expr, $overflow:expr, $sig:tt, $doc:tt;)*) => {$(
        #[doc = $doc]
        #[native($sig, c)]
        fn $name(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
            let x = real(vm, x)?;
            let f: fn(f64) -> f64 = $f;
            checked(x, f(x), $overflow)
        }
    )*};
}

unary! {
    sqrt = f64::sqrt, false, "math.sqrt(x, /)", "The square root: `math.sqrt(2) == 1.4142135623730951`.";
    exp = f64::exp, true, "math.exp(x, /)", "`e ** x`.";
    expm1 = f64::exp_m1, true, "math.expm1(x, /)", "`exp(x) - 1`, accurate for small x.";
    log1p = f64::ln_1p, false, "math.log1p(x, /)", "`log(1 + x)`, accurate for small x.";
    fabs = f64::abs, false, "math.fabs(x, /)", "The absolute value as a float.";
    sin = f64::sin, false, "math.sin(x, /)", "The sine of x radians.";
    cos = f64::cos, false, "math.cos(x, /)", "The cosine of x radians.";
    tan = f64::tan, false, "math.tan(x, /)", "The tangent of x radians.";
    asin = f64::asin, false, "math.asin(x, /)", "The arc sine, in radians.";
    acos = f64::acos, false, "math.acos(x, /)", "The arc cosine, in radians.";
    atan = f64::atan, false, "math.atan(x, /)", "The arc tangent, in radians.";
    sinh = f64::sinh, true, "math.sinh(x, /)", "The hyperbolic sine.";
    cosh = f64::cosh, true, "math.cosh(x, /)", "The hyperbolic cosine.";
    tanh = f64::tanh, false, "math.tanh(x, /)", "The hyperbolic tangent.";
    asinh = special::asinh, false, "math.asinh(x, /)", "The inverse hyperbolic sine.";
    acosh = special::acosh, false, "math.acosh(x, /)", "The inverse hyperbolic cosine.";
    atanh = special::atanh, false, "math.atanh(x, /)", "The inverse hyperbolic tangent.";
    degrees = f64::to_degrees, true, "math.degrees(x, /)", "Radians to degrees.";
    radians = f64::to_radians, false, "math.radians(x, /)", "Degrees to radians.";
    cbrt = special::cbrt, false, "math.cbrt(x, /)", "The cube root: `math.cbrt(27) == 3.0`.";
    exp2 = f64::exp2, true, "math.exp2(x, /)", "`2 ** x`: `math.exp2(3) == 8.0`.";
    erf = special::erf, false, "math.erf(x, /)", "The error function.";
    erfc = special::erfc, false, "math.erfc(x, /)", "The complementary error function, `1 - erf(x)`.";
}

fn special_result(r: Special) -> PyResult<Value> {
    match r {
        Special::Value(v) => Ok(Value::Float(v)),
        Special::Domain => Err(domain()),
        Special::Range => Err(range_error()),
    }
}

/// The gamma function: `math.gamma(5) == 24.0`.
#[native("math.gamma(x, /)", c)]
fn gamma(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    special_result(special::gamma(real(vm, x)?))
}

/// The natural logarithm of the absolute value of the gamma function.
#[native("math.lgamma(x, /)", c)]
fn lgamma(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    special_result(special::lgamma(real(vm, x)?))
}

/// The next float after x towards y: `math.nextafter(1, 2) == 1.0000000000000002`.
#[native("math.nextafter(x, y, /)", c)]
fn nextafter(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<f64> {
    let (x, y) = (real(vm, x)?, real(vm, y)?);
    Ok(special::nextafter(x, y))
}

/// IEEE 754 remainder: `x - n*y` with n the integer nearest `x / y`.
#[native("math.remainder(x, y, /)", c)]
fn remainder(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<f64> {
    // CPython's rules: an infinite x or a zero y has no remainder.
    let (x, y) = (real(vm, x)?, real(vm, y)?);
    if x.is_nan() || y.is_nan() {
        return Ok(f64::NAN);
    }
    if x.is_infinite() || y == 0.0 {
        return Err(domain());
    }
    Ok(special::remainder(x, y))
}

/// The value of the least significant bit of x: `math.ulp(1.0) == 2.220446049250313e-16`.
#[native("math.ulp(x, /)", c)]
fn ulp(vm: &dyn Vm, x: &Value) -> PyResult<f64> {
    Ok(special::ulp(real(vm, x)?))
}

/// `f(x)` for a logarithm `f`, as CPython's `loghelper`: an int too large
/// for a float is `f(m) + f(2) * e` where `x = m * 2**e`.
fn log_of(vm: &dyn Vm, x: &Value, f: fn(f64) -> f64) -> PyResult<f64> {
    if let Value::Long(n) = x {
        if num_traits::Signed::is_negative(&**n) {
            return Err(domain());
        }
        if crate::object::types::long::big_to_f64(n).is_none() {
            let e = n.bits() - 64;
            let top = num_traits::ToPrimitive::to_u64(&(&**n >> e)).unwrap_or(u64::MAX);
            let m = top as f64 / 2f64.powi(64);
            return Ok(f(m) + f(2.0) * (e + 64) as f64);
        }
    }
    let x = real(vm, x)?;
    if x.is_nan() {
        return Ok(x);
    }
    if x <= 0.0 {
        return Err(domain());
    }
    Ok(f(x))
}

/// The base-2 logarithm.
#[native("math.log2(x, /)", c)]
fn log2(vm: &dyn Vm, x: &Value) -> PyResult<f64> {
    log_of(vm, x, f64::log2)
}

/// The base-10 logarithm.
#[native("math.log10(x, /)", c)]
fn log10(vm: &dyn Vm, x: &Value) -> PyResult<f64> {
    log_of(vm, x, f64::log10)
}

/// The natural logarithm, or the logarithm in `base`: `math.log(8, 2) == 3.0`.
#[native("log(*args)")]
fn log(vm: &dyn Vm, args: &[Value]) -> PyResult<f64> {
    // CPython parses log's arguments itself, with its own count message.
    let (x, base) = match args {
        [x] => (x, &Value::None),
        [x, base] => (x, base),
        _ => return Err(type_error("math.log requires 1 to 2 arguments")),
    };
    let x = log_of(vm, x, f64::ln)?;
    if base.is_none() {
        return Ok(x);
    }
    let lb = log_of(vm, base, f64::ln)?;
    if lb == 0.0 {
        return Err(PyErr::new(
            ExcType::ZeroDivisionError,
            "float division by zero",
        ));
    }
    Ok(x / lb)
}

/// `x ** y` as floats: `math.pow(2, 3) == 8.0`.
#[native("math.pow(x, y, /)", c)]
fn pow(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Value> {
    let (x, y) = (real(vm, x)?, real(vm, y)?);
    if x == 0.0 && y < 0.0 && y.is_finite() {
        return Err(domain());
    }
    let r = x.powf(y);
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(domain());
    }
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(range_error());
    }
    Ok(Value::Float(r))
}

/// The angle of the point (x, y) in radians.
#[native("math.atan2(y, x, /)", c)]
fn atan2(vm: &dyn Vm, y: &Value, x: &Value) -> PyResult<f64> {
    Ok(real(vm, y)?.atan2(real(vm, x)?))
}

/// The Euclidean norm: `math.hypot(3, 4) == 5.0`.
#[native("hypot(*coordinates)")]
fn hypot(vm: &dyn Vm, coordinates: &[Value]) -> PyResult<f64> {
    let mut v = coordinates
        .iter()
        .map(|x| Ok(real(vm, x)?.abs()))
        .collect::<PyResult<Vec<f64>>>()?;
    Ok(special::vector_norm(&mut v))
}

/// The Euclidean distance between two points: `math.dist((0, 0), (3, 4)) == 5.0`.
#[native("math.dist(p, q, /)", c)]
fn dist(vm: &dyn Vm, p: &Value, q: &Value) -> PyResult<f64> {
    let (p, q) = (vm.collect(p)?, vm.collect(q)?);
    if p.len() != q.len() {
        return Err(value_error(
            "both points must have the same number of dimensions",
        ));
    }
    let mut v = p
        .iter()
        .zip(&q)
        .map(|(x, y)| Ok((real(vm, x)? - real(vm, y)?).abs()))
        .collect::<PyResult<Vec<f64>>>()?;
    Ok(special::vector_norm(&mut v))
}

/// `x` with the sign of `y`.
#[native("math.copysign(x, y, /)", c)]
fn copysign(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<f64> {
    Ok(real(vm, x)?.copysign(real(vm, y)?))
}

/// C's `fmod`: the remainder with the sign of `x`.
#[native("math.fmod(x, y, /)", c)]
fn fmod(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<f64> {
    let (x, y) = (real(vm, x)?, real(vm, y)?);
    if (y == 0.0 || x.is_infinite()) && !x.is_nan() && !y.is_nan() {
        return Err(domain());
    }
    Ok(x % y)
}

/// `x * 2**i`.
#[native("math.ldexp(x, i, /)", c)]
fn ldexp(vm: &dyn Vm, x: &Value, i: &Value) -> PyResult<f64> {
    let x = real(vm, x)?;
    let i = match i {
        Value::Float(_) => return Err(type_error("Expected an int as second argument to ldexp.")),
        v => {
            // Past i64: as far out as any exponent (CPython clamps it too).
            let n = crate::object::types::big_arg(v, vm)?;
            match num_traits::ToPrimitive::to_i64(&n) {
                Some(i) => i,
                None if n.sign() == num_bigint::Sign::Minus => i64::MIN,
                None => i64::MAX,
            }
        }
    };
    let mut i = i.clamp(-5000, 5000);
    let mut r = x;
    // Scale in steps that cannot overflow the power itself.
    while i > 1000 {
        r *= 2f64.powi(1000);
        i -= 1000;
    }
    while i < -1000 {
        r *= 2f64.powi(-1000);
        i += 1000;
    }
    r *= 2f64.powi(i as i32);
    if r.is_infinite() && x.is_finite() {
        return Err(range_error());
    }
    Ok(r)
}

/// Whether two numbers are close.
#[native("isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)")]
fn isclose(vm: &dyn Vm, a: &Value, b: &Value, rel_tol: &Value, abs_tol: &Value) -> PyResult<bool> {
    let (x, y) = (real(vm, a)?, real(vm, b)?);
    let (rel, abs) = (real(vm, rel_tol)?, real(vm, abs_tol)?);
    if rel < 0.0 || abs < 0.0 {
        return Err(value_error("tolerances must be non-negative"));
    }
    if x == y {
        return Ok(true);
    }
    if x.is_infinite() || y.is_infinite() {
        return Ok(false);
    }
    let diff = (x - y).abs();
    Ok(diff <= (rel * y).abs() || diff <= (rel * x).abs() || diff <= abs)
}

fn to_int_with(vm: &dyn Vm, v: &Value, name: &str, f: fn(f64) -> f64) -> PyResult<Value> {
    match v {
        Value::Int(_) | Value::Long(_) => Ok(v.clone()),
        Value::Bool(b) => Ok(Value::Int(*b as i64)),
        Value::Instance(_) => match vm.getattr(v, name) {
            Ok(m) => vm.call(&m, Vec::new(), Vec::new()),
            Err(_) => float_to_int(f(real(vm, v)?)),
        },
        other => float_to_int(f(real(vm, other)?)),
    }
}

/// The largest int <= x: `math.floor(-2.5) == -3`.
#[native("math.floor(x, /)", c)]
fn floor(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    to_int_with(vm, x, "__floor__", f64::floor)
}

/// The smallest int >= x: `math.ceil(2.1) == 3`.
#[native("math.ceil(x, /)", c)]
fn ceil(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    to_int_with(vm, x, "__ceil__", f64::ceil)
}

/// `x` truncated towards zero, as an int.
#[native("math.trunc(x, /)", c)]
fn trunc(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    let v = x;
    match v {
        Value::Int(_) | Value::Bool(_) | Value::Float(_) => {}
        // CPython's trunc only looks for `__trunc__`, never `__float__`.
        _ if vm.getattr(v, "__trunc__").is_err() => {
            return Err(type_error(format!(
                "type {} doesn't define __trunc__ method",
                v.type_name()
            )))
        }
        _ => {}
    }
    to_int_with(vm, v, "__trunc__", f64::trunc)
}

/// Whether x is NaN.
#[native("math.isnan(x, /)", c)]
fn isnan(vm: &dyn Vm, x: &Value) -> PyResult<bool> {
    Ok(real(vm, x)?.is_nan())
}

/// Whether x is infinite.
#[native("math.isinf(x, /)", c)]
fn isinf(vm: &dyn Vm, x: &Value) -> PyResult<bool> {
    Ok(real(vm, x)?.is_infinite())
}

/// Whether x is neither infinite nor NaN.
#[native("math.isfinite(x, /)", c)]
fn isfinite(vm: &dyn Vm, x: &Value) -> PyResult<bool> {
    Ok(real(vm, x)?.is_finite())
}

/// `(fractional part, integer part)`: `math.modf(-2.5) == (-0.5, -2.0)`.
#[native("math.modf(x, /)", c)]
fn modf(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    let x = real(vm, x)?;
    if x.is_infinite() {
        return Ok(Value::tuple(vec![
            Value::Float(0.0f64.copysign(x)),
            Value::Float(x),
        ]));
    }
    let t = x.trunc();
    Ok(Value::tuple(vec![
        Value::Float((x - t).copysign(x)),
        Value::Float(t),
    ]))
}

/// `(m, e)` with `x == m * 2**e`, `0.5 <= abs(m) < 1`.
#[native("math.frexp(x, /)", c)]
fn frexp(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    let x = real(vm, x)?;
    if x == 0.0 || !x.is_finite() {
        return Ok(Value::tuple(vec![Value::Float(x), Value::Int(0)]));
    }
    let (mut m, mut e) = (x.abs(), 0i64);
    while m >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    Ok(Value::tuple(vec![
        Value::Float(m.copysign(x)),
        Value::Int(e),
    ]))
}

/// An exactly rounded float sum: `math.fsum([0.1] * 10) == 1.0`.
#[native("math.fsum(seq, /)", c)]
fn fsum(vm: &dyn Vm, seq: &Value) -> PyResult<f64> {
    // Shewchuk's exact partial sums (the algorithm CPython uses).
    let mut partials: Vec<f64> = Vec::new();
    let mut special = 0.0f64;
    let mut inf_sum = 0.0f64;
    for v in vm.collect(seq)? {
        let mut x = real(vm, &v)?;
        if !x.is_finite() {
            if x.is_infinite() {
                inf_sum += x;
            }
            special += x;
            continue;
        }
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
        if x.is_infinite() {
            return Err(PyErr::new(
                ExcType::OverflowError,
                "intermediate overflow in fsum",
            ));
        }
    }
    if special != 0.0 || special.is_nan() {
        if inf_sum.is_nan() {
            return Err(value_error("-inf + inf in fsum"));
        }
        return Ok(special);
    }
    let mut hi = 0.0;
    while let Some(x) = partials.pop() {
        let prev = hi;
        hi = prev + x;
        let lo = x - (hi - prev);
        if lo != 0.0 {
            // Round half-even correction, as in CPython's math_fsum.
            if let Some(&next) = partials.last() {
                if (lo < 0.0 && next < 0.0) || (lo > 0.0 && next > 0.0) {
                    let y = lo * 2.0;
                    let x2 = hi + y;
                    if y == x2 - hi {
                        hi = x2;
                    }
                }
            }
            break;
        }
    }
    Ok(hi)
}
