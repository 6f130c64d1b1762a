//! The Mersenne Twister (MT19937), the one core behind CPython's
//! `random.Random` (the op seeds of TensorFlow's stateful ops) and numpy's
//! legacy `RandomState`: the generator, CPython's and numpy's ways of
//! seeding it, and the draws both build on (32 and 64 bits, and the 53-bit
//! double made of two 32-bit words).

/// One Mersenne Twister state: 624 words and the position of the next.
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

    /// numpy's `RandomState(seed)` / `np.random.seed(seed)` for an int seed
    /// in `[0, 2**32)`: `mt19937_seed`, the reference `init_genrand(seed)`.
    pub fn numpy_seed(seed: u32) -> Mt19937 {
        Mt19937::from_u32(seed)
    }

    /// numpy's seeding by an array of 32-bit words (`np.random.seed([1, 2])`):
    /// `init_by_array(key)`.
    pub fn from_key(key: &[u32]) -> Mt19937 {
        let mut mt = Mt19937::from_u32(19_650_218);
        mt.mix_in(if key.is_empty() { &[0] } else { key });
        mt
    }

    /// A state from its 624 words and position (numpy's `set_state`).
    pub fn from_state(words: &[u32; 624], pos: usize) -> Mt19937 {
        Mt19937 {
            state: Box::new(*words),
            index: pos.min(624),
        }
    }

    /// The 624 words and the position (numpy's `get_state`).
    pub fn state(&self) -> (&[u32; 624], usize) {
        (&self.state, self.index)
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

    /// numpy's `mt19937_next64`: two words, the first the high half.
    pub fn next_u64(&mut self) -> u64 {
        let hi = self.next_u32() as u64;
        (hi << 32) | self.next_u32() as u64
    }

    /// A double in `[0, 1)` from 53 bits of two words (`a >> 5`, `b >> 6`):
    /// CPython's `random()` and numpy's legacy `rk_double`.
    pub fn next_double(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
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
        assert_eq!(Mt19937::new(0).next_double(), 0.8444218515250481);
    }

    #[test]
    fn numpy_seeding_matches_numpy() {
        // np.random.RandomState(0).random_sample() and
        // np.random.RandomState([1, 2]).random_sample()
        assert_eq!(Mt19937::numpy_seed(0).next_double(), 0.5488135039273248);
        assert_eq!(Mt19937::from_key(&[1, 2]).next_double(), 0.5845141492495678);
    }
}
