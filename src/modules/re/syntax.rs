//! Python's regular-expression syntax translated to fancy-regex's: one pass
//! over the pattern that checks what CPython's `sre_parse` checks (with its
//! messages and positions) and rewrites what differs: `\Z` (end of text),
//! `$` (end or before a final newline), octal escapes, `{,n}`, literal `{`,
//! `(?P=name)`, `(?#...)`, VERBOSE whitespace and comments, the ASCII
//! classes, and `[` / `&&` / `~~` inside sets (set operators in regex-syntax).
//! Group numbering is left unchanged, so group `n` here is group `n` there.

use std::fmt::Write;

/// `re.IGNORECASE`.
pub const I: i64 = 2;
/// `re.LOCALE`.
pub const L: i64 = 4;
/// `re.MULTILINE`.
pub const M: i64 = 8;
/// `re.DOTALL`.
pub const S: i64 = 16;
/// `re.UNICODE`.
pub const U: i64 = 32;
/// `re.VERBOSE`.
pub const X: i64 = 64;
/// `re.DEBUG`.
pub const DEBUG: i64 = 128;
/// `re.ASCII`.
pub const A: i64 = 256;

/// A translated pattern.
pub struct Translated {
    /// The fancy-regex source.
    pub source: String,
    /// The flags, with the inline global flags and `re.UNICODE` added.
    pub flags: i64,
    /// The number of capturing groups.
    pub groups: usize,
    /// Group names and numbers, in definition order.
    pub names: Vec<(String, usize)>,
    /// For each group (index 0 = group 1), where its `)` is in the pattern
    /// (which group closed last decides `lastindex`).
    pub close_at: Vec<usize>,
}

/// A pattern error: CPython's message and the position (in characters).
pub struct SyntaxErr {
    /// The message without the position.
    pub msg: String,
    /// The position in the pattern.
    pub pos: usize,
}

type Res<T> = Result<T, SyntaxErr>;

/// `SyntaxErr::pos` of an error CPython raises as ValueError (bad flags).
pub const VALUE_ERROR: usize = usize::MAX;
/// `SyntaxErr::pos` of an `re.error` without a position.
pub const NO_POS: usize = usize::MAX - 1;

fn err<T>(msg: impl Into<String>, pos: usize) -> Res<T> {
    Err(SyntaxErr {
        msg: msg.into(),
        pos,
    })
}

fn flag_of(c: char) -> Option<i64> {
    Some(match c {
        'i' => I,
        'L' => L,
        'm' => M,
        's' => S,
        'u' => U,
        'x' => X,
        'a' => A,
        _ => return None,
    })
}

/// Writes a literal character so that neither regex-syntax nor fancy-regex
/// reads it as syntax.
fn lit(out: &mut String, c: char) {
    if c.is_alphanumeric() || c == '_' {
        out.push(c);
    } else {
        let _ = write!(out, "\\x{{{:x}}}", c as u32);
    }
}

/// What an escape outside or inside a set stands for.
enum Esc {
    /// One character.
    Char(char),
    /// A class (`\d`) written in fancy-regex syntax, usable in a set when `in_set`.
    Class(String),
    /// Something else already written (anchors, backreferences).
    Other(String, bool),
}

struct Parser<'a> {
    p: &'a [char],
    i: usize,
    flags: i64,
    out: String,
    groups: usize,
    names: Vec<(String, usize)>,
    close_at: Vec<usize>,
    open: Vec<(usize, Option<usize>)>,
}

/// Translates a Python pattern with the given flags.
pub fn translate(pattern: &str, flags: i64) -> Res<Translated> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut ps = Parser {
        p: &chars,
        i: 0,
        flags,
        out: String::new(),
        groups: 0,
        names: Vec::new(),
        close_at: Vec::new(),
        open: Vec::new(),
    };
    ps.global_flags()?;
    if ps.flags & A != 0 && ps.flags & U != 0 {
        return err("ASCII and UNICODE flags are incompatible", VALUE_ERROR);
    }
    if ps.flags & DEBUG != 0 {
        return err("re: the DEBUG flag is not supported", NO_POS);
    }
    if ps.flags & L != 0 {
        return err("cannot use LOCALE flag with a str pattern", VALUE_ERROR);
    }
    if ps.flags & A == 0 {
        ps.flags |= U;
    }
    ps.body()?;
    let mut prefix = String::new();
    for (f, c) in [(I, 'i'), (M, 'm'), (S, 's')] {
        if ps.flags & f != 0 {
            prefix.push(c);
        }
    }
    let source = if prefix.is_empty() {
        ps.out
    } else {
        format!("(?{prefix}){}", ps.out)
    };
    Ok(Translated {
        source,
        flags: ps.flags,
        groups: ps.groups,
        names: ps.names,
        close_at: ps.close_at,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.p.get(self.i).copied()
    }

    fn at(&self, k: usize) -> Option<char> {
        self.p.get(self.i + k).copied()
    }

    /// Inline global flags: `(?aiLmsux)` at the very start only (3.11).
    fn global_flags(&mut self) -> Res<()> {
        while self.peek() == Some('(') && self.at(1) == Some('?') {
            let mut j = self.i + 2;
            let mut f = 0;
            while let Some(v) = self.p.get(j).and_then(|c| flag_of(*c)) {
                f |= v;
                j += 1;
            }
            if j == self.i + 2 || self.p.get(j) != Some(&')') {
                break;
            }
            self.flags |= f;
            self.i = j + 1;
        }
        Ok(())
    }

    fn verbose(&self) -> bool {
        self.flags & X != 0
    }

    fn body(&mut self) -> Res<()> {
        // Whether the last item can take a quantifier / was a quantifier.
        let mut repeatable = false;
        let mut after_repeat = false;
        while let Some(c) = self.peek() {
            let start = self.i;
            if self.verbose() {
                if c.is_whitespace() {
                    self.i += 1;
                    continue;
                }
                if c == '#' {
                    while let Some(c) = self.peek() {
                        self.i += 1;
                        if c == '\n' {
                            break;
                        }
                    }
                    continue;
                }
            }
            match c {
                '*' | '+' | '?' | '{' => {
                    let q = if c == '{' {
                        match self.braces()? {
                            Some(q) => q,
                            None => {
                                // Not a quantifier: a literal brace.
                                self.i += 1;
                                lit(&mut self.out, '{');
                                repeatable = true;
                                after_repeat = false;
                                continue;
                            }
                        }
                    } else {
                        self.i += 1;
                        c.to_string()
                    };
                    if after_repeat {
                        return err("multiple repeat", start);
                    }
                    if !repeatable {
                        return err("nothing to repeat", start);
                    }
                    self.out.push_str(&q);
                    if let Some(m @ ('?' | '+')) = self.peek() {
                        self.out.push(m);
                        self.i += 1;
                    }
                    after_repeat = true;
                    repeatable = false;
                    continue;
                }
                '(' => {
                    repeatable = self.open_group()?;
                }
                ')' => {
                    let Some((_, g)) = self.open.pop() else {
                        return err("unbalanced parenthesis", start);
                    };
                    if let Some(g) = g {
                        self.close_at[g - 1] = start;
                    }
                    self.out.push(')');
                    self.i += 1;
                    repeatable = true;
                }
                '[' => {
                    self.set()?;
                    repeatable = true;
                }
                '|' | '^' => {
                    self.out.push(c);
                    self.i += 1;
                    repeatable = false;
                }
                '$' => {
                    // Python's `$` (without MULTILINE) also matches before a
                    // newline that ends the string.
                    if self.flags & M != 0 {
                        self.out.push('$');
                    } else {
                        self.out.push_str("(?=\\n?\\z)");
                    }
                    self.i += 1;
                    repeatable = false;
                }
                '.' => {
                    self.out.push('.');
                    self.i += 1;
                    repeatable = true;
                }
                '\\' => {
                    repeatable = match self.escape(false)? {
                        Esc::Char(c) => {
                            lit(&mut self.out, c);
                            true
                        }
                        Esc::Class(s) => {
                            self.out.push_str(&s);
                            true
                        }
                        Esc::Other(s, rep) => {
                            self.out.push_str(&s);
                            rep
                        }
                    };
                }
                c => {
                    lit(&mut self.out, c);
                    self.i += 1;
                    repeatable = true;
                }
            }
            after_repeat = false;
        }
        if let Some((pos, _)) = self.open.last() {
            return err("missing ), unterminated subpattern", *pos);
        }
        Ok(())
    }

    /// `{m}`, `{m,}`, `{,n}`, `{m,n}` at `self.i` as a fancy-regex
    /// quantifier (consumed), or None when the brace is a literal.
    fn braces(&mut self) -> Res<Option<String>> {
        let start = self.i;
        let mut j = self.i + 1;
        let num = |j: &mut usize| {
            let s = *j;
            while self.p.get(*j).is_some_and(|c| c.is_ascii_digit()) {
                *j += 1;
            }
            (s < *j).then(|| self.p[s..*j].iter().collect::<String>())
        };
        let lo = num(&mut j);
        let mut hi = lo.clone();
        let mut comma = false;
        if self.p.get(j) == Some(&',') {
            comma = true;
            j += 1;
            hi = num(&mut j);
        }
        if self.p.get(j) != Some(&'}') || (!comma && lo.is_none()) {
            return Ok(None);
        }
        let parse = |s: &Option<String>| -> Res<Option<u64>> {
            match s {
                None => Ok(None),
                Some(s) => match s.parse::<u64>() {
                    Ok(v) if v < u32::MAX as u64 => Ok(Some(v)),
                    _ => err("the repetition number is too large", start + 1),
                },
            }
        };
        let (lo, hi) = (parse(&lo)?, parse(&hi)?);
        if let (Some(a), Some(b)) = (lo, hi) {
            if b < a {
                return err("min repeat greater than max repeat", start + 1);
            }
        }
        self.i = j + 1;
        let lo = lo.unwrap_or(0);
        Ok(Some(match (comma, hi) {
            (false, _) => format!("{{{lo}}}"),
            (true, None) => format!("{{{lo},}}"),
            (true, Some(h)) => format!("{{{lo},{h}}}"),
        }))
    }

    /// A group opening at `self.i`; returns whether what it writes can be repeated.
    fn open_group(&mut self) -> Res<bool> {
        let start = self.i;
        if self.at(1) != Some('?') {
            self.i += 1;
            self.groups += 1;
            self.close_at.push(0);
            self.open.push((start, Some(self.groups)));
            self.out.push('(');
            return Ok(false);
        }
        self.i += 2;
        let Some(c) = self.peek() else {
            return err("unexpected end of pattern", self.i);
        };
        match c {
            ':' | '=' | '!' | '>' => {
                self.i += 1;
                self.out.push_str("(?");
                self.out.push(c);
                self.open.push((start, None));
            }
            '<' => match self.at(1) {
                Some(d @ ('=' | '!')) => {
                    self.i += 2;
                    self.out.push_str("(?<");
                    self.out.push(d);
                    self.open.push((start, None));
                }
                Some(d) => return err(format!("unknown extension ?<{d}"), start + 1),
                None => return err("unexpected end of pattern", self.i + 1),
            },
            '#' => {
                while let Some(c) = self.peek() {
                    self.i += 1;
                    if c == ')' {
                        return Ok(false);
                    }
                }
                return err("missing ), unterminated comment", start);
            }
            'P' => match self.at(1) {
                Some('<') => {
                    self.i += 2;
                    let name = self.name('>', "missing >, unterminated name")?;
                    self.groups += 1;
                    if let Some((_, old)) = self.names.iter().find(|(n, _)| *n == name) {
                        return err(
                            format!(
                                "redefinition of group name '{name}' as group {}; was group {old}",
                                self.groups
                            ),
                            start + 4,
                        );
                    }
                    self.names.push((name.clone(), self.groups));
                    self.close_at.push(0);
                    self.open.push((start, Some(self.groups)));
                    let _ = write!(self.out, "(?P<{name}>");
                }
                Some('=') => {
                    self.i += 2;
                    let name = self.name(')', "missing ), unterminated name")?;
                    let Some(&(_, g)) = self.names.iter().find(|(n, _)| *n == name) else {
                        return err(format!("unknown group name '{name}'"), start + 4);
                    };
                    self.backref(g, start + 4)?;
                    return Ok(true);
                }
                Some(d) => return err(format!("unknown extension ?P{d}"), start + 1),
                None => return err("unexpected end of pattern", self.i + 1),
            },
            '(' => {
                // A conditional on a group: `(?(1)yes|no)`, `(?(name)yes|no)`.
                self.i += 1;
                let name = self.name(')', "missing ), unterminated name")?;
                let g = match name.parse::<usize>() {
                    Ok(0) => return err("bad group number", start + 3),
                    Ok(g) if g > self.groups => {
                        return err(format!("invalid group reference {g}"), start + 3)
                    }
                    Ok(g) => g,
                    Err(_) => match self.names.iter().find(|(n, _)| *n == name) {
                        Some(&(_, g)) => g,
                        None => return err(format!("unknown group name '{name}'"), start + 3),
                    },
                };
                let _ = write!(self.out, "(?({g})");
                self.open.push((start, None));
            }
            _ if flag_of(c).is_some() || c == '-' => {
                // Scoped flags `(?i:...)`, `(?-i:...)`.
                let mut on = String::new();
                let mut off = String::new();
                let mut neg = false;
                loop {
                    match self.peek() {
                        Some('-') if !neg => neg = true,
                        Some(f) if flag_of(f).is_some() => {
                            if "aLu".contains(f) && neg {
                                return err(
                                    "bad inline flags: cannot turn off flags 'a', 'u' and 'L'",
                                    self.i,
                                );
                            }
                            if "imsx".contains(f) {
                                if neg {
                                    off.push(f)
                                } else {
                                    on.push(f)
                                }
                            } else if f != 'u' {
                                return err(format!("re: the inline flag '{f}' is only supported for the whole pattern"), self.i);
                            }
                        }
                        Some(':') => break,
                        Some(')') => {
                            return err("global flags not at the start of the expression", start)
                        }
                        Some(_) => return err("unknown flag", self.i),
                        None => return err("missing -, : or )", self.i),
                    }
                    self.i += 1;
                }
                self.i += 1;
                if on.contains('x') || off.contains('x') {
                    return err("re: a scoped VERBOSE flag (?x:...) is not supported", start);
                }
                let _ = write!(
                    self.out,
                    "(?{on}{}{off}:",
                    if off.is_empty() { "" } else { "-" }
                );
                self.open.push((start, None));
            }
            c => return err(format!("unknown extension ?{c}"), start + 1),
        }
        Ok(false)
    }

    /// A group name up to `end` (consumed), checked to be an identifier.
    fn name(&mut self, end: char, missing: &str) -> Res<String> {
        let s = self.i;
        while let Some(c) = self.peek() {
            if c == end {
                let name: String = self.p[s..self.i].iter().collect();
                self.i += 1;
                if name.is_empty() {
                    return err("missing group name", s);
                }
                let ident = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                let number = end == ')' && name.chars().all(|c| c.is_ascii_digit());
                if !(ident || number) {
                    return err(format!("bad character in group name '{name}'"), s);
                }
                return Ok(name);
            }
            self.i += 1;
        }
        if self.i == s {
            return err("missing group name", s);
        }
        err(missing, s)
    }

    fn backref(&mut self, g: usize, pos: usize) -> Res<()> {
        if self.open.iter().any(|(_, o)| *o == Some(g)) {
            return err("cannot refer to an open group", pos);
        }
        let _ = write!(self.out, "(?:\\{g})");
        Ok(())
    }

    /// A character set `[...]` at `self.i`.
    fn set(&mut self) -> Res<()> {
        let start = self.i;
        self.i += 1;
        let mut out = String::from("[");
        if self.peek() == Some('^') {
            out.push('^');
            self.i += 1;
        }
        let first = self.i;
        loop {
            let Some(c) = self.peek() else {
                return err("unterminated character set", start);
            };
            if c == ']' && self.i > first {
                self.i += 1;
                break;
            }
            let item_at = self.i;
            let lo = if c == '\\' {
                match self.escape(true)? {
                    Esc::Char(c) => c,
                    Esc::Class(s) | Esc::Other(s, _) => {
                        out.push_str(&s);
                        continue;
                    }
                }
            } else {
                self.i += 1;
                c
            };
            if self.peek() == Some('-') && self.at(1).is_some_and(|c| c != ']') {
                self.i += 1;
                let hi = if self.peek() == Some('\\') {
                    match self.escape(true)? {
                        Esc::Char(c) => c,
                        _ => {
                            let t: String = self.p[item_at..self.i].iter().collect();
                            return err(format!("bad character range {t}"), item_at);
                        }
                    }
                } else {
                    let h = self.peek().unwrap_or(']');
                    self.i += 1;
                    h
                };
                if hi < lo {
                    let t: String = self.p[item_at..self.i].iter().collect();
                    return err(format!("bad character range {t}"), item_at);
                }
                lit(&mut out, lo);
                out.push('-');
                lit(&mut out, hi);
            } else {
                lit(&mut out, lo);
            }
        }
        out.push(']');
        self.out.push_str(&out);
        Ok(())
    }

    /// An escape at `self.i` (the backslash), consumed.
    fn escape(&mut self, in_set: bool) -> Res<Esc> {
        let start = self.i;
        let Some(c) = self.at(1) else {
            return err("bad escape (end of pattern)", start);
        };
        self.i += 2;
        let ascii = self.flags & A != 0;
        let class = |s: &str| Esc::Class(s.to_string());
        Ok(match c {
            'd' if ascii => class(if in_set { "0-9" } else { "[0-9]" }),
            'D' if ascii => class("[^0-9]"),
            'w' if ascii => class(if in_set { "0-9A-Za-z_" } else { "[0-9A-Za-z_]" }),
            'W' if ascii => class("[^0-9A-Za-z_]"),
            's' if ascii => class(if in_set {
                "\\t\\n\\x0B\\f\\r "
            } else {
                "[\\t\\n\\x0B\\f\\r ]"
            }),
            'S' if ascii => class("[^\\t\\n\\x0B\\f\\r ]"),
            // Python's `\w` is `str.isalnum()` or `_` (no marks, all
            // numbers); its `\s` adds the separators \x1c-\x1f.
            'w' => class(if in_set {
                "\\p{L}\\p{N}_"
            } else {
                "[\\p{L}\\p{N}_]"
            }),
            'W' => class("[^\\p{L}\\p{N}_]"),
            's' => class(if in_set {
                "\\s\\x1C-\\x1F"
            } else {
                "[\\s\\x1C-\\x1F]"
            }),
            'S' => class("[^\\s\\x1C-\\x1F]"),
            'd' | 'D' => Esc::Class(format!("\\{c}")),
            'b' if in_set => Esc::Char('\x08'),
            'A' | 'b' | 'B' | 'Z' if in_set => return err(format!("bad escape \\{c}"), start),
            'A' => Esc::Other("\\A".into(), false),
            'Z' => Esc::Other("\\z".into(), false),
            'b' if ascii => Esc::Other("(?-u:\\b)".into(), false),
            'B' if ascii => Esc::Other("(?-u:\\B)".into(), false),
            'b' | 'B' => Esc::Other(format!("\\{c}"), false),
            'a' => Esc::Char('\x07'),
            'f' => Esc::Char('\x0c'),
            'n' => Esc::Char('\n'),
            'r' => Esc::Char('\r'),
            't' => Esc::Char('\t'),
            'v' => Esc::Char('\x0b'),
            'x' | 'u' | 'U' => {
                let n = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let digits: String = self.p[self.i..]
                    .iter()
                    .take(n)
                    .take_while(|c| c.is_ascii_hexdigit())
                    .collect();
                if digits.len() < n {
                    let t: String = self.p[start..self.i + digits.len()].iter().collect();
                    return err(format!("incomplete escape {t}"), start);
                }
                self.i += n;
                let v = u32::from_str_radix(&digits, 16).unwrap_or(u32::MAX);
                match char::from_u32(v) {
                    Some(ch) => Esc::Char(ch),
                    None => {
                        let t: String = self.p[start..self.i].iter().collect();
                        return err(format!("bad escape {t}"), start);
                    }
                }
            }
            'N' => return err("re: \\N{...} escapes are not supported", start),
            '0'..='7' if in_set || c == '0' || self.octal3() => self.octal(start)?,
            '1'..='9' => {
                let mut n = c.to_digit(10).unwrap_or(0) as usize;
                if let Some(d) = self.peek().and_then(|d| d.to_digit(10)) {
                    n = n * 10 + d as usize;
                    self.i += 1;
                }
                if n > self.groups {
                    return err(format!("invalid group reference {n}"), start + 1);
                }
                let saved = std::mem::take(&mut self.out);
                let r = self.backref(n, start + 1);
                let written = std::mem::replace(&mut self.out, saved);
                r?;
                Esc::Other(written, true)
            }
            c if c.is_ascii_alphanumeric() => return err(format!("bad escape \\{c}"), start),
            c => Esc::Char(c),
        })
    }

    /// Whether the digits after a backslash (already consumed: one) make a
    /// three-digit octal escape (`\101`) rather than a group reference.
    fn octal3(&self) -> bool {
        let oct = |c: Option<&char>| c.is_some_and(|c| ('0'..='7').contains(c));
        oct(self.p.get(self.i - 1)) && oct(self.p.get(self.i)) && oct(self.p.get(self.i + 1))
    }

    /// An octal escape whose first digit was consumed.
    fn octal(&mut self, start: usize) -> Res<Esc> {
        let mut v = self.p[self.i - 1].to_digit(8).unwrap_or(0);
        for _ in 0..2 {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    v = v * 8 + d;
                    self.i += 1;
                }
                None => break,
            }
        }
        if v > 0o377 {
            let t: String = self.p[start..self.i].iter().collect();
            return err(
                format!("octal escape value {t} outside of range 0-0o377"),
                start,
            );
        }
        Ok(Esc::Char(char::from_u32(v).unwrap_or('\0')))
    }
}

/// `re.escape`: a backslash before each character special in a pattern.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
