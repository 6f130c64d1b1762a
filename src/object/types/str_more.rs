//! `str` methods for searching (`find`, `count`, `replace`, `startswith`,
//! `partition` …), padding (`center`, `zfill`, `expandtabs` …) and
//! `format`/`format_map` (whose engine is `str_format`); the `is…`
//! predicates are in `str_pred`.

use std::rc::Rc;

use super::str::{byte_at, char_len, char_of_byte, str_arg};
use super::{alloc_vec, type_error, value_error};
use crate::object::{native, Member};
use crate::value::Vm;
use crate::value::{ExcType, PyErr, PyResult, Value};

/// The methods in this file.
pub static MEMBERS: &[Member] = &[
    Member::Method(find::DEF),
    Member::Method(rfind::DEF),
    Member::Method(index::DEF),
    Member::Method(rindex::DEF),
    Member::Method(count::DEF),
    Member::Method(startswith::DEF),
    Member::Method(endswith::DEF),
    Member::Method(replace::DEF),
    Member::Method(translate::DEF),
    Member::Method(isprintable::DEF),
    // `str.maketrans` is a static method: the same function from the class or an instance.
    Member::StaticMethod(maketrans::DEF),
    Member::Method(partition::DEF),
    Member::Method(rpartition::DEF),
    Member::Method(removeprefix::DEF),
    Member::Method(removesuffix::DEF),
    Member::Method(zfill::DEF),
    Member::Method(center::DEF),
    Member::Method(ljust::DEF),
    Member::Method(rjust::DEF),
    Member::Method(expandtabs::DEF),
    Member::Method(format::DEF),
    Member::Method(format_map::DEF),
];

/// Resolves optional `start`/`end` character bounds to byte offsets, or None
/// when the range is empty past the end (CPython's ADJUST_INDICES + checks).
fn bounds(s: &str, start: &Value, end: &Value) -> PyResult<Option<(usize, usize)>> {
    let len = char_len(s) as i64;
    let idx = |v: &Value, default: i64| -> PyResult<i64> {
        Ok(super::slice::slice_index(v)?.unwrap_or(default))
    };
    let fix = |x: i64| if x < 0 { (x + len).max(0) } else { x };
    let (st, en) = (fix(idx(start, 0)?), fix(idx(end, len)?).min(len));
    if st > len || en < st {
        return Ok(None);
    }
    Ok(Some((byte_at(s, st as usize), byte_at(s, en as usize))))
}

fn search(s: &str, sub: &Value, start: &Value, end: &Value, rev: bool) -> PyResult<Option<usize>> {
    let sub = str_arg(sub, "")?;
    let Some((b0, b1)) = bounds(s, start, end)? else {
        return Ok(None);
    };
    let hay = &s[b0..b1];
    let found = if rev { hay.rfind(sub) } else { hay.find(sub) };
    Ok(found.map(|b| char_of_byte(s, b0 + b)))
}

fn idx_value(r: Option<usize>) -> Value {
    Value::Int(r.map_or(-1, |i| i as i64))
}

/// Lowest index of `sub`, or -1.
#[native("str.find(self, sub, start=None, end=None, /)", c)]
fn find(this: &str, sub: &Value, start: &Value, end: &Value) -> PyResult<Value> {
    search(this, sub, start, end, false).map(idx_value)
}

/// Highest index of `sub`, or -1.
#[native("str.rfind(self, sub, start=None, end=None, /)", c)]
fn rfind(this: &str, sub: &Value, start: &Value, end: &Value) -> PyResult<Value> {
    search(this, sub, start, end, true).map(idx_value)
}

/// Like `find`, raising ValueError when absent.
#[native("str.index(self, sub, start=None, end=None, /)", c)]
fn index(this: &str, sub: &Value, start: &Value, end: &Value) -> PyResult<usize> {
    search(this, sub, start, end, false)?.ok_or_else(|| value_error("substring not found"))
}

/// Like `rfind`, raising ValueError when absent.
#[native("str.rindex(self, sub, start=None, end=None, /)", c)]
fn rindex(this: &str, sub: &Value, start: &Value, end: &Value) -> PyResult<usize> {
    search(this, sub, start, end, true)?.ok_or_else(|| value_error("substring not found"))
}

/// Non-overlapping occurrences of `sub`.
#[native("str.count(self, sub, start=None, end=None, /)", c)]
fn count(this: &str, sub: &Value, start: &Value, end: &Value) -> PyResult<Value> {
    let s = this;
    let sub = str_arg(sub, "")?;
    let Some((b0, b1)) = bounds(s, start, end)? else {
        return Ok(Value::Int(0));
    };
    let hay = &s[b0..b1];
    let n = if sub.is_empty() {
        char_len(hay) + 1
    } else {
        hay.matches(sub).count()
    };
    Ok(Value::Int(n as i64))
}

fn affix(s: &str, affix: &Value, bounds_: [&Value; 2], name: &str, at_end: bool) -> PyResult<bool> {
    let cands: Vec<&str> = match affix.as_builtin() {
        Value::Str(p) => vec![p],
        Value::Tuple(t) => t
            .iter()
            .map(|v| match v.as_builtin() {
                Value::Str(p) => Ok(p.as_str()),
                _ => Err(type_error(format!(
                    "tuple for {name} must only contain str, not {}",
                    v.type_name()
                ))),
            })
            .collect::<PyResult<_>>()?,
        other => {
            return Err(type_error(format!(
                "{name} first arg must be str or a tuple of str, not {}",
                other.type_name()
            )))
        }
    };
    let Some((b0, b1)) = bounds(s, bounds_[0], bounds_[1])? else {
        return Ok(false);
    };
    let hay = &s[b0..b1];
    Ok(cands.iter().any(|p| {
        if at_end {
            hay.ends_with(p)
        } else {
            hay.starts_with(p)
        }
    }))
}

/// Whether the string starts with `prefix` (a str or a tuple of str).
#[native("str.startswith(self, prefix, start=None, end=None, /)", c)]
fn startswith(this: &str, prefix: &Value, start: &Value, end: &Value) -> PyResult<bool> {
    affix(this, prefix, [start, end], "startswith", false)
}

/// Whether the string ends with `suffix` (a str or a tuple of str).
#[native("str.endswith(self, suffix, start=None, end=None, /)", c)]
fn endswith(this: &str, suffix: &Value, start: &Value, end: &Value) -> PyResult<bool> {
    affix(this, suffix, [start, end], "endswith", true)
}

/// Replaces occurrences of `old` by `new`: `'aa'.replace('a', 'b') == 'bb'`.
#[native("str.replace(self, old, new, count=-1, /)", c)]
fn replace(vm: &dyn Vm, this: &str, old: &Value, new: &Value, count: &Value) -> PyResult<Value> {
    let s = this;
    let old = str_arg(old, "replace() argument 1 ")?;
    let new = str_arg(new, "replace() argument 2 ")?;
    let n = super::int_arg(count, vm)?;
    let n = if n < 0 { usize::MAX } else { n as usize };
    let hits = if old.is_empty() {
        char_len(s) + 1
    } else {
        s.matches(old).count()
    }
    .min(n);
    let size = s.len().saturating_add(hits.saturating_mul(new.len()));
    let _: Vec<u8> = alloc_vec(size)?;
    if old.is_empty() {
        let mut out = String::with_capacity(size);
        let mut done = 0;
        for ch in s.chars() {
            if done < hits {
                out.push_str(new);
                done += 1;
            }
            out.push(ch);
        }
        if done < hits {
            out.push_str(new);
        }
        return Ok(Value::str(out));
    }
    Ok(Value::str(s.replacen(old, new, n)))
}

fn part(s: &str, sep: &Value, rev: bool) -> PyResult<Value> {
    let sep = str_arg(sep, "")?;
    if sep.is_empty() {
        return Err(value_error("empty separator"));
    }
    let found = if rev { s.rfind(sep) } else { s.find(sep) };
    let parts = match found {
        Some(i) => [&s[..i], sep, &s[i + sep.len()..]],
        None if rev => ["", "", s],
        None => [s, "", ""],
    };
    Ok(Value::tuple(parts.iter().map(|p| Value::str(*p)).collect()))
}

/// `(head, sep, tail)` split at the first `sep`.
#[native("str.partition(self, sep, /)", c)]
fn partition(this: &str, sep: &Value) -> PyResult<Value> {
    part(this, sep, false)
}

/// `(head, sep, tail)` split at the last `sep`.
#[native("str.rpartition(self, sep, /)", c)]
fn rpartition(this: &str, sep: &Value) -> PyResult<Value> {
    part(this, sep, true)
}

/// The string without `prefix` if it starts with it.
#[native("str.removeprefix(self, prefix, /)", c)]
fn removeprefix(this: &str, prefix: &Value) -> PyResult<Value> {
    let p = str_arg(prefix, "removeprefix() argument ")?;
    Ok(Value::str(this.strip_prefix(p).unwrap_or(this)))
}

/// The string without `suffix` if it ends with it.
#[native("str.removesuffix(self, suffix, /)", c)]
fn removesuffix(this: &str, suffix: &Value) -> PyResult<Value> {
    let p = str_arg(suffix, "removesuffix() argument ")?;
    Ok(Value::str(this.strip_suffix(p).unwrap_or(this)))
}

fn width_arg(vm: &dyn Vm, v: &Value) -> PyResult<usize> {
    let w = super::int_arg(v, vm)?.max(0) as usize;
    super::check_alloc(w, 4)?;
    Ok(w)
}

/// Pads with zeros after the sign: `'-5'.zfill(4) == '-005'`.
#[native("str.zfill(self, width, /)", c)]
fn zfill(vm: &dyn Vm, this: &Rc<String>, width: &Value) -> PyResult<Value> {
    let s = this;
    let w = width_arg(vm, width)?;
    let n = char_len(s);
    if n >= w {
        return Ok(Value::Str(s.clone()));
    }
    let (sign, rest) = match s.chars().next() {
        Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
        _ => (String::new(), s.as_str()),
    };
    Ok(Value::str(format!("{sign}{}{rest}", "0".repeat(w - n))))
}

fn justify(
    vm: &dyn Vm,
    s: &Rc<String>,
    width: &Value,
    fillchar: &Value,
    align: char,
) -> PyResult<Value> {
    let w = width_arg(vm, width)?;
    let fill = match fillchar.as_builtin() {
        Value::Str(f) if f.chars().count() == 1 => f.chars().next().unwrap_or(' '),
        Value::Str(_) => {
            return Err(type_error(
                "The fill character must be exactly one character long",
            ))
        }
        other => {
            return Err(type_error(format!(
                "The fill character must be a unicode character, not {}",
                other.type_name()
            )))
        }
    };
    let n = char_len(s);
    if n >= w {
        return Ok(Value::Str(s.clone()));
    }
    let total = w - n;
    // CPython's center puts the odd extra space on the left when the width is odd.
    let left = match align {
        '<' => 0,
        '>' => total,
        _ => total / 2 + (total & w & 1),
    };
    let mut out = String::with_capacity(s.len() + total);
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, total - left));
    Ok(Value::str(out))
}

/// Centred in `width` characters.
#[native("str.center(self, width, fillchar=' ', /)", c)]
fn center(vm: &dyn Vm, this: &Rc<String>, width: &Value, fillchar: &Value) -> PyResult<Value> {
    justify(vm, this, width, fillchar, '^')
}

/// Left-justified in `width` characters.
#[native("str.ljust(self, width, fillchar=' ', /)", c)]
fn ljust(vm: &dyn Vm, this: &Rc<String>, width: &Value, fillchar: &Value) -> PyResult<Value> {
    justify(vm, this, width, fillchar, '<')
}

/// Right-justified in `width` characters.
#[native("str.rjust(self, width, fillchar=' ', /)", c)]
fn rjust(vm: &dyn Vm, this: &Rc<String>, width: &Value, fillchar: &Value) -> PyResult<Value> {
    justify(vm, this, width, fillchar, '>')
}

/// Tabs replaced by spaces up to the next tab stop.
#[native("str.expandtabs(self, tabsize=8)", c)]
fn expandtabs(vm: &dyn Vm, this: &str, tabsize: &Value) -> PyResult<String> {
    let s = this;
    let size = super::c_int_arg(tabsize, vm)? as i64;
    let mut out = String::with_capacity(s.len());
    let mut col = 0usize;
    for c in s.chars() {
        match c {
            '\t' => {
                if size > 0 {
                    let n = size as usize - col % size as usize;
                    super::check_alloc(out.len().saturating_add(n), 1)?;
                    out.extend(std::iter::repeat_n(' ', n));
                    col += n;
                }
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    Ok(out)
}

/// Replaces `{}` fields: `'{} is {x:.2f}'.format('pi', x=3.14159) == 'pi is 3.14'`.
#[native("str.format(self, /, *args, **kwargs)", c)]
fn format(vm: &dyn Vm, this: &str, args: &[Value], kwargs: &Value) -> PyResult<String> {
    super::str_format::format(vm, this, args, kwargs)
}

/// Like `format(**mapping)`.
#[native("str.format_map(self, mapping, /)", c)]
fn format_map(vm: &dyn Vm, this: &str, mapping: &Value) -> PyResult<String> {
    super::str_format::format(vm, this, &[], mapping)
}

/// `IndexError` for a missing positional field (`str.format`).
#[cold]
pub fn missing_index(i: usize) -> PyErr {
    PyErr::new(
        ExcType::IndexError,
        format!("Replacement index {i} out of range for positional args tuple"),
    )
}

/// Each character mapped through `table[ord(c)]`: a str replaces it, an int is a code point, None deletes it; characters the table lacks stay.
#[native("str.translate(self, table, /)", c)]
fn translate(vm: &dyn Vm, this: &str, table: &Value) -> PyResult<String> {
    let s = this;
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match vm.getitem(table, &Value::Int(ch as i64)) {
            Ok(Value::None) => {}
            Ok(Value::Str(t)) => out.push_str(&t),
            Ok(Value::Int(i)) => match u32::try_from(i).ok().and_then(char::from_u32) {
                Some(c) => out.push(c),
                None => return Err(value_error("character mapping must be in range(0x110000)")),
            },
            Ok(_) => {
                return Err(type_error(
                    "character mapping must return integer, None or str",
                ))
            }
            Err(e)
                if e.is(ExcType::LookupError)
                    || e.is(ExcType::KeyError)
                    || e.is(ExcType::IndexError) =>
            {
                out.push(ch)
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// True if every character is printable (space counts; other whitespace and control characters do not).
#[native("str.isprintable(self, /)", c)]
fn isprintable(this: &str) -> bool {
    this.chars().all(crate::value::format::is_printable)
}

/// A translation table for `str.translate`: from a dict, or from two equal-length strings (and a third of characters to delete).
#[native("str.maketrans(x, y=None, z=None, /)", c)]
fn maketrans(x: &Value, y: &Value, z: &Value) -> PyResult<Value> {
    let mut d = crate::value::Dict::new();
    match (x, y) {
        (Value::Dict(m), Value::None) => {
            if !z.is_none() {
                return Err(type_error(
                    "if you give only one argument to maketrans it must be a dict",
                ));
            }
            for (k, v) in m.borrow().items() {
                let key = match &k {
                    Value::Int(_) => k.clone(),
                    Value::Str(s) if s.chars().count() == 1 => {
                        Value::Int(s.chars().next().map_or(0, |c| c as i64))
                    }
                    Value::Str(_) => {
                        return Err(value_error(
                            "string keys in translate table must be of length 1",
                        ))
                    }
                    _ => {
                        return Err(type_error(
                            "keys in translate table must be strings or integers",
                        ))
                    }
                };
                d.insert(key, v)?;
            }
        }
        (_, Value::None) => {
            return Err(type_error(
                "if you give only one argument to maketrans it must be a dict",
            ))
        }
        (x, y) => {
            let x = str_arg(x, "maketrans() argument 1 ")?;
            let y = str_arg(y, "maketrans() argument 2 ")?;
            if x.chars().count() != y.chars().count() {
                return Err(value_error(
                    "the first two maketrans arguments must have equal length",
                ));
            }
            for (cx, cy) in x.chars().zip(y.chars()) {
                d.insert(Value::Int(cx as i64), Value::Int(cy as i64))?;
            }
            if let Value::Str(z) = z {
                for cz in z.chars() {
                    d.insert(Value::Int(cz as i64), Value::None)?;
                }
            }
        }
    }
    Ok(Value::dict(d))
}
