//! `tf.nn`: the loss helpers of custom training loops under a strategy,
//! `compute_average_loss` and `scale_regularization_loss`, which divide by
//! the global batch size and the number of replicas of the current
//! strategy. Other `tf.nn` names raise `NotImplementedError`.

use super::convert::{placed, runtime_err, to_tensor};
use crate::distribute::replica_ctx::in_cross_replica;
use crate::distribute::strategy::current_strategy;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::format::numpy_str;
use crate::runtime::{ops, BinaryOp, DType, ReduceOp, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The number of replicas of the current strategy, or the error TensorFlow
/// raises when `what` is called in a cross-replica context.
fn replicas_for(vm: &dyn Vm, what: &str) -> PyResult<i64> {
    if in_cross_replica(vm) {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            format!(
                "You are calling `{what}` in cross replica context, while it was expected to be \
                 called in replica context."
            ),
        ));
    }
    let n = vm.getattr(&current_strategy(vm), "num_replicas_in_sync")?;
    crate::object::types::int_arg(&n, vm)
}

/// A 0-d tensor of `dtype` holding `v`, on `like`'s device.
fn scalar_like(v: i64, dtype: DType, like: &Tensor) -> crate::runtime::Result<Tensor> {
    Tensor::fill(&[], &Scalar::Int(v), dtype, like.device())
}

/// `losses_util.scale_losses_by_sample_weight`: both as float32, the
/// weights' last dimension squeezed or added when the ranks differ by one.
fn scale_by_weight(losses: &Tensor, weights: &Tensor) -> crate::runtime::Result<Tensor> {
    let losses = ops::cast(losses, DType::Float32)?;
    let mut w = ops::cast(weights, DType::Float32)?;
    if w.rank() != 0 {
        if w.rank() == losses.rank() + 1 {
            w = ops::squeeze(&w, Some(&[-1]))?;
        } else if losses.rank() == w.rank() + 1 {
            w = ops::expand_dims(&w, -1)?;
        }
    }
    ops::binary(BinaryOp::Mul, &losses, &w)
}

/// The per-example losses (times `sample_weight`) summed and divided by the
/// global batch size (default: the first dimension times the number of
/// replicas).
#[native("compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None)")]
fn compute_average_loss(
    vm: &dyn Vm,
    per_example_loss: Tensor,
    sample_weight: Option<&Value>,
    global_batch_size: Option<&Value>,
) -> PyResult<Tensor> {
    let mut loss = per_example_loss;
    let dtype = loss.dtype();
    if loss.rank() == 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Invalid value passed for `per_example_loss`. Expected a tensor with at least \
                 rank 1. Received per_example_loss={} with rank 0",
                numpy_str(&loss)
            ),
        ));
    }
    if let Some(w) = sample_weight {
        let w = to_tensor(vm, w, None)?;
        loss = scale_by_weight(&loss, &w)
            .and_then(|l| ops::cast(&l, dtype))
            .map_err(runtime_err)?;
    }
    let gbs = match global_batch_size {
        Some(g) => {
            let g = to_tensor(vm, g, None)?;
            if g.rank() != 0 {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    "global_batch_size must be scalar.",
                ));
            }
            if !g.dtype().is_integer() {
                return Err(PyErr::new(
                    ExcType::TypeError,
                    format!(
                        "global_batch_size must be an integer..  Expected \"x\" to be integer \
                         type.  Found: tensor of dtype <dtype: '{}'>",
                        g.dtype().name()
                    ),
                ));
            }
            let n = g.item().map_err(runtime_err)?;
            let n = match n {
                Scalar::Int(n) => n,
                _ => 0,
            };
            if n < 0 {
                return Err(PyErr::new(
                    ExcType::InvalidArgumentError,
                    format!(
                        "global_batch_size must be non-negative..  \nCondition x >= 0 did not \
                         hold element-wise:\nx (shape=() dtype={}) = \n{n}",
                        g.dtype().name()
                    ),
                ));
            }
            n
        }
        None => {
            let replicas = replicas_for(vm, "compute_average_loss")?;
            uneven_split_hint(vm, loss.dims()[0]);
            loss.dims()[0] as i64 * replicas
        }
    };
    let r = (|| {
        let total = ops::reduce(ReduceOp::Sum, &loss, None, false)?;
        // div_no_nan: a zero batch size gives zero
        let q = ops::truediv(&total, &scalar_like(gbs.max(1), dtype, &total)?)?;
        if gbs == 0 {
            ops::binary(BinaryOp::Mul, &q, &scalar_like(0, q.dtype(), &q)?)
        } else {
            Ok(q)
        }
    })();
    placed(vm, r)
}

/// The per-replica batch sizes `compute_average_loss` saw without a
/// `global_batch_size` in the `strategy.run` in progress.
#[derive(Default)]
struct SplitSizes {
    /// The run they belong to (`DistState::runs`).
    run: std::cell::Cell<u64>,
    /// (replica, batch size) as each replica called.
    sizes: std::cell::RefCell<Vec<(usize, usize)>>,
}

/// Hints once when the replicas of one `strategy.run` called
/// `compute_average_loss` without `global_batch_size` on batches of
/// different sizes: each divides by its own size times the number of
/// replicas, so their examples weigh differently (TensorFlow says nothing).
fn uneven_split_hint(vm: &dyn Vm, size: usize) {
    let Some(replica) = vm.current_replica() else {
        return;
    };
    let run = crate::distribute::context::state(vm).runs.get();
    let seen = vm.state().get::<SplitSizes>();
    if seen.run.get() != run {
        seen.run.set(run);
        seen.sizes.borrow_mut().clear();
    }
    let other = seen
        .sizes
        .borrow()
        .iter()
        .find(|(r, s)| *r != replica && *s != size)
        .copied();
    seen.sizes.borrow_mut().push((replica, size));
    if let Some((r, s)) = other {
        crate::distribute::notes::hint_once(
            vm,
            "compute-average-loss-uneven",
            &format!(
                "tf.nn.compute_average_loss was called without global_batch_size on an unevenly split batch (replica {r}: {s} examples, replica {replica}: {size}): each replica divides its loss sum by its own batch size times the number of replicas, so the replicas' examples are weighted differently; pass global_batch_size=<the global batch size> to weight every example alike"
            ),
        );
    }
}

/// The sum of the regularization losses divided by the number of replicas.
#[native("scale_regularization_loss(regularization_loss)")]
fn scale_regularization_loss(vm: &dyn Vm, regularization_loss: &Value) -> PyResult<Tensor> {
    let replicas = replicas_for(vm, "scale_regularization_loss")?;
    let loss = to_tensor(vm, regularization_loss, None)?;
    let r = ops::reduce(ReduceOp::Sum, &loss, None, false)
        .and_then(|s| ops::truediv(&s, &scalar_like(replicas, s.dtype(), &s)?));
    placed(vm, r)
}

/// Adds `tf.nn`.
pub fn register(m: &mut ModuleBuilder) {
    m.namespace("nn", |n| {
        super::activations::register(n);
        super::scan_ops::register_top_k(n);
        super::linalg::register_nn(n);
        super::nn_ops::register_nn(n);
        super::conv_ops::register_nn(n);
        super::embedding_ops::register_nn(n);
        n.add(compute_average_loss::DEF)
            .add(scale_regularization_loss::DEF);
    });
}
