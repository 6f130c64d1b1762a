//! The names of TensorFlow's dtypes: `tf.float32` … (the shared
//! `tf.DType` objects of `object::tensor::dtype`), `tf.half`, `tf.double`,
//! the `tf.DType` class and `tf.as_dtype`, under both `tf` and `tf.dtypes`.

use super::convert::dtype_arg;
use super::dtype::{dtype_value, DTYPE_CLASS};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::dtype::ALL_DTYPES;
use crate::runtime::DType;
use crate::value::{PyResult, Value, Vm};

/// The `tf.DType` for a name, numpy type or DType: `tf.as_dtype('float32')`.
#[native("as_dtype(type_value)")]
fn as_dtype(vm: &dyn Vm, type_value: &Value) -> PyResult<Value> {
    dtype_arg(vm, type_value).map(dtype_value)
}

/// Registers the dtype objects (`tf.float32` …), `tf.DType` and `tf.as_dtype`
/// into `m` (both `tf` and `tf.dtypes` get them).
pub fn register(m: &mut ModuleBuilder) {
    for &d in &ALL_DTYPES {
        m.value(d.name(), dtype_value(d));
    }
    m.value("half", dtype_value(DType::Float16))
        .value("double", dtype_value(DType::Float64))
        .value("DType", Value::Class(DTYPE_CLASS.class()))
        .add(as_dtype::DEF);
}
