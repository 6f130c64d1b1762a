//! Graph-level node records (`If`, `While`), liveness and the text form
//! of a graph (`dist run --graph`).

use std::cell::RefCell;
use std::rc::Rc;

use super::{current, exec, shapes, Branch, Graph, Node, NodeOp};
use crate::runtime::device::Device;
use crate::runtime::tensor::Tensor;

/// Whether a node changes something beyond its outputs (a variable, the
/// output stream), itself or in a branch it runs.
fn has_effects(n: &Node) -> bool {
    match &n.op {
        NodeOp::AssignVariable(_) | NodeOp::Effect(_) => true,
        NodeOp::Cond(bs) | NodeOp::While(bs, _) => bs
            .iter()
            .any(|b| b.graph.borrow().nodes.iter().any(has_effects)),
        _ => false,
    }
}

/// Records a `tf.cond` of the graph being traced: `pred`, the two branch
/// graphs (ended) and the taken branch's outputs, which become the node's.
pub fn record_cond(pred: &Tensor, branches: [Rc<RefCell<Graph>>; 2], outputs: &[&Tensor]) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    if let Some(why) = branches.iter().find_map(|b| b.borrow().taint.clone()) {
        g.set_taint(|| why);
        return;
    }
    let Some(pp) = g.port(pred, "If") else { return };
    let mut inputs = vec![pp];
    for b in &branches {
        inputs.extend(b.borrow().captures.iter().copied());
    }
    let [t, f] = branches;
    let make = |graph: Rc<RefCell<Graph>>| {
        let plan = exec::Plan::new(&graph.borrow());
        Branch { graph, plan }
    };
    // an output's static shape: unknown where either branch's is, or
    // where the two branches' sizes differ
    let branch_dims = |b: &Rc<RefCell<Graph>>, k: usize| {
        let b = b.borrow();
        let p = *b.outputs.get(k)?;
        let (_, shape) = b.nodes.get(p.0)?.outputs.get(p.1)?;
        Some(
            b.statics
                .get(&p)
                .cloned()
                .unwrap_or_else(|| Some(shape.dims().iter().map(|&d| Some(d)).collect())),
        )
    };
    // (an unknown rank where the branches' ranks differ)
    let statics: Vec<Option<shapes::StaticShape>> = (0..outputs.len())
        .map(|k| {
            let (a, b) = (branch_dims(&t, k)?, branch_dims(&f, k)?);
            Some(shapes::relaxed(a.as_deref(), b.as_deref()))
        })
        .collect();
    let bs = Rc::new([make(t), make(f)]);
    let device = pred.device();
    let idx = g.push("cond", "If", NodeOp::Cond(bs), inputs, outputs, device);
    g.set_statics(idx, statics);
}

/// Records a `tf.while_loop` of the graph being traced: the loop
/// variables' initial values, the condition and body graphs (ended; their
/// first placeholders are the variables) and the loop's results.
pub fn record_while(
    init: &[&Tensor],
    cond: Rc<RefCell<Graph>>,
    body: Rc<RefCell<Graph>>,
    outputs: &[&Tensor],
) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    let Some(mut inputs) = g.ports(init, "While") else {
        return;
    };
    let statics: Vec<Option<shapes::StaticShape>> =
        inputs.iter().map(|p| g.statics.get(p).cloned()).collect();
    for b in [&cond, &body] {
        inputs.extend(b.borrow().captures.iter().copied());
    }
    let make = |graph: Rc<RefCell<Graph>>| {
        let plan = exec::Plan::new(&graph.borrow());
        Branch { graph, plan }
    };
    let bs = Rc::new([make(cond), make(body)]);
    let device = outputs.first().map_or(Device::CPU0, |t| t.device());
    let idx = g.push(
        "while",
        "While",
        NodeOp::While(bs, init.len()),
        inputs,
        outputs,
        device,
    );
    g.set_statics(idx, statics);
}

/// The nodes no output or effect depends on are left out of replays.
pub fn live_nodes(g: &Graph) -> Vec<bool> {
    let mut live = vec![false; g.nodes.len()];
    let mut stack: Vec<usize> = g.outputs.iter().map(|p| p.0).collect();
    for (i, n) in g.nodes.iter().enumerate() {
        if has_effects(n) {
            stack.push(i);
        }
    }
    while let Some(i) = stack.pop() {
        if live[i] {
            continue;
        }
        live[i] = true;
        stack.extend(g.nodes[i].inputs.iter().map(|p| p.0));
    }
    live
}

/// The graph as text: one line per node (`name = Op(inputs) -> dtype shape @ device`).
pub fn render(g: &Graph) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for n in &g.nodes {
        let ins: Vec<String> = n
            .inputs
            .iter()
            .map(|(i, o)| format!("{}:{o}", g.nodes[*i].name))
            .collect();
        let outs: Vec<String> = n
            .outputs
            .iter()
            .map(|(d, sh)| format!("{} {}", d.name(), sh.tuple_text()))
            .collect();
        let _ = writeln!(
            s,
            "{} = {}({}) -> [{}] @ {}",
            n.name,
            n.op_type,
            ins.join(", "),
            outs.join(", "),
            n.device.short_name()
        );
    }
    let outs: Vec<String> = g
        .outputs
        .iter()
        .map(|(i, o)| format!("{}:{o}", g.nodes[*i].name))
        .collect();
    let _ = writeln!(s, "return ({})", outs.join(", "));
    s
}

thread_local! {
    /// `--graph NAME`: the functions whose traced graphs are printed.
    static SHOW: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Prints the graphs traced for functions named `name` (`*`: every one).
pub fn show_graphs_of(name: Option<String>) {
    SHOW.with(|s| *s.borrow_mut() = name);
}

/// Whether the graphs of the function `name` are printed.
pub fn shows(name: &str) -> bool {
    SHOW.with(|s| s.borrow().as_deref().is_some_and(|n| n == "*" || n == name))
}
