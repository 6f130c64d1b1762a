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
/// Output size (bytes) from which a sum writes around the caches: an output
/// this large would not stay cached anyway, and a normal store first reads
/// the line it writes (a third more memory traffic for a four-part sum).
const STREAM_MIN_BYTES: usize = 8 << 20;

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
    if std::mem::size_of_val(*first) >= STREAM_MIN_BYTES && stream::sum_n(parts, spare) {
        // SAFETY: `stream::sum_n` returned true: it wrote all `n` spare slots.
        unsafe { out.set_len(n) };
        return Ok(out);
    }
    if n >= PAR_MIN {
        spare
            .par_chunks_mut(BLOCK)
            .enumerate()
            .for_each(|(i, dst)| super::zip::wide(|| block(i * BLOCK, dst)));
    } else {
        super::zip::wide(|| {
            for (i, dst) in spare.chunks_mut(BLOCK).enumerate() {
                block(i * BLOCK, dst);
            }
        });
    }
    // SAFETY: the loops above wrote every one of the first `n` spare slots
    // (the chunks of `spare` cover it exactly), and `try_vec` reserved `n`.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// Sums with non-temporal (streaming) stores for float32 and float64 on
/// x86-64: the same adds in the same order as `fused`, four or two lanes at
/// a time (SSE2, which every x86-64 CPU has, rounds each lane exactly as the
/// scalar add does).
mod stream {
    use std::any::TypeId;
    use std::mem::MaybeUninit;

    use rayon::prelude::*;

    /// Writes `parts`' element-wise sum into `dst` if `T` is a type with a
    /// streaming kernel here (returns false, having written nothing, if not).
    pub fn sum_n<T: 'static + Send + Sync>(parts: &[&[T]], dst: &mut [MaybeUninit<T>]) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if TypeId::of::<T>() == TypeId::of::<f32>() {
                // SAFETY: T is f32 (same layout; the casts only rename the type).
                let (ps, d) = unsafe { cast::<T, f32>(parts, dst) };
                run(&ps, d, x86::block_f32);
                return true;
            }
            if TypeId::of::<T>() == TypeId::of::<f64>() {
                // SAFETY: T is f64.
                let (ps, d) = unsafe { cast::<T, f64>(parts, dst) };
                run(&ps, d, x86::block_f64);
                return true;
            }
        }
        let _ = (parts, dst, TypeId::of::<T>());
        false
    }

    /// # Safety
    /// `T` and `U` must be the same type.
    #[cfg(target_arch = "x86_64")]
    unsafe fn cast<'a, T, U>(
        parts: &[&'a [T]],
        dst: &'a mut [MaybeUninit<T>],
    ) -> (Vec<&'a [U]>, &'a mut [MaybeUninit<U>]) {
        let ps = parts
            .iter()
            .map(|p| std::slice::from_raw_parts(p.as_ptr() as *const U, p.len()))
            .collect();
        let d = std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut MaybeUninit<U>, dst.len());
        (ps, d)
    }

    /// A kernel summing one output block (`parts`, the block's offset, the block).
    #[cfg(target_arch = "x86_64")]
    type Block<U> = fn(&[&[U]], usize, &mut [MaybeUninit<U>]);

    /// Splits the output into blocks summed in parallel.
    #[cfg(target_arch = "x86_64")]
    fn run<U: Send + Sync>(parts: &[&[U]], dst: &mut [MaybeUninit<U>], block: Block<U>) {
        dst.par_chunks_mut(super::BLOCK * 4)
            .enumerate()
            .for_each(|(i, d)| block(parts, i * super::BLOCK * 4, d));
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use std::arch::x86_64::*;
        use std::mem::MaybeUninit;

        macro_rules! block {
            ($name:ident, $t:ty, $lanes:expr, $load:ident, $add:ident, $stream:ident) => {
                /// One output block: scalar up to a 16-byte boundary, then
                /// whole vectors stored around the caches, then a scalar tail.
                pub fn $name(parts: &[&[$t]], start: usize, dst: &mut [MaybeUninit<$t>]) {
                    let len = dst.len();
                    let ps: Vec<&[$t]> = parts.iter().map(|p| &p[start..start + len]).collect();
                    let scalar = |j: usize, dst: &mut [MaybeUninit<$t>]| {
                        let mut acc = ps[0][j];
                        for p in &ps[1..] {
                            acc += p[j];
                        }
                        dst[j].write(acc);
                    };
                    let base = dst.as_mut_ptr() as *mut $t;
                    let head = base.align_offset(16).min(len);
                    for j in 0..head {
                        scalar(j, dst);
                    }
                    let mut j = head;
                    while j + $lanes <= len {
                        // SAFETY: `j + lanes <= len` bounds every load and
                        // the store; `base + j` is 16-byte aligned (head).
                        unsafe {
                            let mut acc = $load(ps[0].as_ptr().add(j));
                            for p in &ps[1..] {
                                acc = $add(acc, $load(p.as_ptr().add(j)));
                            }
                            $stream(base.add(j), acc);
                        }
                        j += $lanes;
                    }
                    for k in j..len {
                        scalar(k, dst);
                    }
                    // Streaming stores are weakly ordered: make them visible
                    // before the task reports that it is done.
                    // SAFETY: a fence has no preconditions.
                    unsafe { _mm_sfence() };
                }
            };
        }
        block!(block_f32, f32, 4, _mm_loadu_ps, _mm_add_ps, _mm_stream_ps);
        block!(block_f64, f64, 2, _mm_loadu_pd, _mm_add_pd, _mm_stream_pd);
    }
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
    fn streamed_sums_match_chained_adds() {
        // Large enough for the streaming kernels; an odd length and a part
        // starting off a 16-byte boundary exercise the scalar head and tail.
        let n = (STREAM_MIN_BYTES / 4) + 13;
        let a: Vec<f32> = (0..n + 1).map(|i| (i % 977) as f32 * 0.1).collect();
        let b: Vec<f32> = (0..n).map(|i| 1.0 / (1 + i % 331) as f32).collect();
        let c: Vec<f32> = (0..n).map(|i| -((i % 7) as f32) * 3.3).collect();
        let a1 = &a[1..];
        for parts in [vec![a1, &b[..]], vec![a1, &b, &c], vec![a1, &b, &c, a1, &b]] {
            let got = sum_n(&parts).unwrap();
            for i in 0..n {
                let want = parts[1..].iter().fold(parts[0][i], |acc, p| acc + p[i]);
                assert_eq!(got[i].to_bits(), want.to_bits(), "at {i}");
            }
        }
        let x: Vec<f64> = (0..n / 2 + 3).map(|i| (i as f64).sqrt()).collect();
        let y: Vec<f64> = (0..n / 2 + 3).map(|i| 1e-3 * i as f64).collect();
        let got = sum_n(&[&x, &y, &x]).unwrap();
        for i in 0..x.len() {
            assert_eq!(got[i], (x[i] + y[i]) + x[i]);
        }
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
