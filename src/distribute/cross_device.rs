//! `tf.distribute.CrossDeviceOps` and its implementations (`NcclAllReduce`,
//! `HierarchicalCopyAllReduce`, `ReductionToOneDevice`): what
//! `MirroredStrategy(cross_device_ops=...)` takes, and their own `reduce`,
//! `batch_reduce` and `broadcast` in a cross-replica context. The reductions
//! are the strategy's (`strategy::reduce_to_devices`).

use std::any::Any;
use std::rc::Rc;

use super::classes::{self, constructor, method};
use super::devices::device_arg;
use super::reduce::{Op, ReduceOpObj};
use super::strategy::{destination, qualified, reduce_to_devices, Kind, StrategyObj};
use super::values::components;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::runtime::Device;
use crate::value::{Args, Class, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `tf.distribute.NcclAllReduce` and friends: every reduction here runs as
/// `ReductionToOneDevice` would (same results).
pub struct CrossDeviceOps {
    name: &'static str,
}

impl NativeObject for CrossDeviceOps {
    fn type_name(&self) -> &str {
        self.name
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(classes::class(self.name))
    }
    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let _ = cross_device_class();
        Ok(classes::bound(&classes::class(self.name), this, name))
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{} object at {:#x}>",
            qualified(&classes::class(self.name)),
            this.id()
        ))
    }
}

fn nccl_new(_vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    Ok(Value::native(CrossDeviceOps {
        name: "NcclAllReduce",
    }))
}
fn hierarchical_new(_vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    Ok(Value::native(CrossDeviceOps {
        name: "HierarchicalCopyAllReduce",
    }))
}
fn to_one_new(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    if let Some(d) = args.opt(0) {
        device_arg(vm, d)?;
    }
    Ok(Value::native(CrossDeviceOps {
        name: "ReductionToOneDevice",
    }))
}

/// The op of `CrossDeviceOps.reduce`: a `tf.distribute.ReduceOp` (no strings here).
fn strict_op(v: &Value) -> PyResult<Op> {
    v.downcast::<ReduceOpObj>().map(|o| o.0).ok_or_else(|| {
        PyErr::new(
            ExcType::ValueError,
            "`reduce_op` must be Reduce.SUM or Reduce.MEAN.",
        )
    })
}

/// `value` reduced to `destinations` as a cross-device op reduces it: over
/// the devices of its components (a plain tensor is one component).
fn reduce_value_to(
    vm: &dyn Vm,
    op: &Value,
    value: &Value,
    destinations: &Value,
) -> PyResult<Value> {
    let dest = destination(vm, destinations)?;
    // TensorFlow's shortcut, taken before it looks at the op: a single
    // value already on the one destination is returned as it is
    if let Value::Tensor(t) = value {
        if dest.len() == 1 && t.device() == dest[0] {
            return Ok(value.clone());
        }
    }
    let op = strict_op(op)?;
    let devices = match components(value) {
        Some(_) => destination(vm, value)?,
        None => vec![Device::CPU0],
    };
    let s = StrategyObj {
        kind: Kind::Mirrored,
        devices,
        extended: Value::None,
    };
    reduce_to_devices(vm, &s, op, value, &dest)
}

fn cdo_reduce(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    reduce_value_to(vm, args.get(1), args.get(2), args.get(3))
}

fn cdo_batch_reduce(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    strict_op(args.get(1))?;
    let mut out = Vec::new();
    for pair in vm.collect(args.get(2))? {
        let items = vm.collect(&pair)?;
        let [value, dst] = items.as_slice() else {
            return Err(PyErr::new(
                ExcType::ValueError,
                "value_destination_pairs must be a list or a tuple of tuples of PerReplica objects and destinations",
            ));
        };
        out.push(reduce_value_to(vm, args.get(1), value, dst)?);
    }
    Ok(Value::list(out))
}

/// `tensor` copied to the devices `destinations` names: the tensor itself
/// for one device, a `Mirrored` of copies for several.
pub fn broadcast(vm: &dyn Vm, tensor: &Value, destinations: &Value) -> PyResult<Value> {
    let dest = destination(vm, destinations)?;
    let t = to_tensor(vm, tensor, None)?;
    let copies = dest
        .iter()
        .map(|&d| t.to_device(d).map(Value::Tensor))
        .collect::<crate::runtime::Result<Vec<_>>>()
        .map_err(runtime_err)?;
    if copies.len() == 1 {
        return Ok(copies.into_iter().next().unwrap_or(Value::None));
    }
    Ok(super::values::mirrored(copies))
}

fn cdo_broadcast(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    broadcast(vm, args.get(1), args.get(2))
}

/// The methods every cross-device op has.
fn cross_device_class() -> Rc<Class> {
    let c = classes::class("CrossDeviceOps");
    if c.dict.borrow().get("reduce").is_none() {
        method(
            &c,
            "CrossDeviceOps.reduce(self, reduce_op, per_replica_value, destinations, options=None)",
            cdo_reduce,
            "Reduces a distributed value to `destinations` (a tensor for one device, else Mirrored).",
        );
        method(
            &c,
            "CrossDeviceOps.batch_reduce(self, reduce_op, value_destination_pairs, options=None)",
            cdo_batch_reduce,
            "`reduce` of each (value, destinations) pair.",
        );
        method(
            &c,
            "CrossDeviceOps.broadcast(self, tensor, destinations)",
            cdo_broadcast,
            "Copies `tensor` to the devices of `destinations`.",
        );
    }
    c
}

/// Registers the cross-device ops under `tf.distribute`.
pub fn register(m: &mut crate::modules::ModuleBuilder) {
    m.value("CrossDeviceOps", Value::Class(cross_device_class()));
    for (name, f) in [
        ("NcclAllReduce", nccl_new as crate::value::NativeFn),
        ("HierarchicalCopyAllReduce", hierarchical_new),
        ("ReductionToOneDevice", to_one_new),
    ] {
        let c = classes::class(name);
        let sig = match name {
            "ReductionToOneDevice" => {
                "ReductionToOneDevice.__init__(reduce_to_device=None, accumulation_fn=None)"
            }
            "NcclAllReduce" => "NcclAllReduce.__init__(num_packs=1)",
            _ => "HierarchicalCopyAllReduce.__init__(num_packs=1)",
        };
        constructor(
            &c,
            sig,
            f,
            "Cross-device reduction algorithm (all give the same results here).",
        );
        m.value(name, Value::Class(c));
    }
}
