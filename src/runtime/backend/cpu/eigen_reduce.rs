//! TensorFlow's CPU reductions for float `Sum`, `Mean` and `Prod`, in the
//! exact order TensorFlow adds (or multiplies), so results are bit-identical;
//! also the integer `Mean`, which TensorFlow sums in 64 bits. numpy's
//! reductions (pairwise summation) stay in `reduce.rs`; order-free
//! reductions (max, min, integer sums) too.
//!
//! TensorFlow (`reduction_ops_common.h`) first merges adjacent axes that are
//! both reduced or both kept, skipping size-1 axes, into one of a few
//! canonical forms, and hands each to Eigen's tensor reduction (built with
//! AVX: packets of 8 floats, 4 doubles, 8 halves):
//!
//! - all reduced, `[n]`: Eigen's full reducer. Its thread count comes from
//!   Eigen's cost model (`TensorCostModel::numThreads`) and the intra-op
//!   pool's size; with several threads, equal shards from the start, the
//!   leftover tail first, then the shards in order.
//! - `[rows, n]` reducing the last axis (and every other form after
//!   TensorFlow's transpose of the reduced axes to the end): each row by
//!   Eigen's inner-most reducer.
//! - `[a, n, c]` reducing the middle axis (`[n, c]` reducing the first axis
//!   is `a == 1`): outputs in aligned groups of a packet that lie in one row
//!   of `c` add the `n` rows as packets (four interleaved accumulators when
//!   `n >= 16`); the other outputs add their `n` values one by one.
//! - `[a, b, c]` reducing the first and last axes: one by one, the last
//!   axis outermost.
//!
//! The inner-most reducer of a sum: above `packet * 1024` values (200 for half)
//! split at the packet-aligned middle (of the absolute index) and reduce
//! each half; below, four packet accumulators over blocks of four packets,
//! then single packets, then a scalar over the remainder, then
//! `scalar + predux(packet)`. `predux` of 8 lanes adds lanes `i` and `i + 4`,
//! then `(l0 + l2) + (l1 + l3)`.

use rayon::prelude::*;

use super::num::Num;
use super::reduce::move_reduced_last;
use crate::runtime::error::Result;
use crate::runtime::f16::F16;
use crate::runtime::op::ReduceOp;
use crate::runtime::storage::{try_vec, HostData};

/// Sizes above which the work is split across rayon's threads (the
/// results do not depend on the split).
const PAR_ELEMS: usize = 1 << 16;

/// The fold of a reduction: its identity and its binary op.
trait Fold: Copy + Send + Sync {
    /// Eigen splits the inner-most reduction into a tree (reducers that
    /// are not exactly associative: sums of floats, not products).
    const TREE: bool;
    fn init<T: Num>() -> T;
    fn op<T: Num>(a: T, b: T) -> T;
}

#[derive(Clone, Copy)]
struct Add;
#[derive(Clone, Copy)]
struct Mul;

impl Fold for Add {
    const TREE: bool = true;
    #[inline(always)]
    fn init<T: Num>() -> T {
        T::zero()
    }
    #[inline(always)]
    fn op<T: Num>(a: T, b: T) -> T {
        a.add(b)
    }
}

impl Fold for Mul {
    const TREE: bool = false;
    #[inline(always)]
    fn init<T: Num>() -> T {
        T::one()
    }
    #[inline(always)]
    fn op<T: Num>(a: T, b: T) -> T {
        a.mul(b)
    }
}

/// An element type Eigen vectorises: its packet's horizontal reduction.
trait Lane: Num {
    /// Eigen's `LeafSize`: the inner-most reducer splits above
    /// `packet * LEAF` values.
    const LEAF: usize;
    /// Eigen's `predux`/`predux_mul` of one packet.
    fn predux<F: Fold, const P: usize>(p: [Self; P]) -> Self {
        predux_lanes::<Self, F, P>(p)
    }
}

impl Lane for f32 {
    const LEAF: usize = 1024;
}

impl Lane for f64 {
    const LEAF: usize = 1024;
}

impl Lane for F16 {
    const LEAF: usize = 200;
    /// Half packets reduce horizontally in float, rounded once.
    fn predux<F: Fold, const P: usize>(p: [Self; P]) -> Self {
        F16::from_f32(predux_lanes::<f32, F, P>(p.map(|h| h.to_f32())))
    }
}

/// AVX's horizontal reduction: the two 128-bit halves lane by lane, then
/// SSE's `(l0 + l2) + (l1 + l3)` (doubles: `l0 + l1`).
#[inline(always)]
fn predux_lanes<T: Num, F: Fold, const P: usize>(p: [T; P]) -> T {
    match P {
        8 => {
            let b = [
                F::op(p[0], p[4]),
                F::op(p[1], p[5]),
                F::op(p[2], p[6]),
                F::op(p[3], p[7]),
            ];
            F::op(F::op(b[0], b[2]), F::op(b[1], b[3]))
        }
        4 => F::op(F::op(p[0], p[2]), F::op(p[1], p[3])),
        _ => p.iter().fold(F::init(), |a, &b| F::op(a, b)),
    }
}

#[inline(always)]
fn padd<T: Num, F: Fold, const P: usize>(acc: &mut [T; P], x: &[T; P]) {
    for i in 0..P {
        acc[i] = F::op(acc[i], x[i]);
    }
}

/// Eigen's inner-most reducer below the leaf size (`InnerMostDimReducer`
/// without the tree).
fn leaf<T: Lane, F: Fold, const P: usize>(s: &[T]) -> T {
    let n = s.len();
    let (packets, rest) = s.as_chunks::<P>();
    let mut p0 = [F::init::<T>(); P];
    let mut next = 0;
    if n >= 4 * P {
        let quads = packets.len() / 4;
        let mut p1 = [F::init::<T>(); P];
        let mut p2 = [F::init::<T>(); P];
        let mut p3 = [F::init::<T>(); P];
        for q in packets[..quads * 4].chunks_exact(4) {
            padd::<T, F, P>(&mut p0, &q[0]);
            padd::<T, F, P>(&mut p1, &q[1]);
            padd::<T, F, P>(&mut p2, &q[2]);
            padd::<T, F, P>(&mut p3, &q[3]);
        }
        padd::<T, F, P>(&mut p0, &p1);
        padd::<T, F, P>(&mut p0, &p2);
        padd::<T, F, P>(&mut p0, &p3);
        next = quads * 4;
    }
    for p in &packets[next..] {
        padd::<T, F, P>(&mut p0, p);
    }
    let mut acc = F::init::<T>();
    for &e in rest {
        acc = F::op(acc, e);
    }
    F::op(acc, T::predux::<F, P>(p0))
}

/// Eigen's inner-most reducer of `x[first..first + n]`, with its tree for
/// sums: above the leaf size, split at the packet-aligned middle of the
/// absolute indices (so the split depends on `first`).
fn inner<T: Lane, F: Fold, const P: usize>(x: &[T], first: usize, n: usize) -> T {
    if F::TREE && n > P * T::LEAF {
        let split = P * (first + n.div_ceil(2)).div_ceil(P);
        let left = (split - first).min(n);
        let (l, r) = if n >= PAR_ELEMS && left < n {
            rayon::join(
                || inner::<T, F, P>(x, first, left),
                || inner::<T, F, P>(x, split, n - left),
            )
        } else {
            let l = inner::<T, F, P>(x, first, left);
            let r = (left < n).then(|| inner::<T, F, P>(x, split, n - left));
            (l, r.unwrap_or_else(F::init))
        };
        let acc = F::op(F::init(), l);
        if left < n {
            F::op(acc, r)
        } else {
            acc
        }
    } else {
        leaf::<T, F, P>(&x[first..first + n])
    }
}

/// The size of TensorFlow's intra-op thread pool by default: the CPUs this
/// process may run on.
fn pool_threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        // SAFETY: a zeroed cpu_set_t is a valid empty set, and
        // sched_getaffinity writes at most its size.
        let n = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                libc::CPU_COUNT(&set) as usize
            } else {
                0
            }
        };
        if n > 0 {
            n
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    })
}

/// Eigen's full reducer on the thread-pool device: the number of shards is
/// the cost model's thread count (a load of `size_of::<T>()` bytes, the
/// reduced expression's `ops` cycles and a reducer costing 10 cycles, each
/// per packet, per value).
fn full<T: Lane, F: Fold, const P: usize>(x: &[T], ops: f64) -> T {
    let n = x.len();
    let cost = std::mem::size_of::<T>() as f64 * 11.0 / 64.0 + (10.0 + ops) / P as f64;
    let t = ((n as f64 * cost - 100_000.0) / 100_000.0 + 0.9).min(i32::MAX as f64);
    let threads = (t as i64).max(1).min(pool_threads() as i64) as usize;
    if threads == 1 {
        return inner::<T, F, P>(x, 0, n);
    }
    let block = n / threads;
    let blocks = n / block;
    let shards: Vec<T> = (0..blocks)
        .into_par_iter()
        .map(|i| inner::<T, F, P>(x, i * block, block))
        .collect();
    let mut acc = if blocks * block < n {
        inner::<T, F, P>(x, blocks * block, n - blocks * block)
    } else {
        F::init()
    };
    for s in shards {
        acc = F::op(acc, s);
    }
    acc
}

/// Each of `rows` rows of `k` values by the inner-most reducer.
fn rows<T: Lane, F: Fold, const P: usize>(x: &[T], rows: usize, k: usize) -> Result<Vec<T>> {
    let mut out = try_vec(rows)?;
    if x.len() >= PAR_ELEMS && rows > 1 {
        out.par_extend(
            (0..rows)
                .into_par_iter()
                .map(|r| inner::<T, F, P>(x, r * k, k)),
        );
    } else {
        out.extend((0..rows).map(|r| inner::<T, F, P>(x, r * k, k)));
    }
    Ok(out)
}

/// Eigen's inner-most sum of an element-wise function of `x[first..first +
/// n]` (a fused `f(x).sum(axis)` expression), where `f` depends on the path
/// Eigen evaluates it on: `packet` for the values its reducer reads in
/// packets, `scalar` for each leaf's remainder.
fn sum_mapped<T: Lane, const P: usize>(
    x: &[T],
    first: usize,
    n: usize,
    packet: &dyn Fn(T) -> T,
    scalar: &dyn Fn(T) -> T,
) -> T {
    if n > P * T::LEAF {
        let split = P * (first + n.div_ceil(2)).div_ceil(P);
        let left = (split - first).min(n);
        let acc = Add::op(
            Add::init(),
            sum_mapped::<T, P>(x, first, left, packet, scalar),
        );
        if left < n {
            Add::op(acc, sum_mapped::<T, P>(x, split, n - left, packet, scalar))
        } else {
            acc
        }
    } else {
        let full = n / P * P;
        let mapped: Vec<T> = x[first..first + n]
            .iter()
            .enumerate()
            .map(|(i, &v)| if i < full { packet(v) } else { scalar(v) })
            .collect();
        leaf::<T, Add, P>(&mapped)
    }
}

/// [`sum_mapped`] of float32 values (8-float packets).
pub fn sum_mapped_f32(
    x: &[f32],
    first: usize,
    n: usize,
    packet: &dyn Fn(f32) -> f32,
    scalar: &dyn Fn(f32) -> f32,
) -> f32 {
    sum_mapped::<f32, 8>(x, first, n, packet, scalar)
}

/// [`sum_mapped`] of float64 values (4-double packets).
pub fn sum_mapped_f64(
    x: &[f64],
    first: usize,
    n: usize,
    packet: &dyn Fn(f64) -> f64,
    scalar: &dyn Fn(f64) -> f64,
) -> f64 {
    sum_mapped::<f64, 4>(x, first, n, packet, scalar)
}

/// One run of output columns `[c0, c1)` of slab `a` of `[a, n, c]`,
/// reducing the middle axis into `acc0` (which holds the identity):
/// packet-style (four interleaved accumulators when `n >= 16`) or one by
/// one.
fn middle_run<T: Num, F: Fold>(
    x: &[T],
    (n, c): (usize, usize),
    a: usize,
    (c0, packet): (usize, bool),
    acc0: &mut [T],
) {
    let w = acc0.len();
    let row = |j: usize| &x[(a * n + j) * c + c0..(a * n + j) * c + c0 + w];
    let fold_into = |acc: &mut [T], r: &[T]| {
        for (s, &v) in acc.iter_mut().zip(r) {
            *s = F::op(*s, v);
        }
    };
    if packet && n >= 16 {
        let u = n / 4 * 4;
        let mut extra = vec![F::init::<T>(); 3 * w];
        let (acc1, rest) = extra.split_at_mut(w);
        let (acc2, acc3) = rest.split_at_mut(w);
        for j in (0..u).step_by(4) {
            fold_into(acc0, row(j));
            fold_into(acc1, row(j + 1));
            fold_into(acc2, row(j + 2));
            fold_into(acc3, row(j + 3));
        }
        fold_into(acc0, acc1);
        fold_into(acc0, acc2);
        fold_into(acc0, acc3);
        for j in u..n {
            fold_into(acc0, row(j));
        }
    } else {
        for j in 0..n {
            fold_into(acc0, row(j));
        }
    }
}

/// A run of output columns: its slab, first column and whether it takes
/// the packet path.
type Run = (usize, usize, bool);

/// `[a, n, c]` reducing the middle axis (`a == 1`: `[n, c]` reducing the
/// first). Eigen evaluates the output in aligned packets of `P`; a packet
/// inside one row of `c` takes the packet path, any other output the
/// scalar one.
fn middle<T: Num, F: Fold, const P: usize>(
    x: &[T],
    a: usize,
    n: usize,
    c: usize,
) -> Result<Vec<T>> {
    let mut out = try_vec(a * c)?;
    out.resize(a * c, F::init::<T>());
    let parallel = x.len() >= PAR_ELEMS;
    // long packet runs split so big inputs spread over threads
    let step = if parallel {
        ((c / (rayon::current_num_threads() * 4)).max(64 * P)) / P * P
    } else {
        usize::MAX
    };
    let mut pieces: Vec<(Run, &mut [T])> = Vec::new();
    let mut rest: &mut [T] = &mut out;
    for s in 0..a {
        // per slab: the columns before the first aligned group, the whole
        // groups, the rest
        let off = (s * c) % P;
        let g0 = ((P - off) % P).min(c);
        let g1 = g0 + (c - g0) / P * P;
        for (lo, hi, packet) in [(0, g0, false), (g0, g1, true), (g1, c, false)] {
            let mut lo = lo;
            while lo < hi {
                let h = if packet {
                    hi.min(lo.saturating_add(step))
                } else {
                    hi
                };
                let (piece, tail) = std::mem::take(&mut rest).split_at_mut(h - lo);
                rest = tail;
                if parallel {
                    pieces.push(((s, lo, packet), piece));
                } else {
                    middle_run::<T, F>(x, (n, c), s, (lo, packet), piece);
                }
                lo = h;
            }
        }
    }
    if parallel {
        pieces.into_par_iter().for_each(|((s, lo, packet), piece)| {
            middle_run::<T, F>(x, (n, c), s, (lo, packet), piece)
        });
    }
    Ok(out)
}

/// `[a, b, c]` reducing the first and last axes: Eigen's generic reducer,
/// one value at a time, the last axis outermost.
fn outer_two<T: Num, F: Fold>(x: &[T], a: usize, b: usize, c: usize) -> Vec<T> {
    let one = |j: usize| {
        let mut acc = F::init::<T>();
        for k in 0..c {
            for i in 0..a {
                acc = F::op(acc, x[(i * b + j) * c + k]);
            }
        }
        acc
    };
    if x.len() >= PAR_ELEMS && b > 1 {
        (0..b).into_par_iter().map(one).collect()
    } else {
        (0..b).map(one).collect()
    }
}

/// TensorFlow's `ReductionHelper::Simplify`: whether the first merged axis
/// is reduced, and the merged sizes (alternately reduced and kept). Leading
/// size-1 axes are dropped; a size-1 axis joins the run before it.
pub fn simplify(dims: &[usize], mask: &[bool]) -> (bool, Vec<usize>) {
    let Some(start) = dims.iter().position(|&d| d != 1) else {
        return (true, Vec::new());
    };
    let mut mask = mask.to_vec();
    let mut sizes = vec![dims[start]];
    for i in start + 1..dims.len() {
        if dims[i] == 1 {
            mask[i] = mask[i - 1];
        }
        if mask[i] != mask[i - 1] {
            sizes.push(dims[i]);
        } else if let Some(last) = sizes.last_mut() {
            *last *= dims[i];
        }
    }
    (mask[start], sizes)
}

/// The reduction in TensorFlow's order, or `None` for what `reduce.rs`
/// does with the same result (order-free reductions).
pub fn reduce(
    op: ReduceOp,
    x: &HostData,
    dims: &[usize],
    mask: &[bool],
) -> Result<Option<HostData>> {
    let r = match (op, x) {
        (ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod, HostData::F32(v)) => {
            HostData::F32(float::<f32, 8>(op, v, dims, mask)?)
        }
        (ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod, HostData::F64(v)) => {
            HostData::F64(float::<f64, 4>(op, v, dims, mask)?)
        }
        (ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod, HostData::F16(v)) => {
            HostData::F16(float::<F16, 8>(op, v, dims, mask)?)
        }
        (ReduceOp::Mean, HostData::I8(v)) => HostData::I8(int_mean(v, dims, mask, |m| m as i8)?),
        (ReduceOp::Mean, HostData::U8(v)) => HostData::U8(int_mean(v, dims, mask, |m| m as u8)?),
        (ReduceOp::Mean, HostData::I16(v)) => HostData::I16(int_mean(v, dims, mask, |m| m as i16)?),
        (ReduceOp::Mean, HostData::I32(v)) => HostData::I32(int_mean(v, dims, mask, |m| m as i32)?),
        (ReduceOp::Mean, HostData::I64(v)) => HostData::I64(int_mean(v, dims, mask, |m| m)?),
        _ => return Ok(None),
    };
    Ok(Some(r))
}

/// The number of kept and reduced values.
fn counts(dims: &[usize], mask: &[bool]) -> (usize, usize) {
    crate::runtime::backend::reduce_extents(dims, mask)
}

/// TensorFlow's integer mean: a 64-bit (wrapping) sum divided by the
/// count, truncating, then narrowed; 0 for an empty reduction.
fn int_mean<T: Num>(
    v: &[T],
    dims: &[usize],
    mask: &[bool],
    narrow: fn(i64) -> T,
) -> Result<Vec<T>> {
    let (outer, inner) = counts(dims, mask);
    let (buf, _, _) = move_reduced_last(v, dims, mask)?;
    let mut out = try_vec(outer)?;
    for o in 0..outer {
        let s = buf[o * inner..(o + 1) * inner]
            .iter()
            .fold(0i64, |a, &b| a.wrapping_add(b.to_i64()));
        let m = if inner == 0 { 0 } else { s / inner as i64 };
        out.push(narrow(m));
    }
    Ok(out)
}

fn float<T: Lane, const P: usize>(
    op: ReduceOp,
    v: &[T],
    dims: &[usize],
    mask: &[bool],
) -> Result<Vec<T>> {
    match op {
        ReduceOp::Prod => canonical::<T, Mul, P>(v, dims, mask, false),
        ReduceOp::Mean => canonical::<T, Add, P>(v, dims, mask, true),
        _ => canonical::<T, Add, P>(v, dims, mask, false),
    }
}

/// TensorFlow's `ReductionOp::Compute` for one fold; `mean` divides each
/// result by the count, in `T`.
fn canonical<T: Lane, F: Fold, const P: usize>(
    v: &[T],
    dims: &[usize],
    mask: &[bool],
    mean: bool,
) -> Result<Vec<T>> {
    let (outer, inner) = counts(dims, mask);
    let (first_reduced, sizes) = simplify(dims, mask);
    if sizes.is_empty() || (sizes.len() == 1 && !first_reduced) {
        // nothing reduced: a copy (a mean divides by nothing)
        let mut out = try_vec(v.len())?;
        out.extend_from_slice(v);
        return Ok(out);
    }
    if outer == 0 {
        return Ok(Vec::new());
    }
    if v.is_empty() {
        let fill = if mean {
            T::from_f64(f64::NAN)
        } else {
            F::init()
        };
        let mut out = try_vec(outer)?;
        out.resize(outer, fill);
        return Ok(out);
    }
    let mut out = match (sizes.len(), first_reduced) {
        (1, _) => vec![full::<T, F, P>(v, 0.0)],
        (2, true) => middle::<T, F, P>(v, 1, sizes[0], sizes[1])?,
        (2, false) => rows::<T, F, P>(v, sizes[0], sizes[1])?,
        (3, true) => outer_two::<T, F>(v, sizes[0], sizes[1], sizes[2]),
        (3, false) => middle::<T, F, P>(v, sizes[0], sizes[1], sizes[2])?,
        _ => {
            // TensorFlow transposes the reduced axes last, then reduces rows
            let (buf, outer, inner) = move_reduced_last(v, dims, mask)?;
            rows::<T, F, P>(&buf, outer, inner)?
        }
    };
    if mean {
        let n = T::from_f64(inner as f64);
        for s in &mut out {
            *s = s.div(n);
        }
    }
    Ok(out)
}

/// TensorFlow's `L2Loss`: `sum(x * x * 0.5)` (the squares halved one by
/// one, then Eigen's full sum of that expression, whose two products enter
/// the cost model).
pub fn l2_loss(x: &HostData) -> Result<Option<HostData>> {
    fn go<T: Lane, const P: usize>(v: &[T]) -> Result<Vec<T>> {
        let half = T::from_f64(0.5);
        let mut h = try_vec(v.len())?;
        h.extend(v.iter().map(|&e| e.mul(e).mul(half)));
        Ok(vec![full::<T, Add, P>(&h, 2.0)])
    }
    Ok(Some(match x {
        HostData::F32(v) => HostData::F32(go::<f32, 8>(v)?),
        HostData::F64(v) => HostData::F64(go::<f64, 4>(v)?),
        HostData::F16(v) => HostData::F16(go::<F16, 8>(v)?),
        _ => return Ok(None),
    }))
}
