//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
//! 3", SC 2011): the counter-based generator behind every TensorFlow random
//! op on the CPU. A generator is a 128-bit counter and a 64-bit key; each
//! call encrypts the counter with ten rounds keyed by the (raised) key and
//! then steps the counter by one, giving four `u32`s.

/// Round multipliers and key increments of the 4x32 variant (the paper's constants).
const MUL_A: u32 = 0xD251_1F53;
const MUL_B: u32 = 0xCD9E_8D57;
const KEY_STEP_A: u32 = 0x9E37_79B9;
const KEY_STEP_B: u32 = 0xBB67_AE85;

/// A Philox4x32-10 stream: where it is (counter) and which stream (key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Philox {
    /// The 128-bit block counter, least significant word first.
    pub counter: [u32; 4],
    /// The 64-bit key, least significant word first.
    pub key: [u32; 2],
}

impl Philox {
    /// The generator TensorFlow's stateful kernels build from their `seed`
    /// and `seed2` attributes: the key is `seed`, the counter's high half is
    /// `seed2`, its low half zero.
    pub fn from_seeds(seed: u64, seed2: u64) -> Philox {
        Philox {
            counter: [0, 0, seed2 as u32, (seed2 >> 32) as u32],
            key: [seed as u32, (seed >> 32) as u32],
        }
    }

    /// A generator with this exact state.
    pub fn from_parts(counter: [u32; 4], key: [u32; 2]) -> Philox {
        Philox { counter, key }
    }

    /// The generator of a stateless op for the seed pair `(seed0, seed1)`:
    /// both seeds are encrypted once under a fixed key, so that weak seeds
    /// (0, 1, 2 …) still give unrelated streams; two words of the result
    /// become the key, the other two the counter's high half.
    pub fn stateless(seed0: u64, seed1: u64) -> Philox {
        let mut mixer = Philox::from_parts(
            [
                seed0 as u32,
                (seed0 >> 32) as u32,
                seed1 as u32,
                (seed1 >> 32) as u32,
            ],
            // the fixed scrambling key, 0x02461e29_3ec8f720
            [0x3EC8_F720, 0x0246_1E29],
        );
        let mix = mixer.next_block();
        Philox::from_parts([0, 0, mix[2], mix[3]], [mix[0], mix[1]])
    }

    /// Advances the counter by `n` blocks (128-bit add of `n`).
    pub fn skip(&mut self, n: u64) {
        let mut wide = self.counter_u128();
        wide = wide.wrapping_add(n as u128);
        self.set_counter_u128(wide);
    }

    fn counter_u128(&self) -> u128 {
        self.counter
            .iter()
            .rev()
            .fold(0u128, |acc, &w| (acc << 32) | w as u128)
    }

    fn set_counter_u128(&mut self, v: u128) {
        for (i, w) in self.counter.iter_mut().enumerate() {
            *w = (v >> (32 * i)) as u32;
        }
    }

    /// The next block of four random words; the counter steps by one.
    pub fn next_block(&mut self) -> [u32; 4] {
        let mut block = self.counter;
        let mut key = self.key;
        for round in 0..10 {
            if round > 0 {
                key[0] = key[0].wrapping_add(KEY_STEP_A);
                key[1] = key[1].wrapping_add(KEY_STEP_B);
            }
            block = Self::round(block, key);
        }
        self.skip(1);
        block
    }

    /// One Philox round: two 32x32→64 multiplications whose high halves
    /// are mixed with the other words and the key.
    fn round(c: [u32; 4], key: [u32; 2]) -> [u32; 4] {
        let p0 = (MUL_A as u64) * (c[0] as u64);
        let p1 = (MUL_B as u64) * (c[2] as u64);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        [hi1 ^ c[1] ^ key[0], lo1, hi0 ^ c[3] ^ key[1], lo0]
    }
}

/// One word at a time from a Philox stream (TensorFlow's
/// `SingleSampleAdapter`): a block is drawn when the previous one is used up.
#[derive(Clone, Debug)]
pub struct Words {
    gen: Philox,
    block: [u32; 4],
    used: usize,
}

impl Words {
    /// Words from `gen`'s current position.
    pub fn new(gen: Philox) -> Words {
        Words {
            gen,
            block: [0; 4],
            used: 4,
        }
    }

    /// The next word.
    pub fn next_u32(&mut self) -> u32 {
        if self.used == 4 {
            self.block = self.gen.next_block();
            self.used = 0;
        }
        self.used += 1;
        self.block[self.used - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::Philox;

    #[test]
    fn known_answer_of_the_random123_suite() {
        // Random123's kat_vectors: philox4x32 10 rounds, all-zero and all-ones inputs
        let mut g = Philox::from_parts([0; 4], [0; 2]);
        assert_eq!(
            g.next_block(),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        let mut g = Philox::from_parts([u32::MAX; 4], [u32::MAX; 2]);
        assert_eq!(
            g.next_block(),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
    }

    #[test]
    fn skip_carries_across_words() {
        let mut g = Philox::from_parts([u32::MAX, u32::MAX, 7, 0], [1, 2]);
        g.skip(1);
        assert_eq!(g.counter, [0, 0, 8, 0]);
        g.skip(1 << 32);
        assert_eq!(g.counter, [0, 1, 8, 0]);
    }
}
