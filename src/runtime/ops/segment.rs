//! Segment and counting ops computed in host memory: `SegmentSum`,
//! `UnsortedSegmentSum`, `DenseBincount` and `InTopKV2`. A tensor on a CUDA
//! GPU is copied to the host and the result placed back on its device.

use super::scan::{host_of, numeric};
use super::segment_reduce::SegmentReduce;
use super::{attr_error, kernel_error};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;

/// The elements of an integer tensor, widened to `i64`.
fn ints(x: &Tensor) -> Result<Vec<i64>> {
    Ok(x.to_device(crate::runtime::Device::CPU0)?
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => i,
            Scalar::Bool(b) => b as i64,
            _ => 0,
        })
        .collect())
}

/// Sums rows of `v` (rows of `inner`) into `n` output rows: row `r` goes to
/// `ids[r]` (skipped when negative).
fn sum_rows<T: Num>(v: &[T], ids: &[i64], n: usize, inner: usize) -> Result<HostData> {
    let mut out = crate::runtime::storage::filled(n * inner, T::zero())?;
    for (r, &s) in ids.iter().enumerate() {
        if s < 0 {
            continue;
        }
        let s = s as usize;
        for i in 0..inner {
            out[s * inner + i] = out[s * inner + i].add(v[r * inner + i]);
        }
    }
    Ok(T::wrap(out))
}

/// TensorFlow's registration error for a segment op `op` given a dtype
/// its attr `attr` (`T` or `Tindices`) does not accept.
#[cold]
pub(super) fn segment_attr_error(op: &str, attr: &str, d: DType) -> Error {
    let real = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, \
                uint64";
    let any = "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, \
               bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64";
    let t = if op.ends_with("Max") || op.ends_with("Min") {
        real
    } else {
        any
    };
    let idx = if op == "UnsortedSegmentSum" {
        "int16, int32, int64"
    } else {
        "int32, int64"
    };
    let (signature, num) = if op.starts_with("Unsorted") {
        (
            "data:T, segment_ids:Tindices, num_segments:Tnumsegments -> output:T",
            "; attr=Tnumsegments:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]",
        )
    } else {
        ("data:T, segment_ids:Tindices -> output:T", "")
    };
    let dts = |l: &str| {
        l.split(", ")
            .map(|n| format!("DT_{}", n.to_ascii_uppercase()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Error::invalid_argument(format!(
        "Value for attr '{attr}' of {} is not in the list of allowed values: {}\n\t; NodeDef: \
         {{{{node {op}}}}}; Op<name={op}; signature={signature}; attr=T:type,allowed=[{}]; \
         attr=Tindices:type,allowed=[{}]{num}> [Op:{op}] name: ",
        d.kernel_name(),
        if attr == "T" { t } else { idx },
        dts(t),
        dts(idx)
    ))
}

/// The dtype checks of segment op `op` (complex values, which TensorFlow's
/// sums, means and products take, are not implemented in dist).
pub(super) fn check_ids(op: &str, data: &Tensor, ids: &Tensor) -> Result<()> {
    let wide = op == "UnsortedSegmentSum" && ids.dtype() == DType::Int16;
    if !matches!(ids.dtype(), DType::Int32 | DType::Int64) && !wide {
        return Err(segment_attr_error(op, "Tindices", ids.dtype()));
    }
    let real = op.ends_with("Max") || op.ends_with("Min");
    let d = data.dtype();
    if !d.is_numeric() || d == DType::Bool || (real && d.is_complex()) {
        return Err(segment_attr_error(op, "T", d));
    }
    if d.is_complex() {
        return Err(Error::unimplemented(format!(
            "{op} of {} values is not implemented in dist",
            d.name()
        )));
    }
    Ok(())
}

fn segments(data: &Tensor, ids: &[i64], n: usize, lead: usize, op: &str) -> Result<Tensor> {
    let inner: usize = data.dims()[lead..].iter().product();
    let mut dims = vec![n];
    dims.extend_from_slice(&data.dims()[lead..]);
    let shape = Shape(dims);
    shape.checked_numel()?;
    let out = numeric!(
        host_of(data)?,
        sum_rows(ids, n, inner),
        attr_error(op, data.dtype())
    )?;
    Tensor::from_host(out, shape, data.device())
}

/// The ids of a sorted segment op, checked as TensorFlow's kernels check
/// them, and the number of output rows (one per id up to the largest).
pub(super) fn sorted_ids(op: &str, data: &Tensor, ids: &Tensor) -> Result<(Vec<i64>, usize)> {
    check_ids(op, data, ids)?;
    let dev = data.device();
    let fail = |msg: &str| kernel_error(op, &dev, msg, " name: ");
    if ids.rank() != 1 {
        return Err(fail("segment_ids should be a vector."));
    }
    if data.rank() == 0 || data.dims()[0] != ids.dims()[0] {
        return Err(fail(
            "segment_ids should be the same size as dimension 0 of input.",
        ));
    }
    let v = ints(ids)?;
    if v.windows(2).any(|w| w[1] < w[0]) {
        return Err(fail("segment ids are not increasing"));
    }
    if let Some(&neg) = v.iter().find(|&&s| s < 0) {
        return Err(fail(&format!("Segment id {neg} out of range [0, {}), possibly because 'segment_ids' input is not sorted.", v.last().map_or(0, |l| l + 1))));
    }
    let n = v.last().map_or(0, |&l| l as usize + 1);
    Ok((v, n))
}

/// `tf.math.segment_sum(data, segment_ids)`: sorted ids, one output row per id
/// up to the largest.
fn segment_sum_impl(data: &Tensor, ids: &Tensor) -> Result<Tensor> {
    let op = "SegmentSum";
    let _trace = crate::runtime::trace::op(op, data.device());
    let (v, n) = sorted_ids(op, data, ids)?;
    segments(data, &v, n, 1, op)
}

/// `tf.math.unsorted_segment_sum(data, segment_ids, num_segments)`: negative
/// ids are dropped; `segment_ids`' shape is a prefix of `data`'s.
fn unsorted_segment_sum_impl(data: &Tensor, ids: &Tensor, num: i64) -> Result<Tensor> {
    let op = "UnsortedSegmentSum";
    let _trace = crate::runtime::trace::op(op, data.device());
    check_ids(op, data, ids)?;
    let dev = data.device();
    let fail = |msg: &str| kernel_error(op, &dev, msg, " name: ");
    if !data.dims().starts_with(ids.dims()) {
        return Err(fail(&format!(
            "data.shape = {} does not start with segment_ids.shape = {}",
            data.shape().bracket_text(),
            ids.shape().bracket_text()
        )));
    }
    if num < 0 {
        return Err(fail(&format!(
            "Input num_segments == {num} must not be negative."
        )));
    }
    let v = ints(ids)?;
    if let Some((i, &s)) = v.iter().enumerate().find(|(_, &s)| s >= num) {
        let at = if ids.rank() == 1 {
            format!("segment_ids[{i}]")
        } else {
            let mut rest = i;
            let mut coords = vec![0; ids.rank()];
            for (c, d) in coords.iter_mut().zip(ids.dims()).rev() {
                *c = rest % d;
                rest /= d;
            }
            format!(
                "segment_ids{}",
                coords.iter().map(|c| format!("[{c}]")).collect::<String>()
            )
        };
        return Err(fail(&format!("{at} = {s} is out of range [0, {num})")));
    }
    segments(data, &v, num as usize, ids.rank(), op)
}

/// `tf.math.bincount(arr, weights, minlength, maxlength)`: counts (or
/// summed weights) of each value in `[0, size)`.
pub fn bincount(
    arr: &Tensor,
    weights: Option<&Tensor>,
    minlength: Option<i64>,
    maxlength: Option<i64>,
    dtype: DType,
) -> Result<Tensor> {
    let op = "DenseBincount";
    let _trace = crate::runtime::trace::op(op, arr.device());
    let dev = arr.device();
    let fail = |msg: &str| kernel_error(op, &dev, msg, " name: ");
    let v = ints(arr)?;
    if v.iter().any(|&x| x < 0) {
        return Err(fail("Input arr must be non-negative!"));
    }
    let mut size = v.iter().max().map_or(0, |&m| m + 1);
    if let Some(m) = minlength {
        size = size.max(m);
    }
    if let Some(m) = maxlength {
        size = size.min(m);
    }
    let size = size.max(0) as usize;
    Shape(vec![size]).checked_numel()?;
    let (out_dtype, w) = match weights {
        Some(w) => {
            if w.shape() != arr.shape() {
                return Err(fail(&format!(
                    "Input arr and weights must have the same shape: {} vs {}",
                    arr.shape().bracket_text(),
                    w.shape().bracket_text()
                )));
            }
            (w.dtype(), Some(w))
        }
        None => (dtype, None),
    };
    let ids: Vec<i64> = v
        .iter()
        .map(|&x| if (x as usize) < size { x } else { -1 })
        .collect();
    let data = match w {
        Some(w) => w.clone(),
        None => Tensor::ones(out_dtype, arr.dims(), dev)?,
    };
    let flat = data.with_shape(Shape(vec![data.numel()]))?;
    segments(&flat, &ids, size, 1, op)
}

/// `tf.math.in_top_k(targets, predictions, k)`: whether each row's target
/// class is among its `k` largest predictions (ties count as in; a target
/// out of range or a non-finite prediction gives false).
pub fn in_top_k(targets: &Tensor, predictions: &Tensor, k: i64) -> Result<Tensor> {
    let op = "InTopKV2";
    let _trace = crate::runtime::trace::op(op, predictions.device());
    let dev = predictions.device();
    let fail = |msg: &str| kernel_error(op, &dev, msg, " name: ");
    if predictions.rank() != 2 {
        return Err(fail(&format!(
            "predictions must be == 2-D, got shape {}",
            predictions.shape().bracket_text()
        )));
    }
    let (rows, classes) = (predictions.dims()[0], predictions.dims()[1]);
    if targets.rank() != 1 || targets.dims()[0] != rows {
        return Err(fail(
            "First dimension of predictions must match length of targets",
        ));
    }
    let t = ints(targets)?;
    let p: Vec<f64> = predictions
        .to_device(crate::runtime::Device::CPU0)?
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Float(f) => f,
            Scalar::Int(i) => i as f64,
            _ => f64::NAN,
        })
        .collect();
    let mut out = Vec::with_capacity(rows);
    for r in 0..rows {
        let row = &p[r * classes..(r + 1) * classes];
        let target = t[r];
        let ok = if target < 0 || target as usize >= classes || !row[target as usize].is_finite() {
            false
        } else {
            let tv = row[target as usize];
            let more = row.iter().filter(|&&x| x > tv).count() as i64;
            more < k
        };
        out.push(ok);
    }
    Tensor::from_host(HostData::Bool(out), Shape(vec![rows]), dev)
}

/// `tf.math.segment_sum(data, segment_ids)`.
pub fn segment_sum(data: &Tensor, ids: &Tensor) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Segment {
            op: SegmentReduce::Sum,
            num: None,
        },
        &[data, ids],
        || segment_sum_impl(data, ids),
    )
}

/// `tf.math.unsorted_segment_sum(data, segment_ids, num_segments)`.
pub fn unsorted_segment_sum(data: &Tensor, ids: &Tensor, num: i64) -> Result<Tensor> {
    tape::primitive(
        || GradOp::Segment {
            op: SegmentReduce::Sum,
            num: Some(num),
        },
        &[data, ids],
        || unsorted_segment_sum_impl(data, ids, num),
    )
}
