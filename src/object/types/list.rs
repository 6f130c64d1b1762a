//! `list`: constructor and methods, and the stable fallible merge sort that
//! `list.sort` and `sorted` share (only `<` is used, as in CPython, and a
//! comparison error stops the sort cleanly — no panic on inconsistent orders).

use std::cell::RefCell;
use std::rc::Rc;

use super::{not_an_integer, value_error};
use crate::object::{native, Member};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// A list's items (the receiver of its methods).
type List = Rc<RefCell<Vec<Value>>>;

/// `list`'s constructor, `__init__` and methods.
pub static MEMBERS: &[Member] = &[
    Member::Attr("__init__", || super::subclass::list_init::DEF.value()),
    Member::New(list_new::DEF),
    Member::Method(append::DEF),
    Member::Method(extend::DEF),
    Member::Method(insert::DEF),
    Member::Method(remove::DEF),
    Member::Method(pop::DEF),
    Member::Method(clear::DEF),
    Member::Method(index::DEF),
    Member::Method(count::DEF),
    Member::Method(sort::DEF),
    Member::Method(reverse::DEF),
    Member::Method(copy::DEF),
];

/// A new list of the iterable's items: `list('ab') == ['a', 'b']`.
#[native("list(iterable=(), /)", c_ctor)]
fn list_new(vm: &dyn Vm, iterable: &Value) -> PyResult<Vec<Value>> {
    vm.collect(iterable)
}

/// Adds an item at the end.
#[native("list.append(self, object, /)", c)]
fn append(this: &List, object: Value) -> PyResult<()> {
    super::push(&mut this.borrow_mut(), object)
}

/// Adds the iterable's items at the end.
#[native("list.extend(self, iterable, /)", c)]
fn extend(vm: &dyn Vm, this: &List, iterable: &Value) -> PyResult<()> {
    // Collect first: `l.extend(l)` must see the list as it was.
    let items = vm.collect(iterable)?;
    let mut v = this.borrow_mut();
    super::reserve(&mut v, items.len())?;
    v.extend(items);
    Ok(())
}

/// Inserts an item before `index`.
#[native("list.insert(self, index, object, /)", c)]
fn insert(vm: &dyn Vm, this: &List, index: &Value, object: Value) -> PyResult<()> {
    let i = super::int_arg(index, vm)?;
    let mut v = this.borrow_mut();
    let n = v.len() as i64;
    let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
    super::reserve(&mut v, 1)?;
    v.insert(i as usize, object);
    Ok(())
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

/// Removes the first item equal to `value` (ValueError if absent).
#[native("list.remove(self, value, /)", c)]
fn remove(vm: &dyn Vm, this: &List, value: &Value) -> PyResult<()> {
    match position(vm, this, value, 0, usize::MAX)? {
        Some(i) if i < this.borrow().len() => {
            this.borrow_mut().remove(i);
            Ok(())
        }
        _ => Err(value_error("list.remove(x): x not in list")),
    }
}

/// Removes and returns the item at `index` (the last by default).
#[native("list.pop(self, index=-1, /)", c)]
fn pop(vm: &dyn Vm, this: &List, index: &Value) -> PyResult<Value> {
    let i = super::int_arg(index, vm)?;
    let mut v = this.borrow_mut();
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

/// Removes all items.
#[native("list.clear(self)", c)]
fn clear(this: &List) {
    // The items are dropped after the borrow ends (a `__del__` may read the list).
    let old = std::mem::take(&mut *this.borrow_mut());
    drop(old);
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
    // Past 64 bits a bound is clipped (CPython's `_PyEval_SliceIndex`).
    let bound = |v: &Value| -> PyResult<i64> {
        match super::as_index_value(v, vm)? {
            Some(Value::Int(i)) => Ok(i),
            Some(Value::Long(n)) if super::long::sign(&n) < 0 => Ok(i64::MIN),
            Some(_) => Ok(i64::MAX),
            None => Err(super::type_error(
                "slice indices must be integers or have an __index__ method",
            )),
        }
    };
    Ok((fix(bound(start)?), fix(bound(stop)?)))
}

/// Position of the first item equal to `value`.
#[native("list.index(self, value, start=0, stop=9223372036854775807, /)", c)]
fn index(vm: &dyn Vm, this: &List, value: &Value, start: &Value, stop: &Value) -> PyResult<usize> {
    let len = this.borrow().len();
    let (start, stop) = index_bounds(vm, start, stop, len)?;
    match position(vm, this, value, start, stop)? {
        Some(i) => Ok(i),
        None => Err(value_error(format!("{} is not in list", vm.repr(value)?))),
    }
}

/// How many items equal `value`.
#[native("list.count(self, value, /)", c)]
fn count(vm: &dyn Vm, this: &List, value: &Value) -> PyResult<i64> {
    let items = this.borrow().clone();
    let mut n = 0;
    for it in &items {
        if it.is(value) || vm.eq(it, value)? {
            n += 1;
        }
    }
    Ok(n)
}

/// Sorts in place, stably: `l.sort(key=len, reverse=True)`.
#[native("list.sort(self, *, key=None, reverse=False)", c)]
fn sort(vm: &dyn Vm, this: &List, key: &Value, reverse: &Value) -> PyResult<()> {
    let items = std::mem::take(&mut *this.borrow_mut());
    let reverse = reverse_flag(vm, reverse)?;
    let result = sort_values(vm, items.clone(), key, reverse);
    let mut v = this.borrow_mut();
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
    Ok(())
}

/// The `reverse=` of `sort`/`sorted`: an int (bools are), as CPython's
/// argument parser takes it (`reverse=None` is a TypeError).
pub fn reverse_flag(vm: &dyn Vm, v: &Value) -> PyResult<bool> {
    match super::as_index(v, vm)? {
        Some(i) => Ok(i != 0),
        None => Err(not_an_integer(v)),
    }
}

/// Reverses in place.
#[native("list.reverse(self)", c)]
fn reverse(this: &List) {
    this.borrow_mut().reverse();
}

/// A shallow copy.
#[native("list.copy(self)", c)]
fn copy(this: &List) -> Vec<Value> {
    this.borrow().clone()
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
