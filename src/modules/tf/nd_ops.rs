//! `tf.pad`, `tf.gather_nd`, `tf.scatter_nd`, `tf.tensor_scatter_nd_*`,
//! `tf.boolean_mask` and `tf.sequence_mask`: TensorFlow's Python wrappers
//! (argument conversion, checks, and for the last two the op sequence they
//! build) over `runtime::ops::scatter`.

use super::convert::{int_list, operand, placed, runtime_err, to_tensor};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::format::numpy_str;
use crate::runtime::ops;
use crate::runtime::ops::scatter::{self, ScatterMode};
use crate::runtime::ops::segment_reduce::{self, SegmentReduce};
use crate::runtime::{BinaryOp, DType, ReduceOp, Scalar, Semantics, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

fn value_error(msg: String) -> PyErr {
    PyErr::new(ExcType::ValueError, msg)
}

/// Whether `v` is a Python number equal to 0 (`tf.pad` then uses `Pad`).
fn is_python_zero(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i == 0,
        Value::Bool(b) => !b,
        Value::Float(f) => *f == 0.0,
        _ => false,
    }
}

/// Pads `tensor` by `paddings` (`[before, after]` per axis) with a constant
/// or a reflection of itself.
#[native("pad(tensor, paddings, mode='CONSTANT', constant_values=0, name=None)")]
fn pad(
    vm: &dyn Vm,
    tensor: &Value,
    paddings: &Value,
    mode: String,
    constant_values: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let mode = mode.to_uppercase();
    let x = to_tensor(vm, tensor, None)?;
    // Converted as TensorFlow's `pad` does, without a dtype: int32, or int64
    // for a padding past int32 (`10**12` is not wrapped).
    let p = to_tensor(vm, paddings, None)?;
    if !matches!(p.dtype(), DType::Int32 | DType::Int64) {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr 'Tpaddings' of {} is not in the list of allowed values: int32, int64",
                p.dtype().kernel_name()
            ),
        ));
    }
    let vals: Vec<i64> = p
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => i,
            _ => 0,
        })
        .collect();
    let pairs: Vec<[i64; 2]> = if p.rank() == 2 && p.dims()[1] == 2 {
        vals.chunks(2).map(|c| [c[0], c[1]]).collect()
    } else {
        Vec::new()
    };
    let r = match mode.as_str() {
        "CONSTANT" => {
            if is_python_zero(constant_values) {
                scatter::pad(&x, &pairs, p.dims(), None)
            } else {
                let v = operand(vm, constant_values, x.dtype(), x.device(), false)?;
                scatter::pad(&x, &pairs, p.dims(), Some(&v))
            }
        }
        "REFLECT" | "SYMMETRIC" => scatter::mirror_pad(&x, &pairs, p.dims(), mode == "SYMMETRIC"),
        _ => {
            return Err(value_error(format!(
                "Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or \
                 \"SYMMETRIC\". Received `mode` = {mode}"
            )))
        }
    };
    placed(
        vm,
        r.map_err(super::create::kernel_oom(vm, x.dtype(), "Pad", "")),
    )
}

/// `batch_dims > 0`: each index row prefixed by its batch coordinates, so a
/// plain `GatherNd` of `params` does the batched gather.
fn batch_indices(p: &Tensor, i: &Tensor, batch_dims: i64) -> PyResult<Tensor> {
    let b = batch_dims as usize;
    if batch_dims < 0 || b >= i.rank() || b > p.rank() || i.dims()[..b] != p.dims()[..b] {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "tf.gather_nd: batch_dims={batch_dims} with params of shape {} and indices of \
                 shape {} is not supported in dist",
                p.shape().tuple_text(),
                i.shape().tuple_text()
            ),
        ));
    }
    let outer = &i.dims()[..i.rank() - 1];
    let n: usize = outer.iter().product();
    let mut coords = Vec::with_capacity(n * b);
    for flat in 0..n {
        let mut rest = flat;
        let mut c = vec![0i64; outer.len()];
        for (k, &d) in outer.iter().enumerate().rev() {
            c[k] = (rest % d) as i64;
            rest /= d;
        }
        coords.extend_from_slice(&c[..b]);
    }
    let mut dims = outer.to_vec();
    dims.push(b);
    let r = (|| {
        let coords = Tensor::from_vec(coords, &dims)?.to_device(i.device())?;
        let coords = ops::cast(&coords, i.dtype())?;
        ops::concat(&[coords, i.clone()], -1)
    })();
    r.map_err(runtime_err)
}

/// The slices of `params` selected by the rows of `indices`' last axis.
#[native("gather_nd(params, indices, batch_dims=0, name=None)")]
fn gather_nd(
    vm: &dyn Vm,
    params: &Value,
    indices: &Value,
    batch_dims: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let p = to_tensor(vm, params, None)?;
    let mut i = to_tensor(vm, indices, None)?;
    if batch_dims != 0 {
        i = batch_indices(&p, &i, batch_dims)?;
    }
    placed(vm, scatter::gather_nd(&p, &i))
}

/// Zeros of `shape` with `updates` summed in at the rows of `indices`.
#[native("scatter_nd(indices, updates, shape, name=None)")]
fn scatter_nd(
    vm: &dyn Vm,
    indices: &Value,
    updates: &Value,
    shape: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let i = to_tensor(vm, indices, None)?;
    let u = to_tensor(vm, updates, None)?;
    let dims = match shape {
        Value::Tensor(t) => t
            .to_scalars()
            .into_iter()
            .map(|s| match s {
                Scalar::Int(i) => i,
                _ => -1,
            })
            .collect(),
        v => int_list(vm, v)?,
    };
    if dims.iter().any(|&d| d < 0) {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            "{{function_node __wrapped__ScatterNd_device_/job:localhost/replica:0/task:0/device:CPU:0}} Dimension -1 must be >= 0 [Op:ScatterNd]",
        ));
    }
    let dims: Vec<usize> = dims.into_iter().map(|d| d as usize).collect();
    placed(vm, scatter::scatter_nd(&i, &u, &dims))
}

fn tensor_scatter(
    vm: &dyn Vm,
    tensor: &Value,
    indices: &Value,
    updates: &Value,
    mode: ScatterMode,
) -> PyResult<Tensor> {
    let (t, u) = matching(vm, tensor, updates)?;
    let i = to_tensor(vm, indices, None)?;
    placed(vm, scatter::tensor_scatter(&t, &i, &u, mode))
}

/// Declares `tf.tensor_scatter_nd_*`: each the one scatter with its mode.
macro_rules! tensor_scatter_natives {
    ($($(#[doc = $doc:tt])* fn $name:ident($sig:tt, $mode:ident);)*) => {$(
        $(#[doc = $doc])*
        #[native($sig)]
        fn $name(
            vm: &dyn Vm,
            tensor: &Value,
            indices: &Value,
            updates: &Value,
            _name: &Value,
        ) -> PyResult<Tensor> {
            tensor_scatter(vm, tensor, indices, updates, ScatterMode::$mode)
        }
    )*};
}

tensor_scatter_natives! {
    /// `tensor` with the slices at `indices` replaced by `updates`.
    fn tensor_scatter_nd_update("tensor_scatter_nd_update(tensor, indices, updates, name=None)", Update);
    /// `tensor` with `updates` added at `indices`.
    fn tensor_scatter_nd_add("tensor_scatter_nd_add(tensor, indices, updates, name=None)", Add);
    /// `tensor` with `updates` subtracted at `indices`.
    fn tensor_scatter_nd_sub("tensor_scatter_nd_sub(tensor, indices, updates, name=None)", Sub);
    /// The element-wise maximum of `tensor` and `updates` at `indices`.
    fn tensor_scatter_nd_max("tensor_scatter_nd_max(tensor, indices, updates, name=None)", Max);
    /// The element-wise minimum of `tensor` and `updates` at `indices`.
    fn tensor_scatter_nd_min("tensor_scatter_nd_min(tensor, indices, updates, name=None)", Min);
}

/// The entries of `tensor` (from `axis` on) where `mask` is true.
#[native("boolean_mask(tensor, mask, axis=None, name=None)")]
fn boolean_mask(
    vm: &dyn Vm,
    tensor: &Value,
    mask: &Value,
    axis: Option<i64>,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = to_tensor(vm, tensor, None)?;
    let m = to_tensor(vm, mask, None)?;
    let nm = m.rank();
    if nm == 0 {
        return Err(value_error("mask cannot be scalar.".into()));
    }
    let rank = t.rank() as i64;
    let axis = axis.unwrap_or(0);
    // Python slicing of the static shape: shape[axis:axis + ndims_mask]
    let a = if axis < 0 {
        (axis + rank).max(0)
    } else {
        axis.min(rank)
    } as usize;
    let end = if axis + nm as i64 >= 0 {
        ((axis + nm as i64).min(rank)) as usize
    } else {
        0
    };
    let part = &t.dims()[a..end.max(a)];
    if part.len() != nm || part != m.dims() {
        let text = crate::runtime::shape::Shape(part.to_vec()).tuple_text();
        return Err(value_error(format!(
            "Shapes {} and {} are incompatible",
            text,
            m.shape().tuple_text()
        )));
    }
    let r = (|| {
        let dims: Vec<i64> = t.dims().iter().map(|&d| d as i64).collect();
        let leading: i64 = dims[a..a + nm].iter().product();
        let mut shape: Vec<i64> = dims[..a].to_vec();
        shape.push(leading);
        shape.extend_from_slice(&dims[a + nm..]);
        let reshaped = ops::reshape(&t, &shape, Semantics::Tf)?;
        let flat_mask = ops::reshape(&m, &[-1], Semantics::Tf)?;
        let idx = ops::squeeze(&ops::where_true(&flat_mask)?, Some(&[1]))?;
        ops::gather(&reshaped, &idx, a as i64)
    })();
    placed(vm, r)
}

/// `result[..., j] = j < lengths[...]`, as `dtype` (default bool).
#[native("sequence_mask(lengths, maxlen=None, dtype=None, name=None)")]
fn sequence_mask(
    vm: &dyn Vm,
    lengths: &Value,
    maxlen: &Value,
    dtype: Option<DType>,
    _name: &Value,
) -> PyResult<Tensor> {
    let lengths = to_tensor(vm, lengths, None)?;
    let maxlen = if maxlen.is_none() {
        let all: Vec<i64> = (0..lengths.rank() as i64).collect();
        let r = (|| {
            let m = ops::reduce(ReduceOp::Max, &lengths, Some(&all), false)?;
            let zero = Tensor::zeros(m.dtype(), &[], m.device())?;
            ops::binary(BinaryOp::Maximum, &zero, &m)
        })();
        r.map_err(runtime_err)?
    } else {
        to_tensor(vm, maxlen, None)?
    };
    if maxlen.rank() != 0 {
        return Err(value_error(format!(
            "Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {} with \
             shape '{}' instead",
            numpy_str(&maxlen),
            maxlen.shape().tuple_text()
        )));
    }
    let r = (|| {
        let md = maxlen.dtype();
        let limit = maxlen.item()?;
        let row = ops::range(
            &Scalar::Int(0),
            &limit,
            &Scalar::Int(1),
            md,
            maxlen.device(),
        )?;
        let matrix = ops::cast(&ops::expand_dims(&lengths, -1)?, md)?;
        let result = ops::binary(BinaryOp::Less, &row, &matrix)?;
        match dtype {
            None | Some(DType::Bool) => Ok(result),
            Some(d) => ops::cast(&result, d),
        }
    })();
    placed(vm, r)
}

/// The maximum of the rows of each segment (empty: the dtype's lowest).
#[native("unsorted_segment_max(data, segment_ids, num_segments, name=None)")]
fn unsorted_segment_max(
    vm: &dyn Vm,
    data: Tensor,
    segment_ids: Tensor,
    num_segments: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let op = SegmentReduce::Max;
    placed(
        vm,
        segment_reduce::unsorted_segment(op, &data, &segment_ids, num_segments),
    )
}

/// The minimum of the rows of each segment (empty: the dtype's highest).
#[native("unsorted_segment_min(data, segment_ids, num_segments, name=None)")]
fn unsorted_segment_min(
    vm: &dyn Vm,
    data: Tensor,
    segment_ids: Tensor,
    num_segments: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let op = SegmentReduce::Min;
    placed(
        vm,
        segment_reduce::unsorted_segment(op, &data, &segment_ids, num_segments),
    )
}

/// The product of the rows of each segment (empty: 1).
#[native("unsorted_segment_prod(data, segment_ids, num_segments, name=None)")]
fn unsorted_segment_prod(
    vm: &dyn Vm,
    data: Tensor,
    segment_ids: Tensor,
    num_segments: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let op = SegmentReduce::Prod;
    placed(
        vm,
        segment_reduce::unsorted_segment(op, &data, &segment_ids, num_segments),
    )
}

/// `_unsorted_segment_N`: the number of rows in each segment (at least 1),
/// shaped to broadcast against the segment sums.
fn segment_counts(data: &Tensor, ids: &Tensor, num: i64) -> crate::runtime::Result<Tensor> {
    let ones = Tensor::ones(data.dtype(), ids.dims(), data.device())?;
    let n = ops::segment::unsorted_segment_sum(&ones, ids, num)?;
    let mut shape = vec![num];
    shape.resize(1 + data.rank() - ids.rank(), 1);
    let n = ops::reshape(&n, &shape, Semantics::Tf)?;
    let one = Tensor::ones(n.dtype(), &[], n.device())?;
    ops::binary(BinaryOp::Maximum, &n, &one)
}

/// The mean of the rows of each segment (empty: 0).
#[native("unsorted_segment_mean(data, segment_ids, num_segments, name=None)")]
fn unsorted_segment_mean(
    vm: &dyn Vm,
    data: Tensor,
    segment_ids: Tensor,
    num_segments: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let r = (|| {
        let n = segment_counts(&data, &segment_ids, num_segments)?;
        let summed = ops::segment::unsorted_segment_sum(&data, &segment_ids, num_segments)?;
        ops::truediv(&summed, &n)
    })();
    placed(vm, r)
}

/// The sum of the rows of each segment over the square root of its size.
#[native("unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None)")]
fn unsorted_segment_sqrt_n(
    vm: &dyn Vm,
    data: Tensor,
    segment_ids: Tensor,
    num_segments: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let r = (|| {
        let n = segment_counts(&data, &segment_ids, num_segments)?;
        let summed = ops::segment::unsorted_segment_sum(&data, &segment_ids, num_segments)?;
        ops::truediv(&summed, &ops::unary(crate::runtime::UnaryOp::Sqrt, &n)?)
    })();
    placed(vm, r)
}

/// The natives of the sorted segment reductions (one output row per id up
/// to the largest; an empty segment holds 0, a product's 1).
macro_rules! sorted_segment_natives {
    ($($doc:literal $name:ident: $sig:literal => $op:ident),* $(,)?) => {$(
        #[doc = $doc]
        #[native($sig)]
        fn $name(vm: &dyn Vm, data: Tensor, segment_ids: Tensor, _name: &Value) -> PyResult<Tensor> {
            placed(vm, segment_reduce::segment(SegmentReduce::$op, &data, &segment_ids))
        }
    )*};
}

sorted_segment_natives! {
    "The maximum of the rows of each (sorted) segment."
    segment_max: "segment_max(data, segment_ids, name=None)" => Max,
    "The minimum of the rows of each (sorted) segment."
    segment_min: "segment_min(data, segment_ids, name=None)" => Min,
    "The mean of the rows of each (sorted) segment."
    segment_mean: "segment_mean(data, segment_ids, name=None)" => Mean,
    "The product of the rows of each (sorted) segment."
    segment_prod: "segment_prod(data, segment_ids, name=None)" => Prod,
}

/// Adds the segment reductions to the `tf.math` namespace `n`.
pub fn register_math(n: &mut ModuleBuilder) {
    n.add(segment_max::DEF)
        .add(segment_min::DEF)
        .add(segment_mean::DEF)
        .add(segment_prod::DEF)
        .add(unsorted_segment_max::DEF)
        .add(unsorted_segment_min::DEF)
        .add(unsorted_segment_prod::DEF)
        .add(unsorted_segment_mean::DEF)
        .add(unsorted_segment_sqrt_n::DEF);
}

/// Adds these to the `tensorflow` module.
pub fn register(m: &mut ModuleBuilder) {
    m.add(pad::DEF)
        .add(gather_nd::DEF)
        .add(scatter_nd::DEF)
        .add(tensor_scatter_nd_update::DEF)
        .add(tensor_scatter_nd_add::DEF)
        .add(tensor_scatter_nd_sub::DEF)
        .add(tensor_scatter_nd_max::DEF)
        .add(tensor_scatter_nd_min::DEF)
        .add(boolean_mask::DEF)
        .add(sequence_mask::DEF);
}
