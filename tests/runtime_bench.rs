//! Rough kernel timings, ignored by default. Run with
//! `cargo test --release --test runtime_bench -- --ignored --nocapture`.

#![expect(
    clippy::print_stdout,
    reason = "a benchmark reports its timings on stdout"
)]

use std::hint::black_box;
use std::time::Instant;

use dist::runtime::{ops, DType, Device, ReduceOp, Tensor};

fn time<T>(label: &str, iters: usize, mut f: impl FnMut() -> T) {
    for _ in 0..iters.min(10) {
        black_box(f());
    }
    let t = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    let per = t.elapsed().as_secs_f64() / iters as f64;
    println!("{label:40} {:>12.1} ns", per * 1e9);
}

#[test]
#[ignore]
fn kernel_timings() {
    let x = Tensor::scalar(1i32);
    let one = Tensor::scalar(1i32);
    time("scalar int32 add", 1_000_000, || {
        ops::add(&x, &one).unwrap()
    });
    let xf = Tensor::scalar(1.5f32);
    let of = Tensor::scalar(1.0f32);
    time("scalar float32 mul", 1_000_000, || {
        ops::mul(&xf, &of).unwrap()
    });
    for n in [1_000usize, 100_000, 10_000_000] {
        let a = Tensor::ones(DType::Float32, &[n], Device::CPU0).unwrap();
        let b = Tensor::ones(DType::Float32, &[n], Device::CPU0).unwrap();
        time(&format!("add f32 n={n}"), (100_000_000 / n).max(3), || {
            ops::add(&a, &b).unwrap()
        });
        time(&format!("sum f32 n={n}"), (100_000_000 / n).max(3), || {
            ops::reduce(ReduceOp::Sum, &a, None, false).unwrap()
        });
    }
    let a = Tensor::ones(DType::Float32, &[1000, 1000], Device::CPU0).unwrap();
    let row = Tensor::ones(DType::Float32, &[1000], Device::CPU0).unwrap();
    time("broadcast add [1000,1000]+[1000]", 20, || {
        ops::add(&a, &row).unwrap()
    });
    time("sum axis 0 [1000,1000]", 20, || {
        ops::reduce(ReduceOp::Sum, &a, Some(&[0]), false).unwrap()
    });
    time("sum axis 1 [1000,1000]", 20, || {
        ops::reduce(ReduceOp::Sum, &a, Some(&[1]), false).unwrap()
    });
    let m = Tensor::ones(DType::Float32, &[512, 512], Device::CPU0).unwrap();
    time("matmul f32 512^3", 5, || {
        ops::matmul(&m, &m, false, false).unwrap()
    });
    time("transpose [1000,1000]", 10, || {
        ops::transpose(&a, None).unwrap()
    });
}

#[test]
#[ignore]
fn scalar_breakdown() {
    use dist::runtime::{BinaryOp, Semantics};
    let x = Tensor::scalar(1i32);
    let one = Tensor::scalar(1i32);
    time("Tensor::scalar", 1_000_000, || Tensor::scalar(1i32));
    time("x.clone()", 1_000_000, || x.clone());
    let be = x.storage().backend();
    time("backend.binary", 1_000_000, || {
        be.binary(
            BinaryOp::Add,
            Semantics::Tf,
            (x.storage(), x.shape()),
            (one.storage(), one.shape()),
            x.shape(),
        )
        .unwrap()
    });
    time("ops::binary", 1_000_000, || {
        ops::binary(BinaryOp::Add, &x, &one).unwrap()
    });
}
