//! The Strategy runtime: devices visible to a script, strategies, per-replica
//! and mirrored values, replica/cross-replica contexts, variables and
//! distributed datasets. Builds on `runtime` (tensors, devices) and `value`
//! (the `Vm` trait); replicas run through `Vm::run_replicas`. This layer
//! defines the natives and classes; `modules::tf_distribute` and
//! `modules::tf_data` name them under `tf`.

pub mod classes;
pub mod collective_options;
pub mod config;
pub mod context;
pub mod cross_device;
pub mod dataset;
pub mod devices;
pub mod enums;
pub mod function;
pub mod name_scope;
pub mod nest;
pub mod notes;
pub mod reduce;
pub mod renamed;
pub mod replica_ctx;
pub mod runtime_config;
pub mod sparse_reduce;
pub mod strategy;
pub mod values;
pub mod variables;

pub use config::Config;
pub use context::current_device;
