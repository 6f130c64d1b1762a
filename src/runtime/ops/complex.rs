//! The ops between complex numbers and their parts: `Complex` (from real
//! and imaginary parts, broadcast), `Real`, `Imag`, `Angle`, `ComplexAbs`
//! (to the part type) and `Conj`. Complex tensors live in host memory on
//! every device (dist has no CUDA kernels for them), so these compute on
//! the host whatever device their inputs name.

use super::{attr_error, dtype_mismatch, wrap};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::complex::{conj, from_parts, parts};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::Semantics;
use crate::runtime::storage::{HostData, Storage};
use crate::runtime::tensor::Tensor;

/// Which of the complex-part ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComplexOp {
    /// `Complex(real, imag)`.
    Complex,
    /// `Real(x)`: the real parts.
    Real,
    /// `Imag(x)`: the imaginary parts.
    Imag,
    /// `Angle(x)`: `atan2(imag, real)`.
    Angle,
    /// `ComplexAbs(x)`: the magnitudes.
    Abs,
    /// `Conj(x)`: the conjugates.
    Conj,
}

impl ComplexOp {
    /// TensorFlow's op type name.
    pub fn name(self) -> &'static str {
        match self {
            ComplexOp::Complex => "Complex",
            ComplexOp::Real => "Real",
            ComplexOp::Imag => "Imag",
            ComplexOp::Angle => "Angle",
            ComplexOp::Abs => "ComplexAbs",
            ComplexOp::Conj => "Conj",
        }
    }
}

/// `x`'s elements in host memory.
fn host_of(x: &Tensor) -> Result<std::borrow::Cow<'_, HostData>> {
    Ok(match x.storage().host() {
        Some(h) => std::borrow::Cow::Borrowed(h),
        None => std::borrow::Cow::Owned(x.storage().backend().to_host(x.storage())?),
    })
}

/// `tf.complex(real, imag)`: float32 parts make complex64, float64 parts
/// complex128; shapes broadcast.
pub fn complex(re: &Tensor, im: &Tensor) -> Result<Tensor> {
    let out = complex_impl(re, im)?;
    tape::record(
        || GradOp::ComplexPart(ComplexOp::Complex),
        &[re, im],
        &[&out],
    );
    Ok(out)
}

fn complex_impl(re: &Tensor, im: &Tensor) -> Result<Tensor> {
    let op = "Complex";
    let _trace = crate::runtime::trace::op(op, re.device());
    if re.dtype() != im.dtype() {
        return Err(dtype_mismatch(op, 1, re.dtype(), im.dtype(), " name: "));
    }
    if re.dtype().complex_of().is_none() {
        return Err(attr_error(op, re.dtype()));
    }
    let out = super::elementwise::broadcast_shape(op, re, im, Semantics::Tf)?;
    out.checked_numel()?;
    let (a, b) = (host_of(re)?, host_of(im)?);
    let data = match (&*a, &*b) {
        (HostData::F32(x), HostData::F32(y)) => from_parts(x, re.dims(), y, im.dims(), out.dims()),
        (HostData::F64(x), HostData::F64(y)) => from_parts(x, re.dims(), y, im.dims(), out.dims()),
        _ => Err(Error::internal("complex: parts of different dtypes")),
    }
    .map_err(|e| wrap(e, op, &re.device(), op, " name: "))?;
    Ok(Tensor::from_parts(
        data.dtype(),
        out,
        Storage::Host(data),
        re.device(),
    ))
}

/// `Real`, `Imag`, `Angle`, `ComplexAbs` or `Conj` of a complex tensor.
pub fn part(op: ComplexOp, x: &Tensor) -> Result<Tensor> {
    let out = part_impl(op, x)?;
    tape::record(|| GradOp::ComplexPart(op), &[x], &[&out]);
    Ok(out)
}

fn part_impl(op: ComplexOp, x: &Tensor) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(op.name(), x.device());
    if !x.dtype().is_complex() || op == ComplexOp::Complex {
        return Err(attr_error(op.name(), x.dtype()));
    }
    let h = host_of(x)?;
    macro_rules! of {
        ($v:expr) => {
            match op {
                ComplexOp::Real => parts($v, |c| c.re),
                ComplexOp::Imag => parts($v, |c| c.im),
                ComplexOp::Angle => parts($v, |c| c.im.atan2(c.re)),
                ComplexOp::Abs => parts($v, |c| c.re.hypot(c.im)),
                ComplexOp::Conj => conj($v),
                ComplexOp::Complex => Err(Error::internal("complex part of Complex")),
            }
        };
    }
    let data = match &*h {
        HostData::C64(v) => of!(v),
        HostData::C128(v) => of!(v),
        _ => Err(Error::internal("complex part of a real tensor")),
    }?;
    Ok(Tensor::from_parts(
        data.dtype(),
        x.shape().clone(),
        Storage::Host(data),
        x.device(),
    ))
}
