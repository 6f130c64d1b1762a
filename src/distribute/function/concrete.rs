//! `ConcreteFunction`: one trace of a `tf.function` — its input signature,
//! its output type and captures as TensorFlow prints them, and a call that
//! replays its graph.

use std::cell::RefCell;
use std::rc::Rc;

use super::binding::FunctionType;
use super::trace::{self, Concrete};
use crate::distribute::classes::native_class;
use crate::distribute::dataset::structure::{Spec, SpecObj};
use crate::distribute::values::{components, DistKind, DistValues};
use crate::distribute::variables::{arg_variables, variable_spec};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::graph::Graph;
use crate::runtime::graph::NodeOp;
use crate::runtime::Tensor;
use crate::value::signature::ParamKind;
use crate::value::{NativeObject, PyResult, Value, Vm};

/// One traced signature of a `tf.function`.
pub struct ConcreteObj {
    /// The Python function.
    pub func: Value,
    /// Its replayable graph (None: calls run the Python body).
    pub graph: Option<Rc<Concrete>>,
    /// `name (KIND): spec` for each parameter.
    pub params: Vec<String>,
    /// The output type.
    pub output: String,
    /// One line per capture.
    pub captures: Vec<String>,
    /// The graph function's name (`__inference_f_1`).
    pub name: String,
    /// Its signature as TensorFlow types it (None: an argument it does not
    /// model, such as a variable or a distributed value; calls then bind by
    /// their tensors alone).
    pub ftype: Option<FunctionType>,
}

/// The class of concrete functions.
pub static CONCRETE_FUNCTION: ClassSpec = ClassSpec {
    name: "ConcreteFunction",
    module: "tensorflow.python.eager.polymorphic_function.concrete_function",
    bases: &[],
    members: &[
        Member::Getter(structured_input_signature::DEF),
        Member::Getter(function_type::DEF),
    ],
};

/// `concrete.function_type`: TensorFlow's `FunctionType`, printed as the
/// signature (`(a: TensorSpec(...)) -> TensorSpec(...)`), its repr the
/// parameters, output type and captures.
#[native("ConcreteFunction.function_type(self)")]
fn function_type(vm: &dyn Vm, this: &ConcreteObj) -> PyResult<Value> {
    Ok(Value::native(FunctionTypeObj {
        signature: this.signature(vm)?,
        text: this.text(),
    }))
}

/// What `function_type` gives.
struct FunctionTypeObj {
    signature: String,
    text: String,
}

static FUNCTION_TYPE: ClassSpec = ClassSpec {
    name: "FunctionType",
    module: "tensorflow.core.function.polymorphism.function_type",
    bases: &[],
    members: &[],
};

impl NativeObject for FunctionTypeObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&FUNCTION_TYPE)
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(self.signature.clone())
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(self.text.clone())
    }
}

/// `((positional...), {keyword-only...})`: each parameter's `tf.TensorSpec`
/// (named by its path) or traced Python value.
#[native("ConcreteFunction.structured_input_signature(self)")]
fn structured_input_signature(vm: &dyn Vm, this: &ConcreteObj) -> PyResult<Value> {
    match &this.ftype {
        Some(t) => t.structured_input_signature(vm),
        None => Err(crate::value::PyErr::new(
            crate::value::ExcType::NotImplementedError,
            "structured_input_signature of a function traced with variables, distributed values or other objects as arguments is not supported by dist yet",
        )),
    }
}

native_class!(ConcreteObj: CONCRETE_FUNCTION);

impl ConcreteObj {
    /// `(a: TensorSpec(...), b: Literal[2]) -> TensorSpec(...)`.
    fn signature(&self, vm: &dyn Vm) -> PyResult<String> {
        Ok(match &self.ftype {
            Some(t) => t.signature_text(vm, &self.output)?,
            None => {
                let specs: Vec<String> = self
                    .params
                    .iter()
                    .map(|p| {
                        let name = p.split(" (").next().unwrap_or("");
                        let spec = p.split_once("): ").map_or("", |(_, s)| s);
                        format!("{name}: {spec}")
                    })
                    .collect();
                format!("({}) -> {}", specs.join(", "), self.output)
            }
        })
    }

    /// The `Input Parameters: … Captures: …` text.
    pub fn text(&self) -> String {
        let mut s = String::from("Input Parameters:\n");
        for p in &self.params {
            s.push_str("  ");
            s.push_str(p);
            s.push('\n');
        }
        s.push_str("Output Type:\n  ");
        s.push_str(&self.output);
        s.push_str("\nCaptures:\n");
        if self.captures.is_empty() {
            s.push_str("  None");
        } else {
            s.push_str(&self.captures.join("\n"));
        }
        s
    }
}

impl NativeObject for ConcreteObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&CONCRETE_FUNCTION)
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("ConcreteFunction {}", self.text()))
    }
    fn repr(&self, this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<ConcreteFunction {} at 0x{:X}>",
            self.signature(vm)?,
            this.id()
        ))
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        if let Some(t) = &self.ftype {
            let b = t.bind(vm, &args, &kwargs, &self.output)?;
            if let Some(c) = &self.graph {
                trace::check_flat_dtypes(c, &b.inputs, &self.name)?;
                if trace::matches_flat(c, &b.inputs) {
                    let outs = trace::run_graph(vm, &c.graph.borrow(), &c.plan, &b.inputs, &[])?;
                    return c.template.build(&outs);
                }
            }
            return self.run_body(vm, b.args, b.kwargs);
        }
        if let Some(c) = &self.graph {
            trace::check_input_dtypes(c, &args, &kwargs, &self.name)?;
            if trace::matches_inputs(c, &args, &kwargs)? {
                return trace::replay(vm, c, &args, &kwargs);
            }
        }
        self.run_body(vm, args, kwargs)
    }
}

impl ConcreteObj {
    /// Runs the Python body (its `print`s muted: it traced already).
    fn run_body(
        &self,
        vm: &dyn Vm,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        let mute = vm.state().get::<crate::object::state::PrintMute>();
        mute.depth.set(mute.depth.get() + 1);
        let r = vm.call(&self.func, args, kwargs);
        mute.depth.set(mute.depth.get() - 1);
        super::convert_outputs(vm, &r?)
    }
}

/// TensorFlow's type text of an argument or result (`TensorSpec(...)`,
/// `Literal[3]`, `List[...]`, `Dict[['a', ...]]`).
pub fn type_text(vm: &dyn Vm, v: &Value) -> PyResult<String> {
    type_text_in(vm, v, None)
}

/// [`type_text`] with the static shapes of `graph`'s tensors (a traced
/// result's unknown dims).
pub fn type_text_in(vm: &dyn Vm, v: &Value, graph: Option<&Graph>) -> PyResult<String> {
    text_of(vm, v, graph, &RefCell::new(Vec::new()))
}

/// [`type_text_in`], numbering the variables met so far in `aliases`
/// (a variable's `alias_id`: the same variable passed twice shares one).
fn text_of(
    vm: &dyn Vm,
    v: &Value,
    graph: Option<&Graph>,
    aliases: &RefCell<Vec<usize>>,
) -> PyResult<String> {
    let type_text_in =
        |vm: &dyn Vm, x: &Value, graph: Option<&Graph>| text_of(vm, x, graph, aliases);
    let join = |items: &[Value]| -> PyResult<String> {
        Ok(items
            .iter()
            .map(|x| type_text_in(vm, x, graph))
            .collect::<PyResult<Vec<_>>>()?
            .join(", "))
    };
    if let Some((id, spec)) = variable_spec(v) {
        let mut seen = aliases.borrow_mut();
        let alias = match seen.iter().position(|&s| s == id) {
            Some(i) => i,
            None => {
                seen.push(id);
                seen.len() - 1
            }
        };
        return Ok(format!("VariableSpec({spec}, alias_id={alias})"));
    }
    Ok(match v {
        Value::Tensor(t) => match graph.and_then(|g| g.static_of(t)) {
            Some(dims) => Spec::Tensor {
                dtype: t.dtype(),
                dims,
            }
            .text(),
            None => tensor_text(t),
        },
        Value::List(l) => {
            let items = l.borrow().clone();
            format!("List[{}]", join(&items)?)
        }
        Value::Tuple(t) => format!("Tuple[{}]", join(t)?),
        Value::Dict(d) => {
            let mut parts = Vec::new();
            for (k, x) in d.borrow().items() {
                parts.push(format!(
                    "[{}, {}]",
                    vm.repr(&k)?,
                    type_text_in(vm, &x, graph)?
                ));
            }
            format!("Dict[{}]", parts.join(", "))
        }
        Value::Native(n) if n.as_any().downcast_ref::<SpecObj>().is_some() => vm.repr(v)?,
        // a PerReplica argument or result: its type spec, one spec per
        // replica (the repr of the spec's tuple: a trailing comma for one)
        Value::Native(_)
            if v.downcast::<DistValues>()
                .is_some_and(|d| d.kind == DistKind::PerReplica) =>
        {
            let parts = components(v).unwrap_or_default();
            let comma = if parts.len() == 1 { "," } else { "" };
            format!("PerReplicaSpec({}{comma})", join(parts)?)
        }
        _ => format!("Literal[{}]", vm.repr(v)?),
    })
}

fn tensor_text(t: &Tensor) -> String {
    format!(
        "TensorSpec(shape={}, dtype=tf.{}, name=None)",
        t.shape().tuple_text(),
        t.dtype().name()
    )
}

/// `name (KIND): type` for each parameter of `func` given these arguments
/// (defaults for the ones not passed).
pub fn param_lines(
    vm: &dyn Vm,
    func: &Value,
    args: &[Value],
    kwargs: &[(Rc<str>, Value)],
) -> PyResult<Vec<String>> {
    let Some(params) = super::binding::call_params(func) else {
        return Ok(Vec::new());
    };
    let aliases = RefCell::new(Vec::new());
    let mut out = Vec::new();
    let mut pos = args.iter();
    for p in params {
        let kind = kind_name(p.kind);
        let given = match p.kind {
            ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword => {
                pos.next().cloned().or_else(|| kwarg(kwargs, &p.name))
            }
            ParamKind::KeywordOnly => kwarg(kwargs, &p.name),
            ParamKind::VarPositional => {
                let rest: Vec<Value> = pos.by_ref().cloned().collect();
                if rest.is_empty() {
                    continue;
                }
                Some(Value::tuple(rest))
            }
            ParamKind::VarKeyword => continue,
        };
        let Some(v) = given.or_else(|| p.default.clone()) else {
            continue;
        };
        out.push(format!(
            "{} ({kind}): {}",
            p.name,
            text_of(vm, &v, None, &aliases)?
        ));
    }
    Ok(out)
}

/// inspect's name of a parameter kind.
pub fn kind_name(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::PositionalOnly => "POSITIONAL_ONLY",
        ParamKind::PositionalOrKeyword => "POSITIONAL_OR_KEYWORD",
        ParamKind::KeywordOnly => "KEYWORD_ONLY",
        ParamKind::VarPositional => "VAR_POSITIONAL",
        ParamKind::VarKeyword => "VAR_KEYWORD",
    }
}

fn kwarg(kwargs: &[(Rc<str>, Value)], name: &str) -> Option<Value> {
    kwargs
        .iter()
        .find(|(k, _)| &**k == name)
        .map(|(_, v)| v.clone())
}

/// The capture lines of a graph: variables it reads and tensors it took
/// from outside the trace.
pub fn capture_lines(c: &Concrete, args: &[Value]) -> Vec<String> {
    let g = c.graph.borrow();
    let mut out = Vec::new();
    // a variable passed as an argument is an input, not a capture
    let mut seen: std::collections::HashSet<usize> =
        arg_variables(args).into_iter().map(|(id, _)| id).collect();
    for n in &g.nodes {
        match &n.op {
            NodeOp::ReadVariable(r) | NodeOp::AssignVariable(r) => {
                let id = Rc::as_ptr(r) as *const () as usize;
                if seen.insert(id) {
                    out.push(format!(
                        "  {id}: TensorSpec(shape=(), dtype=tf.resource, name=None)"
                    ));
                }
            }
            NodeOp::Const(t) if g.is_capture(t) && seen.insert(t.id()) => {
                out.push(format!("  {}: {}", t.id(), tensor_text(t)));
            }
            _ => {}
        }
    }
    out
}
