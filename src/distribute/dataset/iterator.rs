//! Iterators over datasets: `iter(ds)` (`OwnedIterator`, with `next()`,
//! `get_next()`, `get_next_as_optional()` and `element_spec`), the Optional
//! that returns, and `ds.as_numpy_iterator()` (`NumpyIterator`, yielding
//! `.numpy()` of each component).

use std::cell::{Cell, RefCell};

use super::node::dataset_of;
use super::stream::{open, Stream};
use super::structure::Spec;
use crate::distribute::classes::native_class;
use crate::object::{native, ClassSpec, Member};
use crate::value::{Dict, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `iter(dataset)`.
pub struct OwnedIterator {
    stream: RefCell<Box<dyn Stream>>,
    spec: Spec,
    /// The dataset, opened again to restore a checkpointed position.
    source: Value,
    /// The elements returned so far: the position a checkpoint saves.
    pulled: Cell<u64>,
    /// The pass counters of the pipeline's shuffles when the stream was
    /// opened (which orders its passes draw), in `shuffle_epochs` order.
    epochs: RefCell<Vec<u64>>,
}

impl OwnedIterator {
    fn new(ds: &Value) -> PyResult<OwnedIterator> {
        let spec = dataset_of(ds).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
        let epochs = shuffle_epochs(ds).iter().map(|(c, _)| c.get()).collect();
        Ok(OwnedIterator {
            stream: RefCell::new(open(ds)?),
            spec,
            source: ds.clone(),
            pulled: Cell::new(0),
            epochs: RefCell::new(epochs),
        })
    }

    /// The next element, counted.
    fn pull(&self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let v = pull(&self.stream, vm)?;
        if v.is_some() {
            self.pulled.set(self.pulled.get() + 1);
        }
        Ok(v)
    }
}

/// A new `OwnedIterator` over the dataset value `ds`.
pub fn owned_iterator(_vm: &dyn Vm, ds: &Value) -> PyResult<Value> {
    Ok(Value::native(OwnedIterator::new(ds)?))
}

/// The pass counters and seeds of the shuffles in `ds`'s pipeline, depth
/// first.
fn shuffle_epochs(ds: &Value) -> Vec<(&Cell<u64>, (u64, u64))> {
    let mut out = Vec::new();
    let mut todo = vec![ds];
    while let Some(v) = todo.pop() {
        let Some(d) = dataset_of(v) else { continue };
        if let super::node::Kind::Shuffle { epoch, seeds, .. } = &d.kind {
            out.push((epoch, *seeds));
        }
        todo.extend(d.inputs().into_iter().rev());
    }
    out
}

/// What a checkpoint stores for an iterator (TensorFlow stores its kernels'
/// serialized state; dist the position, replayed on restore).
const STATE_TAG: &str = "dist OwnedIterator state v1";

/// The iterator's position as the string a checkpoint saves under
/// `ITERATOR_STATE`.
#[native("OwnedIterator._dist_state(self)")]
fn iterator_state(this: &OwnedIterator) -> Value {
    let seeds = shuffle_epochs(&this.source);
    let epochs: Vec<String> = this
        .epochs
        .borrow()
        .iter()
        .zip(&seeds)
        .map(|(e, (_, (s1, s2)))| format!("{e}:{s1}:{s2}"))
        .collect();
    Value::str(format!(
        "{STATE_TAG}: pulled={} epochs={}",
        this.pulled.get(),
        epochs.join(",")
    ))
}

/// Restores a position saved by `_dist_state`: the dataset is opened again
/// with its shuffles' pass counters as they were, and as many elements as
/// had been returned are read and dropped (a deterministic pipeline then
/// continues where the saved iterator stood, as TensorFlow's restored
/// kernels do).
#[native("OwnedIterator._dist_restore(self, state)")]
fn iterator_restore(vm: &dyn Vm, this: &OwnedIterator, state: &Value) -> PyResult<Value> {
    let bad = || {
        PyErr::new(
            ExcType::NotImplementedError,
            "dist: this checkpoint's iterator state was not written by dist (TensorFlow's \
             serialized iterator kernels cannot be read)",
        )
    };
    let Value::Str(text) = state else {
        return Err(bad());
    };
    let rest = text
        .strip_prefix(STATE_TAG)
        .and_then(|r| r.strip_prefix(": pulled="))
        .ok_or_else(bad)?;
    let (n, epochs) = rest.split_once(" epochs=").ok_or_else(bad)?;
    let n: u64 = n.parse().map_err(|_| bad())?;
    let parse = |e: &str| -> Option<(u64, u64, u64)> {
        let mut f = e.split(':').map(str::parse::<u64>);
        Some((f.next()?.ok()?, f.next()?.ok()?, f.next()?.ok()?))
    };
    let saved: Vec<(u64, u64, u64)> = if epochs.is_empty() {
        Vec::new()
    } else {
        epochs
            .split(',')
            .map(|e| parse(e).ok_or_else(bad))
            .collect::<PyResult<_>>()?
    };
    let cells = shuffle_epochs(&this.source);
    if cells.len() != saved.len() {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "the checkpointed iterator read a pipeline with {} shuffle(s); this \
                 iterator's has {}",
                saved.len(),
                cells.len()
            ),
        ));
    }
    if cells
        .iter()
        .zip(&saved)
        .any(|((_, seeds), &(_, s1, s2))| *seeds != (s1, s2))
    {
        // TensorFlow restores the saved shuffle's random state; dist replays
        // this pipeline's, which would draw another order
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "dist: restoring a checkpointed iterator into a pipeline whose shuffle has \
             other seeds (an unseeded `shuffle` in a new dataset) is not supported; give \
             `shuffle` a seed, or call `tf.random.set_seed` before building the dataset",
        ));
    }
    for ((c, _), &(e, _, _)) in cells.iter().zip(&saved) {
        c.set(e);
    }
    let epochs: Vec<u64> = saved.iter().map(|&(e, _, _)| e).collect();
    let mut stream = open(&this.source)?;
    for i in 0..n {
        if stream.next(vm)?.is_none() {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "the checkpointed iterator had returned {n} elements; this iterator's \
                     dataset ends after {i}"
                ),
            ));
        }
    }
    let Ok(mut s) = this.stream.try_borrow_mut() else {
        return Err(PyErr::new(
            ExcType::ValueError,
            "iterator already executing",
        ));
    };
    *s = stream;
    this.pulled.set(n);
    *this.epochs.borrow_mut() = epochs;
    Ok(Value::None)
}

/// Pulls from a stream that a user function might be iterating already.
pub fn pull(stream: &RefCell<Box<dyn Stream>>, vm: &dyn Vm) -> PyResult<Option<Value>> {
    if crate::runtime::graph::tracing()
        && crate::runtime::graph::untraceable_effect(|| {
            "iterating a tf.data dataset is not recorded in graphs yet".into()
        })
    {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "a converted loop pulls from a dataset iterator (dist runs it as Python)",
        ));
    }
    let Ok(mut s) = stream.try_borrow_mut() else {
        return Err(PyErr::new(
            ExcType::ValueError,
            "iterator already executing",
        ));
    };
    s.next(vm)
}

/// TensorFlow's error for `get_next()` past the end of an iterator whose
/// elements have `n` components, read on `device`.
#[cold]
pub fn end_of_sequence(spec: &Spec, device: crate::runtime::Device) -> PyErr {
    let n = spec.components();
    PyErr::new(
        ExcType::OutOfRangeError,
        format!(
            "{{{{function_node __wrapped__IteratorGetNext_output_types_{n}_device_{}}}}} End of sequence [Op:IteratorGetNext] name: ",
            device.full_name()
        ),
    )
}

/// What `get_next_as_optional()` returns: the next element, or none at the
/// end (`tf.experimental.Optional`).
pub struct OptionalObj {
    /// The element, if there was one.
    value: Option<Value>,
    /// The element's spec.
    spec: Spec,
    /// How many components an element has (named in the empty error).
    components: usize,
}

/// An Optional of `value` (None: empty) whose elements have type `spec`.
pub fn optional(value: Option<Value>, spec: Spec, components: usize) -> Value {
    Value::native(OptionalObj {
        value,
        spec,
        components,
    })
}

/// `tf.experimental.Optional`: the base class, with its constructors.
pub static OPTIONAL: ClassSpec = ClassSpec {
    name: "Optional",
    module: "tensorflow.python.data.ops.optional_ops",
    bases: &[],
    members: &[
        Member::StaticMethod(optional_from_value::DEF),
        Member::StaticMethod(optional_empty::DEF),
    ],
};

/// An Optional holding `value` (converted as `Dataset.from_tensors`
/// converts an element).
#[native("Optional.from_value(value)")]
fn optional_from_value(vm: &dyn Vm, value: &Value) -> PyResult<Value> {
    let elem = super::structure::normalize(vm, value)?;
    let spec = Spec::of(&elem);
    let components = spec.components();
    Ok(optional(Some(elem), spec, components))
}

/// An Optional without a value, of type `element_spec` (a structure of
/// `tf.TensorSpec`s).
#[native("Optional.empty(element_spec)")]
fn optional_empty(vm: &dyn Vm, element_spec: &Value) -> PyResult<Value> {
    let spec = super::sources::spec_of_signature(vm, element_spec, "element_spec")?;
    let components = spec.components();
    Ok(optional(None, spec, components))
}

/// The class of an Optional.
pub static OPTIONAL_IMPL: ClassSpec = ClassSpec {
    name: "_OptionalImpl",
    module: "tensorflow.python.data.ops.optional_ops",
    bases: &[&OPTIONAL],
    members: &[
        Member::Getter(optional_element_spec::DEF),
        Member::Method(has_value::DEF),
        Member::Method(get_value::DEF),
    ],
};

native_class!(OptionalObj: OPTIONAL_IMPL);

/// The spec of the value.
#[native("_OptionalImpl.element_spec(self)")]
fn optional_element_spec(this: &OptionalObj) -> Value {
    this.spec.to_value()
}

/// Whether the Optional holds a value (a bool tensor).
#[native("has_value(self, name=None)")]
fn has_value(this: &OptionalObj, _name: &Value) -> crate::runtime::Tensor {
    crate::runtime::Tensor::scalar(this.value.is_some())
}

/// The value; InvalidArgumentError when empty.
#[native("get_value(self, name=None)")]
fn get_value(this: &OptionalObj, _name: &Value) -> PyResult<Value> {
    let o = this;
    o.value.clone().ok_or_else(|| {
        PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "{{{{function_node __wrapped__OptionalGetValue_output_types_{}_device_{}}}}} The given optional does not have a value. [Op:OptionalGetValue] name: ",
                o.components,
                crate::runtime::Device::cpu(0).full_name()
            ),
        )
    })
}

impl NativeObject for OptionalObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&OPTIONAL_IMPL)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<tensorflow.python.data.ops.optional_ops._OptionalImpl object at {:#x}>",
            this.id()
        ))
    }
}

/// `iter(dataset)`'s class.
pub static OWNED_ITERATOR: ClassSpec = ClassSpec {
    name: "OwnedIterator",
    module: "tensorflow.python.data.ops.iterator_ops",
    bases: &[],
    members: &[
        Member::Getter(iterator_element_spec::DEF),
        Member::Method(get_next::DEF),
        Member::Method(get_next_as_optional::DEF),
        Member::Method(iterator_state::DEF),
        Member::Method(iterator_restore::DEF),
    ],
};

native_class!(OwnedIterator: OWNED_ITERATOR);

/// The spec of the elements.
#[native("OwnedIterator.element_spec(self)")]
fn iterator_element_spec(this: &OwnedIterator) -> Value {
    this.spec.to_value()
}

/// The next element; OutOfRangeError at the end.
#[native("get_next(self)")]
fn get_next(vm: &dyn Vm, this: &OwnedIterator) -> PyResult<Value> {
    this.pull(vm)?
        .ok_or_else(|| end_of_sequence(&this.spec, crate::runtime::Device::cpu(0)))
}

/// The next element as an Optional, empty at the end.
#[native("get_next_as_optional(self)")]
fn get_next_as_optional(vm: &dyn Vm, this: &OwnedIterator) -> PyResult<Value> {
    let value = this.pull(vm)?;
    Ok(optional(value, this.spec.clone(), this.spec.components()))
}

impl NativeObject for OwnedIterator {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&OWNED_ITERATOR)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(crate::distribute::classes::object_repr(
            &OWNED_ITERATOR,
            this,
        ))
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        self.pull(vm)
    }
}

/// `dataset.as_numpy_iterator()`.
pub struct NumpyIterator {
    inner: OwnedIterator,
    /// The id shown for the inner iterator in the repr.
    inner_id: usize,
}

/// A new `NumpyIterator` over `ds`.
pub fn numpy_iterator(ds: &Value) -> PyResult<Value> {
    let inner = OwnedIterator::new(ds)?;
    let inner_id = &inner as *const OwnedIterator as usize;
    Ok(Value::native(NumpyIterator { inner, inner_id }))
}

/// An element with every tensor replaced by its `.numpy()` value.
pub fn to_numpy(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    Ok(match v {
        Value::Tensor(_) => {
            let f = vm.getattr(v, "numpy")?;
            vm.call(&f, Vec::new(), Vec::new())?
        }
        Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|x| to_numpy(vm, x))
                .collect::<PyResult<_>>()?,
        ),
        Value::Dict(d) => {
            let mut out = Dict::new();
            for (k, x) in d.borrow().items() {
                out.insert(k, to_numpy(vm, &x)?)?;
            }
            Value::dict(out)
        }
        other => other.clone(),
    })
}

// Shown by `type()` with its name alone, as before it had methods of its own.
/// The class of `dataset.as_numpy_iterator()`.
pub static NUMPY_ITERATOR: ClassSpec = ClassSpec {
    name: "NumpyIterator",
    module: "builtins",
    bases: &[],
    members: &[Member::Method(numpy_next::DEF)],
};

native_class!(NumpyIterator: NUMPY_ITERATOR);

/// The next element as numpy values.
#[native("next(self)")]
fn numpy_next(vm: &dyn Vm, this: &NumpyIterator) -> PyResult<Value> {
    match this.inner.pull(vm)? {
        Some(v) => to_numpy(vm, &v),
        None => Err(PyErr::new(ExcType::StopIteration, "")),
    }
}

impl NativeObject for NumpyIterator {
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "NumpyIterator(iterator=<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at {:#x}>)",
            self.inner_id
        ))
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&NUMPY_ITERATOR)
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        match pull(&self.inner.stream, vm)? {
            Some(v) => to_numpy(vm, &v).map(Some),
            None => Ok(None),
        }
    }
}
