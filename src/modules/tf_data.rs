//! `tf.data` and `tf.TensorSpec`, named as TensorFlow names them: the
//! `Dataset` class, the `tf.data.experimental` transformations, the
//! cardinality constants, `tf.data.Options` with its option classes and enums. Registration only: the
//! natives and classes are `distribute::dataset`'s.

use super::ModuleBuilder;
use crate::distribute::dataset::data_options::{
    AUTOTUNE_ALGORITHM, AUTOTUNE_OPTIONS, AUTO_SHARD_POLICY, DISTRIBUTE_OPTIONS,
    EXTERNAL_STATE_POLICY, OPTIMIZATION_OPTIONS, OPTIONS, SERVICE_OPTIONS, THREADING_OPTIONS,
};
use crate::distribute::dataset::methods::DATASET_V2;
use crate::distribute::dataset::node::{INFINITE, UNKNOWN};
use crate::distribute::dataset::structure::TENSOR_SPEC;
use crate::distribute::dataset::{compose, files};
use crate::value::Value;

/// Adds the `tf.data` namespace and `tf.TensorSpec` to `tf`.
pub fn register(m: &mut ModuleBuilder) {
    m.namespace("data", |d| {
        d.value("Dataset", Value::Class(DATASET_V2.class()))
            .value("AUTOTUNE", Value::Int(-1))
            .value("INFINITE_CARDINALITY", Value::Int(INFINITE))
            .value("UNKNOWN_CARDINALITY", Value::Int(UNKNOWN))
            .value("Options", Value::Class(OPTIONS.class()))
            .value("ThreadingOptions", Value::Class(THREADING_OPTIONS.class()))
            .value("TFRecordDataset", Value::Class(files::TF_RECORD.class()))
            .value("TextLineDataset", Value::Class(files::TEXT_LINE.class()))
            .value(
                "FixedLengthRecordDataset",
                Value::Class(files::FIXED_LENGTH.class()),
            )
            .namespace("experimental", register_experimental);
    });
    // A class, so that `isinstance(ds.element_spec, tf.TensorSpec)` holds.
    m.value("TensorSpec", Value::Class(TENSOR_SPEC.class()));
}

/// `tf.data.experimental`.
fn register_experimental(e: &mut ModuleBuilder) {
    e.add(compose::experimental_scan::DEF)
        .add(compose::experimental_take_while::DEF)
        .add(compose::experimental_unique::DEF)
        .add(compose::experimental_group_by_window::DEF)
        .add(compose::experimental_bucket_by_sequence_length::DEF)
        .add(compose::counter::DEF)
        .add(compose::get_single_element::DEF)
        .add(compose::EXPERIMENTAL_CHOOSE_FROM_DATASETS)
        .value(
            "Optional",
            Value::Class(crate::distribute::dataset::iterator::OPTIONAL.class()),
        )
        .value("AUTOTUNE", Value::Int(-1))
        .value("INFINITE_CARDINALITY", Value::Int(INFINITE))
        .value("UNKNOWN_CARDINALITY", Value::Int(UNKNOWN))
        .value("AutoShardPolicy", Value::Class(AUTO_SHARD_POLICY.class()))
        .value(
            "AutotuneAlgorithm",
            Value::Class(AUTOTUNE_ALGORITHM.class()),
        )
        .value(
            "ExternalStatePolicy",
            Value::Class(EXTERNAL_STATE_POLICY.class()),
        )
        .value("AutotuneOptions", Value::Class(AUTOTUNE_OPTIONS.class()))
        .value(
            "DistributeOptions",
            Value::Class(DISTRIBUTE_OPTIONS.class()),
        )
        .value(
            "OptimizationOptions",
            Value::Class(OPTIMIZATION_OPTIONS.class()),
        )
        .value("ServiceOptions", Value::Class(SERVICE_OPTIONS.class()))
        .value("ThreadingOptions", Value::Class(THREADING_OPTIONS.class()));
}
