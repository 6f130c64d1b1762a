//! TensorFlow's float64 `Exp` and `Log` on the CPU, lane by lane: Eigen's
//! `pexp_double` and `plog_double` as TensorFlow 2.21's AVX build runs them
//! (4-double packets, no FMA, flush-to-zero), the C library's `exp`/`log` on
//! the last `n % 4` elements. See [`super::eigen_math`] for the float32 side.

#![allow(clippy::excessive_precision)]

/// Eigen's packet width for double on AVX.
pub const PACKET: usize = 4;

/// Zero for a denormal (flush-to-zero, denormals-are-zero).
#[inline(always)]
pub fn ftz(x: f64) -> f64 {
    let b = x.to_bits();
    if b & 0x7ff0_0000_0000_0000 == 0 {
        f64::from_bits(b & 0x8000_0000_0000_0000)
    } else {
        x
    }
}

/// Eigen's AVX `pmin(a, b)`: `a` wins a NaN or a tie.
#[inline(always)]
fn pmin(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// Eigen's AVX `pmax(a, b)`.
#[inline(always)]
fn pmax(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// Eigen's `pexp_double`: exp(x) = 2^n · exp(g), n = floor(x·log2 e + ½),
/// g = x - n·ln 2 in two parts, exp(g) = 1 + 2·P(g²)·g / (Q(g²) - P(g²)·g)
/// (Cephes), 2^n applied in four exact factors; 0 below -745.519.
#[inline(always)]
pub fn pexp(x0: f64) -> f64 {
    let x = pmin(x0, 709.784);
    let fx = (std::f64::consts::LOG2_E * x + 0.5).floor();
    let x = (x - fx * 0.693_145_751_953_125) - fx * 1.428_606_820_309_417_232_12e-6;
    let x2 = x * x;
    let px = (1.261_771_930_748_105_908_78e-4 * x2 + 3.029_944_077_074_419_613_00e-2) * x2
        + 9.999_999_999_999_999_999_10e-1;
    let px = px * x;
    let qx = ((3.001_985_051_386_644_550_42e-6 * x2 + 2.524_483_403_496_841_041_92e-3) * x2
        + 2.272_655_482_081_550_287_66e-1)
        * x2
        + 2.000_000_000_000_000_000_09e0;
    let r = 2.0 * (px / (qx - px)) + 1.0;
    // r · 2^n as (r · 2^b · 2^b · 2^b) · 2^(n - 3b), b = floor(n / 4)
    let e = pmin(pmax(fx, -2099.0), 2099.0) as i64;
    let b = e >> 2;
    let c = f64::from_bits(((b + 1023) as u64) << 52);
    let c2 = f64::from_bits(((e - 3 * b + 1023) as u64) << 52);
    let out = pmax(r * c * c * c * c2, x0);
    if x0 < -745.519 {
        0.0
    } else {
        ftz(out)
    }
}

/// The C library's `exp`, denormal results flushed.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    ftz(ftz(x).exp())
}

/// Eigen's `plog_double`: frexp, the mantissa shifted to [√½, √2) − 1,
/// log(1 + x) = x - x²/2 + x³·P(x)/Q(x) (Cephes), plus e·ln 2.
#[inline(always)]
pub fn plog(x0: f64) -> f64 {
    let x0 = ftz(x0);
    let bits = x0.to_bits();
    let e = ((bits >> 52) & 0x7ff) as f64 - 1022.0;
    let x = f64::from_bits((bits & 0x800f_ffff_ffff_ffff) | 0x3fe0_0000_0000_0000);
    let below = x < std::f64::consts::FRAC_1_SQRT_2;
    let e = if below { e - 1.0 } else { e };
    let x = (x - 1.0) + if below { x } else { 0.0 };
    let x2 = x * x;
    let x3 = x2 * x;
    let y = 1.018_756_638_045_809_317_96e-4 * x + 4.974_949_949_767_470_014_25e-1;
    let y1 = 1.449_892_253_416_109_308_46e1 * x + 1.793_686_785_078_198_163_13e1;
    let y = y * x + 4.705_791_198_788_817_258_54;
    let y1 = y1 * x + 7.708_387_337_558_853_916_66;
    let num = y * x3 + y1;
    let y = 1.0 * x + 1.128_735_871_891_674_505_90e1;
    let y1 = 8.298_752_669_127_766_032_11e1 * x + 7.115_447_506_185_638_944_66e1;
    let y = y * x + 4.522_791_458_375_322_211_05e1;
    let y1 = y1 * x + 2.312_516_201_267_653_405_83e1;
    let den = y * x3 + y1;
    let y = (num * x3) / den;
    let y = -0.5 * x2 + y;
    let r = e * std::f64::consts::LN_2 + (x + y);
    if x0 == f64::INFINITY {
        x0
    } else if x0 == 0.0 {
        f64::NEG_INFINITY
    } else if x0 > 0.0 {
        r
    } else {
        f64::NAN
    }
}

/// The C library's `log` (a denormal reads as zero).
#[inline(always)]
pub fn log(x: f64) -> f64 {
    ftz(x).ln()
}
