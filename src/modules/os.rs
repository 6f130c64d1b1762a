//! The `os` module: `environ` (a mapping over an environment table this
//! process owns, seeded from the real environment; assignments are seen by
//! `os.environ[...]`, `os.getenv` and Rust code through [`env_get`], without
//! touching the process environment), `getenv`, `getcwd`, `cpu_count`,
//! `remove`/`unlink`, `mkdir`/`rmdir` and the `os.path` helpers.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use indexmap::IndexMap;

use super::ModuleBuilder;
use crate::object::types::{add_method, type_error};
use crate::value::format::str_repr;
use crate::value::{Args, Class, ClassKind, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

thread_local! {
    static ENV: RefCell<Option<IndexMap<String, String>>> = const { RefCell::new(None) };
    static ENVIRON_CLASS: Rc<Class> = environ_class();
}

fn with_env<T>(f: impl FnOnce(&mut IndexMap<String, String>) -> T) -> T {
    ENV.with(|e| {
        let mut e = e.borrow_mut();
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
    })
}

/// Reads a variable of the script's environment (`os.environ[key]`).
pub fn env_get(key: &str) -> Option<String> {
    with_env(|m| m.get(key).cloned())
}

/// Sets a variable of the script's environment (`os.environ[key] = value`).
pub fn env_set(key: &str, value: &str) {
    with_env(|m| m.insert(key.to_string(), value.to_string()));
}

fn key_str(v: &Value) -> PyResult<String> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s.to_string()),
        _ => Err(type_error(format!("str expected, not {}", v.type_name()))),
    }
}

/// `os.environ`.
pub struct Environ;

impl NativeObject for Environ {
    fn type_name(&self) -> &str {
        "_Environ"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn class(&self) -> Option<Rc<Class>> {
        Some(ENVIRON_CLASS.with(Rc::clone))
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let parts: Vec<String> = with_env(|m| {
            m.iter()
                .map(|(k, v)| format!("{}: {}", str_repr(k), str_repr(v)))
                .collect()
        });
        Ok(format!("environ({{{}}})", parts.join(", ")))
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match ENVIRON_CLASS.with(|c| c.lookup(name)) {
            Some(Value::NativeFunction(f)) => Some(f.bind(this.clone())),
            other => other,
        })
    }

    fn dir(&self) -> Vec<String> {
        ENVIRON_CLASS.with(|c| c.dict.borrow().keys().map(|k| k.to_string()).collect())
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        vm.iter(&keys_list()).map(Some)
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        Ok(Some(with_env(|m| m.len())))
    }

    fn getitem(&self, _this: &Value, key: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let k = key_str(key)?;
        match env_get(&k) {
            Some(v) => Ok(Some(Value::str(v))),
            None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
        }
    }

    fn setitem(&self, _this: &Value, key: &Value, value: Value, _vm: &dyn Vm) -> PyResult<bool> {
        env_set(&key_str(key)?, &key_str(&value)?);
        Ok(true)
    }

    fn delitem(&self, _this: &Value, key: &Value, _vm: &dyn Vm) -> PyResult<bool> {
        let k = key_str(key)?;
        match with_env(|m| m.shift_remove(&k)) {
            Some(_) => Ok(true),
            None => Err(PyErr::with_args(ExcType::KeyError, vec![key.clone()])),
        }
    }

    fn contains(&self, item: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        // Mapping.__contains__ looks the key up: a non-str key is a TypeError.
        Ok(Some(env_get(&key_str(item)?).is_some()))
    }
}

fn keys_list() -> Value {
    Value::list(with_env(|m| m.keys().map(Value::str).collect()))
}

fn environ_class() -> Rc<Class> {
    let c = Class::new_builtin("_Environ", "os", None, ClassKind::Native);
    add_method(
        &c,
        "_Environ.get(self, key, default=None, /)",
        environ_get,
        "The value of a variable, or `default`.",
    );
    add_method(
        &c,
        "_Environ.keys(self)",
        environ_keys,
        "The variable names.",
    );
    add_method(&c, "_Environ.values(self)", environ_values, "The values.");
    add_method(
        &c,
        "_Environ.items(self)",
        environ_items,
        "The `(name, value)` pairs.",
    );
    add_method(
        &c,
        "_Environ.update(self, *other, **kwargs)",
        environ_update,
        "Sets every variable of a mapping (and the keyword arguments).",
    );
    add_method(
        &c,
        "_Environ.pop(self, key, *default)",
        environ_pop,
        "Removes a variable and returns its value.",
    );
    // Written in Python in CPython (MutableMapping), so its argument errors
    // read like a Python function's.
    c.set_attr(
        "setdefault",
        Value::NativeFunction(crate::value::NativeFunction::new(
            "_Environ.setdefault(self, key, value)",
            environ_setdefault,
            "The value, setting `value` first if unset.",
        )),
    );
    add_method(
        &c,
        "_Environ.copy(self)",
        environ_copy,
        "The environment as a plain dict.",
    );
    c
}

fn environ_get(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(env_get(&key_str(a.get(1))?)
        .map(Value::str)
        .unwrap_or_else(|| a.get(2).clone()))
}

fn environ_keys(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(keys_list())
}

fn environ_values(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::list(with_env(|m| {
        m.values().map(Value::str).collect()
    })))
}

fn environ_items(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::list(with_env(|m| {
        m.iter()
            .map(|(k, v)| Value::tuple(vec![Value::str(k), Value::str(v)]))
            .collect()
    })))
}

fn environ_pop(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let k = key_str(a.get(1))?;
    match (with_env(|m| m.shift_remove(&k)), a.varargs(2).first()) {
        (Some(v), _) => Ok(Value::str(v)),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(PyErr::with_args(ExcType::KeyError, vec![a.get(1).clone()])),
    }
}

fn environ_update(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    if let Some(m) = a.varargs(1).first() {
        let keys = vm.collect(&vm.call(&vm.getattr(m, "keys")?, Vec::new(), Vec::new())?)?;
        for k in keys {
            let v = vm.getitem(m, &k)?;
            env_set(&key_str(&k)?, &key_str(&v)?);
        }
    }
    if let Value::Dict(kw) = a.get(2) {
        for (k, v) in kw.borrow().items() {
            env_set(&key_str(&k)?, &key_str(&v)?);
        }
    }
    Ok(Value::None)
}

fn environ_setdefault(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let k = key_str(a.get(1))?;
    if let Some(v) = env_get(&k) {
        return Ok(Value::str(v));
    }
    env_set(&k, &key_str(a.get(2))?);
    Ok(a.get(2).clone())
}

fn environ_copy(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    let mut d = crate::value::Dict::new();
    with_env(|m| m.iter().for_each(|(k, v)| d.insert_str(k, Value::str(v))));
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
        .function(
            "getenv(key, default=None)",
            getenv,
            "The value of an environment variable, or `default`.",
        )
        .function("getcwd()", getcwd, "The current working directory.")
        .function("cpu_count()", cpu_count, "The number of CPUs.")
        .function("getpid()", getpid, "The process id.")
        .function("remove(path, *, dir_fd=None)", remove, "Deletes a file.")
        .function(
            "unlink(path, *, dir_fd=None)",
            remove,
            "Deletes a file (`remove`).",
        )
        .function(
            "mkdir(path, mode=511, *, dir_fd=None)",
            mkdir,
            "Creates a directory.",
        )
        .function(
            "rmdir(path, *, dir_fd=None)",
            rmdir,
            "Deletes an empty directory.",
        )
        .namespace("path", super::os_path::register);
    m.build()
}

fn getenv(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(env_get(&key_str(a.get(0))?)
        .map(Value::str)
        .unwrap_or_else(|| a.get(1).clone()))
}

fn getcwd(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    std::env::current_dir()
        .map(|p| Value::str(p.to_string_lossy()))
        .map_err(|e| PyErr::new(ExcType::FileNotFoundError, e.to_string()))
}

fn cpu_count(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(std::thread::available_parallelism().map_or(Value::None, |n| Value::Int(n.get() as i64)))
}

/// Runs a file-system operation on the path argument, its error as CPython's
/// `OSError` subclass for the errno.
fn on_path(a: &Args, op: fn(&str) -> std::io::Result<()>) -> PyResult<Value> {
    let Value::Str(p) = a.get(0) else {
        return Err(type_error(format!(
            "expected str, bytes or os.PathLike object, not {}",
            a.get(0).type_name()
        )));
    };
    op(p).map_err(|e| PyErr::from_io(&e, Some(p)))?;
    Ok(Value::None)
}

fn remove(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    on_path(a, |p| std::fs::remove_file(p))
}

fn mkdir(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    on_path(a, |p| std::fs::create_dir(p))
}

fn rmdir(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    on_path(a, |p| std::fs::remove_dir(p))
}

fn getpid(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::Int(std::process::id() as i64))
}
