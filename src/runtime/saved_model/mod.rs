//! TensorFlow's SavedModel format: `saved_model.pb` (a `MetaGraphDef` with
//! the functions as `FunctionDef`s and the object graph) beside a
//! `variables/` checkpoint.
//!
//! - [`export`] writes a traced function graph ([`crate::runtime::graph`])
//!   as a `FunctionDef` of TensorFlow's ops and attributes, so TensorFlow
//!   loads and runs what dist saved.
//! - [`interp`] runs a `FunctionDef` (dist's or TensorFlow's) op by op on
//!   the runtime's kernels, so dist loads what TensorFlow saved.
//! - [`proto`] holds the messages (prost).
//!
//! Which objects, functions and signatures go into a SavedModel, and how a
//! loaded one is rebuilt as Python objects, is decided in the language
//! (`stdlib/tensorflow_saved_model.dist`) over the natives of
//! `modules/tf/saved_model.rs`.

pub mod export;
mod export_ops;
pub mod interp;
pub mod proto;
#[cfg(test)]
mod tests;
mod tf_ops;

use crate::runtime::checkpoint::bundle;
use crate::runtime::device::Device;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::graph::shapes::StaticShape;
use crate::runtime::shape::Shape;
use crate::runtime::storage::{HostData, C128, C64};
use crate::runtime::tensor::Tensor;

use proto::{Dim, TensorProto, TensorShapeProto};

/// The most elements a constant of a SavedModel may have (a compact
/// `TensorProto` states one value for a whole shape: a damaged file must not
/// make dist allocate without bound).
const MAX_CONSTANT: usize = 1 << 28;

/// TensorFlow's `DT_RESOURCE`.
pub const DT_RESOURCE: i32 = 20;

/// A `TensorShapeProto` of a static shape (`-1` for an unknown dim).
pub fn shape_proto(s: &StaticShape) -> TensorShapeProto {
    match s {
        None => TensorShapeProto {
            dim: vec![],
            unknown_rank: true,
        },
        Some(d) => TensorShapeProto {
            dim: d
                .iter()
                .map(|x| Dim {
                    size: x.map_or(-1, |v| v as i64),
                })
                .collect(),
            unknown_rank: false,
        },
    }
}

/// The static shape a `TensorShapeProto` describes.
pub fn static_shape(p: &TensorShapeProto) -> StaticShape {
    if p.unknown_rank {
        return None;
    }
    Some(p.dim.iter().map(|d| usize::try_from(d.size).ok()).collect())
}

/// The proto enum of a dtype.
pub fn dtype_code(d: DType) -> i32 {
    d.datatype_enum() as i32
}

/// The dtype of a proto enum.
pub fn dtype_of(code: i32) -> Result<DType> {
    u64::try_from(code)
        .ok()
        .and_then(DType::from_datatype_enum)
        .ok_or_else(|| {
            Error::unimplemented(format!("dist has no dtype with the DataType enum {code}"))
        })
}

/// A tensor as a `TensorProto` (raw little-endian content; strings as
/// `string_val`).
pub fn tensor_proto(t: &Tensor) -> Result<TensorProto> {
    let shape = shape_proto(&Some(t.dims().iter().map(|&d| Some(d)).collect()));
    let mut p = TensorProto {
        dtype: dtype_code(t.dtype()),
        tensor_shape: Some(shape),
        ..Default::default()
    };
    if t.dtype() == DType::String {
        let host = t.to_device(Device::CPU0)?;
        if let HostData::Str(v) = host.host()? {
            p.string_val = v.clone();
        }
    } else {
        p.tensor_content = bundle::tensor_bytes(t)?.0;
    }
    Ok(p)
}

/// The tensor a `TensorProto` holds (its content, or its typed values with
/// the last one repeated to fill the shape, as TensorFlow reads them).
pub fn tensor_from_proto(p: &TensorProto) -> Result<Tensor> {
    let dtype = dtype_of(p.dtype)?;
    let dims: Vec<usize> = match &p.tensor_shape {
        Some(s) => s
            .dim
            .iter()
            .map(|d| usize::try_from(d.size))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| Error::invalid_argument("a constant's shape has an unknown dim"))?,
        None => vec![],
    };
    let n = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= MAX_CONSTANT)
        .ok_or_else(|| Error::invalid_argument("a constant's shape is too large"))?;
    let bad = || Error::invalid_argument("a TensorProto's values do not match its shape");
    let data = if !p.tensor_content.is_empty() {
        bundle::decode(dtype, n, &p.tensor_content).ok_or_else(bad)?
    } else {
        fn fill<T: Clone>(v: &[T], n: usize, zero: T) -> Vec<T> {
            let last = v.last().cloned().unwrap_or(zero);
            (0..n)
                .map(|i| v.get(i).cloned().unwrap_or(last.clone()))
                .collect()
        }
        match dtype {
            DType::Float32 => HostData::F32(fill(&p.float_val, n, 0.0)),
            DType::Float64 => HostData::F64(fill(&p.double_val, n, 0.0)),
            DType::Int32 => HostData::I32(fill(&p.int_val, n, 0)),
            DType::Int16 => HostData::I16(
                fill(&p.int_val, n, 0)
                    .into_iter()
                    .map(|x| x as i16)
                    .collect(),
            ),
            DType::Int8 => HostData::I8(
                fill(&p.int_val, n, 0)
                    .into_iter()
                    .map(|x| x as i8)
                    .collect(),
            ),
            DType::UInt8 => HostData::U8(
                fill(&p.int_val, n, 0)
                    .into_iter()
                    .map(|x| x as u8)
                    .collect(),
            ),
            DType::Int64 => HostData::I64(fill(&p.int64_val, n, 0)),
            DType::Bool => HostData::Bool(fill(&p.bool_val, n, false)),
            DType::String => HostData::Str(fill(&p.string_val, n, Vec::new())),
            DType::Complex64 => {
                let pairs: Vec<C64> = p
                    .scomplex_val
                    .chunks_exact(2)
                    .map(|c| C64::new(c[0], c[1]))
                    .collect();
                HostData::C64(fill(&pairs, n, C64::new(0.0, 0.0)))
            }
            DType::Complex128 => {
                let pairs: Vec<C128> = p
                    .dcomplex_val
                    .chunks_exact(2)
                    .map(|c| C128::new(c[0], c[1]))
                    .collect();
                HostData::C128(fill(&pairs, n, C128::new(0.0, 0.0)))
            }
            DType::Float16 => HostData::F16(
                fill(&p.half_val, n, 0)
                    .into_iter()
                    .map(|b| crate::runtime::f16::F16::from_bits(b as u16))
                    .collect(),
            ),
        }
    };
    Tensor::from_host(data, Shape::new(&dims), Device::CPU0)
}
