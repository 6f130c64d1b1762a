//! `os.path` (POSIX rules, as CPython's `posixpath`): `join`, `basename`,
//! `dirname`, `split`, `splitext`, `exists`, `isfile`, `isdir`, `abspath`.

use super::types::type_error;
use super::ModuleBuilder;
use crate::value::{Args, PyResult, Value, Vm};

/// Registers the `os.path` functions.
pub fn register(m: &mut ModuleBuilder) {
    m.value("sep", Value::str("/"))
        .function(
            "join(a, *p)",
            join,
            "Joins path components: `os.path.join('a', 'b') == 'a/b'`.",
        )
        .function(
            "basename(p)",
            basename,
            "The final component: `os.path.basename('a/b.txt') == 'b.txt'`.",
        )
        .function(
            "dirname(p)",
            dirname,
            "All but the final component: `os.path.dirname('a/b.txt') == 'a'`.",
        )
        .function("split(p)", split, "`(dirname, basename)`.")
        .function(
            "splitext(p)",
            splitext,
            "`(root, ext)`: `os.path.splitext('a/b.tar.gz') == ('a/b.tar', '.gz')`.",
        )
        .function("exists(path)", exists, "Whether the path exists.")
        .function(
            "isfile(path)",
            isfile,
            "Whether the path is a regular file.",
        )
        .function("isdir(s)", isdir, "Whether the path is a directory.")
        .function(
            "abspath(path)",
            abspath,
            "The path made absolute against the current directory.",
        );
}

fn path_arg(v: &Value) -> PyResult<&str> {
    match v {
        Value::Str(s) => Ok(s),
        other => Err(type_error(format!(
            "expected str, bytes or os.PathLike object, not {}",
            other.type_name()
        ))),
    }
}

/// `posixpath.join`.
pub fn join_paths(first: &str, rest: &[&str]) -> String {
    let mut out = first.to_string();
    for p in rest {
        if p.starts_with('/') {
            out = p.to_string();
        } else if out.is_empty() || out.ends_with('/') {
            out.push_str(p);
        } else {
            out.push('/');
            out.push_str(p);
        }
    }
    out
}

fn join(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let first = path_arg(a.get(0))?;
    let rest = a
        .varargs(1)
        .iter()
        .map(path_arg)
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Value::str(join_paths(first, &rest)))
}

fn split_at_sep(p: &str) -> (&str, &str) {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let (head, tail) = p.split_at(i);
    let trimmed = head.trim_end_matches('/');
    (if trimmed.is_empty() { head } else { trimmed }, tail)
}

fn basename(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(split_at_sep(path_arg(a.get(0))?).1))
}

fn dirname(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(split_at_sep(path_arg(a.get(0))?).0))
}

fn split(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (h, t) = split_at_sep(path_arg(a.get(0))?);
    Ok(Value::tuple(vec![Value::str(h), Value::str(t)]))
}

fn splitext(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let p = path_arg(a.get(0))?;
    let name_start = p.rfind('/').map_or(0, |i| i + 1);
    let name = &p[name_start..];
    let leading_dots = name.len() - name.trim_start_matches('.').len();
    let (root, ext) = match name.rfind('.') {
        Some(i) if i >= leading_dots && i > 0 => p.split_at(name_start + i),
        _ => (p, ""),
    };
    Ok(Value::tuple(vec![Value::str(root), Value::str(ext)]))
}

fn exists(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(
        std::path::Path::new(path_arg(a.get(0))?).exists(),
    ))
}

fn isfile(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(
        std::path::Path::new(path_arg(a.get(0))?).is_file(),
    ))
}

fn isdir(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(
        std::path::Path::new(path_arg(a.get(0))?).is_dir(),
    ))
}

fn abspath(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let p = path_arg(a.get(0))?;
    if p.starts_with('/') {
        return Ok(Value::str(p));
    }
    let cwd = std::env::current_dir()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Value::str(join_paths(&cwd, &[p])))
}
