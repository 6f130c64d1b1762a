//! `tf.distribute.CrossDeviceOps` and its implementations (`NcclAllReduce`,
//! `HierarchicalCopyAllReduce`, `ReductionToOneDevice`): what
//! `MirroredStrategy(cross_device_ops=...)` takes, and their own `reduce`,
//! `batch_reduce` and `broadcast` in a cross-replica context. The reductions
//! are the strategy's (`strategy::reduce_to_devices`).

use super::classes::object_repr;
use super::devices::device_arg;
use super::reduce::{Op, ReduceOpObj};
use super::strategy::{destination, reduce_to_devices, Kind, StrategyObj};
use super::values::components;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::Device;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `tf.distribute.NcclAllReduce` and friends: every reduction here runs as
/// `ReductionToOneDevice` would (same results).
pub struct CrossDeviceOps {
    spec: &'static ClassSpec,
}

const CROSS_DEVICE: &str = "tensorflow.python.distribute.cross_device_ops";

/// `tf.distribute.CrossDeviceOps`, with the methods every implementation has.
pub static CROSS_DEVICE_OPS: ClassSpec = ClassSpec {
    name: "CrossDeviceOps",
    module: CROSS_DEVICE,
    bases: &[],
    members: &[
        Member::Method(cdo_reduce::DEF),
        Member::Method(cdo_batch_reduce::DEF),
        Member::Method(cdo_broadcast::DEF),
    ],
};

/// `tf.distribute.NcclAllReduce`.
pub static NCCL_ALL_REDUCE: ClassSpec = ClassSpec {
    name: "NcclAllReduce",
    module: CROSS_DEVICE,
    bases: &[&CROSS_DEVICE_OPS],
    members: &[Member::New(nccl_new::DEF)],
};

/// `tf.distribute.HierarchicalCopyAllReduce`.
pub static HIERARCHICAL_COPY_ALL_REDUCE: ClassSpec = ClassSpec {
    name: "HierarchicalCopyAllReduce",
    module: CROSS_DEVICE,
    bases: &[&CROSS_DEVICE_OPS],
    members: &[Member::New(hierarchical_new::DEF)],
};

/// `tf.distribute.ReductionToOneDevice`.
pub static REDUCTION_TO_ONE_DEVICE: ClassSpec = ClassSpec {
    name: "ReductionToOneDevice",
    module: CROSS_DEVICE,
    bases: &[&CROSS_DEVICE_OPS],
    members: &[Member::New(to_one_new::DEF)],
};

impl NativeObject for CrossDeviceOps {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.spec)
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(self.spec, this))
    }
}

/// Cross-device reduction algorithm (all give the same results here).
#[native("NcclAllReduce.__init__(num_packs=1)")]
fn nccl_new(_num_packs: &Value) -> Value {
    Value::native(CrossDeviceOps {
        spec: &NCCL_ALL_REDUCE,
    })
}

/// Cross-device reduction algorithm (all give the same results here).
#[native("HierarchicalCopyAllReduce.__init__(num_packs=1)")]
fn hierarchical_new(_num_packs: &Value) -> Value {
    Value::native(CrossDeviceOps {
        spec: &HIERARCHICAL_COPY_ALL_REDUCE,
    })
}

/// Cross-device reduction algorithm (all give the same results here).
#[native("ReductionToOneDevice.__init__(reduce_to_device=None, accumulation_fn=None)")]
fn to_one_new(
    vm: &dyn Vm,
    reduce_to_device: Option<&Value>,
    _accumulation_fn: &Value,
) -> PyResult<Value> {
    if let Some(d) = reduce_to_device {
        device_arg(vm, d)?;
    }
    Ok(Value::native(CrossDeviceOps {
        spec: &REDUCTION_TO_ONE_DEVICE,
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
        flavor: crate::distribute::strategy::Flavor::Own,
        resolver: Value::None,
        names: devices.clone(),
        devices,
        extended: Value::None,
        input_hosts: Default::default(),
    };
    reduce_to_devices(vm, &s, op, value, &dest)
}

/// Reduces a distributed value to `destinations` (a tensor for one device, else Mirrored).
#[native("CrossDeviceOps.reduce(self, reduce_op, per_replica_value, destinations, options=None)")]
fn cdo_reduce(
    vm: &dyn Vm,
    _this: &Value,
    reduce_op: &Value,
    per_replica_value: &Value,
    destinations: &Value,
    _options: &Value,
) -> PyResult<Value> {
    reduce_value_to(vm, reduce_op, per_replica_value, destinations)
}

/// `reduce` of each (value, destinations) pair.
#[native("CrossDeviceOps.batch_reduce(self, reduce_op, value_destination_pairs, options=None)")]
fn cdo_batch_reduce(
    vm: &dyn Vm,
    _this: &Value,
    reduce_op: &Value,
    value_destination_pairs: &Value,
    _options: &Value,
) -> PyResult<Value> {
    strict_op(reduce_op)?;
    let mut out = Vec::new();
    for pair in vm.collect(value_destination_pairs)? {
        let items = vm.collect(&pair)?;
        let [value, dst] = items.as_slice() else {
            return Err(PyErr::new(
                ExcType::ValueError,
                "value_destination_pairs must be a list or a tuple of tuples of PerReplica objects and destinations",
            ));
        };
        out.push(reduce_value_to(vm, reduce_op, value, dst)?);
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

/// Copies `tensor` to the devices of `destinations`.
#[native("CrossDeviceOps.broadcast(self, tensor, destinations)")]
fn cdo_broadcast(
    vm: &dyn Vm,
    _this: &Value,
    tensor: &Value,
    destinations: &Value,
) -> PyResult<Value> {
    broadcast(vm, tensor, destinations)
}
