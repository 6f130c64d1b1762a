//! Joining and splitting: concat, stack, unstack, split, with the
//! `ConcatV2`/`Pack`/`Split`/`SplitV` error texts.

use super::dtype_mismatch;
use super::elementwise::with_storage;
use super::shape_ops::{expand_dims, squeeze, take};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::try_vec;
use crate::runtime::tensor::Tensor;

/// `tf.concat(values, axis)`.
fn concat_impl(ts: &[Tensor], axis: i64) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op(
        "ConcatV2",
        ts.first().map_or_else(Default::default, Tensor::device),
    );
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
        return Err(fail(
            "ConcatOp : Can't concatenate scalars (use tf.stack instead)".to_string(),
        ));
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
    stack_named(ts, axis, "stack")
}

/// [`stack`] as a `Pack` node called `name` in its errors (`packed` for the
/// automatic packing of a list of tensors).
fn stack_named_impl(ts: &[Tensor], axis: i64, name: &str) -> Result<Tensor> {
    let suffix = format!(" name: {name}");
    let _trace = crate::runtime::trace::op(
        "Pack",
        ts.first().map_or_else(Default::default, Tensor::device),
    );
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
            return Err(dtype_mismatch("Pack", i, first.dtype(), t.dtype(), &suffix));
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
                &suffix,
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
fn unstack_impl(x: &Tensor, axis: i64) -> Result<Vec<Tensor>> {
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
fn split_impl(x: &Tensor, spec: &SplitSpec, axis: i64) -> Result<Vec<Tensor>> {
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

/// `tf.concat(values, axis)`.
pub fn concat(ts: &[Tensor], axis: i64) -> Result<Tensor> {
    let refs: Vec<&Tensor> = ts.iter().collect();
    let gop = || {
        GradOp::Concat({
            let r = (ts.first().map_or(0, Tensor::rank)) as i64;
            (if axis < 0 { axis + r } else { axis }) as usize
        })
    };
    tape::primitive(gop, &refs, || concat_impl(ts, axis))
}

/// [`stack`] as a `Pack` node called `name` in its errors (`packed` for the
/// automatic packing of a list of tensors).
pub fn stack_named(ts: &[Tensor], axis: i64, name: &str) -> Result<Tensor> {
    let refs: Vec<&Tensor> = ts.iter().collect();
    let gop = || {
        GradOp::Pack({
            let r = (ts.first().map_or(0, Tensor::rank) + 1) as i64;
            (if axis < 0 { axis + r } else { axis }) as usize
        })
    };
    tape::primitive(gop, &refs, || stack_named_impl(ts, axis, name))
}

/// `tf.unstack(x, axis)`.
pub fn unstack(x: &Tensor, axis: i64) -> Result<Vec<Tensor>> {
    let gop = || {
        GradOp::Unpack({
            let r = (x.rank()) as i64;
            (if axis < 0 { axis + r } else { axis }) as usize
        })
    };
    tape::primitive_n(gop, &[x], || unstack_impl(x, axis))
}

/// `tf.split(x, num_or_size_splits, axis)`.
pub fn split(x: &Tensor, spec: &SplitSpec, axis: i64) -> Result<Vec<Tensor>> {
    let gop = || {
        GradOp::Split({
            let r = (x.rank()) as i64;
            (if axis < 0 { axis + r } else { axis }) as usize
        })
    };
    tape::primitive_n(gop, &[x], || split_impl(x, spec, axis))
}
