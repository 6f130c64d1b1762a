//! Distributed values: `PerReplica` (one possibly different value per
//! replica) and `Mirrored` (the same value on every replica), with
//! TensorFlow's `str`/`repr` (`PerReplica:{\n  0: …,\n  1: …\n}`) and
//! `.values`. Used where a tensor is needed, they raise TensorFlow's errors
//! with a help line naming the ways out.

use super::classes::{
    getters, native_class, DISTRIBUTED_DELEGATE, TYPES_MIRRORED, TYPES_PER_REPLICA, VALUES,
    VALUES_DISTRIBUTED_VALUES,
};
use crate::object::tensor::classes::COMPOSITE_TENSOR;
use crate::object::{ClassSpec, Member};
use crate::runtime::Tensor;
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// Which kind of distributed value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DistKind {
    /// `PerReplica`.
    PerReplica,
    /// `Mirrored`.
    Mirrored,
}

/// A `PerReplica` or `Mirrored` value: one component per replica.
pub struct DistValues {
    /// Which kind.
    pub kind: DistKind,
    /// The components, in replica order.
    pub values: Vec<Value>,
}

/// The help line every misuse of a distributed value gets.
pub const WAYS_OUT: &str = "combine the replicas' values first: strategy.reduce(op, value, axis), strategy.gather(value, axis), \
                            or take them apart with strategy.experimental_local_results(value)";

/// `values.PerReplica`.
pub static PER_REPLICA: ClassSpec = ClassSpec {
    name: "PerReplica",
    module: VALUES,
    bases: &[
        &VALUES_DISTRIBUTED_VALUES,
        &COMPOSITE_TENSOR,
        &TYPES_PER_REPLICA,
    ],
    members: &[
        Member::Getter(values::DEF),
        Member::Getter(private_values::DEF),
    ],
};

/// `values.Mirrored`.
pub static MIRRORED: ClassSpec = ClassSpec {
    name: "Mirrored",
    module: VALUES,
    bases: &[&DISTRIBUTED_DELEGATE, &TYPES_MIRRORED],
    members: &[
        Member::Getter(values::DEF),
        Member::Getter(private_values::DEF),
    ],
};

native_class!(DistValues: PER_REPLICA);

getters! { this: &DistValues;
    /// The components, one per replica.
    fn values("DistributedValues.values(self)") -> Value { Value::tuple(this.values.clone()) }
    /// The components (TensorFlow's private name, which scripts reach for).
    fn private_values("DistributedValues._values(self)") -> Value {
        Value::tuple(this.values.clone())
    }
}

/// A `PerReplica` value holding one component per replica (in replica order).
pub fn per_replica(values: Vec<Value>) -> Value {
    Value::native(DistValues {
        kind: DistKind::PerReplica,
        values,
    })
}

/// A `Mirrored` value.
pub fn mirrored(values: Vec<Value>) -> Value {
    Value::native(DistValues {
        kind: DistKind::Mirrored,
        values,
    })
}

/// True for a `Mirrored` value.
pub fn is_mirrored(v: &Value) -> bool {
    v.downcast::<DistValues>()
        .is_some_and(|d| d.kind == DistKind::Mirrored)
}

/// The components of a `PerReplica`/`Mirrored` value.
pub fn components(v: &Value) -> Option<&[Value]> {
    v.downcast::<DistValues>().map(|d| d.values.as_slice())
}

/// `PerReplica:{\n  0: …,\n  1: …\n}` with each component's str or repr.
pub fn render(name: &str, values: &[Value], vm: &dyn Vm, repr: bool) -> PyResult<String> {
    let mut parts = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        let s = if repr { vm.repr(v)? } else { vm.str(v)? };
        parts.push(format!("  {i}: {s}"));
    }
    Ok(format!("{name}:{{\n{}\n}}", parts.join(",\n")))
}

impl NativeObject for DistValues {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(match self.kind {
            DistKind::PerReplica => &PER_REPLICA,
            DistKind::Mirrored => &MIRRORED,
        })
    }
    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        render(self.type_name(), &self.values, vm, true)
    }
    fn str(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        render(self.type_name(), &self.values, vm, false)
    }
    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        _vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let other_name = other.type_name();
        let (l, r) = if reflected {
            (other_name.as_str(), self.type_name())
        } else {
            (self.type_name(), other_name.as_str())
        };
        Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "unsupported operand type(s) for {}: '{l}' and '{r}'",
                op.symbol()
            ),
        )
        .help(WAYS_OUT))
    }
    fn to_tensor(&self, vm: &dyn Vm) -> PyResult<Option<Tensor>> {
        if let Some(i) = vm.current_replica() {
            if self.kind == DistKind::Mirrored {
                if let Some(Value::Tensor(t)) = self.values.get(i) {
                    return Ok(Some(t.clone()));
                }
            }
        }
        Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "It looks like you are using a {} object while not inside a replica context, which is not supported. \
                 Try running your op or function inside a replica context by using `strategy.run`",
                self.type_name()
            ),
        )
        .help(WAYS_OUT))
    }
}
