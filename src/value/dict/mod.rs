//! Dict and set storage. Keys hash and compare as Python's do for the
//! hashable builtin values (`1 == 1.0 == True` hash alike, tuples hash by
//! contents); other objects hash by identity, as `object.__hash__` does.
//! Unhashable values (lists, dicts, sets, tensors) are refused by [`Key::new`].

use std::cell::RefCell;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use indexmap::{Equivalent, IndexSet};

use super::error::{ExcType, PyErr, PyResult};
use super::native::Vm;
use super::table::{DictTable, Lookup};
use super::value::Value;

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

/// Python's `hash(v)`, calling `__hash__` of instances through `vm`
/// (`TypeError: unhashable type: 'C'` when it is None, and when it returns
/// something other than an int).
pub fn hash_with_vm(v: &Value, vm: &dyn Vm) -> PyResult<i64> {
    match v {
        Value::Instance(i) => match i.class.lookup("__hash__") {
            Some(Value::None) => Err(unhashable(v)),
            Some(m) => match vm.call(&m, vec![v.clone()], Vec::new())? {
                Value::Int(-1) => Ok(-2),
                Value::Int(n) => Ok(n),
                Value::Bool(b) => Ok(b as i64),
                _ => Err(PyErr::new(
                    ExcType::TypeError,
                    "__hash__ method should return an integer",
                )),
            },
            None => match i.builtin_base() {
                // A subclass of a builtin type hashes as its value.
                Some(base) => hash_with_vm(base, vm).map_err(|e| {
                    if e.is(ExcType::TypeError) {
                        unhashable(v)
                    } else {
                        e
                    }
                }),
                None => Ok(py_hash(v)),
            },
        },
        Value::Tuple(items) if items.iter().any(hashes_in_vm) => {
            let hashes = items
                .iter()
                .map(|x| hash_with_vm(x, vm))
                .collect::<PyResult<Vec<i64>>>()?;
            Ok(tuple_hash(&hashes))
        }
        _ => {
            check_hashable(v)?;
            Ok(py_hash(v))
        }
    }
}

/// Whether hashing `v` calls into the interpreter (an instance whose class
/// defines `__hash__`, or a tuple holding one).
fn hashes_in_vm(v: &Value) -> bool {
    match v {
        Value::Instance(i) => i.class.lookup("__hash__").is_some(),
        Value::Tuple(items) => items.iter().any(hashes_in_vm),
        _ => false,
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
            this.map.insert(k, value);
            return Ok(());
        }
    }
    let found = find_key(vm, &k, |p| d.borrow().map.get_index_of(p))?;
    d.borrow_mut().put(found, k, value);
    Ok(())
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
        s.add_key(k);
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
        Some(stored) => s.discard_key(&stored),
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
        set.insert(k);
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
        return Ok(match op {
            '|' => a.union(b).cloned().collect(),
            '&' => a.intersection(b).cloned().collect(),
            '-' => a.difference(b).cloned().collect(),
            _ => a.symmetric_difference(b).cloned().collect(),
        });
    }
    let has = |s: &KeySet, k: &Key| -> PyResult<bool> {
        Ok(find_key(vm, k, |p| s.get_index_of(p))?.is_some())
    };
    let mut out = KeySet::default();
    match op {
        '|' => {
            out = a.clone();
            for k in b {
                if !has(&out, k)? {
                    out.insert(k.clone());
                }
            }
        }
        '&' | '-' => {
            for k in a {
                if has(b, k)? == (op == '&') {
                    out.insert(k.clone());
                }
            }
        }
        _ => {
            for k in a {
                if !has(b, k)? {
                    out.insert(k.clone());
                }
            }
            for k in b {
                if !has(a, k)? {
                    out.insert(k.clone());
                }
            }
        }
    }
    Ok(out)
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
        // Without an interpreter a key cannot call __hash__; callers that
        // have one use Key::with_vm.
        Value::Instance(i) => match i.class.lookup("__hash__") {
            Some(Value::None) => Err(unhashable(v)),
            Some(_) => Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "'{}' defines __hash__: such objects cannot be keys of this dict or set operation in dist yet",
                    i.class.name
                ),
            )),
            None => match i.builtin_base() {
                Some(base) => check_hashable(base).map_err(|_| unhashable(v)),
                None => Ok(()),
            },
        },
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
    if (0..HASH_MODULUS).contains(&i) {
        return i;
    }
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
            let hashes: Vec<i64> = items.iter().map(py_hash).collect();
            tuple_hash(&hashes)
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
        Value::BoundMethod(m) => ((m.receiver.id() >> 4) as i64) ^ py_hash(&m.func),
        Value::Instance(i) if i.builtin_base().is_some() => {
            i.builtin_base().map(py_hash).unwrap_or_default()
        }
        Value::NativeFunction(n) => match &n.bound {
            Some(r) => ((r.id() >> 4) as i64) ^ fnv(n.sig.name.as_bytes()),
            None => (v.id() >> 4) as i64,
        },
        other => (other.id() >> 4) as i64,
    }
}

/// CPython's tuplehash (xxHash primes) of the items' hashes, so
/// `hash((1, 2))` matches.
fn tuple_hash(hashes: &[i64]) -> i64 {
    const P1: u64 = 11400714785074694791;
    const P2: u64 = 14029467366897019727;
    const P5: u64 = 2870177450012600261;
    let mut acc: u64 = P5;
    for lane in hashes {
        acc = acc.wrapping_add((*lane as u64).wrapping_mul(P2));
        acc = acc.rotate_left(31);
        acc = acc.wrapping_mul(P1);
    }
    acc = acc.wrapping_add(hashes.len() as u64 ^ (P5 ^ 3527539));
    let h = acc as i64;
    if h == -1 {
        1546275796
    } else {
        h
    }
}

fn fnv(bytes: &[u8]) -> i64 {
    // CPython's hash of an empty str or bytes is 0 (the others are salted
    // per process there, so no other value can match).
    if bytes.is_empty() {
        return 0;
    }
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    (h >> 1) as i64
}

/// The hasher of dict and set tables. A key feeds it one word, Python's
/// `hash()` of the key (see `impl Hash for Key`), which this only has to
/// spread over the table's bits: one full multiply (the 128-bit product's
/// halves folded together), where the default SipHash cost more than the
/// rest of a `d[i] = x`. Both halves count: hashbrown places a key by the
/// low bits of its hash, and a product's low half depends only on the key's
/// low bits, so keys that differ only in high bits (`i << 32`, and floats
/// such as `i / 1024`, whose Python hashes are multiples of 2**51) would
/// share one home bucket. Iteration order does not depend on it (the maps keep
/// insertion order), and nothing here needs resistance to collision attacks.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

pub static HMODE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
#[inline]
fn fold(x: u64) -> u64 {
    let p = (x as u128) * KEY_HASH_MUL as u128;
    (p as u64) ^ ((p >> 64) as u64)
}
const KEY_HASH_MUL: u64 = 0xf135_7aea_2e62_a9c5;

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
        let mode = HMODE.load(std::sync::atomic::Ordering::Relaxed);
        if mode == 1 {
            const B: u32 = 7;
            let lowm = (1u64 << B) - 1;
            let m = fold(i >> B);
            let h = (m << B) | ((i ^ m) & lowm);
            let tag = fold(i) & (0x7f << 57);
            self.0 = (h & !(0x7fu64 << 57)) | tag;
            return;
        }
        if mode == 2 {
            self.0 = (self.0 ^ i).wrapping_mul(0x517c_c1b7_2722_0a95);
            return;
        }
        self.0 = fold(self.0 ^ i);
    }

    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }
}

/// The `BuildHasher` of set tables (a default [`KeyHasher`] per hash).
pub type KeyHash = BuildHasherDefault<KeyHasher>;

/// The elements of a set, in insertion order.
pub type KeySet = IndexSet<Key, KeyHash>;

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_i64(self.1);
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.1 == other.1 && key_eq(&self.0, &other.0)
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
        // Bound methods are equal when they bind the same object (by
        // identity) to equal functions: `a.m == a.m`.
        (Value::BoundMethod(x), Value::BoundMethod(y)) => {
            x.receiver.is(&y.receiver) && key_eq(&x.func, &y.func)
        }
        (Value::NativeFunction(x), Value::NativeFunction(y)) => match (&x.bound, &y.bound) {
            (Some(r), Some(s)) => {
                r.is(s) && std::ptr::fn_addr_eq(x.func, y.func) && x.sig.name == y.sig.name
            }
            _ => a.is(b),
        },
        _ => match (num(a), num(b)) {
            (Some(Num::I(x)), Some(Num::I(y))) => x == y,
            // The same NaN object is the same key (identity before equality).
            (Some(Num::F(x)), Some(Num::F(y))) => x == y || x.to_bits() == y.to_bits(),
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

    /// Inserts or replaces (keeps the first insertion's position, as Python).
    pub fn insert(&mut self, key: Value, value: Value) -> PyResult<()> {
        self.map.insert(Key::new(key)?, value);
        Ok(())
    }

    /// Inserts with a string key.
    pub fn insert_str(&mut self, key: &str, value: Value) {
        self.map.insert(Key::str(key), value);
    }

    /// Inserts through `vm` (an existing equal key keeps its place and
    /// identity, as Python). For a dict being built, not yet visible to the
    /// script: a shared one uses [`dict_set`], which calls `__eq__` with no
    /// borrow of its `RefCell` held.
    pub fn insert_vm(&mut self, vm: &dyn Vm, key: Value, value: Value) -> PyResult<()> {
        let key = Key::with_vm(key, vm)?;
        if !self.vm_keys && !compares_in_vm(&key.0) {
            // Builtin keys in a dict of builtin keys: one lookup, no call.
            self.map.insert(key, value);
            return Ok(());
        }
        let this: &Dict = self;
        let found = find_key(vm, &key, |p| this.map.get_index_of(p))?;
        self.put(found, key, value);
        Ok(())
    }

    /// Stores `value` at the index a lookup found, or inserts `key`.
    fn put(&mut self, found: Option<usize>, key: Key, value: Value) {
        match found {
            Some(i) => {
                if let Some((_, slot)) = self.map.get_index_mut(i) {
                    *slot = value;
                }
            }
            None => {
                self.vm_keys |= compares_in_vm(&key.0);
                self.map.insert(key, value);
            }
        }
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
            i = super::table::next_probe(i, &mut perturb, mask);
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
    pub fn from_keys<'a>(keys: impl IntoIterator<Item = &'a Key>) -> SetTable {
        let mut t = SetTable::default();
        for k in keys {
            t.add(k.clone());
        }
        t
    }
}

/// Whether CPython's hash of the value is fixed across runs (numbers,
/// tuples of them, instances hashing with their own `__hash__`), so its set
/// iteration order can be reproduced.
fn stable_hash(v: &Value) -> bool {
    match v {
        Value::Bool(_) | Value::Int(_) | Value::Float(_) => true,
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
        let mut items = KeySet::with_capacity_and_hasher(t.len(), Default::default());
        items.extend(t.keys().cloned());
        *self.items.borrow_mut() = items;
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
    pub fn replace_items(&self, items: KeySet) {
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
    pub fn new(items: KeySet, frozen: bool) -> SetObj {
        SetObj {
            items: RefCell::new(items),
            frozen,
            table: RefCell::new(None),
        }
    }

    /// A set with CPython's table `t` (elements when hashes are not stable:
    /// `fallback`, in insertion order).
    pub fn with_table(t: Option<SetTable>, fallback: KeySet, frozen: bool) -> SetObj {
        let s = SetObj::new(fallback, frozen);
        if let Some(t) = t {
            s.set_table(t);
        }
        s
    }
}
