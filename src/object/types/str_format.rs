//! The engine of `str.format` / `str.format_map`: replacement fields with
//! automatic or manual numbering, keyword names, `.attr` and `[index]`
//! accessors, `!r`/`!s`/`!a` conversions and nested fields inside format
//! specs, with CPython's error messages.

use super::str_more::missing_index;
use super::value_error;
use crate::value::format::ascii_escape;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Automatic vs manual field numbering (they cannot be mixed).
#[derive(PartialEq)]
enum Numbering {
    Unset,
    Auto(usize),
    Manual,
}

struct Ctx<'a> {
    vm: &'a dyn Vm,
    args: &'a [Value],
    kwargs: &'a Value,
    numbering: Numbering,
}

/// `fmt.format(*args, **kwargs)`; `kwargs` is a dict (or any mapping, for
/// `format_map`), or None.
pub fn format(vm: &dyn Vm, fmt: &str, args: &[Value], kwargs: &Value) -> PyResult<String> {
    let mut ctx = Ctx {
        vm,
        args,
        kwargs,
        numbering: Numbering::Unset,
    };
    render(&mut ctx, fmt, 2)
}

fn render(ctx: &mut Ctx, fmt: &str, depth: u32) -> PyResult<String> {
    if depth == 0 {
        return Err(value_error("Max string recursion exceeded"));
    }
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::with_capacity(fmt.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(value_error("Single '}' encountered in format string"));
        }
        if c != '{' {
            out.push(c);
            i += 1;
            continue;
        }
        if chars.get(i + 1) == Some(&'{') {
            out.push('{');
            i += 2;
            continue;
        }
        if i + 1 >= chars.len() {
            return Err(value_error("Single '{' encountered in format string"));
        }
        // Find the matching '}' (format specs may nest one level of fields;
        // brackets in the field name are taken literally).
        let start = i + 1;
        let mut j = start;
        let mut nest = 1;
        let mut in_bracket = false;
        while j < chars.len() {
            match chars[j] {
                '[' if nest == 1 => in_bracket = true,
                ']' if nest == 1 => in_bracket = false,
                '{' if !in_bracket => nest += 1,
                '}' if !in_bracket => {
                    nest -= 1;
                    if nest == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        if j >= chars.len() {
            return Err(value_error(if in_bracket || nest == 1 {
                "expected '}' before end of string"
            } else {
                "unmatched '{' in format spec"
            }));
        }
        let field: String = chars[start..j].iter().collect();
        out.push_str(&field_text(ctx, &field, depth)?);
        i = j + 1;
    }
    Ok(out)
}

fn field_text(ctx: &mut Ctx, field: &str, depth: u32) -> PyResult<String> {
    // Split `name!conv:spec`, skipping brackets in the name.
    let mut name_end = field.len();
    let mut in_bracket = false;
    for (k, c) in field.char_indices() {
        match c {
            '[' => in_bracket = true,
            ']' => in_bracket = false,
            '!' | ':' if !in_bracket => {
                name_end = k;
                break;
            }
            _ => {}
        }
    }
    let name = &field[..name_end];
    let mut rest = &field[name_end..];
    let mut conv = None;
    if let Some(r) = rest.strip_prefix('!') {
        let mut cs = r.chars();
        let Some(c) = cs.next() else {
            return Err(value_error(
                "end of string while looking for conversion specifier",
            ));
        };
        conv = Some(c);
        rest = cs.as_str();
        if !rest.is_empty() && !rest.starts_with(':') {
            return Err(value_error("expected ':' after conversion specifier"));
        }
    }
    let spec = rest.strip_prefix(':').unwrap_or("");
    let value = resolve(ctx, name)?;
    let value = match conv {
        None => value,
        Some('r') => Value::str(ctx.vm.repr(&value)?),
        Some('s') => Value::str(ctx.vm.str(&value)?),
        Some('a') => Value::str(ascii_escape(&ctx.vm.repr(&value)?)),
        Some(c) => return Err(value_error(format!("Unknown conversion specifier {c}"))),
    };
    let spec = if spec.contains('{') {
        render(ctx, spec, depth - 1)?
    } else {
        spec.to_string()
    };
    ctx.vm.format(&value, &spec)
}

fn resolve(ctx: &mut Ctx, name: &str) -> PyResult<Value> {
    let first_end = name.find(['.', '[']).unwrap_or(name.len());
    let first = &name[..first_end];
    let mut value = if first.is_empty() {
        let n =
            match ctx.numbering {
                Numbering::Manual => return Err(value_error(
                    "cannot switch from manual field specification to automatic field numbering",
                )),
                Numbering::Unset => 0,
                Numbering::Auto(n) => n,
            };
        ctx.numbering = Numbering::Auto(n + 1);
        ctx.args.get(n).cloned().ok_or_else(|| missing_index(n))?
    } else if first.bytes().all(|b| b.is_ascii_digit()) {
        if matches!(ctx.numbering, Numbering::Auto(_)) {
            return Err(value_error(
                "cannot switch from automatic field numbering to manual field specification",
            ));
        }
        ctx.numbering = Numbering::Manual;
        let n: usize = first
            .parse()
            .map_err(|_| value_error("Too many decimal digits in format string"))?;
        ctx.args.get(n).cloned().ok_or_else(|| missing_index(n))?
    } else {
        let key = Value::str(first);
        match ctx.kwargs {
            Value::None => return Err(PyErr::with_args(ExcType::KeyError, vec![key])),
            m => ctx.vm.getitem(m, &key)?,
        }
    };
    let mut rest = &name[first_end..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let attr = &r[..end];
            if attr.is_empty() {
                return Err(value_error("Empty attribute in format string"));
            }
            value = ctx.vm.getattr(&value, attr)?;
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else {
                return Err(value_error("Missing ']' in format string"));
            };
            let key = &r[..end];
            if key.is_empty() {
                return Err(value_error("Empty attribute in format string"));
            }
            let key = match key.parse::<i64>() {
                Ok(i) if key.bytes().all(|b| b.is_ascii_digit()) => Value::Int(i),
                _ => Value::str(key),
            };
            value = ctx.vm.getitem(&value, &key)?;
            rest = &r[end + 1..];
            if !rest.is_empty() && !rest.starts_with(['.', '[']) {
                return Err(value_error(
                    "Only '.' or '[' may follow ']' in format field specifier",
                ));
            }
        } else {
            return Err(value_error(
                "Only '.' or '[' may follow ']' in format field specifier",
            ));
        }
    }
    Ok(value)
}
