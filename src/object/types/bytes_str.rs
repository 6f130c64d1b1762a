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
use crate::object::{native, Kwargs, Member};
use crate::value::{PyResult, Value, Vm};

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

/// Runs str method `name` for a bytes receiver `me`.
fn delegate(
    vm: &dyn Vm,
    me: &[u8],
    given: &[Value],
    kwargs: Kwargs,
    name: &str,
) -> PyResult<Value> {
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
    let kwargs = kwargs
        .0
        .into_iter()
        .map(|(k, v)| Ok((k, arg_in(&v)?)))
        .collect::<PyResult<Vec<_>>>()?;
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
    ($($name:ident $sig:literal,)*) => {
        $(
            /// As the str method of the same name, on bytes.
            #[native($sig, c)]
            fn $name(vm: &dyn Vm, this: &Rc<Vec<u8>>, args: &[Value], kwargs: Kwargs) -> PyResult<Value> {
                delegate(vm, this, args, kwargs, stringify!($name))
            }
        )*

        /// The delegated methods.
        pub(super) static MEMBERS: &[Member] = &[$(Member::Method($name::DEF)),*];
    };
}

// The str method's own signature checks the arguments.
delegated! {
    startswith "bytes.startswith(self, /, *args, **kwargs)",
    endswith "bytes.endswith(self, /, *args, **kwargs)",
    split "bytes.split(self, /, *args, **kwargs)",
    rsplit "bytes.rsplit(self, /, *args, **kwargs)",
    strip "bytes.strip(self, /, *args, **kwargs)",
    lstrip "bytes.lstrip(self, /, *args, **kwargs)",
    rstrip "bytes.rstrip(self, /, *args, **kwargs)",
    replace "bytes.replace(self, /, *args, **kwargs)",
    find "bytes.find(self, /, *args, **kwargs)",
    rfind "bytes.rfind(self, /, *args, **kwargs)",
    index "bytes.index(self, /, *args, **kwargs)",
    rindex "bytes.rindex(self, /, *args, **kwargs)",
    count "bytes.count(self, /, *args, **kwargs)",
    partition "bytes.partition(self, /, *args, **kwargs)",
    rpartition "bytes.rpartition(self, /, *args, **kwargs)",
    upper "bytes.upper(self, /, *args, **kwargs)",
    lower "bytes.lower(self, /, *args, **kwargs)",
    swapcase "bytes.swapcase(self, /, *args, **kwargs)",
    title "bytes.title(self, /, *args, **kwargs)",
    capitalize "bytes.capitalize(self, /, *args, **kwargs)",
    center "bytes.center(self, /, *args, **kwargs)",
    ljust "bytes.ljust(self, /, *args, **kwargs)",
    rjust "bytes.rjust(self, /, *args, **kwargs)",
    zfill "bytes.zfill(self, /, *args, **kwargs)",
    expandtabs "bytes.expandtabs(self, /, *args, **kwargs)",
    removeprefix "bytes.removeprefix(self, /, *args, **kwargs)",
    removesuffix "bytes.removesuffix(self, /, *args, **kwargs)",
    isalpha "bytes.isalpha(self, /, *args, **kwargs)",
    isdigit "bytes.isdigit(self, /, *args, **kwargs)",
    isalnum "bytes.isalnum(self, /, *args, **kwargs)",
    isspace "bytes.isspace(self, /, *args, **kwargs)",
    islower "bytes.islower(self, /, *args, **kwargs)",
    isupper "bytes.isupper(self, /, *args, **kwargs)",
    istitle "bytes.istitle(self, /, *args, **kwargs)",
}
