//! Matrix products: `tf.matmul` for 2-D and batched operands (batch dims
//! broadcast), with TensorFlow's (oneDNN build) error texts.

use super::attr_error;
use super::shape_ops::{broadcast_to, transpose};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::MatMulDims;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::shape::Shape;
use crate::runtime::tensor::Tensor;

fn swap_last(x: &Tensor) -> Result<Tensor> {
    let r = x.rank() as i64;
    let mut perm: Vec<i64> = (0..r).collect();
    perm.swap(r as usize - 1, r as usize - 2);
    transpose(x, Some(&perm))
}

/// `tf.matmul(a, b, transpose_a, transpose_b)`.
fn matmul_impl(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op("MatMul", a.device());
    let batched = a.rank() > 2 || b.rank() > 2;
    // TensorFlow runs float matmuls through its MKL kernels (node names
    // `__Mkl…`) and integer ones through the plain kernel, whose rank check
    // reads differently
    let mkl = a.dtype().is_floating();
    let (node, op) = match (batched, mkl) {
        (true, true) => ("__MklBatchMatMulV2", "BatchMatMulV2"),
        (true, false) => ("BatchMatMulV2", "BatchMatMulV2"),
        (false, true) => ("__MklMatMul", "MatMul"),
        (false, false) => ("MatMul", "MatMul"),
    };
    if a.dtype() != b.dtype() {
        // the MKL rewrite names the node `_MklMatMul` in this message
        let node = if mkl {
            format!("_Mkl{op}")
        } else {
            op.to_string()
        };
        return Err(Error::invalid_argument(format!(
            "cannot compute {node} as input #1(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{op}] name: ",
            a.dtype().kernel_name(),
            b.dtype().kernel_name()
        )));
    }
    if matches!(
        a.dtype(),
        DType::Bool | DType::Int8 | DType::Int16 | DType::String
    ) {
        return Err(attr_error("MatMul", a.dtype()));
    }
    let dev = a.device();
    let fail = |m: String| Error::kernel(ErrorKind::InvalidArgument, node, &dev, &m, op, " name: ");
    if !batched && !mkl && (a.rank() != 2 || b.rank() != 2) {
        let r = if a.rank() != 2 { a.rank() } else { b.rank() };
        return Err(fail(format!("In[0] and In[1] ndims must be == 2: {r}")));
    }
    for (i, t) in [a, b].iter().enumerate() {
        if t.rank() < 2 {
            return Err(fail(format!("In[{i}] ndims must be >= 2")));
        }
    }
    // a backend that reads transposed operands in place gets them as they
    // are; for the others they are transposed first
    let in_place = a.storage().backend().matmul_reads_transposed();
    let (a2, ta) = match transpose_a {
        true if !in_place => (swap_last(a)?, false),
        t => (a.clone(), t),
    };
    let (b2, tb) = match transpose_b {
        true if !in_place => (swap_last(b)?, false),
        t => (b.clone(), t),
    };
    let (ar, br) = (a2.rank(), b2.rank());
    // the stored matrices' rows and columns
    let (a_rows, a_cols) = (a2.dims()[ar - 2], a2.dims()[ar - 1]);
    let (b_rows, b_cols) = (b2.dims()[br - 2], b2.dims()[br - 1]);
    let (m, k) = if ta {
        (a_cols, a_rows)
    } else {
        (a_rows, a_cols)
    };
    let (k2, n) = if tb {
        (b_cols, b_rows)
    } else {
        (b_rows, b_cols)
    };
    let a_batch = Shape::new(&a2.dims()[..ar - 2]);
    let b_batch = Shape::new(&b2.dims()[..br - 2]);
    let batch = a_batch.broadcast(&b_batch).ok_or_else(|| {
        fail(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
            a.shape().bracket_text(),
            b.shape().bracket_text()
        ))
    })?;
    if k != k2 {
        let suffix = if batched { " 0 0" } else { "" };
        return Err(fail(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {}{suffix}",
            a.shape().bracket_text(),
            b.shape().bracket_text()
        )));
    }
    let nb = batch.numel();
    let expand = |t: &Tensor, own: &Shape, rows: usize, cols: usize| -> Result<(Tensor, usize)> {
        if own.numel() == 1 {
            return Ok((t.clone(), 0));
        }
        if own == &batch {
            return Ok((t.clone(), rows * cols));
        }
        let mut dims = batch.0.clone();
        dims.extend([rows, cols]);
        Ok((broadcast_to(t, &dims)?, rows * cols))
    };
    let (a3, sa) = expand(&a2, &a_batch, a_rows, a_cols)?;
    let (b3, sb) = expand(&b2, &b_batch, b_rows, b_cols)?;
    let mut out_dims = batch.0.clone();
    out_dims.extend([m, n]);
    let out = Shape(out_dims);
    out.checked_numel()?;
    let dims = MatMulDims {
        batch: nb,
        m,
        k,
        n,
        lhs_batch_stride: sa,
        rhs_batch_stride: sb,
        transpose_a: ta,
        transpose_b: tb,
    };
    let storage = a3
        .storage()
        .backend()
        .matmul(a3.storage(), b3.storage(), dims)?;
    Ok(Tensor::from_parts(a.dtype(), out, storage, a.device()))
}

/// `tf.matmul(a, b, transpose_a, transpose_b)`.
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    tape::primitive(
        || GradOp::MatMul {
            ta: transpose_a,
            tb: transpose_b,
        },
        &[a, b],
        || matmul_impl(a, b, transpose_a, transpose_b),
    )
}
