//! `_json`, the native half of the `json` module (stdlib/json.dist adds
//! `JSONEncoder`, `JSONDecoder` and `cls=`): `dumps` (CPython's exact layout, float reprs,
//! `NaN`/`Infinity`, ASCII escaping) and `loads` (with `JSONDecodeError`, a
//! `ValueError` subclass, and CPython's messages).

mod decode;
mod encode;

use std::rc::Rc;

use super::ModuleBuilder;
use crate::value::{Args, Class, ClassKind, ExcType, Instance, PyErr, PyResult, Value, Vm};

pub use decode::loads_str;
pub use encode::{dumps_value, DumpOptions};

thread_local! {
    static DECODE_ERROR: Rc<Class> = Class::new_builtin(
        "JSONDecodeError",
        "json.decoder",
        Some(ExcType::ValueError.class()),
        ClassKind::User,
    );
}

/// `json.JSONDecodeError` (a subclass of `ValueError`).
pub fn decode_error_class() -> Rc<Class> {
    DECODE_ERROR.with(Rc::clone)
}

/// A `JSONDecodeError` with CPython's message (`Expecting value: line 1 column 1 (char 0)`).
#[cold]
pub fn decode_error(msg: &str, doc: &[char], pos: usize) -> PyErr {
    let before = &doc[..pos.min(doc.len())];
    let line = before.iter().filter(|c| **c == '\n').count() + 1;
    let col = match before.iter().rposition(|c| *c == '\n') {
        Some(nl) => pos - nl,
        None => pos + 1,
    };
    let inst = Instance::new(decode_error_class());
    let text = format!("{msg}: line {line} column {col} (char {pos})");
    inst.set_attr("args", Value::tuple(vec![Value::str(text)]));
    inst.set_attr("msg", Value::str(msg));
    inst.set_attr("pos", Value::Int(pos as i64));
    inst.set_attr("lineno", Value::Int(line as i64));
    inst.set_attr("colno", Value::Int(col as i64));
    PyErr::from_value(Value::Instance(Rc::new(inst)))
}

/// The `json` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_json");
    m.function(
        "dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None, indent=None, separators=None, default=None, sort_keys=False)",
        encode::dumps,
        "Serialises an object to a JSON string: `json.dumps({'a': [1, 2]}) == '{\"a\": [1, 2]}'`.",
    )
    .function(
        "dump(obj, fp, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None, indent=None, separators=None, default=None, sort_keys=False)",
        dump,
        "Serialises an object as `dumps` does and writes it with `fp.write`.",
    )
    .function(
        "load(fp, *, cls=None, object_hook=None, parse_float=None, parse_int=None, parse_constant=None, object_pairs_hook=None)",
        load,
        "Parses the JSON document that `fp.read()` returns, as `loads` does.",
    )
    .function(
        "loads(s, *, cls=None, object_hook=None, parse_float=None, parse_int=None, parse_constant=None, object_pairs_hook=None)",
        decode::loads,
        "Parses a JSON document: `json.loads('[1, 2.5, null]') == [1, 2.5, None]`.",
    )
    .value("JSONDecodeError", Value::Class(decode_error_class()));
    m.build()
}

/// `json.dump(obj, fp, ...)`: `fp.write(json.dumps(obj, ...))`, in one
/// write where CPython writes piece by piece (the text written is the same).
fn dump(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut values = a.values.clone();
    let fp = values.remove(1);
    let text = encode::dumps(
        vm,
        &Args {
            values,
            given: None,
        },
    )?;
    let write = vm.getattr(&fp, "write")?;
    vm.call(&write, vec![text], Vec::new())?;
    Ok(Value::None)
}

/// `json.load(fp, ...)`: `json.loads(fp.read(), ...)`.
fn load(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let read = vm.getattr(a.get(0), "read")?;
    let mut values = a.values.clone();
    values[0] = vm.call(&read, Vec::new(), Vec::new())?;
    decode::loads(
        vm,
        &Args {
            values,
            given: None,
        },
    )
}

#[cfg(test)]
mod tests;
