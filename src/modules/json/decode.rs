//! `json.loads`: a recursive-descent parser over characters (positions in
//! messages count characters, as CPython's do).

use crate::object::native;
use crate::value::{Dict, ExcType, PyErr, PyResult, Value, Vm};

use super::decode_error;
use crate::object::types::type_error;

/// Parses a JSON document: `json.loads('[1, 2.5, null]') == [1, 2.5, None]`.
#[native(
    "loads(s, *, cls=None, object_hook=None, parse_float=None, parse_int=None, parse_constant=None, object_pairs_hook=None)"
)]
#[expect(clippy::too_many_arguments, reason = "json.loads's parameters")]
pub(super) fn loads(
    vm: &dyn Vm,
    s: &Value,
    cls: &Value,
    object_hook: &Value,
    parse_float: &Value,
    parse_int: &Value,
    parse_constant: &Value,
    object_pairs_hook: &Value,
) -> PyResult<Value> {
    if !matches!(cls, Value::None) {
        // `cls(object_hook=..., ...).decode(s)`, as CPython's loads does.
        let kwargs = [
            ("object_hook", object_hook),
            ("parse_float", parse_float),
            ("parse_int", parse_int),
            ("parse_constant", parse_constant),
            ("object_pairs_hook", object_pairs_hook),
        ]
        .into_iter()
        .map(|(n, v)| (std::rc::Rc::from(n), v.clone()))
        .collect();
        let decoder = vm.call(cls, Vec::new(), kwargs)?;
        let decode = vm.getattr(&decoder, "decode")?;
        return vm.call(&decode, vec![s.clone()], Vec::new());
    }
    let hook = |v: &Value| match v {
        Value::None => None,
        f => Some(f.clone()),
    };
    let hooks = Hooks {
        vm,
        object: hook(object_hook),
        float: hook(parse_float),
        int: hook(parse_int),
        constant: hook(parse_constant),
        pairs: hook(object_pairs_hook),
    };
    match s.as_builtin() {
        Value::Str(s) if s.starts_with('\u{feff}') => Err(super::decode_error(
            "Unexpected UTF-8 BOM (decode using utf-8-sig)",
            &[],
            0,
        )),
        Value::Str(s) => parse(s, Some(&hooks)),
        // Bytes are decoded as CPython's detect_encoding does for UTF-8:
        // a leading BOM is dropped; invalid UTF-8 is a UnicodeDecodeError.
        Value::Bytes(b) => {
            let body = b.strip_prefix(b"\xef\xbb\xbf").unwrap_or(b);
            match crate::object::types::bytes::decode_bytes(body, None, None)? {
                Value::Str(s) => parse(&s, Some(&hooks)),
                _ => Ok(Value::None),
            }
        }
        _ => Err(type_error(format!(
            "the JSON object must be str, bytes or bytearray, not {}",
            s.type_name()
        ))),
    }
}

/// The callables `loads` was given to build values with instead of the
/// defaults (`object_hook=`, `parse_float=` …).
struct Hooks<'a> {
    vm: &'a dyn Vm,
    /// Called with each decoded dict; its result replaces the dict.
    object: Option<Value>,
    /// Called with each float's text.
    float: Option<Value>,
    /// Called with each int's text.
    int: Option<Value>,
    /// Called with `'NaN'`, `'Infinity'` or `'-Infinity'`.
    constant: Option<Value>,
    /// Called with each object's `(key, value)` pairs as a list; it takes
    /// precedence over `object`.
    pairs: Option<Value>,
}

impl Hooks<'_> {
    fn call(&self, f: &Value, arg: Value) -> PyResult<Value> {
        self.vm.call(f, vec![arg], Vec::new())
    }
}

/// Parses a JSON document.
pub fn loads_str(s: &str) -> PyResult<Value> {
    parse(s, None)
}

fn parse(s: &str, hooks: Option<&Hooks>) -> PyResult<Value> {
    let doc: Vec<char> = s.chars().collect();
    let mut p = Parser {
        doc: &doc,
        pos: 0,
        depth: 0,
        hooks,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.pos < doc.len() {
        return Err(decode_error("Extra data", &doc, p.pos));
    }
    Ok(v)
}

struct Parser<'a> {
    doc: &'a [char],
    pos: usize,
    depth: usize,
    hooks: Option<&'a Hooks<'a>>,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.doc.get(self.pos).copied()
    }

    fn err<T>(&self, msg: &str, pos: usize) -> PyResult<T> {
        Err(decode_error(msg, self.doc, pos))
    }

    fn starts(&self, word: &str) -> bool {
        word.chars()
            .enumerate()
            .all(|(i, c)| self.doc.get(self.pos + i) == Some(&c))
    }

    fn value(&mut self) -> PyResult<Value> {
        if self.depth > 900 {
            return self.err("Too deeply nested", self.pos);
        }
        match self.peek() {
            Some('"') => self.string().map(Value::str),
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some('-' | '0'..='9') if !self.starts("-Infinity") => self.number(),
            _ => {
                for (word, v) in [
                    ("null", Value::None),
                    ("true", Value::Bool(true)),
                    ("false", Value::Bool(false)),
                    ("NaN", Value::Float(f64::NAN)),
                    ("Infinity", Value::Float(f64::INFINITY)),
                    ("-Infinity", Value::Float(f64::NEG_INFINITY)),
                ] {
                    if self.starts(word) {
                        self.pos += word.chars().count();
                        if let (Some(h), Value::Float(_)) = (self.hooks, &v) {
                            if let Some(f) = &h.constant {
                                return h.call(f, Value::str(word));
                            }
                        }
                        return Ok(v);
                    }
                }
                self.err("Expecting value", self.pos)
            }
        }
    }

    fn number(&mut self) -> PyResult<Value> {
        let start = self.pos;
        if self.peek() == Some('-') {
            self.pos += 1;
        }
        match self.peek() {
            Some('0') => self.pos += 1,
            Some('1'..='9') => {
                while matches!(self.peek(), Some('0'..='9')) {
                    self.pos += 1;
                }
            }
            _ => return self.err("Expecting value", start),
        }
        let mut is_float = false;
        if self.peek() == Some('.') && matches!(self.doc.get(self.pos + 1), Some('0'..='9')) {
            is_float = true;
            self.pos += 1;
            while matches!(self.peek(), Some('0'..='9')) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.pos += 1;
            }
            if matches!(self.peek(), Some('0'..='9')) {
                is_float = true;
                while matches!(self.peek(), Some('0'..='9')) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        let text: String = self.doc[start..self.pos].iter().collect();
        if let Some(h) = self.hooks {
            if let Some(f) = if is_float { &h.float } else { &h.int } {
                return h.call(f, Value::str(text));
            }
        }
        if is_float {
            return Ok(Value::Float(text.parse().unwrap_or(f64::NAN)));
        }
        let limit = self
            .hooks
            .map_or(crate::object::types::long::DEFAULT_MAX_STR_DIGITS, |h| {
                crate::object::types::long::max_str_digits(h.vm)
            });
        crate::object::types::int::parse_int(&text, 10, limit)
    }

    fn string(&mut self) -> PyResult<String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return self.err("Unterminated string starting at", start);
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                '\\' => {
                    let esc_pos = self.pos;
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return self.err("Unterminated string starting at", start);
                    };
                    self.pos += 1;
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let hi = self.hex4(esc_pos)?;
                            if (0xd800..0xdc00).contains(&hi) && self.starts("\\u") {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4(save)?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                                    out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                                    continue;
                                }
                                self.pos = save;
                            }
                            let Some(c) = char::from_u32(hi) else {
                                // dist strings hold Unicode scalar values only.
                                return Err(PyErr::new(
                                    ExcType::ValueError,
                                    format!(
                                        "json: the lone surrogate \\u{hi:04x} at char {esc_pos} is not supported (strings hold Unicode scalar values)"
                                    ),
                                ));
                            };
                            out.push(c);
                        }
                        _ => return self.err("Invalid \\escape", esc_pos),
                    }
                }
                c if (c as u32) < 0x20 => {
                    return self.err("Invalid control character at", self.pos)
                }
                c => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn hex4(&mut self, esc_pos: usize) -> PyResult<u32> {
        let digits: String = self
            .doc
            .get(self.pos..self.pos + 4)
            .map(|d| d.iter().collect())
            .unwrap_or_default();
        match u32::from_str_radix(&digits, 16) {
            Ok(v) if digits.len() == 4 && digits.chars().all(|c| c.is_ascii_hexdigit()) => {
                self.pos += 4;
                Ok(v)
            }
            _ => self.err("Invalid \\uXXXX escape", esc_pos + 1),
        }
    }

    fn array(&mut self) -> PyResult<Value> {
        self.pos += 1;
        self.depth += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::list(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(Value::list(items));
                }
                _ => return self.err("Expecting ',' delimiter", self.pos),
            }
        }
    }

    fn object(&mut self) -> PyResult<Value> {
        self.pos += 1;
        self.depth += 1;
        let mut pairs = Vec::new();
        self.ws();
        if self.peek() == Some('}') {
            self.pos += 1;
            self.depth -= 1;
            return self.make_object(pairs);
        }
        loop {
            self.ws();
            if self.peek() != Some('"') {
                return self.err(
                    "Expecting property name enclosed in double quotes",
                    self.pos,
                );
            }
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(':') {
                return self.err("Expecting ':' delimiter", self.pos);
            }
            self.pos += 1;
            self.ws();
            let v = self.value()?;
            pairs.push((key, v));
            self.ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some('}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return self.make_object(pairs);
                }
                _ => return self.err("Expecting ',' delimiter", self.pos),
            }
        }
    }

    /// A decoded object: a dict (later duplicate keys win), or what the
    /// `object_pairs_hook` / `object_hook` makes of it.
    fn make_object(&self, pairs: Vec<(String, Value)>) -> PyResult<Value> {
        if let Some((h, f)) = self.hooks.and_then(|h| Some((h, h.pairs.as_ref()?))) {
            let list = pairs
                .into_iter()
                .map(|(k, v)| Value::tuple(vec![Value::str(k), v]))
                .collect();
            return h.call(f, Value::list(list));
        }
        let mut d = Dict::new();
        for (k, v) in pairs {
            d.insert_str(&k, v)?;
        }
        let d = Value::dict(d);
        match self.hooks.and_then(|h| Some((h, h.object.as_ref()?))) {
            Some((h, f)) => h.call(f, d),
            None => Ok(d),
        }
    }
}
