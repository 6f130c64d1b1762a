//! IEEE 754 binary16 (`float16`/`half`) storage type with correctly rounded
//! conversions. Arithmetic happens in `f32` and rounds back, as TensorFlow's
//! CPU kernels and numpy do.

/// A 16-bit IEEE float stored as its bit pattern.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct F16(pub u16);

impl F16 {
    /// Positive zero.
    pub const ZERO: F16 = F16(0);
    /// One.
    pub const ONE: F16 = F16(0x3c00);
    /// Largest finite value, 65504.
    pub const MAX: F16 = F16(0x7bff);

    /// The raw bit pattern.
    pub fn to_bits(self) -> u16 {
        self.0
    }

    /// From a raw bit pattern.
    pub fn from_bits(bits: u16) -> F16 {
        F16(bits)
    }

    /// Exact widening to `f32`.
    pub fn to_f32(self) -> f32 {
        let h = self.0 as u32;
        let sign = (h & 0x8000) << 16;
        let exp = (h >> 10) & 0x1f;
        let man = h & 0x3ff;
        let bits = if exp == 0 {
            if man == 0 {
                sign
            } else {
                // subnormal: value = man * 2^-24, exactly representable in f32
                let v = man as f32 * f32::from_bits(0x3380_0000); // 2^-24
                return if sign != 0 { -v } else { v };
            }
        } else if exp == 0x1f {
            sign | 0x7f80_0000 | (man << 13)
        } else {
            sign | ((exp + 112) << 23) | (man << 13)
        };
        f32::from_bits(bits)
    }

    /// Exact widening to `f64`.
    pub fn to_f64(self) -> f64 {
        self.to_f32() as f64
    }

    /// Round-to-nearest-even narrowing from `f32` (through `f64`, which is exact).
    pub fn from_f32(x: f32) -> F16 {
        F16::from_f64(x as f64)
    }

    /// Round-to-nearest-even narrowing from `f64`, directly (no double rounding).
    pub fn from_f64(x: f64) -> F16 {
        let bits = x.to_bits();
        let sign = ((bits >> 48) & 0x8000) as u16;
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let man = bits & 0x000f_ffff_ffff_ffff;
        if exp == 0x7ff {
            if man == 0 {
                return F16(sign | 0x7c00);
            }
            return F16(sign | 0x7e00 | ((man >> 42) as u16 & 0x3ff));
        }
        let e = exp - 1023; // unbiased
        if e > 15 {
            return F16(sign | 0x7c00);
        }
        // full significand with implicit bit (53 bits), zero if exp==0 (f64 subnormal ~ 0)
        if exp == 0 {
            return F16(sign);
        }
        let sig = man | (1u64 << 52);
        // target: value = sig * 2^(e-52). For normal half: e >= -14, keep 11 bits.
        // shift = number of low bits to drop.
        let shift: i32 = if e >= -14 { 42 } else { 42 + (-14 - e) };
        if shift > 53 + 1 {
            return F16(sign);
        }
        let shift = shift as u32;
        let kept = sig >> shift;
        let rem = sig & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let mut r = kept;
        if rem > half || (rem == half && (kept & 1) == 1) {
            r += 1;
        }
        // r is the significand in units of the half's lsb at this exponent.
        let out = if e >= -14 {
            // r in [2^10, 2^11]; may carry to 2^11
            let mut he = (e + 15) as u64;
            let mut m = r;
            if m >= 1 << 11 {
                m >>= 1;
                he += 1;
            }
            if he >= 31 {
                return F16(sign | 0x7c00);
            }
            (he << 10) | (m & 0x3ff)
        } else {
            // subnormal: r counts 2^-24 units; r == 2^10 becomes the smallest normal
            r
        };
        F16(sign | out as u16)
    }

    /// True for NaN.
    pub fn is_nan(self) -> bool {
        (self.0 & 0x7c00) == 0x7c00 && (self.0 & 0x3ff) != 0
    }
}

impl std::fmt::Debug for F16 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.to_f32())
    }
}

impl PartialOrd for F16 {
    fn partial_cmp(&self, other: &F16) -> Option<std::cmp::Ordering> {
        self.to_f32().partial_cmp(&other.to_f32())
    }
}

#[cfg(test)]
mod tests {
    use super::F16;

    #[test]
    fn round_trips_every_half() {
        for b in 0..=u16::MAX {
            let h = F16(b);
            if h.is_nan() {
                assert!(F16::from_f32(h.to_f32()).is_nan());
                continue;
            }
            assert_eq!(F16::from_f32(h.to_f32()).0, b, "bits {b:#x}");
        }
    }

    #[test]
    fn rounds_to_nearest_even() {
        assert_eq!(F16::from_f64(65504.0).0, 0x7bff);
        assert_eq!(F16::from_f64(65520.0).0, 0x7c00);
        assert_eq!(F16::from_f64(65519.0).0, 0x7bff);
        assert_eq!(F16::from_f64(0.1).to_f32(), 0.099975586);
        assert_eq!(F16::from_f64(1e-8).0, 0);
        assert_eq!(F16::from_f64(2.0f64.powi(-25)).0, 0); // tie to even → 0
        assert_eq!(F16::from_f64(3.0 * 2.0f64.powi(-25)).0, 2);
        assert_eq!(F16::from_f64(-2.0).0, 0xc000);
    }
}
