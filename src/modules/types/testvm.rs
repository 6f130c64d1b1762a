//! A stand-in `Vm` for unit tests of natives, built only from the protocol
//! helpers in this folder (no evaluator): it can call natives, iterate,
//! compare, repr and format builtin values, and captures stdout.

use std::cell::RefCell;
use std::rc::Rc;

use super::{builtin_class, iter, ops, repr, subscript};
use crate::syntax::ast::BinOp;
use crate::value::dict::py_hash;
use crate::value::native::State;
use crate::value::{format, ExcType, Key, PyErr, PyResult, Value, Vm};

/// The test VM: `out` collects what `print` writes.
#[derive(Default)]
pub struct TestVm {
    /// Captured standard output.
    pub out: RefCell<String>,
    state: State,
}

impl TestVm {
    /// Calls `recv.name(*args)` through the type's method table.
    pub fn method(&self, recv: &Value, name: &str, args: Vec<Value>) -> PyResult<Value> {
        let f = self.getattr(recv, name)?;
        self.call(&f, args, Vec::new())
    }

    /// Calls a builtin type's constructor (`int("5")`).
    pub fn construct(&self, t: crate::value::ValueType, args: Vec<Value>) -> PyResult<Value> {
        self.call(&Value::Class(builtin_class(t)), args, Vec::new())
    }

    /// `repr` that never fails (for assertions).
    pub fn r(&self, v: &PyResult<Value>) -> String {
        match v {
            Ok(v) => self
                .repr(v)
                .unwrap_or_else(|e| format!("<repr error {}>", err_text(&e))),
            Err(e) => err_text(e),
        }
    }
}

/// `TypeName: message` of an error (the last line of a traceback).
pub fn err_text(e: &PyErr) -> String {
    let msg = match e.args().first() {
        Some(Value::Str(s)) if e.args().len() == 1 && !e.is(ExcType::KeyError) => s.to_string(),
        Some(v) if e.args().len() == 1 => repr::repr_value(&TestVm::default(), v)
            .ok()
            .flatten()
            .unwrap_or_default(),
        _ => String::new(),
    };
    if msg.is_empty() {
        e.class().name.to_string()
    } else {
        format!("{}: {}", e.class().name, msg)
    }
}

impl Vm for TestVm {
    fn call(
        &self,
        func: &Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<str>, Value)>,
    ) -> PyResult<Value> {
        match func {
            Value::NativeFunction(f) => {
                let mut pos = Vec::new();
                if let Some(b) = &f.bound {
                    pos.push(b.clone());
                }
                pos.extend(args);
                let bound = f.sig.bind(pos, kwargs)?;
                (f.func)(self, &bound)
            }
            Value::Class(c) => match c.lookup("__new__") {
                Some(new) => self.call(&new, args, kwargs),
                None => Err(PyErr::new(
                    ExcType::TypeError,
                    format!("cannot create '{}' instances", c.name),
                )),
            },
            Value::Native(n) => n.call(func, args, kwargs, self),
            other => Err(PyErr::new(
                ExcType::TypeError,
                format!("'{}' object is not callable", other.type_name()),
            )),
        }
    }

    fn repr(&self, v: &Value) -> PyResult<String> {
        Ok(repr::repr_value(self, v)?.unwrap_or_else(|| format!("<{} object>", v.type_name())))
    }

    fn str(&self, v: &Value) -> PyResult<String> {
        Ok(repr::str_value(self, v)?.unwrap_or_else(|| format!("<{} object>", v.type_name())))
    }

    fn getattr(&self, v: &Value, name: &str) -> PyResult<Value> {
        if let Value::Native(n) = v {
            if let Some(a) = n.getattr(v, name, self)? {
                return Ok(a);
            }
        }
        if let Value::Class(c) = v {
            if let Some(a) = c.lookup(name) {
                return Ok(a);
            }
        }
        let class = match self.type_of(v) {
            Value::Class(c) => c,
            _ => return Err(PyErr::new(ExcType::AttributeError, name.to_string())),
        };
        match class.lookup(name) {
            Some(Value::NativeFunction(f)) => Ok(f.bind(v.clone())),
            Some(other) => Ok(other),
            None => Err(PyErr::new(
                ExcType::AttributeError,
                format!("'{}' object has no attribute '{}'", v.type_name(), name),
            )),
        }
    }

    fn truthy(&self, v: &Value) -> PyResult<bool> {
        Ok(ops::truthy_builtin(self, v)?.unwrap_or(true))
    }

    fn eq(&self, a: &Value, b: &Value) -> PyResult<bool> {
        Ok(ops::eq_builtin(self, a, b)?.unwrap_or_else(|| a.is(b)))
    }

    fn lt(&self, a: &Value, b: &Value) -> PyResult<bool> {
        match ops::lt_builtin(self, a, b)? {
            Some(r) => Ok(r),
            None => Err(ops::compare_error("<", a, b)),
        }
    }

    fn binop(&self, op: BinOp, a: &Value, b: &Value) -> PyResult<Value> {
        match ops::binop_builtin(self, op, a, b)? {
            Some(v) => Ok(v),
            None => Err(ops::binop_error(op, a, b)),
        }
    }

    fn len(&self, v: &Value) -> PyResult<usize> {
        match ops::len_builtin(self, v)? {
            Some(n) => Ok(n),
            None => Err(PyErr::new(
                ExcType::TypeError,
                format!("object of type '{}' has no len()", v.type_name()),
            )),
        }
    }

    fn getitem(&self, v: &Value, key: &Value) -> PyResult<Value> {
        match subscript::getitem_builtin(self, v, key)? {
            Some(x) => Ok(x),
            None => Err(PyErr::new(
                ExcType::TypeError,
                format!("'{}' object is not subscriptable", v.type_name()),
            )),
        }
    }

    fn setitem(&self, v: &Value, key: &Value, value: Value) -> PyResult<()> {
        if subscript::setitem_builtin(self, v, key, value)? {
            Ok(())
        } else {
            Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "'{}' object does not support item assignment",
                    v.type_name()
                ),
            ))
        }
    }

    fn contains(&self, container: &Value, item: &Value) -> PyResult<bool> {
        if let Some(r) = ops::contains_builtin(self, container, item)? {
            return Ok(r);
        }
        let it = self.iter(container)?;
        while let Some(x) = self.next(&it)? {
            if self.eq(&x, item)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn hash(&self, v: &Value) -> PyResult<i64> {
        Key::new(v.clone())?;
        Ok(py_hash(v))
    }

    fn type_of(&self, v: &Value) -> Value {
        match v {
            Value::Instance(i) => Value::Class(i.class.clone()),
            Value::Native(n) => match n.class() {
                Some(c) => Value::Class(c),
                None => Value::None,
            },
            other => match other.value_type() {
                Some(t) => Value::Class(builtin_class(t)),
                None => Value::None,
            },
        }
    }

    fn isinstance(&self, v: &Value, cls: &Value) -> PyResult<bool> {
        match (self.type_of(v), cls) {
            (Value::Class(c), Value::Class(k)) => Ok(c.is_subclass_of(k)),
            _ => Ok(false),
        }
    }

    fn format(&self, v: &Value, spec: &str) -> PyResult<String> {
        match v {
            Value::Str(_) | Value::Int(_) | Value::Bool(_) | Value::Float(_) => {
                format::format_builtin(v, spec)
            }
            _ if spec.is_empty() => self.str(v),
            other => Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "unsupported format string passed to {}.__format__",
                    other.type_name()
                ),
            )),
        }
    }

    fn iter(&self, v: &Value) -> PyResult<Value> {
        if let Value::Native(n) = v {
            if let Some(it) = n.iter(v, self)? {
                return Ok(it);
            }
        }
        match iter::iter_builtin(v)? {
            Some(it) => Ok(it),
            None => Err(PyErr::new(
                ExcType::TypeError,
                format!("'{}' object is not iterable", v.type_name()),
            )),
        }
    }

    fn next(&self, it: &Value) -> PyResult<Option<Value>> {
        match it {
            Value::Native(n) => n.next(it, self),
            other => Err(PyErr::new(
                ExcType::TypeError,
                format!("'{}' object is not an iterator", other.type_name()),
            )),
        }
    }

    fn run_replicas(
        &self,
        n: usize,
        body: &dyn Fn(usize) -> PyResult<Value>,
        _merge: &dyn Fn(Vec<Value>) -> PyResult<Vec<Value>>,
    ) -> PyResult<Vec<Value>> {
        (0..n).map(body).collect()
    }

    fn collective(&self, payload: Value) -> PyResult<Value> {
        Ok(payload)
    }

    fn current_replica(&self) -> Option<usize> {
        None
    }

    fn write_stdout(&self, text: &str) {
        self.out.borrow_mut().push_str(text);
    }

    fn state(&self) -> &State {
        &self.state
    }
}
