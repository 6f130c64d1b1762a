//! Autograph: while a `tf.function` traces (with `autograph=True`, its
//! default), Python control flow in user code whose condition is a tensor
//! becomes graph control flow, as TensorFlow's autograph converts it:
//!
//! - `if`/`elif`/`else` on a tensor is an `If` node. Both branches run
//!   once (their Python effects happen, as when TensorFlow traces them);
//!   the names they bind that other code reads are the node's outputs,
//!   with autograph's checks and messages. A branch ending in `return`
//!   takes the rest of its block into the other branch, as autograph's
//!   return conversion does, so both return.
//! - `while` on a tensor, `for` over `tf.range(...)` and `for` over a
//!   tensor are `While` nodes: the names the body binds that exist before
//!   the loop are its loop variables; `break` and `continue` become flags
//!   (a loop variable and a guard around the rest of the body), as
//!   autograph's converters make them.
//!
//! Library code (the stdlib, as TensorFlow's own modules) is never
//! converted. What cannot be converted runs as Python does, which taints
//! the graph (the function then runs eagerly at every call).

mod analysis;
mod exprs;
mod loops;

use self::analysis::Exit;
use super::frame::Frame;
use super::{Flow, Interp};
use crate::distribute::function::{control, trace as ftrace};
use crate::runtime::{graph, DType, Tensor};
use crate::syntax::ast::*;
use crate::value::{ExcType, PyErr, PyResult, Value};

/// A converted loop being traced.
struct AgLoop {
    /// Its body.
    body: *const [Stmt],
    /// The `break` flag (a Python bool, or a tensor once a converted `if`
    /// set it on one path).
    brk: Value,
    /// The `continue` flag.
    cont: Value,
    /// A loop autograph could not convert, running as Python: `break` and
    /// `continue` under tensor conditions in it are Python's.
    python: bool,
}

/// Autograph's state for one thread of execution.
#[derive(Default)]
pub struct AgState {
    loops: Vec<AgLoop>,
    /// The predicate of a converted `if` that asked its block for the
    /// statements after it (`Flow::Rest`).
    pending: Option<Tensor>,
}

fn value_error(msg: impl Into<String>) -> PyErr {
    PyErr::new(ExcType::ValueError, msg.into())
}

/// One branch of a converted conditional, traced.
fn ag_branch(
    interp: &Interp,
    run: &mut dyn FnMut() -> PyResult<Value>,
) -> PyResult<control::Traced> {
    control::trace_branch(interp, run)?
        .ok_or_else(|| PyErr::new(ExcType::SystemError, "autograph outside a trace"))
}

/// Autograph's checks of one value a converted conditional gives in its
/// two branches (`name` names it in the messages).
fn verify_single(name: &str, main: &Value, other: &Value) -> PyResult<()> {
    for (v, branch) in [(main, "main"), (other, "else")] {
        if matches!(v, Value::None) {
            return Err(value_error(format!(
                "'{name}' is None at the end of the {branch} branch."
            )));
        }
    }
    if let (Value::Tensor(x), Value::Tensor(y)) = (main, other) {
        if x.dtype() != y.dtype() {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "'{name}' has dtype {} in the main branch, but dtype {} in the else branch",
                    x.dtype().name(),
                    y.dtype().name()
                ),
            ));
        }
    }
    Ok(())
}

impl Interp {
    /// Runs `f` as autograph's stand-in for a statement TensorFlow would
    /// convert and dist runs as Python: its tensor tests and iterations are
    /// allowed (elsewhere in a trace they are TensorFlow's
    /// `OperatorNotAllowedInGraphError`).
    pub(in crate::eval) fn ag_lenient<T>(&self, f: impl FnOnce() -> T) -> T {
        self.lenient.set(self.lenient.get() + 1);
        let r = f();
        self.lenient.set(self.lenient.get() - 1);
        r
    }

    /// Whether Python control flow on tensors in `f` is converted now.
    fn ag_on(&self, f: &Frame) -> bool {
        graph::tracing()
            && ftrace::autograph()
            && f.function.is_some()
            && !f.source().name.starts_with("<stdlib")
    }

    fn ag_read(&self, f: &Frame, n: &Name) -> Option<Value> {
        match n.slot.get() {
            Slot::Local(i) => f.locals[i as usize].clone(),
            Slot::Cell(i) => f.cells[i as usize].borrow().clone(),
            _ => None,
        }
    }

    fn ag_write(&self, f: &mut Frame, n: &Name, v: Option<Value>) {
        match n.slot.get() {
            Slot::Local(i) => f.locals[i as usize] = v,
            Slot::Cell(i) => *f.cells[i as usize].borrow_mut() = v,
            _ => {}
        }
    }

    /// A `tensorflow` module function.
    fn tf_fn(&self, name: &str) -> PyResult<Value> {
        let m = self.modules.borrow().get("tensorflow").cloned();
        match m {
            Some(m) => self.get_attribute(&m, name),
            None => Err(PyErr::new(
                ExcType::ImportError,
                "tensorflow is not imported",
            )),
        }
    }

    /// `if test:` while a graph traces: converted when `test` is a tensor
    /// in user code (a branch that returns while the other does not asks
    /// the block for the statements after it: `Flow::Rest`).
    pub(super) fn ag_if_stmt(
        &self,
        f: &mut Frame,
        s: &Stmt,
        test: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> PyResult<Flow> {
        let v = self.eval(f, test)?;
        let pred = match &v {
            Value::Tensor(t) if self.ag_on(f) => t.clone(),
            _ => {
                let taken = self.is_true(&v)?;
                if crate::runtime::graph::taint_unlocated() {
                    // the test read a tensor: its line, not the branch's
                    self.locate_taint(f, test.span);
                }
                return if taken {
                    self.exec_block(f, body)
                } else {
                    self.exec_block(f, orelse)
                };
            }
        };
        let pred = self.ag_condition(&pred, "if statement")?;
        let (eb, eo) = (analysis::exit(body), analysis::exit(orelse));
        if (eb == Exit::Return) != (eo == Exit::Return) && (eb == Exit::None || eo == Exit::None) {
            self.ag.borrow_mut().pending = Some(pred);
            return Ok(Flow::Rest);
        }
        self.ag_if(f, s, &pred, [body, orelse], None)
    }

    /// The converted `if` that asked for `rest`, the statements after it.
    pub(super) fn ag_if_rest(&self, f: &mut Frame, s: &Stmt, rest: &[Stmt]) -> PyResult<Flow> {
        let pred = self.ag.borrow_mut().pending.take();
        let (Some(pred), StmtKind::If { body, orelse, .. }) = (pred, &s.kind) else {
            return Err(PyErr::new(
                ExcType::SystemError,
                "autograph lost its pending if",
            ));
        };
        let absorbs = if analysis::exit(body) == Exit::Return {
            1
        } else {
            0
        };
        self.ag_if(f, s, &pred, [body, orelse], Some((rest, absorbs)))
            .map_err(|e| self.locate(f, s.span, e))
    }

    /// After a converted `if` left a `break`/`continue` flag a tensor:
    /// the rest of the block runs only where neither is set.
    pub(super) fn ag_guard(&self, f: &mut Frame, s: &Stmt, rest: &[Stmt]) -> PyResult<Flow> {
        if rest.is_empty() {
            return Ok(Flow::Guard);
        }
        let (brk, cont) = {
            let ag = self.ag.borrow();
            let l = ag.loops.last().ok_or_else(|| {
                PyErr::new(ExcType::SystemError, "autograph guard outside a loop")
            })?;
            (l.brk.clone(), l.cont.clone())
        };
        let flag = match (&brk, &cont) {
            (Value::Tensor(_), Value::Tensor(_)) => self.binary_op(BinOp::BitOr, &brk, &cont)?,
            (Value::Tensor(_), _) => brk,
            _ => cont,
        };
        let Value::Tensor(pred) = flag else {
            return self.exec_block(f, rest);
        };
        self.ag_if(f, s, &pred, [&[], rest], None)?;
        Ok(Flow::Guard)
    }

    /// TensorFlow's checks of a converted statement's condition: a bool
    /// scalar (one element).
    fn ag_condition(&self, t: &Tensor, tag: &str) -> PyResult<Tensor> {
        let shown = || {
            self.str_value(&Value::Tensor(t.clone()))
                .unwrap_or_default()
        };
        if t.dtype() != DType::Bool {
            return Err(value_error(format!(
                "condition of {tag} expected to be `tf.bool` scalar, got {}; to use as boolean Tensor, use `tf.cast`; to check for None, use `is not None`",
                shown()
            )));
        }
        if t.rank() > 0 && t.dims().iter().product::<usize>() != 1 {
            return Err(value_error(format!(
                "condition of {tag} expected to be `tf.bool` scalar, got {}; to check for None, use `is not None`",
                shown()
            )));
        }
        Ok(t.clone())
    }

    /// The `If` node of a converted `if`: `branches` traced in turn (the
    /// one at `rest.1` followed by `rest.0`), the names they bind that
    /// other code reads as its outputs.
    fn ag_if(
        &self,
        f: &mut Frame,
        s: &Stmt,
        pred: &Tensor,
        branches: [&[Stmt]; 2],
        rest: Option<(&[Stmt], usize)>,
    ) -> PyResult<Flow> {
        let mut names: Vec<&Name> = Vec::new();
        for b in branches.iter().copied().chain(rest.map(|r| r.0)) {
            analysis::assigned(b, &mut names);
        }
        let func = f.function.clone();
        let fbody: &[Stmt] = func.as_ref().map_or(&[], |func| &func.def.body);
        if names
            .iter()
            .any(|n| matches!(n.slot.get(), Slot::Global(_) | Slot::ClassBody(_)))
        {
            // a global bound in a branch: not converted (TensorFlow's
            // autograph would thread it through; dist runs the Python `if`)
            return self.ag_python_if(f, pred, branches, rest);
        }
        // the node's outputs in autograph's order: by name
        let mut live: Vec<&Name> = if rest.is_some() {
            Vec::new()
        } else {
            names
                .iter()
                .copied()
                .filter(|n| {
                    matches!(n.slot.get(), Slot::Cell(_)) || analysis::live_after(fbody, s, &n.id)
                })
                .collect()
        };
        live.sort_by(|a, b| a.id.cmp(&b.id));
        let (in_loop, python_loop) = self.ag_loop_of(s);
        let exits = branches
            .iter()
            .copied()
            .chain(rest.map(|r| r.0))
            .any(|b| analysis::has_exit(b, false, true));
        if exits && python_loop {
            // a loop dist runs as Python: its break/continue are Python's
            return self.ag_python_if(f, pred, branches, rest);
        }
        let in_loop = in_loop && (exits || self.ag_flags_symbolic());
        let saved: Vec<Option<Value>> = names.iter().map(|n| self.ag_read(f, n)).collect();
        let saved_flags = in_loop.then(|| {
            let ag = self.ag.borrow();
            let l = ag.loops.last().expect("in a loop");
            (l.brk.clone(), l.cont.clone())
        });
        let mut defined = [Vec::new(), Vec::new()];
        let mut returned = [false, false];
        let mut flows = [Flow::Normal, Flow::Normal];
        let taken = graph::paused(|| pred.item())
            .map_err(crate::object::tensor::convert::runtime_err)?
            .as_f64()
            != 0.0;
        let mut traced = Vec::with_capacity(2);
        for k in 0..2 {
            let mut run = || -> PyResult<Value> {
                for (n, v) in names.iter().zip(&saved) {
                    self.ag_write(f, n, v.clone());
                }
                if let Some((b, c)) = &saved_flags {
                    let mut ag = self.ag.borrow_mut();
                    let l = ag.loops.last_mut().expect("in a loop");
                    (l.brk, l.cont) = (b.clone(), c.clone());
                }
                let mut flow = self.exec_block(f, branches[k])?;
                if let (Flow::Normal, Some((r, at))) = (flow, rest) {
                    if at == k {
                        flow = self.exec_block(f, r)?;
                    }
                }
                let mut out = Vec::new();
                match flow {
                    Flow::Return => {
                        returned[k] = true;
                        out.push(f.take_ret());
                    }
                    Flow::Break | Flow::Continue => {
                        if !in_loop {
                            return Err(self.ag_python_loop_exit());
                        }
                        let mut ag = self.ag.borrow_mut();
                        let l = ag.loops.last_mut().expect("in a loop");
                        match flow {
                            Flow::Break => l.brk = Value::Bool(true),
                            _ => l.cont = Value::Bool(true),
                        }
                    }
                    _ => {}
                }
                flows[k] = flow;
                for n in &live {
                    let v = self.ag_read(f, n);
                    defined[k].push(v.is_some());
                    out.push(v.unwrap_or(Value::None));
                }
                if in_loop {
                    let ag = self.ag.borrow();
                    let l = ag.loops.last().expect("in a loop");
                    out.push(l.brk.clone());
                    out.push(l.cont.clone());
                }
                Ok(Value::tuple(out))
            };
            traced.push(ag_branch(self, &mut run)?);
        }
        // autograph's checks, main branch first
        let branch_name = ["main", "else"];
        for k in 0..2 {
            if returned[k] != returned[1 - k] && !returned[k] {
                return Err(value_error(format!(
                    "the {} branch must also have a return statement.",
                    branch_name[k]
                )));
            }
            for (i, n) in live.iter().enumerate() {
                if !defined[k][i] && defined[1 - k][i] {
                    return Err(value_error(format!(
                        "'{}' must also be initialized in the {} branch",
                        n.id, branch_name[k]
                    )));
                }
            }
        }
        let off = usize::from(returned[0]);
        let parts: Vec<Vec<Value>> = traced
            .iter()
            .map(|t| match &t.result {
                Value::Tuple(xs) => xs.to_vec(),
                _ => Vec::new(),
            })
            .collect();
        for (i, n) in live.iter().enumerate() {
            if !defined[0][i] {
                continue;
            }
            verify_single(&n.id, &parts[0][off + i], &parts[1][off + i])?;
        }
        if traced[0].outs.len() != traced[1].outs.len() {
            return Err(PyErr::new(
                ExcType::TypeError,
                "the main and else branches of a converted if bind values of other structures",
            ));
        }
        let result = control::finish_cond(self, pred, taken, [&traced[0], &traced[1]])?;
        let outs = match result {
            Value::Tuple(xs) => xs.to_vec(),
            _ => Vec::new(),
        };
        // the names as the node leaves them (the others as before the if,
        // but for values only the branches read)
        for (n, v) in names.iter().zip(&saved) {
            self.ag_write(f, n, v.clone());
        }
        let mut it = outs.into_iter();
        if returned[0] {
            let r = it.next().unwrap_or(Value::None);
            std::mem::replace(&mut f.ret, r).discard();
        }
        for (i, n) in live.iter().enumerate() {
            let v = it.next();
            if defined[0][i] {
                self.ag_write(f, n, v);
            }
        }
        let mut symbolic = false;
        if in_loop {
            let (b, c) = (it.next(), it.next());
            let mut ag = self.ag.borrow_mut();
            let l = ag.loops.last_mut().expect("in a loop");
            if let (Some(b), Some(c)) = (b, c) {
                symbolic = matches!(b, Value::Tensor(_)) || matches!(c, Value::Tensor(_));
                (l.brk, l.cont) = (b, c);
            }
        }
        Ok(if returned[0] && returned[1] {
            Flow::Return
        } else if flows[0] == flows[1] && !matches!(flows[0], Flow::Normal | Flow::Guard) {
            flows[0]
        } else if symbolic {
            Flow::Guard
        } else {
            Flow::Normal
        })
    }

    /// An `if` on a tensor that is not converted: the Python `if` (its
    /// host read taints the graph).
    fn ag_python_if(
        &self,
        f: &mut Frame,
        pred: &Tensor,
        branches: [&[Stmt]; 2],
        rest: Option<(&[Stmt], usize)>,
    ) -> PyResult<Flow> {
        let k = if self.ag_lenient(|| self.is_true(&Value::Tensor(pred.clone())))? {
            0
        } else {
            1
        };
        let flow = self.exec_block(f, branches[k])?;
        match (flow, rest) {
            (Flow::Normal, Some((r, _))) => self.exec_block(f, r),
            _ => Ok(flow),
        }
    }

    /// Whether `s` is in the body of the converted loop being traced with
    /// no loop between (a `break` there is the loop's).
    /// (whether `s` is in the innermost converted loop's body with no loop
    /// between, whether that loop runs as Python).
    fn ag_loop_of(&self, s: &Stmt) -> (bool, bool) {
        let ag = self.ag.borrow();
        let Some(l) = ag.loops.last() else {
            return (false, false);
        };
        // SAFETY: the loop's body is borrowed by the frame running it,
        // below this call
        let body = unsafe { &*l.body };
        let direct = analysis::loop_between(body, s) == Some(false);
        (direct && !l.python, direct && l.python)
    }

    /// Whether the innermost converted loop's flags are tensors now.
    fn ag_flags_symbolic(&self) -> bool {
        let ag = self.ag.borrow();
        ag.loops.last().is_some_and(|l| {
            matches!(l.brk, Value::Tensor(_)) || matches!(l.cont, Value::Tensor(_))
        })
    }

    /// TensorFlow's error for a `break` or `return` under a tensor
    /// condition inside a Python loop.
    fn ag_python_loop_exit(&self) -> PyErr {
        PyErr::new(
            ExcType::NotImplementedError,
            "break and return statements which depend on a TF condition are not supported in Python for loops. Did you intend to make it a TF loop?\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types for more info.",
        )
    }
}
