//! Names tf.distribute users still reach for after TensorFlow renamed or
//! removed them. The deprecated aliases TensorFlow 2.21 still has work as
//! they do there (`experimental_run`, `unwrap`,
//! `experimental_distribute_datasets_from_function`); for the names it no
//! longer has, the AttributeError stays Python's and [`attribute_help`] gives
//! the help line that says what replaced them and since when. The strategy
//! methods themselves are in `strategy/`.

use super::strategy::{distribute_from_function, local_results, run_on_replicas, StrategyObj};
use super::values::WAYS_OUT;
use crate::object::{native, NativeDef, This};
use crate::value::{PyResult, Value, Vm};

/// A removed name and what to say about it.
struct Removed {
    /// The attribute.
    name: &'static str,
    /// The help line.
    help: &'static str,
}

/// Removed from `tf.distribute.Strategy` (every strategy class).
const STRATEGY: &[Removed] = &[
    Removed {
        name: "experimental_run_v2",
        help: "experimental_run_v2 was renamed to run in TensorFlow 2.2 and removed in 2.4: \
               call strategy.run(fn, args=(x,))",
    },
    Removed {
        name: "experimental_make_numpy_dataset",
        help:
            "only tf.compat.v1 strategies have experimental_make_numpy_dataset: build the dataset \
               with tf.data.Dataset.from_tensor_slices(array) and pass it to \
               strategy.experimental_distribute_dataset",
    },
    Removed {
        name: "make_numpy_dataset",
        help: "only tf.compat.v1 strategies made numpy datasets: build the dataset with \
               tf.data.Dataset.from_tensor_slices(array) and pass it to \
               strategy.experimental_distribute_dataset",
    },
];

/// Removed from the `tf.distribute` module.
const MODULE: &[Removed] = &[Removed {
    name: "get_cross_replica_context",
    help: "get_cross_replica_context is tf.compat.v1 only: in TF 2 use \
           tf.distribute.in_cross_replica_context() and tf.distribute.get_strategy()",
}];

/// The help line for a missing attribute `owner.name`, where we can say
/// more than Python: `owner` is a type name (`MirroredStrategy`) or, for a
/// module, its dotted name (`tensorflow.distribute`). Names TensorFlow
/// removed get their replacement; any tensor attribute asked of a
/// distributed value gets the ways to combine the replicas' values.
pub fn attribute_help(owner: &str, name: &str) -> Option<&'static str> {
    let table = match owner {
        "PerReplica" | "Mirrored" | "MirroredVariable" | "SyncOnReadVariable" => {
            return TENSOR_ATTRS.contains(&name).then_some(WAYS_OUT)
        }
        "MirroredStrategy"
        | "OneDeviceStrategy"
        | "_DefaultDistributionStrategy"
        | "CollectiveAllReduceStrategy"
        | "_CollectiveAllReduceStrategyExperimental"
        | "CentralStorageStrategy" => STRATEGY,
        "tensorflow.distribute" => MODULE,
        _ => return None,
    };
    table.iter().find(|r| r.name == name).map(|r| r.help)
}

/// Tensor attributes, asked of a distributed value.
const TENSOR_ATTRS: &[&str] = &["numpy", "shape", "dtype", "device", "ndim", "get_shape"];

// Deprecated in TensorFlow ("use run() instead"): calls `fn(next element)`
// per replica, or `fn()` without an iterator.
/// Deprecated (use run()): runs `fn` per replica on the next element of `input_iterator`.
#[native("StrategyBase.experimental_run(self, fn, input_iterator=None)")]
pub(super) fn experimental_run(
    vm: &dyn Vm,
    this: This<StrategyObj>,
    fn_: &Value,
    input_iterator: &Value,
) -> PyResult<Value> {
    let call_args = match input_iterator {
        Value::None => Value::tuple(Vec::new()),
        it => {
            let get_next = vm.getattr(it, "get_next")?;
            Value::tuple(vec![vm.call(&get_next, Vec::new(), Vec::new())?])
        }
    };
    run_on_replicas(vm, this, fn_, &call_args, &Value::None)
}

/// `strategy.unwrap(value)`.
pub(super) const UNWRAP: NativeDef = local_results::DEF
    .renamed("StrategyBase.unwrap(self, value)")
    .documented("Deprecated alias of experimental_local_results.");

/// `strategy.experimental_distribute_datasets_from_function(dataset_fn, options=None)`.
pub(super) const DISTRIBUTE_DATASETS_FROM_FUNCTION: NativeDef = distribute_from_function::DEF.renamed("StrategyBase.experimental_distribute_datasets_from_function(self, dataset_fn, options=None)").documented("Deprecated alias of distribute_datasets_from_function (renamed in TensorFlow 2.4).");
