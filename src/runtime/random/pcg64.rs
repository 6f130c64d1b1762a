//! numpy's default bit generator: PCG64 (PCG XSL-RR 128/64), seeded
//! through numpy's `SeedSequence` (the entropy hashed into a pool of four
//! 32-bit words, the pool stretched into the generator's 256 bits), as
//! `np.random.default_rng(seed)` seeds it.

/// PCG's default 128-bit LCG multiplier.
const MULTIPLIER: u128 = (2_549_297_995_355_413_924u128 << 64) | 4_865_540_595_714_422_341u128;

const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
/// Half the bits of a word.
const XSHIFT: u32 = 16;
/// numpy's default pool size, in words.
const POOL_SIZE: usize = 4;

/// The entropy of an int seed as numpy lays it out: 32-bit words, least
/// significant first (`[0]` for zero).
pub fn int_words(mut n: u128) -> Vec<u32> {
    let mut words = Vec::new();
    if n == 0 {
        words.push(0);
    }
    while n > 0 {
        words.push(n as u32);
        n >>= 32;
    }
    words
}

/// `hashmix`: one word through the running multiplier `hash_const`.
fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut v = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    v = v.wrapping_mul(*hash_const);
    v ^ (v >> XSHIFT)
}

fn mix(x: u32, y: u32) -> u32 {
    let r = MIX_MULT_L
        .wrapping_mul(x)
        .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    r ^ (r >> XSHIFT)
}

/// numpy's `SeedSequence(entropy)` (no spawn key): its mixed pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSequence {
    pool: [u32; POOL_SIZE],
}

impl SeedSequence {
    /// The sequence of the entropy words `entropy` (`mix_entropy`).
    pub fn new(entropy: &[u32]) -> SeedSequence {
        let mut pool = [0u32; POOL_SIZE];
        let mut hash_const = INIT_A;
        for (i, p) in pool.iter_mut().enumerate() {
            *p = hashmix(entropy.get(i).copied().unwrap_or(0), &mut hash_const);
        }
        for src in 0..POOL_SIZE {
            for dst in 0..POOL_SIZE {
                if src != dst {
                    pool[dst] = mix(pool[dst], hashmix(pool[src], &mut hash_const));
                }
            }
        }
        for &word in entropy.iter().skip(POOL_SIZE) {
            for p in pool.iter_mut() {
                *p = mix(*p, hashmix(word, &mut hash_const));
            }
        }
        SeedSequence { pool }
    }

    /// `generate_state(n, np.uint32)`.
    pub fn generate_u32(&self, n: usize) -> Vec<u32> {
        let mut hash_const = INIT_B;
        (0..n)
            .map(|i| {
                let mut v = self.pool[i % POOL_SIZE] ^ hash_const;
                hash_const = hash_const.wrapping_mul(MULT_B);
                v = v.wrapping_mul(hash_const);
                v ^ (v >> XSHIFT)
            })
            .collect()
    }

    /// `generate_state(n, np.uint64)`: pairs of words, little-endian.
    pub fn generate_u64(&self, n: usize) -> Vec<u64> {
        self.generate_u32(2 * n)
            .chunks(2)
            .map(|w| w[0] as u64 | (w[1] as u64) << 32)
            .collect()
    }
}

/// One PCG64 state, with numpy's cached upper half for 32-bit draws.
#[derive(Clone, Debug)]
pub struct Pcg64 {
    state: u128,
    inc: u128,
    /// The upper 32 bits of the last 64-bit draw, not yet handed out.
    cached: Option<u32>,
}

impl Pcg64 {
    /// `PCG64(SeedSequence)`: four 64-bit words, the state then the stream.
    pub fn from_seed_sequence(seq: &SeedSequence) -> Pcg64 {
        let w = seq.generate_u64(4);
        let seed = (w[0] as u128) << 64 | w[1] as u128;
        let stream = (w[2] as u128) << 64 | w[3] as u128;
        let mut g = Pcg64 {
            state: 0,
            inc: (stream << 1) | 1,
            cached: None,
        };
        g.step();
        g.state = g.state.wrapping_add(seed);
        g.step();
        g
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
    }

    /// The next 64 bits (step, then the XSL-RR output of the new state).
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let s = self.state;
        ((s >> 64) as u64 ^ s as u64).rotate_right((s >> 122) as u32)
    }

    /// The next 32 bits: the low half of a 64-bit draw, its high half the
    /// next time.
    pub fn next_u32(&mut self) -> u32 {
        if let Some(hi) = self.cached.take() {
            return hi;
        }
        let v = self.next_u64();
        self.cached = Some((v >> 32) as u32);
        v as u32
    }

    /// A double in `[0, 1)`: the top 53 bits of a 64-bit draw.
    pub fn next_double(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rng_streams_match_numpy() {
        // np.random.SeedSequence(0).generate_state(4) and
        // np.random.default_rng(0).random(), .bit_generator.random_raw()
        let seq = SeedSequence::new(&int_words(0));
        assert_eq!(
            seq.generate_u32(4),
            [2_968_811_710, 3_677_149_159, 745_650_761, 2_884_920_346]
        );
        let mut g = Pcg64::from_seed_sequence(&seq);
        assert_eq!(g.next_double(), 0.6369616873214543);
        let mut g = Pcg64::from_seed_sequence(&SeedSequence::new(&int_words(12345)));
        assert_eq!(g.next_u64(), 4_193_609_425_186_963_869);
    }
}
