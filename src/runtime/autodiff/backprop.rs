//! Backpropagation over a tape (TensorFlow's `imperative_grad`, C++
//! `GradientTape::ComputeGradient`): the ops reachable from the targets are
//! visited once every gradient of their outputs is complete, in
//! TensorFlow's order, and a tensor's gradients from several consumers are
//! summed with one `AddN` as TensorFlow aggregates them (slices of a
//! gather's gradient concatenated, `slices::aggregate`).

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use super::grad::{gradient, CustomFn, OpView};
use super::slices::{aggregate, sparse_gradient, Grad};
use super::tape::{Entry, Tape};
use crate::runtime::error::Result;
use crate::runtime::tensor::Tensor;

/// The gradients of `targets` (with `output_gradients`, ones where None)
/// with respect to the tensors or variables known by `sources` (their ids),
/// None where unconnected, each densified (see [`sparse_gradient_of`]).
pub fn gradient_of(
    tape: &Rc<Tape>,
    targets: &[Tensor],
    sources: &[usize],
    output_gradients: &[Option<Tensor>],
    consume: bool,
    custom: &mut CustomFn,
) -> Result<Vec<Option<Tensor>>> {
    sparse_gradient_of(tape, targets, sources, output_gradients, consume, custom)?
        .into_iter()
        .map(|g| g.map(Grad::into_dense).transpose())
        .collect()
}

/// The gradients of `targets` (with `output_gradients`, ones where None)
/// with respect to the tensors or variables known by `sources` (their ids),
/// None where unconnected; a gradient is [`Grad::Slices`] where TensorFlow's
/// is an `IndexedSlices`. With `consume` (a non-persistent tape's one
/// gradient) the entries used are taken off the tape.
pub fn sparse_gradient_of(
    tape: &Rc<Tape>,
    targets: &[Tensor],
    sources: &[usize],
    output_gradients: &[Option<Tensor>],
    consume: bool,
    custom: &mut CustomFn,
) -> Result<Vec<Option<Grad>>> {
    // The ops reachable from the targets, and how many of them use each tensor.
    let mut ops_used: HashMap<usize, ()> = HashMap::new();
    let mut usage: HashMap<usize, usize> = HashMap::new();
    let mut missing: HashMap<usize, usize> = HashMap::new();
    let mut entries: HashMap<usize, Entry> = HashMap::new();
    {
        let mut d = tape.data.borrow_mut();
        let mut stack: Vec<usize> = targets.iter().map(Tensor::id).collect();
        while let Some(id) = stack.pop() {
            let Some(&op) = d.producer.get(&id) else {
                continue;
            };
            if ops_used.contains_key(&op) {
                continue;
            }
            ops_used.insert(op, ());
            let Some(e) = d.entries.get(op).and_then(Option::as_ref) else {
                continue;
            };
            for &i in &e.input_ids {
                match usage.get_mut(&i) {
                    Some(c) => *c += 1,
                    None => {
                        usage.insert(i, 1);
                        if d.producer.contains_key(&i) {
                            stack.push(i);
                        }
                    }
                }
            }
        }
        for id in usage.keys() {
            if let Some(&op) = d.producer.get(id) {
                *missing.entry(op).or_insert(0) += 1;
            }
        }
        let mut taken: Vec<usize> = ops_used.keys().copied().collect();
        taken.sort_unstable();
        for op in taken {
            let e = if !consume {
                d.entries.get(op).and_then(Option::as_ref).map(clone_entry)
            } else {
                d.entries.get_mut(op).and_then(Option::take)
            };
            if let Some(e) = e {
                entries.insert(op, e);
            }
        }
    }
    let producer = |id: usize| tape.data.borrow().producer.get(&id).copied();

    // The targets' gradients.
    let mut grads: HashMap<usize, Vec<Grad>> = HashMap::new();
    for (i, t) in targets.iter().enumerate() {
        let g = match output_gradients.get(i).cloned().flatten() {
            Some(g) => g,
            None => Tensor::ones(t.dtype(), t.dims(), t.device())?,
        };
        grads.entry(t.id()).or_default().push(Grad::Dense(g));
    }

    // Ops whose outputs nobody else uses start; the rest follow as their
    // outputs' gradients complete (a queue, as TensorFlow's op stack is).
    let mut ready: Vec<usize> = entries
        .keys()
        .copied()
        .filter(|op| !missing.contains_key(op))
        .collect();
    ready.sort_unstable_by(|a, b| b.cmp(a));
    let mut queue: VecDeque<usize> = ready.into_iter().collect();
    let source_set: std::collections::HashSet<usize> = sources.iter().copied().collect();
    while let Some(op) = queue.pop_front() {
        let Some(e) = entries.remove(&op) else {
            continue;
        };
        let mut any = false;
        let mut out_grads = Vec::with_capacity(e.outputs.len());
        let mut zero_at = Vec::new();
        for (i, o) in e.outputs.iter().enumerate() {
            // a source's own gradient stays for the caller
            let gs = if source_set.contains(&o.id()) {
                grads.get(&o.id()).cloned()
            } else {
                grads.remove(&o.id())
            };
            match gs {
                Some(gs) => {
                    any = true;
                    out_grads.push(aggregate(gs)?);
                }
                None => {
                    zero_at.push(i);
                    out_grads.push(Grad::Dense(o.clone()));
                }
            }
        }
        let in_grads = if any {
            for i in zero_at {
                let o = &e.outputs[i];
                out_grads[i] = Grad::Dense(Tensor::zeros(o.dtype(), o.dims(), o.device())?);
            }
            match sparse_gradient(&e.op, &e.inputs, &e.outputs, &e.skip, &out_grads)? {
                Some(gs) => gs,
                None => {
                    // every other gradient function takes dense gradients
                    // (TensorFlow converts an `IndexedSlices` where the op
                    // sequence uses it)
                    let dense = out_grads
                        .into_iter()
                        .map(Grad::into_dense)
                        .collect::<Result<Vec<_>>>()?;
                    let view = OpView {
                        inputs: &e.inputs,
                        outputs: &e.outputs,
                        skip: &e.skip,
                    };
                    gradient(&e.op, &view, &dense, custom)?
                        .into_iter()
                        .map(|g| g.map(Grad::Dense))
                        .collect()
                }
            }
        } else {
            vec![None; e.inputs.len()]
        };
        for (i, &id) in e.input_ids.iter().enumerate() {
            if let Some(Some(g)) = in_grads.get(i) {
                grads.entry(id).or_default().push(g.clone());
            }
            let Some(c) = usage.get_mut(&id) else {
                continue;
            };
            *c -= 1;
            if *c > 0 {
                continue;
            }
            if let Some(p) = producer(id) {
                if let Some(m) = missing.get_mut(&p) {
                    *m -= 1;
                    if *m == 0 {
                        queue.push_back(p);
                    }
                }
            }
        }
    }
    sources
        .iter()
        .map(|id| grads.get(id).cloned().map(aggregate).transpose())
        .collect()
}

fn clone_entry(e: &Entry) -> Entry {
    Entry {
        op: e.op.clone(),
        input_ids: e.input_ids.clone(),
        inputs: e.inputs.clone(),
        outputs: e.outputs.clone(),
        skip: e.skip.clone(),
    }
}
