//! `tf.DType` objects (`tf.float32`, `t.dtype`): one shared object per
//! dtype, so `t.dtype is tf.float32` holds, with TensorFlow's repr
//! (`tf.float32`), str (`<dtype: 'float32'>`) and attributes. The `tf`
//! module names them (`modules::tf::dtypes`).

use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::runtime::dtype::ALL_DTYPES;
use crate::runtime::DType;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A `tf.DType`.
pub struct DTypeObj(pub DType);

thread_local! {
    /// The one object of each dtype (a cache of values made from static data).
    static DTYPES: Vec<Value> = ALL_DTYPES.iter().map(|&d| Value::native(DTypeObj(d))).collect();
}

/// The `tf.dtypes.DType` class.
pub static DTYPE_CLASS: ClassSpec = ClassSpec {
    name: "DType",
    module: "tensorflow.python.framework.dtypes",
    bases: &[],
    members: &[
        Member::New(dtype_new::DEF),
        Member::Getter(name::DEF),
        Member::Getter(is_floating::DEF),
        Member::Getter(is_integer::DEF),
        Member::Getter(is_bool::DEF),
        Member::Getter(is_unsigned::DEF),
        Member::Getter(is_numpy_compatible::DEF),
        Member::Getter(is_complex::DEF),
        Member::Getter(is_quantized::DEF),
        Member::Getter(size::DEF),
        Member::Getter(base_dtype::DEF),
        Member::Getter(real_dtype::DEF),
        Member::Getter(as_numpy_dtype::DEF),
        Member::Getter(as_datatype_enum::DEF),
    ],
};

impl NativeClass for DTypeObj {
    const SPEC: &'static ClassSpec = &DTYPE_CLASS;
}

/// A TensorFlow element type.
#[native("DType(type_enum)", c_ctor)]
fn dtype_new(vm: &dyn Vm, type_enum: &Value) -> PyResult<Value> {
    crate::object::tensor::convert::dtype_arg(vm, type_enum).map(dtype_value)
}

/// The shared `tf.DType` object of `d`.
pub fn dtype_value(d: DType) -> Value {
    DTYPES.with(|v| v[ALL_DTYPES.iter().position(|&x| x == d).unwrap_or(0)].clone())
}

/// Getters `DType.x(self)`: `body` computes the attribute from the dtype `d`.
macro_rules! getters {
    ($($(#[$doc:meta])* $name:ident $sig:literal => |$d:ident| $body:expr;)*) => {$(
        $(#[$doc])*
        #[native($sig)]
        fn $name(this: &DTypeObj) -> Value {
            let $d = this.0;
            $body
        }
    )*};
}

getters! {
    /// The dtype's name (`'float32'`).
    name "DType.name(self)" => |d| Value::str(d.name());
    /// Whether it is a floating-point type.
    is_floating "DType.is_floating(self)" => |d| Value::Bool(d.is_floating());
    /// Whether it is an integer type.
    is_integer "DType.is_integer(self)" => |d| Value::Bool(d.is_integer());
    /// Whether it is `tf.bool`.
    is_bool "DType.is_bool(self)" => |d| Value::Bool(d == DType::Bool);
    /// Whether it is an unsigned integer type.
    is_unsigned "DType.is_unsigned(self)" => |d| Value::Bool(d.is_unsigned());
    /// Whether numpy has it (every dtype dist has).
    is_numpy_compatible "DType.is_numpy_compatible(self)" => |_d| Value::Bool(true);
    /// Whether it is a complex type.
    is_complex "DType.is_complex(self)" => |d| Value::Bool(d.is_complex());
    /// Whether it is a quantized type (none in dist).
    is_quantized "DType.is_quantized(self)" => |_d| Value::Bool(false);
    /// The size of an element in bytes.
    size "DType.size(self)" => |d| Value::Int(match d {
        DType::String => 8,
        d => d.size() as i64,
    });
    /// The dtype itself (dist has no reference dtypes).
    base_dtype "DType.base_dtype(self)" => |d| dtype_value(d);
    /// The type of a complex type's parts (`float32` for `complex64`);
    /// other types are their own.
    real_dtype "DType.real_dtype(self)" => |d| dtype_value(d.real_dtype());
    /// The numpy scalar type (`np.float32`).
    as_numpy_dtype "DType.as_numpy_dtype(self)" =>
        |d| Value::Class(crate::object::numpy::scalar_class(d));
    /// TensorFlow's number of the type (its `DataType` enum).
    as_datatype_enum "DType.as_datatype_enum(self)" => |d| Value::Int(d.datatype_enum() as i64);
}

impl NativeObject for DTypeObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&DTYPE_CLASS)
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("tf.{}", self.0.name()))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<dtype: '{}'>", self.0.name()))
    }

    // `min` and `max` of a non-numeric dtype (bool, string, complex) are
    // TensorFlow's TypeError, so they are answered here, not by getters.
    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let d = self.0;
        let (int, float, what) = match name {
            "min" => (d.int_min(), d.float_max().map(|f| -f), "minimum"),
            "max" => (d.int_max(), d.float_max(), "maximum"),
            _ => return Ok(None),
        };
        match (int, float) {
            (Some(i), _) => Ok(Some(Value::Int(i))),
            // numpy's `finfo(...).max`: a numpy scalar of the dtype
            (_, Some(f)) => {
                let t = crate::runtime::Tensor::fill(
                    &[],
                    &crate::runtime::Scalar::Float(f),
                    d,
                    crate::runtime::Device::CPU0,
                )
                .map_err(super::convert::runtime_err)?;
                Ok(Some(crate::object::numpy::array::wrap(t)))
            }
            _ => Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Cannot find {what} value of <dtype: '{0}'> with type <dtype: '{0}'>.",
                    d.name()
                ),
            )),
        }
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let same = match other {
            Value::None => false,
            o => crate::object::tensor::convert::dtype_arg(vm, o).is_ok_and(|d| d == self.0),
        };
        Ok(Some(same))
    }
}
