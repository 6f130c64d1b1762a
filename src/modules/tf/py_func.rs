//! `tf.py_function` and `tf.numpy_function`: Python code run as an op.
//!
//! `py_function` calls its function with eager tensors and converts what it
//! returns to the `Tout` dtypes; `numpy_function` calls it with numpy
//! arrays (eagerly, as TensorFlow does, it is a plain call whose results
//! become tensors as they are). While a `tf.function` traces, the call runs
//! outside the graph, its outputs are `EagerPyFunc`/`PyFunc` tensors of
//! unknown shape, and the graph is not replayed (each call of the function
//! runs its Python body again, so the Python code runs on every call, as it
//! does in TensorFlow). Errors are TensorFlow's: an exception inside the
//! function is the op's `UnknownError`, a result that does not convert its
//! `InvalidArgumentError`.

use std::cell::Cell;
use std::rc::Rc;

use super::convert::{dtype_arg, to_tensor};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::{graph, DType, Device, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// Which of the two ops.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `tf.py_function`: tensors in and out (`EagerPyFunc`).
    Eager,
    /// `tf.numpy_function`: numpy arrays in and out (`PyFunc`).
    Numpy,
}

impl Kind {
    fn api(self) -> &'static str {
        match self {
            Kind::Eager => "tf.py_function",
            Kind::Numpy => "tf.numpy_function",
        }
    }

    fn op(self) -> &'static str {
        match self {
            Kind::Eager => "EagerPyFunc",
            Kind::Numpy => "PyFunc",
        }
    }
}

/// How many Python functions the ops have registered (TensorFlow names
/// them `pyfunc_N` in its errors).
#[derive(Default)]
struct Registered(Cell<usize>);

/// Runs Python code as a TensorFlow op, with eager tensors.
#[native("py_function(func=None, inp=None, Tout=None, name=None)")]
#[expect(non_snake_case, reason = "TensorFlow's parameter name")]
fn py_function(
    vm: &dyn Vm,
    func: &Value,
    inp: &Value,
    Tout: &Value,
    _name: &Value,
) -> PyResult<Value> {
    script_op(vm, Kind::Eager, func, inp, Tout)
}

/// Runs Python code as a TensorFlow op, with numpy arrays. (`stateful`
/// only lets TensorFlow's graph optimizations drop calls; dist runs every
/// call.)
#[native("numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None)")]
#[expect(non_snake_case, reason = "TensorFlow's parameter name")]
fn numpy_function(
    vm: &dyn Vm,
    func: &Value,
    inp: &Value,
    Tout: &Value,
    _stateful: &Value,
    _name: &Value,
) -> PyResult<Value> {
    script_op(vm, Kind::Numpy, func, inp, Tout)
}

fn type_error(msg: String) -> PyErr {
    PyErr::new(ExcType::TypeError, msg)
}

/// The arguments checked as TensorFlow checks them; a decorator when
/// `func` is None.
fn script_op(vm: &dyn Vm, kind: Kind, func: &Value, inp: &Value, tout: &Value) -> PyResult<Value> {
    let api = kind.api();
    if tout.is_none() {
        return Err(type_error(format!(
            "Missing required argument: 'Tout'\n  If using {api} as a decorator, set `Tout`\n  **by name** above the function:\n  `@{api}(Tout=tout)`"
        )));
    }
    if func.is_none() {
        if !inp.is_none() {
            return Err(type_error(format!(
                "Don't set the `inp` argument when using {api} as a decorator (`func=None`)."
            )));
        }
        return Ok(Value::native(ScriptDecorator {
            kind,
            func: None,
            tout: tout.clone(),
        }));
    }
    if inp.is_none() {
        return Err(type_error(format!(
            "Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments to the\n  function), unless you use `{api}` as a decorator(`func=None`)."
        )));
    }
    // (iterated: a tensor gives its rows, as in TensorFlow)
    let inputs = vm.collect(inp)?;
    run(vm, kind, func, &inputs, tout)
}

/// `Tout` as the dtypes of the results, and whether it is a list (the
/// results are then a list).
fn out_types(vm: &dyn Vm, tout: &Value) -> PyResult<(Vec<DType>, bool)> {
    let one = |v: &Value| -> PyResult<DType> {
        use crate::distribute::dataset::structure::{Spec, SpecObj};
        match v.downcast::<SpecObj>() {
            Some(SpecObj(Spec::Tensor { dtype, .. }, _)) => Ok(*dtype),
            Some(_) => Err(PyErr::new(
                ExcType::NotImplementedError,
                "tf.py_function with a composite TypeSpec in Tout is not supported in dist",
            )),
            None => dtype_arg(vm, v),
        }
    };
    match tout {
        Value::List(_) | Value::Tuple(_) => Ok((
            vm.collect(tout)?.iter().map(one).collect::<PyResult<_>>()?,
            true,
        )),
        other => Ok((vec![one(other)?], false)),
    }
}

/// The op's kernel error text (`{{function_node __wrapped__EagerPyFunc_Tin_1_Tout_1_device_…}} msg [Op:EagerPyFunc] name: `).
fn kernel_error(kind: Kind, tin: usize, tout: usize, ty: ExcType, msg: &str) -> PyErr {
    let node = format!("{}_Tin_{tin}_Tout_{tout}", kind.op());
    let e = crate::runtime::Error::kernel(
        crate::runtime::ErrorKind::InvalidArgument,
        &node,
        &Device::cpu(0),
        msg,
        kind.op(),
        " name: ",
    );
    PyErr::new(ty, e.message().to_string())
}

/// `Type: message` of an exception raised by the Python code (TensorFlow
/// follows it with the Python traceback, which dist leaves out, keeping the
/// blank line before the op's name).
fn exc_text(vm: &dyn Vm, e: &PyErr) -> String {
    let v = e.value();
    let ty = vm.type_of(v);
    let name = vm
        .getattr(&ty, "__name__")
        .and_then(|n| vm.str(&n))
        .unwrap_or_default();
    match vm.str(v) {
        Ok(m) if !m.is_empty() => format!("{name}: {m}\n\n"),
        _ => format!("{name}\n\n"),
    }
}

/// Calls `func` on `inputs` as the op does and converts its results.
fn run(vm: &dyn Vm, kind: Kind, func: &Value, inputs: &[Value], tout: &Value) -> PyResult<Value> {
    let (types, listed) = out_types(vm, tout)?;
    let tracing = graph::tracing();
    if kind == Kind::Numpy && !tracing {
        // eagerly, a plain call on `np.array`s of the inputs whose results
        // become tensors as they are
        let args = inputs
            .iter()
            .map(|v| crate::object::numpy::make(vm, v, None))
            .collect::<PyResult<Vec<_>>>()?;
        // `nest.flatten` of the result, each converted (None stays); one
        // alone is unwrapped
        let r = vm.call(func, args, Vec::new())?;
        let mut flat = Vec::new();
        super::nest::flatten_into(vm, &r, &mut flat, false)?;
        let mut out = flat
            .iter()
            .map(|x| match x {
                Value::None => Ok(Value::None),
                x => to_tensor(vm, x, None).map(Value::Tensor),
            })
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(if out.len() == 1 {
            out.swap_remove(0)
        } else {
            Value::list(out)
        });
    }
    let id = {
        // (a muted run of a traced body registers nothing anew: TensorFlow
        // would replay its graph)
        let n = vm.state().get::<Registered>();
        let id = n.0.get();
        if vm
            .state()
            .get::<crate::object::state::PrintMute>()
            .depth
            .get()
            == 0
        {
            n.0.set(id + 1);
        }
        id
    };
    let tensors = inputs
        .iter()
        .map(|v| to_tensor(vm, v, None))
        .collect::<PyResult<Vec<Tensor>>>()?;
    let (tin, nout) = (tensors.len(), types.len());
    let args = tensors
        .iter()
        .map(|t| match kind {
            // (the tensors themselves: a tape recording the ops of the
            // Python code differentiates through it, as TensorFlow's
            // gradient of `EagerPyFunc` does)
            Kind::Eager => Ok(Value::Tensor(t.clone())),
            Kind::Numpy => crate::object::numpy::from_tensor(t),
        })
        .collect::<PyResult<Vec<_>>>()?;
    // the op runs its Python code at every execution of the graph: its
    // `print`s show even when the traced body around it reruns muted
    let mute = &vm.state().get::<crate::object::state::PrintMute>().depth;
    let muted = mute.replace(0);
    let called = if tracing {
        graph::paused(|| vm.call(func, args, Vec::new()))
    } else {
        vm.call(func, args, Vec::new())
    };
    mute.set(muted);
    let result = called
        .map_err(|e| kernel_error(kind, tin, nout, ExcType::UnknownError, &exc_text(vm, &e)))?;
    if types.is_empty() {
        return Ok(Value::list(Vec::new()));
    }
    let outs = match &result {
        Value::List(_) | Value::Tuple(_) => vm.collect(&result)?,
        other => vec![other.clone()],
    };
    if outs.len() < types.len() {
        return Err(kernel_error(
            kind,
            tin,
            nout,
            ExcType::InvalidArgumentError,
            &format!(
                "pyfunc_{id} returns {} values, but expects to see {} values.",
                outs.len(),
                types.len()
            ),
        ));
    }
    let mut converted = Vec::with_capacity(types.len());
    for (v, &dtype) in outs.iter().zip(&types) {
        let t = graph::paused(|| to_tensor(vm, v, Some(dtype))).map_err(|e| {
            kernel_error(
                kind,
                tin,
                nout,
                ExcType::InvalidArgumentError,
                &exc_text(vm, &e),
            )
        })?;
        converted.push(Value::Tensor(if tracing {
            traced_output(kind, &t)
        } else {
            t
        }));
    }
    Ok(if listed {
        Value::list(converted)
    } else {
        converted.swap_remove(0)
    })
}

/// An output of the op in the graph being traced: an `EagerPyFunc` tensor
/// of unknown shape; the graph cannot replay Python code, so the function
/// runs its body again on each call.
fn traced_output(kind: Kind, t: &Tensor) -> Tensor {
    let out = crate::runtime::autodiff::tape::detached(t);
    graph::constant_named(&out, kind.op());
    graph::shapes::set_static(&out, None);
    graph::taint(|| format!("{} runs Python code", kind.api()));
    out
}

/// `@tf.py_function(Tout=...)` before it has its function, and the
/// wrapped function after.
struct ScriptDecorator {
    kind: Kind,
    func: Option<Value>,
    tout: Value,
}

impl NativeObject for ScriptDecorator {
    fn spec(&self) -> Option<&'static crate::object::ClassSpec> {
        Some(&crate::distribute::function::FUNCTION_OBJECT)
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        match &self.func {
            None => Ok(Value::native(ScriptDecorator {
                kind: self.kind,
                func: args.into_iter().next(),
                tout: self.tout.clone(),
            })),
            Some(f) => {
                if !kwargs.is_empty() {
                    return Err(type_error(
                        "py_function_wrapper() got an unexpected keyword argument".into(),
                    ));
                }
                run(vm, self.kind, f, &args, &self.tout)
            }
        }
    }
    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        // `functools.wraps`: the wrapped function's
        Ok(match (&self.func, name) {
            (Some(f), "__wrapped__") => Some(f.clone()),
            (Some(f), "__name__" | "__doc__") => Some(vm.getattr(f, name)?),
            _ => None,
        })
    }
}

/// Registers `tf.py_function` and `tf.numpy_function`.
pub fn register(m: &mut ModuleBuilder) {
    m.add(py_function::DEF).add(numpy_function::DEF);
}
