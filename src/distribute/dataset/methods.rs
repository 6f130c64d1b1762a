//! `tf.data.Dataset` (the `DatasetV2` class, [`DATASET_V2`]) and its
//! transformation methods; the static constructors (`range`,
//! `from_tensors`, `from_tensor_slices`, `zip`) are in `sources.rs`, the
//! methods that combine datasets in `compose.rs`. Each builds a node with
//! its element spec; errors TensorFlow raises when a pipeline is built are
//! raised here too.
//!
//! `map` and `filter` functions (and those of `flat_map`, `interleave`,
//! `scan`, `take_while`, `group_by_window`) are called on two probe
//! elements when the node is built, one zero-filled and one filled with
//! ones and other sizes for unknown dims (TensorFlow traces them once, with
//! symbolic tensors), to learn the output spec (dims that differ between
//! the probes are unknown) and to raise errors early; then once per element
//! while iterating. A function that prints will therefore print what
//! TensorFlow does not (TensorFlow prints once, at trace time, with
//! symbolic tensors).

use std::cell::{Cell, RefCell};

use super::iterator::{numpy_iterator, owned_iterator};
use super::node::{dataset_of, DatasetObj, Kind};
use super::stream::{call_with_element, map_result, open};
use super::structure::{kernel_error, normalize, Spec};
use super::{bucket, compose, data_options, padding, sources};
use crate::object::{native, ClassSpec, Member, This};
use crate::runtime::{DType, Device, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `tf.data.Dataset` (`DatasetV2`): its static constructors, its
/// transformations and its properties.
pub static DATASET_V2: ClassSpec = ClassSpec {
    name: "DatasetV2",
    module: "tensorflow.python.data.ops.dataset_ops",
    bases: &[],
    members: &[
        Member::StaticMethod(sources::range::DEF),
        Member::StaticMethod(sources::from_tensors::DEF),
        Member::StaticMethod(sources::from_tensor_slices::DEF),
        Member::StaticMethod(sources::from_generator::DEF),
        Member::StaticMethod(sources::zip::DEF),
        Member::StaticMethod(super::files::list_files::DEF),
        Member::Method(batch::DEF),
        Member::Method(repeat::DEF),
        Member::Method(shard::DEF),
        Member::Method(take::DEF),
        Member::Method(skip::DEF),
        Member::Method(map::DEF),
        Member::Method(filter::DEF),
        Member::Method(enumerate::DEF),
        Member::Method(prefetch::DEF),
        Member::Method(cache::DEF),
        Member::Method(shuffle::DEF),
        Member::Method(unbatch::DEF),
        Member::Method(rebatch::DEF),
        Member::Method(reduce::DEF),
        Member::Method(as_numpy_iterator::DEF),
        Member::Method(cardinality::DEF),
        Member::Method(apply::DEF),
        Member::Method(with_options::DEF),
        Member::Method(options::DEF),
        Member::Method(dunder_iter::DEF),
        Member::Method(padding::padded_batch::DEF),
        Member::Method(compose::concatenate::DEF),
        Member::Method(compose::flat_map::DEF),
        Member::Method(compose::interleave::DEF),
        Member::Method(compose::window::DEF),
        Member::Method(compose::scan::DEF),
        Member::Method(compose::take_while::DEF),
        Member::Method(compose::unique::DEF),
        Member::Method(bucket::bucket_by_sequence_length::DEF),
        Member::Method(compose::group_by_window::DEF),
        Member::Method(compose::dataset_get_single_element::DEF),
        Member::StaticMethod(compose::dataset_counter::DEF),
        Member::StaticMethod(compose::choose_from_datasets::DEF),
        Member::Getter(element_spec::DEF),
    ],
};

/// The type of the elements (a structure of `tf.TensorSpec`).
#[native("DatasetV2.element_spec(self)")]
fn element_spec(this: &DatasetObj) -> Value {
    this.spec.to_value()
}

/// An integer argument that may also be a scalar integer tensor.
pub fn int_arg(vm: &dyn Vm, v: &Value, what: &str) -> PyResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(*b as i64),
        Value::Tensor(t) if t.rank() == 0 && t.dtype().is_integer() => match t.item() {
            Ok(Scalar::Int(i)) => Ok(i),
            _ => Err(PyErr::new(
                ExcType::TypeError,
                format!("{what} must be an integer"),
            )),
        },
        Value::Native(n) => match n.to_number(vm)? {
            Some(Value::Int(i)) => Ok(i),
            _ => Err(PyErr::new(
                ExcType::TypeError,
                format!("{what} must be an integer, not {}", v.type_name()),
            )),
        },
        _ => Err(PyErr::new(
            ExcType::TypeError,
            format!("{what} must be an integer, not {}", v.type_name()),
        )),
    }
}

/// The spec of a scalar of `dtype`.
pub(super) fn scalar_spec(dtype: DType) -> Spec {
    Spec::Tensor {
        dtype,
        dims: Some(Vec::new()),
    }
}

fn positive(vm: &dyn Vm, v: &Value, what: &str, op: &str) -> PyResult<usize> {
    let n = int_arg(vm, v, what)?;
    if n <= 0 {
        return Err(kernel_error(
            op,
            op,
            &format!("{what} must be greater than zero."),
        ));
    }
    Ok(n as usize)
}

/// Stacks consecutive elements.
#[native("DatasetV2.batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None)")]
fn batch(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    batch_size: &Value,
    drop_remainder: bool,
    _num_parallel_calls: &Value,
    _deterministic: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    d.spec.tensors_only("batch")?;
    let size = positive(vm, batch_size, "Batch size", "BatchDatasetV2")?;
    let drop = drop_remainder;
    let spec = d.spec.batched(if drop { Some(size) } else { None });
    Ok(DatasetObj::value(Kind::Batch(ds.clone(), size, drop), spec))
}

/// A count where -1 (or None, when allowed) means "all".
fn count_arg(vm: &dyn Vm, v: &Value) -> PyResult<Option<u64>> {
    match v {
        Value::None => Ok(None),
        v => {
            let n = int_arg(vm, v, "count")?;
            Ok(if n < 0 { None } else { Some(n as u64) })
        }
    }
}

/// Repeats the dataset count times (forever when None).
#[native("DatasetV2.repeat(self, count=None, name=None)")]
fn repeat(vm: &dyn Vm, this: This<DatasetObj>, count: &Value, _name: &Value) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let count = count_arg(vm, count)?;
    Ok(d.same_spec(Kind::Repeat(ds.clone(), count)))
}

/// Every num_shards-th element from index.
#[native("DatasetV2.shard(self, num_shards, index, name=None)")]
fn shard(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    num_shards: &Value,
    index: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let n = int_arg(vm, num_shards, "num_shards")?;
    let index = int_arg(vm, index, "index")?;
    if n <= 0 {
        return Err(kernel_error(
            "ShardDataset",
            "ShardDataset",
            &format!("Number of shards must be greater than zero (currently num_shards = {n})."),
        ));
    }
    if index < 0 || index >= n {
        return Err(kernel_error(
            "ShardDataset",
            "ShardDataset",
            &format!(
                "Index must be between 0 and {} (currently index = {index}).",
                n - 1
            ),
        ));
    }
    Ok(d.same_spec(Kind::Shard(ds.clone(), n as u64, index as u64)))
}

/// The first count elements.
#[native("DatasetV2.take(self, count, name=None)")]
fn take(vm: &dyn Vm, this: This<DatasetObj>, count: &Value, _name: &Value) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let count = count_arg(vm, count)?;
    Ok(d.same_spec(Kind::Take(ds.clone(), count)))
}

/// All but the first count elements.
#[native("DatasetV2.skip(self, count, name=None)")]
fn skip(vm: &dyn Vm, this: This<DatasetObj>, count: &Value, _name: &Value) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let count = count_arg(vm, count)?;
    Ok(d.same_spec(Kind::Skip(ds.clone(), count)))
}

thread_local! {
    /// Which probe call of a dataset function is running: 0 none, else 1 or 2.
    static PROBE: Cell<u8> = const { Cell::new(0) };
}

/// Which probe call of a dataset function is running (0: none, 1 or 2):
/// what a function whose output shapes TensorFlow knows from its
/// arguments alone, not from the data (`tf.io.parse_example`), asks, so
/// that it can answer a probe's placeholder element with outputs of
/// those shapes (`_dist_graph.probing()`).
pub fn probe_index() -> u8 {
    PROBE.with(Cell::get)
}

/// Calls `f` with `elem` as probe call `index`.
fn probe_call(vm: &dyn Vm, f: &Value, elem: &Value, index: u8) -> PyResult<Value> {
    let before = PROBE.with(|p| p.replace(index));
    let r = call_with_element(vm, f, elem);
    PROBE.with(|p| p.set(before));
    r
}

/// Calls `f` on probe elements of `spec` and returns the spec of its result
/// (dims that change with the input's unknown dims become unknown).
pub fn probe(vm: &dyn Vm, spec: &Spec, f: &Value) -> PyResult<(Spec, Value)> {
    let dev = Device::cpu(0);
    let first = probe_call(vm, f, &spec.placeholder(2, dev)?, 1)?;
    let s1 = Spec::of(&map_result(vm, &first)?);
    // The second probe differs in unknown dims and in values, so that
    // shapes computed from either (`tf.fill([x], x)`) become unknown.
    let relaxed = match probe_call(vm, f, &spec.placeholder_filled(3, dev, 1)?, 2) {
        Ok(second) => map_result(vm, &second)
            .ok()
            .and_then(|e| s1.relax(&Spec::of(&e))),
        Err(_) => None,
    };
    if spec.fully_defined() && relaxed.is_none() {
        return Ok((s1, first));
    }
    // When the second probe disagrees in structure (or fails), every dim
    // is unknown, and every rank where the input's is.
    let unranked = spec.has_unknown_rank();
    let spec = relaxed.unwrap_or_else(|| {
        s1.map_leaves(&mut |dtype, dims| {
            Ok(Spec::Tensor {
                dtype,
                dims: dims.filter(|_| !unranked).map(|d| vec![None; d.len()]),
            })
        })
        .unwrap_or(s1.clone())
    });
    Ok((spec, first))
}

/// Applies map_func to each element.
#[native("DatasetV2.map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None, use_unbounded_threadpool=False, name=None)")]
#[expect(clippy::too_many_arguments, reason = "the Python signature has them")]
fn map(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    map_func: &Value,
    _num_parallel_calls: &Value,
    _deterministic: &Value,
    _synchronous: &Value,
    _use_unbounded_threadpool: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let f = map_func.clone();
    let (spec, _) = probe(vm, &d.spec, &f)?;
    Ok(DatasetObj::value(Kind::Map(ds.clone(), f), spec))
}

/// Probes the predicate `f` of `filter`/`take_while` on elements of `spec`:
/// it must return a bool or a scalar `tf.bool` tensor, or TensorFlow's
/// ValueError, whose text `message` makes from the spec it returned.
pub(super) fn check_predicate(
    vm: &dyn Vm,
    spec: &Spec,
    f: &Value,
    message: impl FnOnce(String) -> String,
) -> PyResult<()> {
    let (out, first) = probe(vm, spec, f)?;
    let ok = matches!(first, Value::Bool(_))
        || matches!(&out, Spec::Tensor { dtype: DType::Bool, dims: Some(dims) } if dims.is_empty());
    if !ok {
        return Err(PyErr::new(ExcType::ValueError, message(out.text())));
    }
    Ok(())
}

/// The elements for which predicate is true.
#[native("DatasetV2.filter(self, predicate, name=None)")]
fn filter(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    predicate: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let f = predicate.clone();
    check_predicate(vm, &d.spec, &f, |t| {
        format!("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is {t}.")
    })?;
    Ok(d.same_spec(Kind::Filter(ds.clone(), f)))
}

/// (index, element) pairs.
#[native("DatasetV2.enumerate(self, start=0, name=None)")]
fn enumerate(vm: &dyn Vm, this: This<DatasetObj>, start: &Value, _name: &Value) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let start = int_arg(vm, start, "start")?;
    let counter = DatasetObj::value(
        Kind::Range {
            start,
            stop: i64::MAX,
            step: 1,
            dtype: DType::Int64,
        },
        scalar_spec(DType::Int64),
    );
    let spec = Spec::Tuple(vec![scalar_spec(DType::Int64), d.spec.clone()]);
    Ok(DatasetObj::value(
        Kind::Zip(vec![counter, ds.clone()], false),
        spec,
    ))
}

/// Prepares elements ahead (a pass-through here).
#[native("DatasetV2.prefetch(self, buffer_size, name=None)")]
fn prefetch(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    buffer_size: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    int_arg(vm, buffer_size, "buffer_size")?;
    Ok(d.same_spec(Kind::Prefetch(ds.clone())))
}

/// Remembers the elements of the first full pass.
#[native("DatasetV2.cache(self, filename='', name=None)")]
fn cache(this: This<DatasetObj>, _filename: &Value, _name: &Value) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    // TODO: caching to a file (`filename`) is kept in memory too; the
    // elements and their order are the same.
    Ok(d.same_spec(Kind::Cache(ds.clone(), RefCell::new(None))))
}

/// Shuffles with a buffer, in TensorFlow's order for a given seed.
#[native(
    "DatasetV2.shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None)"
)]
fn shuffle(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    buffer_size: &Value,
    seed: Option<&Value>,
    reshuffle_each_iteration: Option<&Value>,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let buffer = int_arg(vm, buffer_size, "buffer_size")?;
    if buffer <= 0 && buffer != -1 {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            "buffer_size must be greater than zero. [Op:ShuffleDatasetV3]",
        ));
    }
    let buffer = if buffer == -1 { 1024 } else { buffer as usize };
    let op_seed = match seed {
        Some(v) => Some(int_arg(vm, v, "seed")?),
        None => None,
    };
    // the seeds of `random_seed.get_seed`, which may draw the next op seed
    crate::distribute::runtime_config::check_seeded(vm, op_seed)?;
    let state = vm.state().get::<crate::runtime::random::SeedState>();
    let seeds = match state.op_seeds(op_seed) {
        // ShuffleDatasetV3 seeds itself at random when given none
        (0, 0) => (
            crate::runtime::random::seed::entropy(),
            crate::runtime::random::seed::entropy(),
        ),
        (a, b) => (a as u64, b as u64),
    };
    let reshuffle = match reshuffle_each_iteration {
        Some(v) => vm.truthy(v)?,
        None => true,
    };
    let kind = Kind::Shuffle {
        input: ds.clone(),
        buffer,
        seeds,
        reshuffle,
        epoch: Cell::new(0),
    };
    Ok(DatasetObj::value(kind, d.spec.clone()))
}

/// Splits elements along their first dimension.
#[native("DatasetV2.unbatch(self, name=None)")]
fn unbatch(this: This<DatasetObj>, _name: &Value) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    d.spec.tensors_only("unbatch")?;
    let spec = d.spec.unbatched()?;
    Ok(DatasetObj::value(Kind::Unbatch(ds.clone()), spec))
}

/// Batches the unbatched elements again.
#[native("DatasetV2.rebatch(self, batch_size, drop_remainder=False, name=None)")]
fn rebatch(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    batch_size: &Value,
    drop_remainder: bool,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    d.spec.tensors_only("rebatch")?;
    let sizes: Vec<usize> = match batch_size {
        Value::List(l) => {
            let l = l.borrow().clone();
            l.iter()
                .map(|v| int_arg(vm, v, "batch_size").map(|n| n.max(0) as usize))
                .collect::<PyResult<_>>()?
        }
        Value::Tuple(t) => t
            .iter()
            .map(|v| int_arg(vm, v, "batch_size").map(|n| n.max(0) as usize))
            .collect::<PyResult<_>>()?,
        v => vec![positive(vm, v, "batch_size", "RebatchDatasetV2")?],
    };
    if sizes.is_empty() || sizes.iter().all(|&s| s == 0) {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            "batch_sizes must contain at least one positive value",
        ));
    }
    let drop = drop_remainder;
    let dim = if drop && sizes.iter().all(|&s| s == sizes[0]) {
        Some(sizes[0])
    } else {
        None
    };
    let spec = d.spec.unbatched()?.batched(dim);
    Ok(DatasetObj::value(
        Kind::Rebatch(ds.clone(), sizes, drop),
        spec,
    ))
}

/// Folds the elements into one state.
#[native("DatasetV2.reduce(self, initial_state, reduce_func, name=None)")]
fn reduce(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    initial_state: &Value,
    reduce_func: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let ds = this.value;
    let f = reduce_func;
    let mut state = normalize(vm, initial_state)?;
    let mut stream = open(ds)?;
    while let Some(elem) = stream.next(vm)? {
        let r = vm.call(f, vec![state, elem], Vec::new())?;
        state = map_result(vm, &r)?;
    }
    Ok(state)
}

/// An iterator of numpy values.
#[native("DatasetV2.as_numpy_iterator(self)")]
fn as_numpy_iterator(this: This<DatasetObj>) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    if d.spec.has_dataset() {
        return Err(PyErr::new(
            ExcType::TypeError,
            "`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that produce values of type <class 'tensorflow.python.data.ops.dataset_ops.DatasetV2'>",
        ));
    }
    numpy_iterator(ds)
}

/// The number of elements as an int64 tensor (-1 infinite, -2 unknown).
#[native("DatasetV2.cardinality(self)")]
fn cardinality(this: &DatasetObj) -> Tensor {
    Tensor::scalar(this.cardinality())
}

/// transformation_func(self).
#[native("DatasetV2.apply(self, transformation_func)")]
fn apply(vm: &dyn Vm, this: &Value, transformation_func: &Value) -> PyResult<Value> {
    let r = vm.call(transformation_func, vec![this.clone()], Vec::new())?;
    if dataset_of(&r).is_none() {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "`transformation_func` must return a `tf.data.Dataset` object. Got {}.",
                vm.repr(&vm.type_of(&r))?
            ),
        ));
    }
    Ok(r)
}

/// A new dataset with the given options set.
///
/// The options apply to the whole dataset; options set more than once are
/// merged, the last value set wins.
#[native("DatasetV2.with_options(self, options, name=None)")]
fn with_options(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    options: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    data_options::check_serializable(vm, options)?;
    for name in data_options::unused_options(options) {
        crate::distribute::notes::note_once(
            vm,
            &format!("tf.data option {name}"),
            &format!(
                "tf.data.Options().{name} is accepted but dist does not act on it \
                 (dist runs an input pipeline on one thread, in order, unoptimized)"
            ),
        );
    }
    let node = DatasetObj::value(Kind::Options(ds.clone(), options.clone()), d.spec.clone());
    // merged now, as TensorFlow merges (and serializes) them here: its
    // warnings come now, and later changes to `options` do not count
    data_options::options_of(vm, &node)?;
    Ok(node)
}

/// The options for this dataset and its inputs (a read-only
/// `tf.data.Options`).
#[native("DatasetV2.options(self)")]
fn options(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    let merged = data_options::options_of(vm, this)?;
    Ok(data_options::read_back(merged.as_ref()))
}

/// An iterator over the dataset.
#[native("DatasetV2.__iter__(self)")]
fn dunder_iter(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    owned_iterator(vm, this)
}
