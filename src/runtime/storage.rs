//! Element buffers. [`HostData`] is a contiguous row-major `Vec` per dtype
//! (host memory: CPU and virtual GPUs); [`Storage`] wraps it with the place it
//! lives so a device backend (CUDA, later) can add a variant without callers
//! changing. The [`Elem`] trait maps Rust element types to dtypes.

use super::backend::{self, Backend};
use super::dtype::{DType, Scalar};
use super::error::{Error, ErrorKind, Result};
use super::f16::F16;

/// A `complex64` element.
pub type C64 = num_complex::Complex<f32>;
/// A `complex128` element.
pub type C128 = num_complex::Complex<f64>;

/// A contiguous row-major buffer in host memory, one variant per dtype.
#[derive(Debug, PartialEq)]
pub enum HostData {
    /// `bool` elements.
    Bool(Vec<bool>),
    /// `int8` elements.
    I8(Vec<i8>),
    /// `uint8` elements.
    U8(Vec<u8>),
    /// `int16` elements.
    I16(Vec<i16>),
    /// `int32` elements.
    I32(Vec<i32>),
    /// `int64` elements.
    I64(Vec<i64>),
    /// `float16` elements.
    F16(Vec<F16>),
    /// `float32` elements.
    F32(Vec<f32>),
    /// `float64` elements.
    F64(Vec<f64>),
    /// `complex64` elements.
    C64(Vec<C64>),
    /// `complex128` elements.
    C128(Vec<C128>),
    /// `string` elements (byte strings).
    Str(Vec<Vec<u8>>),
}

/// A copy in a buffer from the pool of freed buffers when one fits (copies
/// to another device and copy-on-write clones reuse memory like ops do).
fn dup<T: Copy + Send + 'static>(v: &[T]) -> Vec<T> {
    match super::pool::take(v.len()) {
        Some(mut out) => {
            out.extend_from_slice(v);
            out
        }
        None => v.to_vec(),
    }
}

impl Clone for HostData {
    fn clone(&self) -> HostData {
        match self {
            HostData::Bool(v) => HostData::Bool(dup(v)),
            HostData::I8(v) => HostData::I8(dup(v)),
            HostData::U8(v) => HostData::U8(dup(v)),
            HostData::I16(v) => HostData::I16(dup(v)),
            HostData::I32(v) => HostData::I32(dup(v)),
            HostData::I64(v) => HostData::I64(dup(v)),
            HostData::F16(v) => HostData::F16(dup(v)),
            HostData::F32(v) => HostData::F32(dup(v)),
            HostData::F64(v) => HostData::F64(dup(v)),
            HostData::C64(v) => HostData::C64(dup(v)),
            HostData::C128(v) => HostData::C128(dup(v)),
            HostData::Str(v) => HostData::Str(v.clone()),
        }
    }
}

/// Runs `$body` with `$v` bound to the typed `Vec` inside a [`HostData`].
macro_rules! with_host {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            HostData::Bool($v) => $body,
            HostData::I8($v) => $body,
            HostData::U8($v) => $body,
            HostData::I16($v) => $body,
            HostData::I32($v) => $body,
            HostData::I64($v) => $body,
            HostData::F16($v) => $body,
            HostData::F32($v) => $body,
            HostData::F64($v) => $body,
            HostData::C64($v) => $body,
            HostData::C128($v) => $body,
            HostData::Str($v) => $body,
        }
    };
}

/// Like [`with_host!`] but builds a new `HostData` of the same variant from `$body`.
macro_rules! map_host {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            HostData::Bool($v) => HostData::Bool($body),
            HostData::I8($v) => HostData::I8($body),
            HostData::U8($v) => HostData::U8($body),
            HostData::I16($v) => HostData::I16($body),
            HostData::I32($v) => HostData::I32($body),
            HostData::I64($v) => HostData::I64($body),
            HostData::F16($v) => HostData::F16($body),
            HostData::F32($v) => HostData::F32($body),
            HostData::F64($v) => HostData::F64($body),
            HostData::C64($v) => HostData::C64($body),
            HostData::C128($v) => HostData::C128($body),
            HostData::Str($v) => HostData::Str($body),
        }
    };
}

impl HostData {
    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        match self {
            HostData::Bool(_) => DType::Bool,
            HostData::I8(_) => DType::Int8,
            HostData::U8(_) => DType::UInt8,
            HostData::I16(_) => DType::Int16,
            HostData::I32(_) => DType::Int32,
            HostData::I64(_) => DType::Int64,
            HostData::F16(_) => DType::Float16,
            HostData::F32(_) => DType::Float32,
            HostData::F64(_) => DType::Float64,
            HostData::C64(_) => DType::Complex64,
            HostData::C128(_) => DType::Complex128,
            HostData::Str(_) => DType::String,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_host!(self, v => v.len())
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps the first `n` elements (all when there are fewer).
    pub fn truncate(&mut self, n: usize) {
        with_host!(self, v => v.truncate(n))
    }

    /// The element at flat index `i`, widened (`None` when out of range).
    pub fn get(&self, i: usize) -> Option<Scalar> {
        Some(match self {
            HostData::Bool(v) => Scalar::Bool(*v.get(i)?),
            HostData::I8(v) => Scalar::Int(*v.get(i)? as i64),
            HostData::U8(v) => Scalar::Int(*v.get(i)? as i64),
            HostData::I16(v) => Scalar::Int(*v.get(i)? as i64),
            HostData::I32(v) => Scalar::Int(*v.get(i)? as i64),
            HostData::I64(v) => Scalar::Int(*v.get(i)?),
            HostData::F16(v) => Scalar::Float(v.get(i)?.to_f64()),
            HostData::F32(v) => Scalar::Float(*v.get(i)? as f64),
            HostData::F64(v) => Scalar::Float(*v.get(i)?),
            HostData::C64(v) => {
                let c = v.get(i)?;
                Scalar::Complex(c.re as f64, c.im as f64)
            }
            HostData::C128(v) => {
                let c = v.get(i)?;
                Scalar::Complex(c.re, c.im)
            }
            HostData::Str(v) => Scalar::Bytes(v.get(i)?.clone()),
        })
    }

    /// A buffer of `n` copies of the zero of `dtype` (`b''` for strings).
    pub fn zeros(dtype: DType, n: usize) -> Result<HostData> {
        Ok(match dtype {
            DType::Bool => HostData::Bool(filled(n, false)?),
            DType::Int8 => HostData::I8(filled(n, 0)?),
            DType::UInt8 => HostData::U8(filled(n, 0)?),
            DType::Int16 => HostData::I16(filled(n, 0)?),
            DType::Int32 => HostData::I32(filled(n, 0)?),
            DType::Int64 => HostData::I64(filled(n, 0)?),
            DType::Float16 => HostData::F16(filled(n, F16::ZERO)?),
            DType::Float32 => HostData::F32(filled(n, 0.0)?),
            DType::Float64 => HostData::F64(filled(n, 0.0)?),
            DType::Complex64 => HostData::C64(filled(n, C64::new(0.0, 0.0))?),
            DType::Complex128 => HostData::C128(filled(n, C128::new(0.0, 0.0))?),
            DType::String => HostData::Str(filled(n, Vec::new())?),
        })
    }

    /// Elements gathered at the given flat indices (callers guarantee range).
    #[expect(
        clippy::clone_on_copy,
        reason = "one macro body serves Copy elements and byte strings"
    )]
    pub fn take(&self, idx: &[usize]) -> Result<HostData> {
        let len = self.len();
        if idx.iter().any(|&i| i >= len) {
            return Err(Error::internal("take: index out of range"));
        }
        Ok(map_host!(self, v => {
            let mut out = try_vec(idx.len())?;
            // in range: checked above
            out.extend(idx.iter().map(|&i| v[i].clone()));
            out
        }))
    }

    /// `batch` matrices of `rows` × `cols` with their last two axes swapped:
    /// a blocked copy, without the index table a general permutation needs.
    #[expect(
        clippy::clone_on_copy,
        reason = "one macro body serves Copy elements and byte strings"
    )]
    pub fn transpose_last2(&self, batch: usize, rows: usize, cols: usize) -> Result<HostData> {
        const B: usize = 32;
        let rc = rows * cols;
        if batch * rc != self.len() {
            return Err(Error::internal("transpose: element count differs"));
        }
        Ok(map_host!(self, v => {
            let mut out = try_vec(v.len())?;
            if let Some(first) = v.first() {
                out.resize(v.len(), first.clone());
            }
            for (src, dst) in v.chunks_exact(rc.max(1)).zip(out.chunks_exact_mut(rc.max(1))) {
                for r0 in (0..rows).step_by(B) {
                    for c0 in (0..cols).step_by(B) {
                        for r in r0..(r0 + B).min(rows) {
                            for c in c0..(c0 + B).min(cols) {
                                dst[c * rows + r] = src[r * cols + c].clone();
                            }
                        }
                    }
                }
            }
            out
        }))
    }
}

/// A `Vec` with room for `n` elements, or `ResourceExhausted` instead of an abort.
pub fn try_vec<T: Send + 'static>(n: usize) -> Result<Vec<T>> {
    if let Some(v) = super::pool::take(n) {
        return Ok(v);
    }
    let mut v = Vec::new();
    if v.try_reserve_exact(n).is_err() && (!super::pool::clear() || v.try_reserve_exact(n).is_err())
    {
        return Err(Error::new(
            ErrorKind::ResourceExhausted,
            format!("OOM when allocating a buffer of {n} elements"),
        ));
    }
    super::pool::advise_huge(&v);
    Ok(v)
}

/// `n` copies of `x`, allocated fallibly.
pub fn filled<T: Clone + Send + 'static>(n: usize, x: T) -> Result<Vec<T>> {
    let mut v = try_vec(n)?;
    v.resize(n, x);
    Ok(v)
}

/// A Rust element type that a [`HostData`] variant holds.
pub trait Elem: Copy + Send + Sync + 'static + std::fmt::Debug {
    /// The dtype of this element type.
    const DTYPE: DType;
    /// Borrows the typed slice if `data` holds this type.
    fn slice(data: &HostData) -> Option<&[Self]>;
    /// Mutably borrows the typed vec if `data` holds this type.
    fn vec_mut(data: &mut HostData) -> Option<&mut Vec<Self>>;
    /// Wraps a typed vec.
    fn wrap(v: Vec<Self>) -> HostData;
}

macro_rules! elem {
    ($t:ty, $var:ident, $dt:expr) => {
        impl Elem for $t {
            const DTYPE: DType = $dt;
            fn slice(data: &HostData) -> Option<&[Self]> {
                match data {
                    HostData::$var(v) => Some(v),
                    _ => None,
                }
            }
            fn vec_mut(data: &mut HostData) -> Option<&mut Vec<Self>> {
                match data {
                    HostData::$var(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> HostData {
                HostData::$var(v)
            }
        }
    };
}
elem!(bool, Bool, DType::Bool);
elem!(i8, I8, DType::Int8);
elem!(u8, U8, DType::UInt8);
elem!(i16, I16, DType::Int16);
elem!(i32, I32, DType::Int32);
elem!(i64, I64, DType::Int64);
elem!(F16, F16, DType::Float16);
elem!(f32, F32, DType::Float32);
elem!(f64, F64, DType::Float64);
elem!(C64, C64, DType::Complex64);
elem!(C128, C128, DType::Complex128);

/// Where a tensor's elements live: host memory or a CUDA card. Every op
/// reaches its kernels through [`Storage::backend`].
#[derive(Clone, Debug, PartialEq)]
pub enum Storage {
    /// Host memory (CPU and virtual GPUs).
    Host(HostData),
    /// Device memory of a real GPU (uninhabited in builds without CUDA).
    Cuda(backend::cuda::CudaStorage),
}

impl Storage {
    /// The backend whose kernels operate on this storage.
    pub fn backend(&self) -> &'static dyn Backend {
        match self {
            Storage::Host(_) => &backend::cpu::CPU,
            Storage::Cuda(_) => &backend::cuda::CUDA,
        }
    }

    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        match self {
            Storage::Host(h) => h.dtype(),
            Storage::Cuda(c) => c.dtype(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Storage::Host(h) => h.len(),
            Storage::Cuda(c) => c.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements in host memory: the buffer itself, or for device memory
    /// its host copy, made on the first call and kept (the one place data
    /// crosses to the host: printing, `.numpy()`, Python scalars, CPU ops).
    /// `None` only when that copy fails.
    pub fn host(&self) -> Option<&HostData> {
        match self {
            Storage::Host(h) => Some(h),
            Storage::Cuda(c) => c.host(),
        }
    }

    /// Mutable host buffer (for copy-on-write element assignment). Device
    /// memory moves to the host first: the tensor keeps its device, and its
    /// later ops run on the host copy.
    pub fn host_mut(&mut self) -> Option<&mut HostData> {
        if let Storage::Cuda(c) = self {
            *self = Storage::Host(c.to_host().ok()?);
        }
        match self {
            Storage::Host(h) => Some(h),
            Storage::Cuda(_) => None,
        }
    }
}
