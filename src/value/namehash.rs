//! The hasher of attribute namespaces (class, instance and module dicts keyed
//! by identifier). Keys are short identifiers the program itself wrote, so a
//! multiply-rotate hash over 8-byte words (the FxHash scheme rustc uses) is
//! enough, and several times cheaper than SipHash on the method-call path.

use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use indexmap::IndexMap;

use super::Value;

/// A name → value namespace in insertion order.
pub type Namespace = IndexMap<Rc<str>, Value, BuildHasherDefault<NameHasher>>;

/// FxHash-style hasher for identifier keys.
#[derive(Default, Clone, Copy)]
pub struct NameHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl NameHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_by_str_find_rc_str_keys() {
        let mut ns = Namespace::default();
        for name in [
            "append",
            "extend",
            "a",
            "__init__",
            "a_much_longer_identifier_name",
        ] {
            ns.insert(name.into(), Value::Int(name.len() as i64));
        }
        assert!(matches!(ns.get("__init__"), Some(Value::Int(8))));
        assert!(matches!(
            ns.get("a_much_longer_identifier_name"),
            Some(Value::Int(29))
        ));
        assert!(ns.get("appen").is_none());
        assert_eq!(ns.get_index_of("extend"), Some(1));
    }
}
