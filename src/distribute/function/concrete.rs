//! `ConcreteFunction`: one trace of a `tf.function` — its input signature,
//! its output type and captures as TensorFlow prints them, and a call that
//! replays its graph.

use std::rc::Rc;

use super::trace::{self, Concrete};
use crate::distribute::classes::native_class;
use crate::distribute::dataset::structure::SpecObj;
use crate::object::ClassSpec;
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
}

/// The class of concrete functions.
pub static CONCRETE_FUNCTION: ClassSpec = ClassSpec::plain(
    "ConcreteFunction",
    "tensorflow.python.eager.polymorphic_function.concrete_function",
);

native_class!(ConcreteObj: CONCRETE_FUNCTION);

impl ConcreteObj {
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
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let params: Vec<&str> = self
            .params
            .iter()
            .map(|p| p.split(" (").next().unwrap_or(""))
            .collect();
        let specs: Vec<String> = self
            .params
            .iter()
            .zip(&params)
            .map(|(p, name)| {
                let spec = p.split_once("): ").map_or("", |(_, s)| s);
                format!("{name}: {spec}")
            })
            .collect();
        Ok(format!(
            "<ConcreteFunction ({}) -> {} at 0x{:X}>",
            specs.join(", "),
            self.output,
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
        if let Some(c) = &self.graph {
            trace::check_input_dtypes(c, &args, &kwargs, &self.name)?;
            if trace::matches_inputs(c, &args, &kwargs)? {
                return trace::replay(vm, c, &args, &kwargs);
            }
        }
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
    Ok(match v {
        Value::Tensor(t) => tensor_text(t),
        Value::List(l) => {
            let items = l.borrow().clone();
            format!("List[{}]", join(vm, &items)?)
        }
        Value::Tuple(t) => format!("Tuple[{}]", join(vm, t)?),
        Value::Dict(d) => {
            let mut parts = Vec::new();
            for (k, x) in d.borrow().items() {
                parts.push(format!("[{}, {}]", vm.repr(&k)?, type_text(vm, &x)?));
            }
            format!("Dict[{}]", parts.join(", "))
        }
        Value::Native(n) if n.as_any().downcast_ref::<SpecObj>().is_some() => vm.repr(v)?,
        _ => format!("Literal[{}]", vm.repr(v)?),
    })
}

fn join(vm: &dyn Vm, items: &[Value]) -> PyResult<String> {
    Ok(items
        .iter()
        .map(|x| type_text(vm, x))
        .collect::<PyResult<Vec<_>>>()?
        .join(", "))
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
    let Value::Function(f) = func else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut pos = args.iter();
    for p in &f.sig.params {
        let kind = match p.kind {
            ParamKind::PositionalOnly => "POSITIONAL_ONLY",
            ParamKind::PositionalOrKeyword => "POSITIONAL_OR_KEYWORD",
            ParamKind::KeywordOnly => "KEYWORD_ONLY",
            ParamKind::VarPositional => "VAR_POSITIONAL",
            ParamKind::VarKeyword => "VAR_KEYWORD",
        };
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
        out.push(format!("{} ({kind}): {}", p.name, type_text(vm, &v)?));
    }
    Ok(out)
}

fn kwarg(kwargs: &[(Rc<str>, Value)], name: &str) -> Option<Value> {
    kwargs
        .iter()
        .find(|(k, _)| &**k == name)
        .map(|(_, v)| v.clone())
}

/// The capture lines of a graph: variables it reads and tensors it took
/// from outside the trace.
pub fn capture_lines(c: &Concrete) -> Vec<String> {
    let g = c.graph.borrow();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
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
