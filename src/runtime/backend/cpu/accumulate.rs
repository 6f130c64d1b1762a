//! Kernels over several equally shaped buffers at once, for the
//! cross-replica collectives: the element-wise sum of N buffers in one pass
//! (TensorFlow's `AddN`), and the concatenation of N buffers into one
//! allocation. Both split the work across all cores with rayon.

use std::mem::MaybeUninit;
use std::ops::Add;

use rayon::prelude::*;

use crate::runtime::error::{Error, Result};
use crate::runtime::storage::try_vec;

/// Elements one task sums at a time: the partial sums of a block stay in L1
/// while every part is added to them.
const BLOCK: usize = 4096;
/// Element count from which the kernels run in parallel.
const PAR_MIN: usize = 64 * 1024;
/// Smallest slice of a part one copy task gets.
const COPY_CHUNK: usize = 256 * 1024;

/// One block of the sum for a known number of parts: one pass, each output
/// element summed in registers (the loop over parts unrolls, the loop over
/// elements vectorises).
fn fused<T, const N: usize>(parts: &[&[T]], start: usize, dst: &mut [MaybeUninit<T>])
where
    T: Copy + Add<Output = T>,
{
    let len = dst.len();
    let ps: [&[T]; N] = std::array::from_fn(|k| &parts[k][start..start + len]);
    for (j, d) in dst.iter_mut().enumerate() {
        let mut acc = ps[0][j];
        for p in &ps[1..] {
            acc = acc + p[j];
        }
        d.write(acc);
    }
}

/// One block of the sum for any number of parts: partial sums in an L1-sized
/// buffer, one part at a time.
fn blocked<T>(parts: &[&[T]], start: usize, dst: &mut [MaybeUninit<T>])
where
    T: Copy + Default + Add<Output = T>,
{
    let mut acc = [T::default(); BLOCK];
    let acc = &mut acc[..dst.len()];
    acc.copy_from_slice(&parts[0][start..start + dst.len()]);
    for p in &parts[1..] {
        for (a, &x) in acc.iter_mut().zip(&p[start..start + dst.len()]) {
            *a = *a + x;
        }
    }
    for (d, &a) in dst.iter_mut().zip(acc.iter()) {
        d.write(a);
    }
}

/// The element-wise sum of equally long parts, added in order (`((p0 + p1) +
/// p2) + …`, the rounding of chained adds), reading each part once and
/// writing the output once.
pub fn sum_n<T>(parts: &[&[T]]) -> Result<Vec<T>>
where
    T: Copy + Default + Send + Sync + Add<Output = T> + 'static,
{
    let Some(first) = parts.first() else {
        return Err(Error::internal("sum of no buffers"));
    };
    let n = first.len();
    if parts.iter().any(|p| p.len() != n) {
        return Err(Error::internal("sum of buffers of different lengths"));
    }
    let mut out = try_vec::<T>(n)?;
    let block = |start: usize, dst: &mut [MaybeUninit<T>]| match parts.len() {
        2 => fused::<T, 2>(parts, start, dst),
        3 => fused::<T, 3>(parts, start, dst),
        4 => fused::<T, 4>(parts, start, dst),
        8 => fused::<T, 8>(parts, start, dst),
        _ => blocked(parts, start, dst),
    };
    let spare = &mut out.spare_capacity_mut()[..n];
    if n >= PAR_MIN {
        spare
            .par_chunks_mut(BLOCK)
            .enumerate()
            .for_each(|(i, dst)| block(i * BLOCK, dst));
    } else {
        for (i, dst) in spare.chunks_mut(BLOCK).enumerate() {
            block(i * BLOCK, dst);
        }
    }
    // SAFETY: the loops above wrote every one of the first `n` spare slots
    // (the chunks of `spare` cover it exactly), and `try_vec` reserved `n`.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// The parts one after the other, in one allocation; large parts are copied
/// by all cores.
pub fn concat<T: Clone + Send + Sync + 'static>(parts: &[&[T]]) -> Result<Vec<T>> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = try_vec(total)?;
    for p in parts {
        if p.len() >= PAR_MIN {
            // an indexed parallel extend writes straight into the reserved space
            out.par_extend(p.par_iter().with_min_len(COPY_CHUNK).cloned());
        } else {
            out.extend_from_slice(p);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_n_adds_in_order() {
        let a: Vec<f32> = (0..100_000).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..100_000).map(|i| 1.0 + i as f32).collect();
        let c: Vec<f32> = vec![0.25; 100_000];
        let got = sum_n(&[&a, &b, &c]).unwrap();
        for i in [0, 1, 4095, 4096, 65_537, 99_999] {
            assert_eq!(got[i], (a[i] + b[i]) + c[i]);
        }
        let got4 = sum_n(&[&a, &b, &c, &a]).unwrap();
        let got5 = sum_n(&[&a, &b, &c, &a, &b]).unwrap();
        for i in [0, 4095, 4096, 99_999] {
            assert_eq!(got4[i], ((a[i] + b[i]) + c[i]) + a[i]);
            assert_eq!(got5[i], (((a[i] + b[i]) + c[i]) + a[i]) + b[i]);
        }
        assert_eq!(sum_n(&[&a[..3]]).unwrap(), a[..3].to_vec());
        assert!(sum_n::<f32>(&[&a[..3], &a[..2]]).is_err());
    }

    #[test]
    fn concat_keeps_order() {
        let a: Vec<f64> = (0..70_000).map(f64::from).collect();
        let got = concat(&[&a[..5], &a, &a[..1]]).unwrap();
        assert_eq!(got.len(), 70_006);
        assert_eq!(&got[..5], &a[..5]);
        assert_eq!(&got[5..70_005], &a[..]);
        assert_eq!(got[70_005], 0.0);
    }
}
