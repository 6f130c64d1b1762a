//! `dict`: constructor (mapping, iterable of pairs, keywords) and methods.
//! The key/value/item views are in `views`.

use std::cell::RefCell;
use std::rc::Rc;

use super::iter::DictPart;
use super::views::DictView;
use super::{type_error, value_error};
use crate::object::{native, Member};
use crate::value::dict::{dict_get, dict_remove, dict_set, dict_set_key, Key};
use crate::value::{Dict, ExcType, PyErr, PyResult, Value, Vm};

/// A dict (the receiver of its methods).
type DictRef = Rc<RefCell<Dict>>;

/// `dict`'s constructor, `__init__` and methods.
pub static MEMBERS: &[Member] = &[
    Member::Attr("__init__", || super::subclass::dict_init::DEF.value()),
    Member::New(dict_new::DEF),
    Member::Method(keys::DEF),
    Member::Method(values::DEF),
    Member::Method(items::DEF),
    Member::Method(get::DEF),
    Member::Method(setdefault::DEF),
    Member::Method(pop::DEF),
    Member::Method(popitem::DEF),
    Member::Method(update::DEF),
    Member::Method(clear::DEF),
    Member::Method(copy::DEF),
    Member::ClassMethod(fromkeys::DEF),
];

/// `d.update(other)`: from a dict, a mapping with `keys()`, or pairs.
pub fn dict_update(vm: &dyn Vm, d: &Rc<RefCell<Dict>>, other: &Value) -> PyResult<()> {
    if let Some(base) = super::subclass::merged_dict(other) {
        return dict_update(vm, d, &base);
    }
    match other {
        Value::Dict(o) => {
            let o = o.borrow();
            let mut pairs: Vec<(Key, Value)> = super::alloc_vec(o.len())?;
            pairs.extend(o.map.iter().map(|(k, v)| (k.clone(), v.clone())));
            drop(o);
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

/// A new dict from a mapping or pairs, plus keywords: `dict(a=1) == {'a': 1}`.
#[native("dict(*args, **kwargs)", c_ctor)]
fn dict_new(vm: &dyn Vm, args: &[Value], kwargs: &Value) -> PyResult<Value> {
    let d = Rc::new(RefCell::new(Dict::new()));
    update_from_args(vm, &d, args, kwargs, "dict")?;
    Ok(Value::Dict(d))
}

fn view(this: &DictRef, part: DictPart) -> Value {
    Value::native(DictView {
        dict: this.clone(),
        part,
    })
}

/// A view of the keys.
#[native("dict.keys(self)", c)]
fn keys(this: &DictRef) -> Value {
    view(this, DictPart::Keys)
}

/// A view of the values.
#[native("dict.values(self)", c)]
fn values(this: &DictRef) -> Value {
    view(this, DictPart::Values)
}

/// A view of the `(key, value)` pairs.
#[native("dict.items(self)", c)]
fn items(this: &DictRef) -> Value {
    view(this, DictPart::Items)
}

/// The value for `key`, or `default`.
#[native("dict.get(self, key, default=None, /)", c)]
fn get(vm: &dyn Vm, this: &DictRef, key: &Value, default: &Value) -> PyResult<Value> {
    let found = dict_get(vm, this, key)?;
    Ok(found.unwrap_or_else(|| default.clone()))
}

/// The value for `key`, inserting `default` first if absent.
#[native("dict.setdefault(self, key, default=None, /)", c)]
fn setdefault(vm: &dyn Vm, this: &DictRef, key: &Value, default: Value) -> PyResult<Value> {
    match dict_get(vm, this, key)? {
        Some(v) => Ok(v),
        None => {
            dict_set(vm, this, key.clone(), default.clone())?;
            Ok(default)
        }
    }
}

/// Removes `key` and returns its value (or `default`; KeyError without one).
#[native("dict.pop(self, key, /, *default)", c)]
fn pop(vm: &dyn Vm, this: &DictRef, key: &Value, default: &[Value]) -> PyResult<Value> {
    if default.len() > 1 {
        return Err(type_error(format!(
            "pop expected at most 2 arguments, got {}",
            default.len() + 1
        )));
    }
    let removed = dict_remove(vm, this, key)?;
    match (removed, default.first()) {
        (Some(v), _) => Ok(v),
        (None, Some(dflt)) => Ok(dflt.clone()),
        (None, None) => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
    }
}

/// Removes and returns the last inserted `(key, value)` pair.
#[native("dict.popitem(self)", c)]
fn popitem(this: &DictRef) -> PyResult<Value> {
    let last = this.borrow_mut().map.pop();
    match last {
        Some((k, v)) => Ok(Value::tuple(vec![k.0, v])),
        None => Err(PyErr::new(
            ExcType::KeyError,
            "popitem(): dictionary is empty",
        )),
    }
}

/// Adds the pairs of a mapping or iterable, then the keywords.
#[native("dict.update(self, *args, **kwargs)", c)]
fn update(vm: &dyn Vm, this: &DictRef, args: &[Value], kwargs: &Value) -> PyResult<()> {
    update_from_args(vm, this, args, kwargs, "update")
}

/// Removes all items.
#[native("dict.clear(self)", c)]
fn clear(this: &DictRef) {
    let old = std::mem::take(&mut *this.borrow_mut());
    drop(old);
}

/// A shallow copy.
#[native("dict.copy(self)", c)]
fn copy(this: &DictRef) -> PyResult<Value> {
    Ok(Value::dict(this.borrow().try_clone()?))
}

/// A new dict with the iterable's items as keys: `dict.fromkeys('ab', 0) == {'a': 0, 'b': 0}`.
// `cls.fromkeys(iterable, value)`: a dict subclass's instance is made by
// `cls()` and filled through its `__setitem__`, as CPython does.
#[native("dict.fromkeys(cls, iterable, value=None, /)", c)]
fn fromkeys(vm: &dyn Vm, cls: &Value, iterable: &Value, value: &Value) -> PyResult<Value> {
    if matches!(cls, Value::Class(c) if matches!(c.kind, crate::value::ClassKind::Builtin(_))) {
        let mut d = Dict::new();
        for k in vm.collect(iterable)? {
            d.insert_vm(vm, k, value.clone())?;
        }
        return Ok(Value::dict(d));
    }
    let d = vm.call(cls, Vec::new(), Vec::new())?;
    for k in vm.collect(iterable)? {
        vm.setitem(&d, &k, value.clone())?;
    }
    Ok(d)
}
