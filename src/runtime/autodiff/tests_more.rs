//! Finite-difference checks (as in `tests.rs`) of the gradients in
//! `grad_more.rs`: cumulative products, `top_k`, `sort`, the matrix
//! diagonal ops, `einsum` and `L2Loss`.

use super::tests::{check, spread, t, F};
use crate::runtime::ops;
use crate::runtime::Tensor;

#[test]
fn cumprod() {
    // no zeros: the gradient divides by x
    let x = t(&spread(12, 0.4), &[3, 4]);
    for axis in [0i64, 1, -1] {
        for (ex, rev) in [(false, false), (true, false), (false, true), (true, true)] {
            check(
                &format!("Cumprod axis={axis} exclusive={ex} reverse={rev}"),
                &move |xs| ops::scan::cumulative(&xs[0], axis, ex, rev, true),
                std::slice::from_ref(&x),
            );
        }
    }
}

#[test]
fn top_k_and_sort() {
    // distinct values, so the order is stable under the perturbation
    let x = t(&spread(24, -0.5), &[2, 3, 4]);
    let one = |name: &str, f: &F| check(name, f, std::slice::from_ref(&x));
    for k in [1i64, 2, 4] {
        one(&format!("TopKV2 k={k}"), &move |xs| {
            Ok(ops::scan::top_k(&xs[0], k)?.0)
        });
    }
    for axis in [0i64, 1, 2, -1] {
        for desc in [false, true] {
            one(&format!("sort axis={axis} descending={desc}"), &move |xs| {
                Ok(ops::scan::sort(&xs[0], axis, desc)?.0)
            });
        }
    }
}

#[test]
fn matrix_diagonals() {
    let sq = t(&spread(18, -0.3), &[2, 3, 3]);
    let rect = t(&spread(12, 0.2), &[3, 4]);
    check(
        "MatrixDiagPartV3",
        &|xs| ops::matrix::diag_part(&xs[0], ""),
        std::slice::from_ref(&sq),
    );
    check(
        "MatrixDiagPartV3 rect",
        &|xs| ops::matrix::diag_part(&xs[0], ""),
        std::slice::from_ref(&rect),
    );
    check(
        "trace",
        &|xs| ops::matrix::trace(&xs[0]),
        std::slice::from_ref(&sq),
    );
    check(
        "MatrixDiagV3",
        &|xs| ops::matrix::diag(&xs[0]),
        &[t(&spread(6, 0.1), &[2, 3])],
    );
    check(
        "MatrixSetDiagV3",
        &|xs| ops::matrix::set_diag(&xs[0], &xs[1]),
        &[rect.clone(), t(&spread(3, -0.7), &[3])],
    );
}

#[test]
fn einsum() {
    let a = t(&spread(6, -0.4), &[2, 3]);
    let b = t(&spread(12, 0.3), &[3, 4]);
    let v = t(&spread(3, 0.5), &[3]);
    let sq = t(&spread(9, -0.2), &[3, 3]);
    // distinct handles: a tape knows a tensor by its handle
    let a2 = t(&spread(6, 0.6), &[2, 3]);
    let v2 = t(&spread(3, -0.8), &[3]);
    let cases: Vec<(&str, Vec<Tensor>)> = vec![
        ("ij,jk->ik", vec![a.clone(), b.clone()]),
        ("ij,jk", vec![a.clone(), b.clone()]),
        ("ij,kj->ik", vec![a.clone(), a2]),
        ("ij,j->i", vec![a.clone(), v.clone()]),
        ("i,i->", vec![v.clone(), v2]),
        ("ij,k->ijk", vec![a.clone(), v.clone()]),
        ("ij->ji", vec![a.clone()]),
        ("ij->j", vec![a.clone()]),
        ("ij->", vec![a.clone()]),
        ("ii->i", vec![sq.clone()]),
        ("ii->", vec![sq.clone()]),
        ("ijk->ki", vec![t(&spread(24, 0.1), &[2, 3, 4])]),
    ];
    for (eq, ins) in cases {
        check(
            &format!("Einsum {eq}"),
            &move |xs| ops::einsum::einsum(eq, xs),
            &ins,
        );
    }
}

#[test]
fn l2_loss() {
    check(
        "L2Loss",
        &|xs| ops::l2_loss(&xs[0]),
        &[t(&spread(7, -0.5), &[7])],
    );
}

/// Forward mode (`forward.rs`): the tangent of `f` at `x` along `v` is the
/// central difference `(f(x + hv) - f(x - hv)) / 2h`, for ops whose
/// gradients take several paths (slices, `top_k`, the diagonal ops, fused
/// gradients that are 0 where the cotangent is).
#[test]
fn forward_tangents_match_differences() {
    use super::forward::Accumulator;
    let x = t(&spread(12, 0.3), &[3, 4]);
    let v = t(&spread(12, -0.6), &[3, 4]);
    let sq = t(&spread(9, 0.2), &[3, 3]);
    let sv = t(&spread(9, -0.4), &[3, 3]);
    let cases: Vec<(&str, Box<F>, &Tensor, &Tensor)> = vec![
        (
            "slice",
            Box::new(|xs: &[Tensor]| {
                ops::index(
                    &xs[0],
                    &[ops::IndexItem::Slice {
                        start: Some(1),
                        stop: None,
                        step: None,
                    }],
                    crate::runtime::Semantics::Tf,
                )
            }),
            &x,
            &v,
        ),
        (
            "sqrt",
            Box::new(|xs: &[Tensor]| ops::unary(crate::runtime::UnaryOp::Sqrt, &xs[0])),
            &x,
            &v,
        ),
        (
            "top_k",
            Box::new(|xs: &[Tensor]| Ok(ops::scan::top_k(&xs[0], 2)?.0)),
            &x,
            &v,
        ),
        (
            "diag_part",
            Box::new(|xs: &[Tensor]| ops::matrix::diag_part(&xs[0], "")),
            &sq,
            &sv,
        ),
        (
            "softmax",
            Box::new(|xs: &[Tensor]| ops::nn::softmax(&xs[0], -1, false)),
            &x,
            &v,
        ),
    ];
    for (name, f, x, v) in cases {
        let acc = Accumulator::new();
        acc.watch(x, v.clone());
        acc.push();
        let y = f(std::slice::from_ref(x)).unwrap();
        acc.pop();
        let jvp = acc
            .jvp(&y)
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: no tangent"));
        let h = 1e-6;
        let at = |d: f64| {
            let shifted = ops::add(
                x,
                &ops::binary(crate::runtime::BinaryOp::Mul, v, &t(&[d], &[]))?,
            )?;
            f(&[shifted])
        };
        let (hi, lo) = (at(h).unwrap(), at(-h).unwrap());
        let (hi, lo, got) = (
            hi.as_slice::<f64>().unwrap().to_vec(),
            lo.as_slice::<f64>().unwrap().to_vec(),
            jvp.as_slice::<f64>().unwrap().to_vec(),
        );
        for i in 0..got.len() {
            let numeric = (hi[i] - lo[i]) / (2.0 * h);
            assert!(
                (numeric - got[i]).abs() <= 1e-5 * (1.0 + numeric.abs()),
                "{name}[{i}]: tangent {} numeric {numeric}",
                got[i]
            );
        }
    }
}
