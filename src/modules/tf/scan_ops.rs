//! `tf.cumsum`/`tf.math.cumprod`, `tf.sort`/`tf.argsort`, `tf.math.top_k`,
//! `tf.one_hot` and the clipping ops (`clip_by_value`, `clip_by_norm`,
//! `clip_by_global_norm`). Registration and argument conversion only; the
//! work is in `runtime::ops` (`scan.rs` and the element-wise ops the
//! clipping functions compose, in TensorFlow's order).

use super::convert::{axis_arg, operand, opt_dtype, placed, runtime_err, to_tensor, Axis};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::placement::current_device;
use crate::runtime::{ops, BinaryOp, DType, ReduceOp, Tensor, UnaryOp};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Cumulative sum along `axis`.
#[native("cumsum(x, axis=0, exclusive=False, reverse=False, name=None)")]
fn cumsum(
    vm: &dyn Vm,
    x: Tensor,
    axis: Axis,
    exclusive: bool,
    reverse: bool,
    _name: &Value,
) -> PyResult<Tensor> {
    placed(
        vm,
        ops::scan::cumulative(&x, axis.0, exclusive, reverse, false),
    )
}

/// Cumulative product along `axis`.
#[native("cumprod(x, axis=0, exclusive=False, reverse=False, name=None)")]
fn cumprod(
    vm: &dyn Vm,
    x: Tensor,
    axis: Axis,
    exclusive: bool,
    reverse: bool,
    _name: &Value,
) -> PyResult<Tensor> {
    placed(
        vm,
        ops::scan::cumulative(&x, axis.0, exclusive, reverse, true),
    )
}

/// The `direction` argument: true for `'DESCENDING'`.
fn descending(vm: &dyn Vm, v: &Value) -> PyResult<bool> {
    let d = vm.str(v)?;
    match d.as_str() {
        "ASCENDING" => Ok(false),
        "DESCENDING" => Ok(true),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Argument `direction` should be one of ASCENDING, DESCENDING. Received: \
                 direction={d}"
            ),
        )),
    }
}

/// The values and the indices that sort `values` along `axis`.
fn sorted(
    vm: &dyn Vm,
    values: &Value,
    axis: &Value,
    direction: &Value,
) -> PyResult<(Tensor, Tensor)> {
    let desc = descending(vm, direction)?;
    let t = to_tensor(vm, values, None)?;
    let axis = axis_arg(vm, axis)?;
    ops::scan::sort(&t, axis, desc).map_err(runtime_err)
}

/// The values sorted along `axis`.
#[native("sort(values, axis=-1, direction='ASCENDING', name=None)")]
fn sort(
    vm: &dyn Vm,
    values: &Value,
    axis: &Value,
    direction: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    Ok(sorted(vm, values, axis, direction)?.0)
}

/// The int32 indices that sort `values` along `axis` (a stable sort).
#[native("argsort(values, axis=-1, direction='ASCENDING', stable=False, name=None)")]
fn argsort(
    vm: &dyn Vm,
    values: &Value,
    axis: &Value,
    direction: &Value,
    _stable: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    Ok(sorted(vm, values, axis, direction)?.1)
}

/// The `k` largest entries of each last-axis row and their indices.
#[native("top_k(input, k=1, sorted=True, index_type=None, name=None)")]
fn top_k(
    vm: &dyn Vm,
    input: Tensor,
    k: i64,
    sorted: &Value,
    index_type: Option<DType>,
    _name: &Value,
) -> PyResult<Value> {
    let index_type = index_type.unwrap_or(DType::Int32);
    if !matches!(index_type, DType::Int16 | DType::Int32 | DType::Int64) {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr 'index_type' of {} is not in the list of allowed values: int16, \
                 int32, int64\n\t; NodeDef: {{{{node TopKV2}}}}; Op<name=TopKV2; \
                 signature=input:T, k:Tk -> values:T, indices:index_type; \
                 attr=sorted:bool,default=true; attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, \
                 DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16, \
                 DT_HALF, DT_UINT32, DT_UINT64]; attr=Tk:type,default=DT_INT32,allowed=[DT_INT16, \
                 DT_INT32, DT_INT64]; attr=index_type:type,default=DT_INT32,allowed=[DT_INT16, \
                 DT_INT32, DT_INT64]> [Op:TopKV2] name: ",
                index_type.kernel_name()
            ),
        ));
    }
    // unsorted, TensorFlow's CPU kernel returns the k entries in its heap's
    // order, which dist does not reproduce; the first k of the full sort
    // (k == 1, or k the whole row) are the same either way
    let n = input.dims().last().copied().unwrap_or(0) as i64;
    if !vm.truthy(sorted)? && k > 1 && k < n {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!("tf.math.top_k: sorted=False is not supported in dist (k={k} of {n})"),
        ));
    }
    let (v, i) = ops::scan::top_k(&input, k).map_err(runtime_err)?;
    let i = if index_type == DType::Int32 {
        i
    } else {
        ops::cast(&i, index_type).map_err(runtime_err)?
    };
    let class = crate::object::types::namedtuple::struct_class(
        "TopKV2",
        &["values", "indices"],
        "tensorflow.python.ops.gen_nn_ops",
    )?;
    vm.call(&class, vec![Value::Tensor(v), Value::Tensor(i)], Vec::new())
}

/// `on_value` at each index along a new axis of length `depth`, `off_value` elsewhere.
#[native(
    "one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None)"
)]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
fn one_hot(
    vm: &dyn Vm,
    indices: Tensor,
    depth: i64,
    on_value: Option<&Value>,
    off_value: Option<&Value>,
    axis: Option<&Value>,
    dtype: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let dtype = match opt_dtype(vm, dtype)? {
        Some(d) => d,
        None => match on_value.or(off_value) {
            Some(v) => to_tensor(vm, v, None)?.dtype(),
            None => DType::Float32,
        },
    };
    let value = |v: Option<&Value>, default: i64| -> PyResult<Tensor> {
        match v {
            Some(v) => to_tensor(vm, v, Some(dtype)),
            None => to_tensor(vm, &Value::Int(default), Some(dtype)),
        }
    };
    let on = value(on_value, 1)?;
    let off = value(off_value, 0)?;
    let axis = match axis {
        Some(v) => axis_arg(vm, v)?,
        None => -1,
    };
    // TensorFlow converts `depth` to an int32 tensor, wrapping as a C cast
    // does: `10**12` is -727379968, refused as negative.
    let depth = depth as i32;
    if depth < 0 {
        return Err(runtime_err(crate::runtime::Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "OneHot",
            &current_device(vm),
            &format!("depth must be non-negative, got: {depth}"),
            "OneHot",
            "",
        )));
    }
    let oom = super::create::kernel_oom(vm, dtype, "OneHot", "");
    let r = ops::scan::one_hot(&indices, depth.into(), &on, &off, axis).map_err(|e| {
        // A buffer the allocator refused (not past the element cap): the
        // output's shape, as TensorFlow's allocator names it.
        if e.kind() == crate::runtime::ErrorKind::ResourceExhausted {
            let mut dims = indices.dims().to_vec();
            let at = if axis < 0 {
                dims.len()
            } else {
                (axis as usize).min(dims.len())
            };
            dims.insert(at, depth as usize);
            let text = crate::runtime::Shape::new(&dims).bracket_text_compact();
            oom(crate::runtime::Error::new(
                e.kind(),
                format!("OOM when allocating tensor with shape{text}"),
            ))
        } else {
            e
        }
    });
    placed(vm, r)
}

/// `t` with its values limited to `[clip_value_min, clip_value_max]`.
#[native("clip_by_value(t, clip_value_min, clip_value_max, name=None)")]
fn clip_by_value(
    vm: &dyn Vm,
    t: Tensor,
    clip_value_min: &Value,
    clip_value_max: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let hi = operand(vm, clip_value_max, t.dtype(), t.device(), false)?;
    let lo = operand(vm, clip_value_min, t.dtype(), t.device(), false)?;
    // the ops run under the caller's name, so their errors carry no `name:`
    let unnamed = |e: crate::runtime::Error| {
        let msg = e.message();
        let msg = msg.strip_suffix(" name: ").unwrap_or(msg);
        runtime_err(crate::runtime::Error::new(e.kind(), msg))
    };
    let r = ops::binary(BinaryOp::Minimum, &t, &hi)
        .and_then(|m| ops::binary(BinaryOp::Maximum, &m, &lo))
        .map_err(unnamed)?;
    if r.shape() != t.shape() {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("Shapes {} and {} are incompatible", t.shape(), r.shape()),
        ));
    }
    Ok(r)
}

/// `t` scaled so that its L2 norm (over `axes`) is at most `clip_norm` (a
/// `tf.IndexedSlices`: its values, as TensorFlow clips them).
#[native("clip_by_norm(t, clip_norm, axes=None, name=None)")]
fn clip_by_norm(
    vm: &dyn Vm,
    t: &Value,
    clip_norm: &Value,
    axes: &Value,
    _name: &Value,
) -> PyResult<Value> {
    if let Some(s) = super::indexed_slices::as_slices(vm, t)? {
        let values = Value::Tensor(s.values.clone());
        let clipped = clip_tensor_by_norm(vm, to_tensor(vm, &values, None)?, clip_norm, axes)?;
        return Ok(super::indexed_slices::slices_value(
            crate::runtime::autodiff::Slices {
                values: clipped,
                ..s
            },
        ));
    }
    let t = to_tensor(vm, t, None)?;
    clip_tensor_by_norm(vm, t, clip_norm, axes).map(Value::Tensor)
}

fn clip_tensor_by_norm(
    vm: &dyn Vm,
    t: Tensor,
    clip_norm: &Value,
    axes: &Value,
) -> PyResult<Tensor> {
    let axes = super::convert::axes_arg(vm, axes)?;
    let norm = (|| {
        let sq = ops::binary(BinaryOp::Mul, &t, &t)?;
        let l2sum = ops::reduce(ReduceOp::Sum, &sq, axes.as_deref(), true)?;
        let zero = Tensor::zeros(l2sum.dtype(), &[], l2sum.device())?;
        let pred = ops::binary(BinaryOp::Greater, &l2sum, &zero)?;
        let ones = Tensor::ones(l2sum.dtype(), l2sum.dims(), l2sum.device())?;
        let safe = ops::where_select(&pred, &l2sum, &ones)?;
        ops::where_select(&pred, &ops::unary(UnaryOp::Sqrt, &safe)?, &l2sum)
    })()
    .map_err(runtime_err)?;
    // clip_norm converts to t's dtype only after the norm is computed, as in TensorFlow
    let clip = operand(vm, clip_norm, t.dtype(), t.device(), false)?;
    let r = (|| {
        let scaled = ops::binary(BinaryOp::Mul, &t, &clip)?;
        let denom = ops::binary(BinaryOp::Maximum, &norm, &clip)?;
        ops::binary(BinaryOp::RealDiv, &scaled, &denom)
    })();
    placed(vm, r)
}

/// The tensors scaled by `clip_norm / max(global_norm, clip_norm)`, and the global norm.
#[native("clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None)")]
fn clip_by_global_norm(
    vm: &dyn Vm,
    t_list: &Value,
    clip_norm: &Value,
    use_norm: Option<&Value>,
    _name: &Value,
) -> PyResult<Value> {
    let list = t_list;
    if !matches!(list, Value::List(_) | Value::Tuple(_)) {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "`t_list` should be a sequence of tensors. Received {}.",
                vm.repr(&vm.type_of(list))?
            ),
        ));
    }
    let items = vm.collect(list)?;
    let mut ts: Vec<Option<Tensor>> = Vec::with_capacity(items.len());
    // an IndexedSlices is clipped by its values and stays one
    let mut slices = Vec::with_capacity(items.len());
    for v in &items {
        let s = super::indexed_slices::as_slices(vm, v)?;
        ts.push(match (v, &s) {
            (Value::None, _) => None,
            (_, Some(s)) => Some(s.values.clone()),
            (v, None) => Some(to_tensor(vm, v, None)?),
        });
        slices.push(s);
    }
    let present: Vec<&Tensor> = ts.iter().flatten().collect();
    let Some(first) = present.first() else {
        return Err(PyErr::new(
            ExcType::ValueError,
            "clip_by_global_norm: t_list holds no tensor",
        ));
    };
    let dtype = first.dtype();
    let norm = match use_norm {
        Some(v) => to_tensor(vm, v, Some(dtype))?,
        None => super::linalg::global_norm_of(&present).map_err(runtime_err)?,
    };
    let clip = operand(vm, clip_norm, norm.dtype(), norm.device(), false)?;
    let r = (|| {
        let one = Tensor::ones(norm.dtype(), &[], norm.device())?;
        let inv = ops::binary(BinaryOp::RealDiv, &one, &norm)?;
        let inv_clip = ops::binary(BinaryOp::RealDiv, &one, &clip)?;
        let finite = ops::binary(
            BinaryOp::Mul,
            &clip,
            &ops::binary(BinaryOp::Minimum, &inv, &inv_clip)?,
        )?;
        // `+ (norm - norm)` makes the scale NaN when the norm is not finite
        let nan = ops::binary(BinaryOp::Sub, &norm, &norm)?;
        let scale = ops::binary(BinaryOp::Add, &finite, &nan)?;
        let mut out = Vec::with_capacity(ts.len());
        for t in &ts {
            out.push(match t {
                Some(t) => Value::Tensor(ops::binary(
                    BinaryOp::Mul,
                    t,
                    &ops::cast(&scale, t.dtype())?,
                )?),
                None => Value::None,
            });
        }
        Ok((out, norm.clone()))
    })();
    let (mut out, norm) = r.map_err(runtime_err)?;
    for (o, s) in out.iter_mut().zip(slices) {
        if let (Some(s), Value::Tensor(values)) = (s, &*o) {
            *o = super::indexed_slices::slices_value(crate::runtime::autodiff::Slices {
                values: values.clone(),
                ..s
            });
        }
    }
    Ok(Value::tuple(vec![Value::list(out), Value::Tensor(norm)]))
}

/// Adds the ops to `tf` (`top_level`) or to `tf.math`.
pub fn register(m: &mut ModuleBuilder, top_level: bool) {
    m.add(cumsum::DEF);
    if top_level {
        m.add(sort::DEF)
            .add(argsort::DEF)
            .add(one_hot::DEF)
            .add(clip_by_value::DEF)
            .add(clip_by_norm::DEF)
            .add(clip_by_global_norm::DEF);
    } else {
        m.add(cumprod::DEF);
        register_top_k(m);
    }
}

/// Adds `top_k` (under `tf.math` and `tf.nn`).
pub fn register_top_k(m: &mut ModuleBuilder) {
    m.add(top_k::DEF);
}
