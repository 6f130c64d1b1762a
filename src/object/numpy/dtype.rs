//! numpy's scalar types as classes (`np.float32`, `np.int64`, `np.bool_`:
//! calling one makes a numpy scalar) and `np.dtype` objects (`arr.dtype`,
//! printing `float64`, repr `dtype('float64')`).

use std::any::Any;
use std::rc::Rc;

use crate::runtime::dtype::ALL_DTYPES;
use crate::runtime::DType;
use crate::value::{
    Args, Class, ClassKind, NativeFn, NativeObject, PyResult, Value, ValueType, Vm,
};

/// An `np.dtype`.
pub struct NpDType(pub DType);

/// numpy's class name of a scalar type.
fn class_name(d: DType) -> &'static str {
    match d {
        DType::String => "bytes_",
        d => d.name(),
    }
}

macro_rules! ctor {
    ($($name:ident => $d:expr),* $(,)?) => {
        $(fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            let v = if a.was_given(0) { a.get(0).clone() } else { Value::Int(0) };
            super::make(vm, &v, Some($d))
        })*
    };
}

ctor! {
    new_bool => DType::Bool,
    new_i8 => DType::Int8,
    new_u8 => DType::UInt8,
    new_i16 => DType::Int16,
    new_i32 => DType::Int32,
    new_i64 => DType::Int64,
    new_f16 => DType::Float16,
    new_f32 => DType::Float32,
    new_f64 => DType::Float64,
    new_str => DType::String,
}

fn ctor_of(d: DType) -> NativeFn {
    match d {
        DType::Bool => new_bool,
        DType::Int8 => new_i8,
        DType::UInt8 => new_u8,
        DType::Int16 => new_i16,
        DType::Int32 => new_i32,
        DType::Int64 => new_i64,
        DType::Float16 => new_f16,
        DType::Float32 => new_f32,
        DType::Float64 => new_f64,
        DType::String => new_str,
    }
}

thread_local! {
    static SCALAR_CLASSES: Vec<Rc<Class>> = ALL_DTYPES
        .iter()
        .map(|&d| {
            let c = Class::new_builtin(
                class_name(d),
                "numpy",
                Some(crate::object::types::builtin_class(ValueType::Object)),
                ClassKind::Native,
            );
            let sig = format!("{}(x=0, /)", class_name(d));
            crate::object::types::add_new(&c, &sig, ctor_of(d), "A numpy scalar of this type.");
            super::array::add_methods(&c);
            c
        })
        .collect();
}

/// The numpy scalar class of `d` (`numpy.float32`).
pub fn scalar_class(d: DType) -> Rc<Class> {
    SCALAR_CLASSES.with(|v| v[ALL_DTYPES.iter().position(|&x| x == d).unwrap_or(0)].clone())
}

/// A dtype from an `np.dtype`-like value (a dtype, a scalar class, a name,
/// a `tf.DType`, Python's `int`/`float`/`bool`).
pub fn np_dtype_arg(vm: &dyn Vm, v: &Value) -> PyResult<DType> {
    match v {
        Value::Class(c) if &*c.module == "builtins" => match &*c.name {
            "int" => Ok(DType::Int64),
            "float" => Ok(DType::Float64),
            "bool" => Ok(DType::Bool),
            "str" | "bytes" => Ok(DType::String),
            _ => Err(not_understood(vm, v)),
        },
        Value::Class(c) if &*c.module == "numpy" && &*c.name == "bytes_" => Ok(DType::String),
        Value::Str(s) => DType::from_name(s).map_err(|_| not_understood(vm, v)),
        other => {
            crate::object::tensor::convert::dtype_arg(vm, other).map_err(|_| not_understood(vm, v))
        }
    }
}

#[cold]
fn not_understood(vm: &dyn Vm, v: &Value) -> crate::value::PyErr {
    crate::value::PyErr::new(
        crate::value::ExcType::TypeError,
        format!(
            "data type {} not understood",
            vm.repr(v).unwrap_or_default()
        ),
    )
}

/// `np.dtype(x)`.
pub fn dtype_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::native(NpDType(np_dtype_arg(vm, a.get(0))?)))
}

impl NativeObject for NpDType {
    fn type_name(&self) -> &str {
        "dtype"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("dtype('{}')", self.0.numpy_name()))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(self.0.numpy_name().to_string())
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let d = self.0;
        Ok(Some(match name {
            "name" => Value::str(d.numpy_name()),
            "itemsize" => Value::Int(d.size() as i64),
            "type" => Value::Class(scalar_class(d)),
            "kind" => Value::str(match d {
                DType::Bool => "b",
                DType::UInt8 => "u",
                DType::String => "O",
                d if d.is_integer() => "i",
                _ => "f",
            }),
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
        let same = np_dtype_arg(vm, other).is_ok_and(|d| d == self.0);
        Ok(crate::value::native::equality(op, same))
    }
}
