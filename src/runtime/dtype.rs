//! Element types: [`DType`] with TensorFlow and numpy names, sizes, ranges,
//! and the [`Scalar`] value of one element. Type promotion lives in
//! `ops::promote`; storage per dtype lives in `storage`.

use std::fmt;

use super::error::{Error, Result};

/// The element type of a tensor or array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `tf.bool` / `numpy.bool`.
    Bool,
    /// `tf.int8`.
    Int8,
    /// `tf.uint8`.
    UInt8,
    /// `tf.int16`.
    Int16,
    /// `tf.int32`: TensorFlow's default integer type.
    Int32,
    /// `tf.int64`: numpy's default integer type.
    Int64,
    /// `tf.float16` (also called `half`).
    Float16,
    /// `tf.float32`: TensorFlow's default float type.
    Float32,
    /// `tf.float64` (`double`): numpy's default float type.
    Float64,
    /// `tf.complex64`: two float32 parts.
    Complex64,
    /// `tf.complex128`: two float64 parts; what Python complex numbers convert to.
    Complex128,
    /// `tf.string`: byte strings (numpy shows them as `object` arrays).
    String,
}

/// Every dtype, in declaration order.
pub const ALL_DTYPES: [DType; 12] = [
    DType::Bool,
    DType::Int8,
    DType::UInt8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
    DType::String,
];

impl DType {
    /// TensorFlow's number of the type (its `DataType` enum).
    pub fn datatype_enum(self) -> u64 {
        match self {
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
            DType::Complex64 => 8,
            DType::Complex128 => 18,
        }
    }

    /// The dtype of a `DataType` enum number, if dist has it.
    pub fn from_datatype_enum(code: u64) -> Option<DType> {
        [
            DType::Float32,
            DType::Float64,
            DType::Int32,
            DType::UInt8,
            DType::Int16,
            DType::Int8,
            DType::String,
            DType::Int64,
            DType::Bool,
            DType::Float16,
            DType::Complex64,
            DType::Complex128,
        ]
        .into_iter()
        .find(|d| d.datatype_enum() == code)
    }

    /// TensorFlow's name (`tf.float32.name`), which is also numpy's for numeric types.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int8 => "int8",
            DType::UInt8 => "uint8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float16 => "float16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
            DType::String => "string",
        }
    }

    /// numpy's dtype name (`object` for strings, as `tensor.numpy()` returns).
    pub fn numpy_name(self) -> &'static str {
        match self {
            DType::String => "object",
            d => d.name(),
        }
    }

    /// The name TensorFlow uses in kernel type errors (`a int32 tensor but is a float tensor`).
    pub fn kernel_name(self) -> &'static str {
        match self {
            DType::Float16 => "half",
            DType::Float32 => "float",
            DType::Float64 => "double",
            d => d.name(),
        }
    }

    /// Parses a TensorFlow or numpy dtype name (`float32`, `float`, `half`, `double`, `str`…).
    pub fn from_name(name: &str) -> Result<DType> {
        Ok(match name {
            "bool" => DType::Bool,
            "int8" => DType::Int8,
            "uint8" => DType::UInt8,
            "int16" => DType::Int16,
            "int32" => DType::Int32,
            "int64" | "int" => DType::Int64,
            "float16" | "half" => DType::Float16,
            "float32" => DType::Float32,
            "float64" | "double" | "float" => DType::Float64,
            "complex64" => DType::Complex64,
            "complex128" | "complex" => DType::Complex128,
            "string" | "object" | "bytes" | "str" => DType::String,
            _ => {
                return Err(Error::type_error(format!(
                    "data type '{name}' not understood"
                )))
            }
        })
    }

    /// True for the float types.
    pub fn is_floating(self) -> bool {
        matches!(self, DType::Float16 | DType::Float32 | DType::Float64)
    }

    /// True for `complex64` and `complex128`.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// The dtype of a complex type's parts (`float32` for `complex64`);
    /// other types are their own.
    pub fn real_dtype(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        }
    }

    /// The complex type whose parts have this float type (`None` for others).
    pub fn complex_of(self) -> Option<DType> {
        match self {
            DType::Float32 => Some(DType::Complex64),
            DType::Float64 => Some(DType::Complex128),
            _ => None,
        }
    }

    /// True for the integer types (not bool).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::Int8 | DType::UInt8 | DType::Int16 | DType::Int32 | DType::Int64
        )
    }

    /// True for unsigned integer types.
    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::UInt8)
    }

    /// True for bool, integer and float types.
    pub fn is_numeric(self) -> bool {
        self != DType::String
    }

    /// Bytes per element (strings: the size of one stored handle).
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::Int8 | DType::UInt8 => 1,
            DType::Int16 | DType::Float16 => 2,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
            DType::String => std::mem::size_of::<Vec<u8>>(),
        }
    }

    /// Smallest value of an integer type (`None` for other types).
    pub fn int_min(self) -> Option<i64> {
        Some(match self {
            DType::Int8 => i8::MIN as i64,
            DType::UInt8 => 0,
            DType::Int16 => i16::MIN as i64,
            DType::Int32 => i32::MIN as i64,
            DType::Int64 => i64::MIN,
            _ => return None,
        })
    }

    /// Largest value of an integer type (`None` for other types).
    pub fn int_max(self) -> Option<i64> {
        Some(match self {
            DType::Int8 => i8::MAX as i64,
            DType::UInt8 => u8::MAX as i64,
            DType::Int16 => i16::MAX as i64,
            DType::Int32 => i32::MAX as i64,
            DType::Int64 => i64::MAX,
            _ => return None,
        })
    }

    /// Largest finite value of a float type (`None` for other types).
    pub fn float_max(self) -> Option<f64> {
        Some(match self {
            DType::Float16 => 65504.0,
            DType::Float32 => f32::MAX as f64,
            DType::Float64 => f64::MAX,
            _ => return None,
        })
    }

    /// True when numpy's repr omits `dtype=` for this type (int64, float64,
    /// complex128, bool).
    pub fn numpy_repr_implied(self) -> bool {
        matches!(
            self,
            DType::Int64 | DType::Float64 | DType::Complex128 | DType::Bool
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One element's value, widened: what `tensor.numpy()` of a 0-d tensor or
/// `arr.item()` gives the language layer.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// A bool element.
    Bool(bool),
    /// Any integer element, widened to `i64`.
    Int(i64),
    /// Any float element, widened exactly to `f64`.
    Float(f64),
    /// A complex element, its parts widened exactly to `f64`.
    Complex(f64, f64),
    /// A byte-string element.
    Bytes(Vec<u8>),
}

impl Scalar {
    /// Whether the element is zero (false, `0`, `0.0`, `0j`; bytes: empty).
    pub fn is_zero(&self) -> bool {
        match self {
            Scalar::Bytes(b) => b.is_empty(),
            s => s.as_complex() == (0.0, 0.0),
        }
    }

    /// The value as a complex number's parts (real numbers have no
    /// imaginary part; bytes → NaN).
    pub fn as_complex(&self) -> (f64, f64) {
        match self {
            Scalar::Complex(re, im) => (*re, *im),
            s => (s.as_f64(), 0.0),
        }
    }

    /// The value as `f64` (bool → 0/1; bytes → NaN).
    pub fn as_f64(&self) -> f64 {
        match self {
            Scalar::Bool(b) => *b as u8 as f64,
            Scalar::Int(i) => *i as f64,
            Scalar::Float(f) => *f,
            Scalar::Complex(re, _) => *re,
            Scalar::Bytes(_) => f64::NAN,
        }
    }
}
