//! The names of a traced graph's nodes: TensorFlow's unique names in the
//! open name scopes (`truediv/Cast`, `sequential/dense/MatMul`), the name
//! a traced tensor prints with, and the names natives give their constants.

use std::cell::RefCell;
use std::rc::Rc;

use super::{current, Graph, NodeOp};
use crate::runtime::device::Device;
use crate::runtime::tensor::Tensor;

/// The graph name of `t` (`add:0`) while it is traced, and its device
/// where it was set explicitly.
pub fn tensor_name(t: &Tensor) -> Option<(String, Option<Device>)> {
    // a branch's code sees the tensors of the graphs around it too
    let mut g = current()?;
    loop {
        let parent = {
            let gb = g.borrow();
            if let Some((n, i)) = gb.lookup(t) {
                let node = &gb.nodes[n];
                return Some((
                    node.output_name(i),
                    node.explicit_device.then_some(node.device),
                ));
            }
            gb.parent.clone()?
        };
        g = parent;
    }
}

/// The name the next node made from `base` would take in the graph being
/// traced (`cond_1`), without taking it.
pub fn next_name(base: &str) -> String {
    let Some(g) = current() else {
        return base.to_string();
    };
    let mut g = g.borrow_mut();
    let saved = g.names.clone();
    let name = g.unique(base);
    g.names = saved;
    name
}

/// A reduction over every axis (`axis=None`) of `t` is about to be traced:
/// TensorFlow builds its axes first, as a `Const` of `range(rank)` when the
/// rank is static and not 0, else as `range(0, Rank(t))`. Those nodes are
/// recorded (the constant) or their names taken (`Rank`, `range`), so the
/// names of the nodes after them are TensorFlow's (`Const_1`, `Rank_1`).
pub fn note_reduction_dims(t: &Tensor) {
    if current().is_none() {
        return;
    }
    let unranked = matches!(super::static_dims(t), Some(None));
    match unranked || t.rank() == 0 {
        true => {
            let Some(g) = current() else { return };
            let mut g = g.borrow_mut();
            for base in ["Rank", "range"] {
                g.unique(base);
            }
        }
        false => {
            let axes: Vec<i32> = (0..t.rank() as i32).collect();
            let n = axes.len();
            if let Ok(c) = Tensor::from_vec(axes, &[n]) {
                constant_named(&c, "Const");
            }
        }
    }
}

/// How many nodes the graph being traced has.
pub fn node_count() -> usize {
    current().map_or(0, |g| g.borrow().nodes.len())
}

/// Renames the `Const` node that is `t`, when it was made at or after node
/// `since` (by the native that named it `base`, `zeros`): the `Const` name it
/// took is given back.
pub fn rename_constant(t: &Tensor, since: usize, base: &str) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    let Some((n, _)) = g.lookup(t) else {
        return;
    };
    if n < since || !matches!(g.nodes[n].op, NodeOp::Const(_)) {
        return;
    }
    let old = g.nodes[n].name.to_lowercase();
    let (stem, k) = match old.rsplit_once('_') {
        Some((s, k)) if k.chars().all(|c| c.is_ascii_digit()) => {
            (s.to_string(), k.parse().unwrap_or(0))
        }
        _ => (old.clone(), 0),
    };
    // only a constant with the default name (in its scope) takes the native's
    if stem.rsplit('/').next() != Some("const") {
        return;
    }
    // the most recent use of `Const` is handed back to the counter
    if g.names.get(&stem) == Some(&(k + 1)) {
        g.names.insert(stem, k);
        if k > 0 {
            g.names.remove(&old);
        }
    }
    let name = g.unique(base);
    g.nodes[n].name = name;
}

/// A constant of the trace named `base` (`replica_id_in_sync_group`).
pub fn constant_named(t: &Tensor, base: &str) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    if g.lookup(t).is_some() {
        return;
    }
    let device = t.device();
    g.push(
        base,
        "Const",
        NodeOp::Const(t.clone()),
        vec![],
        &[t],
        device,
    );
}

/// The name of the node that made `t` while it is traced.
pub fn op_name(t: &Tensor) -> Option<(String, &'static str)> {
    let g = current()?;
    let g = g.borrow();
    let (n, _) = g.lookup(t)?;
    Some((g.nodes[n].name.clone(), g.nodes[n].op_type))
}

/// Runs `f` in the name scope `base` (`x / y` records its casts as
/// `truediv/Cast` and the division itself as `truediv`): the node that made
/// `f`'s result takes the scope's own name.
pub fn named<E>(base: &str, f: impl FnOnce() -> Result<Tensor, E>) -> Result<Tensor, E> {
    let Some((g, scope)) = enter_scope(base) else {
        return f();
    };
    let r = f();
    exit_scope(&g);
    let scope = scope.trim_end_matches('/');
    let mut gb = g.borrow_mut();
    if let Ok(t) = &r {
        if let Some((n, _)) = gb.lookup(t) {
            let prefix = format!("{scope}/");
            if gb.nodes[n].name.starts_with(&prefix) {
                gb.nodes[n].name = scope.to_string();
            }
        }
    }
    r
}

/// Enters the name scope `name` in the graph being traced, as TensorFlow's
/// `Graph.name_scope` does (`tf.name_scope` inside a `tf.function`, Keras's
/// layer, loss and optimizer scopes): a name is made unique among the
/// graph's names (`sequential_1`), one ending in `/` is taken as it is, `""`
/// is the root. Returns the graph (for [`exit_scope`]) and the scope
/// (`"outer/inner/"`, with the replica's prefix); None when nothing traces.
pub fn enter_scope(name: &str) -> Option<(Rc<RefCell<Graph>>, String)> {
    let g = current()?;
    let scope = {
        let mut gb = g.borrow_mut();
        let (path, scope) = if name.is_empty() {
            (String::new(), String::new())
        } else if let Some(abs) = name.strip_suffix('/') {
            (abs.to_string(), name.to_string())
        } else {
            let full = gb.unique(name);
            let path = match crate::runtime::autodiff::tape::lane() {
                Some(i) if i > 0 => full
                    .strip_prefix(&format!("replica_{i}/"))
                    .unwrap_or(&full)
                    .to_string(),
                _ => full.clone(),
            };
            (path, format!("{full}/"))
        };
        gb.lane_scopes().push(path);
        scope
    };
    Some((g, scope))
}

/// Leaves the innermost name scope [`enter_scope`] entered in `g`.
pub fn exit_scope(g: &Rc<RefCell<Graph>>) {
    g.borrow_mut().lane_scopes().pop();
}
