//! Syntax errors: what the lowering and the parser report. They become
//! Python `SyntaxError`/`IndentationError`/`TabError` exceptions in `eval`.

use super::span::Span;

/// Which Python exception class a syntax error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// `SyntaxError`.
    Syntax,
    /// `IndentationError` (unexpected indent, expected an indented block, unindent mismatch).
    Indentation,
    /// `TabError` (inconsistent use of tabs and spaces).
    Tab,
}

impl SyntaxErrorKind {
    /// The Python class name.
    pub fn class_name(self) -> &'static str {
        match self {
            SyntaxErrorKind::Syntax => "SyntaxError",
            SyntaxErrorKind::Indentation => "IndentationError",
            SyntaxErrorKind::Tab => "TabError",
        }
    }
}

/// A syntax error at a span, with CPython's message where CPython has one.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    /// The exception class.
    pub kind: SyntaxErrorKind,
    /// The message (`invalid syntax`, `expected ':'`, `'async def' is not supported` …).
    pub message: String,
    /// Where.
    pub span: Span,
    /// A help line where we can say more than CPython.
    pub help: Option<String>,
    /// True when the input ended too early (an open bracket or block, an
    /// unterminated triple-quoted string): the REPL reads another line.
    pub incomplete: bool,
}

impl SyntaxError {
    /// A plain `SyntaxError`.
    #[cold]
    pub fn new(message: impl Into<String>, span: Span) -> SyntaxError {
        SyntaxError {
            kind: SyntaxErrorKind::Syntax,
            message: message.into(),
            span,
            help: None,
            incomplete: false,
        }
    }

    /// An error of the given class.
    #[cold]
    pub fn with_kind(kind: SyntaxErrorKind, message: impl Into<String>, span: Span) -> SyntaxError {
        SyntaxError {
            kind,
            ..SyntaxError::new(message, span)
        }
    }

    /// Adds a help line.
    pub fn help(mut self, help: impl Into<String>) -> SyntaxError {
        self.help = Some(help.into());
        self
    }

    /// Marks the error as "the input ended too early".
    pub fn incomplete(mut self) -> SyntaxError {
        self.incomplete = true;
        self
    }
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.class_name(), self.message)
    }
}
