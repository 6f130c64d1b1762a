//! Collectives between real GPUs through NCCL: one communicator per set of
//! cards (created on first use, kept per thread: the interpreter is one
//! thread and NCCL communicators are not shared across threads), and one
//! grouped call per collective so every card's part is issued together.
//! Replicas that share a card, or a mix of devices, do not come here: the
//! Strategy runtime copies their tensors to the destination and adds them
//! with the element-wise kernel.

use std::cell::RefCell;
use std::collections::HashMap;

use cudarc::nccl::result::{group_end, group_start};
use cudarc::nccl::{Comm, ReduceOp};

use super::{alloc_like, driver_err, nccl_available, CudaStorage};
use crate::runtime::dtype::DType;
use crate::runtime::error::Result;
use crate::runtime::storage::Storage;

thread_local! {
    /// Communicators by the ordered card ordinals they span.
    static COMMS: RefCell<HashMap<Vec<usize>, Vec<Comm>>> = RefCell::new(HashMap::new());
}

/// The element-wise sum of `parts` on every part's card (NCCL all-reduce),
/// or `None` when NCCL does not apply: a part not in device memory, two
/// parts on one card, mixed dtypes or shapes, fewer than two parts, a dtype
/// NCCL does not sum like the CPU does, or no libnccl.
pub fn all_reduce_sum(parts: &[&Storage]) -> Result<Option<Vec<Storage>>> {
    let mut cs: Vec<&CudaStorage> = Vec::new();
    for p in parts {
        match p {
            Storage::Cuda(c) => cs.push(c),
            Storage::Host(_) => return Ok(None),
        }
    }
    if cs.len() < 2 || !nccl_available() {
        return Ok(None);
    }
    let (dtype, len) = (cs[0].dtype, cs[0].len);
    let mut ordinals: Vec<usize> = cs.iter().map(|c| c.card.ordinal).collect();
    if cs.iter().any(|c| c.dtype != dtype || c.len != len) {
        return Ok(None);
    }
    let key = {
        let mut k = ordinals.clone();
        k.sort_unstable();
        k.dedup();
        k
    };
    if key.len() != ordinals.len()
        || !matches!(
            dtype,
            DType::Float32 | DType::Float64 | DType::Int32 | DType::Int64
        )
    {
        return Ok(None);
    }
    ordinals.clone_from(&key);
    let mut outs = Vec::with_capacity(cs.len());
    for c in &cs {
        outs.push(alloc_like(c)?);
    }
    COMMS.with(|table| -> Result<()> {
        let mut table = table.borrow_mut();
        if !table.contains_key(&key) {
            let streams = key
                .iter()
                .map(|&o| super::card(o).map(|c| c.stream.clone()))
                .collect::<Result<Vec<_>>>()?;
            let comms = Comm::from_devices(streams).map_err(|e| driver_err("NCCL init", e))?;
            table.insert(key.clone(), comms);
        }
        let comms = &table[&key];
        group_start().map_err(|e| driver_err("NCCL group", e))?;
        let mut result = Ok(());
        for (c, out) in cs.iter().zip(outs.iter_mut()) {
            let rank = key.iter().position(|&o| o == c.card.ordinal).unwrap_or(0);
            let comm = &comms[rank];
            let r = match dtype {
                DType::Float32 => sum::<f32>(comm, c, out),
                DType::Float64 => sum::<f64>(comm, c, out),
                DType::Int32 => sum::<i32>(comm, c, out),
                _ => sum::<i64>(comm, c, out),
            };
            if r.is_err() && result.is_ok() {
                result = r;
            }
        }
        group_end().map_err(|e| driver_err("NCCL group", e))?;
        result
    })?;
    Ok(Some(
        cs.iter()
            .zip(outs)
            .map(|(c, out)| Storage::Cuda(CudaStorage::new(dtype, len, c.card.clone(), out)))
            .collect(),
    ))
}

fn sum<T: cudarc::nccl::NcclType>(
    comm: &Comm,
    c: &CudaStorage,
    out: &mut cudarc::driver::CudaSlice<u8>,
) -> Result<()> {
    // SAFETY: both buffers hold c.len elements of T (the storage's dtype).
    let (src, dst) = unsafe { (c.buf.transmute::<T>(c.len), out.transmute_mut::<T>(c.len)) };
    match (src, dst) {
        (Some(src), Some(mut dst)) => comm
            .all_reduce(&src, &mut dst, &ReduceOp::Sum)
            .map(|_| ())
            .map_err(|e| driver_err("NCCL all-reduce", e)),
        _ => Err(crate::runtime::error::Error::internal(
            "all-reduce: buffer sizes",
        )),
    }
}
