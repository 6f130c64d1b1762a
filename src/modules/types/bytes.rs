//! `bytes`: the constructor, `decode`/`encode` (utf-8, ascii, latin-1) and a
//! few common methods.

use std::rc::Rc;

use super::{add_method, add_new, descriptor_error, type_error, value_error};
use crate::value::{Args, Class, ExcType, PyErr, PyResult, Value, Vm};

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

fn norm_encoding(enc: &str) -> String {
    enc.to_ascii_lowercase().replace(['-', '_'], "")
}

/// `s.encode(encoding)`.
pub fn encode_str(s: &str, encoding: &str, _errors: Option<&Value>) -> PyResult<Value> {
    let bytes = match norm_encoding(encoding).as_str() {
        "utf8" => s.as_bytes().to_vec(),
        "ascii" | "latin1" | "iso88591" => {
            let limit = if norm_encoding(encoding) == "ascii" {
                0x80
            } else {
                0x100
            };
            let mut out = Vec::with_capacity(s.len());
            for (i, c) in s.chars().enumerate() {
                if (c as u32) >= limit {
                    let name = if limit == 0x80 { "ascii" } else { "latin-1" };
                    return Err(PyErr::new(
                        ExcType::UnicodeError,
                        format!(
                            "'{name}' codec can't encode character '\\u{:04x}' in position {i}: ordinal not in range({limit})",
                            c as u32
                        ),
                    ));
                }
                out.push(c as u32 as u8);
            }
            out
        }
        _ => {
            return Err(PyErr::new(
                ExcType::LookupError,
                format!("unknown encoding: {encoding}"),
            ))
        }
    };
    Ok(Value::Bytes(Rc::new(bytes)))
}

/// `b.decode(encoding)`.
pub fn decode_bytes(
    b: &[u8],
    encoding: Option<&Value>,
    _errors: Option<&Value>,
) -> PyResult<Value> {
    let enc = match encoding {
        None => "utf-8".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(other) => {
            return Err(type_error(format!(
                "decode() argument 'encoding' must be str, not {}",
                other.type_name()
            )))
        }
    };
    match norm_encoding(&enc).as_str() {
        "utf8" => match std::str::from_utf8(b) {
            Ok(s) => Ok(Value::str(s)),
            Err(e) => Err(PyErr::new(
                ExcType::UnicodeError,
                format!(
                    "'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte",
                    b.get(e.valid_up_to()).copied().unwrap_or(0),
                    e.valid_up_to()
                ),
            )),
        },
        "ascii" => match b.iter().position(|c| *c >= 0x80) {
            Some(i) => Err(PyErr::new(
                ExcType::UnicodeError,
                format!("'ascii' codec can't decode byte 0x{:02x} in position {i}: ordinal not in range(128)", b[i]),
            )),
            None => Ok(Value::str(b.iter().map(|c| *c as char).collect::<String>())),
        },
        "latin1" | "iso88591" => Ok(Value::str(b.iter().map(|c| *c as char).collect::<String>())),
        _ => Err(PyErr::new(ExcType::LookupError, format!("unknown encoding: {enc}"))),
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
