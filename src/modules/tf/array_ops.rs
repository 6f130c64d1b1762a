//! Shape and layout ops: `reshape`, `concat`, `stack`, `unstack`, `split`,
//! `expand_dims`, `squeeze`, `transpose`, `tile`, `gather`, `where`,
//! `shape`, `size`, `rank`.

use super::convert::{
    axes, axis_arg, int_list, int_scalar, placed, runtime_err, tensor_list, to_tensor, Axis, Ints,
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
fn unstack(
    vm: &dyn Vm,
    value: Tensor,
    num: Option<i64>,
    axis: Axis,
    name: &Value,
) -> PyResult<Vec<Value>> {
    // a given `num` is the `Unpack` op's attr, which must match the axis
    if let (Some(num), Some(a)) = (num, value.shape().normalize_axis(axis.0, 0)) {
        if num != value.dims()[a] as i64 {
            let dims: Vec<String> = value.dims().iter().map(|d| d.to_string()).collect();
            return Err(runtime_err(crate::runtime::Error::kernel(
                crate::runtime::ErrorKind::InvalidArgument,
                &format!("Unpack_num_{num}"),
                &value.device(),
                &format!(
                    "Input shape axis {a} must equal {num}, got shape [{}]",
                    dims.join(",")
                ),
                "Unpack",
                &op_name_suffix(vm, name)?,
            )));
        }
    }
    tensors_value(ops::unstack(&value, axis.0))
}

/// The ` name: ...` TensorFlow appends to an eager kernel error.
fn op_name_suffix(vm: &dyn Vm, name: &Value) -> PyResult<String> {
    Ok(match name {
        Value::None => " name: ".to_string(),
        n => format!(" name: {}", vm.str(n)?),
    })
}

/// Splits a tensor into parts along an axis.
#[native("split(value, num_or_size_splits, axis=0, num=None, name='split')")]
fn split(
    vm: &dyn Vm,
    value: Tensor,
    num_or_size_splits: &Value,
    axis: &Value,
    num: Option<i64>,
    name: &Value,
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
    // with sizes, a given `num` is the `SplitV` op's output count
    if let (Some(num), SplitSpec::Sizes(sizes)) = (num, &spec) {
        if num != sizes.len() as i64 {
            return Err(runtime_err(crate::runtime::Error::kernel(
                crate::runtime::ErrorKind::InvalidArgument,
                &format!("SplitV_num_split_{num}"),
                &value.device(),
                &format!(
                    "size of the split_tensor must be 1-D and have the same elements as outputs \
                     got 1 -D and {} elements",
                    sizes.len()
                ),
                "SplitV",
                &op_name_suffix(vm, name)?,
            )));
        }
    }
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
    conjugate: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = placed(vm, ops::transpose(&a, axes(&perm)))?;
    super::complex_ops::conj_if(t, vm.truthy(conjugate)?)
}

/// Repeats a tensor along each axis.
#[native("tile(input, multiples, name=None)")]
fn tile(vm: &dyn Vm, input: Tensor, multiples: Ints, _name: &Value) -> PyResult<Tensor> {
    let m: Vec<usize> = multiples.0.iter().map(|&x| x.max(0) as usize).collect();
    let oom = super::create::kernel_oom(vm, input.dtype(), "Tile", "");
    placed(vm, ops::tile(&input, &m).map_err(oom))
}

/// Slices picked by index along an axis; with `batch_dims`, each of the
/// leading batch elements gathers from its own slice of `params`.
///
/// ```python
/// params = tf.constant([[0, 0, 1], [3, 0, 0]])
/// print(tf.gather(params, [[2], [0]], axis=1, batch_dims=1).numpy().tolist())  # [[1], [3]]
/// ```
#[native("gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None)")]
fn gather(
    vm: &dyn Vm,
    params: &Value,
    indices: &Value,
    _validate_indices: &Value,
    axis: &Value,
    batch_dims: &Value,
    name: &Value,
) -> PyResult<Tensor> {
    // TensorFlow's eager fast path (tensors, Python scalars) appends
    // ` name: ` to a kernel error; a Python list goes through the fallback
    // path, which leaves the suffix off
    let seq = |v: &Value| matches!(v, Value::List(_) | Value::Tuple(_));
    let suffix = if !seq(params) && !seq(indices) {
        op_name_suffix(vm, name)?
    } else {
        String::new()
    };
    let params = to_tensor(vm, params, None)?;
    let indices = to_tensor(vm, indices, None)?;
    let batch_dims = match batch_dims {
        Value::None => 0,
        Value::Float(f) if f.is_finite() => *f as i64,
        v => int_scalar(vm, v)?.ok_or_else(|| {
            PyErr::new(
                ExcType::TypeError,
                format!(
                    "Expected int for argument 'batch_dims' not {}.",
                    vm.repr(v).unwrap_or_default()
                ),
            )
        })?,
    };
    // `axis` defaults to `batch_dims`; an axis-0 gather is TensorFlow's
    // plain (or `sparse_read`) gather, which does not pass `batch_dims` on
    let axis = match axis {
        Value::None => batch_dims,
        a => axis_arg(vm, a)?,
    };
    let batch_dims = if axis == 0 { 0 } else { batch_dims };
    if i32::try_from(batch_dims).is_err() {
        return Err(runtime_err(crate::runtime::Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "GatherV2",
            &params.device(),
            &format!("Attr batch_dims has value {batch_dims} out of range for an int32"),
            "GatherV2",
            &suffix,
        )));
    }
    let r = ops::gather_batched(&params, &indices, axis, batch_dims);
    let r = match r {
        Err(e) if e.message().ends_with("[Op:GatherV2]") => Err(crate::runtime::Error::new(
            e.kind(),
            format!("{}{suffix}", e.message()),
        )),
        r => r,
    };
    placed(vm, r)
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

/// `input`'s bytes read as another dtype's (see `ops::raw::bitcast`).
#[native("bitcast(input, type, name=None)")]
fn bitcast(vm: &dyn Vm, input: Tensor, r#type: DType, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::raw::bitcast(&input, r#type))
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
        .add(rank::DEF)
        .add(bitcast::DEF);
}
