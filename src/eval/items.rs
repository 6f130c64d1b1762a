//! Subscripts (`v[k]`, `v[k] = x`, `del v[k]`), context managers (`with`)
//! and `format()`.

use std::rc::Rc;

use super::Interp;
use crate::object::types::misc::GenericAlias;
use crate::object::types::slice::slice_positions;
use crate::object::types::{index_not_int, slice_indices, type_error, value_error};
use crate::value::dict::{dict_get, dict_remove, dict_set};
use crate::value::fmtspec::unsupported_format;
use crate::value::{ExcType, PyErr, PyResult, Value};

impl Interp {
    /// `v[key]`.
    pub fn get_item(&self, v: &Value, key: &Value) -> PyResult<Value> {
        if let Some(k) = self.index_key(v, key)? {
            return self.get_item(v, &k);
        }
        match v {
            Value::List(l) => {
                let l = l.borrow();
                match slice_indices(key, l.len())? {
                    Some((start, stop, step)) => Ok(Value::list(take_slice(&l, start, stop, step))),
                    None => Ok(l[seq_index(key, l.len(), "list")?].clone()),
                }
            }
            Value::Tuple(t) => match slice_indices(key, t.len())? {
                Some((start, stop, step)) => Ok(Value::tuple(take_slice(t, start, stop, step))),
                None => Ok(t[seq_index(key, t.len(), "tuple")?].clone()),
            },
            Value::Str(s) => {
                let chars: Vec<char> = s.chars().collect();
                match slice_indices(key, chars.len())? {
                    Some((start, stop, step)) => Ok(Value::str(
                        take_slice(&chars, start, stop, step)
                            .into_iter()
                            .collect::<String>(),
                    )),
                    None => Ok(Value::str(
                        chars[seq_index(key, chars.len(), "string")?].to_string(),
                    )),
                }
            }
            Value::Bytes(b) => match slice_indices(key, b.len())? {
                Some((start, stop, step)) => {
                    Ok(Value::Bytes(Rc::new(take_slice(b, start, stop, step))))
                }
                None => Ok(Value::Int(b[seq_index(key, b.len(), "index")?] as i64)),
            },
            Value::Dict(d) => match dict_get(self, d, key)? {
                Some(x) => Ok(x),
                None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
            },
            Value::Instance(inst) => match inst.class.lookup("__getitem__") {
                Some(m) => self.call_value(&m, vec![v.clone(), key.clone()], Vec::new()),
                None => match inst.builtin_base() {
                    // A dict subclass's `__missing__` answers for absent keys.
                    Some(Value::Dict(d)) => match dict_get(self, d, key)? {
                        Some(x) => Ok(x),
                        None => match inst.class.lookup("__missing__") {
                            Some(m) => {
                                self.call_value(&m, vec![v.clone(), key.clone()], Vec::new())
                            }
                            None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
                        },
                    },
                    Some(base) => self.get_item(base, key),
                    None => Err(not_subscriptable(v)),
                },
            },
            Value::Native(n) => n.getitem(v, key, self)?.ok_or_else(|| not_subscriptable(v)),
            Value::Tensor(_) => crate::object::tensor::tensor_getitem(self, v, key),
            Value::Class(c) => match c.lookup("__class_getitem__") {
                _ if c.meta.is_some() && self.meta_hook(v, "__getitem__").is_some() => self
                    .call_meta_hook(v, "__getitem__", std::slice::from_ref(key))
                    .unwrap_or(Ok(Value::None)),
                // An implicit class method, as CPython makes it.
                Some(m @ Value::Function(_)) => {
                    self.call_value(&m, vec![v.clone(), key.clone()], Vec::new())
                }
                Some(_) => {
                    let m = self.get_attribute(v, "__class_getitem__")?;
                    self.call_value(&m, vec![key.clone()], Vec::new())
                }
                // `list[int]` (PEP 585).
                None if GenericAlias::subscriptable(c) => Ok(GenericAlias::value(c.clone(), key)),
                None => Err(type_error(format!(
                    "type '{}' is not subscriptable",
                    c.name
                ))),
            },
            _ => Err(not_subscriptable(v)),
        }
    }

    /// `v[key] = value`.
    pub fn set_item(&self, v: &Value, key: &Value, value: Value) -> PyResult<()> {
        if let Some(k) = self.index_key(v, key)? {
            return self.set_item(v, &k, value);
        }
        match v {
            Value::List(l) => {
                let len = l.borrow().len();
                match slice_indices(key, len)? {
                    Some((start, stop, step)) => {
                        let new = self.collect_iterable(&value).map_err(|e| {
                            if !e.is(ExcType::TypeError) || self.iter_value(&value).is_ok() {
                                return e;
                            }
                            type_error(if step == 1 {
                                "can only assign an iterable"
                            } else {
                                "must assign iterable to extended slice"
                            })
                        })?;
                        let mut l = l.borrow_mut();
                        if step == 1 {
                            let (s, e) = (start.clamp(0, len as isize) as usize, stop.clamp(0, len as isize) as usize);
                            let e = e.max(s);
                            l.splice(s..e, new);
                        } else {
                            let idx: Vec<usize> = slice_positions(start, stop, step).collect();
                            if idx.len() != new.len() {
                                return Err(value_error(format!(
                                    "attempt to assign sequence of size {} to extended slice of size {}",
                                    new.len(),
                                    idx.len()
                                )));
                            }
                            for (i, x) in idx.into_iter().zip(new) {
                                l[i] = x;
                            }
                        }
                        Ok(())
                    }
                    None => {
                        let i = seq_index(key, len, "list assignment")?;
                        l.borrow_mut()[i] = value;
                        Ok(())
                    }
                }
            }
            Value::Dict(d) => dict_set(self, d, key.clone(), value),
            Value::Instance(inst) => match inst.class.lookup("__setitem__") {
                Some(m) => self.call_value(&m, vec![v.clone(), key.clone(), value], Vec::new()).map(|_| ()),
                None => match inst.builtin_base() {
                    Some(base) => self.set_item(base, key, value),
                    None => Err(no_item_assignment(v)),
                },
            },
            Value::Native(n) => {
                if n.setitem(v, key, value, self)? {
                    Ok(())
                } else {
                    Err(no_item_assignment(v))
                }
            }
            Value::Tensor(_) => Err(type_error(
                "'tensorflow.python.framework.ops.EagerTensor' object does not support item assignment",
            )),
            _ => Err(no_item_assignment(v)),
        }
    }

    /// `del v[key]`.
    pub fn del_item(&self, v: &Value, key: &Value) -> PyResult<()> {
        if let Some(k) = self.index_key(v, key)? {
            return self.del_item(v, &k);
        }
        match v {
            Value::List(l) => {
                let len = l.borrow().len();
                match slice_indices(key, len)? {
                    Some((start, stop, step)) => {
                        let mut idx: Vec<usize> = slice_positions(start, stop, step).collect();
                        idx.sort_unstable();
                        let mut l = l.borrow_mut();
                        for i in idx.into_iter().rev() {
                            l.remove(i);
                        }
                        Ok(())
                    }
                    None => {
                        let i = seq_index(key, len, "list assignment")?;
                        l.borrow_mut().remove(i);
                        Ok(())
                    }
                }
            }
            Value::Dict(d) => match dict_remove(self, d, key)? {
                Some(_) => Ok(()),
                None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
            },
            Value::Instance(inst) => match inst.class.lookup("__delitem__") {
                Some(m) => self
                    .call_value(&m, vec![v.clone(), key.clone()], Vec::new())
                    .map(|_| ()),
                None if inst.builtin_base().is_some() => {
                    let base = inst.builtin_base().cloned().unwrap_or(Value::None);
                    self.del_item(&base, key)
                }
                None => Err(no_item_deletion(v)),
            },
            Value::Native(n) => {
                if n.delitem(v, key, self)? {
                    Ok(())
                } else {
                    Err(no_item_deletion(v))
                }
            }
            _ => Err(no_item_deletion(v)),
        }
    }

    /// `with` entry: `__enter__` or the native hook.
    pub fn context_enter(&self, mgr: &Value) -> PyResult<Value> {
        match mgr {
            Value::Instance(inst) => match (
                inst.class.lookup("__enter__"),
                inst.class.lookup("__exit__"),
            ) {
                (Some(enter), Some(_)) => self.call_value(&enter, vec![mgr.clone()], Vec::new()),
                (Some(_), None) => Err(type_error(format!(
                    "'{}' object does not support the context manager protocol (missed __exit__ method)",
                    inst.class.name
                ))),
                _ => Err(self.not_context_manager(mgr)),
            },
            Value::Native(n) => match n.enter(mgr, self)? {
                Some(v) => Ok(v),
                None => Err(self.not_context_manager(mgr)),
            },
            _ => Err(self.not_context_manager(mgr)),
        }
    }

    /// `async with` entry: `await type(mgr).__aenter__(mgr)`.
    pub fn async_context_enter(&self, mgr: &Value) -> PyResult<Value> {
        let (enter, exit) = match mgr {
            Value::Instance(inst) => (
                inst.class.lookup("__aenter__"),
                inst.class.lookup("__aexit__"),
            ),
            _ => (None, None),
        };
        let type_name = crate::object::attr::class_name(self, mgr);
        match (enter, exit) {
            (Some(enter), Some(_)) => {
                let aw = self.call_value(&enter, vec![mgr.clone()], Vec::new())?;
                self.await_value(&aw)
            }
            (Some(_), None) => Err(type_error(format!(
                "'{type_name}' object does not support the asynchronous context manager protocol (missed __aexit__ method)"
            ))),
            _ => Err(type_error(format!(
                "'{type_name}' object does not support the asynchronous context manager protocol"
            ))),
        }
    }

    /// `async with` exit: `await type(mgr).__aexit__(mgr, type, value, tb)`;
    /// true when the exception is suppressed.
    pub fn async_context_exit(&self, mgr: &Value, err: Option<&PyErr>) -> PyResult<bool> {
        let Value::Instance(inst) = mgr else {
            return Ok(false);
        };
        let Some(exit) = inst.class.lookup("__aexit__") else {
            return Ok(false);
        };
        let aw = self.call_value(&exit, exit_args(mgr, err), Vec::new())?;
        let r = self.await_value(&aw)?;
        Ok(err.is_some() && self.is_true(&r)?)
    }

    /// `with` exit; returns true when the exception is suppressed.
    pub fn context_exit(&self, mgr: &Value, err: Option<&PyErr>) -> PyResult<bool> {
        match mgr {
            Value::Instance(inst) => {
                let Some(exit) = inst.class.lookup("__exit__") else {
                    return Ok(false);
                };
                let r = self.call_value(&exit, exit_args(mgr, err), Vec::new())?;
                Ok(err.is_some() && self.is_true(&r)?)
            }
            Value::Native(n) => n.exit(mgr, err, self),
            _ => Ok(false),
        }
    }

    /// `format(v, spec)`.
    pub fn format_value(&self, v: &Value, spec: &str) -> PyResult<String> {
        match v {
            Value::Instance(inst) => match inst.class.lookup("__format__") {
                Some(m) => {
                    match self.call_value(&m, vec![v.clone(), Value::str(spec)], Vec::new())? {
                        Value::Str(s) => Ok(s.to_string()),
                        other => Err(type_error(format!(
                            "__format__ must return a str, not {}",
                            other.type_name()
                        ))),
                    }
                }
                None if spec.is_empty() => self.str_value(v),
                // `f"{celsius:.1f}"` formats the float underneath.
                None if inst.builtin_base().is_some() => {
                    let base = inst.builtin_base().cloned().unwrap_or(Value::None);
                    self.format_value(&base, spec)
                }
                None => Err(unsupported_format(&inst.class.name)),
            },
            Value::Tensor(_) => crate::object::tensor::tensor_format(self, v, spec),
            Value::Native(n) if n.as_any().is::<crate::object::numpy::NdArray>() => {
                crate::modules::np::array::format_np(self, v, spec)
            }
            Value::Native(n)
                if !spec.is_empty()
                    && n.as_any().is::<crate::object::types::complex::Complex>() =>
            {
                crate::object::types::complex::format_spec(self, v, spec)
            }
            // other number-like natives format their number
            Value::Native(n) if !spec.is_empty() => match n.to_number(self).ok().flatten() {
                Some(num) => self.format_value(&num, spec),
                None => Err(unsupported_format(&v.type_name())),
            },
            _ if spec.is_empty()
                && !matches!(v, Value::Float(_) | Value::Int(_) | Value::Bool(_)) =>
            {
                self.str_value(v)
            }
            Value::Long(n) => crate::value::fmtspec::format_big(
                n,
                spec,
                crate::object::types::long::max_str_digits(self),
            ),
            Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
                crate::value::fmtspec::format_builtin(v, spec)
            }
            _ if spec.is_empty() => self.str_value(v),
            _ => Err(unsupported_format(&v.type_name())),
        }
    }
}

impl Interp {
    /// An instance with `__index__` used as a sequence index: the int it
    /// stands for (None for every other key or container).
    fn index_key(&self, v: &Value, key: &Value) -> PyResult<Option<Value>> {
        let Value::Instance(inst) = key else {
            return Ok(None);
        };
        if !matches!(
            v,
            Value::List(_) | Value::Tuple(_) | Value::Str(_) | Value::Bytes(_)
        ) {
            return Ok(None);
        }
        // An int subclass indexes as its value, whatever its `__index__`.
        if let Some(i @ (Value::Int(_) | Value::Long(_) | Value::Bool(_))) = inst.builtin_base() {
            return Ok(Some(i.clone()));
        }
        let Some(m) = inst.class.lookup("__index__") else {
            return Ok(None);
        };
        match self.call_value(&m, vec![key.clone()], Vec::new())? {
            i @ (Value::Int(_) | Value::Long(_) | Value::Bool(_)) => Ok(Some(i)),
            other => Err(index_not_int(&other)),
        }
    }
}

/// Resolves an index (negative from the end) with Python's IndexError.
pub fn seq_index(key: &Value, len: usize, what: &str) -> PyResult<usize> {
    // An `int` subclass indexes as its value.
    let i = match key.as_builtin() {
        Value::Int(i) => *i,
        Value::Bool(b) => *b as i64,
        Value::Long(_) => {
            return Err(PyErr::new(
                ExcType::IndexError,
                "cannot fit 'int' into an index-sized integer",
            ))
        }
        // a 0-d integer tensor indexes like an int (`Tensor.__index__`)
        Value::Tensor(t) if t.rank() == 0 && t.dtype().is_integer() => match t.item() {
            Ok(crate::runtime::Scalar::Int(i)) => i,
            _ => 0,
        },
        other => {
            let kind = match what {
                "string" => "string",
                "tuple" => "tuple",
                "index" => "byte",
                _ => "list",
            };
            // CPython words str's own message differently.
            let msg = if kind == "string" {
                format!(
                    "string indices must be integers, not '{}'",
                    other.type_name()
                )
            } else {
                format!(
                    "{} indices must be integers or slices, not {}",
                    kind,
                    other.type_name()
                )
            };
            return Err(type_error(msg));
        }
    };
    let idx = if i < 0 { i + len as i64 } else { i };
    if idx < 0 || idx >= len as i64 {
        let msg = match what {
            "string" => "string index out of range".to_string(),
            "tuple" => "tuple index out of range".to_string(),
            "list assignment" => "list assignment index out of range".to_string(),
            "index" => "index out of range".to_string(),
            _ => "list index out of range".to_string(),
        };
        return Err(PyErr::new(ExcType::IndexError, msg));
    }
    Ok(idx as usize)
}

/// The elements of `items[start:stop:step]` (indices already clamped).
pub fn take_slice<T: Clone>(items: &[T], start: isize, stop: isize, step: isize) -> Vec<T> {
    slice_positions(start, stop, step)
        .filter_map(|i| items.get(i).cloned())
        .collect()
}

#[cold]
fn not_subscriptable(v: &Value) -> PyErr {
    type_error(format!("'{}' object is not subscriptable", v.type_name()))
}

#[cold]
fn no_item_deletion(v: &Value) -> PyErr {
    type_error(format!(
        "'{}' object doesn't support item deletion",
        v.type_name()
    ))
}

#[cold]
fn no_item_assignment(v: &Value) -> PyErr {
    type_error(format!(
        "'{}' object does not support item assignment",
        v.type_name()
    ))
}

impl Interp {
    /// Python's error for `with x:` on a non-context manager; when `x` has a
    /// `scope()` (a strategy), the help says to enter that instead.
    #[cold]
    fn not_context_manager(&self, v: &Value) -> PyErr {
        let err = type_error(format!(
            "'{}' object does not support the context manager protocol",
            v.type_name()
        ));
        match self.lookup_attribute(v, "scope") {
            Ok(Some(_)) => err.help("enter its scope instead: with strategy.scope():"),
            _ => err,
        }
    }
}

/// The arguments of `__exit__`/`__aexit__`: the manager, then the
/// exception's type, value and traceback (None, None, None without one).
fn exit_args(mgr: &Value, err: Option<&PyErr>) -> Vec<Value> {
    match err {
        Some(e) => vec![
            mgr.clone(),
            Value::Class(e.class()),
            e.value().clone(),
            Value::None,
        ],
        None => vec![mgr.clone(), Value::None, Value::None, Value::None],
    }
}
