//! The `sys` module: the script's `argv`, `exit` (SystemExit, which the CLI
//! turns into the exit status), `stdout`/`stderr` streams that `print(file=)`
//! and `.write()` use, the recursion limit, and facts about the interpreter
//! (`version_info` is CPython 3.11's, whose language dist follows).

use std::cell::RefCell;
use std::io::Write;

use super::ModuleBuilder;
use crate::distribute::classes::native_class;
use crate::object::types::namedtuple::struct_sequence;
use crate::object::{native, ClassSpec, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `sys.argv` for the script the interpreter runs (the CLI sets it;
/// interpreter state, `vm.state()`).
#[derive(Default)]
pub struct Argv(RefCell<Vec<String>>);

/// Sets `sys.argv` (the script path, then its arguments).
pub fn set_argv(vm: &dyn Vm, argv: Vec<String>) {
    *vm.state().get::<Argv>().0.borrow_mut() = argv;
}

/// The `sys` module.
pub fn module(vm: &dyn Vm) -> Value {
    let mut m = ModuleBuilder::new("sys");
    m.on_setattr(|vm, name, value| {
        if name == "stdout" {
            redirect_stdout(vm, value);
        }
    });
    let argv = vm.state().get::<Argv>().0.borrow().clone();
    let argv = if argv.is_empty() {
        vec![String::new()]
    } else {
        argv
    };
    m.value("argv", Value::list(argv.iter().map(Value::str).collect()))
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
                    "max",
                    "max_exp",
                    "max_10_exp",
                    "min",
                    "min_exp",
                    "min_10_exp",
                    "dig",
                    "mant_dig",
                    "epsilon",
                    "radix",
                    "rounds",
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
                &[
                    "bits_per_digit",
                    "sizeof_digit",
                    "default_max_str_digits",
                    "str_digits_check_threshold",
                ],
                vec![
                    Value::Int(30),
                    Value::Int(4),
                    Value::Int(4300),
                    Value::Int(640),
                ],
            ),
        )
        .value("maxunicode", Value::Int(0x10FFFF))
        .value("maxsize", Value::Int(i64::MAX))
        .value("platform", Value::str(std::env::consts::OS))
        .value(
            "byteorder",
            Value::str(if cfg!(target_endian = "little") {
                "little"
            } else {
                "big"
            }),
        )
        .value("executable", Value::str("dist"))
        .value("path", Value::list(Vec::new()))
        .add(exit::DEF)
        .add(exc_info::DEF)
        .add(exception::DEF)
        .add(getrecursionlimit::DEF)
        .add(getframe::DEF)
        .add(setrecursionlimit::DEF)
        .add(get_int_max_str_digits::DEF)
        .add(set_int_max_str_digits::DEF);
    m.build()
}

/// Leaves the script by raising SystemExit(status): an int is the exit status, None is 0, anything else is printed and the status is 1.
#[native("exit(status=None, /)")]
fn exit(status: &Value) -> PyResult<()> {
    let args = match status {
        Value::None => Vec::new(),
        v => vec![v.clone()],
    };
    Err(PyErr::with_args(ExcType::SystemExit, args))
}

/// The exception being handled as (type, value, traceback); (None, None, None) outside any handler.
#[native("exc_info()")]
fn exc_info(vm: &dyn Vm) -> Value {
    match vm.handled_exception() {
        Some(v) => {
            let tb = vm.getattr(&v, "__traceback__").unwrap_or(Value::None);
            Value::tuple(vec![vm.type_of(&v), v, tb])
        }
        None => Value::tuple(vec![Value::None, Value::None, Value::None]),
    }
}

/// The exception being handled, or None outside any handler.
#[native("exception()")]
fn exception(vm: &dyn Vm) -> Option<Value> {
    vm.handled_exception()
}

/// The frame `depth` calls out from the caller's (0: the caller's own):
/// its code's name and file, the line running, `f_back`.
#[native("_getframe(depth=0, /)")]
fn getframe(vm: &dyn Vm, depth: i64) -> PyResult<Value> {
    vm.frame(depth.max(0) as usize)
        .ok_or_else(|| PyErr::new(ExcType::ValueError, "call stack is not deep enough"))
}

/// The most Python frames a call chain may hold (1000 by default).
#[native("getrecursionlimit()")]
fn getrecursionlimit(vm: &dyn Vm) -> i64 {
    vm.recursion_limit() as i64
}

// Only an int, not a bool: what the old code accepted.
/// Sets the most Python frames a call chain may hold; the native stack still bounds it (RecursionError).
#[native("setrecursionlimit(limit, /)")]
fn setrecursionlimit(vm: &dyn Vm, limit: &Value) -> PyResult<()> {
    let n = match limit {
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
    Ok(())
}

/// The most digits an int↔str conversion of a huge int may have (4300 by
/// default; 0: no limit).
#[native("get_int_max_str_digits()")]
fn get_int_max_str_digits(vm: &dyn Vm) -> i64 {
    crate::object::types::long::max_str_digits(vm) as i64
}

/// Sets the most digits an int↔str conversion of a huge int may have: 0
/// (no limit) or at least 640.
#[native("set_int_max_str_digits(maxdigits)")]
fn set_int_max_str_digits(vm: &dyn Vm, maxdigits: &Value) -> PyResult<()> {
    let n = match crate::object::types::as_index_value(maxdigits, vm)? {
        Some(Value::Int(n)) => n,
        Some(_) => {
            return Err(PyErr::new(
                ExcType::OverflowError,
                "Python int too large to convert to C int",
            ))
        }
        None => return Err(crate::object::types::not_an_integer(maxdigits)),
    };
    if n != 0 && n <= 640 || n < 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            "maxdigits must be 0 or larger than 640",
        ));
    }
    let n = usize::try_from(n).map_err(|_| {
        PyErr::new(
            ExcType::OverflowError,
            "Python int too large to convert to C int",
        )
    })?;
    vm.state()
        .get::<crate::object::types::long::IntMaxStrDigits>()
        .0
        .set(n);
    Ok(())
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

/// The class of `sys.stdout` and `sys.stderr`.
// Named as the evaluator named the class of a native object without one
// (module `builtins`), so that `type(sys.stdout)` prints as before.
pub static STREAM: ClassSpec = ClassSpec {
    name: "TextIOWrapper",
    module: "builtins",
    bases: &[],
    members: &[
        Member::Method(write::DEF),
        Member::Method(flush::DEF),
        Member::Getter(name::DEF),
    ],
};

native_class!(Stream: STREAM);

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
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&STREAM)
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<_io.TextIOWrapper name='<{}>' mode='w' encoding='utf-8'>",
            if self.err { "stderr" } else { "stdout" }
        ))
    }
}

/// Writes the string; returns the number of characters written.
#[native("write(self, s, /)")]
fn write(vm: &dyn Vm, this: &Stream, s: &Value) -> PyResult<usize> {
    let Value::Str(text) = s.as_builtin() else {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!("write() argument must be str, not {}", s.type_name()),
        ));
    };
    this.write(vm, text);
    Ok(text.chars().count())
}

/// Flushes the stream.
#[native("flush(self, /)")]
fn flush(vm: &dyn Vm, _this: &Stream) {
    vm.flush_stdout();
}

/// The stream's name (`<stdout>`, `<stderr>`).
#[native("name(self)")]
fn name(this: &Stream) -> &'static str {
    if this.err {
        "<stderr>"
    } else {
        "<stdout>"
    }
}
