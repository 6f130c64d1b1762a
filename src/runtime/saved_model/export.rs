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
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::graph::shapes::StaticShape;
use crate::runtime::graph::{Graph, NodeOp, Port};
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
pub(super) enum In {
    /// The node's graph input `k`.
    Graph(usize),
    /// A `Const` node made for the op (`NAME/suffix`).
    Const(&'static str, Tensor),
}

/// A node's attributes as TensorFlow writes them.
pub(super) type Attrs = Vec<(&'static str, AV)>;

/// A node's op, attributes and inputs as TensorFlow writes them.
pub(super) struct TfNode {
    pub(super) op: &'static str,
    pub(super) attrs: Attrs,
    pub(super) inputs: Vec<In>,
}

pub(super) fn ty(d: DType) -> AV {
    AV::Type(dtype_code(d))
}

pub(super) fn ints(v: impl IntoIterator<Item = i64>) -> AV {
    AV::List(ListValue {
        i: v.into_iter().collect(),
        ..Default::default()
    })
}

pub(super) fn i32s(v: &[i64]) -> Result<Tensor> {
    let v: Vec<i32> = v.iter().map(|&x| x as i32).collect();
    let n = v.len();
    Tensor::from_vec(v, &[n])
}

pub(super) fn i32_scalar(v: i64) -> Result<Tensor> {
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
        self.refs.get(&p).cloned().ok_or_else(|| {
            Error::internal(format!(
                "saving a function: {} has no value",
                self.g.nodes[p.0].name
            ))
        })
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
        self.push(
            name.clone(),
            "Const",
            vec![],
            vec![("value", value), ("dtype", ty(t.dtype()))],
        );
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
pub fn export(
    g: &Graph,
    name: &str,
    inputs: Option<&[usize]>,
    outputs: &[Port],
) -> Result<Exported> {
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
        return Err(Error::internal(
            "saving a function: its inputs are not its placeholders",
        ));
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
                let (dtype, _) = n
                    .outputs
                    .first()
                    .cloned()
                    .ok_or_else(|| Error::internal("a read without a value"))?;
                let shape = g.static_port((i, 0));
                let arg = w.resource(addr, &node_name, dtype, &shape);
                w.push(
                    node_name.clone(),
                    "ReadVariableOp",
                    vec![arg],
                    vec![("dtype", ty(dtype))],
                );
                w.refs.insert((i, 0), format!("{node_name}:value:0"));
                stateful.push(node_name);
            }
            NodeOp::AssignVariable(res) => {
                let addr = std::rc::Rc::as_ptr(res) as *const () as usize;
                let p = *n
                    .inputs
                    .first()
                    .ok_or_else(|| Error::internal("an assignment without a value"))?;
                let dtype = g.nodes[p.0]
                    .outputs
                    .get(p.1)
                    .map_or(DType::Float32, |o| o.0);
                let shape = g.static_port(p);
                let arg = w.resource(addr, &node_name, dtype, &shape);
                let value = w.input(p)?;
                w.push(
                    node_name.clone(),
                    "AssignVariableOp",
                    vec![arg, value],
                    vec![("dtype", ty(dtype))],
                );
                stateful.push(node_name);
            }
            NodeOp::Op(op) => {
                let tf = super::export_ops::tf_node(g, i, op)?;
                let mut inputs = Vec::new();
                for input in tf.inputs {
                    inputs.push(match input {
                        In::Graph(k) => {
                            let p = *n
                                .inputs
                                .get(k)
                                .ok_or_else(|| Error::internal("an op lacks an input"))?;
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
        let dtype = g.nodes[p.0]
            .outputs
            .get(p.1)
            .map_or(DType::Float32, |o| o.0);
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
