//! Cross-replica reductions of `tf.IndexedSlices` (an embedding's gradient
//! in every replica): TensorFlow's cross-device ops gather them, the
//! replicas' values and indices concatenated in replica order
//! (`cross_device_utils.aggregate_indexed_slices`), the values divided by
//! the number of replicas for MEAN; a dense value among them densifies all
//! (`AddN`).

use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::tensor::indexed_slices::{as_slices, is_indexed_slices, slices_value};
use crate::runtime::autodiff::{Grad, Slices};
use crate::runtime::{ops, Device, Scalar, Tensor};
use crate::value::{PyResult, Value, Vm};

use super::reduce::Op;

/// The slices moved to `dest`.
pub fn slices_on(s: &Slices, dest: Device) -> crate::runtime::Result<Slices> {
    Ok(Slices {
        values: s.values.to_device(dest)?,
        indices: s.indices.to_device(dest)?,
        dense_shape: s.dense_shape.clone(),
    })
}

/// The replicas' `parts` reduced on `dest` when one of them is a
/// `tf.IndexedSlices` (an IndexedSlices, or a tensor when a dense part
/// densified them); None when none is.
pub fn reduce_sparse(
    vm: &dyn Vm,
    op: Op,
    parts: &[Value],
    dest: Device,
) -> PyResult<Option<Value>> {
    if !parts.iter().any(is_indexed_slices) {
        return Ok(None);
    }
    let mut grads = Vec::with_capacity(parts.len());
    for p in parts {
        grads.push(match as_slices(vm, p)? {
            Some(s) => Grad::Slices(slices_on(&s, dest).map_err(runtime_err)?),
            None => Grad::Dense(
                to_tensor(vm, p, None)?
                    .to_device(dest)
                    .map_err(runtime_err)?,
            ),
        });
    }
    let n = parts.len() as i64;
    let divide = |t: &Tensor| -> crate::runtime::Result<Tensor> {
        let d = Tensor::fill(&[], &Scalar::Int(n), t.dtype(), dest)?;
        ops::truediv(t, &d)
    };
    let r = (|| {
        Ok(match crate::runtime::autodiff::slices::aggregate(grads)? {
            Grad::Slices(s) => {
                let values = match op {
                    Op::Sum => s.values,
                    Op::Mean => divide(&s.values)?,
                };
                slices_value(Slices { values, ..s })
            }
            Grad::Dense(t) => Value::Tensor(match op {
                Op::Sum => t,
                Op::Mean => divide(&t)?,
            }),
        })
    })();
    r.map(Some).map_err(runtime_err)
}

/// A reduced value (a tensor or an IndexedSlices) copied to `dest`.
pub fn value_on(vm: &dyn Vm, v: &Value, dest: Device) -> PyResult<Value> {
    match as_slices(vm, v)? {
        Some(s) => Ok(slices_value(slices_on(&s, dest).map_err(runtime_err)?)),
        None => Ok(Value::Tensor(
            to_tensor(vm, v, None)?.copy_to(dest).map_err(runtime_err)?,
        )),
    }
}
