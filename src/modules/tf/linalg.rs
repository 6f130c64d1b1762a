//! `tf.linalg` and the linear-algebra names TensorFlow also exports at the
//! top level (`tf.eye`), plus `l2_normalize`, `softplus`, `log_sigmoid`,
//! the segment sums, `bincount` and `in_top_k` of `tf.math`. Registration
//! and argument conversion only; the work is in `runtime::ops`.

use super::convert::{axes, operand, placed, runtime_err, to_tensor, Ints};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::placement::current_device;
use crate::runtime::{ops, DType, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Matrix-vector product `a @ b`.
#[native("matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
fn matvec(
    vm: &dyn Vm,
    a: &Value,
    b: &Value,
    transpose_a: &Value,
    _adjoint_a: &Value,
    _a_is_sparse: &Value,
    _b_is_sparse: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let (x, y) = matching(vm, a, b)?;
    let ta = vm.truthy(transpose_a)?;
    placed(vm, ops::matrix::matvec(&x, &y, ta))
}

/// Swaps the last two dimensions.
#[native("matrix_transpose(a, name='matrix_transpose', conjugate=False)")]
fn matrix_transpose(vm: &dyn Vm, a: Tensor, _name: &Value, _conjugate: &Value) -> PyResult<Tensor> {
    placed(vm, ops::matrix::matrix_transpose(&a))
}

/// The main diagonal of each innermost matrix.
#[native("diag_part(input, name='diag_part', k=0, padding_value=0, align='RIGHT_LEFT')")]
fn diag_part(
    vm: &dyn Vm,
    input: Tensor,
    _name: &Value,
    _k: &Value,
    _padding_value: &Value,
    _align: &Value,
) -> PyResult<Tensor> {
    placed(vm, ops::matrix::diag_part(&input, " name: diag_part"))
}

/// Square matrices with the given diagonals.
#[native("diag(diagonal, name='diag', k=0, num_rows=-1, num_cols=-1, padding_value=0, align='RIGHT_LEFT')")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
fn diag(
    vm: &dyn Vm,
    diagonal: Tensor,
    _name: &Value,
    _k: &Value,
    _num_rows: &Value,
    _num_cols: &Value,
    _padding_value: &Value,
    _align: &Value,
) -> PyResult<Tensor> {
    placed(vm, ops::matrix::diag(&diagonal))
}

/// `input` with the main diagonal of each innermost matrix replaced by
/// `diagonal`.
#[native("set_diag(input, diagonal, name='set_diag', k=0, align='RIGHT_LEFT')")]
fn set_diag(
    vm: &dyn Vm,
    input: Tensor,
    diagonal: &Value,
    _name: &Value,
    k: &Value,
    _align: &Value,
) -> PyResult<Tensor> {
    if !matches!(k, Value::Int(0)) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.linalg.set_diag: only the main diagonal (k=0) is supported in dist",
        ));
    }
    let d = to_tensor(vm, diagonal, Some(input.dtype()))?;
    placed(vm, ops::matrix::set_diag(&input, &d))
}

/// Half the sum of the squares of `t`'s elements (`sum(t ** 2) / 2`).
#[native("l2_loss(t, name=None)")]
fn l2_loss(vm: &dyn Vm, t: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::l2_loss(&t))
}

/// TensorFlow's `global_norm`: `sqrt(2 * sum(l2_loss(t) for t in ts))`.
pub(super) fn global_norm_of(ts: &[&Tensor]) -> crate::runtime::Result<Tensor> {
    let halves = ts
        .iter()
        .map(|t| ops::l2_loss(t))
        .collect::<crate::runtime::Result<Vec<_>>>()?;
    let s = ops::reduce(
        crate::runtime::ReduceOp::Sum,
        &ops::stack(&halves, 0)?,
        None,
        false,
    )?;
    let two = Tensor::fill(
        &[],
        &crate::runtime::Scalar::Float(2.0),
        s.dtype(),
        s.device(),
    )?;
    ops::unary(
        crate::runtime::UnaryOp::Sqrt,
        &ops::binary(crate::runtime::BinaryOp::Mul, &s, &two)?,
    )
}

/// The global norm of several tensors: the L2 norm of all their values
/// together (`None` entries are skipped).
#[native("global_norm(t_list, name=None)")]
fn global_norm(vm: &dyn Vm, t_list: &Value, _name: &Value) -> PyResult<Tensor> {
    if !matches!(t_list, Value::List(_) | Value::Tuple(_)) {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "`t_list` should be a sequence of tensors. Received {}.",
                vm.repr(&vm.type_of(t_list))?
            ),
        ));
    }
    let mut ts = Vec::new();
    for v in vm.collect(t_list)? {
        if let Some(s) = super::indexed_slices::as_slices(vm, &v)? {
            ts.push(s.values);
        } else if !matches!(v, Value::None) {
            ts.push(to_tensor(vm, &v, None)?);
        }
    }
    let refs: Vec<&Tensor> = ts.iter().collect();
    placed(vm, global_norm_of(&refs))
}

/// The sum of each innermost matrix's diagonal.
#[native("trace(x, name=None)")]
fn trace(vm: &dyn Vm, x: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::matrix::trace(&x))
}

/// Identity matrices (optionally batched).
#[native("eye(num_rows, num_columns=None, batch_shape=None, dtype=None, name=None)")]
fn eye(
    vm: &dyn Vm,
    num_rows: i64,
    num_columns: Option<i64>,
    batch_shape: Option<Ints>,
    dtype: Option<DType>,
    _name: &Value,
) -> PyResult<Tensor> {
    let batch = batch_shape.map(|b| b.0).unwrap_or_default();
    let dtype = dtype.unwrap_or(DType::Float32);
    let device = current_device(vm);
    let oom = super::create::kernel_oom(vm, dtype, "MatrixDiagV3", " name: diag");
    placed(
        vm,
        ops::matrix::eye_batched(num_rows, num_columns, &batch, dtype, device).map_err(oom),
    )
}

/// `x` divided by its L2 norm along `axis`.
#[native("l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None)")]
fn l2_normalize(
    vm: &dyn Vm,
    x: Tensor,
    axis: Option<Ints>,
    epsilon: &Value,
    _name: &Value,
    _dim: &Value,
) -> PyResult<Tensor> {
    let eps = operand(vm, epsilon, x.dtype(), x.device(), false)?;
    placed(vm, ops::nn::l2_normalize(&x, axes(&axis), &eps))
}

/// `log(exp(features) + 1)`.
#[native("softplus(features, name=None)")]
fn softplus(vm: &dyn Vm, features: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::nn::softplus(&features))
}

/// `log(1 / (1 + exp(-x)))`.
#[native("log_sigmoid(x, name=None)")]
fn log_sigmoid(vm: &dyn Vm, x: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::nn::log_sigmoid(&x))
}

/// Sums of the rows of each (sorted) segment.
#[native("segment_sum(data, segment_ids, name=None)")]
fn segment_sum(vm: &dyn Vm, data: Tensor, segment_ids: Tensor, _name: &Value) -> PyResult<Tensor> {
    placed(vm, ops::segment::segment_sum(&data, &segment_ids))
}

/// Sums of the rows of each segment, in any order.
#[native("unsorted_segment_sum(data, segment_ids, num_segments, name=None)")]
fn unsorted_segment_sum(
    vm: &dyn Vm,
    data: Tensor,
    segment_ids: Tensor,
    num_segments: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    placed(
        vm,
        ops::segment::unsorted_segment_sum(&data, &segment_ids, num_segments),
    )
}

/// Counts (or summed weights) of each non-negative value.
#[native("bincount(arr, weights=None, minlength=None, maxlength=None, dtype=None, name=None, axis=None, binary_output=False)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
fn bincount(
    vm: &dyn Vm,
    arr: Tensor,
    weights: Option<Tensor>,
    minlength: Option<i64>,
    maxlength: Option<i64>,
    dtype: Option<DType>,
    _name: &Value,
    axis: &Value,
    binary_output: &Value,
) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(DType::Int32);
    if !matches!(axis, Value::None) || vm.truthy(binary_output)? {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.math.bincount: axis and binary_output are not supported in dist",
        ));
    }
    placed(
        vm,
        ops::segment::bincount(&arr, weights.as_ref(), minlength, maxlength, dtype),
    )
}

/// Whether each target is among its row's `k` largest predictions.
#[native("in_top_k(targets, predictions, k, name=None)")]
fn in_top_k(targets: Tensor, predictions: Tensor, k: i64, _name: &Value) -> PyResult<Tensor> {
    ops::segment::in_top_k(&targets, &predictions, k).map_err(runtime_err)
}

/// Tensor contraction by an Einstein-summation equation (one or two operands).
#[native("einsum(equation, *inputs, **kwargs)")]
fn einsum(vm: &dyn Vm, equation: &Value, inputs: &[Value], _kwargs: &Value) -> PyResult<Tensor> {
    let eq = match equation {
        Value::Str(s) => s.to_string(),
        other => vm.str(other)?,
    };
    if eq.contains('.') || inputs.len() > 2 {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.einsum: dist supports one or two operands without ellipses ('...')",
        ));
    }
    let mut ts: Vec<Tensor> = Vec::with_capacity(inputs.len());
    for v in inputs {
        ts.push(match ts.first() {
            Some(f) => {
                let (dt, dev) = (f.dtype(), f.device());
                match v {
                    Value::Tensor(t) => t.clone(),
                    v => operand(vm, v, dt, dev, false)?,
                }
            }
            None => to_tensor(vm, v, None)?,
        });
    }
    placed(vm, ops::einsum::einsum(&eq, &ts))
}

/// The vector norm (or Frobenius norm over two axes).
// `tf.norm(tensor, ord, axis, keepdims)`: vector norms (`'euclidean'`, 1,
// 2, inf) over one axis or all elements, and the Frobenius norm over two.
#[native("norm(tensor, ord='euclidean', axis=None, keepdims=None, name=None)")]
fn norm(
    vm: &dyn Vm,
    tensor: Tensor,
    ord: &Value,
    axis: &Value,
    keepdims: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    use crate::runtime::{BinaryOp, ReduceOp, UnaryOp};
    let t = tensor;
    let axes = super::convert::axes_arg(vm, axis)?;
    let keep = vm.truthy(keepdims)?;
    let matrix = axes.as_ref().is_some_and(|ax| ax.len() == 2);
    if axes
        .as_ref()
        .is_some_and(|ax| ax.len() > 2 || ax.is_empty())
    {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "'axis' must be None, an integer, or a tuple of 2 unique integers, got {}",
                vm.repr(axis)?
            ),
        ));
    }
    #[derive(PartialEq)]
    enum Ord {
        Euclidean,
        One,
        Inf,
    }
    let kind = match ord {
        Value::Str(s) if s.as_str() == "euclidean" => Some(Ord::Euclidean),
        Value::Str(s) if s.as_str() == "fro" && matrix => Some(Ord::Euclidean),
        Value::Int(2) if !matrix => Some(Ord::Euclidean),
        Value::Int(1) if !matrix => Some(Ord::One),
        Value::Float(f) if *f == 2.0 && !matrix => Some(Ord::Euclidean),
        Value::Float(f) if *f == 1.0 && !matrix => Some(Ord::One),
        Value::Float(f) if f.is_infinite() && *f > 0.0 && !matrix => Some(Ord::Inf),
        _ => None,
    };
    let Some(kind) = kind else {
        let supported = match ord {
            Value::Int(i) => *i > 0,
            Value::Float(f) => *f > 0.0,
            _ => false,
        };
        if matrix || supported {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "tf.norm: ord={} over {} is not supported in dist",
                    vm.repr(ord)?,
                    if matrix { "a matrix" } else { "a vector" }
                ),
            ));
        }
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "'ord' must be a supported vector norm, got {}",
                vm.str(ord)?
            ),
        ));
    };
    // TensorFlow's reduction errors here carry no `name:` (tf.norm names them)
    let unnamed = |e: crate::runtime::Error| {
        let msg = e.message();
        let msg = msg.strip_suffix(" name: ").unwrap_or(msg);
        crate::runtime::Error::new(e.kind(), msg)
    };
    let r = (|| {
        let ax = axes.as_deref();
        let reduce = |op, x: &Tensor| ops::reduce(op, x, ax, true).map_err(unnamed);
        let summed = match kind {
            Ord::Euclidean => {
                let sq = ops::binary(BinaryOp::Mul, &t, &t)?;
                let s = reduce(ReduceOp::Sum, &sq)?;
                ops::unary(UnaryOp::Sqrt, &s)?
            }
            Ord::One => reduce(ReduceOp::Sum, &ops::unary(UnaryOp::Abs, &t)?)?,
            Ord::Inf => reduce(ReduceOp::Max, &ops::unary(UnaryOp::Abs, &t)?)?,
        };
        if keep {
            Ok(summed)
        } else {
            ops::squeeze(&summed, ax)
        }
    })();
    placed(vm, r)
}

/// Adds `tf.linalg`, `tf.eye`, and the `tf.math`/`tf.nn` names of this file.
pub fn register(m: &mut ModuleBuilder) {
    m.add(eye::DEF).add(norm::DEF).add(einsum::DEF);
    m.namespace("linalg", |n| {
        n.add(super::math_ops::matmul::DEF)
            .add(matvec::DEF)
            .add(matrix_transpose::DEF)
            .add(diag_part::DEF)
            .add(diag::DEF)
            .add(set_diag::DEF)
            .add(trace::DEF)
            .add(eye::DEF)
            .add(norm::DEF)
            .add(einsum::DEF)
            .add(global_norm::DEF)
            .add(l2_normalize::DEF);
    });
}

/// Adds this file's `tf.math` names.
pub fn register_math(n: &mut ModuleBuilder) {
    n.add(l2_normalize::DEF)
        .add(softplus::DEF)
        .add(log_sigmoid::DEF)
        .add(segment_sum::DEF)
        .add(unsorted_segment_sum::DEF)
        .add(bincount::DEF)
        .add(in_top_k::DEF);
}

/// Adds this file's `tf.nn` names.
pub fn register_nn(n: &mut ModuleBuilder) {
    n.add(l2_normalize::DEF)
        .add(l2_loss::DEF)
        .add(softplus::DEF)
        .add(in_top_k::DEF);
}
