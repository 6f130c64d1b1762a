//! The directory and rename natives of `os` (`listdir`, `rename`,
//! `replace`, `fspath`), with
//! the argument checks and messages of CPython's `posix` module. The
//! functions CPython writes in Python over them (`makedirs`, `walk`,
//! `scandir`'s entries) are in `stdlib/os_py.dist`.

use super::os_path::{fspath, fspath_opt};
use super::ModuleBuilder;
use crate::object::native;
use crate::object::types::type_error;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Registers the natives on `os`.
pub fn register(m: &mut ModuleBuilder) {
    m.add(listdir::DEF)
        .add(rename::DEF)
        .add(replace::DEF)
        .add(fspath_native::DEF);
}

/// A path argument of a `posix` function: `str` or an `os.PathLike`;
/// an int (a file descriptor) is not supported by dist.
pub fn posix_path(
    vm: &dyn Vm,
    v: &Value,
    func: &str,
    param: &str,
    accepts: &str,
) -> PyResult<String> {
    match v.as_builtin() {
        Value::Int(_) if accepts.contains("integer") => Err(PyErr::new(
            ExcType::NotImplementedError,
            format!("{func}() of a file descriptor is not supported in dist: pass a path"),
        )),
        _ => fspath_opt(vm, v)?.ok_or_else(|| not_a_path(v, func, param, accepts)),
    }
}

fn not_a_path(v: &Value, func: &str, param: &str, accepts: &str) -> PyErr {
    type_error(format!(
        "{func}: {param} should be {accepts}, not {}",
        v.type_name()
    ))
}

/// The error of a two-path operation: `[Errno 2] No such file or
/// directory: 'a' -> 'b'`.
fn two_path_error(e: &std::io::Error, src: &str, dst: &str) -> PyErr {
    let err = PyErr::from_io(e, Some(src));
    if let Value::Instance(inst) = err.value() {
        inst.set_attr("filename2", Value::str(dst));
    }
    err
}

/// The names in a directory (`'.'` by default), in the order the file
/// system lists them.
#[native("listdir(path=None)")]
fn listdir(vm: &dyn Vm, path: &Value) -> PyResult<Vec<Value>> {
    let p = match path {
        Value::None => ".".to_string(),
        v => posix_path(
            vm,
            v,
            "listdir",
            "path",
            "string, bytes, os.PathLike, integer or None",
        )?,
    };
    let entries = std::fs::read_dir(&p).map_err(|e| PyErr::from_io(&e, Some(&p)))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| PyErr::from_io(&e, Some(&p)))?;
        crate::object::types::push(&mut out, Value::str(entry.file_name().to_string_lossy()))?;
    }
    Ok(out)
}

fn rename_impl(vm: &dyn Vm, func: &str, src: &Value, dst: &Value, replace: bool) -> PyResult<()> {
    let accepts = "string, bytes or os.PathLike";
    let s = posix_path(vm, src, func, "src", accepts)?;
    let d = posix_path(vm, dst, func, "dst", accepts)?;
    // POSIX rename(2) replaces an existing file either way; `os.rename`
    // and `os.replace` differ only on Windows.
    let _ = replace;
    std::fs::rename(&s, &d).map_err(|e| two_path_error(&e, &s, &d))
}

/// Paths relative to directory descriptors are not supported: a given
/// `src_dir_fd`/`dst_dir_fd` is an error rather than ignored.
fn no_dir_fd(func: &str, src_dir_fd: &Value, dst_dir_fd: &Value) -> PyResult<()> {
    for (what, v) in [("src_dir_fd", src_dir_fd), ("dst_dir_fd", dst_dir_fd)] {
        if !v.is_none() {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                format!("os.{func}({what}=...) is not supported in dist"),
            ));
        }
    }
    Ok(())
}

/// Renames a file or directory (replacing an existing file `dst`).
#[native("rename(src, dst, *, src_dir_fd=None, dst_dir_fd=None)")]
fn rename(
    vm: &dyn Vm,
    src: &Value,
    dst: &Value,
    src_dir_fd: &Value,
    dst_dir_fd: &Value,
) -> PyResult<()> {
    no_dir_fd("rename", src_dir_fd, dst_dir_fd)?;
    rename_impl(vm, "rename", src, dst, false)
}

/// Renames a file or directory, replacing `dst`.
#[native("replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None)")]
fn replace(
    vm: &dyn Vm,
    src: &Value,
    dst: &Value,
    src_dir_fd: &Value,
    dst_dir_fd: &Value,
) -> PyResult<()> {
    no_dir_fd("replace", src_dir_fd, dst_dir_fd)?;
    rename_impl(vm, "replace", src, dst, true)
}

/// The path of a path-like object: `os.fspath(pathlib.Path('a')) == 'a'`.
#[native("fspath(path)")]
fn fspath_native(vm: &dyn Vm, path: &Value) -> PyResult<String> {
    fspath(vm, path)
}
