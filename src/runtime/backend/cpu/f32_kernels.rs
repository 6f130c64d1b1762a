//! TensorFlow's float CPU kernels whose rounding dist reproduces bit for
//! bit: element-wise functions split as Eigen's executor splits a buffer
//! (float32 lanes in [`super::eigen_math`], float64 `exp`/`log` in
//! [`super::eigen_math64`]), and the fused kernels built on them.

use rayon::prelude::*;

use super::eigen_math::*;
use super::eigen_math64;
use super::zip::PAR_MIN;
use crate::runtime::error::Result;
use crate::runtime::op::UnaryOp;
use crate::runtime::storage::try_vec;

/// `f` of each element of `src` into `out`.
#[inline(always)]
fn fill<T: Copy, F: Fn(T) -> T>(out: &mut [T], src: &[T], f: &F) {
    for (o, &x) in out.iter_mut().zip(src) {
        *o = f(x);
    }
}

/// [`fill`] compiled for AVX2 with FMA: the lanes vectorise, `floor` is one
/// instruction and `mul_add` is `vfmadd` (Rust never fuses a separate
/// multiply and add, so the results are the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fill_avx2<T: Copy, F: Fn(T) -> T>(out: &mut [T], src: &[T], f: &F) {
    fill(out, src, f)
}

/// [`fill`] with the widest instructions this CPU has.
fn fill_fast<T: Copy, F: Fn(T) -> T>(out: &mut [T], src: &[T], f: &F) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features `fill_avx2` is compiled for.
        return unsafe { fill_avx2(out, src, f) };
    }
    fill(out, src, f)
}

/// `f` over `v`, but elements past the last whole packet through `tail`
/// (Eigen's executor: packets from the start, scalars at the end); large
/// buffers are split across threads at packet boundaries.
pub fn packets<P, S>(v: &[f32], f: P, tail: S) -> Result<Vec<f32>>
where
    P: Fn(f32) -> f32 + Sync + Send,
    S: Fn(f32) -> f32,
{
    packets_of::<f32, PACKET, P, S>(v, f, tail)
}

/// [`packets`] for any float type and packet width.
fn packets_of<T, const W: usize, P, S>(v: &[T], f: P, tail: S) -> Result<Vec<T>>
where
    T: Copy + Default + Send + Sync + 'static,
    P: Fn(T) -> T + Sync + Send,
    S: Fn(T) -> T,
{
    let full = v.len() / W * W;
    let mut out = try_vec(v.len())?;
    out.resize(v.len(), T::default());
    let (body, rest) = out.split_at_mut(full);
    if full >= PAR_MIN {
        body.par_chunks_mut(PAR_MIN / 4)
            .zip(v[..full].par_chunks(PAR_MIN / 4))
            .for_each(|(o, x)| fill_fast(o, x, &f));
    } else {
        fill_fast(body, &v[..full], &f);
    }
    fill(rest, &v[full..], &tail);
    Ok(out)
}

/// TensorFlow's float32 kernel of `op` over `v` (`scalar`: every element
/// through the scalar path), or None for an op computed as IEEE arithmetic.
pub fn unary(op: UnaryOp, v: &[f32], scalar: bool) -> Option<Result<Vec<f32>>> {
    macro_rules! run {
        ($p:expr, $s:expr) => {
            if scalar {
                packets(v, $s, $s)
            } else {
                packets(v, $p, $s)
            }
        };
    }
    Some(match op {
        UnaryOp::Exp => run!(pexp, expf),
        UnaryOp::Log => run!(plog, logf),
        UnaryOp::Sigmoid => run!(logistic, logistic_scalar),
        UnaryOp::Tanh => run!(tanh, tanh),
        UnaryOp::Erf => run!(erf, erf),
        UnaryOp::Erfc => run!(erfc, erfc_scalar),
        UnaryOp::Log1p => run!(log1p, log1pf),
        UnaryOp::Expm1 => run!(expm1, expm1f),
        UnaryOp::Reciprocal => run!(preciprocal, |x| ftz(ftz(1.0 / ftz(x)))),
        UnaryOp::Rsqrt => run!(prsqrt, |x| ftz(1.0 / ftz(x).sqrt())),
        // exact, but on flushed operands and results
        UnaryOp::Sqrt => run!(|x| ftz(x).sqrt(), |x| ftz(x).sqrt()),
        UnaryOp::Square => run!(|x| ftz(ftz(x) * ftz(x)), |x| ftz(ftz(x) * ftz(x))),
        _ => return None,
    })
}

/// TensorFlow's float64 kernel of `op` over `v` (`scalar`: every element
/// through the scalar path), or None where dist's float64 math is used.
pub fn unary_f64(op: UnaryOp, v: &[f64], scalar: bool) -> Option<Result<Vec<f64>>> {
    use eigen_math64::{exp, log, pexp, plog, PACKET as P64};
    Some(match (op, scalar) {
        (UnaryOp::Exp, false) => packets_of::<f64, P64, _, _>(v, pexp, exp),
        (UnaryOp::Exp, true) => packets_of::<f64, P64, _, _>(v, exp, exp),
        (UnaryOp::Log, false) => packets_of::<f64, P64, _, _>(v, plog, log),
        (UnaryOp::Log, true) => packets_of::<f64, P64, _, _>(v, log, log),
        _ => return None,
    })
}

/// TensorFlow's float32 `Softplus` kernel over `v`.
pub fn softplus(v: &[f32]) -> Result<Vec<f32>> {
    let t = softplus_threshold();
    packets(
        v,
        |x| softplus_with(x, t, pexp, log1p),
        |x| softplus_with(x, t, expf, log1pf),
    )
}

/// TensorFlow's float32 `SigmoidGrad` of output `y` and gradient `g`:
/// `g · (y · (1 - y))` on packets, `(g · y) · (1 - y)` on the tail.
pub fn sigmoid_grad(y: &[f32], g: &[f32]) -> Result<Vec<f32>> {
    let n = y.len().min(g.len());
    let full = n / PACKET * PACKET;
    let mut out = try_vec(n)?;
    for i in 0..n {
        let (y, g) = (ftz(y[i]), ftz(g[i]));
        out.push(if i < full {
            ftz(g * ftz(y * ftz(1.0 - y)))
        } else {
            ftz(ftz(g * y) * ftz(1.0 - y))
        });
    }
    Ok(out)
}

/// TensorFlow's float32 `Softmax` over rows of `k` values (oneDNN's kernel,
/// [`super::onednn`]).
pub fn softmax_rows(x: &[f32], k: usize) -> Result<Vec<f32>> {
    let mut out = try_vec(x.len())?;
    out.resize(x.len(), 0.0);
    if k == 0 {
        return Ok(out);
    }
    if x.len() >= PAR_MIN {
        let rows = (PAR_MIN / 4).div_ceil(k);
        x.par_chunks(rows * k)
            .zip(out.par_chunks_mut(rows * k))
            .for_each(|(r, o)| softmax_fast(r, o, k));
    } else {
        softmax_fast(x, &mut out, k);
    }
    Ok(out)
}

/// oneDNN's softmax of each row of `k` values of `x` into `out`.
#[inline(always)]
fn softmax_plain(x: &[f32], out: &mut [f32], k: usize) {
    for (r, o) in x.chunks(k).zip(out.chunks_mut(k)) {
        super::onednn::softmax_row(r, o);
    }
}

/// [`softmax_plain`] compiled for AVX2 with FMA (oneDNN's exp is FMAs).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn softmax_avx2(x: &[f32], out: &mut [f32], k: usize) {
    softmax_plain(x, out, k)
}

/// [`softmax_plain`] with the widest instructions this CPU has.
fn softmax_fast(x: &[f32], out: &mut [f32], k: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features `softmax_avx2` is compiled for.
        return unsafe { softmax_avx2(x, out, k) };
    }
    softmax_plain(x, out, k)
}

/// TensorFlow's float64 `LogSoftmax` over rows of `k` values: as
/// [`log_softmax_rows`], with Eigen's 4-double packets.
pub fn log_softmax_rows_f64(x: &[f64], k: usize) -> Result<Vec<f64>> {
    use eigen_math64::{exp, ftz, log, pexp, plog, PACKET as P64};
    let mut shifted = try_vec(x.len())?;
    if k == 0 {
        return Ok(shifted);
    }
    for row in x.chunks(k) {
        let max = row
            .iter()
            .fold(f64::NEG_INFINITY, |m, &v| if v > m { v } else { m });
        shifted.extend(row.iter().map(|&v| ftz(ftz(v) - max)));
    }
    let rows = x.len() / k;
    let sums: Vec<f64> = (0..rows)
        .map(|r| super::eigen_reduce::sum_mapped_f64(&shifted, r * k, k, &pexp, &exp))
        .collect();
    let logs = packets_of::<f64, P64, _, _>(&sums, plog, log)?;
    let mut out = shifted;
    for (row, l) in out.chunks_mut(k).zip(logs) {
        for v in row {
            *v = ftz(*v - l);
        }
    }
    Ok(out)
}

/// TensorFlow's float32 `LogSoftmax` over rows of `k` values (Eigen's
/// `SoftmaxEigenImpl`): `x - max` per row; each row's sum of `exp` by the
/// inner-most reducer, packet `exp` on the values it reads in packets and
/// `expf` on the rest; `log` of the sums as one vector (packets of rows,
/// `logf` on the last rows); the difference.
pub fn log_softmax_rows(x: &[f32], k: usize) -> Result<Vec<f32>> {
    let mut shifted = try_vec(x.len())?;
    if k == 0 {
        return Ok(shifted);
    }
    for row in x.chunks(k) {
        // any NaN (or inf - inf) makes the whole row NaN, whichever max
        let max = row
            .iter()
            .fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m });
        shifted.extend(row.iter().map(|&v| ftz(ftz(v) - max)));
    }
    let rows = x.len() / k;
    let sum = |r: usize| super::eigen_reduce::sum_mapped_f32(&shifted, r * k, k, &pexp, &expf);
    let sums: Vec<f32> = if x.len() >= PAR_MIN {
        (0..rows).into_par_iter().map(sum).collect()
    } else {
        (0..rows).map(sum).collect()
    };
    let logs = packets(&sums, plog, logf)?;
    let mut out = shifted;
    for (row, l) in out.chunks_mut(k).zip(logs) {
        for v in row {
            *v = ftz(*v - l);
        }
    }
    Ok(out)
}
