//! Names: reading a name from its slot (locals, cells, globals then
//! builtins, a class body's namespace), the errors for unbound and
//! undefined names with what the "Did you mean" suggestion needs, and the
//! cells closures capture.

use std::cell::RefCell;
use std::rc::Rc;

use crate::eval::frame::Frame;
use crate::eval::Interp;
use crate::syntax::ast::*;
use crate::syntax::Span;
use crate::value::{ExcType, PyErr, PyResult, Value};

impl Interp {
    /// Reads a name: a bound plain local inline, anything else through [`Interp::load_name`].
    #[inline]
    pub(crate) fn load_fast(&self, f: &Frame, n: &Name, span: Span) -> PyResult<Value> {
        match n.slot.get() {
            Slot::Local(i) => {
                if let Some(v) = &f.locals[i as usize] {
                    return Ok(v.clone());
                }
            }
            Slot::Global(i) => {
                if let Some(Some(v)) = self.globals.borrow().get(i as usize) {
                    return Ok(v.clone());
                }
            }
            Slot::Builtin(i) => {
                if let Some(Some(v)) = self.builtin_slots.borrow().get(i as usize) {
                    return Ok(v.clone());
                }
            }
            _ => {}
        }
        self.load_name(f, n, span)
    }

    /// Reads a name from its slot.
    pub fn load_name(&self, f: &Frame, n: &Name, span: Span) -> PyResult<Value> {
        let _ = span;
        match n.slot.get() {
            Slot::Local(i) => match &f.locals[i as usize] {
                Some(v) => Ok(v.clone()),
                None => Err(unbound_local(&n.id)),
            },
            Slot::Cell(i) => match &*f.cells[i as usize].borrow() {
                Some(v) => Ok(v.clone()),
                None => Err(
                    if (i as usize) < f.locals.len() + f.cells.len() && self.is_own_cell(f, i) {
                        unbound_local(&n.id)
                    } else {
                        PyErr::new(
                        ExcType::NameError,
                        format!(
                            "cannot access free variable '{}' where it is not associated with a value in enclosing scope",
                            n.id
                        ),
                    )
                    },
                ),
            },
            Slot::Global(i) => self.load_global(i, &n.id),
            Slot::ClassBody(i) | Slot::ClassBuiltin(i) => {
                if let Some(ns) = f.class_ns.last() {
                    if let Some(m) = &ns.mapping {
                        match self.get_item(m, &Value::str(&*n.id)) {
                            Err(e) if e.is(ExcType::KeyError) => {}
                            r => return r,
                        }
                    } else if let Some(v) = ns.ns.borrow().get(&n.id) {
                        return Ok(v.clone());
                    }
                }
                // a standard-library class body falls back to the builtins
                if matches!(n.slot.get(), Slot::ClassBuiltin(_)) {
                    self.load_builtin(i, &n.id)
                } else {
                    self.load_global(i, &n.id)
                }
            }
            Slot::Builtin(i) => self.load_builtin(i, &n.id),
            Slot::Unresolved => Err(PyErr::new(
                ExcType::NameError,
                format!("name '{}' is not defined", n.id),
            )),
        }
        .map_err(|e| name_error_details(e, f, &n.id))
    }

    fn is_own_cell(&self, f: &Frame, i: u32) -> bool {
        match &f.function {
            Some(func) => i < func.def.scope.borrow().num_cells,
            None => true,
        }
    }

    #[inline]
    fn load_global(&self, i: u32, name: &str) -> PyResult<Value> {
        if let Some(v) = self.global_slot(i) {
            return Ok(v);
        }
        if let Some(Some(v)) = self.builtin_slots.borrow().get(i as usize) {
            return Ok(v.clone());
        }
        Err(PyErr::new(
            ExcType::NameError,
            format!("name '{}' is not defined", name),
        ))
    }

    /// Reads builtin slot `i` (a standard-library name: never a global).
    fn load_builtin(&self, i: u32, name: &str) -> PyResult<Value> {
        if let Some(Some(v)) = self.builtin_slots.borrow().get(i as usize) {
            return Ok(v.clone());
        }
        Err(PyErr::new(
            ExcType::NameError,
            format!("name '{}' is not defined", name),
        ))
    }

    /// The cell for a free-variable source slot of the current frame.
    pub fn cell_of(&self, f: &mut Frame, slot: Slot) -> crate::value::CellRef {
        match slot {
            Slot::Cell(i) => f.cells[i as usize].clone(),
            // The resolver only ever names cells as free-variable sources.
            _ => Rc::new(RefCell::new(None)),
        }
    }
}

/// `UnboundLocalError` for a local read or deleted before it is assigned.
#[cold]
pub(crate) fn unbound_local(name: &str) -> PyErr {
    PyErr::new(
        ExcType::UnboundLocalError,
        format!("cannot access local variable '{name}' where it is not associated with a value"),
    )
}

/// Records the name (and the frame's local names) on a NameError, for the
/// "Did you mean" suggestion the traceback shows.
#[cold]
fn name_error_details(e: PyErr, f: &Frame, name: &str) -> PyErr {
    if let Value::Instance(inst) = e.value() {
        if e.is(ExcType::NameError) && !e.is(ExcType::UnboundLocalError) {
            inst.set_attr("name", Value::str(name));
            if let Some(func) = &f.function {
                let names = func
                    .def
                    .scope
                    .borrow()
                    .local_names
                    .iter()
                    .map(|n| Value::str(&**n))
                    .collect();
                inst.set_attr("_dist_locals", Value::tuple(names));
            }
        }
    }
    e
}
