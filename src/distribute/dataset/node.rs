//! The dataset object: one node of a lazy pipeline (`Dataset.range(7).batch(3)`
//! is a `_BatchDataset` over a `_RangeDataset`). Nodes hold their inputs and
//! their element spec; nothing is computed until a stream is opened
//! (`stream.rs`). The node classes and reprs live here; `tf.data.Dataset`
//! (`DatasetV2`) and its natives in `methods.rs`, `sources.rs`, `compose.rs`.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use super::methods::DATASET_V2;
use super::structure::Spec;
use crate::distribute::classes::native_class;
use crate::object::ClassSpec;
use crate::runtime::DType;
use crate::value::{NativeObject, PyResult, Value, Vm};

/// `tf.data.INFINITE_CARDINALITY`.
pub const INFINITE: i64 = -1;
/// `tf.data.UNKNOWN_CARDINALITY`.
pub const UNKNOWN: i64 = -2;

/// What a node does.
pub enum Kind {
    /// `Dataset.range(start, stop, step)`.
    Range {
        /// First value.
        start: i64,
        /// End (exclusive).
        stop: i64,
        /// Step (never zero).
        step: i64,
        /// `output_type` (int64 by default); each value is cast to it.
        dtype: DType,
    },
    /// `Dataset.from_tensors(element)`: one element.
    Tensors(Value),
    /// `Dataset.from_tensor_slices(...)`: the tensors, sliced as they are read.
    Slices(Rc<super::sources::Slices>),
    /// `Dataset.zip(...)` and `enumerate`: the inputs, packed like `spec`;
    /// `true`: one bare dataset, whose elements pass unchanged.
    Zip(Vec<Value>, bool),
    /// `batch(size, drop_remainder)`.
    Batch(Value, usize, bool),
    /// `repeat(count)`; None repeats forever.
    Repeat(Value, Option<u64>),
    /// `shard(num_shards, index)`.
    Shard(Value, u64, u64),
    /// `take(count)`; None takes everything.
    Take(Value, Option<u64>),
    /// `skip(count)`; None skips everything.
    Skip(Value, Option<u64>),
    /// `map(fn)`.
    Map(Value, Value),
    /// `filter(predicate)`.
    Filter(Value, Value),
    /// `prefetch(n)`: a pass-through here (no background threads).
    Prefetch(Value),
    /// `cache()`: the elements of the first complete pass, replayed.
    Cache(Value, RefCell<Option<Rc<Vec<Value>>>>),
    /// `shuffle(buffer_size, seed, reshuffle_each_iteration)`.
    Shuffle {
        /// The input.
        input: Value,
        /// Buffer size.
        buffer: usize,
        /// The kernel's `seed` and `seed2`, as `random_seed.get_seed` made
        /// them (never both zero: unseeded datasets draw theirs at random).
        seeds: (u64, u64),
        /// Whether each pass uses a new order.
        reshuffle: bool,
        /// How many passes have started.
        epoch: Cell<u64>,
    },
    /// `unbatch()`.
    Unbatch(Value),
    /// `rebatch(batch_size)`: batch sizes, cycled.
    Rebatch(Value, Vec<usize>, bool),
    /// `with_options(options)`: a pass-through that sets the options (the
    /// merge of the input's and these, made when the node is built).
    Options(Value, Value),
    /// `Dataset.from_generator(generator, args=...)`: `generator(*args)` is
    /// called at the start of each pass and its items converted to the spec.
    Generator(Value, Vec<Value>),
    /// `padded_batch(size, padded_shapes, padding_values, drop_remainder)`.
    PaddedBatch(Value, Rc<super::padding::Padding>),
    /// `concatenate(other)`: the first dataset's elements, then the other's.
    Concatenate(Value, Value),
    /// `flat_map(fn)`: the elements of the dataset `fn` returns for each element.
    FlatMap(Value, Value),
    /// `interleave(fn, cycle_length, block_length)`; `parallel` when
    /// `num_parallel_calls` was given (the order stays deterministic).
    Interleave {
        /// The input.
        input: Value,
        /// Returns a dataset per input element.
        f: Value,
        /// How many of those datasets are open at once.
        cycle: usize,
        /// How many consecutive elements each yields in its turn.
        block: usize,
        /// Whether `num_parallel_calls` was given (only the class name changes).
        parallel: bool,
    },
    /// `window(size, shift, stride, drop_remainder)`.
    Window {
        /// The input.
        input: Value,
        /// Elements per window.
        size: usize,
        /// Input elements between the starts of two windows.
        shift: usize,
        /// Input elements between two elements of a window.
        stride: usize,
        /// Whether a short last window is dropped.
        drop: bool,
    },
    /// A dataset that is an element of another (a window): its elements, held.
    Variant(Rc<Vec<Value>>),
    /// A dataset put inside an element (returned by a `map` function,
    /// given to `from_tensors`): the same elements, under TensorFlow's name
    /// for a dataset that went through a variant tensor.
    Nested(Value),
    /// `scan(initial_state, scan_func)`.
    Scan(Value, Value, Value),
    /// `Dataset.counter(start, step, dtype)`: an infinite count (TensorFlow
    /// builds it with `scan`, hence its class name).
    Counter {
        /// First value.
        start: i64,
        /// Step.
        step: i64,
        /// Element dtype.
        dtype: DType,
    },
    /// `take_while(predicate)`.
    TakeWhile(Value, Value),
    /// `unique()`.
    Unique(Value),
    /// `group_by_window(key_func, reduce_func, window_size | window_size_func)`.
    GroupByWindow {
        /// The input.
        input: Value,
        /// Element → int64 key.
        key: Value,
        /// (key, window dataset) → dataset.
        reduce: Value,
        /// `Ok(n)`: every window holds n; `Err(f)`: `f(key)` says.
        size: Result<i64, Value>,
    },
    /// `TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`.
    Files(Rc<super::files::FileSource>),
    /// `Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)`.
    Choose(Vec<Value>, Value, bool),
}

/// A `tf.data.Dataset`.
pub struct DatasetObj {
    /// What it does.
    pub kind: Kind,
    /// Its `element_spec`.
    pub spec: Spec,
    /// Its `tf.data.Options`: those of its inputs merged (and, for
    /// `with_options`, the ones given), computed when first asked for;
    /// None when nothing was set.
    pub options: OnceCell<Option<Value>>,
}

/// The dataset behind a value (every input of a node is one).
pub fn dataset_of(v: &Value) -> Option<&DatasetObj> {
    v.downcast::<DatasetObj>()
}

impl DatasetObj {
    /// A new dataset value.
    pub fn value(kind: Kind, spec: Spec) -> Value {
        Value::native(DatasetObj {
            kind,
            spec,
            options: OnceCell::new(),
        })
    }

    /// A new dataset of `kind` whose elements are like this one's.
    pub fn same_spec(&self, kind: Kind) -> Value {
        Self::value(kind, self.spec.clone())
    }

    /// TensorFlow's class of this node.
    pub fn class_spec(&self) -> &'static ClassSpec {
        match &self.kind {
            Kind::Range { .. } => &RANGE,
            Kind::Tensors(_) => &TENSOR,
            Kind::Slices(_) => &TENSOR_SLICE,
            Kind::Zip(..) => &ZIP,
            Kind::Batch(..) => &BATCH,
            Kind::Repeat(..) => &REPEAT,
            Kind::Shard(..) => &SHARD,
            Kind::Take(..) => &TAKE,
            Kind::Skip(..) => &SKIP,
            Kind::Map(..) => &MAP,
            Kind::Filter(..) => &FILTER,
            Kind::Prefetch(_) => &PREFETCH,
            Kind::Cache(..) => &CACHE,
            Kind::Shuffle { .. } => &SHUFFLE,
            Kind::Unbatch(_) => &UNBATCH,
            Kind::Rebatch(..) => &REBATCH,
            Kind::Options(..) => &OPTIONS,
            Kind::Generator(..) | Kind::FlatMap(..) => &FLAT_MAP,
            Kind::PaddedBatch(..) => &PADDED_BATCH,
            Kind::Concatenate(..) => &CONCATENATE,
            Kind::Interleave {
                parallel: false, ..
            } => &INTERLEAVE,
            Kind::Interleave { .. } => &PARALLEL_INTERLEAVE,
            Kind::Window { .. } => &WINDOW,
            Kind::Variant(_) | Kind::Nested(_) => &VARIANT,
            Kind::Scan(..) | Kind::Counter { .. } => &SCAN,
            Kind::TakeWhile(..) => &TAKE_WHILE,
            Kind::Unique(_) => &UNIQUE,
            Kind::Choose(..) => &DIRECTED_INTERLEAVE,
            Kind::GroupByWindow { .. } => &GROUP_BY_WINDOW,
            Kind::Files(source) => source.class_spec(),
        }
    }

    /// The datasets this one reads, as TensorFlow's `_inputs()` lists them
    /// (whose options it inherits).
    pub fn inputs(&self) -> Vec<&Value> {
        let all: Vec<&Value> = match &self.kind {
            Kind::Range { .. }
            | Kind::Tensors(_)
            | Kind::Slices(_)
            | Kind::Counter { .. }
            | Kind::Variant(_)
            | Kind::Nested(_)
            | Kind::Generator(..)
            | Kind::Files(_) => Vec::new(),
            Kind::Zip(inputs, _) => inputs.iter().collect(),
            Kind::Concatenate(a, b) => vec![a, b],
            Kind::Choose(datasets, choice, _) => {
                std::iter::once(choice).chain(datasets.iter()).collect()
            }
            Kind::Batch(input, ..)
            | Kind::Repeat(input, _)
            | Kind::Shard(input, ..)
            | Kind::Take(input, _)
            | Kind::Skip(input, _)
            | Kind::Map(input, _)
            | Kind::Filter(input, _)
            | Kind::Prefetch(input)
            | Kind::Cache(input, _)
            | Kind::Shuffle { input, .. }
            | Kind::Unbatch(input)
            | Kind::Rebatch(input, ..)
            | Kind::Options(input, _)
            | Kind::PaddedBatch(input, _)
            | Kind::FlatMap(input, _)
            | Kind::Interleave { input, .. }
            | Kind::Window { input, .. }
            | Kind::Scan(input, ..)
            | Kind::TakeWhile(input, _)
            | Kind::Unique(input)
            | Kind::GroupByWindow { input, .. } => vec![input],
        };
        all.into_iter()
            .filter(|v| dataset_of(v).is_some())
            .collect()
    }

    /// `cardinality()`: the number of elements, `INFINITE` or `UNKNOWN`.
    pub fn cardinality(&self) -> i64 {
        let of = |v: &Value| dataset_of(v).map_or(UNKNOWN, DatasetObj::cardinality);
        match &self.kind {
            Kind::Range {
                start, stop, step, ..
            } => range_len(*start, *stop, *step),
            Kind::Tensors(_) => 1,
            Kind::Slices(s) => s.len() as i64,
            Kind::Zip(inputs, _) => {
                let cs: Vec<i64> = inputs.iter().map(of).collect();
                if cs.contains(&UNKNOWN) {
                    UNKNOWN
                } else {
                    cs.iter()
                        .copied()
                        .filter(|&c| c != INFINITE)
                        .min()
                        .unwrap_or(INFINITE)
                }
            }
            Kind::Batch(input, size, drop) => batch_count(of(input), *size, *drop),
            Kind::PaddedBatch(input, p) => batch_count(of(input), p.size, p.drop),
            Kind::Concatenate(a, b) => match (of(a), of(b)) {
                (INFINITE, _) | (_, INFINITE) => INFINITE,
                (UNKNOWN, _) | (_, UNKNOWN) => UNKNOWN,
                (x, y) => x.saturating_add(y),
            },
            Kind::Window {
                input,
                size,
                shift,
                stride,
                drop,
            } => match of(input) {
                c if c < 0 => c,
                c => {
                    let shift = *shift as i64;
                    if *drop {
                        let span = (*size as i64 - 1)
                            .saturating_mul(*stride as i64)
                            .saturating_add(1);
                        if c >= span {
                            (c - span) / shift + 1
                        } else {
                            0
                        }
                    } else {
                        ((c as i128 + shift as i128 - 1) / shift as i128) as i64
                    }
                }
            },
            Kind::Variant(items) => items.len() as i64,
            Kind::Nested(input) => of(input),
            Kind::Counter { .. } => INFINITE,
            Kind::Scan(input, ..) => of(input),
            Kind::FlatMap(..)
            | Kind::Interleave { .. }
            | Kind::TakeWhile(..)
            | Kind::Unique(_)
            | Kind::GroupByWindow { .. } => UNKNOWN,
            Kind::Choose(datasets, ..) => super::compose::choose_cardinality(datasets),
            Kind::Repeat(input, count) => match (of(input), count) {
                (0, _) => 0,
                (_, Some(0)) => 0,
                // TF: repeating forever is infinite even when the input's count is unknown.
                (_, None) => INFINITE,
                (c, Some(n)) if c >= 0 => c.saturating_mul(*n as i64),
                (c, _) => c,
            },
            Kind::Shard(input, n, index) => match of(input) {
                c if c < 0 => c,
                c => {
                    let (n, i) = (*n as i64, *index as i64);
                    c / n + i64::from(i < c % n)
                }
            },
            Kind::Take(input, count) => match (of(input), count) {
                (c, None) => c,
                (INFINITE, Some(n)) => *n as i64,
                (UNKNOWN, _) => UNKNOWN,
                (c, Some(n)) => c.min(*n as i64),
            },
            Kind::Skip(input, count) => match (of(input), count) {
                (c, _) if c < 0 => c,
                (_, None) => 0,
                (c, Some(n)) => (c - *n as i64).max(0),
            },
            Kind::Map(input, _)
            | Kind::Prefetch(input)
            | Kind::Cache(input, _)
            | Kind::Shuffle { input, .. }
            | Kind::Options(input, _) => of(input),
            Kind::Filter(..)
            | Kind::Unbatch(_)
            | Kind::Rebatch(..)
            | Kind::Generator(..)
            | Kind::Files(_) => UNKNOWN,
        }
    }
}

/// The number of batches of `size` from `c` elements (negative: passed on).
fn batch_count(c: i64, size: usize, drop: bool) -> i64 {
    if c < 0 {
        return c;
    }
    let s = size as i64;
    if drop {
        c / s
    } else {
        ((c as i128 + s as i128 - 1) / s as i128) as i64
    }
}

/// The number of values in `range(start, stop, step)`.
pub fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    let (a, b, s) = (start as i128, stop as i128, step as i128);
    let n = if s > 0 && a < b {
        (b - a - 1) / s + 1
    } else if s < 0 && a > b {
        (a - b - 1) / (-s) + 1
    } else {
        0
    };
    n.min(i64::MAX as i128) as i64
}

/// The classes of the nodes, TensorFlow's subclasses of `DatasetV2`.
macro_rules! node_classes {
    ($($id:ident = $name:literal in $module:literal;)*) => {
        $(
            #[doc = concat!("`", $name, "`.")]
            pub static $id: ClassSpec = ClassSpec {
                name: $name,
                module: concat!("tensorflow.python.data.ops.", $module),
                bases: &[&DATASET_V2],
                members: &[],
            };
        )*
    };
}

node_classes! {
    RANGE = "_RangeDataset" in "range_op";
    TENSOR = "_TensorDataset" in "from_tensors_op";
    TENSOR_SLICE = "_TensorSliceDataset" in "from_tensor_slices_op";
    ZIP = "_ZipDataset" in "zip_op";
    BATCH = "_BatchDataset" in "batch_op";
    REPEAT = "_RepeatDataset" in "repeat_op";
    SHARD = "_ShardDataset" in "shard_op";
    TAKE = "_TakeDataset" in "take_op";
    SKIP = "_SkipDataset" in "skip_op";
    MAP = "_MapDataset" in "map_op";
    FILTER = "_FilterDataset" in "filter_op";
    PREFETCH = "_PrefetchDataset" in "prefetch_op";
    CACHE = "CacheDataset" in "cache_op";
    SHUFFLE = "_ShuffleDataset" in "shuffle_op";
    UNBATCH = "_UnbatchDataset" in "unbatch_op";
    REBATCH = "_RebatchDataset" in "rebatch_op";
    OPTIONS = "_OptionsDataset" in "dataset_ops";
    FLAT_MAP = "_FlatMapDataset" in "flat_map_op";
    PADDED_BATCH = "_PaddedBatchDataset" in "padded_batch_op";
    CONCATENATE = "_ConcatenateDataset" in "concatenate_op";
    INTERLEAVE = "_InterleaveDataset" in "interleave_op";
    PARALLEL_INTERLEAVE = "_ParallelInterleaveDataset" in "interleave_op";
    WINDOW = "_WindowDataset" in "window_op";
    VARIANT = "_VariantDataset" in "dataset_ops";
    SCAN = "_ScanDataset" in "scan_op";
    TAKE_WHILE = "_TakeWhileDataset" in "take_while_op";
    UNIQUE = "_UniqueDataset" in "unique_op";
    DIRECTED_INTERLEAVE = "_DirectedInterleaveDataset" in "directed_interleave_op";
    GROUP_BY_WINDOW = "_GroupByWindowDataset" in "group_by_window_op";
}

native_class!(DatasetObj: DATASET_V2);

impl NativeObject for DatasetObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.class_spec())
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{} element_spec={}>",
            self.class_spec().name,
            self.spec.text()
        ))
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        // a method TensorFlow's Dataset has and dist does not
        match crate::object::tf_api::not_implemented("tensorflow.data.Dataset", name) {
            Some(e) => Err(e),
            None => Ok(None),
        }
    }

    fn iter(&self, this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        super::iterator::owned_iterator(vm, this).map(Some)
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        match self.cardinality() {
            INFINITE => Err(crate::value::PyErr::new(
                crate::value::ExcType::TypeError,
                "The dataset is infinite.",
            )),
            UNKNOWN => Err(crate::value::PyErr::new(
                crate::value::ExcType::TypeError,
                "The dataset length is unknown.",
            )),
            n => Ok(Some(n as usize)),
        }
    }

    fn truthy(&self, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(Some(true))
    }
}
