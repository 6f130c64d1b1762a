//! `bytes`: the constructor, `decode` (the codecs live in `codecs.rs`) and a
//! few common methods.

use std::rc::Rc;

#[path = "bytes_str.rs"]
mod bytes_str;
#[path = "codecs.rs"]
mod codecs;

pub use codecs::{decode_bytes, encode_str};

use super::{not_an_integer, type_error, value_error};
use crate::object::{native, Given, Member};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// `bytes`' constructor and own methods; those that mean the same as
/// `str`'s (`split`, `startswith` …) are in `bytes_str`, between the two
/// halves of this table in the class's namespace.
pub static MEMBERS: [&[Member]; 3] = [
    &[
        Member::New(bytes_new::DEF),
        Member::Method(decode::DEF),
        Member::Method(hex::DEF),
    ],
    bytes_str::MEMBERS,
    &[
        Member::ClassMethod(fromhex::DEF),
        Member::Method(splitlines::DEF),
        Member::Method(join::DEF),
        Member::Method(isascii::DEF),
        Member::Method(translate::DEF),
        Member::StaticMethod(maketrans::DEF),
    ],
];

/// Whether every byte is below 0x80 (true when empty).
#[native("bytes.isascii(self, /)", c)]
fn isascii(this: &Rc<Vec<u8>>) -> bool {
    this.is_ascii()
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

/// The bytes mapped through a 256-byte table (None: unchanged), without those in `delete`.
#[native("bytes.translate(self, table, /, delete=None)", c)]
fn translate(this: &Rc<Vec<u8>>, table: &Value, delete: &Value) -> PyResult<Value> {
    let src = this;
    let table = match table {
        Value::None => None,
        t => {
            let t = buffer_arg(t)?;
            if t.len() != 256 {
                return Err(value_error("translation table must be 256 characters long"));
            }
            Some(t)
        }
    };
    let delete = match delete {
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

/// The 256-byte table for `translate` mapping each byte of `frm` to the one of `to`.
#[native("bytes.maketrans(frm, to, /)", c)]
fn maketrans(frm: &Value, to: &Value) -> PyResult<Value> {
    let (frm, to) = (buffer_arg(frm)?, buffer_arg(to)?);
    if frm.len() != to.len() {
        return Err(value_error("maketrans arguments must have same length"));
    }
    let mut table: Vec<u8> = (0..=255u8).collect();
    for (f, t) in frm.iter().zip(to) {
        table[*f as usize] = *t;
    }
    Ok(Value::Bytes(Rc::new(table)))
}

/// Bytes from a str and encoding, an iterable of ints, or a count of zero bytes.
#[native("bytes(source=None, encoding=None, errors=None)", c_ctor)]
fn bytes_new(
    vm: &dyn Vm,
    source: Given<&Value>,
    encoding: Option<&Value>,
    errors: Option<&Value>,
) -> PyResult<Value> {
    let Given(source) = source;
    let given = source.is_some();
    let source = source.unwrap_or(&Value::None);
    // An int (str…) subclass's instance stands for its value: `bytes(member)`.
    let src = source.as_builtin();
    if let Value::Str(s) = src {
        return match encoding.map(Value::as_builtin) {
            Some(Value::Str(enc)) => encode_str(s, enc, errors),
            _ => Err(type_error("string argument without an encoding")),
        };
    }
    if encoding.is_some() {
        return Err(type_error("encoding without a string argument"));
    }
    Ok(Value::Bytes(Rc::new(match src {
        Value::None if !given => Vec::new(),
        Value::Bytes(b) => b.to_vec(),
        Value::Int(n) => {
            let n = usize::try_from(*n).map_err(|_| value_error("negative count"))?;
            let mut v = super::alloc_vec(n)?;
            v.resize(n, 0);
            v
        }
        Value::Long(_) => {
            return Err(PyErr::new(
                ExcType::OverflowError,
                "cannot fit 'int' into an index-sized integer",
            ))
        }
        Value::None | Value::Float(_) => {
            return Err(type_error(format!(
                "cannot convert '{}' object to bytes",
                source.type_name()
            )))
        }
        other => vm
            .collect(other)?
            .iter()
            .map(|v| match v.as_builtin() {
                Value::Int(i) if (0..256).contains(i) => Ok(*i as u8),
                Value::Int(_) | Value::Long(_) => {
                    Err(value_error("bytes must be in range(0, 256)"))
                }
                _ => Err(not_an_integer(v)),
            })
            .collect::<PyResult<_>>()?,
    })))
}

/// The bytes as a str: `b'hi'.decode() == 'hi'`.
#[native("bytes.decode(self, encoding='utf-8', errors='strict')", c)]
fn decode(this: &Rc<Vec<u8>>, encoding: Option<&Value>, errors: Option<&Value>) -> PyResult<Value> {
    decode_bytes(this, encoding, errors)
}

/// The bytes as hex digits: `b'\x01\xff'.hex() == '01ff'`.
#[native("bytes.hex(self, sep=None, bytes_per_sep=1)", c)]
fn hex(vm: &dyn Vm, this: &Rc<Vec<u8>>, sep: &Value, bytes_per_sep: &Value) -> PyResult<Value> {
    let digits: Vec<String> = this.iter().map(|x| format!("{x:02x}")).collect();
    let sep = match sep.as_builtin() {
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
    let per = super::int_arg(bytes_per_sep, vm)?;
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

/// Concatenates bytes with `self` between them.
#[native("bytes.join(self, iterable, /)", c)]
fn join(vm: &dyn Vm, this: &Rc<Vec<u8>>, iterable: &Value) -> PyResult<Value> {
    let sep = this;
    let mut out = Vec::new();
    for (i, it) in vm.collect(iterable)?.iter().enumerate() {
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

/// The bytes that hex digits write: `bytes.fromhex('01ff') == b'\x01\xff'`.
#[native("bytes.fromhex(cls, string, /)", c)]
fn fromhex(vm: &dyn Vm, cls: &Value, string: &Value) -> PyResult<Value> {
    let Value::Str(s) = string.as_builtin() else {
        return Err(type_error(format!(
            "fromhex() argument must be str, not {}",
            string.type_name()
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
    super::of_class(vm, cls, Value::Bytes(Rc::new(out)))
}

/// The lines, split at \n, \r and \r\n.
#[native("bytes.splitlines(self, /, keepends=False)", c)]
fn splitlines(vm: &dyn Vm, this: &Rc<Vec<u8>>, keepends: &Value) -> PyResult<Value> {
    let b = this;
    let keep = super::int_arg(keepends, vm)? != 0;
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
