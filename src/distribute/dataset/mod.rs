//! `tf.data` and distributed datasets: lazy dataset pipelines
//! (`Dataset.range(10).map(f).batch(4)`), their iterators and element specs,
//! and the distributed datasets strategies build from them. Strategies call
//! [`distribute_dataset`] and [`distribute_from_function`]; the `tf` module
//! calls [`register_data`] (and the strategy side may call
//! [`register_distribute_extras`] for `InputContext`/`InputOptions`).
//!
//! Known differences from TensorFlow: `map`/`filter` functions run eagerly per
//! element (after one probe call when the pipeline is built) rather than
//! being traced once into a graph.

pub mod bucket;
pub mod compose;
pub mod compose_stream;
pub mod distributed;
pub mod iterator;
pub mod methods;
pub mod node;
pub mod options;
pub mod padding;
pub mod stream;
pub mod structure;

use crate::modules::ModuleBuilder;
use crate::runtime::Device;
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

use distributed::Mode;
use node::{INFINITE, UNKNOWN};

/// Adds the `tf.data` namespace and `tf.TensorSpec`.
pub fn register_data(m: &mut ModuleBuilder) {
    m.namespace("data", |d| {
        d.value("Dataset", Value::Class(node::dataset_class()));
        d.value("AUTOTUNE", Value::Int(-1));
        d.value("INFINITE_CARDINALITY", Value::Int(INFINITE));
        d.value("UNKNOWN_CARDINALITY", Value::Int(UNKNOWN));
        d.function(
            "Options()",
            options::new_options,
            "Options for a dataset (accepted; they change nothing here).",
        );
        d.namespace("experimental", |e| {
            compose::register_experimental(e);
            e.value("AUTOTUNE", Value::Int(-1));
            e.value("INFINITE_CARDINALITY", Value::Int(INFINITE));
            e.value("UNKNOWN_CARDINALITY", Value::Int(UNKNOWN));
            e.namespace("AutoShardPolicy", |p| {
                p.value("OFF", Value::Int(-1));
                p.value("AUTO", Value::Int(0));
                p.value("FILE", Value::Int(1));
                p.value("DATA", Value::Int(2));
                p.value("HINT", Value::Int(3));
            });
        });
    });
    // A class, so that `isinstance(ds.element_spec, tf.TensorSpec)` holds.
    let spec_class = crate::distribute::classes::class("TensorSpec");
    crate::distribute::classes::constructor(
        &spec_class,
        "TensorSpec.__new__(shape, dtype=None, name=None)",
        tensor_spec,
        "The type of a tensor: shape (None for unknown dims) and dtype.",
    );
    m.value("TensorSpec", Value::Class(spec_class));
}

/// Adds `InputContext`, `InputOptions` and `RunOptions` to a `tf.distribute` namespace.
pub fn register_distribute_extras(d: &mut ModuleBuilder) {
    // classes, so that `isinstance` and `type()` read as in TensorFlow
    for (name, sig, f, doc) in [
        (
            "InputContext",
            "InputContext.__init__(num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1)",
            options::new_input_context as crate::value::NativeFn,
            "What a dataset function learns about the input pipelines and replicas.",
        ),
        (
            "InputOptions",
            "InputOptions.__new__(experimental_fetch_to_device=None, experimental_replication_mode=None, experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1)",
            options::new_input_options,
            "Options for distributed datasets (accepted).",
        ),
        (
            "RunOptions",
            "RunOptions.__new__(experimental_enable_dynamic_batch_size=True, experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None)",
            options::new_run_options,
            "Options for `strategy.run` (TPU-only in TensorFlow; accepted).",
        ),
    ] {
        let c = crate::distribute::classes::class(name);
        crate::distribute::classes::constructor(&c, sig, f, doc);
        d.value(name, Value::Class(c));
    }
    d.value(
        "InputReplicationMode",
        Value::Class(options::replication_mode_class()),
    );
}

pub(crate) fn dtype_of(vm: &dyn Vm, v: &Value) -> PyResult<crate::runtime::DType> {
    use crate::runtime::DType;
    let name = match v {
        Value::None => return Ok(DType::Float32),
        Value::Str(s) => s.to_string(),
        other => vm.str(&vm.getattr(other, "name")?)?,
    };
    DType::from_name(&name).map_err(crate::object::tensor::convert::runtime_err)
}

fn tensor_spec(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let dtype = dtype_of(vm, args.get(1))?;
    let dims = dims_of(vm, args.get(0))?;
    let name = match args.get(2) {
        Value::None => None,
        n => Some(std::rc::Rc::from(vm.str(n)?.as_str())),
    };
    Ok(Value::native(structure::SpecObj(
        structure::Spec::Tensor { dtype, dims },
        name,
    )))
}

/// A shape argument's dimensions (`None` entries unknown; `None` itself: a scalar).
pub(crate) fn dims_of(vm: &dyn Vm, shape: &Value) -> PyResult<Vec<Option<usize>>> {
    match shape {
        Value::None => Ok(Vec::new()),
        shape => vm
            .collect(shape)?
            .iter()
            .map(|d| match d {
                Value::None => Ok(None),
                d => methods::int_arg(vm, d, "shape").map(|n| Some(n.max(0) as usize)),
            })
            .collect(),
    }
}

/// `strategy.experimental_distribute_dataset(dataset)`: splits each global
/// batch across the replicas on `devices`.
pub fn distribute_dataset(
    vm: &dyn Vm,
    dataset: &Value,
    devices: &[Device],
    options: &Value,
) -> PyResult<Value> {
    if options::per_replica_mode(vm, options)? {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "InputReplicationMode.PER_REPLICA is only supported in `distribute_datasets_from_function`.",
        ));
    }
    distributed::new(std::slice::from_ref(dataset), devices, Mode::Split)
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
) -> PyResult<Value> {
    let n = devices.len() as i64;
    if options::per_replica_mode(vm, options)? {
        if !mirrored {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "InputReplicationMode.PER_REPLICA is only supported in \
                 `experimental_distribute_datasets_from_function` of tf.distribute.MirroredStrategy",
            ));
        }
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
