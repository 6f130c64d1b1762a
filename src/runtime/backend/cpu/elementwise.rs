//! CPU element-wise kernels: binary arithmetic, comparisons and logic,
//! unary math, `where`, and casts, dispatched per dtype over [`super::zip`].

use super::num::Num;
use super::zip::{map, zip};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::f16::F16;
use crate::runtime::op::{BinaryOp, Semantics, UnaryOp};
use crate::runtime::storage::{try_vec, HostData};

/// Binary op on two host buffers of one dtype.
pub fn binary(
    op: BinaryOp,
    sem: Semantics,
    a: &HostData,
    ash: &[usize],
    b: &HostData,
    bsh: &[usize],
    out: &[usize],
) -> Result<HostData> {
    macro_rules! num {
        ($x:expr, $y:expr) => {
            typed(op, sem, $x, ash, $y, bsh, out)
        };
    }
    match (a, b) {
        (HostData::I8(x), HostData::I8(y)) => num!(x, y),
        (HostData::U8(x), HostData::U8(y)) => num!(x, y),
        (HostData::I16(x), HostData::I16(y)) => num!(x, y),
        (HostData::I32(x), HostData::I32(y)) => num!(x, y),
        (HostData::I64(x), HostData::I64(y)) => num!(x, y),
        (HostData::F16(x), HostData::F16(y)) => num!(x, y),
        (HostData::F32(x), HostData::F32(y)) => num!(x, y),
        (HostData::F64(x), HostData::F64(y)) => num!(x, y),
        (HostData::C64(x), HostData::C64(y)) => super::complex::binary(op, x, ash, y, bsh, out),
        (HostData::C128(x), HostData::C128(y)) => super::complex::binary(op, x, ash, y, bsh, out),
        (HostData::Bool(x), HostData::Bool(y)) => {
            let f = match op {
                BinaryOp::LogicalAnd | BinaryOp::Mul | BinaryOp::Minimum => {
                    |p: bool, q: bool| p & q
                }
                BinaryOp::LogicalOr | BinaryOp::Add | BinaryOp::Maximum => |p: bool, q: bool| p | q,
                BinaryOp::Equal => |p: bool, q: bool| p == q,
                BinaryOp::NotEqual => |p: bool, q: bool| p != q,
                BinaryOp::Less => |p: bool, q: bool| !p & q,
                BinaryOp::LessEqual => |p: bool, q: bool| !p | q,
                BinaryOp::Greater => |p: bool, q: bool| p & !q,
                BinaryOp::GreaterEqual => |p: bool, q: bool| p | !q,
                _ => return Err(unsupported(op.name(), DType::Bool)),
            };
            Ok(HostData::Bool(zip(x, ash, y, bsh, out, f)?))
        }
        (HostData::Str(x), HostData::Str(y)) => {
            let idx_a: Vec<u32> = (0..x.len() as u32).collect();
            let idx_b: Vec<u32> = (0..y.len() as u32).collect();
            let (xa, yb) = (x.as_slice(), y.as_slice());
            let cmp = |i: u32, j: u32| xa[i as usize].cmp(&yb[j as usize]);
            let r = match op {
                BinaryOp::Equal => zip(&idx_a, ash, &idx_b, bsh, out, |i, j| cmp(i, j).is_eq())?,
                BinaryOp::NotEqual => zip(&idx_a, ash, &idx_b, bsh, out, |i, j| cmp(i, j).is_ne())?,
                BinaryOp::Add => {
                    let idx = zip(&idx_a, ash, &idx_b, bsh, out, |i, j| (i, j))?;
                    let v = idx
                        .into_iter()
                        .map(|(i, j)| {
                            [xa[i as usize].as_slice(), yb[j as usize].as_slice()].concat()
                        })
                        .collect();
                    return Ok(HostData::Str(v));
                }
                _ => return Err(unsupported(op.name(), DType::String)),
            };
            Ok(HostData::Bool(r))
        }
        _ => Err(Error::internal("binary: operands of different dtypes")),
    }
}

#[cold]
fn unsupported(op: &str, d: DType) -> Error {
    Error::invalid_argument(format!("{op} is not supported for dtype {}", d.name()))
}

fn typed<T: Num>(
    op: BinaryOp,
    sem: Semantics,
    a: &[T],
    ash: &[usize],
    b: &[T],
    bsh: &[usize],
    out: &[usize],
) -> Result<HostData> {
    let np = sem == Semantics::Numpy;
    if T::IS_INT {
        let divides = matches!(
            op,
            BinaryOp::FloorDiv | BinaryOp::FloorMod | BinaryOp::TruncateDiv | BinaryOp::RealDiv
        );
        if divides && !np && b.iter().any(|y| y.is_zero()) {
            return Err(Error::invalid_argument("Integer division by zero"));
        }
        if op == BinaryOp::Pow && b.iter().any(|y| y.is_negative()) {
            return Err(Error::invalid_argument(if np {
                "Integers to negative integer powers are not allowed."
            } else {
                "Integers to negative integer powers are not allowed"
            }));
        }
    }
    macro_rules! arith {
        ($f:expr) => {
            Ok(T::wrap(zip(a, ash, b, bsh, out, $f)?))
        };
    }
    macro_rules! cmp {
        ($f:expr) => {
            Ok(HostData::Bool(zip(a, ash, b, bsh, out, $f)?))
        };
    }
    // TensorFlow's kernels flush denormal operands and results to zero
    let flush = !np && !T::IS_INT;
    match op {
        BinaryOp::Add if flush => arith!(|x: T, y: T| x.ftz().add(y.ftz()).ftz()),
        BinaryOp::Sub if flush => arith!(|x: T, y: T| x.ftz().sub(y.ftz()).ftz()),
        BinaryOp::Mul if flush => arith!(|x: T, y: T| x.ftz().mul(y.ftz()).ftz()),
        BinaryOp::RealDiv if flush => arith!(|x: T, y: T| x.ftz().div(y.ftz()).ftz()),
        BinaryOp::Add => arith!(|x: T, y: T| x.add(y)),
        BinaryOp::Sub => arith!(|x: T, y: T| x.sub(y)),
        BinaryOp::Mul => arith!(|x: T, y: T| x.mul(y)),
        BinaryOp::RealDiv | BinaryOp::TruncateDiv => arith!(|x: T, y: T| x.div(y)),
        BinaryOp::FloorDiv if np => arith!(|x: T, y: T| x.floordiv_np(y)),
        BinaryOp::FloorDiv => arith!(|x: T, y: T| x.floordiv_tf(y)),
        BinaryOp::FloorMod => arith!(|x: T, y: T| x.floormod(y, np)),
        BinaryOp::Pow => arith!(|x: T, y: T| x.pow(y)),
        BinaryOp::Maximum => arith!(|x: T, y: T| x.maximum(y)),
        BinaryOp::Minimum => arith!(|x: T, y: T| x.minimum(y)),
        BinaryOp::Equal => cmp!(|x: T, y: T| x == y),
        BinaryOp::NotEqual => cmp!(|x: T, y: T| x != y),
        BinaryOp::Less => cmp!(|x: T, y: T| x < y),
        BinaryOp::LessEqual => cmp!(|x: T, y: T| x <= y),
        BinaryOp::Greater => cmp!(|x: T, y: T| x > y),
        BinaryOp::GreaterEqual => cmp!(|x: T, y: T| x >= y),
        BinaryOp::LogicalAnd | BinaryOp::LogicalOr => Err(unsupported(op.name(), T::DTYPE)),
    }
}

/// Unary op on a host buffer.
pub fn unary(op: UnaryOp, x: &HostData) -> Result<HostData> {
    match x {
        HostData::Bool(v) if op == UnaryOp::LogicalNot => Ok(HostData::Bool(map(v, |b| !b)?)),
        HostData::I8(v) => unary_typed(op, v),
        HostData::U8(v) => unary_typed(op, v),
        HostData::I16(v) => unary_typed(op, v),
        HostData::I32(v) => unary_typed(op, v),
        HostData::I64(v) => unary_typed(op, v),
        HostData::F16(v) => unary_typed(op, v),
        HostData::F32(v) => match super::f32_kernels::unary(op, v, scalar_math_on()) {
            Some(out) => Ok(HostData::F32(out?)),
            None => unary_typed(op, v),
        },
        HostData::F64(v) => match super::f32_kernels::unary_f64(op, v, scalar_math_on()) {
            Some(out) => Ok(HostData::F64(out?)),
            None => unary_typed(op, v),
        },
        HostData::C64(v) => super::complex::unary(op, v),
        HostData::C128(v) => super::complex::unary(op, v),
        other => Err(unsupported(op.name(), other.dtype())),
    }
}

// The C library's error functions (Rust's std has none; it links libm
// already), and its inverse hyperbolic functions, which std computes with
// formulas of its own where TensorFlow's kernels call the C library's.
extern "C" {
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
    fn asinh(x: f64) -> f64;
    fn acosh(x: f64) -> f64;
    fn atanh(x: f64) -> f64;
    fn asinhf(x: f32) -> f32;
    fn acoshf(x: f32) -> f32;
    fn atanhf(x: f32) -> f32;
}

macro_rules! libm_fns {
    ($($name:ident => $c:ident: $t:ty;)*) => {$(
        /// The C library's function of that name.
        pub(crate) fn $name(x: $t) -> $t {
            // SAFETY: a pure C math function of one number.
            unsafe { $c(x) }
        }
    )*};
}
libm_fns! {
    libm_asinh => asinh: f64;
    libm_acosh => acosh: f64;
    libm_atanh => atanh: f64;
    libm_asinhf => asinhf: f32;
    libm_acoshf => acoshf: f32;
    libm_atanhf => atanhf: f32;
}

/// The error function.
fn libm_erf(x: f64) -> f64 {
    // SAFETY: a pure C math function of one double.
    unsafe { c_erf(x) }
}

/// The complementary error function.
fn libm_erfc(x: f64) -> f64 {
    // SAFETY: a pure C math function of one double.
    unsafe { c_erfc(x) }
}

fn unary_typed<T: Num>(op: UnaryOp, v: &[T]) -> Result<HostData> {
    macro_rules! m {
        ($f:expr) => {
            Ok(T::wrap(map(v, $f)?))
        };
    }
    macro_rules! fl {
        ($f:expr) => {{
            let g = $f;
            m!(|x: T| T::from_f64(g(x.to_f64())))
        }};
    }
    match op {
        UnaryOp::Neg => m!(|x: T| x.neg()),
        UnaryOp::Abs => m!(|x: T| x.abs()),
        UnaryOp::Square => m!(|x: T| x.mul(x)),
        UnaryOp::Sign => m!(|x: T| if x.is_nan() {
            x
        } else if x.is_negative() {
            T::one().neg()
        } else if x.is_zero() {
            T::zero()
        } else {
            T::one()
        }),
        // max(x, 0) as TensorFlow computes it: -0.0 becomes 0.0, NaN stays
        UnaryOp::Relu => m!(|x: T| if x.is_negative() || x.is_zero() {
            T::zero()
        } else {
            x
        }),
        UnaryOp::Reciprocal if !T::IS_INT => m!(|x: T| T::one().div(x)),
        UnaryOp::Round if T::IS_INT => m!(|x: T| x),
        UnaryOp::Round => fl!(|x: f64| x.round_ties_even()),
        _ if T::IS_INT => Err(unsupported(op.name(), T::DTYPE)),
        // f32 math stays in f32 so results match TensorFlow's float kernels
        _ if T::DTYPE == DType::Float32 => {
            let f: fn(f32) -> f32 = match op {
                UnaryOp::Sqrt => f32::sqrt,
                UnaryOp::Rsqrt => |x| 1.0 / x.sqrt(),
                // (Exp, Log, Log1p, Expm1, Erf, Erfc, Tanh and Sigmoid are
                // TensorFlow's kernels, in `f32_kernels`)
                UnaryOp::Sin => f32::sin,
                UnaryOp::Cos => f32::cos,
                UnaryOp::Floor => f32::floor,
                UnaryOp::Ceil => f32::ceil,
                UnaryOp::Tan => f32::tan,
                UnaryOp::Asin => f32::asin,
                UnaryOp::Acos => f32::acos,
                UnaryOp::Atan => f32::atan,
                UnaryOp::Sinh => f32::sinh,
                UnaryOp::Cosh => f32::cosh,
                UnaryOp::Asinh => libm_asinhf,
                UnaryOp::Acosh => libm_acoshf,
                UnaryOp::Atanh => libm_atanhf,
                _ => return Err(unsupported(op.name(), T::DTYPE)),
            };
            fl!(|x: f64| f(x as f32) as f64)
        }
        _ => {
            let f: fn(f64) -> f64 = match op {
                UnaryOp::Sqrt => f64::sqrt,
                UnaryOp::Rsqrt => |x| 1.0 / x.sqrt(),
                UnaryOp::Exp => f64::exp,
                UnaryOp::Log => f64::ln,
                UnaryOp::Log1p => f64::ln_1p,
                UnaryOp::Expm1 => f64::exp_m1,
                UnaryOp::Erf => libm_erf,
                UnaryOp::Erfc => libm_erfc,
                UnaryOp::Sin => f64::sin,
                UnaryOp::Cos => f64::cos,
                UnaryOp::Tanh => f64::tanh,
                UnaryOp::Sigmoid => |x| 1.0 / (1.0 + (-x).exp()),
                UnaryOp::Floor => f64::floor,
                UnaryOp::Ceil => f64::ceil,
                UnaryOp::Tan => f64::tan,
                UnaryOp::Asin => f64::asin,
                UnaryOp::Acos => f64::acos,
                UnaryOp::Atan => f64::atan,
                UnaryOp::Sinh => f64::sinh,
                UnaryOp::Cosh => f64::cosh,
                UnaryOp::Asinh => libm_asinh,
                UnaryOp::Acosh => libm_acosh,
                UnaryOp::Atanh => libm_atanh,
                _ => return Err(unsupported(op.name(), T::DTYPE)),
            };
            fl!(f)
        }
    }
}

/// `Ok(HostData::V($body!(xv, yv)))` for `x` and `y` of the same variant `V`.
macro_rules! by_dtype {
    ($x:expr, $y:expr, $body:ident) => {
        Ok(match ($x, $y) {
            (HostData::Bool(a), HostData::Bool(b)) => HostData::Bool($body!(a, b)),
            (HostData::I8(a), HostData::I8(b)) => HostData::I8($body!(a, b)),
            (HostData::U8(a), HostData::U8(b)) => HostData::U8($body!(a, b)),
            (HostData::I16(a), HostData::I16(b)) => HostData::I16($body!(a, b)),
            (HostData::I32(a), HostData::I32(b)) => HostData::I32($body!(a, b)),
            (HostData::I64(a), HostData::I64(b)) => HostData::I64($body!(a, b)),
            (HostData::F16(a), HostData::F16(b)) => HostData::F16($body!(a, b)),
            (HostData::F32(a), HostData::F32(b)) => HostData::F32($body!(a, b)),
            (HostData::F64(a), HostData::F64(b)) => HostData::F64($body!(a, b)),
            (HostData::C64(a), HostData::C64(b)) => HostData::C64($body!(a, b)),
            (HostData::C128(a), HostData::C128(b)) => HostData::C128($body!(a, b)),
            (HostData::Str(a), HostData::Str(b)) => HostData::Str($body!(a, b)),
            _ => return Err(Error::internal("select: branches of different dtypes")),
        })
    };
}

/// `where(c, x, y)` with broadcasting.
pub fn select(
    c: &[bool],
    cs: &[usize],
    x: &HostData,
    xs: &[usize],
    y: &HostData,
    ys: &[usize],
    out: &[usize],
) -> Result<HostData> {
    let n: usize = out.iter().product();
    let whole = |len: usize| len == n || len == 1;
    if c.len() == n && whole(x.len()) && whole(y.len()) {
        // nothing to broadcast but scalars (`tf.where(c, x, 0.0)`): an
        // operand of `n` elements is laid out as the output
        let (sx, sy) = (usize::from(x.len() == n), usize::from(y.len() == n));
        macro_rules! direct {
            ($xv:expr, $yv:expr) => {{
                let mut o = try_vec(n)?;
                o.extend(c.iter().enumerate().map(|(i, &b)| {
                    if b {
                        $xv[i * sx].clone()
                    } else {
                        $yv[i * sy].clone()
                    }
                }));
                o
            }};
        }
        return by_dtype!(x, y, direct);
    }
    // pick indices first (one broadcast pass), then gather from x or y
    let ix: Vec<u32> = (0..x.len() as u32).collect();
    let iy: Vec<u32> = (0..y.len() as u32).collect();
    let cx = zip(c, cs, &ix, xs, &bshape(cs, xs), |b, i| (b, i))?;
    let shape_cx = bshape(cs, xs);
    let picks = zip(&cx, &shape_cx, &iy, ys, out, |(b, i), j| {
        if b {
            (true, i)
        } else {
            (false, j)
        }
    })?;
    debug_assert_eq!(picks.len(), n);
    macro_rules! gather {
        ($xv:expr, $yv:expr) => {
            picks
                .iter()
                .map(|&(b, i)| {
                    if b {
                        $xv[i as usize].clone()
                    } else {
                        $yv[i as usize].clone()
                    }
                })
                .collect()
        };
    }
    by_dtype!(x, y, gather)
}

fn bshape(a: &[usize], b: &[usize]) -> Vec<usize> {
    crate::runtime::shape::Shape::new(a)
        .broadcast(&crate::runtime::shape::Shape::new(b))
        .map(|s| s.0)
        .unwrap_or_default()
}

/// Element conversion with TensorFlow's `Cast` semantics: float → int
/// truncates, and NaN or out-of-range floats become the integer minimum
/// (as x86 conversion does); int → narrower int wraps; nonzero → `true`.
pub fn cast(x: &HostData, to: DType) -> Result<HostData> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    macro_rules! from_num {
        ($v:expr) => {
            cast_num($v, to)
        };
    }
    match x {
        HostData::Bool(v) => cast_num(&map(v, |b| b as u8)?, to),
        HostData::I8(v) => from_num!(v),
        HostData::U8(v) => from_num!(v),
        HostData::I16(v) => from_num!(v),
        HostData::I32(v) => from_num!(v),
        HostData::I64(v) => from_num!(v),
        HostData::F16(v) => from_num!(v),
        HostData::F32(v) => from_num!(v),
        HostData::F64(v) => from_num!(v),
        HostData::C64(v) => super::complex::cast_from(v, to),
        HostData::C128(v) => super::complex::cast_from(v, to),
        HostData::Str(_) => Err(Error::unimplemented(
            "Cast string to number is not supported",
        )),
    }
}

fn float_to_int(x: f64, lo: f64, hi: f64, min: i64) -> i64 {
    if x.is_nan() || x < lo || x >= hi {
        min
    } else {
        x as i64
    }
}

fn cast_num<T: Num>(v: &[T], to: DType) -> Result<HostData> {
    let float = !T::IS_INT;
    // floats convert through int32 (narrow types) or int64, like the C casts
    // TF uses; integers keep their value (then wrap to a narrower type)
    let to_i32 = |x: T| -> i64 {
        if float {
            float_to_int(x.to_f64(), -2147483648.0, 2147483648.0, i32::MIN as i64)
        } else {
            x.to_i64()
        }
    };
    let as_i64 = |x: T| -> i64 {
        if float {
            float_to_int(
                x.to_f64(),
                -9.223372036854776e18,
                9.223372036854776e18,
                i64::MIN,
            )
        } else {
            x.to_i64()
        }
    };
    Ok(match to {
        DType::Bool => HostData::Bool(map(v, |x| !x.is_zero())?),
        DType::Int8 => HostData::I8(map(v, |x| to_i32(x) as i8)?),
        DType::UInt8 => HostData::U8(map(v, |x| to_i32(x) as u8)?),
        DType::Int16 => HostData::I16(map(v, |x| to_i32(x) as i16)?),
        DType::Int32 => HostData::I32(map(v, |x| to_i32(x) as i32)?),
        DType::Int64 => HostData::I64(map(v, as_i64)?),
        DType::Float16 => HostData::F16(map(v, |x| F16::from_f64(x.to_f64()))?),
        DType::Float32 => HostData::F32(map(v, |x| x.to_f64() as f32)?),
        DType::Float64 => HostData::F64(map(v, |x| x.to_f64())?),
        DType::Complex64 | DType::Complex128 => super::complex::cast_to(v, to)?,
        DType::String => {
            return Err(Error::unimplemented(
                "Cast number to string is not supported",
            ))
        }
    })
}

thread_local! {
    static SCALAR_MATH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn scalar_math_on() -> bool {
    SCALAR_MATH.with(|c| c.get())
}

/// While the guard lives, TensorFlow's float32 math kernels on this thread
/// (`f32_kernels::unary`) take their scalar path for every element (the C
/// library's `expf`, `logf` …), as the TensorFlow kernels that evaluate
/// them one element at a time do; the standalone ops split a buffer as
/// Eigen's executor does.
pub struct ScalarMath(bool);

/// See [`ScalarMath`].
pub fn scalar_math() -> ScalarMath {
    ScalarMath(SCALAR_MATH.with(|c| c.replace(true)))
}

impl Drop for ScalarMath {
    fn drop(&mut self) {
        SCALAR_MATH.with(|c| c.set(self.0));
    }
}
