//! Compares dist's lane functions with gen.py's TensorFlow outputs, bit for
//! bit (NaN matches NaN). Build and run from the repository root:
//!     rustc -O --edition 2021 tools/kernel_sweep/check.rs -o /tmp/kernel_sweep
//!     /tmp/kernel_sweep OUTDIR
#![allow(dead_code)]

// at the crate root, so `onednn.rs`'s `super::eigen_math` resolves
#[path = "../../src/runtime/backend/cpu/eigen_math.rs"]
mod eigen_math;
#[path = "../../src/runtime/backend/cpu/eigen_math64.rs"]
mod eigen_math64;
#[path = "../../src/runtime/backend/cpu/onednn.rs"]
mod onednn;
use eigen_math as m;
use eigen_math64 as m64;

fn load<T: Copy, const N: usize>(dir: &str, name: &str, f: fn([u8; N]) -> T) -> Vec<T> {
    let bytes = std::fs::read(format!("{dir}/{name}.bin")).expect(name);
    bytes.chunks(N).map(|c| f(c.try_into().unwrap())).collect()
}

fn check<T: Copy + std::fmt::Debug>(
    name: &str,
    xs: &[T],
    want: &[T],
    f: &dyn Fn(T) -> T,
    same: fn(T, T) -> bool,
) {
    let bad: Vec<usize> = (0..xs.len())
        .filter(|&i| !same(f(xs[i]), want[i]))
        .collect();
    println!("{name:<20} {:>8} / {} mismatches", bad.len(), xs.len());
    for &i in bad.iter().take(3) {
        println!("    x={:?} got {:?} want {:?}", xs[i], f(xs[i]), want[i]);
    }
}

fn main() {
    let dir = std::env::args().nth(1).expect("the directory gen.py wrote");
    let f32s = |n: &str| load(&dir, n, f32::from_le_bytes);
    let f64s = |n: &str| load(&dir, n, f64::from_le_bytes);
    let s32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let s64 = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let (x, xs) = (f32s("x"), f32s("xs"));
    let t = m::softplus_threshold();
    type F = Box<dyn Fn(f32) -> f32>;
    let cases: Vec<(&str, F, F)> = vec![
        (
            "sigmoid",
            Box::new(m::logistic),
            Box::new(m::logistic_scalar),
        ),
        ("tanh", Box::new(m::tanh), Box::new(m::tanh)),
        ("erf", Box::new(m::erf), Box::new(m::erf)),
        ("erfc", Box::new(m::erfc), Box::new(m::erfc_scalar)),
        ("exp", Box::new(m::pexp), Box::new(m::expf)),
        ("log", Box::new(m::plog), Box::new(m::logf)),
        ("log1p", Box::new(m::log1p), Box::new(m::log1pf)),
        ("expm1", Box::new(m::expm1), Box::new(m::expm1f)),
        (
            "softplus",
            Box::new(move |v| m::softplus_with(v, t, m::pexp, m::log1p)),
            Box::new(move |v| m::softplus_with(v, t, m::expf, m::log1pf)),
        ),
        (
            "reciprocal",
            Box::new(m::preciprocal),
            Box::new(|v| m::ftz(1.0 / m::ftz(v))),
        ),
        (
            "rsqrt",
            Box::new(m::prsqrt),
            Box::new(|v| m::ftz(1.0 / m::ftz(v).sqrt())),
        ),
        (
            "sqrt",
            Box::new(|v| m::ftz(v).sqrt()),
            Box::new(|v| m::ftz(v).sqrt()),
        ),
    ];
    for (n, p, s) in &cases {
        check(
            &format!("{n} packet"),
            &x,
            &f32s(&format!("{n}_packet")),
            p,
            s32,
        );
        check(
            &format!("{n} scalar"),
            &xs,
            &f32s(&format!("{n}_scalar")),
            s,
            s32,
        );
    }
    let (sx, sy) = (f32s("smx"), f32s("smy"));
    let meta = load(&dir, "smmeta", i64::from_le_bytes);
    let (mut at, mut bad) = (0, 0);
    for rc in meta.chunks(2) {
        let (r, c) = (rc[0] as usize, rc[1] as usize);
        for _ in 0..r {
            let mut o = vec![0f32; c];
            onednn::softmax_row(&sx[at..at + c], &mut o);
            bad += (0..c).filter(|&j| !s32(o[j], sy[at + j])).count();
            at += c;
        }
    }
    println!("{:<20} {bad:>8} / {} mismatches", "softmax rows", sx.len());
    let (x64, xs64) = (f64s("x64"), f64s("xs64"));
    check("exp64 packet", &x64, &f64s("exp64_packet"), &m64::pexp, s64);
    check("exp64 scalar", &xs64, &f64s("exp64_scalar"), &m64::exp, s64);
    check("log64 packet", &x64, &f64s("log64_packet"), &m64::plog, s64);
    check("log64 scalar", &xs64, &f64s("log64_scalar"), &m64::log, s64);
}
