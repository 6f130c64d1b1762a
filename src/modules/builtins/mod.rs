//! The `builtins` namespace: functions (`print`, `len`, `sorted`, `min` …),
//! the builtin types as classes, the exception classes, `NotImplemented`
//! and `Ellipsis`. The evaluator provides the scope-dependent ones itself
//! (`super`, `__build_class__`, `globals`, `locals`, and `vars()`/`dir()`
//! without an argument).

pub mod help;
mod numeric;
mod objects;
mod seq;

use crate::object::state::PrintMute;
use crate::object::types::{builtin_class, native_class, type_error};
use crate::object::{native, NativeDef};
use crate::value::{ExcType, PyErr, PyResult, Value, ValueType, Vm};

/// The `NotImplemented` singleton (compare with `Value::is`).
pub fn not_implemented() -> Value {
    crate::object::descr::not_implemented()
}

/// The `Ellipsis` singleton (`...`).
pub fn ellipsis() -> Value {
    crate::object::descr::ellipsis()
}

/// Every builtin name and its value, for the evaluator's builtin scope.
pub fn builtins() -> Vec<(&'static str, Value)> {
    let mut out: Vec<(&'static str, Value)> = Vec::new();
    for group in [seq::FUNCTIONS, numeric::FUNCTIONS, objects::FUNCTIONS, CORE] {
        out.extend(group.iter().map(|def| (def.name(), def.value())));
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
        if let Some(class) = native_class(name) {
            out.push((name, Value::Class(class)));
        }
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

const CORE: &[NativeDef] = &[
    print::DEF,
    len::DEF,
    repr::DEF,
    ascii::DEF,
    format::DEF,
    hash::DEF,
    input::DEF,
    eval_unsupported::DEF,
    exec_unsupported::DEF,
    compile_unsupported::DEF,
    import_unsupported::DEF,
    breakpoint_unsupported::DEF,
    memoryview_unsupported::DEF,
    crate::modules::io::open::DEF,
    id::DEF,
    help::help::DEF,
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

// The `\n\n` of the help text takes a `doc` attribute (a `///` blank line
// gives one), which doctests would read as a Rust example.
#[cfg_attr(
    not(doctest),
    doc = "Writes the values' `str()` separated by `sep` and followed by `end`.\n\n    print('a', 1, sep='-')  # a-1"
)]
#[native("print(*args, sep=' ', end='\\n', file=None, flush=False)", c)]
fn print(
    vm: &dyn Vm,
    args: &[Value],
    sep: &Value,
    end: &Value,
    file: &Value,
    flush: &Value,
) -> PyResult<()> {
    if vm.state().get::<PrintMute>().depth.get() > 0 {
        return Ok(());
    }
    let sep = sep_text(sep, "sep", " ")?;
    let end = sep_text(end, "end", "\n")?;
    // The pieces CPython writes one by one: each argument, the separators, the end.
    let mut pieces: Vec<String> = Vec::new();
    for (i, v) in args.iter().enumerate() {
        if i > 0 {
            pieces.push(sep.to_string());
        }
        pieces.push(vm.str(v)?);
    }
    pieces.push(end.to_string());
    let redirected = match file {
        Value::None => crate::modules::sys::redirected_stdout(vm),
        _ => None,
    };
    match redirected.as_ref().unwrap_or(file) {
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
                if vm.truthy(flush)? {
                    let flush = vm.getattr(file, "flush")?;
                    vm.call(&flush, Vec::new(), Vec::new())?;
                }
                return Ok(());
            }
        },
    }
    if vm.truthy(flush)? {
        vm.flush_stdout();
    }
    Ok(())
}

/// The number of items of a container: `len([1, 2]) == 2`.
#[native("len(obj, /)", c)]
fn len(vm: &dyn Vm, obj: &Value) -> PyResult<usize> {
    vm.len(obj)
}

/// The printable representation of an object: `repr('a') == "'a'"`.
#[native("repr(obj, /)", c)]
fn repr(vm: &dyn Vm, obj: &Value) -> PyResult<String> {
    vm.repr(obj)
}

/// Like `repr`, escaping non-ASCII characters: `ascii('é') == "'\\xe9'"`.
#[native("ascii(obj, /)", c)]
fn ascii(vm: &dyn Vm, obj: &Value) -> PyResult<String> {
    Ok(crate::value::format::ascii_escape(&vm.repr(obj)?))
}

/// Formats a value with a format spec: `format(3.14159, '.2f') == '3.14'`.
#[native("format(value, format_spec='', /)", c)]
fn format(vm: &dyn Vm, value: &Value, format_spec: &Value) -> PyResult<String> {
    let spec = match format_spec.as_builtin() {
        Value::Str(s) => s.clone(),
        _ => {
            return Err(type_error(format!(
                "format() argument 2 must be str, not {}",
                format_spec.type_name()
            )))
        }
    };
    vm.format(value, &spec)
}

/// The hash of a hashable object.
#[native("hash(obj, /)", c)]
fn hash(vm: &dyn Vm, obj: &Value) -> PyResult<i64> {
    vm.hash(obj)
}

// CPython's `EOFError` at the end of standard input.
/// Writes the prompt, then reads a line from standard input (without its newline).
#[native("input(prompt='', /)", c)]
fn input(vm: &dyn Vm, prompt: &Value) -> PyResult<String> {
    if !prompt.is_none() {
        let prompt = vm.str(prompt)?;
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
            Ok(line)
        }
        Err(e) => Err(PyErr::from_io(&e, None)),
    }
}

/// Builtins dist does not have (running source text, `memoryview` …): a
/// `NotImplementedError` naming the builtin, rather than a `NameError`.
macro_rules! not_supported {
    ($($f:ident: $sig:tt, $doc:tt, $name:tt, $why:tt;)*) => {
        $(
            #[doc = $doc]
            #[native($sig, c)]
            fn $f(_args: &Value, _kwargs: &Value) -> PyResult<()> {
                Err(PyErr::new(
                    ExcType::NotImplementedError,
                    concat!($name, "() is not supported in dist", $why),
                ))
            }
        )*
    };
}

not_supported! {
    eval_unsupported: "eval(*args, **kwargs)", "Not supported in dist.",
        "eval", ": it runs source text, which dist compiles only from files";
    exec_unsupported: "exec(*args, **kwargs)", "Not supported in dist.",
        "exec", ": it runs source text, which dist compiles only from files";
    compile_unsupported: "compile(*args, **kwargs)", "Not supported in dist.",
        "compile", ": it compiles source text, which dist does only from files";
    import_unsupported: "__import__(*args, **kwargs)", "Not supported in dist: use `import`.",
        "__import__", ": use the import statement";
    breakpoint_unsupported: "breakpoint(*args, **kwargs)", "Not supported in dist.",
        "breakpoint", "";
    memoryview_unsupported: "memoryview(*args, **kwargs)", "Not supported in dist: use bytes.",
        "memoryview", ": use bytes";
}

/// A number unique to the object while it lives.
#[native("id(obj, /)", c)]
fn id(obj: &Value) -> i64 {
    obj.id() as i64
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
