//! Reductions TensorFlow builds out of simpler ops in Python (`math_ops.py`):
//! `reduce_variance`, `reduce_std`, `reduce_logsumexp`, and the kernels
//! `reduce_euclidean_norm` and `count_nonzero`. Each composes the runtime's
//! ops in TensorFlow's order, so the rounding is TensorFlow's.

use super::convert::{axes_arg, runtime_err, to_tensor, tv};
use crate::modules::ModuleBuilder;
use crate::runtime::ops;
use crate::runtime::{BinaryOp, DType, ReduceOp, Scalar, Semantics, Tensor, UnaryOp};
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

type R<T> = crate::runtime::Result<T>;

/// A 0-d tensor of `dtype` holding `v`, on `like`'s device.
fn scalar(v: i64, dtype: DType, like: &Tensor) -> R<Tensor> {
    Tensor::fill(&[], &Scalar::Int(v), dtype, like.device())
}

/// The input and axes of a `reduce_*(input_tensor, axis=None, keepdims=False)`.
fn operands(vm: &dyn Vm, a: &Args) -> PyResult<(Tensor, Option<Vec<i64>>, bool)> {
    let t = to_tensor(vm, a.get(0), None)?;
    let axes = axes_arg(vm, a.get(1))?;
    let keep = vm.truthy(a.get(2))?;
    Ok((t, axes, keep))
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

fn reduce_variance(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (t, axes, keep) = operands(vm, a)?;
    let v = variance(&t, axes.as_deref(), keep)?;
    Ok(Value::Tensor(v))
}

fn reduce_std(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (t, axes, keep) = operands(vm, a)?;
    let v = variance(&t, axes.as_deref(), keep)?;
    tv(vm, ops::unary(UnaryOp::Sqrt, &v))
}

/// `log(sum(exp(x - m))) + m`, with `m` the (finite) maximum.
fn reduce_logsumexp(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (t, axes, keep) = operands(vm, a)?;
    let axes = axes.as_deref();
    let r = (|| {
        let raw_max = ops::reduce(ReduceOp::Max, &t, axes, true)?;
        // is_finite(raw_max): x - x is 0 only for finite x
        let zero = scalar(0, raw_max.dtype(), &raw_max)?;
        let diff = ops::binary(BinaryOp::Sub, &raw_max, &raw_max)?;
        let finite = ops::binary(BinaryOp::Equal, &diff, &zero)?;
        let zeros = Tensor::zeros(raw_max.dtype(), raw_max.dims(), raw_max.device())?;
        let my_max = ops::where_select(&finite, &raw_max, &zeros)?;
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
    tv(vm, r)
}

/// `sqrt(sum(x * x))` in the input's dtype (integers truncate).
fn reduce_euclidean_norm(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (t, axes, keep) = operands(vm, a)?;
    let r = (|| {
        let sq = ops::binary(BinaryOp::Mul, &t, &t)?;
        let s = ops::reduce(ReduceOp::Sum, &sq, axes.as_deref(), keep)?;
        if s.dtype().is_integer() {
            let f = ops::cast(&s, DType::Float64)?;
            ops::cast(&ops::unary(UnaryOp::Sqrt, &f)?, s.dtype())
        } else {
            ops::unary(UnaryOp::Sqrt, &s)
        }
    })();
    tv(vm, r)
}

/// `count_nonzero(input, axis=None, keepdims=None, dtype=tf.int64)`.
fn count_nonzero(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let axes = axes_arg(vm, a.get(1))?;
    let keep = vm.truthy(a.get(2))?;
    let dtype = match a.opt(3) {
        Some(d) => crate::distribute::dataset::dtype_of(vm, d)?,
        None => DType::Int64,
    };
    let r = (|| {
        let zero = scalar(0, t.dtype(), &t)?;
        let nz = ops::binary(BinaryOp::NotEqual, &t, &zero)?;
        let n = ops::cast(&nz, DType::Int64)?;
        let s = ops::reduce(ReduceOp::Sum, &n, axes.as_deref(), keep)?;
        ops::cast(&s, dtype)
    })();
    tv(vm, r)
}

/// Registers the ops (`top_level`: under `tf`, which has only
/// `reduce_logsumexp` of them).
pub fn register(m: &mut ModuleBuilder, top_level: bool) {
    m.function(
        "reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None)",
        reduce_logsumexp,
        "`log(sum(exp(x)))` over axes, computed stably.",
    );
    if top_level {
        return;
    }
    m.function(
        "reduce_variance(input_tensor, axis=None, keepdims=False, name=None)",
        reduce_variance,
        "The variance over axes (floats).",
    );
    m.function(
        "reduce_std(input_tensor, axis=None, keepdims=False, name=None)",
        reduce_std,
        "The standard deviation over axes (floats).",
    );
    m.function(
        "reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None)",
        reduce_euclidean_norm,
        "`sqrt(sum(x * x))` over axes.",
    );
    m.function(
        "count_nonzero(input, axis=None, keepdims=None, dtype=None, name=None)",
        count_nonzero,
        "The number of non-zero elements over axes (int64 unless `dtype` says otherwise).",
    );
}
