//! `tf.strings` basics: `length`, `upper`, `lower`, `strip`, `join`,
//! `reduce_join`, `substr`, `to_number`, `as_string`, `regex_replace`,
//! `regex_full_match` and `split` (of a scalar; `tf.strings.split` itself is
//! `stdlib/tensorflow_ragged.dist`, which splits a vector row by row into a
//! `tf.RaggedTensor` with this native). Element-wise over string
//! tensors on the host, with TensorFlow's kernel messages. None of them is
//! differentiable (strings), and none records a graph node: a traced
//! function that uses them runs its Python body on every call.

use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::convert::{dtype_arg, int_list, runtime_err, to_tensor};
use crate::object::types::type_error;
use crate::runtime::format::summarize::c_g;
use crate::runtime::{DType, Device, HostData, Scalar, Shape, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Registers `tf.strings` (and `tf.as_string`).
pub fn register(m: &mut ModuleBuilder) {
    m.add(as_string::DEF);
    m.namespace("strings", |s| {
        s.add(length::DEF)
            .add(upper::DEF)
            .add(lower::DEF)
            .add(strip::DEF)
            .add(join::DEF)
            .add(reduce_join::DEF)
            .add(substr::DEF)
            .add(to_number::DEF)
            .add(as_string::DEF)
            .add(regex_replace::DEF)
            .add(regex_full_match::DEF)
            .add(split::DEF)
            .add(super::string_format::format::DEF);
        super::string_hash::register(s);
    });
}

fn cpu() -> Device {
    Device::CPU0
}

/// TensorFlow's eager wrapper around a kernel's message.
fn kernel(ty: ExcType, node: &str, op: &str, msg: &str, name: &str) -> PyErr {
    PyErr::new(
        ty,
        format!(
            "{{{{function_node __wrapped__{node}_device_{}}}}} {msg} [Op:{op}]{name}",
            cpu().full_name()
        ),
    )
}

/// A string tensor argument of `op` (input `i`).
pub(super) fn string_arg(vm: &dyn Vm, v: &Value, op: &str, i: usize) -> PyResult<Tensor> {
    // a tensor keeps its dtype (the kernel's message names it); Python
    // values convert as strings
    let t = match v {
        Value::Tensor(t) => t.clone(),
        v => to_tensor(vm, v, Some(DType::String))?,
    };
    if t.dtype() != DType::String {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "cannot compute {op} as input #{i}(zero-based) was expected to be a string tensor but is a {} tensor [Op:{op}] name: ",
                t.dtype().name()
            ),
        ));
    }
    Ok(t)
}

fn strs(t: &Tensor) -> PyResult<Vec<Vec<u8>>> {
    match t.host().map_err(runtime_err)? {
        HostData::Str(v) => Ok(v.clone()),
        _ => Err(PyErr::new(ExcType::SystemError, "expected a string tensor")),
    }
}

fn str_tensor(v: Vec<Vec<u8>>, dims: &[usize]) -> PyResult<Tensor> {
    Tensor::from_host(HostData::Str(v), Shape::new(dims), cpu()).map_err(runtime_err)
}

fn map_strs(t: &Tensor, f: impl Fn(&[u8]) -> Vec<u8>) -> PyResult<Tensor> {
    let out = strs(t)?.iter().map(|s| f(s)).collect();
    str_tensor(out, t.dims())
}

fn unit_arg(unit: &str, op: &str) -> PyResult<bool> {
    match unit {
        "BYTE" => Ok(false),
        "UTF8_CHAR" => Ok(true),
        other => Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr 'unit' of \"{other}\" is not in the list of allowed values: \"BYTE\", \"UTF8_CHAR\"\n\t; NodeDef: {{{{node {op}}}}}; Op<name={op}; signature={}; attr=unit:string,default=\"BYTE\",allowed=[\"BYTE\", \"UTF8_CHAR\"]> [Op:{op}] name: ",
                if op == "StringLength" {
                    "input:string -> output:int32"
                } else {
                    "input:string, pos:T, len:T -> output:string; attr=T:type,allowed=[DT_INT32, DT_INT64]"
                }
            ),
        )),
    }
}

/// The number of UTF-8 characters (bytes that do not continue one).
fn utf8_len(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The length of each string, in bytes or (`unit='UTF8_CHAR'`) characters.
#[native("length(input, unit='BYTE', name=None)")]
fn length(vm: &dyn Vm, input: &Value, unit: &str, _name: &Value) -> PyResult<Tensor> {
    let t = string_arg(vm, input, "StringLength", 0)?;
    let chars = unit_arg(unit, "StringLength")?;
    let v: Vec<i32> = strs(&t)?
        .iter()
        .map(|s| if chars { utf8_len(s) } else { s.len() } as i32)
        .collect();
    Tensor::from_vec(v, t.dims()).map_err(runtime_err)
}

fn case_map(vm: &dyn Vm, input: &Value, encoding: &str, op: &str, up: bool) -> PyResult<Tensor> {
    let t = string_arg(vm, input, op, 0)?;
    match encoding {
        "" => map_strs(&t, |s| {
            if up {
                s.to_ascii_uppercase()
            } else {
                s.to_ascii_lowercase()
            }
        }),
        "utf-8" => map_strs(&t, |s| {
            let text = String::from_utf8_lossy(s);
            if up {
                text.to_uppercase().into_bytes()
            } else {
                text.to_lowercase().into_bytes()
            }
        }),
        other => Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "tf.strings.{}: encoding {other:?} is not supported in dist ('' or 'utf-8')",
                op.to_lowercase()
            ),
        )),
    }
}

/// Upper-cases each string (ASCII letters; all letters with
/// `encoding='utf-8'`).
#[native("upper(input, encoding='', name=None)")]
fn upper(vm: &dyn Vm, input: &Value, encoding: &str, _name: &Value) -> PyResult<Tensor> {
    case_map(vm, input, encoding, "StringUpper", true)
}

/// Lower-cases each string (ASCII letters; all letters with
/// `encoding='utf-8'`).
#[native("lower(input, encoding='', name=None)")]
fn lower(vm: &dyn Vm, input: &Value, encoding: &str, _name: &Value) -> PyResult<Tensor> {
    case_map(vm, input, encoding, "StringLower", false)
}

/// Strips leading and trailing ASCII whitespace.
#[native("strip(input, name=None)")]
fn strip(vm: &dyn Vm, input: &Value, _name: &Value) -> PyResult<Tensor> {
    let t = string_arg(vm, input, "StringStrip", 0)?;
    map_strs(&t, |s| s.trim_ascii().to_vec())
}

/// Joins strings element-wise (scalars broadcast): `tf.strings.join(['a',
/// 'b'], separator='-')` is `b'a-b'`.
#[native("join(inputs, separator='', name=None)")]
fn join(vm: &dyn Vm, inputs: &Value, separator: &str, _name: &Value) -> PyResult<Tensor> {
    let items = vm.collect(inputs)?;
    let ts = items
        .iter()
        .enumerate()
        .map(|(i, v)| string_arg(vm, v, "StringJoin", i))
        .collect::<PyResult<Vec<_>>>()?;
    let mut dims: Option<Vec<usize>> = None;
    for t in &ts {
        if t.rank() == 0 {
            continue;
        }
        match &dims {
            None => dims = Some(t.dims().to_vec()),
            Some(d) if d.as_slice() != t.dims() => {
                return Err(kernel(
                    ExcType::InvalidArgumentError,
                    &format!("StringJoin_N_{}", ts.len()),
                    "StringJoin",
                    &format!(
                        "Input shapes do not match: {} vs. {}",
                        Shape::new(d).bracket_text_compact(),
                        t.shape().bracket_text_compact()
                    ),
                    " name: ",
                ))
            }
            Some(_) => {}
        }
    }
    let dims = dims.unwrap_or_default();
    let n: usize = dims.iter().product();
    let parts = ts.iter().map(strs).collect::<PyResult<Vec<_>>>()?;
    let out = (0..n)
        .map(|i| {
            let pieces: Vec<&[u8]> = parts
                .iter()
                .map(|p| if p.len() == 1 { &p[0][..] } else { &p[i][..] })
                .collect();
            pieces.join(separator.as_bytes())
        })
        .collect();
    str_tensor(out, &dims)
}

/// Joins the strings along `axis` (all axes when None).
#[native("reduce_join(inputs, axis=None, keepdims=False, separator='', name=None)")]
fn reduce_join(
    vm: &dyn Vm,
    inputs: &Value,
    axis: &Value,
    keepdims: bool,
    separator: &str,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = string_arg(vm, inputs, "ReduceJoin", 0)?;
    let r = t.rank();
    let axes: Vec<usize> = match axis {
        Value::None => (0..r).collect(),
        v => {
            let mut out = Vec::new();
            for a in int_list(vm, v)? {
                let ax = if a < 0 { a + r as i64 } else { a };
                if !(0..r as i64).contains(&ax) {
                    return Err(kernel(
                        ExcType::OutOfRangeError,
                        "ReduceJoin",
                        "ReduceJoin",
                        &format!("Invalid reduction dimension {a} for input with {r} dimension(s)"),
                        " name: ",
                    ));
                }
                out.push(ax as usize);
            }
            out
        }
    };
    let dims = t.dims();
    let out_dims: Vec<usize> = (0..r)
        .filter_map(|a| {
            if axes.contains(&a) {
                keepdims.then_some(1)
            } else {
                Some(dims[a])
            }
        })
        .collect();
    let kept: Vec<usize> = (0..r).filter(|a| !axes.contains(a)).collect();
    let n_out: usize = kept.iter().map(|&a| dims[a]).product();
    let mut groups: Vec<Vec<&[u8]>> = vec![Vec::new(); n_out];
    let data = strs(&t)?;
    let mut coords = vec![0usize; r];
    for s in &data {
        let mut o = 0;
        for &a in &kept {
            o = o * dims[a] + coords[a];
        }
        groups[o].push(s);
        for a in (0..r).rev() {
            coords[a] += 1;
            if coords[a] < dims[a] {
                break;
            }
            coords[a] = 0;
        }
    }
    let out = groups
        .into_iter()
        .map(|g| g.join(separator.as_bytes()))
        .collect();
    str_tensor(out, &out_dims)
}

fn ints_like(vm: &dyn Vm, v: &Value, n: usize, dims: &[usize]) -> PyResult<Vec<i64>> {
    let t = to_tensor(vm, v, None)?;
    let vals: Vec<i64> = t
        .to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => Ok(i),
            _ => Err(type_error("substr: pos and len must be int32 or int64")),
        })
        .collect::<PyResult<_>>()?;
    if vals.len() == 1 {
        return Ok(vec![vals[0]; n]);
    }
    if t.dims() != dims {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.strings.substr: pos and len of another shape than the input (broadcasting) are not supported in dist",
        ));
    }
    Ok(vals)
}

/// The substring of `len` bytes (or characters) from `pos` (from the end
/// when negative) of each string.
#[native("substr(input, pos, len, unit='BYTE', name=None)")]
fn substr(
    vm: &dyn Vm,
    input: &Value,
    pos: &Value,
    len: &Value,
    unit: &str,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = string_arg(vm, input, "Substr", 0)?;
    let chars = unit_arg(unit, "Substr")?;
    let data = strs(&t)?;
    let n = data.len();
    let (p, l) = (
        ints_like(vm, pos, n, t.dims())?,
        ints_like(vm, len, n, t.dims())?,
    );
    let mut out = Vec::with_capacity(n);
    for (i, s) in data.iter().enumerate() {
        // character boundaries (byte offsets), or every byte
        let bounds: Vec<usize> = if chars {
            let mut b: Vec<usize> = (0..s.len()).filter(|&k| s[k] & 0xC0 != 0x80).collect();
            b.push(s.len());
            b
        } else {
            (0..=s.len()).collect()
        };
        let count = bounds.len() as i64 - 1;
        let mut start = p[i];
        if start < 0 {
            start += count;
        }
        if start < 0 || start > count {
            return Err(kernel(
                ExcType::InvalidArgumentError,
                "Substr",
                "Substr",
                &format!(
                    "pos {} out of range for string {} at index {i}",
                    p[i],
                    crate::value::format::bytes_repr(s)
                ),
                "",
            ));
        }
        let end = (start + l[i].max(0)).min(count);
        out.push(s[bounds[start as usize]..bounds[end as usize]].to_vec());
    }
    str_tensor(out, t.dims())
}

fn parse_number(s: &[u8], out: DType) -> Option<Scalar> {
    let text = std::str::from_utf8(s).ok()?.trim_ascii();
    match out {
        DType::Int32 => text.parse::<i32>().ok().map(|v| Scalar::Int(v as i64)),
        DType::Int64 => text.parse::<i64>().ok().map(Scalar::Int),
        _ => {
            let lower = text.to_ascii_lowercase();
            let unsigned = lower.trim_start_matches(['+', '-']);
            if unsigned == "nan" {
                return Some(Scalar::Float(f64::NAN));
            }
            if out == DType::Float32 {
                text.parse::<f32>().ok().map(|v| Scalar::Float(v as f64))
            } else {
                text.parse::<f64>().ok().map(Scalar::Float)
            }
        }
    }
}

/// Parses each string as a number of `out_type` (float32 by default).
#[native("to_number(input, out_type=None, name=None)")]
fn to_number(vm: &dyn Vm, input: &Value, out_type: &Value, _name: &Value) -> PyResult<Tensor> {
    let t = string_arg(vm, input, "StringToNumber", 0)?;
    let out = match out_type {
        Value::None => DType::Float32,
        v => dtype_arg(vm, v)?,
    };
    if !matches!(
        out,
        DType::Float32 | DType::Float64 | DType::Int32 | DType::Int64
    ) {
        return Err(type_error(format!(
            "Value passed to parameter 'out_type' has DataType {} not in list of allowed values: float32, float64, int32, int64",
            out.name()
        )));
    }
    let mut vals = Vec::new();
    for s in strs(&t)? {
        match parse_number(&s, out) {
            Some(v) => vals.push(v),
            None => {
                return Err(kernel(
                    ExcType::InvalidArgumentError,
                    "StringToNumber",
                    "StringToNumber",
                    &format!(
                        "StringToNumberOp could not correctly convert string: {}",
                        String::from_utf8_lossy(&s)
                    ),
                    "",
                ))
            }
        }
    }
    let dims = t.dims().to_vec();
    let made = match out {
        DType::Int32 | DType::Int64 => {
            let v: Vec<i64> = vals
                .iter()
                .map(|s| if let Scalar::Int(i) = s { *i } else { 0 })
                .collect();
            Tensor::from_vec(v, &dims).and_then(|x| crate::runtime::ops::cast(&x, out))
        }
        _ => {
            let v: Vec<f64> = vals.iter().map(Scalar::as_f64).collect();
            Tensor::from_vec(v, &dims).and_then(|x| crate::runtime::ops::cast(&x, out))
        }
    };
    made.map_err(runtime_err)
}

/// C's `%e` exponent form: `1.500000e+00`.
fn c_e(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return c_g(x, 6);
    }
    let s = format!("{:.*e}", prec, x);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

fn c_f(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    format!("{:.*}", prec, x)
}

fn pad(s: String, width: i64, fill: &str) -> String {
    let w = width.max(0) as usize;
    if s.len() >= w {
        return s;
    }
    if fill == "0" {
        let (sign, digits) = match s.strip_prefix('-') {
            Some(d) => ("-", d.to_string()),
            None => ("", s.clone()),
        };
        format!("{sign}{}{digits}", "0".repeat(w - s.len()))
    } else {
        format!("{}{s}", " ".repeat(w - s.len()))
    }
}

/// Each element as a string: `tf.strings.as_string([3.14159], precision=2)`
/// is `[b'3.14']`.
#[native("as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill='', name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
fn as_string(
    vm: &dyn Vm,
    input: &Value,
    precision: i64,
    scientific: bool,
    shortest: bool,
    width: i64,
    fill: &str,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = to_tensor(vm, input, None)?;
    if !matches!(fill, "" | " " | "0") {
        return Err(kernel(
            ExcType::InvalidArgumentError,
            "AsString",
            "AsString",
            &format!("Fill argument not supported: \"{fill}\""),
            " name: ",
        ));
    }
    let float = t.dtype().is_floating() || t.dtype().is_complex();
    let out: Vec<Vec<u8>> = match t.dtype() {
        DType::String => strs(&t)?,
        _ => t
            .to_scalars()
            .into_iter()
            .map(|s| {
                let real = |x: f64| {
                    let p = if precision < 0 { 6 } else { precision as usize };
                    if shortest {
                        c_g(x, if precision < 0 { 6 } else { p })
                    } else if scientific {
                        c_e(x, p)
                    } else {
                        c_f(x, p)
                    }
                };
                let text = match s {
                    Scalar::Bool(b) => (if b { "true" } else { "false" }).to_string(),
                    Scalar::Int(i) => i.to_string(),
                    Scalar::Float(x) if float => real(x),
                    // TensorFlow writes a complex element as `(re,im)`
                    Scalar::Complex(re, im) => format!("({},{})", real(re), real(im)),
                    Scalar::Float(x) => x.to_string(),
                    Scalar::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                };
                pad(text, width, fill).into_bytes()
            })
            .collect(),
    };
    str_tensor(out, t.dims())
}

fn regex(pattern: &str, op: &str, anchored: bool) -> PyResult<fancy_regex::Regex> {
    let source = if anchored {
        format!(r"\A(?:{pattern})\z")
    } else {
        pattern.to_string()
    };
    fancy_regex::Regex::new(&source).map_err(|e| {
        // RE2's text for the error it reports most
        let text = e.to_string();
        let why = if text.contains("Opening parenthesis without closing") {
            format!("missing ): {pattern}")
        } else {
            text
        };
        kernel(
            ExcType::InvalidArgumentError,
            op,
            op,
            &format!("Invalid pattern: {pattern}, error: {why}"),
            "",
        )
    })
}

/// RE2's rewrite string (`\1`, `\\`) in fancy-regex's form (`${1}`, `$$`).
fn rewrite_template(rewrite: &str) -> String {
    let mut out = String::new();
    let mut chars = rewrite.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(d) if d.is_ascii_digit() => out.push_str(&format!("${{{d}}}")),
                Some('\\') => out.push('\\'),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            },
            '$' => out.push_str("$$"),
            c => out.push(c),
        }
    }
    out
}

/// Replaces the matches of a regular expression (RE2 syntax; `\1` in
/// `rewrite` is the first group), all or (`replace_global=False`) the first.
#[native("regex_replace(input, pattern, rewrite, replace_global=True, name=None)")]
fn regex_replace(
    vm: &dyn Vm,
    input: &Value,
    pattern: &str,
    rewrite: &str,
    replace_global: bool,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = string_arg(vm, input, "StaticRegexReplace", 0)?;
    let re = regex(pattern, "StaticRegexReplace", false)?;
    let template = rewrite_template(rewrite);
    let mut out = Vec::new();
    for s in strs(&t)? {
        let text = String::from_utf8_lossy(&s);
        let r = if replace_global {
            re.try_replacen(&text, 0, template.as_str())
        } else {
            re.try_replacen(&text, 1, template.as_str())
        };
        let r = r.map_err(|e| PyErr::new(ExcType::RuntimeError, e.to_string()))?;
        out.push(r.into_owned().into_bytes());
    }
    str_tensor(out, t.dims())
}

/// Whether each whole string matches a regular expression.
#[native("regex_full_match(input, pattern, name=None)")]
fn regex_full_match(vm: &dyn Vm, input: &Value, pattern: &str, _name: &Value) -> PyResult<Tensor> {
    let t = string_arg(vm, input, "StaticRegexFullMatch", 0)?;
    let re = regex(pattern, "StaticRegexFullMatch", true)?;
    let v = strs(&t)?
        .iter()
        .map(|s| {
            re.is_match(&String::from_utf8_lossy(s)[..])
                .map_err(|e| PyErr::new(ExcType::RuntimeError, e.to_string()))
        })
        .collect::<PyResult<Vec<bool>>>()?;
    Tensor::from_vec(v, t.dims()).map_err(runtime_err)
}

/// Splits a scalar string at `sep` (runs of whitespace when None), at most
/// `maxsplit` times.
#[native("split(input, sep=None, maxsplit=-1, name=None)")]
fn split(
    vm: &dyn Vm,
    input: &Value,
    sep: Option<String>,
    maxsplit: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let t = string_arg(vm, input, "StringSplitV2", 0)?;
    if t.rank() != 0 {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "the native tf.strings.split takes a scalar (tf.strings.split splits a vector row by row)",
        ));
    }
    let s = strs(&t)?.remove(0);
    let limit = if maxsplit < 0 {
        usize::MAX
    } else {
        maxsplit as usize
    };
    let mut parts: Vec<Vec<u8>> = Vec::new();
    match sep.as_deref() {
        None | Some("") if sep.is_none() => {
            let mut rest: &[u8] = s.trim_ascii_start();
            while !rest.is_empty() {
                if parts.len() == limit {
                    parts.push(rest.trim_ascii_end().to_vec());
                    break;
                }
                let end = rest
                    .iter()
                    .position(|b| b.is_ascii_whitespace())
                    .unwrap_or(rest.len());
                parts.push(rest[..end].to_vec());
                rest = rest[end..].trim_ascii_start();
            }
        }
        Some("") => parts.push(s),
        Some(d) => {
            let d = d.as_bytes();
            let mut rest: &[u8] = &s;
            loop {
                let found = if parts.len() < limit {
                    rest.windows(d.len()).position(|w| w == d)
                } else {
                    None
                };
                match found {
                    Some(i) => {
                        parts.push(rest[..i].to_vec());
                        rest = &rest[i + d.len()..];
                    }
                    None => {
                        parts.push(rest.to_vec());
                        break;
                    }
                }
            }
        }
        None => {}
    }
    let n = parts.len();
    str_tensor(parts, &[n])
}
