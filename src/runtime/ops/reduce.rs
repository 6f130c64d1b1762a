//! Reductions (`reduce_sum` … `reduce_all`, numpy's `sum` … `all`) and
//! `argmax`/`argmin`, with axis normalisation, `keepdims`, and the exact
//! TensorFlow/numpy errors for bad axes.

use super::elementwise::cast;
use super::{attr_error, dtype_mismatch, kernel_error, wrap};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::op::{ArgOp, ReduceOp, Semantics};
use crate::runtime::shape::Shape;
use crate::runtime::tensor::Tensor;

/// Normalises `axes` into a mask over `rank` dims (None = all).
fn axis_mask(
    axes: Option<&[i64]>,
    rank: usize,
    sem: Semantics,
    x: &Tensor,
    op: &str,
) -> Result<Vec<bool>> {
    let mut mask = vec![axes.is_none(); rank];
    for &a in axes.unwrap_or(&[]) {
        let r = rank as i64;
        if a < -r || a >= r {
            return Err(match sem {
                Semantics::Tf => kernel_error(
                    op,
                    &x.device(),
                    &format!("Invalid reduction dimension ({a} for input with {rank} dimension(s)"),
                    " name: ",
                ),
                Semantics::Numpy => Error::new(
                    ErrorKind::Axis,
                    format!("axis {a} is out of bounds for array of dimension {rank}"),
                ),
            });
        }
        let i = if a < 0 { a + r } else { a } as usize;
        if mask[i] {
            return Err(match sem {
                Semantics::Tf => Error::kernel(
                    ErrorKind::InvalidArgument,
                    op,
                    &x.device(),
                    &format!("Invalid reduction arguments: Axes contains duplicate dimension: {i}"),
                    op,
                    "",
                ),
                Semantics::Numpy => Error::value_error("duplicate value in 'axis'"),
            });
        }
        mask[i] = true;
    }
    Ok(mask)
}

fn run(op: ReduceOp, sem: Semantics, x: &Tensor, mask: &[bool], keepdims: bool) -> Result<Tensor> {
    let storage = x
        .storage()
        .backend()
        .reduce(op, sem, x.storage(), x.shape(), mask)
        .map_err(|e| wrap(e, op.name(), &x.device(), op.name(), " name: "))?;
    let dims: Vec<usize> = x
        .dims()
        .iter()
        .zip(mask)
        .filter_map(|(&d, &m)| {
            if !m {
                Some(d)
            } else if keepdims {
                Some(1)
            } else {
                None
            }
        })
        .collect();
    Ok(Tensor::from_parts(
        storage.dtype(),
        Shape(dims),
        storage,
        x.device(),
    ))
}

/// `tf.reduce_*(x, axis, keepdims)`; `axes` None reduces every axis.
fn reduce_impl(op: ReduceOp, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(op.name(), x.device());
    let d = x.dtype();
    match op {
        ReduceOp::Any | ReduceOp::All if d != DType::Bool => {
            return Err(dtype_mismatch(op.name(), 0, DType::Bool, d, " name: "))
        }
        ReduceOp::Any | ReduceOp::All => {}
        _ if d == DType::Bool || d == DType::String => return Err(attr_error(op.name(), d)),
        ReduceOp::Max | ReduceOp::Min if d.is_complex() => return Err(attr_error(op.name(), d)),
        _ => {}
    }
    let mask = axis_mask(axes, x.rank(), Semantics::Tf, x, op.name())?;
    run(op, Semantics::Tf, x, &mask, keepdims)
}

/// numpy's `sum`/`prod`/`mean`/`max`/`min`/`any`/`all`: small ints and
/// bools sum in int64, means of ints are float64, and max/min of an empty
/// selection is an error.
pub fn np_reduce(op: ReduceOp, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(op.name(), x.device());
    let d = x.dtype();
    if d == DType::String {
        return Err(Error::type_error(format!(
            "cannot perform reduce with flexible type ({})",
            op.name()
        )));
    }
    let mask = axis_mask(axes, x.rank(), Semantics::Numpy, x, op.name())?;
    let input = match op {
        ReduceOp::Sum | ReduceOp::Prod
            if d == DType::Bool || (d.is_integer() && d != DType::Int64) =>
        {
            cast(x, DType::Int64)?
        }
        ReduceOp::Mean if !d.is_floating() => cast(x, DType::Float64)?,
        ReduceOp::Any | ReduceOp::All => cast(x, DType::Bool)?,
        _ => x.clone(),
    };
    if matches!(op, ReduceOp::Max | ReduceOp::Min) {
        let empty = x.dims().iter().zip(&mask).any(|(&n, &m)| m && n == 0);
        if empty {
            let name = if op == ReduceOp::Max {
                "maximum"
            } else {
                "minimum"
            };
            return Err(Error::value_error(format!(
                "zero-size array to reduction operation {name} which has no identity"
            )));
        }
    }
    run(op, Semantics::Numpy, &input, &mask, keepdims)
}

/// `tf.argmax`/`tf.argmin` along `axis` (int64 result); numpy callers
/// flatten first for `axis=None`.
pub fn arg_reduce(op: ArgOp, x: &Tensor, axis: i64, sem: Semantics) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(op.name(), x.device());
    let r = x.rank() as i64;
    if axis < -r || axis >= r {
        return Err(match sem {
            Semantics::Tf => kernel_error(
                op.name(),
                &x.device(),
                &format!(
                    "Expected dimension in the range [{}, {r}), but got {axis}",
                    -r
                ),
                " name: ",
            ),
            Semantics::Numpy => Error::new(
                ErrorKind::Axis,
                format!("axis {axis} is out of bounds for array of dimension {r}"),
            ),
        });
    }
    let a = if axis < 0 { axis + r } else { axis } as usize;
    if x.dims()[a] == 0 {
        return Err(match sem {
            Semantics::Tf => {
                kernel_error(op.name(), &x.device(), "Reduction axis is empty", " name: ")
            }
            Semantics::Numpy => Error::value_error(format!(
                "attempt to get {} of an empty sequence",
                if op == ArgOp::ArgMax {
                    "argmax"
                } else {
                    "argmin"
                }
            )),
        });
    }
    if x.dtype() == DType::String || x.dtype().is_complex() {
        return Err(attr_error(op.name(), x.dtype()));
    }
    let storage = x
        .storage()
        .backend()
        .arg_reduce(op, x.storage(), x.shape(), a)?;
    let dims: Vec<usize> = x
        .dims()
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != a)
        .map(|(_, &d)| d)
        .collect();
    let out = Tensor::from_parts(DType::Int64, Shape(dims), storage, x.device());
    if sem == Semantics::Tf {
        crate::runtime::autodiff::tape::record(
            || crate::runtime::autodiff::GradOp::ArgReduce { op, axis: a },
            &[x],
            &[&out],
        );
    }
    Ok(out)
}

/// `tf.reduce_*(x, axis, keepdims)`; `axes` None reduces every axis.
pub fn reduce(op: ReduceOp, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    let out = reduce_impl(op, x, axes, keepdims)?;
    let gop = || {
        let r = x.rank() as i64;
        let mut a: Vec<usize> = match axes {
            None => (0..x.rank()).collect(),
            Some(list) => list
                .iter()
                .map(|&i| (if i < 0 { i + r } else { i }) as usize)
                .collect(),
        };
        a.sort_unstable();
        a.dedup();
        GradOp::Reduce {
            op,
            axes: a,
            keepdims,
        }
    };
    tape::record(gop, &[x], &[&out]);
    Ok(out)
}

/// `tf.nn.l2_loss(x)`: `sum(x ** 2) / 2` as TensorFlow's `L2Loss` kernel
/// computes it (each square halved, then summed in its order). Computed in
/// host memory; the result goes back to `x`'s device.
pub fn l2_loss(x: &Tensor) -> Result<Tensor> {
    let op = "L2Loss";
    let _trace = crate::runtime::trace::op(op, x.device());
    if !x.dtype().is_floating() {
        return Err(attr_error(op, x.dtype()));
    }
    let host = x.to_device(crate::runtime::device::Device::CPU0)?;
    let Some(data) = crate::runtime::backend::cpu::eigen_reduce::l2_loss(host.host()?)? else {
        return Err(attr_error(op, x.dtype()));
    };
    let out = Tensor::from_host(data, Shape(Vec::new()), host.device())?.to_device(x.device())?;
    tape::record(|| GradOp::L2Loss, &[x], &[&out]);
    Ok(out)
}
