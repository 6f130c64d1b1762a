//! The protocols builtins go through: truthiness (`bool()`, `__bool__`
//! then `__len__`), `len()`, membership (`in`, `__contains__` then
//! iteration) and `hash()`.

use crate::eval::Interp;
use crate::object::types::{not_an_integer, type_error, value_error};
use crate::value::dict::{dict_get, hash_with_vm, set_contains};
use crate::value::{PyErr, PyResult, Value};

impl Interp {
    /// `bool(v)`.
    pub fn is_true(&self, v: &Value) -> PyResult<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Dict(d) => !d.borrow().is_empty(),
            Value::Set(s) => !s.items.borrow().is_empty(),
            Value::Instance(inst) => {
                if let Some(m) = inst.class.lookup("__bool__") {
                    let r = self.call_value(&m, vec![v.clone()], Vec::new())?;
                    return match r {
                        Value::Bool(b) => Ok(b),
                        other => Err(type_error(format!(
                            "__bool__ should return bool, returned {}",
                            other.type_name()
                        ))),
                    };
                }
                if inst.class.lookup("__len__").is_some() {
                    return Ok(self.length(v)? != 0);
                }
                match inst.builtin_base() {
                    Some(base) => return self.is_true(base),
                    None => true,
                }
            }
            Value::Native(n) => match n.truthy(self)? {
                Some(b) => b,
                None => match n.len(self)? {
                    Some(l) => l != 0,
                    None => true,
                },
            },
            Value::Tensor(_) => crate::object::tensor::tensor_truthy(self, v)?,
            Value::Class(c) if c.meta.is_some() => {
                if let Some(r) = self.call_meta_hook(v, "__bool__", &[]) {
                    return self.is_true(&r?);
                }
                if self.meta_hook(v, "__len__").is_some() {
                    return Ok(self.length(v)? != 0);
                }
                true
            }
            _ => true,
        })
    }

    /// `len(v)`.
    pub fn length(&self, v: &Value) -> PyResult<usize> {
        Ok(match v {
            Value::Str(s) => {
                if s.is_ascii() {
                    s.len()
                } else {
                    s.chars().count()
                }
            }
            Value::Bytes(b) => b.len(),
            Value::Tuple(t) => t.len(),
            Value::List(l) => l.borrow().len(),
            Value::Dict(d) => d.borrow().len(),
            Value::Set(s) => s.items.borrow().len(),
            Value::Instance(inst) => match inst.class.lookup("__len__") {
                Some(m) => len_result(self, self.call_value(&m, vec![v.clone()], Vec::new())?)?,
                None => match inst.builtin_base() {
                    Some(base) => self.length(base)?,
                    None => return Err(no_len(v)),
                },
            },
            Value::Native(n) => n.len(self)?.ok_or_else(|| no_len(v))?,
            Value::Tensor(_) => crate::object::tensor::tensor_len(self, v)?,
            Value::Class(c) if c.meta.is_some() => match self.call_meta_hook(v, "__len__", &[]) {
                Some(r) => len_result(self, r?)?,
                None => return Err(no_len(v)),
            },
            _ => return Err(no_len(v)),
        })
    }

    /// `item in container`.
    pub fn contains_value(&self, container: &Value, item: &Value) -> PyResult<bool> {
        match container {
            Value::Class(c) if c.meta.is_some() => {
                match self.call_meta_hook(container, "__contains__", std::slice::from_ref(item)) {
                    Some(r) => self.is_true(&r?),
                    None => self.contains_by_iteration(container, item),
                }
            }
            // A str (int) subclass's instance stands for its value.
            Value::Str(s) => match item.as_builtin() {
                Value::Str(sub) => Ok(s.contains(sub.as_str())),
                _ => Err(type_error(format!(
                    "'in <string>' requires string as left operand, not {}",
                    item.type_name()
                ))),
            },
            Value::Bytes(b) => match item.as_builtin() {
                Value::Bytes(sub) => {
                    Ok(sub.is_empty() || b.windows(sub.len()).any(|w| w == &sub[..]))
                }
                Value::Int(i) => Ok(b.contains(&(*i as u8))),
                _ => Err(type_error("a bytes-like object is required")),
            },
            Value::Dict(d) => Ok(dict_get(self, d, item)?.is_some()),
            Value::Set(s) => set_contains(self, s, item),
            Value::List(l) => {
                let items = l.borrow().clone();
                for x in items.iter() {
                    if x.is(item) || self.values_eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Tuple(t) => {
                for x in t.iter() {
                    if x.is(item) || self.values_eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Instance(inst) => {
                if let Some(m) = inst.class.lookup("__contains__") {
                    let r =
                        self.call_value(&m, vec![container.clone(), item.clone()], Vec::new())?;
                    return self.is_true(&r);
                }
                // The builtin containers' own `__contains__`, whatever
                // `__iter__` the subclass defines.
                if let Some(base) = inst.builtin_base() {
                    if !matches!(base, Value::Int(_) | Value::Float(_) | Value::Bool(_)) {
                        return self.contains_value(base, item);
                    }
                }
                self.contains_by_iteration(container, item)
            }
            Value::Native(n) => match n.contains(item, self)? {
                Some(b) => Ok(b),
                None => self.contains_by_iteration(container, item),
            },
            _ => self.contains_by_iteration(container, item),
        }
    }

    /// `in` through iteration (no `__contains__`): CPython's own message
    /// for a container that cannot be iterated either.
    fn contains_by_iteration(&self, container: &Value, item: &Value) -> PyResult<bool> {
        if !self.is_iterable(container) {
            return Err(type_error(format!(
                "argument of type '{}' is not iterable",
                container.type_name()
            )));
        }
        let mut it = self.start_iter(container)?;
        while let Some(x) = self.step_iter(&mut it)? {
            if x.is(item) || self.values_eq(&x, item)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `hash(v)`.
    pub fn hash_value(&self, v: &Value) -> PyResult<i64> {
        hash_with_vm(v, self)
    }
}

#[cold]
fn no_len(v: &Value) -> PyErr {
    type_error(format!("object of type '{}' has no len()", v.type_name()))
}

/// What `len()` makes of a `__len__` method's result.
/// What `__len__` returned as a length: any int (`operator.index`), with
/// CPython's errors for a negative one and one past `Py_ssize_t`.
fn len_result(vm: &dyn crate::value::Vm, r: Value) -> PyResult<usize> {
    use num_traits::Signed;
    match crate::object::types::as_index_value(&r, vm)? {
        Some(Value::Int(i)) if i >= 0 => Ok(i as usize),
        Some(Value::Int(_)) => Err(value_error("__len__() should return >= 0")),
        Some(Value::Long(n)) if n.is_negative() => Err(value_error("__len__() should return >= 0")),
        Some(Value::Long(_)) => Err(crate::value::PyErr::new(
            crate::value::ExcType::OverflowError,
            "cannot fit 'int' into an index-sized integer",
        )),
        _ => Err(not_an_integer(&r)),
    }
}
