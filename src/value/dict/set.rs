//! Set storage in CPython's order: [`SetTable`] simulates CPython's set hash
//! table so that a set iterates, prints and pops as CPython's does, and
//! [`SetObj`] is the set or frozenset value that keeps one beside its
//! elements. Hashing and key equality are in `hash.rs`.

use std::cell::RefCell;

use super::{keys_insert, keys_reserve, Key, KeySet};
use crate::object::types::alloc_vec;
use crate::value::error::PyResult;
use crate::value::value::Value;

/// One slot of a simulated CPython set table.
#[derive(Clone, Debug)]
enum Slot {
    Empty,
    /// A deleted entry (CPython's `dummy`): probing goes on past it.
    Dummy,
    Active(Key, u64),
}

/// CPython 3.11's set hash table (`Objects/setobject.c`), simulated so that
/// a set iterates, prints and pops in CPython's order: open addressing with
/// linear probes then perturbed probing, deleted entries left as dummies,
/// resizes at 3/5 full, and the shortcuts of `set_merge` (a set built from
/// another set copies its table). Only for elements whose hash is the same
/// in every CPython run (numbers, tuples of them): strings are salted there.
/// Its size is a script's: every allocation is fallible (MemoryError), so
/// it has no `Clone` but [`SetTable::try_clone`].
#[derive(Debug)]
pub struct SetTable {
    mask: usize,
    slots: Vec<Slot>,
    /// Active and dummy slots.
    fill: usize,
    /// Active slots.
    used: usize,
    /// Where `pop` starts looking.
    finger: usize,
}

const LINEAR_PROBES: usize = 9;

impl Default for SetTable {
    fn default() -> Self {
        SetTable {
            mask: 7,
            slots: vec![Slot::Empty; 8],
            fill: 0,
            used: 0,
            finger: 0,
        }
    }
}

impl SetTable {
    /// The elements in table order.
    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.slots.iter().filter_map(|s| match s {
            Slot::Active(k, _) => Some(k),
            _ => None,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.used
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// The probe sequence from `hash`: calls `visit(slot)` until it returns true.
    fn probe(mask: usize, hash: u64, mut visit: impl FnMut(usize) -> bool) {
        let mut perturb = hash;
        let mut i = (hash as usize) & mask;
        loop {
            if visit(i) {
                return;
            }
            if i + LINEAR_PROBES <= mask {
                for j in 1..=LINEAR_PROBES {
                    if visit(i + j) {
                        return;
                    }
                }
            }
            i = crate::value::table::next_probe(i, &mut perturb, mask);
        }
    }

    /// `set_insert_clean`: into a table without dummies or this key.
    fn insert_clean(&mut self, key: Key, hash: u64) {
        let slots = &self.slots;
        let mut at = 0;
        Self::probe(self.mask, hash, |i| {
            at = i;
            matches!(slots[i], Slot::Empty)
        });
        self.slots[at] = Slot::Active(key, hash);
    }

    /// `set_table_resize`: the smallest power of two above `minused`
    /// (MemoryError, the table unchanged, when it cannot be allocated).
    fn resize(&mut self, minused: usize) -> PyResult<()> {
        let mut newsize = 8usize;
        while newsize <= minused {
            newsize = newsize
                .checked_mul(2)
                .ok_or_else(crate::object::types::memory_error)?;
        }
        let mut slots = alloc_vec(newsize)?;
        slots.resize(newsize, Slot::Empty);
        let old = std::mem::replace(&mut self.slots, slots);
        self.mask = newsize - 1;
        self.fill = self.used;
        for slot in old {
            if let Slot::Active(k, h) = slot {
                self.insert_clean(k, h);
            }
        }
        Ok(())
    }

    /// A copy of the table, or MemoryError.
    pub fn try_clone(&self) -> PyResult<SetTable> {
        let mut slots = alloc_vec(self.slots.len())?;
        slots.extend(self.slots.iter().cloned());
        Ok(SetTable {
            mask: self.mask,
            slots,
            fill: self.fill,
            used: self.used,
            finger: self.finger,
        })
    }

    /// `set_add_entry`: adds the key unless present (the last dummy met on
    /// the way is reused). MemoryError when the table cannot grow (the key
    /// was placed before the resize, as in CPython).
    pub fn add(&mut self, key: Key) -> PyResult<()> {
        let hash = key.hash_value() as u64;
        let slots = &self.slots;
        let (mut found, mut freeslot, mut empty) = (false, None, 0);
        Self::probe(self.mask, hash, |i| match &slots[i] {
            Slot::Empty => {
                empty = i;
                true
            }
            Slot::Active(k, h) => {
                found = *h == hash && *k == key;
                found
            }
            Slot::Dummy => {
                // The last dummy on the way, as CPython 3.11 keeps it.
                freeslot = Some(i);
                false
            }
        });
        if found {
            return Ok(());
        }
        self.used += 1;
        if let Some(i) = freeslot {
            self.slots[i] = Slot::Active(key, hash);
            return Ok(());
        }
        self.slots[empty] = Slot::Active(key, hash);
        self.fill += 1;
        if self.fill * 5 >= self.mask * 3 {
            let minused = if self.used > 50000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(minused)?;
        }
        Ok(())
    }

    /// `set_discard_entry`: true if the key was there (its slot becomes a dummy).
    pub fn discard(&mut self, key: &Key) -> bool {
        let hash = key.hash_value() as u64;
        let slots = &self.slots;
        let mut at = None;
        Self::probe(self.mask, hash, |i| match &slots[i] {
            Slot::Empty => true,
            Slot::Active(k, h) if *h == hash && k == key => {
                at = Some(i);
                true
            }
            _ => false,
        });
        match at {
            Some(i) => {
                self.slots[i] = Slot::Dummy;
                self.used -= 1;
                true
            }
            None => false,
        }
    }

    /// Takes over `old`'s `pop()` position: CPython's in-place intersection
    /// swaps a new table's body into the set but keeps the set's finger.
    pub fn keep_finger(mut self, old: &SetTable) -> SetTable {
        self.finger = old.finger;
        self
    }

    /// `set_pop`: the first element from the finger on, left as a dummy.
    pub fn pop(&mut self) -> Option<Key> {
        if self.used == 0 {
            return None;
        }
        let mut i = self.finger & self.mask;
        while !matches!(self.slots[i], Slot::Active(..)) {
            i = if i == self.mask { 0 } else { i + 1 };
        }
        let Slot::Active(k, _) = std::mem::replace(&mut self.slots[i], Slot::Dummy) else {
            return None;
        };
        self.used -= 1;
        self.finger = i + 1;
        Some(k)
    }

    /// `set_merge`: adds the elements of another set's table (one resize up
    /// front; an empty table copies the other's layout or re-inserts in its order).
    pub fn merge(&mut self, other: &SetTable) -> PyResult<()> {
        if other.used == 0 {
            return Ok(());
        }
        if (self.fill + other.used) * 5 >= self.mask * 3 {
            self.resize((self.used + other.used) * 2)?;
        }
        if self.fill == 0 && self.mask == other.mask && other.fill == other.used {
            self.slots = other.try_clone()?.slots;
            self.fill = other.fill;
            self.used = other.used;
            return Ok(());
        }
        if self.fill == 0 {
            for slot in &other.slots {
                if let Slot::Active(k, h) = slot {
                    self.insert_clean(k.clone(), *h);
                }
            }
            self.fill = other.used;
            self.used = other.used;
            return Ok(());
        }
        for k in other.keys() {
            self.add(k.clone())?;
        }
        Ok(())
    }

    /// The resize `set_update_internal` does before adding a dict's `n` keys.
    pub fn presize(&mut self, n: usize) -> PyResult<()> {
        if (self.fill + n) * 5 >= self.mask * 3 {
            self.resize((self.used + n) * 2)?;
        }
        Ok(())
    }

    /// Whether the table holds the key.
    pub fn contains(&self, key: &Key) -> bool {
        let hash = key.hash_value() as u64;
        let slots = &self.slots;
        let mut found = false;
        Self::probe(self.mask, hash, |i| match &slots[i] {
            Slot::Empty => true,
            Slot::Active(k, h) if *h == hash && k == key => {
                found = true;
                true
            }
            _ => false,
        });
        found
    }

    /// The resize after discarding many (`set_difference_update_internal`):
    /// when more than a quarter of the table is dummies.
    pub fn shrink_dummies(&mut self) -> PyResult<()> {
        if self.fill - self.used > self.mask / 4 {
            let minused = if self.used > 50000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(minused)?;
        }
        Ok(())
    }

    /// Replaces each element by `f` of it: a key equal to it with the same
    /// hash, so the layout stays valid.
    pub fn try_map_keys<E>(&mut self, mut f: impl FnMut(&Key) -> Result<Key, E>) -> Result<(), E> {
        for slot in &mut self.slots {
            if let Slot::Active(k, _) = slot {
                *k = f(k)?;
            }
        }
        Ok(())
    }

    /// Whether CPython's hash of the key is the same in every run.
    pub fn stable(key: &Key) -> bool {
        stable_hash(&key.0)
    }

    /// A table of the keys added one by one in the given order.
    pub fn from_keys<'a>(keys: impl IntoIterator<Item = &'a Key>) -> PyResult<SetTable> {
        let mut t = SetTable::default();
        for k in keys {
            t.add(k.clone())?;
        }
        Ok(t)
    }
}

/// Whether CPython's hash of the value is fixed across runs (numbers,
/// tuples of them, instances hashing with their own `__hash__`), so its set
/// iteration order can be reproduced.
fn stable_hash(v: &Value) -> bool {
    match v {
        Value::Bool(_) | Value::Int(_) | Value::Long(_) | Value::Float(_) => true,
        Value::Tuple(t) => t.iter().all(stable_hash),
        // Its own __hash__ (the key keeps the result): fixed when built from
        // numbers; from strings CPython's order varies anyway.
        Value::Instance(i) => i.class.lookup("__hash__").is_some(),
        _ => false,
    }
}

/// A set or frozenset. The elements are kept in insertion order; the
/// order CPython iterates them comes from a simulated [`SetTable`].
#[derive(Debug, Default)]
pub struct SetObj {
    /// The elements.
    pub items: RefCell<KeySet>,
    /// True for `frozenset`.
    pub frozen: bool,
    /// CPython's table for these elements when the operations that built the
    /// set were simulated (see [`SetObj::table`]); elements added to `items`
    /// directly later count as added one by one after it.
    table: RefCell<Option<SetTable>>,
}

impl SetObj {
    /// The simulated CPython table of the set, None when an element's hash is
    /// not stable across CPython runs. A stored table is used when it still
    /// holds exactly the elements of `items` that it knows, the others being
    /// added after it in insertion order; otherwise (an element was removed
    /// behind its back) the elements are added one by one.
    /// MemoryError when a copy cannot be allocated.
    pub fn table(&self) -> PyResult<Option<SetTable>> {
        let items = self.items.borrow();
        if let Some(t) = &*self.table.borrow() {
            // Every change made through SetObj keeps the two in step.
            if t.len() == items.len() {
                return Ok(Some(t.try_clone()?));
            }
            if t.len() < items.len() && t.keys().all(|k| items.contains(k)) {
                let mut t = t.try_clone()?;
                for k in items.iter() {
                    if !t.contains(k) {
                        t.add(k.clone())?;
                    }
                }
                return Ok(Some(t));
            }
        }
        if !items.iter().all(|k| stable_hash(&k.0)) {
            return Ok(None);
        }
        Ok(Some(SetTable::from_keys(items.iter())?))
    }

    /// Replaces the elements with those of `t`, remembering its layout.
    pub fn set_table(&self, t: SetTable) -> PyResult<()> {
        let mut items = KeySet::default();
        keys_reserve(&mut items, t.len())?;
        items.extend(t.keys().cloned());
        *self.items.borrow_mut() = items;
        *self.table.borrow_mut() = Some(t);
        Ok(())
    }

    /// Takes the elements (and table) of another set.
    pub fn set_from_obj(&self, other: SetObj) {
        *self.items.borrow_mut() = other.items.into_inner();
        *self.table.borrow_mut() = other.table.into_inner();
    }

    /// `set.add` (MemoryError when the set cannot grow; the element is
    /// then not in it).
    pub fn add_key(&self, key: Key) -> PyResult<()> {
        let len = {
            let mut items = self.items.borrow_mut();
            if !keys_insert(&mut items, key.clone())? {
                return Ok(());
            }
            items.len()
        };
        let mut stored = self.table.borrow_mut();
        if let Some(t) = stored.as_mut() {
            if t.len() + 1 == len && stable_hash(&key.0) {
                if let Err(e) = t.add(key.clone()) {
                    // Back out, so elements and table stay in step.
                    t.discard(&key);
                    self.items.borrow_mut().swap_remove(&key);
                    return Err(e);
                }
            } else {
                *stored = None;
            }
        }
        Ok(())
    }

    /// `set.discard`: true if the key was there (MemoryError when the
    /// table to keep cannot be allocated).
    pub fn discard_key(&self, key: &Key) -> PyResult<bool> {
        if !self.items.borrow().contains(key) {
            return Ok(false);
        }
        // The deleted slot shapes where later elements go: from now on the
        // table is kept.
        let in_step =
            matches!(&*self.table.borrow(), Some(t) if t.len() == self.items.borrow().len());
        if !in_step {
            let table = self.table()?;
            *self.table.borrow_mut() = table;
        }
        match self.table.borrow_mut().as_mut() {
            Some(t) => {
                // The order is the table's: no need to shift the others.
                t.discard(key);
                self.items.borrow_mut().swap_remove(key);
            }
            None => {
                self.items.borrow_mut().shift_remove(key);
            }
        }
        Ok(true)
    }

    /// `set.pop`: the element CPython's `set_pop` takes.
    pub fn pop_key(&self) -> PyResult<Option<Key>> {
        let in_step =
            matches!(&*self.table.borrow(), Some(t) if t.len() == self.items.borrow().len());
        if !in_step {
            let table = self.table()?;
            *self.table.borrow_mut() = table;
        }
        let popped = self.table.borrow_mut().as_mut().map(SetTable::pop);
        Ok(match popped {
            Some(Some(k)) => {
                self.items.borrow_mut().swap_remove(&k);
                Some(k)
            }
            Some(None) => None,
            None => self.items.borrow_mut().shift_remove_index(0),
        })
    }

    /// `set.clear` (a fresh table, as CPython's).
    pub fn clear(&self) {
        let old = std::mem::take(&mut *self.items.borrow_mut());
        *self.table.borrow_mut() = None;
        drop(old);
    }

    /// Replaces the elements (no CPython layout known for them).
    pub fn replace_items(&self, items: KeySet) {
        *self.items.borrow_mut() = items;
        *self.table.borrow_mut() = None;
    }

    /// The elements in the order CPython iterates them (insertion order when
    /// that cannot be reproduced).
    pub fn ordered(&self) -> PyResult<Vec<Value>> {
        let mut out = alloc_vec(self.items.borrow().len())?;
        match self.table()? {
            Some(t) => out.extend(t.keys().map(|k| k.0.clone())),
            None => out.extend(self.items.borrow().iter().map(|k| k.0.clone())),
        }
        Ok(out)
    }

    /// A set from keys.
    pub fn new(items: KeySet, frozen: bool) -> SetObj {
        SetObj {
            items: RefCell::new(items),
            frozen,
            table: RefCell::new(None),
        }
    }

    /// A set with CPython's table `t` (elements when hashes are not stable:
    /// `fallback`, in insertion order).
    pub fn with_table(t: Option<SetTable>, fallback: KeySet, frozen: bool) -> PyResult<SetObj> {
        let s = SetObj::new(fallback, frozen);
        if let Some(t) = t {
            s.set_table(t)?;
        }
        Ok(s)
    }
}
