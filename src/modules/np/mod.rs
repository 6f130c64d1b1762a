//! The `numpy` module, the part TensorFlow users touch: array creation,
//! scalar types and dtypes, reductions, joining, comparisons of whole
//! arrays. Arrays are [`NdArray`]s over runtime tensors; the work is in
//! `runtime` (numpy semantics: `np_binary`, `np_reduce`, promotion).

pub use crate::object::numpy::{
    array, dtype, from_tensor, make, scalar_class, to_np_tensor, NdArray, NpDType,
};
use crate::object::numpy::{np_err, opt_np_dtype, promoted, stack_promoted};

use crate::modules::tf::convert::{int_list, runtime_err};
use crate::modules::ModuleBuilder;
use crate::object::numpy::{self, alloc_error, dims_of, seq_tensors};
use crate::object::{native, NativeDef};
use crate::runtime::ops::complex::ComplexOp;
use crate::runtime::{ops, BinaryOp, DType, Device, ReduceOp, Scalar, Semantics, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};
use array::{wrap, wrap_array};

mod errstate;
pub mod random;
mod random_draw;
mod random_gen;
mod random_seq;

/// A new array from nested sequences: `np.array([1, 2])`.
#[native("array(object, dtype=None, copy=True)")]
fn array_(vm: &dyn Vm, object: &Value, dtype: &Value, _copy: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, object, opt_np_dtype(vm, dtype)?)?;
    Ok(wrap_array(t))
}

/// `a` as an array (arrays pass through).
#[native("asarray(a, dtype=None)")]
fn asarray(vm: &dyn Vm, a: &Value, dtype: &Value) -> PyResult<Value> {
    let dtype = opt_np_dtype(vm, dtype)?;
    if let Some(n) = a.downcast::<NdArray>() {
        if !n.scalar && dtype.is_none_or(|d| d == n.t.borrow().dtype()) {
            return Ok(a.clone());
        }
    }
    Ok(wrap_array(to_np_tensor(vm, a, dtype)?))
}

/// An array of zeros (float64 by default).
#[native("zeros(shape, dtype=None)")]
fn zeros(vm: &dyn Vm, shape: &Value, dtype: &Value) -> PyResult<Value> {
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(DType::Float64);
    let dims = dims_of(vm, shape)?;
    Ok(wrap_array(
        Tensor::zeros(d, &dims, Device::CPU0).map_err(|e| alloc_error(e, &dims, d))?,
    ))
}

/// An array of ones (float64 by default).
#[native("ones(shape, dtype=None)")]
fn ones(vm: &dyn Vm, shape: &Value, dtype: &Value) -> PyResult<Value> {
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(DType::Float64);
    let dims = dims_of(vm, shape)?;
    Ok(wrap_array(
        Tensor::ones(d, &dims, Device::CPU0).map_err(|e| alloc_error(e, &dims, d))?,
    ))
}

/// An array of `shape` filled with `fill_value`.
#[native("full(shape, fill_value, dtype=None)")]
fn full(vm: &dyn Vm, shape: &Value, fill_value: &Value, dtype: &Value) -> PyResult<Value> {
    let v = to_np_tensor(vm, fill_value, opt_np_dtype(vm, dtype)?)?;
    let dims = dims_of(vm, shape)?;
    let d = v.dtype();
    Ok(wrap_array(ops::broadcast_to(&v, &dims).map_err(|e| {
        if e.kind() == crate::runtime::ErrorKind::ResourceExhausted {
            alloc_error(e, &dims, d)
        } else {
            np_err(e)
        }
    })?))
}

fn like(vm: &dyn Vm, a: &Value, dtype: &Value, one: bool) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(t.dtype());
    let r = if one {
        Tensor::ones(d, t.dims(), Device::CPU0)
    } else {
        Tensor::zeros(d, t.dims(), Device::CPU0)
    };
    Ok(wrap_array(r.map_err(|e| alloc_error(e, t.dims(), d))?))
}

/// Zeros shaped like `a`.
#[native("zeros_like(a, dtype=None)")]
fn zeros_like(vm: &dyn Vm, a: &Value, dtype: &Value) -> PyResult<Value> {
    like(vm, a, dtype, false)
}

/// Ones shaped like `a`.
#[native("ones_like(a, dtype=None)")]
fn ones_like(vm: &dyn Vm, a: &Value, dtype: &Value) -> PyResult<Value> {
    like(vm, a, dtype, true)
}

fn scalar_arg(vm: &dyn Vm, v: &Value) -> PyResult<(Scalar, bool)> {
    let t = to_np_tensor(vm, v, None)?;
    let s = t.item().map_err(runtime_err)?;
    let is_float = t.dtype().is_floating();
    Ok((s, is_float))
}

/// Evenly spaced values in `[start, stop)`.
#[native("arange(start, stop=None, step=1, dtype=None)")]
fn arange(
    vm: &dyn Vm,
    start: &Value,
    stop: &Value,
    step: &Value,
    dtype: &Value,
) -> PyResult<Value> {
    let zero = Value::Int(0);
    let (start, stop) = match stop {
        Value::None => (&zero, start),
        _ => (start, stop),
    };
    let (s, sf) = scalar_arg(vm, start)?;
    let (e, ef) = scalar_arg(vm, stop)?;
    let (d, df) = scalar_arg(vm, step)?;
    let dtype = opt_np_dtype(vm, dtype)?.unwrap_or(if sf || ef || df {
        DType::Float64
    } else {
        DType::Int64
    });
    if d.as_f64() == 0.0 {
        return Err(PyErr::new(ExcType::ZeroDivisionError, "division by zero"));
    }
    // numpy gives an empty array where TensorFlow's range raises
    let empty = (d.as_f64() > 0.0 && s.as_f64() >= e.as_f64())
        || (d.as_f64() < 0.0 && s.as_f64() <= e.as_f64());
    let t = if empty {
        Tensor::zeros(dtype, &[0], Device::CPU0)
    } else {
        ops::range(&s, &e, &d, dtype, Device::CPU0)
    };
    Ok(wrap_array(t.map_err(|err| {
        // numpy's length: ceil((stop - start) / step), in doubles.
        let len = ((e.as_f64() - s.as_f64()) / d.as_f64()).ceil();
        alloc_error(err, &[len as usize], dtype)
    })?))
}

/// `num` evenly spaced values from `start` to `stop`.
#[native("linspace(start, stop, num=50, endpoint=True, dtype=None)")]
fn linspace(
    vm: &dyn Vm,
    start: &Value,
    stop: &Value,
    num: &Value,
    endpoint: &Value,
    dtype: &Value,
) -> PyResult<Value> {
    let (s, _) = scalar_arg(vm, start)?;
    let (e, _) = scalar_arg(vm, stop)?;
    let n = crate::object::types::int_arg(num, vm)?;
    if n < 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("Number of samples, {n}, must be non-negative."),
        ));
    }
    let n = n as usize;
    let endpoint = vm.truthy(endpoint)?;
    let (s, e) = (s.as_f64(), e.as_f64());
    let div = if endpoint { n.saturating_sub(1) } else { n } as f64;
    let step = (e - s) / div;
    let mut vals: Vec<f64> = crate::runtime::Shape::new(&[n])
        .checked_numel()
        .and_then(crate::runtime::storage::try_vec)
        .map_err(|err| alloc_error(err, &[n], DType::Float64))?;
    vals.extend((0..n).map(|i| if div > 0.0 { s + i as f64 * step } else { s }));
    if endpoint && n > 1 {
        vals[n - 1] = e;
    }
    let t = Tensor::from_vec(vals, &[n]).map_err(runtime_err)?;
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(DType::Float64);
    Ok(wrap_array(ops::cast(&t, d).map_err(runtime_err)?))
}

/// Functions `f(a, axis=None, keepdims=False)` running one reduction.
macro_rules! reductions {
    ($($(#[$doc:meta])* $name:ident $sig:literal => $op:expr;)*) => {$(
        $(#[$doc])*
        #[native($sig)]
        fn $name(vm: &dyn Vm, a: &Value, axis: &Value, keepdims: &Value) -> PyResult<Value> {
            let t = to_np_tensor(vm, a, None)?;
            array::reduce(vm, $op, &t, axis, keepdims)
        }
    )*};
}

reductions! {
    /// Sum over axes.
    sum "sum(a, axis=None, keepdims=False)" => ReduceOp::Sum;
    /// Mean over axes.
    mean "mean(a, axis=None, keepdims=False)" => ReduceOp::Mean;
    /// Maximum over axes.
    max "max(a, axis=None, keepdims=False)" => ReduceOp::Max;
    /// Minimum over axes.
    min "min(a, axis=None, keepdims=False)" => ReduceOp::Min;
    /// Product over axes.
    prod "prod(a, axis=None, keepdims=False)" => ReduceOp::Prod;
}

/// The variance over axes (numpy's two-pass algorithm).
#[native("var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False)")]
fn var(
    vm: &dyn Vm,
    a: &Value,
    axis: &Value,
    dtype: &Value,
    out: &Value,
    ddof: &Value,
    keepdims: &Value,
) -> PyResult<Value> {
    numpy::methods::var_or_std(vm, a, axis, dtype, out, ddof, keepdims, false)
}

/// The standard deviation over axes: the square root of `var`.
#[native("std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False)")]
fn std_(
    vm: &dyn Vm,
    a: &Value,
    axis: &Value,
    dtype: &Value,
    out: &Value,
    ddof: &Value,
    keepdims: &Value,
) -> PyResult<Value> {
    numpy::methods::var_or_std(vm, a, axis, dtype, out, ddof, keepdims, true)
}

/// The dimensions of `a` as an array, a tuple.
#[native("shape(a)")]
fn shape(vm: &dyn Vm, a: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    Ok(Value::tuple(
        t.dims().iter().map(|&d| Value::Int(d as i64)).collect(),
    ))
}

/// The number of dimensions of `a` as an array.
#[native("ndim(a)")]
fn ndim(vm: &dyn Vm, a: &Value) -> PyResult<usize> {
    Ok(to_np_tensor(vm, a, None)?.rank())
}

/// numpy's `isscalar`: Python's numbers, strings and bytes and numpy's
/// scalars, not 0-d arrays.
#[native("isscalar(element)")]
fn isscalar(element: &Value) -> bool {
    match element {
        Value::Int(_)
        | Value::Long(_)
        | Value::Float(_)
        | Value::Bool(_)
        | Value::Str(_)
        | Value::Bytes(_) => true,
        other => other.downcast::<NdArray>().is_some_and(|a| a.scalar),
    }
}

/// Joins arrays along an existing axis.
#[native("concatenate(arrays, axis=0)")]
fn concatenate(vm: &dyn Vm, arrays: &Value, axis: &Value) -> PyResult<Value> {
    let ts = promoted(&seq_tensors(vm, arrays)?)?;
    let axis = crate::modules::tf::convert::axis_arg(vm, axis)?;
    Ok(wrap_array(ops::concat(&ts, axis).map_err(np_err)?))
}

/// Joins arrays along a new axis.
#[native("stack(arrays, axis=0)")]
fn stack(vm: &dyn Vm, arrays: &Value, axis: &Value) -> PyResult<Value> {
    let ts = seq_tensors(vm, arrays)?;
    let axis = crate::modules::tf::convert::axis_arg(vm, axis)?;
    Ok(wrap_array(stack_promoted(&ts, axis)?))
}

/// The same elements in a new shape.
#[native("reshape(a, newshape)")]
fn reshape(vm: &dyn Vm, a: &Value, newshape: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    let dims = int_list(vm, newshape)?;
    Ok(wrap_array(
        ops::reshape(&t, &dims, Semantics::Numpy).map_err(runtime_err)?,
    ))
}

/// Both operands as float64 host values broadcast to one shape (None if they do not broadcast).
fn paired(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Option<(Vec<Scalar>, Vec<Scalar>)>> {
    let a = to_np_tensor(vm, x, None)?;
    let b = to_np_tensor(vm, y, None)?;
    let Some(shape) = a.shape().broadcast(b.shape()) else {
        return Ok(None);
    };
    let a = ops::broadcast_to(&a, shape.dims()).map_err(runtime_err)?;
    let b = ops::broadcast_to(&b, shape.dims()).map_err(runtime_err)?;
    Ok(Some((a.to_scalars(), b.to_scalars())))
}

/// True when all elements are equal within a tolerance.
#[native("allclose(a, b, rtol=1e-05, atol=1e-08)")]
fn allclose(vm: &dyn Vm, a: &Value, b: &Value, rtol: f64, atol: f64) -> PyResult<bool> {
    let Some((x, y)) = paired(vm, a, b)? else {
        return Err(PyErr::new(
            ExcType::ValueError,
            "operands could not be broadcast together",
        ));
    };
    // numpy's `|a - b| <= atol + rtol * |b|`, with complex magnitudes
    Ok(x.iter().zip(&y).all(|(p, q)| {
        let ((pr, pi), (qr, qi)) = (p.as_complex(), q.as_complex());
        (pr == qr && pi == qi) || (pr - qr).hypot(pi - qi) <= atol + rtol * qr.hypot(qi)
    }))
}

/// True when shapes and elements are equal.
#[native("array_equal(a1, a2)")]
fn array_equal(vm: &dyn Vm, a1: &Value, a2: &Value) -> PyResult<bool> {
    let x = to_np_tensor(vm, a1, None)?;
    let y = to_np_tensor(vm, a2, None)?;
    if x.dims() != y.dims() {
        return Ok(false);
    }
    Ok(x.to_scalars()
        .iter()
        .zip(y.to_scalars())
        .all(|(p, q)| match (p, &q) {
            (Scalar::Bytes(p), Scalar::Bytes(q)) => p == q,
            (p, q) => p.as_complex() == q.as_complex(),
        }))
}

/// An uninitialised array (dist's holds zeros).
#[native("empty(shape, dtype=None)")]
fn empty(vm: &dyn Vm, shape: &Value, dtype: &Value) -> PyResult<Value> {
    let d = opt_np_dtype(vm, dtype)?.unwrap_or(DType::Float64);
    let dims = dims_of(vm, shape)?;
    Ok(wrap_array(
        Tensor::zeros(d, &dims, Device::CPU0).map_err(|e| alloc_error(e, &dims, d))?,
    ))
}

/// The real parts of `val`'s elements.
#[native("real(val)")]
fn real(vm: &dyn Vm, val: &Value) -> PyResult<Value> {
    complex_part(vm, val, ComplexOp::Real)
}

/// The imaginary parts of `val`'s elements (zeros for real ones).
#[native("imag(val)")]
fn imag(vm: &dyn Vm, val: &Value) -> PyResult<Value> {
    complex_part(vm, val, ComplexOp::Imag)
}

/// The complex conjugates, element-wise.
#[native("conjugate(x)")]
fn conjugate(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    complex_part(vm, x, ComplexOp::Conj)
}

/// The complex conjugates, element-wise (`np.conjugate`).
#[native("conj(x)")]
fn conj(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    complex_part(vm, x, ComplexOp::Conj)
}

/// The argument of each element, in radians (`deg=True`: degrees).
#[native("angle(z, deg=False)")]
fn angle(vm: &dyn Vm, z: &Value, deg: bool) -> PyResult<Value> {
    let t = to_np_tensor(vm, z, None)?;
    let t = match t.dtype() {
        d if d.is_complex() => t,
        _ => ops::cast(&t, DType::Complex128).map_err(runtime_err)?,
    };
    let mut a = ops::complex::part(ComplexOp::Angle, &t).map_err(runtime_err)?;
    if deg {
        let k = Tensor::fill(
            &[],
            &Scalar::Float(180.0 / std::f64::consts::PI),
            a.dtype(),
            a.device(),
        )
        .map_err(runtime_err)?;
        a = ops::np_binary(BinaryOp::Mul, &a, &k).map_err(runtime_err)?;
    }
    Ok(wrap(a))
}

fn complex_part(vm: &dyn Vm, x: &Value, op: ComplexOp) -> PyResult<Value> {
    let t = to_np_tensor(vm, x, None)?;
    Ok(wrap(array::complex_part(t, op)?))
}

/// Whether each element is finite (neither infinite nor NaN); integers and
/// bools always are.
#[native("isfinite(x)")]
fn isfinite(vm: &dyn Vm, x: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, x, None)?;
    let d = t.dtype();
    if !d.is_floating() {
        let ones = Tensor::fill(t.dims(), &Scalar::Bool(true), DType::Bool, Device::CPU0)
            .map_err(runtime_err)?;
        return Ok(wrap(ones));
    }
    // x - x is exactly 0 for a finite x, NaN for an infinity or a NaN
    let zero = Tensor::fill(&[], &Scalar::Float(0.0), d, Device::CPU0).map_err(runtime_err)?;
    let diff = ops::np_binary(BinaryOp::Sub, &t, &t).map_err(runtime_err)?;
    Ok(wrap(
        ops::np_binary(BinaryOp::Equal, &diff, &zero).map_err(runtime_err)?,
    ))
}

/// Index of the largest value (of the flattened array by default).
#[native("argmax(a, axis=None)")]
fn argmax(vm: &dyn Vm, a: &Value, axis: &Value) -> PyResult<Value> {
    let t = to_np_tensor(vm, a, None)?;
    numpy::search::arg_reduce(vm, crate::runtime::ArgOp::ArgMax, &t, axis)
}

/// A dtype object: `np.dtype('float32')`.
#[native("dtype(dtype)")]
fn dtype_(vm: &dyn Vm, dtype: &Value) -> PyResult<Value> {
    Ok(Value::native(NpDType(dtype::np_dtype_arg(vm, dtype)?)))
}

/// The module's functions, in registration order.
const FUNCTIONS: &[NativeDef] = &[
    array_::DEF,
    asarray::DEF,
    arange::DEF,
    linspace::DEF,
    zeros::DEF,
    ones::DEF,
    full::DEF,
    zeros_like::DEF,
    empty::DEF,
    ones_like::DEF,
    sum::DEF,
    mean::DEF,
    var::DEF,
    std_::DEF,
    shape::DEF,
    ndim::DEF,
    isscalar::DEF,
    max::DEF,
    min::DEF,
    prod::DEF,
    concatenate::DEF,
    stack::DEF,
    reshape::DEF,
    allclose::DEF,
    array_equal::DEF,
    argmax::DEF,
    isfinite::DEF,
    dtype_::DEF,
    real::DEF,
    imag::DEF,
    conjugate::DEF,
    conj::DEF,
    angle::DEF,
];

/// Builds the `numpy` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("numpy");
    for &def in FUNCTIONS
        .iter()
        .chain(numpy::manip::FUNCTIONS)
        .chain(numpy::search::FUNCTIONS)
        .chain(numpy::ufunc::UNARY)
        .chain(numpy::ufunc::BINARY)
    {
        m.add(def);
    }
    m.add(errstate::seterr::DEF).add(errstate::geterr::DEF);
    for d in crate::runtime::dtype::ALL_DTYPES {
        if d != DType::String {
            m.value(d.name(), Value::Class(scalar_class(d)));
        }
    }
    m.value("bool_", Value::Class(scalar_class(DType::Bool)));
    m.value("bytes_", Value::Class(scalar_class(DType::String)));
    m.value("csingle", Value::Class(scalar_class(DType::Complex64)));
    m.value("cdouble", Value::Class(scalar_class(DType::Complex128)));
    m.value("ndarray", Value::Class(array::NDARRAY.class()));
    m.value("newaxis", Value::None);
    m.value("pi", Value::Float(std::f64::consts::PI));
    m.value("e", Value::Float(std::f64::consts::E));
    m.value("inf", Value::Float(f64::INFINITY));
    m.value("nan", Value::Float(f64::NAN));
    m.value("__version__", Value::str("2.1.3"));
    m.namespace("random", random::register);
    m.namespace("exceptions", |ns| {
        ns.value("AxisError", Value::Class(ExcType::AxisError.class()));
    });
    m.build()
}

#[cfg(test)]
mod alloc_tests {
    use crate::object::numpy::size_to_string;

    /// The sizes numpy 2 printed (the oracle's venv) for arrays it could
    /// not allocate.
    #[test]
    fn sizes_as_numpy_writes_them() {
        let cases: [(u128, &str); 8] = [
            (8 * 10u128.pow(12), "7.28 TiB"),
            (10u128.pow(12), "931. GiB"),
            (4 * 10u128.pow(12), "3.64 TiB"),
            (10u128.pow(13), "9.09 TiB"),
            (8 * 10u128.pow(13), "72.8 TiB"),
            (24 * 10u128.pow(12), "21.8 TiB"),
            (1u128 << 41, "2.00 TiB"),
            (1u128 << 61, "2.00 EiB"),
        ];
        for (bytes, want) in cases {
            assert_eq!(size_to_string(bytes), want, "{bytes}");
        }
        assert_eq!(size_to_string(1000), "1000 bytes");
        assert_eq!(size_to_string(1023 * 1024 + 1000), "1.00 MiB");
    }
}
