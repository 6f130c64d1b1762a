//! The `StrategyExtended` methods TensorFlow keeps from its 1.x API and
//! MirroredStrategy and OneDeviceStrategy still have (`broadcast_to`,
//! `read_var`, `non_slot_devices`, `update_non_slot`), and the flags
//! (`should_checkpoint`, …) of a single-worker strategy. The other extended
//! methods are in `extended.rs`.

use super::{device_names, ExtendedObj, Kind};
use crate::distribute::classes::getters;
use crate::distribute::context::{pop_device, push_device};
use crate::distribute::devices::device_arg;
use crate::distribute::nest::SplitArgs;
use crate::object::native;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Whether the strategy trains between graphs (the default strategy's is abstract).
#[native("StrategyExtendedV2.experimental_between_graph(self)")]
pub(super) fn experimental_between_graph(this: &ExtendedObj) -> PyResult<bool> {
    if this.kind == Kind::Default {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "must be implemented in descendants",
        ));
    }
    // the multi-worker and parameter-server extendeds say True even on one worker
    Ok(matches!(
        this.flavor,
        super::Flavor::MultiWorker { .. } | super::Flavor::CentralStorage { .. }
    ))
}

getters! { _this: &ExtendedObj;
    /// Whether this worker initializes variables (one worker: yes).
    pub(super) fn experimental_should_init("StrategyExtendedV2.experimental_should_init(self)") -> bool {
        true
    }
    /// Whether this worker writes checkpoints (one worker: yes).
    pub(super) fn should_checkpoint("StrategyExtendedV2.should_checkpoint(self)") -> bool { true }
    /// Whether this worker writes summaries (one worker: yes).
    pub(super) fn should_save_summary("StrategyExtendedV2.should_save_summary(self)") -> bool {
        true
    }
}

/// Copies `tensor` to the devices of `destinations` (a Mirrored value for several).
#[native("StrategyExtendedV1.broadcast_to(self, tensor, destinations)")]
pub(super) fn broadcast_to(
    vm: &dyn Vm,
    this: &ExtendedObj,
    tensor: &Value,
    destinations: &Value,
) -> PyResult<Value> {
    if destinations.is_none() {
        // StrategyExtendedV1.broadcast_to: `assert destinations is not None`
        return Err(PyErr::new(ExcType::AssertionError, ""));
    }
    match this.kind {
        Kind::Default => Err(PyErr::new(ExcType::NotImplementedError, "TODO")),
        Kind::OneDevice => Ok(tensor.clone()),
        // Python numbers stay as they are, to take the dtype of what they meet
        Kind::Mirrored if matches!(tensor, Value::Int(_) | Value::Float(_)) => Ok(tensor.clone()),
        Kind::Mirrored => crate::distribute::cross_device::broadcast(vm, tensor, destinations),
    }
}

/// The value of variable `v` (aggregated for a sync-on-read variable).
#[native("StrategyExtendedV1.read_var(self, v)")]
pub(super) fn read_var(vm: &dyn Vm, _this: &Value, v: &Value) -> PyResult<Value> {
    let read = vm.getattr(v, "read_value")?;
    vm.call(&read, Vec::new(), Vec::new())
}

/// The devices of variables not tied to one replica: the worker devices.
#[native("StrategyExtendedV1.non_slot_devices(self, var_list)")]
pub(super) fn non_slot_devices(
    vm: &dyn Vm,
    this: &ExtendedObj,
    var_list: &Value,
) -> PyResult<Value> {
    if this.kind != Kind::Default {
        return Ok(device_names(&this.names));
    }
    // the default strategy's: the variable with the smallest name
    let mut best: Option<(String, Value)> = None;
    for v in vm.collect(var_list)? {
        let name = vm.str(&vm.getattr(&v, "name")?)?;
        if best.as_ref().is_none_or(|(b, _)| name < *b) {
            best = Some((name, v));
        }
    }
    best.map(|(_, v)| v)
        .ok_or_else(|| PyErr::new(ExcType::ValueError, "min() arg is an empty sequence"))
}

// `fn` once on each device of `colocate_with`, with that device's
// components of `args`/`kwargs`; the results regrouped as `update` does.
/// Runs `fn` once on each device of `colocate_with`; the results regrouped.
#[native(
    "StrategyExtendedV1.update_non_slot(self, colocate_with, fn, args=(), kwargs=None, group=True)"
)]
pub(super) fn update_non_slot(
    vm: &dyn Vm,
    this: &ExtendedObj,
    colocate_with: &Value,
    fn_: &Value,
    args: &Value,
    kwargs: &Value,
    group: &Value,
) -> PyResult<Value> {
    let e = this;
    let devices = match colocate_with {
        Value::Str(_) => vec![device_arg(vm, colocate_with)?],
        v => vm
            .collect(v)?
            .iter()
            .map(|d| device_arg(vm, d))
            .collect::<PyResult<Vec<_>>>()?,
    };
    let devices = if e.kind == Kind::OneDevice {
        e.devices.clone()
    } else {
        devices
    };
    let split = SplitArgs::new(vm, args, kwargs)?;
    let mut updates = Vec::with_capacity(devices.len());
    for (i, d) in devices.iter().enumerate() {
        let (a, kw) = split.select(i)?;
        push_device(vm, *d);
        let r = vm.call(fn_, a, kw);
        pop_device(vm);
        updates.push(r?);
    }
    let group = vm.truthy(group)?;
    crate::distribute::variables::update_regroup(vm, &updates, group)
}

// The strategy's `run`.
/// Runs `fn` once per replica, as `strategy.run` does.
#[native("StrategyExtendedV1.call_for_each_replica(self, fn, args=(), kwargs=None)")]
pub(super) fn call_for_each_replica(
    vm: &dyn Vm,
    this: &ExtendedObj,
    fn_: &Value,
    args: &Value,
    kwargs: &Value,
) -> PyResult<Value> {
    let Some(strategy) = this.strategy() else {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "the strategy of this StrategyExtended is gone",
        ));
    };
    let run = vm.getattr(&strategy, "run")?;
    let fn_args = match args {
        Value::None => Value::tuple(Vec::new()),
        v => v.clone(),
    };
    vm.call(&run, vec![fn_.clone(), fn_args, kwargs.clone()], Vec::new())
}
