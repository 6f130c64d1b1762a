//! numpy 2 type promotion (`np.result_type`), including NEP 50's weak
//! Python scalars: `int32_array + 1` stays int32, `int32_array + 1.5` is float64.

use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, ErrorKind, Result};

/// The kind of a Python scalar operand (a "weak" type under NEP 50).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// A Python `bool`.
    Bool,
    /// A Python `int` (its value, for the out-of-bounds check).
    Int(i64),
    /// A Python `float`.
    Float,
    /// A Python `complex`.
    Complex,
}

fn rank_int(d: DType) -> Option<(bool, u8)> {
    Some(match d {
        DType::Int8 => (true, 1),
        DType::UInt8 => (false, 1),
        DType::Int16 => (true, 2),
        DType::Int32 => (true, 4),
        DType::Int64 => (true, 8),
        _ => return None,
    })
}

fn int_of(signed: bool, bytes: u8) -> DType {
    match (signed, bytes) {
        (true, 1) => DType::Int8,
        (false, 1) => DType::UInt8,
        (true, 2) => DType::Int16,
        (true, 4) => DType::Int32,
        _ => DType::Int64,
    }
}

/// `np.promote_types(a, b)` for the supported dtypes.
pub fn promote_types(a: DType, b: DType) -> Result<DType> {
    use DType::*;
    if a == b {
        return Ok(a);
    }
    if a == String || b == String {
        return Err(Error::new(
            ErrorKind::Type,
            format!(
                "The DType <class 'numpy.dtypes.{}DType'> could not be promoted by <class 'numpy.dtypes.{}DType'>.",
                np_class(a),
                np_class(b)
            ),
        ));
    }
    if a.is_complex() || b.is_complex() {
        // the complex type whose parts hold both operands' real types
        let parts = promote_types(a.real_dtype(), b.real_dtype())?;
        return Ok(if parts == Float64 {
            Complex128
        } else {
            Complex64
        });
    }
    if a == Bool {
        return Ok(b);
    }
    if b == Bool {
        return Ok(a);
    }
    match (rank_int(a), rank_int(b)) {
        (Some((sa, ba)), Some((sb, bb))) => {
            if sa == sb {
                return Ok(int_of(sa, ba.max(bb)));
            }
            // unsigned uint8 with a signed type: the signed type must be wider
            let (s_bytes, u_bytes) = if sa { (ba, bb) } else { (bb, ba) };
            return Ok(int_of(
                true,
                if s_bytes > u_bytes {
                    s_bytes
                } else {
                    u_bytes * 2
                },
            ));
        }
        (Some((_, bytes)), None) => return Ok(int_float(bytes, b)),
        (None, Some((_, bytes))) => return Ok(int_float(bytes, a)),
        (None, None) => {}
    }
    // both floats
    Ok(if a.size() >= b.size() { a } else { b })
}

fn np_class(d: DType) -> &'static str {
    match d {
        DType::Bool => "Bool",
        DType::Int8 => "Int8",
        DType::UInt8 => "UInt8",
        DType::Int16 => "Int16",
        DType::Int32 => "Int32",
        DType::Int64 => "Int64",
        DType::Float16 => "Float16",
        DType::Float32 => "Float32",
        DType::Float64 => "Float64",
        DType::Complex64 => "Complex64",
        DType::Complex128 => "Complex128",
        DType::String => "Bytes",
    }
}

/// Smallest float holding every value of an int of `bytes` bytes, at least `f`.
fn int_float(bytes: u8, f: DType) -> DType {
    let need = match bytes {
        1 => DType::Float16,
        2 => DType::Float32,
        _ => DType::Float64,
    };
    if need.size() >= f.size() {
        need
    } else {
        f
    }
}

/// The result dtype of `array <op> python_scalar` under NEP 50, or numpy's
/// `OverflowError` when a Python int does not fit an integer array's type.
pub fn weak_scalar_type(array: DType, scalar: ScalarKind) -> Result<DType> {
    Ok(match (array, scalar) {
        (_, ScalarKind::Bool) => array,
        (d, ScalarKind::Complex) if d.is_complex() => d,
        (DType::Float16 | DType::Float32, ScalarKind::Complex) => DType::Complex64,
        (_, ScalarKind::Complex) => DType::Complex128,
        (DType::Bool, ScalarKind::Int(_)) => DType::Int64,
        (DType::Bool, ScalarKind::Float) => DType::Float64,
        (d, ScalarKind::Int(v)) if d.is_integer() => {
            let (lo, hi) = (
                d.int_min().unwrap_or(i64::MIN),
                d.int_max().unwrap_or(i64::MAX),
            );
            if v < lo || v > hi {
                return Err(Error::new(
                    ErrorKind::Overflow,
                    format!("Python integer {v} out of bounds for {}", d.name()),
                ));
            }
            d
        }
        (d, ScalarKind::Float) if d.is_integer() => DType::Float64,
        (d, _) => d,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn numpy_table() {
        assert_eq!(promote_types(Int64, Float64).ok(), Some(Float64));
        assert_eq!(promote_types(Int32, Float32).ok(), Some(Float64));
        assert_eq!(promote_types(Int64, Float16).ok(), Some(Float64));
        assert_eq!(promote_types(UInt8, Int8).ok(), Some(Int16));
        assert_eq!(promote_types(Int8, Float16).ok(), Some(Float16));
        assert_eq!(promote_types(Bool, Int8).ok(), Some(Int8));
        assert_eq!(promote_types(Complex64, Float64).ok(), Some(Complex128));
        assert_eq!(promote_types(Complex64, Int32).ok(), Some(Complex128));
        assert_eq!(promote_types(Int16, Complex64).ok(), Some(Complex64));
        assert_eq!(promote_types(Complex64, Float16).ok(), Some(Complex64));
        assert_eq!(
            weak_scalar_type(Float32, ScalarKind::Complex).ok(),
            Some(Complex64)
        );
        assert_eq!(
            weak_scalar_type(Int8, ScalarKind::Complex).ok(),
            Some(Complex128)
        );
        assert_eq!(
            weak_scalar_type(Int32, ScalarKind::Int(1)).ok(),
            Some(Int32)
        );
        assert_eq!(
            weak_scalar_type(Int32, ScalarKind::Float).ok(),
            Some(Float64)
        );
        assert_eq!(
            weak_scalar_type(Float32, ScalarKind::Float).ok(),
            Some(Float32)
        );
        assert_eq!(weak_scalar_type(Bool, ScalarKind::Int(1)).ok(), Some(Int64));
        assert_eq!(
            weak_scalar_type(Int8, ScalarKind::Int(300))
                .unwrap_err()
                .to_string(),
            "Python integer 300 out of bounds for int8"
        );
    }
}
