//! Iterator objects: the iterators of builtin containers (`list_iterator`,
//! `str_ascii_iterator`, `dict_keyiterator`, `range_iterator` …) and the
//! lazy builtins `enumerate`, `zip`, `map`, `filter`, `reversed`.
//! Containers are read live, as CPython does: a list iterator sees appends,
//! a dict iterator raises when the dict changes size.

use std::cell::RefCell;
use std::rc::Rc;

use super::{type_error, value_error};
use crate::object::{native, ClassSpec, Member};
use crate::value::{Dict, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// Which part of a dict an iterator yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictPart {
    /// Keys.
    Keys,
    /// Values.
    Values,
    /// `(key, value)` tuples.
    Items,
}

/// The state of an iterator.
pub enum IterState {
    /// Over a list backwards; the index is one past the next item.
    ListRev(Rc<RefCell<Vec<Value>>>, usize),
    /// Over a snapshot of values (tuples, reversed sequences).
    Values(Rc<Vec<Value>>, usize),
    /// Over a range: next value, step, items left.
    Range(i64, i64, u64),
    /// Over a range past 64 bits: next value, step, items left.
    BigRange(Box<[num_bigint::BigInt; 3]>),
    /// Over a dict: position, size at start, what to yield.
    Dict(Rc<RefCell<Dict>>, usize, usize, DictPart),
    /// `enumerate`: inner iterator and the next count.
    Enumerate(Value, i64),
    /// `zip`: inner iterators and `strict`.
    Zip(Vec<Value>, bool),
    /// `map`: the function and inner iterators.
    Map(Value, Vec<Value>),
    /// `filter`: the predicate (None: truthiness) and inner iterator.
    Filter(Value, Value),
    /// `iter(func, sentinel)`: calls `func` until it returns `sentinel`.
    Callable(Value, Value),
    /// Exhausted.
    Done,
}

/// An iterator object; `name` is its Python type name.
pub struct IterObj {
    /// The type name (`list_iterator`, `enumerate` …).
    pub name: &'static str,
    /// Where it is.
    pub state: RefCell<IterState>,
}

impl IterObj {
    /// A new iterator value.
    pub fn value(name: &'static str, state: IterState) -> Value {
        Value::native(IterObj {
            name,
            state: RefCell::new(state),
        })
    }
}

/// Implement next(self).
#[native("__next__(self, /)")]
fn dunder_next(vm: &dyn Vm, this: &Value) -> PyResult<Value> {
    match vm.next(this)? {
        Some(v) => Ok(v),
        None => Err(PyErr::with_args(ExcType::StopIteration, Vec::new())),
    }
}

/// Implement iter(self).
#[native("__iter__(self, /)")]
fn dunder_iter(this: Value) -> Value {
    this
}

/// The iterator protocol's methods, which every builtin iterator's class has.
const PROTOCOL: [Member; 2] = [
    Member::Method(dunder_next::DEF),
    Member::Method(dunder_iter::DEF),
];

/// Declares the classes of the builtin iterators (and of the lazy
/// builtins, with their constructor), and [`iterator_spec`], which finds
/// one by name.
macro_rules! iterator_classes {
    ($($id:ident = $name:literal $(new $new:ident)?,)*) => {
        $(
            #[doc = concat!("The class `", $name, "`.")]
            static $id: ClassSpec = ClassSpec {
                name: $name,
                module: "builtins",
                bases: &[],
                members: &[$(Member::New($new::DEF),)? PROTOCOL[0], PROTOCOL[1]],
            };
        )*

        /// The class of a builtin iterator (or lazy builtin) by its type name.
        pub fn iterator_spec(name: &str) -> Option<&'static ClassSpec> {
            Some(match name {
                $($name => &$id,)*
                _ => return None,
            })
        }
    };
}

iterator_classes! {
    LIST_ITERATOR = "list_iterator",
    LIST_REVERSEITERATOR = "list_reverseiterator",
    TUPLE_ITERATOR = "tuple_iterator",
    STR_ASCII_ITERATOR = "str_ascii_iterator",
    STR_ITERATOR = "str_iterator",
    BYTES_ITERATOR = "bytes_iterator",
    DICT_KEYITERATOR = "dict_keyiterator",
    DICT_VALUEITERATOR = "dict_valueiterator",
    DICT_ITEMITERATOR = "dict_itemiterator",
    DICT_REVERSEKEYITERATOR = "dict_reversekeyiterator",
    DICT_REVERSEVALUEITERATOR = "dict_reversevalueiterator",
    DICT_REVERSEITEMITERATOR = "dict_reverseitemiterator",
    SET_ITERATOR = "set_iterator",
    RANGE_ITERATOR = "range_iterator",
    CALLABLE_ITERATOR = "callable_iterator",
    ITERATOR = "iterator",
    ENUMERATE = "enumerate" new new_enumerate,
    ZIP = "zip" new new_zip,
    MAP = "map" new new_map,
    FILTER = "filter" new new_filter,
    REVERSED = "reversed" new new_reversed,
}

/// An iterator over a dict's keys, values or items.
pub fn dict_iter(d: &Rc<RefCell<Dict>>, part: DictPart) -> Value {
    let name = match part {
        DictPart::Keys => "dict_keyiterator",
        DictPart::Values => "dict_valueiterator",
        DictPart::Items => "dict_itemiterator",
    };
    let n = d.borrow().len();
    IterObj::value(name, IterState::Dict(d.clone(), 0, n, part))
}

impl NativeObject for IterObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        iterator_spec(self.name)
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        // The state is taken out while inner iterators and functions run, so a
        // re-entrant call on the same iterator sees it exhausted instead of
        // double-borrowing.
        let mut state = std::mem::replace(&mut *self.state.borrow_mut(), IterState::Done);
        let result = step(&mut state, vm);
        match &result {
            Ok(Some(_)) => *self.state.borrow_mut() = state,
            _ => *self.state.borrow_mut() = IterState::Done,
        }
        result
    }
}

fn step(state: &mut IterState, vm: &dyn Vm) -> PyResult<Option<Value>> {
    match state {
        IterState::ListRev(l, i) => {
            if *i == 0 {
                return Ok(None);
            }
            *i -= 1;
            Ok(l.borrow().get(*i).cloned())
        }
        IterState::Values(t, i) => {
            let v = t.get(*i).cloned();
            *i += 1;
            Ok(v)
        }
        IterState::BigRange(b) => {
            let [next, step, left] = &mut **b;
            if num_traits::Zero::is_zero(left) {
                return Ok(None);
            }
            let v = Value::from_big(next.clone());
            *left -= 1u8;
            *next += &*step;
            Ok(Some(v))
        }
        IterState::Range(next, step, left) => {
            if *left == 0 {
                return Ok(None);
            }
            let v = *next;
            *left -= 1;
            if *left > 0 {
                *next = next.wrapping_add(*step);
            }
            Ok(Some(Value::Int(v)))
        }
        IterState::Dict(d, i, n, part) => {
            let d = d.borrow();
            if d.len() != *n {
                return Err(PyErr::new(
                    ExcType::RuntimeError,
                    "dictionary changed size during iteration",
                ));
            }
            let Some((at, k, v)) = d.map.next_entry(*i) else {
                return Ok(None);
            };
            *i = at + 1;
            Ok(Some(match part {
                DictPart::Keys => k.0.clone(),
                DictPart::Values => v.clone(),
                DictPart::Items => Value::tuple(vec![k.0.clone(), v.clone()]),
            }))
        }
        IterState::Enumerate(it, count) => match vm.next(it)? {
            Some(x) => {
                let c = *count;
                *count = count.checked_add(1).ok_or_else(super::int_overflow)?;
                Ok(Some(Value::tuple(vec![Value::Int(c), x])))
            }
            None => Ok(None),
        },
        IterState::Zip(its, strict) => zip_step(its, *strict, vm),
        IterState::Map(f, its) => {
            let mut args = Vec::with_capacity(its.len());
            for it in its.iter() {
                match vm.next(it)? {
                    Some(x) => args.push(x),
                    None => return Ok(None),
                }
            }
            vm.call(f, args, Vec::new()).map(Some)
        }
        IterState::Filter(f, it) => loop {
            let Some(x) = vm.next(it)? else {
                return Ok(None);
            };
            let keep = if f.is_none() {
                vm.truthy(&x)?
            } else {
                vm.truthy(&vm.call(f, vec![x.clone()], Vec::new())?)?
            };
            if keep {
                return Ok(Some(x));
            }
        },
        IterState::Callable(f, sentinel) => {
            let v = vm.call(f, Vec::new(), Vec::new())?;
            if vm.eq(&v, sentinel)? {
                return Ok(None);
            }
            Ok(Some(v))
        }
        IterState::Done => Ok(None),
    }
}

fn zip_step(its: &[Value], strict: bool, vm: &dyn Vm) -> PyResult<Option<Value>> {
    if its.is_empty() {
        return Ok(None);
    }
    let mut items = Vec::with_capacity(its.len());
    for (i, it) in its.iter().enumerate() {
        match vm.next(it)? {
            Some(x) => items.push(x),
            None => {
                if strict && i > 0 {
                    return Err(zip_mismatch(i, "shorter"));
                }
                if strict {
                    for (j, other) in its.iter().enumerate().skip(1) {
                        if vm.next(other)?.is_some() {
                            return Err(zip_mismatch(j, "longer"));
                        }
                    }
                }
                return Ok(None);
            }
        }
    }
    Ok(Some(Value::tuple(items)))
}

#[cold]
fn zip_mismatch(i: usize, what: &str) -> PyErr {
    let which = if i == 1 {
        "argument 1".to_string()
    } else {
        format!("arguments 1-{i}")
    };
    value_error(format!("zip() argument {} is {what} than {which}", i + 1))
}

/// Pairs each item with a count: `list(enumerate('ab', 1)) == [(1, 'a'), (2, 'b')]`.
#[native("enumerate(iterable, start=0)", c_ctor)]
fn new_enumerate(vm: &dyn Vm, iterable: &Value, start: &Value) -> PyResult<Value> {
    let it = vm.iter(iterable)?;
    let start = super::int_arg(start, vm)?;
    Ok(IterObj::value("enumerate", IterState::Enumerate(it, start)))
}

/// Tuples of the i-th items of each iterable: `list(zip('ab', [1, 2])) == [('a', 1), ('b', 2)]`.
#[native("zip(*iterables, strict=False)", c_ctor)]
fn new_zip(vm: &dyn Vm, iterables: &[Value], strict: bool) -> PyResult<Value> {
    let its = iterables
        .iter()
        .map(|v| vm.iter(v))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(IterObj::value("zip", IterState::Zip(its, strict)))
}

/// Applies `func` to each item lazily: `list(map(str, [1, 2])) == ['1', '2']`.
#[native("map(*args)", c_ctor)]
fn new_map(vm: &dyn Vm, args: &[Value]) -> PyResult<Value> {
    // `map(*args)`: CPython checks the count itself, with its own message.
    if args.len() < 2 {
        return Err(type_error("map() must have at least two arguments."));
    }
    let its = args[1..]
        .iter()
        .map(|v| vm.iter(v))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(IterObj::value("map", IterState::Map(args[0].clone(), its)))
}

/// The items for which `function(item)` is true: `list(filter(None, [0, 1])) == [1]`.
#[native("filter(function, iterable, /)", c_ctor)]
fn new_filter(vm: &dyn Vm, function: Value, iterable: &Value) -> PyResult<Value> {
    let it = vm.iter(iterable)?;
    Ok(IterObj::value("filter", IterState::Filter(function, it)))
}

/// An iterator over a sequence backwards: `list(reversed([1, 2])) == [2, 1]`.
#[native("reversed(sequence, /)", c_ctor)]
fn new_reversed(vm: &dyn Vm, sequence: &Value) -> PyResult<Value> {
    reversed_of(vm, sequence)
}

pub(crate) fn reversed_of(vm: &dyn Vm, seq: &Value) -> PyResult<Value> {
    // A subclass of a builtin sequence without its own `__reversed__`.
    if let Value::Instance(inst) = seq {
        if let Some(base) = inst.builtin_base() {
            if inst.class.lookup("__reversed__").is_none() {
                return reversed_of(vm, base);
            }
        }
    }
    Ok(match seq {
        Value::List(l) => {
            let n = l.borrow().len();
            IterObj::value("list_reverseiterator", IterState::ListRev(l.clone(), n))
        }
        Value::Tuple(_) | Value::Str(_) | Value::Bytes(_) => {
            let mut items = vm.collect(seq)?;
            items.reverse();
            IterObj::value("reversed", IterState::Values(Rc::new(items), 0))
        }
        Value::Dict(d) => {
            let mut keys = d.borrow().keys();
            keys.reverse();
            IterObj::value(
                "dict_reversekeyiterator",
                IterState::Values(Rc::new(keys), 0),
            )
        }
        Value::Native(n) => {
            if let Some(r) = n.as_any().downcast_ref::<super::RangeObj>() {
                return Ok(r.reversed_iter());
            }
            if let Some(view) = n.as_any().downcast_ref::<super::views::DictView>() {
                return Ok(view.reversed_iter());
            }
            if let Some(len) = n.len(vm)? {
                let mut items = Vec::with_capacity(len.min(1 << 20));
                for i in (0..len).rev() {
                    items.push(vm.getitem(seq, &Value::Int(i as i64))?);
                }
                return Ok(IterObj::value(
                    "reversed",
                    IterState::Values(Rc::new(items), 0),
                ));
            }
            return Err(not_reversible(seq));
        }
        Value::Instance(_) => match vm.getattr(seq, "__reversed__") {
            Ok(f) => vm.call(&f, Vec::new(), Vec::new())?,
            Err(_) if vm.getattr(seq, "__getitem__").is_err() => return Err(not_reversible(seq)),
            Err(_) => {
                let len = vm.len(seq)?;
                let mut items = Vec::with_capacity(len.min(1 << 20));
                for i in (0..len).rev() {
                    items.push(vm.getitem(seq, &Value::Int(i as i64))?);
                }
                IterObj::value("reversed", IterState::Values(Rc::new(items), 0))
            }
        },
        // A class whose metaclass defines `__reversed__` (enums).
        Value::Class(c) if c.meta_lookup("__reversed__").is_some() => {
            let hook = vm.getattr(&vm.type_of(seq), "__reversed__")?;
            vm.call(&hook, vec![seq.clone()], Vec::new())?
        }
        _ => return Err(not_reversible(seq)),
    })
}

#[cold]
fn not_reversible(v: &Value) -> PyErr {
    type_error(format!("'{}' object is not reversible", v.type_name()))
}
