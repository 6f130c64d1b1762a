//! `tf.GradientTape`, `tf.UnconnectedGradients` and `tf.stop_gradient`:
//! the Python face of the runtime's tapes (`runtime::autodiff`). The tape
//! records on the lane that entered it, so inside `strategy.run` each
//! replica differentiates its own ops; a `MirroredVariable` source is the
//! running replica's component, as TensorFlow's `handle` is.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::io::Write;
use std::rc::Rc;

use crate::distribute::nest::map_nest;
use crate::distribute::variables::{is_variable, tape_source};
use crate::modules::ModuleBuilder;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::autodiff::{sparse_gradient_of, Grad, Tape};
use crate::runtime::{self, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A `tf.GradientTape`.
pub struct GradientTape {
    persistent: bool,
    watch_accessed_variables: bool,
    /// The runtime tape; None once a non-persistent tape has given its gradient.
    tape: RefCell<Option<Rc<Tape>>>,
    recording: Cell<bool>,
    /// `watched_variables()` after the runtime tape is gone.
    watched: RefCell<Vec<Value>>,
}

/// `tf.GradientTape`.
pub static GRADIENT_TAPE: ClassSpec = ClassSpec {
    name: "GradientTape",
    module: "tensorflow.python.eager.backprop",
    bases: &[],
    members: &[
        Member::New(tape_new::DEF),
        Member::Method(watch::DEF),
        Member::Method(watched_variables::DEF),
        Member::Method(gradient::DEF),
        Member::Method(jacobian::DEF),
        Member::Method(batch_jacobian::DEF),
        Member::Method(stop_recording::DEF),
        Member::Method(reset::DEF),
    ],
};

crate::distribute::classes::native_class!(GradientTape: GRADIENT_TAPE);

impl NativeObject for GradientTape {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&GRADIENT_TAPE)
    }
    fn enter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        self.push_tape()?;
        Ok(Some(this.clone()))
    }
    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, _vm: &dyn Vm) -> PyResult<bool> {
        if self.recording.get() {
            self.pop_tape()?;
        }
        Ok(false)
    }
}

impl GradientTape {
    fn push_tape(&self) -> PyResult<()> {
        if self.recording.get() {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Tape is still recording, This can happen if you try to re-enter an already-active tape.",
            ));
        }
        let tape = self
            .tape
            .borrow_mut()
            .get_or_insert_with(|| Tape::new(self.persistent, self.watch_accessed_variables))
            .clone();
        tape.push();
        self.recording.set(true);
        Ok(())
    }

    fn pop_tape(&self) -> PyResult<()> {
        if !self.recording.get() {
            return Err(PyErr::new(ExcType::ValueError, "Tape is not recording."));
        }
        if let Some(t) = self.tape.borrow().as_ref() {
            t.pop();
        }
        self.recording.set(false);
        Ok(())
    }

    /// What `jacobian` and `batch_jacobian` start with: the live tape (a
    /// non-persistent one stops recording) and the target as a tensor.
    fn begin_jacobian(&self, vm: &dyn Vm, target: &Value) -> PyResult<(Rc<Tape>, Tensor)> {
        let tape = self.live("gradients (or jacobians)")?;
        if self.recording.get() && !self.persistent {
            self.pop_tape()?;
        }
        Ok((tape, to_tensor(vm, target, None)?))
    }

    fn live(&self, what: &str) -> PyResult<Rc<Tape>> {
        self.tape.borrow().clone().ok_or_else(|| {
            PyErr::new(
                ExcType::RuntimeError,
                format!(
                    "A non-persistent GradientTape can only be used to compute one set of {what}"
                ),
            )
        })
    }

    fn watched_now(&self) -> Vec<Value> {
        match self.tape.borrow().as_ref() {
            Some(t) => t
                .watched_variables()
                .iter()
                .filter_map(|h| h.downcast_ref::<Value>().cloned())
                .collect(),
            None => self.watched.borrow().clone(),
        }
    }

    /// After a non-persistent tape's one gradient: keep what it watched, drop it.
    fn finish(&self) {
        if !self.persistent {
            let w = self.watched_now();
            *self.watched.borrow_mut() = w;
            *self.tape.borrow_mut() = None;
        }
    }
}

/// Writes a `WARNING:tensorflow:` line on stderr, as TensorFlow's logger does.
fn warn(vm: &dyn Vm, msg: &str) {
    vm.flush_stdout();
    let _ = writeln!(std::io::stderr(), "WARNING:tensorflow:{msg}");
}

/// Records operations for automatic differentiation.
///
/// ```python
/// x = tf.constant(3.0)
/// with tf.GradientTape() as g:
///     g.watch(x)
///     y = x * x
/// print(g.gradient(y, x))  # tf.Tensor(6.0, shape=(), dtype=float32)
/// ```
#[native("GradientTape.__init__(persistent=False, watch_accessed_variables=True)")]
fn tape_new(vm: &dyn Vm, persistent: &Value, watch_accessed_variables: &Value) -> PyResult<Value> {
    Ok(Value::native(GradientTape {
        persistent: vm.truthy(persistent)?,
        watch_accessed_variables: vm.truthy(watch_accessed_variables)?,
        tape: RefCell::new(None),
        recording: Cell::new(false),
        watched: RefCell::new(Vec::new()),
    }))
}

/// The leaves of a nested structure, in `tf.nest` order.
fn leaves(v: &Value) -> PyResult<Vec<Value>> {
    let mut out = Vec::new();
    map_nest(v, &mut |x| {
        out.push(x.clone());
        Ok(Value::None)
    })?;
    Ok(out)
}

/// `structure` with its leaves replaced by `flat`, in order.
fn pack(structure: &Value, flat: Vec<Value>) -> PyResult<Value> {
    let mut it = flat.into_iter();
    map_nest(structure, &mut |_| Ok(it.next().unwrap_or(Value::None)))
}

fn not_tensor(vm: &dyn Vm, v: &Value) -> PyResult<PyErr> {
    Ok(PyErr::new(
        ExcType::ValueError,
        format!(
            "Passed in object {} of type '{}', not tf.Tensor or tf.Variable or ExtensionType.",
            vm.str(v)?,
            v.type_name()
        ),
    ))
}

/// Ensures that `tensor` is being traced by this tape.
#[native("GradientTape.watch(self, tensor)")]
fn watch(vm: &dyn Vm, this: &GradientTape, tensor: &Value) -> PyResult<Value> {
    let tape = this.live("gradients (or jacobians)")?;
    for t in leaves(tensor)? {
        let t = variable_like(vm, &t)?.unwrap_or(t);
        if is_variable(&t) {
            if let Some((key, value, handle)) = tape_source(vm, &t) {
                if !value.dtype().is_floating() {
                    warn(vm, &format!("The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.{}", value.dtype().name()));
                }
                tape.watch_variable(key, Rc::new(handle) as Rc<dyn Any>);
            }
            continue;
        }
        let Value::Tensor(x) = &t else {
            return Err(not_tensor(vm, &t)?);
        };
        if !x.dtype().is_floating() {
            warn(
                vm,
                &format!(
                    "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.{}",
                    x.dtype().name()
                ),
            );
        }
        tape.watch(x);
    }
    Ok(Value::None)
}

/// The variables this tape watched, in the order first watched.
#[native("GradientTape.watched_variables(self)")]
fn watched_variables(this: &GradientTape) -> Value {
    Value::tuple(this.watched_now())
}

/// The variable an object that acts as one holds: TensorFlow's tape takes
/// `x.handle` of anything with `_should_act_as_resource_variable` (Keras's
/// `Variable`); dist reads its `value`, the `tf.Variable` behind it.
pub(super) fn variable_like(vm: &dyn Vm, v: &Value) -> PyResult<Option<Value>> {
    let Value::Instance(inst) = v else {
        return Ok(None);
    };
    if inst
        .class
        .lookup("_should_act_as_resource_variable")
        .is_none()
    {
        return Ok(None);
    }
    let held = vm.getattr(v, "value")?;
    Ok(is_variable(&held).then_some(held))
}

/// A source of a gradient: the id the tape knows it by and its value.
fn source(vm: &dyn Vm, v: &Value) -> PyResult<Option<(usize, Tensor)>> {
    let held = variable_like(vm, v)?;
    let v = held.as_ref().unwrap_or(v);
    if is_variable(v) {
        return Ok(tape_source(vm, v).map(|(k, t, _)| (k, t)));
    }
    match v {
        Value::Tensor(t) => Ok(Some((t.id(), t.clone()))),
        other => Ok(Some({
            let t = to_tensor(vm, other, None)?;
            (t.id(), t)
        })),
    }
}

/// Whether `unconnected_gradients` asks for zeros.
fn zeros_wanted(vm: &dyn Vm, v: &Value) -> PyResult<bool> {
    let s = if let Some(u) = v.downcast::<Unconnected>() {
        u.value.to_string()
    } else if let Value::Str(s) = v {
        s.to_string()
    } else {
        vm.str(v)?
    };
    match s.as_str() {
        "none" => Ok(false),
        "zero" => Ok(true),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            format!("Unknown value for unconnected_gradients: {}", vm.repr(v)?),
        )),
    }
}

/// The gradients of `targets` (flat) from a tape, one per source (an
/// `IndexedSlices` where TensorFlow's is one, if `sparse`, else densified).
#[expect(
    clippy::too_many_arguments,
    reason = "the tape's gradient and the jacobians' rows share it"
)]
fn compute(
    vm: &dyn Vm,
    tape: &Rc<Tape>,
    targets: &[Tensor],
    sources: &[Option<(usize, Tensor)>],
    output_gradients: &[Option<Tensor>],
    zeros: bool,
    consume: bool,
    sparse: bool,
) -> PyResult<Vec<Value>> {
    if tape.saw_complex() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "gradients through complex tensors (complex64, complex128) are not implemented in \
             dist: this tape watched one or computed one from a watched value",
        ));
    }
    let ids: Vec<usize> = sources
        .iter()
        .map(|s| s.as_ref().map_or(0, |(k, _)| *k))
        .collect();
    let mut custom = |f: &Rc<dyn Any>, grads: &[Tensor]| -> runtime::Result<Vec<Option<Tensor>>> {
        super::custom_gradient::call_grad_fn(vm, f, grads)
    };
    let grads = sparse_gradient_of(tape, targets, &ids, output_gradients, consume, &mut custom)
        .map_err(super::custom_gradient::take_error)?;
    grads
        .into_iter()
        .zip(sources)
        .map(|(g, s)| match (g, s) {
            (Some(Grad::Dense(g)), _) => Ok(Value::Tensor(g)),
            (Some(Grad::Slices(g)), _) if sparse => Ok(super::indexed_slices::slices_value(g)),
            (Some(Grad::Slices(g)), _) => Ok(Value::Tensor(g.to_dense().map_err(runtime_err)?)),
            (None, Some((_, t))) if zeros => Ok(Value::Tensor(
                Tensor::zeros(t.dtype(), t.dims(), t.device()).map_err(runtime_err)?,
            )),
            _ => Ok(Value::None),
        })
        .collect()
}

/// Flat target tensors, each with the tape key of the variable it is (a
/// variable target is its handle, as in TensorFlow: no op produced it, so it
/// reaches only itself as a source).
fn flat_targets(vm: &dyn Vm, target: &Value) -> PyResult<Vec<(Tensor, Option<usize>)>> {
    if target.is_none() {
        return Err(PyErr::new(
            ExcType::TypeError,
            "Argument `target` should be a list or nested structure of Tensors, Variables or CompositeTensors to be differentiated, but received None.",
        ));
    }
    leaves(target)?
        .iter()
        .map(|t| {
            let held = variable_like(vm, t)?;
            let v = held.as_ref().unwrap_or(t);
            if is_variable(v) {
                if let Some((k, value, _)) = tape_source(vm, v) {
                    return Ok((runtime::autodiff::tape::detached(&value), Some(k)));
                }
            }
            Ok((to_tensor(vm, t, None)?, None))
        })
        .collect()
}

/// Adds to the gradient of each source that is a target variable that
/// target's seed (its output gradient, else ones).
fn seed_variable_targets(
    targets: &[(Tensor, Option<usize>)],
    srcs: &[Option<(usize, Tensor)>],
    outs: &[Option<Tensor>],
    grads: &mut [Value],
) -> PyResult<()> {
    for (i, (t, key)) in targets.iter().enumerate() {
        let Some(key) = key else { continue };
        for (g, s) in grads.iter_mut().zip(srcs) {
            if !matches!(s, Some((k, _)) if k == key) {
                continue;
            }
            let seed = match outs.get(i).cloned().flatten() {
                Some(o) => o,
                None => Tensor::ones(t.dtype(), t.dims(), t.device()).map_err(runtime_err)?,
            };
            *g = match g {
                Value::Tensor(prev) => {
                    Value::Tensor(runtime::ops::add(prev, &seed).map_err(runtime_err)?)
                }
                _ => Value::Tensor(seed),
            };
        }
    }
    Ok(())
}

/// Computes the gradient using operations recorded in context of this tape.
#[native("GradientTape.gradient(self, target, sources, output_gradients=None, unconnected_gradients=None)")]
fn gradient(
    vm: &dyn Vm,
    this: &GradientTape,
    target: &Value,
    sources: &Value,
    output_gradients: &Value,
    unconnected_gradients: Option<&Value>,
) -> PyResult<Value> {
    let tape = this.live("gradients (or jacobians)")?;
    if this.recording.get() {
        if !this.persistent {
            this.pop_tape()?;
        } else {
            warn_once_persistent(vm);
        }
    }
    let keyed = flat_targets(vm, target)?;
    let targets: Vec<Tensor> = keyed.iter().map(|(t, _)| t.clone()).collect();
    let flat_sources = leaves(sources)?;
    let srcs = flat_sources
        .iter()
        .map(|s| source(vm, s))
        .collect::<PyResult<Vec<_>>>()?;
    let outs: Vec<Option<Tensor>> = if output_gradients.is_none() {
        Vec::new()
    } else {
        leaves(output_gradients)?
            .iter()
            .map(|g| {
                if g.is_none() {
                    Ok(None)
                } else {
                    to_tensor(vm, g, None).map(Some)
                }
            })
            .collect::<PyResult<_>>()?
    };
    let zeros = match unconnected_gradients {
        Some(u) => zeros_wanted(vm, u)?,
        None => false,
    };
    let grads = compute(
        vm,
        &tape,
        &targets,
        &srcs,
        &outs,
        zeros,
        !this.persistent,
        true,
    )
    .and_then(|mut g| {
        seed_variable_targets(&keyed, &srcs, &outs, &mut g)?;
        Ok(g)
    });
    if let Ok(g) = &grads {
        // (a variable target reaches only itself: nothing to explain)
        if keyed.iter().all(|(_, k)| k.is_none()) {
            super::tape_hints::hint_none_gradients(vm, &tape, &targets, &flat_sources, &srcs, g);
        }
    }
    this.finish();
    pack(sources, grads?)
}

thread_local! {
    static WARNED_PERSISTENT: Cell<bool> = const { Cell::new(false) };
}

fn warn_once_persistent(vm: &dyn Vm) {
    if !WARNED_PERSISTENT.with(|w| w.replace(true)) {
        warn(vm, "Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient than calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to increased CPU and memory usage). Only call GradientTape.gradient inside the context if you actually want to trace the gradient in order to compute higher order derivatives.");
    }
}

/// A one-hot tensor of `dims` with a 1 at flat position `i`.
fn one_hot_at(like: &Tensor, i: usize) -> PyResult<Tensor> {
    let mut t = Tensor::zeros(like.dtype(), like.dims(), like.device()).map_err(runtime_err)?;
    let one = Tensor::ones(like.dtype(), &[], like.device()).map_err(runtime_err)?;
    let flat = runtime::ops::reshape(&t, &[-1], runtime::Semantics::Tf).map_err(runtime_err)?;
    let mut flat = flat;
    runtime::ops::index_assign(&mut flat, &[runtime::ops::IndexItem::Int(i as i64)], &one)
        .map_err(runtime_err)?;
    t = runtime::ops::reshape(
        &flat,
        &like.dims().iter().map(|&d| d as i64).collect::<Vec<_>>(),
        runtime::Semantics::Tf,
    )
    .map_err(runtime_err)?;
    Ok(t)
}

/// Computes the jacobian using operations recorded in context of this tape:
/// row by row, each the gradient of one element of `target`.
#[native("GradientTape.jacobian(self, target, sources, unconnected_gradients=None, parallel_iterations=None, experimental_use_pfor=True)")]
fn jacobian(
    vm: &dyn Vm,
    this: &GradientTape,
    target: &Value,
    sources: &Value,
    unconnected_gradients: Option<&Value>,
    _parallel_iterations: &Value,
    _experimental_use_pfor: &Value,
) -> PyResult<Value> {
    let (tape, y) = this.begin_jacobian(vm, target)?;
    let flat_sources = leaves(sources)?;
    let srcs = flat_sources
        .iter()
        .map(|s| source(vm, s))
        .collect::<PyResult<Vec<_>>>()?;
    let zeros = match unconnected_gradients {
        Some(u) => zeros_wanted(vm, u)?,
        None => false,
    };
    let mut rows: Vec<Vec<Value>> = vec![Vec::new(); srcs.len()];
    for i in 0..y.numel() {
        let seed = one_hot_at(&y, i)?;
        let g = compute(
            vm,
            &tape,
            std::slice::from_ref(&y),
            &srcs,
            &[Some(seed)],
            true,
            false,
            false,
        )?;
        for (r, v) in rows.iter_mut().zip(g) {
            r.push(v);
        }
    }
    let mut out = Vec::with_capacity(srcs.len());
    for (r, s) in rows.into_iter().zip(&srcs) {
        let Some((_, st)) = s else {
            out.push(Value::None);
            continue;
        };
        let mut dims: Vec<i64> = y.dims().iter().map(|&d| d as i64).collect();
        dims.extend(st.dims().iter().map(|&d| d as i64));
        let ts: Vec<Tensor> = r
            .iter()
            .map(|v| match v {
                Value::Tensor(t) => Ok(t.clone()),
                _ => Tensor::zeros(st.dtype(), st.dims(), st.device()).map_err(runtime_err),
            })
            .collect::<PyResult<_>>()?;
        let connected = r.iter().any(|v| matches!(v, Value::Tensor(_)));
        if !connected && !zeros {
            out.push(Value::None);
            continue;
        }
        let j = if ts.is_empty() {
            Tensor::zeros(
                st.dtype(),
                &dims.iter().map(|&d| d as usize).collect::<Vec<_>>(),
                st.device(),
            )
        } else {
            runtime::ops::stack(&ts, 0)
                .and_then(|s| runtime::ops::reshape(&s, &dims, runtime::Semantics::Tf))
        }
        .map_err(runtime_err)?;
        out.push(Value::Tensor(j));
    }
    this.finish();
    pack(sources, out)
}

/// The jacobian of each example of a batch: `target[i, ...]` by `source[i, ...]`.
#[native("GradientTape.batch_jacobian(self, target, source, unconnected_gradients=None, parallel_iterations=None, experimental_use_pfor=True)")]
fn batch_jacobian(
    vm: &dyn Vm,
    this: &GradientTape,
    target: &Value,
    source: &Value,
    unconnected_gradients: Option<&Value>,
    _parallel_iterations: &Value,
    _experimental_use_pfor: &Value,
) -> PyResult<Value> {
    let (tape, y) = this.begin_jacobian(vm, target)?;
    let src = self::source(vm, source)?;
    let Some((_, x)) = src.clone() else {
        return Ok(Value::None);
    };
    if y.rank() == 0 || x.rank() == 0 || y.dims()[0] != x.dims()[0] {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Need first dimension of target shape ({}) and source shape ({}) to match.",
                y.shape().tuple_text(),
                x.shape().tuple_text()
            ),
        ));
    }
    let zeros = match unconnected_gradients {
        Some(u) => zeros_wanted(vm, u)?,
        None => false,
    };
    let b = y.dims()[0];
    let inner: usize = y.dims()[1..].iter().product();
    let mut cols = Vec::with_capacity(inner);
    let mut connected = false;
    for j in 0..inner {
        // a one at inner position j of every example
        let mut seed_rows = Vec::with_capacity(b);
        let row_like = Tensor::zeros(y.dtype(), &y.dims()[1..], y.device()).map_err(runtime_err)?;
        let row = one_hot_at(&row_like, j)?;
        for _ in 0..b {
            seed_rows.push(row.clone());
        }
        let seed = runtime::ops::stack(&seed_rows, 0).map_err(runtime_err)?;
        let g = compute(
            vm,
            &tape,
            std::slice::from_ref(&y),
            std::slice::from_ref(&src),
            &[Some(seed)],
            true,
            false,
            false,
        )?;
        if let Some(Value::Tensor(t)) = g.into_iter().next() {
            connected = true;
            cols.push(t);
        }
    }
    if !connected && !zeros {
        this.finish();
        return Ok(Value::None);
    }
    let mut dims: Vec<i64> = y.dims().iter().map(|&d| d as i64).collect();
    dims.extend(x.dims()[1..].iter().map(|&d| d as i64));
    let j = if cols.is_empty() {
        Tensor::zeros(
            x.dtype(),
            &dims.iter().map(|&d| d as usize).collect::<Vec<_>>(),
            x.device(),
        )
    } else {
        runtime::ops::stack(&cols, 1)
            .and_then(|s| runtime::ops::reshape(&s, &dims, runtime::Semantics::Tf))
    }
    .map_err(runtime_err)?;
    this.finish();
    Ok(Value::Tensor(j))
}

/// The context manager of `tape.stop_recording()`.
pub struct StopRecording {
    tape: Value,
}

/// Its class.
pub static STOP_RECORDING: ClassSpec = ClassSpec::plain("_GeneratorContextManager", "contextlib");

impl NativeObject for StopRecording {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&STOP_RECORDING)
    }
    fn enter(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(t) = self.tape.downcast::<GradientTape>() {
            t.pop_tape()?;
        }
        Ok(Some(Value::None))
    }
    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, _vm: &dyn Vm) -> PyResult<bool> {
        if let Some(t) = self.tape.downcast::<GradientTape>() {
            t.push_tape()?;
        }
        Ok(false)
    }
}

/// Temporarily stops recording operations on this tape.
#[native("GradientTape.stop_recording(self)")]
fn stop_recording(this: native::This<GradientTape>) -> PyResult<Value> {
    if this.tape.borrow().is_none() {
        return Err(PyErr::new(
            ExcType::RuntimeError,
            "Trying to stop recording a tape which is not recording.",
        ));
    }
    Ok(Value::native(StopRecording {
        tape: this.value.clone(),
    }))
}

/// Clears all information stored in this tape.
#[native("GradientTape.reset(self)")]
fn reset(this: &GradientTape) -> PyResult<Value> {
    this.pop_tape()?;
    *this.tape.borrow_mut() = None;
    this.push_tape()?;
    Ok(Value::None)
}

/// A member of `tf.UnconnectedGradients`.
pub struct Unconnected {
    member: &'static str,
    value: &'static str,
}

/// `tf.UnconnectedGradients`.
pub static UNCONNECTED_GRADIENTS: ClassSpec = ClassSpec {
    name: "UnconnectedGradients",
    module: "tensorflow.python.ops.unconnected_gradients",
    bases: &[],
    members: &[
        Member::Attr("NONE", || {
            Value::native(Unconnected {
                member: "NONE",
                value: "none",
            })
        }),
        Member::Attr("ZERO", || {
            Value::native(Unconnected {
                member: "ZERO",
                value: "zero",
            })
        }),
    ],
};

crate::distribute::classes::native_class!(Unconnected: UNCONNECTED_GRADIENTS);

impl NativeObject for Unconnected {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&UNCONNECTED_GRADIENTS)
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<UnconnectedGradients.{}: '{}'>",
            self.member, self.value
        ))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("UnconnectedGradients.{}", self.member))
    }
}

/// Stops gradient computation: the identity, which the tapes do not record.
#[native("stop_gradient(input, name=None)")]
fn stop_gradient(vm: &dyn Vm, input: &Value, _name: &Value) -> PyResult<Value> {
    let t = to_tensor(vm, input, None)?;
    // a new handle on the same buffer, unknown to every tape
    let out = runtime::autodiff::tape::detached(&t);
    Ok(Value::Tensor(out))
}

/// Registers `GradientTape`, `UnconnectedGradients`, `stop_gradient`.
pub fn register(m: &mut ModuleBuilder) {
    m.value("GradientTape", Value::Class(GRADIENT_TAPE.class()));
    m.value(
        "UnconnectedGradients",
        Value::Class(UNCONNECTED_GRADIENTS.class()),
    );
    m.add(stop_gradient::DEF);
    m.namespace("autodiff", |a| {
        a.value("GradientTape", Value::Class(GRADIENT_TAPE.class()));
        super::forward_accumulator::register(a);
    });
}
