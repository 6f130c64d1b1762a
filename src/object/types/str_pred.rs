//! The `str.is…` predicates (`isdigit`, `isalpha`, `isupper`, `istitle` …).

use super::add_method;
use super::str::{is_space, this};
use crate::value::{Args, Class, NativeFn, PyResult, Value, Vm};

/// Registers the predicates on `str`.
pub fn register(c: &Class) {
    let preds: [(&str, NativeFn, &'static str); 11] = [
        (
            "str.isdigit(self)",
            isdigit,
            "True if all characters are digits (and there is one).",
        ),
        (
            "str.isdecimal(self)",
            isdecimal,
            "True if all characters are decimal digits.",
        ),
        (
            "str.isnumeric(self)",
            isnumeric,
            "True if all characters are numeric.",
        ),
        (
            "str.isalpha(self)",
            isalpha,
            "True if all characters are letters.",
        ),
        (
            "str.isalnum(self)",
            isalnum,
            "True if all characters are letters or digits.",
        ),
        (
            "str.isspace(self)",
            isspace,
            "True if all characters are whitespace.",
        ),
        (
            "str.isupper(self)",
            isupper,
            "True if all cased characters are upper case (and there is one).",
        ),
        (
            "str.islower(self)",
            islower,
            "True if all cased characters are lower case (and there is one).",
        ),
        (
            "str.isascii(self)",
            isascii,
            "True if all characters are ASCII.",
        ),
        (
            "str.isidentifier(self)",
            isidentifier,
            "True if the string is a valid identifier.",
        ),
        (
            "str.istitle(self)",
            istitle,
            "True if the string is title-cased.",
        ),
    ];
    for (sig, f, doc) in preds {
        add_method(c, sig, f, doc);
    }
}

fn all_chars(a: &Args, name: &str, f: impl Fn(char) -> bool) -> PyResult<Value> {
    let s = this(a, name)?;
    Ok(Value::Bool(!s.is_empty() && s.chars().all(f)))
}

fn is_decimal(c: char) -> bool {
    c.is_ascii_digit()
        || (c.to_digit(10).is_none()
            && c.is_numeric()
            && (c as u32) >= 0x660
            && !('\u{2150}'..='\u{218f}').contains(&c))
}

fn isdigit(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    all_chars(a, "isdigit", |c| {
        is_decimal(c) || matches!(c, '\u{b2}' | '\u{b3}' | '\u{b9}')
    })
}

fn isdecimal(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    all_chars(a, "isdecimal", is_decimal)
}

fn isnumeric(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    all_chars(a, "isnumeric", char::is_numeric)
}

fn isalpha(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    all_chars(a, "isalpha", char::is_alphabetic)
}

fn isalnum(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    all_chars(a, "isalnum", char::is_alphanumeric)
}

fn isspace(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    all_chars(a, "isspace", is_space)
}

fn isascii(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(this(a, "isascii")?.is_ascii()))
}

/// CPython's `isupper` (`upper`) / `islower`: no character of the other
/// case nor titlecase, and at least one of this case.
fn cased(a: &Args, name: &str, upper: bool) -> PyResult<Value> {
    let s = this(a, name)?;
    let mut any = false;
    for c in s.chars() {
        let (this_case, other) = if upper {
            (c.is_uppercase(), c.is_lowercase())
        } else {
            (c.is_lowercase(), c.is_uppercase())
        };
        if other || super::str::case::is_titlecase(c) {
            return Ok(Value::Bool(false));
        }
        any |= this_case;
    }
    Ok(Value::Bool(any))
}

fn isupper(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    cased(a, "isupper", true)
}

fn islower(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    cased(a, "islower", false)
}

fn isidentifier(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "isidentifier")?;
    let mut cs = s.chars();
    let ok = cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && cs.all(|c| c == '_' || c.is_alphanumeric());
    Ok(Value::Bool(ok))
}

fn istitle(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a, "istitle")?;
    let (mut prev_cased, mut any) = (false, false);
    for c in s.chars() {
        if c.is_uppercase() || super::str::case::is_titlecase(c) {
            if prev_cased {
                return Ok(Value::Bool(false));
            }
            prev_cased = true;
            any = true;
        } else if c.is_lowercase() {
            if !prev_cased {
                return Ok(Value::Bool(false));
            }
            prev_cased = true;
            any = true;
        } else {
            prev_cased = false;
        }
    }
    Ok(Value::Bool(any))
}
