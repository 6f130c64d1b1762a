//! Literals: numbers (validated with CPython's messages), strings and bytes
//! (escapes decoded, adjacent literals joined) and f-strings (split into
//! literal text and replacement fields, whose expressions are parsed with the
//! grammar's `fstring_expr` rule at their exact source offset).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use pest::iterators::Pair;
use pest::Parser;

use super::{Lowerer, Map, R};
use crate::syntax::ast::{Constant, Expr, ExprKind, FStringPart};
use crate::syntax::error::SyntaxError;
use crate::syntax::parser::{DistParser, Rule};
use crate::syntax::span::Span;

/// What one string token is.
struct StrToken<'t> {
    raw: bool,
    bytes: bool,
    fstring: bool,
    /// The text between the quotes.
    body: &'t str,
    /// Source offset of `body`.
    body_at: usize,
}

fn split_token(text: &str, at: usize) -> StrToken<'_> {
    let plen = text.find(['"', '\'']).unwrap_or(0);
    let prefix = text[..plen].to_ascii_lowercase();
    let rest = &text[plen..];
    let q = if rest.starts_with("\"\"\"") || rest.starts_with("'''") {
        3
    } else {
        1
    };
    let end = rest.len().saturating_sub(q).max(q);
    StrToken {
        raw: prefix.contains('r'),
        bytes: prefix.contains('b'),
        fstring: prefix.contains('f'),
        body: rest.get(q..end).unwrap_or(""),
        body_at: at + plen + q,
    }
}

fn hex_value(s: &str) -> Option<u32> {
    if s.bytes().all(|b| b.is_ascii_hexdigit()) {
        u32::from_str_radix(s, 16).ok()
    } else {
        None
    }
}

/// Decodes the escapes of a str (or, with `bytes`, a bytes) literal body.
/// `at` is the body's source offset, for error spans.
fn decode(body: &str, raw: bool, bytes: bool, at: usize) -> R<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let b = body.as_bytes();
    let mut i = 0;
    let err = |msg: String, i: usize, j: usize| SyntaxError::new(msg, Span::new(at + i, at + j));
    // CPython's message for a bad escape of a str literal (positions lo-hi)
    let unicode_err = |lo: usize, hi: usize, what: &str, i: usize, j: usize| {
        let msg = format!(
            "(unicode error) 'unicodeescape' codec can't decode bytes in position {lo}-{hi}: {what}"
        );
        err(msg, i, j)
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\r' {
            // Universal newlines: CRLF and CR read as LF.
            out.push(b'\n');
            i += if b.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            continue;
        }
        if c != b'\\' || raw {
            if raw && c == b'\\' && i + 1 < b.len() {
                // In raw strings a backslash still protects the next char.
                out.push(b'\\');
                i += 1;
                let next = b[i];
                if next == b'\r' {
                    continue;
                }
                out.push(next);
                i += 1;
                continue;
            }
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&e) = b.get(i + 1) else {
            out.push(b'\\');
            break;
        };
        let start = i;
        i += 2;
        match e {
            b'\n' => {}
            b'\r' => {
                if b.get(i) == Some(&b'\n') {
                    i += 1;
                }
            }
            b'\\' => out.push(b'\\'),
            b'\'' => out.push(b'\''),
            b'"' => out.push(b'"'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                if bytes {
                    out.push((v & 0xff) as u8);
                } else {
                    push_char(&mut out, v);
                }
            }
            b'x' => {
                let digits = body.get(i..i + 2).unwrap_or("");
                let Some(v) = hex_value(digits).filter(|_| digits.len() == 2) else {
                    let valid = digits.bytes().take_while(u8::is_ascii_hexdigit).count();
                    return Err(if bytes {
                        let msg = format!("(value error) invalid \\x escape at position {start}");
                        err(msg, start, i)
                    } else {
                        let hi = start + 1 + valid;
                        unicode_err(start, hi, "truncated \\xXX escape", start, i)
                    });
                };
                i += 2;
                if bytes {
                    out.push(v as u8);
                } else {
                    push_char(&mut out, v);
                }
            }
            b'u' | b'U' if !bytes => {
                let n = if e == b'u' { 4 } else { 8 };
                let digits = body.get(i..i + n).unwrap_or("");
                let v = hex_value(digits).filter(|_| digits.len() == n);
                let Some(v) = v else {
                    let esc = if n == 4 { "\\uXXXX" } else { "\\UXXXXXXXX" };
                    let hi = (i + digits.len()).saturating_sub(1).max(start + 1);
                    let what = format!("truncated {esc} escape");
                    return Err(unicode_err(start, hi, &what, start, i));
                };
                i += n;
                if char::from_u32(v).is_none() {
                    let what = "illegal Unicode character";
                    return Err(unicode_err(start, i - 1, what, start, i));
                }
                push_char(&mut out, v);
            }
            b'N' if !bytes => {
                // `\N{NAME}`: the character with that Unicode name (or
                // alias), matched without regard to case, as Python does.
                let close = (b.get(i) == Some(&b'{'))
                    .then(|| body[i..].find('}').map(|k| i + k))
                    .flatten();
                let (lo, what) = (py_pos(body, start), "malformed \\N character escape");
                let malformed = |hi: usize| unicode_err(lo, py_pos(body, hi), what, start, hi + 1);
                let Some(close) = close else {
                    let hi = if b.get(i) == Some(&b'{') {
                        b.len() - 1
                    } else {
                        i - 1
                    };
                    return Err(malformed(hi));
                };
                if close == i + 1 {
                    return Err(malformed(i));
                }
                let Some(ch) = char_named(&body[i + 1..close]) else {
                    let (hi, what) = (py_pos(body, close), "unknown Unicode character name");
                    return Err(unicode_err(lo, hi, what, start, close + 1));
                };
                push_char(&mut out, ch as u32);
                i = close + 1;
            }
            _ => {
                // Unknown escapes keep their backslash, as in Python.
                out.push(b'\\');
                i -= 1;
            }
        }
    }
    Ok(out)
}

/// The character `\N{name}` names: its Unicode name, in any case, or one
/// of its aliases (`LF`, `BYTE ORDER MARK`). `unicode_names2` also matches
/// names with spaces, hyphens or underscores added or dropped, which Python
/// refuses; so a match is kept only when it is the exact name, or when the
/// letters differ from the name's (an alias) and the spelling is clean.
/// Algorithmic names (`HANGUL SYLLABLE GAG`, `CJK UNIFIED IDEOGRAPH-4E00`)
/// must be upper case, as in CPython.
fn char_named(given: &str) -> Option<char> {
    let ch = unicode_names2::character(given)?;
    // Control characters have no name, only aliases (`NULL`, `LF`).
    let canonical = unicode_names2::name(ch).map_or_else(String::new, |n| n.to_string());
    let upper = given.to_ascii_uppercase();
    if upper == canonical {
        let algorithmic = canonical.starts_with("HANGUL SYLLABLE ")
            || canonical.contains(" IDEOGRAPH-")
            || canonical.contains(" CHARACTER-");
        return (!algorithmic || given == canonical).then_some(ch);
    }
    let letters = |s: &str| {
        s.chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .collect::<String>()
    };
    let clean = upper
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ' || b == b'-')
        && !upper.starts_with(' ')
        && !upper.ends_with(' ')
        && !upper.contains("  ");
    (clean && letters(&upper) != letters(&canonical)).then_some(ch)
}

/// The position CPython's escape-decoding messages give for byte `i` of a
/// literal's body: it counts each non-ASCII character as the ten bytes of
/// the `\\U00XXXXXX` escape it rewrites it to before decoding.
fn py_pos(body: &str, i: usize) -> usize {
    body.get(..i)
        .unwrap_or(body)
        .chars()
        .map(|c| if c.is_ascii() { 1 } else { 10 })
        .sum()
}

fn push_char(out: &mut Vec<u8>, v: u32) {
    let c = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// Decodes a str literal piece to a String.
fn decode_str(body: &str, raw: bool, at: usize) -> R<String> {
    let bytes = decode(body, raw, false, at)?;
    // Only whole chars were copied or pushed, so this cannot fail.
    String::from_utf8(bytes)
        .map_err(|_| SyntaxError::new("invalid string literal", Span::new(at, at + body.len())))
}

/// Appends literal text to f-string parts, merging with a previous literal.
fn push_literal(parts: &mut Vec<FStringPart>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(FStringPart::Literal(prev)) = parts.last_mut() {
        let mut s = String::with_capacity(prev.len() + text.len());
        s.push_str(prev);
        s.push_str(text);
        *prev = Rc::from(s);
        return;
    }
    parts.push(FStringPart::Literal(Rc::from(text)));
}

impl Lowerer<'_> {
    /// A number literal.
    pub(super) fn number(&self, p: &Pair<Rule>) -> R<Constant> {
        let span = self.span(p);
        number(p.as_str()).map_err(|(msg, off)| {
            let at = span.start as usize + off.min(p.as_str().len());
            let s = if off == 0 {
                span
            } else {
                Span::new(at, at + 1)
            };
            SyntaxError::new(msg, s)
        })
    }

    /// Adjacent string literals, joined.
    pub(super) fn strings(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let mut parts: Vec<FStringPart> = Vec::new();
        let mut bytes: Vec<u8> = Vec::new();
        let mut any_f = false;
        let mut kinds = (false, false); // (str seen, bytes seen)
        for s in p.into_inner() {
            let sspan = self.span(&s);
            let tok = split_token(s.as_str(), sspan.start as usize);
            if tok.bytes {
                kinds.1 = true;
                if let Some(off) = tok.body.find(|c: char| !c.is_ascii()) {
                    let _ = off;
                    return Err(SyntaxError::new(
                        "bytes can only contain ASCII literal characters",
                        sspan,
                    ));
                }
                bytes.extend(decode(tok.body, tok.raw, true, tok.body_at)?);
            } else {
                kinds.0 = true;
                if tok.fstring {
                    any_f = true;
                    self.fstring(tok.body, tok.body_at, tok.raw, 1, &mut parts)?;
                } else {
                    push_literal(&mut parts, &decode_str(tok.body, tok.raw, tok.body_at)?);
                }
            }
            if kinds.0 && kinds.1 {
                return Err(SyntaxError::new(
                    "cannot mix bytes and nonbytes literals",
                    span,
                ));
            }
        }
        let kind = if kinds.1 {
            ExprKind::Constant(Constant::Bytes(Rc::from(bytes)))
        } else if any_f {
            ExprKind::JoinedStr(parts)
        } else {
            let text = match parts.pop() {
                Some(FStringPart::Literal(t)) => t,
                _ => Rc::from(""),
            };
            ExprKind::Constant(Constant::Str(self.interned(text)))
        };
        Ok(Expr { kind, span })
    }

    fn interned(&self, text: Rc<str>) -> Rc<String> {
        intern_constant(text, &mut self.strings.borrow_mut())
    }

    /// Splits an f-string body (source offset `at`) into `parts`. `depth` is
    /// 1 for the string itself and 2 inside a format spec.
    fn fstring(
        &self,
        body: &str,
        at: usize,
        raw: bool,
        depth: u32,
        parts: &mut Vec<FStringPart>,
    ) -> R<()> {
        let b = body.as_bytes();
        let mut lit_start = 0;
        let mut lit = String::new();
        let mut i = 0;
        let flush =
            |lit: &mut String, from: usize, to: usize, parts: &mut Vec<FStringPart>| -> R<()> {
                let piece = &body[from..to];
                lit.push_str(&decode_str(piece, raw, at + from)?);
                push_literal(parts, lit);
                lit.clear();
                Ok(())
            };
        while i < b.len() {
            match b[i] {
                b'{' if b.get(i + 1) == Some(&b'{') => {
                    flush(&mut lit, lit_start, i + 1, parts)?;
                    i += 2;
                    lit_start = i;
                }
                b'}' if b.get(i + 1) == Some(&b'}') => {
                    flush(&mut lit, lit_start, i + 1, parts)?;
                    i += 2;
                    lit_start = i;
                }
                b'}' => {
                    return Err(SyntaxError::new(
                        "f-string: single '}' is not allowed",
                        Span::new(at + i, at + i + 1),
                    ));
                }
                b'{' => {
                    flush(&mut lit, lit_start, i, parts)?;
                    i = self.field(body, at, i, raw, depth, parts)?;
                    lit_start = i;
                }
                b'\\' if !raw => {
                    if b.get(i + 1) == Some(&b'N') && b.get(i + 2) == Some(&b'{') {
                        // `\N{NAME}`: its braces are not a replacement field;
                        // the literal's decoder reads (or rejects) the name.
                        i = body[i..].find('}').map_or(b.len(), |k| i + k + 1);
                        continue;
                    }
                    // Skip the escaped char, unless it is a brace.
                    i += if matches!(b.get(i + 1), Some(b'{' | b'}') | None) {
                        1
                    } else {
                        2
                    };
                }
                _ => i += 1,
            }
        }
        flush(&mut lit, lit_start, b.len().min(body.len()), parts)
    }

    /// One replacement field starting at `body[open] == '{'`; returns the
    /// offset after its closing '}'.
    fn field(
        &self,
        body: &str,
        at: usize,
        open: usize,
        raw: bool,
        depth: u32,
        parts: &mut Vec<FStringPart>,
    ) -> R<usize> {
        let b = body.as_bytes();
        if depth > 2 {
            return Err(SyntaxError::new(
                "f-string: expressions nested too deeply",
                Span::new(at + open, at + open + 1),
            ));
        }
        let start = open + 1;
        let mut i = start;
        let mut nest = 0u32;
        let mut quote: Option<(u8, bool)> = None;
        let expecting =
            |i: usize| SyntaxError::new("f-string: expecting '}'", Span::new(at + i, at + i + 1));
        // Find where the expression ends.
        loop {
            let Some(&c) = b.get(i) else {
                return Err(expecting(i));
            };
            if let Some((q, triple)) = quote {
                if c == b'\\' {
                    return Err(SyntaxError::new(
                        "f-string expression part cannot include a backslash",
                        Span::new(at + i, at + i + 1),
                    ));
                }
                if c == q {
                    if !triple {
                        quote = None;
                    } else if b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
                        quote = None;
                        i += 2;
                    }
                }
                i += 1;
                continue;
            }
            match c {
                b'\\' => {
                    return Err(SyntaxError::new(
                        "f-string expression part cannot include a backslash",
                        Span::new(at + i, at + i + 1),
                    ))
                }
                b'#' => {
                    return Err(SyntaxError::new(
                        "f-string expression part cannot include '#'",
                        Span::new(at + i, at + i + 1),
                    ))
                }
                b'\'' | b'"' => {
                    let triple = b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
                    quote = Some((c, triple));
                    i += if triple { 3 } else { 1 };
                    continue;
                }
                b'(' | b'[' | b'{' => nest += 1,
                b')' | b']' | b'}' if nest > 0 => nest -= 1,
                b'}' => break,
                b')' | b']' => {
                    return Err(SyntaxError::new(
                        format!("f-string: unmatched '{}'", c as char),
                        Span::new(at + i, at + i + 1),
                    ))
                }
                b'=' | b'!' | b'<' | b'>' if b.get(i + 1) == Some(&b'=') => {
                    i += 2;
                    continue;
                }
                b'!' | b':' | b'=' if nest == 0 => break,
                _ => {}
            }
            i += 1;
        }
        let expr_end = i;
        let text = &body[start..expr_end];
        if text.trim().is_empty() {
            return Err(SyntaxError::new(
                "f-string: empty expression not allowed",
                Span::new(at + i, at + i + 1),
            ));
        }
        let mut debug = None;
        if b.get(i) == Some(&b'=') {
            i += 1;
            while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                i += 1;
            }
            debug = Some(Rc::from(&body[start..i]));
        }
        let mut conversion = None;
        if b.get(i) == Some(&b'!') {
            let c = b.get(i + 1).copied();
            match c {
                Some(c @ (b's' | b'r' | b'a')) if matches!(b.get(i + 2), Some(b':' | b'}')) => {
                    conversion = Some(c as char);
                    i += 2;
                }
                Some(b'}' | b':') | None => {
                    return Err(SyntaxError::new(
                        "f-string: missing conversion character",
                        Span::new(at + i, at + i + 1),
                    ))
                }
                _ => {
                    return Err(SyntaxError::new(
                        "f-string: invalid conversion character: expected 's', 'r', or 'a'",
                        Span::new(at + i + 1, at + i + 2),
                    ))
                }
            }
        }
        let mut format_spec = None;
        if b.get(i) == Some(&b':') {
            // The spec runs to the matching '}' (fields may nest one level).
            let spec_start = i + 1;
            let mut j = spec_start;
            let mut nest = 0u32;
            while let Some(&c) = b.get(j) {
                match c {
                    b'{' => nest += 1,
                    b'}' if nest == 0 => break,
                    b'}' => nest -= 1,
                    _ => {}
                }
                j += 1;
            }
            let mut spec = Vec::new();
            self.fstring(
                &body[spec_start..j],
                at + spec_start,
                raw,
                depth + 1,
                &mut spec,
            )?;
            format_spec = Some(spec);
            i = j;
        }
        if b.get(i) != Some(&b'}') {
            return Err(expecting(i));
        }
        i += 1;
        if debug.is_some() && conversion.is_none() && format_spec.is_none() {
            conversion = Some('r');
        }
        let expr = self.field_expr(text, at + start)?;
        parts.push(FStringPart::Expr {
            expr: Box::new(expr),
            debug,
            conversion,
            format_spec,
        });
        Ok(i)
    }

    /// Parses the expression of a replacement field at source offset `at`.
    fn field_expr(&self, text: &str, at: usize) -> R<Expr> {
        // CPython parses the field as if parenthesized: newlines are spaces.
        let flat: String = text
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        let pairs = DistParser::parse(Rule::fstring_expr, &flat).map_err(|_| {
            let e = super::parse_detailed(Rule::fstring_expr, &flat);
            super::errors::classify_fragment(&flat, at, &e, "f-string: ")
        })?;
        let sub = Lowerer {
            src: self.src,
            map: Map::Offset(at),
            scopes: self.scopes,
            strings: self.strings,
            async_def: std::cell::Cell::new(false),
        };
        let mut inner = pairs.flat_map(|p| p.into_inner());
        let e = inner.find(|p| p.as_rule() != Rule::EOI).ok_or_else(|| {
            SyntaxError::new(
                "f-string: empty expression not allowed",
                Span::new(at, at + 1),
            )
        })?;
        sub.value(e)
    }
}

/// The object of a string constant: CPython interns strings of name
/// characters everywhere (across REPL inputs too) and shares equal
/// constants within a compilation (`local`: that compilation's table).
/// The lowering and the reader of precompiled modules both go through here,
/// so a module read back shares its constants as the parsed one did.
pub(crate) fn intern_constant(
    text: Rc<str>,
    local: &mut HashMap<Rc<str>, Rc<String>>,
) -> Rc<String> {
    let share = |t: &mut HashMap<Rc<str>, Rc<String>>| {
        t.entry(text.clone())
            .or_insert_with(|| Rc::new(text.to_string()))
            .clone()
    };
    if text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        INTERNED.with(|t| share(&mut t.borrow_mut()))
    } else {
        share(local)
    }
}

thread_local! {
    /// Name-like string constants, shared by every compilation on the thread.
    static INTERNED: RefCell<HashMap<Rc<str>, Rc<String>>> = RefCell::new(HashMap::new());
}

/// Parses a number token; errors carry CPython's message and the offset of
/// the offending char in the token (0: the whole token).
pub(super) fn number(text: &str) -> Result<Constant, (String, usize)> {
    let lower = text.to_ascii_lowercase();
    if let Some(stripped) = lower.strip_suffix('j') {
        // An imaginary literal: its digits read as a float (`1j`, `2.5e3j`;
        // `0x1j` is no literal).
        let value = match number(stripped) {
            Ok(Constant::Int(_) | Constant::Float(_))
                if !stripped.starts_with("0x")
                    && !stripped.starts_with("0o")
                    && !stripped.starts_with("0b") =>
            {
                stripped.replace('_', "").parse::<f64>().ok()
            }
            _ => None,
        };
        if let Some(x) = value {
            return Ok(Constant::Imaginary(x));
        }
    }
    let radix = match lower.get(..2) {
        Some("0x") => Some((16, "hexadecimal")),
        Some("0o") => Some((8, "octal")),
        Some("0b") => Some((2, "binary")),
        _ => None,
    };
    if let Some((radix, name)) = radix {
        let digits = &lower[2..];
        let mut clean = String::new();
        let mut prev_digit = true; // `0x_1` is allowed
        for (k, c) in digits.char_indices() {
            if c == '_' {
                if !prev_digit {
                    return Err((format!("invalid {name} literal"), 2 + k));
                }
                prev_digit = false;
                continue;
            }
            if !c.is_digit(radix) {
                if c.is_ascii_digit() {
                    return Err((format!("invalid digit '{c}' in {name} literal"), 2 + k));
                }
                return Err((format!("invalid {name} literal"), 2 + k));
            }
            prev_digit = true;
            clean.push(c);
        }
        if clean.is_empty() || !prev_digit {
            return Err((format!("invalid {name} literal"), text.len()));
        }
        return Ok(int_constant(&clean, radix));
    }
    // Decimal: digitpart ['.' [digitpart]] [exponent], or '.' digitpart [exponent].
    let b = lower.as_bytes();
    let mut i = 0;
    let digitpart = |i: &mut usize| -> Result<bool, usize> {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
            if *i < b.len() && b[*i] == b'_' {
                if *i + 1 < b.len() && b[*i + 1].is_ascii_digit() {
                    *i += 1;
                } else {
                    return Err(*i);
                }
            }
        }
        Ok(*i > start)
    };
    let invalid = |k: usize| ("invalid decimal literal".to_string(), k);
    let int_part = digitpart(&mut i).map_err(invalid)?;
    let mut is_float = false;
    if i < b.len() && b[i] == b'.' {
        is_float = true;
        i += 1;
        let frac = digitpart(&mut i).map_err(invalid)?;
        if !int_part && !frac {
            return Err(invalid(0));
        }
    }
    if i < b.len() && b[i] == b'e' {
        is_float = true;
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if !digitpart(&mut i).map_err(invalid)? {
            return Err(invalid(0));
        }
    }
    if i != b.len() || (!int_part && !is_float) {
        return Err(invalid(i.min(text.len().saturating_sub(1))));
    }
    let clean: String = lower.chars().filter(|&c| c != '_').collect();
    if is_float {
        return clean
            .parse::<f64>()
            .map(Constant::Float)
            .map_err(|_| invalid(0));
    }
    if clean.len() > 1 && clean.starts_with('0') && clean.bytes().any(|c| c != b'0') {
        return Err((
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers".to_string(),
            0,
        ));
    }
    Ok(int_constant(&clean, 10))
}

/// The constant of an int literal's digits (validated): inline when it
/// fits in 64 bits. Literals have no digit limit (CPython's applies to
/// `int(str)` and `str(int)` only).
fn int_constant(digits: &str, radix: u32) -> Constant {
    match i64::from_str_radix(digits, radix) {
        Ok(i) => Constant::Int(i),
        Err(_) => match num_bigint::BigInt::parse_bytes(digits.as_bytes(), radix) {
            Some(n) => Constant::Long(Rc::new(n)),
            None => Constant::Int(0),
        },
    }
}
