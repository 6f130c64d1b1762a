//! Dense matrix factorizations on one row-major `n × n` matrix, as
//! TensorFlow's CPU kernels run Eigen: `PartialPivLU` (partial pivoting, the
//! first largest pivot, the column divided by the pivot, the rank-1 update
//! `a - l·u` without FMA), Eigen's triangular solves (the products subtracted
//! one by one in column order, then multiplied by the reciprocal of the
//! diagonal) and `LLT` (lower, unblocked: each dot product summed in order,
//! divided by the diagonal). These orders were checked bit for bit against
//! TensorFlow 2.21 for small matrices; past Eigen's block sizes (16 rows for
//! LU, a panel of 8–24 for the solves, 32 for LLT, and its packet sums in
//! `LLT`'s dot products from 8 floats or 4 doubles on) Eigen blocks and
//! vectorises, and dist's results may differ in the last bits. The batch
//! loop and the errors are `runtime::ops::decomp`'s.

use super::eigen_math as m32;
use super::eigen_math64 as m64;

/// The real element types the factorizations take.
pub trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// NaN.
    const NAN: Self;
    /// Elements per packet in TensorFlow's AVX build.
    const PACKET: usize;
    /// |x|.
    fn abs(self) -> Self;
    /// √x.
    fn sqrt(self) -> Self;
    /// Eigen's packet `plog` (one lane).
    fn plog(self) -> Self;
    /// The C library's `log` as Eigen's scalar path calls it.
    fn slog(self) -> Self;
    /// The C library's `exp`.
    fn sexp(self) -> Self;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const NAN: f32 = f32::NAN;
    const PACKET: usize = 8;
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn plog(self) -> f32 {
        m32::plog(self)
    }
    fn slog(self) -> f32 {
        m32::logf(self)
    }
    fn sexp(self) -> f32 {
        m32::expf(self)
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const NAN: f64 = f64::NAN;
    const PACKET: usize = 4;
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn plog(self) -> f64 {
        m64::plog(self)
    }
    fn slog(self) -> f64 {
        m64::log(self)
    }
    fn sexp(self) -> f64 {
        m64::exp(self)
    }
}

/// An LU factorization in place: `a` holds the unit-lower `L` below the
/// diagonal and `U` on and above it; the result is the row transposition of
/// each step (`P·A = L·U`) and their count.
pub fn lu_in_place<T: Real>(a: &mut [T], n: usize) -> (Vec<usize>, usize) {
    let mut trans = Vec::with_capacity(n);
    let mut swaps = 0;
    for k in 0..n {
        let mut p = k;
        let mut biggest = a[k * n + k].abs();
        for i in k + 1..n {
            let s = a[i * n + k].abs();
            if s > biggest {
                biggest = s;
                p = i;
            }
        }
        trans.push(p);
        if biggest != T::ZERO {
            if p != k {
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
                swaps += 1;
            }
            let d = a[k * n + k];
            for i in k + 1..n {
                a[i * n + k] = a[i * n + k] / d;
            }
        }
        for i in k + 1..n {
            let l = a[i * n + k];
            for j in k + 1..n {
                a[i * n + j] = a[i * n + j] - l * a[k * n + j];
            }
        }
    }
    (trans, swaps)
}

/// Whether every pivot of an LU factorization is nonzero (TensorFlow's
/// `min_abs_pivot > 0`; a NaN pivot fails it too).
pub fn invertible<T: Real>(lu: &[T], n: usize) -> bool {
    (0..n).all(|i| lu[i * n + i].abs() > T::ZERO)
}

/// Solves `L·U·x = P·b` in place for the `k` columns of the row-major
/// `n × k` matrix `b`.
pub fn lu_solve<T: Real>(lu: &[T], trans: &[usize], b: &mut [T], n: usize, k: usize) {
    for (i, &p) in trans.iter().enumerate() {
        if p != i {
            for c in 0..k {
                b.swap(i * k + c, p * k + c);
            }
        }
    }
    triangular_solve(lu, b, n, k, true, false, true);
    triangular_solve(lu, b, n, k, false, false, false);
}

/// Solves `op(T)·x = b` in place, `T` the lower (or upper) triangle of the
/// row-major `t`, `op` the transpose when `adjoint`, a unit diagonal when
/// `unit`; `b` is row-major `n × k`.
pub fn triangular_solve<T: Real>(
    t: &[T],
    b: &mut [T],
    n: usize,
    k: usize,
    lower: bool,
    adjoint: bool,
    unit: bool,
) {
    // the transpose of a lower triangle is an upper one
    let lower_eff = lower != adjoint;
    let at = |i: usize, j: usize| {
        if adjoint {
            t[j * n + i]
        } else {
            t[i * n + j]
        }
    };
    let rows: Vec<usize> = if lower_eff {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    for c in 0..k {
        for &i in &rows {
            let mut r = b[i * k + c];
            let (lo, hi) = if lower_eff { (0, i) } else { (i + 1, n) };
            for j in lo..hi {
                r = r - at(i, j) * b[j * k + c];
            }
            if !unit {
                r = r * (T::ONE / at(i, i));
            }
            b[i * k + c] = r;
        }
    }
}

/// Eigen's `LLT<Lower>` of the lower triangle of `a`, written into `l` (its
/// upper triangle zero); `false` when a diagonal is not positive (then `l`'s
/// lower triangle is NaN, as TensorFlow leaves it).
pub fn cholesky<T: Real>(a: &[T], l: &mut [T], n: usize) -> bool {
    l.fill(T::ZERO);
    for k in 0..n {
        let mut x = a[k * n + k];
        if k > 0 {
            let mut s = l[k * n] * l[k * n];
            for j in 1..k {
                s = s + l[k * n + j] * l[k * n + j];
            }
            x = x - s;
        }
        // a NaN fails too
        let positive = x > T::ZERO;
        if !positive {
            for i in 0..n {
                for j in 0..=i {
                    l[i * n + j] = T::NAN;
                }
            }
            return false;
        }
        let x = x.sqrt();
        l[k * n + k] = x;
        for i in k + 1..n {
            let mut v = a[i * n + k];
            if k > 0 {
                let mut s = l[i * n] * l[k * n];
                for j in 1..k {
                    s = s + l[i * n + j] * l[k * n + j];
                }
                v = v - s;
            }
            l[i * n + k] = v / x;
        }
    }
    true
}

/// Eigen's `redux` sum of `f(x)` over `v` (a fresh, aligned array): whole
/// packets with `pf` (two accumulators, then one more packet), reduced as
/// AVX's `predux` pairs lanes, then the tail with `sf` in order.
fn packet_sum<T: Real>(v: &[T], pf: fn(T) -> T, sf: fn(T) -> T) -> T {
    let p = T::PACKET;
    let n = v.len();
    let aligned = n / p * p;
    if aligned == 0 {
        let mut res = sf(v[0]);
        for &x in &v[1..] {
            res = res + sf(x);
        }
        return res;
    }
    let packet = |at: usize| -> Vec<T> { v[at..at + p].iter().map(|&x| pf(x)).collect() };
    let add = |a: &mut Vec<T>, b: &[T]| a.iter_mut().zip(b).for_each(|(x, &y)| *x = *x + y);
    let mut r0 = packet(0);
    if aligned > p {
        let aligned2 = n / (2 * p) * (2 * p);
        let mut r1 = packet(p);
        let mut at = 2 * p;
        while at < aligned2 {
            add(&mut r0, &packet(at));
            add(&mut r1, &packet(at + p));
            at += 2 * p;
        }
        add(&mut r0, &r1);
        if aligned > aligned2 {
            add(&mut r0, &packet(aligned2));
        }
    }
    // AVX's predux: the halves added, then (a0 + a2) + (a1 + a3)
    let mut lanes = r0;
    while lanes.len() > 4 {
        let h = lanes.len() / 2;
        lanes = (0..h).map(|i| lanes[i] + lanes[i + h]).collect();
    }
    let mut res = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
    for &x in &v[aligned..] {
        res = res + sf(x);
    }
    res
}

/// TensorFlow's `SLogDet` of one matrix (overwritten by its LU): the sign
/// (the permutation's, times each pivot's sign, 0 for a zero pivot) and
/// log|det| (Eigen's vectorised sum of the pivots' logs). An empty matrix
/// has sign 1 and log 0.
pub fn slogdet<T: Real>(a: &mut [T], n: usize) -> (T, T) {
    if n == 0 {
        return (T::ONE, T::ZERO);
    }
    let (_, swaps) = lu_in_place(a, n);
    let diag: Vec<T> = (0..n).map(|i| a[i * n + i]).collect();
    let abs: Vec<T> = diag.iter().map(|d| d.abs()).collect();
    let log = packet_sum(&abs, T::plog, T::slog);
    let mut sign = if swaps % 2 == 1 { -T::ONE } else { T::ONE };
    for &d in &diag {
        let s = if d > T::ZERO {
            T::ONE
        } else if d < T::ZERO {
            -T::ONE
        } else if d == T::ZERO {
            T::ZERO
        } else {
            d
        };
        sign = sign * s;
    }
    (sign, T::ZERO + log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_factors() {
        let mut a = vec![4.0f64, 3.0, 6.0, 3.0];
        let (t, _) = lu_in_place(&mut a, 2);
        assert!(invertible(&a, 2));
        let mut b = vec![10.0, 12.0];
        lu_solve(&a, &t, &mut b, 2, 1);
        assert!((b[0] - 1.0).abs() < 1e-12 && (b[1] - 2.0).abs() < 1e-12);
        let mut l = vec![0.0; 4];
        assert!(cholesky(&[4.0f64, 2.0, 2.0, 3.0], &mut l, 2));
        assert_eq!(l, vec![2.0, 0.0, 1.0, 2f64.sqrt()]);
        let (s, ld) = slogdet(&mut [0.0f64, 1.0, 1.0, 0.0], 2);
        assert_eq!((s, ld), (-1.0, 0.0));
    }
}
