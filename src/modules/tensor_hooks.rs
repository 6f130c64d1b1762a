//! How the evaluator reaches tensor behaviour (`Value::Tensor`): operators,
//! attributes, printing. Implemented by the `tf` module over `runtime`.
//! PLACEHOLDER until the tensor runtime is merged.

use std::rc::Rc;

use crate::syntax::ast::BinOp;
use crate::value::{Class, ExcType, PyErr, PyResult, Value, Vm};

fn unavailable() -> PyErr {
    PyErr::new(
        ExcType::NotImplementedError,
        "tensors are not available yet",
    )
}

/// The `tf.Tensor` class.
pub fn tensor_class() -> Rc<Class> {
    crate::eval::native_class("EagerTensor")
}
/// `t.name`.
pub fn tensor_getattr(_vm: &dyn Vm, _t: &Value, _name: &str) -> PyResult<Option<Value>> {
    Err(unavailable())
}
/// `t op other` / `other op t`.
pub fn tensor_binop(
    _vm: &dyn Vm,
    _op: BinOp,
    _t: &Value,
    _other: &Value,
    _reflected: bool,
) -> PyResult<Option<Value>> {
    Err(unavailable())
}
/// `-t`, `+t`, `~t`.
pub fn tensor_unary(_vm: &dyn Vm, _op: char, _t: &Value) -> PyResult<Option<Value>> {
    Err(unavailable())
}
/// `t == other` etc.
pub fn tensor_compare(
    _vm: &dyn Vm,
    _t: &Value,
    _op: &str,
    _other: &Value,
) -> PyResult<Option<Value>> {
    Err(unavailable())
}
/// `bool(t)`.
pub fn tensor_truthy(_vm: &dyn Vm, _t: &Value) -> PyResult<bool> {
    Err(unavailable())
}
/// `len(t)`.
pub fn tensor_len(_vm: &dyn Vm, _t: &Value) -> PyResult<usize> {
    Err(unavailable())
}
/// `t[key]`.
pub fn tensor_getitem(_vm: &dyn Vm, _t: &Value, _key: &Value) -> PyResult<Value> {
    Err(unavailable())
}
/// `format(t, spec)`.
pub fn tensor_format(_vm: &dyn Vm, _t: &Value, _spec: &str) -> PyResult<String> {
    Err(unavailable())
}
/// `iter(t)`.
pub fn tensor_iter(_vm: &dyn Vm, _t: &Value) -> PyResult<Value> {
    Err(unavailable())
}
/// `repr(t)`.
pub fn tensor_repr(_vm: &dyn Vm, _t: &Value) -> PyResult<String> {
    Err(unavailable())
}
/// `str(t)`.
pub fn tensor_str(_vm: &dyn Vm, _t: &Value) -> PyResult<String> {
    Err(unavailable())
}
