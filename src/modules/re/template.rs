//! Replacement templates of `re.sub` and `Match.expand` (`\1`,
//! `\g<name>`, escapes): parsed once per call as CPython parses them, then
//! expanded for each match.

use super::matchobj::MatchObj;
use super::pattern::Pattern;
use super::re_error;
use crate::value::{ExcType, PyErr, PyResult};

/// One piece of a replacement template.
pub enum Piece {
    /// Literal text.
    Lit(String),
    /// A group's text (empty when it did not take part).
    Group(usize),
}

/// Parses a replacement template (`\1`, `\g<name>`, `\g<0>`, `\n` …) as CPython does.
pub fn parse_template(pat: &Pattern, tpl: &str) -> PyResult<Vec<Piece>> {
    let c: Vec<char> = tpl.chars().collect();
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    let perr = |msg: String, pos: usize| re_error(&msg, Some(tpl), Some(pos));
    let group = |lit: &mut String, out: &mut Vec<Piece>, g: usize| {
        if !lit.is_empty() {
            out.push(Piece::Lit(std::mem::take(lit)));
        }
        out.push(Piece::Group(g));
    };
    while i < c.len() {
        if c[i] != '\\' {
            lit.push(c[i]);
            i += 1;
            continue;
        }
        let Some(&e) = c.get(i + 1) else {
            return Err(perr("bad escape (end of pattern)".into(), i));
        };
        match e {
            'g' => {
                if c.get(i + 2) != Some(&'<') {
                    return Err(perr("missing <".into(), i + 2));
                }
                let s = i + 3;
                let Some(len) = c[s..].iter().position(|x| *x == '>') else {
                    return Err(perr("missing >, unterminated name".into(), s));
                };
                let name: String = c[s..s + len].iter().collect();
                if name.is_empty() {
                    return Err(perr("missing group name".into(), s));
                }
                let g = if name.chars().all(|x| x.is_ascii_digit()) {
                    let g: usize = name.parse().unwrap_or(usize::MAX);
                    if g > pat.groups {
                        return Err(perr(format!("invalid group reference {name}"), s));
                    }
                    g
                } else if name
                    .chars()
                    .next()
                    .is_some_and(|x| x.is_alphabetic() || x == '_')
                    && name.chars().all(|x| x.is_alphanumeric() || x == '_')
                {
                    pat.group_index(&name).ok_or_else(|| {
                        PyErr::new(ExcType::IndexError, format!("unknown group name '{name}'"))
                    })?
                } else {
                    return Err(perr(format!("bad character in group name '{name}'"), s));
                };
                group(&mut lit, &mut out, g);
                i = s + len + 1;
            }
            '0'..='9' => {
                let oct = |k: usize| c.get(k).is_some_and(|x| ('0'..='7').contains(x));
                if e == '0' || (oct(i + 1) && oct(i + 2) && oct(i + 3)) {
                    let mut v = 0u32;
                    let mut j = i + 1;
                    while j < i + 4 && oct(j) {
                        v = v * 8 + c[j].to_digit(8).unwrap_or(0);
                        j += 1;
                    }
                    if v > 0o377 {
                        let t: String = c[i..j].iter().collect();
                        return Err(perr(
                            format!("octal escape value {t} outside of range 0-0o377"),
                            i,
                        ));
                    }
                    lit.push(char::from_u32(v).unwrap_or('\0'));
                    i = j;
                } else {
                    let mut j = i + 2;
                    if c.get(j).is_some_and(|x| x.is_ascii_digit()) {
                        j += 1;
                    }
                    let num: String = c[i + 1..j].iter().collect();
                    let g: usize = num.parse().unwrap_or(usize::MAX);
                    if g > pat.groups {
                        return Err(perr(format!("invalid group reference {num}"), i + 1));
                    }
                    group(&mut lit, &mut out, g);
                    i = j;
                }
            }
            'n' | 't' | 'r' | 'a' | 'f' | 'v' | 'b' | '\\' => {
                lit.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    'a' => '\x07',
                    'f' => '\x0c',
                    'v' => '\x0b',
                    'b' => '\x08',
                    _ => '\\',
                });
                i += 2;
            }
            e if e.is_ascii_alphanumeric() => {
                return Err(perr(format!("bad escape \\{e}"), i));
            }
            e => {
                lit.push('\\');
                lit.push(e);
                i += 2;
            }
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    Ok(out)
}

/// A template expanded for one match.
pub fn expand(m: &MatchObj, pieces: &[Piece]) -> String {
    let mut s = String::new();
    for p in pieces {
        match p {
            Piece::Lit(t) => s.push_str(t),
            Piece::Group(g) => {
                if let Some((a, b)) = m.spans[*g] {
                    s.push_str(m.text.slice(a, b));
                }
            }
        }
    }
    s
}
