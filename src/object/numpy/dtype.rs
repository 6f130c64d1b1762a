//! numpy's scalar types as classes (`np.float32`, `np.int64`, `np.bool_`:
//! calling one makes a numpy scalar) and `np.dtype` objects (`arr.dtype`,
//! printing `float64`, repr `dtype('float64')`).

use std::rc::Rc;

use super::array::ndarray_members;
use crate::object::types::type_error;
use crate::object::{native, ClassSpec};
use crate::runtime::DType;
use crate::value::{Class, NativeObject, PyResult, Value, Vm};

/// An `np.dtype`.
pub struct NpDType(pub DType);

/// numpy's scalar types: for each, the constructor (`np.float32(1.5)`)
/// and its class (with `numpy.ndarray`'s members).
macro_rules! scalar_types {
    ($($spec:ident $new:ident $sig:literal $name:literal => $d:path;)*) => {
        $(
            /// A numpy scalar of this type.
            #[native($sig, c_ctor)]
            fn $new(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
                super::make(vm, x, Some($d))
            }

            static $spec: ClassSpec = ClassSpec {
                name: $name,
                module: "numpy",
                bases: &[],
                members: ndarray_members!(Member::New($new::DEF)),
            };
        )*

        /// The class spec of numpy's scalar type of `d`.
        pub fn scalar_spec(d: DType) -> &'static ClassSpec {
            match d {
                $($d => &$spec,)*
            }
        }
    };
}

scalar_types! {
    BOOL new_bool "bool(x=0, /)" "bool" => DType::Bool;
    INT8 new_i8 "int8(x=0, /)" "int8" => DType::Int8;
    UINT8 new_u8 "uint8(x=0, /)" "uint8" => DType::UInt8;
    INT16 new_i16 "int16(x=0, /)" "int16" => DType::Int16;
    INT32 new_i32 "int32(x=0, /)" "int32" => DType::Int32;
    INT64 new_i64 "int64(x=0, /)" "int64" => DType::Int64;
    FLOAT16 new_f16 "float16(x=0, /)" "float16" => DType::Float16;
    FLOAT32 new_f32 "float32(x=0, /)" "float32" => DType::Float32;
    FLOAT64 new_f64 "float64(x=0, /)" "float64" => DType::Float64;
    COMPLEX64 new_c64 "complex64(x=0, /)" "complex64" => DType::Complex64;
    COMPLEX128 new_c128 "complex128(x=0, /)" "complex128" => DType::Complex128;
    BYTES new_str "bytes_(x=0, /)" "bytes_" => DType::String;
}

/// The numpy scalar class of `d` (`numpy.float32`).
pub fn scalar_class(d: DType) -> Rc<Class> {
    scalar_spec(d).class()
}

/// A dtype from an `np.dtype`-like value (a dtype, a scalar class, a name,
/// a `tf.DType`, Python's `int`/`float`/`bool`).
pub fn np_dtype_arg(vm: &dyn Vm, v: &Value) -> PyResult<DType> {
    match v {
        Value::Class(c) if &*c.module == "builtins" => match &*c.name {
            "int" => Ok(DType::Int64),
            "float" => Ok(DType::Float64),
            "bool" => Ok(DType::Bool),
            "complex" => Ok(DType::Complex128),
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
    type_error(format!(
        "data type {} not understood",
        vm.repr(v).unwrap_or_default()
    ))
}

/// The class of numpy dtype objects.
pub static NP_DTYPE: ClassSpec = ClassSpec::plain("dtype", "builtins");

impl NativeObject for NpDType {
    fn class(&self) -> Option<std::rc::Rc<crate::value::Class>> {
        // Its attributes are its own (`getattr`), not its class's.
        Some(NP_DTYPE.class())
    }

    fn type_name(&self) -> &str {
        "dtype"
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
                d if d.is_complex() => "c",
                _ => "f",
            }),
            _ => return Ok(None),
        }))
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let same = np_dtype_arg(vm, other).is_ok_and(|d| d == self.0);
        Ok(Some(same))
    }
}
