//! Distributed datasets, as `strategy.experimental_distribute_dataset` and
//! `strategy.distribute_datasets_from_function` make them.
//!
//! - Split mode (`experimental_distribute_dataset`): each global batch of
//!   `b` rows is cut into chunks of `ceil(b / N)` rows, one per replica in
//!   order, so late replicas may get fewer or zero rows (7 rows by 3 on 2
//!   replicas: `[0 1]|[2]`, `[3 4]|[5]`, `[6]|[]`). TensorFlow's rule,
//!   checked with its rebatching for partial and static batches.
//! - Round-robin mode (`distribute_datasets_from_function`, one worker):
//!   replica `r` of step `k` gets element `k * N + r`. At the end, replicas
//!   without data get empty batches when the spec has an unknown dimension;
//!   otherwise the partial step is dropped, as TensorFlow does.
//! - Per-replica mode (`InputReplicationMode.PER_REPLICA`): each replica
//!   reads its own dataset; the steps end with the shortest.
//!
//! Every component goes to its replica's device. With one replica the
//! element itself is yielded (no `PerReplica`), as TensorFlow does.

use std::cell::RefCell;
use std::rc::Rc;

use super::iterator::{end_of_sequence, pull};
use super::node::dataset_of;
use super::stream::{open, Stream};
use super::structure::{leaves, rows, to_device, Spec};
use crate::distribute::classes::{
    native_class, object_repr, DISTRIBUTED_DATASET_INTERFACE, DISTRIBUTED_ITERATOR_INTERFACE,
    INPUT_LIB,
};
use crate::distribute::values::per_replica;
use crate::object::{native, ClassSpec, Member};
use crate::runtime::Device;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// How elements are dealt to replicas.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Each element is a global batch, split across replicas.
    Split,
    /// Each replica gets whole elements in turn.
    RoundRobin,
    /// Each replica reads its own dataset.
    PerReplica,
}

/// A distributed dataset.
pub struct DistributedDataset {
    /// The dataset (per-replica mode: replica 0's, whose spec is shown).
    dataset: Value,
    /// Per-replica mode: the datasets of replicas 1 and up.
    others: Vec<Value>,
    devices: Rc<Vec<Device>>,
    mode: Mode,
}

/// Builds a distributed dataset over `datasets` (one, or one per replica in
/// per-replica mode) for the replicas on `devices`.
pub fn new(datasets: &[Value], devices: &[Device], mode: Mode) -> PyResult<Value> {
    for dataset in datasets {
        if dataset_of(dataset).is_none() {
            // TensorFlow fails on the first dataset attribute it reads
            let attr = if mode == Mode::Split {
                "_variant_tensor"
            } else {
                "element_spec"
            };
            return Err(PyErr::new(
                ExcType::AttributeError,
                format!("'{}' object has no attribute '{attr}'", dataset.type_name()),
            )
            .help(format!(
                "the input must be a tf.data.Dataset, got {}; make one with \
                 tf.data.Dataset.from_tensor_slices(...)",
                dataset.type_name()
            )));
        }
        if let Some(d) = dataset_of(dataset) {
            d.spec.tensors_only("distributing")?;
        }
    }
    let Some((dataset, others)) = datasets.split_first() else {
        return Err(PyErr::new(ExcType::ValueError, "no dataset to distribute"));
    };
    if devices.is_empty() {
        return Err(PyErr::new(
            ExcType::ValueError,
            "a distributed dataset needs at least one replica device",
        ));
    }
    Ok(Value::native(DistributedDataset {
        dataset: dataset.clone(),
        others: others.to_vec(),
        devices: Rc::new(devices.to_vec()),
        mode,
    }))
}

impl DistributedDataset {
    /// The spec of one replica's part.
    fn replica_spec(&self, spec: &Spec) -> Spec {
        let n = self.devices.len();
        if self.mode != Mode::Split || n == 1 {
            return spec.clone();
        }
        spec.map_leaves(&mut |dtype, dims| {
            let mut d = dims.map(<[_]>::to_vec);
            if let Some(first) = d.as_mut().and_then(|d| d.first_mut()) {
                *first = match *first {
                    Some(b) if b % n == 0 => Some(b / n),
                    _ => None,
                };
            }
            Ok(Spec::Tensor { dtype, dims: d })
        })
        .unwrap_or_else(|_| spec.clone())
    }

    /// `element_spec`: per-replica specs at the leaves.
    fn element_spec(&self) -> Spec {
        let spec = dataset_of(&self.dataset).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
        let part = self.replica_spec(&spec);
        let n = self.devices.len();
        if n == 1 {
            return part;
        }
        part.map_leaves(&mut |dtype, dims| {
            Ok(Spec::PerReplica(vec![
                Spec::Tensor {
                    dtype,
                    dims: dims.map(<[_]>::to_vec)
                };
                n
            ]))
        })
        .unwrap_or(part)
    }
}

const DATASET_MEMBERS: &[Member] = &[
    Member::Getter(dataset_element_spec::DEF),
    Member::Getter(cardinality::DEF),
    Member::Method(reduce::DEF),
];

/// What `experimental_distribute_dataset` returns.
pub static DISTRIBUTED_DATASET: ClassSpec = ClassSpec {
    name: "DistributedDataset",
    module: INPUT_LIB,
    bases: &[&DISTRIBUTED_DATASET_INTERFACE],
    members: DATASET_MEMBERS,
};

/// What `distribute_datasets_from_function` returns.
pub static DISTRIBUTED_DATASETS_FROM_FUNCTION: ClassSpec = ClassSpec {
    name: "DistributedDatasetsFromFunction",
    module: INPUT_LIB,
    bases: &[&DISTRIBUTED_DATASET_INTERFACE],
    members: DATASET_MEMBERS,
};

native_class!(DistributedDataset: DISTRIBUTED_DATASET);

impl DistributedDataset {
    fn class_spec(&self) -> &'static ClassSpec {
        match self.mode {
            Mode::Split => &DISTRIBUTED_DATASET,
            Mode::RoundRobin | Mode::PerReplica => &DISTRIBUTED_DATASETS_FROM_FUNCTION,
        }
    }
}

impl NativeObject for DistributedDataset {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.class_spec())
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(self.class_spec(), this))
    }

    fn iter(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(Value::native(self.iterator()?)))
    }
}

/// `tf.data.UNKNOWN_CARDINALITY`.
const UNKNOWN_CARDINALITY: i64 = -2;

/// The spec of a step's inputs: per-replica specs at the leaves.
#[native("DistributedDataset.element_spec(self)")]
fn dataset_element_spec(this: &DistributedDataset) -> Value {
    this.element_spec().to_value()
}

/// The cardinality of the (first) input dataset, as a Python int.
#[native("DistributedDataset.cardinality(self)")]
fn cardinality(this: &DistributedDataset) -> i64 {
    dataset_of(&this.dataset).map_or(UNKNOWN_CARDINALITY, |d| d.cardinality())
}

// `state = reduce_func(state, step_inputs)` over every step.
/// Folds `reduce_func(state, inputs)` over the steps of the dataset.
#[native("DistributedDataset.reduce(self, initial_state, reduce_func)")]
fn reduce(
    vm: &dyn Vm,
    this: &DistributedDataset,
    initial_state: &Value,
    reduce_func: &Value,
) -> PyResult<Value> {
    let it = this.iterator()?;
    let mut state = initial_state.clone();
    while let Some(step) = it.step(vm)? {
        state = vm.call(reduce_func, vec![state, step], Vec::new())?;
    }
    Ok(state)
}

impl DistributedDataset {
    /// A new iterator over the steps.
    fn iterator(&self) -> PyResult<DistributedIterator> {
        let spec = dataset_of(&self.dataset).map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone());
        Ok(DistributedIterator {
            stream: RefCell::new(open(&self.dataset)?),
            others: self
                .others
                .iter()
                .map(|d| open(d).map(RefCell::new))
                .collect::<PyResult<Vec<_>>>()?,
            devices: self.devices.clone(),
            mode: self.mode,
            pad: !spec.fully_defined(),
            part_spec: self.replica_spec(&spec),
            element_spec: self.element_spec(),
            spec,
            done: std::cell::Cell::new(false),
        })
    }
}

/// An iterator over a distributed dataset.
pub struct DistributedIterator {
    stream: RefCell<Box<dyn Stream>>,
    /// Per-replica mode: the streams of replicas 1 and up.
    others: Vec<RefCell<Box<dyn Stream>>>,
    devices: Rc<Vec<Device>>,
    mode: Mode,
    /// Whether a partial last step is padded with empty batches.
    pad: bool,
    spec: Spec,
    part_spec: Spec,
    element_spec: Spec,
    done: std::cell::Cell<bool>,
}

impl DistributedIterator {
    /// The next step: one value per replica (or the bare value for one).
    fn step(&self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if self.done.get() {
            return Ok(None);
        }
        let n = self.devices.len();
        let parts: Vec<Value> = match self.mode {
            Mode::Split => {
                let Some(elem) = pull(&self.stream, vm)? else {
                    self.done.set(true);
                    return Ok(None);
                };
                if n == 1 {
                    vec![elem]
                } else {
                    self.split(&elem)?
                }
            }
            Mode::PerReplica => {
                let mut got = Vec::with_capacity(n);
                for stream in std::iter::once(&self.stream).chain(&self.others) {
                    match pull(stream, vm)? {
                        Some(v) => got.push(v),
                        None => {
                            self.done.set(true);
                            return Ok(None);
                        }
                    }
                }
                got
            }
            Mode::RoundRobin => {
                let mut got = Vec::with_capacity(n);
                while got.len() < n {
                    match pull(&self.stream, vm)? {
                        Some(v) => got.push(v),
                        None => break,
                    }
                }
                if got.len() < n {
                    self.done.set(true);
                    if got.is_empty() || !self.pad {
                        return Ok(None);
                    }
                    while got.len() < n {
                        got.push(self.spec.placeholder(0, Device::cpu(0))?);
                    }
                }
                got
            }
        };
        let placed = parts
            .iter()
            .zip(self.devices.iter())
            .map(|(p, d)| to_device(&self.part_spec, p, *d))
            .collect::<PyResult<Vec<_>>>()?;
        if n == 1 {
            return Ok(placed.into_iter().next());
        }
        // A PerReplica at each leaf of the element's structure.
        let per_leaf: Vec<Vec<Value>> = placed
            .iter()
            .map(|p| leaves(p).into_iter().map(Value::Tensor).collect())
            .collect();
        let count = per_leaf.first().map_or(0, Vec::len);
        let mut combined = Vec::with_capacity(count);
        for c in 0..count {
            combined.push(per_replica(per_leaf.iter().map(|l| l[c].clone()).collect()));
        }
        Ok(Some(self.part_spec.pack(&mut combined.into_iter())))
    }

    /// One global batch cut into per-replica chunks of `ceil(b / N)` rows.
    fn split(&self, elem: &Value) -> PyResult<Vec<Value>> {
        let n = self.devices.len();
        let comps = leaves(elem);
        let mut b = None;
        for t in &comps {
            let Some(&d0) = t.dims().first() else {
                return Err(PyErr::new(ExcType::IndexError, "list index out of range").help(
                    "experimental_distribute_dataset splits each element along its first (batch) dimension; batch the dataset first, e.g. dataset.batch(global_batch_size)",
                ));
            };
            b = Some(b.map_or(d0, |x: usize| x.min(d0)));
        }
        let b = b.unwrap_or(0);
        let chunk = b.div_ceil(n);
        let mut out = Vec::with_capacity(n);
        for r in 0..n {
            let lo = (r * chunk).min(b);
            let hi = ((r + 1) * chunk).min(b);
            let parts = comps
                .iter()
                .map(|t| rows(t, lo, hi).map(Value::Tensor))
                .collect::<PyResult<Vec<_>>>()?;
            out.push(self.spec.pack(&mut parts.into_iter()));
        }
        Ok(out)
    }
}

/// `tf.distribute.DistributedIterator`'s class here.
pub static DISTRIBUTED_ITERATOR: ClassSpec = ClassSpec {
    name: "DistributedIterator",
    module: INPUT_LIB,
    bases: &[&DISTRIBUTED_ITERATOR_INTERFACE],
    members: &[
        Member::Getter(iterator_element_spec::DEF),
        Member::Method(get_next::DEF),
        Member::Method(get_next_as_optional::DEF),
    ],
};

native_class!(DistributedIterator: DISTRIBUTED_ITERATOR);

/// The spec of a step's inputs.
#[native("DistributedIterator.element_spec(self)")]
fn iterator_element_spec(this: &DistributedIterator) -> Value {
    this.element_spec.to_value()
}

/// The next step's inputs; OutOfRangeError at the end.
#[native("DistributedIterator.get_next(self)")]
fn get_next(vm: &dyn Vm, this: &DistributedIterator) -> PyResult<Value> {
    this.step(vm)?
        .ok_or_else(|| end_of_sequence(&this.spec, this.devices[0]))
}

/// The next step's inputs as an Optional, empty at the end.
#[native("DistributedIterator.get_next_as_optional(self)")]
fn get_next_as_optional(vm: &dyn Vm, this: &DistributedIterator) -> PyResult<Value> {
    let it = this;
    let value = it.step(vm)?;
    // TensorFlow's Optional knows the step's own (static) shapes
    let spec = match &value {
        Some(v) => Spec::of(v),
        None => it.element_spec.clone(),
    };
    let components = it.element_spec.leaves().len();
    Ok(super::iterator::optional(value, spec, components))
}

impl NativeObject for DistributedIterator {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&DISTRIBUTED_ITERATOR)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(&DISTRIBUTED_ITERATOR, this))
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        self.step(vm)
    }
}
