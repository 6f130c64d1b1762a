//! `list`: constructor and methods, and the stable fallible merge sort that
//! `list.sort` and `sorted` share (only `<` is used, as in CPython, and a
//! comparison error stops the sort cleanly — no panic on inconsistent orders).

use std::cell::RefCell;
use std::rc::Rc;

use super::{add_method, add_new, descriptor_error, value_error};
use crate::value::{Args, Class, ExcType, PyErr, PyResult, Value, Vm};

fn this<'a>(a: &'a Args, name: &str) -> PyResult<&'a Rc<RefCell<Vec<Value>>>> {
    match a.get(0) {
        Value::List(l) => Ok(l),
        other => Err(descriptor_error(name, "list", other)),
    }
}

/// Registers `list`'s constructor and methods.
pub fn register(c: &Class) {
    super::subclass::register_init(c, crate::value::ValueType::List);
    add_new(
        c,
        "list(iterable=(), /)",
        list_new,
        "A new list of the iterable's items: `list('ab') == ['a', 'b']`.",
    );
    add_method(
        c,
        "list.append(self, object, /)",
        append,
        "Adds an item at the end.",
    );
    add_method(
        c,
        "list.extend(self, iterable, /)",
        extend,
        "Adds the iterable's items at the end.",
    );
    add_method(
        c,
        "list.insert(self, index, object, /)",
        insert,
        "Inserts an item before `index`.",
    );
    add_method(
        c,
        "list.remove(self, value, /)",
        remove,
        "Removes the first item equal to `value` (ValueError if absent).",
    );
    add_method(
        c,
        "list.pop(self, index=-1, /)",
        pop,
        "Removes and returns the item at `index` (the last by default).",
    );
    add_method(c, "list.clear(self)", clear, "Removes all items.");
    add_method(
        c,
        "list.index(self, value, start=0, stop=9223372036854775807, /)",
        index,
        "Position of the first item equal to `value`.",
    );
    add_method(
        c,
        "list.count(self, value, /)",
        count,
        "How many items equal `value`.",
    );
    add_method(
        c,
        "list.sort(self, *, key=None, reverse=False)",
        sort,
        "Sorts in place, stably: `l.sort(key=len, reverse=True)`.",
    );
    add_method(c, "list.reverse(self)", reverse, "Reverses in place.");
    add_method(c, "list.copy(self)", copy, "A shallow copy.");
}

fn list_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::list(vm.collect(a.get(0))?))
}

fn append(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    this(a, "append")?.borrow_mut().push(a.get(1).clone());
    Ok(Value::None)
}

fn extend(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let l = this(a, "extend")?;
    // Collect first: `l.extend(l)` must see the list as it was.
    let items = vm.collect(a.get(1))?;
    super::check_alloc(l.borrow().len().saturating_add(items.len()), 16)?;
    l.borrow_mut().extend(items);
    Ok(Value::None)
}

fn insert(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let l = this(a, "insert")?;
    let i = super::int_arg(a.get(1), vm)?;
    let mut v = l.borrow_mut();
    let n = v.len() as i64;
    let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
    v.insert(i as usize, a.get(2).clone());
    Ok(Value::None)
}

/// Position of the first item equal to `x` (identity first, as CPython).
fn position(
    vm: &dyn Vm,
    l: &RefCell<Vec<Value>>,
    x: &Value,
    start: usize,
    stop: usize,
) -> PyResult<Option<usize>> {
    let mut i = start;
    loop {
        let item = match l.borrow().get(i) {
            Some(v) if i < stop => v.clone(),
            _ => return Ok(None),
        };
        if item.is(x) || vm.eq(&item, x)? {
            return Ok(Some(i));
        }
        i += 1;
    }
}

fn remove(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let l = this(a, "remove")?;
    match position(vm, l, a.get(1), 0, usize::MAX)? {
        Some(i) if i < l.borrow().len() => {
            l.borrow_mut().remove(i);
            Ok(Value::None)
        }
        _ => Err(value_error("list.remove(x): x not in list")),
    }
}

fn pop(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let l = this(a, "pop")?;
    let i = super::int_arg(a.get(1), vm)?;
    let mut v = l.borrow_mut();
    if v.is_empty() {
        return Err(PyErr::new(ExcType::IndexError, "pop from empty list"));
    }
    let n = v.len() as i64;
    let j = if i < 0 { i + n } else { i };
    if j < 0 || j >= n {
        return Err(PyErr::new(ExcType::IndexError, "pop index out of range"));
    }
    Ok(v.remove(j as usize))
}

fn clear(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let old = std::mem::take(&mut *this(a, "clear")?.borrow_mut());
    drop(old);
    Ok(Value::None)
}

/// Resolves `start`/`stop` arguments of `index` against a length.
pub fn index_bounds(
    vm: &dyn Vm,
    start: &Value,
    stop: &Value,
    len: usize,
) -> PyResult<(usize, usize)> {
    let fix = |x: i64| -> usize {
        if x < 0 {
            (x + len as i64).max(0) as usize
        } else {
            (x as usize).min(len)
        }
    };
    Ok((
        fix(super::int_arg(start, vm)?),
        fix(super::int_arg(stop, vm)?),
    ))
}

fn index(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let l = this(a, "index")?;
    let len = l.borrow().len();
    let (start, stop) = index_bounds(vm, a.get(2), a.get(3), len)?;
    match position(vm, l, a.get(1), start, stop)? {
        Some(i) => Ok(Value::Int(i as i64)),
        None => Err(value_error(format!(
            "{} is not in list",
            vm.repr(a.get(1))?
        ))),
    }
}

fn count(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let items = this(a, "count")?.borrow().clone();
    let mut n = 0;
    for it in &items {
        if it.is(a.get(1)) || vm.eq(it, a.get(1))? {
            n += 1;
        }
    }
    Ok(Value::Int(n))
}

fn sort(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let l = this(a, "sort")?;
    let items = std::mem::take(&mut *l.borrow_mut());
    let reverse = reverse_flag(vm, a.get(2))?;
    let result = sort_values(vm, items.clone(), a.get(1), reverse);
    let mut v = l.borrow_mut();
    let modified = !v.is_empty();
    match result {
        Ok(sorted) if !modified => *v = sorted,
        Ok(_) => {
            *v = items;
            return Err(value_error("list modified during sort"));
        }
        Err(e) => {
            *v = items;
            return Err(e);
        }
    }
    Ok(Value::None)
}

/// The `reverse=` of `sort`/`sorted`: an int (bools are), as CPython's
/// argument parser takes it (`reverse=None` is a TypeError).
pub fn reverse_flag(vm: &dyn Vm, v: &Value) -> PyResult<bool> {
    match super::as_index(v, vm)? {
        Some(i) => Ok(i != 0),
        None => Err(super::type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            v.type_name()
        ))),
    }
}

fn reverse(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    this(a, "reverse")?.borrow_mut().reverse();
    Ok(Value::None)
}

fn copy(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::list(this(a, "copy")?.borrow().clone()))
}

/// Sorts values stably by `key` (None: the values themselves) with `vm.lt`,
/// as `sorted(items, key=key, reverse=reverse)`.
pub fn sort_values(
    vm: &dyn Vm,
    mut items: Vec<Value>,
    key: &Value,
    reverse: bool,
) -> PyResult<Vec<Value>> {
    let keys = if key.is_none() {
        None
    } else {
        Some(
            items
                .iter()
                .map(|x| vm.call(key, vec![x.clone()], Vec::new()))
                .collect::<PyResult<Vec<_>>>()?,
        )
    };
    // CPython reverses before and after a stable sort so equal items keep
    // their order under reverse=True.
    if reverse {
        items.reverse();
    }
    let mut pairs: Vec<(Value, Value)> = match keys {
        Some(mut k) => {
            if reverse {
                k.reverse();
            }
            k.into_iter().zip(items).collect()
        }
        None => items.into_iter().map(|x| (x.clone(), x)).collect(),
    };
    merge_sort(vm, &mut pairs)?;
    let mut out: Vec<Value> = pairs.into_iter().map(|(_, v)| v).collect();
    if reverse {
        out.reverse();
    }
    Ok(out)
}

/// Stable merge sort on `(key, value)` pairs using only `<` on keys.
fn merge_sort(vm: &dyn Vm, v: &mut [(Value, Value)]) -> PyResult<()> {
    let less = |x: &Value, y: &Value| vm.lt(x, y);
    let n = v.len();
    // Insertion sort of short runs, then bottom-up merging.
    const RUN: usize = 16;
    let mut start = 0;
    while start < n {
        let end = (start + RUN).min(n);
        for i in start + 1..end {
            let mut j = i;
            while j > start && less(&v[j].0, &v[j - 1].0)? {
                v.swap(j, j - 1);
                j -= 1;
            }
        }
        start = end;
    }
    let mut width = RUN;
    let mut buf: Vec<(Value, Value)> = Vec::with_capacity(n);
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            if mid < hi {
                buf.clear();
                let (mut i, mut j) = (lo, mid);
                while i < mid && j < hi {
                    // Take from the right only when strictly less: stability.
                    if less(&v[j].0, &v[i].0)? {
                        buf.push(v[j].clone());
                        j += 1;
                    } else {
                        buf.push(v[i].clone());
                        i += 1;
                    }
                }
                buf.extend_from_slice(&v[i..mid]);
                buf.extend_from_slice(&v[j..hi]);
                v[lo..hi].clone_from_slice(&buf);
            }
            lo = hi;
        }
        width *= 2;
    }
    Ok(())
}
