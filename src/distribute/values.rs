//! Distributed values: `PerReplica` and `Mirrored`. PLACEHOLDER until the
//! Strategy runtime lands: only the constructor other parts call.

use crate::value::Value;

/// A `PerReplica` value holding one component per replica (in replica order).
pub fn per_replica(values: Vec<Value>) -> Value {
    Value::tuple(values)
}
