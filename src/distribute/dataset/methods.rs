//! The natives of `tf.data.Dataset`: static constructors (`range`,
//! `from_tensors`, `from_tensor_slices`, `zip`) and the transformation
//! methods, registered on the `DatasetV2` class. Each builds a node with
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
use std::rc::Rc;

use super::iterator::{numpy_iterator, owned_iterator};
use super::node::{dataset_of, DatasetObj, Kind};
use super::stream::{call_with_element, map_result, open};
use super::structure::{kernel_error, leaves, normalize, row, Spec};
use crate::runtime::{DType, Device, Scalar, Tensor};
use crate::value::{Args, Class, ExcType, PyErr, PyResult, Value, Vm};

use crate::distribute::classes::method as add;

/// Registers the constructors and methods on `DatasetV2`.
pub fn register(c: &Class) {
    add(
        c,
        "DatasetV2.range(*args, output_type=None, name=None)",
        range,
        "Integers in [start, stop) by step, as int64 (or `output_type`).",
    );
    add(
        c,
        "DatasetV2.from_tensors(element, name=None)",
        from_tensors,
        "A dataset of one element.",
    );
    add(
        c,
        "DatasetV2.from_tensor_slices(tensors, name=None)",
        from_tensor_slices,
        "The slices of tensors along the first dimension.",
    );
    add(
        c,
        "DatasetV2.from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None, name=None)",
        from_generator,
        "A dataset of the items a Python generator function yields, converted to output_signature.",
    );
    add(
        c,
        "DatasetV2.zip(*args, datasets=None, name=None)",
        zip,
        "Elements of several datasets side by side.",
    );
    add(c, "DatasetV2.batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None)", batch, "Stacks consecutive elements.");
    add(
        c,
        "DatasetV2.repeat(self, count=None, name=None)",
        repeat,
        "Repeats the dataset count times (forever when None).",
    );
    add(
        c,
        "DatasetV2.shard(self, num_shards, index, name=None)",
        shard,
        "Every num_shards-th element from index.",
    );
    add(
        c,
        "DatasetV2.take(self, count, name=None)",
        take,
        "The first count elements.",
    );
    add(
        c,
        "DatasetV2.skip(self, count, name=None)",
        skip,
        "All but the first count elements.",
    );
    add(c, "DatasetV2.map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None, use_unbounded_threadpool=False, name=None)", map, "Applies map_func to each element.");
    add(
        c,
        "DatasetV2.filter(self, predicate, name=None)",
        filter,
        "The elements for which predicate is true.",
    );
    add(
        c,
        "DatasetV2.enumerate(self, start=0, name=None)",
        enumerate,
        "(index, element) pairs.",
    );
    add(
        c,
        "DatasetV2.prefetch(self, buffer_size, name=None)",
        prefetch,
        "Prepares elements ahead (a pass-through here).",
    );
    add(
        c,
        "DatasetV2.cache(self, filename='', name=None)",
        cache,
        "Remembers the elements of the first full pass.",
    );
    add(
        c,
        "DatasetV2.shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None)",
        shuffle,
        "Shuffles with a buffer, in TensorFlow's order for a given seed.",
    );
    add(
        c,
        "DatasetV2.unbatch(self, name=None)",
        unbatch,
        "Splits elements along their first dimension.",
    );
    add(
        c,
        "DatasetV2.rebatch(self, batch_size, drop_remainder=False, name=None)",
        rebatch,
        "Batches the unbatched elements again.",
    );
    add(
        c,
        "DatasetV2.reduce(self, initial_state, reduce_func, name=None)",
        reduce,
        "Folds the elements into one state.",
    );
    add(
        c,
        "DatasetV2.as_numpy_iterator(self)",
        as_numpy_iterator,
        "An iterator of numpy values.",
    );
    add(
        c,
        "DatasetV2.cardinality(self)",
        cardinality,
        "The number of elements as an int64 tensor (-1 infinite, -2 unknown).",
    );
    add(
        c,
        "DatasetV2.apply(self, transformation_func)",
        apply,
        "transformation_func(self).",
    );
    add(
        c,
        "DatasetV2.with_options(self, options, name=None)",
        with_options,
        "The dataset with options (accepted).",
    );
    add(
        c,
        "DatasetV2.options(self)",
        options,
        "The dataset's options.",
    );
    add(
        c,
        "DatasetV2.__iter__(self)",
        dunder_iter,
        "An iterator over the dataset.",
    );
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

fn scalar_spec(dtype: DType) -> Spec {
    Spec::Tensor {
        dtype,
        dims: Vec::new(),
    }
}

fn range(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let a = args.varargs(0);
    let ints = a
        .iter()
        .map(|v| int_arg(vm, v, "range argument"))
        .collect::<PyResult<Vec<_>>>()?;
    let (start, stop, step) = match ints.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        _ => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("Invalid arguments to range: {}", a.len()),
            ))
        }
    };
    if step == 0 {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            "step must be a non-zero integer. [Op:RangeDataset]",
        ));
    }
    let dtype = match args.opt(1) {
        None => DType::Int64,
        Some(v) => crate::object::tensor::convert::dtype_arg(vm, v)?,
    };
    Ok(DatasetObj::value(
        Kind::Range {
            start,
            stop,
            step,
            dtype,
        },
        scalar_spec(dtype),
    ))
}

fn from_tensors(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let elem = normalize(vm, args.get(0))?;
    let spec = Spec::of(&elem);
    Ok(DatasetObj::value(Kind::Tensors(elem), spec))
}

fn from_tensor_slices(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let whole = normalize(vm, args.get(0))?;
    let spec = Spec::of(&whole);
    let comps = leaves(&whole);
    let mut n: Option<usize> = None;
    for t in &comps {
        let Some(&d0) = t.dims().first() else {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Unbatching a tensor is only supported for rank >= 1",
            ));
        };
        match n {
            Some(m) if m != d0 => {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!("Dimensions {m} and {d0} are not compatible"),
                ))
            }
            _ => n = Some(d0),
        }
    }
    let elem_spec = spec.unbatched()?;
    let n = n.unwrap_or(0);
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        let parts = comps
            .iter()
            .map(|t| row(t, i).map(Value::Tensor))
            .collect::<PyResult<Vec<_>>>()?;
        items.push(elem_spec.pack(&mut parts.into_iter()));
    }
    Ok(DatasetObj::value(Kind::Slices(Rc::new(items)), elem_spec))
}

fn from_generator(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let generator = args.get(0);
    if !matches!(
        generator,
        Value::Function(_) | Value::NativeFunction(_) | Value::BoundMethod(_) | Value::Class(_)
    ) && vm.getattr(generator, "__call__").is_err()
    {
        return Err(PyErr::new(
            ExcType::TypeError,
            "`generator` must be a Python callable.",
        ));
    }
    let (types, shapes, signature) = (args.get(1), args.get(2), args.get(4));
    let spec = match (signature, types) {
        (Value::None, Value::None) => {
            return Err(PyErr::new(
                ExcType::TypeError,
                "To specify the output signature you need to provide either the `output_signature` argument or the `output_types` argument.",
            ))
        }
        (sig, Value::None) => spec_of_signature(vm, sig)?,
        (Value::None, types) => spec_of_types(vm, types, shapes)?,
        _ => {
            return Err(PyErr::new(
                ExcType::TypeError,
                "The `output_types` argument can not be used together with the `output_signature` argument.",
            ))
        }
    };
    let call_args = match args.get(3) {
        Value::None => Vec::new(),
        a => vm.collect(a)?,
    };
    Ok(DatasetObj::value(
        Kind::Generator(generator.clone(), call_args),
        spec,
    ))
}

/// `output_signature`: a structure of `tf.TensorSpec`s.
fn spec_of_signature(vm: &dyn Vm, v: &Value) -> PyResult<Spec> {
    if let Some(s) = v.downcast::<super::structure::SpecObj>() {
        return Ok(s.0.clone());
    }
    match v {
        Value::Tuple(_) | Value::List(_) => Ok(Spec::Tuple(
            vm.collect(v)?
                .iter()
                .map(|x| spec_of_signature(vm, x))
                .collect::<PyResult<_>>()?,
        )),
        Value::Dict(d) => {
            let mut out = Vec::new();
            for (k, x) in d.borrow().items() {
                out.push((k, spec_of_signature(vm, &x)?));
            }
            Ok(Spec::Dict(out))
        }
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "`output_signature` must contain objects that are subclass of `tf.TypeSpec` but found {} which is not.",
                vm.repr(&vm.type_of(other))?
            ),
        )),
    }
}

/// `output_types` with `output_shapes` (the structure follows the types; a
/// shape is a leaf).
fn spec_of_types(vm: &dyn Vm, types: &Value, shapes: &Value) -> PyResult<Spec> {
    let part = |i: usize, key: Option<&Value>| -> PyResult<Value> {
        match (shapes, key) {
            (Value::None, _) => Ok(Value::None),
            (Value::Dict(d), Some(k)) => Ok(d.borrow().get(k)?.unwrap_or(Value::None)),
            (Value::Tuple(_) | Value::List(_), None) => {
                Ok(vm.collect(shapes)?.get(i).cloned().unwrap_or(Value::None))
            }
            _ => Err(PyErr::new(
                ExcType::TypeError,
                "`output_shapes` must have the structure of `output_types`",
            )),
        }
    };
    match types {
        Value::Tuple(_) | Value::List(_) => Ok(Spec::Tuple(
            vm.collect(types)?
                .iter()
                .enumerate()
                .map(|(i, t)| spec_of_types(vm, t, &part(i, None)?))
                .collect::<PyResult<_>>()?,
        )),
        Value::Dict(d) => {
            let mut out = Vec::new();
            for (k, t) in d.borrow().items() {
                let s = part(0, Some(&k))?;
                out.push((k, spec_of_types(vm, &t, &s)?));
            }
            Ok(Spec::Dict(out))
        }
        dtype => {
            if shapes.is_none() {
                return Err(PyErr::new(
                    ExcType::NotImplementedError,
                    "from_generator with output_types and no output_shapes (unknown rank) is not supported in dist",
                )
                .help("pass output_signature=tf.TensorSpec(shape=..., dtype=...) (TensorFlow recommends it since 2.4)"));
            }
            Ok(Spec::Tensor {
                dtype: super::dtype_of(vm, dtype)?,
                dims: super::dims_of(vm, shapes)?,
            })
        }
    }
}

/// A zip node over a (possibly nested) structure of datasets; a bare
/// dataset at the top is zipped alone (its elements unchanged).
fn zip_of(vm: &dyn Vm, v: &Value, top: bool) -> PyResult<Value> {
    let spec_of = |d: &Value| dataset_of(d).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
    if dataset_of(v).is_some() {
        if top {
            return Ok(DatasetObj::value(
                Kind::Zip(vec![v.clone()], true),
                spec_of(v),
            ));
        }
        return Ok(v.clone());
    }
    match v {
        Value::Tuple(items) => {
            let inputs = items
                .iter()
                .map(|x| zip_of(vm, x, false))
                .collect::<PyResult<Vec<_>>>()?;
            let spec = Spec::Tuple(inputs.iter().map(spec_of).collect());
            Ok(DatasetObj::value(Kind::Zip(inputs, false), spec))
        }
        Value::Dict(d) => {
            let mut inputs = Vec::new();
            let mut specs = Vec::new();
            for (k, x) in d.borrow().items() {
                let ds = zip_of(vm, &x, false)?;
                specs.push((k, spec_of(&ds)));
                inputs.push(ds);
            }
            Ok(DatasetObj::value(Kind::Zip(inputs, false), Spec::Dict(specs)))
        }
        Value::List(_) => Err(PyErr::new(
            ExcType::TypeError,
            "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` instead.",
        )),
        other => Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` objects but encountered object of type {}.",
                vm.repr(&vm.type_of(other))?
            ),
        )),
    }
}

fn zip(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let a = args.varargs(0);
    let given = args.opt(1);
    match (a.len(), given) {
        (0, None) => Err(PyErr::new(
            ExcType::TypeError,
            "Must pass at least one dataset to `zip`.",
        )),
        (0, Some(d)) => zip_of(vm, d, true),
        (_, Some(_)) => Err(PyErr::new(
            ExcType::TypeError,
            "Both `*args` and `datasets` cannot be set.",
        )),
        (1, None) => zip_of(vm, &a[0], true),
        _ => zip_of(vm, &Value::tuple(a.to_vec()), true),
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

fn batch(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    d.spec.tensors_only("batch")?;
    let size = positive(vm, args.get(1), "Batch size", "BatchDatasetV2")?;
    let drop = vm.truthy(args.get(2))?;
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

fn repeat(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let count = count_arg(vm, args.get(1))?;
    Ok(DatasetObj::value(
        Kind::Repeat(ds.clone(), count),
        d.spec.clone(),
    ))
}

fn shard(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let n = int_arg(vm, args.get(1), "num_shards")?;
    let index = int_arg(vm, args.get(2), "index")?;
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
    Ok(DatasetObj::value(
        Kind::Shard(ds.clone(), n as u64, index as u64),
        d.spec.clone(),
    ))
}

fn take(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let count = count_arg(vm, args.get(1))?;
    Ok(DatasetObj::value(
        Kind::Take(ds.clone(), count),
        d.spec.clone(),
    ))
}

fn skip(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let count = count_arg(vm, args.get(1))?;
    Ok(DatasetObj::value(
        Kind::Skip(ds.clone(), count),
        d.spec.clone(),
    ))
}

/// Calls `f` on probe elements of `spec` and returns the spec of its result
/// (dims that change with the input's unknown dims become unknown).
pub fn probe(vm: &dyn Vm, spec: &Spec, f: &Value) -> PyResult<(Spec, Value)> {
    let dev = Device::cpu(0);
    let first = call_with_element(vm, f, &spec.placeholder(2, dev)?)?;
    let s1 = Spec::of(&map_result(vm, &first)?);
    // The second probe differs in unknown dims and in values, so that
    // shapes computed from either (`tf.fill([x], x)`) become unknown.
    let relaxed = match call_with_element(vm, f, &spec.placeholder_filled(3, dev, 1)?) {
        Ok(second) => map_result(vm, &second)
            .ok()
            .and_then(|e| s1.relax(&Spec::of(&e))),
        Err(_) => None,
    };
    if spec.fully_defined() && relaxed.is_none() {
        return Ok((s1, first));
    }
    // When the second probe disagrees in structure, every dim is unknown.
    let spec = relaxed.unwrap_or_else(|| {
        s1.map_leaves(&mut |dtype, dims| {
            Ok(Spec::Tensor {
                dtype,
                dims: vec![None; dims.len()],
            })
        })
        .unwrap_or(s1.clone())
    });
    Ok((spec, first))
}

fn map(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let f = args.get(1).clone();
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
        || matches!(&out, Spec::Tensor { dtype: DType::Bool, dims } if dims.is_empty());
    if !ok {
        return Err(PyErr::new(ExcType::ValueError, message(out.text())));
    }
    Ok(())
}

fn filter(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let f = args.get(1).clone();
    check_predicate(vm, &d.spec, &f, |t| {
        format!("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is {t}.")
    })?;
    Ok(DatasetObj::value(
        Kind::Filter(ds.clone(), f),
        d.spec.clone(),
    ))
}

fn enumerate(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let start = int_arg(vm, args.get(1), "start")?;
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

fn prefetch(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    int_arg(vm, args.get(1), "buffer_size")?;
    Ok(DatasetObj::value(
        Kind::Prefetch(ds.clone()),
        d.spec.clone(),
    ))
}

fn cache(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    // TODO: caching to a file (`filename`) is kept in memory too; the
    // elements and their order are the same.
    Ok(DatasetObj::value(
        Kind::Cache(ds.clone(), RefCell::new(None)),
        d.spec.clone(),
    ))
}

fn shuffle(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    let buffer = int_arg(vm, args.get(1), "buffer_size")?;
    if buffer <= 0 && buffer != -1 {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            "buffer_size must be greater than zero. [Op:ShuffleDatasetV3]",
        ));
    }
    let buffer = if buffer == -1 { 1024 } else { buffer as usize };
    let op_seed = match args.opt(2) {
        Some(v) => Some(int_arg(vm, v, "seed")?),
        None => None,
    };
    // the seeds of `random_seed.get_seed`, which may draw the next op seed
    let state = vm.state().get::<crate::runtime::random::SeedState>();
    let seeds = match state.op_seeds(op_seed) {
        // ShuffleDatasetV3 seeds itself at random when given none
        (0, 0) => (
            crate::runtime::random::seed::entropy(),
            crate::runtime::random::seed::entropy(),
        ),
        (a, b) => (a as u64, b as u64),
    };
    let reshuffle = match args.opt(3) {
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

fn unbatch(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    d.spec.tensors_only("unbatch")?;
    let spec = d.spec.unbatched()?;
    Ok(DatasetObj::value(Kind::Unbatch(ds.clone()), spec))
}

fn rebatch(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    d.spec.tensors_only("rebatch")?;
    let sizes: Vec<usize> = match args.get(1) {
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
    let drop = vm.truthy(args.get(2))?;
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

fn reduce(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, _) = this(args)?;
    let f = args.get(2);
    let mut state = normalize(vm, args.get(1))?;
    let mut stream = open(ds)?;
    while let Some(elem) = stream.next(vm)? {
        let r = vm.call(f, vec![state, elem], Vec::new())?;
        state = map_result(vm, &r)?;
    }
    Ok(state)
}

fn as_numpy_iterator(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    if d.spec.has_dataset() {
        return Err(PyErr::new(
            ExcType::TypeError,
            "`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that produce values of type <class 'tensorflow.python.data.ops.dataset_ops.DatasetV2'>",
        ));
    }
    numpy_iterator(ds)
}

fn cardinality(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (_, d) = this(args)?;
    Ok(Value::Tensor(Tensor::scalar(d.cardinality())))
}

fn apply(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let r = vm.call(args.get(1), vec![args.get(0).clone()], Vec::new())?;
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

fn with_options(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let (ds, d) = this(args)?;
    Ok(DatasetObj::value(Kind::Options(ds.clone()), d.spec.clone()))
}

fn options(_vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    Ok(super::options::options_value())
}

fn dunder_iter(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    owned_iterator(vm, args.get(0))
}
