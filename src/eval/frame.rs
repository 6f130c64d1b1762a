//! Call frames: local slots, cells shared with closures, and the class
//! namespaces of class bodies being executed in this frame.

use std::cell::RefCell;
use std::rc::Rc;

use crate::syntax::SourceFile;
use crate::value::{CellRef, Function, Value};

/// A class namespace under construction.
pub type ClassNs = Rc<RefCell<crate::value::Namespace>>;

/// One activation of a function (or the module's top level).
pub struct Frame {
    /// Plain locals (None: unbound).
    pub locals: Vec<Option<Value>>,
    /// Own cells, then captured free-variable cells.
    pub cells: Vec<CellRef>,
    /// The file being executed (for tracebacks).
    pub source: Rc<SourceFile>,
    /// The function name shown in tracebacks (`<module>` at top level).
    pub name: Rc<str>,
    /// The running function (for zero-argument `super()`).
    pub function: Option<Rc<Function>>,
    /// Class bodies executing in this frame, innermost last.
    pub class_ns: Vec<ClassNs>,
}

impl Frame {
    /// The top-level frame of a module.
    pub fn module(source: Rc<SourceFile>) -> Frame {
        Frame {
            locals: Vec::new(),
            cells: Vec::new(),
            source,
            name: "<module>".into(),
            function: None,
            class_ns: Vec::new(),
        }
    }
}
