//! TensorFlow's float32 math kernels on the CPU, lane by lane: the Eigen
//! packet functions TensorFlow 2.21's x86-64 build runs (compiled for AVX
//! without FMA: 8-float packets, every multiply-add rounded twice), and the
//! scalar code Eigen runs on the last `n % 8` elements of a tensor (the C
//! library's `expf`, `logf`, `log1pf`, `expm1f` where Eigen calls `std::`).
//! TensorFlow's threads run with flush-to-zero and denormals-are-zero, so
//! denormal operands read as zero and denormal results of arithmetic become
//! zero; [`ftz`] marks where that changes a result.
//!
//! Each function is one lane of Eigen's packet code; SIMD arithmetic is IEEE
//! per lane, so evaluating the lanes one at a time gives the same bits.
//! [`packets`] splits a buffer as Eigen's executor does (whole packets from
//! the start, the scalar path on the tail). The reference is TensorFlow on
//! this ISA: an FMA build of Eigen (AVX2/AVX-512 compiled in) would round
//! differently.

#![allow(clippy::excessive_precision)]

/// Eigen's packet width for float on AVX.
pub const PACKET: usize = 8;

/// Zero for a denormal (TensorFlow's kernels run with flush-to-zero and
/// denormals-are-zero).
#[inline(always)]
pub fn ftz(x: f32) -> f32 {
    let b = x.to_bits();
    // a zero exponent field: a denormal (or a zero), kept as its sign
    if b & 0x7f80_0000 == 0 {
        f32::from_bits(b & 0x8000_0000)
    } else {
        x
    }
}

/// Eigen's AVX `pmin(a, b)`: `vminps(b, a)`, so `a` wins a NaN or a tie.
#[inline(always)]
pub fn pmin(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

/// Eigen's AVX `pmax(a, b)`: `vmaxps(b, a)`.
#[inline(always)]
pub fn pmax(a: f32, b: f32) -> f32 {
    if b > a {
        b
    } else {
        a
    }
}

/// `a · 2^m` by building `2^m` from its exponent bits, the biased exponent
/// clamped to [0, 255] (Eigen's `pldexp_fast`; `m` is integral).
#[inline(always)]
fn pldexp_fast(a: f32, m: f32) -> f32 {
    let e = pmin(pmax(m + 127.0, 0.0), 255.0);
    // cvttps2dq of NaN is the integer indefinite value
    let bits = if e.is_nan() { 0x8000_0000u32 } else { e as u32 };
    a * f32::from_bits(bits << 23)
}

/// Eigen's `pexp_float`: exp(x) = 2^m · exp(r), r = x - m·ln 2 in two
/// parts (Cephes), exp(r) by a 6th-order polynomial in even and odd halves,
/// 2^m applied in four exact factors (`pldexp`); 0 below -104. Written
/// without branches so the lanes vectorise.
#[inline(always)]
pub fn pexp(x0: f32) -> f32 {
    let x = pmin(x0, 88.723);
    let m = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = m * -0.693_359_375 + x;
    let r = m * 2.121_944_40e-4 + r;
    let r2 = r * r;
    let p_even =
        r2 * 1.374_496_379_867_196_083_068_847_656_25e-3 + 4.166_965_186_595_916_748_046_875e-2;
    let p_odd = r2 * 8.368_944_749_236_106_872_558_593_75e-3 + 0.166_665_181_517_601_013_183_593_75;
    let p_even = r2 * p_even + 0.499_999_880_790_710_449_218_75;
    let y = r * p_odd + p_even;
    let y = r2 * y + (r + 1.0);
    // y · 2^m as (y · 2^b · 2^b · 2^b) · 2^(m - 3b), b = floor(m / 4): exact
    // while the result is normal (a NaN m comes with a NaN y)
    let e = pmin(pmax(m, -278.0), 278.0) as i32;
    let b = e >> 2;
    let c = f32::from_bits(((b + 127) as u32) << 23);
    let c2 = f32::from_bits(((e - 3 * b + 127) as u32) << 23);
    let out = pmax(y * c * c * c * c2, x0);
    if x0 < -104.0 {
        0.0
    } else {
        ftz(out)
    }
}

/// The C library's `expf` as TensorFlow's scalar path sees it (denormal
/// results flushed).
#[inline(always)]
pub fn expf(x: f32) -> f32 {
    ftz(ftz(x).exp())
}

/// Eigen's `plog_float`: frexp, the mantissa shifted to [√½, √2) − 1, a
/// rational approximation of log(1 + x), plus e·ln 2.
#[inline(always)]
pub fn plog(x0: f32) -> f32 {
    // a denormal reads as zero
    let x0 = ftz(x0);
    let bits = x0.to_bits();
    let e = ((bits >> 23) & 0xff) as f32 - 126.0;
    let x = f32::from_bits((bits & 0x807f_ffff) | 0x3f00_0000);
    let below = x < std::f32::consts::FRAC_1_SQRT_2;
    let e = if below { e - 1.0 } else { e };
    let x = (x - 1.0) + if below { x } else { 0.0 };
    let p =
        (0.182_562_963_498_492_54_f32 * x + 1.000_000_019_028_106_3) * x + 1.000_000_019_028_113_6;
    let p = x * p;
    let q = ((0.049_616_247_954_120_038_f32 * x + 0.599_232_495_908_235_2) * x
        + 1.499_999_999_999_992_7)
        * x
        + 1.0;
    let r = e * std::f32::consts::LN_2 + p / q;
    if x0 == f32::INFINITY {
        x0
    } else if x0 == 0.0 {
        f32::NEG_INFINITY
    } else if x0 > 0.0 {
        r
    } else {
        f32::NAN
    }
}

/// The C library's `logf` as TensorFlow's scalar path sees it: glibc
/// normalises a positive denormal by multiplying it by 2^23, which
/// denormals-are-zero turns into 0, so every positive denormal reads as
/// 2^-150.
#[inline(always)]
pub fn logf(x: f32) -> f32 {
    if x.is_subnormal() && x > 0.0 {
        (2f64.powi(-150).ln()) as f32
    } else {
        x.ln()
    }
}

/// Eigen's `scalar_logistic_op<float>::packetOp`: exp(x/2) from its own
/// degree-5 polynomial, squared, then e / (1 + e); 0 below -104.
#[inline(always)]
pub fn logistic(x0: f32) -> f32 {
    let x0 = ftz(x0);
    let x = pmin(x0, 16.635_532_4) * 0.5;
    let m = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = m * -0.693_359_375 + x;
    let r = m * 2.121_944_40e-4 + r;
    let r2 = r * r;
    let p_even = r2 * 4.189_866_781_234_741_210_937_5e-2 + 0.499_991_416_931_152_343_75;
    let p_odd = r2 * 8.334_713_056_683_540_344_238_281_25e-3 + 0.166_668_772_697_448_730_468_75;
    let p = r * p_odd + p_even;
    let p = r2 * p + (r + 1.0);
    let e = pldexp_fast(p, m);
    // e·e can be denormal; flushed or not, e / (1 + e) flushes to the same 0
    let e = e * e;
    if x0 < -104.0 {
        0.0
    } else {
        ftz(e / (1.0 + e))
    }
}

/// `scalar_logistic_op<float>` on one scalar: `expf(min(x, 16.6355324))`,
/// then e / (1 + e).
#[inline(always)]
pub fn logistic_scalar(x: f32) -> f32 {
    let e = expf(pmin(ftz(x), 16.635_532_4));
    ftz(e / (1.0 + e))
}

/// `p[0]·x^n + … + p[n]` by Horner's rule, each step rounded twice (Eigen's
/// `ppolevl` without FMA).
#[inline(always)]
fn polevl<const N: usize>(x: f32, p: [f32; N]) -> f32 {
    let mut acc = p[0];
    for &c in &p[1..] {
        acc = acc * x + c;
    }
    acc
}

/// Eigen's `ptanh_float` (packets and scalars alike): a 9/8 rational
/// approximation on x clamped to ±7.90738964 (the non-FMA bound).
#[inline(always)]
pub fn tanh(a: f32) -> f32 {
    const CLAMP: f32 = 7.907_389_640_808_105_47;
    let x = pmax(pmin(ftz(a), CLAMP), -CLAMP);
    // for |x| < 1e-19, where x² is denormal, p and q round to x and 1
    // whether x² is flushed or not
    let x2 = x * x;
    let x3 = x2 * x;
    let p = polevl(
        x2,
        [
            1.394_553_628e-8,
            2.102_733_560e-5,
            3.520_756_727e-3,
            1.340_216_100e-1,
        ],
    );
    let q = polevl(
        x2,
        [
            8.015_776_984e-7,
            3.326_951_409e-4,
            2.597_254_514e-2,
            4.673_548_340e-1,
            1.0,
        ],
    );
    ftz((x3 * p + x) / q)
}

/// Eigen's `generic_fast_erf<float>` (packets and scalars alike): x·P(x²) /
/// Q(x²) with x² clamped to 16, the quotient clamped to [-1, 1].
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let x = ftz(x);
    let x2 = pmin(16.0, x * x);
    let p = polevl(
        x2,
        [
            2.123_732_201_653_183_437_883_853_912_353_515_625e-06,
            2.861_979_592_125_862_836_837_768_554_687_500_000e-04,
            3.658_048_342_913_389_205_932_617_187_500_000_000e-03,
            5.243_302_136_659_622_192_382_812_500_000_000_000e-02,
            1.874_160_766_601_562_500_000_000_000_000_000_000e-01,
            1.128_379_106_521_606_445_312_500_000_000_000_000e+00,
        ],
    );
    let q = polevl(
        x2,
        [
            3.891_857_340_931_892_395_019_531_250_00e-05,
            1.143_296_016_380_190_849_304_199_218_75e-03,
            1.475_208_811_461_925_506_591_796_875_00e-02,
            1.129_456_758_499_145_507_812_500_000_00e-01,
            4.994_257_986_545_562_744_140_625_000_00e-01,
            1.0,
        ],
    );
    pmax(pmin(ftz(x * p / q), 1.0), -1.0)
}

/// Veltkamp's split of x into a high half and the exact rest.
#[inline(always)]
fn split(x: f32) -> (f32, f32) {
    let gamma = 4097.0 * x;
    let hi = (x - gamma) + gamma;
    (hi, x - hi)
}

/// The rounding error of `xy = fl(x·y)` by Dekker's product (Eigen's
/// `twoprod_low` without FMA).
#[inline(always)]
fn twoprod_low(x: f32, y: f32, xy: f32) -> f32 {
    let (xh, xl) = split(x);
    let (yh, yl) = split(y);
    let p = xh * yh + -xy;
    let p = xh * yl + p;
    let p = xl * yh + p;
    xl * yl + p
}

/// `rcpps`: the hardware's 12-bit reciprocal estimate.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rcp_estimate(a: f32) -> f32 {
    use std::arch::x86_64::{_mm_cvtss_f32, _mm_rcp_ss, _mm_set_ss};
    // SAFETY: SSE is part of the x86-64 baseline.
    unsafe { _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(a))) }
}

/// `rsqrtps`: the hardware's 12-bit reciprocal square root estimate.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rsqrt_estimate(a: f32) -> f32 {
    use std::arch::x86_64::{_mm_cvtss_f32, _mm_rsqrt_ss, _mm_set_ss};
    // SAFETY: SSE is part of the x86-64 baseline.
    unsafe { _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(a))) }
}

/// Elsewhere the exact reciprocal (TensorFlow's reference machine is x86).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn rcp_estimate(a: f32) -> f32 {
    1.0 / a
}

/// Elsewhere the exact reciprocal square root.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn rsqrt_estimate(a: f32) -> f32 {
    1.0 / a.sqrt()
}

/// Eigen's AVX `preciprocal` (`Reciprocal`'s packets): `rcpps` and one
/// Newton step, x + x·(1 - a·x); the estimate itself where that is NaN (a
/// zero or an infinity).
#[inline(always)]
pub fn preciprocal(a: f32) -> f32 {
    let a = ftz(a);
    let x = rcp_estimate(a);
    let t = 1.0 - a * x;
    if t.is_nan() {
        x
    } else {
        // x·t is below the normal range for |a| past 2^103: flushed
        ftz(ftz(x * t) + x)
    }
}

/// Eigen's AVX `prsqrt` (`Rsqrt`'s packets): `rsqrtps` and one Newton
/// step; the estimate where that is NaN.
#[inline(always)]
pub fn prsqrt(a: f32) -> f32 {
    let a = ftz(a);
    let y = rsqrt_estimate(a);
    let h = ftz(ftz(a * y) * y) + -1.0;
    let r = ftz(ftz(y * -0.5) * h) + y;
    if r.is_nan() {
        y
    } else {
        ftz(r)
    }
}

/// Eigen's `generic_fast_erfc<float>`: 1 + x·S(x²) for |x| ≤ 1; above,
/// exp(-x²)·(1 - lo(x²))·P(1/x²) / (x·Q(1/x²)) (+2 for negative x). The
/// packet path takes `pexp` and `rcpps`; the scalar path `expf` and 1/x².
#[inline(always)]
fn erfc_impl(x_in: f32, packet: bool) -> f32 {
    let x = pmin(pmax(ftz(x_in), -11.0), 11.0);
    let x2 = ftz(x * x);
    let s = polevl(
        x2,
        [
            5.618_022_987_619_042_396_545_410_156_25e-04,
            -4.913_816_694_170_236_587_524_414_062_50e-03,
            2.670_751_512_050_628_662_109_375_000_00e-02,
            -1.128_001_064_062_118_530_273_437_500_00e-01,
            3.761_229_515_075_683_593_750_000_000_00e-01,
            -1.128_379_106_521_606_445_312_500_000_00e+00,
        ],
    );
    let small = ftz(x * s + 1.0);
    let x2_lo = ftz(twoprod_low(x, x, x2));
    let exp2_hi = if packet { pexp(-x2) } else { expf(-x2) };
    let z = ftz(exp2_hi - ftz(exp2_hi * x2_lo));
    let q2 = if packet { preciprocal(x2) } else { 1.0 / x2 };
    let num = polevl(
        q2,
        [
            1.020_811_647_176_742_553_710_937_5e-01,
            4.292_066_693_305_969_238_281_250_0e-01,
            3.237_907_886_505_126_953_125_000_0e-01,
            5.397_197_604_179_382_324_218_750_0e-02,
        ],
    );
    let den = polevl(
        q2,
        [
            1.725_167_781_114_578_247_070_312_5e-02,
            3.913_716_375_827_789_306_640_625_0e-01,
            1.0,
            6.217_324_137_687_683_105_468_750_0e-01,
            9.566_286_206_245_422_363_281_250_0e-02,
        ],
    );
    let r = ftz(num / ftz(x * den));
    let two = if x < 0.0 { 2.0 } else { 0.0 };
    if 1.0 < x2 {
        ftz(ftz(z * r) + two)
    } else {
        small
    }
}

/// [`erfc_impl`] on a packet lane.
#[inline(always)]
pub fn erfc(x: f32) -> f32 {
    erfc_impl(x, true)
}

/// [`erfc_impl`] on the scalar tail.
#[inline(always)]
pub fn erfc_scalar(x: f32) -> f32 {
    erfc_impl(x, false)
}

/// Eigen's `generic_log1p`: x where 1 + x rounds to 1 (or overflows), else
/// x · log(1 + x) / ((1 + x) - 1).
#[inline(always)]
pub fn log1p(x: f32) -> f32 {
    let x = ftz(x);
    let xp1 = x + 1.0;
    let log1 = plog(xp1);
    if xp1 == 1.0 || xp1 == log1 {
        x
    } else {
        ftz(x * ftz(log1 / (xp1 - 1.0)))
    }
}

/// The C library's `log1pf` (a denormal passes through unflushed, as
/// TensorFlow returns it).
#[inline(always)]
pub fn log1pf(x: f32) -> f32 {
    x.ln_1p()
}

/// Eigen's `generic_expm1` (Kahan's formula): (u - 1) · x / log(u), u =
/// exp(x); x itself where u is 1, -1 where u - 1 is -1.
#[inline(always)]
pub fn expm1(x0: f32) -> f32 {
    let x = ftz(x0);
    let u = pexp(x);
    let um1 = u - 1.0;
    let logu = plog(u);
    if u == 1.0 {
        x0
    } else if um1 == -1.0 {
        -1.0
    } else if logu == u {
        u
    } else {
        ftz(um1 * ftz(x / logu))
    }
}

/// The C library's `expm1f`, denormal results flushed.
#[inline(always)]
pub fn expm1f(x: f32) -> f32 {
    ftz(ftz(x).exp_m1())
}

/// TensorFlow's `Softplus` threshold, `log(epsilon) + 2` in float.
pub fn softplus_threshold() -> f32 {
    f32::EPSILON.ln() + 2.0
}

/// TensorFlow's `Softplus` functor on a packet lane: x above -threshold,
/// exp(x) below threshold, else log1p(exp(x)).
#[inline(always)]
pub fn softplus_with(x: f32, t: f32, exp: fn(f32) -> f32, log1p: fn(f32) -> f32) -> f32 {
    let x = ftz(x);
    if x > -t {
        x
    } else if x < t {
        exp(x)
    } else {
        log1p(exp(x))
    }
}
