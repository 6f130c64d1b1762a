//! TensorFlow's special-function kernels on the CPU, element by element:
//! `Lgamma`, `Digamma`, `Ndtri`, `Erfinv`, `Igamma`, `Igammac`,
//! `IgammaGradA`, `Zeta`, `Polygamma` and `Betainc`, as TensorFlow 2.21's
//! Eigen computes them (Eigen's `SpecialFunctionsImpl.h`, mostly ports of
//! Cephes). Each is written once over [`Real`], so float32 runs in float32
//! arithmetic with float32 constants, as Eigen's templates do.
//!
//! Only `Ndtri` and `Erfinv` have packet code in Eigen's AVX build: whole
//! 8-float (4-double) packets take Eigen's own `plog` (and, for float, the
//! `rcpps` reciprocal); the other functions run Eigen's scalar code, which
//! calls the C library (`lgammaf_r`, `logf`, `expf`, `tanf`, `powf` …).
//! Operands and results are flushed to zero (TensorFlow's threads run with
//! flush-to-zero); intermediate denormals are not, which can only matter
//! far out in the tails. The op layer is `runtime::ops::special`.

#![allow(clippy::excessive_precision)]

use super::{eigen_math as m32, eigen_math64 as m64};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A float type as Eigen's special functions see it.
pub trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// Elements per AVX packet.
    const PACKET: usize;
    /// Whether this is float (Eigen specialises some constants on it).
    const F32: bool;
    /// A constant (rounded once to this type).
    fn c(v: f64) -> Self;
    /// Flush a denormal to zero.
    fn ftz(self) -> Self;
    /// The C library's log.
    fn ln(self) -> Self;
    /// Eigen's packet log.
    fn plog(self) -> Self;
    /// Eigen's packet reciprocal.
    fn precip(self) -> Self;
    /// The C library's exp.
    fn exp(self) -> Self;
    /// The C library's log1p.
    fn ln_1p(self) -> Self;
    /// The C library's tan.
    fn tan(self) -> Self;
    /// The C library's pow.
    fn pow(self, y: Self) -> Self;
    /// The C library's lgamma (`lgammaf_r`/`lgamma_r`).
    fn lgamma(self) -> Self;
    /// Rounding down.
    fn floor(self) -> Self;
    /// Rounding half to even (`rint`).
    fn rint(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// NaN test.
    fn is_nan(self) -> bool;
    /// Infinity test.
    fn is_inf(self) -> bool;
    /// Machine epsilon.
    fn eps() -> Self;
    /// The largest finite value.
    fn highest() -> Self;
}

extern "C" {
    fn lgammaf_r(x: f32, sign: *mut std::ffi::c_int) -> f32;
    fn lgamma_r(x: f64, sign: *mut std::ffi::c_int) -> f64;
}

/// A float whose every arithmetic result is flushed to zero when it is
/// denormal, as on TensorFlow's threads (flush-to-zero): the special
/// functions' series and continued fractions run through the denormal
/// range where their tails are small.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Z<F>(pub F);

macro_rules! flushed {
    ($f:ty, $m:ident, $packet:expr, $log:path, $exp:path, $log1p:path, $lgamma:ident, $bias:expr) => {
        impl Add for Z<$f> {
            type Output = Self;
            fn add(self, o: Self) -> Self {
                Z($m::ftz(self.0 + o.0))
            }
        }
        impl Sub for Z<$f> {
            type Output = Self;
            fn sub(self, o: Self) -> Self {
                Z($m::ftz(self.0 - o.0))
            }
        }
        impl Mul for Z<$f> {
            type Output = Self;
            fn mul(self, o: Self) -> Self {
                Z($m::ftz(self.0 * o.0))
            }
        }
        impl Div for Z<$f> {
            type Output = Self;
            fn div(self, o: Self) -> Self {
                Z($m::ftz(self.0 / o.0))
            }
        }
        impl Neg for Z<$f> {
            type Output = Self;
            fn neg(self) -> Self {
                Z(-self.0)
            }
        }
        impl AddAssign for Z<$f> {
            fn add_assign(&mut self, o: Self) {
                *self = *self + o;
            }
        }
        impl SubAssign for Z<$f> {
            fn sub_assign(&mut self, o: Self) {
                *self = *self - o;
            }
        }
        impl MulAssign for Z<$f> {
            fn mul_assign(&mut self, o: Self) {
                *self = *self * o;
            }
        }
        impl DivAssign for Z<$f> {
            fn div_assign(&mut self, o: Self) {
                *self = *self / o;
            }
        }
        impl Real for Z<$f> {
            const PACKET: usize = $m::PACKET;
            const F32: bool = $packet;
            fn c(v: f64) -> Self {
                Z(v as $f)
            }
            fn ftz(self) -> Self {
                Z($m::ftz(self.0))
            }
            fn ln(self) -> Self {
                Z($log(self.0))
            }
            fn plog(self) -> Self {
                Z($m::plog(self.0))
            }
            fn precip(self) -> Self {
                if $packet {
                    Z(m32::preciprocal(self.0 as f32) as $f)
                } else {
                    Z(1.0) / self
                }
            }
            fn exp(self) -> Self {
                Z($m::ftz($exp(self.0)))
            }
            fn ln_1p(self) -> Self {
                Z($m::ftz($log1p(self.0)))
            }
            fn tan(self) -> Self {
                Z($m::ftz(self.0.tan()))
            }
            fn pow(self, y: Self) -> Self {
                Z($m::ftz(self.0.powf(y.0)))
            }
            fn lgamma(self) -> Self {
                // glibc's log scales a denormal up first, which
                // denormals-are-zero makes 0: lgamma(denormal) = -log of
                // the smallest power of two past the denormals
                if self.0 != 0.0 && $m::ftz(self.0) == 0.0 {
                    return Z($bias * std::f64::consts::LN_2 as $f);
                }
                let mut sign = 0;
                // SAFETY: a pure C math function; `sign` is a valid out-pointer.
                Z($m::ftz(unsafe { $lgamma(self.0, &mut sign) }))
            }
            fn floor(self) -> Self {
                Z(self.0.floor())
            }
            fn rint(self) -> Self {
                Z(self.0.round_ties_even())
            }
            fn sqrt(self) -> Self {
                Z(self.0.sqrt())
            }
            fn abs(self) -> Self {
                Z(self.0.abs())
            }
            fn is_nan(self) -> bool {
                self.0.is_nan()
            }
            fn is_inf(self) -> bool {
                self.0.is_infinite()
            }
            fn eps() -> Self {
                Z(<$f>::EPSILON)
            }
            fn highest() -> Self {
                Z(<$f>::MAX)
            }
        }
    };
}

flushed!(
    f32,
    m32,
    true,
    m32::logf,
    m32::expf,
    m32::log1pf,
    lgammaf_r,
    150.0
);
flushed!(
    f64,
    m64,
    false,
    m64::log,
    m64::exp,
    f64::ln_1p,
    lgamma_r,
    1075.0
);

/// Horner's rule over `coef` (highest power first), Eigen's `ppolevl`.
fn polevl<T: Real>(x: T, coef: &[f64]) -> T {
    let mut r = T::c(coef[0]);
    for &k in &coef[1..] {
        r = r * x + T::c(k);
    }
    r
}

/// `log Γ(x)`: the C library's `lgammaf_r`/`lgamma_r`.
pub fn lgamma<T: Real>(x: T) -> T {
    x.lgamma()
}

/// Cephes' `psi`: reflection for x ≤ 0, the recurrence up to 10, then the
/// asymptotic series.
pub fn digamma<T: Real>(x: T) -> T {
    digamma_raw(x.ftz()).ftz()
}

fn digamma_raw<T: Real>(mut x: T) -> T {
    let (zero, one, half) = (T::c(0.0), T::c(1.0), T::c(0.5));
    let pi = T::c(std::f64::consts::PI);
    let mut nz = zero;
    let mut negative = false;
    if x <= zero {
        negative = true;
        let q = x;
        let mut p = q.floor();
        if p == q {
            return T::c(f64::NAN);
        }
        nz = q - p;
        if nz != half {
            if nz > half {
                p += one;
                nz = q - p;
            }
            nz = pi / (pi * nz).tan();
        } else {
            nz = zero;
        }
        x = one - x;
    }
    let mut s = x;
    let mut w = zero;
    while s < T::c(10.0) {
        w += one / s;
        s += one;
    }
    let y = if T::F32 {
        if s < T::c(1.0e8) {
            let z = one / (s * s);
            z * polevl(
                z,
                &[
                    -4.16666666666666666667E-3,
                    3.96825396825396825397E-3,
                    -8.33333333333333333333E-3,
                    8.33333333333333333333E-2,
                ],
            )
        } else {
            zero
        }
    } else if s < T::c(1.0e17) {
        let z = one / (s * s);
        z * polevl(
            z,
            &[
                8.33333333333333333333E-2,
                -2.10927960927960927961E-2,
                7.57575757575757575758E-3,
                -4.16666666666666666667E-3,
                3.96825396825396825397E-3,
                -8.33333333333333333333E-3,
                8.33333333333333333333E-2,
            ],
        )
    } else {
        zero
    };
    let y = s.ln() - (half / s) - y - w;
    if negative {
        y - nz
    } else {
        y
    }
}

/// Cephes' `ndtri`, the inverse of the standard normal CDF, as Eigen's
/// `generic_ndtri` (`packet`: the vectorised log and reciprocal).
pub fn ndtri<T: Real>(a: T, packet: bool) -> T {
    ndtri_raw(a.ftz(), packet).ftz()
}

fn ndtri_raw<T: Real>(a: T, packet: bool) -> T {
    // TensorFlow's double packets give the scalar code's bits (checked
    // against it); only float's differ
    let packet = packet && T::F32;
    let (zero, one, half) = (T::c(0.0), T::c(1.0), T::c(0.5));
    let log = |v: T| if packet { v.plog() } else { v.ln() };
    let exp_neg_two = T::c(0.13533528323661269189);
    let flip = a <= one - exp_neg_two;
    let b = if flip { a } else { one - a };
    let r = if exp_neg_two < b {
        const P0: [f64; 5] = [
            -5.99633501014107895267e1,
            9.80010754185999661536e1,
            -5.66762857469070293439e1,
            1.39312609387279679503e1,
            -1.23916583867381258016e0,
        ];
        const Q0: [f64; 9] = [
            1.0,
            1.95448858338141759834e0,
            4.67627912898881538453e0,
            8.63602421390890590575e1,
            -2.25462687854119370527e2,
            2.00260212380060660359e2,
            -8.20372256168333339912e1,
            1.59056225126211695515e1,
            -1.18331621121330003142e0,
        ];
        let c = b - half;
        let c2 = c * c;
        let v = c * (c2 * (polevl(c2, &P0) / polevl(c2, &Q0))) + c;
        v * T::c(2.50662827463100050242e0)
    } else {
        const P1: [f64; 9] = [
            4.05544892305962419923e0,
            3.15251094599893866154e1,
            5.71628192246421288162e1,
            4.40805073893200834700e1,
            1.46849561928858024014e1,
            2.18663306850790267539e0,
            -1.40256079171354495875e-1,
            -3.50424626827848203418e-2,
            -8.57456785154685413611e-4,
        ];
        const Q1: [f64; 9] = [
            1.0,
            1.57799883256466749731e1,
            4.53907635128879210584e1,
            4.13172038254672030440e1,
            1.50425385692907503408e1,
            2.50464946208309415979e0,
            -1.42182922854787788574e-1,
            -3.80806407691578277194e-2,
            -9.33259480895457427372e-4,
        ];
        const P2: [f64; 9] = [
            3.23774891776946035970e0,
            6.91522889068984211695e0,
            3.93881025292474443415e0,
            1.33303460815807542389e0,
            2.01485389549179081538e-1,
            1.23716634817820021358e-2,
            3.01581553508235416007e-4,
            2.65806974686737550832e-6,
            6.23974539184983293730e-9,
        ];
        const Q2: [f64; 9] = [
            1.0,
            6.02427039364742014255e0,
            3.67983563856160859403e0,
            1.37702099489081330271e0,
            2.16236993594496635890e-1,
            1.34204006088543189037e-2,
            3.28014464682127739104e-4,
            2.89247864745380683936e-6,
            6.79019408009981274425e-9,
        ];
        let x = (T::c(-2.0) * log(b)).sqrt();
        let x0 = x - log(x) / x;
        let z = if packet { x.precip() } else { one / x };
        let ratio = if x < T::c(8.0) {
            polevl(z, &P1) / polevl(z, &Q1)
        } else {
            polevl(z, &P2) / polevl(z, &Q2)
        };
        let v = x0 - z * ratio;
        if flip {
            -v
        } else {
            v
        }
    };
    if a == zero {
        T::c(f64::NEG_INFINITY)
    } else if one == a {
        T::c(f64::INFINITY)
    } else {
        r
    }
}

/// TensorFlow's `scalar_erfinv_op`: `ndtri(x/2 + 1/2) / √2`.
pub fn erfinv<T: Real>(x: T, packet: bool) -> T {
    let half = T::c(0.5);
    let y = ndtri_raw(half * x.ftz() + half, packet);
    (y * T::c(std::f64::consts::FRAC_1_SQRT_2)).ftz()
}

pub use super::special_gamma::{betainc, igamma, igamma_der_a, igammac, polygamma, zeta};

/// Exposes the unflushed digamma to the other special kernels.
pub(super) fn digamma_unflushed<T: Real>(x: T) -> T {
    digamma_raw(x)
}
