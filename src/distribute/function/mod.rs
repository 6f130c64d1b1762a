//! `tf.function`: as a decorator with or without arguments
//! (`@tf.function`, `@tf.function(jit_compile=True)`, `input_signature`
//! accepted). A call with a new signature (tensors' dtypes, shapes and
//! devices, Python values themselves) traces: the Python body runs once on
//! symbolic placeholders and its ops are recorded into a graph (`trace`);
//! later calls with that signature replay the graph without running the
//! Python body, so Python's `print` shows only while tracing and `tf.print`
//! at every call. A trace the graph cannot fully capture (see
//! `runtime::graph`) runs the Python body on every call instead, with
//! Python's `print` muted after the first. Python numbers and strings
//! returned become tensors, inside nested tuples, lists and dicts too.

pub mod binding;
pub mod concrete;
pub mod control;
pub mod trace;

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::distribute::classes::native_class;
use crate::object::tensor::convert::to_tensor;
use crate::object::{native, ClassSpec, Member};
use crate::value::{NativeObject, PyErr, PyResult, Value, Vm};

/// A `tf.function`-wrapped Python function.
pub struct FunctionObj {
    func: Value,
    /// The signatures traced so far.
    traces: RefCell<HashSet<String>>,
    /// How shapes retrace.
    relaxed: Retrace,
    /// The replayable graphs, by exact signature.
    graphs: RefCell<HashMap<String, Rc<trace::Concrete>>>,
    /// How many times it traced.
    count: Cell<usize>,
    /// `autograph`: errors raised while tracing name the user code.
    autograph: bool,
    /// The concrete functions traced so far, with their signature keys.
    concretes: RefCell<Vec<(String, Value)>>,
    /// `input_signature`: the static shape of each flattened input.
    signature_dims: Option<Rc<[StaticShape]>>,
    /// `input_signature` itself (`get_concrete_function()` traces it).
    input_signature: Option<Value>,
    /// The types of `input_signature`, which every call binds to (None:
    /// not yet worked out, or a signature binding does not model).
    signature_type: std::cell::OnceCell<Option<Rc<binding::FunctionType>>>,
    /// `reduce_retracing`: the input shapes of the latest relaxed trace of
    /// each signature without shapes (at first, the first trace's).
    relaxed_dims: RefCell<HashMap<String, Vec<StaticShape>>>,
    /// The concrete functions `get_concrete_function` traced for specs with
    /// unknown dims: the signature without shapes, the inputs' static
    /// shapes, the concrete function (calls whose shapes fit use it).
    spec_traces: SpecTraces,
    /// The copies bound to instances (`obj.method` of a `tf.function`
    /// method), each with its own traces as TensorFlow's `Function.__get__`
    /// makes them; the most recently used [`BOUND_CACHE`] are kept.
    bound: RefCell<Vec<(std::rc::Weak<crate::value::Instance>, Value)>>,
}

/// How many instances' bound copies of a `tf.function` method are kept (a
/// copy holds its instance: the cap bounds what a loop over new instances
/// keeps alive; an evicted instance's method traces again).
const BOUND_CACHE: usize = 64;

type SpecTraces = RefCell<Vec<(String, Vec<StaticShape>, Value)>>;

use crate::runtime::graph::shapes::{self, StaticShape};

/// The shapes of a call's flattened input tensors.
fn input_dims(args: &[Value], kwargs: &[(Rc<str>, Value)]) -> PyResult<Vec<Vec<usize>>> {
    let mut dims = Vec::new();
    for v in args.iter().chain(kwargs.iter().map(|(_, v)| v)) {
        trace::map_arg_tensors(v, &mut |t| {
            dims.push(t.dims().to_vec());
            t.clone()
        })?;
    }
    Ok(dims)
}

/// Whether each input's concrete dims fit its static shape.
fn fits_all(statics: &[StaticShape], now: &[Vec<usize>]) -> bool {
    statics.len() == now.len() && statics.iter().zip(now).all(|(s, d)| shapes::fits(s, d))
}

/// How a new shape retraces a `tf.function`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Retrace {
    /// Every new shape traces.
    Exact,
    /// `input_signature`: shapes never trace.
    Never,
    /// `reduce_retracing=True`: a second shape traces once more, with the
    /// shapes relaxed to unknown; later shapes do not.
    Reduce,
}

impl FunctionObj {
    /// The concrete functions traced so far, in order.
    pub fn concrete_functions(&self) -> Vec<Value> {
        self.concretes
            .borrow()
            .iter()
            .map(|(_, c)| c.clone())
            .collect()
    }

    /// `input_signature`, if it was given.
    pub fn input_signature(&self) -> Option<&Value> {
        self.input_signature.as_ref()
    }

    /// The Python function's name.
    fn name(&self) -> String {
        match &self.func {
            Value::Function(f) => f.def.name.to_string(),
            Value::BoundMethod(b) => match &b.func {
                Value::Function(f) => f.def.name.to_string(),
                _ => "function".to_string(),
            },
            _ => "function".to_string(),
        }
    }

    /// The signature key of a call (`relaxed`: tensors without shapes).
    fn key(
        &self,
        vm: &dyn Vm,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
        relaxed: bool,
    ) -> PyResult<String> {
        let mut key = String::new();
        let mut aliases = Vec::new();
        for a in args {
            signature(vm, a, relaxed, &mut aliases, &mut key)?;
            key.push(';');
        }
        for (k, v) in kwargs {
            key.push_str(k);
            key.push('=');
            signature(vm, v, relaxed, &mut aliases, &mut key)?;
            key.push(';');
        }
        if let Some(d) = crate::distribute::strategy::retrace_device(vm) {
            // TensorFlow's function context holds the replica's device
            // scope: each replica traces its own graph even where soft
            // placement runs them all on CPU:0
            key.push_str("@@");
            key.push_str(&d.short_name());
        }
        Ok(key)
    }

    /// Notes a call's signature: whether it traced before, and the key its
    /// concrete function is known by.
    /// `reduce_retracing`: a call whose shapes fit neither a trace of its
    /// own shapes nor the relaxed trace traces again, relaxed to the most
    /// specific shapes both the relaxed (or first) trace's and its own fit
    /// (TensorFlow's most specific common supertype).
    fn note_signature(&self, exact: &str, loose: &str, now: &[Vec<usize>]) -> (bool, String) {
        let mut traces = self.traces.borrow_mut();
        match self.relaxed {
            Retrace::Exact => (!traces.insert(exact.to_string()), exact.to_string()),
            Retrace::Never => (!traces.insert(loose.to_string()), loose.to_string()),
            Retrace::Reduce => {
                if traces.contains(exact) {
                    return (true, exact.to_string());
                }
                let mut relaxed = self.relaxed_dims.borrow_mut();
                let Some(spec) = relaxed.get(loose) else {
                    let known = now
                        .iter()
                        .map(|d| Some(d.iter().map(|&x| Some(x)).collect()))
                        .collect();
                    relaxed.insert(loose.to_string(), known);
                    traces.insert(exact.to_string());
                    return (false, exact.to_string());
                };
                if fits_all(spec, now) && spec.iter().any(shapes::is_partial) {
                    return (true, format!("~{loose}{spec:?}"));
                }
                // the most specific shapes both fit (an unknown rank where
                // the ranks differ)
                let general: Vec<StaticShape> = spec
                    .iter()
                    .zip(now)
                    .map(|(s, d)| {
                        let d: Vec<Option<usize>> = d.iter().map(|&x| Some(x)).collect();
                        crate::object::tensor::shape::relaxed(s.as_deref(), Some(&d))
                    })
                    .collect();
                let key = format!("~{loose}{general:?}");
                relaxed.insert(loose.to_string(), general);
                traces.insert(key.clone());
                (false, key)
            }
        }
    }

    /// Calls the function (`concrete`: only traces, without running its
    /// effects, and gives the concrete function).
    fn dispatch(
        &self,
        vm: &dyn Vm,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        concrete: bool,
        spec_statics: Option<Vec<StaticShape>>,
    ) -> PyResult<Value> {
        let (args, kwargs) = match binding::canonicalize(&self.func, &args, &kwargs) {
            Some(canonical) => canonical,
            None => (args, kwargs),
        };
        // a call binds to the input_signature's types first
        let (args, kwargs) = match self.signature_type(vm).filter(|_| !concrete) {
            Some(ft) => ft.bind_signature(vm, &args, &kwargs)?,
            None => (args, kwargs),
        };
        if !concrete {
            if let Some(cf) = self.spec_trace_for(vm, &args, &kwargs)? {
                return vm.call(&cf, args, kwargs);
            }
        }
        let exact = self.key(vm, &args, &kwargs, false)?;
        let loose = self.key(vm, &args, &kwargs, true)?;
        // a trace that fails leaves no trace behind (the next call traces again)
        let (seen_before, count_before) = (self.traces.borrow().clone(), self.count.get());
        let now = match self.relaxed {
            Retrace::Reduce => input_dims(&args, &kwargs)?,
            _ => Vec::new(),
        };
        let (traced, tkey) = self.note_signature(&exact, &loose, &now);
        let inside = crate::runtime::graph::tracing();
        let has_spec_dims = spec_statics.is_some();
        let statics = spec_statics.or_else(|| self.static_inputs(&loose, &tkey));
        if concrete && traced {
            if let Some(c) = self.concretes.borrow().iter().find(|(k, _)| *k == tkey) {
                return Ok(c.1.clone());
            }
        }
        if !concrete {
            let cached = self.graphs.borrow().get(&exact).cloned();
            if let (Some(c), false) = (cached, inside) {
                crate::runtime::trace::function(0, || {
                    format!("{}: replayed its graph", self.name())
                });
                return trace::replay(vm, &c, &args, &kwargs);
            }
            if traced || inside {
                if !traced {
                    self.count.set(self.count.get() + 1);
                }
                if inside {
                    // a call inside another function's trace: inlined into it
                    crate::runtime::trace::function(0, || {
                        format!("{}: traced into the calling function's graph", self.name())
                    });
                    return convert_outputs(vm, &vm.call(&self.func, args, kwargs)?);
                }
                // a signature TensorFlow would not trace again whose graph
                // dist cannot replay (or, under an input_signature, has
                // not recorded for these shapes): the body runs in a silent
                // trace, so it sees graph tensors as it would in TensorFlow
                let mute = vm.state().get::<crate::object::state::PrintMute>();
                mute.depth.set(mute.depth.get() + 1);
                let t = trace::trace(
                    vm,
                    &self.func,
                    (&args, &kwargs),
                    statics.as_deref(),
                    false,
                    self.autograph,
                    &convert_outputs,
                );
                mute.depth.set(mute.depth.get() - 1);
                crate::runtime::trace::function(0, || match &t.taint {
                    Some(why) => format!("{}: ran its Python body again ({why})", self.name()),
                    None => format!(
                        "{}: ran its Python body and recorded a graph for these shapes",
                        self.name()
                    ),
                });
                if let Some(c) = t.concrete {
                    self.graphs.borrow_mut().insert(exact, Rc::new(c));
                }
                return t.result.and_then(|r| trace::returned(&r));
            }
        }
        self.count.set(self.count.get() + 1);
        let at = crate::runtime::trace::line();
        let mut t = trace::trace(
            vm,
            &self.func,
            (&args, &kwargs),
            statics.as_deref(),
            concrete,
            self.autograph,
            &convert_outputs,
        );
        if t.created_variables && t.result.is_ok() {
            // TensorFlow traces a function that created variables again;
            // creating them again is its error
            self.count.set(self.count.get() + 1);
            let again = trace::trace(
                vm,
                &self.func,
                (&args, &kwargs),
                statics.as_deref(),
                true,
                self.autograph,
                &convert_outputs,
            );
            if let Err(e) = again.result {
                *self.traces.borrow_mut() = seen_before;
                self.count.set(count_before);
                return Err(self.user_code(vm, e));
            }
            t.concrete = again.concrete;
        }
        crate::runtime::trace::function(at, || {
            match (&t.concrete, &t.taint) {
            (Some(c), _) => format!(
                "{}: traced a graph of {} nodes",
                self.name(),
                c.graph.borrow().nodes.len()
            ),
            (None, Some(why)) => format!(
                "{}: traced; its graph cannot replay because {why}, so later calls run the Python body",
                self.name()
            ),
            (None, None) => format!("{}: traced (the call failed)", self.name()),
        }
        });
        if crate::runtime::graph::shows(&self.name()) {
            let text = match (&t.concrete, &t.taint) {
                (Some(c), _) => crate::runtime::graph::render(&c.graph.borrow()),
                (None, Some(why)) => format!("(no graph: {why})\n"),
                (None, None) => "(no graph: the trace failed)\n".to_string(),
            };
            vm.write_stdout(&format!("graph of tf.function {}:\n{text}", self.name()));
        }
        let recorded = t.recorded.clone();
        let result = match t.result {
            Ok(r) => r,
            Err(e) => {
                *self.traces.borrow_mut() = seen_before;
                self.count.set(count_before);
                let e = self.user_code(vm, e);
                // the trace ran on stand-in values for what the specs leave open
                return Err(if has_spec_dims && concrete {
                    e.help("dist traces get_concrete_function on stand-in tensors: a spec's unknown dims have size 1 and an unknown rank is a scalar; this op failed on them. Give the spec the shapes the function needs (TensorFlow traces symbolically and would not fail here)")
                } else {
                    e
                });
            }
        };
        let graph = t.concrete.map(Rc::new);
        if let Some(c) = &graph {
            self.graphs.borrow_mut().insert(exact, c.clone());
        }
        let ftype = binding::FunctionType::of_call(&self.func, &args, &kwargs, statics.as_deref());
        let params = match &ftype {
            Some(t) => t.param_lines(vm)?,
            None => concrete::param_lines(vm, &self.func, &args, &kwargs)?,
        };
        let output = {
            // (a graph that cannot replay still knows the static shapes)
            let g = graph.as_ref().map_or(&recorded, |c| &c.graph).borrow();
            concrete::type_text_in(vm, &result, Some(&g))?
        };
        let cf = Value::native(concrete::ConcreteObj {
            func: self.func.clone(),
            ftype,
            captures: graph
                .as_deref()
                .map(|c| concrete::capture_lines(c, &trace::call_values(&args, &kwargs)))
                .unwrap_or_default(),
            graph,
            params,
            output,
            name: format!("__inference_{}_{}", self.name(), next_function_number()),
        });
        if has_spec_dims {
            let dims = statics.unwrap_or_default();
            self.spec_traces
                .borrow_mut()
                .push((loose, dims, cf.clone()));
        }
        self.concretes.borrow_mut().push((tkey, cf.clone()));
        Ok(if concrete {
            cf
        } else {
            trace::returned(&result)?
        })
    }

    /// The types of the `input_signature` (worked out once, from tensors
    /// standing for its specs).
    fn signature_type(&self, vm: &dyn Vm) -> Option<Rc<binding::FunctionType>> {
        self.signature_type
            .get_or_init(|| {
                let sig = vm.collect(self.input_signature.as_ref()?).ok()?;
                let mut statics = Vec::new();
                let shadows = sig
                    .iter()
                    .map(|v| trace::shadow_of_specs(v, &mut statics))
                    .collect::<PyResult<Vec<_>>>()
                    .ok()?;
                binding::FunctionType::of_call(&self.func, &shadows, &[], Some(&statics))
                    .map(Rc::new)
            })
            .clone()
    }

    /// The concrete function traced for specs with unknown dims that this
    /// call's tensors fit, if any (TensorFlow calls it without tracing).
    fn spec_trace_for(
        &self,
        vm: &dyn Vm,
        args: &[Value],
        kwargs: &[(Rc<str>, Value)],
    ) -> PyResult<Option<Value>> {
        if self.spec_traces.borrow().is_empty() {
            return Ok(None);
        }
        let loose = self.key(vm, args, kwargs, true)?;
        let now = input_dims(args, kwargs)?;
        let traces = self.spec_traces.borrow();
        Ok(traces
            .iter()
            .find(|(key, dims, _)| *key == loose && fits_all(dims, &now))
            .map(|(_, _, cf)| cf.clone()))
    }

    /// The static shapes of a trace's inputs, where TensorFlow leaves dims
    /// unknown: an `input_signature`'s, or on a `reduce_retracing` retrace
    /// the dims that differ from the first trace's (None: all known).
    fn static_inputs(&self, loose: &str, tkey: &str) -> Option<Vec<StaticShape>> {
        match self.relaxed {
            Retrace::Exact => None,
            Retrace::Never => self.signature_dims.as_ref().map(|d| d.to_vec()),
            Retrace::Reduce if tkey.starts_with('~') => {
                self.relaxed_dims.borrow().get(loose).cloned()
            }
            Retrace::Reduce => None,
        }
    }

    /// An error raised while tracing, as autograph re-raises it.
    fn user_code(&self, vm: &dyn Vm, e: PyErr) -> PyErr {
        if self.autograph {
            trace::in_user_code(vm, e)
        } else {
            e
        }
    }

    fn value(
        func: Value,
        relaxed: Retrace,
        autograph: bool,
        signature_dims: Option<Rc<[StaticShape]>>,
        input_signature: Option<Value>,
    ) -> Value {
        Value::native(FunctionObj {
            func,
            traces: RefCell::new(HashSet::new()),
            relaxed,
            graphs: RefCell::new(HashMap::new()),
            count: Cell::new(0),
            autograph,
            concretes: RefCell::new(Vec::new()),
            signature_dims,
            input_signature,
            signature_type: std::cell::OnceCell::new(),
            relaxed_dims: RefCell::new(HashMap::new()),
            spec_traces: RefCell::new(Vec::new()),
            bound: RefCell::new(Vec::new()),
        })
    }
}

/// The class of a `tf.function`.
pub static FUNCTION: ClassSpec = ClassSpec {
    name: "Function",
    module: "tensorflow.python.eager.polymorphic_function.polymorphic_function",
    bases: &[],
    members: &[
        Member::Getter(python_function::DEF),
        Member::Method(tracing_count::DEF),
        Member::Method(get_concrete_function::DEF),
        Member::Method(pretty_printed_concrete_signatures::DEF),
    ],
};

native_class!(FunctionObj: FUNCTION);

/// The Python function it wraps.
#[native("Function.python_function(self)")]
fn python_function(this: &FunctionObj) -> Value {
    this.func.clone()
}

/// How many times the function has traced.
#[native("Function.experimental_get_tracing_count(self)")]
fn tracing_count(this: &FunctionObj) -> i64 {
    this.count.get() as i64
}

/// The concrete function for these arguments (tensors, `tf.TensorSpec`s or
/// Python values), tracing it without running it if it was not traced yet.
#[native("Function.get_concrete_function(self, *args, **kwargs)")]
fn get_concrete_function(
    vm: &dyn Vm,
    this: &FunctionObj,
    args: &[Value],
    kwargs: crate::object::Kwargs,
) -> PyResult<Value> {
    let kwargs = kwargs.0;
    // no arguments: the input_signature's specs
    let signature_args = match (&this.input_signature, args.is_empty() && kwargs.is_empty()) {
        (Some(sig), true) => vm.collect(sig)?,
        _ => Vec::new(),
    };
    let args = if signature_args.is_empty() {
        args
    } else {
        &signature_args
    };
    let (args, kwargs) = match binding::canonicalize(&this.func, args, &kwargs) {
        Some(canonical) => canonical,
        None => (args.to_vec(), kwargs),
    };
    // each input tensor's static shape, in order; a spec's unknown dims
    // trace on a tensor of size 1 with the dim unknown in the graph
    let mut statics = Vec::new();
    let mut shadow = |v: &Value| trace::shadow_of_specs(v, &mut statics);
    let args = args.iter().map(&mut shadow).collect::<PyResult<Vec<_>>>()?;
    let kwargs = kwargs
        .iter()
        .map(|(k, v)| Ok((k.clone(), shadow(v)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let unknown = statics.iter().any(shapes::is_partial);
    this.dispatch(vm, args, kwargs, true, unknown.then_some(statics))
}

/// Every traced signature, as TensorFlow prints them.
#[native("Function.pretty_printed_concrete_signatures(self)")]
fn pretty_printed_concrete_signatures(vm: &dyn Vm, this: &FunctionObj) -> PyResult<String> {
    let mut out = Vec::new();
    for (_, c) in this.concretes.borrow().iter() {
        out.push(
            vm.str(c)?
                .trim_start_matches("ConcreteFunction ")
                .to_string(),
        );
    }
    Ok(out.join("\n\n"))
}

thread_local! {
    static FUNCTION_NUMBER: Cell<u64> = const { Cell::new(0) };
}

/// A number for a new graph function's name (TensorFlow's are unique per
/// process too, though not the same numbers).
fn next_function_number() -> u64 {
    FUNCTION_NUMBER.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

/// What decides whether TensorFlow retraces for an argument: a tensor's
/// dtype, shape and device (strategies trace once per replica device), a
/// Python value itself, a structure's parts; other objects by identity.
/// (`aliases`: the plain variables met so far, whose order numbers them:
/// a variable keys by its spec and alias, as TensorFlow's `VariableSpec`,
/// so another variable of the same spec in the same place replays the
/// graph on itself.)
fn signature(
    vm: &dyn Vm,
    v: &Value,
    relaxed: bool,
    aliases: &mut Vec<usize>,
    out: &mut String,
) -> PyResult<()> {
    use std::fmt::Write;
    match v {
        Value::Tensor(t) if relaxed => {
            let d = t.device();
            let _ = write!(out, "T{}@{}:{}", t.dtype().name(), d.kind.name(), d.index);
        }
        Value::Tensor(t) => {
            let d = t.device();
            let _ = write!(
                out,
                "T{}{:?}@{}:{}",
                t.dtype().name(),
                t.dims(),
                d.kind.name(),
                d.index
            );
        }
        Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
            let _ = write!(out, "{}:{}", v.type_name(), vm.repr(v)?);
        }
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) => {
            out.push('(');
            if let Value::Dict(d) = v {
                for (k, x) in d.borrow().items() {
                    signature(vm, &k, relaxed, aliases, out)?;
                    out.push('=');
                    signature(vm, &x, relaxed, aliases, out)?;
                    out.push(',');
                }
            } else {
                for x in vm.collect(v)? {
                    signature(vm, &x, relaxed, aliases, out)?;
                    out.push(',');
                }
            }
            out.push(')');
        }
        other => match super::values::components(other) {
            Some(parts) => {
                out.push_str("PR(");
                for p in parts {
                    signature(vm, p, relaxed, aliases, out)?;
                    out.push(',');
                }
                out.push(')');
            }
            None => match super::variables::variable_spec(other) {
                Some((id, spec)) => {
                    let alias = aliases.iter().position(|&a| a == id).unwrap_or_else(|| {
                        aliases.push(id);
                        aliases.len() - 1
                    });
                    let _ = write!(out, "V({spec})#{alias}");
                }
                None if super::variables::is_variable(other) => {
                    let _ = write!(out, "V{}", other.id());
                }
                None => {
                    let _ = write!(out, "O{}", other.id());
                }
            },
        },
    }
    Ok(())
}

/// A `tf.function(...)` call without the function yet: the decorator
/// (whether its functions' shapes are relaxed).
pub struct Decorator(Retrace, bool, Option<Rc<[StaticShape]>>, Option<Value>);

pub(super) fn convert_outputs(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    match v {
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => {
            Ok(Value::Tensor(to_tensor(vm, v, None)?))
        }
        // a variable returned is its value read (a `ReadVariableOp`)
        v if crate::distribute::variables::is_variable(v) => {
            Ok(Value::Tensor(to_tensor(vm, v, None)?))
        }
        other => super::nest::map_leaves(other, &mut |x| convert_outputs(vm, x)),
    }
}

impl NativeObject for FunctionObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&FUNCTION)
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(super::classes::object_repr(&FUNCTION, this))
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        if super::runtime_config::config(vm).functions_eagerly.get() {
            // `tf.config.run_functions_eagerly(True)`: plain Python
            return vm.call(&self.func, args, kwargs);
        }
        self.dispatch(vm, args, kwargs, false, None)
    }
    fn bind(&self, _this: &Value, receiver: &Value) -> Option<Value> {
        self.bound_to(receiver)
    }
    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        // the wrapped function's (a class member of these names would be
        // the class's own)
        Ok(match name {
            "__name__" | "__doc__" => Some(vm.getattr(&self.func, name)?),
            _ => None,
        })
    }
}

/// The class of the callables dist makes for TensorFlow's internal functions.
pub static FUNCTION_OBJECT: ClassSpec = ClassSpec::plain("function", "builtins");

impl NativeObject for Decorator {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&FUNCTION_OBJECT)
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        _kwargs: Vec<(Rc<str>, Value)>,
        _vm: &dyn Vm,
    ) -> PyResult<Value> {
        let func = args.into_iter().next().unwrap_or(Value::None);
        Ok(FunctionObj::value(
            func,
            self.0,
            self.1,
            self.2.clone(),
            self.3.clone(),
        ))
    }
}

/// Compiles a Python function into a TensorFlow graph (here: runs it eagerly with tf.function's observable results).
#[native("function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False, experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None, experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None)")]
#[expect(clippy::too_many_arguments, reason = "the Python signature has them")]
pub fn function(
    vm: &dyn Vm,
    func: Option<&Value>,
    input_signature: &Value,
    autograph: &Value,
    _jit_compile: &Value,
    reduce_retracing: bool,
    _experimental_implements: &Value,
    _experimental_autograph_options: &Value,
    _experimental_attributes: &Value,
    experimental_relax_shapes: &Value,
    _experimental_compile: &Value,
    _experimental_follow_type_hints: &Value,
) -> PyResult<Value> {
    // the deprecated spelling of `reduce_retracing=True`
    let reduce_retracing = reduce_retracing || vm.truthy(experimental_relax_shapes)?;
    let relaxed = if !input_signature.is_none() {
        Retrace::Never
    } else if reduce_retracing {
        Retrace::Reduce
    } else {
        Retrace::Exact
    };
    let autograph = !matches!(autograph, Value::Bool(false) | Value::None | Value::Int(0));
    let dims = (!input_signature.is_none()).then(|| {
        let mut dims = Vec::new();
        signature_dims(input_signature, &mut dims);
        Rc::from(dims)
    });
    let signature = (!input_signature.is_none()).then(|| input_signature.clone());
    Ok(match func {
        Some(f) => FunctionObj::value(f.clone(), relaxed, autograph, dims, signature),
        None => Value::native(Decorator(relaxed, autograph, dims, signature)),
    })
}

/// The static shape of each `tf.TensorSpec` of an `input_signature`, in
/// the order the call's tensors flatten.
fn signature_dims(v: &Value, out: &mut Vec<StaticShape>) {
    use crate::distribute::dataset::structure::{Spec, SpecObj};
    match v {
        Value::List(l) => l.borrow().iter().for_each(|x| signature_dims(x, out)),
        Value::Tuple(t) => t.iter().for_each(|x| signature_dims(x, out)),
        Value::Dict(d) => d
            .borrow()
            .items()
            .into_iter()
            .for_each(|(_, x)| signature_dims(&x, out)),
        Value::Native(n) => {
            if let Some(SpecObj(Spec::Tensor { dims, .. }, _)) = n.as_any().downcast_ref() {
                out.push(dims.clone());
            }
        }
        _ => {}
    }
}
