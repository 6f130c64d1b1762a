//! Where a new tensor goes: the innermost `tf.device` scope, else the
//! device of the replica running now (inside `strategy.run`), else `CPU:0`.
//! The strategy runtime (`distribute`) pushes the scopes and names the
//! replicas' devices; conversions and ops read the answer here.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::runtime::Device;
use crate::value::Vm;

/// The placement state of an interpreter (`vm.state()`).
#[derive(Default)]
pub struct Placement {
    /// `tf.device` scopes: one stack outside replicas (key None) and one per
    /// running replica, so replicas interleaving at collectives do not see
    /// each other's scopes.
    device_stacks: RefCell<Vec<(Option<usize>, Vec<Device>)>>,
    /// One device per replica of the `strategy.run` in progress.
    replica_devices: RefCell<Option<Vec<Device>>>,
    /// Set once an op or a device listing has initialised the runtime
    /// (logical devices can no longer be configured).
    pub initialized: Cell<bool>,
}

/// The placement state of `vm`.
pub fn placement(vm: &dyn Vm) -> Rc<Placement> {
    vm.state().get::<Placement>()
}

/// Pushes a `tf.device` scope for the running replica (or the main program).
pub fn push_device(vm: &dyn Vm, d: Device) {
    let p = placement(vm);
    let key = vm.current_replica();
    let mut stacks = p.device_stacks.borrow_mut();
    match stacks.iter_mut().find(|(k, _)| *k == key) {
        Some((_, s)) => s.push(d),
        None => stacks.push((key, vec![d])),
    }
}

/// Pops the innermost `tf.device` scope of the running replica.
pub fn pop_device(vm: &dyn Vm) {
    let p = placement(vm);
    let key = vm.current_replica();
    let mut stacks = p.device_stacks.borrow_mut();
    if let Some(pos) = stacks.iter().position(|(k, _)| *k == key) {
        stacks[pos].1.pop();
        if stacks[pos].1.is_empty() {
            stacks.remove(pos);
        }
    }
}

/// The innermost `tf.device` scope's device, if any.
pub fn scoped_device(vm: &dyn Vm) -> Option<Device> {
    let p = placement(vm);
    let key = vm.current_replica();
    let stacks = p.device_stacks.borrow();
    stacks
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, s)| s.last().copied())
}

/// Names the replicas' devices of a `strategy.run` starting (None as it
/// ends); returns what was there, to restore.
pub fn set_replica_devices(vm: &dyn Vm, devices: Option<Vec<Device>>) -> Option<Vec<Device>> {
    placement(vm).replica_devices.replace(devices)
}

/// The device of the replica running now, inside `strategy.run`.
pub fn replica_device(vm: &dyn Vm) -> Option<Device> {
    let i = vm.current_replica()?;
    let p = placement(vm);
    let devices = p.replica_devices.borrow();
    devices.as_ref().and_then(|d| d.get(i).copied())
}

/// The device a new tensor (or the result of an op with no other placement)
/// goes to: the innermost `tf.device` scope, else the running replica's
/// device, else `CPU:0`.
pub fn current_device(vm: &dyn Vm) -> Device {
    placement(vm).initialized.set(true);
    scoped_device(vm)
        .or_else(|| replica_device(vm))
        .unwrap_or(Device::CPU0)
}
