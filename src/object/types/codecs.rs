//! The codecs behind `str.encode`, `bytes.decode`, `str(b, enc)` and
//! `bytes(s, enc)`: utf-8, ascii and latin-1, CPython's error handlers
//! (`strict`, `ignore`, `replace`, `backslashreplace`, `xmlcharrefreplace`;
//! `surrogateescape` and the like are a LookupError naming them), and its
//! `UnicodeEncodeError` / `UnicodeDecodeError` messages.

use std::rc::Rc;

use super::type_error;
use crate::value::{ExcType, PyErr, PyResult, Value};

/// An encoding we implement, by its normalised name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Codec {
    Utf8,
    Ascii,
    Latin1,
}

impl Codec {
    fn lookup(name: &str) -> PyResult<Codec> {
        match name
            .to_ascii_lowercase()
            .replace(['-', '_', ' '], "")
            .as_str()
        {
            "utf8" | "u8" | "utf" | "cp65001" => Ok(Codec::Utf8),
            "ascii" | "usascii" | "646" => Ok(Codec::Ascii),
            "latin1" | "latin" | "iso88591" | "l1" | "cp819" | "8859" => Ok(Codec::Latin1),
            _ => Err(PyErr::new(
                ExcType::LookupError,
                format!("unknown encoding: {name}"),
            )),
        }
    }

    /// The name CPython's messages use.
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
        }
    }
}

/// An error handler, from the `errors=` argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Handler {
    Strict,
    Ignore,
    Replace,
    BackslashReplace,
    XmlCharRefReplace,
}

fn handler(errors: Option<&Value>, what: &str) -> PyResult<(Handler, String)> {
    let name = match errors.map(Value::as_builtin) {
        None => return Ok((Handler::Strict, "strict".into())),
        Some(Value::Str(s)) => s.to_string(),
        Some(other) => {
            return Err(type_error(format!(
                "{what}() argument 'errors' must be str, not {}",
                other.type_name()
            )))
        }
    };
    let h = match name.as_str() {
        "strict" => Handler::Strict,
        "ignore" => Handler::Ignore,
        "replace" => Handler::Replace,
        "backslashreplace" => Handler::BackslashReplace,
        "xmlcharrefreplace" => Handler::XmlCharRefReplace,
        // Checked only when an error happens, as CPython does.
        _ => Handler::Strict,
    };
    Ok((h, name))
}

/// CPython's `LookupError` for a handler it does not know (or we do not
/// implement: `surrogateescape`, `namereplace` …).
fn unknown_handler(name: &str) -> PyErr {
    PyErr::new(
        ExcType::LookupError,
        format!("unknown error handler name '{name}'"),
    )
}

/// A character as CPython's codec messages quote it: `'\xe9'`, `'\u20ac'`.
fn quoted_char(c: char) -> String {
    match c as u32 {
        n if n < 0x100 => format!("'\\x{n:02x}'"),
        n if n < 0x10000 => format!("'\\u{n:04x}'"),
        n => format!("'\\U{n:08x}'"),
    }
}

fn backslash_char(c: char, out: &mut String) {
    match c as u32 {
        n if n < 0x100 => out.push_str(&format!("\\x{n:02x}")),
        n if n < 0x10000 => out.push_str(&format!("\\u{n:04x}")),
        n => out.push_str(&format!("\\U{n:08x}")),
    }
}

/// `s.encode(encoding, errors)`.
pub fn encode_str(s: &str, encoding: &str, errors: Option<&Value>) -> PyResult<Value> {
    let codec = Codec::lookup(encoding)?;
    if codec == Codec::Utf8 {
        // Rust strings hold no lone surrogates: every str encodes.
        return Ok(Value::Bytes(Rc::new(s.as_bytes().to_vec())));
    }
    let limit: u32 = if codec == Codec::Ascii { 0x80 } else { 0x100 };
    let (h, h_name) = handler(errors, "encode")?;
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if (c as u32) < limit {
            out.push(c as u32 as u8);
            i += 1;
            continue;
        }
        // The run of characters the codec cannot write (CPython reports runs).
        let end = (i..chars.len())
            .find(|&j| (chars[j] as u32) < limit)
            .unwrap_or(chars.len());
        let fallback = match h {
            Handler::Strict if h_name != "strict" => return Err(unknown_handler(&h_name)),
            Handler::Strict => {
                let what = if end - i == 1 {
                    format!("character {} in position {i}", quoted_char(c))
                } else {
                    format!("characters in position {i}-{}", end - 1)
                };
                return Err(PyErr::new(
                    ExcType::UnicodeEncodeError,
                    format!(
                        "'{}' codec can't encode {what}: ordinal not in range({limit})",
                        codec.name()
                    ),
                ));
            }
            Handler::Ignore => String::new(),
            Handler::Replace => "?".repeat(end - i),
            Handler::BackslashReplace => {
                let mut t = String::new();
                chars[i..end]
                    .iter()
                    .for_each(|c| backslash_char(*c, &mut t));
                t
            }
            Handler::XmlCharRefReplace => chars[i..end]
                .iter()
                .map(|c| format!("&#{};", *c as u32))
                .collect(),
        };
        out.extend(fallback.bytes());
        i = end;
    }
    Ok(Value::Bytes(Rc::new(out)))
}

/// `b.decode(encoding, errors)`.
pub fn decode_bytes(b: &[u8], encoding: Option<&Value>, errors: Option<&Value>) -> PyResult<Value> {
    let enc = match encoding.map(Value::as_builtin) {
        None => "utf-8".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(other) => {
            return Err(type_error(format!(
                "decode() argument 'encoding' must be str, not {}",
                other.type_name()
            )))
        }
    };
    let codec = Codec::lookup(&enc)?;
    let (h, h_name) = handler(errors, "decode")?;
    let mut out = String::with_capacity(b.len());
    let mut pos = 0;
    while pos < b.len() {
        // The next bad stretch: start, length, reason.
        let (start, len, reason) = match codec {
            Codec::Latin1 => {
                out.extend(b[pos..].iter().map(|c| *c as char));
                break;
            }
            Codec::Ascii => match b[pos..].iter().position(|c| *c >= 0x80) {
                None => {
                    out.extend(b[pos..].iter().map(|c| *c as char));
                    break;
                }
                Some(k) => {
                    out.extend(b[pos..pos + k].iter().map(|c| *c as char));
                    (pos + k, 1, "ordinal not in range(128)")
                }
            },
            Codec::Utf8 => match std::str::from_utf8(&b[pos..]) {
                Ok(s) => {
                    out.push_str(s);
                    break;
                }
                Err(e) => {
                    let good = e.valid_up_to();
                    out.push_str(std::str::from_utf8(&b[pos..pos + good]).unwrap_or_default());
                    let start = pos + good;
                    match e.error_len() {
                        None => (start, b.len() - start, "unexpected end of data"),
                        // A byte that can start a sequence: what follows it is wrong.
                        Some(n) if (0xc2..=0xf4).contains(&b[start]) => {
                            (start, n, "invalid continuation byte")
                        }
                        Some(n) => (start, n, "invalid start byte"),
                    }
                }
            },
        };
        match h {
            Handler::Strict if h_name != "strict" => return Err(unknown_handler(&h_name)),
            Handler::Strict => {
                let what = if len == 1 {
                    format!("byte 0x{:02x} in position {start}", b[start])
                } else {
                    format!("bytes in position {start}-{}", start + len - 1)
                };
                return Err(PyErr::new(
                    ExcType::UnicodeDecodeError,
                    format!("'{}' codec can't decode {what}: {reason}", codec.name()),
                ));
            }
            Handler::Ignore => {}
            Handler::Replace => out.push('\u{fffd}'),
            Handler::BackslashReplace => b[start..start + len]
                .iter()
                .for_each(|c| out.push_str(&format!("\\x{c:02x}"))),
            // CPython: "don't know how to handle UnicodeDecodeError in error callback".
            Handler::XmlCharRefReplace => {
                return Err(type_error(
                    "don't know how to handle UnicodeDecodeError in error callback",
                ))
            }
        }
        pos = start + len;
    }
    Ok(Value::str(out))
}
