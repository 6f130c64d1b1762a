//! Seeds and streams of TensorFlow's stateful random ops in eager mode.
//!
//! An op's Python wrapper turns the global seed (`tf.random.set_seed`) and
//! its own `seed=` into the kernel attributes `seed`/`seed2`
//! ([`SeedState::op_seeds`]): with a global seed but no op seed, the op seed
//! is the next draw of a Python `random.Random(global_seed)`, so successive
//! ops differ but a program replays. The kernel then owns a Philox stream
//! keyed by those seeds, and eager TensorFlow caches kernels: an op run
//! again with the same attributes on the same device continues the same
//! stream ([`SeedState::reserve`]). `set_seed` clears that cache.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use super::philox::Philox;
use crate::runtime::device::Device;
use crate::runtime::dtype::DType;

/// `2**31 - 1`: seeds are reduced modulo this (`random_seed._MAXINT32`).
pub const MAXINT32: i64 = (1 << 31) - 1;

/// The graph seed TensorFlow pairs with an op seed when no global seed is set.
pub const DEFAULT_GRAPH_SEED: i64 = 87654321;

/// CPython's Mersenne Twister (MT19937), just enough of `random.Random` for
/// `Random(seed).randint(0, 2**31 - 1)`.
#[derive(Clone)]
pub struct Mt19937 {
    state: Box<[u32; 624]>,
    index: usize,
}

impl Mt19937 {
    /// `random.Random(seed)` for an int seed (its absolute value, split into
    /// 32-bit words, least significant first, seeds `init_by_array`).
    pub fn new(seed: i64) -> Mt19937 {
        let mut a = seed.unsigned_abs();
        let mut key = Vec::new();
        while a != 0 {
            key.push(a as u32);
            a >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        let mut mt = Mt19937::from_u32(19_650_218);
        mt.mix_in(&key);
        mt
    }

    /// `init_genrand(s)`.
    fn from_u32(s: u32) -> Mt19937 {
        let mut state = Box::new([0u32; 624]);
        state[0] = s;
        for i in 1..624 {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { state, index: 624 }
    }

    /// The body of `init_by_array(key)`.
    fn mix_in(&mut self, key: &[u32]) {
        let mt = &mut self.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..624.max(key.len()) {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= 624 {
                mt[0] = mt[623];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..623 {
            let prev = mt[i - 1];
            mt[i] =
                (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= 624 {
                mt[0] = mt[623];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
    }

    /// `genrand_uint32()`.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9D2C_5680;
        y ^= (y << 15) & 0xEFC6_0000;
        y ^ (y >> 18)
    }

    fn twist(&mut self) {
        let mt = &mut self.state;
        for k in 0..624 {
            let y = (mt[k] & 0x8000_0000) | (mt[(k + 1) % 624] & 0x7FFF_FFFF);
            let mut v = mt[(k + 397) % 624] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_B0DF;
            }
            mt[k] = v;
        }
        self.index = 0;
    }

    /// `randint(0, 2**31 - 1)`: 32-bit draws until one is below `2**31`.
    pub fn randint_31(&mut self) -> i64 {
        loop {
            let r = self.next_u32();
            if r < 1 << 31 {
                return r as i64;
            }
        }
    }
}

/// Which cached kernel a stateful op runs: TensorFlow's eager kernel cache
/// tells kernels apart by op, attributes and device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelKey {
    /// The op (`RandomUniform`, `RandomStandardNormal` …).
    pub op: &'static str,
    /// The output dtype.
    pub dtype: DType,
    /// The dtype of the shape input (int32 or int64).
    pub shape_dtype: DType,
    /// The `seed` and `seed2` attributes.
    pub seeds: (i64, i64),
    /// Where the op runs.
    pub device: Device,
}

/// The random state of one interpreter (TensorFlow's eager context).
#[derive(Default)]
pub struct SeedState {
    /// The global seed, as given to `set_seed` (None: unset).
    global: Cell<Option<i64>>,
    /// The op-seed generator, `random.Random(global_seed)`.
    ops: RefCell<Option<Mt19937>>,
    /// The Philox stream of every kernel run so far.
    kernels: RefCell<HashMap<KernelKey, Philox>>,
}

impl SeedState {
    /// `tf.random.set_seed(seed)`: a new global seed and op-seed sequence;
    /// every kernel's stream starts over.
    pub fn set_global_seed(&self, seed: Option<i64>) {
        self.global.set(seed);
        *self.ops.borrow_mut() = seed.map(Mt19937::new);
        self.kernels.borrow_mut().clear();
    }

    /// The global seed, if set.
    pub fn global_seed(&self) -> Option<i64> {
        self.global.get()
    }

    /// TensorFlow's `random_seed.get_seed(op_seed)`: the `(seed, seed2)`
    /// attributes of the next op, `(0, 0)` when neither seed is set (the
    /// kernel then seeds itself at random).
    pub fn op_seeds(&self, op_seed: Option<i64>) -> (i64, i64) {
        let seeds = match (self.global.get(), op_seed) {
            (Some(g), Some(o)) => (truncate(g), truncate(o)),
            (Some(g), None) => {
                let o = self
                    .ops
                    .borrow_mut()
                    .get_or_insert_with(|| Mt19937::new(g))
                    .randint_31();
                (truncate(g), truncate(o))
            }
            (None, Some(o)) => (DEFAULT_GRAPH_SEED, truncate(o)),
            (None, None) => return (0, 0),
        };
        // (0, 0) means "unseeded" to the kernels, which Python's API never asks for
        if seeds == (0, 0) {
            (0, MAXINT32)
        } else {
            seeds
        }
    }

    /// The stream position for an op that writes `outputs` elements: the
    /// kernel's stream as it is now, which then skips 256 blocks per output
    /// (TensorFlow's conservative reservation), so the next run of the same
    /// kernel draws fresh numbers.
    pub fn reserve(&self, key: KernelKey, outputs: u64) -> Philox {
        self.reserve_blocks(key, outputs.wrapping_mul(256))
    }

    /// The stream position of kernel `key`, which then skips `blocks`
    /// blocks (the kernel's reservation).
    pub fn reserve_blocks(&self, key: KernelKey, blocks: u64) -> Philox {
        if crate::runtime::graph::tracing() {
            crate::runtime::graph::taint(|| {
                "a stateful random op is not recorded in graphs yet".into()
            });
        }
        let mut kernels = self.kernels.borrow_mut();
        let gen = kernels.entry(key).or_insert_with(|| {
            let (s1, s2) = key.seeds;
            if (s1, s2) == (0, 0) {
                Philox::from_seeds(entropy(), entropy())
            } else {
                Philox::from_seeds(s1 as u64, s2 as u64)
            }
        });
        let now = *gen;
        gen.skip(blocks);
        now
    }
}

/// `seed % (2**31 - 1)` with Python's sign rule.
fn truncate(seed: i64) -> i64 {
    seed.rem_euclid(MAXINT32)
}

/// 64 unpredictable bits for unseeded kernels (TensorFlow draws them from
/// the OS; any source will do, as unseeded results are not reproducible).
pub fn entropy() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mersenne_twister_matches_cpython() {
        // python3 -c "import random; r = random.Random(5); print([r.getrandbits(32) for _ in range(2)])"
        let mut r = Mt19937::new(5);
        assert_eq!(r.next_u32(), 2_675_342_405);
        assert_eq!(r.next_u32(), 1_097_127_993);
        let mut r = Mt19937::new(1);
        assert_eq!((r.randint_31(), r.randint_31()), (577_090_037, 271_041_745));
        // random.Random(0).random() is 0.8444218515250481
        let mut r = Mt19937::new(0);
        let (a, b) = ((r.next_u32() >> 5) as f64, (r.next_u32() >> 6) as f64);
        assert_eq!(
            (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0,
            0.8444218515250481
        );
    }

    #[test]
    fn op_seeds_follow_tensorflow_rules() {
        let s = SeedState::default();
        assert_eq!(s.op_seeds(None), (0, 0));
        assert_eq!(s.op_seeds(Some(5)), (DEFAULT_GRAPH_SEED, 5));
        s.set_global_seed(Some(0));
        assert_eq!(s.op_seeds(Some(0)), (0, MAXINT32));
        assert_eq!(s.op_seeds(Some(-1)), (0, MAXINT32 - 1));
    }
}
