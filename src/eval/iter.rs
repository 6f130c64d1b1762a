//! Iteration. `for` loops and comprehensions use [`IterState`], with fast
//! paths for builtin containers; `iter()`/`next()` wrap the same state in an
//! iterator object. User classes iterate through `__iter__`/`__next__` (or
//! the old `__getitem__` protocol).

use std::cell::RefCell;
use std::rc::Rc;

use super::Interp;
use crate::object::types::type_error;
use crate::value::dict::SetObj;
use crate::value::{ClassKind, Dict, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The state of one iteration.
pub enum IterState {
    /// Over a list (live: sees appends, as Python does).
    List(Rc<RefCell<Vec<Value>>>, usize),
    /// Over a snapshot of values (tuples, strings, generator expressions).
    Items(Rc<Vec<Value>>, usize),
    /// Over a dict's keys, live: position and the size at the start (a
    /// change of size is CPython's RuntimeError).
    Dict(Rc<RefCell<Dict>>, usize, usize),
    /// Over a set, in CPython's order: the set (to notice a change of size),
    /// its elements when iteration started, and the position.
    Set(Rc<SetObj>, Rc<Vec<Value>>, usize),
    /// An integer range.
    Range { next: i64, stop: i64, step: i64 },
    /// Any iterator object (`__next__` or a native `next`).
    Object(Value),
    /// The old sequence protocol (`__getitem__` with 0, 1, 2 … until IndexError).
    GetItem(Value, i64),
}

impl Interp {
    /// Starts iterating over a value.
    pub fn start_iter(&self, v: &Value) -> PyResult<IterState> {
        Ok(match v {
            Value::List(l) => IterState::List(l.clone(), 0),
            Value::Tuple(t) => IterState::Items(t.clone(), 0),
            Value::Str(s) => IterState::Items(
                Rc::new(s.chars().map(|c| Value::str(c.to_string())).collect()),
                0,
            ),
            Value::Bytes(b) => IterState::Items(
                Rc::new(b.iter().map(|x| Value::Int(*x as i64)).collect()),
                0,
            ),
            Value::Dict(d) => {
                let n = d.borrow().len();
                IterState::Dict(d.clone(), 0, n)
            }
            Value::Set(s) => IterState::Set(s.clone(), Rc::new(s.ordered()?), 0),
            Value::Native(n) => {
                if let Some(r) = n
                    .as_any()
                    .downcast_ref::<crate::object::types::RangeObj>()
                    .filter(|r| r.big.is_none())
                {
                    return Ok(IterState::Range {
                        next: r.start,
                        stop: r.stop,
                        step: r.step,
                    });
                }
                if n.as_any().is::<IterObj>() {
                    return Ok(IterState::Object(v.clone()));
                }
                match n.iter(v, self)? {
                    Some(it) => IterState::Object(it),
                    None => return Err(not_iterable(v)),
                }
            }
            Value::Instance(inst) => {
                if let Some(m) = inst.class.lookup("__iter__") {
                    let it = self.call_value(&m, vec![v.clone()], Vec::new())?;
                    IterState::Object(self.checked_iterator(it)?)
                } else if let Some(base) = inst.builtin_base() {
                    // The builtin's own iteration (it does not call an
                    // overriding `__getitem__`, as in CPython).
                    return self.start_iter(base);
                } else if inst.class.lookup("__getitem__").is_some() {
                    IterState::GetItem(v.clone(), 0)
                } else {
                    return Err(not_iterable(v));
                }
            }
            Value::Tensor(_) => IterState::Object(crate::object::tensor::tensor_iter(self, v)?),
            Value::Class(c) if c.meta.is_some() => match self.call_meta_hook(v, "__iter__", &[]) {
                Some(it) => IterState::Object(self.checked_iterator(it?)?),
                None if self.meta_hook(v, "__getitem__").is_some() => {
                    IterState::GetItem(v.clone(), 0)
                }
                None => return Err(not_iterable(v)),
            },
            // a native enum iterates over its members, in order
            Value::Class(c) if c.kind == ClassKind::Native => {
                let Some(names) = c.dict.borrow().get("_member_names_").cloned() else {
                    return Err(not_iterable(v));
                };
                let members = self
                    .collect(&names)?
                    .iter()
                    .map(|n| match n {
                        Value::Str(s) => c.lookup(s).unwrap_or(Value::None),
                        _ => Value::None,
                    })
                    .collect();
                return self.start_iter(&Value::list(members));
            }
            _ => return Err(not_iterable(v)),
        })
    }

    /// What an `__iter__` method returned, when it is an iterator.
    fn checked_iterator(&self, it: Value) -> PyResult<Value> {
        let ok = match &it {
            Value::Instance(i) => i.class.lookup("__next__").is_some(),
            Value::Native(_) => true,
            _ => false,
        };
        if !ok {
            return Err(type_error(format!(
                "iter() returned non-iterator of type '{}'",
                it.type_name()
            )));
        }
        Ok(it)
    }

    /// The next item, or None at the end.
    #[inline]
    pub fn step_iter(&self, it: &mut IterState) -> PyResult<Option<Value>> {
        match it {
            IterState::List(l, i) => {
                let v = l.borrow().get(*i).cloned();
                *i += 1;
                Ok(v)
            }
            IterState::Items(items, i) => {
                let v = items.get(*i).cloned();
                *i += 1;
                Ok(v)
            }
            IterState::Dict(d, i, n) => {
                let d = d.borrow();
                if d.len() != *n {
                    // Sticky, as CPython's: later steps fail the same way.
                    *n = usize::MAX;
                    return Err(PyErr::new(
                        ExcType::RuntimeError,
                        "dictionary changed size during iteration",
                    ));
                }
                Ok(d.map.next_entry(*i).map(|(at, k, _)| {
                    *i = at + 1;
                    k.0.clone()
                }))
            }
            IterState::Set(s, items, i) => {
                if s.items.borrow().len() != items.len() {
                    return Err(PyErr::new(
                        ExcType::RuntimeError,
                        "Set changed size during iteration",
                    ));
                }
                let v = items.get(*i).cloned();
                *i += 1;
                Ok(v)
            }
            IterState::Range { next, stop, step } => {
                if (*step > 0 && *next < *stop) || (*step < 0 && *next > *stop) {
                    let v = *next;
                    *next = next.saturating_add(*step);
                    Ok(Some(Value::Int(v)))
                } else {
                    Ok(None)
                }
            }
            IterState::Object(obj) => self.next_value(obj),
            IterState::GetItem(obj, i) => {
                let r = self.get_item(obj, &Value::Int(*i));
                *i += 1;
                match r {
                    Ok(v) => Ok(Some(v)),
                    Err(e) if e.is(ExcType::IndexError) || e.is(ExcType::StopIteration) => Ok(None),
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// `iter(v)` as an object.
    pub fn iter_value(&self, v: &Value) -> PyResult<Value> {
        match v {
            Value::Instance(inst) if inst.class.lookup("__iter__").is_some() => {
                match self.start_iter(v)? {
                    IterState::Object(o) => Ok(o),
                    other => Ok(self.wrap_iter(v, other)),
                }
            }
            Value::Native(n) if n.as_any().is::<IterObj>() => Ok(v.clone()),
            _ => {
                let st = self.start_iter(v)?;
                match st {
                    IterState::Object(o) => Ok(o),
                    other => Ok(self.wrap_iter(v, other)),
                }
            }
        }
    }

    fn wrap_iter(&self, source: &Value, st: IterState) -> Value {
        let kind = match source {
            Value::List(_) => "list_iterator",
            Value::Tuple(_) => "tuple_iterator",
            Value::Str(_) => "str_ascii_iterator",
            Value::Dict(_) => "dict_keyiterator",
            Value::Set(_) => "set_iterator",
            Value::Bytes(_) => "bytes_iterator",
            Value::Native(_) => "range_iterator",
            _ => "iterator",
        };
        Value::native(IterObj {
            kind,
            state: RefCell::new(st),
        })
    }

    /// `next(it)`; None when exhausted.
    pub fn next_value(&self, it: &Value) -> PyResult<Option<Value>> {
        match it {
            Value::Native(n) => {
                if let Some(obj) = n.as_any().downcast_ref::<IterObj>() {
                    // Take the state out while stepping so re-entrant use can't double-borrow.
                    let mut st = std::mem::replace(
                        &mut *obj.state.borrow_mut(),
                        IterState::Items(Rc::new(Vec::new()), 0),
                    );
                    let r = self.step_iter(&mut st);
                    *obj.state.borrow_mut() = st;
                    return r;
                }
                n.next(it, self)
            }
            Value::Instance(inst) => match inst.class.lookup("__next__") {
                Some(m) => match self.call_value(&m, vec![it.clone()], Vec::new()) {
                    Ok(v) => Ok(Some(v)),
                    Err(e) if e.is(ExcType::StopIteration) => Ok(None),
                    Err(e) => Err(e),
                },
                None => Err(type_error(format!(
                    "'{}' object is not an iterator",
                    inst.class.name
                ))),
            },
            other => Err(type_error(format!(
                "'{}' object is not an iterator",
                other.type_name()
            ))),
        }
    }
}

/// An iterator object over an [`IterState`].
pub struct IterObj {
    kind: &'static str,
    state: RefCell<IterState>,
}

impl NativeObject for IterObj {
    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn spec(&self) -> Option<&'static crate::object::ClassSpec> {
        crate::object::types::iter::iterator_spec(self.kind)
    }
}

#[cold]
fn not_iterable(v: &Value) -> PyErr {
    type_error(format!("'{}' object is not iterable", v.type_name()))
}
