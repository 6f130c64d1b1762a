//! [`CudaBackend`]: the [`Backend`] of tensors in device memory. Element-wise,
//! cast, `where` and reductions run NVRTC kernels (`backend/kernels/`),
//! matmul of float32/float64 runs cuBLAS, gather/concat/slices are device
//! copies. An op with no device kernel (integer division, arg-reductions,
//! matmul of other dtypes, element assignment) runs the CPU kernel on host
//! copies and uploads the result: explicit, counted
//! ([`super::fallback_count`]), and exactly the CPU's answer and errors.

use std::borrow::Cow;
use std::sync::Arc;

use cudarc::cublas::{Gemm, GemmConfig, StridedBatchedConfig};
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::{count_fallback, driver_err, upload, Card, CudaStorage};
use crate::runtime::backend::cpu::CPU;
use crate::runtime::backend::kernels::{self, KernelSource, BLOCK};
use crate::runtime::backend::{Backend, MatMulDims};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{ArgOp, BinaryOp, ReduceOp, Semantics, UnaryOp};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{HostData, Storage};

/// The CUDA backend (a unit value; per-card state is in the card table).
#[derive(Debug, Clone, Copy, Default)]
pub struct CudaBackend;

/// The one CUDA backend instance.
pub static CUDA: CudaBackend = CudaBackend;

/// The card of the first operand in device memory.
fn card_of_inputs(xs: &[&Storage]) -> Result<Arc<Card>> {
    for x in xs {
        if let Storage::Cuda(c) = x {
            return Ok(c.card.clone());
        }
    }
    Err(Error::internal("cuda backend given only host buffers"))
}

/// `s` on `card`: borrowed when it is already there, else uploaded.
fn on_card<'a>(s: &'a Storage, card: &Arc<Card>) -> Result<Cow<'a, CudaStorage>> {
    match s {
        Storage::Cuda(c) if Arc::ptr_eq(&c.card, card) => Ok(Cow::Borrowed(c)),
        Storage::Cuda(c) => Ok(Cow::Owned(upload(&c.to_host()?, card)?)),
        Storage::Host(h) => Ok(Cow::Owned(upload(h, card)?)),
    }
}

/// A host result of a CPU kernel, uploaded to `card`.
fn back(card: &Arc<Card>, r: Storage) -> Result<Storage> {
    match r {
        Storage::Host(h) if h.dtype() != DType::String => Ok(Storage::Cuda(upload(&h, card)?)),
        other => Ok(other),
    }
}

/// A device buffer for `n` elements of `dtype`, for a kernel that writes
/// every element (not zeroed: a memset would cost as much as the kernel).
fn alloc(card: &Card, dtype: DType, n: usize) -> Result<CudaSlice<u8>> {
    // SAFETY: callers write all n elements before anything reads them
    unsafe { card.stream.alloc::<u8>((n * dtype.size()).max(1)) }
        .map_err(|e| driver_err("alloc", e))
}

/// A zeroed device buffer (for outputs a kernel may leave untouched).
fn alloc_zeroed(card: &Card, dtype: DType, n: usize) -> Result<CudaSlice<u8>> {
    card.stream
        .alloc_zeros::<u8>((n * dtype.size()).max(1))
        .map_err(|e| driver_err("alloc", e))
}

fn grid(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(BLOCK as usize).clamp(1, 1 << 20) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Row-major strides of `shape` seen through the broadcast to `out`
/// (0 along broadcast axes), left-padded to `out`'s rank.
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<u64> {
    let pad = out.len() - shape.len().min(out.len());
    let mut strides = vec![0u64; out.len()];
    let mut acc = 1u64;
    for d in (0..shape.len()).rev() {
        let o = d + pad;
        strides[o] = if shape[d] == 1 && out[o] != 1 { 0 } else { acc };
        acc *= shape[d] as u64;
    }
    strides
}

/// The `info` array of a strided kernel: `[rank, dims..., strides of each operand...]`.
fn info(card: &Card, out: &[usize], operands: &[Vec<u64>]) -> Result<CudaSlice<u64>> {
    let mut v = vec![out.len() as u64];
    v.extend(out.iter().map(|&d| d as u64));
    for s in operands {
        v.extend_from_slice(s);
    }
    card.stream
        .clone_htod(&v[..])
        .map_err(|e| driver_err("host-to-device copy", e))
}

impl CudaBackend {
    /// The kernel for `src` on `card`, or `None` (counted) when it cannot be
    /// built there, so the caller takes the host path instead.
    fn kernel(
        &self,
        card: &Card,
        src: Option<KernelSource>,
        what: &str,
    ) -> Option<cudarc::driver::CudaFunction> {
        let Some(src) = src else {
            count_fallback(what);
            return None;
        };
        match card.kernel(&src) {
            Ok(f) => Some(f),
            Err(e) => {
                count_fallback(&format!("{what} ({})", e.message()));
                None
            }
        }
    }

    fn strided_copy(
        &self,
        card: &Arc<Card>,
        x: &CudaStorage,
        out_dims: &[usize],
        strides: Vec<u64>,
        base: u64,
    ) -> Result<Option<CudaStorage>> {
        let n: usize = out_dims.iter().product();
        let Some(f) = self.kernel(card, kernels::strided_copy(x.dtype), "strided copy") else {
            return Ok(None);
        };
        let mut out = alloc(card, x.dtype, n)?;
        if n > 0 {
            let inf = info(card, out_dims, &[strides])?;
            let n64 = n as u64;
            let mut b = card.stream.launch_builder(&f);
            b.arg(&*x.buf).arg(&mut out).arg(&n64).arg(&inf).arg(&base);
            // SAFETY: the kernel reads `in` at offsets inside x (strides and dims
            // describe x's own layout) and writes n elements of `out`.
            unsafe { b.launch(grid(n)) }.map_err(|e| driver_err("launch", e))?;
        }
        Ok(Some(CudaStorage::new(x.dtype, n, card.clone(), out)))
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn unary(&self, op: UnaryOp, x: &Storage) -> Result<Storage> {
        let card = card_of_inputs(&[x])?;
        let xs = on_card(x, &card)?;
        let Some(f) = self.kernel(&card, kernels::unary(op, xs.dtype), op.name()) else {
            return back(&card, CPU.unary(op, x)?);
        };
        let n = xs.len;
        let mut out = alloc(&card, xs.dtype, n)?;
        if n > 0 {
            let n64 = n as u64;
            let mut b = card.stream.launch_builder(&f);
            b.arg(&*xs.buf).arg(&mut out).arg(&n64);
            // SAFETY: reads and writes n elements of buffers of n elements.
            unsafe { b.launch(grid(n)) }.map_err(|e| driver_err("launch", e))?;
        }
        Ok(Storage::Cuda(CudaStorage::new(xs.dtype, n, card, out)))
    }

    fn binary(
        &self,
        op: BinaryOp,
        sem: Semantics,
        a: (&Storage, &Shape),
        b: (&Storage, &Shape),
        out: &Shape,
    ) -> Result<Storage> {
        let card = card_of_inputs(&[a.0, b.0])?;
        let dtype = a.0.dtype();
        let Some(f) = self.kernel(&card, kernels::binary(op, dtype), op.name()) else {
            return back(&card, CPU.binary(op, sem, a, b, out)?);
        };
        let (xa, xb) = (on_card(a.0, &card)?, on_card(b.0, &card)?);
        let n = out.numel();
        let out_dtype = if op.is_comparison() {
            DType::Bool
        } else {
            dtype
        };
        let mut buf = alloc(&card, out_dtype, n)?;
        if n > 0 {
            let inf = info(
                &card,
                out.dims(),
                &[
                    broadcast_strides(a.1.dims(), out.dims()),
                    broadcast_strides(b.1.dims(), out.dims()),
                ],
            )?;
            let (af, bf) = ((xa.len == n) as i32, (xb.len == n) as i32);
            let n64 = n as u64;
            let mut l = card.stream.launch_builder(&f);
            l.arg(&*xa.buf)
                .arg(&*xb.buf)
                .arg(&mut buf)
                .arg(&n64)
                .arg(&inf)
                .arg(&af)
                .arg(&bf);
            // SAFETY: offsets come from each operand's own broadcast strides,
            // so reads stay inside it; writes cover n output elements.
            unsafe { l.launch(grid(n)) }.map_err(|e| driver_err("launch", e))?;
        }
        Ok(Storage::Cuda(CudaStorage::new(out_dtype, n, card, buf)))
    }

    fn select(
        &self,
        cond: (&Storage, &Shape),
        x: (&Storage, &Shape),
        y: (&Storage, &Shape),
        out: &Shape,
    ) -> Result<Storage> {
        let card = card_of_inputs(&[cond.0, x.0, y.0])?;
        let dtype = x.0.dtype();
        let Some(f) = self.kernel(&card, kernels::select(dtype), "SelectV2") else {
            return back(&card, CPU.select(cond, x, y, out)?);
        };
        let (c, xs, ys) = (
            on_card(cond.0, &card)?,
            on_card(x.0, &card)?,
            on_card(y.0, &card)?,
        );
        let n = out.numel();
        let mut buf = alloc(&card, dtype, n)?;
        if n > 0 {
            let inf = info(
                &card,
                out.dims(),
                &[
                    broadcast_strides(cond.1.dims(), out.dims()),
                    broadcast_strides(x.1.dims(), out.dims()),
                    broadcast_strides(y.1.dims(), out.dims()),
                ],
            )?;
            let n64 = n as u64;
            let mut l = card.stream.launch_builder(&f);
            l.arg(&*c.buf)
                .arg(&*xs.buf)
                .arg(&*ys.buf)
                .arg(&mut buf)
                .arg(&n64)
                .arg(&inf);
            // SAFETY: as for binary, with three operands.
            unsafe { l.launch(grid(n)) }.map_err(|e| driver_err("launch", e))?;
        }
        Ok(Storage::Cuda(CudaStorage::new(dtype, n, card, buf)))
    }

    fn cast(&self, x: &Storage, to: DType) -> Result<Storage> {
        let card = card_of_inputs(&[x])?;
        if x.dtype() == to {
            return Ok(x.clone());
        }
        let Some(f) = self.kernel(&card, kernels::cast(x.dtype(), to), "Cast") else {
            return back(&card, CPU.cast(x, to)?);
        };
        let xs = on_card(x, &card)?;
        let n = xs.len;
        let mut out = alloc(&card, to, n)?;
        if n > 0 {
            let n64 = n as u64;
            let mut l = card.stream.launch_builder(&f);
            l.arg(&*xs.buf).arg(&mut out).arg(&n64);
            // SAFETY: n elements in, n elements out.
            unsafe { l.launch(grid(n)) }.map_err(|e| driver_err("launch", e))?;
        }
        Ok(Storage::Cuda(CudaStorage::new(to, n, card, out)))
    }

    fn reduce(
        &self,
        op: ReduceOp,
        sem: Semantics,
        x: &Storage,
        shape: &Shape,
        mask: &[bool],
    ) -> Result<Storage> {
        let card = card_of_inputs(&[x])?;
        let dtype = x.dtype();
        // Any/All of numbers: "nonzero" is a cast to bool, then a bool reduction
        if matches!(op, ReduceOp::Any | ReduceOp::All) && dtype != DType::Bool {
            let b = self.cast(x, DType::Bool)?;
            return self.reduce(op, sem, &b, shape, mask);
        }
        let host = || back(&card, CPU.reduce(op, sem, x, shape, mask)?);
        // TensorFlow's float sums and products in its CPU kernels' order
        // (and its 64-bit integer means) are computed on the host up to a
        // million values, so a GPU gives the CPU's bits (the oracle's);
        // larger ones stay on the card, in numpy's pairwise order (as
        // TensorFlow's own GPU kernels, they then differ from the CPU's in
        // the last bits)
        let ordered =
            matches!(op, ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod) && dtype.is_floating();
        let int_mean = op == ReduceOp::Mean && dtype.is_integer();
        if sem == Semantics::Tf && (int_mean || (ordered && shape.numel() <= 1 << 20)) {
            return host();
        }
        let dims = shape.dims();
        let xs = on_card(x, &card)?;
        let (outer, inner) = crate::runtime::backend::reduce_extents(dims, mask);
        // reduced axes leading: fold the rows in order, as the CPU does there
        if let Some(k) = mask.iter().position(|&m| !m) {
            if k > 0
                && !mask[k..].iter().any(|&m| m)
                && outer > 0
                && inner > 0
                && dtype != DType::Bool
            {
                let Some(f) = self.kernel(&card, kernels::reduce_rows(op, dtype), op.name()) else {
                    return host();
                };
                let (rows, cols) = (inner, outer);
                let mut out = alloc(&card, dtype, cols)?;
                let (r64, c64) = (rows as u64, cols as u64);
                let mut l = card.stream.launch_builder(&f);
                l.arg(&*xs.buf).arg(&mut out).arg(&r64).arg(&c64);
                // SAFETY: thread j reads column j of a [rows, cols] buffer, writes out[j].
                unsafe { l.launch(grid(cols)) }.map_err(|e| driver_err("launch", e))?;
                return Ok(Storage::Cuda(CudaStorage::new(dtype, cols, card, out)));
            }
        }
        // otherwise reduced axes last: a strided copy unless they already are
        let first = mask.iter().position(|&m| m).unwrap_or(mask.len());
        let moved;
        let src: &CudaStorage = if mask[first..].iter().all(|&m| m) {
            &xs
        } else {
            let perm: Vec<usize> = (0..dims.len())
                .filter(|&i| !mask[i])
                .chain((0..dims.len()).filter(|&i| mask[i]))
                .collect();
            let row_major = broadcast_strides(dims, dims);
            let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
            let strides = perm.iter().map(|&p| row_major[p]).collect();
            match self.strided_copy(&card, &xs, &out_dims, strides, 0)? {
                Some(m) => {
                    moved = m;
                    &moved
                }
                None => return host(),
            }
        };
        let mut out = alloc(&card, dtype, outer)?;
        if outer == 0 {
            return Ok(Storage::Cuda(CudaStorage::new(dtype, 0, card, out)));
        }
        let (o64, i64_) = (outer as u64, inner as u64);
        let float = dtype.is_floating();
        if float && matches!(op, ReduceOp::Sum | ReduceOp::Mean) {
            // numpy's pairwise sum; the top `depth` levels of its tree in
            // parallel, chosen so every node above them holds over 1024
            // elements (never a leaf: the top is a perfect binary tree)
            let depth = if inner >= 2048 {
                (inner / 1024).ilog2().min(20) as i32
            } else {
                0
            };
            let base = kernels::reduce_pairwise(op, dtype);
            let named = |suffix: &str| {
                base.clone().map(|k| KernelSource {
                    name: format!("{}{suffix}", k.name),
                    source: k.source,
                })
            };
            let (Some(f), Some(pair), Some(g)) = (
                self.kernel(&card, named(""), op.name()),
                self.kernel(&card, named("_pair"), op.name()),
                self.kernel(&card, named("_final"), op.name()),
            ) else {
                return host();
            };
            let parts = outer << depth;
            // SAFETY (both allocations): every slot read below is written first
            let mut a =
                unsafe { card.stream.alloc::<u64>(parts) }.map_err(|e| driver_err("alloc", e))?;
            let mut b = unsafe { card.stream.alloc::<u64>((parts / 2).max(1)) }
                .map_err(|e| driver_err("alloc", e))?;
            let mut l = card.stream.launch_builder(&f);
            l.arg(&*src.buf)
                .arg(&mut a)
                .arg(&o64)
                .arg(&i64_)
                .arg(&depth);
            // SAFETY: thread (row, t) reads inside row `row` of outer * inner
            // elements and writes part[row << depth | t] (8-byte slots).
            unsafe { l.launch(grid(parts)) }.map_err(|e| driver_err("launch", e))?;
            for level in (0..depth).rev() {
                let m = (outer << level) as u64;
                let mut l = card.stream.launch_builder(&pair);
                l.arg(&a).arg(&mut b).arg(&m);
                // SAFETY: reads 2m parts of `a`, writes m of `b` (both large enough).
                unsafe { l.launch(grid(m as usize)) }.map_err(|e| driver_err("launch", e))?;
                std::mem::swap(&mut a, &mut b);
            }
            let mut l = card.stream.launch_builder(&g);
            l.arg(&a).arg(&mut out).arg(&o64).arg(&i64_);
            // SAFETY: thread `row` reads part[row] and writes out[row].
            unsafe { l.launch(grid(outer)) }.map_err(|e| driver_err("launch", e))?;
            return Ok(Storage::Cuda(CudaStorage::new(dtype, outer, card, out)));
        }
        if float && op == ReduceOp::Prod {
            let Some(f) = self.kernel(&card, kernels::reduce_serial(op, dtype), op.name()) else {
                return host();
            };
            let mut l = card.stream.launch_builder(&f);
            l.arg(&*src.buf).arg(&mut out).arg(&o64).arg(&i64_);
            // SAFETY: thread `row` reads its row and writes out[row].
            unsafe { l.launch(grid(outer)) }.map_err(|e| driver_err("launch", e))?;
            return Ok(Storage::Cuda(CudaStorage::new(dtype, outer, card, out)));
        }
        // order-free folds (integers, bools, float extremes): a block tree
        let tree = kernels::reduce(op, dtype);
        let final_k = tree.clone().map(|k| KernelSource {
            name: format!("{}_final", k.name),
            source: k.source,
        });
        let (Some(f), Some(g)) = (
            self.kernel(&card, tree, op.name()),
            self.kernel(&card, final_k, op.name()),
        ) else {
            return host();
        };
        // enough blocks per row to fill the card on one long row
        let chunks = inner.div_ceil(1 << 16).clamp(1, 4096);
        if outer.saturating_mul(chunks) > i32::MAX as usize {
            count_fallback("reduce: grid too large");
            return host();
        }
        let mut partial = card
            .stream
            .alloc_zeros::<u64>(outer * chunks)
            .map_err(|e| driver_err("alloc", e))?;
        let c64 = chunks as u64;
        let cfg = |blocks: usize| LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut l = card.stream.launch_builder(&f);
        l.arg(&*src.buf)
            .arg(&mut partial)
            .arg(&o64)
            .arg(&i64_)
            .arg(&c64);
        // SAFETY: block b reads row b / chunks of `inner` elements inside
        // `src` (outer * inner elements) and writes partial[b].
        unsafe { l.launch(cfg(outer * chunks)) }.map_err(|e| driver_err("launch", e))?;
        let mut l = card.stream.launch_builder(&g);
        l.arg(&partial).arg(&mut out).arg(&o64).arg(&c64).arg(&i64_);
        // SAFETY: block r reads partial[r * chunks ..][..chunks], writes out[r].
        unsafe { l.launch(cfg(outer)) }.map_err(|e| driver_err("launch", e))?;
        Ok(Storage::Cuda(CudaStorage::new(dtype, outer, card, out)))
    }

    fn arg_reduce(&self, op: ArgOp, x: &Storage, shape: &Shape, axis: usize) -> Result<Storage> {
        let card = card_of_inputs(&[x])?;
        count_fallback(op.name());
        back(&card, CPU.arg_reduce(op, x, shape, axis)?)
    }

    fn matmul(&self, a: &Storage, b: &Storage, d: MatMulDims) -> Result<Storage> {
        let card = card_of_inputs(&[a, b])?;
        let dtype = a.dtype();
        if !matches!(dtype, DType::Float32 | DType::Float64)
            || [d.m, d.n, d.k, d.batch]
                .iter()
                .any(|&v| v > i32::MAX as usize)
        {
            count_fallback("MatMul");
            return back(&card, CPU.matmul(a, b, d)?);
        }
        let blas = match card.blas() {
            Ok(blas) => blas,
            Err(e) => {
                count_fallback(&format!("MatMul ({})", e.message()));
                return back(&card, CPU.matmul(a, b, d)?);
            }
        };
        let (xa, xb) = (on_card(a, &card)?, on_card(b, &card)?);
        let n_out = d.batch * d.m * d.n;
        // zeroed: with k == 0 cuBLAS is not called and the product is zeros
        let mut out = alloc_zeroed(&card, dtype, n_out)?;
        if n_out > 0 && d.k > 0 {
            // row-major C = A B is column-major C^T = B^T A^T: swap the operands
            macro_rules! gemm {
                ($t:ty) => {{
                    let one: $t = 1.0;
                    let zero: $t = 0.0;
                    let cfg = StridedBatchedConfig {
                        gemm: GemmConfig {
                            transa: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
                            transb: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
                            m: d.n as i32,
                            n: d.m as i32,
                            k: d.k as i32,
                            alpha: one,
                            lda: d.n as i32,
                            ldb: d.k as i32,
                            beta: zero,
                            ldc: d.n as i32,
                        },
                        batch_size: d.batch as i32,
                        stride_a: d.rhs_batch_stride as i64,
                        stride_b: d.lhs_batch_stride as i64,
                        stride_c: (d.m * d.n) as i64,
                    };
                    // SAFETY: the byte buffers hold xa.len / xb.len / n_out
                    // elements of $t (their dtype), and every matrix the
                    // strides and leading dimensions address lies inside them.
                    unsafe {
                        let va = xa.buf.transmute::<$t>(xa.len);
                        let vb = xb.buf.transmute::<$t>(xb.len);
                        let vc = out.transmute_mut::<$t>(n_out);
                        match (va, vb, vc) {
                            (Some(va), Some(vb), Some(mut vc)) => blas
                                .gemm_strided_batched(cfg, &vb, &va, &mut vc)
                                .map_err(|e| driver_err("cuBLAS gemm", e))?,
                            _ => return Err(Error::internal("matmul: buffer sizes")),
                        }
                    }
                }};
            }
            if dtype == DType::Float32 {
                gemm!(f32)
            } else {
                gemm!(f64)
            }
        }
        Ok(Storage::Cuda(CudaStorage::new(dtype, n_out, card, out)))
    }

    fn take(&self, x: &Storage, idx: &[usize]) -> Result<Storage> {
        let card = card_of_inputs(&[x])?;
        let xs = on_card(x, &card)?;
        let n = idx.len();
        let size = xs.dtype.size();
        if idx.iter().any(|&i| i >= xs.len) {
            return Err(Error::internal("take: index out of range"));
        }
        let mut out = alloc(&card, xs.dtype, n)?;
        // a contiguous run (slices of leading axes, reshapes) is one device copy
        let run = idx.windows(2).all(|w| w[1] == w[0] + 1);
        if n > 0 && run {
            let lo = idx[0] * size;
            let src = xs.buf.slice(lo..lo + n * size);
            let mut dst = out.slice_mut(0..n * size);
            card.stream
                .memcpy_dtod(&src, &mut dst)
                .map_err(|e| driver_err("device copy", e))?;
        } else if n > 0 {
            let Some(f) = self.kernel(&card, kernels::gather(xs.dtype), "Gather") else {
                return back(&card, CPU.take(x, idx)?);
            };
            let ids: Vec<u64> = idx.iter().map(|&i| i as u64).collect();
            let ids = card
                .stream
                .clone_htod(&ids[..])
                .map_err(|e| driver_err("host-to-device copy", e))?;
            let n64 = n as u64;
            let mut l = card.stream.launch_builder(&f);
            l.arg(&*xs.buf).arg(&mut out).arg(&ids).arg(&n64);
            // SAFETY: every index was checked against xs.len above.
            unsafe { l.launch(grid(n)) }.map_err(|e| driver_err("launch", e))?;
        }
        Ok(Storage::Cuda(CudaStorage::new(xs.dtype, n, card, out)))
    }

    fn concat(&self, parts: &[&Storage]) -> Result<Storage> {
        let card = card_of_inputs(parts)?;
        let dtype = match parts.first() {
            Some(p) => p.dtype(),
            None => return Err(Error::internal("concat of nothing")),
        };
        if parts.iter().any(|p| p.dtype() != dtype) {
            return Err(Error::internal("concat: mixed dtypes"));
        }
        let size = dtype.size();
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let mut out = alloc(&card, dtype, total)?;
        let mut at = 0;
        for p in parts {
            let ps = on_card(p, &card)?;
            let nb = ps.len * size;
            if nb > 0 {
                let src = ps.buf.slice(0..nb);
                let mut dst = out.slice_mut(at..at + nb);
                card.stream
                    .memcpy_dtod(&src, &mut dst)
                    .map_err(|e| driver_err("device copy", e))?;
            }
            at += nb;
        }
        Ok(Storage::Cuda(CudaStorage::new(dtype, total, card, out)))
    }

    fn scatter(&self, dst: &mut Storage, idx: &[usize], src: &Storage) -> Result<()> {
        // element assignment: on host copies, then the whole buffer goes back
        let card = card_of_inputs(&[dst, src])?;
        count_fallback("scatter");
        let mut host = Storage::Host(self.to_host(dst)?);
        let src = Storage::Host(src.backend().to_host(src)?);
        CPU.scatter(&mut host, idx, &src)?;
        *dst = back(&card, host)?;
        Ok(())
    }

    fn to_host(&self, x: &Storage) -> Result<HostData> {
        match x {
            Storage::Cuda(c) => c.to_host(),
            Storage::Host(h) => Ok(h.clone()),
        }
    }
}
