//! The `tf.nn` kernels that are one TensorFlow op each and are built here
//! from the element-wise and reduction ops: `BiasAdd`, `L2Loss`,
//! `SquaredDifference`, `SoftmaxCrossEntropyWithLogits` and
//! `SparseSoftmaxCrossEntropyWithLogits` (the formulas of TensorFlow's
//! `xent_op.h` and `sparse_xent_op.h`: shift by the row maximum, `exp`,
//! row sums, `log`). Each reports itself to the tapes as one op
//! ([`GradOp`]); its gradient is in `autodiff/grad_nn.rs`. Every piece runs
//! on the tensor's own backend, so GPUs need no kernel here. The Python
//! wrappers (reshapes, casts, argument checks) are in `modules/tf/nn_ops.rs`.

use super::{
    attr_error, binary, broadcast_to, dtype_mismatch, gather, kernel_error, reduce, reshape, sub,
    unary,
};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{BinaryOp, ReduceOp, Semantics, UnaryOp};
use crate::runtime::shape::Shape;
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;

/// The dtypes of TensorFlow's `half, bfloat16, float, double` ops.
fn float_op(op: &str, d: DType, signature: &str, extra: &str) -> Result<()> {
    if d.is_floating() {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, float, \
         double\n\t; NodeDef: {{{{node {op}}}}}; Op<name={op}; signature={signature}; \
         attr=T:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE]{extra}> [Op:{op}] name: ",
        d.kernel_name()
    )))
}

/// `BiasAdd`'s dtype error (every numeric type is allowed).
fn bias_add_attr_error(d: DType) -> Error {
    let allowed = "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, \
                   qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64";
    let dts: Vec<String> = allowed
        .split(", ")
        .map(|n| format!("DT_{}", n.to_ascii_uppercase()))
        .collect();
    Error::invalid_argument(format!(
        "Value for attr 'T' of {} is not in the list of allowed values: {allowed}\n\t; NodeDef: \
         {{{{node BiasAdd}}}}; Op<name=BiasAdd; signature=value:T, bias:T -> output:T; \
         attr=T:type,allowed=[{}]; attr=data_format:string,default=\"NHWC\",allowed=[\"NHWC\", \
         \"NCHW\"]> [Op:BiasAdd] name: ",
        d.kernel_name(),
        dts.join(", ")
    ))
}

/// The channel axis of `BiasAdd` (`NCHW`: 1 for rank 3 and more).
pub(crate) fn bias_channel_axis(rank: usize, nchw: bool) -> usize {
    if nchw && rank >= 3 {
        1
    } else {
        rank.saturating_sub(1)
    }
}

fn bias_add_impl(value: &Tensor, bias: &Tensor, nchw: bool) -> Result<Tensor> {
    let op = "BiasAdd";
    let _trace = crate::runtime::trace::op(op, value.device());
    if bias.dtype() != value.dtype() {
        return Err(dtype_mismatch(
            op,
            1,
            value.dtype(),
            bias.dtype(),
            " name: ",
        ));
    }
    if value.dtype() == DType::Bool || !value.dtype().is_numeric() {
        return Err(bias_add_attr_error(value.dtype()));
    }
    let dev = value.device();
    let fail = |msg: String| kernel_error(op, &dev, &msg, " name: ");
    if value.rank() < 2 {
        return Err(fail(format!(
            "Input tensor must be at least 2D: {}",
            value.shape().bracket_text()
        )));
    }
    if bias.rank() != 1 {
        return Err(fail(format!(
            "Biases must be 1D: {}",
            bias.shape().bracket_text()
        )));
    }
    let axis = bias_channel_axis(value.rank(), nchw);
    let channels = value.dims()[axis];
    if bias.dims()[0] != channels {
        return Err(fail(if axis + 1 == value.rank() {
            format!(
                "Must provide as many biases as the last dimension of the input tensor: {} vs. {}",
                bias.shape().bracket_text(),
                value.shape().bracket_text()
            )
        } else {
            format!(
                "Must provide as many biases as the channel dimension of the input tensor: {} \
                 vs. {channels} in {}",
                bias.shape().bracket_text(),
                value.shape().bracket_text()
            )
        }));
    }
    // the bias along the channel axis, broadcast over the others
    let mut dims = vec![1i64; value.rank() - axis];
    dims[0] = channels as i64;
    let b = reshape(bias, &dims, Semantics::Tf)?;
    binary(BinaryOp::Add, value, &b)
}

/// `tf.nn.bias_add(value, bias)`: `bias` added along the channel axis (the
/// last, or axis 1 with `NCHW`).
pub fn bias_add(value: &Tensor, bias: &Tensor, nchw: bool) -> Result<Tensor> {
    tape::primitive(
        || GradOp::BiasAdd { nchw },
        &[value, bias],
        || bias_add_impl(value, bias, nchw),
    )
}

/// `BiasAddGrad`: the gradient summed over every axis but the channel axis.
pub fn bias_add_grad(grad: &Tensor, nchw: bool) -> Result<Tensor> {
    let axis = bias_channel_axis(grad.rank(), nchw);
    let axes: Vec<i64> = (0..grad.rank() as i64)
        .filter(|&a| a != axis as i64)
        .collect();
    reduce(ReduceOp::Sum, grad, Some(&axes), false)
}

fn squared_difference_impl(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let op = "SquaredDifference";
    let _trace = crate::runtime::trace::op(op, x.device());
    if x.dtype() != y.dtype() {
        return Err(dtype_mismatch(op, 1, x.dtype(), y.dtype(), " name: "));
    }
    if !matches!(
        x.dtype(),
        DType::Float16 | DType::Float32 | DType::Float64 | DType::Int32 | DType::Int64
    ) {
        return Err(attr_error(op, x.dtype()));
    }
    // Eigen's scalar_squared_difference_op: (x - y) * (x - y)
    unary(UnaryOp::Square, &sub(x, y)?)
}

/// `tf.math.squared_difference(x, y)`: `(x - y) ** 2`, with broadcasting.
pub fn squared_difference(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    tape::primitive(
        || GradOp::SquaredDifference,
        &[x, y],
        || squared_difference_impl(x, y),
    )
}

/// `tf.math.divide_no_nan(x, y)` (`DivNoNan`): `x / y`, and 0 where `y` is
/// 0, with broadcasting; one op for the tapes and graphs (Keras's loss
/// reductions are `div_no_nan` nodes in TensorFlow's graphs).
pub fn div_no_nan(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    tape::primitive(|| GradOp::DivNoNan, &[x, y], || div_no_nan_impl(x, y))
}

fn div_no_nan_impl(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let op = "DivNoNan";
    if x.dtype() != y.dtype() {
        return Err(dtype_mismatch(op, 1, x.dtype(), y.dtype(), " name: "));
    }
    if !matches!(x.dtype(), DType::Float16 | DType::Float32 | DType::Float64) {
        return Err(attr_error(op, x.dtype()));
    }
    // Eigen's scalar_div_no_nan_op: y == 0 ? 0 : x / y
    let q = crate::runtime::ops::truediv(x, y)?;
    let zero = Tensor::zeros(y.dtype(), &[], y.device())?;
    let is_zero = crate::runtime::ops::binary(crate::runtime::BinaryOp::Equal, y, &zero)?;
    crate::runtime::ops::where_select(&is_zero, &Tensor::zeros(q.dtype(), &[], q.device())?, &q)
}

/// `logits - max(logits)` along the rows, `exp` of it (TensorFlow's
/// standalone `exp` over the whole buffer) and its row sums, kept as a
/// column: TensorFlow's fused `exp().sum(classes)`, whose `exp` follows the
/// row reducer's packets (float32 in host memory: `sum_mapped_f32`).
fn shifted_exp(logits: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    let axes = [1i64];
    let max = reduce(ReduceOp::Max, logits, Some(&axes), true)?;
    let shifted = sub(logits, &max)?;
    let e = unary(UnaryOp::Exp, &shifted)?;
    let total = match shifted.as_slice::<f32>() {
        Some(v) if shifted.rank() == 2 => {
            use crate::runtime::backend::cpu::{eigen_math, eigen_reduce};
            let (rows, k) = (shifted.dims()[0], shifted.dims()[1]);
            let sums = (0..rows)
                .map(|r| {
                    eigen_reduce::sum_mapped_f32(v, r * k, k, &eigen_math::pexp, &eigen_math::expf)
                })
                .collect();
            Tensor::from_host(HostData::F32(sums), Shape(vec![rows, 1]), shifted.device())?
        }
        _ => reduce(ReduceOp::Sum, &e, Some(&axes), true)?,
    };
    Ok((shifted, e, total))
}

const XENT_SIG: &str = "features:T, labels:T -> loss:T, backprop:T";
const SPARSE_SIG: &str = "features:T, labels:Tlabels -> loss:T, backprop:T";
const SPARSE_EXTRA: &str = "; attr=Tlabels:type,default=DT_INT64,allowed=[DT_INT32, DT_INT64]";

fn sparse_xent_impl(logits: &Tensor, labels: &Tensor) -> Result<Vec<Tensor>> {
    let op = "SparseSoftmaxCrossEntropyWithLogits";
    let _trace = crate::runtime::trace::op(op, logits.device());
    float_op(op, logits.dtype(), SPARSE_SIG, SPARSE_EXTRA)?;
    if !matches!(labels.dtype(), DType::Int32 | DType::Int64) {
        return Err(Error::invalid_argument(format!(
            "Value for attr 'Tlabels' of {} is not in the list of allowed values: int32, int64\n\t; \
             NodeDef: {{{{node {op}}}}}; Op<name={op}; signature={SPARSE_SIG}; \
             attr=T:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE]{SPARSE_EXTRA}> \
             [Op:{op}] name: ",
            labels.dtype().kernel_name()
        )));
    }
    let dev = logits.device();
    let fail = |msg: String| kernel_error(op, &dev, &msg, " name: ");
    if logits.rank() != 2 {
        return Err(fail(format!(
            "logits must be 2-D, but got shape {}",
            logits.shape().bracket_text()
        )));
    }
    if labels.rank() != 1 {
        return Err(fail(format!(
            "labels must be 1-D, but got shape {}",
            labels.shape().bracket_text()
        )));
    }
    let (rows, classes) = (logits.dims()[0], logits.dims()[1]);
    if labels.dims()[0] != rows {
        return Err(fail(format!(
            "logits and labels must have the same first dimension, got logits shape {} and \
             labels shape {}",
            logits.shape().bracket_text(),
            labels.shape().bracket_text()
        )));
    }
    if classes == 0 {
        return Err(fail(format!(
            "Must have at least one class, but got logits shape {}",
            logits.shape().bracket_text()
        )));
    }
    let ids: Vec<i64> = labels
        .to_device(crate::runtime::Device::CPU0)?
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => i,
            _ => -1,
        })
        .collect();
    if let Some(&bad) = ids.iter().find(|&&l| l < 0 || l >= classes as i64) {
        let all: Vec<String> = ids.iter().map(i64::to_string).collect();
        return Err(fail(format!(
            "Received a label value of {bad} which is outside the valid range of [0, {classes}).  \
             Label values: {}",
            all.join(" ")
        )));
    }
    let (shifted, e, total) = shifted_exp(logits)?;
    // loss: log(sum(exp(shifted))) - shifted[label]
    let flat_idx: Vec<i64> = ids
        .iter()
        .enumerate()
        .map(|(r, &l)| r as i64 * classes as i64 + l)
        .collect();
    let flat_idx = Tensor::from_vec(flat_idx, &[rows])?.to_device(dev)?;
    let flat = shifted.with_shape(Shape(vec![rows * classes]))?;
    let picked = gather(&flat, &flat_idx, 0)?;
    // the loss generator takes the C library's log, one element at a time
    let log_total = {
        let _scalar = crate::runtime::backend::cpu::elementwise::scalar_math();
        reshape(&unary(UnaryOp::Log, &total)?, &[rows as i64], Semantics::Tf)?
    };
    let loss = sub(&log_total, &picked)?;
    // backprop: exp(shifted) / sum - onehot(label)
    let on = Tensor::fill(&[], &Scalar::Float(1.0), logits.dtype(), dev)?;
    let off = Tensor::fill(&[], &Scalar::Float(0.0), logits.dtype(), dev)?;
    let onehot = super::scan::one_hot(labels, classes as i64, &on, &off, -1)?;
    let backprop = sub(&binary(BinaryOp::RealDiv, &e, &total)?, &onehot)?;
    Ok(vec![loss, backprop])
}

/// `SparseSoftmaxCrossEntropyWithLogits` of `[batch, classes]` logits and
/// `[batch]` class ids: the loss and its gradient (`softmax - onehot`).
pub fn sparse_softmax_xent(logits: &Tensor, labels: &Tensor) -> Result<Vec<Tensor>> {
    tape::primitive_n(
        || GradOp::SparseSoftmaxXent,
        &[logits, labels],
        || sparse_xent_impl(logits, labels),
    )
}

fn xent_impl(logits: &Tensor, labels: &Tensor) -> Result<Vec<Tensor>> {
    let op = "SoftmaxCrossEntropyWithLogits";
    let _trace = crate::runtime::trace::op(op, logits.device());
    float_op(op, logits.dtype(), XENT_SIG, "")?;
    if labels.dtype() != logits.dtype() {
        return Err(dtype_mismatch(
            op,
            1,
            logits.dtype(),
            labels.dtype(),
            " name: ",
        ));
    }
    let dev = logits.device();
    let fail = |msg: String| kernel_error(op, &dev, &msg, " name: ");
    let shape = match logits.shape().broadcast(labels.shape()) {
        Some(s) if s.rank() == 2 => s,
        Some(_) if logits.rank() != 2 || labels.rank() != 2 => {
            return Err(fail(
                "logits and labels must be either 2-dimensional, or broadcasted to be \
                 2-dimensional"
                    .into(),
            ))
        }
        _ => {
            return Err(fail(format!(
                "logits and labels must be broadcastable: logits_size={} labels_size={}",
                logits.shape().bracket_text(),
                labels.shape().bracket_text()
            )))
        }
    };
    let logits = broadcast_to(logits, shape.dims())?;
    let labels = broadcast_to(labels, shape.dims())?;
    if shape.dims()[1] == 0 {
        // no classes: each loss is an empty sum
        let loss = Tensor::zeros(logits.dtype(), &shape.dims()[..1], dev)?;
        return Ok(vec![loss, logits]);
    }
    let (shifted, e, total) = shifted_exp(&logits)?;
    // loss: sum(labels * (log(sum(exp(shifted))) - shifted)) along the rows
    let log_total = unary(UnaryOp::Log, &total)?;
    let terms = binary(BinaryOp::Mul, &labels, &sub(&log_total, &shifted)?)?;
    let loss = reduce(ReduceOp::Sum, &terms, Some(&[1]), false)?;
    // backprop: exp(shifted) / sum - labels
    let backprop = sub(&binary(BinaryOp::RealDiv, &e, &total)?, &labels)?;
    Ok(vec![loss, backprop])
}

/// `SoftmaxCrossEntropyWithLogits` of 2-D logits and labels (broadcast
/// against each other): the loss and its gradient (`softmax - labels`).
pub fn softmax_xent(logits: &Tensor, labels: &Tensor) -> Result<Vec<Tensor>> {
    tape::primitive_n(
        || GradOp::SoftmaxXent,
        &[logits, labels],
        || xent_impl(logits, labels),
    )
}
