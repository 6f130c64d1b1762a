//! `_weakref`: the native half of `weakref` (stdlib/weakref.dist); the
//! references themselves are in `object/weakref.rs`.

use super::ModuleBuilder;
use crate::object::weakref::REFERENCE_TYPE;
use crate::value::Value;

/// `_weakref`.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_weakref");
    m.value("ref", Value::Class(REFERENCE_TYPE.class()));
    m.build()
}
