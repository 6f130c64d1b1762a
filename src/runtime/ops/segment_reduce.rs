//! The segment reductions but sums: `UnsortedSegmentMax/Min/Prod` and the
//! sorted `SegmentMax/Min/Mean/Prod`, computed in host memory (a GPU
//! tensor is copied there and back). An empty segment holds what
//! TensorFlow's CPU kernels write there: for the unsorted ops the
//! reduction's identity — the lowest (or highest) value of the dtype
//! (infinity for float64, the largest finite value for float32 and
//! float16) or 1 — and for the sorted ones 0 (a product: 1). The sums are
//! in `segment.rs`, the gradients in `autodiff/grad_nn.rs`.

use super::scan::{host_of, numeric};
use super::{attr_error, kernel_error};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::f16::F16;
use crate::runtime::shape::Shape;
use crate::runtime::storage::{filled, HostData};
use crate::runtime::tensor::Tensor;

/// Which segment reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentReduce {
    /// `SegmentSum` / `UnsortedSegmentSum`.
    Sum,
    /// `SegmentMax` / `UnsortedSegmentMax`.
    Max,
    /// `SegmentMin` / `UnsortedSegmentMin`.
    Min,
    /// `SegmentProd` / `UnsortedSegmentProd`.
    Prod,
    /// `SegmentMean` (TensorFlow's unsorted mean is a sum over counts).
    Mean,
}

impl SegmentReduce {
    /// TensorFlow's op name, sorted (`SegmentMax`) or not.
    pub fn name(self, sorted: bool) -> &'static str {
        use SegmentReduce::*;
        match (self, sorted) {
            (Sum, true) => "SegmentSum",
            (Max, true) => "SegmentMax",
            (Min, true) => "SegmentMin",
            (Prod, true) => "SegmentProd",
            (Mean, true) => "SegmentMean",
            (Sum, false) => "UnsortedSegmentSum",
            (Max, false) => "UnsortedSegmentMax",
            (Min, false) => "UnsortedSegmentMin",
            (Prod, false) => "UnsortedSegmentProd",
            (Mean, false) => "UnsortedSegmentMean",
        }
    }
}

/// The value an empty segment holds.
fn identity<T: Num>(op: SegmentReduce) -> T {
    let max = op == SegmentReduce::Max;
    let h = match (T::DTYPE, op) {
        (_, SegmentReduce::Prod) => return T::one(),
        (_, SegmentReduce::Sum | SegmentReduce::Mean) => return T::zero(),
        (DType::Float64, _) => HostData::F64(vec![if max {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }]),
        (DType::Float32, _) => HostData::F32(vec![if max { f32::MIN } else { f32::MAX }]),
        (DType::Float16, _) => {
            HostData::F16(vec![F16::from_f64(if max { -65504.0 } else { 65504.0 })])
        }
        (DType::Int8, _) => HostData::I8(vec![if max { i8::MIN } else { i8::MAX }]),
        (DType::UInt8, _) => HostData::U8(vec![if max { u8::MIN } else { u8::MAX }]),
        (DType::Int16, _) => HostData::I16(vec![if max { i16::MIN } else { i16::MAX }]),
        (DType::Int32, _) => HostData::I32(vec![if max { i32::MIN } else { i32::MAX }]),
        _ => HostData::I64(vec![if max { i64::MIN } else { i64::MAX }]),
    };
    T::slice(&h).map_or_else(T::zero, |s| s[0])
}

/// Reduces rows of `v` (rows of `inner`) into `n` output rows in row
/// order: row `r` goes to `ids[r]` (skipped when negative). A sorted op's
/// empty segments hold 0 (a product's 1), a mean is the sum over the count.
fn reduce_rows<T: Num>(
    v: &[T],
    ids: &[i64],
    n: usize,
    inner: usize,
    op: SegmentReduce,
    sorted: bool,
) -> Result<HostData> {
    let mut out = filled(n * inner, identity::<T>(op))?;
    if out.is_empty() {
        // no values (and `n` may be any number of empty rows)
        return Ok(T::wrap(out));
    }
    let mut counts = vec![0usize; n];
    for (r, &s) in ids.iter().enumerate() {
        if s < 0 {
            continue;
        }
        let s = s as usize;
        counts[s] += 1;
        for i in 0..inner {
            let (o, x) = (&mut out[s * inner + i], v[r * inner + i]);
            *o = match op {
                SegmentReduce::Sum | SegmentReduce::Mean => o.add(x),
                SegmentReduce::Max => o.maximum(x),
                SegmentReduce::Min => o.minimum(x),
                SegmentReduce::Prod => o.mul(x),
            };
        }
    }
    for (row, &c) in out.chunks_mut(inner.max(1)).zip(&counts) {
        if c == 0 && sorted && op != SegmentReduce::Prod {
            row.fill(T::zero());
        } else if c > 1 && op == SegmentReduce::Mean {
            let c = T::from_f64(c as f64);
            row.iter_mut().for_each(|o| *o = o.div(c));
        }
    }
    Ok(T::wrap(out))
}

fn unsorted_impl(op: SegmentReduce, data: &Tensor, ids: &Tensor, num: i64) -> Result<Tensor> {
    let name = op.name(false);
    let _trace = crate::runtime::trace::op(name, data.device());
    super::segment::check_ids(name, data, ids)?;
    let dev = data.device();
    let fail = |msg: &str| kernel_error(name, &dev, msg, "");
    if !data.dims().starts_with(ids.dims()) {
        // this check (unlike the range check) carries the op's name suffix
        return Err(kernel_error(
            name,
            &dev,
            &format!(
                "data.shape = {} does not start with segment_ids.shape = {}",
                data.shape().bracket_text(),
                ids.shape().bracket_text()
            ),
            " name: ",
        ));
    }
    if num < 0 {
        return Err(fail(&format!(
            "Input num_segments == {num} must not be negative."
        )));
    }
    let v: Vec<i64> = ids
        .to_device(crate::runtime::Device::CPU0)?
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => i,
            _ => -1,
        })
        .collect();
    if let Some((i, &s)) = v.iter().enumerate().find(|(_, &s)| s >= num) {
        let mut rest = i;
        let mut coords = vec![0; ids.rank()];
        for (c, d) in coords.iter_mut().zip(ids.dims()).rev() {
            *c = rest % d;
            rest /= d;
        }
        let at: String = coords.iter().map(|c| format!("[{c}]")).collect();
        return Err(fail(&format!(
            "segment_ids{at} = {s} is out of range [0, {num})"
        )));
    }
    let lead = ids.rank();
    let inner: usize = data.dims()[lead..].iter().product();
    let mut dims = vec![num as usize];
    dims.extend_from_slice(&data.dims()[lead..]);
    let shape = Shape(dims);
    shape.checked_numel()?;
    let out = numeric!(
        host_of(data)?,
        reduce_rows(&v, num as usize, inner, op, false),
        attr_error(name, data.dtype())
    )?;
    Tensor::from_host(out, shape, dev)
}

/// `SegmentMax/Min/Mean/Prod`: sorted ids, one output row per id up to
/// the largest.
fn sorted_impl(op: SegmentReduce, data: &Tensor, ids: &Tensor) -> Result<Tensor> {
    let name = op.name(true);
    let _trace = crate::runtime::trace::op(name, data.device());
    let (v, n) = super::segment::sorted_ids(name, data, ids)?;
    let inner: usize = data.dims()[1..].iter().product();
    let mut dims = data.dims().to_vec();
    dims[0] = n;
    let shape = Shape(dims);
    shape.checked_numel()?;
    let out = numeric!(
        host_of(data)?,
        reduce_rows(&v, n, inner, op, true),
        attr_error(name, data.dtype())
    )?;
    Tensor::from_host(out, shape, data.device())
}

/// `tf.math.segment_{sum,max,min,mean,prod}(data, segment_ids)`.
pub fn segment(op: SegmentReduce, data: &Tensor, ids: &Tensor) -> Result<Tensor> {
    if op == SegmentReduce::Sum {
        return super::segment::segment_sum(data, ids);
    }
    tape::primitive(
        || GradOp::Segment { op, num: None },
        &[data, ids],
        || sorted_impl(op, data, ids),
    )
}

/// `tf.math.unsorted_segment_{sum,max,min,prod}(data, segment_ids,
/// num_segments)` (TensorFlow's unsorted mean is built from sums).
pub fn unsorted_segment(
    op: SegmentReduce,
    data: &Tensor,
    ids: &Tensor,
    num: i64,
) -> Result<Tensor> {
    match op {
        SegmentReduce::Sum => return super::segment::unsorted_segment_sum(data, ids, num),
        SegmentReduce::Mean => {
            return Err(Error::internal("UnsortedSegmentMean is not a kernel"));
        }
        _ => {}
    }
    tape::primitive(
        || GradOp::Segment { op, num: Some(num) },
        &[data, ids],
        || unsorted_impl(op, data, ids, num),
    )
}
