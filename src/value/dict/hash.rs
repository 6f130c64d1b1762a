//! Python's `hash()` of the builtin values (CPython's int, float, str and
//! tuple hashes, so `hash(1) == hash(1.0) == hash(True)`), the hashability
//! check, the hasher of the tables, and key equality as Python defines it
//! for builtins. The tables themselves are in `mod.rs` (dicts) and `set.rs`.

use std::hash::{BuildHasherDefault, Hash, Hasher};

use indexmap::IndexSet;

use super::Key;
use crate::object::types::num::{num, num_cmp, Num};
use crate::object::types::{check_alloc, memory_error, type_error};
use crate::value::error::{ExcType, PyErr, PyResult};
use crate::value::native::Vm;
use crate::value::value::Value;

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
                _ => Err(type_error("__hash__ method should return an integer")),
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
        // TensorFlow's variables define `__hash__` to raise this
        Value::Native(n) if n.is_variable() => Err(type_error(format!(
            "Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {})",
            vm.repr(v)?
        ))),
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
        Value::Native(n) => n.is_variable(),
        Value::Instance(i) => i.class.lookup("__hash__").is_some(),
        Value::Tuple(items) => items.iter().any(hashes_in_vm),
        _ => false,
    }
}

pub(super) fn check_hashable(v: &Value) -> PyResult<()> {
    match v {
        Value::List(_) | Value::Dict(_) => Err(unhashable(v)),
        Value::Set(s) if !s.frozen => Err(unhashable(v)),
        Value::Tuple(items) => items.iter().try_for_each(check_hashable),
        Value::Tensor(_) => Err(type_error(
            "Tensor is unhashable. Instead, use tensor.ref() as the key.",
        )),
        Value::Native(n) if !n.hashable() => Err(unhashable(v)),
        Value::Native(n) if n.is_variable() => Err(type_error(
            "Variable is unhashable. Instead, use variable.ref() as the key.",
        )),
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
    type_error(format!("unhashable type: '{}'", v.type_name()))
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
        Value::Long(n) => crate::object::types::long::hash_big(n),
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

pub(super) fn fnv(bytes: &[u8]) -> i64 {
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

/// The elements of a set, in insertion order. A script decides how big one
/// grows: it grows through [`keys_insert`] and is copied by [`keys_clone`]
/// (MemoryError when the allocation fails, never the process's abort).
pub type KeySet = IndexSet<Key, KeyHash>;

/// Room for `extra` more keys in `set`, or MemoryError.
pub fn keys_reserve(set: &mut KeySet, extra: usize) -> PyResult<()> {
    let total = set.len().checked_add(extra).ok_or_else(memory_error)?;
    // An entry (key and hash) and its index word.
    check_alloc(total, std::mem::size_of::<Key>() + 16)?;
    set.try_reserve(extra).map_err(|_| memory_error())
}

/// Adds `k` unless an equal key (by builtin equality) is there, growing the
/// set fallibly (doubling, so amortised O(1)); whether it was added.
#[inline]
pub fn keys_insert(set: &mut KeySet, k: Key) -> PyResult<bool> {
    if set.len() >= set.capacity() {
        keys_reserve(set, set.len().max(8))?;
    }
    Ok(set.insert(k))
}

/// A copy of `set`, or MemoryError.
pub fn keys_clone(set: &KeySet) -> PyResult<KeySet> {
    keys_from(set.iter().cloned())
}

/// A set of the keys, in order (equal ones once), or MemoryError.
pub fn keys_from(keys: impl IntoIterator<Item = Key>) -> PyResult<KeySet> {
    let keys = keys.into_iter();
    let mut out = KeySet::default();
    keys_reserve(&mut out, keys.size_hint().0)?;
    for k in keys {
        keys_insert(&mut out, k)?;
    }
    Ok(out)
}

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
            // Exactly, as Python compares ints with floats.
            (Some(x), Some(y)) => num_cmp(x, y) == Some(std::cmp::Ordering::Equal),
            _ => a.is(b),
        },
    }
}
