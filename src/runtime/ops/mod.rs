//! Tensor ops: shape checks, dtype rules and TensorFlow/numpy error texts,
//! on top of the backend kernels.
