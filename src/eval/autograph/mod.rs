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

use std::cell::RefCell;
use std::rc::Rc;

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

/// How a converted loop steps.
enum Steps<'a> {
    /// `while test:`.
    While(&'a Expr),
    /// `for target in tf.range(start, limit, delta)`.
    Range(&'a Expr, [Tensor; 3]),
    /// `for target in tensor`: its rows.
    Rows(&'a Expr, Tensor),
}

fn value_error(msg: impl Into<String>) -> PyErr {
    PyErr::new(ExcType::ValueError, msg.into())
}

impl Interp {
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
                return if self.is_true(&v)? {
                    self.exec_block(f, body)
                } else {
                    self.exec_block(f, orelse)
                }
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
        let fbody: &[Stmt] = match &f.function {
            Some(func) => &func.def.body,
            None => &[],
        };
        // SAFETY-free liveness: the function's body outlives this call
        let fbody: *const [Stmt] = fbody;
        let fbody = unsafe { &*fbody };
        if names
            .iter()
            .any(|n| matches!(n.slot.get(), Slot::Global(_) | Slot::ClassBody(_)))
        {
            // a global bound in a branch: not converted (TensorFlow's
            // autograph would thread it through; dist runs the Python `if`)
            return self.ag_python_if(f, pred, branches, rest);
        }
        let live: Vec<&Name> = if rest.is_some() {
            Vec::new()
        } else {
            names
                .iter()
                .copied()
                .filter(|n| {
                    matches!(n.slot.get(), Slot::Cell(_)) || analysis::used_outside(fbody, s, &n.id)
                })
                .collect()
        };
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
            match control::trace_branch(self, &mut run)? {
                Some(t) => traced.push(t),
                None => {
                    return Err(PyErr::new(
                        ExcType::SystemError,
                        "autograph outside a trace",
                    ))
                }
            }
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
            let (a, b) = (&parts[0][off + i], &parts[1][off + i]);
            for (k, v) in [a, b].into_iter().enumerate() {
                if matches!(v, Value::None) {
                    return Err(value_error(format!(
                        "'{}' is None at the end of the {} branch.",
                        n.id, branch_name[k]
                    )));
                }
            }
            if let (Value::Tensor(x), Value::Tensor(y)) = (a, b) {
                if x.dtype() != y.dtype() {
                    return Err(PyErr::new(
                        ExcType::TypeError,
                        format!(
                            "'{}' has dtype {} in the main branch, but dtype {} in the else branch",
                            n.id,
                            x.dtype().name(),
                            y.dtype().name()
                        ),
                    ));
                }
            }
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
        let k = if self.is_true(&Value::Tensor(pred.clone()))? {
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

    /// `while test:` while a graph traces: converted when the test is a
    /// tensor in user code; otherwise the Python loop.
    pub(super) fn ag_while_stmt(
        &self,
        f: &mut Frame,
        s: &Stmt,
        test: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> PyResult<Flow> {
        let v = self.eval(f, test)?;
        let depth = self.ag.borrow().loops.len();
        if let Value::Tensor(t) = &v {
            if self.ag_on(f) && orelse.is_empty() {
                self.ag_condition(t, "while loop")?;
                if let Some(flow) = self.ag_loop(f, s, Steps::While(test), body)? {
                    return Ok(flow);
                }
            }
        }
        let r = self.exec_while(f, test, body, orelse, Some(v));
        self.ag.borrow_mut().loops.truncate(depth);
        r
    }

    /// `for target in iter:` while a graph traces: converted for
    /// `tf.range(...)` and tensors in user code; otherwise the Python loop.
    pub(super) fn ag_for_stmt(
        &self,
        f: &mut Frame,
        s: &Stmt,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> PyResult<Flow> {
        let on = self.ag_on(f) && orelse.is_empty();
        let depth = self.ag.borrow().loops.len();
        let iterable = match &iter.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } if on
                && keywords.is_empty()
                && (1..=3).contains(&args.len())
                && args.iter().all(|a| !matches!(a.kind, ExprKind::Starred(_))) =>
            {
                let fv = self.eval(f, func)?;
                let mut argv = Vec::with_capacity(args.len());
                for a in args {
                    argv.push(self.eval(f, a)?);
                }
                if let Some(bounds) = self.ag_range_bounds(&fv, &argv)? {
                    if let Some(flow) = self.ag_loop(f, s, Steps::Range(target, bounds), body)? {
                        return Ok(flow);
                    }
                }
                self.call_value(&fv, argv, Vec::new())
                    .map_err(|e| self.locate(f, iter.span, e))?
            }
            _ => self.eval(f, iter)?,
        };
        let tried = self.ag.borrow().loops.len() > depth;
        if let (true, false, Value::Tensor(t)) = (on, tried, &iterable) {
            if t.rank() >= 1 {
                if let Some(flow) = self.ag_loop(f, s, Steps::Rows(target, t.clone()), body)? {
                    return Ok(flow);
                }
            }
        }
        let r = self.exec_for_value(f, target, iterable, body, orelse);
        self.ag.borrow_mut().loops.truncate(depth);
        r
    }

    /// `tf.range(...)`'s start, limit and delta as int32 tensors, when
    /// `fv` is `tf.range` called on ints.
    fn ag_range_bounds(&self, fv: &Value, argv: &[Value]) -> PyResult<Option<[Tensor; 3]>> {
        let (Value::NativeFunction(a), Ok(Value::NativeFunction(b))) = (fv, self.tf_fn("range"))
        else {
            return Ok(None);
        };
        if !Rc::ptr_eq(a, &b) {
            return Ok(None);
        }
        let int = |v: &Value| -> Option<Tensor> {
            match v {
                Value::Tensor(t) if t.dtype() == DType::Int32 && t.rank() == 0 => Some(t.clone()),
                Value::Int(i) => i32::try_from(*i).ok().map(Tensor::scalar::<i32>),
                _ => None,
            }
        };
        let xs: Option<Vec<Tensor>> = argv.iter().map(int).collect();
        let Some(mut xs) = xs else {
            return Ok(None);
        };
        if xs.len() == 1 {
            xs.insert(0, Tensor::scalar::<i32>(0));
        }
        if xs.len() == 2 {
            xs.push(Tensor::scalar::<i32>(1));
        }
        for t in &mut xs {
            if !graph::is_symbolic(t) {
                graph::constant(t);
            }
        }
        Ok(Some([xs[0].clone(), xs[1].clone(), xs[2].clone()]))
    }

    /// A converted loop (None: not one dist converts; nothing ran).
    fn ag_loop(
        &self,
        f: &mut Frame,
        s: &Stmt,
        steps: Steps,
        body: &[Stmt],
    ) -> PyResult<Option<Flow>> {
        if analysis::has_exit(body, true, false) {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "a return statement cannot be placed inside this TensorFlow loop; this may happen if a return statement depends on a static Python condition such as a hyperparameter",
            ));
        }
        let target = match &steps {
            Steps::While(_) => None,
            Steps::Range(t, _) | Steps::Rows(t, _) => match &t.kind {
                ExprKind::Name(n) if matches!(n.slot.get(), Slot::Local(_) | Slot::Cell(_)) => {
                    Some(n)
                }
                _ => return Ok(None),
            },
        };
        let mut assigned = Vec::new();
        analysis::assigned(body, &mut assigned);
        if assigned
            .iter()
            .any(|n| !matches!(n.slot.get(), Slot::Local(_) | Slot::Cell(_)))
        {
            return Ok(None);
        }
        let fbody: &[Stmt] = match &f.function {
            Some(func) => &func.def.body,
            None => return Ok(None),
        };
        let fbody: *const [Stmt] = fbody;
        // SAFETY: the function (and its body) outlives this call
        let fbody = unsafe { &*fbody };
        let mut vars: Vec<&Name> = Vec::new();
        for n in assigned {
            if target.is_some_and(|t| t.id == n.id) {
                continue;
            }
            if self.ag_read(f, n).is_some() {
                vars.push(n);
            } else if analysis::used_outside(fbody, s, &n.id) {
                // defined only in the loop and read after it: TensorFlow
                // runs a first iteration to find its type; dist runs the
                // Python loop
                return Ok(None);
            }
        }
        let saved: Vec<Option<Value>> = vars.iter().map(|n| self.ag_read(f, n)).collect();
        let saved_target = target.map(|t| self.ag_read(f, t));
        let uses_break = analysis::has_exit(body, false, true);
        let mut init: Vec<Value> = saved
            .iter()
            .map(|v| v.clone().unwrap_or(Value::None))
            .collect();
        let nv = init.len();
        let (start, limit, delta, n_rows) = match &steps {
            Steps::While(_) => (None, None, None, None),
            Steps::Range(_, [a, b, c]) => (Some(a.clone()), Some(b.clone()), Some(c.clone()), None),
            Steps::Rows(_, t) => {
                let n = i32::try_from(t.dims()[0]).unwrap_or(i32::MAX);
                let lim = Tensor::scalar::<i32>(n);
                graph::constant(&lim);
                let z = Tensor::scalar::<i32>(0);
                graph::constant(&z);
                let one = Tensor::scalar::<i32>(1);
                graph::constant(&one);
                (Some(z), Some(lim), Some(one), Some(t.clone()))
            }
        };
        if let Some(st) = &start {
            init.push(Value::Tensor(st.clone()));
        }
        init.push(Value::Bool(false));
        let loop_vars = Value::tuple(init);
        self.ag.borrow_mut().loops.push(AgLoop {
            body,
            brk: Value::Bool(false),
            cont: Value::Bool(false),
            python: false,
        });
        graph::trial(true);
        // the Python output of the two traces is kept until the loop is
        // known to convert (a loop that does not runs as Python, printing
        // once per iteration)
        let buffer: Rc<RefCell<Vec<u8>>> = Rc::new(RefCell::new(Vec::new()));
        let out_saved = self.output.replace(buffer.clone());
        let fp: *mut Frame = f;
        let outcome = {
            let set_vars = |args: &[Value]| {
                // SAFETY: the frame is only used through this pointer while
                // the loop's closures run, one at a time
                let f = unsafe { &mut *fp };
                for (n, v) in vars.iter().zip(args) {
                    self.ag_write(f, n, Some(v.clone()));
                }
            };
            let mut cond = |args: Vec<Value>| -> PyResult<Value> {
                set_vars(&args);
                let f = unsafe { &mut *fp };
                let test = match &steps {
                    Steps::While(test) => self.eval(f, test)?,
                    Steps::Range(..) | Steps::Rows(..) => {
                        let (i, lim, d) = (
                            &args[nv],
                            Value::Tensor(limit.clone().expect("bounded")),
                            Value::Tensor(delta.clone().expect("bounded")),
                        );
                        let zero = Value::Int(0);
                        let up = self.binary_op(
                            BinOp::BitAnd,
                            &self.compare_op(CmpOp::GtE, &d, &zero)?,
                            &self.compare_op(CmpOp::Lt, i, &lim)?,
                        )?;
                        let down = self.binary_op(
                            BinOp::BitAnd,
                            &self.compare_op(CmpOp::Lt, &d, &zero)?,
                            &self.compare_op(CmpOp::Gt, i, &lim)?,
                        )?;
                        self.binary_op(BinOp::BitOr, &up, &down)?
                    }
                };
                if let Value::Tensor(t) = &test {
                    self.ag_condition(t, "while loop")?;
                }
                match args.last() {
                    Some(b @ Value::Tensor(_)) if uses_break => {
                        let nb = self.unary_op(UnaryOp::Invert, b)?;
                        self.binary_op(BinOp::BitAnd, &nb, &test)
                    }
                    _ => Ok(test),
                }
            };
            let mut step = |args: Vec<Value>| -> PyResult<Value> {
                set_vars(&args);
                let f = unsafe { &mut *fp };
                {
                    let mut ag = self.ag.borrow_mut();
                    let l = ag.loops.last_mut().expect("in a loop");
                    // the loop runs its body only while the flag is unset
                    l.brk = Value::Bool(false);
                    l.cont = Value::Bool(false);
                }
                let i = args.get(nv).cloned();
                if let (Some(t), Some(i)) = (target, &i) {
                    let item = match &n_rows {
                        Some(rows) => self.call_value(
                            &self.tf_fn("gather")?,
                            vec![Value::Tensor(rows.clone()), i.clone()],
                            Vec::new(),
                        )?,
                        None => i.clone(),
                    };
                    self.ag_write(f, t, Some(item));
                }
                let flow = self.exec_block(f, body)?;
                let mut out = Vec::with_capacity(args.len());
                for n in &vars {
                    match self.ag_read(f, n) {
                        Some(v) => out.push(v),
                        None => {
                            return Err(value_error(format!(
                                "'{}' must be defined before the loop",
                                n.id
                            )))
                        }
                    }
                }
                if let (Some(i), Some(d)) = (&i, &delta) {
                    out.push(self.binary_op(BinOp::Add, i, &Value::Tensor(d.clone()))?);
                }
                let brk = match flow {
                    Flow::Break => Value::Bool(true),
                    _ => self
                        .ag
                        .borrow()
                        .loops
                        .last()
                        .expect("in a loop")
                        .brk
                        .clone(),
                };
                out.push(brk);
                Ok(Value::tuple(out))
            };
            control::trace_while(self, &loop_vars, &mut cond, &mut step)
        };
        graph::trial(false);
        let outcome = match outcome {
            Err(_) if graph::take_trial_abandoned() => Ok(control::Loop::NotRecorded),
            other => other,
        };
        self.ag.borrow_mut().loops.pop();
        *self.output.borrow_mut() = out_saved;
        let restore = |f: &mut Frame| {
            for (n, v) in vars.iter().zip(&saved) {
                self.ag_write(f, n, v.clone());
            }
            if let (Some(t), Some(v)) = (target, &saved_target) {
                self.ag_write(f, t, v.clone());
            }
        };
        let flush = |ok: bool| -> PyResult<()> {
            if ok {
                let bytes = std::mem::take(&mut *buffer.borrow_mut());
                let out = self.output.borrow().clone();
                let _ = out.borrow_mut().write_all(&bytes);
            }
            Ok(())
        };
        match outcome {
            Err(e) => {
                flush(true)?;
                restore(f);
                Err(e)
            }
            Ok(control::Loop::NotRecorded) => {
                restore(f);
                self.ag.borrow_mut().loops.push(AgLoop {
                    body,
                    brk: Value::Bool(false),
                    cont: Value::Bool(false),
                    python: true,
                });
                Ok(None)
            }
            Ok(control::Loop::Changed(i, dtype, a, b)) => {
                flush(true)?;
                restore(f);
                let name = vars.get(i).map_or("loop variable", |n| &*n.id);
                Err(if dtype {
                    PyErr::new(
                        ExcType::TypeError,
                        format!(
                            "'{name}' has dtype {} before the loop, but dtype {} after one iteration",
                            a.dtype().name(),
                            b.dtype().name()
                        ),
                    )
                } else {
                    value_error(format!(
                        "'{name}' has shape {} before the loop, but shape {} after one iteration. Use tf.autograph.experimental.set_loop_options to set shape invariants.",
                        a.shape().tuple_text(),
                        b.shape().tuple_text()
                    ))
                })
            }
            Ok(control::Loop::Done(v)) => {
                flush(true)?;
                let finals = match v {
                    Value::Tuple(xs) => xs.to_vec(),
                    _ => Vec::new(),
                };
                restore(f);
                for (n, v) in vars.iter().zip(finals) {
                    self.ag_write(f, n, Some(v));
                }
                Ok(Some(Flow::Normal))
            }
        }
    }
}
