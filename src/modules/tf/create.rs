//! Tensor creation: `tf.constant`, `convert_to_tensor`, `range`, `zeros`,
//! `ones`, `fill`, `zeros_like`, `ones_like`, `identity`.

use super::convert::{first_tensor_dtype, int_list, opt_dtype, placed, runtime_err, to_tensor};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::placement::current_device;
use crate::runtime::{self, ops, DType, Scalar, Semantics, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

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

/// A constant tensor from a Python value: `tf.constant([1, 2])`.
#[native("constant(value, dtype=None, shape=None, name='Const')")]
fn constant(
    vm: &dyn Vm,
    value: &Value,
    dtype: Option<DType>,
    shape: Option<&Value>,
    _name: &Value,
) -> PyResult<Tensor> {
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
        (Value::List(_) | Value::Tuple(_), _)
            if crate::object::tensor::convert::check_literal_size(value).is_ok()
                && first_tensor_dtype(value).is_some() =>
        {
            // TensorFlow's constant() hands the list to numpy, which asks a tensor for its len()
            return Err(PyErr::new(
                ExcType::ValueError,
                "TypeError: Scalar tensor has no `len()`",
            )
            .help("tf.constant takes Python and numpy values; to combine tensors use tf.stack([...]), or tf.convert_to_tensor([...]) which packs them"));
        }
        _ => to_tensor(vm, value, dtype)?,
    };
    let Some(shape) = shape else {
        return Ok(t);
    };
    let dims = dims_arg(vm, shape)?;
    let want: usize = dims.iter().product();
    if t.numel() == want {
        let d: Vec<i64> = dims.iter().map(|&x| x as i64).collect();
        return placed(vm, ops::reshape(&t, &d, Semantics::Tf));
    }
    if t.numel() == 1 {
        let one = ops::reshape(&t, &[], Semantics::Tf).map_err(runtime_err)?;
        return placed(vm, ops::broadcast_to(&one, &dims));
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

/// A tensor from a tensor-like value.
#[native("convert_to_tensor(value, dtype=None, dtype_hint=None, name=None)")]
fn convert_to_tensor(
    vm: &dyn Vm,
    value: &Value,
    dtype: Option<DType>,
    dtype_hint: &Value,
    name: &Value,
) -> PyResult<Tensor> {
    if dtype.is_none() {
        if let Some(hint) = opt_dtype(vm, dtype_hint)? {
            let dev = current_device(vm);
            return super::convert::operand(vm, value, hint, dev, true);
        }
    }
    if let (Value::Tensor(t), Value::Str(n), Some(d)) = (value, name, dtype) {
        if d != t.dtype() {
            // TensorFlow names the conversion in this error
            // (`tensor_conversion_registry._add_error_prefix`)
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "{n}: {}",
                    crate::object::tensor::convert::dtype_mismatch(t, d)
                ),
            ));
        }
    }
    to_tensor(vm, value, dtype)
}

fn scalar_of(vm: &dyn Vm, v: &Value) -> PyResult<(Scalar, DType)> {
    let t = to_tensor(vm, v, None)?;
    Ok((t.item().map_err(runtime_err)?, t.dtype()))
}

/// Numbers from `start` up to `limit`: `tf.range(5)`.
#[native("range(start, limit=None, delta=1, dtype=None, name='range')")]
fn range(
    vm: &dyn Vm,
    start: &Value,
    limit: &Value,
    delta: &Value,
    dtype: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let zero = Value::Int(0);
    let (start, limit) = match limit {
        Value::None => (&zero, start),
        _ => (start, limit),
    };
    let (s, sd) = scalar_of(vm, start)?;
    let (l, ld) = scalar_of(vm, limit)?;
    let (d, dd) = scalar_of(vm, delta)?;
    let dtype = match opt_dtype(vm, dtype)? {
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
    let r = ops::range(&s, &l, &d, dtype, current_device(vm));
    placed(vm, r.map_err(kernel_oom(vm, dtype, "Range", " name: ")))
}

/// TensorFlow's errors for a `Fill` (`tf.zeros`, `tf.ones`, `tf.fill`) too
/// large to allocate: the kernel's OOM text, or InvalidArgument for a shape
/// past 2**63 - 1 elements; `name` is the suffix TensorFlow appends.
fn fill_error(
    r: runtime::Result<Tensor>,
    dims: &[usize],
    dtype: DType,
    name: &str,
    vm: &dyn Vm,
) -> runtime::Result<Tensor> {
    r.map_err(|e| {
        if e.kind() != runtime::ErrorKind::ResourceExhausted {
            return e;
        }
        let device = current_device(vm);
        let count = dims
            .iter()
            .try_fold(1u128, |a, &d| a.checked_mul(d as u128))
            .filter(|&n| n <= i64::MAX as u128);
        let (kind, msg) = match count {
            None => (
                runtime::ErrorKind::InvalidArgument,
                format!(
                    "Shape {} would have more than 2**63 - 1 elements",
                    runtime::Shape::new(dims).bracket_text_compact()
                ),
            ),
            Some(_) => (
                runtime::ErrorKind::ResourceExhausted,
                runtime::random::sample::oom_text(dims, dtype, &device),
            ),
        };
        runtime::Error::kernel(kind, "Fill", &device, &msg, "Fill", name)
    })
}

/// TensorFlow's error for kernel `op` whose output (of `dtype`) could not
/// be allocated: the runtime's `OOM when allocating tensor with shape[…]`
/// (`Shape::checked_numel`) completed with the allocator's words and put in
/// the eager wrapper (`{{function_node __wrapped__Tile_device_…}} … [Op:Tile]`
/// and TensorFlow's `name` suffix). Other errors pass unchanged. For ops
/// whose output size a script controls (`tf.range`, `tf.tile`,
/// `tf.broadcast_to`, `tf.one_hot`, `tf.pad`, `tf.eye`).
pub fn kernel_oom<'a>(
    vm: &'a dyn Vm,
    dtype: DType,
    op: &'a str,
    name: &'a str,
) -> impl Fn(runtime::Error) -> runtime::Error + 'a {
    move |e| {
        let short = e.message();
        if e.kind() != runtime::ErrorKind::ResourceExhausted
            || !short.starts_with("OOM when allocating tensor with shape[")
            || short.contains(" by allocator ")
        {
            return e;
        }
        let device = current_device(vm);
        let msg = format!(
            "{short}{}",
            runtime::random::sample::allocator_text(dtype, &device)
        );
        runtime::Error::kernel(e.kind(), op, &device, &msg, op, name)
    }
}

/// A tensor of zeros: `tf.zeros([2, 3])`.
#[native("zeros(shape, dtype=None, name=None)")]
fn zeros(vm: &dyn Vm, shape: &Value, dtype: &Value, _name: &Value) -> PyResult<Tensor> {
    let dims = dims_arg(vm, shape)?;
    let dtype = opt_dtype(vm, dtype)?.unwrap_or(DType::Float32);
    let t = Tensor::zeros(dtype, &dims, current_device(vm));
    placed(vm, fill_error(t, &dims, dtype, " name: ", vm))
}

/// A tensor of ones: `tf.ones([2])`.
#[native("ones(shape, dtype=None, name=None)")]
fn ones(vm: &dyn Vm, shape: &Value, dtype: &Value, _name: &Value) -> PyResult<Tensor> {
    let dims = dims_arg(vm, shape)?;
    let dtype = opt_dtype(vm, dtype)?.unwrap_or(DType::Float32);
    let t = Tensor::ones(dtype, &dims, current_device(vm));
    placed(vm, fill_error(t, &dims, dtype, " name: ", vm))
}

/// A tensor of `dims` filled with `value`.
#[native("fill(dims, value, name=None)")]
fn fill(vm: &dyn Vm, dims: &Value, value: &Value, _name: &Value) -> PyResult<Tensor> {
    let dims = dims_arg(vm, dims)?;
    let v = to_tensor(vm, value, None)?;
    let one = ops::reshape(&v, &[], Semantics::Tf).map_err(runtime_err)?;
    let one = one.to_device(current_device(vm)).map_err(runtime_err)?;
    let dtype = one.dtype();
    placed(
        vm,
        fill_error(ops::broadcast_to(&one, &dims), &dims, dtype, "", vm),
    )
}

/// Zeros shaped like `input`.
#[native("zeros_like(input, dtype=None, name=None)")]
fn zeros_like(vm: &dyn Vm, input: Tensor, dtype: Option<DType>, _name: &Value) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(input.dtype());
    placed(vm, Tensor::zeros(dtype, input.dims(), input.device()))
}

/// Ones shaped like `input`.
#[native("ones_like(input, dtype=None, name=None)")]
fn ones_like(vm: &dyn Vm, input: Tensor, dtype: Option<DType>, _name: &Value) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(input.dtype());
    placed(vm, Tensor::ones(dtype, input.dims(), input.device()))
}

/// The same value, as a tensor on the current device.
#[native("identity(input, name=None)")]
fn identity(vm: &dyn Vm, input: Tensor, _name: &Value) -> PyResult<Tensor> {
    let device = current_device(vm);
    if input.device() == device {
        return Ok(identity_op(&input));
    }
    placed(vm, input.to_device(device))
}

use crate::runtime::autodiff::tape::identity_op;

/// True for tensors: `tf.is_tensor(tf.constant(1))`, and for composite
/// tensors (`tf.IndexedSlices`, and the `SparseTensor`/`RaggedTensor`
/// classes written in the language, which `tf.nest` knows by their
/// `_dist_components`).
#[native("is_tensor(x)")]
fn is_tensor(x: &Value) -> bool {
    match x {
        Value::Tensor(_) => true,
        Value::Instance(inst) => inst.class.lookup("_dist_components").is_some(),
        _ => super::indexed_slices::is_indexed_slices(x),
    }
}

/// `x` converted to `dtype`: `tf.cast(t, tf.float32)`.
#[native("cast(x, dtype, name=None)")]
fn cast(vm: &dyn Vm, x: &Value, dtype: DType, _name: &Value) -> PyResult<Value> {
    if let Some(s) = super::indexed_slices::cast_slices(vm, x, dtype)? {
        return Ok(s);
    }
    let t = to_tensor(vm, x, None)?;
    placed(vm, ops::cast(&t, dtype)).map(Value::Tensor)
}

/// Registers the creation functions.
pub fn register(m: &mut ModuleBuilder) {
    m.add(constant::DEF)
        .add(convert_to_tensor::DEF)
        .add(range::DEF)
        .add(zeros::DEF)
        .add(ones::DEF)
        .add(fill::DEF)
        .add(zeros_like::DEF)
        .add(ones_like::DEF)
        .add(identity::DEF)
        .add(is_tensor::DEF)
        .add(cast::DEF);
}

/// Registers `tf.dtypes.cast`.
pub fn register_dtypes(m: &mut ModuleBuilder) {
    m.add(cast::DEF);
}
