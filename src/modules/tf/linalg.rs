//! `tf.linalg` and the linear-algebra names TensorFlow also exports at the
//! top level (`tf.eye`), plus `l2_normalize`, `softplus`, `log_sigmoid`,
//! the segment sums, `bincount` and `in_top_k` of `tf.math`. Registration
//! and argument conversion only; the work is in `runtime::ops`.

use super::convert::{axes, int_scalar, operand, placed, runtime_err, to_tensor, Ints};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::placement::current_device;
use crate::runtime::ops::IndexItem;
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
    adjoint_a: &Value,
    _a_is_sparse: &Value,
    _b_is_sparse: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let (x, y) = matching(vm, a, b)?;
    let ta = vm.truthy(transpose_a)?;
    let adj = vm.truthy(adjoint_a)?;
    if ta && adj {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Only one of `transpose_a` and `adjoint_a` can be True. Received `transpose_a`=True, `adjoint_a`=True.",
        ));
    }
    let x = super::complex_ops::conj_if(x, adj)?;
    placed(vm, ops::matrix::matvec(&x, &y, ta || adj))
}

/// Swaps the last two dimensions.
#[native("matrix_transpose(a, name='matrix_transpose', conjugate=False)")]
fn matrix_transpose(vm: &dyn Vm, a: Tensor, _name: &Value, conjugate: &Value) -> PyResult<Tensor> {
    let t = placed(vm, ops::matrix::matrix_transpose(&a))?;
    super::complex_ops::conj_if(t, vm.truthy(conjugate)?)
}

/// The conjugate transpose of the last two dimensions.
#[native("adjoint(matrix, name=None)")]
fn adjoint(vm: &dyn Vm, matrix: Tensor, _name: &Value) -> PyResult<Tensor> {
    let t = placed(vm, ops::matrix::matrix_transpose(&matrix))?;
    super::complex_ops::conj_if(t, true)
}

/// The `MatrixDiagV3` family's op signatures, as TensorFlow's attr errors
/// quote them.
const DIAG_OP_DEFS: [(&str, &str); 3] = [
    ("MatrixDiagV3", "signature=diagonal:T, k:int32, num_rows:int32, num_cols:int32, padding_value:T -> output:T"),
    ("MatrixDiagPartV3", "signature=input:T, k:int32, padding_value:T -> diagonal:T"),
    ("MatrixSetDiagV3", "signature=input:T, diagonal:T, k:int32 -> output:T"),
];

/// Checks `align` as the op's attr does. With a single diagonal (`k`
/// scalar, the only form dist takes) the alignment does not move values.
fn check_align(vm: &dyn Vm, align: &Value, op: usize) -> PyResult<()> {
    const ALLOWED: &str = "\"LEFT_RIGHT\", \"RIGHT_LEFT\", \"LEFT_LEFT\", \"RIGHT_RIGHT\"";
    let text = match align {
        Value::Str(s) => s.to_string(),
        v => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!("Expected string for argument 'align' not {}.", vm.repr(v)?),
            ))
        }
    };
    if ["LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT"].contains(&text.as_str()) {
        return Ok(());
    }
    let (name, sig) = DIAG_OP_DEFS[op];
    Err(PyErr::new(
        ExcType::InvalidArgumentError,
        format!(
            "Value for attr 'align' of \"{text}\" is not in the list of allowed values: {ALLOWED}\n\t; \
             NodeDef: {{{{node {name}}}}}; Op<name={name}; {sig}; attr=T:type; \
             attr=align:string,default=\"RIGHT_LEFT\",allowed=[{ALLOWED}]> [Op:{name}]"
        ),
    ))
}

/// The error for a `k` that is not one integer: dist takes one diagonal,
/// not a band (`k=(lo, hi)`).
fn band_error(vm: &dyn Vm, k: &Value, func: &str) -> PyResult<Tensor> {
    Err(PyErr::new(
        ExcType::NotImplementedError,
        format!(
            "tf.linalg.{func}: a band of diagonals is not supported in dist (give k as one \
             integer), got k={}",
            vm.repr(k)?
        ),
    ))
}

/// Diagonal `k` (0: the main one, > 0 above it, < 0 below) of each
/// innermost matrix.
#[native("diag_part(input, name='diag_part', k=0, padding_value=0, align='RIGHT_LEFT')")]
fn diag_part(
    vm: &dyn Vm,
    input: Tensor,
    _name: &Value,
    k: &Value,
    _padding_value: &Value,
    align: &Value,
) -> PyResult<Tensor> {
    check_align(vm, align, 1)?;
    // one diagonal (`k` scalar) has no slot to pad: `padding_value` fills
    // only the shorter rows of a band of diagonals
    let k = match int_scalar(vm, k)? {
        Some(k) if k != 0 && input.rank() >= 2 => k,
        Some(_) => return placed(vm, ops::matrix::diag_part(&input, " name: diag_part")),
        None => return band_error(vm, k, "diag_part"),
    };
    let r = input.rank();
    let (rows, cols) = (input.dims()[r - 2] as i64, input.dims()[r - 1] as i64);
    if k <= -rows || k >= cols {
        return Err(runtime_err(crate::runtime::Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "MatrixDiagPartV3",
            &input.device(),
            &format!(
                "lower_diag_index is out of bound: {k}. It must be between {} and {cols}",
                -rows
            ),
            "MatrixDiagPartV3",
            " name: diag_part",
        )));
    }
    // diagonal k of a matrix is the main diagonal of its part from row -k
    // (k < 0) or column k (k > 0)
    let from = |start: i64| IndexItem::Slice {
        start: Some(start),
        stop: None,
        step: None,
    };
    let all = IndexItem::Slice {
        start: None,
        stop: None,
        step: None,
    };
    let items = if k > 0 {
        [IndexItem::Ellipsis, all, from(k)]
    } else {
        [IndexItem::Ellipsis, from(-k), all]
    };
    let part = ops::index(&input, &items, crate::runtime::Semantics::Tf);
    placed(
        vm,
        part.and_then(|p| ops::matrix::diag_part(&p, " name: diag_part")),
    )
}

/// Matrices with the given diagonals as their diagonal `k`: square by
/// default, `num_rows` x `num_cols` if given, `padding_value` elsewhere.
#[native("diag(diagonal, name='diag', k=0, num_rows=-1, num_cols=-1, padding_value=0, align='RIGHT_LEFT')")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
fn diag(
    vm: &dyn Vm,
    diagonal: Tensor,
    _name: &Value,
    k: &Value,
    num_rows: &Value,
    num_cols: &Value,
    padding_value: &Value,
    align: &Value,
) -> PyResult<Tensor> {
    check_align(vm, align, 0)?;
    let k = match int_scalar(vm, k)? {
        Some(k) => k,
        None => return band_error(vm, k, "diag"),
    };
    let int_of = |what: &str, v: &Value| -> PyResult<i64> {
        int_scalar(vm, v)?.ok_or_else(|| {
            PyErr::new(
                ExcType::TypeError,
                format!("tf.linalg.diag: {what} must be an integer"),
            )
        })
    };
    let (rows, cols) = (int_of("num_rows", num_rows)?, int_of("num_cols", num_cols)?);
    let pad = if matches!(padding_value, Value::Int(0)) {
        None
    } else {
        let p = operand(
            vm,
            padding_value,
            diagonal.dtype(),
            diagonal.device(),
            false,
        )?;
        if p.rank() != 0 {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "tf.linalg.diag: dist takes a scalar padding_value only",
            ));
        }
        Some(p)
    };
    // the square matrix of the main diagonal (off-diagonal `padding_value`)
    let square = ops::matrix::diag(&diagonal).and_then(|sq| match &pad {
        None => Ok(sq),
        Some(p) => ops::matrix::set_diag(&ops::broadcast_to(p, sq.dims())?, &diagonal),
    });
    let square = square.map_err(runtime_err)?;
    if k == 0 && rows == -1 && cols == -1 {
        return placed(vm, Ok(square));
    }
    // MatrixDiagV3's size rules: the least rows and columns diagonal `k`
    // needs, a square of the larger when neither is given
    let n = diagonal.dims().last().copied().unwrap_or(0) as i64;
    let (min_rows, min_cols) = (n + (-k).max(0), n + k.max(0));
    let (rows, cols) = match (rows, cols) {
        (-1, -1) => (min_rows.max(min_cols), min_rows.max(min_cols)),
        (-1, c) => (min_rows, c),
        (r, -1) => (r, min_cols),
        rc => rc,
    };
    let fail = |msg: &str| {
        Err(runtime_err(crate::runtime::Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "MatrixDiagV3",
            &diagonal.device(),
            msg,
            "MatrixDiagV3",
            " name: diag",
        )))
    };
    if rows < min_rows {
        return fail("The number of rows is too small.");
    }
    if cols < min_cols {
        return fail("The number of columns is too small.");
    }
    if rows != min_rows && cols != min_cols {
        return fail(
            "The number of rows or columns is not consistent with the specified d_lower, \
             d_upper, and diagonal.",
        );
    }
    // the square placed at row max(-k, 0), column max(k, 0) of the
    // rows x cols matrix, the rest padding
    let (top, left) = ((-k).max(0), k.max(0));
    let mut pads = vec![[0i64, 0]; square.rank() - 2];
    pads.push([top, rows - top - n]);
    pads.push([left, cols - left - n]);
    let pads_dims = [pads.len(), 2];
    placed(
        vm,
        ops::scatter::pad(&square, &pads, &pads_dims, pad.as_ref()),
    )
}

/// `input` with diagonal `k` (0: the main one) of each innermost matrix
/// replaced by `diagonal`.
#[native("set_diag(input, diagonal, name='set_diag', k=0, align='RIGHT_LEFT')")]
fn set_diag(
    vm: &dyn Vm,
    input: Tensor,
    diagonal: &Value,
    _name: &Value,
    k: &Value,
    align: &Value,
) -> PyResult<Tensor> {
    check_align(vm, align, 2)?;
    let Some(k) = int_scalar(vm, k)? else {
        return band_error(vm, k, "set_diag");
    };
    let d = to_tensor(vm, diagonal, Some(input.dtype()))?;
    let r = input.rank();
    if k == 0 || r < 2 || d.rank() == 0 {
        return placed(vm, ops::matrix::set_diag(&input, &d));
    }
    let (rows, cols) = (input.dims()[r - 2] as i64, input.dims()[r - 1] as i64);
    let fail = |msg: String| {
        Err(runtime_err(crate::runtime::Error::kernel(
            crate::runtime::ErrorKind::InvalidArgument,
            "MatrixSetDiagV3",
            &input.device(),
            &msg,
            "MatrixSetDiagV3",
            " name: set_diag",
        )))
    };
    if k <= -rows || k >= cols {
        return fail(format!(
            "lower_diag_index is out of bound: {k} It must be between {} and {cols}",
            -rows
        ));
    }
    let mut want = input.dims()[..r - 2].to_vec();
    want.push((rows + k.min(0)).min(cols - k.max(0)) as usize);
    if d.dims() != want.as_slice() {
        return fail(ops::matrix::set_diag_shape_message(
            input.dims(),
            d.dims(),
            &want,
        ));
    }
    // diagonal k is the main diagonal of the part from column k (k > 0) or
    // row -k (k < 0): set it there and join the untouched part back on
    let split = |start: Option<i64>, stop: Option<i64>| IndexItem::Slice {
        start,
        stop,
        step: None,
    };
    let all = split(None, None);
    let at = k.unsigned_abs() as i64;
    let (head, tail, axis) = if k > 0 {
        (
            [IndexItem::Ellipsis, all, split(None, Some(at))],
            [IndexItem::Ellipsis, all, split(Some(at), None)],
            r - 1,
        )
    } else {
        (
            [IndexItem::Ellipsis, split(None, Some(at)), all],
            [IndexItem::Ellipsis, split(Some(at), None), all],
            r - 2,
        )
    };
    let sem = crate::runtime::Semantics::Tf;
    let r = (|| {
        let kept = ops::index(&input, &head, sem)?;
        let set = ops::matrix::set_diag(&ops::index(&input, &tail, sem)?, &d)?;
        ops::concat(&[kept, set], axis as i64)
    })();
    placed(vm, r)
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
    dim: Option<Ints>,
) -> PyResult<Tensor> {
    // `dim` is the deprecated name of `axis`
    let axis = match (axis, dim) {
        (Some(_), Some(_)) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Cannot specify both 'dim' and 'axis'.",
            ))
        }
        (a, d) => a.or(d),
    };
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

/// Tensor contraction by an Einstein-summation equation, with broadcast
/// ellipses (`'...ij,...jk->...ik'`); three or more operands for integer
/// dtypes.
#[native("einsum(equation, *inputs, **kwargs)")]
fn einsum(vm: &dyn Vm, equation: &Value, inputs: &[Value], kwargs: &Value) -> PyResult<Tensor> {
    let eq = match equation {
        Value::Str(s) => s.to_string(),
        other => vm.str(other)?,
    };
    // `name` and opt_einsum's `optimize` (the contraction order of three or
    // more operands, which dist takes for integers only, where the order
    // does not change values) are accepted
    let mut unknown = Vec::new();
    for k in vm.collect(kwargs)? {
        let k = vm.str(&k)?;
        if !["name", "optimize", "greedy"].contains(&k.as_str()) {
            unknown.push(k);
        }
    }
    if !unknown.is_empty() {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Invalid keyword arguments for einsum: {}. Valid arguments: name, optimize, greedy.",
                unknown.join(", ")
            ),
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
    if let Some(f) = ts
        .first()
        .filter(|f| ts.len() > 2 && !f.dtype().is_integer())
    {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "tf.einsum with {} {} operands is not supported in dist: TensorFlow contracts \
                 them pairwise in opt_einsum's order, whose rounding dist does not reproduce \
                 (integer operands are supported); contract two at a time",
                ts.len(),
                f.dtype().name()
            ),
        ));
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
            .add(adjoint::DEF)
            .add(diag_part::DEF)
            .add(diag::DEF)
            .add(set_diag::DEF)
            .add(trace::DEF)
            .add(eye::DEF)
            .add(norm::DEF)
            .add(einsum::DEF)
            .add(global_norm::DEF)
            .add(l2_normalize::DEF);
        super::linalg_solve::register(n);
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
