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
    fn element<T: Lane>(self, x: T, y: T, packet: bool) -> T {
        let (x, y) = (x.ftz(), y.ftz());
        let zero = T::default();
        let r = match self {
            ZeroSafe::MulNoNan if y == zero => zero,
            ZeroSafe::MulNoNan => x * y,
            // a packet selects `x` itself (keeping -0.0's sign)
            _ if x == zero => {
                if packet {
                    x
                } else {
                    zero
                }
            }
            ZeroSafe::Xlogy => x * y.log(packet),
            ZeroSafe::Xdivy => x / y,
            ZeroSafe::Xlog1py => x * y.log1p(packet),
        };
        r.ftz()
    }
}

/// A float type's Eigen functions: the vectorised one on packets, the
/// scalar one past them.
trait Lane:
    Copy + Default + PartialEq + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self>
{
    /// Floats per packet.
    const PACKET: usize;
    fn ftz(self) -> Self;
    fn log(self, packet: bool) -> Self;
    fn log1p(self, packet: bool) -> Self;
}

impl Lane for f32 {
    const PACKET: usize = m32::PACKET;
    fn ftz(self) -> f32 {
        m32::ftz(self)
    }
    fn log(self, packet: bool) -> f32 {
        if packet {
            m32::plog(self)
        } else {
            m32::logf(self)
        }
    }
    fn log1p(self, packet: bool) -> f32 {
        if packet {
            m32::log1p(self)
        } else {
            m32::log1pf(self)
        }
    }
}

impl Lane for f64 {
    const PACKET: usize = m64::PACKET;
    fn ftz(self) -> f64 {
        self
    }
    fn log(self, packet: bool) -> f64 {
        if packet {
            m64::plog(self)
        } else {
            m64::log(self)
        }
    }
    // dist's float64 `Log1p` is the scalar function everywhere
    fn log1p(self, _packet: bool) -> f64 {
        self.ln_1p()
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
    let data = match d {
        DType::Float32 => kernel::<f32>(op, &xb, &yb).map(HostData::F32),
        DType::Float64 => kernel::<f64>(op, &xb, &yb).map(HostData::F64),
        _ => None,
    };
    if let Some(data) = data {
        return Tensor::from_host(data, out, x.device());
    }
    composed(op, &xb, &yb)
}

/// `op` of equally shaped host buffers of `T`, or None (another device).
fn kernel<T: Lane + crate::runtime::storage::Elem>(
    op: ZeroSafe,
    x: &Tensor,
    y: &Tensor,
) -> Option<Vec<T>> {
    let (a, b) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
    let full = a.len() / T::PACKET * T::PACKET;
    Some(
        a.iter()
            .zip(b)
            .enumerate()
            .map(|(i, (&a, &b))| op.element(a, b, i < full))
            .collect(),
    )
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
