//! Finite-difference checks of the `tf.nn` ops' gradients (`grad_nn.rs`),
//! in the style of `tests.rs`.

use super::tests::{check, spread, t};
use crate::runtime::ops::{self, nn_loss};
use crate::runtime::Tensor;

#[test]
fn bias_add() {
    let x = t(&spread(12, -0.5), &[2, 3, 2]);
    let b = t(&spread(2, 0.2), &[2]);
    check(
        "BiasAdd",
        &|xs| nn_loss::bias_add(&xs[0], &xs[1], false),
        &[x.clone(), b],
    );
    let c = t(&spread(3, 0.2), &[3]);
    check(
        "BiasAdd NCHW",
        &|xs| nn_loss::bias_add(&xs[0], &xs[1], true),
        &[x, c],
    );
}

#[test]
fn l2_loss_and_squared_difference() {
    let x = t(&spread(6, -0.7), &[2, 3]);
    // L2Loss: autodiff/tests_more.rs
    let y = t(&spread(3, 0.1), &[3]);
    check(
        "SquaredDifference",
        &|xs| nn_loss::squared_difference(&xs[0], &xs[1]),
        &[x.clone(), y],
    );
    let z = t(&spread(6, 0.4), &[2, 3]);
    check(
        "SquaredDifference same shape",
        &|xs| nn_loss::squared_difference(&xs[0], &xs[1]),
        &[x, z],
    );
}

#[test]
fn div_no_nan() {
    let x = t(&spread(6, -0.7), &[2, 3]);
    let y = t(&[0.5, -1.5, 2.0], &[3]);
    check(
        "DivNoNan",
        &|xs| nn_loss::div_no_nan(&xs[0], &xs[1]),
        &[x.clone(), y],
    );
    // a zero divisor: zero result, zero gradients there
    let z = t(&[0.0, 2.0, 0.0, -1.0, 0.0, 4.0], &[2, 3]);
    let q = nn_loss::div_no_nan(&x, &z).unwrap();
    let v: Vec<f64> = q.to_scalars().iter().map(|s| s.as_f64()).collect();
    assert_eq!((v[0], v[2], v[4]), (0.0, 0.0, 0.0));
}

#[test]
fn cross_entropies() {
    let logits = t(&spread(12, -1.0), &[3, 4]);
    let labels = Tensor::from_vec(vec![0i32, 3, 1], &[3]).unwrap();
    check(
        "SparseSoftmaxCrossEntropyWithLogits",
        &|xs| Ok(nn_loss::sparse_softmax_xent(&xs[0], &labels)?.swap_remove(0)),
        std::slice::from_ref(&logits),
    );
    // rows that sum to 1: the kernel's backprop (softmax - labels) assumes it
    let raw = spread(12, 0.1);
    let probs: Vec<f64> = raw
        .chunks(4)
        .flat_map(|r| {
            let s: f64 = r.iter().sum();
            r.iter().map(move |v| v / s)
        })
        .collect();
    let probs = t(&probs, &[3, 4]);
    check(
        "SoftmaxCrossEntropyWithLogits",
        &|xs| Ok(nn_loss::softmax_xent(&xs[0], &xs[1])?.swap_remove(0)),
        &[logits.clone(), probs],
    );
    // second order: the gradient of the logits' gradient
    check(
        "SparseSoftmaxCrossEntropyWithLogits (grad of grad)",
        &|xs| {
            let tape = super::Tape::new(false, true);
            tape.push();
            tape.watch(&xs[0]);
            let loss = nn_loss::sparse_softmax_xent(&xs[0], &labels)?.swap_remove(0);
            let w = t(&[1.0, -2.0, 0.5], &[3]);
            let y = ops::reduce(
                crate::runtime::ReduceOp::Sum,
                &ops::binary(crate::runtime::BinaryOp::Mul, &loss, &w)?,
                None,
                false,
            )?;
            tape.pop();
            let g = super::gradient_of(
                &tape,
                &[y],
                &[xs[0].id()],
                &[],
                false,
                &mut |_, _| unreachable!(),
            )?;
            Ok(g[0].clone().unwrap())
        },
        &[logits],
    );
}

#[test]
fn conv2d_and_pools() {
    use crate::runtime::ops::conv::{self, Padding, Window};
    let x = t(&spread(2 * 5 * 4 * 3, -0.5), &[2, 5, 4, 3]);
    let f = t(&spread(3 * 2 * 3 * 2, -0.3), &[3, 2, 3, 2]);
    for (strides, padding) in [
        ([1, 1], Padding::Valid),
        ([2, 1], Padding::Same),
        ([2, 3], Padding::Explicit([1, 0, 2, 1])),
    ] {
        let w = Window {
            size: [3, 2],
            strides,
            dilations: [1, 1],
            padding,
            dilated_grad: false,
        };
        check(
            "Conv2D",
            &|xs| conv::conv2d(&xs[0], &xs[1], &w),
            &[x.clone(), f.clone()],
        );
    }
    for (size, strides, padding) in [
        ([2, 2], [2, 2], Padding::Valid),
        ([3, 2], [2, 1], Padding::Same),
        ([2, 3], [1, 2], Padding::Explicit([1, 0, 0, 2])),
    ] {
        let w = Window {
            size,
            strides,
            dilations: [1, 1],
            padding,
            dilated_grad: false,
        };
        check(
            "MaxPool",
            &|xs| conv::pool2d(&xs[0], &w, true),
            std::slice::from_ref(&x),
        );
        if !matches!(padding, Padding::Explicit(_)) {
            check(
                "AvgPool",
                &|xs| conv::pool2d(&xs[0], &w, false),
                std::slice::from_ref(&x),
            );
        }
    }
}

#[test]
fn pads_gathers_scatters_segments() {
    use crate::runtime::ops::scatter::{self, ScatterMode};
    use crate::runtime::ops::segment_reduce::{segment, unsorted_segment, SegmentReduce};
    let x = t(&spread(12, -0.5), &[3, 4]);
    let pads = [[1, 2], [0, 3]];
    check(
        "Pad",
        &|xs| scatter::pad(&xs[0], &pads, &[2, 2], None),
        std::slice::from_ref(&x),
    );
    for symmetric in [false, true] {
        check(
            "MirrorPad",
            &|xs| scatter::mirror_pad(&xs[0], &[[2, 1], [3, 2]], &[2, 2], symmetric),
            std::slice::from_ref(&x),
        );
    }
    let idx = Tensor::from_vec(vec![0i32, 1, 2, 3, 0, 1], &[3, 2]).unwrap();
    check(
        "GatherNd",
        &|xs| scatter::gather_nd(&xs[0], &idx),
        std::slice::from_ref(&x),
    );
    let u = t(&spread(3, 0.2), &[3]);
    check(
        "ScatterNd",
        &|xs| scatter::scatter_nd(&idx, &xs[0], &[3, 4]),
        std::slice::from_ref(&u),
    );
    let distinct = Tensor::from_vec(vec![0i32, 1, 2, 3, 1, 0], &[3, 2]).unwrap();
    for mode in [
        ScatterMode::Update,
        ScatterMode::Add,
        ScatterMode::Sub,
        ScatterMode::Max,
        ScatterMode::Min,
    ] {
        check(
            mode.tensor_op(),
            &|xs| scatter::tensor_scatter(&xs[0], &distinct, &xs[1], mode),
            &[x.clone(), u.clone()],
        );
    }
    let ids = Tensor::from_vec(vec![0i32, 2, 0], &[3]).unwrap();
    for op in [SegmentReduce::Max, SegmentReduce::Min, SegmentReduce::Prod] {
        check(
            op.name(false),
            &|xs| {
                unsorted_segment(op, &xs[0], &ids, 3).map(|y| {
                    // empty segments hold ±inf: leave them out of the weighted sum
                    ops::gather(&y, &Tensor::from_vec(vec![0i32, 2], &[2]).unwrap(), 0).unwrap()
                })
            },
            std::slice::from_ref(&x),
        );
    }
    // a dropped (negative) id gets no gradient
    let dropping = Tensor::from_vec(vec![1i32, -1, 0], &[3]).unwrap();
    check(
        "UnsortedSegmentSum",
        &|xs| unsorted_segment(SegmentReduce::Sum, &xs[0], &dropping, 2),
        std::slice::from_ref(&x),
    );
    // sorted ids, with an empty segment (1)
    let sorted = Tensor::from_vec(vec![0i32, 2, 2], &[3]).unwrap();
    for op in [
        SegmentReduce::Sum,
        SegmentReduce::Max,
        SegmentReduce::Min,
        SegmentReduce::Prod,
        SegmentReduce::Mean,
    ] {
        check(
            op.name(true),
            &|xs| segment(op, &xs[0], &sorted),
            std::slice::from_ref(&x),
        );
    }
}

#[test]
fn conv2d_backprops() {
    use crate::runtime::ops::conv::{self, Padding, Window};
    let x = t(&spread(2 * 5 * 4 * 3, -0.5), &[2, 5, 4, 3]);
    let f = t(&spread(3 * 2 * 3 * 2, -0.3), &[3, 2, 3, 2]);
    let w = Window {
        size: [3, 2],
        strides: [2, 1],
        dilations: [1, 1],
        padding: Padding::Same,
        dilated_grad: false,
    };
    let dy = conv::conv2d(&x, &f, &w).unwrap();
    let dy = t(&spread(dy.numel(), 0.1), dy.dims());
    check(
        "Conv2DBackpropInput",
        &|xs| conv::conv2d_backprop_input(x.dims(), &xs[0], &xs[1], &w),
        &[f.clone(), dy.clone()],
    );
    check(
        "Conv2DBackpropFilter",
        &|xs| conv::conv2d_backprop_filter(&xs[0], f.dims(), &xs[1], &w),
        &[x.clone(), dy],
    );
}

#[test]
fn depthwise_conv2d() {
    use crate::runtime::ops::conv::{Padding, Window};
    use crate::runtime::ops::depthwise;
    let x = t(&spread(2 * 5 * 4 * 3, -0.5), &[2, 5, 4, 3]);
    let f = t(&spread(3 * 2 * 3 * 2, -0.3), &[3, 2, 3, 2]);
    for (strides, dilations, padding) in [
        ([1, 1], [1, 1], Padding::Valid),
        ([2, 1], [1, 1], Padding::Same),
        ([1, 1], [2, 2], Padding::Same),
    ] {
        let w = Window {
            size: [3, 2],
            strides,
            dilations,
            padding,
            dilated_grad: true,
        };
        check(
            "DepthwiseConv2dNative",
            &|xs| depthwise::depthwise_conv2d(&xs[0], &xs[1], &w),
            &[x.clone(), f.clone()],
        );
        let dy = depthwise::depthwise_conv2d(&x, &f, &w).unwrap();
        let dy = t(&spread(dy.numel(), 0.1), dy.dims());
        check(
            "DepthwiseConv2dNativeBackpropInput",
            &|xs| depthwise::depthwise_backprop_input(x.dims(), &xs[0], &xs[1], &w),
            &[f.clone(), dy.clone()],
        );
        check(
            "DepthwiseConv2dNativeBackpropFilter",
            &|xs| depthwise::depthwise_backprop_filter(&xs[0], f.dims(), &xs[1], &w),
            &[x.clone(), dy],
        );
    }
}
