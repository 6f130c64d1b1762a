//! Comprehensions: list, set and dict comprehensions run their loops in a
//! frame of their own; a generator expression runs them lazily on a
//! generator's coroutine. The outermost iterable is evaluated in the
//! enclosing frame, as CPython does.

use std::rc::Rc;

use crate::eval::frame::Frame;
use crate::eval::Interp;
use crate::syntax::ast::*;
use crate::value::dict::{key_set_insert, Dict, KeySet, SetObj};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

impl Interp {
    pub(super) fn eval_comprehension(
        &self,
        f: &mut Frame,
        c: &Rc<Comprehension>,
    ) -> PyResult<Value> {
        let scope = c.scope.borrow().clone();
        // The outermost iterable is evaluated and iterated here, as CPython
        // does (`(x for x in 5)` fails at once); the rest runs in the loops.
        let first_iter = self.eval(f, &c.generators[0].iter)?;
        let first = self
            .start_iter(&first_iter)
            .map_err(|e| self.locate(f, c.generators[0].iter.span, e))?;
        let mut inner = Frame {
            locals: vec![None; scope.num_locals as usize],
            cells: (0..scope.num_cells).map(|_| self.new_cell()).collect(),
            label: Some(Box::new(crate::eval::frame::FrameLabel {
                source: f.source().clone(),
                name: match c.kind {
                    CompKind::List => "<listcomp>".into(),
                    CompKind::Set => "<setcomp>".into(),
                    CompKind::Dict => "<dictcomp>".into(),
                    CompKind::Generator => "<genexpr>".into(),
                },
            })),
            function: f.function.clone(),
            class_ns: Vec::new(),
            ret: Value::None,
        };
        for slot in &scope.free {
            inner.cells.push(self.cell_of(f, *slot));
        }
        if c.kind == CompKind::Generator {
            // A generator expression is a generator: its loops run lazily,
            // one item per `next()`, on the generator's coroutine.
            let qualname: Rc<str> = match &f.function {
                Some(fun) => format!("{}.<locals>.<genexpr>", fun.def.qualname).into(),
                None => "<genexpr>".into(),
            };
            let c = c.clone();
            return self.spawn_generator(
                qualname,
                "<genexpr>".into(),
                false,
                None,
                move |interp| {
                    let mut out = CompOut::Yield;
                    interp.comp_level(&mut inner, &c, 0, Some(first), &mut out)?;
                    Ok(Value::None)
                },
            );
        }
        let mut out = CompOut::new(c.kind);
        if let Err(mut e) = self.comp_level(&mut inner, c, 0, Some(first), &mut out) {
            // The comprehension ran as a frame of its own: the enclosing
            // expression adds the caller's traceback entry, as for a call.
            e.0.located = false;
            return Err(e);
        }
        out.finish()
    }

    fn comp_level(
        &self,
        f: &mut Frame,
        c: &Comprehension,
        level: usize,
        first: Option<crate::eval::iter::IterState>,
        out: &mut CompOut,
    ) -> PyResult<()> {
        let g = &c.generators[level];
        let mut it = match first {
            Some(it) => it,
            None => {
                let iterable = self.eval(f, &g.iter)?;
                self.start_iter(&iterable)?
            }
        };
        'items: while let Some(item) = self.step_iter(&mut it)? {
            self.check_interrupt()?;
            self.assign(f, &g.target, item)?;
            for cond in &g.ifs {
                let t = self.eval(f, cond)?;
                if !self.is_true(&t)? {
                    continue 'items;
                }
            }
            if level + 1 < c.generators.len() {
                self.comp_level(f, c, level + 1, None, out)?;
            } else {
                let v = self.eval(f, &c.elt)?;
                match c.kind {
                    CompKind::Dict => {
                        let val = match &c.value {
                            Some(e) => self.eval(f, e)?,
                            None => Value::None,
                        };
                        out.push_pair(self, v, val)?;
                    }
                    CompKind::Generator => {
                        self.yield_value(v)?.discard();
                    }
                    _ => out.push(self, v)?,
                }
            }
        }
        Ok(())
    }
}

enum CompOut {
    List(Vec<Value>),
    Set(KeySet),
    Dict(Dict),
    /// A generator expression's items are yielded as they come.
    Yield,
}

impl CompOut {
    fn new(kind: CompKind) -> CompOut {
        match kind {
            CompKind::List => CompOut::List(Vec::new()),
            CompKind::Set => CompOut::Set(KeySet::default()),
            CompKind::Dict => CompOut::Dict(Dict::new()),
            CompKind::Generator => CompOut::Yield,
        }
    }

    fn push(&mut self, vm: &dyn Vm, v: Value) -> PyResult<()> {
        match self {
            CompOut::List(l) => {
                l.try_reserve(1)
                    .map_err(|_| PyErr::with_args(ExcType::MemoryError, Vec::new()))?;
                l.push(v);
            }
            CompOut::Set(s) => {
                key_set_insert(vm, s, v)?;
            }
            CompOut::Dict(_) | CompOut::Yield => {}
        }
        Ok(())
    }

    fn push_pair(&mut self, vm: &dyn Vm, k: Value, v: Value) -> PyResult<()> {
        if let CompOut::Dict(d) = self {
            d.insert_vm(vm, k, v)?;
        }
        Ok(())
    }

    fn finish(self) -> PyResult<Value> {
        Ok(match self {
            CompOut::List(l) => Value::list(l),
            CompOut::Set(s) => Value::Set(Rc::new(SetObj::new(s, false))),
            CompOut::Dict(d) => Value::dict(d),
            CompOut::Yield => Value::None,
        })
    }
}
