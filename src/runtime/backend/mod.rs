//! The kernel interface. Every op reaches its kernels through the
//! [`Backend`] of its input's storage ([`crate::runtime::storage::Storage::backend`]),
//! so a CUDA backend can slot in beside [`cpu::CpuBackend`] without callers
//! changing. Shape logic and error texts stay in `ops`; backends only
//! compute on buffers whose shapes the caller already checked.

pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(not(feature = "cuda"))]
#[path = "cuda_stub.rs"]
pub mod cuda;
pub mod kernels;

use super::device::{Device, DeviceKind};
use super::dtype::DType;
use super::error::Result;
use super::op::{ArgOp, BinaryOp, ReduceOp, Semantics, UnaryOp};
use super::shape::Shape;
use super::storage::{HostData, Storage};

/// One real GPU, as `dist devices` lists it (none exists in a build without
/// the `cuda` feature).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    /// The CUDA ordinal.
    pub ordinal: usize,
    /// The marketing name (`NVIDIA H200`).
    pub name: String,
    /// Total device memory in bytes.
    pub total_mem: usize,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
}

/// True when tensors on `device` live in CUDA memory (a GPU that is not
/// virtual).
pub fn is_cuda(device: Device) -> bool {
    device.kind == DeviceKind::Gpu && !device.is_virtual
}

/// The number of kept (`outer`) and reduced (`inner`) elements of a
/// reduction of `dims` over the axes where `mask` is true.
pub fn reduce_extents(dims: &[usize], mask: &[bool]) -> (usize, usize) {
    let mut outer = 1;
    let mut inner = 1;
    for (&d, &m) in dims.iter().zip(mask) {
        if m {
            inner *= d;
        } else {
            outer *= d;
        }
    }
    (outer, inner)
}

/// Batched matrix-product geometry: `batch` products of `[m, k] x [k, n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatMulDims {
    /// Number of products.
    pub batch: usize,
    /// Rows of each left operand and of the result.
    pub m: usize,
    /// Inner dimension.
    pub k: usize,
    /// Columns of each right operand and of the result.
    pub n: usize,
    /// Element offset between consecutive left matrices (0 broadcasts one matrix).
    pub lhs_batch_stride: usize,
    /// Element offset between consecutive right matrices (0 broadcasts one matrix).
    pub rhs_batch_stride: usize,
    /// The left matrices are stored transposed (`[k, m]`); only set for a
    /// backend whose `matmul_reads_transposed` says it reads them so.
    pub transpose_a: bool,
    /// The right matrices are stored transposed (`[n, k]`); as `transpose_a`.
    pub transpose_b: bool,
}

/// The kernels a device kind provides. Errors carry only the bare kernel
/// message (`Integer division by zero`); `ops` wraps them in TensorFlow's form.
pub trait Backend: Sync {
    /// A short name for traces (`cpu`, `cuda`).
    fn name(&self) -> &'static str;

    /// Element-wise `op(x)`; the result has `x`'s dtype (bool for logical ops).
    fn unary(&self, op: UnaryOp, x: &Storage) -> Result<Storage>;

    /// Element-wise `op(a, b)` with numpy broadcasting of the operands'
    /// shapes to `out` (the caller checked compatibility and equal dtypes).
    fn binary(
        &self,
        op: BinaryOp,
        sem: Semantics,
        a: (&Storage, &Shape),
        b: (&Storage, &Shape),
        out: &Shape,
    ) -> Result<Storage>;

    /// `where(cond, x, y)` with all three broadcast to `out`.
    fn select(
        &self,
        cond: (&Storage, &Shape),
        x: (&Storage, &Shape),
        y: (&Storage, &Shape),
        out: &Shape,
    ) -> Result<Storage>;

    /// Element-wise conversion to `to` (TensorFlow's `Cast`).
    fn cast(&self, x: &Storage, to: DType) -> Result<Storage>;

    /// Reduces `x` of `shape` over the axes where `mask` is true; the result
    /// holds the kept axes in order.
    fn reduce(
        &self,
        op: ReduceOp,
        sem: Semantics,
        x: &Storage,
        shape: &Shape,
        mask: &[bool],
    ) -> Result<Storage>;

    /// Index of the extreme along `axis` (int64 result, kept axes in order).
    fn arg_reduce(&self, op: ArgOp, x: &Storage, shape: &Shape, axis: usize) -> Result<Storage>;

    /// Batched matrix product.
    fn matmul(&self, a: &Storage, b: &Storage, dims: MatMulDims) -> Result<Storage>;

    /// Whether `matmul` reads operands stored transposed (`MatMulDims`'
    /// `transpose_a`/`transpose_b`); where not, the caller transposes them.
    fn matmul_reads_transposed(&self) -> bool {
        false
    }

    /// Elements at the given flat indices, in order (the copy behind every
    /// shape op: transpose, slicing, gather, concat, tile…).
    fn take(&self, x: &Storage, idx: &[usize]) -> Result<Storage>;

    /// Concatenates buffers of one dtype, in order.
    fn concat(&self, parts: &[&Storage]) -> Result<Storage>;

    /// The element-wise sum of equally long buffers of one dtype, added in
    /// order, in one pass (`AddN`); `None` where the backend has no such
    /// kernel for the dtype and the caller chains binary adds (the default).
    fn add_n(&self, parts: &[&Storage]) -> Result<Option<Storage>> {
        let _ = parts;
        Ok(None)
    }

    /// Writes `src` (already broadcast to `idx.len()` elements) at flat indices.
    fn scatter(&self, dst: &mut Storage, idx: &[usize], src: &Storage) -> Result<()>;

    /// A host copy of the elements.
    fn to_host(&self, x: &Storage) -> Result<HostData>;
}
