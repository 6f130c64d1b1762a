//! Forward-mode differentiation (`tf.autodiff.ForwardAccumulator`), as
//! TensorFlow computes it: each op that runs while an accumulator records,
//! on a tensor the accumulator has a tangent for, gets its outputs'
//! tangents at once, by the "double backward" trick of TensorFlow's
//! `forwardprop.py`: the op's gradient function is run on a cotangent `u`
//! of ones (not zeros: fused gradients such as `SqrtGrad` are 0 where the
//! cotangent is) that a tape of its own watches, and the gradient of that
//! vector-Jacobian product with respect to `u`, weighted by the inputs'
//! tangents, is the Jacobian-vector product. No op needs a forward rule of
//! its own: every op with a gradient has a tangent.
//!
//! The ops of that computation run like any others: the gradient tapes and
//! the accumulators entered before this one see them (so `outer.jvp` of an
//! inner accumulator's `jvp` and a tape's gradient of a `jvp` are defined,
//! as in TensorFlow), the accumulator itself and those entered after it do
//! not.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use super::backprop::gradient_of;
use super::grad::{gradient, GradOp, OpView};
use super::slices::{sparse_gradient, Grad};
use super::tape::{self, Tape};
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::tensor::Tensor;

/// A forward accumulator: the tangents of the tensors it follows.
pub struct Accumulator {
    lane: Option<usize>,
    data: RefCell<AccData>,
}

#[derive(Default)]
struct AccData {
    /// Each followed tensor's tangent (by id; the tensor is kept alive so
    /// that its id names it while the accumulator lives).
    tangents: HashMap<usize, (Tensor, Tensor)>,
    /// Each watched variable's tangent (by its tape key).
    vars: HashMap<usize, Tensor>,
    /// The first error met computing a tangent (`jvp` raises it).
    error: Option<Error>,
}

thread_local! {
    /// The recording accumulators, in the order they were entered.
    static ACCS: RefCell<Vec<Rc<Accumulator>>> = const { RefCell::new(Vec::new()) };
    /// Accumulators at this position of `ACCS` and after are computing a
    /// tangent: the ops of that computation are not theirs.
    static HIDDEN_FROM: Cell<usize> = const { Cell::new(usize::MAX) };
}

impl Accumulator {
    /// A new accumulator of the running lane, not yet recording.
    pub fn new() -> Rc<Accumulator> {
        Rc::new(Accumulator {
            lane: tape::lane(),
            data: RefCell::new(AccData::default()),
        })
    }

    /// Starts recording.
    pub fn push(self: &Rc<Accumulator>) {
        ACCS.with(|a| a.borrow_mut().push(self.clone()));
        tape::hold_active(true);
    }

    /// Stops recording; false when it was not.
    pub fn pop(self: &Rc<Accumulator>) -> bool {
        let removed = ACCS.with(|a| {
            let mut a = a.borrow_mut();
            match a.iter().rposition(|x| Rc::ptr_eq(x, self)) {
                Some(i) => {
                    a.remove(i);
                    true
                }
                None => false,
            }
        });
        if removed {
            tape::hold_active(false);
        }
        removed
    }

    /// Follows `t` with `tangent`.
    pub fn watch(&self, t: &Tensor, tangent: Tensor) {
        self.data
            .borrow_mut()
            .tangents
            .insert(t.id(), (t.clone(), tangent));
    }

    /// Follows the variable known by `key`: its reads have `tangent`.
    pub fn watch_variable(&self, key: usize, tangent: Tensor) {
        self.data.borrow_mut().vars.insert(key, tangent);
    }

    /// The tangent of `t` (None: it does not depend on a primal); the
    /// error met computing some tangent, if any.
    pub fn jvp(&self, t: &Tensor) -> Result<Option<Tensor>> {
        let d = self.data.borrow();
        if let Some(e) = &d.error {
            return Err(e.clone());
        }
        Ok(d.tangents.get(&t.id()).map(|(_, g)| g.clone()))
    }

    /// The tangent of the variable known by `key`.
    pub fn jvp_variable(&self, key: usize) -> Result<Option<Tensor>> {
        let d = self.data.borrow();
        if let Some(e) = &d.error {
            return Err(e.clone());
        }
        Ok(d.vars.get(&key).cloned())
    }

    fn tangent(&self, id: usize) -> Option<Tensor> {
        self.data.borrow().tangents.get(&id).map(|(_, g)| g.clone())
    }

    fn fail(&self, e: Error) {
        let mut d = self.data.borrow_mut();
        if d.error.is_none() {
            d.error = Some(e);
        }
    }
}

/// The accumulators that see an op now (this lane's, not computing), with
/// their positions.
fn visible() -> Vec<(usize, Rc<Accumulator>)> {
    let lane = tape::lane();
    let hidden = HIDDEN_FROM.with(Cell::get);
    ACCS.with(|a| {
        a.borrow()
            .iter()
            .enumerate()
            .filter(|(i, acc)| *i < hidden && acc.lane == lane)
            .map(|(i, acc)| (i, acc.clone()))
            .collect()
    })
}

/// Whether an accumulator that sees ops now has a tangent for one of
/// `inputs` (one borrow when none records).
pub(crate) fn wants(inputs: &[&Tensor]) -> bool {
    if ACCS.with(|a| a.borrow().is_empty()) {
        return false;
    }
    visible().iter().any(|(_, acc)| {
        inputs
            .iter()
            .any(|t| t.dtype().is_floating() && acc.tangent(t.id()).is_some())
    })
}

/// A variable was read, giving `value`: accumulators watching it follow
/// the value with the variable's tangent.
pub(crate) fn on_read(key: usize, value: &Tensor) {
    if ACCS.with(|a| a.borrow().is_empty()) {
        return;
    }
    for (_, acc) in visible() {
        let t = acc.data.borrow().vars.get(&key).cloned();
        if let Some(t) = t {
            acc.watch(value, t);
        }
    }
}

/// An op ran: each accumulator that has a tangent for one of its floating
/// inputs computes its outputs' tangents (innermost first).
pub(crate) fn on_op(op: &GradOp, inputs: &[&Tensor], outputs: &[&Tensor]) {
    for (pos, acc) in visible().into_iter().rev() {
        let tangents: Vec<Option<Tensor>> = inputs
            .iter()
            .map(|t| {
                if t.dtype().is_floating() {
                    acc.tangent(t.id())
                } else {
                    None
                }
            })
            .collect();
        if tangents.iter().all(Option::is_none) {
            continue;
        }
        let saved = HIDDEN_FROM.with(|h| h.replace(pos));
        let r = jvp_of(op, inputs, outputs, &tangents);
        HIDDEN_FROM.with(|h| h.set(saved));
        match r {
            Ok(outs) => {
                for (o, t) in outputs.iter().zip(outs) {
                    if let Some(t) = t {
                        acc.watch(o, t);
                    }
                }
            }
            Err(e) => acc.fail(e),
        }
    }
}

/// The tangents of an op's outputs from its inputs' (None where an input
/// has none), by differentiating its vector-Jacobian product.
fn jvp_of(
    op: &GradOp,
    inputs: &[&Tensor],
    outputs: &[&Tensor],
    tangents: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    if let GradOp::Custom(_) = op {
        return Err(Error::new(
            ErrorKind::Unimplemented,
            "dist: forward-mode tangents (tf.autodiff.ForwardAccumulator) of a tf.custom_gradient function are not supported",
        ));
    }
    let us = outputs
        .iter()
        .map(|o| Tensor::ones(o.dtype(), o.dims(), o.device()))
        .collect::<Result<Vec<_>>>()?;
    let own = Tape::new(false, false);
    for (u, o) in us.iter().zip(outputs) {
        if o.dtype().is_floating() {
            own.watch(u);
        }
    }
    let ins: Vec<Tensor> = inputs.iter().map(|t| (*t).clone()).collect();
    let outs: Vec<Tensor> = outputs.iter().map(|t| (*t).clone()).collect();
    let skip: Vec<bool> = tangents.iter().map(Option::is_none).collect();
    own.push();
    let vjp = vector_jacobian(op, &ins, &outs, &skip, &us);
    own.pop();
    let mut targets = Vec::new();
    let mut weights = Vec::new();
    for (g, t) in vjp?.into_iter().zip(tangents) {
        if let (Some(g), Some(t)) = (g, t) {
            targets.push(g);
            weights.push(Some(t.clone()));
        }
    }
    if targets.is_empty() {
        return Ok(vec![None; outputs.len()]);
    }
    let sources: Vec<usize> = us.iter().map(Tensor::id).collect();
    let mut no_custom = |_: &Rc<dyn Any>, _: &[Tensor]| -> Result<Vec<Option<Tensor>>> {
        Err(Error::internal("a custom gradient inside a tangent"))
    };
    let jvps = gradient_of(&own, &targets, &sources, &weights, true, &mut no_custom)?;
    Ok(jvps
        .into_iter()
        .zip(outputs)
        .map(|(g, o)| g.filter(|_| o.dtype().is_floating()))
        .collect())
}

/// One op's input gradients for the output gradients `dys`, densified (as
/// backpropagation runs the op's gradient function).
fn vector_jacobian(
    op: &GradOp,
    inputs: &[Tensor],
    outputs: &[Tensor],
    skip: &[bool],
    dys: &[Tensor],
) -> Result<Vec<Option<Tensor>>> {
    let grads: Vec<Grad> = dys.iter().cloned().map(Grad::Dense).collect();
    if let Some(gs) = sparse_gradient(op, inputs, outputs, skip, &grads)? {
        return gs
            .into_iter()
            .map(|g| g.map(Grad::into_dense).transpose())
            .collect();
    }
    let view = OpView {
        inputs,
        outputs,
        skip,
    };
    let mut no_custom = |_: &Rc<dyn Any>, _: &[Tensor]| -> Result<Vec<Option<Tensor>>> {
        Err(Error::internal("a custom gradient inside a tangent"))
    };
    gradient(op, &view, dys, &mut no_custom)
}
