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
    if crate::runtime::autodiff::tape::recording() {
        // a gradient through the cond would need its own `If` of the
        // branches' gradients; until then the function runs eagerly
        graph::taint(|| "gradients through a tf.cond are not recorded in graphs yet".into());
    }
    // the traced call's value of the predicate (a read the graph does not see)
    let taken = graph::paused(|| pred.item()).map_err(runtime_err)?.as_f64() != 0.0;
    let mut traced = Vec::with_capacity(2);
    let outer_dry = trace::dry();
    for f in [true_fn, false_fn] {
        let Some(g) = graph::begin_branch() else {
            return vm.call(
                if taken { true_fn } else { false_fn },
                Vec::new(),
                Vec::new(),
            );
        };
        let saved = trace::set_dry(true);
        let r = vm
            .call(f, Vec::new(), Vec::new())
            .and_then(|r| super::convert_outputs(vm, &r));
        trace::set_dry(saved);
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                graph::end(&g);
                return Err(e);
            }
        };
        let mut outs = Vec::new();
        let template = Template::of(&r, &mut outs);
        match template {
            Some(_) => graph::set_outputs(&g, &outs),
            None => graph::taint(|| format!("a tf.cond branch returns a {}", r.type_name())),
        }
        graph::end(&g);
        traced.push((r, outs, g));
    }
    let (tr, fa) = (&traced[0], &traced[1]);
    if tr.1.len() != fa.1.len() {
        // TensorFlow's cond_v2 asserts the branches' output counts match
        return Err(PyErr::new(
            ExcType::AssertionError,
            format!("[{}, {}]", tr.1.len(), fa.1.len()),
        ));
    }
    let same =
        tr.1.iter()
            .zip(&fa.1)
            .all(|(a, b)| a.dtype() == b.dtype() && a.dims() == b.dims());
    let (result, outs) = if taken {
        (&tr.0, &tr.1)
    } else {
        (&fa.0, &fa.1)
    };
    if !same {
        // other dtypes are TensorFlow's TypeError, other shapes give unknown
        // dims: neither is a graph dist records yet
        graph::taint(|| "the branches of a tf.cond return other dtypes or shapes".into());
        return Ok(result.clone());
    }
    if outer_dry || tr.2.borrow().taint.is_some() || fa.2.borrow().taint.is_some() {
        let refs: Vec<&Tensor> = outs.iter().collect();
        graph::record_cond(&pred, [tr.2.clone(), fa.2.clone()], &refs);
        return Ok(result.clone());
    }
    // the taken branch runs now, effects included
    let b = if taken { &tr.2 } else { &fa.2 };
    let ran = {
        let bg = b.borrow();
        let plan = crate::runtime::graph::exec::Plan::new(&bg);
        let args = bg.capture_values.clone();
        graph::paused(|| trace::run_graph(vm, &bg, &plan, &args))?
    };
    let refs: Vec<&Tensor> = ran.iter().collect();
    graph::record_cond(&pred, [tr.2.clone(), fa.2.clone()], &refs);
    let mut flat = Vec::new();
    match Template::of(result, &mut flat) {
        Some(t) => t.build(&ran),
        None => Ok(result.clone()),
    }
}

/// A traced loop function: its graph, its result and the result's tensors.
type LoopFn = (Rc<RefCell<graph::Graph>>, Value, Vec<Tensor>);

/// Traces `f(*vars)` into a branch graph whose first placeholders are the
/// loop variables (`l0`'s handles, in `template`'s structure), its effects
/// not run; the graph, the result and its flat tensors.
fn trace_loop_fn(
    vm: &dyn Vm,
    f: &Value,
    template: &Template,
    l0: &[Tensor],
) -> PyResult<Option<LoopFn>> {
    let Some(g) = graph::begin_branch() else {
        return Ok(None);
    };
    let ph: Vec<Tensor> = l0
        .iter()
        .map(|t| graph::placeholder(t, "loop_var"))
        .collect();
    let saved = trace::set_dry(true);
    let r = template.build(&ph).and_then(|vars| {
        let args = match vars {
            Value::List(l) => l.borrow().clone(),
            Value::Tuple(t) => t.to_vec(),
            other => vec![other],
        };
        vm.call(f, args, Vec::new())
            .and_then(|r| super::convert_outputs(vm, &r))
    });
    trace::set_dry(saved);
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            graph::end(&g);
            return Err(e);
        }
    };
    let mut outs = Vec::new();
    let ok = Template::of(&r, &mut outs).is_some();
    if ok {
        graph::set_outputs(&g, &outs);
    }
    graph::end(&g);
    Ok(ok.then_some((g, r, outs)))
}

/// `tf.while_loop(cond, body, loop_vars)` while a `tf.function` traces: the
/// condition and the body traced once each (their Python runs once, as in
/// TensorFlow) into a `While` node, which then runs for the traced call.
/// None when the loop is not one dist records (a loop variable that changes
/// shape or dtype, a non-tensor result, a tape recording through it): the
/// caller then runs it as eager code does.
#[native("while_loop(cond, body, loop_vars)")]
pub fn graph_while(vm: &dyn Vm, cond: &Value, body: &Value, loop_vars: &Value) -> PyResult<Value> {
    if !graph::tracing() || crate::runtime::autodiff::tape::recording() {
        return Ok(Value::None);
    }
    let lv = super::convert_outputs(vm, loop_vars)?;
    let mut l0 = Vec::new();
    let Some(template) = Template::of(&lv, &mut l0) else {
        return Ok(Value::None);
    };
    if l0.is_empty() {
        return Ok(Value::None);
    }
    let Some((cg, pred, p)) = trace_loop_fn(vm, cond, &template, &l0)? else {
        return Ok(Value::None);
    };
    let scalar_bool = matches!(&pred, Value::Tensor(t) if t.rank() == 0 && t.dtype() == crate::runtime::DType::Bool);
    if !scalar_bool || p.len() != 1 {
        return Ok(Value::None);
    }
    let Some((bg, _, outs)) = trace_loop_fn(vm, body, &template, &l0)? else {
        return Ok(Value::None);
    };
    let same = outs.len() == l0.len()
        && outs
            .iter()
            .zip(&l0)
            .all(|(a, b)| a.dtype() == b.dtype() && a.dims() == b.dims());
    if !same || cg.borrow().taint.is_some() || bg.borrow().taint.is_some() {
        return Ok(Value::None);
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
    };
    let init: Vec<&Tensor> = l0.iter().collect();
    let refs: Vec<&Tensor> = finals.iter().collect();
    graph::record_while(&init, cg, bg, &refs);
    template.build(&finals)
}

/// The `_dist_graph` module: what the language's control flow asks of graphs.
pub fn module() -> Value {
    let mut m = crate::object::module::ModuleBuilder::new("_dist_graph");
    m.add(graph_cond::DEF);
    m.add(graph_while::DEF);
    m.build()
}
