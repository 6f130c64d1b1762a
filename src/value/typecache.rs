//! The type attribute cache: what looking a name up along a class's MRO
//! found, kept under the class's version tag, as CPython's method cache
//! (`_PyType_Lookup`, keyed by `tp_version_tag` and the interned name) does.
//!
//! A class gets a new version tag whenever its namespace or the namespace
//! of a class in its MRO changes (`Class::dict_mut`, `Class::modified`), and
//! tags are never reused, so an entry whose tag matches is exact: no class
//! mutation, base mutation or freed-and-reallocated class can make a hit
//! stale. Names are keyed by the address of the caller's `Rc<str>` (a call
//! site's or an interned dunder), which the entry holds, so the address
//! cannot be reused by another name while the entry lives.
//!
//! An entry does not hold what it found: it holds where (the position in
//! the MRO and the index in that class's namespace), so the cache keeps no
//! object alive (a deleted class attribute is freed, and its `__del__` runs,
//! when CPython's is). Beside it, an entry keeps the slot the name has in the
//! class's instance layout (`value::layout`), so `obj.x` reads the
//! instance's attribute without hashing the name.

use std::rc::Rc;

use super::object::Class;
use super::Value;

/// Entries (a power of two; CPython has 4096).
const SIZE: usize = 4096;
/// "None" in an entry's `u32` fields.
const NONE: u32 = u32::MAX;

/// One cached lookup.
#[derive(Default)]
struct Entry {
    /// The class's version tag when it was filled (0: empty).
    version: u64,
    /// The name looked up.
    name: Option<Rc<str>>,
    /// Where in the MRO the name was found (0: the class itself), or NONE.
    owner: u32,
    /// Its index in that class's namespace.
    index: u32,
    /// The name's slot in the class's instance layout, or NONE.
    slot: u32,
    /// The layout's length when `slot` was NONE (layouts only grow).
    layout_len: u32,
}

/// What a lookup found.
pub struct Found {
    /// The attribute on the class or a base (what `Class::lookup` returns).
    pub attr: Option<Value>,
    /// The slot of the name in the class's instance layout.
    pub slot: Option<usize>,
}

/// The cache (one per interpreter).
pub struct TypeCache {
    entries: Box<[Entry]>,
}

impl Default for TypeCache {
    fn default() -> TypeCache {
        TypeCache {
            entries: (0..SIZE).map(|_| Entry::default()).collect(),
        }
    }
}

impl TypeCache {
    /// `cls.lookup(name)`, and the name's slot in `cls`'s instance layout.
    #[inline]
    pub fn lookup(&mut self, cls: &Class, name: &Rc<str>) -> Found {
        let version = cls.version.get();
        let i = ((Rc::as_ptr(name) as *const u8 as usize >> 3) ^ version as usize) & (SIZE - 1);
        let e = &mut self.entries[i];
        if e.version != version || !e.name.as_ref().is_some_and(|n| Rc::ptr_eq(n, name)) {
            fill(e, cls, name, version);
        }
        let attr = if e.owner == NONE {
            None
        } else {
            let owner = match e.owner {
                0 => Some(cls),
                k => cls.mro_tail.get(k as usize - 1).map(|c| &**c),
            };
            owner.and_then(|c| {
                c.dict
                    .borrow()
                    .get_index(e.index as usize)
                    .map(|(_, v)| v.clone())
            })
        };
        let slot = if e.slot != NONE {
            Some(e.slot as usize)
        } else {
            let layout = cls.layout.borrow();
            if layout.len() as u32 == e.layout_len {
                None
            } else {
                // An instance has set the name (or another) since.
                let slot = layout.slot(name);
                e.slot = slot.map_or(NONE, |s| s as u32);
                e.layout_len = layout.len() as u32;
                slot
            }
        };
        Found { attr, slot }
    }
}

/// Looks `name` up along `cls`'s MRO and in its layout into `e`.
#[cold]
#[inline(never)]
fn fill(e: &mut Entry, cls: &Class, name: &Rc<str>, version: u64) {
    let mut found = (NONE, 0);
    for (k, c) in std::iter::once(cls)
        .chain(cls.mro_tail.iter().map(|c| &**c))
        .enumerate()
    {
        if let Some(i) = c.dict.borrow().get_index_of(&**name) {
            found = (k as u32, i as u32);
            break;
        }
    }
    let layout = cls.layout.borrow();
    *e = Entry {
        version,
        name: Some(name.clone()),
        owner: found.0,
        index: found.1,
        slot: layout.slot(name).map_or(NONE, |s| s as u32),
        layout_len: layout.len() as u32,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{ClassKind, ValueType};

    fn class(name: &str, bases: Vec<Rc<Class>>) -> Rc<Class> {
        Class::new_user(
            name.into(),
            name.into(),
            "__main__".into(),
            bases,
            Default::default(),
            ClassKind::User,
            None,
        )
        .unwrap_or_else(|_| {
            Class::new_builtin("x", "m", None, ClassKind::Builtin(ValueType::Object))
        })
    }

    fn int(v: Option<Value>) -> Option<i64> {
        match v {
            Some(Value::Int(i)) => Some(i),
            _ => None,
        }
    }

    #[test]
    fn a_change_to_a_class_or_a_base_is_seen() {
        let mut cache = TypeCache::default();
        let a = class("A", vec![crate::value::object::object_class()]);
        let b = class("B", vec![a.clone()]);
        let x: Rc<str> = "x".into();
        assert_eq!(int(cache.lookup(&b, &x).attr), None);
        a.set_attr("x", Value::Int(1));
        assert_eq!(int(cache.lookup(&b, &x).attr), Some(1));
        b.set_attr("x", Value::Int(2));
        assert_eq!(int(cache.lookup(&b, &x).attr), Some(2));
        assert_eq!(int(cache.lookup(&a, &x).attr), Some(1));
        b.remove_attr("x");
        assert_eq!(int(cache.lookup(&b, &x).attr), Some(1));
        a.remove_attr("x");
        assert_eq!(int(cache.lookup(&b, &x).attr), None);
    }

    #[test]
    fn a_layout_slot_given_later_is_found() {
        let mut cache = TypeCache::default();
        let a = class("A", vec![crate::value::object::object_class()]);
        let y: Rc<str> = "y".into();
        assert_eq!(cache.lookup(&a, &y).slot, None);
        a.layout.borrow_mut().slot_or_add("x");
        a.layout.borrow_mut().slot_or_add("y");
        assert_eq!(cache.lookup(&a, &y).slot, Some(1));
    }
}
