//! `UnsortedSegmentMax`, `UnsortedSegmentMin` and `UnsortedSegmentProd`,
//! computed in host memory (a GPU tensor is copied there and back). An
//! empty segment holds the reduction's identity as TensorFlow's CPU kernels
//! write it: the lowest (or highest) value of the dtype — infinity for
//! float64, the largest finite value for float32 and float16 — or 1.
//! `UnsortedSegmentSum` is in `segment.rs`; the gradients in
//! `autodiff/grad_nn.rs`.

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
    /// `UnsortedSegmentMax`.
    Max,
    /// `UnsortedSegmentMin`.
    Min,
    /// `UnsortedSegmentProd`.
    Prod,
}

impl SegmentReduce {
    /// TensorFlow's op name.
    pub fn name(self) -> &'static str {
        match self {
            SegmentReduce::Max => "UnsortedSegmentMax",
            SegmentReduce::Min => "UnsortedSegmentMin",
            SegmentReduce::Prod => "UnsortedSegmentProd",
        }
    }
}

/// The value an empty segment holds.
fn identity<T: Num>(op: SegmentReduce) -> T {
    let max = op == SegmentReduce::Max;
    let h = match (T::DTYPE, op) {
        (_, SegmentReduce::Prod) => return T::one(),
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

fn reduce_rows<T: Num>(
    v: &[T],
    ids: &[i64],
    n: usize,
    inner: usize,
    op: SegmentReduce,
) -> Result<HostData> {
    let mut out = filled(n * inner, identity::<T>(op))?;
    for (r, &s) in ids.iter().enumerate() {
        if s < 0 {
            continue;
        }
        let s = s as usize;
        for i in 0..inner {
            let (o, x) = (&mut out[s * inner + i], v[r * inner + i]);
            *o = match op {
                SegmentReduce::Max => o.maximum(x),
                SegmentReduce::Min => o.minimum(x),
                SegmentReduce::Prod => o.mul(x),
            };
        }
    }
    Ok(T::wrap(out))
}

fn unsorted_impl(op: SegmentReduce, data: &Tensor, ids: &Tensor, num: i64) -> Result<Tensor> {
    let name = op.name();
    let _trace = crate::runtime::trace::op(name, data.device());
    if !matches!(ids.dtype(), DType::Int32 | DType::Int64) {
        return Err(Error::invalid_argument(format!(
            "Value for attr 'Tindices' of {} is not in the list of allowed values: int32, int64 \
             [Op:{name}]",
            ids.dtype().kernel_name()
        )));
    }
    if !data.dtype().is_numeric() || data.dtype() == DType::Bool || data.dtype().is_complex() {
        return Err(attr_error(name, data.dtype()));
    }
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
        reduce_rows(&v, num as usize, inner, op),
        attr_error(name, data.dtype())
    )?;
    Tensor::from_host(out, shape, dev)
}

/// `tf.math.unsorted_segment_{max,min,prod}(data, segment_ids, num_segments)`.
pub fn unsorted_segment(
    op: SegmentReduce,
    data: &Tensor,
    ids: &Tensor,
    num: i64,
) -> Result<Tensor> {
    tape::primitive(
        || GradOp::UnsortedSegment { op, num },
        &[data, ids],
        || unsorted_impl(op, data, ids, num),
    )
}
