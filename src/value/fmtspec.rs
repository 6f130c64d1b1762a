//! Python's format-spec mini-language (`format(x, spec)`, f-string `{x:spec}`,
//! `str.format`) for the builtin scalars: int, bool, float and str. Parsing,
//! validation messages and the digit layout (grouping, sign-aware zero padding,
//! general format switch points) follow CPython's `formatter_unicode.c`.
//! Objects with their own `__format__` are the evaluator's business.

use super::error::{ExcType, PyErr, PyResult};
use super::fmtfloat::float_body;
use super::format::float_repr;
use super::value::Value;
use crate::object::types::{type_error, value_error};

/// A parsed format spec: `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatSpec {
    /// The fill character (space unless given).
    pub fill: char,
    /// `<`, `>`, `^` or `=`; None means the type's default.
    pub align: Option<char>,
    /// `+`, `-` or ` `.
    pub sign: Option<char>,
    /// `z`: coerce negative zero to positive.
    pub no_neg_zero: bool,
    /// `#`: alternate form.
    pub alternate: bool,
    /// Minimum width.
    pub width: usize,
    /// `,` or `_`.
    pub grouping: Option<char>,
    /// Precision.
    pub precision: Option<usize>,
    /// The presentation type.
    pub ty: Option<char>,
}

/// Width and precision beyond this are refused (they would only allocate).
const MAX_WIDTH: usize = 1 << 30;

fn parse_number(chars: &[char], pos: &mut usize) -> PyResult<Option<usize>> {
    let start = *pos;
    let mut n: usize = 0;
    while *pos < chars.len() && chars[*pos].is_ascii_digit() {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(chars[*pos] as usize - '0' as usize))
            .ok_or_else(|| value_error("Too many decimal digits in format string"))?;
        *pos += 1;
    }
    if *pos == start {
        return Ok(None);
    }
    if n > MAX_WIDTH {
        // CPython's allocation of the padded text fails: a bare MemoryError.
        return Err(PyErr::with_args(ExcType::MemoryError, Vec::new()));
    }
    Ok(Some(n))
}

fn is_align(c: char) -> bool {
    matches!(c, '<' | '>' | '^' | '=')
}

/// Parses a spec for an object of type `type_name` (named in error messages).
/// `numeric` selects the default alignment that the `0` flag turns into `=`.
pub fn parse_spec(spec: &str, type_name: &str, numeric: bool) -> PyResult<FormatSpec> {
    let chars: Vec<char> = spec.chars().collect();
    let mut f = FormatSpec {
        fill: ' ',
        align: None,
        sign: None,
        no_neg_zero: false,
        alternate: false,
        width: 0,
        grouping: None,
        precision: None,
        ty: None,
    };
    let mut pos = 0;
    let mut fill_given = false;
    if chars.len() >= 2 && is_align(chars[1]) {
        f.fill = chars[0];
        f.align = Some(chars[1]);
        fill_given = true;
        pos = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        f.align = Some(chars[0]);
        pos = 1;
    }
    if pos < chars.len() && matches!(chars[pos], '+' | '-' | ' ') {
        f.sign = Some(chars[pos]);
        pos += 1;
    }
    if pos < chars.len() && chars[pos] == 'z' {
        f.no_neg_zero = true;
        pos += 1;
    }
    if pos < chars.len() && chars[pos] == '#' {
        f.alternate = true;
        pos += 1;
    }
    if !fill_given && pos < chars.len() && chars[pos] == '0' {
        f.fill = '0';
        if f.align.is_none() && numeric {
            f.align = Some('=');
        }
        pos += 1;
    }
    f.width = parse_number(&chars, &mut pos)?.unwrap_or(0);
    if pos < chars.len() && matches!(chars[pos], ',' | '_') {
        f.grouping = Some(chars[pos]);
        pos += 1;
        if pos < chars.len()
            && matches!(chars[pos], ',' | '_')
            && chars[pos] != f.grouping.unwrap_or(',')
        {
            return Err(value_error("Cannot specify both ',' and '_'."));
        }
    }
    if pos < chars.len() && chars[pos] == '.' {
        pos += 1;
        match parse_number(&chars, &mut pos)? {
            Some(p) => f.precision = Some(p),
            None => return Err(value_error("Format specifier missing precision")),
        }
    }
    if chars.len() - pos > 1 {
        return Err(value_error(format!(
            "Invalid format specifier '{spec}' for object of type '{type_name}'"
        )));
    }
    if pos < chars.len() {
        f.ty = Some(chars[pos]);
    }
    if let Some(g) = f.grouping {
        let ok = match f.ty {
            None | Some('d' | 'e' | 'f' | 'g' | 'E' | 'G' | '%' | 'F') => true,
            Some('b' | 'o' | 'x' | 'X') => g == '_',
            _ => false,
        };
        if !ok {
            let t = f.ty.map(String::from).unwrap_or_default();
            return Err(value_error(format!("Cannot specify '{g}' with '{t}'.")));
        }
    }
    Ok(f)
}

#[cold]
fn unknown_code(ty: char, type_name: &str) -> PyErr {
    value_error(format!(
        "Unknown format code '{ty}' for object of type '{type_name}'"
    ))
}

/// `format(v, spec)` for the builtin scalars (int, bool, float, str).
/// Returns None for other values (the evaluator handles `__format__`,
/// and `object.__format__` with an empty spec).
pub fn format_builtin(v: &Value, spec: &str) -> PyResult<String> {
    match v {
        Value::Str(s) => format_str(s, spec),
        Value::Bool(b) if spec.is_empty() => Ok(if *b { "True" } else { "False" }.into()),
        Value::Bool(b) => format_int(*b as i64, spec, "bool"),
        Value::Int(i) => format_int(*i, spec, "int"),
        Value::Float(x) => format_float(*x, spec),
        other => Err(unsupported_format(&other.type_name())),
    }
}

/// `unsupported format string passed to T.__format__`: a spec the type
/// has no use for.
#[cold]
pub fn unsupported_format(type_name: &str) -> PyErr {
    type_error(format!(
        "unsupported format string passed to {type_name}.__format__"
    ))
}

/// `format(s, spec)` for a string.
pub fn format_str(s: &str, spec: &str) -> PyResult<String> {
    if spec.is_empty() {
        return Ok(s.to_string());
    }
    let f = parse_spec(spec, "str", false)?;
    if let (Some(g), None) = (f.grouping, f.ty) {
        return Err(value_error(format!("Cannot specify '{g}' with 's'.")));
    }
    if let Some(t) = f.ty.filter(|t| *t != 's') {
        return Err(unknown_code(t, "str"));
    }
    match f.sign {
        Some(' ') => return Err(value_error("Space not allowed in string format specifier")),
        Some(_) => return Err(value_error("Sign not allowed in string format specifier")),
        None => {}
    }
    if f.no_neg_zero {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in string format specifier",
        ));
    }
    if f.alternate {
        return Err(value_error(
            "Alternate form (#) not allowed in string format specifier",
        ));
    }
    if f.align == Some('=') {
        return Err(value_error(
            "'=' alignment not allowed in string format specifier",
        ));
    }
    let body: String = match f.precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_string(),
    };
    Ok(pad(&body, f.width, f.fill, f.align.unwrap_or('<')))
}

/// Pads `body` to `width` with `fill` (`<`, `>`, `^`; `=` is handled by numbers).
pub fn pad(body: &str, width: usize, fill: char, align: char) -> String {
    let n = body.chars().count();
    if n >= width {
        return body.to_string();
    }
    let total = width - n;
    let (left, right) = match align {
        '<' => (0, total),
        '^' => (total / 2, total - total / 2),
        _ => (total, 0),
    };
    let mut out = String::with_capacity(body.len() + total);
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(body);
    out.extend(std::iter::repeat_n(fill, right));
    out
}

/// Inserts `sep` every `every` digits from the right of an ASCII digit string,
/// zero-extending it first so that the grouped result is at least `min_len` long.
fn group_digits(digits: &str, sep: char, every: usize, min_len: usize) -> String {
    let mut d: Vec<u8> = digits.bytes().collect();
    loop {
        let grouped_len = d.len() + (d.len().max(1) - 1) / every;
        if grouped_len >= min_len {
            break;
        }
        d.insert(0, b'0');
    }
    let mut out = String::with_capacity(d.len() * 2);
    for (i, c) in d.iter().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(*c as char);
    }
    out
}

/// Lays a number out: `sign`, `prefix` (`0x`), integer digits `int_part`
/// (grouped as the spec says), then `rest` (fraction, exponent, `%`).
fn layout_number(
    negative: bool,
    prefix: &str,
    int_part: &str,
    rest: &str,
    f: &FormatSpec,
) -> String {
    let sign = match (negative, f.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    let every = if matches!(f.ty, Some('b' | 'o' | 'x' | 'X')) {
        4
    } else {
        3
    };
    let align = f.align.unwrap_or('>');
    let numeric = int_part.bytes().all(|b| b.is_ascii_hexdigit());
    let zero_fill = align == '=' && f.fill == '0' && numeric;
    let int_text = match f.grouping {
        Some(g) if numeric => {
            let min = if zero_fill {
                f.width
                    .saturating_sub(sign.len() + prefix.len() + rest.chars().count())
            } else {
                0
            };
            group_digits(int_part, g, every, min)
        }
        _ => int_part.to_string(),
    };
    let body_len = sign.len() + prefix.len() + int_text.chars().count() + rest.chars().count();
    if align == '=' {
        let padn = f.width.saturating_sub(body_len);
        let mut out = String::new();
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n(f.fill, padn));
        out.push_str(&int_text);
        out.push_str(rest);
        return out;
    }
    pad(
        &format!("{sign}{prefix}{int_text}{rest}"),
        f.width,
        f.fill,
        align,
    )
}

/// `format(i, spec)` for an int (`type_name` is `int` or `bool`).
pub fn format_int(i: i64, spec: &str, type_name: &str) -> PyResult<String> {
    if spec.is_empty() {
        return Ok(i.to_string());
    }
    format_integer(Int::Small(i), spec, type_name, 0)
}

/// `format(n, spec)` for an int past 64 bits; `limit` is the digit limit
/// of `sys.set_int_max_str_digits` for the decimal forms (0: none).
pub fn format_big(n: &num_bigint::BigInt, spec: &str, limit: usize) -> PyResult<String> {
    format_integer(Int::Big(n), spec, "int", limit)
}

/// An int to format: inline or big.
#[derive(Clone, Copy)]
enum Int<'a> {
    Small(i64),
    Big(&'a num_bigint::BigInt),
}

impl Int<'_> {
    fn negative(self) -> bool {
        match self {
            Int::Small(i) => i < 0,
            Int::Big(n) => n.sign() == num_bigint::Sign::Minus,
        }
    }

    /// The absolute value's digits in `radix` (10 under `limit`).
    fn digits(self, radix: u32, upper: bool, limit: usize) -> PyResult<String> {
        let s = match self {
            Int::Small(i) => {
                let mag = i.unsigned_abs();
                match radix {
                    2 => format!("{mag:b}"),
                    8 => format!("{mag:o}"),
                    16 => format!("{mag:x}"),
                    _ => mag.to_string(),
                }
            }
            Int::Big(n) if radix == 10 => {
                let s = crate::object::types::long::to_decimal(n, limit)?;
                s.trim_start_matches('-').to_string()
            }
            Int::Big(n) => n.magnitude().to_str_radix(radix),
        };
        Ok(if upper { s.to_ascii_uppercase() } else { s })
    }
}

fn format_integer(i: Int, spec: &str, type_name: &str, limit: usize) -> PyResult<String> {
    if spec.is_empty() {
        return Ok(format!(
            "{}{}",
            if i.negative() { "-" } else { "" },
            i.digits(10, false, limit)?
        ));
    }
    let f = parse_spec(spec, type_name, true)?;
    match f.ty {
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => {
            let x = match i {
                Int::Small(i) => i as f64,
                Int::Big(n) => crate::object::types::long::to_f64(n)?,
            };
            return float_with(x, &f);
        }
        None | Some('d' | 'n' | 'b' | 'o' | 'x' | 'X' | 'c') => {}
        Some(t) => return Err(unknown_code(t, type_name)),
    }
    if f.precision.is_some() {
        return Err(value_error(
            "Precision not allowed in integer format specifier",
        ));
    }
    if f.no_neg_zero {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in integer format specifier",
        ));
    }
    let (prefix, digits) = match f.ty {
        Some('b') => ("0b", i.digits(2, false, limit)?),
        Some('o') => ("0o", i.digits(8, false, limit)?),
        Some('x') => ("0x", i.digits(16, false, limit)?),
        Some('X') => ("0X", i.digits(16, true, limit)?),
        Some('c') => {
            if f.sign.is_some() {
                return Err(value_error(
                    "Sign not allowed with integer format specifier 'c'",
                ));
            }
            if f.alternate {
                return Err(value_error(
                    "Alternate form (#) not allowed with integer format specifier 'c'",
                ));
            }
            let Int::Small(i) = i else {
                return Err(PyErr::new(
                    ExcType::OverflowError,
                    "Python int too large to convert to C long",
                ));
            };
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| {
                    PyErr::new(ExcType::OverflowError, "%c arg not in range(0x110000)")
                })?;
            return Ok(pad(
                &c.to_string(),
                f.width,
                f.fill,
                f.align.filter(|a| *a != '=').unwrap_or('<'),
            ));
        }
        _ => ("", i.digits(10, false, limit)?),
    };
    let prefix = if f.alternate { prefix } else { "" };
    Ok(layout_number(i.negative(), prefix, &digits, "", &f))
}

/// `format(x, spec)` for a float.
pub fn format_float(x: f64, spec: &str) -> PyResult<String> {
    if spec.is_empty() {
        return Ok(float_repr(x));
    }
    let f = parse_spec(spec, "float", true)?;
    match f.ty {
        None | Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%') => float_with(x, &f),
        Some(t) => Err(unknown_code(t, "float")),
    }
}

fn float_with(x: f64, f: &FormatSpec) -> PyResult<String> {
    let mut body = float_body(x.abs(), f.ty, f.precision, f.alternate);
    let mut negative = x.is_sign_negative() && !x.is_nan();
    if negative
        && f.no_neg_zero
        && x.is_finite()
        && body.bytes().all(|b| !(b'1'..=b'9').contains(&b))
    {
        negative = false;
    }
    if f.ty == Some('%') {
        body.push('%');
    }
    let split = body
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(body.len());
    let (int_part, rest) = body.split_at(split);
    let int_part = if int_part.is_empty() {
        &body[..]
    } else {
        int_part
    };
    let rest = if int_part.len() == body.len() {
        ""
    } else {
        rest
    };
    Ok(layout_number(negative, "", int_part, rest, f))
}

#[cfg(test)]
#[path = "fmtspec_tests.rs"]
mod tests;
