//! The broadcasting element-wise engine: maps one or two (or three) inputs
//! into a new buffer. Equal shapes and scalar operands take tight loops that
//! LLVM vectorises; other broadcasts walk rows of the last dimension. Work of
//! at least [`PAR_MIN`] elements is split across all cores with rayon; smaller
//! work stays on the calling thread.

use rayon::prelude::*;

use crate::runtime::error::Result;
use crate::runtime::storage::try_vec;

/// Element count from which kernels run in parallel.
pub const PAR_MIN: usize = 256 * 1024;
/// Smallest piece of work one rayon task gets.
const PAR_CHUNK: usize = 8 * 1024;

/// `f(x)` over every element.
pub fn map<A: Copy + Sync, O: Send + 'static>(
    a: &[A],
    f: impl Fn(A) -> O + Sync + Send,
) -> Result<Vec<O>> {
    let mut out = try_vec(a.len())?;
    // Through `&mut` slices (not `extend`'s raw pointer writes): LLVM then
    // knows the output aliases nothing `f` reads, and vectorises.
    fill(&mut out.spare_capacity_mut()[..a.len()], |off, dst| {
        for (d, &x) in dst.iter_mut().zip(&a[off..]) {
            d.write(f(x));
        }
    });
    // SAFETY: `fill` wrote all `a.len()` slots; `try_vec` reserved them.
    unsafe { out.set_len(a.len()) };
    Ok(out)
}

/// Runs `body(offset, piece)` over `dst` cut into pieces: one piece on the
/// calling thread below [`PAR_MIN`] elements, pieces of [`PAR_CHUNK`]
/// across the cores from there (each piece a tight loop LLVM vectorises,
/// where an element-by-element parallel iterator does not).
fn fill<O: Send>(
    dst: &mut [std::mem::MaybeUninit<O>],
    body: impl Fn(usize, &mut [std::mem::MaybeUninit<O>]) + Sync + Send,
) {
    if dst.len() >= PAR_MIN {
        dst.par_chunks_mut(PAR_CHUNK)
            .enumerate()
            .for_each(|(i, piece)| wide(|| body(i * PAR_CHUNK, piece)));
    } else {
        wide(|| body(0, dst));
    }
}

/// Runs `f` compiled for AVX2 where the CPU has it: the loops it inlines
/// vectorise eight lanes wide instead of the baseline's four. The same IEEE
/// operations on each element (no contraction into FMAs: AVX2 only), so
/// the same bits.
#[inline(always)]
pub fn wide<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { wide_avx2(f) };
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn wide_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f(x, y)` for every `x` of `a` and one `y`. The scalar is a by-value
/// argument of a small loop (not a capture read through a pointer), so LLVM
/// keeps it in a register and vectorises.
fn with_scalar<A, B, O>(a: &[A], y: B, f: &(impl Fn(A, B) -> O + Sync + Send)) -> Result<Vec<O>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    O: Send + 'static,
{
    let mut out = try_vec(a.len())?;
    fill(&mut out.spare_capacity_mut()[..a.len()], |off, dst| {
        fill_with_scalar(dst, &a[off..], y, f)
    });
    // SAFETY: `fill` wrote all `a.len()` slots; `try_vec` reserved them.
    unsafe { out.set_len(a.len()) };
    Ok(out)
}

#[inline(always)]
fn fill_with_scalar<A: Copy, B: Copy, O>(
    dst: &mut [std::mem::MaybeUninit<O>],
    a: &[A],
    y: B,
    f: &impl Fn(A, B) -> O,
) {
    for (d, &x) in dst.iter_mut().zip(a) {
        d.write(f(x, y));
    }
}

/// Broadcast strides of `shape` against `out` (0 along broadcast dims).
fn bstrides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let mut s = vec![0; out.len()];
    let off = out.len() - shape.len();
    let mut acc = 1;
    for i in (0..shape.len()).rev() {
        s[i + off] = if shape[i] == 1 { 0 } else { acc };
        acc *= shape[i];
    }
    s
}

/// `f(a, b)` with numpy broadcasting of `a` (shape `ash`) and `b` (`bsh`) to `out`.
pub fn zip<A, B, O>(
    a: &[A],
    ash: &[usize],
    b: &[B],
    bsh: &[usize],
    out: &[usize],
    f: impl Fn(A, B) -> O + Sync + Send,
) -> Result<Vec<O>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    O: Send + Copy + Default + 'static,
{
    let n: usize = out.iter().product();
    if a.len() == n && b.len() == n {
        let mut v = try_vec(n)?;
        fill(&mut v.spare_capacity_mut()[..n], |off, dst| {
            for ((d, &x), &y) in dst.iter_mut().zip(&a[off..]).zip(&b[off..]) {
                d.write(f(x, y));
            }
        });
        // SAFETY: `fill` wrote all `n` slots; `try_vec` reserved them.
        unsafe { v.set_len(n) };
        return Ok(v);
    }
    if b.len() == 1 && a.len() == n {
        return with_scalar(a, b[0], &|x, y| f(x, y));
    }
    if a.len() == 1 && b.len() == n {
        return with_scalar(b, a[0], &|y, x| f(x, y));
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let sa = bstrides(ash, out);
    let sb = bstrides(bsh, out);
    let rank = out.len();
    let inner = out[rank - 1];
    let (ia, ib) = (sa[rank - 1], sb[rank - 1]);
    // offsets of row r in a and b
    let row_offsets = |mut r: usize| {
        let (mut oa, mut ob) = (0, 0);
        for d in (0..rank - 1).rev() {
            let i = r % out[d];
            r /= out[d];
            oa += i * sa[d];
            ob += i * sb[d];
        }
        (oa, ob)
    };
    let fill_row = |r: usize, dst: &mut [O]| {
        let (oa, ob) = row_offsets(r);
        match (ia, ib) {
            (1, 1) => {
                for ((d, &x), &y) in dst
                    .iter_mut()
                    .zip(&a[oa..oa + inner])
                    .zip(&b[ob..ob + inner])
                {
                    *d = f(x, y);
                }
            }
            (1, 0) => {
                let y = b[ob];
                for (d, &x) in dst.iter_mut().zip(&a[oa..oa + inner]) {
                    *d = f(x, y);
                }
            }
            (0, 1) => {
                let x = a[oa];
                for (d, &y) in dst.iter_mut().zip(&b[ob..ob + inner]) {
                    *d = f(x, y);
                }
            }
            _ => {
                let v = f(a[oa], b[ob]);
                for d in dst.iter_mut() {
                    *d = v;
                }
            }
        }
    };
    let mut v: Vec<O> = try_vec(n)?;
    v.resize(n, O::default());
    if n >= PAR_MIN {
        v.par_chunks_mut(inner)
            .with_min_len((PAR_CHUNK / inner).max(1))
            .enumerate()
            .for_each(|(r, dst)| wide(|| fill_row(r, dst)));
    } else {
        wide(|| {
            for (r, dst) in v.chunks_mut(inner).enumerate() {
                fill_row(r, dst);
            }
        });
    }
    Ok(v)
}

/// Gathers `x` broadcast from `shape` to `out` as a contiguous buffer.
pub fn broadcast_to<T: Copy + Sync + Send + Default + 'static>(
    x: &[T],
    shape: &[usize],
    out: &[usize],
) -> Result<Vec<T>> {
    let n: usize = out.iter().product();
    if x.len() == n {
        let mut v = try_vec(n)?;
        v.extend_from_slice(x);
        return Ok(v);
    }
    let unit: [u8; 1] = [0];
    zip(x, shape, &unit, &[], out, |a, _| a)
}
