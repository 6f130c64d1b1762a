//! Matrix structure ops of `tf.linalg`: `matrix_transpose`, `diag_part`,
//! `diag`, `set_diag`, `trace`, batched `eye` and `matvec`. Gathers and scatters go
//! through the backend's `take`/`scatter`, so they run on every device.

use super::elementwise::with_storage;
use super::{expand_dims, kernel_error, matmul, reduce, squeeze, stack, transpose};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::device::Device;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::op::ReduceOp;
use crate::runtime::shape::Shape;
use crate::runtime::tensor::Tensor;

/// Swaps the last two dimensions (`tf.linalg.matrix_transpose`).
pub fn matrix_transpose(x: &Tensor) -> Result<Tensor> {
    let r = x.rank();
    if r < 2 {
        return Err(crate::runtime::error::Error::value_error(format!(
            "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {} with \
             shape: {}",
            crate::runtime::format::numpy_str(x),
            x.shape()
        )));
    }
    let mut perm: Vec<i64> = (0..r as i64).collect();
    perm.swap(r - 1, r - 2);
    transpose(x, Some(&perm))
}

/// The main diagonal of each innermost matrix (`MatrixDiagPartV3`).
fn diag_part_impl(x: &Tensor, name: &str) -> Result<Tensor> {
    let op = "MatrixDiagPartV3";
    let _trace = crate::runtime::trace::op(op, x.device());
    let r = x.rank();
    if r < 2 {
        return Err(kernel_error(
            op,
            &x.device(),
            &format!(
                "input must be at least 2-dim, received shape: {}",
                x.shape().bracket_text()
            ),
            name,
        ));
    }
    let (rows, cols) = (x.dims()[r - 2], x.dims()[r - 1]);
    let batch: usize = x.dims()[..r - 2].iter().product();
    let d = rows.min(cols);
    let mut idx = Vec::with_capacity(batch * d);
    for b in 0..batch {
        for i in 0..d {
            idx.push(b * rows * cols + i * cols + i);
        }
    }
    let mut dims = x.dims()[..r - 2].to_vec();
    dims.push(d);
    let s = x.storage().backend().take(x.storage(), &idx)?;
    Ok(with_storage(x, Shape(dims), s))
}

/// Square matrices with `v`'s innermost rows on their diagonals (`tf.linalg.diag`).
fn diag_impl(v: &Tensor) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op("MatrixDiagV3", v.device());
    if v.rank() == 0 {
        return Err(kernel_error(
            "MatrixDiagV3",
            &v.device(),
            "diagonal must be at least 1-dim, received shape: []",
            " name: diag",
        ));
    }
    let n = v.dims()[v.rank() - 1];
    let batch: usize = v.dims()[..v.rank() - 1].iter().product();
    let mut dims = v.dims().to_vec();
    dims.push(n);
    let shape = Shape(dims);
    shape.checked_numel()?;
    let mut t = Tensor::zeros(v.dtype(), shape.dims(), v.device())?;
    let mut idx = Vec::with_capacity(batch * n);
    for b in 0..batch {
        for i in 0..n {
            idx.push(b * n * n + i * n + i);
        }
    }
    let inner = t.make_mut();
    let backend = inner.storage.backend();
    backend.scatter(&mut inner.storage, &idx, v.storage())?;
    Ok(t)
}

/// The sum of each innermost matrix's diagonal (`tf.linalg.trace`).
pub fn trace(x: &Tensor) -> Result<Tensor> {
    let d = diag_part(x, " name: diag_part")?;
    reduce(ReduceOp::Sum, &d, Some(&[-1]), false)
}

/// `tf.eye(num_rows, num_columns, batch_shape, dtype)`.
pub fn eye_batched(
    rows: i64,
    cols: Option<i64>,
    batch: &[i64],
    dtype: DType,
    device: Device,
) -> Result<Tensor> {
    let cols = cols.unwrap_or(rows);
    for d in batch.iter().chain([rows, cols].iter()) {
        if *d < 0 {
            return Err(kernel_error(
                "Fill",
                &device,
                &format!("Dimension {d} must be >= 0"),
                " name: ",
            ));
        }
    }
    // the whole batch's size first, so a huge batch_shape is a MemoryError
    let mut all: Vec<usize> = batch.iter().map(|&b| b as usize).collect();
    all.extend([rows as usize, cols as usize]);
    Shape(all).checked_numel()?;
    let mut t = super::eye(rows as usize, cols as usize, dtype, device)?;
    for &b in batch.iter().rev() {
        let copies = vec![t; b as usize];
        t = if copies.is_empty() {
            let mut dims = vec![0usize];
            dims.extend_from_slice(super::eye(rows as usize, cols as usize, dtype, device)?.dims());
            Tensor::zeros(dtype, &dims, device)?
        } else {
            stack(&copies, 0)?
        };
    }
    Ok(t)
}

/// `tf.linalg.matvec(a, b)`: `a @ b[..., None]` with the last axis dropped.
pub fn matvec(a: &Tensor, b: &Tensor, transpose_a: bool) -> Result<Tensor> {
    let col = expand_dims(b, -1)?;
    let p = matmul(a, &col, transpose_a, false)?;
    squeeze(&p, Some(&[-1]))
}

/// `tf.linalg.diag_part` (the main diagonal).
pub fn diag_part(x: &Tensor, name: &str) -> Result<Tensor> {
    tape::primitive(|| GradOp::MatrixDiagPart, &[x], || diag_part_impl(x, name))
}

/// `tf.linalg.diag` (square, the main diagonal).
pub fn diag(v: &Tensor) -> Result<Tensor> {
    tape::primitive(|| GradOp::MatrixDiag, &[v], || diag_impl(v))
}

/// `MatrixSetDiagV3`'s error for a diagonal of the wrong shape.
pub fn set_diag_shape_message(input: &[usize], diagonal: &[usize], want: &[usize]) -> String {
    let text = |d: &[usize]| {
        let v: Vec<String> = d.iter().map(|n| n.to_string()).collect();
        format!("[{}]", v.join(","))
    };
    format!(
        "Either first dimensions of diagonal don't match input.shape[:-2], or \
         diagonal.shape[:-1] is not equal to the longests diagonal in range \
         [lower_diag_index:upper_diag_index].\nInput shape: {}\nDiagonal shape: {}\n\
         Expected diagonal shape: {}",
        text(input),
        text(diagonal),
        text(want)
    )
}

/// `tf.linalg.set_diag(x, diagonal)`: `x` with the main diagonal of each
/// innermost matrix replaced.
pub fn set_diag(x: &Tensor, diagonal: &Tensor) -> Result<Tensor> {
    tape::primitive(
        || GradOp::MatrixSetDiag,
        &[x, diagonal],
        || set_diag_impl(x, diagonal),
    )
}

fn set_diag_impl(x: &Tensor, diagonal: &Tensor) -> Result<Tensor> {
    let op = "MatrixSetDiagV3";
    let _trace = crate::runtime::trace::op(op, x.device());
    let r = x.rank();
    if r < 2 {
        return Err(kernel_error(
            op,
            &x.device(),
            &format!(
                "input must be at least 2-dim, received shape: {}",
                x.shape().bracket_text()
            ),
            " name: set_diag",
        ));
    }
    if diagonal.rank() == 0 {
        return Err(kernel_error(
            op,
            &x.device(),
            "diagonal must be at least 1-dim, received shape: []",
            " name: set_diag",
        ));
    }
    let mut want = x.dims()[..r - 2].to_vec();
    want.push(x.dims()[r - 2].min(x.dims()[r - 1]));
    if diagonal.dims() != want.as_slice() {
        return Err(kernel_error(
            op,
            &x.device(),
            &set_diag_shape_message(x.dims(), diagonal.dims(), &want),
            " name: set_diag",
        ));
    }
    if diagonal.dtype() != x.dtype() {
        return Err(Error::invalid_argument(format!(
            "cannot compute {op} as input #1(zero-based) was expected to be a {} tensor but is a {} tensor",
            x.dtype().name(),
            diagonal.dtype().name()
        )));
    }
    let diagonal = diagonal.to_device(x.device())?;
    let (rows, cols) = (x.dims()[r - 2], x.dims()[r - 1]);
    let batch: usize = x.dims()[..r - 2].iter().product();
    let d = rows.min(cols);
    let idx: Vec<usize> = (0..batch)
        .flat_map(|b| (0..d).map(move |i| b * rows * cols + i * cols + i))
        .collect();
    let mut t = x.clone();
    let inner = t.make_mut();
    let backend = inner.storage.backend();
    backend.scatter(&mut inner.storage, &idx, diagonal.storage())?;
    Ok(t)
}
