//! Graph tensors that outlive their trace: every graph traced on this
//! thread is known by the epoch its tensors' tags carry, so a tagged tensor
//! whose graph is neither being traced nor set aside by [`super::paused`]
//! is one the function's body kept outside it (TensorFlow's symbolic tensor
//! out of scope).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::{shapes, Graph};
use crate::runtime::tensor::Tensor;

thread_local! {
    /// Every graph traced on this thread, by its tag epoch.
    static TRACED: RefCell<HashMap<u64, Weak<RefCell<Graph>>>> = RefCell::new(HashMap::new());
    /// The epochs of the graphs [`super::paused`] set aside (still being
    /// traced).
    static SUSPENDED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A graph begins its trace.
pub(super) fn note_traced(g: &Rc<RefCell<Graph>>) {
    let epoch = g.borrow().tag_epoch();
    TRACED.with(|m| {
        let mut m = m.borrow_mut();
        // the graphs no function holds any more leave the table (their
        // escaped tensors then read as eager values)
        if m.len() >= 64 && m.len().is_power_of_two() {
            m.retain(|_, w| w.strong_count() > 0);
        }
        m.insert(epoch, Rc::downgrade(g));
    });
}

/// The graphs `saved` are set aside while an inner computation runs; how
/// many were noted (for [`resume`]).
pub(super) fn suspend(saved: &[Rc<RefCell<Graph>>]) -> usize {
    let epochs: Vec<u64> = saved
        .iter()
        .filter_map(|g| g.try_borrow().ok().map(|g| g.tag_epoch()))
        .collect();
    let n = epochs.len();
    SUSPENDED.with(|s| s.borrow_mut().extend(epochs));
    n
}

/// The last `n` graphs set aside are traced again.
pub(super) fn resume(n: usize) {
    SUSPENDED.with(|s| {
        let mut s = s.borrow_mut();
        let keep = s.len().saturating_sub(n);
        s.truncate(keep);
    });
}

/// A tensor of a traced graph used after that graph's trace ended (kept in
/// a Python list or attribute by the function's body: TensorFlow's symbolic
/// tensor out of scope): its graph name (`add:0`), its static shape where
/// some dims were unknown, and the name of the function the graph traced.
pub fn escaped(t: &Tensor) -> Option<(String, Option<shapes::StaticShape>, String)> {
    let tag = t.tag();
    if tag == 0 {
        return None;
    }
    let epoch = tag >> 32;
    let open = super::TRACING.with(|s| {
        s.borrow()
            .iter()
            .any(|g| g.try_borrow().map_or(true, |g| g.tag_epoch() == epoch))
    });
    if open || SUSPENDED.with(|s| s.borrow().contains(&epoch)) {
        return None;
    }
    let g = TRACED.with(|m| m.borrow().get(&epoch).and_then(Weak::upgrade))?;
    let g = g.try_borrow().ok()?;
    // a tensor made before the trace (a capture, tagged as its `Const`)
    // is the caller's own
    if t.born() < g.root_epoch {
        return None;
    }
    let p = g.lookup(t)?;
    let mut root = g.parent.clone();
    let mut func = g.function.clone();
    while let Some(r) = root {
        let r = r.try_borrow().ok()?;
        func = r.function.clone();
        root = r.parent.clone();
    }
    Some((
        g.nodes[p.0].output_name(p.1),
        g.statics.get(&p).cloned(),
        func,
    ))
}

/// Names the function a graph traces (TensorFlow's `FuncGraph(name=f)`).
pub fn set_function_name(g: &Rc<RefCell<Graph>>, name: &str) {
    g.borrow_mut().function = name.to_string();
}
