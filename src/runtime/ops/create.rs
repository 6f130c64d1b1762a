//! Tensors made from scratch: `tf.range` and `tf.eye`.

use super::kernel_error;
use crate::runtime::device::Device;
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::Result;
use crate::runtime::shape::Shape;
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;

/// `tf.range(start, limit, delta)` in `dtype` (int or float types).
pub fn range(
    start: &Scalar,
    limit: &Scalar,
    delta: &Scalar,
    dtype: DType,
    device: Device,
) -> Result<Tensor> {
    let (s, l, d) = (start.as_f64(), limit.as_f64(), delta.as_f64());
    let fail = |m: String| kernel_error("Range", &device, &m, " name: ");
    let show = |v: &Scalar| match v {
        Scalar::Float(f) => crate::runtime::format::python_float_repr(*f),
        other => crate::runtime::format::numpy_scalar_text(other, DType::Int64),
    };
    if d == 0.0 {
        return Err(fail(format!("Requires delta != 0: {}", show(delta))));
    }
    if d > 0.0 && s > l {
        return Err(fail(format!(
            "Requires start <= limit when delta > 0: {}/{}",
            show(start),
            show(limit)
        )));
    }
    if d < 0.0 && s < l {
        return Err(fail(format!(
            "Requires start >= limit when delta < 0: {}/{}",
            show(start),
            show(limit)
        )));
    }
    let n = if dtype.is_integer() {
        let (si, li, di) = (s as i64, l as i64, d as i64);
        ((li - si).abs() + di.abs() - 1) / di.abs()
    } else {
        ((l - s) / d).ceil() as i64
    }
    .max(0) as usize;
    Shape(vec![n]).checked_numel()?;
    let data = match dtype {
        DType::Float32 => HostData::F32(
            (0..n)
                .map(|i| (s as f32) + (i as f32) * (d as f32))
                .collect(),
        ),
        DType::Float64 => HostData::F64((0..n).map(|i| s + i as f64 * d).collect()),
        DType::Int32 => HostData::I32(
            (0..n)
                .map(|i| (s as i64 + i as i64 * d as i64) as i32)
                .collect(),
        ),
        DType::Int64 => HostData::I64((0..n).map(|i| s as i64 + i as i64 * d as i64).collect()),
        other => {
            let t = range(start, limit, delta, DType::Float64, device)?;
            return super::elementwise::cast(&t, other);
        }
    };
    Tensor::from_host(data, Shape(vec![n]), device)
}

/// `tf.eye(n, m)`: ones on the diagonal.
pub fn eye(n: usize, m: usize, dtype: DType, device: Device) -> Result<Tensor> {
    let t = Tensor::zeros(dtype, &[n, m], device)?;
    let diag: Vec<usize> = (0..n.min(m)).map(|i| i * m + i).collect();
    let ones = Tensor::ones(dtype, &[diag.len()], device)?;
    let mut t = t;
    let inner = t.make_mut();
    let backend = inner.storage.backend();
    backend.scatter(&mut inner.storage, &diag, ones.storage())?;
    Ok(t)
}
