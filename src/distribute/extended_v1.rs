//! The `StrategyExtended` methods TensorFlow keeps from its 1.x API and
//! MirroredStrategy and OneDeviceStrategy still have (`broadcast_to`,
//! `read_var`, `non_slot_devices`, `update_non_slot`), and the flags
//! (`should_checkpoint`, …) of a single-worker strategy. The other extended
//! methods live with the strategies in `strategy.rs`.

use std::rc::Rc;

use super::classes::method;
use super::context::{pop_device, push_device};
use super::devices::device_arg;
use super::nest::select_replica;
use super::strategy::{device_names, extended_of, ExtendedObj, Kind};
use crate::value::{Args, Class, ExcType, PyErr, PyResult, Value, Vm};

/// The flags of `strategy.extended` (None: not one of them).
pub fn flag(e: &ExtendedObj, name: &str) -> Option<PyResult<Value>> {
    let value = match name {
        "experimental_between_graph" => false,
        "experimental_should_init" | "should_checkpoint" | "should_save_summary" => true,
        _ => return None,
    };
    if e.kind == Kind::Default && name == "experimental_between_graph" {
        return Some(Err(PyErr::new(
            ExcType::NotImplementedError,
            "must be implemented in descendants",
        )));
    }
    Some(Ok(Value::Bool(value)))
}

/// The flags' names, for `dir()`.
pub const FLAGS: [&str; 4] = [
    "experimental_between_graph",
    "experimental_should_init",
    "should_checkpoint",
    "should_save_summary",
];

fn broadcast_to(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let e = extended_of(args.get(0))?;
    let (tensor, destinations) = (args.get(1), args.get(2));
    if destinations.is_none() {
        // StrategyExtendedV1.broadcast_to: `assert destinations is not None`
        return Err(PyErr::new(ExcType::AssertionError, ""));
    }
    match e.kind {
        Kind::Default => Err(PyErr::new(ExcType::NotImplementedError, "TODO")),
        Kind::OneDevice => Ok(tensor.clone()),
        // Python numbers stay as they are, to take the dtype of what they meet
        Kind::Mirrored if matches!(tensor, Value::Int(_) | Value::Float(_)) => Ok(tensor.clone()),
        Kind::Mirrored => super::cross_device::broadcast(vm, tensor, destinations),
    }
}

fn read_var(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let read = vm.getattr(args.get(1), "read_value")?;
    vm.call(&read, Vec::new(), Vec::new())
}

fn non_slot_devices(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let e = extended_of(args.get(0))?;
    if e.kind != Kind::Default {
        return Ok(device_names(&e.devices));
    }
    // the default strategy's: the variable with the smallest name
    let mut best: Option<(String, Value)> = None;
    for v in vm.collect(args.get(1))? {
        let name = vm.str(&vm.getattr(&v, "name")?)?;
        if best.as_ref().is_none_or(|(b, _)| name < *b) {
            best = Some((name, v));
        }
    }
    best.map(|(_, v)| v)
        .ok_or_else(|| PyErr::new(ExcType::ValueError, "min() arg is an empty sequence"))
}

/// `update_non_slot(colocate_with, fn, args=(), kwargs=None, group=True)`:
/// `fn` once on each device of `colocate_with`, with that device's
/// components of `args`/`kwargs`; the results regrouped as `update` does.
fn update_non_slot(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let e = extended_of(args.get(0))?;
    let devices = match args.get(1) {
        Value::Str(_) => vec![device_arg(vm, args.get(1))?],
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
    let extra = match args.get(3) {
        Value::None => Vec::new(),
        v => vm.collect(v)?,
    };
    let kwargs = match args.get(4) {
        Value::Dict(d) => d.borrow().items(),
        _ => Vec::new(),
    };
    let mut updates = Vec::with_capacity(devices.len());
    for (i, d) in devices.iter().enumerate() {
        let a = extra
            .iter()
            .map(|x| select_replica(i, x))
            .collect::<PyResult<Vec<_>>>()?;
        let mut kw = Vec::with_capacity(kwargs.len());
        for (k, v) in &kwargs {
            if let Value::Str(s) = k {
                kw.push((Rc::from(s.as_str()), select_replica(i, v)?));
            }
        }
        push_device(vm, *d);
        let r = vm.call(args.get(2), a, kw);
        pop_device(vm);
        updates.push(r?);
    }
    let group = vm.truthy(args.get(5))?;
    super::variables::update_regroup(vm, &updates, group)
}

/// `call_for_each_replica(fn, args=(), kwargs=None)`: the strategy's `run`.
fn call_for_each_replica(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let e = extended_of(args.get(0))?;
    let Some(strategy) = e.strategy() else {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "the strategy of this StrategyExtended is gone",
        ));
    };
    let run = vm.getattr(&strategy, "run")?;
    let fn_args = match args.get(2) {
        Value::None => Value::tuple(Vec::new()),
        v => v.clone(),
    };
    vm.call(
        &run,
        vec![args.get(1).clone(), fn_args, args.get(3).clone()],
        Vec::new(),
    )
}

/// Adds the methods to an extended class.
pub fn add_methods(c: &Class, owner: &str) {
    let m = |sig: &str, f, doc| method(c, &format!("{owner}.{sig}"), f, doc);
    m(
        "broadcast_to(self, tensor, destinations)",
        broadcast_to,
        "Copies `tensor` to the devices of `destinations` (a Mirrored value for several).",
    );
    m(
        "call_for_each_replica(self, fn, args=(), kwargs=None)",
        call_for_each_replica,
        "Runs `fn` once per replica, as `strategy.run` does.",
    );
    m(
        "read_var(self, v)",
        read_var,
        "The value of variable `v` (aggregated for a sync-on-read variable).",
    );
    m(
        "non_slot_devices(self, var_list)",
        non_slot_devices,
        "The devices of variables not tied to one replica: the worker devices.",
    );
    m(
        "update_non_slot(self, colocate_with, fn, args=(), kwargs=None, group=True)",
        update_non_slot,
        "Runs `fn` once on each device of `colocate_with`; the results regrouped.",
    );
}
