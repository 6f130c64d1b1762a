//! `tf.nn` layers and losses: `bias_add`, `l2_loss`, the cross-entropies
//! (`sparse_softmax_…`, `softmax_…`, `sigmoid_cross_entropy_with_logits`),
//! `gelu`, `moments`, `batch_normalization`, `dropout`, and
//! `tf.math.squared_difference` with the other one-kernel binary ops of
//! `tf.math` that are not operators (`divide_no_nan`, `xlogy`…). Each does what TensorFlow's Python
//! wrapper does (argument checks and their messages, casts, reshapes, the
//! same op sequence, so gradients follow); the one-kernel ops themselves are
//! in `runtime::ops::nn_loss`.

use super::convert::{placed, runtime_err, to_tensor, Ints};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::autodiff::tape;
use crate::runtime::format::numpy_str;
use crate::runtime::ops::zero_safe::ZeroSafe;
use crate::runtime::ops::{self, nn_loss};
use crate::runtime::{BinaryOp, DType, ReduceOp, Scalar, Semantics, Tensor, UnaryOp};
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

type RResult<T> = crate::runtime::Result<T>;

fn value_error(msg: String) -> PyErr {
    PyErr::new(ExcType::ValueError, msg)
}

/// `<dtype: 'float32'>`, as a dtype's repr reads.
fn dtype_repr(d: DType) -> String {
    format!("<dtype: '{}'>", d.name())
}

/// A 0-d tensor of `like`'s dtype holding `v` (Python's float `v` converted
/// to the tensor's dtype, as an operand is).
fn scalar(like: &Tensor, v: f64) -> RResult<Tensor> {
    Tensor::fill(&[], &Scalar::Float(v), like.dtype(), like.device())
}

/// `math_ops.cast(v, dtype)` of a Python float: a float32 constant first.
fn f32_const_cast(like: &Tensor, v: f64) -> RResult<Tensor> {
    scalar(like, v as f32 as f64)
}

/// `x` cast to `dtype` (the same tensor when it already is).
fn cast_to(x: &Tensor, dtype: DType) -> RResult<Tensor> {
    if x.dtype() == dtype {
        Ok(x.clone())
    } else {
        ops::cast(x, dtype)
    }
}

/// Adds `bias` to `value` along its channel axis.
#[native("bias_add(value, bias, data_format=None, name=None)")]
fn bias_add(
    vm: &dyn Vm,
    value: &Value,
    bias: &Value,
    data_format: Option<String>,
    _name: &Value,
) -> PyResult<Tensor> {
    let nchw = match data_format.as_deref() {
        None => false,
        Some(f) if f.starts_with("NC") => true,
        Some(f) if f.starts_with('N') && f.ends_with('C') => false,
        Some(f) => {
            return Err(value_error(format!(
                "`data_format` must be of the form `N...C` or `NC...`. Received: data_format={f}"
            )))
        }
    };
    let (v, b) = matching(vm, value, bias)?;
    placed(vm, nn_loss::bias_add(&v, &b, nchw))
}

/// `(x - y) ** 2`, element-wise with broadcasting.
#[native("squared_difference(x, y, name=None)")]
fn squared_difference(vm: &dyn Vm, x: &Value, y: &Value, _name: &Value) -> PyResult<Tensor> {
    let (a, b) = matching(vm, x, y)?;
    placed(vm, nn_loss::squared_difference(&a, &b))
}

/// `x / y`, and 0 where `y` is 0 (element-wise, with broadcasting).
#[native("divide_no_nan(x, y, name=None)")]
fn divide_no_nan(vm: &dyn Vm, x: &Value, y: &Value, _name: &Value) -> PyResult<Tensor> {
    let (a, b) = matching(vm, x, y)?;
    placed(vm, nn_loss::div_no_nan(&a, &b))
}

/// One of the zero-safe binary ops (`runtime::ops::zero_safe`) of two values
/// converted as a binary op converts them.
fn zero_safe(vm: &dyn Vm, op: ZeroSafe, x: &Value, y: &Value) -> PyResult<Tensor> {
    let (a, b) = matching(vm, x, y)?;
    placed(vm, ops::zero_safe::zero_safe(op, &a, &b))
}

/// `x * y`, and 0 where `y` is 0 even if `x` is NaN or infinite.
#[native("multiply_no_nan(x, y, name=None)")]
fn multiply_no_nan(vm: &dyn Vm, x: &Value, y: &Value, _name: &Value) -> PyResult<Tensor> {
    zero_safe(vm, ZeroSafe::MulNoNan, x, y)
}

/// `x * log(y)`, and 0 where `x` is 0.
#[native("xlogy(x, y, name=None)")]
fn xlogy(vm: &dyn Vm, x: &Value, y: &Value, _name: &Value) -> PyResult<Tensor> {
    zero_safe(vm, ZeroSafe::Xlogy, x, y)
}

/// `x / y`, and 0 where `x` is 0.
#[native("xdivy(x, y, name=None)")]
fn xdivy(vm: &dyn Vm, x: &Value, y: &Value, _name: &Value) -> PyResult<Tensor> {
    zero_safe(vm, ZeroSafe::Xdivy, x, y)
}

/// `x * log1p(y)`, and 0 where `x` is 0.
#[native("xlog1py(x, y, name=None)")]
fn xlog1py(vm: &dyn Vm, x: &Value, y: &Value, _name: &Value) -> PyResult<Tensor> {
    zero_safe(vm, ZeroSafe::Xlog1py, x, y)
}

/// `1 / x`, and 0 where `x` is 0: `div_no_nan` of a one of `x`'s dtype.
#[native("reciprocal_no_nan(x, name=None)")]
fn reciprocal_no_nan(vm: &dyn Vm, x: &Value, _name: &Value) -> PyResult<Tensor> {
    let x = to_tensor(vm, x, None)?;
    let one = Tensor::ones(x.dtype(), &[], x.device()).map_err(runtime_err)?;
    placed(vm, nn_loss::div_no_nan(&one, &x))
}

/// `scalar * x` for a 0-d `scalar` (converted to `x`'s dtype); an
/// `IndexedSlices` `x` stays one, its values scaled.
#[native("scalar_mul(scalar, x, name=None)")]
fn scalar_mul(vm: &dyn Vm, scalar: &Value, x: &Value, _name: &Value) -> PyResult<Value> {
    use crate::object::tensor::indexed_slices::{as_slices, slices_value};
    let slices = as_slices(vm, x)?;
    let dense = match &slices {
        Some(s) => s.values.clone(),
        None => to_tensor(vm, x, None)?,
    };
    let s = to_tensor(vm, scalar, Some(dense.dtype()))?;
    if s.rank() != 0 {
        return Err(value_error(format!(
            "The input scalar must be a 0-D value. Received shape {}.",
            s.shape().tuple_text()
        )));
    }
    let scaled = placed(vm, ops::mul(&s, &dense))?;
    Ok(match slices {
        Some(mut sl) => {
            sl.values = scaled;
            slices_value(sl)
        }
        None => Value::Tensor(scaled),
    })
}

/// `_ensure_xent_args`.
fn ensure_xent_args(vm: &dyn Vm, name: &str, labels: &Value, logits: &Value) -> PyResult<()> {
    if labels.is_none() || logits.is_none() {
        return Err(value_error(format!(
            "Both `labels` and `logits` must be provided for {name}Received: labels={} and \
             logits={}",
            vm.str(labels)?,
            vm.str(logits)?
        )));
    }
    Ok(())
}

/// A tensor as an f-string shows it (its numpy value).
fn fstr(t: &Tensor) -> String {
    numpy_str(t)
}

/// Cross-entropy of class ids `labels` against `logits` (softmax over the last axis).
#[native("sparse_softmax_cross_entropy_with_logits(labels, logits, name=None)")]
fn sparse_softmax_cross_entropy_with_logits(
    vm: &dyn Vm,
    labels: &Value,
    logits: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    ensure_xent_args(
        vm,
        "sparse_softmax_cross_entropy_with_logits",
        labels,
        logits,
    )?;
    let labels = to_tensor(vm, labels, None)?;
    let logits = to_tensor(vm, logits, None)?;
    let half = logits.dtype() == DType::Float16;
    let precise = if half {
        ops::cast(&logits, DType::Float32).map_err(runtime_err)?
    } else {
        logits.clone()
    };
    if logits.rank() == 0 {
        return Err(value_error(format!(
            "`logits` cannot be a scalar. Received logits={}`",
            fstr(&logits)
        )));
    }
    let (lr, gr) = (labels.rank(), logits.rank());
    if lr != gr - 1 {
        return Err(value_error(format!(
            "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape={} \
             of rank {lr} and logits.shape={} of rank {gr}",
            labels.shape().tuple_text(),
            logits.shape().tuple_text()
        )));
    }
    if labels.dims() != &logits.dims()[..gr - 1] {
        return Err(value_error(format!(
            "`labels.shape` must equal `logits.shape` except for the last dimension. Received: \
             labels.shape={} and logits.shape={}",
            labels.shape().tuple_text(),
            logits.shape().tuple_text()
        )));
    }
    let r = (|| {
        let cost = if gr == 2 {
            nn_loss::sparse_softmax_xent(&precise, &labels)?.swap_remove(0)
        } else {
            let classes = logits.dims()[gr - 1] as i64;
            let rows: usize = logits.dims()[..gr - 1].iter().product();
            let p = ops::reshape(&precise, &[rows as i64, classes], Semantics::Tf)?;
            let l = ops::reshape(&labels, &[-1], Semantics::Tf)?;
            let cost = nn_loss::sparse_softmax_xent(&p, &l)?.swap_remove(0);
            let shape: Vec<i64> = labels.dims().iter().map(|&d| d as i64).collect();
            ops::reshape(&cost, &shape, Semantics::Tf)?
        };
        if half {
            ops::cast(&cost, DType::Float16)
        } else {
            Ok(cost)
        }
    })();
    placed(vm, r)
}

/// `_flatten_outer_dims`: `[-1, last]`.
fn flatten_outer(x: &Tensor) -> RResult<Tensor> {
    if x.rank() == 0 {
        return Err(ops::kernel_error(
            "Slice",
            &x.device(),
            "Expected begin[0] == 0 (got -1) and size[0] == 0 (got 1) when input.dim_size(0) == 0",
            "",
        ));
    }
    let last = x.dims()[x.rank() - 1] as i64;
    // [-1, last] as TensorFlow infers it, also when `last` is 0
    let outer: usize = x.dims()[..x.rank() - 1].iter().product();
    ops::reshape(x, &[outer as i64, last], Semantics::Tf)
}

/// Cross-entropy of probability distributions `labels` against `logits`
/// (softmax along `axis`).
#[native("softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None)")]
fn softmax_cross_entropy_with_logits(
    vm: &dyn Vm,
    labels: &Value,
    logits: &Value,
    axis: Option<i64>,
    _name: &Value,
) -> PyResult<Tensor> {
    let axis = axis.unwrap_or(-1);
    let logits = to_tensor(vm, logits, None)?;
    let labels = to_tensor(vm, labels, None)?;
    let half = logits.dtype() == DType::Float16;
    let r = (|| {
        let mut precise = if half {
            ops::cast(&logits, DType::Float32)?
        } else {
            logits.clone()
        };
        let mut labels = cast_to(&labels, precise.dtype())?;
        let rank = precise.rank() as i64;
        if axis != -1 {
            // _move_dim_to_end: range(axis) ++ range(axis + 1, rank) ++ [axis]
            if axis + 1 > rank {
                return Err(ops::kernel_error(
                    "Range",
                    &precise.device(),
                    &format!(
                        "Requires start <= limit when delta > 0: {}/{rank}",
                        axis + 1
                    ),
                    " name: ",
                ));
            }
            let perm: Vec<i64> = (0..axis.max(0))
                .chain(axis + 1..rank)
                .chain([axis])
                .collect();
            precise = ops::transpose(&precise, Some(&perm))?;
            labels = ops::transpose(&labels, Some(&perm))?;
        }
        let input_shape: Vec<i64> = precise.dims().iter().map(|&d| d as i64).collect();
        let flat_logits = flatten_outer(&precise)?;
        let flat_labels = flatten_outer(&labels)?;
        let cost = nn_loss::softmax_xent(&flat_logits, &flat_labels)?.swap_remove(0);
        let cost = ops::reshape(&cost, &input_shape[..input_shape.len() - 1], Semantics::Tf)?;
        if half {
            ops::cast(&cost, DType::Float16)
        } else {
            Ok(cost)
        }
    })();
    placed(vm, r)
}

/// The logistic loss `max(x, 0) - x * z + log(1 + exp(-abs(x)))` of
/// logits `x` and labels `z`.
#[native("sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None)")]
fn sigmoid_cross_entropy_with_logits(
    vm: &dyn Vm,
    labels: &Value,
    logits: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    ensure_xent_args(vm, "sigmoid_cross_entropy_with_logits", labels, logits)?;
    let logits = to_tensor(vm, logits, None)?;
    let labels = to_tensor(vm, labels, None)?;
    if logits.shape() != labels.shape() {
        return Err(value_error(format!(
            "`logits` and `labels` must have the same shape, received ({} vs {}).",
            logits.shape().tuple_text(),
            labels.shape().tuple_text()
        )));
    }
    let r = (|| {
        let zeros = Tensor::zeros(logits.dtype(), logits.dims(), logits.device())?;
        let cond = ops::binary(BinaryOp::GreaterEqual, &logits, &zeros)?;
        let relu_logits = ops::where_select(&cond, &logits, &zeros)?;
        let neg = ops::unary(UnaryOp::Neg, &logits)?;
        let neg_abs_logits = ops::where_select(&cond, &neg, &logits)?;
        let lhs = ops::sub(&relu_logits, &ops::binary(BinaryOp::Mul, &logits, &labels)?)?;
        let rhs = ops::unary(UnaryOp::Log1p, &ops::unary(UnaryOp::Exp, &neg_abs_logits)?)?;
        ops::add(&lhs, &rhs)
    })();
    placed(vm, r)
}

/// Gaussian error linear unit: `x * P(X <= x)` for a standard normal `X`
/// (`approximate=True`: the tanh approximation).
#[native("gelu(features, approximate=False, name=None)")]
fn gelu(vm: &dyn Vm, features: Tensor, approximate: bool, _name: &Value) -> PyResult<Tensor> {
    let f = features;
    if !f.dtype().is_floating() {
        return Err(value_error(format!(
            "`features.dtype` must be a floating point tensor.Received:features.dtype={}",
            dtype_repr(f.dtype())
        )));
    }
    let mul = |a: &Tensor, b: &Tensor| ops::binary(BinaryOp::Mul, a, b);
    let r = (|| {
        let half_f = mul(&scalar(&f, 0.5)?, &f)?;
        if approximate {
            let coeff = f32_const_cast(&f, 0.044715)?;
            let cube = ops::pow(&f, &scalar(&f, 3.0)?)?;
            let inner = ops::add(&f, &mul(&coeff, &cube)?)?;
            let t = ops::unary(
                UnaryOp::Tanh,
                &mul(&scalar(&f, 0.7978845608028654)?, &inner)?,
            )?;
            mul(&half_f, &ops::add(&scalar(&f, 1.0)?, &t)?)
        } else {
            let neg = ops::unary(UnaryOp::Neg, &f)?;
            let arg = mul(&neg, &f32_const_cast(&f, std::f64::consts::FRAC_1_SQRT_2)?)?;
            mul(&half_f, &ops::unary(UnaryOp::Erfc, &arg)?)
        }
    })();
    placed(vm, r)
}

/// The mean and variance of `x` over `axes`.
#[native("moments(x, axes, shift=None, keepdims=False, name=None)")]
fn moments(
    vm: &dyn Vm,
    x: Tensor,
    axes: Ints,
    _shift: &Value,
    keepdims: bool,
    _name: &Value,
) -> PyResult<Value> {
    let half = x.dtype() == DType::Float16;
    let ax = axes.0;
    let r = (|| {
        let y = if half {
            ops::cast(&x, DType::Float32)?
        } else {
            x.clone()
        };
        let mean = ops::reduce(ReduceOp::Mean, &y, Some(&ax), true)?;
        let sq = nn_loss::squared_difference(&y, &tape::detached(&mean))?;
        let mut variance = ops::reduce(ReduceOp::Mean, &sq, Some(&ax), true)?;
        let mut mean = mean;
        if !keepdims {
            mean = ops::squeeze(&mean, Some(&ax))?;
            variance = ops::squeeze(&variance, Some(&ax))?;
        }
        if half {
            mean = ops::cast(&mean, DType::Float16)?;
            variance = ops::cast(&variance, DType::Float16)?;
        }
        Ok((mean, variance))
    })();
    let (m, v) = r.map_err(runtime_err)?;
    let m = Value::Tensor(placed(vm, Ok(m))?);
    let v = Value::Tensor(placed(vm, Ok(v))?);
    Ok(Value::tuple(vec![m, v]))
}

/// `-v` of a Python number or a tensor.
fn negate(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    match v {
        Value::Int(i) => Ok(Value::Int(-i)),
        Value::Float(f) => Ok(Value::Float(-f)),
        _ => {
            let t = to_tensor(vm, v, None)?;
            Ok(Value::Tensor(placed(vm, ops::unary(UnaryOp::Neg, &t))?))
        }
    }
}

/// `(x - mean) / sqrt(variance + variance_epsilon) * scale + offset`, as
/// TensorFlow orders it: `x * inv + (offset - mean * inv)`.
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
#[native("batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None)")]
fn batch_normalization(
    vm: &dyn Vm,
    x: &Value,
    mean: &Value,
    variance: &Value,
    offset: &Value,
    scale: &Value,
    variance_epsilon: &Value,
    _name: &Value,
) -> PyResult<Value> {
    // Python's own arithmetic on the arguments, as the wrapper's operators
    let sum = vm.binop(BinOp::Add, variance, variance_epsilon)?;
    let sum = to_tensor(vm, &sum, None)?;
    let mut inv = Value::Tensor(placed(vm, ops::unary(UnaryOp::Rsqrt, &sum))?);
    if !scale.is_none() {
        inv = vm.binop(BinOp::Mult, &inv, scale)?;
    }
    let x_t = to_tensor(vm, x, None)?;
    let dtype = x_t.dtype();
    let cast_v = |v: &Value| -> PyResult<Value> {
        let t = to_tensor(vm, v, None)?;
        Ok(Value::Tensor(placed(vm, cast_to(&t, dtype))?))
    };
    let mean_inv = vm.binop(BinOp::Mult, mean, &inv)?;
    let shift = if offset.is_none() {
        vm.binop(BinOp::Mult, &negate(vm, mean)?, &inv)?
    } else {
        vm.binop(BinOp::Sub, offset, &mean_inv)?
    };
    let scaled = vm.binop(BinOp::Mult, x, &cast_v(&inv)?)?;
    vm.binop(BinOp::Add, &scaled, &cast_v(&shift)?)
}

/// The noise shape: `x`'s shape, or `noise_shape` with its `None`s filled
/// from `x`'s shape when the ranks agree.
fn noise_shape_of(vm: &dyn Vm, x: &Tensor, noise_shape: &Value) -> PyResult<Tensor> {
    let dims_tensor = |d: Vec<i64>| -> PyResult<Tensor> {
        let n = d.len();
        let v: Vec<i32> = d.into_iter().map(|x| x as i32).collect();
        Tensor::from_vec(v, &[n]).map_err(runtime_err)
    };
    match noise_shape {
        Value::None => dims_tensor(x.dims().iter().map(|&d| d as i64).collect()),
        Value::List(_) | Value::Tuple(_) => {
            let items = vm.collect(noise_shape)?;
            if items.len() == x.rank() && items.iter().any(Value::is_none) {
                let mut dims = Vec::with_capacity(items.len());
                for (i, it) in items.iter().enumerate() {
                    dims.push(match it {
                        Value::None => x.dims()[i] as i64,
                        v => crate::object::types::int_arg(v, vm)?,
                    });
                }
                return dims_tensor(dims);
            }
            to_tensor(vm, noise_shape, None)
        }
        v => to_tensor(vm, v, None),
    }
}

/// `_dropout`: the checks, the scaling and the mask; `sampler` draws the
/// uniform numbers for a noise shape and dtype, `skip` is the fast path's
/// dummy draw for `rate == 0`.
fn dropout_with(
    vm: &dyn Vm,
    (x, rate, noise_shape): (&Value, &Value, &Value),
    sampler: &dyn Fn(&Tensor, DType) -> PyResult<Tensor>,
    skip: &dyn Fn() -> PyResult<()>,
) -> PyResult<Tensor> {
    let rate_number = match rate {
        Value::Bool(b) => Some(*b as i64 as f64),
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    if let Some(r) = rate_number {
        if !(0.0..1.0).contains(&r) {
            return Err(value_error(format!(
                "`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={}",
                vm.str(rate)?
            )));
        }
    }
    let x = to_tensor(vm, x, None)?;
    let dtype = x.dtype();
    if !dtype.is_floating() {
        return Err(value_error(format!(
            "`x.dtype` must be a floating point tensor as `x` will be scaled. Received: \
             x_dtype={}",
            dtype_repr(dtype)
        )));
    }
    if rate_number == Some(0.0) {
        skip()?;
        return Ok(x);
    }
    let (ret, rate_t) = match (rate_number, rate) {
        (Some(r), _) => {
            let scale = 1.0 / (1.0 - r);
            let ret = ops::binary(BinaryOp::Mul, &x, &scalar(&x, scale).map_err(runtime_err)?);
            (
                ret.map_err(runtime_err)?,
                scalar(&x, r).map_err(runtime_err)?,
            )
        }
        (None, Value::Tensor(t)) => {
            if t.rank() != 0 {
                return Err(value_error(format!(
                    "Shapes {} and () are incompatible",
                    t.shape().tuple_text()
                )));
            }
            let r = if t.dtype() != dtype {
                if !(t.dtype().is_floating() && dtype.is_floating()) || t.dtype() != dtype {
                    return Err(value_error(format!(
                        "`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype={} \
                         and rate.dtype={}",
                        dtype_repr(dtype),
                        dtype_repr(t.dtype())
                    )));
                }
                t.clone()
            } else {
                t.clone()
            };
            let one = scalar(&x, 1.0).map_err(runtime_err)?;
            let keep = ops::sub(&one, &r).map_err(runtime_err)?;
            (ops::truediv(&x, &keep).map_err(runtime_err)?, r)
        }
        (None, v) => {
            return Err(value_error(format!(
                "`rate` must be a scalar or scalar tensor. Received: rate={}",
                vm.str(v)?
            )))
        }
    };
    let shape = noise_shape_of(vm, &x, noise_shape)?;
    let random = sampler(&shape, dtype)?;
    let r = (|| {
        let keep_mask = ops::binary(BinaryOp::GreaterEqual, &random, &rate_t)?;
        let zero = scalar(&x, 0.0)?;
        ops::where_select(&keep_mask, &ret, &zero)
    })();
    placed(vm, r)
}

/// Sets elements to zero with probability `rate` and scales the rest by
/// `1 / (1 - rate)`.
#[native("dropout(x, rate, noise_shape=None, seed=None, name=None)")]
fn dropout(
    vm: &dyn Vm,
    x: &Value,
    rate: &Value,
    noise_shape: &Value,
    seed: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    dropout_with(
        vm,
        (x, rate, noise_shape),
        &|shape, dtype| super::random::uniform_unit(vm, shape, dtype, seed),
        &|| super::random::skip_seed(vm, seed),
    )
}

/// `tf.nn.experimental.stateless_dropout`: `dropout` with the mask drawn
/// by `tf.random.stateless_uniform(seed=seed)`.
#[native("stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None)")]
fn stateless_dropout(
    vm: &dyn Vm,
    x: &Value,
    rate: &Value,
    seed: &Value,
    rng_alg: &Value,
    noise_shape: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    dropout_with(
        vm,
        (x, rate, noise_shape),
        &|shape, dtype| {
            super::random::stateless_uniform(
                vm,
                &Value::Tensor(shape.clone()),
                seed,
                Value::Int(0),
                Value::None,
                Some(dtype),
                &Value::None,
                rng_alg,
            )
        },
        &|| Ok(()),
    )
}

/// Adds these to the `tf.nn` namespace `n`.
pub fn register_nn(n: &mut ModuleBuilder) {
    n.add(bias_add::DEF)
        .add(sparse_softmax_cross_entropy_with_logits::DEF)
        .add(softmax_cross_entropy_with_logits::DEF)
        .add(sigmoid_cross_entropy_with_logits::DEF)
        .add(gelu::DEF)
        .add(moments::DEF)
        .add(batch_normalization::DEF)
        .add(dropout::DEF);
    n.namespace("experimental", |e| {
        e.add(stateless_dropout::DEF);
    });
}

/// Adds the ones TensorFlow also exports at its top level to `tf`.
pub fn register_top(m: &mut ModuleBuilder) {
    m.add(scalar_mul::DEF);
}

/// Adds `squared_difference` and the other binary ops to the `tf.math` namespace `n`.
pub fn register_math(n: &mut ModuleBuilder) {
    n.add(squared_difference::DEF)
        .add(divide_no_nan::DEF)
        .add(multiply_no_nan::DEF)
        .add(xlogy::DEF)
        .add(xdivy::DEF)
        .add(xlog1py::DEF)
        .add(reciprocal_no_nan::DEF)
        .add(scalar_mul::DEF);
}
