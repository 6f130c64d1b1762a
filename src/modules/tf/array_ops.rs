//! Shape and layout ops: `reshape`, `concat`, `stack`, `unstack`, `split`,
//! `expand_dims`, `squeeze`, `transpose`, `tile`, `gather`, `where`,
//! `shape`, `size`, `rank`.

use super::convert::{
    axes_arg, axis_arg, int_list, int_scalar, opt_dtype, runtime_err, tensor_list, to_tensor, tv,
};
use crate::modules::ModuleBuilder;
use crate::runtime::ops::{self, SplitSpec};
use crate::runtime::{DType, Semantics, Tensor};
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

fn reshape(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let dims = int_list(vm, a.get(1))?;
    tv(vm, ops::reshape(&t, &dims, Semantics::Tf))
}

fn concat(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let ts = tensor_list(vm, a.get(0))?;
    tv(vm, ops::concat(&ts, axis_arg(vm, a.get(1))?))
}

fn stack(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let ts = tensor_list(vm, a.get(0))?;
    tv(vm, ops::stack(&ts, axis_arg(vm, a.get(1))?))
}

fn tensors_value(r: crate::runtime::Result<Vec<Tensor>>) -> PyResult<Value> {
    Ok(Value::list(
        r.map_err(runtime_err)?
            .into_iter()
            .map(Value::Tensor)
            .collect(),
    ))
}

fn unstack(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tensors_value(ops::unstack(&t, axis_arg(vm, a.get(2))?))
}

fn split(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let spec = match int_scalar(vm, a.get(1))? {
        Some(k) if k >= 0 => SplitSpec::Count(k as usize),
        Some(k) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("num_or_size_splits must be positive, got {k}"),
            ))
        }
        None => SplitSpec::Sizes(int_list(vm, a.get(1))?),
    };
    tensors_value(ops::split(&t, &spec, axis_arg(vm, a.get(2))?))
}

fn expand_dims(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::expand_dims(&t, axis_arg(vm, a.get(1))?))
}

fn squeeze(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let axes = axes_arg(vm, a.get(1))?;
    tv(vm, ops::squeeze(&t, axes.as_deref()))
}

fn transpose(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let perm = axes_arg(vm, a.get(1))?;
    tv(vm, ops::transpose(&t, perm.as_deref()))
}

fn tile(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let m: Vec<usize> = int_list(vm, a.get(1))?
        .iter()
        .map(|&x| x.max(0) as usize)
        .collect();
    tv(vm, ops::tile(&t, &m))
}

fn gather(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let idx = to_tensor(vm, a.get(1), None)?;
    let axis = match a.opt(3) {
        Some(v) => axis_arg(vm, v)?,
        None => 0,
    };
    tv(vm, ops::gather(&t, &idx, axis))
}

fn where_(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let cond = to_tensor(vm, a.get(0), None)?;
    match (a.opt(1), a.opt(2)) {
        (None, None) => tv(vm, ops::where_true(&cond)),
        (Some(x), Some(y)) => {
            let (x, y) = super::math_ops::matching(vm, x, y)?;
            tv(vm, ops::where_select(&cond, &x, &y))
        }
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "x and y must both be non-None or both be None.",
        )),
    }
}

fn out_type(vm: &dyn Vm, v: &Value) -> PyResult<DType> {
    Ok(opt_dtype(vm, v)?.unwrap_or(DType::Int32))
}

fn ints_tensor(vals: Vec<i64>, dims: &[usize], dtype: DType, vm: &dyn Vm) -> PyResult<Value> {
    let t = Tensor::from_vec(vals, dims).map_err(runtime_err)?;
    let t = ops::cast(&t, dtype).map_err(runtime_err)?;
    tv(vm, t.to_device(crate::distribute::current_device(vm)))
}

fn shape(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let dims: Vec<i64> = t.dims().iter().map(|&d| d as i64).collect();
    let n = dims.len();
    ints_tensor(dims, &[n], out_type(vm, a.get(1))?, vm)
}

fn size(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    ints_tensor(vec![t.numel() as i64], &[], out_type(vm, a.get(1))?, vm)
}

fn rank(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    ints_tensor(vec![t.rank() as i64], &[], DType::Int32, vm)
}

/// Registers the array ops.
pub fn register(m: &mut ModuleBuilder) {
    m.function(
        "reshape(tensor, shape, name=None)",
        reshape,
        "The same elements in a new shape; one dim may be -1.",
    );
    m.function(
        "concat(values, axis, name='concat')",
        concat,
        "Joins tensors along an existing axis.",
    );
    m.function(
        "stack(values, axis=0, name='stack')",
        stack,
        "Joins tensors along a new axis.",
    );
    m.function(
        "unstack(value, num=None, axis=0, name='unstack')",
        unstack,
        "The slices of a tensor along an axis, as a list.",
    );
    m.function(
        "split(value, num_or_size_splits, axis=0, num=None, name='split')",
        split,
        "Splits a tensor into parts along an axis.",
    );
    m.function(
        "expand_dims(input, axis, name=None)",
        expand_dims,
        "Inserts a dimension of size 1.",
    );
    m.function(
        "squeeze(input, axis=None, name=None)",
        squeeze,
        "Removes dimensions of size 1.",
    );
    m.function(
        "transpose(a, perm=None, conjugate=False, name='transpose')",
        transpose,
        "Permutes the dimensions (reverses them by default).",
    );
    m.function(
        "tile(input, multiples, name=None)",
        tile,
        "Repeats a tensor along each axis.",
    );
    m.function(
        "gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None)",
        gather,
        "Slices picked by index along an axis.",
    );
    m.function(
        "where(condition, x=None, y=None, name=None)",
        where_,
        "Elements of `x` where `condition`, else of `y`; or the true coordinates.",
    );
    m.function(
        "shape(input, out_type=None, name=None)",
        shape,
        "The shape of a tensor, as an int32 tensor.",
    );
    m.function(
        "size(input, out_type=None, name=None)",
        size,
        "The number of elements, as an int32 tensor.",
    );
    m.function(
        "rank(input, name=None)",
        rank,
        "The number of dimensions, as an int32 tensor.",
    );
}
