//! What the Strategy runtime (`distribute`) provides under `tf`, named as
//! TensorFlow names it: `tf.distribute` (strategies, contexts, cross-device
//! ops, distributed values and datasets, options), `tf.Variable` and its
//! enums, `tf.function`, `tf.device`, `tf.config` and
//! `tf.types.experimental.distributed`; `tf.data` is `tf_data.rs`.
//! Registration only: the natives and classes are `distribute`'s.

use super::ModuleBuilder;
use crate::distribute::classes::{
    DISTRIBUTED_DATASET_INTERFACE, DISTRIBUTED_ITERATOR_INTERFACE, DISTRIBUTED_VALUES,
    TYPES_MIRRORED, TYPES_PER_REPLICA,
};
use crate::distribute::collective_options::{communication_options, COMMUNICATION_IMPLEMENTATION};
use crate::distribute::cross_device::{
    CROSS_DEVICE_OPS, HIERARCHICAL_COPY_ALL_REDUCE, NCCL_ALL_REDUCE, REDUCTION_TO_ONE_DEVICE,
};
use crate::distribute::dataset::options::{self, INPUT_CONTEXT, INPUT_REPLICATION_MODE};
use crate::distribute::devices;
use crate::distribute::reduce::REDUCE_OP;
use crate::distribute::replica_ctx::{
    experimental_set_strategy, get_replica_context, get_strategy, has_strategy,
    in_cross_replica_context, REPLICA_CONTEXT, VALUE_CONTEXT,
};
use crate::distribute::runtime_config as rc;
use crate::distribute::strategy::extended::EXTENDED_V2;
use crate::distribute::strategy::{
    local_cluster, MIRRORED_STRATEGY, ONE_DEVICE_STRATEGY, STRATEGY,
};
use crate::distribute::values::PER_REPLICA;
use crate::distribute::variables::enums::{VARIABLE_AGGREGATION_V2, VARIABLE_SYNCHRONIZATION};
use crate::distribute::variables::VARIABLE;
use crate::object::ClassSpec;
use crate::value::Value;

fn class(spec: &'static ClassSpec) -> Value {
    Value::Class(spec.class())
}

/// Adds what the Strategy runtime provides under `tf`: `tf.data`,
/// `tf.TensorSpec`, `tf.device`, `tf.config`, `tf.function`, `tf.Variable`,
/// `tf.types` and `tf.distribute`.
pub fn register_tf(m: &mut ModuleBuilder) {
    super::tf_data::register(m);
    register_devices(m);
    m.add(crate::distribute::function::function::DEF);
    m.value("Variable", class(&VARIABLE));
    m.value("VariableAggregation", class(&VARIABLE_AGGREGATION_V2));
    m.value("VariableSynchronization", class(&VARIABLE_SYNCHRONIZATION));
    // tf.types.experimental.distributed: the interfaces that `PerReplica`
    // and `Mirrored` values (and mirrored variables) implement.
    m.namespace("types", |t| {
        t.namespace("experimental", |e| {
            e.namespace("distributed", |d| {
                d.value("PerReplica", class(&TYPES_PER_REPLICA));
                d.value("Mirrored", class(&TYPES_MIRRORED));
            });
        });
    });
    m.namespace("distribute", register_distribute);
    // tf.train.ClusterSpec comes from stdlib/tensorflow_cluster.dist
    m.namespace("train", |_| {});
}

/// The native part of `tf.compat.v1`: TensorFlow 1's `VariableAggregation`
/// and strategy classes (`stdlib/tensorflow_v1compat.dist` adds the names
/// `tf.compat.v1` shares with `tf`).
pub fn register_compat_v1(v: &mut ModuleBuilder) {
    use crate::distribute::strategy::v1;
    v.value(
        "VariableAggregation",
        class(&crate::distribute::variables::enums::VARIABLE_AGGREGATION),
    );
    v.namespace("distribute", |d| {
        d.value("MirroredStrategy", class(&v1::MIRRORED_STRATEGY_V1))
            .value("OneDeviceStrategy", class(&v1::ONE_DEVICE_STRATEGY_V1))
            .value("Strategy", class(&v1::STRATEGY_V1))
            .namespace("experimental", |_| {});
    });
}

/// `tf.distribute`.
fn register_distribute(d: &mut ModuleBuilder) {
    d.value("MirroredStrategy", class(&MIRRORED_STRATEGY))
        .value("OneDeviceStrategy", class(&ONE_DEVICE_STRATEGY))
        .value("Strategy", class(&STRATEGY))
        .value("StrategyExtended", class(&EXTENDED_V2))
        .value("CrossDeviceOps", class(&CROSS_DEVICE_OPS))
        .value("NcclAllReduce", class(&NCCL_ALL_REDUCE))
        .value(
            "HierarchicalCopyAllReduce",
            class(&HIERARCHICAL_COPY_ALL_REDUCE),
        )
        .value("ReductionToOneDevice", class(&REDUCTION_TO_ONE_DEVICE))
        .add(get_strategy::DEF)
        .add(has_strategy::DEF)
        .add(in_cross_replica_context::DEF)
        .add(get_replica_context::DEF)
        .add(experimental_set_strategy::DEF)
        .value("ReplicaContext", class(&REPLICA_CONTEXT))
        // classes, so that `isinstance` and `type()` read as in TensorFlow
        .value("InputContext", class(&INPUT_CONTEXT))
        .value("InputOptions", options::input_options_class())
        .value("RunOptions", options::run_options_class())
        .value("InputReplicationMode", class(&INPUT_REPLICATION_MODE))
        .value("ReduceOp", class(&REDUCE_OP))
        .value("PerReplica", class(&PER_REPLICA))
        .value("DistributedValues", class(&DISTRIBUTED_VALUES))
        // TensorFlow's interface classes (for isinstance)
        .value("DistributedDataset", class(&DISTRIBUTED_DATASET_INTERFACE))
        .value(
            "DistributedIterator",
            class(&DISTRIBUTED_ITERATOR_INTERFACE),
        )
        .value(
            "MultiWorkerMirroredStrategy",
            class(&local_cluster::COLLECTIVE_STRATEGY),
        )
        .add(local_cluster::register_cluster_check::DEF)
        .add(local_cluster::configure_collectives::DEF)
        // the resolvers come from stdlib/tensorflow_cluster.dist
        .namespace("cluster_resolver", |_| {})
        .namespace("experimental", |e| {
            let implementation = class(&COMMUNICATION_IMPLEMENTATION);
            e.value(
                "MultiWorkerMirroredStrategy",
                class(&local_cluster::COLLECTIVE_STRATEGY_EXPERIMENTAL),
            )
            .value(
                "CentralStorageStrategy",
                class(&local_cluster::CENTRAL_STORAGE_STRATEGY),
            );
            e.add(communication_options::DEF)
                .value("CommunicationImplementation", implementation.clone())
                .value("CollectiveCommunication", implementation)
                .value("ValueContext", class(&VALUE_CONTEXT));
        });
}

/// `tf.device` and `tf.config`.
fn register_devices(m: &mut ModuleBuilder) {
    m.add(devices::device::DEF)
        .add(crate::distribute::name_scope::get_current_name_scope::DEF)
        .value(
            "name_scope",
            class(&crate::distribute::name_scope::NAME_SCOPE),
        );
    m.namespace("config", |c| {
        c.add(devices::list_physical_devices::DEF)
            .add(devices::list_logical_devices::DEF)
            .add(devices::set_logical_device_configuration::DEF)
            .add(devices::get_logical_device_configuration::DEF)
            .add(devices::logical_device_configuration::DEF)
            .add(devices::get_visible_devices::DEF)
            .add(rc::get_soft_device_placement::DEF)
            .add(rc::set_soft_device_placement::DEF)
            .add(rc::functions_run_eagerly::DEF)
            .add(rc::run_functions_eagerly::DEF)
            .add(rc::functions_run_eagerly::DEF.renamed("experimental_functions_run_eagerly()"))
            .add(
                rc::run_functions_eagerly::DEF
                    .renamed("experimental_run_functions_eagerly(run_eagerly)"),
            );
        c.namespace("threading", |t| {
            t.add(rc::get_inter_op_parallelism_threads::DEF)
                .add(rc::get_intra_op_parallelism_threads::DEF)
                .add(rc::set_inter_op_parallelism_threads::DEF)
                .add(rc::set_intra_op_parallelism_threads::DEF);
        });
        c.namespace("experimental", |e| {
            e.add(devices::list_physical_devices::DEF.documented("The physical devices."))
                .add(devices::list_logical_devices::DEF.documented("The logical devices."))
                .add(
                    devices::set_logical_device_configuration::DEF
                        .renamed("set_virtual_device_configuration(device, logical_devices)")
                        .documented("Old name of set_logical_device_configuration."),
                )
                .add(devices::get_visible_devices::DEF)
                .add(rc::enable_op_determinism::DEF)
                .add(rc::get_memory_growth::DEF)
                .add(rc::set_memory_growth::DEF)
                .add(rc::get_synchronous_execution::DEF)
                .add(rc::set_synchronous_execution::DEF)
                .add(rc::tensor_float_32_execution_enabled::DEF)
                .add(rc::enable_tensor_float_32_execution::DEF);
        });
    });
}
