//! The CUDA backend's API for builds without the `cuda` feature: no real GPU
//! exists, [`CudaStorage`] cannot be constructed, and every call that would
//! need CUDA returns "built without CUDA". Nothing here panics.

pub use super::{is_cuda, GpuInfo};
use crate::runtime::device::Device;
use crate::runtime::error::{Error, Result};
use crate::runtime::storage::{HostData, Storage};

/// False in this build: the CUDA backend is not compiled in.
pub const BUILT_WITH_CUDA: bool = false;

/// Device memory: uninhabited without CUDA, so every match on it is trivial.
#[derive(Debug, Clone, PartialEq)]
pub enum CudaStorage {}

impl CudaStorage {
    /// Never called: no value of this type exists.
    pub fn dtype(&self) -> crate::runtime::dtype::DType {
        match *self {}
    }

    /// Never called: no value of this type exists.
    pub fn len(&self) -> usize {
        match *self {}
    }

    /// Never called: no value of this type exists.
    pub fn is_empty(&self) -> bool {
        match *self {}
    }

    /// Never called: no value of this type exists.
    pub fn host(&self) -> Option<&HostData> {
        match *self {}
    }

    /// Never called: no value of this type exists.
    pub fn to_host(&self) -> Result<HostData> {
        match *self {}
    }
}

#[cold]
fn without() -> Error {
    Error::unimplemented("dist was built without CUDA (the `cuda` feature is off)")
}

/// No GPUs: this build has no CUDA backend.
pub fn gpus() -> std::result::Result<&'static [GpuInfo], String> {
    Err("dist was built without CUDA (the `cuda` feature is off)".into())
}

/// Always 0.
pub fn gpu_count() -> usize {
    0
}

/// Always false.
pub fn nvrtc_available() -> bool {
    false
}

/// Always false.
pub fn nccl_available() -> bool {
    false
}

/// Always "built without CUDA".
pub fn compile(_source: &str, _arch: Option<(i32, i32)>) -> std::result::Result<String, String> {
    Err("dist was built without CUDA".into())
}

/// Always "built without CUDA".
pub fn compile_cubin(_source: &str, _sm: (i32, i32)) -> std::result::Result<Vec<u8>, String> {
    Err("dist was built without CUDA".into())
}

/// Always 0.
pub fn fallback_count() -> u64 {
    0
}

/// Host placement works; a CUDA device is "built without CUDA".
pub fn place(storage: &Storage, device: Device) -> Result<Storage> {
    let d = storage.dtype();
    if is_cuda(device) && d != crate::runtime::dtype::DType::String && !d.is_complex() {
        return Err(without());
    }
    Ok(storage.clone())
}

/// No NCCL: the caller's copy-and-add path applies.
pub fn all_reduce_sum(_parts: &[&Storage]) -> Result<Option<Vec<Storage>>> {
    Ok(None)
}

/// The backend of device memory (unreachable: no device memory exists).
#[derive(Debug, Clone, Copy, Default)]
pub struct CudaBackend;

/// The one (inert) instance.
pub static CUDA: crate::runtime::backend::cpu::CpuBackend =
    crate::runtime::backend::cpu::CpuBackend;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::storage::HostData;

    #[test]
    fn every_cuda_request_says_built_without_cuda() {
        assert_eq!(gpu_count(), 0);
        assert!(gpus().unwrap_err().contains("built without CUDA"));
        let host = Storage::Host(HostData::F32(vec![1.0]));
        let err = place(&host, Device::cuda_gpu(0)).unwrap_err();
        assert!(
            err.message().contains("built without CUDA"),
            "{}",
            err.message()
        );
        // host devices and string tensors are untouched
        assert_eq!(place(&host, Device::virtual_gpu(0)).unwrap(), host);
        let s = Storage::Host(HostData::Str(vec![b"a".to_vec()]));
        assert_eq!(place(&s, Device::cuda_gpu(0)).unwrap(), s);
        assert!(all_reduce_sum(&[&host, &host]).unwrap().is_none());
        assert!(crate::runtime::GpuBackend::Cuda.check().is_err());
    }
}
