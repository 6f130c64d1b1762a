//! The gradients of the dense linear-algebra ops (`runtime::ops::decomp`),
//! each the op sequence of TensorFlow's registered gradient
//! (`linalg_grad.py`, `array_grad.py`'s `MatrixBandPart`), built from
//! recorded ops so that nested tapes differentiate them again.
//! `grad.rs` dispatches here.

use super::grad::{broadcast_axes, mul, neg, reshape, scalar, sum, OpView};
use crate::runtime::error::Result;
use crate::runtime::ops::{self, decomp, decomp::LinalgOp};
use crate::runtime::tensor::Tensor;

/// `-matmul(a, b, adjoint_a, adjoint_b)` (real: adjoint is transpose).
fn neg_matmul(a: &Tensor, b: &Tensor, ta: bool, tb: bool) -> Result<Tensor> {
    neg(&ops::matmul(a, b, ta, tb)?)
}

/// `reshape(x, batch + [1, 1])`.
fn as_multipliers(x: &Tensor) -> Result<Tensor> {
    let mut dims = x.dims().to_vec();
    dims.extend([1, 1]);
    reshape(x, &dims)
}

/// `reshape(reduce_sum(g, axes the batch broadcast), x's shape)` where the
/// batch dimensions of `g` were broadcast from `x`'s (TensorFlow's
/// `broadcast_gradient_args` on the batch shapes).
fn unbroadcast_batch(g: Tensor, x: &Tensor) -> Result<Tensor> {
    let (rg, rx) = (g.rank(), x.rank());
    let axes = broadcast_axes(&x.dims()[..rx - 2], &g.dims()[..rg - 2]).unwrap_or_default();
    reshape(&sum(&g, &axes, false)?, x.dims())
}

/// The gradients of `op`'s inputs.
pub(super) fn gradient(op: LinalgOp, v: &OpView, grads: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
    let a = &v.inputs[0];
    let g = &grads[0];
    Ok(match op {
        LinalgOp::Solve { adjoint } => {
            let c = &v.outputs[0];
            let grad_b = decomp::matrix_solve(a, g, !adjoint)?;
            let grad_a = if adjoint {
                neg_matmul(c, &grad_b, false, true)?
            } else {
                neg_matmul(&grad_b, c, false, true)?
            };
            vec![Some(grad_a), Some(grad_b)]
        }
        LinalgOp::Inverse { adjoint } => {
            let ainv = &v.outputs[0];
            let inner = ops::matmul(g, ainv, adjoint, !adjoint)?;
            vec![Some(neg_matmul(ainv, &inner, !adjoint, false)?)]
        }
        LinalgOp::Determinant => {
            let c = &v.outputs[0];
            let a_adj_inv = decomp::matrix_inverse(a, true)?;
            let multipliers = as_multipliers(&mul(g, c)?)?;
            vec![Some(mul(&multipliers, &a_adj_inv)?)]
        }
        LinalgOp::LogDeterminant => {
            let grad_b = &grads[1];
            let a_adj_inv = decomp::matrix_inverse(a, true)?;
            let multipliers = as_multipliers(grad_b)?;
            vec![Some(mul(&multipliers, &a_adj_inv)?)]
        }
        LinalgOp::Cholesky => vec![Some(cholesky(&v.outputs[0], g)?)],
        LinalgOp::TriangularSolve { lower, adjoint } => {
            let b = &v.inputs[1];
            let c = &v.outputs[0];
            let grad_b = decomp::triangular_solve(a, g, lower, !adjoint)?;
            let grad_a = if adjoint {
                neg_matmul(c, &grad_b, false, true)?
            } else {
                neg_matmul(&grad_b, c, false, true)?
            };
            let grad_a = if lower {
                decomp::band_part(&grad_a, -1, 0)?
            } else {
                decomp::band_part(&grad_a, 0, -1)?
            };
            let (ra, rb) = (a.rank(), b.rank());
            if a.dims()[..ra - 2] == b.dims()[..rb - 2] {
                vec![Some(grad_a), Some(grad_b)]
            } else {
                vec![
                    Some(unbroadcast_batch(grad_a, a)?),
                    Some(unbroadcast_batch(grad_b, b)?),
                ]
            }
        }
        LinalgOp::BandPart { lower, upper } => vec![Some(decomp::band_part(g, lower, upper)?)],
    })
}

/// `_CholeskyGrad`: `l⁻ᴴ · Φ(lᴴ · grad) · l⁻¹`, symmetrised and halved.
fn cholesky(l: &Tensor, g: &Tensor) -> Result<Tensor> {
    let r = l.rank();
    let n = l.dims()[r - 1];
    let batch: Vec<i64> = l.dims()[..r - 2].iter().map(|&d| d as i64).collect();
    let eye = ops::matrix::eye_batched(n as i64, None, &batch, l.dtype(), l.device())?;
    let l_inverse = decomp::triangular_solve(l, &eye, true, false)?;
    let middle = ops::matmul(l, g, true, false)?;
    let half_diag = mul(
        &scalar(&middle, 0.5)?,
        &ops::matrix::diag_part(&middle, " name: diag_part")?,
    )?;
    let middle = ops::matrix::set_diag(&middle, &half_diag)?;
    let middle = decomp::band_part(&middle, -1, 0)?;
    let grad_a = ops::matmul(
        &ops::matmul(&l_inverse, &middle, true, false)?,
        &l_inverse,
        false,
        false,
    )?;
    let grad_a = ops::add(&grad_a, &ops::matrix::matrix_transpose(&grad_a)?)?;
    mul(&grad_a, &scalar(&grad_a, 0.5)?)
}
