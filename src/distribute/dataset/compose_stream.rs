//! The streams of the nodes `compose.rs` builds: `concatenate`,
//! `flat_map`, `interleave` (TensorFlow's deterministic cycle order),
//! `window`, `scan`, `counter`, `take_while`, `unique` and
//! `choose_from_datasets`. All are lazy; the buffers that grow (`window`,
//! `unique`) stop at [`MAX_BUFFERED`] elements.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::rc::Rc;

use super::node::{DatasetObj, Kind};
use super::stream::{
    call_with_element, map_result, open, too_big, ListStream, Stream, MAX_BUFFERED,
};
use super::structure::{leaves, Spec};
use crate::object::tensor::convert::runtime_err;
use crate::runtime::{DType, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The stream of a node made in `compose.rs`; None for other kinds.
pub fn open_composed(ds: &Value, d: &DatasetObj) -> PyResult<Option<Box<dyn Stream>>> {
    Ok(Some(match &d.kind {
        Kind::PaddedBatch(input, p) => Box::new(super::padding::PaddedBatchStream::open(input, p)?),
        Kind::Concatenate(a, b) => Box::new(ConcatStream {
            cur: open(a)?,
            next: Some(b.clone()),
        }),
        Kind::FlatMap(input, f) => Box::new(FlatMapStream {
            input: open(input)?,
            f: f.clone(),
            cur: None,
        }),
        Kind::Interleave {
            input,
            f,
            cycle,
            block,
            ..
        } => Box::new(InterleaveStream {
            input: Some(open(input)?),
            f: f.clone(),
            slots: Vec::new(),
            cycle: *cycle,
            index: 0,
            in_block: 0,
            block: *block,
            open: 0,
        }),
        Kind::Window {
            input,
            size,
            shift,
            stride,
            drop,
        } => Box::new(WindowStream {
            input: open(input)?,
            buf: VecDeque::new(),
            ended: false,
            pending_skip: 0,
            size: *size,
            shift: *shift,
            stride: *stride,
            drop: *drop,
            spec: d.spec.clone(),
        }),
        Kind::Nested(input) => open(input)?,
        Kind::Variant(items) => Box::new(ListStream {
            items: items.clone(),
            pos: 0,
        }),
        Kind::Scan(input, state, f) => Box::new(ScanStream {
            input: open(input)?,
            state: state.clone(),
            f: f.clone(),
        }),
        Kind::Counter { start, step, dtype } => Box::new(CounterStream {
            next: *start,
            step: *step,
            dtype: *dtype,
        }),
        Kind::TakeWhile(input, f) => Box::new(TakeWhileStream {
            input: Some(open(input)?),
            f: f.clone(),
        }),
        Kind::Unique(input) => Box::new(UniqueStream {
            input: open(input)?,
            seen: HashSet::new(),
        }),
        Kind::GroupByWindow {
            input,
            key,
            reduce,
            size,
        } => Box::new(GroupStream {
            input: Some(open(input)?),
            key: key.clone(),
            reduce: reduce.clone(),
            size: size.clone(),
            spec: super::node::dataset_of(input)
                .map_or(Spec::Tuple(Vec::new()), |d| d.spec.clone()),
            groups: BTreeMap::new(),
            sizes: HashMap::new(),
            held: 0,
            cur: None,
        }),
        Kind::Choose(datasets, choice, stop) => Box::new(ChooseStream {
            inputs: datasets
                .iter()
                .map(|d| open(d).map(Some))
                .collect::<PyResult<_>>()?,
            choice: open(choice)?,
            stop: *stop,
        }),
        _ => {
            let _ = ds;
            return Ok(None);
        }
    }))
}

struct ConcatStream {
    cur: Box<dyn Stream>,
    next: Option<Value>,
}

impl Stream for ConcatStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        loop {
            if let Some(v) = self.cur.next(vm)? {
                return Ok(Some(v));
            }
            match self.next.take() {
                Some(ds) => self.cur = open(&ds)?,
                None => return Ok(None),
            }
        }
    }
}

/// The dataset `f` returns for `elem`, with TensorFlow's error otherwise.
fn dataset_for(vm: &dyn Vm, f: &Value, elem: &Value) -> PyResult<Box<dyn Stream>> {
    let r = call_with_element(vm, f, elem)?;
    if super::node::dataset_of(&r).is_none() {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "The `map_func` argument must return a `Dataset` object. Got {}.",
                vm.repr(&vm.type_of(&r))?
            ),
        ));
    }
    open(&r)
}

struct FlatMapStream {
    input: Box<dyn Stream>,
    f: Value,
    cur: Option<Box<dyn Stream>>,
}

impl Stream for FlatMapStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        loop {
            if let Some(cur) = self.cur.as_mut() {
                if let Some(v) = cur.next(vm)? {
                    return Ok(Some(v));
                }
                self.cur = None;
            }
            let Some(elem) = self.input.next(vm)? else {
                return Ok(None);
            };
            self.cur = Some(dataset_for(vm, &self.f, &elem)?);
        }
    }
}

/// TensorFlow's `InterleaveDataset` order: `cycle` slots, visited in turn;
/// a slot yields up to `block` elements, then the next slot has its turn;
/// an empty slot opens the dataset of the next input element (and keeps
/// its turn); an exhausted one is closed and loses its turn.
struct InterleaveStream {
    input: Option<Box<dyn Stream>>,
    f: Value,
    /// The slots used so far (they grow up to `cycle`, so a huge
    /// `cycle_length` costs only the datasets actually open).
    slots: Vec<Option<Box<dyn Stream>>>,
    cycle: usize,
    index: usize,
    in_block: usize,
    block: usize,
    open: usize,
}

impl InterleaveStream {
    fn advance(&mut self) {
        self.in_block = 0;
        self.index = (self.index + 1) % self.cycle;
    }
}

impl Stream for InterleaveStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        while self.input.is_some() || self.open > 0 {
            if self.index >= self.slots.len() {
                if self.input.is_none() {
                    // the slots never used are all empty: past them
                    self.index = 0;
                    self.in_block = 0;
                    continue;
                }
                if self.slots.len() >= MAX_BUFFERED {
                    return Err(too_big("interleave"));
                }
                self.slots.push(None);
            }
            if let Some(slot) = self.slots[self.index].as_mut() {
                if let Some(v) = slot.next(vm)? {
                    self.in_block += 1;
                    if self.in_block == self.block {
                        self.advance();
                    }
                    return Ok(Some(v));
                }
                self.slots[self.index] = None;
                self.open -= 1;
                self.advance();
            } else if let Some(input) = self.input.as_mut() {
                match input.next(vm)? {
                    Some(elem) => {
                        self.slots[self.index] = Some(dataset_for(vm, &self.f, &elem)?);
                        self.open += 1;
                    }
                    None => {
                        self.input = None;
                        self.advance();
                    }
                }
            } else {
                self.advance();
            }
        }
        Ok(None)
    }
}

/// `window`: each window is held (at most `(size - 1) * stride + 1` input
/// elements) and given out as one `_VariantDataset` per component.
struct WindowStream {
    input: Box<dyn Stream>,
    buf: VecDeque<Value>,
    ended: bool,
    pending_skip: u64,
    size: usize,
    shift: usize,
    stride: usize,
    drop: bool,
    spec: Spec,
}

impl Stream for WindowStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        // drop the elements before this window's start
        let k = (self.pending_skip as usize).min(self.buf.len());
        self.buf.drain(..k);
        self.pending_skip -= k as u64;
        if self.pending_skip > 0 && !self.ended {
            let skipped = self.input.skip(vm, self.pending_skip)?;
            if skipped < self.pending_skip {
                self.ended = true;
            }
        }
        self.pending_skip = 0;
        let span = (self.size - 1)
            .saturating_mul(self.stride)
            .saturating_add(1);
        while !self.ended && self.buf.len() < span {
            match self.input.next(vm)? {
                Some(v) => self.buf.push_back(v),
                None => self.ended = true,
            }
            if self.buf.len() >= MAX_BUFFERED {
                return Err(too_big("window"));
            }
        }
        if self.buf.is_empty() || (self.drop && self.buf.len() < span) {
            return Ok(None);
        }
        let picked: Vec<Vec<Tensor>> = self
            .buf
            .iter()
            .step_by(self.stride)
            .take(self.size)
            .map(leaves)
            .collect();
        self.pending_skip = self.shift as u64;
        let n = picked.first().map_or(0, Vec::len);
        let mut parts = Vec::with_capacity(n);
        let element_specs = self.spec.leaf_datasets();
        for c in 0..n {
            let items: Vec<Value> = picked
                .iter()
                .filter_map(|p| p.get(c).cloned().map(Value::Tensor))
                .collect();
            let spec = element_specs
                .get(c)
                .cloned()
                .unwrap_or(Spec::Tuple(Vec::new()));
            parts.push(DatasetObj::value(Kind::Variant(Rc::new(items)), spec));
        }
        Ok(Some(self.spec.pack(&mut parts.into_iter())))
    }
}

struct ScanStream {
    input: Box<dyn Stream>,
    state: Value,
    f: Value,
}

impl Stream for ScanStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let Some(elem) = self.input.next(vm)? else {
            return Ok(None);
        };
        let r = vm.call(&self.f, vec![self.state.clone(), elem], Vec::new())?;
        let pair = match &r {
            Value::Tuple(t) => t.to_vec(),
            Value::List(l) => l.borrow().clone(),
            _ => Vec::new(),
        };
        let [state, out] = pair.as_slice() else {
            return Err(PyErr::new(
                ExcType::TypeError,
                "Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the output value",
            ));
        };
        self.state = map_result(vm, state)?;
        map_result(vm, out).map(Some)
    }
}

struct CounterStream {
    next: i64,
    step: i64,
    dtype: DType,
}

impl Stream for CounterStream {
    fn next(&mut self, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let v = self.next;
        self.next = v.wrapping_add(self.step);
        let t = Tensor::scalar(v);
        if self.dtype == DType::Int64 {
            return Ok(Some(Value::Tensor(t)));
        }
        crate::runtime::ops::cast(&t, self.dtype)
            .map(|t| Some(Value::Tensor(t)))
            .map_err(runtime_err)
    }

    fn skip(&mut self, _vm: &dyn Vm, n: u64) -> PyResult<u64> {
        self.next = self.next.wrapping_add(self.step.wrapping_mul(n as i64));
        Ok(n)
    }
}

struct TakeWhileStream {
    input: Option<Box<dyn Stream>>,
    f: Value,
}

impl Stream for TakeWhileStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let Some(input) = self.input.as_mut() else {
            return Ok(None);
        };
        let Some(v) = input.next(vm)? else {
            self.input = None;
            return Ok(None);
        };
        let keep = call_with_element(vm, &self.f, &v)?;
        if vm.truthy(&keep)? {
            Ok(Some(v))
        } else {
            self.input = None;
            Ok(None)
        }
    }
}

struct UniqueStream {
    input: Box<dyn Stream>,
    seen: HashSet<Key>,
}

/// A scalar element as a hashable key.
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Int(i64),
    Complex(u64, u64),
    Bytes(Vec<u8>),
}

impl Stream for UniqueStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        while let Some(v) = self.input.next(vm)? {
            let key = match &v {
                Value::Tensor(t) => match t.item().map_err(runtime_err)? {
                    Scalar::Int(i) => Key::Int(i),
                    Scalar::Bytes(b) => Key::Bytes(b),
                    Scalar::Bool(b) => Key::Int(b as i64),
                    Scalar::Float(f) => Key::Int(f.to_bits() as i64),
                    Scalar::Complex(re, im) => Key::Complex(re.to_bits(), im.to_bits()),
                },
                _ => return Ok(Some(v)),
            };
            if self.seen.len() >= MAX_BUFFERED {
                return Err(too_big("unique"));
            }
            if self.seen.insert(key) {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }
}

struct ChooseStream {
    inputs: Vec<Option<Box<dyn Stream>>>,
    choice: Box<dyn Stream>,
    stop: bool,
}

impl Stream for ChooseStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        loop {
            if self.inputs.iter().all(Option::is_none) {
                return Ok(None);
            }
            let Some(c) = self.choice.next(vm)? else {
                return Ok(None);
            };
            let i = match &c {
                Value::Tensor(t) => match t.item().map_err(runtime_err)? {
                    Scalar::Int(i) => i,
                    _ => -1,
                },
                _ => -1,
            };
            let n = self.inputs.len();
            if i < 0 || i as usize >= n {
                return Err(PyErr::new(
                    ExcType::InvalidArgumentError,
                    format!(
                        "{{{{function_node __wrapped__IteratorGetNext_output_types_1_device_{}}}}} Selector index out of range: {i} >= {n} [Op:IteratorGetNext] name: ",
                        crate::runtime::Device::cpu(0).full_name()
                    ),
                ));
            }
            let Some(input) = self.inputs[i as usize].as_mut() else {
                continue;
            };
            match input.next(vm)? {
                Some(v) => return Ok(Some(v)),
                None if self.stop => return Ok(None),
                None => self.inputs[i as usize] = None,
            }
        }
    }
}

/// `group_by_window`: elements gather in one window per key; a full
/// window is handed to the reduce function and the dataset it returns is
/// drained; at the end of the input the partial windows go the same way,
/// smallest key first (TensorFlow keeps them in an ordered map).
struct GroupStream {
    input: Option<Box<dyn Stream>>,
    key: Value,
    reduce: Value,
    size: Result<i64, Value>,
    spec: Spec,
    groups: BTreeMap<i64, Vec<Value>>,
    sizes: HashMap<i64, i64>,
    held: usize,
    cur: Option<Box<dyn Stream>>,
}

impl GroupStream {
    fn flush(&mut self, vm: &dyn Vm, key: i64) -> PyResult<()> {
        let items = self.groups.remove(&key).unwrap_or_default();
        self.held -= items.len();
        let window = DatasetObj::value(Kind::Variant(Rc::new(items)), self.spec.clone());
        let k = Value::Tensor(Tensor::scalar(key));
        let r = vm.call(&self.reduce, vec![k, window], Vec::new())?;
        if super::node::dataset_of(&r).is_none() {
            return Err(PyErr::new(
                ExcType::TypeError,
                "Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object",
            ));
        }
        self.cur = Some(open(&r)?);
        Ok(())
    }

    fn window_size(&mut self, vm: &dyn Vm, key: i64) -> PyResult<i64> {
        if let Some(&n) = self.sizes.get(&key) {
            return Ok(n);
        }
        let n = match &self.size {
            Ok(n) => *n,
            Err(f) => {
                let r = vm.call(f, vec![Value::Tensor(Tensor::scalar(key))], Vec::new())?;
                super::methods::int_arg(vm, &r, "window_size_func result")?
            }
        };
        if n <= 0 {
            return Err(PyErr::new(
                ExcType::InvalidArgumentError,
                format!(
                    "{{{{function_node __wrapped__IteratorGetNext_output_types_{}_device_{}}}}} Window size must be greater than zero, but got {n}. [Op:IteratorGetNext] name: ",
                    self.spec.components(),
                    crate::runtime::Device::cpu(0).full_name()
                ),
            ));
        }
        self.sizes.insert(key, n);
        Ok(n)
    }
}

impl Stream for GroupStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        loop {
            if let Some(cur) = self.cur.as_mut() {
                if let Some(v) = cur.next(vm)? {
                    return Ok(Some(v));
                }
                self.cur = None;
            }
            if let Some(input) = self.input.as_mut() {
                match input.next(vm)? {
                    Some(elem) => {
                        let k = call_with_element(vm, &self.key, &elem)?;
                        let key = super::methods::int_arg(vm, &k, "key_func result")?;
                        let size = self.window_size(vm, key)?;
                        if self.held >= MAX_BUFFERED {
                            return Err(too_big("group_by_window"));
                        }
                        let group = self.groups.entry(key).or_default();
                        group.push(elem);
                        self.held += 1;
                        if group.len() as i64 >= size {
                            self.flush(vm, key)?;
                        }
                    }
                    None => self.input = None,
                }
                continue;
            }
            match self.groups.keys().next().copied() {
                Some(key) => self.flush(vm, key)?,
                None => return Ok(None),
            }
        }
    }
}
