//! `bytes`: the constructor, `decode` (the codecs live in `codecs.rs`) and a
//! few common methods.

use std::rc::Rc;

#[path = "bytes_str.rs"]
mod bytes_str;
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
        "bytes.hex(self, sep=None, bytes_per_sep=1)",
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
    for (name, f) in bytes_str::METHODS {
        // The str method's own signature checks the arguments; leaked once
        // per method at start-up, as the signature strings must be 'static.
        let sig: &'static str =
            Box::leak(format!("bytes.{name}(self, /, *args, **kwargs)").into_boxed_str());
        add_method(c, sig, *f, "As the str method of the same name, on bytes.");
    }
    super::add_class_method(
        c,
        "bytes.fromhex(cls, string, /)",
        fromhex,
        "The bytes that hex digits write: `bytes.fromhex('01ff') == b'\\x01\\xff'`.",
    );
    add_method(
        c,
        "bytes.splitlines(self, /, keepends=False)",
        splitlines,
        "The lines, split at \\n, \\r and \\r\\n.",
    );
    add_method(
        c,
        "bytes.join(self, iterable, /)",
        join,
        "Concatenates bytes with `self` between them.",
    );
    add_method(
        c,
        "bytes.isascii(self, /)",
        isascii,
        "Whether every byte is below 0x80 (true when empty).",
    );
    add_method(
        c,
        "bytes.translate(self, table, /, delete=None)",
        translate,
        "The bytes mapped through a 256-byte table (None: unchanged), without those in `delete`.",
    );
    super::add_static_method(
        c,
        "bytes.maketrans(frm, to, /)",
        maketrans,
        "The 256-byte table for `translate` mapping each byte of `frm` to the one of `to`.",
    );
}

fn isascii(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(this(a, "isascii")?.is_ascii()))
}

/// A bytes-like argument (bytes only here) or CPython's TypeError.
fn buffer_arg(v: &Value) -> PyResult<&[u8]> {
    match v.as_builtin() {
        Value::Bytes(b) => Ok(b),
        _ => Err(type_error(format!(
            "a bytes-like object is required, not '{}'",
            v.type_name()
        ))),
    }
}

fn translate(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let src = this(a, "translate")?;
    let table = match a.get(1) {
        Value::None => None,
        t => {
            let t = buffer_arg(t)?;
            if t.len() != 256 {
                return Err(value_error("translation table must be 256 characters long"));
            }
            Some(t)
        }
    };
    let delete = match a.get(2) {
        Value::None => &[][..],
        d => buffer_arg(d)?,
    };
    let out: Vec<u8> = src
        .iter()
        .filter(|b| !delete.contains(b))
        .map(|&b| table.map_or(b, |t| t[b as usize]))
        .collect();
    Ok(Value::Bytes(Rc::new(out)))
}

fn maketrans(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let (frm, to) = (buffer_arg(a.get(0))?, buffer_arg(a.get(1))?);
    if frm.len() != to.len() {
        return Err(value_error("maketrans arguments must have same length"));
    }
    let mut table: Vec<u8> = (0..=255u8).collect();
    for (f, t) in frm.iter().zip(to) {
        table[*f as usize] = *t;
    }
    Ok(Value::Bytes(Rc::new(table)))
}

fn this<'a>(a: &'a Args, name: &str) -> PyResult<&'a Rc<Vec<u8>>> {
    match a.get(0) {
        Value::Bytes(b) => Ok(b),
        other => Err(descriptor_error(name, "bytes", other)),
    }
}

fn bytes_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    // An int (str…) subclass's instance stands for its value: `bytes(member)`.
    let src = a.get(0).as_builtin();
    if let Value::Str(s) = src {
        return match a.opt(1).map(Value::as_builtin) {
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
                a.get(0).type_name()
            )))
        }
        other => vm
            .collect(other)?
            .iter()
            .map(|v| match v.as_builtin() {
                Value::Int(i) if (0..256).contains(i) => Ok(*i as u8),
                Value::Int(_) => Err(value_error("bytes must be in range(0, 256)")),
                _ => Err(type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    v.type_name()
                ))),
            })
            .collect::<PyResult<_>>()?,
    })))
}

fn decode(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    decode_bytes(this(a, "decode")?, a.opt(1), a.opt(2))
}

fn hex(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let b = this(a, "hex")?;
    let digits: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
    let sep = match a.get(1).as_builtin() {
        Value::None => return Ok(Value::str(digits.concat())),
        Value::Str(s) if s.chars().count() == 1 && s.is_ascii() => s.to_string(),
        Value::Bytes(s) if s.len() == 1 && s[0].is_ascii() => (s[0] as char).to_string(),
        Value::Str(_) | Value::Bytes(_) => {
            return Err(value_error("sep must be length 1."));
        }
        other => {
            return Err(type_error(format!(
                "sep must be str or bytes, not {}",
                other.type_name()
            )))
        }
    };
    // Groups of `per` bytes, counted from the right (from the left when
    // bytes_per_sep is negative).
    let per = super::int_arg(a.get(2), vm)?;
    let n = per.unsigned_abs().max(1) as usize;
    let mut groups: Vec<String> = Vec::new();
    if per < 0 {
        for chunk in digits.chunks(n) {
            groups.push(chunk.concat());
        }
    } else {
        for chunk in digits.rchunks(n) {
            groups.insert(0, chunk.concat());
        }
    }
    Ok(Value::str(groups.join(&sep)))
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

fn fromhex(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let Value::Str(s) = a.get(1).as_builtin() else {
        return Err(type_error(format!(
            "fromhex() argument must be str, not {}",
            a.get(1).type_name()
        )));
    };
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let hi = chars[i].to_digit(16);
        let lo = chars.get(i + 1).and_then(|c| c.to_digit(16));
        match (hi, lo) {
            (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
            (None, _) => {
                return Err(value_error(format!(
                    "non-hexadecimal number found in fromhex() arg at position {i}"
                )))
            }
            (Some(_), None) => {
                return Err(value_error(format!(
                    "non-hexadecimal number found in fromhex() arg at position {}",
                    i + 1
                )))
            }
        }
        i += 2;
    }
    super::of_class(vm, a.get(0), Value::Bytes(Rc::new(out)))
}

fn splitlines(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let b = this(a, "splitlines")?;
    let keep = super::int_arg(a.get(1), vm)? != 0;
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        if b[i] == b'\n' || b[i] == b'\r' {
            let end = if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                i + 2
            } else {
                i + 1
            };
            out.push(Value::Bytes(Rc::new(
                b[start..if keep { end } else { i }].to_vec(),
            )));
            start = end;
            i = end;
        } else {
            i += 1;
        }
    }
    if start < b.len() {
        out.push(Value::Bytes(Rc::new(b[start..].to_vec())));
    }
    Ok(Value::list(out))
}
