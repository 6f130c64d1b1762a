//! The TensorFlow 1 strategy classes TensorFlow 2.21 keeps under
//! `tf.compat.v1.distribute`: `MirroredStrategyV1` and `OneDeviceStrategyV1`
//! replicate as the TF2 classes do (same kind, `Flavor::V1`) but are other
//! classes: `StrategyV1` has no `gather` or
//! `experimental_distribute_values_from_function`, its `reduce` takes
//! `axis=None`, and it has `experimental_make_numpy_dataset`. Neither is a
//! `tf.distribute.Strategy` (TensorFlow's MRO: `StrategyV1`, `StrategyBase`).

use super::{
    cross_replica, distribute_dataset, distribute_from_function, extended_object, local_results,
    make_strategy_as, mirrored_devices, num_replicas_in_sync, run, scope, Flavor, Kind,
};
use crate::distribute::classes::DISTRIBUTE_LIB;
use crate::distribute::devices::device_arg_named;
use crate::distribute::nest::map_nest;
use crate::distribute::renamed;
use crate::object::{native, ClassSpec, Member};
use crate::value::{PyResult, Value, Vm};

/// `tf.compat.v1.distribute.Strategy`.
pub static STRATEGY_V1: ClassSpec = ClassSpec {
    name: "StrategyV1",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: &[
        Member::Method(scope::DEF),
        Member::Method(run::DEF),
        Member::Method(
            cross_replica::reduce::DEF
                .renamed("StrategyV1.reduce(self, reduce_op, value, axis=None)"),
        ),
        Member::Method(local_results::DEF),
        Member::Method(distribute_dataset::DEF),
        Member::Method(distribute_from_function::DEF),
        Member::Method(renamed::experimental_run::DEF),
        Member::Method(renamed::UNWRAP),
        Member::Method(renamed::DISTRIBUTE_DATASETS_FROM_FUNCTION),
        Member::Method(make_numpy_dataset::DEF),
        Member::Method(make_dataset_iterator::DEF),
        Member::Getter(num_replicas_in_sync::DEF),
        Member::Getter(extended_object::DEF),
        Member::Getter(super::cluster_resolver::DEF),
    ],
};

/// `tf.compat.v1.distribute.MirroredStrategy`.
pub static MIRRORED_STRATEGY_V1: ClassSpec = ClassSpec {
    name: "MirroredStrategyV1",
    module: "tensorflow.python.distribute.mirrored_strategy",
    bases: &[&STRATEGY_V1],
    members: &[Member::New(mirrored_v1_new::DEF)],
};

/// `tf.compat.v1.distribute.OneDeviceStrategy`.
pub static ONE_DEVICE_STRATEGY_V1: ClassSpec = ClassSpec {
    name: "OneDeviceStrategyV1",
    module: "tensorflow.python.distribute.one_device_strategy",
    bases: &[&STRATEGY_V1],
    members: &[Member::New(one_device_v1_new::DEF)],
};

/// The TensorFlow 1 class of a strategy of `kind`.
pub fn strategy_spec(kind: Kind) -> &'static ClassSpec {
    match kind {
        Kind::Mirrored => &MIRRORED_STRATEGY_V1,
        Kind::OneDevice => &ONE_DEVICE_STRATEGY_V1,
        Kind::Default => kind.spec(),
    }
}

/// Synchronous training on several devices of one machine (TensorFlow 1 class).
#[native("MirroredStrategyV1.__init__(devices=None, cross_device_ops=None)")]
fn mirrored_v1_new(
    vm: &dyn Vm,
    devices: Option<&Value>,
    cross_device_ops: Option<&Value>,
) -> PyResult<Value> {
    let devices = mirrored_devices(vm, devices, cross_device_ops)?;
    make_strategy_as(vm, Kind::Mirrored, devices, Flavor::V1, Value::None)
}

/// Runs everything on one device (TensorFlow 1 class).
#[native("OneDeviceStrategyV1.__init__(device)")]
fn one_device_v1_new(vm: &dyn Vm, device: &Value) -> PyResult<Value> {
    let d = device_arg_named(vm, device)?;
    make_strategy_as(vm, Kind::OneDevice, vec![d], Flavor::V1, Value::None)
}

/// A dataset of the rows of `numpy_input` (numpy arrays, or a nest of them).
///
/// In eager mode TensorFlow copies each array into a variable on the input
/// host and slices the variables, which yields the arrays' rows.
#[native("StrategyV1.experimental_make_numpy_dataset(self, numpy_input)")]
fn make_numpy_dataset(vm: &dyn Vm, _this: &Value, numpy_input: &Value) -> PyResult<Value> {
    // each leaf's `.shape` is read first, as `one_host_numpy_dataset` does
    // (a Python list fails there with the AttributeError TensorFlow gives)
    map_nest(numpy_input, &mut |leaf| {
        vm.getattr(leaf, "shape")?;
        Ok(leaf.clone())
    })?;
    crate::distribute::dataset::sources::from_tensor_slices(vm, numpy_input, &Value::None)
}

/// An iterator over `dataset` distributed to the replicas (TensorFlow 1's
/// way to feed `experimental_run`): `get_next()` gives each step's
/// per-replica batch.
#[native("StrategyV1.make_dataset_iterator(self, dataset)")]
fn make_dataset_iterator(vm: &dyn Vm, this: &Value, dataset: &Value) -> PyResult<Value> {
    // TensorFlow's is an `input_lib_v1.DatasetIterator` over the same
    // distribution as `experimental_distribute_dataset`
    let distribute = vm.getattr(this, "experimental_distribute_dataset")?;
    let distributed = vm.call(&distribute, vec![dataset.clone()], Vec::new())?;
    vm.iter(&distributed)
}
