//! CPU matrix products, in TensorFlow's summation order so that float
//! results are TensorFlow's bit for bit (measured against the oracle):
//! float32 as oneDNN's sgemm sums each output, a chain of fused
//! multiply-adds over k from zero, k split into one block up to 384, two
//! near-equal blocks up to 768 (their chains added), blocks of 384 beyond
//! (exact for multiples of 384; other k past 768 differ in the last bit,
//! `tests/golden/known_gaps`); float64 as Eigen's, products added one by one
//! in k order without fusing. Float32 runs register tiles (`tile`: AVX-512
//! or AVX2 + FMA, chosen at run time) over packed panels of the right
//! operand, reading either operand transposed in place; every output is
//! still its own FMA chain in k order, so the tiling changes the speed and
//! never a bit. Other dtypes and CPUs without FMA use an i-k-j row loop.
//! Row blocks are split across threads when the product is large.

use rayon::prelude::*;

use super::num::Num;
use crate::runtime::backend::MatMulDims;
use crate::runtime::error::{Error, Result};
use crate::runtime::f16::F16;
use crate::runtime::storage::{filled, HostData};

/// Work (m·k·n) from which one product is split across threads.
const PAR_WORK: usize = 1 << 22;

/// Batched matrix product on host buffers of one dtype (either operand
/// possibly stored transposed: `d.transpose_a` / `d.transpose_b`).
pub fn matmul(a: &HostData, b: &HostData, d: MatMulDims) -> Result<HostData> {
    #[cfg(target_arch = "x86_64")]
    if let (HostData::F32(x), HostData::F32(y)) = (a, b) {
        if let Some(out) = tile::gemm(x, y, d)? {
            return Ok(HostData::F32(out));
        }
    }
    // the row loop reads both operands untransposed
    let count = |stride: usize| if stride == 0 { 1 } else { d.batch };
    let a_own;
    let a = if d.transpose_a {
        a_own = a.transpose_last2(count(d.lhs_batch_stride), d.k, d.m)?;
        &a_own
    } else {
        a
    };
    let b_own;
    let b = if d.transpose_b {
        b_own = b.transpose_last2(count(d.rhs_batch_stride), d.n, d.k)?;
        &b_own
    } else {
        b
    };
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
        (HostData::C64(x), HostData::C64(y)) => super::complex::matmul(x, y, d),
        (HostData::C128(x), HostData::C128(y)) => super::complex::matmul(x, y, d),
        (x, _) => Err(Error::invalid_argument(format!(
            "MatMul is not supported for dtype {}",
            x.dtype().name()
        ))),
    }
}

/// Rows of each thread's share of a product of `m` rows and `work`
/// multiply-adds (all of them below `PAR_WORK`).
fn rows_per_task(m: usize, work: usize) -> usize {
    if work >= PAR_WORK {
        m.div_ceil(rayon::current_num_threads())
            .max(16)
            .next_multiple_of(8)
    } else {
        m.max(1)
    }
}

/// A float type with TensorFlow's accumulation rule for one output row.
trait Gemm: Num + Send + Sync {
    /// `row += x * brow` as TensorFlow's kernel accumulates it.
    fn accumulate(row: &mut [Self], x: Self, brow: &[Self]);
    /// The blocks k is summed in (their sums added in order).
    fn k_blocks(k: usize) -> Vec<std::ops::Range<usize>>;

    /// `c = a · b` for `rows` rows of `a` (row-major, `k` wide) and `b`
    /// (`k` × `n`), each output summed block by block in `blocks`.
    fn product(a: &[Self], b: &[Self], c: &mut [Self], k: usize, n: usize, blocks: &[Block]) {
        rows_product(a, b, c, k, n, blocks)
    }
}

type Block = std::ops::Range<usize>;

/// The row loop: each output row accumulated as an i-k-j loop (a product
/// added per element, in k order), the first block into the row, the
/// others each from zero and then added to it.
fn rows_product<T: Gemm>(a: &[T], b: &[T], c: &mut [T], k: usize, n: usize, blocks: &[Block]) {
    let mut part = vec![T::zero(); if blocks.len() > 1 { n } else { 0 }];
    for (r, row) in c.chunks_mut(n).enumerate() {
        let arow = &a[r * k..][..k];
        for (bn, block) in blocks.iter().enumerate() {
            let acc: &mut [T] = if bn == 0 {
                &mut *row
            } else {
                part.iter_mut().for_each(|v| *v = T::zero());
                &mut part
            };
            for p in block.clone() {
                T::accumulate(acc, arow[p], &b[p * n..][..n]);
            }
            if bn > 0 {
                for (o, &v) in row.iter_mut().zip(part.iter()) {
                    *o = o.add(v);
                }
            }
        }
    }
}

impl Gemm for f32 {
    fn accumulate(row: &mut [f32], x: f32, brow: &[f32]) {
        fma_row(row, x, brow)
    }

    fn k_blocks(k: usize) -> Vec<std::ops::Range<usize>> {
        const BLOCK: usize = 384;
        if k <= BLOCK {
            // one block: the whole contracted dimension
            return std::iter::once(0..k).collect();
        }
        if k <= 2 * BLOCK {
            let first = k.div_ceil(2);
            return vec![0..first, first..k];
        }
        (0..k)
            .step_by(BLOCK)
            .map(|lo| lo..(lo + BLOCK).min(k))
            .collect()
    }

    fn product(a: &[f32], b: &[f32], c: &mut [f32], k: usize, n: usize, blocks: &[Block]) {
        tiles(a, b, c, k, n, blocks)
    }
}

/// Rows of the product in tiles of `MR` rows × `NR` columns (the portable
/// path, for CPUs without FMA instructions): each output is still one FMA
/// chain over k in order, so the result is the row loop's.
fn tiles(a: &[f32], b: &[f32], c: &mut [f32], k: usize, n: usize, blocks: &[Block]) {
    const MR: usize = 4;
    const NR: usize = 16;
    let rows = c.len() / n;
    let full_i = rows / MR * MR;
    let full_j = n / NR * NR;
    for (bn, block) in blocks.iter().enumerate() {
        // column panels outside, so a panel of `b` stays in cache while
        // every row tile runs over it
        for j0 in (0..full_j).step_by(NR) {
            for i0 in (0..full_i).step_by(MR) {
                let mut acc = [[0f32; NR]; MR];
                for p in block.clone() {
                    let brow = &b[p * n + j0..][..NR];
                    for (r, acc_r) in acc.iter_mut().enumerate() {
                        let x = a[(i0 + r) * k + p];
                        for (o, &y) in acc_r.iter_mut().zip(brow) {
                            *o = x.mul_add(y, *o);
                        }
                    }
                }
                for (r, acc_r) in acc.iter().enumerate() {
                    let crow = &mut c[(i0 + r) * n + j0..][..NR];
                    for (o, &v) in crow.iter_mut().zip(acc_r) {
                        *o = if bn == 0 { v } else { *o + v };
                    }
                }
            }
        }
        for r in 0..full_i {
            for j in full_j..n {
                let mut acc = 0f32;
                for p in block.clone() {
                    acc = a[r * k + p].mul_add(b[p * n + j], acc);
                }
                let o = &mut c[r * n + j];
                *o = if bn == 0 { acc } else { *o + acc };
            }
        }
    }
    if full_i < rows {
        rows_product(&a[full_i * k..], b, &mut c[full_i * n..], k, n, blocks);
    }
}

impl Gemm for f64 {
    fn accumulate(row: &mut [f64], x: f64, brow: &[f64]) {
        for (o, &y) in row.iter_mut().zip(brow) {
            *o += x * y;
        }
    }

    fn k_blocks(k: usize) -> Vec<std::ops::Range<usize>> {
        // one block: the whole contracted dimension
        std::iter::once(0..k).collect()
    }
}

/// `row[j] = fma(x, brow[j], row[j])`, with the CPU's FMA instructions
/// when it has them (the same rounding either way).
fn fma_row(row: &mut [f32], x: f32, brow: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has FMA (checked just above).
            unsafe { fma_row_x86(row, x, brow) };
            return;
        }
    }
    for (o, &y) in row.iter_mut().zip(brow) {
        *o = x.mul_add(y, *o);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
unsafe fn fma_row_x86(row: &mut [f32], x: f32, brow: &[f32]) {
    for (o, &y) in row.iter_mut().zip(brow) {
        *o = x.mul_add(y, *o);
    }
}

fn gemm<T: Gemm>(a: &[T], b: &[T], d: MatMulDims) -> Result<Vec<T>> {
    let MatMulDims { batch, m, k, n, .. } = d;
    let mut out = filled(batch * m * n, <T as Num>::zero())?;
    if m * n == 0 {
        return Ok(out);
    }
    let blocks = T::k_blocks(k);
    let rows = rows_per_task(m, m * k * n);
    for (bi, c) in out.chunks_mut(m * n).enumerate() {
        let ao = bi * d.lhs_batch_stride;
        let bo = bi * d.rhs_batch_stride;
        c.par_chunks_mut(rows * n).enumerate().for_each(|(ri, cb)| {
            let r = cb.len() / n;
            let start = ao + ri * rows * k;
            T::product(
                &a[start..start + r * k],
                &b[bo..bo + k * n],
                cb,
                k,
                n,
                &blocks,
            );
        });
    }
    Ok(out)
}

#[cfg(target_arch = "x86_64")]
mod tile;

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
