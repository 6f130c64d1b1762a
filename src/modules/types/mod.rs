//! PLACEHOLDER until branch `builtins` lands: bare builtin type classes.
use std::cell::RefCell;
use std::rc::Rc;

use crate::value::{Class, ClassKind, ValueType};

thread_local! {
    static CLASSES: RefCell<Vec<(ValueType, Rc<Class>)>> = const { RefCell::new(Vec::new()) };
}

/// The class object of a builtin type.
pub fn builtin_class(t: ValueType) -> Rc<Class> {
    CLASSES.with(|c| {
        if let Some((_, cls)) = c.borrow().iter().find(|(k, _)| *k == t) {
            return cls.clone();
        }
        let base = if t == ValueType::Object { None } else { Some(builtin_class(ValueType::Object)) };
        let cls = Class::new_builtin(t.name(), "builtins", base, ClassKind::Builtin(t));
        c.borrow_mut().push((t, cls.clone()));
        cls
    })
}

use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// PLACEHOLDER: a slice object.
pub fn make_slice(lower: Value, upper: Value, step: Value) -> Value {
    Value::tuple(vec![Value::str("__slice__"), lower, upper, step])
}

/// PLACEHOLDER: clamped (start, stop, step) of a slice for a sequence of `len`.
pub fn slice_indices(v: &Value, len: usize) -> PyResult<Option<(isize, isize, isize)>> {
    let Value::Tuple(t) = v else { return Ok(None) };
    if t.len() != 4 || !matches!(&t[0], Value::Str(s) if s.as_str() == "__slice__") {
        return Ok(None);
    }
    let get = |x: &Value| match x {
        Value::Int(i) => Some(*i as isize),
        _ => None,
    };
    let step = get(&t[3]).unwrap_or(1);
    if step == 0 {
        return Err(PyErr::new(ExcType::ValueError, "slice step cannot be zero"));
    }
    let len = len as isize;
    let norm = |i: Option<isize>, default: isize| match i {
        None => default,
        Some(i) if i < 0 => (i + len).max(if step < 0 { -1 } else { 0 }),
        Some(i) => i.min(if step < 0 { len - 1 } else { len }),
    };
    let (start, stop) = if step > 0 { (norm(get(&t[1]), 0), norm(get(&t[2]), len)) } else { (norm(get(&t[1]), len - 1), norm(get(&t[2]), -1)) };
    Ok(Some((start, stop, step)))
}

/// PLACEHOLDER: `%` formatting.
pub fn percent_format(vm: &dyn Vm, fmt: &str, args: &Value) -> PyResult<String> {
    let _ = (vm, args);
    Ok(fmt.to_string())
}

/// PLACEHOLDER: format specs.
pub fn format_builtin(v: &Value, spec: &str) -> PyResult<String> {
    let _ = spec;
    Ok(format!("{v:?}"))
}

/// PLACEHOLDER: the bounds of a range object.
pub fn range_bounds(v: &Value) -> Option<(i64, i64, i64)> {
    let _ = v;
    None
}
