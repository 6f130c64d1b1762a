//! The `bytes` methods that mean the same as the `str` ones (`split`,
//! `replace`, `find`, `upper`, `isdigit`, `center` …), run by the `str`
//! method on a stand-in string and converted back. Each byte stands for one
//! character, so positions and counts carry over: an ASCII byte for itself,
//! and every other byte (and the separators `\x1c`-`\x1f`, which `str`
//! counts as whitespace and `bytes` does not) for a private-use character
//! that has no case, is no letter, digit or space, so `bytes`' ASCII-only
//! rules hold. `splitlines` is the exception (`str` splits on more than
//! `\n` and `\r`) and lives in `bytes.rs`.

use std::rc::Rc;

use super::type_error;
use crate::value::{Args, PyResult, Value, Vm};

const PRIVATE: u32 = 0xe000;

fn stand_in(b: &[u8]) -> String {
    b.iter()
        .map(|&x| {
            if x < 0x80 && !(0x1c..=0x1f).contains(&x) {
                x as char
            } else {
                char::from_u32(PRIVATE + x as u32).unwrap_or('\u{e000}')
            }
        })
        .collect()
}

fn back(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| {
            let u = c as u32;
            if u < 0x80 {
                u as u8
            } else {
                u.wrapping_sub(PRIVATE) as u8
            }
        })
        .collect()
}

/// An argument for the str method: bytes become their stand-in; a str is
/// refused as CPython's bytes methods refuse it; anything else (ints,
/// None, tuples of bytes) passes.
fn arg_in(v: &Value) -> PyResult<Value> {
    Ok(match v {
        Value::Bytes(b) => Value::str(stand_in(b)),
        Value::Str(_) => return Err(type_error("a bytes-like object is required, not 'str'")),
        Value::Tuple(items) => Value::tuple(items.iter().map(arg_in).collect::<PyResult<_>>()?),
        other => other.clone(),
    })
}

/// A result of the str method as bytes: strings (also inside lists and
/// tuples) become bytes again; ints and bools stay.
fn result_out(v: Value) -> Value {
    match v {
        Value::Str(s) => Value::Bytes(Rc::new(back(&s))),
        Value::Tuple(items) => Value::tuple(items.iter().cloned().map(result_out).collect()),
        Value::List(items) => {
            let out: Vec<Value> = items.borrow().iter().cloned().map(result_out).collect();
            Value::list(out)
        }
        other => other,
    }
}

/// Runs str method `name` for a bytes receiver (`a`: self, `*args`, `**kwargs`).
fn delegate(vm: &dyn Vm, a: &Args, name: &str) -> PyResult<Value> {
    let Value::Bytes(me) = a.get(0) else {
        return Err(type_error(format!(
            "descriptor '{name}' for 'bytes' objects doesn't apply to a '{}' object",
            a.get(0).type_name()
        )));
    };
    let given = a.varargs(1);
    // CPython's bytes-specific argument errors, before handing over.
    match (name, given.first(), given.get(1)) {
        ("center" | "ljust" | "rjust", _, Some(fill)) => match fill {
            Value::Bytes(f) if f.len() == 1 => {}
            other => {
                return Err(type_error(format!(
                    "{name}() argument 2 must be a byte string of length 1, not {}",
                    other.type_name()
                )))
            }
        },
        ("startswith" | "endswith", Some(Value::Str(_) | Value::Int(_) | Value::None), _) => {
            return Err(type_error(format!(
                "{name} first arg must be bytes or a tuple of bytes, not {}",
                given[0].type_name()
            )))
        }
        _ => {}
    }
    let mut args = given.iter().map(arg_in).collect::<PyResult<Vec<_>>>()?;
    // The search methods also take a single byte as an int.
    if let (true, Some(Value::Int(i))) = (
        matches!(name, "find" | "rfind" | "index" | "rindex" | "count"),
        args.first(),
    ) {
        let byte =
            u8::try_from(*i).map_err(|_| super::value_error("byte must be in range(0, 256)"))?;
        args[0] = Value::str(stand_in(&[byte]));
    }
    let kwargs = match a.get(2) {
        Value::Dict(d) => d
            .borrow()
            .items()
            .into_iter()
            .map(|(k, v)| {
                let key: Rc<str> = match &k {
                    Value::Str(s) => Rc::from(s.as_str()),
                    _ => Rc::from(""),
                };
                Ok((key, arg_in(&v)?))
            })
            .collect::<PyResult<Vec<_>>>()?,
        _ => Vec::new(),
    };
    let method = vm.getattr(&Value::str(stand_in(me)), name)?;
    vm.call(&method, args, kwargs).map(result_out).map_err(|e| {
        if e.is(crate::value::ExcType::ValueError) && matches!(name, "index" | "rindex") {
            super::value_error("subsection not found")
        } else {
            e
        }
    })
}

macro_rules! delegated {
    ($($name:ident),* $(,)?) => {
        $(fn $name(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
            delegate(vm, a, stringify!($name))
        })*

        /// The delegated methods: (name, function).
        pub(super) const METHODS: &[(&str, crate::value::NativeFn)] = &[
            $((stringify!($name), $name),)*
        ];
    };
}

delegated! {
    split, rsplit, strip, lstrip, rstrip, replace, find, rfind, index, rindex, count,
    partition, rpartition, upper, lower, swapcase, title, capitalize, center, ljust, rjust,
    zfill, expandtabs, removeprefix, removesuffix, isalpha, isdigit, isalnum, isspace,
    islower, isupper, istitle, startswith, endswith,
}
