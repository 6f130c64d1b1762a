//! numpy's array type as dist has it: [`NdArray`] over a runtime tensor in
//! host memory, numpy's scalar types and dtypes ([`NpDType`]), and the
//! conversions between Python values, tensors and arrays. The `numpy`
//! module's functions are in `modules::np`.

pub mod array;
pub mod dtype;
pub mod fperr;
pub mod manip;
pub mod methods;
pub mod search;
pub mod ufunc;

pub use array::NdArray;
pub use dtype::{scalar_class, NpDType};

use crate::object::tensor::convert::int_list;
use crate::object::tensor::convert::{literal_of, runtime_err};
use crate::object::types::{type_error, value_error};
use crate::runtime::{ops, tensor_from_literal, DType, Device, InferMode, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};
use array::wrap;
use dtype::np_dtype_arg;

/// `tensor.numpy()`: a numpy array in host memory (a scalar for 0-d).
pub fn from_tensor(t: &Tensor) -> PyResult<Value> {
    let host = t.to_device(Device::CPU0).map_err(runtime_err)?;
    // a new handle on the same buffer: the array is a value the gradient
    // tapes do not follow (`tf.constant(t.numpy())` has no gradient)
    Ok(wrap(crate::runtime::autodiff::tape::detached(&host)))
}

pub fn opt_np_dtype(vm: &dyn Vm, v: &Value) -> PyResult<Option<DType>> {
    match v {
        Value::None => Ok(None),
        v => np_dtype_arg(vm, v).map(Some),
    }
}

/// A value as a tensor under numpy's rules (`np.asarray`): arrays and
/// tensors keep their dtype, Python values infer int64/float64; `dtype` casts.
pub fn to_np_tensor(vm: &dyn Vm, v: &Value, dtype: Option<DType>) -> PyResult<Tensor> {
    // Ints past 64 bits: floats under a float dtype; numpy's object arrays
    // otherwise, which dist does not have.
    let floated = crate::object::tensor::convert::long_ints(v, dtype, "").map_err(|e| {
        if e.is(crate::value::ExcType::MemoryError) {
            return e;
        }
        if dtype.is_some_and(|d| !d.is_floating()) {
            // Into an int dtype given (`np.int64(2**70)`): numpy's words.
            return PyErr::new(
                crate::value::ExcType::OverflowError,
                "Python int too large to convert to C long",
            );
        }
        PyErr::new(
            crate::value::ExcType::NotImplementedError,
            "numpy arrays of ints past 64 bits (dtype=object) are not supported in dist",
        )
    })?;
    let v = floated.as_ref().unwrap_or(v);
    let t = match v {
        Value::Tensor(t) => t.to_device(Device::CPU0).map_err(runtime_err)?,
        // (a Python complex number is a literal, below)
        Value::Native(n)
            if v.downcast::<crate::object::types::complex::Complex>()
                .is_none() =>
        {
            match n.to_tensor(vm)? {
                Some(t) => t.to_device(Device::CPU0).map_err(runtime_err)?,
                None => return Err(unsupported(vm, v)),
            }
        }
        other => match literal_of(other)? {
            Some(lit) => {
                return tensor_from_literal(&lit, dtype, InferMode::Numpy, Device::CPU0)
                    .map_err(runtime_err)
            }
            None => match other {
                // a sequence holding arrays or tensors: convert each and stack
                Value::List(_) | Value::Tuple(_) => {
                    let parts = vm
                        .collect(other)?
                        .iter()
                        .map(|x| to_np_tensor(vm, x, None))
                        .collect::<PyResult<Vec<_>>>()?;
                    stack_promoted(&parts, 0)?
                }
                // numpy's `__array__` protocol
                Value::Instance(_) if vm.getattr(other, "__array__").is_ok() => {
                    let method = vm.getattr(other, "__array__")?;
                    let arr = vm.call(&method, Vec::new(), Vec::new())?;
                    if matches!(arr, Value::Instance(_)) {
                        return Err(type_error("__array__ must return an array"));
                    }
                    return to_np_tensor(vm, &arr, dtype);
                }
                // an object with `__len__` and `__getitem__` is a sequence
                // to numpy (a protobuf repeated field, a user's container)
                Value::Instance(_)
                    if vm.getattr(other, "__len__").is_ok()
                        && vm.getattr(other, "__getitem__").is_ok() =>
                {
                    let items = Value::list(vm.collect(other)?);
                    return to_np_tensor(vm, &items, dtype);
                }
                _ => return Err(unsupported(vm, v)),
            },
        },
    };
    match dtype {
        Some(d) if d != t.dtype() => ops::cast(&t, d).map_err(runtime_err),
        _ => Ok(t),
    }
}

#[cold]
pub fn unsupported(_vm: &dyn Vm, v: &Value) -> PyErr {
    type_error(format!(
        "float() argument must be a string or a real number, not '{}'",
        v.type_name()
    ))
}

/// The common dtype of `ts` and each of them cast to it.
pub fn promoted(ts: &[Tensor]) -> PyResult<Vec<Tensor>> {
    let Some(first) = ts.first() else {
        return Ok(Vec::new());
    };
    let mut d = first.dtype();
    for t in ts {
        d = ops::promote_types(d, t.dtype()).map_err(runtime_err)?;
    }
    ts.iter()
        .map(|t| ops::cast(t, d).map_err(runtime_err))
        .collect()
}

pub fn stack_promoted(ts: &[Tensor], axis: i64) -> PyResult<Tensor> {
    ops::stack(&promoted(ts)?, axis).map_err(np_err)
}

pub fn np_err(e: crate::runtime::Error) -> PyErr {
    match e.kind() {
        crate::runtime::ErrorKind::InvalidArgument => value_error(e.message()),
        _ => runtime_err(e),
    }
}

/// A numpy value of `v` in `dtype` (scalar type constructors).
pub fn make(vm: &dyn Vm, v: &Value, dtype: Option<DType>) -> PyResult<Value> {
    let t = to_np_tensor(vm, v, dtype)?;
    Ok(wrap(t))
}

/// The dimensions of a shape argument (an int or a sequence of them).
pub fn dims_of(vm: &dyn Vm, v: &Value) -> PyResult<Vec<usize>> {
    // A dimension past `intp` (a big int of either sign): numpy's words.
    let items: &[Value] = match v {
        Value::Tuple(items) => items,
        other => std::slice::from_ref(other),
    };
    let list = match v {
        Value::List(l) => Some(l.borrow().iter().any(|x| matches!(x, Value::Long(_)))),
        _ => None,
    };
    if list.unwrap_or_else(|| items.iter().any(|x| matches!(x, Value::Long(_)))) {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Maximum allowed dimension exceeded",
        ));
    }
    int_list(vm, v)?
        .into_iter()
        .map(|d| {
            usize::try_from(d)
                .map_err(|_| PyErr::new(ExcType::ValueError, "negative dimensions are not allowed"))
        })
        .collect()
}

/// Each element of a sequence as an array.
pub fn seq_tensors(vm: &dyn Vm, v: &Value) -> PyResult<Vec<Tensor>> {
    vm.collect(v)?
        .iter()
        .map(|x| to_np_tensor(vm, x, None))
        .collect()
}

/// numpy's `_size_to_string`: a byte count in binary units, three
/// significant digits (`7.28 TiB`, `931. GiB`, `2.00 EiB`).
pub fn size_to_string(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let bit_length = 128 - bytes.leading_zeros() as usize;
    let mut unit = bit_length.saturating_sub(1).max(1) / 10;
    let mut n = bytes as f64 / (1u128 << (unit * 10).min(127)) as f64;
    if n.round() == 1024.0 {
        unit += 1;
        n /= 1024.0;
    }
    if unit >= UNITS.len() {
        n *= (1u128 << ((unit - (UNITS.len() - 1)) * 10)) as f64;
        unit = UNITS.len() - 1;
    }
    let name = UNITS[unit];
    if unit == 0 {
        return format!("{n:.0} {name}");
    }
    if n.round() < 1000.0 {
        // '{:#.3g}': three significant digits, the point always shown.
        let sci = format!("{n:.2e}");
        let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
        let exp: usize = exp.parse().unwrap_or(0);
        let (int, frac) = digits.split_at((exp + 1).min(digits.len()));
        return format!("{int}.{frac} {name}");
    }
    format!("{n:.0}. {name}")
}

/// The error numpy raises for an array of `dims` and `d` it cannot
/// allocate: `_ArrayMemoryError` (a MemoryError) naming its size, or the
/// ValueError for a byte count past the largest `intp`; other runtime
/// errors as they are.
pub fn alloc_error(e: crate::runtime::Error, dims: &[usize], d: DType) -> PyErr {
    if e.kind() != crate::runtime::ErrorKind::ResourceExhausted {
        return crate::object::tensor::convert::runtime_err(e);
    }
    let bytes = dims
        .iter()
        .try_fold(d.size() as u128, |a, &x| a.checked_mul(x as u128))
        .filter(|&b| b <= i64::MAX as u128);
    let Some(bytes) = bytes else {
        return PyErr::new(
            ExcType::ValueError,
            "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.",
        );
    };
    let shape = match dims {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    PyErr::new(
        ExcType::ArrayMemoryError,
        format!(
            "Unable to allocate {} for an array with shape {shape} and data type {}",
            size_to_string(bytes),
            d.numpy_name()
        ),
    )
}
