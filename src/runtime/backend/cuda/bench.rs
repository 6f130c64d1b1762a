//! Reference rates of a card for the benchmarks (`tests/cuda_bench.rs`):
//! its device-to-device copy bandwidth and cuBLAS's own SGEMM rate, measured
//! with cudarc directly, so dist's ops can be compared with the hardware.

use std::time::Instant;

use cudarc::cublas::{Gemm, GemmConfig};

use super::{card, driver_err};
use crate::runtime::device::Device;
use crate::runtime::error::Result;

/// Waits until every op queued on `device`'s card has finished.
pub fn synchronize(device: Device) -> Result<()> {
    let c = card(super::card_of(device)?)?;
    c.stream
        .synchronize()
        .map_err(|e| driver_err("synchronize", e))
}

/// Copy bandwidth of card `ordinal` in GB/s (bytes read + written), best of `iters`.
pub fn copy_gbps(ordinal: usize, bytes: usize, iters: usize) -> Result<f64> {
    let c = card(ordinal)?;
    let src = c
        .stream
        .alloc_zeros::<u8>(bytes)
        .map_err(|e| driver_err("alloc", e))?;
    let mut dst = c
        .stream
        .alloc_zeros::<u8>(bytes)
        .map_err(|e| driver_err("alloc", e))?;
    let mut best = f64::INFINITY;
    for _ in 0..iters.max(1) + 1 {
        c.stream
            .synchronize()
            .map_err(|e| driver_err("synchronize", e))?;
        let t = Instant::now();
        c.stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(|e| driver_err("copy", e))?;
        c.stream
            .synchronize()
            .map_err(|e| driver_err("synchronize", e))?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(2.0 * bytes as f64 / best / 1e9)
}

/// cuBLAS SGEMM of two `n x n` float32 matrices on card `ordinal`, in
/// TFLOP/s (2n³ per product), best of `iters`.
pub fn sgemm_tflops(ordinal: usize, n: usize, iters: usize) -> Result<f64> {
    let c = card(ordinal)?;
    let a = c
        .stream
        .alloc_zeros::<f32>(n * n)
        .map_err(|e| driver_err("alloc", e))?;
    let b = c
        .stream
        .alloc_zeros::<f32>(n * n)
        .map_err(|e| driver_err("alloc", e))?;
    let mut out = c
        .stream
        .alloc_zeros::<f32>(n * n)
        .map_err(|e| driver_err("alloc", e))?;
    let blas = c.blas()?;
    let cfg = GemmConfig {
        transa: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
        transb: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: n as i32,
        k: n as i32,
        alpha: 1.0f32,
        lda: n as i32,
        ldb: n as i32,
        beta: 0.0f32,
        ldc: n as i32,
    };
    let mut best = f64::INFINITY;
    for _ in 0..iters.max(1) + 1 {
        c.stream
            .synchronize()
            .map_err(|e| driver_err("synchronize", e))?;
        let t = Instant::now();
        // SAFETY: three n x n float32 buffers, leading dimension n.
        unsafe { blas.gemm(cfg, &a, &b, &mut out) }.map_err(|e| driver_err("cuBLAS gemm", e))?;
        c.stream
            .synchronize()
            .map_err(|e| driver_err("synchronize", e))?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(2.0 * (n as f64).powi(3) / best / 1e12)
}
