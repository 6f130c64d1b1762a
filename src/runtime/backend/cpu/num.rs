//! Scalar arithmetic per element type, with TensorFlow's semantics: integer
//! ops wrap, `//` and `%` floor like Python, NaN propagates through
//! max/min, and float16 computes in `f32` and rounds back.

use crate::runtime::f16::F16;
use crate::runtime::storage::Elem;

/// Element arithmetic used by the CPU kernels.
pub trait Num: Elem + PartialOrd + Default {
    /// True for integer types.
    const IS_INT: bool;
    /// Zero.
    fn zero() -> Self;
    /// One.
    fn one() -> Self;
    /// `a + b` (wrapping for ints).
    fn add(self, b: Self) -> Self;
    /// `a - b` (wrapping for ints).
    fn sub(self, b: Self) -> Self;
    /// `a * b` (wrapping for ints).
    fn mul(self, b: Self) -> Self;
    /// `a / b`: real division for floats, truncating for ints (`b != 0`).
    fn div(self, b: Self) -> Self;
    /// `a // b` as TensorFlow computes it (`b != 0` for ints).
    fn floordiv_tf(self, b: Self) -> Self;
    /// `a // b` as numpy computes it (ints: 0 when `b == 0`).
    fn floordiv_np(self, b: Self) -> Self;
    /// `a % b` with the sign of `b` (ints: 0 when `b == 0`).
    fn floormod(self, b: Self, numpy: bool) -> Self;
    /// `a ** b` (ints: `b >= 0`, wrapping).
    fn pow(self, b: Self) -> Self;
    /// Maximum, NaN-propagating.
    fn maximum(self, b: Self) -> Self;
    /// Minimum, NaN-propagating.
    fn minimum(self, b: Self) -> Self;
    /// `-a` (wrapping).
    fn neg(self) -> Self;
    /// `|a|` (wrapping: `abs(INT_MIN) == INT_MIN`).
    fn abs(self) -> Self;
    /// Widening to `f64` (exact for floats).
    fn to_f64(self) -> f64;
    /// Integer value (exact for ints; truncating for floats).
    fn to_i64(self) -> i64;
    /// Narrowing from `f64` (rounding for floats, wrapping truncation for ints).
    fn from_f64(x: f64) -> Self;
    /// `a == 0`.
    fn is_zero(self) -> bool;
    /// `a < 0`.
    fn is_negative(self) -> bool;
    /// NaN test (false for ints).
    fn is_nan(self) -> bool;
    /// Zero for a denormal float (TensorFlow's kernels run with
    /// flush-to-zero and denormals-are-zero); other values unchanged.
    #[inline(always)]
    fn ftz(self) -> Self {
        self
    }
}

macro_rules! int_num {
    ($t:ty) => {
        impl Num for $t {
            const IS_INT: bool = true;
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn one() -> Self {
                1
            }
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            #[inline(always)]
            fn sub(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            #[inline(always)]
            fn mul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            #[inline(always)]
            fn div(self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    self.wrapping_div(b)
                }
            }
            #[inline(always)]
            fn floordiv_tf(self, b: Self) -> Self {
                self.floordiv_np(b)
            }
            #[inline(always)]
            fn floordiv_np(self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let q = self.wrapping_div(b);
                let r = self.wrapping_rem(b);
                #[allow(unused_comparisons)]
                let adjust = r != 0 && ((r < 0) != (b < 0));
                if adjust {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            #[inline(always)]
            fn floormod(self, b: Self, _numpy: bool) -> Self {
                if b == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(b);
                #[allow(unused_comparisons)]
                let adjust = r != 0 && ((r < 0) != (b < 0));
                if adjust {
                    r.wrapping_add(b)
                } else {
                    r
                }
            }
            fn pow(self, b: Self) -> Self {
                let mut base = self;
                let mut e = b as i128;
                let mut acc: Self = 1;
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            #[inline(always)]
            fn maximum(self, b: Self) -> Self {
                if self >= b {
                    self
                } else {
                    b
                }
            }
            #[inline(always)]
            fn minimum(self, b: Self) -> Self {
                if self <= b {
                    self
                } else {
                    b
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn abs(self) -> Self {
                if self < 0 {
                    self.neg()
                } else {
                    self
                }
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as i64 as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn is_negative(self) -> bool {
                self < 0
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                false
            }
        }
    };
}
int_num!(i8);
int_num!(u8);
int_num!(i16);
int_num!(i32);
int_num!(i64);

macro_rules! float_num {
    ($t:ty) => {
        impl Num for $t {
            const IS_INT: bool = false;
            #[inline(always)]
            fn ftz(self) -> Self {
                // a zero exponent field (a denormal or a zero) keeps only
                // its sign: a mask, so loops over it vectorize
                let b = self.to_bits();
                let sign = (-0.0 as $t).to_bits();
                let exp = (<$t>::INFINITY).to_bits();
                <$t>::from_bits(b & if b & exp == 0 { sign } else { !0 })
            }
            #[inline(always)]
            fn zero() -> Self {
                0.0
            }
            #[inline(always)]
            fn one() -> Self {
                1.0
            }
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                self + b
            }
            #[inline(always)]
            fn sub(self, b: Self) -> Self {
                self - b
            }
            #[inline(always)]
            fn mul(self, b: Self) -> Self {
                self * b
            }
            #[inline(always)]
            fn div(self, b: Self) -> Self {
                self / b
            }
            #[inline(always)]
            fn floordiv_tf(self, b: Self) -> Self {
                (self / b).floor()
            }
            fn floordiv_np(self, b: Self) -> Self {
                if b == 0.0 {
                    return self / b;
                }
                let m = self % b;
                let mut div = (self - m) / b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                    div -= 1.0;
                }
                if div != 0.0 {
                    let mut fl = div.floor();
                    if div - fl > 0.5 {
                        fl += 1.0;
                    }
                    fl
                } else {
                    (0.0 as $t).copysign(self / b)
                }
            }
            fn floormod(self, b: Self, numpy: bool) -> Self {
                if b == 0.0 {
                    return if numpy { self % b } else { <$t>::NAN };
                }
                let m = self % b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                    m + b
                } else if numpy && m == 0.0 {
                    (0.0 as $t).copysign(b)
                } else {
                    m
                }
            }
            #[inline(always)]
            fn pow(self, b: Self) -> Self {
                self.powf(b)
            }
            #[inline(always)]
            fn maximum(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if self >= b {
                    self
                } else {
                    b
                }
            }
            #[inline(always)]
            fn minimum(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if self <= b {
                    self
                } else {
                    b
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn abs(self) -> Self {
                self.abs()
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0.0
            }
            #[inline(always)]
            fn is_negative(self) -> bool {
                self < 0.0
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                self.is_nan()
            }
        }
    };
}
float_num!(f32);
float_num!(f64);

impl Num for F16 {
    const IS_INT: bool = false;
    fn zero() -> Self {
        F16::ZERO
    }
    fn one() -> Self {
        F16::ONE
    }
    fn add(self, b: Self) -> Self {
        F16::from_f32(self.to_f32() + b.to_f32())
    }
    fn sub(self, b: Self) -> Self {
        F16::from_f32(self.to_f32() - b.to_f32())
    }
    fn mul(self, b: Self) -> Self {
        F16::from_f32(self.to_f32() * b.to_f32())
    }
    fn div(self, b: Self) -> Self {
        F16::from_f32(self.to_f32() / b.to_f32())
    }
    fn floordiv_tf(self, b: Self) -> Self {
        F16::from_f32(self.to_f32().floordiv_tf(b.to_f32()))
    }
    fn floordiv_np(self, b: Self) -> Self {
        F16::from_f32(self.to_f32().floordiv_np(b.to_f32()))
    }
    fn floormod(self, b: Self, numpy: bool) -> Self {
        F16::from_f32(self.to_f32().floormod(b.to_f32(), numpy))
    }
    fn pow(self, b: Self) -> Self {
        F16::from_f32(self.to_f32().powf(b.to_f32()))
    }
    fn maximum(self, b: Self) -> Self {
        F16::from_f32(Num::maximum(self.to_f32(), b.to_f32()))
    }
    fn minimum(self, b: Self) -> Self {
        F16::from_f32(Num::minimum(self.to_f32(), b.to_f32()))
    }
    fn neg(self) -> Self {
        F16(self.0 ^ 0x8000)
    }
    fn abs(self) -> Self {
        F16(self.0 & 0x7fff)
    }
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    fn from_f64(x: f64) -> Self {
        F16::from_f64(x)
    }
    fn to_i64(self) -> i64 {
        self.to_f32() as i64
    }
    fn is_zero(self) -> bool {
        self.0 & 0x7fff == 0
    }
    fn is_negative(self) -> bool {
        self.to_f32() < 0.0
    }
    fn is_nan(self) -> bool {
        F16::is_nan(self)
    }
}
