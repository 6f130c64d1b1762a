//! `GatherV2`: slices of `params` picked by `indices` along `axis`, with
//! TensorFlow's leading `batch_dims` shared by both (each batch element
//! gathers from its own slice). The checks and their messages are the
//! eager kernel's, in its order; the data movement is one backend `take`.

use super::shape_ops::take;
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{try_vec, HostData};
use crate::runtime::tensor::Tensor;

/// `tf.gather(x, indices, axis)` (no batch dims).
pub fn gather(x: &Tensor, indices: &Tensor, axis: i64) -> Result<Tensor> {
    gather_batched(x, indices, axis, 0)
}

/// `GatherV2(x, indices, axis, batch_dims)`: `batch_dims` may be negative
/// (counted from the rank of `indices`), `axis` negative (from the rank of
/// `x`). The output is `x.shape[:axis] + indices.shape[batch_dims:] +
/// x.shape[axis + 1:]`.
pub fn gather_batched(x: &Tensor, indices: &Tensor, axis: i64, batch_dims: i64) -> Result<Tensor> {
    let gop = || {
        let (r, ir) = (x.rank() as i64, indices.rank() as i64);
        let a = if axis < 0 { axis + r } else { axis };
        let b = if batch_dims < 0 {
            batch_dims + ir
        } else {
            batch_dims
        };
        GradOp::Gather(a.max(0) as usize, b.max(0) as usize)
    };
    tape::primitive(gop, &[x, indices], || {
        gather_impl(x, indices, axis, batch_dims)
    })
}

/// TensorFlow's `SliceDebugString`: the coordinates of flat element `k` of
/// `dims`, as `[i,j]` (empty for a scalar).
fn coords_text(dims: &[usize], mut k: usize) -> String {
    if dims.is_empty() {
        return String::new();
    }
    let mut cs = vec![0usize; dims.len()];
    for (c, &d) in cs.iter_mut().zip(dims).rev() {
        if d > 0 {
            *c = k % d;
            k /= d;
        }
    }
    let parts: Vec<String> = cs.iter().map(|c| c.to_string()).collect();
    format!("[{}]", parts.join(","))
}

fn gather_impl(x: &Tensor, indices: &Tensor, axis: i64, batch_dims: i64) -> Result<Tensor> {
    let _trace = crate::runtime::trace::op("GatherV2", x.device());
    let dev = x.device();
    let fail = |m: String| {
        Error::kernel(
            ErrorKind::InvalidArgument,
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
                axis.unsigned_abs() as u128 + if axis >= 0 { 1 } else { 0 },
                x.rank()
            )))
        }
    };
    let ir = indices.rank() as i64;
    let mut b = 0usize;
    if batch_dims != 0 {
        if batch_dims < -ir || batch_dims > ir {
            return Err(fail(format!(
                "Expected batch_dims in the range [{}, {ir}], but got {batch_dims}",
                -ir
            )));
        }
        b = (if batch_dims < 0 {
            batch_dims + ir
        } else {
            batch_dims
        }) as usize;
        if b >= x.rank() {
            return Err(fail(format!(
                "batch_dims ({b}) must be less than rank(params) ({}).",
                x.rank()
            )));
        }
        if a < b {
            return Err(fail(format!(
                "batch_dims ({b}) must be less than or equal to axis ({a})."
            )));
        }
        for i in 0..b {
            let (p, q) = (x.dims()[i], indices.dims()[i]);
            if p != q {
                return Err(fail(format!(
                    "params.shape[{i}]: {p} should be equal to indices.shape[{i}]: {q}"
                )));
            }
        }
    }
    let ids: Vec<i64> = match indices.host()? {
        HostData::I16(v) => v.iter().map(|&i| i as i64).collect(),
        HostData::I32(v) => v.iter().map(|&i| i as i64).collect(),
        HostData::I64(v) => v.clone(),
        _ => return Err(Error::type_error(format!("Value for attr 'Tindices' of {} is not in the list of allowed values: int16, int32, int64", indices.dtype().name()))),
    };
    let len = x.dims()[a];
    for (k, &i) in ids.iter().enumerate() {
        if i < 0 || i as usize >= len {
            return Err(fail(format!(
                "indices{} = {i} is not in [0, {len})",
                coords_text(indices.dims(), k)
            )));
        }
    }
    // params [batch..., outer..., len, inner...], indices [batch..., per...]
    let batch: usize = x.dims()[..b].iter().product();
    let outer: usize = x.dims()[b..a].iter().product();
    let inner: usize = x.dims()[a + 1..].iter().product();
    let per: usize = indices.dims()[b..].iter().product();
    let mut dims = x.dims()[..a].to_vec();
    dims.extend_from_slice(&indices.dims()[b..]);
    dims.extend_from_slice(&x.dims()[a + 1..]);
    let shape = Shape(dims);
    let mut idx = try_vec(shape.checked_numel()?)?;
    for bi in 0..batch {
        let picked = &ids[bi * per..(bi + 1) * per];
        for o in 0..outer {
            for &i in picked {
                let base = ((bi * outer + o) * len + i as usize) * inner;
                idx.extend(base..base + inner);
            }
        }
    }
    take(x, &idx, shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batched_rows() {
        let p = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
        let i = Tensor::from_vec(vec![2i32, 0, 1, 1], &[2, 2]).unwrap();
        let out = gather_batched(&p, &i, 1, 1).unwrap();
        assert_eq!(out.dims(), &[2, 2]);
        match out.host().unwrap() {
            HostData::I32(v) => assert_eq!(v, &vec![2, 0, 4, 4]),
            other => panic!("unexpected {other:?}"),
        }
        assert!(gather_batched(&p, &i, 1, i64::MAX).is_err());
        assert!(gather_batched(&p, &i, 1, i64::MIN).is_err());
        assert!(gather_batched(&p, &i, i64::MIN, 1).is_err());
        assert_eq!(coords_text(&[2, 3], 4), "[1,1]");
    }
}
