//! GPU benchmarks, ignored by default and skipped without a GPU. Run on a
//! machine with one (scripts/bench/gpu.sh does):
//! `cargo test --release --test cuda_bench -- --ignored --nocapture`.
//! Prints one `bench:` line per workload with dist's rate and the card's
//! reference (copy bandwidth, cuBLAS's own SGEMM); gpu.sh collects them.
#![cfg(feature = "cuda")]
#![expect(
    clippy::print_stdout,
    reason = "a benchmark reports its timings on stdout"
)]

use std::time::Instant;

use dist::runtime::backend::cuda::{self, bench};
use dist::runtime::{ops, DType, Device, ReduceOp, Storage, Tensor};

/// Best time of `iters` runs of `f`, each finished on the card.
fn best(dev: Device, iters: usize, mut f: impl FnMut() -> Tensor) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..iters + 1 {
        bench::synchronize(dev).unwrap();
        let t = Instant::now();
        let r = f();
        bench::synchronize(dev).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        assert!(
            matches!(r.storage(), Storage::Cuda(_)),
            "result left the card"
        );
    }
    best
}

#[test]
#[ignore]
fn gpu_benchmarks() {
    if cuda::gpu_count() == 0 {
        println!(
            "bench: skipped: no GPU ({})",
            cuda::gpus().err().unwrap_or_default()
        );
        return;
    }
    let dev = Device::cuda_gpu(0);
    let gpu = &cuda::gpus().unwrap()[0];
    println!(
        "bench: device {} ({:.0} GiB, sm_{}{})",
        gpu.name,
        gpu.total_mem as f64 / (1u64 << 30) as f64,
        gpu.compute_capability.0,
        gpu.compute_capability.1
    );
    let fallbacks = cuda::fallback_count();

    let n = 256 << 20;
    let copy = bench::copy_gbps(0, 4 * n, 10).unwrap();
    println!("bench: copy bandwidth (device to device, 1 GiB): {copy:.0} GB/s");
    let a = Tensor::ones(DType::Float32, &[n], dev).unwrap();
    let b = Tensor::ones(DType::Float32, &[n], dev).unwrap();
    let t = best(dev, 10, || ops::add(&a, &b).unwrap());
    let rate = 3.0 * 4.0 * n as f64 / t / 1e9;
    println!(
        "bench: add 256M float32: {:.3} ms, {rate:.0} GB/s = {:.0}% of copy bandwidth (target 80%), {:.0}% of 4300 GB/s",
        t * 1e3,
        100.0 * rate / copy,
        100.0 * rate / 4300.0
    );
    let t = best(dev, 10, || {
        ops::reduce(ReduceOp::Sum, &a, None, false).unwrap()
    });
    let rate = 4.0 * n as f64 / t / 1e9;
    println!(
        "bench: reduce_sum 256M float32: {:.3} ms, {rate:.0} GB/s = {:.0}% of copy bandwidth",
        t * 1e3,
        100.0 * rate / copy
    );
    let s = ops::reduce(ReduceOp::Sum, &a, None, false).unwrap();
    println!(
        "bench: reduce_sum value {:?} (exact: {n})",
        s.item().unwrap()
    );
    drop((a, b));

    let m = 8192;
    let raw = bench::sgemm_tflops(0, m, 5).unwrap();
    let x = Tensor::ones(DType::Float32, &[m, m], dev).unwrap();
    let t = best(dev, 5, || ops::matmul(&x, &x, false, false).unwrap());
    let tf = 2.0 * (m as f64).powi(3) / t / 1e12;
    println!("bench: matmul 8192x8192 float32: {:.2} ms, {tf:.1} TFLOP/s; cuBLAS SGEMM alone {raw:.1} TFLOP/s ({:.0}%)", t * 1e3, 100.0 * tf / raw);
    drop(x);

    // strategy.reduce's runtime path: replicas' tensors on the card, summed in replica order
    for replicas in [2usize, 4, 8] {
        let k = 64 << 20;
        let parts: Vec<Tensor> = (0..replicas)
            .map(|r| {
                Tensor::fill(
                    &[k],
                    &dist::runtime::Scalar::Int(r as i64),
                    DType::Float32,
                    Device::cuda_gpu(r as u32),
                )
                .unwrap()
            })
            .collect();
        let t = best(dev, 5, || {
            let mut acc = parts[0].to_device(dev).unwrap();
            for p in &parts[1..] {
                acc = ops::add(&acc, &p.to_device(dev).unwrap()).unwrap();
            }
            acc
        });
        let rate = (replicas as f64) * 4.0 * k as f64 / t / 1e9;
        println!("bench: reduce across {replicas} replicas, 64M float32 each: {:.3} ms, {rate:.0} GB/s of replica data", t * 1e3);
    }
    println!(
        "bench: host fallbacks during the benchmarks: {}",
        cuda::fallback_count() - fallbacks
    );
}
