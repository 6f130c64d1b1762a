//! `ndarray`'s methods beyond the basics in `array`: the ones that are
//! numpy functions of the array (`a.argmax()`, `a.clip(0, 1)`,
//! `a.round(2)`, `a.sort()` in place…), sharing their code.

use super::array::{wrap, wrap_array, NdArray};
use super::search::{accumulate, arg_reduce, argsorted, nonzero_of, rounded, sorted};
use super::ufunc::np_rt;
use super::{manip, to_np_tensor};
use crate::object::native;
use crate::object::tensor::convert::runtime_err;
use crate::runtime::{ops, ArgOp, BinaryOp, DType, Device, ReduceOp, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// numpy's `_var`: the sum over `axis` divided by the count is the mean;
/// the squared deviations from it are summed and divided by the count less
/// `ddof`. Ints and bools are computed in float64, floats in their own
/// dtype (a float32 quotient rounded once equals numpy's float64 division
/// rounded to float32: double rounding is innocuous for 53 >= 2 * 24 + 2).
fn variance(
    vm: &dyn Vm,
    a: &Value,
    axis: &Value,
    ddof: &Value,
    keepdims: &Value,
) -> PyResult<Tensor> {
    let t = to_np_tensor(vm, a, None)?;
    if t.dtype() == DType::String {
        return Err(PyErr::new(
            ExcType::TypeError,
            "cannot perform reduce with flexible type",
        ));
    }
    let t = if t.dtype().is_floating() {
        t
    } else {
        ops::cast(&t, DType::Float64).map_err(runtime_err)?
    };
    let ddof = crate::object::types::int_arg(ddof, vm)?;
    let axes = crate::object::tensor::convert::axes_arg(vm, axis)?;
    let sum = ops::np_reduce(ReduceOp::Sum, &t, axes.as_deref(), true).map_err(super::np_err)?;
    let rank = t.rank() as i64;
    let count: usize = match &axes {
        None => t.numel(),
        Some(axes) => axes
            .iter()
            .map(|&a| t.dims()[if a < 0 { a + rank } else { a } as usize])
            .product(),
    };
    let d = t.dtype();
    let scalar =
        |x: f64| Tensor::fill(&[], &Scalar::Float(x), d, Device::CPU0).map_err(runtime_err);
    let div = |x: &Tensor, n: f64| -> PyResult<Tensor> {
        ops::np_binary(BinaryOp::RealDiv, x, &scalar(n)?).map_err(runtime_err)
    };
    let mean = div(&sum, count as f64)?;
    let dev = ops::np_binary(BinaryOp::Sub, &t, &mean).map_err(runtime_err)?;
    let sq = ops::np_binary(BinaryOp::Mul, &dev, &dev).map_err(runtime_err)?;
    let total = ops::np_reduce(ReduceOp::Sum, &sq, axes.as_deref(), vm.truthy(keepdims)?)
        .map_err(super::np_err)?;
    div(&total, (count as i64 - ddof).max(0) as f64)
}

/// `np.var`/`np.std` (`sqrt`) and the methods: the variance over `axis`,
/// its square root for the standard deviation (`dtype=` and `out=` are
/// not taken).
#[allow(clippy::too_many_arguments)]
pub fn var_or_std(
    vm: &dyn Vm,
    a: &Value,
    axis: &Value,
    dtype: &Value,
    out: &Value,
    ddof: &Value,
    keepdims: &Value,
    sqrt: bool,
) -> PyResult<Value> {
    let name = if sqrt { "std" } else { "var" };
    if !matches!(dtype, Value::None) || !matches!(out, Value::None) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!("np.{name}(dtype=..., out=...) is not supported in dist yet"),
        ));
    }
    let v = variance(vm, a, axis, ddof, keepdims)?;
    if !sqrt {
        return Ok(wrap(v));
    }
    Ok(wrap(np_rt(ops::unary(crate::runtime::UnaryOp::Sqrt, &v))?))
}

/// The array's value, for the functions shared with `numpy`.
fn me(this: &NdArray) -> Value {
    wrap(this.tensor())
}

#[native("ndarray.argmax(self, axis=None)", c)]
pub(crate) fn argmax(vm: &dyn Vm, this: &NdArray, axis: &Value) -> PyResult<Value> {
    arg_reduce(vm, ArgOp::ArgMax, &this.tensor(), axis)
}

#[native("ndarray.argmin(self, axis=None)", c)]
pub(crate) fn argmin(vm: &dyn Vm, this: &NdArray, axis: &Value) -> PyResult<Value> {
    arg_reduce(vm, ArgOp::ArgMin, &this.tensor(), axis)
}

#[native("ndarray.argsort(self, axis=-1)", c)]
pub(crate) fn argsort(vm: &dyn Vm, this: &NdArray, axis: &Value) -> PyResult<Value> {
    Ok(wrap_array(argsorted(vm, &this.tensor(), axis)?))
}

#[native("ndarray.sort(self, axis=-1)", c)]
pub(crate) fn sort(vm: &dyn Vm, this: &NdArray, axis: &Value) -> PyResult<()> {
    if this.scalar {
        return Err(PyErr::new(
            ExcType::AxisError,
            "axis -1 is out of bounds for array of dimension 0",
        ));
    }
    let s = sorted(vm, &this.tensor(), axis)?;
    *this.t.borrow_mut() = s;
    Ok(())
}

#[native("ndarray.transpose(self, *axes)", c)]
pub(crate) fn transpose(vm: &dyn Vm, this: &NdArray, axes: &[Value]) -> PyResult<Value> {
    let axes = match axes {
        [] => Value::None,
        [one] if !matches!(one, Value::Int(_)) => one.clone(),
        many => Value::tuple(many.to_vec()),
    };
    Ok(wrap_array(manip::permuted(vm, &this.tensor(), &axes)?))
}

#[native("ndarray.squeeze(self, axis=None)", c)]
pub(crate) fn squeeze(vm: &dyn Vm, this: &NdArray, axis: &Value) -> PyResult<Value> {
    Ok(wrap_array(manip::squeezed(vm, &this.tensor(), axis)?))
}

#[native("ndarray.swapaxes(self, axis1, axis2)", c)]
pub(crate) fn swapaxes(this: &NdArray, axis1: i64, axis2: i64) -> PyResult<Value> {
    Ok(wrap_array(manip::swapped(&this.tensor(), axis1, axis2)?))
}

#[native("ndarray.ravel(self)", c)]
pub(crate) fn ravel(this: &NdArray) -> PyResult<Value> {
    let t = this.tensor();
    Ok(wrap_array(np_rt(ops::reshape(
        &t,
        &[-1],
        crate::runtime::Semantics::Numpy,
    ))?))
}

#[native("ndarray.repeat(self, repeats, axis=None)", c)]
pub(crate) fn repeat(
    vm: &dyn Vm,
    this: &NdArray,
    repeats: &Value,
    axis: &Value,
) -> PyResult<Value> {
    Ok(wrap_array(manip::repeated(
        vm,
        &this.tensor(),
        repeats,
        axis,
    )?))
}

#[native("ndarray.dot(self, b)", c)]
pub(crate) fn dot(vm: &dyn Vm, this: &NdArray, b: &Value) -> PyResult<Value> {
    let y = to_np_tensor(vm, b, None)?;
    let x = this.tensor();
    let d = np_rt(ops::promote_types(x.dtype(), y.dtype()))?;
    let r = manip::dotted(&np_rt(ops::cast(&x, d))?, &np_rt(ops::cast(&y, d))?)?;
    Ok(wrap(r))
}

#[native("ndarray.nonzero(self)", c)]
pub(crate) fn nonzero(this: &NdArray) -> PyResult<Value> {
    nonzero_of(&this.tensor())
}

#[native("ndarray.clip(self, min=None, max=None)", c)]
pub(crate) fn clip(vm: &dyn Vm, this: &NdArray, min: &Value, max: &Value) -> PyResult<Value> {
    super::search::clipped(vm, &me(this), min, max)
}

#[native("ndarray.round(self, decimals=0)", c)]
pub(crate) fn round(this: &NdArray, decimals: i64) -> PyResult<Value> {
    let r = rounded(&this.tensor(), decimals)?;
    Ok(if this.scalar { wrap(r) } else { wrap_array(r) })
}

#[native("ndarray.cumsum(self, axis=None, dtype=None)", c)]
pub(crate) fn cumsum(vm: &dyn Vm, this: &NdArray, axis: &Value, dtype: &Value) -> PyResult<Value> {
    Ok(wrap_array(accumulate(
        vm,
        &this.tensor(),
        axis,
        dtype,
        false,
    )?))
}

#[native("ndarray.cumprod(self, axis=None, dtype=None)", c)]
pub(crate) fn cumprod(vm: &dyn Vm, this: &NdArray, axis: &Value, dtype: &Value) -> PyResult<Value> {
    Ok(wrap_array(accumulate(
        vm,
        &this.tensor(),
        axis,
        dtype,
        true,
    )?))
}

#[native(
    "ndarray.var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False)",
    c
)]
pub(crate) fn var(
    vm: &dyn Vm,
    this: &NdArray,
    axis: &Value,
    dtype: &Value,
    out: &Value,
    ddof: &Value,
    keepdims: &Value,
) -> PyResult<Value> {
    var_or_std(vm, &me(this), axis, dtype, out, ddof, keepdims, false)
}

#[native(
    "ndarray.std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False)",
    c
)]
pub(crate) fn std(
    vm: &dyn Vm,
    this: &NdArray,
    axis: &Value,
    dtype: &Value,
    out: &Value,
    ddof: &Value,
    keepdims: &Value,
) -> PyResult<Value> {
    var_or_std(vm, &me(this), axis, dtype, out, ddof, keepdims, true)
}

#[native("ndarray.fill(self, value)", c)]
pub(crate) fn fill(vm: &dyn Vm, this: &NdArray, value: &Value) -> PyResult<()> {
    let t = this.tensor();
    let v = np_rt(ops::cast(&to_np_tensor(vm, value, None)?, t.dtype()))?;
    let filled = np_rt(ops::broadcast_to(&v, t.dims()))?;
    *this.t.borrow_mut() = filled;
    Ok(())
}

/// The bytes of one element.
#[native("ndarray.itemsize(self)")]
pub(crate) fn itemsize(this: &NdArray) -> usize {
    this.t.borrow().dtype().size()
}

/// The bytes of all elements.
#[native("ndarray.nbytes(self)")]
pub(crate) fn nbytes(this: &NdArray) -> usize {
    let t = this.t.borrow();
    t.dtype().size() * t.numel()
}
