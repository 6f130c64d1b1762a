//! `tf.VariableAggregation` and `tf.VariableSynchronization`: Python enums
//! whose members are one object each (so `v.synchronization is
//! tf.VariableSynchronization.ON_WRITE`, and every replica returning a
//! member regroups to the member itself). `tf.VariableAggregation` is
//! TensorFlow's `VariableAggregationV2`; a variable without aggregation
//! shows the V1 enum's `NONE`.

use crate::distribute::classes::VARIABLES;
use crate::distribute::enums::{enum_class, member_of, EnumMember};
use crate::value::{ExcType, PyErr, PyResult, Value};

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

enum_class!(pub VARIABLE_AGGREGATION_V2, AGGREGATION_V2, aggregation_v2_call,
    "VariableAggregationV2", VARIABLES, int: false,
    [("NONE", 0), ("SUM", 1), ("MEAN", 2), ("ONLY_FIRST_REPLICA", 3)]);

enum_class!(pub VARIABLE_AGGREGATION, AGGREGATION, aggregation_call,
    "VariableAggregation", VARIABLES, int: false,
    [("NONE", 0), ("SUM", 1), ("MEAN", 2), ("ONLY_FIRST_REPLICA", 3)]);

enum_class!(pub VARIABLE_SYNCHRONIZATION, SYNCHRONIZATION, synchronization_call,
    "VariableSynchronization", VARIABLES, int: false,
    [("AUTO", 0), ("NONE", 1), ("ON_WRITE", 2), ("ON_READ", 3)]);

/// The `aggregation` of a variable: a member of `tf.VariableAggregation`,
/// or of the V1 enum when `v1`.
pub(super) fn agg_value(a: Agg, v1: bool) -> Value {
    let name = AGGS
        .iter()
        .find(|(_, x)| *x == a)
        .map_or("NONE", |(m, _)| m);
    if v1 {
        AGGREGATION.member(name)
    } else {
        AGGREGATION_V2.member(name)
    }
}

/// The `synchronization` of a variable.
pub(super) fn sync_value(s: Sync) -> Value {
    let name = SYNCS
        .iter()
        .find(|(_, x)| *x == s)
        .map_or("AUTO", |(m, _)| m);
    SYNCHRONIZATION.member(name)
}

/// An `aggregation=` argument.
pub(super) fn parse_agg(v: &Value) -> PyResult<Agg> {
    match v.downcast::<EnumMember>() {
        Some(e) if e.of(&AGGREGATION) || e.of(&AGGREGATION_V2) => Ok(AGGS[e.value as usize].1),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "aggregation must be a tf.VariableAggregation",
        )),
    }
}

/// Whether an `aggregation=` argument reads back as TensorFlow 1's enum
/// (`VariableAggregation`): the default and `tf.compat.v1`'s members do,
/// `tf.VariableAggregation`'s (V2) do not — TensorFlow keeps the member given.
pub(super) fn agg_is_v1(v: Option<&Value>) -> bool {
    match v {
        None => true,
        Some(v) => v
            .downcast::<EnumMember>()
            .is_some_and(|e| e.of(&AGGREGATION)),
    }
}

/// A `synchronization=` argument.
pub(super) fn parse_sync(v: &Value) -> PyResult<Sync> {
    match member_of(v, &SYNCHRONIZATION) {
        Some(e) => Ok(SYNCS[e.value as usize].1),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            "synchronization must be a tf.VariableSynchronization",
        )),
    }
}
