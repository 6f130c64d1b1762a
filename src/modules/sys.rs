//! The `sys` module: the script's `argv`, `exit` (SystemExit, which the CLI
//! turns into the exit status), `stdout`/`stderr` streams that `print(file=)`
//! and `.write()` use, the recursion limit, and facts about the interpreter
//! (`version_info` is CPython 3.11's, whose language dist follows).

use std::any::Any;
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use super::collections::struct_sequence;
use super::ModuleBuilder;
use crate::value::{Args, ExcType, NativeFunction, NativeObject, PyErr, PyResult, Value, Vm};

thread_local! {
    /// `sys.argv` for scripts run on this thread (the CLI sets it).
    static ARGV: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Sets `sys.argv` (the script path, then its arguments).
pub fn set_argv(argv: Vec<String>) {
    ARGV.with(|a| *a.borrow_mut() = argv);
}

/// The `sys` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("sys");
    m.on_setattr(|vm, name, value| {
        if name == "stdout" {
            redirect_stdout(vm, value);
        }
    });
    let argv = ARGV.with(|a| a.borrow().clone());
    let argv = if argv.is_empty() {
        vec![String::new()]
    } else {
        argv
    };
    m.value(
        "argv",
        Value::list(argv.iter().map(Value::str).collect()),
    )
    .value("stdout", Value::native(Stream { err: false }))
    .value("stderr", Value::native(Stream { err: true }))
    .value("version", Value::str("3.11.7 (dist)"))
    .value(
        "version_info",
        struct_sequence(
            "sys.version_info",
            "sys",
            &["major", "minor", "micro", "releaselevel", "serial"],
            vec![
                Value::Int(3),
                Value::Int(11),
                Value::Int(7),
                Value::str("final"),
                Value::Int(0),
            ],
        ),
    )
    .value(
        "float_info",
        struct_sequence(
            "sys.float_info",
            "sys",
            &[
                "max", "max_exp", "max_10_exp", "min", "min_exp", "min_10_exp", "dig",
                "mant_dig", "epsilon", "radix", "rounds",
            ],
            vec![
                Value::Float(f64::MAX),
                Value::Int(f64::MAX_EXP as i64),
                Value::Int(f64::MAX_10_EXP as i64),
                Value::Float(f64::MIN_POSITIVE),
                Value::Int(f64::MIN_EXP as i64),
                Value::Int(f64::MIN_10_EXP as i64),
                Value::Int(f64::DIGITS as i64),
                Value::Int(f64::MANTISSA_DIGITS as i64),
                Value::Float(f64::EPSILON),
                Value::Int(f64::RADIX as i64),
                Value::Int(1),
            ],
        ),
    )
    .value(
        "int_info",
        struct_sequence(
            "sys.int_info",
            "sys",
            &["bits_per_digit", "sizeof_digit", "default_max_str_digits", "str_digits_check_threshold"],
            vec![Value::Int(30), Value::Int(4), Value::Int(4300), Value::Int(640)],
        ),
    )
    .value("maxunicode", Value::Int(0x10FFFF))
    .value("maxsize", Value::Int(i64::MAX))
    .value("platform", Value::str(std::env::consts::OS))
    .value("byteorder", Value::str(if cfg!(target_endian = "little") { "little" } else { "big" }))
    .value("executable", Value::str("dist"))
    .value("path", Value::list(Vec::new()))
    .function(
        "exit(status=None, /)",
        exit,
        "Leaves the script by raising SystemExit(status): an int is the exit status, None is 0, anything else is printed and the status is 1.",
    )
    .function(
        "exc_info()",
        exc_info,
        "The exception being handled as (type, value, traceback); (None, None, None) outside any handler.",
    )
    .function(
        "exception()",
        exception,
        "The exception being handled, or None outside any handler.",
    )
    .function(
        "getrecursionlimit()",
        getrecursionlimit,
        "The most Python frames a call chain may hold (1000 by default).",
    )
    .function(
        "setrecursionlimit(limit, /)",
        setrecursionlimit,
        "Sets the most Python frames a call chain may hold; the native stack still bounds it (RecursionError).",
    );
    m.build()
}

fn exit(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let args = match a.get(0) {
        Value::None => Vec::new(),
        v => vec![v.clone()],
    };
    Err(PyErr::with_args(ExcType::SystemExit, args))
}

fn exc_info(vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(match vm.handled_exception() {
        Some(v) => {
            let tb = vm.getattr(&v, "__traceback__").unwrap_or(Value::None);
            Value::tuple(vec![vm.type_of(&v), v, tb])
        }
        None => Value::tuple(vec![Value::None, Value::None, Value::None]),
    })
}

fn exception(vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(vm.handled_exception().unwrap_or(Value::None))
}

fn getrecursionlimit(vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::Int(vm.recursion_limit() as i64))
}

fn setrecursionlimit(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let n = match a.get(0) {
        Value::Int(n) => *n,
        other => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                ),
            ))
        }
    };
    if n < 1 {
        return Err(PyErr::new(
            ExcType::ValueError,
            "recursion limit must be greater or equal than 1",
        ));
    }
    vm.set_recursion_limit(u32::try_from(n).unwrap_or(u32::MAX));
    Ok(Value::None)
}

/// What a script assigned to `sys.stdout` when it is not the real one (a
/// `StringIO`, an object with `write`): where `print()` then writes. Kept
/// in the interpreter's state, so each interpreter starts unredirected.
#[derive(Default)]
pub struct StdoutRedirect(std::cell::RefCell<Option<Value>>);

/// Records an assignment to `sys.stdout` (the real stream again: no redirection).
pub fn redirect_stdout(vm: &dyn Vm, v: &Value) {
    let real = matches!(v.downcast::<Stream>(), Some(s) if !s.err);
    *vm.state().get::<StdoutRedirect>().0.borrow_mut() = (!real).then(|| v.clone());
}

/// The object `sys.stdout` was replaced with, if it was.
pub fn redirected_stdout(vm: &dyn Vm) -> Option<Value> {
    vm.state().get::<StdoutRedirect>().0.borrow().clone()
}

/// `sys.stdout` / `sys.stderr`.
pub struct Stream {
    /// Standard error (else standard output).
    pub err: bool,
}

impl Stream {
    /// Writes `text` where this stream goes (stdout through the interpreter,
    /// so it stays in order with `print`).
    pub fn write(&self, vm: &dyn Vm, text: &str) {
        if self.err {
            vm.flush_stdout();
            let _ = std::io::stderr().write_all(text.as_bytes());
        } else {
            vm.write_stdout(text);
        }
    }
}

impl NativeObject for Stream {
    fn type_name(&self) -> &str {
        "TextIOWrapper"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<_io.TextIOWrapper name='<{}>' mode='w' encoding='utf-8'>",
            if self.err { "stderr" } else { "stdout" }
        ))
    }
    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "write" => Some(WRITE.with(|f| f.bind(this.clone()))),
            "flush" => Some(FLUSH.with(|f| f.bind(this.clone()))),
            "name" => Some(Value::str(if self.err { "<stderr>" } else { "<stdout>" })),
            _ => None,
        })
    }
}

fn write(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let Some(s) = a.get(0).downcast::<Stream>() else {
        return Err(PyErr::new(ExcType::TypeError, "expected a stream"));
    };
    let Value::Str(text) = a.get(1).as_builtin() else {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!("write() argument must be str, not {}", a.get(1).type_name()),
        ));
    };
    s.write(vm, text);
    Ok(Value::Int(text.chars().count() as i64))
}

fn flush(vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    vm.flush_stdout();
    Ok(Value::None)
}

thread_local! {
    static WRITE: Rc<NativeFunction> = NativeFunction::new(
        "write(self, s, /)",
        write,
        "Writes the string; returns the number of characters written.",
    );
    static FLUSH: Rc<NativeFunction> = NativeFunction::new(
        "flush(self, /)",
        flush,
        "Flushes the stream.",
    );
}
