//! `str`: the constructor, joining and splitting, stripping, case changes and
//! `encode`. Searching, padding, predicates and `format` are in `str_more`.
//! Indices are in characters (code points), as Python's are.

use std::rc::Rc;

#[path = "str_case.rs"]
pub(super) mod case;

use super::{add_method, add_new, alloc_vec, descriptor_error, type_error, value_error};
use crate::value::{Args, Class, ExcType, PyResult, Value, Vm};

/// The receiver of a str method, or the descriptor TypeError.
pub fn this<'a>(a: &'a Args, name: &str) -> PyResult<&'a Rc<String>> {
    match a.get(0) {
        Value::Str(s) => Ok(s),
        other => Err(descriptor_error(name, "str", other)),
    }
}

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

/// Registers the methods in this file on `str`.
pub fn register(c: &Class) {
    add_new(
        c,
        "str(object='', encoding=None, errors=None)",
        str_new,
        "The string form of an object: `str(1.5) == '1.5'`; `str(b'hi', 'utf-8') == 'hi'`.",
    );
    add_method(
        c,
        "str.join(self, iterable, /)",
        join,
        "Concatenates strings with `self` between them: `','.join(['a', 'b']) == 'a,b'`.",
    );
    add_method(
        c,
        "str.split(self, sep=None, maxsplit=-1)",
        split,
        "Splits at `sep` (runs of whitespace when None): `'a,b'.split(',') == ['a', 'b']`.",
    );
    add_method(
        c,
        "str.rsplit(self, sep=None, maxsplit=-1)",
        rsplit,
        "Like `split`, counting `maxsplit` from the right: `'a.b.c'.rsplit('.', 1) == ['a.b', 'c']`.",
    );
    add_method(
        c,
        "str.splitlines(self, keepends=False)",
        splitlines,
        "The lines of the string: `'a\\nb'.splitlines() == ['a', 'b']`.",
    );
    add_method(
        c,
        "str.strip(self, chars=None, /)",
        strip,
        "Removes leading and trailing whitespace (or `chars`).",
    );
    add_method(
        c,
        "str.lstrip(self, chars=None, /)",
        lstrip,
        "Removes leading whitespace (or `chars`).",
    );
    add_method(
        c,
        "str.rstrip(self, chars=None, /)",
        rstrip,
        "Removes trailing whitespace (or `chars`).",
    );
    add_method(
        c,
        "str.upper(self)",
        upper,
        "Upper case: `'ab'.upper() == 'AB'`.",
    );
    add_method(
        c,
        "str.lower(self)",
        lower,
        "Lower case: `'AB'.lower() == 'ab'`.",
    );
    add_method(
        c,
        "str.casefold(self)",
        casefold,
        "Lower case for caseless matching (`'ß'` becomes `'ss'`).",
    );
    add_method(
        c,
        "str.swapcase(self)",
        swapcase,
        "Swaps upper and lower case.",
    );
    add_method(
        c,
        "str.title(self)",
        title,
        "Title case: `'hello world'.title() == 'Hello World'`.",
    );
    add_method(
        c,
        "str.capitalize(self)",
        capitalize,
        "First character upper, the rest lower.",
    );
    add_method(
        c,
        "str.encode(self, encoding='utf-8', errors='strict')",
        encode,
        "The string as bytes: `'é'.encode() == b'\\xc3\\xa9'`.",
    );
}

fn str_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let obj = a.get(0);
    if a.was_given(1) || a.was_given(2) {
        for (i, what) in [(1, "encoding"), (2, "errors")] {
            if let Some(v) = a.opt(i).filter(|v| !matches!(v, Value::Str(_))) {
                return Err(type_error(format!(
                    "str() argument '{what}' must be str, not {}",
                    v.type_name()
                )));
            }
        }
        return match obj {
            // str(encoding=...) with no object is the empty string.
            _ if !a.was_given(0) => Ok(Value::str("")),
            Value::Str(_) => Err(type_error("decoding str is not supported")),
            Value::Bytes(b) => super::bytes::decode_bytes(b, a.opt(1), a.opt(2)),
            other => Err(type_error(format!(
                "decoding to str: need a bytes-like object, {} found",
                other.type_name()
            ))),
        };
    }
    match obj {
        Value::Str(_) => Ok(obj.clone()),
        other => Ok(Value::str(vm.str(other)?)),
    }
}

fn join(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let sep = this(a, "join")?;
    // CPython's PySequence_Fast: a TypeError from iter() becomes its own.
    let it = vm.iter(a.get(1)).map_err(|e| {
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

fn split(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "split")?;
    let max = super::int_arg(a.get(2), vm)?;
    let max = if max < 0 { usize::MAX } else { max as usize };
    Ok(match sep_arg(a.get(1))? {
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

fn rsplit(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "rsplit")?;
    let max = super::int_arg(a.get(2), vm)?;
    let max = if max < 0 { usize::MAX } else { max as usize };
    let mut out: Vec<&str> = match sep_arg(a.get(1))? {
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

fn splitlines(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "splitlines")?;
    // keepends is an int (a bool is one), not any truthy object.
    let keep = super::int_arg(a.get(1), vm)? != 0;
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

fn strip_with(a: &Args, name: &str, left: bool, right: bool) -> PyResult<Value> {
    let s = this(a, name)?;
    let chars: Option<Vec<char>> = match a.get(1).as_builtin() {
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
        a.get(0).clone()
    } else {
        Value::str(t)
    })
}

fn strip(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    strip_with(a, "strip", true, true)
}

fn lstrip(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    strip_with(a, "lstrip", true, false)
}

fn rstrip(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    strip_with(a, "rstrip", false, true)
}

fn upper(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(this(a, "upper")?.to_uppercase()))
}

fn lower(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::str(this(a, "lower")?.to_lowercase()))
}

fn casefold(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "casefold")?;
    let mut out = String::with_capacity(s.len());
    s.chars().for_each(|c| case::push_casefold(c, &mut out));
    Ok(Value::str(out))
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

fn swapcase(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "swapcase")?;
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
    Ok(Value::str(out))
}

fn title(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "title")?;
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
    Ok(Value::str(out))
}

fn capitalize(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "capitalize")?;
    let finals = final_sigmas(s);
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        if i == 0 {
            case::push_title(c, &mut out);
        } else {
            push_lower(c, i, &finals, &mut out);
        }
    }
    Ok(Value::str(out))
}

fn encode(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "encode")?;
    let enc = str_arg(a.get(1), "encode() argument 'encoding' ")?;
    super::bytes::encode_str(s, enc, a.opt(2))
}
