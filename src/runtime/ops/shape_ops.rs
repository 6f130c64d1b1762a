//! Shape ops: reshape, expand_dims, squeeze, transpose, concat, stack,
//! unstack, split, tile, gather, range, eye. Every data movement is one
//! backend `take` (a gather of flat indices) so backends implement a single
//! copy kernel for all of them.

use super::elementwise::with_storage;
use super::{dtype_mismatch, kernel_error};
use crate::runtime::backend::cpu::permute_indices;
use crate::runtime::device::Device;
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::Semantics;
use crate::runtime::shape::Shape;
use crate::runtime::storage::{try_vec, HostData};
use crate::runtime::tensor::Tensor;

fn take(x: &Tensor, idx: &[usize], shape: Shape) -> Result<Tensor> {
    let storage = x.storage().backend().take(x.storage(), idx)?;
    Ok(with_storage(x, shape, storage))
}

/// `tf.reshape` / `ndarray.reshape`: one dim may be -1.
pub fn reshape(x: &Tensor, dims: &[i64], sem: Semantics) -> Result<Tensor> {
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
            format!("({})", parts.join(", "))
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
    x.with_shape(Shape(out))
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
    x.with_shape(Shape(dims))
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
    x.with_shape(Shape(out))
}

/// `tf.transpose(x, perm)`; `perm` None reverses the axes.
pub fn transpose(x: &Tensor, perm: Option<&[i64]>) -> Result<Tensor> {
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
    let idx = permute_indices(x.dims(), &perm)?;
    let dims: Vec<usize> = perm.iter().map(|&p| x.dims()[p]).collect();
    take(x, &idx, Shape(dims))
}

/// `tf.concat(values, axis)`.
pub fn concat(ts: &[Tensor], axis: i64) -> Result<Tensor> {
    let first = ts.first().ok_or_else(|| {
        Error::value_error(
            "List argument 'values' to 'ConcatV2' Op with length 0 shorter than minimum length 2.",
        )
    })?;
    let node = format!("ConcatV2_N_{}", ts.len());
    let dev = first.device();
    for (i, t) in ts.iter().enumerate().skip(1) {
        if t.dtype() != first.dtype() {
            return Err(dtype_mismatch(
                "ConcatV2",
                i,
                first.dtype(),
                t.dtype(),
                " name: concat",
            ));
        }
    }
    if ts.len() == 1 {
        return Ok(first.clone());
    }
    let fail = |m: String| {
        Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            &node,
            &dev,
            &m,
            "ConcatV2",
            " name: concat",
        )
    };
    let r = first.rank() as i64;
    if r == 0 {
        // TensorFlow's ConcatOp checks for scalars before the axis
        return Err(fail("ConcatOp : Can't concatenate scalars (use tf.stack instead)".to_string()));
    }
    if axis < -r || axis >= r {
        return Err(fail(format!(
            "ConcatOp : Expected concatenating dimensions in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    let a = if axis < 0 { axis + r } else { axis } as usize;
    for (i, t) in ts.iter().enumerate().skip(1) {
        if t.rank() != first.rank() {
            return Err(fail(format!(
                "ConcatOp : Ranks of all input tensors should match: shape[0] = {} vs. shape[{i}] = {}",
                first.shape().bracket_text(),
                t.shape().bracket_text()
            )));
        }
        for d in 0..first.rank() {
            if d != a && t.dims()[d] != first.dims()[d] {
                return Err(fail(format!(
                    "ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = {} vs. shape[{i}] = {}",
                    first.shape().bracket_text(),
                    t.shape().bracket_text()
                )));
            }
        }
    }
    let outer: usize = first.dims()[..a].iter().product();
    let inners: Vec<usize> = ts.iter().map(|t| t.dims()[a..].iter().product()).collect();
    let mut dims = first.dims().to_vec();
    dims[a] = ts.iter().map(|t| t.dims()[a]).sum();
    let total: usize = ts.iter().map(|t| t.numel()).sum();
    let parts: Vec<&crate::runtime::storage::Storage> = ts.iter().map(|t| t.storage()).collect();
    let backend = first.storage().backend();
    let joined = backend.concat(&parts)?;
    if outer == 1 {
        return Ok(with_storage(first, Shape(dims), joined));
    }
    let mut bases = Vec::with_capacity(ts.len());
    let mut acc = 0;
    for t in ts {
        bases.push(acc);
        acc += t.numel();
    }
    let mut idx = try_vec(total)?;
    for o in 0..outer {
        for (k, &inner) in inners.iter().enumerate() {
            let start = bases[k] + o * inner;
            idx.extend(start..start + inner);
        }
    }
    let storage = backend.take(&joined, &idx)?;
    Ok(with_storage(first, Shape(dims), storage))
}

/// `tf.stack(values, axis)`.
pub fn stack(ts: &[Tensor], axis: i64) -> Result<Tensor> {
    let first = ts.first().ok_or_else(|| {
        Error::value_error(
            "List argument 'values' to 'Pack' Op with length 0 shorter than minimum length 1.",
        )
    })?;
    let r = first.rank() as i64 + 1;
    if axis < -r || axis >= r {
        return Err(Error::value_error(format!(
            "Argument `axis` = {axis} not in range [{}, {r})",
            -r
        )));
    }
    for (i, t) in ts.iter().enumerate().skip(1) {
        if t.dtype() != first.dtype() {
            return Err(dtype_mismatch(
                "Pack",
                i,
                first.dtype(),
                t.dtype(),
                " name: stack",
            ));
        }
        if t.shape() != first.shape() {
            return Err(Error::kernel(
                crate::runtime::ErrorKind::InvalidArgument,
                &format!("Pack_N_{}", ts.len()),
                &first.device(),
                &format!(
                    "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {}",
                    first.shape().bracket_text(),
                    t.shape().bracket_text()
                ),
                "Pack",
                " name: stack",
            ));
        }
    }
    let expanded: Vec<Tensor> = ts
        .iter()
        .map(|t| expand_dims(t, axis))
        .collect::<Result<_>>()?;
    if expanded.len() == 1 {
        return Ok(expanded[0].clone());
    }
    concat(&expanded, axis)
}

/// `tf.unstack(x, axis)`: the slices along `axis`.
pub fn unstack(x: &Tensor, axis: i64) -> Result<Vec<Tensor>> {
    let r = x.rank() as i64;
    if axis < -r || axis >= r {
        return Err(Error::value_error(format!(
            "Argument `axis` = {axis} not in range [{}, {r})",
            -r
        )));
    }
    let a = if axis < 0 { axis + r } else { axis } as usize;
    let n = x.dims()[a];
    let parts = split_sizes(x, &vec![1; n], a)?;
    parts
        .iter()
        .map(|p| squeeze(p, Some(&[a as i64])))
        .collect()
}

fn split_sizes(x: &Tensor, sizes: &[usize], a: usize) -> Result<Vec<Tensor>> {
    let outer: usize = x.dims()[..a].iter().product();
    let inner: usize = x.dims()[a + 1..].iter().product();
    let len = x.dims()[a];
    let mut out = Vec::with_capacity(sizes.len());
    let mut start = 0;
    for &s in sizes {
        let mut idx = try_vec(outer * s * inner)?;
        for o in 0..outer {
            let base = (o * len + start) * inner;
            idx.extend(base..base + s * inner);
        }
        let mut dims = x.dims().to_vec();
        dims[a] = s;
        out.push(take(x, &idx, Shape(dims))?);
        start += s;
    }
    Ok(out)
}

/// How `tf.split` divides an axis.
#[derive(Debug, Clone)]
pub enum SplitSpec {
    /// `num_or_size_splits` as an int: equal parts.
    Count(usize),
    /// `num_or_size_splits` as a list: one size per part, one of them may be -1.
    Sizes(Vec<i64>),
}

/// `tf.split(x, num_or_size_splits, axis)`.
pub fn split(x: &Tensor, spec: &SplitSpec, axis: i64) -> Result<Vec<Tensor>> {
    let a = x.shape().normalize_axis(axis, 0).ok_or_else(|| {
        Error::invalid_argument(format!("-{r} <= axis < {r} Got {axis}", r = x.rank()))
    })?;
    let len = x.dims()[a];
    match spec {
        SplitSpec::Count(k) => {
            if *k == 0 || !len.is_multiple_of(*k) {
                return Err(Error::kernel(
                    crate::runtime::ErrorKind::InvalidArgument,
                    &format!("Split_num_split_{k}"),
                    &x.device(),
                    &format!(
                        "Number of ways to split should evenly divide the split dimension, but got split_dim {a} (size = {len}) and num_split {k}"
                    ),
                    "Split",
                    " name: split",
                ));
            }
            split_sizes(x, &vec![len / k; *k], a)
        }
        SplitSpec::Sizes(sizes) => {
            let known: i64 = sizes.iter().filter(|&&s| s >= 0).sum();
            let unknown = sizes.iter().filter(|&&s| s == -1).count();
            let ok = (unknown == 0 && known == len as i64) || (unknown == 1 && known <= len as i64);
            if !ok || sizes.iter().any(|&s| s < -1) {
                return Err(Error::kernel(
                    crate::runtime::ErrorKind::InvalidArgument,
                    &format!("SplitV_num_split_{}", sizes.len()),
                    &x.device(),
                    &format!(
                        "Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: {known}"
                    ),
                    "SplitV",
                    " name: split",
                ));
            }
            let resolved: Vec<usize> = sizes
                .iter()
                .map(|&s| {
                    if s == -1 {
                        (len as i64 - known) as usize
                    } else {
                        s as usize
                    }
                })
                .collect();
            split_sizes(x, &resolved, a)
        }
    }
}

/// `tf.tile(x, multiples)`.
pub fn tile(x: &Tensor, multiples: &[usize]) -> Result<Tensor> {
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
    let n = shape.checked_numel()?;
    let in_strides = x.shape().strides();
    let out_strides = shape.strides();
    let mut idx = try_vec(n)?;
    for i in 0..n {
        let mut src = 0;
        for d in 0..shape.rank() {
            let c = (i / out_strides[d]) % shape.0[d];
            src += (c % x.dims()[d]) * in_strides[d];
        }
        idx.push(src);
    }
    take(x, &idx, shape)
}

/// `tf.gather(x, indices, axis)`: `indices` must be int32 or int64.
pub fn gather(x: &Tensor, indices: &Tensor, axis: i64) -> Result<Tensor> {
    let dev = x.device();
    let fail = |m: String| {
        Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "GatherV2",
            &dev,
            &m,
            "GatherV2",
            "",
        )
    };
    let a = match x.shape().normalize_axis(axis, 0) {
        Some(a) => a,
        None => {
            return Err(fail(format!(
                "Shape must be at least rank {} but is rank {}",
                axis.unsigned_abs() + if axis >= 0 { 1 } else { 0 },
                x.rank()
            )))
        }
    };
    let ids: Vec<i64> = match indices.host()? {
        HostData::I32(v) => v.iter().map(|&i| i as i64).collect(),
        HostData::I64(v) => v.clone(),
        _ => return Err(Error::type_error(format!("Value for attr 'Tindices' of {} is not in the list of allowed values: int16, int32, int64", indices.dtype().name()))),
    };
    let len = x.dims()[a];
    for (k, &i) in ids.iter().enumerate() {
        if i < 0 || i as usize >= len {
            let at = if indices.rank() == 0 {
                String::new()
            } else {
                format!("[{k}]")
            };
            return Err(fail(format!("indices{at} = {i} is not in [0, {len})")));
        }
    }
    let outer: usize = x.dims()[..a].iter().product();
    let inner: usize = x.dims()[a + 1..].iter().product();
    let mut dims = x.dims()[..a].to_vec();
    dims.extend_from_slice(indices.dims());
    dims.extend_from_slice(&x.dims()[a + 1..]);
    let shape = Shape(dims);
    let mut idx = try_vec(shape.checked_numel()?)?;
    for o in 0..outer {
        for &i in &ids {
            let base = (o * len + i as usize) * inner;
            idx.extend(base..base + inner);
        }
    }
    take(x, &idx, shape)
}

/// `tf.range(start, limit, delta)` in `dtype` (int or float types).
pub fn range(
    start: &Scalar,
    limit: &Scalar,
    delta: &Scalar,
    dtype: DType,
    device: Device,
) -> Result<Tensor> {
    let (s, l, d) = (start.as_f64(), limit.as_f64(), delta.as_f64());
    let fail = |m: String| kernel_error("Range", &device, &m, " name: ");
    let show = |v: &Scalar| match v {
        Scalar::Float(f) => crate::runtime::format::python_float_repr(*f),
        other => crate::runtime::format::numpy_scalar_text(other, DType::Int64),
    };
    if d == 0.0 {
        return Err(fail(format!("Requires delta != 0: {}", show(delta))));
    }
    if d > 0.0 && s > l {
        return Err(fail(format!(
            "Requires start <= limit when delta > 0: {}/{}",
            show(start),
            show(limit)
        )));
    }
    if d < 0.0 && s < l {
        return Err(fail(format!(
            "Requires start >= limit when delta < 0: {}/{}",
            show(start),
            show(limit)
        )));
    }
    let n = if dtype.is_integer() {
        let (si, li, di) = (s as i64, l as i64, d as i64);
        ((li - si).abs() + di.abs() - 1) / di.abs()
    } else {
        ((l - s) / d).ceil() as i64
    }
    .max(0) as usize;
    Shape(vec![n]).checked_numel()?;
    let data = match dtype {
        DType::Float32 => HostData::F32(
            (0..n)
                .map(|i| (s as f32) + (i as f32) * (d as f32))
                .collect(),
        ),
        DType::Float64 => HostData::F64((0..n).map(|i| s + i as f64 * d).collect()),
        DType::Int32 => HostData::I32(
            (0..n)
                .map(|i| (s as i64 + i as i64 * d as i64) as i32)
                .collect(),
        ),
        DType::Int64 => HostData::I64((0..n).map(|i| s as i64 + i as i64 * d as i64).collect()),
        other => {
            let t = range(start, limit, delta, DType::Float64, device)?;
            return super::elementwise::cast(&t, other);
        }
    };
    Tensor::from_host(data, Shape(vec![n]), device)
}

/// `tf.eye(n, m)`: ones on the diagonal.
pub fn eye(n: usize, m: usize, dtype: DType, device: Device) -> Result<Tensor> {
    let t = Tensor::zeros(dtype, &[n, m], device)?;
    let diag: Vec<usize> = (0..n.min(m)).map(|i| i * m + i).collect();
    let ones = Tensor::ones(dtype, &[diag.len()], device)?;
    let mut t = t;
    let inner = t.make_mut();
    let backend = inner.storage.backend();
    backend.scatter(&mut inner.storage, &diag, ones.storage())?;
    Ok(t)
}

/// `tf.broadcast_to(x, shape)` / `np.broadcast_to`.
pub fn broadcast_to(x: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let target = Shape::new(dims);
    if x.shape() == &target {
        return Ok(x.clone());
    }
    match x.shape().broadcast(&target) {
        Some(s) if s == target => {}
        _ => {
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
    let n = target.checked_numel()?;
    let off = target.rank() - x.rank();
    let in_strides = x.shape().strides();
    let out_strides = target.strides();
    let mut idx = try_vec(n)?;
    for i in 0..n {
        let mut src = 0;
        for d in 0..x.rank() {
            if x.dims()[d] != 1 {
                let c = (i / out_strides[d + off]) % dims[d + off];
                src += c * in_strides[d];
            }
        }
        idx.push(src);
    }
    take(x, &idx, target)
}
