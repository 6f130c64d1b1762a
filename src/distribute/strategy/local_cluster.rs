//! The strategies that, on one machine, replicate as a MirroredStrategy
//! does but are other classes: `MultiWorkerMirroredStrategy` with one local
//! worker (no `TF_CONFIG` cluster: TensorFlow's
//! `CollectiveAllReduceStrategy` then mirrors over the local GPUs, or the
//! CPU) and `CentralStorageStrategy` with one compute device (variables on
//! the parameter device, TensorFlow's `ParameterServerStrategyExtended`).
//! The cluster resolvers are written in the language
//! (`stdlib/tensorflow_cluster.dist`), which registers the check a
//! strategy runs on its resolver ([`register_cluster_check`]).

use std::cell::RefCell;

use super::extended::{EXTENDED_V1, MIRRORED_EXTENDED};
use super::{make_strategy_as, Flavor, Kind, STRATEGY};
use crate::distribute::devices::{device_arg, device_arg_named, gpus, placed};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::Device;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

const COLLECTIVE_MODULE: &str = "tensorflow.python.distribute.collective_all_reduce_strategy";

/// `tf.distribute.MultiWorkerMirroredStrategy`.
pub static COLLECTIVE_STRATEGY: ClassSpec = ClassSpec {
    name: "CollectiveAllReduceStrategy",
    module: COLLECTIVE_MODULE,
    bases: &[&STRATEGY],
    members: &[Member::New(multi_worker_new::DEF)],
};

/// `tf.distribute.experimental.MultiWorkerMirroredStrategy` (deprecated alias).
pub static COLLECTIVE_STRATEGY_EXPERIMENTAL: ClassSpec = ClassSpec {
    name: "_CollectiveAllReduceStrategyExperimental",
    module: COLLECTIVE_MODULE,
    bases: &[&COLLECTIVE_STRATEGY],
    members: &[Member::New(multi_worker_experimental_new::DEF)],
};

/// `tf.distribute.experimental.CentralStorageStrategy`.
pub static CENTRAL_STORAGE_STRATEGY: ClassSpec = ClassSpec {
    name: "CentralStorageStrategy",
    module: "tensorflow.python.distribute.central_storage_strategy",
    bases: &[&STRATEGY],
    members: &[Member::New(central_storage_new::DEF)],
};

/// MultiWorkerMirroredStrategy's extended class.
pub static COLLECTIVE_EXTENDED: ClassSpec = ClassSpec {
    name: "CollectiveAllReduceExtended",
    module: COLLECTIVE_MODULE,
    bases: &[&MIRRORED_EXTENDED],
    members: &[],
};

/// CentralStorageStrategy's extended class.
pub static PARAMETER_SERVER_EXTENDED: ClassSpec = ClassSpec {
    name: "ParameterServerStrategyExtended",
    module: "tensorflow.python.distribute.parameter_server_strategy",
    bases: &[&EXTENDED_V1],
    members: &[],
};

/// The class of a strategy of `flavor` (None: its kind's own).
pub fn strategy_spec(flavor: &Flavor) -> Option<&'static ClassSpec> {
    match flavor {
        Flavor::Own | Flavor::V1 => None,
        Flavor::MultiWorker {
            experimental: false,
        } => Some(&COLLECTIVE_STRATEGY),
        Flavor::MultiWorker { experimental: true } => Some(&COLLECTIVE_STRATEGY_EXPERIMENTAL),
        Flavor::CentralStorage { .. } => Some(&CENTRAL_STORAGE_STRATEGY),
    }
}

/// The class of the extended object of a strategy of `flavor`.
pub fn extended_spec(flavor: &Flavor) -> Option<&'static ClassSpec> {
    match flavor {
        Flavor::Own | Flavor::V1 => None,
        Flavor::MultiWorker { .. } => Some(&COLLECTIVE_EXTENDED),
        Flavor::CentralStorage { .. } => Some(&PARAMETER_SERVER_EXTENDED),
    }
}

/// The language-side check of a multi-worker strategy's cluster resolver.
#[derive(Default)]
struct ClusterCheck(RefCell<Option<Value>>);

/// Registers `check(resolver)`, which returns the resolver a
/// MultiWorkerMirroredStrategy runs with (TF_CONFIG's for None) and raises
/// for a cluster of several tasks (`tensorflow_cluster.dist`).
#[native("_register_cluster_check(check)")]
pub fn register_cluster_check(vm: &dyn Vm, check: &Value) {
    *vm.state().get::<ClusterCheck>().0.borrow_mut() = Some(check.clone());
}

/// What the collectives were configured for: `None` until a
/// MultiWorkerMirroredStrategy is made, then `Some(None)` for one local
/// worker, or the job and task of a one-task cluster.
#[derive(Default)]
struct Collectives(RefCell<Option<Option<(String, u32)>>>);

/// Configures the collectives as a MultiWorkerMirroredStrategy does: for
/// one local worker (`task_type` None), or for the one task of a cluster,
/// whose job and task then name every device (`/job:worker/replica:0/task:0/...`),
/// with TensorFlow's errors when that comes too late.
#[native("_configure_collectives(task_type, task_id)")]
pub fn configure_collectives(vm: &dyn Vm, task_type: &Value, task_id: i64) -> PyResult<()> {
    let state = vm.state().get::<Collectives>();
    let want = match task_type {
        Value::Str(t) => Some((t.to_string(), u32::try_from(task_id).unwrap_or(0))),
        _ => None,
    };
    let current = state.0.borrow().clone();
    match (&current, &want) {
        (_, None) => {
            if current.is_none() {
                *state.0.borrow_mut() = Some(None);
            }
            return Ok(());
        }
        (Some(c), w) if c == w => return Ok(()),
        (Some(_), _) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Collective ops are already configured.",
            ))
        }
        (None, _) => {}
    }
    if crate::distribute::context::placement(vm).initialized.get() {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "Collective ops must be configured at program startup",
        ));
    }
    if let Some((job, task)) = &want {
        crate::runtime::device::set_local_job(Some((job, *task)));
    }
    *state.0.borrow_mut() = Some(want);
    Ok(())
}

/// The local devices a MirroredStrategy without `devices` takes: the GPUs, else the CPU.
fn local_devices(vm: &dyn Vm) -> Vec<Device> {
    let g = gpus(vm);
    if g.is_empty() {
        vec![Device::CPU0]
    } else {
        g
    }
}

fn multi_worker(vm: &dyn Vm, cluster_resolver: &Value, experimental: bool) -> PyResult<Value> {
    let check = vm.state().get::<ClusterCheck>().0.borrow().clone();
    let resolver = match check {
        Some(f) => vm.call(&f, vec![cluster_resolver.clone()], Vec::new())?,
        None => {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                "MultiWorkerMirroredStrategy needs `import tensorflow` first",
            ))
        }
    };
    make_strategy_as(
        vm,
        Kind::Mirrored,
        local_devices(vm),
        Flavor::MultiWorker { experimental },
        resolver,
    )
}

/// Synchronous training on several workers, each with its devices; with
/// no `TF_CONFIG`, one local worker mirroring over its GPUs (or its CPU).
#[native("CollectiveAllReduceStrategy.__init__(cluster_resolver=None, communication_options=None)")]
fn multi_worker_new(
    vm: &dyn Vm,
    cluster_resolver: &Value,
    _communication_options: &Value,
) -> PyResult<Value> {
    multi_worker(vm, cluster_resolver, false)
}

/// The deprecated `tf.distribute.experimental` form of MultiWorkerMirroredStrategy.
#[native(
    "_CollectiveAllReduceStrategyExperimental.__init__(communication=None, cluster_resolver=None)"
)]
fn multi_worker_experimental_new(
    vm: &dyn Vm,
    _communication: &Value,
    cluster_resolver: &Value,
) -> PyResult<Value> {
    multi_worker(vm, cluster_resolver, true)
}

/// Variables on one device (the CPU, or the only GPU), computation
/// replicated on the compute devices (all local GPUs by default).
#[native("CentralStorageStrategy.__init__(compute_devices=None, parameter_device=None)")]
fn central_storage_new(
    vm: &dyn Vm,
    compute_devices: &Value,
    parameter_device: &Value,
) -> PyResult<Value> {
    let compute = match compute_devices {
        Value::None => local_devices(vm),
        v => vm
            .collect(v)?
            .iter()
            .map(|d| device_arg_named(vm, d))
            .collect::<PyResult<Vec<_>>>()?,
    };
    let (parameter, shown) = match parameter_device {
        Value::None if compute.len() == 1 => (placed(vm, compute[0])?, compute[0].full_name()),
        Value::None => (Device::CPU0, "/device:CPU:0".to_string()),
        v => (device_arg(vm, v)?, vm.str(v)?),
    };
    if compute.len() != 1 {
        // TensorFlow's AggregatingVariable (one copy, updates aggregated
        // across the compute devices) is not built yet
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "CentralStorageStrategy with {} compute devices is not supported in dist yet",
                compute.len()
            ),
        )
        .help("give it one compute device (compute_devices=[\"GPU:0\"]), or use tf.distribute.MirroredStrategy to replicate over several"));
    }
    make_strategy_as(
        vm,
        Kind::Mirrored,
        compute,
        Flavor::CentralStorage { parameter, shown },
        Value::None,
    )
}
