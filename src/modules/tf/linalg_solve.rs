//! `tf.linalg`'s solvers and factorizations: `solve`, `inv`, `det`,
//! `slogdet`, `logdet`, `cholesky`, `cholesky_solve`, `triangular_solve`
//! and `band_part`. Registration and argument conversion only; the ops are
//! `runtime::ops::decomp`. `logdet` and `cholesky_solve` are TensorFlow's
//! Python over those ops, so the tape records their pieces.

use super::convert::{placed, runtime_err};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::op::{BinaryOp, ReduceOp, UnaryOp};
use crate::runtime::{ops, ops::decomp, Tensor};
use crate::value::{PyResult, Value, Vm};

/// Solves `matrix @ x = rhs` (`matrix` adjoint when `adjoint`) for each
/// square matrix of the batch.
///
/// ```python
/// a = tf.constant([[3., 1.], [1., 2.]])
/// print(tf.linalg.solve(a, tf.constant([[9.], [8.]])).numpy().ravel())  # [2. 3.]
/// ```
#[native("solve(matrix, rhs, adjoint=False, name=None)")]
fn solve(
    vm: &dyn Vm,
    matrix: &Value,
    rhs: &Value,
    adjoint: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let (a, b) = matching(vm, matrix, rhs)?;
    placed(vm, decomp::matrix_solve(&a, &b, vm.truthy(adjoint)?))
}

/// The inverse of each square matrix (of its adjoint when `adjoint`).
#[native("inv(input, adjoint=False, name=None)")]
fn inv(vm: &dyn Vm, input: Tensor, adjoint: &Value, _name: &Value) -> PyResult<Tensor> {
    placed(vm, decomp::matrix_inverse(&input, vm.truthy(adjoint)?))
}

/// The determinant of each square matrix.
#[native("det(input, name=None)")]
fn det(vm: &dyn Vm, input: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, decomp::determinant(&input))
}

/// The sign and the log of the absolute value of each determinant, as
/// `LogMatrixDeterminant(sign, log_abs_determinant)`.
#[native("slogdet(input, name=None)")]
fn slogdet(vm: &dyn Vm, input: Tensor, _name: &Value) -> PyResult<Value> {
    let (s, l) = decomp::log_determinant(&input).map_err(runtime_err)?;
    let s = placed(vm, Ok(s))?;
    let l = placed(vm, Ok(l))?;
    let class = crate::object::types::namedtuple::struct_class(
        "LogMatrixDeterminant",
        &["sign", "log_abs_determinant"],
        "tensorflow.python.ops.gen_linalg_ops",
    )?;
    vm.call(&class, vec![Value::Tensor(s), Value::Tensor(l)], Vec::new())
}

/// The lower-triangular Cholesky factor of each symmetric positive-definite
/// matrix (NaN where a matrix is not one, as TensorFlow gives).
#[native("cholesky(input, name=None)")]
fn cholesky(vm: &dyn Vm, input: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, decomp::cholesky(&input))
}

/// The log-determinant of each Hermitian positive-definite matrix:
/// `2 * reduce_sum(log(diag_part(cholesky(matrix))), -1)`.
#[native("logdet(matrix, name=None)")]
fn logdet(vm: &dyn Vm, matrix: Tensor, _name: &Value) -> PyResult<Tensor> {
    let r = (|| {
        let chol = decomp::cholesky(&matrix)?;
        let d = ops::matrix::diag_part(&chol, " name: diag_part")?;
        let s = ops::reduce(
            ReduceOp::Sum,
            &ops::unary(UnaryOp::Log, &d)?,
            Some(&[-1]),
            false,
        )?;
        let two = Tensor::fill(
            &[],
            &crate::runtime::dtype::Scalar::Float(2.0),
            s.dtype(),
            s.device(),
        )?;
        ops::binary(BinaryOp::Mul, &two, &s)
    })();
    placed(vm, r)
}

/// Solves `A x = rhs` given `chol`, the Cholesky factor of `A`: two
/// triangular solves.
#[native("cholesky_solve(chol, rhs, name=None)")]
fn cholesky_solve(vm: &dyn Vm, chol: &Value, rhs: &Value, _name: &Value) -> PyResult<Tensor> {
    let (l, b) = matching(vm, chol, rhs)?;
    let r = decomp::triangular_solve(&l, &b, true, false)
        .and_then(|y| decomp::triangular_solve(&l, &y, true, true));
    placed(vm, r)
}

/// Solves `matrix @ x = rhs` for triangular matrices (only the `lower`, or
/// upper, triangle is read; `adjoint` solves with its adjoint). Batch
/// dimensions broadcast.
#[native("triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None)")]
fn triangular_solve(
    vm: &dyn Vm,
    matrix: &Value,
    rhs: &Value,
    lower: &Value,
    adjoint: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let (a, b) = matching(vm, matrix, rhs)?;
    placed(
        vm,
        decomp::triangular_solve(&a, &b, vm.truthy(lower)?, vm.truthy(adjoint)?),
    )
}

/// Zeros everything outside a central band of each matrix: `num_lower`
/// subdiagonals and `num_upper` superdiagonals are kept (negative: all).
#[native("band_part(input, num_lower, num_upper, name=None)")]
fn band_part(
    vm: &dyn Vm,
    input: Tensor,
    num_lower: i64,
    num_upper: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    placed(vm, decomp::band_part(&input, num_lower, num_upper))
}

/// Adds this file's names to `tf.linalg`.
pub fn register(n: &mut ModuleBuilder) {
    n.add(solve::DEF)
        .add(inv::DEF)
        .add(det::DEF)
        .add(slogdet::DEF)
        .add(logdet::DEF)
        .add(cholesky::DEF)
        .add(cholesky_solve::DEF)
        .add(triangular_solve::DEF)
        .add(band_part::DEF);
}
