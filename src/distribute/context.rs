//! Where code runs: the per-interpreter state of this layer (the strategy
//! stack of `strategy.scope()`, the device stacks of `tf.device(...)`, the
//! `strategy.run` in progress) and the placement rule ops use
//! ([`current_device`]). Strategies and contexts themselves live in
//! `strategy/` and `replica_ctx/`.

use std::cell::{Cell, RefCell};

use crate::runtime::Device;
use crate::value::{Value, Vm};

/// The `strategy.run` in progress.
#[derive(Clone)]
pub struct ReplicaRun {
    /// The strategy object running the replicas.
    pub strategy: Value,
    /// One device per replica.
    pub devices: Vec<Device>,
}

/// State of the Strategy runtime kept in the interpreter (`vm.state()`).
#[derive(Default)]
pub struct DistState {
    /// Strategies entered with `scope()` (innermost last).
    pub scopes: RefCell<Vec<Value>>,
    /// Whether `scopes[0]` was entered by `experimental_set_strategy`.
    pub global_scope: Cell<bool>,
    /// The `strategy.run` in progress.
    pub run: RefCell<Option<ReplicaRun>>,
    /// Depth of `merge_call` functions running (cross-replica context inside a run).
    pub merge_depth: Cell<usize>,
    /// Logical CPUs configured with `tf.config.set_logical_device_configuration`.
    pub logical_cpus: Cell<Option<u32>>,
    /// The default strategy object (created on first use).
    pub default_strategy: RefCell<Option<Value>>,
    /// How many `strategy.run`s of a multi-replica strategy have started
    /// (names the one in progress).
    pub runs: Cell<u64>,
}

/// The state of this layer in `vm`.
pub fn state(vm: &dyn Vm) -> std::rc::Rc<DistState> {
    vm.state().get::<DistState>()
}

pub use crate::object::tensor::placement::{
    current_device, placement, pop_device, push_device, replica_device, scoped_device,
};

/// True inside a replica function of `strategy.run` (not inside its `merge_call`).
pub fn in_replica_fn(vm: &dyn Vm) -> bool {
    vm.current_replica().is_some()
}
