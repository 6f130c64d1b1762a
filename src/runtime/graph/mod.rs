//! Function graphs: what `tf.function` traces and then replays.
//!
//! Tracing runs the Python body once, on placeholder handles of the call's
//! tensors. Every op that reaches a recording point of the runtime (the same
//! points the gradient tapes use, [`crate::runtime::autodiff::tape::record`])
//! appends a [`Node`] to the innermost tracing [`Graph`], with TensorFlow's
//! node name (`add`, `add_1`, `x`), its device and its outputs' dtypes and
//! static shapes; variable reads and assignments, and host effects such as
//! `tf.print`, are nodes too. Tensors that existed before the trace and are
//! used by it are captured (`Const` nodes holding them).
//!
//! The trace keeps the tensors' values as well (the body runs on the call's
//! real values), so every static shape is the one TensorFlow infers from the
//! same call. A graph is *replayable* when everything the body did is in it;
//! anything the recorder cannot follow — a tensor made during the trace by a
//! path that records no node, a stateful random draw, a collective, a
//! dataset iterator, Python control flow on a tensor's value — taints the
//! graph with the reason, and the function then runs its Python body on every
//! call instead (what dist did before it had graphs), never a replay that
//! would silently differ.
//!
//! [`exec::run`] replays a graph: op after op, without the interpreter.

mod escape;
pub mod exec;
mod names;
mod nodes;
pub mod shapes;

pub use escape::{escaped, set_function_name};
pub use names::{
    constant_named, enter_scope, exit_scope, named, next_name, node_count, note_reduction_dims,
    op_name, rename_constant, tensor_name,
};
pub use nodes::{live_nodes, record_cond, record_while, render, show_graphs_of, shows};
pub use shapes::{note_reshape_free, static_dims};

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::autodiff::GradOp;
use super::device::Device;
use super::dtype::DType;
use super::shape::Shape;
use super::tensor::Tensor;

/// Where a tensor a node reads comes from: a node and its output index.
pub type Port = (usize, usize);

/// A variable (or other resource) a graph reads and writes.
pub trait Resource {
    /// Its current value.
    fn read(&self) -> Tensor;
    /// Replaces its value.
    fn write(&self, value: Tensor);
}

/// What a node does.
#[derive(Clone)]
pub enum NodeOp {
    /// An input of the function (`Placeholder`).
    Placeholder,
    /// A tensor captured from outside the trace, or a constant made in it.
    Const(Tensor),
    /// A kernel op with its attributes.
    Op(GradOp),
    /// `ReadVariableOp` of a variable.
    ReadVariable(Rc<dyn Resource>),
    /// `AssignVariableOp`: input 0 becomes the variable's value.
    AssignVariable(Rc<dyn Resource>),
    /// A host effect (`tf.print`): the language layer's payload, run with
    /// the node's inputs by the caller of [`exec::run`].
    Effect(Rc<dyn Any>),
    /// `If` (`tf.cond`): input 0 is the predicate, then the true branch's
    /// captures, then the false branch's; the branch the predicate picks runs.
    Cond(Rc<[Branch; 2]>),
    /// `While` (`tf.while_loop`) over `n` loop variables: inputs are the
    /// variables, then the condition's captures, then the body's; the
    /// condition graph maps the variables to a bool, the body to new ones.
    While(Rc<[Branch; 2]>, usize),
}

/// A branch of a `Cond` node: its graph (whose placeholders are its
/// captures) and replay plan.
pub struct Branch {
    /// The graph.
    pub graph: Rc<RefCell<Graph>>,
    /// How it replays.
    pub plan: exec::Plan,
}

/// One node of a function graph.
#[derive(Clone)]
pub struct Node {
    /// TensorFlow's node name, unique in the graph.
    pub name: String,
    /// TensorFlow's op type (`AddV2`, `Placeholder`).
    pub op_type: &'static str,
    /// What it does.
    pub op: NodeOp,
    /// Its inputs.
    pub inputs: Vec<Port>,
    /// The device it ran on while tracing.
    pub device: Device,
    /// Its outputs' dtypes and static shapes.
    pub outputs: Vec<(DType, Shape)>,
    /// Whether its device was set explicitly (the ops of a replica of
    /// `strategy.run` are placed on the replica's device).
    pub explicit_device: bool,
}

impl Node {
    /// The name TensorFlow gives output `i`: an `If`'s outputs pass through
    /// `Identity` ops in its name scope (`cond/Identity_1:0`); a `While`'s
    /// first two outputs are its iteration counter and maximum.
    pub fn output_name(&self, i: usize) -> String {
        match (&self.op, i) {
            (NodeOp::Cond(_), 0) => format!("{}/Identity:0", self.name),
            (NodeOp::Cond(_), _) => format!("{}/Identity_{i}:0", self.name),
            (NodeOp::While(..), _) => format!("{}:{}", self.name, i + 2),
            _ => format!("{}:{i}", self.name),
        }
    }
}

/// A traced function graph.
#[derive(Default)]
pub struct Graph {
    /// The nodes, in program order.
    pub nodes: Vec<Node>,
    /// The placeholders, in the order of the function's flattened inputs.
    pub placeholders: Vec<usize>,
    /// The function's flattened outputs (set when the trace ends).
    pub outputs: Vec<Port>,
    /// Why the graph cannot replay the Python body (None: it can).
    pub taint: Option<String>,
    /// Whether `taint` names the line of Python that caused it yet.
    taint_located: bool,
    /// Name uses so far, keyed lower-case as TensorFlow's `unique_name` does.
    names: HashMap<String, usize>,
    /// The open name scopes of each lane (the main program and replica 0
    /// share lane 0), innermost last, each the whole path without the
    /// replica's prefix (`sequential/dense`; `truediv` while `x / y`
    /// records its casts); `""` is the root (`tf.name_scope("")`).
    scopes: Vec<Vec<String>>,
    /// This graph's epoch (the tags of its tensors name it).
    epoch: u64,
    /// Tensors born at or after this epoch were made during the trace (the
    /// outermost graph's epoch).
    root_epoch: u64,
    /// A branch graph: the graph it is traced in.
    parent: Option<Rc<RefCell<Graph>>>,
    /// A branch graph: the ports, in the parent, of the tensors it
    /// captures (its placeholders, in order).
    pub captures: Vec<Port>,
    /// A branch graph: the values its captures had while tracing.
    pub capture_values: Vec<Tensor>,
    capture_of: HashMap<Port, usize>,
    /// The value each variable assigned in the trace holds now (by the
    /// resource's address): a trace that does not run its assignments
    /// still reads what it assigned.
    latest: HashMap<usize, Tensor>,
    /// The static shapes of the node outputs with unknown dims (the others'
    /// are their concrete shapes).
    statics: HashMap<Port, shapes::StaticShape>,
    /// The function this graph traces (a branch graph: empty).
    function: String,
    /// Constants only this trace's concrete shapes fixed (`tf.shape` of a
    /// tensor with unknown dims): `tf.get_static_value` does not know them.
    dynamic: std::collections::HashSet<Port>,
    /// Whether an op whose output shape depends on values is in the graph
    /// (a replay may see other shapes: `shapes::value_shaped`).
    value_shaped: bool,
}

static EPOCH: AtomicU64 = AtomicU64::new(0);

/// The creation epoch stamped on a new tensor.
#[inline]
pub(crate) fn epoch_now() -> u64 {
    EPOCH.load(Ordering::Relaxed)
}

thread_local! {
    /// The graphs being traced on this thread, innermost last.
    static TRACING: RefCell<Vec<Rc<RefCell<Graph>>>> = const { RefCell::new(Vec::new()) };
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Whether a graph is being traced on this thread.
#[inline]
pub fn tracing() -> bool {
    DEPTH.with(Cell::get) != 0
}

fn current() -> Option<Rc<RefCell<Graph>>> {
    TRACING.with(|t| t.borrow().last().cloned())
}

/// Starts tracing a new graph (ops on this thread record into it until
/// [`end`]).
pub fn begin() -> Rc<RefCell<Graph>> {
    let epoch = EPOCH.fetch_add(1, Ordering::Relaxed) + 1;
    let g = Rc::new(RefCell::new(Graph {
        epoch,
        root_epoch: epoch,
        ..Graph::default()
    }));
    push_graph(g)
}

/// Starts tracing a branch graph inside the graph being traced (None when
/// nothing traces): the tensors of the outer graph it uses become its
/// placeholders.
pub fn begin_branch() -> Option<Rc<RefCell<Graph>>> {
    let parent = current()?;
    let root_epoch = parent.borrow().root_epoch;
    let g = Rc::new(RefCell::new(Graph {
        epoch: EPOCH.fetch_add(1, Ordering::Relaxed) + 1,
        root_epoch,
        parent: Some(parent),
        ..Graph::default()
    }));
    Some(push_graph(g))
}

fn push_graph(g: Rc<RefCell<Graph>>) -> Rc<RefCell<Graph>> {
    escape::note_traced(&g);
    TRACING.with(|t| t.borrow_mut().push(g.clone()));
    DEPTH.with(|d| d.set(d.get() + 1));
    super::autodiff::tape::hold_active(true);
    g
}

/// Stops tracing `g` (the innermost graph).
pub fn end(g: &Rc<RefCell<Graph>>) {
    let removed = TRACING.with(|t| {
        let mut t = t.borrow_mut();
        match t.iter().rposition(|x| Rc::ptr_eq(x, g)) {
            Some(i) => {
                t.remove(i);
                true
            }
            None => false,
        }
    });
    if removed {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        super::autodiff::tape::hold_active(false);
    }
}

/// Runs `f` with graph recording paused (an inner eager computation).
pub fn paused<T>(f: impl FnOnce() -> T) -> T {
    let p = pause();
    let r = f();
    resume(p);
    r
}

/// What [`pause`] paused, for [`resume`]: the graphs being traced, the
/// tracing depth and how many escape checks it suspended.
pub struct Pause(Vec<Rc<RefCell<Graph>>>, u32, usize);

/// Pauses graph recording until [`resume`] (what [`paused`] does around
/// a closure; `tf.init_scope` spans a `with` block).
pub fn pause() -> Pause {
    let saved = TRACING.with(|t| std::mem::take(&mut *t.borrow_mut()));
    let depth = DEPTH.with(|d| d.replace(0));
    let n_suspended = escape::suspend(&saved);
    for _ in &saved {
        super::autodiff::tape::hold_active(false);
    }
    Pause(saved, depth, n_suspended)
}

/// Resumes the recording `p` paused.
pub fn resume(Pause(saved, depth, n_suspended): Pause) {
    for _ in &saved {
        super::autodiff::tape::hold_active(true);
    }
    DEPTH.with(|d| d.set(depth));
    escape::resume(n_suspended);
    TRACING.with(|t| *t.borrow_mut() = saved);
}

thread_local! {
    /// Autograph trials open (a converted loop being traced): an effect
    /// that cannot be recorded must not happen in them.
    static STRICT: Cell<u32> = const { Cell::new(0) };
    /// A trial was abandoned by such an effect.
    static STRICT_HIT: Cell<bool> = const { Cell::new(false) };
}

/// Opens (true) or closes an autograph trial (see [`untraceable_effect`]).
pub fn trial(open: bool) {
    STRICT.with(|s| {
        s.set(if open {
            s.get() + 1
        } else {
            s.get().saturating_sub(1)
        })
    });
}

/// An effect a graph cannot record is about to happen (a dataset iterator
/// pulled): the graph is tainted, and inside an autograph trial the caller
/// must not run it (true), so the trial can fall back to Python without
/// the effect having happened twice.
pub fn untraceable_effect(reason: impl FnOnce() -> String) -> bool {
    taint(reason);
    let strict = STRICT.with(Cell::get) > 0;
    if strict {
        STRICT_HIT.with(|h| h.set(true));
    }
    strict
}

/// Whether an autograph trial was abandoned since the last call.
pub fn take_trial_abandoned() -> bool {
    STRICT_HIT.with(|h| h.replace(false))
}

/// Marks the graph being traced as not replayable, with the reason (the
/// first reason is kept).
pub fn taint(reason: impl FnOnce() -> String) {
    if let Some(g) = current() {
        g.borrow_mut().set_taint(reason);
    }
}

thread_local! {
    /// A graph was tainted and its taint does not name the Python line that
    /// caused it yet (the evaluator, which knows the line, asks
    /// [`locate_taint`] after each statement while tracing).
    static UNLOCATED: Cell<bool> = const { Cell::new(false) };
}

/// Whether a taint waits for its location (cheap: the evaluator asks after
/// each statement).
#[inline]
pub fn taint_unlocated() -> bool {
    UNLOCATED.with(Cell::get)
}

/// Appends `site` (the innermost Python statement that was running: file,
/// line, function, text) to the taints of the graphs being traced that do
/// not name theirs yet, so `--graph` and `--trace` say where a function
/// stopped being a graph.
pub fn locate_taint(site: impl FnOnce() -> String) {
    if !UNLOCATED.with(|u| u.replace(false)) {
        return;
    }
    let site = site();
    TRACING.with(|t| {
        for g in t.borrow().iter() {
            let Ok(mut g) = g.try_borrow_mut() else {
                continue;
            };
            if !g.taint_located {
                if let Some(why) = &mut g.taint {
                    why.push_str(", at ");
                    why.push_str(&site);
                    g.taint_located = true;
                }
            }
        }
    });
}

impl Graph {
    /// Marks the graph as not replayable, with the reason (the first reason
    /// is kept; its location is added by [`locate_taint`]).
    fn set_taint(&mut self, reason: impl FnOnce() -> String) {
        if self.taint.is_none() {
            self.taint = Some(reason());
            // a developer's aid: which native, inside the statement the
            // taint names, made the graph unreplayable
            if std::env::var_os("DIST_TAINT_BT").is_some() {
                let bt = std::backtrace::Backtrace::force_capture();
                eprintln!(
                    "dist: graph taint: {}\n{bt}",
                    self.taint.as_deref().unwrap_or("")
                );
            }
            self.taint_located = false;
            UNLOCATED.with(|u| u.set(true));
        }
    }

    /// The node output `t` is in this graph (its tag names this trace).
    fn lookup(&self, t: &Tensor) -> Option<Port> {
        let tag = t.tag();
        if tag == 0 || tag >> 32 != self.tag_epoch() {
            return None;
        }
        let node = ((tag >> 8) & 0xFF_FFFF) as usize;
        (node < self.nodes.len()).then_some((node, (tag & 0xFF) as usize))
    }

    /// The static shape of `t` in this graph, where some dims or its rank
    /// are unknown (None: all known, or not a tensor of this graph).
    pub fn static_of(&self, t: &Tensor) -> Option<shapes::StaticShape> {
        self.lookup(t).and_then(|p| self.statics.get(&p).cloned())
    }

    /// Tags `t` as the node output `port` of this graph (a graph too large
    /// for the tag is tainted instead).
    fn bind(&mut self, t: &Tensor, port: Port) {
        if port.0 >= 1 << 24 || port.1 >= 255 {
            self.set_taint(|| "the graph has more nodes than dist can follow".into());
            return;
        }
        t.set_tag(self.tag_epoch() << 32 | (port.0 as u64) << 8 | port.1 as u64);
    }

    /// The trace's epoch as tags carry it (32 bits, never 0).
    fn tag_epoch(&self) -> u64 {
        (self.epoch & 0xFFFF_FFFF).max(1)
    }

    /// Whether `t` was made before the trace (a capture, not a constant
    /// made in it).
    pub fn is_capture(&self, t: &Tensor) -> bool {
        t.born() < self.root_epoch
    }

    /// The open scopes of the running lane.
    fn lane_scopes(&mut self) -> &mut Vec<String> {
        let lane = super::autodiff::tape::lane().unwrap_or(0);
        if self.scopes.len() <= lane {
            self.scopes.resize_with(lane + 1, Vec::new);
        }
        &mut self.scopes[lane]
    }

    /// A unique name for `base` in the open scopes.
    fn unique(&mut self, base: &str) -> String {
        // the ops of replica i > 0 of `strategy.run` are in the name scope
        // `replica_i`, as MirroredStrategy traces them
        let replica = match super::autodiff::tape::lane() {
            Some(i) if i > 0 => format!("replica_{i}/"),
            _ => String::new(),
        };
        let full = match self.lane_scopes().last().map(String::as_str) {
            None | Some("") => format!("{replica}{base}"),
            Some(scope) => format!("{replica}{scope}/{base}"),
        };
        // TensorFlow's `Graph.unique_name`, case-insensitive
        let base_key = full.to_lowercase();
        let mut i = self.names.get(&base_key).copied().unwrap_or(0);
        self.names.insert(base_key.clone(), i + 1);
        if i == 0 {
            return full;
        }
        let mut key = base_key.clone();
        while self.names.contains_key(&key) {
            key = format!("{base_key}_{i}");
            i += 1;
        }
        self.names.insert(key, 1);
        format!("{full}_{}", i - 1)
    }

    fn push(
        &mut self,
        base: &str,
        op_type: &'static str,
        op: NodeOp,
        inputs: Vec<Port>,
        outputs: &[&Tensor],
        device: Device,
    ) -> usize {
        let name = self.unique(base);
        let idx = self.nodes.len();
        for (i, o) in outputs.iter().enumerate() {
            self.bind(o, (idx, i));
        }
        self.nodes.push(Node {
            name,
            op_type,
            op,
            inputs,
            device,
            explicit_device: super::autodiff::tape::lane().is_some(),
            outputs: outputs
                .iter()
                .map(|t| (t.dtype(), t.shape().clone()))
                .collect(),
        });
        idx
    }

    /// The port of `t`: a node output it is, or a capture of a tensor made
    /// before the trace (None, and the graph tainted, for a tensor made in
    /// the trace by a path that recorded no node).
    fn port(&mut self, t: &Tensor, user: &str) -> Option<Port> {
        if let Some(p) = self.lookup(t) {
            return Some(p);
        }
        if let Some(parent) = self.parent.clone() {
            // a tensor of an outer graph: captured as a placeholder
            let outer = parent.borrow_mut().port(t, user);
            let Some(pp) = outer else {
                let why = parent.borrow().taint.clone();
                if let Some(why) = why {
                    self.set_taint(|| why);
                }
                return None;
            };
            if let Some(&i) = self.capture_of.get(&pp) {
                return Some((i, 0));
            }
            let name = format!("{}_capture", user.to_lowercase());
            let idx = self.push(
                &name,
                "Placeholder",
                NodeOp::Placeholder,
                vec![],
                &[],
                t.device(),
            );
            self.nodes[idx].outputs = vec![(t.dtype(), t.shape().clone())];
            if let Some(d) = parent.borrow().statics.get(&pp).cloned() {
                self.statics.insert((idx, 0), d);
            }
            self.placeholders.push(idx);
            self.captures.push(pp);
            self.capture_values.push(t.clone());
            self.capture_of.insert(pp, idx);
            return Some((idx, 0));
        }
        if t.born() >= self.root_epoch {
            self.set_taint(|| {
                format!(
                    "a tensor used by `{user}` ({} {}) was made by an operation dist cannot record in a graph yet",
                    t.dtype().name(),
                    t.shape().tuple_text()
                )
            });
            return None;
        }
        let device = t.device();
        let idx = self.push(
            "Const",
            "Const",
            NodeOp::Const(t.clone()),
            vec![],
            &[t],
            device,
        );
        Some((idx, 0))
    }

    /// Sets the static shapes of node `idx`'s outputs (those with unknown dims).
    fn set_statics(&mut self, idx: usize, statics: Vec<Option<shapes::StaticShape>>) {
        for (k, d) in statics.into_iter().enumerate() {
            if let Some(d) = d.filter(shapes::is_partial) {
                self.statics.insert((idx, k), d);
            }
        }
    }

    /// The ports of `ts` (None when one cannot be followed).
    fn ports(&mut self, ts: &[&Tensor], user: &str) -> Option<Vec<Port>> {
        ts.iter().map(|t| self.port(t, user)).collect()
    }
}

/// TensorFlow's default node name of an op its Python wrapper names.
fn default_name(op: &GradOp) -> &'static str {
    match op {
        GradOp::Binary(crate::runtime::BinaryOp::Add) => "Add",
        GradOp::Pack(_) => "stack",
        GradOp::Unpack(_) => "unstack",
        GradOp::Concat(_) => "concat",
        GradOp::Index(_) => "strided_slice",
        GradOp::Transpose(_) => "transpose",
        GradOp::Split(_) => "split",
        GradOp::DivNoNan => "div_no_nan",
        GradOp::ZeroSafe(crate::runtime::ops::zero_safe::ZeroSafe::MulNoNan) => "multiply_no_nan",
        op => op.name(),
    }
}

/// Records an op of the trace (called by the tapes' recording point).
pub(crate) fn record(op: &dyn Fn() -> GradOp, inputs: &[&Tensor], outputs: &[&Tensor]) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    let op = op();
    let unsupported = match &op {
        GradOp::Custom(_) => Some("a tf.custom_gradient function"),
        GradOp::NoGrad(_) => Some("this op"),
        _ => None,
    };
    if let Some(what) = unsupported {
        g.set_taint(|| format!("{what} (`{}`) is not recorded in graphs yet", op.name()));
        return;
    }
    let Some(ports) = g.ports(inputs, op.name()) else {
        return;
    };
    let statics = g.op_statics(&op, &ports, inputs, outputs);
    let device = outputs.first().map(|t| t.device()).unwrap_or(Device::CPU0);
    let name = default_name(&op);
    let op_type = op.name();
    let idx = g.push(name, op_type, NodeOp::Op(op), ports, outputs, device);
    for (k, d) in statics.into_iter().flatten().enumerate() {
        if shapes::is_partial(&d) {
            g.statics.insert((idx, k), d);
        }
    }
}

/// A placeholder of the trace for the input `t`: a new handle on its
/// buffer that stands for the function's argument named `name`.
pub fn placeholder(t: &Tensor, name: &str) -> Tensor {
    // a placeholder standing for a tensor of an outer graph (a loop
    // variable) has its static shape
    let dims = static_dims(t);
    placeholder_shaped(t, name, dims)
}

/// [`placeholder`] with the static shape `dims` (`None` entries unknown:
/// an `input_signature`'s `TensorSpec([None])`, a relaxed retrace; an
/// unknown rank: `TensorSpec(shape=None)`).
pub fn placeholder_shaped(t: &Tensor, name: &str, dims: Option<shapes::StaticShape>) -> Tensor {
    let p = super::autodiff::tape::detached(t);
    if let Some(g) = current() {
        let mut g = g.borrow_mut();
        let device = p.device();
        let idx = g.push(
            name,
            "Placeholder",
            NodeOp::Placeholder,
            vec![],
            &[&p],
            device,
        );
        g.placeholders.push(idx);
        if let Some(d) =
            dims.filter(|d| shapes::is_partial(d) && d.as_ref().is_none_or(|d| d.len() == p.rank()))
        {
            g.statics.insert((idx, 0), d);
        }
    }
    p
}

/// A tensor made from Python values during the trace: a `Const` node (a
/// tensor already followed, or made before the trace, is left alone).
pub fn constant(t: &Tensor) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    if g.lookup(t).is_some() || t.born() < g.root_epoch {
        return;
    }
    let device = t.device();
    g.push(
        "Const",
        "Const",
        NodeOp::Const(t.clone()),
        vec![],
        &[t],
        device,
    );
}

/// A tensor's elements are read on the host while tracing (a Python
/// number, an index or a shape taken from it): fine for a constant or a
/// tensor made before the trace; for anything the graph computes, the value
/// would be frozen into the replay, so the graph is tainted.
pub fn on_read(t: &Tensor) {
    if super::autodiff::tape::in_kernel() {
        return;
    }
    let Some(g) = current() else { return };
    let Ok(mut g) = g.try_borrow_mut() else {
        return;
    };
    let computed = match g.lookup(t) {
        Some((n, _)) => !matches!(g.nodes[n].op, NodeOp::Const(_)),
        None => t.born() >= g.root_epoch,
    };
    if computed {
        g.set_taint(|| {
            "Python code read the value of a tensor the function computes (autograph is not implemented yet)"
                .into()
        });
    }
}

/// Whether `t` is a constant of the trace: a `Const` node, or a tensor made
/// before it (a capture).
pub fn is_constant(t: &Tensor) -> bool {
    let Some(g) = current() else { return true };
    let g = g.borrow();
    match g.lookup(t) {
        Some((n, _)) => matches!(g.nodes[n].op, NodeOp::Const(_)),
        None => t.born() < g.root_epoch,
    }
}

/// Whether `t` is, in the graph being traced, a value constant folding
/// computes before any run: a `Const` node, or an op whose inputs all are
/// (what a replay plan holds fixed, `exec::Plan`). A capture is not: it is
/// an input of the function's graph.
pub fn is_folded_constant(t: &Tensor) -> bool {
    let Some(g) = current() else { return false };
    let g = g.borrow();
    let Some((n, _)) = g.lookup(t) else {
        return false;
    };
    let mut todo = vec![n];
    while let Some(n) = todo.pop() {
        let node = &g.nodes[n];
        match &node.op {
            NodeOp::Const(_) => {}
            NodeOp::Op(op) if exec::folds(op, node) => {
                todo.extend(node.inputs.iter().map(|&(m, _)| m));
            }
            _ => return false,
        }
    }
    true
}

/// Whether `t` is a tensor of the graphs being traced (TensorFlow's
/// symbolic tensor: made in the trace, not a captured eager tensor).
pub fn in_graph(t: &Tensor) -> bool {
    current().is_some_and(|g| {
        let g = g.borrow();
        g.lookup(t).is_some() || t.born() >= g.root_epoch
    })
}

/// Whether `t` is a tensor of the graph being traced.
pub fn is_symbolic(t: &Tensor) -> bool {
    current().is_some_and(|g| g.borrow().lookup(t).is_some())
}

/// A variable read during the trace (`ReadVariableOp`), giving `value`.
pub fn read_variable(res: &dyn Fn() -> Rc<dyn Resource>, value: &Tensor) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    if g.lookup(value).is_some() {
        return;
    }
    let device = value.device();
    g.push(
        "ReadVariableOp",
        "ReadVariableOp",
        NodeOp::ReadVariable(res()),
        vec![],
        &[value],
        device,
    );
}

/// The value the trace assigned to the resource at `addr` last, if any.
pub fn assigned_value(addr: usize) -> Option<Tensor> {
    current().and_then(|g| g.borrow().latest.get(&addr).cloned())
}

/// A variable assigned `value` during the trace (`AssignVariableOp`); `addr`
/// identifies the variable.
pub fn assign_variable(res: &dyn Fn() -> Rc<dyn Resource>, addr: usize, value: &Tensor) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    g.latest.insert(addr, value.clone());
    let Some(p) = g.port(value, "AssignVariableOp") else {
        return;
    };
    let device = value.device();
    g.push(
        "AssignVariableOp",
        "AssignVariableOp",
        NodeOp::AssignVariable(res()),
        vec![p],
        &[],
        device,
    );
}

/// A host effect of the trace (`tf.print`) on `inputs`, replayed by the
/// caller of [`exec::run`] with the payload.
pub fn effect(op_type: &'static str, payload: Rc<dyn Any>, inputs: &[&Tensor]) {
    let Some(g) = current() else { return };
    let mut g = g.borrow_mut();
    let Some(ports) = g.ports(inputs, op_type) else {
        return;
    };
    g.push(
        op_type,
        op_type,
        NodeOp::Effect(payload),
        ports,
        &[],
        Device::CPU0,
    );
}

/// Ends the trace's outputs: the ports of the function's flattened result
/// tensors (a tensor the graph cannot follow taints it).
pub fn set_outputs(g: &Rc<RefCell<Graph>>, outs: &[Tensor]) {
    let mut gb = g.borrow_mut();
    let mut ports = Vec::with_capacity(outs.len());
    for t in outs {
        match gb.port(t, "the function's return value") {
            Some(p) => ports.push(p),
            None => return,
        }
    }
    gb.outputs = ports;
}

#[cfg(test)]
mod tests;
