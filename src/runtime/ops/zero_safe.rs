//! TensorFlow's binary ops that give zero where an operand is zero, whatever
//! the other one is: `MulNoNan` (`y == 0`), `Xlogy`, `Xdivy` and `Xlog1py`
//! (`x == 0`). One op each for the tapes and graphs, as in TensorFlow.
//!
//! Float32 and float64 follow TensorFlow's Eigen kernels element for
//! element: over the output buffer, whole packets use the vectorised
//! functions (and give back `x` itself where it is zero, so `-0.0` stays
//! negative) and the elements past the last packet the scalar ones (a
//! positive zero).

use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::{eigen_math as m32, eigen_math64 as m64};
use crate::runtime::dtype::DType;
use crate::runtime::error::Result;
use crate::runtime::op::{BinaryOp, UnaryOp};
use crate::runtime::ops::{self, attr_error, dtype_mismatch};
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;

/// Which of the ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZeroSafe {
    /// `x * y`, 0 where `y == 0` (`tf.math.multiply_no_nan`).
    MulNoNan,
    /// `x * log(y)`, 0 where `x == 0`.
    Xlogy,
    /// `x / y`, 0 where `x == 0`.
    Xdivy,
    /// `x * log1p(y)`, 0 where `x == 0`.
    Xlog1py,
}

impl ZeroSafe {
    /// TensorFlow's op type.
    pub fn name(self) -> &'static str {
        match self {
            ZeroSafe::MulNoNan => "MulNoNan",
            ZeroSafe::Xlogy => "Xlogy",
            ZeroSafe::Xdivy => "Xdivy",
            ZeroSafe::Xlog1py => "Xlog1py",
        }
    }

    /// The dtypes its kernel is registered for, as TensorFlow lists them.
    pub fn allowed(self) -> &'static str {
        match self {
            ZeroSafe::MulNoNan => "bfloat16, half, float, double, complex64, complex128",
            _ => "half, bfloat16, float, double, complex64, complex128",
        }
    }

    /// One element: `packet` for Eigen's vectorised path.
    fn f32(self, x: f32, y: f32, packet: bool) -> f32 {
        let (x, y) = (m32::ftz(x), m32::ftz(y));
        let r = match self {
            ZeroSafe::MulNoNan if y == 0.0 => 0.0,
            ZeroSafe::MulNoNan => x * y,
            _ if x == 0.0 => {
                if packet {
                    x
                } else {
                    0.0
                }
            }
            ZeroSafe::Xlogy if packet => x * m32::plog(y),
            ZeroSafe::Xlogy => x * m32::logf(y),
            ZeroSafe::Xdivy => x / y,
            ZeroSafe::Xlog1py if packet => x * m32::log1p(y),
            ZeroSafe::Xlog1py => x * m32::log1pf(y),
        };
        m32::ftz(r)
    }

    fn f64(self, x: f64, y: f64, packet: bool) -> f64 {
        match self {
            ZeroSafe::MulNoNan if y == 0.0 => 0.0,
            ZeroSafe::MulNoNan => x * y,
            _ if x == 0.0 => {
                if packet {
                    x
                } else {
                    0.0
                }
            }
            ZeroSafe::Xlogy if packet => x * m64::plog(y),
            ZeroSafe::Xlogy => x * m64::log(y),
            ZeroSafe::Xdivy => x / y,
            ZeroSafe::Xlog1py => x * y.ln_1p(),
        }
    }
}

/// `op(x, y)`, shapes broadcast.
pub fn zero_safe(op: ZeroSafe, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    tape::primitive(|| GradOp::ZeroSafe(op), &[x, y], || run(op, x, y))
}

fn run(op: ZeroSafe, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let name = op.name();
    let _trace = crate::runtime::trace::op(name, x.device());
    if x.dtype() != y.dtype() {
        return Err(dtype_mismatch(name, 1, x.dtype(), y.dtype(), " name: "));
    }
    let d = x.dtype();
    if !d.is_floating() && !d.is_complex() {
        return Err(attr_error(name, d));
    }
    let out = super::elementwise::broadcast_shape(name, x, y, crate::runtime::Semantics::Tf)?;
    let full = |t: &Tensor| -> Result<Tensor> {
        if t.shape() == &out {
            Ok(t.clone())
        } else {
            ops::broadcast_to(t, out.dims())
        }
    };
    let (xb, yb) = (full(x)?, full(y)?);
    let data = match (d, xb.as_slice::<f32>(), yb.as_slice::<f32>()) {
        (DType::Float32, Some(a), Some(b)) => Some(HostData::F32(kernel(
            a,
            b,
            |p, a, b| op.f32(a, b, p),
            m32::PACKET,
        ))),
        _ => match (d, xb.as_slice::<f64>(), yb.as_slice::<f64>()) {
            (DType::Float64, Some(a), Some(b)) => Some(HostData::F64(kernel(
                a,
                b,
                |p, a, b| op.f64(a, b, p),
                m64::PACKET,
            ))),
            _ => None,
        },
    };
    if let Some(data) = data {
        return Tensor::from_host(data, out, x.device());
    }
    composed(op, &xb, &yb)
}

/// Element `i` of `f(a[i], b[i])`, `packet` for those in whole packets of `w`.
fn kernel<T: Copy>(a: &[T], b: &[T], f: impl Fn(bool, T, T) -> T, w: usize) -> Vec<T> {
    let full = a.len() / w * w;
    a.iter()
        .zip(b)
        .enumerate()
        .map(|(i, (&a, &b))| f(i < full, a, b))
        .collect()
}

/// Other dtypes and devices: the op from the runtime's own ops.
fn composed(op: ZeroSafe, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    // (inside `tape::primitive`: these steps record nothing)
    {
        let zero = Tensor::zeros(x.dtype(), &[], x.device())?;
        let (test, value) = match op {
            ZeroSafe::MulNoNan => (y, ops::mul(x, y)?),
            ZeroSafe::Xlogy => (x, ops::mul(x, &ops::unary(UnaryOp::Log, y)?)?),
            ZeroSafe::Xdivy => (x, ops::truediv(x, y)?),
            ZeroSafe::Xlog1py => (x, ops::mul(x, &ops::unary(UnaryOp::Log1p, y)?)?),
        };
        let is_zero = ops::binary(BinaryOp::Equal, test, &zero)?;
        ops::where_select(
            &is_zero,
            &Tensor::zeros(x.dtype(), &[], x.device())?,
            &value,
        )
    }
}

/// TensorFlow's gradients (`_MulNoNanGrad`, `_XLogyGrad`, `_XDivyGrad`,
/// `_XLog1pyGrad`) of `op(x, y)` for upstream `g`, each summed over its
/// broadcast axes by `unbroadcast`; `skip[i]`: input i needs none.
pub fn gradient(
    op: ZeroSafe,
    x: &Tensor,
    y: &Tensor,
    g: &Tensor,
    skip: [bool; 2],
    unbroadcast: impl Fn(Tensor, &Tensor) -> Result<Tensor>,
) -> Result<Vec<Option<Tensor>>> {
    let (px, py) = match op {
        ZeroSafe::MulNoNan => (
            zero_safe(ZeroSafe::MulNoNan, g, y)?,
            zero_safe(ZeroSafe::MulNoNan, x, g)?,
        ),
        _ => {
            let zero = Tensor::zeros(x.dtype(), &[], x.device())?;
            let nonzero = ops::cast(&ops::binary(BinaryOp::NotEqual, x, &zero)?, x.dtype())?;
            let (px, py) = match op {
                ZeroSafe::Xlogy => (
                    zero_safe(ZeroSafe::Xlogy, &nonzero, y)?,
                    zero_safe(ZeroSafe::Xdivy, x, y)?,
                ),
                ZeroSafe::Xlog1py => {
                    let one = Tensor::ones(y.dtype(), &[], y.device())?;
                    (
                        zero_safe(ZeroSafe::Xlog1py, &nonzero, y)?,
                        zero_safe(ZeroSafe::Xdivy, x, &ops::add(y, &one)?)?,
                    )
                }
                _ => {
                    let neg = ops::unary(UnaryOp::Neg, x)?;
                    (
                        zero_safe(ZeroSafe::Xdivy, &nonzero, y)?,
                        zero_safe(ZeroSafe::Xdivy, &neg, &ops::unary(UnaryOp::Square, y)?)?,
                    )
                }
            };
            (ops::mul(&px, g)?, ops::mul(&py, g)?)
        }
    };
    Ok(vec![
        (!skip[0]).then(|| unbroadcast(px, x)).transpose()?,
        (!skip[1]).then(|| unbroadcast(py, y)).transpose()?,
    ])
}
