//! The special functions of `math` that Rust's `f64` lacks: `gamma` and
//! `lgamma` (CPython computes them itself, with a Lanczos sum, so the digits
//! here follow that method rather than the C library's), `erf`, `erfc`,
//! `nextafter` and `remainder`, `cbrt` and the inverse hyperbolics (CPython calls the C library's, and so do we),
//! and `ulp`. Argument conversion and the error rules live in `math.rs`.

use std::f64::consts::PI;

// The C library's functions, which CPython 3.11 calls for these. Rust's std
// links libm already on every platform we build for.
extern "C" {
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
    #[link_name = "nextafter"]
    fn c_nextafter(x: f64, y: f64) -> f64;
    #[link_name = "remainder"]
    fn c_remainder(x: f64, y: f64) -> f64;
}

/// The error function.
pub(super) fn erf(x: f64) -> f64 {
    // SAFETY: a pure C math function of one double.
    unsafe { c_erf(x) }
}

/// The complementary error function.
pub(super) fn erfc(x: f64) -> f64 {
    // SAFETY: a pure C math function of one double.
    unsafe { c_erfc(x) }
}

type CMath1 = unsafe extern "C" fn(f64) -> f64;

/// A function of the C library looked up by name at run time. Declaring it
/// `extern "C"` is not enough for these: Rust's own `compiler_builtins`
/// defines `cbrt` (a port of musl's) and the linker binds to that, and
/// `f64::asinh` and friends are computed in Rust; both can differ from the
/// C library in the last digit, and CPython calls the C library.
#[cfg(unix)]
fn c_math1(name: &std::ffi::CStr) -> Option<CMath1> {
    // SAFETY: dlsym with RTLD_DEFAULT only searches the loaded objects.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    // SAFETY: each name we look up is a C math function `double f(double)`.
    (!p.is_null()).then(|| unsafe { std::mem::transmute::<*mut libc::c_void, CMath1>(p) })
}

#[cfg(not(unix))]
fn c_math1(_name: &std::ffi::CStr) -> Option<CMath1> {
    None
}

/// Functions of one float taken from the C library, with Rust's as the
/// fallback where it cannot be found.
macro_rules! from_c_library {
    ($($(#[$doc:meta])* $name:ident = $sym:literal, $fallback:expr;)*) => {
        $($(#[$doc])*
        pub(super) fn $name(x: f64) -> f64 {
            static F: std::sync::OnceLock<Option<CMath1>> = std::sync::OnceLock::new();
            match F.get_or_init(|| c_math1($sym)) {
                // SAFETY: a pure C math function of one double.
                Some(f) => unsafe { f(x) },
                None => $fallback(x),
            }
        })*
    };
}

from_c_library! {
    /// The cube root.
    cbrt = c"cbrt", f64::cbrt;
    /// The inverse hyperbolic sine.
    asinh = c"asinh", f64::asinh;
    /// The inverse hyperbolic cosine.
    acosh = c"acosh", f64::acosh;
    /// The inverse hyperbolic tangent.
    atanh = c"atanh", f64::atanh;
}

/// The next float after `x` towards `y`.
pub(super) fn nextafter(x: f64, y: f64) -> f64 {
    // SAFETY: a pure C math function of two doubles.
    unsafe { c_nextafter(x, y) }
}

/// IEEE 754 remainder: `x - n*y` with `n` the integer nearest `x / y`.
pub(super) fn remainder(x: f64, y: f64) -> f64 {
    // SAFETY: a pure C math function of two doubles.
    unsafe { c_remainder(x, y) }
}

/// The value of the least significant bit of `x`.
pub(super) fn ulp(x: f64) -> f64 {
    if x.is_nan() || x.is_infinite() {
        return x.abs();
    }
    let x = x.abs();
    if x == f64::MAX {
        // There is no float above MAX: measure the gap below it.
        return x - nextafter(x, 0.0);
    }
    nextafter(x, f64::INFINITY) - x
}

/// Lanczos' approximation with g = 6.0246800407767296 and 13 terms (the
/// parameters Boost and CPython use), as the rational function
/// num(x) / den(x) whose denominator is x (x+1) … (x+11).
#[expect(
    clippy::excessive_precision,
    reason = "the published constants, exactly as written"
)]
const LANCZOS_G: f64 = 6.024_680_040_776_729_583_740_234_375;
#[expect(
    clippy::excessive_precision,
    reason = "the published constants, exactly as written"
)]
const LANCZOS_G_MINUS_HALF: f64 = 5.524_680_040_776_729_583_740_234_375;
#[expect(
    clippy::excessive_precision,
    reason = "the published constants, exactly as written"
)]
const LANCZOS_NUM: [f64; 13] = [
    23_531_376_880.410_759_688_572_007_674_451_636_754_734_846_804_940,
    42_919_803_642.649_098_768_957_899_047_001_988_850_926_355_848_959,
    35_711_959_237.355_668_049_440_185_451_547_166_705_960_488_635_843,
    17_921_034_426.037_209_699_919_755_754_458_931_112_671_403_265_390,
    6_039_542_586.352_028_005_064_291_644_307_297_921_069_938_842_070_8,
    1_439_720_407.311_721_673_663_223_072_794_912_393_971_548_578_677_2,
    248_874_557.862_054_156_511_460_386_413_229_423_216_321_251_278_01,
    31_426_415.585_400_194_380_614_231_628_318_205_362_874_684_987_640,
    2_876_370.628_935_372_441_225_409_051_620_849_613_599_114_537_876_8,
    186_056.265_395_223_495_040_294_989_716_045_699_282_207_842_363_28,
    8_071.672_002_365_816_210_638_002_902_272_250_613_821_851_632_502_4,
    210.824_277_751_579_345_872_509_733_920_713_362_711_669_695_802_91,
    2.506_628_274_631_000_270_164_908_177_133_837_338_626_431_079_340_8,
];
const LANCZOS_DEN: [f64; 13] = [
    0.0,
    39_916_800.0,
    120_543_840.0,
    150_917_976.0,
    105_258_076.0,
    45_995_730.0,
    13_339_535.0,
    2_637_558.0,
    357_423.0,
    32_670.0,
    1_925.0,
    66.0,
    1.0,
];

/// The Lanczos sum for x > 0. Past 5 it is evaluated as a rational
/// function of 1/x, which neither overflows nor loses digits for large x.
fn lanczos_sum(x: f64) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    if x < 5.0 {
        for (n, d) in LANCZOS_NUM.iter().zip(&LANCZOS_DEN).rev() {
            num = num * x + n;
            den = den * x + d;
        }
    } else {
        for (n, d) in LANCZOS_NUM.iter().zip(&LANCZOS_DEN) {
            num = num / x + n;
            den = den / x + d;
        }
    }
    num / den
}

/// `sin(pi * x)`, exact at the integers and half-integers (reducing x
/// first keeps `pi * x` from losing digits for large x).
fn sinpi(x: f64) -> f64 {
    let y = x.abs() % 2.0;
    let r = match (2.0 * y).round() as i32 {
        0 => (PI * y).sin(),
        1 => (PI * (y - 0.5)).cos(),
        2 => (PI * (1.0 - y)).sin(),
        3 => -(PI * (y - 1.5)).cos(),
        _ => (PI * (y - 2.0)).sin(),
    };
    1f64.copysign(x) * r
}

/// What `gamma` or `lgamma` gives or why it fails.
pub(super) enum Special {
    /// The value.
    Value(f64),
    /// No real result (`ValueError: math domain error`).
    Domain,
    /// Too large for a float (`OverflowError: math range error`).
    Range,
}

/// The gamma function.
pub(super) fn gamma(x: f64) -> Special {
    if x.is_nan() || x == f64::INFINITY {
        return Special::Value(x);
    }
    if x == f64::NEG_INFINITY || x == 0.0 {
        return Special::Domain;
    }
    if x == x.floor() {
        if x < 0.0 {
            return Special::Domain;
        }
        if x <= 23.0 {
            // Exact for the small integers: (x - 1)!
            return Special::Value((1..x as i64).fold(1.0, |acc, k| acc * k as f64));
        }
    }
    let ax = x.abs();
    if ax < 1e-20 {
        let r = 1.0 / x;
        return if r.is_infinite() {
            Special::Range
        } else {
            Special::Value(r)
        };
    }
    if ax > 200.0 {
        return if x < 0.0 {
            Special::Value(0.0 / sinpi(x))
        } else {
            Special::Range
        };
    }
    let y = ax + LANCZOS_G_MINUS_HALF;
    // The rounding error made computing y, corrected for below.
    let z = if ax > LANCZOS_G_MINUS_HALF {
        (y - ax) - LANCZOS_G_MINUS_HALF
    } else {
        (y - LANCZOS_G_MINUS_HALF) - ax
    } * LANCZOS_G
        / y;
    let r = if x < 0.0 {
        let mut r = -PI / sinpi(ax) / ax * y.exp() / lanczos_sum(ax);
        r -= z * r;
        if ax < 140.0 {
            r / y.powf(ax - 0.5)
        } else {
            let half = y.powf(ax / 2.0 - 0.25);
            r / half / half
        }
    } else {
        let mut r = lanczos_sum(ax) / y.exp();
        r += z * r;
        if ax < 140.0 {
            r * y.powf(ax - 0.5)
        } else {
            let half = y.powf(ax / 2.0 - 0.25);
            r * half * half
        }
    };
    if r.is_infinite() {
        Special::Range
    } else {
        Special::Value(r)
    }
}

/// `ln(pi)`.
const LOG_PI: f64 = 1.144_729_885_849_400_174_143_427_351_353_058_711_647;

/// The natural logarithm of the absolute value of the gamma function.
pub(super) fn lgamma(x: f64) -> Special {
    if x.is_nan() {
        return Special::Value(x);
    }
    if x.is_infinite() {
        return Special::Value(f64::INFINITY);
    }
    if x == x.floor() && x <= 2.0 {
        return if x <= 0.0 {
            Special::Domain
        } else {
            Special::Value(0.0)
        };
    }
    let ax = x.abs();
    if ax < 1e-20 {
        return Special::Value(-ax.ln());
    }
    let mut r = lanczos_sum(ax).ln() - LANCZOS_G;
    r += (ax - 0.5) * ((ax + LANCZOS_G - 0.5).ln() - 1.0);
    if x < 0.0 {
        // The reflection formula.
        r = LOG_PI - sinpi(ax).abs().ln() - ax.ln() - r;
    }
    if r.is_infinite() {
        Special::Range
    } else {
        Special::Value(r)
    }
}

/// `2**k` exactly, for k in -1074..=1023 (`powi` underflows on the way to
/// the subnormals).
fn pow2(k: i32) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// The Euclidean norm of `v` (absolute values), as CPython's `hypot` and
/// `dist` compute it: scaled by a power of two so nothing overflows, the
/// squares summed with their rounding errors carried in extra terms, and the
/// square root then corrected once, which gives the correctly rounded result
/// in nearly every case (chained `f64::hypot` does not).
pub(super) fn vector_norm(v: &mut [f64]) -> f64 {
    let max = v.iter().fold(0.0f64, |m, &x| if x > m { x } else { m });
    if max.is_infinite() {
        return max;
    }
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    if max == 0.0 || v.len() <= 1 {
        return max;
    }
    // frexp's exponent: max = m * 2**max_e with 0.5 <= m < 1 (subnormals,
    // whose exponent field is 0, all take the rescaling path below).
    let max_e = match ((max.to_bits() >> 52) & 0x7ff) as i32 {
        0 => -1024,
        bits => bits - 1022,
    };
    if max_e < -1023 {
        // 2**-max_e would overflow: make the subnormals normal first.
        for x in v.iter_mut() {
            *x /= f64::MIN_POSITIVE;
        }
        return f64::MIN_POSITIVE * vector_norm(v);
    }
    // Splits a float into halves whose products are exact (Dekker).
    const SPLIT: f64 = 134_217_729.0; // 2**27 + 1
    let split = |x: f64| {
        let t = x * SPLIT;
        let hi = t - (t - x);
        (hi, x - hi)
    };
    let scale = pow2(-max_e);
    let (mut csum, mut frac1, mut frac2, mut frac3) = (1.0f64, 0.0f64, 0.0f64, 0.0f64);
    // Adds `x` to csum, keeping the rounding error in `frac`.
    let add = |csum: &mut f64, frac: &mut f64, x: f64| {
        let old = *csum;
        *csum += x;
        *frac += (old - *csum) + x;
    };
    for &x in v.iter() {
        let (hi, lo) = split(x * scale);
        add(&mut csum, &mut frac1, hi * hi);
        add(&mut csum, &mut frac2, 2.0 * hi * lo);
        frac3 += lo * lo;
    }
    let h = (csum - 1.0 + (frac1 + frac2 + frac3)).sqrt();
    // One Newton step on the exact residual sum - h*h.
    let (hi, lo) = split(h);
    add(&mut csum, &mut frac1, -hi * hi);
    add(&mut csum, &mut frac2, -2.0 * hi * lo);
    add(&mut csum, &mut frac3, -lo * lo);
    let x = csum - 1.0 + (frac1 + frac2 + frac3);
    (h + x / (2.0 * h)) / scale
}
