//! TensorFlow's float32 `Softmax` on the CPU: with oneDNN on (TensorFlow's
//! default on x86-64 Linux) the op is oneDNN 3.7's JIT softmax, and on an
//! AVX-512 machine (the reference's: `jit:avx10_1_512` in `ONEDNN_VERBOSE`)
//! its dense kernel over the last axis, one row at a time, in 16-float
//! vectors with FMA:
//!
//! - the row's maximum: four vector accumulators over blocks of four
//!   vectors, the leftover whole vectors into the first ones, the masked
//!   tail into the first, then combined pairwise and reduced across lanes
//!   by a shuffle tree (halves, quarters, pairs, neighbours);
//! - `exp(x - max)` by oneDNN's own exp (below), summed with the same
//!   accumulators and tree, and `1 / sum` by one division;
//! - each output `exp(x - max) · (1 / sum)`.
//!
//! Results are flushed as TensorFlow's threads flush denormals.

use super::eigen_math::ftz;

/// Vector width in floats (zmm).
const W: usize = 16;

/// `vmaxps a, b`: `a` where `a > b`, else `b` (so `b` wins a NaN).
#[inline(always)]
fn maxps(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// `vminps a, b`.
#[inline(always)]
fn minps(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

#[inline(always)]
fn addps(a: f32, b: f32) -> f32 {
    ftz(a + b)
}

/// oneDNN's eltwise-injector exp: x clamped to [ln FLT_MIN, ln FLT_MAX],
/// n = floor(x·log2 e + 0.5), r = x - n·ln 2 (one FMA), a degree-5
/// polynomial by FMAs, times 2^(n-1) (zero where x < ln FLT_MIN), times 2.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let x = ftz(x);
    let lo = f32::from_bits(0xc2ae_ac50);
    let zero = x < lo;
    let x = maxps(minps(x, f32::from_bits(0x42b1_7218)), lo);
    let n = (ftz(x * f32::from_bits(0x3fb8_aa3b)) + 0.5).floor();
    let r = ftz((-n).mul_add(f32::from_bits(0x3f31_7218), x));
    let scale = if zero {
        0.0
    } else {
        // cvtps2dq: n - 1 is integral; NaN gives the integer indefinite value
        let i = if n.is_nan() {
            i32::MIN
        } else {
            (n - 1.0) as i32
        };
        f32::from_bits((i.wrapping_add(127) as u32) << 23)
    };
    let c = [
        0x3f7f_fffb_u32,
        0x3eff_fee3,
        0x3e2a_ad40,
        0x3d2b_9d0d,
        0x3c07_cfce,
    ]
    .map(f32::from_bits);
    let mut p = c[4];
    for k in (0..4).rev() {
        p = ftz(p.mul_add(r, c[k]));
    }
    p = ftz(p.mul_add(r, 1.0));
    ftz(ftz(p * scale) * 2.0)
}

/// The kernel's reduction of `f(x)` over a row with `op`, from `init`.
#[inline(always)]
fn axis_reduce(row: &[f32], init: f32, op: fn(f32, f32) -> f32, f: impl Fn(f32) -> f32) -> f32 {
    let n = row.len();
    let full = n / W;
    let (quads, rest) = (full / 4, full % 4);
    let unroll = if quads > 0 { 4 } else { rest.max(1) };
    let mut acc = [[init; W]; 4];
    let mut add = |k: usize, at: usize, lanes: usize| {
        for (l, a) in acc[k][..lanes].iter_mut().enumerate() {
            *a = op(*a, f(row[at + l]));
        }
    };
    let mut at = 0;
    for _ in 0..quads {
        for k in 0..4 {
            add(k, at, W);
            at += W;
        }
    }
    for k in 0..rest {
        add(k, at, W);
        at += W;
    }
    if !n.is_multiple_of(W) {
        add(0, at, n % W);
    }
    let comb = |a: [f32; W], b: [f32; W]| -> [f32; W] { std::array::from_fn(|l| op(a[l], b[l])) };
    let mut v = match unroll {
        4 => comb(comb(acc[0], acc[1]), comb(acc[2], acc[3])),
        3 => comb(comb(acc[0], acc[1]), acc[2]),
        2 => comb(acc[0], acc[1]),
        _ => acc[0],
    };
    for s in [8, 4, 2, 1] {
        let t = v;
        for (l, x) in v.iter_mut().enumerate() {
            *x = op(*x, t[l ^ s]);
        }
    }
    v[0]
}

/// Softmax of one row into `out` (same length).
#[inline(always)]
pub fn softmax_row(row: &[f32], out: &mut [f32]) {
    let max = axis_reduce(row, -f32::MAX, maxps, ftz);
    for (o, &x) in out.iter_mut().zip(row) {
        *o = exp(ftz(ftz(x) - max));
    }
    let inv = ftz(1.0 / axis_reduce(out, 0.0, addps, |e| e));
    for o in out.iter_mut() {
        *o = ftz(*o * inv);
    }
}
