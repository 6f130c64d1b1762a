//! numpy's sorting, searching, counting and selection functions (`sort`,
//! `argsort`, `unique`, `where`, `nonzero`, `clip`, `round`, `isclose`,
//! `any`, `all`, `cumsum`, `median`…). Sorting is numpy's order: NaNs
//! last, equal elements in their original order.

use std::cmp::Ordering;

use super::array::{nep50_pair, wrap, wrap_array};
use super::manip::norm_axis;
use super::to_np_tensor;
use super::ufunc::np_rt;
use crate::object::numpy::opt_np_dtype;
use crate::object::tensor::convert::axes_arg;
use crate::object::{native, NativeDef};
use crate::runtime::{ops, ArgOp, BinaryOp, DType, Device, ReduceOp, Scalar, Semantics, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

fn flat(t: &Tensor) -> PyResult<Tensor> {
    np_rt(ops::reshape(t, &[-1], Semantics::Numpy))
}

/// numpy's sort order of two elements: NaNs after everything.
fn order(a: &Scalar, b: &Scalar) -> Ordering {
    match (a, b) {
        (Scalar::Bytes(x), Scalar::Bytes(y)) => x.cmp(y),
        _ => {
            let ((ar, ai), (br, bi)) = (a.as_complex(), b.as_complex());
            let key = |r: f64, i: f64| (r.is_nan() || i.is_nan(), r, i);
            let (ka, kb) = (key(ar, ai), key(br, bi));
            ka.0.cmp(&kb.0)
                .then(ka.1.partial_cmp(&kb.1).unwrap_or(Ordering::Equal))
                .then(ka.2.partial_cmp(&kb.2).unwrap_or(Ordering::Equal))
        }
    }
}

/// `t` with `axis` moved last, as rows of its length; and the permutation.
fn rows_along(t: &Tensor, axis: usize) -> PyResult<(Tensor, Vec<i64>)> {
    let r = t.rank();
    let mut perm: Vec<i64> = (0..r as i64).filter(|&i| i != axis as i64).collect();
    perm.push(axis as i64);
    Ok((np_rt(ops::transpose(t, Some(&perm)))?, perm))
}

fn inverse(perm: &[i64]) -> Vec<i64> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    inv
}

/// The sorting permutation of each row of `t` along `axis`.
fn argsort_along(t: &Tensor, axis: usize) -> PyResult<Tensor> {
    let (moved, perm) = rows_along(t, axis)?;
    let n = t.dims()[axis];
    let vals = moved.to_scalars();
    let mut idx: Vec<i64> = Vec::with_capacity(vals.len());
    for row in vals.chunks(n.max(1)) {
        let mut ix: Vec<usize> = (0..row.len()).collect();
        ix.sort_by(|&i, &j| order(&row[i], &row[j]));
        idx.extend(ix.into_iter().map(|i| i as i64));
    }
    let out = np_rt(Tensor::from_vec(idx, moved.dims()))?;
    np_rt(ops::transpose(&out, Some(&inverse(&perm))))
}

fn sort_axis(vm: &dyn Vm, t: &Tensor, axis: &Value) -> PyResult<(Tensor, usize)> {
    match axis {
        Value::None => Ok((flat(t)?, 0)),
        v => {
            if t.rank() == 0 {
                return Err(PyErr::new(
                    ExcType::AxisError,
                    "axis -1 is out of bounds for array of dimension 0",
                ));
            }
            let ax = crate::object::tensor::convert::axis_arg(vm, v)?;
            Ok((t.clone(), norm_axis(ax, t.rank())?))
        }
    }
}

/// Indices that sort `a` along `axis` (stable; NaNs last).
#[native("argsort(a, axis=-1, kind=None, order=None)")]
fn argsort(vm: &dyn Vm, a: &Value, axis: &Value, kind: &Value, order: &Value) -> PyResult<Value> {
    let _ = kind;
    no_order(order)?;
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(argsorted(vm, &t, axis)?))
}

/// The indices that sort `t` along `axis` (None: flattened).
pub fn argsorted(vm: &dyn Vm, t: &Tensor, axis: &Value) -> PyResult<Tensor> {
    let (t, ax) = sort_axis(vm, t, axis)?;
    argsort_along(&t, ax)
}

fn no_order(order: &Value) -> PyResult<()> {
    if !matches!(order, Value::None) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "sorting by field names (order=...) is not supported in dist",
        ));
    }
    Ok(())
}

/// A sorted copy of `a` along `axis`.
#[native("sort(a, axis=-1, kind=None, order=None)")]
fn sort(vm: &dyn Vm, a: &Value, axis: &Value, kind: &Value, order: &Value) -> PyResult<Value> {
    let _ = kind;
    no_order(order)?;
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(sorted(vm, &t, axis)?))
}

pub fn sorted(vm: &dyn Vm, t: &Tensor, axis: &Value) -> PyResult<Tensor> {
    let (t, ax) = sort_axis(vm, t, axis)?;
    let idx = argsort_along(&t, ax)?;
    take_along(&t, &idx, ax)
}

/// `t`'s elements picked by `idx` (of the same shape) along `axis`.
fn take_along(t: &Tensor, idx: &Tensor, axis: usize) -> PyResult<Tensor> {
    let (moved, perm) = rows_along(t, axis)?;
    let (imoved, _) = rows_along(idx, axis)?;
    let n = t.dims()[axis].max(1) as i64;
    let ix = imoved.to_scalars();
    let flat_idx: Vec<i64> = ix
        .iter()
        .enumerate()
        .map(|(k, s)| (k as i64 / n) * n + s.as_f64() as i64)
        .collect();
    let len = flat_idx.len();
    let src = flat(&moved)?;
    let got = np_rt(ops::gather(
        &src,
        &np_rt(Tensor::from_vec(flat_idx, &[len]))?,
        0,
    ))?;
    let got = np_rt(ops::reshape(
        &got,
        &moved.dims().iter().map(|&d| d as i64).collect::<Vec<_>>(),
        Semantics::Numpy,
    ))?;
    np_rt(ops::transpose(&got, Some(&inverse(&perm))))
}

/// The sorted unique elements (with their first indices, the inverse
/// indices and the counts when asked).
#[native("unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None)")]
fn unique(
    vm: &dyn Vm,
    ar: &Value,
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
    axis: &Value,
) -> PyResult<Value> {
    if !matches!(axis, Value::None) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "np.unique(axis=...) is not supported in dist",
        ));
    }
    let src = to_np_tensor(vm, ar, None)?;
    let t = flat(&src)?;
    let vals = t.to_scalars();
    let mut ix: Vec<usize> = (0..vals.len()).collect();
    ix.sort_by(|&i, &j| order(&vals[i], &vals[j]));
    let same = |a: &Scalar, b: &Scalar| order(a, b) == Ordering::Equal;
    let (mut firsts, mut counts) = (Vec::new(), Vec::new());
    let mut inverse = vec![0i64; vals.len()];
    for (k, &i) in ix.iter().enumerate() {
        if k == 0 || !same(&vals[ix[k - 1]], &vals[i]) {
            firsts.push(i as i64);
            counts.push(0i64);
        }
        inverse[i] = firsts.len() as i64 - 1;
        if let Some(c) = counts.last_mut() {
            *c += 1;
        }
    }
    let n = firsts.len();
    let uniq = np_rt(ops::gather(
        &t,
        &np_rt(Tensor::from_vec(firsts.clone(), &[n]))?,
        0,
    ))?;
    if !(return_index || return_inverse || return_counts) {
        return Ok(wrap_array(uniq));
    }
    let mut out = vec![wrap_array(uniq)];
    let ints = |v: Vec<i64>, dims: &[usize]| np_rt(Tensor::from_vec(v, dims)).map(wrap_array);
    if return_index {
        out.push(ints(firsts, &[n])?);
    }
    if return_inverse {
        // numpy 2: shaped like the input
        out.push(ints(inverse, src.dims())?);
    }
    if return_counts {
        out.push(ints(counts, &[n])?);
    }
    Ok(Value::tuple(out))
}

/// Index of the smallest value (of the flattened array by default).
#[native("argmin(a, axis=None)")]
fn argmin(vm: &dyn Vm, a: &Value, axis: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    arg_reduce(vm, ArgOp::ArgMin, &t, axis)
}

pub fn arg_reduce(vm: &dyn Vm, op: ArgOp, t: &Tensor, axis: &Value) -> PyResult<Value> {
    let (t, axis) = match axis {
        Value::None => (flat(t)?, 0),
        v => {
            let ax = crate::object::tensor::convert::axis_arg(vm, v)?;
            (t.clone(), norm_axis(ax, t.rank())? as i64)
        }
    };
    if t.dims()[axis as usize] == 0 {
        let name = if op == ArgOp::ArgMax {
            "argmax"
        } else {
            "argmin"
        };
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("attempt to get {name} of an empty sequence"),
        ));
    }
    Ok(wrap(np_rt(ops::arg_reduce(
        op,
        &t,
        axis,
        Semantics::Numpy,
    ))?))
}

/// The indices of the nonzero elements, one array per dimension.
#[native("nonzero(a)")]
fn nonzero(vm: &dyn Vm, a: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    nonzero_of(&t)
}

pub fn nonzero_of(t: &Tensor) -> PyResult<Value> {
    if t.rank() == 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.",
        ));
    }
    let coords = coords_of(t)?;
    let n = coords.dims()[0];
    let cols = (0..t.rank())
        .map(|j| {
            let idx = np_rt(Tensor::from_vec(vec![j as i64], &[1]))?;
            let c = np_rt(ops::gather(&coords, &idx, 1))?;
            Ok(wrap_array(np_rt(ops::reshape(
                &c,
                &[n as i64],
                Semantics::Numpy,
            ))?))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Value::tuple(cols))
}

/// int64 coordinates `[n, rank]` of the nonzero elements.
fn coords_of(t: &Tensor) -> PyResult<Tensor> {
    let mask = truthy(t)?;
    np_rt(ops::where_true(&mask))
}

fn truthy(t: &Tensor) -> PyResult<Tensor> {
    if t.dtype() == DType::String {
        let v: Vec<bool> = t
            .to_scalars()
            .iter()
            .map(|s| !matches!(s, Scalar::Bytes(b) if b.is_empty()))
            .collect();
        return np_rt(Tensor::from_vec(v, t.dims()));
    }
    np_rt(ops::cast(t, DType::Bool))
}

/// The coordinates of the nonzero elements, one row each.
#[native("argwhere(a)")]
fn argwhere(vm: &dyn Vm, a: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(coords_of(&t)?))
}

/// The flat indices of the nonzero elements.
#[native("flatnonzero(a)")]
fn flatnonzero(vm: &dyn Vm, a: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(coords_of(&flat(&t)?).and_then(|c| {
        let n = c.dims()[0] as i64;
        np_rt(ops::reshape(&c, &[n], Semantics::Numpy))
    })?))
}

/// How many elements are nonzero (along `axis`).
#[native("count_nonzero(a, axis=None, keepdims=False)")]
fn count_nonzero(vm: &dyn Vm, a: &Value, axis: &Value, keepdims: bool) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let ones = np_rt(ops::cast(&truthy(&t)?, DType::Int64))?;
    let axes = axes_arg(vm, axis)?;
    let r = np_rt(ops::np_reduce(
        ReduceOp::Sum,
        &ones,
        axes.as_deref(),
        keepdims,
    ))?;
    Ok(if axes.is_none() && !keepdims {
        Value::Int(r.item().map(|s| s.as_f64() as i64).unwrap_or(0))
    } else {
        wrap(r)
    })
}

/// `x` where `condition`, else `y` (broadcast); with only `condition`,
/// `nonzero(condition)`.
#[native("where(condition, x=None, y=None)")]
fn where_(vm: &dyn Vm, condition: &Value, x: Option<&Value>, y: Option<&Value>) -> PyResult<Value> {
    let c = to_np_tensor(vm, condition, None)?;
    let (x, y) = match (x, y) {
        (None, None) => return nonzero_of(&c),
        (Some(x), Some(y)) => (x, y),
        _ => {
            return Err(PyErr::new(
                ExcType::ValueError,
                "either both or neither of x and y should be given",
            ))
        }
    };
    let (a, b) = nep50_pair(vm, x, y)?;
    let d = np_rt(ops::promote_types(a.dtype(), b.dtype()))?;
    let (a, b) = (np_rt(ops::cast(&a, d))?, np_rt(ops::cast(&b, d))?);
    let c = truthy(&c)?;
    let fits = c
        .shape()
        .broadcast(a.shape())
        .and_then(|s| s.broadcast(b.shape()))
        .is_some();
    if !fits {
        return Err(PyErr::new(
            ExcType::ValueError,
            np_broadcast_message(&[c.shape(), a.shape(), b.shape()]),
        ));
    }
    Ok(wrap(np_rt(ops::where_select(&c, &a, &b))?))
}

use crate::runtime::ops::elementwise::np_broadcast_message;

/// The values limited to `[a_min, a_max]` (either bound may be None).
#[native("clip(a, a_min=None, a_max=None)")]
fn clip(vm: &dyn Vm, a: &Value, a_min: &Value, a_max: &Value) -> PyResult<Value> {
    clipped(vm, a, a_min, a_max)
}

pub fn clipped(vm: &dyn Vm, a: &Value, a_min: &Value, a_max: &Value) -> PyResult<Value> {
    let mut cur = wrap(to_np_tensor(vm, a, None)?);
    if !matches!(a_min, Value::None) {
        let (x, lo) = nep50_pair(vm, &cur, a_min)?;
        cur = wrap(np_rt(ops::np_binary(BinaryOp::Maximum, &x, &lo))?);
    }
    if !matches!(a_max, Value::None) {
        let (x, hi) = nep50_pair(vm, &cur, a_max)?;
        cur = wrap(np_rt(ops::np_binary(BinaryOp::Minimum, &x, &hi))?);
    }
    Ok(cur)
}

/// Rounded to `decimals` places (half to even, as numpy rounds).
#[native("round(a, decimals=0)")]
fn round(vm: &dyn Vm, a: &Value, decimals: i64) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap(rounded(&t, decimals)?))
}

/// Rounded to `decimals` places (`np.around`).
#[native("around(a, decimals=0)")]
fn around(vm: &dyn Vm, a: &Value, decimals: i64) -> PyResult<Value> {
    round(vm, a, decimals)
}

/// numpy's `round`: `rint(x * 10**d) / 10**d` for floats (and the other
/// way round for negative `d`); ints round only for negative `d`.
pub fn rounded(t: &Tensor, decimals: i64) -> PyResult<Tensor> {
    use crate::runtime::ops::np_math::{np_unary, NpUnary};
    let d = t.dtype();
    if d == DType::Bool || (!d.is_floating() && !d.is_complex() && decimals >= 0) {
        return Ok(t.clone());
    }
    if d.is_complex() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "np.round of complex values is not supported in dist",
        ));
    }
    let work = if d.is_floating() { d } else { DType::Float64 };
    let x = np_rt(ops::cast(t, work))?;
    let p = 10f64.powi(decimals.unsigned_abs().min(400) as i32);
    let k = np_rt(Tensor::fill(&[], &Scalar::Float(p), work, Device::CPU0))?;
    let (up, down) = if decimals >= 0 {
        (BinaryOp::Mul, BinaryOp::RealDiv)
    } else {
        (BinaryOp::RealDiv, BinaryOp::Mul)
    };
    let y = np_rt(ops::np_binary(up, &x, &k))?;
    let y = np_rt(np_unary(NpUnary::Rint, &y))?;
    let r = np_rt(ops::np_binary(down, &y, &k))?;
    np_rt(ops::cast(&r, d))
}

/// Whether each pair is equal within `atol + rtol * |b|`.
#[native("isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)")]
fn isclose(
    vm: &dyn Vm,
    a: &Value,
    b: &Value,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> PyResult<Value> {
    let (x, y) = nep50_pair(vm, a, b)?;
    let shape = x.shape().broadcast(y.shape()).ok_or_else(|| {
        PyErr::new(
            ExcType::ValueError,
            np_broadcast_message(&[x.shape(), y.shape()]),
        )
    })?;
    let x = np_rt(ops::broadcast_to(&x, shape.dims()))?.to_scalars();
    let y = np_rt(ops::broadcast_to(&y, shape.dims()))?.to_scalars();
    let out: Vec<bool> = x
        .iter()
        .zip(&y)
        .map(|(p, q)| {
            let ((pr, pi), (qr, qi)) = (p.as_complex(), q.as_complex());
            if pr.is_nan() || pi.is_nan() || qr.is_nan() || qi.is_nan() {
                return equal_nan && (pr.is_nan() || pi.is_nan()) && (qr.is_nan() || qi.is_nan());
            }
            if (pr, pi) == (qr, qi) {
                return true;
            }
            (pr - qr).hypot(pi - qi) <= atol + rtol * qr.hypot(qi)
        })
        .collect();
    Ok(wrap(np_rt(Tensor::from_vec(out, shape.dims()))?))
}

fn logical_reduce(
    vm: &dyn Vm,
    op: ReduceOp,
    a: &Value,
    axis: &Value,
    keepdims: bool,
) -> PyResult<Value> {
    let t = truthy(&to_np_tensor(vm, a, None)?)?;
    let axes = axes_arg(vm, axis)?;
    Ok(wrap(np_rt(ops::np_reduce(
        op,
        &t,
        axes.as_deref(),
        keepdims,
    ))?))
}

/// Whether any element is true (along `axis`).
#[native("any(a, axis=None, keepdims=False)")]
fn any(vm: &dyn Vm, a: &Value, axis: &Value, keepdims: bool) -> PyResult<Value> {
    logical_reduce(vm, ReduceOp::Any, a, axis, keepdims)
}

/// Whether every element is true (along `axis`).
#[native("all(a, axis=None, keepdims=False)")]
fn all(vm: &dyn Vm, a: &Value, axis: &Value, keepdims: bool) -> PyResult<Value> {
    logical_reduce(vm, ReduceOp::All, a, axis, keepdims)
}

/// Running sums or products along `axis` (of the flattened array by
/// default); small ints accumulate in int64, bools too.
pub fn accumulate(
    vm: &dyn Vm,
    t: &Tensor,
    axis: &Value,
    dtype: &Value,
    prod: bool,
) -> PyResult<Tensor> {
    let (t, ax) = match axis {
        Value::None => (flat(t)?, 0),
        v => {
            let ax = crate::object::tensor::convert::axis_arg(vm, v)?;
            (t.clone(), norm_axis(ax, t.rank())?)
        }
    };
    let d = match opt_np_dtype(vm, dtype)? {
        Some(d) => d,
        None => match t.dtype() {
            DType::Bool | DType::Int8 | DType::Int16 | DType::Int32 | DType::UInt8 => DType::Int64,
            d => d,
        },
    };
    let t = np_rt(ops::cast(&t, d))?;
    np_rt(ops::scan::cumulative(&t, ax as i64, false, false, prod))
}

/// Running sums.
#[native("cumsum(a, axis=None, dtype=None)")]
fn cumsum(vm: &dyn Vm, a: &Value, axis: &Value, dtype: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(accumulate(vm, &t, axis, dtype, false)?))
}

/// Running products.
#[native("cumprod(a, axis=None, dtype=None)")]
fn cumprod(vm: &dyn Vm, a: &Value, axis: &Value, dtype: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(accumulate(vm, &t, axis, dtype, true)?))
}

/// Elements picked by flat indices (or along `axis`).
#[native("take(a, indices, axis=None)")]
fn take(vm: &dyn Vm, a: &Value, indices: &Value, axis: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let (t, ax) = match axis {
        Value::None => (flat(&t)?, 0),
        v => {
            let ax = crate::object::tensor::convert::axis_arg(vm, v)?;
            (t.clone(), norm_axis(ax, t.rank())?)
        }
    };
    let idx = np_rt(ops::cast(&to_np_tensor(vm, indices, None)?, DType::Int64))?;
    let n = t.dims()[ax] as i64;
    for s in idx.to_scalars() {
        let i = s.as_f64() as i64;
        if i < -n || i >= n {
            return Err(PyErr::new(
                ExcType::IndexError,
                format!("index {i} is out of bounds for axis {ax} with size {n}"),
            ));
        }
    }
    let nn = np_rt(Tensor::fill(
        &[],
        &Scalar::Int(n),
        DType::Int64,
        Device::CPU0,
    ))?;
    let idx = np_rt(ops::np_binary(BinaryOp::FloorMod, &idx, &nn))?;
    Ok(wrap(np_rt(ops::gather(&t, &idx, ax as i64))?))
}

/// The `n`-th differences along `axis`.
#[native("diff(a, n=1, axis=-1)")]
fn diff(vm: &dyn Vm, a: &Value, n: i64, axis: i64) -> PyResult<Value> {
    let mut t = to_np_tensor(vm, a, None)?;
    if t.rank() == 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            "diff requires input that is at least one dimensional",
        ));
    }
    let ax = norm_axis(axis, t.rank())?;
    for _ in 0..n.max(0) {
        let len = t.dims()[ax];
        if len == 0 {
            break;
        }
        let pick = |lo: usize, hi: usize| -> PyResult<Tensor> {
            let idx: Vec<i64> = (lo as i64..hi as i64).collect();
            let k = idx.len();
            np_rt(ops::gather(
                &t,
                &np_rt(Tensor::from_vec(idx, &[k]))?,
                ax as i64,
            ))
        };
        let (hi, lo) = (pick(1, len)?, pick(0, len - 1)?);
        t = if t.dtype() == DType::Bool {
            np_rt(ops::np_binary(BinaryOp::NotEqual, &hi, &lo))?
        } else {
            np_rt(ops::np_binary(BinaryOp::Sub, &hi, &lo))?
        };
    }
    Ok(wrap_array(t))
}

/// The median along `axis` (the mean of the two middle values of an
/// even count).
#[native("median(a, axis=None, keepdims=False)")]
fn median(vm: &dyn Vm, a: &Value, axis: &Value, keepdims: bool) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let t = if t.dtype().is_floating() {
        t
    } else {
        np_rt(ops::cast(&t, DType::Float64))?
    };
    let s = sorted(
        vm,
        &t,
        if matches!(axis, Value::None) {
            &Value::None
        } else {
            axis
        },
    )?;
    let ax = match axis {
        Value::None => 0,
        v => norm_axis(crate::object::tensor::convert::axis_arg(vm, v)?, t.rank())?,
    };
    let n = s.dims()[ax];
    if n == 0 {
        return Ok(wrap(np_rt(Tensor::fill(
            &[],
            &Scalar::Float(f64::NAN),
            t.dtype(),
            Device::CPU0,
        ))?));
    }
    let mid: Vec<i64> = if n % 2 == 1 {
        vec![(n / 2) as i64]
    } else {
        vec![(n / 2 - 1) as i64, (n / 2) as i64]
    };
    let k = mid.len();
    let picked = np_rt(ops::gather(
        &s,
        &np_rt(Tensor::from_vec(mid, &[k]))?,
        ax as i64,
    ))?;
    let r = np_rt(ops::np_reduce(
        ReduceOp::Mean,
        &picked,
        Some(&[ax as i64]),
        true,
    ))?;
    let r = if keepdims && matches!(axis, Value::None) {
        np_rt(ops::reshape(&r, &vec![1; t.rank()], Semantics::Numpy))?
    } else if keepdims {
        r
    } else {
        let dims: Vec<i64> = r
            .dims()
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != ax)
            .map(|(_, &d)| d as i64)
            .collect();
        np_rt(ops::reshape(&r, &dims, Semantics::Numpy))?
    };
    Ok(wrap(r))
}

/// The functions of this file.
pub const FUNCTIONS: &[NativeDef] = &[
    argsort::DEF,
    sort::DEF,
    unique::DEF,
    argmin::DEF,
    nonzero::DEF,
    argwhere::DEF,
    flatnonzero::DEF,
    count_nonzero::DEF,
    where_::DEF,
    clip::DEF,
    round::DEF,
    around::DEF,
    isclose::DEF,
    any::DEF,
    all::DEF,
    cumsum::DEF,
    cumprod::DEF,
    take::DEF,
    diff::DEF,
    median::DEF,
];
