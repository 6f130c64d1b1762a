//! The `builtins` namespace: functions (`print`, `len`, `sorted`, `min` …),
//! the builtin types as classes, the exception classes, `NotImplemented`
//! and `Ellipsis`. The evaluator provides the scope-dependent ones itself
//! (`super`, `__build_class__`, `globals`, `locals`, and `vars()`/`dir()`
//! without an argument).

pub mod help;
mod numeric;
mod objects;
mod seq;

use super::types::{builtin_class, native_class, type_error};
use crate::value::{
    Args, ExcType, NativeFn, NativeFunction, PyErr, PyResult, Value, ValueType, Vm,
};

/// The `NotImplemented` singleton (compare with `Value::is`).
pub fn not_implemented() -> Value {
    crate::eval::class::not_implemented()
}

/// The `Ellipsis` singleton (`...`).
pub fn ellipsis() -> Value {
    crate::eval::class::ellipsis()
}

type Entry = (&'static str, NativeFn, &'static str);

/// Every builtin name and its value, for the evaluator's builtin scope.
pub fn builtins() -> Vec<(&'static str, Value)> {
    let mut out: Vec<(&'static str, Value)> = Vec::new();
    let functions: Vec<Entry> =
        [seq::FUNCTIONS, numeric::FUNCTIONS, objects::FUNCTIONS, CORE].concat();
    for (sig, f, doc) in functions {
        let func = NativeFunction::new_builtin(sig, f, doc);
        let name: &'static str = sig.split('(').next().unwrap_or(sig);
        out.push((name, Value::NativeFunction(func)));
    }
    for t in [
        ValueType::Int,
        ValueType::Float,
        ValueType::Str,
        ValueType::Bool,
        ValueType::List,
        ValueType::Tuple,
        ValueType::Dict,
        ValueType::Set,
        ValueType::FrozenSet,
        ValueType::Bytes,
        ValueType::Object,
        ValueType::Type,
    ] {
        out.push((t.name(), Value::Class(builtin_class(t))));
    }
    for name in [
        "range",
        "slice",
        "enumerate",
        "zip",
        "map",
        "filter",
        "reversed",
        "complex",
        "bytearray",
    ] {
        out.push((name, Value::Class(native_class(name))));
    }
    for ty in ExcType::ALL {
        if (*ty as usize) < ExcType::OpError as usize {
            out.push((ty.name(), Value::Class(ty.class())));
        }
    }
    out.push(("NotImplemented", not_implemented()));
    out.push(("Ellipsis", ellipsis()));
    out
}

const CORE: &[Entry] = &[
    (
        "print(*args, sep=' ', end='\\n', file=None, flush=False)",
        print,
        "Writes the values' `str()` separated by `sep` and followed by `end`.\n\n    print('a', 1, sep='-')  # a-1",
    ),
    ("len(obj, /)", len, "The number of items of a container: `len([1, 2]) == 2`."),
    ("repr(obj, /)", repr, "The printable representation of an object: `repr('a') == \"'a'\"`."),
    ("ascii(obj, /)", ascii, "Like `repr`, escaping non-ASCII characters: `ascii('é') == \"'\\\\xe9'\"`."),
    (
        "format(value, format_spec='', /)",
        format,
        "Formats a value with a format spec: `format(3.14159, '.2f') == '3.14'`.",
    ),
    ("hash(obj, /)", hash, "The hash of a hashable object."),
    ("id(obj, /)", id, "A number unique to the object while it lives."),
    (
        "help(*args)",
        help::help,
        "Prints the documentation of an object: `help(tf.distribute.MirroredStrategy)`.",
    ),
];

fn sep_text(v: &Value, what: &str, default: &str) -> PyResult<String> {
    match v {
        Value::None => Ok(default.to_string()),
        Value::Str(s) => Ok(s.to_string()),
        other => Err(type_error(format!(
            "{what} must be None or a string, not {}",
            other.type_name()
        ))),
    }
}

/// While above zero, `print` writes nothing: a `tf.function` runs its Python
/// code again for a call it has already traced, where TensorFlow would run
/// the graph and Python's side effects would not repeat.
#[derive(Default)]
pub struct PrintMute {
    /// Nesting depth of muted calls.
    pub depth: std::cell::Cell<usize>,
}

fn print(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    if vm.state().get::<PrintMute>().depth.get() > 0 {
        return Ok(Value::None);
    }
    let sep = sep_text(a.get(1), "sep", " ")?;
    let end = sep_text(a.get(2), "end", "\n")?;
    // The pieces CPython writes one by one: each argument, the separators, the end.
    let mut pieces: Vec<String> = Vec::new();
    for (i, v) in a.varargs(0).iter().enumerate() {
        if i > 0 {
            pieces.push(sep.to_string());
        }
        pieces.push(vm.str(v)?);
    }
    pieces.push(end.to_string());
    match a.get(3) {
        Value::None => vm.write_stdout(&pieces.concat()),
        file => match file.downcast::<crate::modules::sys::Stream>() {
            Some(stream) => stream.write(vm, &pieces.concat()),
            // Any object with a `write` method, called as CPython's print calls it.
            None => {
                let write = vm.getattr(file, "write").map_err(|_| {
                    PyErr::new(
                        ExcType::AttributeError,
                        format!("'{}' object has no attribute 'write'", file.type_name()),
                    )
                })?;
                for piece in &pieces {
                    vm.call(&write, vec![Value::str(piece)], Vec::new())?;
                }
            }
        },
    }
    if vm.truthy(a.get(4))? {
        vm.flush_stdout();
    }
    Ok(Value::None)
}

fn len(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let n = vm.len(a.get(0))?;
    Ok(Value::Int(n as i64))
}

fn repr(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(vm.repr(a.get(0))?))
}

fn ascii(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(crate::value::format::ascii_escape(
        &vm.repr(a.get(0))?,
    )))
}

fn format(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let spec = match a.get(1) {
        Value::Str(s) => s.clone(),
        other => {
            return Err(type_error(format!(
                "format() argument 2 must be str, not {}",
                other.type_name()
            )))
        }
    };
    Ok(Value::str(vm.format(a.get(0), &spec)?))
}

fn hash(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Int(vm.hash(a.get(0))?))
}

fn id(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Int(a.get(0).id() as i64))
}

/// The builtin functions' values by name (for tests and embedding).
pub fn lookup(name: &str) -> Option<Value> {
    builtins()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests;
