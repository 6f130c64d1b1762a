//! numpy's shape and joining functions (`expand_dims`, `squeeze`,
//! `transpose`, `vstack`, `split`, `tile`, `repeat`…), its matrix
//! constructors (`eye`, `identity`, `diag`) and products (`dot`, `matmul`,
//! `outer`, `einsum`), over the runtime's ops with numpy's rules and words.

use super::array::{wrap, wrap_array};
use super::ufunc::np_rt;
use super::{alloc_error, dims_of, seq_tensors, to_np_tensor};
use crate::object::numpy::{opt_np_dtype, promoted};
use crate::object::tensor::convert::{axes_arg, axis_arg, int_list};
use crate::object::{native, NativeDef};
use crate::runtime::ops::elementwise::np_shape;
use crate::runtime::{ops, BinaryOp, DType, Device, ReduceOp, Semantics, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

fn axis_error(axis: i64, ndim: usize) -> PyErr {
    PyErr::new(
        ExcType::AxisError,
        format!("axis {axis} is out of bounds for array of dimension {ndim}"),
    )
}

/// `axis` counted from the front of `ndim` dimensions (numpy's AxisError).
pub fn norm_axis(axis: i64, ndim: usize) -> PyResult<usize> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        return Err(axis_error(axis, ndim));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

fn reshaped(t: &Tensor, dims: &[usize]) -> PyResult<Tensor> {
    let d: Vec<i64> = dims.iter().map(|&x| x as i64).collect();
    np_rt(ops::reshape(t, &d, Semantics::Numpy))
}

/// New axes of size 1 at `axis` (an int or a tuple, counted in the result).
#[native("expand_dims(a, axis)")]
fn expand_dims(vm: &dyn Vm, a: &Value, axis: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let axes = int_list(vm, axis)?;
    let out_rank = t.rank() + axes.len();
    let mut at: Vec<usize> = axes
        .iter()
        .map(|&x| norm_axis(x, out_rank))
        .collect::<PyResult<_>>()?;
    at.sort_unstable();
    if at.windows(2).any(|w| w[0] == w[1]) {
        return Err(PyErr::new(ExcType::ValueError, "repeated axis"));
    }
    let mut src = t.dims().iter();
    let dims: Vec<usize> = (0..out_rank)
        .map(|i| {
            if at.contains(&i) {
                1
            } else {
                src.next().copied().unwrap_or(1)
            }
        })
        .collect();
    Ok(wrap_array(reshaped(&t, &dims)?))
}

/// Removes axes of size 1 (all of them, or those of `axis`).
#[native("squeeze(a, axis=None)")]
fn squeeze(vm: &dyn Vm, a: &Value, axis: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(squeezed(vm, &t, axis)?))
}

pub fn squeezed(vm: &dyn Vm, t: &Tensor, axis: &Value) -> PyResult<Tensor> {
    let drop: Vec<usize> = match axes_arg(vm, axis)? {
        None => (0..t.rank()).filter(|&i| t.dims()[i] == 1).collect(),
        Some(axes) => {
            let mut v = Vec::new();
            for x in axes {
                let i = norm_axis(x, t.rank())?;
                if t.dims()[i] != 1 {
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        "cannot select an axis to squeeze out which has size not equal to one",
                    ));
                }
                v.push(i);
            }
            v
        }
    };
    let dims: Vec<usize> = (0..t.rank())
        .filter(|i| !drop.contains(i))
        .map(|i| t.dims()[i])
        .collect();
    reshaped(t, &dims)
}

/// The axes permuted (reversed by default).
#[native("transpose(a, axes=None)")]
fn transpose(vm: &dyn Vm, a: &Value, axes: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(permuted(vm, &t, axes)?))
}

pub fn permuted(vm: &dyn Vm, t: &Tensor, axes: &Value) -> PyResult<Tensor> {
    let perm = match axes_arg(vm, axes)? {
        None => None,
        Some(p) => {
            if p.len() != t.rank() {
                return Err(PyErr::new(ExcType::ValueError, "axes don't match array"));
            }
            let mut seen = vec![false; t.rank()];
            let mut q = Vec::new();
            for x in p {
                let i = norm_axis(x, t.rank())?;
                if std::mem::replace(&mut seen[i], true) {
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        "repeated axis in transpose",
                    ));
                }
                q.push(i as i64);
            }
            Some(q)
        }
    };
    np_rt(ops::transpose(t, perm.as_deref()))
}

/// Two axes interchanged.
#[native("swapaxes(a, axis1, axis2)")]
fn swapaxes(vm: &dyn Vm, a: &Value, axis1: i64, axis2: i64) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(swapped(&t, axis1, axis2)?))
}

pub fn swapped(t: &Tensor, axis1: i64, axis2: i64) -> PyResult<Tensor> {
    let named = |axis: i64, name: &str| {
        norm_axis(axis, t.rank()).map_err(|_| {
            PyErr::new(
                ExcType::AxisError,
                format!(
                    "{name}: axis {axis} is out of bounds for array of dimension {}",
                    t.rank()
                ),
            )
        })
    };
    let (i, j) = (named(axis1, "axis1")?, named(axis2, "axis2")?);
    let mut perm: Vec<i64> = (0..t.rank() as i64).collect();
    perm.swap(i, j);
    np_rt(ops::transpose(t, Some(&perm)))
}

/// One axis moved to a new position, the others in order.
#[native("moveaxis(a, source, destination)")]
fn moveaxis(vm: &dyn Vm, a: &Value, source: i64, destination: i64) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let (s, d) = (
        norm_axis(source, t.rank())?,
        norm_axis(destination, t.rank())?,
    );
    let mut order: Vec<i64> = (0..t.rank() as i64).filter(|&i| i != s as i64).collect();
    order.insert(d, s as i64);
    Ok(wrap_array(np_rt(ops::transpose(&t, Some(&order)))?))
}

/// The elements as a 1-D array.
#[native("ravel(a)")]
fn ravel(vm: &dyn Vm, a: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(reshaped(&t, &[t.numel()])?))
}

/// The elements in reverse order along `axis` (all axes by default).
#[native("flip(m, axis=None)")]
fn flip(vm: &dyn Vm, m: &Value, axis: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, m, None)?;
    let axes: Vec<usize> = match axes_arg(vm, axis)? {
        None => (0..t.rank()).collect(),
        Some(a) => a
            .into_iter()
            .map(|x| norm_axis(x, t.rank()))
            .collect::<PyResult<_>>()?,
    };
    Ok(wrap_array(np_rt(ops::reorder::reverse(&t, &axes))?))
}

/// The array repeated `reps` times along each axis.
#[native("tile(A, reps)")]
#[allow(non_snake_case)]
fn tile(vm: &dyn Vm, A: &Value, reps: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, A, None)?;
    let reps = int_list(vm, reps)?;
    let rank = t.rank().max(reps.len());
    let mut dims = vec![1usize; rank - t.rank()];
    dims.extend_from_slice(t.dims());
    let mut mult = vec![1usize; rank - reps.len()];
    for r in reps {
        mult.push(
            usize::try_from(r).map_err(|_| {
                PyErr::new(ExcType::ValueError, "negative dimensions are not allowed")
            })?,
        );
    }
    let t = reshaped(&t, &dims)?;
    let out: Vec<usize> = dims
        .iter()
        .zip(&mult)
        .map(|(a, b)| a.saturating_mul(*b))
        .collect();
    Ok(wrap_array(
        ops::tile(&t, &mult).map_err(|e| alloc_error(e, &out, t.dtype()))?,
    ))
}

/// Each element repeated (along `axis`; of the flattened array by default).
#[native("repeat(a, repeats, axis=None)")]
fn repeat(vm: &dyn Vm, a: &Value, repeats: &Value, axis: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(wrap_array(repeated(vm, &t, repeats, axis)?))
}

pub fn repeated(vm: &dyn Vm, t: &Tensor, repeats: &Value, axis: &Value) -> PyResult<Tensor> {
    let (t, ax) = match axis {
        Value::None => (reshaped(t, &[t.numel()])?, 0),
        v => {
            let ax = norm_axis(axis_arg(vm, v)?, t.rank())?;
            (t.clone(), ax)
        }
    };
    let n = t.dims()[ax];
    let reps = int_list(vm, repeats)?;
    let reps: Vec<i64> = match reps.len() {
        1 => vec![reps[0]; n],
        k if k == n => reps,
        k => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("operands could not be broadcast together with shape ({n},) ({k},)"),
            ))
        }
    };
    if reps.iter().any(|&r| r < 0) {
        return Err(PyErr::new(
            ExcType::ValueError,
            "repeats may not contain negative values.",
        ));
    }
    let total = reps
        .iter()
        .try_fold(0usize, |a, &r| a.checked_add(r as usize))
        .unwrap_or(usize::MAX);
    let mut out_dims = t.dims().to_vec();
    out_dims[ax] = total;
    let mut idx = crate::runtime::storage::try_vec::<i64>(total)
        .map_err(|e| alloc_error(e, &out_dims, t.dtype()))?;
    for (i, &r) in reps.iter().enumerate() {
        idx.extend(std::iter::repeat_n(i as i64, r as usize));
    }
    let len = idx.len();
    let idx = np_rt(Tensor::from_vec(idx, &[len]))?;
    np_rt(ops::gather(&t, &idx, ax as i64))
}

/// Arrays of at least one dimension, as `vstack`/`hstack` see them.
fn at_least(t: Tensor, n: usize) -> PyResult<Tensor> {
    Ok(match (t.rank(), n) {
        (0, 1) => reshaped(&t, &[1])?,
        (0, _) => reshaped(&t, &[1, 1])?,
        (1, 2) => reshaped(&t, &[1, t.numel()])?,
        _ => t,
    })
}

fn joined(vm: &dyn Vm, tup: &Value, n: usize, axis: i64) -> PyResult<Tensor> {
    let ts = seq_tensors(vm, tup)?;
    if ts.is_empty() {
        return Err(PyErr::new(
            ExcType::ValueError,
            "need at least one array to concatenate",
        ));
    }
    let ts: Vec<Tensor> = ts
        .into_iter()
        .map(|t| at_least(t, n))
        .collect::<PyResult<_>>()?;
    let ts = promoted(&ts)?;
    np_rt(ops::concat(&ts, axis))
}

/// Arrays stacked as rows (1-D arrays become rows).
#[native("vstack(tup)")]
fn vstack(vm: &dyn Vm, tup: &Value) -> PyResult<Value> {
    Ok(wrap_array(joined(vm, tup, 2, 0)?))
}

/// Arrays joined along their second axis (1-D arrays end to end).
#[native("hstack(tup)")]
fn hstack(vm: &dyn Vm, tup: &Value) -> PyResult<Value> {
    let ts = seq_tensors(vm, tup)?;
    let one_d = ts.iter().all(|t| t.rank() <= 1);
    Ok(wrap_array(joined(vm, tup, 1, if one_d { 0 } else { 1 })?))
}

/// 1-D arrays as the columns of a 2-D array.
#[native("column_stack(tup)")]
fn column_stack(vm: &dyn Vm, tup: &Value) -> PyResult<Value> {
    let ts = seq_tensors(vm, tup)?;
    let cols: Vec<Tensor> = ts
        .into_iter()
        .map(|t| match t.rank() {
            0 | 1 => reshaped(&t, &[t.numel(), 1]),
            _ => Ok(t),
        })
        .collect::<PyResult<_>>()?;
    let cols = promoted(&cols)?;
    Ok(wrap_array(np_rt(ops::concat(&cols, 1))?))
}

/// Views of `a` in at least one dimension.
#[native("atleast_1d(*arys)")]
fn atleast_1d(vm: &dyn Vm, arys: &[Value]) -> PyResult<Value> {
    at_least_all(vm, arys, 1)
}

/// Views of `a` in at least two dimensions.
#[native("atleast_2d(*arys)")]
fn atleast_2d(vm: &dyn Vm, arys: &[Value]) -> PyResult<Value> {
    at_least_all(vm, arys, 2)
}

fn at_least_all(vm: &dyn Vm, arys: &[Value], n: usize) -> PyResult<Value> {
    let out: Vec<Value> = arys
        .iter()
        .map(|a| Ok(wrap_array(at_least(to_np_tensor(vm, a, None)?, n)?)))
        .collect::<PyResult<_>>()?;
    Ok(match <[Value; 1]>::try_from(out) {
        Ok([one]) => one,
        Err(many) => Value::tuple(many),
    })
}

/// Splits into equal sections, or at the given indices.
#[native("split(ary, indices_or_sections, axis=0)")]
fn split(vm: &dyn Vm, ary: &Value, indices_or_sections: &Value, axis: i64) -> PyResult<Value> {
    split_at(vm, ary, indices_or_sections, axis, true)
}

/// Splits into sections that may differ in size by one.
#[native("array_split(ary, indices_or_sections, axis=0)")]
fn array_split(
    vm: &dyn Vm,
    ary: &Value,
    indices_or_sections: &Value,
    axis: i64,
) -> PyResult<Value> {
    split_at(vm, ary, indices_or_sections, axis, false)
}

fn split_at(vm: &dyn Vm, ary: &Value, spec: &Value, axis: i64, equal: bool) -> PyResult<Value> {
    let t = to_np_tensor(vm, ary, None)?;
    let ax = norm_axis(axis, t.rank())?;
    let n = t.dims()[ax] as i64;
    let bounds: Vec<i64> = match spec {
        Value::Int(k) => {
            let k = *k;
            if k <= 0 {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "number sections must be larger than 0.",
                ));
            }
            if equal && n % k != 0 {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "array split does not result in an equal division",
                ));
            }
            let (each, extra) = (n / k, n % k);
            let mut b = Vec::new();
            let too_many = k as u64 > crate::runtime::shape::MAX_ELEMENTS as u64;
            if too_many || b.try_reserve_exact(k as usize + 1).is_err() {
                return Err(PyErr::new(ExcType::MemoryError, ""));
            }
            b.push(0);
            for i in 0..k {
                b.push(b[i as usize] + each + i64::from(i < extra));
            }
            b
        }
        v => {
            let mut b = vec![0];
            b.extend(int_list(vm, v)?.into_iter().map(|i| {
                let i = if i < 0 { i + n } else { i };
                i.clamp(0, n)
            }));
            b.push(n);
            b
        }
    };
    let mut parts: Vec<Value> = Vec::new();
    if parts.try_reserve_exact(bounds.len()).is_err() {
        return Err(PyErr::new(ExcType::MemoryError, ""));
    }
    for w in bounds.windows(2) {
        let (lo, hi) = (w[0], w[1].max(w[0]));
        let idx: Vec<i64> = (lo..hi).collect();
        let len = idx.len();
        let idx = np_rt(Tensor::from_vec(idx, &[len]))?;
        parts.push(wrap_array(np_rt(ops::gather(&t, &idx, ax as i64))?));
    }
    Ok(Value::list(parts))
}

/// A 2-D array with ones on the `k`-th diagonal.
#[native("eye(N, M=None, k=0, dtype=None)")]
#[allow(non_snake_case)]
fn eye(vm: &dyn Vm, N: i64, M: Option<i64>, k: i64, dtype: &Value) -> PyResult<Value> {
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(DType::Float64);
    let m = M.unwrap_or(N);
    let (n, m) = (dim(N)?, dim(m)?);
    let mut t = Tensor::zeros(d, &[n, m], Device::CPU0).map_err(|e| alloc_error(e, &[n, m], d))?;
    let one = np_rt(Tensor::fill(
        &[],
        &crate::runtime::Scalar::Int(1),
        d,
        Device::CPU0,
    ))?;
    let (row0, col0) = if k >= 0 {
        (0, k as usize)
    } else {
        (k.unsigned_abs() as usize, 0)
    };
    for i in 0..n.saturating_sub(row0).min(m.saturating_sub(col0)) {
        let at = [
            ops::IndexItem::Int((row0 + i) as i64),
            ops::IndexItem::Int((col0 + i) as i64),
        ];
        np_rt(ops::index_assign(&mut t, &at, &one))?;
    }
    Ok(wrap_array(t))
}

fn dim(n: i64) -> PyResult<usize> {
    usize::try_from(n)
        .map_err(|_| PyErr::new(ExcType::ValueError, "negative dimensions are not allowed"))
}

/// The `n` by `n` identity matrix.
#[native("identity(n, dtype=None)")]
fn identity(vm: &dyn Vm, n: i64, dtype: &Value) -> PyResult<Value> {
    eye(vm, n, None, 0, dtype)
}

/// The `k`-th diagonal of a 2-D array, or a 2-D array with `v` on it.
#[native("diag(v, k=0)")]
fn diag(vm: &dyn Vm, v: &Value, k: i64) -> PyResult<Value> {
    let t = to_np_tensor(vm, v, None)?;
    let vals = t.to_scalars();
    let off = k.unsigned_abs() as usize;
    let (row0, col0) = if k >= 0 { (0, off) } else { (off, 0) };
    match t.rank() {
        1 => {
            let n = vals.len().saturating_add(off);
            let mut out = Tensor::zeros(t.dtype(), &[n, n], Device::CPU0)
                .map_err(|e| alloc_error(e, &[n, n], t.dtype()))?;
            for (i, s) in vals.iter().enumerate() {
                let item = np_rt(Tensor::fill(&[], s, t.dtype(), Device::CPU0))?;
                let at = [
                    ops::IndexItem::Int((row0 + i) as i64),
                    ops::IndexItem::Int((col0 + i) as i64),
                ];
                np_rt(ops::index_assign(&mut out, &at, &item))?;
            }
            Ok(wrap_array(out))
        }
        2 => {
            let (r, c) = (t.dims()[0], t.dims()[1]);
            let len = r.saturating_sub(row0).min(c.saturating_sub(col0));
            let idx: Vec<i64> = (0..len)
                .map(|i| ((row0 + i) * c + col0 + i) as i64)
                .collect();
            let flat = reshaped(&t, &[r * c])?;
            let idx = np_rt(Tensor::from_vec(idx, &[len]))?;
            Ok(wrap_array(np_rt(ops::gather(&flat, &idx, 0))?))
        }
        _ => Err(PyErr::new(ExcType::ValueError, "Input must be 1- or 2-d.")),
    }
}

/// An array shaped like `a` (dist's holds zeros).
#[native("empty_like(prototype, dtype=None)")]
fn empty_like(vm: &dyn Vm, prototype: &Value, dtype: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, prototype, None)?;
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(t.dtype());
    Ok(wrap_array(np_rt(Tensor::zeros(d, t.dims(), Device::CPU0))?))
}

/// An array shaped like `a` filled with `fill_value`.
#[native("full_like(a, fill_value, dtype=None)")]
fn full_like(vm: &dyn Vm, a: &Value, fill_value: &Value, dtype: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(t.dtype());
    let v = to_np_tensor(vm, fill_value, None)?;
    let v = np_rt(ops::cast(&v, d))?;
    Ok(wrap_array(np_rt(ops::broadcast_to(&v, t.dims()))?))
}

/// `array` broadcast to `shape`.
#[native("broadcast_to(array, shape)")]
fn broadcast_to(vm: &dyn Vm, array: &Value, shape: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, array, None)?;
    let dims = dims_of(vm, shape)?;
    let ok = crate::runtime::Shape::new(&dims)
        .broadcast(t.shape())
        .is_some_and(|s| s.dims() == dims.as_slice());
    if !ok {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "operands could not be broadcast together with remapped shapes [original->remapped]: {}  and requested shape {}",
                np_shape(t.shape()),
                np_shape(&crate::runtime::Shape::new(&dims))
            ),
        ));
    }
    Ok(wrap_array(np_rt(ops::broadcast_to(&t, &dims))?))
}

fn product_operands(vm: &dyn Vm, a: &Value, b: &Value) -> PyResult<(Tensor, Tensor)> {
    let x = to_np_tensor(vm, a, None)?;
    let y = to_np_tensor(vm, b, None)?;
    let d = np_rt(ops::promote_types(x.dtype(), y.dtype()))?;
    Ok((np_rt(ops::cast(&x, d))?, np_rt(ops::cast(&y, d))?))
}

fn mismatch(x: &Tensor, y: &Tensor, kx: usize, ky: usize) -> PyErr {
    PyErr::new(
        ExcType::ValueError,
        format!(
            "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
            np_shape(x.shape()),
            np_shape(y.shape()),
            x.dims()[kx],
            kx,
            y.dims()[ky],
            ky
        ),
    )
}

/// numpy's `dot`: products of scalars, the inner product of vectors, the
/// matrix product, and sums over the last axis of `a` and the
/// second-to-last of `b` beyond.
#[native("dot(a, b)")]
fn dot(vm: &dyn Vm, a: &Value, b: &Value) -> PyResult<Value> {
    let (x, y) = product_operands(vm, a, b)?;
    Ok(wrap(dotted(&x, &y)?))
}

pub fn dotted(x: &Tensor, y: &Tensor) -> PyResult<Tensor> {
    if x.rank() == 0 || y.rank() == 0 {
        return np_rt(ops::np_binary(BinaryOp::Mul, x, y));
    }
    let kx = x.rank() - 1;
    let ky = if y.rank() == 1 { 0 } else { y.rank() - 2 };
    if x.dims()[kx] != y.dims()[ky] {
        return Err(mismatch(x, y, kx, ky));
    }
    let k = x.dims()[kx];
    // a as [m, k], b as [k, n] with its contracted axis moved first
    let m = x.numel() / k.max(1);
    let xa = reshaped(x, &[m, k])?;
    let yt = if y.rank() >= 2 {
        let mut perm: Vec<i64> = vec![ky as i64];
        perm.extend((0..y.rank() as i64).filter(|&i| i != ky as i64));
        np_rt(ops::transpose(y, Some(&perm)))?
    } else {
        y.clone()
    };
    let n = y.numel() / k.max(1);
    let yb = reshaped(&yt, &[k, n])?;
    let r = matmul_any(&xa, &yb)?;
    let mut dims: Vec<usize> = x.dims()[..kx].to_vec();
    dims.extend(
        y.dims()
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != ky)
            .map(|(_, &d)| d),
    );
    reshaped(&r, &dims)
}

/// A matrix product of any dtype (bools as numpy multiplies them: or of ands).
fn matmul_any(a: &Tensor, b: &Tensor) -> PyResult<Tensor> {
    if a.dtype() == DType::Bool {
        let ai = np_rt(ops::cast(a, DType::Int64))?;
        let bi = np_rt(ops::cast(b, DType::Int64))?;
        let r = matmul_any(&ai, &bi)?;
        return np_rt(ops::cast(&r, DType::Bool));
    }
    np_rt(ops::matmul(a, b, false, false))
}

/// The matrix product (`a @ b`), broadcasting over leading axes.
#[native("matmul(x1, x2)")]
fn matmul(vm: &dyn Vm, x1: &Value, x2: &Value) -> PyResult<Value> {
    let (x, y) = product_operands(vm, x1, x2)?;
    if x.rank() == 0 || y.rank() == 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        ));
    }
    if x.rank() <= 2 && y.rank() <= 2 {
        return Ok(wrap(dotted(&x, &y)?));
    }
    Ok(wrap(np_rt(ops::matmul(&x, &y, false, false))?))
}

/// The outer product of two vectors (inputs flattened).
#[native("outer(a, b)")]
fn outer(vm: &dyn Vm, a: &Value, b: &Value) -> PyResult<Value> {
    let (x, y) = product_operands(vm, a, b)?;
    let x = reshaped(&x, &[x.numel(), 1])?;
    let y = reshaped(&y, &[1, y.numel()])?;
    Ok(wrap_array(np_rt(ops::np_binary(BinaryOp::Mul, &x, &y))?))
}

/// The inner product over the last axes.
#[native("inner(a, b)")]
fn inner(vm: &dyn Vm, a: &Value, b: &Value) -> PyResult<Value> {
    let (x, y) = product_operands(vm, a, b)?;
    if y.rank() >= 2 {
        let y = swapped(&y, -1, -2)?;
        return Ok(wrap(dotted(&x, &y)?));
    }
    Ok(wrap(dotted(&x, &y)?))
}

/// The sum of the diagonal.
#[native("trace(a)")]
fn trace(vm: &dyn Vm, a: &Value) -> PyResult<Value> {
    let d = diag(vm, a, 0)?;
    let t = to_np_tensor(vm, &d, None)?;
    Ok(wrap(np_rt(ops::np_reduce(ReduceOp::Sum, &t, None, false))?))
}

/// Einstein summation over the operands.
#[native("einsum(subscripts, *operands)")]
fn einsum(vm: &dyn Vm, subscripts: &str, operands: &[Value]) -> PyResult<Value> {
    let ts = promoted(&seq_tensors(vm, &Value::list(operands.to_vec()))?)?;
    Ok(wrap(np_rt(ops::einsum::einsum(subscripts, &ts))?))
}

/// Coordinate matrices from coordinate vectors (`indexing='xy'` or `'ij'`).
#[native("meshgrid(*xi, indexing='xy')")]
fn meshgrid(vm: &dyn Vm, xi: &[Value], indexing: &str) -> PyResult<Value> {
    if indexing != "xy" && indexing != "ij" {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Valid values for `indexing` are 'xy' and 'ij'.",
        ));
    }
    let vs: Vec<Tensor> = xi
        .iter()
        .map(|v| to_np_tensor(vm, v, None).and_then(|t| reshaped(&t, &[t.numel()])))
        .collect::<PyResult<_>>()?;
    let mut dims: Vec<usize> = vs.iter().map(|t| t.numel()).collect();
    let xy = indexing == "xy" && dims.len() >= 2;
    if xy {
        dims.swap(0, 1);
    }
    let out = vs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut shape = vec![1usize; dims.len()];
            let at = match (xy, i) {
                (true, 0) => 1,
                (true, 1) => 0,
                _ => i,
            };
            shape[at] = t.numel();
            let t = reshaped(t, &shape)?;
            Ok(wrap_array(
                ops::broadcast_to(&t, &dims).map_err(|e| alloc_error(e, &dims, t.dtype()))?,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Value::tuple(out))
}

/// The functions of this file.
pub const FUNCTIONS: &[NativeDef] = &[
    expand_dims::DEF,
    squeeze::DEF,
    transpose::DEF,
    swapaxes::DEF,
    moveaxis::DEF,
    ravel::DEF,
    flip::DEF,
    tile::DEF,
    repeat::DEF,
    vstack::DEF,
    hstack::DEF,
    column_stack::DEF,
    atleast_1d::DEF,
    atleast_2d::DEF,
    split::DEF,
    array_split::DEF,
    eye::DEF,
    identity::DEF,
    diag::DEF,
    empty_like::DEF,
    full_like::DEF,
    broadcast_to::DEF,
    dot::DEF,
    matmul::DEF,
    outer::DEF,
    inner::DEF,
    trace::DEF,
    einsum::DEF,
    meshgrid::DEF,
];
