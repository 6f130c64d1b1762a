//! Float convolutions as matrix products, the way TensorFlow's CPU kernels
//! compute them without oneDNN (Eigen's spatial convolution, and the
//! `Conv2DCustom*` backprop kernels): the windows of a block of output
//! positions are copied into the rows of a patch matrix (im2col; zeros where
//! a window leaves the input), and one matrix product with the filter does
//! the arithmetic. The product is the backend's (`backend::cpu::matmul`:
//! register tiles, threads, TensorFlow's summation order), so the inner
//! loops run at matrix-product speed instead of one multiply-add at a time.
//!
//! - forward: `out[m, :] = patches[m, :] · filter` (`filter` as `[k, out]`);
//! - filter gradient: `dfilter = patchesᵀ · grad`, a block's product added
//!   to the previous blocks' (TensorFlow accumulates its image shards so);
//! - input gradient: `cols = grad · filterᵀ`, then each column block added
//!   back into the window it came from (col2im), in output order.
//!
//! Blocks are whole images (at least one), about `BLOCK` patch elements, so
//! memory stays bounded whatever the image size.

use super::conv::{at, slice_of, Geometry, Window};
use crate::runtime::backend::cpu::matmul::matmul;
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::backend::MatMulDims;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::storage::{filled, HostData};

/// Patch-matrix elements of one block (16 MiB of float32).
const BLOCK: usize = 1 << 22;

/// Whether `T`'s convolutions run as matrix products (the float dtypes the
/// backend's product serves natively).
pub(super) fn applies<T: Num>() -> bool {
    matches!(T::DTYPE, DType::Float32 | DType::Float64)
}

/// The patch layout of one convolution.
struct Patches<'a> {
    g: &'a Geometry,
    w: &'a Window,
    cin: usize,
}

impl Patches<'_> {
    /// Columns of the patch matrix: window positions × input channels.
    fn k(&self) -> usize {
        self.w.size[0] * self.w.size[1] * self.cin
    }

    /// Output positions of one image.
    fn per_image(&self) -> usize {
        self.g.out_hw[0] * self.g.out_hw[1]
    }

    /// Images per block.
    fn images_per_block(&self) -> usize {
        (BLOCK / (self.per_image() * self.k()).max(1)).clamp(1, self.g.n.max(1))
    }

    /// The blocks of whole images, each with its patch rows (none empty).
    fn blocks(&self) -> impl Iterator<Item = (std::ops::Range<usize>, usize)> + '_ {
        let (n, step, per) = (self.g.n, self.images_per_block(), self.per_image());
        (0..n)
            .step_by(step)
            .map(move |i0| i0..(i0 + step).min(n))
            .map(move |imgs| {
                let rows = imgs.len() * per;
                (imgs, rows)
            })
            .filter(|&(_, rows)| rows > 0)
    }

    /// Calls `visit(row, tap, input offset)` for every window position of
    /// every output row in images `imgs`, `None` where it lies outside.
    fn each_tap(
        &self,
        imgs: std::ops::Range<usize>,
        mut visit: impl FnMut(usize, usize, Option<usize>),
    ) {
        let (g, w) = (self.g, self.w);
        let [ih, iw] = g.in_hw;
        let [oh, ow] = g.out_hw;
        let mut row = 0;
        for n in imgs {
            for y in 0..oh {
                for xo in 0..ow {
                    for ky in 0..w.size[0] {
                        let py = at(g, w, 0, y, ky);
                        for kx in 0..w.size[1] {
                            let tap = ky * w.size[1] + kx;
                            let src = match (py, at(g, w, 1, xo, kx)) {
                                (Some(py), Some(px)) => Some(((n * ih + py) * iw + px) * self.cin),
                                _ => None,
                            };
                            visit(row, tap, src);
                        }
                    }
                    row += 1;
                }
            }
        }
    }

    /// The patch matrix of images `imgs` (`rows × k`).
    fn fill<T: Num>(&self, x: &[T], imgs: std::ops::Range<usize>) -> Result<Vec<T>> {
        let (k, cin) = (self.k(), self.cin);
        let mut p = filled(imgs.len() * self.per_image() * k, T::zero())?;
        self.each_tap(imgs, |row, tap, src| {
            if let Some(s) = src {
                let d = row * k + tap * cin;
                p[d..d + cin].copy_from_slice(&x[s..s + cin]);
            }
        });
        Ok(p)
    }
}

fn dims(m: usize, k: usize, n: usize, transpose_a: bool, transpose_b: bool) -> MatMulDims {
    MatMulDims {
        batch: 1,
        m,
        k,
        n,
        lhs_batch_stride: 0,
        rhs_batch_stride: 0,
        transpose_a,
        transpose_b,
    }
}

fn product<T: Num>(a: Vec<T>, b: &HostData, d: MatMulDims) -> Result<Vec<T>> {
    let mut out = matmul(&T::wrap(a), b, d)?;
    T::vec_mut(&mut out)
        .map(std::mem::take)
        .ok_or_else(|| Error::internal("conv: product of another dtype"))
}

/// `Conv2D` of `x` (NHWC) with `f` (`[h, w, cin, cout]`).
pub(super) fn forward<T: Num>(
    x: &[T],
    f: &HostData,
    g: &Geometry,
    w: &Window,
    (cin, cout): (usize, usize),
) -> Result<HostData> {
    let p = Patches { g, w, cin };
    let (k, per) = (p.k(), p.per_image());
    let mut out = filled(g.n * per * cout, T::zero())?;
    for (imgs, rows) in p.blocks() {
        let i0 = imgs.start;
        let y = product(p.fill(x, imgs)?, f, dims(rows, k, cout, false, false))?;
        out[i0 * per * cout..][..rows * cout].copy_from_slice(&y);
    }
    Ok(T::wrap(out))
}

/// `Conv2DBackpropFilter`: the filter's gradient from `x` and the output's
/// gradient `gr`.
pub(super) fn backprop_filter<T: Num>(
    x: &[T],
    gr: &HostData,
    g: &Geometry,
    w: &Window,
    (cin, cout): (usize, usize),
) -> Result<HostData> {
    let gr = slice_of::<T>(gr)?;
    let p = Patches { g, w, cin };
    let (k, per) = (p.k(), p.per_image());
    let mut out = filled(k * cout, T::zero())?;
    let mut first = true;
    for (imgs, rows) in p.blocks() {
        let i0 = imgs.start;
        let grad = T::wrap(gr[i0 * per * cout..][..rows * cout].to_vec());
        let d = product(p.fill(x, imgs)?, &grad, dims(k, rows, cout, true, false))?;
        if first {
            out = d;
            first = false;
        } else {
            for (o, v) in out.iter_mut().zip(d) {
                *o = o.add(v);
            }
        }
    }
    Ok(T::wrap(out))
}

/// `Conv2DBackpropInput`: the input's gradient (shaped by `g`) from the
/// output's gradient `gr` and the filter `f`.
pub(super) fn backprop_input<T: Num>(
    gr: &[T],
    f: &HostData,
    g: &Geometry,
    w: &Window,
    (cin, cout): (usize, usize),
) -> Result<HostData> {
    let p = Patches { g, w, cin };
    let (k, per) = (p.k(), p.per_image());
    let [ih, iw] = g.in_hw;
    let mut out = filled(g.n * ih * iw * cin, T::zero())?;
    for (imgs, rows) in p.blocks() {
        let i0 = imgs.start;
        let grad = gr[i0 * per * cout..][..rows * cout].to_vec();
        let cols = product(grad, f, dims(rows, cout, k, false, true))?;
        p.each_tap(imgs, |row, tap, dst| {
            if let Some(d) = dst {
                let s = row * k + tap * cin;
                for (o, &v) in out[d..d + cin].iter_mut().zip(&cols[s..s + cin]) {
                    *o = o.add(v);
                }
            }
        });
    }
    Ok(T::wrap(out))
}
