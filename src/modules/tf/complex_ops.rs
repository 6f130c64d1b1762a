//! Complex numbers: `tf.complex`, `tf.math.real` / `imag` / `conj` /
//! `angle` with TensorFlow's handling of real inputs (each is the identity,
//! zeros or a sign test there), and the conjugating forms of transposes and
//! products (`conjugate=True`, `adjoint_a`).

use super::convert::{placed, runtime_err, to_tensor};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::ops::complex::{self as cx, ComplexOp};
use crate::runtime::{ops, BinaryOp, DType, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `t` conjugated when `yes` and it is complex (real tensors are their own
/// conjugates).
pub fn conj_if(t: Tensor, yes: bool) -> PyResult<Tensor> {
    if yes && t.dtype().is_complex() {
        cx::part(ComplexOp::Conj, &t).map_err(runtime_err)
    } else {
        Ok(t)
    }
}

/// A complex tensor from real and imaginary parts of one float type.
#[native("complex(real, imag, name=None)")]
fn complex(vm: &dyn Vm, real: &Value, imag: &Value, _name: &Value) -> PyResult<Tensor> {
    let (re, im) = (to_tensor(vm, real, None)?, to_tensor(vm, imag, None)?);
    if re.dtype() != im.dtype() || re.dtype().complex_of().is_none() {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "The `real` and `imag` components have incorrect types: {} {}. They must be \
                 consistent, and one of [tf.float32, tf.float64]",
                re.dtype().name(),
                im.dtype().name()
            ),
        ));
    }
    placed(vm, cx::complex(&re, &im))
}

/// The real parts (a real tensor is returned as it is).
#[native("real(input, name=None)")]
fn real(vm: &dyn Vm, input: &Value, _name: &Value) -> PyResult<Tensor> {
    let x = to_tensor(vm, input, None)?;
    if x.dtype().is_complex() {
        return placed(vm, cx::part(ComplexOp::Real, &x));
    }
    if x.dtype() == DType::String {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "input must be a numeric tensor, but got tensor with dtype <dtype: '{}'>",
                x.dtype().name()
            ),
        ));
    }
    Ok(x)
}

/// The imaginary parts (zeros for a real tensor).
#[native("imag(input, name=None)")]
fn imag(vm: &dyn Vm, input: &Value, _name: &Value) -> PyResult<Tensor> {
    let x = to_tensor(vm, input, None)?;
    if x.dtype().is_complex() {
        return placed(vm, cx::part(ComplexOp::Imag, &x));
    }
    Tensor::zeros(x.dtype(), x.dims(), x.device()).map_err(runtime_err)
}

/// The complex conjugates (a real tensor is returned as it is).
#[native("conj(x, name=None)")]
fn conj(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    let t = to_tensor(vm, x, None)?;
    if t.dtype().is_complex() {
        return placed(vm, cx::part(ComplexOp::Conj, &t));
    }
    if t.dtype().is_floating() || t.dtype().is_integer() {
        return Ok(t);
    }
    Err(PyErr::new(
        ExcType::TypeError,
        format!(
            "Expected numeric or variant tensor, got dtype tf.{}",
            t.dtype().name()
        ),
    ))
}

/// The argument of each element (`atan2(imag, real)`); for a real tensor,
/// pi where it is negative and 0 elsewhere.
#[native("angle(input, name=None)")]
fn angle(vm: &dyn Vm, input: &Value, _name: &Value) -> PyResult<Tensor> {
    let x = to_tensor(vm, input, None)?;
    if x.dtype().is_complex() {
        return placed(vm, cx::part(ComplexOp::Angle, &x));
    }
    let r = (|| {
        let zero = Tensor::zeros(x.dtype(), x.dims(), x.device())?;
        let negative = ops::binary(BinaryOp::Less, &x, &zero)?;
        let pi = Tensor::fill(
            x.dims(),
            &crate::runtime::Scalar::Float(std::f64::consts::PI),
            x.dtype(),
            x.device(),
        )?;
        ops::where_select(&negative, &pi, &zero)
    })();
    placed(vm, r)
}

/// Registers `tf.complex` (at the top level) or `tf.math`'s `real`,
/// `imag`, `conj` and `angle`.
pub fn register(m: &mut ModuleBuilder, top_level: bool) {
    if top_level {
        m.add(complex::DEF);
    } else {
        for def in [real::DEF, imag::DEF, conj::DEF, angle::DEF] {
            m.add(def);
        }
    }
}
