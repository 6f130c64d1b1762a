//! `os.path` (POSIX rules, as CPython's `posixpath`): `join`, `basename`,
//! `dirname`, `split`, `splitext`, `isabs`, `normpath`, `abspath`,
//! `relpath`, `commonprefix`, `expanduser`, and the file queries `exists`,
//! `isfile`, `isdir`, `islink`, `lexists`, `getsize`, `getmtime`,
//! `getctime`, `getatime`, `realpath`.
//! Paths are `str` or `os.PathLike` (`FsPath`, `fspath`).

use super::ModuleBuilder;
use crate::object::native;
use crate::object::native::{ArgCtx, FromArg};
use crate::object::types::{type_error, value_error};
use crate::value::Args;
use crate::value::{PyErr, PyResult, Value, Vm};

/// Registers the `os.path` functions.
pub fn register(m: &mut ModuleBuilder) {
    m.value("sep", Value::str("/"))
        .value("curdir", Value::str("."))
        .value("pardir", Value::str(".."))
        .value("extsep", Value::str("."))
        .value("pathsep", Value::str(":"))
        .add(join::DEF)
        .add(basename::DEF)
        .add(dirname::DEF)
        .add(split::DEF)
        .add(splitext::DEF)
        .add(exists::DEF)
        .add(isfile::DEF)
        .add(isdir::DEF)
        .add(abspath::DEF)
        .add(isabs::DEF)
        .add(normpath::DEF)
        .add(relpath::DEF)
        .add(commonprefix::DEF)
        .add(expanduser::DEF)
        .add(getsize::DEF)
        .add(realpath::DEF)
        .add(islink::DEF)
        .add(lexists::DEF)
        .add(getmtime::DEF)
        .add(getctime::DEF)
        .add(getatime::DEF);
}

/// A path argument as CPython's `os.fspath` takes it: a `str`, or an
/// object whose `__fspath__()` returns one (`pathlib.Path`).
pub fn fspath(vm: &dyn Vm, v: &Value) -> PyResult<String> {
    fspath_opt(vm, v)?.ok_or_else(|| {
        type_error(format!(
            "expected str, bytes or os.PathLike object, not {}",
            v.type_name()
        ))
    })
}

/// `fspath`, `None` for a value that is not path-like.
pub fn fspath_opt(vm: &dyn Vm, v: &Value) -> PyResult<Option<String>> {
    if let Value::Str(s) = v.as_builtin() {
        return Ok(Some(s.to_string()));
    }
    if !matches!(v, Value::Instance(_)) {
        return Ok(None);
    }
    let Ok(method) = vm.getattr(v, "__fspath__") else {
        return Ok(None);
    };
    let r = vm.call(&method, Vec::new(), Vec::new())?;
    match r.as_builtin() {
        Value::Str(s) => Ok(Some(s.to_string())),
        _ => Err(type_error(format!(
            "expected {}.__fspath__() to return str or bytes, not {}",
            v.type_name(),
            r.type_name()
        ))),
    }
}

/// A path parameter of a native (`fspath`'s conversion and message).
pub struct FsPath(pub String, pub bool);

impl<'a> FromArg<'a> for FsPath {
    fn from_arg(vm: &dyn Vm, args: &'a Args, i: usize, _cx: &ArgCtx) -> PyResult<Self> {
        let v = args.get(i);
        if let Value::Bytes(b) = v.as_builtin() {
            return Ok(FsPath(String::from_utf8_lossy(b).into_owned(), true));
        }
        fspath(vm, v).map(|s| FsPath(s, false))
    }
}

impl FsPath {
    /// A path computed from this one, `bytes` when this one was.
    fn out(&self, s: &str) -> Value {
        if self.1 {
            Value::Bytes(std::rc::Rc::new(s.as_bytes().to_vec()))
        } else {
            Value::str(s)
        }
    }
}

impl std::ops::Deref for FsPath {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
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

/// Joins path components: `os.path.join('a', 'b') == 'a/b'`.
#[native("join(a, *p)")]
fn join(vm: &dyn Vm, a: &Value, p: &[Value]) -> PyResult<Value> {
    let is_bytes = |v: &Value| matches!(v.as_builtin(), Value::Bytes(_));
    let bytes = is_bytes(a);
    if p.iter().any(|v| is_bytes(v) != bytes) {
        return Err(type_error("Can't mix strings and bytes in path components"));
    }
    // join names itself in its type error, unlike the other functions.
    let arg = |v: &Value| -> PyResult<String> {
        if let Value::Bytes(b) = v.as_builtin() {
            return Ok(String::from_utf8_lossy(b).into_owned());
        }
        fspath(vm, v).map_err(|_| {
            type_error(format!(
                "join() argument must be str, bytes, or os.PathLike object, not '{}'",
                v.type_name()
            ))
        })
    };
    let first = arg(a)?;
    let rest = p.iter().map(arg).collect::<PyResult<Vec<_>>>()?;
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    Ok(FsPath(String::new(), bytes).out(&join_paths(&first, &rest)))
}

fn split_at_sep(p: &str) -> (&str, &str) {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let (head, tail) = p.split_at(i);
    let trimmed = head.trim_end_matches('/');
    (if trimmed.is_empty() { head } else { trimmed }, tail)
}

/// The final component: `os.path.basename('a/b.txt') == 'b.txt'`.
#[native("basename(p)")]
fn basename(p: FsPath) -> Value {
    p.out(split_at_sep(&p).1)
}

/// All but the final component: `os.path.dirname('a/b.txt') == 'a'`.
#[native("dirname(p)")]
fn dirname(p: FsPath) -> Value {
    p.out(split_at_sep(&p).0)
}

/// `(dirname, basename)`.
#[native("split(p)")]
fn split(p: FsPath) -> PyResult<Value> {
    let (h, t) = split_at_sep(&p);
    Ok(Value::tuple(vec![p.out(h), p.out(t)]))
}

/// `(root, ext)`: `os.path.splitext('a/b.tar.gz') == ('a/b.tar', '.gz')`.
#[native("splitext(p)")]
fn splitext(p: FsPath) -> PyResult<Value> {
    let path = &p;
    let p: &str = path;
    let name_start = p.rfind('/').map_or(0, |i| i + 1);
    let name = &p[name_start..];
    let leading_dots = name.len() - name.trim_start_matches('.').len();
    let (root, ext) = match name.rfind('.') {
        Some(i) if i >= leading_dots && i > 0 => p.split_at(name_start + i),
        _ => (p, ""),
    };
    Ok(Value::tuple(vec![path.out(root), path.out(ext)]))
}

/// Whether the path exists.
#[native("exists(path)")]
fn exists(path: FsPath) -> PyResult<bool> {
    Ok(std::path::Path::new(&*path).exists())
}

/// Whether the path is a regular file.
#[native("isfile(path)")]
fn isfile(path: FsPath) -> PyResult<bool> {
    Ok(std::path::Path::new(&*path).is_file())
}

/// Whether the path is a directory.
#[native("isdir(s)")]
fn isdir(s: FsPath) -> PyResult<bool> {
    Ok(std::path::Path::new(&*s).is_dir())
}

/// `posixpath.normpath`: collapses separators, drops `.`, and resolves `..`
/// against the part before it (never above the root; kept at the start of a
/// relative path). Exactly two leading slashes are kept, as POSIX allows.
pub fn normalize(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let slashes = match p.len() - p.trim_start_matches('/').len() {
        0 => 0,
        2 => 2,
        _ => 1,
    };
    let mut parts: Vec<&str> = Vec::new();
    for comp in p.split('/') {
        match comp {
            "" | "." => {}
            ".." if slashes == 0 && parts.last().is_none_or(|l| *l == "..") => parts.push(".."),
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let out = format!("{}{}", "/".repeat(slashes), parts.join("/"));
    if out.is_empty() {
        ".".into()
    } else {
        out
    }
}

fn cwd() -> String {
    std::env::current_dir()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".into())
}

fn absolute(p: &str) -> String {
    if p.starts_with('/') {
        normalize(p)
    } else {
        normalize(&join_paths(&cwd(), &[p]))
    }
}

/// The path made absolute against the current directory, normalised.
#[native("abspath(path)")]
fn abspath(path: FsPath) -> PyResult<Value> {
    Ok(path.out(&absolute(&path)))
}

/// Whether the path is absolute (starts with `/`).
#[native("isabs(s)")]
fn isabs(s: FsPath) -> PyResult<bool> {
    Ok(s.starts_with('/'))
}

/// The path without redundant separators and `.`/`..` parts: `os.path.normpath('a//b/../c') == 'a/c'`.
#[native("normpath(path)")]
fn normpath(path: FsPath) -> PyResult<Value> {
    Ok(path.out(&normalize(&path)))
}

/// The path relative to `start` (default: the current directory).
#[native("relpath(path, start=None)")]
fn relpath(vm: &dyn Vm, path: FsPath, start: &Value) -> PyResult<String> {
    let p: &str = &path;
    if p.is_empty() {
        return Err(value_error("no path specified"));
    }
    let start = match start {
        Value::None => ".".to_string(),
        s => fspath(vm, s)?,
    };
    let (start, p) = (absolute(&start), absolute(p));
    let s_parts: Vec<&str> = start.split('/').filter(|c| !c.is_empty()).collect();
    let p_parts: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
    let common = s_parts
        .iter()
        .zip(&p_parts)
        .take_while(|(x, y)| x == y)
        .count();
    let mut rel = vec![".."; s_parts.len() - common];
    rel.extend(&p_parts[common..]);
    Ok(if rel.is_empty() {
        ".".to_string()
    } else {
        rel.join("/")
    })
}

/// The longest common leading string of the paths (character by character).
#[native("commonprefix(m)")]
fn commonprefix(vm: &dyn Vm, m: &Value) -> PyResult<String> {
    let items = vm.collect(m)?;
    let strs = items
        .iter()
        .map(|v| fspath(vm, v))
        .collect::<PyResult<Vec<_>>>()?;
    let Some(first) = strs.first() else {
        return Ok(String::new());
    };
    let mut end = first.len();
    for s in &strs[1..] {
        end = first
            .char_indices()
            .zip(s.chars())
            .find(|((_, x), y)| x != y)
            .map_or(end.min(s.len()), |((i, _), _)| i.min(end));
    }
    Ok(first[..end].to_string())
}

/// A leading `~` (`$HOME`) or `~user` replaced by that home directory.
#[native("expanduser(path)")]
fn expanduser(vm: &dyn Vm, path: FsPath) -> PyResult<Value> {
    let p: &str = &path;
    let Some(rest) = p.strip_prefix('~') else {
        return Ok(Value::str(p));
    };
    let (user, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    // `~user` comes from the password database; a user it does not list is
    // left as it is, as CPython does.
    let home = if user.is_empty() {
        super::os::env_get(vm, "HOME")
    } else {
        std::fs::read_to_string("/etc/passwd").ok().and_then(|db| {
            db.lines()
                .map(|l| l.split(':').collect::<Vec<_>>())
                .find(|f| f.len() > 5 && f[0] == user)
                .map(|f| f[5].to_string())
        })
    };
    let Some(home) = home else {
        return Ok(Value::str(p));
    };
    let home = home.trim_end_matches('/');
    Ok(Value::str(format!(
        "{}{tail}",
        if home.is_empty() { "/" } else { home }
    )))
}

/// CPython's `FileNotFoundError: [Errno 2] No such file or directory: 'x'`.
fn os_error(e: std::io::Error, path: &str) -> PyErr {
    PyErr::from_io(&e, Some(path))
}

/// The size of a file in bytes.
#[native("getsize(filename)")]
fn getsize(filename: FsPath) -> PyResult<i64> {
    let p: &str = &filename;
    let meta = std::fs::metadata(p).map_err(|e| os_error(e, p))?;
    Ok(meta.len() as i64)
}

/// The absolute path with symbolic links resolved.
#[native("realpath(filename, *, strict=False)")]
fn realpath(vm: &dyn Vm, filename: FsPath, strict: &Value) -> PyResult<String> {
    let p: &str = &filename;
    Ok(match std::fs::canonicalize(p) {
        Ok(c) => c.to_string_lossy().into_owned(),
        // strict: the first missing component is the OSError, named by
        // the path up to it (CPython's `_joinrealpath`)
        Err(e) if vm.truthy(strict)? => {
            let mut prefix = if p.starts_with('/') {
                "/".to_string()
            } else {
                String::new()
            };
            for part in p.split('/').filter(|c| !c.is_empty() && *c != ".") {
                if !prefix.is_empty() && !prefix.ends_with('/') {
                    prefix.push('/');
                }
                prefix.push_str(part);
                if let Err(e) = std::fs::symlink_metadata(&prefix) {
                    return Err(os_error(e, &prefix));
                }
            }
            return Err(os_error(e, p));
        }
        // Not there: CPython (strict=False) resolves what exists; we
        // normalise the absolute path.
        Err(_) => absolute(p),
    })
}

/// Whether the path is a symbolic link.
#[native("islink(path)")]
fn islink(path: FsPath) -> bool {
    std::fs::symlink_metadata(&*path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether the path exists (a broken symbolic link counts).
#[native("lexists(path)")]
fn lexists(path: FsPath) -> bool {
    std::fs::symlink_metadata(&*path).is_ok()
}

/// The time of the last metadata change (`st_ctime` on Unix), in seconds
/// since the epoch.
#[native("getctime(filename)")]
fn getctime(filename: FsPath) -> PyResult<f64> {
    use std::os::unix::fs::MetadataExt;
    let p: &str = &filename;
    let meta = std::fs::metadata(p).map_err(|e| os_error(e, p))?;
    Ok(meta.ctime() as f64 + meta.ctime_nsec() as f64 * 1e-9)
}

/// The time of the last access, in seconds since the epoch.
#[native("getatime(filename)")]
fn getatime(filename: FsPath) -> PyResult<f64> {
    use std::os::unix::fs::MetadataExt;
    let p: &str = &filename;
    let meta = std::fs::metadata(p).map_err(|e| os_error(e, p))?;
    Ok(meta.atime() as f64 + meta.atime_nsec() as f64 * 1e-9)
}

/// The last modification time, in seconds since the epoch.
#[native("getmtime(filename)")]
fn getmtime(filename: FsPath) -> PyResult<f64> {
    let p: &str = &filename;
    let meta = std::fs::metadata(p).map_err(|e| os_error(e, p))?;
    let t = meta.modified().map_err(|e| os_error(e, p))?;
    Ok(match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64(),
        Err(e) => -e.duration().as_secs_f64(),
    })
}
