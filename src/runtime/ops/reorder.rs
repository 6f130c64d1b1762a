//! Ops that move, find or count elements: `Roll`, `ReverseV2` (each a
//! gather of the flattened tensor at computed positions, recorded as one
//! op whose gradient is the same op undone), `Unique` /
//! `UniqueWithCounts`, `LowerBound` / `UpperBound` (`tf.searchsorted`) and
//! `HistogramFixedWidth`, with TensorFlow's kernel messages. Unique and the
//! histogram have no gradient in TensorFlow (`LookupError`); the bounds are
//! not differentiable (`None`).

use crate::runtime::autodiff::grad::{GradOp, NoGrad};
use crate::runtime::autodiff::tape;
use crate::runtime::{DType, Error, ErrorKind, Result, Scalar, Semantics, Tensor};

use super::gather::gather;
use super::shape_ops::reshape;

fn kernel(node: &str, x: &Tensor, msg: &str, name: &str) -> Error {
    Error::kernel(
        ErrorKind::InvalidArgument,
        node,
        &x.device(),
        msg,
        node,
        name,
    )
}

/// `x` flattened, gathered at `positions`, in `x`'s shape.
fn permuted(x: &Tensor, positions: Vec<i64>) -> Result<Tensor> {
    let flat = reshape(x, &[-1], Semantics::Tf)?;
    let n = positions.len();
    let idx = Tensor::from_vec(positions, &[n])?.to_device(x.device())?;
    let out = gather(&flat, &idx, 0)?;
    let dims: Vec<i64> = x.dims().iter().map(|&d| d as i64).collect();
    reshape(&out, &dims, Semantics::Tf)
}

/// Row-major strides of `dims`.
fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// The source position of every output element, each output coordinate
/// mapped by `src(axis, coordinate)`.
fn positions(dims: &[usize], src: impl Fn(usize, usize) -> usize) -> Vec<i64> {
    let n: usize = dims.iter().product();
    let st = strides(dims);
    (0..n)
        .map(|flat| {
            let mut rem = flat;
            let mut pos = 0;
            for (a, s) in st.iter().enumerate() {
                let c = rem / s;
                rem %= s;
                pos += src(a, c) * s;
            }
            pos as i64
        })
        .collect()
}

/// The per-axis shifts `tf.roll(x, shift, axis)` amounts to, each reduced
/// modulo its dimension (TensorFlow's checks and messages).
pub fn roll_shifts(x: &Tensor, shift: &[i64], axis: &[i64]) -> Result<Vec<i64>> {
    if x.rank() == 0 {
        return Err(kernel("Roll", x, "input must be 1-D or higher", " name: "));
    }
    if shift.len() != axis.len() {
        return Err(kernel(
            "Roll",
            x,
            "shift and axis must have the same size",
            "",
        ));
    }
    let r = x.rank() as i64;
    let mut total = vec![0i64; x.rank()];
    for (&s, &a) in shift.iter().zip(axis) {
        let ax = if a < 0 { a + r } else { a };
        if !(0..r).contains(&ax) {
            return Err(kernel(
                "Roll",
                x,
                &format!("axis {a} is out of range"),
                " name: ",
            ));
        }
        total[ax as usize] += s;
    }
    Ok(total
        .iter()
        .zip(x.dims())
        .map(|(&s, &d)| if d == 0 { 0 } else { s.rem_euclid(d as i64) })
        .collect())
}

/// `Roll` by a shift per axis (`roll_shifts`).
pub fn roll(x: &Tensor, shifts: &[i64]) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Roll(shifts.to_vec()),
        &[x],
        || {
            let dims = x.dims().to_vec();
            permuted(
                x,
                positions(&dims, |a, c| {
                    let d = dims[a] as i64;
                    (c as i64 - shifts[a]).rem_euclid(d.max(1)) as usize
                }),
            )
        },
    )
}

/// The axes `tf.reverse(x, axis)` reverses, normalized (TensorFlow's checks
/// and messages).
pub fn reverse_axes(x: &Tensor, axis: &[i64]) -> Result<Vec<usize>> {
    let r = x.rank() as i64;
    let mut out: Vec<usize> = Vec::with_capacity(axis.len());
    for (i, &a) in axis.iter().enumerate() {
        let ax = if a < 0 { a + r } else { a };
        if !(0..r).contains(&ax) {
            return Err(kernel(
                "ReverseV2",
                x,
                &format!("'axis'[{i}] = {a} is out of valid range [0, {}", r - 1),
                "",
            ));
        }
        if out.contains(&(ax as usize)) {
            return Err(kernel(
                "ReverseV2",
                x,
                &format!("axis {ax} specified more than once."),
                "",
            ));
        }
        out.push(ax as usize);
    }
    out.sort_unstable();
    Ok(out)
}

/// `ReverseV2` along the (normalized) `axes`.
pub fn reverse(x: &Tensor, axes: &[usize]) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Reverse(axes.to_vec()),
        &[x],
        || {
            if axes.is_empty() {
                return reshape(
                    x,
                    &x.dims().iter().map(|&d| d as i64).collect::<Vec<_>>(),
                    Semantics::Tf,
                );
            }
            let dims = x.dims().to_vec();
            permuted(
                x,
                positions(&dims, |a, c| {
                    if axes.contains(&a) {
                        dims[a] - 1 - c
                    } else {
                        c
                    }
                }),
            )
        },
    )
}

/// Whether two elements are the same key of TensorFlow's hash map (float
/// `==`: `0.0` and `-0.0` are one, each NaN its own).
fn same(a: &Scalar, b: &Scalar) -> bool {
    match (a, b) {
        (Scalar::Float(x), Scalar::Float(y)) => x == y,
        (Scalar::Complex(a, b), Scalar::Complex(c, d)) => a == c && b == d,
        _ => a == b,
    }
}

/// A key for the hash map: floats by value with `-0.0` as `0.0` (NaNs never
/// match through `same`).
fn key(s: &Scalar) -> (u8, u64, Vec<u8>) {
    match s {
        Scalar::Bool(b) => (0, *b as u64, Vec::new()),
        Scalar::Int(i) => (1, *i as u64, Vec::new()),
        Scalar::Float(f) => (2, if *f == 0.0 { 0 } else { f.to_bits() }, Vec::new()),
        Scalar::Complex(re, im) => {
            let bits = |x: f64| if x == 0.0 { 0 } else { x.to_bits() };
            (4, bits(*re), bits(*im).to_le_bytes().to_vec())
        }
        Scalar::Bytes(b) => (3, 0, b.clone()),
    }
}

/// `Unique` / `UniqueWithCounts` of a 1-D tensor: `(y, idx, count)` in the
/// order of first occurrence, `idx` and `count` of `out_idx`.
pub fn unique(x: &Tensor, out_idx: DType, with_counts: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let node = if with_counts {
        "UniqueWithCounts"
    } else {
        "Unique"
    };
    if x.rank() != 1 {
        return Err(kernel(node, x, "unique expects a 1D vector.", " name: "));
    }
    let values = x.to_scalars();
    let mut first: Vec<i64> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut idx: Vec<i64> = Vec::with_capacity(values.len());
    let mut map: std::collections::HashMap<(u8, u64, Vec<u8>), usize> = Default::default();
    for (i, v) in values.iter().enumerate() {
        let k = key(v);
        let found = map
            .get(&k)
            .copied()
            .filter(|&u| same(&values[first[u] as usize], v));
        let u = match found {
            Some(u) => u,
            None => {
                first.push(i as i64);
                counts.push(0);
                map.insert(k, first.len() - 1);
                first.len() - 1
            }
        };
        counts[u] += 1;
        idx.push(u as i64);
    }
    let outs = tape::suspended(|| {
        let n = first.len();
        let pos = Tensor::from_vec(first, &[n])?.to_device(x.device())?;
        let y = gather(x, &pos, 0)?;
        let as_idx = |v: Vec<i64>| -> Result<Tensor> {
            let n = v.len();
            let t = Tensor::from_vec(v, &[n])?;
            super::cast(&t, out_idx)?.to_device(x.device())
        };
        Ok((y, as_idx(idx)?, as_idx(counts)?))
    })?;
    tape::record(
        || {
            GradOp::NoGrad(NoGrad(if with_counts {
                "UniqueWithCounts"
            } else {
                "Unique"
            }))
        },
        &[x],
        &[&outs.0],
    );
    Ok(outs)
}

fn cmp(a: &Scalar, b: &Scalar) -> std::cmp::Ordering {
    match (a, b) {
        (Scalar::Int(x), Scalar::Int(y)) => x.cmp(y),
        (Scalar::Bytes(x), Scalar::Bytes(y)) => x.cmp(y),
        _ => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(std::cmp::Ordering::Equal),
    }
}

/// `LowerBound` (`right`: `UpperBound`) of each row of `values` in the
/// matching row of `sorted` (both at least 1-D, same leading dimensions
/// as TensorFlow's `searchsorted` reshapes them to 2-D).
pub fn search_sorted(sorted: &Tensor, values: &Tensor, right: bool, out: DType) -> Result<Tensor> {
    let node = if right { "UpperBound" } else { "LowerBound" };
    let rows = |t: &Tensor| -> usize { t.dims()[..t.rank().saturating_sub(1)].iter().product() };
    if sorted.rank() == 0 || values.rank() == 0 || rows(sorted) != rows(values) {
        return Err(kernel(
            node,
            sorted,
            "Leading dim_size of both tensors must match.",
            " name: ",
        ));
    }
    if sorted.dtype().is_complex() {
        return Err(super::attr_error(node, sorted.dtype()));
    }
    let (s, v) = (sorted.to_scalars(), values.to_scalars());
    let (sw, vw) = (
        sorted.dims()[sorted.rank() - 1],
        values.dims()[values.rank() - 1],
    );
    let mut res: Vec<i64> = Vec::with_capacity(v.len());
    for r in 0..rows(values) {
        let row = &s[r * sw..(r + 1) * sw];
        for x in &v[r * vw..(r + 1) * vw] {
            let i = if right {
                row.partition_point(|e| cmp(e, x) != std::cmp::Ordering::Greater)
            } else {
                row.partition_point(|e| cmp(e, x) == std::cmp::Ordering::Less)
            };
            res.push(i as i64);
        }
    }
    let t = Tensor::from_vec(res, values.dims())?;
    super::cast(&t, out)?.to_device(values.device())
}

/// `HistogramFixedWidth`: counts of `values` in `nbins` equal bins over
/// `[lo, hi]` (values outside go to the end bins), as `dtype`.
pub fn histogram_fixed_width(
    values: &Tensor,
    range: &Tensor,
    nbins: i64,
    dtype: DType,
) -> Result<Tensor> {
    let node = "HistogramFixedWidth";
    let r = range.to_scalars();
    if r.len() != 2 {
        return Err(kernel(
            node,
            values,
            "value_range should be a vector of 2 elements",
            "",
        ));
    }
    let fmt = |s: &Scalar| match s {
        Scalar::Float(f) => crate::runtime::format::summarize::c_g(*f, 6),
        other => format!("{}", other.as_f64() as i64),
    };
    if nbins <= 0 {
        return Err(kernel(
            node,
            values,
            &format!("nbins should be a positive number, but got '{nbins}'"),
            "",
        ));
    }
    let (lo, hi) = (r[0].as_f64(), r[1].as_f64());
    if lo >= hi {
        return Err(kernel(
            node,
            values,
            &format!(
                "value_range should satisfy value_range[0] < value_range[1], but got '[{}, {}]'",
                fmt(&r[0]),
                fmt(&r[1])
            ),
            "",
        ));
    }
    let step = (hi - lo) / nbins as f64;
    let mut counts = vec![0i64; nbins as usize];
    for v in values.to_scalars() {
        let x = v.as_f64().max(lo);
        let bin = ((x - lo) / step).min((nbins - 1) as f64) as i64;
        counts[bin.clamp(0, nbins - 1) as usize] += 1;
    }
    let out = Tensor::from_vec(counts, &[nbins as usize])?;
    let out = super::cast(&out, dtype)?.to_device(values.device())?;
    tape::record(|| GradOp::NoGrad(NoGrad(node)), &[values], &[&out]);
    Ok(out)
}
