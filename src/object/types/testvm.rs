//! Unit tests of natives run on the real interpreter: `TestVm` wraps an
//! [`Interp`] whose output is captured, plus a few assertion helpers.

use std::cell::RefCell;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::builtin_class;
use crate::eval::Interp;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// An interpreter for tests; `out()` is what `print` wrote.
pub struct TestVm {
    interp: Interp,
    buf: Rc<RefCell<Vec<u8>>>,
}

impl Default for TestVm {
    fn default() -> TestVm {
        let buf = Rc::new(RefCell::new(Vec::new()));
        let interp = Interp::new(buf.clone(), Arc::new(AtomicBool::new(false)));
        TestVm { interp, buf }
    }
}

impl Deref for TestVm {
    type Target = Interp;

    fn deref(&self) -> &Interp {
        &self.interp
    }
}

impl TestVm {
    /// Captured standard output.
    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.buf.borrow()).into_owned()
    }

    /// Calls `recv.name(*args)` through the type's method table.
    pub fn method(&self, recv: &Value, name: &str, args: Vec<Value>) -> PyResult<Value> {
        let f = self.interp.getattr(recv, name)?;
        self.interp.call(&f, args, Vec::new())
    }

    /// Calls a builtin type's constructor (`int("5")`).
    pub fn construct(&self, t: crate::value::ValueType, args: Vec<Value>) -> PyResult<Value> {
        self.interp
            .call(&Value::Class(builtin_class(t)), args, Vec::new())
    }

    /// `repr` that never fails (for assertions).
    pub fn r(&self, v: &PyResult<Value>) -> String {
        match v {
            Ok(v) => self
                .interp
                .repr(v)
                .unwrap_or_else(|e| format!("<repr error {}>", err_text(&e))),
            Err(e) => err_text(e),
        }
    }
}

/// `TypeName: message` of an error (the last line of a traceback).
pub fn err_text(e: &PyErr) -> String {
    let vm = TestVm::default();
    let msg = match e.args().first() {
        Some(Value::Str(s)) if e.args().len() == 1 && !e.is(ExcType::KeyError) => s.to_string(),
        Some(v) if e.args().len() == 1 => vm.interp.repr(v).unwrap_or_default(),
        _ => String::new(),
    };
    if msg.is_empty() {
        e.class().name.to_string()
    } else {
        format!("{}: {}", e.class().name, msg)
    }
}
