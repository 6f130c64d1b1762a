//! Subscripts on builtin values: `obj[key]`, `obj[key] = v`, `del obj[key]`
//! for lists, tuples, strings, bytes and dicts (ints, negative indices and
//! slices), and natives' hooks; CPython's messages throughout.

use std::rc::Rc;

use super::slice::{apply_slice, slice_indices, slice_len, slice_positions};
use super::{as_index, type_error, value_error};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

fn norm(i: i64, len: usize) -> Option<usize> {
    let j = if i < 0 { i + len as i64 } else { i };
    (j >= 0 && (j as usize) < len).then_some(j as usize)
}

#[cold]
fn index_error(msg: &str) -> PyErr {
    PyErr::new(ExcType::IndexError, msg.to_string())
}

/// `obj[key]` for builtin values and natives; None when `obj` is not
/// subscriptable by these rules (instances: the caller uses `__getitem__`).
pub fn getitem_builtin(vm: &dyn Vm, obj: &Value, key: &Value) -> PyResult<Option<Value>> {
    Ok(Some(match obj {
        Value::List(l) => {
            let v = l.borrow();
            if let Some((s, e, st)) = slice_indices(key, v.len())? {
                return Ok(Some(Value::list(apply_slice(&v, s, e, st))));
            }
            let i = as_index(key, vm)?.ok_or_else(|| {
                type_error(format!(
                    "list indices must be integers or slices, not {}",
                    key.type_name()
                ))
            })?;
            norm(i, v.len())
                .map(|i| v[i].clone())
                .ok_or_else(|| index_error("list index out of range"))?
        }
        Value::Tuple(t) => {
            if let Some((s, e, st)) = slice_indices(key, t.len())? {
                return Ok(Some(Value::tuple(apply_slice(t, s, e, st))));
            }
            let i = as_index(key, vm)?.ok_or_else(|| {
                type_error(format!(
                    "tuple indices must be integers or slices, not {}",
                    key.type_name()
                ))
            })?;
            norm(i, t.len())
                .map(|i| t[i].clone())
                .ok_or_else(|| index_error("tuple index out of range"))?
        }
        Value::Str(s) => {
            let ascii = s.is_ascii();
            if let Some((a, e, st)) = slice_indices(key, super::str::char_len(s))? {
                let out: String = if ascii {
                    slice_positions(a, e, st)
                        .map(|i| s.as_bytes()[i] as char)
                        .collect()
                } else {
                    let chars: Vec<char> = s.chars().collect();
                    apply_slice(&chars, a, e, st).into_iter().collect()
                };
                return Ok(Some(Value::str(out)));
            }
            let i = as_index(key, vm)?.ok_or_else(|| {
                type_error(format!(
                    "string indices must be integers, not '{}'",
                    key.type_name()
                ))
            })?;
            let n = super::str::char_len(s);
            let i = norm(i, n).ok_or_else(|| index_error("string index out of range"))?;
            let c = if ascii {
                s.as_bytes()[i] as char
            } else {
                s.chars().nth(i).unwrap_or(' ')
            };
            Value::str(c)
        }
        Value::Bytes(b) => {
            if let Some((s, e, st)) = slice_indices(key, b.len())? {
                return Ok(Some(Value::Bytes(Rc::new(apply_slice(b, s, e, st)))));
            }
            let i = as_index(key, vm)?.ok_or_else(|| {
                type_error(format!(
                    "byte indices must be integers or slices, not {}",
                    key.type_name()
                ))
            })?;
            Value::Int(
                norm(i, b.len())
                    .map(|i| b[i] as i64)
                    .ok_or_else(|| index_error("index out of range"))?,
            )
        }
        Value::Dict(d) => {
            let found = d.borrow().get(key)?;
            found.ok_or_else(|| PyErr::with_args(ExcType::KeyError, vec![key.clone()]))?
        }
        Value::Native(n) => return n.getitem(obj, key, vm),
        _ => return Ok(None),
    }))
}

/// `obj[key] = value` for lists, dicts and natives; false when unsupported
/// (the caller raises `'tuple' object does not support item assignment`).
pub fn setitem_builtin(vm: &dyn Vm, obj: &Value, key: &Value, value: Value) -> PyResult<bool> {
    match obj {
        Value::List(l) => {
            let len = l.borrow().len();
            if let Some((s, e, st)) = slice_indices(key, len)? {
                // Collect first: `a[:] = a` must read the old contents.
                let items = vm.collect(&value)?;
                let mut v = l.borrow_mut();
                if st == 1 {
                    let (s, e) = (s as usize, (e.max(s)) as usize);
                    v.splice(s..e, items);
                    return Ok(true);
                }
                let n = slice_len(s, e, st);
                if n != items.len() {
                    return Err(value_error(format!(
                        "attempt to assign sequence of size {} to extended slice of size {n}",
                        items.len()
                    )));
                }
                for (i, x) in slice_positions(s, e, st).zip(items) {
                    v[i] = x;
                }
                return Ok(true);
            }
            let i = as_index(key, vm)?.ok_or_else(|| {
                type_error(format!(
                    "list indices must be integers or slices, not {}",
                    key.type_name()
                ))
            })?;
            let i =
                norm(i, len).ok_or_else(|| index_error("list assignment index out of range"))?;
            let old = std::mem::replace(&mut l.borrow_mut()[i], value);
            drop(old);
            Ok(true)
        }
        Value::Dict(d) => {
            d.borrow_mut().insert(key.clone(), value)?;
            Ok(true)
        }
        Value::Native(n) => n.setitem(obj, key, value, vm),
        _ => Ok(false),
    }
}

/// `del obj[key]` for lists and dicts; false when unsupported (the caller
/// raises `'str' object doesn't support item deletion`).
pub fn delitem_builtin(vm: &dyn Vm, obj: &Value, key: &Value) -> PyResult<bool> {
    match obj {
        Value::List(l) => {
            let len = l.borrow().len();
            if let Some((s, e, st)) = slice_indices(key, len)? {
                let mut drop_at = vec![false; len];
                for i in slice_positions(s, e, st) {
                    drop_at[i] = true;
                }
                let old = std::mem::take(&mut *l.borrow_mut());
                let kept = old
                    .into_iter()
                    .zip(drop_at)
                    .filter(|(_, d)| !d)
                    .map(|(v, _)| v)
                    .collect();
                *l.borrow_mut() = kept;
                return Ok(true);
            }
            let i = as_index(key, vm)?.ok_or_else(|| {
                type_error(format!(
                    "list indices must be integers or slices, not {}",
                    key.type_name()
                ))
            })?;
            let i =
                norm(i, len).ok_or_else(|| index_error("list assignment index out of range"))?;
            let old = l.borrow_mut().remove(i);
            drop(old);
            Ok(true)
        }
        Value::Dict(d) => {
            let removed = d.borrow_mut().remove(key)?;
            match removed {
                Some(_) => Ok(true),
                None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
            }
        }
        _ => Ok(false),
    }
}
