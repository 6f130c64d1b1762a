//! Conversions between language values and tensors, with TensorFlow's rules
//! (Python int → int32, float → float32, bool → bool, str → string; nested
//! lists must be rectangular), and runtime errors → Python exceptions.

use crate::runtime::{self, tensor_from_literal, DType, InferMode, Literal, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Maps a runtime error to the Python exception TensorFlow raises.
#[cold]
pub fn runtime_err(e: runtime::Error) -> PyErr {
    let ty = match e.kind() {
        runtime::ErrorKind::InvalidArgument => ExcType::InvalidArgumentError,
        runtime::ErrorKind::ResourceExhausted => ExcType::ResourceExhaustedError,
        runtime::ErrorKind::Unimplemented => ExcType::UnimplementedError,
        runtime::ErrorKind::Type => ExcType::TypeError,
        runtime::ErrorKind::Value | runtime::ErrorKind::Axis => ExcType::ValueError,
        runtime::ErrorKind::Index => ExcType::IndexError,
        runtime::ErrorKind::Overflow => ExcType::OverflowError,
        runtime::ErrorKind::Internal => ExcType::RuntimeError,
    };
    PyErr::new(ty, e.message())
}

/// A Python value as a runtime literal (None when it is not one).
pub fn literal_of(v: &Value) -> Option<Literal> {
    Some(match v {
        Value::Bool(b) => Literal::Bool(*b),
        Value::Int(i) => Literal::Int(*i),
        Value::Float(f) => Literal::Float(*f),
        Value::Str(s) => Literal::Str(s.to_string()),
        Value::Bytes(b) => Literal::Bytes(b.to_vec()),
        Value::List(l) => Literal::List(
            l.borrow()
                .iter()
                .map(literal_of)
                .collect::<Option<Vec<_>>>()?,
        ),
        Value::Tuple(t) => Literal::Tuple(t.iter().map(literal_of).collect::<Option<Vec<_>>>()?),
        _ => return None,
    })
}

/// `tf.convert_to_tensor(v, dtype)`: tensors pass through (a dtype mismatch
/// is TensorFlow's ValueError); Python values convert on the current device.
pub fn to_tensor(vm: &dyn Vm, v: &Value, dtype: Option<DType>) -> PyResult<Tensor> {
    if let Value::Tensor(t) = v {
        if let Some(d) = dtype {
            if d != t.dtype() {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!(
                        "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
                        d.name(),
                        t.dtype().name(),
                        runtime::format::tf_repr(t)
                    ),
                ));
            }
        }
        return Ok(t.clone());
    }
    if let Value::Native(n) = v {
        if let Some(t) = n.to_tensor(vm)? {
            return match dtype {
                Some(d) if d != t.dtype() => to_tensor(vm, &Value::Tensor(t), Some(d)),
                _ => Ok(t),
            };
        }
    }
    let Some(lit) = literal_of(v) else {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Attempt to convert a value ({}) with an unsupported type ({}) to a Tensor.",
                vm.repr(v)?,
                v.type_name()
            ),
        ));
    };
    let device = crate::distribute::current_device(vm);
    tensor_from_literal(&lit, dtype, InferMode::Tf, device).map_err(runtime_err)
}
