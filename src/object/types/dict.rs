//! `dict`: constructor (mapping, iterable of pairs, keywords) and methods.
//! The key/value/item views are in `views`.

use std::cell::RefCell;
use std::rc::Rc;

use super::iter::DictPart;
use super::views::DictView;
use super::{add_method, add_new, descriptor_error, type_error, value_error};
use crate::value::dict::{dict_get, dict_remove, dict_set, dict_set_key, Key};
use crate::value::{Args, Class, Dict, ExcType, PyErr, PyResult, Value, Vm};

fn this<'a>(a: &'a Args, name: &str) -> PyResult<&'a Rc<RefCell<Dict>>> {
    match a.get(0) {
        Value::Dict(d) => Ok(d),
        other => Err(descriptor_error(name, "dict", other)),
    }
}

/// Registers `dict`'s constructor and methods.
pub fn register(c: &Class) {
    super::subclass::register_init(c, crate::value::ValueType::Dict);
    add_new(
        c,
        "dict(*args, **kwargs)",
        dict_new,
        "A new dict from a mapping or pairs, plus keywords: `dict(a=1) == {'a': 1}`.",
    );
    add_method(c, "dict.keys(self)", keys, "A view of the keys.");
    add_method(c, "dict.values(self)", values, "A view of the values.");
    add_method(
        c,
        "dict.items(self)",
        items,
        "A view of the `(key, value)` pairs.",
    );
    add_method(
        c,
        "dict.get(self, key, default=None, /)",
        get,
        "The value for `key`, or `default`.",
    );
    add_method(
        c,
        "dict.setdefault(self, key, default=None, /)",
        setdefault,
        "The value for `key`, inserting `default` first if absent.",
    );
    add_method(
        c,
        "dict.pop(self, key, /, *default)",
        pop,
        "Removes `key` and returns its value (or `default`; KeyError without one).",
    );
    add_method(
        c,
        "dict.popitem(self)",
        popitem,
        "Removes and returns the last inserted `(key, value)` pair.",
    );
    add_method(
        c,
        "dict.update(self, *args, **kwargs)",
        update,
        "Adds the pairs of a mapping or iterable, then the keywords.",
    );
    add_method(c, "dict.clear(self)", clear, "Removes all items.");
    add_method(c, "dict.copy(self)", copy, "A shallow copy.");
    super::add_class_method(c, "dict.fromkeys(cls, iterable, value=None, /)", fromkeys, "A new dict with the iterable's items as keys: `dict.fromkeys('ab', 0) == {'a': 0, 'b': 0}`.");
}

/// `d.update(other)`: from a dict, a mapping with `keys()`, or pairs.
pub fn dict_update(vm: &dyn Vm, d: &Rc<RefCell<Dict>>, other: &Value) -> PyResult<()> {
    if let Some(base) = super::subclass::merged_dict(other) {
        return dict_update(vm, d, &base);
    }
    match other {
        Value::Dict(o) => {
            let pairs: Vec<(Key, Value)> = o
                .borrow()
                .map
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (k, v) in pairs {
                dict_set_key(vm, d, k, v)?;
            }
            return Ok(());
        }
        Value::Instance(_) | Value::Native(_) => {
            if let Ok(keys) = vm.getattr(other, "keys") {
                let keys = vm.call(&keys, Vec::new(), Vec::new())?;
                for k in vm.collect(&keys)? {
                    let v = vm.getitem(other, &k)?;
                    dict_set(vm, d, k, v)?;
                }
                return Ok(());
            }
        }
        _ => {}
    }
    let it = vm.iter(other)?;
    let mut i = 0;
    while let Some(elem) = vm.next(&it)? {
        let pair = match &elem {
            Value::Tuple(t) => t.to_vec(),
            Value::List(l) => l.borrow().clone(),
            Value::Str(_)
            | Value::Native(_)
            | Value::Instance(_)
            | Value::Bytes(_)
            | Value::Dict(_)
            | Value::Set(_) => vm.collect(&elem)?,
            _ => {
                return Err(type_error(format!(
                    "cannot convert dictionary update sequence element #{i} to a sequence"
                )))
            }
        };
        if pair.len() != 2 {
            return Err(value_error(format!(
                "dictionary update sequence element #{i} has length {}; 2 is required",
                pair.len()
            )));
        }
        let mut pair = pair.into_iter();
        if let (Some(k), Some(v)) = (pair.next(), pair.next()) {
            dict_set(vm, d, k, v)?;
        }
        i += 1;
    }
    Ok(())
}

fn update_from_args(
    vm: &dyn Vm,
    d: &Rc<RefCell<Dict>>,
    args: &[Value],
    kwargs: &Value,
    name: &str,
) -> PyResult<()> {
    if args.len() > 1 {
        return Err(type_error(format!(
            "{name} expected at most 1 argument, got {}",
            args.len()
        )));
    }
    if let Some(other) = args.first() {
        dict_update(vm, d, other)?;
    }
    if let Value::Dict(kw) = kwargs {
        dict_update(vm, d, &Value::Dict(kw.clone()))?;
    }
    Ok(())
}

fn dict_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = Rc::new(RefCell::new(Dict::new()));
    update_from_args(vm, &d, a.varargs(0), a.get(1), "dict")?;
    Ok(Value::Dict(d))
}

fn view(a: &Args, name: &str, part: DictPart) -> PyResult<Value> {
    Ok(Value::native(DictView {
        dict: this(a, name)?.clone(),
        part,
    }))
}

fn keys(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    view(a, "keys", DictPart::Keys)
}

fn values(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    view(a, "values", DictPart::Values)
}

fn items(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    view(a, "items", DictPart::Items)
}

fn get(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = this(a, "get")?;
    let found = dict_get(vm, d, a.get(1))?;
    Ok(found.unwrap_or_else(|| a.get(2).clone()))
}

fn setdefault(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = this(a, "setdefault")?;
    let found = dict_get(vm, d, a.get(1))?;
    match found {
        Some(v) => Ok(v),
        None => {
            dict_set(vm, d, a.get(1).clone(), a.get(2).clone())?;
            Ok(a.get(2).clone())
        }
    }
}

fn pop(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = this(a, "pop")?;
    let default = a.varargs(2);
    if default.len() > 1 {
        return Err(type_error(format!(
            "pop expected at most 2 arguments, got {}",
            default.len() + 1
        )));
    }
    let removed = dict_remove(vm, d, a.get(1))?;
    match (removed, default.first()) {
        (Some(v), _) => Ok(v),
        (None, Some(dflt)) => Ok(dflt.clone()),
        (None, None) => Err(PyErr::with_args(ExcType::KeyError, vec![a.get(1).clone()])),
    }
}

fn popitem(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = this(a, "popitem")?;
    let last = d.borrow_mut().map.pop();
    match last {
        Some((k, v)) => Ok(Value::tuple(vec![k.0, v])),
        None => Err(PyErr::new(
            ExcType::KeyError,
            "popitem(): dictionary is empty",
        )),
    }
}

fn update(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let d = this(a, "update")?.clone();
    update_from_args(vm, &d, a.varargs(1), a.get(2), "update")?;
    Ok(Value::None)
}

fn clear(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let old = std::mem::take(&mut *this(a, "clear")?.borrow_mut());
    drop(old);
    Ok(Value::None)
}

fn copy(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::dict(this(a, "copy")?.borrow().clone()))
}

/// `cls.fromkeys(iterable, value)`: a dict subclass's instance is made by
/// `cls()` and filled through its `__setitem__`, as CPython does.
fn fromkeys(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (cls, keys, value) = (a.get(0), a.get(1), a.get(2));
    if matches!(cls, Value::Class(c) if matches!(c.kind, crate::value::ClassKind::Builtin(_))) {
        let mut d = Dict::new();
        for k in vm.collect(keys)? {
            d.insert_vm(vm, k, value.clone())?;
        }
        return Ok(Value::dict(d));
    }
    let d = vm.call(cls, Vec::new(), Vec::new())?;
    for k in vm.collect(keys)? {
        vm.setitem(&d, &k, value.clone())?;
    }
    Ok(d)
}
