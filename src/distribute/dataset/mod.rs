//! `tf.data` and distributed datasets. PLACEHOLDER until they land: the
//! entry points the strategies call.

use crate::modules::ModuleBuilder;
use crate::runtime::Device;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Adds the `tf.data` namespace.
pub fn register_data(m: &mut ModuleBuilder) {
    let _ = m;
}

/// `strategy.experimental_distribute_dataset(dataset)`: splits each global
/// batch across the replicas on `devices`.
pub fn distribute_dataset(vm: &dyn Vm, dataset: &Value, devices: &[Device]) -> PyResult<Value> {
    let _ = (vm, dataset, devices);
    Err(PyErr::new(
        ExcType::NotImplementedError,
        "distributed datasets are not available yet",
    ))
}

/// `strategy.distribute_datasets_from_function(dataset_fn)`: one pipeline per
/// replica, each built by `dataset_fn(InputContext)`.
pub fn distribute_from_function(
    vm: &dyn Vm,
    dataset_fn: &Value,
    devices: &[Device],
) -> PyResult<Value> {
    let _ = (vm, dataset_fn, devices);
    Err(PyErr::new(
        ExcType::NotImplementedError,
        "distributed datasets are not available yet",
    ))
}
