//! Dict and set storage. Keys hash and compare as Python's do for the
//! hashable builtin values (`1 == 1.0 == True` hash alike, tuples hash by
//! contents); other objects hash by identity, as `object.__hash__` does.
//! Unhashable values (lists, dicts, sets, tensors) are refused by [`Key::new`].
//!
//! This module holds [`Key`], the lookups whose comparisons may call
//! `__eq__` ([`find_key`] and the dict and set operations over it) and
//! [`Dict`]; `hash.rs` hashes and compares keys, `set.rs` keeps sets in
//! CPython's order.

mod hash;
mod set;

use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use indexmap::Equivalent;

use super::error::{ExcType, PyErr, PyResult};
use super::native::Vm;
use super::table::{DictTable, Lookup};
use super::value::Value;
use hash::{check_hashable, fnv};
pub use hash::{
    hash_float, hash_int, hash_with_vm, key_eq, keys_clone, keys_from, keys_insert, keys_reserve,
    py_hash, KeyHash, KeyHasher, KeySet, HMODE,
};
pub use set::{SetObj, SetTable};

/// A hashable value used as a dict key or set element, with its Python
/// `hash()` computed once (the tables keep it; a lookup compares it before
/// comparing values, as CPython does before calling `__eq__`).
#[derive(Clone, Debug)]
pub struct Key(pub Value, i64);

impl Key {
    /// Checks that `v` is hashable (`TypeError: unhashable type: 'list'`).
    /// Without an interpreter it refuses an object whose class defines
    /// `__hash__` (use [`Key::with_vm`]).
    pub fn new(v: Value) -> PyResult<Key> {
        check_hashable(&v)?;
        let h = py_hash(&v);
        Ok(Key(v, h))
    }

    /// A key whose hash may call `__hash__` through the interpreter
    /// (instances, and tuples and frozensets holding them).
    pub fn with_vm(v: Value, vm: &dyn Vm) -> PyResult<Key> {
        let h = match &v {
            Value::Str(s) => fnv(s.as_bytes()),
            Value::Int(i) => hash_int(*i),
            _ => hash_with_vm(&v, vm)?,
        };
        Ok(Key(v, h))
    }

    /// A string key.
    pub fn str(s: &str) -> Key {
        Key(Value::str(s), fnv(s.as_bytes()))
    }

    /// Python's `hash()` of the key.
    pub fn hash_value(&self) -> i64 {
        self.1
    }
}

/// Whether comparing `v` with another key calls into the interpreter (an
/// instance whose class defines `__eq__`, or a tuple or frozenset holding one).
fn compares_in_vm(v: &Value) -> bool {
    match v {
        Value::Str(_) | Value::Int(_) => false,
        Value::Instance(i) => i.class.lookup("__eq__").is_some() || i.builtin_base().is_some(),
        Value::Tuple(items) => items.iter().any(compares_in_vm),
        Value::Set(s) => s
            .items
            .try_borrow()
            .map_or(true, |items| items.iter().any(|k| compares_in_vm(&k.0))),
        _ => false,
    }
}

/// A lookup of one key in a table (`IndexMap`/`IndexSet` of [`Key`]).
/// While the table is borrowed it only compares hashes and builtin values;
/// stored keys whose equality needs the interpreter (`__eq__`) and whose
/// hash matches are collected, to be compared after the borrow ends, so an
/// `__eq__` that mutates the table meets no borrowed `RefCell`.
pub struct Probe<'a> {
    value: &'a Value,
    hash: i64,
    /// Match by identity only (re-finding a key `__eq__` accepted).
    identity: bool,
    slow: bool,
    candidates: RefCell<Vec<Value>>,
}

impl<'a> Probe<'a> {
    fn new(key: &'a Key, identity: bool) -> Probe<'a> {
        Probe {
            value: &key.0,
            hash: key.1,
            identity,
            slow: !identity && compares_in_vm(&key.0),
            candidates: RefCell::new(Vec::new()),
        }
    }
}

impl Hash for Probe<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_i64(self.hash);
    }
}

impl Equivalent<Key> for Probe<'_> {
    fn equivalent(&self, stored: &Key) -> bool {
        if stored.1 != self.hash {
            return false;
        }
        if self.identity || stored.0.is(self.value) {
            return stored.0.is(self.value);
        }
        if self.slow || compares_in_vm(&stored.0) {
            self.candidates.borrow_mut().push(stored.0.clone());
            return false;
        }
        key_eq(&stored.0, self.value)
    }
}

impl Lookup for Probe<'_> {
    fn lookup_hash(&self) -> i64 {
        self.hash
    }

    fn matches(&self, stored: &Key) -> bool {
        self.equivalent(stored)
    }
}

/// How often a lookup restarts because `__eq__` changed the table, before it
/// gives up with CPython's RuntimeError (CPython restarts without a bound).
const MAX_RESTARTS: usize = 100;

/// Finds `key` in a table: `find` runs a [`Probe`] against the borrowed
/// table (`|p| table.borrow().get_index_of(p)`, or a lookup returning the
/// value). Stored keys with the same hash but no builtin equality are then
/// compared with `==` through `vm` (stored key on the left, as CPython), and
/// the one that compares equal is found again by identity; if `__eq__`
/// removed it meanwhile the lookup starts over, as CPython's does.
pub fn find_key<R>(
    vm: &dyn Vm,
    key: &Key,
    find: impl Fn(&Probe) -> Option<R>,
) -> PyResult<Option<R>> {
    for _ in 0..MAX_RESTARTS {
        let probe = Probe::new(key, false);
        if let Some(r) = find(&probe) {
            return Ok(Some(r));
        }
        let candidates = probe.candidates.into_inner();
        let mut restart = false;
        for c in candidates {
            if vm.eq(&c, &key.0)? {
                let again = Key(c, key.1);
                match find(&Probe::new(&again, true)) {
                    Some(r) => return Ok(Some(r)),
                    None => {
                        restart = true;
                        break;
                    }
                }
            }
        }
        if !restart {
            return Ok(None);
        }
    }
    Err(PyErr::new(
        ExcType::RuntimeError,
        "dictionary changed size during iteration",
    ))
}

/// `d[key]` (None when missing), with keys compared through `vm`.
pub fn dict_get(vm: &dyn Vm, d: &RefCell<Dict>, key: &Value) -> PyResult<Option<Value>> {
    let k = Key::with_vm(key.clone(), vm)?;
    find_key(vm, &k, |p| d.borrow().map.get(p).cloned())
}

/// `d[key] = value` (an existing equal key keeps its place and identity).
pub fn dict_set(vm: &dyn Vm, d: &RefCell<Dict>, key: Value, value: Value) -> PyResult<()> {
    dict_set_key(vm, d, Key::with_vm(key, vm)?, value)
}

/// `d[k] = value` for a key already hashed (e.g. one from another dict).
pub fn dict_set_key(vm: &dyn Vm, d: &RefCell<Dict>, k: Key, value: Value) -> PyResult<()> {
    {
        let mut this = d.borrow_mut();
        if !this.vm_keys && !compares_in_vm(&k.0) {
            // Builtin keys in a dict of builtin keys: one lookup, no call.
            this.map.insert(k, value)?;
            return Ok(());
        }
    }
    let found = find_key(vm, &k, |p| d.borrow().map.get_index_of(p))?;
    d.borrow_mut().put(found, k, value)
}

/// `del d[key]` / `d.pop(key)`: the removed value, None when missing.
pub fn dict_remove(vm: &dyn Vm, d: &RefCell<Dict>, key: &Value) -> PyResult<Option<Value>> {
    let k = Key::with_vm(key.clone(), vm)?;
    match find_key(vm, &k, |p| d.borrow().map.get_index_of(p))? {
        Some(i) => Ok(d.borrow_mut().map.remove_index(i).map(|(_, v)| v)),
        None => Ok(None),
    }
}

/// `key in s` for a set or frozenset.
pub fn set_contains(vm: &dyn Vm, s: &SetObj, key: &Value) -> PyResult<bool> {
    let k = Key::with_vm(key.clone(), vm)?;
    Ok(find_key(vm, &k, |p| s.items.borrow().get_index_of(p))?.is_some())
}

/// `s.add(key)` (CPython's table order kept through [`SetObj::add_key`]).
pub fn set_add(vm: &dyn Vm, s: &SetObj, key: Value) -> PyResult<()> {
    let k = Key::with_vm(key, vm)?;
    if find_key(vm, &k, |p| s.items.borrow().get_index_of(p))?.is_none() {
        s.add_key(k)?;
    }
    Ok(())
}

/// `s.discard(key)`: whether it was there (the stored equal key is the one
/// removed, through [`SetObj::discard_key`]).
pub fn set_discard(vm: &dyn Vm, s: &SetObj, key: &Value) -> PyResult<bool> {
    let k = Key::with_vm(key.clone(), vm)?;
    let stored = find_key(vm, &k, |p| {
        let items = s.items.borrow();
        items
            .get_index_of(p)
            .and_then(|i| items.get_index(i).cloned())
    })?;
    Ok(match stored {
        Some(stored) => s.discard_key(&stored)?,
        None => false,
    })
}

/// Whether comparing the key with another calls `__eq__` (then only
/// [`find_key`] finds it; `Key`'s own `==` compares such values by identity).
pub fn vm_compared(k: &Key) -> bool {
    compares_in_vm(&k.0)
}

/// Adds a value to a set being built (not yet visible to the script).
pub fn key_set_insert(vm: &dyn Vm, set: &mut KeySet, v: Value) -> PyResult<()> {
    let k = Key::with_vm(v, vm)?;
    let found = {
        let set: &KeySet = set;
        find_key(vm, &k, |p| set.get_index_of(p))?
    };
    if found.is_none() {
        keys_insert(set, k)?;
    }
    Ok(())
}

/// Whether every element of `a` is in `b` (`__eq__` called through `vm`;
/// pass tables the script cannot reach, e.g. clones).
pub fn keys_subset(vm: &dyn Vm, a: &KeySet, b: &KeySet) -> PyResult<bool> {
    for k in a {
        if find_key(vm, k, |p| b.get_index_of(p))?.is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The set algebra `a op b`, `op` one of `| & - ^` (`__eq__` called through
/// `vm`; pass tables the script cannot reach, e.g. clones).
pub fn set_algebra(vm: &dyn Vm, op: char, a: &KeySet, b: &KeySet) -> PyResult<KeySet> {
    let in_vm = |s: &KeySet| s.iter().any(|k| compares_in_vm(&k.0));
    if !in_vm(a) && !in_vm(b) {
        return match op {
            '|' => keys_from(a.union(b).cloned()),
            '&' => keys_from(a.intersection(b).cloned()),
            '-' => keys_from(a.difference(b).cloned()),
            _ => keys_from(a.symmetric_difference(b).cloned()),
        };
    }
    let has = |s: &KeySet, k: &Key| -> PyResult<bool> {
        Ok(find_key(vm, k, |p| s.get_index_of(p))?.is_some())
    };
    let mut out = KeySet::default();
    match op {
        '|' => {
            out = keys_clone(a)?;
            for k in b {
                if !has(&out, k)? {
                    keys_insert(&mut out, k.clone())?;
                }
            }
        }
        '&' | '-' => {
            for k in a {
                if has(b, k)? == (op == '&') {
                    keys_insert(&mut out, k.clone())?;
                }
            }
        }
        _ => {
            for k in a {
                if !has(b, k)? {
                    keys_insert(&mut out, k.clone())?;
                }
            }
            for k in b {
                if !has(a, k)? {
                    keys_insert(&mut out, k.clone())?;
                }
            }
        }
    }
    Ok(out)
}

/// An insertion-ordered dict. Its table grows fallibly (MemoryError), so it
/// has no `Clone`: [`Dict::try_clone`].
#[derive(Debug, Default)]
pub struct Dict {
    /// The entries, in insertion order.
    pub map: DictTable,
    /// Whether a key whose equality calls `__eq__` was ever inserted (then
    /// every insertion looks up through the interpreter first).
    vm_keys: bool,
}

impl Dict {
    /// An empty dict.
    pub fn new() -> Dict {
        Dict::default()
    }

    /// Looks a key up.
    pub fn get(&self, key: &Value) -> PyResult<Option<Value>> {
        Ok(self.map.get(&Key::new(key.clone())?).cloned())
    }

    /// Looks up a string key (no hashability check needed).
    pub fn get_str(&self, key: &str) -> Option<Value> {
        self.map.get(&Key::str(key)).cloned()
    }

    /// A copy (`dict.copy()`, `{**d}`), or MemoryError.
    pub fn try_clone(&self) -> PyResult<Dict> {
        Ok(Dict {
            map: self.map.try_clone()?,
            vm_keys: self.vm_keys,
        })
    }

    /// Inserts or replaces (keeps the first insertion's position, as Python).
    pub fn insert(&mut self, key: Value, value: Value) -> PyResult<()> {
        self.map.insert(Key::new(key)?, value)?;
        Ok(())
    }

    /// Binds a name in a namespace: module globals, an instance's or a
    /// class's attributes copied into a dict. These grow by the names a
    /// program's text binds, like any object's small allocations, so a
    /// failure to grow is the process's (as for those) instead of a
    /// MemoryError every attribute store would pass on; a dict whose size
    /// data decides uses [`Dict::insert_str`].
    pub fn set_name(&mut self, name: &str, value: Value) {
        if self.map.insert(Key::str(name), value).is_err() {
            std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u32; 8]>());
        }
    }

    /// Inserts with a string key (MemoryError when the table cannot grow).
    pub fn insert_str(&mut self, key: &str, value: Value) -> PyResult<()> {
        self.map.insert(Key::str(key), value)?;
        Ok(())
    }

    /// Inserts through `vm` (an existing equal key keeps its place and
    /// identity, as Python). For a dict being built, not yet visible to the
    /// script: a shared one uses [`dict_set`], which calls `__eq__` with no
    /// borrow of its `RefCell` held.
    pub fn insert_vm(&mut self, vm: &dyn Vm, key: Value, value: Value) -> PyResult<()> {
        let key = Key::with_vm(key, vm)?;
        if !self.vm_keys && !compares_in_vm(&key.0) {
            // Builtin keys in a dict of builtin keys: one lookup, no call.
            self.map.insert(key, value)?;
            return Ok(());
        }
        let this: &Dict = self;
        let found = find_key(vm, &key, |p| this.map.get_index_of(p))?;
        self.put(found, key, value)
    }

    /// Stores `value` at the index a lookup found, or inserts `key`.
    fn put(&mut self, found: Option<usize>, key: Key, value: Value) -> PyResult<()> {
        match found {
            Some(i) => {
                if let Some((_, slot)) = self.map.get_index_mut(i) {
                    *slot = value;
                }
            }
            None => {
                let vm_key = compares_in_vm(&key.0);
                self.map.insert(key, value)?;
                self.vm_keys |= vm_key;
            }
        }
        Ok(())
    }

    /// Removes a key, keeping the order of the others.
    pub fn remove(&mut self, key: &Value) -> PyResult<Option<Value>> {
        Ok(self.map.remove(&Key::new(key.clone())?))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The keys that are strings, as names (a namespace's), in order.
    pub fn str_keys(&self) -> Vec<String> {
        self.keys()
            .iter()
            .filter_map(|k| match k {
                Value::Str(s) => Some(s.to_string()),
                _ => None,
            })
            .collect()
    }

    /// The keys, in order.
    pub fn keys(&self) -> Vec<Value> {
        self.map.keys().map(|k| k.0.clone()).collect()
    }

    /// The entries, in order.
    pub fn items(&self) -> Vec<(Value, Value)> {
        self.map
            .iter()
            .map(|(k, v)| (k.0.clone(), v.clone()))
            .collect()
    }
}
