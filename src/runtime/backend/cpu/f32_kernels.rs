//! TensorFlow's float32 CPU kernels whose rounding dist reproduces bit for
//! bit: element-wise functions split as Eigen's executor splits a buffer
//! (lanes in [`super::eigen_math`]), and the fused kernels built on them.

use rayon::prelude::*;

use super::eigen_math::*;
use super::zip::PAR_MIN;
use crate::runtime::error::Result;
use crate::runtime::op::UnaryOp;
use crate::runtime::storage::try_vec;

/// `f` over `v`, but elements past the last whole packet through `tail`
/// (Eigen's executor: packets from the start, scalars at the end); large
/// buffers are split across threads at packet boundaries.
pub fn packets<P, S>(v: &[f32], f: P, tail: S) -> Result<Vec<f32>>
where
    P: Fn(f32) -> f32 + Sync + Send,
    S: Fn(f32) -> f32,
{
    let full = v.len() / PACKET * PACKET;
    let mut out = try_vec(v.len())?;
    let body = &v[..full];
    if full >= PAR_MIN {
        out.par_extend(body.par_iter().with_min_len(8 * 1024).map(|&x| f(x)));
    } else {
        out.extend(body.iter().map(|&x| f(x)));
    }
    out.extend(v[full..].iter().map(|&x| tail(x)));
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
        // the C library's logf: exact for denormals, as TensorFlow's tail
        UnaryOp::Log => run!(plog, f32::ln),
        UnaryOp::Sigmoid => run!(logistic, logistic_scalar),
        UnaryOp::Tanh => run!(tanh, tanh),
        UnaryOp::Erf => run!(erf, erf),
        UnaryOp::Erfc => run!(erfc, erfc_scalar),
        UnaryOp::Log1p => run!(log1p, log1pf),
        UnaryOp::Expm1 => run!(expm1, expm1f),
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
    let rows = x.par_chunks(k).zip(out.par_chunks_mut(k));
    if x.len() >= PAR_MIN {
        rows.for_each(|(r, o)| super::onednn::softmax_row(r, o));
    } else {
        x.chunks(k)
            .zip(out.chunks_mut(k))
            .for_each(|(r, o)| super::onednn::softmax_row(r, o));
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
    let logs = packets(&sums, plog, f32::ln)?;
    let mut out = shifted;
    for (row, l) in out.chunks_mut(k).zip(logs) {
        for v in row {
            *v = ftz(*v - l);
        }
    }
    Ok(out)
}
