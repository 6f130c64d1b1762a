//! Dict and set storage. Keys hash and compare as Python's do for the
//! hashable builtin values (`1 == 1.0 == True` hash alike, tuples hash by
//! contents); other objects hash by identity, as `object.__hash__` does.
//! Unhashable values (lists, dicts, sets, tensors) are refused by [`Key::new`].

use std::cell::RefCell;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use indexmap::{IndexMap, IndexSet};

use super::error::{ExcType, PyErr, PyResult};
use super::value::Value;

/// A hashable value used as a dict key or set element.
#[derive(Clone, Debug)]
pub struct Key(pub Value);

impl Key {
    /// Checks that `v` is hashable (`TypeError: unhashable type: 'list'`).
    pub fn new(v: Value) -> PyResult<Key> {
        check_hashable(&v)?;
        Ok(Key(v))
    }

    /// Python's `hash()` of the key.
    pub fn hash_value(&self) -> i64 {
        py_hash(&self.0)
    }
}

fn check_hashable(v: &Value) -> PyResult<()> {
    match v {
        Value::List(_) | Value::Dict(_) => Err(unhashable(v)),
        Value::Set(s) if !s.frozen => Err(unhashable(v)),
        Value::Tuple(items) => items.iter().try_for_each(check_hashable),
        Value::Tensor(_) => Err(PyErr::new(
            ExcType::TypeError,
            "Tensor is unhashable. Instead, use tensor.ref() as the key.",
        )),
        Value::Native(n) if !n.hashable() => Err(unhashable(v)),
        Value::Native(n) => match n.hash_as() {
            Some(plain) => check_hashable(&plain),
            None => Ok(()),
        },
        // Keys hash and compare in Rust, without calling back into the
        // interpreter: an instance with its own __eq__/__hash__ would be
        // compared by identity, a silent wrong answer, so it is refused.
        Value::Instance(i)
            if i.class.lookup("__hash__").is_some() || i.class.lookup("__eq__").is_some() =>
        {
            if matches!(i.class.lookup("__hash__"), Some(Value::None)) {
                return Err(unhashable(v));
            }
            Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "'{}' defines __eq__ or __hash__: such objects cannot be dict keys or set elements in dist yet",
                    i.class.name
                ),
            ))
        }
        _ => Ok(()),
    }
}

#[cold]
fn unhashable(v: &Value) -> PyErr {
    PyErr::new(
        ExcType::TypeError,
        format!("unhashable type: '{}'", v.type_name()),
    )
}

const HASH_MODULUS: i64 = (1 << 61) - 1;

/// CPython's hash of an int (`hash(-1) == -2`).
pub fn hash_int(i: i64) -> i64 {
    let m = (i.unsigned_abs() % HASH_MODULUS as u64) as i64;
    let h = if i < 0 { -m } else { m };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// CPython's hash of a float (integral floats hash like ints).
pub fn hash_float(x: f64) -> i64 {
    if x.is_nan() {
        return 0;
    }
    if x.is_infinite() {
        return if x > 0.0 { 314159 } else { -314159 };
    }
    if x.fract() == 0.0 && x.abs() < 9.2e18 {
        return hash_int(x as i64);
    }
    // CPython's algorithm: reduce the mantissa modulo 2**61 - 1.
    let (mut m, mut e) = frexp(x.abs());
    let mut h: u64 = 0;
    while m != 0.0 {
        h = ((h << 28) & HASH_MODULUS as u64) | (h >> (61 - 28));
        m *= 268435456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        h += y;
        if h >= HASH_MODULUS as u64 {
            h -= HASH_MODULUS as u64;
        }
    }
    let e = if e >= 0 {
        e % 61
    } else {
        61 - 1 - ((-1 - e) % 61)
    };
    h = ((h << e) & HASH_MODULUS as u64) | (h >> (61 - e));
    let mut h = h as i64;
    if x < 0.0 {
        h = -h;
    }
    if h == -1 {
        -2
    } else {
        h
    }
}

fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 {
        return (0.0, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// Python's `hash()` for hashable builtin values; identity for others.
pub fn py_hash(v: &Value) -> i64 {
    match v {
        Value::None => 0x5a5a,
        Value::Bool(b) => *b as i64,
        Value::Int(i) => hash_int(*i),
        Value::Float(x) => hash_float(*x),
        Value::Str(s) => fnv(s.as_bytes()),
        Value::Bytes(b) => fnv(b),
        Value::Tuple(items) => {
            // CPython's tuplehash (xxHash primes), so hash((1, 2)) matches.
            const P1: u64 = 11400714785074694791;
            const P2: u64 = 14029467366897019727;
            const P5: u64 = 2870177450012600261;
            let mut acc: u64 = P5;
            for it in items.iter() {
                let lane = py_hash(it) as u64;
                acc = acc.wrapping_add(lane.wrapping_mul(P2));
                acc = acc.rotate_left(31);
                acc = acc.wrapping_mul(P1);
            }
            acc = acc.wrapping_add(items.len() as u64 ^ (P5 ^ 3527539));
            let h = acc as i64;
            if h == -1 {
                1546275796
            } else {
                h
            }
        }
        Value::Set(s) => s
            .items
            .borrow()
            .iter()
            .fold(0i64, |acc, k| acc ^ k.hash_value().wrapping_mul(0x5bd1e995)),
        Value::Native(n) => match n.hash_as() {
            Some(plain) => py_hash(&plain),
            None => (v.id() >> 4) as i64,
        },
        other => (other.id() >> 4) as i64,
    }
}

fn fnv(bytes: &[u8]) -> i64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    (h >> 1) as i64
}

/// The hasher of dict and set tables. A key feeds it one word, Python's
/// `hash()` of the key (see `impl Hash for Key`), which this only has to
/// spread over the table's bits: one multiply (FxHash's), where the default
/// SipHash cost more than the rest of a `d[i] = x`. Iteration order does not
/// depend on it (the maps keep insertion order), and nothing here needs
/// resistance to collision attacks.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

const KEY_HASH_MUL: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(*b as u64);
        }
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(KEY_HASH_MUL);
    }

    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }
}

/// The `BuildHasher` of [`Dict`] (a default [`KeyHasher`] per hash).
pub type KeyHash = BuildHasherDefault<KeyHasher>;

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_i64(py_hash(&self.0));
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        key_eq(&self.0, &other.0)
    }
}

impl Eq for Key {}

/// Equality of hashable values as Python defines it for builtins
/// (numbers across int/float/bool, strings, bytes, tuples elementwise,
/// frozensets by contents, everything else by identity).
pub fn key_eq(a: &Value, b: &Value) -> bool {
    let plain = |v: &Value| match v {
        Value::Native(n) => n.hash_as(),
        _ => None,
    };
    if let (Value::Native(_), _) | (_, Value::Native(_)) = (a, b) {
        match (plain(a), plain(b)) {
            (None, None) => {}
            (Some(x), None) => return key_eq(&x, b),
            (None, Some(y)) => return key_eq(a, &y),
            (Some(x), Some(y)) => return key_eq(&x, &y),
        }
    }
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| key_eq(p, q))
        }
        (Value::Set(x), Value::Set(y)) => {
            let (x, y) = (x.items.borrow(), y.items.borrow());
            x.len() == y.len() && x.iter().all(|k| y.contains(k))
        }
        _ => match (num(a), num(b)) {
            (Some(Num::I(x)), Some(Num::I(y))) => x == y,
            (Some(x), Some(y)) => x.f() == y.f(),
            _ => a.is(b),
        },
    }
}

enum Num {
    I(i64),
    F(f64),
}

impl Num {
    fn f(&self) -> f64 {
        match self {
            Num::I(i) => *i as f64,
            Num::F(f) => *f,
        }
    }
}

fn num(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::I(*b as i64)),
        Value::Int(i) => Some(Num::I(*i)),
        Value::Float(f) => Some(Num::F(*f)),
        _ => None,
    }
}

/// An insertion-ordered dict.
#[derive(Clone, Debug, Default)]
pub struct Dict {
    /// The entries, in insertion order.
    pub map: IndexMap<Key, Value, KeyHash>,
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
        self.map.get(&Key(Value::str(key))).cloned()
    }

    /// Inserts or replaces (keeps the first insertion's position, as Python).
    pub fn insert(&mut self, key: Value, value: Value) -> PyResult<()> {
        self.map.insert(Key::new(key)?, value);
        Ok(())
    }

    /// Inserts with a string key.
    pub fn insert_str(&mut self, key: &str, value: Value) {
        self.map.insert(Key(Value::str(key)), value);
    }

    /// Removes a key, keeping the order of the others.
    pub fn remove(&mut self, key: &Value) -> PyResult<Option<Value>> {
        Ok(self.map.shift_remove(&Key::new(key.clone())?))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
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
#[derive(Clone, Debug)]
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
const PERTURB_SHIFT: u32 = 5;

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
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
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

    /// `set_table_resize`: the smallest power of two above `minused`.
    fn resize(&mut self, minused: usize) {
        let mut newsize = 8usize;
        while newsize <= minused {
            newsize <<= 1;
        }
        let old = std::mem::replace(&mut self.slots, vec![Slot::Empty; newsize]);
        self.mask = newsize - 1;
        self.fill = self.used;
        for slot in old {
            if let Slot::Active(k, h) = slot {
                self.insert_clean(k, h);
            }
        }
    }

    /// `set_add_entry`: adds the key unless present (the last dummy met on
    /// the way is reused).
    pub fn add(&mut self, key: Key) {
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
            return;
        }
        self.used += 1;
        if let Some(i) = freeslot {
            self.slots[i] = Slot::Active(key, hash);
            return;
        }
        self.slots[empty] = Slot::Active(key, hash);
        self.fill += 1;
        if self.fill * 5 >= self.mask * 3 {
            let minused = if self.used > 50000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(minused);
        }
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
    pub fn merge(&mut self, other: &SetTable) {
        if other.used == 0 {
            return;
        }
        if (self.fill + other.used) * 5 >= self.mask * 3 {
            self.resize((self.used + other.used) * 2);
        }
        if self.fill == 0 && self.mask == other.mask && other.fill == other.used {
            self.slots = other.slots.clone();
            self.fill = other.fill;
            self.used = other.used;
            return;
        }
        if self.fill == 0 {
            for slot in &other.slots {
                if let Slot::Active(k, h) = slot {
                    self.insert_clean(k.clone(), *h);
                }
            }
            self.fill = other.used;
            self.used = other.used;
            return;
        }
        for k in other.keys() {
            self.add(k.clone());
        }
    }

    /// The resize `set_update_internal` does before adding a dict's `n` keys.
    pub fn presize(&mut self, n: usize) {
        if (self.fill + n) * 5 >= self.mask * 3 {
            self.resize((self.used + n) * 2);
        }
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
    pub fn shrink_dummies(&mut self) {
        if self.fill - self.used > self.mask / 4 {
            let minused = if self.used > 50000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(minused);
        }
    }

    /// Whether CPython's hash of the key is the same in every run.
    pub fn stable(key: &Key) -> bool {
        stable_hash(&key.0)
    }

    /// A table of the keys added one by one in the given order.
    pub fn from_keys<'a>(keys: impl IntoIterator<Item = &'a Key>) -> SetTable {
        let mut t = SetTable::default();
        for k in keys {
            t.add(k.clone());
        }
        t
    }
}

/// Whether CPython's hash of the value is fixed across runs (numbers and
/// tuples of them), so its set iteration order can be reproduced.
fn stable_hash(v: &Value) -> bool {
    match v {
        Value::Bool(_) | Value::Int(_) | Value::Float(_) => true,
        Value::Tuple(t) => t.iter().all(stable_hash),
        _ => false,
    }
}

/// A set or frozenset. The elements are kept in insertion order; the
/// order CPython iterates them comes from a simulated [`SetTable`].
#[derive(Debug, Default)]
pub struct SetObj {
    /// The elements.
    pub items: RefCell<IndexSet<Key>>,
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
    pub fn table(&self) -> Option<SetTable> {
        let items = self.items.borrow();
        if let Some(t) = &*self.table.borrow() {
            // Every change made through SetObj keeps the two in step.
            if t.len() == items.len() {
                return Some(t.clone());
            }
            if t.len() < items.len() && t.keys().all(|k| items.contains(k)) {
                let mut t = t.clone();
                let extra: Vec<Key> = items.iter().filter(|k| !t.contains(k)).cloned().collect();
                for k in extra {
                    t.add(k);
                }
                return Some(t);
            }
        }
        if !items.iter().all(|k| stable_hash(&k.0)) {
            return None;
        }
        Some(SetTable::from_keys(items.iter()))
    }

    /// Replaces the elements with those of `t`, remembering its layout.
    pub fn set_table(&self, t: SetTable) {
        *self.items.borrow_mut() = t.keys().cloned().collect();
        *self.table.borrow_mut() = Some(t);
    }

    /// Takes the elements (and table) of another set.
    pub fn set_from_obj(&self, other: SetObj) {
        *self.items.borrow_mut() = other.items.into_inner();
        *self.table.borrow_mut() = other.table.into_inner();
    }

    /// `set.add`.
    pub fn add_key(&self, key: Key) {
        let len = {
            let mut items = self.items.borrow_mut();
            if !items.insert(key.clone()) {
                return;
            }
            items.len()
        };
        let mut stored = self.table.borrow_mut();
        if let Some(t) = stored.as_mut() {
            if t.len() + 1 == len && stable_hash(&key.0) {
                t.add(key);
            } else {
                *stored = None;
            }
        }
    }

    /// `set.discard`: true if the key was there.
    pub fn discard_key(&self, key: &Key) -> bool {
        if !self.items.borrow().contains(key) {
            return false;
        }
        // The deleted slot shapes where later elements go: from now on the
        // table is kept.
        let in_step =
            matches!(&*self.table.borrow(), Some(t) if t.len() == self.items.borrow().len());
        if !in_step {
            let table = self.table();
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
        true
    }

    /// `set.pop`: the element CPython's `set_pop` takes.
    pub fn pop_key(&self) -> Option<Key> {
        let in_step =
            matches!(&*self.table.borrow(), Some(t) if t.len() == self.items.borrow().len());
        if !in_step {
            let table = self.table();
            *self.table.borrow_mut() = table;
        }
        let popped = self.table.borrow_mut().as_mut().map(SetTable::pop);
        match popped {
            Some(k) => {
                let k = k?;
                self.items.borrow_mut().swap_remove(&k);
                Some(k)
            }
            None => self.items.borrow_mut().shift_remove_index(0),
        }
    }

    /// `set.clear` (a fresh table, as CPython's).
    pub fn clear(&self) {
        let old = std::mem::take(&mut *self.items.borrow_mut());
        *self.table.borrow_mut() = None;
        drop(old);
    }

    /// Replaces the elements (no CPython layout known for them).
    pub fn replace_items(&self, items: IndexSet<Key>) {
        *self.items.borrow_mut() = items;
        *self.table.borrow_mut() = None;
    }

    /// The elements in the order CPython iterates them (insertion order when
    /// that cannot be reproduced).
    pub fn ordered(&self) -> Vec<Value> {
        match self.table() {
            Some(t) => t.keys().map(|k| k.0.clone()).collect(),
            None => self.items.borrow().iter().map(|k| k.0.clone()).collect(),
        }
    }

    /// A set from keys.
    pub fn new(items: IndexSet<Key>, frozen: bool) -> SetObj {
        SetObj {
            items: RefCell::new(items),
            frozen,
            table: RefCell::new(None),
        }
    }

    /// A set with CPython's table `t` (elements when hashes are not stable:
    /// `fallback`, in insertion order).
    pub fn with_table(t: Option<SetTable>, fallback: IndexSet<Key>, frozen: bool) -> SetObj {
        let s = SetObj::new(fallback, frozen);
        if let Some(t) = t {
            s.set_table(t);
        }
        s
    }
}
