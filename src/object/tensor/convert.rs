//! Conversions between language values and tensors, with TensorFlow's rules
//! (Python int → int32, float → float32, bool → bool, str → string; nested
//! lists must be rectangular), and runtime errors → Python exceptions. Also
//! the argument converters every `tf` native shares: dtypes, axes, int lists.

use crate::object::types::{type_error, value_error};
use crate::object::{ArgCtx, FromArg};
use crate::runtime::{
    self, tensor_from_literal, DType, Device, InferMode, Literal, Scalar, Tensor,
};
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

/// Maps a runtime error to the Python exception TensorFlow raises.
#[cold]
pub fn runtime_err(e: runtime::Error) -> PyErr {
    let ty = match e.kind() {
        runtime::ErrorKind::InvalidArgument => ExcType::InvalidArgumentError,
        runtime::ErrorKind::ResourceExhausted => ExcType::ResourceExhaustedError,
        runtime::ErrorKind::Unimplemented => ExcType::UnimplementedError,
        runtime::ErrorKind::NotFound => ExcType::NotFoundError,
        runtime::ErrorKind::Type => ExcType::TypeError,
        runtime::ErrorKind::Value | runtime::ErrorKind::Axis => ExcType::ValueError,
        runtime::ErrorKind::Index => ExcType::IndexError,
        runtime::ErrorKind::Lookup => ExcType::LookupError,
        runtime::ErrorKind::Overflow => ExcType::OverflowError,
        runtime::ErrorKind::Internal => ExcType::RuntimeError,
    };
    PyErr::new(ty, e.message())
}

/// A Python value as a runtime literal (None when it is not one); a nested
/// list too large for memory is MemoryError, never an abort.
pub fn literal_of(v: &Value) -> PyResult<Option<Literal>> {
    check_literal_size(v)?;
    literal_rec(v)
}

/// MemoryError for nested lists with more elements along their first
/// items' path than any tensor holds (`[[0] * 10**6] * 10**5`), before
/// anything walks or builds them.
pub fn check_literal_size(v: &Value) -> PyResult<()> {
    if first_path_len(v) > crate::runtime::shape::MAX_ELEMENTS as u128 {
        return Err(crate::object::types::memory_error());
    }
    Ok(())
}

/// The product of the lengths along the first items of nested lists and
/// tuples: the element count of the tensor they would make.
fn first_path_len(v: &Value) -> u128 {
    let mut n: u128 = 1;
    let mut cur = v.clone();
    loop {
        let (len, first) = match &cur {
            Value::List(l) => {
                let l = l.borrow();
                (l.len(), l.first().cloned())
            }
            Value::Tuple(t) => (t.len(), t.first().cloned()),
            _ => return n,
        };
        n = n.saturating_mul(len as u128);
        match first {
            Some(x) => cur = x,
            None => return n,
        }
    }
}

fn literal_rec(v: &Value) -> PyResult<Option<Literal>> {
    Ok(Some(match v {
        Value::Bool(b) => Literal::Bool(*b),
        Value::Int(i) => Literal::Int(*i),
        Value::Float(f) => Literal::Float(*f),
        Value::Str(s) => Literal::Str(s.to_string()),
        Value::Bytes(b) => Literal::Bytes(b.to_vec()),
        Value::Native(_) => match v.downcast::<crate::object::types::complex::Complex>() {
            Some(c) => Literal::Complex(c.re, c.im),
            None => return Ok(None),
        },
        Value::List(l) => match literals(&l.borrow(), literal_rec)? {
            Some(items) => Literal::List(items),
            None => return Ok(None),
        },
        Value::Tuple(t) => match literals(t, literal_rec)? {
            Some(items) => Literal::Tuple(items),
            None => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// Each item as a literal, into a vector reserved fallibly (the items of
/// `[[0] * 10**5] * 10**5` are one list seen 10**5 times, each a new
/// literal); None when one is not a literal.
fn literals(
    items: &[Value],
    mut f: impl FnMut(&Value) -> PyResult<Option<Literal>>,
) -> PyResult<Option<Vec<Literal>>> {
    let mut out = crate::object::types::alloc_vec(items.len())?;
    for x in items {
        match f(x)? {
            Some(lit) => out.push(lit),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// Whether a (nested) list or tuple holds an int past 64 bits.
fn has_long(v: &Value) -> bool {
    match v {
        Value::Long(_) => true,
        Value::List(l) => l.borrow().iter().any(has_long),
        Value::Tuple(t) => t.iter().any(has_long),
        _ => false,
    }
}

/// `v` with its ints past 64 bits as floats.
fn floated(v: &Value) -> PyResult<Value> {
    Ok(match v {
        Value::Long(n) => Value::Float(crate::object::types::long::to_f64(n)?),
        Value::List(l) => Value::list(l.borrow().iter().map(floated).collect::<PyResult<_>>()?),
        Value::Tuple(t) => Value::tuple(t.iter().map(floated).collect::<PyResult<_>>()?),
        other => other.clone(),
    })
}

/// A value holding ints past 64 bits, converted to a tensor: with a float
/// dtype they are floats (`Some`, the value to convert instead); otherwise
/// the ValueError `refusal` (TensorFlow's words, or numpy's). None when
/// `v` holds none.
pub fn long_ints(v: &Value, dtype: Option<DType>, refusal: &str) -> PyResult<Option<Value>> {
    // Walking a nested list too large for any tensor would take minutes.
    check_literal_size(v)?;
    if !has_long(v) {
        return Ok(None);
    }
    match dtype {
        Some(d) if d.is_floating() => floated(v).map(Some),
        _ => Err(value_error(refusal)),
    }
}

/// `<class 'dict'>`, as TensorFlow names a type in conversion errors.
fn class_text(vm: &dyn Vm, v: &Value) -> String {
    match vm.type_of(v) {
        Value::Class(c) if &*c.module == "builtins" => format!("<class '{}'>", c.name),
        Value::Class(c) => format!("<class '{}.{}'>", c.module, c.name),
        _ => format!("<class '{}'>", v.type_name()),
    }
}

#[cold]
fn unsupported(vm: &dyn Vm, v: &Value) -> PyErr {
    let shown = vm.repr(v).unwrap_or_else(|_| v.type_name());
    value_error(format!(
        "Attempt to convert a value ({shown}) with an unsupported type ({}) to a Tensor.",
        class_text(vm, v)
    ))
}

/// True for numpy arrays and scalars, which convert with a cast when a dtype is asked for.
fn is_numpy(v: &Value) -> bool {
    matches!(v, Value::Native(n) if n.as_any().is::<crate::object::numpy::NdArray>())
}

/// TensorFlow's message for converting tensor `t` to another dtype `d`.
pub fn dtype_mismatch(t: &Tensor, d: DType) -> String {
    format!(
        "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
        d.name(),
        t.dtype().name(),
        runtime::format::tf_repr(t)
    )
}

/// `tf.convert_to_tensor(v, dtype)`: tensors pass through (a dtype mismatch
/// is TensorFlow's ValueError); numpy arrays cast; Python values convert on
/// the current device.
pub fn to_tensor(vm: &dyn Vm, v: &Value, dtype: Option<DType>) -> PyResult<Tensor> {
    to_tensor_on(vm, v, dtype, None)
}

/// [`to_tensor`] placing Python values on `device` (the device of the op's
/// other input) instead of the current device.
pub fn to_tensor_on(
    vm: &dyn Vm,
    v: &Value,
    dtype: Option<DType>,
    device: Option<Device>,
) -> PyResult<Tensor> {
    if let Value::Tensor(t) = v {
        super::hooks::in_scope(t)?;
        if let Some(d) = dtype {
            if d != t.dtype() {
                return Err(value_error(dtype_mismatch(t, d)));
            }
        }
        return Ok(t.clone());
    }
    if let Value::Native(n) = v {
        if let Some(t) = n.to_tensor(vm)? {
            if let Some(d) = dtype {
                if d != t.dtype() && n.is_variable() {
                    // ResourceVariable._dense_var_to_tensor
                    return Err(value_error(format!(
                        "Incompatible type conversion requested to type {} for `tf.Variable of type {}. (Variable: {})",
                        d.name(),
                        t.dtype().name(),
                        vm.repr(v)?
                    )));
                }
            }
            let t = match device {
                Some(d) if is_numpy(v) => t.to_device(d).map_err(runtime_err)?,
                None if is_numpy(v) => t
                    .to_device(crate::object::tensor::placement::current_device(vm))
                    .map_err(runtime_err)?,
                _ => t,
            };
            let shape_to_int = |d: DType| {
                matches!(d, DType::Int64) && v.downcast::<super::shape::TensorShapeObj>().is_some()
            };
            return match dtype {
                Some(d) if d != t.dtype() && (is_numpy(v) || shape_to_int(d)) => {
                    runtime::ops::cast(&t, d).map_err(runtime_err)
                }
                Some(d) if d != t.dtype() => to_tensor(vm, &Value::Tensor(t), Some(d)),
                _ => Ok(t),
            };
        }
    }
    if let Value::Instance(inst) = v {
        // TensorFlow's conversion protocol for Python objects:
        // `__tf_tensor__(self, dtype=None, name=None)` (a Keras `Variable`
        // converts through it to the `tf.Variable` it holds).
        if let Some(f) = inst.class.lookup("__tf_tensor__") {
            let out = vm.call(&f, vec![v.clone()], Vec::new())?;
            if matches!(&out, Value::Instance(_)) {
                // one step: an object converts to a tensor or a variable
                return Err(unsupported(vm, v));
            }
            return to_tensor_on(vm, &out, dtype, device);
        }
    }
    check_literal_size(v)?;
    if let Some(inferred) = first_tensor_dtype(v) {
        let want = dtype.unwrap_or(inferred);
        return autopack(vm, v, want, want != inferred, device);
    }
    let floated;
    let v = match long_ints(
        v,
        dtype,
        "Can't convert Python sequence with out-of-range integer to Tensor.",
    )? {
        Some(f) => {
            floated = f;
            &floated
        }
        None => v,
    };
    let lit = match literal_of(v)? {
        Some(lit) => lit,
        None => match numpy_literal(vm, v)? {
            Some(lit) => lit,
            None => return Err(unsupported(vm, v)),
        },
    };
    let device = device.unwrap_or_else(|| crate::object::tensor::placement::current_device(vm));
    let t = tensor_from_literal(&lit, dtype, InferMode::Tf, device).map_err(runtime_err)?;
    if runtime::graph::tracing() {
        runtime::graph::constant(&t);
    }
    Ok(t)
}

/// The dtype of the first tensor in a (nested) list or tuple, depth first;
/// None when it holds no tensor.
pub fn first_tensor_dtype(v: &Value) -> Option<DType> {
    match v {
        Value::Tensor(t) => Some(t.dtype()),
        Value::List(l) => l.borrow().iter().find_map(first_tensor_dtype),
        Value::Tuple(t) => t.iter().find_map(first_tensor_dtype),
        _ => None,
    }
}

/// TensorFlow's automatic packing of a list that holds tensors
/// (`_autopacking_helper`): every element becomes a tensor of `dtype`
/// (tensors are cast to it only when `cast`, for an explicitly requested
/// dtype; Python values convert strictly), inner lists that hold tensors are
/// packed the same way, and the elements are stacked by a `Pack` node
/// called `packed`.
fn autopack(
    vm: &dyn Vm,
    v: &Value,
    dtype: DType,
    cast: bool,
    device: Option<Device>,
) -> PyResult<Tensor> {
    let items: Vec<Value> = match v {
        Value::List(l) => l.borrow().clone(),
        Value::Tuple(t) => t.to_vec(),
        other => return to_tensor_on(vm, other, Some(dtype), device),
    };
    let mut ts = Vec::with_capacity(items.len());
    for x in &items {
        ts.push(match x {
            Value::Tensor(t) if cast && t.dtype() != dtype => {
                runtime::ops::cast(t, dtype).map_err(runtime_err)?
            }
            Value::Tensor(t) => t.clone(),
            Value::List(_) | Value::Tuple(_) if first_tensor_dtype(x).is_some() => {
                autopack(vm, x, dtype, cast, device)?
            }
            other => to_tensor_on(vm, other, Some(dtype), device)?,
        });
    }
    runtime::ops::stack_named(&ts, 0, "packed").map_err(runtime_err)
}

/// Lists that hold numpy scalars or tensors (`[np.float32(1.5), 2.0]`): each
/// such leaf becomes a literal of its value.
fn numpy_literal(vm: &dyn Vm, v: &Value) -> PyResult<Option<Literal>> {
    match v {
        Value::List(l) => Ok(literals(&l.borrow(), |x| numpy_literal(vm, x))?.map(Literal::List)),
        Value::Tuple(t) => Ok(literals(t, |x| numpy_literal(vm, x))?.map(Literal::Tuple)),
        Value::Native(n) => {
            let Some(t) = n.to_tensor(vm).ok().flatten() else {
                return Ok(None);
            };
            if t.rank() != 0 {
                return Ok(None);
            }
            let Ok(item) = t.item() else {
                return Ok(None);
            };
            Ok(Some(match item {
                Scalar::Bool(b) => Literal::Bool(b),
                Scalar::Int(i) => Literal::Int(i),
                Scalar::Float(f) => Literal::Float(f),
                Scalar::Complex(re, im) => Literal::Complex(re, im),
                Scalar::Bytes(b) => Literal::Bytes(b),
            }))
        }
        other => literal_of(other),
    }
}

/// The other operand of a tensor operator or op, converted towards `dtype`
/// on `device`: tensors pass through (the kernel reports a dtype mismatch);
/// numpy values cast; Python values convert strictly to `dtype` (TypeError
/// `Cannot convert 2.5 to EagerTensor of dtype int32`), or, with
/// `hint_only`, fall back to their own inferred dtype (`tf.add`).
pub fn operand(
    vm: &dyn Vm,
    v: &Value,
    dtype: DType,
    device: Device,
    hint_only: bool,
) -> PyResult<Tensor> {
    // fast path: a Python scalar next to a tensor (`x + 1` in a loop)
    match (v, dtype) {
        (Value::Tensor(t), _) => {
            super::hooks::in_scope(t)?;
            return Ok(t.clone());
        }
        (Value::Int(i), d) if d.is_numeric() && d != DType::Bool => {
            return scalar_constant(ScalarKey::Int(*i), d, device)
        }
        (Value::Float(f), d) if d.is_floating() => {
            return scalar_constant(ScalarKey::Float(f.to_bits()), d, device)
        }
        _ => {}
    }
    match to_tensor_on(vm, v, Some(dtype), Some(device)) {
        Ok(t) => Ok(t),
        Err(e) if hint_only && !e.is(ExcType::ValueError) => {
            to_tensor_on(vm, v, None, Some(device))
        }
        Err(e) => Err(e),
    }
}

/// A Python number as converted to a scalar tensor, the cache's key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ScalarKey {
    Int(i64),
    /// The float's bits (so `-0.0` and `0.0`, and NaNs, stay apart).
    Float(u64),
}

thread_local! {
    /// The last few Python scalars converted next to a tensor. Tensors are
    /// immutable, so sharing one is unobservable; a loop like `x = x + 1`
    /// then converts `1` once instead of on every iteration (TensorFlow's
    /// eager runtime keeps a scalar cache for the same reason).
    static SCALARS: std::cell::RefCell<Vec<(ScalarKey, DType, Device, Tensor)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The scalar tensor for `key` with `dtype` on `device`, from the cache.
fn scalar_constant(key: ScalarKey, dtype: DType, device: Device) -> PyResult<Tensor> {
    const SIZE: usize = 8;
    if runtime::graph::tracing() {
        // a graph's tensor is one node of one graph: a constant cached in a
        // branch (whose graph has ended) is not the outer graph's
        let value = match key {
            ScalarKey::Int(i) => Scalar::Int(i),
            ScalarKey::Float(bits) => Scalar::Float(f64::from_bits(bits)),
        };
        let t = Tensor::fill(&[], &value, dtype, device).map_err(runtime_err)?;
        runtime::graph::constant(&t);
        return Ok(t);
    }
    let hit = SCALARS.with(|c| {
        c.borrow()
            .iter()
            .find(|(k, d, dev, _)| *k == key && *d == dtype && *dev == device)
            .map(|e| e.3.clone())
    });
    if let Some(t) = hit {
        return Ok(t);
    }
    let value = match key {
        ScalarKey::Int(i) => Scalar::Int(i),
        ScalarKey::Float(bits) => Scalar::Float(f64::from_bits(bits)),
    };
    let t = Tensor::fill(&[], &value, dtype, device).map_err(runtime_err)?;
    SCALARS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() == SIZE {
            c.remove(0);
        }
        c.push((key, dtype, device, t.clone()));
    });
    Ok(t)
}

/// A dtype argument: a `tf.DType`, a name (`"float32"`), a numpy type
/// (`np.float32`, `np.dtype('int64')`), Python's `float`/`bool`, or
/// TensorFlow's enum number.
pub fn dtype_arg(vm: &dyn Vm, v: &Value) -> PyResult<DType> {
    let bad = || {
        type_error(format!(
            "Cannot convert the argument `type_value`: {} to a TensorFlow DType.",
            vm.repr(v).unwrap_or_default()
        ))
    };
    match v {
        Value::Native(n) => {
            if let Some(d) = n
                .as_any()
                .downcast_ref::<crate::object::tensor::dtype::DTypeObj>()
            {
                return Ok(d.0);
            }
            if let Some(d) = n.as_any().downcast_ref::<crate::object::numpy::NpDType>() {
                return Ok(d.0);
            }
            Err(bad())
        }
        Value::Str(s) => match s.as_str() {
            "int" => Err(bad()),
            "float" => Ok(DType::Float32),
            name => DType::from_name(name).map_err(|_| bad()),
        },
        Value::Class(c) => match (&*c.module, &*c.name) {
            ("numpy", name) => DType::from_name(name).map_err(|_| bad()),
            ("builtins", "float") => Ok(DType::Float32),
            ("builtins", "bool") => Ok(DType::Bool),
            ("builtins", "str") => Ok(DType::String),
            _ => Err(bad()),
        },
        Value::Int(i) => u64::try_from(*i)
            .ok()
            .and_then(DType::from_datatype_enum)
            .ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// An optional dtype argument (`None` → None).
pub fn opt_dtype(vm: &dyn Vm, v: &Value) -> PyResult<Option<DType>> {
    match v {
        Value::None => Ok(None),
        v => dtype_arg(vm, v).map(Some),
    }
}

/// A list of ints: a Python int sequence, a 0/1-d integer tensor or array,
/// or a `TensorShape`.
pub fn int_list(vm: &dyn Vm, v: &Value) -> PyResult<Vec<i64>> {
    let as_int = |x: &Value| -> PyResult<i64> {
        match x {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            Value::None => Ok(-1),
            other => match int_scalar(vm, other)? {
                Some(i) => Ok(i),
                None => Err(type_error(format!(
                    "Expected int32, but got {} of type '{}'.",
                    vm.repr(other)?,
                    other.type_name()
                ))),
            },
        }
    };
    match v {
        Value::List(l) => l.borrow().iter().map(as_int).collect(),
        Value::Tuple(t) => t.iter().map(as_int).collect(),
        Value::Int(_) | Value::Bool(_) => Ok(vec![as_int(v)?]),
        Value::Native(n)
            if n.as_any()
                .is::<crate::object::tensor::shape::TensorShapeObj>() =>
        {
            let s = n
                .as_any()
                .downcast_ref::<crate::object::tensor::shape::TensorShapeObj>()
                .and_then(|s| s.dims.clone())
                .ok_or_else(|| {
                    crate::object::types::value_error(
                        "Cannot convert a partially known TensorShape <unknown> to a Tensor.",
                    )
                })?;
            Ok(s.iter().map(|d| d.map_or(-1, |x| x as i64)).collect())
        }
        other => {
            let t = to_tensor(vm, other, None)?;
            tensor_ints(&t)
        }
    }
}

/// The elements of an integer tensor as `i64`s (TypeError otherwise).
pub fn tensor_ints(t: &Tensor) -> PyResult<Vec<i64>> {
    if !t.dtype().is_integer() {
        return Err(type_error(format!(
            "Value passed to parameter 'shape' has DataType {} not in list of allowed values: int32, int64",
            t.dtype().name()
        )));
    }
    Ok(t.to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => i,
            _ => 0,
        })
        .collect())
}

/// An int from a Python int, or from a 0-d integer tensor/array (None otherwise).
pub fn int_scalar(vm: &dyn Vm, v: &Value) -> PyResult<Option<i64>> {
    Ok(match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(*b as i64),
        Value::Tensor(t) if t.rank() == 0 && t.dtype().is_integer() => match t.item() {
            Ok(Scalar::Int(i)) => Some(i),
            _ => None,
        },
        Value::Native(n) => match n.to_tensor(vm)? {
            Some(t) if t.rank() == 0 && t.dtype().is_integer() => match t.item() {
                Ok(Scalar::Int(i)) => Some(i),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    })
}

/// An `axis` argument: None (all axes), an int, or a list/tensor of ints.
pub fn axes_arg(vm: &dyn Vm, v: &Value) -> PyResult<Option<Vec<i64>>> {
    match v {
        Value::None => Ok(None),
        v => int_list(vm, v).map(Some),
    }
}

/// A single `axis` argument (an int or a 0-d integer tensor).
pub fn axis_arg(vm: &dyn Vm, v: &Value) -> PyResult<i64> {
    match int_scalar(vm, v)? {
        Some(i) => Ok(i),
        None => Err(type_error(format!(
            "Expected int32 for argument 'axis' not {}.",
            vm.repr(v)?
        ))),
    }
}

/// A list of tensors from a Python sequence (or a tensor, split along axis 0).
pub fn tensor_list(vm: &dyn Vm, v: &Value) -> PyResult<Vec<Tensor>> {
    let items = match v {
        Value::Tensor(t) => return runtime::ops::unstack(t, 0).map_err(runtime_err),
        Value::List(l) => l.borrow().clone(),
        Value::Tuple(t) => t.to_vec(),
        other => vm.collect(other)?,
    };
    // Python values take the dtype of the first tensor among them
    let first = items.iter().find_map(|x| match x {
        Value::Tensor(t) => Some((t.dtype(), t.device())),
        _ => None,
    });
    items
        .iter()
        .map(|x| match first {
            Some((d, dev)) => operand(vm, x, d, dev, false),
            None => to_tensor(vm, x, None),
        })
        .collect()
}

/// An op's result moved to the device the op runs on (see [`tv`]).
pub fn placed(vm: &dyn Vm, r: runtime::Result<Tensor>) -> PyResult<Tensor> {
    let t = r.map_err(runtime_err)?;
    let device = crate::object::tensor::placement::current_device(vm);
    crate::runtime::trace::placed_on(device);
    t.to_device(device).map_err(runtime_err)
}

// Argument types of `#[native]` functions. Each converts with the helper
// above that the natives called before, so its messages are unchanged.

/// A tensor argument that must already be one (the receiver of a tensor's
/// methods); other values are not converted.
impl<'a> FromArg<'a> for &'a Tensor {
    fn from_arg(_vm: &dyn Vm, args: &'a Args, i: usize, cx: &ArgCtx) -> PyResult<Self> {
        match args.get(i) {
            Value::Tensor(t) => Ok(t),
            v => Err(cx.must_be("tf.Tensor", v)),
        }
    }
}

/// A tensor-like argument, converted as `tf.convert_to_tensor` converts it
/// ([`to_tensor`], no dtype asked for).
impl<'a> FromArg<'a> for Tensor {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        to_tensor(vm, args.get(i), None)
    }
}

/// A dtype argument ([`dtype_arg`]); `Option<DType>` is [`opt_dtype`].
impl<'a> FromArg<'a> for DType {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        dtype_arg(vm, args.get(i))
    }
}

/// A single `axis` argument ([`axis_arg`]).
#[derive(Clone, Copy)]
pub struct Axis(pub i64);

impl<'a> FromArg<'a> for Axis {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        axis_arg(vm, args.get(i)).map(Axis)
    }
}

/// A list of ints ([`int_list`]): axes, a shape, a permutation; as
/// `Option<Ints>` an `axis` argument where None means every axis
/// ([`axes_arg`]).
pub struct Ints(pub Vec<i64>);

impl<'a> FromArg<'a> for Ints {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        int_list(vm, args.get(i)).map(Ints)
    }
}

/// The axes of an `Option<Ints>` argument, as the ops take them.
pub fn axes(a: &Option<Ints>) -> Option<&[i64]> {
    a.as_ref().map(|a| a.0.as_slice())
}
