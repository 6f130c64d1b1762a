//! `DepthwiseConv2dNative` (`tf.nn.depthwise_conv2d`) and its two
//! backprops on NHWC tensors, in host memory like the convolutions of
//! `conv.rs` (whose window geometry they share): each input channel `c` is
//! convolved with its own `multiplier` filters, giving output channels
//! `c * multiplier + m`. Each output sums its window in (row, column) order.

use super::conv::{geometry, slice_of, taps, Geometry, Window};
use super::scan::{host_of, numeric};
use super::{dtype_mismatch, kernel_error};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{filled, HostData};
use crate::runtime::tensor::Tensor;

/// The input row offset of tap `k` of output `o` along axis `a` (in range:
/// `taps` gave `k`).
fn pos(g: &Geometry, w: &Window, a: usize, o: usize, k: usize) -> usize {
    (o as i128 * w.strides[a] as i128 + k as i128 * w.dilations[a] as i128 - g.pad[a] as i128)
        as usize
}

/// Which of the three products a loop computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Forward,
    Input,
    Filter,
}

/// The one loop of the three kernels: `a` and `b` are the two operands of
/// the pass (forward: input, filter; input: filter, grad; filter: input,
/// grad) and `out_len` the result's size.
fn depthwise_loop<T: Num>(
    a: &[T],
    b: &HostData,
    g: &Geometry,
    w: &Window,
    (cin, mult, pass, out_len): (usize, usize, Pass, usize),
) -> Result<HostData> {
    let b = slice_of::<T>(b)?;
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let cout = cin * mult;
    let mut out = filled(out_len, T::zero())?;
    for n in 0..g.n {
        for y in 0..oh {
            for xo in 0..ow {
                let o = ((n * oh + y) * ow + xo) * cout;
                for ky in taps(g, w, 0, y) {
                    let py = pos(g, w, 0, y, ky);
                    for kx in taps(g, w, 1, xo) {
                        let px = pos(g, w, 1, xo, kx);
                        let xi = ((n * ih + py) * iw + px) * cin;
                        let fi = (ky * w.size[1] + kx) * cout;
                        for c in 0..cin {
                            for m in 0..mult {
                                let k = c * mult + m;
                                match pass {
                                    Pass::Forward => {
                                        out[o + k] = out[o + k].add(a[xi + c].mul(b[fi + k]))
                                    }
                                    Pass::Input => {
                                        out[xi + c] = out[xi + c].add(b[o + k].mul(a[fi + k]))
                                    }
                                    Pass::Filter => {
                                        out[fi + k] = out[fi + k].add(a[xi + c].mul(b[o + k]))
                                    }
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

fn check(op: &str, x: &Tensor, f: &Tensor) -> Result<()> {
    if f.dtype() != x.dtype() {
        return Err(dtype_mismatch(op, 1, x.dtype(), f.dtype(), " name: "));
    }
    if !x.dtype().is_floating() {
        return Err(Error::invalid_argument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, \
             float, double [Op:{op}] name: ",
            x.dtype().kernel_name()
        )));
    }
    let dev = x.device();
    let fail = |m: String| kernel_error(op, &dev, &m, " name: ");
    if x.rank() != 4 {
        return Err(fail(format!(
            "input must be 4-dimensional{}",
            x.shape().bracket_text()
        )));
    }
    if f.rank() != 4 {
        return Err(fail(format!(
            "filter must be 4-dimensional: {}",
            f.shape().bracket_text()
        )));
    }
    if f.dims()[2] != x.dims()[3] {
        return Err(fail(format!(
            "input and filter must have the same depth: {} vs {}",
            x.dims()[3],
            f.dims()[2]
        )));
    }
    Ok(())
}

/// `tf.nn.depthwise_conv2d` of an NHWC `x` and an `[h, w, in, multiplier]` filter.
pub fn depthwise_conv2d(x: &Tensor, f: &Tensor, w: &Window) -> Result<Tensor> {
    let w = &match f.dims() {
        [h, wd, _, _] => Window {
            size: [*h, *wd],
            ..*w
        },
        _ => *w,
    };
    tape::primitive(
        || GradOp::DepthwiseConv2D(*w),
        &[x, f],
        || {
            let op = "DepthwiseConv2dNative";
            let _trace = crate::runtime::trace::op(op, x.device());
            check(op, x, f)?;
            let g = geometry(x.dims(), w)?;
            let (cin, mult) = (f.dims()[2], f.dims()[3]);
            let shape = Shape(vec![g.n, g.out_hw[0], g.out_hw[1], cin * mult]);
            let len = shape.checked_numel()?;
            let fh = host_of(f)?;
            let out = numeric!(
                host_of(x)?,
                depthwise_loop(&fh, &g, w, (cin, mult, Pass::Forward, len)),
                Error::internal("depthwise: dtype")
            )?;
            Tensor::from_host(out, shape, x.device())
        },
    )
}

/// `DepthwiseConv2dNativeBackpropInput`: the gradient for the input
/// (shaped `x_dims`) from the output's gradient `grad`.
pub fn depthwise_backprop_input(
    x_dims: &[usize],
    f: &Tensor,
    grad: &Tensor,
    w: &Window,
) -> Result<Tensor> {
    tape::primitive(
        || GradOp::DepthwiseBackpropInput {
            w: *w,
            input_sizes: x_dims.to_vec(),
        },
        &[f, grad],
        || {
            let len = Shape(x_dims.to_vec()).checked_numel()?;
            let g = geometry(x_dims, w)?;
            let (cin, mult) = (f.dims()[2], f.dims()[3]);
            let gh = host_of(grad)?;
            let out = numeric!(
                host_of(f)?,
                depthwise_loop(&gh, &g, w, (cin, mult, Pass::Input, len)),
                Error::internal("depthwise: dtype")
            )?;
            Tensor::from_host(out, Shape(x_dims.to_vec()), grad.device())
        },
    )
}

/// `DepthwiseConv2dNativeBackpropFilter`: the gradient for the filter
/// (shaped `f_dims`) from the output's gradient `grad`.
pub fn depthwise_backprop_filter(
    x: &Tensor,
    f_dims: &[usize],
    grad: &Tensor,
    w: &Window,
) -> Result<Tensor> {
    tape::primitive(
        || GradOp::DepthwiseBackpropFilter {
            w: *w,
            filter_sizes: f_dims.to_vec(),
        },
        &[x, grad],
        || {
            let len = Shape(f_dims.to_vec()).checked_numel()?;
            let g = geometry(x.dims(), w)?;
            let (cin, mult) = (f_dims[2], f_dims[3]);
            let gh = host_of(grad)?;
            let out = numeric!(
                host_of(x)?,
                depthwise_loop(&gh, &g, w, (cin, mult, Pass::Filter, len)),
                Error::internal("depthwise: dtype")
            )?;
            Tensor::from_host(out, Shape(f_dims.to_vec()), grad.device())
        },
    )
}
