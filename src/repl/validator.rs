//! When REPL input is complete. The rules, for typed and piped input alike:
//! - input inside an open bracket, an unterminated triple-quoted string or
//!   after a trailing `\` always continues;
//! - a block (a line ending in `:` or a decorator) continues until a blank
//!   line, or until a line that starts at column 0 and does not continue the
//!   statement (`else`, `elif`, `except`, `finally`): that line starts the
//!   next input;
//! - other input is complete unless the parser says it ended too early
//!   ([`Interpreter::is_incomplete`]); a blank line always ends it, so the
//!   parser's verdict can never trap the user.

use super::tokens::{tokenize, Kind, Token};
use crate::Interpreter;

/// Keywords that continue the compound statement above them.
const CONTINUERS: [&str; 4] = ["else", "elif", "except", "finally"];

/// Accumulates lines until they form a complete input.
#[derive(Debug, Default)]
pub struct Chunker {
    buf: String,
}

impl Chunker {
    /// A chunker with nothing pending.
    pub fn new() -> Chunker {
        Chunker::default()
    }

    /// The input gathered so far.
    pub fn text(&self) -> &str {
        &self.buf
    }

    /// Whether nothing is pending (the prompt is `>>> `, not `... `).
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Drops pending input (Ctrl-C).
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    /// Takes pending input (end of input), if any.
    pub fn take(&mut self) -> Option<String> {
        if self.buf.trim().is_empty() {
            self.buf.clear();
            return None;
        }
        Some(std::mem::take(&mut self.buf))
    }

    /// Whether `line` ends the pending block without being part of it: it
    /// starts at column 0, the block has a body, and the line does not
    /// continue the block's statement.
    pub fn closed_by(&self, line: &str) -> bool {
        if self.buf.is_empty() || line.trim().is_empty() {
            return false;
        }
        if line.starts_with([' ', '\t']) || line.starts_with('#') || line.starts_with(['@']) {
            return false;
        }
        let first_word = line
            .split(|c: char| !(c == '_' || c.is_alphanumeric()))
            .next()
            .unwrap_or("");
        if CONTINUERS.contains(&first_word) {
            return false;
        }
        // Only once the block has a body: after a decorator or a header
        // the next line at column 0 still belongs to it.
        let body_started = self
            .buf
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .is_some_and(|l| l.starts_with([' ', '\t']));
        let scan = Scan::of(&self.buf);
        body_started && !scan.open && scan.block
    }

    /// Adds one line (without its newline). Returns the input when it is
    /// complete. Blank lines with nothing pending are ignored.
    pub fn push(&mut self, line: &str) -> Option<String> {
        if self.buf.is_empty() && line.trim().is_empty() {
            return None;
        }
        self.buf.push_str(line);
        self.buf.push('\n');
        if needs_more(&self.buf) {
            None
        } else {
            Some(std::mem::take(&mut self.buf))
        }
    }
}

/// Whether `input` (lines ending in `\n`) needs another line.
pub fn needs_more(input: &str) -> bool {
    let scan = Scan::of(input);
    if scan.open {
        return true;
    }
    let last_line = input
        .strip_suffix('\n')
        .unwrap_or(input)
        .rsplit('\n')
        .next();
    let last_blank = last_line.is_none_or(|l| l.trim().is_empty());
    if scan.block {
        return !last_blank;
    }
    !last_blank && Interpreter::is_incomplete(input)
}

/// What the tokenizer says about an input.
struct Scan {
    /// An open bracket, an unterminated triple-quoted string or a trailing `\`.
    open: bool,
    /// A compound statement: some line ends in `:` outside brackets, or the
    /// input starts with a decorator.
    block: bool,
}

impl Scan {
    fn of(input: &str) -> Scan {
        let (tokens, open_string) = tokenize(input);
        let significant: Vec<&Token> = tokens
            .iter()
            .filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment))
            .collect();
        let mut depth = 0usize;
        let mut block = significant.first().is_some_and(|t| t.kind == Kind::At);
        for (i, t) in significant.iter().enumerate() {
            match t.kind {
                Kind::Open => depth += 1,
                Kind::Close => depth = depth.saturating_sub(1),
                Kind::Colon if depth == 0 => {
                    let next = significant.get(i + 1).map(|t| t.kind);
                    if matches!(next, None | Some(Kind::Newline)) {
                        block = true;
                    }
                }
                _ => {}
            }
        }
        let trailing_backslash = significant
            .iter()
            .rev()
            .find(|t| t.kind != Kind::Newline)
            .is_some_and(|t| t.kind == Kind::Backslash)
            && significant.last().is_some_and(|t| t.kind == Kind::Newline)
            && significant
                .iter()
                .rev()
                .take_while(|t| t.kind == Kind::Newline)
                .count()
                == 1;
        Scan {
            open: depth > 0 || open_string || trailing_backslash,
            block,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds lines the way the REPL does; returns the inputs it would run.
    fn chunks(text: &str) -> Vec<String> {
        let mut chunker = Chunker::new();
        let mut out = Vec::new();
        for line in text.lines() {
            if chunker.closed_by(line) {
                out.extend(chunker.take());
            }
            out.extend(chunker.push(line));
        }
        out.extend(chunker.take());
        out
    }

    #[test]
    fn simple_statements_run_line_by_line() {
        assert_eq!(chunks("x = 1\n\nprint(x)\n"), vec!["x = 1\n", "print(x)\n"]);
    }

    #[test]
    fn blocks_end_at_a_blank_line() {
        let text = "def f(a):\n    b = a + 1\n\n    return b\n\nf(2)\n";
        assert_eq!(
            chunks(text),
            vec!["def f(a):\n    b = a + 1\n\n", "    return b\n", "f(2)\n"]
        );
    }

    #[test]
    fn blocks_end_at_a_dedent() {
        let text = "def f(a):\n    return a\nf(2)\nif x:\n  pass\nelse:\n  pass\n# c\nprint(1)\n";
        assert_eq!(
            chunks(text),
            vec![
                "def f(a):\n    return a\n",
                "f(2)\n",
                "if x:\n  pass\nelse:\n  pass\n# c\n",
                "print(1)\n"
            ]
        );
    }

    #[test]
    fn brackets_strings_and_backslashes_continue() {
        assert_eq!(
            chunks("x = [1,\n\n  2]\ny = 3\n"),
            vec!["x = [1,\n\n  2]\n", "y = 3\n"]
        );
        assert_eq!(
            chunks("s = \"\"\"a\n\nb\"\"\"\n"),
            vec!["s = \"\"\"a\n\nb\"\"\"\n"]
        );
        assert_eq!(chunks("x = 1 + \\\n  2\n"), vec!["x = 1 + \\\n  2\n"]);
        assert_eq!(
            chunks("d = {'a': 1,\n     'b': 2}\n"),
            vec!["d = {'a': 1,\n     'b': 2}\n"]
        );
    }

    #[test]
    fn decorators_and_one_line_blocks() {
        let text = "@dec\ndef f():\n    pass\n\nfor i in x: print(i)\n\n";
        assert_eq!(
            chunks(text),
            vec!["@dec\ndef f():\n    pass\n\n", "for i in x: print(i)\n"]
        );
        assert!(needs_more("if x:\n"));
        assert!(!needs_more("if x:\n\n"));
        assert!(!needs_more("x[1:]\n"));
        assert!(!needs_more("f = lambda: 1\n"));
    }
}
