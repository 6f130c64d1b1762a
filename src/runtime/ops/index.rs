//! Indexing with Python subscripts (ints, slices with steps, negative
//! indices, `...`, `None`) for both TensorFlow (`StridedSlice` errors) and
//! numpy (`IndexError`s), and numpy's copy-on-write slice assignment.

use super::elementwise::{cast, with_storage};
use super::shape_ops::broadcast_to;
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::outer_sums;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::op::Semantics;
use crate::runtime::shape::Shape;
use crate::runtime::tensor::Tensor;

/// One item of a subscript `x[a, b:c:d, ..., None]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexItem {
    /// An integer: selects one position and drops the axis.
    Int(i64),
    /// `start:stop:step`, each optional.
    Slice {
        /// Start (None: from the beginning/end depending on the step).
        start: Option<i64>,
        /// Stop (exclusive).
        stop: Option<i64>,
        /// Step (None: 1).
        step: Option<i64>,
    },
    /// `None` / `tf.newaxis`: inserts a size-1 axis.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

/// Python's `slice.indices(len)` then the positions it selects.
fn slice_positions(start: Option<i64>, stop: Option<i64>, step: i64, len: usize) -> Vec<usize> {
    let n = len as i64;
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let norm = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 => (v + n).max(lower),
        Some(v) => v.min(upper),
    };
    let s = norm(start, if step > 0 { lower } else { upper });
    let e = norm(stop, if step > 0 { upper } else { lower });
    let count = if step > 0 {
        if e > s {
            (e - s + step - 1) / step
        } else {
            0
        }
    } else if s > e {
        (s - e - step - 1) / (-step)
    } else {
        0
    };
    (0..count).map(|i| (s + i * step) as usize).collect()
}

/// Resolves a subscript into (output dims, flat source indices).
fn resolve(x: &Tensor, items: &[IndexItem], sem: Semantics) -> Result<(Shape, Vec<usize>)> {
    let rank = x.rank();
    let dev = x.device();
    let tf_fail = |m: String| {
        Error::kernel(
            ErrorKind::InvalidArgument,
            "StridedSlice",
            &dev,
            &m,
            "StridedSlice",
            " name: strided_slice/",
        )
    };
    let consuming = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice { .. }))
        .count();
    if consuming > rank {
        return Err(match sem {
            Semantics::Tf => tf_fail(format!("Index out of range using input dim {rank}; input has only {rank} dims")),
            Semantics::Numpy => Error::index_error(format!(
                "too many indices for array: array is {rank}-dimensional, but {consuming} were indexed"
            )),
        });
    }
    if items.iter().filter(|i| **i == IndexItem::Ellipsis).count() > 1 {
        return Err(Error::index_error(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    // expand the ellipsis (or append it) into full slices
    let full = IndexItem::Slice {
        start: None,
        stop: None,
        step: None,
    };
    let mut spec: Vec<(usize, IndexItem)> = Vec::new();
    let mut seen_ellipsis = false;
    for (pos, &it) in items.iter().enumerate() {
        if it == IndexItem::Ellipsis {
            seen_ellipsis = true;
            spec.extend(std::iter::repeat_n((pos, full), rank - consuming));
        } else {
            spec.push((pos, it));
        }
    }
    if !seen_ellipsis {
        spec.extend(std::iter::repeat_n((items.len(), full), rank - consuming));
    }
    let mut out_dims = Vec::new();
    let mut coords: Vec<Vec<usize>> = Vec::with_capacity(rank);
    let mut d = 0;
    for &(pos, it) in &spec {
        match it {
            IndexItem::NewAxis => out_dims.push(1),
            IndexItem::Int(i) => {
                let len = x.dims()[d];
                let j = if i < 0 { i + len as i64 } else { i };
                if j < 0 || j >= len as i64 {
                    return Err(match sem {
                        Semantics::Tf => {
                            tf_fail(format!("slice index {i} of dimension {d} out of bounds."))
                        }
                        Semantics::Numpy => Error::index_error(format!(
                            "index {i} is out of bounds for axis {d} with size {len}"
                        )),
                    });
                }
                coords.push(vec![j as usize]);
                d += 1;
            }
            IndexItem::Slice { start, stop, step } => {
                let step = step.unwrap_or(1);
                if step == 0 {
                    return Err(match sem {
                        Semantics::Tf => tf_fail(format!("strides[{pos}] must be non-zero")),
                        Semantics::Numpy => Error::value_error("slice step cannot be zero"),
                    });
                }
                let p = slice_positions(start, stop, step, x.dims()[d]);
                out_dims.push(p.len());
                coords.push(p);
                d += 1;
            }
            IndexItem::Ellipsis => {}
        }
    }
    let shape = Shape(out_dims);
    let n = shape.checked_numel()?;
    let strides = x.shape().strides();
    let offs: Vec<Vec<usize>> = coords
        .iter()
        .zip(&strides)
        .map(|(c, &s)| c.iter().map(|&p| p * s).collect())
        .collect();
    let idx = outer_sums(&offs)?;
    debug_assert_eq!(idx.len(), n);
    Ok((shape, idx))
}

/// `x[items]`: a new tensor (a copy) of the selected elements.
fn index_impl(x: &Tensor, items: &[IndexItem], sem: Semantics) -> Result<Tensor> {
    let (shape, idx) = resolve(x, items, sem)?;
    let storage = x.storage().backend().take(x.storage(), &idx)?;
    Ok(with_storage(x, shape, storage))
}

/// numpy's `x[items] = value`: `value` is cast to `x`'s dtype and broadcast
/// to the selection; `x`'s buffer is copied first if another handle shares it.
pub fn index_assign(x: &mut Tensor, items: &[IndexItem], value: &Tensor) -> Result<()> {
    let (shape, idx) = resolve(x, items, Semantics::Numpy)?;
    let v = cast(value, x.dtype())?;
    let v = match v.shape().broadcast(&shape) {
        Some(s) if s == shape => broadcast_to(&v, shape.dims())?,
        _ => {
            return Err(Error::value_error(format!(
                "could not broadcast input array from shape {} into shape {}",
                v.shape().tuple_text(),
                shape.tuple_text()
            )))
        }
    };
    let inner = x.make_mut();
    let backend = inner.storage.backend();
    backend.scatter(&mut inner.storage, &idx, v.storage())
}

/// `StridedSliceGrad`: `grad`, the gradient of `x[items]` for an `x` of
/// shape `dims`, placed into zeros of that shape; one op on the tapes (so
/// gradients of gradients and forward-mode tangents pass slices).
pub fn index_grad(dims: &[usize], items: &[IndexItem], grad: &Tensor) -> Result<Tensor> {
    tape::primitive(
        || GradOp::IndexGrad(items.to_vec(), dims.to_vec()),
        &[grad],
        || {
            let mut out = Tensor::zeros(grad.dtype(), dims, grad.device())?;
            let (shape, idx) = resolve(&out, items, Semantics::Tf)?;
            if grad.shape() != &shape {
                return Err(Error::internal(format!(
                    "StridedSliceGrad: gradient of shape {} for a slice of shape {}",
                    grad.shape(),
                    shape
                )));
            }
            let inner = out.make_mut();
            let backend = inner.storage.backend();
            backend.scatter(&mut inner.storage, &idx, grad.storage())?;
            Ok(out)
        },
    )
}

/// `x[items]`: a new tensor (a copy) of the selected elements.
pub fn index(x: &Tensor, items: &[IndexItem], sem: Semantics) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Index(items.to_vec()),
        &[x],
        || index_impl(x, items, sem),
    )
}
