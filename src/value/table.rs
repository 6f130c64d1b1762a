//! The hash table of dicts: CPython's compact dict layout. Entries are kept
//! densely in insertion order; a separate open-addressing index maps a
//! key's Python `hash()` to its entry, probed as CPython probes
//! (`i = i*5 + perturb + 1`, `perturb >>= 5`), so that the hash itself is
//! the home slot. Consecutive ints then sit in consecutive slots, a lookup
//! touches one index word and one entry, and keys that differ only in high
//! bits (`i << 32`, floats like `i / 1024`) reach every slot through the
//! perturbation. Removing an entry closes the gap (insertion order and
//! positions stay dense, as the dict iterators count on).

use super::dict::Key;
use super::value::Value;

/// An index slot that never held an entry (a probe stops there).
const EMPTY: u32 = u32::MAX;
/// An index slot whose entry was removed (a probe goes on past it).
const DUMMY: u32 = u32::MAX - 1;
/// Smallest index size.
const MIN_SIZE: usize = 8;
/// How far the perturbation shifts per probe.
const PERTURB_SHIFT: u32 = 5;

/// What a lookup looks for: a hash and an equality with stored keys.
pub trait Lookup {
    /// Python's `hash()` of the key looked for.
    fn lookup_hash(&self) -> i64;
    /// Whether the stored key (its hash already equal) is the one.
    fn matches(&self, stored: &Key) -> bool;
}

impl Lookup for Key {
    fn lookup_hash(&self) -> i64 {
        self.hash_value()
    }

    fn matches(&self, stored: &Key) -> bool {
        self == stored
    }
}

/// One entry: the key (holding its hash) and the value.
#[derive(Clone, Debug)]
struct Entry {
    key: Key,
    value: Value,
}

/// An insertion-ordered hash table from [`Key`] to [`Value`].
#[derive(Clone, Debug, Default)]
pub struct DictTable {
    /// Entry positions by slot (`EMPTY`, `DUMMY`, or an index into
    /// `entries`); empty until the first insertion, then a power of two.
    /// 32 bits are enough: 2**32 entries of 40 bytes would need 160 GiB.
    index: Vec<u32>,
    entries: Vec<Entry>,
    /// `DUMMY` slots in `index`.
    dummies: usize,
}

impl DictTable {
    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The slot holding the entry `q` looks for (`Ok`), or the first free
    /// slot of its probe sequence (`Err`: the first dummy met, else the empty
    /// slot that ended it). The index must not be empty.
    #[inline]
    fn probe(&self, q: &impl Lookup) -> Result<usize, usize> {
        let hash = q.lookup_hash();
        let mask = self.index.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let mut free = None;
        loop {
            match self.index[i] {
                EMPTY => return Err(free.unwrap_or(i)),
                DUMMY => {
                    free.get_or_insert(i);
                }
                e => {
                    let stored = &self.entries[e as usize].key;
                    if stored.hash_value() == hash && q.matches(stored) {
                        return Ok(i);
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

    /// The position (in insertion order) of the entry `q` looks for.
    #[inline]
    pub fn get_index_of(&self, q: &impl Lookup) -> Option<usize> {
        if self.entries.is_empty() {
            return None;
        }
        self.probe(q).ok().map(|slot| self.index[slot] as usize)
    }

    /// The value of the entry `q` looks for.
    #[inline]
    pub fn get(&self, q: &impl Lookup) -> Option<&Value> {
        self.get_index_of(q).map(|i| &self.entries[i].value)
    }

    /// The entry at position `i`.
    pub fn get_index(&self, i: usize) -> Option<(&Key, &Value)> {
        self.entries.get(i).map(|e| (&e.key, &e.value))
    }

    /// The entry at position `i`, its value writable.
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&Key, &mut Value)> {
        self.entries.get_mut(i).map(|e| (&e.key, &mut e.value))
    }

    /// Inserts `key`, or replaces the value of an equal key already there
    /// (which keeps its place and its identity, as Python's); the old value.
    #[inline]
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        if self.index.is_empty() {
            self.rebuild(MIN_SIZE);
        }
        match self.probe(&key) {
            Ok(slot) => {
                let e = &mut self.entries[self.index[slot] as usize];
                Some(std::mem::replace(&mut e.value, value))
            }
            Err(mut slot) => {
                // Slots in use (entries and dummies) stay under 2/3 of the index.
                let reused = self.index[slot] == DUMMY;
                if !reused && (self.entries.len() + self.dummies + 1) * 3 > self.index.len() * 2 {
                    self.grow(self.entries.len() + 1);
                    slot = self.free_slot(key.hash_value());
                } else if reused {
                    self.dummies -= 1;
                }
                self.index[slot] = self.entries.len() as u32;
                self.entries.push(Entry { key, value });
                None
            }
        }
    }

    /// The first slot of `hash`'s probe sequence that holds no entry (for a
    /// key known to be absent, in an index without dummies).
    fn free_slot(&self, hash: i64) -> usize {
        let mask = self.index.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        while self.index[i] != EMPTY {
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
        i
    }

    /// Resizes the index for `used` entries (three times as many slots, as
    /// CPython's growth rate, rounded up to a power of two).
    fn grow(&mut self, used: usize) {
        let size = (used * 3).max(MIN_SIZE).next_power_of_two();
        self.rebuild(size);
    }

    /// Rebuilds the index at `size` slots, without dummies.
    fn rebuild(&mut self, size: usize) {
        self.index.clear();
        self.index.resize(size, EMPTY);
        self.dummies = 0;
        for (n, e) in self.entries.iter().enumerate() {
            let slot = self.free_slot(e.key.hash_value());
            self.index[slot] = n as u32;
        }
    }

    /// Removes the entry `q` looks for, closing the gap; its value.
    pub fn shift_remove(&mut self, q: &impl Lookup) -> Option<Value> {
        let i = self.get_index_of(q)?;
        self.shift_remove_index(i).map(|(_, v)| v)
    }

    /// Removes the entry at position `i`, closing the gap (the entries after
    /// it move one place down).
    pub fn shift_remove_index(&mut self, i: usize) -> Option<(Key, Value)> {
        if i >= self.entries.len() {
            return None;
        }
        let last = i + 1 == self.entries.len();
        let slot = match self.probe(&Identity(&self.entries[i].key)) {
            Ok(slot) => slot,
            Err(_) => unreachable!("every entry is indexed"),
        };
        self.index[slot] = DUMMY;
        self.dummies += 1;
        let e = self.entries.remove(i);
        if !last {
            let i = i as u32;
            for s in self.index.iter_mut() {
                if *s < DUMMY && *s > i {
                    *s -= 1;
                }
            }
        }
        if self.entries.is_empty() {
            // An emptied dict starts again from a small index.
            *self = DictTable::default();
        } else if self.dummies > self.entries.len() && self.index.len() > MIN_SIZE {
            self.grow(self.entries.len());
        }
        Some((e.key, e.value))
    }

    /// Removes the last entry (`popitem`).
    pub fn pop(&mut self) -> Option<(Key, Value)> {
        let n = self.entries.len();
        if n == 0 {
            return None;
        }
        self.shift_remove_index(n - 1)
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        *self = DictTable::default();
    }

    /// The entries in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Key, &Value)> + ExactSizeIterator {
        self.entries.iter().map(|e| (&e.key, &e.value))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator {
        self.entries.iter().map(|e| &e.key)
    }

    /// The values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|e| &e.value)
    }
}

/// A lookup of the very key object stored (by identity, hash equal).
struct Identity<'a>(&'a Key);

impl Lookup for Identity<'_> {
    fn lookup_hash(&self) -> i64 {
        self.0.hash_value()
    }

    fn matches(&self, stored: &Key) -> bool {
        std::ptr::eq(self.0, stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(i: i64) -> Key {
        Key::new(Value::Int(i)).unwrap()
    }

    fn int(v: Option<&Value>) -> Option<i64> {
        match v {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        }
    }

    #[test]
    fn insert_get_replace_keep_order() {
        let mut t = DictTable::default();
        for i in 0..1000 {
            assert!(t.insert(k(i * 7919 % 1000), Value::Int(i)).is_none());
        }
        assert_eq!(t.len(), 1000);
        let old = (0..1000).find(|i| i * 7919 % 1000 == 5);
        assert_eq!(int(t.insert(k(5), Value::Int(-1)).as_ref()), old);
        assert_eq!(int(t.get(&k(5))), Some(-1));
        let order: Vec<i64> = t.keys().map(|k| int(Some(&k.0)).unwrap()).collect();
        let want: Vec<i64> = (0..1000).map(|i| i * 7919 % 1000).collect();
        assert_eq!(order, want);
    }

    #[test]
    fn high_bit_keys_spread() {
        let mut t = DictTable::default();
        for i in 0..5000 {
            t.insert(k(i << 40), Value::Int(i));
        }
        for i in 0..5000 {
            assert_eq!(int(t.get(&k(i << 40))), Some(i));
        }
        assert!(t.get(&k(1)).is_none());
    }

    #[test]
    fn removal_closes_gaps_and_keeps_lookups() {
        let mut t = DictTable::default();
        for i in 0..200 {
            t.insert(k(i), Value::Int(i));
        }
        for i in (0..200).step_by(3) {
            assert_eq!(int(t.shift_remove(&k(i)).as_ref()), Some(i));
        }
        assert!(t.shift_remove(&k(0)).is_none());
        let left: Vec<i64> = (0..200).filter(|i| i % 3 != 0).collect();
        assert_eq!(t.len(), left.len());
        for (pos, i) in left.iter().enumerate() {
            assert_eq!(t.get_index_of(&k(*i)), Some(pos));
        }
        // Dummies are reused and the index stays bounded.
        for round in 0..50 {
            t.insert(k(1000 + round), Value::None);
            t.shift_remove(&k(1000 + round));
        }
        assert!(t.index.len() <= 1024);
        assert_eq!(t.pop().map(|(k, _)| int(Some(&k.0))), Some(Some(199)));
        t.clear();
        assert!(t.is_empty() && t.get(&k(1)).is_none());
    }
}
