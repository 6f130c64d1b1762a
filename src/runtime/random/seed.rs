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

use super::mt19937::Mt19937;
use super::philox::Philox;
use crate::runtime::device::Device;
use crate::runtime::dtype::DType;

/// `2**31 - 1`: seeds are reduced modulo this (`random_seed._MAXINT32`).
pub const MAXINT32: i64 = (1 << 31) - 1;

/// The graph seed TensorFlow pairs with an op seed when no global seed is set.
pub const DEFAULT_GRAPH_SEED: i64 = 87654321;

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

    /// The `(seed, seed2)` of a random op traced into a function graph
    /// whose `_last_id` is `last_id` (TensorFlow's `get_seed` in graph
    /// mode; `(0, 0)`, unseeded, without a global seed).
    pub fn graph_op_seeds(&self, last_id: i64) -> (i64, i64) {
        match self.global.get() {
            None => (0, 0),
            Some(g) => match (truncate(g), truncate(last_id)) {
                (0, 0) => (0, MAXINT32),
                seeds => seeds,
            },
        }
    }

    /// The stream of a kernel made anew with these seeds (a function's
    /// kernel, instantiated again by each iterator of a dataset).
    pub fn fresh(seeds: (i64, i64)) -> Philox {
        if seeds == (0, 0) {
            Philox::from_seeds(entropy(), entropy())
        } else {
            Philox::from_seeds(seeds.0 as u64, seeds.1 as u64)
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
    fn op_seeds_follow_tensorflow_rules() {
        let s = SeedState::default();
        assert_eq!(s.op_seeds(None), (0, 0));
        assert_eq!(s.op_seeds(Some(5)), (DEFAULT_GRAPH_SEED, 5));
        s.set_global_seed(Some(0));
        assert_eq!(s.op_seeds(Some(0)), (0, MAXINT32));
        assert_eq!(s.op_seeds(Some(-1)), (0, MAXINT32 - 1));
    }
}
