//! Shape and layout ops: `reshape`, `concat`, `stack`, `unstack`, `split`,
//! `expand_dims`, `squeeze`, `transpose`, `tile`, `gather`, `where`,
//! `shape`, `size`, `rank`.

use super::convert::{
    axes, axis_arg, int_list, int_scalar, placed, runtime_err, tensor_list, Axis, Ints,
};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::placement::current_device;
use crate::runtime::ops::{self, SplitSpec};
use crate::runtime::{DType, Semantics, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The same elements in a new shape; one dim may be -1.
#[native("reshape(tensor, shape, name=None)")]
fn reshape(vm: &dyn Vm, tensor: Tensor, shape: Ints, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::reshape(&tensor, &shape.0, Semantics::Tf))
}

/// Joins tensors along an existing axis.
#[native("concat(values, axis, name='concat')")]
fn concat(vm: &dyn Vm, values: &Value, axis: &Value, _name: &Value) -> PyResult<Tensor> {
    let ts = tensor_list(vm, values)?;
    placed(vm, ops::concat(&ts, axis_arg(vm, axis)?))
}

/// Joins tensors along a new axis.
#[native("stack(values, axis=0, name='stack')")]
fn stack(vm: &dyn Vm, values: &Value, axis: &Value, _name: &Value) -> PyResult<Tensor> {
    let axis = axis_arg(vm, axis)?;
    // TensorFlow converts a constant list (Python numbers only) as one
    // value first, so `tf.stack([1, 2.5])` is float32, not a Pack error.
    if axis == 0 && crate::object::tensor::convert::literal_of(values)?.is_some() {
        return crate::object::tensor::convert::to_tensor(vm, values, None);
    }
    let ts = tensor_list(vm, values)?;
    placed(vm, ops::stack(&ts, axis))
}

fn tensors_value(r: crate::runtime::Result<Vec<Tensor>>) -> PyResult<Vec<Value>> {
    Ok(r.map_err(runtime_err)?
        .into_iter()
        .map(Value::Tensor)
        .collect())
}

/// The slices of a tensor along an axis, as a list.
#[native("unstack(value, num=None, axis=0, name='unstack')")]
fn unstack(value: Tensor, _num: &Value, axis: Axis, _name: &Value) -> PyResult<Vec<Value>> {
    tensors_value(ops::unstack(&value, axis.0))
}

/// Splits a tensor into parts along an axis.
#[native("split(value, num_or_size_splits, axis=0, num=None, name='split')")]
fn split(
    vm: &dyn Vm,
    value: Tensor,
    num_or_size_splits: &Value,
    axis: &Value,
    _num: &Value,
    _name: &Value,
) -> PyResult<Vec<Value>> {
    let spec = match int_scalar(vm, num_or_size_splits)? {
        Some(k) if k >= 0 => SplitSpec::Count(k as usize),
        Some(k) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("num_or_size_splits must be positive, got {k}"),
            ))
        }
        None => SplitSpec::Sizes(int_list(vm, num_or_size_splits)?),
    };
    tensors_value(ops::split(&value, &spec, axis_arg(vm, axis)?))
}

/// Inserts a dimension of size 1.
#[native("expand_dims(input, axis, name=None)")]
fn expand_dims(vm: &dyn Vm, input: Tensor, axis: Axis, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::expand_dims(&input, axis.0))
}

/// Removes dimensions of size 1.
#[native("squeeze(input, axis=None, name=None)")]
fn squeeze(vm: &dyn Vm, input: Tensor, axis: Option<Ints>, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::squeeze(&input, axes(&axis)))
}

/// Permutes the dimensions (reverses them by default).
#[native("transpose(a, perm=None, conjugate=False, name='transpose')")]
fn transpose(
    vm: &dyn Vm,
    a: Tensor,
    perm: Option<Ints>,
    _conjugate: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    placed(vm, ops::transpose(&a, axes(&perm)))
}

/// Repeats a tensor along each axis.
#[native("tile(input, multiples, name=None)")]
fn tile(vm: &dyn Vm, input: Tensor, multiples: Ints, _name: &Value) -> PyResult<Tensor> {
    let m: Vec<usize> = multiples.0.iter().map(|&x| x.max(0) as usize).collect();
    let oom = super::create::kernel_oom(vm, input.dtype(), "Tile", "");
    placed(vm, ops::tile(&input, &m).map_err(oom))
}

/// Slices picked by index along an axis.
#[native("gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None)")]
fn gather(
    vm: &dyn Vm,
    params: Tensor,
    indices: Tensor,
    _validate_indices: &Value,
    axis: Option<Axis>,
    _batch_dims: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    placed(vm, ops::gather(&params, &indices, axis.map_or(0, |a| a.0)))
}

/// Elements of `x` where `condition`, else of `y`; or the true coordinates.
#[native("where(condition, x=None, y=None, name=None)")]
fn where_(
    vm: &dyn Vm,
    condition: Tensor,
    x: Option<&Value>,
    y: Option<&Value>,
    _name: &Value,
) -> PyResult<Tensor> {
    match (x, y) {
        (None, None) => placed(vm, ops::where_true(&condition)),
        (Some(x), Some(y)) => {
            let (x, y) = super::math_ops::matching(vm, x, y)?;
            placed(vm, ops::where_select(&condition, &x, &y))
        }
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "x and y must both be non-None or both be None.",
        )),
    }
}

fn ints_tensor(vals: Vec<i64>, dims: &[usize], dtype: DType, vm: &dyn Vm) -> PyResult<Tensor> {
    let t = Tensor::from_vec(vals, dims).map_err(runtime_err)?;
    let t = ops::cast(&t, dtype).map_err(runtime_err)?;
    placed(vm, t.to_device(current_device(vm)))
}

/// The shape of a tensor, as an int32 tensor.
#[native("shape(input, out_type=None, name=None)")]
fn shape(vm: &dyn Vm, input: Tensor, out_type: Option<DType>, _name: &Value) -> PyResult<Tensor> {
    let dims: Vec<i64> = input.dims().iter().map(|&d| d as i64).collect();
    let n = dims.len();
    ints_tensor(dims, &[n], out_type.unwrap_or(DType::Int32), vm)
}

/// The number of elements, as an int32 tensor.
#[native("size(input, out_type=None, name=None)")]
fn size(vm: &dyn Vm, input: Tensor, out_type: Option<DType>, _name: &Value) -> PyResult<Tensor> {
    let n = vec![input.numel() as i64];
    ints_tensor(n, &[], out_type.unwrap_or(DType::Int32), vm)
}

/// The number of dimensions, as an int32 tensor.
#[native("rank(input, name=None)")]
fn rank(vm: &dyn Vm, input: Tensor, _name: &Value) -> PyResult<Tensor> {
    ints_tensor(vec![input.rank() as i64], &[], DType::Int32, vm)
}

/// Registers the array ops.
pub fn register(m: &mut ModuleBuilder) {
    m.add(reshape::DEF)
        .add(concat::DEF)
        .add(stack::DEF)
        .add(unstack::DEF)
        .add(split::DEF)
        .add(expand_dims::DEF)
        .add(squeeze::DEF)
        .add(transpose::DEF)
        .add(tile::DEF)
        .add(gather::DEF)
        .add(where_::DEF)
        .add(shape::DEF)
        .add(size::DEF)
        .add(rank::DEF);
}
