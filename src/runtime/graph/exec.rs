//! Replaying a traced graph: each live node in program order, its op run
//! forward on its inputs' values, with no interpreter in the loop. The
//! ops are the runtime's own, so a replay computes the same bits as the
//! eager call it was traced from, records on any recording gradient tape
//! as eager ops do, and places its results on the devices the trace saw.

use std::any::Any;
use std::rc::Rc;

use super::{live_nodes, Graph, NodeOp, Resource};
use crate::runtime::autodiff::GradOp;
use crate::runtime::error::{Error, Result};
use crate::runtime::ops::{self, SplitSpec};
use crate::runtime::tensor::Tensor;
use crate::runtime::Semantics;

/// Runs the host effect of an `Effect` node with its inputs' values.
pub type EffectFn<'a> = dyn FnMut(&Rc<dyn Any>, &[Tensor]) -> Result<()> + 'a;

/// Resources a replay uses in place of the ones the trace saw: `(the
/// traced resource's address, its stand-in)` (a variable passed as an
/// argument: the call's variable for the trace's).
pub type Subst = [(usize, Rc<dyn Resource>)];

/// The resource a replay uses for the traced `r`.
fn resolve<'a>(r: &'a Rc<dyn Resource>, subst: &'a Subst) -> &'a Rc<dyn Resource> {
    let at = Rc::as_ptr(r) as *const () as usize;
    subst.iter().find(|(a, _)| *a == at).map_or(r, |(_, to)| to)
}

/// Where a replayed node reads an input: a value the replay computes (a
/// slot of its own), or one the plan holds (a constant, or an op on
/// constants folded when the plan was made).
#[derive(Clone, Copy)]
enum Src {
    Slot(usize),
    Fixed(usize),
}

/// One node a replay runs: its inputs, its first output slot, and the
/// slots whose last reader it is (freed after it, so a replay holds no
/// more intermediates than the eager code would).
struct Step {
    node: usize,
    ins: Vec<Src>,
    out: usize,
    free: Vec<usize>,
    /// A float division by a constant, run as a product with the constant's
    /// reciprocal (held in the plan), as grappler's constant folding
    /// rewrites it in TensorFlow's function graphs.
    by_reciprocal: bool,
}

/// A graph ready to replay: the live nodes in program order (dead ones
/// pruned), each node's values in slots of one flat array, and the values
/// known before any replay (constants, and ops on constants only, as
/// TensorFlow's constant folding computes them once).
pub struct Plan {
    steps: Vec<Step>,
    slots: usize,
    /// The slot of each placeholder's value.
    inputs: Vec<usize>,
    outputs: Vec<Src>,
    /// Values no graph knows (a constant node's own tensor is the trace's,
    /// out of scope once it ended).
    fixed: Vec<Tensor>,
}

/// Outputs of a folded op at most this many elements in all (a folded
/// value is held as long as the function: TensorFlow's folding has a size
/// limit too).
const FOLD_LIMIT: usize = 1 << 16;

impl Plan {
    /// The replay plan of `g`.
    pub fn new(g: &Graph) -> Plan {
        // folding runs ops eagerly: never into a graph an outer trace records
        super::paused(|| Plan::build(g))
    }

    fn build(g: &Graph) -> Plan {
        let live = live_nodes(g);
        // each node's outputs: fixed values, or slots
        let mut fixed: Vec<Tensor> = Vec::new();
        let mut at: Vec<Option<Src>> = vec![None; g.nodes.len()];
        let mut slots = 0;
        let mut steps = Vec::new();
        for (i, node) in g.nodes.iter().enumerate() {
            if !live[i] {
                continue;
            }
            if let Some(vals) = fold(g, node, &at, &fixed) {
                at[i] = Some(Src::Fixed(fixed.len()));
                fixed.extend(vals);
                continue;
            }
            at[i] = Some(Src::Slot(slots));
            let mut ins: Vec<Src> = node.inputs.iter().map(|&(m, o)| src_of(at[m], o)).collect();
            let by_reciprocal = reciprocal_of_denominator(node, &ins, &fixed).map(|r| {
                ins[1] = Src::Fixed(fixed.len());
                fixed.push(r);
            });
            if !matches!(node.op, NodeOp::Placeholder) {
                steps.push(Step {
                    node: i,
                    ins,
                    out: slots,
                    free: Vec::new(),
                    by_reciprocal: by_reciprocal.is_some(),
                });
            }
            slots += node.outputs.len().max(1);
        }
        let outputs: Vec<Src> = g.outputs.iter().map(|&(n, o)| src_of(at[n], o)).collect();
        // each slot freed after its last reader (an output's never)
        let mut last: Vec<Option<usize>> = vec![None; slots];
        for (k, s) in steps.iter().enumerate() {
            for src in &s.ins {
                if let Src::Slot(x) = *src {
                    last[x] = Some(k);
                }
            }
        }
        for src in &outputs {
            if let Src::Slot(x) = *src {
                last[x] = None;
            }
        }
        for (x, k) in last.into_iter().enumerate() {
            if let Some(k) = k {
                steps[k].free.push(x);
            }
        }
        let inputs = g
            .placeholders
            .iter()
            .map(|&p| match at[p] {
                Some(Src::Slot(s)) => s,
                // a dead placeholder: a slot nothing reads
                _ => slots,
            })
            .collect();
        Plan {
            steps,
            slots: slots + 1,
            inputs,
            outputs,
            fixed,
        }
    }
}

impl Plan {
    /// How many nodes a replay runs (the rest are folded or dead).
    pub fn steps(&self) -> usize {
        self.steps.len()
    }
}

fn src_of(at: Option<Src>, o: usize) -> Src {
    match at {
        Some(Src::Slot(s)) => Src::Slot(s + o),
        Some(Src::Fixed(f)) => Src::Fixed(f + o),
        // an input is always before its reader, and live when it is
        None => Src::Slot(usize::MAX),
    }
}

/// `1 / c` when `node` divides floats by a value `c` known before the
/// replay (grappler's `ReduceDivToReciprocalMul`: TensorFlow's function
/// graphs compute `x / c` as `x * (1 / c)`, which can differ in the last
/// bit; eager ops and `tf.data` functions divide).
fn reciprocal_of_denominator(node: &super::Node, ins: &[Src], fixed: &[Tensor]) -> Option<Tensor> {
    let NodeOp::Op(GradOp::Binary(crate::runtime::op::BinaryOp::RealDiv)) = node.op else {
        return None;
    };
    let Some(&Src::Fixed(f)) = ins.get(1) else {
        return None;
    };
    let c = fixed.get(f)?;
    if !(c.dtype().is_floating() || c.dtype().is_complex()) {
        return None;
    }
    let r = ops::unary(crate::runtime::op::UnaryOp::Reciprocal, c).ok()?;
    Some(crate::runtime::autodiff::tape::detached(&r))
}

/// Whether the op `node` runs is folded when all its inputs are known:
/// a small op with inputs, not a custom gradient's or an opaque one.
pub fn folds(op: &GradOp, node: &super::Node) -> bool {
    let size: usize = node.outputs.iter().map(|(_, s)| s.numel()).sum();
    !matches!(op, GradOp::Custom(_) | GradOp::NoGrad(_))
        && !node.inputs.is_empty()
        && size <= FOLD_LIMIT
}

/// The values of `node` when it is a constant, or a small op whose inputs
/// are all known before the replay (computed now, on the node's device);
/// `None` when it runs at each replay (or folding it fails: the replay
/// raises the error where the eager code would).
fn fold(
    g: &Graph,
    node: &super::Node,
    at: &[Option<Src>],
    fixed: &[Tensor],
) -> Option<Vec<Tensor>> {
    match &node.op {
        NodeOp::Const(t) => return Some(vec![crate::runtime::autodiff::tape::detached(t)]),
        NodeOp::Op(op) if folds(op, node) => {}
        _ => return None,
    }
    let NodeOp::Op(op) = &node.op else {
        return None;
    };
    let mut ins = Vec::with_capacity(node.inputs.len());
    for &(m, o) in &node.inputs {
        match at[m] {
            Some(Src::Fixed(f)) => ins.push(fixed.get(f + o)?.clone()),
            _ => return None,
        }
    }
    let _ = g;
    let mut outs = Vec::new();
    forward(op, &ins, node, &mut outs).ok()?;
    outs.iter()
        .map(|t| t.to_device(node.device).ok())
        .map(|t| t.map(|t| crate::runtime::autodiff::tape::detached(&t)))
        .collect()
}

/// Replays `g` on `inputs` (one per placeholder, in order), giving its outputs.
pub fn run(
    g: &Graph,
    plan: &Plan,
    inputs: &[Tensor],
    subst: &Subst,
    effect: &mut EffectFn,
) -> Result<Vec<Tensor>> {
    if inputs.len() != g.placeholders.len() {
        return Err(Error::internal(format!(
            "graph replay: {} inputs for {} placeholders",
            inputs.len(),
            g.placeholders.len()
        )));
    }
    let mut values: Vec<Option<Tensor>> = vec![None; plan.slots];
    for (&s, t) in plan.inputs.iter().zip(inputs) {
        values[s] = Some(t.clone());
    }
    let value = |values: &[Option<Tensor>], src: Src| -> Result<Tensor> {
        match src {
            Src::Slot(s) => values.get(s).and_then(Option::clone),
            Src::Fixed(f) => plan.fixed.get(f).cloned(),
        }
        .ok_or_else(|| Error::internal("graph replay: an input has no value"))
    };
    let mut ins: Vec<Tensor> = Vec::new();
    let mut outs: Vec<Tensor> = Vec::new();
    for step in &plan.steps {
        let node = &g.nodes[step.node];
        ins.clear();
        for &src in &step.ins {
            ins.push(value(&values, src)?);
        }
        outs.clear();
        match &node.op {
            NodeOp::Placeholder | NodeOp::Const(_) => {
                return Err(Error::internal(format!(
                    "graph replay: {} is not a step",
                    node.name
                )))
            }
            NodeOp::ReadVariable(r) => outs.push(resolve(r, subst).read()),
            NodeOp::AssignVariable(r) => resolve(r, subst).write(first(&ins)?.clone()),
            NodeOp::Effect(payload) => effect(payload, &ins)?,
            NodeOp::Op(_) if step.by_reciprocal => outs.push(ops::binary(
                crate::runtime::op::BinaryOp::Mul,
                first(&ins)?,
                second(&ins)?,
            )?),
            NodeOp::Op(op) => forward(op, &ins, node, &mut outs)?,
            NodeOp::Cond(branches) => {
                let pred = first(&ins)?;
                let taken = pred.item().map(|s| s.as_f64() != 0.0).map_err(|_| {
                    Error::internal("graph replay: a cond predicate is not a scalar")
                })?;
                let n_true = branches[0].graph.borrow().placeholders.len();
                let (b, args) = if taken {
                    (&branches[0], &ins[1..1 + n_true])
                } else {
                    (&branches[1], &ins[1 + n_true..])
                };
                outs = run(&b.graph.borrow(), &b.plan, args, subst, effect)?;
            }
            NodeOp::While(bs, n) => outs = run_while(bs, *n, &ins, subst, effect)?,
        }
        // the trace's placement
        for (k, t) in outs.drain(..).enumerate() {
            let t = if t.device() == node.device {
                t
            } else {
                t.to_device(node.device)?
            };
            if let Some(v) = values.get_mut(step.out + k) {
                *v = Some(t);
            }
        }
        for &s in &step.free {
            values[s] = None;
        }
    }
    plan.outputs
        .iter()
        .map(|&src| value(&values, src))
        .collect()
}

/// The payload of the effect call a replayed loop makes once per iteration
/// (the caller checks for Ctrl-C and the step budget there).
pub struct Poll;

/// Runs a `While` node: the body while the condition holds.
pub fn run_while(
    bs: &[super::Branch; 2],
    n: usize,
    ins: &[Tensor],
    subst: &Subst,
    effect: &mut EffectFn,
) -> Result<Vec<Tensor>> {
    let [c, b] = bs;
    let (cg, bg) = (c.graph.borrow(), b.graph.borrow());
    let nc = cg.placeholders.len().saturating_sub(n);
    if ins.len() < n + nc {
        return Err(Error::internal(
            "graph replay: a while loop lacks its inputs",
        ));
    }
    let mut vars = ins[..n].to_vec();
    let (ccap, bcap) = (&ins[n..n + nc], &ins[n + nc..]);
    let poll: Rc<dyn Any> = Rc::new(Poll);
    loop {
        effect(&poll, &[])?;
        let mut cin = vars.clone();
        cin.extend_from_slice(ccap);
        let p = run(&cg, &c.plan, &cin, subst, effect)?;
        let go = p
            .first()
            .ok_or_else(|| Error::internal("graph replay: a while condition has no value"))?
            .item()?
            .as_f64()
            != 0.0;
        if !go {
            return Ok(vars);
        }
        let mut bin = vars;
        bin.extend_from_slice(bcap);
        vars = run(&bg, &b.plan, &bin, subst, effect)?;
    }
}

fn first(ins: &[Tensor]) -> Result<&Tensor> {
    ins.first()
        .ok_or_else(|| Error::internal("graph replay: an op lacks its input"))
}

fn second(ins: &[Tensor]) -> Result<&Tensor> {
    ins.get(1)
        .ok_or_else(|| Error::internal("graph replay: an op lacks its input"))
}

/// Runs one recorded op forward.
fn forward(op: &GradOp, ins: &[Tensor], node: &super::Node, out: &mut Vec<Tensor>) -> Result<()> {
    match forward_all(op, ins, node)? {
        Outs::One(t) => out.push(t),
        Outs::Many(ts) => out.extend(ts),
    }
    Ok(())
}

/// An op's outputs (most ops have one: no vector for it).
enum Outs {
    One(Tensor),
    Many(Vec<Tensor>),
}

/// Runs one recorded op forward, giving its outputs.
fn forward_all(op: &GradOp, ins: &[Tensor], node: &super::Node) -> Result<Outs> {
    let out_dims = |k: usize| -> Result<Vec<usize>> {
        node.outputs
            .get(k)
            .map(|(_, s)| s.dims().to_vec())
            .ok_or_else(|| Error::internal("graph replay: an op lacks its output"))
    };
    let one = |t: Result<Tensor>| t.map(Outs::One);
    match op {
        GradOp::ReadVariable | GradOp::Identity => Ok(Outs::One(first(ins)?.clone())),
        GradOp::Unary(u) => one(ops::unary(*u, first(ins)?)),
        GradOp::Binary(b) => one(ops::binary(*b, first(ins)?, second(ins)?)),
        GradOp::AddN => one(ops::add_n(ins)),
        GradOp::Cast => {
            let to = node
                .outputs
                .first()
                .map(|(d, _)| *d)
                .ok_or_else(|| Error::internal("graph replay: Cast lacks its output"))?;
            one(ops::cast(first(ins)?, to))
        }
        GradOp::ComplexPart(ops::complex::ComplexOp::Complex) => {
            one(ops::complex::complex(first(ins)?, second(ins)?))
        }
        GradOp::ComplexPart(op) => one(ops::complex::part(*op, first(ins)?)),
        GradOp::Select => {
            let c = ins
                .get(2)
                .ok_or_else(|| Error::internal("graph replay: SelectV2 lacks an input"))?;
            one(ops::where_select(first(ins)?, second(ins)?, c))
        }
        GradOp::Reduce { op, axes, keepdims } => {
            let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            one(ops::reduce(*op, first(ins)?, Some(&axes), *keepdims))
        }
        GradOp::MatMul { ta, tb } => one(ops::matmul(first(ins)?, second(ins)?, *ta, *tb)),
        GradOp::Reshape(_) => {
            let dims: Vec<i64> = out_dims(0)?.iter().map(|&d| d as i64).collect();
            one(ops::reshape(first(ins)?, &dims, Semantics::Tf))
        }
        GradOp::Transpose(perm) => {
            let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
            one(ops::transpose(first(ins)?, Some(&perm)))
        }
        GradOp::Concat(axis) => one(ops::concat(ins, *axis as i64)),
        GradOp::Pack(axis) => one(ops::stack(ins, *axis as i64)),
        GradOp::Unpack(axis) => ops::unstack(first(ins)?, *axis as i64).map(Outs::Many),
        GradOp::Split(axis) => {
            let sizes = (0..node.outputs.len())
                .map(|k| out_dims(k).map(|d| d.get(*axis).copied().unwrap_or(0) as i64))
                .collect::<Result<Vec<_>>>()?;
            ops::split(first(ins)?, &SplitSpec::Sizes(sizes), *axis as i64).map(Outs::Many)
        }
        GradOp::Tile(m) => one(ops::tile(first(ins)?, m)),
        GradOp::BroadcastTo => one(ops::broadcast_to(first(ins)?, &out_dims(0)?)),
        GradOp::Roll(s) => one(ops::reorder::roll(first(ins)?, s)),
        GradOp::Reverse(axes) => one(ops::reorder::reverse(first(ins)?, axes)),
        GradOp::Gather(axis, b) => one(ops::gather_batched(
            first(ins)?,
            second(ins)?,
            *axis as i64,
            *b as i64,
        )),
        GradOp::Index(items) => one(ops::index(first(ins)?, items, Semantics::Tf)),
        GradOp::IndexGrad(items, dims) => one(ops::index::index_grad(dims, items, first(ins)?)),
        GradOp::Softmax { axis, log } => one(ops::nn::softmax(first(ins)?, *axis, *log)),
        GradOp::Relu6 => one(ops::nn::relu6(first(ins)?)),
        GradOp::LeakyRelu(a) => one(ops::nn::leaky_relu(first(ins)?, *a)),
        GradOp::Elu => one(ops::nn::elu(first(ins)?)),
        GradOp::Selu => one(ops::nn::selu(first(ins)?)),
        GradOp::Softplus => one(ops::nn::softplus(first(ins)?)),
        GradOp::Cumsum {
            axis,
            exclusive,
            reverse,
        } => one(ops::scan::cumulative(
            first(ins)?,
            *axis,
            *exclusive,
            *reverse,
            false,
        )),
        GradOp::Cumprod {
            axis,
            exclusive,
            reverse,
        } => one(ops::scan::cumulative(
            first(ins)?,
            *axis,
            *exclusive,
            *reverse,
            true,
        )),
        GradOp::TopK(k) => {
            let (v, i) = ops::scan::top_k(first(ins)?, *k)?;
            Ok(Outs::Many(vec![v, i]))
        }
        GradOp::Sort { axis, descending } => {
            let (v, i) = ops::scan::sort(first(ins)?, *axis, *descending)?;
            Ok(Outs::Many(vec![v, i]))
        }
        GradOp::MatrixDiag => one(ops::matrix::diag(first(ins)?)),
        GradOp::MatrixDiagPart => one(ops::matrix::diag_part(first(ins)?, " name: diag_part")),
        GradOp::MatrixSetDiag => one(ops::matrix::set_diag(first(ins)?, second(ins)?)),
        GradOp::Einsum(eq) => one(ops::einsum::einsum_op(eq, ins)),
        GradOp::L2Loss => one(ops::l2_loss(first(ins)?)),
        GradOp::Silu => one(ops::nn::silu(first(ins)?)),
        GradOp::SigmoidGrad => one(ops::nn::sigmoid_grad(first(ins)?, second(ins)?)),
        GradOp::ArgReduce { op, axis } => one(ops::arg_reduce(
            *op,
            first(ins)?,
            *axis as i64,
            Semantics::Tf,
        )),
        GradOp::BiasAdd { nchw } => one(ops::nn_loss::bias_add(first(ins)?, second(ins)?, *nchw)),
        GradOp::DivNoNan => one(ops::nn_loss::div_no_nan(first(ins)?, second(ins)?)),
        GradOp::ZeroSafe(op) => one(ops::zero_safe::zero_safe(*op, first(ins)?, second(ins)?)),
        GradOp::Special(op) => one(ops::special::special(*op, &ins.iter().collect::<Vec<_>>())),
        GradOp::Linalg(op) => {
            let mut outs = op.replay(ins)?;
            Ok(if outs.len() == 1 {
                Outs::One(outs.remove(0))
            } else {
                Outs::Many(outs)
            })
        }
        GradOp::SquaredDifference => {
            one(ops::nn_loss::squared_difference(first(ins)?, second(ins)?))
        }
        GradOp::SoftmaxXent => {
            ops::nn_loss::softmax_xent(first(ins)?, second(ins)?).map(Outs::Many)
        }
        GradOp::SparseSoftmaxXent => {
            ops::nn_loss::sparse_softmax_xent(first(ins)?, second(ins)?).map(Outs::Many)
        }
        GradOp::Conv2D(w) => one(ops::conv::conv2d(first(ins)?, second(ins)?, w)),
        GradOp::Conv2DBackpropInput { w, input_sizes } => one(ops::conv::conv2d_backprop_input(
            input_sizes,
            first(ins)?,
            second(ins)?,
            w,
        )),
        GradOp::Conv2DBackpropFilter { w, filter_sizes } => one(ops::conv::conv2d_backprop_filter(
            first(ins)?,
            filter_sizes,
            second(ins)?,
            w,
        )),
        GradOp::DepthwiseConv2D(w) => one(ops::depthwise::depthwise_conv2d(
            first(ins)?,
            second(ins)?,
            w,
        )),
        GradOp::DepthwiseBackpropInput { w, input_sizes } => one(
            ops::depthwise::depthwise_backprop_input(input_sizes, first(ins)?, second(ins)?, w),
        ),
        GradOp::DepthwiseBackpropFilter { w, filter_sizes } => one(
            ops::depthwise::depthwise_backprop_filter(first(ins)?, filter_sizes, second(ins)?, w),
        ),
        GradOp::MaxPool(w) => one(ops::conv::pool2d(first(ins)?, w, true)),
        GradOp::AvgPool(w) => one(ops::conv::pool2d(first(ins)?, w, false)),
        GradOp::PoolGrad { w, max } => {
            one(ops::conv::pool2d_grad(first(ins)?, second(ins)?, w, *max))
        }
        GradOp::Pad(pads) => {
            let pads: Vec<[i64; 2]> = pads.iter().map(|p| [p[0] as i64, p[1] as i64]).collect();
            one(ops::scatter::pad(
                first(ins)?,
                &pads,
                &[pads.len(), 2],
                ins.get(1),
            ))
        }
        GradOp::MirrorPad { pads, symmetric } => {
            let pads: Vec<[i64; 2]> = pads.iter().map(|p| [p[0] as i64, p[1] as i64]).collect();
            one(ops::scatter::mirror_pad(
                first(ins)?,
                &pads,
                &[pads.len(), 2],
                *symmetric,
            ))
        }
        GradOp::GatherNd => one(ops::scatter::gather_nd(first(ins)?, second(ins)?)),
        GradOp::ScatterNd(shape) => one(ops::scatter::scatter_nd(first(ins)?, second(ins)?, shape)),
        GradOp::TensorScatter(mode) => {
            let u = ins
                .get(2)
                .ok_or_else(|| Error::internal("graph replay: a scatter lacks its updates"))?;
            one(ops::scatter::tensor_scatter(
                first(ins)?,
                second(ins)?,
                u,
                *mode,
            ))
        }
        GradOp::Segment { op, num } => one(match num {
            Some(num) => {
                ops::segment_reduce::unsorted_segment(*op, first(ins)?, second(ins)?, *num)
            }
            None => ops::segment_reduce::segment(*op, first(ins)?, second(ins)?),
        }),
        // the recorder never keeps these (it taints the graph instead)
        GradOp::Custom(_) | GradOp::NoGrad(_) => Err(Error::internal(format!(
            "graph replay: {} cannot be replayed",
            op.name()
        ))),
    }
}
