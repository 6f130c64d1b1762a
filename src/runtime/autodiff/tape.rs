//! The tapes: which ops ran on tensors a tape follows, kept per thread and
//! per lane (each replica of `strategy.run` is a lane of the one interpreter
//! thread, so each replica records on the tapes it opened itself).
//!
//! Off by default: with no tape recording, [`record`] is one branch on a
//! thread-local counter, with no allocation. A tape follows a tensor when it
//! was watched (`tape.watch`, a trainable variable read) or produced by an op
//! the tape recorded; it records an op when one of the op's floating inputs
//! is followed, as TensorFlow's `ShouldRecord` does. Tensors are known by
//! their handle's address ([`Tensor::id`]): the tape holds every tensor it
//! names, so an address it knows cannot be reused while it lives.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::grad::GradOp;
use crate::runtime::error::Result;
use crate::runtime::tensor::Tensor;

/// One recorded op: what it was (with the attributes its gradient needs),
/// its inputs and outputs.
pub(crate) struct Entry {
    /// The op and its attributes.
    pub op: GradOp,
    /// The ids its inputs are known by (a variable read: the variable's key).
    pub input_ids: Vec<usize>,
    /// Its inputs (a variable read: the value read).
    pub inputs: Vec<Tensor>,
    /// Its outputs.
    pub outputs: Vec<Tensor>,
    /// Inputs no tape followed when it ran: their gradients are not wanted
    /// (TensorFlow's `skip_input_indices`).
    pub skip: Vec<bool>,
}

/// What a tape has recorded.
#[derive(Default)]
pub(crate) struct TapeData {
    /// Watched tensors, kept alive (their id → the tensor).
    pub watched: HashMap<usize, Tensor>,
    /// Watched variables' keys.
    pub watched_vars: HashSet<usize>,
    /// Watched variables in the order first watched (their key and the
    /// language layer's handle for `watched_variables`).
    pub var_list: Vec<(usize, Rc<dyn Any>)>,
    /// The entry that produced each followed tensor.
    pub producer: HashMap<usize, usize>,
    /// The recorded ops, in order (None once consumed).
    pub entries: Vec<Option<Entry>>,
    /// The first value taken off the tape while it recorded (for the hint
    /// on a None gradient).
    pub exit: Option<Exit>,
    /// A complex tensor was watched or computed from a followed one: dist
    /// has no gradients for complex types, so `gradient` refuses rather
    /// than leave that path out.
    pub complex: bool,
}

/// A followed tensor whose value left the tape (`.numpy()`): the ops run on
/// that value are not recorded.
#[derive(Clone, Debug)]
pub struct Exit {
    /// How it left (`.numpy()`, `np.array()`).
    pub how: &'static str,
    /// TensorFlow's name of the op that made the tensor (None: a watched tensor).
    pub op: Option<&'static str>,
    /// The tensor's shape, as `(2, 3)`.
    pub shape: String,
    /// The tensor's dtype name.
    pub dtype: &'static str,
}

/// A gradient tape (TensorFlow's C++ `GradientTape`): its recording is
/// switched on and off by the language layer's `tf.GradientTape`.
pub struct Tape {
    /// Whether `gradient` may be called more than once.
    pub persistent: bool,
    /// Whether trainable variables read while recording are watched.
    pub watch_accessed_variables: bool,
    /// The lane it records on (None: the main program).
    lane: Option<usize>,
    pub(crate) data: RefCell<TapeData>,
}

thread_local! {
    /// How many tapes are recording on this thread (any lane).
    static ACTIVE: Cell<u32> = const { Cell::new(0) };
    /// The lane running now.
    static LANE: Cell<Option<usize>> = const { Cell::new(None) };
    /// The recording tapes, innermost last.
    static STACK: RefCell<Vec<Rc<Tape>>> = const { RefCell::new(Vec::new()) };
    /// How many primitive ops' bodies are running (their kernels read their
    /// inputs on the host as a kernel does: not a read a graph must refuse).
    static KERNEL: Cell<u32> = const { Cell::new(0) };
    /// The trainable variables read inside each running
    /// [`watching_variables`], innermost last (their keys and handles).
    static WATCHERS: RefCell<Vec<Vec<WatchedVar>>> = const { RefCell::new(Vec::new()) };
}

/// Whether the body of a primitive op is running ([`primitive`]): its
/// reads of its inputs' elements are the kernel's, which a replay of the
/// op's node repeats on the new inputs.
#[inline]
pub fn in_kernel() -> bool {
    KERNEL.with(Cell::get) != 0
}

/// Runs a primitive op's body: recording off, host reads the kernel's.
fn kernel<T>(f: impl FnOnce() -> T) -> T {
    KERNEL.with(|k| k.set(k.get() + 1));
    let r = suspended(f);
    KERNEL.with(|k| k.set(k.get() - 1));
    r
}

/// The replica running now (None: the main program).
#[inline]
pub fn lane() -> Option<usize> {
    LANE.with(Cell::get)
}

/// Says which replica runs from now on (None: the main program).
#[inline]
pub fn set_lane(lane: Option<usize>) {
    LANE.with(|l| l.set(lane));
}

/// Something that needs the recording points (a graph trace, a forward
/// accumulator) starts (`on`) or ends: they fire while one is open, as
/// they do while a tape records.
pub(crate) fn hold_active(on: bool) {
    ACTIVE.with(|a| {
        a.set(if on {
            a.get() + 1
        } else {
            a.get().saturating_sub(1)
        })
    });
}

/// Whether any tape is recording on this thread.
#[inline]
pub fn active() -> bool {
    ACTIVE.with(Cell::get) != 0
}

impl Tape {
    /// A new empty tape of the running lane (not yet recording).
    pub fn new(persistent: bool, watch_accessed_variables: bool) -> Rc<Tape> {
        Rc::new(Tape {
            persistent,
            watch_accessed_variables,
            lane: LANE.with(Cell::get),
            data: RefCell::new(TapeData::default()),
        })
    }

    /// Starts recording on it (TensorFlow's `push_tape`).
    pub fn push(self: &Rc<Tape>) {
        STACK.with(|s| s.borrow_mut().push(self.clone()));
        ACTIVE.with(|a| a.set(a.get() + 1));
    }

    /// Stops recording on it (TensorFlow's `pop_tape`); false when it was not recording.
    pub fn pop(self: &Rc<Tape>) -> bool {
        let removed = STACK.with(|s| {
            let mut s = s.borrow_mut();
            match s.iter().rposition(|t| Rc::ptr_eq(t, self)) {
                Some(i) => {
                    s.remove(i);
                    true
                }
                None => false,
            }
        });
        if removed {
            ACTIVE.with(|a| a.set(a.get().saturating_sub(1)));
        }
        removed
    }

    /// Whether it is recording now.
    pub fn is_recording(self: &Rc<Tape>) -> bool {
        STACK.with(|s| s.borrow().iter().any(|t| Rc::ptr_eq(t, self)))
    }

    /// Watches a tensor: ops on it are recorded from now on.
    pub fn watch(&self, t: &Tensor) {
        let mut d = self.data.borrow_mut();
        d.complex |= t.dtype().is_complex();
        d.watched.insert(t.id(), t.clone());
    }

    /// Whether a complex tensor was watched or computed from a followed one.
    pub fn saw_complex(&self) -> bool {
        self.data.borrow().complex
    }

    /// Watches a variable (its key and the handle `watched_variables` returns).
    pub fn watch_variable(&self, key: usize, handle: Rc<dyn Any>) {
        let mut d = self.data.borrow_mut();
        if d.watched_vars.insert(key) {
            d.var_list.push((key, handle));
        }
    }

    /// The watched variables' handles, in the order first watched.
    pub fn watched_variables(&self) -> Vec<Rc<dyn Any>> {
        self.data
            .borrow()
            .var_list
            .iter()
            .map(|(_, h)| h.clone())
            .collect()
    }

    /// Whether the tape follows the tensor known by `id`.
    pub(crate) fn follows(&self, id: usize) -> bool {
        let d = self.data.borrow();
        d.watched.contains_key(&id) || d.producer.contains_key(&id) || d.watched_vars.contains(&id)
    }
}

impl Tape {
    /// Whether the tape follows the tensor or variable known by `id`
    /// (watched, or made by an op it recorded).
    pub fn follows_id(&self, id: usize) -> bool {
        self.follows(id)
    }

    /// Whether it watches the variable known by `key`.
    pub fn watches_variable(&self, key: usize) -> bool {
        self.data.borrow().watched_vars.contains(&key)
    }

    /// The first value taken off the tape while it recorded.
    pub fn exit(&self) -> Option<Exit> {
        self.data.borrow().exit.clone()
    }
}

/// Notes that the value of `t` leaves the tapes that follow it (`how`:
/// `.numpy()` …), for the hint a None gradient prints. One branch when no
/// tape records.
#[inline]
pub fn note_exit(t: &Tensor, how: &'static str) {
    if !active() {
        return;
    }
    for tape in lane_tapes() {
        if !tape.follows(t.id()) {
            continue;
        }
        let mut d = tape.data.borrow_mut();
        if d.exit.is_some() {
            continue;
        }
        let op = d
            .producer
            .get(&t.id())
            .and_then(|&e| d.entries.get(e))
            .and_then(Option::as_ref)
            .map(|e| e.op.name());
        d.exit = Some(Exit {
            how,
            op,
            shape: t.shape().tuple_text(),
            dtype: t.dtype().name(),
        });
    }
}

/// Whether a gradient tape records on the running lane.
pub fn recording() -> bool {
    !lane_tapes().is_empty()
}

/// The tapes recording on the running lane, innermost last.
fn lane_tapes() -> Vec<Rc<Tape>> {
    let lane = LANE.with(Cell::get);
    STACK.with(|s| {
        s.borrow()
            .iter()
            .filter(|t| t.lane == lane)
            .cloned()
            .collect()
    })
}

/// Records an op on every recording tape of this lane that follows one of
/// its floating inputs. `op` is only called when some tape records.
#[inline]
pub fn record(op: impl FnOnce() -> GradOp, inputs: &[&Tensor], outputs: &[&Tensor]) {
    if !active() {
        return;
    }
    record_slow(op, inputs, outputs);
}

#[cold]
fn record_slow(op: impl FnOnce() -> GradOp, inputs: &[&Tensor], outputs: &[&Tensor]) {
    // An op that hands back one of its inputs (a cast to the same dtype, a
    // copy to the same device) is the identity: the tensor is already followed.
    if outputs.iter().any(|o| inputs.iter().any(|i| i.ptr_eq(o))) {
        return;
    }
    let mut op = Some(op);
    let mut built: Option<GradOp> = None;
    if crate::runtime::graph::tracing() {
        if let Some(f) = op.take() {
            let g = f();
            crate::runtime::graph::record(&|| g.clone(), inputs, outputs);
            built = Some(g);
        }
    }
    let tapes = lane_tapes();
    for tape in tapes {
        let followed: Vec<bool> = inputs
            .iter()
            .map(|t| t.dtype().is_floating() && tape.follows(t.id()))
            .collect();
        if !followed.iter().any(|f| *f) {
            continue;
        }
        if outputs.iter().any(|o| o.dtype().is_complex()) {
            tape.data.borrow_mut().complex = true;
        }
        let g = match built.take() {
            Some(g) => g,
            None => match op.take() {
                Some(f) => f(),
                None => continue,
            },
        };
        let entry = Entry {
            op: g.clone(),
            input_ids: inputs.iter().map(|t| t.id()).collect(),
            inputs: inputs.iter().map(|t| (*t).clone()).collect(),
            outputs: outputs.iter().map(|t| (*t).clone()).collect(),
            skip: followed.iter().map(|f| !f).collect(),
        };
        built = Some(g);
        let mut d = tape.data.borrow_mut();
        let idx = d.entries.len();
        for o in outputs {
            d.producer.entry(o.id()).or_insert(idx);
        }
        d.entries.push(Some(entry));
    }
    if super::forward::wants(inputs) {
        if let Some(g) = built.or_else(|| op.take().map(|f| f())) {
            super::forward::on_op(&g, inputs, outputs);
        }
    }
}

/// A variable was read, giving `value`: tapes that watch it (or watch every
/// trainable variable read, when it is trainable) record the read.
/// `handle` is only called when one does.
#[inline]
pub fn read_variable(
    key: usize,
    trainable: bool,
    value: &Tensor,
    handle: impl Fn() -> Rc<dyn Any>,
) {
    if !active() && !watching() {
        return;
    }
    read_variable_slow(key, trainable, value, &handle);
}

/// A variable a [`watching_variables`] saw read: its tape key and handle.
pub type WatchedVar = (usize, Rc<dyn Any>);

fn watching() -> bool {
    WATCHERS.with(|w| !w.borrow().is_empty())
}

/// Runs `f`, giving the trainable variables it read, in the order of their
/// first reads (TensorFlow's `VariableWatcher`, around the forward pass of
/// a `tf.custom_gradient` function), as `(key, handle)`.
pub fn watching_variables<T>(f: impl FnOnce() -> T) -> (T, Vec<WatchedVar>) {
    WATCHERS.with(|w| w.borrow_mut().push(Vec::new()));
    let r = f();
    let seen = WATCHERS.with(|w| w.borrow_mut().pop()).unwrap_or_default();
    (r, seen)
}

#[cold]
fn read_variable_slow(
    key: usize,
    trainable: bool,
    value: &Tensor,
    handle: &dyn Fn() -> Rc<dyn Any>,
) {
    if trainable {
        WATCHERS.with(|w| {
            for seen in w.borrow_mut().iter_mut() {
                if !seen.iter().any(|(k, _)| *k == key) {
                    seen.push((key, handle()));
                }
            }
        });
    }
    if !active() {
        return;
    }
    super::forward::on_read(key, value);
    for tape in lane_tapes() {
        if trainable && tape.watch_accessed_variables {
            tape.watch_variable(key, handle());
        }
        if !tape.data.borrow().watched_vars.contains(&key) {
            continue;
        }
        if value.dtype().is_complex() {
            tape.data.borrow_mut().complex = true;
        }
        if !value.dtype().is_floating() {
            continue;
        }
        let mut d = tape.data.borrow_mut();
        if d.producer.contains_key(&value.id()) {
            continue;
        }
        let idx = d.entries.len();
        d.producer.insert(value.id(), idx);
        d.entries.push(Some(Entry {
            op: GradOp::ReadVariable,
            input_ids: vec![key],
            inputs: vec![value.clone()],
            outputs: vec![value.clone()],
            skip: vec![false],
        }));
    }
}

/// Runs `f` with every tape of this lane paused (`tape.stop_recording()` of
/// the whole lane); used while a gradient is computed by a tape that must
/// not record its own ops.
pub fn paused<T>(tape: &Rc<Tape>, f: impl FnOnce() -> T) -> T {
    let was = tape.pop();
    let r = f();
    if was {
        tape.push();
    }
    r
}

/// Runs the op `f` as one primitive: the ops it is built from are not
/// recorded, the op itself is (when a tape of this lane follows an input).
/// With no tape recording this is one branch and the call of `f`.
#[inline]
pub fn primitive(
    op: impl FnOnce() -> GradOp,
    inputs: &[&Tensor],
    f: impl FnOnce() -> Result<Tensor>,
) -> Result<Tensor> {
    if !active() {
        return f();
    }
    let out = kernel(f)?;
    record_slow(op, inputs, &[&out]);
    Ok(out)
}

/// [`primitive`] for an op with several outputs.
#[inline]
pub fn primitive_n(
    op: impl FnOnce() -> GradOp,
    inputs: &[&Tensor],
    f: impl FnOnce() -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    if !active() {
        return f();
    }
    let outs = kernel(f)?;
    let refs: Vec<&Tensor> = outs.iter().collect();
    record_slow(op, inputs, &refs);
    Ok(outs)
}

/// Runs `f` with recording off on this thread (`tape.stop_recording()`
/// for every tape, the body of a `tf.custom_gradient` function).
pub fn suspended<T>(f: impl FnOnce() -> T) -> T {
    let saved = ACTIVE.with(|a| a.replace(0));
    let r = f();
    ACTIVE.with(|a| a.set(saved));
    r
}

/// Turns recording off on this thread until [`unsuspend`] is given what
/// this returns ([`suspended`] across a `with` block).
pub fn suspend() -> u32 {
    ACTIVE.with(|a| a.replace(0))
}

/// Turns back on the recording [`suspend`] turned off.
pub fn unsuspend(saved: u32) {
    ACTIVE.with(|a| a.set(saved));
}

/// A new handle on `t`'s buffer that no tape knows (`tf.stop_gradient`,
/// the outputs of a `tf.custom_gradient` function).
pub fn detached(t: &Tensor) -> Tensor {
    detached_handle(t)
}

/// A new handle on `t`'s buffer, recorded as TensorFlow's `Identity` (a
/// node of its own in a traced graph, a step on an active tape).
pub fn identity_op(t: &Tensor) -> Tensor {
    let out = detached_handle(t);
    record(|| GradOp::Identity, &[t], &[&out]);
    out
}

fn detached_handle(t: &Tensor) -> Tensor {
    Tensor::from_parts(
        t.dtype(),
        t.shape().clone(),
        t.storage().clone(),
        t.device(),
    )
}
