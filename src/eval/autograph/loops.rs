//! Autograph's loops: `while` on a tensor, `for` over `tf.range(...)` and
//! over a tensor's rows, as graph `While` nodes (see the parent module).

use std::cell::RefCell;
use std::rc::Rc;

use super::{analysis, value_error, AgLoop};
use crate::distribute::function::control;
use crate::eval::frame::Frame;
use crate::eval::{Flow, Interp};
use crate::runtime::{graph, DType, Tensor};
use crate::syntax::ast::*;
use crate::value::{ExcType, PyErr, PyResult, Value};

/// How a converted loop steps.
enum Steps<'a> {
    /// `while test:`.
    While(&'a Expr),
    /// `for target in tf.range(start, limit, delta)`.
    Range(&'a Expr, [Tensor; 3]),
    /// `for target in tensor`: its rows.
    Rows(&'a Expr, Tensor),
}

impl Interp {
    /// `while test:` while a graph traces: converted when the test is a
    /// tensor in user code; otherwise the Python loop.
    pub(in crate::eval) fn ag_while_stmt(
        &self,
        f: &mut Frame,
        s: &Stmt,
        test: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) -> PyResult<Flow> {
        let v = self.eval(f, test)?;
        let depth = self.ag.borrow().loops.len();
        let mut converted = false;
        if let Value::Tensor(t) = &v {
            if self.ag_on(f) {
                converted = true;
                if orelse.is_empty() {
                    self.ag_condition(t, "while loop")?;
                    if let Some(flow) = self.ag_loop(f, s, Steps::While(test), body)? {
                        return Ok(flow);
                    }
                }
            }
        }
        // a loop TensorFlow converts and dist runs as Python: its tests
        // may read tensors
        let r = self.exec_while(f, test, body, orelse, Some(v), converted);
        self.ag.borrow_mut().loops.truncate(depth);
        r
    }

    /// `for target in iter:` while a graph traces: converted for
    /// `tf.range(...)` and tensors in user code; otherwise the Python loop.
    pub(in crate::eval) fn ag_for_stmt(
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
        let mut iterable = iterable;
        if let (true, Value::Tensor(t)) = (on, &iterable) {
            if !tried && t.rank() >= 1 {
                if let Some(flow) = self.ag_loop(f, s, Steps::Rows(target, t.clone()), body)? {
                    return Ok(flow);
                }
            }
            // a loop TensorFlow converts and dist runs as Python: it may
            // iterate the tensor
            iterable = self.ag_lenient(|| crate::value::Vm::iter(self, &iterable))?;
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
        let Some(func) = f.function.clone() else {
            return Ok(None);
        };
        let fbody: &[Stmt] = &func.def.body;
        let mut vars: Vec<&Name> = Vec::new();
        for n in assigned {
            if target.is_some_and(|t| t.id == n.id) {
                continue;
            }
            let live = || {
                matches!(n.slot.get(), Slot::Cell(_))
                    || analysis::read_first(body, &n.id)
                    || matches!(&steps, Steps::While(t) if analysis::mentions(t, &n.id))
                    || analysis::live_after(fbody, s, &n.id)
            };
            if self.ag_read(f, n).is_some() {
                // autograph's loop variables: the names the loop changes
                // that it reads or that are read after it
                if live() {
                    vars.push(n);
                }
            } else if analysis::live_after(fbody, s, &n.id) {
                // defined only in the loop and read after it: TensorFlow
                // runs a first iteration to find its type; dist runs the
                // Python loop
                return Ok(None);
            }
        }
        // a target read after the loop is a loop variable too (its value
        // before the first iteration: zeros of an item's type)
        let mut zero_item = None;
        if let Some(t) = target.filter(|t| analysis::live_after(fbody, s, &t.id)) {
            vars.push(t);
            if self.ag_read(f, t).is_none() {
                let z = match &steps {
                    Steps::Rows(_, rows) => Tensor::fill(
                        &rows.dims()[1..],
                        &crate::runtime::Scalar::Int(0),
                        rows.dtype(),
                        rows.device(),
                    )
                    .map_err(crate::object::tensor::convert::runtime_err)?,
                    _ => Tensor::scalar::<i32>(0),
                };
                graph::constant(&z);
                zero_item = Some(Value::Tensor(z));
            }
        }
        // autograph's loop variables: the iterate first, then the names
        // in order (with the `break` flag as `break_`)
        vars.sort_by(|a, b| a.id.cmp(&b.id));
        let saved: Vec<Option<Value>> = vars.iter().map(|n| self.ag_read(f, n)).collect();
        let saved_target = target.map(|t| self.ag_read(f, t));
        let uses_break = analysis::has_exit(body, false, true);
        let off = usize::from(!matches!(steps, Steps::While(_)));
        let brk_at = uses_break.then(|| vars.iter().filter(|n| &*n.id < "break_").count());
        let var_pos = |i: usize| off + i + usize::from(brk_at.is_some_and(|b| i >= b));
        let brk_pos = brk_at.map(|b| off + b);
        let width = off + vars.len() + usize::from(uses_break);
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
        let mut init = vec![Value::Bool(false); width];
        for (i, v) in saved.iter().enumerate() {
            let zero = || {
                zero_item
                    .clone()
                    .filter(|_| target.is_some_and(|t| std::ptr::eq(t, vars[i])))
            };
            init[var_pos(i)] = v.clone().or_else(zero).unwrap_or(Value::None);
        }
        if let Some(st) = &start {
            init[0] = Value::Tensor(st.clone());
        }
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
                for (i, n) in vars.iter().enumerate() {
                    self.ag_write(f, n, Some(args[var_pos(i)].clone()));
                }
            };
            let mut cond = |args: Vec<Value>| -> PyResult<Value> {
                set_vars(&args);
                let f = unsafe { &mut *fp };
                let test = match &steps {
                    Steps::While(test) => self.eval(f, test)?,
                    Steps::Range(..) | Steps::Rows(..) => {
                        let (i, lim, d) = (
                            &args[0],
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
                match brk_pos.map(|p| &args[p]) {
                    Some(b @ Value::Tensor(_)) => {
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
                let i = (off == 1).then(|| args[0].clone());
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
                let mut out = vec![Value::None; width];
                for (k, n) in vars.iter().enumerate() {
                    match self.ag_read(f, n) {
                        Some(v) => out[var_pos(k)] = v,
                        None => {
                            return Err(value_error(format!(
                                "'{}' must be defined before the loop",
                                n.id
                            )))
                        }
                    }
                }
                if let (Some(i), Some(d)) = (&i, &delta) {
                    out[0] = self.binary_op(BinOp::Add, i, &Value::Tensor(d.clone()))?;
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
                if let Some(p) = brk_pos {
                    out[p] = brk;
                }
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
                let name = (0..vars.len())
                    .find(|&k| var_pos(k) == i)
                    .map_or("loop variable", |k| &*vars[k].id);
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
                for (k, n) in vars.iter().enumerate() {
                    self.ag_write(f, n, finals.get(var_pos(k)).cloned());
                }
                Ok(Some(Flow::Normal))
            }
        }
    }
}
