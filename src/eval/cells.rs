//! The cells of an interpreter's frames (variables that inner functions
//! capture), kept by weak reference so that dropping the interpreter can
//! break the reference cycles they are part of. A function that refers to
//! itself through its enclosing scope (`def inner(): return inner(...)`
//! inside `outer`) holds its closure, which holds the cell, which holds the
//! function: without a cycle collector nothing frees it. CPython's collector
//! finds such cycles as garbage during a run; dist breaks them when the
//! interpreter goes (`Interpreter`'s drop, the REPL's `:reset`), so a
//! process that makes many interpreters (the fuzz harness, `dist doctest`)
//! does not grow with each. Cycles made and dropped during one run still
//! live until then.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use super::{generator, Interp};
use crate::value::{CellRef, Value};

/// The cells an interpreter made, by weak reference.
#[derive(Default)]
pub struct Cells {
    made: Vec<Weak<RefCell<Option<Value>>>>,
    /// The length at which the dead ones are next swept out (twice the
    /// live count at the last sweep: amortised O(1) per cell).
    sweep_at: usize,
}

impl Interp {
    /// A new empty cell of a frame, registered so [`Interp::break_cycles`]
    /// reaches it.
    #[inline]
    pub(crate) fn new_cell(&self) -> CellRef {
        let cell: CellRef = Rc::new(RefCell::new(None));
        let mut cells = self.cells.borrow_mut();
        if cells.made.len() >= cells.sweep_at {
            cells.made.retain(|w| w.strong_count() > 0);
            cells.sweep_at = (cells.made.len() * 2).max(64);
        }
        cells.made.push(Rc::downgrade(&cell));
        cell
    }

    /// Empties every cell still alive, so the functions, frames and values
    /// that reach each other only through cells are freed; finalizers that
    /// this makes due (`__del__`, generators' `close`) run now, while the
    /// interpreter is still there. For an interpreter that runs no more code.
    pub(crate) fn break_cycles(&self) {
        let made = std::mem::take(&mut self.cells.borrow_mut().made);
        for cell in made.iter().filter_map(Weak::upgrade) {
            let value = cell.borrow_mut().take();
            drop(value);
            if generator::dropped_pending() {
                self.close_dropped();
            }
        }
    }
}
