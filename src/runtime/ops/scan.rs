//! Ops computed in host memory along one axis: `Cumsum`/`Cumprod`, sorting
//! (`tf.sort`, `tf.argsort`, `TopKV2`) and `OneHot`. A tensor on a CUDA GPU
//! is copied to the host, computed there and placed back on its device, so
//! these ops work on every device without a GPU kernel.

use super::{attr_error, kernel_error};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;
use std::cmp::Ordering;

/// A host copy of `x`'s elements.
pub(super) fn host_of(x: &Tensor) -> Result<HostData> {
    x.storage().backend().to_host(x.storage())
}

/// Runs `$f::<T>(slice)` for the numeric element type of `$data`; other
/// dtypes give `$err`.
macro_rules! numeric {
    ($data:expr, $f:ident ( $($arg:expr),* ), $err:expr) => {
        match $data {
            HostData::I8(v) => $f(&v, $($arg),*),
            HostData::U8(v) => $f(&v, $($arg),*),
            HostData::I16(v) => $f(&v, $($arg),*),
            HostData::I32(v) => $f(&v, $($arg),*),
            HostData::I64(v) => $f(&v, $($arg),*),
            HostData::F16(v) => $f(&v, $($arg),*),
            HostData::F32(v) => $f(&v, $($arg),*),
            HostData::F64(v) => $f(&v, $($arg),*),
            _ => Err($err),
        }
    };
}
pub(super) use numeric;

/// `(outer, n, inner)`: the extents before, along and after `axis`.
fn extents(dims: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = dims[..axis].iter().product();
    let inner = dims[axis + 1..].iter().product();
    (outer, dims[axis], inner)
}

/// The options of a cumulative op.
#[derive(Clone, Copy)]
struct ScanSpec {
    prod: bool,
    exclusive: bool,
    reverse: bool,
}

fn scan_typed<T: Num>(
    v: &[T],
    (outer, n, inner): (usize, usize, usize),
    s: ScanSpec,
) -> Result<HostData> {
    let mut out = crate::runtime::storage::filled(v.len(), T::zero())?;
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = if s.prod { T::one() } else { T::zero() };
            for step in 0..n {
                let k = if s.reverse { n - 1 - step } else { step };
                let at = (o * n + k) * inner + i;
                let next = if s.prod {
                    acc.mul(v[at])
                } else {
                    acc.add(v[at])
                };
                out[at] = if s.exclusive { acc } else { next };
                acc = next;
            }
        }
    }
    Ok(T::wrap(out))
}

/// `tf.math.cumsum` (`prod == false`) or `tf.math.cumprod` along `axis`.
fn cumulative_impl(
    x: &Tensor,
    axis: i64,
    exclusive: bool,
    reverse: bool,
    prod: bool,
) -> Result<Tensor> {
    let op = if prod { "Cumprod" } else { "Cumsum" };
    let _trace = crate::runtime::trace::op(op, x.device());
    if !x.dtype().is_numeric() {
        return Err(attr_error(op, x.dtype()));
    }
    let rank = x.rank() as i64;
    if axis < -rank || axis >= rank {
        return Err(kernel_error(
            op,
            &x.device(),
            &format!("ScanOp: Expected scan axis in the range [-{rank}, {rank}), but got {axis}"),
            " name: ",
        ));
    }
    let axis = (if axis < 0 { axis + rank } else { axis }) as usize;
    let ext = extents(x.dims(), axis);
    let spec = ScanSpec {
        prod,
        exclusive,
        reverse,
    };
    let data = numeric!(
        host_of(x)?,
        scan_typed(ext, spec),
        attr_error(op, x.dtype())
    )?;
    Tensor::from_host(data, x.shape().clone(), x.device())
}

/// Orders `a` before `b` for a descending sort; NaN sorts as the largest.
fn desc<T: Num>(a: T, b: T) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => b.partial_cmp(&a).unwrap_or(Ordering::Equal),
    }
}

/// For each row along the last axis of `v` (rows of `n`), the stable order
/// of its first `k` elements (ascending or descending), and their values.
fn order_typed<T: Num>(
    v: &[T],
    n: usize,
    k: usize,
    descending: bool,
) -> Result<(HostData, Vec<i32>)> {
    let rows = v.len().checked_div(n).unwrap_or(0);
    let mut vals = crate::runtime::storage::try_vec::<T>(rows * k)?;
    let mut idx = crate::runtime::storage::try_vec::<i32>(rows * k)?;
    let mut perm: Vec<usize> = Vec::with_capacity(n);
    for r in 0..rows {
        let row = &v[r * n..(r + 1) * n];
        perm.clear();
        perm.extend(0..n);
        if descending {
            perm.sort_by(|&a, &b| desc(row[a], row[b]));
        } else {
            perm.sort_by(|&a, &b| desc(row[b], row[a]));
        }
        for &p in &perm[..k] {
            vals.push(row[p]);
            idx.push(p as i32);
        }
    }
    Ok((T::wrap(vals), idx))
}

/// The `k` first elements of each row along the last axis in sorted order
/// and their int32 indices (ties keep their input order).
fn ordered(x: &Tensor, k: usize, descending: bool, op: &str) -> Result<(Tensor, Tensor)> {
    let n = x.dims().last().copied().unwrap_or(1);
    let (vals, idx) = numeric!(
        host_of(x)?,
        order_typed(n, k, descending),
        attr_error(op, x.dtype())
    )?;
    let mut dims = x.dims().to_vec();
    if let Some(last) = dims.last_mut() {
        *last = k;
    }
    let shape = Shape(dims);
    Ok((
        Tensor::from_host(vals, shape.clone(), x.device())?,
        Tensor::from_host(HostData::I32(idx), shape, x.device())?,
    ))
}

/// `tf.math.top_k(input, k)`: the `k` largest entries of each last-axis row
/// and their indices (`TopKV2`).
fn top_k_impl(x: &Tensor, k: i64) -> Result<(Tensor, Tensor)> {
    let op = "TopKV2";
    let _trace = crate::runtime::trace::op(op, x.device());
    let fail = |msg: &str| kernel_error(op, &x.device(), msg, "");
    if k < 0 {
        return Err(fail(&format!("Need k >= 0, got {k}")));
    }
    if x.rank() == 0 {
        return Err(fail("input must be >= 1-D, got shape []"));
    }
    let n = x.dims()[x.rank() - 1];
    if (k as u64) > n as u64 {
        return Err(fail(&format!(
            "input must have at least k columns. Had {n}, needed {k}"
        )));
    }
    // (complex numbers have no order)
    if !x.dtype().is_numeric() || x.dtype().is_complex() {
        return Err(attr_error(op, x.dtype()));
    }
    ordered(x, k as usize, true, op)
}

/// `tf.sort` / `tf.argsort` along `axis`: the sorted values and the int32
/// indices that sort them (a stable sort).
fn sort_impl(x: &Tensor, axis: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    let rank = x.rank() as i64;
    if axis < -rank || axis >= rank {
        return Err(kernel_error(
            "StridedSlice",
            &x.device(),
            &format!("slice index {axis} of dimension 0 out of bounds."),
            " name: strided_slice/",
        ));
    }
    if !x.dtype().is_numeric() || x.dtype().is_complex() {
        return Err(attr_error("TopKV2", x.dtype()));
    }
    let axis = if axis < 0 { axis + rank } else { axis };
    if axis == rank - 1 {
        let n = x.dims()[axis as usize];
        return ordered(x, n, descending, "TopKV2");
    }
    // move the axis last, sort, move it back
    let mut perm: Vec<i64> = (0..rank).collect();
    perm.swap(axis as usize, (rank - 1) as usize);
    let t = super::transpose(x, Some(&perm))?;
    let n = t.dims()[(rank - 1) as usize];
    let (v, i) = ordered(&t, n, descending, "TopKV2")?;
    Ok((
        super::transpose(&v, Some(&perm))?,
        super::transpose(&i, Some(&perm))?,
    ))
}

/// `tf.one_hot`: `on` at each index along a new axis of length `depth`,
/// `off` elsewhere (indices outside `[0, depth)` give an all-`off` row).
pub fn one_hot(
    indices: &Tensor,
    depth: i64,
    on: &Tensor,
    off: &Tensor,
    axis: i64,
) -> Result<Tensor> {
    let op = "OneHot";
    let _trace = crate::runtime::trace::op(op, indices.device());
    let fail = |msg: &str| kernel_error(op, &indices.device(), msg, "");
    let rank = indices.rank() as i64;
    if axis != -1 && !(0..=rank).contains(&axis) {
        return Err(fail(&format!(
            "Expected axis to be -1 or between [0, {}).  But received: {axis}",
            rank + 1
        )));
    }
    if depth < 0 {
        return Err(fail(&format!("depth must be non-negative, got: {depth}")));
    }
    if !matches!(
        indices.dtype(),
        DType::UInt8 | DType::Int8 | DType::Int32 | DType::Int64
    ) {
        return Err(Error::invalid_argument(format!(
            "Value for attr 'TI' of {} is not in the list of allowed values: uint8, int8, int32, \
             int64\n\t; NodeDef: {{{{node OneHot}}}}; Op<name=OneHot; signature=indices:TI, \
             depth:int32, on_value:T, off_value:T -> output:T; attr=axis:int,default=-1; \
             attr=T:type; attr=TI:type,default=DT_INT64,allowed=[DT_UINT8, DT_INT8, DT_INT32, \
             DT_INT64]> [Op:OneHot]",
            indices.dtype().kernel_name()
        )));
    }
    if on.dtype() != off.dtype() {
        return Err(Error::internal(
            "one_hot: on and off values of different dtypes",
        ));
    }
    let axis = if axis < 0 { rank } else { axis } as usize;
    let mut dims = indices.dims().to_vec();
    dims.insert(axis, depth as usize);
    let shape = Shape(dims);
    shape.checked_numel()?;
    let idx: Vec<i64> = indices
        .to_device(crate::runtime::Device::CPU0)?
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => i,
            _ => -1,
        })
        .collect();
    let (outer, _, inner) = extents(shape.dims(), axis);
    let d = depth as usize;
    // flat positions of the `on` elements
    let mut hot = Vec::new();
    for o in 0..outer {
        for i in 0..inner {
            let k = idx[o * inner + i];
            if (0..depth).contains(&k) {
                hot.push((o * d + k as usize) * inner + i);
            }
        }
    }
    let off_v = off.item()?;
    let mut t = Tensor::fill(shape.dims(), &off_v, off.dtype(), indices.device())?;
    let ons = Tensor::fill(&[hot.len()], &on.item()?, on.dtype(), indices.device())?;
    let inner_t = t.make_mut();
    let backend = inner_t.storage.backend();
    backend.scatter(&mut inner_t.storage, &hot, ons.storage())?;
    Ok(t)
}

/// `tf.math.cumsum` (`prod == false`) or `tf.math.cumprod` along `axis`.
pub fn cumulative(
    x: &Tensor,
    axis: i64,
    exclusive: bool,
    reverse: bool,
    prod: bool,
) -> Result<Tensor> {
    let gop = || {
        if prod {
            GradOp::Cumprod {
                axis,
                exclusive,
                reverse,
            }
        } else {
            GradOp::Cumsum {
                axis,
                exclusive,
                reverse,
            }
        }
    };
    tape::primitive(gop, &[x], || {
        cumulative_impl(x, axis, exclusive, reverse, prod)
    })
}

/// `tf.math.top_k(x, k)`: values and indices.
pub fn top_k(x: &Tensor, k: i64) -> Result<(Tensor, Tensor)> {
    let (v, i) = top_k_impl(x, k)?;
    tape::record(|| GradOp::TopK(k), &[x], &[&v, &i]);
    Ok((v, i))
}

/// `tf.sort` / `tf.argsort`: values and indices.
pub fn sort(x: &Tensor, axis: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    let (v, i) = sort_impl(x, axis, descending)?;
    tape::record(|| GradOp::Sort { axis, descending }, &[x], &[&v, &i]);
    Ok((v, i))
}
