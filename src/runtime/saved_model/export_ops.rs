//! TensorFlow's node for each op a traced graph records ([`GradOp`]): its
//! op type, the attributes TensorFlow requires, and its inputs with the
//! `Const`s TensorFlow's op takes where dist keeps a Rust value.

use super::export::{i32_scalar, i32s, ints, ty, Attrs, In, TfNode};
use super::proto::attr_value::Value as AV;
use crate::runtime::autodiff::GradOp;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::graph::{Graph, Port};
use crate::runtime::ops::complex::ComplexOp;
use crate::runtime::ops::conv::{Padding, Window};
use crate::runtime::ops::IndexItem;
use crate::runtime::tensor::Tensor;

/// The shape a reshape-like node produces, as `Reshape`'s shape input
/// (`-1` for its one unknown dim).
fn reshape_target(g: &Graph, i: usize) -> Result<Vec<i64>> {
    let s = g.static_port((i, 0));
    let d = s.ok_or_else(|| {
        Error::unimplemented("a reshape to an unknown rank cannot be saved by dist yet")
    })?;
    if d.iter().filter(|x| x.is_none()).count() > 1 {
        return Err(Error::unimplemented(
            "a reshape to a shape with more than one unknown dim cannot be saved by dist yet",
        ));
    }
    Ok(d.iter().map(|x| x.map_or(-1, |v| v as i64)).collect())
}

/// The known dims of node output `p` (an error naming `what` when some are
/// unknown).
fn known_dims(g: &Graph, p: Port, what: &str) -> Result<Vec<usize>> {
    g.static_port(p)
        .and_then(|d| d.into_iter().collect::<Option<Vec<_>>>())
        .ok_or_else(|| {
            Error::unimplemented(format!(
                "{what} of a shape with unknown dims cannot be saved by dist yet"
            ))
        })
}

fn window_attrs(w: &Window, pool: bool) -> Vec<(&'static str, AV)> {
    let [sh, sw] = w.strides;
    let mut a = vec![("strides", ints([1, sh as i64, sw as i64, 1]))];
    let padding = match w.padding {
        Padding::Same => "SAME",
        Padding::Valid => "VALID",
        Padding::Explicit(_) => "EXPLICIT",
    };
    a.push(("padding", AV::S(padding.as_bytes().to_vec())));
    if let Padding::Explicit([t, b, l, r]) = w.padding {
        a.push((
            "explicit_paddings",
            ints([0, 0, t as i64, b as i64, l as i64, r as i64, 0, 0]),
        ));
    }
    if pool {
        let [kh, kw] = w.size;
        a.push(("ksize", ints([1, kh as i64, kw as i64, 1])));
    } else {
        let [dh, dw] = w.dilations;
        a.push(("dilations", ints([1, dh as i64, dw as i64, 1])));
    }
    a
}

/// `StridedSlice`'s begin, end and strides and its masks for a subscript.
fn strided_slice(items: &[IndexItem]) -> Result<(Vec<In>, Attrs)> {
    let (mut begin, mut end, mut strides) = (vec![], vec![], vec![]);
    let (mut bm, mut em, mut el, mut na, mut sh) = (0i64, 0i64, 0i64, 0i64, 0i64);
    for (k, item) in items.iter().enumerate() {
        let bit = 1i64 << k;
        match item {
            IndexItem::Int(i) => {
                begin.push(*i);
                end.push(if *i == -1 { 0 } else { i + 1 });
                strides.push(1);
                sh |= bit;
            }
            IndexItem::Slice { start, stop, step } => {
                begin.push(start.unwrap_or(0));
                end.push(stop.unwrap_or(0));
                strides.push(step.unwrap_or(1));
                if start.is_none() {
                    bm |= bit;
                }
                if stop.is_none() {
                    em |= bit;
                }
            }
            IndexItem::NewAxis => {
                begin.push(0);
                end.push(0);
                strides.push(1);
                na |= bit;
            }
            IndexItem::Ellipsis => {
                begin.push(0);
                end.push(0);
                strides.push(1);
                el |= bit;
            }
        }
    }
    let inputs = vec![
        In::Graph(0),
        In::Const("stack", i32s(&begin)?),
        In::Const("stack_1", i32s(&end)?),
        In::Const("stack_2", i32s(&strides)?),
    ];
    let mut attrs = vec![("Index", ty(DType::Int32))];
    for (k, v) in [
        ("begin_mask", bm),
        ("end_mask", em),
        ("ellipsis_mask", el),
        ("new_axis_mask", na),
        ("shrink_axis_mask", sh),
    ] {
        if v != 0 {
            attrs.push((k, AV::I(v)));
        }
    }
    Ok((inputs, attrs))
}

/// TensorFlow's node for the recorded op of node `i`.
pub(super) fn tf_node(g: &Graph, i: usize, op: &GradOp) -> Result<TfNode> {
    let n = &g.nodes[i];
    let dtype_in = |k: usize| -> DType {
        n.inputs
            .get(k)
            .and_then(|p| g.nodes[p.0].outputs.get(p.1))
            .map_or(DType::Float32, |o| o.0)
    };
    let rank_in = |k: usize| -> usize {
        n.inputs
            .get(k)
            .and_then(|p| g.nodes[p.0].outputs.get(p.1))
            .map_or(0, |o| o.1.rank())
    };
    let t = ty(dtype_in(0));
    let all: Vec<In> = (0..n.inputs.len()).map(In::Graph).collect();
    let simple = |op: &'static str, attrs: Vec<(&'static str, AV)>| TfNode {
        op,
        attrs,
        inputs: (0..n.inputs.len()).map(In::Graph).collect(),
    };
    let bool_in = |op: &'static str| matches!(op, "LogicalNot" | "LogicalAnd" | "LogicalOr");
    Ok(match op {
        GradOp::ReadVariable | GradOp::Identity => simple("Identity", vec![("T", t)]),
        GradOp::Unary(u) => simple(
            u.name(),
            if bool_in(u.name()) {
                vec![]
            } else {
                vec![("T", t)]
            },
        ),
        GradOp::Binary(b) => simple(
            b.name(),
            if bool_in(b.name()) {
                vec![]
            } else {
                vec![("T", t)]
            },
        ),
        GradOp::SquaredDifference => simple("SquaredDifference", vec![("T", t)]),
        GradOp::DivNoNan => simple("DivNoNan", vec![("T", t)]),
        GradOp::ZeroSafe(op) => simple(op.name(), vec![("T", t)]),
        GradOp::Special(op) => simple(op.name(), vec![("T", t)]),
        GradOp::AddN => simple("AddN", vec![("N", AV::I(n.inputs.len() as i64)), ("T", t)]),
        GradOp::Cast => {
            let to = n.outputs.first().map_or(DType::Float32, |o| o.0);
            simple("Cast", vec![("SrcT", t), ("DstT", ty(to))])
        }
        GradOp::ComplexPart(op) => {
            let out = n.outputs.first().map_or(DType::Complex64, |o| o.0);
            match op {
                ComplexOp::Complex => simple("Complex", vec![("T", t), ("Tout", ty(out))]),
                ComplexOp::Conj => simple("Conj", vec![("T", t)]),
                _ => simple(op.name(), vec![("T", t), ("Tout", ty(out))]),
            }
        }
        GradOp::Select => simple("SelectV2", vec![("T", ty(dtype_in(1)))]),
        GradOp::Reduce { op, axes, keepdims } => {
            let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            let mut attrs = vec![("Tidx", ty(DType::Int32))];
            if !matches!(op.name(), "Any" | "All") {
                attrs.push(("T", t));
            }
            if *keepdims {
                attrs.push(("keep_dims", AV::B(true)));
            }
            TfNode {
                op: op.name(),
                attrs,
                inputs: vec![In::Graph(0), In::Const("reduction_indices", i32s(&axes)?)],
            }
        }
        GradOp::MatMul { ta, tb } => {
            if rank_in(0) == 2 && rank_in(1) == 2 {
                let mut attrs = vec![("T", t)];
                if *ta {
                    attrs.push(("transpose_a", AV::B(true)));
                }
                if *tb {
                    attrs.push(("transpose_b", AV::B(true)));
                }
                simple("MatMul", attrs)
            } else {
                let mut attrs = vec![("T", t)];
                if *ta {
                    attrs.push(("adj_x", AV::B(true)));
                }
                if *tb {
                    attrs.push(("adj_y", AV::B(true)));
                }
                simple("BatchMatMulV2", attrs)
            }
        }
        GradOp::Reshape(_) => TfNode {
            op: "Reshape",
            attrs: vec![("T", t), ("Tshape", ty(DType::Int32))],
            inputs: vec![
                In::Graph(0),
                In::Const("shape", i32s(&reshape_target(g, i)?)?),
            ],
        },
        GradOp::Transpose(perm) => {
            let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
            TfNode {
                op: "Transpose",
                attrs: vec![("T", t), ("Tperm", ty(DType::Int32))],
                inputs: vec![In::Graph(0), In::Const("perm", i32s(&perm)?)],
            }
        }
        GradOp::Concat(axis) => {
            let mut inputs = all;
            inputs.push(In::Const("axis", i32_scalar(*axis as i64)?));
            TfNode {
                op: "ConcatV2",
                attrs: vec![
                    ("N", AV::I(n.inputs.len() as i64)),
                    ("T", t),
                    ("Tidx", ty(DType::Int32)),
                ],
                inputs,
            }
        }
        GradOp::Pack(axis) => simple(
            "Pack",
            vec![
                ("N", AV::I(n.inputs.len() as i64)),
                ("T", t),
                ("axis", AV::I(*axis as i64)),
            ],
        ),
        GradOp::Unpack(axis) => simple(
            "Unpack",
            vec![
                ("num", AV::I(n.outputs.len() as i64)),
                ("T", t),
                ("axis", AV::I(*axis as i64)),
            ],
        ),
        GradOp::Split(axis) => {
            let sizes = (0..n.outputs.len())
                .map(|k| {
                    known_dims(g, (i, k), "a split")
                        .map(|d| d.get(*axis).copied().unwrap_or(0) as i64)
                })
                .collect::<Result<Vec<_>>>()?;
            TfNode {
                op: "SplitV",
                attrs: vec![
                    ("num_split", AV::I(sizes.len() as i64)),
                    ("T", t),
                    ("Tlen", ty(DType::Int32)),
                ],
                inputs: vec![
                    In::Graph(0),
                    In::Const("size_splits", i32s(&sizes)?),
                    In::Const("split_dim", i32_scalar(*axis as i64)?),
                ],
            }
        }
        GradOp::Tile(m) => {
            let m: Vec<i64> = m.iter().map(|&x| x as i64).collect();
            TfNode {
                op: "Tile",
                attrs: vec![("T", t), ("Tmultiples", ty(DType::Int32))],
                inputs: vec![In::Graph(0), In::Const("multiples", i32s(&m)?)],
            }
        }
        GradOp::BroadcastTo => {
            let d: Vec<i64> = known_dims(g, (i, 0), "a broadcast")?
                .iter()
                .map(|&x| x as i64)
                .collect();
            TfNode {
                op: "BroadcastTo",
                attrs: vec![("T", t), ("Tidx", ty(DType::Int32))],
                inputs: vec![In::Graph(0), In::Const("shape", i32s(&d)?)],
            }
        }
        GradOp::Reverse(axes) => {
            let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            TfNode {
                op: "ReverseV2",
                attrs: vec![("T", t), ("Tidx", ty(DType::Int32))],
                inputs: vec![In::Graph(0), In::Const("axis", i32s(&axes)?)],
            }
        }
        GradOp::Gather(axis, b) => {
            let mut attrs = vec![
                ("Tparams", t),
                ("Tindices", ty(dtype_in(1))),
                ("Taxis", ty(DType::Int32)),
            ];
            if *b != 0 {
                attrs.push(("batch_dims", AV::I(*b as i64)));
            }
            TfNode {
                op: "GatherV2",
                attrs,
                inputs: vec![
                    In::Graph(0),
                    In::Graph(1),
                    In::Const("axis", i32_scalar(*axis as i64)?),
                ],
            }
        }
        GradOp::Index(items) => {
            let (inputs, mut attrs) = strided_slice(items)?;
            attrs.insert(0, ("T", t));
            TfNode {
                op: "StridedSlice",
                attrs,
                inputs,
            }
        }
        GradOp::Softmax { axis, log } => {
            let r = rank_in(0) as i64;
            if *axis != -1 && *axis != r - 1 {
                return Err(Error::unimplemented(
                    "a softmax along an axis other than the last cannot be saved by dist yet",
                ));
            }
            simple(if *log { "LogSoftmax" } else { "Softmax" }, vec![("T", t)])
        }
        GradOp::Relu6 => simple("Relu6", vec![("T", t)]),
        GradOp::Elu => simple("Elu", vec![("T", t)]),
        GradOp::Selu => simple("Selu", vec![("T", t)]),
        GradOp::Softplus => simple("Softplus", vec![("T", t)]),
        GradOp::LeakyRelu(a) => simple("LeakyRelu", vec![("T", t), ("alpha", AV::F(*a as f32))]),
        GradOp::Cumsum {
            axis,
            exclusive,
            reverse,
        }
        | GradOp::Cumprod {
            axis,
            exclusive,
            reverse,
        } => {
            let name = if matches!(op, GradOp::Cumsum { .. }) {
                "Cumsum"
            } else {
                "Cumprod"
            };
            let mut attrs = vec![("T", t), ("Tidx", ty(DType::Int32))];
            if *exclusive {
                attrs.push(("exclusive", AV::B(true)));
            }
            if *reverse {
                attrs.push(("reverse", AV::B(true)));
            }
            TfNode {
                op: name,
                attrs,
                inputs: vec![In::Graph(0), In::Const("axis", i32_scalar(*axis)?)],
            }
        }
        GradOp::TopK(k) => TfNode {
            op: "TopKV2",
            attrs: vec![("T", t)],
            inputs: vec![In::Graph(0), In::Const("k", i32_scalar(*k)?)],
        },
        GradOp::Einsum(eq) => simple(
            "Einsum",
            vec![
                ("equation", AV::S(eq.as_bytes().to_vec())),
                ("N", AV::I(n.inputs.len() as i64)),
                ("T", t),
            ],
        ),
        GradOp::ArgReduce { op, axis } => {
            let out = n.outputs.first().map_or(DType::Int64, |o| o.0);
            TfNode {
                op: op.name(),
                attrs: vec![
                    ("T", t),
                    ("Tidx", ty(DType::Int32)),
                    ("output_type", ty(out)),
                ],
                inputs: vec![
                    In::Graph(0),
                    In::Const("dimension", i32_scalar(*axis as i64)?),
                ],
            }
        }
        GradOp::BiasAdd { nchw } => {
            let mut attrs = vec![("T", t)];
            if *nchw {
                attrs.push(("data_format", AV::S(b"NCHW".to_vec())));
            }
            simple("BiasAdd", attrs)
        }
        GradOp::Conv2D(w) => {
            let mut attrs = vec![("T", t)];
            attrs.extend(window_attrs(w, false));
            simple("Conv2D", attrs)
        }
        GradOp::MaxPool(w) | GradOp::AvgPool(w) => {
            let mut attrs = vec![("T", t)];
            attrs.extend(window_attrs(w, true));
            simple(
                if matches!(op, GradOp::MaxPool(_)) {
                    "MaxPool"
                } else {
                    "AvgPool"
                },
                attrs,
            )
        }
        GradOp::Pad(pads) => {
            let flat: Vec<i64> = pads
                .iter()
                .flat_map(|p| [p[0] as i64, p[1] as i64])
                .collect();
            let paddings = Tensor::from_vec(
                flat.iter().map(|&x| x as i32).collect::<Vec<_>>(),
                &[pads.len(), 2],
            )?;
            let mut inputs = vec![In::Graph(0), In::Const("paddings", paddings)];
            let name = if n.inputs.len() > 1 {
                inputs.push(In::Graph(1));
                "PadV2"
            } else {
                "Pad"
            };
            TfNode {
                op: name,
                attrs: vec![("T", t), ("Tpaddings", ty(DType::Int32))],
                inputs,
            }
        }
        other => {
            return Err(Error::unimplemented(format!(
                "dist cannot write the op {} into a SavedModel yet",
                other.name()
            )))
        }
    })
}
