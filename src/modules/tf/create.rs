//! Tensor creation: `tf.constant`, `convert_to_tensor`, `range`, `zeros`,
//! `ones`, `fill`, `zeros_like`, `ones_like`, `identity`.

use super::convert::{
    dtype_arg, first_tensor_dtype, int_list, opt_dtype, runtime_err, to_tensor, tv,
};
use crate::modules::ModuleBuilder;
use crate::runtime::{self, ops, DType, Scalar, Semantics, Tensor};
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

fn dims_arg(vm: &dyn Vm, v: &Value) -> PyResult<Vec<usize>> {
    let dims = int_list(vm, v)?;
    dims.iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                PyErr::new(
                    ExcType::InvalidArgumentError,
                    format!("Dimension {d} must be >= 0"),
                )
            })
        })
        .collect()
}

fn constant(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let value = a.get(0);
    let dtype = opt_dtype(vm, a.get(1))?;
    let t = match (value, dtype) {
        (Value::Tensor(t), Some(d)) if d != t.dtype() => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Expected tensor {} with dtype tf.{}, but got dtype tf.{}.",
                    runtime::format::numpy_str(t),
                    d.name(),
                    t.dtype().name()
                ),
            ))
        }
        (Value::List(_) | Value::Tuple(_), _) if first_tensor_dtype(value).is_some() => {
            // TensorFlow's constant() hands the list to numpy, which asks a tensor for its len()
            return Err(PyErr::new(
                ExcType::ValueError,
                "TypeError: Scalar tensor has no `len()`",
            )
            .help("tf.constant takes Python and numpy values; to combine tensors use tf.stack([...]), or tf.convert_to_tensor([...]) which packs them"));
        }
        _ => to_tensor(vm, value, dtype)?,
    };
    let Some(shape) = a.opt(2) else {
        return Ok(Value::Tensor(t));
    };
    let dims = dims_arg(vm, shape)?;
    let want: usize = dims.iter().product();
    if t.numel() == want {
        let d: Vec<i64> = dims.iter().map(|&x| x as i64).collect();
        return tv(vm, ops::reshape(&t, &d, Semantics::Tf));
    }
    if t.numel() == 1 {
        let one = ops::reshape(&t, &[], Semantics::Tf).map_err(runtime_err)?;
        return tv(vm, ops::broadcast_to(&one, &dims));
    }
    let shown = runtime::Shape::new(&dims).tuple_text();
    Err(PyErr::new(
        ExcType::TypeError,
        format!(
            "Eager execution of tf.constant with unsupported shape. Tensor {} (converted from {}) has {} elements, but got `shape` {} with {} elements).",
            runtime::format::numpy_str(&t),
            vm.repr(value)?,
            t.numel(),
            shown,
            want
        ),
    ))
}

fn convert_to_tensor(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let dtype = opt_dtype(vm, a.get(1))?;
    if dtype.is_none() {
        if let Some(hint) = opt_dtype(vm, a.get(2))? {
            let dev = crate::distribute::current_device(vm);
            return super::convert::operand(vm, a.get(0), hint, dev, true).map(Value::Tensor);
        }
    }
    to_tensor(vm, a.get(0), dtype).map(Value::Tensor)
}

fn scalar_of(vm: &dyn Vm, v: &Value) -> PyResult<(Scalar, DType)> {
    let t = to_tensor(vm, v, None)?;
    Ok((t.item().map_err(runtime_err)?, t.dtype()))
}

fn range(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (mut start, mut limit) = (a.get(0).clone(), a.get(1).clone());
    if limit.is_none() {
        limit = start;
        start = Value::Int(0);
    }
    let (s, sd) = scalar_of(vm, &start)?;
    let (l, ld) = scalar_of(vm, &limit)?;
    let (d, dd) = scalar_of(vm, a.get(2))?;
    let dtype = match opt_dtype(vm, a.get(3))? {
        Some(d) => d,
        None => {
            // the widest of the inputs' types, in TensorFlow's order
            let order = [
                DType::Int32,
                DType::Int64,
                DType::Float16,
                DType::Float32,
                DType::Float64,
            ];
            let rank = |x: DType| order.iter().position(|&o| o == x).unwrap_or(0);
            *[sd, ld, dd]
                .iter()
                .max_by_key(|&&x| rank(x))
                .unwrap_or(&DType::Int32)
        }
    };
    tv(
        vm,
        ops::range(&s, &l, &d, dtype, crate::distribute::current_device(vm)),
    )
}

fn zeros(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let dims = dims_arg(vm, a.get(0))?;
    let dtype = opt_dtype(vm, a.get(1))?.unwrap_or(DType::Float32);
    tv(
        vm,
        Tensor::zeros(dtype, &dims, crate::distribute::current_device(vm)),
    )
}

fn ones(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let dims = dims_arg(vm, a.get(0))?;
    let dtype = opt_dtype(vm, a.get(1))?.unwrap_or(DType::Float32);
    tv(
        vm,
        Tensor::ones(dtype, &dims, crate::distribute::current_device(vm)),
    )
}

fn fill(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let dims = dims_arg(vm, a.get(0))?;
    let v = to_tensor(vm, a.get(1), None)?;
    let one = ops::reshape(&v, &[], Semantics::Tf).map_err(runtime_err)?;
    let dev = crate::distribute::current_device(vm);
    tv(
        vm,
        ops::broadcast_to(&one.to_device(dev).map_err(runtime_err)?, &dims),
    )
}

fn like(vm: &dyn Vm, a: &Args, one: bool) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let dtype = opt_dtype(vm, a.get(1))?.unwrap_or(t.dtype());
    if one {
        tv(vm, Tensor::ones(dtype, t.dims(), t.device()))
    } else {
        tv(vm, Tensor::zeros(dtype, t.dims(), t.device()))
    }
}

fn zeros_like(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    like(vm, a, false)
}

fn ones_like(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    like(vm, a, true)
}

fn identity(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, t.to_device(crate::distribute::current_device(vm)))
}

fn is_tensor(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(matches!(a.get(0), Value::Tensor(_))))
}

fn cast(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = dtype_arg(vm, a.get(1))?;
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::cast(&t, d))
}

/// Registers the creation functions.
pub fn register(m: &mut ModuleBuilder) {
    m.function(
        "constant(value, dtype=None, shape=None, name='Const')",
        constant,
        "A constant tensor from a Python value: `tf.constant([1, 2])`.",
    );
    m.function(
        "convert_to_tensor(value, dtype=None, dtype_hint=None, name=None)",
        convert_to_tensor,
        "A tensor from a tensor-like value.",
    );
    m.function(
        "range(start, limit=None, delta=1, dtype=None, name='range')",
        range,
        "Numbers from `start` up to `limit`: `tf.range(5)`.",
    );
    m.function(
        "zeros(shape, dtype=None, name=None)",
        zeros,
        "A tensor of zeros: `tf.zeros([2, 3])`.",
    );
    m.function(
        "ones(shape, dtype=None, name=None)",
        ones,
        "A tensor of ones: `tf.ones([2])`.",
    );
    m.function(
        "fill(dims, value, name=None)",
        fill,
        "A tensor of `dims` filled with `value`.",
    );
    m.function(
        "zeros_like(input, dtype=None, name=None)",
        zeros_like,
        "Zeros shaped like `input`.",
    );
    m.function(
        "ones_like(input, dtype=None, name=None)",
        ones_like,
        "Ones shaped like `input`.",
    );
    m.function(
        "identity(input, name=None)",
        identity,
        "The same value, as a tensor on the current device.",
    );
    m.function(
        "is_tensor(x)",
        is_tensor,
        "True for tensors: `tf.is_tensor(tf.constant(1))`.",
    );
    m.function(
        "cast(x, dtype, name=None)",
        cast,
        "`x` converted to `dtype`: `tf.cast(t, tf.float32)`.",
    );
}
