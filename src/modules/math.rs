//! The `math` module: constants, float functions with CPython's error rules
//! (`ValueError: math domain error` when a finite input has no real result,
//! `OverflowError: math range error` when it is too large), and the integer
//! functions (`factorial`, `gcd`, `comb` …) on 64-bit ints.

#[path = "math_special.rs"]
mod special;

use super::math_int::{comb, factorial, gcd, isqrt, lcm, perm, prod};
use super::ModuleBuilder;
use crate::object::types::float::to_float;
use crate::object::types::{int_arg, type_error, value_error};
use crate::value::format::float_to_i64;
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};
use special::Special;

/// The `math` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("math");
    m.value("pi", Value::Float(std::f64::consts::PI))
        .value("e", Value::Float(std::f64::consts::E))
        .value("tau", Value::Float(std::f64::consts::TAU))
        .value("inf", Value::Float(f64::INFINITY))
        .value("nan", Value::Float(f64::NAN));
    for (sig, f, doc) in UNARY.iter().chain(C_STYLE) {
        c_function(&mut m, sig, *f, doc);
    }
    m.function(
        "log(*args)",
        log,
        "The natural logarithm, or the logarithm in `base`: `math.log(8, 2) == 3.0`.",
    )
    .function(
        "hypot(*coordinates)",
        hypot,
        "The Euclidean norm: `math.hypot(3, 4) == 5.0`.",
    )
    .function(
        "isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)",
        isclose,
        "Whether two numbers are close.",
    )
    .function(
        "prod(iterable, /, *, start=1)",
        prod,
        "The product of the items: `math.prod([2, 3]) == 6`.",
    )
    .function(
        "gcd(*integers)",
        gcd,
        "The greatest common divisor: `math.gcd(12, 18) == 6`.",
    )
    .function(
        "lcm(*integers)",
        lcm,
        "The least common multiple: `math.lcm(4, 6) == 12`.",
    );
    m.build()
}

/// A float argument (`TypeError: must be real number, not str`).
fn real(vm: &dyn Vm, v: &Value) -> PyResult<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::Int(i) => Ok(*i as f64),
        Value::Bool(b) => Ok(*b as i64 as f64),
        Value::Native(n) if n.type_name() == "complex" => {
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
    ($($name:ident = $f:expr, $overflow:expr;)*) => {
        $(fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            let x = real(vm, a.get(0))?;
            let f: fn(f64) -> f64 = $f;
            checked(x, f(x), $overflow)
        })*
    };
}

unary! {
    sqrt = f64::sqrt, false;
    exp = f64::exp, true;
    expm1 = f64::exp_m1, true;
    log2 = f64::log2, false;
    log10 = f64::log10, false;
    log1p = f64::ln_1p, false;
    fabs = f64::abs, false;
    sin = f64::sin, false;
    cos = f64::cos, false;
    tan = f64::tan, false;
    asin = f64::asin, false;
    acos = f64::acos, false;
    atan = f64::atan, false;
    sinh = f64::sinh, true;
    cosh = f64::cosh, true;
    tanh = f64::tanh, false;
    asinh = special::asinh, false;
    acosh = special::acosh, false;
    atanh = special::atanh, false;
    degrees = f64::to_degrees, true;
    radians = f64::to_radians, false;
    cbrt = special::cbrt, false;
    exp2 = f64::exp2, true;
    erf = special::erf, false;
    erfc = special::erfc, false;
}

type Entry = (&'static str, crate::value::NativeFn, &'static str);

/// Functions CPython writes in C with positional-only parameters, whose
/// argument-count errors read `math.sqrt() takes exactly one argument (0
/// given)` / `pow expected 2 arguments, got 1`.
const C_STYLE: &[Entry] = &[
    (
        "pow(x, y, /)",
        pow,
        "`x ** y` as floats: `math.pow(2, 3) == 8.0`.",
    ),
    (
        "atan2(y, x, /)",
        atan2,
        "The angle of the point (x, y) in radians.",
    ),
    ("copysign(x, y, /)", copysign, "`x` with the sign of `y`."),
    (
        "fmod(x, y, /)",
        fmod,
        "C's `fmod`: the remainder with the sign of `x`.",
    ),
    ("ldexp(x, i, /)", ldexp, "`x * 2**i`."),
    (
        "floor(x, /)",
        floor,
        "The largest int <= x: `math.floor(-2.5) == -3`.",
    ),
    (
        "ceil(x, /)",
        ceil,
        "The smallest int >= x: `math.ceil(2.1) == 3`.",
    ),
    (
        "trunc(x, /)",
        trunc,
        "`x` truncated towards zero, as an int.",
    ),
    ("isnan(x, /)", isnan, "Whether x is NaN."),
    ("isinf(x, /)", isinf, "Whether x is infinite."),
    (
        "isfinite(x, /)",
        isfinite,
        "Whether x is neither infinite nor NaN.",
    ),
    (
        "modf(x, /)",
        modf,
        "`(fractional part, integer part)`: `math.modf(-2.5) == (-0.5, -2.0)`.",
    ),
    (
        "frexp(x, /)",
        frexp,
        "`(m, e)` with `x == m * 2**e`, `0.5 <= abs(m) < 1`.",
    ),
    (
        "fsum(seq, /)",
        fsum,
        "An exactly rounded float sum: `math.fsum([0.1] * 10) == 1.0`.",
    ),
    (
        "factorial(n, /)",
        factorial,
        "`n!` for an int n >= 0: `math.factorial(5) == 120`.",
    ),
    (
        "dist(p, q, /)",
        dist,
        "The Euclidean distance between two points: `math.dist((0, 0), (3, 4)) == 5.0`.",
    ),
    (
        "isqrt(n, /)",
        isqrt,
        "The integer square root: `math.isqrt(17) == 4`.",
    ),
    (
        "comb(n, k, /)",
        comb,
        "Ways to choose k of n items: `math.comb(5, 2) == 10`.",
    ),
    (
        "gamma(x, /)",
        gamma,
        "The gamma function: `math.gamma(5) == 24.0`.",
    ),
    (
        "lgamma(x, /)",
        lgamma,
        "The natural logarithm of the absolute value of the gamma function.",
    ),
    (
        "nextafter(x, y, /)",
        nextafter,
        "The next float after x towards y: `math.nextafter(1, 2) == 1.0000000000000002`.",
    ),
    (
        "remainder(x, y, /)",
        remainder,
        "IEEE 754 remainder: `x - n*y` with n the integer nearest `x / y`.",
    ),
    (
        "ulp(x, /)",
        ulp,
        "The value of the least significant bit of x: `math.ulp(1.0) == 2.220446049250313e-16`.",
    ),
    (
        "perm(n, k=None, /)",
        perm,
        "Ordered ways to pick k of n items: `math.perm(5, 2) == 20`.",
    ),
];

/// Registers a C-style builtin under its short name (`math.sqrt` as `sqrt`).
fn c_function(m: &mut ModuleBuilder, sig: &str, f: crate::value::NativeFn, doc: &'static str) {
    let func = crate::value::NativeFunction::new_builtin(&format!("math.{sig}"), f, doc);
    let name = func.name().to_string();
    m.value(&name, Value::NativeFunction(func));
}

const UNARY: &[Entry] = &[
    (
        "sqrt(x, /)",
        sqrt,
        "The square root: `math.sqrt(2) == 1.4142135623730951`.",
    ),
    ("exp(x, /)", exp, "`e ** x`."),
    ("expm1(x, /)", expm1, "`exp(x) - 1`, accurate for small x."),
    ("log2(x, /)", log2, "The base-2 logarithm."),
    ("log10(x, /)", log10, "The base-10 logarithm."),
    ("log1p(x, /)", log1p, "`log(1 + x)`, accurate for small x."),
    ("fabs(x, /)", fabs, "The absolute value as a float."),
    ("sin(x, /)", sin, "The sine of x radians."),
    ("cos(x, /)", cos, "The cosine of x radians."),
    ("tan(x, /)", tan, "The tangent of x radians."),
    ("asin(x, /)", asin, "The arc sine, in radians."),
    ("acos(x, /)", acos, "The arc cosine, in radians."),
    ("atan(x, /)", atan, "The arc tangent, in radians."),
    ("sinh(x, /)", sinh, "The hyperbolic sine."),
    ("cosh(x, /)", cosh, "The hyperbolic cosine."),
    ("tanh(x, /)", tanh, "The hyperbolic tangent."),
    ("asinh(x, /)", asinh, "The inverse hyperbolic sine."),
    ("acosh(x, /)", acosh, "The inverse hyperbolic cosine."),
    ("atanh(x, /)", atanh, "The inverse hyperbolic tangent."),
    ("degrees(x, /)", degrees, "Radians to degrees."),
    ("radians(x, /)", radians, "Degrees to radians."),
    ("cbrt(x, /)", cbrt, "The cube root: `math.cbrt(27) == 3.0`."),
    ("exp2(x, /)", exp2, "`2 ** x`: `math.exp2(3) == 8.0`."),
    ("erf(x, /)", erf, "The error function."),
    (
        "erfc(x, /)",
        erfc,
        "The complementary error function, `1 - erf(x)`.",
    ),
];

fn special_result(r: Special) -> PyResult<Value> {
    match r {
        Special::Value(v) => Ok(Value::Float(v)),
        Special::Domain => Err(domain()),
        Special::Range => Err(range_error()),
    }
}

fn gamma(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    special_result(special::gamma(real(vm, a.get(0))?))
}

fn lgamma(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    special_result(special::lgamma(real(vm, a.get(0))?))
}

fn nextafter(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = (real(vm, a.get(0))?, real(vm, a.get(1))?);
    Ok(Value::Float(special::nextafter(x, y)))
}

/// CPython's rules: an infinite x or a zero y has no remainder.
fn remainder(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = (real(vm, a.get(0))?, real(vm, a.get(1))?);
    if x.is_nan() || y.is_nan() {
        return Ok(Value::Float(f64::NAN));
    }
    if x.is_infinite() || y == 0.0 {
        return Err(domain());
    }
    Ok(Value::Float(special::remainder(x, y)))
}

fn ulp(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Float(special::ulp(real(vm, a.get(0))?)))
}

fn ln(x: f64) -> PyResult<f64> {
    if x.is_nan() {
        return Ok(x);
    }
    if x <= 0.0 {
        return Err(domain());
    }
    Ok(x.ln())
}

fn log(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    // CPython parses log's arguments itself, with its own count message.
    let args = a.varargs(0);
    if args.is_empty() || args.len() > 2 {
        return Err(type_error("math.log requires 1 to 2 arguments"));
    }
    let x = ln(real(vm, &args[0])?)?;
    match args.get(1).unwrap_or(&Value::None) {
        Value::None => Ok(Value::Float(x)),
        b => {
            let lb = ln(real(vm, b)?)?;
            if lb == 0.0 {
                return Err(PyErr::new(
                    ExcType::ZeroDivisionError,
                    "float division by zero",
                ));
            }
            Ok(Value::Float(x / lb))
        }
    }
}

fn pow(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = (real(vm, a.get(0))?, real(vm, a.get(1))?);
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

fn atan2(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Float(real(vm, a.get(0))?.atan2(real(vm, a.get(1))?)))
}

fn hypot(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut v = a
        .varargs(0)
        .iter()
        .map(|x| Ok(real(vm, x)?.abs()))
        .collect::<PyResult<Vec<f64>>>()?;
    Ok(Value::Float(special::vector_norm(&mut v)))
}

fn dist(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (p, q) = (vm.collect(a.get(0))?, vm.collect(a.get(1))?);
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
    Ok(Value::Float(special::vector_norm(&mut v)))
}

fn copysign(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Float(
        real(vm, a.get(0))?.copysign(real(vm, a.get(1))?),
    ))
}

fn fmod(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = (real(vm, a.get(0))?, real(vm, a.get(1))?);
    if (y == 0.0 || x.is_infinite()) && !x.is_nan() && !y.is_nan() {
        return Err(domain());
    }
    Ok(Value::Float(x % y))
}

fn ldexp(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = real(vm, a.get(0))?;
    let i = match a.get(1) {
        Value::Float(_) => return Err(type_error("Expected an int as second argument to ldexp.")),
        v => int_arg(v, vm)?,
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
    Ok(Value::Float(r))
}

fn isclose(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = (real(vm, a.get(0))?, real(vm, a.get(1))?);
    let (rel, abs) = (real(vm, a.get(2))?, real(vm, a.get(3))?);
    if rel < 0.0 || abs < 0.0 {
        return Err(value_error("tolerances must be non-negative"));
    }
    if x == y {
        return Ok(Value::Bool(true));
    }
    if x.is_infinite() || y.is_infinite() {
        return Ok(Value::Bool(false));
    }
    let diff = (x - y).abs();
    Ok(Value::Bool(
        diff <= (rel * y).abs() || diff <= (rel * x).abs() || diff <= abs,
    ))
}

fn to_int_with(vm: &dyn Vm, v: &Value, name: &str, f: fn(f64) -> f64) -> PyResult<Value> {
    match v {
        Value::Int(i) => Ok(Value::Int(*i)),
        Value::Bool(b) => Ok(Value::Int(*b as i64)),
        Value::Instance(_) => match vm.getattr(v, name) {
            Ok(m) => vm.call(&m, Vec::new(), Vec::new()),
            Err(_) => Ok(Value::Int(float_to_i64(f(real(vm, v)?))?)),
        },
        other => Ok(Value::Int(float_to_i64(f(real(vm, other)?))?)),
    }
}

fn floor(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    to_int_with(vm, a.get(0), "__floor__", f64::floor)
}

fn ceil(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    to_int_with(vm, a.get(0), "__ceil__", f64::ceil)
}

fn trunc(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let v = a.get(0);
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

fn isnan(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(real(vm, a.get(0))?.is_nan()))
}

fn isinf(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(real(vm, a.get(0))?.is_infinite()))
}

fn isfinite(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(real(vm, a.get(0))?.is_finite()))
}

fn modf(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = real(vm, a.get(0))?;
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

fn frexp(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = real(vm, a.get(0))?;
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

fn fsum(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    // Shewchuk's exact partial sums (the algorithm CPython uses).
    let mut partials: Vec<f64> = Vec::new();
    let mut special = 0.0f64;
    let mut inf_sum = 0.0f64;
    for v in vm.collect(a.get(0))? {
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
        return Ok(Value::Float(special));
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
    Ok(Value::Float(hi))
}
