//! `json.dumps`: CPython's encoder layout, separators, indentation, key
//! coercion, `default=`, circular-reference detection and string escaping.

use crate::object::native;
use crate::object::types::long::{max_str_digits, to_decimal};
use crate::object::types::{type_error, value_error};
use crate::value::format::float_repr;
use crate::value::{PyResult, Value, Vm};

/// The options of `json.dumps`.
pub struct DumpOptions {
    /// Skip keys that are not str/int/float/bool/None instead of raising.
    pub skipkeys: bool,
    /// Escape every non-ASCII character as `\uXXXX`.
    pub ensure_ascii: bool,
    /// Allow `NaN`/`Infinity`.
    pub allow_nan: bool,
    /// The indent string per level (None: one line).
    pub indent: Option<String>,
    /// Between items.
    pub item_sep: String,
    /// Between a key and its value.
    pub key_sep: String,
    /// Called on objects JSON cannot represent (None: TypeError).
    pub default: Value,
    /// Sort dict keys.
    pub sort_keys: bool,
}

/// Serialises an object to a JSON string: `json.dumps({'a': [1, 2]}) == '{"a": [1, 2]}'`.
#[native(
    "dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None, indent=None, separators=None, default=None, sort_keys=False)"
)]
#[expect(clippy::too_many_arguments, reason = "json.dumps's parameters")]
pub(super) fn dumps(
    vm: &dyn Vm,
    obj: &Value,
    skipkeys: &Value,
    ensure_ascii: &Value,
    check_circular: &Value,
    allow_nan: &Value,
    cls: &Value,
    indent: &Value,
    separators: &Value,
    default: &Value,
    sort_keys: &Value,
) -> PyResult<Value> {
    if !matches!(cls, Value::None) {
        // `cls(skipkeys=..., ...).encode(obj)`, as CPython's dumps does.
        let kwargs = [
            ("skipkeys", skipkeys),
            ("ensure_ascii", ensure_ascii),
            ("check_circular", check_circular),
            ("allow_nan", allow_nan),
            ("indent", indent),
            ("separators", separators),
            ("default", default),
            ("sort_keys", sort_keys),
        ]
        .into_iter()
        .map(|(n, v)| (std::rc::Rc::from(n), v.clone()))
        .collect();
        let encoder = vm.call(cls, Vec::new(), kwargs)?;
        let encode = vm.getattr(&encoder, "encode")?;
        return vm.call(&encode, vec![obj.clone()], Vec::new());
    }
    let indent = match indent.as_builtin() {
        Value::None => None,
        Value::Str(s) => Some(s.to_string()),
        Value::Int(_) | Value::Bool(_) => {
            Some(" ".repeat(crate::object::types::int_arg(indent, vm)?.clamp(0, 1 << 16) as usize))
        }
        // CPython computes ' ' * indent.
        _ => {
            return Err(type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                indent.type_name()
            )))
        }
    };
    let (item_sep, key_sep) = match separators {
        Value::None => (
            if indent.is_some() { "," } else { ", " }.to_string(),
            ": ".to_string(),
        ),
        seps => {
            let parts = vm.collect(seps)?;
            match &parts[..] {
                [Value::Str(i), Value::Str(k)] => (i.to_string(), k.to_string()),
                [_, _] => {
                    return Err(type_error(
                        "separators must be a (item_separator, key_separator) pair of str",
                    ))
                }
                p if p.len() < 2 => {
                    return Err(crate::value::PyErr::new(
                        crate::value::ExcType::ValueError,
                        format!("not enough values to unpack (expected 2, got {})", p.len()),
                    ))
                }
                _ => {
                    return Err(crate::value::PyErr::new(
                        crate::value::ExcType::ValueError,
                        "too many values to unpack (expected 2)",
                    ))
                }
            }
        }
    };
    let opts = DumpOptions {
        skipkeys: vm.truthy(skipkeys)?,
        ensure_ascii: vm.truthy(ensure_ascii)?,
        allow_nan: vm.truthy(allow_nan)?,
        indent,
        item_sep,
        key_sep,
        default: default.clone(),
        sort_keys: vm.truthy(sort_keys)?,
    };
    dumps_value(vm, obj, &opts).map(Value::str)
}

/// Serialises `v` as `json.dumps(v, ...)` would.
pub fn dumps_value(vm: &dyn Vm, v: &Value, opts: &DumpOptions) -> PyResult<String> {
    let mut out = String::new();
    let mut stack = Vec::new();
    encode(vm, v, opts, 0, &mut stack, &mut out)?;
    Ok(out)
}

fn float_text(x: f64, opts: &DumpOptions) -> PyResult<String> {
    if x.is_finite() {
        return Ok(float_repr(x));
    }
    if !opts.allow_nan {
        return Err(value_error(
            "Out of range float values are not JSON compliant",
        ));
    }
    Ok(if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
    .into())
}

/// A JSON string literal.
pub fn quote(s: &str, ensure_ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ensure_ascii && (c as u32) > 0x7e) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn newline(opts: &DumpOptions, depth: usize, out: &mut String) {
    if let Some(ind) = &opts.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(ind);
        }
    }
}

fn encode(
    vm: &dyn Vm,
    v: &Value,
    opts: &DumpOptions,
    depth: usize,
    stack: &mut Vec<usize>,
    out: &mut String,
) -> PyResult<()> {
    match v {
        Value::None => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Long(n) => out.push_str(&to_decimal(n, max_str_digits(vm))?),
        Value::Float(x) => out.push_str(&float_text(*x, opts)?),
        Value::Str(s) => out.push_str(&quote(s, opts.ensure_ascii)),
        Value::List(_) | Value::Tuple(_) => {
            let items = match v {
                Value::List(l) => l.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                _ => Vec::new(),
            };
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            enter(v, stack)?;
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(&opts.item_sep);
                }
                newline(opts, depth + 1, out);
                encode(vm, item, opts, depth + 1, stack, out)?;
            }
            newline(opts, depth, out);
            out.push(']');
            stack.pop();
        }
        Value::Dict(d) => {
            let mut items = d.borrow().items();
            if items.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            enter(v, stack)?;
            if opts.sort_keys {
                let keys = items.iter().map(|(k, _)| k.clone()).collect();
                let sorted =
                    crate::object::types::list::sort_values(vm, keys, &Value::None, false)?;
                let d = d.borrow();
                items = sorted
                    .into_iter()
                    .filter_map(|k| d.get(&k).ok().flatten().map(|v| (k, v)))
                    .collect();
            }
            out.push('{');
            let mut first = true;
            for (k, val) in &items {
                // A str/int/float subclass's key is its value (an IntEnum
                // member's is the int's text).
                let key = match k.as_builtin() {
                    Value::Str(s) => s.to_string(),
                    Value::Int(i) => i.to_string(),
                    Value::Long(n) => to_decimal(n, max_str_digits(vm))?,
                    Value::Float(x) => float_text(*x, opts)?,
                    Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
                    Value::None => "null".to_string(),
                    _ if opts.skipkeys => continue,
                    _ => {
                        return Err(type_error(format!(
                            "keys must be str, int, float, bool or None, not {}",
                            k.type_name()
                        )))
                    }
                };
                if !first {
                    out.push_str(&opts.item_sep);
                }
                first = false;
                newline(opts, depth + 1, out);
                out.push_str(&quote(&key, opts.ensure_ascii));
                out.push_str(&opts.key_sep);
                encode(vm, val, opts, depth + 1, stack, out)?;
            }
            newline(opts, depth, out);
            out.push('}');
            stack.pop();
        }
        // A subclass of a builtin type encodes as its value (CPython's
        // encoder tests with isinstance).
        Value::Instance(inst) if inst.builtin_base().is_some() => {
            let base = inst.builtin_base().cloned().unwrap_or(Value::None);
            encode(vm, &base, opts, depth, stack, out)?;
        }
        other => {
            if opts.default.is_none() {
                return Err(type_error(format!(
                    "Object of type {} is not JSON serializable",
                    other.type_name()
                )));
            }
            enter(v, stack)?;
            let replaced = vm.call(&opts.default, vec![other.clone()], Vec::new())?;
            encode(vm, &replaced, opts, depth, stack, out)?;
            stack.pop();
        }
    }
    Ok(())
}

fn enter(v: &Value, stack: &mut Vec<usize>) -> PyResult<()> {
    let id = v.id();
    if stack.contains(&id) || stack.len() > 512 {
        return Err(value_error("Circular reference detected"));
    }
    stack.push(id);
    Ok(())
}
