//! Where code runs: the per-interpreter state of this layer (the strategy
//! stack of `strategy.scope()`, the device stacks of `tf.device(...)`, the
//! `strategy.run` in progress) and the placement rule ops use
//! ([`current_device`]). Strategies and contexts themselves live in
//! `strategy.rs` and `replica_ctx.rs`.

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
    /// `tf.device` scopes: one stack outside replicas (key None) and one per
    /// running replica, so replicas interleaving at collectives do not see
    /// each other's scopes.
    pub device_stacks: RefCell<Vec<(Option<usize>, Vec<Device>)>>,
    /// The `strategy.run` in progress.
    pub run: RefCell<Option<ReplicaRun>>,
    /// Depth of `merge_call` functions running (cross-replica context inside a run).
    pub merge_depth: Cell<usize>,
    /// Set once an op or a device listing has initialised the runtime
    /// (logical devices can no longer be configured).
    pub initialized: Cell<bool>,
    /// Logical CPUs configured with `tf.config.set_logical_device_configuration`.
    pub logical_cpus: Cell<Option<u32>>,
    /// The default strategy object (created on first use).
    pub default_strategy: RefCell<Option<Value>>,
}

/// The state of this layer in `vm`.
pub fn state(vm: &dyn Vm) -> std::rc::Rc<DistState> {
    vm.state().get::<DistState>()
}

/// Pushes a `tf.device` scope for the running replica (or the main program).
pub fn push_device(vm: &dyn Vm, d: Device) {
    let st = state(vm);
    let key = vm.current_replica();
    let mut stacks = st.device_stacks.borrow_mut();
    match stacks.iter_mut().find(|(k, _)| *k == key) {
        Some((_, s)) => s.push(d),
        None => stacks.push((key, vec![d])),
    }
}

/// Pops the innermost `tf.device` scope of the running replica.
pub fn pop_device(vm: &dyn Vm) {
    let st = state(vm);
    let key = vm.current_replica();
    let mut stacks = st.device_stacks.borrow_mut();
    if let Some(pos) = stacks.iter().position(|(k, _)| *k == key) {
        stacks[pos].1.pop();
        if stacks[pos].1.is_empty() {
            stacks.remove(pos);
        }
    }
}

/// The innermost `tf.device` scope's device, if any.
pub fn scoped_device(vm: &dyn Vm) -> Option<Device> {
    let st = state(vm);
    let key = vm.current_replica();
    let stacks = st.device_stacks.borrow();
    stacks
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, s)| s.last().copied())
}

/// The device of the replica running now, inside `strategy.run`.
pub fn replica_device(vm: &dyn Vm) -> Option<Device> {
    let i = vm.current_replica()?;
    let st = state(vm);
    let run = st.run.borrow();
    run.as_ref().and_then(|r| r.devices.get(i).copied())
}

/// The device a new tensor (or the result of an op with no other placement)
/// goes to: the innermost `tf.device` scope, else the running replica's
/// device, else `CPU:0`.
pub fn current_device(vm: &dyn Vm) -> Device {
    let st = state(vm);
    st.initialized.set(true);
    scoped_device(vm)
        .or_else(|| replica_device(vm))
        .unwrap_or(Device::CPU0)
}

/// True inside a replica function of `strategy.run` (not inside its `merge_call`).
pub fn in_replica_fn(vm: &dyn Vm) -> bool {
    vm.current_replica().is_some()
}
