//! Static shapes with unknown dimensions: what a traced tensor's `.shape`
//! and its printed form show when the trace's inputs had dims TensorFlow
//! leaves unknown (`input_signature=[tf.TensorSpec([None])]`, a relaxed
//! retrace, a dataset element's batch dimension).
//!
//! A trace still runs on real values, so every node keeps its concrete
//! shape (the replay is specialised to it); the static shape is a view
//! beside it, propagated op by op as TensorFlow's shape inference does:
//! a dimension is unknown when the dims it is computed from are.

use std::cell::Cell;

use super::super::autodiff::GradOp;
use super::super::tensor::Tensor;
use super::{current, tracing};

/// A static shape: its dims, `None` where unknown.
pub type StaticDims = Vec<Option<usize>>;

/// A static shape that may have an unknown rank (`None`:
/// `TensorSpec(shape=None)`'s placeholder and what is computed from it).
pub type StaticShape = Option<StaticDims>;

/// Whether a static shape says less than a concrete one (an unknown rank
/// or an unknown dim).
pub fn is_partial(s: &StaticShape) -> bool {
    s.as_deref().is_none_or(has_unknown)
}

/// The static shapes of an op's outputs when an input has an unknown rank
/// (`ins`): unknown ranks, as TensorFlow's shape functions give them, except
/// where the op fixes the output's rank (a reduction of every axis, a
/// reshape, a matrix product).
pub fn infer_unranked(
    op: &GradOp,
    ins: &[StaticShape],
    outs: &[&Tensor],
    reshape_free: Option<usize>,
) -> Vec<StaticShape> {
    let each = |f: &dyn Fn(&Tensor) -> StaticShape| outs.iter().map(|t| f(t)).collect();
    match op {
        // every axis reduced away (`tf.reduce_sum(x)`): a scalar
        GradOp::Reduce {
            keepdims: false, ..
        } => each(&|t| (t.rank() == 0).then(StaticDims::new)),
        GradOp::Reshape("Reshape") => each(&|t| {
            let mut d = known(t);
            if let Some(slot) = reshape_free.and_then(|u| d.get_mut(u)) {
                *slot = None;
            }
            Some(d)
        }),
        GradOp::MatMul { ta, tb } if outs.iter().all(|t| t.rank() == 2) => {
            let side = |k: usize, transposed: bool, row: bool| -> Option<usize> {
                let d = ins.get(k)?.as_ref()?;
                let r = d.len();
                if r < 2 {
                    return None;
                }
                if row != transposed {
                    d[r - 2]
                } else {
                    d[r - 1]
                }
            };
            each(&|_| Some(vec![side(0, *ta, true), side(1, *tb, false)]))
        }
        _ => each(&|_| None),
    }
}

/// The fully known static shape of a concrete tensor.
pub fn known(t: &Tensor) -> StaticDims {
    t.dims().iter().map(|&d| Some(d)).collect()
}

/// The most specific shape both shapes fit: dims that differ unknown, an
/// unknown rank where the ranks differ or one is unknown.
pub fn relaxed(a: Option<&[Option<usize>]>, b: Option<&[Option<usize>]>) -> StaticShape {
    let (a, b) = (a?, b?);
    (a.len() == b.len()).then(|| {
        a.iter()
            .zip(b)
            .map(|(x, y)| if x == y { *x } else { None })
            .collect()
    })
}

/// Whether concrete dims fit a static shape.
pub fn fits(s: &StaticShape, dims: &[usize]) -> bool {
    s.as_ref().is_none_or(|s| {
        s.len() == dims.len() && s.iter().zip(dims).all(|(a, b)| a.is_none_or(|a| a == *b))
    })
}

/// Whether a static shape has an unknown dim.
pub fn has_unknown(d: &[Option<usize>]) -> bool {
    d.iter().any(Option::is_none)
}

/// The output's concrete dims, unknown where `like` (of the same rank) is.
fn keep_unknown(like: &[Option<usize>], out: &Tensor) -> StaticDims {
    let mut d = known(out);
    if like.len() == d.len() {
        for (o, l) in d.iter_mut().zip(like) {
            if l.is_none() {
                *o = None;
            }
        }
    }
    d
}

/// Broadcasting of static shapes (NumPy's rule; an unknown dim against 1 or
/// another unknown stays unknown, against a known size > 1 is that size).
fn broadcast(ins: &[StaticDims], out: &Tensor) -> StaticDims {
    let rank = out.rank();
    let mut d = known(out);
    for (k, o) in d.iter_mut().enumerate() {
        let mut unknown = false;
        let mut sized = false;
        for s in ins {
            let Some(i) = (k + s.len()).checked_sub(rank) else {
                continue;
            };
            match s[i] {
                None => unknown = true,
                Some(n) if n != 1 => sized = true,
                Some(_) => {}
            }
        }
        if unknown && !sized {
            *o = None;
        }
    }
    d
}

/// Merges the static shapes of inputs that must agree (known where any is).
fn merge(ins: &[StaticDims], out_rank: usize) -> StaticDims {
    let mut d: StaticDims = vec![None; out_rank];
    for s in ins {
        for (o, x) in d.iter_mut().zip(s) {
            if o.is_none() {
                *o = *x;
            }
        }
    }
    d
}

/// Whether `op`'s output shape depends on its inputs' values, not only
/// their shapes (a sorted segment op's rows): unknown in a trace even when
/// every input shape is known.
pub fn value_shaped(op: &GradOp) -> bool {
    matches!(op, GradOp::Segment { num: None, .. })
}

/// The static shapes of an op's outputs from its inputs' (`ins`, unknown
/// dims as `None`) and the concrete outputs the trace computed.
/// `reshape_free`: for `Reshape`, the position of the requested `-1`.
pub fn infer(
    op: &GradOp,
    ins: &[StaticDims],
    inputs: &[&Tensor],
    outs: &[&Tensor],
    reshape_free: Option<usize>,
) -> Vec<StaticDims> {
    let empty = StaticDims::new();
    let in0 = ins.first().unwrap_or(&empty);
    let each = |f: &dyn Fn(&Tensor) -> StaticDims| outs.iter().map(|t| f(t)).collect();
    match op {
        GradOp::ReadVariable
        | GradOp::Identity
        | GradOp::Unary(_)
        | GradOp::Cast
        | GradOp::Softmax { .. }
        | GradOp::Relu6
        | GradOp::LeakyRelu(_)
        | GradOp::Elu
        | GradOp::Selu
        | GradOp::Softplus
        | GradOp::Silu
        | GradOp::Cumsum { .. }
        | GradOp::Cumprod { .. }
        | GradOp::Roll(_)
        | GradOp::Reverse(_)
        | GradOp::Sort { .. }
        | GradOp::Tile(_)
        | GradOp::Pad(_)
        | GradOp::MirrorPad { .. }
        | GradOp::Conv2D(_)
        | GradOp::DepthwiseConv2D(_)
        | GradOp::MaxPool(_)
        | GradOp::AvgPool(_)
        | GradOp::PoolGrad { .. }
        | GradOp::MatrixSetDiag
        | GradOp::TensorScatter(_)
        | GradOp::BiasAdd { .. } => each(&|t| keep_unknown(in0, t)),
        GradOp::ComplexPart(crate::runtime::ops::complex::ComplexOp::Complex) => {
            each(&|t| broadcast(ins, t))
        }
        GradOp::ComplexPart(_) => each(&|t| keep_unknown(in0, t)),
        GradOp::Binary(_)
        | GradOp::Select
        | GradOp::AddN
        | GradOp::SquaredDifference
        | GradOp::SigmoidGrad => each(&|t| broadcast(ins, t)),
        GradOp::Reduce { axes, keepdims, .. } => {
            let d: StaticDims = in0
                .iter()
                .enumerate()
                .filter_map(|(i, &x)| match (axes.contains(&i), keepdims) {
                    (false, _) => Some(x),
                    (true, true) => Some(Some(1)),
                    (true, false) => None,
                })
                .collect();
            each(&|t| fit(&d, t))
        }
        GradOp::ArgReduce { axis, .. } => {
            let mut d = in0.clone();
            if *axis < d.len() {
                d.remove(*axis);
            }
            each(&|t| fit(&d, t))
        }
        GradOp::MatMul { ta, tb } => {
            let b = ins.get(1).unwrap_or(&empty);
            each(&|t| {
                let mut d = known(t);
                let r = d.len();
                if r < 2 || in0.len() < 2 || b.len() < 2 {
                    return d;
                }
                let (ar, br) = (in0.len(), b.len());
                d[r - 2] = if *ta { in0[ar - 1] } else { in0[ar - 2] };
                d[r - 1] = if *tb { b[br - 2] } else { b[br - 1] };
                let batch = broadcast(&[in0[..ar - 2].to_vec(), b[..br - 2].to_vec()], t);
                d[..r - 2].copy_from_slice(&batch[..r - 2]);
                d
            })
        }
        GradOp::Reshape(name) => each(&|t| match *name {
            "Reshape" => {
                let mut d = known(t);
                if let Some(u) = reshape_free.filter(|_| has_unknown(in0)) {
                    if u < d.len() {
                        d[u] = None;
                    }
                }
                d
            }
            // `ExpandDims` / `Squeeze`: the dims other than the inserted
            // or dropped 1s are the input's, in order
            _ => align(in0, t),
        }),
        GradOp::Transpose(perm) => each(&|t| {
            let mut d = known(t);
            for (o, &p) in d.iter_mut().zip(perm) {
                if let Some(&x) = in0.get(p) {
                    *o = x;
                }
            }
            d
        }),
        GradOp::Concat(axis) => each(&|t| {
            let mut d = merge(ins, t.rank());
            if let Some(slot) = d.get_mut(*axis) {
                *slot = if ins
                    .iter()
                    .all(|s| s.get(*axis).is_some_and(Option::is_some))
                {
                    t.dims().get(*axis).copied()
                } else {
                    None
                };
            }
            fit(&d, t)
        }),
        GradOp::Pack(axis) => each(&|t| {
            let mut d = merge(ins, t.rank().saturating_sub(1));
            if *axis <= d.len() {
                d.insert(*axis, Some(ins.len()));
            }
            fit(&d, t)
        }),
        GradOp::Unpack(axis) | GradOp::Split(axis) => {
            let split = matches!(op, GradOp::Split(_));
            each(&|t| {
                let mut d = in0.clone();
                if *axis < d.len() {
                    if split {
                        if d[*axis].is_some() {
                            d[*axis] = t.dims().get(*axis).copied();
                        }
                    } else {
                        d.remove(*axis);
                    }
                }
                fit(&d, t)
            })
        }
        GradOp::Gather(axis, b) => {
            let idx = ins.get(1).unwrap_or(&empty);
            each(&|t| {
                let mut d: StaticDims = in0.iter().take(*axis).copied().collect();
                d.extend(idx.iter().skip(*b).copied());
                d.extend(in0.iter().skip(axis + 1).copied());
                fit(&d, t)
            })
        }
        GradOp::Index(items) => each(&|t| fit(&index_dims(in0, items), t)),
        GradOp::IndexGrad(_, dims) => each(&|t| {
            let d: StaticDims = dims.iter().map(|&n| Some(n)).collect();
            fit(&d, t)
        }),
        GradOp::TopK(_) => each(&|t| {
            let mut d = keep_unknown(in0, t);
            if let Some(last) = d.last_mut() {
                *last = t.dims().last().copied();
            }
            d
        }),
        GradOp::Segment { num, .. } => each(&|t| {
            // one row per segment (a sorted op's: as many as its ids say),
            // then the data's dims past the ids'
            let lead = inputs.get(1).map_or(1, |i| i.rank());
            let rows = num.map(|_| t.dims().first().copied());
            let d: StaticDims = std::iter::once(rows.flatten())
                .chain(in0.iter().skip(lead).copied())
                .collect();
            fit(&d, t)
        }),
        GradOp::SoftmaxXent | GradOp::SparseSoftmaxXent => each(&|t| {
            let mut d = known(t);
            if let (Some(o), Some(&b)) = (d.first_mut(), in0.first()) {
                *o = b;
            }
            d
        }),
        // the batch dimension carries through the rest
        _ => each(&|t| {
            let mut d = known(t);
            let batch = inputs.first().and_then(|x| x.dims().first());
            if let (Some(o), Some(None)) = (d.first_mut(), in0.first()) {
                if batch == t.dims().first() {
                    *o = None;
                }
            }
            d
        }),
    }
}

/// `d` when it has the output's rank (else the output's concrete dims).
fn fit(d: &[Option<usize>], out: &Tensor) -> StaticDims {
    if d.len() == out.rank() {
        d.iter()
            .zip(out.dims())
            .map(|(s, &c)| s.map(|_| c))
            .collect()
    } else {
        known(out)
    }
}

/// `ExpandDims`/`Squeeze`: the output's dims matched in order with the
/// input's, skipping the 1s only one side has.
fn align(in0: &[Option<usize>], out: &Tensor) -> StaticDims {
    let mut d = known(out);
    let od = out.dims();
    let (mut i, mut j) = (0, 0);
    let extra_out = od.len().saturating_sub(in0.len());
    let extra_in = in0.len().saturating_sub(od.len());
    let (mut skip_out, mut skip_in) = (extra_out, extra_in);
    while j < od.len() && i < in0.len() {
        if skip_out > 0 && od[j] == 1 && in0[i] != Some(1) {
            j += 1;
            skip_out -= 1;
        } else if skip_in > 0 && in0[i] == Some(1) && od[j] != 1 {
            i += 1;
            skip_in -= 1;
        } else {
            if in0[i].is_none() {
                d[j] = None;
            }
            i += 1;
            j += 1;
        }
    }
    d
}

/// The static dims of a subscript's result.
fn index_dims(in0: &[Option<usize>], items: &[crate::runtime::ops::IndexItem]) -> StaticDims {
    use crate::runtime::ops::IndexItem;
    let consuming = items
        .iter()
        .filter(|it| matches!(it, IndexItem::Int(_) | IndexItem::Slice { .. }))
        .count();
    let mut d = StaticDims::new();
    let mut i = 0;
    for it in items {
        match it {
            IndexItem::Int(_) => i += 1,
            IndexItem::Slice { .. } => {
                // a slice of an unknown dim is unknown; of a known one, the
                // concrete size (filled in by `fit`)
                d.push(in0.get(i).copied().flatten().map(|_| 0));
                i += 1;
            }
            IndexItem::NewAxis => d.push(Some(1)),
            IndexItem::Ellipsis => {
                let n = in0.len().saturating_sub(consuming);
                d.extend(in0.iter().skip(i).take(n).copied());
                i += n;
            }
        }
    }
    d.extend(in0.iter().skip(i).copied());
    d
}

thread_local! {
    /// The position of the `-1` of the `tf.reshape` about to be recorded.
    pub(super) static RESHAPE_FREE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Notes the position of the `-1` in the shape the next recorded `Reshape`
/// was asked for (its static dim is unknown when the input's count is).
pub fn note_reshape_free(pos: Option<usize>) {
    if tracing() {
        RESHAPE_FREE.with(|r| r.set(pos));
    }
}

/// Sets the static shape of `t`, a tensor of the graph being traced, where
/// it says less than its concrete shape.
pub fn set_static(t: &Tensor, s: StaticShape) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    if let Some(p) = g.lookup(t).filter(|_| is_partial(&s)) {
        g.statics.insert(p, s);
    }
}

/// The static shape of `t` while it is traced, when it has unknown dims or
/// an unknown rank.
pub fn static_dims(t: &Tensor) -> Option<StaticShape> {
    if let Some((_, s, _)) = super::escaped(t) {
        return s;
    }
    let mut g = current()?;
    loop {
        let parent = {
            let gb = g.borrow();
            if let Some(p) = gb.lookup(t) {
                return gb.statics.get(&p).cloned();
            }
            gb.parent.clone()?
        };
        g = parent;
    }
}

/// Whether `t`'s value is known without running the graph being traced,
/// as TensorFlow's `tf.get_static_value` (tensor_util.constant_value)
/// decides it: a tensor of no trace (eager) is; in the trace, a constant
/// made in it (not a capture), the shape, size or rank of a tensor whose
/// static shape fixes them, and the ops constant_value folds (`Range`,
/// `Cast`, `ConcatV2`, `Pack`/`Unpack` on axis 0, `Split`, `Fill`,
/// `Equal`, `NotEqual`, `StopGradient`, `Identity`) of such values.
pub fn value_is_static(t: &Tensor) -> bool {
    let Some(mut g) = current() else { return true };
    loop {
        let parent = {
            let gb = g.borrow();
            if let Some(port) = gb.lookup(t) {
                return port_is_static(&gb, port, t.born() < gb.root_epoch);
            }
            gb.parent.clone()
        };
        match parent {
            Some(p) => g = p,
            None => return true,
        }
    }
}

/// Notes that the constant `t` of the trace holds what only its concrete
/// shapes fixed (see [`value_is_static`]).
pub fn mark_dynamic(t: &Tensor) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    if let Some(p) = g.lookup(t) {
        g.dynamic.insert(p);
    }
    if g.value_shaped {
        // a replay may give the tensor another shape than this constant's
        g.set_taint(|| {
            "the shape of a tensor whose size depends on values (a sorted segment op's) is \
             not recorded in graphs yet"
                .into()
        });
    }
}

fn port_is_static(g: &super::Graph, port: super::Port, captured: bool) -> bool {
    if g.dynamic.contains(&port) {
        return false;
    }
    let node = &g.nodes[port.0];
    let input = |i: usize| node.inputs.get(i).copied();
    let all_inputs =
        || !node.inputs.is_empty() && node.inputs.iter().all(|&p| port_is_static(g, p, false));
    // the static shape of an input: None where its dims are all known
    let input_static = |i: usize| input(i).map(|p| g.statics.get(&p).cloned());
    match node.op_type {
        "Const" => !captured && matches!(node.op, super::NodeOp::Const(_)),
        "Shape" | "Size" => matches!(input_static(0), Some(None)),
        "Rank" => matches!(input_static(0), Some(None) | Some(Some(Some(_)))),
        "Pack" => matches!(node.op, super::NodeOp::Op(GradOp::Pack(0))) && all_inputs(),
        "Unpack" => matches!(node.op, super::NodeOp::Op(GradOp::Unpack(0))) && all_inputs(),
        "Range" | "Cast" | "ConcatV2" | "Split" | "Fill" | "Equal" | "NotEqual"
        | "StopGradient" | "Identity" => all_inputs(),
        _ => false,
    }
}

impl super::Graph {
    /// The static shapes of the outputs of `op`, recorded on `ports`, when
    /// an input's is partial or the op's output shape depends on values
    /// (None: all are the outputs' concrete shapes).
    pub(super) fn op_statics(
        &mut self,
        op: &GradOp,
        ports: &[super::Port],
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Option<Vec<StaticShape>> {
        let reshape_free = RESHAPE_FREE.with(|r| r.take());
        self.value_shaped |= value_shaped(op);
        let partial = ports.iter().any(|p| self.statics.contains_key(p));
        if !partial && !value_shaped(op) {
            return None;
        }
        let ins: Vec<StaticShape> = ports
            .iter()
            .zip(inputs)
            .map(|(p, t)| {
                self.statics
                    .get(p)
                    .cloned()
                    .unwrap_or_else(|| Some(known(t)))
            })
            .collect();
        Some(match ins.iter().cloned().collect::<Option<Vec<_>>>() {
            Some(ranked) => infer(op, &ranked, inputs, outputs, reshape_free)
                .into_iter()
                .map(Some)
                .collect(),
            None => infer_unranked(op, &ins, outputs, reshape_free),
        })
    }

    /// The static shape of the node output `p` (its concrete shape where
    /// every dim is known).
    pub fn static_port(&self, p: super::Port) -> StaticShape {
        if let Some(s) = self.statics.get(&p) {
            return s.clone();
        }
        self.nodes
            .get(p.0)
            .and_then(|n| n.outputs.get(p.1))
            .map(|(_, s)| s.dims().iter().map(|&d| Some(d)).collect())
    }

    /// Whether the node output `p` is a constant only this trace's concrete
    /// shapes fixed (`tf.shape` of a tensor with unknown dims).
    pub fn is_dynamic(&self, p: super::Port) -> bool {
        self.dynamic.contains(&p)
    }
}
