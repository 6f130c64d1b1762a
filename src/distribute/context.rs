//! Where ops run: the device stack of `tf.device(...)` scopes and the
//! device of the replica running now. PLACEHOLDER: always `CPU:0` until the
//! Strategy runtime lands.

use crate::runtime::Device;
use crate::value::Vm;

/// The device a new tensor (or the result of an op with no other placement)
/// goes to: the innermost `tf.device` scope, else the running replica's
/// device, else `CPU:0`.
pub fn current_device(vm: &dyn Vm) -> Device {
    let _ = vm;
    Device::cpu(0)
}
