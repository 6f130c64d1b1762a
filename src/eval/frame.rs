//! Call frames: local slots, cells shared with closures, and the class
//! namespaces of class bodies being executed in this frame.

use std::cell::RefCell;
use std::rc::Rc;

use crate::syntax::SourceFile;
use crate::value::{CellRef, Function, Value};

/// A class namespace under construction.
#[derive(Clone)]
pub struct ClassNs {
    /// The names the body binds (unused while `mapping` is set).
    pub ns: Rc<RefCell<crate::value::Namespace>>,
    /// The mapping a metaclass's `__prepare__` returned when it is not a
    /// dict (enum's): the body's names are stored and read through its
    /// `__setitem__`/`__getitem__`/`__delitem__`.
    pub mapping: Option<Value>,
}

/// One activation of a function (or the module's top level).
// `repr(C)`, in this order: a call builds the frame from its locals and
// function in place; with the fields reordered, the locals were copied in
// through a 16-byte load that straddled two earlier stores (a missed store
// forward at every call).
#[repr(C)]
pub struct Frame {
    /// Plain locals (None: unbound).
    pub locals: Vec<Option<Value>>,
    /// Own cells, then captured free-variable cells.
    pub cells: Vec<CellRef>,
    /// What tracebacks name this frame by, when it is not the running
    /// function's own file and name (the module's top level, a
    /// comprehension); a function's frame leaves it empty, so a call clones
    /// one `Rc` (the function) rather than three.
    pub label: Option<Box<FrameLabel>>,
    /// The running function (for zero-argument `super()`; a comprehension's
    /// frame holds the enclosing function's).
    pub function: Option<Rc<Function>>,
    /// Class bodies executing in this frame, innermost last.
    pub class_ns: Vec<ClassNs>,
    /// The value of the `return` that is ending this frame's code
    /// (`Flow::Return`).
    pub ret: Value,
}

/// A frame's file and traceback name, where they are not its function's.
pub struct FrameLabel {
    /// The file being executed.
    pub source: Rc<SourceFile>,
    /// The name shown in tracebacks (`<module>`, `<listcomp>`).
    pub name: Rc<str>,
}

impl Frame {
    /// Moves the returned value out, leaving None. An int (what hot
    /// functions return) is read as its tag and its payload, two 8-byte
    /// loads: a `return` wrote it as two 8-byte stores, and one 16-byte
    /// load of both would miss store forwarding (measured: the hottest
    /// instruction of a call).
    #[inline(always)]
    pub fn take_ret(&mut self) -> Value {
        if let Value::Int(i) = self.ret {
            // An int owns nothing: overwriting it needs no drop.
            std::mem::forget(std::mem::replace(&mut self.ret, Value::None));
            return Value::Int(i);
        }
        std::mem::take(&mut self.ret)
    }

    /// The top-level frame of a module.
    pub fn module(source: Rc<SourceFile>) -> Frame {
        Frame {
            locals: Vec::new(),
            cells: Vec::new(),
            label: Some(Box::new(FrameLabel {
                source,
                name: "<module>".into(),
            })),
            function: None,
            class_ns: Vec::new(),
            ret: Value::None,
        }
    }

    /// The frame of a call of `function` (its locals still to be bound).
    #[inline]
    pub fn call(function: &Rc<Function>, locals: Vec<Option<Value>>, cells: Vec<CellRef>) -> Frame {
        Frame::call_owned(function.clone(), locals, cells)
    }

    /// [`Frame::call`] taking the caller's reference to the function.
    #[inline(always)]
    pub fn call_owned(
        function: Rc<Function>,
        locals: Vec<Option<Value>>,
        cells: Vec<CellRef>,
    ) -> Frame {
        Frame {
            locals,
            cells,
            label: None,
            function: Some(function),
            class_ns: Vec::new(),
            ret: Value::None,
        }
    }

    /// The file being executed (for tracebacks, `--trace` lines).
    pub fn source(&self) -> &Rc<SourceFile> {
        match (&self.label, &self.function) {
            (Some(l), _) => &l.source,
            (None, Some(fun)) => &fun.source,
            (None, None) => unreachable!("a frame has a label or a function"),
        }
    }

    /// The name shown in tracebacks (`f`, `<module>`, `<listcomp>`).
    pub fn name(&self) -> &Rc<str> {
        match (&self.label, &self.function) {
            (Some(l), _) => &l.name,
            (None, Some(fun)) => &fun.def.name,
            (None, None) => unreachable!("a frame has a label or a function"),
        }
    }
}
