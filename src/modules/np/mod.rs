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
use crate::runtime::{ops, DType, Device, ReduceOp, Scalar, Semantics, Tensor};
use crate::value::{Args, ExcType, NativeFn, PyErr, PyResult, Value, Vm};
use array::{wrap, wrap_array};

fn array(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_np_tensor(vm, a.get(0), opt_np_dtype(vm, a.get(1))?)?;
    Ok(wrap_array(t))
}

fn asarray(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let dtype = opt_np_dtype(vm, a.get(1))?;
    if let Some(n) = a.get(0).downcast::<NdArray>() {
        if !n.scalar && dtype.is_none_or(|d| d == n.t.borrow().dtype()) {
            return Ok(a.get(0).clone());
        }
    }
    Ok(wrap_array(to_np_tensor(vm, a.get(0), dtype)?))
}

fn dims_of(vm: &dyn Vm, v: &Value) -> PyResult<Vec<usize>> {
    int_list(vm, v)?
        .into_iter()
        .map(|d| {
            usize::try_from(d)
                .map_err(|_| PyErr::new(ExcType::ValueError, "negative dimensions are not allowed"))
        })
        .collect()
}

fn zeros(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = opt_np_dtype(vm, a.get(1))?.unwrap_or(DType::Float64);
    Ok(wrap_array(
        Tensor::zeros(d, &dims_of(vm, a.get(0))?, Device::CPU0).map_err(runtime_err)?,
    ))
}

fn ones(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = opt_np_dtype(vm, a.get(1))?.unwrap_or(DType::Float64);
    Ok(wrap_array(
        Tensor::ones(d, &dims_of(vm, a.get(0))?, Device::CPU0).map_err(runtime_err)?,
    ))
}

fn full(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let v = to_np_tensor(vm, a.get(1), opt_np_dtype(vm, a.get(2))?)?;
    Ok(wrap_array(
        ops::broadcast_to(&v, &dims_of(vm, a.get(0))?).map_err(np_err)?,
    ))
}

fn like(vm: &dyn Vm, a: &Args, one: bool) -> PyResult<Value> {
    let t = to_np_tensor(vm, a.get(0), None)?;
    let d = opt_np_dtype(vm, a.get(1))?.unwrap_or(t.dtype());
    let r = if one {
        Tensor::ones(d, t.dims(), Device::CPU0)
    } else {
        Tensor::zeros(d, t.dims(), Device::CPU0)
    };
    Ok(wrap_array(r.map_err(runtime_err)?))
}

fn zeros_like(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    like(vm, a, false)
}

fn ones_like(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    like(vm, a, true)
}

fn num(vm: &dyn Vm, v: &Value) -> PyResult<(Scalar, bool)> {
    let t = to_np_tensor(vm, v, None)?;
    let s = t.item().map_err(runtime_err)?;
    let is_float = t.dtype().is_floating();
    Ok((s, is_float))
}

fn arange(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (mut start, mut stop) = (a.get(0).clone(), a.get(1).clone());
    if stop.is_none() {
        stop = start;
        start = Value::Int(0);
    }
    let (s, sf) = num(vm, &start)?;
    let (e, ef) = num(vm, &stop)?;
    let (d, df) = num(vm, a.get(2))?;
    let dtype = opt_np_dtype(vm, a.get(3))?.unwrap_or(if sf || ef || df {
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
    Ok(wrap_array(t.map_err(runtime_err)?))
}

fn linspace(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (s, _) = num(vm, a.get(0))?;
    let (e, _) = num(vm, a.get(1))?;
    let n = crate::object::types::int_arg(a.get(2), vm)?;
    if n < 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("Number of samples, {n}, must be non-negative."),
        ));
    }
    let n = n as usize;
    let endpoint = vm.truthy(a.get(3))?;
    let (s, e) = (s.as_f64(), e.as_f64());
    let div = if endpoint { n.saturating_sub(1) } else { n } as f64;
    let step = (e - s) / div;
    let mut vals: Vec<f64> = (0..n)
        .map(|i| if div > 0.0 { s + i as f64 * step } else { s })
        .collect();
    if endpoint && n > 1 {
        vals[n - 1] = e;
    }
    let t = Tensor::from_vec(vals, &[n]).map_err(runtime_err)?;
    let d = opt_np_dtype(vm, a.get(4))?.unwrap_or(DType::Float64);
    Ok(wrap_array(ops::cast(&t, d).map_err(runtime_err)?))
}

macro_rules! reductions {
    ($($name:ident => $op:expr),* $(,)?) => {
        $(fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            let t = to_np_tensor(vm, a.get(0), None)?;
            array::reduce(vm, $op, &t, a.get(1), a.get(2))
        })*
    };
}

reductions! {
    sum => ReduceOp::Sum,
    mean => ReduceOp::Mean,
    max => ReduceOp::Max,
    min => ReduceOp::Min,
    prod => ReduceOp::Prod,
}

fn seq_tensors(vm: &dyn Vm, v: &Value) -> PyResult<Vec<Tensor>> {
    vm.collect(v)?
        .iter()
        .map(|x| to_np_tensor(vm, x, None))
        .collect()
}

fn concatenate(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let ts = promoted(&seq_tensors(vm, a.get(0))?)?;
    let axis = crate::modules::tf::convert::axis_arg(vm, a.get(1))?;
    Ok(wrap_array(ops::concat(&ts, axis).map_err(np_err)?))
}

fn stack(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let ts = seq_tensors(vm, a.get(0))?;
    let axis = crate::modules::tf::convert::axis_arg(vm, a.get(1))?;
    Ok(wrap_array(stack_promoted(&ts, axis)?))
}

fn reshape(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_np_tensor(vm, a.get(0), None)?;
    let dims = int_list(vm, a.get(1))?;
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

fn allclose(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let rtol = a.float(2)?;
    let atol = a.float(3)?;
    let Some((x, y)) = paired(vm, a.get(0), a.get(1))? else {
        return Err(PyErr::new(
            ExcType::ValueError,
            "operands could not be broadcast together",
        ));
    };
    let ok = x.iter().zip(&y).all(|(p, q)| {
        let (p, q) = (p.as_f64(), q.as_f64());
        p == q || (p - q).abs() <= atol + rtol * q.abs()
    });
    Ok(Value::Bool(ok))
}

fn array_equal(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let x = to_np_tensor(vm, a.get(0), None)?;
    let y = to_np_tensor(vm, a.get(1), None)?;
    if x.dims() != y.dims() {
        return Ok(Value::Bool(false));
    }
    let eq = x
        .to_scalars()
        .iter()
        .zip(y.to_scalars())
        .all(|(p, q)| match (p, &q) {
            (Scalar::Bytes(p), Scalar::Bytes(q)) => p == q,
            (p, q) => p.as_f64() == q.as_f64(),
        });
    Ok(Value::Bool(eq))
}

fn float_unary(vm: &dyn Vm, a: &Args, op: crate::runtime::UnaryOp) -> PyResult<Value> {
    let t = to_np_tensor(vm, a.get(0), None)?;
    let t = if t.dtype().is_floating() {
        t
    } else {
        ops::cast(&t, DType::Float64).map_err(runtime_err)?
    };
    Ok(wrap(ops::unary(op, &t).map_err(runtime_err)?))
}

fn sqrt(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    float_unary(vm, a, crate::runtime::UnaryOp::Sqrt)
}

fn exp(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    float_unary(vm, a, crate::runtime::UnaryOp::Exp)
}

fn log(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    float_unary(vm, a, crate::runtime::UnaryOp::Log)
}

fn abs(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_np_tensor(vm, a.get(0), None)?;
    Ok(wrap(
        ops::unary(crate::runtime::UnaryOp::Abs, &t).map_err(runtime_err)?,
    ))
}

fn argmax(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_np_tensor(vm, a.get(0), None)?;
    let (t, axis) = match a.opt(1) {
        None => (
            ops::reshape(&t, &[-1], Semantics::Numpy).map_err(runtime_err)?,
            0,
        ),
        Some(v) => (t, crate::modules::tf::convert::axis_arg(vm, v)?),
    };
    Ok(wrap(
        ops::arg_reduce(crate::runtime::ArgOp::ArgMax, &t, axis, Semantics::Numpy)
            .map_err(runtime_err)?,
    ))
}

type Entry = (&'static str, NativeFn, &'static str);

const FUNCTIONS: &[Entry] = &[
    (
        "array(object, dtype=None, copy=True)",
        array,
        "A new array from nested sequences: `np.array([1, 2])`.",
    ),
    (
        "asarray(a, dtype=None)",
        asarray,
        "`a` as an array (arrays pass through).",
    ),
    (
        "arange(start, stop=None, step=1, dtype=None)",
        arange,
        "Evenly spaced values in `[start, stop)`.",
    ),
    (
        "linspace(start, stop, num=50, endpoint=True, dtype=None)",
        linspace,
        "`num` evenly spaced values from `start` to `stop`.",
    ),
    (
        "zeros(shape, dtype=None)",
        zeros,
        "An array of zeros (float64 by default).",
    ),
    (
        "ones(shape, dtype=None)",
        ones,
        "An array of ones (float64 by default).",
    ),
    (
        "full(shape, fill_value, dtype=None)",
        full,
        "An array of `shape` filled with `fill_value`.",
    ),
    (
        "zeros_like(a, dtype=None)",
        zeros_like,
        "Zeros shaped like `a`.",
    ),
    (
        "ones_like(a, dtype=None)",
        ones_like,
        "Ones shaped like `a`.",
    ),
    ("sum(a, axis=None, keepdims=False)", sum, "Sum over axes."),
    (
        "mean(a, axis=None, keepdims=False)",
        mean,
        "Mean over axes.",
    ),
    (
        "max(a, axis=None, keepdims=False)",
        max,
        "Maximum over axes.",
    ),
    (
        "min(a, axis=None, keepdims=False)",
        min,
        "Minimum over axes.",
    ),
    (
        "prod(a, axis=None, keepdims=False)",
        prod,
        "Product over axes.",
    ),
    (
        "concatenate(arrays, axis=0)",
        concatenate,
        "Joins arrays along an existing axis.",
    ),
    (
        "stack(arrays, axis=0)",
        stack,
        "Joins arrays along a new axis.",
    ),
    (
        "reshape(a, newshape)",
        reshape,
        "The same elements in a new shape.",
    ),
    (
        "allclose(a, b, rtol=1e-05, atol=1e-08)",
        allclose,
        "True when all elements are equal within a tolerance.",
    ),
    (
        "array_equal(a1, a2)",
        array_equal,
        "True when shapes and elements are equal.",
    ),
    ("sqrt(x)", sqrt, "Square root, element-wise."),
    ("exp(x)", exp, "`e ** x`, element-wise."),
    ("log(x)", log, "Natural logarithm, element-wise."),
    ("abs(x)", abs, "Absolute value, element-wise."),
    (
        "argmax(a, axis=None)",
        argmax,
        "Index of the largest value (of the flattened array by default).",
    ),
];

/// Builds the `numpy` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("numpy");
    for &(sig, f, doc) in FUNCTIONS {
        m.function(sig, f, doc);
    }
    m.function(
        "dtype(dtype)",
        dtype::dtype_new,
        "A dtype object: `np.dtype('float32')`.",
    );
    for d in crate::runtime::dtype::ALL_DTYPES {
        if d != DType::String {
            m.value(d.name(), Value::Class(scalar_class(d)));
        }
    }
    m.value("bool_", Value::Class(scalar_class(DType::Bool)));
    m.value("bytes_", Value::Class(scalar_class(DType::String)));
    m.value("ndarray", Value::Class(array::ndarray_class()));
    m.value("newaxis", Value::None);
    m.value("pi", Value::Float(std::f64::consts::PI));
    m.value("e", Value::Float(std::f64::consts::E));
    m.value("inf", Value::Float(f64::INFINITY));
    m.value("nan", Value::Float(f64::NAN));
    m.value("__version__", Value::str("2.1.3"));
    m.build()
}
