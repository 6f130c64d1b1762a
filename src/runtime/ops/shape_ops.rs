//! Shape ops: reshape, expand_dims, squeeze, transpose, broadcast_to,
//! tile (gathers live in `gather`, joins in `join`, range/eye in `create`). Every data movement is one
//! backend `take` (a gather of flat indices) so backends implement a single
//! copy kernel for all of them.

use super::elementwise::with_storage;
use super::kernel_error;
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::{outer_sums, permute_indices};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::Semantics;
use crate::runtime::shape::Shape;
use crate::runtime::tensor::Tensor;

pub(crate) fn take(x: &Tensor, idx: &[usize], shape: Shape) -> Result<Tensor> {
    let storage = x.storage().backend().take(x.storage(), idx)?;
    Ok(with_storage(x, shape, storage))
}

/// `tf.reshape` / `ndarray.reshape`: one dim may be -1.
pub fn reshape(x: &Tensor, dims: &[i64], sem: Semantics) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op("Reshape", x.device());
    let n = x.numel();
    let fail = |msg: String| match sem {
        Semantics::Tf => Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "Reshape",
            &x.device(),
            &msg,
            "Reshape",
            "",
        ),
        Semantics::Numpy => Error::value_error(msg),
    };
    let np_text = || {
        let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        let t = if parts.len() == 1 {
            format!("({},)", parts[0])
        } else {
            // numpy writes the requested shape without spaces: `(4,2)`
            format!("({})", parts.join(","))
        };
        format!("cannot reshape array of size {n} into shape {t}")
    };
    let unknown: Vec<usize> = dims
        .iter()
        .enumerate()
        .filter(|(_, &d)| d == -1)
        .map(|(i, _)| i)
        .collect();
    if unknown.len() > 1 {
        return Err(match sem {
            Semantics::Tf => fail(format!(
                "Only one input size may be -1, not both {} and {}",
                unknown[0], unknown[1]
            )),
            Semantics::Numpy => Error::value_error("can only specify one unknown dimension"),
        });
    }
    if let Some((i, &d)) = dims.iter().enumerate().find(|(_, &d)| d < -1) {
        return Err(match sem {
            Semantics::Tf => fail(format!("Size {i} must be non-negative, not {d}")),
            Semantics::Numpy => Error::value_error("negative dimensions not allowed"),
        });
    }
    let known: usize = dims
        .iter()
        .filter(|&&d| d >= 0)
        .map(|&d| d as usize)
        .product();
    let mut out: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(&u) = unknown.first() {
        if known == 0 || !n.is_multiple_of(known) {
            return Err(match sem {
                Semantics::Tf => fail(format!(
                    "Input to reshape is a tensor with {n} values, but the requested shape requires a multiple of {known}"
                )),
                Semantics::Numpy => Error::value_error(np_text()),
            });
        }
        out[u] = n / known;
    } else if known != n {
        return Err(match sem {
            Semantics::Tf => fail(format!(
                "Input to reshape is a tensor with {n} values, but the requested shape has {known}"
            )),
            Semantics::Numpy => Error::value_error(np_text()),
        });
    }
    crate::runtime::graph::note_reshape_free(unknown.first().copied());
    let r = x.with_shape(Shape(out));
    crate::runtime::graph::note_reshape_free(None);
    r
}

/// `tf.expand_dims`: inserts a 1 at `axis` (in `[-rank-1, rank]`).
pub fn expand_dims(x: &Tensor, axis: i64) -> Result<Tensor> {
    let a = x.shape().normalize_axis(axis, 1).ok_or_else(|| {
        kernel_error(
            "ExpandDims",
            &x.device(),
            &format!(
                "Tried to expand dim index {axis} for tensor with {} dimensions.",
                x.rank()
            ),
            " name: ",
        )
    })?;
    let mut dims = x.dims().to_vec();
    dims.insert(a, 1);
    x.with_shape_as(Shape(dims), "ExpandDims")
}

/// `tf.squeeze`: drops size-1 dims (all, or the listed ones).
pub fn squeeze(x: &Tensor, axes: Option<&[i64]>) -> Result<Tensor> {
    let dims = x.dims();
    let mut drop = vec![false; dims.len()];
    match axes {
        None => dims.iter().enumerate().for_each(|(i, &d)| drop[i] = d == 1),
        Some(list) => {
            for &ax in list {
                let a = x.shape().normalize_axis(ax, 0).ok_or_else(|| {
                    kernel_error(
                        "Squeeze",
                        &x.device(),
                        &format!(
                            "Tried to squeeze dim index {ax} for tensor with {} dimensions.",
                            dims.len()
                        ),
                        " name: ",
                    )
                })?;
                if dims[a] != 1 {
                    return Err(kernel_error(
                        "Squeeze",
                        &x.device(),
                        &format!(
                            "Can not squeeze dim[{a}], expected a dimension of 1, got {}",
                            dims[a]
                        ),
                        " name: ",
                    ));
                }
                drop[a] = true;
            }
        }
    }
    let out: Vec<usize> = dims
        .iter()
        .zip(&drop)
        .filter(|(_, &d)| !d)
        .map(|(&n, _)| n)
        .collect();
    x.with_shape_as(Shape(out), "Squeeze")
}

/// `tf.transpose(x, perm)`; `perm` None reverses the axes.
fn transpose_impl(x: &Tensor, perm: Option<&[i64]>) -> Result<Tensor> {
    let r = x.rank();
    let perm: Vec<usize> = match perm {
        None => (0..r).rev().collect(),
        Some(p) => {
            let fail = |m: String| {
                Error::kernel(
                    crate::runtime::ErrorKind::InvalidArgument,
                    "Transpose",
                    &x.device(),
                    &m,
                    "Transpose",
                    "",
                )
            };
            if p.len() != r {
                return Err(fail(format!(
                    "transpose expects a vector of size {r}. But input(1) is a vector of size {}",
                    p.len()
                )));
            }
            let mut seen = vec![false; r];
            let mut out = Vec::with_capacity(r);
            for &v in p {
                let a = if v < 0 { v + r as i64 } else { v };
                if a < 0 || a >= r as i64 {
                    return Err(fail(format!("{v} is out of range [0 .. {r})")));
                }
                seen[a as usize] = true;
                out.push(a as usize);
            }
            if let Some(missing) = seen.iter().position(|&s| !s) {
                let list: Vec<String> = p.iter().map(|v| v.to_string()).collect();
                return Err(fail(format!(
                    "{missing} is missing from {{{}}}.",
                    list.join(",")
                )));
            }
            out
        }
    };
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(x.clone());
    }
    let dims: Vec<usize> = perm.iter().map(|&p| x.dims()[p]).collect();
    // the last two axes swapped (matmul's transposes): a blocked copy
    if r >= 2
        && perm[r - 2] == r - 1
        && perm[r - 1] == r - 2
        && perm[..r - 2].iter().enumerate().all(|(i, &p)| i == p)
    {
        if let Some(h) = x.storage().host() {
            let (rows, cols) = (x.dims()[r - 2], x.dims()[r - 1]);
            let batch = x.numel() / (rows * cols).max(1);
            let data = h.transpose_last2(batch, rows, cols)?;
            let storage = crate::runtime::storage::Storage::Host(data);
            return Ok(with_storage(x, Shape(dims), storage));
        }
    }
    let idx = permute_indices(x.dims(), &perm)?;
    take(x, &idx, Shape(dims))
}

/// `tf.tile(x, multiples)`.
fn tile_impl(x: &Tensor, multiples: &[usize]) -> Result<Tensor> {
    if multiples.len() != x.rank() {
        return Err(Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "Tile",
            &x.device(),
            &format!(
                "Expected multiples argument to be a vector of length {} but got length {}",
                x.rank(),
                multiples.len()
            ),
            "Tile",
            "",
        ));
    }
    let dims: Vec<usize> = x.dims().iter().zip(multiples).map(|(d, m)| d * m).collect();
    let shape = Shape(dims);
    shape.checked_numel()?;
    let strides = x.shape().strides();
    let offs: Vec<Vec<usize>> = (0..x.rank())
        .map(|d| {
            (0..shape.0[d])
                .map(|c| c % x.dims()[d] * strides[d])
                .collect()
        })
        .collect();
    let idx = outer_sums(&offs)?;
    take(x, &idx, shape)
}

/// `tf.broadcast_to(x, shape)` / `np.broadcast_to`.
fn broadcast_to_impl(x: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let target = Shape::new(dims);
    if x.shape() == &target {
        return Ok(x.clone());
    }
    match x.shape().broadcast(&target) {
        Some(s) if s == target => {}
        // the kernel's first check (BCast::IsValid)
        None => {
            return Err(Error::kernel(
                crate::runtime::ErrorKind::InvalidArgument,
                "BroadcastTo",
                &x.device(),
                &format!(
                    "Incompatible shapes: {} vs. {}",
                    x.shape().bracket_text(),
                    target.bracket_text()
                ),
                "BroadcastTo",
                "",
            ))
        }
        Some(_) => {
            return Err(Error::kernel(
                crate::runtime::ErrorKind::InvalidArgument,
                "BroadcastTo",
                &x.device(),
                &format!(
                    "Unable to broadcast tensor of shape {} to tensor of shape {}",
                    x.shape().bracket_text(),
                    target.bracket_text()
                ),
                "BroadcastTo",
                " name: ",
            ))
        }
    }
    target.checked_numel()?;
    // a new leading axis, or one of extent 1, repeats one input position
    let off = target.rank() - x.rank();
    let strides = x.shape().strides();
    let offs: Vec<Vec<usize>> = (0..target.rank())
        .map(|d| match d.checked_sub(off) {
            Some(i) if x.dims()[i] != 1 => (0..dims[d]).map(|c| c * strides[i]).collect(),
            _ => vec![0; dims[d]],
        })
        .collect();
    let idx = outer_sums(&offs)?;
    take(x, &idx, target)
}

/// `tf.transpose(x, perm)`; `perm` None reverses the axes.
pub fn transpose(x: &Tensor, perm: Option<&[i64]>) -> Result<Tensor> {
    let out = transpose_impl(x, perm)?;
    let gop = || {
        let r = x.rank() as i64;
        GradOp::Transpose(match perm {
            None => (0..x.rank()).rev().collect(),
            Some(p) => p
                .iter()
                .map(|&i| (if i < 0 { i + r } else { i }) as usize)
                .collect(),
        })
    };
    tape::record(gop, &[x], &[&out]);
    Ok(out)
}

/// `tf.tile(x, multiples)`.
pub fn tile(x: &Tensor, multiples: &[usize]) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Tile(multiples.to_vec()),
        &[x],
        || tile_impl(x, multiples),
    )
}

/// `tf.broadcast_to(x, shape)`.
pub fn broadcast_to(x: &Tensor, dims: &[usize]) -> Result<Tensor> {
    tape::primitive(|| GradOp::BroadcastTo, &[x], || broadcast_to_impl(x, dims))
}
