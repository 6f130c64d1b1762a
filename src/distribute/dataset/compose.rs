//! The natives of the `tf.data.Dataset` methods that combine datasets or
//! carry state: `concatenate`, `flat_map`, `interleave`, `window`, `scan`,
//! `take_while`, `unique`, `get_single_element` and the static `counter`
//! and `choose_from_datasets`, and their `tf.data.experimental` forms. Each checks its arguments as TensorFlow does
//! when the pipeline is built and makes a node; the streams are in
//! `compose_stream.rs`.

use super::methods::{int_arg, probe};
use super::node::{dataset_of, DatasetObj, Kind, INFINITE};
use super::stream::open;
use super::structure::{kernel_error, Spec};
use crate::object::{native, NativeDef, This};
use crate::runtime::DType;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

// `tf.data.experimental`: the transformations `scan`, `take_while`,
// `unique`, `group_by_window` and `bucket_by_sequence_length` (for
// `Dataset.apply`), and `Counter`, `get_single_element` and
// `choose_from_datasets`.

/// A `_apply_fn(dataset)` that calls the dataset's method `method` with
/// the arguments `args` (what `tf.data.experimental.unique()` and its kind
/// return, for `Dataset.apply`).
fn transformation(method: &str, args: &[&Value]) -> Value {
    let mut bound = vec![Value::str(method)];
    bound.extend(args.iter().map(|v| (*v).clone()));
    apply_fn::DEF.function().bind(Value::tuple(bound))
}

/// Applies the transformation to `dataset`.
#[native("_apply_fn(_bound, dataset)")]
fn apply_fn(vm: &dyn Vm, bound: &Value, dataset: &Value) -> PyResult<Value> {
    let bound = vm.collect(bound)?;
    let Some((name, rest)) = bound.split_first() else {
        return Err(PyErr::new(ExcType::TypeError, "no transformation"));
    };
    let method = vm.getattr(dataset, &vm.str(name)?)?;
    vm.call(&method, rest.to_vec(), Vec::new())
}

/// Natives that return the transformation calling the dataset method
/// `$method` with their arguments.
macro_rules! transformations {
    ($($(#[$attr:meta])* fn $name:ident($sig:tt, $method:tt, $($arg:ident),*);)*) => {$(
        $(#[$attr])*
        #[native($sig)]
        pub fn $name($($arg: &Value),*) -> Value {
            transformation($method, &[$($arg),*])
        }
    )*};
}

transformations! {
    /// A transformation for `Dataset.apply`: `ds.scan(initial_state, scan_func)`.
    fn experimental_scan("scan(initial_state, scan_func)", "scan", initial_state, scan_func);
    /// A transformation for `Dataset.apply`: `ds.take_while(predicate)`.
    fn experimental_take_while("take_while(predicate)", "take_while", predicate);
    /// A transformation for `Dataset.apply`: `ds.unique()`.
    fn experimental_unique("unique()", "unique",);
    /// A transformation for `Dataset.apply`: `ds.group_by_window(...)`.
    fn experimental_group_by_window(
        "group_by_window(key_func, reduce_func, window_size=None, window_size_func=None)",
        "group_by_window",
        key_func, reduce_func, window_size, window_size_func
    );
    /// A transformation for `Dataset.apply`: `ds.bucket_by_sequence_length(...)`.
    #[expect(clippy::too_many_arguments, reason = "the Python signature has them")]
    fn experimental_bucket_by_sequence_length(
        "bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False, no_padding=False, drop_remainder=False)",
        "bucket_by_sequence_length",
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder
    );
}

/// `tf.data.experimental.choose_from_datasets`.
pub const EXPERIMENTAL_CHOOSE_FROM_DATASETS: NativeDef = choose_from_datasets::DEF
    .renamed("choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True)");

/// Whether two specs have the same structure and dtypes (dims aside).
fn same_types(a: &Spec, b: &Spec) -> bool {
    let ta = a.map_leaves(&mut |dtype, _| Ok(Spec::Tensor { dtype, dims: None }));
    let tb = b.map_leaves(&mut |dtype, _| Ok(Spec::Tensor { dtype, dims: None }));
    matches!((ta, tb), (Ok(x), Ok(y)) if x == y)
}

/// The common spec of two datasets' elements; `Err(None)` when they are
/// incompatible (structure or dtype), `Err(Some(e))` when dist cannot say it.
fn common_spec(a: &Spec, b: &Spec) -> Result<Spec, Option<PyErr>> {
    if let Some(s) = a.relax(b) {
        return Ok(s);
    }
    if same_types(a, b) {
        return Err(Some(PyErr::new(
            ExcType::NotImplementedError,
            "combining elements whose components differ in rank (an unknown-rank TensorSpec) is not supported in dist",
        )));
    }
    Err(None)
}

/// This dataset's elements, then those of `dataset`.
#[native("DatasetV2.concatenate(self, dataset, name=None)")]
pub(super) fn concatenate(
    this: This<DatasetObj>,
    dataset: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let other = dataset;
    let Some(o) = dataset_of(other) else {
        return Err(PyErr::new(
            ExcType::AttributeError,
            format!(
                "'{}' object has no attribute 'element_spec'",
                other.type_name()
            ),
        ));
    };
    let spec = match common_spec(&d.spec, &o.spec) {
        Ok(s) => s,
        Err(Some(e)) => return Err(e),
        Err(None) => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Incompatible dataset elements:\n  {} vs.   {}",
                    d.spec.text(),
                    o.spec.text()
                ),
            ))
        }
    };
    Ok(DatasetObj::value(
        Kind::Concatenate(ds.clone(), other.clone()),
        spec,
    ))
}

/// The element spec of the datasets `f` returns for elements of `spec`,
/// with TensorFlow's error when it returns something else.
fn dataset_fn_spec(vm: &dyn Vm, spec: &Spec, f: &Value) -> PyResult<Spec> {
    let (out, first) = probe(vm, spec, f)?;
    match out {
        Spec::Dataset(inner) => Ok(*inner),
        _ => {
            let got = match &first {
                Value::List(_) | Value::Tuple(_) => "<class 'tuple'>".to_string(),
                Value::Dict(_) => "<class 'dict'>".to_string(),
                other => vm.repr(&vm.type_of(other))?,
            };
            Err(PyErr::new(
                ExcType::TypeError,
                format!("The `map_func` argument must return a `Dataset` object. Got {got}."),
            ))
        }
    }
}

/// The elements of the datasets map_func returns, one after another.
#[native("DatasetV2.flat_map(self, map_func, name=None)")]
pub(super) fn flat_map(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    map_func: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let f = map_func.clone();
    let spec = dataset_fn_spec(vm, &d.spec, &f)?;
    Ok(DatasetObj::value(Kind::FlatMap(ds.clone(), f), spec))
}

/// The elements of the datasets map_func returns, cycle_length at a time, block_length each in turn.
#[native("DatasetV2.interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None, deterministic=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "the Python signature has them")]
pub(super) fn interleave(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    map_func: &Value,
    cycle_length: &Value,
    block_length: &Value,
    num_parallel_calls: &Value,
    _deterministic: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let f = map_func.clone();
    let positive = |v: &Value, what: &str, default: i64| -> PyResult<usize> {
        let n = match v {
            Value::None => default,
            v => int_arg(vm, v, what)?,
        };
        // AUTOTUNE: as many as the machine has cores, as TensorFlow does
        if n == -1 && what == "cycle_length" {
            return Ok(std::thread::available_parallelism().map_or(1, |n| n.get()));
        }
        if n <= 0 {
            return Err(kernel_error(
                "InterleaveDataset_Targuments_0",
                "InterleaveDataset",
                &format!("{what} must be greater than zero."),
            ));
        }
        Ok(n as usize)
    };
    let cycle = positive(cycle_length, "cycle_length", -1)?;
    let block = positive(block_length, "block_length", 1)?;
    let parallel = !num_parallel_calls.is_none();
    let spec = dataset_fn_spec(vm, &d.spec, &f)?;
    Ok(DatasetObj::value(
        Kind::Interleave {
            input: ds.clone(),
            f,
            cycle,
            block,
            parallel,
        },
        spec,
    ))
}

/// Windows of consecutive elements, each a dataset.
#[native("DatasetV2.window(self, size, shift=None, stride=1, drop_remainder=False, name=None)")]
pub(super) fn window(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    size: &Value,
    shift: &Value,
    stride: &Value,
    drop_remainder: bool,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    d.spec.tensors_only("window")?;
    let positive = |v: &Value, what: &str| -> PyResult<usize> {
        let n = int_arg(vm, v, what)?;
        if n <= 0 {
            return Err(kernel_error(
                "WindowDataset",
                "WindowDataset",
                &format!("Window {what} must be greater than zero."),
            ));
        }
        Ok(n as usize)
    };
    let size = positive(size, "size")?;
    let shift = match shift {
        Value::None => size,
        v => positive(v, "shift")?,
    };
    let stride = positive(stride, "stride")?;
    let drop = drop_remainder;
    super::stream::check_buffer(
        ds,
        (size - 1).saturating_mul(stride).saturating_add(1),
        "window",
    )?;
    let spec = d.spec.map_leaves(&mut |dtype, dims| {
        Ok(Spec::Dataset(Box::new(Spec::Tensor {
            dtype,
            dims: dims.map(<[_]>::to_vec),
        })))
    })?;
    Ok(DatasetObj::value(
        Kind::Window {
            input: ds.clone(),
            size,
            shift,
            stride,
            drop,
        },
        spec,
    ))
}

/// Like map, with a state carried from element to element.
#[native("DatasetV2.scan(self, initial_state, scan_func, name=None)")]
pub(super) fn scan(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    initial_state: &Value,
    scan_func: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let state = super::structure::normalize(vm, initial_state)?;
    let f = scan_func.clone();
    let mut state_spec = Spec::of(&state);
    // As TensorFlow retraces with a relaxed state shape until it is stable.
    for _ in 0..4 {
        let input = Spec::Tuple(vec![state_spec.clone(), d.spec.clone()]);
        let (out, _) = probe(vm, &input, &f)?;
        let Spec::Tuple(pair) = &out else {
            return Err(not_a_pair(&out));
        };
        let [new_state, output] = pair.as_slice() else {
            return Err(not_a_pair(&out));
        };
        let relaxed = match state_spec.relax(new_state) {
            Some(r) => r,
            None => return Err(state_mismatch(&state_spec, new_state)),
        };
        if relaxed == state_spec {
            return Ok(DatasetObj::value(
                Kind::Scan(ds.clone(), state, f),
                output.clone(),
            ));
        }
        state_spec = relaxed;
    }
    Err(PyErr::new(
        ExcType::ValueError,
        "Invalid `scan_func`. The state's shape did not settle after relaxing it",
    ))
}

#[cold]
fn not_a_pair(out: &Spec) -> PyErr {
    PyErr::new(
        ExcType::TypeError,
        format!(
            "Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the output value but its return type is {}.",
            out.text()
        ),
    )
}

#[cold]
fn state_mismatch(old: &Spec, new: &Spec) -> PyErr {
    let (a, b) = (old.leaves(), new.leaves());
    if a.len() == b.len() {
        for ((da, _), (db, _)) in a.iter().zip(&b) {
            if da != db {
                return PyErr::new(
                    ExcType::TypeError,
                    format!(
                        "Invalid `scan_func`. The element types for the new state must match the initial state. Expected <dtype: '{}'>, got <dtype: '{}'>.",
                        da.name(),
                        db.name()
                    ),
                );
            }
        }
    }
    PyErr::new(
        ExcType::TypeError,
        format!(
            "Invalid `scan_func`. The new state must have the structure of the initial state. Expected {}, got {}.",
            old.text(),
            new.text()
        ),
    )
}

/// The elements up to the first for which predicate is false.
#[native("DatasetV2.take_while(self, predicate, name=None)")]
pub(super) fn take_while(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    predicate: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let f = predicate.clone();
    super::methods::check_predicate(vm, &d.spec, &f, |t| {
        format!("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its return type is{t}.")
    })?;
    Ok(d.same_spec(Kind::TakeWhile(ds.clone(), f)))
}

/// Each distinct element once, in first-seen order.
#[native("DatasetV2.unique(self, name=None)")]
pub(super) fn unique(this: This<DatasetObj>, _name: &Value) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let Spec::Tensor { dtype, dims } = &d.spec else {
        return Err(kernel_error(
            "UniqueDataset",
            "UniqueDataset",
            "UniqueDataset only supports inputs with a single component.",
        ));
    };
    if !matches!(dtype, DType::Int32 | DType::Int64 | DType::String) {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "`tf.data.Dataset.unique` does not support type <dtype: '{}'> -- only `tf.int32`, `tf.int64`, and `tf.string` are supported.",
                dtype.name()
            ),
        ));
    }
    if dims.as_ref().is_none_or(|d| !d.is_empty()) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "`unique` of non-scalar elements is not supported in dist",
        ));
    }
    Ok(DatasetObj::value(Kind::Unique(ds.clone()), d.spec.clone()))
}

/// Groups elements by key into windows and reduces each window to a dataset.
#[native("DatasetV2.group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None)")]
pub(super) fn group_by_window(
    vm: &dyn Vm,
    this: This<DatasetObj>,
    key_func: &Value,
    reduce_func: &Value,
    window_size: &Value,
    window_size_func: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let (ds, d) = (this.value, this.obj);
    let (key, reduce) = (key_func.clone(), reduce_func.clone());
    let size = match (window_size, window_size_func) {
        (Value::None, f) if !f.is_none() => Err(f.clone()),
        (n, Value::None) if !n.is_none() => Ok(int_arg(vm, n, "window_size")?),
        _ => {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Either the `window_size` argument or the `window_size_func` argument must be specified.",
            ))
        }
    };
    let (key_spec, _) = probe(vm, &d.spec, &key)?;
    let scalar_i64 = matches!(&key_spec, Spec::Tensor { dtype: DType::Int64, dims: Some(dims) } if dims.is_empty());
    if !scalar_i64 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but its return type is {}.",
                key_spec.text()
            ),
        ));
    }
    let window = Spec::Dataset(Box::new(d.spec.clone()));
    let input = Spec::Tuple(vec![super::methods::scalar_spec(DType::Int64), window]);
    let (out, _) = probe(vm, &input, &reduce)?;
    let Spec::Dataset(spec) = out else {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object but its return type is {}.",
                out.text()
            ),
        ));
    };
    Ok(DatasetObj::value(
        Kind::GroupByWindow {
            input: ds.clone(),
            key,
            reduce,
            size,
        },
        *spec,
    ))
}

/// `Dataset.get_single_element`, which also takes a `name` (ignored).
#[native("DatasetV2.get_single_element(self, name=None)")]
pub(super) fn dataset_get_single_element(
    vm: &dyn Vm,
    this: &Value,
    _name: &Value,
) -> PyResult<Value> {
    get_single_element(vm, this)
}

/// The only element of the dataset.
// TensorFlow's errors when it has none or more.
#[native("get_single_element(dataset)")]
pub fn get_single_element(vm: &dyn Vm, dataset: &Value) -> PyResult<Value> {
    let ds = dataset;
    let Some(d) = dataset_of(ds) else {
        return Err(PyErr::new(
            ExcType::TypeError,
            "`dataset` must be a `tf.data.Dataset` object.",
        ));
    };
    let fail = |msg: &str| {
        kernel_error(
            &format!(
                "DatasetToSingleElement_output_types_{}",
                d.spec.components()
            ),
            "DatasetToSingleElement",
            msg,
        )
    };
    let mut stream = open(ds)?;
    let Some(first) = stream.next(vm)? else {
        return Err(fail("Dataset was empty."));
    };
    if stream.next(vm)?.is_some() {
        return Err(fail("Dataset had more than one element."));
    }
    Ok(first)
}

/// `Dataset.counter`, which also takes a `name` (ignored).
#[native("DatasetV2.counter(start=0, step=1, dtype=None, name=None)")]
pub(super) fn dataset_counter(
    vm: &dyn Vm,
    start: &Value,
    step: &Value,
    dtype: &Value,
    _name: &Value,
) -> PyResult<Value> {
    counter(vm, start, step, dtype)
}

/// start, start + step, ... forever.
#[native("Counter(start=0, step=1, dtype=None)")]
pub fn counter(vm: &dyn Vm, start: &Value, step: &Value, dtype: &Value) -> PyResult<Value> {
    let start = int_arg(vm, start, "start")?;
    let step = int_arg(vm, step, "step")?;
    let dtype = match dtype {
        Value::None => DType::Int64,
        v => crate::object::tensor::convert::dtype_arg(vm, v)?,
    };
    Ok(DatasetObj::value(
        Kind::Counter { start, step, dtype },
        super::methods::scalar_spec(dtype),
    ))
}

/// Elements of datasets[i] for each i of choice_dataset.
#[native("DatasetV2.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True)")]
pub(super) fn choose_from_datasets(
    vm: &dyn Vm,
    datasets: &Value,
    choice_dataset: &Value,
    stop_on_empty_dataset: bool,
) -> PyResult<Value> {
    let datasets = vm.collect(datasets)?;
    if datasets.is_empty() {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Invalid `datasets`. `datasets` should not be empty.",
        ));
    }
    let mut spec: Option<Spec> = None;
    for (i, v) in datasets.iter().enumerate() {
        let Some(d) = dataset_of(v) else {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Invalid `datasets`. `datasets` must be a list of `tf.data.Dataset` objects, but element {i} is {}.",
                    v.type_name()
                ),
            ));
        };
        spec = Some(match spec {
            None => d.spec.clone(),
            Some(s) => match common_spec(&s, &d.spec) {
                Ok(s) => s,
                Err(Some(e)) => return Err(e),
                Err(None) => {
                    let lines: Vec<String> = datasets
                        .iter()
                        .enumerate()
                        .map(|(j, v)| {
                            format!(
                                "Dataset {j} element_spec={}.",
                                dataset_of(v).map_or(String::new(), |d| d.spec.text())
                            )
                        })
                        .collect();
                    return Err(PyErr::new(
                        ExcType::TypeError,
                        format!(
                            "Invalid `datasets`. `datasets` must have compatible element specs.\n {}",
                            lines.join("\n")
                        ),
                    ));
                }
            },
        });
    }
    let choice = choice_dataset;
    let choice_spec = dataset_of(choice).map(|d| d.spec.clone());
    let scalar_i64 = matches!(&choice_spec, Some(Spec::Tensor { dtype: DType::Int64, dims: Some(dims) }) if dims.is_empty());
    if !scalar_i64 {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors but are {}.",
                choice_spec.map_or_else(|| choice.type_name().to_string(), |s| s.text())
            ),
        ));
    }
    let stop = stop_on_empty_dataset;
    let spec = spec.unwrap_or(Spec::Tuple(Vec::new()));
    Ok(DatasetObj::value(
        Kind::Choose(datasets, choice.clone(), stop),
        spec,
    ))
}

/// The cardinality of a `choose_from_datasets` node: infinite when one of
/// its datasets is, unknown otherwise (as TensorFlow says).
pub fn choose_cardinality(datasets: &[Value]) -> i64 {
    if datasets
        .iter()
        .any(|d| dataset_of(d).is_some_and(|d| d.cardinality() == INFINITE))
    {
        INFINITE
    } else {
        super::node::UNKNOWN
    }
}
