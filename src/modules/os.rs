//! The `os` module: `environ` (a mapping over an environment table this
//! process owns, seeded from the real environment; assignments are seen by
//! `os.environ[...]`, `os.getenv` and Rust code through [`env_get`], without
//! touching the process environment), `getenv`, `getcwd`, `cpu_count`,
//! `remove`/`unlink`, `mkdir`/`rmdir`, the directory natives of `os_fs`
//! and the `os.path` helpers (`os_py.dist` adds `makedirs`, `walk`,
//! `scandir`, written in Python as CPython's are).

use std::cell::RefCell;

use indexmap::IndexMap;

use super::ModuleBuilder;
use crate::distribute::classes::native_class;
use crate::object::types::type_error;
use crate::object::{native, ClassSpec, Kwargs, Member};
use crate::value::format::str_repr;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

use super::os_fs::posix_path;

/// The script's environment: seeded from the process's on first use,
/// changed only by the script (interpreter state, `vm.state()`).
#[derive(Default)]
pub struct Env(RefCell<Option<IndexMap<String, String>>>);

fn with_env<T>(vm: &dyn Vm, f: impl FnOnce(&mut IndexMap<String, String>) -> T) -> T {
    let env = vm.state().get::<Env>();
    let mut e = env.0.borrow_mut();
    let map = e.get_or_insert_with(|| {
        std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect()
    });
    f(map)
}

/// Reads a variable of the script's environment (`os.environ[key]`).
pub fn env_get(vm: &dyn Vm, key: &str) -> Option<String> {
    with_env(vm, |m| m.get(key).cloned())
}

/// Sets a variable of the script's environment (`os.environ[key] = value`).
pub fn env_set(vm: &dyn Vm, key: &str, value: &str) {
    with_env(vm, |m| m.insert(key.to_string(), value.to_string()));
}

fn key_str(v: &Value) -> PyResult<String> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s.to_string()),
        _ => Err(type_error(format!("str expected, not {}", v.type_name()))),
    }
}

/// `os.environ`.
pub struct Environ;

/// The class of `os.environ`.
pub static ENVIRON: ClassSpec = ClassSpec {
    name: "_Environ",
    module: "os",
    bases: &[],
    members: &[
        Member::Method(environ_get::DEF),
        Member::Method(environ_keys::DEF),
        Member::Method(environ_values::DEF),
        Member::Method(environ_items::DEF),
        Member::Method(environ_update::DEF),
        Member::Method(environ_pop::DEF),
        Member::Method(environ_setdefault::DEF),
        Member::Method(environ_copy::DEF),
    ],
};

native_class!(Environ: ENVIRON);

impl NativeObject for Environ {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&ENVIRON)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let parts: Vec<String> = with_env(vm, |m| {
            m.iter()
                .map(|(k, v)| format!("{}: {}", str_repr(k), str_repr(v)))
                .collect()
        });
        Ok(format!("environ({{{}}})", parts.join(", ")))
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        vm.iter(&keys_list(vm)).map(Some)
    }

    fn len(&self, vm: &dyn Vm) -> PyResult<Option<usize>> {
        Ok(Some(with_env(vm, |m| m.len())))
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let k = key_str(key)?;
        match env_get(vm, &k) {
            Some(v) => Ok(Some(Value::str(v))),
            None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
        }
    }

    fn setitem(&self, _this: &Value, key: &Value, value: Value, vm: &dyn Vm) -> PyResult<bool> {
        env_set(vm, &key_str(key)?, &key_str(&value)?);
        Ok(true)
    }

    fn delitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<bool> {
        let k = key_str(key)?;
        match with_env(vm, |m| m.shift_remove(&k)) {
            Some(_) => Ok(true),
            None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
        }
    }

    fn contains(&self, item: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        // Mapping.__contains__ looks the key up: a non-str key is a TypeError.
        Ok(Some(env_get(vm, &key_str(item)?).is_some()))
    }
}

fn keys_list(vm: &dyn Vm) -> Value {
    Value::list(with_env(vm, |m| m.keys().map(Value::str).collect()))
}

/// The value of a variable, or `default`.
#[native("_Environ.get(self, key, default=None, /)", c)]
fn environ_get(vm: &dyn Vm, _this: &Environ, key: &Value, default: Value) -> PyResult<Value> {
    Ok(env_get(vm, &key_str(key)?)
        .map(Value::str)
        .unwrap_or(default))
}

/// The variable names.
#[native("_Environ.keys(self)", c)]
fn environ_keys(vm: &dyn Vm, _this: &Environ) -> Value {
    keys_list(vm)
}

/// The values.
#[native("_Environ.values(self)", c)]
fn environ_values(vm: &dyn Vm, _this: &Environ) -> Vec<Value> {
    with_env(vm, |m| m.values().map(Value::str).collect())
}

/// The `(name, value)` pairs.
#[native("_Environ.items(self)", c)]
fn environ_items(vm: &dyn Vm, _this: &Environ) -> Vec<Value> {
    with_env(vm, |m| {
        m.iter()
            .map(|(k, v)| Value::tuple(vec![Value::str(k), Value::str(v)]))
            .collect()
    })
}

/// Removes a variable and returns its value.
#[native("_Environ.pop(self, key, *default)", c)]
fn environ_pop(vm: &dyn Vm, _this: &Environ, key: &Value, default: &[Value]) -> PyResult<Value> {
    let k = key_str(key)?;
    match (with_env(vm, |m| m.shift_remove(&k)), default.first()) {
        (Some(v), _) => Ok(Value::str(v)),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
    }
}

/// Sets every variable of a mapping (and the keyword arguments).
#[native("_Environ.update(self, *other, **kwargs)", c)]
fn environ_update(vm: &dyn Vm, _this: &Environ, other: &[Value], kwargs: Kwargs) -> PyResult<()> {
    if let Some(m) = other.first() {
        let keys = vm.collect(&vm.call(&vm.getattr(m, "keys")?, Vec::new(), Vec::new())?)?;
        for k in keys {
            let v = vm.getitem(m, &k)?;
            env_set(vm, &key_str(&k)?, &key_str(&v)?);
        }
    }
    for (k, v) in kwargs.0 {
        env_set(vm, &k, &key_str(&v)?);
    }
    Ok(())
}

/// The value, setting `value` first if unset.
// Written in Python in CPython (MutableMapping), so its argument errors
// read like a Python function's.
#[native("_Environ.setdefault(self, key, value)")]
fn environ_setdefault(vm: &dyn Vm, _this: &Environ, key: &Value, value: Value) -> PyResult<Value> {
    let k = key_str(key)?;
    if let Some(v) = env_get(vm, &k) {
        return Ok(Value::str(v));
    }
    env_set(vm, &k, &key_str(&value)?);
    Ok(value)
}

/// The environment as a plain dict.
#[native("_Environ.copy(self)", c)]
fn environ_copy(vm: &dyn Vm, _this: &Environ) -> PyResult<Value> {
    let mut d = crate::value::Dict::new();
    with_env(vm, |m| {
        m.iter()
            .try_for_each(|(k, v)| d.insert_str(k, Value::str(v)))
    })?;
    Ok(Value::dict(d))
}

/// The `os` module (with `os.path`).
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("os");
    m.value("environ", Value::native(Environ))
        .value("sep", Value::str("/"))
        .value("linesep", Value::str("\n"))
        .value("name", Value::str("posix"))
        .value("pathsep", Value::str(":"))
        .value("curdir", Value::str("."))
        .value("pardir", Value::str(".."))
        .value("extsep", Value::str("."))
        .value("altsep", Value::None)
        .value("devnull", Value::str("/dev/null"))
        .add(getenv::DEF)
        .add(getcwd::DEF)
        .add(cpu_count::DEF)
        .add(getpid::DEF)
        .add(remove::DEF)
        .add(unlink::DEF)
        .add(mkdir::DEF)
        .add(rmdir::DEF);
    super::os_fs::register(&mut m);
    m.namespace("path", super::os_path::register);
    m.build()
}

/// The value of an environment variable, or `default`.
#[native("getenv(key, default=None)")]
fn getenv(vm: &dyn Vm, key: &Value, default: Value) -> PyResult<Value> {
    Ok(env_get(vm, &key_str(key)?)
        .map(Value::str)
        .unwrap_or(default))
}

/// The current working directory.
#[native("getcwd()")]
fn getcwd() -> PyResult<String> {
    std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| PyErr::new(ExcType::FileNotFoundError, e.to_string()))
}

/// The number of CPUs.
#[native("cpu_count()")]
fn cpu_count() -> Option<usize> {
    std::thread::available_parallelism().ok().map(|n| n.get())
}

/// Deletes a file.
#[native("remove(path, *, dir_fd=None)")]
fn remove(vm: &dyn Vm, path: &Value, dir_fd: &Value) -> PyResult<()> {
    no_dir_fd("remove", dir_fd)?;
    let path = posix_path(vm, path, "remove", "path", "string, bytes or os.PathLike")?;
    std::fs::remove_file(&*path).map_err(|e| PyErr::from_io(&e, Some(path.as_str())))
}

/// Deletes a file (`remove`).
#[native("unlink(path, *, dir_fd=None)")]
fn unlink(vm: &dyn Vm, path: &Value, dir_fd: &Value) -> PyResult<()> {
    no_dir_fd("unlink", dir_fd)?;
    let path = posix_path(vm, path, "unlink", "path", "string, bytes or os.PathLike")?;
    std::fs::remove_file(&*path).map_err(|e| PyErr::from_io(&e, Some(path.as_str())))
}

/// Creates a directory.
#[native("mkdir(path, mode=511, *, dir_fd=None)")]
fn mkdir(vm: &dyn Vm, path: &Value, mode: i64, dir_fd: &Value) -> PyResult<()> {
    no_dir_fd("mkdir", dir_fd)?;
    let path = posix_path(vm, path, "mkdir", "path", "string, bytes or os.PathLike")?;
    let mut builder = std::fs::DirBuilder::new();
    // the permission bits, less the umask, as CPython's mkdir(2)
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, (mode & 0o7777) as u32);
    #[cfg(not(unix))]
    let _ = mode;
    builder
        .create(&*path)
        .map_err(|e| PyErr::from_io(&e, Some(path.as_str())))
}

/// Paths relative to a directory descriptor are not supported: a given
/// `dir_fd` is an error rather than ignored.
fn no_dir_fd(func: &str, dir_fd: &Value) -> PyResult<()> {
    if dir_fd.is_none() {
        return Ok(());
    }
    Err(PyErr::new(
        ExcType::NotImplementedError,
        format!("os.{func}(dir_fd=...) is not supported in dist"),
    ))
}

/// Deletes an empty directory.
#[native("rmdir(path, *, dir_fd=None)")]
fn rmdir(vm: &dyn Vm, path: &Value, dir_fd: &Value) -> PyResult<()> {
    no_dir_fd("rmdir", dir_fd)?;
    let path = posix_path(vm, path, "rmdir", "path", "string, bytes or os.PathLike")?;
    std::fs::remove_dir(&*path).map_err(|e| PyErr::from_io(&e, Some(path.as_str())))
}

/// The process id.
#[native("getpid()")]
fn getpid() -> i64 {
    std::process::id() as i64
}
