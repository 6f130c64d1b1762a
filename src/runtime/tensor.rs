//! [`Tensor`]: an immutable, cheaply cloned handle (one `Arc`, 8 bytes) to a
//! dtype, shape, device and element storage. numpy arrays are the same type
//! underneath; their mutation goes through copy-on-write ([`Tensor::make_mut`]).
//! Construction from Python literals lives in `literal`, ops in `ops`,
//! printing in `format`.

use std::sync::Arc;

use super::device::Device;
use super::dtype::{DType, Scalar};
use super::error::{Error, Result};
use super::f16::F16;
use super::shape::Shape;
use super::storage::{filled, Elem, HostData, Storage, C128, C64};

/// A tensor handle. Cloning shares the buffer.
#[derive(Clone)]
pub struct Tensor(Arc<TensorInner>);

/// What a [`Tensor`] points to.
///
/// Storage is held inline rather than behind a second `Arc`: a scalar op then
/// costs two allocations (handle and buffer), not three. The price is that
/// reshapes copy their buffer, which is a memcpy.
#[derive(Debug)]
pub struct TensorInner {
    /// The element type (always equal to `storage.dtype()`).
    pub(crate) dtype: DType,
    /// Dimensions, row-major.
    pub(crate) shape: Shape,
    /// The elements.
    pub(crate) storage: Storage,
    /// Where the tensor lives.
    pub(crate) device: Device,
    /// The graph-tracing epoch it was made in (see `runtime::graph`).
    pub(crate) born: u64,
    /// The graph node output it is while a `tf.function` traces (0: none;
    /// see `runtime::graph`): kept on the tensor, so a trace pins nothing
    /// and frees its intermediates as eager code does.
    pub(crate) tag: std::sync::atomic::AtomicU64,
}

impl Clone for TensorInner {
    /// A copy (copy-on-write mutation) is a new tensor: no graph node is it.
    fn clone(&self) -> TensorInner {
        TensorInner {
            dtype: self.dtype,
            shape: self.shape.clone(),
            storage: self.storage.clone(),
            device: self.device,
            born: super::graph::epoch_now(),
            tag: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl Drop for TensorInner {
    fn drop(&mut self) {
        match &mut self.storage {
            Storage::Host(data) => super::pool::recycle(data),
            // device memory goes back to the card's pool when its buffer drops
            Storage::Cuda(_) => {}
        }
    }
}

/// A tensor made from Rust values (a fill, zeros) is a constant of any
/// graph being traced.
fn constant(t: Tensor) -> Tensor {
    if super::graph::tracing() {
        super::graph::constant(&t);
    }
    t
}

impl Tensor {
    /// A tensor from a host buffer; `ValueError`-free internal constructor that
    /// checks the element count matches the shape.
    pub fn from_host(data: HostData, shape: Shape, device: Device) -> Result<Tensor> {
        if shape.numel() != data.len() {
            return Err(Error::internal(format!(
                "buffer of {} elements does not fill shape {}",
                data.len(),
                shape
            )));
        }
        let storage = Storage::Host(data);
        // a CUDA GPU holds its tensors in device memory from the start
        let storage = if device.is_host() {
            storage
        } else {
            super::backend::cuda::place(&storage, device)?
        };
        Ok(Tensor::from_parts(storage.dtype(), shape, storage, device))
    }

    /// A tensor from a storage known to match `shape` (used by kernels).
    pub(crate) fn from_parts(
        dtype: DType,
        shape: Shape,
        storage: Storage,
        device: Device,
    ) -> Tensor {
        Tensor(Arc::new(TensorInner {
            dtype,
            shape,
            storage,
            device,
            born: super::graph::epoch_now(),
            tag: std::sync::atomic::AtomicU64::new(0),
        }))
    }

    /// A CPU tensor from a typed `Vec` and dims.
    pub fn from_vec<T: Elem>(v: Vec<T>, dims: &[usize]) -> Result<Tensor> {
        Tensor::from_host(T::wrap(v), Shape::new(dims), Device::CPU0)
    }

    /// A 0-d CPU tensor holding `x`.
    pub fn scalar<T: Elem>(x: T) -> Tensor {
        constant(Tensor::from_parts(
            T::DTYPE,
            Shape::scalar(),
            Storage::Host(T::wrap(vec![x])),
            Device::CPU0,
        ))
    }

    /// A tensor of `shape` filled with the zero of `dtype` (`b''` for strings).
    pub fn zeros(dtype: DType, dims: &[usize], device: Device) -> Result<Tensor> {
        let shape = Shape::new(dims);
        let n = shape.checked_numel()?;
        Tensor::from_host(HostData::zeros(dtype, n)?, shape, device).map(constant)
    }

    /// A tensor of `shape` filled with one (`ValueError`-like error for strings).
    pub fn ones(dtype: DType, dims: &[usize], device: Device) -> Result<Tensor> {
        if dtype == DType::String {
            return Err(Error::type_error(
                "Cannot convert 1 to EagerTensor of dtype string",
            ));
        }
        Tensor::fill(dims, &Scalar::Int(1), dtype, device)
    }

    /// A tensor of `shape` with every element `value` converted to `dtype`
    /// (integers wrap, floats round, as a cast does).
    pub fn fill(dims: &[usize], value: &Scalar, dtype: DType, device: Device) -> Result<Tensor> {
        let shape = Shape::new(dims);
        let n = shape.checked_numel()?;
        let data = match (dtype, value) {
            (DType::String, Scalar::Bytes(b)) => HostData::Str(filled(n, b.clone())?),
            (DType::String, _) | (_, Scalar::Bytes(_)) => {
                return Err(Error::type_error(format!(
                    "Cannot convert {value:?} to EagerTensor of dtype {}",
                    dtype.kernel_name()
                )))
            }
            (DType::Bool, v) => HostData::Bool(filled(n, !v.is_zero())?),
            (DType::Int8, v) => HostData::I8(filled(n, scalar_i64(v) as i8)?),
            (DType::UInt8, v) => HostData::U8(filled(n, scalar_i64(v) as u8)?),
            (DType::Int16, v) => HostData::I16(filled(n, scalar_i64(v) as i16)?),
            (DType::Int32, v) => HostData::I32(filled(n, scalar_i64(v) as i32)?),
            (DType::Int64, v) => HostData::I64(filled(n, scalar_i64(v))?),
            (DType::Float16, v) => HostData::F16(filled(n, F16::from_f64(v.as_f64()))?),
            (DType::Float32, v) => HostData::F32(filled(n, v.as_f64() as f32)?),
            (DType::Float64, v) => HostData::F64(filled(n, v.as_f64())?),
            (DType::Complex64, v) => {
                let (re, im) = v.as_complex();
                HostData::C64(filled(n, C64::new(re as f32, im as f32))?)
            }
            (DType::Complex128, v) => {
                let (re, im) = v.as_complex();
                HostData::C128(filled(n, C128::new(re, im))?)
            }
        };
        Tensor::from_host(data, shape, device).map(constant)
    }

    /// The handle's identity (its address): what a gradient tape knows the
    /// tensor by. Unique while the tensor lives.
    #[inline]
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The graph-tracing epoch the tensor was made in.
    pub(crate) fn born(&self) -> u64 {
        self.0.born
    }

    /// The graph tag (`runtime::graph`).
    pub(crate) fn tag(&self) -> u64 {
        self.0.tag.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Sets the graph tag.
    pub(crate) fn set_tag(&self, tag: u64) {
        self.0.tag.store(tag, std::sync::atomic::Ordering::Relaxed);
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.0.shape
    }

    /// The dims as a slice.
    pub fn dims(&self) -> &[usize] {
        &self.0.shape.0
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.0.shape.rank()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.0.storage.len()
    }

    /// The device the tensor is on.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// The storage.
    pub fn storage(&self) -> &Storage {
        &self.0.storage
    }

    /// The host buffer (an error for device memory that must be copied first).
    pub fn host(&self) -> Result<&HostData> {
        self.0
            .storage
            .host()
            .ok_or_else(|| Error::internal("tensor is not in host memory"))
    }

    /// The typed elements, when in host memory and of type `T`.
    pub fn as_slice<T: Elem>(&self) -> Option<&[T]> {
        T::slice(self.0.storage.host()?)
    }

    /// The element at flat (row-major) index `i`.
    pub fn get(&self, i: usize) -> Option<Scalar> {
        if super::graph::tracing() {
            super::graph::on_read(self);
        }
        self.0.storage.host()?.get(i)
    }

    /// The only element of a one-element tensor (`tensor.numpy()` of a 0-d tensor).
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return Err(Error::value_error(
                "can only convert an array of size 1 to a Python scalar",
            ));
        }
        self.get(0)
            .ok_or_else(|| Error::internal("item: empty storage"))
    }

    /// Every element, widened (for tests and small conversions).
    pub fn to_scalars(&self) -> Vec<Scalar> {
        (0..self.numel()).filter_map(|i| self.get(i)).collect()
    }

    /// The same elements with a new shape of equal element count (copies the buffer).
    pub fn with_shape(&self, shape: Shape) -> Result<Tensor> {
        self.with_shape_as(shape, "Reshape")
    }

    /// [`Tensor::with_shape`] recorded as the op `name` (`ExpandDims`, `Squeeze`).
    pub fn with_shape_as(&self, shape: Shape, name: &'static str) -> Result<Tensor> {
        if shape.numel() != self.numel() {
            return Err(Error::internal("with_shape: element count differs"));
        }
        // TensorFlow records a reshape to the same shape too, and its
        // gradient densifies an `IndexedSlices`: under a gradient tape it
        // is a new handle, recorded (a graph trace keeps the tensor)
        if self.shape() == &shape
            && (!super::autodiff::tape::recording() || super::graph::tracing())
        {
            return Ok(self.clone());
        }
        let out = Tensor::from_parts(self.dtype(), shape, self.0.storage.clone(), self.device());
        // reshape, expand_dims and squeeze all come here
        super::autodiff::tape::record(|| super::autodiff::GradOp::Reshape(name), &[self], &[&out]);
        Ok(out)
    }

    /// A new tensor on `device` with this one's value: a copy there, or on
    /// the same device a new tensor sharing the storage (each replica's
    /// collective result is its own tensor even where replicas share a
    /// device), recorded as TensorFlow's identity.
    pub fn copy_to(&self, device: Device) -> Result<Tensor> {
        if device != self.device() {
            return self.to_device(device);
        }
        let out = Tensor::from_parts(
            self.dtype(),
            self.shape().clone(),
            self.0.storage.clone(),
            device,
        );
        super::autodiff::tape::record(|| super::autodiff::GradOp::Identity, &[self], &[&out]);
        Ok(out)
    }

    /// The same tensor on another device. Between host devices (CPU ↔
    /// virtual GPU) the buffer is shared, as TensorFlow's `identity` across
    /// devices copies it; to or from a CUDA GPU the elements are copied
    /// (string tensors stay in host memory on every device, as in TensorFlow).
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let storage = if device.is_host() {
            match &self.0.storage {
                Storage::Host(_) => self.0.storage.clone(),
                cuda => Storage::Host(cuda.backend().to_host(cuda)?),
            }
        } else {
            super::backend::cuda::place(&self.0.storage, device)?
        };
        let out = Tensor::from_parts(self.dtype(), self.shape().clone(), storage, device);
        // a copy between devices is recorded as TensorFlow's identity
        super::autodiff::tape::record(|| super::autodiff::GradOp::Identity, &[self], &[&out]);
        Ok(out)
    }

    /// Mutable access for copy-on-write updates: clones the buffer first if
    /// another handle shares it (numpy's in-place assignment).
    pub fn make_mut(&mut self) -> &mut TensorInner {
        Arc::make_mut(&mut self.0)
    }

    /// True when both handles point to the same buffer.
    pub fn ptr_eq(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl TensorInner {
    /// The mutable host buffer.
    pub fn host_mut(&mut self) -> Result<&mut HostData> {
        self.storage
            .host_mut()
            .ok_or_else(|| Error::internal("tensor is not in host memory"))
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::format::tf_repr(self))
    }
}

fn scalar_i64(v: &Scalar) -> i64 {
    match v {
        Scalar::Bool(b) => *b as i64,
        Scalar::Int(i) => *i,
        Scalar::Float(f) | Scalar::Complex(f, _) => *f as i64,
        Scalar::Bytes(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::Tensor;

    #[test]
    fn handle_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Tensor>(), 8);
    }
}
