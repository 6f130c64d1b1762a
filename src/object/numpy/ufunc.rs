//! numpy's element-wise functions (`np.sin`, `np.maximum`, `np.arctan2`…)
//! with the arguments every ufunc takes: `out=` (an array the result is
//! cast into, numpy's `same_kind` rule), `dtype=` (the loop to run) and
//! `where=` (dist takes only `True`). The math is in
//! `runtime::ops::np_math` and `np_binary`.

use super::array::{nep50_pair, wrap, NdArray};
use super::to_np_tensor;
use crate::object::numpy::opt_np_dtype;
use crate::object::{native, NativeDef};
use crate::runtime::ops::elementwise::np_broadcast_message;
use crate::runtime::ops::np_math::{np_binary_fn, np_unary, NpBinary, NpUnary};
use crate::runtime::{ops, BinaryOp, DType, ErrorKind, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Runtime errors as numpy raises them (a missing feature is
/// NotImplementedError, a bad argument ValueError).
pub fn np_rt<T>(r: crate::runtime::Result<T>) -> PyResult<T> {
    r.map_err(|e| match e.kind() {
        ErrorKind::Unimplemented => PyErr::new(ExcType::NotImplementedError, e.message()),
        ErrorKind::InvalidArgument => PyErr::new(ExcType::ValueError, e.message()),
        ErrorKind::ResourceExhausted => PyErr::new(ExcType::MemoryError, e.message()),
        ErrorKind::Type
            if e.message()
                .contains("did not contain a loop with signature") =>
        {
            PyErr::new(ExcType::UFuncNoLoopError, e.message())
        }
        _ => crate::object::tensor::convert::runtime_err(e),
    })
}

/// Whether numpy's `same_kind` rule lets a `from` result be stored in `to`.
fn same_kind(from: DType, to: DType) -> bool {
    let kind = |d: DType| match d {
        DType::Bool => 0,
        DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => 1,
        d if d.is_floating() => 2,
        d if d.is_complex() => 3,
        _ => 4,
    };
    kind(from) <= kind(to)
}

/// The ufunc's result: a new value, or stored into `out` (returned).
fn finish(
    name: &str,
    inputs: &[&Tensor],
    r: Tensor,
    out: &Value,
    where_: &Value,
) -> PyResult<Value> {
    if !matches!(where_, Value::Bool(true)) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!("np.{name}(where=...) is not supported in dist"),
        ));
    }
    let out = match out {
        Value::None => return Ok(wrap(r)),
        Value::Tuple(items) if items.len() == 1 => &items[0],
        other => other,
    };
    let Some(arr) = out.downcast::<NdArray>().filter(|a| !a.scalar) else {
        return Err(PyErr::new(
            ExcType::TypeError,
            "return arrays must be of ArrayType",
        ));
    };
    let target = arr.tensor();
    let (from, to) = (r.dtype(), target.dtype());
    if !same_kind(from, to) {
        return Err(PyErr::new(
            ExcType::UFuncOutputCastingError,
            format!(
                "Cannot cast ufunc '{name}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                from.numpy_name(),
                to.numpy_name()
            ),
        ));
    }
    let fits = r.shape().broadcast(target.shape()).as_ref() == Some(target.shape());
    if !fits {
        // numpy's message lists the inputs' shapes and the output's
        let shapes: Vec<_> = inputs
            .iter()
            .map(|t| t.shape())
            .chain([target.shape()])
            .collect();
        return Err(PyErr::new(
            ExcType::ValueError,
            np_broadcast_message(&shapes),
        ));
    }
    let r = np_rt(ops::broadcast_to(&np_rt(ops::cast(&r, to))?, target.dims()))?;
    *arr.t.borrow_mut() = r;
    Ok(out.clone())
}

fn unary(
    vm: &dyn Vm,
    f: NpUnary,
    x: &Value,
    out: &Value,
    where_: &Value,
    dtype: &Value,
) -> PyResult<Value> {
    let mut t = to_np_tensor(vm, x, None)?;
    if let Some(d) = opt_np_dtype(vm, dtype)? {
        t = np_rt(ops::cast(&t, d))?;
    }
    let r = np_rt(np_unary(f, &t))?;
    super::fperr::check(vm, f.name(), false, &[&t], &r)?;
    finish(f.name(), &[&t], r, out, where_)
}

macro_rules! unary_ufuncs {
    ($($name:ident $sig:literal => $f:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[native($sig)]
        pub fn $name(vm: &dyn Vm, x: &Value, out: &Value, r#where: &Value, dtype: &Value) -> PyResult<Value> {
            unary(vm, NpUnary::$f, x, out, r#where, dtype)
        }
    )*
        /// The unary ufuncs.
        pub const UNARY: &[NativeDef] = &[$($name::DEF,)*];
    };
}

unary_ufuncs! {
    sin "sin(x, /, out=None, *, where=True, dtype=None)" => Sin, "Sine, element-wise.";
    cos "cos(x, /, out=None, *, where=True, dtype=None)" => Cos, "Cosine, element-wise.";
    tan "tan(x, /, out=None, *, where=True, dtype=None)" => Tan, "Tangent, element-wise.";
    arcsin "arcsin(x, /, out=None, *, where=True, dtype=None)" => Arcsin, "Inverse sine, element-wise.";
    arccos "arccos(x, /, out=None, *, where=True, dtype=None)" => Arccos, "Inverse cosine, element-wise.";
    arctan "arctan(x, /, out=None, *, where=True, dtype=None)" => Arctan, "Inverse tangent, element-wise.";
    sinh "sinh(x, /, out=None, *, where=True, dtype=None)" => Sinh, "Hyperbolic sine, element-wise.";
    cosh "cosh(x, /, out=None, *, where=True, dtype=None)" => Cosh, "Hyperbolic cosine, element-wise.";
    tanh "tanh(x, /, out=None, *, where=True, dtype=None)" => Tanh, "Hyperbolic tangent, element-wise.";
    arcsinh "arcsinh(x, /, out=None, *, where=True, dtype=None)" => Arcsinh, "Inverse hyperbolic sine, element-wise.";
    arccosh "arccosh(x, /, out=None, *, where=True, dtype=None)" => Arccosh, "Inverse hyperbolic cosine, element-wise.";
    arctanh "arctanh(x, /, out=None, *, where=True, dtype=None)" => Arctanh, "Inverse hyperbolic tangent, element-wise.";
    exp "exp(x, /, out=None, *, where=True, dtype=None)" => Exp, "`e ** x`, element-wise.";
    exp2 "exp2(x, /, out=None, *, where=True, dtype=None)" => Exp2, "`2 ** x`, element-wise.";
    expm1 "expm1(x, /, out=None, *, where=True, dtype=None)" => Expm1, "`exp(x) - 1`, element-wise.";
    log "log(x, /, out=None, *, where=True, dtype=None)" => Log, "Natural logarithm, element-wise.";
    log2 "log2(x, /, out=None, *, where=True, dtype=None)" => Log2, "Base-2 logarithm, element-wise.";
    log10 "log10(x, /, out=None, *, where=True, dtype=None)" => Log10, "Base-10 logarithm, element-wise.";
    log1p "log1p(x, /, out=None, *, where=True, dtype=None)" => Log1p, "`log(1 + x)`, element-wise.";
    sqrt "sqrt(x, /, out=None, *, where=True, dtype=None)" => Sqrt, "Square root, element-wise.";
    cbrt "cbrt(x, /, out=None, *, where=True, dtype=None)" => Cbrt, "Cube root, element-wise.";
    rint "rint(x, /, out=None, *, where=True, dtype=None)" => Rint, "Round to the nearest integer (half to even), element-wise.";
    deg2rad "deg2rad(x, /, out=None, *, where=True, dtype=None)" => Deg2rad, "Degrees to radians, element-wise.";
    radians "radians(x, /, out=None, *, where=True, dtype=None)" => Deg2rad, "Degrees to radians, element-wise.";
    rad2deg "rad2deg(x, /, out=None, *, where=True, dtype=None)" => Rad2deg, "Radians to degrees, element-wise.";
    degrees "degrees(x, /, out=None, *, where=True, dtype=None)" => Rad2deg, "Radians to degrees, element-wise.";
    fabs "fabs(x, /, out=None, *, where=True, dtype=None)" => Fabs, "Absolute value of real numbers, element-wise.";
    negative "negative(x, /, out=None, *, where=True, dtype=None)" => Negative, "`-x`, element-wise.";
    positive "positive(x, /, out=None, *, where=True, dtype=None)" => Positive, "`+x`, element-wise.";
    absolute "absolute(x, /, out=None, *, where=True, dtype=None)" => Absolute, "Absolute value, element-wise.";
    abs "abs(x, /, out=None, *, where=True, dtype=None)" => Absolute, "Absolute value, element-wise.";
    square "square(x, /, out=None, *, where=True, dtype=None)" => Square, "`x * x`, element-wise.";
    reciprocal "reciprocal(x, /, out=None, *, where=True, dtype=None)" => Reciprocal, "`1 / x`, element-wise.";
    sign "sign(x, /, out=None, *, where=True, dtype=None)" => Sign, "-1, 0 or 1 by the sign of each element (NaN stays NaN).";
    floor "floor(x, /, out=None, *, where=True, dtype=None)" => Floor, "Round down, element-wise.";
    ceil "ceil(x, /, out=None, *, where=True, dtype=None)" => Ceil, "Round up, element-wise.";
    trunc "trunc(x, /, out=None, *, where=True, dtype=None)" => Trunc, "Round toward zero, element-wise.";
    fix "fix(x, /, out=None, *, where=True, dtype=None)" => Trunc, "Round toward zero, element-wise.";
    isnan "isnan(x, /, out=None, *, where=True, dtype=None)" => Isnan, "Whether each element is NaN.";
    isinf "isinf(x, /, out=None, *, where=True, dtype=None)" => Isinf, "Whether each element is infinite.";
    isfinite "isfinite(x, /, out=None, *, where=True, dtype=None)" => Isfinite, "Whether each element is finite (neither infinite nor NaN).";
    signbit "signbit(x, /, out=None, *, where=True, dtype=None)" => Signbit, "Whether each element's sign bit is set.";
    logical_not "logical_not(x, /, out=None, *, where=True, dtype=None)" => LogicalNot, "`not x`, element-wise.";
    invert "invert(x, /, out=None, *, where=True, dtype=None)" => Invert, "Bitwise not of ints (logical not of bools).";
    bitwise_not "bitwise_not(x, /, out=None, *, where=True, dtype=None)" => Invert, "Bitwise not of ints (logical not of bools).";
}

/// The two operands, cast to `dtype` when it is given.
fn pair(vm: &dyn Vm, x1: &Value, x2: &Value, dtype: &Value) -> PyResult<(Tensor, Tensor)> {
    let (a, b) = nep50_pair(vm, x1, x2)?;
    Ok(match opt_np_dtype(vm, dtype)? {
        Some(d) => (np_rt(ops::cast(&a, d))?, np_rt(ops::cast(&b, d))?),
        None => (a, b),
    })
}

/// A binary function that is numpy's arithmetic or comparison operator.
enum Binary {
    Op(BinaryOp),
    Fn(NpBinary),
}

fn binary(
    vm: &dyn Vm,
    name: &str,
    f: Binary,
    args: (&Value, &Value),
    out: &Value,
    where_: &Value,
    dtype: &Value,
) -> PyResult<Value> {
    let (a, b) = pair(vm, args.0, args.1, dtype)?;
    let r = match f {
        Binary::Op(op) => ops::np_binary(op, &a, &b),
        Binary::Fn(f) => np_binary_fn(f, &a, &b),
    };
    let r = np_rt(r)?;
    super::fperr::check(vm, name, false, &[&a, &b], &r)?;
    finish(name, &[&a, &b], r, out, where_)
}

macro_rules! binary_ufuncs {
    ($($name:ident $sig:literal => $kind:ident($f:ident), $doc:literal;)*) => {$(
        #[doc = $doc]
        #[native($sig)]
        pub fn $name(
            vm: &dyn Vm,
            x1: &Value,
            x2: &Value,
            out: &Value,
            r#where: &Value,
            dtype: &Value,
        ) -> PyResult<Value> {
            let f = binary_ufuncs!(@f $kind $f);
            binary(vm, $sig.split('(').next().unwrap_or_default(), f, (x1, x2), out, r#where, dtype)
        }
    )*
        /// The binary ufuncs.
        pub const BINARY: &[NativeDef] = &[$($name::DEF,)*];
    };
    (@f Op $f:ident) => { Binary::Op(BinaryOp::$f) };
    (@f Fn $f:ident) => { Binary::Fn(NpBinary::$f) };
}

binary_ufuncs! {
    add "add(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Add), "`x1 + x2`, element-wise.";
    subtract "subtract(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Sub), "`x1 - x2`, element-wise.";
    multiply "multiply(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Mul), "`x1 * x2`, element-wise.";
    divide "divide(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(RealDiv), "`x1 / x2`, element-wise.";
    true_divide "true_divide(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(RealDiv), "`x1 / x2`, element-wise.";
    floor_divide "floor_divide(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(FloorDiv), "`x1 // x2`, element-wise.";
    remainder "remainder(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(FloorMod), "`x1 % x2` (the divisor's sign), element-wise.";
    mod_ "mod(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(FloorMod), "`x1 % x2` (the divisor's sign), element-wise.";
    power "power(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Pow), "`x1 ** x2`, element-wise.";
    maximum "maximum(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Maximum), "The larger of each pair (NaN if either is).";
    minimum "minimum(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Minimum), "The smaller of each pair (NaN if either is).";
    equal "equal(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Equal), "`x1 == x2`, element-wise.";
    not_equal "not_equal(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(NotEqual), "`x1 != x2`, element-wise.";
    less "less(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Less), "`x1 < x2`, element-wise.";
    less_equal "less_equal(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(LessEqual), "`x1 <= x2`, element-wise.";
    greater "greater(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(Greater), "`x1 > x2`, element-wise.";
    greater_equal "greater_equal(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(GreaterEqual), "`x1 >= x2`, element-wise.";
    logical_and "logical_and(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(LogicalAnd), "`x1 and x2`, element-wise.";
    logical_or "logical_or(x1, x2, /, out=None, *, where=True, dtype=None)" => Op(LogicalOr), "`x1 or x2`, element-wise.";
    logical_xor "logical_xor(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(LogicalXor), "`bool(x1) != bool(x2)`, element-wise.";
    arctan2 "arctan2(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Arctan2), "The angle of the point `(x2, x1)`, element-wise.";
    hypot "hypot(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Hypot), "`sqrt(x1**2 + x2**2)`, element-wise.";
    copysign "copysign(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Copysign), "`x1`'s magnitude with `x2`'s sign.";
    logaddexp "logaddexp(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Logaddexp), "`log(exp(x1) + exp(x2))`, element-wise.";
    logaddexp2 "logaddexp2(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Logaddexp2), "`log2(2**x1 + 2**x2)`, element-wise.";
    heaviside "heaviside(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Heaviside), "The Heaviside step of `x1` (`x2` where it is 0).";
    fmod "fmod(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Fmod), "C's remainder (the dividend's sign), element-wise.";
    fmax "fmax(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Fmax), "The larger of each pair, ignoring NaNs.";
    fmin "fmin(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(Fmin), "The smaller of each pair, ignoring NaNs.";
    float_power "float_power(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(FloatPower), "`x1 ** x2` in float64 (or complex128).";
    bitwise_and "bitwise_and(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(BitwiseAnd), "`x1 & x2`, element-wise.";
    bitwise_or "bitwise_or(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(BitwiseOr), "`x1 | x2`, element-wise.";
    bitwise_xor "bitwise_xor(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(BitwiseXor), "`x1 ^ x2`, element-wise.";
    left_shift "left_shift(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(LeftShift), "`x1 << x2`, element-wise.";
    right_shift "right_shift(x1, x2, /, out=None, *, where=True, dtype=None)" => Fn(RightShift), "`x1 >> x2`, element-wise.";
}
