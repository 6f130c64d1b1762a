//! A traced function graph as a `FunctionDef`: each live node becomes the
//! `NodeDef` of TensorFlow's op with its attributes, the attributes dist
//! keeps as Rust values (reduction axes, shapes, permutations) become the
//! `Const` inputs TensorFlow's ops take them as, each variable read becomes a
//! `ReadVariableOp` of a resource argument (the function's captured
//! variables, after its inputs), and each output passes through an
//! `Identity` as in TensorFlow's functions.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::proto::{attr_value::Value as AV, ArgAttrs, ArgDef, AttrValue, DtypeAndShape};
use super::proto::{FunctionDef, ListValue, NodeDef, OpDef};
use super::{dtype_code, shape_proto, tensor_proto, tf_ops, DT_RESOURCE};
use crate::runtime::autodiff::GradOp;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::graph::shapes::StaticShape;
use crate::runtime::graph::{Graph, NodeOp, Port};
use crate::runtime::ops::conv::{Padding, Window};
use crate::runtime::ops::IndexItem;
use crate::runtime::tensor::Tensor;

/// A function graph written as a `FunctionDef`.
pub struct Exported {
    /// The function.
    pub def: FunctionDef,
    /// The variables it captures, by their resources' addresses, in the
    /// order of its resource arguments.
    pub resources: Vec<usize>,
}

/// One input of a `NodeDef` being written.
enum In {
    /// The node's graph input `k`.
    Graph(usize),
    /// A `Const` node made for the op (`NAME/suffix`).
    Const(&'static str, Tensor),
}

/// A node's op, attributes and inputs as TensorFlow writes them.
struct TfNode {
    op: &'static str,
    attrs: Vec<(&'static str, AV)>,
    inputs: Vec<In>,
}

fn ty(d: DType) -> AV {
    AV::Type(dtype_code(d))
}

fn ints(v: impl IntoIterator<Item = i64>) -> AV {
    AV::List(ListValue {
        i: v.into_iter().collect(),
        ..Default::default()
    })
}

fn i32s(v: &[i64]) -> Result<Tensor> {
    let v: Vec<i32> = v.iter().map(|&x| x as i32).collect();
    let n = v.len();
    Tensor::from_vec(v, &[n])
}

fn i32_scalar(v: i64) -> Result<Tensor> {
    Tensor::from_vec(vec![v as i32], &[])
}

/// The writer of one function.
struct Writer<'g> {
    g: &'g Graph,
    def: FunctionDef,
    /// What each node output is called (`x`, `mul:z:0`).
    refs: HashMap<Port, String>,
    /// Names used so far.
    used: HashSet<String>,
    /// The resource argument of each variable (by address).
    resources: Vec<(usize, String)>,
}

impl Writer<'_> {
    fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(name.clone());
        name
    }

    fn input(&self, p: Port) -> Result<String> {
        self.refs
            .get(&p)
            .cloned()
            .ok_or_else(|| Error::internal(format!("saving a function: {} has no value", self.g.nodes[p.0].name)))
    }

    fn push(&mut self, name: String, op: &str, inputs: Vec<String>, attrs: Vec<(&str, AV)>) {
        let attr = attrs
            .into_iter()
            .map(|(k, v)| (k.to_string(), AttrValue { value: Some(v) }))
            .collect();
        self.def.node_def.push(NodeDef {
            name,
            op: op.to_string(),
            input: inputs,
            device: String::new(),
            attr,
        });
    }

    fn constant(&mut self, name: String, t: &Tensor) -> Result<String> {
        let value = AV::Tensor(tensor_proto(t)?);
        self.push(name.clone(), "Const", vec![], vec![("value", value), ("dtype", ty(t.dtype()))]);
        Ok(format!("{name}:output:0"))
    }

    /// The resource argument of the variable at `addr` (added on first use).
    fn resource(&mut self, addr: usize, node: &str, dtype: DType, shape: &StaticShape) -> String {
        if let Some((_, n)) = self.resources.iter().find(|(a, _)| *a == addr) {
            return n.clone();
        }
        let base = format!("{}_resource", arg_name(node));
        let name = self.unique(&base);
        self.resources.push((addr, name.clone()));
        let sig = self.def.signature.get_or_insert_with(Default::default);
        sig.input_arg.push(ArgDef {
            name: name.clone(),
            r#type: DT_RESOURCE,
            handle_data: vec![DtypeAndShape {
                dtype: dtype_code(dtype),
                shape: Some(shape_proto(shape)),
            }],
        });
        name
    }
}

/// A valid argument name (`[a-z][a-z0-9_]*`) for a node name.
fn arg_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_lowercase()) {
        s.insert(0, 'a');
    }
    s
}

/// Writes `g` as the function `name`, its inputs the placeholders in the
/// order `inputs` gives (indices into the graph's placeholders; None: their
/// own), its outputs `outputs` (the graph's outputs in the order of the
/// function's flattened result).
pub fn export(g: &Graph, name: &str, inputs: Option<&[usize]>, outputs: &[Port]) -> Result<Exported> {
    let mut w = Writer {
        g,
        def: FunctionDef::default(),
        refs: HashMap::new(),
        used: HashSet::new(),
        resources: Vec::new(),
    };
    w.def.signature = Some(OpDef {
        name: name.to_string(),
        ..Default::default()
    });
    // the inputs first, in order
    let own: Vec<usize> = (0..g.placeholders.len()).collect();
    let order = inputs.unwrap_or(&own);
    if order.len() != g.placeholders.len() {
        return Err(Error::internal("saving a function: its inputs are not its placeholders"));
    }
    for (k, &pi) in order.iter().enumerate() {
        let p = *g
            .placeholders
            .get(pi)
            .ok_or_else(|| Error::internal("saving a function: no such input"))?;
        let n = &g.nodes[p];
        let arg = w.unique(&arg_name(&n.name));
        let dtype = n.outputs.first().map_or(DType::Float32, |o| o.0);
        if let Some(sig) = w.def.signature.as_mut() {
            sig.input_arg.push(ArgDef {
                name: arg.clone(),
                r#type: dtype_code(dtype),
                handle_data: vec![],
            });
        }
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "_user_specified_name".to_string(),
            AttrValue {
                value: Some(AV::S(n.name.clone().into_bytes())),
            },
        );
        w.def.arg_attr.insert(k as u32, ArgAttrs { attr: attrs });
        w.refs.insert((p, 0), arg);
    }
    let live = crate::runtime::graph::live_nodes(g);
    let mut stateful = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if !live[i] {
            continue;
        }
        let node_name = w.unique(&n.name);
        match &n.op {
            NodeOp::Placeholder => {}
            NodeOp::Const(t) => {
                if g.is_dynamic((i, 0)) {
                    return Err(Error::unimplemented(format!(
                        "the function uses the shape of a tensor whose dims are unknown ({}), which dist's graphs hold as this trace's constant: dist cannot save it yet",
                        n.name
                    )));
                }
                let r = w.constant(node_name, t)?;
                w.refs.insert((i, 0), r);
            }
            NodeOp::ReadVariable(res) => {
                let addr = std::rc::Rc::as_ptr(res) as *const () as usize;
                let (dtype, _) = n.outputs.first().cloned().ok_or_else(|| Error::internal("a read without a value"))?;
                let shape = g.static_port((i, 0));
                let arg = w.resource(addr, &node_name, dtype, &shape);
                w.push(node_name.clone(), "ReadVariableOp", vec![arg], vec![("dtype", ty(dtype))]);
                w.refs.insert((i, 0), format!("{node_name}:value:0"));
                stateful.push(node_name);
            }
            NodeOp::AssignVariable(res) => {
                let addr = std::rc::Rc::as_ptr(res) as *const () as usize;
                let p = *n.inputs.first().ok_or_else(|| Error::internal("an assignment without a value"))?;
                let dtype = g.nodes[p.0].outputs.get(p.1).map_or(DType::Float32, |o| o.0);
                let shape = g.static_port(p);
                let arg = w.resource(addr, &node_name, dtype, &shape);
                let value = w.input(p)?;
                w.push(node_name.clone(), "AssignVariableOp", vec![arg, value], vec![("dtype", ty(dtype))]);
                stateful.push(node_name);
            }
            NodeOp::Op(op) => {
                let tf = tf_node(g, i, op)?;
                let mut inputs = Vec::new();
                for input in tf.inputs {
                    inputs.push(match input {
                        In::Graph(k) => {
                            let p = *n.inputs.get(k).ok_or_else(|| Error::internal("an op lacks an input"))?;
                            w.input(p)?
                        }
                        In::Const(suffix, t) => {
                            let cname = w.unique(&format!("{node_name}/{suffix}"));
                            w.constant(cname, &t)?
                        }
                    });
                }
                let args = tf_ops::output_args(tf.op)
                    .ok_or_else(|| Error::internal(format!("no output names for {}", tf.op)))?;
                for k in 0..n.outputs.len() {
                    let r = if args.len() == 1 {
                        format!("{node_name}:{}:{k}", args[0])
                    } else {
                        format!("{node_name}:{}:0", args.get(k).copied().unwrap_or("output"))
                    };
                    w.refs.insert((i, k), r);
                }
                w.push(node_name, tf.op, inputs, tf.attrs);
            }
            NodeOp::Effect(_) => {
                return Err(Error::unimplemented(format!(
                    "the function has a host effect ({}, e.g. tf.print): dist cannot save it yet",
                    n.op_type
                )))
            }
            NodeOp::Cond(_) | NodeOp::While(..) => {
                return Err(Error::unimplemented(format!(
                    "the function has control flow ({}): dist cannot save it yet",
                    n.op_type
                )))
            }
        }
    }
    // each output through an Identity, after the stateful ops
    let noop = if stateful.is_empty() {
        None
    } else {
        let name = w.unique("NoOp");
        let deps = stateful.iter().map(|s| format!("^{s}")).collect();
        w.push(name.clone(), "NoOp", deps, vec![]);
        Some(name)
    };
    for (k, &p) in outputs.iter().enumerate() {
        let dtype = g.nodes[p.0].outputs.get(p.1).map_or(DType::Float32, |o| o.0);
        let name = w.unique("Identity");
        let mut inputs = vec![w.input(p)?];
        if let Some(n) = &noop {
            inputs.push(format!("^{n}"));
        }
        w.push(name.clone(), "Identity", inputs, vec![("T", ty(dtype))]);
        let ret = if k == 0 {
            "identity".to_string()
        } else {
            format!("identity_{k}")
        };
        if let Some(sig) = w.def.signature.as_mut() {
            sig.output_arg.push(ArgDef {
                name: ret.clone(),
                r#type: dtype_code(dtype),
                handle_data: vec![],
            });
        }
        w.def.ret.insert(ret, format!("{name}:output:0"));
    }
    if let Some(sig) = w.def.signature.as_mut() {
        sig.is_stateful = !stateful.is_empty();
        sig.control_output = stateful.clone();
    }
    for s in &stateful {
        w.def.control_ret.insert(s.clone(), s.clone());
    }
    w.def.attr.insert(
        "_construction_context".to_string(),
        AttrValue {
            value: Some(AV::S(b"kEagerRuntime".to_vec())),
        },
    );
    Ok(Exported {
        def: w.def,
        resources: w.resources.into_iter().map(|(a, _)| a).collect(),
    })
}

/// The shape a reshape-like node produces, as `Reshape`'s shape input
/// (`-1` for its one unknown dim).
fn reshape_target(g: &Graph, i: usize) -> Result<Vec<i64>> {
    let s = g.static_port((i, 0));
    let d = s.ok_or_else(|| Error::unimplemented("a reshape to an unknown rank cannot be saved by dist yet"))?;
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
        .ok_or_else(|| Error::unimplemented(format!("{what} of a shape with unknown dims cannot be saved by dist yet")))
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
        a.push(("explicit_paddings", ints([0, 0, t as i64, b as i64, l as i64, r as i64, 0, 0])));
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
fn strided_slice(items: &[IndexItem]) -> Result<(Vec<In>, Vec<(&'static str, AV)>)> {
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
fn tf_node(g: &Graph, i: usize, op: &GradOp) -> Result<TfNode> {
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
        GradOp::Unary(u) => simple(u.name(), if bool_in(u.name()) { vec![] } else { vec![("T", t)] }),
        GradOp::Binary(b) => simple(b.name(), if bool_in(b.name()) { vec![] } else { vec![("T", t)] }),
        GradOp::SquaredDifference => simple("SquaredDifference", vec![("T", t)]),
        GradOp::DivNoNan => simple("DivNoNan", vec![("T", t)]),
        GradOp::AddN => simple("AddN", vec![("N", AV::I(n.inputs.len() as i64)), ("T", t)]),
        GradOp::Cast => {
            let to = n.outputs.first().map_or(DType::Float32, |o| o.0);
            simple("Cast", vec![("SrcT", t), ("DstT", ty(to))])
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
            inputs: vec![In::Graph(0), In::Const("shape", i32s(&reshape_target(g, i)?)?)],
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
                attrs: vec![("N", AV::I(n.inputs.len() as i64)), ("T", t), ("Tidx", ty(DType::Int32))],
                inputs,
            }
        }
        GradOp::Pack(axis) => simple(
            "Pack",
            vec![("N", AV::I(n.inputs.len() as i64)), ("T", t), ("axis", AV::I(*axis as i64))],
        ),
        GradOp::Unpack(axis) => simple(
            "Unpack",
            vec![("num", AV::I(n.outputs.len() as i64)), ("T", t), ("axis", AV::I(*axis as i64))],
        ),
        GradOp::Split(axis) => {
            let sizes = (0..n.outputs.len())
                .map(|k| known_dims(g, (i, k), "a split").map(|d| d.get(*axis).copied().unwrap_or(0) as i64))
                .collect::<Result<Vec<_>>>()?;
            TfNode {
                op: "SplitV",
                attrs: vec![("num_split", AV::I(sizes.len() as i64)), ("T", t), ("Tlen", ty(DType::Int32))],
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
            let d: Vec<i64> = known_dims(g, (i, 0), "a broadcast")?.iter().map(|&x| x as i64).collect();
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
                inputs: vec![In::Graph(0), In::Graph(1), In::Const("axis", i32_scalar(*axis as i64)?)],
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
        GradOp::Cumsum { axis, exclusive, reverse } | GradOp::Cumprod { axis, exclusive, reverse } => {
            let name = if matches!(op, GradOp::Cumsum { .. }) { "Cumsum" } else { "Cumprod" };
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
                attrs: vec![("T", t), ("Tidx", ty(DType::Int32)), ("output_type", ty(out))],
                inputs: vec![In::Graph(0), In::Const("dimension", i32_scalar(*axis as i64)?)],
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
            simple(if matches!(op, GradOp::MaxPool(_)) { "MaxPool" } else { "AvgPool" }, attrs)
        }
        GradOp::Pad(pads) => {
            let flat: Vec<i64> = pads.iter().flat_map(|p| [p[0] as i64, p[1] as i64]).collect();
            let paddings = Tensor::from_vec(flat.iter().map(|&x| x as i32).collect::<Vec<_>>(), &[pads.len(), 2])?;
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
