//! `set` and `frozenset`: constructors and methods, and the set algebra the
//! operators (`|`, `&`, `-`, `^`, `<=` …) share with the methods.

use std::rc::Rc;

use indexmap::IndexSet;

use super::{add_method, add_new, descriptor_error};
use crate::value::dict::{key_set_insert, keys_subset, set_add, set_algebra, set_discard, SetObj};
use crate::value::{Args, Class, ExcType, Key, NativeFn, PyErr, PyResult, Value, Vm};

/// A new set (or frozenset) value.
pub fn make_set(items: IndexSet<Key>, frozen: bool) -> Value {
    Value::Set(Rc::new(SetObj::new(items, frozen)))
}

/// The elements of any iterable as set keys (TypeError for unhashable ones).
pub fn collect_keys(vm: &dyn Vm, v: &Value) -> PyResult<IndexSet<Key>> {
    if let Value::Set(s) = v {
        return Ok(s.items.borrow().clone());
    }
    let mut out = IndexSet::new();
    for x in vm.collect(v)? {
        key_set_insert(vm, &mut out, x)?;
    }
    Ok(out)
}

/// The set algebra: `op` is one of `| & - ^`.
pub fn combine(
    vm: &dyn Vm,
    op: char,
    a: &IndexSet<Key>,
    b: &IndexSet<Key>,
) -> PyResult<IndexSet<Key>> {
    set_algebra(vm, op, a, b)
}

fn this<'a>(a: &'a Args, name: &str) -> PyResult<&'a Rc<SetObj>> {
    match a.get(0) {
        Value::Set(s) => Ok(s),
        other => Err(descriptor_error(name, "set", other)),
    }
}

fn this_mut<'a>(a: &'a Args, name: &str) -> PyResult<&'a Rc<SetObj>> {
    match a.get(0) {
        Value::Set(s) if !s.frozen => Ok(s),
        other => Err(descriptor_error(name, "set", other)),
    }
}

/// Registers the methods of `set` (or, with `frozen`, of `frozenset`).
pub fn register(c: &Class, frozen: bool) {
    if frozen {
        add_new(
            c,
            "frozenset(iterable=(), /)",
            frozenset_new,
            "An immutable set of the iterable's items.",
        );
    } else {
        add_new(
            c,
            "set(iterable=(), /)",
            set_new,
            "A new set of the iterable's items: `set('aab') == {'a', 'b'}`.",
        );
    }
    let common: [(&str, NativeFn, &'static str); 8] = [
        (
            "set.union(self, *others)",
            union,
            "The items in this set or any of `others`.",
        ),
        (
            "set.intersection(self, *others)",
            intersection,
            "The items in this set and all of `others`.",
        ),
        (
            "set.difference(self, *others)",
            difference,
            "The items in this set and none of `others`.",
        ),
        (
            "set.symmetric_difference(self, other, /)",
            symmetric_difference,
            "The items in exactly one of the two.",
        ),
        (
            "set.issubset(self, other, /)",
            issubset,
            "Whether every item is in `other`.",
        ),
        (
            "set.issuperset(self, other, /)",
            issuperset,
            "Whether every item of `other` is in this set.",
        ),
        (
            "set.isdisjoint(self, other, /)",
            isdisjoint,
            "Whether no item is in `other`.",
        ),
        ("set.copy(self)", copy, "A shallow copy."),
    ];
    for (sig, f, doc) in common {
        let sig = if frozen {
            sig.replacen("set.", "frozenset.", 1)
        } else {
            sig.to_string()
        };
        add_method(c, &sig, f, doc);
    }
    if frozen {
        return;
    }
    let mutating: [(&str, NativeFn, &'static str); 9] = [
        ("set.add(self, object, /)", add, "Adds an item."),
        (
            "set.remove(self, object, /)",
            remove,
            "Removes an item (KeyError if absent).",
        ),
        (
            "set.discard(self, object, /)",
            discard,
            "Removes an item if present.",
        ),
        (
            "set.pop(self)",
            pop,
            "Removes and returns an arbitrary item (KeyError if empty).",
        ),
        ("set.clear(self)", clear, "Removes all items."),
        (
            "set.update(self, *others)",
            update,
            "Adds the items of `others`.",
        ),
        (
            "set.intersection_update(self, *others)",
            intersection_update,
            "Keeps only items also in all `others`.",
        ),
        (
            "set.difference_update(self, *others)",
            difference_update,
            "Removes the items of `others`.",
        ),
        (
            "set.symmetric_difference_update(self, other, /)",
            symmetric_difference_update,
            "Keeps items in exactly one of the two.",
        ),
    ];
    for (sig, f, doc) in mutating {
        add_method(c, sig, f, doc);
    }
}

fn set_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(make_set(collect_keys(vm, a.get(0))?, false))
}

fn frozenset_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    match a.get(0) {
        Value::Set(s) if s.frozen => Ok(a.get(0).clone()),
        other => Ok(make_set(collect_keys(vm, other)?, true)),
    }
}

fn fold(vm: &dyn Vm, a: &Args, name: &str, op: char) -> PyResult<Value> {
    let s = this(a, name)?;
    let mut acc = s.items.borrow().clone();
    for other in a.varargs(1) {
        acc = combine(vm, op, &acc, &collect_keys(vm, other)?)?;
    }
    Ok(make_set(acc, s.frozen))
}

fn union(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    fold(vm, a, "union", '|')
}

fn intersection(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    fold(vm, a, "intersection", '&')
}

fn difference(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    fold(vm, a, "difference", '-')
}

fn symmetric_difference(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "symmetric_difference")?;
    let mine = s.items.borrow().clone();
    let r = combine(vm, '^', &mine, &collect_keys(vm, a.get(1))?)?;
    Ok(make_set(r, s.frozen))
}

fn issubset(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "issubset")?;
    let o = collect_keys(vm, a.get(1))?;
    let mine = s.items.borrow().clone();
    Ok(Value::Bool(keys_subset(vm, &mine, &o)?))
}

fn issuperset(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "issuperset")?;
    let o = collect_keys(vm, a.get(1))?;
    let mine = s.items.borrow().clone();
    Ok(Value::Bool(keys_subset(vm, &o, &mine)?))
}

fn isdisjoint(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "isdisjoint")?;
    let o = collect_keys(vm, a.get(1))?;
    let mine = s.items.borrow().clone();
    Ok(Value::Bool(combine(vm, '&', &mine, &o)?.is_empty()))
}

fn copy(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "copy")?;
    Ok(make_set(s.items.borrow().clone(), s.frozen))
}

fn add(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    set_add(vm, this_mut(a, "add")?, a.get(1).clone())?;
    Ok(Value::None)
}

fn remove(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    if set_discard(vm, this_mut(a, "remove")?, a.get(1))? {
        Ok(Value::None)
    } else {
        Err(PyErr::with_args(ExcType::KeyError, vec![a.get(1).clone()]))
    }
}

fn discard(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    set_discard(vm, this_mut(a, "discard")?, a.get(1))?;
    Ok(Value::None)
}

fn pop(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this_mut(a, "pop")?;
    let first = s.items.borrow_mut().shift_remove_index(0);
    first
        .map(|k| k.0)
        .ok_or_else(|| PyErr::new(ExcType::KeyError, "pop from an empty set"))
}

fn clear(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let old = std::mem::take(&mut *this_mut(a, "clear")?.items.borrow_mut());
    drop(old);
    Ok(Value::None)
}

fn update_with(vm: &dyn Vm, a: &Args, name: &str, op: char) -> PyResult<Value> {
    let s = this_mut(a, name)?;
    let others = if op == '^' {
        std::slice::from_ref(a.get(1))
    } else {
        a.varargs(1)
    };
    for other in others {
        let o = collect_keys(vm, other)?;
        let mine = s.items.borrow().clone();
        let new = combine(vm, op, &mine, &o)?;
        *s.items.borrow_mut() = new;
    }
    Ok(Value::None)
}

fn update(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    update_with(vm, a, "update", '|')
}

fn intersection_update(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    update_with(vm, a, "intersection_update", '&')
}

fn difference_update(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    update_with(vm, a, "difference_update", '-')
}

fn symmetric_difference_update(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    update_with(vm, a, "symmetric_difference_update", '^')
}
