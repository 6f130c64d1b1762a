//! Ops that move elements by computed positions: `Pad`/`PadV2`,
//! `MirrorPad` (`REFLECT`/`SYMMETRIC`), `GatherNd`, `ScatterNd` and the
//! `TensorScatter{Update,Add,Sub,Max,Min}` family. Copies go through the
//! backend's `take`/`scatter` (any dtype, any device); the accumulating
//! scatters run in host memory (a GPU tensor is copied there and back).
//! Each op reports itself to the tapes; gradients are in
//! `autodiff/grad_nn.rs`.

use super::elementwise::with_storage;
use super::kernel_error;
use super::scan::{host_of, numeric};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::backend::cpu::outer_sums;
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{try_vec, HostData};
use crate::runtime::tensor::Tensor;

/// For each element of a tensor of `dims`, its flat position in the tensor
/// padded by `pads` (`[before, after]` per axis).
fn pad_positions(dims: &[usize], pads: &[[usize; 2]]) -> Result<Vec<usize>> {
    let out: Vec<usize> = dims
        .iter()
        .zip(pads)
        .map(|(&d, p)| d + p[0] + p[1])
        .collect();
    let strides = Shape(out).strides();
    let offs: Vec<Vec<usize>> = (0..dims.len())
        .map(|d| {
            (0..dims[d])
                .map(|c| (c + pads[d][0]) * strides[d])
                .collect()
        })
        .collect();
    outer_sums(&offs)
}

/// Checks `paddings` (one `[before, after]` row per axis of `x`).
fn check_paddings(op: &str, x: &Tensor, pads: &[[i64; 2]], pads_dims: &[usize]) -> Result<()> {
    let dev = x.device();
    if pads_dims.len() != 2 || pads_dims[1] != 2 || pads_dims[0] != x.rank() {
        let what = if pads_dims.len() == 2 && pads_dims[1] == 2 {
            "The first dimension of paddings must be the rank of inputs"
        } else {
            "paddings must be a matrix with 2 columns: "
        };
        return Err(kernel_error(
            op,
            &dev,
            &format!(
                "{what}{} {}",
                Shape(pads_dims.to_vec()).bracket_text(),
                x.shape().bracket_text()
            ),
            "",
        ));
    }
    if let Some(p) = pads.iter().find(|p| p[0] < 0 || p[1] < 0) {
        return Err(kernel_error(
            op,
            &dev,
            &format!("Paddings must be non-negative: {} {}", p[0], p[1]),
            "",
        ));
    }
    Ok(())
}

fn pad_impl(x: &Tensor, pads: &[[usize; 2]], value: &Tensor) -> Result<Tensor> {
    let out: Vec<usize> = x
        .dims()
        .iter()
        .zip(pads)
        .map(|(&d, p)| d + p[0] + p[1])
        .collect();
    Shape(out.clone()).checked_numel()?;
    let v = value.to_device(x.device())?;
    let s = v.item()?;
    let mut t = Tensor::fill(&out, &s, x.dtype(), x.device())?;
    let idx = pad_positions(x.dims(), pads)?;
    let inner = t.make_mut();
    let backend = inner.storage.backend();
    backend.scatter(&mut inner.storage, &idx, x.storage())?;
    Ok(t)
}

/// `tf.pad(x, paddings, "CONSTANT", constant_values)`: `Pad` (`value`
/// None: zeros) or `PadV2`. `pads_dims` is the shape of the paddings tensor.
pub fn pad(
    x: &Tensor,
    pads: &[[i64; 2]],
    pads_dims: &[usize],
    value: Option<&Tensor>,
) -> Result<Tensor> {
    let op = if value.is_some() { "PadV2" } else { "Pad" };
    let _trace = crate::runtime::trace::op(op, x.device());
    check_paddings(op, x, pads, pads_dims)?;
    if let Some(v) = value {
        if v.rank() != 0 {
            return Err(kernel_error(
                op,
                &x.device(),
                &format!(
                    "constant_values must be a scalar. Found: {}",
                    v.shape().bracket_text()
                ),
                "",
            ));
        }
    }
    let pads: Vec<[usize; 2]> = pads
        .iter()
        .map(|p| [p[0] as usize, p[1] as usize])
        .collect();
    let zero;
    let (value, inputs): (&Tensor, Vec<&Tensor>) = match value {
        Some(v) => (v, vec![x, v]),
        None => {
            zero = Tensor::zeros(x.dtype(), &[], x.device())?;
            (&zero, vec![x])
        }
    };
    tape::primitive(
        || GradOp::Pad(pads.clone()),
        &inputs,
        || pad_impl(x, &pads, value),
    )
}

/// The source position, along one axis of length `n`, of output position
/// `o` of a mirror pad with `before` entries before.
fn mirror_src(o: usize, before: usize, n: usize, symmetric: bool) -> usize {
    let p = o as i64 - before as i64;
    let n = n as i64;
    let s = if p < 0 {
        if symmetric {
            -p - 1
        } else {
            -p
        }
    } else if p >= n {
        if symmetric {
            2 * n - 1 - p
        } else {
            2 * (n - 1) - p
        }
    } else {
        p
    };
    s as usize
}

/// For each element of the mirror-padded output, its flat source position.
pub(crate) fn mirror_sources(
    dims: &[usize],
    pads: &[[usize; 2]],
    symmetric: bool,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let out: Vec<usize> = dims
        .iter()
        .zip(pads)
        .map(|(&d, p)| d + p[0] + p[1])
        .collect();
    let n = Shape(out.clone()).checked_numel()?;
    let strides = Shape(dims.to_vec()).strides();
    let mut idx = try_vec(n)?;
    let mut coord = vec![0usize; out.len()];
    for _ in 0..n {
        idx.push(
            coord
                .iter()
                .enumerate()
                .map(|(k, &c)| mirror_src(c, pads[k][0], dims[k], symmetric) * strides[k])
                .sum(),
        );
        for k in (0..out.len()).rev() {
            coord[k] += 1;
            if coord[k] < out[k] {
                break;
            }
            coord[k] = 0;
        }
    }
    Ok((out, idx))
}

/// `tf.pad(x, paddings, "REFLECT" | "SYMMETRIC")` (`MirrorPad`).
pub fn mirror_pad(
    x: &Tensor,
    pads: &[[i64; 2]],
    pads_dims: &[usize],
    symmetric: bool,
) -> Result<Tensor> {
    let op = "MirrorPad";
    let _trace = crate::runtime::trace::op(op, x.device());
    check_paddings(op, x, pads, pads_dims)?;
    for (p, &d) in pads.iter().zip(x.dims()) {
        let (b, a) = (p[0] as usize, p[1] as usize);
        let bad = if symmetric {
            b > d || a > d
        } else {
            b >= d || a >= d
        };
        if bad {
            let msg = if symmetric {
                format!("paddings must be no greater than the dimension size: {b}, {a} greater than {d}")
            } else {
                format!("paddings must be less than the dimension size: {b}, {a} not less than {d}")
            };
            return Err(kernel_error(op, &x.device(), &msg, ""));
        }
    }
    let pads: Vec<[usize; 2]> = pads
        .iter()
        .map(|p| [p[0] as usize, p[1] as usize])
        .collect();
    tape::primitive(
        || GradOp::MirrorPad {
            pads: pads.clone(),
            symmetric,
        },
        &[x],
        || {
            let (out, idx) = mirror_sources(x.dims(), &pads, symmetric)?;
            let storage = x.storage().backend().take(x.storage(), &idx)?;
            Ok(with_storage(x, Shape(out), storage))
        },
    )
}

/// The integer elements of `t`.
fn ints(t: &Tensor) -> Result<Vec<i64>> {
    Ok(t.to_device(crate::runtime::Device::CPU0)?
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => i,
            Scalar::Bool(b) => b as i64,
            _ => 0,
        })
        .collect())
}

/// `[i, j]` as TensorFlow prints an index row.
fn index_text(row: &[i64]) -> String {
    let parts: Vec<String> = row.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// The index rows of `indices` (its last axis) resolved into `dims`: each
/// row's flat offset (in elements) and the slice size, or the index of the
/// first bad row.
fn nd_offsets(
    indices: &[i64],
    rows: usize,
    k: usize,
    dims: &[usize],
) -> Result<std::result::Result<(Vec<usize>, usize), usize>> {
    let strides = Shape(dims.to_vec()).strides();
    let slice: usize = dims[k..].iter().product();
    let mut out = try_vec(rows)?;
    for r in 0..rows {
        let row = &indices[r * k..(r + 1) * k];
        let mut off = 0usize;
        for (a, &i) in row.iter().enumerate() {
            if i < 0 || i as usize >= dims[a] {
                return Ok(Err(r));
            }
            off += i as usize * strides[a];
        }
        out.push(off);
    }
    Ok(Ok((out, slice)))
}

fn check_index_dtype(op: &str, reg: &str, indices: &Tensor) -> Result<()> {
    if matches!(indices.dtype(), DType::Int16 | DType::Int32 | DType::Int64) {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Value for attr 'Tindices' of {} is not in the list of allowed values: int16, int32, \
         int64\n\t; NodeDef: {{{{node {op}}}}}; Op<name={op}; {reg}> [Op:{op}]",
        indices.dtype().kernel_name()
    )))
}

const GATHER_ND_REG: &str = "signature=params:Tparams, indices:Tindices -> output:Tparams; attr=Tparams:type; attr=Tindices:type,allowed=[DT_INT16, DT_INT32, DT_INT64]; attr=bad_indices_policy:string,default=\"\"";

fn gather_nd_impl(params: &Tensor, indices: &Tensor) -> Result<Tensor> {
    let op = "GatherNd";
    let _trace = crate::runtime::trace::op(op, params.device());
    check_index_dtype(op, GATHER_ND_REG, indices)?;
    let dev = params.device();
    if indices.rank() == 0 {
        return Err(kernel_error(
            op,
            &dev,
            "indices must be at least a vector",
            "",
        ));
    }
    let k = indices.dims()[indices.rank() - 1];
    if k > params.rank() {
        return Err(kernel_error(
            op,
            &dev,
            &format!(
                "index innermost dimension length must be <= params rank; saw: {k} vs. {}",
                params.rank()
            ),
            "",
        ));
    }
    let iv = ints(indices)?;
    let rows: usize = indices.dims()[..indices.rank() - 1].iter().product();
    let (offsets, slice) = nd_offsets(&iv, rows, k, params.dims())?.map_err(|r| {
        kernel_error(
            op,
            &dev,
            &format!(
                "indices{} = {} does not index into param shape {}, node name: GatherNd",
                index_text(&[r as i64]),
                index_text(&iv[r * k..(r + 1) * k]),
                params.shape().bracket_text()
            ),
            "",
        )
    })?;
    let mut dims = indices.dims()[..indices.rank() - 1].to_vec();
    dims.extend_from_slice(&params.dims()[k..]);
    let shape = Shape(dims);
    let n = shape.checked_numel()?;
    let mut idx = try_vec(n)?;
    for &o in &offsets {
        idx.extend(o..o + slice);
    }
    let storage = params.storage().backend().take(params.storage(), &idx)?;
    Ok(with_storage(params, shape, storage))
}

/// `tf.gather_nd(params, indices)`: the slices of `params` the rows of
/// `indices`' last axis select.
pub fn gather_nd(params: &Tensor, indices: &Tensor) -> Result<Tensor> {
    tape::primitive(
        || GradOp::GatherNd,
        &[params, indices],
        || gather_nd_impl(params, indices),
    )
}

/// How a scatter combines an update with what is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterMode {
    /// Replace (`TensorScatterUpdate`).
    Update,
    /// Add (`ScatterNd`, `TensorScatterAdd`).
    Add,
    /// Subtract (`TensorScatterSub`).
    Sub,
    /// Maximum (`TensorScatterMax`).
    Max,
    /// Minimum (`TensorScatterMin`).
    Min,
}

impl ScatterMode {
    /// The `TensorScatter*` op's name.
    pub fn tensor_op(self) -> &'static str {
        match self {
            ScatterMode::Update => "TensorScatterUpdate",
            ScatterMode::Add => "TensorScatterAdd",
            ScatterMode::Sub => "TensorScatterSub",
            ScatterMode::Max => "TensorScatterMax",
            ScatterMode::Min => "TensorScatterMin",
        }
    }
}

fn combine<T: Num>(
    dst: &[T],
    upd: &HostData,
    offsets: &[usize],
    slice: usize,
    mode: ScatterMode,
) -> Result<HostData> {
    let u = T::slice(upd).ok_or_else(|| Error::internal("scatter: updates of another dtype"))?;
    let mut out = dst.to_vec();
    for (r, &o) in offsets.iter().enumerate() {
        for i in 0..slice {
            let (d, v) = (&mut out[o + i], u[r * slice + i]);
            *d = match mode {
                ScatterMode::Update => v,
                ScatterMode::Add => d.add(v),
                ScatterMode::Sub => d.sub(v),
                ScatterMode::Max => d.maximum(v),
                ScatterMode::Min => d.minimum(v),
            };
        }
    }
    Ok(T::wrap(out))
}

/// The common part of `ScatterNd` and `TensorScatter*`: `updates` combined
/// into `base` at the rows of `indices`.
fn scatter_into(
    op: &str,
    base: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    mode: ScatterMode,
) -> Result<Tensor> {
    let dev = base.device();
    let fail = |m: String| kernel_error(op, &dev, &m, "");
    if !matches!(indices.dtype(), DType::Int16 | DType::Int32 | DType::Int64) {
        return Err(Error::invalid_argument(format!(
            "Value for attr 'Tindices' of {} is not in the list of allowed values: int16, int32, int64 [Op:{op}]",
            indices.dtype().kernel_name()
        )));
    }
    if updates.dtype() != base.dtype() {
        return Err(super::dtype_mismatch(
            op,
            2,
            base.dtype(),
            updates.dtype(),
            "",
        ));
    }
    let k = if indices.rank() == 0 {
        1
    } else {
        indices.dims()[indices.rank() - 1]
    };
    if k > base.rank() {
        return Err(fail(format!(
            "Output must be at least {k} dimensional, got {} dimensional",
            base.rank()
        )));
    }
    let outer = &indices.dims()[..indices.rank().saturating_sub(1)];
    let mut want = outer.to_vec();
    want.extend_from_slice(&base.dims()[k..]);
    if updates.dims() != want.as_slice() {
        let tensor_op = op.starts_with("TensorScatter");
        return Err(fail(if tensor_op {
            format!(
                "Outer dimensions of indices and update must match. Indices shape: {}, updates shape:{}",
                indices.shape().bracket_text(),
                updates.shape().bracket_text()
            )
        } else {
            let n = outer.len();
            format!(
                "Dimensions [0,{n}) of indices[shape={}] must match dimensions [0,{n}) of updates[shape={}]",
                indices.shape().bracket_text(),
                updates.shape().bracket_text()
            )
        }));
    }
    let iv = ints(indices)?;
    let rows: usize = outer.iter().product();
    let (offsets, slice) = nd_offsets(&iv, rows, k, base.dims())?.map_err(|r| {
        fail(format!(
            "indices{} = {} does not index into shape {}",
            index_text(&[r as i64]),
            index_text(&iv[r * k..(r + 1) * k]),
            base.shape().bracket_text()
        ))
    })?;
    if mode == ScatterMode::Update {
        let mut out = base.clone();
        let mut idx = try_vec(offsets.len() * slice)?;
        for &o in &offsets {
            idx.extend(o..o + slice);
        }
        let inner = out.make_mut();
        let backend = inner.storage.backend();
        backend.scatter(&mut inner.storage, &idx, updates.storage())?;
        return Ok(out);
    }
    let uh = host_of(updates)?;
    let out = numeric!(
        host_of(base)?,
        combine(&uh, &offsets, slice, mode),
        super::attr_error(op, base.dtype())
    )?;
    Tensor::from_host(out, base.shape().clone(), dev)
}

/// `tf.scatter_nd(indices, updates, shape)`: zeros of `shape` with the
/// updates summed in at the rows of `indices`.
pub fn scatter_nd(indices: &Tensor, updates: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let op = "ScatterNd";
    tape::primitive(
        || GradOp::ScatterNd(shape.to_vec()),
        &[indices, updates],
        || {
            let _trace = crate::runtime::trace::op(op, updates.device());
            Shape(shape.to_vec()).checked_numel()?;
            let base = Tensor::zeros(updates.dtype(), shape, updates.device())?;
            scatter_into(op, &base, indices, updates, ScatterMode::Add)
        },
    )
}

/// `tf.tensor_scatter_nd_{update,add,sub,max,min}(tensor, indices, updates)`.
pub fn tensor_scatter(
    tensor: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    mode: ScatterMode,
) -> Result<Tensor> {
    tape::primitive(
        || GradOp::TensorScatter(mode),
        &[tensor, indices, updates],
        || {
            let op = mode.tensor_op();
            let _trace = crate::runtime::trace::op(op, tensor.device());
            scatter_into(op, tensor, indices, updates, mode)
        },
    )
}
