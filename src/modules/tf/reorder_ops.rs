//! `tf.roll`, `tf.reverse`, `tf.broadcast_to`, `tf.unique`, `tf.unique_with_counts`,
//! `tf.searchsorted` and `tf.histogram_fixed_width`: argument conversion and TensorFlow's
//! Python-level checks; the ops are `runtime::ops::reorder`.

use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::convert::{dtype_arg, int_list, runtime_err, to_tensor};
use crate::object::types::{type_error, value_error};
use crate::runtime::ops::reorder;
use crate::runtime::{DType, Error, ErrorKind, Tensor};
use crate::value::{PyResult, Value, Vm};

/// Registers the names (top-level only, as in TensorFlow 2.21).
pub fn register(m: &mut ModuleBuilder) {
    m.add(roll::DEF)
        .add(reverse::DEF)
        .add(unique::DEF)
        .add(unique_with_counts::DEF)
        .add(searchsorted::DEF)
        .add(histogram_fixed_width::DEF)
        .add(broadcast_to::DEF);
}

/// Broadcasts a tensor to a shape: `tf.broadcast_to([1, 2], [2, 2])` is
/// `[[1, 2], [1, 2]]`.
#[native("broadcast_to(input, shape, name=None)")]
fn broadcast_to(vm: &dyn Vm, input: Tensor, shape: &Value, _name: &Value) -> PyResult<Tensor> {
    let dims = int_list(vm, shape)?
        .into_iter()
        .map(|d| usize::try_from(d).map_err(|_| value_error(format!("Dimension {d} must be >= 0"))))
        .collect::<PyResult<Vec<usize>>>()?;
    let oom = super::create::kernel_oom(vm, input.dtype(), "BroadcastTo", "");
    crate::runtime::ops::broadcast_to(&input, &dims).map_err(|e| runtime_err(oom(e)))
}

/// Rolls the elements along axes: `tf.roll([0, 1, 2, 3, 4], shift=2,
/// axis=0)` is `[3, 4, 0, 1, 2]`.
#[native("roll(input, shift, axis, name=None)")]
fn roll(
    vm: &dyn Vm,
    input: Tensor,
    shift: &Value,
    axis: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let (shift, axis) = (int_list(vm, shift)?, int_list(vm, axis)?);
    let shifts = reorder::roll_shifts(&input, &shift, &axis).map_err(runtime_err)?;
    reorder::roll(&input, &shifts).map_err(runtime_err)
}

/// Reverses the given axes: `tf.reverse([[1, 2], [3, 4]], [1])` is
/// `[[2, 1], [4, 3]]`.
#[native("reverse(tensor, axis, name=None)")]
fn reverse(vm: &dyn Vm, tensor: Tensor, axis: &Value, _name: &Value) -> PyResult<Tensor> {
    let axes = reorder::reverse_axes(&tensor, &int_list(vm, axis)?).map_err(runtime_err)?;
    reorder::reverse(&tensor, &axes).map_err(runtime_err)
}

/// A dtype argument whose default (None) is int32.
fn int32_default(vm: &dyn Vm, v: &Value) -> PyResult<DType> {
    match v {
        Value::None => Ok(DType::Int32),
        v => dtype_arg(vm, v),
    }
}

fn index_dtype(vm: &dyn Vm, v: &Value) -> PyResult<DType> {
    let d = int32_default(vm, v)?;
    if !matches!(d, DType::Int32 | DType::Int64) {
        return Err(type_error(format!(
            "Value passed to parameter 'out_idx' has DataType {} not in list of allowed values: int32, int64",
            d.name()
        )));
    }
    Ok(d)
}

fn named(vm: &dyn Vm, name: &str, fields: &[&str], values: Vec<Tensor>) -> PyResult<Value> {
    let class = crate::object::types::namedtuple::struct_class(
        name,
        fields,
        "tensorflow.python.ops.gen_array_ops",
    )?;
    vm.call(
        &class,
        values.into_iter().map(Value::Tensor).collect(),
        Vec::new(),
    )
}

/// The unique elements of a 1-D tensor in order of appearance, and the
/// index of each element in them: `Unique(y, idx)`.
#[native("unique(x, out_idx=None, name=None)")]
fn unique(vm: &dyn Vm, x: Tensor, out_idx: &Value, _name: &Value) -> PyResult<Value> {
    let (y, idx, _) = reorder::unique(&x, index_dtype(vm, out_idx)?, false).map_err(runtime_err)?;
    named(vm, "Unique", &["y", "idx"], vec![y, idx])
}

/// `unique` with the count of each unique element: `UniqueWithCounts(y,
/// idx, count)`.
#[native("unique_with_counts(x, out_idx=None, name=None)")]
fn unique_with_counts(vm: &dyn Vm, x: Tensor, out_idx: &Value, _name: &Value) -> PyResult<Value> {
    let (y, idx, count) =
        reorder::unique(&x, index_dtype(vm, out_idx)?, true).map_err(runtime_err)?;
    named(
        vm,
        "UniqueWithCounts",
        &["y", "idx", "count"],
        vec![y, idx, count],
    )
}

/// Where each value would go in the sorted innermost rows:
/// `tf.searchsorted([0, 3, 9], [1, 9], side='right')` is `[1, 3]`.
#[native("searchsorted(sorted_sequence, values, side='left', out_type=None, name=None)")]
fn searchsorted(
    vm: &dyn Vm,
    sorted_sequence: &Value,
    values: &Value,
    side: &Value,
    out_type: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let right = match side {
        Value::Str(s) if &**s == "left" => false,
        Value::Str(s) if &**s == "right" => true,
        other => {
            return Err(value_error(format!(
                "Argument `side` must be either 'right' or 'left'. Received: `side` = {}.",
                vm.repr(other)?
            )))
        }
    };
    let seq = to_tensor(vm, sorted_sequence, None)?;
    let vals = to_tensor(vm, values, None)?;
    // TensorFlow reads `shape[-1]` of each first (a strided slice)
    for t in [&seq, &vals] {
        if t.rank() == 0 {
            return Err(runtime_err(Error::kernel(
                ErrorKind::InvalidArgument,
                "StridedSlice",
                &t.device(),
                "slice index -1 of dimension 0 out of bounds.",
                "StridedSlice",
                " name: strided_slice/",
            )));
        }
    }
    let vals = if vals.dtype() != seq.dtype() {
        if matches!(values, Value::Tensor(_)) {
            return Err(type_error(format!(
                "Input 'values' of '{}' Op has type {} that does not match type {} of argument 'sorted_inputs'.",
                if right { "UpperBound" } else { "LowerBound" },
                vals.dtype().name(),
                seq.dtype().name()
            )));
        }
        to_tensor(vm, values, Some(seq.dtype()))?
    } else {
        vals
    };
    let out = int32_default(vm, out_type)?;
    reorder::search_sorted(&seq, &vals, right, out).map_err(runtime_err)
}

/// Counts of `values` in `nbins` equal-width bins over `value_range`
/// (values below or above go to the first or last bin).
#[native("histogram_fixed_width(values, value_range, nbins=100, dtype=None, name=None)")]
fn histogram_fixed_width(
    vm: &dyn Vm,
    values: &Value,
    value_range: &Value,
    nbins: i64,
    dtype: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let v = to_tensor(vm, values, None)?;
    let r = to_tensor(vm, value_range, Some(v.dtype()))?;
    let dtype = int32_default(vm, dtype)?;
    reorder::histogram_fixed_width(&v, &r, nbins, dtype).map_err(runtime_err)
}
