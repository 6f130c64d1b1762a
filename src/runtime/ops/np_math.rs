//! numpy's element-wise functions (its ufuncs) where they differ from
//! TensorFlow's ops: numpy's choice of loop (an int8 array's `sin` is
//! float16, an int32's float64, a bool's `square` int8), the C library's
//! math for each float type (TensorFlow's kernels use Eigen's vectorised
//! functions; numpy calls `sin`, `sinf`…, and float16 computes in float32),
//! and numpy's integer and bitwise ops. Arrays live in host memory, and
//! nothing here records on tapes or graphs: a numpy value is a constant to
//! TensorFlow.

use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::f16::F16;
use crate::runtime::op::{Semantics, UnaryOp};
use crate::runtime::ops::{self, promote_types};
use crate::runtime::storage::{try_vec, HostData};
use crate::runtime::tensor::Tensor;
use crate::runtime::Device;

macro_rules! np_fns {
    ($ty:ident: $($v:ident = $name:literal,)*) => {
        /// One of numpy's functions, named as numpy names it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $ty { $($v,)* }

        impl $ty {
            /// numpy's name of the ufunc.
            pub fn name(self) -> &'static str {
                match self { $($ty::$v => $name,)* }
            }
        }
    };
}

np_fns! { NpUnary:
    Sin = "sin", Cos = "cos", Tan = "tan", Arcsin = "arcsin", Arccos = "arccos",
    Arctan = "arctan", Sinh = "sinh", Cosh = "cosh", Tanh = "tanh",
    Arcsinh = "arcsinh", Arccosh = "arccosh", Arctanh = "arctanh", Exp = "exp",
    Exp2 = "exp2", Expm1 = "expm1", Log = "log", Log2 = "log2", Log10 = "log10",
    Log1p = "log1p", Sqrt = "sqrt", Cbrt = "cbrt", Rint = "rint",
    Deg2rad = "deg2rad", Rad2deg = "rad2deg", Fabs = "fabs",
    Negative = "negative", Positive = "positive", Absolute = "absolute",
    Square = "square", Reciprocal = "reciprocal", Sign = "sign", Floor = "floor",
    Ceil = "ceil", Trunc = "trunc", Isnan = "isnan", Isinf = "isinf",
    Isfinite = "isfinite", Signbit = "signbit", LogicalNot = "logical_not",
    Invert = "invert",
}

np_fns! { NpBinary:
    Arctan2 = "arctan2", Hypot = "hypot", Copysign = "copysign",
    Logaddexp = "logaddexp", Logaddexp2 = "logaddexp2", Heaviside = "heaviside",
    Fmod = "fmod", Fmax = "fmax", Fmin = "fmin", FloatPower = "float_power",
    BitwiseAnd = "bitwise_and", BitwiseOr = "bitwise_or",
    BitwiseXor = "bitwise_xor", LeftShift = "left_shift",
    RightShift = "right_shift", LogicalXor = "logical_xor",
}

/// How a unary function picks its loop.
enum Loop {
    /// Float loops only: ints and bools go to the smallest float that
    /// holds them; complex where TensorFlow's op has complex kernels.
    Float,
    /// Float loops, no complex (`cbrt`, `fabs`, `deg2rad`…).
    RealFloat,
    /// The input's own dtype (bools: `bool` or `int8` as numpy has it).
    Same,
    /// A bool per element.
    Predicate,
}

impl NpUnary {
    fn loop_kind(self) -> Loop {
        use NpUnary::*;
        match self {
            Cbrt | Rint | Deg2rad | Rad2deg | Fabs => Loop::RealFloat,
            Negative | Positive | Absolute | Square | Reciprocal | Sign | Floor | Ceil | Trunc
            | Invert => Loop::Same,
            Isnan | Isinf | Isfinite | Signbit | LogicalNot => Loop::Predicate,
            _ => Loop::Float,
        }
    }

    /// TensorFlow's op of the same complex function, where it has one.
    fn complex_op(self) -> Option<UnaryOp> {
        use NpUnary::*;
        Some(match self {
            Sin => UnaryOp::Sin,
            Cos => UnaryOp::Cos,
            Tan => UnaryOp::Tan,
            Arcsin => UnaryOp::Asin,
            Arccos => UnaryOp::Acos,
            Arctan => UnaryOp::Atan,
            Sinh => UnaryOp::Sinh,
            Cosh => UnaryOp::Cosh,
            Tanh => UnaryOp::Tanh,
            Arcsinh => UnaryOp::Asinh,
            Arccosh => UnaryOp::Acosh,
            Arctanh => UnaryOp::Atanh,
            Exp => UnaryOp::Exp,
            Expm1 => UnaryOp::Expm1,
            Log => UnaryOp::Log,
            Log1p => UnaryOp::Log1p,
            Sqrt => UnaryOp::Sqrt,
            Negative => UnaryOp::Neg,
            Square => UnaryOp::Square,
            Reciprocal => UnaryOp::Reciprocal,
            _ => return None,
        })
    }
}

/// numpy's TypeError for a ufunc with no loop for its inputs.
pub fn no_loop(name: &str) -> Error {
    Error::type_error(format!(
        "ufunc '{name}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''"
    ))
}

/// The smallest float type numpy's float loops take `d` to.
fn float_loop(d: DType) -> DType {
    match d {
        DType::Bool | DType::Int8 | DType::UInt8 => DType::Float16,
        DType::Int16 => DType::Float32,
        d if d.is_floating() || d.is_complex() => d,
        _ => DType::Float64,
    }
}

// The C library's inverse hyperbolic functions (Rust's std computes them
// with formulas of its own; numpy calls the C library).
use crate::runtime::backend::cpu::elementwise::{
    libm_acosh as acosh, libm_acoshf as acoshf, libm_asinh as asinh, libm_asinhf as asinhf,
    libm_atanh as atanh, libm_atanhf as atanhf,
};

/// `log(b**x + b**y)` by numpy's formula: the larger plus `log1p(b**-|d|)`
/// (`pow` is `b**v`, `log1p` its logarithm of `1 + v`).
fn log_add<T: Real + std::ops::Sub<Output = T> + std::ops::Add<Output = T> + From<f32>>(
    x: T,
    y: T,
    pow: fn(T) -> T,
    log1p: impl Fn(T) -> T,
) -> T {
    let zero = T::from(0.0);
    let d = x - y;
    if d > zero {
        x + log1p(pow(-d))
    } else if d <= zero {
        y + log1p(pow(d))
    } else {
        d
    }
}

/// A float type numpy computes in (float16 computes in float32).
trait Real: Copy + PartialOrd + std::ops::Neg<Output = Self> {
    fn math(self, f: NpUnary) -> Self;
    fn math2(self, y: Self, f: NpBinary) -> Self;
}

macro_rules! real_impl {
    ($t:ty, $asinh:ident, $acosh:ident, $atanh:ident, $pi:expr, $ln2:expr) => {
        impl Real for $t {
            fn math(self, f: NpUnary) -> $t {
                use NpUnary::*;
                let x = self;
                match f {
                    Sin => x.sin(),
                    Cos => x.cos(),
                    Tan => x.tan(),
                    Arcsin => x.asin(),
                    Arccos => x.acos(),
                    Arctan => x.atan(),
                    Sinh => x.sinh(),
                    Cosh => x.cosh(),
                    Tanh => x.tanh(),
                    Arcsinh => $asinh(x),
                    Arccosh => $acosh(x),
                    Arctanh => $atanh(x),
                    Exp => x.exp(),
                    Exp2 => x.exp2(),
                    Expm1 => x.exp_m1(),
                    Log => x.ln(),
                    Log2 => x.log2(),
                    Log10 => x.log10(),
                    Log1p => x.ln_1p(),
                    Sqrt => x.sqrt(),
                    Cbrt => x.cbrt(),
                    Rint => x.round_ties_even(),
                    Deg2rad => x * ($pi / 180.0),
                    Rad2deg => x * (180.0 / $pi),
                    Fabs | Absolute => x.abs(),
                    Negative => -x,
                    Positive => x,
                    Square => x * x,
                    Reciprocal => 1.0 / x,
                    Sign if x.is_nan() => x,
                    Sign if x > 0.0 => 1.0,
                    Sign if x < 0.0 => -1.0,
                    Sign => 0.0,
                    Floor => x.floor(),
                    Ceil => x.ceil(),
                    Trunc => x.trunc(),
                    Isnan | Isinf | Isfinite | Signbit | LogicalNot | Invert => x,
                }
            }

            fn math2(self, y: $t, f: NpBinary) -> $t {
                use NpBinary::*;
                let x = self;
                match f {
                    Arctan2 => x.atan2(y),
                    Hypot => x.hypot(y),
                    Copysign => x.copysign(y),
                    // npy_logaddexp(2): the larger plus log1p(exp(-|d|)) in the base
                    Logaddexp if x == y => x + $ln2,
                    Logaddexp => log_add(x, y, <$t>::exp, |v: $t| v.ln_1p()),
                    Logaddexp2 if x == y => x + 1.0,
                    Logaddexp2 => log_add(x, y, <$t>::exp2, |v: $t| v.ln_1p() / $ln2),
                    Heaviside if x.is_nan() => x,
                    Heaviside if x == 0.0 => y,
                    Heaviside if x < 0.0 => 0.0,
                    Heaviside => 1.0,
                    Fmod => x % y,
                    Fmax if y.is_nan() || x >= y => x,
                    Fmax => y,
                    Fmin if y.is_nan() || x <= y => x,
                    Fmin => y,
                    FloatPower => x.powf(y),
                    _ => x,
                }
            }
        }
    };
}
real_impl!(
    f64,
    asinh,
    acosh,
    atanh,
    std::f64::consts::PI,
    std::f64::consts::LN_2
);
real_impl!(
    f32,
    asinhf,
    acoshf,
    atanhf,
    std::f32::consts::PI,
    std::f32::consts::LN_2
);

fn map<A: Copy, B: Send + 'static>(v: &[A], f: impl Fn(A) -> B) -> Result<Vec<B>> {
    let mut out = try_vec(v.len())?;
    out.extend(v.iter().map(|&x| f(x)));
    Ok(out)
}

fn map2<A: Copy, B: Copy, C: Send + 'static>(
    a: &[A],
    b: &[B],
    f: impl Fn(A, B) -> C,
) -> Result<Vec<C>> {
    let mut out = try_vec(a.len())?;
    out.extend(a.iter().zip(b).map(|(&x, &y)| f(x, y)));
    Ok(out)
}

fn host_tensor(data: HostData, x: &Tensor) -> Result<Tensor> {
    Tensor::from_host(data, x.shape().clone(), Device::CPU0)
}

/// `f(x)` as numpy computes it.
pub fn np_unary(f: NpUnary, x: &Tensor) -> Result<Tensor> {
    let d = x.dtype();
    if d == DType::String {
        return Err(no_loop(f.name()));
    }
    match f.loop_kind() {
        Loop::Predicate => return predicate(f, x),
        Loop::Float | Loop::RealFloat if !d.is_complex() => {
            let x = ops::cast(x, float_loop(d))?;
            return float_map(f, &x);
        }
        _ => {}
    }
    if d.is_complex() {
        return complex_unary(f, x);
    }
    if d == DType::Bool {
        return bool_unary(f, x);
    }
    if f == NpUnary::Invert {
        return match x.host()? {
            HostData::I8(v) => host_tensor(HostData::I8(map(v, |a| !a)?), x),
            HostData::U8(v) => host_tensor(HostData::U8(map(v, |a| !a)?), x),
            HostData::I16(v) => host_tensor(HostData::I16(map(v, |a| !a)?), x),
            HostData::I32(v) => host_tensor(HostData::I32(map(v, |a| !a)?), x),
            HostData::I64(v) => host_tensor(HostData::I64(map(v, |a| !a)?), x),
            _ => Err(no_loop(f.name())),
        };
    }
    if d.is_floating() {
        return float_map(f, x);
    }
    int_unary(f, x)
}

/// A float function over a float tensor (float16 through float32).
fn float_map(f: NpUnary, x: &Tensor) -> Result<Tensor> {
    let data = match x.host()? {
        HostData::F64(v) => HostData::F64(map(v, |a| a.math(f))?),
        HostData::F32(v) => HostData::F32(map(v, |a| a.math(f))?),
        HostData::F16(v) => HostData::F16(map(v, |a| F16::from_f32(a.to_f32().math(f)))?),
        _ => return Err(no_loop(f.name())),
    };
    host_tensor(data, x)
}

/// Integer loops: wrapping arithmetic as numpy's C loops do.
fn int_unary(f: NpUnary, x: &Tensor) -> Result<Tensor> {
    macro_rules! ints {
        ($v:expr, $w:ident, $t:ty) => {{
            let g: fn($t) -> $t = match f {
                NpUnary::Negative => |a| a.wrapping_neg(),
                NpUnary::Absolute => |a| a.wrapping_abs(),
                NpUnary::Square => |a| a.wrapping_mul(a),
                // C's `1.0 / a` stored in the integer type (infinity
                // converts through int32 for the narrower types)
                NpUnary::Reciprocal => |a| match a {
                    0 if <$t>::BITS == 64 => <$t>::MIN,
                    0 => i32::MIN as $t,
                    1 => 1,
                    -1 => -1,
                    _ => 0,
                },
                NpUnary::Sign => |a| a.signum(),
                _ => |a| a,
            };
            HostData::$w(map($v, g)?)
        }};
    }
    let data = match x.host()? {
        HostData::I8(v) => ints!(v, I8, i8),
        HostData::I16(v) => ints!(v, I16, i16),
        HostData::I32(v) => ints!(v, I32, i32),
        HostData::I64(v) => ints!(v, I64, i64),
        HostData::U8(v) => {
            let g: fn(u8) -> u8 = match f {
                NpUnary::Negative => |a| a.wrapping_neg(),
                NpUnary::Square => |a| a.wrapping_mul(a),
                NpUnary::Reciprocal => |a| match a {
                    0 => 0,
                    1 => 1,
                    _ => 0,
                },
                NpUnary::Sign => |a| a.min(1),
                _ => |a| a,
            };
            HostData::U8(map(v, g)?)
        }
        _ => return Err(no_loop(f.name())),
    };
    host_tensor(data, x)
}

/// numpy's bool loops: `absolute`, `floor`, `ceil`, `trunc` keep bools,
/// `square` and `reciprocal` compute in int8, `invert` is logical not.
fn bool_unary(f: NpUnary, x: &Tensor) -> Result<Tensor> {
    match f {
        NpUnary::Absolute | NpUnary::Floor | NpUnary::Ceil | NpUnary::Trunc => Ok(x.clone()),
        NpUnary::Invert => np_unary(NpUnary::LogicalNot, x),
        NpUnary::Square | NpUnary::Reciprocal => int_unary(f, &ops::cast(x, DType::Int8)?),
        NpUnary::Negative => Err(Error::type_error(
            "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.",
        )),
        _ => Err(Error::type_error(format!(
            "ufunc '{}' did not contain a loop with signature matching types <class 'numpy.dtypes.BoolDType'> -> None",
            f.name()
        ))),
    }
}

/// Complex inputs: TensorFlow's complex kernels where numpy has the loop.
fn complex_unary(f: NpUnary, x: &Tensor) -> Result<Tensor> {
    use crate::runtime::ops::complex::{part, ComplexOp};
    match f {
        NpUnary::Absolute => part(ComplexOp::Abs, x),
        NpUnary::Positive => Ok(x.clone()),
        NpUnary::Sign => {
            // numpy 2: z / |z| (0 for 0)
            let r = part(ComplexOp::Abs, x)?;
            let data = match (x.host()?, r.host()?) {
                (HostData::C64(z), HostData::F32(m)) => {
                    HostData::C64(map2(z, m, |z, m| if m == 0.0 { z * 0.0 } else { z / m })?)
                }
                (HostData::C128(z), HostData::F64(m)) => {
                    HostData::C128(map2(z, m, |z, m| if m == 0.0 { z * 0.0 } else { z / m })?)
                }
                _ => return Err(no_loop(f.name())),
            };
            host_tensor(data, x)
        }
        NpUnary::Exp2 | NpUnary::Log2 | NpUnary::Log10 => Err(Error::unimplemented(format!(
            "np.{} of complex values is not supported in dist",
            f.name()
        ))),
        _ => match f.complex_op() {
            Some(op) => ops::unary(op, x),
            None => Err(no_loop(f.name())),
        },
    }
}

/// `isnan`, `isinf`, `isfinite`, `signbit` and `logical_not`: a bool each.
fn predicate(f: NpUnary, x: &Tensor) -> Result<Tensor> {
    let d = x.dtype();
    if f == NpUnary::Signbit && d.is_complex() {
        return Err(no_loop(f.name()));
    }
    let test = |re: f64, im: f64| -> bool {
        match f {
            NpUnary::Isnan => re.is_nan() || im.is_nan(),
            NpUnary::Isinf => re.is_infinite() || im.is_infinite(),
            NpUnary::Isfinite => re.is_finite() && im.is_finite(),
            NpUnary::Signbit => re.is_sign_negative(),
            _ => re == 0.0 && im == 0.0,
        }
    };
    let out = match x.host()? {
        HostData::Bool(v) => map(v, |b| test(b as u8 as f64, 0.0))?,
        HostData::F32(v) => map(v, |a| test(a as f64, 0.0))?,
        HostData::F64(v) => map(v, |a| test(a, 0.0))?,
        HostData::C64(v) => map(v, |z| test(z.re as f64, z.im as f64))?,
        HostData::C128(v) => map(v, |z| test(z.re, z.im))?,
        _ => x
            .to_scalars()
            .into_iter()
            .map(|s| {
                let (re, im) = s.as_complex();
                test(re, im)
            })
            .collect(),
    };
    host_tensor(HostData::Bool(out), x)
}

/// The dtype numpy's float loops of a binary function take for `a` and `b`.
fn float_pair(f: NpBinary, a: DType, b: DType) -> Result<DType> {
    let d = promote_types(a, b).map_err(|_| no_loop(f.name()))?;
    match f {
        NpBinary::FloatPower if d.is_complex() => Ok(DType::Complex128),
        NpBinary::FloatPower => Ok(DType::Float64),
        _ if d.is_complex() || d == DType::String => Err(no_loop(f.name())),
        _ => Ok(float_loop(d)),
    }
}

/// Both operands cast to `d` and broadcast to one shape.
fn aligned(name: &str, a: &Tensor, b: &Tensor, d: DType) -> Result<(Tensor, Tensor)> {
    let shape = super::elementwise::broadcast_shape(name, a, b, Semantics::Numpy)?;
    let a = ops::broadcast_to(&ops::cast(a, d)?, shape.dims())?;
    let b = ops::broadcast_to(&ops::cast(b, d)?, shape.dims())?;
    Ok((a, b))
}

/// `f(a, b)` as numpy computes it (operands already converted, NEP 50's
/// weak Python scalars already given their dtypes).
pub fn np_binary_fn(f: NpBinary, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    use NpBinary::*;
    match f {
        BitwiseAnd | BitwiseOr | BitwiseXor | LeftShift | RightShift => return bitwise(f, a, b),
        LogicalXor => {
            let (a, b) = aligned(f.name(), a, b, DType::Bool)?;
            let data = match (a.host()?, b.host()?) {
                (HostData::Bool(x), HostData::Bool(y)) => map2(x, y, |p, q| p != q)?,
                _ => return Err(no_loop(f.name())),
            };
            return host_tensor(HostData::Bool(data), &a);
        }
        Fmax | Fmin => {
            let d = promote_types(a.dtype(), b.dtype()).map_err(|_| no_loop(f.name()))?;
            if !d.is_floating() {
                // no NaNs to skip: numpy's maximum and minimum
                let op = if f == Fmax {
                    crate::runtime::BinaryOp::Maximum
                } else {
                    crate::runtime::BinaryOp::Minimum
                };
                return ops::np_binary(op, a, b);
            }
        }
        Fmod => {
            let d = promote_types(a.dtype(), b.dtype()).map_err(|_| no_loop(f.name()))?;
            if !d.is_floating() && !d.is_complex() && d != DType::String {
                return int_fmod(a, b, if d == DType::Bool { DType::Int8 } else { d });
            }
        }
        _ => {}
    }
    let d = match f {
        Fmax | Fmin | Fmod => {
            let d = promote_types(a.dtype(), b.dtype()).map_err(|_| no_loop(f.name()))?;
            if d.is_complex() && f != Fmod {
                return Err(Error::unimplemented(format!(
                    "np.{} of complex values is not supported in dist",
                    f.name()
                )));
            }
            if !d.is_floating() {
                return Err(no_loop(f.name()));
            }
            d
        }
        _ => float_pair(f, a.dtype(), b.dtype())?,
    };
    if d.is_complex() {
        // float_power of complex values: TensorFlow's complex pow
        let (a, b) = aligned(f.name(), a, b, d)?;
        return ops::np_binary(crate::runtime::BinaryOp::Pow, &a, &b);
    }
    let (a, b) = aligned(f.name(), a, b, d)?;
    let data = match (a.host()?, b.host()?) {
        (HostData::F64(x), HostData::F64(y)) => HostData::F64(map2(x, y, |p, q| p.math2(q, f))?),
        (HostData::F32(x), HostData::F32(y)) => HostData::F32(map2(x, y, |p, q| p.math2(q, f))?),
        (HostData::F16(x), HostData::F16(y)) => HostData::F16(map2(x, y, |p, q| {
            F16::from_f32(p.to_f32().math2(q.to_f32(), f))
        })?),
        _ => return Err(no_loop(f.name())),
    };
    host_tensor(data, &a)
}

/// C's `%` on ints (the dividend's sign; numpy gives 0 for a zero divisor).
fn int_fmod(a: &Tensor, b: &Tensor, d: DType) -> Result<Tensor> {
    let (a, b) = aligned("fmod", a, b, d)?;
    macro_rules! m {
        ($x:expr, $y:expr, $w:ident) => {
            HostData::$w(map2(
                $x,
                $y,
                |p, q| if q == 0 { 0 } else { p.wrapping_rem(q) },
            )?)
        };
    }
    let data = match (a.host()?, b.host()?) {
        (HostData::I8(x), HostData::I8(y)) => m!(x, y, I8),
        (HostData::U8(x), HostData::U8(y)) => m!(x, y, U8),
        (HostData::I16(x), HostData::I16(y)) => m!(x, y, I16),
        (HostData::I32(x), HostData::I32(y)) => m!(x, y, I32),
        (HostData::I64(x), HostData::I64(y)) => m!(x, y, I64),
        _ => return Err(no_loop("fmod")),
    };
    host_tensor(data, &a)
}

/// `&`, `|`, `^`, `<<` and `>>` of ints (and of bools for the first three).
fn bitwise(f: NpBinary, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    use NpBinary::*;
    let mut d = promote_types(a.dtype(), b.dtype()).map_err(|_| no_loop(f.name()))?;
    if d.is_floating() || d.is_complex() || d == DType::String {
        return Err(no_loop(f.name()));
    }
    if d == DType::Bool && matches!(f, LeftShift | RightShift) {
        d = DType::Int8;
    }
    let (a, b) = aligned(f.name(), a, b, d)?;
    macro_rules! m {
        ($x:expr, $y:expr, $w:ident, $t:ty) => {{
            let bits = <$t>::BITS as i64;
            HostData::$w(map2($x, $y, |p: $t, q: $t| match f {
                BitwiseAnd => p & q,
                BitwiseOr => p | q,
                BitwiseXor => p ^ q,
                // a shift past the width: 0, or the sign for `>>`
                LeftShift if (q as i64) < 0 || (q as i64) >= bits => 0,
                LeftShift => p << q,
                RightShift if (q as i64) < 0 || (q as i64) >= bits => {
                    if (p as i64) < 0 {
                        !0
                    } else {
                        0
                    }
                }
                _ => p >> q,
            })?)
        }};
    }
    let data = match (a.host()?, b.host()?) {
        (HostData::Bool(x), HostData::Bool(y)) => HostData::Bool(map2(x, y, |p, q| match f {
            BitwiseAnd => p & q,
            BitwiseOr => p | q,
            _ => p ^ q,
        })?),
        (HostData::I8(x), HostData::I8(y)) => m!(x, y, I8, i8),
        (HostData::U8(x), HostData::U8(y)) => m!(x, y, U8, u8),
        (HostData::I16(x), HostData::I16(y)) => m!(x, y, I16, i16),
        (HostData::I32(x), HostData::I32(y)) => m!(x, y, I32, i32),
        (HostData::I64(x), HostData::I64(y)) => m!(x, y, I64, i64),
        _ => return Err(no_loop(f.name())),
    };
    host_tensor(data, &a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<f64>) -> Tensor {
        let n = v.len();
        Tensor::from_vec(v, &[n]).unwrap()
    }

    #[test]
    fn loops_follow_numpy() {
        let i8s = ops::cast(&t(vec![1.0, -2.0]), DType::Int8).unwrap();
        assert_eq!(
            np_unary(NpUnary::Sin, &i8s).unwrap().dtype(),
            DType::Float16
        );
        assert_eq!(
            np_unary(NpUnary::Square, &i8s).unwrap().dtype(),
            DType::Int8
        );
        let b = ops::cast(&t(vec![1.0, 0.0]), DType::Bool).unwrap();
        assert_eq!(np_unary(NpUnary::Square, &b).unwrap().dtype(), DType::Int8);
        assert!(np_unary(NpUnary::Negative, &b).is_err());
        let x = t(vec![0.5, -0.0]);
        let s = np_unary(NpUnary::Sin, &x).unwrap().to_scalars();
        assert_eq!(s[0].as_f64(), 0.5f64.sin());
        let sb = np_unary(NpUnary::Signbit, &x).unwrap().to_scalars();
        assert!(sb[1].as_f64() != 0.0);
    }

    #[test]
    fn shifts_past_the_width() {
        let a = ops::cast(&t(vec![1.0, -8.0]), DType::Int8).unwrap();
        let s = ops::cast(&t(vec![9.0, 70.0]), DType::Int8).unwrap();
        let l = np_binary_fn(NpBinary::LeftShift, &a, &s)
            .unwrap()
            .to_scalars();
        let r = np_binary_fn(NpBinary::RightShift, &a, &s)
            .unwrap()
            .to_scalars();
        assert_eq!((l[0].as_f64(), l[1].as_f64()), (0.0, 0.0));
        assert_eq!((r[0].as_f64(), r[1].as_f64()), (0.0, -1.0));
    }
}
