//! Reductions TensorFlow builds out of simpler ops in Python (`math_ops.py`):
//! `reduce_variance`, `reduce_std`, `reduce_logsumexp`, and the kernels
//! `reduce_euclidean_norm` and `count_nonzero`. Each composes the runtime's
//! ops in TensorFlow's order, so the rounding is TensorFlow's.

use super::convert::{axes, placed, runtime_err, Ints};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::ops;
use crate::runtime::{BinaryOp, DType, ReduceOp, Scalar, Semantics, Tensor, UnaryOp};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

type R<T> = crate::runtime::Result<T>;

/// A 0-d tensor of `dtype` holding `v`, on `like`'s device.
fn scalar(v: i64, dtype: DType, like: &Tensor) -> R<Tensor> {
    Tensor::fill(&[], &Scalar::Int(v), dtype, like.device())
}

/// `reduce_mean(square(x - reduce_mean(x, keepdims=True)))`; TypeError for integers.
fn variance(t: &Tensor, axes: Option<&[i64]>, keep: bool) -> PyResult<Tensor> {
    if t.dtype().is_integer() || t.dtype() == DType::Bool {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Input must be either real or complex. Received integer type <dtype: '{}'>.",
                t.dtype().name()
            ),
        ));
    }
    (|| {
        let means = ops::reduce(ReduceOp::Mean, t, axes, true)?;
        let diff = ops::binary(BinaryOp::Sub, t, &means)?;
        let sq = ops::unary(UnaryOp::Square, &diff)?;
        ops::reduce(ReduceOp::Mean, &sq, axes, keep)
    })()
    .map_err(runtime_err)
}

/// The variance over axes (floats).
#[native("reduce_variance(input_tensor, axis=None, keepdims=False, name=None)")]
fn reduce_variance(
    input_tensor: Tensor,
    axis: Option<Ints>,
    keepdims: bool,
    _name: &Value,
) -> PyResult<Tensor> {
    variance(&input_tensor, axes(&axis), keepdims)
}

/// The standard deviation over axes (floats).
#[native("reduce_std(input_tensor, axis=None, keepdims=False, name=None)")]
fn reduce_std(
    vm: &dyn Vm,
    input_tensor: Tensor,
    axis: Option<Ints>,
    keepdims: bool,
    _name: &Value,
) -> PyResult<Tensor> {
    let v = variance(&input_tensor, axes(&axis), keepdims)?;
    placed(vm, ops::unary(UnaryOp::Sqrt, &v))
}

/// `log(sum(exp(x)))` over axes, computed stably.
// `log(sum(exp(x - m))) + m`, with `m` the (finite) maximum.
#[native("reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None)")]
fn reduce_logsumexp(
    vm: &dyn Vm,
    input_tensor: Tensor,
    axis: Option<Ints>,
    keepdims: bool,
    _name: &Value,
) -> PyResult<Tensor> {
    let (t, keep) = (input_tensor, keepdims);
    let axes = axes(&axis);
    let r = (|| {
        let raw_max = ops::reduce(ReduceOp::Max, &t, axes, true)?;
        // is_finite(raw_max): x - x is 0 only for finite x
        let zero = scalar(0, raw_max.dtype(), &raw_max)?;
        let diff = ops::binary(BinaryOp::Sub, &raw_max, &raw_max)?;
        let finite = ops::binary(BinaryOp::Equal, &diff, &zero)?;
        let zeros = Tensor::zeros(raw_max.dtype(), raw_max.dims(), raw_max.device())?;
        // TensorFlow's `stop_gradient`: the shift is no part of the gradient
        let my_max = crate::runtime::autodiff::tape::detached(&ops::where_select(
            &finite, &raw_max, &zeros,
        )?);
        let shifted = ops::binary(BinaryOp::Sub, &t, &my_max)?;
        let e = ops::unary(UnaryOp::Exp, &shifted)?;
        let s = ops::reduce(ReduceOp::Sum, &e, axes, keep)?;
        let result = ops::unary(UnaryOp::Log, &s)?;
        let my_max = if keep {
            my_max
        } else {
            let dims: Vec<i64> = result.dims().iter().map(|&d| d as i64).collect();
            ops::reshape(&my_max, &dims, Semantics::Tf)?
        };
        ops::add(&result, &my_max)
    })();
    placed(vm, r)
}

/// `sqrt(sum(x * x))` over axes.
// In the input's dtype (integers truncate).
#[native("reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None)")]
fn reduce_euclidean_norm(
    vm: &dyn Vm,
    input_tensor: Tensor,
    axis: Option<Ints>,
    keepdims: bool,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = input_tensor;
    let r = (|| {
        let sq = ops::binary(BinaryOp::Mul, &t, &t)?;
        let s = ops::reduce(ReduceOp::Sum, &sq, axes(&axis), keepdims)?;
        if s.dtype().is_integer() {
            let f = ops::cast(&s, DType::Float64)?;
            ops::cast(&ops::unary(UnaryOp::Sqrt, &f)?, s.dtype())
        } else {
            ops::unary(UnaryOp::Sqrt, &s)
        }
    })();
    placed(vm, r)
}

/// The number of non-zero elements over axes (int64 unless `dtype` says otherwise).
#[native("count_nonzero(input, axis=None, keepdims=None, dtype=None, name=None)")]
fn count_nonzero(
    vm: &dyn Vm,
    input: Tensor,
    axis: Option<Ints>,
    keepdims: bool,
    dtype: Option<&Value>,
    _name: &Value,
) -> PyResult<Tensor> {
    let (t, keep) = (input, keepdims);
    let dtype = match dtype {
        Some(d) => crate::distribute::dataset::dtype_of(vm, d)?,
        None => DType::Int64,
    };
    let r = (|| {
        let zero = scalar(0, t.dtype(), &t)?;
        let nz = ops::binary(BinaryOp::NotEqual, &t, &zero)?;
        let n = ops::cast(&nz, DType::Int64)?;
        let s = ops::reduce(ReduceOp::Sum, &n, axes(&axis), keep)?;
        ops::cast(&s, dtype)
    })();
    placed(vm, r)
}

/// Registers the ops (`top_level`: under `tf`, which has only
/// `reduce_logsumexp` of them).
pub fn register(m: &mut ModuleBuilder, top_level: bool) {
    m.add(reduce_logsumexp::DEF);
    if top_level {
        return;
    }
    m.add(reduce_variance::DEF)
        .add(reduce_std::DEF)
        .add(reduce_euclidean_norm::DEF)
        .add(count_nonzero::DEF);
}
