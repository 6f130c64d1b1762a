//! Sparse gradients: TensorFlow's `IndexedSlices` as backprop carries them
//! ([`Grad::Slices`]), the gradient of an axis-0 gather that makes them
//! (`_GatherV2Grad`, `_GatherGrad`), the ops that pass them on (`Identity`,
//! `ReadVariableOp`, `Cast`), their densification (`_indexed_slices_to_tensor`:
//! one `UnsortedSegmentSum`) and their aggregation (`_aggregate_grads`,
//! `AggregateIndexedSlicesGradients`). The Python class `tf.IndexedSlices`
//! lives in the `tf` module; this file is the runtime's side of it.

use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::Semantics;
use crate::runtime::ops;
use crate::runtime::tensor::Tensor;

use super::grad::GradOp;

/// Slices of a dense tensor: row `indices[i]` of the dense tensor is
/// `values[i]` (rows named twice are summed).
#[derive(Clone)]
pub struct Slices {
    /// The slices, `[n, dense_shape[1:]...]`.
    pub values: Tensor,
    /// Their rows in the dense tensor, 1-D int32 or int64.
    pub indices: Tensor,
    /// The dense tensor's shape, 1-D int32 (None when unknown).
    pub dense_shape: Option<Tensor>,
}

/// A gradient as backprop carries it: dense, or TensorFlow's `IndexedSlices`.
#[derive(Clone)]
pub enum Grad {
    /// A dense tensor.
    Dense(Tensor),
    /// Slices of one (a gather's gradient).
    Slices(Slices),
}

impl Grad {
    /// The dense tensor (slices summed into their rows).
    pub fn into_dense(self) -> Result<Tensor> {
        match self {
            Grad::Dense(t) => Ok(t),
            Grad::Slices(s) => s.to_dense(),
        }
    }
}

/// The first element of a 1-D integer tensor (a dense shape's rows).
fn first_int(t: &Tensor) -> Result<i64> {
    let host = if t.device().is_host() {
        t.clone()
    } else {
        t.to_device(crate::runtime::device::Device::cpu(0))?
    };
    match host.get(0) {
        Some(Scalar::Int(n)) => Ok(n),
        _ => Err(Error::value_error(
            "IndexedSlices: dense_shape must be a non-empty integer tensor",
        )),
    }
}

impl Slices {
    /// The dense tensor (TensorFlow's `_indexed_slices_to_tensor`:
    /// `unsorted_segment_sum(values, indices, dense_shape[0])`).
    pub fn to_dense(&self) -> Result<Tensor> {
        let Some(shape) = &self.dense_shape else {
            return Err(Error::value_error(format!(
                "Tensor conversion requested for IndexedSlices for argument `value` without dense_shape: {}",
                self.str_form()
            )));
        };
        let rows = first_int(shape)?;
        ops::segment::unsorted_segment_sum(&self.values, &self.indices, rows)
    }

    /// `str(IndexedSlices)`, as TensorFlow writes it.
    pub fn str_form(&self) -> String {
        let fmt = crate::runtime::format::tf_str;
        match &self.dense_shape {
            Some(d) => format!(
                "IndexedSlices(indices={}, values={}, dense_shape={})",
                fmt(&self.indices),
                fmt(&self.values),
                fmt(d)
            ),
            None => format!(
                "IndexedSlices(indices={}, values={})",
                fmt(&self.indices),
                fmt(&self.values)
            ),
        }
    }
}

/// The gradient of an axis-0 `GatherV2` of `params` by `indices` (or of a
/// variable's `ResourceGather`), as TensorFlow's `_GatherV2Grad` builds it:
/// `values` the upstream gradient reshaped to `[size(indices)] +
/// params.shape[1:]`, `indices` flattened, `dense_shape` `shape(params)` as
/// int32.
pub(crate) fn gather_grad(params: &Tensor, indices: &Tensor, g: &Tensor) -> Result<Slices> {
    let n = indices.numel();
    let mut vdims = vec![n as i64];
    vdims.extend(params.dims()[1..].iter().map(|&d| d as i64));
    let values = ops::reshape(g, &vdims, Semantics::Tf)?;
    let flat = ops::reshape(indices, &[n as i64], Semantics::Tf)?;
    let shape: Vec<i32> = params.dims().iter().map(|&d| d as i32).collect();
    let dense_shape = Tensor::from_vec(shape, &[params.rank()])?;
    Ok(Slices {
        values,
        indices: flat,
        dense_shape: Some(dense_shape),
    })
}

/// The input gradients of ops that take an `IndexedSlices` as it is (None:
/// the op densifies its output gradient first). `Identity` and
/// `ReadVariableOp` pass it on, `Cast` casts its values, and an axis-0
/// gather turns its (dense) gradient into slices.
pub(crate) fn sparse_gradient(
    op: &GradOp,
    inputs: &[Tensor],
    outputs: &[Tensor],
    skip: &[bool],
    grads: &[Grad],
) -> Result<Option<Vec<Option<Grad>>>> {
    Ok(match (op, grads) {
        (GradOp::ReadVariable | GradOp::Identity, [g @ Grad::Slices(_)]) => {
            Some(vec![Some(g.clone())])
        }
        (GradOp::Cast, [Grad::Slices(s)]) => {
            let (from, to) = (inputs[0].dtype(), outputs[0].dtype());
            if !(from.is_floating() && to.is_floating()) {
                Some(vec![None])
            } else {
                Some(vec![Some(Grad::Slices(Slices {
                    values: ops::cast(&s.values, from)?,
                    ..s.clone()
                }))])
            }
        }
        (GradOp::Gather(0, _), [g]) if !skip.first().copied().unwrap_or(false) => {
            // `_IndexedSlicesToTensorNoWarning(grad)`
            let g = g.clone().into_dense()?;
            let s = gather_grad(&inputs[0], &inputs[1], &g)?;
            Some(vec![Some(Grad::Slices(s)), None])
        }
        _ => None,
    })
}

/// TensorFlow's `_aggregate_grads`: one gradient as it is; dense ones added
/// with one `AddN`; with any slices, `AggregateIndexedSlicesGradients`: a
/// dense one among them densifies all (`math_ops.add_n`), else the slices'
/// values and indices are concatenated (indices as int64 when their dtypes
/// differ) under the first one's dense shape.
pub fn aggregate(mut gs: Vec<Grad>) -> Result<Grad> {
    if gs.len() == 1 {
        return Ok(gs.remove(0));
    }
    if gs.iter().any(|g| matches!(g, Grad::Dense(_))) {
        let dense = gs
            .into_iter()
            .map(Grad::into_dense)
            .collect::<Result<Vec<_>>>()?;
        return Ok(Grad::Dense(ops::add_n(&dense)?));
    }
    let slices: Vec<Slices> = gs
        .into_iter()
        .filter_map(|g| match g {
            Grad::Slices(s) => Some(s),
            Grad::Dense(_) => None,
        })
        .collect();
    let int32 = slices
        .iter()
        .filter(|s| s.indices.dtype() == DType::Int32)
        .count();
    let mixed = int32 != 0 && int32 != slices.len();
    let mut values = Vec::with_capacity(slices.len());
    let mut indices = Vec::with_capacity(slices.len());
    for s in &slices {
        values.push(s.values.clone());
        indices.push(if mixed && s.indices.dtype() == DType::Int32 {
            ops::cast(&s.indices, DType::Int64)?
        } else {
            s.indices.clone()
        });
    }
    Ok(Grad::Slices(Slices {
        values: ops::concat(&values, 0)?,
        indices: ops::concat(&indices, 0)?,
        dense_shape: slices[0].dense_shape.clone(),
    }))
}
