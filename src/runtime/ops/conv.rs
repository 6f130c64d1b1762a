//! 2-D convolution and pooling on NHWC tensors, computed in host memory:
//! `Conv2D` (strides, dilations, `SAME`/`VALID`/explicit padding) with
//! `Conv2DBackpropInput` and `Conv2DBackpropFilter`, `MaxPool` with
//! `MaxPoolGrad`, `AvgPool` with `AvgPoolGrad`. A tensor on a CUDA GPU is
//! copied to the host and the result placed back on its device. Float
//! convolutions run as matrix products (`conv_gemm`); the others sum each
//! window in the order (filter row, filter column, input channel).

use super::pool_kernels::{avg_pool_back, avg_pool_fwd, max_pool_back, max_pool_fwd};
use super::scan::{host_of, numeric};
use super::{dtype_mismatch, kernel_error};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::{filled, Elem, HostData};
use crate::runtime::tensor::Tensor;

/// How the spatial borders are padded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// `SAME`: the output has `ceil(in / stride)` positions.
    Same,
    /// `VALID`: only windows inside the input.
    Valid,
    /// Explicit `[top, bottom, left, right]` padding.
    Explicit([usize; 4]),
}

/// A window op's attributes over the two spatial axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The window (filter or pool) size `[height, width]`.
    pub size: [usize; 2],
    /// The strides `[height, width]`.
    pub strides: [usize; 2],
    /// The dilations `[height, width]` (1 for pooling).
    pub dilations: [usize; 2],
    /// The padding.
    pub padding: Padding,
    /// Whether a dilated convolution has a gradient: `tf.nn.convolution`
    /// runs one as a plain convolution between `SpaceToBatchND` and
    /// `BatchToSpaceND`, while `Conv2D`'s own CPU backprop refuses dilations.
    pub dilated_grad: bool,
}

/// Where the windows lie: output sizes and the padding before each axis.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    /// The batch size.
    pub(super) n: usize,
    /// The input's height and width.
    pub(super) in_hw: [usize; 2],
    /// The output's height and width.
    pub(super) out_hw: [usize; 2],
    /// The padding before each spatial axis.
    pub(super) pad: [usize; 2],
}

pub(super) fn geometry(d: &[usize], w: &Window) -> Result<Geometry> {
    let mut out_hw = [0; 2];
    let mut pad = [0; 2];
    for a in 0..2 {
        let input = d[1 + a];
        let eff = w.size[a]
            .saturating_sub(1)
            .saturating_mul(w.dilations[a])
            .saturating_add(1);
        let s = w.strides[a];
        let (out, before) = match w.padding {
            Padding::Valid => {
                if input < eff {
                    (0, 0)
                } else {
                    ((input - eff) / s + 1, 0)
                }
            }
            Padding::Same => {
                let out = input.div_ceil(s);
                let total = ((out.max(1) - 1).saturating_mul(s))
                    .saturating_add(eff)
                    .saturating_sub(input);
                (out, total / 2)
            }
            Padding::Explicit(p) => {
                let (b, e) = (p[2 * a], p[2 * a + 1]);
                let padded = input.saturating_add(b).saturating_add(e);
                if padded < eff {
                    (0, b)
                } else {
                    ((padded - eff) / s + 1, b)
                }
            }
        };
        out_hw[a] = out;
        pad[a] = before;
    }
    Ok(Geometry {
        n: d[0],
        in_hw: [d[1], d[2]],
        out_hw,
        pad,
    })
}

/// The window offsets of output `o` along axis `a` that fall inside the
/// input (computed, not searched: window sizes are script-sized).
pub(super) fn taps(g: &Geometry, w: &Window, a: usize, o: usize) -> std::ops::Range<usize> {
    let base = o as i128 * w.strides[a] as i128 - g.pad[a] as i128;
    let d = w.dilations[a] as i128;
    let n = g.in_hw[a] as i128;
    let lo = if base >= 0 { 0 } else { (-base + d - 1) / d };
    let hi = if n - base <= 0 {
        0
    } else {
        (n - base + d - 1) / d
    };
    let hi = hi.min(w.size[a] as i128);
    let lo = lo.min(hi);
    lo as usize..hi as usize
}

/// The input position of window offset `k` of output `o` along axis `a`, if inside.
#[inline]
pub(super) fn at(g: &Geometry, w: &Window, a: usize, o: usize, k: usize) -> Option<usize> {
    // i128: strides, dilations and paddings are script-sized
    let p =
        o as i128 * w.strides[a] as i128 + k as i128 * w.dilations[a] as i128 - g.pad[a] as i128;
    (p >= 0 && p < g.in_hw[a] as i128).then_some(p as usize)
}

pub(super) fn slice_of<T: Elem>(h: &HostData) -> Result<&[T]> {
    T::slice(h).ok_or_else(|| Error::internal("conv: operand of another dtype"))
}

fn conv_fwd<T: Num>(
    x: &[T],
    f: &HostData,
    g: &Geometry,
    w: &Window,
    (cin, cout): (usize, usize),
) -> Result<HostData> {
    if super::conv_gemm::applies::<T>() {
        return super::conv_gemm::forward(x, f, g, w, (cin, cout));
    }
    let f = slice_of::<T>(f)?;
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let mut out = filled(g.n * oh * ow * cout, T::zero())?;
    for n in 0..g.n {
        for y in 0..oh {
            for xo in 0..ow {
                let o = ((n * oh + y) * ow + xo) * cout;
                let acc = &mut out[o..o + cout];
                for ky in taps(g, w, 0, y) {
                    let Some(py) = at(g, w, 0, y, ky) else {
                        continue;
                    };
                    for kx in taps(g, w, 1, xo) {
                        let Some(px) = at(g, w, 1, xo, kx) else {
                            continue;
                        };
                        let xi = ((n * ih + py) * iw + px) * cin;
                        let fi = (ky * w.size[1] + kx) * cin * cout;
                        for c in 0..cin {
                            let xv = x[xi + c];
                            let fr = &f[fi + c * cout..fi + (c + 1) * cout];
                            for (a, &fv) in acc.iter_mut().zip(fr) {
                                *a = a.add(xv.mul(fv));
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(T::wrap(out))
}

fn conv_back_input<T: Num>(
    gr: &[T],
    f: &HostData,
    g: &Geometry,
    w: &Window,
    (cin, cout): (usize, usize),
) -> Result<HostData> {
    if super::conv_gemm::applies::<T>() {
        return super::conv_gemm::backprop_input(gr, f, g, w, (cin, cout));
    }
    let f = slice_of::<T>(f)?;
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let mut out = filled(g.n * ih * iw * cin, T::zero())?;
    for n in 0..g.n {
        for y in 0..oh {
            for xo in 0..ow {
                let gi = ((n * oh + y) * ow + xo) * cout;
                for ky in taps(g, w, 0, y) {
                    let Some(py) = at(g, w, 0, y, ky) else {
                        continue;
                    };
                    for kx in taps(g, w, 1, xo) {
                        let Some(px) = at(g, w, 1, xo, kx) else {
                            continue;
                        };
                        let xi = ((n * ih + py) * iw + px) * cin;
                        let fi = (ky * w.size[1] + kx) * cin * cout;
                        for c in 0..cin {
                            let mut acc = out[xi + c];
                            for k in 0..cout {
                                acc = acc.add(gr[gi + k].mul(f[fi + c * cout + k]));
                            }
                            out[xi + c] = acc;
                        }
                    }
                }
            }
        }
    }
    Ok(T::wrap(out))
}

fn conv_back_filter<T: Num>(
    x: &[T],
    gr: &HostData,
    g: &Geometry,
    w: &Window,
    (cin, cout): (usize, usize),
) -> Result<HostData> {
    if super::conv_gemm::applies::<T>() {
        return super::conv_gemm::backprop_filter(x, gr, g, w, (cin, cout));
    }
    let gr = slice_of::<T>(gr)?;
    let [ih, iw] = g.in_hw;
    let [oh, ow] = g.out_hw;
    let mut out = filled(w.size[0] * w.size[1] * cin * cout, T::zero())?;
    for n in 0..g.n {
        for y in 0..oh {
            for xo in 0..ow {
                let gi = ((n * oh + y) * ow + xo) * cout;
                for ky in taps(g, w, 0, y) {
                    let Some(py) = at(g, w, 0, y, ky) else {
                        continue;
                    };
                    for kx in taps(g, w, 1, xo) {
                        let Some(px) = at(g, w, 1, xo, kx) else {
                            continue;
                        };
                        let xi = ((n * ih + py) * iw + px) * cin;
                        let fi = (ky * w.size[1] + kx) * cin * cout;
                        for c in 0..cin {
                            let xv = x[xi + c];
                            for k in 0..cout {
                                let o = fi + c * cout + k;
                                out[o] = out[o].add(xv.mul(gr[gi + k]));
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(T::wrap(out))
}

/// The allowed dtypes and the registration TensorFlow prints for `op`.
fn registration(op: &str) -> (&'static str, &'static str) {
    match op {
        "Conv2D" => ("half, bfloat16, float, double, int32", "signature=input:T, filter:T -> output:T; attr=T:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32]; attr=strides:list(int); attr=use_cudnn_on_gpu:bool,default=true; attr=padding:string,allowed=[\"SAME\", \"VALID\", \"EXPLICIT\"]; attr=explicit_paddings:list(int),default=[]; attr=data_format:string,default=\"NHWC\",allowed=[\"NHWC\", \"NCHW\"]; attr=dilations:list(int),default=[1, 1, 1, 1]"),
        "MaxPool" => ("half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8", "signature=input:T -> output:T; attr=T:type,default=DT_FLOAT,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT8, DT_INT16, DT_INT8, DT_UINT16, DT_QINT8]; attr=ksize:list(int),min=4; attr=strides:list(int),min=4; attr=padding:string,allowed=[\"SAME\", \"VALID\", \"EXPLICIT\"]; attr=explicit_paddings:list(int),default=[]; attr=data_format:string,default=\"NHWC\",allowed=[\"NHWC\", \"NCHW\", \"NCHW_VECT_C\"]"),
        _ => ("half, bfloat16, float, double", "signature=value:T -> output:T; attr=ksize:list(int),min=4; attr=strides:list(int),min=4; attr=padding:string,allowed=[\"SAME\", \"VALID\"]; attr=data_format:string,default=\"NHWC\",allowed=[\"NHWC\", \"NCHW\"]; attr=T:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE]"),
    }
}

/// TensorFlow's error for a `padding` string `op` does not know.
pub fn padding_attr_error(op: &str, padding: &str) -> Error {
    let (_, reg) = registration(op);
    let allowed = if op == "AvgPool" {
        "\"SAME\", \"VALID\""
    } else {
        "\"SAME\", \"VALID\", \"EXPLICIT\""
    };
    Error::invalid_argument(format!(
        "Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: {allowed}\n\t; NodeDef: {{{{node {op}}}}}; Op<name={op}; {reg}> [Op:{op}] name: "
    ))
}

/// TensorFlow's dtype error for the window ops, with the op's registration.
fn window_attr_error(op: &str, d: DType) -> Error {
    let (allowed, reg) = registration(op);
    Error::invalid_argument(format!(
        "Value for attr 'T' of {} is not in the list of allowed values: {allowed}\n\t; NodeDef: {{{{node {op}}}}}; Op<name={op}; {reg}> [Op:{op}] name: ",
        d.kernel_name()
    ))
}

/// Whether `op` accepts dtype `d` (`Conv2D` also int32, `MaxPool` most ints).
fn window_dtype_ok(op: &str, d: DType) -> bool {
    match op {
        "Conv2D" => d.is_floating() || d == DType::Int32,
        "MaxPool" => {
            d.is_floating()
                || matches!(
                    d,
                    DType::Int32 | DType::Int64 | DType::UInt8 | DType::Int16 | DType::Int8
                )
        }
        _ => d.is_floating(),
    }
}

fn check_dtype(op: &str, d: DType) -> Result<()> {
    if window_dtype_ok(op, d) {
        Ok(())
    } else {
        Err(window_attr_error(op, d))
    }
}

/// The node TensorFlow's errors name: float32 convolutions run as oneDNN's
/// `__MklNativeConv2D` on the CPU.
pub fn conv_node(d: DType) -> &'static str {
    if d == DType::Float32 {
        "__MklNativeConv2D"
    } else {
        "Conv2D"
    }
}

fn conv2d_impl(x: &Tensor, f: &Tensor, w: &Window) -> Result<Tensor> {
    let op = "Conv2D";
    let _trace = crate::runtime::trace::op(op, x.device());
    if f.dtype() != x.dtype() {
        let node = if x.dtype() == DType::Float32 {
            "_MklNativeConv2D"
        } else {
            op
        };
        let e = dtype_mismatch(node, 1, x.dtype(), f.dtype(), " name: ");
        return Err(Error::invalid_argument(
            e.message().replace("[Op:_MklNativeConv2D]", "[Op:Conv2D]"),
        ));
    }
    check_dtype(op, x.dtype())?;
    let dev = x.device();
    let mkl = x.dtype() == DType::Float32;
    let fail = |m: String| {
        Error::kernel(
            crate::runtime::error::ErrorKind::InvalidArgument,
            conv_node(x.dtype()),
            &dev,
            &m,
            op,
            " name: ",
        )
    };
    if x.rank() != 4 {
        return Err(fail(if mkl {
            format!("input must be 4-dimensional{}", x.shape().bracket_text())
        } else {
            format!(
                "convolution input must be 4-dimensional: {}",
                x.shape().bracket_text()
            )
        }));
    }
    if f.rank() != 4 {
        return Err(fail(format!(
            "{}filter must be 4-dimensional: {}",
            if mkl { "" } else { "convolution " },
            f.shape().bracket_text()
        )));
    }
    if f.numel() == 0 {
        return Err(fail(
            "filter must not have zero elements (i.e. all dimensions must be non-zero)".into(),
        ));
    }
    let (cin, cout) = (x.dims()[3], f.dims()[3]);
    if f.dims()[2] != cin {
        if f.dims()[2] == 0 || cin % f.dims()[2] != 0 {
            return Err(fail(format!(
                "input depth must be evenly divisible by filter depth: {cin} vs {}",
                f.dims()[2]
            )));
        }
        return Err(Error::unimplemented(
            "tf.nn.conv2d: grouped convolution (filter depth smaller than the input depth) is \
             not supported in dist",
        ));
    }
    let w = Window {
        size: [f.dims()[0], f.dims()[1]],
        ..*w
    };
    let g = geometry(x.dims(), &w)?;
    let shape = Shape(vec![g.n, g.out_hw[0], g.out_hw[1], cout]);
    shape.checked_numel()?;
    let fh = host_of(f)?;
    let out = numeric!(
        host_of(x)?,
        conv_fwd(&fh, &g, &w, (cin, cout)),
        window_attr_error(op, x.dtype())
    )?;
    Tensor::from_host(out, shape, dev)
}

/// `tf.nn.conv2d` of an NHWC `x` and an `[h, w, in, out]` filter; `w`'s
/// `size` is taken from the filter.
pub fn conv2d(x: &Tensor, f: &Tensor, w: &Window) -> Result<Tensor> {
    let w = &match f.dims() {
        [h, wd, _, _] => Window {
            size: [*h, *wd],
            ..*w
        },
        _ => *w,
    };
    tape::primitive(|| GradOp::Conv2D(*w), &[x, f], || conv2d_impl(x, f, w))
}

/// `Conv2DBackpropInput`: the gradient of `conv2d(x, f)` for `x` (shaped
/// `x_dims`) from the output's gradient `grad`.
pub fn conv2d_backprop_input(
    x_dims: &[usize],
    f: &Tensor,
    grad: &Tensor,
    w: &Window,
) -> Result<Tensor> {
    let w = &Window {
        size: [f.dims()[0], f.dims()[1]],
        ..*w
    };
    tape::primitive(
        || GradOp::Conv2DBackpropInput {
            w: *w,
            input_sizes: x_dims.to_vec(),
        },
        &[f, grad],
        || {
            Shape(x_dims.to_vec()).checked_numel()?;
            let g = geometry(x_dims, w)?;
            let (cin, cout) = (x_dims[3], f.dims()[3]);
            let fh = host_of(f)?;
            let out = numeric!(
                host_of(grad)?,
                conv_back_input(&fh, &g, w, (cin, cout)),
                window_attr_error("Conv2D", grad.dtype())
            )?;
            Tensor::from_host(out, Shape(x_dims.to_vec()), grad.device())
        },
    )
}

/// `Conv2DBackpropFilter`: the gradient of `conv2d(x, f)` for `f` (shaped
/// `f_dims`) from the output's gradient `grad`.
pub fn conv2d_backprop_filter(
    x: &Tensor,
    f_dims: &[usize],
    grad: &Tensor,
    w: &Window,
) -> Result<Tensor> {
    let w = &Window {
        size: [f_dims[0], f_dims[1]],
        ..*w
    };
    tape::primitive(
        || GradOp::Conv2DBackpropFilter {
            w: *w,
            filter_sizes: f_dims.to_vec(),
        },
        &[x, grad],
        || {
            Shape(f_dims.to_vec()).checked_numel()?;
            let g = geometry(x.dims(), w)?;
            let (cin, cout) = (f_dims[2], f_dims[3]);
            let gh = host_of(grad)?;
            let out = numeric!(
                host_of(x)?,
                conv_back_filter(&gh, &g, w, (cin, cout)),
                window_attr_error("Conv2D", x.dtype())
            )?;
            Tensor::from_host(out, Shape(f_dims.to_vec()), grad.device())
        },
    )
}

/// `tf.nn.conv2d_transpose`: `Conv2DBackpropInput` of `input` (the
/// gradient of a convolution's output) into `output_shape`, with the
/// kernel's checks. `filter` is `[h, w, out_channels, in_channels]`.
pub fn conv2d_transpose(
    input: &Tensor,
    filter: &Tensor,
    output_shape: &[i64],
    w: &Window,
) -> Result<Tensor> {
    let op = "Conv2DBackpropInput";
    let _trace = crate::runtime::trace::op(op, input.device());
    let dev = input.device();
    let fail = |m: String| kernel_error(op, &dev, &m, "");
    if filter.dtype() != input.dtype() {
        return Err(dtype_mismatch(op, 2, filter.dtype(), input.dtype(), ""));
    }
    check_dtype("Conv2D", input.dtype())?;
    if output_shape.len() != 4 {
        return Err(fail(format!(
            "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: {}",
            output_shape.len()
        )));
    }
    if output_shape.iter().any(|&d| d < 0) || input.rank() != 4 || filter.rank() != 4 {
        return Err(fail(format!(
            "Conv2DBackpropInput: input_sizes, filter and out_backprop must be 4-dimensional \
             (got input_sizes {output_shape:?}, filter {}, out_backprop {})",
            filter.shape().bracket_text(),
            input.shape().bracket_text()
        )));
    }
    if w.dilations != [1, 1] {
        return Err(fail(
            "Current CPU implementations do not yet support dilation rates larger than 1.".into(),
        ));
    }
    let out: Vec<usize> = output_shape.iter().map(|&d| d as usize).collect();
    let fd = filter.dims();
    if fd[2] == 0 || !out[3].is_multiple_of(fd[2]) {
        return Err(fail(
            "Conv2DCustomBackpropInput: input depth must be evenly divisible by filter depth"
                .into(),
        ));
    }
    if fd[2] != out[3] {
        return Err(Error::unimplemented(
            "tf.nn.conv2d_transpose: grouped convolution is not supported in dist",
        ));
    }
    if fd[3] != input.dims()[3] {
        return Err(fail(
            "Conv2DCustomBackpropInput: filter and out_backprop must have the same out_depth"
                .into(),
        ));
    }
    let w = Window {
        size: [fd[0], fd[1]],
        ..*w
    };
    let g = geometry(&out, &w)?;
    for a in 0..2 {
        let actual = input.dims()[1 + a];
        if g.out_hw[a] != actual {
            return Err(fail(format!(
                "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = \
                 {actual}, computed = {} spatial_dim: {} input: {} filter: {} output: {actual} \
                 stride: {} dilation: {}",
                g.out_hw[a],
                a + 1,
                out[1 + a],
                w.size[a],
                w.strides[a],
                w.dilations[a]
            )));
        }
    }
    if out[0] != input.dims()[0] {
        return Err(fail(format!(
            "Conv2DCustomBackpropInput: input and out_backprop must have the same batch size. \
             Input batch: {}, outbackprop batch: {}",
            out[0],
            input.dims()[0]
        )));
    }
    conv2d_backprop_input(&out, filter, input, &w)
}

fn pool_checks(op: &str, x: &Tensor, w: &Window) -> Result<Geometry> {
    let dev = x.device();
    if x.rank() != 4 {
        // float32 pools run as oneDNN's kernels on TensorFlow's CPU
        let msg = if x.dtype() == DType::Float32 {
            "Input must be 4 or 5-dimensional".to_string()
        } else {
            format!(
                "tensor_in_shape must have 2 spatial dimensions. {} 0",
                x.rank()
            )
        };
        return Err(kernel_error(op, &dev, &msg, " name: "));
    }
    geometry(x.dims(), w)
}

fn pool_impl(x: &Tensor, w: &Window, max: bool) -> Result<Tensor> {
    let op = if max { "MaxPool" } else { "AvgPool" };
    let _trace = crate::runtime::trace::op(op, x.device());
    check_dtype(op, x.dtype())?;
    let g = pool_checks(op, x, w)?;
    let c = x.dims()[3];
    let shape = Shape(vec![g.n, g.out_hw[0], g.out_hw[1], c]);
    shape.checked_numel()?;
    let out = if max {
        numeric!(
            host_of(x)?,
            max_pool_fwd(&g, w, c),
            window_attr_error(op, x.dtype())
        )?
    } else {
        numeric!(
            host_of(x)?,
            avg_pool_fwd(&g, w, c),
            window_attr_error(op, x.dtype())
        )?
    };
    Tensor::from_host(out, shape, x.device())
}

/// `tf.nn.max_pool2d` (`max`) or `tf.nn.avg_pool2d` of an NHWC `x`.
pub fn pool2d(x: &Tensor, w: &Window, max: bool) -> Result<Tensor> {
    tape::primitive(
        || {
            if max {
                GradOp::MaxPool(*w)
            } else {
                GradOp::AvgPool(*w)
            }
        },
        &[x],
        || pool_impl(x, w, max),
    )
}

/// `MaxPoolGrad` / `AvgPoolGrad`: the gradient of the pool of `x` from the
/// output's gradient `grad`.
pub fn pool2d_grad(x: &Tensor, grad: &Tensor, w: &Window, max: bool) -> Result<Tensor> {
    let op = if max { "MaxPoolGrad" } else { "AvgPoolGrad" };
    tape::primitive(
        || GradOp::PoolGrad { w: *w, max },
        &[x, grad],
        || {
            let g = geometry(x.dims(), w)?;
            let c = x.dims()[3];
            let out = if max {
                let gh = host_of(grad)?;
                numeric!(
                    host_of(x)?,
                    max_pool_back(&gh, &g, w, c),
                    window_attr_error(op, x.dtype())
                )?
            } else {
                numeric!(
                    host_of(grad)?,
                    avg_pool_back(x.numel(), &g, w, c),
                    window_attr_error(op, x.dtype())
                )?
            };
            Tensor::from_host(out, x.shape().clone(), grad.device())
        },
    )
}
