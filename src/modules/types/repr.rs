//! `repr()` and `str()` of builtin values as CPython writes them, recursing
//! through `vm.repr` for elements (so user `__repr__`s apply) and printing
//! self-containing containers as `[...]` / `{...}`.

use std::cell::RefCell;

use crate::value::format::{bytes_repr, float_repr, str_repr};
use crate::value::{PyResult, Value, Vm};

thread_local! {
    /// Containers whose repr is being built (for `[...]`).
    static IN_PROGRESS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` unless `v` is already being printed (then returns `busy`).
fn guarded(v: &Value, busy: &str, f: impl FnOnce() -> PyResult<String>) -> PyResult<String> {
    let id = v.id();
    if IN_PROGRESS.with(|s| s.borrow().contains(&id)) {
        return Ok(busy.to_string());
    }
    IN_PROGRESS.with(|s| s.borrow_mut().push(id));
    let r = f();
    IN_PROGRESS.with(|s| {
        let mut s = s.borrow_mut();
        if let Some(p) = s.iter().rposition(|x| *x == id) {
            s.remove(p);
        }
    });
    r
}

fn join_reprs(vm: &dyn Vm, items: &[Value]) -> PyResult<String> {
    let parts = items
        .iter()
        .map(|x| vm.repr(x))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(parts.join(", "))
}

/// The repr of a builtin value; None for instances of user classes (the
/// evaluator calls their `__repr__` or writes `<__main__.C object at 0x…>`).
pub fn repr_value(vm: &dyn Vm, v: &Value) -> PyResult<Option<String>> {
    Ok(Some(match v {
        Value::None => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => float_repr(*x),
        Value::Str(s) => str_repr(s),
        Value::Bytes(b) => bytes_repr(b),
        Value::List(l) => guarded(v, "[...]", || {
            let items = l.borrow().clone();
            Ok(format!("[{}]", join_reprs(vm, &items)?))
        })?,
        Value::Tuple(t) => guarded(v, "(...)", || {
            Ok(if t.len() == 1 {
                format!("({},)", vm.repr(&t[0])?)
            } else {
                format!("({})", join_reprs(vm, t)?)
            })
        })?,
        Value::Dict(d) => guarded(v, "{...}", || {
            let items = d.borrow().items();
            let mut parts = Vec::with_capacity(items.len());
            for (k, x) in &items {
                parts.push(format!("{}: {}", vm.repr(k)?, vm.repr(x)?));
            }
            Ok(format!("{{{}}}", parts.join(", ")))
        })?,
        Value::Set(s) => guarded(v, "{...}", || {
            let items: Vec<Value> = s.items.borrow().iter().map(|k| k.0.clone()).collect();
            Ok(match (s.frozen, items.is_empty()) {
                (false, true) => "set()".into(),
                (true, true) => "frozenset()".into(),
                (false, false) => format!("{{{}}}", join_reprs(vm, &items)?),
                (true, false) => format!("frozenset({{{}}})", join_reprs(vm, &items)?),
            })
        })?,
        Value::Class(c) => {
            if &*c.module == "builtins" {
                format!("<class '{}'>", c.qualname)
            } else {
                format!("<class '{}.{}'>", c.module, c.qualname)
            }
        }
        Value::Function(f) => format!("<function {} at {:#x}>", f.def.qualname, v.id()),
        Value::NativeFunction(f) => match (&f.bound, f.sig.name.split_once('.')) {
            (Some(recv), _) => format!(
                "<built-in method {} of {} object at {:#x}>",
                f.name(),
                recv.type_name(),
                recv.id()
            ),
            (None, Some((owner, name))) if owner.chars().next().is_some_and(char::is_lowercase) => {
                format!("<method '{name}' of '{owner}' objects>")
            }
            (None, _) => format!("<built-in function {}>", f.name()),
        },
        Value::BoundMethod(m) => {
            let name = match &m.func {
                Value::Function(f) => f.def.qualname.to_string(),
                other => other.type_name(),
            };
            format!("<bound method {} of {}>", name, vm.repr(&m.receiver)?)
        }
        Value::Native(n) => n.repr(v, vm)?,
        Value::Tensor(_) | Value::Instance(_) => return Ok(None),
    }))
}

/// The `str()` of a builtin value (strings as themselves; natives through
/// their `str`); None where the evaluator must decide (instances).
pub fn str_value(vm: &dyn Vm, v: &Value) -> PyResult<Option<String>> {
    match v {
        Value::Str(s) => Ok(Some(s.to_string())),
        Value::Native(n) => n.str(v, vm).map(Some),
        other => repr_value(vm, other),
    }
}
