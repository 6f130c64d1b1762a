//! `_collections`: the native half of `collections` (stdlib/collections.dist),
//! `namedtuple`; the named tuple types themselves are in
//! `object/types/namedtuple.rs`.

use super::ModuleBuilder;
use crate::object::types::namedtuple::namedtuple;
use crate::value::Value;

/// `_collections`.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_collections");
    m.add(namedtuple::DEF);
    m.build()
}
