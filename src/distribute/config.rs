//! The interpreter options this layer reads (`--virtual-gpus`, `--always-wrap`),
//! kept in the interpreter's `State`.

use std::cell::Cell;

/// Options of the Strategy runtime.
#[derive(Default, Debug)]
pub struct Config {
    /// Number of simulated GPUs.
    pub virtual_gpus: Cell<u32>,
    /// Where the GPUs live (`--gpu-backend`).
    pub gpu_backend: Cell<crate::runtime::GpuBackend>,
    /// Wrap single-replica results as `PerReplica:{ 0: … }`.
    pub always_wrap: Cell<bool>,
}
