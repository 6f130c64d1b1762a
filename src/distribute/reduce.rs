//! `tf.distribute.ReduceOp` and the cross-replica arithmetic behind
//! `strategy.reduce`, `ReplicaContext.all_reduce` and `all_gather`: sums
//! and means of the replicas' tensors (in replica order, on the destination
//! device), and concatenation along an axis. Semantics follow TensorFlow's
//! `cross_device_ops.py` (`ReductionToOneDevice`): a mean is the sum
//! divided by the replica count with `truediv`'s dtype rules.

use super::classes::{getters, member_names, native_class};
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::{ops, trace, Device, Scalar, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A reduction across replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `ReduceOp.SUM`.
    Sum,
    /// `ReduceOp.MEAN`.
    Mean,
}

impl Op {
    /// `SUM` / `MEAN`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Sum => "SUM",
            Op::Mean => "MEAN",
        }
    }
}

/// A `tf.distribute.ReduceOp` member.
pub struct ReduceOpObj(pub Op);

/// `tf.distribute.ReduceOp`, an enum with `SUM` and `MEAN`.
pub static REDUCE_OP: ClassSpec = ClassSpec {
    name: "ReduceOp",
    module: "tensorflow.python.distribute.reduce_util",
    bases: &[],
    members: &[
        Member::Attr("SUM", || Value::native(ReduceOpObj(Op::Sum))),
        Member::Attr("MEAN", || Value::native(ReduceOpObj(Op::Mean))),
        Member::Attr("_member_names_", || member_names(&["SUM", "MEAN"])),
        Member::New(reduce_op_new::DEF),
        Member::StaticMethod(from_variable_aggregation::DEF),
        Member::Getter(reduce_op_name::DEF),
        Member::Getter(reduce_op_value::DEF),
    ],
};

native_class!(ReduceOpObj: REDUCE_OP);

impl NativeObject for ReduceOpObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&REDUCE_OP)
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<ReduceOp.{0}: '{0}'>", self.0.name()))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("ReduceOp.{}", self.0.name()))
    }
    fn equals(&self, _this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        let same = other
            .downcast::<ReduceOpObj>()
            .is_some_and(|o| o.0 == self.0);
        Ok(Some(same))
    }
}

getters! { this: &ReduceOpObj;
    /// The member's name.
    fn reduce_op_name("ReduceOp.name(self)") -> &'static str { this.0.name() }
    /// The member's value (its name).
    fn reduce_op_value("ReduceOp.value(self)") -> &'static str { this.0.name() }
}

/// A reduction across replicas: SUM or MEAN.
#[native("ReduceOp(value)")]
fn reduce_op_new(vm: &dyn Vm, value: &Value) -> PyResult<Value> {
    if value.downcast::<ReduceOpObj>().is_some() {
        return Ok(value.clone());
    }
    match value {
        // an Enum call returns the member itself (`ReduceOp("SUM") is ReduceOp.SUM`)
        Value::Str(s) if &**s == "SUM" || &**s == "MEAN" => REDUCE_OP
            .class()
            .lookup(s)
            .ok_or_else(|| PyErr::new(ExcType::RuntimeError, "ReduceOp has no members")),
        other => Err(PyErr::new(
            ExcType::ValueError,
            format!("{} is not a valid ReduceOp", vm.repr(other)?),
        )),
    }
}

/// The ReduceOp of a `tf.VariableAggregation`: SUM or MEAN (the others have none).
#[native("ReduceOp.from_variable_aggregation(aggregation)")]
fn from_variable_aggregation(vm: &dyn Vm, aggregation: &Value) -> PyResult<Value> {
    let name = vm.getattr(aggregation, "name").ok();
    match name {
        Some(Value::Str(s)) if &*s == "SUM" => Ok(Value::native(ReduceOpObj(Op::Sum))),
        Some(Value::Str(s)) if &*s == "MEAN" => Ok(Value::native(ReduceOpObj(Op::Mean))),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            format!("Could not convert from `tf.VariableAggregation` {} to`tf.distribute.ReduceOp` type", vm.str(aggregation)?),
        )),
    }
}

/// A reduce op argument: a `ReduceOp` or its name in any case.
pub fn parse_op(vm: &dyn Vm, v: &Value) -> PyResult<Op> {
    if let Some(o) = v.downcast::<ReduceOpObj>() {
        return Ok(o.0);
    }
    match v {
        Value::Str(s) => match s.to_ascii_uppercase().as_str() {
            "SUM" => Ok(Op::Sum),
            "MEAN" => Ok(Op::Mean),
            up => Err(PyErr::new(ExcType::ValueError, format!("'{up}' is not a valid ReduceOp"))
                .help("the reductions across replicas are tf.distribute.ReduceOp.SUM and tf.distribute.ReduceOp.MEAN")),
        },
        other => Err(PyErr::new(ExcType::ValueError, format!("{} is not a valid ReduceOp", vm.repr(other)?))),
    }
}

/// One replica's value as a tensor on `dest`.
pub fn tensor_on(vm: &dyn Vm, v: &Value, dest: Device) -> PyResult<Tensor> {
    let t = to_tensor(vm, v, None)?;
    t.to_device(dest).map_err(runtime_err)
}

/// The sum of one tensor per real GPU, by NCCL on the cards (`None` when
/// the replicas are not one per card: the copy-and-add path applies).
fn card_sum(vm: &dyn Vm, parts: &[Value], dest: Device) -> PyResult<Option<Tensor>> {
    if !parts.iter().all(|p| matches!(p, Value::Tensor(_))) {
        return Ok(None);
    }
    let ts = parts
        .iter()
        .map(|p| to_tensor(vm, p, None))
        .collect::<PyResult<Vec<_>>>()?;
    match crate::runtime::collective::all_reduce_sum(&ts).map_err(runtime_err)? {
        Some(sums) => {
            let here = sums.iter().find(|t| t.device() == dest).unwrap_or(&sums[0]);
            Ok(Some(here.to_device(dest).map_err(runtime_err)?))
        }
        None => Ok(None),
    }
}

/// The sum or mean of the replicas' tensors, computed on `dest` (one pass
/// over all the replicas' buffers where shapes and dtypes agree).
pub fn reduce_tensors(vm: &dyn Vm, op: Op, parts: &[Value], dest: Device) -> PyResult<Tensor> {
    let _trace = trace::collective(
        || format!("reduce {}", op.name()),
        dest,
        parts.len(),
        || value_bytes(parts),
        true,
    );
    let mut acc: Option<Tensor> = card_sum(vm, parts, dest)?;
    if acc.is_none() && !parts.is_empty() {
        let ts = parts
            .iter()
            .map(|p| tensor_on(vm, p, dest))
            .collect::<PyResult<Vec<_>>>()?;
        acc = Some(ops::add_n(&ts).map_err(runtime_err)?);
    }
    let sum = acc.ok_or_else(|| PyErr::new(ExcType::ValueError, "nothing to reduce"))?;
    match op {
        Op::Sum => Ok(sum),
        Op::Mean => {
            let n = Tensor::fill(&[], &Scalar::Int(parts.len() as i64), sum.dtype(), dest)
                .map_err(runtime_err)?;
            ops::truediv(&sum, &n).map_err(runtime_err)
        }
    }
}

/// The replicas' tensors concatenated along `axis`, on `dest`.
pub fn gather_tensors(vm: &dyn Vm, parts: &[Value], axis: i64, dest: Device) -> PyResult<Tensor> {
    let _trace = trace::collective(
        || format!("gather axis={axis}"),
        dest,
        parts.len(),
        || value_bytes(parts),
        true,
    );
    let ts = parts
        .iter()
        .map(|p| tensor_on(vm, p, dest))
        .collect::<PyResult<Vec<_>>>()?;
    ops::concat(&ts, axis).map_err(runtime_err)
}

/// The bytes of the tensors among `values` and their nests (for `--trace`).
pub fn value_bytes(values: &[Value]) -> u64 {
    values
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => (t.numel() * t.dtype().size()) as u64,
            Value::Tuple(items) => value_bytes(items),
            Value::List(items) => value_bytes(&items.borrow()),
            _ => 0,
        })
        .sum()
}
