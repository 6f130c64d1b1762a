//! The `builtins` namespace: functions (`print`, `len`, `sorted`, `min` …),
//! the builtin types as classes, the exception classes, `NotImplemented`
//! and `Ellipsis`. The evaluator provides the scope-dependent ones itself
//! (`super`, `__build_class__`, `globals`, `locals`, and `vars()`/`dir()`
//! without an argument).

pub mod help;
mod numeric;
pub use numeric::{divmod_values, round_value};
mod objects;
pub(crate) use objects::is_callable;
mod seq;

use crate::object::types::{builtin_class, native_class, type_error};
use crate::value::{
    Args, ExcType, NativeFn, NativeFunction, PyErr, PyResult, Value, ValueType, Vm,
};

/// The `NotImplemented` singleton (compare with `Value::is`).
pub fn not_implemented() -> Value {
    crate::object::descr::not_implemented()
}

/// The `Ellipsis` singleton (`...`).
pub fn ellipsis() -> Value {
    crate::object::descr::ellipsis()
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
        let class = match name {
            "complex" => crate::object::types::complex::COMPLEX.class(),
            _ => native_class(name),
        };
        out.push((name, Value::Class(class)));
    }
    for ty in ExcType::ALL {
        if ty.is_builtin_name() {
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
    (
        "input(prompt='', /)",
        input,
        "Writes the prompt, then reads a line from standard input (without its newline).",
    ),
    ("eval(*args, **kwargs)", eval_unsupported, "Not supported in dist."),
    ("exec(*args, **kwargs)", exec_unsupported, "Not supported in dist."),
    ("compile(*args, **kwargs)", compile_unsupported, "Not supported in dist."),
    ("__import__(*args, **kwargs)", import_unsupported, "Not supported in dist: use `import`."),
    ("breakpoint(*args, **kwargs)", breakpoint_unsupported, "Not supported in dist."),
    ("memoryview(*args, **kwargs)", memoryview_unsupported, "Not supported in dist: use bytes."),
    (
        "open(file, mode='r', buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None)",
        crate::modules::io::open,
        "Opens a file: `with open('data.txt', 'w', encoding='utf-8') as f: f.write('hi')`.",
    ),
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
    let redirected = match a.get(3) {
        Value::None => crate::modules::sys::redirected_stdout(vm),
        _ => None,
    };
    match redirected.as_ref().unwrap_or(a.get(3)) {
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
                // `flush=True`: the file's own `flush()`, as CPython calls it.
                if vm.truthy(a.get(4))? {
                    let flush = vm.getattr(file, "flush")?;
                    vm.call(&flush, Vec::new(), Vec::new())?;
                }
                return Ok(Value::None);
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
    let spec = match a.get(1).as_builtin() {
        Value::Str(s) => s.clone(),
        _ => {
            return Err(type_error(format!(
                "format() argument 2 must be str, not {}",
                a.get(1).type_name()
            )))
        }
    };
    Ok(Value::str(vm.format(a.get(0), &spec)?))
}

fn hash(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Int(vm.hash(a.get(0))?))
}

/// `input(prompt)`: CPython's `EOFError` at the end of standard input.
fn input(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    if !a.get(0).is_none() {
        let prompt = vm.str(a.get(0))?;
        vm.write_stdout(&prompt);
    }
    vm.flush_stdout();
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) => Err(PyErr::new(ExcType::EOFError, "EOF when reading a line")),
        Ok(_) => {
            if line.ends_with('\n') {
                line.pop();
            }
            Ok(Value::str(line))
        }
        Err(e) => Err(PyErr::from_io(&e, None)),
    }
}

/// Builtins dist does not have (running source text, `memoryview` …): a
/// `NotImplementedError` naming the builtin, rather than a `NameError`.
macro_rules! not_supported {
    ($($f:ident: $name:literal, $why:literal;)*) => {
        $(
            fn $f(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
                Err(PyErr::new(
                    ExcType::NotImplementedError,
                    concat!($name, "() is not supported in dist", $why),
                ))
            }
        )*
    };
}

not_supported! {
    eval_unsupported: "eval", ": it runs source text, which dist compiles only from files";
    exec_unsupported: "exec", ": it runs source text, which dist compiles only from files";
    compile_unsupported: "compile", ": it compiles source text, which dist does only from files";
    import_unsupported: "__import__", ": use the import statement";
    breakpoint_unsupported: "breakpoint", "";
    memoryview_unsupported: "memoryview", ": use bytes";
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
