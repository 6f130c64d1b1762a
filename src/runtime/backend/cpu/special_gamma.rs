//! The two- and three-operand special functions of [`super::special`]:
//! the regularized incomplete gamma functions (`Igamma`, `Igammac`,
//! `IgammaGradA`), Hurwitz's zeta, the polygamma functions and the
//! regularized incomplete beta function, as Eigen's scalar code (ports of
//! Cephes) computes them; Eigen has no packet code for any of them.

#![allow(clippy::excessive_precision)]

use super::special::{digamma_unflushed as digamma, Real};

fn machep<T: Real>() -> T {
    T::eps() / T::c(2.0)
}

/// Eigen's `cephes_helper::big` (float: 2/ε; double: 1/ε).
fn big<T: Real>() -> T {
    if T::F32 {
        T::c(1.0) / (T::eps() / T::c(2.0))
    } else {
        T::c(1.0) / T::eps()
    }
}

/// Eigen's `cephes_helper::biginv` (float: ε/2; double: ε).
fn biginv<T: Real>() -> T {
    if T::F32 {
        machep()
    } else {
        T::eps()
    }
}

/// What the incomplete-gamma code computes: the value, its derivative in
/// `a` (`IgammaGradA`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Value,
    Derivative,
}

fn iterations<T: Real>(mode: Mode) -> usize {
    match mode {
        Mode::Value => 2000,
        Mode::Derivative if T::F32 => 200,
        Mode::Derivative => 500,
    }
}

/// `x^a e^-x / Γ(a)`, 0 where it underflows.
fn main_term<T: Real>(a: T, x: T) -> T {
    let logax = a * x.ln() - x - a.lgamma();
    if logax < -T::highest().ln() || logax.is_nan() {
        return T::c(0.0);
    }
    logax.exp()
}

/// The continued fraction of the upper incomplete gamma function.
fn igammac_cf<T: Real>(a: T, x: T, mode: Mode) -> T {
    let (zero, one, two) = (T::c(0.0), T::c(1.0), T::c(2.0));
    let (machep, big, biginv) = (machep::<T>(), big::<T>(), biginv::<T>());
    if x.is_inf() {
        return zero;
    }
    let ax = main_term(a, x);
    if ax == zero {
        return zero;
    }
    let mut y = one - a;
    let mut z = x + y + one;
    let mut c = zero;
    let (mut pkm2, mut qkm2, mut pkm1) = (one, x, x + one);
    let mut qkm1 = z * x;
    let mut ans = pkm1 / qkm1;
    let (mut dpkm2, mut dqkm2, mut dpkm1, mut dqkm1) = (zero, zero, zero, -x);
    let mut dans = (dpkm1 - ans * dqkm1) / qkm1;
    for _ in 0..iterations::<T>(mode) {
        c += one;
        y += one;
        z += two;
        let yc = y * c;
        let pk = pkm1 * z - pkm2 * yc;
        let qk = qkm1 * z - qkm2 * yc;
        let dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c;
        let dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c;
        if qk != zero {
            let ans_prev = ans;
            ans = pk / qk;
            let dans_prev = dans;
            dans = (dpk - ans * dqk) / qk;
            let done = match mode {
                Mode::Value => (ans_prev - ans).abs() <= machep * ans.abs(),
                Mode::Derivative => (dans - dans_prev).abs() <= machep,
            };
            if done {
                break;
            }
        }
        pkm2 = pkm1;
        pkm1 = pk;
        qkm2 = qkm1;
        qkm1 = qk;
        dpkm2 = dpkm1;
        dpkm1 = dpk;
        dqkm2 = dqkm1;
        dqkm1 = dqk;
        if pk.abs() > big {
            pkm2 *= biginv;
            pkm1 *= biginv;
            qkm2 *= biginv;
            qkm1 *= biginv;
            dpkm2 *= biginv;
            dpkm1 *= biginv;
            dqkm2 *= biginv;
            dqkm1 *= biginv;
        }
    }
    match mode {
        Mode::Value => ans * ax,
        Mode::Derivative => {
            let dlogax = x.ln() - digamma(a);
            ans * (ax * dlogax) + dans * ax
        }
    }
}

/// The power series of the lower incomplete gamma function.
fn igamma_series<T: Real>(a: T, x: T, mode: Mode) -> T {
    let (zero, one) = (T::c(0.0), T::c(1.0));
    let machep = machep::<T>();
    let mut ax = main_term(a, x);
    if ax == zero {
        return zero;
    }
    ax /= a;
    let (mut r, mut c, mut ans, mut dc, mut dans) = (a, one, one, zero, zero);
    for _ in 0..iterations::<T>(mode) {
        r += one;
        let term = x / r;
        let dterm = -x / (r * r);
        dc = term * dc + dterm * c;
        dans += dc;
        c *= term;
        ans += c;
        let done = match mode {
            Mode::Value => c <= machep * ans,
            Mode::Derivative => dc.abs() <= machep * dans.abs(),
        };
        if done {
            break;
        }
    }
    match mode {
        Mode::Value => ans * ax,
        Mode::Derivative => {
            let dlogax = x.ln() - digamma(a + one);
            ans * (ax * dlogax) + dans * ax
        }
    }
}

fn igamma_generic<T: Real>(a: T, x: T, mode: Mode) -> T {
    let (zero, one) = (T::c(0.0), T::c(1.0));
    if x == zero {
        return zero;
    }
    if x < zero || a <= zero || a.is_nan() || x.is_nan() {
        return T::c(f64::NAN);
    }
    if x > one && x > a {
        let r = igammac_cf(a, x, mode);
        return match mode {
            Mode::Value => one - r,
            Mode::Derivative => -r,
        };
    }
    igamma_series(a, x, mode)
}

/// `P(a, x)`, the regularized lower incomplete gamma function.
pub fn igamma<T: Real>(a: T, x: T) -> T {
    igamma_generic(a.ftz(), x.ftz(), Mode::Value).ftz()
}

/// `∂P(a, x)/∂a` (`IgammaGradA`).
pub fn igamma_der_a<T: Real>(a: T, x: T) -> T {
    igamma_generic(a.ftz(), x.ftz(), Mode::Derivative).ftz()
}

/// `Q(a, x) = 1 - P(a, x)`, the regularized upper incomplete gamma function.
pub fn igammac<T: Real>(a: T, x: T) -> T {
    let (a, x) = (a.ftz(), x.ftz());
    let (zero, one) = (T::c(0.0), T::c(1.0));
    let r = if x < zero || a <= zero || a.is_nan() || x.is_nan() {
        T::c(f64::NAN)
    } else if x < one || x < a {
        one - igamma_series(a, x, Mode::Value)
    } else {
        igammac_cf(a, x, Mode::Value)
    };
    r.ftz()
}

/// Hurwitz's zeta function `ζ(x, q)`: a direct sum, then Euler-Maclaurin.
pub fn zeta<T: Real>(x: T, q: T) -> T {
    zeta_raw(x.ftz(), q.ftz()).ftz()
}

fn zeta_raw<T: Real>(x: T, q: T) -> T {
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1.8924375803183791606e9,
        7.47242496e10,
        -2.950130727918164224e12,
        1.1646782814350067249e14,
        -4.5979787224074726105e15,
        1.8152105401943546773e17,
        -7.1661652561756670113e18,
    ];
    let (zero, half, one) = (T::c(0.0), T::c(0.5), T::c(1.0));
    let machep = machep::<T>();
    let inf = T::c(f64::INFINITY);
    if x == one {
        return inf;
    }
    if x < one {
        return T::c(f64::NAN);
    }
    if q <= zero {
        if q == q.floor() {
            return if (half * x).rint() == half * x {
                inf
            } else {
                T::c(f64::NAN)
            };
        }
        if x != x.floor() {
            return T::c(f64::NAN);
        }
    }
    let mut s = q.pow(-x);
    let mut a = q;
    let mut b = zero;
    // the direct sum: 9 terms for float; for double also until a > 9
    let mut i = 0;
    while i < 9 || (!T::F32 && a <= T::c(9.0)) {
        i += 1;
        a += one;
        b = a.pow(-x);
        s += b;
        if (b / s).abs() < machep {
            return s;
        }
    }
    if b == zero {
        return s;
    }
    let w = a;
    s += b * w / (x - one);
    s -= half * b;
    let mut a = one;
    let mut k = zero;
    for &ai in &A {
        a *= x + k;
        b /= w;
        let t = a * b / T::c(ai);
        s += t;
        if (t / s).abs() < machep {
            break;
        }
        k += one;
        a *= x + k;
        b /= w;
        k += one;
    }
    s
}

/// The polygamma function `ψ⁽ⁿ⁾(x)`: digamma for n = 0, else
/// `(-1)^(n+1) n! ζ(n+1, x)`.
pub fn polygamma<T: Real>(n: T, x: T) -> T {
    let (n, x) = (n.ftz(), x.ftz());
    let (zero, one) = (T::c(0.0), T::c(1.0));
    let nplus = n + one;
    let r = if n.floor() != n || n < zero {
        T::c(f64::NAN)
    } else if n == zero {
        digamma(x)
    } else {
        let factorial = nplus.lgamma().exp();
        (-one).pow(nplus) * factorial * zeta_raw(nplus, x)
    };
    r.ftz()
}

/// Cephes' continued fraction of the incomplete beta integral (`incbcf`
/// for the small branch, `incbd` otherwise).
fn incbeta_cfe<T: Real>(a: T, b: T, mut x: T, small: bool) -> T {
    let (zero, one, two) = (T::c(0.0), T::c(1.0), T::c(2.0));
    let (big, machep, biginv) = (big::<T>(), machep::<T>(), biginv::<T>());
    let num_iters = if T::F32 { 100 } else { 300 };
    let thresh = if T::F32 { machep } else { T::c(3.0) * machep };
    let (mut k1, mut k2, mut k3, mut k4, mut k5, mut k6, mut k7, mut k8, k26);
    if small {
        (k1, k2, k3, k4, k5, k6) = (a, a + b, a, a + one, one, b - one);
        (k7, k8, k26) = (a + one, a + two, one);
    } else {
        (k1, k2, k3, k4, k5, k6) = (a, b - one, a, a + one, one, a + b);
        (k7, k8, k26) = (a + one, a + two, -one);
        x = x / (one - x);
    }
    let (mut pkm2, mut qkm2, mut pkm1, mut qkm1, mut ans) = (zero, one, one, one, one);
    for _ in 0..num_iters {
        let xk = -(x * k1 * k2) / (k3 * k4);
        let pk = pkm1 + pkm2 * xk;
        let qk = qkm1 + qkm2 * xk;
        pkm2 = pkm1;
        pkm1 = pk;
        qkm2 = qkm1;
        qkm1 = qk;
        let xk = (x * k5 * k6) / (k7 * k8);
        let pk = pkm1 + pkm2 * xk;
        let qk = qkm1 + qkm2 * xk;
        pkm2 = pkm1;
        pkm1 = pk;
        qkm2 = qkm1;
        qkm1 = qk;
        if qk != zero {
            let r = pk / qk;
            if (ans - r).abs() < r.abs() * thresh {
                return r;
            }
            ans = r;
        }
        k1 += one;
        k2 += k26;
        k3 += two;
        k4 += two;
        k5 += one;
        k6 -= k26;
        k7 += two;
        k8 += two;
        if qk.abs() + pk.abs() > big {
            pkm2 *= biginv;
            pkm1 *= biginv;
            qkm2 *= biginv;
            qkm1 *= biginv;
        }
        if qk.abs() < biginv || pk.abs() < biginv {
            pkm2 *= big;
            pkm1 *= big;
            qkm2 *= big;
            qkm1 *= big;
        }
    }
    ans
}

/// `I_x(a, b)`, the regularized incomplete beta function (Eigen's float
/// and double versions are different ports of Cephes' `incbet`).
pub fn betainc<T: Real>(a: T, b: T, x: T) -> T {
    let (a, b, x) = (a.ftz(), b.ftz(), x.ftz());
    let (zero, one) = (T::c(0.0), T::c(1.0));
    let nan = T::c(f64::NAN);
    if a <= zero || b <= zero {
        return nan;
    }
    if x <= zero || x >= one {
        return if x == zero {
            zero
        } else if x == one {
            one
        } else {
            nan
        };
    }
    let r = if T::F32 {
        if a <= one {
            let ans = incbsa_f32(a + one, b, x);
            let t =
                a * x.ln() + b * (-x).ln_1p() + (a + b).lgamma() - (a + one).lgamma() - b.lgamma();
            ans + t.exp()
        } else {
            incbsa_f32(a, b, x)
        }
    } else {
        betainc_f64(a, b, x)
    };
    r.ftz()
}

fn incbsa_f32<T: Real>(aa: T, bb: T, xx: T) -> T {
    let one = T::c(1.0);
    let onemx = one - xx;
    let reversed = xx > aa / (aa + bb);
    let (a, b, mut t, x) = if reversed {
        (bb, aa, xx, onemx)
    } else {
        (aa, bb, onemx, xx)
    };
    if b > T::c(10.0) && (b * x / a).abs() < T::c(0.3) {
        let t = incbps_f32(a, b, x);
        return if reversed { one - t } else { t };
    }
    let ans = x * (a + b - T::c(2.0)) / (a - one);
    let ans = if ans < one {
        let r = incbeta_cfe(a, b, x, true);
        t = b * t.ln();
        r
    } else {
        let r = incbeta_cfe(a, b, x, false);
        t = (b - one) * t.ln();
        r
    };
    t += a * x.ln() + (a + b).lgamma() - a.lgamma() - b.lgamma();
    t += (ans / a).ln();
    t = t.exp();
    if reversed {
        one - t
    } else {
        t
    }
}

fn incbps_f32<T: Real>(mut a: T, mut b: T, x: T) -> T {
    let one = T::c(1.0);
    let machep = machep::<T>();
    let mut y = a * x.ln() + (b - one) * (-x).ln_1p() - a.ln();
    y -= a.lgamma() + b.lgamma();
    y += (a + b).lgamma();
    let t = x / (one - x);
    let (mut s, mut u) = (T::c(0.0), one);
    loop {
        b -= one;
        if b == T::c(0.0) {
            break;
        }
        a += one;
        u *= t * b / a;
        s += u;
        if u.abs() <= machep {
            break;
        }
    }
    y.exp() * (one + s)
}

fn incbps_f64<T: Real>(a: T, b: T, x: T) -> T {
    let one = T::c(1.0);
    let ai = one / a;
    let mut u = (one - b) * x;
    let mut v = u / (a + one);
    let t1 = v;
    let mut t = u;
    let mut n = T::c(2.0);
    let mut s = T::c(0.0);
    let z = machep::<T>() * ai;
    while v.abs() > z {
        u = (n - b) * x / n;
        t *= u;
        v = t / (a + n);
        s += v;
        n += one;
    }
    s += t1;
    s += ai;
    let u = a * x.ln();
    let t = (a + b).lgamma() - a.lgamma() - b.lgamma() + u + s.ln();
    t.exp()
}

fn betainc_f64<T: Real>(aa: T, bb: T, xx: T) -> T {
    let one = T::c(1.0);
    let machep = machep::<T>();
    if bb * xx <= one && xx <= T::c(0.95) {
        return incbps_f64(aa, bb, xx);
    }
    let w = one - xx;
    let reversed = xx > aa / (aa + bb);
    let (a, b, xc, x) = if reversed {
        (bb, aa, xx, w)
    } else {
        (aa, bb, w, xx)
    };
    if reversed && b * x <= one && x <= T::c(0.95) {
        let t = incbps_f64(a, b, x);
        return if t <= machep { one - machep } else { one - t };
    }
    let y = x * (a + b - T::c(2.0)) - (a - one);
    let w = if y < T::c(0.0) {
        incbeta_cfe(a, b, x, true)
    } else {
        incbeta_cfe(a, b, x, false) / xc
    };
    let mut y = a * x.ln();
    let t = b * xc.ln();
    y += t + (a + b).lgamma() - a.lgamma() - b.lgamma();
    y += (w / a).ln();
    let t = y.exp();
    if reversed {
        if t <= machep {
            one - machep
        } else {
            one - t
        }
    } else {
        t
    }
}
