//! Neural-network ops built from the element-wise and reduction ops:
//! `Softmax`/`LogSoftmax` (shift by the maximum, exponentiate, normalise, as
//! TensorFlow's kernels do), `Relu6`, `LeakyRelu` and `x * sigmoid(x)`.
//! Every piece runs on the tensor's own backend, so GPUs need no kernel here;
//! float32 `Softmax`, `LogSoftmax` and `Softplus` in host memory take the
//! CPU backend's copies of TensorFlow's fused kernels (`f32_kernels`).

use super::{attr_error, binary, cast, reduce, sub, unary, where_select};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::{f32_kernels, permute_indices};
use crate::runtime::dtype::DType;
use crate::runtime::dtype::Scalar;
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{BinaryOp, ReduceOp, UnaryOp};
use crate::runtime::storage::{Elem, HostData};
use crate::runtime::tensor::Tensor;

/// A 0-d tensor of `x`'s dtype holding `v`, on `x`'s device.
fn scalar_like(x: &Tensor, v: f64) -> Result<Tensor> {
    let s = if x.dtype().is_floating() {
        Scalar::Float(v)
    } else {
        Scalar::Int(v as i64)
    };
    Tensor::fill(&[], &s, x.dtype(), x.device())
}

/// `tf.nn.softmax` (`log == false`) or `tf.nn.log_softmax` along `axis`.
fn softmax_impl(x: &Tensor, axis: i64, log: bool) -> Result<Tensor> {
    let op = if log { "LogSoftmax" } else { "Softmax" };
    let _trace = crate::runtime::trace::op(op, x.device());
    if !x.dtype().is_floating() {
        return Err(attr_error(op, x.dtype()));
    }
    let rank = x.rank() as i64;
    if axis < -rank || axis >= rank {
        return Err(Error::invalid_argument(format!(
            "`dim` must be in the range [-{rank}, {rank}) where {rank} is the number of \
             dimensions in the input. Received: dim={axis}"
        )));
    }
    if x.rank() == 0 {
        return Err(Error::invalid_argument(format!(
            "logits must have >= 1 dimension, got [] [Op:{op}] name: "
        )));
    }
    // float32 in host memory: TensorFlow's CPU kernels (oneDNN's softmax,
    // Eigen's log_softmax), bit for bit
    let kernel = if log {
        f32_kernels::log_softmax_rows
    } else {
        f32_kernels::softmax_rows
    };
    if let Some(out) = along_rows(x, axis.rem_euclid(rank) as usize, kernel)? {
        return Ok(out);
    }
    if log {
        let f64_rows = f32_kernels::log_softmax_rows_f64;
        if let Some(out) = along_rows(x, axis.rem_euclid(rank) as usize, f64_rows)? {
            return Ok(out);
        }
    }
    let axes = [axis];
    let max = reduce(ReduceOp::Max, x, Some(&axes), true)?;
    let shifted = sub(x, &max)?;
    let e = unary(UnaryOp::Exp, &shifted)?;
    let total = reduce(ReduceOp::Sum, &e, Some(&axes), true)?;
    if log {
        sub(&shifted, &unary(UnaryOp::Log, &total)?)
    } else {
        // TensorFlow's kernel multiplies by the sum's reciprocal
        binary(BinaryOp::Mul, &e, &unary(UnaryOp::Reciprocal, &total)?)
    }
}

/// `f`, a kernel over rows of the last axis, applied along `axis` of `x`
/// as TensorFlow applies its kernels: the Python wrapper swaps `axis` with
/// the last axis and back. None when `x` is not `T` in host memory.
fn along_rows<T: Elem>(
    x: &Tensor,
    axis: usize,
    f: fn(&[T], usize) -> Result<Vec<T>>,
) -> Result<Option<Tensor>> {
    let Some(data) = x.as_slice::<T>() else {
        return Ok(None);
    };
    let dims = x.dims();
    let last = dims.len() - 1;
    let out = if axis == last {
        f(data, dims[axis])?
    } else {
        let mut perm: Vec<usize> = (0..dims.len()).collect();
        perm.swap(axis, last);
        let idx = permute_indices(dims, &perm)?;
        let moved: Vec<T> = idx.iter().map(|&i| data[i]).collect();
        let mut out = moved.clone();
        for (&i, v) in idx.iter().zip(f(&moved, dims[axis])?) {
            out[i] = v;
        }
        out
    };
    Tensor::from_host(T::wrap(out), x.shape().clone(), x.device()).map(Some)
}

/// `tf.nn.relu6`: `min(max(x, 0), 6)`.
fn relu6_impl(x: &Tensor) -> Result<Tensor> {
    let r = unary(UnaryOp::Relu, x).map_err(|e| rename(e, "Relu", "Relu6"))?;
    binary(BinaryOp::Minimum, &r, &scalar_like(x, 6.0)?)
}

/// Rewrites an op name in an error raised on behalf of another op.
fn rename(e: Error, from: &str, to: &str) -> Error {
    Error::new(e.kind(), e.message().replace(from, to))
}

/// `tf.nn.leaky_relu`: `x` where positive, `alpha * x` elsewhere (alpha in
/// x's dtype; integers are cast to float32 first, as TensorFlow does).
fn leaky_relu_impl(x: &Tensor, alpha: f64) -> Result<Tensor> {
    let x = if x.dtype().is_integer() {
        cast(x, DType::Float32)?
    } else {
        x.clone()
    };
    if !x.dtype().is_floating() {
        return Err(attr_error("LeakyRelu", x.dtype()));
    }
    let zero = scalar_like(&x, 0.0)?;
    let pos = binary(BinaryOp::Greater, &x, &zero)?;
    // the kernel's `alpha` attribute is a float32, widened for float64
    let scaled = binary(BinaryOp::Mul, &x, &scalar_like(&x, alpha as f32 as f64)?)?;
    where_select(&pos, &x, &scaled)
}

/// `tf.nn.silu` / `tf.nn.swish` with `beta == 1`: `x * sigmoid(x)`.
pub fn silu(x: &Tensor) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Silu,
        &[x],
        || binary(BinaryOp::Mul, x, &unary(UnaryOp::Sigmoid, x)?),
    )
}

/// `tf.math.softplus`: `log1p(exp(x))`, with TensorFlow's kernel's
/// shortcuts (`x` for large `x`, `exp(x)` for very negative `x`).
fn softplus_impl(x: &Tensor) -> Result<Tensor> {
    let op = "Softplus";
    let _trace = crate::runtime::trace::op(op, x.device());
    if !x.dtype().is_floating() {
        return Err(attr_error(op, x.dtype()));
    }
    // log(epsilon) + 2 of the dtype, as the kernel computes it
    let threshold = match x.dtype() {
        DType::Float64 => (f64::EPSILON).ln() + 2.0,
        DType::Float16 => (0.000_976_562_5_f32.ln() + 2.0) as f64,
        _ => (f32::EPSILON.ln() + 2.0) as f64,
    };
    // float32 in host memory: TensorFlow's fused kernel, bit for bit
    if let Some(v) = x.as_slice::<f32>() {
        let out = HostData::F32(f32_kernels::softplus(v)?);
        return Tensor::from_host(out, x.shape().clone(), x.device());
    }
    let too_large = binary(BinaryOp::Greater, x, &scalar_like(x, -threshold)?)?;
    let too_small = binary(BinaryOp::Less, x, &scalar_like(x, threshold)?)?;
    let e = unary(UnaryOp::Exp, x)?;
    let log1p = unary(UnaryOp::Log1p, &e)?;
    let small = where_select(&too_small, &e, &log1p)?;
    where_select(&too_large, x, &small)
}

/// TensorFlow's `SigmoidGrad(y, dy)`: `dy · (y · (1 - y))` (float32 in host
/// memory: the fused kernel, whose scalar tail computes `(dy · y) · (1 - y)`).
fn sigmoid_grad_impl(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op("SigmoidGrad", y.device());
    if let (Some(yv), Some(gv)) = (y.as_slice::<f32>(), dy.as_slice::<f32>()) {
        if y.dims() == dy.dims() {
            let out = HostData::F32(f32_kernels::sigmoid_grad(yv, gv)?);
            return Tensor::from_host(out, y.shape().clone(), y.device());
        }
    }
    let one_minus = binary(BinaryOp::Sub, &scalar_like(y, 1.0)?, y)?;
    binary(BinaryOp::Mul, dy, &binary(BinaryOp::Mul, y, &one_minus)?)
}

/// `SigmoidGrad`, one op on the gradient tapes.
pub fn sigmoid_grad(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    tape::primitive(
        || GradOp::SigmoidGrad,
        &[y, dy],
        || sigmoid_grad_impl(y, dy),
    )
}

/// `tf.math.log_sigmoid`: `-softplus(-x)`.
pub fn log_sigmoid(x: &Tensor) -> Result<Tensor> {
    let neg = unary(UnaryOp::Neg, x)?;
    unary(UnaryOp::Neg, &softplus(&neg)?)
}

/// `tf.math.l2_normalize`: `x * rsqrt(max(sum(x * x, axes), epsilon))`.
pub fn l2_normalize(x: &Tensor, axes: Option<&[i64]>, epsilon: &Tensor) -> Result<Tensor> {
    let sq = unary(UnaryOp::Square, x)?;
    let sum = reduce(ReduceOp::Sum, &sq, axes, true)?;
    let inv = unary(UnaryOp::Rsqrt, &binary(BinaryOp::Maximum, &sum, epsilon)?)?;
    binary(BinaryOp::Mul, x, &inv)
}

/// `tf.nn.elu`: `expm1(x)` where `x < 0`, `x` elsewhere.
fn elu_impl(x: &Tensor) -> Result<Tensor> {
    if !x.dtype().is_floating() {
        return Err(attr_error("Elu", x.dtype()));
    }
    let neg = binary(BinaryOp::Less, x, &scalar_like(x, 0.0)?)?;
    where_select(&neg, &unary(UnaryOp::Expm1, x)?, x)
}

/// `tf.nn.selu`: `scale * alpha * expm1(x)` where `x < 0`, `scale * x`
/// elsewhere, with the constants of Klambauer et al. (2017).
fn selu_impl(x: &Tensor) -> Result<Tensor> {
    if !x.dtype().is_floating() {
        return Err(attr_error("Selu", x.dtype()));
    }
    #[allow(clippy::excessive_precision)]
    let (scale, scale_alpha) = (1.050_700_987_355_480_5, 1.758_099_340_847_376_9);
    let neg = binary(BinaryOp::Less, x, &scalar_like(x, 0.0)?)?;
    let lo = binary(
        BinaryOp::Mul,
        &scalar_like(x, scale_alpha)?,
        &unary(UnaryOp::Expm1, x)?,
    )?;
    let hi = binary(BinaryOp::Mul, x, &scalar_like(x, scale)?)?;
    where_select(&neg, &lo, &hi)
}

/// `tf.nn.softmax` (`log == false`) or `tf.nn.log_softmax` along `axis`.
pub fn softmax(x: &Tensor, axis: i64, log: bool) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Softmax { axis, log },
        &[x],
        || softmax_impl(x, axis, log),
    )
}

/// `tf.nn.relu6`, one op on the gradient tapes.
pub fn relu6(x: &Tensor) -> Result<Tensor> {
    tape::primitive(|| GradOp::Relu6, &[x], || relu6_impl(x))
}

/// `tf.nn.elu`, one op on the gradient tapes.
pub fn elu(x: &Tensor) -> Result<Tensor> {
    tape::primitive(|| GradOp::Elu, &[x], || elu_impl(x))
}

/// `tf.nn.selu`, one op on the gradient tapes.
pub fn selu(x: &Tensor) -> Result<Tensor> {
    tape::primitive(|| GradOp::Selu, &[x], || selu_impl(x))
}

/// `tf.math.softplus`, one op on the gradient tapes.
pub fn softplus(x: &Tensor) -> Result<Tensor> {
    tape::primitive(|| GradOp::Softplus, &[x], || softplus_impl(x))
}

/// `tf.nn.leaky_relu`, one op on the gradient tapes.
pub fn leaky_relu(x: &Tensor, alpha: f64) -> Result<Tensor> {
    tape::primitive(
        || GradOp::LeakyRelu(alpha),
        &[x],
        || leaky_relu_impl(x, alpha),
    )
}
