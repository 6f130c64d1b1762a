//! The one diagnostic model: what every error (syntax or runtime) becomes
//! before it is rendered. `render.rs` draws it with ariadne for the terminal.

use std::rc::Rc;

use crate::syntax::{SourceFile, Span};

/// A location in a source file.
#[derive(Clone, Debug)]
pub struct Location {
    /// The file.
    pub source: Rc<SourceFile>,
    /// The span.
    pub span: Span,
}

/// One traceback frame: where a call was made (outermost first).
#[derive(Clone, Debug)]
pub struct Frame {
    /// Where.
    pub location: Location,
    /// The function that was running there (`<module>` at top level).
    pub func: Rc<str>,
}

/// An uncaught Python exception (or syntax error), ready to render.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The exception class name (`TypeError`, `InvalidArgumentError` …).
    pub class: String,
    /// The message (`str(exception)`); may be empty.
    pub message: String,
    /// The chain of frames, outermost first; the last one is where it was raised.
    pub frames: Vec<Frame>,
    /// Help lines (where we can say more than Python/TensorFlow).
    pub help: Vec<String>,
    /// Notes (e.g. the cause chain: "The above exception was the direct cause …").
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// The last line CPython would print: `TypeError: message` (or just the class).
    pub fn headline(&self) -> String {
        if self.message.is_empty() {
            self.class.clone()
        } else {
            format!("{}: {}", self.class, self.message)
        }
    }
}
