//! `tf.function`: as a decorator with or without arguments
//! (`@tf.function`, `@tf.function(jit_compile=True)`, `input_signature`
//! accepted). Calls run the Python function eagerly; what TensorFlow makes
//! observable of tracing is kept: Python numbers and strings returned
//! become tensors, inside nested tuples, lists and dicts too, and Python's
//! `print` shows only while a call traces (a new signature: tensors' dtypes,
//! shapes and devices, Python values themselves), not when TensorFlow would
//! run the traced graph.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use crate::distribute::classes::native_class;
use crate::object::tensor::convert::to_tensor;
use crate::object::{native, ClassSpec, Member};
use crate::value::{NativeObject, PyResult, Value, Vm};

/// A `tf.function`-wrapped Python function.
pub struct FunctionObj {
    func: Value,
    /// The signatures traced so far.
    traces: RefCell<HashSet<String>>,
    /// How shapes retrace.
    relaxed: Retrace,
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
    fn value(func: Value, relaxed: Retrace) -> Value {
        Value::native(FunctionObj {
            func,
            traces: RefCell::new(HashSet::new()),
            relaxed,
        })
    }
}

/// The class of a `tf.function`.
pub static FUNCTION: ClassSpec = ClassSpec {
    name: "Function",
    module: "tensorflow.python.eager.polymorphic_function.polymorphic_function",
    bases: &[],
    members: &[Member::Getter(python_function::DEF)],
};

native_class!(FunctionObj: FUNCTION);

/// The Python function it wraps.
#[native("Function.python_function(self)")]
fn python_function(this: &FunctionObj) -> Value {
    this.func.clone()
}

/// What decides whether TensorFlow retraces for an argument: a tensor's
/// dtype, shape and device (strategies trace once per replica device), a
/// Python value itself, a structure's parts; other objects by identity.
fn signature(vm: &dyn Vm, v: &Value, relaxed: bool, out: &mut String) -> PyResult<()> {
    use std::fmt::Write;
    match v {
        Value::Tensor(t) if relaxed => {
            let _ = write!(out, "T{}@{}", t.dtype().name(), t.device().full_name());
        }
        Value::Tensor(t) => {
            let _ = write!(
                out,
                "T{}{:?}@{}",
                t.dtype().name(),
                t.dims(),
                t.device().full_name()
            );
        }
        Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
            let _ = write!(out, "{}:{}", v.type_name(), vm.repr(v)?);
        }
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) => {
            out.push('(');
            if let Value::Dict(d) = v {
                for (k, x) in d.borrow().items() {
                    signature(vm, &k, relaxed, out)?;
                    out.push('=');
                    signature(vm, &x, relaxed, out)?;
                    out.push(',');
                }
            } else {
                for x in vm.collect(v)? {
                    signature(vm, &x, relaxed, out)?;
                    out.push(',');
                }
            }
            out.push(')');
        }
        other => match super::values::components(other) {
            Some(parts) => {
                out.push_str("PR(");
                for p in parts {
                    signature(vm, p, relaxed, out)?;
                    out.push(',');
                }
                out.push(')');
            }
            None if super::variables::is_variable(other) => {
                let _ = write!(out, "V{}", other.id());
            }
            None => {
                let _ = write!(out, "O{}", other.id());
            }
        },
    }
    Ok(())
}

/// A `tf.function(...)` call without the function yet: the decorator
/// (whether its functions' shapes are relaxed).
pub struct Decorator(Retrace);

fn convert_outputs(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    match v {
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => {
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
        let key = |relaxed: bool| -> PyResult<String> {
            let mut key = String::new();
            for a in &args {
                signature(vm, a, relaxed, &mut key)?;
                key.push(';');
            }
            for (k, v) in &kwargs {
                key.push_str(k);
                key.push('=');
                signature(vm, v, relaxed, &mut key)?;
                key.push(';');
            }
            Ok(key)
        };
        let traced = {
            let mut traces = self.traces.borrow_mut();
            match self.relaxed {
                Retrace::Exact => !traces.insert(key(false)?),
                Retrace::Never => !traces.insert(key(true)?),
                Retrace::Reduce => {
                    let (exact, loose) = (key(false)?, key(true)?);
                    let relaxed = format!("~{loose}");
                    if traces.contains(&exact) || traces.contains(&relaxed) {
                        true
                    } else if traces.insert(format!("seen:{loose}")) {
                        traces.insert(exact);
                        false
                    } else {
                        traces.insert(relaxed);
                        false
                    }
                }
            }
        };
        let mute = vm.state().get::<crate::object::state::PrintMute>();
        if traced {
            mute.depth.set(mute.depth.get() + 1);
        }
        let r = vm.call(&self.func, args, kwargs);
        if traced {
            mute.depth.set(mute.depth.get() - 1);
        }
        convert_outputs(vm, &r?)
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
        Ok(FunctionObj::value(func, self.0))
    }
}

/// Compiles a Python function into a TensorFlow graph (here: runs it eagerly with tf.function's observable results).
#[native("function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False, experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None, experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None)")]
#[expect(clippy::too_many_arguments, reason = "the Python signature has them")]
pub fn function(
    func: Option<&Value>,
    input_signature: &Value,
    _autograph: &Value,
    _jit_compile: &Value,
    reduce_retracing: bool,
    _experimental_implements: &Value,
    _experimental_autograph_options: &Value,
    _experimental_attributes: &Value,
    _experimental_relax_shapes: &Value,
    _experimental_compile: &Value,
    _experimental_follow_type_hints: &Value,
) -> Value {
    let relaxed = if !input_signature.is_none() {
        Retrace::Never
    } else if reduce_retracing {
        Retrace::Reduce
    } else {
        Retrace::Exact
    };
    match func {
        Some(f) => FunctionObj::value(f.clone(), relaxed),
        None => Value::native(Decorator(relaxed)),
    }
}
