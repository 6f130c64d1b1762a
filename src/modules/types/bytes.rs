//! `bytes`: the constructor, `decode` (the codecs live in `codecs.rs`) and a
//! few common methods.

use std::rc::Rc;

#[path = "codecs.rs"]
mod codecs;

pub use codecs::{decode_bytes, encode_str};

use super::{add_method, add_new, descriptor_error, type_error, value_error};
use crate::value::{Args, Class, PyResult, Value, Vm};

/// Registers `bytes`' constructor and methods.
pub fn register(c: &Class) {
    add_new(
        c,
        "bytes(source=None, encoding=None, errors=None)",
        bytes_new,
        "Bytes from a str and encoding, an iterable of ints, or a count of zero bytes.",
    );
    add_method(
        c,
        "bytes.decode(self, encoding='utf-8', errors='strict')",
        decode,
        "The bytes as a str: `b'hi'.decode() == 'hi'`.",
    );
    add_method(
        c,
        "bytes.hex(self)",
        hex,
        "The bytes as hex digits: `b'\\x01\\xff'.hex() == '01ff'`.",
    );
    add_method(
        c,
        "bytes.startswith(self, prefix, /)",
        startswith,
        "Whether the bytes start with `prefix`.",
    );
    add_method(
        c,
        "bytes.endswith(self, suffix, /)",
        endswith,
        "Whether the bytes end with `suffix`.",
    );
    add_method(
        c,
        "bytes.join(self, iterable, /)",
        join,
        "Concatenates bytes with `self` between them.",
    );
}

fn this<'a>(a: &'a Args, name: &str) -> PyResult<&'a Rc<Vec<u8>>> {
    match a.get(0) {
        Value::Bytes(b) => Ok(b),
        other => Err(descriptor_error(name, "bytes", other)),
    }
}

fn bytes_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let src = a.get(0);
    if let Value::Str(s) = src {
        return match a.opt(1) {
            Some(Value::Str(enc)) => encode_str(s, enc, a.opt(2)),
            _ => Err(type_error("string argument without an encoding")),
        };
    }
    if a.opt(1).is_some() {
        return Err(type_error("encoding without a string argument"));
    }
    Ok(Value::Bytes(Rc::new(match src {
        Value::None if !a.was_given(0) => Vec::new(),
        Value::Bytes(b) => b.to_vec(),
        Value::Int(n) => {
            let n = usize::try_from(*n).map_err(|_| value_error("negative count"))?;
            super::check_alloc(n, 1)?;
            vec![0; n]
        }
        Value::None | Value::Float(_) => {
            return Err(type_error(format!(
                "cannot convert '{}' object to bytes",
                src.type_name()
            )))
        }
        other => vm
            .collect(other)?
            .iter()
            .map(|v| match v {
                Value::Int(i) if (0..256).contains(i) => Ok(*i as u8),
                Value::Int(_) => Err(value_error("bytes must be in range(0, 256)")),
                x => Err(type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    x.type_name()
                ))),
            })
            .collect::<PyResult<_>>()?,
    })))
}

fn decode(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    decode_bytes(this(a, "decode")?, a.opt(1), a.opt(2))
}

fn hex(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(
        this(a, "hex")?
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>(),
    ))
}

fn bytes_arg<'a>(v: &'a Value, name: &str) -> PyResult<&'a [u8]> {
    match v {
        Value::Bytes(b) => Ok(b),
        other => Err(type_error(format!(
            "{name} first arg must be bytes or a tuple of bytes, not {}",
            other.type_name()
        ))),
    }
}

fn startswith(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(
        this(a, "startswith")?.starts_with(bytes_arg(a.get(1), "startswith")?),
    ))
}

fn endswith(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(
        this(a, "endswith")?.ends_with(bytes_arg(a.get(1), "endswith")?),
    ))
}

fn join(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let sep = this(a, "join")?;
    let mut out = Vec::new();
    for (i, it) in vm.collect(a.get(1))?.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(sep);
        }
        match it {
            Value::Bytes(b) => out.extend_from_slice(b),
            other => {
                return Err(type_error(format!(
                    "sequence item {i}: expected a bytes-like object, {} found",
                    other.type_name()
                )))
            }
        }
    }
    Ok(Value::Bytes(Rc::new(out)))
}
