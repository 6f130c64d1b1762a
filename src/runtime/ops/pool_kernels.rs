//! The pooling kernels over host buffers (NHWC): `MaxPool` and `AvgPool`
//! and their gradients, each window read through `conv`'s geometry.

use super::conv::{at, slice_of, taps, Geometry, Window};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::error::Result;
use crate::runtime::storage::{filled, HostData};

/// Max pooling forward (`argmax == false`: the maxima) or the flat input
/// index of each maximum (the first in row-major order among ties).
fn max_pool_typed<T: Num>(
    x: &[T],
    g: &Geometry,
    w: &Window,
    c: usize,
) -> Result<(Vec<T>, Vec<usize>)> {
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let (ys, xs) = (positions(g, w, 0), positions(g, w, 1));
    let [dy, dx] = w.dilations;
    let n_out = g.n * oh * ow * c;
    let mut out = filled(n_out, T::zero())?;
    let mut arg = filled(n_out, usize::MAX)?;
    for n in 0..g.n {
        for (y, &(y0, ny)) in ys.iter().enumerate() {
            for (xo, &(x0, nx)) in xs.iter().enumerate() {
                let o = ((n * oh + y) * ow + xo) * c;
                for py in (y0..).step_by(dy).take(ny) {
                    for px in (x0..).step_by(dx).take(nx) {
                        let xi = ((n * ih + py) * iw + px) * c;
                        for ch in 0..c {
                            let v = x[xi + ch];
                            if arg[o + ch] == usize::MAX || v > out[o + ch] {
                                out[o + ch] = v;
                                arg[o + ch] = xi + ch;
                            }
                        }
                    }
                }
            }
        }
    }
    Ok((out, arg))
}

/// The maxima alone: each window's first in-bounds position copied, the
/// others compared in (as `max_pool_typed` picks them, without the indices).
pub(super) fn max_pool_fwd<T: Num>(
    x: &[T],
    g: &Geometry,
    w: &Window,
    c: usize,
) -> Result<HostData> {
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let (ys, xs) = (positions(g, w, 0), positions(g, w, 1));
    let [dy, dx] = w.dilations;
    let mut out = filled(g.n * oh * ow * c, T::zero())?;
    for n in 0..g.n {
        for (y, &(y0, ny)) in ys.iter().enumerate() {
            for (xo, &(x0, nx)) in xs.iter().enumerate() {
                let o = ((n * oh + y) * ow + xo) * c;
                let acc = &mut out[o..o + c];
                let mut first = true;
                for py in (y0..).step_by(dy).take(ny) {
                    for px in (x0..).step_by(dx).take(nx) {
                        let xi = ((n * ih + py) * iw + px) * c;
                        let src = &x[xi..xi + c];
                        if first {
                            acc.copy_from_slice(src);
                            first = false;
                        } else {
                            for (a, &v) in acc.iter_mut().zip(src) {
                                if v > *a {
                                    *a = v;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(T::wrap(out))
}

pub(super) fn max_pool_back<T: Num>(
    x: &[T],
    gr: &HostData,
    g: &Geometry,
    w: &Window,
    c: usize,
) -> Result<HostData> {
    let gr = slice_of::<T>(gr)?;
    let (_, arg) = max_pool_typed(x, g, w, c)?;
    let mut out = filled(x.len(), T::zero())?;
    for (o, &a) in arg.iter().enumerate() {
        if a != usize::MAX {
            out[a] = out[a].add(gr[o]);
        }
    }
    Ok(T::wrap(out))
}

/// The in-bounds input positions of each output position along axis `a`,
/// as (first, count) with the dilation as step: computed once per op, not
/// per window and channel.
fn positions(g: &Geometry, w: &Window, a: usize) -> Vec<(usize, usize)> {
    (0..g.out_hw[a])
        .map(|o| {
            let t = taps(g, w, a, o);
            match at(g, w, a, o, t.start) {
                Some(first) if !t.is_empty() => (first, t.len()),
                _ => (0, 0),
            }
        })
        .collect()
}

pub(super) fn avg_pool_fwd<T: Num>(
    x: &[T],
    g: &Geometry,
    w: &Window,
    c: usize,
) -> Result<HostData> {
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let (ys, xs) = (positions(g, w, 0), positions(g, w, 1));
    let [dy, dx] = w.dilations;
    let mut out = filled(g.n * oh * ow * c, T::zero())?;
    for n in 0..g.n {
        for (y, &(y0, ny)) in ys.iter().enumerate() {
            for (xo, &(x0, nx)) in xs.iter().enumerate() {
                let o = ((n * oh + y) * ow + xo) * c;
                for py in (y0..).step_by(dy).take(ny) {
                    for px in (x0..).step_by(dx).take(nx) {
                        let xi = ((n * ih + py) * iw + px) * c;
                        for ch in 0..c {
                            out[o + ch] = out[o + ch].add(x[xi + ch]);
                        }
                    }
                }
                let count = T::from_f64((ny * nx) as f64);
                for v in &mut out[o..o + c] {
                    *v = v.div(count);
                }
            }
        }
    }
    Ok(T::wrap(out))
}

pub(super) fn avg_pool_back<T: Num>(
    gr: &[T],
    in_len: usize,
    g: &Geometry,
    w: &Window,
    c: usize,
) -> Result<HostData> {
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let (ys, xs) = (positions(g, w, 0), positions(g, w, 1));
    let [dy, dx] = w.dilations;
    let mut out = filled(in_len, T::zero())?;
    for n in 0..g.n {
        for (y, &(y0, ny)) in ys.iter().enumerate() {
            for (xo, &(x0, nx)) in xs.iter().enumerate() {
                let o = ((n * oh + y) * ow + xo) * c;
                let count = T::from_f64((ny * nx) as f64);
                for py in (y0..).step_by(dy).take(ny) {
                    for px in (x0..).step_by(dx).take(nx) {
                        let xi = ((n * ih + py) * iw + px) * c;
                        for ch in 0..c {
                            out[xi + ch] = out[xi + ch].add(gr[o + ch].div(count));
                        }
                    }
                }
            }
        }
    }
    Ok(T::wrap(out))
}
