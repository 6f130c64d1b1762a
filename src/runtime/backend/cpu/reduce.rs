//! CPU reductions. Reduced axes are moved last (a copy, unless they already
//! are), then each output element reduces one contiguous run. Float sums use
//! numpy's pairwise summation (blocks of 8 partial sums, halving above 128
//! elements); big runs split at the same halving points across threads, so
//! results do not depend on the thread count.

use std::borrow::Cow;

use rayon::prelude::*;

use super::num::Num;
use super::zip::PAR_MIN;
use crate::runtime::error::{Error, Result};
use crate::runtime::f16::F16;
use crate::runtime::op::{ArgOp, ReduceOp};
use crate::runtime::storage::{try_vec, HostData};

/// Permutes `x` so the masked axes come last (borrowing when they already
/// are); returns (buffer, outer, inner).
pub(super) fn move_reduced_last<'a, T: Copy + Send + 'static>(
    x: &'a [T],
    dims: &[usize],
    mask: &[bool],
) -> Result<(Cow<'a, [T]>, usize, usize)> {
    let (outer, inner) = crate::runtime::backend::reduce_extents(dims, mask);
    let first = mask.iter().position(|&m| m).unwrap_or(mask.len());
    if mask[first..].iter().all(|&m| m) {
        return Ok((Cow::Borrowed(x), outer, inner));
    }
    let perm: Vec<usize> = (0..dims.len())
        .filter(|&i| !mask[i])
        .chain((0..dims.len()).filter(|&i| mask[i]))
        .collect();
    let idx = super::permute_indices(dims, &perm)?;
    let mut out = try_vec(x.len())?;
    out.extend(idx.iter().map(|&i| x[i]));
    Ok((Cow::Owned(out), outer, inner))
}

/// When the reduced axes are exactly the leading ones: (rows, row length).
fn leading_split(dims: &[usize], mask: &[bool]) -> Option<(usize, usize)> {
    let k = mask.iter().position(|&m| !m)?;
    if k == 0 || mask[k..].iter().any(|&m| m) {
        return None;
    }
    let rows: usize = dims[..k].iter().product();
    let inner: usize = dims[k..].iter().product();
    (rows > 0 && inner > 0).then_some((rows, inner))
}

/// Folds rows of `inner` elements into one row with `f`, in row order (as
/// numpy does for a reduction over leading axes); columns split across
/// threads when large.
fn accumulate_rows<T: Num>(
    v: &[T],
    rows: usize,
    inner: usize,
    f: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>> {
    let mut acc = try_vec(inner)?;
    acc.extend_from_slice(&v[..inner]);
    let fold = |c0: usize, chunk: &mut [T]| {
        for r in 1..rows {
            let row = &v[r * inner + c0..r * inner + c0 + chunk.len()];
            for (a, &x) in chunk.iter_mut().zip(row) {
                *a = f(*a, x);
            }
        }
    };
    if v.len() >= PAR_MIN && inner >= 64 {
        let c = inner.div_ceil(rayon::current_num_threads() * 4).max(64);
        acc.par_chunks_mut(c)
            .enumerate()
            .for_each(|(i, chunk)| fold(i * c, chunk));
    } else {
        fold(0, &mut acc);
    }
    Ok(acc)
}

/// numpy's pairwise summation of a contiguous run.
pub fn pairwise<T: Num>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        let mut r = T::zero();
        for &x in a {
            r = r.add(x);
        }
        r
    } else if n <= 128 {
        let (blocks, rest) = a.as_chunks::<8>();
        let whole = n - rest.len();
        let mut r = blocks[0];
        let blocks = &blocks[1..];
        // Eight independent lanes, added in numpy's order; fixed-size blocks
        // without bounds checks let LLVM keep them in vector registers.
        for block in blocks {
            for j in 0..8 {
                r[j] = r[j].add(block[j]);
            }
        }
        let mut res = (r[0].add(r[1]).add(r[2].add(r[3]))).add(r[4].add(r[5]).add(r[6].add(r[7])));
        for &x in &a[whole..] {
            res = res.add(x);
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        if n >= PAR_MIN {
            let (l, r) = rayon::join(|| pairwise(&a[..n2]), || pairwise(&a[n2..]));
            l.add(r)
        } else {
            pairwise(&a[..n2]).add(pairwise(&a[n2..]))
        }
    }
}

fn reduce_runs<T: Copy + Send + Sync, O: Send + 'static>(
    buf: &[T],
    outer: usize,
    inner: usize,
    f: impl Fn(&[T]) -> O + Sync + Send,
) -> Result<Vec<O>> {
    let mut out = try_vec(outer)?;
    if inner == 0 {
        out.extend((0..outer).map(|_| f(&[])));
    } else if outer > 1 && buf.len() >= PAR_MIN {
        out.par_extend(buf.par_chunks(inner).map(&f));
    } else {
        out.extend(buf.chunks(inner).map(&f));
    }
    Ok(out)
}

/// Reduction on a host buffer.
pub fn reduce(op: ReduceOp, x: &HostData, dims: &[usize], mask: &[bool]) -> Result<HostData> {
    match x {
        HostData::Bool(v) => {
            let (buf, outer, inner) = move_reduced_last(v, dims, mask)?;
            let r = match op {
                ReduceOp::Any | ReduceOp::Max | ReduceOp::Sum => {
                    reduce_runs(&buf, outer, inner, |s| s.iter().any(|&b| b))?
                }
                ReduceOp::All | ReduceOp::Min | ReduceOp::Prod => {
                    reduce_runs(&buf, outer, inner, |s| s.iter().all(|&b| b))?
                }
                ReduceOp::Mean => {
                    return Err(Error::invalid_argument(
                        "Mean is not supported for dtype bool",
                    ))
                }
            };
            Ok(HostData::Bool(r))
        }
        HostData::I8(v) => typed(op, v, dims, mask),
        HostData::U8(v) => typed(op, v, dims, mask),
        HostData::I16(v) => typed(op, v, dims, mask),
        HostData::I32(v) => typed(op, v, dims, mask),
        HostData::I64(v) => typed(op, v, dims, mask),
        HostData::F16(v) => {
            // numpy and Eigen accumulate half in f32
            let w: Vec<f32> = v.iter().map(|h| h.to_f32()).collect();
            match typed(op, &w, dims, mask)? {
                HostData::F32(r) => Ok(HostData::F16(r.into_iter().map(F16::from_f32).collect())),
                _ => Err(Error::internal("half reduce")),
            }
        }
        HostData::F32(v) => typed(op, v, dims, mask),
        HostData::F64(v) => typed(op, v, dims, mask),
        HostData::C64(v) => super::complex::reduce(op, v, dims, mask),
        HostData::C128(v) => super::complex::reduce(op, v, dims, mask),
        HostData::Str(_) => Err(Error::invalid_argument(format!(
            "{} is not supported for dtype string",
            op.name()
        ))),
    }
}

fn typed<T: Num>(op: ReduceOp, v: &[T], dims: &[usize], mask: &[bool]) -> Result<HostData> {
    if let Some((rows, inner)) = leading_split(dims, mask) {
        let r = match op {
            ReduceOp::Sum => Some(accumulate_rows(v, rows, inner, |a, b| a.add(b))?),
            ReduceOp::Mean => {
                let n = T::from_f64(rows as f64);
                let s = accumulate_rows(v, rows, inner, |a, b| a.add(b))?;
                Some(s.into_iter().map(|x| x.div(n)).collect())
            }
            ReduceOp::Prod => Some(accumulate_rows(v, rows, inner, |a, b| a.mul(b))?),
            ReduceOp::Max => Some(accumulate_rows(v, rows, inner, |a, b| a.maximum(b))?),
            ReduceOp::Min => Some(accumulate_rows(v, rows, inner, |a, b| a.minimum(b))?),
            ReduceOp::Any | ReduceOp::All => None,
        };
        if let Some(r) = r {
            return Ok(T::wrap(r));
        }
    }
    let (buf, outer, inner) = move_reduced_last(v, dims, mask)?;
    let block = inner_block(dims, mask);
    let sum = |s: &[T]| -> T {
        if T::IS_INT {
            s.iter().fold(T::zero(), |a, &b| a.add(b))
        } else if block >= s.len() {
            sum_float(s)
        } else {
            s.chunks(block.max(1))
                .fold(T::zero(), |a, chunk| a.add(sum_float(chunk)))
        }
    };
    let r: Vec<T> = match op {
        ReduceOp::Sum => reduce_runs(&buf, outer, inner, sum)?,
        ReduceOp::Mean => reduce_runs(&buf, outer, inner, |s| {
            let n = T::from_f64(s.len() as f64);
            if T::IS_INT && s.is_empty() {
                T::zero()
            } else {
                sum(s).div(n)
            }
        })?,
        ReduceOp::Prod => reduce_runs(&buf, outer, inner, |s| {
            s.iter().fold(T::one(), |a, &b| a.mul(b))
        })?,
        ReduceOp::Max => reduce_runs(&buf, outer, inner, |s| {
            s.iter().fold(lowest::<T>(), |a, &b| a.maximum(b))
        })?,
        ReduceOp::Min => reduce_runs(&buf, outer, inner, |s| {
            s.iter().fold(highest::<T>(), |a, &b| a.minimum(b))
        })?,
        ReduceOp::Any => {
            return Ok(HostData::Bool(reduce_runs(&buf, outer, inner, |s| {
                s.iter().any(|x| !x.is_zero())
            })?))
        }
        ReduceOp::All => {
            return Ok(HostData::Bool(reduce_runs(&buf, outer, inner, |s| {
                s.iter().all(|x| !x.is_zero())
            })?))
        }
    };
    Ok(T::wrap(r))
}

/// The length of numpy's inner reduction loop: the reduced axes at the end
/// of the shape (axes of length 1 coalesce with any), which its iterator
/// joins into one run summed pairwise; the runs of one output are then
/// added in order (a kept last axis makes every run one element long).
fn inner_block(dims: &[usize], mask: &[bool]) -> usize {
    let mut block = 1;
    for (&d, &m) in dims.iter().zip(mask).rev() {
        if d == 1 {
            continue;
        }
        if !m {
            break;
        }
        block *= d;
    }
    block
}

fn sum_float<T: Num>(s: &[T]) -> T {
    pairwise(s)
}

fn lowest<T: Num>() -> T {
    if T::IS_INT {
        T::from_f64(T::DTYPE.int_min().unwrap_or(0) as f64)
    } else {
        T::from_f64(f64::NEG_INFINITY)
    }
}

fn highest<T: Num>() -> T {
    if T::IS_INT {
        match T::DTYPE.int_max() {
            Some(m) if m == i64::MAX => T::from_f64(9.223_372_036_854_776e18),
            Some(m) => T::from_f64(m as f64),
            None => T::zero(),
        }
    } else {
        T::from_f64(f64::INFINITY)
    }
}

/// argmax/argmin along `axis` (first occurrence; NaN wins, as numpy does).
pub fn arg_reduce(op: ArgOp, x: &HostData, dims: &[usize], axis: usize) -> Result<HostData> {
    let mask: Vec<bool> = (0..dims.len()).map(|i| i == axis).collect();
    macro_rules! go {
        ($v:expr) => {{
            let (buf, outer, inner) = move_reduced_last($v, dims, &mask)?;
            let r = reduce_runs(&buf, outer, inner, |s| {
                let mut best = 0usize;
                for i in 1..s.len() {
                    let (a, b) = (s[i], s[best]);
                    if b.is_nan() {
                        break;
                    }
                    let better = a.is_nan()
                        || match op {
                            ArgOp::ArgMax => a > b,
                            ArgOp::ArgMin => a < b,
                        };
                    if better {
                        best = i;
                    }
                }
                best as i64
            })?;
            Ok(HostData::I64(r))
        }};
    }
    match x {
        HostData::Bool(v) => {
            let w: Vec<u8> = v.iter().map(|&b| b as u8).collect();
            go!(&w)
        }
        HostData::I8(v) => go!(v),
        HostData::U8(v) => go!(v),
        HostData::I16(v) => go!(v),
        HostData::I32(v) => go!(v),
        HostData::I64(v) => go!(v),
        HostData::F16(v) => go!(v),
        HostData::F32(v) => go!(v),
        HostData::F64(v) => go!(v),
        HostData::Str(_) | HostData::C64(_) | HostData::C128(_) => {
            Err(Error::invalid_argument(format!(
                "{} is not supported for dtype {}",
                op.name(),
                x.dtype().name()
            )))
        }
    }
}
