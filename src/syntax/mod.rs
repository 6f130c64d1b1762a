//! The surface syntax: spans, the AST, the pest grammar and its lowering.
//! Nothing here knows about values or the runtime.

pub mod ast;
pub mod error;
pub mod lower;
pub mod parser;
pub mod span;

pub use error::{SyntaxError, SyntaxErrorKind};
pub use lower::parse_module;
pub use span::{SourceFile, Span};
