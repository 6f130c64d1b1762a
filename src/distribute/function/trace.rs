//! Tracing a `tf.function` call into a graph and replaying it.
//!
//! A trace runs the Python body once with the call's tensors replaced by
//! placeholder handles (named after the parameters, as TensorFlow names its
//! `Placeholder` nodes: `x`, `xs`, `xs_1`); what the body returns is
//! flattened into the graph's outputs and a template of its structure. A
//! later call with the same signature replays the graph on its tensors
//! (see `runtime::graph`), unless the trace was tainted.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::distribute::values::{mirrored, per_replica, DistKind, DistValues};
use crate::object::tensor::convert::runtime_err;
use crate::runtime::graph::{self, exec, Graph};
use crate::runtime::Tensor;
use crate::value::{Dict, PyErr, PyResult, Value, Vm};

/// A host effect of a graph (`tf.print`): run again with the node's
/// tensors at every replay.
pub struct HostEffect(pub Box<EffectBody>);

/// What a host effect runs: the interpreter and the node's tensors.
pub type EffectBody = dyn Fn(&dyn Vm, &[Tensor]) -> PyResult<()>;

/// A call's positional and keyword arguments.
type CallArgs = (Vec<Value>, Vec<(Rc<str>, Value)>);

thread_local! {
    /// Whether the trace running now may not execute side effects
    /// (`get_concrete_function`, TensorFlow's second trace of a function
    /// that created variables).
    static DRY: Cell<bool> = const { Cell::new(false) };
    /// Variables created by the traces running now (TensorFlow lifts the
    /// first trace's and rejects a later trace's).
    static CREATED: Cell<usize> = const { Cell::new(0) };
    /// Whether the trace running now may not create variables.
    static FORBID: Cell<bool> = const { Cell::new(false) };
    /// Whether the trace running now converts Python control flow on
    /// tensors (`tf.function(autograph=True)`).
    static AUTOGRAPH: Cell<bool> = const { Cell::new(false) };
}

/// Whether the trace running now converts Python control flow on tensors
/// into graph control flow (autograph).
pub fn autograph() -> bool {
    AUTOGRAPH.with(Cell::get)
}

/// Whether side effects are being traced without running (variable
/// assignments, `tf.print`).
pub fn dry() -> bool {
    DRY.with(Cell::get)
}

/// Sets whether side effects run (see [`dry`]); the previous setting.
pub fn set_dry(dry: bool) -> bool {
    DRY.with(|d| d.replace(dry))
}

/// A variable is created: inside a trace, counted; in TensorFlow's second
/// trace of a function that created variables, its error.
pub fn note_variable_created() -> PyResult<()> {
    if graph::tracing() {
        if DRY.with(Cell::get) && FORBID.with(Cell::get) {
            return Err(PyErr::new(
                crate::value::ExcType::ValueError,
                "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables for more information.",
            ));
        }
        CREATED.with(|c| c.set(c.get() + 1));
    }
    Ok(())
}

/// The structure of a traced function's result, with its tensors as
/// indices into the graph's outputs.
pub enum Template {
    /// The graph output at this index.
    Tensor(usize),
    /// A value returned as it is (None, a string).
    Value(Value),
    /// A list.
    List(Vec<Template>),
    /// A tuple.
    Tuple(Vec<Template>),
    /// A dict.
    Dict(Vec<(Value, Template)>),
    /// A `PerReplica` or `Mirrored` value.
    Dist(DistKind, Vec<Template>),
}

impl Template {
    /// The template of `v`, its tensors appended to `out` (None for a
    /// result a replay cannot rebuild).
    pub fn of(v: &Value, out: &mut Vec<Tensor>) -> Option<Template> {
        Some(match v {
            Value::Tensor(t) => {
                out.push(t.clone());
                Template::Tensor(out.len() - 1)
            }
            Value::None | Value::Bool(_) | Value::Str(_) | Value::Int(_) | Value::Float(_) => {
                Template::Value(v.clone())
            }
            Value::List(l) => Template::List(
                l.borrow()
                    .iter()
                    .map(|x| Template::of(x, out))
                    .collect::<Option<_>>()?,
            ),
            Value::Tuple(t) => Template::Tuple(
                t.iter()
                    .map(|x| Template::of(x, out))
                    .collect::<Option<_>>()?,
            ),
            Value::Dict(d) => Template::Dict(
                d.borrow()
                    .items()
                    .into_iter()
                    .map(|(k, x)| Some((k, Template::of(&x, out)?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Native(n) => {
                let d = n.as_any().downcast_ref::<DistValues>()?;
                Template::Dist(
                    d.kind,
                    d.values
                        .iter()
                        .map(|x| Template::of(x, out))
                        .collect::<Option<_>>()?,
                )
            }
            _ => return None,
        })
    }

    /// The result, with the replay's tensors.
    pub fn build(&self, ts: &[Tensor]) -> PyResult<Value> {
        Ok(match self {
            Template::Tensor(i) => Value::Tensor(ts[*i].clone()),
            Template::Value(v) => v.clone(),
            Template::List(xs) => {
                Value::list(xs.iter().map(|x| x.build(ts)).collect::<PyResult<_>>()?)
            }
            Template::Tuple(xs) => {
                Value::tuple(xs.iter().map(|x| x.build(ts)).collect::<PyResult<_>>()?)
            }
            Template::Dict(xs) => {
                let mut d = Dict::new();
                for (k, x) in xs {
                    d.insert(k.clone(), x.build(ts)?)?;
                }
                Value::dict(d)
            }
            Template::Dist(kind, xs) => {
                let parts = xs
                    .iter()
                    .map(|x| x.build(ts))
                    .collect::<PyResult<Vec<_>>>()?;
                match kind {
                    DistKind::PerReplica => per_replica(parts),
                    DistKind::Mirrored => mirrored(parts),
                }
            }
        })
    }
}

/// A traced graph a call can replay.
pub struct Concrete {
    /// The graph.
    pub graph: Rc<RefCell<Graph>>,
    /// Its replay plan.
    pub plan: exec::Plan,
    /// The result's structure.
    pub template: Template,
    /// The variables passed as arguments to the trace, in the order of
    /// their `alias_id`s (their addresses): a replay on other variables of
    /// the same specs reads and assigns those instead.
    pub variables: Vec<usize>,
}

/// The tensors of a call's arguments in order (lists, tuples and dicts
/// walked into), each replaced by `f`'s result.
pub fn map_arg_tensors(v: &Value, f: &mut dyn FnMut(&Tensor) -> Tensor) -> PyResult<Value> {
    match v {
        Value::Tensor(t) => Ok(Value::Tensor(f(t))),
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) => {
            crate::distribute::nest::map_leaves(v, &mut |x| map_arg_tensors(x, f))
        }
        Value::Native(n) if n.as_any().downcast_ref::<DistValues>().is_some() => {
            // a PerReplica / Mirrored value: each replica's component
            let Some(d) = n.as_any().downcast_ref::<DistValues>() else {
                return Ok(v.clone());
            };
            let parts = d
                .values
                .iter()
                .map(|x| map_arg_tensors(x, f))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(match d.kind {
                DistKind::PerReplica => per_replica(parts),
                DistKind::Mirrored => mirrored(parts),
            })
        }
        Value::Native(_) if !crate::distribute::variables::is_variable(v) => {
            // a distributed value, a numpy array, a dataset…: their tensors
            // would be frozen into the graph
            graph::taint(|| format!("a {} argument is not a graph input yet", v.type_name()));
            Ok(v.clone())
        }
        other => Ok(other.clone()),
    }
}

/// The name of the Python function `func` (TensorFlow's `FuncGraph` name).
fn function_name(func: &Value) -> String {
    match func {
        Value::Function(f) => f.def.name.to_string(),
        Value::BoundMethod(b) => function_name(&b.func),
        _ => "function".to_string(),
    }
}

/// A trace's result as the caller gets it: each of its graph tensors as a
/// new handle on the same value that no graph knows, recorded as an
/// identity on recording gradient tapes (so a tape around the call still
/// reaches the body's ops). A tensor the body also kept elsewhere (a list,
/// an attribute) stays the graph's, out of scope after the trace.
pub fn returned(v: &Value) -> PyResult<Value> {
    match v {
        Value::Tensor(t) if t.tag() != 0 => Ok(Value::Tensor(
            crate::runtime::autodiff::tape::identity_op(t),
        )),
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) if any_tagged(v) => {
            crate::distribute::nest::map_leaves(v, &mut returned)
        }
        Value::Native(n) => match n.as_any().downcast_ref::<DistValues>() {
            Some(d) if d.values.iter().any(any_tagged) => {
                let parts = d
                    .values
                    .iter()
                    .map(returned)
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(match d.kind {
                    DistKind::PerReplica => per_replica(parts),
                    DistKind::Mirrored => mirrored(parts),
                })
            }
            _ => Ok(v.clone()),
        },
        other => Ok(other.clone()),
    }
}

/// Whether `v` holds a graph tensor (in nested lists, tuples, dicts or a
/// distributed value).
fn any_tagged(v: &Value) -> bool {
    match v {
        Value::Tensor(t) => t.tag() != 0,
        Value::List(l) => l.borrow().iter().any(any_tagged),
        Value::Tuple(t) => t.iter().any(any_tagged),
        Value::Dict(d) => d.borrow().items().iter().any(|(_, x)| any_tagged(x)),
        Value::Native(n) => n
            .as_any()
            .downcast_ref::<DistValues>()
            .is_some_and(|d| d.values.iter().any(any_tagged)),
        _ => false,
    }
}

/// A `get_concrete_function` argument with each `tf.TensorSpec` replaced by
/// a tensor of its dtype and shape (the trace's values; its effects do not
/// run; an unknown dim is 1), and each input tensor's static shape pushed to
/// `statics` in order.
pub fn shadow_of_specs(v: &Value, statics: &mut Vec<StaticShape>) -> PyResult<Value> {
    use crate::distribute::dataset::structure::{Spec, SpecObj};
    match v {
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) => {
            crate::distribute::nest::map_leaves(v, &mut |x| shadow_of_specs(x, statics))
        }
        Value::Tensor(t) => {
            statics.push(Some(graph::shapes::known(t)));
            Ok(v.clone())
        }
        Value::Native(n) => match n.as_any().downcast_ref::<SpecObj>() {
            Some(SpecObj(Spec::Tensor { dtype, dims }, _)) => {
                statics.push(dims.clone());
                // (an unknown rank traces on a scalar)
                let dims: Vec<usize> = dims.iter().flatten().map(|d| d.unwrap_or(1)).collect();
                Tensor::zeros(*dtype, &dims, crate::runtime::Device::CPU0)
                    .map(Value::Tensor)
                    .map_err(runtime_err)
            }
            _ => Ok(v.clone()),
        },
        other => Ok(other.clone()),
    }
}

/// The parameter name each positional argument and keyword binds to.
pub fn param_names(func: &Value, npos: usize, kwargs: &[(Rc<str>, Value)]) -> Vec<Rc<str>> {
    use crate::value::signature::ParamKind;
    let mut names: Vec<Rc<str>> = Vec::with_capacity(npos + kwargs.len());
    let params = match func {
        Value::Function(f) => f.sig.params.clone(),
        _ => Vec::new(),
    };
    let positional: Vec<&Rc<str>> = params
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                ParamKind::PositionalOrKeyword | ParamKind::PositionalOnly
            )
        })
        .map(|p| &p.name)
        .collect();
    let var = params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::VarPositional))
        .map(|p| p.name.clone());
    for i in 0..npos {
        let name = match positional.get(i) {
            Some(n) => (*n).clone(),
            None => var.clone().unwrap_or_else(|| Rc::from("args")),
        };
        names.push(name);
    }
    names.extend(kwargs.iter().map(|(k, _)| k.clone()));
    names
}

/// What a trace gave: the call's result and, when it can replay, the graph.
pub struct Traced {
    /// The result of running the body.
    pub result: PyResult<Value>,
    /// The graph (None: tainted or the body failed).
    pub concrete: Option<Concrete>,
    /// Why the graph cannot replay.
    pub taint: Option<String>,
    /// Whether the body created variables.
    pub created_variables: bool,
    /// The graph the trace recorded, replayable or not (its static shapes
    /// type the result).
    pub recorded: Rc<RefCell<Graph>>,
}

use crate::distribute::variables::arg_variables;
use crate::runtime::graph::shapes::StaticShape;

/// Traces `func` on `args`/`kwargs`: runs the body once on placeholders
/// (`statics`: the inputs' static shapes, where some dims are unknown).
/// `convert` turns the body's result into the function's (Python numbers
/// to tensors) while the trace is still open.
pub fn trace(
    vm: &dyn Vm,
    func: &Value,
    (args, kwargs): (&[Value], &[(Rc<str>, Value)]),
    statics: Option<&[StaticShape]>,
    dry_run: bool,
    autograph: bool,
    convert: &dyn Fn(&dyn Vm, &Value) -> PyResult<Value>,
) -> Traced {
    let names = param_names(func, args.len(), kwargs);
    let saved_autograph = AUTOGRAPH.with(|a| a.replace(autograph));
    let saved_dry = DRY.with(|d| d.replace(dry_run));
    let saved_forbid = FORBID.with(|d| d.replace(dry_run));
    let saved_created = CREATED.with(|c| c.replace(0));
    let g = graph::begin();
    graph::set_function_name(&g, &function_name(func));
    // the k-th input tensor's static shape, where some dims are unknown
    let k = Cell::new(0);
    let ph = |v: &Value, name: &str| {
        map_arg_tensors(v, &mut |t| {
            let dims = statics.and_then(|s| s.get(k.get())).cloned();
            k.set(k.get() + 1);
            graph::placeholder_shaped(t, name, dims)
        })
    };
    let bound: PyResult<CallArgs> = (|| {
        let mut a = Vec::with_capacity(args.len());
        for (v, n) in args.iter().zip(&names) {
            a.push(ph(v, n)?);
        }
        let mut k = Vec::with_capacity(kwargs.len());
        for ((key, v), n) in kwargs.iter().zip(&names[args.len()..]) {
            k.push((key.clone(), ph(v, n)?));
        }
        Ok((a, k))
    })();
    let result = bound
        .and_then(|(a, k)| vm.call(func, a, k))
        .and_then(|r| convert(vm, &r));
    let mut template = None;
    if let Ok(r) = &result {
        let mut outs = Vec::new();
        template = Template::of(r, &mut outs);
        match &template {
            Some(_) => graph::set_outputs(&g, &outs),
            None => graph::taint(|| format!("the function returns a {}", r.type_name())),
        }
    }
    graph::end(&g);
    AUTOGRAPH.with(|a| a.set(saved_autograph));
    DRY.with(|d| d.set(saved_dry));
    FORBID.with(|d| d.set(saved_forbid));
    let created = CREATED.with(|c| c.replace(saved_created));
    let taint = g.borrow().taint.clone();
    let recorded = g.clone();
    let concrete = match (&result, template, &taint) {
        (Ok(_), Some(template), None) => {
            let plan = exec::Plan::new(&g.borrow());
            Some(Concrete {
                graph: g,
                plan,
                template,
                variables: arg_variables(&call_values(args, kwargs))
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect(),
            })
        }
        _ => None,
    };
    Traced {
        result,
        concrete,
        taint,
        created_variables: created > 0,
        recorded,
    }
}

/// A call's argument values, positional then keyword.
pub fn call_values(args: &[Value], kwargs: &[(Rc<str>, Value)]) -> Vec<Value> {
    args.iter()
        .cloned()
        .chain(kwargs.iter().map(|(_, v)| v.clone()))
        .collect()
}

/// A call's tensors, in the order of the graph's placeholders.
fn flat_inputs(args: &[Value], kwargs: &[(Rc<str>, Value)]) -> PyResult<Vec<Tensor>> {
    let mut inputs = Vec::new();
    for v in args.iter().chain(kwargs.iter().map(|(_, v)| v)) {
        map_arg_tensors(v, &mut |t| {
            inputs.push(t.clone());
            t.clone()
        })?;
    }
    Ok(inputs)
}

/// Whether a call's tensors have the dtypes and shapes of the graph's
/// placeholders (so the graph can replay them).
pub fn matches_inputs(c: &Concrete, args: &[Value], kwargs: &[(Rc<str>, Value)]) -> PyResult<bool> {
    Ok(matches_flat(c, &flat_inputs(args, kwargs)?))
}

/// [`matches_inputs`] for the flat inputs.
pub fn matches_flat(c: &Concrete, inputs: &[Tensor]) -> bool {
    let g = c.graph.borrow();
    inputs.len() == g.placeholders.len()
        && inputs.iter().zip(&g.placeholders).all(|(t, &p)| {
            let node = &g.nodes[p];
            node.outputs.first().is_some_and(|(d, s)| {
                *d == t.dtype() && s.dims() == t.dims() && node.device == t.device()
            })
        })
}

/// TensorFlow's error for a concrete function called with a tensor of
/// another dtype than its placeholder's.
pub fn check_input_dtypes(
    c: &Concrete,
    args: &[Value],
    kwargs: &[(Rc<str>, Value)],
    name: &str,
) -> PyResult<()> {
    check_flat_dtypes(c, &flat_inputs(args, kwargs)?, name)
}

/// [`check_input_dtypes`] for the flat inputs.
pub fn check_flat_dtypes(c: &Concrete, inputs: &[Tensor], name: &str) -> PyResult<()> {
    let g = c.graph.borrow();
    for (i, (t, &p)) in inputs.iter().zip(&g.placeholders).enumerate() {
        if let Some((want, _)) = g.nodes[p].outputs.first() {
            if *want != t.dtype() {
                return Err(PyErr::new(
                    crate::value::ExcType::InvalidArgumentError,
                    format!(
                        "cannot compute {name} as input #{i}(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{name}]",
                        want.kernel_name(),
                        t.dtype().kernel_name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Replays a traced graph on a call's tensors.
pub fn replay(
    vm: &dyn Vm,
    c: &Concrete,
    args: &[Value],
    kwargs: &[(Rc<str>, Value)],
) -> PyResult<Value> {
    let inputs = flat_inputs(args, kwargs)?;
    // the call's variables stand in for the trace's, alias for alias (a
    // graph that took no variable arguments needs no walk of the call's)
    let now = if c.variables.is_empty() {
        Vec::new()
    } else {
        arg_variables(&call_values(args, kwargs))
    };
    let subst: Vec<(usize, Rc<dyn graph::Resource>)> = c
        .variables
        .iter()
        .zip(now)
        .filter(|(traced, (now, _))| *traced != now)
        .map(|(&traced, (_, cell))| (traced, cell as Rc<dyn graph::Resource>))
        .collect();
    let g = c.graph.borrow();
    let outs = run_graph(vm, &g, &c.plan, &inputs, &subst)?;
    c.template.build(&outs)
}

/// Runs a graph on `inputs` with the interpreter for its host effects
/// (`subst`: resources to use in place of the traced ones).
pub fn run_graph(
    vm: &dyn Vm,
    g: &Graph,
    plan: &exec::Plan,
    inputs: &[Tensor],
    subst: &exec::Subst,
) -> PyResult<Vec<Tensor>> {
    with_effects(vm, |effect| exec::run(g, plan, inputs, subst, effect))
}

/// Runs a `While` node's loop now, with the interpreter for its effects.
pub fn run_while_now(
    vm: &dyn Vm,
    bs: &[graph::Branch; 2],
    n: usize,
    inputs: &[Tensor],
) -> PyResult<Vec<Tensor>> {
    with_effects(vm, |effect| exec::run_while(bs, n, inputs, &[], effect))
}

/// Runs `f` with an effect handler that runs host effects and polls for
/// Ctrl-C through the interpreter.
fn with_effects(
    vm: &dyn Vm,
    f: impl FnOnce(&mut exec::EffectFn) -> crate::runtime::Result<Vec<Tensor>>,
) -> PyResult<Vec<Tensor>> {
    let failed: RefCell<Option<PyErr>> = RefCell::new(None);
    let mut effect = |payload: &Rc<dyn std::any::Any>, ts: &[Tensor]| {
        if payload.is::<exec::Poll>() {
            if let Err(e) = vm.check_interrupt() {
                *failed.borrow_mut() = Some(e);
                return Err(crate::runtime::Error::internal("interrupted"));
            }
            return Ok(());
        }
        if let Some(h) = payload.downcast_ref::<HostEffect>() {
            if let Err(e) = (h.0)(vm, ts) {
                *failed.borrow_mut() = Some(e);
                return Err(crate::runtime::Error::internal("host effect failed"));
            }
        }
        Ok(())
    };
    let outs = f(&mut effect);
    if let Some(e) = failed.borrow_mut().take() {
        return Err(e);
    }
    outs.map_err(runtime_err)
}

/// An error raised while tracing, as autograph re-raises it: the same
/// exception type with `in user code:`, the user frames from the function
/// down to the raise, and the original `Type: message`. Types autograph
/// cannot rebuild from a message (it raises a `StagingError` for them) are
/// left as they are.
pub fn in_user_code(vm: &dyn Vm, e: PyErr) -> PyErr {
    use crate::value::ExcType;
    const STRING_CONSTRUCTED: &[ExcType] = &[
        ExcType::Exception,
        ExcType::AssertionError,
        ExcType::AttributeError,
        ExcType::NameError,
        ExcType::NotImplementedError,
        ExcType::RuntimeError,
        ExcType::StopIteration,
        ExcType::TypeError,
        ExcType::UnboundLocalError,
        ExcType::ValueError,
        ExcType::OperatorNotAllowedInGraphError,
    ];
    let cls = e.class();
    let Some(ty) = ExcType::ALL
        .iter()
        .copied()
        .find(|t| Rc::ptr_eq(&t.class(), &cls))
    else {
        return e;
    };
    let op_error = ty != ExcType::OpError && e.is(ExcType::OpError);
    if !(STRING_CONSTRUCTED.contains(&ty) || op_error) {
        return e;
    }
    let Ok(text) = vm.str(e.value()) else {
        return e;
    };
    // autograph writes the class's `__name__` (`InvalidArgumentError: ...`)
    let tname = ty.name().to_string();
    let cause = if text.is_empty() {
        tname
    } else {
        format!("{tname}: {text}")
    };
    let mut lines = vec!["in user code:".to_string(), String::new()];
    // (the frames of the script: TensorFlow's own code, dist's standard
    // library here, is not shown)
    for entry in e.0.traceback.iter().rev() {
        if entry.source.name.starts_with("<stdlib") {
            continue;
        }
        let line = entry.source.line_of(entry.span.start);
        let code = entry.source.line_text(line).trim().to_string();
        let mark = if entry.source.module_name() == "__main__" {
            "  *"
        } else {
            ""
        };
        lines.push(format!(
            "    File \"{}\", line {line}, in {}{mark}",
            entry.source.name, entry.func
        ));
        lines.push(format!("        {code}"));
    }
    lines.push(String::new());
    lines.extend(cause.split('\n').map(|l| format!("    {l}")));
    lines.push(String::new());
    let mut out = PyErr::new(ty, lines.join("\n"));
    out.0.traceback = e.0.traceback.clone();
    out.0.located = e.0.located;
    out.0.help = e.0.help.clone();
    out
}
