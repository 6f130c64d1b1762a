//! Instances laid out by their class: a class's [`Layout`] gives each
//! attribute name its instances have set a slot, in the order they first
//! set them (one layout per class, shared by all its instances, as
//! CPython's shared-key dicts and PyPy's maps share theirs), and an
//! instance holds its attributes as [`Attrs::Slots`] by those slots.
//!
//! An instance keeps the order its attributes were set in (`vars(obj)`
//! shows it): setting a name at a slot before one it already uses (another
//! instance set the names in another order, or a deleted attribute comes
//! back) would reorder them, so such an instance moves its attributes into
//! a map of its own ([`Attrs::Own`]), as CPython unshares such a dict.
//!
//! The slot of a name is what the type attribute cache (`value::typecache`)
//! keeps beside the class's own lookup, so a cached `obj.x` indexes the
//! instance's attributes without hashing the name.

use std::rc::Rc;

use indexmap::IndexSet;

use super::namehash::{NameHasher, Namespace};
use super::Value;

/// The attribute names of a class's instances, each at its slot.
#[derive(Debug, Default)]
pub struct Layout {
    names: IndexSet<Rc<str>, std::hash::BuildHasherDefault<NameHasher>>,
}

impl Layout {
    /// The slot of `name`, if an instance has set it.
    #[inline]
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.names.get_index_of(name)
    }

    /// The slot of `name`, giving it the next one if it has none.
    pub fn slot_or_add(&mut self, name: &str) -> usize {
        match self.names.get_index_of(name) {
            Some(i) => i,
            None => self.names.insert_full(name.into()).0,
        }
    }

    /// How many names have a slot (slots are never taken back, so a name
    /// missing at one length is still missing while the length is the same).
    #[inline]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no instance has set an attribute yet.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name at `slot`.
    pub fn name(&self, slot: usize) -> Option<&Rc<str>> {
        self.names.get_index(slot)
    }
}

/// An instance's attributes.
#[derive(Debug)]
pub enum Attrs {
    /// By slot of the class's layout (None: not set); never ends in None,
    /// so its length is one past the last slot set.
    Slots(Vec<Option<Value>>),
    /// In a map of the instance's own, in the order they were set.
    Own(Namespace),
}

impl Default for Attrs {
    fn default() -> Attrs {
        Attrs::Slots(Vec::new())
    }
}

impl Attrs {
    /// The attribute `name`.
    #[inline]
    pub fn get(&self, layout: &Layout, name: &str) -> Option<&Value> {
        match self {
            Attrs::Slots(v) => v.get(layout.slot(name)?)?.as_ref(),
            Attrs::Own(ns) => ns.get(name),
        }
    }

    /// The attribute `name`, whose slot in the layout is `slot` (None: the
    /// layout has none for it), found without hashing the name while the
    /// attributes are by slot.
    #[inline]
    pub fn get_at(&self, slot: Option<usize>, name: &str) -> Option<&Value> {
        match self {
            Attrs::Slots(v) => v.get(slot?)?.as_ref(),
            Attrs::Own(ns) => ns.get(name),
        }
    }

    /// Sets `name`, keeping the order in which attributes were first set.
    pub fn set(&mut self, layout: &mut Layout, name: &str, value: Value) {
        match self {
            Attrs::Slots(_) => {
                let i = layout.slot_or_add(name);
                self.set_at(layout, i, name, value);
            }
            Attrs::Own(ns) => {
                ns.insert(name.into(), value);
            }
        }
    }

    /// Sets `name`, which has slot `i` in the layout.
    #[inline]
    pub fn set_at(&mut self, layout: &Layout, i: usize, name: &str, value: Value) {
        if let Attrs::Slots(v) = self {
            if i >= v.len() {
                v.resize_with(i, || None);
                v.push(Some(value));
                return;
            }
            if v[i].is_some() {
                v[i] = Some(value);
                return;
            }
            // A slot before ones already set: the order would change.
            *self = Attrs::Own(self.drain(layout).collect());
        }
        if let Attrs::Own(ns) = self {
            ns.insert(name.into(), value);
        }
    }

    /// Removes `name`, returning its value.
    pub fn remove(&mut self, layout: &Layout, name: &str) -> Option<Value> {
        match self {
            Attrs::Slots(v) => {
                let old = v.get_mut(layout.slot(name)?)?.take();
                while matches!(v.last(), Some(None)) {
                    v.pop();
                }
                old
            }
            Attrs::Own(ns) => ns.shift_remove(name),
        }
    }

    /// The attributes' names and values in the order they were set, leaving
    /// none behind.
    pub fn drain<'a>(
        &'a mut self,
        layout: &'a Layout,
    ) -> Box<dyn Iterator<Item = (Rc<str>, Value)> + 'a> {
        match std::mem::take(self) {
            Attrs::Slots(v) => Box::new(
                v.into_iter()
                    .enumerate()
                    .filter_map(move |(i, x)| Some((layout.name(i)?.clone(), x?))),
            ),
            Attrs::Own(ns) => Box::new(ns.into_iter()),
        }
    }

    /// The attributes' names in the order they were set.
    pub fn names(&self, layout: &Layout) -> Vec<String> {
        match self {
            Attrs::Slots(v) => v
                .iter()
                .enumerate()
                .filter(|(_, x)| x.is_some())
                .filter_map(|(i, _)| layout.name(i).map(|n| n.to_string()))
                .collect(),
            Attrs::Own(ns) => ns.keys().map(|k| k.to_string()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(a: &Attrs, l: &Layout) -> String {
        a.names(l).join(",")
    }

    #[test]
    fn instances_share_slots_and_keep_their_own_order() {
        let mut layout = Layout::default();
        let (mut a, mut b) = (Attrs::default(), Attrs::default());
        a.set(&mut layout, "x", Value::Int(1));
        a.set(&mut layout, "y", Value::Int(2));
        b.set(&mut layout, "x", Value::Int(3));
        assert!(matches!(b, Attrs::Slots(_)));
        assert_eq!(layout.slot("y"), Some(1));
        // `b` sets y after x, as the layout has them: still by slot.
        b.set(&mut layout, "y", Value::Int(4));
        assert!(matches!(b, Attrs::Slots(_)));
        assert!(matches!(b.get(&layout, "y"), Some(Value::Int(4))));
        // A deleted attribute set again goes last, as in CPython.
        a.remove(&layout, "x");
        a.set(&mut layout, "x", Value::Int(5));
        assert!(matches!(a, Attrs::Own(_)));
        assert_eq!(names(&a, &layout), "y,x");
        // Another order than the layout's: an instance of its own.
        let mut c = Attrs::default();
        c.set(&mut layout, "y", Value::Int(6));
        c.set(&mut layout, "x", Value::Int(7));
        assert_eq!(names(&c, &layout), "y,x");
        assert!(matches!(c.get(&layout, "x"), Some(Value::Int(7))));
        assert!(a.remove(&layout, "nope").is_none());
    }
}
