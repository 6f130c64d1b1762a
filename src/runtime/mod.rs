//! The tensor runtime: a pure Rust tensor library that knows nothing of the
//! Python language. It owns dtypes, shapes, devices, tensors and their
//! storage, the kernels (through a [`backend::Backend`] per device kind),
//! construction from Python-like literals, and numpy/TensorFlow printing.
//! The `tf` and `np` modules of the language are thin wrappers over it.

pub mod autodiff;
pub mod backend;
pub mod checkpoint;
pub mod collective;
pub mod device;
pub mod dtype;
pub mod error;
pub mod f16;
pub mod farmhash;
pub mod format;
pub mod graph;
pub mod literal;
pub mod op;
pub mod ops;
mod pool;
pub mod random;
pub mod saved_model;
pub mod saving;
pub mod shape;
pub mod siphash;
pub mod storage;
pub mod tensor;
pub mod trace;

pub use device::{Device, DeviceKind, DeviceSpec, GpuBackend};
pub use dtype::{DType, Scalar};
pub use error::{Error, ErrorKind, Result};
pub use f16::F16;
pub use literal::{tensor_from_literal, InferMode, Literal};
pub use op::{ArgOp, BinaryOp, ReduceOp, Semantics, UnaryOp};
pub use shape::Shape;
pub use storage::{HostData, Storage, C128, C64};
pub use tensor::Tensor;
