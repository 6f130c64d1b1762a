//! The runtime side of `tf.autodiff.ForwardAccumulator` (the class itself is
//! `stdlib/tensorflow_forwardprop.dist`, TensorFlow's Python): an
//! accumulator handle, entering and leaving it, watching a primal with its
//! tangent and reading a tensor's tangent (`runtime::autodiff::forward`).

use std::io::Write;
use std::rc::Rc;

use super::gradient_tape::variable_like;
use crate::distribute::variables::{is_variable, tape_source};
use crate::modules::ModuleBuilder;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, ClassSpec};
use crate::runtime::autodiff::forward::Accumulator;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// An accumulator of the runtime.
pub struct Handle(Rc<Accumulator>);

static HANDLE: ClassSpec = ClassSpec {
    name: "ForwardAccumulatorHandle",
    module: "tensorflow.python.eager.forwardprop",
    bases: &[],
    members: &[],
};

crate::distribute::classes::native_class!(Handle: HANDLE);

impl NativeObject for Handle {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&HANDLE)
    }
}

fn handle(v: &Value) -> PyResult<Rc<Accumulator>> {
    v.downcast::<Handle>()
        .map(|h| h.0.clone())
        .ok_or_else(|| PyErr::new(ExcType::TypeError, "expected a forward accumulator handle"))
}

/// A new accumulator (not recording).
#[native("_forward_new()")]
fn forward_new() -> Value {
    Value::native(Handle(Accumulator::new()))
}

/// Starts recording on it.
#[native("_forward_push(acc)")]
fn forward_push(acc: &Value) -> PyResult<Value> {
    handle(acc)?.push();
    Ok(Value::None)
}

/// Stops recording on it.
#[native("_forward_pop(acc)")]
fn forward_pop(acc: &Value) -> PyResult<Value> {
    handle(acc)?.pop();
    Ok(Value::None)
}

/// Follows `primal` (a tensor or a variable) with `tangent`; `floating`:
/// whether the primal's dtype is floating (TensorFlow warns when not).
#[native("_forward_watch(acc, primal, tangent, floating)")]
fn forward_watch(
    vm: &dyn Vm,
    acc: &Value,
    primal: &Value,
    tangent: &Value,
    floating: bool,
) -> PyResult<Value> {
    let acc = handle(acc)?;
    if !floating {
        let dtype = vm.getattr(primal, "dtype")?;
        let shown = vm.repr(&dtype)?;
        vm.flush_stdout();
        let _ = writeln!(
            std::io::stderr(),
            "WARNING:tensorflow:The dtype of the watched primal must be floating (e.g. tf.float32), got {shown}"
        );
    }
    let tangent = to_tensor(vm, tangent, None)?;
    let held = variable_like(vm, primal)?;
    let primal = held.as_ref().unwrap_or(primal);
    if is_variable(primal) {
        if let Some((key, _, _)) = tape_source(vm, primal) {
            acc.watch_variable(key, tangent);
        }
        return Ok(Value::None);
    }
    let t = to_tensor(vm, primal, None)?;
    acc.watch(&t, tangent);
    Ok(Value::None)
}

/// The tangent of `tensor` (a tensor or a variable), None when it does not
/// depend on a primal.
#[native("_forward_jvp(acc, tensor)")]
fn forward_jvp(vm: &dyn Vm, acc: &Value, tensor: &Value) -> PyResult<Value> {
    let acc = handle(acc)?;
    let held = variable_like(vm, tensor)?;
    let v = held.as_ref().unwrap_or(tensor);
    let found = if is_variable(v) {
        match tape_source(vm, v) {
            Some((key, _, _)) => acc.jvp_variable(key),
            None => Ok(None),
        }
    } else {
        acc.jvp(&to_tensor(vm, v, None)?)
    };
    Ok(found
        .map_err(runtime_err)?
        .map_or(Value::None, Value::Tensor))
}

/// Adds the handle functions to `tf.autodiff`.
pub fn register(a: &mut ModuleBuilder) {
    a.add(forward_new::DEF)
        .add(forward_push::DEF)
        .add(forward_pop::DEF)
        .add(forward_watch::DEF)
        .add(forward_jvp::DEF);
}
