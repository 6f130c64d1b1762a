//! `tf.data` and distributed datasets: lazy dataset pipelines
//! (`Dataset.range(10).map(f).batch(4)`), their iterators and element specs,
//! and the distributed datasets strategies build from them. Strategies call
//! [`distribute_dataset`] and [`distribute_from_function`]; `modules::tf_data`
//! names `tf.data`.
//!
//! Known differences from TensorFlow: `map`/`filter` functions run eagerly per
//! element (after one probe call when the pipeline is built) rather than
//! being traced once into a graph.

pub mod bucket;
pub mod compose;
pub mod compose_stream;
pub mod data_options;
pub mod distributed;
pub mod files;
pub mod iterator;
pub mod methods;
pub mod node;
pub mod options;
pub mod padding;
pub mod sources;
pub mod stream;
pub mod structure;

use std::cell::RefCell;

use crate::runtime::Device;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

use distributed::Mode;

pub(crate) fn dtype_of(vm: &dyn Vm, v: &Value) -> PyResult<crate::runtime::DType> {
    use crate::runtime::DType;
    let name = match v {
        Value::None => return Ok(DType::Float32),
        Value::Str(s) => s.to_string(),
        other => vm.str(&vm.getattr(other, "name")?)?,
    };
    DType::from_name(&name).map_err(crate::object::tensor::convert::runtime_err)
}

/// A spec's shape argument: `None` or `TensorShape(None)` an unknown rank,
/// otherwise its dims (`None` entries unknown).
pub(crate) fn spec_dims(vm: &dyn Vm, shape: &Value) -> PyResult<structure::SpecDims> {
    crate::object::tensor::shape::shape_arg(vm, shape)
}

/// `strategy.experimental_distribute_dataset(dataset)`: splits each global
/// batch across the replicas on `devices`.
pub fn distribute_dataset(
    vm: &dyn Vm,
    dataset: &Value,
    devices: &[Device],
    options: &Value,
    hosts: &RefCell<Option<Vec<Device>>>,
) -> PyResult<Value> {
    if options::per_replica_mode(vm, options)? {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "InputReplicationMode.PER_REPLICA is only supported in `distribute_datasets_from_function`.",
        ));
    }
    let devices = element_devices(vm, options, devices, hosts)?;
    distributed::new(std::slice::from_ref(dataset), &devices, Mode::Split)
}

/// Where each replica's elements are put, as TensorFlow's input workers
/// put them: on its device, unless the `InputOptions` say
/// `experimental_fetch_to_device=False` (and do not place the dataset on
/// the device), then on its input worker's host: the CPU, or what an
/// earlier `PER_REPLICA` distribution made it (`hosts`).
fn element_devices(
    vm: &dyn Vm,
    options: &Value,
    devices: &[Device],
    hosts: &RefCell<Option<Vec<Device>>>,
) -> PyResult<Vec<Device>> {
    if options.is_none() {
        return Ok(devices.to_vec());
    }
    let fetch = vm.getattr(options, "experimental_fetch_to_device")?;
    let place = vm.getattr(options, "experimental_place_dataset_on_device")?;
    let place = vm.truthy(&place)?;
    if options::per_replica_mode(vm, options)? {
        // one input worker per replica, hosted on its device or on the CPU
        let new_hosts = match place {
            true => devices.to_vec(),
            false => vec![Device::cpu(0); devices.len()],
        };
        *hosts.borrow_mut() = Some(new_hosts);
    }
    if vm.truthy(&fetch)? || place {
        return Ok(devices.to_vec());
    }
    Ok(match &*hosts.borrow() {
        Some(h) if h.len() == devices.len() => h.clone(),
        _ => vec![Device::cpu(0); devices.len()],
    })
}

/// TensorFlow's checks of the `InputOptions` given to
/// `distribute_datasets_from_function`.
fn check_function_options(vm: &dyn Vm, options: &Value, per_replica: bool) -> PyResult<()> {
    if options.is_none() {
        return Ok(());
    }
    let place = vm.getattr(options, "experimental_place_dataset_on_device")?;
    let place = vm.truthy(&place)?;
    if !per_replica && place {
        return Err(PyErr::new(
            ExcType::ValueError,
            "When `experimental_place_dataset_on_device` is set for dataset placement, you must \
             also specify `PER_REPLICA` for the replication mode",
        ));
    }
    let fetch = vm.getattr(options, "experimental_fetch_to_device")?;
    if per_replica && place && vm.truthy(&fetch)? {
        return Err(PyErr::new(
            ExcType::ValueError,
            "`experimental_place_dataset_on_device` can not be set to True when \
             experimental_fetch_to_device is True and replication mode is set to `PER_REPLICA`",
        ));
    }
    Ok(())
}

/// `strategy.distribute_datasets_from_function(dataset_fn, options)`: one
/// pipeline (one worker), built by `dataset_fn(InputContext)`, dealt to the
/// replicas in turn; with `InputReplicationMode.PER_REPLICA` (MirroredStrategy
/// only), one pipeline per replica, each from its own `InputContext`.
pub fn distribute_from_function(
    vm: &dyn Vm,
    dataset_fn: &Value,
    devices: &[Device],
    options: &Value,
    mirrored: bool,
    hosts: &RefCell<Option<Vec<Device>>>,
) -> PyResult<Value> {
    let n = devices.len() as i64;
    let per_replica = options::per_replica_mode(vm, options)?;
    if per_replica && !mirrored {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "InputReplicationMode.PER_REPLICA is only supported in \
             `experimental_distribute_datasets_from_function` of tf.distribute.MirroredStrategy",
        ));
    }
    check_function_options(vm, options, per_replica)?;
    let devices = &element_devices(vm, options, devices, hosts)?;
    if per_replica {
        let mut datasets = Vec::with_capacity(devices.len());
        for id in 0..n {
            let ctx = Value::native(options::InputContextObj {
                num_input_pipelines: n,
                input_pipeline_id: id,
                num_replicas_in_sync: n,
            });
            datasets.push(vm.call(dataset_fn, vec![ctx], Vec::new())?);
        }
        return distributed::new(&datasets, devices, Mode::PerReplica);
    }
    let ctx = Value::native(options::InputContextObj {
        num_input_pipelines: 1,
        input_pipeline_id: 0,
        num_replicas_in_sync: n,
    });
    let ds = vm.call(dataset_fn, vec![ctx], Vec::new())?;
    distributed::new(&[ds], devices, Mode::RoundRobin)
}
