//! `Variable.scatter_add`, `scatter_sub` and `scatter_update`: a
//! `tf.IndexedSlices` applied to the variable's rows, one row after another
//! in the order of its indices (TensorFlow's `ResourceScatterAdd`/`Sub`/
//! `Update`), as Keras's TensorFlow optimizers apply sparse gradients; and
//! `sparse_read`, the gather whose gradient is one.

use std::rc::Rc;

use super::update::store;
use super::{assert_own_strategy, plain, Agg, DistVar, PlainVar, VarCell};
use crate::object::native;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::tensor::indexed_slices::{as_slices, not_slices};
use crate::runtime::ops;
use crate::runtime::ops::scatter::{tensor_scatter, ScatterMode};
use crate::runtime::Tensor;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The new value of `cell` with the slices `delta` applied by `mode`.
fn scatter(vm: &dyn Vm, cell: &Rc<VarCell>, delta: &Value, mode: ScatterMode) -> PyResult<Tensor> {
    let Some(s) = as_slices(vm, delta)? else {
        return Err(not_slices(vm, delta)?);
    };
    let old = super::traced_value(cell);
    let values = to_tensor(vm, &Value::Tensor(s.values), Some(old.dtype()))?
        .to_device(cell.device)
        .map_err(runtime_err)?;
    let n = s.indices.numel() as i64;
    let rows = ops::reshape(&s.indices, &[n, 1], crate::runtime::op::Semantics::Tf)
        .and_then(|r| r.to_device(cell.device))
        .map_err(runtime_err)?;
    let new = tensor_scatter(&old, &rows, &values, mode).map_err(runtime_err)?;
    Ok(store(cell, new))
}

/// Applies the slices to `this`: a plain variable, the running replica's
/// copy of a distributed one whose copies may differ, or every copy in
/// cross-replica context.
fn scatter_var(vm: &dyn Vm, this: &Value, delta: &Value, mode: ScatterMode) -> PyResult<Value> {
    if let Some(p) = this.downcast::<PlainVar>() {
        scatter(vm, &p.cell, delta, mode)?;
        return Ok(plain(&p.cell, p.agg, p.sync, true));
    }
    let Some(d) = this.downcast::<DistVar>() else {
        return Err(PyErr::new(ExcType::TypeError, "expected a tf.Variable"));
    };
    assert_own_strategy(vm, d)?;
    if let Some(i) = vm.current_replica() {
        let cell = d.comps[i.min(d.comps.len() - 1)].clone();
        if d.on_read || d.agg == Agg::None {
            scatter(vm, &cell, delta, mode)?;
            return Ok(plain(&cell, d.agg, d.sync, true));
        }
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "a scatter update of a MirroredVariable in a replica context (TensorFlow aggregates the IndexedSlices across replicas first) is not implemented in dist; update it in the cross-replica context or through an optimizer",
        ));
    }
    if d.on_read && d.agg == Agg::Sum && !matches!(mode, ScatterMode::Update) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "a scatter add or sub of a SUM SyncOnReadVariable in cross-replica context is not implemented in dist",
        ));
    }
    for c in &d.comps {
        scatter(vm, c, delta, mode)?;
    }
    Ok(Value::Tensor(d.read(vm)?))
}

/// Adds `tf.IndexedSlices` to this variable.
#[native("ResourceVariable.scatter_add(self, sparse_delta, use_locking=False, name=None)")]
pub(super) fn scatter_add(
    vm: &dyn Vm,
    this: &Value,
    sparse_delta: &Value,
    _use_locking: &Value,
    _name: &Value,
) -> PyResult<Value> {
    scatter_var(vm, this, sparse_delta, ScatterMode::Add)
}

/// Subtracts `tf.IndexedSlices` from this variable.
#[native("ResourceVariable.scatter_sub(self, sparse_delta, use_locking=False, name=None)")]
pub(super) fn scatter_sub(
    vm: &dyn Vm,
    this: &Value,
    sparse_delta: &Value,
    _use_locking: &Value,
    _name: &Value,
) -> PyResult<Value> {
    scatter_var(vm, this, sparse_delta, ScatterMode::Sub)
}

/// Assigns `tf.IndexedSlices` to this variable.
#[native("ResourceVariable.scatter_update(self, sparse_delta, use_locking=False, name=None)")]
pub(super) fn scatter_update(
    vm: &dyn Vm,
    this: &Value,
    sparse_delta: &Value,
    _use_locking: &Value,
    _name: &Value,
) -> PyResult<Value> {
    scatter_var(vm, this, sparse_delta, ScatterMode::Update)
}

/// The rows of this variable named by `indices` (TensorFlow's
/// `ResourceGather`; its gradient is a `tf.IndexedSlices`).
#[native("ResourceVariable.sparse_read(self, indices, name=None)")]
pub(super) fn sparse_read(
    vm: &dyn Vm,
    this: &Value,
    indices: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let value = super::read_any(vm, this)?;
    let indices = to_tensor(vm, indices, None)?;
    crate::object::tensor::convert::placed(vm, ops::gather(&value, &indices, 0))
}
