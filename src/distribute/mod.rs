//! The Strategy runtime: devices visible to a script, strategies, per-replica
//! and mirrored values, replica/cross-replica contexts, variables and
//! distributed datasets. Builds on `runtime` (tensors, devices) and `value`
//! (the `Vm` trait); replicas run through `Vm::run_replicas`.

pub mod classes;
pub mod collective_options;
pub mod config;
pub mod context;
pub mod cross_device;
pub mod dataset;
pub mod devices;
pub mod extended_v1;
pub mod function;
pub mod nest;
pub mod reduce;
pub mod renamed;
pub mod replica_ctx;
pub mod strategy;
pub mod values;
pub mod variables;

pub use config::Config;
pub use context::current_device;

use crate::modules::ModuleBuilder;
use crate::value::Value;

/// Adds what this layer provides under `tf`: `tf.distribute`, `tf.data`,
/// `tf.Variable`, `tf.function`, `tf.device`, `tf.config`.
pub fn register_tf(m: &mut ModuleBuilder) {
    dataset::register_data(m);
    devices::register(m);
    function::register(m);
    variables::register(m);
    // tf.types.experimental.distributed: the interfaces that `PerReplica`
    // and `Mirrored` values (and mirrored variables) implement.
    m.namespace("types", |t| {
        t.namespace("experimental", |e| {
            e.namespace("distributed", |d| {
                d.value(
                    "PerReplica",
                    Value::Class(classes::class("types.PerReplica")),
                );
                d.value("Mirrored", Value::Class(classes::class("types.Mirrored")));
            });
        });
    });
    m.namespace("distribute", |d| {
        strategy::register(d);
        replica_ctx::register(d);
        dataset::register_distribute_extras(d);
        d.value("ReduceOp", Value::Class(reduce::reduce_op_class()));
        d.value("PerReplica", Value::Class(classes::class("PerReplica")));
        d.value(
            "DistributedValues",
            Value::Class(classes::class("DistributedValues")),
        );
        // tf.distribute.DistributedDataset / DistributedIterator are
        // TensorFlow's interface classes (for isinstance)
        d.value(
            "DistributedDataset",
            Value::Class(classes::class("DistributedDatasetInterface")),
        );
        d.value(
            "DistributedIterator",
            Value::Class(classes::class("DistributedIteratorInterface")),
        );
        d.namespace("experimental", |e| {
            collective_options::register(e);
            e.value(
                "ValueContext",
                Value::Class(replica_ctx::value_context_class()),
            );
        });
    });
}
