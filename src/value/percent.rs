//! `str % args`: printf-style formatting as CPython's `PyUnicode_Format`
//! (`"%d items, %.2f, %s, %r, %5s, %-5d, %x, %%" % (...)`, `"%(name)s" % d`),
//! with CPython's messages for every misuse.

use std::rc::Rc;

use super::error::{ExcType, PyErr, PyResult};
use super::fmtfloat::float_body;
use super::fmtspec::pad;
use super::format::ascii_escape;
use super::native::Vm;
use super::round::float_to_int;
use super::value::Value;
use crate::object::types::{type_error, value_error};

/// The flags of one conversion.
#[derive(Default)]
struct Conv {
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// The arguments: a tuple's items, one value, or a mapping.
struct ArgList<'a> {
    items: Vec<Value>,
    next: usize,
    mapping: Option<&'a Value>,
}

impl ArgList<'_> {
    fn next(&mut self) -> PyResult<Value> {
        let v = self
            .items
            .get(self.next)
            .cloned()
            .ok_or_else(|| type_error("not enough arguments for format string"))?;
        self.next += 1;
        Ok(v)
    }

    /// A `*` width or precision (negative values are the caller's to read).
    fn star(&mut self) -> PyResult<i64> {
        match self.next()? {
            Value::Int(i) if i32::try_from(i).is_err() => Err(PyErr::new(
                ExcType::OverflowError,
                "Python int too large to convert to C int",
            )),
            Value::Int(i) => Ok(i.clamp(-(1 << 30), 1 << 30)),
            Value::Bool(b) => Ok(b as i64),
            Value::Long(_) => Err(PyErr::new(
                ExcType::OverflowError,
                "Python int too large to convert to C ssize_t",
            )),
            _ => Err(type_error("* wants int")),
        }
    }
}

/// `fmt % args` for a format string (`args` a tuple, a dict or one value).
pub fn percent_format(vm: &dyn Vm, fmt: &str, args: &Value) -> PyResult<String> {
    format_with(vm, fmt, args, false)
}

/// `fmt % args` for a bytes format (PEP 461): the same conversions, with
/// `%b`/`%s` taking bytes, `%r`/`%a` the ASCII repr, `%c` one byte, and
/// mapping keys as bytes. The format and the result are handled as Latin-1
/// text, one character per byte.
pub fn percent_format_bytes(vm: &dyn Vm, fmt: &[u8], args: &Value) -> PyResult<Vec<u8>> {
    let text: String = fmt.iter().map(|&b| b as char).collect();
    let out = format_with(vm, &text, args, true)?;
    Ok(out.chars().map(|c| c as u32 as u8).collect())
}

/// Whether `%` takes `args` as the mapping that `%(key)s` reads: as CPython,
/// anything subscriptable but a tuple or a str (a dict, a dict subclass such
/// as `defaultdict`, a class with `__getitem__`; also a list or bytes, which
/// then fail on the key).
fn is_mapping(args: &Value) -> bool {
    match args {
        Value::Dict(_) | Value::List(_) | Value::Bytes(_) => true,
        Value::Instance(i) => match i.builtin_base() {
            Some(Value::Tuple(_) | Value::Str(_)) => false,
            Some(base) => is_mapping(base),
            None => i.class.lookup("__getitem__").is_some(),
        },
        _ => false,
    }
}

fn format_with(vm: &dyn Vm, fmt: &str, args: &Value, bytes: bool) -> PyResult<String> {
    let mut list = match args.as_builtin() {
        // A tuple (a named tuple too) gives the values in order.
        Value::Tuple(t) => ArgList {
            items: t.to_vec(),
            next: 0,
            mapping: None,
        },
        _ if is_mapping(args) => ArgList {
            items: vec![args.clone()],
            next: 0,
            mapping: Some(args),
        },
        _ => ArgList {
            items: vec![args.clone()],
            next: 0,
            mapping: None,
        },
    };
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut i = 0;
    let mut used_key = false;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        // Only a bare `%%` is a percent sign; `%5%` is an error (3.11).
        if chars.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let mut keyed: Option<Value> = None;
        if chars.get(i) == Some(&'(') {
            let map = list
                .mapping
                .ok_or_else(|| type_error("format requires a mapping"))?;
            let mut depth = 1;
            let start = i + 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err(value_error("incomplete format key"));
            }
            let key: String = chars[start..i - 1].iter().collect();
            let key = if bytes {
                Value::Bytes(Rc::new(key.chars().map(|c| c as u32 as u8).collect()))
            } else {
                Value::str(key)
            };
            keyed = Some(vm.getitem(map, &key)?);
            used_key = true;
        }
        let mut c = Conv::default();
        while let Some(&f) = chars.get(i) {
            match f {
                '-' => c.left = true,
                '+' => c.plus = true,
                ' ' => c.space = true,
                '#' => c.alternate = true,
                '0' => c.zero = true,
                _ => break,
            }
            i += 1;
        }
        if chars.get(i) == Some(&'*') {
            // A negative `*` width left-justifies, as the `-` flag does.
            let w = list.star()?;
            c.left |= w < 0;
            c.width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            c.width = read_num(&chars, &mut i)?;
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            if chars.get(i) == Some(&'*') {
                // A negative `*` precision counts as 0.
                c.precision = Some(list.star()?.max(0) as usize);
                i += 1;
            } else {
                c.precision = Some(read_num(&chars, &mut i)?);
            }
        }
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&ty) = chars.get(i) else {
            return Err(value_error("incomplete format"));
        };
        i += 1;
        let known = "sradiuoxXeEfFgGc".contains(ty) || (bytes && ty == 'b');
        if !known {
            return Err(value_error(format!(
                "unsupported format character '{ty}' ({:#x}) at index {}",
                ty as u32,
                i - 1
            )));
        }
        let arg = match keyed {
            Some(v) => v,
            None => list.next()?,
        };
        out.push_str(&if bytes {
            convert_bytes(vm, ty, &arg, &c)?
        } else {
            convert(vm, ty, &arg, &c)?
        });
    }
    if list.next < list.items.len() && list.mapping.is_none() && !used_key {
        return Err(type_error(if bytes {
            "not all arguments converted during bytes formatting"
        } else {
            "not all arguments converted during string formatting"
        }));
    }
    Ok(out)
}

/// The sign and the magnitude's digits in `radix` of an int value (`Int`
/// or `Long`; decimal under the int↔str digit limit).
fn int_digits(vm: &dyn Vm, v: &Value, radix: u32) -> PyResult<(bool, String)> {
    Ok(match v {
        Value::Long(n) => {
            let neg = n.sign() == num_bigint::Sign::Minus;
            let s = if radix == 10 {
                let limit = crate::object::types::long::max_str_digits(vm);
                let s = crate::object::types::long::to_decimal(n, limit)?;
                s.trim_start_matches('-').to_string()
            } else {
                n.magnitude().to_str_radix(radix)
            };
            (neg, s)
        }
        Value::Int(i) => {
            let m = i.unsigned_abs();
            let s = match radix {
                8 => format!("{m:o}"),
                16 => format!("{m:x}"),
                _ => m.to_string(),
            };
            (*i < 0, s)
        }
        _ => (false, "0".to_string()),
    })
}

fn read_num(chars: &[char], i: &mut usize) -> PyResult<usize> {
    let mut n: usize = 0;
    while let Some(d) = chars.get(*i).and_then(|c| c.to_digit(10)) {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(d as usize))
            .filter(|n| *n <= isize::MAX as usize)
            .ok_or_else(|| value_error("width too big"))?;
        *i += 1;
    }
    // A width CPython reads but cannot pad to: its allocation fails.
    if n > 1 << 30 {
        return Err(PyErr::with_args(ExcType::MemoryError, Vec::new()));
    }
    Ok(n)
}

/// One conversion of a bytes format, as Latin-1 text.
fn convert_bytes(vm: &dyn Vm, ty: char, arg: &Value, c: &Conv) -> PyResult<String> {
    let latin1 = |b: &[u8]| -> String { b.iter().map(|&x| x as char).collect() };
    let text = match ty {
        's' | 'b' => match arg.as_builtin() {
            Value::Bytes(b) => latin1(b),
            other => match vm.getattr(other, "__bytes__") {
                Ok(f) => match vm.call(&f, Vec::new(), Vec::new())? {
                    Value::Bytes(b) => latin1(&b),
                    r => {
                        return Err(type_error(format!(
                            "__bytes__ returned non-bytes (type {})",
                            r.type_name()
                        )))
                    }
                },
                Err(_) => {
                    return Err(type_error(format!(
                        "%b requires a bytes-like object, or an object that implements __bytes__, not '{}'",
                        arg.type_name()
                    )))
                }
            },
        },
        'r' | 'a' => ascii_escape(&vm.repr(arg)?),
        'c' => match arg.as_builtin() {
            Value::Int(i) if (0..256).contains(i) => (*i as u8 as char).to_string(),
            Value::Bytes(b) if b.len() == 1 => latin1(b),
            Value::Int(_) => {
                return Err(PyErr::new(
                    ExcType::OverflowError,
                    "%c arg not in range(256)",
                ))
            }
            _ => {
                return Err(type_error(
                    "%c requires an integer in range(256) or a single byte",
                ))
            }
        },
        _ => return convert(vm, ty, arg, c),
    };
    let text: String = match c.precision {
        Some(p) => text.chars().take(p).collect(),
        None => text,
    };
    Ok(pad(&text, c.width, ' ', if c.left { '<' } else { '>' }))
}

fn convert(vm: &dyn Vm, ty: char, arg: &Value, c: &Conv) -> PyResult<String> {
    let text = match ty {
        's' | 'r' | 'a' => {
            let s = match ty {
                's' => vm.str(arg)?,
                'r' => vm.repr(arg)?,
                _ => ascii_escape(&vm.repr(arg)?),
            };
            let s: String = match c.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            };
            return Ok(pad(&s, c.width, ' ', if c.left { '<' } else { '>' }));
        }
        'c' => {
            let ch = match arg {
                Value::Int(i) => {
                    u32::try_from(*i)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| {
                            PyErr::new(ExcType::OverflowError, "%c arg not in range(0x110000)")
                        })?
                }
                Value::Bool(b) => char::from(*b as u8),
                Value::Str(s) if s.chars().count() == 1 => s.chars().next().unwrap_or(' '),
                _ => return Err(type_error("%c requires int or char")),
            };
            return Ok(pad(
                &ch.to_string(),
                c.width,
                ' ',
                if c.left { '<' } else { '>' },
            ));
        }
        'd' | 'i' | 'u' => {
            let i = match arg {
                Value::Int(_) | Value::Long(_) => arg.clone(),
                Value::Bool(b) => Value::Int(*b as i64),
                Value::Float(x) => float_to_int(x.trunc())?,
                // A number-like object (`__int__`/`__index__`, an int subclass).
                other => match other {
                    // objects with `__int__`/`__index__`, tensors and numpy scalars
                    Value::Instance(_) | Value::Native(_) | Value::Tensor(_) => {
                        crate::object::types::int::to_int(vm, arg).ok()
                    }
                    _ => None,
                }
                .ok_or_else(|| {
                    type_error(format!(
                        "%{ty} format: a real number is required, not {}",
                        other.type_name()
                    ))
                })?,
            };
            let (neg, digits) = int_digits(vm, &i, 10)?;
            let digits = zero_extend(digits, c.precision);
            number(neg, "", &digits, c)
        }
        'o' | 'x' | 'X' => {
            let i = match arg {
                Value::Bool(b) => Value::Int(*b as i64),
                other => crate::object::types::as_index_value(arg, vm)?.ok_or_else(|| {
                    type_error(format!(
                        "%{ty} format: an integer is required, not {}",
                        other.type_name()
                    ))
                })?,
            };
            let (neg, digits) = int_digits(vm, &i, if ty == 'o' { 8 } else { 16 })?;
            let (prefix, digits) = match ty {
                'o' => ("0o", digits),
                'x' => ("0x", digits),
                _ => ("0X", digits.to_ascii_uppercase()),
            };
            let prefix = if c.alternate { prefix } else { "" };
            number(neg, prefix, &zero_extend(digits, c.precision), c)
        }
        _ => {
            let x = match arg {
                Value::Float(x) => *x,
                Value::Int(i) => *i as f64,
                Value::Long(n) => crate::object::types::long::to_f64(n)?,
                Value::Bool(b) => *b as i64 as f64,
                other => match other {
                    // a tensor's own error (only 0-d tensors are numbers)
                    Value::Tensor(_) => Some(crate::object::types::float::to_float(vm, arg)?),
                    // objects with `__float__`, numpy scalars
                    Value::Instance(_) | Value::Native(_) => {
                        crate::object::types::float::to_float(vm, arg).ok()
                    }
                    _ => None,
                }
                .ok_or_else(|| {
                    type_error(format!("must be real number, not {}", other.type_name()))
                })?,
            };
            let body = float_body(
                x.abs(),
                Some(ty),
                Some(c.precision.unwrap_or(6)),
                c.alternate,
            );
            number(x.is_sign_negative() && !x.is_nan(), "", &body, c)
        }
    };
    Ok(text)
}

fn zero_extend(digits: String, precision: Option<usize>) -> String {
    match precision {
        Some(p) if p > digits.len() => format!("{}{}", "0".repeat(p - digits.len()), digits),
        _ => digits,
    }
}

/// Sign, prefix and padding of a converted number.
fn number(negative: bool, prefix: &str, body: &str, c: &Conv) -> String {
    let sign = if negative {
        "-"
    } else if c.plus {
        "+"
    } else if c.space {
        " "
    } else {
        ""
    };
    let len = sign.len() + prefix.len() + body.chars().count();
    if c.left {
        return pad(&format!("{sign}{prefix}{body}"), c.width, ' ', '<');
    }
    if c.zero && c.width > len {
        return format!("{sign}{prefix}{}{body}", "0".repeat(c.width - len));
    }
    pad(&format!("{sign}{prefix}{body}"), c.width, ' ', '>')
}
