//! `tf.function`: as a decorator with or without arguments
//! (`@tf.function`, `@tf.function(jit_compile=True)`, `input_signature`
//! accepted). Calls run the Python function eagerly; what TensorFlow makes
//! observable of tracing is kept: Python numbers and strings returned
//! become tensors, inside nested tuples, lists and dicts too.

use std::any::Any;
use std::rc::Rc;

use super::classes;
use crate::modules::tf::convert::to_tensor;
use crate::modules::ModuleBuilder;
use crate::value::{Args, Class, NativeObject, PyResult, Value, Vm};

/// A `tf.function`-wrapped Python function.
pub struct FunctionObj {
    func: Value,
}

/// A `tf.function(...)` call without the function yet: the decorator.
pub struct Decorator;

fn convert_outputs(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    match v {
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => {
            Ok(Value::Tensor(to_tensor(vm, v, None)?))
        }
        other => super::nest::map_leaves(other, &mut |x| convert_outputs(vm, x)),
    }
}

impl NativeObject for FunctionObj {
    fn type_name(&self) -> &str {
        "Function"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<Class>> {
        Some(classes::class("Function"))
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<tensorflow.python.eager.polymorphic_function.polymorphic_function.Function object at {:#x}>",
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
        let r = vm.call(&self.func, args, kwargs)?;
        convert_outputs(vm, &r)
    }
    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "python_function" => Some(self.func.clone()),
            "__name__" | "__doc__" => Some(vm.getattr(&self.func, name)?),
            _ => None,
        })
    }
}

impl NativeObject for Decorator {
    fn type_name(&self) -> &str {
        "function"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        _kwargs: Vec<(Rc<str>, Value)>,
        _vm: &dyn Vm,
    ) -> PyResult<Value> {
        let func = args.into_iter().next().unwrap_or(Value::None);
        Ok(Value::native(FunctionObj { func }))
    }
}

fn tf_function(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    match args.opt(0) {
        Some(f) => Ok(Value::native(FunctionObj { func: f.clone() })),
        None => Ok(Value::native(Decorator)),
    }
}

/// Registers `tf.function`.
pub fn register(m: &mut ModuleBuilder) {
    m.function(
        "function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False, experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None, experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None)",
        tf_function,
        "Compiles a Python function into a TensorFlow graph (here: runs it eagerly with tf.function's observable results).",
    );
}
