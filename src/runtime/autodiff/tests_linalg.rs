//! Finite-difference checks (as in `tests.rs`) of the gradients in
//! `grad_linalg.rs`: the solvers, the inverse, the determinants, Cholesky,
//! the triangular solve and the band part.

use super::tests::{check, spread, t};
use crate::runtime::ops::{self, decomp};
use crate::runtime::Tensor;

/// Well-conditioned square matrices: `spread` values plus 3 on the diagonal.
fn square(batch: usize, n: usize) -> Tensor {
    let mut v = spread(batch * n * n, -0.5);
    for b in 0..batch {
        for i in 0..n {
            v[b * n * n + i * n + i] += 3.0;
        }
    }
    t(&v, &[batch, n, n])
}

#[test]
fn solve_inverse_determinants() {
    let a = square(2, 3);
    let b = t(&spread(12, 0.1), &[2, 3, 2]);
    for adjoint in [false, true] {
        check(
            &format!("MatrixSolve adjoint={adjoint}"),
            &move |xs| decomp::matrix_solve(&xs[0], &xs[1], adjoint),
            &[a.clone(), b.clone()],
        );
        check(
            &format!("MatrixInverse adjoint={adjoint}"),
            &move |xs| decomp::matrix_inverse(&xs[0], adjoint),
            std::slice::from_ref(&a),
        );
    }
    check(
        "MatrixDeterminant",
        &|xs| decomp::determinant(&xs[0]),
        std::slice::from_ref(&a),
    );
    check(
        "LogMatrixDeterminant",
        &|xs| Ok(decomp::log_determinant(&xs[0])?.1),
        std::slice::from_ref(&a),
    );
}

#[test]
fn cholesky_and_triangular() {
    let a = square(2, 3);
    // a symmetric positive-definite input, perturbed symmetrically through
    // (x + xᵀ) / 2 so that the check sees the symmetric gradient
    let spd = ops::matmul(&a, &a, false, true).unwrap();
    check(
        "Cholesky",
        &|xs| {
            let sym = ops::add(&xs[0], &ops::matrix::matrix_transpose(&xs[0])?)?;
            let half = Tensor::from_vec(vec![0.5f64], &[])?;
            decomp::cholesky(&ops::binary(
                crate::runtime::op::BinaryOp::Mul,
                &sym,
                &half,
            )?)
        },
        std::slice::from_ref(&spd),
    );
    let b = t(&spread(6, 0.2), &[3, 2]);
    for lower in [true, false] {
        for adjoint in [false, true] {
            check(
                &format!("MatrixTriangularSolve lower={lower} adjoint={adjoint}"),
                &move |xs| decomp::triangular_solve(&xs[0], &xs[1], lower, adjoint),
                &[a.clone(), b.clone()],
            );
        }
    }
    check(
        "MatrixBandPart",
        &|xs| decomp::band_part(&xs[0], 1, 0),
        std::slice::from_ref(&a),
    );
}
