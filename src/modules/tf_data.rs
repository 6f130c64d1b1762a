//! `tf.data` and `tf.TensorSpec`, named as TensorFlow names them: the
//! `Dataset` class, the `tf.data.experimental` transformations, the
//! cardinality constants and `AutoShardPolicy`. Registration only: the
//! natives and classes are `distribute::dataset`'s.

use super::ModuleBuilder;
use crate::distribute::dataset::compose;
use crate::distribute::dataset::methods::DATASET_V2;
use crate::distribute::dataset::node::{INFINITE, UNKNOWN};
use crate::distribute::dataset::options::new_options;
use crate::distribute::dataset::structure::TENSOR_SPEC;
use crate::value::Value;

/// Adds the `tf.data` namespace and `tf.TensorSpec` to `tf`.
pub fn register(m: &mut ModuleBuilder) {
    m.namespace("data", |d| {
        d.value("Dataset", Value::Class(DATASET_V2.class()))
            .value("AUTOTUNE", Value::Int(-1))
            .value("INFINITE_CARDINALITY", Value::Int(INFINITE))
            .value("UNKNOWN_CARDINALITY", Value::Int(UNKNOWN))
            .add(new_options::DEF)
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
        .value("AUTOTUNE", Value::Int(-1))
        .value("INFINITE_CARDINALITY", Value::Int(INFINITE))
        .value("UNKNOWN_CARDINALITY", Value::Int(UNKNOWN))
        .namespace("AutoShardPolicy", |p| {
            p.value("OFF", Value::Int(-1))
                .value("AUTO", Value::Int(0))
                .value("FILE", Value::Int(1))
                .value("DATA", Value::Int(2))
                .value("HINT", Value::Int(3));
        });
}
