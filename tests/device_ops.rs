//! Device parity: every case is written once as `fn case(dev: Device)` and
//! runs on the CPU, on a virtual GPU and (feature `cuda`, with a GPU) on
//! `GPU:0` in CUDA memory. A case computes ops on inputs placed on `dev` and
//! checks they print exactly what the same ops print on `CPU:0`, and that
//! CUDA results stay in device memory. Without a GPU the cuda variants say
//! so and pass, unless `DIST_REQUIRE_GPU=1`, where they fail.

use dist::runtime::backend::cuda;
use dist::runtime::format::tf_repr;
use dist::runtime::ops;
use dist::runtime::{BinaryOp, DType, Device, ReduceOp, Storage, Tensor, UnaryOp};

/// Deterministic values in [-4, 4) with a few exact integers mixed in.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|i| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = ((s >> 33) as f64 / (1u64 << 31) as f64) * 8.0 - 4.0;
            if i % 5 == 0 {
                x.round() as f32
            } else {
                x as f32
            }
        })
        .collect()
}

fn on(dev: Device, v: Vec<f32>, dims: &[usize]) -> Tensor {
    Tensor::from_vec(v, dims)
        .and_then(|t| t.to_device(dev))
        .expect("placing a tensor")
}

/// `f` on `dev` prints what it prints on the CPU, and CUDA results stay on the card.
fn same(dev: Device, what: &str, f: impl Fn(Device) -> dist::runtime::Result<Tensor>) {
    let want = f(Device::CPU0).map(|t| tf_repr(&t));
    let got = f(dev);
    if let (Ok(t), true) = (&got, cuda::is_cuda(dev)) {
        if t.dtype() != DType::String {
            assert!(
                matches!(t.storage(), Storage::Cuda(_)),
                "{what}: result left device memory"
            );
        }
    }
    let got = got.map(|t| tf_repr(&t));
    match (&want, &got) {
        (Ok(w), Ok(g)) => assert_eq!(g, w, "{what} on {dev}"),
        (Err(w), Err(g)) => assert_eq!(g.message(), w.message(), "{what} on {dev}"),
        _ => panic!("{what} on {dev}: {got:?} vs CPU {want:?}"),
    }
}

/// Like [`same`] within `rel` relative error: for results whose rounding
/// the device cannot promise to share with the host's libraries (libm's
/// transcendental functions, cuBLAS's summation order in matmul).
fn close(dev: Device, what: &str, rel: f64, f: impl Fn(Device) -> dist::runtime::Result<Tensor>) {
    let want = f(Device::CPU0).expect(what);
    let got = f(dev).expect(what);
    assert_eq!(
        (got.dtype(), got.dims()),
        (want.dtype(), want.dims()),
        "{what} on {dev}"
    );
    let want = want.to_scalars();
    // cancellation in a sum of products: measure against the largest value too
    let scale = want.iter().map(|w| w.as_f64().abs()).fold(0.0, f64::max) * 0.01;
    for (i, (g, w)) in got.to_scalars().iter().zip(want).enumerate() {
        let (g, w) = (g.as_f64(), w.as_f64());
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= rel * w.abs().max(scale);
        assert!(ok, "{what} on {dev}: element {i} is {g}, CPU {w}");
    }
}

fn elementwise(dev: Device) {
    let a = |d| on(d, values(24, 1), &[2, 3, 4]);
    let b = |d| on(d, values(4, 2), &[4]);
    let c = |d| on(d, values(3, 3), &[3, 1]);
    for op in [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::RealDiv,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Less,
        BinaryOp::Equal,
        BinaryOp::GreaterEqual,
    ] {
        same(dev, op.name(), |d| ops::binary(op, &a(d), &b(d)));
        same(dev, op.name(), |d| ops::binary(op, &c(d), &b(d)));
    }
    close(dev, "Pow", 3e-7, |d| {
        ops::binary(BinaryOp::Pow, &ops::unary(UnaryOp::Abs, &a(d))?, &b(d))
    });
    for op in [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Square,
        UnaryOp::Sqrt,
        UnaryOp::Relu,
        UnaryOp::Floor,
        UnaryOp::Round,
        UnaryOp::Sign,
    ] {
        same(dev, op.name(), |d| ops::unary(op, &a(d)));
    }
    for op in [UnaryOp::Exp, UnaryOp::Log, UnaryOp::Tanh, UnaryOp::Sigmoid] {
        close(dev, op.name(), 3e-7, |d| ops::unary(op, &a(d)));
    }
    // integers: wrapping arithmetic on the device, division on the host path
    let ia = |d| ops::cast(&a(d), DType::Int32);
    let ib = |d| ops::cast(&b(d), DType::Int32);
    same(dev, "int add", |d| ops::add(&ia(d)?, &ib(d)?));
    same(dev, "int mul", |d| ops::mul(&ia(d)?, &ib(d)?));
    same(dev, "int floordiv", |d| ops::floordiv(&ia(d)?, &ib(d)?));
    same(dev, "int abs", |d| ops::unary(UnaryOp::Abs, &ia(d)?));
}

fn casts_and_where(dev: Device) {
    let a = |d| on(d, values(12, 4), &[3, 4]);
    for to in [
        DType::Bool,
        DType::Int8,
        DType::UInt8,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::Float64,
    ] {
        same(dev, to.name(), |d| ops::cast(&a(d), to));
        same(dev, to.name(), |d| {
            ops::cast(&ops::cast(&a(d), to)?, DType::Float32)
        });
    }
    same(dev, "half add", |d| {
        let h = ops::cast(&a(d), DType::Float16)?;
        ops::add(&h, &h)
    });
    same(dev, "where", |d| {
        let cond = ops::binary(BinaryOp::Greater, &a(d), &on(d, vec![0.0], &[]))?;
        ops::where_select(&cond, &a(d), &on(d, values(4, 5), &[4]))
    });
}

fn reductions(dev: Device) {
    let a = |d| on(d, values(60, 6), &[3, 4, 5]);
    for op in [
        ReduceOp::Sum,
        ReduceOp::Mean,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Prod,
    ] {
        same(dev, op.name(), |d| ops::reduce(op, &a(d), None, false));
        same(dev, op.name(), |d| {
            ops::reduce(op, &a(d), Some(&[1]), false)
        });
        same(dev, op.name(), |d| {
            ops::reduce(op, &a(d), Some(&[0, 2]), true)
        });
        same(dev, op.name(), |d| {
            ops::reduce(op, &ops::cast(&a(d), DType::Int64)?, Some(&[2]), false)
        });
    }
    same(dev, "any", |d| {
        ops::reduce(ReduceOp::Any, &a(d), Some(&[0]), false)
    });
    same(dev, "all", |d| {
        ops::reduce(ReduceOp::All, &a(d), Some(&[1]), false)
    });
    // long rows: the pairwise tree's top levels run in parallel on a card
    let long = |d| on(d, values(3 * 300_000, 14), &[3, 300_000]);
    same(dev, "long sum", |d| {
        ops::reduce(ReduceOp::Sum, &long(d), Some(&[1]), false)
    });
    same(dev, "long mean", |d| {
        ops::reduce(ReduceOp::Mean, &long(d), None, false)
    });
    same(dev, "long max", |d| {
        ops::reduce(ReduceOp::Max, &long(d), None, false)
    });
    same(dev, "leading sum", |d| {
        ops::reduce(ReduceOp::Sum, &long(d), Some(&[0]), false)
    });
    same(dev, "long int sum", |d| {
        ops::reduce(
            ReduceOp::Sum,
            &ops::cast(&long(d), DType::Int32)?,
            None,
            false,
        )
    });
    same(dev, "empty sum", |d| {
        ops::reduce(ReduceOp::Sum, &on(d, vec![], &[0, 3]), Some(&[0]), false)
    });
}

fn copies_and_matmul(dev: Device) {
    let a = |d| on(d, values(24, 7), &[2, 3, 4]);
    same(dev, "transpose", |d| {
        ops::transpose(&a(d), Some(&[2, 0, 1]))
    });
    same(dev, "concat", |d| ops::concat(&[a(d), a(d)], 1));
    same(dev, "gather", |d| {
        let idx = Tensor::from_vec(vec![2i32, 0, 2], &[3])?.to_device(d)?;
        ops::gather(&a(d), &idx, 1)
    });
    close(dev, "matmul", 1e-5, |d| {
        let x = on(d, values(12, 8), &[3, 4]);
        let y = on(d, values(20, 9), &[4, 5]);
        ops::matmul(&x, &y, false, false)
    });
    close(dev, "batched matmul", 1e-5, |d| {
        let y = on(d, values(8, 10), &[4, 2]);
        ops::matmul(&a(d), &y, false, false)
    });
    close(dev, "matmul transposed", 1e-5, |d| {
        let y = on(d, values(20, 9), &[5, 4]);
        ops::matmul(&on(d, values(12, 8), &[3, 4]), &y, false, true)
    });
}

fn cross_device(dev: Device) {
    // an op on a device tensor and a CPU tensor, and the round trip
    same(dev, "mixed", |d| {
        ops::add(
            &on(d, values(6, 11), &[6]),
            &on(Device::CPU0, values(6, 12), &[6]),
        )
    });
    same(dev, "round trip", |d| {
        on(d, values(5, 13), &[5]).to_device(Device::CPU0)
    });
}

macro_rules! device_tests {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            use super::*;

            #[test]
            fn cpu() {
                super::$case(Device::CPU0);
            }

            #[test]
            fn virtual_gpu() {
                super::$case(Device::virtual_gpu(0));
            }

            #[cfg(feature = "cuda")]
            #[test]
            fn cuda() {
                if cuda::gpu_count() == 0 {
                    let why = cuda::gpus().err().unwrap_or_default();
                    assert!(
                        std::env::var("DIST_REQUIRE_GPU").as_deref() != Ok("1"),
                        "DIST_REQUIRE_GPU=1 but no GPU: {why}"
                    );
                    eprintln!("skipping the cuda variant: no GPU ({why})");
                    return;
                }
                super::$case(Device::cuda_gpu(0));
            }
        }
    )*};
}

device_tests!(
    elementwise,
    casts_and_where,
    reductions,
    copies_and_matmul,
    cross_device
);
