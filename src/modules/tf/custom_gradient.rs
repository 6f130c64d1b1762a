//! `tf.custom_gradient` and `tf.recompute_grad`: a Python function whose
//! gradient is another Python function. The function runs with recording
//! stopped; its results are recorded as one op whose gradient calls the
//! function's `grad_fn` (through the runtime's `GradOp::Custom`). The
//! trainable variables the function reads (and was not given) are inputs
//! of that op too: `grad_fn(*dys, variables=[...])` returns the gradients
//! of the arguments and of those variables, as TensorFlow's eager
//! `custom_gradient` does.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use crate::distribute::nest::map_nest;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, ClassSpec};
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::{self, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A function decorated by `tf.custom_gradient`.
pub struct CustomGradientFn {
    f: Value,
}

/// Its class (TensorFlow returns a plain Python function).
pub static CUSTOM_GRADIENT_FN: ClassSpec = ClassSpec::plain("function", "builtins");

/// What the tape keeps for one call: the gradient function and how many
/// gradients it must return.
struct Payload {
    grad_fn: Value,
    arg_count: usize,
    /// The variables read by the function (not among its arguments).
    variables: Vec<Value>,
}

thread_local! {
    /// The Python error a gradient function raised, carried through the runtime.
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// The Python error behind a runtime error from backprop, if a gradient
/// function raised one; else the runtime error as a Python one.
pub fn take_error(e: runtime::Error) -> PyErr {
    PENDING
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| runtime_err(e))
}

fn pend(e: PyErr) -> runtime::Error {
    PENDING.with(|p| *p.borrow_mut() = Some(e));
    runtime::Error::internal("a custom gradient function raised")
}

/// Calls a custom gradient function with the gradients of its op's outputs.
pub fn call_grad_fn(
    vm: &dyn Vm,
    f: &Rc<dyn Any>,
    grads: &[Tensor],
) -> runtime::Result<Vec<Option<Tensor>>> {
    let Some(p) = f.downcast_ref::<Payload>() else {
        return Err(runtime::Error::internal("custom gradient payload"));
    };
    let args: Vec<Value> = grads.iter().cloned().map(Value::Tensor).collect();
    let (input_grads, var_grads) = if p.variables.is_empty() {
        let r = vm.call(&p.grad_fn, args, Vec::new()).map_err(pend)?;
        (r, Vec::new())
    } else {
        let kw = vec![(Rc::from("variables"), Value::list(p.variables.clone()))];
        let r = vm.call(&p.grad_fn, args, kw).map_err(pend)?;
        let pair = vm.collect(&r).map_err(pend)?;
        let [xs, vs]: [Value; 2] = pair.try_into().map_err(|v: Vec<Value>| {
            pend(PyErr::new(
                ExcType::ValueError,
                format!("too many values to unpack (expected 2, got {})", v.len()),
            ))
        })?;
        let vs = vm.collect(&vs).map_err(pend)?;
        if vs.len() != p.variables.len() {
            return Err(pend(PyErr::new(
                ExcType::ValueError,
                "Must return gradient for each variable from @custom_gradient grad_fn.",
            )));
        }
        (xs, vs)
    };
    let mut flat = Vec::new();
    map_nest(&input_grads, &mut |x| {
        flat.push(x.clone());
        Ok(Value::None)
    })
    .map_err(pend)?;
    if flat.len() != p.arg_count {
        return Err(pend(PyErr::new(
            ExcType::ValueError,
            format!(
                "custom_gradient function expected to return {} gradients, but returned {} instead.",
                p.arg_count,
                flat.len()
            ),
        )));
    }
    flat.iter()
        .chain(&var_grads)
        .map(|g| match g {
            Value::None => Ok(None),
            other => to_tensor(vm, other, None).map(Some).map_err(pend),
        })
        .collect()
}

/// Whether `grad_fn` takes a `variables` keyword (by name or `**kwargs`).
fn accepts_variables(grad_fn: &Value) -> bool {
    use crate::value::signature::ParamKind;
    match grad_fn {
        Value::Function(f) => f.sig.params.iter().any(|p| match p.kind {
            ParamKind::VarKeyword => true,
            ParamKind::VarPositional | ParamKind::PositionalOnly => false,
            _ => &*p.name == "variables",
        }),
        _ => true,
    }
}

impl NativeObject for CustomGradientFn {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&CUSTOM_GRADIENT_FN)
    }
    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        vm.repr(&self.f)
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        let (r, seen) =
            tape::watching_variables(|| tape::suspended(|| vm.call(&self.f, args.clone(), kwargs)));
        let r = r?;
        let (result, grad_fn) = match &r {
            Value::Tuple(t) if t.len() == 2 => (t[0].clone(), t[1].clone()),
            _ => {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "not enough values to unpack (expected 2)",
                ))
            }
        };
        let variables: Vec<Value> = seen
            .iter()
            .filter_map(|(_, h)| h.downcast_ref::<Value>().cloned())
            .filter(|v| !args.iter().any(|a| a.is(v)))
            .collect();
        if !variables.is_empty() && !accepts_variables(&grad_fn) {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses variables: {}",
                    vm.str(&Value::list(variables.clone()))?
                ),
            ));
        }
        // the variables' values are read (and recorded) as the op's inputs
        let inputs = args
            .iter()
            .chain(&variables)
            .map(|a| to_tensor(vm, a, None))
            .collect::<PyResult<Vec<_>>>()?;
        let mut outs = Vec::new();
        let packed = map_nest(&result, &mut |x| {
            let t = tape::detached(&to_tensor(vm, x, None)?);
            outs.push(t.clone());
            Ok(Value::Tensor(t))
        })?;
        let payload: Rc<dyn Any> = Rc::new(Payload {
            grad_fn,
            arg_count: args.len(),
            variables,
        });
        let in_refs: Vec<&Tensor> = inputs.iter().collect();
        let out_refs: Vec<&Tensor> = outs.iter().collect();
        tape::record(|| GradOp::Custom(payload), &in_refs, &out_refs);
        Ok(packed)
    }
}

/// Decorator to define a function with a custom gradient: `f` returns
/// `(y, grad_fn)` and `grad_fn(dy)` returns the gradients of `f`'s arguments.
#[native("custom_gradient(f=None)")]
fn custom_gradient(f: &Value) -> PyResult<Value> {
    Ok(Value::native(CustomGradientFn { f: f.clone() }))
}

/// Defines a function as a recompute-checkpoint for the tape auto-diff (dist
/// keeps every intermediate, so this is the function itself).
#[native("recompute_grad(f)")]
fn recompute_grad(f: &Value) -> Value {
    f.clone()
}

/// Registers `custom_gradient` and `recompute_grad`.
pub fn register(m: &mut crate::modules::ModuleBuilder) {
    m.add(custom_gradient::DEF);
    m.add(recompute_grad::DEF);
}
