//! The dense linear-algebra ops of `tf.linalg`: `MatrixSolve`,
//! `MatrixInverse`, `MatrixDeterminant`, `LogMatrixDeterminant`,
//! `Cholesky`, `MatrixTriangularSolve` and `MatrixBandPart`, with
//! TensorFlow's shape checks and messages (`LinearAlgebraOp`'s batch rules:
//! the same batch dimensions on every input, except the triangular solve,
//! which broadcasts them as `MatMul` does). Each matrix is factored in host
//! memory (`backend/cpu/linalg.rs`, a GPU tensor copied there and back),
//! float32 and float64; float16 and the complex types, which TensorFlow
//! also takes, are a NotImplementedError. The gradients are
//! `autodiff/grad_linalg.rs`.

use super::{kernel_error, scan::host_of};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::linalg::{self as k, Real};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{filled, Elem};
use crate::runtime::tensor::Tensor;

/// One of the ops, with its attributes (a `GradOp::Linalg` payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinalgOp {
    /// `MatrixSolve`; inputs `matrix, rhs`.
    Solve {
        /// `adjoint`.
        adjoint: bool,
    },
    /// `MatrixInverse`.
    Inverse {
        /// `adjoint`.
        adjoint: bool,
    },
    /// `MatrixDeterminant`.
    Determinant,
    /// `LogMatrixDeterminant`; outputs `sign, log_abs_determinant`.
    LogDeterminant,
    /// `Cholesky`.
    Cholesky,
    /// `MatrixTriangularSolve`; inputs `matrix, rhs`.
    TriangularSolve {
        /// `lower`.
        lower: bool,
        /// `adjoint`.
        adjoint: bool,
    },
    /// `MatrixBandPart` with `num_lower`, `num_upper` (negative: all).
    BandPart {
        /// `num_lower`.
        lower: i64,
        /// `num_upper`.
        upper: i64,
    },
}

impl LinalgOp {
    /// TensorFlow's op name.
    pub fn name(self) -> &'static str {
        match self {
            LinalgOp::Solve { .. } => "MatrixSolve",
            LinalgOp::Inverse { .. } => "MatrixInverse",
            LinalgOp::Determinant => "MatrixDeterminant",
            LinalgOp::LogDeterminant => "LogMatrixDeterminant",
            LinalgOp::Cholesky => "Cholesky",
            LinalgOp::TriangularSolve { .. } => "MatrixTriangularSolve",
            LinalgOp::BandPart { .. } => "MatrixBandPart",
        }
    }

    /// Runs the op again on `ins` (graph replay).
    pub fn replay(self, ins: &[Tensor]) -> Result<Vec<Tensor>> {
        let arg = |i: usize| {
            ins.get(i).ok_or_else(|| {
                Error::internal(format!("graph replay: {} lacks an input", self.name()))
            })
        };
        Ok(match self {
            LinalgOp::Solve { adjoint } => vec![matrix_solve(arg(0)?, arg(1)?, adjoint)?],
            LinalgOp::Inverse { adjoint } => vec![matrix_inverse(arg(0)?, adjoint)?],
            LinalgOp::Determinant => vec![determinant(arg(0)?)?],
            LinalgOp::LogDeterminant => {
                let (s, l) = log_determinant(arg(0)?)?;
                vec![s, l]
            }
            LinalgOp::Cholesky => vec![cholesky(arg(0)?)?],
            LinalgOp::TriangularSolve { lower, adjoint } => {
                vec![triangular_solve(arg(0)?, arg(1)?, lower, adjoint)?]
            }
            LinalgOp::BandPart { lower, upper } => vec![band_part(arg(0)?, lower, upper)?],
        })
    }
}

fn fail(op: &str, x: &Tensor, msg: &str) -> Error {
    kernel_error(op, &x.device(), msg, " name: ")
}

/// TensorFlow's dtype rules: float32/float64 run, float16 and complex are
/// TensorFlow's but not dist's, anything else is the attr error.
fn check_dtype(op: &str, x: &Tensor) -> Result<()> {
    match x.dtype() {
        DType::Float32 | DType::Float64 => Ok(()),
        d @ (DType::Float16 | DType::Complex64 | DType::Complex128) => Err(unsupported(op, d)),
        d => Err(super::attr_error(op, d)),
    }
}

fn unsupported(op: &str, d: DType) -> Error {
    Error::unimplemented(format!(
        "dist: {op} of {} is not implemented (float32 and float64 are)",
        d.name()
    ))
}

/// `LinearAlgebraOp`'s checks of its inputs: the first of rank 2 or more,
/// the others of its rank and batch dimensions.
fn check_inputs(op: &str, ins: &[&Tensor]) -> Result<()> {
    let x = ins[0];
    if x.rank() < 2 {
        return Err(fail(
            op,
            x,
            &format!("Input tensor 0 must have rank >= 2, got {}", x.rank()),
        ));
    }
    let r = x.rank();
    for y in &ins[1..] {
        if y.rank() != r {
            return Err(fail(op, x, "All input tensors must have the same rank."));
        }
        if y.dims()[..r - 2] != x.dims()[..r - 2] {
            return Err(fail(
                op,
                x,
                "All input tensors must have the same outer dimensions.",
            ));
        }
    }
    Ok(())
}

fn check_square(op: &str, x: &Tensor) -> Result<usize> {
    let r = x.rank();
    let (m, n) = (x.dims()[r - 2], x.dims()[r - 1]);
    if m != n {
        return Err(fail(op, x, "Input matrix must be square."));
    }
    Ok(n)
}

fn matching(op: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(Error::invalid_argument(format!(
            "cannot compute {op} as input #1(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{op}] name: ",
            a.dtype().kernel_name(),
            b.dtype().kernel_name()
        )));
    }
    Ok(())
}

fn typed<T: Elem>(x: &Tensor) -> Result<Vec<T>> {
    let h = host_of(x)?;
    T::slice(&h)
        .map(<[T]>::to_vec)
        .ok_or_else(|| Error::internal("linalg: unexpected element type"))
}

fn tensor<T: Elem>(v: Vec<T>, dims: &[usize], like: &Tensor) -> Result<Tensor> {
    Tensor::from_host(T::wrap(v), Shape::new(dims), like.device())
}

/// Runs `$f::<T>(args)` for a float32 or float64 `$x`.
macro_rules! real {
    ($x:expr, $f:ident ( $($arg:expr),* )) => {
        match $x.dtype() {
            DType::Float64 => $f::<f64>($($arg),*),
            _ => $f::<f32>($($arg),*),
        }
    };
}

fn solve_t<T: Real + Elem>(a: &Tensor, b: &Tensor, adjoint: bool, inverse: bool) -> Result<Tensor> {
    let op = if inverse {
        "MatrixInverse"
    } else {
        "MatrixSolve"
    };
    let r = a.rank();
    let n = a.dims()[r - 1];
    let kcols = if inverse { n } else { b.dims()[r - 1] };
    let batch: usize = a.dims()[..r - 2].iter().product();
    let av = typed::<T>(a)?;
    let mut out = if inverse {
        let mut v = filled(batch * n * n, T::ZERO)?;
        for m in 0..batch {
            for i in 0..n {
                v[m * n * n + i * n + i] = T::ONE;
            }
        }
        v
    } else {
        typed::<T>(b)?
    };
    if n > 0 && kcols > 0 {
        let mut lu = filled(n * n, T::ZERO)?;
        for m in 0..batch {
            let src = &av[m * n * n..(m + 1) * n * n];
            for i in 0..n {
                for j in 0..n {
                    lu[i * n + j] = if adjoint {
                        src[j * n + i]
                    } else {
                        src[i * n + j]
                    };
                }
            }
            let (trans, _) = k::lu_in_place(&mut lu, n);
            if !k::invertible(&lu, n) {
                let msg = if inverse {
                    "Input is not invertible."
                } else {
                    "Input matrix is not invertible."
                };
                return Err(fail(op, a, msg));
            }
            let rhs = &mut out[m * n * kcols..(m + 1) * n * kcols];
            k::lu_solve(&lu, &trans, rhs, n, kcols);
        }
    }
    let mut dims = a.dims()[..r - 2].to_vec();
    dims.extend([n, kcols]);
    tensor(out, &dims, a)
}

/// `tf.linalg.solve(matrix, rhs, adjoint)` (`MatrixSolve`).
pub fn matrix_solve(a: &Tensor, b: &Tensor, adjoint: bool) -> Result<Tensor> {
    const OP: &str = "MatrixSolve";
    let _trace = crate::runtime::trace::op(OP, a.device());
    matching(OP, a, b)?;
    check_dtype(OP, a)?;
    check_inputs(OP, &[a, b])?;
    let r = a.rank();
    let n = a.dims()[r - 1];
    if a.dims()[r - 2] != n {
        return Err(fail(OP, a, "First input (lhs) must be a square matrix."));
    }
    if b.dims()[r - 2] != n {
        return Err(fail(OP, a, "Input matrix and rhs are incompatible."));
    }
    let out = real!(a, solve_t(a, b, adjoint, false))?;
    tape::record(
        || GradOp::Linalg(LinalgOp::Solve { adjoint }),
        &[a, b],
        &[&out],
    );
    Ok(out)
}

/// `tf.linalg.inv(input, adjoint)` (`MatrixInverse`).
pub fn matrix_inverse(a: &Tensor, adjoint: bool) -> Result<Tensor> {
    const OP: &str = "MatrixInverse";
    let _trace = crate::runtime::trace::op(OP, a.device());
    check_dtype(OP, a)?;
    check_inputs(OP, &[a])?;
    check_square(OP, a)?;
    let out = real!(a, solve_t(a, a, adjoint, true))?;
    tape::record(
        || GradOp::Linalg(LinalgOp::Inverse { adjoint }),
        &[a],
        &[&out],
    );
    Ok(out)
}

/// The sign and log|det| of each matrix.
fn slogdet_t<T: Real + Elem>(a: &Tensor) -> Result<(Vec<T>, Vec<T>)> {
    let r = a.rank();
    let n = a.dims()[r - 1];
    let batch: usize = a.dims()[..r - 2].iter().product();
    let av = typed::<T>(a)?;
    let (mut signs, mut logs) = (filled(batch, T::ONE)?, filled(batch, T::ZERO)?);
    let mut lu = filled(n * n, T::ZERO)?;
    for m in 0..batch {
        lu.copy_from_slice(&av[m * n * n..(m + 1) * n * n]);
        let (s, l) = k::slogdet(&mut lu, n);
        signs[m] = s;
        logs[m] = l;
    }
    Ok((signs, logs))
}

fn det_t<T: Real + Elem>(a: &Tensor) -> Result<Tensor> {
    let (s, l) = slogdet_t::<T>(a)?;
    let d: Vec<T> = s.iter().zip(&l).map(|(&s, &l)| s * l.sexp()).collect();
    tensor(d, &a.dims()[..a.rank() - 2], a)
}

fn log_det_t<T: Real + Elem>(a: &Tensor) -> Result<(Tensor, Tensor)> {
    let (s, l) = slogdet_t::<T>(a)?;
    let dims = &a.dims()[..a.rank() - 2];
    Ok((tensor(s, dims, a)?, tensor(l, dims, a)?))
}

/// `tf.linalg.det` (`MatrixDeterminant`): TensorFlow's `sign · exp(log|det|)`.
pub fn determinant(a: &Tensor) -> Result<Tensor> {
    const OP: &str = "MatrixDeterminant";
    let _trace = crate::runtime::trace::op(OP, a.device());
    check_dtype(OP, a)?;
    check_inputs(OP, &[a])?;
    check_square(OP, a)?;
    let out = real!(a, det_t(a))?;
    tape::record(|| GradOp::Linalg(LinalgOp::Determinant), &[a], &[&out]);
    Ok(out)
}

/// `tf.linalg.slogdet` (`LogMatrixDeterminant`): `(sign, log|det|)`.
pub fn log_determinant(a: &Tensor) -> Result<(Tensor, Tensor)> {
    const OP: &str = "LogMatrixDeterminant";
    let _trace = crate::runtime::trace::op(OP, a.device());
    check_dtype(OP, a)?;
    check_inputs(OP, &[a])?;
    check_square(OP, a)?;
    let (s, l) = real!(a, log_det_t(a))?;
    tape::record(|| GradOp::Linalg(LinalgOp::LogDeterminant), &[a], &[&s, &l]);
    Ok((s, l))
}

fn cholesky_t<T: Real + Elem>(a: &Tensor) -> Result<Tensor> {
    let r = a.rank();
    let n = a.dims()[r - 1];
    let batch: usize = a.dims()[..r - 2].iter().product();
    let av = typed::<T>(a)?;
    let mut out = filled(batch * n * n, T::ZERO)?;
    for m in 0..batch {
        let span = m * n * n..(m + 1) * n * n;
        k::cholesky(&av[span.clone()], &mut out[span], n);
    }
    tensor(out, a.dims(), a)
}

/// `tf.linalg.cholesky` (`Cholesky`). A matrix that is not positive
/// definite gives NaN in its lower triangle, as TensorFlow 2.21's kernel
/// does (its upper triangle, which TensorFlow leaves unwritten, is 0 here).
pub fn cholesky(a: &Tensor) -> Result<Tensor> {
    const OP: &str = "Cholesky";
    let _trace = crate::runtime::trace::op(OP, a.device());
    check_dtype(OP, a)?;
    check_inputs(OP, &[a])?;
    check_square(OP, a)?;
    let out = real!(a, cholesky_t(a))?;
    tape::record(|| GradOp::Linalg(LinalgOp::Cholesky), &[a], &[&out]);
    Ok(out)
}

/// The flat index of batch position `at` (of `out`'s batch shape) in a
/// batch shape `own` broadcast to it.
fn source_batch(mut at: usize, out: &[usize], own: &[usize]) -> usize {
    let lead = out.len() - own.len();
    let (mut idx, mut stride) = (0, 1);
    for ax in (0..out.len()).rev() {
        let c = at % out[ax].max(1);
        at /= out[ax].max(1);
        if ax >= lead {
            let d = own[ax - lead];
            if d != 1 {
                idx += c * stride;
            }
            stride *= d;
        }
    }
    idx
}

fn tri_t<T: Real + Elem>(
    a: &Tensor,
    b: &Tensor,
    batch: &[usize],
    lower: bool,
    adjoint: bool,
) -> Result<Tensor> {
    let (ra, rb) = (a.rank(), b.rank());
    let n = a.dims()[ra - 1];
    let kcols = b.dims()[rb - 1];
    let (a_batch, b_batch) = (&a.dims()[..ra - 2], &b.dims()[..rb - 2]);
    let mut dims = batch.to_vec();
    dims.extend([n, kcols]);
    let total = Shape::new(&dims).checked_numel()?;
    let (av, bv) = (typed::<T>(a)?, typed::<T>(b)?);
    let mut out = filled(total, T::ZERO)?;
    let nb: usize = batch.iter().product();
    let per = n * kcols;
    for m in 0..nb {
        let ia = source_batch(m, batch, a_batch);
        let ib = source_batch(m, batch, b_batch);
        let dst = &mut out[m * per..(m + 1) * per];
        dst.copy_from_slice(&bv[ib * per..(ib + 1) * per]);
        k::triangular_solve(
            &av[ia * n * n..(ia + 1) * n * n],
            dst,
            n,
            kcols,
            lower,
            adjoint,
            false,
        );
    }
    tensor(out, &dims, a)
}

/// `tf.linalg.triangular_solve(matrix, rhs, lower, adjoint)`
/// (`MatrixTriangularSolve`; batch dimensions broadcast). Only the `lower`
/// (or upper) triangle of `matrix` is read.
pub fn triangular_solve(a: &Tensor, b: &Tensor, lower: bool, adjoint: bool) -> Result<Tensor> {
    const OP: &str = "MatrixTriangularSolve";
    let _trace = crate::runtime::trace::op(OP, a.device());
    matching(OP, a, b)?;
    check_dtype(OP, a)?;
    for (i, t) in [a, b].iter().enumerate() {
        if t.rank() < 2 {
            return Err(fail(
                OP,
                a,
                &format!("In[{i}] ndims must be >= 2: {}", t.rank()),
            ));
        }
    }
    let (ra, rb) = (a.rank(), b.rank());
    let a_batch = Shape::new(&a.dims()[..ra - 2]);
    let b_batch = Shape::new(&b.dims()[..rb - 2]);
    let batch = a_batch.broadcast(&b_batch).ok_or_else(|| {
        fail(
            OP,
            a,
            &format!(
                "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
                a.shape().bracket_text(),
                b.shape().bracket_text()
            ),
        )
    })?;
    let (m, n) = (a.dims()[ra - 2], a.dims()[ra - 1]);
    if m != n {
        return Err(fail(
            OP,
            a,
            &format!("In[0] matrices in the last dimensions must be square ({n} =/= {m})"),
        ));
    }
    if b.dims()[rb - 2] != n {
        return Err(fail(
            OP,
            a,
            &format!(
                "In[0] mismatch In[1] shape: {n} vs. {}: {} {} {} {}",
                b.dims()[rb - 2],
                a.shape().bracket_text(),
                b.shape().bracket_text(),
                u8::from(lower),
                u8::from(adjoint)
            ),
        ));
    }
    let out = real!(a, tri_t(a, b, &batch.0, lower, adjoint))?;
    tape::record(
        || GradOp::Linalg(LinalgOp::TriangularSolve { lower, adjoint }),
        &[a, b],
        &[&out],
    );
    Ok(out)
}

fn band_t<T: Elem + Default>(x: &Tensor, lower: i64, upper: i64) -> Result<Tensor> {
    let h = host_of(x)?;
    let v = T::slice(&h).ok_or_else(|| Error::internal("band_part: unexpected element type"))?;
    let r = x.rank();
    let (rows, cols) = (x.dims()[r - 2], x.dims()[r - 1]);
    let mut out = v.to_vec();
    let zero = T::default();
    for (p, o) in out.iter_mut().enumerate() {
        let (i, j) = (
            ((p / cols.max(1)) % rows.max(1)) as i64,
            (p % cols.max(1)) as i64,
        );
        let keep = (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
        if !keep {
            *o = zero;
        }
    }
    tensor(out, x.dims(), x)
}

/// `tf.linalg.band_part(input, num_lower, num_upper)` (`MatrixBandPart`):
/// the band of each matrix, zeros outside it.
pub fn band_part(x: &Tensor, lower: i64, upper: i64) -> Result<Tensor> {
    const OP: &str = "MatrixBandPart";
    let _trace = crate::runtime::trace::op(OP, x.device());
    if x.rank() < 2 {
        return Err(fail(
            OP,
            x,
            &format!(
                "input must be at least 2-dim, received shape: {}",
                x.shape().bracket_text()
            ),
        ));
    }
    let r = x.rank();
    let (rows, cols) = (x.dims()[r - 2] as i64, x.dims()[r - 1] as i64);
    if lower > rows {
        return Err(fail(
            OP,
            x,
            &format!("num_lower must be negative or less or equal to number of rows ({rows}) got: {lower}"),
        ));
    }
    if upper > cols {
        return Err(fail(
            OP,
            x,
            &format!("num_upper must be negative or less or equal to number of columns ({cols}) got: {upper}"),
        ));
    }
    let out = match x.dtype() {
        DType::Float32 => band_t::<f32>(x, lower, upper),
        DType::Float64 => band_t::<f64>(x, lower, upper),
        DType::Int32 => band_t::<i32>(x, lower, upper),
        DType::Int64 => band_t::<i64>(x, lower, upper),
        DType::Bool => band_t::<bool>(x, lower, upper),
        d => Err(Error::unimplemented(format!(
            "dist: MatrixBandPart of {} is not implemented",
            d.name()
        ))),
    }?;
    tape::record(
        || GradOp::Linalg(LinalgOp::BandPart { lower, upper }),
        &[x],
        &[&out],
    );
    Ok(out)
}
