//! The gradients of the reductions, `MatMul` and a dense (or batched) `GatherV2`, as
//! TensorFlow's registered gradients emit them (`math_grad.py`,
//! `array_grad.py`); `grad.rs` dispatches here.

#[allow(unused_imports)]
use super::grad::*;
use crate::runtime::error::Result;
use crate::runtime::op::{BinaryOp, ReduceOp};
use crate::runtime::ops;
use crate::runtime::tensor::Tensor;

pub(super) fn reduce_grad(
    op: ReduceOp,
    x: &Tensor,
    y: &Tensor,
    axes: &[usize],
    keepdims: bool,
    g: &Tensor,
) -> Result<Option<Tensor>> {
    let kept: Vec<usize> = x
        .dims()
        .iter()
        .enumerate()
        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
        .collect();
    let sum_grad = || -> Result<Tensor> {
        if axes.len() == x.rank() && (0..x.rank()).eq(axes.iter().copied()) {
            // reduce all: reshape to [1]*rank and tile
            let g = reshape(g, &vec![1; x.rank()])?;
            return ops::tile(&g, x.dims());
        }
        let g = if keepdims {
            g.clone()
        } else {
            reshape(g, &kept)?
        };
        ops::broadcast_to(&g, x.dims())
    };
    Ok(Some(match op {
        ReduceOp::Sum => sum_grad()?,
        ReduceOp::Mean => {
            let s = sum_grad()?;
            let factor = x.numel() / y.numel().max(1);
            ops::truediv(&s, &scalar(&s, factor as f64)?)?
        }
        ReduceOp::Max | ReduceOp::Min => {
            let (y, g) = if keepdims {
                (y.clone(), g.clone())
            } else {
                (reshape(y, &kept)?, reshape(g, &kept)?)
            };
            let ind = ops::cast(&cmp(BinaryOp::Equal, &y, x)?, g.dtype())?;
            let num = reshape(&sum(&ind, axes, false)?, &kept)?;
            mul(&ops::truediv(&ind, &num)?, &g)?
        }
        ReduceOp::Prod => prod_grad(x, axes, &kept, keepdims, g)?,
        ReduceOp::Any | ReduceOp::All => return Ok(None),
    }))
}

/// TensorFlow's `_ProdGrad`: the reduced axes moved first and flattened,
/// the product of the other entries as two exclusive cumulative products.
pub(super) fn prod_grad(
    x: &Tensor,
    axes: &[usize],
    kept: &[usize],
    keepdims: bool,
    g: &Tensor,
) -> Result<Tensor> {
    let g = if keepdims {
        g.clone()
    } else {
        reshape(g, kept)?
    };
    let g = ops::broadcast_to(&g, x.dims())?;
    let other: Vec<usize> = (0..x.rank()).filter(|i| !axes.contains(i)).collect();
    let perm: Vec<usize> = axes.iter().chain(&other).copied().collect();
    let reduced_num: usize = axes.iter().map(|&a| x.dims()[a]).product();
    let other_num: usize = other.iter().map(|&a| x.dims()[a]).product();
    let permuted = ops::transpose(x, Some(&dims_i64(&perm)))?;
    let permuted_shape = permuted.dims().to_vec();
    let reshaped = reshape(&permuted, &[reduced_num, other_num])?;
    let left = ops::scan::cumulative(&reshaped, 0, true, false, true)?;
    let right = ops::scan::cumulative(&reshaped, 0, true, true, true)?;
    let yv = reshape(&mul(&left, &right)?, &permuted_shape)?;
    let mut inv = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i as i64;
    }
    let out = mul(&g, &ops::transpose(&yv, Some(&inv))?)?;
    reshape(&out, x.dims())
}

pub(super) fn matmul_grad(
    v: &OpView,
    ta: bool,
    tb: bool,
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let (a, b) = (&v.inputs[0], &v.inputs[1]);
    let mm = ops::matmul;
    // only the gradients asked for are computed (TensorFlow's MatMul
    // gradient skips an input in `skip_input_indices` too)
    let ga = |()| match (ta, tb) {
        (false, false) => mm(g, b, false, true),
        (false, true) => mm(g, b, false, false),
        (true, false) => mm(b, g, false, true),
        (true, true) => mm(b, g, true, true),
    };
    let gb = |()| match (ta, tb) {
        (false, false) => mm(a, g, true, false),
        (false, true) => mm(g, a, true, false),
        (true, false) => mm(a, g, false, false),
        (true, true) => mm(g, a, true, true),
    };
    let fit = |t: Tensor, like: &Tensor| -> Result<Tensor> {
        if t.dims() == like.dims() {
            return Ok(t);
        }
        // broadcast batch dims summed back (BatchMatMulV2's gradient)
        let r = t.rank();
        let lead = r - like.rank();
        let axes: Vec<usize> = (0..r - 2)
            .filter(|&i| i < lead || like.dims()[i - lead] == 1)
            .collect();
        reshape(&sum(&t, &axes, false)?, like.dims())
    };
    let ga = if v.skip[0] {
        None
    } else {
        Some(fit(ga(())?, a)?)
    };
    let gb = if v.skip[1] {
        None
    } else {
        Some(fit(gb(())?, b)?)
    };
    Ok(vec![ga, gb])
}

/// `GatherV2`'s gradient, densified: the slices summed into their rows
/// (`unsorted_segment_sum`), along `axis` through transposes.
pub(super) fn gather_grad(
    params: &Tensor,
    indices: &Tensor,
    axis: usize,
    g: &Tensor,
) -> Result<Tensor> {
    let n = params.dims()[axis] as i64;
    let flat_idx = reshape(indices, &[indices.numel()])?;
    let inner = &params.dims()[axis + 1..];
    if axis == 0 {
        let mut vdims = vec![indices.numel()];
        vdims.extend_from_slice(inner);
        let values = reshape(g, &vdims)?;
        return ops::segment::unsorted_segment_sum(&values, &flat_idx, n);
    }
    // move the gathered axis first: g is [outer..., idx..., inner...]
    let outer = &params.dims()[..axis];
    let mut gdims = outer.to_vec();
    gdims.push(indices.numel());
    gdims.extend_from_slice(inner);
    let g = reshape(g, &gdims)?;
    let r = gdims.len();
    let mut perm: Vec<i64> = vec![axis as i64];
    perm.extend((0..r as i64).filter(|&i| i != axis as i64));
    let moved = ops::transpose(&g, Some(&perm))?;
    let summed = ops::segment::unsorted_segment_sum(&moved, &flat_idx, n)?;
    let mut inv = vec![0i64; r];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    ops::transpose(&summed, Some(&inv))
}

/// `GatherV2`'s gradient with `batch_dims` (`b > 0`), as `_GatherV2Grad`
/// and `_BatchGatherGrad` build it: the gathered axis moved to just after
/// the batch dims, each batch element's indices offset by its flat batch
/// position times `params.shape[axis]`, the slices summed into their rows
/// (`unsorted_segment_sum`), then the axes moved back.
pub(super) fn batch_gather_grad(
    params: &Tensor,
    indices: &Tensor,
    axis: usize,
    b: usize,
    g: &Tensor,
) -> Result<Tensor> {
    use crate::runtime::storage::HostData;
    let p = params.dims();
    let r = p.len();
    let n = p[axis];
    let batch: usize = p[..b].iter().product();
    let per: usize = indices.dims()[b..].iter().product();
    let mut values_shape = p[..axis].to_vec();
    values_shape.push(per);
    values_shape.extend_from_slice(&p[axis + 1..]);
    let values = reshape(g, &values_shape)?;
    let mut perm: Vec<i64> = (0..b as i64).collect();
    perm.push(axis as i64);
    perm.extend(b as i64..axis as i64);
    perm.extend(axis as i64 + 1..r as i64);
    let values_t = ops::transpose(&values, Some(&perm))?;
    // indices offset by their flat batch position (`_GetBatchIndices`)
    let ids: Vec<i64> = match indices.host()? {
        HostData::I16(v) => v.iter().map(|&i| i as i64).collect(),
        HostData::I32(v) => v.iter().map(|&i| i as i64).collect(),
        HostData::I64(v) => v.clone(),
        _ => {
            return Err(crate::runtime::error::Error::internal(
                "gather: indices dtype",
            ))
        }
    };
    let shifted: Vec<i64> = ids
        .iter()
        .enumerate()
        .map(|(k, &i)| i + (k / per.max(1) * n) as i64)
        .collect();
    let len = shifted.len();
    let flat_idx = Tensor::from_vec(shifted, &[len])?.to_device(indices.device())?;
    let inner = values_t.dims()[b + 1..].to_vec();
    let mut flat_shape = vec![batch * per];
    flat_shape.extend_from_slice(&inner);
    let flat_values = reshape(&values_t, &flat_shape)?;
    let summed = ops::segment::unsorted_segment_sum(&flat_values, &flat_idx, (n * batch) as i64)?;
    let mut back_shape = p[..b].to_vec();
    back_shape.push(n);
    back_shape.extend_from_slice(&inner);
    let summed = reshape(&summed, &back_shape)?;
    let mut inv: Vec<i64> = (0..b as i64).collect();
    inv.extend(b as i64 + 1..axis as i64 + 1);
    inv.push(b as i64);
    inv.extend(axis as i64 + 1..r as i64);
    let out = ops::transpose(&summed, Some(&inv))?;
    reshape(&out, p)
}
