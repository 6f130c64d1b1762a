//! Iterating a pipeline: [`open`] turns a dataset node into a pull stream
//! (one per iteration, so `for x in ds` twice starts over). Streams are lazy:
//! `range(10**9).repeat().take(3)` computes three elements. Buffers that
//! could grow without bound (`batch`, `shuffle`, `cache`) stop at
//! [`MAX_BUFFERED`] elements with a MemoryError instead.

use std::collections::VecDeque;
use std::rc::Rc;

use super::node::{dataset_of, DatasetObj, Kind};
use super::structure::{leaves, normalize, row, stack_elements, Spec};
use crate::runtime::random::{Philox, Words};
use crate::runtime::{DType, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The most elements one buffer may hold.
pub const MAX_BUFFERED: usize = 1 << 22;

/// A source of elements.
pub trait Stream {
    /// The next element, None at the end.
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>>;

    /// Skips up to `n` elements; returns how many were skipped. Sources
    /// with random access override it, so `shard`/`skip` over a huge
    /// `range` cost nothing.
    fn skip(&mut self, vm: &dyn Vm, n: u64) -> PyResult<u64> {
        for i in 0..n {
            if self.next(vm)?.is_none() {
                return Ok(i);
            }
        }
        Ok(n)
    }

    /// The next `size` elements stacked into one batch (fewer at the end,
    /// None past it or, with `drop`, when fewer remain), where the source
    /// can cut them at once. None: it cannot, and `batch` stacks the
    /// elements `next` gives.
    fn next_batch(&mut self, _size: usize, _drop: bool) -> Option<PyResult<Option<Value>>> {
        None
    }
}

/// The MemoryError of a buffer that would grow past [`MAX_BUFFERED`].
#[cold]
pub fn too_big(what: &str) -> PyErr {
    PyErr::new(
        ExcType::MemoryError,
        format!("tf.data: the {what} buffer would hold more than {MAX_BUFFERED} elements"),
    )
    .help("the input is probably infinite (repeat() without a count); add take(n) before it")
}

/// Refuses up front a buffer of `size` elements over an input that would fill it.
pub fn check_buffer(input: &Value, size: usize, what: &str) -> PyResult<()> {
    let card = dataset_of(input).map_or(0, DatasetObj::cardinality);
    if size > MAX_BUFFERED && (card == super::node::INFINITE || card > MAX_BUFFERED as i64) {
        return Err(too_big(what));
    }
    Ok(())
}

/// Calls a user function with an element, unpacked when it is a tuple.
pub fn call_with_element(vm: &dyn Vm, f: &Value, elem: &Value) -> PyResult<Value> {
    match elem {
        Value::Tuple(items) => vm.call(f, items.to_vec(), Vec::new()),
        other => vm.call(f, vec![other.clone()], Vec::new()),
    }
}

/// A `map` function's result as an element (a returned list is a tuple).
pub fn map_result(vm: &dyn Vm, v: &Value) -> PyResult<Value> {
    match v {
        Value::List(items) => normalize(vm, &Value::tuple(items.borrow().clone())),
        other => normalize(vm, other),
    }
}

/// Opens a stream over the dataset value `ds`.
pub fn open(ds: &Value) -> PyResult<Box<dyn Stream>> {
    let Some(d) = dataset_of(ds) else {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!("expected a tf.data.Dataset, got {}", ds.type_name()),
        ));
    };
    if let Some(s) = super::compose_stream::open_composed(ds, d)? {
        return Ok(s);
    }
    Ok(match &d.kind {
        Kind::Range {
            start,
            stop,
            step,
            dtype,
        } => Box::new(RangeStream {
            next: *start,
            stop: *stop,
            step: *step,
            dtype: *dtype,
        }),
        Kind::Tensors(v) => Box::new(ListStream {
            items: Rc::new(vec![v.clone()]),
            pos: 0,
        }),
        Kind::Slices(src) => Box::new(SliceStream {
            src: src.clone(),
            pos: 0,
        }),
        Kind::Zip(inputs, true) => open(&inputs[0])?,
        Kind::Zip(inputs, false) => Box::new(ZipStream {
            inputs: inputs.iter().map(open).collect::<PyResult<_>>()?,
            spec: d.spec.clone(),
        }),
        Kind::Batch(input, size, drop) => Box::new(BatchStream {
            input: {
                check_buffer(input, *size, "batch")?;
                open(input)?
            },
            size: *size,
            drop: *drop,
            spec: dataset_of(input).map_or(Spec::Tuple(Vec::new()), |i| i.spec.clone()),
        }),
        Kind::Repeat(input, count) => Box::new(RepeatStream {
            ds: input.clone(),
            cur: open(input)?,
            left: *count,
            produced: false,
        }),
        Kind::Shard(input, n, index) => Box::new(ShardStream {
            input: open(input)?,
            n: *n,
            index: *index,
            pos: 0,
        }),
        Kind::Take(input, count) => Box::new(TakeStream {
            input: open(input)?,
            left: *count,
        }),
        Kind::Skip(input, count) => Box::new(SkipStream {
            input: open(input)?,
            skip: Some(*count),
        }),
        Kind::Map(input, f) => Box::new(MapStream {
            input: open(input)?,
            f: f.clone(),
            filter: false,
        }),
        Kind::Filter(input, f) => Box::new(MapStream {
            input: open(input)?,
            f: f.clone(),
            filter: true,
        }),
        Kind::Prefetch(input) | Kind::Options(input, _) => open(input)?,
        Kind::Files(source) => super::files::open_files(source)?,
        Kind::Generator(func, args) => Box::new(GeneratorStream {
            func: func.clone(),
            args: args.clone(),
            spec: d.spec.clone(),
            it: None,
        }),
        Kind::Cache(input, cache) => match &*cache.borrow() {
            Some(items) => Box::new(ListStream {
                items: items.clone(),
                pos: 0,
            }),
            None => Box::new(CacheStream {
                input: open(input)?,
                ds: ds.clone(),
                seen: Vec::new(),
            }),
        },
        Kind::Shuffle {
            input,
            buffer,
            seeds,
            reshuffle,
            epoch,
        } => {
            check_buffer(input, *buffer, "shuffle")?;
            let e = epoch.get();
            epoch.set(e + 1);
            Box::new(ShuffleStream {
                input: Some(open(input)?),
                buffer: VecDeque::new(),
                size: *buffer,
                words: Words::new(pass_generator(*seeds, *reshuffle, e)),
            })
        }
        Kind::Unbatch(input) => Box::new(UnbatchStream {
            input: open(input)?,
            queue: VecDeque::new(),
            spec: d.spec.clone(),
        }),
        Kind::Rebatch(input, sizes, drop) => Box::new(RebatchStream {
            input: Box::new(UnbatchStream {
                input: open(input)?,
                queue: VecDeque::new(),
                spec: dataset_of(input)
                    .and_then(|i| i.spec.unbatched().ok())
                    .unwrap_or(Spec::Tuple(Vec::new())),
            }),
            sizes: sizes.clone(),
            turn: 0,
            drop: *drop,
            spec: d.spec.unbatched().unwrap_or(Spec::Tuple(Vec::new())),
        }),
        _ => {
            return Err(PyErr::new(
                ExcType::SystemError,
                format!("dist: no stream for {}", d.class_spec().name),
            ))
        }
    })
}

/// `Dataset.from_generator`: the items of `func(*args)`, each converted to
/// the declared spec (dtype conversion, shape check) as TensorFlow's
/// generator kernel does.
struct GeneratorStream {
    func: Value,
    args: Vec<Value>,
    spec: Spec,
    it: Option<Value>,
}

impl Stream for GeneratorStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let it = match &self.it {
            Some(it) => it.clone(),
            None => {
                let g = vm.call(&self.func, self.args.clone(), Vec::new())?;
                let it = vm.iter(&g)?;
                self.it = Some(it.clone());
                it
            }
        };
        match vm.next(&it)? {
            None => Ok(None),
            Some(item) => conform(vm, &self.spec, &self.spec, &item).map(Some),
        }
    }
}

/// TensorFlow's error for a generator item that does not fit the spec: an
/// InvalidArgumentError from the iterator op wrapping the TypeError.
fn generator_error(spec: &Spec, msg: &str) -> PyErr {
    crate::object::tensor::convert::runtime_err(crate::runtime::Error::new(
        crate::runtime::ErrorKind::InvalidArgument,
        format!(
            "{{{{function_node __wrapped__IteratorGetNext_output_types_{}_device_{}}}}} TypeError: {msg}",
            spec.leaves().len(),
            crate::runtime::Device::cpu(0).full_name()
        ),
    ))
}

/// A shape with unknown dims as a Python tuple: `(None, 3)`, `(2,)`.
pub(super) fn shape_text(dims: &[Option<usize>]) -> String {
    crate::object::tensor::shape::shape_text(Some(dims))
}

/// Converts one generator item to the structure, dtypes and shapes of
/// `spec` (a part of the dataset's spec `root`), with TensorFlow's errors.
fn conform(vm: &dyn Vm, root: &Spec, spec: &Spec, item: &Value) -> PyResult<Value> {
    let fail = |msg: String| generator_error(root, &msg);
    let mismatch = || {
        fail(format!(
            "`generator` yielded an element that did not match the expected structure. The expected structure was {}, but the yielded element was {}.",
            spec_types(vm, spec),
            vm.str(item).unwrap_or_default()
        ))
    };
    match spec {
        Spec::Tuple(specs) | Spec::PerReplica(specs) => {
            let items = match item {
                Value::Tuple(t) => t.to_vec(),
                Value::List(l) => l.borrow().clone(),
                _ => return Err(mismatch()),
            };
            if items.len() != specs.len() {
                return Err(mismatch());
            }
            let out = specs
                .iter()
                .zip(&items)
                .map(|(s, x)| conform(vm, root, s, x))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(Value::tuple(out))
        }
        Spec::Dict(specs) => {
            let Value::Dict(d) = item else {
                return Err(mismatch());
            };
            let mut out = crate::value::Dict::new();
            for (k, s) in specs {
                let x = d.borrow().get(k).ok().flatten().ok_or_else(mismatch)?;
                out.insert(k.clone(), conform(vm, root, s, &x)?)?;
            }
            Ok(Value::dict(out))
        }
        Spec::Tensor { dtype, dims } => {
            let t = crate::object::numpy::to_np_tensor(vm, item, Some(*dtype)).map_err(|_| {
                fail(format!(
                    "`generator` yielded an element that could not be converted to the expected type. The expected type was {}, but the yielded element was {}.",
                    dtype.name(),
                    vm.str(item).unwrap_or_default()
                ))
            })?;
            let got: Vec<Option<usize>> = t.dims().iter().map(|&g| Some(g)).collect();
            if !crate::object::tensor::shape::subtype(Some(&got), dims.as_deref()) {
                return Err(fail(format!(
                    "`generator` yielded an element of shape {} where an element of shape {} was expected.",
                    shape_text(&got),
                    crate::object::tensor::shape::shape_text(dims.as_deref())
                )));
            }
            Ok(Value::Tensor(t))
        }
        Spec::Dataset(_) => Err(PyErr::new(
            ExcType::NotImplementedError,
            "from_generator with a DatasetSpec in output_signature is not supported in dist",
        )),
    }
}

/// The dtypes of a spec as TensorFlow names its expected structure
/// (`(tf.int32, tf.float32)`).
fn spec_types(vm: &dyn Vm, spec: &Spec) -> String {
    match spec {
        Spec::Tensor { dtype, .. } => format!("tf.{}", dtype.name()),
        Spec::Tuple(items) | Spec::PerReplica(items) => {
            let parts: Vec<String> = items.iter().map(|s| spec_types(vm, s)).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Spec::Dict(items) => format!(
            "{{{}}}",
            items
                .iter()
                .map(|(k, s)| format!("{}: {}", vm.repr(k).unwrap_or_default(), spec_types(vm, s)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Spec::Dataset(_) => "DatasetSpec".to_string(),
    }
}

struct RangeStream {
    next: i64,
    stop: i64,
    step: i64,
    dtype: DType,
}

impl Stream for RangeStream {
    fn next(&mut self, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let more = if self.step > 0 {
            self.next < self.stop
        } else {
            self.next > self.stop
        };
        if !more {
            return Ok(None);
        }
        if matches!(self.dtype, DType::Bool | DType::String) {
            // RangeDataset's kernel fails on the first element, so the
            // error surfaces from the iterator's get_next (one component)
            return Err(PyErr::new(
                ExcType::InvalidArgumentError,
                format!(
                    "{{{{function_node __wrapped__IteratorGetNext_output_types_1_device_{}}}}} Unsupported data type: {} [Op:IteratorGetNext] name: ",
                    crate::runtime::Device::CPU0.full_name(),
                    self.dtype.name()
                ),
            ));
        }
        let v = self.next;
        match v.checked_add(self.step) {
            Some(n) => self.next = n,
            None => self.next = self.stop,
        }
        let t = Tensor::scalar(v);
        if self.dtype == DType::Int64 {
            return Ok(Some(Value::Tensor(t)));
        }
        crate::runtime::ops::cast(&t, self.dtype)
            .map(|t| Some(Value::Tensor(t)))
            .map_err(crate::object::tensor::convert::runtime_err)
    }

    fn skip(&mut self, _vm: &dyn Vm, n: u64) -> PyResult<u64> {
        let left = super::node::range_len(self.next, self.stop, self.step) as u64;
        let k = n.min(left);
        self.next = (self.next as i128 + k as i128 * self.step as i128)
            .clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        Ok(k)
    }
}

/// The elements of a list (`from_tensors`, `from_tensor_slices`, a window).
pub(super) struct ListStream {
    pub(super) items: Rc<Vec<Value>>,
    pub(super) pos: usize,
}

impl Stream for ListStream {
    fn next(&mut self, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let v = self.items.get(self.pos).cloned();
        self.pos += 1;
        Ok(v)
    }
}

/// The elements of `from_tensor_slices`: cut once (`Slices::elements`),
/// or a batch's rows at a time for a `batch` directly over it.
struct SliceStream {
    src: Rc<super::sources::Slices>,
    pos: usize,
}

impl Stream for SliceStream {
    fn next(&mut self, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        if self.pos >= self.src.len() {
            return Ok(None);
        }
        self.pos += 1;
        Ok(self.src.elements()?.get(self.pos - 1).cloned())
    }

    fn skip(&mut self, _vm: &dyn Vm, n: u64) -> PyResult<u64> {
        let left = (self.src.len() - self.pos.min(self.src.len())) as u64;
        let k = n.min(left);
        self.pos += k as usize;
        Ok(k)
    }

    fn next_batch(&mut self, size: usize, drop: bool) -> Option<PyResult<Option<Value>>> {
        let lo = self.pos.min(self.src.len());
        let hi = lo.saturating_add(size).min(self.src.len());
        self.pos = hi;
        if hi == lo || (drop && hi - lo < size) {
            return Some(Ok(None));
        }
        Some(self.src.batch(lo, hi).map(Some))
    }
}

struct ZipStream {
    inputs: Vec<Box<dyn Stream>>,
    spec: Spec,
}

impl Stream for ZipStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let mut parts = Vec::with_capacity(self.inputs.len());
        for s in self.inputs.iter_mut() {
            match s.next(vm)? {
                Some(v) => parts.push(v),
                None => return Ok(None),
            }
        }
        Ok(Some(match &self.spec {
            Spec::Dict(items) => {
                let mut d = crate::value::Dict::new();
                for ((k, _), v) in items.iter().zip(parts) {
                    d.insert(k.clone(), v)?;
                }
                Value::dict(d)
            }
            _ => Value::tuple(parts),
        }))
    }
}

struct BatchStream {
    input: Box<dyn Stream>,
    size: usize,
    drop: bool,
    spec: Spec,
}

impl Stream for BatchStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(batch) = self.input.next_batch(self.size, self.drop) {
            return batch;
        }
        let mut items = Vec::new();
        while items.len() < self.size {
            match self.input.next(vm)? {
                Some(v) => items.push(v),
                None => break,
            }
            if items.len() >= MAX_BUFFERED {
                return Err(too_big("batch"));
            }
        }
        if items.is_empty() || (self.drop && items.len() < self.size) {
            return Ok(None);
        }
        stack_elements(&self.spec, &items).map(Some)
    }
}

struct RepeatStream {
    ds: Value,
    cur: Box<dyn Stream>,
    left: Option<u64>,
    produced: bool,
}

impl Stream for RepeatStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        loop {
            if self.left == Some(0) {
                return Ok(None);
            }
            if let Some(v) = self.cur.next(vm)? {
                self.produced = true;
                return Ok(Some(v));
            }
            // An empty pass ends an infinite repeat, as TensorFlow does.
            if !self.produced {
                self.left = Some(0);
                return Ok(None);
            }
            if let Some(n) = self.left.as_mut() {
                *n -= 1;
                if *n == 0 {
                    return Ok(None);
                }
            }
            self.produced = false;
            self.cur = open(&self.ds)?;
        }
    }
}

struct ShardStream {
    input: Box<dyn Stream>,
    n: u64,
    index: u64,
    pos: u64,
}

impl Stream for ShardStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        // Skip to the next position of this shard, then take one.
        let offset = (self.index + self.n - self.pos % self.n) % self.n;
        let skipped = self.input.skip(vm, offset)?;
        self.pos += skipped;
        if skipped < offset {
            return Ok(None);
        }
        let v = self.input.next(vm)?;
        self.pos += 1;
        Ok(v)
    }
}

struct TakeStream {
    input: Box<dyn Stream>,
    left: Option<u64>,
}

impl Stream for TakeStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        match self.left.as_mut() {
            Some(0) => Ok(None),
            Some(n) => {
                *n -= 1;
                self.input.next(vm)
            }
            None => self.input.next(vm),
        }
    }
}

struct SkipStream {
    input: Box<dyn Stream>,
    /// Still to skip (`Some(None)`: everything); None once done.
    skip: Option<Option<u64>>,
}

impl Stream for SkipStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(count) = self.skip.take() {
            match count {
                None => {
                    while self.input.next(vm)?.is_some() {}
                    return Ok(None);
                }
                Some(n) => {
                    if self.input.skip(vm, n)? < n {
                        return Ok(None);
                    }
                }
            }
        }
        self.input.next(vm)
    }
}

struct MapStream {
    input: Box<dyn Stream>,
    f: Value,
    filter: bool,
}

impl Stream for MapStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        while let Some(v) = self.input.next(vm)? {
            let r = call_with_element(vm, &self.f, &v)?;
            if !self.filter {
                return map_result(vm, &r).map(Some);
            }
            if vm.truthy(&r)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }
}

struct CacheStream {
    input: Box<dyn Stream>,
    ds: Value,
    seen: Vec<Value>,
}

impl Stream for CacheStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        match self.input.next(vm)? {
            Some(v) => {
                if self.seen.len() >= MAX_BUFFERED {
                    return Err(too_big("cache"));
                }
                self.seen.push(v.clone());
                Ok(Some(v))
            }
            None => {
                if let Some(DatasetObj {
                    kind: Kind::Cache(_, cell),
                    ..
                }) = dataset_of(&self.ds)
                {
                    let mut c = cell.borrow_mut();
                    if c.is_none() {
                        *c = Some(Rc::new(std::mem::take(&mut self.seen)));
                    }
                }
                Ok(None)
            }
        }
    }
}

/// The generator of a shuffle's pass number `pass`. TensorFlow's seed
/// generator hands each new iterator a seed pair: the dataset's own
/// (`reshuffle_each_iteration=False`), or the next two words of a Philox
/// stream keyed by them, so that every pass has its own order.
fn pass_generator(seeds: (u64, u64), reshuffle: bool, pass: u64) -> Philox {
    if !reshuffle {
        return Philox::from_seeds(seeds.0, seeds.1);
    }
    let mut gen = Philox::from_seeds(seeds.0, seeds.1);
    // words 2·pass and 2·pass + 1 of the stream (four words per block)
    gen.skip(pass / 2);
    let block = gen.next_block();
    let at = (2 * (pass % 2)) as usize;
    Philox::from_seeds(block[at] as u64, block[at + 1] as u64)
}

/// TensorFlow's shuffle buffer: it fills up to its size, then each
/// element out is a random slot, whose place the oldest element takes.
struct ShuffleStream {
    input: Option<Box<dyn Stream>>,
    buffer: VecDeque<Value>,
    size: usize,
    words: Words,
}

impl Stream for ShuffleStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        while self.buffer.len() < self.size {
            let Some(input) = self.input.as_mut() else {
                break;
            };
            match input.next(vm)? {
                Some(v) => self.buffer.push_back(v),
                None => {
                    self.input = None;
                    break;
                }
            }
            if self.buffer.len() >= MAX_BUFFERED {
                return Err(too_big("shuffle"));
            }
        }
        if self.buffer.is_empty() {
            return Ok(None);
        }
        let i = (self.words.next_u32() as u64 % self.buffer.len() as u64) as usize;
        self.buffer.swap(0, i);
        Ok(self.buffer.pop_front())
    }
}

struct UnbatchStream {
    input: Box<dyn Stream>,
    queue: VecDeque<Value>,
    spec: Spec,
}

impl Stream for UnbatchStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        loop {
            if let Some(v) = self.queue.pop_front() {
                return Ok(Some(v));
            }
            let Some(batch) = self.input.next(vm)? else {
                return Ok(None);
            };
            let comps = leaves(&batch);
            let n = comps
                .first()
                .and_then(|t| t.dims().first().copied())
                .unwrap_or(0);
            for (c, t) in comps.iter().enumerate() {
                let msg = match t.dims().first() {
                    None => "Input element must have a non-scalar value in each component.".to_string(),
                    Some(&m) if m != n => format!("Input element must have the same batch size in each component. Component 0 had size {n} but component {c} had size, {m}."),
                    Some(_) => continue,
                };
                return Err(super::structure::kernel_error(
                    &format!("IteratorGetNext_output_types_{}", comps.len()),
                    "IteratorGetNext",
                    &msg,
                ));
            }
            for i in 0..n {
                let parts = comps
                    .iter()
                    .map(|t| row(t, i).map(Value::Tensor))
                    .collect::<PyResult<Vec<_>>>()?;
                self.queue.push_back(self.spec.pack(&mut parts.into_iter()));
            }
        }
    }
}

struct RebatchStream {
    input: Box<dyn Stream>,
    sizes: Vec<usize>,
    turn: usize,
    drop: bool,
    spec: Spec,
}

impl Stream for RebatchStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let want = self.sizes[self.turn % self.sizes.len()];
        self.turn += 1;
        let mut items = Vec::new();
        while items.len() < want {
            match self.input.next(vm)? {
                Some(v) => items.push(v),
                None => break,
            }
        }
        if items.is_empty() || (self.drop && items.len() < want) {
            return Ok(None);
        }
        stack_elements(&self.spec, &items).map(Some)
    }
}
