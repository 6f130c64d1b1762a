//! `tf.DType` objects (`tf.float32`, `t.dtype`): one shared object per
//! dtype, so `t.dtype is tf.float32` holds, with TensorFlow's repr
//! (`tf.float32`), str (`<dtype: 'float32'>`) and attributes.

use std::any::Any;
use std::rc::Rc;

use crate::object::module::ModuleBuilder;
use crate::runtime::dtype::ALL_DTYPES;
use crate::runtime::DType;
use crate::value::{Args, Class, ClassKind, NativeObject, PyResult, Value, ValueType, Vm};

/// A `tf.DType`.
pub struct DTypeObj(pub DType);

thread_local! {
    static DTYPES: Vec<Value> = ALL_DTYPES.iter().map(|&d| Value::native(DTypeObj(d))).collect();
    static CLASS: Rc<Class> = {
        let c = Class::new_builtin(
            "DType",
            "tensorflow.python.framework.dtypes",
            Some(crate::object::types::builtin_class(ValueType::Object)),
            ClassKind::Native,
        );
        crate::object::types::add_new(&c, "DType(type_enum)", dtype_new, "A TensorFlow element type.");
        c
    };
}

fn dtype_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(dtype_value(crate::object::tensor::convert::dtype_arg(
        vm,
        a.get(0),
    )?))
}

/// The shared `tf.DType` object of `d`.
pub fn dtype_value(d: DType) -> Value {
    DTYPES.with(|v| v[ALL_DTYPES.iter().position(|&x| x == d).unwrap_or(0)].clone())
}

/// The `tf.dtypes.DType` class.
pub fn dtype_class() -> Rc<Class> {
    CLASS.with(Rc::clone)
}

impl NativeObject for DTypeObj {
    fn type_name(&self) -> &str {
        "DType"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn class(&self) -> Option<Rc<Class>> {
        Some(dtype_class())
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("tf.{}", self.0.name()))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<dtype: '{}'>", self.0.name()))
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let d = self.0;
        Ok(Some(match name {
            "name" => Value::str(d.name()),
            "is_floating" => Value::Bool(d.is_floating()),
            "is_integer" => Value::Bool(d.is_integer()),
            "is_bool" => Value::Bool(d == DType::Bool),
            "is_unsigned" => Value::Bool(d.is_unsigned()),
            "is_numpy_compatible" => Value::Bool(true),
            "is_complex" | "is_quantized" => Value::Bool(false),
            "size" => Value::Int(if d == DType::String {
                8
            } else {
                d.size() as i64
            }),
            "base_dtype" | "real_dtype" => this.clone(),
            "as_numpy_dtype" => Value::Class(crate::object::numpy::scalar_class(d)),
            "as_datatype_enum" => Value::Int(match d {
                DType::Float32 => 1,
                DType::Float64 => 2,
                DType::Int32 => 3,
                DType::UInt8 => 4,
                DType::Int16 => 5,
                DType::Int8 => 6,
                DType::String => 7,
                DType::Int64 => 9,
                DType::Bool => 10,
                DType::Float16 => 19,
            }),
            "min" => match (d.int_min(), d.float_max()) {
                (Some(i), _) => Value::Int(i),
                (_, Some(f)) => Value::Float(-f),
                _ => return Ok(None),
            },
            "max" => match (d.int_max(), d.float_max()) {
                (Some(i), _) => Value::Int(i),
                (_, Some(f)) => Value::Float(f),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        }))
    }

    fn compare(
        &self,
        _this: &Value,
        op: &str,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let same = match other {
            Value::None => false,
            o => crate::object::tensor::convert::dtype_arg(vm, o).is_ok_and(|d| d == self.0),
        };
        Ok(crate::value::native::equality(op, same))
    }
}

fn as_dtype(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(dtype_value(crate::object::tensor::convert::dtype_arg(
        vm,
        a.get(0),
    )?))
}

/// Registers the dtype objects (`tf.float32` …), `tf.DType` and `tf.as_dtype`
/// into `m` (both `tf` and `tf.dtypes` get them).
pub fn register(m: &mut ModuleBuilder) {
    for &d in &ALL_DTYPES {
        m.value(d.name(), dtype_value(d));
    }
    m.value("half", dtype_value(DType::Float16));
    m.value("double", dtype_value(DType::Float64));
    m.value("DType", Value::Class(dtype_class()));
    m.function(
        "as_dtype(type_value)",
        as_dtype,
        "The `tf.DType` for a name, numpy type or DType: `tf.as_dtype('float32')`.",
    );
}
