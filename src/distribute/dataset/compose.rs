//! The natives of the `tf.data.Dataset` methods that combine datasets or
//! carry state: `concatenate`, `flat_map`, `interleave`, `window`, `scan`,
//! `take_while`, `unique`, `get_single_element` and the static `counter`
//! and `choose_from_datasets`. Each checks its arguments as TensorFlow does
//! when the pipeline is built and makes a node; the streams are in
//! `compose_stream.rs`.

use super::methods::{int_arg, probe};
use super::node::{dataset_of, DatasetObj, Kind, INFINITE};
use super::stream::open;
use super::structure::{kernel_error, Spec};
use crate::runtime::DType;
use crate::value::{Args, Class, ExcType, NativeFunction, PyErr, PyResult, Value, Vm};

use crate::distribute::classes::method as add;

/// Registers these methods on `DatasetV2`.
pub fn register(c: &Class) {
    add(c, "DatasetV2.padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None)", super::padding::padded_batch, "Stacks consecutive elements, padding each component to a common shape.");
    add(
        c,
        "DatasetV2.concatenate(self, dataset, name=None)",
        concatenate,
        "This dataset's elements, then those of `dataset`.",
    );
    add(
        c,
        "DatasetV2.flat_map(self, map_func, name=None)",
        flat_map,
        "The elements of the datasets map_func returns, one after another.",
    );
    add(c, "DatasetV2.interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None, deterministic=None, name=None)", interleave, "The elements of the datasets map_func returns, cycle_length at a time, block_length each in turn.");
    add(
        c,
        "DatasetV2.window(self, size, shift=None, stride=1, drop_remainder=False, name=None)",
        window,
        "Windows of consecutive elements, each a dataset.",
    );
    add(
        c,
        "DatasetV2.scan(self, initial_state, scan_func, name=None)",
        scan,
        "Like map, with a state carried from element to element.",
    );
    add(
        c,
        "DatasetV2.take_while(self, predicate, name=None)",
        take_while,
        "The elements up to the first for which predicate is false.",
    );
    add(
        c,
        "DatasetV2.unique(self, name=None)",
        unique,
        "Each distinct element once, in first-seen order.",
    );
    add(c, "DatasetV2.bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False, no_padding=False, drop_remainder=False, name=None)", super::bucket::bucket_by_sequence_length, "Batches elements of similar length together, padded (group_by_window by length bucket).");
    add(c, "DatasetV2.group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None)", group_by_window, "Groups elements by key into windows and reduces each window to a dataset.");
    add(
        c,
        "DatasetV2.get_single_element(self, name=None)",
        get_single_element,
        "The only element of the dataset.",
    );
    add(
        c,
        "DatasetV2.counter(start=0, step=1, dtype=None, name=None)",
        counter,
        "start, start + step, ... forever.",
    );
    add(
        c,
        "DatasetV2.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True)",
        choose_from_datasets,
        "Elements of datasets[i] for each i of choice_dataset.",
    );
}

/// Adds `Counter`, `get_single_element`, `choose_from_datasets` and the
/// transformations `scan`, `take_while` and `unique` (for `Dataset.apply`)
/// to `tf.data.experimental`.
pub fn register_experimental(e: &mut crate::modules::ModuleBuilder) {
    e.function(
        "scan(initial_state, scan_func)",
        experimental_scan,
        "A transformation for `Dataset.apply`: `ds.scan(initial_state, scan_func)`.",
    );
    e.function(
        "take_while(predicate)",
        experimental_take_while,
        "A transformation for `Dataset.apply`: `ds.take_while(predicate)`.",
    );
    e.function(
        "unique()",
        experimental_unique,
        "A transformation for `Dataset.apply`: `ds.unique()`.",
    );
    e.function(
        "group_by_window(key_func, reduce_func, window_size=None, window_size_func=None)",
        experimental_group_by_window,
        "A transformation for `Dataset.apply`: `ds.group_by_window(...)`.",
    );
    e.function(
        "bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False, no_padding=False, drop_remainder=False)",
        experimental_bucket,
        "A transformation for `Dataset.apply`: `ds.bucket_by_sequence_length(...)`.",
    );
    e.function(
        "Counter(start=0, step=1, dtype=None)",
        counter,
        "start, start + step, ... forever.",
    );
    e.function(
        "get_single_element(dataset)",
        get_single_element,
        "The only element of the dataset.",
    );
    e.function(
        "choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True)",
        choose_from_datasets,
        "Elements of datasets[i] for each i of choice_dataset.",
    );
}

/// A `_apply_fn(dataset)` that calls the dataset's method `method` with
/// the arguments `args` (what `tf.data.experimental.unique()` and its kind
/// return, for `Dataset.apply`).
fn transformation(method: &str, args: &Args) -> Value {
    let mut bound = vec![Value::str(method)];
    bound.extend(args.values.iter().cloned());
    NativeFunction::new(
        "_apply_fn(_bound, dataset)",
        apply_transformation,
        "Applies the transformation to `dataset`.",
    )
    .bind(Value::tuple(bound))
}

fn apply_transformation(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let bound = vm.collect(args.get(0))?;
    let Some((name, rest)) = bound.split_first() else {
        return Err(PyErr::new(ExcType::TypeError, "no transformation"));
    };
    let method = vm.getattr(args.get(1), &vm.str(name)?)?;
    vm.call(&method, rest.to_vec(), Vec::new())
}

fn experimental_scan(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(transformation("scan", args))
}

fn experimental_take_while(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(transformation("take_while", args))
}

fn experimental_unique(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(transformation("unique", args))
}

fn experimental_group_by_window(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(transformation("group_by_window", args))
}

fn experimental_bucket(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(transformation("bucket_by_sequence_length", args))
}

fn this(args: &Args) -> PyResult<(&Value, &DatasetObj)> {
    let v = args.get(0);
    match dataset_of(v) {
        Some(d) => Ok((v, d)),
        None => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "descriptor requires a 'DatasetV2' object but received a '{}'",
                v.type_name()
            ),
        )),
    }
}

/// Whether two specs have the same structure and dtypes (dims aside).
fn same_types(a: &Spec, b: &Spec) -> bool {
    let ta = a.map_leaves(&mut |dtype, _| {
        Ok(Spec::Tensor {
            dtype,
            dims: Vec::new(),
        })
    });
    let tb = b.map_leaves(&mut |dtype, _| {
        Ok(Spec::Tensor {
            dtype,
            dims: Vec::new(),
        })
    });
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

fn concatenate(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let other = args.get(1);
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

fn flat_map(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let f = args.get(1).clone();
    let spec = dataset_fn_spec(vm, &d.spec, &f)?;
    Ok(DatasetObj::value(Kind::FlatMap(ds.clone(), f), spec))
}

fn interleave(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let f = args.get(1).clone();
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
    let cycle = positive(args.get(2), "cycle_length", -1)?;
    let block = positive(args.get(3), "block_length", 1)?;
    let parallel = !args.get(4).is_none();
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

fn window(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
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
    let size = positive(args.get(1), "size")?;
    let shift = match args.get(2) {
        Value::None => size,
        v => positive(v, "shift")?,
    };
    let stride = positive(args.get(3), "stride")?;
    let drop = vm.truthy(args.get(4))?;
    super::stream::check_buffer(
        ds,
        (size - 1).saturating_mul(stride).saturating_add(1),
        "window",
    )?;
    let spec = d.spec.map_leaves(&mut |dtype, dims| {
        Ok(Spec::Dataset(Box::new(Spec::Tensor {
            dtype,
            dims: dims.to_vec(),
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

fn scan(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let state = super::structure::normalize(vm, args.get(1))?;
    let f = args.get(2).clone();
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

fn take_while(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let f = args.get(1).clone();
    super::methods::check_predicate(vm, &d.spec, &f, |t| {
        format!("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its return type is{t}.")
    })?;
    Ok(DatasetObj::value(
        Kind::TakeWhile(ds.clone(), f),
        d.spec.clone(),
    ))
}

fn unique(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
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
    if !dims.is_empty() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "`unique` of non-scalar elements is not supported in dist",
        ));
    }
    Ok(DatasetObj::value(Kind::Unique(ds.clone()), d.spec.clone()))
}

fn group_by_window(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let (key, reduce) = (args.get(1).clone(), args.get(2).clone());
    let size = match (args.get(3), args.get(4)) {
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
    let scalar_i64 =
        matches!(&key_spec, Spec::Tensor { dtype: DType::Int64, dims } if dims.is_empty());
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
    let input = Spec::Tuple(vec![
        Spec::Tensor {
            dtype: DType::Int64,
            dims: Vec::new(),
        },
        window,
    ]);
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

fn get_single_element(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let ds = args.get(0);
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

fn counter(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let start = int_arg(vm, args.get(0), "start")?;
    let step = int_arg(vm, args.get(1), "step")?;
    let dtype = match args.get(2) {
        Value::None => DType::Int64,
        v => crate::object::tensor::convert::dtype_arg(vm, v)?,
    };
    Ok(DatasetObj::value(
        Kind::Counter { start, step, dtype },
        Spec::Tensor {
            dtype,
            dims: Vec::new(),
        },
    ))
}

fn choose_from_datasets(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let datasets = vm.collect(args.get(0))?;
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
    let choice = args.get(1);
    let choice_spec = dataset_of(choice).map(|d| d.spec.clone());
    let scalar_i64 =
        matches!(&choice_spec, Some(Spec::Tensor { dtype: DType::Int64, dims }) if dims.is_empty());
    if !scalar_i64 {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors but are {}.",
                choice_spec.map_or_else(|| choice.type_name().to_string(), |s| s.text())
            ),
        ));
    }
    let stop = vm.truthy(args.get(2))?;
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
