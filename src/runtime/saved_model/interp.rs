//! Runs a `FunctionDef` of a SavedModel: the nodes its results (and its
//! stateful nodes) need, in dependency order, each TensorFlow op on the
//! runtime's kernel for it, so results are the runtime's eager results and
//! a gradient tape records them as it records eager ops. Calls
//! (`StatefulPartitionedCall`) run the called function of the library;
//! variables are the caller's, reached through [`Env`].

use std::collections::{HashMap, VecDeque};

use super::proto::{attr_value::Value as AV, AttrValue, FunctionDef, NodeDef};
use super::{dtype_of, tensor_from_proto, tf_ops};
use crate::runtime::device::Device;
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{ArgOp, BinaryOp, ReduceOp, UnaryOp};
use crate::runtime::ops::conv::{Padding, Window};
use crate::runtime::ops::{self, IndexItem, SplitSpec};
use crate::runtime::tensor::Tensor;
use crate::runtime::Semantics;

/// A value flowing between nodes: a tensor, or a variable (the index of one
/// of the outermost call's captured variables).
#[derive(Clone)]
pub enum V {
    /// A tensor.
    T(Tensor),
    /// A variable.
    R(usize),
}

/// How an assignment updates a variable.
#[derive(Clone, Copy)]
pub enum Assign {
    /// `AssignVariableOp`.
    Set,
    /// `AssignAddVariableOp`.
    Add,
    /// `AssignSubVariableOp`.
    Sub,
}

/// The caller's variables.
pub trait Env {
    /// The value of variable `r`.
    fn read(&mut self, r: usize) -> Result<Tensor>;
    /// Updates variable `r`.
    fn assign(&mut self, r: usize, how: Assign, value: &Tensor) -> Result<()>;
    /// Called before each node runs (interrupts, step limits).
    fn poll(&mut self) -> Result<()>;
}

/// The functions of a SavedModel, by name.
pub type Library = HashMap<String, FunctionDef>;

/// How deep calls may nest (a SavedModel whose functions call each other
/// in a cycle is refused, not a stack overflow).
const MAX_DEPTH: usize = 64;

/// Calls the function `name` of `lib` on `args` (its inputs, then its
/// captured variables), giving its outputs.
pub fn call(lib: &Library, name: &str, args: &[V], env: &mut dyn Env) -> Result<Vec<V>> {
    call_at(lib, name, args, env, 0)
}

fn bad(msg: impl Into<String>) -> Error {
    Error::invalid_argument(msg)
}

fn call_at(
    lib: &Library,
    name: &str,
    args: &[V],
    env: &mut dyn Env,
    depth: usize,
) -> Result<Vec<V>> {
    if depth > MAX_DEPTH {
        return Err(bad(format!(
            "function calls nest deeper than {MAX_DEPTH} at {name}"
        )));
    }
    let f = lib
        .get(name)
        .ok_or_else(|| bad(format!("the SavedModel has no function {name}")))?;
    let sig = f.signature.clone().unwrap_or_default();
    if sig.input_arg.len() != args.len() {
        return Err(bad(format!(
            "{name} takes {} inputs, got {}",
            sig.input_arg.len(),
            args.len()
        )));
    }
    let by_name: HashMap<&str, usize> = f
        .node_def
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let arg_index: HashMap<&str, usize> = sig
        .input_arg
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name.as_str(), i))
        .collect();
    // a reference: an argument, or (node, output index); control inputs apart
    enum Ref {
        Arg(usize),
        Node(usize, usize),
    }
    let parse = |s: &str| -> Result<Ref> {
        if let Some(&k) = arg_index.get(s) {
            return Ok(Ref::Arg(k));
        }
        let mut parts = s.split(':');
        let node = parts.next().unwrap_or("");
        let &i = by_name
            .get(node)
            .ok_or_else(|| bad(format!("{name}: no node or argument {s}")))?;
        let (arg, idx) = match (parts.next(), parts.next()) {
            (Some(a), Some(k)) => (
                a,
                k.parse::<usize>()
                    .map_err(|_| bad(format!("{name}: bad reference {s}")))?,
            ),
            (None, None) => ("", 0),
            _ => return Err(bad(format!("{name}: bad reference {s}"))),
        };
        let op = &f.node_def[i].op;
        let out = if arg.is_empty() {
            Some(idx)
        } else {
            tf_ops::output_index(op, arg, idx)
        };
        out.map(|o| Ref::Node(i, o))
            .ok_or_else(|| bad(format!("{name}: {op} has no output {arg}:{idx}")))
    };
    // the nodes the results and the stateful outputs need
    let n = f.node_def.len();
    let mut needed = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut roots: Vec<&str> = f.ret.values().map(|s| s.as_str()).collect();
    roots.extend(f.control_ret.values().map(|s| s.as_str()));
    for r in roots {
        if let Ref::Node(i, _) = parse(r)? {
            stack.push(i);
        }
    }
    while let Some(i) = stack.pop() {
        if needed[i] {
            continue;
        }
        needed[i] = true;
        for inp in &f.node_def[i].input {
            let s = inp.strip_prefix('^').unwrap_or(inp);
            if let Ref::Node(j, _) = parse(s)? {
                stack.push(j);
            }
        }
    }
    // dependency order (Kahn)
    let mut waiting = vec![0usize; n];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in (0..n).filter(|&i| needed[i]) {
        for inp in &f.node_def[i].input {
            let s = inp.strip_prefix('^').unwrap_or(inp);
            if let Ref::Node(j, _) = parse(s)? {
                waiting[i] += 1;
                users[j].push(i);
            }
        }
    }
    let mut ready: VecDeque<usize> = (0..n).filter(|&i| needed[i] && waiting[i] == 0).collect();
    let mut values: Vec<Option<Vec<V>>> = vec![None; n];
    let mut done = 0;
    while let Some(i) = ready.pop_front() {
        env.poll()?;
        let node = &f.node_def[i];
        let mut ins = Vec::new();
        for inp in node.input.iter().filter(|s| !s.starts_with('^')) {
            ins.push(match parse(inp)? {
                Ref::Arg(k) => args[k].clone(),
                Ref::Node(j, o) => values[j]
                    .as_ref()
                    .and_then(|v| v.get(o))
                    .cloned()
                    .ok_or_else(|| bad(format!("{name}: {inp} has no value")))?,
            });
        }
        let out = run_node(lib, node, ins, env, depth).map_err(|e| {
            let msg = format!("{} (in node {} of {name})", e.message(), node.name);
            Error::new(e.kind(), msg)
        })?;
        values[i] = Some(out);
        done += 1;
        for &u in &users[i] {
            waiting[u] -= 1;
            if waiting[u] == 0 {
                ready.push_back(u);
            }
        }
    }
    if done != needed.iter().filter(|&&b| b).count() {
        return Err(bad(format!("{name}: its nodes form a cycle")));
    }
    sig.output_arg
        .iter()
        .map(|a| {
            let r = f
                .ret
                .get(&a.name)
                .ok_or_else(|| bad(format!("{name}: no result for {}", a.name)))?;
            match parse(r)? {
                Ref::Arg(k) => Ok(args[k].clone()),
                Ref::Node(j, o) => values[j]
                    .as_ref()
                    .and_then(|v| v.get(o))
                    .cloned()
                    .ok_or_else(|| bad(format!("{name}: {r} has no value"))),
            }
        })
        .collect()
}

/// A node's attributes, read with TensorFlow's defaults.
struct Attrs<'a>(&'a NodeDef);

impl Attrs<'_> {
    fn get(&self, k: &str) -> Option<&AV> {
        self.0
            .attr
            .get(k)
            .and_then(|a: &AttrValue| a.value.as_ref())
    }
    fn ty(&self, k: &str) -> Result<Option<DType>> {
        match self.get(k) {
            Some(AV::Type(t)) => dtype_of(*t).map(Some),
            _ => Ok(None),
        }
    }
    fn b(&self, k: &str) -> bool {
        matches!(self.get(k), Some(AV::B(true)))
    }
    fn i(&self, k: &str, default: i64) -> i64 {
        match self.get(k) {
            Some(AV::I(i)) => *i,
            _ => default,
        }
    }
    fn f(&self, k: &str, default: f64) -> f64 {
        match self.get(k) {
            Some(AV::F(f)) => *f as f64,
            _ => default,
        }
    }
    fn s(&self, k: &str) -> String {
        match self.get(k) {
            Some(AV::S(s)) => String::from_utf8_lossy(s).into_owned(),
            _ => String::new(),
        }
    }
    fn ints(&self, k: &str) -> Vec<i64> {
        match self.get(k) {
            Some(AV::List(l)) => l.i.clone(),
            _ => vec![],
        }
    }
}

fn tensor(v: &V) -> Result<&Tensor> {
    match v {
        V::T(t) => Ok(t),
        V::R(_) => Err(bad("a variable where a tensor is expected")),
    }
}

fn nth(ins: &[V], k: usize) -> Result<&Tensor> {
    tensor(
        ins.get(k)
            .ok_or_else(|| bad(format!("missing input {k}")))?,
    )
}

/// A tensor's elements as integers.
fn ints_of(t: &Tensor) -> Result<Vec<i64>> {
    if !t.dtype().is_integer() {
        return Err(bad(format!(
            "expected an integer tensor, got {}",
            t.dtype().name()
        )));
    }
    Ok(t.to_scalars()
        .iter()
        .map(|s| match s {
            Scalar::Int(i) => *i,
            other => other.as_f64() as i64,
        })
        .collect())
}

fn dims_of(t: &Tensor) -> Result<Vec<usize>> {
    ints_of(t)?
        .into_iter()
        .map(|d| usize::try_from(d).map_err(|_| bad(format!("a negative dimension {d}"))))
        .collect()
}

fn one(t: Result<Tensor>) -> Result<Vec<V>> {
    t.map(|t| vec![V::T(t)])
}

fn int_tensor(v: Vec<i64>, dtype: DType) -> Result<Tensor> {
    let n = v.len();
    let t = Tensor::from_vec(v, &[n])?;
    if dtype == DType::Int64 {
        Ok(t)
    } else {
        ops::cast(&t, dtype)
    }
}

/// The window of a `Conv2D` / pooling node (NHWC only).
fn window(a: &Attrs, pool: bool) -> Result<Window> {
    let df = a.s("data_format");
    if !df.is_empty() && df != "NHWC" {
        return Err(Error::unimplemented(format!(
            "data_format={df} is not supported by dist yet"
        )));
    }
    let pair = |v: Vec<i64>, default: usize| -> [usize; 2] {
        [
            v.get(1).map_or(default, |&x| x.max(0) as usize),
            v.get(2).map_or(default, |&x| x.max(0) as usize),
        ]
    };
    let padding = match a.s("padding").as_str() {
        "SAME" => Padding::Same,
        "VALID" => Padding::Valid,
        "EXPLICIT" => {
            let p = a.ints("explicit_paddings");
            let g = |k: usize| p.get(k).map_or(0, |&x| x.max(0) as usize);
            Padding::Explicit([g(2), g(3), g(4), g(5)])
        }
        other => return Err(bad(format!("unknown padding {other:?}"))),
    };
    Ok(Window {
        size: if pool {
            pair(a.ints("ksize"), 1)
        } else {
            [0, 0]
        },
        strides: pair(a.ints("strides"), 1),
        dilations: if pool {
            [1, 1]
        } else {
            pair(a.ints("dilations"), 1)
        },
        padding,
        dilated_grad: false,
    })
}

/// A `StridedSlice`'s subscript.
fn slice_items(a: &Attrs, begin: &[i64], end: &[i64], strides: &[i64]) -> Result<Vec<IndexItem>> {
    if begin.len() != end.len() || begin.len() != strides.len() {
        return Err(bad("StridedSlice: begin, end and strides differ in length"));
    }
    let (bm, em, el, na, sh) = (
        a.i("begin_mask", 0),
        a.i("end_mask", 0),
        a.i("ellipsis_mask", 0),
        a.i("new_axis_mask", 0),
        a.i("shrink_axis_mask", 0),
    );
    Ok((0..begin.len())
        .map(|k| {
            let bit = 1i64 << k.min(62);
            if el & bit != 0 {
                IndexItem::Ellipsis
            } else if na & bit != 0 {
                IndexItem::NewAxis
            } else if sh & bit != 0 {
                IndexItem::Int(begin[k])
            } else {
                IndexItem::Slice {
                    start: (bm & bit == 0).then_some(begin[k]),
                    stop: (em & bit == 0).then_some(end[k]),
                    step: Some(strides[k]),
                }
            }
        })
        .collect())
}

fn run_node(
    lib: &Library,
    node: &NodeDef,
    ins: Vec<V>,
    env: &mut dyn Env,
    depth: usize,
) -> Result<Vec<V>> {
    let a = Attrs(node);
    let op = node.op.as_str();
    let x = || nth(&ins, 0);
    let y = || nth(&ins, 1);
    if let Some(u) = UnaryOp::ALL.iter().find(|u| u.name() == op) {
        return one(ops::unary(*u, x()?));
    }
    let binary = match op {
        "Add" => Some(BinaryOp::Add),
        "Div" if x()?.dtype().is_floating() => Some(BinaryOp::RealDiv),
        _ => BinaryOp::ALL.iter().find(|b| b.name() == op).copied(),
    };
    if let Some(b) = binary {
        return one(ops::binary(b, x()?, y()?));
    }
    if let Some(r) = ReduceOp::ALL.iter().find(|r| r.name() == op) {
        let axes = ints_of(y()?)?;
        return one(ops::reduce(*r, x()?, Some(&axes), a.b("keep_dims")));
    }
    if let Some(r) = ArgOp::ALL.iter().find(|r| r.name() == op) {
        let axis = ints_of(y()?)?.first().copied().unwrap_or(0);
        let t = ops::arg_reduce(*r, x()?, axis, Semantics::Tf)?;
        let to = a.ty("output_type")?.unwrap_or(DType::Int64);
        return one(if t.dtype() == to {
            Ok(t)
        } else {
            ops::cast(&t, to)
        });
    }
    match op {
        "Const" => match a.get("value") {
            Some(AV::Tensor(p)) => one(tensor_from_proto(p)),
            _ => Err(bad("Const without a value")),
        },
        "Identity" | "StopGradient" | "Snapshot" | "IdentityN" => Ok(ins),
        "NoOp" => Ok(vec![]),
        "ReadVariableOp" => match ins.first() {
            Some(V::R(r)) => one(env.read(*r)),
            _ => Err(bad("ReadVariableOp of something that is not a variable")),
        },
        "AssignVariableOp" | "AssignAddVariableOp" | "AssignSubVariableOp" => {
            let how = match op {
                "AssignVariableOp" => Assign::Set,
                "AssignAddVariableOp" => Assign::Add,
                _ => Assign::Sub,
            };
            match ins.first() {
                Some(V::R(r)) => env.assign(*r, how, y()?)?,
                _ => return Err(bad(format!("{op} of something that is not a variable"))),
            }
            Ok(vec![])
        }
        "StatefulPartitionedCall" | "PartitionedCall" => {
            let f = match a.get("f") {
                Some(AV::Func(f)) => f.name.clone(),
                _ => return Err(bad(format!("{op} without a function"))),
            };
            call_at(lib, &f, &ins, env, depth + 1)
        }
        "Cast" => {
            let to = a.ty("DstT")?.ok_or_else(|| bad("Cast without DstT"))?;
            one(ops::cast(x()?, to))
        }
        "SelectV2" | "Select" => one(ops::where_select(x()?, y()?, nth(&ins, 2)?)),
        "Complex" => one(ops::complex::complex(x()?, y()?)),
        "Real" | "Imag" | "Angle" | "ComplexAbs" | "Conj" => {
            use ops::complex::ComplexOp as C;
            let part = match op {
                "Real" => C::Real,
                "Imag" => C::Imag,
                "Angle" => C::Angle,
                "ComplexAbs" => C::Abs,
                _ => C::Conj,
            };
            one(ops::complex::part(part, x()?))
        }
        "AddN" => {
            let ts: Vec<Tensor> = ins
                .iter()
                .map(|v| tensor(v).cloned())
                .collect::<Result<_>>()?;
            one(ops::add_n(&ts))
        }
        "MatMul" => one(ops::matmul(
            x()?,
            y()?,
            a.b("transpose_a"),
            a.b("transpose_b"),
        )),
        "BatchMatMulV2" | "BatchMatMulV3" | "BatchMatMul" => {
            one(ops::matmul(x()?, y()?, a.b("adj_x"), a.b("adj_y")))
        }
        "Reshape" => one(ops::reshape(x()?, &ints_of(y()?)?, Semantics::Tf)),
        "ExpandDims" => one(ops::expand_dims(
            x()?,
            ints_of(y()?)?.first().copied().unwrap_or(0),
        )),
        "Squeeze" => {
            let dims = a.ints("squeeze_dims");
            one(ops::squeeze(x()?, (!dims.is_empty()).then_some(&dims[..])))
        }
        "Transpose" => one(ops::transpose(x()?, Some(&ints_of(y()?)?))),
        "ConcatV2" => {
            let (axis, vals) = ins
                .split_last()
                .ok_or_else(|| bad("ConcatV2 without inputs"))?;
            let ts: Vec<Tensor> = vals
                .iter()
                .map(|v| tensor(v).cloned())
                .collect::<Result<_>>()?;
            let axis = ints_of(tensor(axis)?)?.first().copied().unwrap_or(0);
            one(ops::concat(&ts, axis))
        }
        "Pack" => {
            let ts: Vec<Tensor> = ins
                .iter()
                .map(|v| tensor(v).cloned())
                .collect::<Result<_>>()?;
            one(ops::stack(&ts, a.i("axis", 0)))
        }
        "Unpack" => Ok(ops::unstack(x()?, a.i("axis", 0))?
            .into_iter()
            .map(V::T)
            .collect()),
        "SplitV" => {
            let sizes = ints_of(y()?)?;
            let axis = ints_of(nth(&ins, 2)?)?.first().copied().unwrap_or(0);
            Ok(ops::split(x()?, &SplitSpec::Sizes(sizes), axis)?
                .into_iter()
                .map(V::T)
                .collect())
        }
        "Split" => {
            let axis = ints_of(x()?)?.first().copied().unwrap_or(0);
            let n = usize::try_from(a.i("num_split", 1)).map_err(|_| bad("bad num_split"))?;
            Ok(ops::split(y()?, &SplitSpec::Count(n), axis)?
                .into_iter()
                .map(V::T)
                .collect())
        }
        "Tile" => one(ops::tile(x()?, &dims_of(y()?)?)),
        "BroadcastTo" => one(ops::broadcast_to(x()?, &dims_of(y()?)?)),
        "ReverseV2" => {
            let axes = ops::reorder::reverse_axes(x()?, &ints_of(y()?)?)?;
            one(ops::reorder::reverse(x()?, &axes))
        }
        "GatherV2" => {
            let axis = ints_of(nth(&ins, 2)?)?.first().copied().unwrap_or(0);
            one(ops::gather_batched(x()?, y()?, axis, a.i("batch_dims", 0)))
        }
        "StridedSlice" => {
            let (b, e, s) = (
                ints_of(y()?)?,
                ints_of(nth(&ins, 2)?)?,
                ints_of(nth(&ins, 3)?)?,
            );
            one(ops::index(
                x()?,
                &slice_items(&a, &b, &e, &s)?,
                Semantics::Tf,
            ))
        }
        "Softmax" | "LogSoftmax" => one(ops::nn::softmax(x()?, -1, op == "LogSoftmax")),
        "Relu6" => one(ops::nn::relu6(x()?)),
        "LeakyRelu" => one(ops::nn::leaky_relu(x()?, a.f("alpha", 0.2))),
        "Elu" => one(ops::nn::elu(x()?)),
        "Selu" => one(ops::nn::selu(x()?)),
        "Softplus" => one(ops::nn::softplus(x()?)),
        "SquaredDifference" => one(ops::nn_loss::squared_difference(x()?, y()?)),
        "DivNoNan" => one(ops::nn_loss::div_no_nan(x()?, y()?)),
        "MulNoNan" | "Xlogy" | "Xdivy" | "Xlog1py" => {
            use ops::zero_safe::{zero_safe, ZeroSafe};
            let z = match op {
                "MulNoNan" => ZeroSafe::MulNoNan,
                "Xlogy" => ZeroSafe::Xlogy,
                "Xdivy" => ZeroSafe::Xdivy,
                _ => ZeroSafe::Xlog1py,
            };
            one(zero_safe(z, x()?, y()?))
        }
        "Lgamma" | "Digamma" | "Erfinv" | "Ndtri" | "Igamma" | "Igammac" | "IgammaGradA"
        | "Zeta" | "Polygamma" | "Betainc" => {
            let s = ops::special::Special::from_name(op).expect("a special op");
            let ins: Vec<&Tensor> = (0..s.arity())
                .map(|i| nth(&ins, i))
                .collect::<Result<_>>()?;
            one(ops::special::special(s, &ins))
        }
        "L2Loss" => one(ops::l2_loss(x()?)),
        "BiasAdd" | "BiasAddV1" => one(ops::nn_loss::bias_add(
            x()?,
            y()?,
            a.s("data_format") == "NCHW",
        )),
        "Conv2D" => one(ops::conv::conv2d(x()?, y()?, &window(&a, false)?)),
        "MaxPool" | "AvgPool" => one(ops::conv::pool2d(x()?, &window(&a, true)?, op == "MaxPool")),
        "Pad" | "PadV2" => {
            let p = ints_of(y()?)?;
            let pads: Vec<[i64; 2]> = p
                .chunks(2)
                .map(|c| [c[0], *c.get(1).unwrap_or(&0)])
                .collect();
            let pads_dims = y()?.dims().to_vec();
            let value = if op == "PadV2" {
                Some(nth(&ins, 2)?)
            } else {
                None
            };
            one(ops::scatter::pad(x()?, &pads, &pads_dims, value))
        }
        "Einsum" => {
            let ts: Vec<Tensor> = ins
                .iter()
                .map(|v| tensor(v).cloned())
                .collect::<Result<_>>()?;
            one(ops::einsum::einsum_op(&a.s("equation"), &ts))
        }
        "Cumsum" | "Cumprod" => {
            let axis = ints_of(y()?)?.first().copied().unwrap_or(0);
            one(ops::scan::cumulative(
                x()?,
                axis,
                a.b("exclusive"),
                a.b("reverse"),
                op == "Cumprod",
            ))
        }
        "TopKV2" => {
            let k = ints_of(y()?)?.first().copied().unwrap_or(1);
            let (v, i) = ops::scan::top_k(x()?, k)?;
            Ok(vec![V::T(v), V::T(i)])
        }
        "Shape" | "Size" | "Rank" => {
            let t = x()?;
            let to = a.ty("out_type")?.unwrap_or(DType::Int32);
            match op {
                "Shape" => one(int_tensor(t.dims().iter().map(|&d| d as i64).collect(), to)),
                "Size" => one(ops::cast(&Tensor::scalar(t.numel() as i64), to)),
                _ => one(Ok(Tensor::scalar(t.rank() as i32))),
            }
        }
        "Fill" => {
            let dims = dims_of(x()?)?;
            one(ops::broadcast_to(y()?, &dims))
        }
        "ZerosLike" | "OnesLike" => {
            let t = x()?;
            let f = if op == "ZerosLike" {
                Tensor::zeros
            } else {
                Tensor::ones
            };
            one(f(t.dtype(), t.dims(), t.device()))
        }
        "Range" => {
            let (s, l, d) = (x()?.item()?, y()?.item()?, nth(&ins, 2)?.item()?);
            let dtype = x()?.dtype();
            one(ops::range(&s, &l, &d, dtype, Device::CPU0))
        }
        _ => Err(Error::unimplemented(format!(
            "dist cannot run the op {op} of a SavedModel yet"
        ))),
    }
}
