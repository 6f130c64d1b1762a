//! The replica mechanism (ARCHITECTURE.md, "Replicas run like TensorFlow
//! runs them"): `run_replicas` calls one body N times, each as a stackful
//! coroutine (corosensei) on this thread, in replica order. A replica that
//! reaches a collective parks there (`collective` is a yield point); once
//! every replica has arrived, one merge callback runs, and the replicas
//! resume in order with their results. Values stay `Rc`; nothing is locked.
//! A replica that finishes while others wait at a collective is reported at
//! once (TensorFlow would hang); an error in one replica stops them all.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use corosensei::stack::DefaultStack;
use corosensei::{CoroutineResult, ScopedCoroutine, Yielder};

use super::{ExecState, Interp};
use crate::value::{CollectiveError, ExcType, PyErr, PyResult, Value};

/// Native stack of each replica coroutine (virtual memory, committed lazily).
const REPLICA_STACK: usize = 64 << 20;

/// Bytes kept free at the bottom of any stack: past this, calls raise
/// RecursionError instead of overflowing.
pub const STACK_MARGIN: usize = 1 << 20;

/// What a parked replica resumes with: its share of the merged result.
type Resumed = Result<Value, CollectiveError>;

type ReplicaYielder = Yielder<Resumed, Value>;

/// Replica stacks kept for the next `run_replicas` on this thread.
const STACK_POOL: usize = 16;

thread_local! {
    /// Stacks of finished replica coroutines, reused by the next run: mapping
    /// and unmapping a fresh 64 MiB stack per replica per step cost more than
    /// a small train step itself.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
    /// The yielder of the replica coroutine that is running now (null outside).
    static CURRENT: Cell<*const ReplicaYielder> = const { Cell::new(std::ptr::null()) };
    /// Index of the running replica.
    static CURRENT_REPLICA: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Clears the running replica's yielder (a generator resumed inside a
/// replica runs on its own stack and must not park the replica), returning
/// it for [`restore_current_yielder`].
pub(super) fn take_current_yielder() -> *const () {
    CURRENT.with(|c| c.replace(std::ptr::null())) as *const ()
}

/// Puts back what [`take_current_yielder`] took.
pub(super) fn restore_current_yielder(y: *const ()) {
    CURRENT.with(|c| c.set(y as *const ReplicaYielder));
}

/// The approximate current stack pointer.
#[inline(always)]
pub fn stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// What a merge callback receives: each waiting replica's payload, in replica order.
pub type Merge<'a> = dyn Fn(Vec<Value>) -> PyResult<Vec<Value>> + 'a;

impl Interp {
    /// The replica currently running, if inside `run_replicas`.
    pub fn current_replica(&self) -> Option<usize> {
        CURRENT_REPLICA.with(|c| c.get())
    }

    /// Runs `body(i)` for every replica `i` in `0..n` as coroutines; see the
    /// module docs. Returns the replicas' results in order.
    pub fn run_replicas(
        &self,
        n: usize,
        body: &dyn Fn(usize) -> PyResult<Value>,
        merge: &Merge<'_>,
    ) -> PyResult<Vec<Value>> {
        if self.current_replica().is_some() {
            return Err(PyErr::new(
                ExcType::RuntimeError,
                "replicas cannot start replicas: this call is already inside a replica function",
            ));
        }
        let yielders: Rc<RefCell<Vec<*const ReplicaYielder>>> =
            Rc::new(RefCell::new(vec![std::ptr::null(); n]));
        let limits: Vec<Cell<usize>> = (0..n).map(|_| Cell::new(0)).collect();
        let mut coroutines = Vec::with_capacity(n);
        for (i, limit) in limits.iter().enumerate() {
            let stack = match STACKS.with(|p| p.borrow_mut().pop()) {
                Some(s) => s,
                None => DefaultStack::new(REPLICA_STACK).map_err(|_| {
                    PyErr::new(ExcType::MemoryError, "cannot allocate a replica stack")
                })?,
            };
            let ys = yielders.clone();
            let interp_limit = &self.stack_limit;
            coroutines.push(ScopedCoroutine::with_stack(
                stack,
                move |y: &ReplicaYielder, _first: Resumed| {
                    ys.borrow_mut()[i] = y as *const ReplicaYielder;
                    CURRENT.with(|c| c.set(y as *const ReplicaYielder));
                    limit.set(stack_pointer().saturating_sub(REPLICA_STACK - 2 * STACK_MARGIN));
                    interp_limit.set(limit.get());
                    body(i)
                },
            ));
        }
        // each replica's stack goes out through the frame that runs them
        let mut states: Vec<ExecState> = (0..n)
            .map(|_| ExecState {
                pos: self.pos.get(),
                top: std::ptr::NonNull::new(self.top.get().cast_mut()),
                ..ExecState::default()
            })
            .collect();
        let mut inputs: Vec<Option<Resumed>> = (0..n).map(|_| Some(Ok(Value::None))).collect();
        let mut results: Vec<Option<Value>> = vec![None; n];
        let outer_limit = self.stack_limit.get();
        let result = (|| loop {
            let mut parked: Vec<(usize, Value)> = Vec::new();
            for i in 0..n {
                if results[i].is_some() {
                    continue;
                }
                let Some(input) = inputs[i].take() else {
                    continue;
                };
                let outer = self.swap_exec_state(std::mem::take(&mut states[i]));
                CURRENT_REPLICA.with(|c| c.set(Some(i)));
                crate::runtime::trace::set_lane(Some(i));
                crate::runtime::autodiff::tape::set_lane(Some(i));
                let y = yielders.borrow()[i];
                if !y.is_null() {
                    CURRENT.with(|c| c.set(y));
                    self.stack_limit.set(limits[i].get());
                }
                // A coroutine's first resume sets its own limit before running the body.
                let r = coroutines[i].resume(input);
                CURRENT.with(|c| c.set(std::ptr::null()));
                CURRENT_REPLICA.with(|c| c.set(None));
                crate::runtime::trace::set_lane(None);
                crate::runtime::autodiff::tape::set_lane(None);
                self.stack_limit.set(outer_limit);
                states[i] = self.swap_exec_state(outer);
                match r {
                    CoroutineResult::Yield(payload) => parked.push((i, payload)),
                    CoroutineResult::Return(Ok(v)) => results[i] = Some(v),
                    CoroutineResult::Return(Err(e)) => return Err(e),
                }
            }
            if parked.is_empty() {
                return Ok(results
                    .iter_mut()
                    .map(|r| r.take().unwrap_or(Value::None))
                    .collect());
            }
            if parked.len() < n {
                let finished: Vec<usize> = (0..n).filter(|i| results[*i].is_some()).collect();
                let waiting: Vec<usize> = parked.iter().map(|(i, _)| *i).collect();
                // Resume the waiting replicas with the error so it is raised
                // at their call site (which names the collective).
                let err = CollectiveError::Abandoned { finished, waiting };
                for (i, _) in &parked {
                    inputs[*i] = Some(Err(err.clone()));
                }
                continue;
            }
            let payloads: Vec<Value> = parked.into_iter().map(|(_, p)| p).collect();
            match merge(payloads) {
                Ok(outs) => {
                    for (i, o) in outs.into_iter().enumerate().take(n) {
                        inputs[i] = Some(Ok(o));
                    }
                }
                Err(e) => {
                    for input in inputs.iter_mut() {
                        *input = Some(Err(CollectiveError::Raised(e.clone())));
                    }
                }
            }
        })();
        // Finished coroutines give their stacks back to the pool; dropping a
        // suspended one unwinds its stack first.
        for co in coroutines {
            if co.done() {
                let stack = co.into_stack();
                STACKS.with(|p| {
                    let mut pool = p.borrow_mut();
                    if pool.len() < STACK_POOL {
                        pool.push(stack);
                    }
                });
            }
        }
        result
    }

    /// Parks the running replica at a collective with `payload`; returns its
    /// share of the merged result once every replica has arrived.
    pub fn collective(&self, payload: Value) -> Resumed {
        let y = CURRENT.with(|c| c.get());
        if y.is_null() {
            return Err(CollectiveError::Raised(PyErr::new(
                ExcType::RuntimeError,
                "a collective can only be called in a replica function (inside strategy.run)",
            )));
        }
        // SAFETY: `CURRENT` is set only while the coroutine owning this yielder
        // is running (set before each resume, cleared after it returns), and we
        // are on that coroutine's stack now, so the yielder is alive.
        let yielder = unsafe { &*y };
        crate::runtime::trace::arrive();
        yielder.suspend(payload)
    }

    /// Raises RecursionError when the native stack is nearly exhausted.
    #[inline]
    pub fn check_stack(&self) -> PyResult<()> {
        if stack_pointer() < self.stack_limit.get() {
            return Err(PyErr::new(
                ExcType::RecursionError,
                "maximum recursion depth exceeded",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    use super::super::Interp;
    use crate::object::native;
    use crate::syntax::SourceFile;
    use crate::value::{PyResult, Value, Vm};

    /// `replicas(fn, n)`: runs fn(i) on n replicas; the merge callback sums
    /// the int payloads and gives every replica the sum.
    #[native("replicas(fn, n)")]
    fn replicas(vm: &dyn Vm, fn_: Value, n: i64) -> PyResult<Value> {
        let f = fn_;
        let n = n as usize;
        let out = vm.run_replicas(
            n,
            &|i| vm.call(&f, vec![Value::Int(i as i64)], Vec::new()),
            &|payloads| {
                let total: i64 = payloads
                    .iter()
                    .map(|p| if let Value::Int(i) = p { *i } else { 0 })
                    .sum();
                vm.write_stdout(&format!("merge {payloads:?}\n"));
                Ok(vec![Value::Int(total); payloads.len()])
            },
        )?;
        Ok(Value::list(out))
    }

    #[native("collective(x)")]
    fn collective(vm: &dyn Vm, x: Value) -> PyResult<Value> {
        vm.collective(x).map_err(|e| e.into_pyerr(None))
    }

    fn run(src: &str) -> String {
        let src = src.to_string();
        crate::with_big_stack(move || {
            let out: Rc<RefCell<Vec<u8>>> = Rc::new(RefCell::new(Vec::new()));
            let interp = Interp::new(out.clone(), Arc::new(AtomicBool::new(false)));
            interp.set_stack_budget(crate::STACK_SIZE - (8 << 20));
            interp.set_global("replicas", replicas::DEF.value());
            interp.set_global("collective", collective::DEF.value());
            let source = SourceFile::new("t.py", src);
            let module = interp.compile(&source).expect("parses");
            let r = interp.exec_module(&source, &module, crate::eval::Echo::Off);
            let mut text = String::from_utf8(out.borrow().clone()).unwrap_or_default();
            if let Err(e) = r {
                text.push_str(&format!(
                    "error: {}\n",
                    interp.str_value(e.value()).unwrap_or_default()
                ));
            }
            text
        })
    }

    #[test]
    fn replicas_park_at_collectives_and_resume_in_order() {
        let out = run("def f(i):\n    print('start', i)\n    s = collective(i + 1)\n    print('after', i, s)\n    t = collective(s * 10)\n    return (i, t)\nprint(replicas(f, 3))\n");
        assert_eq!(
            out,
            "start 0\nstart 1\nstart 2\nmerge [1, 2, 3]\nafter 0 6\nafter 1 6\nafter 2 6\nmerge [60, 60, 60]\n[(0, 180), (1, 180), (2, 180)]\n"
        );
    }

    #[test]
    fn a_replica_that_skips_a_collective_is_reported() {
        let out = run("def f(i):\n    if i == 1:\n        return 0\n    return collective(i)\ntry:\n    replicas(f, 2)\nexcept RuntimeError as e:\n    print('caught:', str(e)[:60])\n");
        assert_eq!(
            out,
            "caught: replica 1 returned without reaching the collective that repl\n"
        );
    }

    #[test]
    fn errors_and_deep_recursion_inside_replicas() {
        let out = run("def r(n):\n    return 0 if n == 0 else 1 + r(n - 1)\ndef f(i):\n    if i == 2:\n        raise ValueError('bad replica')\n    return r(900)\ntry:\n    replicas(f, 3)\nexcept ValueError as e:\n    print('caught', e)\ndef g(i):\n    return r(100000)\ntry:\n    replicas(g, 2)\nexcept RecursionError as e:\n    print('recursion', e)\nprint(replicas(lambda i: r(500), 2))\n");
        assert_eq!(
            out,
            "caught bad replica\nrecursion maximum recursion depth exceeded\n[500, 500]\n"
        );
    }

    #[test]
    fn collective_outside_replicas_is_an_error() {
        let out = run("try:\n    collective(1)\nexcept RuntimeError as e:\n    print(e)\n");
        assert!(
            out.contains("only be called in a replica function"),
            "{out}"
        );
    }
}
