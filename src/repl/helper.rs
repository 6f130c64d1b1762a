//! The rustyline helper: tab completion through [`Interpreter::complete`] and
//! syntax colouring with the REPL's own tokenizer. Continuation lines are the
//! loop's business (`mod.rs`), so each line is validated as it is.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::tokens::{tokenize, Kind};
use crate::Interpreter;

const META: [&str; 6] = [":help", ":vars", ":show ", ":reset", ":devices ", ":quit"];

/// Completion and colouring for the line editor.
pub struct ReplHelper {
    /// The session's interpreter (replaced by `:devices`).
    pub interpreter: Rc<RefCell<Interpreter>>,
    /// Colour the input (a terminal, `NO_COLOR` unset).
    pub color: bool,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        if before.starts_with(':') && !before.contains(' ') {
            let found = META
                .iter()
                .filter(|m| m.starts_with(before))
                .map(|m| pair(m))
                .collect();
            return Ok((0, found));
        }
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c == '_' || c == '.' || c.is_alphanumeric())
            .last()
            .map_or(pos, |(i, _)| i);
        let prefix = &before[start..];
        if prefix.is_empty() || prefix.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok((pos, Vec::new()));
        }
        let word_start = start + prefix.rfind('.').map_or(0, |i| i + 1);
        let Ok(interpreter) = self.interpreter.try_borrow() else {
            return Ok((pos, Vec::new()));
        };
        let found = interpreter
            .complete(prefix)
            .iter()
            .map(|c| pair(c))
            .collect();
        Ok((word_start, found))
    }
}

fn pair(text: &str) -> Pair {
    Pair {
        display: text.trim_end().to_string(),
        replacement: text.to_string(),
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color || line.starts_with(':') {
            return Cow::Borrowed(line);
        }
        Cow::Owned(colorize(line))
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _forced: bool) -> bool {
        self.color
    }
}

/// `line` with ANSI colours: keywords, strings, numbers, comments.
pub fn colorize(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    for token in tokenize(line).0 {
        let text = &line[token.span];
        let code = match token.kind {
            Kind::Keyword => "\x1b[1;35m",
            Kind::Str => "\x1b[32m",
            Kind::Number => "\x1b[36m",
            Kind::Comment => "\x1b[90m",
            _ => {
                out.push_str(text);
                continue;
            }
        };
        out.push_str(code);
        out.push_str(text);
        out.push_str("\x1b[0m");
    }
    out
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_names_and_attributes_of_natives() {
        crate::with_big_stack(|| {
            let interp = Interpreter::new(crate::Options::default());
            let src = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\n";
            interp
                .run_source(crate::SourceFile::new("t.dist", src))
                .unwrap();
            assert!(interp.complete("s.ru").contains(&"run".to_string()));
            assert!(interp
                .complete("s.experimental_l")
                .contains(&"experimental_local_results".to_string()));
            assert_eq!(interp.complete("tf.distribute.Mirr"), ["MirroredStrategy"]);
            assert!(interp.complete("pri").contains(&"print".to_string()));
            assert!(interp.complete("hel").contains(&"help".to_string()));
        });
    }

    #[test]
    fn colours_only_what_it_knows() {
        assert_eq!(
            colorize("if x: 'a' # c"),
            "\x1b[1;35mif\x1b[0m x: \x1b[32m'a'\x1b[0m \x1b[90m# c\x1b[0m"
        );
        assert_eq!(colorize("y = 12"), "y = \x1b[36m12\x1b[0m");
    }
}
