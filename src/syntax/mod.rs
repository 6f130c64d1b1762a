//! The surface syntax: spans, the AST, the pest grammar and its lowering.
//! Nothing here knows about values or the runtime.

pub mod ast;
pub mod codec;
pub mod dump;
pub mod encoding;
pub mod error;
mod layout;
pub mod lower;
pub mod parser;
pub mod printable;
pub mod span;

pub use dump::dump;
pub use error::{SyntaxError, SyntaxErrorKind};
pub use lower::parse_module;
pub use span::{SourceFile, Span};

/// Python's keywords (soft keywords such as `match` excluded).
pub const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];
