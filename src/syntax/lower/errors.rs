//! Turning a pest failure into CPython's syntax error.
//!
//! pest reports the furthest offset any rule was tried at; like CPython's
//! "invalid syntax", that is where the offending token starts. Around that
//! token we recognise the situations for which CPython has a better message:
//! an unexpected indent, a missing block, a missing ':', a missing comma
//! inside brackets, Python 2's `print x`, invalid characters.

use pest::error::{Error, ErrorVariant, InputLocation};
use pest::Parser;

use super::stmt::indentation_error;
use crate::syntax::error::SyntaxError;
use crate::syntax::layout::{line_of, Layout, DEDENT, INDENT};
use crate::syntax::parser::{DistParser, Rule};
use crate::syntax::span::Span;

/// A token of the rewritten text, as far as error messages care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Name,
    Keyword,
    Number,
    Str,
    Open,
    Close,
    Op,
    Newline,
    Marker,
    Invalid,
    Eof,
}

/// The token at text offset `i` (after whitespace): its kind and range.
fn token_at(text: &str, mut i: usize) -> (Tok, usize, usize) {
    let b = text.as_bytes();
    while i < b.len() && matches!(b[i], b' ' | b'\t' | 0x0c) {
        i += 1;
    }
    let Some(&c) = b.get(i) else {
        return (Tok::Eof, b.len(), b.len());
    };
    let start = i;
    let word = |mut j: usize| {
        while j < b.len() {
            if b[j].is_ascii_alphanumeric() || b[j] == b'_' {
                j += 1;
            } else if b[j] >= 0x80 {
                match text[j..].chars().next() {
                    Some(ch) if ch.is_alphanumeric() => j += ch.len_utf8(),
                    _ => break,
                }
            } else {
                break;
            }
        }
        j
    };
    match c {
        b'\n' => (Tok::Newline, i, i + 1),
        INDENT | DEDENT => (Tok::Marker, i, i + 1),
        b'(' | b'[' | b'{' => (Tok::Open, i, i + 1),
        b')' | b']' | b'}' => (Tok::Close, i, i + 1),
        b'"' | b'\'' => (Tok::Str, i, string_end(b, i)),
        b'0'..=b'9' => (Tok::Number, i, word(i)),
        b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => (Tok::Number, i, word(i + 1)),
        _ if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
            if c >= 0x80 && !text[i..].chars().next().is_some_and(char::is_alphanumeric) {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                return (Tok::Invalid, i, i + len);
            }
            let end = word(i);
            if matches!(b.get(end), Some(b'"' | b'\''))
                && crate::syntax::layout::is_string_prefix(&b[i..end])
            {
                return (Tok::Str, i, string_end(b, end));
            }
            let kw = matches!(
                &text[start..end],
                "False"
                    | "None"
                    | "True"
                    | "and"
                    | "as"
                    | "assert"
                    | "async"
                    | "await"
                    | "break"
                    | "class"
                    | "continue"
                    | "def"
                    | "del"
                    | "elif"
                    | "else"
                    | "except"
                    | "finally"
                    | "for"
                    | "from"
                    | "global"
                    | "if"
                    | "import"
                    | "in"
                    | "is"
                    | "lambda"
                    | "nonlocal"
                    | "not"
                    | "or"
                    | "pass"
                    | "raise"
                    | "return"
                    | "try"
                    | "while"
                    | "with"
                    | "yield"
            );
            (if kw { Tok::Keyword } else { Tok::Name }, i, end)
        }
        _ => {
            const OPS3: [&str; 5] = ["**=", "//=", ">>=", "<<=", "..."];
            const OPS2: [&str; 21] = [
                "**", "//", "<<", ">>", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=", "*=", "/=",
                "%=", "&=", "|=", "^=", "@=", "<>", "..",
            ];
            let rest = &text[i..];
            let len = if OPS3.iter().any(|o| rest.starts_with(o)) {
                3
            } else if OPS2.iter().any(|o| rest.starts_with(o)) {
                2
            } else if b"+-*/%@&|^~<>=.,:;!".contains(&c) {
                1
            } else {
                let len = rest.chars().next().map_or(1, char::len_utf8);
                return (Tok::Invalid, i, i + len);
            };
            (Tok::Op, i, i + len)
        }
    }
}

/// The end of the string literal whose quote is at `q`.
fn string_end(b: &[u8], q: usize) -> usize {
    let c = b[q];
    let triple = b.get(q + 1) == Some(&c) && b.get(q + 2) == Some(&c);
    let mut j = q + if triple { 3 } else { 1 };
    while j < b.len() {
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == c && (!triple || (b.get(j + 1) == Some(&c) && b.get(j + 2) == Some(&c))) {
            return j + if triple { 3 } else { 1 };
        }
        j += 1;
    }
    b.len()
}

/// The tokens of `text[from..to]`.
fn tokens(text: &str, from: usize, to: usize) -> Vec<(Tok, usize, usize)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        let t = token_at(text, i);
        if t.0 == Tok::Eof || t.1 >= to {
            break;
        }
        out.push(t);
        i = t.2.max(i + 1);
    }
    out
}

fn starts_expr(t: Tok, text: &str, s: usize, e: usize) -> bool {
    match t {
        Tok::Name | Tok::Number | Tok::Str | Tok::Open => true,
        Tok::Keyword => matches!(&text[s..e], "True" | "False" | "None" | "not" | "lambda"),
        Tok::Op => matches!(&text[s..e], "~" | "..."),
        _ => false,
    }
}

fn ends_expr(t: Tok, text: &str, s: usize, e: usize) -> bool {
    match t {
        Tok::Name | Tok::Number | Tok::Str | Tok::Close => true,
        Tok::Keyword => matches!(&text[s..e], "True" | "False" | "None"),
        Tok::Op => &text[s..e] == "...",
        _ => false,
    }
}

/// The furthest offset pest reached (snapped back to the start of the token
/// it falls in), or a limit message.
fn failure(
    e: &Error<Rule>,
    base: usize,
    text: &str,
    line_start: impl Fn(usize) -> usize,
) -> Result<usize, String> {
    if let ErrorVariant::CustomError { message } = &e.variant {
        if message.contains("limit") {
            return Err(message.clone());
        }
    }
    let mut p = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    if let Some(a) = e.parse_attempts() {
        p = p.max(a.max_position);
    }
    let p = (base + p).min(text.len());
    let from = line_start(p);
    for (_, s, e) in tokens(text, from, p + 1) {
        if s <= p && p < e {
            return Ok(s);
        }
    }
    Ok(p)
}

/// Descriptions CPython uses in "expected an indented block after ...".
fn block_owner(word: &str) -> Option<String> {
    Some(match word {
        "if" | "elif" | "else" | "while" | "for" | "with" | "try" | "except" | "finally"
        | "match" | "case" => {
            format!("'{word}' statement")
        }
        "def" => "function definition".to_string(),
        "class" => "class definition".to_string(),
        _ => return None,
    })
}

/// The error for a failed parse of the whole file.
/// `e` is from parsing `layout.text[base..]`.
pub(super) fn classify(src: &str, layout: &Layout, e: &Error<Rule>, base: usize) -> SyntaxError {
    let text = layout.text.as_str();
    let sspan = |s: usize, e: usize| Span::new(layout.to_source(s), layout.to_source(e));
    let p = match failure(e, base, text, |t| layout.line_start(t)) {
        Ok(p) => p,
        Err(_) => {
            return SyntaxError::new(
                "expression is nested too deeply",
                Span::new(0, src.len().min(1)),
            )
        }
    };
    let (tok, ts, te) = token_at(text, p);
    let at_eof = text[ts..]
        .bytes()
        .all(|c| matches!(c, b' ' | b'\t' | b'\n' | 0x0c | DEDENT));
    let line = layout.line_start(ts);
    let prev = tokens(text, line, ts).last().copied();

    // A block header's NEWLINE, then no INDENT: "expected an indented block".
    let before = text[..ts].trim_end_matches([' ', '\t', '\x0c', '\x02']);
    if tok != Tok::Marker || text.as_bytes()[ts] == DEDENT {
        if let Some(nl) = before.strip_suffix('\n') {
            let hdr_line = layout.line_start(nl.len().saturating_sub(1));
            let hdr = tokens(text, hdr_line, nl.len());
            let last_colon = hdr.last().is_some_and(|t| &text[t.1..t.2] == ":");
            let first = hdr
                .iter()
                .find(|t| t.0 != Tok::Marker)
                .map(|t| &text[t.1..t.2]);
            if let (true, Some(owner)) = (last_colon, first.and_then(block_owner)) {
                let first_at = hdr
                    .iter()
                    .find(|t| t.0 != Tok::Marker)
                    .map_or(hdr_line, |t| t.1);
                let msg = format!(
                    "expected an indented block after {owner} on line {}",
                    line_of(src, layout.to_source(first_at))
                );
                if at_eof {
                    let end = layout.to_source(nl.len());
                    return indentation_error(msg, Span::new(end, end)).incomplete();
                }
                let (_, s2, e2) = token_at(text, ts + usize::from(tok == Tok::Marker));
                return indentation_error(msg, sspan(s2, e2));
            }
        }
    }
    if tok == Tok::Marker && text.as_bytes()[ts] == INDENT {
        let start = layout.to_source(ts);
        let line_begin = src[..start].rfind('\n').map_or(0, |i| i + 1);
        return indentation_error("unexpected indent", Span::new(line_begin, start));
    }
    if tok == Tok::Invalid && text.as_bytes()[ts] >= 0x80 {
        let ch = text[ts..].chars().next().unwrap_or('?');
        // CPython names a character it would not print by its code point only.
        let message = if crate::syntax::printable::is_printable(ch) {
            format!("invalid character '{ch}' (U+{:04X})", ch as u32)
        } else {
            format!("invalid non-printable character U+{:04X}", ch as u32)
        };
        return SyntaxError::new(message, sspan(ts, te));
    }

    // A compound statement header that is complete but for its ':'.
    if matches!(tok, Tok::Newline | Tok::Eof) {
        let header: String = text[line..ts]
            .chars()
            .map(|c| if c == '\x01' || c == '\x02' { ' ' } else { c })
            .collect();
        if DistParser::parse(Rule::header_nocolon, &header).is_ok() {
            return SyntaxError::new("expected ':'", sspan(ts, ts));
        }
        if at_eof && header.trim_start().starts_with('@') {
            return SyntaxError::new("invalid syntax", sspan(ts, te)).incomplete();
        }
    }

    // Python 2's print statement.
    let line_toks = tokens(text, line, ts);
    if let [(Tok::Name, s0, e0)] = line_toks.as_slice() {
        let word = &text[*s0..*e0];
        if (word == "print" || word == "exec") && starts_expr(tok, text, ts, te) {
            let end = text[ts..].find('\n').map_or(text.len(), |i| ts + i);
            let end = ts + text[ts..end].trim_end().len();
            return SyntaxError::new(
                format!("Missing parentheses in call to '{word}'. Did you mean {word}(...)?"),
                sspan(*s0, end),
            );
        }
    }

    // `if x = 1:`
    if tok == Tok::Op && &text[ts..te] == "=" {
        if let Some(&(Tok::Keyword, s0, e0)) = line_toks.first() {
            if matches!(&text[s0..e0], "if" | "elif" | "while") {
                return SyntaxError::new(
                    "invalid syntax. Maybe you meant '==' or ':=' instead of '='?",
                    sspan(line_toks.get(1).map_or(ts, |t| t.1), te),
                );
            }
        }
    }

    // Two expressions side by side inside brackets: a missing comma. Not in
    // a `case` clause's patterns, where CPython's parser has no such hint.
    let depth = line_toks.iter().fold(0i32, |d, t| match t.0 {
        Tok::Open => d + 1,
        Tok::Close => d - 1,
        _ => d,
    });
    let line_text = text[line..].split('\n').next().unwrap_or("");
    let case_clause = matches!(line_toks.first(), Some(&(Tok::Name, s0, e0)) if &text[s0..e0] == "case")
        && line_text.trim_end().ends_with(':');
    if depth > 0 && !case_clause {
        if let Some((pt, ps, pe)) = prev {
            if ends_expr(pt, text, ps, pe) && starts_expr(tok, text, ts, te) {
                let te = if tok == Tok::Open { ts + 1 } else { te };
                return SyntaxError::new(
                    "invalid syntax. Perhaps you forgot a comma?",
                    sspan(ps, te),
                );
            }
        }
    }

    let err = SyntaxError::new("invalid syntax", sspan(ts, te.max(ts)));
    if at_eof && tok == Tok::Eof {
        err.incomplete()
    } else {
        err
    }
}

/// The error for a failed parse of an f-string field (`text` starts at source offset `at`).
pub(super) fn classify_fragment(
    text: &str,
    at: usize,
    e: &Error<Rule>,
    prefix: &str,
) -> SyntaxError {
    let p = failure(e, 0, text, |_| 0).unwrap_or(0);
    let (tok, ts, te) = token_at(text, p);
    let sspan = Span::new(at + ts, at + te.max(ts));
    let prev = tokens(text, 0, ts).last().copied();
    if let Some((pt, ps, pe)) = prev {
        if ends_expr(pt, text, ps, pe) && starts_expr(tok, text, ts, te) {
            return SyntaxError::new(
                format!("{prefix}invalid syntax. Perhaps you forgot a comma?"),
                Span::new(at + ps, at + te),
            );
        }
    }
    SyntaxError::new(format!("{prefix}invalid syntax"), sspan)
}
