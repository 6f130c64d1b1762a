//! `_json`, the native half of the `json` module (stdlib/json.dist adds
//! `JSONEncoder`, `JSONDecoder` and `cls=`): `dumps` (CPython's exact layout, float reprs,
//! `NaN`/`Infinity`, ASCII escaping) and `loads` (with `JSONDecodeError`, a
//! `ValueError` subclass, and CPython's messages).

mod decode;
mod encode;

use std::rc::Rc;

use super::ModuleBuilder;
use crate::object::native;
use crate::value::{Class, ClassKind, ExcType, Instance, PyErr, PyResult, Value, Vm};

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
    m.add(encode::dumps::DEF)
        .add(dump::DEF)
        .add(load::DEF)
        .add(decode::loads::DEF)
        .value("JSONDecodeError", Value::Class(decode_error_class()));
    m.build()
}

/// Serialises an object as `dumps` does and writes it with `fp.write`.
// In one write where CPython writes piece by piece (the text written is the same).
#[native(
    "dump(obj, fp, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None, indent=None, separators=None, default=None, sort_keys=False)"
)]
#[expect(clippy::too_many_arguments, reason = "json.dump's parameters")]
fn dump(
    vm: &dyn Vm,
    obj: &Value,
    fp: &Value,
    skipkeys: &Value,
    ensure_ascii: &Value,
    check_circular: &Value,
    allow_nan: &Value,
    cls: &Value,
    indent: &Value,
    separators: &Value,
    default: &Value,
    sort_keys: &Value,
) -> PyResult<()> {
    let text = encode::dumps(
        vm,
        obj,
        skipkeys,
        ensure_ascii,
        check_circular,
        allow_nan,
        cls,
        indent,
        separators,
        default,
        sort_keys,
    )?;
    let write = vm.getattr(fp, "write")?;
    vm.call(&write, vec![text], Vec::new())?;
    Ok(())
}

/// Parses the JSON document that `fp.read()` returns, as `loads` does.
#[native(
    "load(fp, *, cls=None, object_hook=None, parse_float=None, parse_int=None, parse_constant=None, object_pairs_hook=None)"
)]
#[expect(clippy::too_many_arguments, reason = "json.load's parameters")]
fn load(
    vm: &dyn Vm,
    fp: &Value,
    cls: &Value,
    object_hook: &Value,
    parse_float: &Value,
    parse_int: &Value,
    parse_constant: &Value,
    object_pairs_hook: &Value,
) -> PyResult<Value> {
    let read = vm.getattr(fp, "read")?;
    let s = vm.call(&read, Vec::new(), Vec::new())?;
    decode::loads(
        vm,
        &s,
        cls,
        object_hook,
        parse_float,
        parse_int,
        parse_constant,
        object_pairs_hook,
    )
}

#[cfg(test)]
mod tests;
