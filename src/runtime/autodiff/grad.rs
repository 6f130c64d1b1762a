//! The gradient registry: [`GradOp`] names every op a tape records, with the
//! attributes its gradient needs, and [`gradient`] gives each one's
//! gradient as the op sequence TensorFlow's registered gradient function
//! (`math_grad.py`, `array_grad.py`, `nn_grad.py`) emits, so float results
//! are bit-identical wherever the forward ops are. Every match here is
//! exhaustive: an op added to [`UnaryOp`], [`BinaryOp`], [`ReduceOp`] or
//! [`GradOp`] does not compile until its gradient is written or it is
//! declared as having none ([`NoGrad`]).

use std::any::Any;
use std::rc::Rc;

use crate::runtime::dtype::Scalar;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::op::{BinaryOp, ReduceOp, Semantics, UnaryOp};
use crate::runtime::ops::{self, IndexItem};
use crate::runtime::tensor::Tensor;

use super::grad_more;
use super::grad_reduce::{batch_gather_grad, gather_grad, matmul_grad, reduce_grad};

/// A recorded op and the attributes its gradient needs.
#[derive(Clone)]
pub enum GradOp {
    /// A variable read (`ReadVariableOp`): the identity.
    ReadVariable,
    /// `Identity` (a copy to another device too).
    Identity,
    /// An element-wise op of one input.
    Unary(UnaryOp),
    /// An element-wise op of two broadcast inputs.
    Binary(BinaryOp),
    /// `AddN`.
    AddN,
    /// `Cast` (to the output's dtype).
    Cast,
    /// `Complex`, `Real`, `Imag`, `Angle`, `ComplexAbs` or `Conj`.
    ComplexPart(crate::runtime::ops::complex::ComplexOp),
    /// `SelectV2` (`tf.where(c, x, y)`); inputs `c, x, y`.
    Select,
    /// A reduction over `axes` (normalized, ascending).
    Reduce {
        /// Which reduction.
        op: ReduceOp,
        /// The reduced axes.
        axes: Vec<usize>,
        /// Whether the reduced axes were kept.
        keepdims: bool,
    },
    /// `MatMul` / `BatchMatMulV2`.
    MatMul {
        /// `transpose_a`.
        ta: bool,
        /// `transpose_b`.
        tb: bool,
    },
    /// `Reshape`, `ExpandDims`, `Squeeze` (named for errors).
    Reshape(&'static str),
    /// `Transpose` by `perm`.
    Transpose(Vec<usize>),
    /// `ConcatV2` along `axis` (normalized).
    Concat(usize),
    /// `Pack` (`tf.stack`) along `axis` (normalized).
    Pack(usize),
    /// `Unpack` (`tf.unstack`) along `axis` (normalized).
    Unpack(usize),
    /// `SplitV` along `axis` (normalized).
    Split(usize),
    /// `Tile` by `multiples`.
    Tile(Vec<usize>),
    /// `BroadcastTo`.
    BroadcastTo,
    /// `Roll` by a shift per axis (each in `[0, dim)`).
    Roll(Vec<i64>),
    /// `ReverseV2` along the (normalized, ascending) axes.
    Reverse(Vec<usize>),
    /// `GatherV2` along `axis` with `batch_dims` leading batch dims (both
    /// normalized); inputs `params, indices`.
    Gather(usize, usize),
    /// `StridedSlice` (a subscript).
    Index(Vec<IndexItem>),
    /// `StridedSliceGrad`: the gradient of a subscript of a tensor shaped
    /// `dims`, placed into zeros of that shape (a recorded op, so that
    /// gradients of gradients and forward-mode tangents pass slices).
    IndexGrad(Vec<IndexItem>, Vec<usize>),
    /// `Softmax` / `LogSoftmax` along `axis`.
    Softmax {
        /// The axis.
        axis: i64,
        /// `LogSoftmax`.
        log: bool,
    },
    /// `Relu6`.
    Relu6,
    /// `LeakyRelu` with `alpha`.
    LeakyRelu(f64),
    /// `Elu`.
    Elu,
    /// `Selu`.
    Selu,
    /// `Softplus`.
    Softplus,
    /// `Cumsum` along `axis`.
    Cumsum {
        /// The axis.
        axis: i64,
        /// `exclusive`.
        exclusive: bool,
        /// `reverse`.
        reverse: bool,
    },
    /// `Cumprod` along `axis`.
    Cumprod {
        /// The axis.
        axis: i64,
        /// `exclusive`.
        exclusive: bool,
        /// `reverse`.
        reverse: bool,
    },
    /// `TopKV2` with `k`; outputs `values, indices`.
    TopK(i64),
    /// `tf.sort` along `axis` (TensorFlow's `TopKV2` on the input with
    /// `axis` swapped last); outputs `values, indices`.
    Sort {
        /// The axis.
        axis: i64,
        /// `direction='DESCENDING'`.
        descending: bool,
    },
    /// `MatrixDiagV3` (`tf.linalg.diag`, main diagonal, square).
    MatrixDiag,
    /// `MatrixDiagPartV3` (main diagonal).
    MatrixDiagPart,
    /// `MatrixSetDiagV3` (main diagonal); inputs `input, diagonal`.
    MatrixSetDiag,
    /// `Einsum` with its equation, the output labels explicit.
    Einsum(Rc<str>),
    /// `L2Loss` (`tf.nn.l2_loss`).
    L2Loss,
    /// `SigmoidGrad`; inputs `y, dy` (the gradient of `Sigmoid`).
    SigmoidGrad,
    /// `tf.nn.silu` (`x * sigmoid(x)`), with TensorFlow's custom gradient.
    Silu,
    /// `ArgMax` / `ArgMin` along `axis` (normalized): an int64 result, which
    /// no tape follows.
    ArgReduce {
        /// Which one.
        op: crate::runtime::op::ArgOp,
        /// The axis.
        axis: usize,
    },
    /// `BiasAdd`; inputs `value, bias`.
    BiasAdd {
        /// `data_format="NCHW"` (the channel axis is 1).
        nchw: bool,
    },
    /// `Conv2D` (NHWC); inputs `input, filter`.
    Conv2D(crate::runtime::ops::conv::Window),
    /// `Conv2DBackpropInput` into `input_sizes`; inputs `filter, out_backprop`.
    Conv2DBackpropInput {
        /// The window.
        w: crate::runtime::ops::conv::Window,
        /// The shape of the convolution's input (this op's output).
        input_sizes: Vec<usize>,
    },
    /// `Conv2DBackpropFilter` into `filter_sizes`; inputs `input, out_backprop`.
    Conv2DBackpropFilter {
        /// The window.
        w: crate::runtime::ops::conv::Window,
        /// The filter's shape (this op's output).
        filter_sizes: Vec<usize>,
    },
    /// `DepthwiseConv2dNative` (NHWC); inputs `input, filter`.
    DepthwiseConv2D(crate::runtime::ops::conv::Window),
    /// `DepthwiseConv2dNativeBackpropInput`; inputs `filter, out_backprop`.
    DepthwiseBackpropInput {
        /// The window.
        w: crate::runtime::ops::conv::Window,
        /// The shape of the convolution's input (this op's output).
        input_sizes: Vec<usize>,
    },
    /// `DepthwiseConv2dNativeBackpropFilter`; inputs `input, out_backprop`.
    DepthwiseBackpropFilter {
        /// The window.
        w: crate::runtime::ops::conv::Window,
        /// The filter's shape (this op's output).
        filter_sizes: Vec<usize>,
    },
    /// `MaxPool` (NHWC).
    MaxPool(crate::runtime::ops::conv::Window),
    /// `AvgPool` (NHWC).
    AvgPool(crate::runtime::ops::conv::Window),
    /// `MaxPoolGrad` / `AvgPoolGrad` (dist has no gradient of theirs: a
    /// third-order pooling gradient is TensorFlow's `LookupError` there);
    /// inputs `x, grad`.
    PoolGrad {
        /// The window.
        w: crate::runtime::ops::conv::Window,
        /// `MaxPoolGrad` (else `AvgPoolGrad`).
        max: bool,
    },
    /// `SquaredDifference`; inputs `x, y`.
    SquaredDifference,
    /// `DivNoNan`; inputs `x, y`.
    DivNoNan,
    /// `MulNoNan`, `Xlogy`, `Xdivy`, `Xlog1py`; inputs `x, y`.
    ZeroSafe(crate::runtime::ops::zero_safe::ZeroSafe),
    /// `Lgamma`, `Igamma`, `Betainc` … (`runtime::ops::special`).
    Special(crate::runtime::ops::special::Special),
    /// `MatrixSolve`, `MatrixInverse`, `MatrixDeterminant`,
    /// `LogMatrixDeterminant`, `Cholesky`, `MatrixTriangularSolve`,
    /// `MatrixBandPart` (`runtime::ops::decomp`).
    Linalg(crate::runtime::ops::decomp::LinalgOp),
    /// `Pad` / `PadV2` by `[before, after]` per axis; inputs `x` (and the
    /// constant value).
    Pad(Vec<[usize; 2]>),
    /// `MirrorPad`.
    MirrorPad {
        /// `[before, after]` per axis.
        pads: Vec<[usize; 2]>,
        /// `SYMMETRIC` (else `REFLECT`).
        symmetric: bool,
    },
    /// `SegmentSum/Max/Min/Mean/Prod` and `UnsortedSegmentSum/Max/Min/Prod`;
    /// inputs `data, segment_ids`.
    Segment {
        /// Which reduction.
        op: crate::runtime::ops::segment_reduce::SegmentReduce,
        /// `num_segments` of an unsorted op; `None`: sorted ids.
        num: Option<i64>,
    },
    /// `GatherNd`; inputs `params, indices`.
    GatherNd,
    /// `ScatterNd` into zeros of the shape; inputs `indices, updates`.
    ScatterNd(Vec<usize>),
    /// `TensorScatterUpdate/Add/Sub/Max/Min`; inputs `tensor, indices, updates`.
    TensorScatter(crate::runtime::ops::scatter::ScatterMode),
    /// `SoftmaxCrossEntropyWithLogits`; inputs `logits, labels`, outputs
    /// `loss, backprop`.
    SoftmaxXent,
    /// `SparseSoftmaxCrossEntropyWithLogits`; inputs `logits, labels`,
    /// outputs `loss, backprop`.
    SparseSoftmaxXent,
    /// A function with its own gradient (`tf.custom_gradient`): the
    /// language layer's gradient function.
    Custom(Rc<dyn Any>),
    /// An op TensorFlow has no gradient for in dist yet.
    NoGrad(NoGrad),
}

/// Runs a `tf.custom_gradient` function: its payload and the output gradients
/// give the input gradients.
pub type CustomFn<'a> = dyn FnMut(&Rc<dyn Any>, &[Tensor]) -> Result<Vec<Option<Tensor>>> + 'a;

/// An op without a gradient: `LookupError` when a gradient reaches it.
#[derive(Clone, Copy, Debug)]
pub struct NoGrad(pub &'static str);

/// TensorFlow's `LookupError` for an op without a gradient.
#[cold]
pub(crate) fn no_gradient(name: &str) -> Error {
    Error::new(
        ErrorKind::Lookup,
        format!("No gradient defined for operation '{name}' (op type: {name})"),
    )
}

/// What a gradient function sees of the op it differentiates.
pub(crate) struct OpView<'a> {
    /// The inputs.
    pub inputs: &'a [Tensor],
    /// The outputs.
    pub outputs: &'a [Tensor],
    /// Inputs whose gradient nobody wants.
    pub skip: &'a [bool],
}

/// A 0-d tensor of `like`'s dtype and device holding `v`.
pub(super) fn scalar(like: &Tensor, v: f64) -> Result<Tensor> {
    Tensor::fill(&[], &Scalar::Float(v), like.dtype(), like.device())
}

pub(super) fn zeros_like(x: &Tensor) -> Result<Tensor> {
    Tensor::zeros(x.dtype(), x.dims(), x.device())
}

pub(super) fn dims_i64(d: &[usize]) -> Vec<i64> {
    d.iter().map(|&x| x as i64).collect()
}

pub(super) fn reshape(x: &Tensor, dims: &[usize]) -> Result<Tensor> {
    ops::reshape(x, &dims_i64(dims), Semantics::Tf)
}

pub(super) fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    ops::binary(BinaryOp::Mul, a, b)
}

pub(super) fn neg(a: &Tensor) -> Result<Tensor> {
    ops::unary(UnaryOp::Neg, a)
}

pub(super) fn cmp(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    ops::binary(op, a, b)
}

pub(super) fn sum(x: &Tensor, axes: &[usize], keepdims: bool) -> Result<Tensor> {
    ops::reduce(ReduceOp::Sum, x, Some(&dims_i64(axes)), keepdims)
}

/// The axes a gradient of `out` shape sums over to reach shape `x`
/// (TensorFlow's `BroadcastGradientArgs`: the leading axes `x` lacks and
/// every axis where `x` is 1, the output's 1s too), or None when the shapes
/// match (`SmartBroadcastGradientArgs`'s `must_reduce`).
pub(super) fn broadcast_axes(x: &[usize], out: &[usize]) -> Option<Vec<usize>> {
    if x == out {
        return None;
    }
    let lead = out.len().saturating_sub(x.len());
    Some(
        (0..out.len())
            .filter(|&i| i < lead || x[i - lead] == 1)
            .collect(),
    )
}

/// `reshape(reduce_sum(g, rx), sx)` where `g` was broadcast from `x`'s shape.
pub(super) fn unbroadcast(g: Tensor, x: &Tensor) -> Result<Tensor> {
    match broadcast_axes(x.dims(), g.dims()) {
        None => Ok(g),
        Some(axes) => reshape(&sum(&g, &axes, false)?, x.dims()),
    }
}

/// Like [`unbroadcast`] with `keepdims=True` (`SelectV2`'s and `BroadcastTo`'s form).
pub(super) fn unbroadcast_keep(g: Tensor, x: &Tensor) -> Result<Tensor> {
    let axes = broadcast_axes(x.dims(), g.dims()).unwrap_or_default();
    let s = sum(&g, &axes, true)?;
    reshape(&s, x.dims())
}

/// The gradients of an op's inputs from its outputs' gradients (`grads`,
/// zeros filled in for outputs nobody used). `custom` runs a
/// `tf.custom_gradient` function.
pub(crate) fn gradient(
    op: &GradOp,
    v: &OpView,
    grads: &[Tensor],
    custom: &mut CustomFn,
) -> Result<Vec<Option<Tensor>>> {
    let x = &v.inputs[0];
    let g = &grads[0];
    Ok(match op {
        GradOp::ReadVariable | GradOp::Identity => vec![Some(g.clone())],
        GradOp::Unary(u) => vec![unary_grad(*u, x, &v.outputs[0], g)?],
        GradOp::Binary(b) => binary_grad(*b, v, g)?,
        GradOp::AddN => v.inputs.iter().map(|_| Some(g.clone())).collect(),
        GradOp::Cast => {
            if x.dtype().is_floating() && g.dtype().is_floating() {
                vec![Some(ops::cast(g, x.dtype())?)]
            } else {
                vec![None]
            }
        }
        // (a tape that records one refuses `gradient` first: `Tape::saw_complex`)
        GradOp::ComplexPart(op) => {
            return Err(Error::unimplemented(format!(
            "dist has no gradient for {}: gradients through complex tensors are not implemented",
            op.name()
        )))
        }
        GradOp::Select => {
            let c = &v.inputs[0];
            let zeros = Tensor::zeros(g.dtype(), &[], g.device())?;
            let gx = ops::where_select(c, g, &zeros)?;
            let gx = unbroadcast_keep(gx, &v.inputs[1])?;
            let gy = ops::where_select(c, &zeros, g)?;
            let gy = unbroadcast_keep(gy, &v.inputs[2])?;
            vec![None, Some(gx), Some(gy)]
        }
        GradOp::Reduce { op, axes, keepdims } => {
            vec![reduce_grad(*op, x, &v.outputs[0], axes, *keepdims, g)?]
        }
        GradOp::MatMul { ta, tb } => matmul_grad(v, *ta, *tb, g)?,
        GradOp::Reshape(_) => vec![Some(reshape(g, x.dims())?)],
        GradOp::Transpose(perm) => {
            let mut inv = vec![0i64; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inv[p] = i as i64;
            }
            vec![Some(ops::transpose(g, Some(&inv))?)]
        }
        GradOp::Concat(axis) => {
            let sizes: Vec<i64> = v.inputs.iter().map(|t| t.dims()[*axis] as i64).collect();
            ops::split(g, &ops::SplitSpec::Sizes(sizes), *axis as i64)?
                .into_iter()
                .map(Some)
                .collect()
        }
        GradOp::Pack(axis) => ops::unstack(g, *axis as i64)?
            .into_iter()
            .map(Some)
            .collect(),
        GradOp::Unpack(axis) => vec![Some(ops::stack(grads, *axis as i64)?)],
        GradOp::Split(axis) => vec![Some(ops::concat(grads, *axis as i64)?)],
        GradOp::Tile(multiples) => {
            // reshape to [m0, d0, m1, d1, …] and sum the multiples' axes
            let mut split_shape = Vec::with_capacity(2 * multiples.len());
            for (m, d) in multiples.iter().zip(x.dims()) {
                split_shape.push(*m);
                split_shape.push(*d);
            }
            let axes: Vec<usize> = (0..split_shape.len()).step_by(2).collect();
            vec![Some(sum(&reshape(g, &split_shape)?, &axes, false)?)]
        }
        GradOp::BroadcastTo => vec![Some(unbroadcast_keep(g.clone(), x)?), None],
        // TensorFlow's: the op undone (roll by -shift, reverse again)
        GradOp::Roll(shifts) => {
            let back: Vec<i64> = shifts
                .iter()
                .zip(x.dims())
                .map(|(&s, &d)| if d == 0 { 0 } else { (-s).rem_euclid(d as i64) })
                .collect();
            vec![Some(ops::reorder::roll(g, &back)?)]
        }
        GradOp::Reverse(axes) => vec![Some(ops::reorder::reverse(g, axes)?)],
        GradOp::Gather(axis, 0) => vec![Some(gather_grad(x, &v.inputs[1], *axis, g)?), None],
        GradOp::Gather(axis, b) => vec![
            Some(batch_gather_grad(x, &v.inputs[1], *axis, *b, g)?),
            None,
        ],
        GradOp::Index(items) => vec![Some(ops::index::index_grad(x.dims(), items, g)?)],
        // _StridedSliceGradGrad: the same slice of the gradient
        GradOp::IndexGrad(items, _) => vec![Some(ops::index(g, items, Semantics::Tf)?)],
        GradOp::Softmax { axis, log } => {
            let y = &v.outputs[0];
            let axes = [*axis];
            if *log {
                let softmax = ops::unary(UnaryOp::Exp, y)?;
                let s = ops::reduce(ReduceOp::Sum, g, Some(&axes), true)?;
                vec![Some(ops::sub(g, &mul(&s, &softmax)?)?)]
            } else {
                let s = ops::reduce(ReduceOp::Sum, &mul(g, y)?, Some(&axes), true)?;
                vec![Some(mul(&ops::sub(g, &s)?, y)?)]
            }
        }
        GradOp::Relu6 => {
            // Relu6Grad: dy where 0 < x < 6
            let inside = ops::binary(
                BinaryOp::LogicalAnd,
                &cmp(BinaryOp::Greater, x, &scalar(x, 0.0)?)?,
                &cmp(BinaryOp::Less, x, &scalar(x, 6.0)?)?,
            )?;
            vec![Some(mul(g, &ops::cast(&inside, g.dtype())?)?)]
        }
        GradOp::LeakyRelu(alpha) => {
            let pos = cmp(BinaryOp::Greater, x, &scalar(x, 0.0)?)?;
            let scaled = mul(g, &scalar(x, *alpha as f32 as f64)?)?;
            vec![Some(ops::where_select(&pos, g, &scaled)?)]
        }
        GradOp::Elu => {
            let y = &v.outputs[0];
            let neg = cmp(BinaryOp::Less, y, &scalar(y, 0.0)?)?;
            let lo = mul(g, &ops::add(y, &scalar(y, 1.0)?)?)?;
            vec![Some(ops::where_select(&neg, &lo, g)?)]
        }
        GradOp::Selu => {
            #[allow(clippy::excessive_precision)]
            let (scale, scale_alpha) = (1.050_700_987_355_480_5, 1.758_099_340_847_376_9);
            let y = &v.outputs[0];
            let neg = cmp(BinaryOp::Less, y, &scalar(y, 0.0)?)?;
            let lo = mul(g, &ops::add(y, &scalar(y, scale_alpha)?)?)?;
            let hi = mul(g, &scalar(y, scale)?)?;
            vec![Some(ops::where_select(&neg, &lo, &hi)?)]
        }
        // _SoftplusGrad (TensorFlow 2.21): dy * sigmoid(x)
        GradOp::Softplus => vec![Some(mul(g, &ops::unary(UnaryOp::Sigmoid, x)?)?)],
        GradOp::Cumsum {
            axis,
            exclusive,
            reverse,
        } => vec![Some(ops::scan::cumulative(
            g, *axis, *exclusive, !*reverse, false,
        )?)],
        GradOp::Cumprod {
            axis,
            exclusive,
            reverse,
        } => vec![Some(grad_more::cumprod(x, g, *axis, *exclusive, *reverse)?)],
        GradOp::TopK(_) => vec![Some(grad_more::top_k(x, &v.outputs[1], g)?)],
        GradOp::Sort { axis, .. } => vec![Some(grad_more::sort(x, &v.outputs[1], g, *axis)?)],
        GradOp::MatrixDiag => vec![Some(ops::matrix::diag_part(g, " name: diag_part")?)],
        // _MatrixDiagPartGrad: matrix_diag of square matrices, else the
        // gradient set on the diagonals of zeros (both recorded ops)
        GradOp::MatrixDiagPart => {
            let r = x.rank();
            if r >= 2 && x.dims()[r - 2] == x.dims()[r - 1] {
                vec![Some(ops::matrix::diag(g)?)]
            } else {
                vec![Some(ops::matrix::set_diag(&zeros_like(x)?, g)?)]
            }
        }
        GradOp::MatrixSetDiag => {
            let [gx, gd] = grad_more::set_diag(g, &v.inputs[1])?;
            vec![Some(gx), Some(gd)]
        }
        GradOp::Einsum(eq) => grad_more::einsum_grad(eq, v.inputs, g)?,
        // _L2LossGrad: x * grad
        GradOp::L2Loss => vec![Some(mul(x, g)?)],
        GradOp::Silu => {
            // swish's custom gradient: dy * (s * (1 + x * (1 - s))), s = sigmoid(x)
            let s = ops::unary(UnaryOp::Sigmoid, x)?;
            let one = scalar(x, 1.0)?;
            let inner = ops::add(&one, &mul(x, &ops::sub(&one, &s)?)?)?;
            vec![Some(mul(g, &mul(&s, &inner)?)?)]
        }
        GradOp::SigmoidGrad => {
            // _SigmoidGradGrad: (g·dy - 2·(g·dy)·y, SigmoidGrad(y, g))
            let gb = mul(g, &v.inputs[1])?;
            let two = mul(&scalar(&gb, 2.0)?, &gb)?;
            vec![
                Some(ops::sub(&gb, &mul(&two, x)?)?),
                Some(ops::nn::sigmoid_grad(x, g)?),
            ]
        }
        // an integer output carries no gradient
        GradOp::ArgReduce { .. } => vec![None],
        GradOp::BiasAdd { .. }
        | GradOp::Conv2D(_)
        | GradOp::Conv2DBackpropInput { .. }
        | GradOp::Conv2DBackpropFilter { .. }
        | GradOp::DepthwiseConv2D(_)
        | GradOp::DepthwiseBackpropInput { .. }
        | GradOp::DepthwiseBackpropFilter { .. }
        | GradOp::MaxPool(_)
        | GradOp::AvgPool(_)
        | GradOp::SquaredDifference
        | GradOp::DivNoNan
        | GradOp::ZeroSafe(_)
        | GradOp::Pad(_)
        | GradOp::MirrorPad { .. }
        | GradOp::Segment { .. }
        | GradOp::GatherNd
        | GradOp::ScatterNd(_)
        | GradOp::TensorScatter(_)
        | GradOp::SoftmaxXent
        | GradOp::SparseSoftmaxXent => super::grad_nn::gradient(op, v, grads)?,
        GradOp::Special(s) => {
            ops::special::gradient(*s, v.inputs, &v.outputs[0], g, v.skip, unbroadcast)?
        }
        GradOp::Linalg(op) => super::grad_linalg::gradient(*op, v, grads)?,
        GradOp::Custom(f) => custom(f, grads)?,
        // what an eager tape says for an op without a registered gradient
        GradOp::NoGrad(n) => {
            return Err(Error::new(
                ErrorKind::Lookup,
                format!("gradient registry has no entry for: {}", n.0),
            ))
        }
        GradOp::PoolGrad { .. } => return Err(no_gradient(op.name())),
    })
}

fn unary_grad(op: UnaryOp, x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Option<Tensor>> {
    Ok(Some(match op {
        UnaryOp::Neg => neg(g)?,
        UnaryOp::Abs => mul(g, &ops::unary(UnaryOp::Sign, x)?)?,
        UnaryOp::Square => mul(g, &mul(x, &scalar(x, 2.0)?)?)?,
        UnaryOp::Sqrt => {
            // SqrtGrad: (0.5 * dy) / y, 0 where dy is 0
            let r = ops::truediv(&mul(&scalar(g, 0.5)?, g)?, y)?;
            zero_where_zero(g, r)?
        }
        UnaryOp::Rsqrt => {
            // RsqrtGrad: -0.5 * (dy * y) * (y * y), 0 where dy is 0
            let r = mul(&mul(&scalar(g, -0.5)?, &mul(g, y)?)?, &mul(y, y)?)?;
            zero_where_zero(g, r)?
        }
        UnaryOp::Exp => mul(g, y)?,
        UnaryOp::Log => mul(g, &ops::unary(UnaryOp::Reciprocal, x)?)?,
        UnaryOp::Log1p => {
            let one_plus = ops::add(&scalar(x, 1.0)?, x)?;
            mul(g, &ops::unary(UnaryOp::Reciprocal, &one_plus)?)?
        }
        UnaryOp::Expm1 => mul(g, &ops::unary(UnaryOp::Exp, x)?)?,
        UnaryOp::Erf | UnaryOp::Erfc => {
            // grad * (±2/sqrt(pi)) * exp(-square(x))
            let c = std::f64::consts::FRAC_2_SQRT_PI;
            let c = if op == UnaryOp::Erf { c } else { -c };
            let e = ops::unary(UnaryOp::Exp, &neg(&ops::unary(UnaryOp::Square, x)?)?)?;
            mul(&mul(g, &scalar(g, c)?)?, &e)?
        }
        UnaryOp::Sin => mul(g, &ops::unary(UnaryOp::Cos, x)?)?,
        UnaryOp::Cos => mul(&neg(g)?, &ops::unary(UnaryOp::Sin, x)?)?,
        UnaryOp::Tanh => {
            // TanhGrad: dy * (1 - y * y)
            mul(g, &ops::sub(&scalar(y, 1.0)?, &mul(y, y)?)?)?
        }
        UnaryOp::Sigmoid => ops::nn::sigmoid_grad(y, g)?,
        UnaryOp::Relu => {
            // ReluGrad: dy * (y > 0)
            let pos = cmp(BinaryOp::Greater, y, &scalar(y, 0.0)?)?;
            mul(g, &ops::cast(&pos, g.dtype())?)?
        }
        UnaryOp::Reciprocal => {
            // ReciprocalGrad: -y * y * dy, 0 where dy is 0
            let r = mul(&mul(&neg(y)?, y)?, g)?;
            zero_where_zero(g, r)?
        }
        UnaryOp::Sign => zeros_like(x)?,
        // TensorFlow's math_grad: grad * square(reciprocal(cos(x)))
        UnaryOp::Tan => {
            let sec = ops::unary(UnaryOp::Reciprocal, &ops::unary(UnaryOp::Cos, x)?)?;
            mul(g, &ops::unary(UnaryOp::Square, &sec)?)?
        }
        // (-)grad * reciprocal(sqrt(1 - square(x)))
        UnaryOp::Asin | UnaryOp::Acos => {
            let x2 = ops::unary(UnaryOp::Square, x)?;
            let den = ops::unary(UnaryOp::Sqrt, &ops::sub(&scalar(x, 1.0)?, &x2)?)?;
            let inv = ops::unary(UnaryOp::Reciprocal, &den)?;
            let g = if op == UnaryOp::Acos {
                neg(g)?
            } else {
                g.clone()
            };
            mul(&g, &inv)?
        }
        // grad * reciprocal(1 + square(x)); atanh: reciprocal(1 - square(x))
        UnaryOp::Atan | UnaryOp::Atanh => {
            let x2 = ops::unary(UnaryOp::Square, x)?;
            let one = scalar(x, 1.0)?;
            let d = if op == UnaryOp::Atan {
                ops::add(&one, &x2)?
            } else {
                ops::sub(&one, &x2)?
            };
            mul(g, &ops::unary(UnaryOp::Reciprocal, &d)?)?
        }
        UnaryOp::Sinh => mul(g, &ops::unary(UnaryOp::Cosh, x)?)?,
        UnaryOp::Cosh => mul(g, &ops::unary(UnaryOp::Sinh, x)?)?,
        // grad / cosh(y), grad / sinh(y) of the output y
        UnaryOp::Asinh => ops::truediv(g, &ops::unary(UnaryOp::Cosh, y)?)?,
        UnaryOp::Acosh => ops::truediv(g, &ops::unary(UnaryOp::Sinh, y)?)?,
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::LogicalNot => return Ok(None),
    }))
}

/// `r` with 0 where `dy` is 0 (the fused gradient kernels' special case).
fn zero_where_zero(dy: &Tensor, r: Tensor) -> Result<Tensor> {
    let z = scalar(dy, 0.0)?;
    let is_zero = cmp(BinaryOp::Equal, dy, &z)?;
    if !is_zero
        .to_scalars()
        .iter()
        .any(|s| matches!(s, Scalar::Bool(true)))
    {
        return Ok(r);
    }
    ops::where_select(&is_zero, &zeros_like(&r)?, &r)
}

fn binary_grad(op: BinaryOp, v: &OpView, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let (x, y) = (&v.inputs[0], &v.inputs[1]);
    let (skip_x, skip_y) = (v.skip[0], v.skip[1]);
    let y_scalar_only = skip_y && y.rank() == 0;
    let pair = |gx: Option<Tensor>, gy: Option<Tensor>| -> Result<Vec<Option<Tensor>>> {
        let gx = match gx {
            Some(t) if !skip_x => Some(unbroadcast(t, x)?),
            _ => None,
        };
        let gy = match gy {
            Some(t) if !skip_y => Some(unbroadcast(t, y)?),
            _ => None,
        };
        Ok(vec![gx, gy])
    };
    match op {
        BinaryOp::Add => {
            if y_scalar_only {
                return Ok(vec![Some(g.clone()), None]);
            }
            pair(Some(g.clone()), Some(g.clone()))
        }
        BinaryOp::Sub => {
            if y_scalar_only {
                return Ok(vec![Some(g.clone()), None]);
            }
            let gy = if skip_y { None } else { Some(neg(g)?) };
            pair(Some(g.clone()), gy)
        }
        BinaryOp::Mul => {
            if y_scalar_only {
                return Ok(vec![Some(mul(g, y)?), None]);
            }
            let gx = if skip_x { None } else { Some(mul(g, y)?) };
            let gy = if skip_y { None } else { Some(mul(x, g)?) };
            pair(gx, gy)
        }
        BinaryOp::RealDiv => {
            let gx = ops::truediv(g, y)?;
            let gy = mul(g, &ops::truediv(&ops::truediv(&neg(x)?, y)?, y)?)?;
            pair(Some(gx), Some(gy))
        }
        BinaryOp::Pow => {
            let z = &v.outputs[0];
            let gx = |_: ()| -> Result<Tensor> {
                let ym1 = ops::sub(y, &scalar(y, 1.0)?)?;
                mul(&mul(g, y)?, &ops::pow(x, &ym1)?)
            };
            if y_scalar_only {
                return Ok(vec![Some(gx(())?), None]);
            }
            let gxv = if skip_x { None } else { Some(gx(())?) };
            let gyv = if skip_y {
                None
            } else {
                let mask = cmp(BinaryOp::Greater, x, &scalar(x, 0.0)?)?;
                let ones = Tensor::ones(x.dtype(), x.dims(), x.device())?;
                let safe_x = ops::where_select(&mask, x, &ones)?;
                let log_x =
                    ops::where_select(&mask, &ops::unary(UnaryOp::Log, &safe_x)?, &zeros_like(x)?)?;
                Some(mul(&mul(g, z)?, &log_x)?)
            };
            pair(gxv, gyv)
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            let sel = if op == BinaryOp::Maximum {
                BinaryOp::GreaterEqual
            } else {
                BinaryOp::LessEqual
            };
            let zeros = zeros_like(g)?;
            let xmask = cmp(sel, x, y)?;
            if y_scalar_only {
                return Ok(vec![Some(ops::where_select(&xmask, g, &zeros)?), None]);
            }
            let gx = if skip_x {
                None
            } else {
                Some(ops::where_select(&xmask, g, &zeros)?)
            };
            let gy = if skip_y {
                None
            } else {
                Some(ops::where_select(&xmask, &zeros, g)?)
            };
            pair(gx, gy)
        }
        BinaryOp::FloorMod => {
            // x - floor(x / y) * y
            let q = ops::binary(BinaryOp::FloorDiv, x, y)?;
            let gy = mul(g, &neg(&q)?)?;
            pair(Some(g.clone()), Some(gy))
        }
        BinaryOp::FloorDiv | BinaryOp::TruncateDiv => Ok(vec![None, None]),
        BinaryOp::Equal
        | BinaryOp::NotEqual
        | BinaryOp::Less
        | BinaryOp::LessEqual
        | BinaryOp::Greater
        | BinaryOp::GreaterEqual
        | BinaryOp::LogicalAnd
        | BinaryOp::LogicalOr => Ok(vec![None, None]),
    }
}
