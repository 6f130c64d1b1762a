//! The gradients of the `tf.nn` ops ([`GradOp::BiasAdd`], `L2Loss`,
//! `SquaredDifference`, the softmax cross-entropies), each the op sequence
//! of TensorFlow's registered gradient in `nn_grad.py` / `math_grad.py`.
//! The registry's dispatch is in `grad.rs`.

use super::grad::{scalar, unbroadcast, GradOp, OpView};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{BinaryOp, Semantics, UnaryOp};
use crate::runtime::ops;
use crate::runtime::ops::conv::Window;
use crate::runtime::ops::depthwise;
use crate::runtime::ops::scatter::ScatterMode;
use crate::runtime::ops::segment_reduce::SegmentReduce;
use crate::runtime::ops::IndexItem;
use crate::runtime::tensor::Tensor;

fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    ops::binary(BinaryOp::Mul, a, b)
}

/// `_BroadcastMul(vec, mat)`: `expand_dims(vec, -1) * mat`.
fn broadcast_mul(vec: &Tensor, mat: &Tensor) -> Result<Tensor> {
    mul(&ops::expand_dims(vec, -1)?, mat)
}

/// Whether a gradient holds anything but zeros (TensorFlow skips the
/// second-order term of the cross-entropies for an output nobody used,
/// which backprop fills with zeros).
fn nonzero(g: &Tensor) -> bool {
    use crate::runtime::dtype::Scalar;
    g.to_scalars().iter().any(|s| match s {
        Scalar::Float(f) => *f != 0.0,
        Scalar::Int(i) => *i != 0,
        _ => false,
    })
}

/// The cross-entropies' gradient for the logits: `_BroadcastMul(grad_loss,
/// backprop)`, plus the softmax's derivative applied to `grad_grad` when
/// the backprop output itself was differentiated.
fn xent_logits_grad(v: &OpView, grads: &[Tensor]) -> Result<Tensor> {
    let logits = &v.inputs[0];
    let mut grad = broadcast_mul(&grads[0], &v.outputs[1])?;
    let gg = &grads[1];
    if nonzero(gg) {
        let softmax = ops::nn::softmax(logits, -1, false)?;
        let inner = ops::matmul(
            &ops::expand_dims(gg, 1)?,
            &ops::expand_dims(&softmax, 2)?,
            false,
            false,
        )?;
        let term = mul(&ops::sub(gg, &ops::squeeze(&inner, Some(&[1]))?)?, &softmax)?;
        grad = ops::add(&grad, &term)?;
    }
    Ok(grad)
}

/// `_GatherDropNegatives(params, ids)`: `gather(params, max(ids, 0))` with
/// zeros where an id is negative; also the clipped ids and the mask.
fn gather_drop_negatives(
    params: &Tensor,
    ids: &Tensor,
    data_rank: usize,
) -> Result<(Tensor, Tensor, Tensor)> {
    let zero_ids = Tensor::zeros(ids.dtype(), &[], ids.device())?;
    let clipped = ops::binary(BinaryOp::Maximum, ids, &zero_ids)?;
    let gathered = ops::gather(params, &clipped, 0)?;
    let positive = ops::binary(BinaryOp::GreaterEqual, ids, &zero_ids)?;
    let mut dims: Vec<i64> = ids.dims().iter().map(|&d| d as i64).collect();
    dims.resize(data_rank, 1);
    let positive = ops::reshape(&positive, &dims, Semantics::Tf)?;
    let ones = Tensor::ones(DType::Bool, gathered.dims(), gathered.device())?;
    let positive = ops::binary(BinaryOp::LogicalAnd, &positive, &ones)?;
    let zeros = Tensor::zeros(gathered.dtype(), gathered.dims(), gathered.device())?;
    let out = ops::where_select(&positive, &gathered, &zeros)?;
    Ok((out, clipped, positive))
}

/// The segment ops' gradients: `_SegmentSumGrad`, `_SegmentMeanGrad`,
/// `_UnsortedSegmentSumGrad`, and `_(Unsorted)SegmentMinOrMaxGrad` and
/// `_(Unsorted)SegmentProdGrad` (a sorted op's as its unsorted twin's over
/// as many segments).
fn segment_grad(op: SegmentReduce, num: Option<i64>, v: &OpView, g: &Tensor) -> Result<Tensor> {
    let (data, ids, y) = (&v.inputs[0], &v.inputs[1], &v.outputs[0]);
    let rank = data.rank();
    match (op, num) {
        (SegmentReduce::Sum, None) => return ops::gather(g, ids, 0),
        (SegmentReduce::Sum, Some(_)) => return Ok(gather_drop_negatives(g, ids, rank)?.0),
        (SegmentReduce::Mean, _) => {
            // `_SegmentMeanGrad`: the gradient over each segment's size
            let mut dims = ids.dims().to_vec();
            dims.resize(rank, 1);
            let ones = Tensor::ones(g.dtype(), &dims, g.device())?;
            let scaled = ops::truediv(g, &ops::segment::segment_sum(&ones, ids)?)?;
            return ops::gather(&scaled, ids, 0);
        }
        _ => {}
    }
    // a sorted op's segments: as many as its output rows
    let num = num.unwrap_or(y.dims().first().map_or(0, |&d| d as i64));
    if op == SegmentReduce::Prod {
        let zero = scalar(data, 0.0)?;
        let is_zero = ops::binary(BinaryOp::Equal, data, &zero)?;
        let num_zeros =
            ops::segment::unsorted_segment_sum(&ops::cast(&is_zero, DType::Int32)?, ids, num)?;
        let one_i = Tensor::ones(DType::Int32, &[], g.device())?;
        let many = ops::binary(BinaryOp::Greater, &num_zeros, &one_i)?;
        let g = ops::where_select(&many, &Tensor::zeros(g.dtype(), g.dims(), g.device())?, g)?;
        let ones = Tensor::ones(data.dtype(), data.dims(), data.device())?;
        let non_zero_data = ops::where_select(&is_zero, &ones, data)?;
        let non_zero_prod = ops::segment_reduce::unsorted_segment(op, &non_zero_data, ids, num)?;
        let zero_ids = Tensor::zeros(ids.dtype(), &[], ids.device())?;
        let clipped = ops::binary(BinaryOp::Maximum, ids, &zero_ids)?;
        let gathered_prod = ops::gather(y, &clipped, 0)?;
        let gathered_non_zero = ops::gather(&non_zero_prod, &clipped, 0)?;
        let divided = ops::truediv(&gathered_prod, data)?;
        let partial = ops::where_select(&is_zero, &gathered_non_zero, &divided)?;
        let (gathered_grad, _, _) = gather_drop_negatives(&g, ids, rank)?;
        return mul(&gathered_grad, &partial);
    }
    let (gathered_out, _, positive) = gather_drop_negatives(y, ids, rank)?;
    let selected = ops::binary(
        BinaryOp::LogicalAnd,
        &ops::binary(BinaryOp::Equal, data, &gathered_out)?,
        &positive,
    )?;
    let num_selected =
        ops::segment::unsorted_segment_sum(&ops::cast(&selected, g.dtype())?, ids, num)?;
    let weighted = ops::truediv(g, &num_selected)?;
    let (gathered_grads, _, _) = gather_drop_negatives(&weighted, ids, rank)?;
    let zeros = Tensor::zeros(
        gathered_grads.dtype(),
        gathered_grads.dims(),
        gathered_grads.device(),
    )?;
    ops::where_select(&selected, &gathered_grads, &zeros)
}

/// TensorFlow's CPU convolution backprops refuse dilations (unless the
/// convolution ran through space-to-batch, `tf.nn.convolution`'s path).
fn check_dilations(w: &Window, input_skipped: bool, like: &Tensor) -> Result<()> {
    if w.dilations == [1, 1] || w.dilated_grad {
        return Ok(());
    }
    let op = if input_skipped {
        "Conv2DBackpropFilter"
    } else {
        "Conv2DBackpropInput"
    };
    Err(ops::kernel_error(
        op,
        &like.device(),
        "Current CPU implementations do not yet support dilation rates larger than 1.",
        " name: ",
    ))
}

/// The `TensorScatter*` gradients (`array_grad.py`).
fn tensor_scatter_grad(mode: ScatterMode, v: &OpView, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let (x, indices, y) = (&v.inputs[0], &v.inputs[1], &v.inputs[2]);
    let gather = |t: &Tensor| ops::scatter::gather_nd(t, indices);
    Ok(match mode {
        ScatterMode::Update => {
            let zeros = Tensor::zeros(g.dtype(), y.dims(), y.device())?;
            let gx = ops::scatter::tensor_scatter(g, indices, &zeros, ScatterMode::Update)?;
            vec![Some(gx), None, Some(gather(g)?)]
        }
        ScatterMode::Add => vec![Some(g.clone()), None, Some(gather(g)?)],
        ScatterMode::Sub => vec![
            Some(g.clone()),
            None,
            Some(ops::unary(UnaryOp::Neg, &gather(g)?)?),
        ],
        ScatterMode::Max | ScatterMode::Min => {
            // _TensorScatterMinOrMaxGrad: the gradient split between ties
            let z = &v.outputs[0];
            let eq = |a: &Tensor, b: &Tensor| -> Result<Tensor> {
                ops::cast(&ops::binary(BinaryOp::Equal, a, b)?, g.dtype())
            };
            let x_ind = eq(x, z)?;
            let y_out = gather(z)?;
            let y_ind = eq(y, &y_out)?;
            let ys_ind = ops::scatter::scatter_nd(indices, &y_ind, x.dims())?;
            let ind = ops::add(&x_ind, &ys_ind)?;
            let gx = ops::truediv(&mul(g, &x_ind)?, &ind)?;
            let gy = mul(&gather(&ops::truediv(g, &ind)?)?, &y_ind)?;
            vec![Some(gx), None, Some(gy)]
        }
    })
}

pub(super) fn gradient(op: &GradOp, v: &OpView, grads: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
    let x = &v.inputs[0];
    let g = &grads[0];
    Ok(match op {
        GradOp::BiasAdd { nchw } => vec![
            Some(g.clone()),
            Some(ops::nn_loss::bias_add_grad(g, *nchw)?),
        ],
        GradOp::Conv2D(w) => {
            let f = &v.inputs[1];
            check_dilations(w, v.skip[0], x)?;
            let gx = if v.skip[0] {
                None
            } else {
                Some(ops::conv::conv2d_backprop_input(x.dims(), f, g, w)?)
            };
            let gf = if v.skip[1] {
                None
            } else {
                Some(ops::conv::conv2d_backprop_filter(x, f.dims(), g, w)?)
            };
            vec![gx, gf]
        }
        GradOp::Conv2DBackpropInput { w, .. } => {
            // _Conv2DBackpropInputGrad: inputs filter, out_backprop
            let (f, dy) = (&v.inputs[0], &v.inputs[1]);
            check_dilations(w, v.skip[0], f)?;
            let gf = if v.skip[0] {
                None
            } else {
                Some(ops::conv::conv2d_backprop_filter(g, f.dims(), dy, w)?)
            };
            let gdy = if v.skip[1] {
                None
            } else {
                Some(ops::conv::conv2d(g, f, w)?)
            };
            vec![gf, gdy]
        }
        GradOp::Conv2DBackpropFilter { w, .. } => {
            // _Conv2DBackpropFilterGrad: inputs input, out_backprop
            let dy = &v.inputs[1];
            check_dilations(w, v.skip[0], x)?;
            let gx = if v.skip[0] {
                None
            } else {
                Some(ops::conv::conv2d_backprop_input(x.dims(), g, dy, w)?)
            };
            let gdy = if v.skip[1] {
                None
            } else {
                Some(ops::conv::conv2d(x, g, w)?)
            };
            vec![gx, gdy]
        }
        GradOp::DepthwiseConv2D(w) => {
            let f = &v.inputs[1];
            let gx = match v.skip[0] {
                true => None,
                false => Some(depthwise::depthwise_backprop_input(x.dims(), f, g, w)?),
            };
            let gf = match v.skip[1] {
                true => None,
                false => Some(depthwise::depthwise_backprop_filter(x, f.dims(), g, w)?),
            };
            vec![gx, gf]
        }
        GradOp::DepthwiseBackpropInput { w, .. } => {
            let (f, dy) = (&v.inputs[0], &v.inputs[1]);
            let gf = match v.skip[0] {
                true => None,
                false => Some(depthwise::depthwise_backprop_filter(g, f.dims(), dy, w)?),
            };
            let gdy = match v.skip[1] {
                true => None,
                false => Some(depthwise::depthwise_conv2d(g, f, w)?),
            };
            vec![gf, gdy]
        }
        GradOp::DepthwiseBackpropFilter { w, .. } => {
            let dy = &v.inputs[1];
            let gx = match v.skip[0] {
                true => None,
                false => Some(depthwise::depthwise_backprop_input(x.dims(), g, dy, w)?),
            };
            let gdy = match v.skip[1] {
                true => None,
                false => Some(depthwise::depthwise_conv2d(x, g, w)?),
            };
            vec![gx, gdy]
        }
        GradOp::ZeroSafe(z) => {
            ops::zero_safe::gradient(*z, x, &v.inputs[1], g, [v.skip[0], v.skip[1]], unbroadcast)?
        }
        GradOp::MaxPool(w) => vec![Some(ops::conv::pool2d_grad(x, g, w, true)?)],
        GradOp::AvgPool(w) => vec![Some(ops::conv::pool2d_grad(x, g, w, false)?)],
        // _DivNoNanGrad: div_no_nan(grad, y) for x, and
        // grad * div_no_nan(div_no_nan(-x, y), y) for y, each summed over
        // its broadcast axes
        GradOp::DivNoNan => {
            let y = &v.inputs[1];
            let gx = if v.skip[0] {
                None
            } else {
                Some(unbroadcast(ops::nn_loss::div_no_nan(g, y)?, x)?)
            };
            let gy = if v.skip[1] {
                None
            } else {
                let neg_x = ops::unary(UnaryOp::Neg, x)?;
                let inner = ops::nn_loss::div_no_nan(&ops::nn_loss::div_no_nan(&neg_x, y)?, y)?;
                Some(unbroadcast(mul(g, &inner)?, y)?)
            };
            vec![gx, gy]
        }
        GradOp::SquaredDifference => {
            let y = &v.inputs[1];
            // scalar_mul(2.0, grad) * (x - y)
            let xg = mul(&mul(&scalar(g, 2.0)?, g)?, &ops::sub(x, y)?)?;
            if x.dims() == y.dims() && x.dims() == g.dims() {
                let neg = ops::unary(UnaryOp::Neg, &xg)?;
                return Ok(vec![Some(xg), Some(neg)]);
            }
            let gx = if v.skip[0] {
                None
            } else {
                Some(unbroadcast(xg.clone(), x)?)
            };
            let gy = if v.skip[1] {
                None
            } else {
                Some(unbroadcast(ops::unary(UnaryOp::Neg, &xg)?, y)?)
            };
            vec![gx, gy]
        }
        GradOp::SparseSoftmaxXent => vec![Some(xent_logits_grad(v, grads)?), None],
        GradOp::Pad(pads) => {
            // Slice(grad, begin=paddings[:, 0], size=shape(x))
            let items: Vec<IndexItem> = pads
                .iter()
                .zip(x.dims())
                .map(|(p, &d)| IndexItem::Slice {
                    start: Some(p[0] as i64),
                    stop: Some((p[0] + d) as i64),
                    step: None,
                })
                .collect();
            let gx = ops::index(g, &items, Semantics::Tf)?;
            let mut out = vec![Some(gx)];
            out.resize(v.inputs.len(), None);
            out
        }
        GradOp::MirrorPad { pads, symmetric } => {
            // MirrorPadGrad: each output's gradient summed into its source
            let (_, src) = ops::scatter::mirror_sources(x.dims(), pads, *symmetric)?;
            let src: Vec<i64> = src.into_iter().map(|i| i as i64).collect();
            let n = src.len();
            let ids = Tensor::from_vec(src, &[n])?.to_device(g.device())?;
            let flat = ops::reshape(g, &[-1], Semantics::Tf)?;
            let summed = ops::segment::unsorted_segment_sum(&flat, &ids, x.numel() as i64)?;
            let dims: Vec<i64> = x.dims().iter().map(|&d| d as i64).collect();
            vec![Some(ops::reshape(&summed, &dims, Semantics::Tf)?)]
        }
        GradOp::GatherNd => {
            let indices = &v.inputs[1];
            vec![Some(ops::scatter::scatter_nd(indices, g, x.dims())?), None]
        }
        GradOp::ScatterNd(_) => {
            let indices = &v.inputs[0];
            vec![None, Some(ops::scatter::gather_nd(g, indices)?)]
        }
        GradOp::TensorScatter(mode) => tensor_scatter_grad(*mode, v, g)?,
        GradOp::Segment { op, num } => vec![Some(segment_grad(*op, *num, v, g)?), None],
        GradOp::SoftmaxXent => {
            let labels = &v.inputs[1];
            // the kernel broadcasts logits and labels against each other;
            // each gradient is summed back to its input's shape
            let gl = unbroadcast(xent_logits_grad(v, grads)?, x)?;
            let gy = if v.skip[1] {
                None
            } else {
                let neg_log_softmax = ops::unary(UnaryOp::Neg, &ops::nn::softmax(x, -1, true)?)?;
                Some(unbroadcast(broadcast_mul(g, &neg_log_softmax)?, labels)?)
            };
            vec![Some(gl), gy]
        }
        _ => {
            return Err(Error::internal(format!(
                "grad_nn: no gradient here for {}",
                op.name()
            )))
        }
    })
}
