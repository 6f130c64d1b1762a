//! The hash table of dicts: CPython's compact dict layout. Entries are kept
//! in insertion order; a separate open-addressing index maps a key's Python
//! `hash()` to its entry, probed as CPython probes (`i = i*5 + perturb + 1`,
//! `perturb >>= 5`), so that the hash itself is the home slot. Consecutive
//! ints then sit in consecutive slots, a lookup touches one index word and
//! one entry, and keys that differ only in high bits (`i << 32`, floats like
//! `i / 1024`) reach every slot through the perturbation. Removing an entry
//! leaves a hole in its place (an iterator's position stays valid) and a
//! dummy in the index; the holes go when the index next grows.

use super::dict::Key;
use super::error::PyResult;
use super::value::Value;
use crate::object::types::{alloc_vec, reserve};

/// An index slot that never held an entry (a probe stops there).
const EMPTY: u32 = u32::MAX;
/// An index slot whose entry was removed (a probe goes on past it).
const DUMMY: u32 = u32::MAX - 1;
/// Smallest index size.
const MIN_SIZE: usize = 8;
/// How far the perturbation shifts per probe.
const PERTURB_SHIFT: u32 = 5;

/// The slot after `i` in a probe sequence (CPython's recurrence, shared by
/// dicts and the simulated set table): the perturbation brings the hash's
/// high bits in, one `PERTURB_SHIFT` at a time.
#[inline(always)]
pub fn next_probe(i: usize, perturb: &mut u64, mask: usize) -> usize {
    *perturb >>= PERTURB_SHIFT;
    i.wrapping_mul(5)
        .wrapping_add(1)
        .wrapping_add(*perturb as usize)
        & mask
}

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

/// An insertion-ordered hash table from [`Key`] to [`Value`]. Positions
/// (`get_index_of`, `next_entry`) count holes left by removals. Every
/// allocation it makes is fallible (MemoryError, never the process's abort):
/// a script decides how big it grows, so it has no `Clone` but
/// [`DictTable::try_clone`].
#[derive(Debug, Default)]
pub struct DictTable {
    /// Entry positions by slot (`EMPTY`, `DUMMY`, or an index into
    /// `entries`); empty until the first insertion, then a power of two.
    /// 32 bits are enough: 2**32 entries of 40 bytes would need 160 GiB.
    index: Vec<u32>,
    /// The entries in insertion order; None where one was removed.
    entries: Vec<Option<Entry>>,
    /// Live entries.
    live: usize,
    /// Index slots that are not `EMPTY` (live entries and dummies): kept
    /// under 2/3 of the index, so every probe meets an empty slot.
    fill: usize,
}

impl DictTable {
    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The slot holding the entry `q` looks for (`Ok`), or the empty slot
    /// that ended its probe sequence (`Err`). The index must not be empty.
    #[inline]
    fn probe(&self, q: &impl Lookup) -> Result<usize, usize> {
        let hash = q.lookup_hash();
        let mask = self.index.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            match self.index[i] {
                EMPTY => return Err(i),
                DUMMY => {}
                e => {
                    if let Some(stored) = &self.entries[e as usize] {
                        if stored.key.hash_value() == hash && q.matches(&stored.key) {
                            return Ok(i);
                        }
                    }
                }
            }
            i = next_probe(i, &mut perturb, mask);
        }
    }

    /// The position of the entry `q` looks for.
    #[inline]
    pub fn get_index_of(&self, q: &impl Lookup) -> Option<usize> {
        if self.live == 0 {
            return None;
        }
        self.probe(q).ok().map(|slot| self.index[slot] as usize)
    }

    /// The value of the entry `q` looks for.
    #[inline]
    pub fn get(&self, q: &impl Lookup) -> Option<&Value> {
        let i = self.get_index_of(q)?;
        self.entries[i].as_ref().map(|e| &e.value)
    }

    /// The first entry at position `from` or after, with its position.
    pub fn next_entry(&self, from: usize) -> Option<(usize, &Key, &Value)> {
        let rest = self.entries.get(from..)?;
        rest.iter()
            .enumerate()
            .find_map(|(n, e)| e.as_ref().map(|e| (from + n, &e.key, &e.value)))
    }

    /// The entry at position `i`, its value writable.
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&Key, &mut Value)> {
        self.entries
            .get_mut(i)?
            .as_mut()
            .map(|e| (&e.key, &mut e.value))
    }

    /// Inserts `key`, or replaces the value of an equal key already there
    /// (which keeps its place and its identity, as Python's); the old value.
    /// MemoryError when the table cannot grow (the table is left as it was).
    #[inline]
    pub fn insert(&mut self, key: Key, value: Value) -> PyResult<Option<Value>> {
        if self.index.is_empty() {
            self.rebuild(MIN_SIZE)?;
        }
        match self.probe(&key) {
            Ok(slot) => {
                let Some(e) = self.entries[self.index[slot] as usize].as_mut() else {
                    return Ok(None);
                };
                Ok(Some(std::mem::replace(&mut e.value, value)))
            }
            Err(mut slot) => {
                if (self.fill + 1) * 3 > self.index.len() * 2 {
                    // CPython's growth: three slots per live entry.
                    let size = ((self.live + 1) * 3).max(MIN_SIZE).next_power_of_two();
                    self.rebuild(size)?;
                    slot = self.free_slot(key.hash_value());
                }
                // Room first, so a failure leaves the index as it was
                // (`reserve` grows by doubling: amortised O(1) pushes).
                reserve(&mut self.entries, 1)?;
                self.index[slot] = self.entries.len() as u32;
                self.entries.push(Some(Entry { key, value }));
                self.live += 1;
                self.fill += 1;
                Ok(None)
            }
        }
    }

    /// A copy of the table (`dict.copy()`, `{**d}`), or MemoryError.
    pub fn try_clone(&self) -> PyResult<DictTable> {
        let mut index = alloc_vec(self.index.len())?;
        index.extend_from_slice(&self.index);
        let mut entries = alloc_vec(self.entries.len())?;
        entries.extend(self.entries.iter().cloned());
        Ok(DictTable {
            index,
            entries,
            live: self.live,
            fill: self.fill,
        })
    }

    /// The first empty slot of `hash`'s probe sequence.
    fn free_slot(&self, hash: i64) -> usize {
        let mask = self.index.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        while self.index[i] != EMPTY {
            i = next_probe(i, &mut perturb, mask);
        }
        i
    }

    /// Rebuilds the index at `size` slots, without dummies, and the entries
    /// without holes; MemoryError (the table unchanged) when the new index
    /// cannot be allocated. 32-bit positions: a table of 2**32 entries would
    /// need 160 GiB, past what `alloc_vec` grants.
    fn rebuild(&mut self, size: usize) -> PyResult<()> {
        let mut index = alloc_vec(size)?;
        index.resize(size, EMPTY);
        if self.entries.len() != self.live {
            self.entries.retain(Option::is_some);
        }
        self.index = index;
        for (n, e) in self.entries.iter().enumerate() {
            if let Some(e) = e {
                let slot = self.free_slot(e.key.hash_value());
                self.index[slot] = n as u32;
            }
        }
        self.fill = self.live;
        Ok(())
    }

    /// Removes the entry `q` looks for; its value.
    pub fn remove(&mut self, q: &impl Lookup) -> Option<Value> {
        let i = self.get_index_of(q)?;
        self.remove_index(i).map(|(_, v)| v)
    }

    /// Removes the entry at position `i` (the others keep their positions).
    pub fn remove_index(&mut self, i: usize) -> Option<(Key, Value)> {
        let key = &self.entries.get(i)?.as_ref()?.key;
        let Ok(slot) = self.probe(&Identity(key)) else {
            return None;
        };
        self.index[slot] = DUMMY;
        let e = self.entries[i].take()?;
        self.live -= 1;
        // Holes at the end go at once (`popitem` walks back over none).
        while let Some(None) = self.entries.last() {
            self.entries.pop();
        }
        Some((e.key, e.value))
    }

    /// Removes the last entry (`popitem`).
    pub fn pop(&mut self) -> Option<(Key, Value)> {
        let i = self.entries.len().checked_sub(1)?;
        self.remove_index(i)
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        *self = DictTable::default();
    }

    /// The entries in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Key, &Value)> {
        self.entries.iter().flatten().map(|e| (&e.key, &e.value))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> {
        self.entries.iter().flatten().map(|e| &e.key)
    }

    /// The values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> {
        self.entries.iter().flatten().map(|e| &e.value)
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
            assert!(t
                .insert(k(i * 7919 % 1000), Value::Int(i))
                .unwrap()
                .is_none());
        }
        assert_eq!(t.len(), 1000);
        let old = (0..1000).find(|i| i * 7919 % 1000 == 5);
        assert_eq!(int(t.insert(k(5), Value::Int(-1)).unwrap().as_ref()), old);
        assert_eq!(int(t.get(&k(5))), Some(-1));
        let order: Vec<i64> = t.keys().map(|k| int(Some(&k.0)).unwrap()).collect();
        let want: Vec<i64> = (0..1000).map(|i| i * 7919 % 1000).collect();
        assert_eq!(order, want);
    }

    #[test]
    fn high_bit_keys_spread() {
        let mut t = DictTable::default();
        for i in 0..5000 {
            t.insert(k(i << 40), Value::Int(i)).unwrap();
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
            t.insert(k(i), Value::Int(i)).unwrap();
        }
        for i in (0..200).step_by(3) {
            assert_eq!(int(t.remove(&k(i)).as_ref()), Some(i));
        }
        assert!(t.remove(&k(0)).is_none());
        let left: Vec<i64> = (0..200).filter(|i| i % 3 != 0).collect();
        assert_eq!(t.len(), left.len());
        // Positions stay where they were; walking skips the holes.
        for i in &left {
            assert_eq!(t.get_index_of(&k(*i)), Some(*i as usize));
        }
        let mut walked = Vec::new();
        let mut pos = 0;
        while let Some((p, key, _)) = t.next_entry(pos) {
            walked.push(int(Some(&key.0)).unwrap());
            pos = p + 1;
        }
        assert_eq!(walked, left);
        // Dummies and holes are cleared by growth: the index stays bounded.
        for round in 0..5000 {
            t.insert(k(1000 + round), Value::None).unwrap();
            t.remove(&k(1000 + round));
        }
        assert!(t.index.len() <= 1024, "{}", t.index.len());
        assert_eq!(t.len(), left.len());
        assert_eq!(t.pop().map(|(k, _)| int(Some(&k.0))), Some(Some(199)));
        t.clear();
        assert!(t.is_empty() && t.get(&k(1)).is_none());
    }
}
