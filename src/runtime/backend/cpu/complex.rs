//! CPU kernels for `complex64` and `complex128`: arithmetic, the unary math
//! TensorFlow registers for complex types, casts to and from them, sums,
//! products and means, and matrix products. Each element is a pair of
//! floats of the part type, computed in that type (as Eigen computes
//! `std::complex<float>` in float, and divides as its packet kernels do),
//! so arithmetic rounds as TensorFlow's does; the transcendental functions
//! are `num_complex`'s and the order of a sum's additions may differ from
//! Eigen's vectorised reductions, in the last bits.

use num_complex::Complex;
use num_traits::{Float, One, Zero};

use super::num::Num;
use super::reduce::move_reduced_last;
use super::zip::{map, zip};
use crate::runtime::backend::MatMulDims;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{BinaryOp, ReduceOp, UnaryOp};
use crate::runtime::storage::{try_vec, Elem, HostData, C128, C64};

/// A complex part type (`f32` for complex64, `f64` for complex128).
pub trait Part: Float + Default + Send + Sync + std::fmt::Debug + 'static {
    /// Widening to `f64`.
    fn wide(self) -> f64;
    /// Narrowing from `f64`.
    fn narrow(x: f64) -> Self;
}

impl Part for f32 {
    fn wide(self) -> f64 {
        self as f64
    }
    fn narrow(x: f64) -> Self {
        x as f32
    }
}

impl Part for f64 {
    fn wide(self) -> f64 {
        self
    }
    fn narrow(x: f64) -> Self {
        x
    }
}

#[cold]
fn unsupported(op: &str, d: DType) -> Error {
    Error::invalid_argument(format!("{op} is not supported for dtype {}", d.name()))
}

/// `a / b` as Eigen's vectorised complex division computes it: the divisor
/// scaled by the larger magnitude of its parts (no overflow in `|b|²`),
/// `a * conj(b')` divided by `|b'|²`, then by that magnitude.
fn quot<F: Part>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    let m = b.re.abs().max(b.im.abs());
    let (c, d) = (b.re / m, b.im / m);
    let denom = c * c + d * d;
    let re = a.re * c + a.im * d;
    let im = a.im * c - a.re * d;
    Complex::new(re / denom / m, im / denom / m)
}

/// `x ** y` as `std::pow` on complex numbers computes it: `exp(y * log(x))`,
/// with `0 ** y` zero.
fn pow<F: Part>(x: Complex<F>, y: Complex<F>) -> Complex<F> {
    if x.is_zero() {
        return if y.is_zero() {
            Complex::one()
        } else {
            Complex::zero()
        };
    }
    (y * x.ln()).exp()
}

/// Binary op on two complex buffers (broadcast to `out`).
pub fn binary<F: Part>(
    op: BinaryOp,
    a: &[Complex<F>],
    ash: &[usize],
    b: &[Complex<F>],
    bsh: &[usize],
    out: &[usize],
) -> Result<HostData>
where
    Complex<F>: Elem,
{
    macro_rules! arith {
        ($f:expr) => {
            Ok(<Complex<F>>::wrap(zip(a, ash, b, bsh, out, $f)?))
        };
    }
    match op {
        BinaryOp::Add => arith!(|x: Complex<F>, y| x + y),
        BinaryOp::Sub => arith!(|x: Complex<F>, y| x - y),
        BinaryOp::Mul => arith!(|x: Complex<F>, y| x * y),
        BinaryOp::RealDiv | BinaryOp::TruncateDiv => arith!(quot),
        BinaryOp::Pow => arith!(pow),
        BinaryOp::Equal => Ok(HostData::Bool(zip(a, ash, b, bsh, out, |x, y| x == y)?)),
        BinaryOp::NotEqual => Ok(HostData::Bool(zip(a, ash, b, bsh, out, |x, y| x != y)?)),
        _ => Err(unsupported(op.name(), <Complex<F>>::DTYPE)),
    }
}

/// Unary op on a complex buffer (the result has its dtype).
pub fn unary<F: Part>(op: UnaryOp, v: &[Complex<F>]) -> Result<HostData>
where
    Complex<F>: Elem,
{
    let f: fn(Complex<F>) -> Complex<F> = match op {
        UnaryOp::Neg => |x| -x,
        UnaryOp::Square => |x| x * x,
        UnaryOp::Sqrt => |x| x.sqrt(),
        UnaryOp::Rsqrt => |x| quot(Complex::one(), x.sqrt()),
        UnaryOp::Exp => |x| x.exp(),
        UnaryOp::Expm1 => |x| x.exp() - Complex::one(),
        UnaryOp::Log => |x| x.ln(),
        UnaryOp::Log1p => |x| (x + Complex::one()).ln(),
        UnaryOp::Sin => |x| x.sin(),
        UnaryOp::Cos => |x| x.cos(),
        UnaryOp::Tanh => |x| x.tanh(),
        UnaryOp::Tan => |x| x.tan(),
        UnaryOp::Asin => |x| x.asin(),
        UnaryOp::Acos => |x| x.acos(),
        UnaryOp::Atan => |x| x.atan(),
        UnaryOp::Sinh => |x| x.sinh(),
        UnaryOp::Cosh => |x| x.cosh(),
        UnaryOp::Asinh => |x| x.asinh(),
        UnaryOp::Acosh => |x| x.acosh(),
        UnaryOp::Atanh => |x| x.atanh(),
        UnaryOp::Sigmoid => |x: Complex<F>| quot(Complex::one(), Complex::<F>::one() + (-x).exp()),
        UnaryOp::Reciprocal => |x| quot(Complex::one(), x),
        // x / |x|, and 0 for 0
        UnaryOp::Sign => |x| {
            let n = x.norm();
            if n.is_zero() {
                Complex::zero()
            } else {
                Complex::new(x.re / n, x.im / n)
            }
        },
        _ => return Err(unsupported(op.name(), <Complex<F>>::DTYPE)),
    };
    Ok(<Complex<F>>::wrap(map(v, f)?))
}

/// The parts of a complex buffer as a real buffer: `part` picks them
/// (`|c| c.re`, `|c| c.im.atan2(c.re)`, …).
pub fn parts<F: Part + Elem>(
    v: &[Complex<F>],
    part: impl Fn(Complex<F>) -> F + Sync + Send,
) -> Result<HostData> {
    Ok(F::wrap(map(v, part)?))
}

/// The conjugates of a complex buffer.
pub fn conj<F: Part>(v: &[Complex<F>]) -> Result<HostData>
where
    Complex<F>: Elem,
{
    Ok(<Complex<F>>::wrap(map(v, |c| c.conj())?))
}

/// Complex numbers from real and imaginary parts broadcast to `out`.
pub fn from_parts<F: Part + Elem>(
    re: &[F],
    rsh: &[usize],
    im: &[F],
    ish: &[usize],
    out: &[usize],
) -> Result<HostData>
where
    Complex<F>: Elem,
{
    Ok(<Complex<F>>::wrap(zip(
        re,
        rsh,
        im,
        ish,
        out,
        Complex::new,
    )?))
}

/// Cast of a complex buffer: to the other complex type part by part, to
/// bool as `x != 0`, to real types through the real part.
pub fn cast_from<F: Part>(v: &[Complex<F>], to: DType) -> Result<HostData> {
    Ok(match to {
        DType::Complex64 => HostData::C64(map(v, |c| {
            C64::new(c.re.wide() as f32, c.im.wide() as f32)
        })?),
        DType::Complex128 => HostData::C128(map(v, |c| C128::new(c.re.wide(), c.im.wide()))?),
        DType::Bool => HostData::Bool(map(v, |c| !c.is_zero())?),
        DType::String => {
            return Err(Error::unimplemented(
                "Cast number to string is not supported",
            ))
        }
        _ => {
            let re = HostData::F64(map(v, |c| c.re.wide())?);
            super::elementwise::cast(&re, to)?
        }
    })
}

/// Cast of a real buffer to a complex type (imaginary parts zero).
pub fn cast_to<T: Num>(v: &[T], to: DType) -> Result<HostData> {
    Ok(match to {
        DType::Complex64 => HostData::C64(map(v, |x| C64::new(x.to_f64() as f32, 0.0))?),
        _ => HostData::C128(map(v, |x| C128::new(x.to_f64(), 0.0))?),
    })
}

/// Sum, product or mean over the axes where `mask` is true.
pub fn reduce<F: Part>(
    op: ReduceOp,
    v: &[Complex<F>],
    dims: &[usize],
    mask: &[bool],
) -> Result<HostData>
where
    Complex<F>: Elem,
{
    let (buf, outer, inner) = move_reduced_last(v, dims, mask)?;
    let mut out = try_vec(outer)?;
    if inner == 0 {
        // nothing to add or multiply: every output is the op's identity
        let id = match op {
            ReduceOp::Prod => Complex::one(),
            ReduceOp::Mean => Complex::new(F::nan(), F::nan()),
            ReduceOp::Sum => Complex::zero(),
            _ => return Err(unsupported(op.name(), <Complex<F>>::DTYPE)),
        };
        out.resize(outer, id);
        return Ok(<Complex<F>>::wrap(out));
    }
    for run in buf.chunks(inner) {
        out.push(match op {
            ReduceOp::Sum => run.iter().fold(Complex::zero(), |a, &x| a + x),
            ReduceOp::Prod => run.iter().fold(Complex::one(), |a, &x| a * x),
            ReduceOp::Mean => {
                let s = run.iter().fold(Complex::<F>::zero(), |a, &x| a + x);
                let n = F::narrow(inner as f64);
                Complex::new(s.re / n, s.im / n)
            }
            _ => return Err(unsupported(op.name(), <Complex<F>>::DTYPE)),
        });
    }
    Ok(<Complex<F>>::wrap(out))
}

/// Batched matrix product (operands untransposed), each output summed over
/// k in order.
pub fn matmul<F: Part>(a: &[Complex<F>], b: &[Complex<F>], d: MatMulDims) -> Result<HostData>
where
    Complex<F>: Elem,
{
    let mut out = try_vec(d.batch * d.m * d.n)?;
    for p in 0..d.batch {
        let x = &a[p * d.lhs_batch_stride..];
        let y = &b[p * d.rhs_batch_stride..];
        for i in 0..d.m {
            for j in 0..d.n {
                let mut s = Complex::<F>::zero();
                for k in 0..d.k {
                    s = s + x[i * d.k + k] * y[k * d.n + j];
                }
                out.push(s);
            }
        }
    }
    Ok(<Complex<F>>::wrap(out))
}
