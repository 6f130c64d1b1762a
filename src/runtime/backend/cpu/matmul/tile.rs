//! The float32 product in register tiles, with AVX-512 or AVX2 + FMA
//! (chosen at run time). The right operand is packed, one column panel and
//! k block at a time, into a zero-padded contiguous buffer; the left one is
//! read in place through row and column strides (so a transposed operand
//! costs no copy), rows past the last full tile packed and zero-padded.
//! A tile keeps `MR` rows × `V` vectors of outputs in registers, each one
//! FMA chain over its k block in order, as the row loop computes it.

use std::arch::x86_64::*;

use rayon::prelude::*;

use super::{rows_per_task, Block, Gemm};
use crate::runtime::backend::MatMulDims;
use crate::runtime::error::{Error, Result};
use crate::runtime::storage::filled;

/// One tile's operands: `out[r·ldo + j] = Σ_p a[r·rs + p·cs] · b[p·ldb + j]`
/// (an FMA chain in p order from zero) for r < MR, j < V·LANES; with
/// `add`, the sum is added to what `out` holds.
#[derive(Clone, Copy)]
struct TileArgs {
    a: *const f32,
    rs: usize,
    cs: usize,
    b: *const f32,
    ldb: usize,
    kc: usize,
    out: *mut f32,
    ldo: usize,
    add: bool,
}

/// One instruction set's register tile.
trait Tile {
    /// Rows of a tile.
    const MR: usize;
    /// Floats per vector register.
    const LANES: usize;
    /// Computes one tile of `V` vectors per row (see [`TileArgs`]).
    ///
    /// # Safety
    /// The CPU has the instruction set; the pointers address every element
    /// the formula names.
    unsafe fn run<const V: usize>(t: TileArgs);
}

macro_rules! tile_kernel {
    ($isa:ident, $kernel:ident, $feat:literal, $mr:expr, $lanes:expr, $zero:ident, $load:ident,
     $splat:ident, $fma:ident, $sum:ident, $store:ident) => {
        struct $isa;

        impl Tile for $isa {
            const MR: usize = $mr;
            const LANES: usize = $lanes;
            unsafe fn run<const V: usize>(t: TileArgs) {
                // SAFETY: forwarded from the caller.
                unsafe { $kernel::<V>(t) }
            }
        }

        #[target_feature(enable = $feat)]
        unsafe fn $kernel<const V: usize>(t: TileArgs) {
            const MR: usize = $mr;
            const L: usize = $lanes;
            let TileArgs {
                a,
                rs,
                cs,
                b,
                ldb,
                kc,
                out,
                ldo,
                add,
            } = t;
            // SAFETY (whole body): the caller guarantees every address below
            // lies in its buffers and that the CPU has the features.
            unsafe {
                let mut acc = [[$zero(); V]; MR];
                for p in 0..kc {
                    let bq = b.add(p * ldb);
                    let mut bv = [$zero(); V];
                    for (v, slot) in bv.iter_mut().enumerate() {
                        *slot = $load(bq.add(v * L));
                    }
                    let ap = a.add(p * cs);
                    for (r, acc_r) in acc.iter_mut().enumerate() {
                        let x = $splat(*ap.add(r * rs));
                        for (o, &y) in acc_r.iter_mut().zip(&bv) {
                            *o = $fma(x, y, *o);
                        }
                    }
                }
                for (r, acc_r) in acc.iter().enumerate() {
                    for (v, &s) in acc_r.iter().enumerate() {
                        let o = out.add(r * ldo + v * L);
                        let s = if add { $sum($load(o), s) } else { s };
                        $store(o, s);
                    }
                }
            }
        }
    };
}

tile_kernel!(
    Avx512,
    tile_avx512,
    "avx512f,fma",
    8,
    16,
    _mm512_setzero_ps,
    _mm512_loadu_ps,
    _mm512_set1_ps,
    _mm512_fmadd_ps,
    _mm512_add_ps,
    _mm512_storeu_ps
);

tile_kernel!(
    Avx2,
    tile_avx2,
    "avx2,fma",
    6,
    8,
    _mm256_setzero_ps,
    _mm256_loadu_ps,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    _mm256_add_ps,
    _mm256_storeu_ps
);

/// Where an operand's elements lie: `[i, j]` at `i·rs + j·cs`.
#[derive(Clone, Copy)]
struct Strides {
    rs: usize,
    cs: usize,
}

/// `d.batch` float32 products by register tiles, or `None` where the CPU
/// has neither AVX-512 nor AVX2 with FMA (the caller's row loop runs).
pub(super) fn gemm(a: &[f32], b: &[f32], d: MatMulDims) -> Result<Option<Vec<f32>>> {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma") {
        product::<Avx512>(a, b, d).map(Some)
    } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        product::<Avx2>(a, b, d).map(Some)
    } else {
        Ok(None)
    }
}

fn product<K: Tile>(a: &[f32], b: &[f32], d: MatMulDims) -> Result<Vec<f32>> {
    let MatMulDims { batch, m, k, n, .. } = d;
    let mut out = filled(batch * m * n, 0f32)?;
    if m * n == 0 {
        return Ok(out);
    }
    let sa = if d.transpose_a {
        Strides { rs: 1, cs: m }
    } else {
        Strides { rs: k, cs: 1 }
    };
    let sb = if d.transpose_b {
        Strides { rs: 1, cs: k }
    } else {
        Strides { rs: n, cs: 1 }
    };
    // every element the strides address lies inside the buffers
    let last = |batch_stride: usize, s: Strides, rows: usize, cols: usize| {
        let used = if batch_stride == 0 { 1 } else { batch };
        (used - 1) * batch_stride + (rows - 1) * s.rs + (cols - 1) * s.cs
    };
    if k > 0
        && (last(d.lhs_batch_stride, sa, m, k) >= a.len()
            || last(d.rhs_batch_stride, sb, k, n) >= b.len())
    {
        return Err(Error::internal("matmul: operand sizes"));
    }
    let blocks = <f32 as Gemm>::k_blocks(k);
    let rows = rows_per_task(m, m * k * n);
    for (bi, c) in out.chunks_mut(m * n).enumerate() {
        let ao = bi * d.lhs_batch_stride;
        let bo = bi * d.rhs_batch_stride;
        c.par_chunks_mut(rows * n).enumerate().for_each(|(ri, cb)| {
            let a = &a[ao + ri * rows * sa.rs..];
            SCRATCH.with(|scratch| {
                let scratch = &mut scratch.borrow_mut();
                panel_rows::<K>(a, sa, &b[bo..], sb, cb, n, &blocks, scratch);
            });
        });
    }
    Ok(out)
}

thread_local! {
    /// Each thread's packing buffers (the right operand's panel, the left
    /// one's tail rows, a partial tile), kept from one product to the next.
    static SCRATCH: std::cell::RefCell<[Vec<f32>; 3]> = const {
        std::cell::RefCell::new([Vec::new(), Vec::new(), Vec::new()])
    };
}

/// The rows of `c` (`n` wide) from the rows of `a` at the same index, every
/// column panel and k block, packing into `scratch` (one thread's).
#[allow(clippy::too_many_arguments)]
fn panel_rows<K: Tile>(
    a: &[f32],
    sa: Strides,
    b: &[f32],
    sb: Strides,
    c: &mut [f32],
    n: usize,
    blocks: &[Block],
    scratch: &mut [Vec<f32>; 3],
) {
    let (mr, lanes) = (K::MR, K::LANES);
    let kmax = blocks.iter().map(|b| b.len()).max().unwrap_or(0);
    let [bp, ap, tmp] = scratch;
    // every element a tile reads is written first (packed, or stored by
    // the tile itself): only growth zero-fills
    for (buf, len) in [
        (&mut *bp, kmax * 2 * lanes),
        (&mut *ap, mr * kmax),
        (&mut *tmp, mr * 2 * lanes),
    ] {
        if buf.len() < len {
            buf.resize(len, 0.0);
        }
    }
    let rows = c.len() / n;
    // the rows past the last full tile, packed once per k block
    let tail = rows - rows % mr;
    for (bn, block) in blocks.iter().enumerate() {
        let kc = block.len();
        if tail < rows {
            pack_rows(a, sa, block, tail..rows, mr, ap);
        }
        let mut j0 = 0;
        while j0 < n {
            let v = if n - j0 <= lanes { 1 } else { 2 };
            let nr = v * lanes;
            let width = nr.min(n - j0);
            // the panel: read in place where its rows are contiguous and
            // full, else packed (rows of `block`, zero-padded to nr)
            let (b_ptr, ldb) = if sb.cs == 1 && width == nr {
                (b[block.start * sb.rs + j0..].as_ptr(), sb.rs)
            } else {
                pack_panel(b, sb, block, j0, width, nr, bp);
                (bp.as_ptr(), nr)
            };
            let mut i0 = 0;
            while i0 < rows {
                let h = mr.min(rows - i0);
                let (a_ptr, rs, cs) = if h == mr {
                    // SAFETY: row i0 + r, column block.start + p is in `a`
                    // for r < mr, p < kc (the bounds `product` checked).
                    let ptr = unsafe { a.as_ptr().add(i0 * sa.rs + block.start * sa.cs) };
                    (ptr, sa.rs, sa.cs)
                } else {
                    // the tail rows, packed above
                    (ap.as_ptr(), kc, 1)
                };
                let full = h == mr && width == nr;
                let (out, ldo) = if full {
                    (c[i0 * n + j0..].as_mut_ptr(), n)
                } else {
                    (tmp.as_mut_ptr(), nr)
                };
                let t = TileArgs {
                    a: a_ptr,
                    rs,
                    cs,
                    b: b_ptr,
                    ldb,
                    kc,
                    out,
                    ldo,
                    add: full && bn > 0,
                };
                // SAFETY: `gemm` chose K for this CPU's features; the tile
                // reads mr rows × kc of `a_ptr` (in bounds above), kc rows
                // of nr at `b_ptr` (in `b`, as `product` checked, or `bp`)
                // and writes mr × nr at `out` with stride ldo (rows
                // i0.. and columns j0..j0+nr of `c` when full, else `tmp`).
                unsafe {
                    if v == 1 {
                        K::run::<1>(t);
                    } else {
                        K::run::<2>(t);
                    }
                }
                if !full {
                    for r in 0..h {
                        let row = &mut c[(i0 + r) * n + j0..][..width];
                        for (o, &t) in row.iter_mut().zip(&tmp[r * nr..][..width]) {
                            *o = if bn == 0 { t } else { *o + t };
                        }
                    }
                }
                i0 += h;
            }
            j0 += width;
        }
    }
}

/// Rows `rows` of `a` (fewer than `mr`), columns `block`, into `ap`: `mr`
/// rows of `block.len()`, zeros past the last row.
fn pack_rows(a: &[f32], sa: Strides, block: &Block, rows: Block, mr: usize, ap: &mut [f32]) {
    let kc = block.len();
    let ap = &mut ap[..mr * kc];
    let h = rows.len();
    ap[h * kc..].fill(0.0);
    for (dst, i) in ap.chunks_exact_mut(kc).zip(rows) {
        if sa.cs == 1 {
            dst.copy_from_slice(&a[i * sa.rs + block.start..][..kc]);
        } else {
            for (d, p) in dst.iter_mut().zip(block.clone()) {
                *d = a[i * sa.rs + p * sa.cs];
            }
        }
    }
}

/// Rows `block` of `b`'s columns `j0..j0 + width` into `bp`, `nr` wide
/// with zeros past `width`.
fn pack_panel(
    b: &[f32],
    sb: Strides,
    block: &Block,
    j0: usize,
    width: usize,
    nr: usize,
    bp: &mut [f32],
) {
    let kc = block.len();
    let bp = &mut bp[..kc * nr];
    if sb.cs == 1 {
        for (dst, p) in bp.chunks_exact_mut(nr).zip(block.clone()) {
            dst[..width].copy_from_slice(&b[p * sb.rs + j0..][..width]);
            dst[width..].fill(0.0);
        }
    } else {
        // transposed: each column is contiguous in `b`
        if width < nr {
            bp.fill(0.0);
        }
        for j in 0..width {
            let col = &b[(j0 + j) * sb.cs + block.start * sb.rs..][..kc];
            for (pi, &x) in col.iter().enumerate() {
                bp[pi * nr + j] = x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each output as one FMA chain per k block, the blocks' sums added:
    /// the order the tiles must reproduce bit for bit.
    fn reference(a: &[f32], b: &[f32], d: MatMulDims) -> Vec<f32> {
        let MatMulDims { batch, m, k, n, .. } = d;
        let mut out = vec![0f32; batch * m * n];
        for bi in 0..batch {
            let (ao, bo) = (bi * d.lhs_batch_stride, bi * d.rhs_batch_stride);
            for i in 0..m {
                for j in 0..n {
                    let mut total = 0f32;
                    for (bn, block) in <f32 as Gemm>::k_blocks(k).into_iter().enumerate() {
                        let mut acc = 0f32;
                        for p in block {
                            let x = if d.transpose_a {
                                a[ao + p * m + i]
                            } else {
                                a[ao + i * k + p]
                            };
                            let y = if d.transpose_b {
                                b[bo + j * k + p]
                            } else {
                                b[bo + p * n + j]
                            };
                            acc = x.mul_add(y, acc);
                        }
                        total = if bn == 0 { acc } else { total + acc };
                    }
                    out[(bi * m + i) * n + j] = total;
                }
            }
        }
        out
    }

    fn noise(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (s >> 40) as f32 / (1u64 << 24) as f32;
                (u - 0.5) * (1.0 + (s >> 60) as f32)
            })
            .collect()
    }

    #[test]
    fn tiles_sum_in_the_row_loops_order() {
        let shapes = [
            (1, 1, 1),
            (3, 5, 7),
            (8, 16, 16),
            (9, 33, 17),
            (16, 64, 10),
            (17, 400, 40),
            (32, 784, 128),
            (7, 1000, 33),
            (40, 3, 70),
            (200, 12, 31),
        ];
        let mut seed = 1;
        for &(m, k, n) in &shapes {
            for batch in [1, 3] {
                for ta in [false, true] {
                    for tb in [false, true] {
                        for (sa, sb) in [(m * k, k * n), (0, k * n), (m * k, 0)] {
                            let d = MatMulDims {
                                batch,
                                m,
                                k,
                                n,
                                lhs_batch_stride: if batch == 1 { m * k } else { sa },
                                rhs_batch_stride: if batch == 1 { k * n } else { sb },
                                transpose_a: ta,
                                transpose_b: tb,
                            };
                            let used =
                                |s: usize, len: usize| if s == 0 { len } else { batch * len };
                            seed += 1;
                            let a = noise(used(d.lhs_batch_stride, m * k), seed);
                            let b = noise(used(d.rhs_batch_stride, k * n), seed + 1000);
                            let want: Vec<u32> =
                                reference(&a, &b, d).iter().map(|v| v.to_bits()).collect();
                            let mut kernels = Vec::new();
                            if is_x86_feature_detected!("avx512f")
                                && is_x86_feature_detected!("fma")
                            {
                                kernels.push(("avx512", product::<Avx512>(&a, &b, d).unwrap()));
                            }
                            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                                kernels.push(("avx2", product::<Avx2>(&a, &b, d).unwrap()));
                            }
                            for (isa, got) in kernels {
                                let got: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
                                assert_eq!(got, want, "{isa} {d:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}
