//! The Strategy runtime: devices visible to a script, strategies, per-replica
//! and mirrored values, replica/cross-replica contexts, variables and
//! distributed datasets. Builds on `runtime` (tensors, devices) and `value`
//! (the `Vm` trait); replicas run through `Vm::run_replicas`.

pub mod config;
pub mod context;
pub mod dataset;
pub mod values;

pub use config::Config;
pub use context::current_device;

use crate::modules::ModuleBuilder;

/// Adds what this layer provides under `tf`: `tf.distribute`, `tf.data`,
/// `tf.Variable`, `tf.function`, `tf.device`, `tf.config`.
pub fn register_tf(m: &mut ModuleBuilder) {
    dataset::register_data(m);
}
