//! numpy's random distributions over its two bit generators, element for
//! element as numpy draws them: uniform doubles (`random_standard_uniform`),
//! the legacy polar Gaussian with its cached second value (`legacy_gauss`,
//! `RandomState`), the ziggurat normal (`random_standard_normal`,
//! `Generator`), bounded integers (masked rejection for `RandomState`,
//! Lemire's method for `Generator`, both drawing 8- and 16-bit values from
//! a buffered 32-bit word as numpy does) and `random_interval`, the
//! Fisher–Yates index of `shuffle`. The `numpy.random` module in `modules`
//! binds arguments and shapes results.

use super::mt19937::Mt19937;
use super::pcg64::Pcg64;
use super::ziggurat;
use crate::runtime::error::Result;
use crate::runtime::storage::try_vec;

/// A numpy bit generator.
#[derive(Clone)]
pub enum BitGen {
    /// `MT19937`, under `RandomState` and `np.random.*`.
    Mt(Box<Mt19937>),
    /// `PCG64`, under `default_rng`.
    Pcg(Pcg64),
}

impl BitGen {
    /// 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        match self {
            BitGen::Mt(m) => m.next_u32(),
            BitGen::Pcg(p) => p.next_u32(),
        }
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        match self {
            BitGen::Mt(m) => m.next_u64(),
            BitGen::Pcg(p) => p.next_u64(),
        }
    }

    /// A double in `[0, 1)` (`next_double` of the bit generator).
    pub fn next_double(&mut self) -> f64 {
        match self {
            BitGen::Mt(m) => m.next_double(),
            BitGen::Pcg(p) => p.next_double(),
        }
    }

    /// A float32 in `[0, 1)` from the top 24 bits of 32 (`next_float`).
    pub fn next_float(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }
}

/// numpy's legacy Gaussian: the polar method, which makes two values and
/// keeps the second for the next call (`RandomState`'s `has_gauss`/`gauss`).
pub fn legacy_gauss(bits: &mut BitGen, cached: &mut Option<f64>) -> f64 {
    if let Some(g) = cached.take() {
        return g;
    }
    loop {
        let x1 = 2.0 * bits.next_double() - 1.0;
        let x2 = 2.0 * bits.next_double() - 1.0;
        let r2 = x1 * x1 + x2 * x2;
        if r2 < 1.0 && r2 != 0.0 {
            let f = (-2.0 * r2.ln() / r2).sqrt();
            *cached = Some(f * x1);
            return f * x2;
        }
    }
}

/// The `Generator`'s standard normal: Marsaglia and Tsang's ziggurat over
/// one 64-bit draw (8 bits of box, a sign bit, 52 bits of position).
pub fn ziggurat_normal(bits: &mut BitGen) -> f64 {
    loop {
        let r = bits.next_u64();
        let idx = (r & 0xff) as usize;
        let r = r >> 8;
        let rabs = (r >> 1) & 0x000f_ffff_ffff_ffff;
        let mut x = rabs as f64 * ziggurat::wi(idx);
        if r & 1 != 0 {
            x = -x;
        }
        if rabs < ziggurat::KI[idx] {
            return x;
        }
        if idx == 0 {
            // the tail beyond r
            loop {
                let xx = -ziggurat::NOR_INV_R * (-bits.next_double()).ln_1p();
                let yy = -(-bits.next_double()).ln_1p();
                if yy + yy > xx * xx {
                    return if (rabs >> 8) & 1 != 0 {
                        -(ziggurat::NOR_R + xx)
                    } else {
                        ziggurat::NOR_R + xx
                    };
                }
            }
        }
        let (f0, f1) = (ziggurat::fi(idx - 1), ziggurat::fi(idx));
        if (f0 - f1) * bits.next_double() + f1 < (-0.5 * x * x).exp() {
            return x;
        }
    }
}

/// The `Generator`'s standard exponential: the ziggurat over one 64-bit
/// draw (8 bits of box, 53 of position), numpy's
/// `random_standard_exponential`.
pub fn ziggurat_exponential(bits: &mut BitGen) -> f64 {
    loop {
        let r = bits.next_u64() >> 3;
        let idx = (r & 0xff) as usize;
        let r = r >> 8;
        let x = r as f64 * ziggurat::we(idx);
        if r < ziggurat::KE[idx] {
            return x;
        }
        if idx == 0 {
            return ziggurat::EXP_R - (-bits.next_double()).ln_1p();
        }
        let (f0, f1) = (ziggurat::fe(idx - 1), ziggurat::fe(idx));
        if (f0 - f1) * bits.next_double() + f1 < (-x).exp() {
            return x;
        }
        // rejected: numpy draws again from the start
    }
}

/// `log(gamma(x))` as numpy's `random_loggam` computes it (Stirling's
/// series, shifted up to 7 for small `x`).
pub fn loggam(x: f64) -> f64 {
    const A: [f64; 10] = [
        8.333333333333333e-02,
        -2.777777777777778e-03,
        7.936507936507937e-04,
        -5.952380952380952e-04,
        8.417508417508418e-04,
        -1.917526917526918e-03,
        6.41025641025641e-03,
        -2.955065359477124e-02,
        1.796443723688307e-01,
        -1.39243221690590e+00,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = (1.0 / x0) * (1.0 / x0);
    let mut gl0 = A[9];
    for k in (0..9).rev() {
        gl0 *= x2;
        gl0 += A[k];
    }
    let mut gl = gl0 / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * x0.ln() - x0;
    if x < 7.0 {
        for _ in 0..n {
            gl -= (x0 - 1.0).ln();
            x0 -= 1.0;
        }
    }
    gl
}

/// numpy's `random_poisson` (both APIs): multiplication of uniforms for
/// `lam < 10`, Hörmann's transformed rejection (PTRS) above.
pub fn poisson(bits: &mut BitGen, lam: f64) -> i64 {
    if lam == 0.0 {
        return 0;
    }
    if lam < 10.0 {
        let enlam = (-lam).exp();
        let (mut x, mut prod) = (0i64, 1.0);
        loop {
            prod *= bits.next_double();
            if prod > enlam {
                x += 1;
            } else {
                return x;
            }
        }
    }
    let slam = lam.sqrt();
    let loglam = lam.ln();
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let invalpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = bits.next_double() - 0.5;
        let v = bits.next_double();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + lam + 0.43).floor() as i64;
        if us >= 0.07 && v <= vr {
            return k;
        }
        if k < 0 || (us < 0.013 && v > us) {
            continue;
        }
        if v.ln() + invalpha.ln() - (a / (us * us) + b).ln()
            <= -lam + k as f64 * loglam - loggam(k as f64 + 1.0)
        {
            return k;
        }
    }
}

/// The smallest mask of all ones covering `max`.
pub fn gen_mask(max: u64) -> u64 {
    let mut m = max;
    for s in [1, 2, 4, 8, 16, 32] {
        m |= m >> s;
    }
    m
}

/// `random_interval(max)`: a value in `[0, max]` by masked rejection, from
/// 32-bit draws while `max` fits 32 bits (shuffles and permutations).
pub fn random_interval(bits: &mut BitGen, max: u64) -> u64 {
    if max == 0 {
        return 0;
    }
    let mask = gen_mask(max);
    if max <= 0xffff_ffff {
        loop {
            let v = bits.next_u32() as u64 & mask;
            if v <= max {
                return v;
            }
        }
    }
    loop {
        let v = bits.next_u64() & mask;
        if v <= max {
            return v;
        }
    }
}

/// The width of the integers drawn, which decides how numpy draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// One bit at a time from a 32-bit word (`bool`).
    Bool,
    /// Bytes from a 32-bit word (`int8`, `uint8`).
    W8,
    /// Halves of a 32-bit word (`int16`, `uint16`).
    W16,
    /// 32-bit draws (`int32`, `uint32`).
    W32,
    /// 64-bit draws, or 32-bit ones when the range fits (`int64`, `uint64`).
    W64,
}

impl Width {
    fn bits(self) -> u32 {
        match self {
            Width::Bool => 1,
            Width::W8 => 8,
            Width::W16 => 16,
            Width::W32 => 32,
            Width::W64 => 64,
        }
    }
}

/// The 32-bit word small integers are cut from, and how many are left in it.
#[derive(Default, Clone, Copy)]
pub struct Buffer {
    word: u32,
    left: u32,
}

impl Buffer {
    /// The next `bits` bits (8 or 16 or 1), a new word when this one is spent.
    fn take(&mut self, gen: &mut BitGen, bits: u32) -> u32 {
        if self.left == 0 {
            self.word = gen.next_u32();
            self.left = 32 / bits - 1;
        } else {
            self.word >>= bits;
            self.left -= 1;
        }
        if bits == 32 {
            self.word
        } else {
            self.word & ((1u32 << bits) - 1)
        }
    }
}

/// Lemire's multiply-and-reject in `bits` bits: a value in `[0, rng]`.
fn lemire(draw: &mut dyn FnMut() -> u64, rng: u64, bits: u32) -> u64 {
    let full: u128 = 1u128 << bits;
    let excl = rng as u128 + 1;
    let low_mask = full - 1;
    let mut m = draw() as u128 * excl;
    let mut leftover = m & low_mask;
    if leftover < excl {
        let threshold = (full - excl) % excl;
        while leftover < threshold {
            m = draw() as u128 * excl;
            leftover = m & low_mask;
        }
    }
    (m >> bits) as u64
}

/// One integer in `[0, rng]` (`rng` within the width), drawn as numpy's
/// `random_bounded_uint64` / `random_buffered_bounded_*` draw it: masked
/// rejection (`masked`, the legacy `RandomState`) or Lemire's method, small
/// widths cutting their draws from `buf`, which carries over between the
/// elements of one call.
pub fn bounded(gen: &mut BitGen, rng: u64, width: Width, masked: bool, buf: &mut Buffer) -> u64 {
    if rng == 0 {
        return 0;
    }
    let bits = match width {
        Width::Bool => return (buf.take(gen, 1) & 1) as u64,
        Width::W64 if rng <= 0xffff_ffff => 32,
        w => w.bits(),
    };
    let full = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let draw = |g: &mut BitGen, b: &mut Buffer| -> u64 {
        match bits {
            64 => g.next_u64(),
            32 => g.next_u32() as u64,
            small => b.take(g, small) as u64,
        }
    };
    if rng == full {
        return draw(gen, buf);
    }
    if masked {
        let mask = gen_mask(rng);
        loop {
            let v = draw(gen, buf) & mask;
            if v <= rng {
                return v;
            }
        }
    }
    lemire(&mut || draw(gen, buf), rng, bits)
}

/// The Fisher–Yates order numpy's `shuffle` swaps in: for `i` from `n - 1`
/// down to 1, the partner `j = random_interval(i)`; applied to `0..n`.
pub fn shuffled_indices(gen: &mut BitGen, n: usize) -> Result<Vec<usize>> {
    let mut idx: Vec<usize> = try_vec(n)?;
    idx.extend(0..n);
    for i in (1..n).rev() {
        let j = random_interval(gen, i as u64) as usize;
        idx.swap(i, j);
    }
    Ok(idx)
}

/// The Generator's `choice(pop, size, replace=False)` indices: Floyd's
/// algorithm then a shuffle of the picks, or, for a large population and
/// many picks, the tail of a partial shuffle of `0..pop` (numpy's heuristic).
pub fn choice_without_replacement(
    gen: &mut BitGen,
    pop: u64,
    size: u64,
    shuffle: bool,
) -> Result<Vec<i64>> {
    let lemire_below =
        |g: &mut BitGen, i: u64| bounded(g, i, Width::W64, false, &mut Buffer::default());
    let cutoff = if shuffle { 50 } else { 20 };
    if pop > 10_000 && size > pop / cutoff {
        let mut idx: Vec<i64> = try_vec(pop as usize)?;
        idx.extend(0..pop as i64);
        let first = pop.saturating_sub(size).max(1);
        for i in (first..pop).rev() {
            let j = lemire_below(gen, i);
            idx.swap(i as usize, j as usize);
        }
        idx.drain(..(pop - size) as usize);
        return Ok(idx);
    }
    let mut picked = std::collections::HashSet::new();
    let mut out: Vec<i64> = try_vec(size as usize)?;
    for j in pop - size..pop {
        let v = lemire_below(gen, j);
        let v = if picked.insert(v) {
            v
        } else {
            picked.insert(j);
            j
        };
        out.push(v as i64);
    }
    if shuffle {
        for i in (1..size).rev() {
            let j = lemire_below(gen, i);
            out.swap(i as usize, j as usize);
        }
    }
    Ok(out)
}
