//! Graph control flow: `tf.cond` inside a traced `tf.function` becomes an
//! `If` node with both branches traced (each branch's Python runs once,
//! the one the call does not take without running its effects), so later
//! calls replay it and pick the branch from the predicate's value.

use std::cell::RefCell;
use std::rc::Rc;

use super::trace::{self, Template};
use crate::object::native;
use crate::object::tensor::convert::runtime_err;
use crate::runtime::graph;
use crate::runtime::Tensor;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// One branch of a graph conditional or loop function, traced: its
/// result, the result's tensors and the branch graph (ended).
pub struct Traced {
    /// What the branch returned.
    pub result: Value,
    /// Its tensors, in order.
    pub outs: Vec<Tensor>,
    /// The branch graph.
    pub graph: Rc<RefCell<graph::Graph>>,
    /// Whether the result is a structure of tensors a graph can return.
    pub ok: bool,
}

/// Traces `run()` into a branch graph without running its effects (None
/// when nothing traces). `convert` turns the result's Python numbers into
/// tensors while the branch is open.
pub fn trace_branch(
    vm: &dyn Vm,
    run: &mut dyn FnMut() -> PyResult<Value>,
) -> PyResult<Option<Traced>> {
    let Some(g) = graph::begin_branch() else {
        return Ok(None);
    };
    let saved = trace::set_dry(true);
    let r = run().and_then(|r| super::convert_outputs(vm, &r));
    trace::set_dry(saved);
    let result = match r {
        Ok(r) => r,
        Err(e) => {
            graph::end(&g);
            return Err(e);
        }
    };
    let mut outs = Vec::new();
    let ok = Template::of(&result, &mut outs).is_some();
    if ok {
        graph::set_outputs(&g, &outs);
    }
    graph::end(&g);
    Ok(Some(Traced {
        result,
        outs,
        graph: g,
        ok,
    }))
}

/// `tf.cond(pred, true_fn, false_fn)` while a `tf.function` traces, for a
/// tensor predicate: both branches traced (their effects not run) into an
/// `If` node, which then runs for the traced call, as TensorFlow's graph
/// runs it after tracing.
#[native("cond(pred, true_fn, false_fn)")]
pub fn graph_cond(vm: &dyn Vm, pred: Tensor, true_fn: &Value, false_fn: &Value) -> PyResult<Value> {
    if !graph::tracing() {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "_dist_graph.cond is for tf.cond while a tf.function traces",
        ));
    }
    let taken = graph::paused(|| pred.item()).map_err(runtime_err)?.as_f64() != 0.0;
    let mut traced = Vec::with_capacity(2);
    for f in [true_fn, false_fn] {
        match trace_branch(vm, &mut || vm.call(f, Vec::new(), Vec::new()))? {
            Some(t) => {
                if !t.ok {
                    graph::taint(|| format!("a tf.cond branch returns a {}", t.result.type_name()));
                }
                traced.push(t)
            }
            None => {
                return vm.call(
                    if taken { true_fn } else { false_fn },
                    Vec::new(),
                    Vec::new(),
                )
            }
        }
    }
    let (tr, fa) = (&traced[0], &traced[1]);
    if tr.outs.len() != fa.outs.len() {
        // TensorFlow's cond_v2 asserts the branches' output counts match
        return Err(PyErr::new(
            ExcType::AssertionError,
            format!("[{}, {}]", tr.outs.len(), fa.outs.len()),
        ));
    }
    finish_cond(vm, &pred, taken, [tr, fa])
}

/// Records the `If` node of two traced branches with as many outputs and
/// runs the taken one for the traced call (its effects included, unless
/// the trace runs none); the taken branch's result, rebuilt on the node's
/// outputs.
pub fn finish_cond(
    vm: &dyn Vm,
    pred: &Tensor,
    taken: bool,
    branches: [&Traced; 2],
) -> PyResult<Value> {
    if crate::runtime::autodiff::tape::recording() {
        // a gradient through the cond would need its own `If` of the
        // branches' gradients; until then the function runs eagerly
        graph::taint(|| "gradients through a tf.cond are not recorded in graphs yet".into());
    }
    let [tr, fa] = branches;
    if let Some(k) =
        (0..tr.outs.len().min(fa.outs.len())).find(|&k| tr.outs[k].dtype() != fa.outs[k].dtype())
    {
        return Err(dtype_mismatch(vm, tr, fa, k));
    }
    let same = tr
        .outs
        .iter()
        .zip(&fa.outs)
        .all(|(a, b)| a.dims() == b.dims());
    let t = if taken { tr } else { fa };
    let (result, outs) = (&t.result, &t.outs);
    if !same {
        // other dtypes are TensorFlow's TypeError, other shapes give unknown
        // dims: neither is a graph dist records yet
        graph::taint(|| "the branches of a tf.cond return other dtypes or shapes".into());
        return Ok(result.clone());
    }
    let graphs = [tr.graph.clone(), fa.graph.clone()];
    // each output its own handle: a branch returning one tensor twice, or
    // a tensor from outside, must not have its tag moved to another port
    let fresh = |ts: &[Tensor]| -> Vec<Tensor> {
        ts.iter()
            .map(crate::runtime::autodiff::tape::detached)
            .collect()
    };
    let recording = crate::runtime::autodiff::tape::recording();
    if recording || tr.graph.borrow().taint.is_some() || fa.graph.borrow().taint.is_some() {
        // no replay of this graph: the branch's own tensors (a tape
        // follows them)
        let refs: Vec<&Tensor> = outs.iter().collect();
        graph::record_cond(pred, graphs, &refs);
        return Ok(result.clone());
    }
    if trace::dry() {
        let outs = fresh(outs);
        let refs: Vec<&Tensor> = outs.iter().collect();
        graph::record_cond(pred, graphs, &refs);
        let mut flat = Vec::new();
        return match Template::of(result, &mut flat) {
            Some(t) => t.build(&outs),
            None => Ok(result.clone()),
        };
    }
    // the taken branch runs now, effects included
    let ran = {
        let bg = t.graph.borrow();
        let plan = crate::runtime::graph::exec::Plan::new(&bg);
        let args = bg.capture_values.clone();
        fresh(&graph::paused(|| {
            trace::run_graph(vm, &bg, &plan, &args, &[])
        })?)
    };
    let refs: Vec<&Tensor> = ran.iter().collect();
    graph::record_cond(pred, graphs, &refs);
    let mut flat = Vec::new();
    match Template::of(result, &mut flat) {
        Some(t) => t.build(&ran),
        None => Ok(result.clone()),
    }
}

/// TensorFlow's TypeError for `tf.cond` branches whose output `k` has
/// another dtype in each: both outputs shown as the tensors the `If` node
/// would return (`cond/Identity:0`).
fn dtype_mismatch(vm: &dyn Vm, tr: &Traced, fa: &Traced, k: usize) -> PyErr {
    let scope = graph::next_name("cond");
    let name = |i: usize| match i {
        0 => format!("{scope}/Identity:0"),
        _ => format!("{scope}/Identity_{i}:0"),
    };
    let text = |t: &Tensor, i: usize, nested: bool| {
        let (dtype, shape) = (t.dtype().name(), t.shape().tuple_text());
        if nested {
            format!("<tf.Tensor '{}' shape={shape} dtype={dtype}>", name(i))
        } else {
            format!("Tensor(\"{}\", shape={shape}, dtype={dtype})", name(i))
        }
    };
    fn shown(
        vm: &dyn Vm,
        v: &Value,
        k: &mut usize,
        nested: bool,
        text: &dyn Fn(&Tensor, usize, bool) -> String,
    ) -> String {
        let items = |xs: &[Value], k: &mut usize| -> Vec<String> {
            xs.iter().map(|x| shown(vm, x, k, true, text)).collect()
        };
        match v {
            Value::Tensor(t) => {
                *k += 1;
                text(t, *k - 1, nested)
            }
            Value::Tuple(xs) if xs.len() == 1 => format!("({},)", items(xs, k)[0]),
            Value::Tuple(xs) => format!("({})", items(xs, k).join(", ")),
            Value::List(l) => {
                let xs = l.borrow().clone();
                format!("[{}]", items(&xs, k).join(", "))
            }
            other => vm.repr(other).unwrap_or_default(),
        }
    }
    let (a, b) = (
        shown(vm, &tr.result, &mut 0, false, &text),
        shown(vm, &fa.result, &mut 0, false, &text),
    );
    PyErr::new(
        ExcType::TypeError,
        format!(
            "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of return values.\n\ntrue_fn output: {a}\nfalse_fn output: {b}\n\nError details:\n{} and {} have different types",
            text(&tr.outs[k], k, false),
            text(&fa.outs[k], k, false)
        ),
    )
}

/// A loop function: called with the loop variables, it returns the
/// condition or the next values.
pub type LoopBody<'a> = dyn FnMut(Vec<Value>) -> PyResult<Value> + 'a;

/// Traces `f(*vars)` into a branch graph whose first placeholders are the
/// loop variables (`l0`'s handles, in `template`'s structure), its effects
/// not run.
fn trace_loop_fn(
    f: &mut LoopBody,
    vm: &dyn Vm,
    template: &Template,
    l0: &[Tensor],
) -> PyResult<Option<Traced>> {
    trace_branch(vm, &mut || {
        let ph: Vec<Tensor> = l0
            .iter()
            .map(|t| graph::placeholder(t, "loop_var"))
            .collect();
        let args = match template.build(&ph)? {
            Value::List(l) => l.borrow().clone(),
            Value::Tuple(t) => t.to_vec(),
            other => vec![other],
        };
        f(args)
    })
}

/// What tracing a loop gave.
pub enum Loop {
    /// The loop ran; the loop variables' final values.
    Done(Value),
    /// Not a loop dist records (a non-tensor condition or result, a taint
    /// in the condition or body); nothing ran but the two traces.
    NotRecorded,
    /// Loop variable `i` has another dtype (true) or shape after one
    /// iteration: its value before and after.
    Changed(usize, bool, Tensor, Tensor),
}

/// A graph loop over `loop_vars` (a tuple, list or single value of tensors
/// and Python numbers): the condition and the body traced once each (their
/// Python runs once, as in TensorFlow) into a `While` node, which then runs
/// for the traced call.
pub fn trace_while(
    vm: &dyn Vm,
    loop_vars: &Value,
    cond: &mut LoopBody,
    body: &mut LoopBody,
) -> PyResult<Loop> {
    if !graph::tracing() || crate::runtime::autodiff::tape::recording() {
        return Ok(Loop::NotRecorded);
    }
    let lv = super::convert_outputs(vm, loop_vars)?;
    let mut l0 = Vec::new();
    let Some(template) = Template::of(&lv, &mut l0) else {
        return Ok(Loop::NotRecorded);
    };
    if l0.is_empty() {
        return Ok(Loop::NotRecorded);
    }
    let Some(c) = trace_loop_fn(cond, vm, &template, &l0)? else {
        return Ok(Loop::NotRecorded);
    };
    let scalar_bool = matches!(&c.result, Value::Tensor(t) if t.rank() == 0 && t.dtype() == crate::runtime::DType::Bool);
    if !scalar_bool || c.outs.len() != 1 {
        return Ok(Loop::NotRecorded);
    }
    let Some(b) = trace_loop_fn(body, vm, &template, &l0)? else {
        return Ok(Loop::NotRecorded);
    };
    if b.outs.len() != l0.len() || !b.ok {
        return Ok(Loop::NotRecorded);
    }
    for (i, (a, z)) in l0.iter().zip(&b.outs).enumerate() {
        if a.dtype() != z.dtype() || a.dims() != z.dims() {
            return Ok(Loop::Changed(
                i,
                a.dtype() != z.dtype(),
                a.clone(),
                z.clone(),
            ));
        }
    }
    let (cg, bg) = (c.graph, b.graph);
    if cg.borrow().taint.is_some() || bg.borrow().taint.is_some() {
        return Ok(Loop::NotRecorded);
    }
    // the loop runs now for the traced call (its effects too, unless the
    // trace runs none)
    let finals: Vec<Tensor> = if trace::dry() {
        l0.iter()
            .map(crate::runtime::autodiff::tape::detached)
            .collect()
    } else {
        let node = [
            graph::Branch {
                plan: graph::exec::Plan::new(&cg.borrow()),
                graph: cg.clone(),
            },
            graph::Branch {
                plan: graph::exec::Plan::new(&bg.borrow()),
                graph: bg.clone(),
            },
        ];
        let mut ins = l0.clone();
        ins.extend(cg.borrow().capture_values.iter().cloned());
        ins.extend(bg.borrow().capture_values.iter().cloned());
        graph::paused(|| trace::run_while_now(vm, &node, l0.len(), &ins))?
            .iter()
            .map(crate::runtime::autodiff::tape::detached)
            .collect()
    };
    let init: Vec<&Tensor> = l0.iter().collect();
    let refs: Vec<&Tensor> = finals.iter().collect();
    graph::record_while(&init, cg, bg, &refs);
    template.build(&finals).map(Loop::Done)
}

/// `tf.while_loop(cond, body, loop_vars)` while a `tf.function` traces (see
/// [`trace_while`]); None when the loop is not one dist records (a loop
/// variable that changes shape or dtype, a non-tensor result, a tape
/// recording through it): the caller then runs it as eager code does.
#[native("while_loop(cond, body, loop_vars)")]
pub fn graph_while(vm: &dyn Vm, cond: &Value, body: &Value, loop_vars: &Value) -> PyResult<Value> {
    let mut c = |args: Vec<Value>| vm.call(cond, args, Vec::new());
    let mut b = |args: Vec<Value>| vm.call(body, args, Vec::new());
    Ok(match trace_while(vm, loop_vars, &mut c, &mut b)? {
        Loop::Done(v) => v,
        Loop::NotRecorded | Loop::Changed(..) => Value::None,
    })
}

/// `_dist_graph.unknown_length(t)`: `t`, its static first dim unknown while
/// a `tf.function` traces (a TensorArray of dynamic size stacked, whose
/// length TensorFlow knows only when the graph runs); `t` itself otherwise.
#[native("unknown_length(t)")]
pub fn unknown_length(t: &Value) -> PyResult<Value> {
    if let Value::Tensor(x) = t {
        if x.rank() > 0 {
            let dims = match graph::shapes::static_dims(x) {
                Some(Some(d)) => Some(d),
                Some(None) => None,
                None => Some(x.dims().iter().map(|&d| Some(d)).collect()),
            };
            if let Some(mut dims) = dims {
                dims[0] = None;
                graph::shapes::set_static(x, Some(dims));
            }
        }
    }
    Ok(t.clone())
}

/// `_dist_graph.static_value(t)`: `t`'s value (numpy) where
/// `tf.get_static_value` knows it while a `tf.function` traces (see
/// `graph::shapes::value_is_static`), else None. Reading it does not keep
/// the graph from replaying: the value is fixed.
#[native("static_value(t)")]
pub fn static_value(vm: &dyn Vm, t: &Value) -> PyResult<Value> {
    let Value::Tensor(x) = t else {
        return Ok(Value::None);
    };
    if !graph::shapes::value_is_static(x) {
        return Ok(Value::None);
    }
    graph::paused(|| {
        let numpy = vm.getattr(t, "numpy")?;
        vm.call(&numpy, Vec::new(), Vec::new())
    })
}

/// The `_dist_graph` module: what the language's control flow asks of graphs.
/// `_dist_graph.probing()`: which probe call of a dataset function is
/// running (0 when none; see `dataset::methods::probe_index`).
#[native("probing()")]
pub fn probing() -> i64 {
    crate::distribute::dataset::methods::probe_index() as i64
}

/// `_dist_graph.no_gradient(op_name, fn, inputs)`: `fn()`, a composition
/// standing for one TensorFlow op that has no registered gradient, run as
/// that one op: its parts are not recorded, and a tape that follows one of
/// `inputs` raises TensorFlow's `LookupError` naming `op_name` when a
/// gradient is asked through it.
#[native("no_gradient(op_name, fn, inputs)")]
pub fn no_gradient(vm: &dyn Vm, op_name: &str, r#fn: &Value, inputs: &Value) -> PyResult<Value> {
    use crate::runtime::autodiff::{tape, GradOp, NoGrad};
    let mut ins = Vec::new();
    let it = vm.iter(inputs)?;
    while let Some(v) = vm.next(&it)? {
        if let Value::Tensor(t) = v {
            ins.push(t);
        }
    }
    let refs: Vec<&Tensor> = ins.iter().collect();
    let mut failed = None;
    let out = tape::primitive(
        || GradOp::NoGrad(NoGrad(interned(op_name))),
        &refs,
        || match vm.call(r#fn, Vec::new(), Vec::new()) {
            Ok(Value::Tensor(t)) => Ok(t),
            Ok(_) => Err(crate::runtime::error::Error::internal(
                "no_gradient: the function did not return a tensor",
            )),
            Err(e) => {
                failed = Some(e);
                Err(crate::runtime::error::Error::internal("no_gradient"))
            }
        },
    );
    match (out, failed) {
        (_, Some(e)) => Err(e),
        (Ok(t), None) => Ok(Value::Tensor(t)),
        (Err(e), None) => Err(runtime_err(e)),
    }
}

/// An op name kept for the life of the program (the few names the
/// standard library gives [`no_gradient`]).
fn interned(name: &str) -> &'static str {
    thread_local! {
        static NAMES: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    }
    NAMES.with(|n| {
        let mut n = n.borrow_mut();
        if let Some(s) = n.iter().find(|s| **s == name) {
            return *s;
        }
        let s: &'static str = Box::leak(name.to_owned().into_boxed_str());
        n.push(s);
        s
    })
}

/// What `_dist_graph.lift()` paused: the graphs being traced and the
/// tapes' recording, given back by `_dist_graph.unlift(token)`.
struct Lifted(RefCell<Option<(graph::Pause, u32)>>);

impl crate::value::NativeObject for Lifted {}

/// `_dist_graph.lift()`: `tf.init_scope`'s entry: the code that follows
/// runs eagerly (no graph records it, it runs once, when the function
/// traces) and no gradient tape records it, until `unlift(token)`.
#[native("lift()")]
pub fn lift() -> Value {
    let g = graph::pause();
    let t = crate::runtime::autodiff::tape::suspend();
    Value::native(Lifted(RefCell::new(Some((g, t)))))
}

/// `_dist_graph.unlift(token)`: ends what `lift()` began.
#[native("unlift(token)")]
pub fn unlift(token: &Value) -> PyResult<()> {
    let taken = token
        .downcast::<Lifted>()
        .and_then(|l| l.0.borrow_mut().take());
    let Some((g, t)) = taken else {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "unlift() needs a token of lift() not yet ended",
        ));
    };
    crate::runtime::autodiff::tape::unsuspend(t);
    graph::resume(g);
    Ok(())
}

pub fn module() -> Value {
    let mut m = crate::object::module::ModuleBuilder::new("_dist_graph");
    m.add(probing::DEF);
    m.add(graph_cond::DEF);
    m.add(graph_while::DEF);
    m.add(unknown_length::DEF);
    m.add(static_value::DEF);
    m.add(no_gradient::DEF);
    m.add(lift::DEF);
    m.add(unlift::DEF);
    m.build()
}
