//! `str`: the constructor, joining and splitting, stripping, case changes and
//! `encode`. Searching, padding, predicates and `format` are in `str_more`.
//! Indices are in characters (code points), as Python's are.

use std::rc::Rc;

#[path = "str_case.rs"]
pub(super) mod case;

use super::{alloc_vec, type_error, value_error};
use crate::object::{native, Given, Member};
use crate::value::{ExcType, PyResult, Value, Vm};

/// A str argument (a str subclass's value: a `StrEnum` member) or
/// `TypeError: must be str, not int`.
pub fn str_arg<'a>(v: &'a Value, what: &str) -> PyResult<&'a str> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s),
        _ => Err(type_error(format!(
            "{what}must be str, not {}",
            v.type_name()
        ))),
    }
}

/// Python's `str.isspace` for one character.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Byte offset of character index `ci` (the end for `ci >= len`).
pub fn byte_at(s: &str, ci: usize) -> usize {
    if s.is_ascii() {
        return ci.min(s.len());
    }
    s.char_indices().nth(ci).map(|(b, _)| b).unwrap_or(s.len())
}

/// Character index of byte offset `b`.
pub fn char_of_byte(s: &str, b: usize) -> usize {
    if s.is_ascii() {
        b
    } else {
        s[..b].chars().count()
    }
}

/// Number of characters.
pub fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// The methods in this file (the rest of `str`'s are in `str_more`).
pub static MEMBERS: &[Member] = &[
    Member::New(str_new::DEF),
    Member::Method(join::DEF),
    Member::Method(split::DEF),
    Member::Method(rsplit::DEF),
    Member::Method(splitlines::DEF),
    Member::Method(strip::DEF),
    Member::Method(lstrip::DEF),
    Member::Method(rstrip::DEF),
    Member::Method(upper::DEF),
    Member::Method(lower::DEF),
    Member::Method(casefold::DEF),
    Member::Method(swapcase::DEF),
    Member::Method(title::DEF),
    Member::Method(capitalize::DEF),
    Member::Method(encode::DEF),
];

/// The string form of an object: `str(1.5) == '1.5'`; `str(b'hi', 'utf-8') == 'hi'`.
#[native("str(object='', encoding=None, errors=None)", c_ctor)]
fn str_new(
    vm: &dyn Vm,
    object: Given<&Value>,
    encoding: Given<Option<&Value>>,
    errors: Given<Option<&Value>>,
) -> PyResult<Value> {
    if encoding.0.is_none() && errors.0.is_none() {
        return match object.0 {
            Some(s @ Value::Str(_)) => Ok(s.clone()),
            Some(other) => Ok(Value::str(vm.str(other)?)),
            None => Ok(Value::str("")),
        };
    }
    let (encoding, errors) = (encoding.0.flatten(), errors.0.flatten());
    for (v, what) in [(encoding, "encoding"), (errors, "errors")] {
        if let Some(v) = v.filter(|v| !matches!(v, Value::Str(_))) {
            return Err(type_error(format!(
                "str() argument '{what}' must be str, not {}",
                v.type_name()
            )));
        }
    }
    match object.0 {
        // str(encoding=...) with no object is the empty string.
        None => Ok(Value::str("")),
        Some(Value::Str(_)) => Err(type_error("decoding str is not supported")),
        Some(Value::Bytes(b)) => super::bytes::decode_bytes(b, encoding, errors),
        Some(other) => Err(type_error(format!(
            "decoding to str: need a bytes-like object, {} found",
            other.type_name()
        ))),
    }
}

/// Concatenates strings with `self` between them: `','.join(['a', 'b']) == 'a,b'`.
#[native("str.join(self, iterable, /)", c)]
fn join(vm: &dyn Vm, this: &str, iterable: &Value) -> PyResult<Value> {
    let sep = this;
    // CPython's PySequence_Fast: a TypeError from iter() becomes its own.
    let it = vm.iter(iterable).map_err(|e| {
        if e.is(ExcType::TypeError) {
            type_error("can only join an iterable")
        } else {
            e
        }
    })?;
    let items = vm.collect(&it)?;
    let mut total = 0usize;
    for (i, it) in items.iter().enumerate() {
        match it.as_builtin() {
            Value::Str(s) => total = total.saturating_add(s.len()).saturating_add(sep.len()),
            other => {
                return Err(type_error(format!(
                    "sequence item {i}: expected str instance, {} found",
                    other.type_name()
                )))
            }
        }
    }
    let mut out: Vec<u8> = alloc_vec(total)?;
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(sep.as_bytes());
        }
        if let Value::Str(s) = it.as_builtin() {
            out.extend_from_slice(s.as_bytes());
        }
    }
    Ok(Value::str(String::from_utf8(out).unwrap_or_default()))
}

fn sep_arg(v: &Value) -> PyResult<Option<&str>> {
    match v.as_builtin() {
        Value::None => Ok(None),
        Value::Str(s) if s.is_empty() => Err(value_error("empty separator")),
        Value::Str(s) => Ok(Some(s)),
        _ => Err(type_error(format!(
            "must be str or None, not {}",
            v.type_name()
        ))),
    }
}

fn strs(parts: Vec<&str>) -> Value {
    Value::list(parts.into_iter().map(Value::str).collect())
}

/// Splits at `sep` (runs of whitespace when None): `'a,b'.split(',') == ['a', 'b']`.
#[native("str.split(self, sep=None, maxsplit=-1)", c)]
fn split(vm: &dyn Vm, this: &str, sep: &Value, maxsplit: &Value) -> PyResult<Value> {
    let s = this;
    let max = super::int_arg(maxsplit, vm)?;
    let max = if max < 0 { usize::MAX } else { max as usize };
    Ok(match sep_arg(sep)? {
        Some(sep) => strs(s.splitn(max.saturating_add(1), sep).collect()),
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_start_matches(is_space);
            while !rest.is_empty() {
                if out.len() == max {
                    out.push(rest);
                    break;
                }
                let end = rest.find(is_space).unwrap_or(rest.len());
                out.push(&rest[..end]);
                rest = rest[end..].trim_start_matches(is_space);
            }
            strs(out)
        }
    })
}

/// Like `split`, counting `maxsplit` from the right: `'a.b.c'.rsplit('.', 1) == ['a.b', 'c']`.
#[native("str.rsplit(self, sep=None, maxsplit=-1)", c)]
fn rsplit(vm: &dyn Vm, this: &str, sep: &Value, maxsplit: &Value) -> PyResult<Value> {
    let s = this;
    let max = super::int_arg(maxsplit, vm)?;
    let max = if max < 0 { usize::MAX } else { max as usize };
    let mut out: Vec<&str> = match sep_arg(sep)? {
        Some(sep) => s.rsplitn(max.saturating_add(1), sep).collect(),
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_end_matches(is_space);
            while !rest.is_empty() {
                if out.len() == max {
                    out.push(rest);
                    break;
                }
                let start = rest
                    .rfind(is_space)
                    .map(|i| i + rest[i..].chars().next().map_or(1, char::len_utf8));
                let start = start.unwrap_or(0);
                out.push(&rest[start..]);
                rest = rest[..start].trim_end_matches(is_space);
            }
            out
        }
    };
    out.reverse();
    Ok(strs(out))
}

/// Python's line boundaries for `splitlines`.
fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\x0b'
            | '\x0c'
            | '\x1c'
            | '\x1d'
            | '\x1e'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// The lines of the string: `'a\nb'.splitlines() == ['a', 'b']`.
#[native("str.splitlines(self, keepends=False)", c)]
fn splitlines(vm: &dyn Vm, this: &str, keepends: &Value) -> PyResult<Value> {
    let s = this;
    // keepends is an int (a bool is one), not any truthy object.
    let keep = super::int_arg(keepends, vm)? != 0;
    let mut out = Vec::new();
    let mut start = 0;
    let mut iter = s.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if is_line_break(c) {
            let mut end = i + c.len_utf8();
            if c == '\r' && iter.peek().is_some_and(|(_, n)| *n == '\n') {
                iter.next();
                end += 1;
            }
            out.push(Value::str(&s[start..if keep { end } else { i }]));
            start = end;
        }
    }
    if start < s.len() {
        out.push(Value::str(&s[start..]));
    }
    Ok(Value::list(out))
}

fn strip_with(
    s: &Rc<String>,
    chars: &Value,
    name: &str,
    left: bool,
    right: bool,
) -> PyResult<Value> {
    let chars: Option<Vec<char>> = match chars.as_builtin() {
        Value::None => None,
        Value::Str(c) => Some(c.chars().collect()),
        _ => return Err(type_error(format!("{name} arg must be None or str"))),
    };
    let pred = |c: char| match &chars {
        Some(set) => set.contains(&c),
        None => is_space(c),
    };
    let mut t: &str = s;
    if left {
        t = t.trim_start_matches(pred);
    }
    if right {
        t = t.trim_end_matches(pred);
    }
    Ok(if t.len() == s.len() {
        Value::Str(s.clone())
    } else {
        Value::str(t)
    })
}

/// Removes leading and trailing whitespace (or `chars`).
#[native("str.strip(self, chars=None, /)", c)]
fn strip(this: &Rc<String>, chars: &Value) -> PyResult<Value> {
    strip_with(this, chars, "strip", true, true)
}

/// Removes leading whitespace (or `chars`).
#[native("str.lstrip(self, chars=None, /)", c)]
fn lstrip(this: &Rc<String>, chars: &Value) -> PyResult<Value> {
    strip_with(this, chars, "lstrip", true, false)
}

/// Removes trailing whitespace (or `chars`).
#[native("str.rstrip(self, chars=None, /)", c)]
fn rstrip(this: &Rc<String>, chars: &Value) -> PyResult<Value> {
    strip_with(this, chars, "rstrip", false, true)
}

/// Upper case: `'ab'.upper() == 'AB'`.
#[native("str.upper(self)", c)]
fn upper(this: &str) -> String {
    this.to_uppercase()
}

/// Lower case: `'AB'.lower() == 'ab'`.
#[native("str.lower(self)", c)]
fn lower(this: &str) -> String {
    this.to_lowercase()
}

/// Lower case for caseless matching (`'ß'` becomes `'ss'`).
#[native("str.casefold(self)", c)]
fn casefold(this: &str) -> String {
    let mut out = String::with_capacity(this.len());
    this.chars().for_each(|c| case::push_casefold(c, &mut out));
    out
}

/// For each character of `s`, whether it is a capital sigma that lowercases
/// to the final form `'ς'` (empty when `s` has none). The rule looks at the
/// whole string; `str::to_lowercase` implements it, and sigma's two forms
/// have the same UTF-8 length, so each one's place in the lowercased string
/// is the sum of the lowercase lengths before it.
fn final_sigmas(s: &str) -> Vec<bool> {
    if !s.contains('\u{3a3}') {
        return Vec::new();
    }
    let full = s.to_lowercase();
    let mut at = 0;
    s.chars()
        .map(|c| {
            let fin = c == '\u{3a3}' && full[at..].starts_with('\u{3c2}');
            at += c.to_lowercase().map(char::len_utf8).sum::<usize>();
            fin
        })
        .collect()
}

/// Appends the lowercase of the `i`th character `c`, final sigma included.
fn push_lower(c: char, i: usize, finals: &[bool], out: &mut String) {
    if finals.get(i).copied().unwrap_or(false) {
        out.push('\u{3c2}');
    } else {
        out.extend(c.to_lowercase());
    }
}

/// Swaps upper and lower case.
#[native("str.swapcase(self)", c)]
fn swapcase(this: &str) -> String {
    let s = this;
    let finals = final_sigmas(s);
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() {
            push_lower(c, i, &finals, &mut out);
        } else if c.is_lowercase() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Title case: `'hello world'.title() == 'Hello World'`.
#[native("str.title(self)", c)]
fn title(this: &str) -> String {
    let s = this;
    let finals = final_sigmas(s);
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for (i, c) in s.chars().enumerate() {
        if prev_cased {
            push_lower(c, i, &finals, &mut out);
        } else {
            case::push_title(c, &mut out);
        }
        prev_cased = case::is_cased(c);
    }
    out
}

/// First character upper, the rest lower.
#[native("str.capitalize(self)", c)]
fn capitalize(this: &str) -> String {
    let s = this;
    let finals = final_sigmas(s);
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        if i == 0 {
            case::push_title(c, &mut out);
        } else {
            push_lower(c, i, &finals, &mut out);
        }
    }
    out
}

/// The string as bytes: `'é'.encode() == b'\xc3\xa9'`.
#[native("str.encode(self, encoding='utf-8', errors='strict')", c)]
fn encode(this: &str, encoding: &str, errors: Option<&Value>) -> PyResult<Value> {
    super::bytes::encode_str(this, encoding, errors)
}
