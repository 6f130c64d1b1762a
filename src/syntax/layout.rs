//! The layout pre-pass: Python's line structure, done before pest sees the text.
//!
//! It owns everything the tokenizer of CPython decides by looking at lines:
//! comments, blank lines, implicit joining inside brackets, backslash
//! continuations, indentation (INDENT/DEDENT, `TabError`), bracket matching,
//! unterminated strings, and the nesting limits that keep the parser's
//! recursion bounded. The grammar (`grammar/dist.pest`) then reads a text in
//! which every `\n` left is the end of a logical line and indentation changes
//! are marker bytes. Token-level syntax is left to the grammar.
//!
//! The rewritten text keeps every source byte at the same place except for the
//! inserted markers (and a final newline), whose positions are recorded so that
//! [`Layout::to_source`] maps offsets back exactly.

use super::error::{SyntaxError, SyntaxErrorKind};
use super::span::Span;

/// The INDENT marker byte.
pub(crate) const INDENT: u8 = 0x01;
/// The DEDENT marker byte.
pub(crate) const DEDENT: u8 = 0x02;

/// CPython's limit on bracket nesting (`too many nested parentheses`).
const MAX_BRACKETS: usize = 200;
/// CPython's limit on indentation levels (`too many levels of indentation`).
const MAX_INDENT: usize = 100;
/// Our limit on operator nesting within one expression. CPython stops near
/// 3000 with a RecursionError; the tree walker recurses per level, so we stop
/// earlier with a SyntaxError.
pub(crate) const MAX_NESTING: u32 = 1000;

/// The rewritten text and how to map its offsets back to the source.
pub(crate) struct Layout {
    /// What the grammar parses.
    pub text: String,
    /// Offsets in `text` of the bytes that are not in the source (sorted).
    inserted: Vec<u32>,
    /// Offsets in `text` where each logical line's first token starts (sorted).
    pub lines: Vec<u32>,
    /// The subset of `lines` at indentation level 0.
    pub top: Vec<u32>,
    /// Length of the source.
    src_len: usize,
}

impl Layout {
    /// The source offset of an offset in `text`.
    pub fn to_source(&self, t: usize) -> usize {
        let n = self.inserted.partition_point(|&p| (p as usize) < t);
        (t - n).min(self.src_len)
    }

    /// Where the text can be cut into independently parsed pieces: before each
    /// top-level statement (not before `else`/`elif`/`except`/`finally`, nor
    /// after a decorator or a block header). Starts with 0, ends with the length.
    pub fn chunks(&self) -> Vec<usize> {
        let b = self.text.as_bytes();
        let mut out = vec![0];
        for &p in &self.top {
            let p = p as usize;
            if p == 0 {
                continue;
            }
            let rest = &self.text[p..];
            let word_end = rest
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .unwrap_or(rest.len());
            if matches!(&rest[..word_end], "else" | "elif" | "except" | "finally") {
                continue;
            }
            // The previous logical line: a decorator or a header keeps going.
            let prev_start = self.line_start(p - 1);
            let prev = self.text[prev_start..p].trim_end_matches([' ', '\t', '\x0c', '\n', '\x02']);
            if prev.ends_with(':') || b.get(prev_start) == Some(&b'@') {
                continue;
            }
            out.push(p);
        }
        out.push(self.text.len());
        out
    }

    /// The logical line containing text offset `t`: its first token's offset.
    pub fn line_start(&self, t: usize) -> usize {
        let i = self.lines.partition_point(|&p| p as usize <= t);
        if i == 0 {
            0
        } else {
            self.lines[i - 1] as usize
        }
    }
}

/// 1-based line number of a source offset.
pub(crate) fn line_of(src: &str, pos: usize) -> usize {
    let pos = pos.min(src.len());
    src.as_bytes()[..pos]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Whether `word` is a string prefix (`r`, `b`, `f`, `u`, `rb`, `br`, `fr`, `rf`, any case).
pub(crate) fn is_string_prefix(word: &[u8]) -> bool {
    let lower: Vec<u8> = word.iter().map(|b| b.to_ascii_lowercase()).collect();
    matches!(
        lower.as_slice(),
        b"r" | b"u" | b"b" | b"f" | b"br" | b"rb" | b"fr" | b"rf"
    )
}

struct Scanner<'s> {
    src: &'s str,
    b: &'s [u8],
    i: usize,
    out: Vec<u8>,
    inserted: Vec<u32>,
    lines: Vec<u32>,
    top: Vec<u32>,
    indents: Vec<(u32, u32)>,
    /// Open brackets: the byte and its source offset.
    brackets: Vec<(u8, usize)>,
    /// Nesting count at each open bracket, and the current one.
    nest_base: Vec<u32>,
    nest: u32,
}

/// Runs the pre-pass.
pub(crate) fn layout(src: &str) -> Result<Layout, SyntaxError> {
    let mut s = Scanner {
        src,
        b: src.as_bytes(),
        i: 0,
        out: Vec::with_capacity(src.len() + 16),
        inserted: Vec::new(),
        lines: Vec::new(),
        top: Vec::new(),
        indents: vec![(0, 0)],
        brackets: Vec::new(),
        nest_base: Vec::new(),
        nest: 0,
    };
    s.run()?;
    let Scanner {
        out,
        inserted,
        lines,
        top,
        ..
    } = s;
    // Only whole ASCII bytes are replaced (with spaces) or inserted, so the
    // text stays UTF-8; the check cannot fail but must not panic either.
    let text = String::from_utf8(out)
        .map_err(|_| SyntaxError::new("source is not valid UTF-8", Span::new(0, 0)))?;
    Ok(Layout {
        text,
        inserted,
        lines,
        top,
        src_len: src.len(),
    })
}

impl Scanner<'_> {
    fn insert(&mut self, byte: u8) {
        self.inserted.push(self.out.len() as u32);
        self.out.push(byte);
    }

    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    fn at_eof(&self) -> bool {
        self.i >= self.b.len()
    }

    fn run(&mut self) -> Result<(), SyntaxError> {
        while !self.at_eof() {
            let line_start = self.i;
            // Indentation, measured like CPython: tabs to multiples of 8 for
            // `col`, as 1 for `alt`; the two must agree (TabError).
            let (mut col, mut alt) = (0u32, 0u32);
            while !self.at_eof() {
                match self.b[self.i] {
                    b' ' => {
                        col += 1;
                        alt += 1;
                    }
                    b'\t' => {
                        col = (col / 8 + 1) * 8;
                        alt += 1;
                    }
                    0x0c => {
                        col = 0;
                        alt = 0;
                    }
                    _ => break,
                }
                self.out.push(self.b[self.i]);
                self.i += 1;
            }
            if self.at_eof() {
                break;
            }
            match self.b[self.i] {
                b'#' | b'\n' | b'\r' => {
                    // A blank or comment-only line: no tokens, no NEWLINE.
                    self.skip_comment();
                    self.blank_newline();
                    continue;
                }
                _ => {}
            }
            let ws = Span::new(line_start, self.i);
            self.indentation(col, alt, ws)?;
            self.lines.push(self.out.len() as u32);
            if self.indents.len() == 1 {
                self.top.push(self.out.len() as u32);
            }
            self.logical_line()?;
        }
        for _ in 1..self.indents.len() {
            self.insert(DEDENT);
        }
        Ok(())
    }

    fn indentation(&mut self, col: u32, alt: u32, ws: Span) -> Result<(), SyntaxError> {
        let tab_error = || {
            SyntaxError::with_kind(
                SyntaxErrorKind::Tab,
                "inconsistent use of tabs and spaces in indentation",
                ws,
            )
        };
        let (top, top_alt) = *self.indents.last().unwrap_or(&(0, 0));
        if col == top {
            if alt != top_alt {
                return Err(tab_error());
            }
        } else if col > top {
            if alt <= top_alt {
                return Err(tab_error());
            }
            if self.indents.len() >= MAX_INDENT {
                return Err(SyntaxError::with_kind(
                    SyntaxErrorKind::Indentation,
                    "too many levels of indentation",
                    ws,
                ));
            }
            self.indents.push((col, alt));
            self.insert(INDENT);
        } else {
            while self.indents.len() > 1 && col < self.indents[self.indents.len() - 1].0 {
                self.indents.pop();
                self.insert(DEDENT);
            }
            let (top, top_alt) = *self.indents.last().unwrap_or(&(0, 0));
            if col != top {
                return Err(SyntaxError::with_kind(
                    SyntaxErrorKind::Indentation,
                    "unindent does not match any outer indentation level",
                    ws,
                ));
            }
            if alt != top_alt {
                return Err(tab_error());
            }
        }
        Ok(())
    }

    /// Replaces a comment (if any) up to the end of the line with spaces.
    fn skip_comment(&mut self) {
        if self.peek(0) == b'#' {
            while !self.at_eof() && !matches!(self.b[self.i], b'\n' | b'\r') {
                self.out.push(b' ');
                self.i += 1;
            }
        }
    }

    /// Consumes a line end that is not a logical NEWLINE (a space in the text).
    fn blank_newline(&mut self) {
        if self.peek(0) == b'\r' {
            self.out.push(b' ');
            self.i += 1;
            if self.peek(0) == b'\n' {
                self.out.push(b' ');
                self.i += 1;
            }
        } else if self.peek(0) == b'\n' {
            self.out.push(b' ');
            self.i += 1;
        }
    }

    fn nest_up(&mut self, by: u32, at: usize) -> Result<(), SyntaxError> {
        self.nest += by;
        if self.nest > MAX_NESTING {
            return Err(SyntaxError::new(
                format!("expression is nested too deeply (more than {MAX_NESTING} levels)"),
                Span::new(at, at + 1),
            ));
        }
        Ok(())
    }

    fn nest_reset(&mut self) {
        self.nest = self.nest_base.last().map_or(0, |b| b + 1);
    }

    /// Scans one logical line, from its first token through its NEWLINE.
    fn logical_line(&mut self) -> Result<(), SyntaxError> {
        self.nest = 0;
        loop {
            if self.at_eof() {
                if let Some(&(open, at)) = self.brackets.last() {
                    return Err(SyntaxError::new(
                        format!("'{}' was never closed", open as char),
                        Span::new(at, at + 1),
                    )
                    .incomplete());
                }
                self.insert(b'\n');
                return Ok(());
            }
            let c = self.b[self.i];
            match c {
                b'\n' | b'\r' => {
                    if self.brackets.is_empty() {
                        if c == b'\r' && self.peek(1) == b'\n' {
                            self.out.push(b' ');
                            self.i += 1;
                        }
                        // A lone '\r' ends a line too (old Mac line ends).
                        self.out.push(b'\n');
                        self.i += 1;
                        return Ok(());
                    }
                    self.blank_newline();
                }
                b'#' => self.skip_comment(),
                b'\\' => self.continuation()?,
                b'"' | b'\'' => self.string(self.i)?,
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                b'(' | b'[' | b'{' => {
                    if self.brackets.len() >= MAX_BRACKETS {
                        return Err(SyntaxError::new(
                            "too many nested parentheses",
                            Span::new(self.i, self.i + 1),
                        ));
                    }
                    self.brackets.push((c, self.i));
                    self.nest_base.push(self.nest);
                    self.nest_up(1, self.i)?;
                    self.out.push(c);
                    self.i += 1;
                }
                b')' | b']' | b'}' => self.close(c)?,
                b',' | b';' => {
                    self.nest_reset();
                    self.out.push(c);
                    self.i += 1;
                }
                b'=' if self.peek(1) != b'=' => {
                    self.nest_reset();
                    self.out.push(c);
                    self.i += 1;
                }
                _ if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => self.word()?,
                b'+' | b'-' | b'*' | b'/' | b'%' | b'@' | b'&' | b'|' | b'^' | b'~' | b'.'
                | b'<' | b'>' | b'!' | b'=' | b':' => self.operator()?,
                b' ' | b'\t' | 0x0c => {
                    self.out.push(c);
                    self.i += 1;
                }
                _ if c < 0x20 || c == 0x7f => {
                    return Err(SyntaxError::new(
                        format!("invalid non-printable character U+{c:04X}"),
                        Span::new(self.i, self.i + 1),
                    ));
                }
                _ => {
                    self.out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn continuation(&mut self) -> Result<(), SyntaxError> {
        let at = self.i;
        match self.peek(1) {
            b'\n' => {
                self.out.extend_from_slice(b"  ");
                self.i += 2;
            }
            b'\r' => {
                self.out.extend_from_slice(b"  ");
                self.i += 2;
                if self.peek(0) == b'\n' {
                    self.out.push(b' ');
                    self.i += 1;
                }
            }
            0 if self.i + 1 >= self.b.len() => {
                return Err(SyntaxError::new(
                    "unexpected EOF while parsing",
                    Span::new(at, at + 1),
                )
                .incomplete());
            }
            _ => {
                return Err(SyntaxError::new(
                    "unexpected character after line continuation character",
                    Span::new(at + 1, at + 2),
                ));
            }
        }
        if self.at_eof() {
            return Err(
                SyntaxError::new("unexpected EOF while parsing", Span::new(at, at + 1))
                    .incomplete(),
            );
        }
        Ok(())
    }

    fn close(&mut self, c: u8) -> Result<(), SyntaxError> {
        let at = self.i;
        let Some((open, open_at)) = self.brackets.pop() else {
            return Err(SyntaxError::new(
                format!("unmatched '{}'", c as char),
                Span::new(at, at + 1),
            ));
        };
        let expected = match open {
            b'(' => b')',
            b'[' => b']',
            _ => b'}',
        };
        if c != expected {
            let open_line = line_of(self.src, open_at);
            let msg = if open_line == line_of(self.src, at) {
                format!(
                    "closing parenthesis '{}' does not match opening parenthesis '{}'",
                    c as char, open as char
                )
            } else {
                format!(
                    "closing parenthesis '{}' does not match opening parenthesis '{}' on line {open_line}",
                    c as char, open as char
                )
            };
            return Err(SyntaxError::new(msg, Span::new(at, at + 1)));
        }
        let base = self.nest_base.pop().unwrap_or(0);
        self.nest = base;
        self.nest_up(1, at)?;
        self.out.push(c);
        self.i += 1;
        Ok(())
    }

    fn operator(&mut self) -> Result<(), SyntaxError> {
        let at = self.i;
        let c = self.b[at];
        let two = [c, self.peek(1)];
        let len = match &two {
            b"**" | b"//" | b"<<" | b">>" => {
                if self.peek(2) == b'=' {
                    3
                } else {
                    2
                }
            }
            b"==" | b"!=" | b"<=" | b">=" | b"->" | b":=" | b"+=" | b"-=" | b"*=" | b"/="
            | b"%=" | b"&=" | b"|=" | b"^=" | b"@=" => 2,
            _ => 1,
        };
        let op = &self.b[at..at + len];
        let nests = !matches!(
            op,
            b"==" | b"!=" | b"<=" | b">=" | b"<" | b">" | b"->" | b":" | b"!"
        );
        if len >= 2 && op[len - 1] == b'=' && nests && op != b":=" {
            // Augmented assignment: a statement-level separator.
            self.nest_reset();
        } else if nests {
            self.nest_up(1, at)?;
        }
        self.out.extend_from_slice(op);
        self.i += len;
        Ok(())
    }

    fn number(&mut self) {
        while !self.at_eof() {
            let c = self.b[self.i];
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                if (c == b'e' || c == b'E') && matches!(self.peek(1), b'+' | b'-') {
                    self.out.push(c);
                    self.i += 1;
                }
                self.out.push(self.b[self.i]);
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// An identifier or keyword, or the prefix of a string.
    fn word(&mut self) -> Result<(), SyntaxError> {
        let start = self.i;
        while !self.at_eof() {
            let c = self.b[self.i];
            if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
                self.i += 1;
            } else {
                break;
            }
        }
        let word = &self.b[start..self.i];
        if matches!(self.peek(0), b'"' | b'\'') && is_string_prefix(word) {
            self.out.extend_from_slice(word);
            return self.string(start);
        }
        self.out.extend_from_slice(word);
        if matches!(word, b"not" | b"if" | b"lambda" | b"await" | b"yield") {
            self.nest_up(1, start)?;
        }
        Ok(())
    }

    /// A string literal whose quote is at `self.i` (its prefix, if any, at `start`).
    fn string(&mut self, start: usize) -> Result<(), SyntaxError> {
        let q = self.b[self.i];
        let triple = self.peek(1) == q && self.peek(2) == q;
        let qlen = if triple { 3 } else { 1 };
        let body = self.i + qlen;
        let mut j = body;
        let b = self.b;
        loop {
            if j >= b.len() {
                let line = line_of(self.src, b.len()) - usize::from(self.src.ends_with('\n'));
                let err = if triple {
                    SyntaxError::new(
                        format!(
                            "unterminated triple-quoted string literal (detected at line {line})"
                        ),
                        Span::new(start, body),
                    )
                    .incomplete()
                } else {
                    SyntaxError::new(
                        format!("unterminated string literal (detected at line {line})"),
                        Span::new(start, body),
                    )
                };
                return Err(err);
            }
            let c = b[j];
            if c == b'\\' {
                j += 2;
                // `\` + CRLF continues the string over two bytes of line end.
                if j <= b.len() && b[j - 1] == b'\r' && b.get(j) == Some(&b'\n') {
                    j += 1;
                }
                continue;
            }
            if c == INDENT || c == DEDENT {
                return Err(SyntaxError::new(
                    format!("invalid non-printable character U+{c:04X}"),
                    Span::new(j, j + 1),
                ));
            }
            if c == q && (!triple || (b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q))) {
                j += qlen;
                break;
            }
            if !triple && (c == b'\n' || c == b'\r') {
                let line = line_of(self.src, j);
                return Err(SyntaxError::new(
                    format!("unterminated string literal (detected at line {line})"),
                    Span::new(start, body),
                ));
            }
            j += 1;
        }
        let j = j.min(b.len());
        self.out.extend_from_slice(&b[self.i..j]);
        self.i = j;
        Ok(())
    }
}
