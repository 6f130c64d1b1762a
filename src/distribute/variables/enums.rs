//! `tf.VariableAggregation` and `tf.VariableSynchronization`: Python enums
//! whose members are one object each (so `v.synchronization is
//! tf.VariableSynchronization.ON_WRITE`, and every replica returning a
//! member regroups to the member itself). `tf.VariableAggregation` is
//! TensorFlow's `VariableAggregationV2`; a variable without aggregation
//! shows the V1 enum's `NONE`.

use crate::distribute::classes::{getters, member_names, native_class, VARIABLES};
use crate::object::{ClassSpec, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `tf.VariableAggregation` members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agg {
    /// `NONE`.
    None,
    /// `SUM`.
    Sum,
    /// `MEAN`.
    Mean,
    /// `ONLY_FIRST_REPLICA`.
    OnlyFirst,
}

/// `tf.VariableSynchronization` members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// `AUTO`.
    Auto,
    /// `NONE`.
    None,
    /// `ON_WRITE`.
    OnWrite,
    /// `ON_READ`.
    OnRead,
}

/// A member of one of the enums.
pub struct EnumObj {
    spec: &'static ClassSpec,
    member: &'static str,
    value: i64,
}

const AGGS: [(&str, Agg); 4] = [
    ("NONE", Agg::None),
    ("SUM", Agg::Sum),
    ("MEAN", Agg::Mean),
    ("ONLY_FIRST_REPLICA", Agg::OnlyFirst),
];
const SYNCS: [(&str, Sync); 4] = [
    ("AUTO", Sync::Auto),
    ("NONE", Sync::None),
    ("ON_WRITE", Sync::OnWrite),
    ("ON_READ", Sync::OnRead),
];

/// The members of an int-valued enum class `$spec`, one object each (a
/// class attribute), named and numbered by the table `$names`, with
/// `_member_names_`, `name` and `value`.
macro_rules! int_enum {
    ($spec:ident: $names:ident, $($i:literal)+) => {
        &[
            $(Member::Attr($names[$i].0, || member_of(&$spec, $names[$i].0, $i)),)+
            Member::Attr("_member_names_", || member_names(&$names.map(|(m, _)| m))),
            Member::Getter(enum_name::DEF),
            Member::Getter(enum_value::DEF),
        ]
    };
}

/// `tf.VariableAggregation`.
pub static VARIABLE_AGGREGATION_V2: ClassSpec = ClassSpec {
    name: "VariableAggregationV2",
    module: VARIABLES,
    bases: &[],
    members: int_enum!(VARIABLE_AGGREGATION_V2: AGGS, 0 1 2 3),
};

/// `tf.compat.v1.VariableAggregation`.
pub static VARIABLE_AGGREGATION: ClassSpec = ClassSpec {
    name: "VariableAggregation",
    module: VARIABLES,
    bases: &[],
    members: int_enum!(VARIABLE_AGGREGATION: AGGS, 0 1 2 3),
};

/// `tf.VariableSynchronization`.
pub static VARIABLE_SYNCHRONIZATION: ClassSpec = ClassSpec {
    name: "VariableSynchronization",
    module: VARIABLES,
    bases: &[],
    members: int_enum!(VARIABLE_SYNCHRONIZATION: SYNCS, 0 1 2 3),
};

/// The member `member` (numbered `value`) of the enum class `spec` (made
/// once, with its class).
fn member_of(spec: &'static ClassSpec, member: &'static str, value: i64) -> Value {
    Value::native(EnumObj {
        spec,
        member,
        value,
    })
}

native_class!(EnumObj: VARIABLE_AGGREGATION_V2);

impl NativeObject for EnumObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.spec)
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{}.{}: {}>",
            self.spec.name, self.member, self.value
        ))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("{}.{}", self.spec.name, self.member))
    }
    fn equals(&self, _this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        // the V1 and V2 aggregation enums compare equal member by member
        let same = other.downcast::<EnumObj>().is_some_and(|o| {
            o.value == self.value && o.spec.name.starts_with(&self.spec.name[..12])
        });
        Ok(Some(same))
    }
}

getters! { this: &EnumObj;
    /// The member's name.
    fn enum_name("Enum.name(self)") -> &'static str { this.member }
    /// The member's value.
    fn enum_value("Enum.value(self)") -> i64 { this.value }
}

/// Member `name` of the enum class `spec` (the one object its class holds).
fn member(spec: &'static ClassSpec, name: &str) -> Value {
    spec.class().lookup(name).unwrap_or(Value::None)
}

/// The `aggregation` of a variable: a member of `tf.VariableAggregation`,
/// or of the V1 enum when `v1`.
pub(super) fn agg_value(a: Agg, v1: bool) -> Value {
    let name = AGGS
        .iter()
        .find(|(_, x)| *x == a)
        .map_or("NONE", |(m, _)| m);
    let spec = if v1 {
        &VARIABLE_AGGREGATION
    } else {
        &VARIABLE_AGGREGATION_V2
    };
    member(spec, name)
}

/// The `synchronization` of a variable.
pub(super) fn sync_value(s: Sync) -> Value {
    let name = SYNCS
        .iter()
        .find(|(_, x)| *x == s)
        .map_or("AUTO", |(m, _)| m);
    member(&VARIABLE_SYNCHRONIZATION, name)
}

/// An `aggregation=` argument.
pub(super) fn parse_agg(v: &Value) -> PyResult<Agg> {
    match v.downcast::<EnumObj>() {
        Some(e) if e.spec.name.starts_with("VariableAggregation") => Ok(AGGS[e.value as usize].1),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "aggregation must be a tf.VariableAggregation",
        )),
    }
}

/// A `synchronization=` argument.
pub(super) fn parse_sync(v: &Value) -> PyResult<Sync> {
    match v.downcast::<EnumObj>() {
        Some(e) if std::ptr::eq(e.spec, &VARIABLE_SYNCHRONIZATION) => Ok(SYNCS[e.value as usize].1),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "synchronization must be a tf.VariableSynchronization",
        )),
    }
}
