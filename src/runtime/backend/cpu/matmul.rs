//! CPU matrix products. float32/float64 go through `matrixmultiply`'s
//! blocked, vectorised GEMM (via ndarray), split over row blocks across
//! threads when large; other dtypes use a cache-friendly i-k-j loop.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};
use rayon::prelude::*;

use super::num::Num;
use crate::runtime::backend::MatMulDims;
use crate::runtime::error::{Error, Result};
use crate::runtime::f16::F16;
use crate::runtime::storage::{filled, HostData};

/// Work (m·k·n) from which one product is split across threads.
const PAR_WORK: usize = 1 << 20;

/// Batched matrix product on host buffers of one dtype.
pub fn matmul(a: &HostData, b: &HostData, d: MatMulDims) -> Result<HostData> {
    match (a, b) {
        (HostData::F32(x), HostData::F32(y)) => Ok(HostData::F32(gemm(x, y, d)?)),
        (HostData::F64(x), HostData::F64(y)) => Ok(HostData::F64(gemm(x, y, d)?)),
        (HostData::F16(x), HostData::F16(y)) => {
            let xf: Vec<f32> = x.iter().map(|h| h.to_f32()).collect();
            let yf: Vec<f32> = y.iter().map(|h| h.to_f32()).collect();
            Ok(HostData::F16(
                gemm(&xf, &yf, d)?.into_iter().map(F16::from_f32).collect(),
            ))
        }
        (HostData::I8(x), HostData::I8(y)) => Ok(HostData::I8(naive(x, y, d)?)),
        (HostData::U8(x), HostData::U8(y)) => Ok(HostData::U8(naive(x, y, d)?)),
        (HostData::I16(x), HostData::I16(y)) => Ok(HostData::I16(naive(x, y, d)?)),
        (HostData::I32(x), HostData::I32(y)) => Ok(HostData::I32(naive(x, y, d)?)),
        (HostData::I64(x), HostData::I64(y)) => Ok(HostData::I64(naive(x, y, d)?)),
        (x, _) => Err(Error::invalid_argument(format!(
            "MatMul is not supported for dtype {}",
            x.dtype().name()
        ))),
    }
}

trait Gemm: Num + ndarray::LinalgScalar {}
impl Gemm for f32 {}
impl Gemm for f64 {}

fn gemm<T: Gemm>(a: &[T], b: &[T], d: MatMulDims) -> Result<Vec<T>> {
    let MatMulDims { batch, m, k, n, .. } = d;
    let mut out = filled(batch * m * n, <T as Num>::zero())?;
    if m * n == 0 {
        return Ok(out);
    }
    let work = m * k * n;
    for (bi, c) in out.chunks_mut(m * n).enumerate() {
        let ao = bi * d.lhs_batch_stride;
        let bo = bi * d.rhs_batch_stride;
        let bm = ArrayView2::from_shape((k, n), &b[bo..bo + k * n]).map_err(shape_err)?;
        let rows = if work >= PAR_WORK {
            m.div_ceil(rayon::current_num_threads()).max(16)
        } else {
            m
        };
        c.par_chunks_mut(rows * n)
            .enumerate()
            .try_for_each(|(ri, cb)| -> Result<()> {
                let r = cb.len() / n;
                let start = ao + ri * rows * k;
                let am =
                    ArrayView2::from_shape((r, k), &a[start..start + r * k]).map_err(shape_err)?;
                let mut cm = ArrayViewMut2::from_shape((r, n), cb).map_err(shape_err)?;
                general_mat_mul(<T as Num>::one(), &am, &bm, <T as Num>::zero(), &mut cm);
                Ok(())
            })?;
    }
    Ok(out)
}

fn shape_err(e: ndarray::ShapeError) -> Error {
    Error::internal(format!("matmul view: {e}"))
}

fn naive<T: Num>(a: &[T], b: &[T], d: MatMulDims) -> Result<Vec<T>> {
    let MatMulDims { batch, m, k, n, .. } = d;
    let mut out = filled(batch * m * n, T::zero())?;
    if m * n == 0 {
        return Ok(out);
    }
    for (bi, c) in out.chunks_mut(m * n).enumerate() {
        let ao = bi * d.lhs_batch_stride;
        let bo = bi * d.rhs_batch_stride;
        for (i, row) in c.chunks_mut(n).enumerate() {
            for p in 0..k {
                let x = a[ao + i * k + p];
                let brow = &b[bo + p * n..bo + p * n + n];
                for (o, &y) in row.iter_mut().zip(brow) {
                    *o = o.add(x.mul(y));
                }
            }
        }
    }
    Ok(out)
}
