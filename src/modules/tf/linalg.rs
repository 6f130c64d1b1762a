//! `tf.linalg` and the linear-algebra names TensorFlow also exports at the
//! top level (`tf.eye`), plus `l2_normalize`, `softplus`, `log_sigmoid`,
//! the segment sums, `bincount` and `in_top_k` of `tf.math`. Registration
//! and argument conversion only; the work is in `runtime::ops`.

use super::convert::{axes_arg, int_list, operand, opt_dtype, runtime_err, to_tensor, tv};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::runtime::{ops, DType};
use crate::value::{Args, PyResult, Value, Vm};

fn matvec(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (x, y) = matching(vm, a.get(0), a.get(1))?;
    let ta = vm.truthy(a.get(2))?;
    tv(vm, ops::matrix::matvec(&x, &y, ta))
}

fn matrix_transpose(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::matrix::matrix_transpose(&t))
}

fn diag_part(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::matrix::diag_part(&t, " name: diag_part"))
}

fn diag(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::matrix::diag(&t))
}

fn trace(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::matrix::trace(&t))
}

fn eye(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let rows = a.int(0)?;
    let cols = match a.get(1) {
        Value::None => None,
        _ => Some(a.int(1)?),
    };
    let batch = match a.get(2) {
        Value::None => Vec::new(),
        v => int_list(vm, v)?,
    };
    let dtype = opt_dtype(vm, a.get(3))?.unwrap_or(DType::Float32);
    let device = crate::distribute::current_device(vm);
    tv(
        vm,
        ops::matrix::eye_batched(rows, cols, &batch, dtype, device),
    )
}

fn l2_normalize(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    let axes = axes_arg(vm, a.get(1))?;
    let eps = operand(vm, a.get(2), t.dtype(), t.device(), false)?;
    tv(vm, ops::nn::l2_normalize(&t, axes.as_deref(), &eps))
}

fn softplus(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::nn::softplus(&t))
}

fn log_sigmoid(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let t = to_tensor(vm, a.get(0), None)?;
    tv(vm, ops::nn::log_sigmoid(&t))
}

fn segment_sum(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let data = to_tensor(vm, a.get(0), None)?;
    let ids = to_tensor(vm, a.get(1), None)?;
    tv(vm, ops::segment::segment_sum(&data, &ids))
}

fn unsorted_segment_sum(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let data = to_tensor(vm, a.get(0), None)?;
    let ids = to_tensor(vm, a.get(1), None)?;
    let n = a.int(2)?;
    tv(vm, ops::segment::unsorted_segment_sum(&data, &ids, n))
}

fn bincount(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let arr = to_tensor(vm, a.get(0), None)?;
    let weights = match a.get(1) {
        Value::None => None,
        w => Some(to_tensor(vm, w, None)?),
    };
    let opt_int = |i: usize| -> PyResult<Option<i64>> {
        match a.get(i) {
            Value::None => Ok(None),
            _ => a.int(i).map(Some),
        }
    };
    let minlength = opt_int(2)?;
    let maxlength = opt_int(3)?;
    let dtype = opt_dtype(vm, a.get(4))?.unwrap_or(DType::Int32);
    if !matches!(a.get(6), Value::None) || vm.truthy(a.get(7))? {
        return Err(crate::value::PyErr::new(
            crate::value::ExcType::NotImplementedError,
            "tf.math.bincount: axis and binary_output are not supported in dist",
        ));
    }
    tv(
        vm,
        ops::segment::bincount(&arr, weights.as_ref(), minlength, maxlength, dtype),
    )
}

fn in_top_k(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let targets = to_tensor(vm, a.get(0), None)?;
    let predictions = to_tensor(vm, a.get(1), None)?;
    let k = a.int(2)?;
    ops::segment::in_top_k(&targets, &predictions, k)
        .map(Value::Tensor)
        .map_err(runtime_err)
}

fn einsum(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let eq = match a.get(0) {
        Value::Str(s) => s.to_string(),
        other => vm.str(other)?,
    };
    let items = vm.collect(a.get(1))?;
    if eq.contains('.') || items.len() > 2 {
        return Err(crate::value::PyErr::new(
            crate::value::ExcType::NotImplementedError,
            "tf.einsum: dist supports one or two operands without ellipses ('...')",
        ));
    }
    let mut ts: Vec<crate::runtime::Tensor> = Vec::with_capacity(items.len());
    for v in &items {
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
    tv(vm, ops::einsum::einsum(&eq, &ts))
}

/// `tf.norm(tensor, ord, axis, keepdims)`: vector norms (`'euclidean'`, 1,
/// 2, inf) over one axis or all elements, and the Frobenius norm over two.
fn norm(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    use crate::runtime::{BinaryOp, ReduceOp, UnaryOp};
    use crate::value::{ExcType, PyErr};
    let t = to_tensor(vm, a.get(0), None)?;
    let ord = a.get(1);
    let axes = axes_arg(vm, a.get(2))?;
    let keep = vm.truthy(a.get(3))?;
    let matrix = axes.as_ref().is_some_and(|ax| ax.len() == 2);
    if axes
        .as_ref()
        .is_some_and(|ax| ax.len() > 2 || ax.is_empty())
    {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "'axis' must be None, an integer, or a tuple of 2 unique integers, got {}",
                vm.repr(a.get(2))?
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
        let reduce = |op, x: &crate::runtime::Tensor| ops::reduce(op, x, ax, true).map_err(unnamed);
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
    tv(vm, r)
}

const NORM: &str = "norm(tensor, ord='euclidean', axis=None, keepdims=None, name=None)";

const EYE: &str = "eye(num_rows, num_columns=None, batch_shape=None, dtype=None, name=None)";

/// Adds `tf.linalg`, `tf.eye`, and the `tf.math`/`tf.nn` names of this file.
pub fn register(m: &mut ModuleBuilder) {
    m.function(EYE, eye, "Identity matrices (optionally batched).");
    m.function(
        NORM,
        norm,
        "The vector norm (or Frobenius norm over two axes).",
    );
    m.function(
        "einsum(equation, *inputs, **kwargs)",
        einsum,
        "Tensor contraction by an Einstein-summation equation (one or two operands).",
    );
    m.namespace("linalg", |n| {
        n.function(
            "matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None)",
            super::math_ops::matmul,
            "Matrix product `a @ b`.",
        );
        n.function("matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None)", matvec, "Matrix-vector product `a @ b`.");
        n.function("matrix_transpose(a, name='matrix_transpose', conjugate=False)", matrix_transpose, "Swaps the last two dimensions.");
        n.function("diag_part(input, name='diag_part', k=0, padding_value=0, align='RIGHT_LEFT')", diag_part, "The main diagonal of each innermost matrix.");
        n.function("diag(diagonal, name='diag', k=0, num_rows=-1, num_cols=-1, padding_value=0, align='RIGHT_LEFT')", diag, "Square matrices with the given diagonals.");
        n.function("trace(x, name=None)", trace, "The sum of each innermost matrix's diagonal.");
        n.function(EYE, eye, "Identity matrices (optionally batched).");
        n.function(NORM, norm, "The vector norm (or Frobenius norm over two axes).");
        n.function("einsum(equation, *inputs, **kwargs)", einsum, "Tensor contraction by an Einstein-summation equation (one or two operands).");
        n.function("l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None)", l2_normalize, "`x` divided by its L2 norm along `axis`.");
    });
}

/// Adds this file's `tf.math` names.
pub fn register_math(n: &mut ModuleBuilder) {
    n.function(
        "l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None)",
        l2_normalize,
        "`x` divided by its L2 norm along `axis`.",
    );
    n.function(
        "softplus(features, name=None)",
        softplus,
        "`log(exp(features) + 1)`.",
    );
    n.function(
        "log_sigmoid(x, name=None)",
        log_sigmoid,
        "`log(1 / (1 + exp(-x)))`.",
    );
    n.function(
        "segment_sum(data, segment_ids, name=None)",
        segment_sum,
        "Sums of the rows of each (sorted) segment.",
    );
    n.function(
        "unsorted_segment_sum(data, segment_ids, num_segments, name=None)",
        unsorted_segment_sum,
        "Sums of the rows of each segment, in any order.",
    );
    n.function("bincount(arr, weights=None, minlength=None, maxlength=None, dtype=None, name=None, axis=None, binary_output=False)", bincount, "Counts (or summed weights) of each non-negative value.");
    n.function(
        "in_top_k(targets, predictions, k, name=None)",
        in_top_k,
        "Whether each target is among its row's `k` largest predictions.",
    );
}

/// Adds this file's `tf.nn` names.
pub fn register_nn(n: &mut ModuleBuilder) {
    n.function(
        "l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None)",
        l2_normalize,
        "`x` divided by its L2 norm along `axis`.",
    );
    n.function(
        "softplus(features, name=None)",
        softplus,
        "`log(exp(features) + 1)`.",
    );
    n.function(
        "in_top_k(targets, predictions, k, name=None)",
        in_top_k,
        "Whether each target is among its row's `k` largest predictions.",
    );
}
