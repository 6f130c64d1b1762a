//! The CPU backend: kernels over host buffers ([`HostData`]), used for the
//! CPU and for virtual GPUs. Submodules hold the kernel families.

pub mod accumulate;
pub mod complex;
pub mod eigen_math;
pub mod eigen_math64;
pub mod eigen_reduce;
pub mod elementwise;
pub mod f32_kernels;
pub mod linalg;
pub mod matmul;
pub mod num;
pub mod onednn;
pub mod reduce;
pub mod special;
mod special_gamma;
pub mod zip;

use super::{Backend, MatMulDims};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{ArgOp, BinaryOp, ReduceOp, Semantics, UnaryOp};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{try_vec, HostData, Storage};

/// The CPU backend (a unit value; all state is in the buffers).
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuBackend;

/// The one CPU backend instance.
pub static CPU: CpuBackend = CpuBackend;

fn h(s: &Storage) -> Result<&HostData> {
    s.host()
        .ok_or_else(|| Error::internal("cpu backend given device memory"))
}

/// Flat source indices of the row-major transpose of `dims` by `perm`
/// (output element `i` comes from input `idx[i]`).
pub fn permute_indices(dims: &[usize], perm: &[usize]) -> Result<Vec<usize>> {
    let rank = dims.len();
    let n: usize = dims.iter().product();
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let out_strides: Vec<usize> = perm.iter().map(|&p| strides[p]).collect();
    let mut idx = try_vec(n)?;
    if n == 0 {
        return Ok(idx);
    }
    let mut counter = vec![0usize; rank];
    let mut off = 0usize;
    for _ in 0..n {
        idx.push(off);
        for d in (0..rank).rev() {
            counter[d] += 1;
            off += out_strides[d];
            if counter[d] < out_dims[d] {
                break;
            }
            off -= out_strides[d] * out_dims[d];
            counter[d] = 0;
        }
    }
    Ok(idx)
}

/// Every sum `offs[0][c0] + offs[1][c1] + …`, the counters in row-major
/// order: the flat source offsets of a gather whose output axis `d` reads
/// the positions `offs[d]` (already multiplied by the input's stride):
/// slicing, padding, tiling and broadcasting all build their index tables
/// so. An odometer over the outer axes adds one offset per row, and the
/// innermost axis's offsets are copied in a run, so there is no division or
/// per-axis loop per element.
pub fn outer_sums(offs: &[Vec<usize>]) -> Result<Vec<usize>> {
    let n: usize = offs.iter().map(Vec::len).product();
    let mut idx = try_vec(n)?;
    let Some((inner, outer)) = offs.split_last() else {
        idx.push(0);
        return Ok(idx);
    };
    if n == 0 {
        return Ok(idx);
    }
    let mut counter = vec![0usize; outer.len()];
    let mut base: usize = outer.iter().map(|o| o[0]).sum();
    loop {
        idx.extend(inner.iter().map(|&o| base + o));
        let mut k = outer.len();
        loop {
            if k == 0 {
                return Ok(idx);
            }
            k -= 1;
            base -= outer[k][counter[k]];
            counter[k] += 1;
            if counter[k] < outer[k].len() {
                base += outer[k][counter[k]];
                break;
            }
            counter[k] = 0;
            base += outer[k][0];
        }
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn unary(&self, op: UnaryOp, x: &Storage) -> Result<Storage> {
        Ok(Storage::Host(elementwise::unary(op, h(x)?)?))
    }

    fn binary(
        &self,
        op: BinaryOp,
        sem: Semantics,
        (a, a_shape): (&Storage, &Shape),
        (b, b_shape): (&Storage, &Shape),
        out: &Shape,
    ) -> Result<Storage> {
        Ok(Storage::Host(elementwise::binary(
            op,
            sem,
            h(a)?,
            a_shape.dims(),
            h(b)?,
            b_shape.dims(),
            out.dims(),
        )?))
    }

    fn select(
        &self,
        cond: (&Storage, &Shape),
        x: (&Storage, &Shape),
        y: (&Storage, &Shape),
        out: &Shape,
    ) -> Result<Storage> {
        let c = match h(cond.0)? {
            HostData::Bool(v) => v,
            _ => return Err(Error::internal("select: condition is not bool")),
        };
        Ok(Storage::Host(elementwise::select(
            c,
            cond.1.dims(),
            h(x.0)?,
            x.1.dims(),
            h(y.0)?,
            y.1.dims(),
            out.dims(),
        )?))
    }

    fn cast(&self, x: &Storage, to: DType) -> Result<Storage> {
        Ok(Storage::Host(elementwise::cast(h(x)?, to)?))
    }

    fn reduce(
        &self,
        op: ReduceOp,
        sem: Semantics,
        x: &Storage,
        shape: &Shape,
        mask: &[bool],
    ) -> Result<Storage> {
        // TensorFlow's float sums and products in its kernels' order;
        // numpy's (pairwise) and the order-free ones in `reduce`
        if sem == Semantics::Tf {
            if let Some(r) = eigen_reduce::reduce(op, h(x)?, shape.dims(), mask)? {
                return Ok(Storage::Host(r));
            }
        }
        Ok(Storage::Host(reduce::reduce(
            op,
            h(x)?,
            shape.dims(),
            mask,
        )?))
    }

    fn arg_reduce(&self, op: ArgOp, x: &Storage, shape: &Shape, axis: usize) -> Result<Storage> {
        Ok(Storage::Host(reduce::arg_reduce(
            op,
            h(x)?,
            shape.dims(),
            axis,
        )?))
    }

    fn matmul(&self, a: &Storage, b: &Storage, dims: MatMulDims) -> Result<Storage> {
        Ok(Storage::Host(matmul::matmul(h(a)?, h(b)?, dims)?))
    }

    fn matmul_reads_transposed(&self) -> bool {
        true
    }

    fn take(&self, x: &Storage, idx: &[usize]) -> Result<Storage> {
        Ok(Storage::Host(h(x)?.take(idx)?))
    }

    fn concat(&self, parts: &[&Storage]) -> Result<Storage> {
        let first = match parts.first() {
            Some(p) => h(p)?,
            None => return Err(Error::internal("concat of nothing")),
        };
        let hosts = parts.iter().map(|p| h(p)).collect::<Result<Vec<_>>>()?;
        macro_rules! join {
            ($variant:ident) => {{
                let mut slices = Vec::with_capacity(hosts.len());
                for p in &hosts {
                    match p {
                        HostData::$variant(v) => slices.push(&v[..]),
                        _ => return Err(Error::internal("concat: mixed dtypes")),
                    }
                }
                HostData::$variant(accumulate::concat(&slices)?)
            }};
        }
        Ok(Storage::Host(match first {
            HostData::Bool(_) => join!(Bool),
            HostData::I8(_) => join!(I8),
            HostData::U8(_) => join!(U8),
            HostData::I16(_) => join!(I16),
            HostData::I32(_) => join!(I32),
            HostData::I64(_) => join!(I64),
            HostData::F16(_) => join!(F16),
            HostData::F32(_) => join!(F32),
            HostData::F64(_) => join!(F64),
            HostData::C64(_) => join!(C64),
            HostData::C128(_) => join!(C128),
            HostData::Str(_) => join!(Str),
        }))
    }

    fn add_n(&self, parts: &[&Storage]) -> Result<Option<Storage>> {
        let hosts = parts.iter().map(|p| h(p)).collect::<Result<Vec<_>>>()?;
        macro_rules! sum {
            ($variant:ident) => {{
                let mut slices = Vec::with_capacity(hosts.len());
                for p in &hosts {
                    match p {
                        HostData::$variant(v) => slices.push(&v[..]),
                        _ => return Err(Error::internal("add_n: mixed dtypes")),
                    }
                }
                HostData::$variant(accumulate::sum_n(&slices)?)
            }};
        }
        Ok(Some(Storage::Host(match hosts.first() {
            Some(HostData::F32(_)) => sum!(F32),
            Some(HostData::F64(_)) => sum!(F64),
            // integers wrap and float16 rounds per add: the chained AddV2 kernels do those
            _ => return Ok(None),
        })))
    }

    fn scatter(&self, dst: &mut Storage, idx: &[usize], src: &Storage) -> Result<()> {
        let src = match src.host() {
            Some(s) => s.clone(),
            None => return Err(Error::internal("scatter from device memory")),
        };
        let dst = dst
            .host_mut()
            .ok_or_else(|| Error::internal("scatter into device memory"))?;
        macro_rules! put {
            ($d:expr, $s:expr) => {{
                for (&i, x) in idx.iter().zip($s.into_iter()) {
                    if let Some(slot) = $d.get_mut(i) {
                        *slot = x;
                    }
                }
                Ok(())
            }};
        }
        match (dst, src) {
            (HostData::Bool(d), HostData::Bool(s)) => put!(d, s),
            (HostData::I8(d), HostData::I8(s)) => put!(d, s),
            (HostData::U8(d), HostData::U8(s)) => put!(d, s),
            (HostData::I16(d), HostData::I16(s)) => put!(d, s),
            (HostData::I32(d), HostData::I32(s)) => put!(d, s),
            (HostData::I64(d), HostData::I64(s)) => put!(d, s),
            (HostData::F16(d), HostData::F16(s)) => put!(d, s),
            (HostData::F32(d), HostData::F32(s)) => put!(d, s),
            (HostData::F64(d), HostData::F64(s)) => put!(d, s),
            (HostData::C64(d), HostData::C64(s)) => put!(d, s),
            (HostData::C128(d), HostData::C128(s)) => put!(d, s),
            (HostData::Str(d), HostData::Str(s)) => put!(d, s),
            _ => Err(Error::internal("scatter: mixed dtypes")),
        }
    }

    fn to_host(&self, x: &Storage) -> Result<HostData> {
        Ok(h(x)?.clone())
    }
}
