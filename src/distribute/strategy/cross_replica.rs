//! The cross-replica reductions of a strategy: `strategy.reduce` (across
//! the replicas, optionally along axes too), `strategy.gather`, and the
//! reduction to destination devices behind `extended.reduce_to` and the
//! cross-device ops. Collectives inside replica functions are in
//! `replica_ctx`.

use super::{needs_cross_replica, Kind, StrategyObj, CROSS_MSG};
use crate::distribute::context::{in_replica_fn, scoped_device};
use crate::distribute::devices::device_arg;
use crate::distribute::nest::{contains_distributed, is_structure, map_nest, select_replica};
use crate::distribute::reduce::{gather_tensors, parse_op, reduce_tensors, tensor_on, Op};
use crate::distribute::values::components;
use crate::distribute::variables;
use crate::object::native;
use crate::object::tensor::convert::runtime_err;
use crate::runtime::{ops, Device, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

fn dest_device(vm: &dyn Vm) -> Device {
    scoped_device(vm).unwrap_or(Device::CPU0)
}

fn axis_of(vm: &dyn Vm, v: &Value) -> PyResult<Option<i64>> {
    match v {
        Value::None => Ok(None),
        Value::Int(i) => Ok(Some(*i)),
        Value::Tensor(t) => match t.item() {
            Ok(Scalar::Int(i)) => Ok(Some(i)),
            _ => Err(PyErr::new(ExcType::TypeError, "axis must be an int")),
        },
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!("axis must be an int, not {}", vm.repr(other)?),
        )),
    }
}

fn norm_axis(axis: i64, rank: usize) -> PyResult<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("Invalid reduction dimension {axis} for input with {rank} dimensions."),
        ));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

/// `strategy.reduce`'s axis: None, an int, or a tuple of ints. TensorFlow
/// caches its per-axis reduction functions in a dict keyed by the axis, so
/// a list fails there as unhashable.
fn reduce_axes_of(vm: &dyn Vm, v: &Value) -> PyResult<Option<Vec<i64>>> {
    match v {
        Value::Tuple(items) => items
            .iter()
            .map(|a| Ok(axis_of(vm, a)?.unwrap_or(0)))
            .collect::<PyResult<Vec<_>>>()
            .map(Some),
        Value::List(_) => Err(PyErr::new(ExcType::TypeError, "unhashable type: 'list'")),
        other => Ok(axis_of(vm, other)?.map(|a| vec![a])),
    }
}

/// Sums `t` along `axes`; with the element count along them for means.
fn sum_along(t: &Tensor, axes: &[i64]) -> PyResult<(Tensor, i64)> {
    let mut count = 1i64;
    for &axis in axes {
        count *= t.dims()[norm_axis(axis, t.rank())?] as i64;
    }
    let s =
        ops::reduce(crate::runtime::ReduceOp::Sum, t, Some(axes), false).map_err(runtime_err)?;
    Ok((s, count))
}

/// The values each replica contributes (a plain value counts once per replica).
fn replica_parts(v: &Value, n: usize) -> Vec<Value> {
    match components(v) {
        Some(c) => c.to_vec(),
        None => match variables::local_values(v) {
            Some(c) => c,
            None => vec![v.clone(); n],
        },
    }
}

/// The cross-replica reduction (`strategy.reduce`).
pub fn reduce_value(
    vm: &dyn Vm,
    s: &StrategyObj,
    op: Op,
    value: &Value,
    axis: Option<Vec<i64>>,
) -> PyResult<Value> {
    if axis.is_none() && s.kind == Kind::Mirrored && is_structure(value) {
        // A nested structure is reduced leaf by leaf (TensorFlow's nest walk).
        return map_nest(value, &mut |leaf| reduce_value(vm, s, op, leaf, None));
    }
    if axis.is_some() && s.kind == Kind::Mirrored && is_structure(value) {
        // TensorFlow fails inside its graph code here ("in user code: …
        // Expected any non-tensor type, but got a tensor instead").
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "in user code: Expected any non-tensor type, but got a tensor instead (strategy.reduce with an axis got a {})",
                value.type_name()
            ),
        )
        .help("with an axis, reduce one distributed value at a time, or pass axis=None to reduce a nested structure leaf by leaf"));
    }
    let n = s.devices.len();
    let dest = dest_device(vm);
    let distributed = components(value).is_some() || variables::is_distributed_variable(value);
    if let Some(axis) = axis {
        let parts = replica_parts(value, if distributed { n } else { n.max(1) });
        let mut numers = Vec::new();
        let mut denom = 0i64;
        for (i, p) in parts.iter().enumerate() {
            let dev = s.devices.get(i).copied().unwrap_or(dest);
            let t = tensor_on(vm, p, dev)?;
            let (sum, count) = sum_along(&t, &axis)?;
            numers.push(Value::Tensor(sum));
            denom += count;
        }
        let numer = reduce_tensors(vm, Op::Sum, &numers, dest)?;
        return Ok(Value::Tensor(match op {
            Op::Sum => numer,
            Op::Mean => {
                let d = Tensor::fill(&[], &Scalar::Int(denom), numer.dtype(), dest)
                    .map_err(runtime_err)?;
                ops::truediv(&numer, &d).map_err(runtime_err)?
            }
        }));
    }
    if s.kind != Kind::Mirrored {
        return Ok(value.clone());
    }
    if !distributed {
        if n == 1 {
            return Ok(Value::Tensor(tensor_on(vm, value, dest)?));
        }
        if op == Op::Mean {
            return Ok(value.clone());
        }
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "A non-DistributedValues value {} cannot be reduced with the given reduce op ReduceOp.{}.",
                vm.str(value)?,
                op.name()
            ),
        )
        .help("summing one value over every replica is ambiguous: pass the PerReplica result of strategy.run"));
    }
    let parts = replica_parts(value, n);
    if let Some(r) = crate::distribute::sparse_reduce::reduce_sparse(vm, op, &parts, dest)? {
        return Ok(r);
    }
    Ok(Value::Tensor(reduce_tensors(vm, op, &parts, dest)?))
}

/// Reduces a per-replica value across replicas (SUM or MEAN), optionally along `axis` too.
#[native("StrategyBase.reduce(self, reduce_op, value, axis)")]
pub(super) fn reduce(
    vm: &dyn Vm,
    this: &StrategyObj,
    reduce_op: &Value,
    value: &Value,
    axis: &Value,
) -> PyResult<Value> {
    if in_replica_fn(vm) {
        return Err(needs_cross_replica(CROSS_MSG));
    }
    let op = parse_op(vm, reduce_op)?;
    let axis = reduce_axes_of(vm, axis)?;
    if axis.is_none() {
        if let Some(v) = reduce_mirrored(this, op, value)? {
            // `_local_results(reduce_to(...))[0]`
            let first = components(&v)
                .map(|c| c[0].clone())
                .or_else(|| variables::local_values(&v).map(|c| c[0].clone()));
            return Ok(first.unwrap_or(v));
        }
    }
    reduce_value(vm, this, op, value, axis)
}

/// MirroredStrategy's `reduce_to` of a value already mirrored (a `Mirrored`
/// or a MirroredVariable) with MEAN returns it as it is (None for other
/// values and ops). With SUM TensorFlow fails a bare `assert not
/// is_mirrored(value)`; dist sums the copies instead, as for a PerReplica
/// (tests/golden/distribute/dist_only/reduce_mirrored_variable).
pub(super) fn reduce_mirrored(s: &StrategyObj, op: Op, value: &Value) -> PyResult<Option<Value>> {
    let mirrored =
        crate::distribute::values::is_mirrored(value) || variables::is_mirrored_variable(value);
    if s.kind != Kind::Mirrored || !mirrored || op != Op::Mean {
        return Ok(None);
    }
    Ok(Some(value.clone()))
}

/// Concatenates the replicas' values along `axis`.
#[native("Strategy.gather(self, value, axis)")]
pub(super) fn gather(
    vm: &dyn Vm,
    this: &StrategyObj,
    value: &Value,
    axis: &Value,
) -> PyResult<Value> {
    if components(value).is_some() || variables::local_values(value).is_some() {
        crate::distribute::devices::shared_device_collective(vm, &this.devices, "Strategy.gather");
    }
    if in_replica_fn(vm) {
        return Err(needs_cross_replica(
            "tf.distribute.Strategy.gather method requires cross-replica context, use get_replica_context().all_gather() instead",
        ));
    }
    let axis = axis_of(vm, axis)?.unwrap_or(0);
    let var_parts = variables::local_values(value);
    match components(value).or(var_parts.as_deref()) {
        Some(parts) => Ok(Value::Tensor(gather_tensors(
            vm,
            parts,
            axis,
            dest_device(vm),
        )?)),
        // TensorFlow 2.21 gathers only a distributed value itself: for a
        // nested structure holding some it returns the first replica's
        // structure (checked with the oracle).
        None if is_structure(value) && contains_distributed(value) => select_replica(0, value),
        None => Ok(value.clone()),
    }
}

/// The devices `destinations` names: a device string or a tensor's device
/// (one), every component's device of a distributed value or variable, or
/// the default destination.
pub fn destination(vm: &dyn Vm, v: &Value) -> PyResult<Vec<Device>> {
    match v {
        Value::Str(_) => Ok(vec![device_arg(vm, v)?]),
        Value::Tensor(t) => Ok(vec![t.device()]),
        other => {
            if let Some(parts) = components(other) {
                let devices: Option<Vec<Device>> = parts
                    .iter()
                    .map(|p| match p {
                        Value::Tensor(t) => Some(t.device()),
                        _ => variables::primary_device(p),
                    })
                    .collect();
                if let Some(d) = devices.filter(|d| !d.is_empty()) {
                    return Ok(d);
                }
            }
            Ok(variables::variable_devices(other).unwrap_or_else(|| vec![dest_device(vm)]))
        }
    }
}

/// `value` reduced across the replicas to `dest`: a tensor on one device,
/// or, for several destination devices, a Mirrored value with a copy on each
/// (as TensorFlow's cross-device ops broadcast the result).
pub fn reduce_to_devices(
    vm: &dyn Vm,
    s: &StrategyObj,
    op: Op,
    value: &Value,
    dest: &[Device],
) -> PyResult<Value> {
    if components(value).is_none() && !variables::is_distributed_variable(value) {
        return reduce_value(vm, s, op, value, None);
    }
    let parts = replica_parts(value, s.devices.len());
    if let Some(r) = crate::distribute::sparse_reduce::reduce_sparse(vm, op, &parts, dest[0])? {
        if dest.len() == 1 {
            return Ok(r);
        }
        let copies = dest
            .iter()
            .map(|&d| crate::distribute::sparse_reduce::value_on(vm, &r, d))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(crate::distribute::values::mirrored(copies));
    }
    let reduced = reduce_tensors(vm, op, &parts, dest[0])?;
    if dest.len() == 1 {
        return Ok(Value::Tensor(reduced));
    }
    let copies = dest
        .iter()
        .map(|&d| reduced.to_device(d).map(Value::Tensor))
        .collect::<crate::runtime::Result<Vec<_>>>()
        .map_err(crate::object::tensor::convert::runtime_err)?;
    Ok(crate::distribute::values::mirrored(copies))
}
