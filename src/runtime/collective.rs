//! Collectives on tensors that live on real GPUs: the runtime side of
//! `strategy.reduce` and `all_reduce`. One tensor per card goes through
//! NCCL ([`crate::runtime::backend::cuda::all_reduce_sum`]); anything else
//! (replicas sharing a card, host tensors, a mix) is left to the caller's
//! copy-to-destination-and-add path, which runs the element-wise kernel of
//! the destination's backend.

use super::error::Result;
use super::storage::Storage;
use super::tensor::Tensor;

/// The element-wise sum of `parts`, one result on each part's card, when
/// every part is on a different real GPU with one dtype and shape; `None`
/// when NCCL does not apply.
pub fn all_reduce_sum(parts: &[Tensor]) -> Result<Option<Vec<Tensor>>> {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    if parts.iter().any(|t| t.shape() != first.shape()) {
        return Ok(None);
    }
    let storages: Vec<&Storage> = parts.iter().map(Tensor::storage).collect();
    let Some(sums) = super::backend::cuda::all_reduce_sum(&storages)? else {
        return Ok(None);
    };
    Ok(Some(
        sums.into_iter()
            .zip(parts)
            .map(|(s, t)| Tensor::from_parts(s.dtype(), t.shape().clone(), s, t.device()))
            .collect(),
    ))
}
