//! `str` methods for searching (`find`, `count`, `replace`, `startswith`,
//! `partition` …), padding (`center`, `zfill`, `expandtabs` …) and
//! `format`/`format_map` (whose engine is `str_format`); the `is…`
//! predicates are in `str_pred`.

use super::str::{byte_at, char_len, char_of_byte, str_arg, this};
use super::{add_method, alloc_vec, type_error, value_error};
use crate::value::{Args, Class, ExcType, NativeFn, PyErr, PyResult, Value, Vm};

/// Registers the methods in this file on `str`.
pub fn register(c: &Class) {
    let search: [(&str, NativeFn, &'static str); 7] = [
        (
            "str.find(self, sub, start=None, end=None, /)",
            find,
            "Lowest index of `sub`, or -1.",
        ),
        (
            "str.rfind(self, sub, start=None, end=None, /)",
            rfind,
            "Highest index of `sub`, or -1.",
        ),
        (
            "str.index(self, sub, start=None, end=None, /)",
            index,
            "Like `find`, raising ValueError when absent.",
        ),
        (
            "str.rindex(self, sub, start=None, end=None, /)",
            rindex,
            "Like `rfind`, raising ValueError when absent.",
        ),
        (
            "str.count(self, sub, start=None, end=None, /)",
            count,
            "Non-overlapping occurrences of `sub`.",
        ),
        (
            "str.startswith(self, prefix, start=None, end=None, /)",
            startswith,
            "Whether the string starts with `prefix` (a str or a tuple of str).",
        ),
        (
            "str.endswith(self, suffix, start=None, end=None, /)",
            endswith,
            "Whether the string ends with `suffix` (a str or a tuple of str).",
        ),
    ];
    for (sig, f, doc) in search {
        add_method(c, sig, f, doc);
    }
    add_method(
        c,
        "str.replace(self, old, new, count=-1, /)",
        replace,
        "Replaces occurrences of `old` by `new`: `'aa'.replace('a', 'b') == 'bb'`.",
    );
    add_method(
        c,
        "str.translate(self, table, /)",
        translate,
        "Each character mapped through `table[ord(c)]`: a str replaces it, an int is a code point, None deletes it; characters the table lacks stay.",
    );
    add_method(
        c,
        "str.isprintable(self, /)",
        isprintable,
        "True if every character is printable (space counts; other whitespace and control characters do not).",
    );
    // `str.maketrans` is a static method: the same function from the class or an instance.
    super::add_static_method(
        c,
        "str.maketrans(x, y=None, z=None, /)",
        maketrans,
        "A translation table for `str.translate`: from a dict, or from two equal-length strings (and a third of characters to delete).",
    );
    add_method(
        c,
        "str.partition(self, sep, /)",
        partition,
        "`(head, sep, tail)` split at the first `sep`.",
    );
    add_method(
        c,
        "str.rpartition(self, sep, /)",
        rpartition,
        "`(head, sep, tail)` split at the last `sep`.",
    );
    add_method(
        c,
        "str.removeprefix(self, prefix, /)",
        removeprefix,
        "The string without `prefix` if it starts with it.",
    );
    add_method(
        c,
        "str.removesuffix(self, suffix, /)",
        removesuffix,
        "The string without `suffix` if it ends with it.",
    );
    add_method(
        c,
        "str.zfill(self, width, /)",
        zfill,
        "Pads with zeros after the sign: `'-5'.zfill(4) == '-005'`.",
    );
    add_method(
        c,
        "str.center(self, width, fillchar=' ', /)",
        center,
        "Centred in `width` characters.",
    );
    add_method(
        c,
        "str.ljust(self, width, fillchar=' ', /)",
        ljust,
        "Left-justified in `width` characters.",
    );
    add_method(
        c,
        "str.rjust(self, width, fillchar=' ', /)",
        rjust,
        "Right-justified in `width` characters.",
    );
    add_method(
        c,
        "str.expandtabs(self, tabsize=8)",
        expandtabs,
        "Tabs replaced by spaces up to the next tab stop.",
    );
    add_method(
        c,
        "str.format(self, /, *args, **kwargs)",
        format,
        "Replaces `{}` fields: `'{} is {x:.2f}'.format('pi', x=3.14159) == 'pi is 3.14'`.",
    );
    add_method(
        c,
        "str.format_map(self, mapping, /)",
        format_map,
        "Like `format(**mapping)`.",
    );
    super::str_pred::register(c);
}

/// Resolves optional `start`/`end` character bounds to byte offsets, or None
/// when the range is empty past the end (CPython's ADJUST_INDICES + checks).
fn bounds(s: &str, start: &Value, end: &Value) -> PyResult<Option<(usize, usize)>> {
    let len = char_len(s) as i64;
    let idx = |v: &Value, default: i64| -> PyResult<i64> {
        match v.as_builtin() {
            Value::None => Ok(default),
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            _ => Err(type_error(
                "slice indices must be integers or None or have an __index__ method",
            )),
        }
    };
    let fix = |x: i64| if x < 0 { (x + len).max(0) } else { x };
    let (st, en) = (fix(idx(start, 0)?), fix(idx(end, len)?).min(len));
    if st > len || en < st {
        return Ok(None);
    }
    Ok(Some((byte_at(s, st as usize), byte_at(s, en as usize))))
}

fn search(a: &Args, name: &str, rev: bool) -> PyResult<Option<usize>> {
    let s = this(a, name)?;
    let sub = str_arg(a.get(1), "")?;
    let Some((b0, b1)) = bounds(s, a.get(2), a.get(3))? else {
        return Ok(None);
    };
    let hay = &s[b0..b1];
    let found = if rev { hay.rfind(sub) } else { hay.find(sub) };
    Ok(found.map(|b| char_of_byte(s, b0 + b)))
}

fn idx_value(r: Option<usize>) -> Value {
    Value::Int(r.map_or(-1, |i| i as i64))
}

fn find(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    search(a, "find", false).map(idx_value)
}

fn rfind(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    search(a, "rfind", true).map(idx_value)
}

fn index(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    search(a, "index", false)?
        .map(|i| Value::Int(i as i64))
        .ok_or_else(|| value_error("substring not found"))
}

fn rindex(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    search(a, "rindex", true)?
        .map(|i| Value::Int(i as i64))
        .ok_or_else(|| value_error("substring not found"))
}

fn count(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "count")?;
    let sub = str_arg(a.get(1), "")?;
    let Some((b0, b1)) = bounds(s, a.get(2), a.get(3))? else {
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

fn affix(a: &Args, name: &str, at_end: bool) -> PyResult<Value> {
    let s = this(a, name)?;
    let cands: Vec<&str> = match a.get(1).as_builtin() {
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
    let Some((b0, b1)) = bounds(s, a.get(2), a.get(3))? else {
        return Ok(Value::Bool(false));
    };
    let hay = &s[b0..b1];
    Ok(Value::Bool(cands.iter().any(|p| {
        if at_end {
            hay.ends_with(p)
        } else {
            hay.starts_with(p)
        }
    })))
}

fn startswith(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    affix(a, "startswith", false)
}

fn endswith(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    affix(a, "endswith", true)
}

fn replace(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "replace")?;
    let old = str_arg(a.get(1), "replace() argument 1 ")?;
    let new = str_arg(a.get(2), "replace() argument 2 ")?;
    let n = super::int_arg(a.get(3), vm)?;
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

fn part(a: &Args, name: &str, rev: bool) -> PyResult<Value> {
    let s = this(a, name)?;
    let sep = str_arg(a.get(1), "")?;
    if sep.is_empty() {
        return Err(value_error("empty separator"));
    }
    let found = if rev { s.rfind(sep) } else { s.find(sep) };
    let parts = match found {
        Some(i) => [&s[..i], sep, &s[i + sep.len()..]],
        None if rev => ["", "", s.as_str()],
        None => [s.as_str(), "", ""],
    };
    Ok(Value::tuple(parts.iter().map(|p| Value::str(*p)).collect()))
}

fn partition(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    part(a, "partition", false)
}

fn rpartition(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    part(a, "rpartition", true)
}

fn removeprefix(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "removeprefix")?;
    let p = str_arg(a.get(1), "removeprefix() argument ")?;
    Ok(Value::str(s.strip_prefix(p).unwrap_or(s)))
}

fn removesuffix(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "removesuffix")?;
    let p = str_arg(a.get(1), "removesuffix() argument ")?;
    Ok(Value::str(s.strip_suffix(p).unwrap_or(s)))
}

fn width_arg(vm: &dyn Vm, v: &Value) -> PyResult<usize> {
    let w = super::int_arg(v, vm)?.max(0) as usize;
    super::check_alloc(w, 4)?;
    Ok(w)
}

fn zfill(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "zfill")?;
    let w = width_arg(vm, a.get(1))?;
    let n = char_len(s);
    if n >= w {
        return Ok(a.get(0).clone());
    }
    let (sign, rest) = match s.chars().next() {
        Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
        _ => (String::new(), s.as_str()),
    };
    Ok(Value::str(format!("{sign}{}{rest}", "0".repeat(w - n))))
}

fn justify(vm: &dyn Vm, a: &Args, name: &str, align: char) -> PyResult<Value> {
    let s = this(a, name)?;
    let w = width_arg(vm, a.get(1))?;
    let fill = match a.get(2).as_builtin() {
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
        return Ok(a.get(0).clone());
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

fn center(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    justify(vm, a, "center", '^')
}

fn ljust(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    justify(vm, a, "ljust", '<')
}

fn rjust(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    justify(vm, a, "rjust", '>')
}

fn expandtabs(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "expandtabs")?;
    let size = super::int_arg(a.get(1), vm)?;
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
    Ok(Value::str(out))
}

fn format(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "format")?;
    let kwargs = a.get(2).clone();
    super::str_format::format(vm, s, a.varargs(1), &kwargs).map(Value::str)
}

fn format_map(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "format_map")?;
    super::str_format::format(vm, s, &[], a.get(1)).map(Value::str)
}

/// `IndexError` for a missing positional field (`str.format`).
#[cold]
pub fn missing_index(i: usize) -> PyErr {
    PyErr::new(
        ExcType::IndexError,
        format!("Replacement index {i} out of range for positional args tuple"),
    )
}

fn translate(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "translate")?;
    let table = a.get(1);
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
    Ok(Value::str(out))
}

fn isprintable(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "isprintable")?;
    Ok(Value::Bool(
        s.chars().all(crate::value::format::is_printable),
    ))
}

fn maketrans(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let mut d = crate::value::Dict::new();
    match (a.get(0), a.get(1)) {
        (Value::Dict(m), Value::None) => {
            if !a.get(2).is_none() {
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
            if let Value::Str(z) = a.get(2) {
                for cz in z.chars() {
                    d.insert(Value::Int(cz as i64), Value::None)?;
                }
            }
        }
    }
    let _ = vm;
    Ok(Value::dict(d))
}
